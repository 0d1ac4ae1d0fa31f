//! The `split` type's decision: the leaves' values backed up, the lines for the GUI.

use tracing::{info, warn};

use crate::gougi::annotate::{MemberLine, Verdict};
use crate::gougi::policy::split::{self as tree, Found, Step};
use crate::gougi::policy::{Reason, Why};
use crate::usi::{BestMove, UsiMove};

use super::super::output::score_text;
use super::super::state::{Got, Round, SplitState, Work};
use super::super::Coordinator;
use super::{at_root, leaf_value};

impl<W: std::io::Write> Coordinator<W> {
    /// What member `w` found at its leaf.
    fn split_found(&self, round: &Round, w: &Work) -> Option<Found> {
        if w.rest > 0 {
            let best = w
                .done
                .iter()
                .filter_map(|(m, v, _)| v.map(|v| (*m, v)))
                .fold(None, |b: Option<(UsiMove, i64)>, x| match b {
                    Some(b) if b.1 >= x.1 => Some(b),
                    _ => Some(x),
                })?;
            return Some(Found {
                value: Some(best.1),
                mv: Some(best.0),
            });
        }
        let got = round.answers.get(&w.slot)?;
        Some(Found {
            value: leaf_value(got, self.slots[w.slot].spec.scale),
            mv: got.best.mv(),
        })
    }

    /// Member `w`'s answer as the GUI sees it: the moves from the root to the position it
    /// answered in, and that answer (a rest searched as positions: its best position's).
    fn split_answer(
        &self,
        state: &SplitState,
        round: &Round,
        w: &Work,
    ) -> Option<(Vec<UsiMove>, Got)> {
        let mut path = state.tree.path(w.leaf);
        if w.rest > 0 {
            let mut best: Option<&(UsiMove, Option<i64>, Got)> = None;
            for d in &w.done {
                if best.is_none_or(|b| d.1.is_some() && (b.1.is_none() || d.1 > b.1)) {
                    best = Some(d);
                }
            }
            let (m, _, got) = best?;
            path.push(*m);
            return Some((path, got.clone()));
        }
        Some((path, round.answers.get(&w.slot)?.clone()))
    }

    pub(super) fn split_decide(&mut self, round: Round, state: SplitState) {
        let found: Vec<Option<Found>> = (state.work.iter())
            .map(|w| self.split_found(&round, w))
            .collect();
        let leaf_of: Vec<usize> = state.work.iter().map(|w| w.leaf).collect();
        let b = tree::backup(&state.tree, &leaf_of, &found);
        let text = tree::render(&state.tree, &b, &found, &|n| {
            let who: Vec<String> = (state.work.iter())
                .filter(|w| w.leaf == n)
                .map(|w| {
                    let e = format!("E{}", self.slots[w.slot].number());
                    match w.rest {
                        0 => e,
                        all => format!("{e}[{}/{all}]", w.done.len()),
                    }
                })
                .collect();
            who.join("+")
        });
        let played = b.played(&state.tree, &found);
        let chosen = b.leaf().and_then(|l| b.by[l]).map(|m| &state.work[m]);
        let line = chosen.and_then(|w| self.split_answer(&state, &round, w));
        let (Some(mv), Some((path, leaf_got))) = (played, line) else {
            self.split_fallback(round, state, text);
            return;
        };
        // The line from the root: the path, then the member's PV (or its move).
        let mut pv = path.clone();
        match leaf_got.best.mv() {
            Some(m) if leaf_got.pv.first() == Some(&m) => pv.extend_from_slice(&leaf_got.pv),
            Some(m) => pv.push(m),
            None => {}
        }
        let ponder = pv
            .get(1)
            .copied()
            .filter(|p| round.game.after(&[mv]).check(p).is_ok());
        let got = Got {
            best: BestMove::Move { mv, ponder },
            score: leaf_got.score.map(|s| at_root(s, path.len())),
            info: leaf_got.info.clone(),
            pv: pv.clone(),
            lines: Vec::new(),
        };
        info!(round = round.id, mv = %mv, tree = %text, "split decided");
        self.split_check_searchmoves(&round, &state);
        for w in state.work.iter().rev() {
            let Some((path, g)) = self.split_answer(&state, &round, w) else {
                continue;
            };
            let on_line = match path.first() {
                Some(first) => *first == mv,
                None => g.best.mv() == Some(mv),
            };
            let line = self.split_member_line(&round, w.slot, &path, &g, Verdict::of(on_line));
            self.say(line);
        }
        let reason = Reason {
            why: Why::Split(tree::Finding { tree: text }),
            explain: state.work.len() > 1,
        };
        self.say_why(mv.as_str(), &reason);
        self.per_game.split.line = (pv.len() > 2).then(|| {
            (
                round.game.after(&pv[..2]).command.to_string(),
                pv[2..].to_vec(),
            )
        });
        let nodes = self.split_nodes(&round, &state);
        self.emit_with_nodes(&round, &got, Some(nodes));
    }

    /// The members' `[O]`/`[X]` lines when the guard's verified mate `mv` decides a round whose
    /// leaves were searched (none before): each from the root, `[O]` when its line starts
    /// with `mv`, as [`Self::split_decide`] writes them.
    pub(in super::super) fn split_mate_lines(
        &self,
        round: &Round,
        mv: UsiMove,
    ) -> Option<Vec<String>> {
        let state = round.split.as_ref().filter(|s| !s.work.is_empty())?;
        let mut out = Vec::new();
        for w in state.work.iter().rev() {
            let Some((path, g)) = self.split_answer(state, round, w) else {
                continue;
            };
            let on_line = match path.first() {
                Some(first) => *first == mv,
                None => g.best.mv() == Some(mv),
            };
            out.push(self.split_member_line(round, w.slot, &path, &g, Verdict::of(on_line)));
        }
        Some(out)
    }

    /// A member given "all other moves" by `go searchmoves` that answered another move ignores
    /// `searchmoves`: its value is the whole position's, not the rest's. The GUI is told once a
    /// game, with the setting that makes it search the rest move by move.
    fn split_check_searchmoves(&mut self, round: &Round, state: &SplitState) {
        for w in &state.work {
            let Some(Step::Rest(moves)) = &state.tree.nodes[w.leaf].step else {
                continue;
            };
            let Some(mv) = round.answers.get(&w.slot).and_then(|g| g.best.mv()) else {
                continue;
            };
            let number = self.slots[w.slot].number();
            if w.rest > 0 || moves.contains(&mv) || self.per_game.split.ignores.contains(&number) {
                continue;
            }
            self.per_game.split.ignores.push(number);
            let line = format!(
                "info string [Warning] {} answered {mv}, not one of the moves of its go searchmoves; if it ignores searchmoves, set Engine{number}.SearchMoves=false",
                self.slots[w.slot].label()
            );
            warn!("{line}");
            self.say(line);
        }
    }

    /// No leaf gave the root a value: the prediction's move, else the usual fallback.
    fn split_fallback(&mut self, mut round: Round, state: SplitState, text: String) {
        self.per_game.split.line = None;
        // The fallback's line: a member's that searched the root itself, if any.
        round.leader = (state.work.iter())
            .find(|w| w.rest == 0 && state.tree.path(w.leaf).is_empty())
            .map(|w| w.slot);
        let Some((p, got)) = state.first.clone().filter(|(_, g)| g.best.mv().is_some()) else {
            self.fallback(&round);
            return;
        };
        let mv = got.best.token().to_string();
        let line = self.split_member_line(&round, p, &[], &got, Verdict::Chosen);
        self.say(line);
        let reason = Reason {
            why: Why::Split(tree::Finding {
                tree: format!("{text}; no leaf has a value: the prediction's move"),
            }),
            explain: true,
        };
        self.say_why(&mv, &reason);
        let nodes = self.split_nodes(&round, &state);
        self.emit_with_nodes(&round, &got, Some(nodes));
    }

    /// A member's `[O]`/`[X]` line: its answer, named in Japanese from the root (the path to
    /// its position first).
    fn split_member_line(
        &self,
        round: &Round,
        i: usize,
        path: &[UsiMove],
        got: &Got,
        verdict: Verdict,
    ) -> String {
        let slot = &self.slots[i];
        let mut moves = path.to_vec();
        moves.extend(got.best.mv());
        moves.extend(got.best.ponder());
        let ja = match got.best {
            BestMove::Resign => "投了".to_string(),
            BestMove::Win => "入玉宣言".to_string(),
            _ => round.game.japanese(&moves).join(" "),
        };
        let score = got.score.map_or(String::new(), |s| score_text(&s));
        MemberLine {
            verdict,
            bestmove: &got.best.to_string(),
            ja: &ja,
            score: &score,
            history: None,
            name: &slot.name,
        }
        .render()
    }

    /// Every search's nodes this round: the prediction's, each leaf's, each position's.
    fn split_nodes(&self, round: &Round, state: &SplitState) -> u64 {
        let nodes = |g: &Got| g.info.as_ref().and_then(|i| i.nodes).unwrap_or(0);
        let mut total = state.first.as_ref().map_or(0, |(_, g)| nodes(g));
        for w in &state.work {
            total = total.saturating_add(match w.rest {
                0 => round.answers.get(&w.slot).map_or(0, nodes),
                _ => w
                    .done
                    .iter()
                    .map(|d| nodes(&d.2))
                    .fold(0, u64::saturating_add),
            });
        }
        total
    }
}
