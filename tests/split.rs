//! The `split` type end to end (issue 66 item 3): the real `gougi` binary with mock members
//! (and, once, four copies of the built-in search).
//! Engine1 predicts (a shallow MultiPV 2 search with `G_SplitPredict` percent of the nodes),
//! gougi grows the tree along its lines until each member has a leaf, every member searches its
//! leaf with the nodes left, and the values back up by minimax. Each test checks the chosen
//! move, the exact lines the GUI gets and the `position`/`go` lines the members received.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{decision, mock_config, scratch_dir, Gougi};

/// A member named `name` that writes a transcript and answers these `go`s in order.
fn member(name: &str, transcript: &Path, gos: &[&str]) -> String {
    let mut s = format!(
        "id name {name}\noption name MultiPV type spin default 1 min 1 max 10\ntranscript: {}\n",
        transcript.display()
    );
    for g in gos {
        s += &format!("go: {g}\n");
    }
    s
}

/// Engine1's prediction: 7g7f (then 3c3d 2g2f), second 2g2f (then 8c8d).
const PREDICT: &str = "info depth 3 multipv 1 score cp 50 nodes 100 pv 7g7f 3c3d 2g2f ; \
     info depth 3 multipv 2 score cp 30 nodes 100 pv 2g2f 8c8d ; bestmove 7g7f ponder 3c3d";

/// The four leaves' answers (see `four_members_split_the_top_two_moves`).
const E1_LEAF: &str = "info depth 4 score cp 40 nodes 900 pv 2g2f 8c8d ; bestmove 2g2f ponder 8c8d";
const E2_LEAF: &str =
    "info depth 4 score cp -35 nodes 900 pv 8c8d 2g2f ; bestmove 8c8d ponder 2g2f";
const E3_LEAF: &str = "info depth 4 score cp -30 nodes 900 pv 8c8d 7g7f ; bestmove 8c8d";
const E4_LEAF: &str = "info depth 4 score cp 10 nodes 900 pv 5g5f 3c3d ; bestmove 5g5f";

/// Start gougi (type `split`, `G_NetworkDelay` 0) with members of these `go` entries; returns
/// it and each member's transcript.
fn start(tag: &str, gos: &[&[&str]], extra: &str) -> (Gougi, Vec<PathBuf>) {
    let dir = scratch_dir(tag);
    let transcripts: Vec<PathBuf> = (1..=gos.len())
        .map(|k| dir.join(format!("e{k}.log")))
        .collect();
    let scripts: Vec<String> = gos
        .iter()
        .enumerate()
        .map(|(k, g)| member(&format!("e{}", k + 1), &transcripts[k], g))
        .collect();
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let config = mock_config(&dir, "split", &refs, None, extra);
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g.send("setoption name G_NetworkDelay value 0");
    (g, transcripts)
}

/// The `setoption name MultiPV`, `position` and `go` lines a member received, in order, each
/// `searchmoves` list written as its length (`searchmoves <28>`).
fn searches(transcript: &Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            l.starts_with("position")
                || l.starts_with("go")
                || l.starts_with("setoption name MultiPV")
        })
        .map(|l| match l.split_once(" searchmoves ") {
            Some((go, moves)) => format!("{go} searchmoves <{}>", moves.split(' ').count()),
            None => l.to_string(),
        })
        .collect()
}

/// The moves of a `go … searchmoves` line of the transcript (the `k`-th such line).
fn searchmoves(transcript: &Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.split_once(" searchmoves ").map(|(_, m)| m.to_string()))
        .map(|m| m.split(' ').map(str::to_string).collect())
        .unwrap_or_default()
}

/// The legal moves after `moves` from the start position, in the rules core's order, without
/// the non-promotions no engine plays (as gougi's rests leave them out), USI text.
fn legal_after(moves: &str) -> Vec<String> {
    let pos = gougi::search::engine::parse_position(&format!("startpos moves {moves}"))
        .expect("a legal line");
    pos.legal_moves()
        .as_slice()
        .iter()
        .filter(|&&m| !pos.is_inferior_non_promotion(m))
        .map(|m| m.to_string())
        .collect()
}

fn start_moves() -> Vec<String> {
    legal_after("")
}

#[test]
fn four_members_split_the_top_two_moves_and_the_rest() {
    // Tree: 7g7f {3c3d: E1, other replies: E2}, 2g2f: E3, other moves: E4. Values from gougi's
    // side: 7g7f is min(40, 35) = 35, 2g2f 30, the rest 10: 7g7f, along E2's line.
    let (mut g, t) = start(
        "split-four",
        &[&[PREDICT, E1_LEAF], &[E2_LEAF], &[E3_LEAF], &[E4_LEAF]],
        "",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 5g5f [５六歩(57)] [評価値 10] [e4]",
            "info string [X] bestmove 8c8d [２六歩(27) ８四歩(83)] [評価値 -30] [e3]",
            "info string [O] bestmove 8c8d ponder 2g2f [７六歩(77) ８四歩(83) ２六歩(27)] [評価値 -35] [e2]",
            "info string [O] bestmove 2g2f ponder 8c8d [７六歩(77) ３四歩(33) ２六歩(27) ８四歩(83)] [評価値 40] [e1]",
            "info string [why] 7g7f: split 7g7f 35 {3c3d 40 E1, *8c8d 35 E2}, 2g2f 30 E3, *5g5f 10 E4",
            "info depth 4 time T nodes 3700 multipv 1 score cp 35 pv 7g7f 8c8d 2g2f",
            "bestmove 7g7f ponder 8c8d",
        ]
    );
    // While the leaves are searched, the GUI sees the predicted line's member (E1), as from
    // the position: the path before its PV, the depth counted from here. No other leaf's.
    assert!(
        lines.contains(&"info depth 6 nodes 900 score cp 40 pv 7g7f 3c3d 2g2f 8c8d".to_string()),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.ends_with("pv 8c8d 2g2f")),
        "{lines:#?}"
    );
    // E1 predicts with 10 % of the nodes and MultiPV 2, then searches 7g7f 3c3d with the rest
    // (its MultiPV set back first); the others search their leaves with the same 900.
    assert_eq!(
        searches(&t[0]),
        [
            "setoption name MultiPV value 2",
            "position startpos",
            "go nodes 100",
            "setoption name MultiPV value 1",
            "position startpos moves 7g7f 3c3d",
            "go nodes 900",
        ]
    );
    assert_eq!(
        searches(&t[1]),
        [
            "position startpos moves 7g7f",
            "go nodes 900 searchmoves <29>"
        ]
    );
    assert!(!searchmoves(&t[1]).contains(&"3c3d".to_string()));
    assert_eq!(
        searches(&t[2]),
        ["position startpos moves 2g2f", "go nodes 900"]
    );
    assert_eq!(
        searches(&t[3]),
        ["position startpos", "go nodes 900 searchmoves <28>"]
    );
    // The rest: every legal move but the two predicted, in the rules core's order.
    let rest: Vec<String> = start_moves()
        .into_iter()
        .filter(|m| m != "7g7f" && m != "2g2f")
        .collect();
    assert_eq!(searchmoves(&t[3]), rest);
}

#[test]
fn when_the_opponent_follows_the_line_played_it_predicts_without_a_search() {
    // Move 1 as above: 7g7f is played along E2's line 7g7f 8c8d 2g2f. The opponent replies
    // 8c8d: 2g2f is predicted, so no prediction search runs and each leaf gets all 1000 nodes.
    // Two leaves for four members: 2g2f (E1, E3) and the other moves (E2, E4).
    let (mut g, t) = start(
        "split-followed",
        &[
            &[
                PREDICT,
                E1_LEAF,
                "info depth 4 score cp -20 nodes 1000 pv 3c3d ; bestmove 3c3d",
            ],
            &[
                E2_LEAF,
                "info depth 4 score cp 15 nodes 1000 pv 5g5f ; bestmove 5g5f",
            ],
            &[
                E3_LEAF,
                "info depth 4 score cp -25 nodes 1000 pv 3c3d ; bestmove 3c3d",
            ],
            &[
                E4_LEAF,
                "info depth 4 score cp 10 nodes 1000 pv 9g9f ; bestmove 9g9f",
            ],
        ],
        "",
    );
    let first = g.play("position startpos", "go nodes 1000");
    assert_eq!(first.last().unwrap(), "bestmove 7g7f ponder 8c8d");
    let lines = g.play("position startpos moves 7g7f 8c8d", "go nodes 1000");
    assert_eq!(
        searches(&t[0])[6..],
        ["position startpos moves 7g7f 8c8d 2g2f", "go nodes 1000"]
    );
    assert_eq!(
        searches(&t[3])[2..],
        [
            "position startpos moves 7g7f 8c8d".to_string(),
            format!(
                "go nodes 1000 searchmoves <{}>",
                legal_after("7g7f 8c8d").len() - 1
            )
        ]
    );
    // The leaf's value is the best of its members' for the side to move there (-20, E1's).
    assert_eq!(
        decision(&lines)[4..],
        [
            "info string [why] 2g2f: split 2g2f 20 E1+E3, *5g5f 15 E2+E4",
            "info depth 4 time T nodes 4000 multipv 1 score cp 20 pv 2g2f 3c3d",
            "bestmove 2g2f ponder 3c3d",
        ]
    );
}

#[test]
fn a_member_that_dies_mid_split_loses_only_its_leaf() {
    // E2 (7g7f's other replies) crashes: 7g7f backs up E1's reply alone, 40, still the best.
    let (mut g, _) = start(
        "split-dies",
        &[
            &[PREDICT, E1_LEAF],
            &["info depth 2 score cp -35 pv 8c8d ; exit 3"],
            &[E3_LEAF],
            &[E4_LEAF],
        ],
        "",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert!(
        lines.contains(&"info string [Error] E2 (e2) exited with code 3; restarting it".into()),
        "{lines:#?}"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 5g5f [５六歩(57)] [評価値 10] [e4]",
            "info string [X] bestmove 8c8d [２六歩(27) ８四歩(83)] [評価値 -30] [e3]",
            "info string [O] bestmove 2g2f ponder 8c8d [７六歩(77) ３四歩(33) ２六歩(27) ８四歩(83)] [評価値 40] [e1]",
            "info string [why] 7g7f: split 7g7f 40 {3c3d 40 E1, * ? E2}, 2g2f 30 E3, *5g5f 10 E4",
            "info depth 4 time T nodes 2800 multipv 1 score cp 40 pv 7g7f 3c3d 2g2f 8c8d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn a_late_member_loses_its_leaf_and_the_move_is_in_time() {
    // Under byoyomi 1000, E3 (2g2f) answers a second after its stop: gougi decides at the hard
    // deadline with the three leaves in.
    let late = "busy 2000 ; info depth 4 score cp -300 pv 8c8d ; bestmove 8c8d";
    let (mut g, t) = start(
        "split-late",
        &[&[PREDICT, E1_LEAF], &[E2_LEAF], &[late], &[E4_LEAF]],
        "",
    );
    g.send("position startpos");
    let t0 = Instant::now();
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(1000), "{took:?}");
    assert_eq!(
        decision(&lines)[3..],
        [
            "info string [why] 7g7f: split 7g7f 35 {3c3d 40 E1, *8c8d 35 E2}, 2g2f ? E3, *5g5f 10 E4",
            "info depth 4 time T nodes 2800 multipv 1 score cp 35 pv 7g7f 8c8d 2g2f",
            "bestmove 7g7f ponder 8c8d",
        ]
    );
    // The prediction: a tenth of the members' 940 ms; the leaves: what is left, as byoyomi.
    let s = searches(&t[2]);
    assert_eq!(s[0], "position startpos moves 2g2f");
    let ms: u64 = s[1]
        .strip_prefix("go btime 0 wtime 0 byoyomi ")
        .expect(&s[1])
        .parse()
        .unwrap();
    assert!((500..900).contains(&ms), "{ms}");
    assert_eq!(searches(&t[0])[2], "go btime 0 wtime 0 byoyomi 94");
}

#[test]
fn a_member_without_searchmoves_searches_the_rest_move_by_move() {
    // Three members, E3 with `SearchMoves=false`: the rest (28 moves) is the position after
    // each, 900 / 28 = 32 nodes each. Its second position (the second move of the rest, in the
    // rules core's order) is the best for gougi: the rest is worth 60 and beats 7g7f's 50.
    let e3 = [
        "info depth 1 score cp -20 nodes 32 pv 8c8d ; bestmove 8c8d",
        "info depth 1 score cp -60 nodes 32 pv 8c8d ; bestmove 8c8d",
        "info depth 1 score cp -20 nodes 32 pv 8c8d ; bestmove 8c8d",
    ];
    let (mut g, t) = start(
        "split-positions",
        &[
            &[
                PREDICT,
                "info depth 4 score cp -50 nodes 900 pv 3c3d ; bestmove 3c3d",
            ],
            &[E3_LEAF],
            &e3,
        ],
        "Engine3.SearchMoves=false\n",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    let rest: Vec<String> = start_moves()
        .into_iter()
        .filter(|m| m != "7g7f" && m != "2g2f")
        .collect();
    let best = &rest[1];
    let s = searches(&t[2]);
    assert_eq!(s.len(), 2 * 28, "{s:#?}");
    for (k, m) in rest.iter().enumerate() {
        assert_eq!(s[2 * k], format!("position startpos moves {m}"));
        assert_eq!(s[2 * k + 1], "go nodes 32");
    }
    let d = decision(&lines);
    assert_eq!(
        d[3],
        format!("info string [why] {best}: split 7g7f 50 E1, 2g2f 30 E2, *{best} 60 E3[28/28]")
    );
    assert_eq!(d.last().unwrap(), &format!("bestmove {best} ponder 8c8d"));
    // The same tree with E3 taking searchmoves: one search of the 28 moves.
    let (mut g, t) = start(
        "split-searchmoves",
        &[
            &[
                PREDICT,
                "info depth 4 score cp -50 nodes 900 pv 3c3d ; bestmove 3c3d",
            ],
            &[E3_LEAF],
            &[E4_LEAF],
        ],
        "",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        searches(&t[2]),
        ["position startpos", "go nodes 900 searchmoves <28>"]
    );
    assert_eq!(
        decision(&lines)[3],
        "info string [why] 7g7f: split 7g7f 50 E1, 2g2f 30 E2, *5g5f 10 E3"
    );
    // A member that answers a move it was not given ignores searchmoves: the GUI is told how
    // to set it (once a game).
    let (mut g, _) = start(
        "split-ignores",
        &[
            &[
                PREDICT,
                "info depth 4 score cp -50 nodes 900 pv 3c3d ; bestmove 3c3d",
            ],
            &[E3_LEAF],
            &["info depth 4 score cp 10 nodes 900 pv 7g7f ; bestmove 7g7f"],
        ],
        "",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    let warning = "info string [Warning] E3 (e3) answered 7g7f, not one of the moves of its go \
                   searchmoves; if it ignores searchmoves, set Engine3.SearchMoves=false";
    assert!(lines.iter().any(|l| l == warning), "{lines:#?}");
    let again = g.play("position startpos moves 2h3h 8c8d", "go nodes 1000");
    assert!(!again.iter().any(|l| l == warning), "{again:#?}");
}

#[test]
fn without_a_prediction_search_the_line_played_predicts_the_next_tree() {
    // G_SplitPredict 0: the first move has nothing to predict from, so every member searches
    // the position and the best score wins (E1's 7g7f at 50, played with its line).
    let e1 =
        "info depth 4 score cp 50 nodes 1000 pv 7g7f 3c3d 2g2f 8c8d ; bestmove 7g7f ponder 3c3d";
    let e2 = "info depth 4 score cp 30 nodes 1000 pv 2g2f 8c8d ; bestmove 2g2f";
    let e3 = "info depth 4 score cp 20 nodes 1000 pv 5g5f ; bestmove 5g5f";
    // The next move's leaves: the other moves (gougi's side), 2g2f 8c8d (gougi's side), 2g2f's
    // other replies (the opponent's).
    let e1_leaf = "info depth 4 score cp 10 nodes 1000 pv 5g5f 4a3b ; bestmove 5g5f ponder 4a3b";
    let e2_leaf = "info depth 4 score cp 40 nodes 1000 pv 2f2e 8d8e ; bestmove 2f2e ponder 8d8e";
    let e3_leaf = "info depth 4 score cp -35 nodes 1000 pv 4a3b 2f2e ; bestmove 4a3b ponder 2f2e";
    let (mut g, t) = start(
        "split-pv",
        &[&[e1, e1_leaf], &[e2, e2_leaf], &[e3, e3_leaf]],
        "",
    );
    g.send("setoption name G_SplitPredict value 0");
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines)[3..],
        [
            "info string [why] 7g7f: split 7g7f 50 E1+E2+E3",
            "info depth 4 time T nodes 3000 multipv 1 score cp 50 pv 7g7f 3c3d 2g2f 8c8d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    // The opponent replied 3c3d as predicted: the line's 2g2f 8c8d makes the next tree, with
    // the whole 1000 nodes for each leaf. 2g2f's prediction has no second move, so the other
    // moves weigh a half: the heaviest leaf, E1's; 2g2f {8c8d: E2, other replies: E3}.
    let lines = g.play("position startpos moves 7g7f 3c3d", "go nodes 1000");
    let at = "position startpos moves 7g7f 3c3d";
    let replies = legal_after("7g7f 3c3d 2g2f").len() - 1;
    let moves = legal_after("7g7f 3c3d").len() - 1;
    assert_eq!(
        searches(&t[0])[2..],
        [
            at.to_string(),
            format!("go nodes 1000 searchmoves <{moves}>")
        ]
    );
    assert_eq!(
        searches(&t[1])[2..],
        [format!("{at} 2g2f 8c8d"), "go nodes 1000".into()]
    );
    assert_eq!(
        searches(&t[2])[2..],
        [
            format!("{at} 2g2f"),
            format!("go nodes 1000 searchmoves <{replies}>")
        ]
    );
    assert_eq!(
        decision(&lines)[3..],
        [
            "info string [why] 2g2f: split 2g2f 35 {8c8d 40 E2, *4a3b 35 E3}, *5g5f 10 E1",
            "info depth 4 time T nodes 3000 multipv 1 score cp 35 pv 2g2f 4a3b 2f2e",
            "bestmove 2g2f ponder 4a3b",
        ]
    );
}

const MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

#[test]
fn the_mate_guard_still_decides_first() {
    let dir = scratch_dir("split-guard");
    let e = |name: &str| {
        format!("id name {name}\ngo: info depth 3 score cp 900 pv 5c5b+ ; bestmove 5c5b+\n")
    };
    let (e1, e2) = (e("e1"), e("e2"));
    let mate = "id name m\nmate: checkmate G*5b\n";
    let config = mock_config(
        &dir,
        "split",
        &[&e1, &e2],
        Some(mate),
        "MateEngine.Guard=true\n",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    let lines = g.play(MATE1, "go nodes 1000");
    assert_eq!(lines.last().unwrap(), "bestmove G*5b");
    assert!(
        lines.contains(&"info score mate 1 pv G*5b".to_string()),
        "{lines:#?}"
    );
}

/// Engine1's prediction while pondering: its lines, then it searches on until gougi stops it.
const PREDICT_PONDER: &str = "info depth 3 multipv 1 score cp 50 nodes 100 pv 7g7f 3c3d 2g2f ; \
     info depth 3 multipv 2 score cp 30 nodes 100 pv 2g2f 8c8d ; wait stop ; \
     bestmove 7g7f ponder 3c3d";

#[test]
fn a_ponder_predicts_while_the_opponent_thinks_and_the_leaves_start_at_ponderhit() {
    // The `go ponder` is Engine1's prediction alone, even with G_MultiPonder on (one member
    // ponders, so there is nothing to spread). At `ponderhit` it goes on for a tenth of the
    // move's clock; then the four leaves get what is left, as in the nodes test above.
    let (mut g, t) = start(
        "split-ponderhit",
        &[
            &[PREDICT_PONDER, E1_LEAF],
            &[E2_LEAF],
            &[E3_LEAF],
            &[E4_LEAF],
        ],
        "",
    );
    g.send("setoption name G_MultiPonder value true");
    g.send("position startpos");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    g.silent_for(Duration::from_millis(300), "bestmove");
    for (k, transcript) in t.iter().enumerate().skip(1) {
        assert_eq!(searches(transcript), Vec::<String>::new(), "E{}", k + 1);
    }
    let t0 = Instant::now();
    g.send("ponderhit");
    let lines = g.until_prefix("bestmove");
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(2000), "{took:?}");
    assert_eq!(
        decision(&lines)[4..],
        [
            "info string [why] 7g7f: split 7g7f 35 {3c3d 40 E1, *8c8d 35 E2}, 2g2f 30 E3, *5g5f 10 E4",
            "info depth 4 time T nodes 3700 multipv 1 score cp 35 pv 7g7f 8c8d 2g2f",
            "bestmove 7g7f ponder 8c8d",
        ]
    );
    let s = searches(&t[0]);
    assert_eq!(
        s[..3],
        [
            "setoption name MultiPV value 2",
            "position startpos",
            // A tenth of the 1,940 ms members get (the clock less `G_Margin`).
            "go ponder btime 0 wtime 0 byoyomi 194",
        ]
    );
    assert_eq!(
        s[3..5],
        [
            "setoption name MultiPV value 1",
            "position startpos moves 7g7f 3c3d"
        ]
    );
    // Every leaf is a plain `go` (not a ponder) with the clock left after the prediction, which
    // was stopped a tenth of the clock after `ponderhit`.
    let leaves = [
        ("position startpos moves 7g7f 3c3d", ""),
        ("position startpos moves 7g7f", " searchmoves <29>"),
        ("position startpos moves 2g2f", ""),
        ("position startpos", " searchmoves <28>"),
    ];
    for (k, (at, tail)) in leaves.into_iter().enumerate() {
        let s = searches(&t[k]);
        let go = &s[s.len() - 1];
        assert_eq!(s[s.len() - 2], at, "E{}", k + 1);
        let ms: u64 = go
            .strip_prefix("go btime 0 wtime 0 byoyomi ")
            .and_then(|r| r.strip_suffix(tail))
            .unwrap_or_else(|| panic!("E{}: {go}", k + 1))
            .parse()
            .unwrap();
        // 1,568 ms on an idle machine: the 2,000 less the prediction's 194 and the margins.
        assert!((1300..1800).contains(&ms), "E{}: {ms}", k + 1);
    }
}

#[test]
fn a_ponder_miss_answers_at_once_and_starts_no_leaf() {
    // The GUI stops the ponder (the opponent played another move): gougi answers the `stop` at
    // once, as with every type (the GUI discards that `bestmove`), and no member is sent a leaf.
    let (mut g, t) = start(
        "split-pondermiss",
        &[&[PREDICT_PONDER], &[E2_LEAF], &[E3_LEAF], &[E4_LEAF]],
        "",
    );
    g.send("position startpos");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    g.silent_for(Duration::from_millis(200), "bestmove");
    let t0 = Instant::now();
    g.send("stop");
    let lines = g.until_prefix("bestmove");
    assert!(
        t0.elapsed() < Duration::from_millis(500),
        "{:?}",
        t0.elapsed()
    );
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:#?}");
    g.send("isready");
    g.until_prefix("readyok");
    for (k, transcript) in t.iter().enumerate().skip(1) {
        assert_eq!(searches(transcript), Vec::<String>::new(), "E{}", k + 1);
    }
}

#[test]
fn with_no_leaf_answered_the_prediction_is_played() {
    // Every leaf's member crashes: the tree has no value, so the prediction's move is played,
    // with its line, and the `[why]` line says so.
    let (mut g, _) = start(
        "split-noleaf",
        &[&[PREDICT, "exit 3"], &["exit 3"], &["exit 3"], &["exit 3"]],
        "",
    );
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info string [why] 7g7f: split 7g7f ? {3c3d ? E1, * ? E2}, 2g2f ? E3, * ? E4; no leaf has a value: the prediction's move",
            "info depth 3 time T nodes 100 multipv 1 score cp 50 pv 7g7f 3c3d 2g2f",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn four_builtin_searches_split_and_the_rest_leaf_keeps_to_its_moves() {
    // Real members: four copies of the built-in search, which honours `go searchmoves`. The
    // root's children are the two predicted moves and the rest, whose found move is neither,
    // and gougi never warns that a member ignored its searchmoves.
    let dir = scratch_dir("split-builtin");
    let config = dir.join("SimpleGougi.config");
    let mut text = "Gougi.Type=split\n".to_string();
    for k in 1..=4 {
        text += &format!("Engine{k}.Path=builtin:search\n");
    }
    std::fs::write(&config, text).unwrap();
    let mut g = Gougi::with_config(&config);
    g.handshake();
    // Four searches starting at once on a loaded machine may miss the first `isready`'s wait:
    // ask again until every member is ready.
    let t0 = Instant::now();
    loop {
        g.send("isready");
        let lines = g.until(Duration::from_secs(20), |l| l == "readyok");
        if !lines.iter().any(|l| l.contains("not ready")) {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "{lines:#?}");
    }
    g.send("setoption name G_NetworkDelay value 0");
    for position in [
        "position startpos",
        "position startpos moves 7g7f 3c3d 2g2f 4c4d",
    ] {
        let lines = g.play(position, "go nodes 4000");
        assert!(!lines.iter().any(|l| l.contains("[Warning]")), "{lines:#?}");
        let why = lines
            .iter()
            .find_map(|l| l.strip_prefix("info string [why] "))
            .unwrap_or_else(|| panic!("{lines:#?}"));
        let (played, tree) = why.split_once(": split ").unwrap();
        // The root's children: at brace depth 0, split at ", ".
        let (mut depth, mut start, mut top) = (0, 0, Vec::new());
        for (k, ch) in tree.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    top.push(tree[start..k].trim());
                    start = k + 1;
                }
                _ => {}
            }
        }
        top.push(tree[start..].trim());
        assert_eq!(top.len(), 3, "{why}");
        let moves: Vec<&str> = top.iter().map(|c| c.split(' ').next().unwrap()).collect();
        let rest = moves[2].strip_prefix('*').expect(why);
        assert!(
            !rest.is_empty() && rest != moves[0] && rest != moves[1],
            "{why}"
        );
        assert!(moves.contains(&played) || rest == played, "{why}");
        assert_eq!(
            lines.last().unwrap().split(' ').nth(1),
            Some(played),
            "{lines:#?}"
        );
    }
}

#[test]
fn a_mate_the_guard_finds_during_the_leaves_is_played() {
    // Under a clock the guard's mate arrives while the three leaves are searched (their tree
    // would play 5c5b+ at 500): at the leaves' end the verified mate G*5b is played instead.
    let dir = scratch_dir("split-guard-leaves");
    let predict = "id name e1\ngo: info depth 3 multipv 1 score cp 900 nodes 100 pv 5c5b+ 5a5b ; \
                   info depth 3 multipv 2 score cp 800 nodes 100 pv G*4b 5a4b ; bestmove 5c5b+\n\
                   go: busy 600 ; info depth 4 score cp -500 nodes 900 pv 5a5b ; bestmove 5a5b\n";
    let e2 = "id name e2\ngo: busy 600 ; info depth 4 score cp -400 nodes 900 pv 5a4b ; \
              bestmove 5a4b\n";
    let e3 = "id name e3\ngo: busy 600 ; info depth 4 score cp 300 nodes 900 pv G*6b ; \
              bestmove G*6b\n";
    let mate = "id name m\nmate: busy 300 ; checkmate G*5b\n";
    let config = mock_config(
        &dir,
        "split",
        &[predict, e2, e3],
        Some(mate),
        "MateEngine.Guard=true\n",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g.send("setoption name G_NetworkDelay value 0");
    let lines = g.play(MATE1, "go btime 0 wtime 0 byoyomi 3000");
    // The mate reaches the GUI as it is verified, after the prediction's lines and before the
    // predicted leaf's (E1's, from the root); at the leaves' end every member's line is shown
    // from the root, as split's own decision shows them.
    let at = lines
        .iter()
        .position(|l| l == "info string checkmate G*5b")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(
        lines[at..],
        [
            "info string checkmate G*5b",
            "info score mate 1 pv G*5b",
            "info depth 5 nodes 900 score cp 500 pv 5c5b+ 5a5b",
            "info score mate 1 pv G*5b",
            "info string [X] bestmove G*6b [６二金打] [評価値 300] [e3]",
            "info string [X] bestmove 5a4b [４二金打 同\u{3000}玉(51)] [評価値 -400] [e2]",
            "info string [X] bestmove 5a5b [５二歩成(53) 同\u{3000}玉(51)] [評価値 -500] [e1]",
            "info string [O] [1手詰め]\u{3000}[５二金打] [m]",
            "bestmove G*5b",
        ],
        "{lines:#?}"
    );
}
