//! Multi-ponder (`G_MultiPonder`, issue 66): while the opponent thinks, members ponder
//! different predicted replies instead of all pondering the GUI's one.
//!
//! A single ponder is a bet on one reply; Qhapaq di molto (WCSC29) reported about 30 % more
//! effective thinking time from pondering 5–6 predicted replies on idle machines. Here each
//! participant of the GUI's `go ponder` round gets one reply: the first participant (the
//! leader) the GUI's own prediction, the next ones the other replies the members predicted at
//! the last decision (the second move of each PV that began with the move played, or its
//! ponder move), in member order, each reply once; members beyond the distinct replies ponder
//! the GUI's, as a group. It lives inside USI's ponder, so any engine does it, the built-ins
//! and members over ssh included:
//!
//! - **`ponderhit`** (the GUI's prediction came): its ponderers go on (`ponderhit`); the others
//!   are re-aimed at once (`stop`, then the real position and `go` with the clock), their
//!   stopped search's answer discarded.
//! - **A GUI-side miss** (`stop`, then `position` and `go` on another reply): gougi answers the
//!   `stop` at once as always (the GUI discards that `bestmove`), stops the members that
//!   pondered the GUI's reply, and leaves the others **parked**, still pondering. When the
//!   `go` comes for a reply a parked member pondered, that member goes on from its search
//!   (`ponderhit`, with the new clock) as if the GUI had pondered it; every other member starts
//!   the new position as usual. Anything else (another position, `gameover`) stops them.
//!
//! The GUI hears which members pondered the reply played, and the game's hit rate:
//! `info string [ponder] 8c8d: pondered by E2; hits 3 of 5 this game`.

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::gougi::answer::Answer;
use crate::gougi::deadline;
use crate::gougi::game::Game;
use crate::gougi::policy::{Behaviour, Shape};
use crate::search::alphabeta::SearchLimits;
use crate::search::Searcher;
use crate::shogi::Position;
use crate::usi::{GoLimits, GuiCommand, UsiMove};

use super::limits::{own_margin, told};
use super::members::{send, start_search, stop_search};
use super::state::{Got, Round, RoundKind};
use super::Coordinator;

/// A member pondering one predicted reply.
#[derive(Clone, Debug)]
pub(super) struct Pondering {
    /// The position it searches: the position before the reply, and the reply.
    pub(super) game: Game,
}

/// Nodes of the master's own ranking of the opponent's replies (the built-in search, MultiPV,
/// in-process): a few milliseconds, outside every member's budget, like the mate guard's check.
const RANK_NODES: u64 = 4_000;

/// Multi-ponder's state across rounds.
#[derive(Default)]
pub(super) struct MultiPonder {
    /// The built-in search that ranks replies when the members predicted fewer distinct
    /// replies than there are members to ponder them (made at first use).
    ranker: Option<Searcher>,
    /// At the last decision: (member slot, the move it proposed, the reply it predicted).
    predictions: Vec<(usize, UsiMove, UsiMove)>,
    /// Members pondering in the current ponder round, by slot.
    pondering: HashMap<usize, Pondering>,
    /// Members still pondering after the GUI stopped a ponder it missed, by slot.
    parked: HashMap<usize, Pondering>,
    /// A multi-ponder round was missed by the GUI: the next `go` says who had the reply.
    awaiting: bool,
    /// This game's ponder rounds resolved, and those whose reply a member had pondered.
    asked: u32,
    hits: u32,
}

impl MultiPonder {
    /// The opponent's best `n` replies in `board` (opponent to move), best first, by a
    /// [`RANK_NODES`] MultiPV search of the built-in engine.
    fn rank_replies(&mut self, board: &Position, n: usize) -> Vec<UsiMove> {
        let ranker = self.ranker.get_or_insert_with(|| Searcher::new(1, 1));
        let limits = SearchLimits {
            depth: None,
            nodes: Some(RANK_NODES),
            multipv: n,
        };
        ranker
            .search(board, limits, None, None)
            .lines
            .iter()
            .filter_map(|rm| UsiMove::parse(&rm.mv.to_string()).ok())
            .collect()
    }

    /// A new game: the hit rate starts again.
    pub(super) fn new_game(&mut self) {
        self.asked = 0;
        self.hits = 0;
        self.awaiting = false;
        self.predictions.clear();
    }
}

/// The request id of a search whose answer no round takes: a member re-aimed at `ponderhit`
/// answers its stopped ponder search with a move for another position.
pub(super) const DISCARDED: u64 = u64::MAX;

impl<W: std::io::Write> Coordinator<W> {
    /// At a decision: what each member predicted the opponent replies to the move played.
    pub(super) fn note_predictions(&mut self, round: &Round, got: &Got) {
        let Some(played) = got.best.mv() else {
            self.mponder.predictions.clear();
            return;
        };
        let mut predictions: Vec<(usize, UsiMove, UsiMove)> = round
            .answers
            .iter()
            .filter(|(_, a)| a.best.mv() == Some(played))
            .filter_map(|(&i, a)| {
                let reply = a.pv.get(1).copied().or(a.best.ponder())?;
                Some((i, played, reply))
            })
            .collect();
        predictions.sort_by_key(|p| p.0);
        self.mponder.predictions = predictions;
    }

    /// For a `go ponder` round: each participant's reply (see the module notes), or nothing when
    /// multi-ponder is off, fewer than two members take part, or only one reply is predicted.
    pub(super) fn assign_replies(&mut self, round: &Round) -> Vec<(usize, Pondering)> {
        if !self.options.multi_ponder || round.kind != RoundKind::Ponder {
            return Vec::new();
        }
        let moves = &round.game.command.moves;
        let (Some(&gui_reply), Some(&ours)) = (moves.last(), moves.iter().rev().nth(1)) else {
            return Vec::new();
        };
        let mut before = round.game.command.clone();
        before.moves.pop();
        let Ok(before) = Game::new(before) else {
            return Vec::new();
        };
        let mut replies = vec![gui_reply];
        for &(_, mv, reply) in &self.mponder.predictions {
            if mv == ours && !replies.contains(&reply) && before.check(&reply).is_ok() {
                replies.push(reply);
            }
        }
        let pondering: Vec<usize> = round
            .participants
            .iter()
            .copied()
            .filter(|&i| self.slots[i].spec.ponder)
            .collect();
        if pondering.len() < 2 {
            return Vec::new();
        }
        // Copies of one engine mostly predict the same reply: the members left over ponder
        // the master's next best replies instead of all pondering the GUI's.
        if replies.len() < pondering.len() {
            if let Some(board) = &before.board {
                let want = pondering.len() - replies.len();
                for reply in self.mponder.rank_replies(board, replies.len() + want) {
                    if replies.len() == pondering.len() {
                        break;
                    }
                    if !replies.contains(&reply) {
                        replies.push(reply);
                    }
                }
            }
        }
        if replies.len() < 2 {
            return Vec::new();
        }
        pondering
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let reply = replies.get(k).copied().unwrap_or(gui_reply);
                let game = if reply == gui_reply {
                    round.game.clone()
                } else {
                    before.after(&[reply])
                };
                (i, Pondering { game })
            })
            .collect()
    }

    /// Starts the ponder round's members on their replies (`assigned` from
    /// [`Self::assign_replies`]); returns the participants it started, whom the caller skips.
    pub(super) fn start_multi_ponder(
        &mut self,
        round: &mut Round,
        assigned: Vec<(usize, Pondering)>,
        request: &GoLimits,
        margin: u64,
    ) -> Vec<usize> {
        let black = round.game.black_to_move();
        let mut started = Vec::new();
        for (i, p) in assigned {
            let slot = &mut self.slots[i];
            let line = p.game.command.to_string();
            start_search(
                slot,
                &line,
                &told(slot, request, black),
                round.id,
                false,
                black,
                margin,
            );
            if p.game.command != round.game.command {
                round.elsewhere.insert(i, p.game.clone());
            }
            self.mponder.pondering.insert(i, p);
            started.push(i);
        }
        started
    }

    /// `ponderhit`: the members that pondered another reply are re-aimed at the real position
    /// with `limits` (the timed clock); the GUI hears who pondered the reply. Returns the
    /// re-aimed members, whom the caller does not send `ponderhit`.
    pub(super) fn reaim_on_ponderhit(&mut self, limits: &GoLimits, margin: u64) -> Vec<usize> {
        let pondering = std::mem::take(&mut self.mponder.pondering);
        let Some(round) = &mut self.round else {
            return Vec::new();
        };
        if pondering.is_empty() {
            return Vec::new();
        }
        let black = round.game.black_to_move();
        let line = round.game.command.to_string();
        let mut reaimed = Vec::new();
        let mut hit = Vec::new();
        for (&i, p) in &pondering {
            let slot = &mut self.slots[i];
            if p.game.command == round.game.command {
                hit.push(i);
                continue;
            }
            slot.requests.retag_newest(DISCARDED);
            round.elsewhere.remove(&i);
            start_search(
                slot,
                &line,
                &told(slot, limits, black),
                round.id,
                false,
                black,
                margin,
            );
            reaimed.push(i);
        }
        if !reaimed.is_empty() && self.config.policy.shape() == Shape::All {
            round.head_start.clone_from(&hit);
        }
        let reply = round.game.command.moves.last().copied();
        let decide = !round.head_start.is_empty();
        self.tell_ponder(reply, hit, decide);
        reaimed
    }

    /// The GUI stopped a ponder round it missed: the members that pondered another reply than
    /// the GUI's keep pondering (parked) for the `go` to come; the rest stop as usual.
    pub(super) fn park_on_miss(&mut self) {
        let pondering = std::mem::take(&mut self.mponder.pondering);
        let Some(round) = &self.round else { return };
        self.mponder.awaiting = !pondering.is_empty();
        for (i, p) in pondering {
            if p.game.command != round.game.command && self.slots[i].usable() {
                self.mponder.parked.insert(i, p);
            }
        }
    }

    /// Whether member `i` is parked (left pondering across a missed ponder's decision).
    pub(super) fn is_parked(&self, i: usize) -> bool {
        self.mponder.parked.contains_key(&i)
    }

    /// The `go` after a missed ponder: a parked member that pondered this very position goes on
    /// with `ponderhit` and `limits` (the new clock) and joins the round; every other parked
    /// member is stopped. Returns the members that went on, whom the caller does not start.
    pub(super) fn adopt_parked(&mut self, round: &mut Round, limits: &GoLimits) -> Vec<usize> {
        let parked = std::mem::take(&mut self.mponder.parked);
        let awaiting = std::mem::take(&mut self.mponder.awaiting);
        if parked.is_empty() && !awaiting {
            return Vec::new();
        }
        let now = Instant::now();
        let black = round.game.black_to_move();
        let mut adopted = Vec::new();
        for (i, p) in parked {
            let slot = &mut self.slots[i];
            let on_it = p.game.command == round.game.command && round.kind == RoundKind::Play;
            if on_it && round.participants.contains(&i) && slot.usable() {
                slot.requests.retag_newest(round.id);
                let own = own_margin(slot);
                let hit = told(slot, limits, black);
                let hit = deadline::take_lag(&hit, black, slot.clock_extra(self.options.margin_ms));
                let clock = deadline::answer_due(&hit, black, own).map(Duration::from_millis);
                send(slot, &GuiCommand::PonderHit(hit));
                slot.requests.ponderhit(now, clock);
                adopted.push(i);
            } else {
                stop_search(slot, now);
                slot.clear_round();
            }
        }
        let others = round.participants.iter().any(|i| !adopted.contains(i));
        if !adopted.is_empty() && others && self.config.policy.shape() == Shape::All {
            round.head_start.clone_from(&adopted);
        }
        if awaiting && round.kind == RoundKind::Play {
            let reply = round.game.command.moves.last().copied();
            self.tell_ponder(reply, adopted.clone(), !round.head_start.is_empty());
        }
        adopted
    }

    /// Stops the parked members (a `gameover`, or any `go` that adopts none of them).
    pub(super) fn stop_parked(&mut self) {
        let now = Instant::now();
        self.mponder.awaiting = false;
        for (i, _) in std::mem::take(&mut self.mponder.parked) {
            stop_search(&mut self.slots[i], now);
            self.slots[i].clear_round();
        }
    }

    /// One ponder resolved: `reply` was played and the members in slots `hit` had pondered
    /// it; `decide`: they decide the move by the head-start rule ([`voters`]).
    fn tell_ponder(&mut self, reply: Option<UsiMove>, hit: Vec<usize>, decide: bool) {
        let Some(reply) = reply else { return };
        self.mponder.asked += 1;
        if !hit.is_empty() {
            self.mponder.hits += 1;
        }
        let mut hit_by: Vec<u32> = hit.iter().map(|&i| self.slots[i].spec.number).collect();
        hit_by.sort_unstable();
        let who = if hit_by.is_empty() {
            "nobody".to_string()
        } else {
            hit_by
                .iter()
                .map(|n| format!("E{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = format!(
            "info string [ponder] {reply}: pondered by {who}; hits {} of {} this game",
            self.mponder.hits, self.mponder.asked
        );
        if decide {
            let verb = if hit_by.len() == 1 {
                "decides"
            } else {
                "decide"
            };
            line += &format!("; head start: {who} {verb}, the others count only with a mate");
        }
        self.say(line);
    }
}

/// The head-start rule: which answers decide a round in which some members went on from
/// pondering this very position while the others were re-aimed at it (`head_start`, slots).
/// Returns indices into `answers` (whose slots are `slots`): the head-start members' answers,
/// and any other that declares a win or scores a mate for us; `None` (every answer decides)
/// when there is no head start or none of its members gave a move.
///
/// Why: the member with the head start has searched the position for the opponent's time as
/// well as ours (in the cluster frame, twice the nodes); a re-aimed member's shallower search
/// is noisier, and under `optimistic` its higher score would outvote the deeper one. Two
/// machines with multi-ponder lost to one without this rule (−24.5 ± 54.9, journal
/// 2026-12-08). A mate needs no depth to be believed (the mate guard verifies it).
pub(super) fn voters(
    head_start: &[usize],
    slots: &[usize],
    answers: &[Answer],
) -> Option<Vec<usize>> {
    if head_start.is_empty() {
        return None;
    }
    let ahead = |k: usize| head_start.contains(&slots[k]);
    if !(0..answers.len()).any(|k| ahead(k) && answers[k].best.mv().is_some()) {
        return None;
    }
    let mate = |a: &Answer| a.is_win() || a.score.is_some_and(|s| s.is_mate() && s.0 > 0);
    let ks: Vec<usize> = (0..answers.len())
        .filter(|&k| ahead(k) || mate(&answers[k]))
        .collect();
    (ks.len() < answers.len()).then_some(ks)
}

#[cfg(test)]
mod tests {
    use super::voters;
    use crate::gougi::answer::Eval;
    use crate::gougi::policy::testutil::ans;

    #[test]
    fn the_head_start_decides_with_any_mate_for_us() {
        let mate = Eval::MATE - 7;
        let answers = [
            ans(1, "7g7f", Some(10), None),
            ans(2, "2g2f", Some(900), None),
            ans(3, "5i4h", Some(mate), None),
            ans(4, "win", None, None),
            ans(5, "3g3f", Some(-mate), None),
        ];
        let slots = [0, 1, 2, 3, 4];
        // No head start: everyone decides.
        assert_eq!(voters(&[], &slots, &answers), None);
        // E2 (slot 1) went on from its ponder: it, the mate for us and the declaration decide;
        // the fresh 900 and the mate against us do not.
        assert_eq!(voters(&[1], &slots, &answers), Some(vec![1, 2, 3]));
        // Slots need not be answer indices.
        assert_eq!(
            voters(&[7], &[9, 7], &answers[..2]),
            Some(vec![1]),
            "E2 at slot 7"
        );
        // Every answer from a head start: nothing to leave out.
        assert_eq!(voters(&[0, 1], &slots[..2], &answers[..2]), None);
    }

    #[test]
    fn a_head_start_without_a_move_leaves_the_decision_to_everyone() {
        let answers = [
            ans(1, "resign", None, None),
            ans(2, "2g2f", Some(900), None),
        ];
        assert_eq!(voters(&[0], &[0, 1], &answers), None);
        // A head-start member that did not answer at all.
        assert_eq!(voters(&[5], &[0, 1], &answers), None);
    }
}
