//! Search scores: the [`Value`] newtype, mate encoding and the ply-relative TT adjustment.
//!
//! A `Value` is a score in centipawn-like units from the side to move's point of view.
//! Mates are encoded Stockfish-style: a mate delivered `ply` plies from the root is
//! `MATE - ply`, being mated is `-MATE + ply`. Scores stored in the transposition table are
//! made relative to the node that stores them ([`Value::to_tt`]/[`Value::from_tt`]) so that a
//! mate found at one depth stays correct when the entry is reused at another.
//!
//! Invariant: every finite score lies in `-INFINITE..=INFINITE`; `NONE` never enters arithmetic.

use std::fmt;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

/// Deepest ply the search can reach (arrays of per-ply state are sized by it).
pub const MAX_PLY: i32 = 246;

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Value(pub i32);

impl Value {
    pub const ZERO: Value = Value(0);
    pub const DRAW: Value = Value(0);
    /// Score of delivering mate at the root; mate in `n` plies is `MATE - n`.
    pub const MATE: Value = Value(32000);
    pub const INFINITE: Value = Value(32001);
    /// "No value": an empty TT slot or an unevaluated node. Never compared as a score.
    pub const NONE: Value = Value(32002);
    /// Every score at or above this is a mate for the side to move.
    pub const MATE_IN_MAX_PLY: Value = Value(32000 - MAX_PLY);
    /// Every score at or below this is a mate against the side to move.
    pub const MATED_IN_MAX_PLY: Value = Value(-32000 + MAX_PLY);

    /// Score of giving mate `ply` plies from the root.
    #[inline]
    pub const fn mate_in(ply: i32) -> Value {
        Value(Self::MATE.0 - ply)
    }

    /// Score of being mated `ply` plies from the root.
    #[inline]
    pub const fn mated_in(ply: i32) -> Value {
        Value(-Self::MATE.0 + ply)
    }

    /// True for a mate score either way (win or loss).
    #[inline]
    pub const fn is_mate(self) -> bool {
        self.0.abs() >= Self::MATE_IN_MAX_PLY.0 && self.0.abs() <= Self::MATE.0
    }

    /// True if the side to move mates.
    #[inline]
    pub const fn is_win(self) -> bool {
        self.0 >= Self::MATE_IN_MAX_PLY.0 && self.0 <= Self::MATE.0
    }

    /// True if the side to move is mated.
    #[inline]
    pub const fn is_loss(self) -> bool {
        self.0 <= Self::MATED_IN_MAX_PLY.0 && self.0 >= -Self::MATE.0
    }

    /// Plies to mate for a mate score (positive: we mate; negative: we are mated).
    pub const fn mate_plies(self) -> Option<i32> {
        if self.is_win() {
            Some(Self::MATE.0 - self.0)
        } else if self.is_loss() {
            Some(-(Self::MATE.0 + self.0))
        } else {
            None
        }
    }

    /// Converts a score found `ply` plies from the root into a score relative to this node,
    /// for storing in the transposition table.
    #[inline]
    pub const fn to_tt(self, ply: i32) -> Value {
        if self.0 >= Self::MATE_IN_MAX_PLY.0 {
            Value(self.0 + ply)
        } else if self.0 <= Self::MATED_IN_MAX_PLY.0 {
            Value(self.0 - ply)
        } else {
            self
        }
    }

    /// Inverse of [`Value::to_tt`]: a stored score made relative to the root again.
    #[inline]
    pub const fn from_tt(self, ply: i32) -> Value {
        if self.0 == Self::NONE.0 {
            self
        } else if self.0 >= Self::MATE_IN_MAX_PLY.0 {
            Value(self.0 - ply)
        } else if self.0 <= Self::MATED_IN_MAX_PLY.0 {
            Value(self.0 + ply)
        } else {
            self
        }
    }
}

impl Add<i32> for Value {
    type Output = Value;
    #[inline]
    fn add(self, rhs: i32) -> Value {
        Value(self.0 + rhs)
    }
}

impl Sub<i32> for Value {
    type Output = Value;
    #[inline]
    fn sub(self, rhs: i32) -> Value {
        Value(self.0 - rhs)
    }
}

impl Add for Value {
    type Output = Value;
    #[inline]
    fn add(self, rhs: Value) -> Value {
        Value(self.0 + rhs.0)
    }
}

impl Sub for Value {
    type Output = Value;
    #[inline]
    fn sub(self, rhs: Value) -> Value {
        Value(self.0 - rhs.0)
    }
}

impl AddAssign<i32> for Value {
    #[inline]
    fn add_assign(&mut self, rhs: i32) {
        self.0 += rhs;
    }
}

impl SubAssign<i32> for Value {
    #[inline]
    fn sub_assign(&mut self, rhs: i32) {
        self.0 -= rhs;
    }
}

impl Neg for Value {
    type Output = Value;
    #[inline]
    fn neg(self) -> Value {
        Value(-self.0)
    }
}

/// USI text of a score: `cp N` or `mate N` (mate in plies; negative when being mated).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mate_plies() {
            Some(n) if n >= 0 => write!(f, "mate {n}"),
            // `mate -0` is not a number a GUI can parse; being mated at this node is `mate -0`
            // only in theory, since the root never reports a position that is already mate.
            Some(n) => write!(f, "mate {n}"),
            None => write!(f, "cp {}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_encoding_round_trips() {
        let v = Value::mate_in(5);
        assert!(v.is_mate() && v.is_win() && !v.is_loss());
        assert_eq!(v.mate_plies(), Some(5));
        let l = Value::mated_in(4);
        assert!(l.is_mate() && l.is_loss());
        assert_eq!(l.mate_plies(), Some(-4));
        assert!(!Value(1500).is_mate());
        assert_eq!(Value(1500).mate_plies(), None);
        assert_eq!(format!("{}", Value::mate_in(3)), "mate 3");
        assert_eq!(format!("{}", Value::mated_in(2)), "mate -2");
        assert_eq!(format!("{}", Value(-42)), "cp -42");
    }

    #[test]
    fn tt_adjustment_is_relative_to_node() {
        // Mate in 7 from the root found at ply 3 is mate in 4 from that node.
        let root = Value::mate_in(7);
        let stored = root.to_tt(3);
        assert_eq!(stored, Value::mate_in(4));
        // Reused at ply 5, it is mate in 9 from the root.
        assert_eq!(stored.from_tt(5), Value::mate_in(9));
        let lost = Value::mated_in(6);
        assert_eq!(lost.to_tt(2).from_tt(2), lost);
        assert_eq!(Value(123).to_tt(9), Value(123));
        assert_eq!(Value::NONE.from_tt(9), Value::NONE);
    }
}
