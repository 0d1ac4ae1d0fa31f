//! The input features, numbered as YaneuraOu numbers them (its "BonaPiece" indices), so that
//! the weights of a YaneuraOu net land on the features they were trained for. Two feature sets
//! ([`FeatureSet`]):
//!
//! - **HalfKP** (the public nets'): a feature is (the perspective's king square, one other
//!   piece), `king × FE_END + piece`;
//! - **K+P** (`kp_256x2-32-32`, nets under a megabyte): the pieces alone, `piece`, and after
//!   them ([`FE_END`] on) the two kings, each on its own: `FE_END + 81 × (enemy) + square`.
//!
//! Both are seen from the perspective: for White the board is rotated by 180° and
//! "friend"/"enemy" are swapped. The piece index is
//!
//! - for a piece in hand, the i-th (from 0) piece of a kind a side holds: that side's base for
//!   the kind plus i (so three pawns in hand are three features, one per pawn);
//! - for a piece on the board: its base (by kind and friend/enemy, promoted minor pieces
//!   counting as golds) plus the square index (file-major from 1一 = 0, as ours).
//!
//! Every non-king piece of the 38 is a feature: on the board or in hand. A position with
//! fewer (a handicap game, a composed problem) leaves the rest at piece index 0 —
//! YaneuraOu's "no piece", which still reads the weights of feature `king × FE_END` (HalfKP)
//! or 0 (K+P) — and we do the same.

use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

/// Pieces in hand take the indices below this one.
pub const FE_HAND_END: usize = 90;
/// The number of piece indices per king square.
pub const FE_END: usize = FE_HAND_END + 18 * 81;
/// HalfKP's input features: king squares × piece indices.
pub const DIMENSIONS: usize = 81 * FE_END;
/// The pieces other than kings, each one feature per perspective.
pub const PIECES: usize = 38;
/// The most features active at once in either set: the pieces and, in K+P, the two kings.
pub const MAX_ACTIVE: usize = PIECES + 2;

/// Which features a net's transformer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureSet {
    /// (own king square, piece): a king move changes every feature of its side's half.
    HalfKP,
    /// Pieces and kings apart: a king move changes one feature of each half.
    KP,
}

impl FeatureSet {
    /// The number of input features.
    pub const fn dimensions(self) -> usize {
        match self {
            FeatureSet::HalfKP => DIMENSIONS,
            FeatureSet::KP => FE_END + 2 * 81,
        }
    }

    /// The feature set's structure hash, as the format defines it: HalfKP's constant with its
    /// "friend king" flag; for K+P, K's constant mixed with P's rotated by one bit.
    pub const fn hash(self) -> u32 {
        match self {
            FeatureSet::HalfKP => 0x5D69_D5B9 ^ 1,
            FeatureSet::KP => {
                let (k, p) = (0xD3CE_E169u32, 0x764C_FB4Bu32);
                k ^ (p << 1) ^ (p >> 31)
            }
        }
    }

    /// The name in YaneuraOu's architecture text, e.g. `HalfKP(Friend)`.
    pub const fn text(self) -> &'static str {
        match self {
            FeatureSet::HalfKP => "HalfKP(Friend)",
            FeatureSet::KP => "K+P",
        }
    }

    /// The prefix of the architecture's short name, e.g. `halfKP` in `halfKP_256x2-32-32`.
    pub const fn short(self) -> &'static str {
        match self {
            FeatureSet::HalfKP => "halfKP",
            FeatureSet::KP => "KP",
        }
    }

    /// Where `perspective`'s piece features start: its king's [`king_base`] for HalfKP, 0 for
    /// K+P. `pos` must have that king.
    #[inline(always)]
    pub fn base(self, pos: &Position, perspective: Color) -> usize {
        match self {
            FeatureSet::HalfKP => king_base(pos, perspective),
            FeatureSet::KP => 0,
        }
    }
}

/// K+P's feature of `owner`'s king on `sq`, from `perspective`.
#[inline]
pub fn king_feature(perspective: Color, owner: Color, sq: Square) -> usize {
    FE_END + 81 * usize::from(owner != perspective) + seen(sq, perspective)
}

/// Where the pieces in hand of each kind start, in [`PieceKind::HAND`] order (pawn, lance,
/// knight, silver, gold, bishop, rook): `[friend, enemy]`. Index 0 is "no piece"; each kind
/// leaves room for all its pieces.
const HAND_BASE: [[usize; 2]; 7] = [
    [1, 20],
    [39, 44],
    [49, 54],
    [59, 64],
    [69, 74],
    [79, 82],
    [85, 88],
];

/// Where each kind's 81 squares start on the board, by [`PieceKind::index`], for the friend
/// side; the enemy's block follows at +81. The promoted minor pieces move as golds and share
/// the golds' block; the king is not a piece feature (it picks the feature set).
const BOARD_BASE: [usize; PieceKind::NUM] = {
    // YaneuraOu's order of the blocks: pawn, lance, knight, silver, gold, bishop, horse,
    // rook, dragon.
    const fn block(k: usize) -> usize {
        FE_HAND_END + 2 * 81 * k
    }
    let gold = block(4);
    [
        block(0), // pawn
        block(1), // lance
        block(2), // knight
        block(3), // silver
        gold,     // gold
        block(5), // bishop
        block(7), // rook
        0,        // king: never asked
        gold,     // promoted pawn
        gold,     // promoted lance
        gold,     // promoted knight
        gold,     // promoted silver
        block(6), // horse
        block(8), // dragon
    ]
};

/// The square as `perspective` sees it.
#[inline]
fn seen(sq: Square, perspective: Color) -> usize {
    match perspective {
        Color::Black => sq.index(),
        Color::White => sq.flip().index(),
    }
}

/// Where `perspective`'s features start: its king's square (as it sees it) × [`FE_END`].
/// `pos` must have that king.
pub fn king_base(pos: &Position, perspective: Color) -> usize {
    let king = pos
        .king_square(perspective)
        .expect("the perspective's king is on the board");
    seen(king, perspective) * FE_END
}

/// The feature of `piece` (not a king) on `sq`, from `perspective`, given its [`king_base`].
#[inline]
pub fn board_feature(base: usize, perspective: Color, piece: Piece, sq: Square) -> usize {
    let side = usize::from(piece.color != perspective);
    base + BOARD_BASE[piece.kind.index()] + 81 * side + seen(sq, perspective)
}

/// The feature of the `i`-th (from 0) piece of `kind` in `owner`'s hand, from `perspective`.
#[inline]
pub fn hand_feature(
    base: usize,
    perspective: Color,
    owner: Color,
    kind: PieceKind,
    i: usize,
) -> usize {
    // The hand kinds are the first seven kinds, in the hand order.
    debug_assert!(kind.is_hand_kind());
    base + HAND_BASE[kind.index()][usize::from(owner != perspective)] + i
}

/// Calls `f` with every active feature of `pos` from `perspective` in `set` (38 pieces, and
/// in K+P the two kings). `pos` must have both kings. Inlined so that the kernel that calls it
/// (see `kernel`) compiles `f`'s column adds with its own instructions.
#[inline(always)]
pub fn for_each_active(
    set: FeatureSet,
    pos: &Position,
    perspective: Color,
    mut f: impl FnMut(usize),
) {
    let base = set.base(pos, perspective);
    let mut count = 0;
    for sq in pos.occupied() {
        let p = pos.piece_on(sq).expect("an occupied square has a piece");
        if p.kind == PieceKind::King {
            if set == FeatureSet::KP {
                f(king_feature(perspective, p.color, sq));
            }
            continue;
        }
        f(board_feature(base, perspective, p, sq));
        count += 1;
    }
    for owner in Color::ALL {
        let hand = pos.hand(owner);
        for kind in PieceKind::HAND {
            for i in 0..hand.count(kind) as usize {
                f(hand_feature(base, perspective, owner, kind, i));
                count += 1;
            }
        }
    }
    for _ in count..PIECES {
        f(base);
    }
}

/// The active features as a list (tests, tools).
pub fn active(set: FeatureSet, pos: &Position, perspective: Color) -> Vec<usize> {
    let mut v = Vec::with_capacity(MAX_ACTIVE);
    for_each_active(set, pos, perspective, |i| v.push(i));
    v
}

/// What one move does to one perspective's active features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// This perspective's king moved in HalfKP: every feature changed, the sums are
    /// recomputed from the position.
    pub refresh: bool,
    /// How many features left (and as many came): 0 to 2.
    pub n: u8,
    pub removed: [u32; 2],
    pub added: [u32; 2],
}

impl Change {
    /// The change that takes this one back: what came leaves, what left comes back.
    pub fn undone(&self) -> Change {
        Change {
            refresh: self.refresh,
            n: self.n,
            removed: self.added,
            added: self.removed,
        }
    }

    fn swap(&mut self, removed: usize, added: usize) {
        let i = usize::from(self.n);
        self.removed[i] = removed as u32;
        self.added[i] = added as u32;
        self.n += 1;
    }
}

/// What `m`, played from `before`, does to each perspective's features in `set` (by
/// [`Color::index`]).
pub fn change(set: FeatureSet, before: &Position, m: Move) -> [Change; 2] {
    let us = before.side_to_move();
    let moved = before.moved_piece(m).expect("a move moves a piece");
    let to = m.to();
    let mut out = [Change::default(); 2];
    for p in Color::ALL {
        let c = &mut out[p.index()];
        if set == FeatureSet::HalfKP && moved.kind == PieceKind::King && p == us {
            c.refresh = true;
            continue;
        }
        // In HalfKP this perspective's king did not move: its base is the same before and
        // after. In K+P the base is 0.
        let base = set.base(before, p);
        match m.from() {
            None => {
                // The last of that kind in hand goes to the board.
                let n = before.hand(us).count(moved.kind) as usize;
                c.swap(
                    hand_feature(base, p, us, moved.kind, n - 1),
                    board_feature(base, p, moved, to),
                );
            }
            Some(from) => {
                if moved.kind != PieceKind::King {
                    let mut now = moved;
                    if m.is_promotion() {
                        now.kind = moved.kind.promote().unwrap_or(moved.kind);
                    }
                    c.swap(
                        board_feature(base, p, moved, from),
                        board_feature(base, p, now, to),
                    );
                } else if set == FeatureSet::KP {
                    c.swap(king_feature(p, us, from), king_feature(p, us, to));
                }
                if let Some(captured) = before.piece_on(to) {
                    let kind = captured.kind.unpromote();
                    let n = before.hand(us).count(kind) as usize;
                    c.swap(
                        board_feature(base, p, captured, to),
                        hand_feature(base, p, us, kind, n),
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbering_ends_where_yaneuraou_s_does() {
        assert_eq!(FE_END, 1548);
        assert_eq!(DIMENSIONS, 125_388);
        // The dragon's enemy block is the last one.
        assert_eq!(BOARD_BASE[PieceKind::Dragon.index()] + 2 * 81, FE_END);
        assert_eq!(BOARD_BASE[PieceKind::Horse.index()], 1062);
        assert_eq!(BOARD_BASE[PieceKind::Rook.index()], 1224);
    }

    #[test]
    fn startpos_features_mirror_between_perspectives() {
        let pos = Position::startpos();
        let mut b = active(FeatureSet::HalfKP, &pos, Color::Black);
        let mut w = active(FeatureSet::HalfKP, &pos, Color::White);
        assert_eq!(b.len(), PIECES);
        b.sort_unstable();
        w.sort_unstable();
        // The start position is symmetric under rotation and colour swap.
        assert_eq!(b, w);
        // Black's king on 5九 (index 4*9+8 = 44); Black's pawn on 7七 (index 6*9+6 = 60).
        assert!(b.contains(&(44 * FE_END + 90 + 60)));
    }

    #[test]
    fn hand_pieces_count_one_feature_each() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 3P2r 1").unwrap();
        let f = active(FeatureSet::HalfKP, &pos, Color::Black);
        let k = 44 * FE_END;
        for i in 0..3 {
            assert!(f.contains(&(k + 1 + i)));
        }
        assert!(f.contains(&(k + 88)) && f.contains(&(k + 89)));
        // The 33 pieces the position lacks are "no piece".
        assert_eq!(f.iter().filter(|&&i| i == k).count(), PIECES - 5);
    }

    #[test]
    fn k_p_features_are_half_kp_s_pieces_without_the_king_and_the_two_kings() {
        let pos = Position::startpos();
        for c in Color::ALL {
            let half = active(FeatureSet::HalfKP, &pos, c);
            let kp = active(FeatureSet::KP, &pos, c);
            assert_eq!(kp.len(), MAX_ACTIVE);
            let base = king_base(&pos, c);
            let pieces: Vec<usize> = kp.iter().copied().filter(|&f| f < FE_END).collect();
            assert_eq!(pieces, half.iter().map(|f| f - base).collect::<Vec<_>>());
            // Each side sees its own king on 5九 (44) and the other on 5一 (36).
            assert!(kp.contains(&(FE_END + 44)) && kp.contains(&(FE_END + 81 + 36)));
        }
        assert_eq!(FeatureSet::KP.dimensions(), 1710);
        assert!(kp_max() < FeatureSet::KP.dimensions());
    }

    /// The largest K+P feature: the enemy king on the last square.
    fn kp_max() -> usize {
        king_feature(Color::Black, Color::White, Square::try_index(80).unwrap())
    }
}
