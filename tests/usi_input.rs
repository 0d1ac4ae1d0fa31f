//! Hostile USI input through the real binary (issue #17, defects 6, 7 and 13): clock fields at
//! the u64 extremes, negative values, out-of-range numbers in members' `info` lines, bare
//! `gameover` and whitespace-only lines. gougi (the proxy) and `gougi search` must answer with
//! sane, well-formed lines and never panic.

mod common;

use std::time::Duration;

use common::{mock_config, scratch_dir, Gougi};
use gougi::usi::MAX_TIME_MS;

/// One mock member that records what it receives and answers `go` with `answer`.
fn proxy_with_transcript(tag: &str, answer: &str) -> (Gougi, std::path::PathBuf) {
    let dir = scratch_dir(tag);
    let transcript = dir.join("member.log");
    let script = format!(
        "id name m1\ntranscript: {}\ngo: {answer}\n",
        transcript.display()
    );
    let config = mock_config(&dir, "楽観合議", &[&script], None, "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    (g, transcript)
}

/// The `go` lines a member received.
fn member_gos(transcript: &std::path::Path, want: usize) -> Vec<String> {
    // gougi may answer (an exhausted clock) before the member has written its transcript.
    let t0 = std::time::Instant::now();
    loop {
        let gos: Vec<String> = std::fs::read_to_string(transcript)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("go"))
            .map(str::to_owned)
            .collect();
        if gos.len() >= want || t0.elapsed() > Duration::from_secs(5) {
            return gos;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Keywords of `go` that take one number.
const GO_NUMBERS: [&str; 10] = [
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movestogo",
    "rtime",
    "nodes",
    "depth",
    "movetime",
];

/// A `go` line made only of known keywords, each numeric one followed by exactly one
/// non-negative integer: what the defect-7 members received (`go -5 -5 -1 -1`) is not.
fn assert_clean_go(line: &str) {
    let mut tokens = line.split(' ');
    assert_eq!(tokens.next(), Some("go"), "{line}");
    while let Some(t) = tokens.next() {
        if GO_NUMBERS.contains(&t) {
            let v = tokens.next().unwrap_or("");
            assert!(v.parse::<u64>().is_ok(), "{t} {v:?} in {line:?}");
        } else {
            assert!(
                ["ponder", "infinite"].contains(&t),
                "stray token {t:?} in {line:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Defect 6: clock arithmetic.

#[test]
fn proxy_answers_a_go_with_a_u64_max_clock() {
    let (mut g, transcript) =
        proxy_with_transcript("u64max", "info depth 1 score cp 5 pv 7g7f ; bestmove 7g7f");
    g.send("position startpos");
    g.send("go btime 18446744073709551615 wtime 0 byoyomi 1000");
    let lines = g.until(Duration::from_secs(15), |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    // Members get our clock minus the margin, capped where 32-bit engines can read it.
    let gos = member_gos(&transcript, 1);
    assert_eq!(gos.len(), 1, "{gos:?}");
    let btime: u64 = gos[0]
        .split(' ')
        .skip_while(|t| *t != "btime")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("btime sent");
    assert!(btime <= MAX_TIME_MS && btime > MAX_TIME_MS / 2, "{gos:?}");
    // Still alive and answering.
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
}

#[test]
fn search_answers_gos_with_u64_max_clock_fields() {
    let mut e = Gougi::start(&["search"]);
    e.send("usi");
    e.until_prefix("usiok");
    e.send("setoption name USI_Hash value 16");
    e.send("isready");
    e.until(Duration::from_secs(20), |l| l == "readyok");
    e.send("position startpos");
    // A huge increment with a small main time: the budget is the small clock's. (i64::MAX:
    // `gougi search` reads clock fields as i64, so u64::MAX takes its bad-number path.)
    for inc in ["9223372036854775807", "18446744073709551615"] {
        e.send(&format!("go btime 1000 wtime 0 binc {inc} winc {inc}"));
        let lines = e.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    }
    // A huge main time: a long but finite plan, so the search ends on `stop`.
    e.send("go btime 18446744073709551615 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let lines = e.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
    let best = lines.last().unwrap();
    assert!(
        best.starts_with("bestmove ") && best != "bestmove resign",
        "{lines:?}"
    );
    e.send("isready");
    e.until(Duration::from_secs(10), |l| l == "readyok");
}

// ---------------------------------------------------------------------------------------------
// Defect 7: bad values are clamped or dropped, never left behind as stray numbers.

/// An `info` line gougi prints: no number that belongs to no keyword, cp within ±99999.
fn assert_clean_info(line: &str) {
    const NUMBERS: [&str; 9] = [
        "depth",
        "seldepth",
        "time",
        "nodes",
        "nps",
        "hashfull",
        "multipv",
        "currmovenumber",
        "cpuload",
    ];
    let mut tokens = line.split(' ');
    assert_eq!(tokens.next(), Some("info"), "{line}");
    while let Some(t) = tokens.next() {
        match t {
            "pv" | "string" => return,
            "score" => {
                let kind = tokens.next();
                let v = tokens.next().unwrap_or("");
                match kind {
                    Some("cp") => assert!(
                        v.parse::<i32>().is_ok_and(|cp| cp.abs() <= 99_999),
                        "{line}"
                    ),
                    Some("mate") => {}
                    _ => panic!("bad score in {line}"),
                }
            }
            "lowerbound" | "upperbound" | "currmove" => {
                if t == "currmove" {
                    tokens.next();
                }
            }
            _ if NUMBERS.contains(&t) => {
                let v = tokens.next().unwrap_or("");
                assert!(v.parse::<u64>().is_ok(), "`{t} {v}` in {line}");
            }
            _ => assert!(t.parse::<i128>().is_err(), "stray number `{t}` in {line}"),
        }
    }
}

#[test]
fn negative_clock_fields_reach_members_as_zero() {
    let (mut g, transcript) = proxy_with_transcript(
        "negative",
        "info depth 1 score cp 5 pv 7g7f ; bestmove 7g7f",
    );
    g.send("position startpos");
    g.send("go btime -5 wtime -5 binc -1 winc -1");
    g.until(Duration::from_secs(15), |l| l.starts_with("bestmove"));
    // A ponder search reaches members with the same clock fields.
    g.send("position startpos moves 7g7f 3c3d");
    g.send("go ponder btime -5 wtime -5 byoyomi -1000");
    g.send("stop");
    g.until(Duration::from_secs(15), |l| l.starts_with("bestmove"));
    let gos = member_gos(&transcript, 2);
    assert!(!gos.is_empty());
    for go in &gos {
        assert_clean_go(go);
    }
    assert!(
        gos[0].contains("wtime 0") && gos[0].contains("binc 0") && gos[0].contains("winc 0"),
        "{gos:?}"
    );
}

#[test]
fn members_bad_info_values_reach_the_gui_well_formed() {
    let bad = "info depth -5 seldepth -1 multipv 99999999999999 nodes 18446744073709551616 \
               score cp 99999999 pv 7g7f 3c3d";
    let (mut g, _) = proxy_with_transcript(
        "badinfo",
        &format!("{bad} ; info time -1 score cp -99999999999999999999 lowerbound nodes x pv 7g7f ; bestmove 7g7f"),
    );
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 2000");
    let lines = g.until(Duration::from_secs(15), |l| l.starts_with("bestmove"));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info ")).collect();
    // The parser saturates at ±99999; taking the line in, gougi clamps a member's cp to the
    // mate-like bound (issue 49) and says so once.
    assert!(
        infos.iter().any(|l| l.contains("score cp 32000")),
        "{lines:#?}"
    );
    assert!(
        infos
            .iter()
            .any(|l| l.contains("score cp -32000 lowerbound")),
        "{lines:#?}"
    );
    let warning = "info string [Warning] E1 (m1): score cp 99999 or more out of range; clamped \
                   to 32000";
    assert_eq!(
        infos.iter().filter(|l| l.as_str() == warning).count(),
        1,
        "{lines:#?}"
    );
    for line in infos {
        assert_clean_info(line);
    }
}

// ---------------------------------------------------------------------------------------------
// Defect 13 (parser part): cshogi's bare `gameover`.

#[test]
fn bare_gameover_ends_the_game_without_an_error() {
    let (mut g, transcript) = proxy_with_transcript("gameover", "bestmove 7g7f");
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    g.until(Duration::from_secs(15), |l| l.starts_with("bestmove"));
    g.send("gameover");
    g.send("isready");
    let lines = g.until(Duration::from_secs(10), |l| l == "readyok");
    assert!(!lines.iter().any(|l| l.contains("[Error]")), "{lines:#?}");
    // Members are told, in the same words.
    let log = std::fs::read_to_string(&transcript).unwrap();
    assert!(log.lines().any(|l| l == "gameover"), "{log}");
}
