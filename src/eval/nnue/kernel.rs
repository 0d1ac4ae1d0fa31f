//! The net's hot loops, compiled twice: once for the build's baseline (x86-64's SSE2, or
//! whatever the target has) and once with AVX2 enabled, picked at run time.
//!
//! Both copies are the same Rust source (the `#[inline(always)]` bodies in [`super::network`]
//! and [`super::accumulator`]), instantiated inside a function that enables AVX2, so the compiler
//! vectorises them 32 bytes at a time there and 16 bytes at a time in the portable copy. The
//! arithmetic is integer and order-free, so both copies return the same values bit for bit
//! (the tests evaluate with both and compare). Hand-written intrinsics were not needed to make
//! the compiler use the wide registers, and one source keeps the two paths from drifting.
//!
//! The choice is made once per process: AVX2 when the processor has it, unless the
//! environment variable `GOUGI_NNUE_KERNEL=portable` asks for the portable copy (to measure it,
//! or to rule the wide path out when chasing a bug).

use std::sync::OnceLock;

use crate::shogi::{Color, Position};

use super::features::Change;
use super::network::Network;
use super::refresh::Entry;

/// Which copy of the loops runs.
///
/// The AVX2 copy may run only where the processor has AVX2, and the safe functions here run
/// whatever kernel they are given; so an AVX2 kernel carries a [`CpuHasAvx2`], which only the
/// processor check of this module makes. No safe code can name an AVX2 kernel on a processor
/// without it, which is what makes the `unsafe` calls below sound for every `Kernel` value.
///
/// ```
/// use gougi::eval::nnue::Kernel;
/// // The kernels this processor runs: the portable one, and AVX2 if the check found it.
/// assert_eq!(Kernel::available()[0], Kernel::Portable);
/// assert!(Kernel::available().iter().all(|k| *k == Kernel::Portable || matches!(k, Kernel::Avx2(_))));
/// ```
///
/// Making one without the check does not compile:
///
/// ```compile_fail,E0423
/// use gougi::eval::nnue::{CpuHasAvx2, Kernel};
/// let unchecked = Kernel::Avx2(CpuHasAvx2(()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The build's baseline instructions (SSE2 on x86-64): runs everywhere.
    Portable,
    /// 256-bit AVX2 registers, with the proof that the processor has them.
    Avx2(CpuHasAvx2),
}

/// Proof that this processor reported AVX2: made only by this module's check
/// (`is_x86_feature_detected!`); its one field is private, so no other code can make one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuHasAvx2(());

impl Kernel {
    /// The kernel this process uses: AVX2 when available, unless `GOUGI_NNUE_KERNEL=portable`.
    pub fn best() -> Kernel {
        static CHOSEN: OnceLock<Kernel> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let forced = std::env::var("GOUGI_NNUE_KERNEL").ok();
            if forced.as_deref() == Some("portable") {
                return Kernel::Portable;
            }
            Kernel::available()
                .into_iter()
                .last()
                .unwrap_or(Kernel::Portable)
        })
    }

    /// The kernels this processor can run, portable first.
    pub fn available() -> Vec<Kernel> {
        let mut v = vec![Kernel::Portable];
        v.extend(avx2_checked().map(Kernel::Avx2));
        v
    }

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2(_) => "avx2",
        }
    }
}

/// The one maker of [`CpuHasAvx2`]: the processor's own answer.
#[cfg(target_arch = "x86_64")]
fn avx2_checked() -> Option<CpuHasAvx2> {
    std::arch::is_x86_feature_detected!("avx2").then_some(CpuHasAvx2(()))
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_checked() -> Option<CpuHasAvx2> {
    None
}

/// Declares one operation twice (portable and AVX2) and a dispatcher choosing by [`Kernel`].
/// The body is written once, as the dispatcher's inner closure-like block.
macro_rules! two_copies {
    ($(#[$doc:meta])* pub fn $name:ident / $avx:ident ($($arg:ident : $ty:ty),*) $(-> $ret:ty)? $body:block) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(kernel: Kernel, $($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn body($($arg: $ty),*) $(-> $ret)? $body

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn $avx($($arg: $ty),*) $(-> $ret)? {
                body($($arg),*)
            }

            match kernel {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: a `Kernel::Avx2` holds a `CpuHasAvx2`, which only `avx2_checked`
                // makes, when the processor reports AVX2.
                Kernel::Avx2(_) => unsafe { $avx($($arg),*) },
                _ => body($($arg),*),
            }
        }
    };
}

two_copies! {
    /// One perspective's sums after a move that did not move its king: `prev` less the
    /// removed features' columns plus the added ones.
    pub fn apply_change / apply_change_avx2(net: &Network, prev: &[i16], out: &mut [i16], c: &Change) {
        net.apply_change_inline(prev, out, c)
    }
}

two_copies! {
    /// One perspective's sums from scratch.
    pub fn refresh / refresh_avx2(net: &Network, pos: &Position, perspective: Color, out: &mut [i16]) {
        net.refresh_inline(pos, perspective, out)
    }
}

two_copies! {
    /// One perspective's sums from the last ones refreshed with its king on the same square
    /// ([`super::refresh`]).
    pub fn refresh_cached / refresh_cached_avx2(net: &Network, pos: &Position, perspective: Color, entry: Entry<'_>, out: &mut [i16]) {
        net.refresh_cached_inline(pos, perspective, entry, out)
    }
}

/// The evaluation from the side to move's sums and the other side's: the layers' byte
/// multiply-adds written with AVX2 intrinsics ([`super::avx2`]), the rest the portable source.
#[inline]
pub fn output(kernel: Kernel, net: &Network, stm: &[i16], other: &[i16]) -> i32 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Kernel::Avx2` holds a `CpuHasAvx2`, which only `avx2_checked` makes, when
        // the processor reports AVX2.
        Kernel::Avx2(_) => unsafe { net.output_avx2(stm, other) },
        _ => net.output_inline(stm, other),
    }
}
