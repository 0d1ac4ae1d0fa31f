//! What members say: `info` (scores, PVs, the relay to the GUI), `bestmove` checked by the
//! rules core, broken answers, and mate claims verified before they count.

use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::gougi::answer::{Answer, Eval};
use crate::gougi::game::AnswerRefused;
use crate::gougi::options::InfoRelay;
use crate::gougi::policy::{Behaviour, Shape};
use crate::gougi::{ranges, verify};
use crate::mate::MateTable;
use crate::member::Role;
use crate::usi::{
    BestMove, EngineMessage, GuiCommand, Info, InfoScore, InfoText, Score, MATE_LIKE_CP,
};

use super::members::send;
use super::output::score_text;
use super::state::{leader_every, Got, RoundKind, SlotState, READY_SAY_LIMIT};
use super::Coordinator;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn on_message(&mut self, i: usize, message: EngineMessage) {
        let state = self.slots[i].state;
        match message {
            EngineMessage::IdName(name) if state == SlotState::Handshaking => {
                if self.slots[i].spec.display_name.is_none() {
                    self.slots[i].name = name.into();
                }
            }
            EngineMessage::Option(decl) if state == SlotState::Handshaking => {
                self.slots[i].options.push(decl)
            }
            EngineMessage::UsiOk if state == SlotState::Handshaking => self.on_usiok(i),
            EngineMessage::ReadyOk => {
                let slot = &mut self.slots[i];
                if slot.state == SlotState::Readying {
                    slot.state = SlotState::Ready;
                    if self.in_game {
                        send(slot, &GuiCommand::UsiNewGame);
                    }
                    info!(member = slot.spec.number, "restarted member is ready");
                }
                slot.awaiting_ready = false;
                slot.ready_since = None;
                self.try_answer_ready();
            }
            EngineMessage::Info(info) => self.on_info(i, info),
            EngineMessage::BestMove(best) => self.on_bestmove(i, best),
            EngineMessage::Checkmate(cm) => self.on_checkmate(i, cm),
            EngineMessage::Unknown(line) => {
                if line.trim_start().starts_with("bestmove") {
                    // An unparsable bestmove still answers a request: count it, use nothing.
                    self.on_unusable_answer(i, &line);
                } else if !line.trim().is_empty() {
                    debug!(
                        member = self.slots[i].spec.number,
                        line, "ignored member line"
                    );
                }
            }
            other => {
                debug!(member = self.slots[i].spec.number, line = %other, "ignored member line")
            }
        }
    }

    pub(super) fn on_info(&mut self, i: usize, mut info: Info) {
        if let Some(InfoText::String(text)) = &info.text {
            let slot = &mut self.slots[i];
            let loading = slot.awaiting_ready || slot.state == SlotState::Readying;
            if loading {
                // What a member says while it loads (which evaluation file, or why it could
                // not read it) is the user's only sign of a wrong path: a member whose net
                // failed to load plays on with its default evaluation.
                slot.ready_said += 1;
                if slot.ready_said <= READY_SAY_LIMIT {
                    let line = format!("info string {}: {text}", slot.label());
                    self.say(line);
                }
                return;
            }
        }
        if !self.owes_current(i) {
            // A late line, or a mate member's progress on its own position. The reference
            // wrapped the mate member's lines as `info string info …`: noise in the GUI's
            // thinking pane, and not about the position it shows. Their results (`checkmate`)
            // are reported when they come.
            debug!(member = self.slots[i].spec.number, line = %info, "info not relayed");
            return;
        }
        // Before the turn to the side to move: `mate 0` is judged as the member printed it
        // (turned, it would read as `mate -0`, a loss it never claimed).
        self.keep_in_range(i, &mut info);
        // Members that score from Black's side (gpsusi does) are turned to the side to move
        // here, once, so policies, history, annotated lines and the relay all agree.
        if self.slots[i].spec.black_view_scores {
            let white_to_move = self
                .round
                .as_ref()
                .is_some_and(|r| !r.game_of(i).black_to_move());
            if white_to_move {
                if let Some(s) = &mut info.score {
                    s.score = s.score.negate();
                }
            }
        }
        // Never pass on an illegal move: a PV is cut before its first illegal move (a member's
        // PV stitched from its hash table can hold one), before anything stores or relays it.
        if let Some(InfoText::Pv(tokens)) = &info.text {
            let moves = info.pv_moves();
            let game = self.round.as_ref().map_or(&self.game, |r| r.game_of(i));
            let legal = game.legal_prefix(&moves);
            if legal < tokens.len() {
                debug!(member = self.slots[i].spec.number, line = %info, kept = legal, "PV cut at an illegal move");
                let kept: Vec<String> = tokens[..legal].to_vec();
                info.text = (!kept.is_empty()).then_some(InfoText::Pv(kept));
            }
        }
        let slot = &mut self.slots[i];
        if self.config.policy.info().multipv_vote {
            if let (
                Some(InfoScore {
                    bound: crate::usi::Bound::Exact,
                    ..
                }),
                Some(_),
            ) = (&info.score, info.pv_moves().first())
            {
                // Ranks beyond 64 are nobody's candidates; they would only grow the list.
                let k = info.multipv.unwrap_or(1) as usize;
                if (1..=64).contains(&k) {
                    if slot.lines.len() < k {
                        slot.lines.resize(k, None);
                    }
                    slot.lines[k - 1] = Some(info.clone());
                }
            }
        }
        if info.is_main_line() {
            if let Some(InfoScore {
                score,
                bound: crate::usi::Bound::Exact,
            }) = info.score
            {
                slot.last_score = Some(score);
                slot.last_info = Some(info.clone());
            }
            let pv = info.pv_moves();
            if !pv.is_empty() {
                slot.last_pv = pv;
                slot.last_pv_line = Some(info.clone());
                if self.config.policy.info().pv_mates && slot.spec.role == Role::Normal {
                    self.queue_pv_mates(i);
                }
            }
        }
        self.relay_info(i, info);
    }

    /// Out-of-range values in member `i`'s line, clamped or dropped where the line is taken in
    /// (`gougi::ranges`), so every reader after this sees the same numbers. The GUI is told
    /// once per member and run; cut counters (`hashfull`, `seldepth`) are only logged, as no
    /// decision reads them.
    fn keep_in_range(&mut self, i: usize, info: &mut Info) {
        let adjusted = ranges::keep_in_range(info);
        if adjusted == ranges::Adjusted::default() {
            return;
        }
        let slot = &mut self.slots[i];
        let (number, who) = (slot.spec.number, slot.label());
        debug!(member = number, ?adjusted, line = %info, "info kept within range");
        let mut say = Vec::new();
        if let Some(cp) = adjusted.cp {
            if !std::mem::replace(&mut slot.warned.cp, true) {
                let bound = if cp < 0 { -MATE_LIKE_CP } else { MATE_LIKE_CP };
                warn!(member = number, cp, bound, "score cp out of range; clamped");
                say.push(format!(
                    "info string [Warning] {who}: score cp {} out of range; clamped to {bound}",
                    ranges::claimed_cp(cp)
                ));
            }
        }
        if adjusted.mate_zero && !std::mem::replace(&mut slot.warned.mate_zero, true) {
            warn!(member = number, "score mate 0 ignored");
            say.push(format!(
                "info string [Warning] {who}: score mate 0 is ambiguous (mated now, or a win \
                 of unknown length); its score is ignored"
            ));
        }
        for line in say {
            self.say(line);
        }
    }

    pub(super) fn relay_info(&mut self, i: usize, mut info: Info) {
        let mode = self.options.info_relay;
        let Some(round) = &mut self.round else { return };
        // Exchange phase 2 searches after the other member's move: its lines are about another
        // position (the PV is the other side's, the score has the other sign).
        if round.kind == RoundKind::Tsume || round.elsewhere.contains_key(&i) {
            return;
        }
        match mode {
            InfoRelay::None => {}
            InfoRelay::All => {
                let text_only = matches!(info.text, Some(InfoText::String(_)))
                    && info.score.is_none()
                    && info.depth.is_none();
                if text_only {
                    // A member's message is not a line of thought: it gets no number, and
                    // it is not held back by the cap (members print few, and they matter).
                    self.say(info.to_string());
                } else if info.is_main_line()
                    && (info.score.is_some() || !info.pv_moves().is_empty())
                {
                    let ordinal =
                        round.participants.iter().position(|&p| p == i).unwrap_or(0) as u32 + 1;
                    info.multipv = Some(ordinal);
                    let id = round.id;
                    let now = Instant::now();
                    for line in self.relay_cap.offer(id, i, info.to_string(), now) {
                        self.say(line);
                    }
                }
            }
            _ => {
                // The leader is the member the policy would choose if it decided now (chosen
                // again every `leader_every` lines: see there).
                round.lines_since_leader += 1;
                if round.participants.len() > 1
                    && self.config.policy.shape() == Shape::All
                    && round.lines_since_leader >= leader_every(round.participants.len())
                {
                    round.lines_since_leader = 0;
                    if let Some(leader) = self.provisional_leader() {
                        if let Some(r) = &mut self.round {
                            r.leader = Some(leader);
                        }
                    }
                }
                let Some(round) = &mut self.round else { return };
                if round.leader != Some(i) {
                    return;
                }
                // A new leader that has searched less than the old one waits until it catches
                // up: the GUI's depth must not jump back (8 → 1) when the lead changes early.
                match info.depth {
                    Some(d) if info.is_main_line() && d < round.relayed_depth => {}
                    depth => {
                        if info.is_main_line() {
                            round.relayed_depth = round.relayed_depth.max(depth.unwrap_or(0));
                        }
                        self.say(info.to_string());
                    }
                }
            }
        }
    }

    /// The policy's choice over the members' current lines (PV head and score).
    pub(super) fn provisional_leader(&self) -> Option<usize> {
        let round = self.round.as_ref()?;
        let mut order = Vec::new();
        let mut answers = Vec::new();
        for &p in &round.participants {
            let slot = &self.slots[p];
            let best = match round.answers.get(&p) {
                Some(g) => g.best.without_ponder(),
                None => BestMove::Move {
                    mv: *slot.last_pv.first()?,
                    ponder: None,
                },
            };
            let score = round.answers.get(&p).map_or(slot.last_score, |g| g.score);
            order.push(p);
            answers.push(self.answer_of(p, best, score));
        }
        let decision = self.decide_all(&answers);
        order.get(decision.chosen).copied()
    }

    pub(super) fn answer_of(&self, i: usize, best: BestMove, score: Option<Score>) -> Answer {
        let slot = &self.slots[i];
        Answer {
            number: slot.spec.number,
            name: slot.name.clone(),
            best,
            // Calibrated members' scores are compared on one win-rate scale; the annotated
            // lines still print what the member said.
            score: score
                .as_ref()
                .map(|s| Eval::from_score(s).calibrated(slot.spec.scale)),
            prev: slot
                .prev
                .as_ref()
                .map(|s| Eval::from_score(s).calibrated(slot.spec.scale)),
            weight: slot.spec.weight,
            calibrated: slot.spec.scale.is_some(),
        }
    }

    /// An unparsable `bestmove`. Some engines print a broken line just before the real one, so
    /// it is not taken as the member's answer at once: a real `bestmove` within
    /// [`GARBAGE_GRACE`] answers the request instead; otherwise (or at a second broken line)
    /// the broken one was the answer and the member is left out of the round.
    pub(super) fn on_unusable_answer(&mut self, i: usize, line: &str) {
        let (number, who) = (self.slots[i].spec.number, self.slots[i].label());
        warn!(member = number, raw = line, "discarded unparsable bestmove");
        let for_current = self.owes_current(i);
        if for_current {
            self.say(format!(
                "info string [Error] {who}: unparsable \"{}\" discarded",
                line.trim()
            ));
        }
        let slot = &mut self.slots[i];
        if slot.garbage_at.is_none() && !slot.requests.is_empty() {
            slot.garbage_at = Some(Instant::now());
            return;
        }
        self.take_garbage_answer(i);
    }

    /// The broken `bestmove` was member `i`'s answer after all: its request is done.
    pub(super) fn take_garbage_answer(&mut self, i: usize) {
        if self.take_request(i).is_some() {
            if let Some(round) = &mut self.round {
                round.participants.retain(|&p| p != i);
            }
        }
    }

    pub(super) fn on_bestmove(&mut self, i: usize, best: BestMove) {
        if self.slots[i].spec.role != Role::Normal
            && self
                .round
                .as_ref()
                .is_none_or(|r| r.kind != RoundKind::Tsume)
        {
            // A mate member answering a plain go: take it as its answer to whatever it owed.
            self.slots[i].take_answer();
            return;
        }
        // A real answer after a broken one is the answer (`take_answer` forgets the broken one).
        if self.take_request(i).is_none() {
            return;
        }
        let Some(round) = &self.round else { return };
        // Check the move against the rules before it can win (never relay an illegal move).
        let game = round.game_of(i);
        let verdict = match &best {
            BestMove::Move { mv, .. } => game.check(mv),
            BestMove::Win if !game.declaration_is_legal() && game.board.is_some() => {
                Err(AnswerRefused::Declaration)
            }
            _ => Ok(()),
        };
        let (number, who) = (self.slots[i].spec.number, self.slots[i].label());
        if let Err(reason) = verdict {
            warn!(member = number, raw = %best, reason = %reason, "discarded bestmove");
            self.say(format!(
                "info string [Error] {who}: illegal {best} discarded ({reason})"
            ));
            if let Some(round) = &mut self.round {
                round.participants.retain(|&p| p != i);
            }
            return;
        }
        // Drop a ponder move that is not legal after the move; it would mislead the GUI.
        let best = match best {
            BestMove::Move {
                mv,
                ponder: Some(p),
            } if game.after(&[mv]).check(&p).is_err() => BestMove::Move { mv, ponder: None },
            other => other,
        };
        // It answered: whatever failed before, it works now.
        self.slots[i].failures = 0;
        let slot = &self.slots[i];
        let mut got = Got {
            best,
            score: slot.last_score,
            info: slot.last_info.clone(),
            pv: slot.last_pv.clone(),
            // The first line's move is the `bestmove`, which stands for it.
            lines: slot.lines.iter().skip(1).flatten().cloned().collect(),
        };
        if let Some(reason) = self.unverified_mate_claim(i, &got) {
            warn!(member = number, raw = %got.best, reason = %reason, "mate claim not confirmed; score ignored");
            let claim = got.score.map(|s| score_text(&s)).unwrap_or_default();
            self.say(format!(
                "info string [Warning] {who}: {claim} for {} not confirmed by the mate solver ({reason}); its score is ignored",
                got.best.token()
            ));
            got.score = None;
        }
        // The reference printed a line per answer on arrival, then the same lines again with
        // [O]/[X] at the decision: the decision's lines alone say it all.
        if let Some(round) = &mut self.round {
            round.answers.insert(i, got);
        }
    }

    /// With `G_MateVerifyMs` > 0: when member `i` answers with a winning `score mate`, the
    /// built-in solver checks that its move forces mate within the slice (capped by the round's
    /// deadline). `Some(reason)` when the claim was refuted or could not be confirmed — the
    /// caller then drops the score (see `verify.rs`).
    pub(super) fn unverified_mate_claim(&mut self, i: usize, got: &Got) -> Option<String> {
        let Some(Score::Mate(m)) = got.score else {
            return None;
        };
        let ms = self.options.mate_verify_ms;
        let round = self.round.as_ref()?;
        if !m.winning || ms == 0 || round.kind == RoundKind::Tsume {
            return None;
        }
        let BestMove::Move { mv, .. } = got.best else {
            return None;
        };
        let pos = round.game_of(i).board.clone()?;
        let m = pos.parse_usi_move(&mv.to_string()).ok()?;
        let mut budget = Duration::from_millis(ms);
        if let Some(limit) = round.soft.or(round.hard) {
            budget = budget.min(limit.saturating_duration_since(Instant::now()));
        }
        if budget.is_zero() {
            return Some("no time left to verify".into());
        }
        let table = self
            .verify_table
            .get_or_insert_with(|| MateTable::new(verify::VERIFY_TABLE_MB));
        match verify::verify_mate_claim(&pos, m, budget, table) {
            verify::Claim::Confirmed => {
                debug!(member = self.slots[i].spec.number, mv = %mv, "mate claim confirmed");
                None
            }
            verify::Claim::Refuted(r) | verify::Claim::Unconfirmed(r) => Some(r),
        }
    }
}
