//! Static exchange evaluation (SEE, 駒の取り合いの静的評価): does a move win at least a
//! threshold once both sides have recaptured on its destination with their least valuable
//! attackers, each free to stop when going on would lose?
//!
//! Stockfish's `Position::see_ge` (the swap algorithm with x-rays), with the evaluation's
//! piece values ([`crate::eval::PIECE_VALUE`]). Simplifications kept from the search's first
//! version: pins are ignored, and recaptures never promote; the move itself is credited with
//! its promotion gain.

use crate::shogi::attacks::{
    bishop_attacks, bishop_pseudo_attacks, lance_attacks, rook_attacks, rook_pseudo_attacks,
};
use crate::shogi::{Bitboard, Color, Move, PieceKind, Position, Square};

use crate::eval::PIECE_VALUE;

/// Value used by SEE: the evaluation's, with the king "infinite".
#[inline]
fn see_value(k: PieceKind) -> i32 {
    if k == PieceKind::King {
        30000
    } else {
        PIECE_VALUE[k.index()]
    }
}

/// Kinds from the least to the most valuable, the order in which attackers recapture.
const LEAST_VALUABLE_FIRST: [PieceKind; 14] = [
    PieceKind::Pawn,
    PieceKind::Lance,
    PieceKind::Knight,
    PieceKind::Silver,
    PieceKind::Gold,
    PieceKind::ProPawn,
    PieceKind::ProLance,
    PieceKind::ProKnight,
    PieceKind::ProSilver,
    PieceKind::Bishop,
    PieceKind::Horse,
    PieceKind::Rook,
    PieceKind::Dragon,
    PieceKind::King,
];

/// Sliders of either color that attack `sq` through `occ` once the piece on `gone` has left
/// it (the x-ray refresh): only the slider family whose line through `sq` passes `gone`.
#[inline]
fn xray_attackers(pos: &Position, sq: Square, gone: Square, occ: Bitboard) -> Bitboard {
    if bishop_pseudo_attacks(sq).contains(gone) {
        let diag = pos.pieces_of_kind(PieceKind::Bishop) | pos.pieces_of_kind(PieceKind::Horse);
        bishop_attacks(sq, occ) & diag
    } else if rook_pseudo_attacks(sq).contains(gone) {
        let orth = pos.pieces_of_kind(PieceKind::Rook) | pos.pieces_of_kind(PieceKind::Dragon);
        let mut b = rook_attacks(sq, occ) & orth;
        if sq.file() == gone.file() {
            // A Black lance attacks `sq` from the squares a White lance on `sq` would attack.
            b |= (lance_attacks(Color::White, sq, occ)
                & pos.pieces(Color::Black, PieceKind::Lance))
                | (lance_attacks(Color::Black, sq, occ)
                    & pos.pieces(Color::White, PieceKind::Lance));
        }
        b
    } else {
        Bitboard::EMPTY
    }
}

/// Whether `m` (legal here) wins at least `threshold` by static exchange.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    let to = m.to();
    let us = pos.side_to_move();
    let (next_victim, first_gain, mut occ) = match m.from() {
        None => (
            m.dropped_kind().expect("a drop has a kind"),
            0,
            pos.occupied().with(to),
        ),
        Some(from) => {
            let Some(p) = pos.piece_on(from) else {
                return false;
            };
            let captured = pos.piece_on(to).map_or(0, |c| see_value(c.kind));
            let occ = pos.occupied().without(from).with(to);
            if m.is_promotion() {
                let pk = p.kind.promote().unwrap_or(p.kind);
                (pk, captured + see_value(pk) - see_value(p.kind), occ)
            } else {
                (p.kind, captured, occ)
            }
        }
    };
    let mut swap = first_gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = see_value(next_victim) - swap;
    if swap <= 0 {
        return true;
    }
    let mut attackers = pos.attackers_to_both(to, occ) & occ;
    let mut side = us;
    let mut res = true; // true: the side that made `m` is winning the exchange so far
    loop {
        side = !side;
        attackers &= occ;
        let ours = attackers & pos.pieces_of(side);
        if ours.is_empty() {
            break;
        }
        res = !res;
        let (sq, kind) = LEAST_VALUABLE_FIRST
            .iter()
            .find_map(|&k| (ours & pos.pieces_of_kind(k)).lsb().map(|sq| (sq, k)))
            .expect("an attacker has a kind");
        if kind == PieceKind::King {
            // The king may recapture only if the other side has nothing left to take back.
            return if (attackers & pos.pieces_of(!side)).any() {
                !res
            } else {
                res
            };
        }
        swap = see_value(kind) - swap;
        if swap < res as i32 {
            break;
        }
        occ = occ.without(sq);
        attackers |= xray_attackers(pos, to, sq, occ);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, text: &str) -> Move {
        pos.parse_usi_move(text).unwrap()
    }

    #[test]
    fn simple_exchanges() {
        // A rook takes a pawn defended by a gold: loses the rook for a pawn.
        let p = Position::from_sfen("4k4/4g4/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        assert!(!see_ge(&p, mv(&p, "5h5c+"), 0));
        // An undefended pawn is a free capture (and the rook promotes).
        let p = Position::from_sfen("3k5/9/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        assert!(see_ge(&p, mv(&p, "5h5c+"), 0));
        assert!(see_ge(&p, mv(&p, "5h5c+"), 90));
        assert!(see_ge(&p, mv(&p, "5h5c"), 90));
        assert!(!see_ge(&p, mv(&p, "5h5c"), 91));
    }

    #[test]
    fn x_rays_and_king_recaptures() {
        // A gold takes a pawn defended by a silver; the rook behind the gold (an x-ray through
        // its origin) takes the silver back: +90 - 540 + 495 = 45.
        let p = Position::from_sfen("8k/9/4s4/4p4/4G4/9/9/4R4/4K4 b - 1").unwrap();
        assert!(see_ge(&p, mv(&p, "5e5d"), 45));
        assert!(!see_ge(&p, mv(&p, "5e5d"), 46));
        let p = Position::from_sfen("8k/9/4s4/4p4/4G4/9/9/9/4K4 b - 1").unwrap();
        assert!(!see_ge(&p, mv(&p, "5e5d"), 0));
        // The side to recapture may stand pat: a lance does not take back a pawn when a rook
        // would take the lance, so the gain is the pawn, not more.
        let p = Position::from_sfen("4l3k/9/9/4p4/4P4/9/9/4R4/4K4 b - 1").unwrap();
        assert!(see_ge(&p, mv(&p, "5e5d"), 90));
        assert!(!see_ge(&p, mv(&p, "5e5d"), 91));
        // A gold takes a pawn next to the enemy king, defended only by the king, with our
        // rook behind: the king cannot take back.
        let p = Position::from_sfen("9/4k4/4p4/4G4/9/9/9/4R4/4K4 b - 1").unwrap();
        assert!(see_ge(&p, mv(&p, "5d5c"), 90));
        // Without the rook the king takes the gold.
        let p = Position::from_sfen("9/4k4/4p4/4G4/9/9/9/9/4K4 b - 1").unwrap();
        assert!(!see_ge(&p, mv(&p, "5d5c"), 0));
    }

    #[test]
    fn drops_into_attack() {
        // A silver dropped where a pawn attacks it loses the silver.
        let p = Position::from_sfen("4k4/9/4p4/9/9/9/9/9/4K4 b S 1").unwrap();
        assert!(!see_ge(&p, mv(&p, "S*5d"), 0));
        assert!(see_ge(&p, mv(&p, "S*1e"), 0));
    }
}
