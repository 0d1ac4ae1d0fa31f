//! [`MemberError`]: everything that can go wrong with one member engine.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

/// The USI exchange a timeout happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// `usi` → `usiok`.
    Usi,
    /// `isready` → `readyok`.
    IsReady,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Usi => "usi",
            Phase::IsReady => "isready",
        })
    }
}

/// One member's failure. `Exited.code` is `None` when the process was killed by a signal (or
/// its status could not be read).
#[derive(Debug, Error)]
pub enum MemberError {
    #[error("member {member}: cannot start {}: {source}", .program.display())]
    Spawn {
        member: u32,
        program: PathBuf,
        source: std::io::Error,
    },
    /// gougi has begun to end (`quit`, end of input, a signal or console event): no member
    /// starts any more ([`crate::member::process::ending`]).
    #[error("member {member}: not started: gougi is ending")]
    Ending { member: u32 },
    /// The member could not be tied to gougi's life (on Windows: put in gougi's Job Object with
    /// kill-on-close, then resumed), so it could have outlived gougi: it was ended before it ran.
    #[error("member {member}: not started: {} would not end with gougi: {source}", .program.display())]
    Untied {
        member: u32,
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("member exited ({})", code_text(*.code))]
    Exited { code: Option<i32> },
    #[error("member did not answer `{phase}` in time")]
    Timeout { phase: Phase },
    #[error("member I/O: {0}")]
    Io(#[from] std::io::Error),
}

fn code_text(code: Option<i32>) -> String {
    match code {
        Some(c) => format!("status {c}"),
        None => "killed or status unknown".to_owned(),
    }
}
