//! The USI session with the GUI: `usi`, `setoption`, `isready`, `gameover` and the members'
//! options as the GUI sees them.

use super::*;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn try_answer_usi(&mut self) {
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

    pub(super) fn on_setoption(&mut self, opt: SetOption) {
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

    pub(super) fn on_isready(&mut self) {
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

    pub(super) fn try_answer_ready(&mut self) {
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
    pub(super) fn fresh_chances(&mut self) {
        for slot in &mut self.slots {
            slot.failures = 0;
            if slot.state == SlotState::Dead && slot.restart_at.is_none() {
                slot.restart_at = Some(Instant::now());
            }
        }
        self.restart_dead();
    }

    pub(super) fn on_gameover(&mut self, result: GameResult) {
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

    pub(super) fn broadcast(&mut self, cmd: &GuiCommand) {
        for slot in &mut self.slots {
            if matches!(slot.state, SlotState::Ready | SlotState::Readying) {
                send(slot, cmd);
            }
        }
    }
}
