//! Deciding an all-members or change-player round: the policy's choice, `G_Resign`, the vote,
//! and the lines sent at a decision.

use tracing::{debug, info, warn};

use crate::gougi::annotate::Verdict;
use crate::gougi::answer::{Answer, Eval};
use crate::gougi::options::VoteScoring;
use crate::gougi::policy::{change_player, vote, Behaviour, Decision, Reason, Who, Why};
use crate::gougi::resign::ResignRule;
use crate::gougi::{policy, resign};
use crate::member::Role;
use crate::usi::{BestMove, Info};

use super::multi_ponder::voters;
use super::output::{all_nodes, final_info, score_text};
use super::state::{label, Got, Round};
use super::Coordinator;

/// What a decision tells the GUI besides the `[O]/[X]` lines.
pub(super) enum Said {
    /// The MultiPV vote's tally (`info string [vote] <move>: <tally>`).
    Vote(String),
    /// A resignation was overruled: the whole `[resign]` line.
    Resign(String),
    /// The declaration's or the policy's reason (`[why]` when it is to be explained).
    Why(Reason),
}

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn decide_all(&self, answers: &[Answer]) -> Decision {
        (self.config.policy.info().decide)(answers, &self.per_game)
    }

    /// Answers of a round in member order, with their slots.
    pub(super) fn collect(&self, round: &Round) -> (Vec<usize>, Vec<Answer>) {
        let mut slots: Vec<usize> = round.answers.keys().copied().collect();
        slots.sort_by_key(|&i| self.slots[i].spec.number);
        let answers = slots
            .iter()
            .map(|&i| self.answer_from_got(i, &round.answers[&i]))
            .collect();
        (slots, answers)
    }

    pub(super) fn answer_from_got(&self, i: usize, g: &Got) -> Answer {
        self.answer_of(i, g.best, g.score)
    }

    pub(super) fn finish_all(&mut self, round: Round) {
        let (slots, answers) = self.collect(&round);
        if answers.is_empty() {
            self.fallback(&round);
            return;
        }
        // Multi-ponder's head start: only the members that went on from their ponder decide
        // (and a mate from anyone); the [O]/[X] lines below still show every member.
        let voting = voters(&round.head_start, &slots, &answers)
            .unwrap_or_else(|| (0..answers.len()).collect());
        let vslots: Vec<usize> = voting.iter().map(|&k| slots[k]).collect();
        let vanswers: Vec<Answer> = voting.iter().map(|&k| answers[k].clone()).collect();
        let (chosen, voted, said) = match self.multipv_vote(&round, &vslots, &vanswers) {
            Some((chosen, got, tally)) => (chosen, got, Said::Vote(tally)),
            None => {
                let (k, said) = self.choose(&vanswers, |c| c.decide_all(&vanswers));
                (k, None, said)
            }
        };
        let chosen = voting[chosen];
        let winner = slots[chosen];
        let played = voted
            .as_ref()
            .map_or(answers[chosen].best, |g| g.best)
            .without_ponder();
        let chosen_mv = played.token();
        info!(round = round.id, member = self.slots[winner].spec.number, mv = %chosen_mv, "decided");
        // [O]/[X] lines, last member first, as the reference printed them.
        for k in (0..slots.len()).rev() {
            let verdict = Verdict::of(answers[k].best.without_ponder() == played);
            let line = self.member_line(slots[k], &round.answers[&slots[k]], verdict);
            self.say(line);
        }
        let mut why = match said {
            // The vote's tally (its winner may be no member's first choice).
            Said::Vote(tally) => {
                self.say(format!("info string [vote] {chosen_mv}: {tally}"));
                None
            }
            Said::Resign(line) => {
                self.say(line);
                None
            }
            Said::Why(reason) => Some(reason),
        };
        for &i in &slots {
            self.slots[i].prev = round.answers[&i].score;
        }
        if let Some(after) = self.config.policy.info().after_decision {
            after(&mut self.per_game);
        }
        if let Some(switch) = self.rotate(&round, &answers[chosen]) {
            // One player per move: the policy had nothing to choose; the change of player is
            // the decision to explain.
            why = Some(Reason {
                why: Why::Switch(switch),
                explain: true,
            });
        }
        let got = match voted {
            Some(g) => g,
            None => self.overrule_resign(winner, &round, round.answers[&winner].clone()),
        };
        // An overruled resignation has said its own line.
        if let Some(reason) = why.filter(|_| got.best.without_ponder() == played) {
            self.say_why(chosen_mv, &reason);
        }
        self.emit_decision(&round, &got);
    }

    /// Change-player types: after the player's move, the rotation's turn (clearing the score
    /// history when the next move goes to another member); returns why this move's player is
    /// not the previous move's, if it is not.
    fn rotate(&mut self, round: &Round, played: &Answer) -> Option<change_player::Switch> {
        let rule = policy::rotation(self.config.policy, &self.options)?;
        let order: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].spec.role == Role::Normal)
            .collect();
        let rotation = &mut self.per_game.rotation;
        let want = rotation.player(rule, order.len(), round.game.ply());
        let switch = order.get(want).and_then(|&i| {
            let designated = Who {
                number: self.slots[i].spec.number,
                name: self.slots[i].name.clone(),
            };
            rotation.switch(rule, played, &designated, round.game.ply())
        });
        if rotation.after_move(rule, order.len(), played) {
            // The new player starts without a score history.
            for s in &mut self.slots {
                s.prev = None;
            }
        }
        switch
    }

    /// The policy's reason, to the GUI when the decision is not the obvious one (ARCHITECTURE
    /// "Reasons"): `info string [why] <move>: <reason>`, after the `[O]/[X]` lines.
    pub(super) fn say_why(&mut self, played: &str, reason: &Reason) {
        debug!(mv = played, reason = %reason, explain = reason.explain, "reason");
        if reason.explain {
            self.say(format!("info string [why] {played}: {reason}"));
        }
    }

    /// `multipv-vote`: the vote over the members' candidate lists. Returns the answer index of
    /// the member that placed the winner highest and, when the winner is not that member's
    /// `bestmove` but one of its other lines, the answer to play, made from that line (its PV,
    /// score and ponder move), with the tally for the GUI. `None` for other types, for a
    /// declaration (which `choose` plays) and when every member resigned.
    pub(super) fn multipv_vote(
        &self,
        round: &Round,
        slots: &[usize],
        answers: &[Answer],
    ) -> Option<(usize, Option<Got>, String)> {
        if answers.iter().any(Answer::is_win) {
            return None;
        }
        let (ballots, sources) = self.ballots(round, slots, answers);
        let (winner, _) = self.vote_tally(&ballots)?;
        info!(round = round.id, reason = %winner.reason, "multipv vote");
        let Some(line) = sources[winner.ballot][winner.rank] else {
            return Some((winner.ballot, None, winner.reason));
        };
        let pv = line.pv_moves();
        let mv = pv[0];
        let game = round.game_of(slots[winner.ballot]);
        let ponder = pv
            .get(1)
            .copied()
            .filter(|p| game.after(&[mv]).check(p).is_ok());
        let got = Got {
            best: BestMove::Move { mv, ponder },
            score: line.score.map(|s| s.score),
            info: Some(line.clone()),
            pv,
            lines: Vec::new(),
        };
        Some((winner.ballot, Some(got), winner.reason))
    }

    /// The `multipv-vote` tally of `ballots` with the scoring in force (`None` for other types
    /// or when no ballot has a candidate).
    pub(super) fn vote_tally(
        &self,
        ballots: &[vote::Ballot],
    ) -> Option<(vote::VoteWinner, vote::Scoring)> {
        if !self.config.policy.info().multipv_vote {
            return None;
        }
        let scoring = match self.options.vote_scoring {
            VoteScoring::Borda => vote::Scoring::Borda {
                k: self.options.multipv,
            },
            VoteScoring::WinRate => vote::Scoring::WinRate,
        };
        Some((vote::multipv_vote(ballots, scoring)?, scoring))
    }

    /// Every member's ballot: its `bestmove` (unless it resigned), then the heads of its other
    /// MultiPV lines that are legal here, with calibrated scores; beside it, the info line
    /// behind each candidate (`None` for the `bestmove` itself).
    #[allow(clippy::type_complexity)]
    pub(super) fn ballots<'r>(
        &self,
        round: &'r Round,
        slots: &[usize],
        answers: &[Answer],
    ) -> (Vec<vote::Ballot>, Vec<Vec<Option<&'r Info>>>) {
        let mut ballots = Vec::with_capacity(slots.len());
        let mut sources = Vec::with_capacity(slots.len());
        for (k, &i) in slots.iter().enumerate() {
            let a = &answers[k];
            let mut ballot = vote::Ballot {
                weight: a.weight,
                candidates: Vec::new(),
            };
            let mut from = Vec::new();
            if let Some(mv) = a.best.mv() {
                ballot.candidates.push((mv, a.score));
                from.push(None);
                let game = round.game_of(i);
                for line in &round.answers[&i].lines {
                    let (Some(mv), Some(s)) = (line.pv_moves().first().copied(), &line.score)
                    else {
                        continue;
                    };
                    // Lines are for this position, but a member's PV is not checked elsewhere.
                    if game.check(&mv).is_err() {
                        continue;
                    }
                    let score = Eval::from_score(&s.score).calibrated(self.slots[i].spec.scale);
                    ballot.candidates.push((mv, Some(score)));
                    from.push(Some(line));
                }
            }
            ballots.push(ballot);
            sources.push(from);
        }
        (ballots, sources)
    }

    pub(super) fn resign_rule(&self) -> ResignRule {
        self.options.resign
    }

    /// Apply declarations and `G_Resign` around a policy's choice: the index of the answer to
    /// play and what to tell the GUI — the `[resign]` line when a resignation was overruled,
    /// else the reason (declaration or policy).
    pub(super) fn choose(
        &self,
        answers: &[Answer],
        decide: impl Fn(&Self) -> Decision,
    ) -> (usize, Said) {
        // A legal declaration wins the game at once, whoever made it.
        if let Some(d) = policy::declaration(answers) {
            return (d.chosen, Said::Why(d.reason));
        }
        let d = decide(self);
        let chosen = d.chosen;
        if !answers[chosen].is_resign() {
            return (chosen, Said::Why(d.reason));
        }
        let rule = self.resign_rule();
        let playable = resign::playable(answers, rule);
        if playable.is_empty() {
            return (chosen, Said::Why(d.reason));
        }
        // The same policy, over the answers that play.
        let sub: Vec<Answer> = playable.iter().map(|&k| answers[k].clone()).collect();
        let k = playable[self.decide_all(&sub).chosen];
        let (who, mv) = (&answers[chosen], &answers[k]);
        let why = match rule {
            ResignRule::Chosen => "a legal move whose score is not lost is on the table",
            ResignRule::All => "not every member resigned (G_Resign=all)",
        };
        let reason = format!(
            "info string [resign] {} resigned; E{}'s {} is played: {why}",
            label(who.number, &who.name),
            mv.number,
            mv.best.token()
        );
        (k, Said::Resign(reason))
    }

    /// A resignation whose member's own last line plays a legal move with a score that is not
    /// lost: that move is played instead (`G_Resign=chosen`; under `all` the member's
    /// resignation counts as its vote). Anything else is returned as it is.
    pub(super) fn overrule_resign(&mut self, i: usize, round: &Round, got: Got) -> Got {
        if got.best != BestMove::Resign || self.resign_rule() == ResignRule::All {
            return got;
        }
        let game = round.game_of(i);
        let Some(&mv) = got.pv.first().filter(|m| game.check(m).is_ok()) else {
            return got;
        };
        let score = got.score.as_ref().map(Eval::from_score);
        if resign::is_lost(score) {
            return got;
        }
        let ponder = got
            .pv
            .get(1)
            .copied()
            .filter(|p| game.after(&[mv]).check(p).is_ok());
        let slot = &self.slots[i];
        let said = got.score.map_or("no score".to_string(), |s| {
            format!("score {}", score_text(&s))
        });
        let line = format!(
            "info string [resign] {} resigned; its own line's {mv} is played: a legal move whose score is not lost ({said}) is on the table",
            slot.label()
        );
        self.say(line);
        Got {
            best: BestMove::Move { mv, ponder },
            ..got
        }
    }

    pub(super) fn emit_decision(&mut self, round: &Round, got: &Got) {
        let nodes = all_nodes(got, &self.slots);
        self.emit_with_nodes(round, got, Some(nodes));
    }

    /// The decision's last lines: the final `info` (its nodes as the caller counts them) and
    /// the `bestmove`.
    pub(super) fn emit_with_nodes(&mut self, round: &Round, got: &Got, nodes: Option<u64>) {
        self.publish_round(round, got);
        if let Some(line) = final_info(round, got, nodes) {
            self.say(line);
        }
        self.say(got.best.to_string());
        self.note_answered(round);
        self.note_predictions(round, got);
        self.after_decision();
    }

    pub(super) fn after_decision(&mut self) {
        // Lines still held back by the relay's cap would follow the `bestmove`.
        self.relay_cap.end_round();
        self.stop_all_searching();
        // A parked member's lines are its ponder's, which a later round may adopt.
        for i in 0..self.slots.len() {
            if !self.is_parked(i) {
                self.slots[i].clear_round();
            }
        }
    }

    pub(super) fn fallback(&mut self, round: &Round) {
        // The leader's current line is the best we know; else any legal move; else resign.
        // The final `info` then comes from that one line (its score, depth, PV and nodes), or
        // says only the move: never one line's move with other lines' counts.
        let line = round
            .leader
            .and_then(|l| self.slots[l].last_pv_line.clone())
            .filter(|i| {
                i.pv_moves()
                    .first()
                    .is_some_and(|m| round.game.check(m).is_ok())
            });
        let (best, source) = match line {
            Some(info) => {
                let pv = info.pv_moves();
                let mv = BestMove::Move {
                    mv: pv[0],
                    ponder: None,
                };
                (mv, Some((info, pv)))
            }
            None => {
                let best = match round.game.fallback() {
                    Some(mv) => BestMove::Move { mv, ponder: None },
                    None => BestMove::Resign,
                };
                (best, None)
            }
        };
        if round.game.board.is_none() {
            // Not an answer to the GUI's position: there is none gougi could check.
            warn!(
                round = round.id,
                "go for a refused position answered with resign"
            );
            let why = self
                .position_refused
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            self.say(format!(
                "info string [Error] position refused ({why}): no move can be checked, gougi resigns"
            ));
            let got = Got {
                best: BestMove::Resign,
                score: None,
                info: None,
                pv: Vec::new(),
                lines: Vec::new(),
            };
            self.emit_decision(round, &got);
            return;
        }
        if round.missed_ponder {
            // The GUI discards this bestmove (it stopped a ponder on the wrong move).
            debug!(round = round.id, %best, "ponder stopped before any answer");
        } else {
            warn!(round = round.id, %best, "no member answered; fallback move");
            self.say(format!(
                "info string [Error] no member answered in time; gougi plays {best}"
            ));
        }
        let (info, pv) = source.map_or((None, Vec::new()), |(i, pv)| (Some(i), pv));
        let nodes = info.as_ref().and_then(|i| i.nodes);
        let got = Got {
            best,
            // The line's score stays as the line gave it, bound included.
            score: None,
            info,
            pv,
            lines: Vec::new(),
        };
        self.emit_with_nodes(round, &got, nodes);
    }
}
