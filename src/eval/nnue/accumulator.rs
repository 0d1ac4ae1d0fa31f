//! The feature transformer's sums carried from a position to the next: a move changes at most
//! two features of each perspective (the moved piece; a captured piece going to the hand), so
//! the next sums are the previous ones minus two weight columns plus two — except, in HalfKP,
//! for the perspective whose king moved, whose every feature changed: that half is recomputed.
//! In K+P a king is a feature like a piece: its move swaps one column in each half.
//!
//! A move's effect is first described ([`Change`](super::features::Change), from the position before it, which is what
//! the search has when it makes the move) and applied later, if at all: many positions the
//! search enters are never evaluated (a cut-off from the table, a mate found, a null move
//! refuted), and [`super::stack::NnueEval`] applies changes only when an evaluation asks.
//!
//! The sums wrap in 16 bits, as the format's SIMD adds do; addition modulo 2¹⁶ is the same in
//! any order, so carried sums equal recomputed ones exactly (the tests check it on random
//! games).

use crate::shogi::{Color, Move, Position};

use super::features::{self, change, Change};
use super::kernel::{self, Kernel};
use super::network::{Network, MAX_HALF};

/// One position's transformer sums, per perspective.
#[derive(Clone)]
pub struct Accumulator {
    /// By [`Color::index`] of the perspective; the first `half` of each are used.
    sums: [[i16; MAX_HALF]; 2],
}

impl Network {
    /// The side to move's evaluation of `pos`, as YaneuraOu's `Eval::evaluate` returns it,
    /// from scratch: the transformer's sums of both perspectives (biases plus the weight
    /// columns of the active features, see [`Accumulator`]), each clipped to 0..=127, the side
    /// to move's half first, then the layers. Both kings must be on the board.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluate_with(Kernel::best(), pos)
    }

    /// [`Network::evaluate`] with a chosen kernel (the tests compare them).
    pub fn evaluate_with(&self, k: Kernel, pos: &Position) -> i32 {
        self.evaluate_accumulated_with(k, &self.accumulate_with(k, pos), pos.side_to_move())
    }

    /// The sums of `pos`, from scratch. Both kings must be on the board.
    pub fn accumulate(&self, pos: &Position) -> Accumulator {
        self.accumulate_with(Kernel::best(), pos)
    }

    /// [`Network::accumulate`] with a chosen kernel (the tests compare them).
    pub fn accumulate_with(&self, k: Kernel, pos: &Position) -> Accumulator {
        let mut a = Accumulator {
            sums: [[0; MAX_HALF]; 2],
        };
        for c in Color::ALL {
            kernel::refresh(k, self, pos, c, &mut a.sums[c.index()][..self.arch.half]);
        }
        a
    }

    /// One perspective's sums from scratch: the biases plus every active feature's column.
    #[inline(always)]
    pub(super) fn refresh_inline(&self, pos: &Position, perspective: Color, sums: &mut [i16]) {
        let mut active = [0u32; features::MAX_ACTIVE];
        let mut n = 0;
        features::for_each_active(self.arch.features, pos, perspective, |f| {
            active[n] = f as u32;
            n += 1;
        });
        self.sum_columns(&self.ft_bias, &[], &active[..n], sums);
    }

    /// `out` = `base` − the `removed` features' columns + the `added` ones.
    ///
    /// A block of sums at a time, kept in registers while every column adds its part (column
    /// by column over the whole half would load and store the sums once per column, 38 times
    /// in a refresh); 64 sums are four AVX2 registers or eight SSE2 ones, with room to spare
    /// in both.
    #[inline(always)]
    pub(super) fn sum_columns(
        &self,
        base: &[i16],
        removed: &[u32],
        added: &[u32],
        out: &mut [i16],
    ) {
        const BLOCK: usize = 64;
        let half = self.arch.half;
        for start in (0..half).step_by(BLOCK) {
            let mut acc = [0i16; BLOCK];
            acc.copy_from_slice(&base[start..start + BLOCK]);
            for &f in removed {
                let col = &self.ft_weight[f as usize * half + start..][..BLOCK];
                for (a, w) in acc.iter_mut().zip(col) {
                    *a = a.wrapping_sub(*w);
                }
            }
            for &f in added {
                let col = &self.ft_weight[f as usize * half + start..][..BLOCK];
                for (a, w) in acc.iter_mut().zip(col) {
                    *a = a.wrapping_add(*w);
                }
            }
            out[start..start + BLOCK].copy_from_slice(&acc);
        }
    }

    #[inline(always)]
    fn column(&self, feature: usize) -> &[i16] {
        let half = self.arch.half;
        &self.ft_weight[feature * half..(feature + 1) * half]
    }

    /// `out` = `prev` − the removed columns + the added ones (a perspective whose king did not
    /// move). One pass over the sums whatever the number of features.
    #[inline(always)]
    pub(super) fn apply_change_inline(&self, prev: &[i16], out: &mut [i16], c: &Change) {
        let col = |f: u32| self.column(f as usize);
        match c.n {
            0 => out.copy_from_slice(prev),
            1 => {
                let (r, a) = (col(c.removed[0]), col(c.added[0]));
                for (((o, p), r), a) in out.iter_mut().zip(prev).zip(r).zip(a) {
                    *o = p.wrapping_sub(*r).wrapping_add(*a);
                }
            }
            _ => {
                let (r0, a0) = (col(c.removed[0]), col(c.added[0]));
                let (r1, a1) = (col(c.removed[1]), col(c.added[1]));
                let cols = r0.iter().zip(a0).zip(r1.iter().zip(a1));
                for ((o, p), ((r0, a0), (r1, a1))) in out.iter_mut().zip(prev).zip(cols) {
                    *o = p
                        .wrapping_sub(*r0)
                        .wrapping_add(*a0)
                        .wrapping_sub(*r1)
                        .wrapping_add(*a1);
                }
            }
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
        self.update_with(Kernel::best(), acc, before, m, after)
    }

    /// [`Network::update`] with a chosen kernel.
    pub fn update_with(
        &self,
        k: Kernel,
        acc: &Accumulator,
        before: &Position,
        m: Move,
        after: &Position,
    ) -> Accumulator {
        let half = self.arch.half;
        let changes = change(self.arch.features, before, m);
        let mut next = acc.clone();
        for p in Color::ALL {
            let i = p.index();
            let out = &mut next.sums[i][..half];
            if changes[i].refresh {
                kernel::refresh(k, self, after, p, out);
            } else {
                kernel::apply_change(k, self, &acc.sums[i][..half], out, &changes[i]);
            }
        }
        next
    }

    /// The evaluation of a position whose sums are `acc` and whose side to move is `stm`:
    /// what [`Network::evaluate`] returns for it.
    pub fn evaluate_accumulated(&self, acc: &Accumulator, stm: Color) -> i32 {
        self.evaluate_accumulated_with(Kernel::best(), acc, stm)
    }

    /// [`Network::evaluate_accumulated`] with a chosen kernel.
    pub fn evaluate_accumulated_with(&self, k: Kernel, acc: &Accumulator, stm: Color) -> i32 {
        let half = self.arch.half;
        kernel::output(
            k,
            self,
            &acc.sums[stm.index()][..half],
            &acc.sums[(!stm).index()][..half],
        )
    }
}
