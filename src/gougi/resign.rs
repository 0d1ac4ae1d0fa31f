//! When gougi may resign (`G_Resign`): never while a playable move is on the table.
//!
//! A member's `bestmove resign` is its own verdict; the consultation has more than one. GougiShogi
//! took the policy's choice as it came, so a 1-1-1 majority tie went to Engine1 even when Engine1
//! had resigned and the two others had moves. Here a resignation stands only when the rule says
//! so *and* nothing better is on the table:
//!
//! - `chosen` (default): the chosen member resigned and no answer offers a legal move whose score
//!   is not lost (a lost score is a mate against the side to move; a move without a score counts
//!   as playable — its member did not say it was lost).
//! - `all`: every answer is a resignation.
//!
//! The caller re-decides among [`playable`]'s answers with the same policy and tells the GUI why
//! (`info string [resign] …`). The moves are already legal: answers reach policies only after
//! the rules core checked them.

use crate::gougi::answer::{Answer, Eval};

/// `G_Resign`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResignRule {
    /// Resign when the chosen member resigns and nothing playable is left.
    Chosen,
    /// Resign only when every member resigns.
    All,
}

impl ResignRule {
    /// From the option's text (anything but `all` is the default).
    pub fn from_option(text: &str) -> ResignRule {
        if text == "all" {
            ResignRule::All
        } else {
            ResignRule::Chosen
        }
    }

    /// The option's text (`G_Resign`'s `var`s).
    pub fn word(self) -> &'static str {
        match self {
            ResignRule::Chosen => "chosen",
            ResignRule::All => "all",
        }
    }
}

/// A score that says the side to move is lost: being mated.
pub fn is_lost(score: Option<Eval>) -> bool {
    score.is_some_and(|s| s.is_mate() && s.0 < 0)
}

/// The answers a resignation must give way to, in answer order (empty: resigning is allowed).
pub fn playable(answers: &[Answer], rule: ResignRule) -> Vec<usize> {
    (0..answers.len())
        .filter(|&k| !answers[k].is_resign())
        .filter(|&k| rule == ResignRule::All || !is_lost(answers[k].score))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer without a previous score.
    fn answer(number: u32, mv: &str, score: Option<i32>) -> Answer {
        crate::gougi::policy::testutil::ans(number, mv, score, None)
    }

    #[test]
    fn a_resignation_gives_way_to_any_move_that_is_not_lost() {
        let answers = [
            answer(1, "resign", None),
            answer(2, "7g7f", Some(-300)),
            answer(3, "2g2f", Some(-(Eval::MATE - 5))),
            answer(4, "5g5f", None),
        ];
        assert_eq!(playable(&answers, ResignRule::Chosen), vec![1, 3]);
        assert_eq!(playable(&answers, ResignRule::All), vec![1, 2, 3]);
    }

    #[test]
    fn resigning_is_allowed_when_every_move_is_lost_or_none_is_left() {
        let lost = [
            answer(1, "resign", None),
            answer(2, "7g7f", Some(-(Eval::MATE - 3))),
        ];
        assert!(playable(&lost, ResignRule::Chosen).is_empty());
        assert_eq!(playable(&lost, ResignRule::All), vec![1]);
        let all = [answer(1, "resign", None), answer(2, "resign", Some(-500))];
        assert!(playable(&all, ResignRule::All).is_empty());
    }

    #[test]
    fn rule_from_option() {
        assert_eq!(ResignRule::from_option("all"), ResignRule::All);
        assert_eq!(ResignRule::from_option("chosen"), ResignRule::Chosen);
        for rule in [ResignRule::Chosen, ResignRule::All] {
            assert_eq!(ResignRule::from_option(rule.word()), rule);
        }
    }
}
