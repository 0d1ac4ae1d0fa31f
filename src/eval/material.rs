//! Piece values: what the search's exchange evaluation, futility margins and move ordering count
//! with, and the material of the hand-set evaluation the learning started from (the learned
//! weights have their own).

use crate::shogi::PieceKind;

/// Piece values, indexed by [`PieceKind::index`]: what SEE, futility margins and move
/// ordering count with (the evaluation has its own, learned, in [`Weights`]).
/// YaneuraOu `evaluate.h` / apery_rust: Bonanza 6 values × 0.9.
pub const PIECE_VALUE: [i32; PieceKind::NUM] = [
    90,   // pawn
    315,  // lance
    405,  // knight
    495,  // silver
    540,  // gold
    855,  // bishop
    990,  // rook
    0,    // king (never captured in a legal game; 0 keeps SEE arithmetic simple)
    540,  // promoted pawn (と)
    540,  // promoted lance
    540,  // promoted knight
    540,  // promoted silver
    945,  // horse (馬)
    1395, // dragon (龍)
];

/// Value gained by promoting (promoted value − unpromoted value); 0 for kinds that cannot.
pub fn promotion_gain(kind: PieceKind) -> i32 {
    match kind.promote() {
        Some(p) => PIECE_VALUE[p.index()] - PIECE_VALUE[kind.index()],
        None => 0,
    }
}
