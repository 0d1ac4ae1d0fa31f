//! Windows: members die with gougi. The only `unsafe` of the Windows member code.
//!
//! Windows has no process groups and no parent-death signal. Its equivalent is a **Job
//! Object**: gougi creates one per process, with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, and puts
//! every member in it right after spawning it. gougi holds the only handle to the job, so when
//! gougi ends — returning, crashing, or hard-killed by a GUI (`TerminateProcess`), where no code
//! of ours runs — the kernel closes that handle and kills every process in the job. A process
//! started by a process in a job is in the job too, so a `.bat` wrapper's engine (cmd.exe's
//! child) dies with it.
//!
//! The same job serves gougi's orderly exits and console events: [`kill_all`] terminates it
//! (every member and their children) and [`install_console_handler`] does so on Ctrl-C,
//! Ctrl-Break, closing the console window, logoff and shutdown.
//!
//! Limits: a member that starts a process between its own start and its assignment (a few
//! microseconds after `CreateProcess` returns) would leave that one process outside the job; a
//! member started with `CREATE_BREAKAWAY_FROM_JOB` by a wrapper leaves it on purpose.

use std::os::windows::io::RawHandle;
use std::sync::OnceLock;

use windows_sys::Win32::Foundation::HANDLE;
use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};

/// The job's handle, as an integer so it can live in a static (a `HANDLE` is a raw pointer).
/// `None` when the job could not be created (logged once): members then run untied, as before.
static JOB: OnceLock<Option<usize>> = OnceLock::new();

/// Exit status given to members ended by [`kill_all`] (that of a process killed by Ctrl-C).
const KILLED: u32 = 0xC000_013A;

fn job() -> Option<HANDLE> {
    let handle = JOB.get_or_init(|| {
        // SAFETY: no security attributes (null: the default, handle not inheritable) and no name
        // (null: an anonymous job, so no other process can open it by name). The returned handle
        // is checked for null (failure) before use.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            tracing::warn!(error = %std::io::Error::last_os_error(), "no Job Object: members may outlive gougi");
            return None;
        }
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `job` is a valid job handle we own; the pointer and size describe `limits`, a
        // live, initialised JOBOBJECT_EXTENDED_LIMIT_INFORMATION, which is what this
        // information class reads (and the call only reads it).
        let ok = unsafe {
            SetInformationJobObject(
                job,
                JobObjectExtendedLimitInformation,
                (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "Job Object without kill-on-close: members may outlive gougi");
        }
        // The handle is never closed: it must stay open for gougi's whole life, and the kernel
        // closes it (killing the job's processes) when gougi ends.
        Some(job as usize)
    });
    handle.map(|h| h as HANDLE)
}

/// Puts a just-spawned member (its process handle) into gougi's job. A failure is logged (the
/// member then runs untied, as it would have without this module), never fatal.
pub(super) fn adopt(process: RawHandle, member: u32) {
    let Some(job) = job() else { return };
    // SAFETY: `job` is our job handle, open for gougi's life; `process` is the handle tokio's
    // `Child` owns, borrowed here while the caller holds the `Child`, so it is open. The call
    // neither keeps nor closes either handle.
    let ok = unsafe { AssignProcessToJobObject(job, process as HANDLE) };
    if ok == 0 {
        tracing::warn!(member, error = %std::io::Error::last_os_error(), "member not in gougi's Job Object: it may outlive gougi");
    }
}

/// Terminates every process in the job (every member and whatever they started). The job stays
/// usable for members started later.
pub(super) fn kill_all() {
    let Some(Some(job)) = JOB.get() else { return };
    // SAFETY: the handle is our job's, open for gougi's life. Terminating processes of our own
    // job has no memory effects in this process; the actors see their members exit.
    unsafe { TerminateJobObject(*job as HANDLE, KILLED) };
}

/// On a console event (Ctrl-C, Ctrl-Break, the console window closed, logoff, shutdown): end
/// every member, then let Windows go on to the default handler, which ends gougi. Installed once.
pub(super) fn install_console_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `on_console_event` has the PHANDLER_ROUTINE signature; it runs on a thread
        // Windows creates for the event and touches only the job handle (a read of an
        // initialised OnceLock) and TerminateJobObject, which is thread-safe.
        let ok = unsafe { SetConsoleCtrlHandler(Some(on_console_event), 1) };
        if ok == 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "no console event handler");
        }
    });
}

unsafe extern "system" fn on_console_event(_event: u32) -> windows_sys::core::BOOL {
    kill_all();
    // FALSE: not handled, so the next handler (the default one, ExitProcess) runs.
    0
}
