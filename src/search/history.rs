//! Move-ordering statistics: butterfly, capture and continuation histories, plus killers.
//!
//! All tables hold `i16` scores updated with the "gravity" formula of Stockfish's
//! `movepick.h` (`entry += bonus - entry * |bonus| / LIMIT`), which keeps every entry inside
//! `-LIMIT..=LIMIT` without clamping and lets old information decay.
//!
//! Tables are indexed by plain `usize`s, made from the core types by [`move_index`] and
//! [`piece_index`]:
//! - a *move index* is `from * 81 + to` for board moves and `(81 + kind) * 81 + to` for drops
//!   (kind = unpromoted piece kind index, 0..7), see [`MOVE_INDEX_NB`];
//! - a *piece index* is below [`PIECE_NB`] (colour and kind, promoted kinds included);
//! - a *square* is below 81.

use crate::shogi::{Color, Move, PieceKind};

/// Squares on the board.
pub const SQ_NB: usize = 81;
/// Piece indices (2 colours × 16 kind slots, a few unused).
pub const PIECE_NB: usize = 32;
/// Distinct (from-or-drop, to) pairs.
pub const MOVE_INDEX_NB: usize = (SQ_NB + 7) * SQ_NB;
/// Captured-piece classes for the capture history (unpromoted kinds).
pub const CAPTURED_NB: usize = 8;

/// Saturation bound of the butterfly and capture histories (Stockfish `MainHistory` D = 7183,
/// rounded: shogi move indices are sparser, the exact figure matters little).
pub const HISTORY_LIMIT: i32 = 7183;
/// Saturation bound of continuation histories (Stockfish `ContinuationHistory` D = 29952,
/// capped to fit `i16`).
pub const CONT_HISTORY_LIMIT: i32 = 29952;

/// The butterfly index of `m`: the origin field of the move's 16 bits (a square, or 81 + the
/// dropped kind) times 81, plus the destination.
#[inline]
pub fn move_index(m: Move) -> usize {
    ((m.to_u16() >> 7) & 0x7F) as usize * SQ_NB + m.to().index()
}

/// The piece index of a `kind` of `color` after a move that promotes it if `promotes`.
#[inline]
pub fn piece_index(color: Color, kind: PieceKind, promotes: bool) -> usize {
    let k = if promotes {
        kind.promote().unwrap_or(kind)
    } else {
        kind
    };
    color.index() * 16 + k.index()
}

#[inline]
fn gravity(entry: &mut i16, bonus: i32, limit: i32) {
    let bonus = bonus.clamp(-limit, limit);
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / limit) as i16;
}

/// `[color][move index]` history of quiet moves.
pub struct ButterflyHistory(Vec<i16>);

impl ButterflyHistory {
    pub fn new() -> Self {
        ButterflyHistory(vec![0; 2 * MOVE_INDEX_NB])
    }
    #[inline]
    pub fn get(&self, color: usize, mi: usize) -> i32 {
        self.0[color * MOVE_INDEX_NB + mi] as i32
    }
    #[inline]
    pub fn update(&mut self, color: usize, mi: usize, bonus: i32) {
        gravity(
            &mut self.0[color * MOVE_INDEX_NB + mi],
            bonus,
            HISTORY_LIMIT,
        );
    }
    pub fn clear(&mut self) {
        self.0.fill(0);
    }
}

impl Default for ButterflyHistory {
    fn default() -> Self {
        Self::new()
    }
}

/// `[moved piece][to][captured class]` history of captures.
pub struct CaptureHistory(Vec<i16>);

impl CaptureHistory {
    pub fn new() -> Self {
        CaptureHistory(vec![0; PIECE_NB * SQ_NB * CAPTURED_NB])
    }
    #[inline]
    fn idx(piece: usize, to: usize, captured: usize) -> usize {
        (piece * SQ_NB + to) * CAPTURED_NB + captured
    }
    #[inline]
    pub fn get(&self, piece: usize, to: usize, captured: usize) -> i32 {
        self.0[Self::idx(piece, to, captured)] as i32
    }
    #[inline]
    pub fn update(&mut self, piece: usize, to: usize, captured: usize, bonus: i32) {
        gravity(
            &mut self.0[Self::idx(piece, to, captured)],
            bonus,
            HISTORY_LIMIT,
        );
    }
    pub fn clear(&mut self) {
        self.0.fill(0);
    }
}

impl Default for CaptureHistory {
    fn default() -> Self {
        Self::new()
    }
}

/// Continuation history: for a previous move (piece, to), scores of the next (piece, to).
///
/// One flat table of `PIECE_NB * SQ_NB` blocks of `PIECE_NB * SQ_NB` entries (13 MB); a
/// search stack frame names its block by [`ContinuationHistory::block`] so that the node can
/// read the histories of the moves 1, 2 and 4 plies back without re-deriving them.
pub struct ContinuationHistory(Vec<i16>);

/// Entries in one continuation block.
pub const CONT_BLOCK: usize = PIECE_NB * SQ_NB;

impl ContinuationHistory {
    pub fn new() -> Self {
        // One extra block at the end is the "no previous move" sentinel, never updated
        // usefully but always valid to read.
        ContinuationHistory(vec![0; (CONT_BLOCK + 1) * CONT_BLOCK])
    }
    /// The block following a move of `piece` to `to`.
    #[inline]
    pub fn block(piece: usize, to: usize) -> usize {
        piece * SQ_NB + to
    }
    /// The sentinel block for "no move" (root, null move).
    pub const NONE_BLOCK: usize = CONT_BLOCK;
    #[inline]
    pub fn get(&self, block: usize, piece: usize, to: usize) -> i32 {
        self.0[block * CONT_BLOCK + piece * SQ_NB + to] as i32
    }
    #[inline]
    pub fn update(&mut self, block: usize, piece: usize, to: usize, bonus: i32) {
        gravity(
            &mut self.0[block * CONT_BLOCK + piece * SQ_NB + to],
            bonus,
            CONT_HISTORY_LIMIT,
        );
    }
    pub fn clear(&mut self) {
        self.0.fill(0);
    }
}

impl Default for ContinuationHistory {
    fn default() -> Self {
        Self::new()
    }
}

/// Stat bonus for a move that caused a cutoff at `depth`: Stockfish 11's quadratic
/// `29 d² + 138 d - 134` (positive from depth 1, which matters for shallow ordering), capped
/// at 1600 like later versions cap theirs.
#[inline]
pub fn stat_bonus(depth: i32) -> i32 {
    let d = depth.max(0);
    (29 * d * d + 138 * d - 134).clamp(0, 1600)
}

/// Malus for quiet moves searched before the cutoff move (Stockfish 16 `stat_malus`).
#[inline]
pub fn stat_malus(depth: i32) -> i32 {
    (361 * depth - 361).clamp(0, 1182)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_saturates_inside_limit() {
        let mut h = ButterflyHistory::new();
        for _ in 0..1000 {
            h.update(0, 5, 2000);
        }
        assert!(h.get(0, 5) <= HISTORY_LIMIT && h.get(0, 5) > HISTORY_LIMIT - 300);
        for _ in 0..1000 {
            h.update(0, 5, -2000);
        }
        assert!(h.get(0, 5) >= -HISTORY_LIMIT && h.get(0, 5) < -HISTORY_LIMIT + 300);
        assert_eq!(h.get(1, 5), 0);
    }

    #[test]
    fn continuation_blocks_are_independent() {
        let mut c = ContinuationHistory::new();
        let b = ContinuationHistory::block(3, 40);
        c.update(b, 17, 20, 500);
        assert_eq!(c.get(b, 17, 20), 500);
        assert_eq!(c.get(ContinuationHistory::block(3, 41), 17, 20), 0);
        assert_eq!(c.get(ContinuationHistory::NONE_BLOCK, 17, 20), 0);
        for _ in 0..500 {
            c.update(b, 17, 20, 30000);
        }
        assert!(c.get(b, 17, 20) <= CONT_HISTORY_LIMIT);
    }

    #[test]
    fn bonuses_grow_with_depth() {
        assert_eq!(stat_bonus(1), 33);
        assert_eq!(stat_bonus(0), 0);
        assert!(stat_bonus(3) > stat_bonus(2));
        assert_eq!(stat_bonus(50), 1600);
        assert!(stat_malus(5) > 0);
    }
}
