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

use super::arch::{padded, SUPPORTED};
use super::network::{Layers, Network};

/// The format version every YaneuraOu classic NNUE file starts with.
pub const VERSION: u32 = 0x7AF3_2F16;

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
    Ok(Network::from_layers(
        arch,
        found,
        Layers {
            ft_bias,
            ft_weight,
            l1_bias,
            l1_weight,
            l2_bias,
            l2_weight,
            out_bias,
            out_weight,
        },
    ))
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

impl Network {
    /// Reads a net from a file's bytes, refusing other architectures and damaged files.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NnueError> {
        parse(bytes)
    }

    /// The bytes of the file this net is read from (YaneuraOu loads them too).
    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(self)
    }

    /// Reads a net file.
    pub fn load(path: &std::path::Path) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}
