//! Round deadlines: how long members may think, and when gougi decides without them.
//!
//! gougi must never lose on time because of a member (GougiShogi §12.1). For a `go` with a
//! clock we compute, from the time gougi itself has for this move:
//!
//! ```text
//! available  = our main time + byoyomi            (the GUI flags us after this)
//! members    = available − margin                  (the clock members are told, see below)
//! soft       = min(members, main/4 + byoyomi + inc)    → `stop` to members still thinking
//! hard       = min(soft + margin/2, available − margin/2) → decide with the answers we have
//! ```
//!
//! Members see a clock shortened by the margin: main time first, then byoyomi, so a member
//! that spends its whole allowance still answers `margin` before gougi's flag falls. The soft
//! cap `main/4 + byoyomi + inc` bounds what a hung member can cost in sudden death, where
//! `members` alone would be the whole clock. It is the built-in search's own hard limit
//! ([`crate::search::timeman::MAX_CLOCK_DIVISOR`]): a tighter cap (it was `main/10`) stopped the
//! member at half of what the engine alone spends on a hard move (300 ms of 600 at 2 s + 0.1 s),
//! so the consultation played a Fischer game with less thought than its opponent. The increment is not counted as available, because GUIs differ
//! on whether it is added before or after the move. The margin (`G_Margin`) covers the pipe
//! round trips, gougi's decision and the GUI's own delay.
//!
//! A member that keeps a margin of its own (`NetworkDelay2`, YaneuraOu's name for "stop this
//! long before the clock runs out") would stack it on `G_Margin`: [`give_back`] adds it to the
//! clock the member is told, so its own hard limit falls where gougi's plan puts it. gougi's
//! `stop` at the soft deadline still bounds a member whose option means something else.
//!
//! The other limits are planned here too, so that every sum of the clock is in this file:
//! `go movetime` ([`plan_movetime`]), `go mate` ([`plan_mate`]), the exchange rule's two
//! phases ([`exchange_phase1`], [`exchange_phase2`]), the leader's first phase and re-searches
//! ([`leader_phase1`], [`leader_share`]; under `go nodes`, [`leader_nodes`] and
//! [`leader_nodes_share`]) and time banking ([`banked_main`], [`leader_bank`],
//! [`bank_share`]).

use std::time::Duration;

/// Default `G_Margin`, ms. It has the size of a bare `gougi search`'s `NetworkDelay2`
/// ([`crate::search::timeman::DEFAULT_NETWORK_DELAY2`]), so the built-in member (which keeps no
/// margin of its own) thinks as long as the engine alone would. What it must cover was measured
/// on the pipe: gougi's relay adds 0.05 ms at the median and 0.14 ms at p99 (`gougi bench
/// proxy`), the member's own overrun of its limit is at most ~56 ms on a loaded machine (p99
/// 28 ms; BENCHMARKS "Time"), and gougi decides at `available − margin/2` at the latest, with
/// the leader's current line if the member is late. So 60 ms is ~2× the member's p99 overrun
/// under load and >100× the relay's; YaneuraOu's 120 + 1120 are a network GUI's margins.
pub const DEFAULT_MARGIN_MS: u64 = 60;

/// Default `G_NetworkDelay`, ms: what the GUI's clock runs beyond gougi's own time on every
/// move through a CSA server, taken off the clock before [`plan`] (see `gui_lag`). Through
/// floodgate's `shogi-server` and ShogiHome's bridge the server read gougi's move this much
/// later than gougi wrote it: the network both ways (up to 2 × 50 ms here), the server's delay
/// in sending the previous move (it starts the clock when it queues the move: up to 39 ms idle,
/// 80 ms loaded) and the bridge (1–3 ms): 106–201 ms in all at load 6, up to 276 ms with the
/// 2-core box that ran server, bridges and gougi at load 10–12. With gougi deciding
/// `G_Margin / 2` before the end of its clock, 300 keeps even that path inside the GUI's clock
/// (issue 65's bench in BENCHMARKS). A GUI clock that counts milliseconds replaces it with the
/// delay it shows.
pub const DEFAULT_NETWORK_DELAY_MS: u64 = 300;

/// Time banking (`G_TimeBank`, `percent` > 0): the main time members are told on a first
/// search, `percent` less than the plan's. Their own time managers then spend that much less on
/// every move, and what they do not spend stays on gougi's clock: the bank. When the answers
/// disagree the move is searched again with the whole clock (see the coordinator's rounds), so
/// the bank goes to the moves where the consultation is unsure. Only a clock with main time and
/// no byoyomi banks: byoyomi unused on one move is lost, not carried to the next, so there is
/// nothing to bank (`None` then, and members get the plan's clock).
pub fn banked_main(clock: &Clock, member_main: u64, percent: u64) -> Option<u64> {
    if percent == 0 || clock.main == 0 || clock.byoyomi > 0 {
        return None;
    }
    let keep = 100 - percent.min(100);
    Some(member_main.min(MAX_CLOCK_MS) * keep / 100)
}

/// The clock a member is told, given the plan's `limits` (already shortened by `G_Margin`)
/// and the member's own `NetworkDelay2` (`own`, ms): `own` goes back on its byoyomi when there
/// is one (so a member living on byoyomi still sees it as such), else on our main time. No
/// clock (`go nodes`, `movetime`, `mate`): unchanged, since `NetworkDelay2` does not apply.
pub fn give_back(limits: &crate::usi::GoLimits, black: bool, own: u64) -> crate::usi::GoLimits {
    let mut l = limits.clone();
    if own == 0 || l.mate.is_some() || l.movetime.is_some() || !l.has_clock() {
        return l;
    }
    let own = own.min(MAX_CLOCK_MS);
    let add = |v: Option<u64>| {
        Some(
            v.unwrap_or(0)
                .min(MAX_CLOCK_MS)
                .saturating_add(own)
                .min(MAX_CLOCK_MS),
        )
    };
    if l.byoyomi.is_some_and(|b| b > 0) {
        l.byoyomi = add(l.byoyomi);
    } else if black {
        l.btime = add(l.btime);
    } else {
        l.wtime = add(l.wtime);
    }
    l
}

/// What a member's learned answer lag ([`crate::gougi::lag`], `estimate` ms) costs it: the
/// part the margin does not already pay. `G_Margin` was sized for a local member's own overrun
/// (gougi decides at `available − margin/2`, so an answer up to `margin/2` after the member's
/// clock ran out is still in); only the lag beyond that is taken off the member's clock, and
/// the member is stopped that much earlier. A local member (lag a few ms) is told what it was
/// always told.
pub fn lag_extra(estimate: u64, margin: u64) -> u64 {
    estimate.saturating_sub(margin.min(MAX_CLOCK_MS) / 2)
}

/// The clock a member is told with `extra` ms ([`lag_extra`]) taken off, so that its answer,
/// late by its lag, still reaches gougi in time: from its byoyomi when it has one (the end of
/// its clock), else from its `movetime`, else from our main time. Never more than half of the
/// field it comes from: a wrong estimate may shorten a member's thought, never take all of it.
/// `go nodes`/`depth`/`mate`/`infinite` (no clock): unchanged.
pub fn take_lag(limits: &crate::usi::GoLimits, black: bool, extra: u64) -> crate::usi::GoLimits {
    let mut l = limits.clone();
    if extra == 0 || l.mate.is_some() || l.infinite {
        return l;
    }
    let take = |v: &mut Option<u64>| {
        if let Some(t) = v {
            let t0 = (*t).min(MAX_CLOCK_MS);
            *t = t0 - extra.min(t0 / 2);
        }
    };
    if l.movetime.is_some() {
        take(&mut l.movetime);
    } else if l.byoyomi.is_some_and(|b| b > 0) {
        take(&mut l.byoyomi);
    } else if black {
        take(&mut l.btime);
    } else {
        take(&mut l.wtime);
    }
    l
}

/// The longest wait between a missed ponder's `stop` and the next `go` that [`spent`] charges
/// to gougi's clock. A GUI answers a stopped ponder's `bestmove` with `position` and `go` within
/// milliseconds; a longer gap means the GUI was not timing this move (a paused game, a human
/// who typed the command), and charging it would only throw the move's thought away.
pub const TURNAROUND_LIMIT_MS: u64 = 1000;

/// The GUI's clock `ms` after it was sent: on a ponder miss the GUI's clock has run since the
/// opponent's move, so the time from `stop` to the next `go` (the GUI's own turnaround) is
/// ours, though the `go` still carries the clock as of the opponent's move. It comes off the
/// side to move's main time first, then its byoyomi (as a GUI spends them), or off `movetime`.
/// The increment is untouched (it is added after the move). No clock: unchanged.
pub fn spent(limits: &crate::usi::GoLimits, black: bool, ms: u64) -> crate::usi::GoLimits {
    let mut l = limits.clone();
    if ms == 0 || l.mate.is_some() || l.infinite {
        return l;
    }
    let mut left = ms.min(MAX_CLOCK_MS);
    let mut take = |v: &mut Option<u64>| {
        if let Some(t) = v {
            let t0 = (*t).min(MAX_CLOCK_MS);
            let used = left.min(t0);
            *t = t0 - used;
            left -= used;
        }
    };
    if l.movetime.is_some() {
        take(&mut l.movetime);
        return l;
    }
    if !l.has_clock() {
        return l;
    }
    take(if black { &mut l.btime } else { &mut l.wtime });
    take(&mut l.byoyomi);
    l
}

/// At most this part of the move's clock (main time and byoyomi) goes to the GUI's delay: a
/// CSA server's byoyomi is whole seconds, so below 1 s the clock is a local GUI's (a bullet
/// test at byoyomi 200 would otherwise be left nothing to think with), and at 1 s the default
/// delay is exactly this share.
pub const NETWORK_SHARE_DIVISOR: u64 = 4;

/// The GUI's clock with the GUI's delay (`G_NetworkDelay` or the learned one, `delay` ms) taken
/// off as if already spent ([`spent`]: main time first, then byoyomi), at most
/// 1/[`NETWORK_SHARE_DIVISOR`] of the move's clock. Only a game clock is charged: `movetime`,
/// `go mate`, `infinite` and clock-less limits are returned unchanged.
pub fn charge_network(
    limits: &crate::usi::GoLimits,
    black: bool,
    delay: u64,
) -> crate::usi::GoLimits {
    if limits.movetime.is_some() || !limits.has_clock() {
        return limits.clone();
    }
    let (main, _) = limits.clock_of(black);
    let clock = main
        .unwrap_or(0)
        .min(MAX_CLOCK_MS)
        .saturating_add(limits.byoyomi.unwrap_or(0).min(MAX_CLOCK_MS));
    spent(limits, black, delay.min(clock / NETWORK_SHARE_DIVISOR))
}

/// When a member told `limits` must have answered, in ms after its `go` was sent: the end of
/// its clock (our main time and byoyomi, or `movetime`) less `own`, its `NetworkDelay2`, which
/// [`give_back`] added to that clock. `None` without a clock (`go nodes`, `infinite`, `mate`).
/// A `go ponder`'s clock starts at `ponderhit`. The lag of an answer is measured from here.
pub fn answer_due(limits: &crate::usi::GoLimits, black: bool, own: u64) -> Option<u64> {
    if limits.mate.is_some() || limits.infinite {
        return None;
    }
    if let Some(t) = limits.movetime {
        return Some(t.min(MAX_CLOCK_MS));
    }
    if !limits.has_clock() {
        return None;
    }
    let (main, _) = limits.clock_of(black);
    let end = main
        .unwrap_or(0)
        .min(MAX_CLOCK_MS)
        .saturating_add(limits.byoyomi.unwrap_or(0).min(MAX_CLOCK_MS));
    Some(end.saturating_sub(own.min(MAX_CLOCK_MS)))
}

/// The soft deadline is at most `main / SOFT_CAP_DIVISOR + byoyomi + inc` (see the module notes):
/// the built-in search's own cap (`search::timeman::MAX_CLOCK_DIVISOR`; a test checks they are
/// equal, since `gougi` does not import `search`), so gougi does not stop it (by more than the
/// margin) before it would stop by itself.
pub const SOFT_CAP_DIVISOR: u64 = 4;

/// Every input (clock fields, margin, movetime) is capped at this before any arithmetic.
pub const MAX_CLOCK_MS: u64 = crate::usi::MAX_TIME_MS;

/// The clock fields of a `go` from gougi's point of view (milliseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Our remaining main time.
    pub main: u64,
    /// Our opponent's remaining main time (passed through unchanged).
    pub opponent_main: u64,
    pub byoyomi: u64,
    /// Our Fischer increment.
    pub inc: u64,
}

/// The time plan of one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Main time to send members for our side.
    pub member_main: u64,
    /// Byoyomi to send members.
    pub member_byoyomi: u64,
    /// From the start of the round: send `stop` to members that have not answered.
    pub soft: Duration,
    /// From the start of the round: decide without the members that still have not answered.
    pub hard: Duration,
}

/// Plan a timed round. `margin` is `G_Margin` in milliseconds.
///
/// Total for any input: every field and the margin are first capped at [`MAX_CLOCK_MS`] (a GUI
/// may send `btime 18446744073709551615`), and the sums saturate, so the plan always has
/// `soft <= hard <= main + byoyomi` and gives members no more than our own clock.
pub fn plan(clock: Clock, margin: u64) -> Plan {
    let main = clock.main.min(MAX_CLOCK_MS);
    let byoyomi = clock.byoyomi.min(MAX_CLOCK_MS);
    let inc = clock.inc.min(MAX_CLOCK_MS);
    let available = main.saturating_add(byoyomi);
    // A margin larger than half the clock would leave members nothing: cap it there.
    let margin = margin.min(available / 2);
    // Take the margin from the main time first, then from byoyomi, never below zero.
    let from_main = margin.min(main);
    let member_main = main - from_main;
    let member_byoyomi = byoyomi.saturating_sub(margin - from_main);
    let members = member_main.saturating_add(member_byoyomi);
    let cap = (main / SOFT_CAP_DIVISOR)
        .saturating_add(byoyomi)
        .saturating_add(inc);
    let soft = members.min(cap);
    let hard = soft
        .saturating_add(margin / 2)
        .min(available - margin / 2)
        .max(soft);
    Plan {
        member_main,
        member_byoyomi,
        soft: Duration::from_millis(soft),
        hard: Duration::from_millis(hard),
    }
}

/// Plan for `go movetime T`: members get `movetime T − margin`, stopped at that point.
/// Inputs are capped at [`MAX_CLOCK_MS`] like [`plan`]'s.
pub fn plan_movetime(movetime: u64, margin: u64) -> (u64, Duration, Duration) {
    let movetime = movetime.min(MAX_CLOCK_MS);
    let margin = margin.min(MAX_CLOCK_MS);
    let member = member_share(movetime, margin);
    let hard = member
        .saturating_add(margin / 2)
        .min(movetime.saturating_sub(margin / 4))
        .max(member);
    (
        member,
        Duration::from_millis(member),
        Duration::from_millis(hard),
    )
}

/// What members get of a fixed time limit: the limit less the margin, but never less than half
/// of it (a margin larger than the limit would leave them nothing).
fn member_share(limit: u64, margin: u64) -> u64 {
    limit.saturating_sub(margin).max(limit / 2)
}

/// Plan for `go mate T`: members get [`plan_movetime`]'s share of `T`, stopped at that point;
/// gougi answers by `T − margin/2` (never before the members' share ends). Unlike a move, a
/// `checkmate` answer has no relay to protect beyond that, so the hard deadline is not pulled
/// in towards the members' share. Inputs are capped at [`MAX_CLOCK_MS`].
pub fn plan_mate(limit: u64, margin: u64) -> (u64, Duration, Duration) {
    let limit = limit.min(MAX_CLOCK_MS);
    let margin = margin.min(MAX_CLOCK_MS);
    let member = member_share(limit, margin);
    let hard = limit.saturating_sub(margin / 2).max(member);
    (
        member,
        Duration::from_millis(member),
        Duration::from_millis(hard),
    )
}

/// Exchange rule (`Shape::Exchange`), phase 1: each member searches its own move on this share
/// of the clock (main time, increment, byoyomi) and of the round's soft deadline, so that
/// phase 2 (each member rating the other's move) has the rest.
pub const EXCHANGE_FIRST_SHARE: f64 = 0.45;

/// Exchange rule, phase 1: its hard deadline as a share of the round's soft deadline (members
/// still thinking at the phase's soft deadline get this much longer to answer).
pub const EXCHANGE_FIRST_HARD: f64 = 0.5;

/// Phase 1 of an exchange round: (soft, hard) from the round's soft deadline `soft`.
pub fn exchange_phase1(soft: Duration) -> (Duration, Duration) {
    (
        soft.mul_f64(EXCHANGE_FIRST_SHARE),
        soft.mul_f64(EXCHANGE_FIRST_HARD),
    )
}

/// Exchange rule, phase 2, from `left` (the time to the round's hard deadline): the byoyomi
/// each member gets to rate the other's move, which is also the phase's soft deadline — half
/// the margin kept for the decision and the relay, then 90 % of the rest, leaving room for the
/// answers to come in — and the phase's hard deadline, a quarter margin before the round's.
pub fn exchange_phase2(left: Duration, margin: u64) -> (Duration, Duration) {
    let margin = Duration::from_millis(margin.min(MAX_CLOCK_MS));
    (
        left.saturating_sub(margin / 2).mul_f64(0.9),
        left.saturating_sub(margin / 4),
    )
}

/// `leader` under a clock: the share of the clock (and of the soft deadline) the first phase
/// (every member) gets; the leader's re-searches get the rest.
pub const LEADER_FIRST_SHARE: f64 = 0.75;

/// `leader`'s first phase: its soft deadline from the round's (the hard deadline stays: the
/// re-searches end by it).
pub fn leader_phase1(soft: Duration) -> Duration {
    soft.mul_f64(LEADER_FIRST_SHARE)
}

/// `leader`'s next re-search: an equal share of what is left before the round's hard deadline
/// (`left`) for each of the `searches` still to run, after half the margin and with 10 % kept
/// for the answers to come in, as in [`exchange_phase2`].
pub fn leader_share(left: Duration, margin: u64, searches: u32) -> Duration {
    exchange_phase2(left, margin).0 / searches.max(1)
}

/// `leader` under `go nodes n` with `members` members asked: the first phase's nodes and the
/// reserve its re-searches share, `(first, reserve)`, `first + reserve = n`. Every search a
/// member runs counts against its budget (ARCHITECTURE "Cluster frame": a member is a machine
/// of its own and `n` what it searches in a move's time), so the leader's re-searches come out
/// of `n`, not on top of it. As under a clock the first phase gets [`LEADER_FIRST_SHARE`] and
/// the re-searches the rest, but the reserve is never more than they can spend: at most
/// `members` re-searches (the leader's own move and one candidate per other member) of at most
/// `leader_nodes` (`G_LeaderNodes`) each; the first phase keeps the rest.
pub fn leader_nodes(n: u64, members: usize, leader_nodes: u64) -> (u64, u64) {
    // At least one node for the first phase: `go nodes 0` means no limit to some engines.
    let first_share = ((n as f64 * LEADER_FIRST_SHARE) as u64).max(1).min(n);
    let most = (members as u64).saturating_mul(leader_nodes);
    let reserve = n.saturating_sub(first_share).min(most);
    (n - reserve, reserve)
}

/// `leader` under `go nodes`: the next of `searches` re-searches gets an equal share of the
/// reserve `left`, at most `cap` (`G_LeaderNodes`) and at least 1 node while any is left
/// (`go nodes 0` means no limit to some engines; the caller starts none with `left` 0).
pub fn leader_nodes_share(left: u64, searches: u32, cap: u64) -> u64 {
    (left / u64::from(searches.max(1)))
        .max(1)
        .min(cap.max(1))
        .min(left)
}

/// `leader` with `G_TimeBank` (`percent` > 0): how long its re-searches may take together,
/// from the first phase's time `first`. The members thought `percent` less than the plan on
/// their banked clock, so `first · 100 / (100 − percent)` is about what they would have taken
/// on the whole clock: a move the members disagree on gets that again, to re-search the
/// candidates, as the all-members types search it again with the whole clock. A move they
/// agree on leaves the difference on gougi's clock.
pub fn leader_bank(first: Duration, percent: u64) -> Duration {
    let keep = 100 - percent.clamp(1, 90);
    first.mul_f64(100.0 / keep as f64)
}

/// The shortest timed re-search `leader` starts from its bank (ms): a smaller byoyomi would
/// end before a search has a move, and `byoyomi 0` means no byoyomi to some engines.
pub const LEADER_BANK_MIN_MS: u64 = 10;

/// One of `searches` timed re-searches still to run: an equal share of the bank `left`.
pub fn bank_share(left: Duration, searches: u32) -> Duration {
    (left / searches.max(1)).max(Duration::from_millis(LEADER_BANK_MIN_MS))
}

// The tests are a file of their own: with them inline this file passed the 600-line bound
// (ARCHITECTURE "Layout").
#[cfg(test)]
mod tests;
