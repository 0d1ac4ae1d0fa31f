//! The built-in df-pn mate (tsume, 詰将棋) solver.
//!
//! - [`pndn`]: proof/disproof numbers and mate-length bounds.
//! - [`usi`]: the `gougi mate` USI engine loop.
//! - [`bench`]: `gougi bench mate`.
//! - [`tt`]: the transposition table keyed by board, with proof/disproof pieces (証明駒/反証駒);
//!   hands are the core's [`crate::shogi::Hand`], whose guard bits make dominance (優越関係)
//!   one subtraction.
//! - [`board`]: the [`MateBoard`] trait the search runs over.
//! - [`search`]: df-pn with df-pn+ estimates, 1+ε thresholds, delayed expansion, repetition
//!   (GHI-safe) handling and TCA.
//! - [`core_board`]: the [`MateBoard`] over the rules core (`crate::shogi`) generators.
//! - [`problems`]: problem files and a rules-only mate-line checker.
//! - [`solver`]: first proof, shortest-mate re-search, iterative PV extraction.
//! - [`driver`]: solving a rules-core position with the line verified (shared by [`usi`] and
//!   [`background`]).
//! - [`background`]: [`BackgroundSolve`], the solver in-process on a thread of its own.
//! - [`helpmate`]: helpmates (協力詰め, `MateKind helpmate`): iterative deepening with a table of
//!   proven lower bounds, beside the df-pn solver (it shares only the rules core).
//!
//! Invariants: the side to move at the root is the attacker; repetition is a failure for the
//! attacker (tsume rules); the reported line is a legal mate, and in
//! [`MateMode::Shortest`] with `minimal == true` no shorter mate exists under plain minimax.

pub mod background;
pub mod bench;
pub mod board;
pub mod core_board;
pub mod driver;
pub mod helpmate;
pub mod pndn;
pub mod problems;
pub mod search;
pub mod solver;
pub mod tt;
pub mod usi;

#[cfg(test)]
mod graph_tests;

pub use background::BackgroundSolve;
pub use board::MateBoard;
pub use solver::{solve, MateMode, MateOutcome, SolveLimits, SolveStats};
pub use tt::MateTable;
