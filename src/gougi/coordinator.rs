//! The coordinator: gougi as one USI engine in front of its members.
//!
//! One tokio task owns everything: the GUI's lines, every member's events, the round timers.
//! It is the only writer to stdout. Nothing here blocks: waiting for `usiok`, `readyok` or a
//! `bestmove` is a state plus a timer, so the GUI is always read (GougiShogi §12.3).
//!
//! # Members and stale answers
//! Every `go` sent to a member is pushed on that member's queue of outstanding requests, and
//! every `bestmove`/`checkmate` pops one. An answer counts only when the popped request belongs
//! to the current round; anything else is a late answer to a round already decided and is
//! dropped. USI engines answer in order, so this is exact even for members that answer after
//! `stop`, after gougi moved on, or twice (the extra answer finds no request and is dropped).
//! A member is asked to `stop` before it gets a new `go` while it still owes an answer.
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

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};
use tracing::{debug, info, warn};

use crate::config::{Config, PolicyKind};
use crate::gougi::annotate::{self, History, MemberLine, Verdict};
use crate::gougi::answer::{Answer, Eval};
use crate::gougi::deadline::{self, Clock};
use crate::gougi::game::Game;
use crate::gougi::options::{self, Values};
use crate::gougi::policy::change_player::{self, Rotation};
use crate::gougi::policy::exchange::{self, Phase1};
use crate::gougi::policy::mate::{self as mate_policy, MateChoice};
use crate::gougi::policy::optimism::{self, Alternation};
use crate::gougi::policy::vote;
use crate::gougi::policy::Decision;
use crate::gougi::resign::{self, ResignRule};
use crate::gougi::verify;
use crate::mate::{BackgroundSolve, MateTable};
use crate::member::lines::LineReader;
/// How the coordinator starts members (a process each, or in-process scripted members in tests).
pub use crate::member::Launcher;
use crate::member::{MemberEvent, MemberHandle, MemberSpec, NodesRule, Role};
use crate::usi::{
    BestMove, Checkmate, EngineMessage, GameResult, GoLimits, GuiCommand, Info, InfoScore,
    InfoText, MateLimit, OptionDecl, PositionCommand, Score, SetOption, Strictness, UsiMove,
};

/// How long gougi's `usiok` waits for members' `usiok`: a GUI's own limit is short (and a
/// member that never answers must not hold start-up), so after this gougi answers without the
/// late member, whose handshake goes on until [`HANDSHAKE_LIMIT`].
const USI_WAIT: Duration = Duration::from_secs(4);
/// A member that has not answered `usi` this long after it was started is killed (and
/// restarted under the back-off).
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(30);
/// How long gougi's `readyok` waits for members' `readyok`. A member still loading then (a
/// large hash, an evaluation file) is left out until its own `readyok` arrives, up to
/// [`READY_LIMIT`]; the GUI gets its answer at once and is told.
const READY_WAIT: Duration = Duration::from_secs(4);
/// A member that has not answered `isready` this long is killed (the reference's 60 s).
const READY_LIMIT: Duration = Duration::from_secs(60);
/// Empty keep-alive lines while waiting for `readyok`, as YaneuraOu does for Shogidokoro.
const KEEPALIVE: Duration = Duration::from_secs(5);
/// After a GUI `stop`, how long members get to send their `bestmove`.
const STOP_GRACE: Duration = Duration::from_millis(1000);
/// A member that owes an answer this long after `stop` is considered hung and killed.
const HUNG_AFTER: Duration = Duration::from_secs(3);
/// Failures in a row (exits, hangs, failed starts with no answered round between them) after
/// which a member is left out until the next `usinewgame`.
pub const MAX_FAILURES: u32 = 5;
/// The longest wait before a restart; the first restart is immediate, then 1 s, 2 s, 4 s ….
const BACKOFF_CAP: Duration = Duration::from_secs(16);
/// How long an unparsable `bestmove` waits for a real one from the same member before it
/// counts as that member's (empty) answer: some engines print a broken line first.
const GARBAGE_GRACE: Duration = Duration::from_millis(50);
/// After the GUI's input ends, the longest a round without a deadline (`go nodes`) may still
/// take before gougi answers and quits.
const EOF_GRACE: Duration = Duration::from_secs(30);
/// Cap on `USI_Hash` for mate members (the reference's 256 MB), since they are extra processes.
const MATE_HASH_CAP: u64 = 256;
/// Positions remembered as already sent to PV mate members (mate-pv), oldest forgotten first.
const PV_MATE_MEMORY: usize = 4096;
/// The built-in solver's table for `go mate` without a mate member (allocated per `go mate`;
/// about 13 ms for 64 MiB).
const BUILTIN_MATE_HASH_MB: u64 = 64;
/// The key of the built-in solver's answer among a tsume round's `checkmates` (not a slot).
const BUILTIN_MATE: usize = usize::MAX;
/// The longest PV prefix sent to PV mate members.
const PV_MATE_DEPTH: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// `usi` sent, waiting for `usiok`.
    Handshaking,
    /// A restarted member: `isready` sent, waiting for `readyok` before it joins rounds.
    Readying,
    /// Usable.
    Ready,
    /// The process ended; may be restarted.
    Dead,
}

/// What an outstanding request to a member was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Request {
    round: u64,
    mate: bool,
}

/// One member as the coordinator tracks it.
struct Slot {
    spec: MemberSpec,
    handle: Option<MemberHandle>,
    state: SlotState,
    /// `id name`, or the config's `Engine<N>.Name`.
    name: String,
    options: Vec<OptionDecl>,
    /// The GUI's settings for this member, in order, to replay after a restart.
    settings: Vec<SetOption>,
    pending: VecDeque<Request>,
    /// When `stop` was sent while answers were still owed.
    stopped_at: Option<Instant>,
    awaiting_ready: bool,
    /// When `isready` was sent and not yet answered.
    ready_since: Option<Instant>,
    restarts: u32,
    /// Failures in a row since the member last answered a round (or since `usinewgame`).
    failures: u32,
    /// A dead member's next start; `None` with `Dead` means left out until the next game.
    restart_at: Option<Instant>,
    /// An unparsable `bestmove` for the current request arrived at this time (see
    /// [`GARBAGE_GRACE`]).
    garbage_at: Option<Instant>,
    /// Last exact main-line score and the info line that carried it, for the current round.
    last_score: Option<Score>,
    last_info: Option<Info>,
    /// Last main-line PV of the current round.
    last_pv: Vec<UsiMove>,
    /// `multipv-vote`: the last exact line of each MultiPV rank (index = rank − 1) this round.
    lines: Vec<Option<Info>>,
    /// Score at gougi's previous decision in this game ("2 plies ago").
    prev: Option<Score>,
    handshake_deadline: Instant,
}

impl Slot {
    fn number(&self) -> u32 {
        self.spec.number
    }

    fn usable(&self) -> bool {
        self.state == SlotState::Ready && !self.awaiting_ready
    }

    fn clear_round(&mut self) {
        self.last_score = None;
        self.last_info = None;
        self.last_pv.clear();
        self.lines.clear();
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoundKind {
    /// A timed or limited search that ends with a decision.
    Play,
    /// `go ponder`: no deadline until `ponderhit` (then `Play`) or `stop`.
    Ponder,
    /// `go infinite`: until `stop`.
    Infinite,
    /// `go mate`: answered with `checkmate`.
    Tsume,
}

/// The exchange rule's second phase: both first answers and the replies so far.
#[derive(Clone, Debug)]
struct ExchangeState {
    first: [Answer; 2],
    first_got: [Got; 2],
}

/// A member's answer within a round.
#[derive(Clone, Debug)]
struct Got {
    best: BestMove,
    score: Option<Score>,
    info: Option<Info>,
    pv: Vec<UsiMove>,
    /// `multipv-vote`: the member's exact MultiPV lines 2, 3, … at its `bestmove`.
    lines: Vec<Info>,
}

struct Round {
    id: u64,
    kind: RoundKind,
    game: Game,
    limits: GoLimits,
    started: Instant,
    soft: Option<Instant>,
    hard: Option<Instant>,
    /// Slots searching this round (normal members, or mate members for `go mate`).
    participants: Vec<usize>,
    answers: HashMap<usize, Got>,
    /// Tsume rounds: answers of the mate members.
    checkmates: HashMap<usize, Checkmate>,
    stop_sent: bool,
    exchange: Option<ExchangeState>,
    /// The member whose info stream the GUI currently sees.
    leader: Option<usize>,
    /// Members searching another position than the round's (exchange phase 2), by slot.
    elsewhere: HashMap<usize, Game>,
    /// A `go ponder` ended by `stop`: its bestmove is thrown away by the GUI.
    missed_ponder: bool,
    /// `go mate` with no mate member: the built-in df-pn solver, in-process on its own thread,
    /// until its answer is in `checkmates[BUILTIN_MATE]` (dropping it stops it).
    builtin_mate: Option<BackgroundSolve>,
    /// Ponder rounds: members with `Engine<N>.Ponder=false`, started at `ponderhit`.
    ponder_later: Vec<usize>,
}

impl Round {
    /// The position member `i` is searching.
    fn game_of(&self, i: usize) -> &Game {
        self.elsewhere.get(&i).unwrap_or(&self.game)
    }
}

/// The consultation's per-game state (reset at `usinewgame`).
#[derive(Default)]
struct PerGame {
    alternation: Alternation,
    rotation: Rotation,
}

/// Mate members' state for the mate types.
#[derive(Default)]
struct MateState {
    /// The position each mate slot is searching, by slot.
    busy: HashMap<usize, PositionCommand>,
    /// Verified mates by position (the GUI's command text), shortest kept.
    found: HashMap<String, Vec<UsiMove>>,
    /// mate-pv: positions already sent, oldest first.
    searched: VecDeque<String>,
    searched_set: HashSet<String>,
    /// mate-pv: positions waiting for a free PV mate member, newest last.
    queue: VecDeque<PositionCommand>,
    tried: u64,
    succeeded: u64,
    /// mate-pv: `mateinfo` lines for the normal member: text, sends left, next send time.
    mateinfo: Vec<(String, i64, Instant)>,
}

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
    options: Values,
    game: Game,
    in_game: bool,
    per_game: PerGame,
    mates: MateState,
    round: Option<Round>,
    next_round: u64,
    usi_pending: bool,
    ready_pending: Option<Instant>,
    /// GUI commands that arrived while `usiok`/`readyok` was still owed; handled after it, in
    /// order (a GUI normally waits, but a script or a fast GUI may not).
    deferred: VecDeque<GuiCommand>,
    next_keepalive: Option<Instant>,
    quitting: bool,
    /// The df-pn table for verifying members' mate claims, made at the first claim.
    verify_table: Option<MateTable>,
    /// When gougi started (the `usiok` wait counts from here).
    started_at: Instant,
    /// The GUI's input ended: finish what was asked, then quit.
    input_closed: bool,
    /// The GUI sent `isready` at least once: members that finish their handshake later are
    /// sent `isready` by gougi.
    isready_seen: bool,
    /// The GUI's last `position` was refused (illegal move, bad SFEN): `go` is answered
    /// without consulting anyone.
    position_refused: Option<String>,
    /// Answers of the built-in mate solver, by round.
    solver_tx: mpsc::UnboundedSender<(u64, Checkmate)>,
    solver_rx: mpsc::UnboundedReceiver<(u64, Checkmate)>,
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
        let specs = MemberSpec::from_config(&config);
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
                name,
                options: Vec::new(),
                settings: Vec::new(),
                pending: VecDeque::new(),
                stopped_at: None,
                awaiting_ready: false,
                ready_since: None,
                restarts: 0,
                failures: 0,
                restart_at: None,
                garbage_at: None,
                last_score: None,
                last_info: None,
                last_pv: Vec::new(),
                lines: Vec::new(),
                prev: None,
                handshake_deadline: now + HANDSHAKE_LIMIT,
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
            options: Values::default(),
            game: Game::default(),
            in_game: false,
            per_game: PerGame::default(),
            mates: MateState::default(),
            round: None,
            next_round: 1,
            usi_pending: false,
            ready_pending: None,
            deferred: VecDeque::new(),
            next_keepalive: None,
            quitting: false,
            verify_table: None,
            started_at: now,
            input_closed: false,
            isready_seen: false,
            position_refused: None,
            solver_tx,
            solver_rx,
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
                    Ok(Some(line)) => self.on_gui_line(&line),
                    Ok(None) => self.on_input_end(),
                    Err(e) => {
                        warn!(error = %e, "reading the GUI's input failed; treated as its end");
                        self.on_input_end();
                    }
                },
                Some(event) = self.events.recv() => self.on_member_event(event),
                Some((id, cm)) = self.solver_rx.recv() => self.on_builtin_mate(id, cm),
                _ = sleep_until(timer.unwrap_or_else(far_future)), if timer.is_some() => self.on_timer(),
            }
            if self.input_closed {
                self.wind_down();
            }
            result = self.flush();
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
        let bytes = match self.options.text("G_OutputEncoding") {
            // Characters Shift_JIS lacks become numeric character references.
            "Shift_JIS" => encoding_rs::SHIFT_JIS.encode(&text).0.into_owned(),
            _ => text.into_bytes(),
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
            self.deferred.push_back(cmd);
            return;
        }
        self.handle_gui(cmd);
    }

    /// Handle the commands held back while `usiok`/`readyok` was owed, until one of them
    /// makes gougi wait again.
    fn drain_deferred(&mut self) {
        while !self.usi_pending && self.ready_pending.is_none() {
            let Some(cmd) = self.deferred.pop_front() else {
                break;
            };
            self.handle_gui(cmd);
        }
    }

    fn handle_gui(&mut self, cmd: GuiCommand) {
        match cmd {
            GuiCommand::Usi => {
                self.usi_pending = true;
                self.try_answer_usi();
            }
            GuiCommand::IsReady => self.on_isready(),
            GuiCommand::SetOption(opt) => self.on_setoption(opt),
            GuiCommand::UsiNewGame => {
                self.in_game = true;
                self.per_game = PerGame::default();
                self.mates = MateState::default();
                for slot in &mut self.slots {
                    slot.prev = None;
                }
                self.fresh_chances();
                self.broadcast(&GuiCommand::UsiNewGame);
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
            GuiCommand::GameOver(result) => self.on_gameover(result),
            GuiCommand::Quit => self.quitting = true,
            GuiCommand::MateInfo(_) | GuiCommand::Unknown(_) => {
                // Unknown commands reach every member, as in the reference.
                self.broadcast(&cmd);
            }
        }
    }

    fn try_answer_usi(&mut self) {
        if !self.usi_pending {
            return;
        }
        let now = Instant::now();
        if now < self.started_at + USI_WAIT
            && self.slots.iter().any(|s| s.state == SlotState::Handshaking)
        {
            return; // the timer wakes us at the deadline
        }
        self.usi_pending = false;
        let name = self
            .config
            .name
            .clone()
            .unwrap_or_else(|| format!("gougi {}", env!("CARGO_PKG_VERSION")));
        self.say(format!("id name {name}"));
        self.say("id author the gougi developers");
        let mut lines = Vec::new();
        for slot in &self.slots {
            if slot.state == SlotState::Handshaking {
                lines.push(format!(
                    "info string [Error] E{} ({}) has not answered usi yet; its options are not shown and it joins when ready",
                    slot.number(),
                    slot.name
                ));
            }
            for decl in &slot.options {
                let mut d = decl.clone();
                d.name = format!("{}{}", slot.spec.prefix(), d.name);
                lines.push(d.to_string());
            }
        }
        let id = self.config.policy.id();
        for spec in options::SPECS.iter().filter(|s| s.advertised_for(id)) {
            lines.push(spec.to_string());
        }
        lines.push("usiok".to_string());
        self.buffer.extend(lines);
        self.drain_deferred();
    }

    fn on_setoption(&mut self, opt: SetOption) {
        let value = opt.value.clone().unwrap_or_default();
        if Values::is_own(&opt.name) {
            if let Err(e) = self.options.set(&opt.name, &value) {
                warn!(option = %opt.name, value = %value, error = %e, "setoption");
                let shown = if value.trim().is_empty() {
                    "(no value)"
                } else {
                    value.trim()
                };
                self.say(format!(
                    "info string [Warning] setoption {} {shown}: {e}",
                    opt.name
                ));
            }
            return;
        }
        let broadcast = opt.name.starts_with("USI");
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            let forwarded = if broadcast {
                let mut o = opt.clone();
                if o.name == "USI_Hash" && slot.spec.role != Role::Normal {
                    if let Ok(mb) = value.trim().parse::<u64>() {
                        o.value = Some(mb.min(MATE_HASH_CAP).to_string());
                    }
                }
                Some(o)
            } else {
                opt.name.strip_prefix(&slot.spec.prefix()).and_then(|rest| {
                    // Only options the member declared: E1_Foo must not reach E1 as `Foo` if
                    // it never offered `Foo` (and `E1_` must not match `E11_`).
                    slot.options
                        .iter()
                        .any(|d| d.name == rest)
                        .then(|| SetOption {
                            name: rest.to_string(),
                            value: opt.value.clone(),
                        })
                })
            };
            if let Some(o) = forwarded {
                let slot = &mut self.slots[i];
                slot.settings.retain(|s| s.name != o.name);
                slot.settings.push(o.clone());
                if matches!(slot.state, SlotState::Ready | SlotState::Readying) {
                    send(slot, &GuiCommand::SetOption(o));
                }
            }
        }
    }

    fn on_isready(&mut self) {
        self.supervise();
        let now = Instant::now();
        let multipv = (self.config.policy == PolicyKind::MultipvVote).then(|| SetOption {
            name: "MultiPV".to_string(),
            value: Some(self.options.int("G_MultiPV").to_string()),
        });
        for slot in &mut self.slots {
            // `multipv-vote` asks every member that offers MultiPV for G_MultiPV lines (over
            // any E<N>_MultiPV), kept with the settings so that a restart replays it.
            if let Some(o) = &multipv {
                if slot.spec.role == Role::Normal && slot.options.iter().any(|d| d.name == o.name) {
                    slot.settings.retain(|s| s.name != o.name);
                    slot.settings.push(o.clone());
                    if slot.state == SlotState::Ready {
                        send(slot, &GuiCommand::SetOption(o.clone()));
                    }
                }
            }
            if slot.state == SlotState::Ready && !slot.awaiting_ready {
                send(slot, &GuiCommand::IsReady);
                slot.awaiting_ready = true;
                slot.ready_since = Some(now);
            }
        }
        self.isready_seen = true;
        self.ready_pending = Some(now + READY_WAIT);
        self.next_keepalive = Some(now + KEEPALIVE);
        self.try_answer_ready();
    }

    fn try_answer_ready(&mut self) {
        let Some(deadline) = self.ready_pending else {
            return;
        };
        let waiting = |s: &Slot| {
            s.awaiting_ready || matches!(s.state, SlotState::Handshaking | SlotState::Readying)
        };
        if Instant::now() < deadline && self.slots.iter().any(waiting) {
            return;
        }
        // Late members are not killed here: one still loading joins with its own `readyok`;
        // one that never answers is ended by `supervise` at READY_LIMIT.
        for slot in self.slots.iter().filter(|s| waiting(s)) {
            self.buffer.push(format!(
                "info string [Error] E{} ({}) is not ready; left out until it is",
                slot.spec.number, slot.name
            ));
        }
        self.ready_pending = None;
        self.next_keepalive = None;
        self.say("readyok");
        self.drain_deferred();
    }

    /// A new game, a fresh chance (at `gameover` and at `usinewgame`): every member's failure
    /// count starts again, and a member left out in the last game is started now, so that the
    /// GUI's next `isready` finds it ready.
    fn fresh_chances(&mut self) {
        for slot in &mut self.slots {
            slot.failures = 0;
            if slot.state == SlotState::Dead && slot.restart_at.is_none() {
                slot.restart_at = Some(Instant::now());
            }
        }
        self.restart_dead();
    }

    fn on_gameover(&mut self, result: GameResult) {
        // A game that ends mid-search (a resignation while we ponder) needs no bestmove; the
        // members are stopped so none is left searching between games.
        if let Some(round) = self.round.take() {
            debug!(round = round.id, "round cancelled by gameover");
        }
        self.stop_all_searching();
        self.broadcast(&GuiCommand::GameOver(result));
        self.in_game = false;
        self.mates.queue.clear();
        self.mates.mateinfo.clear();
        self.fresh_chances();
    }

    fn on_stop(&mut self) {
        let Some(round) = &mut self.round else {
            // Nothing of ours is running; members may still be busy with late work.
            return;
        };
        let now = Instant::now();
        round.soft = Some(now);
        // A stopped ponder is a ponder miss: the GUI discards this bestmove and sends the real
        // `go` next, so gougi answers at once with what it has instead of waiting STOP_GRACE
        // for members (one hung member would otherwise eat a second of the next move's time).
        round.missed_ponder = round.kind == RoundKind::Ponder;
        if let Some(solve) = &round.builtin_mate {
            // Its answer (the best line found so far, or timeout) follows within milliseconds.
            solve.stop();
        }
        round.hard = Some(if round.missed_ponder {
            now
        } else {
            now + STOP_GRACE
        });
        if matches!(round.kind, RoundKind::Ponder | RoundKind::Infinite) {
            round.kind = RoundKind::Play;
        }
        self.on_timer();
        self.maybe_finish();
    }

    fn on_ponderhit(&mut self, limits: GoLimits) {
        let Some(round) = &mut self.round else { return };
        if round.kind != RoundKind::Ponder {
            return;
        }
        // ShogiHome's early ponder carries the real clock on `ponderhit`.
        let clock_limits = if limits.has_clock() {
            limits.clone()
        } else {
            round.limits.clone()
        };
        round.kind = RoundKind::Play;
        round.started = Instant::now();
        round.limits = GoLimits {
            ponder: false,
            ..clock_limits.clone()
        };
        let margin = self.options.int("G_Margin") as u64;
        let black = round.game.black_to_move();
        let (soft, hard, member_limits) = timing(&round.limits, black, margin);
        round.soft = soft.map(|d| round.started + d);
        round.hard = hard.map(|d| round.started + d);
        let hit = if limits.has_clock() {
            member_limits.clone()
        } else {
            GoLimits::default()
        };
        let later = std::mem::take(&mut round.ponder_later);
        let (id, command) = (round.id, round.game.command.clone());
        for &i in &round.participants.clone() {
            let slot = &mut self.slots[i];
            if later.contains(&i) {
                // `Engine<N>.Ponder=false`: its search starts now, as a plain `go`.
                let request = Request {
                    round: id,
                    mate: false,
                };
                let limits = limits_for(&slot.spec, &member_limits);
                start_search(slot, &command, &limits, request);
            } else {
                send(slot, &GuiCommand::PonderHit(hit.clone()));
            }
        }
    }

    fn on_go(&mut self, limits: GoLimits) {
        if let Some(old) = self.round.take() {
            warn!(
                round = old.id,
                "go while a round was running; the old round is abandoned"
            );
        }
        self.supervise();
        let id = self.next_round;
        self.next_round += 1;
        let kind = if limits.mate.is_some() {
            RoundKind::Tsume
        } else if limits.ponder {
            RoundKind::Ponder
        } else if limits.infinite {
            RoundKind::Infinite
        } else {
            RoundKind::Play
        };
        let game = self.game.clone();
        let margin = self.options.int("G_Margin") as u64;
        let started = Instant::now();
        let black = game.black_to_move();
        let (soft, hard, member_limits) = match kind {
            RoundKind::Play => timing(&limits, black, margin),
            RoundKind::Ponder => {
                let (_, _, l) = timing(
                    &GoLimits {
                        ponder: false,
                        ..limits.clone()
                    },
                    black,
                    margin,
                );
                (None, None, GoLimits { ponder: true, ..l })
            }
            RoundKind::Infinite => (None, None, limits.clone()),
            RoundKind::Tsume => match limits.mate {
                Some(MateLimit::Time(ms)) => {
                    // From outside: capped like every clock (about 24.8 days).
                    let ms = ms.min(crate::usi::MAX_TIME_MS);
                    let member = ms.saturating_sub(margin).max(ms / 2);
                    let l = GoLimits {
                        mate: Some(MateLimit::Time(member)),
                        ..Default::default()
                    };
                    (
                        Some(Duration::from_millis(member)),
                        Some(Duration::from_millis(
                            ms.saturating_sub(margin / 2).max(member),
                        )),
                        l,
                    )
                }
                _ => (None, None, limits.clone()),
            },
        };
        for slot in &mut self.slots {
            slot.clear_round();
        }
        let mut round = Round {
            id,
            kind,
            game,
            limits: limits.clone(),
            started,
            soft: soft.map(|d| started + d),
            hard: hard.map(|d| started + d),
            participants: Vec::new(),
            answers: HashMap::new(),
            checkmates: HashMap::new(),
            stop_sent: false,
            exchange: None,
            leader: None,
            elsewhere: HashMap::new(),
            missed_ponder: false,
            builtin_mate: None,
            ponder_later: Vec::new(),
        };
        let policy = self.config.policy;
        let normals: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].spec.role == Role::Normal && self.slots[i].usable())
            .collect();
        let mut request = member_limits.clone();
        round.participants = if kind == RoundKind::Tsume {
            let mates: Vec<usize> = (0..self.slots.len())
                .filter(|&i| self.slots[i].spec.role == Role::Mate && self.slots[i].usable())
                .collect();
            if mates.is_empty() {
                // No mate member: the built-in solver works beside the normal members (which
                // may not solve mates at all); the shortest verified line wins.
                round.builtin_mate = self.start_builtin_mate(id, &round.game, soft);
                normals.clone()
            } else {
                mates
            }
        } else {
            match family(policy) {
                Family::All => normals.clone(),
                Family::Exchange => {
                    if kind == RoundKind::Play || kind == RoundKind::Ponder {
                        request = scale_limits(&member_limits, black, 0.45);
                        if let (Some(s), Some(_)) = (soft, hard) {
                            round.soft = Some(started + s.mul_f64(0.45));
                            round.hard = Some(started + s.mul_f64(0.5));
                        }
                    }
                    normals.iter().copied().take(2).collect()
                }
                Family::ChangePlayer => {
                    let rule = rotation_rule(policy, &self.options);
                    let members = self
                        .slots
                        .iter()
                        .filter(|s| s.spec.role == Role::Normal)
                        .count();
                    let want = self
                        .per_game
                        .rotation
                        .player(rule, members, round.game.ply());
                    // The designated player, or the next usable member if it is down.
                    let order: Vec<usize> = (0..self.slots.len())
                        .filter(|&i| self.slots[i].spec.role == Role::Normal)
                        .collect();
                    (0..order.len())
                        .map(|k| order[(want + k) % order.len()])
                        .find(|&i| self.slots[i].usable())
                        .into_iter()
                        .collect()
                }
                Family::Mate => normals.iter().copied().take(1).collect(),
            }
        };
        if self.position_refused.is_some() {
            round.participants.clear();
        } else if round.participants.is_empty() {
            self.say("info string [Error] no member is available; gougi answers by itself");
        }
        for &i in &round.participants {
            let slot = &mut self.slots[i];
            if kind == RoundKind::Ponder && !slot.spec.ponder {
                // A member that cannot ponder (Debian's gpsusi aborts on `go ponder`) waits
                // for `ponderhit`; a ponder miss never reaches it.
                round.ponder_later.push(i);
                continue;
            }
            let position = if kind == RoundKind::Tsume
                && policy == PolicyKind::MateSfen
                && slot.spec.role == Role::Mate
            {
                round.game.sfen_command()
            } else {
                round.game.command.clone()
            };
            start_search(
                slot,
                &position,
                &limits_for(&slot.spec, &request),
                Request {
                    round: id,
                    mate: kind == RoundKind::Tsume,
                },
            );
        }
        round.leader = round.participants.first().copied();
        self.round = Some(round);
        if family(policy) == Family::Mate && kind != RoundKind::Tsume {
            self.start_mate_search();
        }
        self.maybe_finish();
    }

    // ----- member side --------------------------------------------------------------------

    fn slot_index(&self, number: u32) -> Option<usize> {
        self.slots.iter().position(|s| s.spec.number == number)
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
            MemberEvent::Message { message, .. } => self.on_message(i, message),
        }
        self.maybe_finish();
    }

    fn on_exit(&mut self, i: usize, code: Option<i32>) {
        let slot = &mut self.slots[i];
        if slot.state == SlotState::Dead {
            return;
        }
        slot.state = SlotState::Dead;
        slot.handle = None;
        slot.pending.clear();
        slot.awaiting_ready = false;
        slot.ready_since = None;
        slot.stopped_at = None;
        slot.garbage_at = None;
        let code = code.map_or("a signal".to_string(), |c| format!("code {c}"));
        warn!(member = slot.spec.number, name = %slot.name, %code, "member exited");
        let what = schedule_restart(slot);
        let line = format!(
            "info string [Error] E{} ({}) exited with {code}; {what}",
            slot.spec.number, slot.name
        );
        self.say(line);
        self.mates.busy.remove(&i);
        if let Some(round) = &mut self.round {
            round.participants.retain(|&p| p != i);
            if round.leader == Some(i) {
                round.leader = round.participants.first().copied();
            }
        }
        self.try_answer_usi();
        self.try_answer_ready();
    }

    fn on_message(&mut self, i: usize, message: EngineMessage) {
        let state = self.slots[i].state;
        match message {
            EngineMessage::IdName(name) if state == SlotState::Handshaking => {
                if self.slots[i].spec.display_name.is_none() {
                    self.slots[i].name = name;
                }
            }
            EngineMessage::Option(decl) if state == SlotState::Handshaking => {
                self.slots[i].options.push(decl)
            }
            EngineMessage::UsiOk if state == SlotState::Handshaking => self.on_usiok(i),
            EngineMessage::ReadyOk => {
                let slot = &mut self.slots[i];
                if slot.state == SlotState::Readying {
                    slot.state = SlotState::Ready;
                    if self.in_game {
                        send(slot, &GuiCommand::UsiNewGame);
                    }
                    info!(member = slot.spec.number, "restarted member is ready");
                }
                slot.awaiting_ready = false;
                slot.ready_since = None;
                self.try_answer_ready();
            }
            EngineMessage::Info(info) => self.on_info(i, info),
            EngineMessage::BestMove(best) => self.on_bestmove(i, best),
            EngineMessage::Checkmate(cm) => self.on_checkmate(i, cm),
            EngineMessage::Unknown(line) => {
                if line.trim_start().starts_with("bestmove") {
                    // An unparsable bestmove still answers a request: count it, use nothing.
                    self.on_unusable_answer(i, &line);
                } else if !line.trim().is_empty() {
                    debug!(
                        member = self.slots[i].spec.number,
                        line, "ignored member line"
                    );
                }
            }
            other => {
                debug!(member = self.slots[i].spec.number, line = %other, "ignored member line")
            }
        }
    }

    fn on_usiok(&mut self, i: usize) {
        // A restarted member, or one whose `usiok` came after the GUI's `isready`, is made
        // ready by gougi itself before it joins a round.
        let get_ready = self.slots[i].restarts > 0 || self.isready_seen;
        let slot = &mut self.slots[i];
        for o in slot.settings.clone() {
            send(slot, &GuiCommand::SetOption(o));
        }
        if get_ready {
            slot.state = SlotState::Readying;
            slot.ready_since = Some(Instant::now());
            send(slot, &GuiCommand::IsReady);
        } else {
            slot.state = SlotState::Ready;
        }
        self.try_answer_usi();
    }

    fn owes_current(&self, i: usize) -> bool {
        let current = self.round.as_ref().map(|r| r.id);
        self.slots[i]
            .pending
            .front()
            .is_some_and(|r| Some(r.round) == current)
    }

    fn on_info(&mut self, i: usize, mut info: Info) {
        // Members that score from Black's side (gpsusi does) are turned to the side to move
        // here, once, so policies, history, annotated lines and the relay all agree.
        if self.slots[i].spec.black_view_scores {
            let white_to_move = self
                .round
                .as_ref()
                .is_some_and(|r| !r.game_of(i).black_to_move());
            if white_to_move {
                if let Some(s) = &mut info.score {
                    s.score = s.score.negate();
                }
            }
        }
        if !self.owes_current(i) {
            // A late line, or a mate member's progress on its own position. The reference
            // wrapped the mate member's lines as `info string info …`: noise in the GUI's
            // thinking pane, and not about the position it shows. Their results (`checkmate`)
            // are reported when they come.
            debug!(member = self.slots[i].spec.number, line = %info, "info not relayed");
            return;
        }
        let slot = &mut self.slots[i];
        if self.config.policy == PolicyKind::MultipvVote {
            if let (
                Some(InfoScore {
                    bound: crate::usi::Bound::Exact,
                    ..
                }),
                Some(_),
            ) = (&info.score, info.pv_moves().first())
            {
                // Ranks beyond 64 are nobody's candidates; they would only grow the list.
                let k = info.multipv.unwrap_or(1) as usize;
                if (1..=64).contains(&k) {
                    if slot.lines.len() < k {
                        slot.lines.resize(k, None);
                    }
                    slot.lines[k - 1] = Some(info.clone());
                }
            }
        }
        if info.is_main_line() {
            if let Some(InfoScore {
                score,
                bound: crate::usi::Bound::Exact,
            }) = info.score
            {
                slot.last_score = Some(score);
                slot.last_info = Some(info.clone());
            }
            let pv = info.pv_moves();
            if !pv.is_empty() {
                slot.last_pv = pv;
                if self.config.policy == PolicyKind::MatePv && slot.spec.role == Role::Normal {
                    self.queue_pv_mates(i);
                }
            }
        }
        self.relay_info(i, info);
    }

    fn relay_info(&mut self, i: usize, mut info: Info) {
        let mode = self.options.text("G_InfoRelay");
        let Some(round) = &mut self.round else { return };
        // Exchange phase 2 searches after the other member's move: its lines are about another
        // position (the PV is the other side's, the score has the other sign).
        if round.kind == RoundKind::Tsume || round.elsewhere.contains_key(&i) {
            return;
        }
        match mode {
            "none" => {}
            "all" => {
                let text_only = matches!(info.text, Some(InfoText::String(_)))
                    && info.score.is_none()
                    && info.depth.is_none();
                if text_only {
                    // A member's message is not a line of thought: it gets no number.
                    self.say(info.to_string());
                } else if info.is_main_line()
                    && (info.score.is_some() || !info.pv_moves().is_empty())
                {
                    let ordinal =
                        round.participants.iter().position(|&p| p == i).unwrap_or(0) as u32 + 1;
                    info.multipv = Some(ordinal);
                    self.say(info.to_string());
                }
            }
            _ => {
                // The leader is the member the policy would choose if it decided now.
                if round.participants.len() > 1 && family(self.config.policy) == Family::All {
                    if let Some(leader) = self.provisional_leader() {
                        if let Some(r) = &mut self.round {
                            r.leader = Some(leader);
                        }
                    }
                }
                if self.round.as_ref().and_then(|r| r.leader) == Some(i) {
                    self.say(info.to_string());
                }
            }
        }
    }

    /// The policy's choice over the members' current lines (PV head and score).
    fn provisional_leader(&self) -> Option<usize> {
        let round = self.round.as_ref()?;
        let mut order = Vec::new();
        let mut answers = Vec::new();
        for &p in &round.participants {
            let slot = &self.slots[p];
            let mv = match round.answers.get(&p) {
                Some(g) => best_text(&g.best),
                None => slot.last_pv.first()?.to_string(),
            };
            let score = round.answers.get(&p).map_or(slot.last_score, |g| g.score);
            order.push(p);
            answers.push(self.answer_of(p, mv, None, score));
        }
        let decision = self.decide_all(&answers);
        order.get(decision.chosen).copied()
    }

    fn answer_of(
        &self,
        i: usize,
        mv: String,
        ponder: Option<String>,
        score: Option<Score>,
    ) -> Answer {
        let slot = &self.slots[i];
        Answer {
            number: slot.spec.number,
            name: slot.name.clone(),
            mv,
            ponder,
            // Calibrated members' scores are compared on one win-rate scale; the annotated
            // lines still print what the member said.
            score: score
                .as_ref()
                .map(|s| Eval::from_score(s).calibrated(slot.spec.scale)),
            prev: slot
                .prev
                .as_ref()
                .map(|s| Eval::from_score(s).calibrated(slot.spec.scale)),
            weight: slot.spec.weight,
        }
    }

    /// Pop the member's oldest request; true when it was for the current round.
    fn take_request(&mut self, i: usize) -> Option<Request> {
        let req = self.slots[i].pending.pop_front();
        if self.slots[i].pending.is_empty() {
            self.slots[i].stopped_at = None;
        }
        let current = self.round.as_ref().map(|r| r.id);
        match req {
            Some(r) if Some(r.round) == current => Some(r),
            Some(r) => {
                debug!(
                    member = self.slots[i].spec.number,
                    round = r.round,
                    "late answer dropped"
                );
                None
            }
            None => {
                warn!(
                    member = self.slots[i].spec.number,
                    "answer without a request dropped"
                );
                None
            }
        }
    }

    /// An unparsable `bestmove`. Some engines print a broken line just before the real one, so
    /// it is not taken as the member's answer at once: a real `bestmove` within
    /// [`GARBAGE_GRACE`] answers the request instead; otherwise (or at a second broken line)
    /// the broken one was the answer and the member is left out of the round.
    fn on_unusable_answer(&mut self, i: usize, line: &str) {
        let (number, name) = (self.slots[i].spec.number, self.slots[i].name.clone());
        warn!(member = number, raw = line, "discarded unparsable bestmove");
        let for_current = self.owes_current(i);
        if for_current {
            self.say(format!(
                "info string [Error] E{number} ({name}): unparsable \"{}\" discarded",
                line.trim()
            ));
        }
        let slot = &mut self.slots[i];
        if slot.garbage_at.is_none() && !slot.pending.is_empty() {
            slot.garbage_at = Some(Instant::now());
            return;
        }
        self.take_garbage_answer(i);
    }

    /// The broken `bestmove` was member `i`'s answer after all: its request is done.
    fn take_garbage_answer(&mut self, i: usize) {
        self.slots[i].garbage_at = None;
        if self.take_request(i).is_some() {
            if let Some(round) = &mut self.round {
                round.participants.retain(|&p| p != i);
            }
        }
    }

    fn on_bestmove(&mut self, i: usize, best: BestMove) {
        if self.slots[i].spec.role != Role::Normal
            && self
                .round
                .as_ref()
                .is_none_or(|r| r.kind != RoundKind::Tsume)
        {
            // A mate member answering a plain go: take it as its answer to whatever it owed.
            self.slots[i].pending.pop_front();
            return;
        }
        // A real answer after a broken one: this is the answer.
        self.slots[i].garbage_at = None;
        if self.take_request(i).is_none() {
            return;
        }
        let Some(round) = &self.round else { return };
        // Check the move against the rules before it can win (never relay an illegal move).
        let game = round.game_of(i);
        let verdict = match &best {
            BestMove::Move { mv, .. } => game.check(mv),
            BestMove::Win if !game.declaration_is_legal() && game.board.is_some() => {
                Err("declaration (入玉宣言) conditions not met".to_string())
            }
            _ => Ok(()),
        };
        let (number, name) = (self.slots[i].spec.number, self.slots[i].name.clone());
        if let Err(reason) = verdict {
            warn!(member = number, raw = %best, reason = %reason, "discarded bestmove");
            self.say(format!(
                "info string [Error] E{number} ({name}): illegal {best} discarded ({reason})"
            ));
            if let Some(round) = &mut self.round {
                round.participants.retain(|&p| p != i);
            }
            return;
        }
        // Drop a ponder move that is not legal after the move; it would mislead the GUI.
        let best = match best {
            BestMove::Move {
                mv,
                ponder: Some(p),
            } if game.after(&[mv]).check(&p).is_err() => BestMove::Move { mv, ponder: None },
            other => other,
        };
        // It answered: whatever failed before, it works now.
        self.slots[i].failures = 0;
        let slot = &self.slots[i];
        let mut got = Got {
            best,
            score: slot.last_score,
            info: slot.last_info.clone(),
            pv: slot.last_pv.clone(),
            // The first line's move is the `bestmove`, which stands for it.
            lines: slot.lines.iter().skip(1).flatten().cloned().collect(),
        };
        if let Some(reason) = self.unverified_mate_claim(i, &got) {
            warn!(member = number, raw = %got.best, reason = %reason, "mate claim not confirmed; score ignored");
            let claim = got.score.map(|s| score_text(&s)).unwrap_or_default();
            self.say(format!(
                "info string [Warning] E{number} ({name}): {claim} for {} not confirmed by the mate solver ({reason}); its score is ignored",
                best_text(&got.best)
            ));
            got.score = None;
        }
        let Some(round) = &self.round else { return };
        if family(self.config.policy) == Family::All
            && round.kind != RoundKind::Tsume
            && round.elsewhere.is_empty()
        {
            // The reference's per-answer line on arrival.
            let line = self.member_line(i, &got, Verdict::None);
            self.say(line);
        }
        if let Some(round) = &mut self.round {
            round.answers.insert(i, got);
        }
    }

    /// With `G_MateVerifyMs` > 0: when member `i` answers with a winning `score mate`, the
    /// built-in solver checks that its move forces mate within the slice (capped by the round's
    /// deadline). `Some(reason)` when the claim was refuted or could not be confirmed — the
    /// caller then drops the score (see `verify.rs`).
    fn unverified_mate_claim(&mut self, i: usize, got: &Got) -> Option<String> {
        let Some(Score::Mate(m)) = got.score else {
            return None;
        };
        let ms = self.options.int("G_MateVerifyMs");
        let round = self.round.as_ref()?;
        if !m.winning || ms <= 0 || round.kind == RoundKind::Tsume {
            return None;
        }
        let BestMove::Move { mv, .. } = got.best else {
            return None;
        };
        let pos = round.game_of(i).board.clone()?;
        let m = pos.parse_usi_move(&mv.to_string()).ok()?;
        let mut budget = Duration::from_millis(ms as u64);
        if let Some(limit) = round.soft.or(round.hard) {
            budget = budget.min(limit.saturating_duration_since(Instant::now()));
        }
        if budget.is_zero() {
            return Some("no time left to verify".into());
        }
        let table = self
            .verify_table
            .get_or_insert_with(|| MateTable::new(verify::VERIFY_TABLE_MB));
        match verify::verify_mate_claim(&pos, m, budget, table) {
            verify::Claim::Confirmed => {
                debug!(member = self.slots[i].spec.number, mv = %mv, "mate claim confirmed");
                None
            }
            verify::Claim::Refuted(r) | verify::Claim::Unconfirmed(r) => Some(r),
        }
    }

    fn on_checkmate(&mut self, i: usize, cm: Checkmate) {
        // An answer (checked below for what it claims): the member works.
        self.slots[i].failures = 0;
        let role = self.slots[i].spec.role;
        let in_tsume = self
            .round
            .as_ref()
            .is_some_and(|r| r.kind == RoundKind::Tsume);
        if in_tsume {
            if self.take_request(i).is_none() {
                return;
            }
            if let Some(round) = &mut self.round {
                round.checkmates.insert(i, cm);
            }
            return;
        }
        // A mate member's answer for the mate types.
        self.slots[i].pending.pop_front();
        let Some(position) = self.mates.busy.remove(&i) else {
            return;
        };
        if role == Role::Mate {
            self.say(format!("info string {cm}"));
        }
        if let Checkmate::Mate(line) = &cm {
            let game =
                Game::new(position.clone()).unwrap_or_else(|_| Game::unchecked(position.clone()));
            if game.is_mate_line(line) {
                let key = position.to_string();
                let shorter = self
                    .mates
                    .found
                    .get(&key)
                    .is_none_or(|old| line.len() < old.len());
                if shorter {
                    self.mates.found.insert(key, line.clone());
                }
                if role == Role::PvMate {
                    self.mates.succeeded += 1;
                    self.say(format!("info string pvMate : {cm}"));
                    let sfen = game.sfen_command();
                    let count = self.options.int("G_MateInfoCount");
                    self.mates.mateinfo.push((
                        format!("mateinfo {sfen} {cm}"),
                        count,
                        Instant::now(),
                    ));
                } else if position == self.game.command {
                    self.say(format!("info score mate {} pv {}", line.len(), join(line)));
                }
            } else {
                let number = self.slots[i].spec.number;
                warn!(member = number, line = %cm, "mate line failed verification; ignored");
                self.say(format!(
                    "info string [Error] E{number}: {cm} is not a mate; ignored"
                ));
            }
        }
        if role == Role::Mate && position != self.game.command && self.in_game {
            // A stale result: search the current position at once (the reference did too).
            self.start_mate_search();
        }
        self.dispatch_pv_mates();
    }

    // ----- mate members -------------------------------------------------------------------

    /// Start the built-in solver on `game` for round `id`, within `limit` (none: until `stop`).
    /// Its answer comes back through `solver_tx`.
    fn start_builtin_mate(
        &mut self,
        id: u64,
        game: &Game,
        limit: Option<Duration>,
    ) -> Option<BackgroundSolve> {
        let position = game.board.clone()?;
        let tx = self.solver_tx.clone();
        let done = Box::new(move |cm: Checkmate| {
            // The coordinator may be gone (quit): nobody to tell.
            let _ = tx.send((id, cm));
        });
        match BackgroundSolve::spawn(position, limit, BUILTIN_MATE_HASH_MB, done) {
            Ok(solve) => Some(solve),
            Err(e) => {
                warn!(error = %e, "cannot start the built-in mate solver");
                None
            }
        }
    }

    fn on_builtin_mate(&mut self, id: u64, cm: Checkmate) {
        let Some(round) = &mut self.round else { return };
        if round.id != id || round.kind != RoundKind::Tsume {
            return;
        }
        debug!(round = id, answer = %cm, "built-in mate solver answered");
        round.builtin_mate = None;
        round.checkmates.insert(BUILTIN_MATE, cm);
        self.maybe_finish();
    }

    fn start_mate_search(&mut self) {
        let timeout = self.options.int("G_MateTimeout") as u64;
        let sfen = matches!(
            self.config.policy,
            PolicyKind::MateSfen | PolicyKind::MatePv
        );
        for i in 0..self.slots.len() {
            if self.slots[i].spec.role != Role::Mate
                || !self.slots[i].usable()
                || self.mates.busy.contains_key(&i)
            {
                continue;
            }
            let position = if sfen {
                self.game.sfen_command()
            } else {
                self.game.command.clone()
            };
            self.mates.busy.insert(i, self.game.command.clone());
            let slot = &mut self.slots[i];
            send(slot, &GuiCommand::Position(position));
            let limits = GoLimits {
                mate: Some(MateLimit::Time(timeout)),
                ..Default::default()
            };
            send(slot, &GuiCommand::Go(limits));
            slot.pending.push_back(Request {
                round: 0,
                mate: true,
            });
        }
    }

    fn queue_pv_mates(&mut self, i: usize) {
        let Some(round) = &self.round else { return };
        let pv = &self.slots[i].last_pv;
        for len in 1..=pv.len().min(PV_MATE_DEPTH) {
            let command = round.game.after(&pv[..len]).command;
            let key = command.to_string();
            if self.mates.searched_set.contains(&key) {
                continue;
            }
            self.mates.searched_set.insert(key.clone());
            self.mates.searched.push_back(key);
            if self.mates.searched.len() > PV_MATE_MEMORY {
                if let Some(old) = self.mates.searched.pop_front() {
                    self.mates.searched_set.remove(&old);
                }
            }
            self.mates.queue.push_back(command);
        }
        // Newest PV first; keep the queue bounded.
        while self.mates.queue.len() > 64 {
            self.mates.queue.pop_front();
        }
        self.dispatch_pv_mates();
    }

    fn dispatch_pv_mates(&mut self) {
        let timeout = self.options.int("G_PvMateTimeout") as u64;
        for i in 0..self.slots.len() {
            if self.slots[i].spec.role != Role::PvMate
                || !self.slots[i].usable()
                || self.mates.busy.contains_key(&i)
            {
                continue;
            }
            let Some(command) = self.mates.queue.pop_back() else {
                return;
            };
            let game =
                Game::new(command.clone()).unwrap_or_else(|_| Game::unchecked(command.clone()));
            self.mates.busy.insert(i, command);
            self.mates.tried += 1;
            if self.mates.tried % 50 == 0 {
                let (t, s) = (self.mates.tried, self.mates.succeeded);
                self.say(format!(
                    "info string pvMateTriedCount={t}, pvMateSuccessCount={s}"
                ));
            }
            let slot = &mut self.slots[i];
            send(slot, &GuiCommand::Position(game.sfen_command()));
            send(
                slot,
                &GuiCommand::Go(GoLimits {
                    mate: Some(MateLimit::Time(timeout)),
                    ..Default::default()
                }),
            );
            slot.pending.push_back(Request {
                round: 0,
                mate: true,
            });
        }
    }

    fn send_mateinfo(&mut self) {
        let now = Instant::now();
        let interval = Duration::from_millis(self.options.int("G_MateInfoInterval") as u64);
        let Some(normal) = (0..self.slots.len())
            .find(|&i| self.slots[i].spec.role == Role::Normal && self.slots[i].usable())
        else {
            return;
        };
        let mut due = Vec::new();
        for (text, left, next) in &mut self.mates.mateinfo {
            if *next <= now && *left > 0 {
                due.push(text.clone());
                *left -= 1;
                *next = now + interval;
            }
        }
        self.mates.mateinfo.retain(|(_, left, _)| *left > 0);
        for text in due {
            send_line(&mut self.slots[normal], &text);
        }
    }

    // ----- timers -------------------------------------------------------------------------

    fn next_timer(&self) -> Option<Instant> {
        let mut t: Vec<Instant> = Vec::new();
        if self.usi_pending {
            t.push(self.started_at + USI_WAIT);
        }
        for s in &self.slots {
            match s.state {
                SlotState::Handshaking => t.push(s.handshake_deadline),
                SlotState::Dead => t.extend(s.restart_at),
                SlotState::Ready | SlotState::Readying => {}
            }
            t.extend(s.ready_since.map(|r| r + READY_LIMIT));
            t.extend(s.stopped_at.map(|r| r + HUNG_AFTER));
            t.extend(s.garbage_at.map(|g| g + GARBAGE_GRACE));
        }
        t.extend(self.ready_pending);
        t.extend(self.next_keepalive);
        if let Some(r) = &self.round {
            if !r.stop_sent {
                t.extend(r.soft);
            }
            t.extend(r.hard);
        }
        t.extend(self.mates.mateinfo.iter().map(|m| m.2));
        t.into_iter().min()
    }

    fn on_timer(&mut self) {
        let now = Instant::now();
        self.supervise();
        for i in 0..self.slots.len() {
            if self.slots[i]
                .garbage_at
                .is_some_and(|g| now >= g + GARBAGE_GRACE)
            {
                self.take_garbage_answer(i);
            }
        }
        self.try_answer_usi();
        if self.next_keepalive.is_some_and(|k| k <= now) {
            self.say("");
            self.next_keepalive = Some(now + KEEPALIVE);
        }
        self.try_answer_ready();
        if !self.mates.mateinfo.is_empty() {
            self.send_mateinfo();
        }
        let Some(round) = &mut self.round else { return };
        if !round.stop_sent && round.soft.is_some_and(|s| s <= now) {
            round.stop_sent = true;
            let owing: Vec<usize> = round
                .participants
                .iter()
                .copied()
                .filter(|p| !round.answers.contains_key(p))
                .collect();
            for i in owing {
                let slot = &mut self.slots[i];
                send(slot, &GuiCommand::Stop);
                slot.stopped_at.get_or_insert(now);
            }
        }
        self.maybe_finish();
    }

    // ----- deciding -----------------------------------------------------------------------

    fn maybe_finish(&mut self) {
        let Some(round) = &self.round else { return };
        let all_in = round.participants.iter().all(|p| match round.kind {
            RoundKind::Tsume => round.checkmates.contains_key(p),
            _ => round.answers.contains_key(p),
        }) && round.builtin_mate.is_none();
        let hard_passed = round.hard.is_some_and(|h| h <= Instant::now());
        // A verified mate line ends a tsume round at once, and so does the built-in solver's
        // disproof (no member can mate where df-pn proved there is no mate).
        let tsume_mate = round.kind == RoundKind::Tsume
            && round.checkmates.iter().any(|(&k, c)| match c {
                Checkmate::Mate(l) => round.game.is_mate_line(l),
                Checkmate::NoMate => k == BUILTIN_MATE,
                _ => false,
            });
        let waiting_by_kind = matches!(round.kind, RoundKind::Ponder | RoundKind::Infinite);
        if waiting_by_kind && !hard_passed {
            return; // analysis and ponder end only with stop (or ponderhit)
        }
        if !(all_in || hard_passed || tsume_mate || self.settled_early()) {
            return;
        }
        let round = self.round.take().expect("checked above");
        if round.kind == RoundKind::Tsume {
            self.finish_tsume(round);
            return;
        }
        match family(self.config.policy) {
            Family::Exchange
                if round.exchange.is_none()
                    && round.participants.len() == 2
                    && round.answers.len() == 2 =>
            {
                self.exchange_phase1(round)
            }
            Family::Exchange if round.exchange.is_some() => self.exchange_phase2(round),
            Family::Mate => self.finish_mate(round),
            _ => self.finish_all(round),
        }
    }

    /// Whether an all-members round can be decided before every member answered: for
    /// `majority` and `multipv-vote` when the leading move can no longer be caught (exact: the
    /// result is the one waiting would give), and for every type when answers holding
    /// `G_EarlyAgreement` percent of the members' weight agree on one move. The members still thinking are then stopped,
    /// which banks their time in sudden death and Fischer games.
    fn settled_early(&self) -> bool {
        let Some(round) = &self.round else {
            return false;
        };
        if round.kind != RoundKind::Play
            || family(self.config.policy) != Family::All
            || round.answers.is_empty()
        {
            return false;
        }
        let weight = |i: &usize| self.slots[*i].spec.weight;
        let total: f64 = round.participants.iter().map(weight).sum();
        let waiting: f64 = round
            .participants
            .iter()
            .filter(|p| !round.answers.contains_key(p))
            .map(weight)
            .sum();
        let mut by_move: Vec<(String, f64)> = Vec::new();
        for (i, got) in &round.answers {
            let mv = best_text(&got.best);
            match by_move.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, w)) => *w += weight(i),
                None => by_move.push((mv, weight(i))),
            }
        }
        by_move.sort_by(|a, b| b.1.total_cmp(&a.1));
        if by_move[0].0 == "resign" {
            // A resignation needs every answer: one still coming may play (G_Resign).
            return false;
        }
        let top = by_move[0].1;
        let second = by_move.get(1).map_or(0.0, |m| m.1);
        if self.config.policy == PolicyKind::Majority && top > second + waiting + 1e-9 {
            return true;
        }
        if self.config.policy == PolicyKind::MultipvVote {
            // Exact too: the members still thinking can give any one move at most their weight
            // times a ballot's maximum, so a lead larger than that is final.
            let (slots, answers) = self.collect(round);
            let (ballots, _) = self.ballots(round, &slots, &answers);
            if let Some((w, scoring)) = self.vote_tally(&ballots) {
                if w.points - w.runner_up > waiting * scoring.max_points() + 1e-9 {
                    return true;
                }
            }
        }
        let share = self.options.int("G_EarlyAgreement") as f64 / 100.0;
        share > 0.0 && top + 1e-9 >= share * total
    }

    fn decide_all(&self, answers: &[Answer]) -> Decision {
        match self.config.policy {
            PolicyKind::Majority => vote::majority(answers),
            PolicyKind::Optimistic => optimism::by_score(answers, optimism::Extreme::Highest),
            PolicyKind::Pessimistic => optimism::by_score(answers, optimism::Extreme::Lowest),
            PolicyKind::Alternate => {
                optimism::by_score(answers, self.per_game.alternation.current())
            }
            PolicyKind::RiseOptimistic => optimism::by_rise(answers, optimism::Extreme::Highest),
            PolicyKind::RisePessimistic => optimism::by_rise(answers, optimism::Extreme::Lowest),
            PolicyKind::WeightedOptimistic => optimism::by_weighted_score(answers),
            // The vote itself needs the candidate lists (`finish_all`); over `bestmove`s alone
            // (the provisional leader, `G_Resign=all`) it is a weighted plurality.
            PolicyKind::MultipvVote => vote::majority(answers),
            // Other families decide elsewhere; over several answers they fall back to optimism.
            _ => optimism::by_score(answers, optimism::Extreme::Highest),
        }
    }

    /// Answers of a round in member order, with their slots.
    fn collect(&self, round: &Round) -> (Vec<usize>, Vec<Answer>) {
        let mut slots: Vec<usize> = round.answers.keys().copied().collect();
        slots.sort_by_key(|&i| self.slots[i].spec.number);
        let answers = slots
            .iter()
            .map(|&i| self.answer_from_got(i, &round.answers[&i]))
            .collect();
        (slots, answers)
    }

    fn answer_from_got(&self, i: usize, g: &Got) -> Answer {
        self.answer_of(
            i,
            best_text(&g.best),
            g.best.ponder().map(|p| p.to_string()),
            g.score,
        )
    }

    fn finish_all(&mut self, round: Round) {
        let (slots, answers) = self.collect(&round);
        if answers.is_empty() {
            self.fallback(&round);
            return;
        }
        let (chosen, voted, vote_line) = match self.multipv_vote(&round, &slots, &answers) {
            Some((chosen, got, reason)) => (chosen, got, Some(format!("[vote] {reason}"))),
            None => {
                let (k, why) = self.choose(&answers, |c| c.decide_all(&answers));
                (k, None, why)
            }
        };
        let winner = slots[chosen];
        let chosen_mv = voted
            .as_ref()
            .map_or_else(|| answers[chosen].mv.clone(), |g| best_text(&g.best));
        info!(round = round.id, member = self.slots[winner].spec.number, mv = %chosen_mv, "decided");
        // [O]/[X] lines, last member first, as the reference printed them.
        for k in (0..slots.len()).rev() {
            let verdict = Verdict::of(answers[k].mv == chosen_mv);
            let line = self.member_line(slots[k], &round.answers[&slots[k]], verdict);
            self.say(line);
        }
        if let Some(reason) = vote_line {
            // The vote's tally (its winner may be no member's first choice), or why a
            // resignation was overruled.
            match reason.strip_prefix("[vote] ") {
                Some(tally) => self.say(format!("info string [vote] {chosen_mv}: {tally}")),
                None => self.say(format!("info string {reason}")),
            }
        }
        for &i in &slots {
            self.slots[i].prev = round.answers[&i].score;
        }
        if self.config.policy == PolicyKind::Alternate {
            self.per_game.alternation.advance();
        }
        if family(self.config.policy) == Family::ChangePlayer {
            let rule = rotation_rule(self.config.policy, &self.options);
            let members = self
                .slots
                .iter()
                .filter(|s| s.spec.role == Role::Normal)
                .count();
            if self
                .per_game
                .rotation
                .after_move(rule, members, &answers[chosen])
            {
                // The new player starts without a score history.
                for s in &mut self.slots {
                    s.prev = None;
                }
            }
        }
        let got = match voted {
            Some(g) => g,
            None => self.overrule_resign(winner, &round, round.answers[&winner].clone()),
        };
        self.emit_decision(&round, &got);
    }

    /// `multipv-vote`: the vote over the members' candidate lists. Returns the answer index of
    /// the member that placed the winner highest and, when the winner is not that member's
    /// `bestmove` but one of its other lines, the answer to play, made from that line (its PV,
    /// score and ponder move), with the tally for the GUI. `None` for other types, for a
    /// declaration (which `choose` plays) and when every member resigned.
    fn multipv_vote(
        &self,
        round: &Round,
        slots: &[usize],
        answers: &[Answer],
    ) -> Option<(usize, Option<Got>, String)> {
        if answers.iter().any(|a| a.mv == "win") {
            return None;
        }
        let (ballots, sources) = self.ballots(round, slots, answers);
        let (winner, _) = self.vote_tally(&ballots)?;
        info!(round = round.id, reason = %winner.reason, "multipv vote");
        let Some(line) = sources[winner.ballot][winner.rank] else {
            return Some((winner.ballot, None, winner.reason));
        };
        let pv = line.pv_moves();
        let mv = pv[0];
        let game = round.game_of(slots[winner.ballot]);
        let ponder = pv
            .get(1)
            .copied()
            .filter(|p| game.after(&[mv]).check(p).is_ok());
        let got = Got {
            best: BestMove::Move { mv, ponder },
            score: line.score.map(|s| s.score),
            info: Some(line.clone()),
            pv,
            lines: Vec::new(),
        };
        Some((winner.ballot, Some(got), winner.reason))
    }

    /// The `multipv-vote` tally of `ballots` with the scoring in force (`None` for other types
    /// or when no ballot has a candidate).
    fn vote_tally(&self, ballots: &[vote::Ballot]) -> Option<(vote::VoteWinner, vote::Scoring)> {
        if self.config.policy != PolicyKind::MultipvVote {
            return None;
        }
        let scoring = match self.options.text("G_VoteScoring") {
            "borda" => vote::Scoring::Borda {
                k: self.options.int("G_MultiPV").max(1) as usize,
            },
            _ => vote::Scoring::WinRate,
        };
        Some((vote::multipv_vote(ballots, scoring)?, scoring))
    }

    /// Every member's ballot: its `bestmove` (unless it resigned), then the heads of its other
    /// MultiPV lines that are legal here, with calibrated scores; beside it, the info line
    /// behind each candidate (`None` for the `bestmove` itself).
    #[allow(clippy::type_complexity)]
    fn ballots<'r>(
        &self,
        round: &'r Round,
        slots: &[usize],
        answers: &[Answer],
    ) -> (Vec<vote::Ballot>, Vec<Vec<Option<&'r Info>>>) {
        let mut ballots = Vec::with_capacity(slots.len());
        let mut sources = Vec::with_capacity(slots.len());
        for (k, &i) in slots.iter().enumerate() {
            let a = &answers[k];
            let mut ballot = vote::Ballot {
                weight: a.weight,
                candidates: Vec::new(),
            };
            let mut from = Vec::new();
            if !a.is_resign() {
                ballot.candidates.push((a.mv.clone(), a.score));
                from.push(None);
                let game = round.game_of(i);
                for line in &round.answers[&i].lines {
                    let (Some(mv), Some(s)) = (line.pv_moves().first().copied(), &line.score)
                    else {
                        continue;
                    };
                    // Lines are for this position, but a member's PV is not checked elsewhere.
                    if game.check(&mv).is_err() {
                        continue;
                    }
                    let score = Eval::from_score(&s.score).calibrated(self.slots[i].spec.scale);
                    ballot.candidates.push((mv.to_string(), Some(score)));
                    from.push(Some(line));
                }
            }
            ballots.push(ballot);
            sources.push(from);
        }
        (ballots, sources)
    }

    fn resign_rule(&self) -> ResignRule {
        ResignRule::from_option(self.options.text("G_Resign"))
    }

    /// Apply declarations and `G_Resign` around a policy's choice: the index of the answer to
    /// play and, when a resignation was overruled, the reason for the GUI.
    fn choose(
        &self,
        answers: &[Answer],
        decide: impl Fn(&Self) -> Decision,
    ) -> (usize, Option<String>) {
        // A legal declaration wins the game at once, whoever made it.
        if let Some(k) = answers.iter().position(|a| a.mv == "win") {
            return (k, None);
        }
        let chosen = decide(self).chosen;
        if !answers[chosen].is_resign() {
            return (chosen, None);
        }
        let rule = self.resign_rule();
        let playable = resign::playable(answers, rule);
        if playable.is_empty() {
            return (chosen, None);
        }
        // The same policy, over the answers that play.
        let sub: Vec<Answer> = playable.iter().map(|&k| answers[k].clone()).collect();
        let k = playable[self.decide_all(&sub).chosen];
        let (who, mv) = (&answers[chosen], &answers[k]);
        let why = match rule {
            ResignRule::Chosen => "a legal move whose score is not lost is on the table",
            ResignRule::All => "not every member resigned (G_Resign=all)",
        };
        let reason = format!(
            "[resign] E{} ({}) resigned; E{}'s {} is played: {why}",
            who.number, who.name, mv.number, mv.mv
        );
        (k, Some(reason))
    }

    /// A resignation whose member's own last line plays a legal move with a score that is not
    /// lost: that move is played instead (`G_Resign=chosen`; under `all` the member's
    /// resignation counts as its vote). Anything else is returned as it is.
    fn overrule_resign(&mut self, i: usize, round: &Round, got: Got) -> Got {
        if got.best != BestMove::Resign || self.resign_rule() == ResignRule::All {
            return got;
        }
        let game = round.game_of(i);
        let Some(&mv) = got.pv.first().filter(|m| game.check(m).is_ok()) else {
            return got;
        };
        let score = got.score.as_ref().map(Eval::from_score);
        if resign::is_lost(score) {
            return got;
        }
        let ponder = got
            .pv
            .get(1)
            .copied()
            .filter(|p| game.after(&[mv]).check(p).is_ok());
        let slot = &self.slots[i];
        let said = got.score.map_or("no score".to_string(), |s| {
            format!("score {}", score_text(&s))
        });
        let line = format!(
            "info string [resign] E{} ({}) resigned; its own line's {mv} is played: a legal move whose score is not lost ({said}) is on the table",
            slot.spec.number, slot.name
        );
        self.say(line);
        Got {
            best: BestMove::Move { mv, ponder },
            ..got
        }
    }

    fn emit_decision(&mut self, round: &Round, got: &Got) {
        self.say(final_info(round, got, &self.slots));
        self.say(got.best.to_string());
        self.after_decision();
    }

    fn after_decision(&mut self) {
        self.stop_all_searching();
        for s in &mut self.slots {
            s.clear_round();
        }
    }

    fn fallback(&mut self, round: &Round) {
        // The leader's current line is the best we know; else any legal move; else resign.
        let from_pv = round
            .leader
            .and_then(|l| self.slots[l].last_pv.first().copied())
            .filter(|m| round.game.check(m).is_ok());
        let best = match from_pv.or_else(|| round.game.fallback()) {
            Some(mv) => BestMove::Move { mv, ponder: None },
            None => BestMove::Resign,
        };
        if round.game.board.is_none() {
            // Not an answer to the GUI's position: there is none gougi could check.
            warn!(
                round = round.id,
                "go for a refused position answered with resign"
            );
            let why = self.position_refused.clone().unwrap_or_default();
            self.say(format!(
                "info string [Error] position refused ({why}): no move can be checked, gougi resigns"
            ));
            let got = Got {
                best: BestMove::Resign,
                score: None,
                info: None,
                pv: Vec::new(),
                lines: Vec::new(),
            };
            self.emit_decision(round, &got);
            return;
        }
        if round.missed_ponder {
            // The GUI discards this bestmove (it stopped a ponder on the wrong move).
            debug!(round = round.id, %best, "ponder stopped before any answer");
        } else {
            warn!(round = round.id, %best, "no member answered; fallback move");
            self.say(format!(
                "info string [Error] no member answered in time; gougi plays {best}"
            ));
        }
        let got = Got {
            best,
            score: None,
            info: None,
            pv: Vec::new(),
            lines: Vec::new(),
        };
        self.emit_decision(round, &got);
    }

    fn exchange_phase1(&mut self, mut round: Round) {
        let (slots, answers) = self.collect(&round);
        let pair: [Answer; 2] = [answers[0].clone(), answers[1].clone()];
        let phase2_possible =
            round.kind == RoundKind::Play && round.soft.is_some() && !round.stop_sent;
        let decision = match exchange::phase1(&pair) {
            Phase1::Decided(d) => Some(d),
            Phase1::Exchange if pair.iter().any(|a| a.mv == "win") => Some(Decision {
                chosen: self
                    .choose(&pair, |_| Decision {
                        chosen: 0,
                        reason: String::new(),
                    })
                    .0,
                reason: "declaration".into(),
            }),
            Phase1::Exchange if !phase2_possible => {
                Some(optimism::by_score(&pair, optimism::Extreme::Highest))
            }
            Phase1::Exchange => None,
        };
        if let Some(d) = decision {
            for k in (0..2).rev() {
                let line = self.member_line(
                    slots[k],
                    &round.answers[&slots[k]],
                    Verdict::of(pair[k].mv == pair[d.chosen].mv),
                );
                self.say(line);
            }
            let got = round.answers[&slots[d.chosen]].clone();
            self.emit_decision(&round, &got);
            return;
        }
        // Phase 2: each member searches after the other's move, in the time left.
        let now = Instant::now();
        let left = round
            .hard
            .map_or(Duration::ZERO, |h| h.saturating_duration_since(now));
        let margin = Duration::from_millis(self.options.int("G_Margin") as u64);
        let budget = left.saturating_sub(margin / 2).mul_f64(0.9);
        let mv = |k: usize| {
            round.answers[&slots[k]]
                .best
                .mv()
                .expect("phase 1 moves are moves")
        };
        let limits = GoLimits {
            btime: Some(0),
            wtime: Some(0),
            byoyomi: Some(budget.as_millis() as u64),
            ..Default::default()
        };
        let moves = [mv(0), mv(1)];
        round.exchange = Some(ExchangeState {
            first: pair,
            first_got: [
                round.answers[&slots[0]].clone(),
                round.answers[&slots[1]].clone(),
            ],
        });
        round.answers.clear();
        round.soft = Some(now + budget);
        round.hard = Some(now + left.saturating_sub(margin / 4));
        round.stop_sent = false;
        for k in 0..2 {
            let after = round.game.after(&[moves[1 - k]]);
            let member_limits = limits_for(&self.slots[slots[k]].spec, &limits);
            start_search(
                &mut self.slots[slots[k]],
                &after.command,
                &member_limits,
                Request {
                    round: round.id,
                    mate: false,
                },
            );
            self.slots[slots[k]].clear_round();
            round.elsewhere.insert(slots[k], after);
        }
        self.round = Some(round);
    }

    fn exchange_phase2(&mut self, round: Round) {
        let ex = round.exchange.clone().expect("phase 2");
        let order: Vec<usize> = {
            let mut v: Vec<usize> = round.participants.clone();
            v.sort_by_key(|&i| self.slots[i].spec.number);
            v
        };
        // On the calibrated scale, as the phase-1 scores in `ex.first` are: the views add one
        // member's score to the other's.
        let reply = |k: usize| -> Option<i64> {
            let i = *order.get(k)?;
            let s = round.answers.get(&i)?.score?;
            let eval = Eval::from_score(&s).calibrated(self.slots[i].spec.scale);
            Some(i64::from(eval.0))
        };
        let views = exchange::views(&ex.first, reply(0), reply(1));
        let d = exchange::phase2(&views);
        for k in [1usize, 0] {
            let mv = ex.first_got[k].best.mv().expect("phase 1 moves are moves");
            let ja = round.game.japanese(&[mv]).join(" ");
            self.say(annotate::exchange_line(
                Verdict::of(k == d.chosen),
                mv.as_str(),
                &ja,
                views[k].average(),
                [views[k].by1, views[k].by2],
            ));
        }
        for (k, &i) in order.iter().enumerate() {
            self.slots[i].prev = ex.first_got[k].score;
        }
        let got = ex.first_got[d.chosen].clone();
        self.emit_decision(&round, &got);
    }

    fn finish_mate(&mut self, round: Round) {
        if self.config.policy == PolicyKind::MatePv {
            let (t, s) = (self.mates.tried, self.mates.succeeded);
            self.say(format!(
                "info string pvMateTriedCount={t}, pvMateSuccessCount={s}"
            ));
        }
        let (slots, answers) = self.collect(&round);
        let key = round.game.command.to_string();
        let mate = self.mates.found.get(&key).cloned();
        let choice = mate_policy::choose(
            &mate
                .iter()
                .map(|l| l.iter().map(|m| m.to_string()).collect())
                .collect::<Vec<_>>(),
        );
        let mate_name = self
            .slots
            .iter()
            .find(|s| s.spec.role == Role::Mate)
            .map_or("mate".to_string(), |s| s.name.clone());
        match (choice, mate) {
            (MateChoice::Mate(_), Some(line)) => {
                let first = line[0];
                self.say(format!("info score mate {} pv {}", line.len(), join(&line)));
                if let (Some(&i), Some(a)) = (slots.first(), answers.first()) {
                    let verdict = Verdict::of(a.mv == first.as_str());
                    let l = self.member_line(i, &round.answers[&i], verdict);
                    self.say(l);
                }
                let ja = round.game.japanese(&line);
                self.say(annotate::mate_line(Verdict::Chosen, Some(&ja), &mate_name));
                self.say(format!("bestmove {first}"));
                if let Some(&i) = slots.first() {
                    self.slots[i].prev = round.answers[&i].score;
                }
                self.after_decision();
            }
            _ => {
                if answers.is_empty() {
                    self.fallback(&round);
                    return;
                }
                let i = slots[0];
                self.say(annotate::mate_line(Verdict::NotChosen, None, &mate_name));
                let l = self.member_line(i, &round.answers[&i], Verdict::Chosen);
                self.say(l);
                self.slots[i].prev = round.answers[&i].score;
                let got = self.overrule_resign(i, &round, round.answers[&i].clone());
                self.emit_decision(&round, &got);
            }
        }
    }

    fn finish_tsume(&mut self, round: Round) {
        let mut best: Option<Vec<UsiMove>> = None;
        let mut any_nomate = false;
        for cm in round.checkmates.values() {
            match cm {
                Checkmate::Mate(line) if round.game.is_mate_line(line) => {
                    best = match best {
                        Some(b) if b.len() <= line.len() => Some(b),
                        _ => Some(line.clone()),
                    };
                }
                Checkmate::Mate(line) if !line.is_empty() => {
                    self.say(format!("info string [Error] {cm} is not a mate; ignored"));
                }
                Checkmate::NoMate => any_nomate = true,
                _ => {}
            }
        }
        let answer = match best {
            Some(line) => Checkmate::Mate(line),
            None if any_nomate => Checkmate::NoMate,
            None if round.game.board.is_some() && !round.game.has_check() => Checkmate::NoMate,
            None => Checkmate::Timeout,
        };
        self.say(answer.to_string());
        self.after_decision();
    }

    // ----- helpers ------------------------------------------------------------------------

    fn member_line(&self, i: usize, got: &Got, verdict: Verdict) -> String {
        let slot = &self.slots[i];
        let game = self.round.as_ref().map_or(&self.game, |r| &r.game);
        let mut moves = Vec::new();
        if let Some(m) = got.best.mv() {
            moves.push(m);
            moves.extend(got.best.ponder());
        }
        let ja = match got.best {
            BestMove::Resign => "投了".to_string(),
            BestMove::Win => "入玉宣言".to_string(),
            _ => game.japanese(&moves).join(" "),
        };
        let score = got.score.map_or(String::new(), |s| score_text(&s));
        let history = History {
            prev: slot.prev.map_or(String::new(), |s| score_text(&s)),
            delta: match (got.score, slot.prev) {
                (Some(s), Some(p)) => {
                    Some(i64::from(Eval::from_score(&s).0) - i64::from(Eval::from_score(&p).0))
                }
                _ => None,
            },
        };
        let bestmove = got.best.to_string();
        MemberLine {
            verdict,
            bestmove: &bestmove,
            ja: &ja,
            score: &score,
            history: Some(history),
            name: &slot.name,
        }
        .render()
    }

    fn broadcast(&mut self, cmd: &GuiCommand) {
        for slot in &mut self.slots {
            if matches!(slot.state, SlotState::Ready | SlotState::Readying) {
                send(slot, cmd);
            }
        }
    }

    /// Stop every member that still owes an answer, so none keeps searching a stale position.
    fn stop_all_searching(&mut self) {
        let now = Instant::now();
        for slot in &mut self.slots {
            if !slot.pending.is_empty() && slot.stopped_at.is_none() && slot.usable() {
                send(slot, &GuiCommand::Stop);
                slot.stopped_at = Some(now);
            }
        }
        self.mates
            .busy
            .retain(|&i, _| !self.slots[i].pending.is_empty());
    }

    /// Members' health, on every timer and `go`: kill what hangs — no answer [`HUNG_AFTER`]
    /// after `stop`, no `usiok` by [`HANDSHAKE_LIMIT`], no `readyok` by [`READY_LIMIT`] — and
    /// start the dead whose back-off has passed.
    fn supervise(&mut self) {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            let slot = &mut self.slots[i];
            let alive = slot.state != SlotState::Dead;
            let why = if !alive {
                None
            } else if slot.state == SlotState::Handshaking && now >= slot.handshake_deadline {
                Some("did not answer usi")
            } else if slot.ready_since.is_some_and(|r| now >= r + READY_LIMIT) {
                Some("did not answer isready")
            } else if slot.stopped_at.is_some_and(|t| now >= t + HUNG_AFTER) {
                Some("does not answer after stop")
            } else {
                None
            };
            let Some(why) = why else { continue };
            warn!(member = slot.spec.number, why, "member hangs; killing it");
            kill(slot);
            slot.pending.clear();
            slot.stopped_at = None;
            slot.awaiting_ready = false;
            slot.ready_since = None;
            slot.garbage_at = None;
            let what = schedule_restart(slot);
            self.buffer.push(format!(
                "info string [Error] E{} ({}) hangs ({why}); killed, {what}",
                slot.spec.number, slot.name
            ));
            self.mates.busy.remove(&i);
            if let Some(round) = &mut self.round {
                round.participants.retain(|&p| p != i);
                if round.leader == Some(i) {
                    round.leader = round.participants.first().copied();
                }
            }
        }
        self.restart_dead();
        self.try_answer_usi();
        self.try_answer_ready();
    }

    /// Start every dead member whose back-off has passed.
    fn restart_dead(&mut self) {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            let slot = &mut self.slots[i];
            if slot.state != SlotState::Dead || slot.restart_at.is_none_or(|t| t > now) {
                continue;
            }
            slot.restart_at = None;
            slot.restarts += 1;
            slot.options.clear();
            slot.handshake_deadline = now + HANDSHAKE_LIMIT;
            info!(
                member = slot.spec.number,
                attempt = slot.restarts,
                failures = slot.failures,
                "restarting member"
            );
            if let Err(e) = launch(slot, &self.events_tx, &mut self.launcher) {
                let what = schedule_restart(slot);
                self.buffer.push(format!(
                    "info string [Error] E{} restart failed: {e}; {what}",
                    slot.spec.number
                ));
            }
        }
    }
}

/// Count a failure of a member that just died or was killed and decide when it starts again:
/// at once after a first failure, then after a back-off that doubles, and not before the next
/// game after [`MAX_FAILURES`] in a row. Returns what happens, for the GUI's report.
fn schedule_restart(slot: &mut Slot) -> String {
    slot.failures = slot.failures.saturating_add(1);
    if slot.failures >= MAX_FAILURES {
        slot.restart_at = None;
        return format!(
            "{} failures in a row: left out until the next game",
            slot.failures
        );
    }
    // 0, 1 s, 2 s, 4 s … for the first, second, third, fourth failure in a row.
    let wait = match slot.failures {
        0 | 1 => Duration::ZERO,
        n => Duration::from_secs(1u64 << (n - 2).min(16)).min(BACKOFF_CAP),
    };
    slot.restart_at = Some(Instant::now() + wait);
    if wait.is_zero() {
        "restarting it".to_string()
    } else {
        format!("restarting it in {} s", wait.as_secs())
    }
}

/// The consultation families: which round shape a type uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    All,
    Exchange,
    ChangePlayer,
    Mate,
}

/// The rotation rule of a change-player type, from the current `G_` options.
fn rotation_rule(policy: PolicyKind, o: &Values) -> change_player::Rule {
    use change_player::Rule;
    match policy {
        PolicyKind::ByPhase => Rule::ByPhase {
            middle_from: o.int("G_ChuubanStartPlys") as u32,
            end_from: o.int("G_ShuubanStartPlys") as u32,
        },
        PolicyKind::ChangeOnDrop => Rule::OnDrop {
            diff: o.int("G_ChangePlayerScoreDiff"),
        },
        PolicyKind::ChangeOnRise => Rule::OnRise {
            diff: o.int("G_ChangePlayerScoreDiff"),
        },
        _ => Rule::Every {
            plys: o.int("G_ChangePlayerPlys") as u32,
        },
    }
}

fn family(policy: PolicyKind) -> Family {
    match policy {
        PolicyKind::Majority
        | PolicyKind::Optimistic
        | PolicyKind::Pessimistic
        | PolicyKind::Alternate
        | PolicyKind::RiseOptimistic
        | PolicyKind::RisePessimistic
        | PolicyKind::WeightedOptimistic
        | PolicyKind::MultipvVote => Family::All,
        PolicyKind::Exchange => Family::Exchange,
        PolicyKind::ChangeEvery
        | PolicyKind::ByPhase
        | PolicyKind::ChangeOnDrop
        | PolicyKind::ChangeOnRise => Family::ChangePlayer,
        PolicyKind::Mate | PolicyKind::MateSfen | PolicyKind::MatePv => Family::Mate,
    }
}

fn launch(
    slot: &mut Slot,
    events: &mpsc::UnboundedSender<MemberEvent>,
    launcher: &mut Launcher,
) -> Result<(), crate::member::MemberError> {
    slot.pending.clear();
    slot.stopped_at = None;
    match launcher(&slot.spec, events.clone()) {
        Ok(h) => {
            let _ = h.send(&GuiCommand::Usi);
            slot.handle = Some(h);
            slot.state = SlotState::Handshaking;
            Ok(())
        }
        Err(e) => {
            slot.state = SlotState::Dead;
            Err(e)
        }
    }
}

fn kill(slot: &mut Slot) {
    if let Some(h) = slot.handle.take() {
        h.kill();
    }
    slot.state = SlotState::Dead;
}

fn send(slot: &mut Slot, cmd: &GuiCommand) {
    if let Some(h) = &slot.handle {
        if let Err(e) = h.send(cmd) {
            debug!(member = slot.spec.number, error = %e, "send failed");
        }
    }
}

fn send_line(slot: &mut Slot, line: &str) {
    if let Some(h) = &slot.handle {
        let _ = h.send_line(line);
    }
}

/// Send `position` + `go`, stopping first if the member still owes an earlier answer.
fn start_search(slot: &mut Slot, position: &PositionCommand, limits: &GoLimits, request: Request) {
    if slot.garbage_at.take().is_some() {
        // Its broken `bestmove` answered the request it owed.
        slot.pending.pop_front();
    }
    if !slot.pending.is_empty() && slot.stopped_at.is_none() {
        send(slot, &GuiCommand::Stop);
        slot.stopped_at = Some(Instant::now());
    }
    send(slot, &GuiCommand::Position(position.clone()));
    send(slot, &GuiCommand::Go(limits.clone()));
    slot.pending.push_back(request);
}

/// The `go` limits one member gets, after its `Engine<N>.Nodes` rule.
fn limits_for(spec: &MemberSpec, limits: &GoLimits) -> GoLimits {
    if limits.mate.is_some() {
        return limits.clone();
    }
    match spec.nodes {
        NodesRule::Gui => limits.clone(),
        NodesRule::Fixed(n) => GoLimits {
            nodes: Some(n),
            ..limits.clone()
        },
        NodesRule::Off => {
            let mut l = GoLimits {
                nodes: None,
                ..limits.clone()
            };
            let open_ended =
                !l.has_clock() && l.movetime.is_none() && !l.infinite && l.depth.is_none();
            if limits.nodes.is_some() && open_ended {
                // It cannot take `nodes` and must not search forever: one second, which its
                // own limits (gpsusi's --node-count-hard-limit) normally end sooner.
                l.btime = Some(0);
                l.wtime = Some(0);
                l.byoyomi = Some(1000);
            }
            l
        }
    }
}

/// Deadlines and the limits members get, for a GUI `go` from the side to move.
fn timing(
    limits: &GoLimits,
    black: bool,
    margin: u64,
) -> (Option<Duration>, Option<Duration>, GoLimits) {
    if let Some(movetime) = limits.movetime {
        let (member, soft, hard) = deadline::plan_movetime(movetime, margin);
        return (
            Some(soft),
            Some(hard),
            GoLimits {
                movetime: Some(member),
                ..limits.clone()
            },
        );
    }
    if !limits.has_clock() {
        // `go nodes`, `go depth` or a bare `go`: members end the search themselves.
        return (None, None, limits.clone());
    }
    let (main, inc) = limits.clock_of(black);
    let (opp, _) = limits.clock_of(!black);
    let clock = Clock {
        main: main.unwrap_or(0),
        opponent_main: opp.unwrap_or(0),
        byoyomi: limits.byoyomi.unwrap_or(0),
        inc: inc.unwrap_or(0),
    };
    let plan = deadline::plan(clock, margin);
    let mut member = limits.clone();
    if black {
        member.btime = Some(plan.member_main);
    } else {
        member.wtime = Some(plan.member_main);
    }
    if limits.byoyomi.is_some() {
        member.byoyomi = Some(plan.member_byoyomi);
    }
    (Some(plan.soft), Some(plan.hard), member)
}

/// The exchange rule's phase-1 clock: our main time, increment and byoyomi scaled by `f`.
fn scale_limits(limits: &GoLimits, black: bool, f: f64) -> GoLimits {
    let scale = |v: Option<u64>| v.map(|x| (x as f64 * f) as u64);
    let mut l = limits.clone();
    if black {
        l.btime = scale(l.btime);
        l.binc = scale(l.binc);
    } else {
        l.wtime = scale(l.wtime);
        l.winc = scale(l.winc);
    }
    l.byoyomi = scale(l.byoyomi);
    l
}

fn best_text(best: &BestMove) -> String {
    match best {
        BestMove::Move { mv, .. } => mv.to_string(),
        BestMove::Resign => "resign".to_string(),
        BestMove::Win => "win".to_string(),
    }
}

/// The score as the reference showed it: `50`, `mate 3`, `mate -2`.
fn score_text(score: &Score) -> String {
    match score {
        Score::Cp(cp) => cp.to_string(),
        mate => mate.to_string(),
    }
}

fn join(moves: &[UsiMove]) -> String {
    moves
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last `info` before `bestmove`: the chosen member's score and a PV that starts with the
/// chosen move (ShogiHome attaches only such a line to the move), gougi's time and the nodes
/// of all members.
fn final_info(round: &Round, got: &Got, slots: &[Slot]) -> String {
    let mut info = got.info.clone().unwrap_or_default();
    let pv: Vec<String> = match got.best.mv() {
        Some(mv) if got.pv.first() == Some(&mv) => got.pv.iter().map(|m| m.to_string()).collect(),
        Some(mv) => std::iter::once(mv)
            .chain(got.best.ponder())
            .map(|m| m.to_string())
            .collect(),
        None => vec![best_text(&got.best)],
    };
    info.text = Some(InfoText::Pv(pv));
    info.multipv = Some(1);
    info.time = Some(round.started.elapsed().as_millis() as u64);
    // Members' counts come from outside: saturate rather than overflow.
    let nodes: u64 = slots
        .iter()
        .filter_map(|s| s.last_info.as_ref().and_then(|i| i.nodes))
        .fold(0, u64::saturating_add);
    if nodes > 0 {
        info.nodes = Some(nodes.max(info.nodes.unwrap_or(0)));
    }
    info.nps = None;
    info.currmove = None;
    info.currmovenumber = None;
    info.extra.clear();
    if let Some(s) = got.score {
        info.score = Some(InfoScore::exact(s));
    }
    info.to_string()
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400)
}
