//! Static evaluation behind the [`Evaluator`] trait: material, piece-square and king-safety
//! terms, updated incrementally by a delta per move.
//!
//! The search talks to evaluation only through [`Evaluator`] (`reset` at the root,
//! `push`/`pop` around `do_move`/`undo_move`, `evaluate` at a node), so a learned evaluation
//! (NNUE, KPPT) can replace [`MaterialEval`] later without touching the search.
//!
//! [`MaterialEval`] scores, from Black's point of view, the sum over pieces of
//! - material: YaneuraOu's material-evaluation values (Bonanza's, scaled by 0.9; the same
//!   figures appear in apery_rust's `evaluate.rs`), the same in hand and on the board;
//! - a piece-square term by rank relative to the owner (hand-set: advanced pawns and silvers
//!   good, golds and the king better at home);
//! - king safety: golds and silvers near their own king defend, pieces near the enemy king
//!   attack, by Chebyshev distance (a tiny "KP" table in the spirit of Bonanza's KPP, set by
//!   hand).
//!
//! Incremental invariant: after `push(pos, m)` and `pos.do_move(m)`, the top of the stack
//! equals what `reset` would compute on the new position, except when a king moved: then the
//! king terms are recomputed lazily on the next `evaluate` (kings move rarely).

use crate::shogi::search_support::box_around;
use crate::shogi::{Bitboard, Color, Move, PieceKind, Position, Square};

use super::value::Value;

/// Number of piece kinds (tables below are indexed by `PieceKind::index`).
const KINDS: usize = PieceKind::NUM;

/// The evaluation interface the search uses.
pub trait Evaluator: Clone + Send + 'static {
    /// Recomputes everything from `pos` (root of a search).
    fn reset(&mut self, pos: &Position);
    /// Records the effect of `m`; `pos` is the position *before* `m` is played.
    fn push(&mut self, pos: &Position, m: Move);
    /// A null move: nothing on the board changes.
    fn push_null(&mut self);
    /// Undoes the last `push`/`push_null`.
    fn pop(&mut self);
    /// Score of `pos` (the position after every pushed move) for the side to move.
    fn evaluate(&mut self, pos: &Position) -> Value;
}

/// Piece values, indexed by [`PieceKind::index`].
/// YaneuraOu `evaluate.h` / apery_rust: Bonanza 6 values × 0.9.
pub const PIECE_VALUE: [i32; KINDS] = [
    90,   // pawn
    315,  // lance
    405,  // knight
    495,  // silver
    540,  // gold
    855,  // bishop
    990,  // rook
    0,    // king (never captured in a legal game; 0 keeps SEE arithmetic simple)
    540,  // promoted pawn (と)
    540,  // promoted lance
    540,  // promoted knight
    540,  // promoted silver
    945,  // horse (馬)
    1395, // dragon (龍)
];

/// Value gained by promoting (promoted value − unpromoted value); 0 for kinds that cannot.
pub fn promotion_gain(kind: PieceKind) -> i32 {
    match kind.promote() {
        Some(p) => PIECE_VALUE[p.index()] - PIECE_VALUE[kind.index()],
        None => 0,
    }
}

/// Piece-square bonus by relative rank (index 0 = the far rank from the owner, 8 = home).
/// Hand-set; only pawns, knights, silvers, golds and the king have terms.
const PSQ_RANK: [[i32; 9]; KINDS] = {
    let mut t = [[0; 9]; KINDS];
    t[PieceKind::Pawn as usize] = [0, 25, 20, 12, 6, 2, 0, 0, 0];
    t[PieceKind::Knight as usize] = [0, 0, 10, 12, 8, 2, 0, -5, -10];
    t[PieceKind::Silver as usize] = [-10, 0, 10, 15, 14, 10, 4, 0, -8];
    t[PieceKind::Gold as usize] = [-25, -20, -12, -4, 2, 8, 12, 8, 0];
    t[PieceKind::King as usize] = [-120, -100, -80, -60, -40, -20, 0, 15, 20];
    t
};

/// Defence bonus by Chebyshev distance to the own king (index = distance, capped at 8).
const DEFEND: [[i32; 9]; KINDS] = {
    let mut t = [[0; 9]; KINDS];
    let gold_like = [0, 36, 20, 8, 0, 0, 0, 0, 0];
    t[PieceKind::Gold as usize] = gold_like;
    t[PieceKind::ProPawn as usize] = gold_like;
    t[PieceKind::ProLance as usize] = gold_like;
    t[PieceKind::ProKnight as usize] = gold_like;
    t[PieceKind::ProSilver as usize] = gold_like;
    t[PieceKind::Silver as usize] = [0, 28, 16, 6, 0, 0, 0, 0, 0];
    t[PieceKind::Knight as usize] = [0, 6, 8, 2, 0, 0, 0, 0, 0];
    t[PieceKind::Horse as usize] = [0, 30, 20, 10, 0, 0, 0, 0, 0];
    t
};

/// Attack bonus by Chebyshev distance to the enemy king.
const ATTACK: [[i32; 9]; KINDS] = {
    let mut t = [[0; 9]; KINDS];
    let gold_like = [0, 45, 28, 10, 2, 0, 0, 0, 0];
    t[PieceKind::Gold as usize] = gold_like;
    t[PieceKind::ProPawn as usize] = gold_like;
    t[PieceKind::ProLance as usize] = gold_like;
    t[PieceKind::ProKnight as usize] = gold_like;
    t[PieceKind::ProSilver as usize] = gold_like;
    t[PieceKind::Silver as usize] = [0, 40, 24, 8, 2, 0, 0, 0, 0];
    t[PieceKind::Knight as usize] = [0, 10, 24, 10, 0, 0, 0, 0, 0];
    t[PieceKind::Pawn as usize] = [0, 16, 6, 0, 0, 0, 0, 0, 0];
    t[PieceKind::Lance as usize] = [0, 12, 8, 4, 0, 0, 0, 0, 0];
    t[PieceKind::Bishop as usize] = [0, 20, 14, 8, 4, 0, 0, 0, 0];
    t[PieceKind::Rook as usize] = [0, 22, 16, 10, 4, 0, 0, 0, 0];
    t[PieceKind::Horse as usize] = [0, 50, 32, 16, 6, 0, 0, 0, 0];
    t[PieceKind::Dragon as usize] = [0, 70, 45, 22, 8, 0, 0, 0, 0];
    t
};

#[inline]
fn chebyshev(a: Square, b: Square) -> usize {
    DISTANCE[a.index()][b.index()] as usize
}

/// Chebyshev distance between two squares, precomputed (the king terms ask for it on every
/// move).
static DISTANCE: [[u8; 81]; 81] = {
    let mut t = [[0u8; 81]; 81];
    let mut a: usize = 0;
    while a < 81 {
        let mut b: usize = 0;
        while b < 81 {
            let df = (a / 9).abs_diff(b / 9);
            let dr = (a % 9).abs_diff(b % 9);
            t[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    t
};

/// The squares within Chebyshev distance 4 of each square (where [`DEFEND`] and [`ATTACK`]
/// are not zero; distance 0 is the king's own square, which has no term).
static WITHIN_4: [Bitboard; 81] = box_around(4, 4);

const _: () = {
    let mut k = 0;
    while k < KINDS {
        let mut d = 0;
        while d < 9 {
            assert!((d >= 1 && d <= 4) || (DEFEND[k][d] == 0 && ATTACK[k][d] == 0));
            d += 1;
        }
        k += 1;
    }
};

/// Relative rank index of `sq` for `color` (0 = far rank, 8 = home rank).
#[inline]
fn rel_rank(color: Color, sq: Square) -> usize {
    let rank = sq.index() % 9; // 0 = rank 一 (White's home)
    match color {
        Color::Black => rank,
        Color::White => 8 - rank,
    }
}

/// Everything a piece of `color`/`kind` on `sq` contributes, from its owner's point of view,
/// except the king terms (which depend on where the kings are).
#[inline]
fn placed_value(color: Color, kind: PieceKind, sq: Square) -> i32 {
    PIECE_VALUE[kind.index()] + PSQ_RANK[kind.index()][rel_rank(color, sq)]
}

#[derive(Clone, Copy, Debug, Default)]
struct EvalState {
    /// Material and piece-square terms, Black minus White.
    base: i32,
    /// King-safety terms, Black minus White, split by the king they depend on (see
    /// [`EvalState::add_king_terms`]); `king[c]` is stale while `king_dirty[c]` (that king moved).
    king: [i32; 2],
    kings: [Option<Square>; 2],
    king_dirty: [bool; 2],
}

impl EvalState {
    /// Adds `sign ×` the king-relative terms of one piece of `color` to the parts that are
    /// not stale. Signed from Black's point of view and split by the king they depend on
    /// (`king[c]` holds the terms on `c`'s king): the piece's own king's neighbourhood is
    /// defence, the enemy king's is attack.
    #[inline]
    fn add_king_terms(&mut self, sign: i32, color: Color, kind: PieceKind, sq: Square) {
        if kind == PieceKind::King {
            return;
        }
        let sg = sign * self::sign(color);
        let (own, opp) = (color.index(), (!color).index());
        if let (false, Some(k)) = (self.king_dirty[own], self.kings[own]) {
            self.king[own] += sg * DEFEND[kind.index()][chebyshev(sq, k)];
        }
        if let (false, Some(k)) = (self.king_dirty[opp], self.kings[opp]) {
            self.king[opp] += sg * ATTACK[kind.index()][chebyshev(sq, k)];
        }
    }
}

/// Material + piece-square + king-safety evaluation (see the module doc).
#[derive(Clone, Debug)]
pub struct MaterialEval {
    stack: Vec<EvalState>,
}

impl Default for MaterialEval {
    fn default() -> Self {
        MaterialEval {
            stack: Vec::with_capacity(super::value::MAX_PLY as usize + 16),
        }
    }
}

#[inline]
fn sign(color: Color) -> i32 {
    match color {
        Color::Black => 1,
        Color::White => -1,
    }
}

/// The part of the king terms that depends on `c`'s king (on `king`), from scratch.
fn full_king_part(pos: &Position, c: Color, king: Option<Square>) -> i32 {
    let Some(k) = king else {
        return 0;
    };
    let mut v = 0;
    // The tables are zero beyond distance 4: only the pieces within it count.
    let near = WITHIN_4[k.index()];
    for sq in pos.pieces_of(c) & near {
        if let Some(p) = pos.piece_on(sq) {
            if p.kind != PieceKind::King {
                v += DEFEND[p.kind.index()][chebyshev(sq, k)];
            }
        }
    }
    for sq in pos.pieces_of(!c) & near {
        if let Some(p) = pos.piece_on(sq) {
            if p.kind != PieceKind::King {
                v -= ATTACK[p.kind.index()][chebyshev(sq, k)];
            }
        }
    }
    sign(c) * v
}

impl MaterialEval {
    fn compute(pos: &Position) -> EvalState {
        let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
        let mut base = 0;
        for sq in pos.occupied() {
            if let Some(p) = pos.piece_on(sq) {
                base += sign(p.color) * placed_value(p.color, p.kind, sq);
            }
        }
        for c in Color::ALL {
            for k in PieceKind::HAND {
                base += sign(c) * PIECE_VALUE[k.index()] * pos.hand(c).count(k) as i32;
            }
        }
        EvalState {
            base,
            king: Color::ALL.map(|c| full_king_part(pos, c, kings[c.index()])),
            kings,
            king_dirty: [false; 2],
        }
    }

    /// The full score of `pos` from Black's point of view (used by tests to check the
    /// incremental path).
    pub fn black_score(pos: &Position) -> i32 {
        let s = Self::compute(pos);
        s.base + s.king[0] + s.king[1]
    }
}

impl Evaluator for MaterialEval {
    fn reset(&mut self, pos: &Position) {
        self.stack.clear();
        self.stack.push(Self::compute(pos));
    }

    fn push(&mut self, pos: &Position, m: Move) {
        let mut s = *self.stack.last().expect("reset before push");
        let us = pos.side_to_move();
        let to = m.to();
        let sg = sign(us);
        match m.from() {
            None => {
                let k = m.dropped_kind().expect("a drop has a kind");
                s.base += sg * (placed_value(us, k, to) - PIECE_VALUE[k.index()]);
                s.add_king_terms(1, us, k, to);
            }
            Some(from) => {
                let k = pos.piece_on(from).expect("a piece on the from square").kind;
                let nk = if m.is_promotion() {
                    k.promote().unwrap_or(k)
                } else {
                    k
                };
                s.base += sg * (placed_value(us, nk, to) - placed_value(us, k, from));
                if let Some(c) = pos.piece_on(to) {
                    s.base -= sign(c.color) * placed_value(c.color, c.kind, to);
                    s.base += sg * PIECE_VALUE[c.kind.unpromote().index()];
                    s.add_king_terms(-1, c.color, c.kind, to);
                }
                if k == PieceKind::King {
                    // Terms on the other king do not involve this king: they stay exact.
                    s.kings[us.index()] = Some(to);
                    s.king_dirty[us.index()] = true;
                } else {
                    s.add_king_terms(-1, us, k, from);
                    s.add_king_terms(1, us, nk, to);
                }
            }
        }
        self.stack.push(s);
    }

    fn push_null(&mut self) {
        let s = *self.stack.last().expect("reset before push");
        self.stack.push(s);
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    fn evaluate(&mut self, pos: &Position) -> Value {
        let s = self.stack.last_mut().expect("reset before evaluate");
        for c in Color::ALL {
            if s.king_dirty[c.index()] {
                s.king[c.index()] = full_king_part(pos, c, s.kings[c.index()]);
                s.king_dirty[c.index()] = false;
            }
        }
        let v = s.base + s.king[0] + s.king[1];
        Value(sign(pos.side_to_move()) * v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays pseudo-random games and checks the incremental score against a full recompute
    /// after every move and every undo.
    #[test]
    fn incremental_matches_full_recompute() {
        let mut seed = 12345u64;
        for start in [
            "startpos",
            "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ] {
            let mut pos = Position::from_sfen(start).unwrap();
            let mut ev = MaterialEval::default();
            ev.reset(&pos);
            let mut played = Vec::new();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                ev.push(&pos, m);
                pos.do_move(m);
                played.push(m);
                let full = MaterialEval::black_score(&pos);
                let inc = ev.evaluate(&pos).0 * sign(pos.side_to_move());
                assert_eq!(inc, full, "after {m} in {}", pos.to_sfen());
            }
            while let Some(m) = played.pop() {
                pos.undo_move(m);
                ev.pop();
                let full = MaterialEval::black_score(&pos);
                let inc = ev.evaluate(&pos).0 * sign(pos.side_to_move());
                assert_eq!(inc, full);
            }
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let pos = Position::startpos();
        assert_eq!(MaterialEval::black_score(&pos), 0);
    }
}
