//! One member's answer to a round, in the form the policies read.
//!
//! Policies are pure: they see only these values, never processes or clocks. The coordinator
//! builds an [`Answer`] per member from its `bestmove` and its last exact `info … score` line
//! (multipv 1, no bound), after checking the move against the rules.

use std::fmt;
use std::sync::Arc;

use crate::usi::{BestMove, Score};

/// A member's evaluation from the side to move, on one comparable integer scale.
///
/// Centipawns stay as they are; a mate in `k` plies maps to `MATE - k` and being mated in `k`
/// to `-(MATE - k)`, so a mate ranks above every cp score and shorter mates are more extreme.
/// This is the reference program's mapping (GougiShogi §4), kept so that "rise" differences and
/// thresholds such as `G_ChangePlayerScoreDiff` mean the same numbers to its users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Eval(pub i32);

impl Eval {
    /// Base of the mate scale; `mate 1` is `MATE - 1`.
    pub const MATE: i32 = 100_000;

    /// Mate in `plies` (positive: we mate; negative: we are mated). A mate of unknown length
    /// (`mate +` / `mate -`) is passed as `None` and counts as the most extreme value.
    pub fn from_mate(plies: Option<i32>, winning: bool) -> Eval {
        let k = plies
            .map(i32::unsigned_abs)
            .unwrap_or(0)
            .min(Self::MATE as u32 - 1) as i32;
        if winning {
            Eval(Self::MATE - k)
        } else {
            Eval(-(Self::MATE - k))
        }
    }

    /// The scale value of a USI score (`cp` clamped into the cp range below the mate scale).
    pub fn from_score(score: &Score) -> Eval {
        match *score {
            Score::Cp(cp) => Eval(cp.clamp(-(Self::MATE - 10_001), Self::MATE - 10_001)),
            Score::Mate(m) => {
                Self::from_mate(m.plies.map(|p| p.min(i32::MAX as u32) as i32), m.winning)
            }
        }
    }

    /// The common scale calibrated scores are put on: centipawns per logistic unit of a
    /// typical engine (a member's cp × `REF_SCALE / Scale`), so that scores of members with
    /// different scales compare as win rates while thresholds keep their usual size.
    pub const REF_SCALE: f64 = 600.0;

    /// This score on the common scale, given the member's `Engine<N>.Scale`: equal calibrated
    /// values mean equal win rates `1/(1+e^(−cp/Scale))`. Mates and raw scores (no scale) are
    /// unchanged.
    pub fn calibrated(self, scale: Option<f64>) -> Eval {
        match scale {
            Some(k) if !self.is_mate() && k > 0.0 => {
                let limit = f64::from(Self::MATE - 10_001);
                Eval(
                    (f64::from(self.0) * Self::REF_SCALE / k)
                        .clamp(-limit, limit)
                        .round() as i32,
                )
            }
            _ => self,
        }
    }

    /// The win rate this (calibrated) score stands for: 1/(1+e^(−cp/REF_SCALE)); a mate for the
    /// side to move is 1, a mate against it 0.
    pub fn win_rate(self) -> f64 {
        if self.is_mate() {
            return if self.0 > 0 { 1.0 } else { 0.0 };
        }
        1.0 / (1.0 + (-f64::from(self.0) / Self::REF_SCALE).exp())
    }

    pub fn is_mate(self) -> bool {
        self.0.abs() > Self::MATE - 10_000
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_mate() {
            let k = Self::MATE - self.0.abs();
            if self.0 > 0 {
                write!(f, "mate {k}")
            } else {
                write!(f, "mate -{k}")
            }
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// What a member proposed. `best` is a move already checked against the rules (its ponder move
/// too), `resign` or a legal `win`, so policies never need a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Member number as configured (`Engine<N>.Path`, option prefix `E<N>_`); ties go to the lower.
    pub number: u32,
    /// Display name (`id name` or the config override); shared with the member's slot, so
    /// the answers built at every relayed line (the provisional leader) copy no text.
    pub name: Arc<str>,
    /// The proposal, as the member's `bestmove` said it.
    pub best: BestMove,
    /// Last exact score before `bestmove`, if any.
    pub score: Option<Eval>,
    /// The same member's score at gougi's previous decision in this game ("2 plies ago").
    pub prev: Option<Eval>,
    /// Vote weight (config `Engine<N>.Weight`, default 1).
    pub weight: f64,
    /// Its scores were put on the common scale (`Engine<N>.Scale`), so they are not the
    /// numbers its annotated line prints; reasons say so.
    pub calibrated: bool,
}

impl Answer {
    /// Score change since 2 plies ago; `None` when either side is missing.
    pub fn rise(&self) -> Option<i64> {
        Some(i64::from(self.score?.0) - i64::from(self.prev?.0))
    }

    pub fn is_resign(&self) -> bool {
        self.best == BestMove::Resign
    }

    pub fn is_win(&self) -> bool {
        self.best == BestMove::Win
    }

    /// Whether two members propose the same thing (the same move, both `resign` or both
    /// `win`); ponder moves do not count.
    pub fn agrees_with(&self, other: &Answer) -> bool {
        self.best.without_ponder() == other.best.without_ponder()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::Mate;

    #[test]
    fn usi_scores_map_onto_the_reference_scale() {
        assert_eq!(Eval::from_score(&Score::Cp(-42)), Eval(-42));
        assert_eq!(
            Eval::from_score(&Score::Mate(Mate::win_in(3))),
            Eval(99_997)
        );
        assert_eq!(
            Eval::from_score(&Score::Mate(Mate::lose_in(2))),
            Eval(-99_998)
        );
        assert_eq!(
            Eval::from_score(&Score::Mate(Mate::WIN_UNKNOWN)),
            Eval(100_000)
        );
        assert_eq!(
            Eval::from_score(&Score::Mate(Mate::LOSE_UNKNOWN)),
            Eval(-100_000)
        );
        assert!(!Eval::from_score(&Score::Cp(i32::MAX)).is_mate());
        assert_eq!(Eval(99_997).to_string(), "mate 3");
        assert_eq!(Eval(-99_998).to_string(), "mate -2");
    }

    #[test]
    fn calibration_puts_scores_on_one_scale() {
        // 300 cp from a member whose scale is 300 is one logistic unit: 600 on the common scale.
        assert_eq!(Eval(300).calibrated(Some(300.0)), Eval(600));
        assert_eq!(Eval(-900).calibrated(Some(1200.0)), Eval(-450));
        assert_eq!(Eval(123).calibrated(None), Eval(123));
        assert_eq!(Eval(99_997).calibrated(Some(100.0)), Eval(99_997));
        assert!(!Eval(80_000).calibrated(Some(1.0)).is_mate());
    }

    #[test]
    fn win_rates() {
        assert_eq!(Eval(0).win_rate(), 0.5);
        // One logistic unit on the common scale: e/(1+e).
        assert!((Eval(600).win_rate() - 0.731_058_6).abs() < 1e-6);
        assert!((Eval(-600).win_rate() - 0.268_941_4).abs() < 1e-6);
        assert_eq!(Eval(99_997).win_rate(), 1.0);
        assert_eq!(Eval(-99_998).win_rate(), 0.0);
    }
}
