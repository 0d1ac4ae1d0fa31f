//! The `split` type's rounds (最善手予測分割, best-move-prediction split; the tree and its
//! minimax are `policy/split.rs`).
//!
//! 1. **Prediction.** When the opponent replied as predicted, the line gougi played last move
//!    predicts (it comes from a leaf's search, two plies deeper than the root's). Otherwise the
//!    first member asked searches the position with `G_SplitPredict` percent of the round's
//!    budget (its nodes, or its clock) and `MultiPV` 2 when it declares that option (its usual
//!    value is sent back before its next search), and its lines predict. A `go ponder` or
//!    `go infinite` round always runs that search, until `ponderhit` (then for
//!    `G_SplitPredict` percent of the move's clock) or `stop`, the line played first in the
//!    prediction. `G_SplitPredict=0` never searches to predict under a playing `go`.
//! 2. **Leaves.** The tree grown for the members up now: each member searches one leaf with
//!    the same budget — the round's nodes less the prediction's, or the clock left to the hard
//!    deadline. A leaf is the position after its path; a rest is `go searchmoves` with its moves,
//!    or for a member with `Engine<N>.SearchMoves=false`, the position after each of them in
//!    turn, each with an equal share (its value: the best of minus the replies).
//! 3. **Decision.** The values back up by minimax; the best line's first move is played, with
//!    the line (the path, then the leaf member's PV) as the final `info`. A member that died or
//!    answered after the hard deadline loses its leaf only; with no value at the root the
//!    prediction's move is played (else the usual fallback). The mate guard's verified mate
//!    comes first, as with every type; so does a verified mate the prediction found.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::gougi::answer::Eval;
use crate::gougi::deadline;
use crate::gougi::game::Game;
use crate::gougi::options::InfoRelay;
use crate::gougi::policy::leader;
use crate::gougi::policy::split::{self as tree, Prediction, Step, Tree};
use crate::member::MemberHandle;
use crate::usi::{
    BestMove, Bound, GoLimits, GuiCommand, Info, InfoText, Mate, Score, SetOption, UsiMove,
};

use super::limits::{scale_limits, told};
use super::members::{send, start_search, stop_search, usual};
use super::state::{Got, Round, RoundKind, SplitState, Work};
use super::Coordinator;

/// The lines the prediction asks for (`MultiPV`): the top two moves.
const PREDICT_LINES: u32 = 2;

/// Below this clock a leaf search (or a rest's next position) is not started.
const MIN_SEARCH_MS: u64 = 20;

/// The legal moves after `path`, without the non-promotions no engine plays (a pawn, bishop or
/// rook that could promote), in the rules core's order.
fn legal_after(game: &Game, path: &[UsiMove]) -> Vec<UsiMove> {
    let after = game.after(path);
    let Some(b) = &after.board else {
        return Vec::new();
    };
    b.legal_moves()
        .as_slice()
        .iter()
        .filter(|&&m| !b.is_inferior_non_promotion(m))
        .filter_map(|m| UsiMove::parse(&m.to_string()).ok())
        .collect()
}

/// `score`, found `plies` plies below the root, from the root's side (a mate `plies` longer).
fn at_root(score: Score, plies: usize) -> Score {
    let score = match score {
        Score::Mate(m) => Score::Mate(Mate {
            plies: m.plies.map(|p| p.saturating_add(plies as u32)),
            ..m
        }),
        cp => cp,
    };
    if plies % 2 == 1 {
        score.negate()
    } else {
        score
    }
}

/// `limits` with `pct` percent of their budget: nodes, depth (at least 1), movetime and clock.
fn share(limits: &GoLimits, black: bool, pct: u64) -> GoLimits {
    let part = |n: u64| (n.saturating_mul(pct) / 100).max(1);
    let mut l = scale_limits(limits, black, pct as f64 / 100.0);
    l.nodes = limits.nodes.map(part);
    l.depth = limits.depth.map(|d| part(u64::from(d)) as u32);
    l.movetime = limits.movetime.map(|t| t.saturating_mul(pct) / 100);
    l
}

impl<W: std::io::Write> Coordinator<W> {
    /// At a `go` (not `go mate`): the prediction's member when there is a prediction search
    /// (its limits into `request`, the round's soft deadline cut to its share), else the
    /// members whose leaves this already started (see [`Self::split_leaves`]).
    pub(super) fn split_plan(
        &mut self,
        round: &mut Round,
        normals: &[usize],
        request: &mut GoLimits,
        black: bool,
    ) -> Vec<usize> {
        let pct = self.options.split_predict_pct;
        let mut state = SplitState::new(normals.to_vec());
        let play = round.kind == RoundKind::Play;
        // The line played last move, when the game followed it, predicts for free (and from
        // a search as deep as a leaf's): a playing `go` then needs no prediction search.
        let predicting =
            normals.len() >= 2 && (!play || (pct > 0 && self.split_line(&round.game).is_none()));
        // The leaves get what the prediction leaves of the round's nodes.
        let predicted = share(&round.limits, black, pct)
            .nodes
            .filter(|_| predicting);
        state.leaf_nodes =
            (round.limits.nodes).map(|n| n.saturating_sub(predicted.unwrap_or(0)).max(1));
        if predicting {
            let p = normals[0];
            state.predicting = Some(p);
            self.split_multipv(p, true);
            if matches!(round.kind, RoundKind::Play | RoundKind::Ponder) {
                *request = share(request, black, pct);
                if let Some(soft) = round.soft {
                    let span = soft.saturating_duration_since(round.started);
                    round.soft = Some(round.started + span.mul_f64(pct as f64 / 100.0));
                }
            }
            round.split = Some(state);
            return vec![p];
        }
        round.split = Some(state);
        self.split_leaves(round)
    }

    /// After `ponderhit`: the prediction runs for its share of the move's clock.
    pub(super) fn split_ponderhit(&mut self) {
        let pct = self.options.split_predict_pct as f64 / 100.0;
        let Some(round) = &mut self.round else { return };
        if round.split.as_ref().is_some_and(|s| s.predicting.is_some()) {
            if let Some(soft) = round.soft {
                let span = soft.saturating_duration_since(round.started);
                round.soft = Some(round.started + span.mul_f64(pct));
            }
        }
    }

    /// `MultiPV` for member `i`: [`PREDICT_LINES`] for its prediction (`predict`), else its
    /// usual value when it still holds the prediction's. Sent after a `stop` it may owe, so it
    /// reaches the member between two searches.
    fn split_multipv(&mut self, i: usize, predict: bool) {
        let instance = self.slots[i]
            .handle
            .as_ref()
            .map_or(0, MemberHandle::instance);
        let held = self.per_game.split.multipv == Some((i, instance));
        let slot = &mut self.slots[i];
        if !slot.options.iter().any(|d| d.name == "MultiPV") || predict == held {
            return;
        }
        let o = if predict {
            SetOption {
                name: "MultiPV".into(),
                value: Some(PREDICT_LINES.to_string()),
            }
        } else {
            match usual(slot, "MultiPV") {
                Some(o) => o,
                None => return,
            }
        };
        stop_search(slot, Instant::now());
        send(slot, &GuiCommand::SetOption(o));
        self.per_game.split.multipv = predict.then_some((i, instance));
    }

    /// The prediction as lines, best first: the line played last move if the game followed it,
    /// then what the prediction search found.
    fn split_lines(&self, round: &Round, state: &SplitState) -> Vec<Vec<UsiMove>> {
        let mut lines: Vec<Vec<UsiMove>> = self.split_line(&round.game).into_iter().collect();
        if let Some((_, got)) = &state.first {
            if let Some(mv) = got.best.mv() {
                let mut main = vec![mv];
                if got.pv.first() == Some(&mv) {
                    main.extend_from_slice(&got.pv[1..]);
                }
                lines.push(main);
            }
            lines.extend(got.lines.iter().map(Info::pv_moves));
        }
        lines
    }

    /// The line played last move, from `game` on, when the game followed it.
    fn split_line(&self, game: &Game) -> Option<Vec<UsiMove>> {
        let (at, line) = self.per_game.split.line.as_ref()?;
        (*at == game.command.to_string() && !line.is_empty()).then(|| line.clone())
    }

    /// Grow the tree for the members up now and start every member on its leaf. Returns the
    /// members searching (none: nobody is up).
    fn split_leaves(&mut self, round: &mut Round) -> Vec<usize> {
        let Some(mut state) = round.split.take() else {
            return Vec::new();
        };
        let members: Vec<usize> = (state.members.iter().copied())
            .filter(|&i| self.slots[i].usable())
            .collect();
        let lines = self.split_lines(round, &state);
        let prediction = Prediction::from_lines(lines.iter().map(Vec::as_slice));
        let game = round.game.clone();
        state.tree = Tree::grow(&prediction, members.len(), &mut |p| legal_after(&game, p));
        let searchmoves: Vec<bool> = (members.iter())
            .map(|&i| self.slots[i].spec.searchmoves)
            .collect();
        let leaf_of = state.tree.assign(&searchmoves);
        let now = Instant::now();
        let mut limits = GoLimits {
            nodes: state.leaf_nodes,
            depth: round.limits.depth,
            ..Default::default()
        };
        if let Some(hard) = round.hard {
            let left = hard.saturating_duration_since(now);
            let clock = deadline::leader_share(left, self.options.margin_ms, 1);
            limits.btime = Some(0);
            limits.wtime = Some(0);
            limits.byoyomi = Some(clock.as_millis() as u64);
            round.soft = Some(now + clock);
        }
        round.answers.clear();
        round.stop_sent = false;
        round.relayed_depth = 0;
        state.work.clear();
        for (k, &i) in members.iter().enumerate() {
            let leaf = leaf_of[k];
            let mut w = Work {
                slot: i,
                leaf,
                queue: VecDeque::new(),
                current: None,
                done: Vec::new(),
                rest: 0,
            };
            let path = state.tree.path(leaf);
            match &state.tree.nodes[leaf].step {
                Some(Step::Rest(moves)) if !self.slots[i].spec.searchmoves => {
                    w.queue = moves.iter().copied().collect();
                    w.rest = moves.len();
                    let first = w.queue.pop_front().expect("a rest has two moves or more");
                    let l = self.position_limits(round, &limits, &w);
                    self.start_leaf(round, i, &[path, vec![first]].concat(), None, &l);
                    w.current = Some(first);
                }
                Some(Step::Rest(moves)) => {
                    self.start_leaf(round, i, &path, Some(moves.clone()), &limits);
                }
                _ => self.start_leaf(round, i, &path, None, &limits),
            }
            state.work.push(w);
        }
        let mut line = tree::ROOT;
        while let Some(&c) = state.tree.nodes[line].children.first() {
            line = c;
        }
        state.principal = (state.work.iter())
            .find(|w| w.leaf == line && w.rest == 0)
            .map(|w| w.slot);
        round.participants = members.clone();
        round.leader = None;
        round.split = Some(state);
        members
    }

    /// The limits of a rest's next position: an equal share of the leaf's nodes, or of the
    /// clock left for each position still to search.
    fn position_limits(&self, round: &Round, leaf: &GoLimits, w: &Work) -> GoLimits {
        let mut l = leaf.clone();
        l.nodes = leaf.nodes.map(|n| (n / w.rest.max(1) as u64).max(1));
        if let Some(hard) = round.hard {
            let left = hard.saturating_duration_since(Instant::now());
            let searches = w.queue.len() as u32 + 1;
            let clock = deadline::leader_share(left, self.options.margin_ms, searches);
            l.byoyomi = Some(clock.as_millis() as u64);
        }
        l
    }

    /// Start member `i` on the position after `path` (restricted to `searchmoves`).
    fn start_leaf(
        &mut self,
        round: &mut Round,
        i: usize,
        path: &[UsiMove],
        searchmoves: Option<Vec<UsiMove>>,
        limits: &GoLimits,
    ) {
        self.split_multipv(i, false);
        let game = round.game.after(path);
        let black = game.black_to_move();
        let limits = GoLimits {
            searchmoves,
            ponder: round.kind == RoundKind::Ponder,
            ..limits.clone()
        };
        let margin = self.options.margin_ms;
        let slot = &mut self.slots[i];
        let told = told(slot, &limits, black);
        start_search(
            slot,
            &game.command.to_string(),
            &told,
            round.id,
            false,
            black,
            margin,
        );
        slot.clear_round();
        // Its lines are about another position (or a restricted one): `split_relay` says
        // what the GUI sees of them.
        round.elsewhere.insert(i, game);
    }

    /// Before a round decides (`maybe_finish`): a rest searched as positions that answered one
    /// takes its value and goes on to the next position while the round goes on.
    pub(super) fn split_advance(&mut self) {
        let Some(mut round) = self.round.take() else {
            return;
        };
        if let Some(mut state) = round.split.take() {
            for k in 0..state.work.len() {
                let (slot, leaf) = (state.work[k].slot, state.work[k].leaf);
                let Some(m) = state.work[k].current else {
                    continue;
                };
                let Some(got) = round.answers.get(&slot).cloned() else {
                    continue;
                };
                let scale = self.slots[slot].spec.scale;
                let value = leaf_value(&got, scale).map(|v| leader::value_of_reply(Eval(v as i32)));
                let w = &mut state.work[k];
                w.done.push((m, value, got));
                w.current = None;
                let now = Instant::now();
                let going = round.kind == RoundKind::Play
                    && !round.stop_sent
                    && !round.gui_stopped
                    && round
                        .hard
                        .is_none_or(|h| h > now + Duration::from_millis(MIN_SEARCH_MS));
                if !going {
                    continue;
                }
                let Some(next) = w.queue.pop_front() else {
                    continue;
                };
                let leaf_limits = GoLimits {
                    nodes: state.leaf_nodes,
                    depth: round.limits.depth,
                    btime: round.hard.map(|_| 0),
                    wtime: round.hard.map(|_| 0),
                    ..Default::default()
                };
                let l = self.position_limits(&round, &leaf_limits, &state.work[k]);
                let mut path = state.tree.path(leaf);
                path.push(next);
                round.answers.remove(&slot);
                self.start_leaf(&mut round, slot, &path, None, &l);
                state.work[k].current = Some(next);
            }
            round.split = Some(state);
        }
        self.round = Some(round);
    }

    /// The type's decision: the prediction's end starts the leaves; the leaves' end decides.
    pub(super) fn finish_split(&mut self, mut round: Round) {
        let Some(mut state) = round.split.take() else {
            self.finish_all(round);
            return;
        };
        if let Some(p) = state.predicting.take() {
            state.first = round.answers.get(&p).map(|g| (p, g.clone()));
            let mate = state.first.as_ref().is_some_and(|(_, g)| {
                g.score
                    .is_some_and(|s| matches!(s, Score::Mate(m) if m.winning))
            });
            let moved = state
                .first
                .as_ref()
                .is_some_and(|(_, g)| g.best.mv().is_some());
            let time = round
                .hard
                .is_none_or(|h| h > Instant::now() + Duration::from_millis(MIN_SEARCH_MS));
            if round.kind == RoundKind::Play && !round.gui_stopped && time && moved && !mate {
                round.split = Some(state);
                if !self.split_leaves(&mut round).is_empty() {
                    self.round = Some(round);
                    return;
                }
            }
            // No leaves: the prediction's answer decides, as a round of one member.
            self.finish_all(round);
            return;
        }
        self.split_decide(round, state);
    }

    /// A member's line during the leaves: the heaviest leaf's member is relayed as seen from
    /// the root (the path before its PV, its score from the root's side); the others' lines
    /// are about other positions and are not. Returns whether the line was the type's to
    /// handle (a split round's leaves).
    pub(super) fn split_relay(&mut self, i: usize, info: &Info) -> bool {
        let Some(round) = &mut self.round else {
            return false;
        };
        let Some(state) = &round.split else {
            return false;
        };
        if state.work.is_empty() {
            return false;
        }
        let Some(w) = state.work.iter().find(|w| Some(w.slot) == state.principal) else {
            return true;
        };
        if w.slot != i || self.options.info_relay == InfoRelay::None || !info.is_main_line() {
            return true;
        }
        let path = state.tree.path(w.leaf);
        let mut line = info.clone();
        if let Some(s) = &mut line.score {
            s.score = at_root(s.score, path.len());
            if path.len() % 2 == 1 {
                // A bound on the other side's score bounds ours the other way.
                s.bound = match s.bound {
                    Bound::Lower => Bound::Upper,
                    Bound::Upper => Bound::Lower,
                    Bound::Exact => Bound::Exact,
                };
            }
        }
        if let Some(InfoText::Pv(tokens)) = &line.text {
            let mut moves: Vec<String> = path.iter().map(|m| m.to_string()).collect();
            moves.extend(tokens.iter().cloned());
            line.text = Some(InfoText::Pv(moves));
        }
        let plies = path.len() as u32;
        line.depth = line.depth.map(|d| d + plies);
        line.seldepth = line.seldepth.map(|d| d + plies);
        match line.depth {
            Some(d) if d < round.relayed_depth => {}
            depth => {
                round.relayed_depth = round.relayed_depth.max(depth.unwrap_or(0));
                self.say(line.to_string());
            }
        }
        true
    }
}

/// A member's answer as a value for the side to move where it searched (calibrated): its
/// score; without one, a declaration wins and a resignation loses.
fn leaf_value(got: &Got, scale: Option<f64>) -> Option<i64> {
    let eval = match (got.score, got.best) {
        (Some(s), _) => Eval::from_score(&s).calibrated(scale),
        (None, BestMove::Win) => Eval(Eval::MATE),
        (None, BestMove::Resign) => Eval(-Eval::MATE),
        (None, _) => return None,
    };
    Some(i64::from(eval.0))
}

mod decide;
