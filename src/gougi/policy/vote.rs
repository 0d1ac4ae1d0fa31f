//! Majority vote (多数決合議).
//!
//! The reference accepts exactly three members: 3-0 and 2-1 take the majority, 1-1-1 takes
//! engine 1. gougi generalises this to a plurality over any number of members with optional
//! weights (Obata et al. 2010 showed the 3-member vote; weighted votes are a later refinement):
//! the move with the largest summed weight wins; among tied moves, the one proposed by the
//! lowest-numbered member wins; the answer returned is that move's lowest-numbered voter, so
//! its ponder move and PV go to the GUI. With three equal weights this is exactly the reference.

pub use super::decision::VoteFinding as Finding;
use super::decision::{Decision, Reason, Why};
use super::reason::{explain, outvoted, Who};
use crate::gougi::answer::{Answer, Eval};
use crate::usi::UsiMove;

/// Each distinct move at its first (lowest-numbered) proposer, with its summed weight.
fn tally(answers: &[Answer]) -> impl Iterator<Item = (usize, f64)> + '_ {
    // Few members (≤ 10 or so): quadratic counting beats a map and keeps the order explicit.
    answers.iter().enumerate().filter_map(move |(i, a)| {
        if answers[..i].iter().any(|b| b.agrees_with(a)) {
            return None; // this move was counted at its first (lowest-numbered) voter
        }
        let weight: f64 = answers
            .iter()
            .filter(|b| b.agrees_with(a))
            .map(|b| b.weight)
            .sum();
        Some((i, weight))
    })
}

pub fn majority(answers: &[Answer]) -> Decision {
    let mut best: Option<(usize, f64)> = None;
    for (i, weight) in tally(answers) {
        // Strictly greater: on a tie the earlier (lower-numbered) move keeps the lead.
        if best.is_none_or(|(_, w)| weight > w + 1e-9) {
            best = Some((i, weight));
        }
    }
    let (chosen, weight) = best.expect("majority needs at least one answer");
    let mv = |i: usize| answers[i].best.without_ponder();
    // Built at every relayed line (the provisional leader): no text is copied, and the list of
    // tied moves allocates only when there is a tie.
    let mut tied_with = Vec::new();
    let mut runner_up: Option<(usize, f64)> = None;
    for (i, w) in tally(answers).filter(|&(i, _)| i != chosen) {
        if (w - weight).abs() <= 1e-9 {
            tied_with.push(mv(i));
        } else if runner_up.is_none_or(|(_, r)| w > r) {
            runner_up = Some((i, w));
        }
    }
    let tied = !tied_with.is_empty();
    let finding = Finding {
        mv: mv(chosen),
        votes: weight,
        proposer: Who::of(&answers[chosen]),
        runner_up: if tied {
            None
        } else {
            runner_up.map(|(i, w)| (mv(i), w))
        },
        tied_with,
        outvoted: outvoted(answers, chosen),
    };
    Decision {
        chosen,
        reason: Reason {
            why: Why::Vote(finding),
            explain: explain(answers, chosen, tied),
        },
    }
}

/// One member's candidate list for `multipv-vote`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ballot {
    /// The member's weight (`Engine<N>.Weight`).
    pub weight: f64,
    /// Legal candidate moves, best first: the member's `bestmove`, then the heads of its other
    /// MultiPV lines in rank order, each with its calibrated score (if it gave one).
    pub candidates: Vec<(UsiMove, Option<Eval>)>,
}

/// How `multipv-vote` scores a candidate (`G_VoteScoring`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// The candidate's win rate (calibrated score, logistic), times the member's weight.
    WinRate,
    /// Borda count: with `k` candidates asked for, first place gets k points, second k − 1, …
    /// (times the weight); places beyond k get nothing.
    Borda { k: usize },
}

/// The winner of a MultiPV vote: which ballot proposed it at its best place, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct VoteWinner {
    pub ballot: usize,
    /// Index of the winner in that ballot's `candidates`.
    pub rank: usize,
    pub points: f64,
    /// The best other move's points (0 when there is none).
    pub runner_up: f64,
    pub reason: String,
}

impl Scoring {
    /// The most points one ballot of weight 1 can give a move: a win rate is at most 1, a
    /// Borda place at most k.
    pub fn max_points(self) -> f64 {
        match self {
            Scoring::WinRate => 1.0,
            Scoring::Borda { k } => k as f64,
        }
    }
}

/// MultiPV voting (gougi's `multipv-vote`): every member's candidate list is a ballot, each
/// candidate earns points by `scoring`, and the move with the most points over all ballots wins.
/// A move that several members consider good wins over one member's favourite, which a
/// plurality of `bestmove`s alone cannot see (three members can agree on a second choice while
/// each prefers a different first).
///
/// Win-rate points are capped at the member's own first choice's: a member ranks its `bestmove`
/// first, so a lower line (perhaps from an older, shallower iteration) may not count for more —
/// in particular a `mate` claim in a lower line counts only as much as the (verified) first
/// choice. Without a score the first choice counts 0.5 (no information), and so do the lower
/// lines of that member. Ties go to the move that appears first, reading ballots in member
/// order and each best first; the winner's ballot is the one that placed it highest (lower
/// member on equal places). `None` when no ballot has a candidate (every member resigned).
pub fn multipv_vote(ballots: &[Ballot], scoring: Scoring) -> Option<VoteWinner> {
    // Moves in order of first appearance: (move, points, voters, best ballot, best rank).
    let mut tally: Vec<(UsiMove, f64, usize, usize, usize)> = Vec::new();
    for (b, ballot) in ballots.iter().enumerate() {
        let first = ballot
            .candidates
            .first()
            .map_or(0.5, |(_, s)| s.map_or(0.5, Eval::win_rate));
        // Places count distinct moves: a repeated line does not push the later ones down.
        let mut place = 0;
        for (rank, (mv, score)) in ballot.candidates.iter().enumerate() {
            if ballot.candidates[..rank].iter().any(|(m, _)| m == mv) {
                continue; // a move counts once per ballot, at its best place
            }
            let points = ballot.weight
                * match scoring {
                    Scoring::WinRate if rank == 0 => first,
                    Scoring::WinRate => score.map_or(first, |s| s.win_rate().min(first)),
                    Scoring::Borda { k } => k.saturating_sub(place) as f64,
                };
            place += 1;
            match tally.iter_mut().find(|t| t.0 == *mv) {
                Some(t) => {
                    t.1 += points;
                    t.2 += 1;
                    if rank < t.4 {
                        (t.3, t.4) = (b, rank);
                    }
                }
                None => tally.push((*mv, points, 1, b, rank)),
            }
        }
    }
    let mut best: Option<&(UsiMove, f64, usize, usize, usize)> = None;
    for t in &tally {
        // Strictly greater (with a little slack for float sums): ties keep the earlier move.
        if best.is_none_or(|b| t.1 > b.1 + 1e-9) {
            best = Some(t);
        }
    }
    let &(best_mv, points, voters, ballot, rank) = best?;
    let runner_up = tally
        .iter()
        .filter(|t| t.0 != best_mv)
        .map(|t| t.1)
        .fold(0.0, f64::max);
    let what = match scoring {
        Scoring::WinRate => "win-rate points",
        Scoring::Borda { .. } => "Borda points",
    };
    Some(VoteWinner {
        ballot,
        rank,
        points,
        runner_up,
        reason: format!(
            "{points:.3} {what} from {voters} of {} lists",
            ballots.len()
        ),
    })
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
        assert_eq!(pick(&["7g7f", "2g2f", "2g2f", "5g5f", "5g5f", "5g5f"]), 3);
        assert_eq!(pick(&["7g7f", "2g2f", "2g2f", "7g7f"]), 0); // 2-2: move of engine 1
        assert_eq!(pick(&["7g7f", "2g2f", "5g5f", "2g2f", "5g5f"]), 1); // 1-2-2: b is proposed first
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

    #[test]
    fn reasons_say_ties_and_weights() {
        let answers = |moves: &[&str]| -> Vec<Answer> {
            moves
                .iter()
                .enumerate()
                .map(|(i, m)| ans(i as u32 + 1, m, None, None))
                .collect()
        };
        // 2-1: the plain rule's obvious move.
        let d = majority(&answers(&["2g2f", "7g7f", "7g7f"]));
        assert!(!d.reason.explain);
        assert_eq!(d.reason.to_string(), "7g7f has 2 votes to 1 for 2g2f");
        // 1-1-1 and 2-2: member order broke a tie.
        let d = majority(&answers(&["7g7f", "2g2f", "5g5f"]));
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "7g7f, 2g2f and 5g5f tie at 1 vote each; the tie goes to the lowest-numbered proposer, E1 (e1)"
        );
        let d = majority(&answers(&["2g2f", "7g7f", "7g7f", "2g2f"]));
        assert_eq!(
            d.reason.to_string(),
            "2g2f and 7g7f tie at 2 votes each; the tie goes to the lowest-numbered proposer, E1 (e1)"
        );
        // A weight outvoting the members' count.
        let mut w = answers(&["7g7f", "2g2f", "2g2f"]);
        w[0].weight = 2.5;
        let d = majority(&w);
        assert!(d.reason.explain);
        assert_eq!(
            d.reason.to_string(),
            "7g7f has 2.5 votes to 2 for 2g2f; 2 of 3 members proposed 2g2f"
        );
        // All agree.
        let d = majority(&answers(&["7g7f", "7g7f"]));
        assert!(!d.reason.explain);
        assert_eq!(d.reason.to_string(), "7g7f has 2 votes");
    }

    fn ballot(weight: f64, list: &[(&str, Option<i32>)]) -> Ballot {
        Ballot {
            weight,
            candidates: list
                .iter()
                .map(|(m, s)| (m.parse().expect("a USI move"), s.map(Eval)))
                .collect(),
        }
    }

    #[test]
    fn a_shared_second_choice_beats_split_first_choices() {
        // Each member prefers another move, but all three list 2g2f.
        let b = [
            ballot(1.0, &[("7g7f", Some(60)), ("2g2f", Some(50))]),
            ballot(1.0, &[("5g5f", Some(40)), ("2g2f", Some(30))]),
            ballot(1.0, &[("2g2f", Some(45)), ("7g7f", Some(20))]),
        ];
        let w = multipv_vote(&b, Scoring::WinRate).unwrap();
        assert_eq!((w.ballot, w.rank), (2, 0)); // member 3 placed it first
                                                // σ(50/600) + σ(30/600) + σ(45/600) = 0.52082 + 0.51250 + 0.51874
        assert_eq!(w.reason, "1.552 win-rate points from 3 of 3 lists");
        let w = multipv_vote(&b, Scoring::Borda { k: 2 }).unwrap();
        assert_eq!((w.ballot, w.rank), (2, 0));
        assert_eq!(w.points, 4.0); // 1 + 1 + 2 against 7g7f's 2 + 1
        assert_eq!(w.runner_up, 3.0);
        assert_eq!(w.reason, "4.000 Borda points from 3 of 3 lists");
    }

    #[test]
    fn lower_lines_count_at_most_as_much_as_the_first_choice() {
        // Member 2's second line claims a mate; it counts only as much as its first choice.
        let b = [
            ballot(1.0, &[("7g7f", Some(600))]),
            ballot(1.0, &[("2g2f", Some(0)), ("5g5f", Some(99_990))]),
        ];
        let w = multipv_vote(&b, Scoring::WinRate).unwrap();
        assert_eq!((w.ballot, w.rank), (0, 0));
        // A first choice without a score counts 0.5, and caps its lower lines there.
        let b = [
            ballot(1.0, &[("7g7f", Some(-600))]),
            ballot(1.0, &[("2g2f", None), ("7g7f", Some(900))]),
        ];
        let w = multipv_vote(&b, Scoring::WinRate).unwrap();
        assert_eq!((w.ballot, w.rank), (0, 0)); // 7g7f: 0.269 + 0.5 > 2g2f: 0.5
        assert!((w.points - 0.768_941).abs() < 1e-5);
    }

    #[test]
    fn weights_ties_repeats_and_empty_ballots() {
        let b = [
            ballot(1.0, &[("7g7f", Some(0))]),
            ballot(1.0, &[("2g2f", Some(0))]),
        ];
        // 0.5 against 0.5: the first move read wins.
        assert_eq!(multipv_vote(&b, Scoring::WinRate).unwrap().ballot, 0);
        let mut b = b;
        b[1].weight = 1.5;
        assert_eq!(multipv_vote(&b, Scoring::WinRate).unwrap().ballot, 1);
        // A move listed twice (lines of two iterations) counts once, at its better place.
        let b = [
            ballot(1.0, &[("7g7f", None), ("2g2f", None), ("7g7f", None)]),
            ballot(1.0, &[("2g2f", None), ("7g7f", None)]),
        ];
        let w = multipv_vote(&b, Scoring::Borda { k: 3 }).unwrap();
        assert_eq!((w.ballot, w.rank, w.points), (0, 0, 5.0)); // 3 + 2 against 2 + 3: first read
                                                               // Places are counted over distinct moves: c is third, not fourth.
        let b = [
            ballot(
                1.0,
                &[
                    ("7g7f", None),
                    ("7g7f", None),
                    ("2g2f", None),
                    ("5g5f", None),
                ],
            ),
            ballot(
                1.0,
                &[
                    ("6g6f", None),
                    ("1g1f", None),
                    ("9g9f", None),
                    ("3g3f", None),
                ],
            ),
            ballot(
                1.0,
                &[
                    ("5g5f", None),
                    ("4g4f", None),
                    ("8g8f", None),
                    ("5i5h", None),
                ],
            ),
        ];
        let w = multipv_vote(&b, Scoring::Borda { k: 3 }).unwrap();
        assert_eq!((w.ballot, w.rank, w.points), (2, 0, 4.0)); // 1 + 3 beats every 3
                                                               // Places beyond k earn nothing; no candidates at all is no winner.
        let b = [ballot(
            1.0,
            &[("7g7f", None), ("2g2f", None), ("5g5f", None)],
        )];
        assert_eq!(
            multipv_vote(&b, Scoring::Borda { k: 2 }).unwrap().points,
            2.0
        );
        assert_eq!(multipv_vote(&[ballot(1.0, &[])], Scoring::WinRate), None);
        assert_eq!(multipv_vote(&[], Scoring::Borda { k: 3 }), None);
    }
}
