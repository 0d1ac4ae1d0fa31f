//! The USI front end of the built-in search (`gougi search`): a thin command loop in the
//! manner of Stockfish's `UCIEngine`.
//!
//! Threads: one reads stdin and forwards lines on a channel, so `stop`, `ponderhit` and
//! `isready` are answered while a search runs; the loop thread owns the game state; each
//! `go` runs on a search thread (plus `Threads - 1` helpers) that prints `info` lines and the
//! final `bestmove`. stdout is written only through [`emit`], one whole line at a time.
//!
//! USI rules kept here: every `go` gets exactly one `bestmove` (also after `stop`); during
//! `go ponder` and `go infinite` the `bestmove` waits for `stop` or `ponderhit`; `go mate` is
//! answered `checkmate notimplemented` (the df-pn solver is `gougi mate`); `bestmove win`
//! when the side to move can declare (入玉宣言); `bestmove resign` only when no legal move
//! exists.
//!
//! Book (`BookFile`, YaneuraOu's `.db` text format, see [`crate::book`]): loaded when the
//! option is set; a `go` the book answers prints `info string book: <move> (count, eval)` and an
//! `info … pv` line at once and the `bestmove` without searching (held until `stop`/`ponderhit`
//! during `go ponder`/`go infinite`, as any `bestmove`).

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::book::{Book, BookOptions, SplitMix64};
use crate::shogi::{Color, Move, Position};
use crate::usi::{GoLimits, GuiCommand, SetOption, Strictness};

use super::alphabeta::{run_workers, Control, InfoSink, RootMove, SearchLimits, Worker};
use super::movepick::root_moves;
use super::params::{tune_options_listed, SearchParams};
use super::timeman::{self, Clock, TimeOptions};
use super::tt::TranspositionTable;
use crate::eval::builtin::{self, BUILTIN_PREFIX};
use crate::eval::linear::{self as linear_eval, TableEval, Weights};
use crate::eval::nnue::{self, Network, NnueEval};
use crate::eval::{Evaluator, SearchEval};

/// Writes one protocol line to stdout and flushes it.
pub fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A closed stdout means the GUI is gone; there is nobody left to tell.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Engine options (`setoption`), with USI/YaneuraOu names.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub time: TimeOptions,
    /// `EvalFile`: evaluation weights from `gougi learn` (empty: the embedded ones;
    /// `builtin:r9` and the like: a built-in earlier round, see `eval::builtin::builtin_names`), or a
    /// YaneuraOu NNUE file (`nn.bin`, told apart by its first bytes; see `eval::nnue`).
    pub eval_file: String,
    /// The search's tunable constants (hidden `T_…` options, see `params.rs`).
    pub params: SearchParams,
    /// The opening book options (`BookFile`, `BookMoves`, …).
    pub book: BookOptions,
    /// `EvalNoise`: the standard deviation (cp) of the evaluation's per-position noise
    /// (`eval::noise::noise_cp`); 0 is none.
    pub eval_noise: u32,
    /// `EvalDropout`: per mille of the king-relative weights zeroed (`eval::linear::dropout`).
    pub eval_dropout: u32,
    /// `Seed`: which noise and which dropped weights, one per consultation member.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            time: TimeOptions::default(),
            eval_file: String::new(),
            params: SearchParams::default(),
            book: BookOptions::default(),
            eval_noise: 0,
            eval_dropout: 0,
            seed: 0,
        }
    }
}

/// `EvalNoise`'s maximum (cp): beyond a few pawns the evaluation is only noise.
pub const MAX_EVAL_NOISE: u64 = 1000;
/// `Seed`'s maximum: 2³¹ − 1, what every GUI's spin (a 32-bit int) can hold.
pub const MAX_SEED: u64 = i32::MAX as u64;

/// Default `USI_Hash` in MiB: several engines usually share the machine in a consultation.
pub const DEFAULT_HASH_MB: usize = 256;

/// The option declarations printed after `usi`, with the defaults in `d` (`NetworkDelay*`
/// differ for a consultation member, see [`Options::member`]).
pub fn option_lines(d: &Options) -> Vec<String> {
    vec![
        format!(
            "option name USI_Hash type spin default {} min 1 max 65536",
            d.hash_mb
        ),
        "option name USI_Ponder type check default false".to_owned(),
        "option name Threads type spin default 1 min 1 max 256".to_owned(),
        "option name MultiPV type spin default 1 min 1 max 600".to_owned(),
        format!(
            "option name NetworkDelay type spin default {} min 0 max 10000",
            d.time.network_delay
        ),
        format!(
            "option name NetworkDelay2 type spin default {} min 0 max 10000",
            d.time.network_delay2
        ),
        format!(
            "option name MinimumThinkingTime type spin default {} min 0 max 100000",
            d.time.minimum_thinking_time
        ),
        "option name SlowMover type spin default 100 min 1 max 1000".to_owned(),
        "option name EvalFile type string default <empty>".to_owned(),
        // Diversity for self-consultation (issue 19): copies of this engine that differ only
        // by Seed think differently when either of these is non-zero.
        format!(
            "option name EvalNoise type spin default {} min 0 max {MAX_EVAL_NOISE}",
            d.eval_noise
        ),
        format!(
            "option name EvalDropout type spin default {} min 0 max 1000",
            d.eval_dropout
        ),
        format!(
            "option name Seed type spin default {} min 0 max {MAX_SEED}",
            d.seed
        ),
    ]
}

/// Why a `setoption` was refused (the engine says so in an `info string` and keeps going).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error(transparent)]
    Param(#[from] super::params::NotAnInteger),
    #[error(transparent)]
    Book(#[from] crate::book::options::BookOptionError),
    #[error("{name}: not a number: {value}")]
    NotANumber { name: String, value: String },
    #[error("unknown option {0}")]
    Unknown(String),
}

impl Options {
    /// The defaults of `gougi search --member`, what a consultation's `builtin:search` runs:
    /// no latency margins, because the member's clock is already shortened by gougi's
    /// `G_Margin`, which has the same size as a bare `gougi search`'s `NetworkDelay2` (both
    /// measured on a pipe): a member thinks as long as the engine alone would. They are
    /// *defaults*, declared as such after `usi`, so a GUI that sends every option back sends
    /// these.
    pub fn member() -> Options {
        Options {
            time: TimeOptions {
                network_delay: 0,
                network_delay2: 0,
                ..TimeOptions::default()
            },
            ..Options::default()
        }
    }

    /// Applies `setoption name <name> value <value>`; unknown names and bad values are errors.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        if self.params.set(name, value)? {
            return Ok(());
        }
        let num = |lo: u64, hi: u64| -> Result<u64, OptionError> {
            let v: u64 = value.trim().parse().map_err(|_| OptionError::NotANumber {
                name: name.to_owned(),
                value: value.to_owned(),
            })?;
            Ok(v.clamp(lo, hi))
        };
        if let Some(result) = self.book.set(name, value) {
            return Ok(result?);
        }
        match name.to_ascii_lowercase().as_str() {
            "usi_hash" | "hash" => self.hash_mb = num(1, 65536)? as usize,
            "threads" => self.threads = num(1, 256)? as usize,
            "multipv" => self.multipv = num(1, 600)? as usize,
            "networkdelay" => self.time.network_delay = num(0, 10_000)?,
            "networkdelay2" => self.time.network_delay2 = num(0, 10_000)?,
            "minimumthinkingtime" => self.time.minimum_thinking_time = num(0, 100_000)?,
            "slowmover" => self.time.slow_mover = num(1, 1000)?,
            "evalnoise" => self.eval_noise = num(0, MAX_EVAL_NOISE)? as u32,
            "evaldropout" => self.eval_dropout = num(0, 1000)? as u32,
            "seed" => self.seed = num(0, MAX_SEED)?,
            "evalfile" => {
                let v = value.trim();
                self.eval_file = if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                };
            }
            // USI's reserved names this engine has no use for (`USI_Ponder`: the GUI ponders
            // for it with `go ponder`; `USI_AnalyseMode`, …): GUIs send them every game.
            _ if crate::usi::option::is_reserved(name) => {}
            _ => return Err(OptionError::Unknown(name.to_owned())),
        }
        Ok(())
    }
}

/// Whether a `go` carries clock fields (else only its other limits bound the search).
fn has_clock(g: &GoLimits) -> bool {
    g.btime.is_some() || g.wtime.is_some() || g.byoyomi.is_some()
}

/// The clock of the side to move (`black`), for the time manager.
fn clock_of(g: &GoLimits, black: bool) -> Clock {
    let (time, inc) = g.clock_of(black);
    Clock {
        time: time.unwrap_or(0),
        inc: inc.unwrap_or(0),
        byoyomi: g.byoyomi.unwrap_or(0),
    }
}

/// Parses `position` arguments (`startpos|sfen … [moves …]`, or bare SFEN fields) into a
/// position, every move checked by the core's legality test.
pub fn parse_position(args: &str) -> Result<Position, BadPosition> {
    let args = args.trim();
    let text = if args.starts_with("startpos") || args.starts_with("sfen ") {
        args.to_string()
    } else {
        format!("sfen {args}")
    };
    Position::from_usi_position(&text).map_err(|source| BadPosition {
        args: args.to_owned(),
        source,
    })
}

/// `position` arguments the rules core refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad position {args}: {source}")]
pub struct BadPosition {
    pub args: String,
    pub source: crate::shogi::PositionError,
}

/// A ponder move for `best` from the table, when the PV is too short to give one.
fn ponder_from_tt(pos: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut p = pos.clone();
    p.try_play(best).ok()?;
    let (hit, data, _) = tt.probe(p.key());
    let m = Move::from_u16(data.mv).filter(|_| hit)?;
    p.is_legal(m).is_ok().then_some(m)
}

type Workers = Vec<Worker<SearchEval>>;

/// The running search, if any.
struct Running {
    ctl: Arc<Control>,
    handle: JoinHandle<Workers>,
    /// Whether the search was started with `go ponder` and the clock still needs a plan.
    params: GoLimits,
    ply: u32,
    black: bool,
}

/// The engine state owned by the command loop.
pub struct Engine {
    pos: Position,
    /// The defaults declared after `usi` (the options before any `setoption`).
    defaults: Options,
    options: Options,
    /// Allocated at the first `isready` or `go` (USI's time for heavy set-up), so that a
    /// `setoption name USI_Hash` before it does not allocate twice.
    tt: Option<Arc<TranspositionTable>>,
    /// Something was searched since the table was last cleared. The clear (hundreds of ms for
    /// 256 MiB on a loaded machine) is done at `isready`, where USI allows heavy work, so the
    /// `usinewgame` that follows — whose `go` comes at once, with the GUI's clock running — has
    /// nothing left to do; it still clears when no `isready` came in between.
    tt_dirty: bool,
    workers: Option<Workers>,
    running: Option<Running>,
    /// A `bestmove` decided without searching (`win`, `resign`) during `go ponder` or
    /// `go infinite`: USI lets it out only at `stop` or `ponderhit`.
    pending: Option<String>,
    /// The evaluation weights (the embedded ones unless `EvalFile` names a file).
    weights: &'static Weights,
    /// The NNUE net `EvalFile` names, when it names one (told apart from linear weights by
    /// the file's first bytes); the `eval` command answers with it.
    nnue: Option<Arc<Network>>,
    /// `weights` after `EvalDropout` under `Seed`, made at `isready` (or the first `go`) and
    /// kept for the (base, dropout, seed) it was made from; copied only when dropout > 0.
    dropped: Option<(&'static Weights, u32, u64, &'static Weights)>,
    /// The book `BookFile` names, once loaded.
    book: Option<Book>,
    /// The choice's random numbers (seeded by `BookSeed`, else from the clock).
    book_rng: SplitMix64,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::with_defaults(Options::default())
    }

    /// An engine whose options start at (and are declared with) `defaults`.
    pub fn with_defaults(defaults: Options) -> Engine {
        Engine {
            pos: Position::startpos(),
            tt: None,
            tt_dirty: false,
            defaults: defaults.clone(),
            options: defaults,
            workers: None,
            running: None,
            pending: None,
            weights: Weights::embedded(),
            nnue: None,
            dropped: None,
            book: None,
            book_rng: SplitMix64::from_time(),
        }
    }

    /// Loads the book `BookFile` names (none when empty), saying what was read.
    fn load_book(&mut self) {
        let (book, lines) = self.options.book.load();
        for line in &lines {
            emit(line);
        }
        self.book = book;
    }

    /// The book's answer to a `go`, if it has one: the `info` lines are printed at once, the
    /// `bestmove` line is returned.
    fn book_answer(&mut self) -> Option<String> {
        let book = self.book.as_ref()?;
        let answer = self
            .options
            .book
            .answer(book, &self.pos, &mut self.book_rng);
        for line in &answer.info {
            emit(line);
        }
        answer.bestmove
    }

    /// Answers a `go` without searching: at once, or at `stop`/`ponderhit` when pondering.
    fn answer_now(&mut self, line: &str, params: &GoLimits) {
        if params.ponder || params.infinite {
            self.pending = Some(line.to_string());
        } else {
            emit(line);
        }
    }

    fn flush_pending(&mut self) {
        if let Some(line) = self.pending.take() {
            emit(&line);
        }
    }

    /// The transposition table, allocated on first use.
    fn table(&mut self) -> Arc<TranspositionTable> {
        let mb = self.options.hash_mb;
        self.tt
            .get_or_insert_with(|| Arc::new(TranspositionTable::new(mb)))
            .clone()
    }

    /// The weights the search uses: `weights`, less `EvalDropout`'s share under `Seed`.
    fn eval_weights(&mut self) -> &'static Weights {
        let (per_mille, seed) = (self.options.eval_dropout, self.options.seed);
        if per_mille == 0 {
            return self.weights;
        }
        match self.dropped {
            Some((base, d, s, w))
                if std::ptr::eq(base, self.weights) && d == per_mille && s == seed =>
            {
                w
            }
            _ => {
                // Leaked like an `EvalFile`: a GUI changes these a few times at most.
                let w = linear_eval::dropout(self.weights, per_mille, seed).leak();
                self.dropped = Some((self.weights, per_mille, seed, w));
                w
            }
        }
    }

    /// A fresh linear evaluation with the options' weights and noise.
    fn new_linear_eval(&mut self) -> TableEval {
        TableEval::new(self.eval_weights())
            .with_noise(self.options.eval_noise as i32, self.options.seed)
    }

    /// What a new worker evaluates with: the net `EvalFile` named, if it named one (the
    /// linear tables standing by for positions without both kings), else the tables.
    fn new_eval(&mut self) -> SearchEval {
        let linear = self.new_linear_eval();
        match &self.nnue {
            Some(net) => SearchEval::with_net(
                linear,
                NnueEval::new(net.clone())
                    .with_noise(self.options.eval_noise as i32, self.options.seed),
            ),
            None => SearchEval::linear(linear),
        }
    }

    fn workers(&mut self) -> Workers {
        let n = self.options.threads;
        let tt = self.table();
        let mut ws = self.workers.take().unwrap_or_default();
        let ctl = Arc::new(Control::new(n));
        ws.truncate(n);
        for w in &mut ws {
            w.set_params(self.options.params);
        }
        while ws.len() < n {
            let eval = self.new_eval();
            ws.push(Worker::new(
                ws.len(),
                tt.clone(),
                ctl.clone(),
                eval,
                self.pos.clone(),
            ));
            ws.last_mut()
                .expect("just pushed")
                .set_params(self.options.params);
        }
        ws
    }

    /// Waits for the running search (after `stop`, or when a new command needs the state).
    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(ws) => self.workers = Some(ws),
                Err(_) => tracing::error!("search thread panicked"),
            }
        }
    }

    fn stop(&mut self) {
        self.flush_pending();
        if let Some(r) = &self.running {
            r.ctl.ponder.store(false, Ordering::Relaxed);
            r.ctl.stop.store(true, Ordering::Relaxed);
        }
        self.join();
    }

    /// Handles one command line. Returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        // One vocabulary with the proxy: `crate::usi`'s lenient parser (a field it cannot read
        // is dropped; an unknown word is `Unknown`).
        let command = match GuiCommand::parse(line, Strictness::Lenient) {
            Ok(command) => command,
            Err(e) => {
                tracing::warn!(line, error = %e, "unreadable command");
                emit(&format!("info string error: {e}"));
                if line.split_whitespace().next() == Some("go") {
                    // USI requires a `bestmove` for every `go`: a depth-1 search.
                    self.go(&GoLimits {
                        depth: Some(1),
                        ..GoLimits::default()
                    });
                }
                return true;
            }
        };
        match command {
            GuiCommand::Usi => {
                emit("id name gougi-search");
                emit("id author the gougi authors");
                for l in option_lines(&self.defaults) {
                    emit(&l);
                }
                for l in crate::book::OPTION_LINES {
                    emit(l);
                }
                if tune_options_listed() {
                    for l in SearchParams::option_lines() {
                        emit(&l);
                    }
                }
                emit("usiok");
            }
            GuiCommand::IsReady => {
                let tt = self.table();
                let _ = self.eval_weights();
                // Not under a running search (`isready` is answered during `go ponder` too).
                let idle = self.running.as_ref().is_none_or(|r| r.handle.is_finished());
                if self.tt_dirty && idle {
                    self.join();
                    tt.clear();
                    self.tt_dirty = false;
                }
                emit("readyok");
            }
            GuiCommand::SetOption(o) => self.setoption(&o),
            GuiCommand::UsiNewGame => {
                self.stop();
                if let Some(tt) = self.tt.as_ref().filter(|_| self.tt_dirty) {
                    tt.clear();
                    self.tt_dirty = false;
                }
                if let Some(ws) = &mut self.workers {
                    for w in ws {
                        w.clear_history();
                    }
                }
            }
            GuiCommand::Position(p) => {
                self.stop();
                match Position::from_usi_position(&p.to_string()) {
                    Ok(p) => self.pos = p,
                    Err(e) => {
                        tracing::warn!(error = %e, "bad position command");
                        emit(&format!("info string error: {e}"));
                    }
                }
            }
            GuiCommand::Go(limits) => {
                // The lenient parser drops a field it cannot read (`go depth x`); left with no
                // limit at all, such a `go` would search until a `stop` the GUI never sends.
                // USI requires a `bestmove`: a depth-1 search answers it.
                if limits == GoLimits::default() && line.split_whitespace().nth(1).is_some() {
                    tracing::warn!(line, "go without a readable limit");
                    emit(&format!(
                        "info string error: no limit could be read from `{}`; searching depth 1",
                        line.trim()
                    ));
                    self.go(&GoLimits {
                        depth: Some(1),
                        ..GoLimits::default()
                    });
                } else {
                    self.go(&limits);
                }
            }
            GuiCommand::Stop => self.stop(),
            GuiCommand::PonderHit(limits) => self.ponderhit(&limits),
            GuiCommand::GameOver(_) => self.stop(),
            GuiCommand::Quit => {
                self.stop();
                return false;
            }
            GuiCommand::MateInfo(_) => {}
            GuiCommand::Unknown(line) if line.trim() == "eval" => self.eval_command(),
            GuiCommand::Unknown(line) if line.is_empty() => {}
            GuiCommand::Unknown(line) => tracing::debug!(line, "ignored unknown command"),
        }
        true
    }

    fn setoption(&mut self, o: &SetOption) {
        let (name, value) = (o.name.as_str(), o.value.as_deref().unwrap_or("").trim());
        let old_hash = self.options.hash_mb;
        let old_eval = self.options.eval_file.clone();
        let old_book = self.options.book.clone();
        let old_diversity = (
            self.options.eval_noise,
            self.options.eval_dropout,
            self.options.seed,
        );
        if let Err(e) = self.options.set(name, value) {
            tracing::warn!(error = %e, "setoption");
            emit(&format!("info string error: {e}"));
            return;
        }
        if self.options.eval_file != old_eval {
            if let Err(e) = self.load_eval_file() {
                // Keep playing with the evaluation we have; say why the file was refused.
                tracing::warn!(error = %e, "EvalFile");
                emit(&format!("info string error: EvalFile {e}"));
                self.options.eval_file = old_eval;
            }
        }
        let diversity = (
            self.options.eval_noise,
            self.options.eval_dropout,
            self.options.seed,
        );
        if diversity != old_diversity {
            self.stop();
            self.workers = None; // workers hold the old evaluation
        }
        if self.options.book.file != old_book.file {
            self.load_book();
        }
        if self.options.book.seed != old_book.seed {
            self.book_rng = self.options.book.rng();
        }
        if self.options.hash_mb != old_hash {
            self.stop();
            self.workers = None; // workers hold the old table
            self.tt = None; // reallocated at the next `isready` or `go`
            self.tt_dirty = false;
        }
    }

    /// Loads what `EvalFile` names: a YaneuraOu NNUE net (told apart by its first bytes) for
    /// `eval`, or linear weights for the search.
    fn load_eval_file(&mut self) -> Result<(), String> {
        if is_nnue_file(&self.options.eval_file) {
            let net = Network::named(&self.options.eval_file)?;
            emit(&format!(
                "info string EvalFile: NNUE {} ({}, {} kernel)",
                net.arch.name(),
                self.options.eval_file,
                nnue::Kernel::best().name()
            ));
            self.stop();
            self.workers = None; // workers hold the old evaluation
            self.nnue = Some(net.shared());
        } else {
            let w = Weights::named(&self.options.eval_file).map_err(|e| e.to_string())?;
            self.stop();
            self.weights = w;
            self.nnue = None;
            self.workers = None; // workers hold the old evaluation
        }
        Ok(())
    }

    /// `eval`: the static evaluation of the current position from the side to move's view,
    /// as YaneuraOu's command of that name — with the NNUE net when `EvalFile` named one (in
    /// YaneuraOu's units, bit for bit, without `EvalNoise`), else with the linear evaluation.
    fn eval_command(&mut self) {
        self.stop();
        let v = match &self.nnue {
            Some(_)
                if Color::ALL
                    .iter()
                    .any(|&c| self.pos.king_square(c).is_none()) =>
            {
                emit("info string error: eval: NNUE needs both kings on the board");
                return;
            }
            Some(net) => net.evaluate(&self.pos),
            None => {
                let mut e = self.new_linear_eval();
                e.reset(&self.pos);
                e.evaluate(&self.pos)
            }
        };
        emit(&format!("eval = {v}"));
    }

    fn ponderhit(&mut self, p: &GoLimits) {
        self.flush_pending();
        let Some(r) = &self.running else { return };
        // `ponderhit` may carry fresh clock fields (ShogiHome); then re-plan from them.
        let mut params = r.params.clone();
        if has_clock(p) {
            params.btime = p.btime;
            params.wtime = p.wtime;
            params.binc = p.binc;
            params.winc = p.winc;
            params.byoyomi = p.byoyomi.or(params.byoyomi);
        }
        let budget = if params.infinite {
            None
        } else if let Some(mt) = params.movetime {
            Some(timeman::fixed(mt))
        } else if has_clock(&params) {
            Some(timeman::plan(
                clock_of(&params, r.black),
                r.ply,
                &self.options.time,
            ))
        } else {
            None
        };
        r.ctl.set_budget(budget);
        r.ctl.restart_clock();
        if params.infinite {
            return;
        }
        r.ctl.ponder.store(false, Ordering::Relaxed);
        if r.ctl.stop_on_ponderhit.load(Ordering::Relaxed) {
            r.ctl.stop.store(true, Ordering::Relaxed);
        }
    }

    fn go(&mut self, params: &GoLimits) {
        // The GUI's clock runs from here: everything below (joining an old search, the book,
        // allocating the table and threads) is part of this move's time.
        let received = std::time::Instant::now();
        self.stop();
        let params = params.clone();
        if params.mate.is_some() {
            emit("checkmate notimplemented");
            return;
        }
        if self.pos.declaration_win() {
            self.answer_now("bestmove win", &params);
            return;
        }
        let legal = root_moves(&self.pos);
        if legal.is_empty() {
            self.answer_now("bestmove resign", &params);
            return;
        }
        if let Some(line) = self.book_answer() {
            self.answer_now(&line, &params);
            return;
        }
        let black = self.pos.side_to_move() == crate::shogi::Color::Black;
        let ply = self.pos.ply();
        let budget = if params.infinite || params.ponder {
            None
        } else if let Some(mt) = params.movetime {
            Some(timeman::fixed(mt))
        } else if has_clock(&params) {
            Some(timeman::plan(
                clock_of(&params, black),
                ply,
                &self.options.time,
            ))
        } else {
            None
        };
        let mut workers = self.workers();
        let ctl = Arc::new(Control::starting_at(workers.len(), received));
        ctl.set_budget(budget);
        ctl.ponder
            .store(params.ponder || params.infinite, Ordering::Relaxed);
        // A bare `go` without any limit searches until `stop`, as `go infinite`.
        if !params.ponder && budget.is_none() && params.depth.is_none() && params.nodes.is_none() {
            ctl.ponder.store(true, Ordering::Relaxed);
        }
        let tt = self.table();
        self.tt_dirty = true;
        tt.new_search();
        let limits = SearchLimits {
            depth: params.depth.map(|d| d.min(i32::MAX as u32) as i32),
            nodes: params.nodes,
            multipv: self.options.multipv,
        };
        let info: InfoSink = Arc::new(emit);
        for (i, w) in workers.iter_mut().enumerate() {
            let rms = legal.iter().map(|&m| RootMove::new(m)).collect();
            w.prepare(
                &self.pos,
                rms,
                limits,
                ctl.clone(),
                (i == 0).then(|| info.clone()),
            );
        }
        let pos = self.pos.clone();
        let thread_ctl = ctl.clone();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(super::alphabeta::SEARCH_STACK_BYTES)
            .spawn(move || {
                let outcome = run_workers(&mut workers, &thread_ctl);
                let line = match outcome.best {
                    Some(rm) => {
                        let ponder = rm
                            .pv
                            .get(1)
                            .copied()
                            .or_else(|| ponder_from_tt(&pos, rm.mv, &tt));
                        match ponder {
                            Some(p) => format!("bestmove {} ponder {p}", rm.mv),
                            None => format!("bestmove {}", rm.mv),
                        }
                    }
                    None => "bestmove resign".to_string(),
                };
                emit(&line);
                workers
            });
        match handle {
            Ok(handle) => {
                self.running = Some(Running {
                    ctl,
                    handle,
                    params,
                    ply,
                    black,
                })
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot start the search thread");
                emit(&format!("bestmove {}", legal[0]));
            }
        }
    }
}

/// Whether `EvalFile`'s value names an NNUE net: a built-in net (`builtin:n1`), or a file (not
/// empty, not a `builtin:` round)
/// whose first bytes are the NNUE format's version. Anything else goes to the linear loader,
/// which says why it refuses what it cannot read.
fn is_nnue_file(name: &str) -> bool {
    use std::io::Read;
    if builtin::is_builtin_net(name) {
        return true;
    }
    if name.is_empty() || name.starts_with(BUILTIN_PREFIX) {
        return false;
    }
    let mut head = [0u8; 4];
    std::fs::File::open(name)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| nnue::looks_like_nnue(&head))
}

/// Runs the engine on stdin/stdout until `quit` or end of input, with the options' defaults
/// in `defaults` ([`Options::default`], or [`Options::member`] for `gougi search --member`).
pub fn run_usi(defaults: Options) -> anyhow::Result<()> {
    // End of input is `quit`: the channel closes and the loop below ends.
    let rx = crate::usi::StdinLines::spawn()?;
    let mut engine = Engine::with_defaults(defaults);
    for line in rx {
        if !engine.handle(&line) {
            break;
        }
    }
    engine.stop();
    Ok(())
}
