//! Mate members (the mate types), `go mate` rounds and the built-in solver.

use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::gougi::annotate;
use crate::gougi::annotate::Verdict;
use crate::gougi::game::Game;
use crate::gougi::policy::mate::{self as mate_policy, MateChoice};
use crate::gougi::policy::Behaviour;
use crate::mate::BackgroundSolve;
use crate::member::Role;
use crate::usi::{Checkmate, GoLimits, MateLimit, UsiMove};

use super::members::{send_line, start_search};
use super::output::join;
use super::state::{
    Round, RoundKind, BUILTIN_MATE, BUILTIN_MATE_HASH_MB, PV_MATE_DEPTH, PV_MATE_MEMORY,
};
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn on_checkmate(&mut self, i: usize, cm: Checkmate) {
        // An answer (checked below for what it claims): the member works.
        self.slots[i].failures = 0;
        let role = self.slots[i].spec.role;
        let in_tsume = self
            .round
            .as_ref()
            .is_some_and(|r| r.kind == RoundKind::Tsume);
        if in_tsume {
            if self.take_request(i).is_none() {
                return;
            }
            if let Some(round) = &mut self.round {
                round.checkmates.insert(i, cm);
            }
            return;
        }
        // A mate member's answer for the mate types.
        self.slots[i].take_answer();
        let Some(position) = self.mates.busy.remove(&i) else {
            return;
        };
        if role == Role::Mate {
            self.say(format!("info string {cm}"));
        }
        if let Checkmate::Mate(line) = &cm {
            let game =
                Game::new(position.clone()).unwrap_or_else(|_| Game::unchecked(position.clone()));
            if game.is_mate_line(line) {
                let key = position.to_string();
                let shorter = self
                    .mates
                    .found
                    .get(&key)
                    .is_none_or(|old| line.len() < old.len());
                if shorter {
                    self.mates.found.insert(key, line.clone());
                }
                if role == Role::PvMate {
                    self.mates.succeeded += 1;
                    self.say(format!("info string pvMate : {cm}"));
                    let sfen = game.sfen_command();
                    let count = self.options.mate_info_count;
                    self.mates.mateinfo.push((
                        format!("mateinfo {sfen} {cm}"),
                        count,
                        Instant::now(),
                    ));
                } else if position == self.game.command {
                    self.say(format!("info score mate {} pv {}", line.len(), join(line)));
                }
            } else {
                let number = self.slots[i].spec.number;
                warn!(member = number, line = %cm, "mate line failed verification; ignored");
                self.say(format!(
                    "info string [Error] E{number}: {cm} is not a mate; ignored"
                ));
            }
        }
        if role == Role::Mate && position != self.game.command && self.in_game {
            // A stale result: search the current position at once (the reference did too).
            self.start_mate_search();
        }
        self.dispatch_pv_mates();
    }

    /// Start the built-in solver on `game` for round `id`, within `limit` (none: until `stop`).
    /// Its answer comes back through `solver_tx`.
    pub(super) fn start_builtin_mate(
        &mut self,
        id: u64,
        game: &Game,
        limit: Option<Duration>,
    ) -> Option<BackgroundSolve> {
        let position = game.board.clone()?;
        let tx = self.solver_tx.clone();
        let done = Box::new(move |cm: Checkmate| {
            // The coordinator may be gone (quit): nobody to tell.
            let _ = tx.send((id, cm));
        });
        match BackgroundSolve::spawn(position, limit, BUILTIN_MATE_HASH_MB, done) {
            Ok(solve) => Some(solve),
            Err(e) => {
                warn!(error = %e, "cannot start the built-in mate solver");
                None
            }
        }
    }

    pub(super) fn on_builtin_mate(&mut self, id: u64, cm: Checkmate) {
        let Some(round) = &mut self.round else { return };
        if round.id != id || round.kind != RoundKind::Tsume {
            return;
        }
        debug!(round = id, answer = %cm, "built-in mate solver answered");
        round.builtin_mate = None;
        round.checkmates.insert(BUILTIN_MATE, cm);
        self.maybe_finish();
    }

    /// The mate members' node budget for the current round: under `go nodes N` or `go depth
    /// D` (no clock), a budget proportional to the round's, so the mate member's answer — and
    /// the round's decision, which then waits for it — is the same on every run.
    pub(super) fn mate_node_budget(&self) -> Option<u64> {
        let round = self.round.as_ref()?;
        if round.kind != RoundKind::Play || round.game.command != self.game.command {
            return None;
        }
        mate_nodes_for(&round.limits, self.options.mate_nodes_pct)
    }

    pub(super) fn start_mate_search(&mut self) {
        let timeout = self.options.mate_timeout_ms;
        let nodes = self.mate_node_budget();
        let sfen = self.config.policy.info().mate_sfen;
        for i in 0..self.slots.len() {
            if self.slots[i].spec.role != Role::Mate
                || !self.slots[i].usable()
                || self.mate_sits_out(i)
                || self.mates.busy.contains_key(&i)
            {
                continue;
            }
            let position = if sfen {
                self.game.sfen_command()
            } else {
                self.game.command.clone()
            };
            self.mates.busy.insert(i, self.game.command.clone());
            // G_MateTimeout stays as a cap, for mate engines that ignore `nodes`.
            let limits = GoLimits {
                mate: Some(MateLimit::Time(timeout)),
                nodes,
                ..Default::default()
            };
            // A mate search has no clock (`go mate T` is its own limit): nothing to take off.
            start_search(
                &mut self.slots[i],
                &position.to_string(),
                &limits,
                0,
                true,
                true,
                0,
            );
        }
    }

    pub(super) fn queue_pv_mates(&mut self, i: usize) {
        let Some(round) = &self.round else { return };
        let pv = &self.slots[i].last_pv;
        for len in 1..=pv.len().min(PV_MATE_DEPTH) {
            let command = round.game.after(&pv[..len]).command;
            let key = command.to_string();
            if self.mates.searched_set.contains(&key) {
                continue;
            }
            self.mates.searched_set.insert(key.clone());
            self.mates.searched.push_back(key);
            if self.mates.searched.len() > PV_MATE_MEMORY {
                if let Some(old) = self.mates.searched.pop_front() {
                    self.mates.searched_set.remove(&old);
                }
            }
            self.mates.queue.push_back(command);
        }
        // Newest PV first; keep the queue bounded.
        while self.mates.queue.len() > 64 {
            self.mates.queue.pop_front();
        }
        self.dispatch_pv_mates();
    }

    pub(super) fn dispatch_pv_mates(&mut self) {
        let timeout = self.options.pv_mate_timeout_ms;
        for i in 0..self.slots.len() {
            if self.slots[i].spec.role != Role::PvMate
                || !self.slots[i].usable()
                || self.mates.busy.contains_key(&i)
            {
                continue;
            }
            let Some(command) = self.mates.queue.pop_back() else {
                return;
            };
            let game =
                Game::new(command.clone()).unwrap_or_else(|_| Game::unchecked(command.clone()));
            self.mates.busy.insert(i, command);
            self.mates.tried += 1;
            if self.mates.tried % 50 == 0 {
                let (t, s) = (self.mates.tried, self.mates.succeeded);
                self.say(format!(
                    "info string pvMateTriedCount={t}, pvMateSuccessCount={s}"
                ));
            }
            let limits = GoLimits {
                mate: Some(MateLimit::Time(timeout)),
                ..Default::default()
            };
            start_search(
                &mut self.slots[i],
                &game.sfen_command().to_string(),
                &limits,
                0,
                true,
                true,
                0,
            );
        }
    }

    pub(super) fn send_mateinfo(&mut self) {
        let now = Instant::now();
        let interval = Duration::from_millis(self.options.mate_info_interval_ms);
        let Some(normal) = (0..self.slots.len())
            .find(|&i| self.slots[i].spec.role == Role::Normal && self.slots[i].usable())
        else {
            return;
        };
        let mut due = Vec::new();
        for (text, left, next) in &mut self.mates.mateinfo {
            if *next <= now && *left > 0 {
                due.push(text.clone());
                *left -= 1;
                *next = now + interval;
            }
        }
        self.mates.mateinfo.retain(|(_, left, _)| *left > 0);
        for text in due {
            send_line(&mut self.slots[normal], &text);
        }
    }

    /// Whether a node-limited round waits for the mate member's node-limited answer (and its
    /// search of this position, when it was busy with an older one): deciding on whichever came
    /// first would make the game depend on the machine's speed.
    pub(super) fn waits_for_mate(&self, round: &Round) -> bool {
        let node_limited = round.kind == RoundKind::Play
            && mate_nodes_for(&round.limits, self.options.mate_nodes_pct).is_some();
        let mate_busy = self.slots.iter().enumerate().any(|(i, s)| {
            s.spec.role == Role::Mate && s.usable() && self.mates.busy.contains_key(&i)
        });
        node_limited && mate_busy && !round.gui_stopped
    }

    /// The verified mate line the mate members found for the round's position, if any.
    pub(super) fn found_mate(&self, round: &Round) -> Option<Vec<UsiMove>> {
        let line = self.mates.found.get(&round.game.command.to_string())?;
        match mate_policy::choose(&[line.iter().map(|m| m.to_string()).collect()]) {
            MateChoice::Mate(_) => Some(line.clone()),
            _ => None,
        }
    }

    fn mate_name(&self) -> String {
        self.slots
            .iter()
            .find(|s| s.spec.role == Role::Mate)
            .map_or("mate".to_string(), |s| s.name.to_string())
    }

    /// `MateEngine.Guard` beside any type: a verified mate of the mate member decides the round,
    /// whatever the type would have chosen. Returns the round when there is no mate to play.
    pub(super) fn finish_guarded(&mut self, round: Round) -> Option<Round> {
        if !self.config.mate_guard || round.kind == RoundKind::Tsume {
            return Some(round);
        }
        let Some(line) = self.found_mate(&round) else {
            return Some(round);
        };
        info!(round = round.id, mv = %line[0], len = line.len(), "the mate member's verified mate decides");
        self.play_mate(&round, &line);
        if let Some(after) = self.config.policy.info().after_decision {
            after(&mut self.per_game);
        }
        None
    }

    /// Plays the first move of a verified mate line: the mate, every member's answer marked by
    /// whether it plays that move (last member first, as the reference printed them), the mate
    /// member's line in Japanese, `bestmove`.
    fn play_mate(&mut self, round: &Round, line: &[UsiMove]) {
        let (slots, answers) = self.collect(round);
        let first = line[0];
        self.say(format!("info score mate {} pv {}", line.len(), join(line)));
        for k in (0..slots.len()).rev() {
            let verdict = Verdict::of(answers[k].best.mv() == Some(first));
            let l = self.member_line(slots[k], &round.answers[&slots[k]], verdict);
            self.say(l);
        }
        let ja = round.game.japanese(line);
        let name = self.mate_name();
        self.say(annotate::mate_line(Verdict::Chosen, Some(&ja), &name));
        self.say(format!("bestmove {first}"));
        for &i in &slots {
            self.slots[i].prev = round.answers[&i].score;
        }
        self.after_decision();
    }

    pub(super) fn finish_mate(&mut self, round: Round) {
        if self.waits_for_mate(&round) {
            self.round = Some(round);
            return;
        }
        if self.config.policy.info().pv_mates {
            let (t, s) = (self.mates.tried, self.mates.succeeded);
            self.say(format!(
                "info string pvMateTriedCount={t}, pvMateSuccessCount={s}"
            ));
        }
        if let Some(line) = self.found_mate(&round) {
            self.play_mate(&round, &line);
            return;
        }
        let (slots, answers) = self.collect(&round);
        if answers.is_empty() {
            self.fallback(&round);
            return;
        }
        let i = slots[0];
        let name = self.mate_name();
        self.say(annotate::mate_line(Verdict::NotChosen, None, &name));
        let l = self.member_line(i, &round.answers[&i], Verdict::Chosen);
        self.say(l);
        self.slots[i].prev = round.answers[&i].score;
        let got = self.overrule_resign(i, &round, round.answers[&i].clone());
        self.emit_decision(&round, &got);
    }

    pub(super) fn finish_tsume(&mut self, round: Round) {
        let mut best: Option<Vec<UsiMove>> = None;
        let mut any_nomate = false;
        for cm in round.checkmates.values() {
            match cm {
                Checkmate::Mate(line) if round.game.is_mate_line(line) => {
                    best = match best {
                        Some(b) if b.len() <= line.len() => Some(b),
                        _ => Some(line.clone()),
                    };
                }
                Checkmate::Mate(line) if !line.is_empty() => {
                    self.say(format!("info string [Error] {cm} is not a mate; ignored"));
                }
                Checkmate::NoMate => any_nomate = true,
                _ => {}
            }
        }
        let answer = match best {
            Some(line) => Checkmate::Mate(line),
            None if any_nomate => Checkmate::NoMate,
            None if round.game.board.is_some() && !round.game.has_check() => Checkmate::NoMate,
            None => Checkmate::Timeout,
        };
        self.say(answer.to_string());
        self.after_decision();
    }
}

/// The node budget of a mate member in a round with these limits and `G_MateNodesPct`: that
/// percentage of `go nodes N`, or of 10,000 × D for `go depth D` (about what a depth-D search
/// of the built-in engine visits in a middle game); `None` with a clock or without a limit.
pub(super) fn mate_nodes_for(limits: &GoLimits, pct: u64) -> Option<u64> {
    if limits.has_clock() || limits.movetime.is_some() || limits.infinite || limits.ponder {
        return None;
    }
    let base = limits
        .nodes
        .or_else(|| limits.depth.map(|d| u64::from(d).saturating_mul(10_000)))?;
    Some((base.saturating_mul(pct) / 100).max(1))
}
