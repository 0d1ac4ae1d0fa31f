//! Tests that need a tool this machine may lack: one rule for all of them.
//!
//! Without its tool a test skips with a message, so `cargo test` passes on a bare machine; but
//! where the tool's `GOUGI_REQUIRE_*` variable is set (to anything but empty), a missing tool is
//! a failure. `.ci/run` installs every tool and sets every variable, so CI never counts a test
//! it did not run as passed. `tests/require.rs` checks both sides: the panic, and that `.ci/run`
//! sets each variable listed here.

use std::path::Path;
use std::process::{Command, Stdio};

/// A tool some tests need, and the variable that makes its absence a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Fairy-Stockfish and gpsshogi from Debian (`/usr/games`): the games against real engines.
    Engines,
    /// Headless Chromium: the live pages' DOM.
    Browser,
    /// OpenSSH's sshd and client: members on other hosts.
    Ssh,
    /// wine, mingw-w64 and the Rust Windows target: the Windows lane.
    Wine,
    /// tar and xz: the match records' archives.
    Tar,
    /// cshogi (PyPI) under `python3`: an independent reader of gougi's KIF records.
    Cshogi,
}

impl Tool {
    pub const ALL: [Tool; 6] = [
        Tool::Engines,
        Tool::Browser,
        Tool::Ssh,
        Tool::Wine,
        Tool::Tar,
        Tool::Cshogi,
    ];

    /// The environment variable that makes a missing tool a failure.
    pub fn variable(self) -> &'static str {
        match self {
            Tool::Engines => "GOUGI_REQUIRE_ENGINES",
            Tool::Browser => "GOUGI_REQUIRE_BROWSER",
            Tool::Ssh => "GOUGI_REQUIRE_SSH",
            Tool::Wine => "GOUGI_REQUIRE_WINE",
            Tool::Tar => "GOUGI_REQUIRE_TAR",
            Tool::Cshogi => "GOUGI_REQUIRE_CSHOGI",
        }
    }

    /// How to install it (`.ci/run` does).
    fn install(self) -> &'static str {
        match self {
            Tool::Engines => "apt-get install fairy-stockfish gpsshogi",
            Tool::Browser => "apt-get install chromium",
            Tool::Ssh => "apt-get install openssh-server openssh-client",
            Tool::Wine => {
                "apt-get install wine wine64 gcc-mingw-w64-x86-64; \
                 rustup target add x86_64-pc-windows-gnu"
            }
            Tool::Tar => "apt-get install tar xz-utils",
            Tool::Cshogi => "python3 -m pip install cshogi",
        }
    }

    /// Whether its variable is set (not empty).
    pub fn required(self) -> bool {
        std::env::var_os(self.variable()).is_some_and(|v| !v.is_empty())
    }
}

/// The one rule: `true` (run the test) when nothing is `missing`; else `false` (skip, with a
/// message), or a panic when `tool`'s variable is set.
pub fn have(tool: Tool, missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    let missing = missing.join(", ");
    let variable = tool.variable();
    assert!(
        !tool.required(),
        "{variable} is set but this machine lacks {missing} ({})",
        tool.install()
    );
    eprintln!(
        "skipping: this machine lacks {missing} ({}; {variable}=1 makes this a failure)",
        tool.install()
    );
    false
}

/// Fairy-Stockfish at its Debian path.
pub const FAIRY: &str = "/usr/games/fairy-stockfish";
/// gpsshogi's USI engine at its Debian path.
pub const GPS: &str = "/usr/games/gpsusi";

/// Whether these engine programs are installed ([`have`] with [`Tool::Engines`]).
pub fn have_engines(paths: &[&str]) -> bool {
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| !Path::new(p).exists())
        .map(|p| p.to_string())
        .collect();
    have(Tool::Engines, &missing)
}

/// Whether `python3` imports cshogi ([`have`] with [`Tool::Cshogi`]).
pub fn have_cshogi() -> bool {
    let imports = Command::new("python3")
        .args(["-c", "import cshogi"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    have(Tool::Cshogi, &missing_unless(imports, "cshogi for python3"))
}

/// Whether `program --version` runs (a tool on PATH that answers).
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `[what]` unless `present`: the `missing` list of one tool.
pub fn missing_unless(present: bool, what: &str) -> Vec<String> {
    if present {
        Vec::new()
    } else {
        vec![what.to_owned()]
    }
}
