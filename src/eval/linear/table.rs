//! The search's linear evaluation, [`TableEval`]: the terms of [`super::terms`] carried
//! move by move on a stack, one entry per ply.
//!
//! Incremental invariant: after `push(pos, m)` and `pos.do_move(m)`, the top of the stack
//! equals what `reset` would compute on the new position, except when a king moved: then that
//! king's terms are recomputed lazily on the next `evaluate` (kings move rarely). The safety
//! and tempo terms are not carried: a few bitboard counts at every `evaluate` are cheaper than
//! tracking them through every move.

use crate::eval::noise::noise_cp;
use crate::eval::Evaluator;
use crate::shogi::attacks::king_attacks;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

use super::layout::*;
use super::terms::{for_each_term, safety_index, Part};
use super::weights::Weights;

#[derive(Clone, Copy, Debug, Default)]
struct EvalState {
    /// Piece-square and hand terms, Black minus White.
    base: i32,
    /// King-relative terms, Black minus White, split by the king they depend on: `king[c]`
    /// holds the terms of every piece relative to `c`'s king; stale while `king_dirty[c]`
    /// (that king moved).
    king: [i32; 2],
    /// The side-to-move weights of the terms in `base` and `king`, summed over both sides'
    /// pieces (no owner's sign: see [`turn_index`]); the side to move gets them.
    turn_base: i32,
    turn_king: [i32; 2],
    kings: [Option<Square>; 2],
    king_dirty: [bool; 2],
}

/// The linear table evaluation (see the module doc).
#[derive(Clone, Debug)]
pub struct TableEval {
    stack: Vec<EvalState>,
    weights: &'static Weights,
    /// The king-piece tables (`own` then `opp`, [`kp`] order) with each weight's side-to-move
    /// weight beside it: the file keeps the latter once per (kind, offset), the search reads
    /// both from one place (built once per evaluation object, shared by its clones).
    kp: std::sync::Arc<[[i16; 2]]>,
    /// `EvalNoise`'s standard deviation in cp (0: none) and `Seed`, see [`noise_cp`].
    noise_sd: i32,
    noise_seed: u64,
}

impl TableEval {
    pub fn new(weights: &'static Weights) -> TableEval {
        let kp = (OWN_BASE..OWN_HAND_BASE)
            .map(|i| {
                let t = turn_index(i).expect("a king-piece weight has one");
                [weights.w[i], weights.w[t]]
            })
            .collect();
        TableEval {
            stack: Vec::with_capacity(crate::eval::STACK_HINT),
            weights,
            kp,
            noise_sd: 0,
            noise_seed: 0,
        }
    }

    /// The same evaluation plus [`noise_cp`]`(key, seed, sd)` (`EvalNoise`, `Seed`): a
    /// consultation's diversified copies of the search. `sd` 0 is the plain evaluation.
    pub fn with_noise(mut self, sd: i32, seed: u64) -> TableEval {
        self.noise_sd = sd;
        self.noise_seed = seed;
        self
    }

    #[inline]
    fn w(&self, i: usize) -> i32 {
        self.weights.w[i] as i32
    }

    /// Adds `sign ×` the king-relative terms of one piece of `color` to the parts of `s` that
    /// are not stale.
    #[inline]
    fn add_king_terms(
        &self,
        s: &mut EvalState,
        sign: i32,
        color: Color,
        kind: PieceKind,
        sq: Square,
    ) {
        if kind == PieceKind::King {
            return;
        }
        let sg = sign * self::sign(color);
        let (own, opp) = (color.index(), (!color).index());
        if let (false, Some(k)) = (s.king_dirty[own], s.kings[own]) {
            let [v, t] = self.kp[kp(color, k, kind, sq)];
            s.king[own] += sg * i32::from(v);
            s.turn_king[own] += sign * i32::from(t);
        }
        if let (false, Some(k)) = (s.king_dirty[opp], s.kings[opp]) {
            let [v, t] = self.kp[KP_SIZE + kp(!color, k, kind, sq)];
            s.king[opp] += sg * i32::from(v);
            s.turn_king[opp] += sign * i32::from(t);
        }
    }

    /// Adds `sign ×` the king-hand terms of hand slot `slot` of `color` to the parts of `s`
    /// that are not stale.
    #[inline]
    fn add_hand_king_terms(&self, s: &mut EvalState, sign: i32, color: Color, slot: usize) {
        let sg = sign * self::sign(color);
        let (own, opp) = (color.index(), (!color).index());
        if let (false, Some(k)) = (s.king_dirty[own], s.kings[own]) {
            let i = own_hand_index(color, k, slot);
            s.king[own] += sg * self.w(i);
            s.turn_king[own] += sign * self.w(Self::king_hand_turn(i));
        }
        if let (false, Some(k)) = (s.king_dirty[opp], s.kings[opp]) {
            let i = opp_hand_index(!color, k, slot);
            s.king[opp] += sg * self.w(i);
            s.turn_king[opp] += sign * self.w(Self::king_hand_turn(i));
        }
    }

    /// Adds `sign ×` the pair terms of `p` on `x` with each piece next to it (`occ` tells the
    /// board), leaving out the pair with `skip`, to `s` (with their side-to-move weights).
    #[inline]
    fn add_pairs_of(
        &self,
        s: &mut EvalState,
        sign: i32,
        p: Piece,
        x: Square,
        pos: &Position,
        skip: Bitboard,
    ) {
        // Only the occupied neighbours: most of the eight are empty.
        for y in king_attacks(x) & (pos.occupied() & !skip) {
            let q = pos.piece_on(y).expect("occupied");
            let d = DIR_OF_STEP[y.index() + 10 - x.index()] as usize;
            pair_terms(p, x, q, y, d, |i, sg| {
                let w = &self.weights.w[i..i + 2];
                s.base += sign * sg * i32::from(w[0]);
                s.turn_base += sign * i32::from(w[1]);
            });
        }
    }

    /// The change of the pair terms by a move (on `pos`, before it is made): the pairs of the
    /// squares it leaves and takes, before and after. `from` is the square left and the piece
    /// that stood there (none for a drop), `captured` what stood on `to`, `moved` the piece on
    /// `to` after the move — what `push` has already read.
    #[inline]
    fn add_pair_delta(
        &self,
        s: &mut EvalState,
        pos: &Position,
        from: Option<(Square, Piece)>,
        captured: Option<Piece>,
        to: Square,
        moved: Piece,
    ) {
        let mut left = Bitboard::EMPTY;
        if let Some((from, p)) = from {
            self.add_pairs_of(s, -1, p, from, pos, Bitboard::EMPTY);
            left = Bitboard::from_square(from);
            if let Some(c) = captured {
                // Its pair with the moving piece went with the line above.
                self.add_pairs_of(s, -1, c, to, pos, left);
            }
        }
        // After the move the square left is empty (`to` is not its own neighbour).
        self.add_pairs_of(s, 1, moved, to, pos, left);
    }

    /// The side-to-move weight of king-hand weight `i`.
    #[inline]
    fn king_hand_turn(i: usize) -> usize {
        TURN_KING_HAND_BASE + i - OWN_HAND_BASE
    }

    /// The terms relative to `c`'s king (on `king`), from scratch: `Part::King(c)` of
    /// [`for_each_term`] alone, since it runs after every king move; with their side-to-move
    /// weights.
    fn full_king_part(&self, pos: &Position, c: Color, king: Option<Square>) -> (i32, i32) {
        let Some(k) = king else {
            return (0, 0);
        };
        // This king's rows of both tables: one 2.3 KB slice each, read as the board is walked.
        let row = frame(c, k) * KINDS * 81;
        let own = &self.kp[row..][..KINDS * 81];
        let opp = &self.kp[KP_SIZE + row..][..KINDS * 81];
        let (mut v, mut t) = (0, 0);
        for sq in pos.occupied() {
            let Some(p) = pos.piece_on(sq) else { continue };
            if p.kind == PieceKind::King {
                continue;
            }
            let at = p.kind.index() * 81 + frame(c, sq);
            let [pv, pt] = if p.color == c { own[at] } else { opp[at] };
            v += sign(p.color) * i32::from(pv);
            t += i32::from(pt);
        }
        for holder in Color::ALL {
            for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
                for n in 0..pos.hand(holder).count(kind) as usize {
                    let slot = HAND_START[h] + n;
                    let i = if holder == c {
                        own_hand_index(c, k, slot)
                    } else {
                        opp_hand_index(c, k, slot)
                    };
                    v += sign(holder) * self.w(i);
                    t += self.w(Self::king_hand_turn(i));
                }
            }
        }
        (v, t)
    }

    fn compute(&self, pos: &Position) -> EvalState {
        let mut s = EvalState {
            kings: [pos.king_square(Color::Black), pos.king_square(Color::White)],
            ..EvalState::default()
        };
        for_each_term(pos, |part, i, sg| {
            let turn = turn_index(i).map_or(0, |t| self.w(t));
            match part {
                Part::Base => {
                    s.base += sg * self.w(i);
                    s.turn_base += turn;
                }
                Part::King(c) => {
                    s.king[c.index()] += sg * self.w(i);
                    s.turn_king[c.index()] += turn;
                }
                Part::Fresh => {}
            }
        });
        s
    }

    /// The king-safety and tempo terms of `pos` from Black's point of view.
    #[inline]
    fn fresh_terms(&self, pos: &Position) -> i32 {
        let mut v = 0;
        let mut turn = self.w(TEMPO);
        for c in Color::ALL {
            if let Some(k) = pos.king_square(c) {
                let i = safety_index(pos, c, k);
                v += sign(c) * self.w(i);
                turn += self.w(TURN_SAFETY_BASE + i - SAFETY_BASE);
            }
        }
        v + sign(pos.side_to_move()) * turn
    }

    /// The full score of `pos` from Black's point of view (the incremental path must agree).
    pub fn black_score(&self, pos: &Position) -> i32 {
        let s = self.compute(pos);
        Self::total(&s, pos) + self.fresh_terms(pos)
    }

    /// The carried terms of `s` from Black's point of view, the side-to-move part to the side
    /// to move.
    #[inline]
    fn total(s: &EvalState, pos: &Position) -> i32 {
        let turn = s.turn_base + s.turn_king[0] + s.turn_king[1];
        s.base + s.king[0] + s.king[1] + sign(pos.side_to_move()) * turn
    }
}

impl Evaluator for TableEval {
    fn reset(&mut self, pos: &Position) {
        self.stack.clear();
        let s = self.compute(pos);
        self.stack.push(s);
    }

    fn push(&mut self, pos: &Position, m: Move) {
        let mut s = *self.stack.last().expect("reset before push");
        let us = pos.side_to_move();
        let to = m.to();
        let sg = sign(us);
        match m.from() {
            None => {
                let k = m.dropped_kind().expect("a drop has a kind");
                self.add_pair_delta(&mut s, pos, None, None, to, Piece::new(us, k));
                let n = pos.hand(us).count(k) as usize;
                let (psq, hand) = (psq_index(us, k, to), hand_index(hand_number(k), n - 1));
                s.base += sg * (self.w(psq) - self.w(hand));
                s.turn_base += self.w(TURN_BASE + psq) - self.w(TURN_BASE + hand);
                self.add_king_terms(&mut s, 1, us, k, to);
                self.add_hand_king_terms(&mut s, -1, us, HAND_START[hand_number(k)] + n - 1);
            }
            Some(from) => {
                let p = pos.piece_on(from).expect("a piece on the from square");
                let k = p.kind;
                let nk = if m.is_promotion() {
                    k.promote().unwrap_or(k)
                } else {
                    k
                };
                let captured = pos.piece_on(to);
                let after = Piece::new(us, nk);
                self.add_pair_delta(&mut s, pos, Some((from, p)), captured, to, after);
                let (psq_to, psq_from) = (psq_index(us, nk, to), psq_index(us, k, from));
                s.base += sg * (self.w(psq_to) - self.w(psq_from));
                s.turn_base += self.w(TURN_BASE + psq_to) - self.w(TURN_BASE + psq_from);
                if let Some(c) = captured {
                    let hk = c.kind.unpromote();
                    let n = pos.hand(us).count(hk) as usize;
                    let (psq, hand) = (
                        psq_index(c.color, c.kind, to),
                        hand_index(hand_number(hk), n),
                    );
                    s.base += sg * self.w(hand) - sign(c.color) * self.w(psq);
                    s.turn_base += self.w(TURN_BASE + hand) - self.w(TURN_BASE + psq);
                    self.add_king_terms(&mut s, -1, c.color, c.kind, to);
                    self.add_hand_king_terms(&mut s, 1, us, HAND_START[hand_number(hk)] + n);
                }
                if k == PieceKind::King {
                    // Terms relative to the other king do not involve this king: they stay
                    // exact.
                    s.kings[us.index()] = Some(to);
                    s.king_dirty[us.index()] = true;
                } else {
                    self.add_king_terms(&mut s, -1, us, k, from);
                    self.add_king_terms(&mut s, 1, us, nk, to);
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

    fn evaluate(&mut self, pos: &Position) -> i32 {
        let mut s = *self.stack.last().expect("reset before evaluate");
        if s.king_dirty[0] || s.king_dirty[1] {
            for c in Color::ALL {
                if s.king_dirty[c.index()] {
                    (s.king[c.index()], s.turn_king[c.index()]) =
                        self.full_king_part(pos, c, s.kings[c.index()]);
                    s.king_dirty[c.index()] = false;
                }
            }
            *self.stack.last_mut().expect("not empty") = s;
        }
        let mut v = Self::total(&s, pos) + self.fresh_terms(pos);
        if self.noise_sd != 0 {
            // From Black's view like the tables: the key includes the side to move, so a
            // position always gets the same shift and negamax stays consistent.
            v += noise_cp(pos.key(), self.noise_seed, self.noise_sd);
        }
        sign(pos.side_to_move()) * v
    }
}
