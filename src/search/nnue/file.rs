//! The NNUE file format of YaneuraOu's "classic" NNUE editions, read and written.
//!
//! A file is, all integers little-endian:
//!
//! - a header: the format version (`u32`, [`VERSION`]), the whole net's structure hash
//!   (`u32`), the length of the architecture text (`u32`) and that text (ASCII, for people:
//!   the loader goes by the hash);
//! - the feature transformer: its own structure hash (`u32`), `half` biases (`i16`), then
//!   `features × half` weights (`i16`), feature-major (the `half` weights of feature 0, then
//!   of feature 1, …);
//! - the network: its structure hash (`u32`), then each affine layer from the input on: its
//!   biases (`i32`, one per output) and its weights (`i8`, output-major, each output's row as
//!   long as the input rounded up to 32: the padding columns are in the file too);
//! - nothing after the last layer.
//!
//! The structure hashes are computed from the layer shapes (see [`Arch::hash`]), so a file of
//! another architecture is recognised by its hash before any weight is read; the error then
//! quotes the file's own architecture text.

use super::features::FeatureSet;
use super::{Arch, Network};

/// The format version every YaneuraOu classic NNUE file starts with.
pub const VERSION: u32 = 0x7AF3_2F16;

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

/// Why an NNUE file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NnueError {
    #[error("not a YaneuraOu NNUE file (version {found:#010x}, expected {VERSION:#010x})")]
    Version { found: u32 },
    #[error(
        "unsupported NNUE architecture (hash {hash:#010x}): the file says \"{found}\"; \
         supported: {}",
        supported_names()
    )]
    Architecture { hash: u32, found: String },
    #[error("NNUE file damaged: the {part} hash is {found:#010x}, expected {expected:#010x}")]
    PartHash {
        part: &'static str,
        found: u32,
        expected: u32,
    },
    #[error("NNUE file truncated: {size} bytes, {arch} needs {expected}")]
    Truncated {
        size: usize,
        expected: usize,
        arch: String,
    },
    #[error("NNUE file has {extra} bytes after the last layer ({arch} is {expected} bytes)")]
    Trailing {
        extra: usize,
        expected: usize,
        arch: String,
    },
}

fn supported_names() -> String {
    SUPPORTED
        .iter()
        .map(|a| a.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `bytes` start like a YaneuraOu NNUE file (how `EvalFile` tells one from gougi's
/// linear weights, which start with their own magic).
pub fn looks_like_nnue(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == VERSION
}

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

/// A little-endian reader over the file's bytes; sizes are checked before reading.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let b = &self.bytes[self.at..self.at + 4];
        self.at += 4;
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    fn i16s(&mut self, n: usize) -> Vec<i16> {
        let b = &self.bytes[self.at..self.at + 2 * n];
        self.at += 2 * n;
        b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    }

    fn i32s(&mut self, n: usize) -> Vec<i32> {
        let b = &self.bytes[self.at..self.at + 4 * n];
        self.at += 4 * n;
        b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn i8s(&mut self, n: usize) -> Vec<i8> {
        let b = &self.bytes[self.at..self.at + n];
        self.at += n;
        b.iter().map(|&x| x as i8).collect()
    }

    fn hash(&mut self, part: &'static str, expected: u32) -> Result<(), NnueError> {
        let found = self.u32();
        if found == expected {
            Ok(())
        } else {
            Err(NnueError::PartHash {
                part,
                found,
                expected,
            })
        }
    }
}

/// Reads a net from a file's bytes.
pub fn parse(bytes: &[u8]) -> Result<Network, NnueError> {
    let short = |expected: usize, arch: String| NnueError::Truncated {
        size: bytes.len(),
        expected,
        arch,
    };
    if bytes.len() < 12 {
        if bytes.len() >= 4 && !looks_like_nnue(bytes) {
            let found = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            return Err(NnueError::Version { found });
        }
        return Err(short(12, "the header".into()));
    }
    let mut r = Reader { bytes, at: 0 };
    let version = r.u32();
    if version != VERSION {
        return Err(NnueError::Version { found: version });
    }
    let hash = r.u32();
    let text_len = r.u32() as usize;
    let text_end = 12usize.saturating_add(text_len);
    let Some(text) = bytes.get(12..text_end) else {
        return Err(short(text_end, "the header text".into()));
    };
    let found = String::from_utf8_lossy(text).into_owned();
    r.at = text_end;
    // The hash, not the text, identifies the structure: YaneuraOu renamed a layer in the text
    // (AffineTransform → AffineTransformSparseInput) without changing the hash or the weights,
    // and the public nets carry the older text.
    let Some(arch) = SUPPORTED.iter().copied().find(|a| a.hash() == hash) else {
        return Err(NnueError::Architecture { hash, found });
    };
    let expected = arch.file_size(text_len);
    if bytes.len() < expected {
        return Err(short(expected, arch.name()));
    }
    if bytes.len() > expected {
        return Err(NnueError::Trailing {
            extra: bytes.len() - expected,
            expected,
            arch: arch.name(),
        });
    }
    r.hash("feature transformer", arch.transformer_hash())?;
    let ft_bias = r.i16s(arch.half);
    let ft_weight = r.i16s(arch.features.dimensions() * arch.half);
    r.hash("network", arch.network_hash())?;
    let l1_bias = r.i32s(arch.l1);
    let l1_weight = r.i8s(arch.l1 * padded(2 * arch.half));
    let l2_bias = r.i32s(arch.l2);
    let l2_weight = r.i8s(arch.l2 * padded(arch.l1));
    let out_bias = r.i32s(1)[0];
    let out_weight = r.i8s(padded(arch.l2));
    debug_assert_eq!(r.at, bytes.len());
    Ok(Network {
        arch,
        description: found,
        ft_bias,
        ft_weight,
        l1_bias,
        l1_by_input: super::by_input(&l1_weight, arch),
        l1_weight,
        l2_bias,
        l2_weight,
        out_bias,
        out_weight,
    })
}

/// Writes a net in the format [`parse`] reads (and YaneuraOu loads).
pub fn to_bytes(net: &Network) -> Vec<u8> {
    let a = net.arch;
    let text = a.description();
    let mut out = Vec::with_capacity(a.file_size(text.len()));
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&a.hash().to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&a.transformer_hash().to_le_bytes());
    for v in net.ft_bias.iter().chain(&net.ft_weight) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&a.network_hash().to_le_bytes());
    let layers: [(&[i32], &[i8]); 3] = [
        (&net.l1_bias, &net.l1_weight),
        (&net.l2_bias, &net.l2_weight),
        (std::slice::from_ref(&net.out_bias), &net.out_weight),
    ];
    for (bias, weight) in layers {
        for b in bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out.extend(weight.iter().map(|&w| w as u8));
    }
    out
}
