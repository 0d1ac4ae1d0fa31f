//! Zobrist keys, generated at compile time by splitmix64 from a fixed seed.
//!
//! The position key is `board_key ^ hand_key`: `board_key` XORs one key per (color, kind,
//! square) plus [`SIDE`] when White is to move; `hand_key` is additive, the sum of one key per
//! (color, hand kind) times the count held (as YaneuraOu does), so adding or removing a piece
//! from a hand is one addition. Keeping the two parts apart lets repetition detection compare
//! boards while hands differ (superior/inferior repetition, 優等/劣等局面).

use super::types::{Color, PieceKind, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

struct Keys {
    piece: [[[u64; 81]; 14]; 2],
    hand: [[u64; 7]; 2],
    side: u64,
}

const fn build() -> Keys {
    let mut k = Keys {
        piece: [[[0; 81]; 14]; 2],
        hand: [[0; 7]; 2],
        side: 0,
    };
    let mut st = 0x6f75_6769_5f73_686fu64;
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < 14 {
            let mut s = 0;
            while s < 81 {
                let (n, v) = splitmix(st);
                st = n;
                k.piece[c][p][s] = v & !1;
                s += 1;
            }
            p += 1;
        }
        let mut h = 0;
        while h < 7 {
            let (n, v) = splitmix(st);
            st = n;
            // Sums wrap; that is harmless, the key only needs to be deterministic.
            k.hand[c][h] = v & !1;
            h += 1;
        }
        c += 1;
    }
    // The side bit is the lowest bit: every other key has it clear, so `key & 1` tells the
    // side to move.
    k.side = 1;
    k
}

static KEYS: Keys = build();

/// Key of `kind` of color `c` on `sq`.
#[inline]
pub fn piece(c: Color, kind: PieceKind, sq: Square) -> u64 {
    KEYS.piece[c.index()][kind.index()][sq.index()]
}

/// Additive key of one `kind` in `c`'s hand.
#[inline]
pub fn hand(c: Color, kind: PieceKind) -> u64 {
    KEYS.hand[c.index()][kind.index()]
}

/// XORed in when White is to move.
pub const SIDE: u64 = 1;

#[cfg(test)]
mod tests {
    #[test]
    fn distinct() {
        let mut v: Vec<u64> = super::KEYS
            .piece
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        v.extend(super::KEYS.hand.iter().flatten());
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), n);
    }
}

/// A hasher for maps keyed by Zobrist keys (the mate solver's path, the book's positions):
/// the keys are uniformly random already, so hashing them again (SipHash, the default) only
/// costs time — about 2.5 % of a df-pn solve in a profile. `write_u64` takes the key as it is;
/// other input is folded in byte by byte for completeness.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl std::hash::BuildHasher for KeyHasher {
    type Hasher = KeyHasher;
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}
