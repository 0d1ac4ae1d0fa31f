//! Fuzzes the coordinator itself: gougi in front of in-process scripted members, driven by
//! random GUI lines, random member lines (bytes, not strings) and jumps of virtual time.
//!
//! The input is a little program (every read past the end is 0, so any bytes are valid):
//!
//! ```text
//! header: policy, member count (1 + b % 3, within the type's range), then per member two bytes: the script's first
//!         `go` behaviour and the one that repeats (with a slow or missing usiok/readyok
//!         sometimes, from the high bits)
//! ops:    b % 8 = 0  GUI line, raw: len (b % 64) bytes — split at `\n`, invalid UTF-8 kept
//!                1  GUI line, canned (usi, isready, stop, ponderhit, gameover, setoption …)
//!                2  member line, raw: member, len, bytes (said by its current instance)
//!                3  member line, canned (bestmove/info/checkmate with legal moves of the
//!                   GUI's position, resign, win, usiok, readyok …)
//!                4  time passes: b × 4 ms        5  time passes: b % 70 s
//!                6  `position startpos moves …`: b % 10 plies, each a legal move chosen by b
//!                7  `go …`: one of ten forms (byoyomi, ponder, Fischer, movetime, infinite,
//!                   mate, nodes, depth, bare)
//! ```
//!
//! The runtime is current-thread with paused time, so a run is fast and (nearly)
//! reproducible. After every op the harness lets everything settle and checks each new
//! output line against an oracle that reads the GUI's lines exactly as the coordinator does
//! (`usi::text::decode_line`, lenient parse):
//! - a `bestmove` answers the last `go` not yet answered (abandoned by a newer `go`, cancelled
//!   by `gameover`): at most one per `go`, none without one;
//! - its move is legal in the position of that `go` (unless the GUI's position itself was
//!   invalid: then nothing can be checked), its ponder move legal after it, `win` only when
//!   the declaration is legal, `resign` only when there is no legal move or some member could
//!   have resigned;
//! - a `checkmate <moves>` is a real mate from the `go mate` position;
//! - nothing panics (a panic in the coordinator's task is re-raised here);
//! - at the end (no `quit` sent, gougi still running): after `stop` and enough virtual time
//!   for every wait (usiok 10 s, readyok 60 s), every `go` has been answered, and `quit` ends
//!   gougi.

#![no_main]

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use gougi::config::{Config, PolicyKind};
use gougi::gougi::coordinator::Coordinator;
use gougi::gougi::game::Game;
use gougi::member::scripted::{Capture, Go, Script, Scripted};
use gougi::usi::text::decode_line;
use gougi::usi::{GuiCommand, Strictness, UsiMove};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;
use tokio::time::{sleep, Instant};

const POLICIES: [&str; 10] = [
    "optimistic",
    "majority",
    "pessimistic",
    "alternate",
    "exchange",
    "change-every",
    "rise-optimistic",
    "multipv-vote",
    "by-phase",
    "mate",
];

const GOS: [Go; 9] = [
    Go::Answer(Duration::ZERO),
    Go::Answer(Duration::from_millis(50)),
    Go::Answer(Duration::from_millis(700)),
    Go::OnStop,
    Go::Hang,
    Go::Exit(1),
    Go::Illegal,
    Go::Garbage,
    Go::Resign,
];

const GUI_CANNED: [&[u8]; 14] = [
    b"usi",
    b"isready",
    b"usinewgame",
    b"stop",
    b"ponderhit",
    b"ponderhit btime 2000 wtime 2000 byoyomi 1000",
    b"gameover win",
    b"gameover lose",
    b"position startpos",
    b"setoption name G_Margin value 50",
    b"setoption name G_InfoRelay value all",
    b"setoption name G_EarlyAgreement value 60",
    b"setoption name USI_Hash value \x93\xfa",
    b"quit",
];

const GO_FORMS: [&str; 10] = [
    "go btime 0 wtime 0 byoyomi 1000",
    "go ponder btime 0 wtime 0 byoyomi 1000",
    "go btime 10000 wtime 10000 binc 1000 winc 1000",
    "go btime 300 wtime 300 byoyomi 0",
    "go movetime 500",
    "go infinite",
    "go mate 1000",
    "go nodes 1000",
    "go depth 3",
    "go",
];

/// The fuzz input as a stream of bytes; 0 past the end.
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let end = (self.at + len).min(self.data.len());
        let v = self.data[self.at.min(end)..end].to_vec();
        self.at += len;
        v
    }

    fn done(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// What a `go` awaits, in the position it was given.
enum Awaited {
    Bestmove(Game),
    Checkmate(Game),
}

/// The GUI's side of the conversation, as the coordinator must have understood it.
struct Oracle {
    game: Game,
    /// The `go`s that may still be answered, oldest first. Normally just the last `go` (a new
    /// `go` abandons a running round, `gameover` cancels it). Commands held back while
    /// `usiok`/`readyok` was owed are handled all at once, and the oracle cannot tell which
    /// of them answered at once: each of those `go`s stays a candidate, and a `bestmove` must
    /// match one of them, in order (at most one per `go`).
    candidates: Vec<Awaited>,
    /// The candidates came from a batch with several `go`s: which one is still owed is not
    /// known (a `bestmove` may have matched an earlier one it was also legal for).
    ambiguous: bool,
    /// Some member may have said `resign` (scripted, or a line containing it).
    resign_possible: bool,
    quit: bool,
    /// Output lines already checked.
    checked: usize,
    /// The GUI's lines so far, with their times (for the failure report).
    sent: Vec<(Instant, String)>,
    /// `usiok` or `readyok` while gougi owes it.
    waiting: Option<&'static str>,
    /// Commands gougi holds back meanwhile.
    deferred: VecDeque<GuiCommand>,
}

/// The conversation, GUI lines (`>`) and gougi's (`<`) interleaved by time, for a report.
fn transcript(sent: &[(Instant, String)], out: &[(Instant, String)]) -> String {
    let t0 = sent
        .first()
        .or(out.first())
        .map_or_else(Instant::now, |l| l.0);
    let mut all: Vec<(Instant, usize, String)> = sent
        .iter()
        .enumerate()
        .map(|(i, (t, l))| (*t, i, format!("> {l}")))
        .chain(
            out.iter()
                .enumerate()
                .map(|(i, (t, l))| (*t, sent.len() + i, format!("< {l}"))),
        )
        .collect();
    all.sort();
    let mut text = String::from("transcript (virtual ms):\n");
    for (t, _, l) in all {
        text.push_str(&format!("{:>8} {l}\n", (t - t0).as_millis()));
    }
    text
}

impl Oracle {
    /// A GUI line as gougi reads it. While `usiok`/`readyok` is owed, gougi holds commands
    /// back (all but `quit`) and handles them, in order, after it answered.
    fn on_gui_line(&mut self, bytes: &[u8]) {
        let line = decode_line(bytes);
        self.sent.push((Instant::now(), line.clone()));
        let Ok(cmd) = GuiCommand::parse(&line, Strictness::Lenient) else {
            return;
        };
        if cmd == GuiCommand::Quit {
            self.quit = true;
        } else if self.waiting.is_some() {
            self.deferred.push_back(cmd);
        } else {
            self.apply(cmd, false);
        }
    }

    /// `batch`: one of several commands handled at once (their answers are not told apart).
    fn apply(&mut self, cmd: GuiCommand, batch: bool) {
        match cmd {
            GuiCommand::Usi => self.waiting = Some("usiok"),
            GuiCommand::IsReady => self.waiting = Some("readyok"),
            GuiCommand::Position(p) => {
                self.game = Game::new(p.clone()).unwrap_or_else(|_| Game::unchecked(p));
            }
            GuiCommand::Go(limits) => {
                let game = self.game.clone();
                if batch {
                    self.ambiguous |= !self.candidates.is_empty();
                } else {
                    self.candidates.clear();
                    self.ambiguous = false;
                }
                self.candidates.push(if limits.mate.is_some() {
                    Awaited::Checkmate(game)
                } else {
                    Awaited::Bestmove(game)
                });
            }
            GuiCommand::GameOver(_) if !batch => self.candidates.clear(),
            // The round it cancels may have answered at once before it, or not.
            GuiCommand::GameOver(_) => self.ambiguous |= !self.candidates.is_empty(),
            _ => {}
        }
    }

    fn check_output(&mut self, out: &Capture) {
        let lines = out.lines();
        for (_, line) in &lines[self.checked..] {
            // libFuzzer's panic hook aborts at once: the report must be in the message.
            if let Err(e) = self.check_line(line) {
                panic!("{e}\n{}", transcript(&self.sent, &lines));
            }
        }
        self.checked = lines.len();
    }

    fn check_line(&mut self, line: &str) -> Result<(), String> {
        if self.waiting == Some(line) {
            self.waiting = None;
            while self.waiting.is_none() {
                let Some(cmd) = self.deferred.pop_front() else {
                    break;
                };
                self.apply(cmd, true);
            }
        }
        let mut words = line.split_whitespace();
        let first = words.next();
        if !matches!(first, Some("bestmove" | "checkmate")) {
            return Ok(());
        }
        let rest: Vec<&str> = words.collect();
        let mut errors = Vec::new();
        for (k, candidate) in self.candidates.iter().enumerate() {
            let verdict = match (first, candidate) {
                (Some("bestmove"), Awaited::Bestmove(game)) => self.check_bestmove(game, &rest),
                (Some("checkmate"), Awaited::Checkmate(game)) => check_checkmate(game, &rest),
                _ => Err("not the kind of answer this go wants".to_owned()),
            };
            match verdict {
                Ok(()) => {
                    // This go is answered; the older ones were abandoned.
                    self.candidates.drain(..=k);
                    return Ok(());
                }
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            return Err(format!(
                "`{line}` answers no go (at most one answer per go)"
            ));
        }
        Err(format!("`{line}`: {}", errors.join("; ")))
    }

    fn check_bestmove(&self, game: &Game, words: &[&str]) -> Result<(), String> {
        let in_position = format!("in {}", game.command);
        let unchecked = game.board.is_none();
        let no_move = game
            .board
            .as_ref()
            .is_some_and(|b| b.legal_moves().is_empty());
        match words {
            ["resign"] if !(self.resign_possible || no_move || unchecked) => Err(format!(
                "resigns with legal moves and no member resigning {in_position}"
            )),
            ["win"] if !(game.declaration_is_legal() || unchecked) => {
                Err(format!("win without a legal declaration {in_position}"))
            }
            ["resign"] | ["win"] => Ok(()),
            [mv, tail @ ..] => {
                let m = UsiMove::parse(mv).map_err(|e| format!("bad move: {e:?}"))?;
                game.check(&m)
                    .map_err(|e| format!("illegal {in_position}: {e}"))?;
                match tail {
                    [] => Ok(()),
                    ["ponder", p] => {
                        let p = UsiMove::parse(p).map_err(|e| format!("bad ponder: {e:?}"))?;
                        game.after(&[m])
                            .check(&p)
                            .map_err(|e| format!("ponder move illegal {in_position}: {e}"))
                    }
                    _ => Err("malformed".to_owned()),
                }
            }
            [] => Err("empty".to_owned()),
        }
    }
}

/// A `checkmate` answer: a line that really mates (or nomate/timeout/notimplemented).
fn check_checkmate(game: &Game, words: &[&str]) -> Result<(), String> {
    if matches!(words, ["nomate"] | ["timeout"] | ["notimplemented"]) {
        return Ok(());
    }
    let moves = words
        .iter()
        .map(|m| UsiMove::parse(m).map_err(|e| format!("{e:?}")))
        .collect::<Result<Vec<UsiMove>, String>>()?;
    if game.board.is_some() && !game.is_mate_line(&moves) {
        return Err(format!("not a mate in {}", game.command));
    }
    Ok(())
}

struct Harness {
    input: DuplexStream,
    out: Capture,
    members: Scripted,
    count: u32,
    /// The coordinator's task; `None` once it has ended and been joined.
    run: Option<JoinHandle<anyhow::Result<()>>>,
    oracle: Oracle,
}

impl Harness {
    /// Sends GUI bytes as lines (split at `\n`, as gougi reads them).
    async fn gui(&mut self, bytes: &[u8]) {
        for line in bytes.split(|&b| b == b'\n') {
            if self.oracle.quit {
                return;
            }
            let mut framed = line.to_vec();
            framed.push(b'\n');
            // gougi may have ended (a `quit`); the write then fails, which is fine.
            let _ = self.input.write_all(&framed).await;
            self.oracle.on_gui_line(line);
            // Each line's effects are checked before the next line is read, so the oracle
            // sees them in gougi's order (1 ms of virtual time per line).
            self.settle(Duration::ZERO).await;
        }
    }

    fn say(&mut self, member: u32, bytes: &[u8]) {
        if bytes.windows(6).any(|w| w == b"resign") {
            self.oracle.resign_possible = true;
        }
        self.members.say(member, bytes);
    }

    /// Lets every task run and `d` of virtual time pass, then checks what gougi wrote.
    async fn settle(&mut self, d: Duration) {
        sleep(d.max(Duration::from_millis(1))).await;
        // Tasks woken at this same instant (gougi's own timers) run before we look: a yield
        // lets every ready task run first without moving the clock.
        for _ in 0..32 {
            tokio::task::yield_now().await;
        }
        if self.run.as_ref().is_some_and(JoinHandle::is_finished) {
            if let Some(run) = self.run.take() {
                join(run).await;
            }
        }
        self.oracle.check_output(&self.out);
    }

    fn running(&self) -> bool {
        self.run.is_some()
    }

    /// A legal move of the position gougi is given, chosen by `b`.
    fn some_move(&self, b: u8) -> String {
        some_move(&self.oracle.game, b)
    }
}

/// A legal move of `game` chosen by `b` (a fixed one without a board or a legal move).
fn some_move(game: &Game, b: u8) -> String {
    game.board
        .as_ref()
        .and_then(|board| {
            let moves = board.legal_moves();
            let n = moves.len();
            moves
                .iter()
                .nth(b as usize % n.max(1))
                .map(|m| m.to_string())
        })
        .unwrap_or_else(|| "7g7f".to_owned())
}

/// Joins the coordinator's task; re-raises its panic (tokio catches it) so libFuzzer sees it.
async fn join(run: JoinHandle<anyhow::Result<()>>) {
    match run.await {
        Ok(_) => {}
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("coordinator task failed: {e}"),
    }
}

fn script(a: u8, b: u8) -> Script {
    let script = Script::new([
        GOS[a as usize % GOS.len()].clone(),
        GOS[b as usize % GOS.len()].clone(),
    ]);
    match a >> 4 {
        15 => script.usiok_after(None),
        14 => script.readyok_after(None),
        13 => script.usiok_after(Some(Duration::from_secs(3))),
        12 => script.readyok_after(Some(Duration::from_secs(2))),
        _ => script,
    }
}

async fn drive(data: &[u8]) {
    let mut input = Input { data, at: 0 };
    let policy = POLICIES[input.byte() as usize % POLICIES.len()];
    // As many members as asked (1 to 3), within what the type accepts.
    let (min, max) = policy.parse::<PolicyKind>().expect("a type").engine_count();
    let count = (1 + usize::from(input.byte() % 3)).clamp(min, max.unwrap_or(3)) as u32;
    let scripts: Vec<Script> = (0..count)
        .map(|_| script(input.byte(), input.byte()))
        .collect();
    let resign_possible = scripts.iter().any(|s| s.gos.contains(&Go::Resign));
    // The mate types' mate member (number 0) runs the default script (`checkmate nomate`).
    let mut text = format!("Gougi.Type={policy}\nMateEngine.Path=builtin:mate\n");
    for n in 1..=count {
        text.push_str(&format!("Engine{n}.Path=builtin:search\n"));
    }
    let config = Config::parse(&text, Path::new("/tmp/SimpleGougi.config")).expect("config");
    let members = Scripted::new((1..).zip(scripts));
    let out = Capture::new();
    let coordinator = Coordinator::start_with(config, out.clone(), members.launcher());
    let (mine, theirs) = tokio::io::duplex(1 << 20);
    let run = tokio::spawn(coordinator.run(BufReader::new(theirs)));
    let mut h = Harness {
        input: mine,
        out,
        members,
        count,
        run: Some(run),
        oracle: Oracle {
            game: Game::default(),
            candidates: Vec::new(),
            ambiguous: false,
            resign_possible,
            quit: false,
            checked: 0,
            sent: Vec::new(),
            waiting: None,
            deferred: VecDeque::new(),
        },
    };
    // Mate claims are verified on the wall clock; keep that slice tiny.
    h.gui(b"setoption name G_MateVerifyMs value 1").await;

    let mut ops = 0;
    while !input.done() && !h.oracle.quit && ops < 200 {
        ops += 1;
        let mut wait = Duration::ZERO;
        match input.byte() % 8 {
            0 => {
                let len = input.byte() as usize % 64;
                let bytes = input.bytes(len);
                h.gui(&bytes).await;
            }
            1 => {
                let line = GUI_CANNED[input.byte() as usize % GUI_CANNED.len()];
                h.gui(line).await;
            }
            2 => {
                let member = 1 + u32::from(input.byte()) % h.count;
                let len = input.byte() as usize % 64;
                let bytes = input.bytes(len);
                h.say(member, &bytes);
            }
            3 => {
                let member = 1 + u32::from(input.byte()) % h.count;
                let (k, a, b) = (input.byte(), input.byte(), input.byte());
                let (m1, m2) = (h.some_move(a), h.some_move(b));
                let line = match k % 12 {
                    0 => format!("bestmove {m1}"),
                    1 => format!("bestmove {m1} ponder {m2}"),
                    2 => format!(
                        "info depth 5 score cp {} pv {m1} {m2}",
                        i32::from(b) * 40 - 5000
                    ),
                    3 => format!("info depth 9 score mate 1 pv {m1}"),
                    4 => format!("info multipv 2 depth 3 score cp 10 pv {m2}"),
                    5 => "bestmove resign".to_owned(),
                    6 => "bestmove win".to_owned(),
                    7 => "readyok".to_owned(),
                    8 => "usiok".to_owned(),
                    9 => "info string \u{3042}".to_owned(),
                    10 => "checkmate nomate".to_owned(),
                    _ => format!("checkmate {m1}"),
                };
                h.say(member, line.as_bytes());
            }
            4 => wait = Duration::from_millis(u64::from(input.byte()) * 4),
            5 => wait = Duration::from_secs(u64::from(input.byte() % 70)),
            6 => {
                let plies = input.byte() % 10;
                let mut game = Game::default();
                for _ in 0..plies {
                    let m = UsiMove::parse(&some_move(&game, input.byte())).expect("a legal move");
                    // Stop before a position without legal moves (a game over).
                    match Game::new(game.command.with_move(m)) {
                        Ok(g)
                            if g.board
                                .as_ref()
                                .is_some_and(|b| !b.legal_moves().is_empty()) =>
                        {
                            game = g
                        }
                        _ => break,
                    }
                }
                h.gui(game.command.to_string().as_bytes()).await;
            }
            _ => {
                let form = GO_FORMS[input.byte() as usize % GO_FORMS.len()];
                h.gui(form.as_bytes()).await;
            }
        }
        h.settle(wait).await;
    }

    if !h.oracle.quit && h.running() {
        // Every go must be answered once the GUI says stop and every wait has run out.
        h.gui(b"stop").await;
        for _ in 0..8 {
            if h.oracle.candidates.is_empty() || !h.running() {
                break;
            }
            h.settle(Duration::from_secs(70)).await;
        }
        if h.running() && !h.oracle.ambiguous {
            assert!(
                h.oracle.candidates.is_empty(),
                "a go was never answered\n{}",
                transcript(&h.oracle.sent, &h.out.lines())
            );
        }
        h.gui(b"quit").await;
    }
    // gougi ends after quit (hung members are killed), without a panic.
    if let Some(run) = h.run.take() {
        match tokio::time::timeout(Duration::from_secs(10), join(run)).await {
            Ok(()) => {}
            Err(_) => panic!("gougi did not end 10 s after quit"),
        }
    }
    h.oracle.check_output(&h.out);
    // For reading a reproducer: `COORDINATOR_FUZZ_PRINT=1 … <file>` shows the conversation.
    if std::env::var_os("COORDINATOR_FUZZ_PRINT").is_some() {
        eprintln!("{}", transcript(&h.oracle.sent, &h.out.lines()));
    }
}

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    runtime.block_on(drive(data));
});
