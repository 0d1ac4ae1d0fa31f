//! The coordinator's state: its limits, members' slots, rounds and per-game memory.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use tracing::debug;

use crate::gougi::answer::Answer;
use crate::gougi::deadline;
use crate::gougi::game::Game;
use crate::gougi::lag::Lag;
use crate::gougi::policy::split::Tree;
use crate::gougi::policy::Who;
use crate::mate::BackgroundSolve;
use crate::member::{MemberHandle, MemberSpec};
use crate::usi::{
    BestMove, Checkmate, GoLimits, Info, OptionDecl, PositionCommand, Score, SetOption, UsiMove,
};

use super::requests::{LagKind, Request, Requests};

/// How long gougi's `usiok` waits for members' `usiok`: a GUI's own limit is short (and a
/// member that never answers must not hold start-up), so after this gougi answers without the
/// late member, whose handshake goes on until [`HANDSHAKE_LIMIT`].
pub(super) const USI_WAIT: Duration = Duration::from_secs(4);

/// A member that has not answered `usi` this long after it was started is killed (and
/// restarted under the back-off).
pub(super) const HANDSHAKE_LIMIT: Duration = Duration::from_secs(30);

/// How long gougi's `readyok` waits for members' `readyok`. A member still loading then (a
/// large hash, an evaluation file) is left out until its own `readyok` arrives, up to
/// [`READY_LIMIT`]; the GUI gets its answer at once and is told.
pub(super) const READY_WAIT: Duration = Duration::from_secs(4);

/// A member that has not answered `isready` this long is killed (the reference's 60 s).
pub(super) const READY_LIMIT: Duration = Duration::from_secs(60);

/// How many of a member's `info string` lines between `isready` and its `readyok` reach the
/// GUI: what it loaded, or why it could not (`EvalFile` errors), without letting a chatty
/// loader fill the GUI's pane.
pub(super) const READY_SAY_LIMIT: u32 = 8;

/// Empty keep-alive lines while waiting for `readyok`, as YaneuraOu does for Shogidokoro.
pub(super) const KEEPALIVE: Duration = Duration::from_secs(5);

/// After a GUI `stop`, how long members get to send their `bestmove`.
pub(super) const STOP_GRACE: Duration = Duration::from_millis(1000);

/// Failures in a row (exits, hangs, failed starts with no answered round between them) after
/// which a member is left out until the next `usinewgame`.
pub const MAX_FAILURES: u32 = 5;

/// The longest wait before a restart; the first restart is immediate, then 1 s, 2 s, 4 s ….
pub(super) const BACKOFF_CAP: Duration = Duration::from_secs(16);

/// How long an unparsable `bestmove` waits for a real one from the same member before it
/// counts as that member's (empty) answer: some engines print a broken line first.
pub(super) const GARBAGE_GRACE: Duration = Duration::from_millis(50);

/// After the GUI's input ends, the longest a round without a deadline (`go nodes`) may still
/// take before gougi answers and quits.
pub(super) const EOF_GRACE: Duration = Duration::from_secs(30);

/// `USI_Hash` as gougi declares it (MB for all normal members together).
pub(super) const DEFAULT_HASH_MB: u64 = 256;
pub(super) const MAX_HASH_MB: u64 = 1 << 20;
/// `Threads` as gougi declares it (for all normal members together).
pub(super) const MAX_THREADS: u64 = 1024;

/// Cap on `USI_Hash` for mate members (the reference's 256 MB), since they are extra processes.
pub(super) const MATE_HASH_CAP: u64 = 256;

/// Positions remembered as already sent to PV mate members (mate-pv), oldest forgotten first.
pub(super) const PV_MATE_MEMORY: usize = 4096;

/// The built-in solver's table for `go mate` without a mate member (allocated per `go mate`;
/// about 13 ms for 64 MiB).
pub(super) const BUILTIN_MATE_HASH_MB: u64 = 64;

/// The key of the built-in solver's answer among a tsume round's `checkmates` (not a slot).
pub(super) const BUILTIN_MATE: usize = usize::MAX;

/// Lines between two choices of the provisional leader with `members` members thinking: every
/// line up to 15 members, then one line in `members / 8`. Choosing costs a pass over every
/// member (the policy's decision over their current lines), so choosing at every line made the
/// relay quadratic in the member count; this way a line costs at most about eight members' worth
/// of choosing, and with 64 members the leader is chosen again after at most 8 member lines.
pub(super) fn leader_every(members: usize) -> usize {
    (members / 8).max(1)
}

/// Slot indices hashed by one multiplication: the round's answers are looked up at every
/// answer, once per participant (is everyone in? how much weight is still thinking?), and with
/// 256 members SipHash was a tenth of gougi's time.
#[derive(Default)]
pub(super) struct SlotHasher(u64);

impl std::hash::Hasher for SlotHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        // Fibonacci hashing: the table uses the high bits too, which a bare index leaves at 0.
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(super) type BySlot = std::hash::BuildHasherDefault<SlotHasher>;

/// The longest PV prefix sent to PV mate members.
pub(super) const PV_MATE_DEPTH: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotState {
    /// `usi` sent, waiting for `usiok`.
    Handshaking,
    /// A restarted member: `isready` sent, waiting for `readyok` before it joins rounds.
    Readying,
    /// Usable.
    Ready,
    /// The process ended; may be restarted.
    Dead,
}

/// One member as the coordinator tracks it.
pub(super) struct Slot {
    pub(super) spec: MemberSpec,
    pub(super) handle: Option<MemberHandle>,
    pub(super) state: SlotState,
    /// `id name`, or the config's `Engine<N>.Name` (shared with every [`Answer`] made of it).
    pub(super) name: Arc<str>,
    pub(super) options: Vec<OptionDecl>,
    /// The GUI's settings for this member, in order, to replay after a restart.
    pub(super) settings: Vec<SetOption>,
    /// Options the GUI set for this member by its own name (`E<N>_Threads`): the shared
    /// `USI_Hash`/`Threads` budget does not override them.
    pub(super) explicit: HashSet<String>,
    /// Options whose value the GUI sent in CP932: `setoption` for them is written to the member
    /// in CP932 too (a Japanese Windows engine reads its file names in the GUI's encoding).
    pub(super) cp932: HashSet<String>,
    /// `Engine<N>.Option.*` settings not sent yet: at the first start they wait for the GUI's
    /// `isready`, so one the GUI sets as `E<N>_<Name>` meanwhile is never sent.
    pub(super) config_unsent: Vec<String>,
    /// `Engine<N>.SoloOption.*`: the values for rounds it plays alone, and which it holds.
    pub(super) solo: Solo,
    /// The `go`s it has not answered yet, each with its own `stop` (see `requests.rs`).
    pub(super) requests: Requests,
    pub(super) awaiting_ready: bool,
    /// When `isready` was sent and not yet answered.
    pub(super) ready_since: Option<Instant>,
    /// `info string` lines it said while loading (since that `isready`): relayed up to
    /// [`READY_SAY_LIMIT`].
    pub(super) ready_said: u32,
    pub(super) restarts: u32,
    /// Failures in a row since the member last answered a round (or since `usinewgame`).
    pub(super) failures: u32,
    /// A dead member's next start; `None` with `Dead` means left out until the next game.
    pub(super) restart_at: Option<Instant>,
    /// An unparsable `bestmove` for the current request arrived at this time (see
    /// [`GARBAGE_GRACE`]).
    pub(super) garbage_at: Option<Instant>,
    /// Last exact main-line score and the info line that carried it, for the current round.
    pub(super) last_score: Option<Score>,
    pub(super) last_info: Option<Info>,
    /// Last main-line PV of the current round, and the whole line that carried it (any
    /// bound): a fallback plays its first move and shows that line, all of it from one source.
    pub(super) last_pv: Vec<UsiMove>,
    pub(super) last_pv_line: Option<Info>,
    /// `multipv-vote`: the last exact line of each MultiPV rank (index = rank − 1) this round.
    pub(super) lines: Vec<Option<Info>>,
    /// Score at gougi's previous decision in this game ("2 plies ago").
    pub(super) prev: Option<Score>,
    pub(super) handshake_deadline: Instant,
    /// How late its answers reach gougi after its clock ran out, and after a `stop` (learned
    /// from its answers, see `gougi::lag`; kept across restarts: the network between gougi and
    /// the member's machine is the same). Apart, because an engine slow to stop (or a `stop`
    /// ending a long analysis) says nothing about when it answers on its own clock.
    pub(super) clock_lag: Lag,
    pub(super) stop_lag: Lag,
    /// The GUI was told what its lag costs it (once per member and run).
    pub(super) lag_told: bool,
    /// Out-of-range values this member was already named for (`gougi::ranges`): once per
    /// member and run, since an engine that prints one prints it at every line.
    pub(super) warned: Warned,
}

/// Which out-of-range warnings a member has had.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Warned {
    pub(super) cp: bool,
    pub(super) mate_zero: bool,
}

/// How messages name a member: `E2 (YaneuraOu)`, or `E2` alone when it has no other name.
pub(super) fn label(number: u32, name: &str) -> String {
    Who {
        number,
        name: name.into(),
    }
    .to_string()
}

/// One member's solo options and what it holds now (`Engine<N>.SoloOption`, see `solo.rs`).
#[derive(Debug, Default)]
pub(super) struct Solo {
    /// The `Engine<N>.SoloOption.*` values the member accepts, checked at its last `usiok`, in
    /// the config's order.
    pub(super) values: Vec<SetOption>,
    /// The names whose solo value the member's process holds now.
    pub(super) held: HashSet<String>,
    /// The current round asks this member alone.
    pub(super) wanted: bool,
    /// The solo values were logged at info level once (the first switch of the session).
    pub(super) logged: bool,
}

impl Slot {
    pub(super) fn label(&self) -> String {
        label(self.spec.number, &self.name)
    }

    pub(super) fn number(&self) -> u32 {
        self.spec.number
    }

    pub(super) fn usable(&self) -> bool {
        self.state == SlotState::Ready && !self.awaiting_ready
    }

    /// The member answered (a `bestmove`, a `checkmate`, or a broken line that stands for
    /// one): its oldest request is done. The one place an answer is taken off its queue.
    /// Its lag (see `gougi::lag`) is learned here too.
    pub(super) fn take_answer(&mut self) -> Option<Request> {
        self.garbage_at = None;
        let now = Instant::now();
        let done = self.requests.answered(now);
        if let Some((kind, lag)) = done.as_ref().and_then(|r| r.lag(now)) {
            let learned = match kind {
                LagKind::Clock => &mut self.clock_lag,
                LagKind::Stop => &mut self.stop_lag,
            };
            learned.record(lag.as_secs_f64() * 1000.0);
            debug!(
                member = self.spec.number,
                ?kind,
                lag_ms = lag.as_secs_f64() * 1000.0,
                estimate = learned.estimate(),
                "answer lag"
            );
        }
        done
    }

    /// What its learned lag takes off its clock, with `margin` (`G_Margin`): see
    /// [`deadline::lag_extra`].
    pub(super) fn clock_extra(&self, margin: u64) -> u64 {
        deadline::lag_extra(self.clock_lag.estimate(), margin)
    }

    /// How much earlier than the soft deadline its learned lag after `stop` has it stopped.
    pub(super) fn stop_extra(&self, margin: u64) -> u64 {
        deadline::lag_extra(self.stop_lag.estimate(), margin)
    }

    pub(super) fn clear_round(&mut self) {
        self.last_score = None;
        self.last_info = None;
        self.last_pv.clear();
        self.last_pv_line = None;
        self.lines.clear();
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RoundKind {
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
pub(super) struct ExchangeState {
    pub(super) first: [Answer; 2],
    pub(super) first_got: [Got; 2],
}

/// The `leader` type's re-searches: the first answers, and the leader's values of the moves
/// re-searched so far.
#[derive(Clone, Debug)]
pub(super) struct LeaderCheck {
    /// The leader's slot.
    pub(super) leader: usize,
    /// The first phase, in member order: slots, answers (as the policy read them), answers.
    pub(super) slots: Vec<usize>,
    pub(super) answers: Vec<Answer>,
    pub(super) gots: Vec<Got>,
    /// Answer indices still to re-search (the leader's own first), and the one in progress.
    pub(super) queue: VecDeque<usize>,
    pub(super) current: Option<usize>,
    /// The leader's value of each move re-searched (answer index, value); `None`: no score.
    pub(super) values: Vec<(usize, Option<i64>)>,
    /// A banked round (`G_TimeBank`): the re-searches are timed, not `G_LeaderNodes`, and
    /// end by this instant (see [`deadline::leader_bank`]).
    pub(super) bank_end: Option<Instant>,
    /// Under `go nodes`: what is left of the re-searches' reserve ([`deadline::leader_nodes`]).
    pub(super) nodes_left: Option<u64>,
}

/// A `split` round's own state (`Round::split`; its rounds are `split.rs`).
pub(super) struct SplitState {
    /// The prediction is running on this slot.
    pub(super) predicting: Option<usize>,
    /// The normal members asked this round, in member order.
    pub(super) members: Vec<usize>,
    /// The prediction's answer (its slot).
    pub(super) first: Option<(usize, Got)>,
    pub(super) tree: Tree,
    /// The leaves' searches, one per member searching (the heaviest leaf's first).
    pub(super) work: Vec<Work>,
    /// The leaves' node budget (under `go nodes`).
    pub(super) leaf_nodes: Option<u64>,
    /// The member on the predicted line's leaf (first children all the way down), whose lines
    /// the GUI sees.
    pub(super) principal: Option<usize>,
}

/// One member's leaf.
pub(super) struct Work {
    pub(super) slot: usize,
    pub(super) leaf: usize,
    /// A rest searched as positions: the moves still to search, the one searched now, and the
    /// value (for the rest's side) and answer of each one searched.
    pub(super) queue: VecDeque<UsiMove>,
    pub(super) current: Option<UsiMove>,
    pub(super) done: Vec<(UsiMove, Option<i64>, Got)>,
    /// How many moves the rest has (positions only, else 0).
    pub(super) rest: usize,
}

impl SplitState {
    pub(super) fn new(members: Vec<usize>) -> SplitState {
        SplitState {
            predicting: None,
            members,
            first: None,
            tree: Tree::root(),
            work: Vec::new(),
            leaf_nodes: None,
            principal: None,
        }
    }
}

/// A member's answer within a round.
#[derive(Clone, Debug)]
pub(super) struct Got {
    pub(super) best: BestMove,
    pub(super) score: Option<Score>,
    pub(super) info: Option<Info>,
    pub(super) pv: Vec<UsiMove>,
    /// `multipv-vote`: the member's exact MultiPV lines 2, 3, … at its `bestmove`.
    pub(super) lines: Vec<Info>,
}

pub(super) struct Round {
    pub(super) id: u64,
    /// The GUI's clock for this move as it sent it (our main time and increment), before any
    /// delay was taken off: what [`crate::gougi::gui_lag`] compares the next clock with.
    pub(super) gui_clock: Option<(u64, u64)>,
    /// This round followed a missed ponder (its clock started at the `stop`): no lag sample.
    pub(super) after_miss: bool,
    pub(super) kind: RoundKind,
    pub(super) game: Game,
    pub(super) limits: GoLimits,
    pub(super) started: Instant,
    pub(super) soft: Option<Instant>,
    pub(super) hard: Option<Instant>,
    /// Slots searching this round (normal members, or mate members for `go mate`).
    pub(super) participants: Vec<usize>,
    pub(super) answers: HashMap<usize, Got, BySlot>,
    /// Tsume rounds: answers of the mate members.
    pub(super) checkmates: HashMap<usize, Checkmate>,
    pub(super) stop_sent: bool,
    pub(super) exchange: Option<ExchangeState>,
    /// `leader`: the re-searches, once the first phase is in.
    pub(super) leader_check: Option<LeaderCheck>,
    /// The GUI sent `stop` (unlike `stop_sent`, which the round's own soft deadline sets too).
    pub(super) gui_stopped: bool,
    /// The member whose info stream the GUI currently sees.
    pub(super) leader: Option<usize>,
    /// Members searching another position than the round's (exchange phase 2), by slot.
    pub(super) elsewhere: HashMap<usize, Game>,
    /// The deepest `depth` relayed to the GUI this round (`G_InfoRelay=leader`).
    pub(super) relayed_depth: u32,
    /// Lines from members since the provisional leader was last chosen (`G_InfoRelay=leader`):
    /// with many members it is chosen again every [`leader_every`] lines, not at each.
    pub(super) lines_since_leader: usize,
    /// A `go ponder` ended by `stop`: its bestmove is thrown away by the GUI.
    pub(super) missed_ponder: bool,
    /// `go mate` with no mate member: the built-in df-pn solver, in-process on its own thread,
    /// until its answer is in `checkmates[BUILTIN_MATE]` (dropping it stops it).
    pub(super) builtin_mate: Option<BackgroundSolve>,
    /// Ponder rounds: members with `Engine<N>.Ponder=false`, started at `ponderhit`.
    pub(super) ponder_later: Vec<usize>,
    /// `G_TimeBank`: members were told a banked (shortened) main time for this round.
    pub(super) banked: bool,
    /// `leader` under `go nodes`: the nodes kept back from the first phase for the leader's
    /// re-searches ([`deadline::leader_nodes`]).
    pub(super) leader_reserve: Option<u64>,
    /// `G_TimeBank`, all-members types: the members disagreed and were asked again with the
    /// whole clock.
    pub(super) extended: bool,
    /// `split`: the prediction, the tree and its leaves' searches (`split.rs`).
    pub(super) split: Option<SplitState>,
    /// Multi-ponder: the members that pondered this very position and went on from their search
    /// while others were re-aimed at it (empty when all or none did); `multi_ponder::voters`.
    pub(super) head_start: Vec<usize>,
}

impl Round {
    /// A round of `kind` over `game`, asked at `started` with the GUI's `limits` (less what
    /// the GUI's delay and turnaround took); its deadlines (soft, hard) from then. Nobody asked
    /// yet, nothing answered.
    pub(super) fn new(
        id: u64,
        kind: RoundKind,
        game: Game,
        limits: GoLimits,
        started: Instant,
        (soft, hard): (Option<Duration>, Option<Duration>),
    ) -> Round {
        Round {
            id,
            gui_clock: None,
            after_miss: false,
            kind,
            game,
            limits,
            started,
            soft: soft.map(|d| started + d),
            hard: hard.map(|d| started + d),
            participants: Vec::new(),
            answers: HashMap::default(),
            checkmates: HashMap::new(),
            stop_sent: false,
            exchange: None,
            leader_check: None,
            gui_stopped: false,
            leader: None,
            elsewhere: HashMap::new(),
            relayed_depth: 0,
            lines_since_leader: 0,
            missed_ponder: false,
            builtin_mate: None,
            ponder_later: Vec::new(),
            banked: false,
            leader_reserve: None,
            extended: false,
            split: None,
            head_start: Vec::new(),
        }
    }

    /// The position member `i` is searching.
    pub(super) fn game_of(&self, i: usize) -> &Game {
        self.elsewhere.get(&i).unwrap_or(&self.game)
    }
}

/// Mate members' state for the mate types.
#[derive(Default)]
pub(super) struct MateState {
    /// The position each mate slot is searching, by slot.
    pub(super) busy: HashMap<usize, PositionCommand>,
    /// Verified mates by position (the GUI's command text), shortest kept.
    pub(super) found: HashMap<String, Vec<UsiMove>>,
    /// mate-pv: positions already sent, oldest first.
    pub(super) searched: VecDeque<String>,
    pub(super) searched_set: HashSet<String>,
    /// mate-pv: positions waiting for a free PV mate member, newest last.
    pub(super) queue: VecDeque<PositionCommand>,
    pub(super) tried: u64,
    pub(super) succeeded: u64,
    /// mate-pv: `mateinfo` lines for the normal member: text, sends left, next send time.
    pub(super) mateinfo: Vec<(String, i64, Instant)>,
}
