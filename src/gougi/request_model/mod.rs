//! The request model: random GUI sessions against the real coordinator, checked after every
//! step against a reference model of what each member owes (issue 49).
//!
//! Why: the defects of issue 49 — healthy members killed after a ponder miss, after `go
//! infinite`, after a mate member's answer; a `go` sent on top of a running search — each hid
//! where no hand-written test looked (long searches, queued answers). Here a session is drawn
//! at random: members that think 0–60 s and take up to 2.5 s to answer `stop`, some that hang
//! or crash; ponder hits and misses, `go infinite`/`stop`, `go mate`, zero clocks, sudden
//! death, Fischer and byoyomi from 0 to 30 s. The coordinator runs in-process with
//! `member::scripted` members under paused time, so a session of hours costs milliseconds.
//!
//! The model reads each member's pipes (`Scripted::traffic`): a `go` adds a request, a `stop`
//! marks the newest one stopped, a `bestmove`/`checkmate` answers the oldest, a new process
//! owes nothing. After every step, once every message in flight has arrived, it checks:
//! - what the coordinator holds each member to owe (its probe) equals the model's queue;
//! - every `go` to a member that owed an answer came after exactly one `stop` for it, and no
//!   `stop` reached a member with nothing unstopped to stop;
//! - a member that answers every `stop` within the hang limit is never killed (healthy members
//!   keep their first process);
//! - no fallback move while a member's answer to that round had already arrived, and none at
//!   all, given time to think, when every member answers `stop` within 20 ms;
//! - every `bestmove` is legal, comes once per `go`, and within the GUI's clock.
//!
//! `tests/request_model.rs` runs a fixed set of seeded sessions in CI (and, by hand, more for a
//! bounded time); the fuzz target `request_model` draws the same sessions from the fuzzer's
//! bytes.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::member::scripted::{Go, Script, Traffic};

mod session;
pub use session::run_session;

const MS: Duration = Duration::from_millis(1);

/// Where a session's choices come from: a seeded generator, or a fuzzer's bytes.
pub trait Choices {
    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: u32) -> u32;

    /// One of `items`.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

/// xorshift64*: small, deterministic, good enough to draw sessions.
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Seeded {
        Seeded(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
}

impl Choices for Seeded {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
        if n == 0 {
            0
        } else {
            (x % u64::from(n)) as u32
        }
    }
}

/// A fuzzer's bytes, read as choices; zeros once they run out ([`Bytes::done`]).
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, at: 0 }
    }

    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }
}

impl Choices for Bytes<'_> {
    fn below(&mut self, n: u32) -> u32 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        if n == 0 {
            0
        } else {
            u32::from(b) % n
        }
    }
}

/// What a session did, for the test's summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub steps: u32,
    pub gos: u32,
    pub ponder_hits: u32,
    pub ponder_misses: u32,
    pub infinite: u32,
    pub mates: u32,
    pub fallbacks: u32,
    /// Members killed or lost (all of them faulty by their script).
    pub restarts: u32,
    /// Virtual time the session covered.
    pub virtual_time: Duration,
}

impl Report {
    /// Adds another session's counts (a run's totals).
    pub fn add(&mut self, other: &Report) {
        self.steps += other.steps;
        self.gos += other.gos;
        self.ponder_hits += other.ponder_hits;
        self.ponder_misses += other.ponder_misses;
        self.infinite += other.infinite;
        self.mates += other.mates;
        self.fallbacks += other.fallbacks;
        self.restarts += other.restarts;
        self.virtual_time += other.virtual_time;
    }
}

/// How the members of a session behave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Every member answers `stop` within 20 ms: no fallback when there is time to think.
    Prompt,
    /// Members take up to 2.5 s to answer `stop` (under the 3 s hang limit): nobody is killed.
    Slow,
    /// Some members hang or crash: only they are killed.
    Faulty,
}

/// A member's behaviour, drawn for the session.
fn draw_script(c: &mut impl Choices, kind: Kind, faulty: bool, name: String) -> Script {
    let latency = match kind {
        Kind::Prompt => c.below(21),
        _ => c.pick(&[0, 5, 20, 300, 1000, 2500]) + c.below(10),
    };
    let mut gos = Vec::new();
    for _ in 0..6 {
        let think = match c.below(4) {
            0 => c.below(50),
            1 => c.below(2_000),
            2 => c.below(10_000),
            _ => c.below(60_000),
        };
        let think = Duration::from_millis(u64::from(think));
        gos.push(match c.below(8) {
            0 => Go::OnStop,
            1 => Go::AnswerNth(think, c.below(5) as usize),
            _ => Go::Answer(think),
        });
    }
    if faulty {
        let at = c.below(6) as usize;
        gos[at] = if c.below(2) == 0 {
            Go::Hang
        } else {
            Go::Exit(3)
        };
    }
    Script::new(gos)
        .stop_latency(Duration::from_millis(u64::from(latency)))
        .named(&name)
        .with_score(c.below(200) as i32 - 100)
}

/// A `go` the model saw: whether it was a `go mate`, when it was sent, when it was answered.
struct Asked {
    mate: bool,
    sent: Instant,
    answered: Option<Instant>,
}

/// One member's queue as the model sees it: indices into its [`Asked`] history and whether
/// each was told to stop.
type Queue = VecDeque<(usize, bool)>;

/// What a member owes, oldest first: (`go mate`, told to stop), as [`crate::gougi::coordinator::Owed::requests`].
type Owes = Vec<(bool, bool)>;

/// Replays member traffic through the model: the current instance's queue as (`go mate`,
/// stopped) and every `go` ever sent, or the first rule broken.
fn replay(
    member: u32,
    traffic: &[Traffic],
    current: Option<u64>,
) -> Result<(Owes, Vec<Asked>), String> {
    let mut queue = Queue::new();
    let mut instance = None;
    let mut asked: Vec<Asked> = Vec::new();
    let mut last_answer = None;
    for t in traffic {
        if instance != Some(t.instance) {
            instance = Some(t.instance);
            queue.clear(); // a new process owes nothing
        }
        let word = t.line.split_whitespace().next().unwrap_or("");
        match (t.to_member, word) {
            (true, "go") => {
                if queue.back().is_some_and(|r| !r.1) {
                    return Err(format!(
                        "E{member}: `{}` on top of a search never stopped",
                        t.line
                    ));
                }
                queue.push_back((asked.len(), false));
                asked.push(Asked {
                    mate: t.line.starts_with("go mate"),
                    sent: t.at,
                    answered: None,
                });
            }
            (true, "stop") => match queue.back_mut() {
                Some(r) if !r.1 => r.1 = true,
                // The member's answer and gougi's `stop` crossed in the pipes: gougi sent the
                // stop before it read the answer, which the member had already written.
                _ if last_answer == Some(t.at) => {}
                _ => return Err(format!("E{member}: a `stop` with nothing to stop")),
            },
            (false, "bestmove" | "checkmate") => match queue.pop_front() {
                Some(r) => {
                    asked[r.0].answered = Some(t.at);
                    last_answer = Some(t.at);
                }
                None => return Err(format!("E{member}: `{}` answers no request", t.line)),
            },
            _ => {}
        }
    }
    if instance != current {
        queue.clear();
    }
    let owed = queue.iter().map(|r| (asked[r.0].mate, r.1)).collect();
    Ok((owed, asked))
}

/// A clock drawn for a `go`: its text and the GUI's time for the move.
fn draw_clock(c: &mut impl Choices) -> (String, Option<Duration>) {
    match c.below(3) {
        0 => {
            let b = c.pick(&[0u64, 100, 1000, 3000, 6000, 10000, 30000]);
            (
                format!("btime 0 wtime 0 byoyomi {b}"),
                Some(Duration::from_millis(b)),
            )
        }
        1 => {
            let t = c.pick(&[0u64, 500, 5000, 60000]);
            (
                format!("btime {t} wtime {t}"),
                Some(Duration::from_millis(t)),
            )
        }
        _ => {
            let (t, inc) = (c.pick(&[0u64, 10000, 60000]), c.pick(&[0u64, 1000, 5000]));
            (
                format!("btime {t} wtime {t} binc {inc} winc {inc}"),
                // gougi does not count the increment as time it has (GUIs differ on when it is added).
                Some(Duration::from_millis(t)),
            )
        }
    }
}
