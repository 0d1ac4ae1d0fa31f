//! Pieces in hand (持ち駒), packed in a `u32` with guard bits.
//!
//! ```text
//! bit  31..28  27  26..25 24  23..22 21  20..18 17  16..14 13  12..10  9   8..6   5   4..0
//!      unused  g   rook   g   bishop g   gold   g   silver g   knight  g   lance  g   pawn
//! ```
//!
//! Each count field is followed by a zero guard bit `g`. Subtracting two hands field by field
//! borrows into a guard bit exactly when some field of the minuend is smaller, so
//! [`Hand::is_superior_or_equal`] is one subtraction and a mask.
//!
//! The one hand type of the crate (issue 18): the mate solver's transposition table keys its
//! dominance (優越関係) lookups on it directly — superiority, the per-kind maximum
//! ([`Hand::union`], proof pieces), clamped and saturating single-kind changes — and stores
//! [`Hand::raw`], so the solver reads a position's hand without converting it.

use std::fmt;

use super::types::PieceKind;

/// Shift and width of each hand kind's field (Pawn..=Rook).
const SHIFT: [u32; 7] = [0, 6, 10, 14, 18, 22, 25];
const WIDTH: [u32; 7] = [5, 3, 3, 3, 3, 2, 2];
/// Number of each hand kind in a set.
const SET: [u32; 7] = [18, 4, 4, 4, 4, 2, 2];
const GUARD: u32 = (1 << 5) | (1 << 9) | (1 << 13) | (1 << 17) | (1 << 21) | (1 << 24) | (1 << 27);

/// The pieces one side holds in hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

impl Hand {
    /// An empty hand.
    pub const EMPTY: Hand = Hand(0);

    /// The raw packed value.
    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// A hand from its [`raw`](Self::raw) value (the mate solver's table stores hands
    /// packed). The value must come from `raw`: a set guard bit would falsify
    /// [`is_superior_or_equal`](Self::is_superior_or_equal).
    #[inline]
    pub const fn from_raw(raw: u32) -> Hand {
        Hand(raw)
    }

    /// The number of `kind` held (0 for King and promoted kinds).
    #[inline]
    pub const fn count(self, kind: PieceKind) -> u32 {
        let i = kind as usize;
        if i >= 7 {
            return 0;
        }
        (self.0 >> SHIFT[i]) & ((1 << WIDTH[i]) - 1)
    }

    /// Whether at least one `kind` is held.
    #[inline]
    pub const fn has(self, kind: PieceKind) -> bool {
        self.count(kind) != 0
    }

    /// Whether the hand is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the hand holds anything other than pawns.
    #[inline]
    pub const fn has_except_pawn(self) -> bool {
        self.0 & !((1 << 5) - 1) != 0
    }

    /// The number of `kind` in a set (18 pawns, 4 lances, …, 2 rooks).
    pub const fn set_count(kind: PieceKind) -> u32 {
        SET[kind as usize]
    }

    /// The most `kind` a hand can hold: the field capacity (31 pawns, 7 of each minor piece,
    /// 3 bishops or rooks). It exceeds the set so that tsume files, which often give the
    /// defender an approximate "all the rest", still load; SFEN parsing refuses totals above
    /// this, so a capture can never overflow a field.
    pub const fn capacity(kind: PieceKind) -> u32 {
        (1 << WIDTH[kind as usize]) - 1
    }

    /// Adds one `kind` (a hand kind, below its maximum).
    #[inline]
    pub fn add(&mut self, kind: PieceKind) {
        debug_assert!(kind.is_hand_kind() && self.count(kind) < Hand::capacity(kind));
        self.0 += 1 << SHIFT[kind as usize];
    }

    /// Removes one `kind` (which must be held).
    #[inline]
    pub fn remove(&mut self, kind: PieceKind) {
        debug_assert!(self.has(kind));
        self.0 -= 1 << SHIFT[kind as usize];
    }

    /// Sets the count of `kind` (a hand kind), clamped to its [`capacity`](Self::capacity).
    #[inline]
    pub fn set(&mut self, kind: PieceKind, n: u32) {
        debug_assert!(kind.is_hand_kind());
        let i = kind as usize;
        let mask = (1 << WIDTH[i]) - 1;
        self.0 = (self.0 & !(mask << SHIFT[i])) | (n.min(mask) << SHIFT[i]);
    }

    /// Adds one `kind` (a hand kind) unless the hand already holds its capacity: the mate
    /// solver's proof hands carry bounds back across moves and may sit at capacity.
    #[inline]
    pub fn add_saturating(&mut self, kind: PieceKind) {
        if self.count(kind) < Hand::capacity(kind) {
            self.0 += 1 << SHIFT[kind as usize];
        }
    }

    /// Removes one `kind` if any is held.
    #[inline]
    pub fn remove_if_any(&mut self, kind: PieceKind) {
        if self.has(kind) {
            self.0 -= 1 << SHIFT[kind as usize];
        }
    }

    /// A hand with `count` of `kind` added, or `None` if it would exceed the capacity.
    pub fn with_added(self, kind: PieceKind, count: u32) -> Option<Hand> {
        if !kind.is_hand_kind() || self.count(kind) + count > Hand::capacity(kind) {
            return None;
        }
        Some(Hand(self.0 + (count << SHIFT[kind as usize])))
    }

    /// Whether every count of `self` is at least that of `other` (優等: the holder of `self`
    /// is at least as well off).
    #[inline]
    pub const fn is_superior_or_equal(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & GUARD == 0
    }

    /// The per-kind maximum of the two hands (the union of proof pieces).
    pub fn union(self, other: Hand) -> Hand {
        let mut out = Hand::EMPTY;
        for kind in PieceKind::HAND {
            out.set(kind, self.count(kind).max(other.count(kind)));
        }
        out
    }

    /// Total number of pieces held.
    #[inline]
    pub fn total(self) -> u32 {
        PieceKind::HAND.iter().map(|&k| self.count(k)).sum()
    }
}

/// `Hand(2P1R)`: the counts, rook first, with USI piece letters.
impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hand(")?;
        for kind in PieceKind::HAND.iter().rev() {
            let n = self.count(*kind);
            if n > 0 {
                write!(f, "{}{}", n, kind.sfen_char())?;
            }
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(counts: [u32; 7]) -> Hand {
        let mut h = Hand::EMPTY;
        for (kind, n) in PieceKind::HAND.iter().zip(counts) {
            h.set(*kind, n);
        }
        h
    }

    #[test]
    fn counts_round_trip_at_full_capacity() {
        let h = hand([18, 4, 4, 4, 4, 2, 2]);
        assert_eq!(PieceKind::HAND.map(|k| h.count(k)), [18, 4, 4, 4, 4, 2, 2]);
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
        assert!(c.is_superior_or_equal(Hand::EMPTY));
    }

    #[test]
    fn union_add_remove() {
        let a = hand([2, 0, 1, 0, 0, 1, 0]);
        let b = hand([1, 3, 0, 0, 0, 2, 0]);
        assert_eq!(a.union(b), hand([2, 3, 1, 0, 0, 2, 0]));
        let mut c = a;
        c.add_saturating(PieceKind::Gold);
        c.remove_if_any(PieceKind::Pawn);
        c.remove_if_any(PieceKind::Rook);
        assert_eq!(c, hand([1, 0, 1, 0, 1, 1, 0]));
    }

    #[test]
    fn set_clamps_and_add_saturates_at_capacity() {
        let mut h = Hand::EMPTY;
        h.set(PieceKind::Bishop, u32::MAX);
        assert_eq!(
            h.count(PieceKind::Bishop),
            Hand::capacity(PieceKind::Bishop)
        );
        h.add_saturating(PieceKind::Bishop);
        assert_eq!(
            h.count(PieceKind::Bishop),
            Hand::capacity(PieceKind::Bishop)
        );
        assert_eq!(h.count(PieceKind::Rook), 0);
        assert_eq!(Hand::from_raw(h.raw()), h);
        assert_eq!(format!("{:?}", hand([2, 0, 0, 0, 0, 0, 1])), "Hand(1R2P)");
    }

    #[test]
    fn counts_and_superiority() {
        let mut h = Hand::EMPTY;
        for _ in 0..18 {
            h.add(PieceKind::Pawn);
        }
        h.add(PieceKind::Rook);
        h.add(PieceKind::Rook);
        assert_eq!(h.count(PieceKind::Pawn), 18);
        assert_eq!(h.count(PieceKind::Rook), 2);
        assert_eq!(h.count(PieceKind::Gold), 0);
        let mut g = h;
        g.remove(PieceKind::Pawn);
        assert!(h.is_superior_or_equal(g));
        assert!(!g.is_superior_or_equal(h));
        g.add(PieceKind::Gold);
        assert!(!h.is_superior_or_equal(g));
        assert!(!g.is_superior_or_equal(h));
        assert!(h.is_superior_or_equal(h));
        assert!(h.is_superior_or_equal(Hand::EMPTY));
        for k in PieceKind::HAND {
            let full = Hand::EMPTY.with_added(k, Hand::capacity(k)).unwrap();
            assert_eq!(full.count(k), Hand::capacity(k));
            assert!(Hand::capacity(k) >= Hand::set_count(k));
            assert!(full.with_added(k, 1).is_none());
        }
    }
}
