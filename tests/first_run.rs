//! The first five minutes (issue #21): the `gougi` executable copied or registered alone, with no
//! config anywhere, plays the built-in consultation; `gougi init` writes the config to edit;
//! `GOUGI_LOG` / `GOUGI_LOG_FILE` turn logging on without editing it; the built-in search gets
//! member defaults. Everything drives the real binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::tools::{have_engines, FAIRY};
use common::{scratch_dir, Gougi};
use gougi::shogi::{Color, Position};

const BUILT_IN_LINE: &str = "info string no SimpleGougi.config found; using the built-in \
                             default (3 × builtin:search + builtin:mate); gougi init writes one to edit";

/// The gougi binary copied alone into a fresh, empty folder (as a user registering
/// `target/release/gougi` in a GUI that starts it in its own folder, or copying it elsewhere).
fn lone_gougi(tag: &str) -> (PathBuf, PathBuf) {
    let dir = scratch_dir(tag);
    let exe = dir.join(format!("gougi{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(env!("CARGO_BIN_EXE_gougi"), &exe).expect("copy gougi");
    (dir, exe)
}

/// `gougi <args>` in `dir` with stdin closed at once; (status, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(args)
        .current_dir(dir)
        .env_remove("GOUGI_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run gougi");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bestmove(lines: &[String]) -> String {
    lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string()
}

#[test]
fn alone_in_an_empty_folder_gougi_plays_the_built_in_consultation() {
    let (dir, exe) = lone_gougi("lone");
    let mut g = Gougi::program(&exe, &[], Some(&dir));
    g.send("usi");
    let usi = g.until(Duration::from_secs(30), |l| l == "usiok");
    // Said once, before anything else.
    assert_eq!(usi[0], BUILT_IN_LINE, "{usi:#?}");
    assert_eq!(
        usi.iter().filter(|l| l.starts_with("info string")).count(),
        1
    );
    for option in [
        "option name E1_NetworkDelay2 ",
        "option name E0_MateMode ",
        "option name G_MateTimeout ",
    ] {
        assert!(
            usi.iter().any(|l| l.starts_with(option)),
            "{option}: {usi:#?}"
        );
    }
    g.send("setoption name E1_USI_Hash value 16");
    g.send("isready");
    g.until(Duration::from_secs(60), |l| l == "readyok");
    g.send("usinewgame");
    g.send("position startpos moves 7g7f");
    g.send("go btime 0 wtime 0 byoyomi 300");
    let lines = g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
    let mut pos = Position::startpos();
    pos.do_move(pos.parse_usi_move("7g7f").unwrap());
    let best = bestmove(&lines);
    assert!(pos.parse_usi_move(&best).is_ok(), "illegal {best}");
    // Nothing was written next to the executable.
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1);
}

#[test]
fn alone_in_an_empty_folder_gougi_plays_a_game_against_fairy_stockfish() {
    if !have_engines(&[FAIRY]) {
        return;
    }
    let (dir, exe) = lone_gougi("lone-game");
    let mut g = Gougi::program(&exe, &[], Some(&dir));
    g.send("usi");
    g.until(Duration::from_secs(30), |l| l == "usiok");
    g.send("setoption name E1_USI_Hash value 16");
    g.send("isready");
    g.until(Duration::from_secs(60), |l| l == "readyok");
    g.send("usinewgame");
    let mut fsf = Gougi::program(Path::new(FAIRY), &[], None);
    fsf.send("usi");
    fsf.until(Duration::from_secs(30), |l| l == "usiok");
    fsf.send("isready");
    fsf.until(Duration::from_secs(30), |l| l == "readyok");
    fsf.send("usinewgame");

    let mut pos = Position::startpos();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..30 {
        let gougi_to_move = pos.side_to_move() == Color::Black;
        let (engine, go) = if gougi_to_move {
            (&mut g, "go btime 0 wtime 0 byoyomi 300")
        } else {
            (&mut fsf, "go btime 0 wtime 0 byoyomi 100")
        };
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        engine.send(&position);
        engine.send(go);
        let best = bestmove(&engine.until(Duration::from_secs(10), |l| l.starts_with("bestmove")));
        let mv = match pos.parse_usi_move(&best) {
            Ok(mv) => mv,
            Err(e) => {
                assert!(!gougi_to_move, "gougi played {best} at ply {ply}: {e:?}");
                break; // Fairy-Stockfish resigned
            }
        };
        pos.do_move(mv);
        moves.push(best);
        if pos.legal_moves().is_empty() {
            break;
        }
    }
    assert!(moves.len() >= 10, "the game ended early: {moves:?}");
    g.send("gameover draw");
    g.send("quit");
    assert_eq!(g.wait_exit(Duration::from_secs(10)), Some(0));
}

#[test]
fn init_writes_the_built_in_config_and_never_overwrites_without_force() {
    let dir = scratch_dir("init");
    let (code, out, err) = run(&dir, &["init"]);
    assert_eq!(code, 0, "{out}{err}");
    let written = dir.join("SimpleGougi.config");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("SimpleGougi.config");
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        std::fs::read_to_string(shipped).unwrap()
    );
    assert!(out.contains("wrote SimpleGougi.config"), "{out}");

    // A second time: refused, status 1, the file untouched.
    std::fs::write(
        &written,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n",
    )
    .unwrap();
    let (code, out, err) = run(&dir, &["init"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        err.trim(),
        "gougi init: SimpleGougi.config already exists; not overwritten \
         (gougi init --force overwrites it)"
    );
    assert!(std::fs::read_to_string(&written)
        .unwrap()
        .starts_with("Gougi.Type=optimistic"));

    // --force overwrites; a path (or --config) names another file.
    assert_eq!(run(&dir, &["init", "--force"]).0, 0);
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        gougi::config::BUILT_IN_TEXT
    );
    assert_eq!(run(&dir, &["init", "other.config"]).0, 0);
    assert_eq!(run(&dir, &["--config", "third.config", "init"]).0, 0);
    assert!(dir.join("other.config").is_file() && dir.join("third.config").is_file());

    // A folder that does not exist: a clear error, no panic.
    let (code, _, err) = run(&dir, &["init", "no/such/folder/x.config"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("gougi init: cannot write no/such/folder/x.config: "),
        "{err}"
    );
}

#[test]
fn the_file_init_writes_loads_without_warnings_and_is_used() {
    let dir = scratch_dir("init-load");
    assert_eq!(run(&dir, &["init"]).0, 0);
    let config = gougi::config::Config::load(&dir.join("SimpleGougi.config")).unwrap();
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    // Started in that folder, gougi reads it: no built-in notice, the same members.
    let mut g = Gougi::start_in(&[], Some(&dir));
    g.send("usi");
    let usi = g.until(Duration::from_secs(30), |l| l == "usiok");
    assert!(
        !usi.iter().any(|l| l.starts_with("info string")),
        "{usi:#?}"
    );
    assert!(usi.iter().any(|l| l.starts_with("option name E0_")));
}

#[test]
fn a_named_config_that_is_missing_is_still_an_error() {
    let dir = scratch_dir("named-missing");
    let (code, out, _) = run(&dir, &["--config", "nothere.config"]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("info string [Error] config file not found: "),
        "{out}"
    );
    assert!(!out.contains("built-in"));
}

#[test]
fn the_built_in_search_member_gets_member_time_defaults() {
    // A bare `gougi search` keeps a margin measured on a pipe (issue 19), not a network GUI's …
    let mut bare = Gougi::start(&["search"]);
    bare.send("usi");
    let usi = bare.until_prefix("usiok");
    for line in [
        "option name NetworkDelay type spin default 0 min 0 max 10000",
        "option name NetworkDelay2 type spin default 60 min 0 max 10000",
    ] {
        assert!(usi.contains(&line.into()), "{line}: {usi:#?}");
    }
    // … while the consultation's member (`gougi search --member`, what `builtin:search` runs)
    // declares and uses none: gougi's `G_Margin` already shortened its clock.
    let dir = scratch_dir("member-defaults");
    let mut g = Gougi::start_in(&[], Some(&dir));
    g.send("usi");
    let usi = g.until(Duration::from_secs(30), |l| l == "usiok");
    for line in [
        "option name E1_NetworkDelay type spin default 0 min 0 max 10000",
        "option name E1_NetworkDelay2 type spin default 0 min 0 max 10000",
    ] {
        assert!(usi.iter().any(|l| l == line), "{line}: {usi:#?}");
    }
}

#[test]
fn gougi_log_and_gougi_log_file_turn_logging_on_without_the_config() {
    let dir = scratch_dir("log-env");
    let log = dir.join("trace.log");
    let session = |level: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gougi"));
        cmd.current_dir(&dir)
            .env_remove("GOUGI_CONFIG")
            .env_remove("GOUGI_LOG")
            .env("GOUGI_LOG_FILE", "trace.log")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(level) = level {
            cmd.env("GOUGI_LOG", level);
        }
        let mut child = cmd.spawn().unwrap();
        use std::io::Write;
        // End of input after `usi`: gougi answers it, then quits.
        child.stdin.take().unwrap().write_all(b"usi\n").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The default level (warn): the file is opened, member traffic is not logged.
    let out = session(None);
    assert!(out.contains("usiok"), "{out}");
    assert!(log.is_file());
    assert!(!std::fs::read_to_string(&log).unwrap().contains("to member"));
    // GOUGI_LOG=debug: the lines sent to members are in the file, not on stdout.
    let out = session(Some("debug"));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("to member") && text.contains("line=usi"),
        "{text}"
    );
    assert!(!out.contains("to member"));
    // A value that is not a level is said once and the default kept.
    let out = session(Some("loud"));
    assert!(
        out.contains(
            "info string [Warning] GOUGI_LOG=loud: not a level (error, warn, info, debug, \
             trace); using warn"
        ),
        "{out}"
    );
}

#[test]
fn a_log_file_that_cannot_be_opened_is_an_error() {
    let dir = scratch_dir("log-env-bad");
    let out = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .current_dir(&dir)
        .env_remove("GOUGI_CONFIG")
        .env("GOUGI_LOG_FILE", "no/such/folder/gougi.log")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .contains("info string [Error] GOUGI_LOG_FILE: cannot open no/such/folder/gougi.log: "),
        "{stdout}"
    );
}

// ----- Windows-shaped input, run on Linux (issue #21 part 5) -----------------------------------
//
// Wine cannot start a current Rust binary here, so what a Windows user types is replayed on
// Linux: a backslash is an ordinary file-name character on Linux, so `C:\Engines\x.exe` is one
// file in the config's folder, and gougi must pass such text through untouched (no escape
// processing, no split at the spaces inside quotes, `.exe` kept). On Windows the same strings
// are drive paths, which `std::path` resolves.

/// The mock engine copied to `dir/name` (a literal file name, backslashes and all).
fn mock_as(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(common::mock_engine_path(), &path).expect("copy the mock engine");
    path
}

fn play_once(g: &mut Gougi) -> Vec<String> {
    g.send("usi");
    let mut lines = g.until(Duration::from_secs(20), |l| l == "usiok");
    g.send("isready");
    lines.extend(g.until(Duration::from_secs(20), |l| l == "readyok"));
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    lines.extend(g.until(Duration::from_secs(20), |l| l.starts_with("bestmove")));
    lines
}

#[test]
fn windows_drive_letter_paths_with_spaces_and_exe_members_run() {
    let dir = scratch_dir("win-paths");
    mock_as(&dir, r"C:\Engines\Yane Ura\YaneuraOu.exe");
    std::fs::write(
        dir.join("member1.txt"),
        "id name yane\ngo: info score cp 30 pv 2g2f ; bestmove 2g2f\n",
    )
    .unwrap();
    // Quoted with an argument; the member runs in its program's folder, so `member1.txt` is
    // found there. The config itself is named with a drive letter and backslashes too.
    let config = r"C:\gougi\SimpleGougi.config";
    std::fs::write(
        dir.join(config),
        "Gougi.Type=optimistic\r\nEngine1.Path=\"C:\\Engines\\Yane Ura\\YaneuraOu.exe\" member1.txt\r\n",
    )
    .unwrap();
    let mut g = Gougi::program(
        Path::new(env!("CARGO_BIN_EXE_gougi")),
        &["--config", config],
        Some(&dir),
    );
    let lines = play_once(&mut g);
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("[Error]")), "{lines:#?}");
}

#[test]
fn windows_unquoted_program_path_with_spaces_is_one_program() {
    // The original GougiShogi launched the whole value: `C:\Program Files\…\x.exe`, unquoted.
    let dir = scratch_dir("win-unquoted");
    mock_as(&dir, r"C:\Program Files\Mock Engine\mock engine.exe");
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        "Gougi.Type=optimistic\nEngine1.Path=C:\\Program Files\\Mock Engine\\mock engine.exe\n\
         Engine1.Name=unquoted\n",
    )
    .unwrap();
    let mut g = Gougi::with_config(&config);
    // The mock without a script resigns: the member ran, named as configured.
    let lines = play_once(&mut g);
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.ends_with("[unquoted]")),
        "{lines:#?}"
    );
}

#[test]
fn windows_relative_backslash_path_is_a_file_in_the_config_folder() {
    // `engines\yane.exe` has a folder part: it is looked for beside the config (and named in
    // the error), never on PATH.
    let dir = scratch_dir("win-relative");
    let config = dir.join("SimpleGougi.config");
    let e = gougi::config::Config::parse(
        "Gougi.Type=optimistic\nEngine1.Path=engines\\yane.exe\n",
        &config,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        format!(
            "{}:2: Engine1.Path: no such file: {}",
            config.display(),
            dir.join(r"engines\yane.exe").display()
        )
    );
    // A bare `name.exe` beside the config is found there.
    mock_as(&dir, "yane.exe");
    let c = gougi::config::Config::parse("Gougi.Type=optimistic\nEngine1.Path=yane.exe\n", &config)
        .unwrap();
    assert_eq!(c.engines[0].command.program, dir.join("yane.exe"));
}

#[test]
fn windows_gui_crlf_and_a_shift_jis_setoption_value_reach_the_member_clean() {
    let dir = scratch_dir("win-crlf");
    let transcript = dir.join("transcript.txt");
    let script = dir.join("member1.txt");
    std::fs::write(
        &script,
        format!(
            "id name e1\noption name EvalDir type string default eval\ntranscript: {}\n\
             go: bestmove 7g7f\n",
            transcript.display()
        ),
    )
    .unwrap();
    let mock = common::mock_engine_path();
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        format!(
            "Gougi.Type=optimistic\nEngine1.Path={} {}\n",
            mock.display(),
            script.display()
        ),
    )
    .unwrap();
    let mut g = Gougi::with_config(&config);
    // What a Japanese Windows GUI sends: CRLF line ends, a folder name in CP932 (評価関数).
    let (value, _, bad) = encoding_rs::SHIFT_JIS.encode("評価関数");
    assert!(!bad);
    let mut bytes = b"usi\r\n".to_vec();
    g.send_bytes(&bytes);
    g.until(Duration::from_secs(20), |l| l == "usiok");
    bytes = b"setoption name E1_EvalDir value ".to_vec();
    bytes.extend_from_slice(&value);
    bytes.extend_from_slice(b"\r\nsetoption name G_Margin value 200\r\nisready\r\n");
    g.send_bytes(&bytes);
    let ready = g.until(Duration::from_secs(20), |l| l == "readyok");
    // G_Margin took `200`, not `200\r` (which would be refused with a warning).
    assert!(!ready.iter().any(|l| l.contains("[Warning]")), "{ready:#?}");
    g.send_bytes(b"position startpos\r\ngo btime 0 wtime 0 byoyomi 1000\r\n");
    let lines = g.until(Duration::from_secs(20), |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    // The member gets the value in the GUI's encoding (CP932), as it would from the GUI itself,
    // and no CR.
    let got = std::fs::read(&transcript).unwrap();
    let mut want = b"setoption name EvalDir value ".to_vec();
    want.extend_from_slice(&value);
    assert!(
        got.split(|&b| b == b'\n').any(|l| l == want.as_slice()),
        "{}",
        String::from_utf8_lossy(&got)
    );
    assert!(!got.contains(&b'\r'), "{got:?}");
}
