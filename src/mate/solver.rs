//! The solver driver: first proof, shortest-mate re-searches, PV extraction.
//!
//! Shortest mate under plain minimax (every legal defence counted, futile interpositions
//! (無駄合) included): after the first proof of length `L`, the root is searched again with the
//! bound `L - 2` (mate lengths from an OR node are odd). A proof there gives a shorter `L`; a
//! disproof proves that no mate shorter than `L` exists. Before each such root search, the
//! line of length `L` is searched bottom-up, each attacker node of it for a mate two plies
//! shorter than its own proven length (`disprove_shorter_along`), which only warms the table:
//! the root's search needs all those disproofs and, top-down, paid for them several times
//! (寿: 17.6 M → 13.9 M nodes, BENCHMARKS.md). Each node of the line is searched as a root
//! of its own, without the line above it on the path, so that its disproof never depends on
//! a repetition with an ancestor and is always stored; a shorter mate found at a node brings
//! its new stretch of line into the same pass (ミクロコスモス: no shortest proof in 600 s
//! before, 74 s after). The PV is then read off without
//! recursion, one ply at a time: the attacker plays a check whose child has a mate within the
//! remaining length; the defender plays a reply whose child has no mate two plies shorter
//! (found in the table, or by a bounded search of each reply). So the PV has exactly the
//! proven minimal length. Among attacker moves of equal length, drops are preferred last and
//! captures first, which tends to leave the attacker fewer pieces in hand at the end
//! (駒余り avoided where lengths tie).
//!
//! `stop` and the deadline end every phase within a few milliseconds (the proof, the shortest-
//! mate re-searches and the walk all poll them through the search). So that an interrupted
//! solve still answers what it proved, each proof is at once turned into a line by a walk
//! that only reads the table (bounded work, no search); an interrupted re-search or walk
//! answers the latest such line, with `minimal` false unless its length was proven minimal.
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
    /// Out of time (or stopped) before a mate was proven and a line for it found.
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
    /// Stop after this many nodes (`go mate … nodes N`): a budget that, unlike the clock,
    /// gives the same answer on every run and machine.
    pub max_nodes: Option<u64>,
}

/// Statistics of one solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveStats {
    pub nodes: u64,
    pub elapsed: Duration,
}

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
                dfpn.set_max_nodes(limits.max_nodes);
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

/// How the line walk may learn what the table does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// Read the table only, never search: bounded work (the line's length times the moves
    /// per node), so it is safe after `stop` and cheap enough to run after every proof.
    TableOnly,
    /// Search children the table does not settle (stopped by `stop` and the deadline).
    Search,
}

/// Record the start of a phase (debug log; the tests read the node counts).
fn phase<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, name: &'static str) {
    tracing::debug!(nodes = dfpn.nodes, phase = name, "mate solver phase");
    #[cfg(test)]
    {
        dfpn.phases.push((name, dfpn.nodes));
        if let Some(hook) = dfpn.on_phase.as_mut() {
            hook(name, dfpn.tt);
        }
    }
}

fn run<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, mode: MateMode) -> MateOutcome<B::Move> {
    dfpn.push_path(1);
    let outcome = run_phases(dfpn, mode);
    dfpn.pop_path(1);
    outcome
}

/// The phases of a solve. `stop` and the deadline are honoured in each (the search polls them,
/// see [`Dfpn`]); what was proven before them is still answered: after every proof, a line is
/// read off the table at once ([`Walk::TableOnly`], no search), and an interrupted
/// shortest-mate search or line walk answers that line (not proven minimal).
fn run_phases<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, mode: MateMode) -> MateOutcome<B::Move> {
    phase(dfpn, "proof");
    let first = resolve(dfpn, true, 1, LEN_UNBOUNDED);
    if first.pn != 0 {
        // A disproof that leaned on the depth cap is not a proof of "no mate".
        return if first.dn == 0 && first.rep_depth == super::search::REP_NONE {
            MateOutcome::NoMate
        } else {
            MateOutcome::Timeout
        };
    }
    tracing::debug!(nodes = dfpn.nodes, upper = first.upper, "first proof");
    let mut len = first.upper;
    let mut fallback = extract_pv(dfpn, len, false, Walk::TableOnly);
    tracing::debug!(found = fallback.is_some(), "line from the table");
    let mut minimal = false;
    if mode == MateMode::Shortest {
        phase(dfpn, "shorter");
        loop {
            if len < 3 {
                minimal = true;
                break;
            }
            let before = dfpn.nodes;
            if let Some(line) = fallback.as_ref().filter(|l| l.len() == len as usize) {
                disprove_shorter_along(dfpn, line);
            }
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
                if let Some(line) = extract_pv(dfpn, len, false, Walk::TableOnly) {
                    fallback = Some(line);
                }
            } else if r.dn == 0 && r.rep_depth == super::search::REP_NONE {
                minimal = true;
                break;
            } else {
                break;
            }
        }
    }
    phase(dfpn, "walk");
    let exact = mode == MateMode::Shortest && minimal;
    let line = if dfpn.aborted {
        None
    } else if !exact && fallback.as_ref().is_some_and(|l| l.len() == len as usize) {
        // The table-only walk already found a line of the proven length: the searching walk
        // would find the same one.
        fallback.take()
    } else {
        let before = dfpn.nodes;
        let line = extract_pv(dfpn, len, exact, Walk::Search);
        tracing::debug!(
            nodes = dfpn.nodes - before,
            found = line.is_some(),
            "pv extraction"
        );
        line
    };
    match line.or(fallback) {
        // A line of the proven minimal length is a shortest mate, whichever walk found it.
        Some(moves) => MateOutcome::Mate {
            minimal: minimal && moves.len() == len as usize,
            moves,
        },
        None => MateOutcome::Timeout,
    }
}

/// Before the root is searched for a mate shorter than `line`, search each attacker node of
/// the line for a mate two plies shorter than the table's proven length there, from the last
/// one back to the root's child nodes. Why: the root's search must disprove a shorter mate at
/// every one of these nodes anyway, and df-pn reaches them top-down, bouncing between the
/// line and its siblings (寿: the line's nodes were entered 10–19 times each, and the sibling
/// checks spent their effort before the deeper line nodes had a lower bound in the table that
/// their transpositions could use). Done bottom-up, each node's search finds the deeper ones
/// settled. Only the table is warmed: a node whose search proves a shorter mate stores it, the
/// new stretch below that node is read off the table and warmed in turn, and the root's own
/// search still decides. Stops at once on `stop` or the deadline (the board and path are
/// restored either way).
fn disprove_shorter_along<B: MateBoard>(dfpn: &mut Dfpn<'_, B>, line: &[B::Move]) {
    let before = dfpn.nodes;
    let mut line = line.to_vec();
    // Each node is searched as a root of its own: the line above it is not on the path. With
    // the ancestors there, a check that leads back up the line (the attacker undoing his last
    // check, the king walking back) failed as a repetition, which made the node's disproof
    // depend on the path, so it was not stored, and the node above searched it all again
    // (ミクロコスモス: the same 42 k–5 M nodes at every node of the line, BENCHMARKS.md).
    // Searched alone, a repetition can only close at the node or below it, so every disproof
    // here is stored; the way back up is searched like any other check, under its bound.
    dfpn.pop_path(1);
    loop {
        for &m in &line {
            dfpn.board.do_move(m);
            dfpn.push_line(m);
        }
        let mut shorter_at = None;
        for i in (0..line.len()).rev() {
            dfpn.pop_line();
            dfpn.board.undo_move(line[i]);
            // Attacker nodes only (even plies), and not the root: the caller searches it.
            if i % 2 == 1 || i == 0 || dfpn.aborted {
                continue;
            }
            let probe = dfpn
                .tt
                .probe(dfpn.board.board_key(), dfpn.board.attacker_hand());
            if probe.upper < 3 || probe.upper == LEN_INFINITE || probe.lower > probe.upper - 2 {
                continue;
            }
            let depth = i as u32 + 1;
            dfpn.push_path(depth);
            let r = resolve(dfpn, true, depth, probe.upper - 2);
            dfpn.pop_path(depth);
            if r.pn == 0 {
                shorter_at = Some((i, r.upper));
                break;
            }
        }
        let Some((i, upper)) = shorter_at else {
            break;
        };
        // A shorter mate at node `i`: the line below it changes. Read the new stretch off the
        // table and warm it too, from its end; the nodes already settled are skipped at the
        // cost of a probe, and the root's search then finds the whole line warm.
        tracing::debug!(ply = i, shorter = upper, "warm-up: shorter mate");
        let tail = extract_pv(dfpn, upper, false, Walk::TableOnly);
        for j in (0..i).rev() {
            dfpn.pop_line();
            dfpn.board.undo_move(line[j]);
        }
        match tail {
            Some(tail) if !dfpn.aborted => {
                line.truncate(i);
                line.extend(tail);
            }
            _ => break,
        }
    }
    dfpn.push_path(1);
    tracing::debug!(nodes = dfpn.nodes - before, "warm-up along the line");
}

/// Walk from the root (a proven OR node with a mate of length `len`) down to checkmate.
/// With `exact` (only with [`Walk::Search`]), the defender's replies are chosen to keep the
/// remaining length maximal, so the line is a minimax-shortest mate of exactly `len` plies.
/// Returns `None` if it cannot finish (stopped, or the table does not know enough under
/// [`Walk::TableOnly`]). A returned line ends in checkmate: every move comes from the board's
/// generators and the last position has no reply.
fn extract_pv<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    len: Len,
    exact: bool,
    walk: Walk,
) -> Option<Vec<B::Move>> {
    let exact = exact && walk == Walk::Search;
    let mut line: Vec<B::Move> = Vec::new();
    let mut remaining = len;
    let mut depth = 1;
    let mut ok = true;
    let mut moves = Vec::new();
    loop {
        // OR node: a check whose child is mated within `remaining - 1`.
        moves.clear();
        dfpn.board.generate_or_moves(&mut moves);
        let Some((mv, child_len)) = pick_attacker_move(dfpn, &moves, remaining, depth, walk) else {
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
        let Some((reply, child_len)) =
            pick_defender_move(dfpn, &moves, remaining, depth, exact, walk)
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
/// searching if the table does not know it and `walk` allows. `None` if not mated within
/// `bound`, or not known to be (no search allowed, or the search was stopped).
fn child_upper<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    or_node: bool,
    depth: u32,
    bound: Len,
    walk: Walk,
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
    if probe.lower > bound || walk == Walk::TableOnly || dfpn.aborted {
        return None;
    }
    dfpn.push_path(depth);
    let r = resolve(dfpn, or_node, depth, bound);
    dfpn.pop_path(depth);
    (r.pn == 0).then_some(r.upper)
}

fn pick_attacker_move<B: MateBoard>(
    dfpn: &mut Dfpn<'_, B>,
    moves: &[B::Move],
    remaining: Len,
    depth: u32,
    walk: Walk,
) -> Option<(B::Move, Len)> {
    if remaining == 0 || remaining == LEN_INFINITE {
        return None;
    }
    // First pass: what the table already knows; second pass (if allowed): search.
    let passes: &[bool] = match walk {
        Walk::TableOnly => &[false],
        Walk::Search => &[false, true],
    };
    for &search in passes {
        let mut best: Option<(B::Move, Len, u8)> = None;
        for &m in moves {
            let tie = tie_rank(dfpn, m);
            dfpn.board.do_move(m);
            let upper = if search {
                child_upper(dfpn, false, depth + 1, remaining - 1, walk)
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
            if search && dfpn.aborted {
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
    walk: Walk,
) -> Option<(B::Move, Len)> {
    if remaining == 0 || remaining == LEN_INFINITE {
        return None;
    }
    // Every reply must be mated within `remaining - 1`; record each one's proven length.
    let mut lengths = Vec::with_capacity(moves.len());
    for &m in moves {
        dfpn.board.do_move(m);
        let upper = child_upper(dfpn, true, depth + 1, remaining - 1, walk);
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
            let upper = child_upper(dfpn, true, depth + 1, remaining - 1, walk);
            dfpn.board.undo_move(m);
            return upper.map(|u| (m, u));
        }
    }
    for &m in moves {
        dfpn.board.do_move(m);
        let shorter = child_upper(dfpn, true, depth + 1, remaining - 3, walk);
        let upper = if shorter.is_none() && !dfpn.aborted {
            child_upper(dfpn, true, depth + 1, remaining - 1, walk)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::core_board::CoreBoard;
    use std::sync::atomic::Ordering;

    /// What one observed solve did.
    struct Observed {
        outcome: MateOutcome<String>,
        nodes: u64,
        phases: Vec<(&'static str, u64)>,
    }

    /// Solve `sfen` on a large-stack thread, raising `stop` when the search reaches node
    /// `trip` (if any), and clearing the table when the phase `clear_at` (if any) starts.
    fn observe(
        sfen: &str,
        mode: MateMode,
        trip: Option<u64>,
        clear_at: Option<&'static str>,
    ) -> Observed {
        let sfen = sfen.to_string();
        std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || {
                let pos = crate::shogi::Position::from_sfen(&sfen).unwrap();
                let mut board = CoreBoard::new(pos);
                let mut tt = MateTable::new(16);
                let stop = AtomicBool::new(false);
                let mut hook = |n: u64| {
                    if Some(n) == trip {
                        stop.store(true, Ordering::Relaxed);
                    }
                };
                let mut clear = |name: &'static str, tt: &mut MateTable| {
                    if Some(name) == clear_at {
                        tt.clear();
                    }
                };
                let mut dfpn = Dfpn::new(&mut board, &mut tt, None, &stop, None);
                dfpn.on_node = Some(&mut hook);
                dfpn.on_phase = Some(&mut clear);
                let outcome = run(&mut dfpn, mode).map_moves(|m| m.to_string());
                Observed {
                    outcome,
                    nodes: dfpn.nodes,
                    phases: std::mem::take(&mut dfpn.phases),
                }
            })
            .unwrap()
            .join()
            .unwrap()
    }

    /// The SFEN of the problem at `line_no` of `tests/data/tsume/<file>`.
    fn problem(file: &str, line_no: usize) -> String {
        let path = format!("{}/tests/data/tsume/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        crate::mate::problems::parse_problems(&text)
            .unwrap()
            .into_iter()
            .find(|p| p.line_no == line_no)
            .unwrap()
            .sfen
    }

    fn phase_start(o: &Observed, name: &str) -> u64 {
        o.phases.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// The most nodes the search may spend after `stop` is raised: the poll interval, plus
    /// the nodes an unwinding search still enters (one expansion per level, no more).
    const AFTER_STOP: u64 = 10_000;

    #[test]
    fn stop_during_the_shortest_mate_search_answers_the_first_line_at_once() {
        // 13 plies; the re-search "mate in <= 11" takes most of the solve (about 65,000 of
        // 70,000 nodes).
        let sfen = problem("tsumepara_kanna.txt", 94);
        let full = observe(&sfen, MateMode::Shortest, None, None);
        let (shorter, walk) = (phase_start(&full, "shorter"), phase_start(&full, "walk"));
        assert!(walk - shorter > 4 * AFTER_STOP, "{:?}", full.phases);
        let trip = (shorter + walk) / 2;
        let o = observe(&sfen, MateMode::Shortest, Some(trip), None);
        assert!(
            o.nodes - trip < AFTER_STOP,
            "{} nodes after the stop (phases {:?})",
            o.nodes - trip,
            o.phases
        );
        let MateOutcome::Mate { moves, minimal } = o.outcome else {
            panic!("a proven mate must still be answered: {:?}", o.outcome);
        };
        assert_eq!(
            crate::mate::problems::check_mate_line(&sfen, &moves),
            Ok(moves.len())
        );
        assert!(!minimal, "the minimality proof was interrupted");
    }

    #[test]
    fn stop_during_the_first_proof_is_a_timeout_at_once() {
        let sfen = problem("tsumepara_kanna.txt", 94);
        let full = observe(&sfen, MateMode::Shortest, None, None);
        let trip = phase_start(&full, "shorter") / 2;
        let o = observe(&sfen, MateMode::Shortest, Some(trip), None);
        assert!(o.nodes - trip < AFTER_STOP, "{}", o.nodes - trip);
        assert_eq!(o.outcome, MateOutcome::Timeout);
        assert_eq!(o.phases.len(), 1, "{:?}", o.phases);
    }

    #[test]
    fn stop_during_the_line_walk_answers_a_verified_line() {
        // 21 plies, minimality proven in about 340 k nodes; the exact walk then searches ten.
        // (tsumepara line 102 served until the line warm-up stored every disproof along the
        // line: its walk now reads everything from the table.)
        let sfen = problem("nikami_kongo_shtsume.txt", 48);
        let full = observe(&sfen, MateMode::Shortest, None, None);
        let walk = phase_start(&full, "walk");
        assert!(
            full.nodes > walk + 2,
            "the walk must search: {:?}",
            full.phases
        );
        let MateOutcome::Mate {
            moves,
            minimal: true,
        } = &full.outcome
        else {
            panic!("{:?}", full.outcome);
        };
        assert_eq!(moves.len(), 21);
        let trip = walk + 1;
        let o = observe(&sfen, MateMode::Shortest, Some(trip), None);
        assert!(o.nodes - trip < AFTER_STOP, "{}", o.nodes - trip);
        let MateOutcome::Mate { moves, .. } = o.outcome else {
            panic!("{:?}", o.outcome);
        };
        assert_eq!(
            crate::mate::problems::check_mate_line(&sfen, &moves),
            Ok(moves.len())
        );
    }

    #[test]
    fn stop_during_a_line_walk_that_must_search_again_answers_at_once() {
        // The table is cleared when the walk starts, as when a small table has lost the proof
        // to later searches: the walk must then prove its moves again (tens of thousands of
        // nodes), and `stop` must cut it short. The line read off the table after the proof
        // (before the loss) is the answer.
        let sfen = problem("tsumepara_kanna.txt", 94);
        let full = observe(&sfen, MateMode::Shortest, None, Some("walk"));
        let walk = phase_start(&full, "walk");
        assert!(
            full.nodes - walk > 4 * AFTER_STOP,
            "the walk must search again: {} nodes",
            full.nodes - walk
        );
        let MateOutcome::Mate {
            moves,
            minimal: true,
        } = &full.outcome
        else {
            panic!("{:?}", full.outcome);
        };
        let len = moves.len();
        for trip in [walk + 1, walk + (full.nodes - walk) / 2] {
            let o = observe(&sfen, MateMode::Shortest, Some(trip), Some("walk"));
            assert!(
                o.nodes - trip < AFTER_STOP,
                "{} nodes after the stop",
                o.nodes - trip
            );
            let MateOutcome::Mate { moves, minimal } = o.outcome else {
                panic!("{:?}", o.outcome);
            };
            assert_eq!(
                crate::mate::problems::check_mate_line(&sfen, &moves),
                Ok(moves.len())
            );
            assert_eq!(minimal, moves.len() == len);
        }
    }
}

#[cfg(test)]
mod disproof_hand_tests {
    use super::*;
    use crate::mate::board::MateBoard;
    use crate::mate::core_board::CoreBoard;
    use crate::mate::pndn::LEN_INFINITE;
    use crate::shogi::PieceKind;

    /// Disproof pieces (反証駒): with no check at all, the disproof holds for more pieces of a
    /// kind already in hand (more pawns drop on the same squares), but not for a kind not in
    /// hand (a knight could check from 2c).
    #[test]
    fn a_no_check_disproof_covers_more_of_the_kinds_in_hand_only() {
        let pos = crate::shogi::Position::from_sfen("7gk/7gp/9/9/9/9/9/9/9 b P 1").unwrap();
        let mut board = CoreBoard::new(pos);
        let mut tt = MateTable::new(1);
        let stop = AtomicBool::new(false);
        let limits = SolveLimits {
            deadline: None,
            stop: &stop,
            mode: MateMode::Shortest,
            double_count: false,
            max_nodes: None,
        };
        let (outcome, _) = solve(&mut board, &mut tt, &limits, None);
        assert!(matches!(outcome, MateOutcome::NoMate));
        let (key, hand) = (board.board_key(), board.attacker_hand());
        let mut pawns = hand;
        pawns.add(PieceKind::Pawn);
        pawns.add(PieceKind::Pawn);
        assert_eq!(tt.probe(key, pawns).lower, LEN_INFINITE);
        let mut knight = hand;
        knight.add(PieceKind::Knight);
        assert_eq!(tt.probe(key, knight).lower, 0);
    }
}
