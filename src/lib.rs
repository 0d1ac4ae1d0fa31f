//! gougi: a USI consultation (合議) engine for computer shogi.
//!
//! # Layout
//!
//! - [`config`]: `SimpleGougi.config` → typed, validated settings ([`config::Config`]).
//! - [`member`]: one running member engine (process, USI over pipes, handshake, exit detection).
//! - [`gougi`]: consultation — the coordinator, rounds, deadlines, policies, annotated lines.
//! - [`shogi`]: the rules — types, bitboards, positions, legal move generation, notation. No I/O.
//! - [`usi`]: the USI protocol as types; parse and format round-trip. No processes.
//!
//! Dependency arrows (a module may use only what it points to):
//!
//! ```text
//! gougi ──> member, usi, shogi, config
//! member ──> usi, config
//! usi, shogi, config: leaves
//! ```

pub mod config;
pub mod gougi;
pub mod member;
pub mod shogi;
pub mod usi;
