//! Solving a rules-core position: the one path shared by `gougi mate` ([`super::usi`]) and
//! the in-process background solver ([`super::background`]).
//!
//! [`solve_position`] applies the `RootInCheck` rule, clears the table, runs the solver
//! ([`super::solver::solve`], on its large-stack thread) and checks any mate line with the
//! rules core before it leaves ([`super::problems::verify_mate_line`]): the solver builds its
//! lines from the core's generators, so a failure here is a solver bug, logged and answered as
//! a timeout rather than passed on as a mate.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::core_board::CoreBoard;
use super::problems::verify_mate_line;
use super::solver::{solve, MateMode, MateOutcome, SendReporter, SolveLimits, SolveStats};
use super::tt::MateTable;
use crate::shogi::types::Move;
use crate::shogi::Position;
use crate::usi::{Checkmate, UsiMove};

/// How to solve (the `gougi mate` options that shape a solve).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriveOptions {
    /// Shortest (proven minimal) or first mate.
    pub mode: MateMode,
    /// Answer "no mate" at once when the attacker is in check at the root (`RootInCheck
    /// nomate`); otherwise search on with the moves that evade and give check.
    pub root_in_check_nomate: bool,
    /// The double-count correction (needs a table with parent links).
    pub double_count: bool,
    /// A node budget for the solve (`go mate … nodes N`); `None`: time and `stop` only.
    pub max_nodes: Option<u64>,
}

impl Default for DriveOptions {
    fn default() -> Self {
        DriveOptions {
            mode: MateMode::Shortest,
            root_in_check_nomate: false,
            double_count: false,
            max_nodes: None,
        }
    }
}

/// Solve `pos` (its side to move is the attacker) in `table` (cleared first) until proven,
/// `deadline`, or `stop`. A returned mate line has been verified by the rules core.
pub fn solve_position(
    pos: &Position,
    table: &mut MateTable,
    deadline: Option<Instant>,
    stop: &AtomicBool,
    options: DriveOptions,
    report: Option<SendReporter<'_, Move>>,
) -> (MateOutcome<Move>, SolveStats) {
    if options.root_in_check_nomate && pos.in_check() {
        return (MateOutcome::NoMate, SolveStats::default());
    }
    table.clear();
    let limits = SolveLimits {
        deadline,
        stop,
        mode: options.mode,
        double_count: options.double_count,
        max_nodes: options.max_nodes,
    };
    let mut board = CoreBoard::new(pos.clone());
    let (outcome, stats) = solve(&mut board, table, &limits, report);
    if let MateOutcome::Mate { moves, .. } = &outcome {
        let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        if let Err(e) = verify_mate_line(pos, &text) {
            tracing::error!(
                sfen = pos.to_sfen(),
                line = text.join(" "),
                error = %e,
                "the mate solver's line is not a mate; answering timeout"
            );
            return (MateOutcome::Timeout, stats);
        }
    }
    (outcome, stats)
}

/// The USI `checkmate` answer for an outcome of [`solve_position`].
pub fn to_checkmate(outcome: &MateOutcome<Move>) -> Checkmate {
    match outcome {
        MateOutcome::Mate { moves, .. } => {
            let line: Result<Vec<UsiMove>, _> = moves
                .iter()
                .map(|m| UsiMove::parse(&m.to_string()))
                .collect();
            match line {
                Ok(line) if !line.is_empty() => Checkmate::Mate(line),
                // The core's move text is always USI; an empty line never leaves the solver.
                _ => Checkmate::Timeout,
            }
        }
        MateOutcome::NoMate => Checkmate::NoMate,
        MateOutcome::Timeout => Checkmate::Timeout,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mate_is_verified_and_converted() {
        let pos = Position::from_sfen("6Snl/5+Rg1k/6ppp/9/9/9/9/9/9 b r2b3g3s3n3l15p 1").unwrap();
        let mut table = MateTable::new(1);
        let stop = AtomicBool::new(false);
        let (outcome, _) =
            solve_position(&pos, &mut table, None, &stop, DriveOptions::default(), None);
        let Checkmate::Mate(line) = to_checkmate(&outcome) else {
            panic!("{outcome:?}");
        };
        let text: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        assert_eq!(text.len(), 3);
        assert_eq!(text[..2], ["4b3b", "N*2b"]);
        assert_eq!(verify_mate_line(&pos, &text), Ok(3));
    }

    #[test]
    fn a_node_budget_ends_the_solve_there_and_replays_the_same() {
        // nikami_kongo_shtsume.txt line 50, a 23-ply mate: 3,000 nodes are far too few.
        let pos =
            Position::from_sfen("7nl/3s1+Bsk1/9/6p1P/7pp/6N2/9/9/9 b 2Rb4g2s2n3l14p 1").unwrap();
        let stop = AtomicBool::new(false);
        let options = DriveOptions {
            max_nodes: Some(3_000),
            ..DriveOptions::default()
        };
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut table = MateTable::new(4);
            let (outcome, stats) = solve_position(&pos, &mut table, None, &stop, options, None);
            assert_eq!(outcome, MateOutcome::Timeout);
            // Stopped at the budget (the nodes in flight when it is due finish their step).
            assert!((3_000..3_100).contains(&stats.nodes), "{}", stats.nodes);
            runs.push(stats.nodes);
        }
        assert_eq!(runs[0], runs[1]);
    }

    #[test]
    fn root_in_check_nomate_answers_at_once() {
        // The side to move (the attacker) is in check (the position of tests/tsume.rs).
        let pos = Position::from_usi_position(
            "sfen k3l3R/p4s3/9/N8/4p4/4KBB2/9/1pp+l+l+l+n+n+n/+s+s+sggggr1 b 14p 1",
        )
        .unwrap();
        assert!(pos.in_check());
        let mut table = MateTable::new(1);
        let stop = AtomicBool::new(false);
        let options = DriveOptions {
            root_in_check_nomate: true,
            ..DriveOptions::default()
        };
        let (outcome, stats) = solve_position(&pos, &mut table, None, &stop, options, None);
        assert_eq!(outcome, MateOutcome::NoMate);
        assert_eq!(stats.nodes, 0);
        assert_eq!(to_checkmate(&MateOutcome::Timeout), Checkmate::Timeout);
    }
}
