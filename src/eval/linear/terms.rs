//! The terms of a position, defined once: [`for_each_term`] walks them (the piece-square,
//! hand, king-piece, king-hand, pair, safety and tempo weights a position turns on, each with
//! its owner's sign); the search's incremental path must agree with it, and the learner sees
//! it through [`features`]. Plus the king-safety index, a few bitboard counts recomputed at
//! every evaluation.

use crate::shogi::attacks::king_attacks;
use crate::shogi::{Color, PieceKind, Position, Square};

use super::layout::*;

/// The king's zone: for each square, the 24 squares within Chebyshev distance two of it (the
/// eight next to it are [`king_attacks`]).
pub(super) static ZONE2: [u128; 81] = {
    let mut t = [0u128; 81];
    let mut k = 0usize;
    while k < 81 {
        let mut s = 0usize;
        while s < 81 {
            let (df, dr) = ((k / 9).abs_diff(s / 9), (k % 9).abs_diff(s % 9));
            if (df | dr) != 0 && df <= 2 && dr <= 2 {
                t[k] |= 1u128 << s;
            }
            s += 1;
        }
        k += 1;
    }
    t
};

/// Index of the king-safety weight of `c`'s king on `king`, from `c`'s point of view: the
/// enemy pieces within two squares of it (the attack a linear king-piece table cannot see
/// grow: two attackers are worse than twice one), its own pieces next to it, and what the
/// enemy can drop. Bitboard counts, recomputed at every evaluation (no incremental state).
#[inline]
pub fn safety_index(pos: &Position, c: Color, king: Square) -> usize {
    let not_kings = !pos.pieces_of_kind(PieceKind::King).bits();
    let enemy = pos.pieces_of(!c).bits() & not_kings;
    let own = pos.pieces_of(c).bits() & not_kings;
    let near = ((enemy & ZONE2[king.index()]).count_ones() as usize).min(SAFETY_COUNTS - 1);
    let guards = ((own & king_attacks(king).bits()).count_ones() as usize).min(SAFETY_COUNTS - 1);
    let hand = pos.hand(!c);
    let pawns = hand.count(PieceKind::Pawn);
    let drops = (hand.total() - pawns) as usize;
    let drops = drops.min(SAFETY_COUNTS - 1);
    SAFETY_BASE
        + ((near * SAFETY_COUNTS + guards) * SAFETY_COUNTS + drops) * 2
        + (pawns > 0) as usize
}

/// Which part of [`EvalState`] a term belongs to: the king-independent base, or the terms
/// relative to one colour's king.
#[derive(Clone, Copy)]
pub(super) enum Part {
    Base,
    King(Color),
    /// The king-safety and tempo terms, recomputed at every evaluation.
    Fresh,
}

/// Calls `f(part, weight index, +1 for Black / −1 for White)` for every term of `pos`: the
/// score from Black's point of view is the sum of `sign × weight` over them. The one
/// definition of the evaluation's terms; the incremental path must agree with it.
pub(super) fn for_each_term(pos: &Position, mut f: impl FnMut(Part, usize, i32)) {
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    for sq in pos.occupied() {
        let Some(p) = pos.piece_on(sq) else { continue };
        let s = sign(p.color);
        f(Part::Base, psq_index(p.color, p.kind, sq), s);
        if p.kind == PieceKind::King {
            continue;
        }
        if let Some(k) = kings[p.color.index()] {
            f(Part::King(p.color), own_index(p.color, p.kind, k, sq), s);
        }
        if let Some(k) = kings[(!p.color).index()] {
            f(Part::King(!p.color), opp_index(!p.color, p.kind, k, sq), s);
        }
    }
    for c in Color::ALL {
        for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
            for n in 0..pos.hand(c).count(kind) as usize {
                let slot = HAND_START[h] + n;
                f(Part::Base, hand_index(h, n), sign(c));
                if let Some(k) = kings[c.index()] {
                    f(Part::King(c), own_hand_index(c, k, slot), sign(c));
                }
                if let Some(k) = kings[(!c).index()] {
                    f(Part::King(!c), opp_hand_index(!c, k, slot), sign(c));
                }
            }
        }
    }
    for c in Color::ALL {
        if let Some(k) = kings[c.index()] {
            f(Part::Fresh, safety_index(pos, c, k), sign(c));
        }
    }
    f(Part::Fresh, TEMPO, sign(pos.side_to_move()));
    for x in pos.occupied() {
        let p = pos.piece_on(x).expect("occupied");
        for y in king_attacks(x) & pos.occupied() {
            let d = DIR_OF_STEP[y.index() + 10 - x.index()] as usize;
            if d < 4 {
                let q = pos.piece_on(y).expect("occupied");
                pair_terms(p, x, q, y, d, |i, s| f(Part::Base, i, s));
            }
        }
    }
}

/// Appends the features of `pos` as `(index, +1 for Black / −1 for White)` (the
/// learner's view of [`for_each_term`]), each king-piece weight followed by its factor,
/// numbered from [`NUM_WEIGHTS`] (see [`fold_factors`]), and each weight that has a
/// side-to-move weight followed by that, with the side to move's sign (see [`turn_index`]).
pub fn features(pos: &Position, out: &mut Vec<(u32, i8)>) {
    let to_move = sign(pos.side_to_move()) as i8;
    for_each_term(pos, |_, i, s| {
        out.push((i as u32, s as i8));
        if let Some(f) = factor_of(i) {
            out.push(((NUM_WEIGHTS + f) as u32, s as i8));
        }
        if let Some(t) = turn_index(i) {
            out.push((t as u32, to_move));
        }
    });
}
