//! Property tests of the shogi core over random legal games (seeded, reproducible):
//! do/undo restores position and key, SFEN round-trips, the incremental key equals the key
//! from scratch, the generators agree exactly with the slow oracle `shogi_legality_lite`
//! (positions converted square by square), captures/quiets/checks/evasions are exactly the
//! legal moves with that property, and `is_legal` agrees with the oracle on arbitrary moves.

use gougi::shogi::movegen::{
    generate_captures, generate_checks, generate_evasions, generate_for_search, generate_legal,
    generate_pseudo_legal, generate_quiets, SearchMoves,
};
use gougi::shogi::{Color, Move, MoveList, PieceKind, Position, Square};
use shogi_core::PartialPosition;
use std::collections::BTreeSet;

/// xorshift64*: a tiny deterministic PRNG, enough to pick moves.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn oracle_square(sq: Square) -> shogi_core::Square {
    shogi_core::Square::new(sq.file().number(), sq.rank().number()).unwrap()
}

fn oracle_kind(k: PieceKind) -> shogi_core::PieceKind {
    shogi_core::PieceKind::from_u8(k.index() as u8 + 1).unwrap()
}

fn oracle_color(c: Color) -> shogi_core::Color {
    match c {
        Color::Black => shogi_core::Color::Black,
        Color::White => shogi_core::Color::White,
    }
}

fn to_oracle(pos: &Position) -> PartialPosition {
    let mut pp = PartialPosition::empty();
    for sq in Square::ALL {
        if let Some(p) = pos.piece_on(sq) {
            pp.piece_set(
                oracle_square(sq),
                Some(shogi_core::Piece::new(
                    oracle_kind(p.kind),
                    oracle_color(p.color),
                )),
            );
        }
    }
    for c in Color::ALL {
        for k in PieceKind::HAND {
            for _ in 0..pos.hand(c).count(k) {
                let h = pp.hand_of_a_player_mut(oracle_color(c));
                *h = h.added(oracle_kind(k)).unwrap();
            }
        }
    }
    pp.side_to_move_set(oracle_color(pos.side_to_move()));
    pp
}

fn to_oracle_move(m: Move, side: Color) -> shogi_core::Move {
    match m.from() {
        Some(from) => shogi_core::Move::Normal {
            from: oracle_square(from),
            to: oracle_square(m.to()),
            promote: m.is_promotion(),
        },
        None => shogi_core::Move::Drop {
            piece: shogi_core::Piece::new(
                oracle_kind(m.dropped_kind().unwrap()),
                oracle_color(side),
            ),
            to: oracle_square(m.to()),
        },
    }
}

fn set(l: &MoveList) -> BTreeSet<u16> {
    let s: BTreeSet<u16> = l.iter().map(|m| m.to_u16()).collect();
    assert_eq!(s.len(), l.len(), "duplicate moves generated");
    s
}

/// All checks at one node.
fn check_node(pos: &Position, rng: &mut Rng) {
    let side = pos.side_to_move();
    let mut all = MoveList::new();
    generate_legal(pos, &mut all);
    let ours = set(&all);

    // Exactly the oracle's legal moves (when the oracle accepts the position: it refuses
    // more pieces than a set, which tsume files sometimes have).
    let pp = to_oracle(pos);
    let oracle_ok = shogi_legality_lite::status_partial(&pp)
        == shogi_core::PositionStatus::InProgress
        || all.is_empty();
    let oracle: BTreeSet<String> = shogi_legality_lite::all_legal_moves_partial(&pp)
        .into_iter()
        .map(|m| {
            use shogi_core::ToUsi;
            m.to_usi_owned()
        })
        .collect();
    let mine: BTreeSet<String> = all.iter().map(|m| m.to_string()).collect();
    if oracle_ok {
        assert_eq!(mine, oracle, "legal moves differ in {}", pos.to_sfen());
    }

    // Every generated move passes is_legal; arbitrary moves agree with the oracle.
    for &m in all.iter() {
        assert_eq!(pos.is_legal(m), Ok(()), "{m} in {}", pos.to_sfen());
    }
    if !all.is_empty() && oracle_ok {
        for _ in 0..64 {
            let Some(m) = Move::from_u16((rng.next() as u16) | 0x8000) else {
                continue;
            };
            let o = shogi_legality_lite::is_legal_partial_lite(&pp, to_oracle_move(m, side));
            assert_eq!(
                pos.is_legal(m).is_ok(),
                o,
                "is_legal({m}) in {}",
                pos.to_sfen()
            );
        }
    }

    // Captures, quiets, checks, evasions: exactly the legal moves with the property.
    let mut l = MoveList::new();
    generate_captures(pos, &mut l);
    let caps = set(&l);
    let expect: BTreeSet<u16> = all
        .iter()
        .filter(|m| m.from().is_some() && pos.piece_on(m.to()).is_some())
        .map(|m| m.to_u16())
        .collect();
    assert_eq!(caps, expect, "captures in {}", pos.to_sfen());
    l.clear();
    generate_quiets(pos, &mut l);
    let quiets = set(&l);
    let expect: BTreeSet<u16> = ours.difference(&caps).copied().collect();
    assert_eq!(quiets, expect, "quiets in {}", pos.to_sfen());
    l.clear();
    generate_checks(pos, &mut l);
    let checks = set(&l);
    let mut p2 = pos.clone();
    let expect: BTreeSet<u16> = all
        .iter()
        .filter(|&&m| {
            p2.do_move(m);
            let c = p2.in_check();
            p2.undo_move(m);
            c
        })
        .map(|m| m.to_u16())
        .collect();
    assert_eq!(checks, expect, "checks in {}", pos.to_sfen());
    for &m in all.iter() {
        p2.do_move(m);
        let c = p2.in_check();
        p2.undo_move(m);
        assert_eq!(
            pos.gives_check(m),
            c,
            "gives_check({m}) in {}",
            pos.to_sfen()
        );
    }
    l.clear();
    generate_pseudo_legal(pos, &mut l);
    let pseudo = set(&l);
    assert!(
        pseudo.is_superset(&ours),
        "pseudo-legal misses moves in {}",
        pos.to_sfen()
    );
    let filtered: BTreeSet<u16> = l
        .iter()
        .filter(|&&m| pos.is_legal_pseudo(m))
        .map(|m| m.to_u16())
        .collect();
    assert_eq!(
        filtered,
        ours,
        "pseudo-legal + is_legal_pseudo in {}",
        pos.to_sfen()
    );
    if pos.in_check() {
        l.clear();
        generate_evasions(pos, &mut l);
        assert_eq!(set(&l), ours, "evasions in {}", pos.to_sfen());
    }

    // The search's sets: the same, without the inferior non-promotions.
    let searched = |from: &BTreeSet<u16>| -> BTreeSet<u16> {
        from.iter()
            .copied()
            .filter(|&b| !pos.is_inferior_non_promotion(Move::from_u16(b).unwrap()))
            .collect()
    };
    let kinds: &[(SearchMoves, &BTreeSet<u16>)] = if pos.in_check() {
        &[(SearchMoves::Evasions, &ours)]
    } else {
        &[
            (SearchMoves::Captures, &caps),
            (SearchMoves::Quiets, &quiets),
        ]
    };
    for &(which, full) in kinds {
        l.clear();
        generate_for_search(pos, &mut l, which);
        assert_eq!(l.len(), set(&l).len(), "duplicates in {which:?}");
        assert_eq!(set(&l), searched(full), "{which:?} in {}", pos.to_sfen());
    }

    // Japanese names single out each legal move (KIF by origin, KI2 by relative words).
    let prev = pos.last_move().map(|m| m.to());
    let kif: BTreeSet<String> = all
        .iter()
        .map(|&m| gougi::shogi::kif_move(pos, m, prev).unwrap())
        .collect();
    assert_eq!(
        kif.len(),
        all.len(),
        "KIF names collide in {}",
        pos.to_sfen()
    );
    let ki2: Vec<String> = all
        .iter()
        .map(|&m| gougi::shogi::ki2_move(pos, m, prev).unwrap())
        .collect();
    let uniq: BTreeSet<&String> = ki2.iter().collect();
    assert_eq!(
        uniq.len(),
        all.len(),
        "KI2 names collide in {}: {ki2:?}",
        pos.to_sfen()
    );

    // Keys and SFEN.
    let (bk, hk) = pos.compute_keys();
    assert_eq!(pos.key(), bk ^ hk, "incremental key in {}", pos.to_sfen());
    let back = Position::from_sfen(&pos.to_sfen()).unwrap();
    assert_eq!(back.to_sfen(), pos.to_sfen());
    assert_eq!(back.key(), pos.key());
    assert_eq!(back.checkers(), pos.checkers());

    // do/undo of every move restores everything.
    let before = pos.to_sfen();
    for &m in all.iter() {
        let predicted = p2.board_key_after(m);
        p2.do_move(m);
        assert_eq!(
            p2.board_key(),
            predicted,
            "board_key_after({m}) in {before}"
        );
        let (bk, hk) = p2.compute_keys();
        assert_eq!(p2.key(), bk ^ hk, "key after {m} in {before}");
        p2.undo_move(m);
        assert_eq!(p2.to_sfen(), before);
        assert_eq!(p2.key(), pos.key());
        assert_eq!(p2.checkers(), pos.checkers());
    }
}

fn random_games(root: &str, games: usize, plies: usize, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut nodes = 0;
    for _ in 0..games {
        let mut pos = Position::from_sfen(root).unwrap();
        for _ in 0..plies {
            check_node(&pos, &mut rng);
            nodes += 1;
            let l = pos.legal_moves();
            if l.is_empty() {
                break;
            }
            // Play a check half of the time so that check, evasion, pin and uchifuzume cases
            // come up often.
            let mut checks = MoveList::new();
            generate_checks(&pos, &mut checks);
            let m = if !checks.is_empty() && rng.below(2) == 0 {
                checks[rng.below(checks.len())]
            } else {
                l[rng.below(l.len())]
            };
            pos.do_move(m);
        }
    }
    nodes
}

fn perft_roots() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/perft/perft.txt"
    ))
    .unwrap();
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim().to_string())
        .collect();
    v.dedup();
    v
}

#[test]
fn random_games_from_startpos() {
    let n = random_games(gougi::shogi::STARTPOS_SFEN, 12, 150, 0x1234_5678);
    assert!(n > 500);
}

#[test]
fn random_games_from_perft_positions() {
    for (i, root) in perft_roots().iter().enumerate() {
        random_games(root, 3, 60, 0xabcdef + i as u64);
    }
}

#[test]
fn random_games_from_tsume_positions() {
    // Tsume problems have no attacker king (and some no pieces to spare).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tsume/nikami_kongo_shtsume.txt"
    ))
    .unwrap();
    let mut rng = 99u64;
    for line in text.lines().filter(|l| l.starts_with("sfen ")).take(15) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let sfen = f[1..5].join(" ");
        rng += 1;
        random_games(&sfen, 2, 30, rng);
    }
}

#[test]
fn sfen_parser_never_panics_on_mutations() {
    // Mutate valid SFEN and USI position strings byte by byte (replace, insert, delete) with
    // characters that matter to the parser; every result must be Ok or Err, never a panic,
    // and every accepted position must round-trip.
    const ALPHABET: &[&str] = &[
        "p", "P", "l", "L", "n", "N", "s", "S", "g", "G", "b", "B", "r", "R", "k", "K", "+", "/",
        " ", "-", "0", "1", "2", "9", "18", "w", "b", "*", "moves", "７", "\u{3000}", "x",
    ];
    let mut seeds: Vec<String> = perft_roots();
    seeds.push("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e".to_string());
    let mut rng = Rng(0x5eed);
    for _ in 0..20_000 {
        let mut s = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let chars: Vec<char> = s.chars().collect();
            let i = rng.below(chars.len() + 1);
            let ins = ALPHABET[rng.below(ALPHABET.len())];
            let mut out: String = chars[..i.min(chars.len())].iter().collect();
            match rng.below(3) {
                0 => {
                    out.push_str(ins);
                    out.extend(chars.iter().skip(i + 1));
                }
                1 => {
                    out.push_str(ins);
                    out.extend(chars.iter().skip(i));
                }
                _ => out.extend(chars.iter().skip(i + 1)),
            }
            s = out;
        }
        if let Ok(p) = Position::from_sfen(&s) {
            assert_eq!(
                Position::from_sfen(&p.to_sfen()).unwrap().to_sfen(),
                p.to_sfen()
            );
            let _ = p.legal_moves();
        }
        if let Ok(p) = Position::from_usi_position(&s) {
            let _ = p.legal_moves();
        }
    }
}
