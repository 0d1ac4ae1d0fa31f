//! The net as the search's evaluation: a stack of transformer sums, one per ply, updated
//! lazily.
//!
//! Making a move records only what it changes ([`Change`], a few feature numbers). The sums of
//! a position are computed when the search evaluates it: from the nearest ply whose sums are
//! known, applying each recorded change on the way — or, for a perspective whose king moved on
//! the way, recomputed from the position. Positions left without an evaluation (cut-offs from
//! the table, the moves of a null-move search) cost a few feature numbers, not a pass over
//! the sums; the sums computed on the way stay for the siblings that follow.

use std::sync::Arc;

use crate::eval::noise::noise_cp;
use crate::eval::{Evaluator, STACK_HINT};
use crate::shogi::{Color, Move, Position};

use super::features::{change, Change};
use super::kernel::{self, Kernel};
use super::network::Network;
use super::refresh::RefreshCache;

/// One ply of the stack.
#[derive(Clone, Copy)]
struct Ply {
    /// What the move into this ply changed, per perspective (nothing for the root and for a
    /// null move).
    change: [Change; 2],
    /// Whether this ply's sums of each perspective are known.
    known: [bool; 2],
}

/// The search's NNUE evaluation (see the module's text).
#[derive(Clone)]
pub struct NnueEval {
    net: Arc<Network>,
    kernel: Kernel,
    plies: Vec<Ply>,
    /// `2 × half` sums per ply (Black's perspective, then White's), ply-major, grown with
    /// `plies`.
    sums: Vec<i16>,
    /// The sums last refreshed per king square: a king move's refresh applies only what
    /// changed since (see [`super::refresh`]).
    cache: RefreshCache,
    /// `EvalNoise`'s standard deviation in the net's units (0: none) and `Seed`.
    noise_sd: i32,
    noise_seed: u64,
}

impl NnueEval {
    pub fn new(net: Arc<Network>) -> NnueEval {
        NnueEval::with_kernel(net, Kernel::best())
    }

    /// An evaluation that runs the given kernel (the tests compare them).
    pub fn with_kernel(net: Arc<Network>, kernel: Kernel) -> NnueEval {
        let cap = STACK_HINT;
        NnueEval {
            sums: Vec::with_capacity(cap * 2 * net.arch.half),
            cache: RefreshCache::new(&net),
            net,
            kernel,
            plies: Vec::with_capacity(cap),
            noise_sd: 0,
            noise_seed: 0,
        }
    }

    /// `EvalNoise` and `Seed`, as the linear evaluation takes them
    /// ([`noise_cp`]: a pure function of the position and the seed).
    pub fn with_noise(mut self, sd: i32, seed: u64) -> NnueEval {
        self.noise_sd = sd;
        self.noise_seed = seed;
        self
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    fn push_ply(&mut self, change: [Change; 2]) {
        self.plies.push(Ply {
            change,
            known: [false; 2],
        });
        let n = self.plies.len() * 2 * self.net.arch.half;
        if self.sums.len() < n {
            self.sums.resize(n, 0);
        }
    }

    /// Makes the top ply's sums of `perspective` known (`pos` is the top ply's position).
    fn bring_up_to_date(&mut self, pos: &Position, perspective: Color) {
        let p = perspective.index();
        let half = self.net.arch.half;
        let top = self.plies.len() - 1;
        let at = |ply: usize| (2 * ply + p) * half;
        // The nearest known ply, unless a king move of this perspective comes first.
        let mut from = top;
        while !self.plies[from].known[p] {
            if self.plies[from].change[p].refresh {
                let out = &mut self.sums[at(top)..at(top) + half];
                let entry = self.cache.entry(pos, perspective);
                kernel::refresh_cached(self.kernel, &self.net, pos, perspective, entry, out);
                self.plies[top].known[p] = true;
                // The plies from the king move up to here are this ply's sums with the moves
                // since taken back, one pass each. Without them every sibling of this ply
                // (the next moves the search tries from its parent) would refresh again.
                for ply in (from..top).rev() {
                    let (below, above) = self.sums.split_at_mut(at(ply + 1));
                    let undo = self.plies[ply + 1].change[p].undone();
                    let out = &mut below[at(ply)..at(ply) + half];
                    kernel::apply_change(self.kernel, &self.net, &above[..half], out, &undo);
                    self.plies[ply].known[p] = true;
                }
                return;
            }
            from -= 1; // the root (ply 0) is always known
        }
        for ply in from + 1..=top {
            let (done, rest) = self.sums.split_at_mut(at(ply));
            let prev = &done[at(ply - 1)..at(ply - 1) + half];
            let change = &self.plies[ply].change[p];
            kernel::apply_change(self.kernel, &self.net, prev, &mut rest[..half], change);
            self.plies[ply].known[p] = true;
        }
    }
}

impl Evaluator for NnueEval {
    fn reset(&mut self, pos: &Position) {
        self.plies.clear();
        self.push_ply([Change::default(); 2]);
        let half = self.net.arch.half;
        for c in Color::ALL {
            let at = c.index() * half;
            let out = &mut self.sums[at..at + half];
            kernel::refresh(self.kernel, &self.net, pos, c, out);
        }
        self.plies[0].known = [true; 2];
    }

    fn push(&mut self, pos: &Position, m: Move) {
        self.push_ply(change(self.net.arch.features, pos, m));
    }

    fn push_null(&mut self) {
        self.push_ply([Change::default(); 2]);
    }

    fn pop(&mut self) {
        self.plies.pop();
    }

    fn evaluate(&mut self, pos: &Position) -> i32 {
        for c in Color::ALL {
            if !self.plies.last().expect("reset before evaluate").known[c.index()] {
                self.bring_up_to_date(pos, c);
            }
        }
        let half = self.net.arch.half;
        let top = (self.plies.len() - 1) * 2 * half;
        let (black, white) = self.sums[top..top + 2 * half].split_at(half);
        let (stm, other) = match pos.side_to_move() {
            Color::Black => (black, white),
            Color::White => (white, black),
        };
        let mut v = kernel::output(self.kernel, &self.net, stm, other);
        if self.noise_sd != 0 {
            // The noise function gives Black's view; the net gives the side to move's.
            let n = noise_cp(pos.key(), self.noise_seed, self.noise_sd);
            v += if pos.side_to_move() == Color::Black {
                n
            } else {
                -n
            };
        }
        v
    }
}
