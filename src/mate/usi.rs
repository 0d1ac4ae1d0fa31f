//! `gougi mate`: the df-pn solver as a USI engine on stdin/stdout.
//!
//! Lines are read by `crate::usi`'s lenient parser, the proxy's own (one vocabulary: a `go`
//! field it cannot read is dropped, as everywhere in gougi).
//! Commands: `usi`, `isready`, `setoption name <n> value <v>`, `usinewgame`,
//! `position startpos|sfen <4 fields> [moves …]`, `go mate <ms>|infinite`, plain `go …`,
//! `stop`, `quit` (`gameover`/`ponderhit` are accepted and ignored).
//!
//! - `go mate` answers `checkmate <moves>`, `checkmate nomate` or `checkmate timeout`; `stop`
//!   and the `go mate <ms>` limit end it within a few ms in every phase of the solve (stdin is
//!   read on its own thread; the search polls a flag). A line is answered only once the rules
//!   core has verified it ([`super::driver`]); a mate proven but not yet proven shortest when
//!   stopped is still answered with its (verified) line. `nodes N` on the same line (`go nodes
//!   N mate 10000`, as gougi's consultation sends under `go nodes`) also ends it after N nodes,
//!   which gives the same answer on every run.
//! - A plain `go` (not mate) searches for a mate for `movetime`, else `byoyomi`, else 1 s
//!   (`infinite`/`ponder`: until `stop`), then answers `bestmove <first move of the mate>` with
//!   an `info score mate` line, or `bestmove resign` when no mate was found: this engine has no
//!   evaluation, so "no mate found" is all it can say.
//! - Options: `USI_Hash` (MiB of table), `MateMode` (`shortest`: prove the mate minimal under
//!   plain minimax, the default; `first`: report the first mate found), `RootInCheck` — what
//!   to do when the side to move (the attacker) is in check at the root: `evade` (default)
//!   searches on, the attacker's moves being the legal moves that both escape the check and
//!   give check; `nomate` answers `checkmate nomate` at once. `DoubleCount` (default false)
//!   turns on the double-count correction in DAGs (see `super::search`).
//! - `MateKind` (`normal`, the default; `helpmate`): with `helpmate`, `go mate` looks for a
//!   shortest helpmate (協力詰め, [`super::helpmate`]: both sides cooperate, every attacker move
//!   a check) and answers `checkmate <line>`, `checkmate nomate` (proven: none within
//!   `HelpmateMaxPly` plies, default 31, or none at any length — an `info string` says which)
//!   or `checkmate timeout`. A plain `go` still looks for a normal mate: a helpmate is no reason
//!   to play a move in a game. The `USI_Hash` budget goes to the helpmate table then (the df-pn
//!   table shrinks to 1 MiB), so the two never take twice the memory.
//! - While solving, an `info time … nodes … nps … hashfull … pv <current line>` about every
//!   second. stdout is only written here (USI); logs go through `tracing` to stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::driver::{solve_position, DriveOptions};
use super::helpmate::{self, solve_helpmate, HelpLimits, HelpOutcome, HelpProgress, HelpTable};
use super::problems::verify_mate_line;
use super::search::Progress;
use super::solver::{MateMode, MateOutcome};
use super::tt::MateTable;
use crate::shogi::Position;
use crate::usi::{GoLimits, GuiCommand, MateLimit, SetOption, Strictness};

const DEFAULT_HASH_MB: usize = 256;
const MAX_HASH_MB: usize = 1 << 20;
/// The largest `HelpmateMaxPly`: the search recurses once per ply (see `super::helpmate`).
const MAX_HELP_PLIES: u32 = 1023;

/// Options settable with `setoption`.
#[derive(Clone, Debug)]
struct Options {
    hash_mb: usize,
    mode: MateMode,
    root_in_check_nomate: bool,
    double_count: bool,
    /// `MateKind helpmate`: `go mate` solves helpmates.
    helpmate: bool,
    /// `HelpmateMaxPly`: the longest helpmate looked for.
    help_max_plies: u32,
}

/// What `go` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoKind {
    /// `go mate`: answer `checkmate …`.
    Mate,
    /// Any other `go`: answer `bestmove …`.
    Play,
}

struct Engine {
    options: Options,
    position: Option<Position>,
    table: Arc<Mutex<MateTable>>,
    table_mb: usize,
    help_table: Arc<Mutex<HelpTable>>,
    stop: Arc<AtomicBool>,
    worker: Option<JoinHandle<()>>,
}

fn emit(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A closed stdout means the GUI is gone; there is nobody left to tell.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Run the engine on the process's stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    let rx = crate::usi::StdinLines::spawn()?;
    let mut engine = Engine {
        options: Options {
            hash_mb: DEFAULT_HASH_MB,
            mode: MateMode::Shortest,
            root_in_check_nomate: false,
            double_count: false,
            helpmate: false,
            help_max_plies: helpmate::DEFAULT_MAX_PLIES,
        },
        position: None,
        table: Arc::new(Mutex::new(MateTable::new(1))),
        table_mb: 1,
        help_table: Arc::new(Mutex::new(HelpTable::new(0))),
        stop: Arc::new(AtomicBool::new(false)),
        worker: None,
    };
    while let Ok(line) = rx.recv() {
        if !engine.handle(line.trim()) {
            break;
        }
    }
    engine.stop_search();
    Ok(())
}

impl Engine {
    /// Handle one line; `false` on `quit`.
    fn handle(&mut self, line: &str) -> bool {
        // One vocabulary with the proxy: the lenient parser of `crate::usi` (it never fails on a
        // line a GUI sends; an unknown word comes back as `Unknown`).
        let command = match GuiCommand::parse(line, Strictness::Lenient) {
            Ok(command) => command,
            Err(e) => {
                tracing::warn!(line, error = %e, "unreadable command");
                emit(&format!("info string error: {e}"));
                if line.split_whitespace().next() == Some("position") {
                    // A refused position must not leave the previous one in place: the next
                    // `go` would answer for a position the GUI no longer has.
                    self.stop_search();
                    self.position = None;
                }
                return true;
            }
        };
        match command {
            GuiCommand::Usi => {
                emit("id name gougi-mate");
                emit("id author the gougi developers");
                emit(&format!(
                    "option name USI_Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
                ));
                emit("option name MateMode type combo default shortest var shortest var first");
                emit("option name RootInCheck type combo default evade var evade var nomate");
                emit("option name DoubleCount type check default false");
                emit("option name MateKind type combo default normal var normal var helpmate");
                emit(&format!(
                    "option name HelpmateMaxPly type spin default {} min 1 max {MAX_HELP_PLIES}",
                    helpmate::DEFAULT_MAX_PLIES
                ));
                emit("usiok");
            }
            GuiCommand::IsReady => {
                if self.worker.is_none() {
                    self.ensure_table();
                }
                emit("readyok");
            }
            GuiCommand::SetOption(o) => self.set_option(&o),
            GuiCommand::UsiNewGame
            | GuiCommand::GameOver(_)
            | GuiCommand::PonderHit(_)
            | GuiCommand::MateInfo(_) => {}
            GuiCommand::Position(p) => {
                self.stop_search();
                match Position::from_usi_position(&p.to_string()) {
                    Ok(p) => self.position = Some(p),
                    Err(e) => {
                        self.position = None;
                        tracing::warn!(%p, error = %e, "bad position");
                        emit(&format!("info string error: {e}"));
                    }
                }
            }
            GuiCommand::Go(limits) => self.go(&limits),
            GuiCommand::Stop => self.stop_search(),
            GuiCommand::Quit => return false,
            GuiCommand::Unknown(line) if line.is_empty() => {}
            GuiCommand::Unknown(line) => {
                tracing::warn!(line, "unknown command");
                emit(&format!("info string unknown command: {line}"));
            }
        }
        true
    }

    fn set_option(&mut self, o: &SetOption) {
        let (name, value) = (o.name.as_str(), o.value.as_deref().unwrap_or("").trim());
        match (name, value) {
            ("USI_Hash" | "Hash", v) => match v.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => self.options.hash_mb = mb,
                _ => emit(&format!("info string error: bad USI_Hash value {v}")),
            },
            ("MateMode", "shortest") => self.options.mode = MateMode::Shortest,
            ("MateMode", "first") => self.options.mode = MateMode::First,
            ("RootInCheck", "evade") => self.options.root_in_check_nomate = false,
            ("RootInCheck", "nomate") => self.options.root_in_check_nomate = true,
            ("DoubleCount", "true") => self.options.double_count = true,
            ("DoubleCount", "false") => self.options.double_count = false,
            ("MateKind", "normal") => self.options.helpmate = false,
            ("MateKind", "helpmate") => self.options.helpmate = true,
            ("HelpmateMaxPly", v) => match v.parse::<u32>() {
                Ok(n) if (1..=MAX_HELP_PLIES).contains(&n) => self.options.help_max_plies = n,
                _ => emit(&format!("info string error: bad HelpmateMaxPly value {v}")),
            },
            // USI's other reserved names (`USI_Ponder`, `USI_OwnBook`, …): GUIs send them to
            // every engine before each game, and a solver has no use for them.
            (n, _) if crate::usi::option::is_reserved(n) => {}
            _ => emit(&format!(
                "info string error: unknown option or value: {name} = {value}"
            )),
        }
    }

    /// (Re)allocate the tables if `USI_Hash` or `MateKind` changed. Only called with no search
    /// running. The `USI_Hash` budget goes to the table of the kind in use; the other one is
    /// kept minimal, so switching kinds never holds both at full size.
    fn ensure_table(&mut self) {
        let (mate_mb, help_mb) = if self.options.helpmate {
            (1, self.options.hash_mb)
        } else {
            (self.options.hash_mb, 0)
        };
        let mut help = match self.help_table.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        if help.size_mb() != help_mb {
            // Free the old table before allocating the new one.
            *help = HelpTable::new(0);
            *help = HelpTable::new(help_mb);
        }
        drop(help);
        let links = self.options.double_count;
        let links_now = self
            .table
            .lock()
            .map(|t| t.has_parent_links())
            .unwrap_or(false);
        if self.table_mb != mate_mb || links != links_now {
            // Drop the old table before allocating the new one, so both never coexist.
            if let Ok(mut t) = self.table.lock() {
                *t = MateTable::new(1);
            }
            self.table = Arc::new(Mutex::new(MateTable::with_parent_links(mate_mb, links)));
            self.table_mb = mate_mb;
        }
    }

    fn stop_search(&mut self) {
        if let Some(worker) = self.worker.take() {
            self.stop.store(true, Ordering::Relaxed);
            if worker.join().is_err() {
                tracing::error!("mate worker panicked");
            }
        }
    }

    fn go(&mut self, limits: &GoLimits) {
        self.stop_search();
        self.ensure_table();
        // `go mate … nodes N` (gougi's consultation sends it for node-limited rounds): a node
        // budget beside the time limit, so the answer does not depend on the machine.
        let max_nodes = limits.nodes;
        let (kind, limit, wait_for_stop) = match limits.mate {
            Some(MateLimit::Time(ms)) => (GoKind::Mate, Some(Duration::from_millis(ms)), false),
            Some(MateLimit::Infinite) => (GoKind::Mate, None, false),
            None if limits.infinite || limits.ponder => (GoKind::Play, None, true),
            None => {
                let ms = limits
                    .movetime
                    .or(limits.byoyomi)
                    .filter(|&ms| ms > 0)
                    .unwrap_or(1000);
                (GoKind::Play, Some(Duration::from_millis(ms)), false)
            }
        };
        let Some(position) = self.position.clone() else {
            emit("info string error: go without a valid position");
            emit(match kind {
                GoKind::Mate => "checkmate nomate",
                GoKind::Play => "bestmove resign",
            });
            return;
        };
        self.stop = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&self.stop);
        let table = Arc::clone(&self.table);
        let options = self.options.clone();
        if kind == GoKind::Mate && options.helpmate {
            let table = Arc::clone(&self.help_table);
            let worker = std::thread::Builder::new()
                .name("mate-go".into())
                .spawn(move || help_and_answer(position, table, stop, options, (limit, max_nodes)));
            match worker {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    tracing::error!(error = %e, "cannot start the search");
                    emit("checkmate timeout");
                }
            }
            return;
        }
        let worker = std::thread::Builder::new()
            .name("mate-go".into())
            .spawn(move || {
                search_and_answer(
                    position,
                    table,
                    stop,
                    options,
                    kind,
                    (limit, max_nodes),
                    wait_for_stop,
                )
            });
        match worker {
            Ok(w) => self.worker = Some(w),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the search");
                emit(match kind {
                    GoKind::Mate => "checkmate timeout",
                    GoKind::Play => "bestmove resign",
                });
            }
        }
    }
}

fn search_and_answer(
    position: Position,
    table: Arc<Mutex<MateTable>>,
    stop: Arc<AtomicBool>,
    options: Options,
    kind: GoKind,
    (limit, max_nodes): (Option<Duration>, Option<u64>),
    wait_for_stop: bool,
) {
    let start = Instant::now();
    let outcome = {
        let mut table = match table.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut report = |p: &Progress<'_, crate::shogi::types::Move>| {
            let pv: Vec<String> = p.line.iter().map(|m| m.to_string()).collect();
            emit(&info_line(None, p.elapsed_ms, p.nodes, p.hashfull, &pv));
        };
        let drive = DriveOptions {
            mode: options.mode,
            root_in_check_nomate: options.root_in_check_nomate,
            double_count: options.double_count,
            max_nodes,
        };
        let deadline = limit.map(|l| start + l);
        let (outcome, stats) = solve_position(
            &position,
            &mut table,
            deadline,
            &stop,
            drive,
            Some(&mut report),
        );
        let ms = stats.elapsed.as_millis() as u64;
        emit(&info_line(None, ms, stats.nodes, table.hashfull(), &[]));
        outcome
    };
    if wait_for_stop {
        // `go infinite`/`go ponder`: USI forbids `bestmove` before `stop`.
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    if let MateOutcome::Mate { minimal: false, .. } = outcome {
        if options.mode == MateMode::Shortest {
            emit("info string mate found, but not proven shortest in time");
        }
    }
    match (kind, outcome) {
        (GoKind::Mate, MateOutcome::Mate { moves, .. }) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            emit(&format!("checkmate {}", text.join(" ")));
        }
        (GoKind::Mate, MateOutcome::NoMate) => emit("checkmate nomate"),
        (GoKind::Mate, MateOutcome::Timeout) => emit("checkmate timeout"),
        (GoKind::Play, MateOutcome::Mate { moves, .. }) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            emit(&format!(
                "info score mate {} pv {}",
                moves.len(),
                text.join(" ")
            ));
            emit(&format!("bestmove {}", text[0]));
        }
        (GoKind::Play, _) => emit("bestmove resign"),
    }
}

/// `go mate` under `MateKind helpmate`: solve, verify the line with the rules core, answer.
fn help_and_answer(
    position: Position,
    table: Arc<Mutex<HelpTable>>,
    stop: Arc<AtomicBool>,
    options: Options,
    (limit, max_nodes): (Option<Duration>, Option<u64>),
) {
    if options.root_in_check_nomate && position.in_check() {
        emit("checkmate nomate");
        return;
    }
    let start = Instant::now();
    let mut table = match table.lock() {
        Ok(t) => t,
        Err(poisoned) => poisoned.into_inner(),
    };
    let limits = HelpLimits {
        deadline: limit.map(|l| start + l),
        stop: &stop,
        max_plies: options.help_max_plies,
        max_nodes,
    };
    let mut report = |p: &HelpProgress| {
        emit(&info_line(
            Some(p.depth),
            p.elapsed_ms,
            p.nodes,
            p.hashfull,
            &[],
        ));
    };
    let (outcome, stats) = solve_helpmate(&position, &mut table, &limits, Some(&mut report));
    let ms = stats.elapsed.as_millis() as u64;
    emit(&info_line(None, ms, stats.nodes, table.hashfull(), &[]));
    match outcome {
        HelpOutcome::Mate(moves) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            // The rules core checks the line move by move (legal, every attacker move a check,
            // mate at the end) before it leaves: a failure is a solver bug, not a helpmate.
            match verify_mate_line(&position, &text) {
                Ok(_) => emit(&format!("checkmate {}", text.join(" "))),
                Err(e) => {
                    tracing::error!(
                        sfen = position.to_sfen(),
                        line = text.join(" "),
                        error = %e,
                        "the helpmate line is not a mate; answering timeout"
                    );
                    emit("checkmate timeout");
                }
            }
        }
        HelpOutcome::NoMate { bound } => {
            if bound == helpmate::INFINITE {
                emit("info string no helpmate at any length");
            } else {
                emit(&format!(
                    "info string no helpmate within {} plies",
                    options.help_max_plies
                ));
            }
            emit("checkmate nomate");
        }
        HelpOutcome::Timeout => emit("checkmate timeout"),
    }
}

/// One `info` line of the solver's progress or final count: `depth` (helpmates: the length being
/// tried), time, nodes, nps, hashfull and the line so far (omitted when empty).
fn info_line(
    depth: Option<u32>,
    ms: u64,
    nodes: u64,
    hashfull: impl std::fmt::Display,
    pv: &[String],
) -> String {
    let depth = depth.map_or(String::new(), |d| format!("depth {d} "));
    let pv = if pv.is_empty() {
        String::new()
    } else {
        format!(" pv {}", pv.join(" "))
    };
    let nps = nodes * 1000 / ms.max(1);
    format!("info {depth}time {ms} nodes {nodes} nps {nps} hashfull {hashfull}{pv}")
}
