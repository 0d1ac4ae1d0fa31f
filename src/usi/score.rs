//! Scores in `info score …`: [`Score`] (`cp <x>` or `mate <y>`), [`Bound`] and [`InfoScore`].
//!
//! A USI score is from the side to move. `mate <y>` counts plies; negative means the side to move
//! is being mated. Engines also print mates without a length (dlshogi `mate +`, `mate -`), and
//! YaneuraOu prints `mate -0` when mated at the root. ShogiHome reads `+`, `+0` and `0` as a win
//! of unknown length and `-`, `-0` as a loss (see `reference/usi-notes.md`). [`Mate`] keeps the
//! sign and the optional length separately so every one of these forms survives a round trip.
//!
//! Ordering: [`Score::key`] maps every score to an `i64` where `mate +N` lies above every `cp`,
//! `mate -N` below, and shorter mates are more extreme. A mate of unknown length sits between the
//! known-length mates and the cp range (it is certain to be a mate, but no shorter than any
//! stated one). `mate 0` (winning, zero plies) is read as ShogiHome does: a win of unknown
//! length. `mate -0` is the most extreme loss (mated now). Policies compare with
//! [`Score::cmp_strength`] or the key; `Score` deliberately has no `Ord`, because distinct
//! texts (`mate 0`, `mate +`) have the same strength.

use std::cmp::Ordering;
use std::fmt;

/// A mate score: who mates, and in how many plies if the engine said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mate {
    /// True when the side to move delivers the mate (`mate 5`, `mate +`); false when it is
    /// mated (`mate -4`, `mate -`, `mate -0`).
    pub winning: bool,
    /// The length in plies, `None` for `mate +` / `mate -`.
    pub plies: Option<u32>,
}

impl Mate {
    /// A win of unknown length (`mate +`).
    pub const WIN_UNKNOWN: Mate = Mate {
        winning: true,
        plies: None,
    };
    /// A loss of unknown length (`mate -`).
    pub const LOSE_UNKNOWN: Mate = Mate {
        winning: false,
        plies: None,
    };

    /// The side to move mates in `plies` (`mate <plies>`).
    pub const fn win_in(plies: u32) -> Mate {
        Mate {
            winning: true,
            plies: Some(plies),
        }
    }

    /// The side to move is mated in `plies` (`mate -<plies>`).
    pub const fn lose_in(plies: u32) -> Mate {
        Mate {
            winning: false,
            plies: Some(plies),
        }
    }

    /// The signed ply count as engines print it (`Some(-4)` for `mate -4`); `None` when the length
    /// is unknown. Note that `mate -0` gives `Some(0)`: check [`Mate::winning`] for the sign.
    pub fn signed_plies(&self) -> Option<i64> {
        self.plies.map(|n| {
            if self.winning {
                i64::from(n)
            } else {
                -i64::from(n)
            }
        })
    }
}

/// `cp <x>` or `mate <y>`, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns (評価値), side to move's view.
    Cp(i32),
    /// A mate (詰み) announcement.
    Mate(Mate),
}

/// The largest centipawn magnitude gougi prints or reads leniently: above every engine's own
/// mate value (YaneuraOu's is 32000) and below gougi's mate scale (`gougi::answer::Eval::MATE`,
/// 100,000), so a member's `cp 99999999999` cannot pass for a number a GUI chokes on. `Display`
/// clamps to it; lenient parsing clamps to it; strict parsing rejects values beyond it.
pub const CP_LIMIT: i32 = 99_999;

/// The largest `cp` magnitude gougi takes from a member (issue 49): YaneuraOu's mate value,
/// which gougi's own search shares. Engines print mates as `mate`, so their cp stops short of
/// their mate value (gougi's search at 31753, its superiority value); a member's cp beyond it
/// is a number on no engine's scale, and the coordinator clamps it (`gougi::ranges`) before a
/// policy compares it or the GUI sees it. A clamped claim still ranks below every `mate`.
/// (`gougi calibrate` leaves out samples from 30000 on, a different question: near-mate values
/// carry no scale information.)
pub const MATE_LIKE_CP: i32 = 32_000;

/// Key of a known-length mate is `MATE_KEY - plies`; cp values (i32) stay far below it.
pub const MATE_KEY: i64 = 1 << 40;
/// The length assumed for a mate of unknown length when ordering: longer than any mate an engine
/// can state (a `u32` ply count), so known mates rank as more extreme.
const UNKNOWN_MATE_PLIES: i64 = 1 << 33;

impl Score {
    /// A numeric key for policies: higher is better for the side to move. See the module doc for
    /// the layout; `Cp(x)` maps to `x`, winning mates to `MATE_KEY - plies`, losing mates to the
    /// negation, unknown lengths as if `2^33` plies long.
    pub fn key(&self) -> i64 {
        match *self {
            Score::Cp(cp) => i64::from(cp),
            Score::Mate(m) => {
                let len = match (m.winning, m.plies) {
                    // `mate 0` as ShogiHome reads it: a win of unknown length.
                    (true, Some(0)) | (_, None) => UNKNOWN_MATE_PLIES,
                    (_, Some(n)) => i64::from(n),
                };
                if m.winning {
                    MATE_KEY - len
                } else {
                    -(MATE_KEY - len)
                }
            }
        }
    }

    /// Orders two scores by strength for the side to move (total order on [`Score::key`]).
    pub fn cmp_strength(&self, other: &Score) -> Ordering {
        self.key().cmp(&other.key())
    }

    /// True for any mate announcement.
    pub fn is_mate(&self) -> bool {
        matches!(self, Score::Mate(_))
    }

    /// The same evaluation seen by the other side: `cp x` → `cp -x`, `mate 3` → `mate -3`.
    /// `i32::MIN` saturates to `i32::MAX`.
    pub fn negate(&self) -> Score {
        match *self {
            Score::Cp(cp) => Score::Cp(cp.checked_neg().unwrap_or(i32::MAX)),
            Score::Mate(m) => Score::Mate(Mate {
                winning: !m.winning,
                plies: m.plies,
            }),
        }
    }
}

impl fmt::Display for Score {
    /// `cp 50`, `mate 3`, `mate -4`, `mate +`, `mate -`, `mate 0`, `mate -0`; cp clamped to
    /// ±[`CP_LIMIT`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(cp) => write!(f, "cp {}", cp.clamp(-CP_LIMIT, CP_LIMIT)),
            Score::Mate(Mate {
                winning: true,
                plies: Some(n),
            }) => write!(f, "mate {n}"),
            Score::Mate(Mate {
                winning: false,
                plies: Some(n),
            }) => write!(f, "mate -{n}"),
            Score::Mate(Mate {
                winning: true,
                plies: None,
            }) => f.write_str("mate +"),
            Score::Mate(Mate {
                winning: false,
                plies: None,
            }) => f.write_str("mate -"),
        }
    }
}

/// Whether an `info` score is exact or a fail-high/fail-low bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Bound {
    /// No bound keyword.
    #[default]
    Exact,
    /// `lowerbound`: the true score is at least this (fail high).
    Lower,
    /// `upperbound`: the true score is at most this (fail low).
    Upper,
}

impl Bound {
    /// The keyword, `None` for [`Bound::Exact`].
    pub fn keyword(&self) -> Option<&'static str> {
        match self {
            Bound::Exact => None,
            Bound::Lower => Some("lowerbound"),
            Bound::Upper => Some("upperbound"),
        }
    }
}

/// The `score …` field of an `info` line: the score plus its bound. YaneuraOu prints fail-high and
/// fail-low lines (`score cp 123 lowerbound`); a policy must not take those as a member's current
/// score, hence the bound travels with the score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InfoScore {
    pub score: Score,
    pub bound: Bound,
}

impl InfoScore {
    /// An exact score.
    pub fn exact(score: Score) -> Self {
        InfoScore {
            score,
            bound: Bound::Exact,
        }
    }
}

impl fmt::Display for InfoScore {
    /// `cp 123` or `cp 123 lowerbound` (without the leading `score`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.score)?;
        if let Some(k) = self.bound.keyword() {
            write!(f, " {k}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // Test-only arrow to the parser: the strict mode has no `FromStr` entry point.
    use crate::usi::{parse, Strictness};

    fn s(text: &str) -> Score {
        text.parse().unwrap()
    }

    #[test]
    fn display_round_trips_every_form() {
        for text in [
            "cp 0", "cp -123", "cp 32000", "mate 1", "mate 13", "mate -4", "mate +", "mate -",
            "mate 0", "mate -0",
        ] {
            assert_eq!(s(text).to_string(), text);
        }
        assert_eq!(s("mate +5").to_string(), "mate 5");
        assert_eq!(s("mate +0").to_string(), "mate 0");
        assert_eq!(s("cp +50").to_string(), "cp 50");
    }

    #[test]
    fn order_puts_mates_outside_cp_and_short_mates_at_the_extremes() {
        let ascending = [
            "mate -0",
            "mate -1",
            "mate -7",
            "mate -",
            "cp -32000",
            "cp -1",
            "cp 0",
            "cp 500",
            "mate +",
            "mate 9",
            "mate 3",
            "mate 1",
        ];
        for pair in ascending.windows(2) {
            assert_eq!(
                s(pair[0]).cmp_strength(&s(pair[1])),
                Ordering::Less,
                "{} < {}",
                pair[0],
                pair[1]
            );
        }
        assert!(Score::Cp(i32::MAX).key() < s("mate +").key());
        assert!(Score::Cp(i32::MIN).key() > s("mate -").key());
        assert!(Score::Mate(Mate::win_in(u32::MAX)).key() > s("mate +").key());
        // ShogiHome reads `mate 0` as a win of unknown length.
        assert_eq!(s("mate 0").cmp_strength(&s("mate +")), Ordering::Equal);
    }

    #[test]
    fn negate_flips_side() {
        assert_eq!(s("cp 50").negate(), s("cp -50"));
        assert_eq!(s("mate 3").negate(), s("mate -3"));
        assert_eq!(s("mate -").negate(), s("mate +"));
        assert_eq!(s("mate -0").negate(), s("mate 0"));
        assert_eq!(Score::Cp(i32::MIN).negate(), Score::Cp(i32::MAX));
        assert_eq!(Mate::lose_in(4).signed_plies(), Some(-4));
        assert_eq!(Mate::WIN_UNKNOWN.signed_plies(), None);
    }

    #[test]
    fn malformed_scores_are_errors() {
        for text in [
            "", "cp", "cp x", "mate", "mate x", "mate --1", "pawn 5", "cp 1.5", "cp --1",
        ] {
            assert!(text.parse::<Score>().is_err(), "{text:?}");
        }
    }

    #[test]
    fn out_of_range_cp_is_clamped_when_read_leniently_and_when_printed() {
        assert_eq!(s("cp 99999999999"), Score::Cp(CP_LIMIT));
        assert_eq!(s("cp -99999999999999999999999"), Score::Cp(-CP_LIMIT));
        assert_eq!(s("cp 100000"), Score::Cp(CP_LIMIT));
        assert_eq!(s("cp -99999"), Score::Cp(-99_999));
        assert_eq!(Score::Cp(i32::MAX).to_string(), "cp 99999");
        assert_eq!(Score::Cp(i32::MIN).to_string(), "cp -99999");
        assert!(parse::parse_score_text("cp 100000", Strictness::Strict).is_err());
        assert_eq!(
            parse::parse_score_text("cp -99999", Strictness::Strict),
            Ok(Score::Cp(-CP_LIMIT))
        );
        // A mate length beyond u32 saturates leniently and is an error strictly.
        assert_eq!(s("mate -99999999999"), Score::Mate(Mate::lose_in(u32::MAX)));
        assert!(parse::parse_score_text("mate 99999999999", Strictness::Strict).is_err());
    }
}
