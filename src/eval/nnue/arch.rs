//! The shapes of net this loader reads ([`Arch`]: features, the transformer's width, the two
//! hidden layers), with what follows from a shape: its structure hashes as the format computes
//! them, its names and the size of its file.

use super::features::FeatureSet;

/// The shape of a net: its input features, the feature transformer's width per perspective
/// and the two hidden layers' widths (`halfKP_<half>x2-<l1>-<l2>`, `KP_<half>x2-<l1>-<l2>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    pub features: FeatureSet,
    pub half: usize,
    pub l1: usize,
    pub l2: usize,
}

/// The architectures this loader reads: halfKP feature transformers of three widths and the
/// two hidden layers after them, and K+P at 256. The public nets are the first.
pub const SUPPORTED: [Arch; 5] = [
    Arch {
        features: FeatureSet::HalfKP,
        half: 256,
        l1: 32,
        l2: 32,
    },
    Arch {
        features: FeatureSet::HalfKP,
        half: 512,
        l1: 16,
        l2: 32,
    },
    Arch {
        features: FeatureSet::HalfKP,
        half: 1024,
        l1: 8,
        l2: 32,
    },
    Arch {
        features: FeatureSet::HalfKP,
        half: 1024,
        l1: 8,
        l2: 64,
    },
    Arch {
        features: FeatureSet::KP,
        half: 256,
        l1: 32,
        l2: 32,
    },
];

/// Rounds up to the 32-byte blocks the format pads every affine layer's input to.
pub const fn padded(n: usize) -> usize {
    n.div_ceil(32) * 32
}

// The structure hashes, as the format defines them: each layer mixes a constant of its kind
// with its width and the hash of the layer before it (the features' own: FeatureSet::hash).
const INPUT_SLICE_HASH: u32 = 0xEC42_E90D;
const AFFINE_HASH: u32 = 0xCC03_DAE4;
const CLIPPED_RELU_HASH: u32 = 0x538D_24C7;

const fn affine_hash(prev: u32, outputs: usize) -> u32 {
    AFFINE_HASH.wrapping_add(outputs as u32) ^ (prev >> 1) ^ (prev << 31)
}

const fn relu_hash(prev: u32) -> u32 {
    CLIPPED_RELU_HASH.wrapping_add(prev)
}

impl Arch {
    /// The feature transformer's hash.
    pub const fn transformer_hash(&self) -> u32 {
        self.features.hash() ^ (2 * self.half) as u32
    }

    /// The network's (the layers after the transformer) hash.
    pub const fn network_hash(&self) -> u32 {
        let input = INPUT_SLICE_HASH ^ (2 * self.half) as u32;
        let h1 = relu_hash(affine_hash(input, self.l1));
        let h2 = relu_hash(affine_hash(h1, self.l2));
        affine_hash(h2, 1)
    }

    /// The whole file's hash, in its header.
    pub const fn hash(&self) -> u32 {
        self.transformer_hash() ^ self.network_hash()
    }

    /// The short name users know it by, e.g. `halfKP_256x2-32-32`.
    pub fn name(&self) -> String {
        let f = self.features.short();
        format!("{f}_{}x2-{}-{}", self.half, self.l1, self.l2)
    }

    /// The architecture text YaneuraOu writes in a file's header.
    pub fn description(&self) -> String {
        let (h2, l1, l2) = (2 * self.half, self.l1, self.l2);
        format!(
            "Features={}[{}->{}x2],Network=AffineTransform[1<-{l2}](ClippedReLU[{l2}]\
             (AffineTransform[{l2}<-{l1}](ClippedReLU[{l1}](AffineTransformSparseInput[{l1}<-{h2}]\
             (InputSlice[{h2}(0:{h2})])))))",
            self.features.text(),
            self.features.dimensions(),
            self.half
        )
    }

    /// The size of a file of this architecture with a `text_len`-byte header text.
    pub fn file_size(&self, text_len: usize) -> usize {
        let transformer = 4 + 2 * self.half + 2 * self.features.dimensions() * self.half;
        let network = 4
            + 4 * self.l1
            + self.l1 * padded(2 * self.half)
            + 4 * self.l2
            + self.l2 * padded(self.l1)
            + 4
            + padded(self.l2);
        12 + text_len + transformer + network
    }
}

/// The public nets' architecture.
pub const HALFKP_256: Arch = SUPPORTED[0];
/// K+P at 256 (`kp_256x2-32-32`): nets under a megabyte.
pub const KP_256: Arch = SUPPORTED[4];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_architecture_s_hash_is_the_known_one() {
        // The hash every public halfKP_256x2-32-32 nn.bin carries in its header.
        assert_eq!(HALFKP_256.hash(), 0x3E5A_A6EE);
        assert_eq!(HALFKP_256.name(), "halfKP_256x2-32-32");
        // The hash YaneuraOu's kp_256x2-32-32 build loads without a warning.
        assert_eq!(KP_256.hash(), 0x5C64_64A9);
        assert_eq!(KP_256.name(), "KP_256x2-32-32");
        assert_eq!(KP_256.file_size(KP_256.description().len()), 893_928);
    }
}
