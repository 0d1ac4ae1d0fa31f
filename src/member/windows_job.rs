//! Windows: members die with gougi. The only `unsafe` of the Windows member code.
//!
//! Windows has no process groups and no parent-death signal. Its equivalent is a **Job
//! Object**: gougi creates one per process, with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, and puts
//! every member in it before the member runs. gougi holds the only handle to the job, so when
//! gougi ends — returning, crashing, or hard-killed by a GUI (`TerminateProcess`), where no code
//! of ours runs — the kernel closes that handle and kills every process in the job. A process
//! started by a process in a job is in the job too, so a `.bat` wrapper's engine (cmd.exe's
//! child) dies with it.
//!
//! **In the job before it runs** (issue 65). A member is created suspended
//! (`CREATE_SUSPENDED`, set by `process`), assigned to the job, and only then resumed ([`tie`]):
//! so nothing it starts, not even in its first microseconds, is outside the job. A member that
//! cannot be assigned, or resumed, is killed where it stands and its start is an error: a member
//! that could outlive gougi is not started at all. So is every member when the job cannot be made
//! with kill-on-close (a job without it ties nothing).
//!
//! **Shutdown is final.** The same job serves gougi's orderly exits and console events:
//! [`kill_all`] terminates it (every member and their children) and [`install_console_handler`]
//! does so on Ctrl-C, Ctrl-Break, closing the console window, logoff and shutdown. The console
//! handler runs on a thread of its own while gougi's thread goes on, and gougi used to restart
//! the members it had just killed: a replacement created before gougi died but not yet in the job
//! outlived it for good (issue 65: 2 of 15 Ctrl-Cs under CPU load). Now every ending goes through
//! `process::kill_all_groups` (the console handler too), which first marks gougi as ending
//! (`process::ending`: no member starts after that); then [`kill_all`] takes the **gate**, a
//! mutex that every start holds from before `CreateProcess` until the member is in the job and
//! resumed. So the handler waits for a start in flight, and terminates the job only when every
//! member that will ever exist is in it.
//!
//! Limits: if gougi is hard-killed in the microseconds between `CreateProcess` and the
//! assignment, that member stays suspended outside the job, having run nothing, until someone
//! kills it. `PROC_THREAD_ATTRIBUTE_JOB_LIST` would close that window too, but the standard
//! library's `Command` cannot pass thread attributes on stable Rust, and our own `CreateProcessW`
//! with the pipes tokio needs is far more unsafe code than the window is worth. A wrapper cannot
//! take its engine out of the job: the job does not set `JOB_OBJECT_LIMIT_BREAKAWAY_OK`, so a
//! `CREATE_BREAKAWAY_FROM_JOB` start fails. What a member has started through another process (a
//! service, the task scheduler) is not its child and not in the job.

use std::io;
use std::os::windows::io::RawHandle;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};

/// The job's handle, as an integer so it can live in a static (a `HANDLE` is a raw pointer),
/// or why there is none: what failed and the OS error code. Made at the first member's start; a
/// failure is kept, and every member's start reports it (none would end with gougi).
static JOB: OnceLock<Result<usize, (&'static str, i32)>> = OnceLock::new();

/// Held by every member's start from before its creation until it is in the job and resumed,
/// and by [`kill_all`] while it terminates the job (see the module doc). Nothing awaits under
/// it: it guards system calls that return in microseconds.
static GATE: Mutex<()> = Mutex::new(());

/// Exit status given to members ended by [`kill_all`] (that of a process killed by Ctrl-C).
const KILLED: u32 = 0xC000_013A;

fn last_error() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// `what` failed with the OS error `code`, as one error for the GUI's line.
fn error(what: &str, code: i32) -> io::Error {
    io::Error::other(format!("{what}: {}", io::Error::from_raw_os_error(code)))
}

fn create_job() -> Result<usize, (&'static str, i32)> {
    // SAFETY: no security attributes (null: the default, handle not inheritable) and no name
    // (null: an anonymous job, so no other process can open it by name). The returned handle is
    // checked for null (failure) before use.
    let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if job.is_null() {
        return Err(("cannot create gougi's Job Object", last_error()));
    }
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: `job` is a valid job handle we own; the pointer and size describe `limits`, a
    // live, initialised JOBOBJECT_EXTENDED_LIMIT_INFORMATION, which is what this information
    // class reads (and the call only reads it).
    let ok = unsafe {
        SetInformationJobObject(
            job,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        let code = last_error();
        // SAFETY: our own handle, closed once and never used again: a job without
        // kill-on-close would tie nothing to gougi.
        unsafe { CloseHandle(job) };
        return Err(("cannot set kill-on-close on gougi's Job Object", code));
    }
    // The handle is never closed: it must stay open for gougi's whole life, and the kernel closes
    // it (killing the job's processes) when gougi ends.
    Ok(job as usize)
}

fn job() -> io::Result<HANDLE> {
    match JOB.get_or_init(create_job) {
        Ok(handle) => Ok(*handle as HANDLE),
        Err((what, code)) => Err(error(what, *code)),
    }
}

/// The gate (see the module doc). A panic under it poisons nothing it guards: there is no data.
pub(super) fn gate() -> MutexGuard<'static, ()> {
    GATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Puts a member just created suspended (its process handle and id) into gougi's job, then
/// resumes it. The caller holds the [`gate`] and kills the member on an error.
pub(super) fn tie(process: RawHandle, pid: u32) -> io::Result<()> {
    let job = job()?;
    // SAFETY: `job` is our job handle, open for gougi's life; `process` is the handle tokio's
    // `Child` owns, borrowed here while the caller holds the `Child`, so it is open. The call
    // neither keeps nor closes either handle.
    if unsafe { AssignProcessToJobObject(job, process as HANDLE) } == 0 {
        return Err(error("cannot put it in gougi's Job Object", last_error()));
    }
    resume(pid)
}

/// Resumes the threads of process `pid`. A process created suspended has one, its first; the
/// standard library closes the thread handle `CreateProcess` returns, so the thread is found by
/// a snapshot of the system's threads. (Resuming a thread that is not suspended does nothing, so
/// a thread the loader may have added is harmless.) The caller holds the process handle, so
/// `pid` cannot have been reused.
fn resume(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of all threads (the process id is ignored for TH32CS_SNAPTHREAD); the
    // handle is checked before use and closed below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(error("cannot list its threads to resume it", last_error()));
    }
    let mut entry = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..THREADENTRY32::default()
    };
    let mut resumed = 0;
    let mut failed = None;
    // SAFETY: `snapshot` is a live snapshot handle and `entry` a THREADENTRY32 whose `dwSize`
    // says so; the calls fill it and keep no pointer.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: plain system calls on a thread id from the snapshot; the handle is checked
            // for null and closed after use.
            unsafe {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if thread.is_null() {
                    failed = Some(last_error());
                } else {
                    if ResumeThread(thread) == u32::MAX {
                        failed = Some(last_error());
                    } else {
                        resumed += 1;
                    }
                    CloseHandle(thread);
                }
            }
        }
        // SAFETY: as for Thread32First.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    // SAFETY: our snapshot handle, closed once.
    unsafe { CloseHandle(snapshot) };
    match (failed, resumed) {
        (Some(code), _) => Err(error("cannot resume it", code)),
        (None, 0) => Err(io::Error::other("cannot resume it: no thread found")),
        (None, _) => Ok(()),
    }
}

/// Terminates every process in the job (every member and whatever they started), once no start
/// is in flight: the caller has marked gougi as ending, so none begins after this. The job stays
/// open (kill-on-close still covers gougi's end).
pub(super) fn kill_all() {
    let _gate = gate();
    let Some(Ok(job)) = JOB.get() else { return };
    // SAFETY: the handle is our job's, open for gougi's life. Terminating processes of our own
    // job has no memory effects in this process; the actors see their members exit.
    unsafe { TerminateJobObject(*job as HANDLE, KILLED) };
}

/// What the console handler calls: `process::kill_all_groups`, given at installation so that
/// this file does not import `process.rs`, which imports it.
static ON_EVENT: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// On a console event (Ctrl-C, Ctrl-Break, the console window closed, logoff, shutdown): end
/// every member for good (`end_all`: marks gougi as ending and kills every member), then let
/// Windows go on to the default handler, which ends gougi. Installed once.
pub(super) fn install_console_handler(end_all: fn()) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ON_EVENT.set(end_all);
        // SAFETY: `on_console_event` has the PHANDLER_ROUTINE signature; it runs on a thread
        // Windows creates for the event and touches only `ON_EVENT` (set above, before the
        // handler exists), an atomic, the gate (a std mutex) and the job handle (a read of an
        // initialised OnceLock) with TerminateJobObject, all thread-safe.
        let ok = unsafe { SetConsoleCtrlHandler(Some(on_console_event), 1) };
        if ok == 0 {
            tracing::warn!(error = %io::Error::last_os_error(), "no console event handler");
        }
    });
}

unsafe extern "system" fn on_console_event(_event: u32) -> windows_sys::core::BOOL {
    // Marks gougi as ending, then waits at the gate for a start in flight: a member created by
    // gougi's own thread meanwhile is in the job, and dies with the rest.
    if let Some(end_all) = ON_EVENT.get() {
        end_all();
    }
    // FALSE: not handled, so the next handler (the default one, ExitProcess) runs.
    0
}
