//! gougi: a USI consultation (合議) engine for computer shogi.
//!
//! # Layout
//!
//! - [`shogi`]: the rules — types, bitboards, positions, legal move generation, notation. No I/O.
//! - [`usi`]: the USI protocol as types; parse and format round-trip. No processes.
//! - [`search`]: the built-in alpha-beta engine (`gougi search`, `gougi bench search`).
//!
//! Dependency arrows (a module may use only what it points to):
//!
//! ```text
//! usi ──> shogi
//! search (self-contained for now: its private board in `search::board`)
//! ```

pub mod search;
pub mod shogi;
pub mod usi;
