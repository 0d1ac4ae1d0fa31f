//! Static evaluation behind the [`Evaluator`] trait: a linear evaluation over piece-square,
//! hand and king-piece features, updated incrementally by a delta per move.
//!
//! The search talks to evaluation only through [`Evaluator`] (`reset` at the root,
//! `push`/`pop` around `do_move`/`undo_move`, `evaluate` at a node), so another evaluation
//! (NNUE, KPPT) can replace [`TableEval`] later without touching the search.
//!
//! [`TableEval`] scores, from Black's point of view, the sum over Black's pieces minus the sum
//! over White's of three table lookups (see [`Weights`]), plus the pieces in hand:
//! - `psq[kind][square]`: the piece's worth where it stands (material included);
//! - `own[king square][kind][square]`: where it stands given where its own king stands
//!   (defence, castles: Bonanza's "KP");
//! - `opp[king square][kind][square]`: where it stands given where the enemy king stands
//!   (attack);
//! - `hand[kind][i]`: the worth of the (i+1)-th piece of a kind in hand, plus
//!   `own_hand[king square][kind][i]` and `opp_hand[enemy king square][kind][i]`: the same
//!   given where the holder's own king and the enemy king stand (drops near an exposed king);
//! - `safety[near][guards][drops][pawn]` per king, from its owner's side: enemy pieces within
//!   two squares of it, its own pieces next to it, the enemy's non-pawn pieces in hand and
//!   whether the enemy holds a pawn (each count capped at 8) — the one term that is not a sum
//!   over single pieces, so three attackers can weigh more than three times one;
//! - `tempo`, for the side to move;
//! - side-to-move tables (since 2026-11-28, Apery's "T" of KPPT applied to these terms): for
//!   every piece-square, hand and king-hand weight, and for the safety table, a second weight
//!   the side to move gets, whoever owns the piece — a piece is worth more to its owner when
//!   the owner moves next (an attacker near the king, a piece en prise) — and for the
//!   king-piece weights one such weight per (kind, offset from the king) (their factor's
//!   shape: one per king square added nothing the learner could see on 480 k positions);
//! - `pair[camp][kind][kind][direction]` (since 2026-11-28): two pieces on neighbouring
//!   squares — of one side (a castle's gold beside its silver, a pawn in front of a lance),
//!   from their owner's side, or of opposing sides (what a piece touches), once from each
//!   piece's side — by the third of the board the first stands in; with side-to-move weights
//!   too (a piece touching an enemy piece is worth more when its owner moves next). The first
//!   term of two pieces: the king-piece tables see each piece alone.
//!
//! The side-to-move part is carried as one more sum per part (no owner's sign) and given to
//! the side to move at `evaluate`; the pairs a move changes (those of the squares it leaves
//! and takes, before and after) are updated in `push` from the occupied neighbours. Files of
//! the earlier layouts load with the new weights zero (and score as they did).
//!
//! Squares are taken in the owner's frame (White's board rotated by 180°), so one table serves
//! both colours. The weights are learned (`gougi learn`, see [`crate::search::learn`]) and
//! embedded; `EvalFile` loads another set. [`Weights::hand_set`] is the hand-set evaluation the
//! learning started from. The learner also sees, for every king-piece weight, a shared weight
//! per (kind, offset from the king) — a *factor* that generalises across king squares seen
//! rarely; [`fold_factors`] adds it into the king-piece tables, so the search never sees it.
//!
//! Incremental invariant: after `push(pos, m)` and `pos.do_move(m)`, the top of the stack
//! equals what `reset` would compute on the new position, except when a king moved: then that
//! king's terms are recomputed lazily on the next `evaluate` (kings move rarely). The safety
//! and tempo terms are not carried: a few bitboard counts at every `evaluate` are cheaper than
//! tracking them through every move.

use std::sync::OnceLock;

use crate::shogi::attacks::king_attacks;
use crate::shogi::bitboard::Bitboard;
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

use super::value::Value;

/// Number of piece kinds (tables below are indexed by `PieceKind::index`).
const KINDS: usize = PieceKind::NUM;

/// The evaluation interface the search uses.
pub trait Evaluator: Clone + Send + 'static {
    /// Recomputes everything from `pos` (root of a search).
    fn reset(&mut self, pos: &Position);
    /// Records the effect of `m`; `pos` is the position *before* `m` is played.
    fn push(&mut self, pos: &Position, m: Move);
    /// A null move: nothing on the board changes.
    fn push_null(&mut self);
    /// Undoes the last `push`/`push_null`.
    fn pop(&mut self);
    /// Score of `pos` (the position after every pushed move) for the side to move.
    fn evaluate(&mut self, pos: &Position) -> Value;
}

/// Piece values, indexed by [`PieceKind::index`]: what SEE, futility margins and move
/// ordering count with (the evaluation has its own, learned, in [`Weights`]).
/// YaneuraOu `evaluate.h` / apery_rust: Bonanza 6 values × 0.9.
pub const PIECE_VALUE: [i32; KINDS] = [
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

/// Offsets from a king: 17 files × 17 ranks (−8..=8 each way).
pub const OFFSETS: usize = 17 * 17;
/// How many of each hand kind can be held, in [`PieceKind::HAND`] order.
const HAND_CAP: [usize; 7] = [18, 4, 4, 4, 4, 2, 2];
/// Where each hand kind's slots start within the hand table.
const HAND_START: [usize; 7] = [0, 18, 22, 26, 30, 34, 36];
const HAND_SLOTS: usize = 38;

const PSQ_BASE: usize = 0;
const HAND_BASE: usize = PSQ_BASE + KINDS * 81;
const OWN_BASE: usize = HAND_BASE + HAND_SLOTS;
/// One king-piece table: king square × kind × square.
const KP_SIZE: usize = 81 * KINDS * 81;
const OPP_BASE: usize = OWN_BASE + KP_SIZE;
/// Hand tables by king square: king square × hand slot.
const OWN_HAND_BASE: usize = OPP_BASE + KP_SIZE;
const OPP_HAND_BASE: usize = OWN_HAND_BASE + 81 * HAND_SLOTS;
/// The king-safety table: per king, the enemy pieces within two squares × its own pieces
/// next to it × the enemy's hand pieces other than pawns × whether the enemy holds a pawn
/// (see [`safety_index`]).
const SAFETY_BASE: usize = OPP_HAND_BASE + 81 * HAND_SLOTS;
/// Buckets of each count in the king-safety table (0..=8, more counts as 8).
const SAFETY_COUNTS: usize = 9;
const SAFETY_SIZE: usize = SAFETY_COUNTS * SAFETY_COUNTS * SAFETY_COUNTS * 2;
/// The side to move's bonus (tempo).
const TEMPO: usize = SAFETY_BASE + SAFETY_SIZE;
/// The side-to-move tables (see [`turn_index`]): what each piece-square, hand, king-hand and
/// safety weight is worth more to its owner when the owner is to move (and less when not);
/// for the king-piece weights one per (kind, offset from the king), as their factors. (The
/// pair tables keep theirs beside each weight.)
const TURN_BASE: usize = TEMPO + 1;
const TURN_KP_BASE: usize = TURN_BASE + OWN_BASE;
const TURN_KING_HAND_BASE: usize = TURN_KP_BASE + NUM_FACTORS;
const TURN_SAFETY_BASE: usize = TURN_KING_HAND_BASE + 2 * 81 * HAND_SLOTS;
/// The pair tables: two pieces on neighbouring squares (see [`pair_terms`]), by the camp the
/// first stands in, both kinds and the direction between them; of one side (four directions,
/// each pair once) and of opposing sides (eight). Each weight is followed by its side-to-move
/// weight (one cache line holds both: a move looks up a few pairs at once).
const PAIR_SAME_BASE: usize = TURN_SAFETY_BASE + SAFETY_SIZE;
const PAIR_SAME_SIZE: usize = 2 * 3 * KINDS * KINDS * 4;
const PAIR_MIXED_BASE: usize = PAIR_SAME_BASE + PAIR_SAME_SIZE;
const PAIR_END: usize = PAIR_MIXED_BASE + 2 * 3 * KINDS * KINDS * 8;
/// Number of weights.
pub const NUM_WEIGHTS: usize = PAIR_END;

/// The eight directions between neighbouring squares as (file, rank) index steps on the
/// board (Black's frame); direction `d + 4` is the opposite of `d`, which is also `d` seen in
/// White's frame (the board rotated).
const DIRS: [(isize, isize); 8] = [
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
const DIR_OF_STEP: [u8; 21] = {
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
fn camp(c: Color, sq: Square) -> usize {
    frame(c, sq) % 9 / 3
}

/// Calls `f(index, +1 for Black / −1 for White)` for the pair-table terms of `p` on `x` next
/// to `q` on `y`, `d` the direction from `x` to `y` (Black's frame). Two pieces of one side
/// are one term, in their owner's frame from the piece the step leaves in the first four
/// directions (so either order gives the same term); a piece next to an enemy one is a term
/// for each, from its own side (what it touches, and where). Symmetric in the two pieces.
#[inline]
fn pair_terms(p: Piece, x: Square, q: Piece, y: Square, d: usize, mut f: impl FnMut(usize, i32)) {
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
const V3_WEIGHTS: usize = TURN_BASE;

/// The weight count of the second file layout (rounds 5–8: no safety table, no tempo), which
/// [`Weights::from_bytes`] still reads (those weights are zero then).
const V2_WEIGHTS: usize = SAFETY_BASE;

/// The weight count of the first file layout (king-relative tables by offset only), which
/// [`Weights::from_bytes`] still reads.
const V1_WEIGHTS: usize = HAND_BASE + HAND_SLOTS + 2 * KINDS * OFFSETS;

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
fn frame(c: Color, sq: Square) -> usize {
    match c {
        Color::Black => sq.index(),
        Color::White => 80 - sq.index(),
    }
}

/// The offset from king square `k` to square `s`, both in the same frame.
#[inline]
fn frame_offset(k: usize, s: usize) -> usize {
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
fn kp(kc: Color, king: Square, kind: PieceKind, sq: Square) -> usize {
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

/// The king's zone: for each square, the 24 squares within Chebyshev distance two of it (the
/// eight next to it are [`king_attacks`]).
static ZONE2: [u128; 81] = {
    let mut t = [0u128; 81];
    let mut k = 0usize;
    while k < 81 {
        let mut s = 0usize;
        while s < 81 {
            let (df, dr) = ((k / 9).abs_diff(s / 9), (k % 9).abs_diff(s % 9));
            if (df | dr) != 0 && df <= 2 && dr <= 2 {
                t[k] |= 1u128 << s;
            }
            s += 1;
        }
        k += 1;
    }
    t
};

/// Index of the king-safety weight of `c`'s king on `king`, from `c`'s point of view: the
/// enemy pieces within two squares of it (the attack a linear king-piece table cannot see
/// grow: two attackers are worse than twice one), its own pieces next to it, and what the
/// enemy can drop. Bitboard counts, recomputed at every evaluation (no incremental state).
#[inline]
pub fn safety_index(pos: &Position, c: Color, king: Square) -> usize {
    let not_kings = !pos.pieces_of_kind(PieceKind::King).bits();
    let enemy = pos.pieces_of(!c).bits() & not_kings;
    let own = pos.pieces_of(c).bits() & not_kings;
    let near = ((enemy & ZONE2[king.index()]).count_ones() as usize).min(SAFETY_COUNTS - 1);
    let guards = ((own & king_attacks(king).bits()).count_ones() as usize).min(SAFETY_COUNTS - 1);
    let hand = pos.hand(!c);
    let pawns = hand.count(PieceKind::Pawn);
    let drops = (hand.total() - pawns) as usize;
    let drops = drops.min(SAFETY_COUNTS - 1);
    SAFETY_BASE
        + ((near * SAFETY_COUNTS + guards) * SAFETY_COUNTS + drops) * 2
        + (pawns > 0) as usize
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
fn hand_number(kind: PieceKind) -> usize {
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

/// The weights of [`TableEval`], one flat table (indices from [`psq_index`], [`hand_index`],
/// [`own_index`], [`opp_index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub w: Vec<i16>,
}

/// The file format: this magic, the weight count as a little-endian u32, then the weights as
/// little-endian i16.
const MAGIC: &[u8; 8] = b"GOUGIEV1";

/// The embedded, learned weights (see ARCHITECTURE.md "Evaluation" for how they were made).
static EMBEDDED: &[u8] = include_bytes!("eval.bin");

/// The round [`EMBEDDED`] is, by the name `EvalFile` gives it (`builtin:r14`).
const EMBEDDED_ROUND: &str = "r14";

/// Earlier rounds of the learned weights, built in so that a consultation of rounds needs no
/// files beside the binary (issue 19 goal 1: rounds disagree where their errors differ, and a
/// vote over four of them beat one search at equal nodes by more than noisy copies did). Each
/// is the `eval.bin` of the commit that embedded it (round 13 d6cfcab, 11 dc936f6, 9 d32c4e9,
/// 8 36a48c9, 7 f5cba7f).
/// Round 10 is left out: its king-ring table is no longer read.
const ROUNDS: [(&str, &[u8]); 5] = [
    ("r13", include_bytes!("rounds/r13.bin")),
    ("r11", include_bytes!("rounds/r11.bin")),
    ("r9", include_bytes!("rounds/r9.bin")),
    ("r8", include_bytes!("rounds/r8.bin")),
    ("r7", include_bytes!("rounds/r7.bin")),
];

/// The prefix of an `EvalFile` value that names a built-in round instead of a file.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// Why bytes are not a weight file of this gougi.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    #[error("not a gougi evaluation file (no GOUGIEV1 header)")]
    NoHeader,
    #[error(
        "evaluation file has {weights} weights in {bytes} bytes; this gougi reads {NUM_WEIGHTS} \
         (or {V3_WEIGHTS}, {V2_WEIGHTS} or {V1_WEIGHTS}, the earlier layouts)"
    )]
    Size { weights: usize, bytes: usize },
}

/// Why a weight file could not be loaded; both name the file.
#[derive(Debug, thiserror::Error)]
pub enum WeightsFileError {
    #[error("{}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Format {
        path: std::path::PathBuf,
        source: WeightsError,
    },
    #[error(
        "{name}: no such built-in round (built in: {}; nets: {})",
        builtin_names().join(", "),
        crate::search::nnue::builtin_net_names().join(", ")
    )]
    UnknownRound { name: String },
}

/// Every `EvalFile` value that names a built-in round, newest first.
pub fn builtin_names() -> Vec<String> {
    std::iter::once(EMBEDDED_ROUND)
        .chain(ROUNDS.iter().map(|(n, _)| *n))
        .map(|n| format!("{BUILTIN_PREFIX}{n}"))
        .collect()
}

impl Weights {
    /// The evaluation the learning started from, set by hand: material (Bonanza's values ×
    /// 0.9, the same in hand), a piece-square term by rank, and king safety by Chebyshev
    /// distance (golds and silvers near their own king defend, pieces near the enemy king
    /// attack).
    pub fn hand_set() -> Weights {
        const PSQ_RANK: [(PieceKind, [i16; 9]); 5] = [
            (PieceKind::Pawn, [0, 25, 20, 12, 6, 2, 0, 0, 0]),
            (PieceKind::Knight, [0, 0, 10, 12, 8, 2, 0, -5, -10]),
            (PieceKind::Silver, [-10, 0, 10, 15, 14, 10, 4, 0, -8]),
            (PieceKind::Gold, [-25, -20, -12, -4, 2, 8, 12, 8, 0]),
            (PieceKind::King, [-120, -100, -80, -60, -40, -20, 0, 15, 20]),
        ];
        let gold_def = [0, 36, 20, 8, 0];
        let gold_att = [0, 45, 28, 10, 2];
        let mut defend = [[0i16; 5]; KINDS];
        let mut attack = [[0i16; 5]; KINDS];
        for k in [
            PieceKind::Gold,
            PieceKind::ProPawn,
            PieceKind::ProLance,
            PieceKind::ProKnight,
            PieceKind::ProSilver,
        ] {
            defend[k.index()] = gold_def;
            attack[k.index()] = gold_att;
        }
        defend[PieceKind::Silver.index()] = [0, 28, 16, 6, 0];
        defend[PieceKind::Knight.index()] = [0, 6, 8, 2, 0];
        defend[PieceKind::Horse.index()] = [0, 30, 20, 10, 0];
        attack[PieceKind::Silver.index()] = [0, 40, 24, 8, 2];
        attack[PieceKind::Knight.index()] = [0, 10, 24, 10, 0];
        attack[PieceKind::Pawn.index()] = [0, 16, 6, 0, 0];
        attack[PieceKind::Lance.index()] = [0, 12, 8, 4, 0];
        attack[PieceKind::Bishop.index()] = [0, 20, 14, 8, 4];
        attack[PieceKind::Rook.index()] = [0, 22, 16, 10, 4];
        attack[PieceKind::Horse.index()] = [0, 50, 32, 16, 6];
        attack[PieceKind::Dragon.index()] = [0, 70, 45, 22, 8];

        let mut w = vec![0i16; NUM_WEIGHTS];
        for kind in PieceKind::ALL {
            let rank_term = PSQ_RANK
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or([0; 9], |(_, t)| *t);
            for sq in 0..81 {
                // Frame index `sq`: rank index `sq % 9` counts from the far rank.
                w[PSQ_BASE + kind.index() * 81 + sq] =
                    PIECE_VALUE[kind.index()] as i16 + rank_term[sq % 9];
            }
            if kind == PieceKind::King {
                continue;
            }
            for k in 0..81usize {
                for s in 0..81usize {
                    let d = (k / 9).abs_diff(s / 9).max((k % 9).abs_diff(s % 9));
                    if (1..=4).contains(&d) {
                        let at = (k * KINDS + kind.index()) * 81 + s;
                        w[OWN_BASE + at] = defend[kind.index()][d];
                        w[OPP_BASE + at] = attack[kind.index()][d];
                    }
                }
            }
        }
        for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
            for n in 0..HAND_CAP[h] {
                w[hand_index(h, n)] = PIECE_VALUE[kind.index()] as i16;
            }
        }
        Weights { w }
    }

    /// Reads weights in the `gougi learn` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(WeightsError::NoHeader);
        }
        let n = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
        if ![NUM_WEIGHTS, V3_WEIGHTS, V2_WEIGHTS, V1_WEIGHTS].contains(&n)
            || bytes.len() != 12 + 2 * n
        {
            return Err(WeightsError::Size {
                weights: n,
                bytes: bytes.len(),
            });
        }
        let w: Vec<i16> = bytes[12..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        if n == V1_WEIGHTS {
            return Ok(Weights::from_v1(&w));
        }
        let mut w = w;
        // The second layout lacks the safety table and the tempo, the third the side-to-move
        // tables: zero, the scores they gave.
        w.resize(NUM_WEIGHTS, 0);
        Ok(Weights { w })
    }

    /// The first layout's weights in this one: its king-relative tables were indexed by
    /// (kind, offset from the king) alone, which is what a king-piece weight's factor is, so
    /// every king square gets the same values and the scores do not change.
    fn from_v1(v1: &[i16]) -> Weights {
        let mut w = vec![0i16; NUM_WEIGHTS];
        w[..OWN_BASE].copy_from_slice(&v1[..OWN_BASE]);
        for (i, wi) in w.iter_mut().enumerate().take(OWN_HAND_BASE).skip(OWN_BASE) {
            *wi = v1[OWN_BASE + factor_of(i).expect("a king-piece weight")];
        }
        Weights { w }
    }

    /// Writes weights in the format [`Weights::from_bytes`] reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + 2 * self.w.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.w.len() as u32).to_le_bytes());
        for v in &self.w {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a weight file.
    pub fn load(path: &std::path::Path) -> Result<Weights, WeightsFileError> {
        let bytes = std::fs::read(path).map_err(|source| WeightsFileError::Io {
            path: path.into(),
            source,
        })?;
        Weights::from_bytes(&bytes).map_err(|source| WeightsFileError::Format {
            path: path.into(),
            source,
        })
    }

    /// The embedded weights, parsed once.
    pub fn embedded() -> &'static Weights {
        static W: OnceLock<Weights> = OnceLock::new();
        W.get_or_init(|| Weights::from_bytes(EMBEDDED).expect("embedded eval.bin is valid"))
    }

    /// The weights an `EvalFile` value names: empty for the embedded ones, `builtin:r9` (any
    /// of [`builtin_names`]) for a built-in round, anything else a file (read each time: a
    /// user may have rewritten it). A built-in round is parsed once per process.
    pub fn named(name: &str) -> Result<&'static Weights, WeightsFileError> {
        let Some(round) = name.strip_prefix(BUILTIN_PREFIX) else {
            return if name.is_empty() {
                Ok(Weights::embedded())
            } else {
                Weights::load(std::path::Path::new(name)).map(Weights::leak)
            };
        };
        if round == EMBEDDED_ROUND {
            return Ok(Weights::embedded());
        }
        static PARSED: [OnceLock<Weights>; ROUNDS.len()] =
            [const { OnceLock::new() }; ROUNDS.len()];
        let i = ROUNDS
            .iter()
            .position(|(n, _)| *n == round)
            .ok_or_else(|| WeightsFileError::UnknownRound {
                name: name.to_owned(),
            })?;
        Ok(PARSED[i]
            .get_or_init(|| Weights::from_bytes(ROUNDS[i].1).expect("built-in rounds are valid")))
    }

    /// Weights that live as long as the program (an `EvalFile` is loaded a few times at most).
    pub fn leak(self) -> &'static Weights {
        Box::leak(Box::new(self))
    }
}

/// Which part of [`EvalState`] a term belongs to: the king-independent base, or the terms
/// relative to one colour's king.
#[derive(Clone, Copy)]
enum Part {
    Base,
    King(Color),
    /// The king-safety and tempo terms, recomputed at every evaluation.
    Fresh,
}

/// Calls `f(part, weight index, +1 for Black / −1 for White)` for every term of `pos`: the
/// score from Black's point of view is the sum of `sign × weight` over them. The one
/// definition of the evaluation's terms; the incremental path must agree with it.
fn for_each_term(pos: &Position, mut f: impl FnMut(Part, usize, i32)) {
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    for sq in pos.occupied() {
        let Some(p) = pos.piece_on(sq) else { continue };
        let s = sign(p.color);
        f(Part::Base, psq_index(p.color, p.kind, sq), s);
        if p.kind == PieceKind::King {
            continue;
        }
        if let Some(k) = kings[p.color.index()] {
            f(Part::King(p.color), own_index(p.color, p.kind, k, sq), s);
        }
        if let Some(k) = kings[(!p.color).index()] {
            f(Part::King(!p.color), opp_index(!p.color, p.kind, k, sq), s);
        }
    }
    for c in Color::ALL {
        for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
            for n in 0..pos.hand(c).count(kind) as usize {
                let slot = HAND_START[h] + n;
                f(Part::Base, hand_index(h, n), sign(c));
                if let Some(k) = kings[c.index()] {
                    f(Part::King(c), own_hand_index(c, k, slot), sign(c));
                }
                if let Some(k) = kings[(!c).index()] {
                    f(Part::King(!c), opp_hand_index(!c, k, slot), sign(c));
                }
            }
        }
    }
    for c in Color::ALL {
        if let Some(k) = kings[c.index()] {
            f(Part::Fresh, safety_index(pos, c, k), sign(c));
        }
    }
    f(Part::Fresh, TEMPO, sign(pos.side_to_move()));
    for x in pos.occupied() {
        let p = pos.piece_on(x).expect("occupied");
        for y in king_attacks(x) & pos.occupied() {
            let d = DIR_OF_STEP[y.index() + 10 - x.index()] as usize;
            if d < 4 {
                let q = pos.piece_on(y).expect("occupied");
                pair_terms(p, x, q, y, d, |i, s| f(Part::Base, i, s));
            }
        }
    }
}

/// Appends the features of `pos` as `(index, +1 for Black / −1 for White)` (the
/// learner's view of [`for_each_term`]), each king-piece weight followed by its factor,
/// numbered from [`NUM_WEIGHTS`] (see [`fold_factors`]), and each weight that has a
/// side-to-move weight followed by that, with the side to move's sign (see [`turn_index`]).
pub fn features(pos: &Position, out: &mut Vec<(u32, i8)>) {
    let to_move = sign(pos.side_to_move()) as i8;
    for_each_term(pos, |_, i, s| {
        out.push((i as u32, s as i8));
        if let Some(f) = factor_of(i) {
            out.push(((NUM_WEIGHTS + f) as u32, s as i8));
        }
        if let Some(t) = turn_index(i) {
            out.push((t as u32, to_move));
        }
    });
}

#[derive(Clone, Copy, Debug, Default)]
struct EvalState {
    /// Piece-square and hand terms, Black minus White.
    base: i32,
    /// King-relative terms, Black minus White, split by the king they depend on: `king[c]`
    /// holds the terms of every piece relative to `c`'s king; stale while `king_dirty[c]`
    /// (that king moved).
    king: [i32; 2],
    /// The side-to-move weights of the terms in `base` and `king`, summed over both sides'
    /// pieces (no owner's sign: see [`turn_index`]); the side to move gets them.
    turn_base: i32,
    turn_king: [i32; 2],
    kings: [Option<Square>; 2],
    king_dirty: [bool; 2],
}

#[inline]
fn sign(color: Color) -> i32 {
    match color {
        Color::Black => 1,
        Color::White => -1,
    }
}

/// The linear table evaluation (see the module doc).
#[derive(Clone, Debug)]
pub struct TableEval {
    stack: Vec<EvalState>,
    weights: &'static Weights,
    /// The king-piece tables (`own` then `opp`, [`kp`] order) with each weight's side-to-move
    /// weight beside it: the file keeps the latter once per (kind, offset), the search reads
    /// both from one place (built once per evaluation object, shared by its clones).
    kp: std::sync::Arc<[[i16; 2]]>,
    /// `EvalNoise`'s standard deviation in cp (0: none) and `Seed`, see [`noise_cp`].
    noise_sd: i32,
    noise_seed: u64,
}

impl Default for TableEval {
    fn default() -> Self {
        TableEval::new(Weights::embedded())
    }
}

impl TableEval {
    pub fn new(weights: &'static Weights) -> TableEval {
        let kp = (OWN_BASE..OWN_HAND_BASE)
            .map(|i| {
                let t = turn_index(i).expect("a king-piece weight has one");
                [weights.w[i], weights.w[t]]
            })
            .collect();
        TableEval {
            stack: Vec::with_capacity(super::value::MAX_PLY as usize + 16),
            weights,
            kp,
            noise_sd: 0,
            noise_seed: 0,
        }
    }

    /// The same evaluation plus [`noise_cp`]`(key, seed, sd)` (`EvalNoise`, `Seed`): a
    /// consultation's diversified copies of the search. `sd` 0 is the plain evaluation.
    pub fn with_noise(mut self, sd: i32, seed: u64) -> TableEval {
        self.noise_sd = sd;
        self.noise_seed = seed;
        self
    }

    #[inline]
    fn w(&self, i: usize) -> i32 {
        self.weights.w[i] as i32
    }

    /// Adds `sign ×` the king-relative terms of one piece of `color` to the parts of `s` that
    /// are not stale.
    #[inline]
    fn add_king_terms(
        &self,
        s: &mut EvalState,
        sign: i32,
        color: Color,
        kind: PieceKind,
        sq: Square,
    ) {
        if kind == PieceKind::King {
            return;
        }
        let sg = sign * self::sign(color);
        let (own, opp) = (color.index(), (!color).index());
        if let (false, Some(k)) = (s.king_dirty[own], s.kings[own]) {
            let [v, t] = self.kp[kp(color, k, kind, sq)];
            s.king[own] += sg * i32::from(v);
            s.turn_king[own] += sign * i32::from(t);
        }
        if let (false, Some(k)) = (s.king_dirty[opp], s.kings[opp]) {
            let [v, t] = self.kp[KP_SIZE + kp(!color, k, kind, sq)];
            s.king[opp] += sg * i32::from(v);
            s.turn_king[opp] += sign * i32::from(t);
        }
    }

    /// Adds `sign ×` the king-hand terms of hand slot `slot` of `color` to the parts of `s`
    /// that are not stale.
    #[inline]
    fn add_hand_king_terms(&self, s: &mut EvalState, sign: i32, color: Color, slot: usize) {
        let sg = sign * self::sign(color);
        let (own, opp) = (color.index(), (!color).index());
        if let (false, Some(k)) = (s.king_dirty[own], s.kings[own]) {
            let i = own_hand_index(color, k, slot);
            s.king[own] += sg * self.w(i);
            s.turn_king[own] += sign * self.w(Self::king_hand_turn(i));
        }
        if let (false, Some(k)) = (s.king_dirty[opp], s.kings[opp]) {
            let i = opp_hand_index(!color, k, slot);
            s.king[opp] += sg * self.w(i);
            s.turn_king[opp] += sign * self.w(Self::king_hand_turn(i));
        }
    }

    /// Adds `sign ×` the pair terms of `p` on `x` with each piece next to it (`occ` tells the
    /// board), leaving out the pair with `skip`, to `s` (with their side-to-move weights).
    #[inline]
    fn add_pairs_of(
        &self,
        s: &mut EvalState,
        sign: i32,
        p: Piece,
        x: Square,
        pos: &Position,
        skip: Bitboard,
    ) {
        // Only the occupied neighbours: most of the eight are empty.
        for y in king_attacks(x) & (pos.occupied() & !skip) {
            let q = pos.piece_on(y).expect("occupied");
            let d = DIR_OF_STEP[y.index() + 10 - x.index()] as usize;
            pair_terms(p, x, q, y, d, |i, sg| {
                let w = &self.weights.w[i..i + 2];
                s.base += sign * sg * i32::from(w[0]);
                s.turn_base += sign * i32::from(w[1]);
            });
        }
    }

    /// The change of the pair terms by a move (on `pos`, before it is made): the pairs of the
    /// squares it leaves and takes, before and after. `from` is the square left and the piece
    /// that stood there (none for a drop), `captured` what stood on `to`, `moved` the piece on
    /// `to` after the move — what `push` has already read.
    #[inline]
    fn add_pair_delta(
        &self,
        s: &mut EvalState,
        pos: &Position,
        from: Option<(Square, Piece)>,
        captured: Option<Piece>,
        to: Square,
        moved: Piece,
    ) {
        let mut left = Bitboard::EMPTY;
        if let Some((from, p)) = from {
            self.add_pairs_of(s, -1, p, from, pos, Bitboard::EMPTY);
            left = Bitboard::from_square(from);
            if let Some(c) = captured {
                // Its pair with the moving piece went with the line above.
                self.add_pairs_of(s, -1, c, to, pos, left);
            }
        }
        // After the move the square left is empty (`to` is not its own neighbour).
        self.add_pairs_of(s, 1, moved, to, pos, left);
    }

    /// The side-to-move weight of king-hand weight `i`.
    #[inline]
    fn king_hand_turn(i: usize) -> usize {
        TURN_KING_HAND_BASE + i - OWN_HAND_BASE
    }

    /// The terms relative to `c`'s king (on `king`), from scratch: `Part::King(c)` of
    /// [`for_each_term`] alone, since it runs after every king move; with their side-to-move
    /// weights.
    fn full_king_part(&self, pos: &Position, c: Color, king: Option<Square>) -> (i32, i32) {
        let Some(k) = king else {
            return (0, 0);
        };
        // This king's rows of both tables: one 2.3 KB slice each, read as the board is walked.
        let row = frame(c, k) * KINDS * 81;
        let own = &self.kp[row..][..KINDS * 81];
        let opp = &self.kp[KP_SIZE + row..][..KINDS * 81];
        let (mut v, mut t) = (0, 0);
        for sq in pos.occupied() {
            let Some(p) = pos.piece_on(sq) else { continue };
            if p.kind == PieceKind::King {
                continue;
            }
            let at = p.kind.index() * 81 + frame(c, sq);
            let [pv, pt] = if p.color == c { own[at] } else { opp[at] };
            v += sign(p.color) * i32::from(pv);
            t += i32::from(pt);
        }
        for holder in Color::ALL {
            for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
                for n in 0..pos.hand(holder).count(kind) as usize {
                    let slot = HAND_START[h] + n;
                    let i = if holder == c {
                        own_hand_index(c, k, slot)
                    } else {
                        opp_hand_index(c, k, slot)
                    };
                    v += sign(holder) * self.w(i);
                    t += self.w(Self::king_hand_turn(i));
                }
            }
        }
        (v, t)
    }

    fn compute(&self, pos: &Position) -> EvalState {
        let mut s = EvalState {
            kings: [pos.king_square(Color::Black), pos.king_square(Color::White)],
            ..EvalState::default()
        };
        for_each_term(pos, |part, i, sg| {
            let turn = turn_index(i).map_or(0, |t| self.w(t));
            match part {
                Part::Base => {
                    s.base += sg * self.w(i);
                    s.turn_base += turn;
                }
                Part::King(c) => {
                    s.king[c.index()] += sg * self.w(i);
                    s.turn_king[c.index()] += turn;
                }
                Part::Fresh => {}
            }
        });
        s
    }

    /// The king-safety and tempo terms of `pos` from Black's point of view.
    #[inline]
    fn fresh_terms(&self, pos: &Position) -> i32 {
        let mut v = 0;
        let mut turn = self.w(TEMPO);
        for c in Color::ALL {
            if let Some(k) = pos.king_square(c) {
                let i = safety_index(pos, c, k);
                v += sign(c) * self.w(i);
                turn += self.w(TURN_SAFETY_BASE + i - SAFETY_BASE);
            }
        }
        v + sign(pos.side_to_move()) * turn
    }

    /// The full score of `pos` from Black's point of view (the incremental path must agree).
    pub fn black_score(&self, pos: &Position) -> i32 {
        let s = self.compute(pos);
        Self::total(&s, pos) + self.fresh_terms(pos)
    }

    /// The carried terms of `s` from Black's point of view, the side-to-move part to the side
    /// to move.
    #[inline]
    fn total(s: &EvalState, pos: &Position) -> i32 {
        let turn = s.turn_base + s.turn_king[0] + s.turn_king[1];
        s.base + s.king[0] + s.king[1] + sign(pos.side_to_move()) * turn
    }
}

impl Evaluator for TableEval {
    fn reset(&mut self, pos: &Position) {
        self.stack.clear();
        let s = self.compute(pos);
        self.stack.push(s);
    }

    fn push(&mut self, pos: &Position, m: Move) {
        let mut s = *self.stack.last().expect("reset before push");
        let us = pos.side_to_move();
        let to = m.to();
        let sg = sign(us);
        match m.from() {
            None => {
                let k = m.dropped_kind().expect("a drop has a kind");
                self.add_pair_delta(&mut s, pos, None, None, to, Piece::new(us, k));
                let n = pos.hand(us).count(k) as usize;
                let (psq, hand) = (psq_index(us, k, to), hand_index(hand_number(k), n - 1));
                s.base += sg * (self.w(psq) - self.w(hand));
                s.turn_base += self.w(TURN_BASE + psq) - self.w(TURN_BASE + hand);
                self.add_king_terms(&mut s, 1, us, k, to);
                self.add_hand_king_terms(&mut s, -1, us, HAND_START[hand_number(k)] + n - 1);
            }
            Some(from) => {
                let p = pos.piece_on(from).expect("a piece on the from square");
                let k = p.kind;
                let nk = if m.is_promotion() {
                    k.promote().unwrap_or(k)
                } else {
                    k
                };
                let captured = pos.piece_on(to);
                let after = Piece::new(us, nk);
                self.add_pair_delta(&mut s, pos, Some((from, p)), captured, to, after);
                let (psq_to, psq_from) = (psq_index(us, nk, to), psq_index(us, k, from));
                s.base += sg * (self.w(psq_to) - self.w(psq_from));
                s.turn_base += self.w(TURN_BASE + psq_to) - self.w(TURN_BASE + psq_from);
                if let Some(c) = captured {
                    let hk = c.kind.unpromote();
                    let n = pos.hand(us).count(hk) as usize;
                    let (psq, hand) = (
                        psq_index(c.color, c.kind, to),
                        hand_index(hand_number(hk), n),
                    );
                    s.base += sg * self.w(hand) - sign(c.color) * self.w(psq);
                    s.turn_base += self.w(TURN_BASE + hand) - self.w(TURN_BASE + psq);
                    self.add_king_terms(&mut s, -1, c.color, c.kind, to);
                    self.add_hand_king_terms(&mut s, 1, us, HAND_START[hand_number(hk)] + n);
                }
                if k == PieceKind::King {
                    // Terms relative to the other king do not involve this king: they stay
                    // exact.
                    s.kings[us.index()] = Some(to);
                    s.king_dirty[us.index()] = true;
                } else {
                    self.add_king_terms(&mut s, -1, us, k, from);
                    self.add_king_terms(&mut s, 1, us, nk, to);
                }
            }
        }
        self.stack.push(s);
    }

    fn push_null(&mut self) {
        let s = *self.stack.last().expect("reset before push");
        self.stack.push(s);
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    fn evaluate(&mut self, pos: &Position) -> Value {
        let mut s = *self.stack.last().expect("reset before evaluate");
        if s.king_dirty[0] || s.king_dirty[1] {
            for c in Color::ALL {
                if s.king_dirty[c.index()] {
                    (s.king[c.index()], s.turn_king[c.index()]) =
                        self.full_king_part(pos, c, s.kings[c.index()]);
                    s.king_dirty[c.index()] = false;
                }
            }
            *self.stack.last_mut().expect("not empty") = s;
        }
        let mut v = Self::total(&s, pos) + self.fresh_terms(pos);
        if self.noise_sd != 0 {
            // From Black's view like the tables: the key includes the side to move, so a
            // position always gets the same shift and negamax stays consistent.
            v += noise_cp(pos.key(), self.noise_seed, self.noise_sd);
        }
        Value(sign(pos.side_to_move()) * v)
    }
}

/// The evaluation noise of a position: approximately normal with standard deviation `sd` cp,
/// a pure function of (`key`, `seed`) — never a fresh draw — so the transposition table,
/// repetitions and re-searches see one value per position (Monju's and Bonanza Feliz's
/// diversified members, one seed each). Cheap: one 64-bit mix of `key ^ seed`, cut into four
/// 16-bit uniforms whose centred sum (variance 4/12) is scaled by √3 to unit variance
/// (Irwin–Hall; the tails stop at ±3.46 sd).
#[inline]
pub fn noise_cp(key: u64, seed: u64, sd: i32) -> i32 {
    let z = mix64(key ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let sum: i64 = (0..4).map(|i| ((z >> (16 * i)) & 0xFFFF) as i64).sum();
    // (sum − mean) / (65536 / √3) in units of sd; 56,756 / 32,768 ≈ √3.
    let centred = sum - 2 * 65_535;
    (centred * sd as i64 * 56_756 / 32_768 / 65_536) as i32
}

/// SplitMix64's finaliser: every input bit reaches every output bit.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `weights` with `per_mille`/1000 of its king-relative weights (king-piece and king-hand,
/// [`king_range`]) set to zero, chosen by `seed` (`EvalDropout`, GA将's diversified clients).
/// The piece-square and hand tables are kept: they hold the material, and a rook worth 0 on
/// one square is a blunder, not a different opinion.
pub fn dropout(weights: &Weights, per_mille: u32, seed: u64) -> Weights {
    let mut out = weights.clone();
    let mut rng = seed ^ 0xD1B5_4A32_D192_ED03;
    for i in king_range() {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        if mix64(rng) % 1000 < per_mille as u64 {
            out.w[i] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights with every entry different, so that a wrong index shows up in a score.
    fn scrambled() -> &'static Weights {
        let mut seed = 99u64;
        let w = (0..NUM_WEIGHTS)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 40) % 2001) as i16 - 1000
            })
            .collect();
        Weights { w }.leak()
    }

    /// The score as the sum of the runtime weights among `pos`'s features (factors left out).
    fn feature_sum(w: &Weights, pos: &Position) -> i32 {
        let mut f = Vec::new();
        features(pos, &mut f);
        f.iter()
            .filter(|&&(i, _)| (i as usize) < NUM_WEIGHTS)
            .map(|&(i, s)| s as i32 * w.w[i as usize] as i32)
            .sum()
    }

    /// Learner parameters (weights, then factors) with small integer values, so that sums are
    /// exact in f64.
    fn scrambled_params(mut seed: u64) -> Vec<f64> {
        (0..NUM_WEIGHTS + NUM_FACTORS)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 40) % 201) as f64 - 100.0
            })
            .collect()
    }

    fn to_weights(p: &[f64]) -> &'static Weights {
        Weights {
            w: p.iter().map(|&v| v as i16).collect(),
        }
        .leak()
    }

    /// What the learner sums over the features (weights and factors) is what the search
    /// computes with the folded weights.
    #[test]
    fn folded_factors_score_what_the_learner_sums() {
        let p = scrambled_params(7);
        let ev = TableEval::new(to_weights(&fold_factors(&p)));
        for sfen in [
            "startpos",
            "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut f = Vec::new();
            features(&pos, &mut f);
            let learner: f64 = f.iter().map(|&(i, s)| s as f64 * p[i as usize]).sum();
            assert_eq!(ev.black_score(&pos), learner as i32, "{sfen}");
        }
    }

    /// A file of the first layout (king-relative tables by offset only) reads as the
    /// king-piece weights whose factors those tables were.
    #[test]
    fn first_layout_files_read_as_factors() {
        let mut p = scrambled_params(3);
        p[king_range()].iter_mut().for_each(|v| *v = 0.0);
        p[SAFETY_BASE..NUM_WEIGHTS]
            .iter_mut()
            .for_each(|v| *v = 0.0);
        let folded = to_weights(&fold_factors(&p));
        let mut v1: Vec<i16> = p[..OWN_BASE].iter().map(|&v| v as i16).collect();
        v1.extend(p[NUM_WEIGHTS..].iter().map(|&v| v as i16));
        assert_eq!(v1.len(), V1_WEIGHTS);
        let bytes = Weights { w: v1 }.to_bytes();
        assert_eq!(&Weights::from_bytes(&bytes).unwrap(), folded);
    }

    /// The first `n` weights of a file of an earlier layout read as they are and the rest as
    /// zero, so the file scores as it did.
    fn reads_earlier_layout(n: usize) {
        let w = scrambled();
        let bytes = Weights {
            w: w.w[..n].to_vec(),
        }
        .to_bytes();
        let read = Weights::from_bytes(&bytes).unwrap();
        assert_eq!(read.w[..n], w.w[..n]);
        assert!(read.w[n..].iter().all(|&v| v == 0));
        assert_eq!(read.w.len(), NUM_WEIGHTS);
    }

    /// Rounds 9–11 (no side-to-move or pair tables; round 11 is built in).
    #[test]
    fn third_layout_files_read_with_no_side_to_move_tables() {
        reads_earlier_layout(V3_WEIGHTS);
        let r11 = Weights::named("builtin:r11").unwrap();
        assert!(r11.w[V3_WEIGHTS..].iter().all(|&v| v == 0));
    }

    /// Rounds 5–8 (no king-safety table, no tempo).
    #[test]
    fn second_layout_files_read_with_no_safety_terms() {
        reads_earlier_layout(V2_WEIGHTS);
    }

    /// The tempo weight counts for the side to move, whichever colour that is.
    #[test]
    fn side_to_move_weights_go_to_the_side_to_move_whoever_owns_the_piece() {
        // One rook on its home square in each camp, kings far apart: only the rook's
        // piece-square side-to-move weight and the rook's king-piece ones are non-zero.
        let mut w = Weights {
            w: vec![0; NUM_WEIGHTS],
        };
        let black = Position::from_sfen("sfen 4k4/1r7/9/9/9/9/9/7R1/4K4 b - 1").unwrap();
        let sq = Square::from_usi("2h").unwrap();
        let white_rook = psq_index(
            Color::White,
            PieceKind::Rook,
            Square::from_usi("8b").unwrap(),
        );
        let black_rook = psq_index(Color::Black, PieceKind::Rook, sq);
        assert_eq!(black_rook, white_rook, "one weight, both colours");
        w.w[turn_index(black_rook).unwrap()] = 40;
        let k = black.king_square(Color::Black).unwrap();
        let own = own_index(Color::Black, PieceKind::Rook, k, sq);
        w.w[turn_index(own).unwrap()] = 5;
        let ev = TableEval::new(w.leak());
        // Black to move: both rooks' 40 and the mirrored king-piece 5 of each, for Black.
        assert_eq!(ev.black_score(&black), 2 * 40 + 2 * 5);
        let white = Position::from_sfen("sfen 4k4/1r7/9/9/9/9/9/7R1/4K4 w - 1").unwrap();
        assert_eq!(ev.black_score(&white), -(2 * 40 + 2 * 5));
        let mut ev = ev;
        ev.reset(&white);
        assert_eq!(ev.evaluate(&white), Value(2 * 40 + 2 * 5));
    }

    #[test]
    fn tempo_counts_for_the_side_to_move() {
        let mut w = Weights {
            w: vec![0; NUM_WEIGHTS],
        };
        w.w[TEMPO] = 30;
        let ev = TableEval::new(w.leak());
        let black = Position::from_sfen("startpos").unwrap();
        let white = Position::from_sfen(
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        )
        .unwrap();
        assert_eq!(ev.black_score(&black), 30);
        assert_eq!(ev.black_score(&white), -30);
        let mut ev = ev;
        ev.reset(&white);
        assert_eq!(ev.evaluate(&white), Value(30));
    }

    /// The king-safety index counts what it says: at the start each king has two
    /// neighbours of its own (the golds) and no enemy within two squares; a
    /// position with the enemy close and pieces in hand moves every count.
    #[test]
    fn safety_index_counts_zone_guards_and_hand() {
        let idx = |near: usize, guards: usize, drops: usize, pawn: usize| {
            SAFETY_BASE + ((near * SAFETY_COUNTS + guards) * SAFETY_COUNTS + drops) * 2 + pawn
        };
        let pos = Position::from_sfen("startpos").unwrap();
        for c in Color::ALL {
            let k = pos.king_square(c).unwrap();
            assert_eq!(safety_index(&pos, c, k), idx(0, 2, 0, 0), "{c:?}");
        }
        // White king on 1b with a gold on 2b (next to it) and lance/knight on 1a/2a; Black's
        // promoted pawn on 2c (giving check: White to move) and silver on 3d are within two;
        // Black holds R G and no pawn, White holds g s n and five pawns.
        let pos = Position::from_sfen("sfen 7nl/7gk/7+P1/6S2/9/9/9/9/K8 w RGgsn5p 1").unwrap();
        let wk = pos.king_square(Color::White).unwrap();
        assert_eq!(safety_index(&pos, Color::White, wk), idx(2, 3, 2, 0));
        let bk = pos.king_square(Color::Black).unwrap();
        assert_eq!(safety_index(&pos, Color::Black, bk), idx(0, 0, 3, 1));
    }

    /// Plays pseudo-random games and checks the incremental score against a full recompute
    /// (and against the feature list the learner uses) after every move and every undo.
    #[test]
    fn incremental_matches_full_recompute() {
        let mut seed = 12345u64;
        for weights in [scrambled(), Weights::hand_set().leak(), Weights::embedded()] {
            for start in [
                "startpos",
                "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            ] {
                let mut pos = Position::from_sfen(start).unwrap();
                let mut ev = TableEval::new(weights);
                ev.reset(&pos);
                let mut played = Vec::new();
                for _ in 0..160 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let m = moves[(seed >> 33) as usize % moves.len()];
                    ev.push(&pos, m);
                    pos.do_move(m);
                    played.push(m);
                    let full = ev.black_score(&pos);
                    assert_eq!(full, feature_sum(weights, &pos));
                    // Evaluate only every other ply, so that two king moves can pile up.
                    if played.len() % 2 == 0 {
                        let inc = ev.evaluate(&pos).0 * sign(pos.side_to_move());
                        assert_eq!(inc, full, "after {m} in {}", pos.to_sfen());
                    }
                }
                while let Some(m) = played.pop() {
                    pos.undo_move(m);
                    ev.pop();
                    let full = ev.black_score(&pos);
                    let inc = ev.evaluate(&pos).0 * sign(pos.side_to_move());
                    assert_eq!(inc, full);
                }
            }
        }
    }

    /// The start position is symmetric: every term but the tempo (Black's, to move) cancels.
    #[test]
    fn start_position_is_balanced() {
        // The sides' terms cancel; what is left is the side to move's (tempo, side-to-move
        // weights), the same whichever side that is.
        let pos = Position::startpos();
        let white = Position::from_sfen(
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        )
        .unwrap();
        let hand_set = Weights::hand_set().leak();
        assert_eq!(
            TableEval::new(hand_set).black_score(&pos),
            i32::from(hand_set.w[TEMPO])
        );
        for w in [hand_set, Weights::embedded()] {
            let ev = TableEval::new(w);
            assert_eq!(ev.black_score(&pos), -ev.black_score(&white));
        }
    }

    /// A position and its colour-swapped mirror score the same for the side to move.
    #[test]
    fn colour_swap_negates_the_score() {
        let w = scrambled();
        let ev = TableEval::new(w);
        for sfen in [
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
        ] {
            let pos = Position::from_sfen(&format!("sfen {sfen}")).unwrap();
            let swapped = Position::from_sfen(&crate::shogi::sfen::colour_swapped(sfen)).unwrap();
            assert_eq!(ev.black_score(&pos), -ev.black_score(&swapped), "{sfen}");
        }
    }

    #[test]
    fn weights_round_trip_and_reject_bad_files() {
        let w = scrambled().clone();
        assert_eq!(Weights::from_bytes(&w.to_bytes()).unwrap(), w);
        assert!(Weights::from_bytes(b"GOUGIEV1\x01\0\0\0\0\0").is_err());
        assert!(Weights::from_bytes(b"NOTANEVAL").is_err());
    }

    #[test]
    fn noise_is_a_pure_near_normal_function_of_key_and_seed() {
        let keys: Vec<u64> = (0..20_000u64)
            .map(|i| mix64(i.wrapping_mul(0x2545_F491_4F6C_DD1D)))
            .collect();
        for sd in [1, 50, 300] {
            let xs: Vec<f64> = keys.iter().map(|&k| noise_cp(k, 3, sd) as f64).collect();
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
            let sd = sd as f64;
            // Truncation to whole cp loses a little at sd 1.
            assert!(mean.abs() < 0.05 * sd + 0.5, "mean {mean} at sd {sd}");
            assert!(
                (var.sqrt() - sd).abs() < 0.05 * sd + 0.5,
                "sd {} at sd {sd}",
                var.sqrt()
            );
            // Near normal: about 68 % within one sd (Irwin–Hall of 4: 66.5 %).
            let within = xs.iter().filter(|x| x.abs() <= sd).count() as f64 / n;
            assert!((0.62..0.72).contains(&within) || sd < 2.0, "{within}");
        }
        for &k in &keys[..100] {
            assert_eq!(noise_cp(k, 9, 50), noise_cp(k, 9, 50));
            assert_eq!(noise_cp(k, 9, 0), 0);
        }
        let differ = keys[..1000]
            .iter()
            .filter(|&&k| noise_cp(k, 1, 50) != noise_cp(k, 2, 50))
            .count();
        assert!(differ > 900, "{differ}");
    }

    #[test]
    fn noise_moves_the_score_by_the_same_amount_for_both_sides() {
        let pos = Position::from_sfen(
            "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
        )
        .unwrap();
        let mut plain = TableEval::default();
        plain.reset(&pos);
        let mut noisy = TableEval::default().with_noise(80, 5);
        noisy.reset(&pos);
        // White to move: the noise is from Black's view, so White sees it negated.
        assert_eq!(
            noisy.evaluate(&pos).0,
            plain.evaluate(&pos).0 - noise_cp(pos.key(), 5, 80)
        );
    }

    #[test]
    fn dropout_zeroes_its_share_of_the_king_tables_only() {
        let base = Weights::embedded();
        let d = dropout(base, 100, 4);
        assert_eq!(d, dropout(base, 100, 4), "not reproducible");
        assert_ne!(
            d,
            dropout(base, 100, 5),
            "seeds 4 and 5 drop the same weights"
        );
        assert_eq!(
            &d.w[..OWN_BASE],
            &base.w[..OWN_BASE],
            "material was touched"
        );
        let range = king_range();
        let nonzero = base.w[range.clone()].iter().filter(|&&v| v != 0).count();
        let dropped = range.filter(|&i| base.w[i] != 0 && d.w[i] == 0).count();
        let share = dropped as f64 / nonzero as f64;
        assert!((0.09..0.11).contains(&share), "{share}");
        assert_eq!(dropout(base, 0, 4), *base);
    }
}
