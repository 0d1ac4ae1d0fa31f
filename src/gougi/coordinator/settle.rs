//! When a round may end before its clock: time banking (`G_TimeBank`) searches a split round
//! again, and an all-members round settles as soon as waiting cannot change the answer.

use tokio::time::Instant;
use tracing::debug;

use crate::gougi::policy::{Behaviour, Settle, Shape};
use crate::usi::BestMove;

use super::limits::{after_spending, timing, told};
use super::members::start_search;
use super::state::RoundKind;
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    /// Time banking (`G_TimeBank`): every member answered a banked round and they do not all
    /// play the same move, so the round is searched again, once, with the whole clock that is
    /// left (members keep their hash, so this deepens their first search). Returns whether the
    /// round was restarted.
    pub(super) fn spend_bank(&mut self) -> bool {
        let margin = self.options.margin_ms;
        let all = self.config.policy.shape() == Shape::All;
        let Some(round) = &mut self.round else {
            return false;
        };
        if !all || !round.banked || round.extended || round.kind != RoundKind::Play {
            return false;
        }
        let mut moves: Vec<BestMove> = Vec::new();
        for g in round.answers.values() {
            let best = g.best.without_ponder();
            if !moves.contains(&best) {
                moves.push(best);
            }
        }
        if moves.len() < 2 {
            return false;
        }
        let now = Instant::now();
        let black = round.game.black_to_move();
        let elapsed = now.saturating_duration_since(round.started).as_millis() as u64;
        let limits = after_spending(&round.limits, black, elapsed);
        let (soft, hard, member_limits) = timing(&limits, black, margin);
        round.soft = soft.map(|d| now + d);
        round.hard = hard.map(|d| now + d);
        round.stop_sent = false;
        round.extended = true;
        round.answers.clear();
        round.relayed_depth = 0;
        let moves: Vec<&str> = moves.iter().map(BestMove::token).collect();
        debug!(
            round = round.id,
            moves = %moves.join(" "),
            elapsed,
            "members disagree: spending the bank"
        );
        let (id, command) = (round.id, round.game.command.to_string());
        for &i in &round.participants.clone() {
            let slot = &mut self.slots[i];
            slot.clear_round();
            start_search(
                slot,
                &command,
                &told(slot, &member_limits, black),
                id,
                false,
                black,
                margin,
            );
        }
        true
    }

    /// Whether an all-members round can be decided before every member answered: for
    /// `majority` and `multipv-vote` when the leading move can no longer be caught (exact: the
    /// result is the one waiting would give), and for every type when answers holding
    /// `G_EarlyAgreement` percent of the members' weight agree on one move. The members still thinking are then stopped,
    /// which banks their time in sudden death and Fischer games.
    pub(super) fn settled_early(&self) -> bool {
        let Some(round) = &self.round else {
            return false;
        };
        if round.kind != RoundKind::Play
            || self.config.policy.shape() != Shape::All
            || round.answers.is_empty()
        {
            return false;
        }
        let weight = |i: &usize| self.slots[*i].spec.weight;
        let total: f64 = round.participants.iter().map(weight).sum();
        let waiting: f64 = round
            .participants
            .iter()
            .filter(|p| !round.answers.contains_key(p))
            .map(weight)
            .sum();
        let mut by_move: Vec<(BestMove, f64)> = Vec::new();
        for (i, got) in &round.answers {
            let mv = got.best.without_ponder();
            match by_move.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, w)) => *w += weight(i),
                None => by_move.push((mv, weight(i))),
            }
        }
        by_move.sort_by(|a, b| b.1.total_cmp(&a.1));
        if by_move[0].0 == BestMove::Resign {
            // A resignation needs every answer: one still coming may play (G_Resign).
            return false;
        }
        let top = by_move[0].1;
        let second = by_move.get(1).map_or(0.0, |m| m.1);
        let settle = self.config.policy.info().settle;
        if settle == Settle::Plurality && top > second + waiting + 1e-9 {
            return true;
        }
        if settle == Settle::Ballots {
            // Exact too: the members still thinking can give any one move at most their weight
            // times a ballot's maximum, so a lead larger than that is final.
            let (slots, answers) = self.collect(round);
            let (ballots, _) = self.ballots(round, &slots, &answers);
            if let Some((w, scoring)) = self.vote_tally(&ballots) {
                if w.points - w.runner_up > waiting * scoring.max_points() + 1e-9 {
                    return true;
                }
            }
        }
        let share = self.options.early_agreement_pct as f64 / 100.0;
        share > 0.0 && top + 1e-9 >= share * total
    }
}
