//! Generator tests on hand-picked positions; the random differential tests against
//! `shogi_legality_lite` live in `tests/shogi_props.rs`.

use super::*;
use crate::shogi::IllegalMoveKind;

fn pos(s: &str) -> Position {
    Position::from_sfen(s).unwrap()
}

fn usi(l: &MoveList) -> Vec<String> {
    let mut v: Vec<String> = l.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

#[test]
fn uchifuzume_is_refused() {
    // White king 1a boxed in by its own knight; a pawn on 1b is covered by the black gold.
    let p = pos("7nk/9/7G1/9/9/9/9/9/4K4 b P 1");
    let m = Move::from_usi("P*1b").unwrap();
    assert_eq!(p.is_legal(m), Err(IllegalMoveKind::PawnDropMate));
    assert!(!p.legal_moves().contains(m));
    // Without the gold the king takes the pawn: legal.
    let p = pos("7nk/9/9/9/9/9/9/9/4K4 b P 1");
    assert_eq!(p.is_legal(m), Ok(()));
    assert!(p.legal_moves().contains(m));
}

#[test]
fn nifu_and_dead_drops() {
    let p = pos("4k4/9/9/9/9/9/4P4/9/4K4 b PLN 1");
    assert_eq!(
        p.is_legal(Move::from_usi("P*5e").unwrap()),
        Err(IllegalMoveKind::Nifu)
    );
    assert_eq!(
        p.is_legal(Move::from_usi("P*4a").unwrap()),
        Err(IllegalMoveKind::NoFurtherMove)
    );
    assert_eq!(
        p.is_legal(Move::from_usi("N*4b").unwrap()),
        Err(IllegalMoveKind::NoFurtherMove)
    );
    assert_eq!(p.is_legal(Move::from_usi("L*4b").unwrap()), Ok(()));
    let l = p.legal_moves();
    assert!(!l.iter().any(|m| m.to_string() == "P*5d"));
}

#[test]
fn no_kings_and_tsume_positions() {
    // A tsume position: no black king.
    let p = pos("4k4/9/4P4/9/9/9/9/9/9 b G 1");
    let l = p.legal_moves();
    assert!(l.contains(Move::from_usi("G*5b").unwrap()));
    let mut checks = MoveList::new();
    generate_checks(&p, &mut checks);
    assert!(checks.iter().all(|&m| p.gives_check(m)));
    assert!(usi(&checks).contains(&"G*5b".to_string()));
    // No king at all.
    let p = pos("9/9/9/9/4p4/9/9/9/9 w - 1");
    assert_eq!(p.legal_moves().len(), 1);
    let mut c = MoveList::new();
    generate_checks(&p, &mut c);
    assert!(c.is_empty());
}

#[test]
fn non_promotions_are_generated() {
    let p = pos("4k4/9/9/2P6/9/9/9/9/4K4 b - 1");
    let v = usi(&p.legal_moves());
    assert!(v.contains(&"7d7c".to_string()));
    assert!(v.contains(&"7d7c+".to_string()));
}
