//! Soak test of the consultation (issue #17's acceptance): the real `gougi` binary, driven as a
//! GUI, plays many games against a random opponent with three faulty mock members, and every
//! `bestmove` is judged.
//!
//! - Members: `examples/mock_engine` with `faults: 5 seed …` (crash, hang, garbage, illegal,
//!   unparsable, stale, slow — one per `go` at 5 %) and the `play` action, which answers a
//!   legal move from a moves file this test rewrites before every `go` (the mock knows no
//!   rules). The file keeps every position of the run, not only the current one: a member
//!   that reads a `go` late (busy, slow, restarted) still answers the position it was told,
//!   as a real engine would. Injected faults are appended to one faults log.
//! - Clock: `go btime 0 wtime 0 byoyomi 200`. About 30 % of gougi's moves are followed by
//!   `go ponder` on a predicted reply; half of those end in `ponderhit`, half in `stop` and a
//!   `go` on another reply (a ponder miss, timed from `stop`: the GUI's clock runs from the
//!   opponent's move).
//! - Judged: every `bestmove` with the independent oracle `shogi_legality_lite` and, as a
//!   second opinion, `gougi::shogi`; `resign` counts as illegal unless the side to move has
//!   no legal move, `win` unless the declaration holds. Missing: no `bestmove` within
//!   byoyomi + 1 s. Late: after byoyomi + 30 ms (scheduling slack), less any stall of the
//!   whole machine in that time (see [`stalls`]: reported apart, not counted). Fallbacks:
//!   gougi's own `no member answered in time` / `gougi answers by itself` lines. Members alive: live
//!   `mock_engine` children of gougi after a final `isready`. RSS: gougi's `VmRSS`. gougi's
//!   log (`info`, or `GOUGI_LOG`) is kept for the run: a late answer's report quotes it.
//!
//! The runs of one test go side by side. `soak_short` (in the default run, ~60 `go`s) and `soak_long` (`#[ignore]`, ≥ 1,000 `go`s:
//! `cargo test --test soak soak_long -- --ignored --nocapture`) assert the same
//! acceptance criteria and print a summary block.

mod common;

use common::{mock_config, scratch_dir};
use gougi::shogi::Position;
use shogi_core::{PartialPosition, ToUsi};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

const BYOYOMI_MS: u64 = 200;
/// Scheduling slack on a loaded machine before a `bestmove` counts as late.
const SLACK: Duration = Duration::from_millis(30);
/// No `bestmove` this long after the clock started: missing.
const MISSING_AFTER: Duration = Duration::from_millis(BYOYOMI_MS + 1000);
const FAULT_PERCENT: u32 = 5;
const PONDER_PERCENT: u64 = 30;
const MEMBERS: usize = 3;
/// A GUI gives up on `readyok` after some seconds (issue #17, defect 4: "answer `readyok`
/// without the dead member after a few seconds"); 10 s leaves room for any such limit.
const READYOK_WITHIN: Duration = Duration::from_secs(10);

/// xorshift64*: a tiny deterministic PRNG for the opponent and the ponder choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

/// The machine's own stalls, as (woke, overrun): a thread sleeps 1 ms at a time and keeps every
/// sleep that overran by more than 5 ms. An overloaded or paused machine (a CI runner's noisy
/// neighbour, a VM's stolen time) holds up every process on it alike, gougi and this test's
/// clock-reading thread included; a `bestmove` that is late only by such a stall says nothing
/// about gougi's deadlines.
fn stalls() -> &'static Mutex<Vec<(Instant, Duration)>> {
    static STALLS: OnceLock<Mutex<Vec<(Instant, Duration)>>> = OnceLock::new();
    STALLS.get_or_init(|| {
        std::thread::spawn(|| loop {
            let slept = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
            let woke = Instant::now();
            let over = woke
                .duration_since(slept)
                .saturating_sub(Duration::from_millis(1));
            if over > Duration::from_millis(5) {
                stalls().lock().unwrap().push((woke, over));
            }
        });
        Mutex::new(Vec::new())
    })
}

/// How much of `from`…`to` the machine stood still ([`stalls`]).
fn stalled(from: Instant, to: Instant) -> Duration {
    stalls()
        .lock()
        .unwrap()
        .iter()
        .map(|&(woke, over)| {
            let start = (woke - over).max(from);
            woke.min(to).saturating_duration_since(start)
        })
        .sum()
}

/// gougi as a USI engine, each stdout line stamped when it was read.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
}

impl Engine {
    /// gougi with `config`; its log goes to `log`.
    fn start(config: &Path, log: &Path) -> Engine {
        let level = std::env::var("GOUGI_LOG").unwrap_or_else(|_| "info".into());
        let mut child = Command::new(env!("CARGO_BIN_EXE_gougi"))
            .arg("--config")
            .arg(config)
            .env_remove("GOUGI_CONFIG")
            .env_remove("GOUGI_LOG_FILE")
            .env("GOUGI_LOG", level)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).expect("gougi's log"))
            .spawn()
            .expect("start gougi");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a line; returns when it was written.
    fn send(&mut self, line: &str) -> Instant {
        let stdin = self.stdin.as_mut().expect("stdin open");
        // A dead gougi shows up as missing answers; the write error itself says nothing more.
        let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
        Instant::now()
    }

    fn next(&self, deadline: Instant) -> Option<(Instant, String)> {
        // Timeout and a closed stdout (gougi exited) both mean "no line".
        self.lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one soak run measured.
#[derive(Default, Debug)]
struct Stats {
    label: String,
    games: u32,
    gos: u32,
    ponder_hits: u32,
    ponder_misses: u32,
    bestmoves: u32,
    illegal: u32,
    /// `resign`/`win` on a live position (counted in `illegal` too).
    bad_resign: u32,
    illegal_ponder: u32,
    /// The oracle and `gougi::shogi` disagree on a move's legality.
    disagreements: u32,
    missing: u32,
    late: u32,
    /// Later than byoyomi + slack, but not once the machine's stalls are taken off.
    late_in_stalls: u32,
    /// The longest such stall.
    longest_stall: Duration,
    /// When the first late answers' clocks started and they came: gougi's log is quoted
    /// for these.
    late_windows: Vec<(Instant, Instant)>,
    /// gougi's log lines in `late_windows`.
    log_excerpt: Vec<String>,
    /// A `bestmove` no `go` asked for.
    extra: u32,
    max_latency: Duration,
    latency_sum: Duration,
    /// Per kind of answer (`go`, `ponderhit`, `go after ponder miss` — timed from the `stop` —
    /// and `stopped ponder`): the slowest, and how many were late.
    by_kind: BTreeMap<&'static str, (Duration, u32)>,
    /// `bestmove`s preceded (since the previous one) by a fallback line: the fallback moves.
    fallback_moves: u32,
    /// A fallback line was read and its `bestmove` has not come yet.
    fallback_pending: bool,
    /// The fallback lines themselves, by wording.
    fallbacks: u32,
    self_answers: u32,
    faults: BTreeMap<String, u32>,
    exited_reports: u32,
    hang_reports: u32,
    discarded_reports: u32,
    restart_failed: u32,
    left_out_reports: u32,
    alive_end: usize,
    readyok_end: bool,
    /// `isready`s answered later than [`READYOK_WITHIN`] (or never).
    readyok_slow: u32,
    readyok_max: Duration,
    orphans_after_quit: usize,
    rss_kb: Vec<(String, u64)>,
    /// The first few problems, for the report.
    samples: Vec<String>,
}

impl Stats {
    fn sample(&mut self, text: String) {
        if self.samples.len() < 12 {
            self.samples.push(text);
        }
    }

    fn faults_total(&self) -> u32 {
        self.faults.values().sum()
    }

    fn fallback_total(&self) -> u32 {
        self.fallback_moves
    }

    /// RSS is flat when the end is within 10 % (at least 4 MiB) of the first sample after
    /// warm-up.
    fn rss_flat(&self) -> bool {
        match (self.rss_kb.get(1), self.rss_kb.last()) {
            (Some(&(_, warm)), Some(&(_, end))) => end <= warm + (warm / 10).max(4096),
            _ => false,
        }
    }

    fn summary(&self) -> String {
        let n = self.bestmoves.max(1);
        let rss: Vec<String> = self
            .rss_kb
            .iter()
            .map(|(l, kb)| format!("{l} {kb} kB"))
            .collect();
        let faults: Vec<String> = self
            .faults
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, (max, late))| format!("{k}: max {} ms, late {late}", max.as_millis()))
            .collect();
        format!(
            "=== soak {} ===\n\
             games {}, gos {} (ponderhit {}, ponder miss {}), bestmoves {}\n\
             illegal {} (resign/win on a live position {}), illegal ponder {}, oracle disagreements {}\n\
             missing {}, late {} (> {} ms + {} ms; {} more in machine stalls, longest {} ms), extra bestmoves {}, latency max {} ms, mean {} ms\n\
             by kind: {}\n\
             fallback moves {} (lines: no member answered {}, gougi answers by itself {}), faults injected {} ({})\n\
             gougi reports: exited {}, hangs {}, discarded {}, not ready {}, restart failed {}\n\
             isready: slowest readyok {} ms, later than {} s {}\n\
             members alive at the end {}/{} (readyok {}), orphans after quit {}\n\
             RSS {} ({})\n\
             first problems: {:#?}{}",
            self.label,
            self.games,
            self.gos,
            self.ponder_hits,
            self.ponder_misses,
            self.bestmoves,
            self.illegal,
            self.bad_resign,
            self.illegal_ponder,
            self.disagreements,
            self.missing,
            self.late,
            BYOYOMI_MS,
            SLACK.as_millis(),
            self.late_in_stalls,
            self.longest_stall.as_millis(),
            self.extra,
            self.max_latency.as_millis(),
            (self.latency_sum / n).as_millis(),
            kinds.join("; "),
            self.fallback_total(),
            self.fallbacks,
            self.self_answers,
            self.faults_total(),
            faults.join(", "),
            self.exited_reports,
            self.hang_reports,
            self.discarded_reports,
            self.left_out_reports,
            self.restart_failed,
            self.readyok_max.as_millis(),
            READYOK_WITHIN.as_secs(),
            self.readyok_slow,
            self.alive_end,
            MEMBERS,
            self.readyok_end,
            self.orphans_after_quit,
            rss.join(", "),
            if self.rss_flat() { "flat" } else { "GROWING" },
            self.samples,
            if self.log_excerpt.is_empty() {
                String::new()
            } else {
                format!(
                    "\ngougi's log while late:\n{}",
                    self.log_excerpt.join("\n")
                )
            },
        )
    }

    /// The acceptance criteria of issue #17 that this run breaks.
    fn failures(&self, min_gos: u32) -> Vec<String> {
        let mut f = Vec::new();
        let mut check = |ok: bool, what: String| {
            if !ok {
                f.push(format!("{}: {what}", self.label));
            }
        };
        check(self.gos >= min_gos, format!("{} gos < {min_gos}", self.gos));
        check(
            self.illegal == 0,
            format!("{} illegal bestmoves", self.illegal),
        );
        check(
            self.illegal_ponder == 0,
            format!("{} illegal ponder moves", self.illegal_ponder),
        );
        check(
            self.disagreements == 0,
            format!("{} oracle/gougi disagreements", self.disagreements),
        );
        check(
            self.missing == 0,
            format!("{} missing bestmoves", self.missing),
        );
        check(self.late == 0, format!("{} late bestmoves", self.late));
        check(self.extra == 0, format!("{} extra bestmoves", self.extra));
        check(
            self.readyok_slow == 0,
            format!(
                "{} readyok later than {} s (slowest {} ms)",
                self.readyok_slow,
                READYOK_WITHIN.as_secs(),
                self.readyok_max.as_millis()
            ),
        );
        check(
            self.readyok_end && self.alive_end == MEMBERS,
            format!(
                "{}/{MEMBERS} members alive at the end (readyok {})",
                self.alive_end, self.readyok_end
            ),
        );
        check(
            self.fallback_total() <= self.faults_total(),
            format!(
                "{} fallbacks > {} faults injected",
                self.fallback_total(),
                self.faults_total()
            ),
        );
        check(self.faults_total() > 0, "no fault injected".into());
        check(
            self.ponder_hits > 0 && self.ponder_misses > 0,
            "no ponderhit or no ponder miss".into(),
        );
        check(self.rss_flat(), format!("RSS not flat: {:?}", self.rss_kb));
        check(
            self.orphans_after_quit == 0,
            format!("{} members left after quit", self.orphans_after_quit),
        );
        f
    }
}

/// The independent view of one game: the oracle position and the moves so far.
#[derive(Clone)]
struct Game {
    pos: PartialPosition,
    moves: Vec<String>,
}

impl Game {
    fn new() -> Game {
        Game {
            pos: PartialPosition::startpos(),
            moves: Vec::new(),
        }
    }

    fn command(&self) -> String {
        if self.moves.is_empty() {
            "position startpos".into()
        } else {
            format!("position startpos moves {}", self.moves.join(" "))
        }
    }

    fn legal(&self) -> Vec<shogi_core::Move> {
        shogi_legality_lite::all_legal_moves_partial(&self.pos)
    }

    fn legal_usi(&self) -> Vec<String> {
        self.legal().iter().map(|m| m.to_usi_owned()).collect()
    }

    /// Plays a move the oracle lists; false (and unchanged) otherwise.
    fn play(&mut self, mv: &str) -> bool {
        let Some(m) = self.legal().into_iter().find(|m| m.to_usi_owned() == mv) else {
            return false;
        };
        self.pos.make_move(m).expect("oracle move plays");
        self.moves.push(mv.to_owned());
        true
    }

    /// A well-formed move that is never legal: the side not to move's king, one step.
    fn illegal_move(&self) -> String {
        let them = self.pos.side_to_move().flip();
        let Some(k) = self.pos.king_position(them) else {
            return "5e5e".into();
        };
        let (f, r) = (k.file(), k.rank());
        let r2 = if r < 9 { r + 1 } else { r - 1 };
        let name = |f: u8, r: u8| format!("{f}{}", (b'a' + r - 1) as char);
        format!("{}{}", name(f, r), name(f, r2))
    }

    fn random_move(&self, rng: &mut Rng) -> Option<String> {
        let legal = self.legal_usi();
        if legal.is_empty() {
            None
        } else {
            Some(legal[rng.below(legal.len() as u64) as usize].clone())
        }
    }
}

/// The members' moves file: every position published so far in the run, one line each, so a
/// member answers the position it was told however late it reads its `go`. (USI answers
/// carry no request number: after a member's extra `bestmove`, gougi may take a member's
/// answer for the next request; with only the current position in the file, a mock that
/// read its `go` after the file moved on "resigned" for want of a move, which no real engine
/// does.)
struct MovesFile {
    path: PathBuf,
    text: String,
    known: std::collections::HashSet<String>,
}

impl MovesFile {
    fn new(path: PathBuf) -> MovesFile {
        MovesFile {
            path,
            text: String::new(),
            known: std::collections::HashSet::new(),
        }
    }

    /// Adds these games' positions and rewrites the file (atomically: the members read it at
    /// every `go`).
    fn publish(&mut self, games: &[&Game]) {
        for g in games {
            let command = g.command();
            if self.known.insert(command.clone()) {
                self.text += &format!(
                    "{command}\t{}\t{}\n",
                    g.legal_usi().join(" "),
                    g.illegal_move()
                );
            }
        }
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, &self.text).expect("moves file");
        std::fs::rename(&tmp, &self.path).expect("moves file rename");
    }
}

fn vm_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Live (not zombie) `mock_engine` processes whose parent is `pid`.
fn live_members(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(child) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: comm may hold spaces, so read after the last ')'.
        let Some(rest) = stat.rfind(')').map(|k| &stat[k + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(&state), Some(ppid)) = (fields.first(), fields.get(1)) else {
            continue;
        };
        if ppid.parse::<u32>().ok() == Some(pid) && state != "Z" && is_mock(child) {
            found.push(child);
        }
    }
    found
}

fn is_mock(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("mock_engine"))
}

/// Whether a process is still running (not gone, not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rfind(')')
            .and_then(|k| s[k + 1..].split_whitespace().next())
            .is_some_and(|st| st != "Z")
    })
}

/// Soak parameters.
struct Plan {
    label: &'static str,
    policy: &'static str,
    min_gos: u32,
    max_plies: usize,
    seed: u64,
    /// How long to wait for a `readyok` before the run ends: [`READYOK_WITHIN`] keeps a short
    /// run short; a long run waits longer to measure what comes after.
    readyok_patience: Duration,
}

/// The GUI side of one run.
struct Soak {
    engine: Engine,
    stats: Stats,
    rng: Rng,
    moves_file: MovesFile,
    readyok_patience: Duration,
}

impl Soak {
    /// Reads lines until a `bestmove` (judged against `game`) or `deadline`; counts the
    /// `info string` reports on the way. Returns the line and when it was read.
    fn bestmove(&mut self, deadline: Instant) -> Option<(Instant, String)> {
        while let Some((at, line)) = self.engine.next(deadline) {
            self.note(&line);
            if line.starts_with("bestmove") {
                return Some((at, line));
            }
        }
        None
    }

    fn note(&mut self, line: &str) {
        if line.starts_with("bestmove") {
            self.stats.fallback_moves += u32::from(self.stats.fallback_pending);
            self.stats.fallback_pending = false;
        }
        if !line.starts_with("info string [") {
            return;
        }
        let s = &mut self.stats;
        if line.contains("no member answered in time") {
            s.fallbacks += 1;
            s.fallback_pending = true;
        } else if line.contains("gougi answers by itself") {
            s.self_answers += 1;
            s.fallback_pending = true;
        } else if line.contains(" exited with ") {
            s.exited_reports += 1;
        } else if line.contains(") hangs (") {
            s.hang_reports += 1;
        } else if line.contains(" discarded") {
            s.discarded_reports += 1;
        } else if line.contains("restart failed") {
            s.restart_failed += 1;
        } else if line.contains("is not ready; left out") {
            s.left_out_reports += 1;
        }
    }

    /// Lines already there before a new command: any `bestmove` among them is extra.
    fn drain(&mut self) {
        while let Ok((_, line)) = self.engine.lines.try_recv() {
            self.note(&line);
            if line.starts_with("bestmove") {
                self.stats.extra += 1;
                self.stats.sample(format!("extra {line}"));
            }
        }
    }

    /// Waits for the answer to a search whose clock started at `clock`; judges it in `game`.
    /// `None` when it is missing (after a resynchronisation attempt).
    fn answer(&mut self, clock: Instant, game: &Game, what: &'static str) -> Option<String> {
        let got = self.bestmove(clock + MISSING_AFTER);
        let (at, line) = match got {
            Some(x) => x,
            None => {
                self.stats.missing += 1;
                self.stats
                    .sample(format!("missing ({what}) in {}", game.command()));
                // Give it a long while so the next command is not answered by this one.
                let (at, line) = self.bestmove(clock + Duration::from_secs(15))?;
                self.stats.sample(format!(
                    "  … came after {} ms",
                    at.duration_since(clock).as_millis()
                ));
                return Some(line);
            }
        };
        self.stats.bestmoves += 1;
        let latency = at.duration_since(clock);
        self.stats.max_latency = self.stats.max_latency.max(latency);
        self.stats.latency_sum += latency;
        let allowed = Duration::from_millis(BYOYOMI_MS) + SLACK;
        let over = latency > allowed;
        let stall = if over {
            stalled(clock, at)
        } else {
            Duration::ZERO
        };
        let late = over && latency.saturating_sub(stall) > allowed;
        let kind = self.stats.by_kind.entry(what).or_default();
        kind.0 = kind.0.max(latency);
        kind.1 += u32::from(late);
        if late {
            self.stats.late += 1;
            self.stats.sample(format!(
                "late {} ms ({what}; the machine stalled {} ms of it)",
                latency.as_millis(),
                stall.as_millis()
            ));
            if self.stats.late_windows.len() < 3 {
                self.stats.late_windows.push((clock, at));
            }
        } else if over {
            self.stats.late_in_stalls += 1;
            self.stats.longest_stall = self.stats.longest_stall.max(stall);
        }
        self.judge(&line, game);
        Some(line)
    }

    /// Checks one `bestmove` line in `game`'s position.
    fn judge(&mut self, line: &str, game: &Game) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mv = words.get(1).copied().unwrap_or("");
        let legal = game.legal_usi();
        let ours = Position::from_usi_position(&game.command()).expect("gougi reads the position");
        let s = &mut self.stats;
        match mv {
            "resign" => {
                if !legal.is_empty() {
                    s.illegal += 1;
                    s.bad_resign += 1;
                    s.sample(format!("resign with {} legal moves", legal.len()));
                }
            }
            "win" => {
                if !ours.declaration_win() {
                    s.illegal += 1;
                    s.bad_resign += 1;
                    s.sample(format!("false win in {}", game.command()));
                }
            }
            _ => {
                let by_oracle = legal.iter().any(|m| m == mv);
                let by_gougi = ours.parse_usi_move(mv).is_ok();
                if by_oracle != by_gougi {
                    s.disagreements += 1;
                    s.sample(format!(
                        "{mv}: oracle {by_oracle}, gougi {by_gougi} in {}",
                        game.command()
                    ));
                }
                if !by_oracle {
                    s.illegal += 1;
                    s.sample(format!("illegal `{line}` in {}", game.command()));
                } else if let (Some(&"ponder"), Some(p)) = (words.get(2), words.get(3)) {
                    let mut after = game.clone();
                    after.play(mv);
                    if !after.play(p) {
                        s.illegal_ponder += 1;
                        s.sample(format!("illegal ponder `{line}` in {}", game.command()));
                    }
                }
            }
        }
    }

    fn go_line() -> String {
        format!("go btime 0 wtime 0 byoyomi {BYOYOMI_MS}")
    }

    /// One `go` in `game`; the clock starts at `clock` (the `go` itself unless given).
    fn go(&mut self, game: &Game, clock: Option<Instant>, what: &'static str) -> Option<String> {
        self.moves_file.publish(&[game]);
        self.drain();
        self.engine.send(&game.command());
        let sent = self.engine.send(&Self::go_line());
        self.stats.gos += 1;
        self.answer(clock.unwrap_or(sent), game, what)
    }

    /// Plays one game; false when gougi stopped answering (the run ends).
    fn game(&mut self, plan: &Plan, black: bool) -> bool {
        self.stats.games += 1;
        let mut game = Game::new();
        // After a ponder miss, the `go` of the next move is timed from the `stop`.
        let mut clock = None;
        while game.moves.len() < plan.max_plies {
            let ours = (game.moves.len() % 2 == 0) == black;
            if !ours {
                let Some(mv) = game.random_move(&mut self.rng) else {
                    break; // the opponent is mated
                };
                game.play(&mv);
                continue;
            }
            let what = if clock.is_some() {
                "go after ponder miss"
            } else {
                "go"
            };
            let Some(line) = self.go(&game, clock.take(), what) else {
                return false;
            };
            let mv = line.split_whitespace().nth(1).unwrap_or("").to_owned();
            if !game.play(&mv) {
                break; // resign, win or illegal: judged already; the game is over
            }
            let predicted = line.split_whitespace().nth(3).map(str::to_owned);
            if !self.rng.percent(PONDER_PERCENT) {
                continue;
            }
            // Ponder on a predicted reply: gougi's own, else a random one.
            let guess = predicted
                .filter(|p| game.legal_usi().contains(p))
                .or_else(|| game.random_move(&mut self.rng));
            let Some(guess) = guess else { break };
            let mut pondered = game.clone();
            pondered.play(&guess);
            if pondered.legal().is_empty() {
                continue; // nothing to ponder on a mated position
            }
            let hit = self.rng.percent(50);
            let actual = if hit {
                guess.clone()
            } else {
                let others: Vec<String> = game
                    .legal_usi()
                    .into_iter()
                    .filter(|m| *m != guess)
                    .collect();
                if others.is_empty() {
                    guess.clone()
                } else {
                    others[self.rng.below(others.len() as u64) as usize].clone()
                }
            };
            let mut real = game.clone();
            real.play(&actual);
            self.moves_file.publish(&[&pondered, &real]);
            self.drain();
            self.engine.send(&pondered.command());
            self.engine
                .send(&format!("go ponder btime 0 wtime 0 byoyomi {BYOYOMI_MS}"));
            self.stats.gos += 1;
            // The opponent thinks 50…250 ms.
            std::thread::sleep(Duration::from_millis(50 + self.rng.below(200)));
            if actual == guess {
                self.stats.ponder_hits += 1;
                let at = self.engine.send("ponderhit");
                let Some(line) = self.answer(at, &pondered, "ponderhit") else {
                    return false;
                };
                game = pondered;
                let mv = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                if !game.play(&mv) {
                    break;
                }
                // The next move of ours is asked normally (no ponder chains, for simplicity).
            } else {
                self.stats.ponder_misses += 1;
                let at = self.engine.send("stop");
                // The answer to the stopped ponder is required but ignored by the GUI; it is
                // judged in the pondered position and must come before the next `go`.
                if self.answer_stopped(at, &pondered).is_none() {
                    return false;
                }
                game = real;
                clock = Some(at);
            }
        }
        self.engine.send("gameover draw");
        true
    }

    /// The answer to `stop` after `go ponder`: not late-judged on its own (the following `go`
    /// is timed from the `stop`), but it must come and be legal.
    fn answer_stopped(&mut self, at: Instant, pondered: &Game) -> Option<()> {
        match self.bestmove(at + MISSING_AFTER) {
            Some((answered, line)) => {
                self.stats.bestmoves += 1;
                // Not judged late by itself; shown for the report.
                let kind = self.stats.by_kind.entry("stopped ponder").or_default();
                kind.0 = kind.0.max(answered.duration_since(at));
                self.judge(&line, pondered);
                Some(())
            }
            None => {
                self.stats.missing += 1;
                self.stats.sample("missing (stopped ponder)".into());
                self.bestmove(at + Duration::from_secs(15)).map(|_| ())
            }
        }
    }

    /// `isready` … `readyok`: how long it took, `None` when it did not come within
    /// `readyok_patience`. A `readyok` later than [`READYOK_WITHIN`] (or none) is counted: a
    /// GUI would have given up.
    fn ready(&mut self) -> Option<Duration> {
        let sent = self.engine.send("isready");
        let mut took = None;
        while let Some((at, line)) = self.engine.next(sent + self.readyok_patience) {
            self.note(&line);
            if line == "readyok" {
                took = Some(at.duration_since(sent));
                break;
            }
            if line.starts_with("bestmove") {
                self.stats.extra += 1;
            }
        }
        match took {
            Some(t) if t <= READYOK_WITHIN => {}
            Some(t) => {
                self.stats.readyok_slow += 1;
                self.stats
                    .sample(format!("readyok after {} ms", t.as_millis()));
            }
            None => {
                self.stats.readyok_slow += 1;
                self.stats.sample("no readyok".into());
            }
        }
        if let Some(t) = took {
            self.stats.readyok_max = self.stats.readyok_max.max(t);
        }
        took
    }
}

fn run(plan: &Plan) -> Stats {
    let dir = scratch_dir(&format!("soak-{}", plan.label));
    let moves_file = dir.join("moves.tsv");
    let faults_log = dir.join("faults.log");
    let scripts: Vec<String> = (0..MEMBERS)
        .map(|k| {
            format!(
                "id name Faulty{k}\nmoves_file: {}\nfaults: {FAULT_PERCENT} seed {}\nfaults_log: {}\ngo: sleep 20 ; play\n",
                moves_file.display(),
                plan.seed * 10 + k as u64,
                faults_log.display()
            )
        })
        .collect();
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let config = mock_config(&dir, plan.policy, &refs, None, "");
    let gougi_log = dir.join("gougi.log");
    let engine = Engine::start(&config, &gougi_log);
    // Instants cannot be printed: gougi's log is matched by the wall clock.
    let epoch = (Instant::now(), SystemTime::now());
    let pid = engine.pid();
    let mut soak = Soak {
        engine,
        stats: Stats {
            label: plan.label.to_owned(),
            ..Stats::default()
        },
        rng: Rng(plan.seed | 1),
        moves_file: MovesFile::new(moves_file),
        readyok_patience: plan.readyok_patience,
    };
    soak.engine.send("usi");
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Some((_, line)) = soak.engine.next(deadline) {
        if line == "usiok" {
            break;
        }
    }
    assert!(soak.ready().is_some(), "gougi did not start");
    soak.stats.rss_kb.push(("start".into(), vm_rss_kb(pid)));
    let mut middle_done = false;
    let mut unready = false;
    while soak.stats.gos < plan.min_gos {
        if soak.stats.games > 0 && soak.ready().is_none() {
            unready = true;
            break; // gougi no longer answers: the run ends with what it measured
        }
        soak.engine.send("usinewgame");
        let black = soak.stats.games % 2 == 0;
        if !soak.game(plan, black) {
            soak.stats.sample("gougi stopped answering".into());
            break;
        }
        if soak.stats.games == 1 {
            soak.stats
                .rss_kb
                .push(("after game 1".into(), vm_rss_kb(pid)));
        } else if !middle_done && soak.stats.gos >= plan.min_gos / 2 {
            middle_done = true;
            soak.stats.rss_kb.push(("middle".into(), vm_rss_kb(pid)));
        }
    }
    // A member hung in the last `go` is killed 3 s after its `stop`; let that happen, then
    // `isready` restarts whoever is dead, as before any game.
    std::thread::sleep(Duration::from_millis(3500));
    // After an unanswered `isready` a second one would only wait again.
    soak.stats.readyok_end = !unready && soak.ready().is_some_and(|t| t <= READYOK_WITHIN);
    std::thread::sleep(Duration::from_millis(300));
    soak.drain();
    soak.stats.rss_kb.push(("end".into(), vm_rss_kb(pid)));
    let members = live_members(pid);
    soak.stats.alive_end = members.len();
    soak.engine.send("quit");
    let quit_by = Instant::now() + Duration::from_secs(5);
    while Instant::now() < quit_by && members.iter().any(|&m| running(m)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    soak.stats.orphans_after_quit = members.iter().filter(|&&m| running(m)).count();
    let log = std::fs::read_to_string(&faults_log).unwrap_or_default();
    for line in log.lines() {
        let kind = line.split_whitespace().next().unwrap_or("?").to_owned();
        *soak.stats.faults.entry(kind).or_default() += 1;
    }
    let log = std::fs::read_to_string(&gougi_log).unwrap_or_default();
    soak.stats.log_excerpt = log_in(&log, &soak.stats.late_windows, epoch);
    let _ = std::fs::remove_dir_all(&dir);
    soak.stats
}

/// The lines of gougi's `log` stamped within one of `windows` (from 300 ms before its start),
/// at most 60. Log lines begin with an RFC 3339 UTC time (`2026-12-03T08:59:19.438523Z`);
/// `epoch` pairs an `Instant` with the wall clock, to place the windows.
fn log_in(log: &str, windows: &[(Instant, Instant)], epoch: (Instant, SystemTime)) -> Vec<String> {
    let day_seconds = |t: SystemTime| {
        let unix = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
        unix.as_secs_f64() % 86_400.0
    };
    let wall = |i: Instant| day_seconds(epoch.1 + i.saturating_duration_since(epoch.0));
    let spans: Vec<(f64, f64)> = windows
        .iter()
        .map(|&(from, to)| (wall(from) - 0.3, wall(to) + 0.01))
        .collect();
    let stamp = |line: &str| -> Option<f64> {
        let hms = line.get(11..26)?;
        let h: f64 = hms.get(0..2)?.parse().ok()?;
        let m: f64 = hms.get(3..5)?.parse().ok()?;
        let s: f64 = hms.get(6..)?.parse().ok()?;
        Some(h * 3600.0 + m * 60.0 + s)
    };
    log.lines()
        .filter(|l| stamp(l).is_some_and(|t| spans.iter().any(|&(a, b)| a <= t && t <= b)))
        .take(60)
        .map(str::to_owned)
        .collect()
}

/// Runs the plans side by side (each is its own gougi with its own members), prints each
/// summary, then asserts the acceptance criteria of all of them.
fn soak(plans: &[Plan]) {
    // The stall watch runs from the start: a stall is known only if it was watched.
    stalls();
    let all: Vec<Stats> = std::thread::scope(|s| {
        let runs: Vec<_> = plans.iter().map(|p| s.spawn(move || run(p))).collect();
        runs.into_iter()
            .map(|r| r.join().expect("soak run"))
            .collect()
    });
    let mut failures = Vec::new();
    for (plan, stats) in plans.iter().zip(&all) {
        println!("{}", stats.summary());
        failures.extend(stats.failures(plan.min_gos));
    }
    assert!(
        failures.is_empty(),
        "acceptance criteria broken:\n{}",
        failures.join("\n")
    );
}

/// ~60 `go`s over short games, both policies; part of the default test run.
#[test]
fn soak_short() {
    soak(&[
        Plan {
            label: "short/majority",
            policy: "majority",
            min_gos: 40,
            max_plies: 30,
            seed: 17,
            readyok_patience: READYOK_WITHIN,
        },
        Plan {
            label: "short/optimistic",
            policy: "optimistic",
            min_gos: 20,
            max_plies: 30,
            seed: 18,
            readyok_patience: READYOK_WITHIN,
        },
    ]);
}

/// ≥ 1,000 `go`s (700 majority + 400 optimistic) over 80-ply games: several minutes.
#[test]
#[ignore = "long: run with --ignored"]
fn soak_long() {
    soak(&[
        Plan {
            label: "long/majority",
            policy: "majority",
            min_gos: 700,
            max_plies: 80,
            seed: 1017,
            readyok_patience: Duration::from_secs(90),
        },
        Plan {
            label: "long/optimistic",
            policy: "optimistic",
            min_gos: 400,
            max_plies: 80,
            seed: 1018,
            readyok_patience: Duration::from_secs(90),
        },
    ]);
}
