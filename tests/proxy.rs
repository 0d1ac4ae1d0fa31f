//! The consultation proxy end to end: the real `gougi` binary with mock members
//! (`examples/mock_engine.rs`), one test per consultation type and per fault.

mod common;

use std::time::{Duration, Instant};

use common::{decision, mock_config, scratch_dir, Gougi};

const BYO: &str = "go btime 0 wtime 0 byoyomi 5000";

/// Three members for the all-members types: e1 7g7f at +50 (fast), e2 2g2f at +30, e3 2g2f
/// at +10 (slowest), so answers arrive in member order.
fn three(second: [&str; 3]) -> [String; 3] {
    [
        format!("id name e1\ngo: info depth 5 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\ngo: {}\n", second[0]),
        format!("id name e2\ngo: sleep 100 ; info depth 6 score cp 30 pv 2g2f 8c8d ; bestmove 2g2f ponder 8c8d\ngo: sleep 100 ; {}\n", second[1]),
        format!("id name e3\ngo: sleep 200 ; info depth 7 score cp 10 pv 2g2f 3c3d ; bestmove 2g2f\ngo: sleep 200 ; {}\n", second[2]),
    ]
}

fn start(policy: &str, scripts: &[String], mate: Option<&str>, extra: &str) -> Gougi {
    let dir = scratch_dir(policy);
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let config = mock_config(&dir, policy, &refs, mate, extra);
    let mut g = Gougi::with_config(&config);
    g.handshake();
    g
}

/// `position startpos` and a byoyomi `go` (BYO): the lines up to `bestmove` and how long the
/// answer took.
fn timed_go(g: &mut Gougi) -> (Vec<String>, Duration) {
    g.send("position startpos");
    let t0 = Instant::now();
    g.send(BYO);
    let lines = g.until_prefix("bestmove");
    (lines, t0.elapsed())
}

const SECOND: [&str; 3] = [
    "info depth 5 score cp 60 pv 2g2f ; bestmove 2g2f",
    "info depth 5 score cp 90 pv 6i7h ; bestmove 6i7h",
    "info depth 5 score cp -20 pv 5g5f ; bestmove 5g5f",
];

#[test]
fn majority_takes_the_lowest_voter_of_the_majority() {
    let mut g = start("多数決合議（3者）", &three(SECOND), None, "");
    let lines = g.play("position startpos", BYO);
    // Each member's answer is shown once, at the decision (not also on arrival).
    assert!(
        !lines.iter().any(|l| l.starts_with("info string bestmove")),
        "{lines:#?}"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 10] [e3]",
            "info string [O] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 30] [e2]",
            "info string [X] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info depth 6 time T multipv 1 score cp 30 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );
}

#[test]
fn optimistic_takes_the_highest_score() {
    let mut g = start("optimistic", &three(SECOND), None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 10] [e3]",
            "info string [X] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 30] [e2]",
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info string [why] 7g7f: E1 (e1) has the highest score 50 (E2 30, E3 10); 2 of 3 members proposed 2g2f",
            "info depth 5 time T multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn all_members_agreeing_need_no_reason() {
    let agree = |n: u32, cp: i32| {
        format!("id name e{n}\ngo: info depth 5 score cp {cp} pv 7g7f ; bestmove 7g7f\n")
    };
    let mut g = start(
        "optimistic",
        &[agree(1, 20), agree(2, 60), agree(3, 40)],
        None,
        "",
    );
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 40] [e3]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 60] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 20] [e1]",
            "info depth 5 time T multipv 1 score cp 60 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
}

#[test]
fn majority_says_how_it_broke_a_tie() {
    let mut g = start("majority", &three(SECOND), None, "");
    g.play("position startpos", BYO);
    // 2g2f, 6i7h and 5g5f: one vote each, and engine 1's move is played.
    let lines = g.play("position startpos moves 7g7f 3c3d", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 5g5f [５六歩(57)] [評価値 -20 （前回10 差分-30）] [e3]",
            "info string [X] bestmove 6i7h [７八金(69)] [評価値 90 （前回30 差分60）] [e2]",
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 60 （前回50 差分10）] [e1]",
            "info string [why] 2g2f: 2g2f, 6i7h and 5g5f tie at 1 vote each; the tie goes to the lowest-numbered proposer, E1 (e1)",
            "info depth 5 time T multipv 1 score cp 60 pv 2g2f",
            "bestmove 2g2f",
        ]
    );
}

#[test]
fn pessimistic_takes_the_lowest_score() {
    let mut g = start("悲観合議", &three(SECOND), None, "");
    let lines = g.play("position startpos", BYO);
    let d = decision(&lines);
    assert_eq!(
        d[0],
        "info string [O] bestmove 2g2f [２六歩(27)] [評価値 10] [e3]"
    );
    assert_eq!(
        d[3],
        "info depth 7 time T multipv 1 score cp 10 pv 2g2f 3c3d"
    );
    assert_eq!(d[4], "bestmove 2g2f");
}

#[test]
fn alternate_starts_optimistic_then_pessimistic_with_history() {
    let mut g = start("楽観合議と悲観合議を交互", &three(SECOND), None, "");
    let first = g.play("position startpos", BYO);
    assert_eq!(first.last().unwrap(), "bestmove 7g7f ponder 3c3d");
    let second = g.play("position startpos moves 7g7f 3c3d", BYO);
    assert_eq!(
        decision(&second),
        [
            "info string [O] bestmove 5g5f [５六歩(57)] [評価値 -20 （前回10 差分-30）] [e3]",
            "info string [X] bestmove 6i7h [７八金(69)] [評価値 90 （前回30 差分60）] [e2]",
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 60 （前回50 差分10）] [e1]",
            "info string [why] 5g5f: E3 (e3) has the lowest score -20 (E1 60, E2 90)",
            "info depth 5 time T multipv 1 score cp -20 pv 5g5f",
            "bestmove 5g5f",
        ]
    );
}

#[test]
fn rise_optimistic_and_pessimistic() {
    for (policy, want) in [
        ("rise-optimistic", "bestmove 6i7h"),
        ("2手前の評価値からの上昇分の悲観合議", "bestmove 5g5f"),
    ] {
        let mut g = start(policy, &three(SECOND), None, "");
        // First move: no history anywhere, so engine 1 plays.
        let first = g.play("position startpos", BYO);
        assert_eq!(
            first.last().unwrap(),
            "bestmove 7g7f ponder 3c3d",
            "{policy}"
        );
        let second = g.play("position startpos moves 7g7f 3c3d", BYO);
        assert_eq!(second.last().unwrap(), want, "{policy}");
    }
}

#[test]
fn exchange_rates_each_move_by_both_members() {
    // The reference's example: e1 7g7f +50, e2 2g2f -8; after 2g2f e1 (as White) says +40,
    // after 7g7f e2 says +20. 7g7f wins 15 to -24.
    let scripts = [
        "id name e1\ngo: info depth 5 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\ngo: info depth 4 score cp 40 pv 8c8d ; bestmove 8c8d\n".to_string(),
        "id name e2\ngo: sleep 50 ; info depth 5 score cp -8 pv 2g2f 8c8d ; bestmove 2g2f\ngo: info depth 4 score cp 20 pv 3c3d ; bestmove 3c3d\n".to_string(),
    ];
    let mut g = start(
        "各々の最善手を交換して評価値の合計で判定（2者）",
        &scripts,
        None,
        "",
    );
    let lines = g.play("position startpos", BYO);
    let tail: Vec<String> = lines[lines.len() - 4..]
        .iter()
        .map(|l| common::mask_time(l))
        .collect();
    assert_eq!(
        tail,
        [
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 -24 （-40, -8）] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 15 （50, -20）] [e1]",
            "info depth 5 time T multipv 1 score cp 50 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn exchange_says_why_member_twos_move_won() {
    // e1 7g7f +50, e2 2g2f +60; after 2g2f e1 (as White) says 0, after 7g7f e2 says +100:
    // 7g7f's views sum to 50 − 100, 2g2f's to 0 + 60, so member 2's move is played.
    let scripts = [
        "id name e1\ngo: info depth 5 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\ngo: info depth 4 score cp 0 pv 8c8d ; bestmove 8c8d\n".to_string(),
        "id name e2\ngo: sleep 50 ; info depth 5 score cp 60 pv 2g2f 8c8d ; bestmove 2g2f\ngo: info depth 4 score cp 100 pv 3c3d ; bestmove 3c3d\n".to_string(),
    ];
    let mut g = start("exchange", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    let tail: Vec<String> = lines[lines.len() - 5..]
        .iter()
        .map(|l| common::mask_time(l))
        .collect();
    assert_eq!(
        tail,
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 30 （0, 60）] [e2]",
            "info string [X] bestmove 7g7f [７六歩(77)] [評価値 -25 （50, -100）] [e1]",
            "info string [why] 2g2f: its views sum to 60, those of 7g7f to -50",
            "info depth 5 time T multipv 1 score cp 60 pv 2g2f 8c8d",
            "bestmove 2g2f",
        ]
    );
}

#[test]
fn exchange_says_why_when_member_one_resigns() {
    let scripts = [
        "id name e1\ngo: info score cp -3000 pv 7g7f ; bestmove resign\n".to_string(),
        "id name e2\ngo: sleep 50 ; info score cp -5000 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("exchange", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 -5000] [e2]",
            "info string [X] bestmove resign [投了] [評価値 -3000] [e1]",
            "info string [why] 2g2f: E1 (e1) resigned; E2 (e2)'s move is played",
            "info time T multipv 1 score cp -5000 pv 2g2f",
            "bestmove 2g2f",
        ]
    );
}

#[test]
fn exchange_agreement_decides_at_once() {
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: info score cp 60 pv 7g7f ; bestmove 7g7f\n".to_string(),
    ];
    let mut g = start("exchange", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 60] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 50] [e1]",
            "info time T multipv 1 score cp 60 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
}

fn players(policy: &str, extra: &str, positions: &[&str], setoption: &[&str]) -> Vec<String> {
    decisions(policy, extra, positions, setoption)
        .into_iter()
        .map(|d| d.last().unwrap().clone())
        .collect()
}

/// The decision lines of each move of a change-player game (three members, one game).
fn decisions(
    policy: &str,
    extra: &str,
    positions: &[&str],
    setoption: &[&str],
) -> Vec<Vec<String>> {
    let scripts = [
        "id name e1\ngo: info score cp 100 pv 7g7f ; bestmove 7g7f\ngo: info score cp 50 pv 2g2f ; bestmove 2g2f\ngo: info score cp -100 pv 5g5f ; bestmove 5g5f\ngo: info score cp 0 pv 6g6f ; bestmove 6g6f\n".to_string(),
        "id name e2\ngo: info score cp 10 pv 1g1f ; bestmove 1g1f\n".to_string(),
        "id name e3\ngo: info score cp 20 pv 9g9f ; bestmove 9g9f\n".to_string(),
    ];
    let dir = scratch_dir(policy);
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, policy, &refs, None, extra));
    g.send("usi");
    g.until_prefix("usiok");
    for o in setoption {
        g.send(o);
    }
    g.send("isready");
    g.until_prefix("readyok");
    g.send("usinewgame");
    positions
        .iter()
        .map(|p| decision(&g.play(p, BYO)))
        .collect()
}

#[test]
fn change_every_rotates_after_n_moves() {
    let moves = players(
        "数手ごとに対局者交代",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d",
        ],
        &["setoption name G_ChangePlayerPlys value 1"],
    );
    assert_eq!(moves, ["bestmove 7g7f", "bestmove 1g1f", "bestmove 9g9f"]);
}

#[test]
fn by_phase_reads_the_ply_of_the_position() {
    let moves = players(
        "by-phase",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 9",
        ],
        &[
            "setoption name G_ChuubanStartPlys value 3",
            "setoption name G_ShuubanStartPlys value 9",
        ],
    );
    assert_eq!(moves, ["bestmove 7g7f", "bestmove 1g1f", "bestmove 9g9f"]);
}

#[test]
fn change_on_drop_rotates_when_the_score_falls() {
    // e1: +100, +50 (−50), −100 (−150 ≥ 100: rotate), so e2 plays the fourth move.
    let moves = players(
        "2手前の評価値から一定値以上下降したら対局者交代",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d 5g5f 5c5d",
        ],
        &[],
    );
    assert_eq!(
        moves,
        [
            "bestmove 7g7f",
            "bestmove 2g2f",
            "bestmove 5g5f",
            "bestmove 1g1f"
        ]
    );
}

#[test]
fn a_change_of_player_says_why() {
    // change-on-drop as above: e1 falls by 150 on its third move, and e2 takes over.
    let d = decisions(
        "change-on-drop",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d 5g5f 5c5d",
        ],
        &[],
    );
    // The same player as before: nothing to explain.
    assert!(
        !d[..3].iter().flatten().any(|l| l.contains("[why]")),
        "{d:#?}"
    );
    assert_eq!(
        d[3],
        [
            "info string [O] bestmove 1g1f [１六歩(17)] [評価値 10] [e2]",
            "info string [why] 1g1f: E2 (e2) takes over from E1 (e1), whose score fell by 150 on its last move (G_ChangePlayerScoreDiff 100)",
            "info time T multipv 1 score cp 10 pv 1g1f",
            "bestmove 1g1f",
        ]
    );
    // change-every with G_ChangePlayerPlys 1: a new player at every move.
    let d = decisions(
        "change-every",
        "",
        &["position startpos", "position startpos moves 7g7f 3c3d"],
        &["setoption name G_ChangePlayerPlys value 1"],
    );
    assert_eq!(
        d[1][1],
        "info string [why] 1g1f: E2 (e2) takes over from E1 (e1), which played its 1 move (G_ChangePlayerPlys 1)"
    );
    // by-phase: the ply of each position names the phase that changed.
    let d = decisions(
        "by-phase",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 9",
        ],
        &[
            "setoption name G_ChuubanStartPlys value 3",
            "setoption name G_ShuubanStartPlys value 9",
        ],
    );
    assert_eq!(
        [&d[1][1], &d[2][1]],
        [
            "info string [why] 1g1f: E2 (e2) takes over from E1 (e1) at ply 3, from G_ChuubanStartPlys 3",
            "info string [why] 9g9f: E3 (e3) takes over from E2 (e2) at ply 9, from G_ShuubanStartPlys 9",
        ]
    );
}

#[test]
fn change_on_rise_keeps_a_falling_player() {
    let moves = players(
        "change-on-rise",
        "",
        &[
            "position startpos",
            "position startpos moves 7g7f 3c3d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d",
            "position startpos moves 7g7f 3c3d 2g2f 8c8d 5g5f 5c5d",
        ],
        &["setoption name G_ChangePlayerScoreDiff value 100"],
    );
    // e1's scores only fall (+100, +50, −100) and then rise by 100 (−100 → 0): rotate after.
    assert_eq!(
        moves,
        [
            "bestmove 7g7f",
            "bestmove 2g2f",
            "bestmove 5g5f",
            "bestmove 6g6f"
        ]
    );
}

const MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

#[test]
fn mate_member_overrides_with_a_verified_mate() {
    let normal = [
        "id name e1\ngo: sleep 300 ; info depth 3 score cp 900 pv 5c5b+ ; bestmove 5c5b+\n"
            .to_string(),
    ];
    let mut g = start(
        "詰探索エンジンとの合議",
        &normal,
        Some("id name tsume\nmate: checkmate G*5b\n"),
        "",
    );
    let lines = g.play(MATE1, BYO);
    assert!(
        lines.contains(&"info string checkmate G*5b".to_string()),
        "{lines:#?}"
    );
    let tail: Vec<String> = lines[lines.len() - 4..].to_vec();
    assert_eq!(
        tail,
        [
            "info score mate 1 pv G*5b",
            "info string [X] bestmove 5c5b+ [５二歩成(53)] [評価値 900] [e1]",
            "info string [O] [1手詰め]\u{3000}[５二金打] [tsume]",
            "bestmove G*5b",
        ]
    );
}

#[test]
fn a_false_mate_claim_is_ignored_and_a_true_one_wins() {
    // e1 claims a mate with a quiet opening move; optimistic would take it on trust.
    let scripts = [
        "id name e1\ngo: info depth 9 score mate 3 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: sleep 100 ; info depth 6 score cp 30 pv 2g2f 8c8d ; bestmove 2g2f ponder 8c8d\n".to_string(),
        "id name e3\ngo: sleep 200 ; info depth 4 score cp 10 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert!(
        lines.contains(&"info string [Warning] E1 (e1): mate 3 for 7g7f not confirmed by the mate solver (7g7f gives no check; only check sequences can be proven); its score is ignored".to_string()),
        "{lines:#?}"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 10] [e3]",
            "info string [O] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 30] [e2]",
            "info string [X] bestmove 7g7f [７六歩(77)] [評価値 -] [e1]",
            "info depth 6 time T multipv 1 score cp 30 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );

    // A real mate in one is confirmed and wins.
    let scripts = [
        "id name e1\ngo: info depth 1 score mate 1 pv G*5b ; bestmove G*5b\n".to_string(),
        "id name e2\ngo: info depth 3 score cp 900 pv 5c5b+ ; bestmove 5c5b+\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play(MATE1, BYO);
    assert!(!lines.iter().any(|l| l.contains("[Warning]")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove G*5b");

    // With G_MateVerifyMs 0 every claim is believed, as in the reference.
    let scripts = [
        "id name e1\ngo: info depth 9 score mate 3 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: info depth 6 score cp 30 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("setoption name G_MateVerifyMs value 0");
    let lines = g.play("position startpos", BYO);
    assert!(!lines.iter().any(|l| l.contains("[Warning]")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

#[test]
fn calibrated_scales_compare_win_rates_not_raw_numbers() {
    // e1 says +500 on a scale of 1000 cp per logistic unit (win rate 62 %), e2 +400 on a scale
    // of 400 (73 %): optimistic takes e1 raw, e2 calibrated; the lines print the raw scores.
    let scripts = [
        "id name e1\ngo: info depth 5 score cp 500 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: sleep 100 ; info depth 5 score cp 400 pv 2g2f ; bestmove 2g2f\n"
            .to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    let mut g = start(
        "optimistic",
        &scripts,
        None,
        "Engine1.Scale=1000\nEngine2.Scale=400\n",
    );
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 400] [e2]",
            "info string [X] bestmove 7g7f [７六歩(77)] [評価値 500] [e1]",
            // On the common scale: 400 × 600 / 400 against 500 × 600 / 1000.
            "info string [why] 2g2f: E2 (e2) has the highest calibrated score 600 (E1 300)",
            "info depth 5 time T multipv 1 score cp 400 pv 2g2f",
            "bestmove 2g2f",
        ]
    );
}

#[test]
fn black_view_scores_are_turned_to_the_side_to_move() {
    // White to move. e1 prints from Black's side (like gpsusi): -300 means White is +300.
    let scripts = [
        "id name e1\ngo: info depth 5 score cp -300 pv 3c3d ; bestmove 3c3d\n".to_string(),
        "id name e2\ngo: sleep 100 ; info depth 5 score cp 200 pv 8c8d ; bestmove 8c8d\n"
            .to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "Engine1.ScoreView=black\n");
    let lines = g.play("position startpos moves 7g7f", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 8c8d [８四歩(83)] [評価値 200] [e2]",
            "info string [O] bestmove 3c3d [３四歩(33)] [評価値 300] [e1]",
            "info depth 5 time T multipv 1 score cp 300 pv 3c3d",
            "bestmove 3c3d",
        ]
    );
}

#[test]
fn mate_member_without_a_mate_leaves_the_normal_move() {
    let normal = [
        "id name e1\ngo: sleep 200 ; info depth 3 score cp 40 pv 7g7f ; bestmove 7g7f\n"
            .to_string(),
    ];
    let mut g = start(
        "mate",
        &normal,
        Some("id name tsume\nmate: checkmate nomate\n"),
        "",
    );
    let lines = g.play("position startpos", BYO);
    let tail: Vec<String> = lines[lines.len() - 4..]
        .iter()
        .map(|l| common::mask_time(l))
        .collect();
    assert_eq!(
        tail,
        [
            "info string [X] [詰み無し] [tsume]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 40] [e1]",
            "info depth 3 time T multipv 1 score cp 40 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
}

/// Two members for `MateEngine.Guard`: e1 5c5b+ at +900 (the optimistic choice), e2 G*5b at
/// +800 after 100 ms.
fn guarded_pair() -> [String; 2] {
    [
        "id name e1\ngo: info depth 3 score cp 900 pv 5c5b+ ; bestmove 5c5b+\n".to_string(),
        "id name e2\ngo: sleep 100 ; info depth 3 score cp 800 pv G*5b ; bestmove G*5b\n"
            .to_string(),
    ]
}

#[test]
fn mate_guard_overrides_any_type_with_a_verified_mate() {
    let mut g = start(
        "optimistic",
        &guarded_pair(),
        Some("id name tsume\nmate: checkmate G*5b\n"),
        "MateEngine.Guard=true\n",
    );
    let lines = g.play(MATE1, BYO);
    assert!(
        lines.contains(&"info string checkmate G*5b".to_string()),
        "{lines:#?}"
    );
    // Optimism alone would play e1's 5c5b+ (+900); the verified mate decides instead.
    let tail: Vec<String> = lines[lines.len() - 5..].to_vec();
    assert_eq!(
        tail,
        [
            "info score mate 1 pv G*5b",
            "info string [O] bestmove G*5b [５二金打] [評価値 800] [e2]",
            "info string [X] bestmove 5c5b+ [５二歩成(53)] [評価値 900] [e1]",
            "info string [O] [1手詰め]\u{3000}[５二金打] [tsume]",
            "bestmove G*5b",
        ]
    );
}

#[test]
fn mate_guard_without_a_mate_leaves_the_types_choice() {
    let mut g = start(
        "optimistic",
        &guarded_pair(),
        Some("id name tsume\nmate: checkmate nomate\n"),
        "MateEngine.Guard=true\n",
    );
    let lines = g.play(MATE1, BYO);
    assert!(
        lines.contains(&"info string checkmate nomate".to_string()),
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+", "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("手詰め")), "{lines:#?}");
}

#[test]
fn without_the_guard_a_non_mate_type_ignores_the_mate_engine() {
    let mut g = start(
        "optimistic",
        &guarded_pair(),
        Some("id name tsume\nmate: checkmate G*5b\n"),
        "",
    );
    let lines = g.play(MATE1, BYO);
    assert!(!lines.iter().any(|l| l.contains("checkmate")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+", "{lines:#?}");
}

/// `MateEngine.MinCores`: under a clock on a machine with fewer CPUs the guard sits out (no
/// `go` reaches it, its mate does not decide; the GUI is told once, with the members that sit
/// out); bounded by nodes it plays and its mate decides. No machine has 100,000 CPUs.
#[test]
fn mate_guard_with_min_cores_sits_out_timed_rounds_only() {
    let dir = scratch_dir("guard-mincores");
    let log = dir.join("tsume.log");
    let pair = guarded_pair();
    let refs: Vec<&str> = pair.iter().map(String::as_str).collect();
    let mate = format!(
        "id name tsume\ntranscript: {}\nmate: checkmate G*5b\n",
        log.display()
    );
    let config = mock_config(
        &dir,
        "optimistic",
        &refs,
        Some(&mate),
        "MateEngine.Guard=true\nMateEngine.MinCores=100000\n",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    let gos = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("go"))
            .count()
    };

    // A clock: the optimistic choice stands, the guard is told out once and never asked.
    let lines = g.play(MATE1, BYO);
    let cpus = std::thread::available_parallelism().unwrap().get();
    let s = if cpus == 1 { "" } else { "s" };
    let info = format!(
        "info string [Info] E0 (tsume, MinCores 100000) sits out timed rounds: this machine has {cpus} CPU{s}"
    );
    assert!(lines.contains(&info), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("checkmate")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+", "{lines:#?}");
    let lines = g.play(MATE1, BYO);
    assert!(!lines.iter().any(|l| l.contains("[Info]")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+", "{lines:#?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(gos(), 0);

    // Nodes: the guard plays and its verified mate decides.
    let lines = g.play(MATE1, "go nodes 4000");
    assert_eq!(lines.last().unwrap(), "bestmove G*5b", "{lines:#?}");
    assert_eq!(gos(), 1);
}

#[test]
fn mate_guard_waits_for_the_mate_member_in_a_node_limited_round() {
    let mut g = start(
        "optimistic",
        &guarded_pair(),
        Some("id name tsume\nmate: sleep 300 ; checkmate G*5b\n"),
        "MateEngine.Guard=true\n",
    );
    // Both members answer within 100 ms; the mate member 300 ms later still decides.
    let lines = g.play(MATE1, "go nodes 4000");
    assert_eq!(lines.last().unwrap(), "bestmove G*5b", "{lines:#?}");
}

#[test]
fn a_false_mate_claim_is_ignored() {
    let normal =
        ["id name e1\ngo: sleep 300 ; info score cp 900 pv 5c5b+ ; bestmove 5c5b+\n".to_string()];
    let mut g = start(
        "mate",
        &normal,
        Some("id name tsume\nmate: checkmate 5c5b+\n"),
        "",
    );
    let lines = g.play(MATE1, BYO);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string [Error] E0: checkmate 5c5b+ is not a mate")),
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+");
}

#[test]
fn mate_sfen_sends_the_mate_member_a_plain_sfen() {
    let dir = scratch_dir("mate-sfen");
    let transcript = dir.join("mate.log");
    let mate = format!(
        "id name tsume\ntranscript: {}\nmate: checkmate nomate\n",
        transcript.display()
    );
    let normal = "id name e1\ngo: sleep 200 ; info score cp 40 pv 3c3d ; bestmove 3c3d\n";
    let config = mock_config(
        &dir,
        "詰探索エンジンとの合議（「脊尾詰」対応版）",
        &[normal],
        Some(&mate),
        "",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    let lines = g.play("position startpos moves 7g7f", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 3c3d");
    let log = std::fs::read_to_string(&transcript).unwrap();
    assert!(
        log.contains("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\ngo mate 10000"),
        "{log}"
    );
}

#[test]
fn mate_pv_searches_the_positions_along_the_pv() {
    let dir = scratch_dir("mate-pv");
    let transcript = dir.join("mate.log");
    let mate = format!(
        "id name tsume\noption name Foo type check default true\ntranscript: {}\nmate: checkmate nomate\n",
        transcript.display()
    );
    let normal =
        "id name e1\ngo: info depth 3 score cp 40 pv 7g7f 3c3d 2g2f ; sleep 400 ; bestmove 7g7f\n";
    let config = mock_config(
        &dir,
        "詰探索エンジンとの合議（読み筋の局面も詰探索）",
        &[normal],
        Some(&mate),
        "MateEngine.forPV.Count=2\n",
    );
    let mut g = Gougi::with_config(&config);
    let usi = g.handshake();
    for prefix in ["E0_Foo", "E11_Foo", "E12_Foo"] {
        let want = format!("option name {prefix} type check default true");
        assert!(usi.contains(&want), "{prefix}: {usi:#?}");
    }
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string pvMateTriedCount=")),
        "{lines:#?}"
    );
    let log = std::fs::read_to_string(&transcript).unwrap();
    // Positions after the PV's prefixes, as SFEN, with the PV mate time limit. The PV mate
    // engines share this transcript and write at the same time, so their lines may
    // interleave: look for whole lines, not for a pair.
    let lines: Vec<&str> = log.lines().collect();
    for want in [
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
        "position sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
        "go mate 5000",
    ] {
        assert!(lines.contains(&want), "{want}: {log}");
    }
}

// ----- faults -----------------------------------------------------------------------------

#[test]
fn a_crashing_member_is_reported_left_out_and_restarted() {
    let dir = scratch_dir("crash");
    let t2 = dir.join("e2.log");
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        format!("id name e2\ntranscript: {}\ngo: exit 3\ngo: info score cp 70 pv 2g2f ; bestmove 2g2f\n", t2.display()),
        "id name e3\ngo: sleep 100 ; info score cp 10 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &refs, None, ""));
    g.handshake();
    let lines = g.play("position startpos", BYO);
    assert!(
        lines
            .contains(&"info string [Error] E2 (e2) exited with code 3; restarting it".to_string()),
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    // The next isready restarts it; its script starts over (exit again on the first go).
    g.send("isready");
    g.until_prefix("readyok");
    let log = std::fs::read_to_string(&t2).unwrap();
    assert_eq!(log.matches("usi\n").count(), 2, "{log}");
}

#[test]
fn a_hung_member_cannot_make_gougi_lose_on_time() {
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: hang\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("position startpos");
    let t0 = Instant::now();
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    let elapsed = t0.elapsed();
    assert!(
        elapsed < Duration::from_millis(1000),
        "answered after {elapsed:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

#[test]
fn illegal_and_garbage_answers_are_discarded() {
    let scripts = [
        "id name e1\ngo: say <<garbage>> ; info score cp 900 pv 5e5d ; bestmove 5e5d\n".to_string(),
        "id name e2\ngo: sleep 50 ; bestmove 7g7z\n".to_string(),
        "id name e3\ngo: sleep 100 ; info score cp 10 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string [Error] E1 (e1): illegal bestmove 5e5d discarded")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "info string [Error] E2 (e2): unparsable \"bestmove 7g7z\" discarded"),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("<<garbage>>")));
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f");
}

#[test]
fn with_every_member_gone_gougi_still_plays_a_legal_move() {
    let scripts = ["id name e1\ngo: exit 1\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    let best = lines.last().unwrap();
    assert!(
        best.starts_with("bestmove ") && best != "bestmove resign",
        "{lines:#?}"
    );
}

#[test]
fn a_late_duplicate_answer_does_not_leak_into_the_next_move() {
    let scripts = ["id name e1\ngo: info score cp 1 pv 7g7f ; bestmove 7g7f ; bestmove 2g2f\ngo: info score cp 1 pv 8c8d ; sleep 100 ; bestmove 8c8d\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    assert_eq!(
        g.play("position startpos", BYO).last().unwrap(),
        "bestmove 7g7f"
    );
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        g.play("position startpos moves 7g7f", BYO).last().unwrap(),
        "bestmove 8c8d"
    );
}

#[test]
fn a_slow_usiok_is_waited_for() {
    let scripts = [
        "id name slow\noption name Foo type check default true\nusi: sleep 1500 ; usiok\n"
            .to_string(),
    ];
    let dir = scratch_dir("slow");
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &refs, None, ""));
    g.send("usi");
    let lines = g.until_prefix("usiok");
    assert!(
        lines.contains(&"option name E1_Foo type check default true".to_string()),
        "{lines:#?}"
    );
}

#[test]
fn a_broken_config_is_reported_and_gougi_exits_without_usiok() {
    let dir = scratch_dir("badconfig");
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        "Gougi.Type=nonsense\nEngine1.Path=builtin:search\n",
    )
    .unwrap();
    let mut g = Gougi::with_config(&config);
    g.send("usi");
    let first = g.next(Duration::from_secs(10)).expect("an error line");
    assert!(first.starts_with("info string [Error] "), "{first}");
    assert!(
        first.contains("SimpleGougi.config:1: Gougi.Type"),
        "{first}"
    );
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(1));
    assert!(!g.seen.iter().any(|l| l == "usiok"));
}

// ----- protocol -----------------------------------------------------------------------------

#[test]
fn usi_reexports_member_options_and_routes_setoption() {
    let dir = scratch_dir("options");
    let t1 = dir.join("e1.log");
    let t2 = dir.join("e2.log");
    let scripts = [
        format!("id name e1\noption name OwnBook type check default true\noption name USI_Hash type spin default 16 min 1 max 4096\noption name USI_AnalyseMode type check default false\ntranscript: {}\n", t1.display()),
        format!("id name e2\noption name Threads type spin default 1 min 1 max 8\ntranscript: {}\n", t2.display()),
    ];
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &refs, None, ""));
    g.send("usi");
    let lines = g.until_prefix("usiok");
    assert!(lines[0].starts_with("id name gougi"));
    let options: Vec<&String> = lines.iter().filter(|l| l.starts_with("option")).collect();
    assert_eq!(
        options,
        [
            "option name USI_Hash type spin default 256 min 1 max 1048576",
            "option name USI_Ponder type check default false",
            "option name Threads type spin default 2 min 1 max 1024",
            "option name E1_OwnBook type check default true",
            "option name E1_USI_Hash type spin default 16 min 1 max 4096",
            "option name E1_USI_AnalyseMode type check default false",
            "option name E2_Threads type spin default 1 min 1 max 8",
            "option name G_Margin type spin default 60 min 0 max 60000",
            "option name G_NetworkDelay type spin default 300 min 0 max 10000",
            "option name G_MultiPonder type check default false",
            "option name G_InfoRelay type combo default leader var leader var all var none",
            "option name G_Resign type combo default chosen var chosen var all",
            "option name G_EarlyAgreement type spin default 0 min 0 max 100",
            "option name G_TimeBank type spin default 0 min 0 max 90",
            "option name G_MateVerifyMs type spin default 200 min 0 max 10000",
            "option name G_OutputEncoding type combo default UTF-8 var UTF-8 var Shift_JIS",
            "option name G_BookFile type string default <empty>",
            "option name G_BookMoves type spin default 16 min 0 max 10000",
            "option name G_BookIgnoreRate type spin default 0 min 0 max 100",
            "option name G_BookEvalDiff type spin default 30 min 0 max 99999",
            "option name G_BookEvalBlackLimit type spin default 0 min -99999 max 99999",
            "option name G_BookEvalWhiteLimit type spin default -140 min -99999 max 99999",
            "option name G_BookDepthLimit type spin default 0 min 0 max 99999",
            "option name G_ConsiderBookMoveCount type check default false",
            "option name G_BookPvMoves type spin default 8 min 1 max 246",
            "option name G_BookSeed type spin default 0 min 0 max 2147483647",
            "option name G_Monitor type string default <empty>",
        ]
    );
    g.send("setoption name E1_OwnBook value false");
    g.send("setoption name E2_OwnBook value false"); // not declared by e2: dropped
    g.send("setoption name USI_Hash value 512");
    g.send("setoption name G_Margin value 300"); // gougi's own: consumed
                                                 // USI's reserved names: USI_Ponder to every member (USI has GUIs send it to all), the
                                                 // others only to members that declared them (e2 would answer "unknown option").
    g.send("setoption name USI_Ponder value true");
    g.send("setoption name USI_AnalyseMode value true");
    g.send("setoption name USI_OwnBook value false");
    g.send("isready");
    g.until_prefix("readyok");
    let log1 = std::fs::read_to_string(&t1).unwrap();
    let log2 = std::fs::read_to_string(&t2).unwrap();
    assert!(
        log1.contains("setoption name OwnBook value false\n"),
        "{log1}"
    );
    // USI_Hash is the budget of both members together.
    assert!(log1.contains("setoption name USI_Hash value 256\n"));
    assert!(!log2.contains("OwnBook"), "{log2}");
    assert!(log2.contains("setoption name USI_Hash value 256\n"));
    assert!(!log1.contains("G_Margin") && !log2.contains("G_Margin"));
    for log in [&log1, &log2] {
        assert!(
            log.contains("setoption name USI_Ponder value true\n"),
            "{log}"
        );
        assert!(!log.contains("USI_OwnBook"), "{log}");
    }
    assert!(log1.contains("setoption name USI_AnalyseMode value true\n"));
    assert!(!log2.contains("USI_AnalyseMode"), "{log2}");
}

/// Issue 65: the GUI's clock less `G_NetworkDelay` (300 ms, a CSA server's path, taken from
/// main time first), then less `G_Margin` (60 ms) for the members.
#[test]
fn members_get_a_clock_shortened_by_the_network_delay_and_the_margin() {
    let dir = scratch_dir("clock");
    let t1 = dir.join("e1.log");
    let script = format!(
        "id name e1\ntranscript: {}\ngo: bestmove 7g7f\n",
        t1.display()
    );
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &[&script], None, ""));
    g.handshake();
    g.play(
        "position startpos",
        "go btime 60000 wtime 50000 byoyomi 10000",
    );
    let log = std::fs::read_to_string(&t1).unwrap();
    assert!(
        log.contains("position startpos\ngo btime 59640 wtime 50000 byoyomi 10000\n"),
        "{log}"
    );
}

/// Issue 19: a member that keeps a margin of its own (`NetworkDelay2`, 1120 ms by default in
/// YaneuraOu) would stack it on `G_Margin` and think 1120 ms less than planned; gougi gives
/// it back on the clock it tells the member — its declared default, then what the GUI set.
#[test]
fn a_member_that_keeps_its_own_margin_gets_it_back() {
    let dir = scratch_dir("own-margin");
    let t1 = dir.join("e1.log");
    let script = format!(
        "id name e1\noption name NetworkDelay2 type spin default 500 min 0 max 10000\ntranscript: {}\ngo: bestmove 7g7f\n",
        t1.display()
    );
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &[&script], None, ""));
    g.handshake();
    g.play("position startpos", "go btime 0 wtime 0 byoyomi 1000");
    g.send("setoption name E1_NetworkDelay2 value 100");
    g.play("position startpos", "go btime 30000 wtime 0 byoyomi 0");
    let log = std::fs::read_to_string(&t1).unwrap();
    let gos: Vec<&str> = log.lines().filter(|l| l.starts_with("go ")).collect();
    // 1000 − G_NetworkDelay 300 (capped at a quarter: 250) − G_Margin 60 + 500 on the byoyomi;
    // then 30000 − 300 − 60 + 100 on the main time.
    assert_eq!(
        gos,
        [
            "go btime 0 wtime 0 byoyomi 1190",
            "go btime 29740 wtime 0 byoyomi 0"
        ],
        "{log}"
    );
}

#[test]
fn ponder_then_ponderhit_and_ponder_then_stop() {
    let scripts =
        ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f ponder 3c3d\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("position startpos moves 2g2f 8c8d");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    assert_eq!(
        g.next(Duration::from_millis(300)),
        None,
        "no bestmove before ponderhit"
    );
    g.send("ponderhit");
    assert_eq!(
        g.until_prefix("bestmove").last().unwrap(),
        "bestmove 7g7f ponder 3c3d"
    );
    g.send("position startpos moves 2g2f 8c8d 7g7f 3c3d");
    g.send("go ponder btime 0 wtime 0 byoyomi 2000");
    g.send("stop");
    let lines = g.until_prefix("bestmove");
    assert!(lines.last().unwrap().starts_with("bestmove "));
    // Exactly one bestmove for that go.
    assert_eq!(g.next(Duration::from_millis(300)), None);
}

#[test]
fn go_infinite_answers_on_stop() {
    let scripts = ["id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("position startpos");
    g.send("go infinite");
    assert_eq!(
        g.next(Duration::from_millis(300)).as_deref(),
        Some("info score cp 5 pv 7g7f")
    );
    g.send("stop");
    assert_eq!(g.until_prefix("bestmove").last().unwrap(), "bestmove 7g7f");
}

#[test]
fn go_mate_returns_a_verified_mate_or_nomate() {
    let normal = ["id name e1\n".to_string()];
    let mut g = start(
        "mate",
        &normal,
        Some("id name tsume\nmate: checkmate G*5b\nmate: checkmate nomate\n"),
        "",
    );
    g.send(MATE1);
    g.send("go mate 3000");
    assert_eq!(
        g.until_prefix("checkmate").last().unwrap(),
        "checkmate G*5b"
    );
    g.send("position startpos");
    g.send("go mate 3000");
    assert_eq!(
        g.until_prefix("checkmate").last().unwrap(),
        "checkmate nomate"
    );
}

#[test]
fn quit_and_end_of_input_end_every_member() {
    let scripts = ["id name e1\n".to_string()];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("quit");
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(0));
    let mut g = start("optimistic", &scripts, None, "");
    g.close();
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(0));
}

#[test]
fn majority_decides_once_the_vote_is_settled_and_stops_the_rest() {
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: sleep 50 ; info score cp 30 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e3\ngo: sleep 4000 ; info score cp 10 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("majority", &scripts, None, "");
    let (lines, elapsed) = timed_go(&mut g);
    assert!(
        elapsed < Duration::from_millis(2000),
        "waited {elapsed:?} for a settled vote"
    );
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 30] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 50] [e1]",
            "info time T multipv 1 score cp 50 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
}

#[test]
fn early_agreement_decides_optimistic_rounds_before_the_slowest() {
    let scripts = [
        "id name e1\ngo: info score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: sleep 50 ; info score cp 30 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e3\ngo: sleep 4000 ; info score cp 900 pv 2g2f ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("optimistic", &scripts, None, "");
    g.send("setoption name G_EarlyAgreement value 60");
    let (lines, elapsed) = timed_go(&mut g);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    assert!(elapsed < Duration::from_millis(2000));
}

#[test]
fn shift_jis_output_for_old_gui() {
    use std::io::{Read, Write};
    let dir = scratch_dir("sjis");
    let script = "id name e1\ngo: info score cp 5 pv 7g7f ; bestmove 7g7f\n";
    let config = mock_config(&dir, "optimistic", &[script], None, "");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["--config", config.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "usi\nsetoption name G_OutputEncoding value Shift_JIS\nisready\nposition startpos\ngo btime 0 wtime 0 byoyomi 2000").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    writeln!(stdin, "quit").unwrap();
    let mut raw = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut raw).unwrap();
    child.wait().unwrap();
    assert!(
        std::str::from_utf8(&raw).is_err(),
        "Japanese text is not UTF-8 any more"
    );
    let (text, _, errors) = encoding_rs::SHIFT_JIS.decode(&raw);
    assert!(!errors);
    assert!(
        text.contains("info string [O] bestmove 7g7f [７六歩(77)] [評価値 5] [e1]"),
        "{text}"
    );
}

#[test]
fn weighted_optimistic_scales_each_members_odds_by_its_weight() {
    // e2's +30 at weight 1.5 is 30 + 600 ln 1.5 = 273 on the common scale: above e1's +50.
    let mut g = start(
        "weighted-optimistic",
        &three(SECOND),
        None,
        "Engine2.Weight=1.5\n",
    );
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 2g2f [２六歩(27)] [評価値 10] [e3]",
            "info string [O] bestmove 2g2f ponder 8c8d [２六歩(27) ８四歩(83)] [評価値 30] [e2]",
            "info string [X] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 50] [e1]",
            "info depth 6 time T multipv 1 score cp 30 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );
    // Without the weight it is plain optimism.
    let mut g = start("重み付き楽観合議", &three(SECOND), None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f ponder 3c3d");
}

/// Three members with MultiPV lists whose first choices differ but who all list 2g2f second.
/// e1 and e2 offer `MultiPV` and keep a transcript; e3 offers nothing.
fn multipv_scripts(dir: &std::path::Path) -> [String; 3] {
    let mpv = "option name MultiPV type spin default 1 min 1 max 500";
    [
        format!("id name e1\n{mpv}\ntranscript: {}\ngo: info depth 5 multipv 1 score cp 60 pv 7g7f 3c3d ; info depth 5 multipv 2 score cp 50 pv 2g2f 8c8d ; bestmove 7g7f ponder 3c3d\n", dir.join("e1.log").display()),
        format!("id name e2\n{mpv}\ntranscript: {}\ngo: sleep 100 ; info depth 5 multipv 1 score cp 40 pv 5g5f 5c5d ; info depth 5 multipv 2 score cp 30 pv 2g2f 3c3d ; bestmove 5g5f ponder 5c5d\n", dir.join("e2.log").display()),
        format!("id name e3\ntranscript: {}\ngo: sleep 200 ; info depth 6 multipv 1 score cp 45 pv 6i7h ; info depth 6 multipv 2 score cp 20 pv 2g2f 4a3b ; info depth 6 multipv 3 score cp 10 pv 9g9f ; info depth 6 multipv 4 score cp 900 pv 5a5b ; bestmove 6i7h\n", dir.join("e3.log").display()),
    ]
}

/// gougi over [`multipv_scripts`] with `policy` (in a fresh folder, which also holds the
/// members' transcripts `e1.log` … `e3.log`), not yet through `usi`.
fn multipv_members(tag: &str, policy: &str) -> (std::path::PathBuf, Gougi) {
    let dir = scratch_dir(tag);
    let scripts = multipv_scripts(&dir);
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let g = Gougi::with_config(&mock_config(&dir, policy, &refs, None, ""));
    (dir, g)
}

#[test]
fn multipv_vote_plays_the_move_every_list_shares() {
    let (dir, mut g) = multipv_members("multipv-vote", "multipv-vote");
    let usi = g.handshake();
    assert!(usi.contains(&"option name G_MultiPV type spin default 3 min 1 max 20".to_string()));
    assert!(usi.contains(
        &"option name G_VoteScoring type combo default winrate var winrate var borda".to_string()
    ));
    let lines = g.play("position startpos", BYO);
    // No member's first choice won: all [X]; the move comes from e1's second line (e1 and e2
    // both placed it second; the lower number's line is played). e3's 4th line (an illegal
    // move for Black) does not count.
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 6i7h [７八金(69)] [評価値 45] [e3]",
            "info string [X] bestmove 5g5f ponder 5c5d [５六歩(57) ５四歩(53)] [評価値 40] [e2]",
            "info string [X] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 60] [e1]",
            "info string [vote] 2g2f: 1.542 win-rate points from 3 of 3 lists",
            "info depth 5 time T multipv 1 score cp 50 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );
    g.send("quit");
    g.wait_exit(Duration::from_secs(5));
    // Members that offer MultiPV are asked for G_MultiPV lines before `isready`; e3 is not.
    let heard = |n: u32| std::fs::read_to_string(dir.join(format!("e{n}.log"))).unwrap();
    for n in [1, 2] {
        assert!(
            heard(n).contains("setoption name MultiPV value 3\nisready\n"),
            "{}",
            heard(n)
        );
    }
    assert!(!heard(3).contains("MultiPV"));
}

#[test]
fn multipv_vote_by_borda_count() {
    let (dir, mut g) = multipv_members("multipv-borda", "候補手投票合議");
    g.handshake();
    g.send("setoption name G_VoteScoring value borda");
    g.send("setoption name G_MultiPV value 2");
    g.send("isready");
    g.until_prefix("readyok");
    let lines = g.play("position startpos", BYO);
    // k = 2: 2g2f 1 + 1 + 1; every first choice 2; e3's third line earns nothing.
    let d = decision(&lines);
    assert_eq!(
        d[3],
        "info string [vote] 2g2f: 3.000 Borda points from 3 of 3 lists"
    );
    assert_eq!(d[5], "bestmove 2g2f ponder 8c8d");
    g.send("quit");
    g.wait_exit(Duration::from_secs(5));
    assert!(std::fs::read_to_string(dir.join("e1.log"))
        .unwrap()
        .contains("setoption name MultiPV value 2\nisready\n"));
}

#[test]
fn multipv_vote_follows_a_first_choice_when_lists_agree_on_it() {
    // e1's first choice is e2's second: it wins, played as e1's own answer.
    let scripts = [
        "id name e1\ngo: info depth 5 multipv 1 score cp 80 pv 7g7f 3c3d ; info depth 5 multipv 2 score cp 10 pv 9g9f ; bestmove 7g7f ponder 3c3d\n".to_string(),
        "id name e2\ngo: sleep 100 ; info depth 5 multipv 1 score cp 20 pv 2g2f ; info depth 5 multipv 2 score cp 15 pv 7g7f 8c8d ; bestmove 2g2f\n".to_string(),
    ];
    let mut g = start("multipv-vote", &scripts, None, "");
    let lines = g.play("position startpos", BYO);
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 20] [e2]",
            "info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) ３四歩(33)] [評価値 80] [e1]",
            "info string [vote] 7g7f: 1.040 win-rate points from 2 of 2 lists",
            "info depth 5 time T multipv 1 score cp 80 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn multipv_vote_decides_once_the_lead_cannot_be_caught() {
    // Borda with one candidate each: two votes for 7g7f lead by 2, and the one member still
    // thinking can add at most 1 to any move, so gougi decides without waiting for it.
    let scripts = [
        "id name e1\ngo: info depth 3 score cp 50 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e2\ngo: sleep 50 ; info depth 3 score cp 30 pv 7g7f ; bestmove 7g7f\n".to_string(),
        "id name e3\ngo: sleep 4000 ; info depth 3 score cp 900 pv 2g2f ; bestmove 2g2f\n"
            .to_string(),
    ];
    let mut g = start("multipv-vote", &scripts, None, "");
    g.send("setoption name G_VoteScoring value borda");
    g.send("setoption name G_MultiPV value 1");
    let (lines, elapsed) = timed_go(&mut g);
    assert!(elapsed < Duration::from_millis(2000), "{elapsed:?}");
    assert_eq!(
        decision(&lines),
        [
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 30] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 50] [e1]",
            "info string [vote] 7g7f: 2.000 Borda points from 2 of 2 lists",
            "info depth 3 time T multipv 1 score cp 50 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
    // With win-rate points: at +50 and +30 the two answers hold 0.521 + 0.512 = 1.033, more
    // than the 1.0 e3 could add, so gougi decides at once too; at −50 and −30 they hold
    // 0.479 + 0.488 = 0.967 < 1.0, so it waits for e3, whose lone 2g2f (σ(900/600) = 0.82)
    // still loses.
    let mut g = start("multipv-vote", &scripts, None, "");
    let (lines, elapsed) = timed_go(&mut g);
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    assert!(elapsed < Duration::from_millis(2000), "{elapsed:?}");
    let behind: Vec<String> = scripts
        .iter()
        .map(|s| s.replace("cp 50", "cp -50").replace("cp 30", "cp -30"))
        .collect();
    let mut g = start("multipv-vote", &behind, None, "");
    let (lines, elapsed) = timed_go(&mut g);
    assert!(elapsed >= Duration::from_millis(3500), "{elapsed:?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
}

/// `Engine<N>.MinCores`: under a clock a member that asks for more CPUs than the machine has
/// sits the round out (no `go` reaches it, its move is not weighed); bounded by nodes it plays.
/// The first member always plays. No machine has 100,000 CPUs, every machine has one.
#[test]
fn min_cores_members_sit_out_timed_rounds_only() {
    let dir = scratch_dir("mincores");
    let logs: Vec<_> = (1..=3).map(|n| dir.join(format!("e{n}.log"))).collect();
    let member = |n: usize, cp: i32, mv: &str| {
        format!(
            "id name e{n}\ntranscript: {}\ngo: info depth 5 score cp {cp} pv {mv} ; bestmove {mv}\n",
            logs[n - 1].display()
        )
    };
    let scripts = [
        member(1, 50, "7g7f"),
        member(2, 30, "2g2f"),
        member(3, 90, "6i7h"),
    ];
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let config = mock_config(
        &dir,
        "optimistic",
        &refs,
        None,
        "Engine1.MinCores=100000\nEngine2.MinCores=1\nEngine3.MinCores=100000\n",
    );
    let mut g = Gougi::with_config(&config);
    g.handshake();
    let gos = |log: &std::path::Path| {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("go"))
            .count()
    };

    // Nodes: everyone plays, and e3's +90 wins.
    let lines = g.play("position startpos", "go nodes 1000");
    assert!(!lines.iter().any(|l| l.contains("[Info]")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 6i7h");

    // A clock: e3 sits out, once announced; e1 (first, never left out) and e2 play.
    let lines = g.play("position startpos", BYO);
    let cpus = std::thread::available_parallelism().unwrap().get();
    let s = if cpus == 1 { "" } else { "s" };
    let info = format!(
        "info string [Info] E3 (e3, MinCores 100000) sits out timed rounds: this machine has {cpus} CPU{s}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("[Info]")).count(),
        1,
        "{lines:#?}"
    );
    assert!(lines.contains(&info), "{lines:#?}");
    assert_eq!(
        decision(&lines),
        [
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 30 （前回30 差分0）] [e2]",
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 50 （前回50 差分0）] [e1]",
            "info depth 5 time T multipv 1 score cp 50 pv 7g7f",
            "bestmove 7g7f",
        ]
    );
    let lines = g.play("position startpos", BYO);
    assert!(!lines.iter().any(|l| l.contains("[Info]")), "{lines:#?}");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    // The transcripts: e1 and e2 got all three `go`s, e3 only the node-bound one.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(logs.iter().map(|l| gos(l)).collect::<Vec<_>>(), [3, 3, 1]);
}

/// What a member says while it loads (between `isready` and its `readyok`: which evaluation
/// file, or why not) reaches the GUI under the member's label, at most 8 lines per `isready`,
/// so a chatty loader cannot flood the GUI's pane.
#[test]
fn a_members_loading_messages_reach_the_gui_capped() {
    let loading: String = (1..=12)
        .map(|k| format!("info string loading part {k} ; "))
        .collect();
    let scripts = [
        format!("id name e1\nisready: {loading}readyok\ngo: info depth 1 score cp 5 pv 7g7f ; bestmove 7g7f\n"),
        "id name e2\ngo: info depth 1 score cp 5 pv 7g7f ; bestmove 7g7f\n".to_owned(),
    ];
    let dir = scratch_dir("loading-messages");
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "majority", &refs, None, ""));
    g.send("usi");
    g.until_prefix("usiok");
    let expected: Vec<String> = (1..=8)
        .map(|k| format!("info string E1 (e1): loading part {k}"))
        .collect();
    for _ in 0..2 {
        // Counted afresh at every `isready`.
        g.send("isready");
        let ready = g.until_prefix("readyok");
        let said: Vec<String> = ready
            .iter()
            .filter(|l| l.starts_with("info string"))
            .cloned()
            .collect();
        assert_eq!(said, expected, "{ready:#?}");
    }
    let lines = g.play("position startpos", "go nodes 1000");
    assert_eq!(lines.last().unwrap(), "bestmove 7g7f");
    assert!(!lines.iter().any(|l| l.contains("loading")), "{lines:#?}");
}
