//! Where each weight of the linear evaluation sits in its one flat table: the parts' bases
//! and sizes, the index of each term, the side-to-move weights, the learner's factors, and the
//! sizes of the earlier file layouts (which [`super::Weights::from_bytes`] still reads).
//!
//! Squares are taken in the owner's frame (White's board rotated by 180°), so one table serves
//! both colours.

use crate::shogi::{Color, Piece, PieceKind, Square};

/// Number of piece kinds (tables below are indexed by `PieceKind::index`).
pub(super) const KINDS: usize = PieceKind::NUM;

/// Offsets from a king: 17 files × 17 ranks (−8..=8 each way).
pub const OFFSETS: usize = 17 * 17;
/// How many of each hand kind can be held, in [`PieceKind::HAND`] order.
pub(super) const HAND_CAP: [usize; 7] = [18, 4, 4, 4, 4, 2, 2];
/// Where each hand kind's slots start within the hand table.
pub(super) const HAND_START: [usize; 7] = [0, 18, 22, 26, 30, 34, 36];
pub(super) const HAND_SLOTS: usize = 38;

pub(super) const PSQ_BASE: usize = 0;
pub(super) const HAND_BASE: usize = PSQ_BASE + KINDS * 81;
pub(super) const OWN_BASE: usize = HAND_BASE + HAND_SLOTS;
/// One king-piece table: king square × kind × square.
pub(super) const KP_SIZE: usize = 81 * KINDS * 81;
pub(super) const OPP_BASE: usize = OWN_BASE + KP_SIZE;
/// Hand tables by king square: king square × hand slot.
pub(super) const OWN_HAND_BASE: usize = OPP_BASE + KP_SIZE;
pub(super) const OPP_HAND_BASE: usize = OWN_HAND_BASE + 81 * HAND_SLOTS;
/// The king-safety table: per king, the enemy pieces within two squares × its own pieces
/// next to it × the enemy's hand pieces other than pawns × whether the enemy holds a pawn
/// (see [`safety_index`]).
pub(super) const SAFETY_BASE: usize = OPP_HAND_BASE + 81 * HAND_SLOTS;
/// Buckets of each count in the king-safety table (0..=8, more counts as 8).
pub(super) const SAFETY_COUNTS: usize = 9;
pub(super) const SAFETY_SIZE: usize = SAFETY_COUNTS * SAFETY_COUNTS * SAFETY_COUNTS * 2;
/// The side to move's bonus (tempo).
pub(super) const TEMPO: usize = SAFETY_BASE + SAFETY_SIZE;
/// The side-to-move tables (see [`turn_index`]): what each piece-square, hand, king-hand and
/// safety weight is worth more to its owner when the owner is to move (and less when not);
/// for the king-piece weights one per (kind, offset from the king), as their factors. (The
/// pair tables keep theirs beside each weight.)
pub(super) const TURN_BASE: usize = TEMPO + 1;
pub(super) const TURN_KP_BASE: usize = TURN_BASE + OWN_BASE;
pub(super) const TURN_KING_HAND_BASE: usize = TURN_KP_BASE + NUM_FACTORS;
pub(super) const TURN_SAFETY_BASE: usize = TURN_KING_HAND_BASE + 2 * 81 * HAND_SLOTS;
/// The pair tables: two pieces on neighbouring squares (see [`pair_terms`]), by the camp the
/// first stands in, both kinds and the direction between them; of one side (four directions,
/// each pair once) and of opposing sides (eight). Each weight is followed by its side-to-move
/// weight (one cache line holds both: a move looks up a few pairs at once).
pub(super) const PAIR_SAME_BASE: usize = TURN_SAFETY_BASE + SAFETY_SIZE;
pub(super) const PAIR_SAME_SIZE: usize = 2 * 3 * KINDS * KINDS * 4;
pub(super) const PAIR_MIXED_BASE: usize = PAIR_SAME_BASE + PAIR_SAME_SIZE;
pub(super) const PAIR_END: usize = PAIR_MIXED_BASE + 2 * 3 * KINDS * KINDS * 8;
/// Number of weights.
pub const NUM_WEIGHTS: usize = PAIR_END;

/// The eight directions between neighbouring squares as (file, rank) index steps on the
/// board (Black's frame); direction `d + 4` is the opposite of `d`, which is also `d` seen in
/// White's frame (the board rotated).
pub(super) const DIRS: [(isize, isize); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The direction ([`DIRS`]) of a step between neighbours by its square-index difference plus
/// 10 (file steps are ±9, rank steps ±1).
pub(super) const DIR_OF_STEP: [u8; 21] = {
    let mut t = [u8::MAX; 21];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRS[d];
        t[(df * 9 + dr + 10) as usize] = d as u8;
        d += 1;
    }
    t
};

/// The third of the board `sq` is in from `c`'s side: 0 the enemy camp, 2 its own.
#[inline]
pub(super) fn camp(c: Color, sq: Square) -> usize {
    frame(c, sq) % 9 / 3
}

/// Calls `f(index, +1 for Black / −1 for White)` for the pair-table terms of `p` on `x` next
/// to `q` on `y`, `d` the direction from `x` to `y` (Black's frame). Two pieces of one side
/// are one term, in their owner's frame from the piece the step leaves in the first four
/// directions (so either order gives the same term); a piece next to an enemy one is a term
/// for each, from its own side (what it touches, and where). Symmetric in the two pieces.
#[inline]
pub(super) fn pair_terms(
    p: Piece,
    x: Square,
    q: Piece,
    y: Square,
    d: usize,
    mut f: impl FnMut(usize, i32),
) {
    let c = p.color;
    let d = if c == Color::Black { d } else { (d + 4) & 7 };
    let kinds = |a: PieceKind, b: PieceKind| a.index() * KINDS + b.index();
    if q.color == c {
        let (a, b, at, d) = if d < 4 {
            (p, q, x, d)
        } else {
            (q, p, y, d - 4)
        };
        let i = (camp(c, at) * KINDS * KINDS + kinds(a.kind, b.kind)) * 4 + d;
        f(PAIR_SAME_BASE + 2 * i, sign(c));
    } else {
        // From `q`'s side the step back to `x` is `d` again: opposite, in the rotated frame.
        let i = (camp(c, x) * KINDS * KINDS + kinds(p.kind, q.kind)) * 8 + d;
        let j = (camp(q.color, y) * KINDS * KINDS + kinds(q.kind, p.kind)) * 8 + d;
        f(PAIR_MIXED_BASE + 2 * i, sign(c));
        f(PAIR_MIXED_BASE + 2 * j, sign(q.color));
    }
}

/// Number of the learner's factor weights ([`features`] numbers them from [`NUM_WEIGHTS`]):
/// `own` then `opp`, each kind × offset from the king.
pub const NUM_FACTORS: usize = 2 * KINDS * OFFSETS;

/// The weight count of the third file layout (rounds 9–11: no side-to-move tables), which
/// [`Weights::from_bytes`] still reads (those weights are zero then).
pub(super) const V3_WEIGHTS: usize = TURN_BASE;

/// The weight count of the second file layout (rounds 5–8: no safety table, no tempo), which
/// [`Weights::from_bytes`] still reads (those weights are zero then).
pub(super) const V2_WEIGHTS: usize = SAFETY_BASE;

/// The weight count of the first file layout (king-relative tables by offset only), which
/// [`Weights::from_bytes`] still reads.
pub(super) const V1_WEIGHTS: usize = HAND_BASE + HAND_SLOTS + 2 * KINDS * OFFSETS;

const _: () = {
    let mut i = 0;
    let mut start = 0;
    while i < 7 {
        assert!(HAND_START[i] == start);
        start += HAND_CAP[i];
        i += 1;
    }
    assert!(start == HAND_SLOTS);
};

/// The square in `c`'s frame: Black's squares as they are, White's rotated by 180°, so that
/// the owner's home rank is always rank index 8.
#[inline]
pub(super) fn frame(c: Color, sq: Square) -> usize {
    match c {
        Color::Black => sq.index(),
        Color::White => 80 - sq.index(),
    }
}

/// The offset from king square `k` to square `s`, both in the same frame.
#[inline]
pub(super) fn frame_offset(k: usize, s: usize) -> usize {
    let df = (s / 9) as isize - (k / 9) as isize + 8;
    let dr = (s % 9) as isize - (k % 9) as isize + 8;
    (df * 17 + dr) as usize
}

/// Index of the piece-square weight of `kind` for its owner `c` on `sq`.
#[inline]
pub fn psq_index(c: Color, kind: PieceKind, sq: Square) -> usize {
    PSQ_BASE + kind.index() * 81 + frame(c, sq)
}

/// Index of the weight of the `(n+1)`-th piece of hand kind number `h` ([`PieceKind::HAND`]
/// order).
#[inline]
pub fn hand_index(h: usize, n: usize) -> usize {
    HAND_BASE + HAND_START[h] + n
}

/// Offset within a king-piece table: king square, kind and square, all in `kc`'s frame.
#[inline]
pub(super) fn kp(kc: Color, king: Square, kind: PieceKind, sq: Square) -> usize {
    (frame(kc, king) * KINDS + kind.index()) * 81 + frame(kc, sq)
}

/// Index of the weight of a `kind` on `sq` given its own king on `king` (owner `c`).
#[inline]
pub fn own_index(c: Color, kind: PieceKind, king: Square, sq: Square) -> usize {
    OWN_BASE + kp(c, king, kind, sq)
}

/// Index of the weight of an enemy `kind` on `sq` given the king of `kc` on `king`.
#[inline]
pub fn opp_index(kc: Color, kind: PieceKind, king: Square, sq: Square) -> usize {
    OPP_BASE + kp(kc, king, kind, sq)
}

/// Index of the weight of the `slot`-th hand slot ([`hand_index`] − its base) of `c` given
/// `c`'s own king on `king`.
#[inline]
pub fn own_hand_index(c: Color, king: Square, slot: usize) -> usize {
    OWN_HAND_BASE + frame(c, king) * HAND_SLOTS + slot
}

/// Index of the weight of the `slot`-th hand slot of the side opposing `kc`, given `kc`'s king
/// on `king`.
#[inline]
pub fn opp_hand_index(kc: Color, king: Square, slot: usize) -> usize {
    OPP_HAND_BASE + frame(kc, king) * HAND_SLOTS + slot
}

/// The indices of the weights that depend on a king's square (king-piece and king-hand).
pub fn king_range() -> std::ops::Range<usize> {
    OWN_BASE..SAFETY_BASE
}

/// The side-to-move weight of weight `i` (a piece-square, hand, king-piece, king-hand,
/// safety or pair weight; `None` for the tempo and the side-to-move weights themselves): it
/// is added, whoever owns the piece, to the score of the side to move. (The search reads the
/// king-piece ones from `TableEval::kp`, beside their weights.)
#[inline]
pub fn turn_index(i: usize) -> Option<usize> {
    match i {
        _ if i < OWN_BASE => Some(TURN_BASE + i),
        _ if i < OWN_HAND_BASE => factor_of(i).map(|f| TURN_KP_BASE + f),
        _ if i < SAFETY_BASE => Some(TURN_KING_HAND_BASE + i - OWN_HAND_BASE),
        _ if i < TEMPO => Some(TURN_SAFETY_BASE + i - SAFETY_BASE),
        _ if i >= PAIR_SAME_BASE && (i - PAIR_SAME_BASE) % 2 == 0 => Some(i + 1),
        _ => None,
    }
}

/// The learner's factor of king-piece weight `i` (a number below [`NUM_FACTORS`]): the same
/// kind at the same offset from the king, whatever the king's square. King-hand weights have
/// none: the plain hand weight is what they share.
#[inline]
pub fn factor_of(i: usize) -> Option<usize> {
    if !(OWN_BASE..OWN_HAND_BASE).contains(&i) {
        return None;
    }
    let (table, rel) = ((i - OWN_BASE) / KP_SIZE, (i - OWN_BASE) % KP_SIZE);
    let (k, kind, s) = (rel / (KINDS * 81), rel / 81 % KINDS, rel % 81);
    Some((table * KINDS + kind) * OFFSETS + frame_offset(k, s))
}

/// The runtime weights of learner parameters `p` (weights, then factors): each king-piece
/// weight plus its factor.
pub fn fold_factors(p: &[f64]) -> Vec<f64> {
    assert_eq!(p.len(), NUM_WEIGHTS + NUM_FACTORS);
    (0..NUM_WEIGHTS)
        .map(|i| p[i] + factor_of(i).map_or(0.0, |f| p[NUM_WEIGHTS + f]))
        .collect()
}

/// The hand kind number (position in [`PieceKind::HAND`]) of a kind that can be held.
#[inline]
pub(super) fn hand_number(kind: PieceKind) -> usize {
    kind.index()
}

const _: () = {
    // `hand_number` relies on the hand kinds being the first seven indices, in order.
    let mut i = 0;
    while i < 7 {
        assert!(PieceKind::HAND[i].index() == i);
        i += 1;
    }
};
pub(super) fn sign(color: Color) -> i32 {
    match color {
        Color::Black => 1,
        Color::White => -1,
    }
}
