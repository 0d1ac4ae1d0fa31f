//! Members' lives: requests owed, stop, hang detection, restarts with back-off, and the
//! `go` each member gets.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::gougi::deadline;
use crate::member::{Launcher, MemberEvent, MemberSpec, NodesRule};
use crate::usi::{GoLimits, GuiCommand, SetOption};

use super::limits::own_margin;
use super::requests::Request;
use super::state::{Slot, SlotState, BACKOFF_CAP, HANDSHAKE_LIMIT, MAX_FAILURES, READY_LIMIT};
use super::{solo, Coordinator};

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn on_exit(&mut self, i: usize, code: Option<i32>) {
        let slot = &mut self.slots[i];
        if slot.state == SlotState::Dead {
            return;
        }
        slot.handle = None;
        let code = code.map_or("a signal".to_string(), |c| format!("code {c}"));
        warn!(member = slot.spec.number, name = %slot.name, %code, "member exited");
        self.lose_member(i, &format!("exited with {code};"));
        self.try_answer_usi();
        self.try_answer_ready();
    }

    /// Member `i`'s process is gone (it exited, or gougi killed it): forget what that process
    /// owed, count the failure and plan the restart (none once gougi is [ending](Self::ending)),
    /// tell the GUI (`happened`, with its own punctuation, then what follows: `restarting it in
    /// 2 s`), and leave it out of the round.
    fn lose_member(&mut self, i: usize, happened: &str) {
        let ending = self.ending();
        let slot = &mut self.slots[i];
        slot.state = SlotState::Dead;
        slot.requests.clear();
        slot.awaiting_ready = false;
        slot.ready_since = None;
        slot.garbage_at = None;
        let what = if ending {
            slot.restart_at = None;
            "not restarted: gougi is ending".to_string()
        } else {
            schedule_restart(slot)
        };
        let line = format!("info string [Error] {} {happened} {what}", slot.label());
        self.say(line);
        self.mates.busy.remove(&i);
        if let Some(round) = &mut self.round {
            round.participants.retain(|&p| p != i);
            if round.leader == Some(i) {
                round.leader = round.participants.first().copied();
            }
        }
    }

    pub(super) fn on_usiok(&mut self, i: usize) {
        // A restarted member, or one whose `usiok` came after the GUI's `isready`, is made
        // ready by gougi itself before it joins a round.
        let get_ready = self.slots[i].restarts > 0 || self.isready_seen;
        self.apply_config_options(i, !get_ready);
        self.check_solo_options(i);
        let slot = &mut self.slots[i];
        for o in slot.settings.clone() {
            if slot.config_unsent.contains(&o.name) {
                continue; // sent at the GUI's `isready` (see `apply_config_options`)
            }
            send(slot, &GuiCommand::SetOption(o));
        }
        if get_ready {
            slot.state = SlotState::Readying;
            slot.ready_since = Some(Instant::now());
            slot.ready_said = 0;
            send(slot, &GuiCommand::IsReady);
        } else {
            slot.state = SlotState::Ready;
        }
        self.try_answer_usi();
    }

    /// `Engine<N>.Option.<Name>=<value>`, once the member has declared its options: the value
    /// becomes the declared default (so the GUI's `E<N>_<Name>` shows it) and a setting sent
    /// before `isready` — unless the GUI has set `E<N>_<Name>` (kept in `settings` across a
    /// restart). It also counts as the member's own setting, so the shared `USI_Hash`/`Threads`
    /// budget leaves it alone. A name the member does not declare, or a value its declaration
    /// refuses, is a warning naming the config line (only at the first start). With `defer`
    /// (the GUI has not sent `isready` yet) the settings wait in `config_unsent` for it.
    fn apply_config_options(&mut self, i: usize, defer: bool) {
        let first_start = self.slots[i].restarts == 0;
        let slot = &mut self.slots[i];
        if !defer {
            // Made ready now (a restart, or a late member): everything is replayed at once.
            slot.config_unsent.clear();
        }
        let mut warnings = Vec::new();
        for o in &slot.spec.options {
            let (k, value) = match checked_config_value(slot, o) {
                Ok(found) => found,
                Err(w) => {
                    warnings.push(w);
                    continue;
                }
            };
            let decl = &mut slot.options[k];
            decl.set_default(&value);
            slot.explicit.insert(o.name.clone());
            if !slot.settings.iter().any(|s| s.name == o.name) {
                slot.settings.push(SetOption {
                    name: o.name.clone(),
                    value: value.to_value_text(),
                });
                if defer {
                    slot.config_unsent.push(o.name.clone());
                }
            }
        }
        if first_start {
            for w in warnings {
                warn!("{w}");
                self.say(format!("info string [Warning] {w}"));
            }
        }
    }

    pub(super) fn owes_current(&self, i: usize) -> bool {
        let current = self.round.as_ref().map(|r| r.id);
        self.slots[i]
            .requests
            .front()
            .is_some_and(|r| Some(r.round) == current)
    }

    /// Member `i` answered: its oldest request, when that was for the current round.
    pub(super) fn take_request(&mut self, i: usize) -> Option<Request> {
        let req = self.slots[i].take_answer();
        self.tell_lag(i);
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

    /// Stop every member that still owes an answer, so none keeps searching a stale position.
    /// Members parked by `G_MultiPonder` after a missed ponder keep searching: the next `go`
    /// adopts or stops them ([`Self::adopt_parked`]); `gameover` stops them first.
    pub(super) fn stop_all_searching(&mut self) {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            if self.slots[i].usable() && !self.is_parked(i) {
                stop_search(&mut self.slots[i], now);
            }
        }
        self.mates
            .busy
            .retain(|&i, _| !self.slots[i].requests.is_empty());
    }

    /// Members' health, on every timer and `go`: kill what hangs — no answer [`HUNG_AFTER`]
    /// after `stop`, no `usiok` by [`HANDSHAKE_LIMIT`], no `readyok` by [`READY_LIMIT`] — and
    /// start the dead whose back-off has passed.
    pub(super) fn supervise(&mut self) {
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
            } else if slot.requests.hang_deadline().is_some_and(|t| now >= t) {
                Some("does not answer after stop")
            } else {
                None
            };
            let Some(why) = why else { continue };
            warn!(member = slot.spec.number, why, "member hangs; killing it");
            kill(slot);
            self.lose_member(i, &format!("hangs ({why}); killed,"));
        }
        self.restart_dead();
        self.try_answer_usi();
        self.try_answer_ready();
    }

    /// gougi has begun to end: the GUI sent `quit` or its input ended, or an exit signal or
    /// console event came (`process::ending`). No member starts again from here (issue 65): a
    /// member dies as gougi ends — killed by a console handler, or crashing while the last `go`
    /// is answered after the input's end — and a replacement would only be killed a moment
    /// later; on Windows one started as Ctrl-C killed the members outlived gougi.
    pub(super) fn ending(&self) -> bool {
        self.quitting || self.input_closed || crate::member::process::ending()
    }

    /// Start every dead member whose back-off has passed, unless gougi is [ending](Self::ending).
    pub(super) fn restart_dead(&mut self) {
        if self.ending() {
            return;
        }
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
                if let crate::member::MemberError::Ending { .. } = e {
                    // gougi began to end since the check above (a console event's thread).
                    continue;
                }
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
pub(super) fn schedule_restart(slot: &mut Slot) -> String {
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

pub(super) fn launch(
    slot: &mut Slot,
    events: &mpsc::UnboundedSender<MemberEvent>,
    launcher: &mut Launcher,
) -> Result<(), crate::member::MemberError> {
    slot.requests.clear();
    // A new process holds its usual values (its settings are replayed at `usiok`).
    slot.solo.held.clear();
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

pub(super) fn kill(slot: &mut Slot) {
    if let Some(h) = slot.handle.take() {
        h.kill();
    }
    slot.state = SlotState::Dead;
}

/// A config value for the member's option `o` (`Engine<N>.Option.*` or `.SoloOption.*`), checked
/// against what the member declares: the declaration's index and the value, or the warning —
/// naming the config line and key — when it declares no such option or refuses the value.
pub(super) fn checked_config_value(
    slot: &Slot,
    o: &crate::member::MemberOption,
) -> Result<(usize, crate::usi::OptionValue), String> {
    let where_ = format!("{}: {}", o.origin(), o.key(slot.spec.number));
    let Some(k) = slot.options.iter().position(|d| d.name == o.name) else {
        return Err(format!(
            "{where_}: {} declares no option {}; not sent",
            slot.label(),
            o.name
        ));
    };
    match slot.options[k].check_value(Some(&o.value)) {
        Ok(v) => Ok((k, v)),
        Err(e) => Err(format!("{where_}: {e}; not sent")),
    }
}

pub(super) fn send(slot: &mut Slot, cmd: &GuiCommand) {
    if let Some(h) = &slot.handle {
        let cp932 = matches!(cmd, GuiCommand::SetOption(o) if slot.cp932.contains(&o.name));
        let sent = if cp932 {
            h.send_cp932(cmd)
        } else {
            h.send(cmd)
        };
        if let Err(e) = sent {
            debug!(member = slot.spec.number, error = %e, "send failed");
        }
    }
}

pub(super) fn send_line(slot: &mut Slot, line: &str) {
    if let Some(h) = &slot.handle {
        let _ = h.send_line(line);
    }
}

/// Send `stop` to a member whose newest search was not told to stop yet (none to one that owes
/// nothing): exactly one `stop` per request.
pub(super) fn stop_search(slot: &mut Slot, now: Instant) {
    if slot.requests.stop(now) {
        send(slot, &GuiCommand::Stop);
    }
}

/// Send `position` + `go` for round `round` (`mate`: a `go mate`), stopping first if the member
/// still owes an earlier answer; between the two, the `setoption`s its
/// `Engine<N>.SoloOption`s need this round ([`solo::sync`]). The clock in `limits` is shortened
/// by the member's learned answer lag beyond what `margin` (`G_Margin`) covers
/// ([`deadline::take_lag`]; `black`: the side to move in `position`, whose main time it is), and
/// the request remembers when that clock runs out, to measure the answer's lag against.
pub(super) fn start_search(
    slot: &mut Slot,
    position: &str,
    limits: &GoLimits,
    round: u64,
    mate: bool,
    black: bool,
    margin: u64,
) {
    if slot.garbage_at.is_some() {
        // Its broken `bestmove` answered the request it owed.
        slot.take_answer();
    }
    let now = Instant::now();
    if let Some(at_least) = slot.requests.overdue(now) {
        slot.clock_lag.record(at_least.as_secs_f64() * 1000.0);
        debug!(member = slot.spec.number, lag_ms = ?at_least, "answer overdue at the next go");
    }
    stop_search(slot, now);
    solo::sync(slot);
    let limits = deadline::take_lag(limits, black, slot.clock_extra(margin));
    let clock = deadline::answer_due(&limits, black, own_margin(slot)).map(Duration::from_millis);
    let ponder = limits.ponder;
    send_line(slot, position);
    send(slot, &GuiCommand::Go(limits));
    slot.requests.push(round, mate, now, clock, ponder);
}

/// The `go` limits one member gets, after its `Engine<N>.Nodes` rule.
pub(super) fn limits_for(spec: &MemberSpec, limits: &GoLimits) -> GoLimits {
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
