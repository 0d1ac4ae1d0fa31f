//! Exchange (各々の最善手を交換して評価値の合計で判定（2者）).
//!
//! Two members search the position; if they agree, that move is played. Otherwise each member
//! searches the position after the *other* member's move, and each candidate move is rated by
//! the sum of both members' views of it: its proposer's own score plus the negated score of the
//! member that searched the reply. The higher sum wins; a tie goes to member 1.
//!
//! Fixes over the reference (GougiShogi §12.6): a missing score never enters the arithmetic
//! (a candidate without both views is rated by what is known, see [`phase2`]); when exactly one
//! member resigns, the other member's move is played instead of trusting the scores. A `win`
//! declaration is handled by the coordinator before any policy runs.

pub use super::decision::ExchangeFinding as Finding;
use super::decision::{Decision, Reason, Why};
use super::optimism::{self, Extreme};
use super::reason::{explain, Who};
use crate::gougi::answer::Answer;

/// What phase 1 decides.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase1 {
    /// Decided without the exchange.
    Decided(Decision),
    /// The members disagree: search the exchanged positions.
    Exchange,
}

fn decided(a: &[Answer; 2], chosen: usize, tied: bool, finding: Finding) -> Decision {
    Decision {
        chosen,
        reason: Reason {
            why: Why::Exchange(finding),
            explain: explain(a, chosen, tied),
        },
    }
}

/// Phase 1 over the two members' first answers (`a[0]` is member 1).
pub fn phase1(a: &[Answer; 2]) -> Phase1 {
    let (r0, r1) = (a[0].is_resign(), a[1].is_resign());
    if r0 != r1 {
        let chosen = if r0 { 1 } else { 0 };
        let finding = Finding::Resigned {
            resigned: Who::of(&a[1 - chosen]),
            plays: Who::of(&a[chosen]),
        };
        return Phase1::Decided(decided(a, chosen, false, finding));
    }
    if a[0].agrees_with(&a[1]) {
        // Same move (or both resign): keep the reference's choice of whose line is relayed —
        // member 1 only when its score is strictly higher.
        let chosen = match (a[0].score, a[1].score) {
            (Some(s0), Some(s1)) if s0 > s1 => 0,
            (Some(_), None) => 0,
            _ => 1,
        };
        return Phase1::Decided(decided(a, chosen, false, Finding::Agree));
    }
    Phase1::Exchange
}

/// The members disagree but no time is left for phase 2 (a ponder round, a node-limited one,
/// a GUI `stop`): the higher score decides, as optimism does.
pub fn without_exchange(a: &[Answer; 2]) -> Decision {
    let d = optimism::by_score(a, Extreme::Highest);
    let Why::Extreme(inner) = d.reason.why else {
        unreachable!("optimism gives an Extreme finding")
    };
    Decision {
        chosen: d.chosen,
        reason: Reason {
            why: Why::Exchange(Finding::NoTime(inner)),
            explain: d.reason.explain,
        },
    }
}

/// Both members' views of one candidate move, from the side to move at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Views {
    /// Member 1's view.
    pub by1: Option<i64>,
    /// Member 2's view.
    pub by2: Option<i64>,
}

impl Views {
    fn sum(self) -> Option<i64> {
        Some(self.by1? + self.by2?)
    }

    /// The displayed average, truncated toward zero as in the reference.
    pub fn average(self) -> Option<i64> {
        self.sum().map(|s| s / 2)
    }
}

/// The views of both candidates after phase 2.
///
/// `first` are the phase-1 answers; `reply1` is member 1's score searching after member 2's
/// move (from the opponent's side), `reply2` member 2's score after member 1's move.
pub fn views(first: &[Answer; 2], reply1: Option<i64>, reply2: Option<i64>) -> [Views; 2] {
    let own = |i: usize| first[i].score.map(|s| i64::from(s.0));
    [
        // Member 1's move: its own score, and member 2's negated reply.
        Views {
            by1: own(0),
            by2: reply2.map(|v| -v),
        },
        // Member 2's move: member 1's negated reply, and member 2's own score.
        Views {
            by1: reply1.map(|v| -v),
            by2: own(1),
        },
    ]
}

/// Phase 2: the candidate with the higher sum of views wins (tie: member 1). When a sum is
/// missing, the candidates are compared by the views both have in common, then by the
/// proposers' own scores, then member 1 wins. `first` are the phase-1 answers (for the reason).
pub fn phase2(first: &[Answer; 2], v: &[Views; 2]) -> Decision {
    let moves = [
        first[0].best.token().to_string(),
        first[1].best.token().to_string(),
    ];
    let pick = |a: i64, b: i64| if a >= b { 0 } else { 1 };
    if let (Some(a), Some(b)) = (v[0].sum(), v[1].sum()) {
        let finding = Finding::Sums {
            moves,
            sums: [a, b],
        };
        return decided(first, pick(a, b), a == b, finding);
    }
    for (a, b, by) in [
        (v[0].by1, v[1].by1, 1),
        (v[0].by2, v[1].by2, 2),
        (v[0].by1, v[1].by2, 0),
    ] {
        if let (Some(a), Some(b)) = (a, b) {
            let finding = Finding::Partial {
                moves,
                by,
                values: [a, b],
            };
            return decided(first, pick(a, b), a == b, finding);
        }
    }
    let finding = Finding::NoViews {
        first: Who::of(&first[0]),
    };
    decided(first, 0, false, finding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::policy::testutil::ans;

    #[test]
    fn agreement_and_resignation_decide_in_phase_one() {
        let same = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "7g7f", Some(60), None),
        ];
        assert_eq!(
            phase1(&same),
            Phase1::Decided(Decision {
                chosen: 1,
                reason: Reason {
                    why: Why::Exchange(Finding::Agree),
                    explain: false
                }
            })
        );
        let same_hi1 = [
            ans(1, "7g7f", Some(70), None),
            ans(2, "7g7f", Some(60), None),
        ];
        assert!(matches!(
            phase1(&same_hi1),
            Phase1::Decided(Decision { chosen: 0, .. })
        ));
        let resign = [
            ans(1, "resign", Some(-3000), None),
            ans(2, "2g2f", Some(-5000), None),
        ];
        let Phase1::Decided(d) = phase1(&resign) else {
            panic!("one resignation decides")
        };
        assert_eq!((d.chosen, d.reason.explain), (1, true));
        assert_eq!(
            d.reason.to_string(),
            "E1 (e1) resigned; E2 (e2)'s move is played"
        );
        let differ = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(-8), None),
        ];
        assert_eq!(phase1(&differ), Phase1::Exchange);
    }

    #[test]
    fn the_reference_example() {
        // Member 1: 7g7f at +50; member 2: 2g2f at -8. After 2g2f member 1 (as white) says +40;
        // after 7g7f member 2 (as white) says +20. Reference output: 2g2f avg -24 (-40, -8),
        // 7g7f avg 15 (50, -20), and 7g7f wins.
        let first = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(-8), None),
        ];
        let v = views(&first, Some(40), Some(20));
        assert_eq!(
            v[0],
            Views {
                by1: Some(50),
                by2: Some(-20)
            }
        );
        assert_eq!(
            v[1],
            Views {
                by1: Some(-40),
                by2: Some(-8)
            }
        );
        assert_eq!(v[0].average(), Some(15));
        assert_eq!(v[1].average(), Some(-24));
        let d = phase2(&first, &v);
        assert_eq!(d.chosen, 0);
        // Member 1's move by the sums: the obvious one.
        assert!(!d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "its views sum to 30, those of 2g2f to -48"
        );
    }

    #[test]
    fn ties_go_to_member_one_and_missing_scores_are_guarded() {
        let first = [
            ans(1, "7g7f", Some(10), None),
            ans(2, "2g2f", Some(10), None),
        ];
        assert_eq!(
            phase2(&first, &views(&first, Some(-10), Some(-10))).chosen,
            0
        );
        // Member 2 never gave a reply score: compare by member 1's views (+10 vs +30).
        assert_eq!(phase2(&first, &views(&first, Some(-30), None)).chosen, 1);
        let d = phase2(&first, &views(&first, Some(-30), None));
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "a view is missing; by member 1's view: 30 against 10 for 7g7f"
        );
        let d = phase2(&first, &views(&first, Some(-10), Some(-10)));
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "the views of 7g7f and 2g2f both sum to 20; the tie goes to member 1"
        );
        let blind = [ans(1, "7g7f", None, None), ans(2, "2g2f", None, None)];
        assert_eq!(phase2(&blind, &views(&blind, None, None)).chosen, 0);
    }
}
