//! What a decision's reason is made of, shared by every family: how a member is named
//! ([`Who`]) and the obvious move a reason is measured against ([`obvious_move`], [`explain`],
//! [`outvoted`]).

use std::fmt;
use std::sync::Arc;

use crate::gougi::answer::Answer;
use crate::usi::BestMove;

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

//END
