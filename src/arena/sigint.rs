//! Ctrl-C handling: the first SIGINT sets [`INTERRUPTED`] (the runner polls it); a second one
//! kills every engine group and ends gougi at once, as the default handler would. On Windows the
//! same through a console control handler: the first Ctrl-C (or Ctrl-Break) sets the flag and
//! is handled; a second one, or the console closing, logoff or shutdown, is passed on to the
//! members' handler (which ends every member) and then to the default one (which ends gougi).

use std::sync::atomic::{AtomicBool, Ordering};

pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Async-signal-safe: atomics and killpg, then the default action.
        crate::member::process::kill_all_groups();
        // SAFETY: `signal` and `raise` are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Windows' console event `event`: TRUE (handled, gougi goes on) for the first Ctrl-C or
/// Ctrl-Break only. Runs on a thread Windows makes for the event; touches one atomic.
#[cfg(windows)]
unsafe extern "system" fn on_console_event(event: u32) -> windows_sys::core::BOOL {
    use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, CTRL_C_EVENT};
    let interrupt = event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT;
    windows_sys::core::BOOL::from(interrupt && !INTERRUPTED.swap(true, Ordering::SeqCst))
}

/// Installs the handler over the members' kill-and-die one (which keeps SIGTERM/SIGHUP; on
/// Windows, which handles the events this one passes on).
pub fn install() {
    crate::member::process::install_exit_signal_handlers();
    #[cfg(unix)]
    // SAFETY: installs an async-signal-safe handler (atomics, killpg, signal, raise).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
    #[cfg(windows)]
    {
        // Windows calls the handlers last installed first: this one, then the members'.
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
            // SAFETY: `on_console_event` has the PHANDLER_ROUTINE signature and touches
            // only an atomic, which is thread-safe.
            if unsafe { SetConsoleCtrlHandler(Some(on_console_event), 1) } == 0 {
                tracing::warn!(error = %std::io::Error::last_os_error(), "no Ctrl-C handler: Ctrl-C ends the match without its summary");
            }
        });
    }
}

pub fn raised() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
