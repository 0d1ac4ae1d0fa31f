//! gougi: a USI consultation (合議) engine for computer shogi.
//!
//! # Layout
//!
//! - [`shogi`]: the rules — types, bitboards, positions, legal move generation, notation. No I/O.
//! - [`usi`]: the USI protocol as types; parse and format round-trip. No processes.
//! - [`mate`]: the df-pn mate (tsume) solver, its `gougi mate` USI loop and `bench mate`.
//!
//! Dependency arrows (a module may use only what it points to):
//!
//! ```text
//! usi ──> shogi
//! mate ──> shogi
//! ```

pub mod mate;
pub mod shogi;
pub mod usi;
