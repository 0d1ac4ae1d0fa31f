//! Attack tables and slider attacks.
//!
//! Step pieces use tables built by `const fn` into statics (no start-up cost). Sliders use the
//! classical ray approach: for each of the 8 directions a table of the ray from each square on
//! an empty board; with blockers, the ray beyond the first blocker is cut off by XOR with the
//! blocker's own ray. Directions that go to higher square indices find the first blocker with
//! `trailing_zeros`, the others with `leading_zeros`. On a file-major board a lance is a single
//! ray, a rook four and a bishop four. This needs no rotated occupancy in the position and was
//! the simplest thing that measured fast enough; `between`/`line` come from the same rays.
//!
//! Reach the tables only through the functions here.

use super::bitboard::Bitboard;
use super::types::{Color, PieceKind, Square};

/// Directions as (file delta, rank delta). Index `d` and `d ^ 4` are opposite; `d < 4` goes to
/// higher square indices.
const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

const fn build_rays() -> [[u128; 81]; 8] {
    let mut t = [[0u128; 81]; 8];
    let mut d = 0;
    while d < 8 {
        let mut i = 0;
        while i < 81 {
            let mut b = 0u128;
            let mut s = Square::from_index_unchecked(i);
            while let Some(n) = s.offset(DIRS[d].0, DIRS[d].1) {
                b |= 1u128 << n as u8;
                s = n;
            }
            t[d][i] = b;
            i += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u128; 81]; 8] = build_rays();

const NO_DIR: u8 = 0xff;

const fn build_dir() -> [[u8; 81]; 81] {
    let mut t = [[NO_DIR; 81]; 81];
    let rays = build_rays();
    let mut a = 0;
    while a < 81 {
        let mut d = 0;
        while d < 8 {
            let mut b = 0;
            while b < 81 {
                if rays[d][a] >> b & 1 != 0 {
                    t[a][b] = d as u8;
                }
                b += 1;
            }
            d += 1;
        }
        a += 1;
    }
    t
}

static DIR: [[u8; 81]; 81] = build_dir();

/// Step offsets for Black; White mirrors the rank delta.
const fn step_deltas(kind: PieceKind) -> &'static [(i8, i8)] {
    match kind {
        PieceKind::Pawn => &[(0, -1)],
        PieceKind::Knight => &[(-1, -2), (1, -2)],
        PieceKind::Silver => &[(0, -1), (-1, -1), (1, -1), (-1, 1), (1, 1)],
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => &[(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1)],
        PieceKind::King => &[
            (0, -1),
            (-1, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (0, 1),
            (-1, 1),
            (1, 1),
        ],
        _ => &[],
    }
}

/// Step tables: index 0 pawn, 1 knight, 2 silver, 3 gold, 4 king.
const STEP_KINDS: [PieceKind; 5] = [
    PieceKind::Pawn,
    PieceKind::Knight,
    PieceKind::Silver,
    PieceKind::Gold,
    PieceKind::King,
];

const fn build_steps() -> [[[u128; 81]; 5]; 2] {
    let mut t = [[[0u128; 81]; 5]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 5 {
            let ds = step_deltas(STEP_KINDS[k]);
            let mut i = 0;
            while i < 81 {
                let s = Square::from_index_unchecked(i);
                let mut b = 0u128;
                let mut j = 0;
                while j < ds.len() {
                    let dr = if c == 0 { ds[j].1 } else { -ds[j].1 };
                    if let Some(n) = s.offset(ds[j].0, dr) {
                        b |= 1u128 << n as u8;
                    }
                    j += 1;
                }
                t[c][k][i] = b;
                i += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

static STEPS: [[[u128; 81]; 5]; 2] = build_steps();

#[inline]
fn step(c: Color, k: usize, sq: Square) -> Bitboard {
    Bitboard::from_bits(STEPS[c.index()][k][sq.index()])
}

/// Squares a pawn of `c` on `sq` attacks.
#[inline]
pub fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    step(c, 0, sq)
}
/// Squares a knight of `c` on `sq` attacks.
#[inline]
pub fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    step(c, 1, sq)
}
/// Squares a silver of `c` on `sq` attacks.
#[inline]
pub fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    step(c, 2, sq)
}
/// Squares a gold (or a promoted minor piece) of `c` on `sq` attacks.
#[inline]
pub fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    step(c, 3, sq)
}
/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    step(Color::Black, 4, sq)
}

/// The ray in direction `D` from `sq`, cut after the first blocker in `occ`.
#[inline(always)]
fn ray<const D: usize>(sq: Square, occ: Bitboard) -> u128 {
    let r = RAYS[D][sq.index()];
    let b = r & occ.bits();
    if b == 0 {
        r
    } else {
        let s = if D < 4 {
            b.trailing_zeros()
        } else {
            127 - b.leading_zeros()
        };
        r ^ RAYS[D][s as usize]
    }
}

/// Squares a lance of `c` on `sq` attacks with occupancy `occ`.
#[inline(always)]
pub fn lance_attacks(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(match c {
        Color::Black => ray::<4>(sq, occ),
        Color::White => ray::<0>(sq, occ),
    })
}

/// Squares a lance of `c` on `sq` attacks on an empty board.
#[inline]
pub fn lance_pseudo_attacks(c: Color, sq: Square) -> Bitboard {
    Bitboard::from_bits(match c {
        Color::Black => RAYS[4][sq.index()],
        Color::White => RAYS[0][sq.index()],
    })
}

/// Squares a bishop on `sq` attacks with occupancy `occ`.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(
        ray::<1>(sq, occ) | ray::<3>(sq, occ) | ray::<5>(sq, occ) | ray::<7>(sq, occ),
    )
}

/// Squares a rook on `sq` attacks with occupancy `occ`.
#[inline(always)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(
        ray::<0>(sq, occ) | ray::<2>(sq, occ) | ray::<4>(sq, occ) | ray::<6>(sq, occ),
    )
}

/// Squares a bishop on `sq` attacks on an empty board.
#[inline]
pub fn bishop_pseudo_attacks(sq: Square) -> Bitboard {
    let i = sq.index();
    Bitboard::from_bits(RAYS[1][i] | RAYS[3][i] | RAYS[5][i] | RAYS[7][i])
}

/// Squares a rook on `sq` attacks on an empty board.
#[inline]
pub fn rook_pseudo_attacks(sq: Square) -> Bitboard {
    let i = sq.index();
    Bitboard::from_bits(RAYS[0][i] | RAYS[2][i] | RAYS[4][i] | RAYS[6][i])
}

/// Squares `kind` of `c` on `sq` attacks with occupancy `occ`.
#[inline(always)]
pub fn attacks(c: Color, kind: PieceKind, sq: Square, occ: Bitboard) -> Bitboard {
    match kind {
        PieceKind::Pawn => pawn_attacks(c, sq),
        PieceKind::Lance => lance_attacks(c, sq, occ),
        PieceKind::Knight => knight_attacks(c, sq),
        PieceKind::Silver => silver_attacks(c, sq),
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => gold_attacks(c, sq),
        PieceKind::Bishop => bishop_attacks(sq, occ),
        PieceKind::Rook => rook_attacks(sq, occ),
        PieceKind::King => king_attacks(sq),
        PieceKind::Horse => bishop_attacks(sq, occ) | king_attacks(sq),
        PieceKind::Dragon => rook_attacks(sq, occ) | king_attacks(sq),
    }
}

/// The squares strictly between `a` and `b` if they share a line, else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    let d = DIR[a.index()][b.index()];
    if d == NO_DIR {
        return Bitboard::EMPTY;
    }
    let d = d as usize;
    Bitboard::from_bits(RAYS[d][a.index()] & RAYS[d ^ 4][b.index()])
}

/// The ray from `a` through `b` (when they share a line), up to and including the first
/// square of `occ` on it; empty when they do not share a line.
#[inline]
pub fn ray_through(a: Square, b: Square, occ: Bitboard) -> Bitboard {
    let d = DIR[a.index()][b.index()];
    if d == NO_DIR {
        return Bitboard::EMPTY;
    }
    let d = d as usize;
    let r = RAYS[d][a.index()];
    let hit = r & occ.bits();
    if hit == 0 {
        return Bitboard::from_bits(r);
    }
    let s = if d < 4 {
        hit.trailing_zeros()
    } else {
        127 - hit.leading_zeros()
    };
    Bitboard::from_bits(r ^ RAYS[d][s as usize])
}

/// Whether the line through `a` and `b` is a diagonal (false when they share no line).
#[inline]
pub fn is_diagonal(a: Square, b: Square) -> bool {
    DIR[a.index()][b.index()] & 1 == 1 && DIR[a.index()][b.index()] != NO_DIR
}

/// The whole line (edge to edge) through `a` and `b` if they share one, else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    let d = DIR[a.index()][b.index()];
    if d == NO_DIR {
        return Bitboard::EMPTY;
    }
    let d = d as usize;
    Bitboard::from_bits(RAYS[d][a.index()] | RAYS[d ^ 4][a.index()]).with(a)
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Square::*;

    #[test]
    fn steps() {
        assert_eq!(
            pawn_attacks(Color::Black, SQ77),
            Bitboard::from_square(SQ76)
        );
        assert_eq!(
            pawn_attacks(Color::White, SQ73),
            Bitboard::from_square(SQ74)
        );
        assert_eq!(knight_attacks(Color::Black, SQ29).count(), 2);
        assert_eq!(knight_attacks(Color::Black, SQ19).count(), 1);
        assert_eq!(knight_attacks(Color::Black, SQ22).count(), 0);
        assert_eq!(king_attacks(SQ55).count(), 8);
        assert_eq!(gold_attacks(Color::Black, SQ55).count(), 6);
        assert!(gold_attacks(Color::White, SQ55).contains(SQ56));
        assert!(silver_attacks(Color::White, SQ55).contains(SQ44));
    }

    #[test]
    fn sliders() {
        let occ = Bitboard::from_square(SQ53) | Bitboard::from_square(SQ25);
        let r = rook_attacks(SQ55, occ);
        assert!(r.contains(SQ53) && !r.contains(SQ52));
        assert!(r.contains(SQ25) && !r.contains(SQ15));
        assert!(r.contains(SQ59) && r.contains(SQ95));
        assert_eq!(rook_attacks(SQ55, Bitboard::EMPTY).count(), 16);
        assert_eq!(bishop_attacks(SQ55, Bitboard::EMPTY).count(), 16);
        let l = lance_attacks(Color::Black, SQ19, occ);
        assert_eq!(l.count(), 8);
        assert_eq!(lance_attacks(Color::White, SQ51, occ).count(), 2);
        assert_eq!(between(SQ11, SQ99).count(), 7);
        assert_eq!(between(SQ11, SQ12).count(), 0);
        assert_eq!(between(SQ11, SQ23).count(), 0);
        assert_eq!(line(SQ55, SQ44).count(), 9);
        assert!(aligned(SQ19, SQ55, SQ91));
    }
}
