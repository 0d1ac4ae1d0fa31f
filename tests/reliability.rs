//! Issue 17's defects, one test each (named after the defect's number), through the real
//! binary with mock members (`examples/mock_engine.rs`). Each failed before its fix.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{mock_config, scratch_dir, Gougi};

const BYO: &str = "go btime 0 wtime 0 byoyomi 5000";
const MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

fn start_in(
    dir: &Path,
    policy: &str,
    scripts: &[String],
    mate: Option<&str>,
    extra: &str,
) -> Gougi {
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(dir, policy, &refs, mate, extra));
    g.handshake();
    g
}

fn start(policy: &str, scripts: &[String], mate: Option<&str>, extra: &str) -> Gougi {
    start_in(&scratch_dir(policy), policy, scripts, mate, extra)
}

fn has_prefix(lines: &[String], prefix: &str) -> bool {
    lines.iter().any(|l| l.starts_with(prefix))
}

// ----- 1: bytes on stdin ----------------------------------------------------------------------

#[test]
fn d01_a_cp932_line_from_the_gui_does_not_end_gougi() {
    let scripts = ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    // 日 in CP932, as a Japanese Windows GUI sends a setoption value.
    g.send_bytes(b"setoption name USI_Hash value \x93\xfa\n");
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

// ----- 2: resign ------------------------------------------------------------------------------

#[test]
fn d02_a_majority_tie_does_not_resign_while_members_play() {
    let scripts = [
        "id name e1\ngo: bestmove resign\n".to_string(),
        "id name e2\ngo: sleep 50 ; info depth 3 score cp 10 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e3\ngo: sleep 100 ; info depth 3 score cp 20 pv 2g2f ; bestmove 2g2f\n"
            .to_string(),
    ];
    let mut g = start("majority", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    // The 1-1-1 tie among the members that play goes to the lowest number.
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f", "{lines:#?}");
    assert!(
        has_prefix(&lines, "info string [resign] E1 (e1) resigned"),
        "{lines:#?}"
    );
}

#[test]
fn d02_resign_all_waits_for_the_member_that_plays() {
    let scripts = [
        "id name e1\ngo: bestmove resign\n".to_string(),
        "id name e2\ngo: bestmove resign\n".to_string(),
        "id name e3\ngo: sleep 300 ; info depth 3 score cp -200 pv 2g2f ; bestmove 2g2f\n"
            .to_string(),
    ];
    let mut g = start("majority", &scripts, None, "");
    g.send("setoption name G_Resign value all");
    for _ in 0..4 {
        let lines = g.play("position startpos", BYO);
        assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
    }
}

#[test]
fn d02_the_mate_type_does_not_resign_a_live_game() {
    // The normal member resigns with a score that is not lost; its line is on the table.
    let normal = [
        "id name e1\ngo: info depth 5 score cp -50 pv 7g7f 3c3d ; bestmove resign\n".to_string(),
    ];
    let mut g = start(
        "mate",
        &normal,
        Some("id name tsume\nmate: checkmate nomate\n"),
        "",
    );
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        lines.last().unwrap(),
        "bestmove 7g7f ponder 3c3d",
        "{lines:#?}"
    );
    assert!(
        has_prefix(&lines, "info string [resign] E1 (e1) resigned"),
        "{lines:#?}"
    );
}

#[test]
fn d02_a_lost_position_is_still_resigned() {
    // Not a live game: the only member sees a mate against it and resigns.
    let scripts = [
        "id name e1\ngo: info depth 5 score mate -3 pv 7g7f 3c3d ; bestmove resign\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:#?}");
}

// ----- 3: restarts ----------------------------------------------------------------------------

#[test]
fn d03_a_member_that_keeps_crashing_is_restarted_game_after_game() {
    let dir = scratch_dir("restarts");
    let log = dir.join("e2.log");
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        format!("id name e2\ntranscript: {}\ngo: exit 3\n", log.display()),
    ];
    let mut g = start_in(&dir, "optimistic", &scripts, None, "");
    let mut reports = Vec::new();
    for game in 0..3 {
        if game > 0 {
            g.send("gameover win");
            g.send("isready");
            g.until(Duration::from_secs(20), |l| l == "readyok");
            g.send("usinewgame");
        }
        for _ in 0..2 {
            let lines = g.play("position startpos", "go btime 0 wtime 0 byoyomi 500");
            assert_eq!(lines.last().unwrap(), "bestmove 7g7f", "{lines:#?}");
            reports.extend(lines.into_iter().filter(|l| l.contains("E2 (e2)")));
            // Room for the back-off before the next restart.
            std::thread::sleep(Duration::from_millis(1300));
        }
    }
    let text = std::fs::read_to_string(&log).unwrap();
    // Six crashes over three games: the member came back after each (1 + 6 starts).
    assert_eq!(text.matches("usi\n").count(), 7, "{reports:#?}\n{text}");
    assert!(
        reports
            .iter()
            .all(|l| l.starts_with("info string [Error] E2 (e2) exited with code 3; restarting it")),
        "{reports:#?}"
    );
}

#[test]
fn d03_a_member_that_always_fails_is_left_out_until_the_next_game_and_says_so() {
    let dir = scratch_dir("giveup");
    let log = dir.join("e2.log");
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        format!("id name e2\ntranscript: {}\ngo: exit 3\n", log.display()),
    ];
    let mut g = start_in(&dir, "optimistic", &scripts, None, "");
    let mut reports = Vec::new();
    let t0 = Instant::now();
    // Back-offs of 0, 1, 2 and 4 s before the fifth failure in a row.
    while !reports
        .iter()
        .any(|l: &String| l.contains("left out until the next game"))
    {
        assert!(t0.elapsed() < Duration::from_secs(30), "{reports:#?}");
        let lines = g.play("position startpos", "go btime 0 wtime 0 byoyomi 300");
        assert_eq!(lines.last().unwrap(), "bestmove 7g7f", "{lines:#?}");
        reports.extend(lines.into_iter().filter(|l| l.contains("E2 (e2)")));
        std::thread::sleep(Duration::from_millis(400));
    }
    assert_eq!(
        reports.last().unwrap(),
        "info string [Error] E2 (e2) exited with code 3; 5 failures in a row: left out until the next game"
    );
    let starts = |log: &Path| {
        std::fs::read_to_string(log)
            .unwrap()
            .matches("usi\n")
            .count()
    };
    assert_eq!(starts(&log), 5);
    // True to its word: not started again in this game …
    std::thread::sleep(Duration::from_millis(1500));
    g.play("position startpos", "go btime 0 wtime 0 byoyomi 300");
    assert_eq!(starts(&log), 5);
    // … and started at the next.
    g.send("usinewgame");
    g.send("isready");
    g.until(Duration::from_secs(20), |l| l == "readyok");
    assert_eq!(starts(&log), 6);
}

// ----- 4: slow paths --------------------------------------------------------------------------

#[test]
fn d04_isready_answers_without_a_member_that_never_gets_ready() {
    let scripts = [
        "id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\nisready: say still loading\n".to_string(),
    ];
    let dir = scratch_dir("notready");
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &refs, None, ""));
    g.send("usi");
    g.until_prefix("usiok");
    let t0 = Instant::now();
    g.send("isready");
    let lines = g.until(Duration::from_secs(30), |l| l == "readyok");
    let waited = t0.elapsed();
    assert!(waited < Duration::from_secs(8), "readyok after {waited:?}");
    assert!(
        has_prefix(&lines, "info string [Error] E2 (e2) is not ready"),
        "{lines:#?}"
    );
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

#[test]
fn d04_a_member_that_never_answers_usi_does_not_hold_start_up() {
    let dir = scratch_dir("sleeper");
    let scripts = ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n"];
    let config = mock_config(
        &dir,
        "optimistic",
        &scripts,
        None,
        "Engine2.Path=/bin/sleep 1000\n",
    );
    let mut g = Gougi::with_config(&config);
    let t0 = Instant::now();
    g.send("usi");
    g.until(Duration::from_secs(80), |l| l == "usiok");
    g.send("isready");
    g.until(Duration::from_secs(80), |l| l == "readyok");
    let waited = t0.elapsed();
    assert!(waited < Duration::from_secs(15), "ready after {waited:?}");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

#[test]
fn d04_a_ponder_miss_with_a_hung_member_stays_within_the_byoyomi() {
    let scripts = [
        "id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: hang\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("position startpos moves 2g2f 8c8d");
    g.send("go ponder btime 0 wtime 0 byoyomi 1000");
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    g.send("stop");
    g.until_prefix("bestmove");
    let stopped = t0.elapsed();
    g.send("position startpos moves 2g2f 8c8d 7g7f");
    let t1 = Instant::now();
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    let answered = t1.elapsed();
    assert!(
        stopped < Duration::from_millis(300),
        "bestmove {stopped:?} after stop"
    );
    assert!(
        answered < Duration::from_millis(1000),
        "bestmove {answered:?} after go"
    );
    let best = lines.last().unwrap();
    assert!(best.starts_with("bestmove ") && best != "bestmove resign");
}

// ----- 6, 7: numbers from outside -------------------------------------------------------------

#[test]
fn d06_huge_node_counts_from_members_do_not_overflow() {
    let line = "info depth 3 nodes 18446744073709551615 score cp 5 pv 7g7f ; bestmove 7g7f";
    let scripts = [
        format!("id name e1\ngo: {line}\n"),
        format!("id name e2\ngo: sleep 50 ; {line}\n"),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f", "{lines:#?}");
    let info = &lines[lines.len() - 2];
    assert!(info.contains("nodes 18446744073709551615"), "{info}");
}

#[test]
fn d06_a_huge_clock_does_not_panic() {
    let scripts = ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play(
        "position startpos",
        "go btime 18446744073709551615 wtime 0 byoyomi 1000",
    );
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f", "{lines:#?}");
}

#[test]
fn d07_bad_clock_values_never_reach_members_as_stray_numbers() {
    let dir = scratch_dir("negclock");
    let log = dir.join("e1.log");
    let scripts = [format!(
        "id name e1\ntranscript: {}\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n",
        log.display()
    )];
    let mut g = start_in(&dir, "optimistic", &scripts, None, "");
    let lines = g.play("position startpos", "go btime -5 wtime -5 binc -1 winc -1");
    // An exhausted clock: gougi may answer at once, but with a legal move.
    let best = lines.last().unwrap();
    assert!(
        best.starts_with("bestmove ") && best != "bestmove resign",
        "{lines:#?}"
    );
    // gougi may have answered before the member wrote its transcript.
    let t0 = Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap();
        if text.lines().any(|l| l.starts_with("go")) || t0.elapsed() > Duration::from_secs(5) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let go = text.lines().find(|l| l.starts_with("go")).unwrap();
    // Every value follows its keyword: no bare number where a keyword belongs.
    let words: Vec<&str> = go.split(' ').collect();
    for pair in words[1..].chunks(2) {
        assert!(pair[0].parse::<i64>().is_err(), "stray number in {go:?}");
        assert!(
            pair.get(1).is_some_and(|v| v.parse::<u64>().is_ok()),
            "{go:?}"
        );
    }
}

// ----- 8: end of input ------------------------------------------------------------------------

#[test]
fn d08_commands_read_before_end_of_input_are_answered() {
    let dir = scratch_dir("eof");
    let scripts = ["id name e1\ngo: sleep 100 ; info score cp 5 pv 7g7f ; bestmove 7g7f\n"];
    let config = mock_config(&dir, "optimistic", &scripts, None, "");
    let mut g = Gougi::with_config(&config);
    for line in [
        "usi",
        "isready",
        "position startpos",
        "go btime 0 wtime 0 byoyomi 1000",
    ] {
        g.send(line);
    }
    g.close();
    let lines = g.until_prefix("bestmove");
    assert!(lines.iter().any(|l| l == "usiok"), "{lines:#?}");
    assert!(lines.iter().any(|l| l == "readyok"), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(0));
}

// ----- 9: illegal position --------------------------------------------------------------------

#[test]
fn d09_an_illegal_position_is_reported_and_never_answered_with_another_positions_move() {
    let scripts = ["id name e1\ngo: info score cp 5 pv 2g2f ; bestmove 2g2f\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f");
    g.send("position startpos moves 7g7f 7g7f");
    g.send(BYO);
    let lines = g.until_prefix("bestmove");
    // The reason reads as words (the rules core's message), not as a Rust enum name.
    assert!(
        lines.iter().any(|l| l
            == "info string [Error] position refused: move 2 (7g7f) is illegal: \
                no piece on the origin square; go will be answered with resign"),
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:#?}");
}

// ----- 10: exchange ---------------------------------------------------------------------------

#[test]
fn d10_exchange_keeps_cross_check_lines_from_the_gui_and_compares_calibrated_scores() {
    let scripts = [
        "id name e1\ngo: info depth 5 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\ngo: info depth 4 score cp 40 pv 8c8d ; bestmove 8c8d\n".to_string(),
        "id name e2\ngo: sleep 50 ; info depth 5 score cp -8 pv 2g2f 8c8d ; bestmove 2g2f\ngo: info depth 4 score cp 20 pv 3c3d 2g2f ; bestmove 3c3d\n".to_string(),
    ];
    let mut g = start(
        "exchange",
        &scripts,
        None,
        "Engine1.Scale=60\nEngine2.Scale=6000\n",
    );
    let lines = g.play("position startpos", BYO);
    // The replies searched after the other member's move are not this position's lines.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("pv 8c8d") || l.contains("pv 3c3d 2g2f")),
        "{lines:#?}"
    );
    // Every number on one scale: e1's ×10, e2's ×0.1 (cp × 600 / Scale).
    let tail: Vec<String> = lines[lines.len() - 4..lines.len() - 2].to_vec();
    assert_eq!(
        tail,
        [
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 -200 （-400, -1）] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 249 （500, -2）] [e1]",
        ],
        "{lines:#?}"
    );
}

// ----- 13: members' output --------------------------------------------------------------------

#[test]
fn d13_the_mate_members_raw_lines_do_not_reach_the_gui() {
    let normal = [
        "id name e1\ngo: sleep 200 ; info depth 3 score cp 10 pv 7g7f ; bestmove 7g7f\n"
            .to_string(),
    ];
    let mut g = start(
        "mate",
        &normal,
        Some("id name tsume\nmate: info time 1 nodes 10 ; checkmate nomate\n"),
        "",
    );
    let lines = g.play("position startpos", BYO);
    assert!(!has_prefix(&lines, "info string info"), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

#[test]
fn d13_relay_all_never_numbers_a_string_line() {
    let scripts = [
        "id name e1\ngo: info string hello there ; info depth 3 score cp 5 pv 7g7f ; sleep 100 ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: info string from two ; info depth 3 score cp 1 pv 2g2f ; sleep 100 ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("setoption name G_InfoRelay value all");
    let lines = g.play("position startpos", BYO);
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("info") && l.contains("multipv") && l.contains(" string ")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "info multipv 2 depth 3 score cp 1 pv 2g2f"
                || l == "info depth 3 multipv 2 score cp 1 pv 2g2f"),
        "{lines:#?}"
    );
}

#[test]
fn d13_a_pv_is_cut_before_its_first_illegal_move() {
    // The third move repeats the first: illegal (a PV stitched from a hash table can do this).
    let scripts = [
        "id name e1\ngo: info depth 5 score cp 10 pv 7g7f 3c3d 7g7f 8c8d ; sleep 50 ; bestmove 7g7f ponder 3c3d\n"
            .to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert!(
        lines
            .iter()
            .any(|l| l == "info depth 5 score cp 10 pv 7g7f 3c3d"),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("8c8d")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
}

#[test]
fn d13_a_bogus_bestmove_before_the_real_one_does_not_lose_it() {
    let scripts = [
        "id name e1\ngo: info score cp 90 pv 2g2f ; say bestmove xyz ; bestmove 2g2f\n".to_string(),
        "id name e2\ngo: sleep 100 ; info score cp 10 pv 7g7f ; bestmove 7g7f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
}

#[test]
fn d13_blank_gui_lines_and_a_bare_gameover_are_quietly_taken() {
    let dir = scratch_dir("blank");
    let log = dir.join("e1.log");
    let scripts = [format!(
        "id name e1\ntranscript: {}\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n",
        log.display()
    )];
    let mut g = start_in(&dir, "optimistic", &scripts, None, "");
    g.send("   ");
    g.send("\t");
    // cshogi ends a game with a bare `gameover`.
    g.send("gameover");
    g.send("isready");
    let lines = g.until(Duration::from_secs(10), |l| l == "readyok");
    assert!(!has_prefix(&lines, "info string [Error]"), "{lines:#?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.lines().any(|l| l.trim().is_empty()),
        "blank line sent on: {text:?}"
    );
}

// ----- 15: go mate without a mate engine ------------------------------------------------------

#[test]
fn d15_go_mate_without_a_mate_engine_uses_the_built_in_solver() {
    let scripts = ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    g.send(MATE1);
    g.send("go mate 3000");
    assert_eq!(
        g.until_prefix("checkmate").last().unwrap(),
        "checkmate G*5b"
    );
    // No check at all: disproven at once.
    g.send("position startpos");
    g.send("go mate infinite");
    assert_eq!(
        g.until_prefix("checkmate").last().unwrap(),
        "checkmate nomate"
    );
}

// ----- 14: what a member cannot take ----------------------------------------------------------

/// The lines member `log` received, once it has received `want` of those starting with `go`.
fn transcript_gos(log: &Path, want: usize) -> Vec<String> {
    let t0 = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let gos: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("go"))
            .map(str::to_string)
            .collect();
        if gos.len() >= want || t0.elapsed() > Duration::from_secs(5) {
            return gos;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn d14_a_member_that_cannot_ponder_starts_at_ponderhit_and_never_sees_a_ponder_miss() {
    let dir = scratch_dir("noponder");
    let log = dir.join("e2.log");
    let scripts = [
        "id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string(),
        format!(
            "id name e2\ntranscript: {}\ngo: sleep 100 ; info score cp 50 pv 2g2f ; bestmove 2g2f\n",
            log.display()
        ),
    ];
    let mut g = start_in(&dir, "optimistic", &scripts, None, "Engine2.Ponder=false\n");
    // A ponder miss: e2 is never asked.
    g.send("position startpos moves 7g7f 3c3d");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    std::thread::sleep(Duration::from_millis(100));
    g.send("stop");
    g.until_prefix("bestmove");
    // A ponder hit: e2 starts with a plain go and its better score wins.
    g.send("position startpos moves 7g7f 3c3d");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    std::thread::sleep(Duration::from_millis(100));
    g.send("ponderhit");
    let lines = g.until_prefix("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
    let gos = transcript_gos(&log, 1);
    assert_eq!(gos.len(), 1, "{gos:#?}");
    assert!(!gos[0].contains("ponder"), "{gos:#?}");
    assert!(
        gos[0].starts_with("go btime 0 wtime 0 byoyomi "),
        "{gos:#?}"
    );
}

#[test]
fn d14_node_limits_are_translated_per_member() {
    let dir = scratch_dir("nodes");
    let (l1, l2) = (dir.join("e1.log"), dir.join("e2.log"));
    let scripts = [
        format!(
            "id name e1\ntranscript: {}\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n",
            l1.display()
        ),
        format!(
            "id name e2\ntranscript: {}\ngo: info score cp 1 pv 2g2f ; bestmove 2g2f\n",
            l2.display()
        ),
    ];
    let mut g = start_in(
        &dir,
        "optimistic",
        &scripts,
        None,
        "Engine1.Nodes=off\nEngine2.Nodes=20000\n",
    );
    g.play("position startpos", "go nodes 1000");
    g.play("position startpos", "go btime 0 wtime 0 byoyomi 1000");
    let (g1, g2) = (transcript_gos(&l1, 2), transcript_gos(&l2, 2));
    // e1 cannot take `nodes`: a second of byoyomi instead, the GUI's clock as it is.
    assert_eq!(g1[0], "go btime 0 wtime 0 byoyomi 1000");
    assert!(!g1[1].contains("nodes"), "{g1:#?}");
    // e2 searches its own budget whatever the GUI asks.
    assert_eq!(g2[0], "go nodes 20000");
    assert!(g2[1].ends_with("nodes 20000"), "{g2:#?}");
}

// ----- issue 65 item 5: the last lines before `bestmove` ---------------------------------------

#[test]
fn i65_resign_is_not_shown_as_a_pv() {
    let scripts = [
        "id name e1\ngo: info depth 5 nodes 700 score mate -3 pv 7g7f 3c3d ; bestmove resign\n"
            .to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    let tail: Vec<String> = lines[lines.len() - 2..]
        .iter()
        .map(|l| common::mask_time(l))
        .collect();
    // The score stays (a GUI shows why gougi resigned); `resign` is not a move.
    assert_eq!(
        tail,
        [
            "info depth 5 time T nodes 700 score mate -3",
            "bestmove resign"
        ],
        "{lines:#?}"
    );
}

#[test]
fn i65_a_fallback_shows_one_line_whole() {
    // The member's last line fails high on another move, then it stays busy past gougi's
    // deadline: gougi plays that line's move, and shows that line's depth, nodes and score, not
    // the move with another line's counts.
    let scripts = [
        "id name e1\ngo: info depth 8 nodes 5000 score cp 30 pv 7g7f 3c3d ; \
                    info depth 9 nodes 9000 score cp 40 lowerbound pv 2g2f ; busy 3000 ; \
                    bestmove 7g7f\n"
            .to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", "go btime 0 wtime 0 byoyomi 1000");
    let tail: Vec<String> = lines[lines.len() - 3..]
        .iter()
        .map(|l| common::mask_time(l))
        .collect();
    assert_eq!(
        tail,
        [
            "info string [Error] no member answered in time; gougi plays bestmove 2g2f",
            "info depth 9 time T nodes 9000 multipv 1 score cp 40 lowerbound pv 2g2f",
            "bestmove 2g2f"
        ],
        "{lines:#?}"
    );
}
