//! Unit tests of the book format, the choice and the maker.

use super::make::{MakeOptions, Maker};
use super::*;

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

fn pos(text: &str) -> Position {
    Position::from_usi_position(text).unwrap()
}

fn mv(s: &str) -> Move {
    Move::from_usi(s).unwrap()
}

fn parse(text: &str) -> Book {
    Book::parse(text.as_bytes(), "t.db").unwrap()
}

/// (move, ponder, eval, depth, count) of each book move of `p`, as text.
fn listed(book: &Book, p: &Position) -> Vec<String> {
    book.moves(p).iter().map(BookMove::line).collect()
}

#[test]
fn reads_the_standard_format() {
    let text = format!(
        "#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f 3c3d 30 16 12\n2g2f none 10 16 3\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n3c3d 2g2f 0 8 5\n"
    );
    let book = parse(&text);
    assert_eq!(book.len(), 2);
    assert_eq!(book.move_count(), 3);
    assert!(book.warnings().is_empty());
    assert_eq!(
        listed(&book, &pos("startpos")),
        ["7g7f 3c3d 30 16 12", "2g2f none 10 16 3"]
    );
    assert_eq!(
        listed(&book, &pos("startpos moves 7g7f")),
        ["3c3d 2g2f 0 8 5"]
    );
    assert!(book.moves(&pos("startpos moves 2g2f")).is_empty());
}

#[test]
fn the_move_number_and_the_spelling_of_hands_do_not_matter() {
    // Written at move 10 with the hands `2Pr`; looked up at move 30 with the hands `r2P`.
    let book = parse("sfen 4k4/9/9/9/9/9/9/9/4K4 w 2Pr 10\n5a4b none 0 0 1\nsfen 4k4/9/9/9/9/9/9/9/4K4 b - \n5i4h\n");
    let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w r2P 30").unwrap();
    assert_eq!(listed(&book, &p), ["5a4b none 0 0 1"]);
    // No move number at all, and the optional fields missing: eval 0, depth 0, count 1.
    let q = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b - 7").unwrap();
    assert_eq!(listed(&book, &q), ["5i4h none 0 0 1"]);
    // A move number of 0 (some tools write it) or garbage is read as 1, not refused.
    let odd =
        parse("sfen 4k4/9/9/9/9/9/9/9/4K4 b - 0\n5i4h\nsfen 4k4/9/9/9/9/9/9/9/4K4 w - x\n5a4b\n");
    assert!(odd.warnings().is_empty(), "{:?}", odd.warnings());
    assert_eq!(odd.len(), 2);
    let mut out = Vec::new();
    odd.write_to(&mut out).unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n5i4h none 0 0 1\n"));
    // Side to move matters.
    let r = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2Pr 10").unwrap();
    assert!(book.moves(&r).is_empty());
}

#[test]
fn unsorted_files_comments_crlf_and_cp932_read_the_same() {
    let sorted = format!(
        "#YANEURAOU-DB2016 1.00\nsfen {START}\n7g7f none 30 0 2\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n3c3d none 0 0 5\n"
    );
    // The same book upside down, with CRLF, `//` and `#` comments, a CP932 comment
    // ("定跡" in Shift_JIS) and a trailing comment on a move line.
    let mut messy: Vec<u8> = Vec::new();
    messy.extend_from_slice(b"#YANEURAOU-DB2016 1.00\r\n// \x92\xe8\x90\xd5 comment\r\n");
    messy.extend_from_slice(
        b"sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\r\n",
    );
    messy.extend_from_slice(b"3c3d none 0 0 5 # \x92\xe8\x90\xd5\r\n\r\n#\x92\xe8\x90\xd5\r\n");
    messy.extend_from_slice(format!("sfen {START}\r\n   7g7f none 30 0 2   \r\n").as_bytes());
    let a = parse(&sorted);
    let b = Book::parse(&messy, "messy.db").unwrap();
    assert!(b.warnings().is_empty(), "{:?}", b.warnings());
    for p in ["startpos", "startpos moves 7g7f"] {
        assert_eq!(listed(&a, &pos(p)), listed(&b, &pos(p)), "{p}");
        assert_eq!(listed(&b, &pos(p)).len(), 1);
    }
    let mut out_a = Vec::new();
    let mut out_b = Vec::new();
    a.write_to(&mut out_a).unwrap();
    b.write_to(&mut out_b).unwrap();
    assert_eq!(
        String::from_utf8(out_a).unwrap(),
        String::from_utf8(out_b).unwrap()
    );
}

#[test]
fn bad_lines_are_skipped_with_warnings_naming_the_line() {
    let text = format!(
        "#YANEURAOU-DB2016 1.00\n\
         7g7f none 0 0 1\n\
         sfen {START}\n\
         7g7f none 30 0 2\n\
         7g7 none 0 0 1\n\
         2g2f none x 0 1\n\
         6i7h 1a1 0 0 1\n\
         5i5h none 0 0 -3\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1\n\
         1g1f none 0 0 1\n\
         1g1f none 0 0 1\n\
         sfen {START}\n\
         2g2f none 10 0 1\n"
    );
    let book = parse(&text);
    let w = book.warnings();
    assert_eq!(w.len(), 6, "{w:#?}");
    assert!(
        w[0].starts_with("t.db:2: a move line before any sfen line"),
        "{}",
        w[0]
    );
    assert!(w[1].starts_with("t.db:5: bad move \"7g7\""), "{}", w[1]);
    assert!(w[2].starts_with("t.db:6: bad eval \"x\""), "{}", w[2]);
    assert!(
        w[3].starts_with("t.db:7: bad ponder move \"1a1\""),
        "{}",
        w[3]
    );
    assert!(w[4].starts_with("t.db:8: bad count \"-3\""), "{}", w[4]);
    assert!(w[5].starts_with("t.db:9: bad SFEN"), "{}", w[5]);
    // The two moves under the bad SFEN are skipped silently but counted.
    assert_eq!(book.skipped_lines(), 8);
    // The good lines are there; the position listed twice is merged.
    assert_eq!(
        listed(&book, &pos("startpos")),
        ["7g7f none 30 0 2", "2g2f none 10 0 1"]
    );
}

#[test]
fn binary_files_are_refused_and_warnings_are_capped() {
    let err = Book::parse(b"\x01\x00\x00\x00binary", "book.bin").unwrap_err();
    assert!(err.to_string().contains("not a text book"), "{err}");
    let mut text = format!("sfen {START}\n");
    for _ in 0..100 {
        text.push_str("zz none\n");
    }
    let book = parse(&text);
    assert_eq!(book.warnings().len(), MAX_WARNINGS);
    assert_eq!(book.skipped_lines(), 100);
}

#[test]
fn a_repeated_move_takes_the_later_fields_and_the_summed_count() {
    let text = format!("sfen {START}\n7g7f none 30 5 2\nsfen {START}\n7g7f 3c3d 40 6 3\n");
    let book = parse(&text);
    assert_eq!(listed(&book, &pos("startpos")), ["7g7f 3c3d 40 6 5"]);
}

#[test]
fn writing_sorts_positions_and_moves_and_reads_back() {
    let mut book = Book::new();
    let after = pos("startpos moves 7g7f");
    let start = pos("startpos");
    let m = |s: &str, count, eval| BookMove {
        mv: mv(s),
        ponder: None,
        eval,
        depth: 0,
        count,
    };
    book.add(&after, m("3c3d", 4, 0));
    book.add(&start, m("2g2f", 1, 50));
    book.add(&start, m("7g7f", 3, -10));
    book.add(&start, m("5g5f", 1, 60));
    let mut out = Vec::new();
    book.write_to(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    // "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/…" sorts before "…/9/9/9/…".
    assert_eq!(
        text,
        "#YANEURAOU-DB2016 1.00\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n\
         3c3d none 0 0 4\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
         7g7f none -10 0 3\n\
         5g5f none 60 0 1\n\
         2g2f none 50 0 1\n"
    );
    let back = parse(&text);
    assert_eq!(listed(&back, &start), listed(&book, &start));
    assert_eq!(listed(&back, &after), listed(&book, &after));
}

// ---------------------------------------------------------------------------------------------
// The choice.
// ---------------------------------------------------------------------------------------------

fn start_book(lines: &str) -> Book {
    parse(&format!("sfen {START}\n{lines}"))
}

fn all_in() -> BookChoice {
    BookChoice {
        eval_diff: None,
        eval_limit_black: None,
        eval_limit_white: None,
        ..BookChoice::default()
    }
}

/// How often each move is chosen in `n` draws.
fn tally(book: &Book, p: &Position, choice: &BookChoice, n: usize) -> HashMap<String, usize> {
    let mut rng = SplitMix64::new(7);
    let mut out = HashMap::new();
    for _ in 0..n {
        let key = book
            .choose(p, choice, &mut || rng.next_u64())
            .map_or("-".to_string(), |b| b.mv.to_string());
        *out.entry(key).or_insert(0) += 1;
    }
    out
}

#[test]
fn defaults_are_yaneuraous() {
    let d = BookChoice::default();
    assert_eq!(d.max_ply, 16);
    assert_eq!(d.ignore_rate, 0);
    assert_eq!(d.eval_diff, Some(30));
    assert_eq!(d.eval_limit_black, Some(0));
    assert_eq!(d.eval_limit_white, Some(-140));
    assert!(!d.by_count);
}

#[test]
fn the_ply_limit_counts_the_position_move_number() {
    let book = parse("sfen 4k4/9/9/9/9/9/9/9/4K4 b - 16\n5i4h none 0 0 1\n");
    let choice = BookChoice {
        max_ply: 16,
        ..all_in()
    };
    let mut rng = SplitMix64::new(1);
    let at = |n: u32| Position::from_sfen(&format!("4k4/9/9/9/9/9/9/9/4K4 b - {n}")).unwrap();
    assert!(book
        .choose(&at(16), &choice, &mut || rng.next_u64())
        .is_some());
    let c = book.choose_explained(&at(17), &choice, &mut || rng.next_u64());
    assert_eq!(c.pick, None);
    assert_eq!(c.why_not, Some("beyond BookMoves"));
}

#[test]
fn count_weighting_and_uniform_choice() {
    let book = start_book("7g7f none 0 0 9\n2g2f none 0 0 1\n");
    let p = pos("startpos");
    let by_count = tally(
        &book,
        &p,
        &BookChoice {
            by_count: true,
            ..all_in()
        },
        2000,
    );
    let f = by_count["7g7f"];
    assert!((1700..1900).contains(&f), "{by_count:?}"); // 9:1 → 1800 expected
    let uniform = tally(&book, &p, &all_in(), 2000);
    let f = uniform["7g7f"];
    assert!((900..1100).contains(&f), "{uniform:?}"); // 1:1
                                                      // All counts 0: uniform, not "never".
    let zero = start_book("7g7f none 0 0 0\n2g2f none 0 0 0\n");
    let z = tally(
        &zero,
        &p,
        &BookChoice {
            by_count: true,
            ..all_in()
        },
        1000,
    );
    assert!(z["7g7f"] > 300 && z["2g2f"] > 300, "{z:?}");
}

#[test]
fn eval_window_and_side_limits() {
    let book = start_book("7g7f none 30 0 5\n2g2f none 20 0 5\n5g5f none -50 0 50\n");
    let p = pos("startpos");
    // Best eval only.
    let best = BookChoice {
        eval_diff: Some(0),
        ..all_in()
    };
    assert_eq!(tally(&book, &p, &best, 100)["7g7f"], 100);
    // Within 10 of the best: 7g7f and 2g2f, never 5g5f even though it is the most played.
    let t = tally(
        &book,
        &p,
        &BookChoice {
            eval_diff: Some(10),
            by_count: true,
            ..all_in()
        },
        400,
    );
    assert!(
        !t.contains_key("5g5f") && t["7g7f"] > 100 && t["2g2f"] > 100,
        "{t:?}"
    );
    // A floor for Black above every eval: no book move.
    let floor = BookChoice {
        eval_limit_black: Some(31),
        ..all_in()
    };
    let mut rng = SplitMix64::new(3);
    let c = book.choose_explained(&p, &floor, &mut || rng.next_u64());
    assert_eq!(c.why_not, Some("filtered out (depth/eval limits)"));
    // The White floor does not apply to Black.
    let white_only = BookChoice {
        eval_limit_white: Some(1000),
        eval_diff: Some(0),
        ..all_in()
    };
    assert_eq!(tally(&book, &p, &white_only, 10)["7g7f"], 10);
    // One limit for both sides.
    let both = all_in().with_eval_limit(Some(25));
    assert_eq!(tally(&book, &p, &both, 10)["7g7f"], 10);
    // YaneuraOu's defaults: window 30 from the best (30) → 2g2f (20) stays, 5g5f (-50) goes;
    // Black's floor 0 keeps both.
    let d = tally(&book, &p, &BookChoice::default(), 400);
    assert!(!d.contains_key("5g5f") && d.len() == 2, "{d:?}");
}

#[test]
fn depth_limit_drops_shallow_moves() {
    let book = start_book("7g7f none 0 4 10\n2g2f none 0 20 1\n");
    let c = BookChoice {
        depth_limit: 16,
        ..all_in()
    };
    assert_eq!(tally(&book, &pos("startpos"), &c, 50)["2g2f"], 50);
}

#[test]
fn ignore_rate_skips_the_book_that_often() {
    let book = start_book("7g7f none 0 0 1\n");
    let p = pos("startpos");
    let never = tally(
        &book,
        &p,
        &BookChoice {
            ignore_rate: 100,
            ..all_in()
        },
        100,
    );
    assert_eq!(never["-"], 100);
    let always = tally(&book, &p, &all_in(), 100);
    assert_eq!(always["7g7f"], 100);
    let some = tally(
        &book,
        &p,
        &BookChoice {
            ignore_rate: 30,
            ..all_in()
        },
        2000,
    );
    assert!((500..700).contains(&some["-"]), "{some:?}");
}

#[test]
fn illegal_book_moves_are_skipped_and_reported() {
    // 5e5d has no piece; 8h2b+ is blocked at the start; 7g7f is fine.
    let book = start_book("5e5d none 99 0 100\n8h2b+ none 99 0 100\n7g7f none 0 0 1\n");
    let mut rng = SplitMix64::new(5);
    let c = book.choose_explained(&pos("startpos"), &all_in(), &mut || rng.next_u64());
    assert_eq!(c.pick.map(|b| b.mv), Some(mv("7g7f")));
    assert_eq!(c.illegal, vec![mv("5e5d"), mv("8h2b+")]);
    assert_eq!(c.candidates, 1);
    let only_bad = start_book("5e5d none 0 0 1\n");
    let c = only_bad.choose_explained(&pos("startpos"), &all_in(), &mut || rng.next_u64());
    assert_eq!(c.pick, None);
    assert_eq!(c.why_not, Some("no legal book move"));
}

#[test]
fn the_reply_is_checked_and_filled_from_the_next_position() {
    let text = format!(
        "sfen {START}\n7g7f 5e5d 0 0 1\n2g2f none 0 0 1\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n8c8d none 0 0 3\n3c3d none 0 0 1\n"
    );
    let book = parse(&text);
    let mut rng = SplitMix64::new(9);
    for _ in 0..20 {
        let b = book
            .choose(&pos("startpos"), &all_in(), &mut || rng.next_u64())
            .unwrap();
        match b.mv.to_string().as_str() {
            // The illegal ponder 5e5d is replaced by the most played reply in the book.
            "7g7f" => assert_eq!(b.ponder, Some(mv("8c8d"))),
            "2g2f" => assert_eq!(b.ponder, None),
            other => panic!("{other}"),
        }
    }
    assert_eq!(
        book.pv(&pos("startpos"), mv("7g7f"), Some(mv("8c8d")), 8),
        vec![mv("7g7f"), mv("8c8d")]
    );
}

// ---------------------------------------------------------------------------------------------
// Making books from records.
// ---------------------------------------------------------------------------------------------

/// Two games as `gougi match` writes them (scores in Black's view after each engine move).
const GAME1: &str = "V2.2\nN+A\nN-B\n$EVENT:gougi match\nPI\n+\n+7776FU\nT0\n'** 30\n-3334FU\nT1\n'** 40 +2726FU\n+2726FU\nT0\n%TORYO\n'gougi result: white (-) wins by resignation\n";
const GAME2: &str = "V2.2\r\nN+B\r\nN-A\r\nPI\r\n+\r\n+7776FU,T0\r\n'** 50\r\n-8384FU,T0\r\n+2726FU,T0\r\n%TORYO\r\n";

#[test]
fn make_counts_moves_and_averages_evals_in_the_movers_view() {
    let mut m = Maker::new(MakeOptions {
        max_ply: 32,
        min_count: 1,
    });
    m.add_record("g1.csa", GAME1);
    m.add_record("g2.csa", GAME2);
    let (book, report) = m.finish();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.games, 2);
    assert_eq!(report.moves_counted, 6);
    // 7g7f twice (evals 30 and 50 → 40); the reply is the most played: a tie of 3c3d and 8c8d
    // with equal evals broken by the smaller move code, so only check it is one of them.
    let s = listed(&book, &pos("startpos"));
    assert_eq!(s.len(), 1);
    assert!(
        s[0].starts_with("7g7f ") && s[0].ends_with(" 40 0 2"),
        "{s:?}"
    );
    // White's 3c3d: '** 40 is Black's view → -40 for White; 8c8d had no comment → 0.
    assert_eq!(
        listed(&book, &pos("startpos moves 7g7f")),
        ["8c8d 2g2f 0 0 1", "3c3d 2g2f -40 0 1"]
    );
    assert_eq!(
        listed(&book, &pos("startpos moves 7g7f 3c3d")),
        ["2g2f none 0 0 1"]
    );
}

#[test]
fn make_honours_max_ply_and_min_count() {
    let mut m = Maker::new(MakeOptions {
        max_ply: 1,
        min_count: 2,
    });
    m.add_record("g1.csa", GAME1);
    m.add_record("g2.csa", GAME2);
    let (book, _) = m.finish();
    assert_eq!(book.len(), 1);
    // The reply comes from one ply beyond the limit; both replies were played once, so
    // neither reaches min count 2: no reply.
    assert_eq!(listed(&book, &pos("startpos")), ["7g7f none 40 0 2"]);
    let mut m = Maker::new(MakeOptions {
        max_ply: 1,
        min_count: 3,
    });
    m.add_record("g1.csa", GAME1);
    m.add_record("g2.csa", GAME2);
    assert!(m.finish().0.is_empty());
}

#[test]
fn make_reads_board_rows_hands_several_games_and_stops_at_illegal_moves() {
    let text = "V2.2\n\
P1 *  *  *  * -OU *  *  *  * \n\
P2 *  *  *  *  *  *  *  *  * \n\
P3 *  *  *  * +FU *  *  *  * \n\
P4 *  *  *  *  *  *  *  *  * \n\
P5 *  *  *  *  *  *  *  *  * \n\
P6 *  *  *  *  *  *  *  *  * \n\
P7 *  *  *  *  *  *  *  *  * \n\
P8 *  *  *  *  *  *  *  *  * \n\
P9 *  *  *  * +OU *  *  *  *\n\
P+00KI\n+\n+0052KI\n%TSUMI\n/\nPI82HI\n-\n-3334FU\n+5554FU\n-4344FU\n";
    let mut m = Maker::new(MakeOptions::default());
    m.add_record("multi.csa", text);
    let (book, report) = m.finish();
    assert_eq!(report.games, 2);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with("multi.csa:19: +5554FU: not a legal move here"),
        "{:?}",
        report.warnings
    );
    let tsume = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    assert_eq!(listed(&book, &tsume), ["G*5b none 0 0 1"]);
    // Rook-less handicap, White first.
    let hc = Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
        .unwrap();
    assert_eq!(listed(&book, &hc), ["3c3d none 0 0 1"]);
    assert_eq!(book.len(), 2);
}

#[test]
fn a_made_book_round_trips_through_the_file_format() {
    let mut m = Maker::new(MakeOptions::default());
    m.add_record("g1.csa", GAME1);
    m.add_record("g2.csa", GAME2);
    let (book, _) = m.finish();
    let mut out = Vec::new();
    book.write_to(&mut out).unwrap();
    let back = Book::parse(&out, "made.db").unwrap();
    assert!(back.warnings().is_empty());
    assert_eq!(back.len(), book.len());
    for (sfen, moves) in book.positions() {
        let p = Position::from_sfen(sfen).unwrap();
        assert_eq!(back.moves(&p), moves, "{sfen}");
    }
}

/// Loads a generated book of 100,000 positions and prints the time (run by hand:
/// `cargo test --release --lib book::tests::load_100k -- --ignored --nocapture`).
#[test]
#[ignore]
fn load_100k_positions() {
    let mut rng = SplitMix64::new(11);
    let mut book = Book::new();
    while book.len() < 100_000 {
        let mut p = Position::startpos();
        for _ in 0..60 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            let pick = moves.as_slice()[(rng.next_u64() % moves.len() as u64) as usize];
            for &m in moves.as_slice().iter().take(3) {
                book.add(
                    &p,
                    BookMove {
                        mv: m,
                        ponder: None,
                        eval: (rng.next_u64() % 200) as i32 - 100,
                        depth: 10,
                        count: 1 + rng.next_u64() % 50,
                    },
                );
            }
            p.do_move(pick);
        }
    }
    let mut text = Vec::new();
    book.write_to(&mut text).unwrap();
    let start = std::time::Instant::now();
    let back = Book::parse(&text, "big.db").unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "loaded {} positions, {} moves, {:.1} MB in {secs:.3} s",
        back.len(),
        back.move_count(),
        text.len() as f64 / 1e6
    );
    assert_eq!(back.len(), book.len());
    assert!(back.warnings().is_empty());
}
