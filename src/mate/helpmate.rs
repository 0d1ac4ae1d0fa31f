//! Helpmates (協力詰め): both sides cooperate so that the attacker mates in the fewest plies.
//!
//! Rules (those of tsume shogi for the attacker, none for the defender): the side to move at
//! the root is the attacker; every attacker move gives check and is legal (no pawn-drop mate,
//! 打ち歩詰め, no nifu, …: the rules core's [`generate_checks`] already applies them); every
//! defender move is any legal move (the defender is always in check, so its legal moves are
//! its evasions); the line ends when the defender is checkmated; its length is odd. The answer
//! is a shortest such line.
//!
//! Why not the df-pn solver: a helpmate is an OR-OR tree (both sides pick), so proof and
//! disproof numbers carry no information about the defender's side and there is no "most
//! proving" defender move to follow. The search here is iterative deepening over the odd
//! lengths 1, 3, 5, … with a depth-first search bounded by the length, which finds a shortest
//! line first by construction.
//!
//! The table ([`HelpTable`]) is keyed by the full position key (board, hands, side to move) of
//! attacker-to-move positions and stores a proven lower bound on the helpmate length from
//! there: a node searched to `r` plies without success stores the least length its subtree
//! leaves possible (> `r`), so the next iteration skips it until the bound is reached, and the
//! root's bound tells the next length worth trying (lengths in between are skipped, not
//! searched again). A bound of [`INFINITE`] means no helpmate at any length: when every
//! branch ended because the attacker had no check left, the search proves "no helpmate" with
//! no cap at all. Otherwise the answer is "none within `max_plies`" (the `HelpmateMaxPly`
//! option of `gougi mate`).
//!
//! Repetition needs no handling: a shortest helpmate never repeats a position (cutting the
//! cycle out would leave a shorter line), so the bound of a position does not depend on the
//! path to it and the table is exact (up to 64-bit key collisions; every answered line is
//! verified by the rules core anyway). Hand dominance (優越関係) is not used: more attacker
//! pieces in hand mean fewer defender pieces, and a helpmate may need a defender drop.
//!
//! `stop`, the deadline and the node budget are polled every [`POLL_NODES`] nodes (a node is
//! one played move), well under a millisecond apart; an interrupted iteration stores nothing
//! for the nodes it leaves (their bounds would be unproven).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::shogi::types::Move;
use crate::shogi::{generate_checks, generate_legal, MoveList, Position};

/// A lower bound meaning "no helpmate at any length".
pub const INFINITE: u32 = u32::MAX;

/// The default cap on the helpmate length (plies) before answering "none within the cap".
pub const DEFAULT_MAX_PLIES: u32 = 31;

/// How often (nodes) the stop flag, the clock and the node budget are looked at.
const POLL_NODES: u64 = 256;

/// The least time between two progress reports at the end of a length.
const REPORT_GAP: Duration = Duration::from_millis(100);

/// The search runs on a thread of its own: a frame holds two move lists (2 KiB each), so
/// 1,000 plies take about 5 MiB.
const STACK_BYTES: usize = 64 << 20;

/// One table entry: a position key and the proven lower bound on its helpmate length.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// 0 = empty (every stored bound is at least 3).
    bound: u32,
}

const WAYS: usize = 4;

/// The transposition table: lower bounds on the helpmate length of attacker-to-move positions,
/// in 4-way buckets (one cache line each).
pub struct HelpTable {
    buckets: Vec<[Entry; WAYS]>,
    used: usize,
}

impl HelpTable {
    /// A table of about `mb` MiB (at least one bucket; `0` makes the smallest table).
    pub fn new(mb: usize) -> HelpTable {
        let n = (mb << 20) / std::mem::size_of::<[Entry; WAYS]>();
        HelpTable {
            buckets: vec![[Entry::default(); WAYS]; n.max(1)],
            used: 0,
        }
    }

    /// Its size in MiB as asked for (0 for the smallest table).
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<[Entry; WAYS]>()) >> 20
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        if self.used > 0 {
            self.buckets.fill([Entry::default(); WAYS]);
            self.used = 0;
        }
    }

    /// Entries in use, per mille (USI `hashfull`).
    pub fn hashfull(&self) -> u64 {
        (self.used as u64 * 1000 / (self.buckets.len() * WAYS) as u64).min(1000)
    }

    fn bucket(&self, key: u64) -> usize {
        // Multiply-shift: any bucket count, the key's high bits decide.
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    fn get(&self, key: u64) -> Option<u32> {
        let b = &self.buckets[self.bucket(key)];
        b.iter()
            .find(|e| e.bound != 0 && e.key == key)
            .map(|e| e.bound)
    }

    fn put(&mut self, key: u64, bound: u32) {
        let i = self.bucket(key);
        let b = &mut self.buckets[i];
        if let Some(e) = b.iter_mut().find(|e| e.bound != 0 && e.key == key) {
            e.bound = e.bound.max(bound);
            return;
        }
        // Replace the smallest bound: a larger one cost a deeper search to prove.
        let victim = b
            .iter_mut()
            .min_by_key(|e| e.bound)
            .expect("a bucket has entries");
        if victim.bound == 0 {
            self.used += 1;
        }
        *victim = Entry { key, bound };
    }
}

/// Limits of one solve.
pub struct HelpLimits<'a> {
    /// Give up (answer [`HelpOutcome::Timeout`]) at this instant.
    pub deadline: Option<Instant>,
    /// Give up when this becomes true.
    pub stop: &'a AtomicBool,
    /// The longest helpmate looked for (plies); longer ones are answered as none.
    pub max_plies: u32,
    /// Give up after about this many nodes.
    pub max_nodes: Option<u64>,
}

/// The result of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpOutcome {
    /// A shortest helpmate (attacker first, odd length, ending in checkmate).
    Mate(Vec<Move>),
    /// Proven: no helpmate of at most `max_plies` plies; `bound` is the proven lower bound on
    /// its length ([`INFINITE`]: none at any length).
    NoMate { bound: u32 },
    /// Stopped, out of time or out of nodes before an answer.
    Timeout,
}

/// Figures of a solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HelpStats {
    /// Moves played.
    pub nodes: u64,
    /// The last length searched in full (no helpmate that short), 0 if none.
    pub searched: u32,
    pub elapsed: Duration,
}

/// Progress for `info` lines: after each finished length, and about every second.
pub struct HelpProgress {
    /// The length being searched.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub hashfull: u64,
}

/// What a search call found.
enum Found {
    /// A helpmate within the budget; its moves are on `Searcher::line`, last move first.
    Mate,
    /// None within the budget; the proven lower bound (larger than the budget).
    Bound(u32),
    /// Interrupted: nothing is known.
    Abort,
}

struct Searcher<'a, 'r> {
    pos: Position,
    tt: &'a mut HelpTable,
    limits: &'a HelpLimits<'a>,
    start: Instant,
    nodes: u64,
    next_poll: u64,
    next_report: Instant,
    last_report: Option<Instant>,
    depth: u32,
    aborted: bool,
    /// The found line, built backwards while unwinding.
    line: Vec<Move>,
    report: Option<&'r mut (dyn FnMut(&HelpProgress) + Send)>,
}

impl Searcher<'_, '_> {
    /// Count a node; `true` when the search must end now.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
        }
        self.aborted
    }

    #[cold]
    fn poll(&mut self) {
        self.next_poll = self.nodes + POLL_NODES;
        let now = Instant::now();
        if self.limits.stop.load(Ordering::Relaxed)
            || self.limits.deadline.is_some_and(|d| now >= d)
            || self.limits.max_nodes.is_some_and(|n| self.nodes >= n)
        {
            self.aborted = true;
        }
        if now >= self.next_report {
            self.next_report = now + Duration::from_secs(1);
            self.report_progress(now);
        }
    }

    fn report_progress(&mut self, now: Instant) {
        self.last_report = Some(now);
        let progress = HelpProgress {
            depth: self.depth,
            nodes: self.nodes,
            elapsed_ms: now.duration_since(self.start).as_millis() as u64,
            hashfull: self.tt.hashfull(),
        };
        if let Some(report) = self.report.as_mut() {
            report(&progress);
        }
    }

    /// The attacker to move, `budget` (odd, ≥ 1) plies left: is there a helpmate within it?
    fn attacker(&mut self, budget: u32) -> Found {
        let key = self.pos.key();
        if let Some(bound) = self.tt.get(key) {
            if bound > budget {
                return Found::Bound(bound);
            }
        }
        let mut checks = MoveList::new();
        generate_checks(&self.pos, &mut checks);
        let mut best = INFINITE;
        for &m in checks.as_slice() {
            if self.tick() {
                return Found::Abort;
            }
            self.pos.do_move_gives_check(m, true);
            let child = if !self.pos.has_legal_move() {
                // Mate now: a check the defender cannot answer.
                self.pos.undo_move(m);
                self.line.push(m);
                return Found::Mate;
            } else if budget < 3 {
                // A check that does not mate needs a reply and another check at least.
                3
            } else {
                match self.defender(budget - 1) {
                    Found::Mate => {
                        self.pos.undo_move(m);
                        self.line.push(m);
                        return Found::Mate;
                    }
                    Found::Bound(b) => b.saturating_add(1),
                    Found::Abort => {
                        self.pos.undo_move(m);
                        return Found::Abort;
                    }
                }
            };
            self.pos.undo_move(m);
            best = best.min(child);
        }
        // Every check was tried: `best` (odd, > budget, or INFINITE when the attacker had no
        // check anywhere below) is proven for this position whatever the path to it.
        self.tt.put(key, best);
        Found::Bound(best)
    }

    /// The defender to move (in check, with a legal move), `budget` (even, ≥ 2) plies left.
    fn defender(&mut self, budget: u32) -> Found {
        let mut replies = MoveList::new();
        generate_legal(&self.pos, &mut replies);
        let mut best = INFINITE;
        for &m in replies.as_slice() {
            if self.tick() {
                return Found::Abort;
            }
            self.pos.do_move(m);
            let found = self.attacker(budget - 1);
            self.pos.undo_move(m);
            match found {
                Found::Mate => {
                    self.line.push(m);
                    return Found::Mate;
                }
                Found::Bound(b) => best = best.min(b.saturating_add(1)),
                Found::Abort => return Found::Abort,
            }
        }
        Found::Bound(best)
    }
}

/// Solve the helpmate of `pos` (its side to move is the attacker) in `table` (cleared first):
/// a shortest helpmate, "none within `limits.max_plies`" (or at any length), or a timeout.
/// Runs on a thread of its own with a large stack; `report` is called from it.
pub fn solve_helpmate(
    pos: &Position,
    table: &mut HelpTable,
    limits: &HelpLimits<'_>,
    report: Option<&mut (dyn FnMut(&HelpProgress) + Send)>,
) -> (HelpOutcome, HelpStats) {
    table.clear();
    let start = Instant::now();
    let pos = pos.clone();
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("helpmate".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut s = Searcher {
                    pos,
                    tt: table,
                    limits,
                    start,
                    nodes: 0,
                    next_poll: 0,
                    next_report: start + Duration::from_secs(1),
                    last_report: None,
                    depth: 1,
                    aborted: false,
                    line: Vec::new(),
                    report,
                };
                let mut searched = 0;
                let outcome = loop {
                    if s.depth > limits.max_plies {
                        break HelpOutcome::NoMate { bound: s.depth };
                    }
                    match s.attacker(s.depth) {
                        Found::Mate => {
                            s.line.reverse();
                            break HelpOutcome::Mate(std::mem::take(&mut s.line));
                        }
                        Found::Bound(b) => {
                            // One line per finished length, but not a flood of them when the
                            // lengths go by in microseconds (a cycle raises the bound by 2 each
                            // time).
                            let now = Instant::now();
                            if s.last_report.is_none_or(|t| now - t >= REPORT_GAP) {
                                s.report_progress(now);
                            }
                            if b == INFINITE {
                                searched = INFINITE;
                                break HelpOutcome::NoMate { bound: INFINITE };
                            }
                            searched = b - 2;
                            // The bound is proven: the lengths below it need no search.
                            s.depth = b;
                        }
                        Found::Abort => break HelpOutcome::Timeout,
                    }
                };
                let stats = HelpStats {
                    nodes: s.nodes,
                    searched,
                    elapsed: start.elapsed(),
                };
                (outcome, stats)
            });
        match handle {
            Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the helpmate search");
                (HelpOutcome::Timeout, HelpStats::default())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(sfen: &str, max_plies: u32) -> (HelpOutcome, HelpStats) {
        let pos = Position::from_sfen(sfen).unwrap();
        let stop = AtomicBool::new(false);
        let limits = HelpLimits {
            deadline: None,
            stop: &stop,
            max_plies,
            max_nodes: None,
        };
        solve_helpmate(&pos, &mut HelpTable::new(1), &limits, None)
    }

    #[test]
    fn the_table_keeps_the_largest_bound_and_replaces_the_smallest() {
        let mut t = HelpTable::new(0);
        assert_eq!(t.buckets.len(), 1);
        t.put(10, 3);
        t.put(10, 7);
        t.put(10, 5);
        assert_eq!(t.get(10), Some(7));
        for (k, b) in [(11, 9), (12, 11), (13, 13)] {
            t.put(k, b);
        }
        assert_eq!(t.hashfull(), 1000);
        t.put(14, 15);
        assert_eq!(t.get(10), None, "the smallest bound goes first");
        assert_eq!(t.get(14), Some(15));
        t.clear();
        assert_eq!(t.get(14), None);
        assert_eq!(t.hashfull(), 0);
    }

    #[test]
    fn no_check_at_all_is_no_helpmate_at_any_length() {
        // A lone defender king and an attacker with nothing: no check exists.
        let (outcome, _) = solve("4k4/9/9/9/9/9/9/9/4K4 b - 1", 31);
        assert_eq!(outcome, HelpOutcome::NoMate { bound: INFINITE });
    }

    #[test]
    fn a_stop_already_raised_is_a_timeout() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b G 1").unwrap();
        let stop = AtomicBool::new(true);
        let limits = HelpLimits {
            deadline: None,
            stop: &stop,
            max_plies: 31,
            max_nodes: None,
        };
        let (outcome, _) = solve_helpmate(&pos, &mut HelpTable::new(1), &limits, None);
        assert_eq!(outcome, HelpOutcome::Timeout);
    }
}
