//! Tests of the built-in search: mates found, rules of repetition and declaration, every
//! `go` variant through the real binary, `stop`/`ponderhit` answered, and deterministic node
//! counts on one thread.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use gougi::search::alphabeta::SearchLimits;
use gougi::search::engine::parse_position;
use gougi::search::value::Value;
use gougi::search::Searcher;

// ---------------------------------------------------------------------------------------------
// Library-level tests.
// ---------------------------------------------------------------------------------------------

/// `(sfen, expected plies)` of the problems of `file` with the given length.
fn tsume(file: &str, plies: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/tsume/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("tsume file");
    text.lines()
        .filter(|l| l.starts_with("sfen "))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 6 && f[5] == plies).then(|| f[..5].join(" "))
        })
        .collect()
}

fn search_depth(pos_text: &str, depth: i32) -> gougi::search::alphabeta::SearchOutcome {
    let pos = parse_position(pos_text).expect("test position");
    let mut s = Searcher::new(16, 1);
    s.search(
        &pos,
        SearchLimits {
            depth: Some(depth),
            nodes: None,
            multipv: 1,
        },
        None,
        None,
    )
}

#[test]
fn finds_mate_in_one() {
    let mut problems = tsume("tanuki_generated_sample.txt", "1");
    problems.extend(tsume("antma_edge_cases.txt", "1"));
    assert!(problems.len() >= 20);
    for p in &problems {
        let out = search_depth(p, 2);
        let best = out.best.expect("a move");
        assert_eq!(
            best.score,
            Value::mate_in(1),
            "{p}: {} {}",
            best.mv,
            best.score
        );
        // The move really mates: the reply position has no legal move.
        let mut pos = parse_position(p).unwrap();
        pos.do_move(best.mv);
        assert!(pos.in_check(), "{p}");
        assert!(pos.legal_moves().is_empty(), "{p}: {}", best.mv);
    }
}

#[test]
fn finds_mate_in_three() {
    let mut problems = tsume("tanuki_generated_sample.txt", "3");
    problems.truncate(10);
    problems.extend(
        tsume("yaneuraou_mate_db_heads.txt", "3")
            .into_iter()
            .take(3),
    );
    assert!(problems.len() >= 10);
    for p in &problems {
        let out = search_depth(p, 6);
        let best = out.best.expect("a move");
        assert_eq!(
            best.score,
            Value::mate_in(3),
            "{p}: {} {}",
            best.mv,
            best.score
        );
    }
}

#[test]
fn mated_side_reports_mate_against_it() {
    // After a mate-in-1 move, the defender (if not yet mated) or the position is lost:
    // take a 3-ply problem, play the first mating-line move, the defender is mated in 2.
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/tsume/tanuki_generated_sample.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("sfen ") && l.split_whitespace().nth(5) == Some("3"))
        .unwrap();
    let f: Vec<&str> = line.split_whitespace().collect();
    let pos = format!("{} moves {}", f[..5].join(" "), f[6]);
    let out = search_depth(&pos, 5);
    assert_eq!(out.best.unwrap().score, Value::mated_in(2), "{pos}");
}

#[test]
fn node_count_is_deterministic_on_one_thread() {
    let p = "startpos moves 7g7f 3c3d 2g2f";
    // Deep enough for a few thousand nodes whatever the move ordering of the day.
    let a = search_depth(p, 9);
    let b = search_depth(p, 9);
    assert!(a.nodes > 1000);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.best.unwrap().mv, b.best.unwrap().mv);
}

#[test]
fn wins_material_when_offered() {
    // White's bishop on 5e hangs to Black's pawn-free rook file: the search must take it.
    // Black: rook 5h, king 5i; White: king 5a, bishop 5e (undefended).
    let out = search_depth("sfen 4k4/9/9/9/4b4/9/9/4R4/4K4 b - 1", 4);
    let best = out.best.unwrap();
    assert_eq!(best.mv.to_string(), "5h5e", "{}", best.score);
    assert!(best.score.0 > 500);
}

#[test]
fn perpetual_check_loses_and_repetition_draws() {
    // Black's rook has checked on every move of two cycles; checking again repeats the
    // position with a perpetual check (連続王手の千日手): that move is lost for Black.
    let p = "sfen 8k/9/9/9/9/9/9/9/K6R1 b - 1 moves 2i1i 1a2a 1i2i 2a1a 2i1i 1a2a 1i2i 2a1a";
    let pos = parse_position(p).unwrap();
    let n = gougi::search::movepick::root_moves(&pos).len();
    let mut s = Searcher::new(16, 1);
    let out = s.search(
        &pos,
        SearchLimits {
            depth: Some(4),
            nodes: None,
            multipv: n,
        },
        None,
        None,
    );
    let check = out
        .lines
        .iter()
        .find(|rm| rm.mv.to_string() == "2i1i")
        .expect("2i1i searched");
    assert!(check.score.is_loss(), "{}", check.score);
    assert_ne!(out.best.unwrap().mv.to_string(), "2i1i");

    // White, a rook down, can repeat the position instead: a draw (0) beats the material.
    let p = "sfen 4k4/9/9/9/9/9/9/9/R3K4 b - 1 moves 5i4i 5a4a 4i5i";
    let out = search_depth(p, 4);
    let best = out.best.unwrap();
    assert_eq!(
        (best.mv.to_string(), best.score),
        ("4a5a".to_string(), Value::DRAW)
    );
}

/// A position where Black can declare (入玉宣言, CSA 27-point rule): king on 9a, eleven
/// pieces in the enemy camp, 54 points.
const DECLARATION: &str = "sfen K8/RBGGSSL2/NNLP5/9/9/9/9/9/4k4 b RB2G2S2N2L17P 1";

#[test]
fn declaration_is_a_win_in_search() {
    let pos = parse_position(DECLARATION).unwrap();
    assert!(pos.declaration_win(), "test position must satisfy the rule");
}

// ---------------------------------------------------------------------------------------------
// Through the binary.
// ---------------------------------------------------------------------------------------------

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gougi"))
            .arg("search")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gougi search");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine {
            child,
            stdin,
            lines,
        };
        e.send("usi");
        let usi = e.until("usiok");
        assert!(usi.iter().any(|l| l == "id name gougi-search"));
        assert!(usi.iter().any(|l| l.starts_with("option name USI_Hash")));
        e.send("setoption name USI_Hash value 16");
        e.send("isready");
        e.until("readyok");
        e
    }

    fn send(&mut self, s: &str) {
        writeln!(self.stdin, "{s}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first starting with `prefix` (generous timeout: the
    /// tests assert behaviour, not speed).
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    out.push(l);
                    if done {
                        return out;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {prefix:?} within 60 s; got {out:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("engine exited; got {out:?}"),
            }
        }
    }

    /// Asserts that no line starting with `prefix` arrives within `ms`.
    fn silent(&mut self, prefix: &str, ms: u64) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_millis(ms);
        let mut out = Vec::new();
        while let Ok(l) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            assert!(!l.starts_with(prefix), "unexpected {l}");
            out.push(l);
        }
        out
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
    }
}

/// Checks that `lines` end with a legal `bestmove` for `position` and returns the move text.
fn legal_bestmove(position: &str, lines: &[String]) -> String {
    let last = lines.last().expect("a line");
    let mut f = last.split_whitespace();
    assert_eq!(f.next(), Some("bestmove"), "{last}");
    let mv = f.next().expect("a move").to_string();
    let mut pos = parse_position(position).unwrap();
    let m = pos
        .parse_usi_move(&mv)
        .unwrap_or_else(|e| panic!("{mv}: {e}"));
    pos.do_move(m);
    if let (Some("ponder"), Some(p)) = (f.next(), f.next()) {
        let pm = pos
            .parse_usi_move(p)
            .unwrap_or_else(|e| panic!("ponder {p}: {e}"));
        pos.do_move(pm);
    }
    // Every info line is well formed.
    for l in lines.iter().filter(|l| l.starts_with("info depth")) {
        assert!(
            l.contains(" score cp ") || l.contains(" score mate "),
            "{l}"
        );
        assert!(
            l.contains(" nodes ") && l.contains(" nps ") && l.contains(" pv "),
            "{l}"
        );
    }
    mv
}

const MIDGAME: &str = "startpos moves 7g7f 3c3d 2g2f 4c4d 2f2e 2b3c 3i4h 8b4b 5i6h 5a6b";

#[test]
fn every_go_variant_gives_a_legal_bestmove() {
    let mut e = Engine::start();
    e.send("usinewgame");
    for go in [
        "go depth 4",
        "go nodes 20000",
        "go movetime 200",
        "go btime 0 wtime 0 byoyomi 1000",
        "go btime 2000 wtime 2000 byoyomi 0",
        "go btime 3000 wtime 3000 binc 1000 winc 1000",
        "go btime 60000 wtime 60000 byoyomi 200",
    ] {
        e.send(&format!("position {MIDGAME}"));
        e.send(go);
        let lines = e.until("bestmove");
        legal_bestmove(MIDGAME, &lines);
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "{go}: {lines:?}"
        );
    }
}

/// Issue 19, goal 5: with its default options (a GUI that sets no `NetworkDelay`), `gougi
/// search` spends its byoyomi — it used to answer `go byoyomi 1000` in 0.5 s, since the
/// network margin NetworkDelay2 1120 ate the whole second — and answers inside it. The check
/// is on the fastest of three moves (between 0.8 s and 1 s): load only delays answers, so the
/// fastest shows the plan (0.94 s) and a loaded machine cannot make this flaky; the measured
/// distribution is in BENCHMARKS.
#[test]
fn byoyomi_is_spent_and_never_overrun_with_default_options() {
    let mut e = Engine::start();
    e.send("usinewgame");
    let mut times = Vec::new();
    for _ in 0..3 {
        e.send(&format!("position {MIDGAME}"));
        let asked = Instant::now();
        e.send("go btime 0 wtime 0 byoyomi 1000");
        let lines = e.until("bestmove");
        times.push(asked.elapsed());
        legal_bestmove(MIDGAME, &lines);
    }
    times.sort();
    let fastest = times[0];
    assert!(
        fastest > Duration::from_millis(800) && fastest < Duration::from_millis(1000),
        "{times:?}"
    );
}

/// Issue 19: a GUI (and `gougi match`) sends `isready`, then `usinewgame`, `position` and `go`
/// at once, with its clock running from `go`. Clearing the hash at `usinewgame` put hundreds of
/// milliseconds (256 MiB written while the machine was loaded) in front of every game's first
/// move, and `gougi search` lost games on time at byoyomi 100 ms on its first move. The clear
/// is now done at `isready`; a 1 GiB table makes the old cost plain (seconds on a slow runner).
#[test]
fn the_first_move_of_a_game_does_not_pay_for_clearing_the_hash() {
    let mut e = Engine::start();
    e.send("setoption name USI_Hash value 1024");
    let mut times = Vec::new();
    for _ in 0..3 {
        e.send("isready");
        e.until("readyok");
        e.send("usinewgame");
        e.send(&format!("position {MIDGAME}"));
        let asked = Instant::now();
        e.send("go btime 0 wtime 0 byoyomi 400");
        let lines = e.until("bestmove");
        times.push(asked.elapsed());
        legal_bestmove(MIDGAME, &lines);
        // A second move fills the table, so the next game has something to clear.
        e.send("position startpos");
        e.send("go btime 0 wtime 0 byoyomi 200");
        e.until("bestmove");
    }
    // The fastest of three: load only adds delay, while the old clear cost every game.
    times.sort();
    assert!(times[0] < Duration::from_millis(400), "{times:?}");
}

#[test]
fn infinite_waits_for_stop() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.silent("bestmove", 400);
    e.send("stop");
    let lines = e.until("bestmove");
    legal_bestmove("startpos", &lines);
    // The engine still answers afterwards.
    e.send("isready");
    e.until("readyok");
}

#[test]
fn ponder_then_ponderhit_or_stop() {
    let mut e = Engine::start();
    // ponderhit: the search continues on our clock and ends by itself.
    e.send(&format!("position {MIDGAME}"));
    e.send("go ponder btime 1000 wtime 1000 byoyomi 500");
    e.silent("bestmove", 300);
    e.send("ponderhit");
    let lines = e.until("bestmove");
    legal_bestmove(MIDGAME, &lines);
    // ponderhit carrying times (ShogiHome).
    e.send(&format!("position {MIDGAME}"));
    e.send("go ponder btime 1000 wtime 1000 byoyomi 500");
    e.send("ponderhit btime 900 wtime 1000 byoyomi 300");
    let lines = e.until("bestmove");
    legal_bestmove(MIDGAME, &lines);
    // stop during ponder (the opponent played another move): a bestmove still comes.
    e.send(&format!("position {MIDGAME}"));
    e.send("go ponder btime 1000 wtime 1000 byoyomi 500");
    e.send("stop");
    let lines = e.until("bestmove");
    legal_bestmove(MIDGAME, &lines);
}

/// The `bestmove` and the last `info … nodes` of a search's lines.
fn answer_and_nodes(lines: &[String]) -> (String, u64) {
    let nodes = lines
        .iter()
        .rev()
        .find_map(|l| {
            let mut w = l.split_whitespace().skip_while(|w| *w != "nodes");
            w.next()?;
            w.next()?.parse::<u64>().ok()
        })
        .expect("an info line with nodes");
    (lines.last().expect("a bestmove").clone(), nodes)
}

#[test]
fn ponder_under_a_node_budget_holds_its_answer_and_counts_its_nodes() {
    // The match runner's node frame sends `go ponder nodes (own + opponent's)` and, on a hit,
    // a plain `ponderhit`: the search must not answer before it, and must end at the same
    // node count, with the same move, as `go nodes` would, however long the ponder ran.
    const N: u64 = 20_000;
    let mut e = Engine::start();
    let fresh = |e: &mut Engine| {
        e.send("isready");
        e.until("readyok");
        e.send("usinewgame");
        e.send(&format!("position {MIDGAME}"));
    };
    fresh(&mut e);
    e.send(&format!("go nodes {N}"));
    let plain = answer_and_nodes(&e.until("bestmove"));
    assert!(plain.1 >= N, "{plain:?}");
    // The ponder reaches N long before the hit, and waits for it.
    fresh(&mut e);
    e.send(&format!("go ponder nodes {N}"));
    let mut held = e.silent("bestmove", 1_500);
    e.send("ponderhit");
    held.extend(e.until("bestmove"));
    assert_eq!(answer_and_nodes(&held), plain);
    // A hit at once: the search goes on to N, counting what it searched before.
    fresh(&mut e);
    e.send(&format!("go ponder nodes {N}"));
    e.send("ponderhit");
    assert_eq!(answer_and_nodes(&e.until("bestmove")), plain);
    // A miss: `stop` ends it with an answer at once.
    fresh(&mut e);
    e.send(&format!("go ponder nodes {N}"));
    e.silent("bestmove", 300);
    e.send("stop");
    let lines = e.until("bestmove");
    legal_bestmove(MIDGAME, &lines);
}

#[test]
fn multipv_and_threads() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    e.send("setoption name Threads value 2");
    e.send(&format!("position {MIDGAME}"));
    e.send("go depth 5");
    let lines = e.until("bestmove");
    legal_bestmove(MIDGAME, &lines);
    for k in 1..=3 {
        assert!(
            lines.iter().any(|l| l.contains(&format!(" multipv {k} "))),
            "{lines:?}"
        );
    }
}

/// `go searchmoves` (issue 66, for `split`'s "all other moves" leaf): the search plays one of
/// the listed moves and every PV it prints starts with one; listed moves that are not legal are
/// left out, and a list with none legal searches every move. Without the list the answer is the
/// unrestricted one (the `gougi bench search` signature does not move either).
#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::start();
    e.send(&format!("position {MIDGAME}"));
    e.send("go nodes 3000");
    let free = legal_bestmove(MIDGAME, &e.until("bestmove"));
    // Two legal moves other than the free choice, and one that is not legal here.
    let allowed = ["9g9f", "1g1f", "5e5d"];
    assert!(!allowed.contains(&free.as_str()), "{free}");
    e.send(&format!("position {MIDGAME}"));
    e.send(&format!("go nodes 3000 searchmoves {}", allowed.join(" ")));
    let lines = e.until("bestmove");
    let mv = legal_bestmove(MIDGAME, &lines);
    assert!(allowed[..2].contains(&mv.as_str()), "{mv}: {lines:#?}");
    for l in lines.iter().filter(|l| l.contains(" pv ")) {
        let head = l.split(" pv ").nth(1).and_then(|p| p.split(' ').next());
        assert!(head.is_some_and(|h| allowed[..2].contains(&h)), "{l}");
    }
    // Only moves that are not legal here: every move is searched (from a cleared table, as
    // the first search was).
    e.send("usinewgame");
    e.send(&format!("position {MIDGAME}"));
    e.send("go nodes 3000 searchmoves 5e5d");
    assert_eq!(legal_bestmove(MIDGAME, &e.until("bestmove")), free);
}

#[test]
fn mate_declaration_and_resign() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go mate 1000");
    e.until("checkmate notimplemented");
    e.send(&format!("position {DECLARATION}"));
    e.send("go btime 1000 wtime 1000 byoyomi 1000");
    e.until("bestmove win");
    // While pondering, even a decided answer waits for `ponderhit` (or `stop`).
    e.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    e.silent("bestmove", 300);
    e.send("ponderhit");
    e.until("bestmove win");
    // Mated: no legal move for White.
    let mated = "sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1";
    e.send(&format!("position {mated}"));
    e.send("go btime 1000 wtime 1000 byoyomi 1000");
    e.until("bestmove resign");
    // A mate in 1 is played and reported as `mate 1`.
    let p = tsume("tanuki_generated_sample.txt", "1").remove(0);
    e.send(&format!("position {p}"));
    e.send("go depth 3");
    let lines = e.until("bestmove");
    legal_bestmove(&p, &lines);
    assert!(
        lines.iter().any(|l| l.contains("score mate 1 ")),
        "{lines:?}"
    );
}

#[test]
fn bad_input_does_not_kill_the_engine() {
    let mut e = Engine::start();
    e.send("position sfen this is not a position");
    e.send("position startpos moves 7g7f 7g7f");
    e.send("setoption name NoSuchOption value 3");
    e.send("go depth notanumber");
    e.until("bestmove");
    e.send("isready");
    e.until("readyok");
}

/// The last `score cp N` (or mate) text of the `info` lines.
fn last_score(lines: &[String]) -> String {
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let i = l.find(" score ")?;
            let rest: Vec<&str> = l[i + 7..].split_whitespace().take(2).collect();
            Some(rest.join(" "))
        })
        .expect("an info line with a score")
}

/// The score text (`cp N`) the library's search gives `position` at `depth` with `weights`:
/// what the binary must print with the same weights.
fn library_score(weights: &'static gougi::eval::Weights, position: &str, depth: i32) -> String {
    let pos = parse_position(position).unwrap();
    let limits = SearchLimits {
        depth: Some(depth),
        nodes: None,
        multipv: 1,
    };
    let linear = gougi::eval::TableEval::new(weights);
    let mut s = Searcher::with_eval(16, 1, gougi::eval::SearchEval::linear(linear));
    let best = s.search(&pos, limits, None, None).best.unwrap();
    format!("cp {}", best.score.0)
}

#[test]
fn eval_file_option_loads_weights_and_refuses_bad_files() {
    use gougi::eval::Weights;
    let dir = std::env::temp_dir().join(format!("gougi-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Weights that score differently from the embedded ones: a pawn on its owner's 7f (as
    // Black sees it) is worth 300 more than the embedded weights say; only Black has one.
    let mut w = Weights::embedded().clone();
    let sq = gougi::shogi::Square::from_usi("7f").unwrap();
    w.w[gougi::eval::linear::psq_index(
        gougi::shogi::Color::Black,
        gougi::shogi::PieceKind::Pawn,
        sq,
    )] += 300;
    let file = dir.join("pawny.bin");
    std::fs::write(&file, w.to_bytes()).unwrap();
    let position = "startpos moves 7g7f 8c8d";
    let expected = library_score(w.clone().leak(), position, 4);
    assert_ne!(
        expected,
        library_score(Weights::embedded(), position, 4),
        "the test needs distinct scores"
    );

    let mut e = Engine::start();
    e.send(&format!("setoption name EvalFile value {}", file.display()));
    e.send("isready");
    e.until("readyok");
    e.send(&format!("position {position}"));
    e.send("go depth 4");
    let lines = e.until("bestmove");
    assert_eq!(last_score(&lines), expected, "{lines:?}");

    // A missing file and a file of another format are refused with a reason, and the engine
    // keeps the weights it had.
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, b"not weights").unwrap();
    for bad in [dir.join("missing.bin"), junk] {
        e.send(&format!("setoption name EvalFile value {}", bad.display()));
        let err = e.until("info string error");
        let last = err.last().unwrap();
        assert!(
            last.starts_with("info string error: EvalFile")
                && last.contains(&*bad.to_string_lossy()),
            "{last}"
        );
    }
    e.send("usinewgame");
    e.send(&format!("position {position}"));
    e.send("go depth 4");
    let lines = e.until("bestmove");
    assert_eq!(last_score(&lines), expected, "{lines:?}");
    drop(e);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `EvalFile builtin:r9` (and the other built-in rounds) plays with that round's weights, with
/// no file beside the binary; `builtin:r14` is the embedded round; a name that is no built-in
/// round is refused with the names there are, and the engine keeps what it had.
#[test]
fn eval_file_names_built_in_rounds() {
    use gougi::eval::builtin::builtin_names;
    use gougi::eval::Weights;
    let position = "startpos moves 7g7f 3c3d 2g2f 4c4d";
    assert_eq!(
        builtin_names(),
        [
            "builtin:r14",
            "builtin:r13",
            "builtin:r11",
            "builtin:r9",
            "builtin:r8",
            "builtin:r7"
        ]
    );
    assert!(std::ptr::eq(
        Weights::named("builtin:r14").unwrap(),
        Weights::embedded()
    ));
    let mut e = Engine::start();
    let mut seen = Vec::new();
    // Depth 4: a depth where the six rounds' scores differ (at depth 5 rounds 14 and 8 both
    // scored cp 26 once move-count pruning changed; the check is of the weights, not a depth).
    for name in builtin_names() {
        let expected = library_score(Weights::named(&name).unwrap(), position, 4);
        e.send(&format!("setoption name EvalFile value {name}"));
        e.send("isready");
        e.until("readyok");
        e.send(&format!("position {position}"));
        e.send("go depth 4");
        let lines = e.until("bestmove");
        assert_eq!(last_score(&lines), expected, "{name}: {lines:?}");
        seen.push(expected);
    }
    let mut distinct = seen.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        6,
        "each round scores the position its own way: {seen:?}"
    );

    e.send("setoption name EvalFile value builtin:r99");
    let err = e.until("info string error");
    assert_eq!(
        err.last().unwrap(),
        "info string error: EvalFile builtin:r99: no such built-in round \
         (built in: builtin:r14, builtin:r13, builtin:r11, builtin:r9, builtin:r8, builtin:r7; \
         nets: builtin:n1)"
    );
    e.send("usinewgame"); // cleared tables and history, as for each round above
    e.send(&format!("position {position}"));
    e.send("go depth 4");
    let lines = e.until("bestmove");
    let round7 = seen.last().expect("round 7 is the last built-in round");
    assert_eq!(&last_score(&lines), round7, "still round 7: {lines:?}");
}

/// Every PV the search prints — exact, lowerbound and upperbound lines alike — is a line of
/// legal moves. A zero-window fail-high at a PV node once left an earlier move's line under the
/// failing move, and it reached a fail-low (`upperbound`) line at the root as an illegal move
/// (`7b9b+` of a dragon), which made cshogi's match runner abort.
#[test]
fn every_printed_pv_is_legal() {
    let openings = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/openings/heldout-512.txt"
    ))
    .unwrap();
    let mut e = Engine::start();
    let mut lines_checked = 0;
    // One process over a game's worth of positions: the table carries lines across `go`s.
    for opening in openings.lines().take(40) {
        e.send(&format!("position {opening}"));
        e.send("go nodes 20000");
        for line in e.until("bestmove") {
            let Some((_, pv)) = line.split_once(" pv ") else {
                continue;
            };
            let mut pos = parse_position(opening).unwrap();
            for (k, m) in pv.split_whitespace().enumerate() {
                match pos.parse_usi_move(m) {
                    Ok(mv) => pos.do_move(mv),
                    Err(why) => panic!("{opening}: move {k} ({m}) of {line:?}: {why:?}"),
                }
            }
            lines_checked += 1;
        }
    }
    assert!(lines_checked > 100, "only {lines_checked} PV lines");
}

/// `go nodes N` stops at N, give or take the few nodes in flight (the node limit is looked at when it is due, not only every 1,024
/// nodes: "3,000 nodes" used to mean 3,072 or 4,096).
#[test]
fn go_nodes_stops_at_the_limit() {
    let mut e = Engine::start();
    for n in [700u64, 3000, 5000] {
        e.send("position startpos moves 7g7f 3c3d");
        e.send(&format!("go nodes {n}"));
        let lines = e.until("bestmove");
        let searched: u64 = lines
            .iter()
            .rev()
            .find_map(|l| {
                let mut it = l.split_whitespace();
                it.position(|t| t == "nodes")?;
                it.next()?.parse().ok()
            })
            .expect("an info line with nodes");
        assert!(
            (n..=n + 16).contains(&searched),
            "go nodes {n}: searched {searched}: {lines:#?}"
        );
    }
}

/// `EvalNoise`, `EvalDropout` and `Seed` (issue 19): a copy of the search with either option
/// set thinks differently from the plain one on the same position and node budget, the same
/// seed reproduces its answer exactly, and another seed gives another answer.
#[test]
fn eval_noise_and_dropout_diversify_reproducibly() {
    // A quiet middle-game position from the tuning openings and one from the start.
    let positions = [
        "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e",
        "startpos moves 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d",
    ];
    // (bestmove, last score, nodes) of a fresh engine with `options`, per position.
    let answer = |options: &[&str]| -> Vec<(String, String)> {
        let mut e = Engine::start();
        for o in options {
            e.send(o);
        }
        e.send("isready");
        e.until("readyok");
        let out = positions
            .iter()
            .map(|p| {
                e.send("usinewgame");
                e.send(&format!("position {p}"));
                e.send("go nodes 20000");
                let lines = e.until("bestmove");
                (lines.last().unwrap().clone(), last_score(&lines))
            })
            .collect();
        drop(e);
        out
    };
    let plain = answer(&[]);
    // The options at their defaults are the plain engine.
    assert_eq!(
        answer(&[
            "setoption name EvalNoise value 0",
            "setoption name EvalDropout value 0",
            "setoption name Seed value 7",
        ]),
        plain
    );
    for option in ["EvalNoise value 60", "EvalDropout value 200"] {
        let with = |seed: u32| {
            answer(&[
                &format!("setoption name {option}"),
                &format!("setoption name Seed value {seed}"),
            ])
        };
        let (one, two) = (with(1), with(2));
        assert_ne!(one, plain, "{option} changes nothing");
        assert_eq!(
            with(1),
            one,
            "{option} with the same seed is not reproducible"
        );
        assert_ne!(one, two, "{option}: seeds 1 and 2 give the same answers");
    }
}

/// `Engine<N>.SoloOption` switches a member's options between its searches: an engine told
/// `EvalNoise`, `Seed` and `Threads` between two `go`s searches with the new values — the same
/// answers as a fresh engine started with them (after `usinewgame`, as each position here) —
/// and keeps answering when `Threads` goes up and back down.
#[test]
fn options_switched_between_searches_take_effect() {
    let position = "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e";
    let search = |e: &mut Engine| -> (String, String) {
        e.send("usinewgame");
        e.send(&format!("position {position}"));
        e.send("go nodes 20000");
        let lines = e.until("bestmove");
        legal_bestmove(position, &lines);
        (lines.last().unwrap().clone(), last_score(&lines))
    };
    let fresh = |options: &[&str]| {
        let mut e = Engine::start();
        for o in options {
            e.send(o);
        }
        e.send("isready");
        e.until("readyok");
        search(&mut e)
    };
    let noisy_options = [
        "setoption name EvalNoise value 60",
        "setoption name Seed value 1",
    ];
    let (plain, noisy) = (fresh(&[]), fresh(&noisy_options));
    assert_ne!(plain, noisy, "EvalNoise changes nothing here");

    let mut e = Engine::start();
    e.send("isready");
    e.until("readyok");
    assert_eq!(search(&mut e), plain);
    for o in noisy_options {
        e.send(o);
    }
    assert_eq!(search(&mut e), noisy, "noise switched on between searches");
    e.send("setoption name EvalNoise value 0");
    assert_eq!(search(&mut e), plain, "noise switched off between searches");
    e.send("setoption name Threads value 2");
    search(&mut e);
    e.send("setoption name Threads value 1");
    assert_eq!(search(&mut e), plain, "back to one thread");
}
