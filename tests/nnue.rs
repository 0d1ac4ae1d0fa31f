//! NNUE nets in YaneuraOu's format: loading, refusing, and evaluating bit for bit as
//! YaneuraOu does (`tests/data/nnue/`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use gougi::eval::nnue::{self, Network, NnueError, HALFKP_256, KP_256, SUPPORTED};
use gougi::shogi::sfen::colour_swapped;
use gougi::shogi::{Color, PieceKind, Position};

mod common;

/// The net of `gougi learn nnue-random --seed 1`, made once per test process (64 MB).
fn net_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| Network::random(HALFKP_256, 1).to_bytes())
}

fn net() -> &'static Network {
    static NET: OnceLock<Network> = OnceLock::new();
    NET.get_or_init(|| Network::from_bytes(net_bytes()).expect("the random net loads"))
}

/// `(SFEN, YaneuraOu's value)` from `tests/data/nnue/random-seed1.tsv`.
fn reference() -> Vec<(String, i32)> {
    reference_file("random-seed1.tsv")
}

/// `(SFEN, YaneuraOu's value)` from a file of `tests/data/nnue/`.
fn reference_file(name: &str) -> Vec<(String, i32)> {
    let path = format!("{}/tests/data/nnue/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .expect("reference file")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (sfen, v) = l.split_once('\t').expect("SFEN<tab>value");
            (sfen.to_owned(), v.trim().parse().expect("a value"))
        })
        .collect()
}

#[test]
fn the_random_net_has_the_public_nets_header_and_size() {
    let b = net_bytes();
    assert_eq!(b.len(), 64_217_077);
    assert_eq!(&b[..4], &nnue::file::VERSION.to_le_bytes());
    assert_eq!(&b[4..8], &0x3E5A_A6EEu32.to_le_bytes());
    assert!(nnue::looks_like_nnue(b));
    assert_eq!(net().arch, HALFKP_256);
    assert!(net()
        .description
        .starts_with("Features=HalfKP(Friend)[125388->256x2]"));
    // Written back, the same bytes.
    assert_eq!(net().to_bytes(), b);
}

#[test]
fn evaluations_equal_yaneuraou_s_on_the_reference_positions() {
    let positions = reference();
    assert!(positions.len() >= 20);
    let mut in_check = 0;
    let mut white = 0;
    for (sfen, expected) in &positions {
        let pos = Position::from_sfen(sfen).expect("a valid SFEN");
        assert_eq!(net().evaluate(&pos), *expected, "{sfen}");
        in_check += usize::from(pos.in_check());
        white += usize::from(pos.side_to_move() == Color::White);
    }
    // What the reference covers: the values are spread, not all 0.
    assert!(positions.iter().all(|(_, v)| *v != 0));
    assert!(in_check >= 1, "no position in check");
    assert!(white >= 5 && white <= positions.len() - 5);
    let with = |f: &dyn Fn(&str) -> bool| positions.iter().filter(|(s, _)| f(s)).count();
    assert!(with(&|s| s.split(' ').next().unwrap().contains('+')) >= 5);
    assert!(with(&|s| s.split(' ').nth(2).unwrap() != "-") >= 10);
}

#[test]
fn the_flipped_position_evaluates_the_same() {
    // halfKP sees the board from the side to move: the same game from the other chair has
    // the same features in the same order, whatever the weights.
    for (sfen, expected) in reference() {
        let flipped = colour_swapped(&sfen);
        let pos = Position::from_sfen(&flipped).expect("the flipped SFEN is valid");
        assert_eq!(net().evaluate(&pos), expected, "{sfen} flipped: {flipped}");
    }
    assert_eq!(
        colour_swapped("l8/1+P7/9/9/9/9/9/9/8K b Pr 3"),
        "k8/9/9/9/9/9/9/7+p1/8L w pR 3"
    );
}

#[test]
fn other_architectures_and_damaged_files_are_refused() {
    let good = net_bytes();

    // gougi's own linear weights are not NNUE.
    let linear = gougi::eval::Weights::hand_set().to_bytes();
    assert!(!nnue::looks_like_nnue(&linear));
    let e = Network::from_bytes(&linear).unwrap_err();
    assert!(matches!(e, NnueError::Version { .. }));
    assert!(e.to_string().contains("not a YaneuraOu NNUE file"), "{e}");

    // Another architecture: says what the file is and what is supported.
    let text = "Features=K+P[2349->256x2],Network=AffineTransform[1<-32](...)";
    let mut other = nnue::file::VERSION.to_le_bytes().to_vec();
    other.extend_from_slice(&0x1234_5678u32.to_le_bytes());
    other.extend_from_slice(&(text.len() as u32).to_le_bytes());
    other.extend_from_slice(text.as_bytes());
    other.extend_from_slice(&[0; 64]);
    let e = Network::from_bytes(&other).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(
        e,
        NnueError::Architecture {
            hash: 0x1234_5678,
            ..
        }
    ));
    assert!(msg.contains(text), "{msg}");
    assert!(msg.contains("halfKP_256x2-32-32") && msg.contains("halfKP_1024x2-8-64"));

    // Truncated, or something after the last layer.
    let e = Network::from_bytes(&good[..good.len() - 1000]).unwrap_err();
    assert!(matches!(e, NnueError::Truncated { .. }));
    assert!(e.to_string().contains("truncated"), "{e}");
    assert!(Network::from_bytes(&good[..10]).is_err());
    let mut long = good.to_vec();
    long.push(0);
    let e = Network::from_bytes(&long).unwrap_err();
    assert!(
        e.to_string().contains("1 bytes after the last layer"),
        "{e}"
    );

    // A damaged section hash (the transformer's, just after the header text).
    let text_len = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let mut bad = good.to_vec();
    bad[12 + text_len] ^= 1;
    let e = Network::from_bytes(&bad).unwrap_err();
    assert!(matches!(
        e,
        NnueError::PartHash {
            part: "feature transformer",
            ..
        }
    ));
    assert!(e.to_string().contains("feature transformer hash"), "{e}");
}

#[test]
fn the_supported_architectures_have_distinct_hashes_and_sizes() {
    for (i, a) in SUPPORTED.iter().enumerate() {
        for b in &SUPPORTED[i + 1..] {
            assert_ne!(a.hash(), b.hash());
        }
    }
    // The public nets' size with YaneuraOu's header text.
    let text = HALFKP_256.description();
    assert_eq!(HALFKP_256.file_size(text.len()), 64_217_077);
}

/// Runs `gougi search` on `input` (ended by end of input, which is `quit`) and returns its
/// output lines.
fn run_search(input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .arg("search")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gougi search");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("gougi search ends");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn search_answers_eval_with_the_net_its_eval_file_names() {
    let path = common::scratch_path("nn.bin");
    std::fs::write(&path, net_bytes()).unwrap();
    let damaged = common::scratch_path("truncated-nn.bin");
    std::fs::write(&damaged, &net_bytes()[..1 << 20]).unwrap();
    let refs = reference();
    let mut input = format!(
        "usi\nsetoption name USI_Hash value 16\n\
         eval\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\nisready\n",
        damaged.display(),
        path.display()
    );
    for (sfen, _) in &refs[..6] {
        input.push_str(&format!("position sfen {sfen}\neval\n"));
    }
    input.push_str("position startpos moves 7g7f 3c3d 8h2b+\neval\n");
    let out = run_search(&input);
    let evals: Vec<&str> = out
        .iter()
        .filter_map(|l| l.strip_prefix("eval = "))
        .collect();
    assert_eq!(evals.len(), 8, "{out:?}");
    // Before any EvalFile: the linear evaluation of the start position (small, not the net's).
    let linear: i32 = evals[0].parse().unwrap();
    assert!(linear.abs() < 200, "{linear}");
    // The truncated file is refused with the reason, and the good one is then taken.
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string error: EvalFile") && l.contains("truncated")),
        "{out:?}"
    );
    assert!(out.iter().any(|l| l.contains("NNUE halfKP_256x2-32-32")));
    for ((_, expected), got) in refs[..6].iter().zip(&evals[1..7]) {
        assert_eq!(got.parse::<i32>().unwrap(), *expected);
    }
    // Checked against YaneuraOu as the reference file's values are.
    assert_eq!(evals[7], "-1470");
}

#[test]
fn sums_carried_move_by_move_equal_sums_from_scratch() {
    check_carried_sums(net(), &reference());
}

/// Random games from the reference positions: drops, captures (promoted pieces going back
/// to the hand unpromoted), promotions, king moves (in HalfKP that half recomputed; in K+P one
/// column swapped in each half), null moves: the sums carried move by move evaluate as the
/// position from scratch at every ply.
fn check_carried_sums(net: &Network, positions: &[(String, i32)]) {
    let mut rng = gougi::book::SplitMix64::new(52);
    let mut plies = 0;
    let mut king_moves = 0;
    for (sfen, _) in positions {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let mut acc = net.accumulate(&pos);
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if rng.next_u64() % 16 == 0 && !pos.in_check() {
                pos.do_null_move();
            } else {
                let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                let before = pos.clone();
                pos.do_move(m);
                let king = before.moved_piece(m).map(|p| p.kind) == Some(PieceKind::King);
                king_moves += usize::from(king);
                acc = net.update(&acc, &before, m, &pos);
            }
            plies += 1;
            assert_eq!(
                net.evaluate_accumulated(&acc, pos.side_to_move()),
                net.evaluate(&pos),
                "{}",
                pos.to_sfen()
            );
        }
    }
    assert!(plies > 1000, "{plies}");
    assert!(king_moves > 20, "{king_moves}");
}

/// The cost of one evaluation from scratch (every feature column, every layer), for the
/// journal: `cargo test --release --test nnue -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn full_evaluation_speed() {
    let positions: Vec<Position> = reference()
        .iter()
        .map(|(s, _)| Position::from_sfen(s).unwrap())
        .collect();
    let net = net();
    let rounds = 20_000;
    let start = std::time::Instant::now();
    let mut sum = 0i64;
    for _ in 0..rounds {
        for p in &positions {
            sum += i64::from(net.evaluate(std::hint::black_box(p)));
        }
    }
    let n = rounds * positions.len();
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    println!(
        "from scratch: {n} evaluations, {ns:.0} ns each ({:.0} k/s), checksum {sum}",
        1e6 / ns
    );

    // Carried sums: one update (a move's columns) plus the layers, per position.
    let pairs: Vec<(Position, gougi::shogi::Move, Position)> = positions
        .iter()
        .filter(|p| !p.legal_moves().is_empty())
        .map(|p| {
            let m = p.legal_moves()[0];
            let mut after = p.clone();
            after.do_move(m);
            (p.clone(), m, after)
        })
        .collect();
    let accs: Vec<_> = pairs.iter().map(|(p, _, _)| net.accumulate(p)).collect();
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        for ((before, m, after), acc) in pairs.iter().zip(&accs) {
            let next = net.update(std::hint::black_box(acc), before, *m, after);
            sum += i64::from(net.evaluate_accumulated(&next, after.side_to_move()));
        }
    }
    let n = rounds * pairs.len();
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    println!(
        "carried: {n} updates + evaluations, {ns:.0} ns each ({:.0} k/s), checksum {sum}",
        1e6 / ns
    );
}

#[test]
fn the_search_s_lazy_stack_evaluates_as_from_scratch_with_every_kernel() {
    check_lazy_stack(net(), &reference());
}

/// A depth-first walk as a search makes one: moves pushed and popped, null moves, king moves,
/// evaluations at some nodes only — so changes pile up over several plies before one is
/// applied; every kernel's evaluation equals the portable one from scratch.
fn check_lazy_stack(net: &Network, positions: &[(String, i32)]) {
    use gougi::eval::nnue::{Kernel, NnueEval};
    use gougi::eval::Evaluator;
    let net = std::sync::Arc::new(net.clone());
    let kernels = Kernel::available();
    println!("kernels: {kernels:?}");
    let mut checked = 0;
    for &k in &kernels {
        let mut rng = gougi::book::SplitMix64::new(53);
        let mut eval = NnueEval::with_kernel(net.clone(), k);
        for (sfen, _) in positions {
            let root = Position::from_sfen(sfen).unwrap();
            eval.reset(&root);
            // (position, whether the move into it was a null move)
            let mut path: Vec<(Position, bool)> = vec![(root, false)];
            for _ in 0..400 {
                let (pos, _) = path.last().unwrap().clone();
                let moves = pos.legal_moves();
                let down = path.len() < 12 && !moves.is_empty() && rng.next_u64() % 3 != 0;
                if down {
                    let mut next = pos.clone();
                    if rng.next_u64() % 10 == 0 && !pos.in_check() {
                        next.do_null_move();
                        eval.push_null();
                        path.push((next, true));
                    } else {
                        let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                        eval.push(&pos, m);
                        next.do_move(m);
                        path.push((next, false));
                    }
                } else if path.len() > 1 {
                    path.pop();
                    eval.pop();
                }
                if rng.next_u64() % 4 == 0 {
                    let pos = &path.last().unwrap().0;
                    let expected = net.evaluate_with(Kernel::Portable, pos);
                    assert_eq!(eval.evaluate(pos), expected, "{k:?} {}", pos.to_sfen());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000 * kernels.len(), "{checked}");
}

#[test]
fn every_kernel_evaluates_the_reference_positions_alike() {
    use gougi::eval::nnue::Kernel;
    for k in Kernel::available() {
        for (sfen, expected) in reference() {
            let pos = Position::from_sfen(&sfen).unwrap();
            assert_eq!(net().evaluate_with(k, &pos), expected, "{k:?} {sfen}");
        }
    }
}

/// `gougi search` with the net from `EvalFile` (and the kernel the environment asks for, if
/// any): the last `info` line with a score and the `bestmove` of `go depth 9` from a middle
/// game.
fn search_with_net(net_path: &std::path::Path, envs: &[(&str, &str)]) -> (Vec<String>, String) {
    use std::time::Duration;
    let mut g = common::Gougi::program_env(
        std::path::Path::new(env!("CARGO_BIN_EXE_gougi")),
        &["search"],
        None,
        envs,
    );
    g.send("usi");
    g.until_prefix("usiok");
    g.send("setoption name USI_Hash value 16");
    g.send("setoption name USI_OwnBook value false");
    if !net_path.as_os_str().is_empty() {
        g.send(&format!(
            "setoption name EvalFile value {}",
            net_path.display()
        ));
    }
    g.send("isready");
    let ready = g.until(Duration::from_secs(60), |l| l == "readyok");
    g.send("position startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d");
    g.send("go depth 9");
    let lines = g.until(Duration::from_secs(120), |l| l.starts_with("bestmove"));
    let best = lines.last().cloned().unwrap_or_default();
    assert!(best.starts_with("bestmove "), "{lines:?}");
    let mut said: Vec<String> = ready
        .into_iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth 9 "))
        .cloned()
        .unwrap_or_else(|| panic!("no depth 9 line: {lines:?}"));
    // The node count and the line, without the time-dependent fields.
    let fields: Vec<&str> = last_info.split_whitespace().collect();
    let after = |k: &str| {
        let i = fields.iter().position(|f| *f == k).unwrap();
        fields[i + 1].to_string()
    };
    let pv = last_info.split(" pv ").nth(1).unwrap_or("").to_string();
    said.push(format!(
        "nodes {} score {} pv {pv}",
        after("nodes"),
        after("cp")
    ));
    (said, best)
}

#[test]
fn the_search_plays_with_the_net_and_both_kernels_search_the_same_tree() {
    let path = common::scratch_path("search-nn.bin");
    std::fs::write(&path, net_bytes()).unwrap();
    let (said_best, best) = search_with_net(&path, &[]);
    let (said_portable, best_portable) =
        search_with_net(&path, &[("GOUGI_NNUE_KERNEL", "portable")]);
    let (said_linear, best_linear) = search_with_net(std::path::Path::new(""), &[]);
    println!(
        "{said_best:?} {best}\n{said_portable:?} {best_portable}\n{said_linear:?} {best_linear}"
    );
    assert!(
        said_portable[0].contains("portable kernel"),
        "{said_portable:?}"
    );
    // One thread, the same evaluations: the same tree, node for node, and the same move.
    assert_eq!(said_best.last(), said_portable.last());
    assert_eq!(best, best_portable);
    // The net, not the tables, evaluated: another tree.
    assert_ne!(said_best.last(), said_linear.last());
}

/// `gougi search` alone with `EvalFile` (empty: the linear tables) at `go nodes`, one thread:
/// its `bestmove` line.
fn solo_bestmove(eval_file: &str, position: &str, nodes: u32) -> String {
    use std::time::Duration;
    let mut g = common::Gougi::program(
        std::path::Path::new(env!("CARGO_BIN_EXE_gougi")),
        &["search"],
        None,
    );
    g.send("usi");
    g.until_prefix("usiok");
    for (name, value) in [("USI_Hash", "16"), ("USI_OwnBook", "false")] {
        g.send(&format!("setoption name {name} value {value}"));
    }
    if !eval_file.is_empty() {
        g.send(&format!("setoption name EvalFile value {eval_file}"));
    }
    g.send("isready");
    g.until(Duration::from_secs(60), |l| l == "readyok");
    g.send("usinewgame");
    g.send(position);
    g.send(&format!("go nodes {nodes}"));
    let lines = g.until(Duration::from_secs(60), |l| l.starts_with("bestmove"));
    lines.last().cloned().unwrap_or_default()
}

/// gougi with `config`, through `usi` and `isready`: the process and the lines up to `readyok`.
fn ready_consultation(config: &std::path::Path) -> (common::Gougi, Vec<String>) {
    let mut g = common::Gougi::with_config(config);
    g.send("usi");
    g.until_prefix("usiok");
    g.send("isready");
    let ready = g.until(std::time::Duration::from_secs(60), |l| l == "readyok");
    (g, ready)
}

/// Issue 52 item 6: one consultation of `builtin:search` members with different evaluation
/// files — the linear tables, an NNUE net, an earlier built-in round — each member playing
/// exactly as that search alone would, and the GUI told which net each member loaded (or why
/// it could not).
#[test]
fn a_consultation_mixes_members_with_linear_and_nnue_evaluations() {
    use std::time::Duration;
    let dir = common::scratch_dir("nnue-mixed");
    let net = dir.join("nn.bin");
    std::fs::write(&net, net_bytes()).unwrap();
    let member = |n: u32, name: &str, eval: &str| {
        let mut s = format!(
            "Engine{n}.Path=builtin:search\nEngine{n}.Name={name}\n\
             Engine{n}.Option.USI_Hash=16\nEngine{n}.Option.USI_OwnBook=false\n\
             Engine{n}.Option.Threads=1\n"
        );
        if !eval.is_empty() {
            s.push_str(&format!("Engine{n}.Option.EvalFile={eval}\n"));
        }
        s
    };
    let config = dir.join("mixed.config");
    std::fs::write(
        &config,
        format!(
            "Gougi.Type=majority\n{}{}{}",
            member(1, "linear", ""),
            member(2, "nnue", &net.display().to_string()),
            member(3, "round9", "builtin:r9"),
        ),
    )
    .unwrap();
    let position = "position startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e";
    let nodes = 3000;
    let (mut g, ready) = ready_consultation(&config);
    assert!(
        ready.iter().any(|l| l
            == &format!(
                "info string E2 (nnue): EvalFile: NNUE halfKP_256x2-32-32 ({}, {} kernel)",
                net.display(),
                nnue::kernel::Kernel::best().name()
            )),
        "{ready:?}"
    );
    g.send("usinewgame");
    g.send(position);
    g.send(&format!("go nodes {nodes}"));
    let lines = g.until(Duration::from_secs(60), |l| l.starts_with("bestmove"));
    for (name, eval) in [
        ("linear", String::new()),
        ("nnue", net.display().to_string()),
        ("round9", "builtin:r9".to_owned()),
    ] {
        let solo = solo_bestmove(&eval, position, nodes);
        let said = lines
            .iter()
            .find(|l| l.starts_with("info string [") && l.ends_with(&format!("[{name}]")))
            .unwrap_or_else(|| panic!("no line for {name}: {lines:?}"));
        // `info string [O] bestmove 7g7f ponder 3c3d [７六歩(77) …] … [name]`
        let proposed: Vec<&str> = said.split_whitespace().skip(3).take(3).collect();
        let solo_words: Vec<&str> = solo.split_whitespace().take(3).collect();
        assert_eq!(
            proposed.join(" "),
            solo_words.join(" "),
            "{name}: {said} / alone: {solo}"
        );
    }
    g.send("quit");

    // A net that is not there: the GUI is told which member and why; the member plays on.
    std::fs::write(
        &config,
        format!(
            "Gougi.Type=majority\n{}{}",
            member(1, "linear", ""),
            member(2, "nnue", &dir.join("missing.bin").display().to_string()),
        ),
    )
    .unwrap();
    let (mut g, ready) = ready_consultation(&config);
    assert!(
        ready
            .iter()
            .any(|l| l.starts_with("info string E2 (nnue): error: EvalFile ")
                && l.contains("missing.bin")),
        "{ready:?}"
    );
    g.send(position);
    g.send("go nodes 1000");
    let lines = g.until(Duration::from_secs(60), |l| l.starts_with("bestmove"));
    assert!(lines.iter().any(|l| l.ends_with("[nnue]")), "{lines:?}");
}

/// The net built into the binary (`EvalFile=builtin:n1`, gougi's own trained net, kept
/// xz-compressed) decompresses to the public nets' shape and evaluates as YaneuraOu does with
/// the same file; through the engine it is one `setoption` away, and a name that is neither a
/// round nor a net is refused with both lists.
#[test]
fn the_built_in_net_evaluates_as_yaneuraou_does() {
    let refs = reference_file("n1.tsv");
    assert!(refs.len() >= 20);
    let n1 = Network::named("builtin:n1").expect("n1 decompresses and loads");
    assert_eq!(n1.arch, HALFKP_256);
    for (sfen, expected) in &refs {
        let pos = Position::from_sfen(sfen).expect("a valid SFEN");
        assert_eq!(n1.evaluate(&pos), *expected, "{sfen}");
    }
    // A trained net, not the random one: other values.
    assert!(refs.iter().zip(reference()).any(|((_, a), (_, b))| *a != b));

    let mut input = "usi\nsetoption name USI_Hash value 16\n\
                     setoption name EvalFile value builtin:n9\n\
                     setoption name EvalFile value builtin:n1\nisready\n"
        .to_owned();
    for (sfen, _) in &refs[..4] {
        input.push_str(&format!("position sfen {sfen}\neval\n"));
    }
    let out = run_search(&input);
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string error: EvalFile builtin:n9")
                && l.contains("nets: builtin:n1")),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string EvalFile: NNUE halfKP_256x2-32-32 (builtin:n1, ")),
        "{out:?}"
    );
    let evals: Vec<i32> = out
        .iter()
        .filter_map(|l| l.strip_prefix("eval = "))
        .map(|v| v.parse().unwrap())
        .collect();
    let expected: Vec<i32> = refs[..4].iter().map(|(_, v)| *v).collect();
    assert_eq!(evals, expected, "{out:?}");
}

/// The K+P net of `gougi learn nnue-random --seed 1 --arch kp_256x2-32-32` (893,928 bytes).
fn kp_net_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| Network::random(KP_256, 1).to_bytes())
}

fn kp_net() -> &'static Network {
    static NET: OnceLock<Network> = OnceLock::new();
    NET.get_or_init(|| Network::from_bytes(kp_net_bytes()).expect("the K+P net loads"))
}

#[test]
fn a_k_p_net_loads_and_evaluates_as_yaneuraou_does() {
    let bytes = kp_net_bytes();
    assert_eq!(bytes.len(), 893_928);
    assert_eq!(&bytes[4..8], &0x5C64_64A9u32.to_le_bytes());
    let net = kp_net();
    assert_eq!(net.arch, KP_256);
    assert!(net.description.starts_with("Features=K+P[1710->256x2]"));
    assert_eq!(net.to_bytes(), bytes);
    let refs = reference_file("kp-random-seed1.tsv");
    assert_eq!(refs.len(), reference().len());
    assert!(refs.iter().all(|(_, v)| *v != 0));
    for k in nnue::Kernel::available() {
        for (sfen, expected) in &refs {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(net.evaluate_with(k, &pos), *expected, "{k:?} {sfen}");
            // K+P sees the board from the side to move too.
            let flipped = Position::from_sfen(&colour_swapped(sfen)).unwrap();
            assert_eq!(
                net.evaluate_with(k, &flipped),
                *expected,
                "{k:?} {sfen} flipped"
            );
        }
    }
}

#[test]
fn k_p_sums_carried_and_stacked_equal_sums_from_scratch() {
    let refs = reference_file("kp-random-seed1.tsv");
    check_carried_sums(kp_net(), &refs);
    check_lazy_stack(kp_net(), &refs);
}

#[test]
fn search_plays_with_a_k_p_net_and_training_one_is_refused() {
    let path = common::scratch_path("kp-nn.bin");
    std::fs::write(&path, kp_net_bytes()).unwrap();
    let out = run_search(&format!(
        "usi\nsetoption name USI_Hash value 16\nsetoption name USI_OwnBook value false\n\
         setoption name EvalFile value {}\nisready\n\
         position startpos moves 7g7f 3c3d 8h2b+\neval\ngo depth 5\n",
        path.display()
    ));
    assert!(
        out.iter().any(|l| l.contains("NNUE KP_256x2-32-32")),
        "{out:?}"
    );
    // Checked against YaneuraOu as the reference file's values are.
    assert!(out.iter().any(|l| l == "eval = 1032"), "{out:?}");
    assert!(
        out.iter()
            .any(|l| l.starts_with("bestmove ") && l != "bestmove resign"),
        "{out:?}"
    );

    let data = common::scratch_path("kp-train.txt");
    std::fs::write(&data, "").unwrap();
    let train = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["learn", "nnue-train", "--arch", "kp_256x2-32-32", "--out"])
        .arg(common::scratch_path("kp-out.bin"))
        .arg(&data)
        .output()
        .expect("run gougi learn");
    assert!(!train.status.success());
    let err = String::from_utf8_lossy(&train.stderr);
    assert!(
        err.contains("halfKP architectures only") && err.contains("KP_256x2-32-32"),
        "{err}"
    );
}
