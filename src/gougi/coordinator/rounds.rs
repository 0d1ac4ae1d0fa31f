//! Rounds: planning a `go` (who searches what, with which clock), `stop`, `ponderhit`, the
//! timers and when a round is ready to decide.

use std::time::Duration;

use tokio::time::Instant;
use tracing::warn;

use crate::gougi::policy::{change_player, Behaviour, Shape};
use crate::gougi::{deadline, policy};
use crate::member::Role;
use crate::usi::{Checkmate, GoLimits, GuiCommand, MateLimit};

use super::limits::{bank, own_margin, scale_limits, timing, told};
use super::members::{send, start_search};
use super::state::{
    Round, RoundKind, SlotState, BUILTIN_MATE, GARBAGE_GRACE, KEEPALIVE, READY_LIMIT, STOP_GRACE,
    USI_WAIT,
};
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn on_stop(&mut self) {
        let Some(round) = &mut self.round else {
            // Nothing of ours is running; members may still be busy with late work.
            return;
        };
        let now = Instant::now();
        round.soft = Some(now);
        round.gui_stopped = true;
        // A stopped ponder is a ponder miss: the GUI discards this bestmove and sends the real
        // `go` next, so gougi answers at once with what it has instead of waiting STOP_GRACE
        // for members (one hung member would otherwise eat a second of the next move's time).
        let missed = round.kind == RoundKind::Ponder;
        round.missed_ponder = missed;
        if missed {
            // `G_MultiPonder`: the members on other replies keep pondering for the next `go`.
            self.park_on_miss();
        }
        let Some(round) = &mut self.round else { return };
        if let Some(solve) = &round.builtin_mate {
            // Its answer (the best line found so far, or timeout) follows within milliseconds.
            solve.stop();
        }
        round.hard = Some(if missed { now } else { now + STOP_GRACE });
        if matches!(round.kind, RoundKind::Ponder | RoundKind::Infinite) {
            round.kind = RoundKind::Play;
        }
        self.ponder_stopped = missed.then_some(now);
        self.on_timer();
        self.maybe_finish();
    }

    pub(super) fn on_ponderhit(&mut self, limits: GoLimits) {
        let Some(round) = &mut self.round else { return };
        if round.kind != RoundKind::Ponder {
            return;
        }
        // ShogiHome's early ponder carries the real clock on `ponderhit` (the GUI's delay is
        // taken off it here; a `go ponder`'s clock had it taken off at the `go`).
        let (clock_limits, gui_clock) = if limits.has_clock() {
            self.charge_network(limits.clone())
        } else {
            (round.limits.clone(), round.gui_clock)
        };
        let Some(round) = &mut self.round else { return };
        round.gui_clock = gui_clock;
        round.kind = RoundKind::Play;
        round.started = Instant::now();
        round.limits = GoLimits {
            ponder: false,
            ..clock_limits.clone()
        };
        let margin = self.options.margin_ms;
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
        let (id, command) = (round.id, round.game.command.to_string());
        let participants = round.participants.clone();
        // `G_MultiPonder`: the members that pondered another reply start this position now.
        let reaimed = self.reaim_on_ponderhit(&member_limits, margin);
        for &i in &participants {
            let slot = &mut self.slots[i];
            if reaimed.contains(&i) {
                continue;
            }
            if later.contains(&i) {
                // `Engine<N>.Ponder=false`: its search starts now, as a plain `go`.
                let limits = told(slot, &member_limits, black);
                start_search(slot, &command, &limits, id, false, black, margin);
            } else {
                let own = own_margin(slot);
                let hit = deadline::give_back(&hit, black, own);
                let hit = deadline::take_lag(&hit, black, slot.clock_extra(margin));
                let clock = deadline::answer_due(&hit, black, own).map(Duration::from_millis);
                send(slot, &GuiCommand::PonderHit(hit));
                slot.requests.ponderhit(Instant::now(), clock);
            }
        }
        self.split_ponderhit();
    }

    pub(super) fn on_go(&mut self, limits: GoLimits) {
        // The clock starts at the `go`'s arrival, before any restart below takes its time.
        let started = Instant::now();
        let after_miss = self.ponder_stopped.is_some() && !limits.ponder;
        // The GUI's clock as it came goes to `charge_network` (which learns from it): the
        // turnaround's odd milliseconds would make a CSA server's whole seconds look like a
        // clock that counts milliseconds, and teach a delay those seconds cannot show.
        let (limits, gui_clock) = self.charge_network(limits);
        let limits = self.charge_turnaround(limits, started);
        if let Some(old) = self.round.take() {
            warn!(
                round = old.id,
                "go while a round was running; the old round is abandoned"
            );
        }
        self.supervise();
        // The book answers a timed or limited `go` at once, before anyone is asked (not a
        // ponder, which must wait for `ponderhit`, nor analysis or `go mate`).
        let plain = !limits.ponder && !limits.infinite && limits.mate.is_none();
        if plain && self.position_refused.is_none() {
            if let Some(bestmove) = self.book_answer() {
                self.stop_all_searching();
                self.say(bestmove);
                return;
            }
        }
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
        let margin = self.options.margin_ms;
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
                    let (member, soft, hard) = deadline::plan_mate(ms, margin);
                    let l = GoLimits {
                        mate: Some(MateLimit::Time(member)),
                        ..Default::default()
                    };
                    (Some(soft), Some(hard), l)
                }
                _ => (None, None, limits.clone()),
            },
        };
        // A parked member's lines are its ponder's, which this round may adopt
        // (`adopt_parked` clears those it does not).
        for i in 0..self.slots.len() {
            if !self.is_parked(i) {
                self.slots[i].clear_round();
            }
        }
        let mut round = Round::new(id, kind, game, limits.clone(), started, (soft, hard));
        round.gui_clock = gui_clock;
        round.after_miss = after_miss;
        let policy = self.config.policy;
        self.timed_go = clocked(&limits);
        let normals = self.asked_normals();
        // `Engine<N>.SoloOption`: a member asked alone gets its solo values before its `go`
        // (in this round's every search of it: ponderhit, re-searches).
        for (i, slot) in self.slots.iter_mut().enumerate() {
            slot.solo.wanted = normals == [i];
        }
        let mut request = member_limits.clone();
        // `G_TimeBank`, for the types that spend a bank on a disagreement: the all-members
        // types ask everyone again (`spend_bank`), `leader` times its re-searches (`leader_next`).
        let banks = matches!(policy.shape(), Shape::All | Shape::Leader) && normals.len() >= 2;
        if kind == RoundKind::Play && banks {
            if let Some(banked) = bank(&limits, black, &request, self.options.time_bank_pct) {
                request = banked;
                round.banked = true;
            }
        }
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
            match policy.shape() {
                Shape::All => normals.clone(),
                Shape::Exchange => {
                    if kind == RoundKind::Play || kind == RoundKind::Ponder {
                        request =
                            scale_limits(&member_limits, black, deadline::EXCHANGE_FIRST_SHARE);
                        if let (Some(s), Some(_)) = (soft, hard) {
                            let (soft, hard) = deadline::exchange_phase1(s);
                            round.soft = Some(started + soft);
                            round.hard = Some(started + hard);
                        }
                    }
                    normals.iter().copied().take(2).collect()
                }
                Shape::ChangePlayer => {
                    // The catalogue gives every change-player type a rule (a unit test checks).
                    let rule = policy::rotation(policy, &self.options)
                        .unwrap_or(change_player::Rule::Every { plys: 1 });
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
                Shape::Mate => normals.iter().copied().take(1).collect(),
                Shape::Leader => self.leader_plan(&mut round, &normals, &mut request, soft),
                Shape::Split => self.split_plan(&mut round, &normals, &mut request, black),
            }
        };
        if self.position_refused.is_some() {
            round.participants.clear();
        } else if round.participants.is_empty() {
            self.say("info string [Error] no member is available; gougi answers by itself");
        }
        // `G_MultiPonder`: a `go ponder` spreads its members over the predicted replies; the
        // `go` after a missed ponder lets a member that pondered this reply go on.
        let assigned = self.assign_replies(&round);
        let mut started = self.start_multi_ponder(&mut round, assigned, &request, margin);
        if kind == RoundKind::Play {
            started.extend(self.adopt_parked(&mut round, &request));
        } else {
            self.stop_parked();
        }
        let command_line = round.game.command.to_string(); // once, however many members
        for &i in &round.participants {
            // Started already: by multi-ponder, or by the type on a position of its own
            // (split's leaves).
            if started.contains(&i) || round.elsewhere.contains_key(&i) {
                continue;
            }
            let slot = &mut self.slots[i];
            if kind == RoundKind::Ponder && !slot.spec.ponder {
                // A member that cannot ponder (Debian's gpsusi aborts on `go ponder`) waits
                // for `ponderhit`; a ponder miss never reaches it.
                round.ponder_later.push(i);
                continue;
            }
            let sfen_line;
            let position = if kind == RoundKind::Tsume
                && policy.info().mate_sfen
                && slot.spec.role == Role::Mate
            {
                sfen_line = round.game.sfen_command().to_string();
                &sfen_line
            } else {
                &command_line
            };
            start_search(
                slot,
                position,
                &told(slot, &request, black),
                id,
                kind == RoundKind::Tsume,
                black,
                margin,
            );
        }
        round.leader = round.participants.first().copied();
        self.round = Some(round);
        // The mate types' mate member, or `MateEngine.Guard`'s beside any type.
        let mate_member = self.slots.iter().any(|s| s.spec.role == Role::Mate);
        if mate_member && kind != RoundKind::Tsume {
            self.start_mate_search();
        }
        self.maybe_finish();
    }

    /// The usable normal members this `go` asks. Under a clock (any `go` but `nodes`, `depth`
    /// and `mate`), a member whose `Engine<N>.MinCores` exceeds this machine's logical CPUs
    /// sits the round out: members that share a core each think at a fraction of its speed, and
    /// three copies at a third of a core lose to one at a whole core (BENCHMARKS, "equal total
    /// CPU"). Bounded by nodes or depth, time is not what they share, so everyone plays. The
    /// first usable member always plays, whatever its `MinCores`. The GUI is told once.
    fn asked_normals(&mut self) -> Vec<usize> {
        let usable: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].spec.role == Role::Normal && self.slots[i].usable())
            .collect();
        if !self.timed_go {
            return usable;
        }
        let cores = self.cores;
        let first = usable.first().copied();
        let (asked, mut out): (Vec<usize>, Vec<usize>) = usable
            .into_iter()
            .partition(|&i| Some(i) == first || self.slots[i].spec.min_cores <= cores);
        // The guard's mate member (`MateEngine.MinCores`) is told with them.
        out.extend((0..self.slots.len()).filter(|&i| self.mate_sits_out(i)));
        if !out.is_empty() && !self.sitting_out_told {
            self.sitting_out_told = true;
            let names: Vec<String> = out
                .iter()
                .map(|&i| {
                    let s = &self.slots[i];
                    format!(
                        "E{} ({}, MinCores {})",
                        s.number(),
                        s.name,
                        s.spec.min_cores
                    )
                })
                .collect();
            self.say(format!(
                "info string [Info] {} sit{} out timed rounds: this machine has {cores} CPU{}",
                names.join(", "),
                if out.len() == 1 { "s" } else { "" },
                if cores == 1 { "" } else { "s" },
            ));
        }
        asked
    }

    /// Whether mate member `i` sits out: the guard's `MateEngine.MinCores` exceeds this machine's
    /// CPUs and the last `go` was under a clock (so a stale answer between rounds does not
    /// restart it either). On 2 cores the guard took the second core from a leader
    /// that could think with it (`Engine1.SoloOption.Threads=2`), and at these clocks a second
    /// search thread is worth far more than the mates the solver finds (BENCHMARKS, goal 6).
    pub(super) fn mate_sits_out(&self, i: usize) -> bool {
        let spec = &self.slots[i].spec;
        spec.role == Role::Mate && spec.min_cores > self.cores && self.timed_go
    }

    pub(super) fn next_timer(&self) -> Option<Instant> {
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
            t.extend(s.requests.hang_deadline());
            t.extend(s.garbage_at.map(|g| g + GARBAGE_GRACE));
        }
        t.extend(self.ready_pending);
        t.extend(self.next_keepalive);
        if let Some(r) = &self.round {
            if !r.stop_sent {
                t.extend(r.soft);
                t.extend(self.lag_stops(r));
            }
            t.extend(r.hard);
        }
        t.extend(self.mates.mateinfo.iter().map(|m| m.2));
        t.extend(self.relay_cap.next_release());
        t.into_iter().min()
    }

    pub(super) fn on_timer(&mut self) {
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
        match self.round.as_ref().map(|r| r.id) {
            Some(id) => {
                for line in self.relay_cap.release(id, now) {
                    self.say(line);
                }
            }
            None => self.relay_cap.end_round(),
        }
        self.stop_at_soft_deadlines(now);
        self.maybe_finish();
    }

    pub(super) fn maybe_finish(&mut self) {
        // A rest searched move by move goes on to its next position first.
        self.split_advance();
        let Some(round) = &self.round else { return };
        // Every participant answered only if there are as many answers (keys are distinct):
        // counting first spares a lookup per participant at every answer.
        let got = match round.kind {
            RoundKind::Tsume => round.checkmates.len(),
            _ => round.answers.len(),
        };
        let all_in = got >= round.participants.len()
            && round.participants.iter().all(|p| match round.kind {
                RoundKind::Tsume => round.checkmates.contains_key(p),
                _ => round.answers.contains_key(p),
            })
            && round.builtin_mate.is_none();
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
        if all_in && !hard_passed && self.spend_bank() {
            return;
        }
        let round = self.round.take().expect("checked above");
        if round.kind == RoundKind::Tsume {
            self.finish_tsume(round);
            return;
        }
        if self.config.mate_guard && self.waits_for_mate(&round) {
            self.round = Some(round);
            return;
        }
        if let Some(round) = self.finish_guarded(round) {
            self.finish_by_shape(round);
        }
    }

    /// The type's own decision for a round that is ready (or the next phase of its round).
    fn finish_by_shape(&mut self, round: Round) {
        match self.config.policy.shape() {
            Shape::Exchange
                if round.exchange.is_none()
                    && round.participants.len() == 2
                    && round.answers.len() == 2 =>
            {
                self.exchange_phase1(round)
            }
            Shape::Exchange if round.exchange.is_some() => self.exchange_phase2(round),
            Shape::Mate => self.finish_mate(round),
            Shape::Leader => self.finish_leader(round),
            Shape::Split => self.finish_split(round),
            _ => self.finish_all(round),
        }
    }
}

/// Under a clock: any `go` but `nodes`, `depth` and `mate`, where members share time and cores.
fn clocked(limits: &GoLimits) -> bool {
    limits.nodes.is_none() && limits.depth.is_none() && limits.mate.is_none()
}
