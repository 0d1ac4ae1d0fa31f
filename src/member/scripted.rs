//! In-process scripted members: USI engines as tokio tasks, for the coordinator's tests and its
//! fuzz target.
//!
//! Why: with real processes the coordinator's timing paths (deadlines, hang detection, the
//! ponder miss) cost seconds of wall-clock time each and their timing is not reproducible. A
//! scripted member is a task behind an ordinary [`MemberHandle`] (made by the [`Launcher`] of
//! [`Scripted::launcher`]) that keeps time with tokio's clock, so under `tokio::time::pause()`
//! a test runs minutes of virtual time at once, and the same input gives the same output.
//!
//! A member follows its [`Script`]: how fast it answers `usi`/`isready`, and what it does at
//! each `go` ([`Go`]: answer after a delay, only at `stop`, hang, exit, illegal move, garbage,
//! resign). Its moves are real: `bestmove` is the first legal move of the last `position`, so
//! the coordinator's checks see what a sound engine sends. A test or fuzzer can also make the
//! current instance of a member print any bytes at any moment ([`Scripted::say`]); they go
//! through the same decoding and parsing as a process's stdout.
//!
//! Like a process, a member obeys `quit` (exit code 0), [`MemberHandle::kill`] and the drop of
//! its last handle (no code), and sends `Exited` last. Nothing is written to stdout: every line
//! a member receives is kept for the test ([`Scripted::received`]), and [`Capture`] collects
//! the coordinator's own output with the (virtual) time of each line.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{mpsc, Notify};
use tokio::time::{sleep_until, Instant};

use super::actor::{parse_line, Command, Detached, Launcher, MemberEvent, MemberHandle};
use super::spec::MemberSpec;
use crate::shogi::position::Position;

/// What a scripted member does when it gets a `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Go {
    /// `info` at once, then `bestmove` (the first legal move) after the delay, or at `stop`
    /// if that comes first. `go ponder` / `go infinite`: the delay starts at `ponderhit`.
    Answer(Duration),
    /// As `Answer`, with the `n`-th legal move (0-based, wrapping) instead of the first, so
    /// that members can disagree.
    AnswerNth(Duration, usize),
    /// `info` at once; `bestmove` only when told to `stop`.
    OnStop,
    /// Stuck for good: ignores everything from now on (`stop`, `isready`, `quit`); only a
    /// kill ends it.
    Hang,
    /// The process exits with this code.
    Exit(i32),
    /// `bestmove` of a move that is not legal in the position (timed as `Answer(0)`).
    Illegal,
    /// Lines that mean nothing, then answers as `Answer(0)`.
    Garbage,
    /// `bestmove resign` (timed as `Answer(0)`).
    Resign,
}

/// One member's behaviour. Each launch (first start and every restart) starts the script over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// `id name`.
    pub name: String,
    /// Delay before `id name … usiok`; `None`: `usi` is never answered.
    pub usiok: Option<Duration>,
    /// Delay before `readyok`; `None`: `isready` is never answered.
    pub readyok: Option<Duration>,
    /// What to do at the 1st, 2nd, … `go`; the last entry repeats (none: `Answer(0)`).
    pub gos: Vec<Go>,
    /// The `score cp` of its `info` lines.
    pub score: i32,
    /// `option name …` lines it declares at `usi`, in order.
    pub options: Vec<String>,
    /// How long a search takes to answer `stop` (a real engine unwinds its search first). The
    /// member reads nothing meanwhile: what the coordinator sends waits, as in a pipe.
    pub stop_latency: Duration,
    /// The reply it predicts, as the `n`-th legal move after its own (`None`: a PV of its move
    /// alone and no ponder move): shown as the PV's second move and `bestmove … ponder`.
    pub predicts: Option<usize>,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            name: "scripted".to_owned(),
            usiok: Some(Duration::ZERO),
            readyok: Some(Duration::ZERO),
            gos: Vec::new(),
            score: 0,
            options: Vec::new(),
            stop_latency: Duration::ZERO,
            predicts: None,
        }
    }
}

impl Script {
    /// A member that does `gos` at its first `go`s (the last one repeating).
    pub fn new(gos: impl IntoIterator<Item = Go>) -> Script {
        Script {
            gos: gos.into_iter().collect(),
            ..Script::default()
        }
    }

    /// A member that does `go` at every `go`.
    pub fn always(go: Go) -> Script {
        Script::new([go])
    }

    pub fn named(self, name: &str) -> Script {
        Script {
            name: name.to_owned(),
            ..self
        }
    }

    pub fn with_score(self, score: i32) -> Script {
        Script { score, ..self }
    }

    /// Declares an option at `usi`: `declaration` is the line after `option ` (`name EvalNoise
    /// type spin default 0 min 0 max 100`).
    pub fn with_option(mut self, declaration: &str) -> Script {
        self.options.push(format!("option {declaration}"));
        self
    }

    /// Predicts the `n`-th legal reply to its move: its PV and `bestmove` carry it (as the
    /// `ponder` move), as an engine's do.
    pub fn predicting(self, n: usize) -> Script {
        Script {
            predicts: Some(n),
            ..self
        }
    }

    /// Answers `stop` `latency` after reading it.
    pub fn stop_latency(self, latency: Duration) -> Script {
        Script {
            stop_latency: latency,
            ..self
        }
    }

    /// `usiok` after `delay` (`None`: never).
    pub fn usiok_after(self, delay: Option<Duration>) -> Script {
        Script {
            usiok: delay,
            ..self
        }
    }

    /// `readyok` after `delay` (`None`: never).
    pub fn readyok_after(self, delay: Option<Duration>) -> Script {
        Script {
            readyok: delay,
            ..self
        }
    }

    fn go(&self, index: usize) -> Go {
        self.gos
            .get(index)
            .or(self.gos.last())
            .cloned()
            .unwrap_or(Go::Answer(Duration::ZERO))
    }
}

/// The scripted members of one test: their scripts, and what happened to them. Cloneable (one
/// shared record); members without a script get [`Script::default`].
#[derive(Clone, Default)]
pub struct Scripted {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    scripts: HashMap<u32, Script>,
    records: HashMap<u32, Record>,
}

#[derive(Default)]
struct Record {
    launches: u32,
    /// The current instance's channel for [`Scripted::say`].
    say: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// Every line sent to any instance of the member: (instance, line).
    received: Vec<(u64, String)>,
    /// Lines in both directions, in the order they passed the member's pipes.
    log: Vec<Traffic>,
}

/// One line that passed a scripted member's pipes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// The instance (a restart is a new one).
    pub instance: u64,
    pub at: Instant,
    /// True: from the coordinator to the member; false: the member's output.
    pub to_member: bool,
    pub line: String,
}

impl Scripted {
    /// Members numbered as in the config (`Engine<N>` is `N`) with their scripts.
    pub fn new(scripts: impl IntoIterator<Item = (u32, Script)>) -> Scripted {
        let inner = Inner {
            scripts: scripts.into_iter().collect(),
            records: HashMap::new(),
        };
        Scripted {
            inner: Arc::new(Mutex::new(inner)),
        }
    }

    /// A launcher for `Coordinator::start_with`: each call starts a new instance of the
    /// member's script as a task on the current tokio runtime.
    pub fn launcher(&self) -> Launcher {
        let shared = self.clone();
        Box::new(move |spec, events| Ok(shared.launch(spec, events)))
    }

    /// Makes the member's current instance print `bytes` (split into lines at `\n`, decoded
    /// and parsed like a process's stdout). False when it is not running.
    pub fn say(&self, member: u32, bytes: &[u8]) -> bool {
        let inner = self.lock();
        let Some(tx) = inner.records.get(&member).and_then(|r| r.say.as_ref()) else {
            return false;
        };
        tx.send(bytes.to_vec()).is_ok()
    }

    /// How many times the member was started (1 + restarts).
    pub fn launches(&self, member: u32) -> u32 {
        self.lock().records.get(&member).map_or(0, |r| r.launches)
    }

    /// Every line the member received, with the instance that received it, in order.
    pub fn received(&self, member: u32) -> Vec<(u64, String)> {
        self.lock()
            .records
            .get(&member)
            .map_or_else(Vec::new, |r| r.received.clone())
    }

    /// Every line to and from the member, every instance, in order ([`Traffic`]).
    pub fn traffic(&self, member: u32) -> Vec<Traffic> {
        self.lock()
            .records
            .get(&member)
            .map_or_else(Vec::new, |r| r.log.clone())
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panicking test thread must not hide its own message behind a poisoned lock.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn launch(
        &self,
        spec: &MemberSpec,
        events: mpsc::UnboundedSender<MemberEvent>,
    ) -> MemberHandle {
        let (handle, end) = MemberHandle::detached(spec.number);
        let (say_tx, say_rx) = mpsc::unbounded_channel();
        let script = {
            let mut inner = self.lock();
            let record = inner.records.entry(spec.number).or_default();
            record.launches += 1;
            record.say = Some(say_tx);
            inner.scripts.get(&spec.number).cloned().unwrap_or_default()
        };
        tracing::debug!(
            member = spec.number,
            instance = end.instance,
            "scripted member launched"
        );
        let member = Member {
            number: spec.number,
            instance: end.instance,
            script,
            gos: 0,
            position: None,
            search: None,
            unwinding: None,
            input: std::collections::VecDeque::new(),
            hung: false,
            later: Vec::new(),
            out: Vec::new(),
        };
        tokio::spawn(run(member, end, say_rx, events, self.clone()));
        handle
    }
}

/// A search in progress.
struct Search {
    /// The `bestmove` line to send.
    reply: String,
    /// When to send it unprompted; `None`: only at `stop` (or after `ponderhit`).
    due: Option<Instant>,
    /// The delay that starts at `ponderhit`; `None`: answers only at `stop`.
    delay: Option<Duration>,
}

/// One instance's state.
struct Member {
    number: u32,
    instance: u64,
    script: Script,
    /// `go`s seen so far (the index into the script).
    gos: usize,
    position: Option<Position>,
    search: Option<Search>,
    /// A stopped search's reply and when it is printed (see [`Script::stop_latency`]).
    unwinding: Option<(Instant, String)>,
    /// Lines received and not read yet (while unwinding, or a `go` waiting for the running
    /// search to end: a USI engine finishes one search before it starts the next).
    input: std::collections::VecDeque<String>,
    hung: bool,
    /// Lines to print later (slow handshakes), with their times.
    later: Vec<(Instant, String)>,
    /// Lines to print now.
    out: Vec<String>,
}

impl Member {
    fn next_due(&self) -> Option<Instant> {
        let search = self.search.as_ref().and_then(|s| s.due);
        let unwinding = self.unwinding.as_ref().map(|u| u.0);
        self.later
            .iter()
            .map(|l| l.0)
            .chain(search)
            .chain(unwinding)
            .min()
    }

    /// Reads the lines received so far, as far as it can; `Some(code)` when it exits.
    fn read_input(&mut self, now: Instant) -> Option<Option<i32>> {
        while self.unwinding.is_none() {
            let Some(line) = self.input.front() else {
                break;
            };
            let go = line.split_whitespace().next() == Some("go");
            if go && self.search.is_some() && !self.hung {
                break; // the running search ends first (by its own time, or never)
            }
            let line = self.input.pop_front().expect("looked at above");
            if let Some(code) = self.on_line(&line, now) {
                return Some(code);
            }
        }
        None
    }

    /// Handles one command line; `Some(code)` when the member exits.
    fn on_line(&mut self, line: &str, now: Instant) -> Option<Option<i32>> {
        if self.hung {
            return None;
        }
        let mut words = line.split_whitespace();
        match words.next().unwrap_or("") {
            "usi" => {
                let mut lines = vec![
                    format!("id name {}", self.script.name),
                    "id author gougi tests".to_owned(),
                ];
                lines.extend(self.script.options.iter().cloned());
                lines.push("usiok".to_owned());
                if let Some(delay) = self.script.usiok {
                    self.emit_after(delay, now, lines);
                }
            }
            "isready" => {
                if let Some(delay) = self.script.readyok {
                    self.emit_after(delay, now, ["readyok".to_owned()]);
                }
            }
            "position" => self.position = Position::from_usi_position(line).ok(),
            "go" => return self.on_go(words.collect(), now),
            "stop" => {
                if let Some(search) = self.search.take() {
                    let latency = self.script.stop_latency;
                    if latency.is_zero() {
                        self.out.push(search.reply);
                    } else {
                        self.unwinding = Some((now + latency, search.reply));
                    }
                }
            }
            "ponderhit" => {
                if let Some(search) = &mut self.search {
                    search.due = search.delay.map(|d| now + d);
                }
            }
            "quit" => return Some(Some(0)),
            _ => {}
        }
        None
    }

    fn on_go(&mut self, args: Vec<&str>, now: Instant) -> Option<Option<i32>> {
        let go = self.script.go(self.gos);
        self.gos += 1;
        let waits = args.iter().any(|a| *a == "ponder" || *a == "infinite");
        let best = match go {
            Go::AnswerNth(_, n) => self.nth_legal(n),
            _ => self.first_legal(),
        };
        let mut delay = Some(Duration::ZERO);
        let reply = match go {
            Go::Hang => {
                self.hung = true;
                self.search = None;
                return None;
            }
            Go::Exit(code) => return Some(Some(code)),
            _ if args.first() == Some(&"mate") => {
                // A mate search takes its time like any other, or answers at `stop`.
                delay = match go {
                    Go::Answer(d) | Go::AnswerNth(d, _) => Some(d),
                    Go::OnStop => None,
                    _ => Some(Duration::ZERO),
                };
                "checkmate nomate".to_owned()
            }
            Go::Answer(d) | Go::AnswerNth(d, _) => {
                delay = Some(d);
                self.answer(&best)
            }
            Go::OnStop => {
                delay = None;
                self.answer(&best)
            }
            Go::Illegal => format!("bestmove {}", self.illegal()),
            Go::Garbage => {
                self.out.extend(
                    [
                        "<<garbage>>",
                        "info depth x score cp",
                        "id",
                        "\u{fffd}\u{fffd}",
                    ]
                    .map(str::to_owned),
                );
                format!("bestmove {best}")
            }
            Go::Resign => "bestmove resign".to_owned(),
        };
        match (waits, delay) {
            (false, Some(d)) if d.is_zero() => self.out.push(reply),
            _ => {
                self.search = Some(Search {
                    reply,
                    due: delay.filter(|_| !waits).map(|d| now + d),
                    delay,
                })
            }
        }
        None
    }

    /// Lines whose time has come.
    fn on_due(&mut self, now: Instant) {
        let (due, later): (Vec<_>, Vec<_>) = self.later.drain(..).partition(|l| l.0 <= now);
        self.later = later;
        self.out.extend(due.into_iter().map(|l| l.1));
        if self.unwinding.as_ref().is_some_and(|u| u.0 <= now) {
            if let Some((_, reply)) = self.unwinding.take() {
                self.out.push(reply);
            }
        }
        if self
            .search
            .as_ref()
            .and_then(|s| s.due)
            .is_some_and(|t| t <= now)
        {
            if let Some(search) = self.search.take() {
                self.out.push(search.reply);
            }
        }
    }

    fn emit_after(
        &mut self,
        delay: Duration,
        now: Instant,
        lines: impl IntoIterator<Item = String>,
    ) {
        if delay.is_zero() {
            self.out.extend(lines);
        } else {
            self.later
                .extend(lines.into_iter().map(|line| (now + delay, line)));
        }
    }

    /// The `info` line now and the `bestmove` line to send, with the predicted reply when
    /// the script predicts one.
    fn answer(&mut self, best: &str) -> String {
        let reply = self.script.predicts.and_then(|n| {
            let mut after = self.position.clone()?;
            let mv = *after.legal_moves().iter().find(|m| m.to_string() == best)?;
            after.do_move(mv);
            let moves = after.legal_moves();
            (!moves.is_empty()).then(|| moves[n % moves.len()].to_string())
        });
        match reply {
            Some(r) => {
                let score = self.script.score;
                self.out
                    .push(format!("info depth 1 score cp {score} pv {best} {r}"));
                format!("bestmove {best} ponder {r}")
            }
            None => {
                self.info(best);
                format!("bestmove {best}")
            }
        }
    }

    fn info(&mut self, best: &str) {
        let score = self.script.score;
        if best == "resign" {
            self.out.push(format!("info depth 1 score cp {score}"));
        } else {
            self.out
                .push(format!("info depth 1 score cp {score} pv {best}"));
        }
    }

    /// The `n`-th legal move of the last position, wrapping (`resign` without one).
    fn nth_legal(&self, n: usize) -> String {
        self.position
            .as_ref()
            .map(|p| p.legal_moves())
            .filter(|moves| !moves.is_empty())
            .map(|moves| moves[n % moves.len()].to_string())
            .unwrap_or_else(|| "resign".to_owned())
    }

    /// The first legal move of the last position (`resign` without one).
    fn first_legal(&self) -> String {
        self.position
            .as_ref()
            .and_then(|p| p.legal_moves().iter().next().map(|m| m.to_string()))
            .unwrap_or_else(|| "resign".to_owned())
    }

    /// A well-formed move that is not legal in the last position.
    fn illegal(&self) -> String {
        const CANDIDATES: [&str; 4] = ["5e5d", "1e1d", "9e9d", "5e4d"];
        let pick = self
            .position
            .as_ref()
            .and_then(|p| CANDIDATES.iter().find(|c| p.parse_usi_move(c).is_err()));
        pick.unwrap_or(&CANDIDATES[0]).to_string()
    }

    /// Sends the lines printed so far as events; false when nobody listens any more.
    fn flush(&mut self, events: &mpsc::UnboundedSender<MemberEvent>, shared: &Scripted) -> bool {
        if !self.out.is_empty() {
            let now = Instant::now();
            if let Some(r) = shared.lock().records.get_mut(&self.number) {
                r.log.extend(self.out.iter().map(|line| Traffic {
                    instance: self.instance,
                    at: now,
                    to_member: false,
                    line: line.clone(),
                }));
            }
        }
        for line in self.out.drain(..) {
            let event = MemberEvent::Message {
                member: self.number,
                instance: self.instance,
                message: parse_line(line),
            };
            if events.send(event).is_err() {
                return false;
            }
        }
        true
    }
}

/// The member's task: commands, `say` bytes and its own timers until it exits or is killed.
async fn run(
    mut member: Member,
    end: Detached,
    mut say: mpsc::UnboundedReceiver<Vec<u8>>,
    events: mpsc::UnboundedSender<MemberEvent>,
    shared: Scripted,
) {
    let Detached {
        instance,
        mut commands,
        exit,
    } = end;
    let code = loop {
        let due = member.next_due();
        // `biased`: a fixed order keeps runs reproducible (tokio's default order is random).
        tokio::select! {
            biased;
            command = commands.recv() => match command {
                Some(Command::Line { text: line, .. }) => {
                    let now = Instant::now();
                    if let Some(r) = shared.lock().records.get_mut(&member.number) {
                        r.received.push((instance, line.clone()));
                        r.log.push(Traffic { instance, at: now, to_member: true, line: line.clone() });
                    }
                    member.input.push_back(line);
                }
                // Killed, or every handle dropped.
                Some(Command::Kill) | None => break None,
            },
            Some(bytes) = say.recv() => {
                for piece in bytes.split(|&b| b == b'\n') {
                    let piece = piece.strip_suffix(b"\r").unwrap_or(piece);
                    member.out.push(String::from_utf8_lossy(piece).into_owned());
                }
            }
            _ = sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                member.on_due(Instant::now());
            }
        }
        let exit = member.read_input(Instant::now());
        if !member.flush(&events, &shared) {
            break None;
        }
        if let Some(code) = exit {
            break code;
        }
    };
    tracing::debug!(
        member = member.number,
        instance,
        ?code,
        "scripted member exited"
    );
    let _ = exit.set(code);
    let _ = events.send(MemberEvent::Exited {
        member: member.number,
        instance,
        code,
    });
}

/// A `std::io::Write` for the coordinator's GUI output in tests: keeps every complete line
/// with the (tokio, so virtual under paused time) instant it was written. Cloneable: the
/// coordinator writes to one clone, the test reads another.
#[derive(Clone, Default)]
pub struct Capture {
    inner: Arc<Mutex<CaptureInner>>,
    written: Arc<Notify>,
}

#[derive(Default)]
struct CaptureInner {
    partial: Vec<u8>,
    lines: Vec<(Instant, String)>,
}

impl Capture {
    pub fn new() -> Capture {
        Capture::default()
    }

    /// Every complete line so far (lossily decoded) with the time it was written.
    pub fn lines(&self) -> Vec<(Instant, String)> {
        self.lock().lines.clone()
    }

    /// The number of complete lines so far.
    pub fn len(&self) -> usize {
        self.lock().lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits until a line at index `from` or later satisfies `pred`; returns its index, time
    /// and text. Waits forever if none comes: wrap it in `tokio::time::timeout`.
    pub async fn wait_for(
        &self,
        from: usize,
        pred: impl Fn(&str) -> bool,
    ) -> (usize, Instant, String) {
        loop {
            // Registered before looking, so a write between the look and the wait is not missed.
            let notified = self.written.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let inner = self.lock();
                let hit = inner
                    .lines
                    .iter()
                    .enumerate()
                    .skip(from)
                    .find(|(_, (_, l))| pred(l));
                if let Some((i, (t, l))) = hit {
                    return (i, *t, l.clone());
                }
            }
            notified.await;
        }
    }

    fn lock(&self) -> MutexGuard<'_, CaptureInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let now = Instant::now();
        let mut inner = self.lock();
        inner.partial.extend_from_slice(buf);
        while let Some(i) = inner.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = inner.partial.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i]).into_owned();
            inner.lines.push((now, text));
        }
        drop(inner);
        self.written.notify_waiters();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::{BestMove, EngineMessage};

    fn spec(n: u32) -> MemberSpec {
        MemberSpec::new(n, super::super::Role::Normal, "scripted", &[])
    }

    async fn next(rx: &mut mpsc::UnboundedReceiver<MemberEvent>) -> MemberEvent {
        rx.recv().await.expect("an event")
    }

    #[tokio::test(start_paused = true)]
    async fn answers_after_its_delay_in_virtual_time() {
        let scripted = Scripted::new([(1, Script::always(Go::Answer(Duration::from_secs(5))))]);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let handle = (scripted.launcher())(&spec(1), tx).unwrap();
        handle.send_line("usi").unwrap();
        assert!(matches!(
            next(&mut rx).await,
            MemberEvent::Message { message: EngineMessage::IdName(n), .. } if n == "scripted"
        ));
        next(&mut rx).await; // id author
        let usiok = next(&mut rx).await;
        assert_eq!(usiok.instance(), handle.instance());
        handle.send_line("position startpos moves 7g7f").unwrap();
        let t0 = Instant::now();
        handle.send_line("go byoyomi 10000").unwrap();
        assert!(matches!(
            next(&mut rx).await,
            MemberEvent::Message {
                message: EngineMessage::Info(_),
                ..
            }
        ));
        let MemberEvent::Message {
            message: EngineMessage::BestMove(BestMove::Move { mv, .. }),
            ..
        } = next(&mut rx).await
        else {
            panic!("bestmove expected");
        };
        assert_eq!(t0.elapsed(), Duration::from_secs(5));
        let pos = Position::from_usi_position("startpos moves 7g7f").unwrap();
        assert!(pos.parse_usi_move(mv.as_str()).is_ok(), "{mv}");
        handle.kill();
        assert!(matches!(
            next(&mut rx).await,
            MemberEvent::Exited { code: None, .. }
        ));
        assert_eq!(handle.exit_code(), Some(None));
        assert_eq!(scripted.received(1).len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn hang_ignores_stop_and_quit_but_not_kill() {
        let scripted = Scripted::new([(2, Script::new([Go::Hang]))]);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let handle = (scripted.launcher())(&spec(2), tx).unwrap();
        for line in ["position startpos", "go byoyomi 100", "stop", "quit"] {
            handle.send_line(line).unwrap();
        }
        let silent = tokio::time::timeout(Duration::from_secs(60), rx.recv()).await;
        assert!(silent.is_err(), "{silent:?}");
        handle.kill();
        assert!(matches!(
            next(&mut rx).await,
            MemberEvent::Exited { code: None, .. }
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn say_goes_to_the_current_instance_and_instances_differ() {
        let scripted = Scripted::default();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let first = (scripted.launcher())(&spec(3), tx.clone()).unwrap();
        let second = (scripted.launcher())(&spec(3), tx).unwrap();
        assert_ne!(first.instance(), second.instance());
        assert_eq!(scripted.launches(3), 2);
        assert!(scripted.say(3, b"info string a\xffb\r\nbestmove"));
        let a = next(&mut rx).await;
        assert_eq!(a.instance(), second.instance());
        assert_eq!(
            a,
            MemberEvent::Message {
                member: 3,
                instance: second.instance(),
                message: "info string a\u{fffd}b".parse().unwrap(),
            }
        );
    }
}
