//! `EvalNoise`: a position's noise, the same for the linear tables and the nets, and the mixer
//! `EvalDropout` draws with.

/// The evaluation noise of a position: approximately normal with standard deviation `sd` cp,
/// a pure function of (`key`, `seed`) — never a fresh draw — so the transposition table,
/// repetitions and re-searches see one value per position (Monju's and Bonanza Feliz's
/// diversified members, one seed each). Cheap: one 64-bit mix of `key ^ seed`, cut into four
/// 16-bit uniforms whose centred sum (variance 4/12) is scaled by √3 to unit variance
/// (Irwin–Hall; the tails stop at ±3.46 sd).
#[inline]
pub fn noise_cp(key: u64, seed: u64, sd: i32) -> i32 {
    let z = mix64(key ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let sum: i64 = (0..4).map(|i| ((z >> (16 * i)) & 0xFFFF) as i64).sum();
    // (sum − mean) / (65536 / √3) in units of sd; 56,756 / 32,768 ≈ √3.
    let centred = sum - 2 * 65_535;
    (centred * sd as i64 * 56_756 / 32_768 / 65_536) as i32
}

/// SplitMix64's finaliser: every input bit reaches every output bit.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
