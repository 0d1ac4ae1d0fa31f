//! Change-player consultation (対局者交代): one member plays at a time.
//!
//! - `change-every` (数手ごとに対局者交代): rotate after `G_ChangePlayerPlys` of gougi's moves;
//! - `by-phase` (序盤・中盤・終盤で対局者交代): member 1 in the opening, member 2 from ply
//!   `G_ChuubanStartPlys`, member 3 from ply `G_ShuubanStartPlys`;
//! - `change-on-drop` / `change-on-rise` (2手前の評価値から一定値以上下降/上昇したら対局者交代):
//!   rotate when the playing member's score moved by at least `G_ChangePlayerScoreDiff` since
//!   its previous move (only from its second move on, and never on a missing score).
//!
//! Unlike the reference, the by-phase choice reads the real ply number of the position (so
//! `position sfen …` and handicaps work), and the state lives per game: the coordinator creates
//! a fresh [`Rotation`] at `usinewgame` (GougiShogi §12.7, §12.9).

use crate::gougi::answer::Answer;

/// Which rotation rule is in force, with its parameters (the `G_` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Every { plys: u32 },
    ByPhase { middle_from: u32, end_from: u32 },
    OnDrop { diff: i64 },
    OnRise { diff: i64 },
}

/// The playing member and how many moves it has played since it took over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rotation {
    current: usize,
    played: u32,
}

impl Rotation {
    /// The member (index in member order) that plays the move at `ply` (1-based ply number of
    /// the position to move, as in its SFEN move counter).
    pub fn player(&self, rule: Rule, members: usize, ply: u32) -> usize {
        match rule {
            Rule::ByPhase {
                middle_from,
                end_from,
            } => {
                let phase = if ply >= end_from {
                    2
                } else if ply >= middle_from {
                    1
                } else {
                    0
                };
                phase.min(members.saturating_sub(1))
            }
            _ => self.current.min(members.saturating_sub(1)),
        }
    }

    /// Record the playing member's completed move; returns true when the next move goes to
    /// another member (whose score history the caller should then clear).
    pub fn after_move(&mut self, rule: Rule, members: usize, answer: &Answer) -> bool {
        self.played += 1;
        let rotate = match rule {
            Rule::Every { plys } => self.played >= plys.max(1),
            Rule::ByPhase { .. } => false,
            Rule::OnDrop { diff } => self.played > 1 && answer.rise().is_some_and(|d| d <= -diff),
            Rule::OnRise { diff } => self.played > 1 && answer.rise().is_some_and(|d| d >= diff),
        };
        if rotate && members > 1 {
            self.current = (self.current + 1) % members;
            self.played = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::policy::testutil::ans;

    #[test]
    fn every_n_moves_wraps_around() {
        let rule = Rule::Every { plys: 2 };
        let mut r = Rotation::default();
        let a = ans(1, "7g7f", None, None);
        let mut seen = vec![];
        for _ in 0..7 {
            seen.push(r.player(rule, 3, 1));
            r.after_move(rule, 3, &a);
        }
        assert_eq!(seen, [0, 0, 1, 1, 2, 2, 0]);
    }

    #[test]
    fn by_phase_reads_the_ply() {
        let rule = Rule::ByPhase {
            middle_from: 51,
            end_from: 101,
        };
        let r = Rotation::default();
        assert_eq!(r.player(rule, 3, 1), 0);
        assert_eq!(r.player(rule, 3, 50), 0);
        assert_eq!(r.player(rule, 3, 51), 1);
        assert_eq!(r.player(rule, 3, 100), 1);
        assert_eq!(r.player(rule, 3, 101), 2);
    }

    #[test]
    fn score_swings_rotate_only_from_the_second_move() {
        let rule = Rule::OnDrop { diff: 100 };
        let mut r = Rotation::default();
        // First move: a drop of 300 does not count (no own previous move under this player).
        assert!(!r.after_move(rule, 2, &ans(1, "7g7f", Some(-200), Some(100))));
        assert!(!r.after_move(rule, 2, &ans(1, "7g7f", Some(-250), Some(-200)))); // -50
        assert!(!r.after_move(rule, 2, &ans(1, "7g7f", Some(-250), None))); // no score history
        assert!(r.after_move(rule, 2, &ans(1, "7g7f", Some(-350), Some(-250)))); // -100: rotate
        assert_eq!(r.player(rule, 2, 9), 1);
        let rise = Rule::OnRise { diff: 100 };
        let mut r = Rotation::default();
        r.after_move(rise, 2, &ans(1, "7g7f", Some(0), None));
        assert!(!r.after_move(rise, 2, &ans(1, "7g7f", Some(99), Some(0))));
        assert!(r.after_move(rise, 2, &ans(1, "7g7f", Some(300), Some(99))));
    }
}
