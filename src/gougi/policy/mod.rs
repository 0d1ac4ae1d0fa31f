//! Consultation policies: given every member's answer, pick one.
//!
//! Each function here is pure: answers (and, where a rule needs it, a small explicit state) in,
//! a [`Decision`] out. Round shapes — who searches, for how long, in how many phases — belong to
//! the coordinator (`gougi::round`), never to a policy. Answers arrive sorted by member number,
//! and every tie goes to the lower number, as in the reference program (GougiShogi).
//!
//! Every decision carries its [`Reason`], built from the decision's own data; the reason says
//! whether the GUI is told (`info string [why] <move>: <reason>`, ARCHITECTURE "Reasons"): only
//! when the choice is not the [obvious](obvious_move) one.
//!
//! Families (one file each):
//! - [`vote`]: majority vote (plurality over any number of members, optionally weighted);
//! - [`optimism`]: optimistic, pessimistic and their alternation; rise-based variants;
//! - [`exchange`]: two members evaluate each other's best move;
//! - [`change_player`]: one member plays at a time, rotating by plies, phase or score swing;
//! - [`mate`]: a mate found by a mate member overrides the normal member's move;
//! - [`leader`]: the leader's move unless its own re-search prefers another member's.

use std::fmt;
use std::sync::Arc;

use crate::gougi::answer::Answer;
use crate::usi::BestMove;

pub mod change_player;
pub mod exchange;
pub mod kind;
pub mod leader;
pub mod mate;
pub mod optimism;
pub mod vote;

/// The outcome of a policy: which answer wins and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Index into the answers slice that was decided on.
    pub chosen: usize,
    pub reason: Reason,
}

/// Why a policy chose what it chose: the family's finding (its `Display` is the text after
/// `[why] <move>: `) and whether the GUI is told.
#[derive(Clone, Debug, PartialEq)]
pub struct Reason {
    pub why: Why,
    /// Not the obvious choice (see [`explain`]): the coordinator sends the reason to the GUI.
    pub explain: bool,
}

/// The finding of each family, in its own type (each written in its policy's file).
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// Optimism, pessimism, rises and weighted optimism.
    Extreme(optimism::Finding),
    /// Plurality of `bestmove`s.
    Vote(vote::Finding),
    /// The exchange rule.
    Exchange(exchange::Finding),
    /// The leader rule.
    Leader(leader::Finding),
    /// Another member took over from the previous move's player (change-player types).
    Switch(change_player::Switch),
    /// A member declared a win (入玉宣言): a legal declaration is played at once.
    Declared(Who),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Extreme(x) => x.fmt(f),
            Why::Vote(x) => x.fmt(f),
            Why::Exchange(x) => x.fmt(f),
            Why::Leader(x) => x.fmt(f),
            Why::Switch(x) => x.fmt(f),
            Why::Declared(who) => write!(f, "{who} declared a win, which is played at once"),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.why.fmt(f)
    }
}

/// A member as reasons name it: `E2 (YaneuraOu)`, or `E2` alone when that is its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Who {
    pub number: u32,
    pub name: Arc<str>,
}

impl Who {
    pub fn of(a: &Answer) -> Who {
        Who {
            number: a.number,
            name: a.name.clone(),
        }
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self.name == format!("E{}", self.number) {
            f.write_str(&self.name)
        } else {
            write!(f, "E{} ({})", self.number, self.name)
        }
    }
}

/// The obvious move among `answers` (non-empty): the one most members proposed (counted, not
/// weighted); when several share the most, the lowest-numbered member's among them. Returns the
/// index of its first (lowest-numbered) proposer and whether the count was unshared.
pub fn obvious_move(answers: &[Answer]) -> (usize, bool) {
    let count = |a: &Answer| answers.iter().filter(|b| b.agrees_with(a)).count();
    let mut best = (0, count(&answers[0]), true);
    for (i, a) in answers.iter().enumerate().skip(1) {
        if answers[..i].iter().any(|b| b.agrees_with(a)) {
            continue;
        }
        let c = count(a);
        if c > best.1 {
            best = (i, c, true);
        } else if c == best.1 {
            best.2 = false;
        }
    }
    (best.0, best.2)
}

/// Whether choosing `chosen` needs explaining: it is not the [obvious move](obvious_move), or
/// the rule's deciding comparison was `tied` between different moves and member order broke it.
pub fn explain(answers: &[Answer], chosen: usize, tied: bool) -> bool {
    tied || !answers[chosen].agrees_with(&answers[obvious_move(answers).0])
}

/// The move most members proposed, when the choice is another (`None` when no move had more
/// proposers than every other, or when that move was chosen).
pub fn outvoted(answers: &[Answer], chosen: usize) -> Option<Outvoted> {
    let (k, unshared) = obvious_move(answers);
    if !unshared || answers[k].agrees_with(&answers[chosen]) {
        return None;
    }
    Some(Outvoted {
        mv: answers[k].best.without_ponder(),
        members: answers
            .iter()
            .filter(|b| b.agrees_with(&answers[k]))
            .count(),
        of: answers.len(),
    })
}

/// The move most members proposed, when another was played (part of a reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outvoted {
    pub mv: BestMove,
    pub members: usize,
    pub of: usize,
}

impl fmt::Display for Outvoted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} members proposed {}",
            self.members,
            self.of,
            self.mv.token()
        )
    }
}

/// A legal declaration (`win`) among the answers is played at once, whoever made it; it is
/// explained unless every member declared.
pub fn declaration(answers: &[Answer]) -> Option<Decision> {
    let k = answers.iter().position(Answer::is_win)?;
    Some(Decision {
        chosen: k,
        reason: Reason {
            why: Why::Declared(Who::of(&answers[k])),
            explain: !answers.iter().all(Answer::is_win),
        },
    })
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
            name: format!("e{number}").into(),
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
            calibrated: false,
        }
    }
}
