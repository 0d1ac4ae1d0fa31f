//! The exchange rule's two phases (each member rates the other's move).

use std::time::Duration;

use tokio::time::Instant;
use tracing::info;

use crate::gougi::annotate::Verdict;
use crate::gougi::answer::{Answer, Eval};
use crate::gougi::policy::exchange::Phase1;
use crate::gougi::policy::{exchange, leader};
use crate::gougi::{annotate, deadline, policy};
use crate::member::NodesRule;
use crate::usi::GoLimits;

use super::limits::{limits_for, scale_limits};
use super::members::start_search;
use super::state::{ExchangeState, LeaderCheck, Round, RoundKind};
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn exchange_phase1(&mut self, mut round: Round) {
        let (slots, answers) = self.collect(&round);
        let pair: [Answer; 2] = [answers[0].clone(), answers[1].clone()];
        let phase2_possible =
            round.kind == RoundKind::Play && round.soft.is_some() && !round.stop_sent;
        let decision = match exchange::phase1(&pair) {
            Phase1::Decided(d) => Some(d),
            Phase1::Exchange if pair.iter().any(Answer::is_win) => policy::declaration(&pair),
            Phase1::Exchange if !phase2_possible => Some(exchange::without_exchange(&pair)),
            Phase1::Exchange => None,
        };
        if let Some(d) = decision {
            for k in (0..2).rev() {
                let line = self.member_line(
                    slots[k],
                    &round.answers[&slots[k]],
                    Verdict::of(pair[k].agrees_with(&pair[d.chosen])),
                );
                self.say(line);
            }
            self.say_why(pair[d.chosen].best.token(), &d.reason);
            let got = round.answers[&slots[d.chosen]].clone();
            self.emit_decision(&round, &got);
            return;
        }
        // Phase 2: each member searches after the other's move, in the time left.
        let now = Instant::now();
        let left = round
            .hard
            .map_or(Duration::ZERO, |h| h.saturating_duration_since(now));
        let (budget, hard) = deadline::exchange_phase2(left, self.options.margin_ms);
        let mv = |k: usize| {
            round.answers[&slots[k]]
                .best
                .mv()
                .expect("phase 1 moves are moves")
        };
        let limits = GoLimits {
            btime: Some(0),
            wtime: Some(0),
            byoyomi: Some(budget.as_millis() as u64),
            ..Default::default()
        };
        let moves = [mv(0), mv(1)];
        round.exchange = Some(ExchangeState {
            first: pair,
            first_got: [
                round.answers[&slots[0]].clone(),
                round.answers[&slots[1]].clone(),
            ],
        });
        round.answers.clear();
        round.soft = Some(now + budget);
        round.hard = Some(now + hard);
        round.stop_sent = false;
        for k in 0..2 {
            let after = round.game.after(&[moves[1 - k]]);
            let member_limits = limits_for(&self.slots[slots[k]].spec, &limits);
            start_search(
                &mut self.slots[slots[k]],
                &after.command.to_string(),
                &member_limits,
                round.id,
                false,
                after.black_to_move(),
                self.options.margin_ms,
            );
            self.slots[slots[k]].clear_round();
            round.elsewhere.insert(slots[k], after);
        }
        self.round = Some(round);
    }

    pub(super) fn exchange_phase2(&mut self, round: Round) {
        let ex = round.exchange.clone().expect("phase 2");
        let order: Vec<usize> = {
            let mut v: Vec<usize> = round.participants.clone();
            v.sort_by_key(|&i| self.slots[i].spec.number);
            v
        };
        // On the calibrated scale, as the phase-1 scores in `ex.first` are: the views add one
        // member's score to the other's.
        let reply = |k: usize| -> Option<i64> {
            let i = *order.get(k)?;
            let s = round.answers.get(&i)?.score?;
            let eval = Eval::from_score(&s).calibrated(self.slots[i].spec.scale);
            Some(i64::from(eval.0))
        };
        let views = exchange::views(&ex.first, reply(0), reply(1));
        let d = exchange::phase2(&ex.first, &views);
        for k in [1usize, 0] {
            let mv = ex.first_got[k].best.mv().expect("phase 1 moves are moves");
            let ja = round.game.japanese(&[mv]).join(" ");
            let name = order
                .get(k)
                .map_or(String::new(), |&i| self.slots[i].name.to_string());
            self.say(annotate::exchange_line(
                Verdict::of(k == d.chosen),
                mv.as_str(),
                &ja,
                views[k].average(),
                [views[k].by1, views[k].by2],
                &name,
            ));
        }
        self.say_why(ex.first[d.chosen].best.token(), &d.reason);
        for (k, &i) in order.iter().enumerate() {
            self.slots[i].prev = ex.first_got[k].score;
        }
        let got = ex.first_got[d.chosen].clone();
        self.emit_decision(&round, &got);
    }
}

/// The `leader` type (see `policy/leader.rs`): every member searches; then, when other members
/// proposed other moves, the leader re-searches its own move and each candidate one at a time
/// (the position after the move, `G_LeaderNodes` nodes, within what is left of the clock, or
/// of the node budget under `go nodes`).
impl<W: std::io::Write> Coordinator<W> {
    /// The first phase of a `leader` round: every member in `normals` is asked, with `request`
    /// cut to the first phase's share so the re-searches fit after it. Under a clock that is
    /// [`deadline::LEADER_FIRST_SHARE`] of the clock and of the soft deadline (the hard
    /// deadline stays: the re-searches end by it); under `go nodes N` the first phase gets N
    /// less the re-searches' reserve ([`deadline::leader_nodes`]), so the leader's whole work
    /// on the move fits N, as on a machine of its own (ARCHITECTURE "Cluster frame"). The
    /// other members get the same first phase: the re-searches wait for their answers, so on
    /// their own machines they would have no more time either.
    ///
    /// A leader asked alone (the others down, or sitting out by `MinCores` on a small machine)
    /// has no other move to re-search: it gets the whole clock or budget, as the engine alone
    /// would (with the quarter kept back it thought 158 ms a move where `gougi search` thought
    /// 209 at byoyomi 300, and scored 32 % against it over 28 games). A banked round's first
    /// phase is the banked clock instead.
    pub(super) fn leader_plan(
        &mut self,
        round: &mut Round,
        normals: &[usize],
        request: &mut GoLimits,
        soft: Option<Duration>,
    ) -> Vec<usize> {
        let searching = matches!(round.kind, RoundKind::Play | RoundKind::Ponder);
        if searching && normals.len() > 1 && !round.banked {
            let black = round.game.black_to_move();
            *request = scale_limits(request, black, deadline::LEADER_FIRST_SHARE);
            if let Some(s) = soft {
                round.soft = Some(round.started + deadline::leader_phase1(s));
            }
            if let Some(n) = request.nodes {
                let (first, reserve) =
                    deadline::leader_nodes(n, normals.len(), self.options.leader_nodes);
                request.nodes = Some(first);
                round.leader_reserve = Some(reserve);
            }
        }
        normals.to_vec()
    }

    pub(super) fn finish_leader(&mut self, mut round: Round) {
        match round.leader_check.take() {
            None => self.leader_phase1(round),
            Some(check) => self.leader_step(round, check),
        }
    }

    fn leader_phase1(&mut self, mut round: Round) {
        let (slots, answers) = self.collect(&round);
        if answers.is_empty() || answers.iter().any(Answer::is_win) {
            // No answer (fallback) or a declaration (`choose` plays it).
            self.finish_all(round);
            return;
        }
        let leader::Phase1::Recheck { leader, candidates } = leader::phase1(&answers) else {
            self.finish_all(round);
            return;
        };
        let check = LeaderCheck {
            leader: slots[leader],
            gots: slots.iter().map(|i| round.answers[i].clone()).collect(),
            slots,
            answers,
            queue: std::iter::once(leader).chain(candidates).collect(),
            current: None,
            values: Vec::new(),
            bank_end: round.banked.then(|| {
                let now = Instant::now();
                let first = now.saturating_duration_since(round.started);
                now + deadline::leader_bank(first, self.options.time_bank_pct)
            }),
            nodes_left: round.leader_reserve,
        };
        if !self.leader_can_search(&round, &check) {
            self.finish_all(round);
            return;
        }
        round.answers.clear();
        round.participants = vec![check.leader];
        round.leader = Some(check.leader);
        self.leader_next(round, check);
    }

    /// Whether another re-search may start: a playing round the GUI did not stop, the leader
    /// up, (with a clock) time left before the hard deadline, and (under `go nodes`) nodes
    /// left in the reserve.
    fn leader_can_search(&self, round: &Round, check: &LeaderCheck) -> bool {
        let now = Instant::now();
        round.kind == RoundKind::Play
            && !round.gui_stopped
            && round.hard.is_none_or(|h| h > now)
            && check.nodes_left != Some(0)
            && self.slots[check.leader].usable()
            && !check.queue.is_empty()
    }

    /// Start the next re-search of the queue on the leader.
    fn leader_next(&mut self, mut round: Round, mut check: LeaderCheck) {
        let Some(k) = check.queue.pop_front() else {
            self.leader_decide(round, check);
            return;
        };
        let mv = check.gots[k]
            .best
            .mv()
            .expect("re-searched answers are moves");
        let after = round.game.after(&[mv]);
        let searches = check.queue.len() as u32 + 1;
        let cap = self.options.leader_nodes;
        let nodes = match (check.bank_end, check.nodes_left) {
            (Some(_), _) => None,
            // Under `go nodes`: a share of the reserve left, so the re-searches fit it.
            (None, Some(left)) => {
                let n = deadline::leader_nodes_share(left, searches, cap);
                check.nodes_left = Some(left - n);
                Some(n)
            }
            (None, None) => Some(cap),
        };
        let mut limits = GoLimits {
            nodes,
            ..Default::default()
        };
        if let Some(hard) = round.hard {
            // An equal share of what is left for each search still to run, as `byoyomi`
            // (understood by every engine); gougi stops it at its share.
            let now = Instant::now();
            let mut share = deadline::leader_share(
                hard.saturating_duration_since(now),
                self.options.margin_ms,
                searches,
            );
            if let Some(end) = check.bank_end {
                share = share.min(deadline::bank_share(
                    end.saturating_duration_since(now),
                    searches,
                ));
            }
            limits.btime = Some(0);
            limits.wtime = Some(0);
            limits.byoyomi = Some(share.as_millis() as u64);
            round.soft = Some(now + share);
        }
        let margin = self.options.margin_ms;
        let slot = &mut self.slots[check.leader];
        if slot.spec.nodes == NodesRule::Off {
            // It cannot take `nodes` (its own limit decides; see `limits_for`).
            limits = limits_for(&slot.spec, &limits);
        }
        let black = after.black_to_move();
        start_search(
            slot,
            &after.command.to_string(),
            &limits,
            round.id,
            false,
            black,
            margin,
        );
        slot.clear_round();
        round.elsewhere.insert(check.leader, after);
        round.stop_sent = false;
        check.current = Some(k);
        round.leader_check = Some(check);
        self.round = Some(round);
    }

    /// A re-search ended (answered, crashed or out of time): record its value, then the next
    /// one or the decision.
    fn leader_step(&mut self, mut round: Round, mut check: LeaderCheck) {
        if let Some(k) = check.current.take() {
            let scale = self.slots[check.leader].spec.scale;
            let value = round
                .answers
                .get(&check.leader)
                .and_then(|g| g.score)
                .map(|s| leader::value_of_reply(Eval::from_score(&s).calibrated(scale)));
            check.values.push((k, value));
        }
        round.answers.clear();
        round.elsewhere.remove(&check.leader);
        if self.leader_can_search(&round, &check) {
            self.leader_next(round, check);
        } else {
            self.leader_decide(round, check);
        }
    }

    fn leader_decide(&mut self, round: Round, check: LeaderCheck) {
        let leader = check.values.first().map_or(0, |v| v.0);
        let own = check
            .values
            .iter()
            .find(|v| v.0 == leader)
            .and_then(|v| v.1);
        let others: Vec<(usize, Option<i64>)> = check
            .values
            .iter()
            .copied()
            .filter(|v| v.0 != leader)
            .collect();
        let margin = self.options.leader_margin;
        let d = leader::phase2(&check.answers, leader, own, &others, margin);
        let chosen = &check.answers[d.chosen];
        let chosen_mv = chosen.best.token();
        info!(round = round.id, member = chosen.number, mv = %chosen_mv, reason = %d.reason, "leader decided");
        for k in (0..check.slots.len()).rev() {
            let verdict = Verdict::of(check.answers[k].agrees_with(chosen));
            let line = self.member_line(check.slots[k], &check.gots[k], verdict);
            self.say(line);
        }
        // What the leader found, move by move, in the order searched.
        let values: Vec<String> = check
            .values
            .iter()
            .map(|(k, v)| {
                let v = v.map_or("?".to_string(), |v| Eval(v as i32).to_string());
                format!("{} {v}", check.answers[*k].best.token())
            })
            .collect();
        let unsearched: Vec<&str> = check
            .queue
            .iter()
            .map(|&k| check.answers[k].best.token())
            .collect();
        let verb = if d.chosen == leader { "keeps" } else { "plays" };
        let not = if unsearched.is_empty() {
            String::new()
        } else {
            format!(", not {}", unsearched.join(" "))
        };
        let line = format!(
            "info string [leader] {} re-searched {}{not} (margin {margin}): {verb} {chosen_mv}",
            self.slots[check.leader].label(),
            values.join(", ")
        );
        self.say(line);
        self.say_why(chosen_mv, &d.reason);
        for (k, &i) in check.slots.iter().enumerate() {
            self.slots[i].prev = check.gots[k].score;
        }
        let got = check.gots[d.chosen].clone();
        self.emit_decision(&round, &got);
    }
}
