//! Shared harness for tests that drive the real `gougi` binary over stdin/stdout.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub mod distance;
pub mod tools;

/// Builds the mock engine for this profile once and returns its path.
pub fn mock_engine_path() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_path("mock_engine")).clone()
}

/// Builds the delay relay (`examples/delay_relay.rs`) for this profile once; its path.
pub fn delay_relay_path() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| example_path("delay_relay")).clone()
}

/// Builds example `name` for this profile (a no-op when up to date) and returns its path.
fn example_path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps layout")
        .to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build
        .args(["build", "--quiet", "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    assert!(build.status().expect("cargo build --example").success());
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "no {name} at {}", path.display());
    path
}

/// This test process's directory for scratch files: `<temp>/gougi-tests/<binary>-<pid>`.
///
/// A test process has no exit hook and a test's members may still write after it ends, so
/// nothing is removed at the end of a test; instead the first call removes the directories
/// that earlier runs of this test binary left whose process is gone. /tmp then holds at most
/// the last run's files per binary (kept for looking into a failure), not one directory per
/// test per run (10,000 after a day of runs). Only Linux can tell a dead process by its
/// `/proc` entry; elsewhere earlier runs' directories stay.
pub fn test_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let parent = std::env::temp_dir().join("gougi-tests");
        let exe = std::env::current_exe().expect("test binary path");
        let stem = exe
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "test".into());
        if let Ok(entries) = std::fs::read_dir(&parent) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(pid) = name
                    .strip_prefix(&stem)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .and_then(|pid| pid.parse::<u32>().ok())
                else {
                    continue;
                };
                if cfg!(target_os = "linux") && !Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let root = parent.join(format!("{stem}-{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("test root");
        root
    })
}

/// A fresh path under [`test_root`]: `<n>-<tag>`, unique within this process.
pub fn scratch_path(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    test_root().join(format!("{}-{tag}", N.fetch_add(1, Ordering::SeqCst)))
}

/// A fresh scratch directory for one test (under [`test_root`]).
pub fn scratch_dir(tag: &str) -> PathBuf {
    let dir = scratch_path(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A config with mock members: `scripts[k]` is the script of `Engine<k+1>`; `mate` the mate
/// engine's script. Returns the config path.
pub fn mock_config(
    dir: &Path,
    policy: &str,
    scripts: &[&str],
    mate: Option<&str>,
    extra: &str,
) -> PathBuf {
    let mock = mock_engine_path();
    let mut text = format!("Gougi.Type={policy}\n");
    for (k, script) in scripts.iter().enumerate() {
        let path = dir.join(format!("member{}.txt", k + 1));
        std::fs::write(&path, script).expect("script");
        text += &format!(
            "Engine{}.Path={} {}\n",
            k + 1,
            mock.display(),
            path.display()
        );
    }
    if let Some(script) = mate {
        let path = dir.join("mate.txt");
        std::fs::write(&path, script).expect("script");
        text += &format!("MateEngine.Path={} {}\n", mock.display(), path.display());
    }
    text += extra;
    let config = dir.join("SimpleGougi.config");
    std::fs::write(&config, text).expect("config");
    config
}

/// The `gougi` binary as a USI engine.
pub struct Gougi {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far.
    pub seen: Vec<String>,
    /// gougi's stderr when it is piped and left unread ([`Gougi::with_unread_stderr`]), as a
    /// GUI that never reads it leaves it.
    pub stderr: Option<ChildStderr>,
}

impl Gougi {
    pub fn start(args: &[&str]) -> Gougi {
        Self::start_in(args, None)
    }

    pub fn start_in(args: &[&str], dir: Option<&Path>) -> Gougi {
        Self::program(Path::new(env!("CARGO_BIN_EXE_gougi")), args, dir)
    }

    /// Any USI engine program (the harness is not specific to gougi).
    pub fn program(program: &Path, args: &[&str], dir: Option<&Path>) -> Gougi {
        Self::program_env(program, args, dir, &[])
    }

    /// [`Gougi::program`] with these environment variables set.
    pub fn program_env(
        program: &Path,
        args: &[&str],
        dir: Option<&Path>,
        envs: &[(&str, &str)],
    ) -> Gougi {
        Self::spawn(program, args, dir, envs, false)
    }

    /// gougi with these arguments and its stderr piped to the test, which does not read it
    /// (the pipe fills as under a GUI that never reads stderr); `stderr` holds the pipe.
    pub fn with_unread_stderr(args: &[&str], envs: &[(&str, &str)]) -> Gougi {
        Self::spawn(
            Path::new(env!("CARGO_BIN_EXE_gougi")),
            args,
            None,
            envs,
            true,
        )
    }

    fn spawn(
        program: &Path,
        args: &[&str],
        dir: Option<&Path>,
        envs: &[(&str, &str)],
        pipe_stderr: bool,
    ) -> Gougi {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if pipe_stderr {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        cmd.env_remove("GOUGI_CONFIG");
        cmd.envs(envs.iter().copied());
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        // A program the test has just copied may still be open for writing in a child that
        // another test thread forked meanwhile (Linux: "Text file busy"); that passes.
        let mut tries = 0;
        let mut child = loop {
            match cmd.spawn() {
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => break other.expect("start gougi"),
            }
        };
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let stderr = child.stderr.take();
        Gougi {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
            stderr,
        }
    }

    pub fn with_config(config: &Path) -> Gougi {
        Self::start(&["--config", config.to_str().expect("utf-8 path")])
    }

    /// gougi on `config` with these environment variables (`GOUGI_…` overrides).
    pub fn with_config_env(config: &Path, envs: &[(&str, &str)]) -> Gougi {
        let args = ["--config", config.to_str().expect("utf-8 path")];
        Self::program_env(Path::new(env!("CARGO_BIN_EXE_gougi")), &args, None, envs)
    }

    /// gougi's process id (for `/proc/<pid>`: its descriptors and memory).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to gougi");
        stdin.flush().expect("flush");
    }

    /// Raw bytes, as a GUI in another encoding would send them.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to gougi");
        stdin.flush().expect("flush");
    }

    /// Close stdin (end of input).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout`.
    pub fn next(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first that satisfies `done`; panics after `timeout`.
    pub fn until(&mut self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(line) => {
                    let stop = done(&line);
                    got.push(line);
                    if stop {
                        return got;
                    }
                }
                None => panic!("timed out after {timeout:?}; got {got:#?}"),
            }
        }
    }

    /// Reads (and drops) lines for `span`, panicking if one starts with `prefix`: nothing may
    /// answer before the GUI's next command (e.g. a solve that must still run at `stop`).
    pub fn silent_for(&mut self, span: Duration, prefix: &str) {
        let until = Instant::now() + span;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let early = self.next(left).filter(|l| l.starts_with(prefix));
            assert!(early.is_none(), "answered before the stop: {early:?}");
        }
    }

    /// Lines up to the one starting with `prefix` (inclusive).
    pub fn until_prefix(&mut self, prefix: &str) -> Vec<String> {
        let p = prefix.to_string();
        self.until(Duration::from_secs(20), move |l| l.starts_with(&p))
    }

    /// `position` and `go` as a GUI sends them; the lines up to the `bestmove`.
    pub fn play(&mut self, position: &str, go: &str) -> Vec<String> {
        self.send(position);
        self.send(go);
        self.until_prefix("bestmove")
    }

    /// `usi` … `usiok`, `isready` … `readyok`, `usinewgame`.
    pub fn handshake(&mut self) -> Vec<String> {
        self.send("usi");
        let mut lines = self.until_prefix("usiok");
        self.send("isready");
        lines.extend(self.until(Duration::from_secs(20), |l| l == "readyok"));
        self.send("usinewgame");
        lines
    }

    /// Wait for the process to exit; its status code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Gougi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines of a decision: from the first `[O]`/`[X]` line to `bestmove`, with the variable
/// `time <ms>` field masked.
pub fn decision(lines: &[String]) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("info string [O]") || l.starts_with("info string [X]"))
        .unwrap_or(lines.len().saturating_sub(2));
    lines[start..].iter().map(|l| mask_time(l)).collect()
}

pub fn mask_time(line: &str) -> String {
    let mut out = Vec::new();
    let mut it = line.split(' ').peekable();
    while let Some(tok) = it.next() {
        out.push(tok.to_string());
        if tok == "time" && it.peek().is_some_and(|t| t.parse::<u64>().is_ok()) {
            it.next();
            out.push("T".to_string());
        }
    }
    out.join(" ")
}

/// A fixed legal line of six plies, so mock games are legal without a rules engine.
const LINE: [&str; 6] = ["7g7f", "3c3d", "2g2f", "8c8d", "2f2e", "8d8e"];

/// `gougi tune`'s test engine (tests/tune.rs, tests/monitor.rs): the mock with the `skill:`
/// directive, an engine that resigns more the further its option `Skill` is from 37. Writes
/// the mock's script and moves file; returns the `--engine` spec.
pub fn skill_engine(dir: &Path) -> String {
    let mut moves = String::new();
    for i in 0..LINE.len() {
        let pos = if i == 0 {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", LINE[..i].join(" "))
        };
        moves.push_str(&format!("{pos}\t{}\n", LINE[i]));
    }
    let moves_path = dir.join("moves.tsv");
    std::fs::write(&moves_path, moves).unwrap();
    let script = format!(
        "id name SkillMock\noption name Skill type spin default 0 min 0 max 100\n\
         moves_file: {}\nskill: Skill 37 40\ngo: play\n",
        moves_path.display()
    );
    let script_path = dir.join("skill.script");
    std::fs::write(&script_path, script).unwrap();
    format!(
        "cmd=\"{} {}\" name=skill",
        mock_engine_path().display(),
        script_path.display()
    )
}
