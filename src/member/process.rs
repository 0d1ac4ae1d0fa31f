//! Spawning a member process: piped stdin/stdout, stderr drained into the log, and the rules
//! that keep a member from outliving gougi.
//!
//! stdout is the USI channel of gougi itself, so a member's stderr is never relayed: a task reads
//! it line by line and logs each line (`tracing`, target `gougi::member::stderr`) until EOF.
//!
//! # A member never outlives gougi (issue #17, defect 11)
//! A member may ignore `quit`, stdin EOF and SIGTERM, and it may be a wrapper (`sh -c …`,
//! `ssh host engine`) whose own children do the work. So, on Unix:
//! - **Own process group.** Each member leads a new process group (pgid = its pid), so the
//!   member and everything it starts can be signalled at once, and a Ctrl-C meant for gougi's
//!   terminal reaches gougi alone (gougi then ends its members itself).
//! - **Group killed when the member ends.** A small watcher thread per member waits (without
//!   reaping: `waitid(WNOWAIT)`, the actor still collects the status) until the leader has
//!   exited — on its own, or killed by the actor (hang, `kill`, handle dropped, `kill_on_drop`)
//!   — and then SIGKILLs the whole group, so a wrapper's grandchildren die with it. (Linux.)
//! - **Parent-death signal (Linux).** The child asks the kernel for SIGKILL when gougi dies
//!   (`prctl(PR_SET_PDEATHSIG)`), which covers even a SIGKILL of gougi, where no code of ours
//!   runs. The kernel ties this to the *thread* that forked the child, not the process: members
//!   must be spawned from a thread that lives as long as gougi. They are: the proxy and
//!   `gougi match` both run a current-thread tokio runtime on the main thread, and
//!   `tokio::process` forks on the calling thread. (Do not spawn members from `spawn_blocking`
//!   or a short-lived thread: they would be killed when that thread ends.) The signal is not
//!   inherited across `fork`, so a wrapper's grandchildren survive a SIGKILL of gougi; every
//!   other way gougi ends kills them through the group:
//! - **Exit paths.** [`kill_all_groups`] kills every live member group (the proxy calls it after
//!   its runtime is gone), and [`install_exit_signal_handlers`] does the same on SIGTERM, SIGINT
//!   and SIGHUP before gougi dies of the signal as it would have.
//!
//! The child is also `kill_on_drop(true)`: if the owning actor task is dropped without its
//! orderly shutdown (a runtime shutting down), the process is still killed.
//!
//! On Windows a Job Object with kill-on-close plays all these parts (`windows_job`): every
//! member is created suspended, put in gougi's job and only then resumed, so the kernel kills the
//! members and their children when gougi ends, even by `TerminateProcess`; the exit paths and
//! console events (Ctrl-C, Ctrl-Break, closing the console) terminate the job. A member that
//! cannot be put in the job is not started (an error, like a missing program). Members start
//! with `CREATE_NO_WINDOW`, so none opens a console window when a GUI starts gougi. macOS and
//! other Unixes get the process group only: no parent-death signal, no group watcher and so no
//! registry for the exit paths (only Linux can tell, without reaping, that a member has ended
//! and its group id may be recycled).
//!
//! # Shutdown is final (issue 65)
//! Once gougi begins to end, no member starts: the exit paths ([`kill_all_groups`]), the signal
//! handlers and Windows' console handler set a process-wide flag ([`ending`]) before they kill,
//! and [`spawn`] refuses when it is set ([`MemberError::Ending`]). (The coordinator also stops
//! restarting members at `quit` and at the end of its input.) The kill would otherwise race the
//! restart: on Windows the console handler runs on its own thread while gougi's goes on, and a
//! member it had just killed was started again, outside the job, and outlived gougi. There the
//! flag is paired with a gate that makes the handler wait for a start in flight (`windows_job`).
//! On Unix a signal handler cannot wait on a lock; a start that passed the check as the signal
//! came still gets the parent-death signal (Linux), so it dies with gougi.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Set once gougi has begun to end; never cleared. An atomic, so signal handlers may set it.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Whether gougi has begun to end (see the module doc): [`spawn`] starts nothing any more.
pub fn ending() -> bool {
    ENDING.load(Ordering::SeqCst)
}

/// From now on no member starts. Async-signal-safe (one atomic store).
fn begin_ending() {
    ENDING.store(true, Ordering::SeqCst);
}

/// Starts the member's process. Must run inside a tokio runtime (the stderr task is spawned),
/// on a thread that lives as long as gougi (see the module doc: the parent-death signal).
/// Refused once gougi is ending ([`MemberError::Ending`]); on Windows, a member that cannot be
/// put in gougi's Job Object is killed before it runs ([`MemberError::Untied`]).
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
    guard::prepare(&mut command);
    // Whoever runs members (the proxy, `gougi match`, tests) gets the exit-signal cleanup.
    guard::install_handlers();
    let mut child = {
        // Held until the member is tied to gougi's life: on Windows the console handler waits
        // for it before ending the job, so no member is created, untied, as gougi ends.
        let _gate = guard::gate();
        if ending() {
            return Err(MemberError::Ending {
                member: spec.number,
            });
        }
        let mut child = command.spawn().map_err(|source| MemberError::Spawn {
            member: spec.number,
            program: spec.program.clone(),
            source,
        })?;
        if let Err(source) = guard::tie(&child, spec.number) {
            // It has run nothing (Windows: still suspended); `kill_on_drop` would kill it too.
            let _ = child.start_kill();
            return Err(MemberError::Untied {
                member: spec.number,
                program: spec.program.clone(),
                source,
            });
        }
        child
    };
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

/// gougi is ending: no member starts from now on ([`ending`]), and every member's process
/// group that is still registered is SIGKILLed (members still running, with whatever they
/// started; on Windows, the whole job). For gougi's own exit paths; async-signal-safe on Unix.
pub fn kill_all_groups() {
    begin_ending();
    guard::kill_all();
}

/// On SIGTERM, SIGINT and SIGHUP: as [`kill_all_groups`], then die of the signal as before
/// (the default action is restored and the signal raised again); on Windows, the same on console
/// events. Installed once, by the first [`spawn`]; later calls do nothing.
pub fn install_exit_signal_handlers() {
    guard::install_handlers();
}

#[cfg(unix)]
mod guard {
    //! The Unix side: process groups, the registry of live groups, the watcher threads and the
    //! signal handlers. Everything the signal handler touches is a lock-free atomic.

    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::Once;

    /// Live member groups (pgid = the member's pid), 0 = free slot. A fixed array so the
    /// signal handler can walk it without locks or allocation. 256 is far above any config
    /// (`MateEngine.forPV.Count` is capped at 16); a member beyond it still gets its group and
    /// its parent-death signal, only not the exit-path kill.
    static GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

    /// No lock here: a signal handler cannot wait on one (see the module doc).
    pub(super) struct Gate;

    pub(super) fn gate() -> Gate {
        Gate
    }

    pub(super) fn prepare(command: &mut tokio::process::Command) {
        // pgid 0: the child's own pid — a new group it leads.
        command.process_group(0);
        #[cfg(target_os = "linux")]
        {
            // Read before the fork: in the child, a different parent means gougi already died
            // between fork and prctl, and the signal would never come.
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: the closure runs in the forked child before exec and calls only
            // async-signal-safe functions (prctl, getppid, _exit); it allocates nothing.
            unsafe {
                command.pre_exec(move || {
                    if libc::prctl(
                        libc::PR_SET_PDEATHSIG,
                        libc::SIGKILL as libc::c_ulong,
                        0,
                        0,
                        0,
                    ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    if libc::getppid() != parent {
                        libc::_exit(1);
                    }
                    Ok(())
                });
            }
        }
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn register(pgid: i32) -> bool {
        GROUPS.iter().any(|slot| {
            slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fn unregister(pgid: i32) {
        for slot in &GROUPS {
            let _ = slot.compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst);
        }
    }

    /// Async-signal-safe: atomics and `killpg` only.
    pub(super) fn kill_all() {
        for slot in &GROUPS {
            let pgid = slot.swap(0, Ordering::SeqCst);
            if pgid > 0 {
                // SAFETY: plain system call; a group that is already gone gives ESRCH.
                unsafe {
                    libc::killpg(pgid, libc::SIGKILL);
                }
            }
        }
    }

    /// Registers the member's group and starts its watcher, which kills the group once the
    /// leader has exited and unregisters it. Linux only: without the watcher a group would stay
    /// registered after its member ended, and a later exit-path kill could hit a recycled id.
    /// Never fails: what it cannot do is logged, since the group and the parent-death signal
    /// are already in place.
    pub(super) fn tie(child: &tokio::process::Child, member: u32) -> std::io::Result<()> {
        watch(child, member);
        Ok(())
    }

    fn watch(child: &tokio::process::Child, member: u32) {
        let Some(pid) = child.id() else { return };
        #[cfg(target_os = "linux")]
        {
            let Ok(pgid) = i32::try_from(pid) else { return };
            if !register(pgid) {
                tracing::warn!(
                    member,
                    "too many member groups to track; exit paths will not kill this one's children"
                );
            }
            let started = std::thread::Builder::new()
                .name(format!("gougi-member-{member}-group"))
                .stack_size(64 * 1024)
                .spawn(move || {
                    wait_exited(pgid);
                    // The leader is a zombie (or already reaped by the actor): its pid, the
                    // group's id, cannot have been reused while the group has members, so this
                    // reaches only what the member started.
                    // SAFETY: plain system call.
                    unsafe {
                        libc::killpg(pgid, libc::SIGKILL);
                    }
                    unregister(pgid);
                });
            if let Err(e) = started {
                tracing::warn!(member, error = %e, "cannot start the member's group watcher");
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (pid, member);
    }

    /// Blocks until child `pid` has exited, leaving it for the actor to reap (`WNOWAIT`).
    /// Returns at once if it was already reaped (ECHILD).
    #[cfg(target_os = "linux")]
    fn wait_exited(pid: i32) {
        loop {
            // SAFETY: `info` is plain data the kernel fills; no pointers kept.
            let r = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                libc::waitid(
                    libc::P_PID,
                    pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOWAIT,
                )
            };
            if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return;
            }
        }
    }

    pub(super) fn install_handlers() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                // SAFETY: installs an async-signal-safe handler (see `on_exit_signal`).
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_exit_signal as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(sig, &action, std::ptr::null_mut());
                }
            }
        });
    }

    extern "C" fn on_exit_signal(sig: libc::c_int) {
        super::begin_ending();
        kill_all();
        // SAFETY: `signal` and `raise` are async-signal-safe; the signal is blocked while this
        // handler runs, so the raised one is delivered, with the default action, on return.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

#[cfg(windows)]
mod guard {
    //! The Windows side: a Job Object with kill-on-close (see `windows_job`) and no console
    //! window for members.

    use std::os::windows::process::CommandExt as _;

    use super::super::windows_job;

    use windows_sys::Win32::System::Threading::{CREATE_NO_WINDOW, CREATE_SUSPENDED};

    /// `CREATE_NO_WINDOW`: a console member started by gougi without a visible console (a GUI
    /// starts gougi that way) gets none either, instead of a window popping up per member.
    /// `CREATE_SUSPENDED`: it runs nothing until [`tie`] has put it in the job.
    pub(super) fn prepare(command: &mut tokio::process::Command) {
        command
            .as_std_mut()
            .creation_flags(CREATE_NO_WINDOW | CREATE_SUSPENDED);
    }
    pub(super) fn gate() -> std::sync::MutexGuard<'static, ()> {
        windows_job::gate()
    }
    /// Into the job, then resumed; an error leaves it suspended for the caller to kill.
    pub(super) fn tie(child: &tokio::process::Child, _member: u32) -> std::io::Result<()> {
        let (Some(handle), Some(pid)) = (child.raw_handle(), child.id()) else {
            return Err(std::io::Error::other("no process handle"));
        };
        windows_job::tie(handle, pid)
    }
    /// Called with `begin_ending` already done, so the gate cannot let another start through.
    pub(super) fn kill_all() {
        windows_job::kill_all();
    }
    pub(super) fn install_handlers() {
        windows_job::install_console_handler(super::kill_all_groups);
    }
}

#[cfg(not(any(unix, windows)))]
mod guard {
    pub(super) struct Gate;

    pub(super) fn prepare(_command: &mut tokio::process::Command) {}
    pub(super) fn gate() -> Gate {
        Gate
    }
    pub(super) fn tie(_child: &tokio::process::Child, _member: u32) -> std::io::Result<()> {
        Ok(())
    }
    pub(super) fn kill_all() {}
    pub(super) fn install_handlers() {}
}
