//! A loaded net ([`Network`]) and the layers after the feature transformer, in the format's
//! integers (see [`super`] for the arithmetic); the same `#[inline(always)]` source is compiled
//! into each kernel ([`super::kernel`]).

use std::sync::Arc;

use crate::book::SplitMix64;

use super::arch::{padded, Arch};

/// YaneuraOu's default divisor of the output layer's sum (its `FV_SCALE` option).
pub const FV_SCALE: i32 = 16;
/// The right shift of a hidden layer's sum (its weights carry 6 fractional bits).
pub const WEIGHT_SCALE_BITS: u32 = 6;
/// YaneuraOu's largest evaluation, `VALUE_MAX_EVAL` (mate scores start above it).
pub const MAX_EVAL: i32 = 32000 - 246 - 1;
/// The widest feature transformer supported (one perspective's half).
pub(super) const MAX_HALF: usize = 1024;

/// A loaded net.
#[derive(Clone, Debug)]
pub struct Network {
    pub arch: Arch,
    /// The architecture text from the file's header (what YaneuraOu printed when saving it).
    pub description: String,
    pub(super) ft_bias: Vec<i16>,
    /// `features × half`, feature-major.
    pub(super) ft_weight: Vec<i16>,
    pub(super) l1_bias: Vec<i32>,
    /// `l1 × padded(2 half)`, output-major, as in the file.
    pub(super) l1_weight: Vec<i8>,
    /// The same weights input-major (`2 half × l1`, no padding): the first layer's input is
    /// mostly zeros (clipped sums), so it is computed input by input, skipping the zeros, each
    /// input adding its `l1` weights at once (see [`affine_sparse_relu`]).
    pub(super) l1_by_input: Vec<i8>,
    pub(super) l2_bias: Vec<i32>,
    /// `l2 × padded(l1)`.
    pub(super) l2_weight: Vec<i8>,
    /// The two hidden layers' weights four inputs at a time ([`by_chunk`]), for the AVX2
    /// kernel.
    pub(super) l1_by_chunk: Vec<i8>,
    pub(super) l2_by_chunk: Vec<i8>,
    /// How many input pieces' byte products each layer can sum in 16 bits before widening
    /// ([`exact_group`]).
    pub(super) l1_group: usize,
    pub(super) l2_group: usize,
    pub(super) out_bias: i32,
    /// `padded(l2)`.
    pub(super) out_weight: Vec<i8>,
}

/// A net's weights as its file holds them, for whoever makes a net (the file reader, the
/// random test nets, the trainer's quantization): [`Network::from_layers`] adds what the
/// evaluation derives from them.
pub struct Layers {
    pub ft_bias: Vec<i16>,
    /// `features × half`, feature-major.
    pub ft_weight: Vec<i16>,
    pub l1_bias: Vec<i32>,
    /// `l1 × padded(2 half)`, output-major.
    pub l1_weight: Vec<i8>,
    pub l2_bias: Vec<i32>,
    /// `l2 × padded(l1)`.
    pub l2_weight: Vec<i8>,
    pub out_bias: i32,
    /// `padded(l2)`.
    pub out_weight: Vec<i8>,
}

impl Network {
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
            let stride = padded(inputs);
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
        Network::from_layers(
            arch,
            arch.description(),
            Layers {
                ft_bias,
                ft_weight,
                l1_bias,
                l1_weight,
                l2_bias,
                l2_weight,
                out_bias: out_bias[0],
                out_weight,
            },
        )
    }

    /// The net of `arch` with these weights; `description` is its file's header text.
    pub fn from_layers(arch: Arch, description: String, l: Layers) -> Network {
        Network {
            arch,
            description,
            l1_by_input: by_input(&l.l1_weight, arch),
            l1_by_chunk: by_chunk(&l.l1_weight, arch.l1, padded(2 * arch.half)),
            l2_by_chunk: by_chunk(&l.l2_weight, arch.l2, padded(arch.l1)),
            l1_group: exact_group(&l.l1_weight),
            l2_group: exact_group(&l.l2_weight),
            ft_bias: l.ft_bias,
            ft_weight: l.ft_weight,
            l1_bias: l.l1_bias,
            l1_weight: l.l1_weight,
            l2_bias: l.l2_bias,
            l2_weight: l.l2_weight,
            out_bias: l.out_bias,
            out_weight: l.out_weight,
        }
    }

    /// Shares the net between threads and engines (its weights are tens of megabytes).
    pub fn shared(self) -> Arc<Network> {
        Arc::new(self)
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
    let (inputs, stride) = (2 * arch.half, padded(2 * arch.half));
    let mut out = vec![0i8; inputs * arch.l1];
    for i in 0..arch.l1 {
        for j in 0..inputs {
            out[j * arch.l1 + i] = weight[i * stride + j];
        }
    }
    out
}

/// A layer's weights (`outputs` rows of `stride` bytes, as in the file) four inputs at a
/// time: chunk `c` holds, output after output, that output's weights of inputs `4c..4c + 4`
/// (`out[(c × outputs + o) × 4 + k]` = `w[o × stride + 4c + k]`). One 32-byte load is then
/// the weights of eight outputs for one 4-byte piece of the input, which the AVX2 kernel
/// multiplies by that piece broadcast, so the outputs' sums build up side by side with no
/// horizontal adds, and a piece that is all zeros (most are, after the clipping) is skipped.
fn by_chunk(weight: &[i8], outputs: usize, stride: usize) -> Vec<i8> {
    let mut out = vec![0i8; outputs * stride];
    for o in 0..outputs {
        for j in 0..stride {
            let (c, k) = (j / 4, j % 4);
            out[(c * outputs + o) * 4 + k] = weight[o * stride + j];
        }
    }
    out
}

/// How many 4-byte input pieces' products a 16-bit lane can sum exactly for these weights.
/// One `vpmaddubsw` lane is two products of an input byte (0..=127) and a weight, at most
/// 2 × 127 × max|w| in size; `k` of them stay within 16 bits while 2k × 127 × max|w| ≤ 32,767.
/// Nets trained with small first-layer weights (gougi's `n1`: 6 at most) can sum a dozen pieces
/// before the widening multiply-add, which then runs once where it ran a dozen times; a net
/// with weights up to ±128 gets 1, the plain path. Capped at 16, where the gain flattens.
fn exact_group(weight: &[i8]) -> usize {
    let max = weight
        .iter()
        .map(|w| i32::from(*w).abs())
        .max()
        .unwrap_or(0);
    if max == 0 {
        return 16;
    }
    (32_767 / (2 * 127 * max)).clamp(1, 16) as usize
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
    let stride = padded(input.len());
    for (i, o) in out.iter_mut().enumerate() {
        let s = dot(
            bias[i],
            &weight[i * stride..i * stride + input.len()],
            input,
        );
        *o = (s >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
