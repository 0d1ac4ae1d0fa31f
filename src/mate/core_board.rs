//! [`MateBoard`] over the rules core's [`Position`] and its check and evasion generators.
//!
//! The attacker is fixed when the wrapper is made (the side to move then). Keys come straight
//! from the core: `board_key` excludes the hands, `key` includes them.

use crate::shogi::attacks::between;
use crate::shogi::types::{Color, Move, PieceKind};
use crate::shogi::{
    count_legal, generate_checks, generate_evasions, generate_legal, may_give_check_after, Hand,
    MoveList, Position,
};

use super::board::MateBoard;

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

impl MateBoard for CoreBoard {
    type Move = Move;

    fn board_key(&self) -> u64 {
        self.pos.board_key()
    }

    fn board_key_after(&mut self, m: Move) -> u64 {
        self.pos.board_key_after(m)
    }

    fn attacker_hand(&self) -> Hand {
        self.pos.hand(self.attacker)
    }

    fn defender_hand(&self) -> Hand {
        self.pos.hand(self.attacker.flip())
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

    fn count_and_moves_after(&mut self, m: Move, limit: usize) -> usize {
        // Counted by the generator (a popcount per target set, as perft's last ply), without
        // writing a list and in a peeked position: this runs once per probed check, the
        // solver's commonest step. (`count_and_moves` keeps the trait's default: the search
        // only counts after a move.)
        self.pos.peek_move(m, count_legal).min(limit)
    }

    fn count_or_moves_after(&mut self, m: Move) -> usize {
        // In a peeked position, as the replies above: this runs once per probed reply.
        self.pos.peek_move(m, |p| {
            let mut list: MoveList = MoveList::new();
            generate_checks(p, &mut list);
            list.len()
        })
    }

    fn may_check_after(&mut self, m: Move) -> bool {
        may_give_check_after(&self.pos, m)
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

    fn dropped_kind(&self, m: Move) -> Option<PieceKind> {
        m.dropped_kind()
    }

    fn captured_kind(&self, m: Move) -> Option<PieceKind> {
        if m.is_drop() {
            return None;
        }
        self.pos
            .piece_on(m.to())
            .map(|p| p.kind.unpromote())
            .filter(|k| k.is_hand_kind())
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
