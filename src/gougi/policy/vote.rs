//! Majority vote (多数決合議).
//!
//! The reference accepts exactly three members: 3-0 and 2-1 take the majority, 1-1-1 takes
//! engine 1. gougi generalises this to a plurality over any number of members with optional
//! weights (Obata et al. 2010 showed the 3-member vote; weighted votes are a later refinement):
//! the move with the largest summed weight wins; among tied moves, the one proposed by the
//! lowest-numbered member wins; the answer returned is that move's lowest-numbered voter, so
//! its ponder move and PV go to the GUI. With three equal weights this is exactly the reference.

use super::Decision;
use crate::gougi::answer::Answer;

pub fn majority(answers: &[Answer]) -> Decision {
    // Few members (≤ 10 or so): quadratic counting beats a map and keeps the order explicit.
    let mut best: Option<(usize, f64)> = None;
    for (i, a) in answers.iter().enumerate() {
        if answers[..i].iter().any(|b| b.mv == a.mv) {
            continue; // this move was counted at its first (lowest-numbered) voter
        }
        let weight: f64 = answers
            .iter()
            .filter(|b| b.mv == a.mv)
            .map(|b| b.weight)
            .sum();
        // Strictly greater: on a tie the earlier (lower-numbered) move keeps the lead.
        if best.is_none_or(|(_, w)| weight > w + 1e-9) {
            best = Some((i, weight));
        }
    }
    let (chosen, weight) = best.expect("majority needs at least one answer");
    let voters = answers
        .iter()
        .filter(|b| b.mv == answers[chosen].mv)
        .count();
    Decision {
        chosen,
        reason: format!("{} of {} votes (weight {weight})", voters, answers.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::policy::testutil::ans;

    fn pick(moves: &[&str]) -> usize {
        let answers: Vec<_> = moves
            .iter()
            .enumerate()
            .map(|(i, m)| ans(i as u32 + 1, m, None, None))
            .collect();
        majority(&answers).chosen
    }

    #[test]
    fn three_members_follow_the_reference() {
        assert_eq!(pick(&["7g7f", "7g7f", "7g7f"]), 0); // 3-0
        assert_eq!(pick(&["2g2f", "7g7f", "7g7f"]), 1); // 2-1: lowest voter of the majority
        assert_eq!(pick(&["7g7f", "2g2f", "7g7f"]), 0);
        assert_eq!(pick(&["7g7f", "2g2f", "5g5f"]), 0); // 1-1-1: engine 1
    }

    #[test]
    fn plurality_over_more_members_with_ties_to_the_lowest() {
        assert_eq!(pick(&["a", "b", "b", "c", "c", "c"]), 3);
        assert_eq!(pick(&["a", "b", "b", "a"]), 0); // 2-2: move of engine 1
        assert_eq!(pick(&["a", "b", "c", "b", "c"]), 1); // 1-2-2: b is proposed first
    }

    #[test]
    fn weights_can_outvote_numbers() {
        let mut answers = vec![
            ans(1, "7g7f", None, None),
            ans(2, "2g2f", None, None),
            ans(3, "2g2f", None, None),
        ];
        answers[0].weight = 2.5;
        assert_eq!(majority(&answers).chosen, 0);
        answers[0].weight = 2.0; // 2.0 vs 2.0: tie goes to the lower number
        assert_eq!(majority(&answers).chosen, 0);
        answers[0].weight = 1.5;
        assert_eq!(majority(&answers).chosen, 1);
    }
}
