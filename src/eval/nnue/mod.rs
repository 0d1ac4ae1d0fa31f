//! NNUE evaluation in YaneuraOu's classic NNUE format (`nn.bin`, halfKP_256x2-32-32 and its
//! wider relatives), computed bit for bit as YaneuraOu computes it.
//!
//! The net, from the input on:
//!
//! 1. the feature transformer: for each perspective (the side to move first, then the other),
//!    the sum, in wrapping 16-bit integers, of the biases and of the weight column of every
//!    active HalfKP feature ([`features`]); each sum clipped to 0..=127 becomes one byte of
//!    the next layer's input (`2 × half` bytes);
//! 2. two hidden layers: 32-bit biases plus 8-bit weights times the input bytes, shifted right
//!    by 6 (the weights' scale) and clipped to 0..=127;
//! 3. the output layer: one 32-bit sum, divided (truncating) by `FV_SCALE` = 16, then bounded
//!    by YaneuraOu's largest evaluation.
//!
//! The result is the side to move's score in YaneuraOu's units (a pawn is about 90 for the
//! public nets). The arithmetic is integer throughout, so the order of summation does not
//! matter and a portable loop gives the same value as YaneuraOu's SIMD code.
//!
//! # Layout (one file per concern; this file only gathers them)
//!
//! - [`arch`]: the supported shapes, their hashes, names and file sizes;
//! - [`features`]: the input features (HalfKP, K+P) and what a move changes in them;
//! - [`network`]: a loaded net and the layers after the transformer;
//! - [`file`]: the file format, read and written;
//! - [`kernel`]: the two compiled copies of the hot loops and the choice between them (an AVX2
//!   kernel exists only after the processor check); `avx2.rs`, the layers with AVX2
//!   intrinsics;
//! - [`accumulator`]: the transformer's sums, from scratch ([`Network::evaluate`], the `eval`
//!   command) and carried from move to move;
//! - [`refresh`]: a king move's refresh from the last sums seen with the king on that square;
//! - [`stack`]: the search's evaluation ([`NnueEval`]), a lazily updated stack of sums.

pub mod accumulator;
pub mod arch;
mod avx2;
pub mod features;
pub mod file;
pub mod kernel;
pub mod network;
pub mod refresh;
pub mod stack;

pub use accumulator::Accumulator;
pub use arch::{Arch, HALFKP_256, KP_256, SUPPORTED};
pub use file::{looks_like_nnue, NnueError};
pub use kernel::{CpuHasAvx2, Kernel};
pub use network::{Layers, Network, FV_SCALE, MAX_EVAL, WEIGHT_SCALE_BITS};
pub use stack::NnueEval;
