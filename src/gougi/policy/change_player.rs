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

pub use super::decision::{Cause, Switch};
use super::reason::Who;
use crate::gougi::answer::Answer;

/// Which rotation rule is in force, with its parameters (the `G_` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Every { plys: u32 },
    ByPhase { middle_from: u32, end_from: u32 },
    OnDrop { diff: i64 },
    OnRise { diff: i64 },
}

/// The playing member and how many moves it has played since it took over; for the reasons,
/// who played the previous move and why the rule rotated after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rotation {
    current: usize,
    played: u32,
    last: Option<Who>,
    rotated: Option<Cause>,
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

    /// At a decision, before [`after_move`](Self::after_move): when `player` (whose answer is
    /// played) is not the member that played the previous move of this game, why — the rule's
    /// rotation after that move, the phase of `ply`, or the `designated` player (the one
    /// [`player`](Self::player) named) being unavailable or back.
    pub fn switch(
        &mut self,
        rule: Rule,
        player: &Answer,
        designated: &Who,
        ply: u32,
    ) -> Option<Switch> {
        let rotated = self.rotated.take();
        let from = self.last.clone()?;
        if from.number == player.number {
            return None;
        }
        let cause = if player.number != designated.number {
            Cause::StandIn {
                designated: designated.clone(),
            }
        } else if let Some(cause) = rotated {
            cause
        } else if let Rule::ByPhase {
            middle_from,
            end_from,
        } = rule
        {
            let (option, first, before) = if ply >= end_from {
                ("G_ShuubanStartPlys", end_from, false)
            } else if ply >= middle_from {
                ("G_ChuubanStartPlys", middle_from, false)
            } else {
                ("G_ChuubanStartPlys", middle_from, true)
            };
            Cause::Phase {
                ply,
                option,
                from: first,
                before,
            }
        } else {
            Cause::Back
        };
        Some(Switch {
            to: Who::of(player),
            from,
            cause,
        })
    }

    /// Record the playing member's completed move; returns true when the next move goes to
    /// another member (whose score history the caller should then clear).
    pub fn after_move(&mut self, rule: Rule, members: usize, answer: &Answer) -> bool {
        self.played += 1;
        self.last = Some(Who::of(answer));
        let cause = match rule {
            Rule::Every { plys } if self.played >= plys.max(1) => Some(Cause::Plies { plys }),
            Rule::OnDrop { diff } if self.played > 1 => answer
                .rise()
                .filter(|&d| d <= -diff)
                .map(|by| Cause::Swing { by, diff }),
            Rule::OnRise { diff } if self.played > 1 => answer
                .rise()
                .filter(|&d| d >= diff)
                .map(|by| Cause::Swing { by, diff }),
            _ => None,
        };
        if cause.is_some() && members > 1 {
            self.current = (self.current + 1) % members;
            self.played = 0;
            self.rotated = cause;
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
    fn a_change_of_player_says_why() {
        let who = |n: u32| Who {
            number: n,
            name: format!("e{n}").into(),
        };
        let rule = Rule::Every { plys: 2 };
        let mut r = Rotation::default();
        let (e1, e2) = (ans(1, "7g7f", None, None), ans(2, "2g2f", None, None));
        // The game's first move and the same player again: nothing to say.
        assert_eq!(r.switch(rule, &e1, &who(1), 1), None);
        r.after_move(rule, 2, &e1);
        assert_eq!(r.switch(rule, &e1, &who(1), 3), None);
        assert!(r.after_move(rule, 2, &e1));
        let s = r.switch(rule, &e2, &who(2), 5).expect("a switch");
        assert_eq!(
            s.to_string(),
            "E2 (e2) takes over from E1 (e1), which played its 2 moves (G_ChangePlayerPlys 2)"
        );
        r.after_move(rule, 2, &e2);
        // The designated player (E2) is down: E1 stands in, then E2 is back.
        let s = r.switch(rule, &e1, &who(2), 7).expect("a stand-in");
        assert_eq!(
            s.to_string(),
            "E1 (e1) plays for E2 (e2), which is not available (E2 (e2) played the previous move)"
        );
        let drop = Rule::OnDrop { diff: 100 };
        let mut r = Rotation::default();
        r.after_move(drop, 2, &ans(1, "7g7f", Some(100), None));
        r.after_move(drop, 2, &ans(1, "7g7f", Some(-50), Some(100)));
        let s = r.switch(drop, &e2, &who(2), 5).expect("a switch");
        assert_eq!(
            s.to_string(),
            "E2 (e2) takes over from E1 (e1), whose score fell by 150 on its last move (G_ChangePlayerScoreDiff 100)"
        );
        let phase = Rule::ByPhase {
            middle_from: 51,
            end_from: 101,
        };
        let mut r = Rotation::default();
        r.after_move(phase, 3, &e1);
        let s = r.switch(phase, &e2, &who(2), 51).expect("a switch");
        assert_eq!(
            s.to_string(),
            "E2 (e2) takes over from E1 (e1) at ply 51, from G_ChuubanStartPlys 51"
        );
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
