//! The feature transformer's sums carried from a position to the next: a move changes at most
//! two features of each perspective (the moved piece; a captured piece going to the hand), so
//! the next sums are the previous ones minus two weight columns plus two — except for the
//! perspective whose king moved, whose every feature changed: that half is recomputed.
//!
//! The sums wrap in 16 bits, as the format's SIMD adds do; addition modulo 2¹⁶ is the same in
//! any order, so carried sums equal recomputed ones exactly (the tests check it on random
//! games).

use crate::shogi::{Color, Move, PieceKind, Position};

use super::{features, Network, MAX_HALF};

/// One position's transformer sums, per perspective.
#[derive(Clone)]
pub struct Accumulator {
    /// By [`Color::index`] of the perspective; the first `half` of each are used.
    sums: [[i16; MAX_HALF]; 2],
}

impl Network {
    /// The sums of `pos`, from scratch. Both kings must be on the board.
    pub fn accumulate(&self, pos: &Position) -> Accumulator {
        let mut a = Accumulator {
            sums: [[0; MAX_HALF]; 2],
        };
        for c in Color::ALL {
            self.refresh(pos, c, &mut a.sums[c.index()][..self.arch.half]);
        }
        a
    }

    /// One perspective's sums from scratch: the biases plus every active feature's column.
    fn refresh(&self, pos: &Position, perspective: Color, sums: &mut [i16]) {
        sums.copy_from_slice(&self.ft_bias);
        features::for_each_active(pos, perspective, |f| self.add_column(sums, f));
    }

    #[inline]
    fn add_column(&self, sums: &mut [i16], feature: usize) {
        let half = self.arch.half;
        let column = &self.ft_weight[feature * half..(feature + 1) * half];
        for (s, w) in sums.iter_mut().zip(column) {
            *s = s.wrapping_add(*w);
        }
    }

    #[inline]
    fn sub_column(&self, sums: &mut [i16], feature: usize) {
        let half = self.arch.half;
        let column = &self.ft_weight[feature * half..(feature + 1) * half];
        for (s, w) in sums.iter_mut().zip(column) {
            *s = s.wrapping_sub(*w);
        }
    }

    /// The sums after `m`, from `acc`, the sums of `before` (the position `m` is played
    /// from). `after` is the position after `m`; it is read only when a king moved.
    pub fn update(
        &self,
        acc: &Accumulator,
        before: &Position,
        m: Move,
        after: &Position,
    ) -> Accumulator {
        let half = self.arch.half;
        let us = before.side_to_move();
        let moved = before.moved_piece(m).expect("a move moves a piece");
        let to = m.to();
        let mut next = acc.clone();
        for p in Color::ALL {
            let sums = &mut next.sums[p.index()][..half];
            if moved.kind == PieceKind::King && p == us {
                self.refresh(after, p, sums);
                continue;
            }
            // This perspective's king did not move: its base is the same before and after.
            let base = features::king_base(before, p);
            match m.from() {
                None => {
                    // The last of that kind in hand goes to the board.
                    let n = before.hand(us).count(moved.kind) as usize;
                    self.sub_column(sums, features::hand_feature(base, p, us, moved.kind, n - 1));
                    self.add_column(sums, features::board_feature(base, p, moved, to));
                }
                Some(from) => {
                    if moved.kind != PieceKind::King {
                        let mut now = moved;
                        if m.is_promotion() {
                            now.kind = moved.kind.promote().unwrap_or(moved.kind);
                        }
                        self.sub_column(sums, features::board_feature(base, p, moved, from));
                        self.add_column(sums, features::board_feature(base, p, now, to));
                    }
                    if let Some(captured) = before.piece_on(to) {
                        let kind = captured.kind.unpromote();
                        let n = before.hand(us).count(kind) as usize;
                        self.sub_column(sums, features::board_feature(base, p, captured, to));
                        self.add_column(sums, features::hand_feature(base, p, us, kind, n));
                    }
                }
            }
        }
        next
    }

    /// The evaluation of a position whose sums are `acc` and whose side to move is `stm`:
    /// what [`Network::evaluate`] returns for it.
    pub fn evaluate_accumulated(&self, acc: &Accumulator, stm: Color) -> i32 {
        let half = self.arch.half;
        let mut input = [0u8; 2 * MAX_HALF];
        for (i, c) in [stm, !stm].into_iter().enumerate() {
            let sums = &acc.sums[c.index()][..half];
            for (o, s) in input[i * half..(i + 1) * half].iter_mut().zip(sums) {
                *o = (*s).clamp(0, 127) as u8;
            }
        }
        self.propagate(&input[..2 * half])
    }
}
