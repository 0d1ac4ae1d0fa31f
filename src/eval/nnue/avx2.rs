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

/// An affine layer and the clipped ReLU: `input` is as long as the rows (padded to 32, the
/// padding zero).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn affine_relu(input: &[u8], bias: &[i32], weight: &[i8], out: &mut [u8]) {
    let stride = input.len();
    for (i, o) in out.iter_mut().enumerate() {
        let s = dot32(bias[i], &weight[i * stride..(i + 1) * stride], input);
        *o = (s >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
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
            &self.l1_weight,
            &mut h1[..a.l1],
        );
        let (p1, p2) = (padded(a.l1), padded(a.l2));
        affine_relu(&h1[..p1], &self.l2_bias, &self.l2_weight, &mut h2[..a.l2]);
        let sum = dot32(self.out_bias, &self.out_weight, &h2[..p2]);
        (sum / FV_SCALE).clamp(-MAX_EVAL, MAX_EVAL)
    }
}
