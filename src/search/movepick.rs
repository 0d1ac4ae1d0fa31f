//! Staged move picking (指し手オーダリング), after Stockfish's `movepick.cpp`.
//!
//! Main search, not in check: TT move → captures with SEE ≥ threshold (MVV + capture history)
//! → killers → quiets by history (butterfly + continuation 1, 2 and 4 plies back) → the
//! captures that lost the SEE test. In check: TT move → evasions (captures first, then by
//! history). Quiescence: TT move → captures (and, at the first quiescence ply, quiet checks).
//!
//! Moves come out pseudo-legal; the caller checks `is_legal` before playing them. Each move is
//! produced once: later stages skip the TT move and the killers.
//!
//! Why staged: most cutoffs happen on the TT move or a good capture, so the quiet moves of
//! most nodes are never generated or scored.

use super::board::{self, ExtMove, MoveBuf};
use super::board::{Move, Position};
use super::history::{ButterflyHistory, CaptureHistory, ContinuationHistory};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    MainTt,
    CaptureInit,
    GoodCapture,
    Killer0,
    Killer1,
    QuietInit,
    Quiet,
    BadCapture,
    EvasionTt,
    EvasionInit,
    Evasion,
    QsTt,
    QsCaptureInit,
    QsCapture,
    QsCheckInit,
    QsCheck,
    Done,
}

/// The histories a picker reads (borrowed from the worker for the node's lifetime).
pub struct Histories<'a> {
    pub main: &'a ButterflyHistory,
    pub capture: &'a CaptureHistory,
    pub cont: &'a ContinuationHistory,
    /// Continuation blocks of the moves 1, 2 and 4 plies back (or the "none" block).
    pub cont_blocks: [usize; 3],
}

/// Yields the moves of one node in a good order; see the module doc.
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    buf: Box<MoveBuf>,
    cur: usize,
    end: usize,
    bad: Box<MoveBuf>,
    bad_cur: usize,
    /// Quiet moves below this score are skipped when `skip_quiets` is set by the caller.
    see_threshold: i32,
    with_checks: bool,
}

impl MovePicker {
    /// A picker for the main search.
    pub fn new_main(
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        (mut buf, mut bad): (Box<MoveBuf>, Box<MoveBuf>),
    ) -> Self {
        buf.clear();
        bad.clear();
        let in_check = board::in_check(pos);
        let tt_move = tt_move.filter(|&m| board::is_pseudo_legal(pos, m));
        MovePicker {
            stage: if in_check {
                Stage::EvasionTt
            } else {
                Stage::MainTt
            },
            tt_move,
            killers,
            buf,
            cur: 0,
            end: 0,
            bad,
            bad_cur: 0,
            see_threshold: 0,
            with_checks: false,
        }
    }

    /// A picker for quiescence search; `with_checks` adds quiet checking moves.
    pub fn new_qsearch(
        pos: &Position,
        tt_move: Option<Move>,
        with_checks: bool,
        (mut buf, mut bad): (Box<MoveBuf>, Box<MoveBuf>),
    ) -> Self {
        buf.clear();
        bad.clear();
        let in_check = board::in_check(pos);
        // In quiescence only a capturing TT move is taken (or any move when in check).
        let tt_move = tt_move
            .filter(|&m| board::is_pseudo_legal(pos, m) && (in_check || board::is_capture(pos, m)));
        MovePicker {
            stage: if in_check {
                Stage::EvasionTt
            } else {
                Stage::QsTt
            },
            tt_move,
            killers: [None, None],
            buf,
            cur: 0,
            end: 0,
            bad,
            bad_cur: 0,
            see_threshold: 0,
            with_checks,
        }
    }

    fn score_captures(&mut self, pos: &Position, h: &Histories) {
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            let captured = board::captured_kind(pos, em.m).map_or(0, board::unpromoted);
            let victim = board::captured_kind(pos, em.m).map_or(0, |k| super::eval::PIECE_VALUE[k]);
            let promo = if em.m.is_promotion() {
                super::eval::promotion_gain(board::moved_kind(pos, em.m))
            } else {
                0
            };
            // MVV (×7, as Stockfish weighs the victim) plus the capture history.
            em.score = 7 * (victim + promo)
                + h.capture.get(
                    board::moved_piece_index(pos, em.m),
                    board::to_sq(em.m),
                    captured,
                ) / 16;
        }
    }

    fn score_quiets(&mut self, pos: &Position, h: &Histories) {
        let us = board::stm(pos);
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            let pc = board::moved_piece_index(pos, em.m);
            let to = board::to_sq(em.m);
            em.score = 2 * h.main.get(us, board::move_index(em.m))
                + 2 * h.cont.get(h.cont_blocks[0], pc, to)
                + h.cont.get(h.cont_blocks[1], pc, to)
                + h.cont.get(h.cont_blocks[2], pc, to);
        }
    }

    fn score_evasions(&mut self, pos: &Position, h: &Histories) {
        let us = board::stm(pos);
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            em.score = match board::captured_kind(pos, em.m) {
                Some(k) => {
                    1 << 28
                        | (super::eval::PIECE_VALUE[k] * 8 - board::moved_kind(pos, em.m) as i32)
                }
                None => {
                    let pc = board::moved_piece_index(pos, em.m);
                    h.main.get(us, board::move_index(em.m))
                        + h.cont.get(h.cont_blocks[0], pc, board::to_sq(em.m))
                }
            };
        }
    }

    /// Picks the best-scored remaining move of `cur..end` (selection: cheap for the few moves
    /// a cutoff node looks at).
    fn select_best(&mut self) -> Option<ExtMove> {
        if self.cur >= self.end {
            return None;
        }
        let moves = self.buf.as_mut_slice();
        let mut best = self.cur;
        for i in self.cur + 1..self.end {
            if moves[i].score > moves[best].score {
                best = i;
            }
        }
        moves.swap(self.cur, best);
        let em = moves[self.cur];
        self.cur += 1;
        Some(em)
    }

    fn is_special(&self, m: Move) -> bool {
        Some(m) == self.tt_move || Some(m) == self.killers[0] || Some(m) == self.killers[1]
    }

    /// Gives the move buffers back (for reuse by the next node).
    pub fn into_buffers(self) -> (Box<MoveBuf>, Box<MoveBuf>) {
        (self.buf, self.bad)
    }

    /// The next move, or `None` when the node is exhausted. With `skip_quiets`, quiet moves
    /// (other than the TT move already returned) are no longer produced.
    pub fn next(&mut self, pos: &Position, h: &Histories, skip_quiets: bool) -> Option<Move> {
        loop {
            match self.stage {
                Stage::MainTt | Stage::EvasionTt | Stage::QsTt => {
                    self.stage = match self.stage {
                        Stage::MainTt => Stage::CaptureInit,
                        Stage::EvasionTt => Stage::EvasionInit,
                        _ => Stage::QsCaptureInit,
                    };
                    if let Some(m) = self.tt_move {
                        return Some(m);
                    }
                }
                Stage::CaptureInit | Stage::QsCaptureInit => {
                    self.end = board::gen_captures(pos, &mut self.buf);
                    self.cur = 0;
                    self.score_captures(pos, h);
                    self.stage = if self.stage == Stage::CaptureInit {
                        Stage::GoodCapture
                    } else {
                        Stage::QsCapture
                    };
                }
                Stage::GoodCapture => match self.select_best() {
                    Some(em) => {
                        if Some(em.m) == self.tt_move {
                            continue;
                        }
                        // Losing captures wait until after the quiets (threshold scaled by the
                        // ordering score as in Stockfish: −score/18).
                        if board::see_ge(pos, em.m, -em.score / 18 + self.see_threshold) {
                            return Some(em.m);
                        }
                        self.bad.push(em.m, em.score);
                    }
                    None => {
                        self.stage = Stage::Killer0;
                    }
                },
                Stage::Killer0 | Stage::Killer1 => {
                    let i = if self.stage == Stage::Killer0 { 0 } else { 1 };
                    self.stage = if i == 0 {
                        Stage::Killer1
                    } else {
                        Stage::QuietInit
                    };
                    if let Some(k) = self.killers[i] {
                        if Some(k) != self.tt_move
                            && (i == 0 || self.killers[0] != Some(k))
                            && !skip_quiets
                            && !board::is_capture(pos, k)
                            && board::is_pseudo_legal(pos, k)
                        {
                            return Some(k);
                        }
                    }
                }
                Stage::QuietInit => {
                    self.stage = Stage::Quiet;
                    if skip_quiets {
                        self.end = 0;
                        self.cur = 0;
                        continue;
                    }
                    self.end = board::gen_quiets(pos, &mut self.buf);
                    self.cur = 0;
                    self.score_quiets(pos, h);
                    // Sort once, best first (a full sort: quiets are few enough).
                    self.buf.as_mut_slice()[..self.end]
                        .sort_unstable_by_key(|em| std::cmp::Reverse(em.score));
                }
                Stage::Quiet => {
                    if skip_quiets || self.cur >= self.end {
                        self.stage = Stage::BadCapture;
                        continue;
                    }
                    let m = self.buf.as_slice()[self.cur].m;
                    self.cur += 1;
                    if !self.is_special(m) {
                        return Some(m);
                    }
                }
                Stage::BadCapture => {
                    if self.bad_cur < self.bad.len() {
                        let m = self.bad.as_slice()[self.bad_cur].m;
                        self.bad_cur += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::EvasionInit => {
                    self.end = board::gen_evasions(pos, &mut self.buf);
                    self.cur = 0;
                    self.score_evasions(pos, h);
                    self.stage = Stage::Evasion;
                }
                Stage::Evasion => match self.select_best() {
                    Some(em) if Some(em.m) == self.tt_move => continue,
                    Some(em) => return Some(em.m),
                    None => self.stage = Stage::Done,
                },
                Stage::QsCapture => match self.select_best() {
                    Some(em) if Some(em.m) == self.tt_move => continue,
                    Some(em) => return Some(em.m),
                    None => {
                        self.stage = if self.with_checks {
                            Stage::QsCheckInit
                        } else {
                            Stage::Done
                        };
                    }
                },
                Stage::QsCheckInit => {
                    self.end = board::gen_quiet_checks(pos, &mut self.buf);
                    self.cur = 0;
                    self.stage = Stage::QsCheck;
                }
                Stage::QsCheck => {
                    if self.cur >= self.end {
                        self.stage = Stage::Done;
                        continue;
                    }
                    let m = self.buf.as_slice()[self.cur].m;
                    self.cur += 1;
                    if Some(m) != self.tt_move {
                        return Some(m);
                    }
                }
                Stage::Done => return None,
            }
        }
    }
}
