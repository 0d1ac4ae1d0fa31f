//! Consultation policies: given every member's answer, pick one.
//!
//! Each function here is pure: answers (and, where a rule needs it, a small explicit state) in,
//! a [`Decision`] out. Round shapes — who searches, for how long, in how many phases — belong to
//! the coordinator (`gougi::round`), never to a policy. Answers arrive sorted by member number,
//! and every tie goes to the lower number, as in the reference program (GougiShogi).
//!
//! Families (one file each):
//! - [`vote`]: majority vote (plurality over any number of members, optionally weighted);
//! - [`optimism`]: optimistic, pessimistic and their alternation; rise-based variants;
//! - [`exchange`]: two members evaluate each other's best move;
//! - [`change_player`]: one member plays at a time, rotating by plies, phase or score swing;
//! - [`mate`]: a mate found by a mate member overrides the normal member's move;
//! - [`leader`]: the leader's move unless its own re-search prefers another member's.

pub mod change_player;
pub mod exchange;
pub mod kind;
pub mod leader;
pub mod mate;
pub mod optimism;
pub mod vote;

/// The outcome of a policy: which answer wins and a short reason for the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Index into the answers slice that was decided on.
    pub chosen: usize,
    pub reason: String,
}

#[cfg(test)]
pub(crate) mod testutil {
    use crate::gougi::answer::{Answer, Eval};
    use crate::usi::BestMove;

    /// A compact answer for table-driven tests: number, move (`resign`, `win` or a USI move),
    /// score, previous score.
    pub fn ans(number: u32, mv: &str, score: Option<i32>, prev: Option<i32>) -> Answer {
        Answer {
            number,
            name: format!("e{number}"),
            best: match mv {
                "resign" => BestMove::Resign,
                "win" => BestMove::Win,
                m => BestMove::Move {
                    mv: m.parse().expect("a USI move"),
                    ponder: None,
                },
            },
            score: score.map(Eval),
            prev: prev.map(Eval),
            weight: 1.0,
        }
    }
}
