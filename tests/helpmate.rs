//! Helpmates (協力詰め, `gougi mate` with `MateKind helpmate`): every answer checked by the rules
//! core independently of the solver, lengths checked against a plain brute-force search, and the
//! USI mode driven over stdin/stdout of the real binary.
//!
//! The independent parts use only `gougi::shogi`'s legal-move list and check state: the line
//! checker plays each move only if it is in the legal list, asks "in check?" after every
//! attacker move and "in check with no legal move?" at the end; the brute force takes the
//! attacker's moves as the legal moves that leave the defender in check (not the solver's check
//! generator) and has no table, no bounds and no ordering.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::Gougi;
use gougi::mate::core_board::CoreBoard;
use gougi::mate::helpmate::{
    solve_helpmate, HelpLimits, HelpOutcome, HelpTable, DEFAULT_MAX_PLIES, INFINITE,
};
use gougi::mate::problems::parse_problems;
use gougi::mate::{solve, MateMode, MateOutcome, MateTable, SolveLimits};
use gougi::shogi::{Move, Position};

// ------------------------------------------------------------ the independent checks

/// The line is a helpmate from `sfen`: odd length, every move in the rules core's legal list,
/// every attacker move a check, the end checkmate. Returns the length.
fn check_helpmate(sfen: &str, line: &[String]) -> Result<usize, String> {
    let mut pos = Position::from_sfen(sfen).map_err(|e| e.to_string())?;
    if line.len() % 2 == 0 {
        return Err(format!("even length {}", line.len()));
    }
    for (i, text) in line.iter().enumerate() {
        let m = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.to_string() == *text)
            .ok_or_else(|| format!("ply {}: {text} is not a legal move", i + 1))?;
        pos.do_move(m);
        if i % 2 == 0 && !pos.in_check() {
            return Err(format!("ply {}: {text} is not a check", i + 1));
        }
    }
    if !pos.in_check() || !pos.legal_moves().is_empty() {
        return Err("the final position is not checkmate".into());
    }
    Ok(line.len())
}

/// Whether a helpmate of at most `plies` (odd) plies exists: plain depth-first search.
fn brute_exists(pos: &mut Position, plies: usize) -> bool {
    for m in pos.legal_moves().iter().copied() {
        pos.do_move(m);
        let found = pos.in_check()
            && (pos.legal_moves().is_empty()
                || (plies >= 3
                    && pos.legal_moves().iter().copied().any(|d| {
                        pos.do_move(d);
                        let f = brute_exists(pos, plies - 2);
                        pos.undo_move(d);
                        f
                    })));
        pos.undo_move(m);
        if found {
            return true;
        }
    }
    false
}

/// The shortest helpmate length up to `max` by brute force, `None` if none that short.
fn brute_shortest(sfen: &str, max: usize) -> Option<usize> {
    let mut pos = Position::from_sfen(sfen).unwrap();
    (1..=max).step_by(2).find(|&n| brute_exists(&mut pos, n))
}

// ------------------------------------------------------------ the solver

fn help(sfen: &str, max_plies: u32) -> HelpOutcome {
    let pos = Position::from_sfen(sfen).unwrap();
    let stop = AtomicBool::new(false);
    let limits = HelpLimits {
        deadline: Some(Instant::now() + Duration::from_secs(60)),
        stop: &stop,
        max_plies,
        max_nodes: None,
    };
    solve_helpmate(&pos, &mut HelpTable::new(16), &limits, None).0
}

fn text(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// The helpmate line of `sfen`, checked by the rules core; its length.
fn checked_help(sfen: &str) -> (usize, Vec<String>) {
    match help(sfen, DEFAULT_MAX_PLIES) {
        HelpOutcome::Mate(moves) => {
            let line = text(&moves);
            match check_helpmate(sfen, &line) {
                Ok(n) => (n, line),
                Err(e) => panic!("{sfen}: {line:?} is not a helpmate: {e}"),
            }
        }
        other => panic!("{sfen}: no helpmate: {other:?}"),
    }
}

/// The shortest direct (forced) mate by the df-pn solver: its length, or `None` for no mate.
fn direct(sfen: &str) -> Option<usize> {
    let stop = AtomicBool::new(false);
    let limits = SolveLimits {
        deadline: Some(Instant::now() + Duration::from_secs(60)),
        stop: &stop,
        mode: MateMode::Shortest,
        double_count: false,
        max_nodes: None,
    };
    let mut board = CoreBoard::new(Position::from_sfen(sfen).unwrap());
    match solve(&mut board, &mut MateTable::new(16), &limits, None).0 {
        MateOutcome::Mate {
            moves,
            minimal: true,
        } => Some(moves.len()),
        MateOutcome::NoMate => None,
        other => panic!("{sfen}: direct mate not settled: {other:?}"),
    }
}

// ------------------------------------------------------------ known lengths

#[test]
fn a_one_ply_helpmate() {
    // G*5b, protected by the pawn on 5c: mate at once (and also the direct mate).
    let sfen = "4k4/9/4P4/9/9/9/9/9/9 b G 1";
    let (n, line) = checked_help(sfen);
    assert_eq!((n, line[0].as_str()), (1, "G*5b"));
    assert_eq!(brute_shortest(sfen, 1), Some(1));
}

#[test]
fn a_helpmate_shorter_than_the_direct_mate() {
    // King on 9a, a rook on 7d and a rook in hand. The direct mate takes 5 plies
    // (7d7a+ K9b R*8b K9c 7a9a): R*9b is met by K×9b, the dropped rook being unprotected.
    // Cooperating, the defender answers R*9b with K8a instead of capturing, and 7d7b+ mates at
    // once: the dragon covers 7a and 8b and guards 9b's rook, the rook covers 9a and 8b.
    let sfen = "k8/9/9/2R6/9/9/9/9/9 b R 1";
    let (n, line) = checked_help(sfen);
    assert_eq!(n, 3, "{line:?}");
    assert_eq!(brute_shortest(sfen, 3), Some(3));
    assert_eq!(direct(sfen), Some(5));
}

#[test]
fn a_three_ply_helpmate_where_the_direct_mate_takes_23() {
    // Found by a random search of small positions (the exploration is not kept): the forced mate
    // chases the king from 5c across the board for 23 plies; cooperating, it steps to 4c beside
    // the rook's file and 4f5f, 5f5b+ close the net in 3.
    let sfen = "9/6R2/3nk4/9/9/5RN2/9/9/9 b - 1";
    let (n, _) = checked_help(sfen);
    assert_eq!(n, 3);
    assert_eq!(brute_shortest(sfen, 3), Some(3));
    assert_eq!(direct(sfen), Some(23));
}

#[test]
fn a_helpmate_where_there_is_no_direct_mate_at_all() {
    // Two golds in hand against a bare king in the middle: no forced mate exists, but the king
    // can walk to the corner with the golds in tow.
    let sfen = "9/9/9/9/4k4/9/9/9/9 b 2G 1";
    let (n, _) = checked_help(sfen);
    assert_eq!(n, 9);
    assert_eq!(direct(sfen), None);
}

#[test]
fn lengths_agree_with_the_brute_force_on_small_positions() {
    // Small positions whose helpmates the exploration found at 3 and 5 plies: the solver's
    // length must be the brute force's shortest, and no shorter line may exist.
    for (sfen, len) in [
        ("7k1/9/9/8P/9/9/9/9/9 b S 1", 3),
        ("9/k8/N8/9/9/9/9/9/9 b 2G 1", 3),
        ("9/1k7/2R6/9/9/9/9/9/9 b S 1", 3),
        ("9/6l2/7k1/9/8+B/7B1/9/9/9 b GS 1", 3),
        ("5lk2/4G4/9/9/9/9/9/9/9 b L 1", 5),
        ("9/9/7Nk/8N/9/9/9/9/9 b R 1", 5),
        ("3B1k3/4l4/9/9/9/9/9/9/9 b S 1", 5),
        ("7k1/9/9/8N/9/9/9/9/9 b B 1", 5),
    ] {
        let (n, line) = checked_help(sfen);
        assert_eq!(n, len, "{sfen}: {line:?}");
        assert_eq!(brute_shortest(sfen, len), Some(len), "{sfen}");
    }
}

#[test]
fn no_helpmate_within_the_cap_is_proven() {
    // A lone gold against a bare king: the king can always take the unprotected gold, so no
    // helpmate exists, but the king and gold can wander for ever: the answer is "none within
    // the cap", with the bound the search proved (the next length it would have tried).
    let sfen = "4k4/9/9/9/9/9/9/9/9 b G 1";
    assert_eq!(help(sfen, 9), HelpOutcome::NoMate { bound: 11 });
    assert_eq!(brute_shortest(sfen, 9), None);
}

#[test]
fn no_helpmate_at_any_length_is_proven_when_the_tree_ends() {
    // P*1b is the only check; whichever piece takes the pawn, the attacker has nothing left.
    let sfen = "7sk/7s1/9/9/9/9/9/9/9 b P 1";
    assert_eq!(help(sfen, 1023), HelpOutcome::NoMate { bound: INFINITE });
    assert_eq!(brute_shortest(sfen, 5), None);
    // No check at all.
    assert_eq!(
        help(
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            31
        ),
        HelpOutcome::NoMate { bound: INFINITE }
    );
}

#[test]
fn pawn_drop_mate_is_not_a_helpmate() {
    // P*1b would mate (the king's flights hold its own lance and pawn, which cannot take on
    // 1b, and the knight guards the pawn): 打ち歩詰め, illegal by the rules core, so never part
    // of an answer; the brute force (the core's legal moves) settles the shortest length.
    let sfen = "7lk/7p1/9/7N1/9/9/9/9/9 b P 1";
    let pos = Position::from_sfen(sfen).unwrap();
    let drop = pos.parse_usi_move("P*1b");
    assert_eq!(drop, Err(gougi::shogi::IllegalMoveKind::PawnDropMate));
    // Without it the knight alone is left: 2d1b+ K×1b, then P*1c and the pawn are taken or
    // sidestepped, and the attacker runs out of checks: no helpmate at any length.
    assert_eq!(help(sfen, 31), HelpOutcome::NoMate { bound: INFINITE });
    assert_eq!(brute_shortest(sfen, 7), None);
}

#[test]
fn published_problems_have_their_lengths() {
    // tests/data/helpmate/README.md: fmrs's collection, lengths as published.
    let path = format!(
        "{}/tests/data/helpmate/published.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let problems = parse_problems(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(problems.len(), 4);
    for p in problems {
        let start = Instant::now();
        let outcome = help(&p.sfen, 511);
        let HelpOutcome::Mate(moves) = outcome else {
            panic!("line {}: {outcome:?}", p.line_no);
        };
        let line = text(&moves);
        let len = check_helpmate(&p.sfen, &line).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("line {}: {len} plies in {:?}", p.line_no, start.elapsed());
        assert_eq!(Some(len as u16), p.expected, "line {}", p.line_no);
    }
}

// ------------------------------------------------------------ stop, in-process

/// A lone rook against a bare king: no helpmate, and the search runs for many seconds before
/// it reaches a 1,023-ply cap.
const LONG: &str = "9/9/9/9/4k4/9/9/9/9 b R 1";

#[test]
fn stop_ends_the_solve_at_once() {
    let pos = Position::from_sfen(LONG).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let raiser = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let limits = HelpLimits {
        deadline: None,
        stop: &stop,
        max_plies: 1023,
        max_nodes: None,
    };
    let (outcome, stats) = solve_helpmate(&pos, &mut HelpTable::new(16), &limits, None);
    let ended = Instant::now();
    let raised = raiser.join().unwrap();
    let latency = ended.saturating_duration_since(raised);
    eprintln!(
        "stopped after {} nodes, {latency:?} after the stop",
        stats.nodes
    );
    assert_eq!(outcome, HelpOutcome::Timeout);
    assert!(latency < Duration::from_millis(100), "{latency:?}");
}

#[test]
fn a_node_budget_gives_the_same_answer_every_run() {
    let pos = Position::from_sfen(LONG).unwrap();
    let stop = AtomicBool::new(false);
    let limits = HelpLimits {
        deadline: None,
        stop: &stop,
        max_plies: 1023,
        max_nodes: Some(20_000),
    };
    let runs: Vec<_> = (0..2)
        .map(|_| solve_helpmate(&pos, &mut HelpTable::new(4), &limits, None))
        .collect();
    assert_eq!(runs[0].0, HelpOutcome::Timeout);
    assert!((20_000..20_000 + 300).contains(&runs[0].1.nodes));
    assert_eq!(runs[0].1.nodes, runs[1].1.nodes);
}

// ------------------------------------------------------------ the USI engine

fn start() -> Gougi {
    let mut e = Gougi::start(&["mate"]);
    e.send("usi");
    let lines = e.until_prefix("usiok");
    assert!(lines.contains(
        &"option name MateKind type combo default normal var normal var helpmate".to_string()
    ));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name HelpmateMaxPly type spin")));
    e.send("setoption name USI_Hash value 16");
    e.send("setoption name MateKind value helpmate");
    e.send("isready");
    e.until(Duration::from_secs(20), |l| l == "readyok");
    e
}

fn answer(e: &mut Gougi) -> String {
    e.until(Duration::from_secs(60), |l| l.starts_with("checkmate"))
        .pop()
        .unwrap()
}

fn moves_of(answer: &str) -> Vec<String> {
    answer
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect()
}

#[test]
fn usi_round_trip() {
    let mut e = start();
    let sfen = "k8/9/9/2R6/9/9/9/9/9 b R 1";
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate 20000");
    let line = moves_of(&answer(&mut e));
    assert_eq!(check_helpmate(sfen, &line), Ok(3), "{line:?}");
    // A nomate proven at any length, with its info string.
    e.send("position sfen 7sk/7s1/9/9/9/9/9/9/9 b P 1");
    e.send("go mate infinite");
    let lines = e.until(Duration::from_secs(60), |l| l.starts_with("checkmate"));
    assert_eq!(lines.last().unwrap(), "checkmate nomate");
    assert!(lines.contains(&"info string no helpmate at any length".to_string()));
    // Within the cap.
    e.send("setoption name HelpmateMaxPly value 9");
    e.send("position sfen 4k4/9/9/9/9/9/9/9/9 b G 1");
    e.send("go mate 20000");
    let lines = e.until(Duration::from_secs(60), |l| l.starts_with("checkmate"));
    assert_eq!(lines.last().unwrap(), "checkmate nomate");
    assert!(lines.contains(&"info string no helpmate within 9 plies".to_string()));
    // A bad cap is refused and the old one kept.
    e.send("setoption name HelpmateMaxPly value 0");
    e.until_prefix("info string error: bad HelpmateMaxPly");
    // Back to normal mates: the same position is the direct mate in 5.
    e.send("setoption name MateKind value normal");
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate 20000");
    let line = moves_of(&answer(&mut e));
    assert_eq!(check_helpmate(sfen, &line), Ok(5), "{line:?}");
    // `position startpos moves …` with the attacker to move after the moves (White here).
    e.send("setoption name MateKind value helpmate");
    e.send("setoption name HelpmateMaxPly value 31");
    e.send("position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e");
    e.send("go mate 20000");
    let line = moves_of(&answer(&mut e));
    let pos = Position::from_usi_position("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e").unwrap();
    let sfen = pos.to_sfen();
    check_helpmate(&sfen, &line).unwrap_or_else(|err| panic!("{line:?}: {err}"));
    e.send("quit");
}

/// How long an answer may take after `stop` or the limit (generous: a loaded shared machine;
/// the search looks at the flag every 256 nodes, well under a millisecond).
const BOUND: Duration = Duration::from_millis(300);

#[test]
fn usi_stop_and_the_go_mate_limit_are_answered_at_once() {
    for delay in [50u64, 500] {
        let mut e = start();
        e.send("setoption name HelpmateMaxPly value 1023");
        e.send(&format!("position sfen {LONG}"));
        e.send("go mate infinite");
        e.silent_for(Duration::from_millis(delay), "checkmate");
        let sent = Instant::now();
        e.send("stop");
        let got = answer(&mut e);
        let latency = sent.elapsed();
        eprintln!("stop after {delay} ms: {got} in {latency:?}");
        assert_eq!(got, "checkmate timeout");
        assert!(latency < BOUND, "{latency:?}");
    }
    let mut e = start();
    e.send("setoption name HelpmateMaxPly value 1023");
    e.send(&format!("position sfen {LONG}"));
    let sent = Instant::now();
    e.send("go mate 300");
    let got = answer(&mut e);
    let took = sent.elapsed();
    eprintln!("go mate 300: {got} in {took:?}");
    assert_eq!(got, "checkmate timeout");
    assert!(took < Duration::from_millis(300) + BOUND, "{took:?}");
}
