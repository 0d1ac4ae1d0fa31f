//! The alpha-beta search proper: iterative deepening, aspiration windows, principal
//! variation search (PVS) and quiescence, after Stockfish's `search.cpp` and YaneuraOu's
//! `yaneuraou-search.cpp` (which adapts it to shogi: 1-ply mate detection at nodes,
//! repetition (千日手) with perpetual check and superior/inferior positions, entering-king
//! declaration (入玉宣言)).
//!
//! One [`Worker`] per thread. Threads share only the transposition table and the
//! [`Control`] flags (lazy SMP: helpers run the same iterative deepening and cooperate
//! through the table). The main worker (id 0) watches the clock and prints `info` lines.
//!
//! Node functions are written as `// Step N.` blocks in Stockfish's order; `const PV: bool`
//! selects the PV-node variant at compile time. Each tuned constant is a field of
//! [`SearchParams`] (`params.rs`, with its origin), read where it is used; Stockfish's figures are in units where a pawn is about
//! 200, ours are where a pawn is 90 ([`crate::eval::PIECE_VALUE`]), and they are scaled
//! accordingly (×0.45) unless noted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::shogi::{Move, MoveList, PieceKind, Position, Repetition};

use super::history::{
    move_index, piece_index, stat_bonus, stat_malus, ButterflyHistory, CaptureHistory,
    ContinuationHistory,
};
use super::movepick::{Histories, MovePicker, PickerBuffers};
use super::params::SearchParams;
use super::see::see_ge;
use super::timeman::TimeBudget;
use super::tt::{Bound, TranspositionTable, DEPTH_OFFSET};
use super::value::{Value, MAX_PLY};
use crate::eval::{Evaluator, PIECE_VALUE};

/// Flags and clock shared by every worker of one search and by the USI front end.
pub struct Control {
    /// Set to end the search (by `stop`, the clock, or a node/depth limit).
    pub stop: AtomicBool,
    /// True while pondering (or `go infinite`): the clock does not stop the search, and the
    /// main worker holds its `bestmove` until `stop` or `ponderhit`.
    pub ponder: AtomicBool,
    /// Set by `ponderhit` when the search already wanted to stop while pondering.
    pub stop_on_ponderhit: AtomicBool,
    epoch: Instant,
    /// Start of thinking, ms since `epoch` (reset by `ponderhit`).
    start_ms: AtomicU64,
    /// The time budget, `u64::MAX` when there is none.
    optimum_ms: AtomicU64,
    maximum_ms: AtomicU64,
    /// Node counters, one per worker (published every few thousand nodes).
    nodes: Vec<AtomicU64>,
}

impl Control {
    pub fn new(threads: usize) -> Control {
        Control::starting_at(threads, Instant::now())
    }

    /// A control whose thinking clock started at `start`: `go` passes the moment it was read,
    /// so the time spent allocating tables and threads before the search counts against the
    /// budget (the GUI's clock was running then too).
    pub fn starting_at(threads: usize, start: Instant) -> Control {
        Control {
            stop: AtomicBool::new(false),
            ponder: AtomicBool::new(false),
            stop_on_ponderhit: AtomicBool::new(false),
            epoch: start,
            start_ms: AtomicU64::new(0),
            optimum_ms: AtomicU64::new(u64::MAX),
            maximum_ms: AtomicU64::new(u64::MAX),
            nodes: (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// Restarts the thinking clock now (start of `go`, or `ponderhit`).
    pub fn restart_clock(&self) {
        self.start_ms.store(self.now_ms(), Ordering::Relaxed);
    }

    /// Milliseconds since the thinking clock started.
    pub fn elapsed_ms(&self) -> u64 {
        self.now_ms()
            .saturating_sub(self.start_ms.load(Ordering::Relaxed))
    }

    /// Installs (or clears) the time budget.
    pub fn set_budget(&self, b: Option<TimeBudget>) {
        let (o, m) = b.map_or((u64::MAX, u64::MAX), |b| (b.optimum, b.maximum));
        self.optimum_ms.store(o, Ordering::Relaxed);
        self.maximum_ms.store(m, Ordering::Relaxed);
    }

    fn optimum(&self) -> Option<u64> {
        Some(self.optimum_ms.load(Ordering::Relaxed)).filter(|&v| v != u64::MAX)
    }

    fn maximum(&self) -> Option<u64> {
        Some(self.maximum_ms.load(Ordering::Relaxed)).filter(|&v| v != u64::MAX)
    }

    /// Total nodes searched by all workers (as last published).
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Limits that are not about the clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchLimits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub multipv: usize,
}

/// One root move with what the search learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: Value,
    pub previous_score: Value,
    /// The score as last reported (kept when a re-search leaves `score` at -INFINITE).
    pub uci_score: Value,
    pub lowerbound: bool,
    pub upperbound: bool,
    pub sel_depth: i32,
    pub pv: Vec<Move>,
}

impl RootMove {
    pub fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -Value::INFINITE,
            previous_score: -Value::INFINITE,
            uci_score: -Value::INFINITE,
            lowerbound: false,
            upperbound: false,
            sel_depth: 0,
            pv: vec![mv],
        }
    }
}

/// Where the main worker sends its `info` lines (the USI front end prints them).
pub type InfoSink = Arc<dyn Fn(&str) + Send + Sync>;

#[derive(Clone, Copy)]
struct Frame {
    current_move: Option<Move>,
    /// Continuation-history block of `current_move` (or the "none" block).
    cont_block: usize,
    killers: [Option<Move>; 2],
    static_eval: Value,
    move_count: i32,
    in_check: bool,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            current_move: None,
            cont_block: ContinuationHistory::NONE_BLOCK,
            killers: [None, None],
            static_eval: Value::NONE,
            move_count: 0,
            in_check: false,
        }
    }
}

/// Frames before ply 0 so that `ply - 4` is always a valid index.
const FRAME_OFFSET: usize = 4;
const PLY_CAP: usize = MAX_PLY as usize + 2;

/// How often (in nodes) the main worker looks at the clock and publishes its node count.
const CHECK_INTERVAL: u64 = 1024;

/// One search thread.
pub struct Worker<E: Evaluator> {
    pub id: usize,
    pos: Position,
    eval: E,
    tt: Arc<TranspositionTable>,
    ctl: Arc<Control>,
    limits: SearchLimits,
    main_history: ButterflyHistory,
    capture_history: CaptureHistory,
    cont_history: ContinuationHistory,
    frames: Vec<Frame>,
    pv: Vec<[Option<Move>; PLY_CAP]>,
    pv_len: Vec<usize>,
    reductions: Vec<i32>,
    /// The tunable constants (`T_…` options); `reductions` is made from them.
    params: SearchParams,
    pub root_moves: Vec<RootMove>,
    pv_idx: usize,
    root_depth: i32,
    pub completed_depth: i32,
    sel_depth: i32,
    nodes: u64,
    /// The node count at which the clock and the node limit are looked at next: every
    /// `CHECK_INTERVAL` nodes, sooner when a node limit is closer (so `go nodes 3000` stops at
    /// 3,000, not at 4,096).
    check_at: u64,
    best_move_changes: f64,
    info: Option<InfoSink>,
    /// Spare move buffers, so that nodes neither allocate nor clear 5 KB arrays.
    buf_pool: Vec<PickerBuffers>,
    /// Scratch list for the mate-in-one test (see [`PickerBuffers`] for why it is kept).
    mate_scratch: Box<MoveList>,
}

impl<E: Evaluator> Worker<E> {
    fn take_buffers(&mut self) -> PickerBuffers {
        self.buf_pool.pop().unwrap_or_default()
    }

    fn give_back(&mut self, picker: MovePicker) {
        self.buf_pool.push(picker.into_buffers());
    }

    pub fn new(
        id: usize,
        tt: Arc<TranspositionTable>,
        ctl: Arc<Control>,
        eval: E,
        pos: Position,
    ) -> Worker<E> {
        Worker {
            id,
            pos,
            eval,
            tt,
            ctl,
            limits: SearchLimits::default(),
            main_history: ButterflyHistory::new(),
            capture_history: CaptureHistory::new(),
            cont_history: ContinuationHistory::new(),
            frames: vec![Frame::default(); PLY_CAP + FRAME_OFFSET + 2],
            pv: vec![[None; PLY_CAP]; PLY_CAP + 1],
            pv_len: vec![0; PLY_CAP + 1],
            reductions: SearchParams::default().reduction_table(),
            params: SearchParams::default(),
            root_moves: Vec::new(),
            pv_idx: 0,
            root_depth: 0,
            completed_depth: 0,
            sel_depth: 0,
            nodes: 0,
            check_at: CHECK_INTERVAL,
            best_move_changes: 0.0,
            info: None,
            buf_pool: Vec::new(),
            mate_scratch: Box::default(),
        }
    }

    /// Installs tuned constants (the `T_…` options); the reduction table follows them.
    pub fn set_params(&mut self, params: SearchParams) {
        if params != self.params {
            self.reductions = params.reduction_table();
            self.params = params;
        }
    }

    /// Clears the move-ordering statistics (`usinewgame`).
    pub fn clear_history(&mut self) {
        self.main_history.clear();
        self.capture_history.clear();
        self.cont_history.clear();
    }

    /// Prepares a new search of `pos` with the given root moves.
    pub fn prepare(
        &mut self,
        pos: &Position,
        root_moves: Vec<RootMove>,
        limits: SearchLimits,
        ctl: Arc<Control>,
        info: Option<InfoSink>,
    ) {
        self.pos = pos.clone();
        self.eval.reset(&self.pos);
        self.root_moves = root_moves;
        self.limits = limits;
        self.ctl = ctl;
        self.info = info;
        self.nodes = 0;
        self.check_at = CHECK_INTERVAL;
        if let Some(n) = self.limits.nodes {
            // The main worker checks its own count until the limit (helpers every interval).
            self.check_at = self.check_at.min(n.max(1));
        }
        self.completed_depth = 0;
        self.sel_depth = 0;
        self.best_move_changes = 0.0;
        for f in &mut self.frames {
            *f = Frame::default();
        }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    #[inline]
    fn frame(&self, ply: i32) -> &Frame {
        &self.frames[(ply + FRAME_OFFSET as i32) as usize]
    }

    #[inline]
    fn frame_mut(&mut self, ply: i32) -> &mut Frame {
        &mut self.frames[(ply + FRAME_OFFSET as i32) as usize]
    }

    fn reduction(&self, improving: bool, depth: i32, move_count: i32) -> i32 {
        let r = self.reductions[depth.clamp(0, 255) as usize]
            * self.reductions[move_count.clamp(0, 255) as usize];
        // Stockfish 15: (r + 1463) / 1024, one more when not improving and r is large.
        (r + self.params.lmr_offset) / 1024
            + (!improving && r > self.params.lmr_nonimproving) as i32
    }

    fn publish_nodes(&self) {
        if let Some(n) = self.ctl.nodes.get(self.id) {
            n.store(self.nodes, Ordering::Relaxed);
        }
    }

    /// Looks at the clock and the node limit (main worker only).
    fn check_time(&mut self) {
        self.publish_nodes();
        self.check_at = self.nodes + CHECK_INTERVAL;
        if self.id != 0 {
            return;
        }
        if let Some(n) = self.limits.nodes {
            let total = self.ctl.total_nodes();
            if total >= n {
                self.ctl.stop.store(true, Ordering::Relaxed);
            } else {
                // Look again where the limit would be reached if this worker alone searched.
                self.check_at = self.check_at.min(self.nodes + (n - total));
            }
        }
        if self.ctl.ponder.load(Ordering::Relaxed) {
            return;
        }
        // Never stop before depth 1 is complete: a move must always be available.
        if self.completed_depth >= 1 {
            if let Some(max) = self.ctl.maximum() {
                if self.ctl.elapsed_ms() >= max {
                    self.ctl.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    fn histories(&self, ply: i32) -> Histories<'_> {
        Histories {
            main: &self.main_history,
            capture: &self.capture_history,
            cont: &self.cont_history,
            cont_blocks: [
                self.frame(ply - 1).cont_block,
                self.frame(ply - 2).cont_block,
                self.frame(ply - 4).cont_block,
            ],
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = Some(m);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Runs iterative deepening until a limit or `stop`. Returns when done; the best move is
    /// `root_moves[0]`.
    pub fn iterative_deepening(&mut self) {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY - 1)
            .clamp(1, MAX_PLY - 1);
        let multipv = self.limits.multipv.clamp(1, self.root_moves.len().max(1));
        let mut last_best: Option<Move> = None;
        let mut best_stable_iterations = 0;

        // Lazy SMP: odd helpers start one ply deeper so the threads do not march in lockstep.
        let mut depth = 1 + (self.id % 2) as i32;
        while depth <= max_depth && !self.ctl.is_stopped() {
            self.root_depth = depth;
            self.best_move_changes *= 0.5;
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
            }

            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.sel_depth = 0;
                // Step A. Aspiration window around the previous score (Stockfish: delta 10
                // with pawn ≈ 200 → ours 12, widened by a third on every failure).
                let prev = self.root_moves[pv_idx].previous_score;
                let (mut alpha, mut beta, mut delta) = if depth >= 4
                    && prev.0.abs() < Value::MATE_IN_MAX_PLY.0
                {
                    let d = self.params.aspiration_base + prev.0.abs() / self.params.aspiration_div;
                    (
                        Value((prev.0 - d).max(-Value::INFINITE.0)),
                        Value((prev.0 + d).min(Value::INFINITE.0)),
                        d,
                    )
                } else {
                    (-Value::INFINITE, Value::INFINITE, 0)
                };
                loop {
                    let v = self.search::<true>(0, alpha, beta, depth, false);
                    // Stable sort keeps the previous order among equal scores.
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.ctl.is_stopped() {
                        break;
                    }
                    if self.id == 0 && (v <= alpha || v >= beta) && self.ctl.elapsed_ms() > 3000 {
                        self.report(depth, multipv);
                    }
                    if v <= alpha {
                        beta = Value((alpha.0 + beta.0) / 2);
                        alpha = Value((v.0 - delta).max(-Value::INFINITE.0));
                    } else if v >= beta {
                        beta = Value((v.0 + delta).min(Value::INFINITE.0));
                    } else {
                        break;
                    }
                    delta += delta / 3 + 4;
                }
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.id == 0 && (self.ctl.is_stopped() || pv_idx + 1 == multipv) {
                    // A stopped iteration still reports what it has (its first move was
                    // searched fully or it is the previous best).
                    if !(self.ctl.is_stopped() && depth == 1) || self.completed_depth == 0 {
                        self.report(depth, multipv);
                    }
                }
            }
            if !self.ctl.is_stopped() {
                self.completed_depth = depth;
            }
            if self.id != 0 {
                depth += 1;
                continue;
            }

            // Step B. Stop conditions of the main worker.
            let best = &self.root_moves[0];
            if Some(best.mv) == last_best {
                best_stable_iterations += 1;
            } else {
                best_stable_iterations = 0;
            }
            last_best = Some(best.mv);
            // A mate found within the depth searched cannot get shorter.
            let mate_done = best.score.mate_plies().is_some_and(|p| p.abs() <= depth)
                && self.limits.depth.is_none()
                && self.limits.nodes.is_none();
            // A fixed time (`movetime`, or living on byoyomi) is used to the end: only the hard
            // limit in `check_time` stops the search then.
            let fixed_time = self.ctl.optimum() == self.ctl.maximum();
            if let Some(opt) = self
                .ctl
                .optimum()
                .filter(|_| !fixed_time || single_or_mate(self, depth))
            {
                // Stockfish-like scaling: a stable best move stops earlier, an unstable one
                // later (factors from Stockfish 11's `bestMoveInstability`, simplified).
                let instability = 1.0 + 1.5 * self.best_move_changes;
                let stability = if best_stable_iterations >= 4 {
                    0.6
                } else {
                    1.0
                };
                let planned = (opt as f64 * instability * stability).min(u64::MAX as f64) as u64;
                let single = self.root_moves.len() == 1;
                if self.ctl.elapsed_ms() >= planned || single || mate_done {
                    if self.ctl.ponder.load(Ordering::Relaxed) {
                        self.ctl.stop_on_ponderhit.store(true, Ordering::Relaxed);
                    } else {
                        self.ctl.stop.store(true, Ordering::Relaxed);
                    }
                }
            } else if mate_done && !self.ctl.ponder.load(Ordering::Relaxed) {
                break;
            }
            depth += 1;
        }
        self.publish_nodes();
    }

    /// Prints one `info` line per PV line (main worker).
    fn report(&self, depth: i32, multipv: usize) {
        let Some(sink) = &self.info else { return };
        let elapsed = self.ctl.elapsed_ms().max(1);
        let nodes = self.ctl.total_nodes().max(self.nodes);
        let nps = nodes * 1000 / elapsed;
        let hashfull = self.tt.hashfull();
        for (i, rm) in self.root_moves.iter().take(multipv).enumerate() {
            let updated = rm.score != -Value::INFINITE;
            if depth == 1 && !updated && i > 0 {
                continue;
            }
            let d = if updated { depth } else { (depth - 1).max(1) };
            let v = if updated { rm.score } else { rm.previous_score };
            let v = if v == -Value::INFINITE {
                Value::ZERO
            } else {
                v
            };
            let bound = if i == self.pv_idx && updated {
                if rm.lowerbound {
                    " lowerbound"
                } else if rm.upperbound {
                    " upperbound"
                } else {
                    ""
                }
            } else {
                ""
            };
            let mut line = format!(
                "info depth {d} seldepth {} multipv {} score {v}{bound} nodes {nodes} nps {nps} hashfull {hashfull} time {elapsed} pv",
                rm.sel_depth.max(d),
                i + 1
            );
            for m in &rm.pv {
                line.push(' ');
                line.push_str(&m.to_string());
            }
            sink(&line);
        }
    }

    /// The value of a node that ends the line whatever its moves (the main search's step 3
    /// and quiescence's step Q2): the maximum ply, a repetition (千日手, its perpetual-check
    /// and superior/inferior forms), or an entering-king declaration (入玉宣言) the side to
    /// move can make. `None`: search on.
    #[inline(always)]
    fn ends_here(&mut self, ply: i32, in_check: bool) -> Option<Value> {
        if ply >= MAX_PLY - 1 {
            return Some(if in_check {
                Value::DRAW
            } else {
                self.evaluate()
            });
        }
        match self
            .pos
            .repetition_in_search(MAX_REPETITION_PLY, ply as usize)
        {
            Repetition::None => {}
            Repetition::Draw => return Some(Value::DRAW),
            // The opponent's perpetual check (連続王手の千日手) loses for them.
            Repetition::Win => return Some(Value::mate_in(ply)),
            Repetition::Loss => return Some(Value::mated_in(ply)),
            Repetition::Superior => return Some(Value(SUPERIOR_VALUE)),
            Repetition::Inferior => return Some(Value(-SUPERIOR_VALUE)),
        }
        // The side to move wins by declaring.
        self.pos.declaration_win().then(|| Value::mate_in(ply + 1))
    }

    // ------------------------------------------------------------------------------------
    // The node searches.
    // ------------------------------------------------------------------------------------

    fn search<const PV: bool>(
        &mut self,
        ply: i32,
        mut alpha: Value,
        mut beta: Value,
        mut depth: i32,
        cut_node: bool,
    ) -> Value {
        let root = PV && ply == 0;

        // Step 1. At the horizon, resolve captures in quiescence.
        if depth <= 0 {
            return self.qsearch::<PV>(ply, alpha, beta, 0);
        }

        // Step 2. Initialize the node.
        let in_check = self.pos.in_check();
        self.nodes += 1;
        if self.nodes >= self.check_at {
            self.check_time();
        }
        if PV {
            self.pv_len[ply as usize] = ply as usize;
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        let us = self.pos.side_to_move();

        if !root {
            // Step 3. Aborted search, maximum ply, repetition and declaration.
            if self.ctl.is_stopped() {
                return Value::ZERO;
            }
            if let Some(v) = self.ends_here(ply, in_check) {
                return v;
            }

            // Step 4. Mate distance pruning: no line from here beats a shorter mate already
            // known above.
            alpha = alpha.max(Value::mated_in(ply));
            beta = beta.min(Value::mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }
        // Grandchildren start with fresh killers; children share them with their cousins
        // (Stockfish clears `(ss+2)->killers`).
        self.frame_mut(ply + 2).killers = [None, None];
        self.frame_mut(ply).in_check = in_check;

        // Step 5. Transposition table lookup.
        let key = self.pos.key();
        let (tt_hit, tte, writer) = self.tt.probe(key);
        let tt_value = if tt_hit {
            tte.value.from_tt(ply)
        } else {
            Value::NONE
        };
        let tt_move = if root {
            Some(self.root_moves[self.pv_idx].mv)
        } else if tt_hit {
            Move::from_u16(tte.mv)
        } else {
            None
        };
        let tt_pv = PV || (tt_hit && tte.is_pv);
        let tt_capture = tt_move.is_some_and(|m| self.pos.is_capture(m));

        if !PV
            && tt_hit
            && tte.depth >= depth
            && tt_value != Value::NONE
            && tte.bound.includes(tt_value >= beta)
        {
            // A quiet TT move that fails high gets the cutoff bonuses (Stockfish step 4).
            if let Some(m) = tt_move {
                if tt_value >= beta && !tt_capture && self.pos.is_legal(m).is_ok() {
                    self.update_quiet_stats(ply, m, stat_bonus(depth));
                }
            }
            return tt_value;
        }

        // Step 6. One-ply mate (一手詰め) detection: cheap compared with a search, and a mate
        // found here is exact. YaneuraOu runs its `mate1ply` at every node not in check
        // without a TT hit.
        if !root && !in_check && !tt_hit {
            if let Some(m) = self.pos.mate_in_one(&mut self.mate_scratch) {
                let v = Value::mate_in(ply + 1);
                self.tt.save(
                    writer,
                    key,
                    v.to_tt(ply),
                    tt_pv,
                    Bound::Exact,
                    (depth + 6).min(MAX_PLY),
                    m.to_u16(),
                    Value::NONE,
                );
                return v;
            }
        }

        // Step 7. Static evaluation.
        let (static_eval, eval) = if in_check {
            (Value::NONE, Value::NONE)
        } else if tt_hit {
            let se = if tte.eval != Value::NONE {
                tte.eval
            } else {
                self.evaluate()
            };
            // The TT value is a better estimate when its bound points the right way.
            let e = if tt_value != Value::NONE && tte.bound.includes(tt_value > se) {
                tt_value
            } else {
                se
            };
            (se, e)
        } else {
            let se = self.evaluate();
            self.tt.save(
                writer,
                key,
                Value::NONE,
                tt_pv,
                Bound::None,
                DEPTH_OFFSET + 1,
                0,
                se,
            );
            (se, se)
        };
        self.frame_mut(ply).static_eval = static_eval;
        let improving = !in_check && {
            let two = self.frame(ply - 2).static_eval;
            let four = self.frame(ply - 4).static_eval;
            if two != Value::NONE {
                static_eval > two
            } else {
                four != Value::NONE && static_eval > four
            }
        };

        if !PV && !in_check {
            // Step 8. Razoring: far below alpha at low depth, trust quiescence
            // (Stockfish 15: alpha - 426 - 252 d², scaled to our pawn). Not while a mate is
            // the bound: quiescence cannot find the quiet mates a shorter proof needs.
            if alpha.0.abs() < Value::MATE_IN_MAX_PLY.0
                && eval.0
                    < alpha.0
                        - self.params.razor_base
                        - self.params.razor_per_depth2 * depth * depth
            {
                let v = self.qsearch::<false>(ply, alpha - 1, alpha, 0);
                if v < alpha {
                    return v;
                }
            }

            // Step 9. Futility pruning (child node): far above beta near the leaves.
            if depth < self.params.futility_max_depth
                && eval.0 - self.params.futility_margin * (depth - improving as i32) >= beta.0
                && eval.0 < Value::MATE_IN_MAX_PLY.0
            {
                return eval;
            }

            // Step 10. Null move pruning: if passing still fails high, the node is good enough.
            if self.frame(ply - 1).current_move.is_some()
                && eval >= beta
                && static_eval.0
                    >= beta.0 - self.params.null_static_margin * depth
                        + self.params.null_static_base
                && beta.0 > Value::MATED_IN_MAX_PLY.0
                && beta.0 < Value::MATE_IN_MAX_PLY.0
                && depth >= 2
            {
                let r = self.params.null_r_base
                    + depth / self.params.null_r_depth_div
                    + ((eval.0 - beta.0) / self.params.null_r_eval_div).min(3);
                self.frame_mut(ply).current_move = None;
                self.frame_mut(ply).cont_block = ContinuationHistory::NONE_BLOCK;
                self.eval.push_null();
                self.pos.do_null_move();
                let v = -self.search::<false>(ply + 1, -beta, -beta + 1, depth - r, !cut_node);
                self.pos.undo_null_move();
                self.eval.pop();
                if v >= beta && !self.ctl.is_stopped() {
                    // A null-move mate is not a proof: return beta instead.
                    return if v.0 >= Value::MATE_IN_MAX_PLY.0 {
                        beta
                    } else {
                        v
                    };
                }
            }
        }

        // Step 11. Internal iterative reduction: a PV or cut node without a TT move is
        // probably badly ordered; search it shallower (Stockfish 15's IIR).
        if (PV || cut_node) && tt_move.is_none() && depth >= self.params.iir_min_depth {
            depth -= if PV { 2 } else { 1 };
            if depth <= 0 {
                return self.qsearch::<PV>(ply, alpha, beta, 0);
            }
        }

        // Step 12. Loop through the moves.
        let killers = self.frame(ply).killers;
        let bufs = self.take_buffers();
        let mut picker = MovePicker::new_main(&self.pos, tt_move, killers, bufs);
        let check_info = self.pos.check_info();
        let mut best_value = -Value::INFINITE;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        // The moves searched before the best one, for the history malus (the first 64
        // quiets and 32 captures; the lists keep their first entries when full).
        let mut quiets_tried = MoveList::<Move, 64>::new();
        let mut captures_tried = MoveList::<Move, 32>::new();
        let mut skip_quiets = false;
        // Depth and improving are the node's: the move-count limit is too.
        let move_count_limit = self.params.move_count_limit(improving, depth);

        loop {
            let m = {
                let h = self.histories(ply);
                match picker.next(&self.pos, &h, skip_quiets) {
                    Some(m) => m,
                    None => break,
                }
            };
            if root {
                // Only the root moves not already reported in an earlier MultiPV line.
                if !self.root_moves[self.pv_idx..].iter().any(|rm| rm.mv == m) {
                    continue;
                }
            }
            move_count += 1;
            self.frame_mut(ply).move_count = move_count;

            let capture = self.pos.is_capture(m);
            let promotion = m.is_promotion();
            let gives_check = check_info
                .as_ref()
                .is_some_and(|ci| self.pos.gives_check_with_info(m, ci));
            let mut new_depth = depth - 1;

            // Step 13. Pruning at shallow depth, once a non-losing move is known.
            if !root && best_value.0 > Value::MATED_IN_MAX_PLY.0 {
                if move_count >= move_count_limit {
                    skip_quiets = true;
                }
                let lmr_depth = (new_depth - self.reduction(improving, depth, move_count)).max(0);
                if capture || gives_check || promotion {
                    // SEE pruning of captures and checks (Stockfish: -185 d → ours -80 d).
                    if !gives_check
                        && !see_ge(&self.pos, m, -self.params.capture_see_margin * depth)
                    {
                        continue;
                    }
                } else {
                    let pc = moved_piece_index(&self.pos, m);
                    let to = m.to().index();
                    let h = self.histories(ply);
                    let hist =
                        h.cont.get(h.cont_blocks[0], pc, to) + h.cont.get(h.cont_blocks[1], pc, to);
                    // Continuation-history pruning (Stockfish: < -3875 d at lmrDepth < 6).
                    if lmr_depth < 6 && hist < -self.params.cont_history_prune * depth {
                        continue;
                    }
                    // Futility pruning of quiet moves (parent node).
                    if !in_check
                        && lmr_depth < 10
                        && static_eval.0
                            + self.params.quiet_futility_base
                            + self.params.quiet_futility_per_depth * lmr_depth
                            <= alpha.0
                    {
                        continue;
                    }
                    // SEE pruning of quiets (Stockfish: -27 lmrDepth² → ours -12).
                    if !see_ge(
                        &self.pos,
                        m,
                        -self.params.quiet_see_margin * lmr_depth * lmr_depth,
                    ) {
                        continue;
                    }
                }
            }

            // Step 14. Extensions: checks that do not lose material get one more ply, capped
            // so that check sequences cannot run the search away (YaneuraOu keeps a check
            // extension; Stockfish dropped it with singular extensions in place).
            if gives_check
                && ply < 2 * self.root_depth
                && depth >= self.params.check_ext_min_depth
                && see_ge(&self.pos, m, 0)
            {
                new_depth += 1;
            }

            // Step 15. Make the move.
            let moved_piece = moved_piece_index(&self.pos, m);
            {
                let f = self.frame_mut(ply);
                f.current_move = Some(m);
                f.cont_block = ContinuationHistory::block(moved_piece, m.to().index());
            }
            self.tt.prefetch(self.pos.key_after(m));
            self.eval.push(&self.pos, m);
            self.pos.do_move_gives_check(m, gives_check);
            if PV {
                // This move's child line starts empty: a zero-window search that fails high
                // (no PV re-search) must not leave an earlier move's line under this one — it
                // reached the GUI as an illegal PV in fail-low (`upperbound`) lines.
                self.pv_len[ply as usize + 1] = ply as usize + 1;
            }

            // Step 16. Late move reductions, then PVS re-searches.
            let mut value;
            if depth >= 2 && move_count > 1 + root as i32 && (!capture || !tt_pv) {
                let mut r = self.reduction(improving, depth, move_count);
                if tt_pv {
                    r -= 1;
                }
                if cut_node {
                    r += 2;
                }
                if tt_capture {
                    r += 1;
                }
                if in_check || gives_check {
                    r -= 1;
                }
                if !capture {
                    let h = self.histories(ply);
                    let stat = 2 * h.main.get(us.index(), move_index(m))
                        + h.cont.get(h.cont_blocks[0], moved_piece, m.to().index())
                        + h.cont.get(h.cont_blocks[1], moved_piece, m.to().index())
                        - self.params.lmr_stat_offset;
                    r -= stat / self.params.lmr_stat_div;
                }
                let d = (new_depth - r).clamp(1, new_depth + 1);
                value = -self.search::<false>(ply + 1, -(alpha + 1), -alpha, d, true);
                if value > alpha && d < new_depth {
                    value =
                        -self.search::<false>(ply + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
                }
            } else if !PV || move_count > 1 {
                value = -self.search::<false>(ply + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
            } else {
                value = -Value::INFINITE; // replaced by the full-window search below
            }
            if PV && (move_count == 1 || (value > alpha && (root || value < beta))) {
                self.pv_len[ply as usize + 1] = ply as usize + 1;
                value = -self.search::<true>(ply + 1, -beta, -alpha, new_depth, false);
            }

            // Step 17. Undo the move.
            self.pos.undo_move(m);
            self.eval.pop();

            if self.ctl.is_stopped() {
                self.give_back(picker);
                return Value::ZERO;
            }

            // Step 18. Root bookkeeping: scores and PVs of root moves.
            if root {
                let sel = self.sel_depth;
                let child_pv: Vec<Move> = (ply as usize + 1..self.pv_len[ply as usize + 1])
                    .filter_map(|i| self.pv[ply as usize + 1][i])
                    .collect();
                let idx = self
                    .root_moves
                    .iter()
                    .position(|rm| rm.mv == m)
                    .expect("root move");
                let rm = &mut self.root_moves[idx];
                if move_count == 1 || value > alpha {
                    rm.score = value;
                    rm.uci_score = value;
                    rm.sel_depth = sel;
                    rm.lowerbound = value >= beta;
                    rm.upperbound = value <= alpha;
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend(child_pv);
                    if move_count > 1 && self.pv_idx == 0 {
                        self.best_move_changes += 1.0;
                    }
                } else {
                    // Not a PV move: sort it behind the others.
                    rm.score = -Value::INFINITE;
                }
            }

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV && !root {
                        self.update_pv(ply as usize, m);
                    }
                    if value >= beta {
                        break; // fail high
                    }
                    alpha = value;
                }
            }

            if Some(m) != best_move {
                if capture {
                    captures_tried.push(m);
                } else {
                    quiets_tried.push(m);
                }
            }
        }

        self.give_back(picker);

        // Step 19. No legal move: in shogi that is a loss whether in check or not (there is
        // no stalemate).
        if move_count == 0 {
            best_value = Value::mated_in(ply);
        } else if let Some(bm) = best_move {
            // Step 20. Update the move-ordering statistics.
            let bonus = stat_bonus(
                depth + (best_value.0 > beta.0 + self.params.history_bonus_margin) as i32,
            );
            if !self.pos.is_capture(bm) {
                self.update_quiet_stats(ply, bm, bonus);
                let malus = stat_malus(depth);
                for &q in &quiets_tried {
                    self.update_quiet_histories(ply, q, -malus);
                }
            } else {
                self.update_capture_history(bm, bonus);
            }
            for &c in &captures_tried {
                self.update_capture_history(c, -stat_malus(depth));
            }
        }

        // Step 21. Store the result.
        if !self.ctl.is_stopped() {
            let bound = if best_value >= beta {
                Bound::Lower
            } else if PV && best_move.is_some() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt.save(
                writer,
                key,
                best_value.to_tt(ply),
                tt_pv,
                bound,
                depth,
                best_move.map_or(0, Move::to_u16),
                static_eval,
            );
        }
        best_value
    }

    fn qsearch<const PV: bool>(
        &mut self,
        ply: i32,
        mut alpha: Value,
        beta: Value,
        depth: i32,
    ) -> Value {
        // Step Q1. Initialize the node.
        self.nodes += 1;
        if self.nodes >= self.check_at {
            self.check_time();
        }
        if PV {
            self.pv_len[ply as usize] = ply as usize;
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        let in_check = self.pos.in_check();

        // Step Q2. Maximum ply, repetition and declaration, as in the main search.
        if let Some(v) = self.ends_here(ply, in_check) {
            return v;
        }

        // Step Q3. Transposition table lookup. Quiescence entries with checks count as depth
        // 0, capture-only ones as -1 (Stockfish's DEPTH_QS_CHECKS / DEPTH_QS_NO_CHECKS).
        let with_checks = depth == 0 && !in_check;
        let tt_depth = if in_check || with_checks { 0 } else { -1 };
        let key = self.pos.key();
        let (tt_hit, tte, writer) = self.tt.probe(key);
        let tt_value = if tt_hit {
            tte.value.from_tt(ply)
        } else {
            Value::NONE
        };
        let tt_move = if tt_hit { Move::from_u16(tte.mv) } else { None };
        let tt_pv = tt_hit && tte.is_pv;
        if !PV
            && tt_hit
            && tte.depth >= tt_depth
            && tt_value != Value::NONE
            && tte.bound.includes(tt_value >= beta)
        {
            return tt_value;
        }

        // Step Q4. Stand pat on the static evaluation.
        let static_eval;
        let mut best_value;
        let futility_base;
        if in_check {
            static_eval = Value::NONE;
            best_value = -Value::INFINITE;
            futility_base = -Value::INFINITE;
        } else {
            static_eval = if tt_hit && tte.eval != Value::NONE {
                tte.eval
            } else {
                self.evaluate()
            };
            best_value = static_eval;
            if tt_value != Value::NONE && tte.bound.includes(tt_value > best_value) {
                best_value = tt_value;
            }
            if best_value >= beta {
                if !tt_hit {
                    self.tt.save(
                        writer,
                        key,
                        best_value.to_tt(ply),
                        false,
                        Bound::Lower,
                        DEPTH_OFFSET + 1,
                        0,
                        static_eval,
                    );
                }
                return best_value;
            }
            if PV && best_value > alpha {
                alpha = best_value;
            }
            futility_base = best_value + self.params.qs_futility_margin;
        }

        // Step Q5. Captures (and quiet checks at the first quiescence ply), or evasions.
        let bufs = self.take_buffers();
        let mut picker = MovePicker::new_qsearch(&self.pos, tt_move, with_checks, bufs);
        let check_info = self.pos.check_info();
        let mut best_move = None;
        let mut move_count = 0;
        loop {
            let m = {
                let h = self.histories(ply);
                match picker.next(&self.pos, &h, false) {
                    Some(m) => m,
                    None => break,
                }
            };
            move_count += 1;
            let gives_check = check_info
                .as_ref()
                .is_some_and(|ci| self.pos.gives_check_with_info(m, ci));
            let capture = self.pos.is_capture(m);

            // Step Q6. Pruning, once we are not being mated. (SEE is asked at most twice per
            // move: a move known to win at least 1 passes the lower thresholds too.)
            if best_value.0 > Value::MATED_IN_MAX_PLY.0 {
                let mut wins_material = false;
                if !gives_check && !m.is_promotion() && futility_base.0 > -Value::MATE_IN_MAX_PLY.0
                {
                    if move_count > 2 && !capture {
                        continue;
                    }
                    let gain = captured_kind(&self.pos, m).map_or(0, |k| PIECE_VALUE[k.index()]);
                    let futility_value = futility_base + gain;
                    if futility_value <= alpha {
                        best_value = best_value.max(futility_value);
                        continue;
                    }
                    if futility_base <= alpha {
                        if !see_ge(&self.pos, m, 1) {
                            best_value = best_value.max(futility_base);
                            continue;
                        }
                        wins_material = true;
                    }
                }
                if !wins_material {
                    // Quiet checks must at least be safe; other moves may not lose material
                    // (Stockfish: SEE < -90 → ours -40).
                    let floor = if !capture && !in_check {
                        0
                    } else {
                        -self.params.qs_see_margin
                    };
                    if !see_ge(&self.pos, m, floor) {
                        continue;
                    }
                }
            }

            // Step Q7. Make, search, undo.
            let moved_piece = moved_piece_index(&self.pos, m);
            {
                let f = self.frame_mut(ply);
                f.current_move = Some(m);
                f.cont_block = ContinuationHistory::block(moved_piece, m.to().index());
            }
            self.tt.prefetch(self.pos.key_after(m));
            self.eval.push(&self.pos, m);
            self.pos.do_move_gives_check(m, gives_check);
            let value = -self.qsearch::<PV>(ply + 1, -beta, -alpha, depth - 1);
            self.pos.undo_move(m);
            self.eval.pop();

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV {
                        self.update_pv(ply as usize, m);
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
        }

        self.give_back(picker);

        // Step Q8. In check with no legal evasion: mated.
        if in_check && best_value == -Value::INFINITE {
            return Value::mated_in(ply);
        }

        let bound = if best_value >= beta {
            Bound::Lower
        } else if PV && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.save(
            writer,
            key,
            best_value.to_tt(ply),
            tt_pv,
            bound,
            tt_depth,
            best_move.map_or(0, Move::to_u16),
            static_eval,
        );
        best_value
    }

    fn evaluate(&mut self) -> Value {
        let mut v = self.eval.evaluate(&self.pos);
        if self.params.eval_scale != 100 {
            v = v * self.params.eval_scale / 100;
        }
        Value(v.clamp(Value::MATED_IN_MAX_PLY.0 + 1, Value::MATE_IN_MAX_PLY.0 - 1))
    }

    fn update_quiet_histories(&mut self, ply: i32, m: Move, bonus: i32) {
        let us = self.pos.side_to_move();
        self.main_history.update(us.index(), move_index(m), bonus);
        let pc = moved_piece_index(&self.pos, m);
        let to = m.to().index();
        for back in [1, 2, 4] {
            if back > 2 && self.frame(ply).in_check {
                break;
            }
            let block = self.frame(ply - back).cont_block;
            if self.frame(ply - back).current_move.is_some() {
                self.cont_history.update(block, pc, to, bonus);
            }
        }
    }

    fn update_quiet_stats(&mut self, ply: i32, m: Move, bonus: i32) {
        let f = self.frame_mut(ply);
        if f.killers[0] != Some(m) {
            f.killers[1] = f.killers[0];
            f.killers[0] = Some(m);
        }
        self.update_quiet_histories(ply, m, bonus);
    }

    fn update_capture_history(&mut self, m: Move, bonus: i32) {
        let pc = moved_piece_index(&self.pos, m);
        let captured = captured_kind(&self.pos, m).map_or(0, |k| k.unpromote().index());
        self.capture_history
            .update(pc, m.to().index(), captured, bonus);
    }
}

/// The history piece index of the piece `m` moves, as it stands after the move.
#[inline]
fn moved_piece_index(pos: &Position, m: Move) -> usize {
    let kind = pos.moved_piece(m).map_or(PieceKind::King, |p| p.kind);
    piece_index(pos.side_to_move(), kind, m.is_promotion())
}

/// The kind `m` captures, if any.
#[inline]
fn captured_kind(pos: &Position, m: Move) -> Option<PieceKind> {
    if m.is_drop() {
        None
    } else {
        pos.piece_on(m.to()).map(|p| p.kind)
    }
}

/// How far back repetitions are looked for, plies (YaneuraOu's `max_repetition_ply` default).
const MAX_REPETITION_PLY: usize = 16;

/// Score of a superior position (優等局面: same board, more in hand) reached by repetition:
/// YaneuraOu's `VALUE_SUPERIOR`, the largest non-mate value (equal to the evaluation's
/// maximum), so it dominates every evaluation yet never enters the mate range, where scores
/// are re-based by ply in the TT.
const SUPERIOR_VALUE: i32 = Value::MATE_IN_MAX_PLY.0 - 1;

// The tunable constants (margins, reductions, thresholds) are `SearchParams` fields, in
// `params.rs`, with their origins.

/// True when the main worker may stop early even on a fixed time: a single legal move, or a
/// mate already found within the searched depth.
fn single_or_mate<E: Evaluator>(w: &Worker<E>, depth: i32) -> bool {
    w.root_moves.len() == 1
        || w.root_moves[0]
            .score
            .mate_plies()
            .is_some_and(|p| p.abs() <= depth)
}

/// The result of a whole search, for the front end.
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    pub best: Option<RootMove>,
    /// The first `MultiPV` root moves, best first (`lines[0]` is `best`).
    pub lines: Vec<RootMove>,
    pub nodes: u64,
    pub depth: i32,
}

/// Runs a search on `workers` (worker 0 is the main one): helpers on scoped threads, the
/// main worker on the calling thread. Returns when all are done.
pub fn run_workers<E: Evaluator>(workers: &mut [Worker<E>], ctl: &Arc<Control>) -> SearchOutcome {
    let (main, helpers) = workers.split_first_mut().expect("at least one worker");
    std::thread::scope(|s| {
        for h in helpers.iter_mut() {
            // 16 MB stacks: deep recursion with per-node move buffers.
            std::thread::Builder::new()
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(s, move || h.iterative_deepening())
                .expect("spawn search helper");
        }
        main.iterative_deepening();
        // While pondering or in `go infinite`, the bestmove waits for `stop`/`ponderhit`, which
        // both clear `ponder`. A search that ended by itself meanwhile (`go ponder nodes N`
        // reached N, which sets `stop`) waits too: USI allows no answer before them, and the
        // match runner's node frame relies on it (a hit then answers at once, its N nodes spent).
        while main.ctl.ponder.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        ctl.stop.store(true, Ordering::Relaxed);
    });
    let nodes = ctl.total_nodes().max(main.nodes());
    let multipv = main.limits.multipv.clamp(1, main.root_moves.len().max(1));
    SearchOutcome {
        best: main.root_moves.first().cloned(),
        lines: main.root_moves.iter().take(multipv).cloned().collect(),
        nodes,
        depth: main.completed_depth,
    }
}

/// Stack size of every search thread.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Shared slot for a pending ponder-hit re-plan (set by the front end).
pub type Shared<T> = Arc<Mutex<T>>;
