//! What a member owes: its outstanding requests, in the order it will answer them, each with
//! its own `stop`.
//!
//! Why per request: a USI engine answers its `go`s in order, and a `stop` reaches the search
//! that runs when the engine reads it — the newest `go` sent before it. After a ponder miss or
//! `go infinite` → `stop` → `go`, a member owes two answers: the stopped search's, which is
//! due within [`HUNG_AFTER`], and the new search's, which is due only at its own deadline. One
//! stop time per member made the new search look hung 3 s after the old one's `stop`, and gougi
//! killed healthy members (issue 49). So each request carries its own `stop`, and the hang
//! clock runs only for the request the member is answering now (the oldest), from the later of
//! its `stop` and the moment it became the oldest: a member that unwinds one stopped search
//! before it reads the next `stop` is not charged for the first one's time twice.
//!
//! Every `go` is pushed here ([`Requests::push`]), every `stop` is marked here
//! ([`Requests::stop`], which says whether one must be sent: exactly one per request, and
//! always one before a `go` to a member that still owes an answer), and every answer —
//! `bestmove`, `checkmate`, a broken line taken as the answer — is taken off here
//! ([`Requests::answered`]); a process that ends forgets all of them ([`Requests::clear`]).

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// A member that owes an answer this long after `stop` is considered hung and killed.
pub(super) const HUNG_AFTER: Duration = Duration::from_secs(3);

/// One `go` a member has not answered yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The coordinator's round it belongs to (0: a mate member's search between rounds).
    pub round: u64,
    /// `go mate` (answered with `checkmate`).
    pub mate: bool,
    /// When the `stop` for this search was sent.
    pub stopped: Option<Instant>,
    /// When it became the oldest request: the member is answering it from then on.
    pub front_since: Instant,
    /// When the clock the member was told runs out (`None`: no clock, or a ponder search
    /// before its `ponderhit`): with `stopped`, where its answer's lag is measured from.
    pub due: Option<Instant>,
    /// The length of that clock, for a ponder search whose clock starts at `ponderhit`.
    pub clock: Option<Duration>,
    /// When its `go` was sent.
    pub sent: Instant,
    /// Its lag was already learned from (see [`Requests::overdue`]): its answer is no sample.
    pub lag_learned: bool,
}

/// What an answer's lag was measured from (see `gougi::lag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LagKind {
    /// The end of the clock the member was told: it answered on its own clock.
    Clock,
    /// gougi's `stop`, sent before its clock ended: how long it takes to stop and answer.
    Stop,
}

/// A `stop` sent this close to the end of the member's clock (or after it) ended nothing the
/// clock would not have: gougi's soft deadline is where a byoyomi member's clock ends, and its
/// timer fires a little after the member's clock was counted from.
pub const STOP_AT_CLOCK_END: Duration = Duration::from_millis(10);

impl Request {
    /// The lag of an answer to this request that arrived at `now` (see `gougi::lag`): since
    /// its clock's end when it answered on its clock, since its `stop` when that came first; or
    /// `None` when the answer came before both (the member chose to answer early: nothing
    /// learned about the network).
    pub fn lag(&self, now: Instant) -> Option<(LagKind, Duration)> {
        if self.lag_learned {
            return None;
        }
        let (kind, from) = match (self.stopped, self.due) {
            (Some(s), Some(d)) if s + STOP_AT_CLOCK_END < d => (LagKind::Stop, s),
            (_, Some(d)) => (LagKind::Clock, d),
            (Some(s), None) => (LagKind::Stop, s),
            (None, None) => return None,
        };
        Some((kind, now.checked_duration_since(from)?))
    }
}

/// A member's outstanding requests, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Requests {
    queue: VecDeque<Request>,
}

impl Requests {
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The oldest request: the one the member's next answer is for.
    pub fn front(&self) -> Option<&Request> {
        self.queue.front()
    }

    /// Every request, oldest first: what the probe publishes (so only with it).
    #[cfg(any(test, feature = "testkit"))]
    pub fn iter(&self) -> impl Iterator<Item = &Request> {
        self.queue.iter()
    }

    /// A `go` for round `round` (`mate`: a `go mate`) was sent `now`. The caller has called
    /// [`Requests::stop`] first (and sent the `stop` it asked for), so no search is ever
    /// started on top of one still running.
    /// `clock`: how long the member was told it may think, if it has a clock (from `now`, or
    /// from `ponderhit` for a `ponder` search).
    pub fn push(
        &mut self,
        round: u64,
        mate: bool,
        now: Instant,
        clock: Option<Duration>,
        ponder: bool,
    ) {
        debug_assert!(
            self.queue.back().is_none_or(|r| r.stopped.is_some()),
            "a go on top of a search that was not stopped"
        );
        self.queue.push_back(Request {
            round,
            mate,
            stopped: None,
            front_since: now,
            due: clock.filter(|_| !ponder).map(|c| now + c),
            clock,
            sent: now,
            lag_learned: false,
        });
    }

    /// The member is to stop searching: marks the newest request stopped at `now` and returns
    /// true when a `stop` must be sent for it — it owes that answer and was not told yet. Every
    /// older request was stopped before the `go` that followed it.
    pub fn stop(&mut self, now: Instant) -> bool {
        match self.queue.back_mut() {
            Some(r) if r.stopped.is_none() => {
                r.stopped = Some(now);
                true
            }
            _ => false,
        }
    }

    /// `ponderhit` at `now`: the newest request's clock starts, `clock` long (the
    /// `ponderhit`'s own clock), else as long as its `go ponder` said.
    pub fn ponderhit(&mut self, now: Instant, clock: Option<Duration>) {
        if let Some(r) = self.queue.back_mut() {
            r.due = clock.or(r.clock).map(|c| now + c);
        }
    }

    /// The newest request now belongs to round `round`: a member re-aimed by multi-ponder
    /// owes an answer no round takes, and a parked one's search becomes the new round's.
    pub fn retag_newest(&mut self, round: u64) {
        if let Some(r) = self.queue.back_mut() {
            r.round = round;
        }
    }

    /// When the newest request's clock ends (`None`: no clock, or not started yet).
    pub fn newest_due(&self) -> Option<Instant> {
        self.queue.back().and_then(|r| r.due)
    }

    /// A new `go` goes out at `now` while the newest request, whose clock ended before `now`
    /// and which was not stopped before that, is still owed: the member lags at least
    /// `now − due`. Returned once per request (its answer, when it comes, is then no sample), so
    /// that the next `go` is already budgeted for it: otherwise a member at a distance would
    /// lose its first two answers (the first arrives only after the second `go` went out).
    pub fn overdue(&mut self, now: Instant) -> Option<Duration> {
        let r = self.queue.back_mut()?;
        let due = r.due?;
        let on_clock = r.stopped.is_none_or(|s| s + STOP_AT_CLOCK_END >= due);
        if r.lag_learned || !on_clock || due >= now {
            return None;
        }
        r.lag_learned = true;
        Some(now - due)
    }

    /// When the newest request's `go` was sent.
    pub fn newest_sent(&self) -> Option<Instant> {
        self.queue.back().map(|r| r.sent)
    }

    /// Whether the newest request was told to stop (true when nothing is owed).
    pub fn newest_stopped(&self) -> bool {
        self.queue.back().is_none_or(|r| r.stopped.is_some())
    }

    /// The member answered (`bestmove`, `checkmate`, or a broken line that stands for one) at
    /// `now`: the oldest request is done; the next one is answered from now on.
    pub fn answered(&mut self, now: Instant) -> Option<Request> {
        let done = self.queue.pop_front();
        if let Some(next) = self.queue.front_mut() {
            next.front_since = now;
        }
        done
    }

    /// The process is gone: nothing it owed will come.
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// When the member counts as hung if it has not answered by then: [`HUNG_AFTER`] after the
    /// later of the oldest request's `stop` and the moment it became the oldest. `None` while
    /// the request it is answering was not stopped (a search runs until its own deadline, which
    /// the member knows and gougi's round enforces).
    pub fn hang_deadline(&self) -> Option<Instant> {
        let r = self.queue.front()?;
        let stopped = r.stopped?;
        Some(stopped.max(r.front_since) + HUNG_AFTER)
    }
}

/// What the coordinator holds one member to owe, as the request model of the property test
/// (`tests/request_model.rs`) sees it: published after every event the coordinator handles when
/// a probe is set ([`Coordinator::with_probe`]). Test scaffolding (`testkit`), as the probe is.
#[cfg(any(test, feature = "testkit"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owed {
    /// `Engine<N>`'s `N` (the mate member's number for `MateEngine`).
    pub member: u32,
    /// The running process's instance (`None`: no process).
    pub instance: Option<u64>,
    /// Oldest first: (`go mate`, told to `stop`).
    pub requests: Vec<(bool, bool)>,
}

/// Where the coordinator publishes what its members owe.
#[cfg(any(test, feature = "testkit"))]
pub type Probe = std::sync::Arc<std::sync::Mutex<Vec<Owed>>>;

#[cfg(any(test, feature = "testkit"))]
impl<W: std::io::Write> super::Coordinator<W> {
    /// Publish what every member owes to `probe` after each event (tests and the fuzz target).
    pub fn with_probe(mut self, probe: Probe) -> Self {
        self.probe = Some(probe);
        self.publish_owed();
        self
    }

    pub(super) fn publish_owed(&self) {
        let Some(probe) = &self.probe else { return };
        let owed = self
            .slots
            .iter()
            .map(|s| Owed {
                member: s.spec.number,
                instance: s.handle.as_ref().map(|h| h.instance()),
                requests: s
                    .requests
                    .iter()
                    .map(|r| (r.mate, r.stopped.is_some()))
                    .collect(),
            })
            .collect();
        *probe.lock().unwrap_or_else(|e| e.into_inner()) = owed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[tokio::test(start_paused = true)]
    async fn a_ponder_miss_does_not_charge_the_new_search_for_the_old_stop() {
        let t0 = Instant::now();
        let mut q = Requests::default();
        q.push(1, false, t0, None, false);
        assert_eq!(
            q.hang_deadline(),
            None,
            "a search is not hung before its stop"
        );
        let stop = t0 + 500 * MS;
        assert!(q.stop(stop));
        assert!(!q.stop(stop + MS), "one stop per request");
        q.push(2, false, stop, None, false);
        assert_eq!(q.hang_deadline(), Some(stop + HUNG_AFTER));
        // The stopped search's answer comes 300 ms later: the new search owes nothing yet.
        assert_eq!(q.answered(stop + 300 * MS).map(|r| r.round), Some(1));
        assert_eq!(q.hang_deadline(), None);
        assert_eq!(q.iter().count(), 1);
        // Its own stop starts its own clock.
        let stop2 = stop + 6_000 * MS;
        assert!(q.stop(stop2));
        assert_eq!(q.hang_deadline(), Some(stop2 + HUNG_AFTER));
        assert_eq!(q.answered(stop2 + MS).map(|r| r.round), Some(2));
        assert!(q.is_empty());
        assert!(!q.stop(stop2), "no stop for a member that owes nothing");
    }

    #[tokio::test(start_paused = true)]
    async fn the_clock_of_a_queued_stopped_request_starts_when_it_becomes_the_oldest() {
        let t0 = Instant::now();
        let mut q = Requests::default();
        q.push(1, false, t0, None, false);
        q.stop(t0);
        q.push(2, false, t0, None, false);
        q.stop(t0 + 10 * MS);
        assert_eq!(q.hang_deadline(), Some(t0 + HUNG_AFTER));
        // The first answer took 2.9 s: the second stop is read only now.
        let first = t0 + 2_900 * MS;
        q.answered(first);
        assert_eq!(q.hang_deadline(), Some(first + HUNG_AFTER));
        q.clear();
        assert_eq!(q.hang_deadline(), None);
        assert!(q.answered(first).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn an_answers_lag_runs_from_the_earlier_of_its_stop_and_its_clocks_end() {
        let t0 = Instant::now();
        let mut q = Requests::default();
        q.push(1, false, t0, Some(900 * MS), false);
        // Answered before its clock ran out, never stopped: nothing learned.
        let r = q.answered(t0 + 500 * MS).unwrap();
        assert_eq!(r.lag(t0 + 500 * MS), None);
        // Its clock ran out at 900 ms, the answer came at 960 ms.
        assert_eq!(r.lag(t0 + 960 * MS), Some((LagKind::Clock, 60 * MS)));
        // Stopped at 400 ms (the round was settled): the lag runs from the stop.
        q.push(2, false, t0, Some(900 * MS), false);
        q.stop(t0 + 400 * MS);
        let r = q.answered(t0 + 470 * MS).unwrap();
        assert_eq!(r.lag(t0 + 470 * MS), Some((LagKind::Stop, 70 * MS)));
        // Stopped as its clock ended (the soft deadline): a clock sample.
        q.push(3, false, t0, Some(900 * MS), false);
        q.stop(t0 + 895 * MS);
        let r = q.answered(t0 + 950 * MS).unwrap();
        assert_eq!(r.lag(t0 + 950 * MS), Some((LagKind::Clock, 50 * MS)));
        // No clock (`go nodes`) and no stop: no sample; a ponder search gets its clock later.
        q.push(4, false, t0, None, false);
        assert_eq!(q.front().unwrap().lag(t0 + 5_000 * MS), None);
        q.stop(t0 + 100 * MS);
        assert_eq!(
            q.front().unwrap().lag(t0 + 150 * MS),
            Some((LagKind::Stop, 50 * MS))
        );
        q.answered(t0);
        q.push(5, false, t0, Some(300 * MS), true);
        assert_eq!(q.newest_due(), None);
        assert_eq!(q.front().unwrap().lag(t0 + 5_000 * MS), None);
        q.ponderhit(t0 + 1_000 * MS, None);
        assert_eq!(q.newest_due(), Some(t0 + 1_300 * MS));
        assert_eq!(
            q.front().unwrap().lag(t0 + 1_350 * MS),
            Some((LagKind::Clock, 50 * MS))
        );
        q.ponderhit(t0 + 1_000 * MS, Some(200 * MS));
        assert_eq!(
            q.front().unwrap().lag(t0 + 1_350 * MS),
            Some((LagKind::Clock, 150 * MS))
        );
        assert!(!q.newest_stopped());
    }
}
