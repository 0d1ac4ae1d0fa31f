//! [`Bitboard`]: a set of squares in a `u128`, bit `i` = square index `i` (file-major, so each
//! file is 9 contiguous bits). Bits 81..128 are always zero.
//!
//! The field is private so a `[u64; 2]`/SIMD form can replace it if a benchmark shows a gain.

use super::types::{Color, File, Rank, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(u128);

const FULL: u128 = (1u128 << 81) - 1;

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(FULL);

    /// The set with only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq as u8)
    }

    /// The set from raw bits (bits above 80 are cleared).
    #[inline]
    pub const fn from_bits(bits: u128) -> Bitboard {
        Bitboard(bits & FULL)
    }

    /// The raw bits.
    #[inline]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// All squares of `file`.
    #[inline]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x1ffu128 << (file.index() * 9))
    }

    /// All squares of `rank`.
    pub const fn rank(rank: Rank) -> Bitboard {
        let mut b = 0u128;
        let mut f = 0;
        while f < 9 {
            b |= 1u128 << (f * 9 + rank.index());
            f += 1;
        }
        Bitboard(b)
    }

    /// The squares whose rank relative to `c` (1 = far rank) is in `lo..=hi`.
    pub const fn relative_ranks(c: Color, lo: u8, hi: u8) -> Bitboard {
        let mut b = 0u128;
        let mut i = 0;
        while i < 81 {
            let r = Square::from_index_unchecked(i).rank().relative(c);
            if r >= lo && r <= hi {
                b |= 1u128 << i;
            }
            i += 1;
        }
        Bitboard(b)
    }

    /// `c`'s relative ranks `1..=n` for n = 1, 2 or 3 (3 is the promotion zone): where a pawn
    /// or lance (1), a knight (2) cannot stay. A table lookup; `relative_ranks` with a runtime
    /// colour would walk all 81 squares.
    #[inline]
    pub const fn far_ranks(c: Color, n: u8) -> Bitboard {
        FAR_RANKS[c as usize][(n - 1) as usize]
    }

    /// `c`'s relative rank 2 alone (lances may stay there, knights may not).
    #[inline]
    pub const fn second_rank(c: Color) -> Bitboard {
        Bitboard(FAR_RANKS[c as usize][1].0 & !FAR_RANKS[c as usize][0].0)
    }

    /// `c`'s promotion zone (three far ranks).
    #[inline]
    pub const fn zone(c: Color) -> Bitboard {
        match c {
            Color::Black => ZONE_BLACK,
            Color::White => ZONE_WHITE,
        }
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> (sq as u8) & 1 != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set is non-empty.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether the set has two or more squares.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// Number of squares.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn lsb(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(
                self.0.trailing_zeros() as usize
            ))
        }
    }

    /// The highest square, if any.
    #[inline]
    pub const fn msb(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(
                127 - self.0.leading_zeros() as usize,
            ))
        }
    }

    /// Removes and returns the lowest square.
    #[inline]
    pub fn pop(&mut self) -> Option<Square> {
        // Half by half: a u128 `x & (x - 1)` is a borrow chain across both words and its
        // trailing_zeros a two-way select; on the low word alone both are one instruction.
        let lo = self.0 as u64;
        let hi = (self.0 >> 64) as u64;
        if lo != 0 {
            self.0 = ((hi as u128) << 64) | (lo & (lo - 1)) as u128;
            Some(Square::from_index_unchecked(lo.trailing_zeros() as usize))
        } else if hi != 0 {
            self.0 = ((hi & (hi - 1)) as u128) << 64;
            Some(Square::from_index_unchecked(
                64 + hi.trailing_zeros() as usize,
            ))
        } else {
            None
        }
    }

    /// Calls `f` on every square, lowest first: each 64-bit half is walked in its own loop,
    /// the cheapest way to visit the squares of a set (move generation's inner loops).
    #[inline(always)]
    pub fn for_each(self, mut f: impl FnMut(Square)) {
        let mut lo = self.0 as u64;
        while lo != 0 {
            f(Square::from_index_unchecked(lo.trailing_zeros() as usize));
            lo &= lo - 1;
        }
        let mut hi = (self.0 >> 64) as u64;
        while hi != 0 {
            f(Square::from_index_unchecked(
                64 + hi.trailing_zeros() as usize,
            ));
            hi &= hi - 1;
        }
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u128 << sq as u8)
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq as u8))
    }

    /// `self & other` in const context.
    #[inline]
    pub const fn and(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & o.0)
    }

    /// `self | other` in const context.
    #[inline]
    pub const fn or(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 | o.0)
    }

    /// `self & !other`.
    #[inline]
    pub const fn and_not(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & !o.0)
    }
}

const FAR_RANKS: [[Bitboard; 3]; 2] = [
    [
        Bitboard::relative_ranks(Color::Black, 1, 1),
        Bitboard::relative_ranks(Color::Black, 1, 2),
        Bitboard::relative_ranks(Color::Black, 1, 3),
    ],
    [
        Bitboard::relative_ranks(Color::White, 1, 1),
        Bitboard::relative_ranks(Color::White, 1, 2),
        Bitboard::relative_ranks(Color::White, 1, 3),
    ],
];
const ZONE_BLACK: Bitboard = Bitboard::relative_ranks(Color::Black, 1, 3);
const ZONE_WHITE: Bitboard = Bitboard::relative_ranks(Color::White, 1, 3);

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        self.pop()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & o.0)
    }
}
impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 | o.0)
    }
}
impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitxor(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ o.0)
    }
}
impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & !o.0)
    }
}
impl Not for Bitboard {
    type Output = Bitboard;
    /// Complement within the 81 squares.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & FULL)
    }
}
impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, o: Bitboard) {
        self.0 &= o.0;
    }
}
impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, o: Bitboard) {
        self.0 |= o.0;
    }
}
impl BitXorAssign for Bitboard {
    #[inline]
    fn bitxor_assign(&mut self, o: Bitboard) {
        self.0 ^= o.0;
    }
}

impl std::fmt::Debug for Bitboard {
    /// A 9x9 picture as Black sees the board (file 9 on the left).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bitboard(")?;
        for r in 0..9 {
            for file in (0..9).rev() {
                let sq = Square::from_index_unchecked(file * 9 + r);
                f.write_str(if self.contains(sq) { "*" } else { "." })?;
            }
            writeln!(f)?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        let b = Bitboard::from_square(Square::SQ11) | Bitboard::from_square(Square::SQ99);
        assert_eq!(b.count(), 2);
        assert_eq!(b.lsb(), Some(Square::SQ11));
        assert_eq!(b.msb(), Some(Square::SQ99));
        assert!(b.more_than_one());
        assert_eq!(b.collect::<Vec<_>>(), vec![Square::SQ11, Square::SQ99]);
        assert_eq!((!Bitboard::EMPTY).count(), 81);
        assert_eq!(Bitboard::zone(Color::Black).count(), 27);
        assert!(Bitboard::zone(Color::White).contains(Square::SQ59));
        assert_eq!(Bitboard::rank(Rank::new(1).unwrap()).count(), 9);
    }
}
