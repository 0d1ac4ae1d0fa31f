//! Training a halfKP net from `gougi learn gen`'s self-play lines (`SFEN <tab> score (Black's
//! view) <tab> result`), in floats, and quantizing it into YaneuraOu's file format.
//!
//! The float net is the integer net of [`super`] with its scales divided out, and it computes
//! with its weights and hidden outputs rounded as the file rounds them (the gradient moving the
//! unrounded weights), so the file written evaluates as the float net did, to the file's final
//! truncating division:
//!
//! - the transformer: `acc = b + Σ (W[f] + P[f mod FE_END])` over the 38 active features of a
//!   perspective, clipped to `0..=1` (the file's `0..=127`, weights and biases × 127 into
//!   `i16`). `P` is a virtual "piece on square, whatever the king" feature shared by the 81
//!   king squares: a few hundred thousand positions see each (king, piece, square) triple
//!   rarely, but each (piece, square) often, so material and piece-square values are learnt
//!   once instead of 81 times. `P` is folded into `W` when the net is written (the file has
//!   no room for it and needs none: the sum is the same).
//! - two hidden layers: `clamp(b + Σ w x, 0, 1)`; weights × 64 into `i8` (hence kept within
//!   ±127/64 while training), biases × 127 × 64 into `i32`, plus half a step so that the file's
//!   `>> 6` rounds rather than floors;
//! - the output `y = b + Σ w h`, with the evaluation `600 y`: weights × 600 × 16 / 127 into
//!   `i8` (kept within ±127² / (600 × 16)), bias × 600 × 16, the file's sum divided by
//!   `FV_SCALE` = 16 giving the evaluation.
//!
//! The loss is the linear learner's ([`crate::learn::linear`]): the cross-entropy between the
//! predicted win rate `σ(eval / 600)` and `λ σ(score / 600) + (1 − λ) result` (elmo's mixture),
//! so the net's units are the linear evaluation's (a pawn ≈ 90). Adam; the transformer's rows
//! are updated lazily, only those of the features a batch touched (a small share of the
//! 125,388), as a sparse Adam does. Each training position is also used mirrored left to
//! right; every 20th block of 200 lines is held out, and the net with the lowest held-out loss
//! is the one written.
//!
//! # Layout
//!
//! - [`data`]: the samples, read, split and mirrored;
//! - [`net`]: the float net (forward, backward, step, quantization);
//! - [`adam`]: the optimiser's state and step;
//! - [`train`]: the loop over epochs and batches;
//! - [`report`]: the epoch lines, the loss table and its plot.

pub mod adam;
pub mod data;
pub mod net;
pub mod report;
pub mod train;

pub use net::FloatNet;
pub use report::{Epoch, Losses};
pub use train::{mean_abs_difference, train, Options, Outcome};

#[cfg(test)]
mod tests;
