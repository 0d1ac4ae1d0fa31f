//! Spawning a member process: piped stdin/stdout, stderr drained into the log.
//!
//! stdout is the USI channel of gougi itself, so a member's stderr is never relayed: a task reads
//! it line by line and logs each line (`tracing`, target `gougi::member::stderr`) until EOF.
//! The child is `kill_on_drop(true)`: if the owning actor task is dropped without its orderly
//! shutdown (a runtime shutting down), the process is still killed.

use std::process::Stdio;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::error::MemberError;
use super::lines::LineReader;
use super::spec::MemberSpec;

/// A started member: the child (still owning nothing but its handle) and its two USI pipes.
pub struct Spawned {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// Starts the member's process. Must run inside a tokio runtime (the stderr task is spawned).
pub fn spawn(spec: &MemberSpec) -> Result<Spawned, MemberError> {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(dir) = &spec.working_dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().map_err(|source| MemberError::Spawn {
        member: spec.number,
        program: spec.program.clone(),
        source,
    })?;
    let (Some(stdin), Some(stdout), stderr) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        // Cannot happen with `Stdio::piped()`, but an error beats a panic.
        return Err(MemberError::Io(std::io::Error::other(
            "child pipes missing",
        )));
    };
    tracing::info!(member = spec.number, pid = child.id(), command = %spec.command_text(), "member started");
    if let Some(stderr) = stderr {
        let member = spec.number;
        tokio::spawn(async move {
            let mut lines = LineReader::new(stderr);
            // An I/O error on stderr ends the drain; stdout decides the member's fate.
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(target: "gougi::member::stderr", member, "{line}");
            }
        });
    }
    Ok(Spawned {
        child,
        stdin,
        stdout,
    })
}
