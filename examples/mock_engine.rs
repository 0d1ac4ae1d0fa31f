//! A scriptable mock USI engine for tests: it answers from a script, deterministically, so every
//! proxy path (policies, timeouts, crashes, garbage, ponder, mate) can be tested without a real
//! engine. std only (no tokio) so it builds fast; it does not use the `gougi` library either, so
//! it answers whatever the proxy sends, even lines gougi's parser would reject.
//!
//! # Running
//!
//! `mock_engine <script-file>`, or with no argument the script text is read from the
//! environment variable `MOCK_ENGINE_SCRIPT`. Integration tests find the binary at
//! `target/<profile>/examples/mock_engine` (see `tests/mock_engine.rs` for a locator).
//!
//! # Script format
//!
//! One directive per line; blank lines and lines starting with `#` are ignored.
//!
//! ```text
//! id name Mock A                    # `id …` and `option …` lines are printed, in order, on `usi`
//! id author gougi tests
//! option name OwnBook type check default true
//! transcript: /tmp/a.log            # append every received line to this file
//! start: say banner text            # actions run at launch, before reading stdin
//! usi: sleep 200 ; usiok            # actions after the id/option lines (default: usiok)
//! isready: sleep 100 ; readyok      # actions on isready (default: readyok)
//! go: info depth 1 score cp 10 pv 7g7f ; sleep 50 ; bestmove 7g7f ponder 3c3d
//! go: hang                          # the second `go`
//! mate: sleep 100 ; checkmate G*5b  # one entry per `go mate …`
//! moves_file: /tmp/moves.tsv        # legal moves per position, for the `play` action
//! faults: 5 seed 42                 # replace 5 % of the `go` answers by a random fault
//! faults_log: /tmp/faults.log       # append one line per injected fault
//! skill: Skill 37 40                # resign more the further option Skill is from 37 (tune tests)
//! ```
//!
//! `go:` entries answer the `go` commands that are not `go mate`, in order; when they run out
//! the last one repeats; with none, a `go` gets `bestmove resign`. `mate:` entries work the same
//! for `go mate …`, with `checkmate notimplemented` as the default.
//!
//! An entry is a list of actions separated by `;` (so printed text cannot contain `;`):
//!
//! | action | effect |
//! |---|---|
//! | `info …`, `bestmove …`, `checkmate …`, `usiok`, `readyok`, `id …`, `option …` | print the action text as a line, verbatim |
//! | `say <text>` | print `<text>` verbatim (garbage, banners, anything) |
//! | `stderr <text>` | print `<text>` on stderr (which a proxy must not relay to the GUI) |
//! | `sleep <ms>` | wait; a `stop` (or `gameover`) cuts this and every later `sleep` short |
//! | `busy <ms>` | wait the full time even if `stop` arrives (the stop still counts for later actions) |
//! | `lag <ms>` | wait the full time without reading input: what arrives meanwhile is read afterwards, in order, so a `stop` sent after the next `go` still stops that `go` (unlike `busy`, which takes it for this search); a slow reply to `stop` is `sleep 4000 ; lag 100 ; play` |
//! | `wait stop` | hold until `stop` (or `gameover`) arrives; at once if it already did |
//! | `think` | use the clock as an engine that spends all of it: wait until the `go`'s `movetime`, else its `byoyomi`, has passed since the `go` was read (a `stop` cuts it short; with neither, until `stop`) |
//! | `hang` | never print again and ignore everything (including `quit`); the transcript is still written; exits at stdin EOF so no process is left behind |
//! | `linger` | never print again, never read again: stdin EOF, `quit` and `stop` change nothing; runs until killed (a member deep in a search that ignores its closed input: only gougi's kill, or its death, may end it) |
//! | `exit <code>` | exit at once with that status (a crash) |
//! | `play` | print `info depth 1 score cp <s> pv <m>` and `bestmove <m>`: `<m>` is a legal move of the current position drawn from the moves file, `<s>` a score in −300…300 (both from the seeded stream); `bestmove resign` when the file has no line for the position |
//!
//! So "answer only on stop" is `go: wait stop ; bestmove 7g7f`, "answer twice" is
//! `go: bestmove 7g7f ; bestmove 2g2f`, an illegal or unparsable move is
//! `go: bestmove 5e5d` / `go: bestmove xyz`, "crash after the info line" is
//! `go: info score cp 5 pv 7g7f ; exit 3`, "never answer usiok" is `usi: say nothing here`.
//!
//! # Legal moves without a board
//!
//! The mock knows no rules (it must answer even what gougi's parser rejects, so it cannot use
//! gougi's rules core either). A test that wants legal play, e.g. a soak test, computes the
//! moves itself and writes them to the `moves_file`, one line per position:
//!
//! ```text
//! <position line>\t<legal move> [<legal move> …][\t<illegal move>]
//! ```
//!
//! `<position line>` is the `position …` command as the member receives it (compared with runs
//! of whitespace collapsed). The file is read again at every `go` (so the test may rewrite it —
//! atomically, by rename — between positions), and the line of the last `position` received is
//! used. The optional third column is a well-formed but illegal move (e.g. moving the enemy
//! king) for the `illegal` fault; without it the fault answers `bestmove 5e5e`.
//!
//! # Skill (for `gougi tune` tests)
//!
//! `skill: <option> <target> <width>`: before each `go` that is not `go mate`, the engine resigns
//! (`bestmove resign` instead of its entry) with probability `min(1, |v − target| / width)`,
//! where `v` is the last `setoption name <option> value v` it received (no such option: it always
//! resigns). So the engine is strongest with the option at `<target>`, and a tuner should move
//! the option there. The draws come from the seeded stream (`faults:`'s seed, mixed with the pid).
//!
//! # Fault injection
//!
//! `faults: <percent> seed <n> [kinds <kind>,<kind>…]`: for each `go` that is not `go mate`,
//! with probability `<percent>` (a decimal number, 0…100) the scripted entry is replaced by one
//! fault drawn uniformly from the kinds (default: all of them). The stream is seeded by `<n>`
//! mixed with the process id, so a member restarted by the proxy does not replay its faults.
//!
//! | kind | what the member does instead of its entry |
//! |---|---|
//! | `crash` | exit with status 3 |
//! | `hang` | ignore everything (including `stop` and `quit`) until stdin EOF |
//! | `garbage` | print a garbage line, then no `bestmove` until `stop`, then `play` |
//! | `illegal` | `bestmove <illegal move>` (third column of the moves file) |
//! | `unparsable` | `bestmove xyz` |
//! | `stale` | `play` twice: two `bestmove`s, the second one stale for the proxy |
//! | `slow` | `busy` (ignoring `stop`) for the `go`'s `byoyomi` + 400 ms (500 ms without one), then `play` |
//!
//! With `faults_log: PATH` each injected fault appends one line `<kind> pid <pid> go <n>` (`<n>`
//! counts this process's `go`s from 1), so a test can compare the proxy's fallbacks with the
//! faults it was dealt. For a `go ponder`, the fault runs after `ponderhit`/`stop`, like an entry.
//!
//! Command handling:
//! - `go ponder …`: the engine first waits for `ponderhit` or `stop` (or `gameover`). After
//!   `ponderhit` the entry runs as scripted; after `stop` it runs at once, skipping `sleep` and
//!   `wait stop` (the answer is immediate).
//! - `go infinite` (and `go mate infinite`): the entry runs, but before its first `bestmove` /
//!   `checkmate` line the engine waits for `stop` (USI: no answer before `stop`).
//! - `quit` exits with status 0 (also mid-search, unless hanging); stdin EOF exits with 0.
//! - Commands that arrive during a search (`isready`, `position`, …) are handled after it.
//! - `position …` is remembered for `play` (and recorded in the transcript).
//! - Everything else (`setoption`, `usinewgame`, `gameover` when idle, unknown lines) is only
//!   recorded in the transcript.

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::io::{self, BufRead, Write};
use std::process;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// One scripted action.
#[derive(Clone, Debug)]
enum Action {
    /// Print this line on stdout.
    Print(String),
    /// Print this line on stderr (a proxy must not relay it to the GUI).
    Stderr(String),
    Sleep(Duration),
    Busy(Duration),
    Lag(Duration),
    WaitStop,
    /// Wait out the `go`'s `movetime` or `byoyomi` (stoppable).
    Think,
    Hang,
    /// Like `Hang`, but stdin EOF does not end it either: runs until killed.
    Linger,
    Exit(i32),
    /// Print a legal move of the current position from the moves file (with an info line).
    Play,
}

/// The `linger` action: sleep until killed, reading nothing (so stdin EOF goes unnoticed).
fn linger() -> ! {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}

/// The faults `faults:` can inject, by name.
const FAULT_KINDS: [&str; 7] = [
    "crash",
    "hang",
    "garbage",
    "illegal",
    "unparsable",
    "stale",
    "slow",
];

/// A `faults:` directive.
#[derive(Clone, Debug)]
struct FaultPlan {
    /// Probability per `go`, in percent.
    percent: f64,
    seed: u64,
    /// Indices into [`FAULT_KINDS`].
    kinds: Vec<usize>,
}

/// The moves file's line for one position.
#[derive(Clone, Debug, Default)]
struct Entry {
    legal: Vec<String>,
    illegal: Option<String>,
}

/// xorshift64*: a tiny deterministic stream, enough to draw faults and moves.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // Zero is xorshift's fixed point; any other value works.
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug, Default)]
struct Script {
    /// `id …` and `option …` lines, printed on `usi`.
    handshake: Vec<String>,
    start: Vec<Action>,
    usi: Option<Vec<Action>>,
    isready: Option<Vec<Action>>,
    go: Vec<Vec<Action>>,
    mate: Vec<Vec<Action>>,
    transcript: Option<String>,
    moves_file: Option<String>,
    faults: Option<FaultPlan>,
    faults_log: Option<String>,
    /// `skill:`: option name, target value, width.
    skill: Option<(String, f64, f64)>,
}

fn parse_actions(text: &str, line_no: usize) -> Result<Vec<Action>, String> {
    let mut actions = Vec::new();
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (word, arg) = match part.split_once(char::is_whitespace) {
            Some((w, a)) => (w, a.trim()),
            None => (part, ""),
        };
        let ms = || -> Result<Duration, String> {
            arg.parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|_| format!("line {line_no}: `{word}` needs milliseconds, got `{arg}`"))
        };
        let action = match word {
            "info" | "bestmove" | "checkmate" | "usiok" | "readyok" | "id" | "option" => {
                Action::Print(part.to_owned())
            }
            "say" => Action::Print(arg.to_owned()),
            "stderr" => Action::Stderr(arg.to_owned()),
            "sleep" => Action::Sleep(ms()?),
            "busy" => Action::Busy(ms()?),
            "lag" => Action::Lag(ms()?),
            "wait" if arg == "stop" => Action::WaitStop,
            "think" if arg.is_empty() => Action::Think,
            "hang" => Action::Hang,
            "linger" => Action::Linger,
            "play" if arg.is_empty() => Action::Play,
            "exit" => Action::Exit(
                arg.parse()
                    .map_err(|_| format!("line {line_no}: `exit` needs a status, got `{arg}`"))?,
            ),
            _ => return Err(format!("line {line_no}: unknown action `{part}`")),
        };
        actions.push(action);
    }
    Ok(actions)
}

fn parse_script(text: &str) -> Result<Script, String> {
    let mut script = Script::default();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("id ") || line.starts_with("option ") {
            script.handshake.push(line.to_owned());
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            return Err(format!("line {line_no}: expected `key: …`, got `{line}`"));
        };
        let rest = rest.trim();
        match key.trim() {
            "transcript" => script.transcript = Some(rest.to_owned()),
            "start" => script.start = parse_actions(rest, line_no)?,
            "usi" => script.usi = Some(parse_actions(rest, line_no)?),
            "isready" => script.isready = Some(parse_actions(rest, line_no)?),
            "go" => script.go.push(parse_actions(rest, line_no)?),
            "mate" => script.mate.push(parse_actions(rest, line_no)?),
            "moves_file" => script.moves_file = Some(rest.to_owned()),
            "faults_log" => script.faults_log = Some(rest.to_owned()),
            "faults" => script.faults = Some(parse_faults(rest, line_no)?),
            "skill" => {
                let w: Vec<&str> = rest.split_whitespace().collect();
                let bad = || format!("line {line_no}: expected `skill: <option> <target> <width>`");
                let [name, target, width] = w.as_slice() else {
                    return Err(bad());
                };
                let target: f64 = target.parse().map_err(|_| bad())?;
                let width: f64 = width.parse().map_err(|_| bad())?;
                if width <= 0.0 {
                    return Err(bad());
                }
                script.skill = Some(((*name).to_owned(), target, width));
            }
            other => return Err(format!("line {line_no}: unknown directive `{other}`")),
        }
    }
    Ok(script)
}

/// `<percent> seed <n> [kinds <kind>,<kind>…]`.
fn parse_faults(text: &str, line_no: usize) -> Result<FaultPlan, String> {
    let usage = || {
        format!(
            "line {line_no}: expected `faults: <percent> seed <n> [kinds <kind>,…]`, got `{text}`"
        )
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let percent: f64 = words
        .first()
        .and_then(|w| w.parse().ok())
        .filter(|p: &f64| (0.0..=100.0).contains(p))
        .ok_or_else(usage)?;
    let seed = match words.get(1..3) {
        Some(["seed", n]) => n.parse().map_err(|_| usage())?,
        _ => return Err(usage()),
    };
    let kinds = match words.get(3..) {
        None | Some([]) => (0..FAULT_KINDS.len()).collect(),
        Some(["kinds", list]) => list
            .split(',')
            .map(|k| {
                FAULT_KINDS
                    .iter()
                    .position(|&name| name == k)
                    .ok_or_else(|| format!("line {line_no}: unknown fault kind `{k}`"))
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(usage()),
    };
    Ok(FaultPlan {
        percent,
        seed,
        kinds,
    })
}

/// Collapses runs of whitespace, so a position line matches however it was spaced.
fn normalize(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The moves file's entry for `position` (`None` when the file or the line is missing).
fn lookup_moves(path: &str, position: &str) -> Option<Entry> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|line| {
        let mut columns = line.split('\t');
        if normalize(columns.next()?) != position {
            return None;
        }
        let legal: Vec<String> = columns
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let illegal = columns
            .next()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        Some(Entry { legal, illegal })
    })
}

/// The actions that replace a `go`'s entry for fault `kind` (an index into [`FAULT_KINDS`]).
fn fault_actions(kind: usize, entry: &Entry, go_line: &str) -> Vec<Action> {
    match FAULT_KINDS[kind] {
        "crash" => vec![Action::Exit(3)],
        "hang" => vec![Action::Hang],
        "garbage" => vec![
            Action::Print("ｺﾞﾐ garbage bestmov 7g7f info score cp ?? \u{7f}".into()),
            Action::WaitStop,
            Action::Play,
        ],
        "illegal" => {
            let mv = entry.illegal.clone().unwrap_or_else(|| "5e5e".into());
            vec![Action::Print(format!("bestmove {mv}"))]
        }
        "unparsable" => vec![Action::Print("bestmove xyz".into())],
        "stale" => vec![Action::Play, Action::Play],
        _ => {
            // slow: past any deadline the proxy can have derived from this `go`.
            let words: Vec<&str> = go_line.split_whitespace().collect();
            let byoyomi = words
                .iter()
                .position(|&w| w == "byoyomi")
                .and_then(|k| words.get(k + 1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(100);
            vec![
                Action::Busy(Duration::from_millis(byoyomi.saturating_add(400))),
                Action::Play,
            ]
        }
    }
}

/// What the stdin reader thread delivers.
enum Input {
    Line(String),
    Eof,
}

/// How an entry runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Sleeps run; a stop cuts them short.
    Normal,
    /// A stop already arrived (ponder stopped): sleeps and `wait stop` are skipped.
    Immediate,
    /// `go infinite`: hold the first answer line until `stop`.
    Infinite,
}

struct Engine {
    script: Script,
    input: Receiver<Input>,
    /// Commands received during a search, handled once it ends.
    pending: VecDeque<String>,
    go_count: usize,
    mate_count: usize,
    /// The last `position` line received, whitespace collapsed.
    position: String,
    /// The moves-file entry for the current `go`'s position.
    entry: Entry,
    rng: Rng,
    /// The `skill:` option's value, once set.
    skill_value: Option<f64>,
    /// When the current `go`'s clock runs out for `think` (`None`: it has no time limit).
    think_until: Option<Instant>,
}

fn print_line(text: &str) {
    let mut out = io::stdout().lock();
    // A closed stdout means the proxy went away; exiting is all that is left to do.
    if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
        process::exit(0);
    }
}

impl Engine {
    /// Receives one input line, waiting at most until `deadline` (`None`: forever).
    /// `Ok(None)` on timeout; exits the process on EOF.
    fn receive(&mut self, deadline: Option<Instant>) -> Option<String> {
        let input = match deadline {
            None => self.input.recv().ok(),
            Some(d) => {
                match self
                    .input
                    .recv_timeout(d.saturating_duration_since(Instant::now()))
                {
                    Ok(input) => Some(input),
                    Err(RecvTimeoutError::Timeout) => return None,
                    Err(RecvTimeoutError::Disconnected) => None,
                }
            }
        };
        match input {
            Some(Input::Line(line)) => Some(line),
            Some(Input::Eof) | None => process::exit(0),
        }
    }

    /// Handles a line that arrives during a search. Returns true if it is a stop signal.
    fn during_search(&mut self, line: String) -> bool {
        match first_word(&line) {
            "stop" | "gameover" => true,
            "quit" => process::exit(0),
            "ponderhit" => false,
            _ => {
                self.pending.push_back(line);
                false
            }
        }
    }

    /// Waits until `deadline`, or until a stop signal when `stoppable`. Returns true if a stop
    /// arrived (a non-stoppable wait still reports it, so a later `wait stop` does not hang).
    fn wait(&mut self, deadline: Option<Instant>, stoppable: bool) -> bool {
        let mut got_stop = false;
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return got_stop;
            }
            let Some(line) = self.receive(deadline) else {
                return got_stop;
            };
            if self.during_search(line) {
                got_stop = true;
                if stoppable {
                    return true;
                }
            }
        }
    }

    fn hang(&mut self) -> ! {
        loop {
            // Everything is ignored; `receive` exits at EOF.
            let _ = self.receive(None);
        }
    }

    fn run(&mut self, actions: &[Action], mut mode: Mode) {
        let mut stopped = mode == Mode::Immediate;
        for action in actions {
            match action {
                Action::Print(text) => {
                    let is_answer = text.starts_with("bestmove") || text.starts_with("checkmate");
                    if mode == Mode::Infinite && is_answer && !stopped {
                        stopped = self.wait(None, true);
                    }
                    print_line(text);
                }
                Action::Stderr(text) => eprintln!("{text}"),
                Action::Sleep(d) => {
                    if !stopped {
                        stopped = self.wait(Some(Instant::now() + *d), true);
                    }
                }
                Action::Busy(d) => {
                    let got_stop = self.wait(Some(Instant::now() + *d), false);
                    stopped |= got_stop;
                }
                // The reader thread keeps queueing lines in the channel meanwhile.
                Action::Lag(d) => thread::sleep(*d),
                Action::WaitStop => {
                    if !stopped {
                        stopped = self.wait(None, true);
                    }
                }
                Action::Think => {
                    if !stopped {
                        stopped = self.wait(self.think_until, true);
                    }
                }
                Action::Hang => self.hang(),
                Action::Linger => linger(),
                Action::Exit(code) => process::exit(*code),
                Action::Play => {
                    if mode == Mode::Infinite && !stopped {
                        stopped = self.wait(None, true);
                    }
                    if self.entry.legal.is_empty() {
                        print_line("bestmove resign");
                    } else {
                        let mv = self.entry.legal[self.rng.below(self.entry.legal.len())].clone();
                        let score = self.rng.below(601) as i64 - 300;
                        print_line(&format!("info depth 1 score cp {score} pv {mv}"));
                        print_line(&format!("bestmove {mv}"));
                    }
                }
            }
            if stopped && mode == Mode::Infinite {
                mode = Mode::Normal;
            }
        }
    }

    fn go(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let field = |name: &str| {
            words
                .iter()
                .position(|&w| w == name)
                .and_then(|k| words.get(k + 1))
                .and_then(|v| v.parse::<u64>().ok())
        };
        self.think_until = field("movetime")
            .or(field("byoyomi"))
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        let is_mate = words.contains(&"mate");
        let (list, count) = if is_mate {
            (&self.script.mate, &mut self.mate_count)
        } else {
            (&self.script.go, &mut self.go_count)
        };
        let mut entry = match list.get(*count).or(list.last()) {
            Some(actions) => actions.clone(),
            None if is_mate => vec![Action::Print("checkmate notimplemented".into())],
            None => vec![Action::Print("bestmove resign".into())],
        };
        *count += 1;
        self.entry = match &self.script.moves_file {
            Some(path) => lookup_moves(path, &self.position).unwrap_or_default(),
            None => Entry::default(),
        };
        if !is_mate {
            if let Some((_, target, width)) = &self.script.skill {
                let p = self
                    .skill_value
                    .map_or(1.0, |v| ((v - target).abs() / width).min(1.0));
                if self.rng.unit() < p {
                    entry = vec![Action::Print("bestmove resign".into())];
                }
            }
            if let Some(plan) = &self.script.faults {
                if self.rng.unit() * 100.0 < plan.percent {
                    let kind = plan.kinds[self.rng.below(plan.kinds.len())];
                    if let Some(path) = &self.script.faults_log {
                        log_fault(path, FAULT_KINDS[kind], self.go_count);
                    }
                    entry = fault_actions(kind, &self.entry, line);
                }
            }
        }
        let mode = if words.contains(&"ponder") {
            // Think on the opponent's time until the GUI says how the prediction went.
            let mut mode = None;
            while mode.is_none() {
                let line = self.receive(None).unwrap_or_default();
                match first_word(&line) {
                    "ponderhit" => {
                        // The clock starts now (a ponderhit may carry its own).
                        let hit: Vec<&str> = line.split_whitespace().collect();
                        let byoyomi = hit
                            .iter()
                            .position(|&w| w == "byoyomi")
                            .and_then(|k| hit.get(k + 1))
                            .and_then(|v| v.parse::<u64>().ok());
                        let length = byoyomi.or(field("movetime")).or(field("byoyomi"));
                        self.think_until =
                            length.map(|ms| Instant::now() + Duration::from_millis(ms));
                        mode = Some(Mode::Normal)
                    }
                    "stop" | "gameover" => mode = Some(Mode::Immediate),
                    "quit" => process::exit(0),
                    _ => self.pending.push_back(line),
                }
            }
            mode.unwrap_or(Mode::Normal)
        } else if words.contains(&"infinite") {
            Mode::Infinite
        } else {
            Mode::Normal
        };
        self.run(&entry, mode);
    }

    fn handle(&mut self, line: String) {
        match first_word(&line) {
            "usi" => {
                for text in self.script.handshake.clone() {
                    print_line(&text);
                }
                let actions = self
                    .script
                    .usi
                    .clone()
                    .unwrap_or_else(|| vec![Action::Print("usiok".into())]);
                self.run(&actions, Mode::Normal);
            }
            "isready" => {
                let actions = self
                    .script
                    .isready
                    .clone()
                    .unwrap_or_else(|| vec![Action::Print("readyok".into())]);
                self.run(&actions, Mode::Normal);
            }
            "go" => self.go(&line),
            "position" => self.position = normalize(&line),
            "setoption" => {
                // `setoption name <name> value <v>`: only the `skill:` option is remembered.
                let w: Vec<&str> = line.split_whitespace().collect();
                if let (Some((name, _, _)), ["setoption", "name", n, "value", v]) =
                    (&self.script.skill, w.as_slice())
                {
                    if n.eq_ignore_ascii_case(name) {
                        self.skill_value = v.parse().ok();
                    }
                }
            }
            "quit" => process::exit(0),
            // setoption, position, usinewgame, stop/ponderhit/gameover when idle, unknown lines:
            // recorded in the transcript by the reader, nothing to answer.
            _ => {}
        }
    }

    fn main_loop(&mut self) -> ! {
        let start = self.script.start.clone();
        self.run(&start, Mode::Normal);
        loop {
            let line = match self.pending.pop_front() {
                Some(line) => line,
                None => self.receive(None).unwrap_or_default(),
            };
            self.handle(line);
        }
    }
}

/// Appends one fault line; one write per line so members sharing the log do not interleave.
fn log_fault(path: &str, kind: &str, go: usize) {
    let line = format!("{kind} pid {} go {go}\n", process::id());
    let written = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        // The test counts faults from this file: a fault it cannot see must not go unnoticed.
        fail(&format!("cannot write faults log {path}: {e}"));
    }
}

fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// Reads stdin on its own thread so sleeps can be interrupted by `stop`; appends each line to
/// the transcript *before* passing it on, so a test that sees an answer also sees the command.
fn spawn_reader(transcript: Option<String>) -> Result<Receiver<Input>, String> {
    let mut file = match transcript {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| format!("cannot open transcript {path}: {e}"))?,
        ),
        None => None,
    };
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        // Lines are read as bytes: a CP932 `setoption` value must neither end the mock (as
        // `lines()` would on invalid UTF-8) nor reach the transcript re-encoded — tests check
        // the exact bytes gougi wrote.
        let mut stdin = io::stdin().lock();
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match stdin.read_until(b'\n', &mut raw) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let bytes = raw.strip_suffix(b"\n").unwrap_or(&raw);
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            let line = String::from_utf8_lossy(bytes).into_owned();
            if let Some(f) = file.as_mut() {
                // A failing transcript must not change how the engine answers. One write
                // per line: several mock engines may share a transcript, and with O_APPEND a
                // single write lands whole, where `writeln!` (line, then newline) could be
                // split by another process's line.
                let mut record = bytes.to_vec();
                record.push(b'\n');
                let _ = f.write_all(&record);
            }
            if tx.send(Input::Line(line)).is_err() {
                return;
            }
        }
        let _ = tx.send(Input::Eof);
    });
    Ok(rx)
}

fn main() {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(&path)
            .unwrap_or_else(|e| fail(&format!("cannot read script {path}: {e}"))),
        None => std::env::var("MOCK_ENGINE_SCRIPT").unwrap_or_default(),
    };
    let script = parse_script(&text).unwrap_or_else(|e| fail(&e));
    let input = spawn_reader(script.transcript.clone()).unwrap_or_else(|e| fail(&e));
    // Mixed with the process id so that a restarted member draws new faults.
    let seed = script.faults.as_ref().map_or(0, |p| p.seed) ^ (u64::from(process::id()) << 32);
    let mut engine = Engine {
        script,
        input,
        pending: VecDeque::new(),
        go_count: 0,
        mate_count: 0,
        position: String::new(),
        entry: Entry::default(),
        rng: Rng::new(seed),
        skill_value: None,
        think_until: None,
    };
    engine.main_loop();
}

fn fail(message: &str) -> ! {
    eprintln!("mock_engine: {message}");
    process::exit(2)
}
