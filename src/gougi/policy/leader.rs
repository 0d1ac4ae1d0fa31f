//! `leader` (リーダー合議): the leader plays its own move unless another member's move is better
//! by the leader's own judgment, or another member has a verified mate.
//!
//! A rule for members of different strength that cannot be much worse than its strongest one
//! (the leader, the lowest-numbered normal member: `Engine1`). Plurality and optimism let a
//! weaker member overrule the leader on its own say-so; here a weaker member only *proposes*:
//!
//! 1. A member's winning mate that survived verification (`G_MateVerifyMs`: the score of an
//!    unconfirmed claim is dropped before any policy sees it) is played when the leader has no
//!    mate as short — a proven mate cannot be a worse move.
//! 2. Otherwise, every move proposed by another member and not by the leader is a candidate.
//!    With none, the leader's move is played at once.
//! 3. The leader re-searches its own move and each candidate for `G_LeaderNodes` nodes (the
//!    position after the move, so any USI engine can do it: no `searchmoves` needed); the value
//!    of a move is minus the reply's score, on the leader's calibrated scale. A candidate is
//!    played only when its value beats the own move's value, measured the same way, by more than
//!    `G_LeaderMargin`. Anything missing (a crash, a timeout, no score) keeps the leader's move.
//!
//! The functions here are pure; the coordinator (`coordinator/exchanges.rs`) runs the
//! re-searches.

pub use super::decision::LeaderFinding as Finding;
use super::decision::{Decision, Reason, Why};
use super::reason::Who;
use crate::gougi::answer::{Answer, Eval};

/// What the first phase decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase1 {
    /// Play this answer (index into the answers): no candidate, a verified mate, or no leader.
    Decided(Decision),
    /// Re-search the leader's move and these candidates: for each, the index of the first
    /// answer (lowest member number) that proposed it.
    Recheck {
        leader: usize,
        candidates: Vec<usize>,
    },
}

fn reason(finding: Finding, explain: bool) -> Reason {
    Reason {
        why: Why::Leader(finding),
        explain,
    }
}

fn is_move(a: &Answer) -> bool {
    !a.is_resign() && !a.is_win()
}

/// The winning mate of an answer, as plies (shorter is better); `None` for anything else.
fn mate_plies(a: &Answer) -> Option<i32> {
    a.score
        .filter(|s| s.is_mate() && s.0 > 0)
        .map(|s| Eval::MATE - s.0)
}

/// The leader's choice without re-searches: the leader's answer (the first one, i.e. the
/// lowest member number — when `Engine1` is down the next member leads), unless another
/// member holds a strictly shorter verified mate. Used for the provisional relay and for
/// `G_Resign`. The leader's move is this type's obvious one: only a mate is explained.
pub fn keep(answers: &[Answer]) -> Decision {
    debug_assert!(!answers.is_empty());
    let leader = 0;
    let own = mate_plies(&answers[leader]);
    let best_mate = answers
        .iter()
        .enumerate()
        .filter(|(_, a)| is_move(a))
        .filter_map(|(k, a)| mate_plies(a).map(|p| (p, k)))
        .min();
    match best_mate {
        Some((p, k)) if k != leader && own.is_none_or(|o| p < o) => Decision {
            chosen: k,
            reason: reason(
                Finding::Mate {
                    who: Who::of(&answers[k]),
                    plies: p,
                    leader: Who::of(&answers[leader]),
                    leader_plies: own,
                },
                !answers[k].agrees_with(&answers[leader]),
            ),
        },
        _ => Decision {
            chosen: leader,
            reason: reason(Finding::Leader(Who::of(&answers[leader])), false),
        },
    }
}

/// The first phase: a verified mate or agreement decides; else the moves to re-search.
pub fn phase1(answers: &[Answer]) -> Phase1 {
    let d = keep(answers);
    let leader = &answers[0];
    if d.chosen != 0 || !is_move(leader) || mate_plies(leader).is_some() {
        // A mate (another member's, or the leader's own), or a leader that resigned or
        // declared (G_Resign and declarations are the coordinator's).
        return Phase1::Decided(d);
    }
    let mut candidates: Vec<usize> = Vec::new();
    for (k, a) in answers.iter().enumerate().skip(1) {
        if is_move(a)
            && !a.agrees_with(leader)
            && !candidates.iter().any(|&c| answers[c].agrees_with(a))
        {
            candidates.push(k);
        }
    }
    if candidates.is_empty() {
        Phase1::Decided(d)
    } else {
        Phase1::Recheck {
            leader: 0,
            candidates,
        }
    }
}

/// The second phase: `own` is the leader's value of its own move, `values` the values of the
/// candidates (answer index, value), all from the leader's re-searches on its calibrated scale.
/// The best candidate is played when it beats `own` by more than `margin`; ties go to the
/// earlier candidate (the lower member number). Playing a candidate is explained; keeping the
/// leader's move is not (the `[leader]` line shows the values).
pub fn phase2(
    answers: &[Answer],
    leader: usize,
    own: Option<i64>,
    values: &[(usize, Option<i64>)],
    margin: i64,
) -> Decision {
    let mut best: Option<(usize, i64)> = None;
    for &(k, v) in values {
        if let Some(v) = v {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((k, v));
            }
        }
    }
    let keep = |best: Option<(usize, i64)>| Decision {
        chosen: leader,
        reason: reason(
            Finding::Keeps {
                own,
                best: best.map(|(k, v)| (answers[k].best.token().to_string(), v)),
                margin,
            },
            false,
        ),
    };
    let Some(own) = own else {
        return keep(best);
    };
    match best {
        Some((k, v)) if v > own.saturating_add(margin) => Decision {
            chosen: k,
            reason: reason(
                Finding::Candidate {
                    leader: Who::of(&answers[leader]),
                    proposer: Who::of(&answers[k]),
                    value: v,
                    own_mv: answers[leader].best.token().to_string(),
                    own,
                    margin,
                },
                true,
            ),
        },
        _ => keep(best),
    }
}

/// The value of a move from the reply's score (the opponent's view after the move): its
/// negation, with mates kept as mates (being mated in k after the move is mating in k + 1).
pub fn value_of_reply(reply: Eval) -> i64 {
    if reply.is_mate() {
        let k = Eval::MATE - reply.0.abs();
        let mate = i64::from(Eval::MATE - (k + 1));
        if reply.0 > 0 {
            -mate
        } else {
            mate
        }
    } else {
        -i64::from(reply.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::policy::testutil::ans;

    #[test]
    fn agreement_and_lone_leader_decide_at_once() {
        let a = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "7g7f", Some(90), None),
        ];
        assert_eq!(
            phase1(&a),
            Phase1::Decided(Decision {
                chosen: 0,
                reason: reason(Finding::Leader(Who::of(&a[0])), false)
            })
        );
        let resigned = [ans(1, "7g7f", Some(50), None), ans(2, "resign", None, None)];
        assert!(matches!(phase1(&resigned), Phase1::Decided(d) if d.chosen == 0));
    }

    #[test]
    fn candidates_are_distinct_moves_of_other_members() {
        let a = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(90), None),
            ans(3, "2g2f", Some(10), None),
            ans(4, "5g5f", None, None),
        ];
        assert_eq!(
            phase1(&a),
            Phase1::Recheck {
                leader: 0,
                candidates: vec![1, 3]
            }
        );
    }

    #[test]
    fn a_verified_mate_wins_unless_the_leader_mates_as_fast() {
        let mate = |k| Some(Eval::MATE - k);
        let a = [
            ans(1, "7g7f", Some(500), None),
            ans(2, "G*5b", mate(3), None),
        ];
        assert!(matches!(phase1(&a), Phase1::Decided(d) if d.chosen == 1));
        let b = [ans(1, "7g7f", mate(3), None), ans(2, "G*5b", mate(3), None)];
        assert!(matches!(phase1(&b), Phase1::Decided(d) if d.chosen == 0));
        let c = [ans(1, "7g7f", mate(5), None), ans(2, "G*5b", mate(3), None)];
        assert!(matches!(phase1(&c), Phase1::Decided(d) if d.chosen == 1));
        // Being mated is not a mate to play.
        let d = [
            ans(1, "7g7f", Some(0), None),
            ans(2, "G*5b", Some(-(Eval::MATE - 3)), None),
        ];
        assert!(matches!(phase1(&d), Phase1::Recheck { .. }));
    }

    #[test]
    fn a_candidate_needs_to_beat_the_own_move_by_the_margin() {
        let a = [
            ans(1, "7g7f", Some(50), None),
            ans(2, "2g2f", Some(90), None),
            ans(3, "5g5f", Some(10), None),
        ];
        assert_eq!(phase2(&a, 0, Some(10), &[(1, Some(40))], 30).chosen, 0);
        assert_eq!(phase2(&a, 0, Some(10), &[(1, Some(41))], 30).chosen, 1);
        assert_eq!(
            phase2(&a, 0, Some(10), &[(1, Some(60)), (2, Some(61))], 30).chosen,
            2
        );
        assert_eq!(
            phase2(&a, 0, Some(10), &[(1, Some(61)), (2, Some(61))], 30).chosen,
            1
        );
        assert_eq!(phase2(&a, 0, None, &[(1, Some(900))], 30).chosen, 0);
        assert_eq!(phase2(&a, 0, Some(10), &[(1, None)], 30).chosen, 0);
        // Only playing a candidate is explained, with the values compared.
        let d = phase2(&a, 0, Some(10), &[(1, Some(41))], 30);
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "E2 (e2)'s move; the leader E1 (e1)'s re-search values it at 41, more than its own 7g7f at 10 + margin 30"
        );
        let d = phase2(&a, 0, Some(10), &[(1, Some(40))], 30);
        assert!(!d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "2g2f at 40 is not more than the own move's 10 + margin 30"
        );
    }

    #[test]
    fn reply_values_turn_mates_around() {
        assert_eq!(value_of_reply(Eval(-40)), 40);
        // The reply is mated in 2: the move mates in 3.
        assert_eq!(
            value_of_reply(Eval(-(Eval::MATE - 2))),
            i64::from(Eval::MATE - 3)
        );
        assert_eq!(
            value_of_reply(Eval(Eval::MATE - 4)),
            -i64::from(Eval::MATE - 5)
        );
    }
}
