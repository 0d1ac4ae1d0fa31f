//! The exchange rule's two phases (each member rates the other's move).

use super::*;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn exchange_phase1(&mut self, mut round: Round) {
        let (slots, answers) = self.collect(&round);
        let pair: [Answer; 2] = [answers[0].clone(), answers[1].clone()];
        let phase2_possible =
            round.kind == RoundKind::Play && round.soft.is_some() && !round.stop_sent;
        let decision = match exchange::phase1(&pair) {
            Phase1::Decided(d) => Some(d),
            Phase1::Exchange if pair.iter().any(|a| a.mv == "win") => Some(Decision {
                chosen: self
                    .choose(&pair, |_| Decision {
                        chosen: 0,
                        reason: String::new(),
                    })
                    .0,
                reason: "declaration".into(),
            }),
            Phase1::Exchange if !phase2_possible => {
                Some(optimism::by_score(&pair, optimism::Extreme::Highest))
            }
            Phase1::Exchange => None,
        };
        if let Some(d) = decision {
            for k in (0..2).rev() {
                let line = self.member_line(
                    slots[k],
                    &round.answers[&slots[k]],
                    Verdict::of(pair[k].mv == pair[d.chosen].mv),
                );
                self.say(line);
            }
            let got = round.answers[&slots[d.chosen]].clone();
            self.emit_decision(&round, &got);
            return;
        }
        // Phase 2: each member searches after the other's move, in the time left.
        let now = Instant::now();
        let left = round
            .hard
            .map_or(Duration::ZERO, |h| h.saturating_duration_since(now));
        let margin = Duration::from_millis(self.options.margin_ms());
        let budget = left.saturating_sub(margin / 2).mul_f64(0.9);
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
        round.hard = Some(now + left.saturating_sub(margin / 4));
        round.stop_sent = false;
        for k in 0..2 {
            let after = round.game.after(&[moves[1 - k]]);
            let member_limits = limits_for(&self.slots[slots[k]].spec, &limits);
            start_search(
                &mut self.slots[slots[k]],
                &after.command,
                &member_limits,
                Request {
                    round: round.id,
                    mate: false,
                },
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
        let d = exchange::phase2(&views);
        for k in [1usize, 0] {
            let mv = ex.first_got[k].best.mv().expect("phase 1 moves are moves");
            let ja = round.game.japanese(&[mv]).join(" ");
            let name = order
                .get(k)
                .map_or(String::new(), |&i| self.slots[i].name.clone());
            self.say(annotate::exchange_line(
                Verdict::of(k == d.chosen),
                mv.as_str(),
                &ja,
                views[k].average(),
                [views[k].by1, views[k].by2],
                &name,
            ));
        }
        for (k, &i) in order.iter().enumerate() {
            self.slots[i].prev = ex.first_got[k].score;
        }
        let got = ex.first_got[d.chosen].clone();
        self.emit_decision(&round, &got);
    }
}
