//! One running member engine: spawn it, talk USI to it over pipes, notice when it dies or hangs.
//!
//! Shaped like tokio's mini-redis: one task per member ([`actor`]) owns the child process, a
//! buffered writer on its stdin and a line reader on its stdout. The rest of gougi holds a
//! [`MemberHandle`] (commands in on an `mpsc`) and reads [`MemberEvent`]s (every member's events,
//! tagged with its number, on one `mpsc`, so the coordinator waits on a single receiver).
//!
//! - [`spec`]: what to run ([`MemberSpec`]: number, `E<N>_` prefix, command, role, ponder and
//!   [`NodesRule`] switches, option filter and defaults), filled in by `Config::member_specs`.
//! - [`command`]: command lines (`Engine<N>.Path`, `builtin:search`, `gougi match`'s `cmd=`)
//!   → what to spawn ([`command::EngineCommand`]), resolved against the config's folder, or a
//!   [`command::CommandError`] that the caller places (the config's file, line and key).
//! - [`process`]: spawning with `kill_on_drop`, stderr drained into the log (never to stdout);
//!   process groups and the parent-death signal (Windows: a Job Object a member is in before
//!   it runs), so no member outlives gougi; nothing starts once gougi is ending.
//! - [`lines`]: a cancel-safe, length-capped line reader (invalid UTF-8 is replaced, not fatal).
//! - [`actor`]: the per-member task and its handle.
//! - [`handshake`]: `usi` → `usiok` and `isready` → `readyok` for many members at once, with
//!   timeouts and a keep-alive hook.
//! - [`error`]: the error type, [`MemberError`].
//! - `scripted`: in-process scripted members (tokio tasks, no process) behind the same
//!   [`MemberHandle`], for the coordinator's tests and fuzz target under paused time; test
//!   scaffolding, compiled only with the `testkit` feature (or for the crate's unit tests).
//!
//! Invariants: a member's output never panics gougi (unparsable lines become
//! `EngineMessage::Unknown`); a member process never outlives its handle (the actor kills and
//! reaps it when the last handle is dropped, and `kill_on_drop` covers a runtime shutdown).
//! This module knows `usi` (and `shogi`, for the scripted members), not the config or policies:
//! the config fills in its types, so the arrow goes one way.

pub mod actor;
pub mod command;
pub mod error;
pub mod handshake;
pub mod lines;
pub mod process;
#[cfg(any(test, feature = "testkit"))]
pub mod scripted;
pub mod spec;
#[cfg(windows)]
mod windows_job;

pub use actor::{process_launcher, Launcher, MemberEvent, MemberHandle};
pub use error::{MemberError, Phase};
pub use handshake::{
    handshake_all, ready_all, Handshake, DEFAULT_READY_TIMEOUT, DEFAULT_USI_TIMEOUT,
    KEEPALIVE_INTERVAL,
};
pub use spec::{MemberOption, MemberSpec, NodesRule, OptionFilter, Role};
