//! Legality of a single move, with the reason when it is illegal ([`IllegalMoveKind`]), and
//! the checked entry points [`Position::is_legal`], [`Position::parse_usi_move`] and
//! [`Position::try_play`]. The consultation proxy checks every member's move here and logs
//! the reason when it discards one.
//!
//! Rules covered: moving only own pieces along their moves, no capture of own pieces, drops
//! only of held pieces on empty squares, nifu (二歩, a second unpromoted pawn on a file),
//! uchifuzume (打ち歩詰め, mate by a pawn drop), no piece left or dropped where it can never move
//! again (行き所のない駒), promotion only into/within/out of the zone and only for promotable
//! kinds, and no move that leaves the own king attacked.

use super::attacks::{attacks, between, line};
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Color, Move, PieceKind, Square};
use thiserror::Error;

/// Why a move is illegal in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Error)]
pub enum IllegalMoveKind {
    /// The text is not a USI move.
    #[error("not a USI move")]
    Syntax,
    /// No piece on the origin square.
    #[error("no piece on the origin square")]
    EmptySquare,
    /// The piece on the origin square belongs to the opponent.
    #[error("not the mover's piece")]
    NotOwnPiece,
    /// The destination holds one of the mover's pieces.
    #[error("captures an own piece")]
    CaptureOwnPiece,
    /// The piece cannot move to the destination (wrong shape or blocked).
    #[error("the piece cannot reach the destination")]
    Unreachable,
    /// A drop of a piece not in hand.
    #[error("piece not in hand")]
    NotInHand,
    /// A drop on an occupied square.
    #[error("drop on an occupied square")]
    DropOnOccupied,
    /// Promotion of a kind that cannot promote, or outside the zone.
    #[error("promotion not allowed")]
    CannotPromote,
    /// The piece would stand where it can never move again (行き所のない駒).
    #[error("piece with no further move (行き所のない駒)")]
    NoFurtherMove,
    /// A second unpromoted pawn on a file (二歩).
    #[error("two pawns on a file (二歩)")]
    Nifu,
    /// Checkmate by a pawn drop (打ち歩詰め).
    #[error("mate by pawn drop (打ち歩詰め)")]
    PawnDropMate,
    /// The move leaves the mover's king attacked.
    #[error("leaves the own king in check")]
    SelfCheck,
}

/// Whether a `kind` of color `c` on `to` could still move (relative ranks 1 and 2 are dead for
/// some kinds).
#[inline]
pub(super) fn has_further_move(c: Color, kind: PieceKind, to: Square) -> bool {
    let r = to.rank().relative(c);
    match kind {
        PieceKind::Pawn | PieceKind::Lance => r >= 2,
        PieceKind::Knight => r >= 3,
        _ => true,
    }
}

impl Position {
    /// Whether `m` is legal here; the reason when it is not.
    pub fn is_legal(&self, m: Move) -> Result<(), IllegalMoveKind> {
        let us = self.side;
        let to = m.to();
        let occ = self.occupied();
        if let Some(kind) = m.dropped_kind() {
            if !self.hands[us.index()].has(kind) {
                return Err(IllegalMoveKind::NotInHand);
            }
            if occ.contains(to) {
                return Err(IllegalMoveKind::DropOnOccupied);
            }
            if !has_further_move(us, kind, to) {
                return Err(IllegalMoveKind::NoFurtherMove);
            }
            if kind == PieceKind::Pawn
                && (self.pieces(us, PieceKind::Pawn) & Bitboard::file(to.file())).any()
            {
                return Err(IllegalMoveKind::Nifu);
            }
            if let Some(k) = self.kings[us.index()] {
                let ch = self.st.checkers;
                if ch.any() {
                    let blocks =
                        !ch.more_than_one() && ch.lsb().is_some_and(|c| between(k, c).contains(to));
                    if !blocks {
                        return Err(IllegalMoveKind::SelfCheck);
                    }
                }
            }
            if kind == PieceKind::Pawn && self.is_pawn_drop_mate(to) {
                return Err(IllegalMoveKind::PawnDropMate);
            }
            return Ok(());
        }
        let from = m.from().ok_or(IllegalMoveKind::Syntax)?;
        let p = self.board[from.index()].ok_or(IllegalMoveKind::EmptySquare)?;
        if p.color != us {
            return Err(IllegalMoveKind::NotOwnPiece);
        }
        if self.by_color[us.index()].contains(to) {
            return Err(IllegalMoveKind::CaptureOwnPiece);
        }
        if !attacks(us, p.kind, from, occ).contains(to) {
            return Err(IllegalMoveKind::Unreachable);
        }
        if m.is_promotion() {
            if !p.kind.can_promote() || !(from.in_zone(us) || to.in_zone(us)) {
                return Err(IllegalMoveKind::CannotPromote);
            }
        } else if !has_further_move(us, p.kind, to) {
            return Err(IllegalMoveKind::NoFurtherMove);
        }
        if self.leaves_king_attacked(from, to) {
            return Err(IllegalMoveKind::SelfCheck);
        }
        Ok(())
    }

    /// For a board move of an own piece from `from` to `to` (which it can reach): whether it
    /// leaves the own king attacked. False when there is no own king.
    pub(super) fn leaves_king_attacked(&self, from: Square, to: Square) -> bool {
        let us = self.side;
        let Some(k) = self.kings[us.index()] else {
            return false;
        };
        let occ = self.occupied();
        if from == k {
            return self.is_attacked(!us, to, occ.without(from));
        }
        let ch = self.st.checkers;
        if ch.any() {
            if ch.more_than_one() {
                return true;
            }
            let c = ch.lsb().expect("non-empty");
            if to != c && !between(k, c).contains(to) {
                return true;
            }
        }
        self.pinned(us).contains(from) && !line(k, from).contains(to)
    }

    /// Whether dropping a pawn of the side to move on `to` (an empty square) would checkmate:
    /// uchifuzume (打ち歩詰め). Only a drop right in front of the enemy king can.
    pub(super) fn is_pawn_drop_mate(&self, to: Square) -> bool {
        let us = self.side;
        let them = !us;
        let Some(ek) = self.kings[them.index()] else {
            return false;
        };
        if !super::attacks::pawn_attacks(us, to).contains(ek) {
            return false;
        }
        let occ = self.occupied().with(to);
        // Can the king take the pawn or step away? The king's own square is vacated so that a
        // slider behind it still covers the squares it would retreat along.
        let occ_nk = occ.without(ek);
        let theirs = self.by_color[them.index()];
        for s in super::attacks::king_attacks(ek) - theirs {
            if !self.is_attacked(us, s, occ_nk) {
                return false;
            }
        }
        // Can another piece take the pawn without exposing its king? Pins are computed with
        // the pawn on the board: it may itself block a line.
        let capturers = self.attackers_to(them, to, occ).without(ek);
        if capturers.any() {
            let pinned = self.slider_blockers(us, ek, occ) & theirs;
            for c in capturers {
                if !pinned.contains(c) || line(ek, c).contains(to) {
                    return false;
                }
            }
        }
        true
    }

    /// Parses USI move text and checks it against this position.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, IllegalMoveKind> {
        let m = Move::from_usi(text.trim()).ok_or(IllegalMoveKind::Syntax)?;
        self.is_legal(m)?;
        Ok(m)
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged and says why.
    pub fn try_play(&mut self, m: Move) -> Result<(), IllegalMoveKind> {
        self.is_legal(m)?;
        self.do_move(m);
        Ok(())
    }
}
