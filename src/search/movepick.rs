//! Staged move picking (指し手オーダリング), after Stockfish's `movepick.cpp`.
//!
//! Main search, not in check: TT move → captures with SEE ≥ threshold (MVV + capture history)
//! → killers → quiets by history (butterfly + continuation 1, 2 and 4 plies back) → the
//! captures that lost the SEE test. In check: TT move → evasions (captures first, then by
//! history). Quiescence: TT move → captures (and, at the first quiescence ply, quiet checks).
//!
//! Moves come out legal: the generators of the core (`crate::shogi::movegen`) produce legal
//! moves, and the TT move and the killers, which come from other positions, are checked with
//! [`Position::is_legal`] before they are returned. Each move is produced once: later stages
//! skip the TT move and the killers. Non-promotions of pawns, bishops and rooks that could
//! promote are left out ([`Position::is_inferior_non_promotion`]).
//!
//! Why staged: most cutoffs happen on the TT move or a good capture, so the quiet moves of
//! most nodes are never generated or scored.

use crate::shogi::movegen::MoveEntry;
use crate::shogi::{generate_for_search, Move, MoveList, Position, SearchMoves};

use super::history::{
    move_index, piece_index, ButterflyHistory, CaptureHistory, ContinuationHistory,
};
use super::see::see_ge;
use crate::eval::{promotion_gain, PIECE_VALUE};

/// A move with an ordering score.
#[derive(Clone, Copy, Debug)]
pub struct ExtMove {
    pub m: Move,
    pub score: i32,
}

impl MoveEntry for ExtMove {
    /// Generated moves start unscored; each stage scores its own.
    #[inline(always)]
    fn from_move(m: Move) -> ExtMove {
        ExtMove { m, score: 0 }
    }
    #[inline(always)]
    fn mv(self) -> Move {
        self.m
    }
}

/// The picker's lists: the core's [`MoveList`] holding scored moves, which the generators
/// write straight into (no copy from a plain list).
type ScoredMoves = MoveList<ExtMove>;

/// The legal moves a search plays at the root of `pos` (the module doc's move set).
pub fn root_moves(pos: &Position) -> Vec<Move> {
    pos.legal_moves()
        .as_slice()
        .iter()
        .copied()
        .filter(|&m| !pos.is_inferior_non_promotion(m))
        .collect()
}

/// Generates into `buf` (emptied first) with `gen`, a generator of the search's move set;
/// returns the number of moves.
#[inline(always)]
fn generate_into(
    pos: &Position,
    buf: &mut ScoredMoves,
    gen: impl FnOnce(&Position, &mut ScoredMoves),
) -> usize {
    buf.clear();
    gen(pos, buf);
    buf.len()
}

/// The lists a [`MovePicker`] works in, kept by the worker between nodes: creating a
/// `MoveList` on the stack compiles to a memset of its whole array (the compiler merges its
/// uninitialised array with the zeroed length into one zeroing store), which measured 2% of
/// the search.
#[derive(Default)]
pub struct PickerBuffers {
    buf: Box<ScoredMoves>,
    bad: Box<ScoredMoves>,
}

/// Checking moves that capture nothing and land next to the enemy king (within a file and
/// two ranks): the first quiescence ply's checks. Long-range quiet checks are left out (they
/// doubled the quiescence tree for little).
fn generate_quiet_checks(pos: &Position, list: &mut ScoredMoves) {
    pos.generate_checks_near_king(list);
    list.retain(|em| !pos.is_capture(em.m) && !pos.is_inferior_non_promotion(em.m));
}

/// Sorts `moves` by score, best first.
fn sort_best_first(moves: &mut [ExtMove]) {
    moves.sort_unstable_by_key(|em| std::cmp::Reverse(em.score));
}

/// Whether a move from another position (TT, killers) is legal here.
#[inline]
fn is_legal_here(pos: &Position, m: Move) -> bool {
    pos.is_legal(m).is_ok()
}

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
    buf: Box<ScoredMoves>,
    cur: usize,
    end: usize,
    bad: Box<ScoredMoves>,
    bad_cur: usize,
    /// Quiet moves below this score are skipped when `skip_quiets` is set by the caller.
    see_threshold: i32,
    with_checks: bool,
    /// Quiet moves `cur..sorted_end` are in order; `sorted_end..end` are not sorted yet.
    sorted_end: usize,
}

impl MovePicker {
    /// A picker for the main search.
    pub fn new_main(
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        PickerBuffers { mut buf, mut bad }: PickerBuffers,
    ) -> Self {
        buf.clear();
        bad.clear();
        let in_check = pos.in_check();
        let tt_move = tt_move.filter(|&m| is_legal_here(pos, m));
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
            sorted_end: 0,
        }
    }

    /// A picker for quiescence search; `with_checks` adds quiet checking moves.
    pub fn new_qsearch(
        pos: &Position,
        tt_move: Option<Move>,
        with_checks: bool,
        PickerBuffers { mut buf, mut bad }: PickerBuffers,
    ) -> Self {
        buf.clear();
        bad.clear();
        let in_check = pos.in_check();
        // In quiescence only a capturing TT move is taken (or any move when in check).
        let tt_move = tt_move.filter(|&m| (in_check || pos.is_capture(m)) && is_legal_here(pos, m));
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
            sorted_end: 0,
        }
    }

    fn score_captures(&mut self, pos: &Position, h: &Histories) {
        let us = pos.side_to_move();
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            let to = em.m.to();
            let victim = pos.piece_on(to).expect("a capture").kind;
            let moved = pos.moved_piece(em.m).expect("a piece moves").kind;
            let promo = if em.m.is_promotion() {
                promotion_gain(moved)
            } else {
                0
            };
            // MVV (×7, as Stockfish weighs the victim) plus the capture history.
            em.score = 7 * (PIECE_VALUE[victim.index()] + promo)
                + h.capture.get(
                    piece_index(us, moved, em.m.is_promotion()),
                    to.index(),
                    victim.unpromote().index(),
                ) / 16;
        }
    }

    fn score_quiets(&mut self, pos: &Position, h: &Histories) {
        let us = pos.side_to_move();
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            let moved = pos.moved_piece(em.m).expect("a piece moves").kind;
            let pc = piece_index(us, moved, em.m.is_promotion());
            let to = em.m.to().index();
            em.score = 2 * h.main.get(us.index(), move_index(em.m))
                + 2 * h.cont.get(h.cont_blocks[0], pc, to)
                + h.cont.get(h.cont_blocks[1], pc, to)
                + h.cont.get(h.cont_blocks[2], pc, to);
        }
    }

    fn score_evasions(&mut self, pos: &Position, h: &Histories) {
        let us = pos.side_to_move();
        for em in self.buf.as_mut_slice()[..self.end].iter_mut() {
            let moved = pos.moved_piece(em.m).expect("a piece moves").kind;
            let captured = if em.m.is_drop() {
                None
            } else {
                pos.piece_on(em.m.to())
            };
            em.score = match captured {
                Some(c) => 1 << 28 | (PIECE_VALUE[c.kind.index()] * 8 - moved.index() as i32),
                None => {
                    let pc = piece_index(us, moved, em.m.is_promotion());
                    h.main.get(us.index(), move_index(em.m))
                        + h.cont.get(h.cont_blocks[0], pc, em.m.to().index())
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
    pub fn into_buffers(self) -> PickerBuffers {
        PickerBuffers {
            buf: self.buf,
            bad: self.bad,
        }
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
                    self.end = generate_into(pos, &mut self.buf, |p, l| {
                        generate_for_search(p, l, SearchMoves::Captures)
                    });
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
                        if see_ge(pos, em.m, -em.score / 18 + self.see_threshold) {
                            return Some(em.m);
                        }
                        self.bad.push(em);
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
                            && !pos.is_capture(k)
                            && is_legal_here(pos, k)
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
                    self.end = generate_into(pos, &mut self.buf, |p, l| {
                        generate_for_search(p, l, SearchMoves::Quiets)
                    });
                    self.cur = 0;
                    self.score_quiets(pos, h);
                    // Best first, in two steps: the moves with a positive history now, the
                    // rest only if the node gets that far (most cut nodes and pruned nodes
                    // stop first; sorting every quiet took 5 % of the search).
                    let quiets = &mut self.buf.as_mut_slice()[..self.end];
                    let mut positive = 0;
                    for i in 0..quiets.len() {
                        if quiets[i].score > 0 {
                            quiets.swap(i, positive);
                            positive += 1;
                        }
                    }
                    sort_best_first(&mut quiets[..positive]);
                    self.sorted_end = positive;
                }
                Stage::Quiet => {
                    if skip_quiets || self.cur >= self.end {
                        self.stage = Stage::BadCapture;
                        continue;
                    }
                    if self.cur == self.sorted_end {
                        sort_best_first(&mut self.buf.as_mut_slice()[self.cur..self.end]);
                        self.sorted_end = self.end;
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
                    self.end = generate_into(pos, &mut self.buf, |p, l| {
                        generate_for_search(p, l, SearchMoves::Evasions)
                    });
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
                    self.end = generate_into(pos, &mut self.buf, generate_quiet_checks);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(pos: &Position, mut picker: MovePicker) -> Vec<Move> {
        let (main, capture, cont) = (
            ButterflyHistory::new(),
            CaptureHistory::new(),
            ContinuationHistory::new(),
        );
        let h = Histories {
            main: &main,
            capture: &capture,
            cont: &cont,
            cont_blocks: [ContinuationHistory::NONE_BLOCK; 3],
        };
        let mut out = Vec::new();
        while let Some(m) = picker.next(pos, &h, false) {
            out.push(m);
        }
        out
    }

    #[test]
    fn main_picker_yields_each_search_move_once() {
        // YaneuraOu's bench position 4: drops on both sides, a TT move, a legal killer and a
        // killer from another position (no piece on 7g here) that must not come out.
        let pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        )
        .unwrap();
        let tt = pos.parse_usi_move("6f7g+").unwrap();
        let killer = pos.parse_usi_move("S*5e").unwrap();
        let foreign = Position::startpos().parse_usi_move("7g7f").unwrap();
        assert!(pos.is_legal(foreign).is_err());
        let got = drain(
            &pos,
            MovePicker::new_main(
                &pos,
                Some(tt),
                [Some(killer), Some(foreign)],
                PickerBuffers::default(),
            ),
        );
        assert_eq!(got[0], tt);
        assert!(!got.contains(&foreign));
        // Killers come after the good captures and before the other quiets.
        let k = got.iter().position(|&m| m == killer).unwrap();
        assert!(got[1..k].iter().all(|&m| pos.is_capture(m)));
        let mut want: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| !pos.is_inferior_non_promotion(m))
            .collect();
        let mut sorted = got.clone();
        sorted.sort_by_key(|m| m.to_u16());
        want.sort_by_key(|m| m.to_u16());
        assert_eq!(sorted, want);
    }
}
