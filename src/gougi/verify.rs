//! Verified mate claims: a member's `score mate +N` counts only after the built-in df-pn solver
//! has confirmed that the member's move forces mate.
//!
//! GougiShogi believed any mate a member announced, so one engine with a bug (or a different
//! repetition rule) could steer every mate-priority or optimistic decision. Here the claimed move
//! is played and every defence is searched by [`crate::mate`] within a small time slice
//! (`G_MateVerifyMs`, capped by the round's deadline):
//! - the move mates at once, or every reply leaves a proven mate → [`Claim::Confirmed`];
//! - some reply has no mate (proven) → [`Claim::Refuted`];
//! - the move gives no check (the solver reads check sequences only, so a quiet "hisshi" line
//!   cannot be proven), or time ran out → [`Claim::Unconfirmed`].
//!
//! The coordinator drops the score of a refuted or unconfirmed claim (the member's answer then
//! has no score, which every policy already treats as unknown) and says so once with
//! `info string`. Declining an unprovable true mate costs little: a member that really mates
//! keeps finding it, and the mate solver of the mate types proves it as soon as it is a
//! check sequence.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::mate::core_board::CoreBoard;
use crate::mate::{solve, MateMode, MateOutcome, MateTable, SolveLimits};
use crate::shogi::{Move, Position};

/// Table size for verifications, MiB: claims are short lines, and the table is kept between
/// rounds (entries stay valid across positions), so a small one suffices.
pub const VERIFY_TABLE_MB: usize = 16;

/// The verdict on one mate claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    Confirmed,
    /// Proven false: the reason names the saving reply.
    Refuted(String),
    /// Neither proven nor refuted in the slice.
    Unconfirmed(String),
}

/// Checks that `mv` (legal in `pos`) forces mate, spending at most `budget`.
pub fn verify_mate_claim(
    pos: &Position,
    mv: Move,
    budget: Duration,
    table: &mut MateTable,
) -> Claim {
    let deadline = Instant::now() + budget;
    let mut after = pos.clone();
    after.do_move(mv);
    let replies = after.legal_moves();
    if replies.is_empty() {
        // No legal reply is a loss in shogi (there is no stalemate).
        return Claim::Confirmed;
    }
    if !after.in_check() {
        return Claim::Unconfirmed(format!(
            "{mv} gives no check; only check sequences can be proven"
        ));
    }
    let stop = AtomicBool::new(false);
    for &reply in replies.iter() {
        let mut next = after.clone();
        next.do_move(reply);
        let mut board = CoreBoard::new(next);
        let limits = SolveLimits {
            deadline: Some(deadline),
            stop: &stop,
            mode: MateMode::First,
            double_count: false,
            max_nodes: None,
        };
        let (outcome, _) = solve(&mut board, table, &limits, None);
        match outcome {
            MateOutcome::Mate { .. } => {}
            MateOutcome::NoMate => {
                return Claim::Refuted(format!("after {mv} {reply} there is no mate"))
            }
            MateOutcome::Timeout => {
                return Claim::Unconfirmed(format!("not proven within {} ms", budget.as_millis()))
            }
        }
    }
    Claim::Confirmed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(sfen: &str, mv: &str, ms: u64) -> Claim {
        let pos = Position::from_usi_position(sfen).unwrap();
        let m = pos.parse_usi_move(mv).unwrap();
        let mut table = MateTable::new(4);
        verify_mate_claim(&pos, m, Duration::from_millis(ms), &mut table)
    }

    #[test]
    fn a_mate_in_one_is_confirmed() {
        assert_eq!(
            claim(
                "sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                "G*5b",
                1000
            ),
            Claim::Confirmed
        );
    }

    #[test]
    fn a_mate_in_three_is_confirmed_and_a_quiet_move_is_not() {
        // From tests/data/tsume/yaneuraou_mate_db_heads.txt: mate in 3 by 3c1c+.
        let sfen = "sfen 8l/8B/6R2/6Bk1/6r2/9/9/9/9 b 4g4s4n3l18p 1";
        assert_eq!(claim(sfen, "3c1c+", 3000), Claim::Confirmed);
        assert!(
            matches!(claim(sfen, "1b2a", 3000), Claim::Unconfirmed(ref r) if r.contains("no check")),
            "{:?}",
            claim(sfen, "1b2a", 3000)
        );
    }

    #[test]
    fn a_false_claim_is_refuted() {
        // A check the king simply walks away from.
        let sfen = "sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1";
        assert!(
            matches!(claim(sfen, "G*5b", 1000), Claim::Refuted(ref r) if r.starts_with("after G*5b")),
            "{:?}",
            claim(sfen, "G*5b", 1000)
        );
    }
}
