//! What the df-pn search needs from a position, as a trait.
//!
//! Why a trait: the search, the table and the PV logic are independent of how moves are
//! generated. The production implementation wraps the core's `shogi::Position` (its check and
//! evasion generators); the unit tests also run the search over small hand-made AND/OR graphs
//! (with cycles), which pin down the df-pn, repetition and shortest-mate logic exactly.
//!
//! Invariants every implementation keeps:
//! - the attacker is the side to move at OR nodes; [`MateBoard::generate_or_moves`] gives every
//!   legal checking move, [`MateBoard::generate_and_moves`] every legal reply of the defender
//!   (futile interpositions (無駄合) included);
//! - [`MateBoard::board_key`] identifies the position without the hands, so that the table can
//!   relate positions that differ only by the attacker's hand (dominance, 優越関係).
//!   Inside one problem the pieces are conserved, so board key plus attacker hand identify the
//!   whole position (the search's repetition test relies on it).

use crate::shogi::{Hand, PieceKind};

/// A position the mate solver can search.
pub trait MateBoard {
    /// A move; `Display` is the USI text.
    type Move: Copy + Eq + std::fmt::Display + std::fmt::Debug;

    /// Hash of the board and side to move, hands excluded.
    fn board_key(&self) -> u64;
    /// [`board_key`](Self::board_key) after the legal move `m`. The search asks it for every
    /// child before probing the table, and plays a move only when it must look at the child
    /// itself; implementations should compute it without playing the move.
    fn board_key_after(&mut self, m: Self::Move) -> u64 {
        self.do_move(m);
        let key = self.board_key();
        self.undo_move(m);
        key
    }
    /// The attacker's hand (the attacker is the side to move at the root).
    fn attacker_hand(&self) -> Hand;
    /// The defender's hand.
    fn defender_hand(&self) -> Hand;
    /// Every legal checking move of the side to move (OR node).
    fn generate_or_moves(&mut self, out: &mut Vec<Self::Move>);
    /// Every legal move of the side to move, which is in check (AND node).
    fn generate_and_moves(&mut self, out: &mut Vec<Self::Move>);
    /// How many legal replies the side to move (in check) has, counting at most `limit`.
    /// Zero means checkmate. Implementations should stop generating at `limit`.
    fn count_and_moves(&mut self, limit: usize) -> usize {
        let mut moves = Vec::new();
        self.generate_and_moves(&mut moves);
        moves.len().min(limit)
    }
    /// [`MateBoard::count_and_moves`] in the position after `m` (a legal move here), the board
    /// left as it was. Implementations may play the move more cheaply than `do_move`.
    fn count_and_moves_after(&mut self, m: Self::Move, limit: usize) -> usize {
        self.do_move(m);
        let n = self.count_and_moves(limit);
        self.undo_move(m);
        n
    }
    /// How many checks (OR moves) the attacker has after the defender's legal move `m` (here,
    /// an AND node), the board left as it was. Implementations may play the move more cheaply
    /// than `do_move`.
    fn count_or_moves_after(&mut self, m: Self::Move) -> usize {
        let mut moves = Vec::new();
        self.do_move(m);
        self.generate_or_moves(&mut moves);
        self.undo_move(m);
        moves.len()
    }
    /// Whether the attacker may have a check after the defender's legal move `m` (here, an AND
    /// node): `false` proves the child has none (it is disproven for any length), `true` says
    /// nothing. A cheap test by piece sets, asked before the child is searched.
    fn may_check_after(&mut self, _m: Self::Move) -> bool {
        true
    }
    /// Moves that share a delay group (at the same node) are searched one after another
    /// (KomoringHeights' delayed expansion): the later one only counts once the earlier one is
    /// resolved. Used for drops on the same interposition square (futile interpositions
    /// (無駄合) would otherwise multiply an AND node's proof number) and for the promoting and
    /// non-promoting forms of one move. `None`: never delayed.
    fn delay_group(&self, _m: Self::Move) -> Option<u16> {
        None
    }
    /// Play a move.
    fn do_move(&mut self, m: Self::Move);
    /// Take back the last move `m`.
    fn undo_move(&mut self, m: Self::Move);
    /// If `m` (legal here) is a drop, the kind dropped.
    fn dropped_kind(&self, m: Self::Move) -> Option<PieceKind>;
    /// If `m` (legal here) captures, the kind the capturer puts in hand.
    fn captured_kind(&self, m: Self::Move) -> Option<PieceKind>;
    /// At an AND node: whether some check could in principle be blocked by a drop (an empty
    /// square lies between a distant checker and the king). Proof pieces (証明駒) must then
    /// keep every attacker piece of the kinds the defender lacks, since with fewer of them the
    /// defender would hold one and could interpose.
    fn check_is_blockable(&self) -> bool;
    /// Whether the side to move is in check.
    fn in_check(&self) -> bool;
}
