//! The Windows lane: the real `gougi.exe`, cross-built with mingw, run under wine as Shogidokoro
//! would run it on Windows (issue 50).
//!
//! Once per test process: `cargo build --target x86_64-pc-windows-gnu` of gougi.exe and the mock
//! engine (dev profile, own target dir `target/windows-lane` so it never waits on the outer
//! build's lock), the `ProcessPrng` shim DLL built from `tests/windows/processprng_shim.c` with
//! `x86_64-w64-mingw32-gcc`, all three copied into a scratch folder, and a fresh WINEPREFIX (its
//! first start is the slow part). The shim is a test fixture, never shipped: current Rust's
//! standard library imports `ProcessPrng` from `bcryptprimitives.dll`, which Windows 10+ has and
//! Debian 12's wine 8 lacks, so without it wine refuses the exe before `main`.
//!
//! Without wine, mingw or the Rust target the tests skip with a message, unless
//! `GOUGI_REQUIRE_WINE` is set (as `.ci/run` does), where that is a failure
//! (`tests/common/tools.rs`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::tools::{have, runs, Tool};
use common::{scratch_dir, scratch_path, test_root, Gougi};
use gougi::shogi::Position;

const TARGET: &str = "x86_64-pc-windows-gnu";
const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";
/// Patience for anything that starts wine processes on 2 busy cores.
const WINE_PATIENCE: Duration = Duration::from_secs(90);
/// How long after a Ctrl-C the test waits for gougi.exe before pressing it again.
const CTRL_C_AGAIN_AFTER: Duration = Duration::from_secs(20);

/// The built exe folder and the wine prefix, shared by the tests of this process.
struct Lane {
    /// gougi.exe, mock_engine.exe and the shim bcryptprimitives.dll.
    bin: PathBuf,
    prefix: PathBuf,
    /// The cross-build's target dir (`target/windows-lane`).
    target_dir: PathBuf,
}

fn lane() -> Option<&'static Lane> {
    static LANE: OnceLock<Option<Lane>> = OnceLock::new();
    LANE.get_or_init(set_up).as_ref()
}

/// Whether the Rust standard library for `TARGET` is installed (`rustup target add`).
fn target_installed() -> bool {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc --print sysroot");
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Path::new(&sysroot)
        .join("lib/rustlib")
        .join(TARGET)
        .is_dir()
}

fn set_up() -> Option<Lane> {
    let missing: Vec<String> = [
        // The lane finds wine's processes in /proc.
        (!cfg!(target_os = "linux")).then_some("Linux (the lane reads /proc)"),
        (!runs("wine")).then_some("wine (apt-get install wine)"),
        (!runs(MINGW_GCC))
            .then_some("x86_64-w64-mingw32-gcc (apt-get install gcc-mingw-w64-x86-64)"),
        (!target_installed()).then_some(
            "the x86_64-pc-windows-gnu target (rustup target add x86_64-pc-windows-gnu)",
        ),
    ]
    .into_iter()
    .flatten()
    .map(str::to_owned)
    .collect();
    if !have(Tool::Wine, &missing) {
        return None;
    }
    let started = Instant::now();
    // target/<profile>/deps/windows-… → target/windows-lane
    let exe = std::env::current_exe().expect("test binary path");
    let target_dir = exe
        .ancestors()
        .nth(3)
        .expect("target/<profile>/deps layout")
        .join("windows-lane");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--target", TARGET])
        .args(["--bin", "gougi", "--example", "mock_engine"])
        .env("CARGO_TARGET_DIR", &target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build --target x86_64-pc-windows-gnu");
    assert!(status.success(), "cross-build for {TARGET} failed");
    let built = target_dir.join(TARGET).join("debug");
    let bin = scratch_dir("windows-bin");
    std::fs::copy(built.join("gougi.exe"), bin.join("gougi.exe")).expect("copy gougi.exe");
    std::fs::copy(
        built.join("examples").join("mock_engine.exe"),
        bin.join("mock_engine.exe"),
    )
    .expect("copy mock_engine.exe");
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/windows/processprng_shim.c");
    let status = Command::new(MINGW_GCC)
        .args(["-shared", "-O2", "-o"])
        .arg(bin.join("bcryptprimitives.dll"))
        .arg(&shim)
        .arg("-ladvapi32")
        .status()
        .expect("x86_64-w64-mingw32-gcc");
    assert!(status.success(), "building the ProcessPrng shim failed");
    let built_in = started.elapsed();
    let prefix = test_root().join("wineprefix");
    let status = Command::new("wine")
        .args(["wineboot", "-i"])
        .env("WINEPREFIX", &prefix)
        .env("WINEDEBUG", "-all")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("wine wineboot");
    assert!(status.success(), "wineboot failed");
    eprintln!(
        "Windows lane: built in {built_in:.1?}, wine prefix in {:.1?}",
        started.elapsed() - built_in
    );
    Some(Lane {
        bin,
        prefix,
        target_dir,
    })
}

/// A Linux path as a Windows program sees it (wine maps `/` to drive Z:).
fn win(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

impl Lane {
    fn exe(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    fn env(&self) -> [(&str, &str); 2] {
        [
            ("WINEPREFIX", self.prefix.to_str().expect("utf-8 prefix")),
            ("WINEDEBUG", "-all"),
        ]
    }

    /// `wine <exe> <args>` as a USI engine, started in `cwd`.
    fn start(&self, exe: &Path, args: &[&str], cwd: &Path) -> Gougi {
        let exe = win(exe);
        let mut all = vec![exe.as_str()];
        all.extend_from_slice(args);
        Gougi::program_env(Path::new("wine"), &all, Some(cwd), &self.env())
    }

    /// [`Lane::start`] with these environment variables too.
    fn start_env(&self, exe: &Path, args: &[&str], cwd: &Path, envs: &[(&str, &str)]) -> Gougi {
        let exe = win(exe);
        let mut all = vec![exe.as_str()];
        all.extend_from_slice(args);
        let mut env = self.env().to_vec();
        env.extend_from_slice(envs);
        Gougi::program_env(Path::new("wine"), &all, Some(cwd), &env)
    }

    /// gougi.exe on a config (a Windows path), started in `cwd`.
    fn gougi(&self, config: Option<&str>, cwd: &Path) -> Gougi {
        match config {
            Some(config) => self.start(&self.exe("gougi.exe"), &["--config", config], cwd),
            None => self.start(&self.exe("gougi.exe"), &[], cwd),
        }
    }

    /// `wine <program> <args>` to its end (taskkill).
    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("wine")
            .args(args)
            .envs(self.env())
            .stdin(Stdio::null())
            .output()
            .expect("wine")
    }
}

/// `usi` … `usiok`, `isready` … `readyok`, `usinewgame`, with wine's patience.
fn handshake(g: &mut Gougi) -> Vec<String> {
    g.send("usi");
    let mut lines = g.until(WINE_PATIENCE, |l| l == "usiok");
    g.send("isready");
    lines.extend(g.until(WINE_PATIENCE, |l| l == "readyok"));
    g.send("usinewgame");
    lines
}

/// [`handshake`], but a timeout names the rep and quotes gougi's log: under load a rep once
/// got no line at all within the patience (2026-12-08), and the log is what tells a slow
/// start from a hang.
fn handshake_or_show_log(g: &mut Gougi, rep: usize, log: &Path) {
    for (command, answer) in [("usi", "usiok"), ("isready", "readyok")] {
        g.send(command);
        let deadline = Instant::now() + WINE_PATIENCE;
        loop {
            match g.next(deadline.saturating_duration_since(Instant::now())) {
                Some(line) if line == answer => break,
                Some(_) => {}
                None => panic!(
                    "rep {rep}: no `{answer}` within {WINE_PATIENCE:?}; gougi's log:\n{}",
                    std::fs::read_to_string(log).unwrap_or_else(|e| format!("({e})"))
                ),
            }
        }
    }
    g.send("usinewgame");
}

/// Plays `go byoyomi 1000` from the start position; the bestmove must be legal.
fn play_one_move(g: &mut Gougi) -> String {
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until(WINE_PATIENCE, |l| l.starts_with("bestmove"));
    let best = lines
        .last()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_owned();
    let pos = Position::startpos();
    assert!(
        pos.parse_usi_move(&best).is_ok(),
        "illegal bestmove {best:?}: {lines:#?}"
    );
    best
}

fn quit(g: &mut Gougi) {
    g.send("quit");
    assert_eq!(g.wait_exit(WINE_PATIENCE), Some(0), "gougi.exe exit status");
}

/// Live processes whose command line mentions `marker` (wine shows a Windows program's
/// command line, `Z:\…\mock_engine.exe …`, as the Linux process's). Markers are Windows paths
/// inside this test process's scratch folder: another run of the lane on the same machine (a
/// second worktree, CI beside a developer) uses the same file names, and its processes must
/// neither count here nor be killed by this run's clean-up.
fn processes_mentioning(marker: &str) -> Vec<String> {
    let marker = marker.to_lowercase();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        if line.to_lowercase().contains(&marker) {
            found.push(format!("{}: {}", name.to_string_lossy(), line.trim()));
        }
    }
    found
}

#[test]
fn a_whole_session_with_the_builtin_members() {
    let Some(lane) = lane() else { return };
    let dir = scratch_dir("builtin");
    let mut g = lane.gougi(None, &dir);
    handshake(&mut g);
    play_one_move(&mut g);
    quit(&mut g);
}

#[test]
fn a_whole_session_with_an_external_member_exe() {
    let Some(lane) = lane() else { return };
    let dir = scratch_dir("external");
    std::fs::write(
        dir.join("member1.txt"),
        "id name MockExe\ngo: info depth 3 score cp 40 pv 2g2f ; bestmove 2g2f\n",
    )
    .unwrap();
    // CRLF, as Notepad writes it.
    let config = format!(
        "Gougi.Type=optimistic\r\nEngine1.Path={} {}\r\n",
        win(&lane.exe("mock_engine.exe")),
        win(&dir.join("member1.txt"))
    );
    std::fs::write(dir.join("SimpleGougi.config"), config).unwrap();
    let mut g = lane.gougi(Some(&win(&dir.join("SimpleGougi.config"))), &dir);
    handshake(&mut g);
    assert_eq!(play_one_move(&mut g), "2g2f");
    quit(&mut g);
}

/// How a hard-killed gougi.exe's member is started.
#[derive(Clone, Copy, Debug)]
enum Member {
    /// mock_engine.exe itself, lingering: it ignores `quit` and stdin EOF.
    IgnoringEof,
    /// A `.bat` whose child (cmd.exe's) is the lingering mock_engine.exe.
    Bat,
}

/// How gougi.exe is ended.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// `taskkill /f`: TerminateProcess, no code of gougi's runs.
    Terminate,
    /// Ctrl-C in gougi's console: wine turns a SIGINT of the process into a CTRL_C_EVENT for
    /// its console control handlers (then the default one ends the process).
    CtrlC,
}

/// `reps` times: gougi.exe with one lingering member, mid-search, ended by `ending`; 2 s later
/// no member process may be left.
fn hard_kills(member: Member, reps: usize) {
    ends(member, Ending::Terminate, 0, reps);
}

/// `hogs` threads that spin until dropped: a loaded machine, where the console handler's thread,
/// gougi's own and wine's are scheduled late and in any order (issue 65: a member restarted
/// during shutdown outlived gougi.exe in 2 of 15 Ctrl-Cs under load).
struct CpuHogs {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl CpuHogs {
    fn start(hogs: usize) -> CpuHogs {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let threads = (0..hogs)
            .map(|_| {
                let stop = std::sync::Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005) + 1);
                    }
                })
            })
            .collect();
        CpuHogs { stop, threads }
    }
}

impl Drop for CpuHogs {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// `reps` times: gougi.exe with one lingering member, mid-search, ended by `ending` while `hogs`
/// threads keep the cores busy; no member process may be left (2 s after a hard kill, 10 s
/// after Ctrl-C). Every rep runs even after one leaks, so a failure says how many did.
fn ends(member: Member, ending: Ending, hogs: usize, reps: usize) {
    let Some(lane) = lane() else { return };
    let tag = match (member, ending) {
        (Member::IgnoringEof, Ending::Terminate) => "kill-eof",
        (Member::Bat, Ending::Terminate) => "kill-bat",
        (Member::IgnoringEof, Ending::CtrlC) => "ctrlc-eof",
        (Member::Bat, Ending::CtrlC) => "ctrlc-bat",
    };
    let tag = if hogs > 0 {
        format!("{tag}-load")
    } else {
        tag.to_owned()
    };
    let dir = scratch_dir(&tag);
    // A copy under its own name, so `taskkill /im` reaches this test's gougi.exe alone (wine 8
    // has no tasklist to find a Windows pid); the shim DLL is beside it.
    let exe_name = format!("gougi-{tag}.exe");
    let exe = lane.exe(&exe_name);
    std::fs::copy(lane.exe("gougi.exe"), &exe).unwrap();
    let script = dir.join(format!("linger-{tag}.txt"));
    std::fs::write(&script, "go: info depth 1 score cp 0 pv 7g7f ; linger\n").unwrap();
    let mock = format!("{} {}", win(&lane.exe("mock_engine.exe")), win(&script));
    let path = match member {
        Member::IgnoringEof => mock,
        Member::Bat => {
            // Named like the script, so the marker finds cmd.exe too.
            let bat = dir.join(format!("linger-{tag}.bat"));
            std::fs::write(&bat, format!("@echo off\r\n{mock}\r\n")).unwrap();
            win(&bat)
        }
    };
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        format!("Gougi.Type=optimistic\r\nEngine1.Path={path}\r\n"),
    )
    .unwrap();
    let marker = win(&dir.join(format!("linger-{tag}")));
    let mut timings = Vec::new();
    let mut leaks = Vec::new();
    let _hogs = CpuHogs::start(hogs);
    for rep in 1..=reps {
        let started = Instant::now();
        // Each rep's log (info: member starts and restarts), quoted when members are left.
        let log = dir.join(format!("gougi-{rep}.log"));
        let _ = std::fs::remove_file(&log);
        let log_win = win(&log);
        let env = [("GOUGI_LOG", "info"), ("GOUGI_LOG_FILE", log_win.as_str())];
        let mut g = lane.start_env(&exe, &["--config", &win(&config)], &dir, &env);
        handshake_or_show_log(&mut g, rep, &log);
        g.send("position startpos");
        g.send("go infinite");
        g.until(WINE_PATIENCE, |l| l.starts_with("info depth 1"));
        assert!(
            !processes_mentioning(&marker).is_empty(),
            "rep {rep}: the member is not running"
        );
        match ending {
            Ending::Terminate => {
                // Under load wine sometimes fails to start taskkill.exe itself ("Application
                // could not be started"): the test's tool, not gougi, so that is tried again.
                let mut out = lane.run(&["taskkill", "/f", "/im", &exe_name]);
                for _ in 0..3 {
                    let said = String::from_utf8_lossy(&out.stdout).to_string()
                        + &String::from_utf8_lossy(&out.stderr);
                    if out.status.success() || !said.contains("could not be started") {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                    out = lane.run(&["taskkill", "/f", "/im", &exe_name]);
                }
                assert!(
                    out.status.success(),
                    "rep {rep}: taskkill: {}",
                    String::from_utf8_lossy(&out.stdout)
                );
            }
            Ending::CtrlC => {
                let pid = gougi_pid(&exe);
                let interrupt = || Command::new("kill").args(["-INT", &pid]).status().unwrap();
                assert!(interrupt().success(), "rep {rep}: kill -INT {pid}");
                // Wine turns the signal into a console event on a thread of its own, and once
                // in some dozens of runs under load nothing came of it (CI: gougi.exe still ran
                // 90 s later). A user presses Ctrl-C again; so does the test, once, and says so.
                if g.wait_exit(CTRL_C_AGAIN_AFTER).is_none() {
                    eprintln!("rep {rep}: gougi.exe still runs {CTRL_C_AGAIN_AFTER:?} after Ctrl-C; again");
                    interrupt();
                }
            }
        }
        assert!(
            g.wait_exit(WINE_PATIENCE).is_some(),
            "rep {rep}: gougi.exe survived {ending:?}"
        );
        // The figure is for a hard kill: no member 2 s after gougi.exe ended. After
        // Ctrl-C the members end by the handler's TerminateJobObject or by kill-on-close as
        // wineserver reaps gougi.exe; once in 19 runs a member was still there at 2 s.
        let left = match ending {
            Ending::Terminate => {
                std::thread::sleep(Duration::from_secs(2));
                processes_mentioning(&marker)
            }
            Ending::CtrlC => members_gone(&marker, Duration::from_secs(10)),
        };
        if !left.is_empty() {
            // Cleaned up at once, so the next rep starts from nothing.
            for p in &left {
                if let Some(pid) = p.split(':').next() {
                    let _ = Command::new("kill").args(["-9", pid]).status();
                }
            }
            let text = transcript(&log);
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(6)..];
            eprintln!("rep {rep}/{reps}: members left: {left:#?}; the log ends {tail:#?}");
            leaks.push((rep, left));
        }
        timings.push(started.elapsed());
    }
    assert!(
        leaks.is_empty(),
        "{member:?}, {ending:?}, {hogs} CPU hogs: members left after gougi.exe ended (2 s after a kill, 10 s after Ctrl-C) in {} of {reps} reps: {leaks:#?}",
        leaks.len()
    );
    eprintln!(
        "{member:?}, {ending:?}, {hogs} CPU hogs: {reps} times, no member left; each took {timings:.1?}"
    );
}

/// How many hard kills per member kind: `GOUGI_WINDOWS_HARD_KILLS`, default 20 (the issue's
/// acceptance figure).
fn hard_kill_reps() -> usize {
    std::env::var("GOUGI_WINDOWS_HARD_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

#[test]
fn hard_kill_of_gougi_exe_ends_a_member_that_ignores_eof() {
    hard_kills(Member::IgnoringEof, hard_kill_reps());
}

#[test]
fn hard_kill_of_gougi_exe_ends_a_bat_members_child() {
    hard_kills(Member::Bat, hard_kill_reps());
}

/// Copies `name` from the lane's folder into `dir` with the shim DLL beside it (every Rust exe
/// needs it under wine 8).
fn install(lane: &Lane, name: &str, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for file in [name, "bcryptprimitives.dll"] {
        std::fs::copy(lane.exe(file), dir.join(file)).unwrap();
    }
    dir.join(name)
}

fn transcript(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The install a Windows user makes: gougi.exe and SimpleGougi.config in a folder with a
/// Japanese name and a space, members by a relative path from the config's folder (quoted, it
/// has a space) and by an absolute backslashed path to a `.bat`, and the GUI starting gougi.exe
/// with no arguments from its own working directory.
#[test]
fn config_paths_as_windows_users_write_them() {
    windows_install("paths", |text| text.as_bytes().to_vec());
}

/// The same install with the config saved in CP932 (Shift_JIS), as Notepad on a Japanese
/// Windows and SimpleGougiShogi's own configs do: the Japanese folder name in Engine2's path
/// must survive the decoding.
#[test]
fn a_cp932_config_with_a_japanese_path() {
    windows_install("paths-cp932", |text| {
        let (bytes, _, lossy) = encoding_rs::SHIFT_JIS.encode(text);
        assert!(!lossy, "{text:?} is not CP932");
        bytes.into_owned()
    });
}

fn windows_install(tag: &str, encode: fn(&str) -> Vec<u8>) {
    let Some(lane) = lane() else { return };
    let top = scratch_dir(tag);
    let home = top.join("将棋 エンジン");
    let gougi_exe = install(lane, "gougi.exe", &home);
    let engine_dir = home.join("Engines").join("Mock A");
    install(lane, "mock_engine.exe", &engine_dir);
    std::fs::write(
        engine_dir.join("a.txt"),
        "transcript: a.log\ngo: info depth 3 score cp 100 pv 2g2f ; bestmove 2g2f\n",
    )
    .unwrap();
    let bats = home.join("bats");
    std::fs::create_dir_all(&bats).unwrap();
    std::fs::write(
        bats.join("b.txt"),
        "transcript: b.log\ngo: info depth 3 score cp 50 pv 7g7f ; bestmove 7g7f\n",
    )
    .unwrap();
    // The .bat finds its engine from its own folder (%~dp0), as engine wrappers do.
    std::fs::write(
        bats.join("member two.bat"),
        "@echo off\r\n\"%~dp0..\\Engines\\Mock A\\mock_engine.exe\" \"%~dp0b.txt\"\r\n",
    )
    .unwrap();
    std::fs::write(
        home.join("SimpleGougi.config"),
        encode(&format!(
            "Gougi.Type=optimistic\r\n\
             Engine1.Path=\"Engines\\Mock A\\mock_engine.exe\" a.txt\r\n\
             Engine2.Path={}\r\n",
            win(&bats.join("member two.bat"))
        )),
    )
    .unwrap();
    let elsewhere = top.join("gui");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut g = lane.start(&gougi_exe, &[], &elsewhere);
    handshake(&mut g);
    // Optimistic: the higher score, Engine1's.
    assert_eq!(play_one_move(&mut g), "2g2f");
    quit(&mut g);
    for log in [engine_dir.join("a.log"), bats.join("b.log")] {
        let text = transcript(&log);
        assert!(text.contains("go "), "{}: {text:?}", log.display());
    }
}

/// gougi.exe with two mock members (`scripts`), in a fresh folder; the marker is the scripts'
/// path up to their number, so `processes_mentioning(marker)` finds the members.
fn two_members(lane: &Lane, tag: &str, scripts: [&str; 2]) -> (Gougi, String) {
    let dir = scratch_dir(tag);
    let mut config = String::from("Gougi.Type=optimistic\r\n");
    for (k, script) in scripts.iter().enumerate() {
        let path = dir.join(format!("{tag}-member{}.txt", k + 1));
        std::fs::write(&path, script).unwrap();
        config += &format!(
            "Engine{}.Path={} {}\r\n",
            k + 1,
            win(&lane.exe("mock_engine.exe")),
            win(&path)
        );
    }
    std::fs::write(dir.join("SimpleGougi.config"), config).unwrap();
    let g = lane.gougi(Some(&win(&dir.join("SimpleGougi.config"))), &dir);
    (g, win(&dir.join(format!("{tag}-member"))))
}

/// The Linux pid of the one gougi.exe at `exe` (this test process's copy). A process it is
/// forking (a member, in the moment before the exec) shows the same command line; that one's
/// parent is gougi.exe.
fn gougi_pid(exe: &Path) -> String {
    let found = processes_mentioning(&win(exe));
    let pids: Vec<&str> = found.iter().filter_map(|p| p.split(':').next()).collect();
    let parent = |pid: &str| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // `pid (comm) state ppid …`; comm may hold spaces, so split after the last ')'.
        let rest = stat.rfind(')').map_or("", |k| &stat[k + 1..]);
        rest.split_whitespace().nth(1).unwrap_or("").to_owned()
    };
    let roots: Vec<&str> = pids
        .iter()
        .copied()
        .filter(|&pid| !pids.contains(&parent(pid).as_str()))
        .collect();
    assert_eq!(roots.len(), 1, "one {}: {found:#?}", exe.display());
    roots[0].to_owned()
}

/// Waits up to `patience` for no process to mention `marker`.
fn members_gone(marker: &str, patience: Duration) -> Vec<String> {
    let deadline = Instant::now() + patience;
    loop {
        let left = processes_mentioning(marker);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

const STEADY: &str = "go: info depth 3 score cp 20 pv 2g2f ; bestmove 2g2f\n";

#[test]
fn a_member_that_crashes_mid_search() {
    let Some(lane) = lane() else { return };
    let crashing = "go: info depth 1 score cp 900 pv 7g7f ; exit 3\n";
    let (mut g, marker) = two_members(lane, "crash", [crashing, STEADY]);
    handshake(&mut g);
    play_one_move(&mut g);
    // gougi.exe is still there for the next move (the crashed member restarted or left out).
    play_one_move(&mut g);
    quit(&mut g);
    assert_eq!(
        members_gone(&marker, Duration::from_secs(5)),
        Vec::<String>::new()
    );
}

#[test]
fn a_member_that_hangs_then_quit() {
    let Some(lane) = lane() else { return };
    let (mut g, marker) = two_members(lane, "hang", ["go: hang\n", STEADY]);
    handshake(&mut g);
    assert_eq!(play_one_move(&mut g), "2g2f");
    quit(&mut g);
    assert_eq!(
        members_gone(&marker, Duration::from_secs(5)),
        Vec::<String>::new()
    );
}

/// The GUI closes gougi's stdin without `quit` (it crashed, or was closed): gougi.exe ends, and
/// so do its members — even one that ignores EOF.
#[test]
fn the_gui_closing_stdin_ends_gougi_and_its_members() {
    let Some(lane) = lane() else { return };
    let log = scratch_path("eof-transcript.log");
    let lingering = format!(
        "transcript: {}\ngo: info depth 1 score cp 0 pv 7g7f ; linger\n",
        win(&log)
    );
    let (mut g, marker) = two_members(lane, "eof", [&lingering, STEADY]);
    handshake(&mut g);
    g.send("position startpos");
    g.send("go infinite");
    // The member has the `go` (and lingers) once its transcript says so.
    let deadline = Instant::now() + WINE_PATIENCE;
    while !transcript(&log).contains("go infinite") {
        assert!(Instant::now() < deadline, "Engine1 never got the go");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_mentioning(&marker).len(), 2, "both members run");
    g.close();
    assert!(g.wait_exit(WINE_PATIENCE).is_some(), "gougi.exe still runs");
    assert_eq!(
        members_gone(&marker, Duration::from_secs(5)),
        Vec::<String>::new()
    );
}

/// Ctrl-C in gougi.exe's console (issue 50 item 2: console control events end the members).
/// Failed before the Job Object (the member outlived gougi.exe). The members end by the console
/// handler's TerminateJobObject or, when the default handler has ended gougi.exe, by
/// kill-on-close: this test cannot tell the two apart.
#[test]
fn ctrl_c_of_gougi_exe_ends_its_members() {
    ends(Member::IgnoringEof, Ending::CtrlC, 0, 3);
    ends(Member::Bat, Ending::CtrlC, 0, 3);
}

/// How many Ctrl-Cs per test under load: `GOUGI_WINDOWS_CTRL_C_UNDER_LOAD`, default 5 (about
/// 0.5 s each; the acceptance figure is 20 or more, run by hand).
fn ctrl_c_under_load_reps() -> usize {
    std::env::var("GOUGI_WINDOWS_CTRL_C_UNDER_LOAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// Issue 65 item 4, "shutdown is final": Ctrl-C with a `.bat` member mid-search while two
/// threads keep the cores busy. The console handler kills the member, and gougi's supervisor
/// used to start it again while gougi.exe was ending; the replacement, created before gougi.exe
/// died but not yet in the Job Object, outlived it (the issue: 2 of 15 runs under load; here 1
/// of 80 before, its log ending in "restarting member"; 0 of 185 after). Now nothing starts once
/// the handler has run, and a member is in the job before it runs at all.
#[test]
fn ctrl_c_under_cpu_load_leaves_no_bat_member() {
    ends(Member::Bat, Ending::CtrlC, 2, ctrl_c_under_load_reps());
}

/// Issue 65 item 4: Ctrl-C while gougi.exe is still starting its members (four `.bat`s whose
/// engines linger from their start and read nothing, as one loading a large file might), under
/// two CPU hogs. A member being created as the console handler ran missed the job's termination
/// and, put in the job only after it had started, outlived gougi.exe: 14 of the first 21 reps on
/// the code before (and the 22nd hung); 0 of 140 after.
#[test]
fn ctrl_c_while_members_start_leaves_none() {
    let Some(lane) = lane() else { return };
    let tag = "ctrlc-start";
    let dir = scratch_dir(tag);
    let exe = lane.exe(&format!("gougi-{tag}.exe"));
    std::fs::copy(lane.exe("gougi.exe"), &exe).unwrap();
    let script = dir.join(format!("linger-{tag}.txt"));
    std::fs::write(&script, "start: linger\n").unwrap();
    let mock = format!("{} {}", win(&lane.exe("mock_engine.exe")), win(&script));
    let mut config = String::from("Gougi.Type=optimistic\r\n");
    for k in 1..=4 {
        let bat = dir.join(format!("linger-{tag}-{k}.bat"));
        std::fs::write(&bat, format!("@echo off\r\n{mock}\r\n")).unwrap();
        config += &format!("Engine{k}.Path={}\r\n", win(&bat));
    }
    std::fs::write(dir.join("SimpleGougi.config"), config).unwrap();
    let config = win(&dir.join("SimpleGougi.config"));
    let marker = win(&dir.join(format!("linger-{tag}")));
    let reps = ctrl_c_under_load_reps();
    let hogs = 2;
    let _hogs = CpuHogs::start(hogs);
    let mut leaks = Vec::new();
    for rep in 1..=reps {
        let log = dir.join(format!("gougi-{rep}.log"));
        let _ = std::fs::remove_file(&log);
        let log_win = win(&log);
        let env = [("GOUGI_LOG", "info"), ("GOUGI_LOG_FILE", log_win.as_str())];
        let mut g = lane.start_env(&exe, &["--config", &config], &dir, &env);
        // Ctrl-C as soon as the first member is there: the others are still being started.
        let deadline = Instant::now() + WINE_PATIENCE;
        while processes_mentioning(&marker).is_empty() {
            assert!(Instant::now() < deadline, "rep {rep}: no member started");
            std::thread::sleep(Duration::from_millis(1));
        }
        let pid = gougi_pid(&exe);
        let interrupt = || Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(interrupt().success(), "rep {rep}: kill -INT {pid}");
        if g.wait_exit(CTRL_C_AGAIN_AFTER).is_none() {
            eprintln!("rep {rep}: gougi.exe still runs {CTRL_C_AGAIN_AFTER:?} after Ctrl-C; again");
            interrupt();
        }
        assert!(
            g.wait_exit(WINE_PATIENCE).is_some(),
            "rep {rep}: gougi.exe survived Ctrl-C"
        );
        let left = members_gone(&marker, Duration::from_secs(10));
        if !left.is_empty() {
            for p in &left {
                if let Some(pid) = p.split(':').next() {
                    let _ = Command::new("kill").args(["-9", pid]).status();
                }
            }
            let text = transcript(&log);
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(6)..];
            eprintln!("rep {rep}/{reps}: members left: {left:#?}; the log ends {tail:#?}");
            leaks.push((rep, left));
        }
    }
    assert!(
        leaks.is_empty(),
        "Ctrl-C as members start, {hogs} CPU hogs: members left in {} of {reps} reps: {leaks:#?}",
        leaks.len()
    );
    eprintln!("Ctrl-C as members start, {hogs} CPU hogs: {reps} times, no member left");
}

/// Issue 67 item 5: Ctrl-C ends `gougi match` on Windows as on Unix (`tests/arena.rs`): the
/// games in flight are abandoned and their engines end, the summary so far is printed and
/// written, and the exit status is 130. Before, the console's default handler ended gougi.exe
/// at once: no summary, and the members ended only by the Job Object's kill-on-close.
#[test]
fn ctrl_c_ends_a_match_with_its_summary() {
    let Some(lane) = lane() else { return };
    let started = Instant::now();
    let tag = "match-ctrlc";
    let dir = scratch_dir(tag);
    let exe = lane.exe(&format!("gougi-{tag}.exe"));
    std::fs::copy(lane.exe("gougi.exe"), &exe).unwrap();
    // Games of about 300 ms: A thinks, then resigns. The scripts' names are the marker.
    let engine = |name: &str, go: &str| {
        let script = dir.join(format!("engine-{tag}-{name}.txt"));
        std::fs::write(
            &script,
            format!(
                "id name {name}
go: {go}
"
            ),
        )
        .unwrap();
        let mock = win(&lane.exe("mock_engine.exe"));
        format!("cmd=\"{mock} {}\" name={name}", win(&script))
    };
    let (a, b) = (
        engine("A", "busy 300 ; bestmove resign"),
        engine("B", "busy 300 ; bestmove 7g7f"),
    );
    let marker = win(&dir.join(format!("engine-{tag}")));
    let out = dir.join("out");
    let args = ["match", "--engine", &a, "--engine", &b, "--games", "40"];
    let more = [
        "--concurrency",
        "2",
        "--byoyomi",
        "2000",
        "--quiet",
        "--out",
    ];
    let all: Vec<&str> = args.iter().chain(&more).copied().collect();
    let out_win = win(&out);
    let mut g = lane.start(&exe, &[all.as_slice(), &[out_win.as_str()]].concat(), &dir);
    let records = || -> usize {
        std::fs::read_dir(out.join("games")).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "csa"))
                .count()
        })
    };
    let deadline = Instant::now() + WINE_PATIENCE;
    while records() < 1 {
        assert!(Instant::now() < deadline, "no game finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !processes_mentioning(&marker).is_empty(),
        "the engines are not running"
    );
    let pressed = Instant::now();
    let pid = gougi_pid(&exe);
    let interrupt = || Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(interrupt().success(), "kill -INT {pid}");
    // As in `ends`: a second press only if wine lost the first (a second one kills at once).
    let mut status = g.wait_exit(CTRL_C_AGAIN_AFTER);
    if status.is_none() {
        eprintln!("gougi.exe match still runs {CTRL_C_AGAIN_AFTER:?} after Ctrl-C; again");
        interrupt();
        status = g.wait_exit(WINE_PATIENCE);
    }
    let ended_in = pressed.elapsed();
    let mut stdout = Vec::new();
    while let Some(line) = g.next(Duration::from_secs(2)) {
        stdout.push(line);
    }
    let stdout = stdout.join("\n");
    assert_eq!(status, Some(130), "{stdout}");
    assert!(
        stdout.contains("interrupted (Ctrl-C): the summary so far;"),
        "{stdout}"
    );
    let done = records();
    assert!((1..40).contains(&done), "{done} games");
    assert!(
        stdout.contains(&format!("A vs B: +0 =0 -{done} ({done} games)")),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    let json: serde_json::Value = serde_json::from_str(&summary).expect("JSON");
    assert_eq!(json["interrupted"], true, "{summary}");
    assert_eq!(
        json["games"].as_array().map(Vec::len),
        Some(done),
        "{summary}"
    );
    assert_eq!(
        members_gone(&marker, Duration::from_secs(10)),
        Vec::<String>::new()
    );
    eprintln!(
        "gougi.exe match: Ctrl-C after {done} game(s); summary and exit 130 {ended_in:.1?} later; \
         the test took {:.1?}",
        started.elapsed()
    );
}

/// gougi.exe on one mock member (`script`), spoken to in raw bytes: what the test writes and
/// reads is not decoded or encoded on the way (CP932 in, Shift_JIS out).
struct RawSession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl RawSession {
    fn start(lane: &Lane, tag: &str, script: &str) -> RawSession {
        use std::io::Read;
        let dir = scratch_dir(tag);
        std::fs::write(dir.join("member1.txt"), script).unwrap();
        std::fs::write(
            dir.join("SimpleGougi.config"),
            format!(
                "Gougi.Type=optimistic\r\nEngine1.Path={} {}\r\n",
                win(&lane.exe("mock_engine.exe")),
                win(&dir.join("member1.txt"))
            ),
        )
        .unwrap();
        let mut child = Command::new("wine")
            .arg(win(&lane.exe("gougi.exe")))
            .args(["--config", &win(&dir.join("SimpleGougi.config"))])
            .envs(lane.env())
            .env_remove("GOUGI_CONFIG")
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("wine gougi.exe");
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut stdout = child.stdout.take().unwrap();
        let sink = std::sync::Arc::clone(&out);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take().unwrap();
        RawSession { child, stdin, out }
    }

    fn write(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits (wine's patience) until gougi.exe's output holds `needle`.
    fn wait_for(&self, needle: &[u8]) {
        let deadline = Instant::now() + WINE_PATIENCE;
        while !self
            .out
            .lock()
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle)
        {
            assert!(
                Instant::now() < deadline,
                "no {:?}",
                String::from_utf8_lossy(needle)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `quit`; gougi.exe must exit 0. Returns every byte it wrote.
    fn quit(mut self) -> Vec<u8> {
        self.write(b"quit\r\n");
        assert_eq!(self.child.wait().unwrap().code(), Some(0));
        let out = self.out.lock().unwrap().clone();
        out
    }
}

/// An old Windows GUI: commands end in CRLF and gougi.exe's Japanese text must come out in
/// Shift_JIS (`G_OutputEncoding`), bytes read raw from the exe's stdout.
#[test]
fn crlf_input_and_shift_jis_output() {
    let Some(lane) = lane() else { return };
    let mut g = RawSession::start(
        lane,
        "sjis",
        "id name 居飛車\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n",
    );
    g.write(
        b"usi\r\nsetoption name G_OutputEncoding value Shift_JIS\r\nisready\r\n\
          usinewgame\r\nposition startpos\r\ngo btime 0 wtime 0 byoyomi 1000\r\n",
    );
    g.wait_for(b"bestmove ");
    let raw = g.quit();
    assert!(
        std::str::from_utf8(&raw).is_err(),
        "Japanese text is not UTF-8 any more"
    );
    let (text, _, errors) = encoding_rs::SHIFT_JIS.decode(&raw);
    assert!(!errors, "{text}");
    assert!(
        text.contains("info string [O] bestmove 7g7f [７六歩(77)] [評価値 5] [居飛車]"),
        "{text}"
    );
}

/// A Japanese Windows GUI sends a `setoption` value in CP932 (a file name in a Japanese
/// folder, as Shogidokoro does): gougi.exe passes the member the same CP932 bytes, not UTF-8 and
/// not replacement characters, so the member opens the file the user chose.
#[test]
fn a_cp932_setoption_value_reaches_the_member_as_sent() {
    let Some(lane) = lane() else { return };
    let log = scratch_path("setoption-cp932-member1.log");
    let mut g = RawSession::start(
        lane,
        "setoption-cp932",
        &format!(
            "transcript: {}\noption name BookFile type string default book.db\n\
             go: info score cp 5 pv 7g7f ; bestmove 7g7f\n",
            win(&log)
        ),
    );
    let value = "C:\\将棋\\定跡 ファイル.db";
    let (value_cp932, _, lossy) = encoding_rs::SHIFT_JIS.encode(value);
    assert!(!lossy);
    let mut input = b"usi\r\nsetoption name E1_BookFile value ".to_vec();
    input.extend_from_slice(&value_cp932);
    input.extend_from_slice(b"\r\nisready\r\n");
    g.write(&input);
    g.wait_for(b"readyok");
    g.quit();
    let got = std::fs::read(&log).unwrap_or_default();
    let mut want = b"setoption name BookFile value ".to_vec();
    want.extend_from_slice(&value_cp932);
    assert!(
        got.windows(want.len()).any(|w| w == want.as_slice()),
        "the member did not get the CP932 bytes; its transcript: {:?}",
        String::from_utf8_lossy(&got)
    );
}

/// Issue 50 item 4: the download. `tools/release.sh` makes the zip (of the lane's dev build,
/// `--no-build`: a release build is the same archive and minutes slower in CI), which is unpacked into a folder with
/// a Japanese name and a space; gougi.exe is started there from another working directory, as a
/// GUI does, and plays the first moves of a game: first with no config (the built-in default,
/// said in one line), then with the zip's own `SimpleGougi.config`.
#[test]
fn the_release_zip_plays_from_a_japanese_folder() {
    let Some(lane) = lane() else { return };
    let top = scratch_dir("zip");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("bash")
        .arg(root.join("tools/release.sh"))
        .args([
            "--profile",
            "dev",
            "--no-build",
            "--only",
            "windows",
            "--out",
        ])
        .arg(&top)
        .env("CARGO_TARGET_DIR", &lane.target_dir)
        .status()
        .expect("bash tools/release.sh");
    assert!(status.success(), "tools/release.sh failed");
    let version = env!("CARGO_PKG_VERSION");
    let zip = top.join(format!("gougi-{version}-x86_64-pc-windows-gnu.zip"));
    let unpacked = top.join("将棋 ソフト");
    // Python's zipfile: the lane needs no unzip tool.
    let status = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&zip)
        .arg(&unpacked)
        .status()
        .expect("python3 -m zipfile");
    assert!(status.success(), "unpacking {} failed", zip.display());
    let home = unpacked.join(format!("gougi-{version}"));
    let mut names: Vec<String> = std::fs::read_dir(&home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "BENCHMARKS.md",
            "LICENSE",
            "README.md",
            "SimpleGougi.config",
            "configs",
            "gougi.exe",
            "guide",
            "ja"
        ],
        "the zip's contents"
    );
    assert!(home.join("ja").join("README.md").is_file());
    // Every page's links point inside the archive: what the guides name is in it, and
    // release.sh drops the links to what is not (issue 65).
    let mut pages = Vec::new();
    for dir in [home.clone(), home.join("ja"), home.join("guide")] {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    assert!(pages.len() >= 20, "{pages:?}");
    let mut links = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (k, _) in text.match_indices("](") {
            let target: String = text[k + 2..].chars().take_while(|&c| c != ')').collect();
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() || file.starts_with("http") {
                continue;
            }
            links += 1;
            assert!(
                page.parent().unwrap().join(file).exists(),
                "{}: link {target} leads outside the archive",
                page.display()
            );
        }
    }
    assert!(links > 50, "{links} links");
    // The example configs the guides name are there.
    assert!(home.join("configs").join("i19-leader3g.config").is_file());
    // The test fixture that lets wine 8 start the exe; never in the zip.
    std::fs::copy(
        lane.exe("bcryptprimitives.dll"),
        home.join("bcryptprimitives.dll"),
    )
    .unwrap();
    let gui = top.join("gui");
    std::fs::create_dir_all(&gui).unwrap();
    let config = home.join("SimpleGougi.config");
    let kept = home.join("SimpleGougi.config.kept");
    std::fs::rename(&config, &kept).unwrap();
    let lines = play_from(lane, &home.join("gougi.exe"), &gui);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string no SimpleGougi.config found")),
        "{lines:#?}"
    );
    std::fs::rename(&kept, &config).unwrap();
    let lines = play_from(lane, &home.join("gougi.exe"), &gui);
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("no SimpleGougi.config found")),
        "{lines:#?}"
    );
}

/// gougi.exe started in `cwd` plays six moves of a game against the first legal reply; every
/// `bestmove` must be legal. Returns every line it printed.
fn play_from(lane: &Lane, exe: &Path, cwd: &Path) -> Vec<String> {
    let mut g = lane.start(exe, &[], cwd);
    let mut lines = handshake(&mut g);
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..6 {
        let position = if moves.is_empty() {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        g.send(&position);
        g.send("go btime 0 wtime 0 byoyomi 500");
        let got = g.until(WINE_PATIENCE, |l| l.starts_with("bestmove"));
        let best = got
            .last()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("")
            .to_owned();
        let board = Position::from_usi_position(&position).unwrap();
        assert!(
            board.parse_usi_move(&best).is_ok(),
            "illegal {best:?} in {position}: {got:#?}"
        );
        lines.extend(got);
        moves.push(best);
        let after =
            Position::from_usi_position(&format!("position startpos moves {}", moves.join(" ")))
                .unwrap();
        moves.push(after.legal_moves().iter().next().unwrap().to_string());
    }
    quit(&mut g);
    lines
}
