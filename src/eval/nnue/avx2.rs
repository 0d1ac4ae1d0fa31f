//! The layers after the transformer with AVX2's byte multiply-adds, as the format was designed
//! for: `vpmaddubsw` multiplies 32 input bytes (0..=127) by 32 weights (−128..=127) and adds
//! neighbouring products into 16-bit lanes — at most 2 × 127 × 128 = 32,512 in size, so the
//! instruction's saturation never happens — and `vpmaddwd` by 1 widens pairs of those into
//! 32-bit lanes. Every step is exact, and the 32-bit adds wrap as the portable loop's do, so
//! the sums are the portable loop's bit for bit (the tests compare the kernels).
//!
//! Every function here is `unsafe` for one reason: it may run only where the processor has
//! AVX2, which [`super::kernel::Kernel`] proves before choosing this path (an AVX2 kernel
//! carries the processor check's token).
//!
//! The compiler does not find these instructions from the portable loop (it widens to 32 bits
//! first, four times the work), which is why this part alone is written with intrinsics.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use super::arch::padded;
use super::network::{Network, FV_SCALE, MAX_EVAL, MAX_HALF, WEIGHT_SCALE_BITS};

/// The sum of a 32-bit vector's eight lanes (wrapping).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hsum(v: __m256i) -> i32 {
    let x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let x = _mm_add_epi32(x, _mm_shuffle_epi32::<0b01_00_11_10>(x));
    let x = _mm_add_epi32(x, _mm_shuffle_epi32::<0b10_11_00_01>(x));
    _mm_cvtsi128_si32(x)
}

/// `bias + Σ weight·input` over one row: `input` and `row` are as long, a multiple of 32.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dot32(bias: i32, row: &[i8], input: &[u8]) -> i32 {
    debug_assert!(row.len() == input.len() && input.len() % 32 == 0);
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    for (w, x) in row.chunks_exact(32).zip(input.chunks_exact(32)) {
        // Both chunks are 32 bytes long; unaligned loads.
        let (w, x) = (
            _mm256_loadu_si256(w.as_ptr().cast()),
            _mm256_loadu_si256(x.as_ptr().cast()),
        );
        let pairs = _mm256_maddubs_epi16(x, w);
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
    }
    bias.wrapping_add(hsum(acc))
}

/// An affine layer and the clipped ReLU over weights laid out four inputs at a time
/// ([`super::network`]'s `by_chunk`): `input` is a multiple of 32 bytes long (the padding
/// zero), `bias` has `8 × R` outputs. Each non-zero 4-byte piece of the input, broadcast, meets
/// the eight-output weight blocks of its chunk; pieces of zeros are found 32 bytes at a time
/// and skipped, which is most of the first layer's input after the clipping.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn affine_relu_chunks<const R: usize>(
    input: &[u8],
    bias: &[i32],
    by_chunk: &[i8],
    group: usize,
    out: &mut [u8],
) {
    debug_assert!(input.len() % 32 == 0 && bias.len() == 8 * R);
    assert!(by_chunk.len() >= input.len() * 8 * R);
    // The chunks worth multiplying, found eight at a time.
    let mut live = [0u16; 2 * MAX_HALF / 4];
    let mut n = 0;
    let zero = _mm256_setzero_si256();
    for (b, block) in input.chunks_exact(32).enumerate() {
        let v = _mm256_loadu_si256(block.as_ptr().cast());
        let zeros = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)));
        let mut mask = !(zeros as u32) & 0xff;
        while mask != 0 {
            live[n] = (8 * b) as u16 + mask.trailing_zeros() as u16;
            n += 1;
            mask &= mask - 1;
        }
    }
    let ones = _mm256_set1_epi16(1);
    let mut acc = [zero; R];
    // 16-bit sums of up to `group` pieces' byte products, widened to 32 bits together.
    for pieces in live[..n].chunks(group) {
        let mut part = [zero; R];
        for &c in pieces {
            let c = usize::from(c);
            // SAFETY (reads): `c` < input.len() / 4, so the piece's 4 bytes are inside
            // `input`, and its weight block (32 R bytes at 32 R c) inside `by_chunk`, which the
            // assertion above sizes at input.len() × 8 R.
            let piece = input.as_ptr().add(4 * c).cast::<i32>().read_unaligned();
            let x = _mm256_set1_epi32(piece);
            let block = by_chunk.as_ptr().add(c * 32 * R);
            for (r, p) in part.iter_mut().enumerate() {
                let w = _mm256_loadu_si256(block.add(32 * r).cast());
                // Bytes 0..=127 times weights: each 16-bit pair exact, and `group` of them too.
                *p = _mm256_add_epi16(*p, _mm256_maddubs_epi16(x, w));
            }
        }
        for (a, p) in acc.iter_mut().zip(part) {
            *a = _mm256_add_epi32(*a, _mm256_madd_epi16(p, ones));
        }
    }
    let mut sums = [0i32; 64];
    for (r, a) in acc.iter().enumerate() {
        _mm256_storeu_si256(sums.as_mut_ptr().add(8 * r).cast(), *a);
    }
    for ((o, s), b) in out.iter_mut().zip(&sums[..8 * R]).zip(bias) {
        *o = (s.wrapping_add(*b) >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// [`affine_relu_chunks`] for any of the supported widths (8, 16, 32 or 64 outputs).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn affine_relu(input: &[u8], bias: &[i32], by_chunk: &[i8], group: usize, out: &mut [u8]) {
    match bias.len() {
        8 => affine_relu_chunks::<1>(input, bias, by_chunk, group, out),
        16 => affine_relu_chunks::<2>(input, bias, by_chunk, group, out),
        32 => affine_relu_chunks::<4>(input, bias, by_chunk, group, out),
        64 => affine_relu_chunks::<8>(input, bias, by_chunk, group, out),
        n => unreachable!("a hidden layer of {n} outputs is not a supported shape"),
    }
}

/// Clips 16-bit sums to 0..=127 into bytes, 32 at a time (`len` a multiple of 32).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn clip(sums: &[i16], out: &mut [u8]) {
    debug_assert!(sums.len() % 32 == 0 && out.len() == sums.len());
    let top = _mm256_set1_epi8(127);
    for (s, o) in sums.chunks_exact(32).zip(out.chunks_exact_mut(32)) {
        // 32 sums are 64 bytes, read as two unaligned vectors; 32 bytes written.
        let a = _mm256_loadu_si256(s.as_ptr().cast());
        let b = _mm256_loadu_si256(s.as_ptr().add(16).cast());
        // Packing saturates to 0..=255 and interleaves the 128-bit halves; the permute puts
        // the lanes back in order, the minimum caps them at 127.
        let packed = _mm256_packus_epi16(a, b);
        let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
        let clipped = _mm256_min_epu8(ordered, top);
        _mm256_storeu_si256(o.as_mut_ptr().cast(), clipped);
    }
}

impl Network {
    /// [`Network::output_inline`] with the layers above (the same values).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output_avx2(&self, stm: &[i16], other: &[i16]) -> i32 {
        let a = self.arch;
        let half = a.half;
        let mut input = [0u8; 2 * MAX_HALF];
        clip(stm, &mut input[..half]);
        clip(other, &mut input[half..2 * half]);
        // Hidden outputs padded with zeros to the next layer's row length.
        let mut h1 = [0u8; 64];
        let mut h2 = [0u8; 64];
        affine_relu(
            &input[..2 * half],
            &self.l1_bias,
            &self.l1_by_chunk,
            self.l1_group,
            &mut h1[..a.l1],
        );
        let (p1, p2) = (padded(a.l1), padded(a.l2));
        affine_relu(
            &h1[..p1],
            &self.l2_bias,
            &self.l2_by_chunk,
            self.l2_group,
            &mut h2[..a.l2],
        );
        let sum = dot32(self.out_bias, &self.out_weight, &h2[..p2]);
        (sum / FV_SCALE).clamp(-MAX_EVAL, MAX_EVAL)
    }
}

#[cfg(test)]
mod tests {
    use crate::book::SplitMix64;
    use crate::eval::nnue::kernel::Kernel;
    use crate::eval::nnue::{Layers, Network, KP_256};
    use crate::shogi::Position;

    /// A net whose first-layer weights reach ±127 (so products are widened piece by piece)
    /// and one whose weights are small (a dozen pieces summed in 16 bits first): the AVX2
    /// layers equal the portable loop on both.
    #[test]
    fn wide_and_narrow_weights_evaluate_alike_on_both_kernels() {
        let Some(avx2) = Kernel::available().into_iter().nth(1) else {
            println!("no AVX2 here: nothing to compare");
            return;
        };
        for (l1_max, groups) in [(127, 1), (6, 16)] {
            let arch = KP_256;
            let mut rng = SplitMix64::new(l1_max as u64);
            let mut uniform =
                |lo: i32, hi: i32| lo + (rng.next_u64() % (hi - lo + 1) as u64) as i32;
            let stride = 2 * arch.half;
            let layers = Layers {
                ft_bias: (0..arch.half).map(|_| uniform(-16, 80) as i16).collect(),
                ft_weight: (0..arch.features.dimensions() * arch.half)
                    .map(|_| uniform(-24, 24) as i16)
                    .collect(),
                l1_bias: (0..arch.l1).map(|_| uniform(-4000, 4000)).collect(),
                l1_weight: (0..arch.l1 * stride)
                    .map(|_| uniform(-l1_max - 1, l1_max) as i8)
                    .collect(),
                l2_bias: (0..arch.l2).map(|_| uniform(-2000, 2000)).collect(),
                l2_weight: (0..arch.l2 * 32)
                    .map(|_| uniform(-128, 127) as i8)
                    .collect(),
                out_bias: 100,
                out_weight: (0..32).map(|_| uniform(-127, 127) as i8).collect(),
            };
            let net = Network::from_layers(arch, arch.description(), layers);
            assert_eq!(net.l1_group, groups);
            let mut pos = Position::startpos();
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..60 {
                let portable = net.evaluate_with(Kernel::Portable, &pos);
                assert_eq!(net.evaluate_with(avx2, &pos), portable, "{}", pos.to_sfen());
                seen.insert(portable);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.do_move(moves[(i * 7) % moves.len()]);
            }
            // Values that spread, not a net clipped flat everywhere.
            assert!(seen.len() > 20, "{l1_max}: {seen:?}");
        }
    }
}
