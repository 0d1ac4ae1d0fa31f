//! The USI session with the GUI: `usi`, `setoption`, `isready`, `gameover` and the members'
//! options as the GUI sees them.

use tokio::time::Instant;
use tracing::{debug, warn};

use crate::gougi::options;
use crate::gougi::options::GOptions;
use crate::gougi::policy::Behaviour;
use crate::member::Role;
use crate::usi::{GameResult, GuiCommand, SetOption};

use super::members::send;
use super::output::MONITOR_OPTION;
use super::state::{
    Slot, SlotState, DEFAULT_HASH_MB, KEEPALIVE, MATE_HASH_CAP, MAX_HASH_MB, MAX_THREADS,
    READY_WAIT, USI_WAIT,
};
use super::Coordinator;

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
        // The options every GUI expects of an engine, as budgets for the whole consultation
        // (see `on_setoption`): ShogiHome and tools that set a hash refuse an engine without
        // them. Threads defaults to one per normal member.
        let normals = self
            .slots
            .iter()
            .filter(|s| s.spec.role == Role::Normal)
            .count()
            .max(1);
        let mut lines = vec![
            format!(
                "option name USI_Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
            ),
            "option name USI_Ponder type check default false".to_string(),
            format!("option name Threads type spin default {normals} min 1 max {MAX_THREADS}"),
        ];
        for slot in &self.slots {
            if slot.state == SlotState::Handshaking {
                lines.push(format!(
                    "info string [Error] {} has not answered usi yet; its options are not shown and it joins when ready",
                    slot.label()
                ));
            }
            let shown = slot.spec.option_filter.matcher();
            for decl in slot.options.iter().filter(|d| shown(&d.name)) {
                let mut d = decl.clone();
                d.name = format!("{}{}", slot.spec.prefix(), d.name);
                lines.push(d.to_string());
            }
        }
        for spec in options::SPECS
            .iter()
            .filter(|s| s.advertised(self.config.policy, self.config.mate_guard))
        {
            lines.push(spec.to_string());
        }
        for line in crate::book::OPTION_LINES {
            if let Some(rest) = line
                .strip_prefix("option name ")
                .filter(|r| !r.starts_with("USI_"))
            {
                lines.push(format!("option name G_{rest}"));
            }
        }
        lines.push(MONITOR_OPTION.to_string());
        lines.push("usiok".to_string());
        self.buffer.extend(lines);
        self.drain_deferred();
    }

    pub(super) fn on_setoption(&mut self, opt: SetOption) {
        let value = opt.value.clone().unwrap_or_default();
        // The proxy's own book: `G_BookFile`, `G_BookMoves`, … are the book options of
        // `gougi search` with a `G_` in front (`USI_OwnBook` stays the members').
        if let Some(result) = opt
            .name
            .strip_prefix("G_")
            .filter(|n| !n.starts_with("USI_"))
            .and_then(|n| self.book_options.set(n, &value))
        {
            if let Err(e) = result {
                self.say(format!(
                    "info string [Warning] setoption {} {}: {e}",
                    opt.name,
                    value.trim()
                ));
            }
            return;
        }
        if GOptions::is_own(&opt.name) {
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
        let shared = matches!(opt.name.as_str(), "USI_Hash" | "Threads");
        let broadcast = crate::usi::option::is_reserved(&opt.name);
        // USI_Hash and Threads are the consultation's budget: shared among the normal members
        // (each gets at least 1), since three members given the whole machine each would swap
        // or oversubscribe it. A member's own E<N>_ setting of the same option wins.
        let normals = self
            .slots
            .iter()
            .filter(|s| s.spec.role == Role::Normal)
            .count()
            .max(1) as u64;
        let share = value
            .trim()
            .parse::<u64>()
            .ok()
            .map(|v| (v / normals).max(1));
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            let forwarded = if shared {
                let explicit = slot.explicit.contains(&opt.name);
                let declared =
                    opt.name == "USI_Hash" || slot.options.iter().any(|d| d.name == opt.name);
                let v = match (opt.name.as_str(), slot.spec.role, share) {
                    _ if explicit || !declared => None,
                    (_, Role::Normal, Some(v)) => Some(v),
                    // Mate members are extra processes: a small table is enough, and their
                    // threads are not counted in the budget.
                    ("USI_Hash", _, Some(v)) => Some(v.min(MATE_HASH_CAP)),
                    _ => None,
                };
                v.map(|v| SetOption {
                    name: opt.name.clone(),
                    value: Some(v.to_string()),
                })
            } else if broadcast {
                // A reserved name reaches a member that declared it, and USI_Ponder every
                // member (USI has the GUI send it to every engine); the rest of USI's names
                // would draw "unknown option" from engines that never offered them.
                (crate::usi::option::SENT_TO_EVERY_ENGINE.contains(&opt.name.as_str())
                    || slot.options.iter().any(|d| d.name == opt.name))
                .then(|| opt.clone())
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
                if !shared && !broadcast {
                    // Set for this member by name: a later shared value leaves it alone, and
                    // the config's value for it is not sent.
                    slot.explicit.insert(o.name.clone());
                    slot.config_unsent.retain(|n| *n != o.name);
                }
                slot.settings.retain(|s| s.name != o.name);
                slot.settings.push(o.clone());
                // The member holds the GUI's value now, not a solo one.
                slot.solo.held.remove(&o.name);
                if self.gui_line_cp932 {
                    slot.cp932.insert(o.name.clone());
                } else {
                    slot.cp932.remove(&o.name);
                }
                if matches!(slot.state, SlotState::Ready | SlotState::Readying) {
                    send(slot, &GuiCommand::SetOption(o));
                }
            }
        }
    }

    pub(super) fn on_isready(&mut self) {
        self.supervise();
        self.load_book();
        let now = Instant::now();
        let multipv = self.config.policy.info().multipv_vote.then(|| SetOption {
            name: "MultiPV".to_string(),
            value: Some(self.options.multipv.to_string()),
        });
        for slot in &mut self.slots {
            // `multipv-vote` asks every member that offers MultiPV for G_MultiPV lines (over
            // any E<N>_MultiPV), kept with the settings so that a restart replays it.
            if let Some(o) = &multipv {
                if slot.spec.role == Role::Normal && slot.options.iter().any(|d| d.name == o.name) {
                    slot.settings.retain(|s| s.name != o.name);
                    slot.settings.push(o.clone());
                    if slot.state == SlotState::Ready {
                        slot.solo.held.remove(&o.name);
                        send(slot, &GuiCommand::SetOption(o.clone()));
                    }
                }
            }
            if slot.state == SlotState::Ready && !slot.awaiting_ready {
                // The config's `Engine<N>.Option.*` values the GUI did not override.
                for name in std::mem::take(&mut slot.config_unsent) {
                    if let Some(o) = slot.settings.iter().find(|s| s.name == name) {
                        send(slot, &GuiCommand::SetOption(o.clone()));
                    }
                }
                send(slot, &GuiCommand::IsReady);
                slot.awaiting_ready = true;
                slot.ready_said = 0;
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
                "info string [Error] {} is not ready; left out until it is",
                slot.label()
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
        self.stop_parked();
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

impl<W: std::io::Write> Coordinator<W> {
    /// Load the book `G_BookFile` names when it changed (its report goes to the GUI).
    fn load_book(&mut self) {
        let file = self.book_options.file.clone();
        if self.book_loaded.as_deref() == Some(file.as_str()) {
            return;
        }
        let (book, lines) = self.book_options.load();
        self.buffer.extend(lines);
        self.book = book;
        self.book_loaded = Some(file);
        self.book_rng = self.book_options.rng();
    }

    /// The book's answer to the current position, if it has one: its `info` lines are said
    /// and the `bestmove` line returned. Only for a position the rules core accepted.
    pub(super) fn book_answer(&mut self) -> Option<String> {
        let book = self.book.as_ref()?;
        let pos = self.game.board.as_ref()?;
        let answer = self.book_options.answer(book, pos, &mut self.book_rng);
        if answer.bestmove.is_some() {
            self.buffer.extend(answer.info);
        }
        answer.bestmove
    }
}
