//! Proof and disproof numbers, mate-length bounds, and the arithmetic on them.
//!
//! Why `u64` with a saturating infinity: in long problems (hundreds of plies) the summed side of
//! a node (disproof number at an OR node, proof number at an AND node) can exceed `u32`. Every
//! addition saturates at [`PN_INFINITE`], so "infinite" stays infinite and nothing overflows.
//!
//! Mate lengths are counted in plies (`u16`). A node's knowledge about its shortest mate under
//! plain minimax is an interval `[lower, upper]`: no mate shorter than `lower` exists, and a mate
//! of length `upper` has been proven. [`LEN_INFINITE`] as `upper` means "no mate known"; as
//! `lower` it means "no mate at all" (a disproof).
//!
//! References: Nagai, *Df-pn algorithm for searching AND/OR trees and its applications* (2002);
//! Kishimoto & Müller, *df-pn+* initial estimates.

/// A proof or disproof number.
pub type PnDn = u64;

/// The "infinite" proof or disproof number; also the threshold used at the root.
pub const PN_INFINITE: PnDn = u64::MAX / 2 - 1;

/// A mate length in plies.
pub type Len = u16;

/// "No mate known" as an upper bound; "no mate at all" as a lower bound.
pub const LEN_INFINITE: Len = Len::MAX;

/// The largest finite search bound: searching with this bound means "any mate".
pub const LEN_UNBOUNDED: Len = Len::MAX - 1;

/// Saturating sum of proof numbers.
#[inline]
pub fn pn_add(a: PnDn, b: PnDn) -> PnDn {
    a.saturating_add(b).min(PN_INFINITE)
}

/// One ply longer, saturating at [`LEN_INFINITE`].
#[inline]
pub fn len_plus_one(len: Len) -> Len {
    if len >= LEN_UNBOUNDED {
        LEN_INFINITE
    } else {
        len + 1
    }
}

/// The state of a node as the search sees it under the current length bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Neither proven nor disproven yet.
    Unknown,
    /// A mate within the bound is proven.
    Proven,
    /// No mate within the bound exists (possibly because of a repetition on the current path).
    Disproven,
}

/// The proof number `φ` of a node seen from its own side: the pn at an OR node, the dn at an
/// AND node. Writing OR and AND once (as in Nagai's thesis) keeps the two halves symmetric.
#[inline]
pub fn phi(or_node: bool, pn: PnDn, dn: PnDn) -> PnDn {
    if or_node {
        pn
    } else {
        dn
    }
}

/// The other number `δ`: the dn at an OR node, the pn at an AND node.
#[inline]
pub fn delta(or_node: bool, pn: PnDn, dn: PnDn) -> PnDn {
    if or_node {
        dn
    } else {
        pn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additions_saturate() {
        assert_eq!(pn_add(PN_INFINITE, 1), PN_INFINITE);
        assert_eq!(pn_add(PN_INFINITE - 1, 5), PN_INFINITE);
        assert_eq!(pn_add(2, 3), 5);
        assert_eq!(len_plus_one(3), 4);
        assert_eq!(len_plus_one(LEN_UNBOUNDED), LEN_INFINITE);
        assert_eq!(len_plus_one(LEN_INFINITE), LEN_INFINITE);
    }

    #[test]
    fn phi_delta_swap_with_the_node_kind() {
        assert_eq!(phi(true, 1, 2), 1);
        assert_eq!(delta(true, 1, 2), 2);
        assert_eq!(phi(false, 1, 2), 2);
        assert_eq!(delta(false, 1, 2), 1);
    }
}
