//! The coordinator: gougi as one USI engine in front of its members.
//!
//! One tokio task owns everything: the GUI's lines, every member's events, the round timers.
//! It is the only writer to stdout. Nothing here blocks: waiting for `usiok`, `readyok` or a
//! `bestmove` is a state plus a timer, so the GUI is always read (GougiShogi §12.3).
//!
//! # Layout
//! This file is the event loop and the dispatch of GUI commands and member events; the rest is
//! one `impl Coordinator` per concern, in child modules (which see the private state):
//! `state` (limits, slots, rounds, per-game memory), `session` (`usi`, `setoption`,
//! `isready`, `gameover`), `members` (requests, stop, hangs, restarts, each member's `go`),
//! `solo` (`Engine<N>.SoloOption`: a member's values for the rounds it plays alone),
//! `rounds` (planning a `go`, `stop`, `ponderhit`, timers, when to decide), `intake`
//! (`info`, `bestmove`, mate claims, the relay), `decide` (policies, `G_Resign`, the vote),
//! `exchanges` (the exchange rule's phases, the `leader` type's re-searches), `mates` (mate members, `go mate`, the
//! built-in solver), `output` (annotated lines, the final `info`), `distance` (members whose
//! answers lag: earlier stops, the GUI told of a member's lag).
//!
//! # Members and stale answers
//! Every `go` sent to a member is pushed on that member's queue of outstanding requests, and
//! every `bestmove`/`checkmate` pops one (`requests.rs`). An answer counts only when the popped
//! request belongs to the current round; anything else is a late answer to a round already
//! decided and is dropped. USI engines answer in order, so this is exact for members that
//! answer after `stop` or after gougi moved on. A member that answers one `go` twice is the
//! limit: USI answers carry no request number, so an extra `bestmove` that reaches gougi only
//! after its next `go` was sent is taken as the answer to that `go` (a move illegal there is
//! discarded; a legal one counts), and the member's real answer then goes to the request after,
//! until the member owes nothing. An extra answer that arrives before the next `go` finds no
//! request and is dropped. A member is asked to `stop` exactly once before it gets a new `go`
//! while it still owes an answer, and each request keeps its own `stop` time: only the answer
//! the member is working on now can make it count as hung.
//!
//! # Faults
//! A member that exits is reported once with `info string`, left out of the round and restarted
//! (handshake, the GUI's options replayed, `isready`, `usinewgame` if in a game) after a back-off
//! that doubles with each failure in a row (0, 1, 2, 4 … s, at most [`BACKOFF_CAP`]); after
//! [`MAX_FAILURES`] failures in a row it is left out until the next game. A member that answers
//! a round starts its count again, and so does every member at `usinewgame`: a member is never
//! lost for good. A member that still owes an answer [`HUNG_AFTER`] after it was told to stop is
//! killed (and so restarted). An illegal or unparsable move is discarded, logged and reported.
//! With no usable answer at all, gougi plays a legal fallback move and resigns only when no legal
//! move exists; a member's resignation stands only under `G_Resign` (see `resign.rs`).

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};
use tracing::{debug, warn};

use crate::book::{Book, BookOptions, SplitMix64};
use crate::config::Config;
use crate::gougi::game::{Game, PositionRefused};
use crate::gougi::lag::Lag;
use crate::gougi::options::{GOptions, OutputEncoding};
use crate::gougi::policy::Memory;
use crate::mate::MateTable;
use crate::member::lines::LineReader;
/// How the coordinator starts members (a process each, or in-process scripted members in tests).
pub use crate::member::Launcher;
use crate::member::{MemberEvent, MemberHandle};
use crate::usi::{Checkmate, EngineMessage, GuiCommand, Strictness};

mod decide;
mod distance;
mod exchanges;
mod intake;
mod limits;
mod mates;
mod members;
mod multi_ponder;
mod output;
mod relay_cap;
mod requests;
mod rounds;
mod session;
mod settle;
mod solo;
mod state;

use members::launch;
use multi_ponder::MultiPonder;
use output::Decided;
use relay_cap::RelayCap;
use requests::Requests;
pub use requests::{Owed, Probe};
use solo::Solo;
pub use state::MAX_FAILURES;
use state::{MateState, Round, RoundKind, Slot, SlotState, Warned, EOF_GRACE, HANDSHAKE_LIMIT};

pub struct Coordinator<W> {
    /// The GUI channel. A plain blocking writer: tokio's stdout goes through its blocking
    /// pool on every write (tens of µs per line), and a GUI reads its pipe promptly.
    out: W,
    buffer: Vec<String>,
    config: Config,
    slots: Vec<Slot>,
    events: mpsc::UnboundedReceiver<MemberEvent>,
    events_tx: mpsc::UnboundedSender<MemberEvent>,
    /// Starts (and restarts) members.
    launcher: Launcher,
    options: GOptions,
    game: Game,
    in_game: bool,
    per_game: Memory,
    mates: MateState,
    round: Option<Round>,
    /// When the GUI stopped a ponder that missed: the next `go` is timed from here
    /// ([`deadline::spent`]), not from its own arrival.
    ponder_stopped: Option<Instant>,
    /// The delay the GUI's clock sees beyond gougi's own time, learned from that clock
    /// (`G_NetworkDelay` until then).
    gui_lag: crate::gougi::gui_lag::GuiLag,
    /// `G_MultiPonder`: who ponders which reply, the parked ponderers, the game's hit rate.
    mponder: MultiPonder,
    next_round: u64,
    usi_pending: bool,
    ready_pending: Option<Instant>,
    /// GUI commands that arrived while `usiok`/`readyok` was still owed; handled after it, in
    /// order (a GUI normally waits, but a script or a fast GUI may not).
    /// With each, whether its line was read as CP932 (a held `setoption` keeps its encoding).
    deferred: VecDeque<(GuiCommand, bool)>,
    next_keepalive: Option<Instant>,
    quitting: bool,
    /// The df-pn table for verifying members' mate claims, made at the first claim.
    verify_table: Option<MateTable>,
    /// When gougi started (the `usiok` wait counts from here).
    started_at: Instant,
    /// The GUI's input ended: finish what was asked, then quit.
    input_closed: bool,
    /// The GUI line being handled was read as CP932.
    gui_line_cp932: bool,
    /// The GUI sent `isready` at least once: members that finish their handshake later are
    /// sent `isready` by gougi.
    isready_seen: bool,
    /// The GUI's last `position` was refused (illegal move, bad SFEN): `go` is answered
    /// without consulting anyone.
    position_refused: Option<PositionRefused>,
    /// `G_BookFile` and the `G_Book…` options: the proxy answers from the book before asking
    /// anyone (loaded at `isready`).
    book_options: BookOptions,
    book: Option<Book>,
    /// The file `book` was loaded from (a reload happens only when `G_BookFile` changes).
    book_loaded: Option<String>,
    book_rng: SplitMix64,
    /// Answers of the built-in mate solver, by round.
    solver_tx: mpsc::UnboundedSender<(u64, Checkmate)>,
    solver_rx: mpsc::UnboundedReceiver<(u64, Checkmate)>,
    /// `G_Monitor`: the value it was set to and the live page's server (`output.rs`).
    monitor: Option<(String, crate::monitor::Server)>,
    /// Decisions to publish once their `bestmove` is flushed.
    unpublished: Vec<Decided>,
    /// Logical CPUs of this machine (cgroup quotas included), for `Engine<N>.MinCores`.
    cores: u32,
    /// The GUI has been told which members sit out timed rounds (once per process).
    sitting_out_told: bool,
    /// The last `go` was under a clock (not `nodes`, `depth` or `mate`): `MinCores` applies.
    timed_go: bool,
    /// Where to publish what members owe after each event (tests only; `requests.rs`).
    probe: Option<Probe>,
    /// The cap on `G_InfoRelay=all` (`RELAY_RATE`).
    relay_cap: RelayCap,
}

impl<W: std::io::Write> Coordinator<W> {
    /// Start every member (handshakes run in parallel from here on) and build the coordinator.
    pub fn start(config: Config, out: W) -> Self {
        Self::start_with(config, out, crate::member::process_launcher())
    }

    /// [`Coordinator::start`] with members started by `launcher` (in-process scripted members
    /// for tests under paused time); it is called again for every restart.
    pub fn start_with(config: Config, out: W, mut launcher: Launcher) -> Self {
        let (events_tx, events) = mpsc::unbounded_channel();
        let (solver_tx, solver_rx) = mpsc::unbounded_channel();
        let now = Instant::now();
        let specs = config.member_specs();
        let mut slots = Vec::with_capacity(specs.len());
        let mut buffer = Vec::new();
        for spec in specs {
            let name = spec
                .display_name
                .clone()
                .unwrap_or_else(|| format!("E{}", spec.number));
            let mut slot = Slot {
                spec,
                handle: None,
                state: SlotState::Dead,
                name: name.into(),
                options: Vec::new(),
                settings: Vec::new(),
                explicit: HashSet::new(),
                cp932: HashSet::new(),
                config_unsent: Vec::new(),
                solo: Solo::default(),
                requests: Requests::default(),
                clock_lag: Lag::default(),
                stop_lag: Lag::default(),
                lag_told: false,
                awaiting_ready: false,
                ready_since: None,
                ready_said: 0,
                restarts: 0,
                failures: 0,
                restart_at: None,
                garbage_at: None,
                last_score: None,
                last_info: None,
                last_pv: Vec::new(),
                last_pv_line: None,
                lines: Vec::new(),
                prev: None,
                handshake_deadline: now + HANDSHAKE_LIMIT,
                warned: Warned::default(),
            };
            if let Err(e) = launch(&mut slot, &events_tx, &mut launcher) {
                buffer.push(format!(
                    "info string [Error] E{} ({}): {e}",
                    slot.number(),
                    slot.spec.command_text()
                ));
            }
            slots.push(slot);
        }
        Coordinator {
            out,
            buffer,
            config,
            slots,
            events,
            events_tx,
            launcher,
            options: GOptions::default(),
            game: Game::default(),
            in_game: false,
            per_game: Memory::default(),
            mates: MateState::default(),
            round: None,
            ponder_stopped: None,
            gui_lag: Default::default(),
            mponder: MultiPonder::default(),
            next_round: 1,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            sitting_out_told: false,
            timed_go: false,
            usi_pending: false,
            ready_pending: None,
            deferred: VecDeque::new(),
            next_keepalive: None,
            quitting: false,
            verify_table: None,
            started_at: now,
            input_closed: false,
            gui_line_cp932: false,
            isready_seen: false,
            position_refused: None,
            book_options: BookOptions::default(),
            book: None,
            book_loaded: None,
            book_rng: SplitMix64::from_time(),
            solver_tx,
            solver_rx,
            monitor: None,
            unpublished: Vec::new(),
            probe: None,
            relay_cap: RelayCap::new(now),
        }
    }

    /// Serve the GUI until `quit` or the end of its input.
    ///
    /// GUI lines are bytes: each is decoded as UTF-8, else CP932 (a Japanese Windows GUI's
    /// `setoption`), never an error. At the end of input gougi answers what was already asked
    /// (held `usi`/`isready`, a running `go`; ponder and infinite rounds are stopped, since no
    /// `stop` can come any more) and then quits as on `quit`: no orphan members.
    pub async fn run<R: tokio::io::AsyncRead + Unpin>(mut self, input: R) -> anyhow::Result<()> {
        let mut lines = LineReader::new(input);
        let mut result = self.flush();
        while result.is_ok() {
            let timer = self.next_timer();
            tokio::select! {
                line = lines.next_line(), if !self.input_closed => match line {
                    Ok(Some(line)) => {
                        self.gui_line_cp932 = lines.last_was_cp932();
                        self.on_gui_line(&line);
                    }
                    Ok(None) => self.on_input_end(),
                    Err(e) => {
                        warn!(error = %e, "reading the GUI's input failed; treated as its end");
                        self.on_input_end();
                    }
                },
                Some(event) = self.events.recv() => self.on_member_events(event),
                Some((id, cm)) = self.solver_rx.recv() => self.on_builtin_mate(id, cm),
                _ = sleep_until(timer.unwrap_or_else(far_future)), if timer.is_some() => self.on_timer(),
            }
            if self.input_closed {
                self.wind_down();
            }
            result = self.flush();
            self.publish_pending();
            self.publish_owed();
            if self.quitting {
                break;
            }
        }
        if let Err(e) = &result {
            // The GUI is gone (stdout closed): nobody to answer; end the members all the same.
            warn!(error = %e, "writing to the GUI failed; shutting down");
        }
        self.shutdown().await;
        result.map_err(Into::into)
    }

    fn on_input_end(&mut self) {
        debug!("end of the GUI's input");
        self.input_closed = true;
    }

    /// After the input ended: stop what only a `stop` could end, bound what has no deadline,
    /// and quit once nothing asked is left unanswered.
    fn wind_down(&mut self) {
        if let Some(round) = &mut self.round {
            if matches!(round.kind, RoundKind::Ponder | RoundKind::Infinite) {
                self.on_stop();
            } else if round.hard.is_none() {
                round.hard = Some(Instant::now() + EOF_GRACE);
            }
        }
        let idle = self.round.is_none()
            && self.deferred.is_empty()
            && !self.usi_pending
            && self.ready_pending.is_none();
        if idle {
            self.quitting = true;
        }
    }

    fn say(&mut self, line: impl Into<String>) {
        self.buffer.push(line.into());
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for line in self.buffer.drain(..) {
            debug!(target: "gougi::gui", "> {line}");
            text.push_str(&line);
            text.push('\n');
        }
        let bytes = if self.options.output_encoding == OutputEncoding::ShiftJis {
            // Characters Shift_JIS lacks become numeric character references.
            encoding_rs::SHIFT_JIS.encode(&text).0.into_owned()
        } else {
            text.into_bytes()
        };
        self.out.write_all(&bytes)?;
        self.out.flush()
    }

    async fn shutdown(&mut self) {
        for slot in &self.slots {
            if let Some(h) = &slot.handle {
                let _ = h.send(&GuiCommand::Quit);
            }
        }
        // Give members a moment to exit on their own, then kill what is left.
        let deadline = Instant::now() + Duration::from_millis(500);
        while self
            .slots
            .iter()
            .any(|s| s.handle.as_ref().is_some_and(|h| h.exit_code().is_none()))
        {
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        for slot in &mut self.slots {
            if let Some(h) = slot.handle.take() {
                h.kill();
            }
        }
    }

    // ----- GUI side -----------------------------------------------------------------------

    fn on_gui_line(&mut self, line: &str) {
        debug!(target: "gougi::gui", "< {line}");
        if line.trim().is_empty() {
            // A blank line means nothing in USI; it is not a command to pass on to members.
            return;
        }
        match GuiCommand::parse(line, Strictness::Lenient) {
            Ok(cmd) => self.on_gui(cmd),
            Err(e) => {
                warn!(line, error = %e, "malformed GUI line");
                self.say(format!(
                    "info string [Error] cannot read \"{}\": {e}",
                    line.trim()
                ));
            }
        }
    }

    fn on_gui(&mut self, cmd: GuiCommand) {
        if (self.usi_pending || self.ready_pending.is_some()) && cmd != GuiCommand::Quit {
            self.deferred.push_back((cmd, self.gui_line_cp932));
            return;
        }
        self.handle_gui(cmd);
    }

    /// Handle the commands held back while `usiok`/`readyok` was owed, until one of them
    /// makes gougi wait again.
    fn drain_deferred(&mut self) {
        while !self.usi_pending && self.ready_pending.is_none() {
            let Some((cmd, cp932)) = self.deferred.pop_front() else {
                break;
            };
            // Handled now, but read then: its encoding is that of its own line.
            let current = std::mem::replace(&mut self.gui_line_cp932, cp932);
            self.handle_gui(cmd);
            self.gui_line_cp932 = current;
        }
    }

    fn handle_gui(&mut self, cmd: GuiCommand) {
        match cmd {
            GuiCommand::Usi => {
                self.usi_pending = true;
                self.try_answer_usi();
            }
            GuiCommand::IsReady => self.on_isready(),
            GuiCommand::SetOption(opt) if opt.name == "G_Monitor" => {
                self.set_monitor(opt.value.as_deref().unwrap_or(""))
            }
            GuiCommand::SetOption(opt) => self.on_setoption(opt),
            GuiCommand::UsiNewGame => {
                self.ponder_stopped = None;
                self.gui_lag.new_game();
                self.mponder.new_game();
                self.in_game = true;
                self.per_game = Memory::default();
                self.mates = MateState::default();
                for slot in &mut self.slots {
                    slot.prev = None;
                }
                self.fresh_chances();
                self.broadcast(&GuiCommand::UsiNewGame);
                self.publish_hello();
                self.publish(crate::monitor::Retain::Reset, |_| {
                    crate::monitor::consult::Event::NewGame
                });
            }
            GuiCommand::Position(p) => {
                match Game::new(p.clone()) {
                    Ok(g) => {
                        self.game = g;
                        self.position_refused = None;
                    }
                    Err(e) => {
                        // No board, no checked move: members' answers for it could not be told
                        // from nonsense (many engines keep their previous position when they
                        // refuse one), so nobody is asked.
                        warn!(position = %p, error = %e, "GUI position refused");
                        self.say(format!(
                            "info string [Error] position refused: {e}; go will be answered with resign"
                        ));
                        self.game = Game::unchecked(p);
                        self.position_refused = Some(e);
                    }
                }
                self.mates.queue.clear();
            }
            GuiCommand::Go(limits) => self.on_go(limits),
            GuiCommand::Stop => self.on_stop(),
            GuiCommand::PonderHit(limits) => self.on_ponderhit(limits),
            GuiCommand::GameOver(result) => {
                self.ponder_stopped = None;
                self.on_gameover(result)
            }
            GuiCommand::Quit => self.quitting = true,
            GuiCommand::MateInfo(_) | GuiCommand::Unknown(_) => {
                // Unknown commands reach every member, as in the reference.
                self.broadcast(&cmd);
            }
        }
    }

    // ----- member side --------------------------------------------------------------------

    fn slot_index(&self, number: u32) -> Option<usize> {
        // Normal members are numbered 1, 2, 3 … in slot order: look there first, since this
        // runs at every line a member prints (the mate member, 0, is found by the scan).
        let guess = (number as usize).wrapping_sub(1);
        if self
            .slots
            .get(guess)
            .is_some_and(|s| s.spec.number == number)
        {
            return Some(guess);
        }
        self.slots.iter().position(|s| s.spec.number == number)
    }

    /// `first` and the member events already queued behind it, up to one per member, before
    /// the loop computes its next timer and writes to the GUI: both cost a pass over every
    /// member, and with many members paid at every line they made a round quadratic in the
    /// member count. The batch ends early when the round is decided, so the `bestmove` is
    /// written at once.
    fn on_member_events(&mut self, first: MemberEvent) {
        let round = self.round.as_ref().map(|r| r.id);
        self.on_member_event(first);
        for _ in 1..self.slots.len().max(16) {
            if self.quitting || self.round.as_ref().map(|r| r.id) != round {
                break;
            }
            match self.events.try_recv() {
                Ok(event) => self.on_member_event(event),
                Err(_) => break,
            }
        }
    }

    fn on_member_event(&mut self, event: MemberEvent) {
        let Some(i) = self.slot_index(event.member()) else {
            return;
        };
        // A killed or replaced instance may still be heard from (its `Exited` comes after its
        // replacement was launched): that news is not about the slot's current member.
        let current = self.slots[i].handle.as_ref().map(MemberHandle::instance);
        if current != Some(event.instance()) {
            debug!(
                member = event.member(),
                instance = event.instance(),
                ?current,
                "event of a replaced member instance dropped"
            );
            // Whoever killed it (`supervise`) already cleared what it was doing.
            return;
        }
        match event {
            MemberEvent::Exited { code, .. } => self.on_exit(i, code),
            // An `info` line changes no answer, so it cannot finish a round (the deadlines
            // have their timers): checking would cost a pass over the members at every line.
            MemberEvent::Message {
                message: EngineMessage::Info(info),
                ..
            } => {
                self.on_message(i, EngineMessage::Info(info));
                return;
            }
            MemberEvent::Message { message, .. } => self.on_message(i, message),
        }
        self.maybe_finish();
    }

    // ----- mate members -------------------------------------------------------------------

    // ----- timers -------------------------------------------------------------------------

    // ----- deciding -----------------------------------------------------------------------

    // ----- helpers ------------------------------------------------------------------------
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400)
}
