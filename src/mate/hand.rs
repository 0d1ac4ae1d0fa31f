//! The attacker's hand as the mate solver's transposition table sees it.
//!
//! Why a private type instead of the core's `Hand`: the table's dominance (優越関係) lookups
//! need three cheap operations — "is this hand ≥ that one" for every kind at once, the
//! per-kind maximum (union of proof pieces) and single-kind adjustments — and their
//! cost should not depend on the core's layout. The solver converts once per node.
//!
//! Layout (bit 0 = least significant), one field per kind with a guard bit above it, so that
//! `a ≥ b` for every kind is a single subtraction and mask (a borrow sets a guard bit):
//!
//! ```text
//!  27 26 25 | 24 23 22 | 21 20 19 18 | 17 16 15 14 | 13 12 11 10 | 9 8 7 6 | 5 4 3 2 1 0
//!   g  rook |  g bish. |  g  gold    |  g silver   |  g knight   | g lance | g  pawn
//! ```

use std::fmt;

/// A kind that can be held in hand (持ち駒).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HandKind {
    Pawn,
    Lance,
    Knight,
    Silver,
    Gold,
    Bishop,
    Rook,
}

impl HandKind {
    /// Every hand kind, in the USI SFEN order reversed (pawn first).
    pub const ALL: [HandKind; 7] = [
        HandKind::Pawn,
        HandKind::Lance,
        HandKind::Knight,
        HandKind::Silver,
        HandKind::Gold,
        HandKind::Bishop,
        HandKind::Rook,
    ];

    const SHIFT: [u32; 7] = [0, 6, 10, 14, 18, 22, 25];
    const MASK: [u32; 7] = [0x1f, 0x7, 0x7, 0x7, 0x7, 0x3, 0x3];

    #[inline]
    fn shift(self) -> u32 {
        Self::SHIFT[self as usize]
    }

    #[inline]
    fn mask(self) -> u32 {
        Self::MASK[self as usize]
    }
}

/// Guard bits: one above every field.
const GUARDS: u32 = (1 << 5) | (1 << 9) | (1 << 13) | (1 << 17) | (1 << 21) | (1 << 24) | (1 << 27);

/// A multiset of hand pieces, packed into a `u32` (see the module doc for the layout).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MateHand(u32);

impl MateHand {
    /// The empty hand.
    pub const EMPTY: MateHand = MateHand(0);

    /// The raw packed value (stored in the table).
    #[inline]
    pub fn raw(self) -> u32 {
        self.0
    }

    /// Rebuild from [`raw`](Self::raw).
    #[inline]
    pub fn from_raw(raw: u32) -> MateHand {
        MateHand(raw)
    }

    /// How many pieces of `kind`.
    #[inline]
    pub fn count(self, kind: HandKind) -> u32 {
        (self.0 >> kind.shift()) & kind.mask()
    }

    /// Set the count of `kind` (clamped to the field's capacity).
    #[inline]
    pub fn set(&mut self, kind: HandKind, n: u32) {
        let n = n.min(kind.mask());
        self.0 = (self.0 & !(kind.mask() << kind.shift())) | (n << kind.shift());
    }

    /// One more piece of `kind` (saturating at the field's capacity).
    #[inline]
    pub fn add(&mut self, kind: HandKind) {
        let n = self.count(kind);
        self.set(kind, n + 1);
    }

    /// One fewer piece of `kind`, or nothing if there is none.
    #[inline]
    pub fn remove_if_any(&mut self, kind: HandKind) {
        let n = self.count(kind);
        if n > 0 {
            self.set(kind, n - 1);
        }
    }

    /// `self ≥ other` for every kind (`self` dominates `other`).
    #[inline]
    pub fn is_superior_or_equal(self, other: MateHand) -> bool {
        self.0.wrapping_sub(other.0) & GUARDS == 0
    }

    /// The per-kind maximum of the two hands.
    pub fn union(self, other: MateHand) -> MateHand {
        let mut out = MateHand::EMPTY;
        for kind in HandKind::ALL {
            out.set(kind, self.count(kind).max(other.count(kind)));
        }
        out
    }

    /// Total number of pieces.
    pub fn total(self) -> u32 {
        HandKind::ALL.iter().map(|&k| self.count(k)).sum()
    }
}

impl fmt::Debug for MateHand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [char; 7] = ['P', 'L', 'N', 'S', 'G', 'B', 'R'];
        write!(f, "Hand(")?;
        for (i, kind) in HandKind::ALL.iter().enumerate().rev() {
            let n = self.count(*kind);
            if n > 0 {
                write!(f, "{}{}", n, NAMES[i])?;
            }
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(counts: [u32; 7]) -> MateHand {
        let mut h = MateHand::EMPTY;
        for (kind, n) in HandKind::ALL.iter().zip(counts) {
            h.set(*kind, n);
        }
        h
    }

    #[test]
    fn counts_round_trip_at_full_capacity() {
        let h = hand([18, 4, 4, 4, 4, 2, 2]);
        assert_eq!(HandKind::ALL.map(|k| h.count(k)), [18, 4, 4, 4, 4, 2, 2]);
        assert_eq!(h.total(), 38);
    }

    #[test]
    fn superiority_is_per_kind() {
        let a = hand([2, 0, 1, 0, 0, 1, 0]);
        let b = hand([1, 0, 1, 0, 0, 0, 0]);
        assert!(a.is_superior_or_equal(b));
        assert!(!b.is_superior_or_equal(a));
        assert!(a.is_superior_or_equal(a));
        // More pawns but fewer rooks: neither dominates.
        let c = hand([18, 0, 0, 0, 0, 0, 0]);
        let d = hand([0, 0, 0, 0, 0, 0, 1]);
        assert!(!c.is_superior_or_equal(d));
        assert!(!d.is_superior_or_equal(c));
        assert!(c.is_superior_or_equal(MateHand::EMPTY));
    }

    #[test]
    fn union_add_remove() {
        let a = hand([2, 0, 1, 0, 0, 1, 0]);
        let b = hand([1, 3, 0, 0, 0, 2, 0]);
        assert_eq!(a.union(b), hand([2, 3, 1, 0, 0, 2, 0]));
        let mut c = a;
        c.add(HandKind::Gold);
        c.remove_if_any(HandKind::Pawn);
        c.remove_if_any(HandKind::Rook);
        assert_eq!(c, hand([1, 0, 1, 0, 1, 1, 0]));
    }
}
