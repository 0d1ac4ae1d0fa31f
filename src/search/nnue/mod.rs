//! NNUE evaluation in YaneuraOu's classic NNUE format (`nn.bin`, halfKP_256x2-32-32 and its
//! wider relatives), computed bit for bit as YaneuraOu computes it.
//!
//! The net, from the input on:
//!
//! 1. the feature transformer: for each perspective (the side to move first, then the other),
//!    the sum, in wrapping 16-bit integers, of the biases and of the weight column of every
//!    active HalfKP feature ([`features`]); each sum clipped to 0..=127 becomes one byte of
//!    the next layer's input (`2 × half` bytes);
//! 2. two hidden layers: 32-bit biases plus 8-bit weights times the input bytes, shifted right
//!    by 6 (the weights' scale) and clipped to 0..=127;
//! 3. the output layer: one 32-bit sum, divided (truncating) by `FV_SCALE` = 16, then bounded
//!    by YaneuraOu's largest evaluation.
//!
//! The result is the side to move's score in YaneuraOu's units (a pawn is about 90 for the
//! public nets). The arithmetic is integer throughout, so the order of summation does not
//! matter and a portable loop gives the same value as YaneuraOu's SIMD code.
//!
//! [`Network::evaluate`] computes a position from scratch (the `eval` command);
//! [`accumulator`] carries the transformer's sums from move to move, as a search would. The
//! file format is in [`file`].

pub mod accumulator;
mod avx2;
pub mod features;
pub mod file;
pub mod kernel;
pub mod search;
pub mod train;

use std::sync::Arc;

use crate::book::SplitMix64;
use crate::shogi::Position;

pub use accumulator::Accumulator;
pub use file::{looks_like_nnue, NnueError};
pub use kernel::Kernel;
pub use search::NnueEval;

/// YaneuraOu's default divisor of the output layer's sum (its `FV_SCALE` option).
pub const FV_SCALE: i32 = 16;
/// The right shift of a hidden layer's sum (its weights carry 6 fractional bits).
const WEIGHT_SCALE_BITS: u32 = 6;
/// YaneuraOu's largest evaluation, `VALUE_MAX_EVAL` (mate scores start above it).
pub const MAX_EVAL: i32 = 32000 - 246 - 1;
/// The widest feature transformer supported (one perspective's half).
const MAX_HALF: usize = 1024;

/// The shape of a net: its input features, the feature transformer's width per perspective
/// and the two hidden layers' widths (`halfKP_<half>x2-<l1>-<l2>`, `KP_<half>x2-<l1>-<l2>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    pub features: features::FeatureSet,
    pub half: usize,
    pub l1: usize,
    pub l2: usize,
}

/// A loaded net.
#[derive(Clone, Debug)]
pub struct Network {
    pub arch: Arch,
    /// The architecture text from the file's header (what YaneuraOu printed when saving it).
    pub description: String,
    ft_bias: Vec<i16>,
    /// `features × half`, feature-major.
    ft_weight: Vec<i16>,
    l1_bias: Vec<i32>,
    /// `l1 × padded(2 half)`, output-major, as in the file.
    l1_weight: Vec<i8>,
    /// The same weights input-major (`2 half × l1`, no padding): the first layer's input is
    /// mostly zeros (clipped sums), so it is computed input by input, skipping the zeros, each
    /// input adding its `l1` weights at once (see [`affine_sparse_relu`]).
    l1_by_input: Vec<i8>,
    l2_bias: Vec<i32>,
    /// `l2 × padded(l1)`.
    l2_weight: Vec<i8>,
    out_bias: i32,
    /// `padded(l2)`.
    out_weight: Vec<i8>,
}

/// Nets built into the binary, by the name `EvalFile` gives them (`builtin:n1`), each an
/// xz-compressed net file (see `nets/README.md`): a consultation can mix a net with the linear
/// members with no file beside the binary.
const BUILTIN_NETS: [(&str, &[u8]); 1] = [("n1", include_bytes!("nets/n1.bin.xz"))];

/// Every `EvalFile` value that names a built-in net.
pub fn builtin_net_names() -> Vec<String> {
    BUILTIN_NETS
        .iter()
        .map(|(n, _)| format!("{}{n}", crate::search::eval::BUILTIN_PREFIX))
        .collect()
}

/// Whether `name` is one of [`builtin_net_names`].
pub fn is_builtin_net(name: &str) -> bool {
    builtin_bytes(name).is_some()
}

fn builtin_bytes(name: &str) -> Option<&'static [u8]> {
    let short = name.strip_prefix(crate::search::eval::BUILTIN_PREFIX)?;
    BUILTIN_NETS
        .iter()
        .find(|(n, _)| *n == short)
        .map(|(_, bytes)| *bytes)
}

impl Network {
    /// The net `EvalFile` names: a built-in one ([`builtin_net_names`]) or a file.
    pub fn named(name: &str) -> Result<Network, String> {
        let Some(packed) = builtin_bytes(name) else {
            return Network::load(std::path::Path::new(name));
        };
        let mut bytes = Vec::new();
        lzma_rs::xz_decompress(&mut std::io::Cursor::new(packed), &mut bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{name}: {e}"))
    }

    /// Reads a net from a file's bytes, refusing other architectures and damaged files.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NnueError> {
        file::parse(bytes)
    }

    /// The bytes of the file this net is read from (YaneuraOu loads them too).
    pub fn to_bytes(&self) -> Vec<u8> {
        file::to_bytes(self)
    }

    /// Reads a net file.
    pub fn load(path: &std::path::Path) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A net with random weights from `seed`, wide enough that evaluations spread over
    /// thousands (a net of −1, 0 and 1 evaluates to 0 nearly everywhere and tests nothing):
    /// transformer sums land on both sides of the clipping bounds, each hidden layer's
    /// outputs spread over 0..=127. The padding columns are zero, as a trained net's.
    pub fn random(arch: Arch, seed: u64) -> Network {
        let mut rng = SplitMix64::new(seed);
        let mut uniform =
            |lo: i32, hi: i32| -> i32 { lo + (rng.next_u64() % (hi - lo + 1) as u64) as i32 };
        let ft_bias = (0..arch.half).map(|_| uniform(-16, 80) as i16).collect();
        let ft_weight = (0..arch.features.dimensions() * arch.half)
            .map(|_| uniform(-24, 24) as i16)
            .collect();
        let mut layer = |outputs: usize, inputs: usize, w: i32, b: i32| {
            let bias: Vec<i32> = (0..outputs).map(|_| uniform(-b, b)).collect();
            let stride = file::padded(inputs);
            let weight: Vec<i8> = (0..outputs * stride)
                .map(|i| {
                    if i % stride < inputs {
                        uniform(-w, w) as i8
                    } else {
                        0
                    }
                })
                .collect();
            (bias, weight)
        };
        let (l1_bias, l1_weight) = layer(arch.l1, 2 * arch.half, 8, 4000);
        let (l2_bias, l2_weight) = layer(arch.l2, arch.l1, 32, 2000);
        let (out_bias, out_weight) = layer(1, arch.l2, 127, 2000);
        Network {
            arch,
            description: arch.description(),
            ft_bias,
            ft_weight,
            l1_by_input: by_input(&l1_weight, arch),
            l1_bias,
            l1_weight,
            l2_bias,
            l2_weight,
            out_bias: out_bias[0],
            out_weight,
        }
    }

    /// Shares the net between threads and engines (its weights are tens of megabytes).
    pub fn shared(self) -> Arc<Network> {
        Arc::new(self)
    }

    /// The side to move's evaluation of `pos`, as YaneuraOu's `Eval::evaluate` returns it,
    /// from scratch: the transformer's sums of both perspectives (biases plus the weight
    /// columns of the active features, see [`accumulator`]), each clipped to 0..=127, the side
    /// to move's half first, then the layers. Both kings must be on the board.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluate_with(Kernel::best(), pos)
    }

    /// [`Network::evaluate`] with a chosen kernel (the tests compare them).
    pub fn evaluate_with(&self, k: Kernel, pos: &Position) -> i32 {
        self.evaluate_accumulated_with(k, &self.accumulate_with(k, pos), pos.side_to_move())
    }

    /// The evaluation from the transformer's sums, the side to move's first: each sum clipped
    /// to 0..=127 is one byte of the first layer's input, then the layers.
    #[inline(always)]
    pub(super) fn output_inline(&self, stm: &[i16], other: &[i16]) -> i32 {
        let half = self.arch.half;
        let mut input = [0u8; 2 * MAX_HALF];
        let (a, b) = input[..2 * half].split_at_mut(half);
        // Two loops, not one chained: the compiler vectorises each, not the chain.
        for (o, s) in a.iter_mut().zip(stm) {
            *o = (*s).clamp(0, 127) as u8;
        }
        for (o, s) in b.iter_mut().zip(other) {
            *o = (*s).clamp(0, 127) as u8;
        }
        self.propagate(&input[..2 * half])
    }

    /// The layers after the transformer, from its `2 × half` output bytes to the score.
    #[inline(always)]
    fn propagate(&self, input: &[u8]) -> i32 {
        let a = self.arch;
        let mut h1 = [0u8; 64];
        let mut h2 = [0u8; 64];
        affine_sparse_relu(input, &self.l1_bias, &self.l1_by_input, &mut h1[..a.l1]);
        affine_relu(&h1[..a.l1], &self.l2_bias, &self.l2_weight, &mut h2[..a.l2]);
        let sum = dot(self.out_bias, &self.out_weight, &h2[..a.l2]);
        (sum / FV_SCALE).clamp(-MAX_EVAL, MAX_EVAL)
    }
}

/// `bias + Σ weight·input` in wrapping 32-bit arithmetic (the format's SIMD adds wrap too;
/// a sane net never comes near).
#[inline(always)]
fn dot(bias: i32, row: &[i8], input: &[u8]) -> i32 {
    row.iter().zip(input).fold(bias, |s, (&w, &x)| {
        s.wrapping_add(i32::from(w) * i32::from(x))
    })
}

/// The first layer's weights input-major: `out[j × l1 + i]` = the file's `w[i × stride + j]`.
fn by_input(weight: &[i8], arch: Arch) -> Vec<i8> {
    let (inputs, stride) = (2 * arch.half, file::padded(2 * arch.half));
    let mut out = vec![0i8; inputs * arch.l1];
    for i in 0..arch.l1 {
        for j in 0..inputs {
            out[j * arch.l1 + i] = weight[i * stride + j];
        }
    }
    out
}

/// [`affine_relu`] over input-major weights, skipping zero inputs: the same sums (integer
/// addition wraps the same in any order), with the work spent on the inputs that count.
#[inline(always)]
fn affine_sparse_relu(input: &[u8], bias: &[i32], by_input: &[i8], out: &mut [u8]) {
    let n = bias.len();
    let mut sums = [0i32; 64];
    let sums = &mut sums[..n];
    sums.copy_from_slice(bias);
    for (j, &x) in input.iter().enumerate() {
        if x == 0 {
            continue;
        }
        let x = i32::from(x);
        for (s, &w) in sums.iter_mut().zip(&by_input[j * n..(j + 1) * n]) {
            *s = s.wrapping_add(i32::from(w) * x);
        }
    }
    for (o, s) in out.iter_mut().zip(sums.iter()) {
        *o = (*s >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// An affine layer followed by the clipped ReLU: each output is its row's [`dot`] shifted
/// right by the weights' 6 fractional bits and clipped to 0..=127. Rows are as long as the
/// input rounded up to 32; the padding columns meet zero inputs and are skipped.
#[inline(always)]
fn affine_relu(input: &[u8], bias: &[i32], weight: &[i8], out: &mut [u8]) {
    let stride = file::padded(input.len());
    for (i, o) in out.iter_mut().enumerate() {
        let s = dot(
            bias[i],
            &weight[i * stride..i * stride + input.len()],
            input,
        );
        *o = (s >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// The public nets' architecture.
pub const HALFKP_256: Arch = file::SUPPORTED[0];
/// K+P at 256 (`kp_256x2-32-32`): nets under a megabyte.
pub const KP_256: Arch = file::SUPPORTED[4];

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

    #[test]
    fn clipped_relu_shifts_then_clips() {
        let mut out = [0u8; 3];
        // One input of 1: each output is its bias plus its weight, >> 6, clipped.
        let mut w = vec![0i8; 3 * 32];
        w[0] = 64;
        w[32] = -128;
        w[64] = 127;
        affine_relu(&[1], &[0, 0, 64 * 200], &w, &mut out);
        assert_eq!(out, [1, 0, 127]);
    }
}
