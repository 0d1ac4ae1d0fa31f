//! Optimistic (楽観合議) and pessimistic (悲観合議) consultation, their alternation, and the
//! rise-based variants (2手前の評価値からの上昇分).
//!
//! Optimism over noisy evaluators is the rule Sugiyama et al. (2010) found worth about +70 Elo
//! with copies of one program. Members without a score are skipped; if none has one, engine 1
//! wins (the reference's rule). Rise rules compare `score − score 2 plies ago` per member and
//! skip members where either is missing — the reference did the same but without guarding the
//! arithmetic.

use super::decision::{Decision, Reason, Why};
pub use super::decision::{Extreme, Key, ScoreFinding as Finding};
use super::reason::{explain, outvoted, Who};
use crate::gougi::answer::{Answer, Eval};

/// Pick the answer whose `key` is most extreme; strict comparison so ties keep the lower number.
fn by_key(
    answers: &[Answer],
    extreme: Extreme,
    key: impl Fn(&Answer) -> Option<i64>,
    what: Key,
) -> Decision {
    let mut best: Option<(usize, i64)> = None;
    for (i, a) in answers.iter().enumerate() {
        let Some(k) = key(a) else { continue };
        if best.is_none_or(|(_, b)| extreme.better(k, b)) {
            best = Some((i, k));
        }
    }
    let chosen = best.map_or(0, |(i, _)| i);
    // A tie that member order broke: another move with the same value.
    let tied = best.is_some_and(|(i, b)| {
        answers
            .iter()
            .any(|a| key(a) == Some(b) && !a.agrees_with(&answers[i]))
    });
    // The reason is built at every relayed line (the provisional leader), so it copies no
    // text: names are shared, moves are `BestMove`s.
    let others = if best.is_some() {
        answers
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != chosen)
            .map(|(_, a)| (a.number, key(a)))
            .collect()
    } else {
        Vec::new()
    };
    let finding = Finding {
        extreme,
        key: what,
        chosen: best.map(|(i, k)| (Who::of(&answers[i]), k)),
        fallback: Who::of(&answers[chosen]),
        others,
        tied,
        outvoted: outvoted(answers, chosen),
        calibrated: answers.iter().any(|a| a.calibrated),
    };
    Decision {
        chosen,
        reason: Reason {
            why: Why::Extreme(finding),
            explain: explain(answers, chosen, tied),
        },
    }
}

/// Optimistic (`Highest`) or pessimistic (`Lowest`) on the members' scores.
pub fn by_score(answers: &[Answer], extreme: Extreme) -> Decision {
    by_key(
        answers,
        extreme,
        |a| a.score.map(|s| i64::from(s.0)),
        Key::Score,
    )
}

/// Weighted optimism (gougi's `weighted-optimistic`): the highest score after each member's win
/// odds are multiplied by its weight, i.e. `score + REF_SCALE × ln(weight)` on the calibrated
/// scale. Weight 1 everywhere is plain optimism; a member of weight 2 wins whenever its win-rate
/// estimate, at doubled odds, is the most hopeful. So optimism's gain over noisy members is
/// kept while a member known to be stronger (or better calibrated) is trusted more. Mates are
/// not shifted: a proven mate is not a matter of trust (and verified claims are all that reach
/// here).
pub fn by_weighted_score(answers: &[Answer]) -> Decision {
    by_key(
        answers,
        Extreme::Highest,
        |a| {
            let s = a.score?;
            if s.is_mate() || a.weight == 1.0 {
                return Some(i64::from(s.0));
            }
            Some(i64::from(s.0) + (Eval::REF_SCALE * a.weight.ln()).round() as i64)
        },
        Key::WeightedScore,
    )
}

/// Largest (`Highest`) or smallest (`Lowest`) rise since the member's previous decision.
pub fn by_rise(answers: &[Answer], extreme: Extreme) -> Decision {
    by_key(answers, extreme, Answer::rise, Key::Rise)
}

/// The state of `alternate` (楽観合議と悲観合議を交互): optimistic first, then turn by turn.
///
/// The reference never reset it, so a second game could start pessimistic; gougi resets it at
/// `usinewgame` (per-game state, fixing weakness §12.9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Alternation {
    decisions: u64,
}

impl Alternation {
    /// The rule for the next decision.
    pub fn current(&self) -> Extreme {
        if self.decisions % 2 == 0 {
            Extreme::Highest
        } else {
            Extreme::Lowest
        }
    }

    /// Call once per completed decision.
    pub fn advance(&mut self) {
        self.decisions += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::policy::testutil::ans;

    #[test]
    fn optimistic_and_pessimistic() {
        let a = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(120), None),
            ans(3, "5g5f", Some(-30), None),
        ];
        assert_eq!(by_score(&a, Extreme::Highest).chosen, 1);
        assert_eq!(by_score(&a, Extreme::Lowest).chosen, 2);
    }

    #[test]
    fn ties_go_to_the_lower_number_and_missing_scores_are_skipped() {
        let a = [
            ans(1, "7g7f", None, None),
            ans(2, "2g2f", Some(10), None),
            ans(3, "5g5f", Some(10), None),
        ];
        assert_eq!(by_score(&a, Extreme::Highest).chosen, 1);
        assert_eq!(by_score(&a, Extreme::Lowest).chosen, 1);
        let none = [ans(1, "7g7f", None, None), ans(2, "2g2f", None, None)];
        assert_eq!(by_score(&none, Extreme::Highest).chosen, 0);
    }

    #[test]
    fn mates_rank_beyond_every_cp_score() {
        use crate::gougi::answer::Eval;
        let a = [
            ans(1, "7g7f", Some(3000), None),
            ans(2, "2g2f", Some(Eval::from_mate(Some(5), true).0), None),
            ans(3, "5g5f", Some(Eval::from_mate(Some(3), true).0), None),
        ];
        assert_eq!(by_score(&a, Extreme::Highest).chosen, 2); // shorter mate first
        assert_eq!(by_score(&a, Extreme::Lowest).chosen, 0);
    }

    #[test]
    fn weights_scale_the_win_odds() {
        let mut a = [
            ans(1, "7g7f", Some(300), None),
            ans(2, "2g2f", Some(100), None),
            ans(3, "5g5f", None, None),
        ];
        assert_eq!(by_weighted_score(&a).chosen, 0); // equal weights: plain optimism
        a[1].weight = 2.0; // 100 + 600 ln 2 = 516 > 300
        assert_eq!(by_weighted_score(&a).chosen, 1);
        assert_eq!(
            by_weighted_score(&a).reason.to_string(),
            "E2 (e2) has the highest weighted score 516 (E1 300, E3 none)"
        );
        a[1].weight = 1.3; // 100 + 157 = 257 < 300
        assert_eq!(by_weighted_score(&a).chosen, 0);
        a[0].weight = 0.5; // 300 − 416 = −116 < 257
        assert_eq!(by_weighted_score(&a).chosen, 1);
        // Mates are not shifted: the shorter mate wins whatever the weights.
        let mut m = [
            ans(1, "7g7f", Some(Eval::from_mate(Some(7), true).0), None),
            ans(2, "2g2f", Some(Eval::from_mate(Some(5), true).0), None),
        ];
        m[1].weight = 0.5;
        assert_eq!(by_weighted_score(&m).chosen, 1);
    }

    #[test]
    fn rise_needs_both_scores() {
        let a = [
            ans(1, "7g7f", Some(100), None),     // no previous: skipped
            ans(2, "2g2f", Some(100), Some(90)), // +10
            ans(3, "5g5f", Some(0), Some(-50)),  // +50
            ans(4, "6g6f", Some(-20), Some(0)),  // -20
        ];
        assert_eq!(by_rise(&a, Extreme::Highest).chosen, 2);
        assert_eq!(by_rise(&a, Extreme::Lowest).chosen, 3);
        let fresh = [ans(1, "7g7f", Some(1), None), ans(2, "2g2f", Some(2), None)];
        assert_eq!(by_rise(&fresh, Extreme::Highest).chosen, 0);
    }

    #[test]
    fn reasons_are_explained_only_off_the_obvious_move() {
        // The move most members proposed, by score: nothing to explain.
        let a = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(30), None),
            ans(3, "2g2f", Some(10), None),
        ];
        let d = by_score(&a, Extreme::Lowest);
        assert!(!d.reason.explain);
        // The lone move by the highest score: explained, with the majority's move.
        let d = by_score(&a, Extreme::Highest);
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "E1 (e1) has the highest score 50 (E2 30, E3 10); 2 of 3 members proposed 2g2f"
        );
        // Two moves, one each: member 1's is obvious; member 2's by score is explained.
        let b = [
            ans(1, "7g7f", Some(20), None),
            ans(2, "2g2f", Some(90), None),
        ];
        assert!(!by_score(&b, Extreme::Lowest).reason.explain);
        let d = by_score(&b, Extreme::Highest);
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "E2 (e2) has the highest score 90 (E1 20)"
        );
        // A tie between different moves that member order broke is explained.
        let t = [
            ans(1, "7g7f", Some(40), None),
            ans(2, "2g2f", Some(40), None),
        ];
        let d = by_score(&t, Extreme::Highest);
        assert_eq!((d.chosen, d.reason.explain), (0, true));
        assert_eq!(
            d.reason.to_string(),
            "E1 (e1) has the highest score 40 (E2 40); the tie goes to the lower number"
        );
        // No values at all; mates are printed as mates; missing values as none.
        let n = [ans(1, "7g7f", None, None), ans(2, "2g2f", None, None)];
        let d = by_rise(&n, Extreme::Highest);
        assert_eq!(d.reason.to_string(), "no member has a rise: E1 (e1)'s move");
        assert!(!d.reason.explain);
        let m = [
            ans(1, "7g7f", None, None),
            ans(2, "2g2f", Some(Eval::MATE - 3), None),
        ];
        assert_eq!(
            by_score(&m, Extreme::Highest).reason.to_string(),
            "E2 (e2) has the highest score mate 3 (E1 none)"
        );
    }

    #[test]
    fn alternation_starts_optimistic() {
        let mut alt = Alternation::default();
        assert_eq!(alt.current(), Extreme::Highest);
        alt.advance();
        assert_eq!(alt.current(), Extreme::Lowest);
        alt.advance();
        assert_eq!(alt.current(), Extreme::Highest);
    }
}
