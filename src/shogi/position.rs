//! [`Position`]: board, hands, side to move, move number, incremental Zobrist key, check
//! state, do/undo, repetition (千日手 sennichite) and the entering-king declaration (入玉宣言).
//!
//! Invariants: `board`, `by_color`, `by_kind` and `kings` always agree; the side not to move is
//! never in check (SFEN input that breaks this is refused), and no piece stands where it could
//! never move again. Every function works with zero, one or two kings on the board: tsume
//! (詰将棋) problems usually have no attacker king, and then that side simply has no king
//! safety constraint.

use super::attacks::{
    between, bishop_attacks, bishop_pseudo_attacks, gold_attacks, is_diagonal, knight_attacks,
    lance_attacks, lance_pseudo_attacks, pawn_attacks, ray_through, rook_attacks,
    rook_pseudo_attacks, silver_attacks,
};
use super::bitboard::Bitboard;
use super::hand::Hand;
use super::types::{Color, Move, Piece, PieceKind, Square};
use super::zobrist;

/// What `do_move` must remember to undo a move and to judge repetitions.
#[derive(Clone, Copy, Debug)]
pub(super) struct StateInfo {
    pub(super) board_key: u64,
    pub(super) hand_key: u64,
    pub(super) checkers: Bitboard,
    /// Piece captured by the move that led here.
    pub(super) captured: Option<Piece>,
    /// Consecutive checking moves by each color up to here (for perpetual check, 連続王手).
    pub(super) continuous_checks: [u16; 2],
    /// Black's hand here; with equal boards White's hand follows from it.
    pub(super) black_hand: Hand,
    /// The move that led here.
    pub(super) last_move: Option<Move>,
    /// How many states in a row, this one included, were reached by a real move (not a
    /// null move, and not the start of the history): how far back a repetition can be.
    pub(super) moves_in_a_row: u16,
}

/// A shogi position.
#[derive(Clone)]
pub struct Position {
    pub(super) board: [Option<Piece>; 81],
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_kind: [Bitboard; 14],
    pub(super) hands: [Hand; 2],
    pub(super) kings: [Option<Square>; 2],
    pub(super) side: Color,
    pub(super) ply: u32,
    pub(super) st: StateInfo,
    pub(super) history: Vec<StateInfo>,
}

/// Result of [`Position::repetition`]: how the current position repeats an earlier one with the
/// same side to move, from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// No earlier occurrence (within the searched history).
    None,
    /// Same position, no perpetual check: a draw (千日手).
    Draw,
    /// Same position, and the opponent checked on every move of the cycle: the opponent loses
    /// by perpetual check (連続王手の千日手), so the side to move wins.
    Win,
    /// Same position, and the side to move checked on every one of its moves of the cycle:
    /// the side to move loses.
    Loss,
    /// Same board and side to move, and the side to move holds more in hand than before
    /// (優等局面): at least as good as the earlier position.
    Superior,
    /// Same board and side to move, and the side to move holds less in hand (劣等局面).
    Inferior,
}

impl Position {
    /// An empty board, Black to move, move number 1 (for building positions by hand).
    pub fn empty() -> Position {
        Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 14],
            hands: [Hand::EMPTY; 2],
            kings: [None; 2],
            side: Color::Black,
            ply: 1,
            st: StateInfo {
                board_key: 0,
                hand_key: 0,
                checkers: Bitboard::EMPTY,
                captured: None,
                continuous_checks: [0; 2],
                black_hand: Hand::EMPTY,
                last_move: None,
                moves_in_a_row: 0,
            },
            history: Vec::with_capacity(256),
        }
    }

    /// Side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The move number (SFEN's fourth field; 1 at the start, +1 per move).
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Number of moves played with `do_move` since the position was set up.
    #[inline]
    pub fn game_ply(&self) -> usize {
        self.history.len()
    }

    /// The Zobrist key of board, hands and side to move.
    #[inline]
    pub fn key(&self) -> u64 {
        self.st.board_key ^ self.st.hand_key
    }

    /// The key of board and side to move only (hands excluded).
    #[inline]
    pub fn board_key(&self) -> u64 {
        self.st.board_key
    }

    /// The [`board_key`](Self::board_key) after the legal move `m`, without playing it: the
    /// mate solver probes (and prefetches) every child's table entry this way and plays only
    /// the moves whose child it must look at (a `do_move`/`undo_move` pair per child was 17 %
    /// of its time).
    #[inline]
    pub fn board_key_after(&self, m: Move) -> u64 {
        let us = self.side;
        let to = m.to();
        let mut bk = self.st.board_key ^ zobrist::SIDE;
        if let Some(kind) = m.dropped_kind() {
            return bk ^ zobrist::piece(us, kind, to);
        }
        if let Some(cap) = self.board[to.index()] {
            bk ^= zobrist::piece(cap.color, cap.kind, to);
        }
        let from = Square::from_index_unchecked(m.origin_index());
        let Some(p) = self.board[from.index()] else {
            debug_assert!(false, "{m}: no piece to move");
            return bk;
        };
        let kind = if m.is_promotion() {
            p.kind.promote().unwrap_or(p.kind)
        } else {
            p.kind
        };
        bk ^ zobrist::piece(us, p.kind, from) ^ zobrist::piece(us, kind, to)
    }

    /// `c`'s pieces in hand.
    #[inline]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// `c`'s king square, if `c` has a king.
    #[inline]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.kings[c.index()]
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// `c`'s pieces.
    #[inline]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// Pieces of `kind`, both colors.
    #[inline]
    pub fn pieces_of_kind(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    /// `c`'s pieces of `kind`.
    #[inline]
    pub fn pieces(&self, c: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[c.index()]
    }

    /// Gold and the four kinds that move like gold (と, 成香, 成桂, 成銀), both colors.
    #[inline]
    pub(super) fn golds(&self) -> Bitboard {
        self.by_kind[PieceKind::Gold as usize]
            | self.by_kind[PieceKind::ProPawn as usize]
            | self.by_kind[PieceKind::ProLance as usize]
            | self.by_kind[PieceKind::ProKnight as usize]
            | self.by_kind[PieceKind::ProSilver as usize]
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.st.checkers.any()
    }

    /// The pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.st.checkers
    }

    /// The piece captured by the last move, if any.
    #[inline]
    pub fn captured_piece(&self) -> Option<Piece> {
        self.st.captured
    }

    /// The last move played with `do_move`, if any.
    #[inline]
    pub fn last_move(&self) -> Option<Move> {
        self.st.last_move
    }

    /// The piece `m` moves (before any promotion): the piece on its origin, or the dropped
    /// piece of the side to move. `None` if the origin is empty.
    #[inline]
    pub fn moved_piece(&self, m: Move) -> Option<Piece> {
        match m.dropped_kind() {
            Some(k) => Some(Piece::new(self.side, k)),
            None => self.board[m.origin_index()],
        }
    }

    /// Whether `m` captures (its destination holds a piece; drops never do).
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && self.board[m.to().index()].is_some()
    }

    /// `c`'s pieces that attack `sq` given occupancy `occ`.
    pub fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c;
        let k = &self.by_kind;
        let hd = k[PieceKind::Horse as usize] | k[PieceKind::Dragon as usize];
        let king_like = k[PieceKind::King as usize] | hd;
        let ours = self.by_color[c.index()];
        let mut b = (pawn_attacks(them, sq) & k[PieceKind::Pawn as usize])
            | (knight_attacks(them, sq) & k[PieceKind::Knight as usize])
            | (silver_attacks(them, sq) & (k[PieceKind::Silver as usize] | king_like))
            | (gold_attacks(them, sq) & (self.golds() | king_like));
        // A slider's rays only when one of `c`'s sliders of that kind stands on a line
        // through `sq` (an empty-board test): most squares have none on most lines, and the
        // blocked rays are the dear part (mate solver: 349 instructions a call before).
        let lances = k[PieceKind::Lance as usize] & ours;
        if (lance_pseudo_attacks(them, sq) & lances).any() {
            b |= lance_attacks(them, sq, occ) & lances;
        }
        let bishops = (k[PieceKind::Bishop as usize] | k[PieceKind::Horse as usize]) & ours;
        if (bishop_pseudo_attacks(sq) & bishops).any() {
            b |= bishop_attacks(sq, occ) & bishops;
        }
        let rooks = (k[PieceKind::Rook as usize] | k[PieceKind::Dragon as usize]) & ours;
        if (rook_pseudo_attacks(sq) & rooks).any() {
            b |= rook_attacks(sq, occ) & rooks;
        }
        b & ours
    }

    /// Whether `c` attacks `sq` given occupancy `occ`.
    #[inline]
    pub fn is_attacked(&self, c: Color, sq: Square, occ: Bitboard) -> bool {
        self.is_attacked_by(c, self.by_color[c.index()], sq, occ)
    }

    /// Whether one of `pieces` (pieces of `c`, as they stand on the board) attacks `sq`
    /// given occupancy `occ`: [`Position::is_attacked`] with some of `c`'s pieces left out.
    #[inline]
    pub fn is_attacked_by(&self, c: Color, pieces: Bitboard, sq: Square, occ: Bitboard) -> bool {
        // Step attackers first, and a slider's ray only when a slider of that kind could
        // reach `sq` on an empty board.
        if (self.step_attackers(c, sq) & pieces).any() {
            return true;
        }
        let k = &self.by_kind;
        let rooks = (k[PieceKind::Rook as usize] | k[PieceKind::Dragon as usize]) & pieces;
        if (rook_pseudo_attacks(sq) & rooks).any() && (rook_attacks(sq, occ) & rooks).any() {
            return true;
        }
        let bishops = (k[PieceKind::Bishop as usize] | k[PieceKind::Horse as usize]) & pieces;
        if (bishop_pseudo_attacks(sq) & bishops).any() && (bishop_attacks(sq, occ) & bishops).any()
        {
            return true;
        }
        let lances = k[PieceKind::Lance as usize] & pieces;
        (lance_pseudo_attacks(!c, sq) & lances).any() && (lance_attacks(!c, sq, occ) & lances).any()
    }

    /// Whether a piece of `c` attacks `sq` by a step (pawn, knight, silver, gold and its
    /// promoted kinds, king, and the one-square moves of horse and dragon).
    #[inline]
    pub fn is_step_attacked(&self, c: Color, sq: Square) -> bool {
        (self.step_attackers(c, sq) & self.by_color[c.index()]).any()
    }

    /// The pieces of either color that would attack `sq` by a step if they were `c`'s.
    #[inline(always)]
    fn step_attackers(&self, c: Color, sq: Square) -> Bitboard {
        let k = &self.by_kind;
        let hd = k[PieceKind::Horse as usize] | k[PieceKind::Dragon as usize];
        let king_like = k[PieceKind::King as usize] | hd;
        (pawn_attacks(!c, sq) & k[PieceKind::Pawn as usize])
            | (knight_attacks(!c, sq) & k[PieceKind::Knight as usize])
            | (silver_attacks(!c, sq) & (k[PieceKind::Silver as usize] | king_like))
            | (gold_attacks(!c, sq) & (self.golds() | king_like))
    }

    /// The squares of `within` that a slider of `c` (lance, bishop, rook, horse, dragon)
    /// attacks given occupancy `occ`: one ray set per slider that can reach `within` at all.
    /// King moves use it with the king lifted off the board, so it cannot hide from a slider
    /// behind itself.
    pub fn slider_attacks_within(&self, c: Color, within: Bitboard, occ: Bitboard) -> Bitboard {
        let theirs = self.by_color[c.index()];
        let k = &self.by_kind;
        let mut hit = Bitboard::EMPTY;
        for s in (k[PieceKind::Rook as usize] | k[PieceKind::Dragon as usize]) & theirs {
            if (rook_pseudo_attacks(s) & within).any() {
                hit |= rook_attacks(s, occ);
            }
        }
        for s in (k[PieceKind::Bishop as usize] | k[PieceKind::Horse as usize]) & theirs {
            if (bishop_pseudo_attacks(s) & within).any() {
                hit |= bishop_attacks(s, occ);
            }
        }
        for s in k[PieceKind::Lance as usize] & theirs {
            if (lance_pseudo_attacks(c, s) & within).any() {
                hit |= lance_attacks(c, s, occ);
            }
        }
        hit & within
    }

    /// The pieces (either color) that alone stand between `ksq` and a slider of `slider_color`
    /// aiming at it, given occupancy `occ`. Our pieces among them are pinned when `ksq` is our
    /// king; they are discovered-check candidates when `ksq` is the enemy king.
    pub fn slider_blockers(&self, slider_color: Color, ksq: Square, occ: Bitboard) -> Bitboard {
        let k = &self.by_kind;
        let snipers = ((lance_pseudo_attacks(!slider_color, ksq) & k[PieceKind::Lance as usize])
            | (bishop_pseudo_attacks(ksq)
                & (k[PieceKind::Bishop as usize] | k[PieceKind::Horse as usize]))
            | (rook_pseudo_attacks(ksq)
                & (k[PieceKind::Rook as usize] | k[PieceKind::Dragon as usize])))
            & self.by_color[slider_color.index()];
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.any() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// `c`'s pieces pinned to `c`'s king (empty without a king).
    #[inline]
    pub fn pinned(&self, c: Color) -> Bitboard {
        match self.kings[c.index()] {
            Some(k) => self.slider_blockers(!c, k, self.occupied()) & self.by_color[c.index()],
            None => Bitboard::EMPTY,
        }
    }

    pub(super) fn put_piece(&mut self, p: Piece, sq: Square) {
        debug_assert!(self.board[sq.index()].is_none());
        self.board[sq.index()] = Some(p);
        self.by_color[p.color.index()] |= Bitboard::from_square(sq);
        self.by_kind[p.kind.index()] |= Bitboard::from_square(sq);
        if p.kind == PieceKind::King {
            self.kings[p.color.index()] = Some(sq);
        }
    }

    pub(super) fn remove_piece(&mut self, sq: Square) -> Piece {
        let p = self.board[sq.index()]
            .take()
            .expect("remove_piece on an empty square");
        self.by_color[p.color.index()] ^= Bitboard::from_square(sq);
        self.by_kind[p.kind.index()] ^= Bitboard::from_square(sq);
        if p.kind == PieceKind::King {
            self.kings[p.color.index()] = None;
        }
        p
    }

    /// Recomputes keys, checkers and the hand record from scratch (after setting up a
    /// position). Also what tests compare the incremental key against.
    pub(super) fn refresh_state(&mut self) {
        let (bk, hk) = self.compute_keys();
        self.st.board_key = bk;
        self.st.hand_key = hk;
        self.st.black_hand = self.hands[0];
        self.st.checkers = self.compute_checkers();
    }

    /// (board key, hand key) computed from scratch.
    pub fn compute_keys(&self) -> (u64, u64) {
        let mut bk = 0;
        for sq in Square::ALL {
            if let Some(p) = self.board[sq.index()] {
                bk ^= zobrist::piece(p.color, p.kind, sq);
            }
        }
        if self.side == Color::White {
            bk ^= zobrist::SIDE;
        }
        let mut hk = 0u64;
        for c in Color::ALL {
            for k in PieceKind::HAND {
                hk = hk.wrapping_add(
                    zobrist::hand(c, k).wrapping_mul(self.hands[c.index()].count(k) as u64),
                );
            }
        }
        (bk, hk)
    }

    fn compute_checkers(&self) -> Bitboard {
        match self.kings[self.side.index()] {
            Some(k) => self.attackers_to(!self.side, k, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Plays `m`, which must be legal (see [`Position::is_legal`]; moves from the generators
    /// are). For input from outside use [`Position::try_play`].
    pub fn do_move(&mut self, m: Move) {
        self.do_move_inner(m, None);
    }

    /// [`Position::do_move`] for a caller that already knows whether `m` gives check (a
    /// search asks [`Position::gives_check_with_info`] before it moves): the checkers of the
    /// new position are then looked for only after a check. Looking for them after every
    /// move cost 6 % of the search's instructions.
    #[inline]
    pub fn do_move_gives_check(&mut self, m: Move, gives_check: bool) {
        self.do_move_inner(m, Some(gives_check));
    }

    #[inline(always)]
    fn do_move_inner(&mut self, m: Move, gives_check: Option<bool>) {
        let us = self.side;
        let them = !us;
        let prev = self.st;
        self.history.push(prev);
        let mut bk = prev.board_key ^ zobrist::SIDE;
        let mut hk = prev.hand_key;
        let mut captured = None;
        let to = m.to();
        let (placed, vacated) = if let Some(kind) = m.dropped_kind() {
            debug_assert!(self.hands[us.index()].has(kind));
            self.hands[us.index()].remove(kind);
            hk = hk.wrapping_sub(zobrist::hand(us, kind));
            self.put_piece(Piece::new(us, kind), to);
            bk ^= zobrist::piece(us, kind, to);
            (kind, None)
        } else {
            let from = Square::from_index_unchecked(m.origin_index());
            if let Some(cap) = self.board[to.index()] {
                debug_assert!(cap.color == them && cap.kind != PieceKind::King);
                self.remove_piece(to);
                bk ^= zobrist::piece(them, cap.kind, to);
                let hkind = cap.kind.unpromote();
                self.hands[us.index()].add(hkind);
                hk = hk.wrapping_add(zobrist::hand(us, hkind));
                captured = Some(cap);
            }
            let p = self.remove_piece(from);
            debug_assert!(p.color == us);
            bk ^= zobrist::piece(us, p.kind, from);
            let kind = if m.is_promotion() {
                p.kind.promote().unwrap_or(p.kind)
            } else {
                p.kind
            };
            self.put_piece(Piece::new(us, kind), to);
            bk ^= zobrist::piece(us, kind, to);
            (kind, Some(from))
        };
        self.side = them;
        self.ply += 1;
        let checkers = if gives_check == Some(false) {
            debug_assert!(self.compute_checkers().is_empty(), "{m} gives check");
            Bitboard::EMPTY
        } else {
            let c = self.checkers_after(us, placed, vacated, to);
            debug_assert_eq!(c, self.compute_checkers(), "checkers after {m}");
            c
        };
        let mut cc = prev.continuous_checks;
        cc[us.index()] = if checkers.any() {
            cc[us.index()].saturating_add(1)
        } else {
            0
        };
        self.st = StateInfo {
            board_key: bk,
            hand_key: hk,
            checkers,
            captured,
            continuous_checks: cc,
            black_hand: self.hands[0],
            last_move: Some(m),
            moves_in_a_row: prev.moves_in_a_row.saturating_add(1),
        };
    }

    /// Plays `m` (legal) only as far as the move generators look — pieces, hands, side to move
    /// and checkers — runs `f` on the position after it, and takes the move back. Keys,
    /// history, ply and counters are not touched (`f` must not rely on them): for a caller
    /// that only counts or generates the replies to a move (the mate solver counts the replies
    /// to every check it considers; a full `do_move`/`undo_move` pair was 12 % of its time).
    pub fn peek_move<R>(&mut self, m: Move, f: impl FnOnce(&Position) -> R) -> R {
        let us = self.side;
        let to = m.to();
        let saved_checkers = self.st.checkers;
        let mut captured = None;
        let (placed, vacated) = if let Some(kind) = m.dropped_kind() {
            self.hands[us.index()].remove(kind);
            self.put_piece(Piece::new(us, kind), to);
            (kind, None)
        } else {
            let from = Square::from_index_unchecked(m.origin_index());
            if self.board[to.index()].is_some() {
                let cap = self.remove_piece(to);
                self.hands[us.index()].add(cap.kind.unpromote());
                captured = Some(cap);
            }
            let p = self.remove_piece(from);
            let kind = if m.is_promotion() {
                p.kind.promote().unwrap_or(p.kind)
            } else {
                p.kind
            };
            self.put_piece(Piece::new(us, kind), to);
            (kind, Some(from))
        };
        self.side = !us;
        self.st.checkers = self.checkers_after(us, placed, vacated, to);
        debug_assert_eq!(
            self.st.checkers,
            self.compute_checkers(),
            "checkers after {m}"
        );
        let r = f(self);
        self.side = us;
        self.st.checkers = saved_checkers;
        let p = self.remove_piece(to);
        match vacated {
            None => self.hands[us.index()].add(placed),
            Some(from) => {
                let kind = if m.is_promotion() {
                    p.kind.unpromote()
                } else {
                    p.kind
                };
                self.put_piece(Piece::new(us, kind), from);
                if let Some(cap) = captured {
                    self.hands[us.index()].remove(cap.kind.unpromote());
                    self.put_piece(cap, to);
                }
            }
        }
        r
    }

    /// The pieces of `us` checking the enemy king right after `us` put a `kind` on `to`,
    /// from `vacated` (`None` for a drop). The opponent was not in check before the move
    /// (the side not to move never is), so a checker is the moved piece itself or a slider
    /// of ours uncovered on the line from the king through the vacated square: one ray
    /// instead of [`Position::attackers_to`]'s search of every kind (which cost 11 % of perft).
    #[inline(always)]
    fn checkers_after(
        &self,
        us: Color,
        kind: PieceKind,
        vacated: Option<Square>,
        to: Square,
    ) -> Bitboard {
        let Some(ek) = self.kings[(!us).index()] else {
            return Bitboard::EMPTY;
        };
        let occ = self.occupied();
        let mut c = if super::attacks::attacks(us, kind, to, occ).contains(ek) {
            Bitboard::from_square(to)
        } else {
            Bitboard::EMPTY
        };
        if let Some(from) = vacated {
            // The first piece beyond the vacated square, seen from the king: a checker if it
            // is ours and slides along that line.
            let hit = ray_through(ek, from, occ) & occ & self.by_color[us.index()];
            if hit.any() {
                let k = &self.by_kind;
                let sliders = if is_diagonal(ek, from) {
                    k[PieceKind::Bishop as usize] | k[PieceKind::Horse as usize]
                } else {
                    k[PieceKind::Rook as usize]
                        | k[PieceKind::Dragon as usize]
                        | (k[PieceKind::Lance as usize] & lance_pseudo_attacks(!us, ek))
                };
                c |= hit & sliders;
            }
        }
        c
    }

    /// Takes back `m`, which must be the last move played with `do_move`.
    pub fn undo_move(&mut self, m: Move) {
        debug_assert_eq!(self.st.last_move, Some(m));
        let them = self.side;
        let us = !them;
        let to = m.to();
        let p = self.remove_piece(to);
        if let Some(kind) = m.dropped_kind() {
            self.hands[us.index()].add(kind);
        } else {
            let from = Square::from_index_unchecked(m.origin_index());
            let kind = if m.is_promotion() {
                p.kind.unpromote()
            } else {
                p.kind
            };
            self.put_piece(Piece::new(us, kind), from);
            if let Some(cap) = self.st.captured {
                self.hands[us.index()].remove(cap.kind.unpromote());
                self.put_piece(cap, to);
            }
        }
        self.side = us;
        self.ply -= 1;
        self.st = self
            .history
            .pop()
            .expect("undo_move without a matching do_move");
    }

    /// Passes the turn (null move, for search). The side to move must not be in check.
    pub fn do_null_move(&mut self) {
        debug_assert!(!self.in_check());
        self.history.push(self.st);
        self.st.board_key ^= zobrist::SIDE;
        self.st.captured = None;
        self.st.last_move = None;
        self.st.moves_in_a_row = 0;
        self.st.continuous_checks[self.side.index()] = 0;
        self.side = !self.side;
        self.ply += 1;
        self.st.checkers = Bitboard::EMPTY;
    }

    /// Takes back [`Position::do_null_move`].
    pub fn undo_null_move(&mut self) {
        self.side = !self.side;
        self.ply -= 1;
        self.st = self
            .history
            .pop()
            .expect("undo_null_move without do_null_move");
    }

    /// Looks back up to `max_plies` plies for an earlier position with the same board and side
    /// to move (only positions reached with `do_move`), and classifies the most recent one.
    /// This flags the first recurrence, as search wants; the official sennichite needs four
    /// occurrences, see [`Position::repetition_count`].
    pub fn repetition(&self, max_plies: usize) -> Repetition {
        let n = self.history.len();
        let limit = max_plies.min(n);
        let mut d = 4;
        while d <= limit {
            let old = &self.history[n - d];
            if old.board_key == self.st.board_key {
                if let Some(r) = self.repetition_at(d, true) {
                    return r;
                }
            }
            d += 2;
        }
        Repetition::None
    }

    /// The verdict on a board seen again `d` plies back (an even `d`): the same hands are a
    /// repetition ([`Position::exact_repetition`]); with `compare_hands`, a hand that grew or
    /// shrank is a superior or inferior position. Hands that differ both ways (a pawn more, a
    /// silver less) make another position, neither better nor worse: `None`, look further back.
    pub(super) fn repetition_at(&self, d: usize, compare_hands: bool) -> Option<Repetition> {
        let (mine_now, mine_then) = self.hands_now_and_then(d);
        if mine_now == mine_then {
            Some(self.exact_repetition(d))
        } else if !compare_hands {
            None
        } else if mine_now.is_superior_or_equal(mine_then) {
            Some(Repetition::Superior)
        } else if mine_then.is_superior_or_equal(mine_now) {
            Some(Repetition::Inferior)
        } else {
            None
        }
    }

    /// The side to move's hand now and `d` plies back, for a board seen again. With equal
    /// boards both sides' hands sum to the same total, so White's hand grows exactly when
    /// Black's shrinks: Black's hands tell both.
    pub(super) fn hands_now_and_then(&self, d: usize) -> (Hand, Hand) {
        let old = &self.history[self.history.len() - d];
        if self.side == Color::Black {
            (self.st.black_hand, old.black_hand)
        } else {
            (old.black_hand, self.st.black_hand)
        }
    }

    /// The verdict on the same position `d` plies back (an even `d`): a win for the side to
    /// move when the opponent gave check with each of its `d/2` moves since (perpetual check),
    /// a loss when the side to move did, else a draw.
    pub(super) fn exact_repetition(&self, d: usize) -> Repetition {
        let us = self.side;
        let moves_each = (d / 2) as u16;
        let cc = self.st.continuous_checks;
        if cc[(!us).index()] >= moves_each {
            Repetition::Win
        } else if cc[us.index()] >= moves_each {
            Repetition::Loss
        } else {
            Repetition::Draw
        }
    }

    /// How many times the current position (board, hands, side) has occurred, this one
    /// included, since the position was set up. Four means sennichite (千日手).
    pub fn repetition_count(&self) -> usize {
        let key = self.key();
        1 + self
            .history
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|s| s.board_key ^ s.hand_key == key)
            .count()
    }

    /// Whether the side to move may declare a win by entering king (入玉宣言), under the CSA
    /// 27-point rule: the king is in the three far ranks, the side is not in check, at least
    /// ten other own pieces are in those ranks, and the points of those pieces plus the pieces
    /// in hand (rook and bishop types 5, others 1) reach 28 for Black or 27 for White.
    pub fn declaration_win(&self) -> bool {
        let us = self.side;
        let Some(k) = self.kings[us.index()] else {
            return false;
        };
        if !k.in_zone(us) || self.in_check() {
            return false;
        }
        let zone = Bitboard::zone(us) & self.by_color[us.index()];
        let others = zone.without(k);
        if others.count() < 10 {
            return false;
        }
        let big = self.by_kind[PieceKind::Bishop as usize]
            | self.by_kind[PieceKind::Rook as usize]
            | self.by_kind[PieceKind::Horse as usize]
            | self.by_kind[PieceKind::Dragon as usize];
        let h = self.hands[us.index()];
        let big_count =
            (others & big).count() + h.count(PieceKind::Bishop) + h.count(PieceKind::Rook);
        let small_count = (others - big).count() + h.total()
            - h.count(PieceKind::Bishop)
            - h.count(PieceKind::Rook);
        let points = big_count * 5 + small_count;
        points >= if us == Color::Black { 28 } else { 27 }
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl PartialEq for Position {
    /// Same board, hands, side to move and move number (history is not compared).
    fn eq(&self, o: &Position) -> bool {
        self.board == o.board && self.hands == o.hands && self.side == o.side && self.ply == o.ply
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Play USI moves (tests only; panics on an illegal one, naming it).
    pub(crate) fn play(p: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = p.parse_usi_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            p.do_move(mv);
        }
    }

    #[test]
    fn repetition_draw() {
        let mut p = Position::startpos();
        assert_eq!(p.repetition(16), Repetition::None);
        play(&mut p, "5i5h 5a5b 5h5i 5b5a");
        assert_eq!(p.repetition(16), Repetition::Draw);
        assert_eq!(p.repetition(3), Repetition::None);
        assert_eq!(p.repetition_count(), 2);
        assert_eq!(p.key(), Position::startpos().key());
        play(&mut p, "5i5h 5a5b 5h5i 5b5a 5i5h 5a5b 5h5i 5b5a");
        assert_eq!(p.repetition_count(), 4);
    }

    #[test]
    fn perpetual_check() {
        let mut p = Position::from_sfen("8k/9/9/9/9/9/9/9/K6R1 b - 1").unwrap();
        play(&mut p, "2i1i 1a2a 1i2i 2a1a");
        // Black checked on every move of the cycle: Black, to move, loses.
        assert_eq!(p.repetition(16), Repetition::Loss);
        play(&mut p, "2i1i");
        // Now White is to move and Black is the perpetual checker.
        assert_eq!(p.repetition(16), Repetition::Win);
    }

    #[test]
    fn superior_and_inferior() {
        let mut p = Position::from_sfen("8k/9/9/9/9/4G4/9/9/K8 b p 1").unwrap();
        play(&mut p, "9i8i P*5e 5f5e 1a2a 5e5f 2a2b 8i9i 2b1a");
        // Same board, Black (to move) now holds the pawn.
        assert_eq!(p.repetition(16), Repetition::Superior);
        play(&mut p, "9i8i");
        // White to move, same board as after the first move, without its pawn.
        assert_eq!(p.repetition(16), Repetition::Inferior);
    }

    #[test]
    fn mixed_hands_are_no_repetition() {
        // The board comes back after ten plies, but Black traded its silver for a pawn.
        let mut p = Position::from_sfen("8k/9/9/9/9/4G4/9/9/1K7 b Sp 1").unwrap();
        play(&mut p, "8i9i P*5e 5f5e 1a2a S*2b 2a2b 5e5f 2b2a 9i8i 2a1a");
        assert_eq!(
            p.board_key(),
            Position::from_sfen("8k/9/9/9/9/4G4/9/9/1K7 b Sp 1")
                .unwrap()
                .board_key()
        );
        assert_eq!(p.repetition(16), Repetition::None);
        assert_eq!(p.repetition_in_search(16, 16), Repetition::None);
    }

    #[test]
    fn declaration() {
        let p = Position::from_sfen("RRBBGGGG1/4K3S/8S/9/9/9/9/9/4k4 b 2P 1").unwrap();
        assert!(p.declaration_win());
        let p = Position::from_sfen("RRBBGGGG1/4K3S/8S/9/9/9/9/9/4k4 b P 1").unwrap();
        assert!(!p.declaration_win(), "27 points are not enough for Black");
        // White needs only 27.
        let p = Position::from_sfen("4K4/9/9/9/9/9/s8/s3k4/1ggggbbrr w p 1").unwrap();
        assert!(p.declaration_win());
        // Fewer than ten pieces in the zone.
        let p = Position::from_sfen("RRBBGGGG1/4K4/9/9/9/9/9/9/4k4 b 2S4P 1").unwrap();
        assert!(!p.declaration_win());
        // King outside the zone.
        let p = Position::from_sfen("RRBBGGGG1/8S/8S/4K4/9/9/9/9/4k4 b 2P 1").unwrap();
        assert!(!p.declaration_win());
    }

    #[test]
    fn moved_piece_and_capture() {
        let mut p = Position::from_usi_position("startpos moves 7g7f 3c3d").unwrap();
        let m = p.parse_usi_move("8h2b+").unwrap();
        assert_eq!(
            p.moved_piece(m),
            Some(Piece::new(Color::Black, PieceKind::Bishop))
        );
        assert!(p.is_capture(m));
        p.do_move(m);
        assert_eq!(
            p.captured_piece(),
            Some(Piece::new(Color::White, PieceKind::Bishop))
        );
        let d = Move::new_drop(PieceKind::Bishop, Square::SQ55);
        assert_eq!(
            p.moved_piece(d),
            Some(Piece::new(Color::White, PieceKind::Bishop))
        );
        assert!(!p.is_capture(d));
    }

    #[test]
    fn null_move_and_undo() {
        let mut p = Position::startpos();
        let k = p.key();
        p.do_null_move();
        assert_ne!(p.key(), k);
        assert_eq!(p.side_to_move(), Color::White);
        p.undo_null_move();
        assert_eq!(p.key(), k);
        assert_eq!(p, Position::startpos());
    }
}
