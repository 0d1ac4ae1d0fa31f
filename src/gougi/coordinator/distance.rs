//! Members at a distance (issue 53 item 2): the `stop`s of a round's soft deadline, earlier for
//! members whose answers lag after a `stop`, and what the GUI is told about a member's lag. The
//! lags are learned in `state.rs` (`Slot::take_answer`) and `members.rs` (`start_search`, which
//! also shortens the clock a member is told); the estimator is `gougi::lag`.

use std::time::Duration;

use tokio::time::Instant;
use tracing::info;

use super::members::stop_search;
use super::state::Round;
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    /// The round's `stop`s at `now`: every participant still owing an answer at the soft
    /// deadline, and before it those whose lag after `stop` needs an earlier one
    /// ([`Self::lag_stop`]).
    pub(super) fn stop_at_soft_deadlines(&mut self, now: Instant) {
        let Some(round) = &self.round else { return };
        if !round.stop_sent {
            // A member whose answers lag is stopped that much earlier than the others (see
            // `lag_stops`), the rest at the soft deadline.
            let all = round.soft.is_some_and(|s| s <= now);
            let mut owing: Vec<usize> = self.lag_stops_due(round, now);
            if all {
                owing = round
                    .participants
                    .iter()
                    .copied()
                    .filter(|p| !round.answers.contains_key(p))
                    .collect();
            }
            // A member `G_MultiPonder` parked after a missed ponder ponders on for the next
            // `go`, which adopts or stops it.
            owing.retain(|&i| !self.is_parked(i));
            for i in owing {
                stop_search(&mut self.slots[i], now);
            }
            if let Some(round) = &mut self.round {
                round.stop_sent |= all;
            }
        }
    }

    /// When participant `p` is stopped, if its answers lag after a `stop` (`gougi::lag`): the
    /// soft deadline less that lag beyond the margin ([`deadline::lag_extra`]), so its answer
    /// reaches gougi when a local member's would. Only for a member whose clock runs past the
    /// soft deadline (main time: the soft cap is `main/4 + byoyomi`): one whose clock ends
    /// before it (byoyomi, shortened by its clock lag) answers on its own, and the stop at the
    /// soft deadline stays a backstop. `None` for a local member (its lag is within the
    /// margin), and once it answered or was told to stop.
    fn lag_stop(&self, round: &Round, p: usize) -> Option<Instant> {
        let slot = &self.slots[p];
        let extra = slot.stop_extra(self.options.margin_ms);
        if extra == 0 || slot.requests.newest_stopped() || round.answers.contains_key(&p) {
            return None;
        }
        let soft = round.soft?;
        if slot.requests.newest_due().is_some_and(|d| d <= soft) {
            return None;
        }
        // As on its clock (`deadline::take_lag`), at most half its search's time to the soft
        // deadline (from its `go`, or the round's `ponderhit`).
        let began = slot.requests.newest_sent()?.max(round.started);
        let span = soft.saturating_duration_since(began);
        Some(soft - Duration::from_millis(extra).min(span / 2))
    }

    /// Every participant's [`Self::lag_stop`].
    pub(super) fn lag_stops<'a>(&'a self, round: &'a Round) -> impl Iterator<Item = Instant> + 'a {
        round
            .participants
            .iter()
            .filter_map(move |&p| self.lag_stop(round, p))
    }

    /// The participants whose [`Self::lag_stop`] has come at `now`.
    fn lag_stops_due(&self, round: &Round, now: Instant) -> Vec<usize> {
        round
            .participants
            .iter()
            .copied()
            .filter(|&p| self.lag_stop(round, p).is_some_and(|t| t <= now))
            .collect()
    }

    /// Once a member's answer lag is learned (`gougi::lag::LEARNED_AFTER` answers) and costs it
    /// time, the GUI is told once what it costs, so a user with members on other machines sees
    /// why they think less than the clock (and by how much their network costs them).
    pub(super) fn tell_lag(&mut self, i: usize) {
        let margin = self.options.margin_ms;
        let slot = &mut self.slots[i];
        let extra = slot.clock_extra(margin);
        let learned = slot.clock_lag.samples() >= crate::gougi::lag::LEARNED_AFTER;
        if slot.lag_told || extra == 0 || !learned {
            return;
        }
        slot.lag_told = true;
        let (typical, estimate) = (slot.clock_lag.typical(), slot.clock_lag.estimate());
        info!(
            member = slot.spec.number,
            typical, estimate, extra, "member answers lag; its clock is shortened"
        );
        let line = format!(
            "info string [Info] {}: its answers reach gougi {typical} ms after its clock runs out \
             (up to {estimate} ms); it is told {extra} ms less",
            slot.label()
        );
        self.say(line);
    }
}
