//! A king move's refresh from the last sums seen with the king on that square.
//!
//! In HalfKP every feature of a perspective names its king's square, so a king move leaves
//! nothing to carry: the sums are recomputed, 38 weight columns of `half` sums each, read from
//! a table of tens of megabytes (a cache miss per column line). That was a quarter of the NNUE
//! search's time (`perf`, issue 69). But a king in a search moves between a few squares, and the
//! pieces around it change little between two visits to the same square: so each search keeps,
//! per perspective and king square, the sums and the active features of the last position it
//! refreshed there, and a refresh applies only the difference — the features that left, those
//! that came — to those sums. Integer sums wrap the same in any order, so the result equals the
//! sums from scratch bit for bit (the lazy-stack tests walk king moves and compare).
//!
//! An entry starts as the biases with no features: its first use adds every column, which is a
//! refresh from scratch. When the difference is as long as the position's list, the sums are
//! made from the biases instead (the same work, no old sums to read).

use crate::shogi::{Color, Position};

use super::features::{for_each_active, MAX_ACTIVE};
use super::network::Network;

/// The squares a king can stand on.
const SQUARES: usize = 81;

/// The last refreshed sums and features per (perspective, king square) of one search.
#[derive(Clone)]
pub struct RefreshCache {
    half: usize,
    /// `2 × 81` entries of `half` sums, entry-major.
    sums: Vec<i16>,
    /// Each entry's active features, sorted (a multiset: missing pieces repeat the king's
    /// "no piece" feature).
    features: Vec<[u32; MAX_ACTIVE]>,
    counts: Vec<u8>,
}

/// One entry, borrowed for a refresh.
pub struct Entry<'a> {
    sums: &'a mut [i16],
    features: &'a mut [u32; MAX_ACTIVE],
    count: &'a mut u8,
}

impl RefreshCache {
    pub fn new(net: &Network) -> RefreshCache {
        let half = net.arch.half;
        let entries = 2 * SQUARES;
        let mut sums = Vec::with_capacity(entries * half);
        for _ in 0..entries {
            sums.extend_from_slice(&net.ft_bias[..half]);
        }
        RefreshCache {
            half,
            sums,
            features: vec![[0; MAX_ACTIVE]; entries],
            counts: vec![0; entries],
        }
    }

    /// The entry of `perspective`'s king in `pos` (which must have it).
    pub fn entry(&mut self, pos: &Position, perspective: Color) -> Entry<'_> {
        let king = pos
            .king_square(perspective)
            .expect("the perspective's king is on the board");
        let i = perspective.index() * SQUARES + king.index();
        Entry {
            sums: &mut self.sums[i * self.half..(i + 1) * self.half],
            features: &mut self.features[i],
            count: &mut self.counts[i],
        }
    }
}

impl Network {
    /// One perspective's sums of `pos` into `out`, from `entry`'s sums and the difference
    /// between its features and `pos`'s; the entry then holds `pos`'s.
    #[inline(always)]
    pub(super) fn refresh_cached_inline(
        &self,
        pos: &Position,
        perspective: Color,
        entry: Entry<'_>,
        out: &mut [i16],
    ) {
        let mut now = [0u32; MAX_ACTIVE];
        let mut n = 0;
        for_each_active(self.arch.features, pos, perspective, |f| {
            now[n] = f as u32;
            n += 1;
        });
        let now = &mut now[..n];
        now.sort_unstable();

        // Multiset difference of two sorted lists: what left, what came.
        let old = &entry.features[..usize::from(*entry.count)];
        let (mut removed, mut added) = ([0u32; MAX_ACTIVE], [0u32; MAX_ACTIVE]);
        let (mut nr, mut na) = (0, 0);
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < now.len() {
            if old[i] == now[j] {
                i += 1;
                j += 1;
            } else if old[i] < now[j] {
                removed[nr] = old[i];
                nr += 1;
                i += 1;
            } else {
                added[na] = now[j];
                na += 1;
                j += 1;
            }
        }
        for &f in &old[i..] {
            removed[nr] = f;
            nr += 1;
        }
        for &f in &now[j..] {
            added[na] = f;
            na += 1;
        }

        let from_bias = nr + na >= now.len();
        let (removed, added): (&[u32], &[u32]) = if from_bias {
            (&[], &now[..])
        } else {
            (&removed[..nr], &added[..na])
        };
        let base: &[i16] = if from_bias { &self.ft_bias } else { entry.sums };
        self.sum_columns(base, removed, added, out);
        entry.sums.copy_from_slice(&out[..self.arch.half]);
        entry.features[..n].copy_from_slice(now);
        *entry.count = n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::SplitMix64;
    use crate::eval::nnue::kernel::{self, Kernel};
    use crate::eval::nnue::HALFKP_256;

    /// Refreshes through the cache along random games — king moves, captures, drops, and
    /// positions short of pieces, whose missing pieces repeat one feature — and compares each
    /// with the sums from scratch, on every kernel.
    #[test]
    fn cached_refreshes_equal_refreshes_from_scratch() {
        let net = Network::random(HALFKP_256, 69);
        let starts = [
            // The start, a two-piece handicap and a mate problem with a few pieces.
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "7nl/6k2/5p1pp/9/9/9/9/9/4K4 b G2S 1",
        ];
        let mut rng = SplitMix64::new(7);
        let mut checked = 0;
        for k in Kernel::available() {
            let mut cache = RefreshCache::new(&net);
            for sfen in starts {
                let mut pos = Position::from_sfen(sfen).unwrap();
                for _ in 0..120 {
                    for c in Color::ALL {
                        let mut cached = vec![0i16; net.arch.half];
                        let entry = cache.entry(&pos, c);
                        kernel::refresh_cached(k, &net, &pos, c, entry, &mut cached);
                        let mut scratch = vec![0i16; net.arch.half];
                        kernel::refresh(Kernel::Portable, &net, &pos, c, &mut scratch);
                        assert_eq!(cached, scratch, "{k:?} {c:?} {}", pos.to_sfen());
                        checked += 1;
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() || pos.king_square(Color::White).is_none() {
                        break;
                    }
                    pos.do_move(moves[(rng.next_u64() % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }
}
