//! Opening books through the real binary: `gougi search` answering from a `BookFile` with the
//! choice options, and `gougi book make` from the records `gougi match` writes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{mock_engine_path, scratch_dir, Gougi};
use gougi::book::Book;
use gougi::shogi::Position;

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
/// After 7g7f 3c3d.
const AFTER_2: &str = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";

fn write_book(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("test.db");
    std::fs::write(&path, text).unwrap();
    path
}

/// The small book most tests use: two moves at the start, one after 7g7f 3c3d.
fn small_book(dir: &Path) -> PathBuf {
    write_book(
        dir,
        &format!(
            "#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f 3c3d 30 16 12\n2g2f none 10 16 3\n\
             sfen {AFTER_2}\n2g2f 8c8d 25 14 4\n"
        ),
    )
}

/// `gougi search` with these `setoption`s, after `usi`/`isready`; returns it and the lines
/// printed up to `readyok`.
fn search_with(options: &[(&str, &str)]) -> (Gougi, Vec<String>) {
    let mut g = Gougi::start(&["search"]);
    g.send("usi");
    g.until_prefix("usiok");
    for (name, value) in options {
        g.send(&format!("setoption name {name} value {value}"));
    }
    g.send("isready");
    let lines = g.until(Duration::from_secs(20), |l| l == "readyok");
    (g, lines)
}

/// The lines of one `go` up to `bestmove`.
fn go(g: &mut Gougi, position: &str, go: &str) -> Vec<String> {
    g.send(&format!("position {position}"));
    g.send(&format!("go {go}"));
    g.until_prefix("bestmove")
}

fn book_lines(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string book"))
        .collect()
}

#[test]
fn search_lists_the_book_options_with_yaneuraous_defaults() {
    let mut g = Gougi::start(&["search"]);
    g.send("usi");
    let lines = g.until_prefix("usiok");
    for want in [
        "option name USI_OwnBook type check default true",
        "option name BookFile type string default <empty>",
        "option name BookMoves type spin default 16 min 0 max 10000",
        "option name BookIgnoreRate type spin default 0 min 0 max 100",
        "option name BookEvalDiff type spin default 30 min 0 max 99999",
        "option name BookEvalBlackLimit type spin default 0 min -99999 max 99999",
        "option name BookEvalWhiteLimit type spin default -140 min -99999 max 99999",
        "option name BookDepthLimit type spin default 0 min 0 max 99999",
        "option name ConsiderBookMoveCount type check default false",
        "option name BookPvMoves type spin default 8 min 1 max 246",
        "option name BookSeed type spin default 0 min 0 max 2147483647",
    ] {
        assert!(
            lines.iter().any(|l| l == want),
            "{want} missing: {lines:#?}"
        );
    }
}

#[test]
fn search_plays_the_book_move_at_once_without_searching() {
    let dir = scratch_dir("book-search");
    let book = small_book(&dir);
    let (mut g, ready) =
        search_with(&[("BookFile", book.to_str().unwrap()), ("BookEvalDiff", "0")]);
    assert!(
        ready.contains(&format!(
            "info string book: {}: 2 positions, 3 moves",
            book.display()
        )),
        "{ready:#?}"
    );
    // A 10-second byoyomi: a search would print `info depth … nodes …` lines first.
    let lines = go(&mut g, "startpos", "btime 0 wtime 0 byoyomi 10000");
    assert_eq!(
        lines,
        [
            "info string book: 7g7f (count 12, eval 30)",
            "info depth 16 score cp 30 pv 7g7f 3c3d 2g2f",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    let lines = go(
        &mut g,
        "startpos moves 7g7f 3c3d",
        "btime 0 wtime 0 byoyomi 10000",
    );
    assert_eq!(
        lines,
        [
            "info string book: 2g2f (count 4, eval 25)",
            "info depth 14 score cp 25 pv 2g2f 8c8d",
            "bestmove 2g2f ponder 8c8d",
        ]
    );
    // Out of the book: a search.
    let lines = go(&mut g, "startpos moves 2g2f", "depth 2");
    assert!(book_lines(&lines).is_empty(), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains(" nodes ")), "{lines:#?}");
    // During `go ponder` the book's bestmove waits for `ponderhit`, as any bestmove.
    g.send("position startpos");
    g.send("go ponder btime 0 wtime 0 byoyomi 10000");
    let early = g.until(Duration::from_secs(10), |l| l.starts_with("info depth"));
    assert_eq!(
        early.last().unwrap(),
        "info depth 16 score cp 30 pv 7g7f 3c3d 2g2f"
    );
    assert_eq!(g.next(Duration::from_millis(300)), None);
    g.send("ponderhit");
    assert_eq!(g.until_prefix("bestmove"), ["bestmove 7g7f ponder 3c3d"]);
}

#[test]
fn book_options_turn_the_book_off() {
    let dir = scratch_dir("book-off");
    let book = small_book(&dir);
    let path = book.to_str().unwrap();
    for (name, value) in [
        ("BookMoves", "0"),
        ("BookIgnoreRate", "100"),
        ("USI_OwnBook", "false"),
        ("BookEvalBlackLimit", "31"),
        ("BookDepthLimit", "17"),
    ] {
        let (mut g, _) = search_with(&[("BookFile", path), (name, value)]);
        let lines = go(&mut g, "startpos", "depth 1");
        assert!(book_lines(&lines).is_empty(), "{name}={value}: {lines:#?}");
        // Back to the default: the book answers.
        let default = match name {
            "BookMoves" => "16",
            "BookIgnoreRate" | "BookEvalBlackLimit" | "BookDepthLimit" => "0",
            _ => "true",
        };
        g.send(&format!("setoption name {name} value {default}"));
        let lines = go(&mut g, "startpos", "depth 1");
        assert_eq!(book_lines(&lines).len(), 1, "{name}={default}: {lines:#?}");
    }
    // BookMoves counts the position's move number: after two moves it is 3.
    let (mut g, _) = search_with(&[("BookFile", path), ("BookMoves", "2")]);
    let lines = go(&mut g, "startpos moves 7g7f 3c3d", "depth 1");
    assert!(book_lines(&lines).is_empty(), "{lines:#?}");
    g.send("setoption name BookMoves value 3");
    let lines = go(&mut g, "startpos moves 7g7f 3c3d", "depth 1");
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f ponder 8c8d");
    // An empty BookFile unloads the book.
    g.send("setoption name BookFile value <empty>");
    let lines = go(&mut g, "startpos moves 7g7f 3c3d", "depth 1");
    assert!(book_lines(&lines).is_empty(), "{lines:#?}");
}

/// The sequence of book moves chosen in 40 `go`s at the start, with this seed.
fn seeded_choices(book: &str, seed: &str) -> Vec<String> {
    let (mut g, _) = search_with(&[
        ("BookFile", book),
        ("BookSeed", seed),
        ("ConsiderBookMoveCount", "true"),
        ("BookEvalDiff", "99999"),
    ]);
    (0..40)
        .map(|_| go(&mut g, "startpos", "depth 1").last().unwrap().clone())
        .collect()
}

#[test]
fn the_choice_is_weighted_by_count_and_repeats_under_a_seed() {
    let dir = scratch_dir("book-seed");
    let book = small_book(&dir);
    let path = book.to_str().unwrap();
    let a = seeded_choices(path, "42");
    let b = seeded_choices(path, "42");
    assert_eq!(a, b);
    let f = a
        .iter()
        .filter(|l| *l == "bestmove 7g7f ponder 3c3d")
        .count();
    let s = a.iter().filter(|l| *l == "bestmove 2g2f").count();
    assert_eq!(f + s, 40, "{a:#?}");
    // 12 : 3 → about 32 : 8.
    assert!(f > 24 && s > 2, "7g7f {f}, 2g2f {s}");
    let c = seeded_choices(path, "43");
    assert_ne!(a, c);
}

#[test]
fn a_messy_book_file_reads_and_illegal_book_moves_are_skipped() {
    let messy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/books/messy.db");
    let path = messy.to_str().unwrap();
    let (mut g, ready) = search_with(&[("BookFile", path), ("BookEvalDiff", "0")]);
    assert_eq!(
        book_lines(&ready),
        [
            &format!("info string book: {path}: 2 positions, 5 moves"),
            &format!(
                "info string book warning: {path}:10: bad move \"7g7f7\": 7g7f7 none 0 0 1; line skipped"
            ),
        ]
    );
    // 5e5d (eval 99, count 100) is illegal at the start: skipped and said, not played.
    let lines = go(&mut g, "startpos", "depth 1");
    assert_eq!(
        lines,
        [
            "info string book: 5e5d is not legal here; skipped",
            "info string book: 7g7f (count 12, eval 35)",
            "info depth 18 score cp 35 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
    // White's side, from the position listed with its move number.
    let lines = go(&mut g, "startpos moves 7g7f", "depth 1");
    assert_eq!(lines.last().unwrap(), "bestmove 3c3d");
    // White's floor above both evals: no book move.
    g.send("setoption name BookEvalWhiteLimit value 1");
    let lines = go(&mut g, "startpos moves 7g7f", "depth 1");
    assert!(book_lines(&lines).is_empty(), "{lines:#?}");
}

#[test]
fn a_book_that_cannot_be_read_is_reported_and_the_engine_plays_on() {
    let dir = scratch_dir("book-missing");
    let missing = dir.join("nope.db");
    let (mut g, ready) = search_with(&[("BookFile", missing.to_str().unwrap())]);
    let err = ready
        .iter()
        .find(|l| l.starts_with("info string error: BookFile"))
        .unwrap_or_else(|| panic!("{ready:#?}"));
    assert!(
        err.contains("nope.db") && err.ends_with("; playing without a book"),
        "{err}"
    );
    let lines = go(&mut g, "startpos", "depth 1");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:#?}");
    // A binary file (an Apery book.bin) is refused by name.
    let bin = dir.join("book.bin");
    std::fs::write(&bin, [0u8, 1, 2, 3, 0, 0, 0, 9]).unwrap();
    g.send(&format!("setoption name BookFile value {}", bin.display()));
    g.send("isready");
    let lines = g.until(Duration::from_secs(10), |l| l == "readyok");
    assert!(
        lines.iter().any(|l| l.contains("not a text book")),
        "{lines:#?}"
    );
}

// ---------------------------------------------------------------------------------------------
// gougi book make
// ---------------------------------------------------------------------------------------------

/// A `gougi match` of one game between two scripted mocks; returns the CSA record's path.
fn match_record(dir: &Path, tag: &str, black: &str, white: &str) -> PathBuf {
    let mut engines = Vec::new();
    for (name, script) in [("Black", black), ("White", white)] {
        let path = dir.join(format!("{tag}-{name}.script"));
        std::fs::write(&path, format!("id name {tag}{name}\n{script}\n")).unwrap();
        engines.push(format!(
            "cmd=\"{} {}\" name={tag}{name}",
            mock_engine_path().display(),
            path.display()
        ));
    }
    let out = dir.join(format!("{tag}-out"));
    let o = Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["match", "--quiet", "--games", "1", "--byoyomi", "2000"])
        .args(["--engine", &engines[0], "--engine", &engines[1]])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let games: Vec<PathBuf> = std::fs::read_dir(out.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csa"))
        .collect();
    assert_eq!(games.len(), 1, "{games:?}");
    games[0].clone()
}

fn make(out: &Path, extra: &[&str], files: &[&Path]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["book", "make", "--out"])
        .arg(out)
        .args(extra)
        .args(files)
        .output()
        .unwrap()
}

fn listed(book: &Book, sfen: &str) -> Vec<String> {
    let p = Position::from_usi_position(sfen).unwrap();
    book.moves(&p).iter().map(|m| m.line()).collect()
}

#[test]
fn book_make_from_match_records_round_trips() {
    let dir = scratch_dir("book-make");
    // Game 1: 7g7f (cp 30) 3c3d (cp 20 for White) 2g2f (cp 40) 8c8d (no score), Black resigns.
    let g1 = match_record(
        &dir,
        "one",
        "go: info depth 1 score cp 30 pv 7g7f ; bestmove 7g7f\n\
         go: info depth 1 score cp 40 pv 2g2f ; bestmove 2g2f\ngo: bestmove resign",
        "go: info depth 1 score cp 20 pv 3c3d ; bestmove 3c3d\ngo: bestmove 8c8d",
    );
    // Game 2: 7g7f (cp 50) 8c8d (cp -10 for White) 2g2f (no score), White resigns.
    let g2 = match_record(
        &dir,
        "two",
        "go: info depth 1 score cp 50 pv 7g7f ; bestmove 7g7f\ngo: bestmove 2g2f",
        "go: info depth 1 score cp -10 pv 8c8d ; bestmove 8c8d\ngo: bestmove resign",
    );
    let csa1 = std::fs::read_to_string(&g1).unwrap();
    assert!(
        csa1.contains("+7776FU\nT0\n'** 30\n-3334FU\nT0\n'** -20\n"),
        "the records carry Black-view scores: {csa1}"
    );
    let out = dir.join("made.db");
    let o = make(&out, &[], &[&g1, &g2]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.starts_with(
            "book: 5 positions, 6 moves from 2 games in 2 files (max ply 32, min count 1)"
        ),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "#YANEURAOU-DB2016 1.00");
    let sfens: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("sfen "))
        .collect();
    let mut sorted = sfens.clone();
    sorted.sort_unstable();
    assert_eq!(sfens, sorted, "positions are written sorted");

    let book = Book::load(&out).unwrap();
    assert!(book.warnings().is_empty());
    assert_eq!(book.len(), 5);
    // Counts are the times played; evals the mean of the comments in the mover's view; the
    // reply the most played (then best) move of the next position.
    assert_eq!(listed(&book, "startpos"), ["7g7f 3c3d 40 0 2"]);
    assert_eq!(
        listed(&book, "startpos moves 7g7f"),
        ["3c3d 2g2f 20 0 1", "8c8d 2g2f -10 0 1"]
    );
    assert_eq!(
        listed(&book, "startpos moves 7g7f 3c3d"),
        ["2g2f 8c8d 40 0 1"]
    );
    assert_eq!(
        listed(&book, "startpos moves 7g7f 3c3d 2g2f"),
        ["8c8d none 0 0 1"]
    );
    assert_eq!(
        listed(&book, "startpos moves 7g7f 8c8d"),
        ["2g2f none 0 0 1"]
    );

    // --min-count 2 keeps 7g7f alone (its replies were each played once); --max-ply 1 the
    // start position alone.
    let o = make(&out, &["--min-count", "2"], &[&g1, &g2]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f none 40 0 2\n")
    );
    let o = make(&out, &["--max-ply", "1"], &[&g1, &g2]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f 3c3d 40 0 2\n")
    );

    // The made book plays through `gougi search`.
    let o = make(&out, &[], &[&g1, &g2]);
    assert!(o.status.success());
    let (mut g, _) = search_with(&[("BookFile", out.to_str().unwrap())]);
    let lines = go(&mut g, "startpos", "depth 1");
    assert_eq!(
        lines,
        [
            "info string book: 7g7f (count 2, eval 40)",
            "info score cp 40 pv 7g7f 3c3d 2g2f 8c8d",
            "bestmove 7g7f ponder 3c3d",
        ]
    );
}

#[test]
fn book_make_warns_about_bad_records_and_fails_on_missing_files() {
    let dir = scratch_dir("book-make-bad");
    let bad = dir.join("bad.csa");
    // CRLF, a CP932 comment, then an illegal move on line 6.
    let mut bytes =
        b"V2.2\r\n'\x92\xe8\x90\xd5\r\nPI\r\n+\r\n+7776FU\r\n-5554FU\r\n+2726FU\r\n".to_vec();
    bytes.extend_from_slice(b"%TORYO\r\n");
    std::fs::write(&bad, bytes).unwrap();
    let out = dir.join("b.db");
    let o = make(&out, &[], &[&bad]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!(
            "warning: {}:6: -5554FU: not a legal move here; rest of the record skipped",
            bad.display()
        )),
        "{stderr}"
    );
    // What came before the bad move counts.
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f none 0 0 1\n")
    );
    let o = make(&out, &[], &[&dir.join("missing.csa")]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("missing.csa"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
