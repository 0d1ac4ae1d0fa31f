//! The search over small hand-made AND/OR graphs: df-pn, repetition and shortest-mate logic
//! checked without any shogi rules. Node 0 is the root (an OR node); OR and AND alternate.

use std::sync::atomic::AtomicBool;

use super::board::MateBoard;
use super::solver::{solve, MateMode, MateOutcome, SolveLimits};
use super::tt::MateTable;
use crate::shogi::{Hand, PieceKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct To(pub(super) usize);

impl std::fmt::Display for To {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "n{}", self.0)
    }
}

pub(super) struct Graph {
    edges: Vec<Vec<usize>>,
    stack: Vec<usize>,
}

impl Graph {
    pub(super) fn new(edges: &[&[usize]]) -> Graph {
        Graph {
            edges: edges.iter().map(|e| e.to_vec()).collect(),
            stack: vec![0],
        }
    }
    fn here(&self) -> usize {
        *self.stack.last().unwrap()
    }
}

impl MateBoard for Graph {
    type Move = To;
    fn board_key(&self) -> u64 {
        (self.here() as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
    fn attacker_hand(&self) -> Hand {
        Hand::EMPTY
    }
    fn defender_hand(&self) -> Hand {
        Hand::EMPTY
    }
    fn generate_or_moves(&mut self, out: &mut Vec<To>) {
        out.extend(self.edges[self.here()].iter().map(|&n| To(n)));
    }
    fn generate_and_moves(&mut self, out: &mut Vec<To>) {
        out.extend(self.edges[self.here()].iter().map(|&n| To(n)));
    }
    fn do_move(&mut self, m: To) {
        self.stack.push(m.0);
    }
    fn undo_move(&mut self, m: To) {
        assert_eq!(self.stack.pop(), Some(m.0));
    }
    fn dropped_kind(&self, _: To) -> Option<PieceKind> {
        None
    }
    fn captured_kind(&self, _: To) -> Option<PieceKind> {
        None
    }
    fn check_is_blockable(&self) -> bool {
        false
    }
    fn in_check(&self) -> bool {
        self.stack.len() % 2 == 0
    }
}

/// Solve the graph, with and without the double-count correction; both must agree.
fn run(edges: &[&[usize]], mode: MateMode) -> MateOutcome<To> {
    let solve_with = |double_count: bool| {
        let mut g = Graph::new(edges);
        let mut tt = MateTable::with_parent_links(1, double_count);
        let stop = AtomicBool::new(false);
        let limits = SolveLimits {
            deadline: None,
            stop: &stop,
            mode,
            double_count,
            max_nodes: None,
        };
        let (outcome, _) = solve(&mut g, &mut tt, &limits, None);
        assert_eq!(g.stack, vec![0], "the board is restored");
        outcome
    };
    let outcome = solve_with(false);
    assert_eq!(
        solve_with(true),
        outcome,
        "double-count correction changed the answer"
    );
    outcome
}

fn line(moves: &[usize]) -> Vec<To> {
    moves.iter().map(|&n| To(n)).collect()
}

#[test]
fn mate_in_one_and_no_checks() {
    // 0 (OR) -> 1 (AND, no replies: mate).
    assert_eq!(
        run(&[&[1], &[]], MateMode::Shortest),
        MateOutcome::Mate {
            moves: line(&[1]),
            minimal: true
        }
    );
    // 0 (OR) with no checks.
    assert_eq!(run(&[&[]], MateMode::Shortest), MateOutcome::NoMate);
}

#[test]
fn defender_escapes_through_one_reply() {
    // 0 -> 1 (AND) -> {2: OR with a mate, 3: OR without checks}.
    let g: &[&[usize]] = &[&[1], &[2, 3], &[4], &[], &[]];
    assert_eq!(run(g, MateMode::Shortest), MateOutcome::NoMate);
}

#[test]
fn shortest_mate_beats_the_first_found() {
    // Root checks: 1 leads to a 5-ply mate (tried first by df-pn: one reply), 5 to a 3-ply mate
    // behind two replies.
    // 0 -> 1 -> 2 -> 3 -> 4 -> 6(mate)
    // 0 -> 5 -> {7, 8}; 7 -> 9 (mate), 8 -> 9 (mate)
    let g: &[&[usize]] = &[
        &[1, 5], // 0 OR
        &[2],    // 1 AND
        &[3],    // 2 OR
        &[4],    // 3 AND
        &[6],    // 4 OR
        &[7, 8], // 5 AND
        &[],     // 6 AND: mate
        &[9],    // 7 OR
        &[9],    // 8 OR
        &[],     // 9 AND: mate
    ];
    match run(g, MateMode::Shortest) {
        MateOutcome::Mate { moves, minimal } => {
            assert!(minimal);
            assert_eq!(moves.len(), 3);
            assert_eq!(moves[0], To(5));
        }
        other => panic!("expected a mate, got {other:?}"),
    }
}

#[test]
fn defender_picks_the_longest_reply() {
    // 0 -> 1 (AND) -> {2: mate in 1, 3: mate in 3}; the PV must take the long reply.
    let g: &[&[usize]] = &[
        &[1],    // 0 OR
        &[2, 3], // 1 AND
        &[4],    // 2 OR -> 4 mate
        &[5],    // 3 OR
        &[],     // 4 AND mate
        &[6],    // 5 AND
        &[7],    // 6 OR
        &[],     // 7 AND mate
    ];
    assert_eq!(
        run(g, MateMode::Shortest),
        MateOutcome::Mate {
            moves: line(&[1, 3, 5, 6, 7]),
            minimal: true
        }
    );
}

#[test]
fn repetition_is_a_failure_for_the_attacker() {
    // 0 -> 1 (AND) -> 0 only: a perpetual check, not a mate.
    assert_eq!(run(&[&[1], &[0]], MateMode::Shortest), MateOutcome::NoMate);
    // A longer cycle: 0 -> 1 -> {2, 4}; the defender answers 2, and 2 -> 3 -> 2 repeats.
    let g: &[&[usize]] = &[
        &[1],    // 0 OR
        &[2, 4], // 1 AND
        &[3],    // 2 OR
        &[2, 5], // 3 AND: going back to 2 repeats, which refutes the check 2 -> 3
        &[7],    // 4 OR
        &[6],    // 5 OR
        &[],     // 6 AND: mate
        &[0],    // 7 AND: back to the root
    ];
    assert_eq!(run(g, MateMode::Shortest), MateOutcome::NoMate);
}

#[test]
fn a_repetition_disproof_is_not_reused_on_another_path() {
    // The graph-history interaction (GHI) trap. Node 5 (OR) has one check, 6, whose only reply
    // goes to 2. Searched below 2 (path 0-1-2-4-5-6), that reply repeats 2 and 5 fails; reached
    // via 3 (path 0-1-3-7-5-6), the reply 2 is fresh and 2 mates via 8-9-10. Reusing the first
    // failure would make 3 look like a refutation and the root a "nomate".
    let g: &[&[usize]] = &[
        &[1],    // 0 OR
        &[2, 3], // 1 AND
        &[4, 8], // 2 OR: 4 leads into the cycle, 8 mates
        &[7],    // 3 OR
        &[5],    // 4 AND
        &[6],    // 5 OR
        &[2],    // 6 AND
        &[5],    // 7 AND
        &[9],    // 8 AND
        &[10],   // 9 OR
        &[],     // 10 AND: mate
    ];
    assert_eq!(
        run(g, MateMode::Shortest),
        MateOutcome::Mate {
            moves: line(&[1, 3, 7, 5, 6, 2, 8, 9, 10]),
            minimal: true
        }
    );
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    // A forced mate of 3001 plies: OR i -> AND i+1 -> OR i+2 ... the last AND has no replies.
    let n = 3002;
    let edges: Vec<Vec<usize>> = (0..n)
        .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
        .collect();
    let refs: Vec<&[usize]> = edges.iter().map(|e| e.as_slice()).collect();
    match run(&refs, MateMode::Shortest) {
        MateOutcome::Mate { moves, minimal } => {
            assert!(minimal);
            assert_eq!(moves.len(), n - 1);
        }
        other => panic!("expected a mate, got {other:?}"),
    }
}
