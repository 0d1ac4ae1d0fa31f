//! The `leader` type end to end (issue 19): the real `gougi` binary with mock members. The
//! leader (Engine1) plays its move unless its own re-search of another member's move prefers
//! that move by `G_LeaderMargin`, or another member's mate is verified. Each test checks the
//! chosen move, the exact lines the GUI gets and the exact `go` lines the leader received.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{decision, mock_config, scratch_dir, Gougi};

/// The leader's first answer (7g7f at +50) and its re-search answers, in order: after its own
/// move, then after each candidate.
fn leader_script(transcript: &Path, researches: &[&str]) -> String {
    let mut s = format!(
        "id name e1\ntranscript: {}\ngo: info depth 5 score cp 50 nodes 1000 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\n",
        transcript.display()
    );
    for r in researches {
        s += &format!("go: {r}\n");
    }
    s
}

const E2: &str =
    "id name e2\ngo: sleep 100 ; info depth 6 score cp 90 pv 2g2f 8c8d ; bestmove 2g2f ponder 8c8d\n";

/// Start gougi with the leader and `others`, set `G_LeaderNodes` 300: the transcript path too.
fn start(tag: &str, researches: &[&str], others: &[&str]) -> (Gougi, PathBuf) {
    let dir = scratch_dir(tag);
    let transcript = dir.join("e1.log");
    let first = leader_script(&transcript, researches);
    let mut scripts = vec![first.as_str()];
    scripts.extend_from_slice(others);
    let config = mock_config(&dir, "leader", &scripts, None, "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g.send("setoption name G_LeaderNodes value 300");
    // A local GUI: the clocks below are gougi's own split of it (`G_Margin` only).
    g.send("setoption name G_NetworkDelay value 0");
    (g, transcript)
}

/// The `position`/`go` lines a member received, in order.
fn searches(transcript: &Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("position") || l.starts_with("go"))
        .map(str::to_string)
        .collect()
}

#[test]
fn leader_keeps_its_move_when_its_re_search_does_not_prefer_the_candidate() {
    // After 7g7f the reply scores −20 (7g7f is worth 20 to the leader); after 2g2f −30 (30):
    // 30 is not above 20 + 50.
    let (mut g, transcript) = start(
        "leader-keep",
        &[
            "info depth 3 score cp -20 pv 3c3d ; bestmove 3c3d",
            "info depth 3 score cp -30 pv 8c8d ; bestmove 8c8d",
        ],
        &[E2],
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 90] [e2]",
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info string [leader] E1 (e1) re-searched 7g7f 20, 2g2f 30 (margin 50): keeps 7g7f",
            "info depth 5 time T nodes 1000 multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    // The re-searches are the positions after each move. Every search counts against the
    // leader's budget (the cluster frame): the first phase gets three quarters of it (the
    // quarter, 250, is less than two re-searches of G_LeaderNodes 300 could use) and the
    // re-searches share the rest, 1000 in all.
    assert_eq!(
        searches(&transcript),
        [
            "position startpos",
            "go nodes 750",
            "position startpos moves 7g7f",
            "go nodes 125",
            "position startpos moves 2g2f",
            "go nodes 125",
        ]
    );
}

#[test]
fn a_candidate_the_leader_prefers_by_the_margin_is_played() {
    // 2g2f is worth 120 to the leader after its re-search, its own move 20: 120 > 20 + 50.
    let (mut g, transcript) = start(
        "leader-adopt",
        &[
            "info depth 3 score cp -20 pv 3c3d ; bestmove 3c3d",
            "info depth 3 score cp -120 pv 8c8d ; bestmove 8c8d",
        ],
        &[E2],
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 90] [e2]",
            "info string [X] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info string [leader] E1 (e1) re-searched 7g7f 20, 2g2f 120 (margin 50): plays 2g2f",
            "info string [why] 2g2f: E2 (e2)'s move; the leader E1 (e1)'s re-search values it at 120, more than its own 7g7f at 20 + margin 50",
            "info depth 6 time T multipv 1 score cp 90 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );
    assert_eq!(searches(&transcript).len(), 6);
    // A larger margin keeps the leader's move with the same answers.
    let (mut g, _) = start(
        "leader-margin",
        &[
            "info depth 3 score cp -20 pv 3c3d ; bestmove 3c3d",
            "info depth 3 score cp -120 pv 8c8d ; bestmove 8c8d",
        ],
        &[E2],
    );
    g.send("setoption name G_LeaderMargin value 100");
    let again = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&again)[2],
        "info string [leader] E1 (e1) re-searched 7g7f 20, 2g2f 120 (margin 100): keeps 7g7f"
    );
    assert_eq!(again.last().unwrap(), "bestmove 7g7f ponder 3c3d");
}

#[test]
fn agreement_needs_no_re_search() {
    let same = "id name e2\ngo: info depth 6 score cp 90 pv 7g7f ; bestmove 7g7f\n";
    let (mut g, transcript) = start("leader-agree", &["bestmove 1g1f"], &[same]);
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 90] [e2]",
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info depth 5 time T nodes 1000 multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    // The quarter kept for re-searches goes unused when the members agree, as the clock's does.
    assert_eq!(searches(&transcript), ["position startpos", "go nodes 750"]);
}

const MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

#[test]
fn a_verified_mate_of_another_member_overrides_the_leader() {
    let dir = scratch_dir("leader-mate");
    let transcript = dir.join("e1.log");
    let e1 = format!(
        "id name e1\ntranscript: {}\ngo: info depth 3 score cp 900 pv 5c5b+ ; bestmove 5c5b+\ngo: bestmove 1a1b\n",
        transcript.display()
    );
    let e2 = "id name e2\ngo: sleep 100 ; info depth 1 score mate 1 pv G*5b ; bestmove G*5b\n";
    // A false claim from a third member is not a mate: its score is dropped, and 4b4a does
    // not become a candidate that beats a verified mate.
    let e3 = "id name e3\ngo: sleep 150 ; info depth 1 score mate 1 pv G*4b ; bestmove G*4b\n";
    let config = mock_config(&dir, "leader", &[&e1, e2, e3], None, "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    let lines = g.play(MATE1, "go nodes 1000");
    assert!(
        lines.iter().any(|l| l.starts_with(
            "info string [Warning] E3 (e3): mate 1 for G*4b not confirmed by the mate solver"
        )),
        "{lines:#?}"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove G*4b [４二金打] [評価値 -] [e3]",
            "info string [O] bestmove G*5b [５二金打] [評価値 mate 1] [e2]",
            "info string [X] bestmove 5c5b+ [５二歩成(53)] [評価値 900] [e1]",
            "info string [why] G*5b: E2 (e2)'s verified mate in 1; the leader E1 (e1) has no mate",
            "info depth 1 time T multipv 1 score mate 1 pv G*5b",
            "bestmove G*5b",
        ]
    );
    // No re-search: a proven mate needs no second opinion.
    assert_eq!(searches(&transcript), [MATE1, "go nodes 750"]);
}

#[test]
fn a_leader_crash_during_its_re_search_keeps_the_leaders_move() {
    let (mut g, transcript) = start(
        "leader-crash",
        &["info depth 3 score cp -20 pv 3c3d ; exit 3"],
        &[E2],
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert!(
        lines
            .contains(&"info string [Error] E1 (e1) exited with code 3; restarting it".to_string()),
        "{lines:#?}"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 90] [e2]",
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info string [leader] E1 (e1) re-searched 7g7f ?, not 2g2f (margin 50): keeps 7g7f",
            "info depth 5 time T nodes 1000 multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    assert_eq!(searches(&transcript).len(), 4);
}

#[test]
fn a_re_search_that_runs_out_of_time_keeps_the_leaders_move_in_time() {
    // Under byoyomi 1000 the first phase gets three quarters of the clock; the leader's
    // re-search of its own move never answers (it ignores stop), so gougi decides at the hard
    // deadline, in time, with the leader's move.
    let (mut g, transcript) = start("leader-timeout", &["hang"], &[E2]);
    g.send("position startpos");
    let t0 = Instant::now();
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(1000), "{took:?}");
    assert_eq!(
        decision(&lines)[2..],
        [
            "info string [leader] E1 (e1) re-searched 7g7f ?, not 2g2f (margin 50): keeps 7g7f",
            "info depth 5 time T nodes 1000 multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    let s = searches(&transcript);
    // Phase 1: 1000 − G_Margin 60 = 940 ms, three quarters of it; the re-search: nodes and
    // the share of what is left, as byoyomi.
    assert_eq!(
        s[..3],
        [
            "position startpos",
            "go btime 0 wtime 0 byoyomi 705",
            "position startpos moves 7g7f"
        ]
    );
    let re = s[3]
        .strip_prefix("go btime 0 wtime 0 byoyomi ")
        .expect(&s[3]);
    let (ms, nodes) = re.split_once(' ').expect(re);
    assert_eq!(nodes, "nodes 300");
    let ms: u64 = ms.parse().unwrap();
    assert!((50..400).contains(&ms), "{ms}");
}

#[test]
fn a_leader_asked_alone_gets_the_whole_clock() {
    // Engine2 sits out under a clock (`MinCores` above any machine's), as the shipped config's
    // second and third copies do on 2 cores: there is nothing to re-search, so no quarter of the
    // clock is kept back for it; the leader is told byoyomi 1000 − G_Margin 60, as `gougi
    // search` alone keeps its own 60 ms (a local GUI: `G_NetworkDelay` 0).
    let dir = scratch_dir("leader-alone");
    let transcript = dir.join("e1.log");
    let first = leader_script(&transcript, &[]);
    let config = mock_config(
        &dir,
        "leader",
        &[first.as_str(), E2],
        None,
        "Engine2.MinCores=1024\n",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g.send("setoption name G_NetworkDelay value 0");
    let lines = g.play("position startpos", "go btime 0 wtime 0 byoyomi 1000");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
    assert_eq!(
        searches(&transcript),
        ["position startpos", "go btime 0 wtime 0 byoyomi 940"]
    );
}

#[test]
fn a_banked_leader_re_searches_for_the_time_it_banked() {
    // `G_TimeBank 50`, sudden death 60 s: the first phase is told half the main time (60 000 −
    // G_Margin 60, halved), not three quarters. E2 answers after 100 ms and disagrees, so the
    // leader's re-searches get what the first phase would have taken on the whole clock (twice
    // its ≥ 100 ms) as byoyomi — half each, the second what the first left — and no
    // `G_LeaderNodes`. The all-members types' second ask of every member does not happen here.
    let (mut g, transcript) = start(
        "leader-bank",
        &[
            "info depth 3 score cp -20 pv 3c3d ; bestmove 3c3d",
            "info depth 3 score cp -120 pv 8c8d ; bestmove 8c8d",
        ],
        &[E2],
    );
    g.send("setoption name G_TimeBank value 50");
    let lines = g.play("position startpos", "go btime 60000 wtime 60000");
    assert_eq!(
        decision(&lines)[2..4],
        [
            "info string [leader] E1 (e1) re-searched 7g7f 20, 2g2f 120 (margin 50): plays 2g2f",
            "info string [why] 2g2f: E2 (e2)'s move; the leader E1 (e1)'s re-search values it at 120, more than its own 7g7f at 20 + margin 50",
        ]
    );
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f ponder 8c8d");
    let s = searches(&transcript);
    assert_eq!(
        [&s[..3], &[s[4].clone()]].concat(),
        [
            "position startpos",
            "go btime 29970 wtime 60000",
            "position startpos moves 7g7f",
            "position startpos moves 2g2f",
        ],
        "{s:#?}"
    );
    assert_eq!(s.len(), 6, "{s:#?}");
    let byoyomi = |l: &str| -> u64 {
        l.strip_prefix("go btime 0 wtime 0 byoyomi ")
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("a timed re-search with no nodes: {l}"))
    };
    let (first, second) = (byoyomi(&s[3]), byoyomi(&s[5]));
    assert!((95..2_000).contains(&first), "{s:#?}");
    assert!(second + 5 >= first && second < 4_000, "{s:#?}");
}

/// The `position`, `go`, `ponderhit` and `stop` lines a member received, in order.
fn received(transcript: &Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            ["position", "go", "ponderhit", "stop"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_string)
        .collect()
}

/// Three members who disagree three ways, each writing a transcript: the leader's first answer
/// and three re-search answers (its own move worth 20, 2g2f 30, 5g5f 40: it keeps 7g7f).
fn three_ways(tag: &str) -> (Gougi, [PathBuf; 3]) {
    let dir = scratch_dir(tag);
    let t = [1, 2, 3].map(|k| dir.join(format!("e{k}.log")));
    let e1 = leader_script(
        &t[0],
        &[
            "info depth 3 score cp -20 pv 3c3d ; bestmove 3c3d",
            "info depth 3 score cp -30 pv 8c8d ; bestmove 8c8d",
            "info depth 3 score cp -40 pv 8c8d ; bestmove 8c8d",
        ],
    );
    let e2 = format!(
        "id name e2\ntranscript: {}\ngo: info depth 6 score cp 90 pv 2g2f ; bestmove 2g2f\n",
        t[1].display()
    );
    let e3 = format!(
        "id name e3\ntranscript: {}\ngo: info depth 6 score cp 80 pv 5g5f ; bestmove 5g5f\n",
        t[2].display()
    );
    let config = mock_config(&dir, "leader", &[&e1, &e2, &e3], None, "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    (g, t)
}

#[test]
fn the_leaders_whole_work_fits_the_node_budget() {
    // `go nodes 10000`, three members, G_LeaderNodes 3000 (the default): every member's first
    // phase gets 7500, and the leader's three re-searches share the 2500 left (833, 833, 834),
    // so the leader searches 10000 nodes in all, as the engine alone would on its machine.
    let (mut g, t) = three_ways("leader-frame-nodes");
    let lines = g.play("position startpos", "go nodes 10000");
    assert_eq!(
        decision(&lines)[3],
        "info string [leader] E1 (e1) re-searched 7g7f 20, 2g2f 30, 5g5f 40 (margin 50): keeps 7g7f"
    );
    assert_eq!(
        received(&t[0]),
        [
            "position startpos",
            "go nodes 7500",
            "position startpos moves 7g7f",
            "go nodes 833",
            "position startpos moves 2g2f",
            "go nodes 833",
            "position startpos moves 5g5f",
            "go nodes 834",
        ]
    );
    for other in &t[1..] {
        assert_eq!(received(other), ["position startpos", "go nodes 7500"]);
    }
}

#[test]
fn a_pondered_leader_round_splits_the_ponder_budget_the_same_way() {
    // The match runner's frame: `go ponder nodes (own + opponent's)`, a plain `ponderhit`. The
    // first phase ponders three quarters of it and goes on from there at the hit; the
    // re-searches share the quarter (1666, 1667, 1667 of 5000).
    let (mut g, t) = three_ways("leader-frame-ponder");
    g.send("position startpos");
    g.send("go ponder nodes 20000");
    // Every member is pondering before the hit comes.
    let deadline = Instant::now() + Duration::from_secs(20);
    while t.iter().any(|p| received(p).len() < 2) {
        assert!(Instant::now() < deadline, "members not pondering");
        std::thread::sleep(Duration::from_millis(20));
    }
    g.send("ponderhit");
    let lines = g.until_prefix("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
    assert_eq!(
        received(&t[0]),
        [
            "position startpos",
            "go ponder nodes 15000",
            "ponderhit",
            "position startpos moves 7g7f",
            "go nodes 1666",
            "position startpos moves 2g2f",
            "go nodes 1667",
            "position startpos moves 5g5f",
            "go nodes 1667",
        ]
    );
    for other in &t[1..] {
        assert_eq!(
            received(other),
            ["position startpos", "go ponder nodes 15000", "ponderhit"]
        );
    }
}

#[test]
fn a_lone_member_ponders_the_whole_budget() {
    // A one-member consultation (the frame's self-test) passes `go ponder nodes X` on as it is,
    // and `ponderhit` after it; a miss's `stop` reaches the member too.
    let dir = scratch_dir("frame-lone");
    let transcript = dir.join("e1.log");
    let e1 = format!(
        "id name e1\ntranscript: {}\ngo: info depth 5 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\n",
        transcript.display()
    );
    // `optimistic`: `majority` and `leader` take two members or more.
    let config = mock_config(&dir, "optimistic", &[&e1], None, "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g.send("position startpos");
    g.send("go ponder nodes 12345");
    g.send("ponderhit");
    assert_eq!(
        g.until_prefix("bestmove").last().unwrap(),
        "bestmove 7g7f ponder 3c3d"
    );
    g.send("position startpos");
    g.send("go ponder nodes 12345");
    g.send("stop");
    g.until_prefix("bestmove");
    g.send("position startpos");
    g.send("go nodes 5000");
    assert_eq!(
        g.until_prefix("bestmove").last().unwrap(),
        "bestmove 7g7f ponder 3c3d"
    );
    // gougi answers a stopped ponder at once; if the next `go` comes before the member's
    // answer to that `stop`, the member is told `stop` again first (the request model).
    let mut got = received(&transcript);
    got.dedup();
    assert_eq!(
        got,
        [
            "position startpos",
            "go ponder nodes 12345",
            "ponderhit",
            "position startpos",
            "go ponder nodes 12345",
            "stop",
            "position startpos",
            "go nodes 5000",
        ]
    );
}
