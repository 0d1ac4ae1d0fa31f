//! The cap on `G_InfoRelay=all`: how many members' lines of thought reach the GUI a second.
//!
//! Leaf module: it knows lines, members' indices and round ids, nothing of the coordinator.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

/// `G_InfoRelay=all`: lines of thought a second the GUI gets at most, on average. Three
/// members print a few dozen lines a second between them; 64 instant-ish members printed
/// thousands (docs/journal/2026-12-01.md, "Consultation at scale"): more than a person can read
/// or a GUI's thinking pane usefully shows, and every line costs the GUI a parse and a redraw.
pub const RELAY_RATE: u32 = 200;

/// `G_InfoRelay=all`: lines that may pass at once before the rate applies (one second's worth),
/// so a few members' lines, and the first second of a big consultation, pass unchanged.
pub const RELAY_BURST: u32 = 200;

/// The cap on `G_InfoRelay=all` (a token bucket): a line passes while there is credit; beyond,
/// each member's latest line waits (a newer one replaces it: the GUI wants where a member is,
/// not where it was) and the waiting lines go out in the order they began to wait, one per
/// credit. Waiting lines are dropped when their round ends: they would follow the `bestmove`.
pub struct RelayCap {
    /// Credit in time: one line costs `1 s / RELAY_RATE`; at most `RELAY_BURST` lines' worth.
    credit: Duration,
    at: Instant,
    /// The round the waiting lines belong to.
    round: Option<u64>,
    held: HashMap<usize, String>,
    queue: VecDeque<usize>,
}

impl RelayCap {
    const LINE: Duration = Duration::from_nanos(1_000_000_000 / RELAY_RATE as u64);

    pub fn new(now: Instant) -> RelayCap {
        RelayCap {
            credit: Self::LINE * RELAY_BURST,
            at: now,
            round: None,
            held: HashMap::new(),
            queue: VecDeque::new(),
        }
    }

    fn refill(&mut self, now: Instant) {
        let earned = now.saturating_duration_since(self.at);
        self.credit = (self.credit + earned).min(Self::LINE * RELAY_BURST);
        self.at = now;
    }

    fn take(&mut self, now: Instant) -> bool {
        self.refill(now);
        match self.credit.checked_sub(Self::LINE) {
            Some(left) => {
                self.credit = left;
                true
            }
            None => false,
        }
    }

    /// Forget the waiting lines unless they belong to `round`.
    fn keep_only(&mut self, round: Option<u64>) {
        if self.round != round {
            self.held.clear();
            self.queue.clear();
            self.round = round;
        }
    }

    /// Member `i`'s line of `round`: the lines to say now (none when it waits).
    pub fn offer(&mut self, round: u64, i: usize, line: String, now: Instant) -> Vec<String> {
        self.keep_only(Some(round));
        if self.queue.is_empty() && self.take(now) {
            return vec![line];
        }
        if self.held.insert(i, line).is_none() {
            self.queue.push_back(i);
        }
        self.release(round, now)
    }

    /// The waiting lines of `round` whose credit has come (all waiting lines are dropped when
    /// `round` is not theirs).
    pub fn release(&mut self, round: u64, now: Instant) -> Vec<String> {
        self.keep_only(Some(round));
        let mut out = Vec::new();
        while !self.queue.is_empty() && self.take(now) {
            let i = self.queue.pop_front().expect("not empty");
            out.extend(self.held.remove(&i));
        }
        out
    }

    /// The round ended: its waiting lines are dropped.
    pub fn end_round(&mut self) {
        self.keep_only(None);
    }

    /// When the next waiting line may go out.
    pub fn next_release(&self) -> Option<Instant> {
        if self.queue.is_empty() {
            return None;
        }
        Some(self.at + Self::LINE.saturating_sub(self.credit))
    }
}
