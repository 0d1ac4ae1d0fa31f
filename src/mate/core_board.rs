//! [`MateBoard`] over the rules core's [`Position`] and its check and evasion generators.
//!
//! The attacker is fixed when the wrapper is made (the side to move then). Keys come straight
//! from the core: `board_key` excludes the hands, `key` includes them.

use crate::shogi::attacks::between;
use crate::shogi::types::{Color, Move, PieceKind};
use crate::shogi::{generate_checks, generate_evasions, generate_legal, MoveList, Position};

use super::board::MateBoard;
use super::hand::{HandKind, MateHand};

/// A core position with the attacker fixed.
#[derive(Clone)]
pub struct CoreBoard {
    pub pos: Position,
    attacker: Color,
}

impl CoreBoard {
    /// Wrap `pos`; its side to move is the attacker.
    pub fn new(pos: Position) -> CoreBoard {
        let attacker = pos.side_to_move();
        CoreBoard { pos, attacker }
    }
}

fn hand_kind(kind: PieceKind) -> Option<HandKind> {
    Some(match kind.unpromote() {
        PieceKind::Pawn => HandKind::Pawn,
        PieceKind::Lance => HandKind::Lance,
        PieceKind::Knight => HandKind::Knight,
        PieceKind::Silver => HandKind::Silver,
        PieceKind::Gold => HandKind::Gold,
        PieceKind::Bishop => HandKind::Bishop,
        PieceKind::Rook => HandKind::Rook,
        _ => return None,
    })
}

const HAND_KINDS: [(PieceKind, HandKind); 7] = [
    (PieceKind::Pawn, HandKind::Pawn),
    (PieceKind::Lance, HandKind::Lance),
    (PieceKind::Knight, HandKind::Knight),
    (PieceKind::Silver, HandKind::Silver),
    (PieceKind::Gold, HandKind::Gold),
    (PieceKind::Bishop, HandKind::Bishop),
    (PieceKind::Rook, HandKind::Rook),
];

impl CoreBoard {
    fn mate_hand(&self, c: Color) -> MateHand {
        let hand = self.pos.hand(c);
        let mut out = MateHand::EMPTY;
        for (pk, hk) in HAND_KINDS {
            out.set(hk, hand.count(pk));
        }
        out
    }
}

impl MateBoard for CoreBoard {
    type Move = Move;

    fn board_key(&self) -> u64 {
        self.pos.board_key()
    }

    fn attacker_hand(&self) -> MateHand {
        self.mate_hand(self.attacker)
    }

    fn defender_hand(&self) -> MateHand {
        self.mate_hand(self.attacker.flip())
    }

    fn generate_or_moves(&mut self, out: &mut Vec<Move>) {
        let mut list: MoveList = MoveList::new();
        generate_checks(&self.pos, &mut list);
        out.extend(list.iter().copied());
    }

    fn generate_and_moves(&mut self, out: &mut Vec<Move>) {
        let mut list = MoveList::new();
        if self.pos.in_check() {
            generate_evasions(&self.pos, &mut list);
        } else {
            generate_legal(&self.pos, &mut list);
        }
        out.extend(list.iter().copied());
    }

    fn delay_group(&self, m: Move) -> Option<u16> {
        let us = self.pos.side_to_move();
        match m.from() {
            None => self.pos.in_check().then_some(m.to().index() as u16),
            Some(from) => {
                let kind = self.pos.piece_on(from)?.kind;
                let can = matches!(kind, PieceKind::Pawn | PieceKind::Bishop | PieceKind::Rook)
                    && (from.in_zone(us) || m.to().in_zone(us));
                can.then_some(100 + from.index() as u16 * 81 + m.to().index() as u16)
            }
        }
    }

    fn do_move(&mut self, m: Move) {
        self.pos.do_move(m);
    }

    fn undo_move(&mut self, m: Move) {
        self.pos.undo_move(m);
    }

    fn dropped_kind(&self, m: Move) -> Option<HandKind> {
        m.dropped_kind().and_then(hand_kind)
    }

    fn captured_kind(&self, m: Move) -> Option<HandKind> {
        if m.is_drop() {
            return None;
        }
        self.pos.piece_on(m.to()).and_then(|p| hand_kind(p.kind))
    }

    fn check_is_blockable(&self) -> bool {
        let us = self.pos.side_to_move();
        let Some(k) = self.pos.king_square(us) else {
            return false;
        };
        for c in self.pos.checkers() {
            if between(k, c).any() {
                return true;
            }
        }
        false
    }

    fn in_check(&self) -> bool {
        self.pos.in_check()
    }
}
