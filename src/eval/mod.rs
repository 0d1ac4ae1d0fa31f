//! Static evaluation: what a position is worth to the side to move, without searching.
//!
//! The search talks to an evaluation only through [`Evaluator`] (`reset` at the root,
//! `push`/`pop` around `do_move`/`undo_move`, `evaluate` at a node), so the linear tables and
//! the nets are interchangeable under it. This room sits below the search and above the rules:
//! it knows positions and moves, not search scores, mates or time.
//!
//! # Layout
//!
//! - [`linear`]: the learned linear evaluation (piece-square, hand, king-piece, pair and
//!   safety tables), one file per concern: where each weight sits, the weights and their file,
//!   the terms of a position, the incremental evaluation;
//! - [`nnue`]: YaneuraOu's NNUE nets, loaded and evaluated bit for bit as YaneuraOu does;
//! - [`either`]: what a search worker evaluates with, the tables or a net ([`SearchEval`]);
//! - [`builtin`]: the `EvalFile` names that are built in (`builtin:r14` and earlier rounds,
//!   `builtin:n1`), and the data behind them (`builtin/`);
//! - [`material`]: piece values (the search's exchanges and ordering, the hand-set start);
//! - [`noise`]: `EvalNoise`, shared by both evaluations.
//!
//! Learning the weights (self-play, the linear fit, the NNUE trainer) is [`crate::learn`]'s,
//! above the search.

pub mod builtin;
pub mod either;
pub mod linear;
pub mod material;
pub mod nnue;
pub mod noise;

use crate::shogi::{Move, Position};

pub use builtin::BUILTIN_PREFIX;
pub use either::SearchEval;
pub use linear::{TableEval, Weights};
pub use material::{promotion_gain, PIECE_VALUE};

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
    /// Score of `pos` (the position after every pushed move) for the side to move, in the
    /// evaluation's units (a pawn is about 90); the search makes it a `Value`.
    fn evaluate(&mut self, pos: &Position) -> i32;
}

/// How many plies an evaluation's stack makes room for at first: the search's deepest (246
/// plies) and some. Only the first allocation: a stack grows if it must.
pub const STACK_HINT: usize = 262;
