//! The per-member task and its [`MemberHandle`].
//!
//! One tokio task per member owns the [`Child`], a `BufWriter` on its stdin and a [`LineReader`]
//! on its stdout (mini-redis's connection-per-task shape). Commands come in on an unbounded
//! `mpsc` from the handle; every stdout line goes out, parsed, as [`MemberEvent::Message`] on the
//! shared event channel, tagged with the member number. When stdout ends, the task reaps the
//! process and sends [`MemberEvent::Exited`] with its status, then ends.
//!
//! Instances: every handle made (a process spawned, or an in-process scripted member) gets a
//! process-wide unique instance id, and every event carries it. A restarted member keeps its
//! number, so the number alone cannot tell the killed process's late `Exited` from news about
//! its replacement; the instance can (the coordinator drops events of instances it replaced).
//!
//! Why unbounded channels: commands are a handful per move, and the coordinator drains events as
//! they come; a bounded event channel would make a slow coordinator stall the actor, which must
//! stay free to obey `kill`.
//!
//! Shutdown: [`MemberHandle::kill`], or dropping every clone of the handle, makes the task kill
//! and reap the child (no zombie, no orphan). `kill_on_drop` covers the task itself being
//! dropped by a runtime shutdown.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, timeout, Instant};
use tracing::Instrument;

use super::error::MemberError;
use super::lines::LineReader;
use super::process::{self, Spawned};
use super::spec::MemberSpec;
use crate::usi::{EngineMessage, GuiCommand};

/// How long a member may keep running after closing its stdout before it is killed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How long one write to a member's stdin may block (a member that stopped reading its input
/// while we fill the pipe). After that the member is killed: it is hung.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// What a member did, tagged with its number and the instance (see [`MemberHandle::instance`])
/// that did it.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberEvent {
    /// One stdout line, parsed leniently; a line that does not parse is `Unknown` (verbatim).
    Message {
        member: u32,
        instance: u64,
        message: EngineMessage,
    },
    /// The process ended (stdout closed, then reaped). `code` is `None` after a signal or a kill.
    /// This is the instance's last event.
    Exited {
        member: u32,
        instance: u64,
        code: Option<i32>,
    },
}

impl MemberEvent {
    /// The member number the event belongs to.
    pub fn member(&self) -> u32 {
        match self {
            MemberEvent::Message { member, .. } | MemberEvent::Exited { member, .. } => *member,
        }
    }

    /// The instance (one launch of the member) the event comes from.
    pub fn instance(&self) -> u64 {
        match self {
            MemberEvent::Message { instance, .. } | MemberEvent::Exited { instance, .. } => {
                *instance
            }
        }
    }
}

/// What a handle asks of its member's task.
#[derive(Debug)]
pub(super) enum Command {
    /// One line to write; `cp932`: encode it in CP932 (Shift_JIS) instead of UTF-8.
    Line {
        text: String,
        cp932: bool,
    },
    Kill,
}

/// The exit status, once known: set by the actor before it sends `Exited`.
pub(super) type ExitSlot = Arc<OnceLock<Option<i32>>>;

/// Instance ids are never reused within a process (0 is never handed out).
static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

/// Starts a member for the coordinator: the real one spawns a process
/// ([`process_launcher`]); tests and the fuzz target pass in-process scripted members
/// (`member::scripted`). Events go to the sender given.
pub type Launcher = Box<
    dyn FnMut(&MemberSpec, mpsc::UnboundedSender<MemberEvent>) -> Result<MemberHandle, MemberError>
        + Send,
>;

/// The launcher that runs each member as its own process ([`MemberHandle::spawn`]).
pub fn process_launcher() -> Launcher {
    Box::new(MemberHandle::spawn)
}

/// The other end of a handle made by [`MemberHandle::detached`]: what an in-process member task
/// reads its commands from, and where it records its exit status (before sending `Exited`).
pub(super) struct Detached {
    pub(super) instance: u64,
    pub(super) commands: mpsc::UnboundedReceiver<Command>,
    pub(super) exit: ExitSlot,
}

/// Talks to one running member. Cloneable; the member is killed when the last clone is dropped.
#[derive(Clone, Debug)]
pub struct MemberHandle {
    number: u32,
    instance: u64,
    pid: Option<u32>,
    commands: mpsc::UnboundedSender<Command>,
    exit: ExitSlot,
}

impl MemberHandle {
    /// A handle with no process behind it: the caller runs the member's task on the returned
    /// [`Detached`] end (the in-process scripted members).
    pub(super) fn detached(number: u32) -> (MemberHandle, Detached) {
        let (tx, rx) = mpsc::unbounded_channel();
        let exit: ExitSlot = Arc::new(OnceLock::new());
        let instance = NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed);
        let handle = MemberHandle {
            number,
            instance,
            pid: None,
            commands: tx,
            exit: exit.clone(),
        };
        let end = Detached {
            instance,
            commands: rx,
            exit,
        };
        (handle, end)
    }

    /// Starts the member's process and its task; its events go to `events`. Must run inside a
    /// tokio runtime.
    pub fn spawn(
        spec: &MemberSpec,
        events: mpsc::UnboundedSender<MemberEvent>,
    ) -> Result<MemberHandle, MemberError> {
        let spawned = process::spawn(spec)?;
        let (mut handle, end) = MemberHandle::detached(spec.number);
        handle.pid = spawned.child.id();
        let span = tracing::info_span!("member", member = spec.number, instance = end.instance);
        tokio::spawn(run(spec.number, spawned, end, events).instrument(span));
        Ok(handle)
    }

    /// Starts every member; one result per spec, in order (a member that cannot start does not
    /// stop the others).
    pub fn spawn_all(
        specs: &[MemberSpec],
        events: &mpsc::UnboundedSender<MemberEvent>,
    ) -> Vec<Result<MemberHandle, MemberError>> {
        specs
            .iter()
            .map(|spec| MemberHandle::spawn(spec, events.clone()))
            .collect()
    }

    /// The member number (`E<N>_`).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// This launch's instance id, unique in the process: the `instance` of its events.
    pub fn instance(&self) -> u64 {
        self.instance
    }

    /// The OS process id, if the process had one at spawn (`None` in-process).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// `Some(code)` once the member has exited.
    pub fn exit_code(&self) -> Option<Option<i32>> {
        self.exit.get().copied()
    }

    /// Sends one USI command (queued; written in order by the member's task).
    pub fn send(&self, command: &GuiCommand) -> Result<(), MemberError> {
        self.send_line(command.to_string())
    }

    /// Sends one raw line (no line terminator inside; a `\n` or `\r` would smuggle a second
    /// command, so it is refused).
    pub fn send_line(&self, line: impl Into<String>) -> Result<(), MemberError> {
        self.send_text(line.into(), false)
    }

    /// Sends one USI command written in CP932 (Shift_JIS): for a `setoption` whose value the GUI
    /// sent in CP932 (a Japanese Windows GUI's file names), so the member reads the same bytes
    /// it would have read from the GUI directly.
    pub fn send_cp932(&self, command: &GuiCommand) -> Result<(), MemberError> {
        self.send_text(command.to_string(), true)
    }

    fn send_text(&self, line: String, cp932: bool) -> Result<(), MemberError> {
        if line.contains(['\n', '\r']) {
            return Err(MemberError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a USI line cannot contain a line break",
            )));
        }
        self.commands
            .send(Command::Line { text: line, cp932 })
            .map_err(|_| MemberError::Exited {
                code: self.exit_code().flatten(),
            })
    }

    /// Kills the member's process; an `Exited` event follows. Harmless if it already exited.
    pub fn kill(&self) {
        // An error means the task has already ended: the process is gone.
        let _ = self.commands.send(Command::Kill);
    }
}

/// The member's task: relay commands to stdin and stdout lines to events until the member ends.
async fn run(
    member: u32,
    spawned: Spawned,
    end: Detached,
    events: mpsc::UnboundedSender<MemberEvent>,
) {
    let Detached {
        instance,
        mut commands,
        exit,
    } = end;
    let Spawned {
        mut child,
        stdin,
        stdout,
    } = spawned;
    let mut writer = BufWriter::new(stdin);
    let mut reader = LineReader::new(stdout);
    let code = loop {
        tokio::select! {
            // A command from the handle; `None` means every handle was dropped: shut down.
            command = commands.recv() => {
                // Every line already queued goes out in one write and one flush: `position` and
                // `go` (or `stop` and the next `go`) reach the member in one pipe write, which
                // matters where a write is a system call through a thread pool (tokio's child
                // pipes on Windows) or a round trip to wineserver.
                let mut batch = Vec::new();
                let mut next = command;
                let ending = loop {
                    match next {
                        Some(Command::Line { text, cp932 }) => batch.push((text, cp932)),
                        other => break Some(other),
                    }
                    match commands.try_recv() {
                        Ok(more) => next = Some(more),
                        // Empty, or disconnected (the next `recv` sees `None`).
                        Err(_) => break None,
                    }
                };
                if !batch.is_empty() {
                    match timeout(WRITE_TIMEOUT, write_lines(&mut writer, &batch)).await {
                        Ok(Ok(())) => {}
                        // A broken pipe means the member is dying; its stdout EOF ends the loop.
                        Ok(Err(e)) => tracing::warn!(error = %e, lines = batch.len(), "write to member failed"),
                        Err(_) => {
                            tracing::warn!(lines = batch.len(), "member stopped reading its input; killing it");
                            break kill(&mut child).await;
                        }
                    }
                }
                match ending {
                    None | Some(Some(Command::Line { .. })) => {}
                    Some(Some(Command::Kill)) => {
                        tracing::info!("killing member on request");
                        break kill(&mut child).await;
                    }
                    Some(None) => {
                        tracing::debug!("all handles dropped; killing member");
                        break kill(&mut child).await;
                    }
                }
            }
            // A line from the member. `next_line` is cancel-safe: if a command wins the race,
            // the partial line waits in the reader.
            line = reader.next_line() => match line {
                Ok(Some(line)) => {
                    let message = parse_line(line);
                    let event = MemberEvent::Message { member, instance, message };
                    if events.send(event).is_err() {
                        tracing::debug!("event receiver gone; killing member");
                        break kill(&mut child).await;
                    }
                }
                Ok(None) => break wait_exit(&mut child).await,
                Err(e) => {
                    tracing::warn!(error = %e, "reading from member failed");
                    break wait_exit(&mut child).await;
                }
            },
        }
    };
    tracing::info!(code = ?code, "member exited");
    let _ = exit.set(code);
    let _ = events.send(MemberEvent::Exited {
        member,
        instance,
        code,
    });
}

/// Writes `lines` (each in CP932 when marked so, else UTF-8), then flushes once.
async fn write_lines(
    writer: &mut BufWriter<ChildStdin>,
    lines: &[(String, bool)],
) -> std::io::Result<()> {
    for (line, cp932) in lines {
        tracing::debug!(%line, cp932, "to member");
        let bytes = if *cp932 {
            encoding_rs::SHIFT_JIS.encode(line).0
        } else {
            std::borrow::Cow::Borrowed(line.as_bytes())
        };
        writer.write_all(&bytes).await?;
        writer.write_all(b"\n").await?;
    }
    writer.flush().await
}

/// Lenient parse; what does not parse is kept verbatim as `Unknown` and logged, never fatal.
pub(super) fn parse_line(line: String) -> EngineMessage {
    match line.parse::<EngineMessage>() {
        Ok(EngineMessage::Unknown(text)) => {
            if !text.is_empty() {
                tracing::debug!(raw = %text, "unknown line from member");
            }
            EngineMessage::Unknown(text)
        }
        Ok(message) => {
            tracing::trace!(raw = %line, "from member");
            message
        }
        Err(e) => {
            tracing::warn!(raw = %line, reason = %e, "unparsable line from member");
            EngineMessage::Unknown(line)
        }
    }
}

/// After stdout closed: reap the process, or kill it if it lingers past [`EXIT_GRACE`].
async fn wait_exit(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + EXIT_GRACE;
    tokio::select! {
        status = child.wait() => status.ok().and_then(|s| s.code()),
        // Closed stdout but still running (hung, or a grandchild holds nothing): do not wait
        // forever.
        _ = sleep_until(deadline) => {
            tracing::warn!("member closed stdout but kept running; killing it");
            kill(child).await
        }
    }
}

/// Kills and reaps (so no zombie remains); the status code if the process had already exited.
async fn kill(child: &mut Child) -> Option<i32> {
    // `start_kill` fails only if the process was already reaped; `wait` then returns the status.
    let _ = child.start_kill();
    child.wait().await.ok().and_then(|s| s.code())
}
