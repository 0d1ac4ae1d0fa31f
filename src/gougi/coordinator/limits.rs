//! The limits each member is told: the GUI clock turned into deadlines and member clocks
//! ([`timing`]), a banked round's shortened main time ([`bank`]) and the clock left to search
//! it again ([`after_spending`]), the exchange rule's scaled phase-1 clock ([`scale_limits`]),
//! and one member's own `Nodes` rule and network margin ([`told`]), and the GUI's turnaround
//! after a missed ponder charged to the next `go` ([`Coordinator::charge_turnaround`]). The
//! arithmetic itself is in [`deadline`]; this file maps it onto `GoLimits`.

use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, info};

use crate::gougi::deadline;
use crate::gougi::deadline::Clock;
use crate::usi::GoLimits;

use super::members::limits_for;
use super::state::{Round, RoundKind, Slot};
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    /// The clock of a `go` that arrived at `now`, with the time since a missed ponder's `stop`
    /// taken off when the GUI stopped one just before: the GUI's clock has run since the
    /// opponent's move, so its turnaround (stop → bestmove → position → go) is ours to pay. A
    /// loaded machine can stretch that turnaround to tens of ms, more than the margin leaves.
    pub(super) fn charge_turnaround(&mut self, limits: GoLimits, now: Instant) -> GoLimits {
        let Some(stopped) = self.ponder_stopped.take() else {
            return limits;
        };
        let gap = now.saturating_duration_since(stopped).as_millis() as u64;
        if limits.ponder || gap > deadline::TURNAROUND_LIMIT_MS {
            return limits;
        }
        debug!(
            gap_ms = gap,
            "go after a missed ponder: timed from its stop"
        );
        deadline::spent(&limits, self.game.black_to_move(), gap)
    }
}

impl<W: std::io::Write> Coordinator<W> {
    /// The GUI's clock for the side to move, seen by [`crate::gougi::gui_lag`] (which learns
    /// from it what the GUI charged for our previous move), then with the GUI's delay taken off
    /// as if already spent: `G_NetworkDelay`, or the delay learned. Only a game clock is
    /// charged (not `movetime`, `go mate` or `infinite`). Returns the limits and the raw
    /// (main, increment) of our side, when there is a clock.
    pub(super) fn charge_network(&mut self, limits: GoLimits) -> (GoLimits, Option<(u64, u64)>) {
        if limits.movetime.is_some() || limits.mate.is_some() || !limits.has_clock() {
            return (limits, None);
        }
        let black = self.game.black_to_move();
        let (main, inc) = limits.clock_of(black);
        let (other, _) = limits.clock_of(!black);
        let raw = (main.unwrap_or(0), inc.unwrap_or(0));
        self.gui_lag
            .clock(self.game.ply(), black, raw.0, other.unwrap_or(0));
        let configured = self.options.network_delay_ms;
        if let Some(line) = self.gui_lag.report(configured) {
            info!("{line}");
            self.say(line);
        }
        let delay = self.gui_lag.delay(configured);
        (deadline::charge_network(&limits, black, delay), Some(raw))
    }

    /// Our move was written: the GUI's next clock will say what it cost.
    pub(super) fn note_answered(&mut self, round: &Round) {
        let Some((main, inc)) = round.gui_clock else {
            return;
        };
        if round.kind != RoundKind::Play {
            return;
        }
        let took = round.started.elapsed().as_millis() as u64;
        let usable = !round.after_miss && !round.missed_ponder;
        let black = round.game.black_to_move();
        self.gui_lag
            .answered(round.game.ply(), black, main, inc, took, usable);
    }
}

/// The members' limits of a banked round (`G_TimeBank`): `member` (the plan's) with our main
/// time shortened by `percent`, or `None` when this clock does not bank.
pub(super) fn bank(
    gui: &GoLimits,
    black: bool,
    member: &GoLimits,
    percent: u64,
) -> Option<GoLimits> {
    if gui.movetime.is_some() || !gui.has_clock() {
        return None;
    }
    let (main, inc) = gui.clock_of(black);
    let clock = Clock {
        main: main.unwrap_or(0),
        opponent_main: 0,
        byoyomi: gui.byoyomi.unwrap_or(0),
        inc: inc.unwrap_or(0),
    };
    let (member_main, _) = member.clock_of(black);
    let banked = deadline::banked_main(&clock, member_main.unwrap_or(0), percent)?;
    let mut l = member.clone();
    if black {
        l.btime = Some(banked);
    } else {
        l.wtime = Some(banked);
    }
    Some(l)
}

/// The GUI's limits of a round with `elapsed` ms taken off our main time: the clock left to
/// search a banked round again with (`G_TimeBank`), planned like any clock by [`timing`].
pub(super) fn after_spending(gui: &GoLimits, black: bool, elapsed: u64) -> GoLimits {
    let mut l = gui.clone();
    let ours = if black { &mut l.btime } else { &mut l.wtime };
    *ours = ours.map(|t| t.saturating_sub(elapsed));
    l
}

/// The `go` limits one member is told: its `Engine<N>.Nodes` rule, then the margin it keeps
/// itself given back (see [`deadline::give_back`]).
pub(super) fn told(slot: &Slot, limits: &GoLimits, black: bool) -> GoLimits {
    deadline::give_back(&limits_for(&slot.spec, limits), black, own_margin(slot))
}

/// The member's own `NetworkDelay2` in ms: the last value set (config or GUI), else the default
/// it declared; 0 when it has no such option (or the value is not a number).
pub(super) fn own_margin(slot: &Slot) -> u64 {
    const NAME: &str = "NetworkDelay2";
    if let Some(set) = slot.settings.iter().rev().find(|o| o.name == NAME) {
        return set
            .value
            .as_deref()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .map_or(0, |v| v.max(0) as u64);
    }
    slot.options
        .iter()
        .find(|d| d.name == NAME)
        .and_then(|d| match d.kind {
            crate::usi::OptionKind::Spin { default, .. } => default,
            _ => None,
        })
        .map_or(0, |v| v.max(0) as u64)
}

/// Deadlines and the limits members get, for a GUI `go` from the side to move.
pub(super) fn timing(
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
pub(super) fn scale_limits(limits: &GoLimits, black: bool, f: f64) -> GoLimits {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spending_takes_the_time_off_our_main_time_only() {
        let gui = GoLimits {
            btime: Some(60_000),
            wtime: Some(50_000),
            ..Default::default()
        };
        let l = after_spending(&gui, true, 1_500);
        assert_eq!((l.btime, l.wtime), (Some(58_500), Some(50_000)));
        let l = after_spending(&gui, false, 70_000);
        assert_eq!((l.btime, l.wtime), (Some(60_000), Some(0)));
    }
}
