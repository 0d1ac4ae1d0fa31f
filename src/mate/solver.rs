//! The solver driver: first proof, shortest-mate re-searches, PV extraction.
//!
//! Shortest mate under plain minimax (every legal defence counted, futile interpositions
//! (無駄合) included): after the first proof of length `L`, the root is searched again with the
//! bound `L - 2` (mate lengths from an OR node are odd). A proof there gives a shorter `L`; a
//! disproof proves that no mate shorter than `L` exists. The PV is then read off without
//! recursion, one ply at a time: the attacker plays a check whose child has a mate within the
//! remaining length; the defender plays a reply whose child has no mate two plies shorter
//! (found in the table, or by a bounded search of each reply). So the PV has exactly the
//! proven minimal length. Among attacker moves of equal length, drops are preferred last and
//! captures first, which tends to leave the attacker fewer pieces in hand at the end
//! (駒余り avoided where lengths tie).
//!
//! The search runs on a thread with a large stack ([`STACK_BYTES`]) so that the 1,525-ply
//! problems do not overflow the native stack; the PV walk itself is a loop.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::board::MateBoard;
use super::pndn::{Len, LEN_INFINITE, LEN_UNBOUNDED, PN_INFINITE};
use super::search::{Dfpn, NodeResult, Progress};
use super::tt::MateTable;

/// Stack for the search thread: about 10 KiB per ply of depth is ample.
pub const STACK_BYTES: usize = 512 << 20;

/// First mate found, or the proven shortest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateMode {
    /// Report the first mate found (its PV still follows the table's best lengths).
    First,
    /// Prove the reported mate is of minimal length under plain minimax.
    Shortest,
}

/// What a solve returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateOutcome<M> {
    /// A mating line (attacker first, ending in checkmate). `minimal` says whether the
    /// shortest-mate proof completed.
    Mate { moves: Vec<M>, minimal: bool },
    /// No forced mate exists.
    NoMate,
    /// Out of time (or stopped) before anything was proven.
    Timeout,
}

impl<M> MateOutcome<M> {
    /// The same outcome with every move mapped (e.g. to USI text).
    pub fn map_moves<N>(self, f: impl FnMut(M) -> N) -> MateOutcome<N> {
        match self {
            MateOutcome::Mate { moves, minimal } => MateOutcome::Mate {
                moves: moves.into_iter().map(f).collect(),
                minimal,
            },
            MateOutcome::NoMate => MateOutcome::NoMate,
            MateOutcome::Timeout => MateOutcome::Timeout,
        }
    }
}

/// Limits for one solve.
pub struct SolveLimits<'a> {
    pub deadline: Option<Instant>,
    pub stop: &'a AtomicBool,
    pub mode: MateMode,
    /// Correct double counting in DAGs (see [`super::search`]); needs a table made with
    /// [`MateTable::with_parent_links`].
    pub double_count: bool,
}

/// Statistics of one solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveStats {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// The nodes the PV walk may spend after the deadline to turn a proof into a line.
const PV_GRACE_NODES: u64 = 2_000_000;

/// A progress callback that can move to the search thread.
pub type SendReporter<'a, M> = &'a mut (dyn FnMut(&Progress<'_, M>) + Send);

/// Solve `board` (the attacker to move) on a large-stack thread.
pub fn solve<B>(
    board: &mut B,
    tt: &mut MateTable,
    limits: &SolveLimits<'_>,
    report: Option<SendReporter<'_, B::Move>>,
) -> (MateOutcome<B::Move>, SolveStats)
where
    B: MateBoard + Send,
    B::Move: Send,
{
    let start = Instant::now();
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("mate-search".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, move || {
                let report = report.map(|f| f as &mut dyn FnMut(&Progress<'_, B::Move>));
                let mut dfpn = Dfpn::new(board, tt, limits.deadline, limits.stop, report);
                dfpn.double_count = limits.double_count && dfpn.tt.has_parent_links();
                let outcome = run(&mut dfpn, limits.mode);
                (outcome, dfpn.nodes)
            });
        match handle {
            Ok(h) => match h.join() {
                Ok((outcome, nodes)) => (
                    outcome,
                    SolveStats {
                        nodes,
                        elapsed: start.elapsed(),
                    },
                ),
                Err(_) => {
                    tracing::error!("mate search thread panicked");
                    (MateOutcome::Timeout, SolveStats::default())
                }
            },
            Err(e) => {
                tracing::error!(error = %e, "cannot start the mate search thread");
                (MateOutcome::Timeout, SolveStats::default())
            }
        }
    })
}

/// Search the current position (an OR node at `depth`) until resolved under `bound` or aborted.
fn resolve<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    or_node: bool,
    depth: u32,
    bound: Len,
) -> NodeResult {
    loop {
        let r = dfpn.search(or_node, depth, PN_INFINITE, PN_INFINITE, bound);
        if r.pn == 0 || r.dn == 0 || dfpn.aborted {
            return r;
        }
    }
}

fn run<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, mode: MateMode) -> MateOutcome<B::Move> {
    dfpn.push_path(1);
    let first = resolve(dfpn, true, 1, LEN_UNBOUNDED);
    if first.pn != 0 {
        dfpn.pop_path(1);
        // A disproof that leaned on the depth cap is not a proof of "no mate".
        return if first.dn == 0 && first.rep_depth == super::search::REP_NONE {
            MateOutcome::NoMate
        } else {
            MateOutcome::Timeout
        };
    }
    tracing::debug!(nodes = dfpn.nodes, upper = first.upper, "first proof");
    let mut len = first.upper;
    let mut minimal = false;
    if mode == MateMode::Shortest {
        loop {
            if len < 3 {
                minimal = true;
                break;
            }
            let before = dfpn.nodes;
            let r = resolve(dfpn, true, 1, len - 2);
            tracing::debug!(
                bound = len - 2,
                nodes = dfpn.nodes - before,
                proven = r.pn == 0,
                upper = r.upper,
                "shorter-mate search"
            );
            if r.pn == 0 {
                len = r.upper;
            } else if r.dn == 0 && r.rep_depth == super::search::REP_NONE {
                minimal = true;
                break;
            } else {
                break;
            }
        }
    }
    let before = dfpn.nodes;
    let line = extract_pv(dfpn, len, mode == MateMode::Shortest && minimal);
    tracing::debug!(nodes = dfpn.nodes - before, "pv extraction");
    dfpn.pop_path(1);
    match line {
        Some(moves) => MateOutcome::Mate { moves, minimal },
        None => MateOutcome::Timeout,
    }
}

/// Re-enable a search that ran out of time so the PV walk can finish, with a node budget.
fn grace<B: MateBoard>(dfpn: &mut Dfpn<'_, B>) {
    if dfpn.aborted {
        dfpn.enter_grace(PV_GRACE_NODES);
    }
}

/// Walk from the root (a proven OR node with a mate of length `len`) down to checkmate.
/// With `exact`, the defender's replies are chosen to keep the remaining length maximal, so
/// the line is a minimax-shortest mate of exactly `len` plies. Returns `None` if it cannot
/// finish (stopped with no grace left).
fn extract_pv<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, len: Len, exact: bool) -> Option<Vec<B::Move>> {
    grace(dfpn);
    let mut line: Vec<B::Move> = Vec::new();
    let mut remaining = len;
    let mut depth = 1;
    let mut ok = true;
    let mut moves = Vec::new();
    loop {
        // OR node: a check whose child is mated within `remaining - 1`.
        moves.clear();
        dfpn.board.generate_or_moves(&mut moves);
        let Some((mv, child_len)) = pick_attacker_move(dfpn, &moves, remaining, depth) else {
            ok = false;
            break;
        };
        dfpn.board.do_move(mv);
        line.push(mv);
        depth += 1;
        dfpn.push_path(depth);
        dfpn.push_line(mv);
        remaining = child_len;

        // AND node.
        moves.clear();
        dfpn.board.generate_and_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let Some((reply, child_len)) = pick_defender_move(dfpn, &moves, remaining, depth, exact)
        else {
            ok = false;
            break;
        };
        dfpn.board.do_move(reply);
        line.push(reply);
        depth += 1;
        dfpn.push_path(depth);
        dfpn.push_line(reply);
        remaining = child_len;
    }
    // Restore the board.
    for (i, &m) in line.iter().enumerate().rev() {
        dfpn.pop_path(i as u32 + 2);
        dfpn.pop_line();
        dfpn.board.undo_move(m);
    }
    ok.then_some(line)
}

/// The proven length of the current node (the board is at the child) within `bound`,
/// searching if the table does not know it. `None` if not mated within `bound`.
fn child_upper<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    or_node: bool,
    depth: u32,
    bound: Len,
) -> Option<Len> {
    if dfpn.on_path().is_some() {
        return None;
    }
    let probe = dfpn
        .tt
        .probe(dfpn.board.board_key(), dfpn.board.attacker_hand());
    if probe.upper <= bound {
        return Some(probe.upper);
    }
    if probe.lower > bound {
        return None;
    }
    dfpn.push_path(depth);
    let r = resolve(dfpn, or_node, depth, bound);
    dfpn.pop_path(depth);
    if dfpn.aborted {
        grace(dfpn);
    }
    (r.pn == 0).then_some(r.upper)
}

fn pick_attacker_move<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    moves: &[B::Move],
    remaining: Len,
    depth: u32,
) -> Option<(B::Move, Len)> {
    if remaining == 0 || remaining == LEN_INFINITE {
        return None;
    }
    // First pass: what the table already knows; second pass: search.
    for search in [false, true] {
        let mut best: Option<(B::Move, Len, u8)> = None;
        for &m in moves {
            let tie = tie_rank(dfpn, m);
            dfpn.board.do_move(m);
            let upper = if search {
                child_upper(dfpn, false, depth + 1, remaining - 1)
            } else if dfpn.on_path().is_some() {
                None
            } else {
                let p = dfpn
                    .tt
                    .probe(dfpn.board.board_key(), dfpn.board.attacker_hand());
                (p.upper < remaining).then_some(p.upper)
            };
            dfpn.board.undo_move(m);
            if let Some(u) = upper {
                if best.is_none_or(|(_, bu, bt)| (u, tie) < (bu, bt)) {
                    best = Some((m, u, tie));
                }
            }
            if dfpn.aborted {
                return None;
            }
        }
        if let Some((m, u, _)) = best {
            return Some((m, u));
        }
    }
    None
}

/// Tie-break among attacker moves of equal length: captures, then board moves, then drops,
/// so the attacker tends to finish with fewer pieces left in hand.
fn tie_rank<B: MateBoard>(dfpn: &Dfpn<'_, B>, m: B::Move) -> u8 {
    if dfpn.board.captured_kind(m).is_some() {
        0
    } else if dfpn.board.dropped_kind(m).is_some() {
        2
    } else {
        1
    }
}

fn pick_defender_move<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    moves: &[B::Move],
    remaining: Len,
    depth: u32,
    exact: bool,
) -> Option<(B::Move, Len)> {
    if remaining == 0 || remaining == LEN_INFINITE {
        return None;
    }
    // Every reply must be mated within `remaining - 1`; record each one's proven length.
    let mut lengths = Vec::with_capacity(moves.len());
    for &m in moves {
        dfpn.board.do_move(m);
        let upper = child_upper(dfpn, true, depth + 1, remaining - 1);
        dfpn.board.undo_move(m);
        match upper {
            Some(u) => lengths.push(u),
            None => return None,
        }
    }
    let longest = moves
        .iter()
        .zip(&lengths)
        .max_by_key(|(_, &u)| u)
        .map(|(&m, &u)| (m, u))?;
    // Without the minimality proof, take the reply with the longest known mate. With it, a
    // long *known* mate is not enough (it is only an upper bound): the reply must be proven
    // to have no mate shorter than `remaining - 1`, or the line could shrink further down.
    if !exact || remaining < 3 {
        return Some(longest);
    }
    // Find a reply after which no mate shorter than `remaining - 1` exists.
    for &m in moves {
        dfpn.board.do_move(m);
        let probe = dfpn
            .tt
            .probe(dfpn.board.board_key(), dfpn.board.attacker_hand());
        // OR lengths are odd: no mate shorter than `remaining - 2` means none shorter than
        // `remaining - 1`.
        let known = probe.lower.saturating_add(2) >= remaining;
        dfpn.board.undo_move(m);
        if known {
            dfpn.board.do_move(m);
            let upper = child_upper(dfpn, true, depth + 1, remaining - 1);
            dfpn.board.undo_move(m);
            return upper.map(|u| (m, u));
        }
    }
    for &m in moves {
        dfpn.board.do_move(m);
        let shorter = child_upper(dfpn, true, depth + 1, remaining - 3);
        let upper = if shorter.is_none() && !dfpn.aborted {
            child_upper(dfpn, true, depth + 1, remaining - 1)
        } else {
            None
        };
        dfpn.board.undo_move(m);
        if let Some(u) = upper {
            return Some((m, u));
        }
        if dfpn.aborted {
            return None;
        }
    }
    Some(longest)
}
