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
fn member_gos(transcript: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("go"))
        .map(str::to_owned)
        .collect()
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
    let gos = member_gos(&transcript);
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
