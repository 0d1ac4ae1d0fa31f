//! `gougi match` end to end: the real binary runs games between scripted mock engines (every
//! game-end rule, time loss, illegal move, crash, colours, SPRT) and, once, between the built-in
//! search and Fairy-Stockfish.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{mock_engine_path, scratch_dir};

/// A mock engine spec for `--engine`: the script goes to a file in `dir`.
fn mock(dir: &Path, name: &str, script: &str) -> String {
    let path = dir.join(format!("{name}.script"));
    std::fs::write(&path, format!("id name {name}\n{script}\n")).unwrap();
    format!(
        "cmd=\"{} {}\" name={name}",
        mock_engine_path().display(),
        path.display()
    )
}

/// `go:` entries, one per move, in order.
fn moves(list: &[&str]) -> String {
    list.iter()
        .map(|m| format!("go: bestmove {m}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn run_match(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gougi"))
        .arg("match")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("run gougi match")
}

/// Runs a match with `engines` and `extra` arguments into a fresh folder; returns it and the
/// stdout. Panics (with stderr) if gougi fails.
fn play(tag: &str, engines: &[String], extra: &[&str]) -> (PathBuf, String) {
    let out = scratch_dir(tag).join("out");
    let mut args = Vec::new();
    for e in engines {
        args.push("--engine".to_owned());
        args.push(e.clone());
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.push("--out".into());
    args.push(out.display().to_string());
    let o = run_match(&args);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "gougi match failed: {}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    (out, stdout)
}

/// A match between mock engines `A` and `B` with these scripts, optional opening lines, and
/// extra arguments; returns the output folder and stdout.
fn duel(tag: &str, a: &str, b: &str, openings: Option<&str>, extra: &[&str]) -> (PathBuf, String) {
    let dir = scratch_dir(tag);
    let engines = [mock(&dir, "A", a), mock(&dir, "B", b)];
    let mut args: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    if let Some(text) = openings {
        let path = dir.join("openings.txt");
        std::fs::write(&path, text).unwrap();
        args.push("--openings".into());
        args.push(path.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    play(&format!("{tag}-run"), &engines, &args)
}

/// summary.json, parsed (a parse failure fails the test).
fn summary(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("summary.json: {e}\n{text}"))
}

/// The games of summary.json, one line each, the main fields in a fixed order:
/// `{"index": 1, "black": "A", …, "record": "games/0001-A-vs-B.kif"}`.
fn game_lines(out: &Path) -> Vec<String> {
    let keys = [
        "index", "black", "white", "opening", "result", "reason", "detail", "plies", "record",
    ];
    summary(out)["games"]
        .as_array()
        .expect("a games array")
        .iter()
        .map(|g| {
            let fields: Vec<String> = keys
                .iter()
                .map(|k| format!("\"{k}\": {}", serde_json::to_string(&g[*k]).unwrap()))
                .collect();
            format!("{{{}}}", fields.join(", "))
        })
        .collect()
}

/// A record or summary file as text; a `.kif` (CP932) is read as its UTF-8 twin, `.kifu`,
/// after checking that the two hold the same text.
fn read(out: &Path, file: &str) -> String {
    if let Some(stem) = file.strip_suffix(".kif") {
        let kifu = read(out, &format!("{stem}.kifu"));
        let bytes = std::fs::read(out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(&bytes);
        assert!(!bad, "{file} is not CP932");
        assert_eq!(text, kifu, "{file} and its .kifu differ");
        return kifu;
    }
    std::fs::read_to_string(out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn checkmate_ends_the_game_with_exact_records() {
    let (out, stdout) = duel(
        "arena-mate",
        "go: bestmove G*5b",
        "go: bestmove resign",
        Some("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\n"),
        &["--games", "1", "--byoyomi", "2000"],
    );
    assert!(stdout.contains("A vs B: +1 =0 -0 (1 games)"), "{stdout}");
    assert!(stdout.contains("game ends: checkmate 1"), "{stdout}");
    assert_eq!(
        game_lines(&out),
        vec![
            "{\"index\": 1, \"black\": \"A\", \"white\": \"B\", \"opening\": \"sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\", \
\"result\": \"1-0\", \"reason\": \"checkmate\", \"detail\": null, \"plies\": 1, \"record\": \"games/0001-A-vs-B.kif\"}"
        ]
    );
    let kif = read(&out, "games/0001-A-vs-B.kif");
    let body: Vec<&str> = kif.lines().skip_while(|l| !l.starts_with("手数")).collect();
    assert_eq!(
        body,
        vec![
            "手数----指手---------消費時間--",
            "   1 ５二金打   ( 0:00/00:00:00)",
            "   2 詰み",
            "まで1手で先手の勝ち"
        ]
    );
    assert!(kif.contains("先手：A\n後手：B\n"), "{kif}");
    assert!(
        kif.contains("v玉"),
        "a board diagram for the SFEN start: {kif}"
    );
    let csa = read(&out, "games/0001-A-vs-B.csa");
    assert!(csa.starts_with("V2.2\nN+A\nN-B\n"), "{csa}");
    assert!(csa.contains("\nP3 *  *  *  * +FU *  *  *  * \n"), "{csa}");
    assert!(
        csa.contains("\nP9 *  *  *  * +OU *  *  *  * \nP+00KI\n+\n+0052KI\nT0\n%TSUMI\n"),
        "{csa}"
    );
    assert_eq!(
        read(&out, "games.sfen"),
        "sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b\n"
    );
    let svg = read(&out, "elo.svg");
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "{svg}"
    );
}

#[test]
fn every_opening_is_played_with_both_colours() {
    let (out, stdout) = duel(
        "arena-colours",
        "go: bestmove resign",
        "go: bestmove 7g7f",
        Some("# two openings\nstartpos\n\nstartpos moves 2g2f 8c8d\n"),
        &["--byoyomi", "1000"],
    );
    assert!(stdout.contains("A vs B: +0 =0 -4 (4 games)"), "{stdout}");
    let games = game_lines(&out);
    let shape: Vec<String> = games
        .iter()
        .map(|g| {
            let field = |k: &str| {
                let i = g.find(&format!("\"{k}\": \"")).unwrap() + k.len() + 5;
                g[i..i + g[i..].find('"').unwrap()].to_owned()
            };
            format!(
                "{} {} {} {} {}",
                field("black"),
                field("white"),
                field("opening"),
                field("result"),
                field("reason")
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            "A B startpos 0-1 resign",
            "B A startpos 1-0 resign",
            "A B startpos moves 2g2f 8c8d 0-1 resign",
            "B A startpos moves 2g2f 8c8d 1-0 resign",
        ]
    );
    // Opening moves are marked in the KIF and take no time.
    let kif = read(&out, "games/0003-A-vs-B.kif");
    assert!(kif.contains("   1 ２六歩(27)   ( 0:00/00:00:00)\n   2 ８四歩(83)   ( 0:00/00:00:00)\n*opening ends\n   3 投了\nまで2手で後手の勝ち\n"), "{kif}");
}

#[test]
fn illegal_and_unparsable_moves_lose() {
    let (out, _) = duel(
        "arena-illegal",
        "go: bestmove 5e5d",
        "go: bestmove xyz",
        None,
        &["--games", "2", "--byoyomi", "1000"],
    );
    let games = game_lines(&out);
    assert!(games[0].contains("\"black\": \"A\"") && games[0].contains("\"result\": \"0-1\", \"reason\": \"illegal move\", \"detail\": \"5e5d (no piece on the origin square)\""), "{}", games[0]);
    assert!(games[1].contains("\"black\": \"B\"") && games[1].contains("\"result\": \"0-1\", \"reason\": \"illegal move\", \"detail\": \"bestmove xyz (not a USI move)\""), "{}", games[1]);
    let kif = read(&out, "games/0001-A-vs-B.kif");
    assert!(kif.ends_with("   1 反則負け\n*illegal move by 先手: 5e5d (no piece on the origin square)\nまで0手で先手の反則負け\n"), "{kif}");
    let csa = read(&out, "games/0001-A-vs-B.csa");
    assert!(csa.contains("%ILLEGAL_MOVE\n'gougi result: white (-) wins by illegal move: 5e5d (no piece on the origin square)\n'gougi-game {"), "{csa}");
}

#[test]
fn a_slow_move_loses_on_time() {
    let (out, stdout) = duel(
        "arena-time",
        "go: busy 900 ; bestmove 7g7f",
        "go: bestmove 3c3d",
        None,
        &["--games", "1", "--byoyomi", "100", "--grace", "50"],
    );
    assert!(stdout.contains("game ends: time loss 1"), "{stdout}");
    let games = game_lines(&out);
    assert!(
        games[0].contains("\"result\": \"0-1\", \"reason\": \"time loss\""),
        "{}",
        games[0]
    );
    // Which side, how late, the limit: A answered its `stop` only after its 900 ms of work.
    let detail = summary(&out)["games"][0]["detail"]
        .as_str()
        .expect("a time loss has a detail")
        .to_owned();
    let took: f64 = detail
        .strip_prefix("Black (A) took ")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("{detail}"))
        .parse()
        .unwrap();
    assert!((0.85..1.1).contains(&took), "{detail}");
    assert!(
        detail.ends_with("over the limit of 0.150 s (allowance 0.100 s + grace 0.050 s)"),
        "{detail}"
    );
    let kif = read(&out, "games/0001-A-vs-B.kif");
    assert!(
        kif.ends_with(&format!(
            "   1 切れ負け\n*time loss: {detail}\nまで0手で時間切れにより後手の勝ち\n"
        )),
        "{kif}"
    );
    let csa = read(&out, "games/0001-A-vs-B.csa");
    assert!(
        csa.contains(&format!(
            "\n%TIME_UP\n'gougi result: white (-) wins by time loss: {detail}\n"
        )),
        "{csa}"
    );
    // An engine that never answers is killed a second after `stop`: no time to report.
    let (out, _) = duel(
        "arena-time-hang",
        "go: hang",
        "go: bestmove 3c3d",
        None,
        &["--games", "1", "--byoyomi", "100", "--grace", "50"],
    );
    let detail = summary(&out)["games"][0]["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        detail,
        "Black (A) sent no move within the limit of 0.150 s (allowance 0.100 s + grace 0.050 s)"
    );
}

#[test]
fn without_byoyomi_the_grace_is_spent_once_per_game() {
    // Sudden death 300 ms, grace 400: A thinks 150 ms a move, so its clock is gone after two
    // moves and every later move overdraws. A per-move grace let it play on for ever (here to
    // the end of its script, then an illegal move); the grace as one overdraft for the game
    // ends it on time at its fifth move (its fourth if the pipes add 25 ms a move).
    let a = [
        "7g7f", "2g2f", "2f2e", "6g6f", "5i6h", "4i5h", "3i4h", "1g1f",
    ]
    .map(|m| format!("go: sleep 150 ; bestmove {m}"))
    .join("\n");
    let b = moves(&[
        "3c3d", "8c8d", "8d8e", "4a3b", "5a4b", "7a6b", "6a5b", "1c1d",
    ]);
    let (out, stdout) = duel(
        "arena-overdraft",
        &a,
        &b,
        None,
        &["--games", "1", "--time", "300", "--grace", "400"],
    );
    assert!(stdout.contains("game ends: time loss 1"), "{stdout}");
    let game = &summary(&out)["games"][0];
    assert_eq!(game["result"], "0-1", "{game}");
    let plies = game["plies"].as_u64().unwrap();
    assert!(plies == 6 || plies == 8, "{game}");
    // The limit is what the overdraft left of the grace (0.100 s, less the pipes' share).
    let detail = game["detail"].as_str().unwrap();
    let grace: f64 = detail
        .rsplit("grace ")
        .next()
        .and_then(|g| g.strip_suffix(" s)"))
        .unwrap_or_else(|| panic!("{detail}"))
        .parse()
        .unwrap();
    assert!(grace < 0.25, "{detail}");
    assert!(detail.contains("(allowance 0.000 s + grace"), "{detail}");
}

#[test]
fn a_crashing_engine_loses_and_is_restarted() {
    let dir = scratch_dir("arena-crash");
    let transcript = dir.join("a.log");
    let a = mock(
        &dir,
        "A",
        &format!(
            "transcript: {}\ngo: info score cp 5 pv 2g2f ; exit 3",
            transcript.display()
        ),
    );
    let b = mock(&dir, "B", "go: bestmove 7g7f");
    let (out, stdout) = play(
        "arena-crash-run",
        &[a, b],
        &["--games", "2", "--byoyomi", "1000"],
    );
    assert!(stdout.contains("A vs B: +0 =0 -2 (2 games)"), "{stdout}");
    let games = game_lines(&out);
    assert!(games[0].contains("\"black\": \"A\"") && games[0].contains("\"result\": \"0-1\", \"reason\": \"crash\", \"detail\": \"exited with status 3\", \"plies\": 0"), "{}", games[0]);
    assert!(games[1].contains("\"black\": \"B\"") && games[1].contains("\"result\": \"1-0\", \"reason\": \"crash\", \"detail\": \"exited with status 3\", \"plies\": 1"), "{}", games[1]);
    // Three processes said hello: the start-up probe, game 1, and the restart for game 2.
    let log = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(log.lines().filter(|l| *l == "usi").count(), 3, "{log}");
    assert!(read(&out, "games/0002-B-vs-A.kif").contains("*後手 engine exited with status 3\n"));
}

#[test]
fn fourfold_repetition_is_a_draw_and_max_plies_too() {
    let a = moves(&["5i4h", "4h5i", "5i4h", "4h5i", "5i4h", "4h5i"]);
    let b = moves(&["5a4b", "4b5a", "5a4b", "4b5a", "5a4b", "4b5a"]);
    let (out, stdout) = duel(
        "arena-rep",
        &a,
        &b,
        None,
        &["--games", "1", "--byoyomi", "1000"],
    );
    assert!(stdout.contains("A vs B: +0 =1 -0 (1 games)"), "{stdout}");
    let games = game_lines(&out);
    assert!(
        games[0].contains(
            "\"result\": \"1/2-1/2\", \"reason\": \"repetition\", \"detail\": null, \"plies\": 12"
        ),
        "{}",
        games[0]
    );
    assert!(read(&out, "games/0001-A-vs-B.kif").ends_with("  13 千日手\nまで12手で千日手\n"));
    assert!(read(&out, "games/0001-A-vs-B.csa").contains("\n%SENNICHITE\n"));

    let (out, _) = duel(
        "arena-maxply",
        &a,
        &b,
        None,
        &["--games", "1", "--byoyomi", "1000", "--max-plies", "5"],
    );
    let games = game_lines(&out);
    assert!(
        games[0].contains(
            "\"result\": \"1/2-1/2\", \"reason\": \"max plies\", \"detail\": null, \"plies\": 5"
        ),
        "{}",
        games[0]
    );
    assert!(read(&out, "games/0001-A-vs-B.csa").contains("\n%MAX_MOVES\n"));
}

#[test]
fn perpetual_check_loses_for_the_checking_side() {
    let a = moves(&["9i9a", "9a9b", "9b9a", "9a9b", "9b9a", "9a9b", "9b9a"]);
    let b = moves(&["5a5b", "5b5a", "5a5b", "5b5a", "5a5b", "5b5a", "5a5b"]);
    let (out, _) = duel(
        "arena-perpetual",
        &a,
        &b,
        Some("sfen 4k4/9/9/9/9/9/9/9/R3K4 b - 1\n"),
        &["--games", "1", "--byoyomi", "1000"],
    );
    let games = game_lines(&out);
    assert!(
        games[0].contains(
            "\"result\": \"0-1\", \"reason\": \"perpetual check\", \"detail\": null, \"plies\": 13"
        ),
        "{}",
        games[0]
    );
    assert!(read(&out, "games/0001-A-vs-B.kif")
        .ends_with("  14 反則負け\n*連続王手の千日手\nまで13手で先手の反則負け\n"));
}

#[test]
fn declarations_are_checked_not_trusted() {
    // Black: king on 5b, ten tokin in the zone, two rooks and two bishops in hand: 30 points.
    let (out, _) = duel(
        "arena-declare",
        "go: bestmove win",
        "go: bestmove win",
        Some("sfen +P+P+P+P+P+P+P+P+P/4K3+P/9/9/9/9/9/9/4k4 b 2R2B4g4s4n4l8p 1\nstartpos\n"),
        &["--games", "3", "--byoyomi", "1000"],
    );
    let games = game_lines(&out);
    assert!(
        games[0].contains("\"black\": \"A\"")
            && games[0].contains("\"result\": \"1-0\", \"reason\": \"declaration\""),
        "{}",
        games[0]
    );
    assert!(
        games[1].contains("\"black\": \"B\"")
            && games[1].contains("\"result\": \"1-0\", \"reason\": \"declaration\""),
        "{}",
        games[1]
    );
    // From the start position a declaration is false: the declarer loses.
    assert!(
        games[2].contains("\"black\": \"A\"")
            && games[2].contains("\"result\": \"0-1\", \"reason\": \"false declaration\""),
        "{}",
        games[2]
    );
    assert!(read(&out, "games/0001-A-vs-B.kif").ends_with("   1 入玉勝ち\nまで0手で先手の勝ち\n"));
    assert!(read(&out, "games/0001-A-vs-B.csa").contains("\n%KACHI\n"));
}

#[test]
fn sprt_stops_the_match_early() {
    let (out, stdout) = duel(
        "arena-sprt",
        "go: bestmove resign",
        "go: bestmove 7g7f",
        None,
        &[
            "--games",
            "200",
            "--byoyomi",
            "1000",
            "--sprt",
            "0",
            "10",
            "0.05",
            "0.05",
        ],
    );
    let games = game_lines(&out);
    assert!(games.len() < 200, "played {}", games.len());
    // The verdict names the bound it crossed, with the LLR and the bounds.
    assert!(
        stdout.contains("SPRT elo0 0 elo1 10 alpha 0.05 beta 0.05: H0 accepted at game ")
            && stdout.contains("crossed the lower bound -2.944; bounds [-2.944, 2.944])"),
        "{stdout}"
    );
    let json = summary(&out);
    assert_eq!(json["stopped_early"], true);
    assert_eq!(json["sprt"]["result"], "H0");
    assert_eq!(json["sprt"]["bound_crossed"], "lower");
}

#[test]
fn an_engine_that_cannot_start_stops_the_match_with_its_name() {
    let dir = scratch_dir("arena-nostart");
    let a = mock(&dir, "Silent", "usi: say nothing here");
    let b = mock(&dir, "B", "go: bestmove 7g7f");
    let o = run_match(&[
        "--engine".into(),
        a,
        "--engine".into(),
        b,
        "--byoyomi".into(),
        "100".into(),
        "--usi-timeout".into(),
        "300".into(),
        "--no-files".into(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("engine Silent") && err.contains("usi"),
        "{err}"
    );
    // A missing time control is refused before anything starts.
    let o = run_match(&[
        "--engine".into(),
        "cmd=builtin:search".into(),
        "--engine".into(),
        "cmd=builtin:search".into(),
        "--no-files".into(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no time control"));
}

#[test]
fn builtin_search_plays_fairy_stockfish() {
    let fsf = common::tools::FAIRY;
    if !common::tools::have_engines(&[fsf]) {
        return;
    }
    let (out, stdout) = play(
        "arena-e2e-run",
        &[
            "cmd=builtin:search name=gougi option.USI_Hash=16".to_owned(),
            format!("cmd={fsf} name=fsf option.Threads=1 option.USI_Hash=16"),
        ],
        &[
            "--nodes",
            "3000",
            "--max-plies",
            "60",
            "--games",
            "2",
            "--openings",
            "tests/data/openings/balanced-16.txt",
            "--nodes-jitter",
            "10",
            "--seed",
            "5",
        ],
    );
    assert!(stdout.contains("gougi vs fsf: +"), "{stdout}");
    assert!(
        stdout.contains("nodes 3000 (node budgets ±10%, seed 5)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("distinct games: 2 of 2\n"), "{stdout}");
    let games = game_lines(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        // Real engines neither crash nor play illegal moves nor lose on time here.
        for bad in ["crash", "illegal", "time loss"] {
            assert!(!g.contains(bad), "{g}");
        }
    }
    // Every recorded game replays legally from its opening.
    for line in read(&out, "games.sfen").lines() {
        gougi::shogi::Position::from_usi_position(line).unwrap();
    }
}

#[test]
fn node_budgets_vary_with_jitter_and_repeats_are_reported() {
    let dir = scratch_dir("arena-jitter");
    let log = dir.join("a.log");
    let a = format!(
        "transcript: {}\n{}",
        log.display(),
        moves(&["5i4h", "4h5i", "5i4h", "4h5i"])
    );
    let b = moves(&["5a4b", "4b5a", "5a4b", "4b5a"]);
    let (_, stdout) = duel(
        "arena-jitter",
        &a,
        &b,
        None,
        &[
            "--games",
            "1",
            "--nodes",
            "1000",
            "--nodes-jitter",
            "30",
            "--max-plies",
            "8",
        ],
    );
    let budgets: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("go nodes "))
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(budgets.len(), 4, "{budgets:?}");
    assert!(
        budgets.iter().all(|n| (700..=1300).contains(n)),
        "{budgets:?}"
    );
    assert!(budgets.iter().any(|&n| n != budgets[0]), "{budgets:?}");
    assert!(stdout.contains("distinct games: 1 of 1\n"), "{stdout}");

    // Scripted engines replay the same game: the summary says so.
    let (_, stdout) = duel(
        "arena-repeats",
        "go: bestmove resign",
        "go: bestmove 7g7f",
        None,
        &["--games", "4", "--byoyomi", "1000"],
    );
    assert!(
        stdout.contains("distinct games: 2 of 4 — repeated games make the interval too narrow"),
        "{stdout}"
    );
}

/// The `position`, `go`, `ponderhit`, `stop` and `gameover` lines of a mock's transcript.
fn usi_transcript(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            ["position", "go", "ponderhit", "stop", "gameover"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_string)
        .collect()
}

/// `lines` without its last line when that is a `gameover`, which must be nowhere else. The
/// runner kills its engines right after `gameover` and `quit` at the end of a match, so the
/// mock may not have written it yet; when it did, it came after everything else.
fn before_gameover(mut lines: Vec<String>) -> Vec<String> {
    if lines.last().is_some_and(|l| l.starts_with("gameover")) {
        lines.pop();
    }
    assert!(
        !lines.iter().any(|l| l.starts_with("gameover")),
        "{lines:?}"
    );
    lines
}

/// A and B for the ponder tests, with transcripts. A predicts both of B's replies (two hits,
/// the first after B thought a second; then A resigns), B predicts 2g2f and A plays 6g6f (a
/// miss); B is still pondering when A resigns. A ponder's entry is the one its `go ponder`
/// takes, run at `ponderhit` or `stop`. The transcripts are cut before a final `gameover`.
fn ponder_duel(tag: &str, extra: &[&str]) -> (PathBuf, String, Vec<String>, Vec<String>) {
    let dir = scratch_dir(tag);
    let (la, lb) = (dir.join("a.log"), dir.join("b.log"));
    let a = format!(
        "transcript: {}\n\
         go: info depth 1 score cp 10 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\n\
         go: bestmove 6g6f ponder 8c8d\n\
         go: bestmove resign",
        la.display()
    );
    let b = format!(
        "transcript: {}\n\
         go: sleep 1000 ; bestmove 3c3d ponder 2g2f\n\
         go: bestmove 2h2f\n\
         go: bestmove 8c8d ponder 7f7e\n\
         go: bestmove 1c1d",
        lb.display()
    );
    let mut args = vec!["--games", "1", "--ponder"];
    args.extend_from_slice(extra);
    let (out, stdout) = duel(tag, &a, &b, None, &args);
    let (a, b) = (usi_transcript(&la), usi_transcript(&lb));
    (out, stdout, before_gameover(a), before_gameover(b))
}

#[test]
fn both_sides_ponder_with_node_budgets_as_the_cluster_frame_says() {
    let (out, stdout, a, b) = ponder_duel("arena-ponder-nodes", &["--nodes", "5000"]);
    // A hit: `go ponder nodes (own + opponent's)`, then a plain `ponderhit`; no second `go`.
    assert_eq!(
        a,
        [
            "position startpos",
            "go nodes 5000",
            "position startpos moves 7g7f 3c3d",
            "go ponder nodes 10000",
            "ponderhit",
            "position startpos moves 7g7f 3c3d 6g6f 8c8d",
            "go ponder nodes 10000",
            "ponderhit",
        ]
    );
    // A miss: `stop` (its answer, 2h2f, dropped), then the real position with its own budget;
    // the ponder still running when A resigns is stopped (before any `gameover`).
    assert_eq!(
        b,
        [
            "position startpos moves 7g7f",
            "go nodes 5000",
            "position startpos moves 7g7f 3c3d 2g2f",
            "go ponder nodes 10000",
            "stop",
            "position startpos moves 7g7f 3c3d 6g6f",
            "go nodes 5000",
            "position startpos moves 7g7f 3c3d 6g6f 8c8d 7f7e",
            "go ponder nodes 10000",
            "stop",
        ]
    );
    assert!(stdout.contains("A vs B: +0 =0 -1 (1 games)"), "{stdout}");
    assert!(stdout.contains(", ponder\n"), "{stdout}");
    assert!(
        stdout.contains("ponder hits: A 2/2 (100.0 %), B 0/1 (0.0 %)\n"),
        "{stdout}"
    );
    // The counts are in the game's record line (what a resume reads) and summary.json.
    let csa = read(&out, "games/0001-A-vs-B.csa");
    assert!(
        csa.contains("\"black_ponders\":2,\"black_ponder_hits\":2,\"white_ponders\":1}"),
        "{csa}"
    );
    let s = summary(&out);
    assert_eq!(s["engines"][0]["ponder"]["hits"], 2);
    assert_eq!(s["engines"][1]["ponder"]["ponders"], 1);
    assert_eq!(s["engines"][1]["ponder"]["rate"], 0.0);
}

#[test]
fn a_ponder_under_a_clock_carries_the_clock_and_a_hit_is_timed_from_ponderhit() {
    let (out, stdout, a, b) = ponder_duel("arena-ponder-clock", &["--byoyomi", "2000"]);
    assert_eq!(
        a[..5],
        [
            "position startpos",
            "go btime 0 wtime 0 byoyomi 2000",
            "position startpos moves 7g7f 3c3d",
            "go ponder btime 0 wtime 0 byoyomi 2000",
            "ponderhit",
        ]
    );
    assert_eq!(
        b[4..7],
        [
            "stop",
            "position startpos moves 7g7f 3c3d 6g6f",
            "go btime 0 wtime 0 byoyomi 2000",
        ]
    );
    assert!(
        stdout.contains("ponder hits: A 2/2 (100.0 %), B 0/1 (0.0 %)\n"),
        "{stdout}"
    );
    // A's pondered moves answered at the hit: its time counts from there, not from its
    // `go ponder`, which came a second (B's first move) earlier.
    let s = summary(&out);
    assert!(
        s["games"][0]["black_time_ms"].as_u64().unwrap() < 1_000,
        "{s}"
    );
}

#[test]
fn an_engine_that_does_not_answer_stop_after_a_ponder_miss_loses() {
    // B's stopped ponder never answers: after a second it is killed and loses, as an engine
    // that does not answer `stop` after a `go` does.
    let dir = scratch_dir("arena-ponder-hang");
    let a = "go: bestmove 7g7f ponder 3c3d\ngo: bestmove 6g6f\ngo: bestmove resign";
    let b = "go: bestmove 3c3d ponder 2g2f\ngo: hang";
    let engines = [mock(&dir, "A", a), mock(&dir, "B", b)];
    let (out, stdout) = play(
        "arena-ponder-hang-run",
        &engines,
        &["--games", "1", "--ponder", "--nodes", "1000"],
    );
    assert!(stdout.contains("A vs B: +1 =0 -0 (1 games)"), "{stdout}");
    let g = &summary(&out)["games"][0];
    assert_eq!(g["reason"], "crash");
    assert_eq!(
        g["detail"],
        "did not answer in time (the `bestmove` owed for `stop` after a ponder miss)"
    );
}

#[test]
fn a_one_member_cluster_plays_the_games_of_the_engine_alone() {
    // The cluster frame's self-test in small (BENCHMARKS "Cluster frame"): at equal node
    // budgets, gougi with one `builtin:search` member must add nothing between the referee and
    // its member, so its games are the very games `gougi search` plays in its place (the search
    // is deterministic at a node count). A budget gougi changed on the way (a leader's reserve
    // kept back from a lone member, say) would change them. Without `--ponder`: a missed ponder
    // is stopped wherever the clock finds it, and what it leaves in the hash varies.
    let games = |tag: &str, first: &str| {
        let (out, stdout) = play(
            tag,
            &[
                first.to_owned(),
                "cmd=builtin:search name=search".to_owned(),
            ],
            &[
                "--nodes",
                "2000",
                "--nodes-jitter",
                "10",
                "--seed",
                "5",
                "--games",
                "2",
                "--max-plies",
                "100",
                "--openings",
                "tests/data/openings/heldout-512.txt",
            ],
        );
        assert!(stdout.contains("distinct games: 2 of 2\n"), "{stdout}");
        read(&out, "games.sfen")
    };
    let alone = games("arena-frame-alone", "cmd=builtin:search name=x");
    let one = games(
        "arena-frame-one",
        "config=docs/configs/frame-one.config name=x",
    );
    assert_eq!(alone.lines().count(), 2, "{alone}");
    assert_eq!(one, alone);
}

/// `gougi calibrate --player PLAYER` over `files` of `dir`.
fn calibrate(dir: &std::path::Path, player: &str, files: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["calibrate", "--player", player])
        .args(files.iter().map(|f| dir.join(f)))
        .output()
        .unwrap()
}

#[test]
fn calibrate_fits_a_scale_from_match_records() {
    // Two hand-written games: alpha's scores point the right way, with one surprise.
    let dir = scratch_dir("calibrate");
    let win = "V2.2\nN+alpha\nN-beta\nPI\n+\n+7776FU\nT1\n'** 300\n-3334FU\nT1\n'** 100\n+2726FU\nT0\n'** 600\n%TORYO\n";
    let loss = "V2.2\nN+beta\nN-alpha\nPI\n+\n+7776FU\nT1\n'** 200\n-3334FU\nT1\n'** -400\n+2726FU\nT0\n'** 100\n-8384FU\nT0\n'** -900\n%TORYO\n";
    std::fs::write(dir.join("a.csa"), win).unwrap();
    std::fs::write(dir.join("b.csa"), loss).unwrap();
    let o = calibrate(&dir, "alpha", &["a.csa", "b.csa"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    // Game a: after three moves White is to move and resigns: Black (alpha) won; alpha's samples
    // (300, 1), (600, 1). Game b: alpha is White; after four moves Black is to move and resigns:
    // Black's result is 0; alpha's samples (-400, 0), (-900, 0). All four are "right", so the likelihood keeps rising as the scale
    // shrinks: the fit sits at the bottom of its range and says so.
    assert!(out.starts_with("Engine<N>.Scale=10 "), "{out}");
    assert!(out.contains("alpha: 4 scored moves in 2 games"), "{out}");
    assert!(out.contains("# warning: the fit hit the edge"), "{out}");
    // alpha won both (as Black in a, as White in b): 100 %, the weight's cap.
    assert!(
        out.contains(
            "Engine<N>.Weight=100.000   # alpha: +2 =0 -0 (100.0 %) against its opponents"
        ),
        "{out}"
    );
    // With one contrary sample the maximum is interior: computed independently (Python, golden
    // section on the same cross-entropy): 269.71 for (300, 1), (-250, 1), (-400, 0), (-900, 0).
    let contrary = win.replace("'** 600", "'** -250");
    std::fs::write(dir.join("c.csa"), contrary).unwrap();
    let o = calibrate(&dir, "alpha", &["c.csa", "b.csa"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("Engine<N>.Scale=270 "), "{out}");
    assert!(!out.contains("warning"), "{out}");
    // beta lost b; with a drawn copy of it (sennichite) beta has ½ of 2: odds 1/3.
    std::fs::write(dir.join("b2.csa"), loss.replace("%TORYO", "%SENNICHITE")).unwrap();
    let o = calibrate(&dir, "beta", &["b.csa", "b2.csa"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Engine<N>.Weight=0.333   # beta: +0 =1 -1 (25.0 %)"),
        "{out}"
    );
    // Nothing to fit: a clear error.
    let o = calibrate(&dir, "nobody", &["a.csa"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no finished game of \"nobody\""));
}

#[test]
fn tally_pools_the_records_of_several_runs() {
    // Run 1: A mates at once as Black, and B resigns as Black: A wins both games. Run 2: the
    // scripts swapped, A loses both. Pooled: 2 wins, 2 losses, an even score.
    let opening = Some("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\n");
    let args = ["--games", "2", "--byoyomi", "2000"];
    let (one, s1) = duel(
        "tally-1",
        "go: bestmove G*5b",
        "go: bestmove resign",
        opening,
        &args,
    );
    assert!(s1.contains("A vs B: +2 =0 -0 (2 games)"), "{s1}");
    let (two, s2) = duel(
        "tally-2",
        "go: bestmove resign",
        "go: bestmove G*5b",
        opening,
        &args,
    );
    assert!(s2.contains("A vs B: +0 =0 -2 (2 games)"), "{s2}");
    let mut files = Vec::new();
    for dir in [&one, &two] {
        let mut csa: Vec<PathBuf> = std::fs::read_dir(dir.join("games"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "csa"))
            .collect();
        csa.sort();
        files.extend(csa);
    }
    assert_eq!(files.len(), 4);
    // `gougi tally --player A <args> <the four records>`.
    let tally = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_gougi"))
            .args(["tally", "--player", "A"])
            .args(args)
            .args(&files)
            .output()
            .unwrap()
    };
    let os = |a: &'static str| std::ffi::OsStr::new(a);
    let plot = one.join("pooled.svg");
    let o = tally(&[os("--svg"), plot.as_os_str()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.starts_with("A vs B: +2 =0 -2 (4 games) score 50.0% Elo +0.0"),
        "{out}"
    );
    assert!(
        out.contains("games per opponent: B 4; 2 as Black; skipped by end line: 0"),
        "{out}"
    );
    assert!(read(&one, "pooled.svg").starts_with("<svg"));
    // Leaving out the mates (%TSUMI) leaves the resignations: A won one, lost one.
    let o = tally(&[os("--skip-end"), os("%TSUMI")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("A vs B: +1 =0 -1 (2 games)"), "{out}");
    assert!(out.contains("skipped by end line: 2"), "{out}");
    // The SPRT in file order (A won, won, lost, lost): elo0 0, elo1 200, α = β = 0.2 crosses
    // ln 4 = 1.386 at game 2 (LLR 1.44948 by the GSPRT formula, computed in Python); over all
    // four games the LLR is −0.540. The crossing is the verdict.
    let o = tally(&["--sprt", "0", "200", "0.2", "0.2"].map(os));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(
            "SPRT elo0 0 elo1 200 alpha 0.2 beta 0.2: H1 accepted at game 2 (LLR 1.449 crossed \
             the upper bound 1.386; bounds [-1.386, 1.386])\n# LLR -0.540 over all 4 games in \
             file order\n"
        ),
        "{out}"
    );
    // Bad SPRT parameters are refused with the reason.
    let o = tally(&["--sprt", "10", "0", "0.05", "0.05"].map(os));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("SPRT needs elo0 < elo1, got 10 and 0"),
        "{err}"
    );
    // A reader that has gone (`gougi tally … | head -1`) ends the run quietly: exit 0 and
    // nothing on stderr, not an error with a backtrace.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["tally", "--player", "A"])
        .args(&files)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}

/// Record files of `out/games` with this extension, sorted.
fn record_files(out: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("games"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == ext));
    v.sort();
    v
}

/// `usi` lines in a mock's transcript: one per process started.
fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == "usi")
        .count()
}

#[test]
fn a_stopped_run_resumes_from_its_records() {
    let dir = scratch_dir("arena-resume");
    let log = dir.join("a.log");
    let a = mock(
        &dir,
        "A",
        &format!("transcript: {}\ngo: bestmove resign", log.display()),
    );
    let b = mock(&dir, "B", "go: bestmove 7g7f");
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "startpos\nstartpos moves 2g2f 8c8d\n").unwrap();
    let out = dir.join("out");
    let args: Vec<String> = [
        "--engine",
        &a,
        "--engine",
        &b,
        "--openings",
        &openings.display().to_string(),
        "--byoyomi",
        "1000",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = run_match(&args);
    assert!(o.status.success());
    assert_eq!(record_files(&out, "csa").len(), 4);
    // As if the run had stopped before game 3 (A Black, the second opening) ended: its files
    // are not there.
    for ext in ["csa", "kif", "kifu"] {
        std::fs::remove_file(out.join(format!("games/0003-A-vs-B.{ext}"))).unwrap();
    }
    let before = starts(&log);
    let o = run_match(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "resuming {}: 3 finished game(s) found in the records (A vs B 3); 1 game(s) to play",
            out.display()
        )),
        "{stderr}"
    );
    // Only the missing game was played (the start-up probe and one game's process), and the
    // summary holds all four, the missing one under its own number again.
    assert_eq!(starts(&log) - before, 2);
    assert!(stdout.contains("A vs B: +0 =0 -4 (4 games)"), "{stdout}");
    assert!(
        stdout.contains("resumed: 3 game(s) from earlier runs"),
        "{stdout}"
    );
    let games = game_lines(&out);
    assert_eq!(games.len(), 4);
    assert!(games[2].starts_with("{\"index\": 3, \"black\": \"A\", \"white\": \"B\", \"opening\": \"startpos moves 2g2f 8c8d\""), "{}", games[2]);
    assert_eq!(summary(&out)["resumed_games"], 3);
    // Nothing left: a third run plays nothing and starts no engine.
    let before = starts(&log);
    let o = run_match(&args);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("4 finished game(s) found in the records (A vs B 4); 0 game(s) to play"));
    assert_eq!(starts(&log), before);
    // The CSV has one row per game.
    let csv = read(&out, "games.csv");
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(csv.starts_with("index,pair,black,white,opening,result,reason,detail,plies,black_time_ms,white_time_ms,started,record\n1,A vs B,A,B,startpos,0-1,resign,,0,"), "{csv}");
}

/// Pids of the live (not zombie) processes whose parent is `parent`.
#[cfg(target_os = "linux")]
fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the `(comm)` field: state, ppid.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let mut f = rest.split(' ');
        let state = f.next().unwrap();
        let ppid: u32 = f.next().unwrap().parse().unwrap();
        if ppid == parent && state != "Z" {
            out.push(pid);
        }
    }
    out
}

#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let rest = &s[s.rfind(')').unwrap() + 2..];
        !rest.starts_with('Z')
    })
}

#[test]
#[cfg(target_os = "linux")]
fn ctrl_c_prints_the_summary_so_far_and_kills_the_engines() {
    let dir = scratch_dir("arena-sigint");
    // Each game lasts about 300 ms: A thinks, then resigns.
    let a = mock(&dir, "A", "go: busy 300 ; bestmove resign");
    let b = mock(&dir, "B", "go: busy 300 ; bestmove 7g7f");
    let out = dir.join("out");
    let args: Vec<String> = [
        "--engine",
        &a,
        "--engine",
        &b,
        "--games",
        "40",
        "--concurrency",
        "2",
        "--byoyomi",
        "2000",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let child = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .arg("match")
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = std::time::Instant::now();
    while record_files(&out, "csa").len() < 2 {
        assert!(t0.elapsed().as_secs() < 30, "no game finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let engines = children(pid);
    assert!(!engines.is_empty(), "engines running");
    // SAFETY: a plain signal to our own child.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("interrupted (Ctrl-C): the summary so far;"),
        "{stdout}"
    );
    let done = record_files(&out, "csa").len();
    assert!(done < 40, "{done}");
    assert!(
        stdout.contains(&format!("A vs B: +0 =0 -{done} ({done} games)")),
        "{stdout}"
    );
    let json = summary(&out);
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["games"].as_array().unwrap().len(), done);
    // No orphan engines: every engine process gougi had is gone.
    std::thread::sleep(std::time::Duration::from_millis(200));
    for e in engines {
        assert!(!alive(e), "engine {e} survived");
    }
    // The same command finishes the run.
    let o = run_match(&args);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("A vs B: +0 =0 -40 (40 games)"), "{stdout}");
    let mut indices: Vec<u64> = summary(&out)["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["index"].as_u64().unwrap())
        .collect();
    indices.dedup();
    assert_eq!(indices, (1..=40).collect::<Vec<u64>>());
}

#[test]
fn the_progress_line_shows_every_pairing() {
    let dir = scratch_dir("arena-progress");
    let engines = [
        mock(&dir, "A", "go: bestmove resign"),
        mock(&dir, "B", "go: bestmove 7g7f"),
        mock(&dir, "C", "go: bestmove 7g7f"),
    ];
    let mut args = vec!["match".to_owned()];
    for e in &engines {
        args.push("--engine".into());
        args.push(e.clone());
    }
    args.extend(["--games", "2", "--byoyomi", "1000", "--no-files"].map(String::from));
    let o = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    let last = stderr
        .lines()
        .rfind(|l| l.starts_with('['))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        last.ends_with("] 6/6 | A-B +0 =0 -2 | A-C +0 =0 -2 | B-C +1 =0 -1"),
        "{last}"
    );
}

#[test]
fn cshogi_reads_the_kif_records() {
    if !common::tools::have_cshogi() {
        return;
    }
    // Game 1: A (Black) 7g7f, 3c3d, 8h2b+ (a promotion), 3a2b (同), then A resigns. Game 2:
    // B as Black answers with White's move: an illegal move.
    let (out, _) = duel(
        "arena-cshogi",
        &moves(&["7g7f", "8h2b+", "resign"]),
        &moves(&["3c3d", "3a2b"]),
        None,
        &["--games", "2", "--byoyomi", "1000"],
    );
    let script = r#"
import sys, cshogi, cshogi.KIF as K
for path in sys.argv[1:]:
    p = K.Parser.parse_file(path)
    print(path.rsplit('.', 1)[1], p.names[0], p.names[1], p.win, p.endgame,
          ' '.join(cshogi.move_to_usi(m) for m in p.moves))
"#;
    let mut files = record_files(&out, "kif");
    files.extend(record_files(&out, "kifu"));
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(&files)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // cshogi: 1 = Black won, 2 = White won.
    for ext in ["kif", "kifu"] {
        assert!(
            text.contains(&format!("{ext} A B 2 %TORYO 7g7f 3c3d 8h2b+ 3a2b\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("{ext} B A 2 %ILLEGAL_MOVE \n")),
            "{text}"
        );
    }
}
