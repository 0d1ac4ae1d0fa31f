//! The transposition table, with dominance (優越関係) lookups over the attacker's hand.
//!
//! Keying: an entry is found by the *board* hash (hands excluded) and carries the attacker's
//! hand, so one bucket holds every hand seen for a board and a probe can relate them:
//!
//! - a proven mate of length `upper` stored with proof hand (証明駒) `P` holds for every hand
//!   `H ≥ P` (more pieces for the attacker, hence fewer for the defender, never hurt him);
//! - a lower bound `lower` ("no mate shorter than `lower`", `LEN_INFINITE` = no mate at all)
//!   stored with disproof hand (反証駒) `D` holds for every hand `H ≤ D`;
//! - proof and disproof numbers are kept for the exact hand only.
//!
//! This is sound inside one search because the pieces are conserved: on a given board, a
//! bigger attacker hand means a smaller defender hand. The table is cleared between problems
//! (a new `position`), so entries never mix problems with different piece sets.
//!
//! Bucket layout: `BUCKET` entries of 40 bytes stored as arrays (structure of arrays), all
//! hands of one board in the same bucket:
//!
//! ```text
//! bytes   0..64   key[8]     board key                      <- the only line a miss reads
//!        64..96   hand[8]    Hand raw (`shogi::Hand::raw`)
//!        96..128  amount[8]  search effort (replacement priority)
//!       128..192  pn[8]      192..256 dn[8]  (for this exact hand, when flag bit 0)
//!       256..272  upper[8]   proven mate length for hands ≥ hand (LEN_INFINITE = none)
//!       272..288  lower[8]   no mate shorter than this for hands ≤ hand (0 = nothing)
//!       288..320  flags[8]   bit 0: pn/dn valid; bits 1..: generation (free unless current)
//! ```
//!
//! Parent links (optional, [`MateTable::with_parent_links`]): per entry, the board key and hand
//! of the node that last stored numbers for it, in a parallel array of 96-byte blocks. They
//! serve the double-count detection (see `super::search`): following the links from a child
//! up the table tells whether it is also reached from an ancestor of the current node by
//! another route. Kept apart so that a table without them stays 40 bytes per entry (the links
//! cost about 5 % speed in the main array for a correction that is off by default).
//!
//! Replacement: a new (board, hand) pair takes a free slot of its bucket, else the slot with the
//! least amount (proofs and disproofs cost many nodes, so they tend to stay).

use super::pndn::{Len, PnDn, LEN_INFINITE};
use crate::hugemem::{HugeTable, Zeroable};
use crate::shogi::Hand;

/// Entries per bucket.
const BUCKET: usize = 8;

/// `flags` bit 0: pn/dn are valid. Bits 1..: the generation the entry belongs to; an entry of
/// another generation is free, so clearing the table between problems costs nothing.
const FLAG_HAS_PNDN: u32 = 1;
const GEN_SHIFT: u32 = 1;

/// One bucket, laid out as arrays so that a probe reads the keys (one cache line) and only
/// touches the rest for entries whose key matches.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    key: [u64; BUCKET],
    hand: [u32; BUCKET],
    amount: [u32; BUCKET],
    pn: [PnDn; BUCKET],
    dn: [PnDn; BUCKET],
    upper: [Len; BUCKET],
    lower: [Len; BUCKET],
    flags: [u32; BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 40 * BUCKET);

// SAFETY: integers only; an all-zero bucket is an empty one (generation 0 is never current).
unsafe impl Zeroable for Bucket {}

/// The parent links of one bucket's entries.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Links {
    key: [u64; BUCKET],
    hand: [u32; BUCKET],
}

const _: () = assert!(std::mem::size_of::<Links>() == 12 * BUCKET);

/// `parent_hand` of an entry without a parent (guard bits set: never a real hand).
const NO_PARENT: u32 = u32::MAX;

/// A node as the table names it: board key and attacker hand.
pub type NodeId = (u64, Hand);

/// What a probe found for a (board, hand) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The shortest proven mate length valid for the hand (`LEN_INFINITE` if none).
    pub upper: Len,
    /// The proof hand of that proof.
    pub proof_hand: Hand,
    /// The best lower bound valid for the hand (0 if none).
    pub lower: Len,
    /// The disproof hand of that bound.
    pub disproof_hand: Hand,
    /// Proof and disproof numbers stored for this exact hand, if any.
    pub pndn: Option<(PnDn, PnDn)>,
    /// The search effort recorded for this exact hand (0 if none).
    pub amount: u32,
    /// The node that last stored numbers for this exact hand, if any.
    pub parent: Option<NodeId>,
}

/// The mate solver's transposition table.
pub struct MateTable {
    /// On huge pages (`crate::hugemem`): with 4 KiB pages every probe of a big table also
    /// missed the TLB.
    buckets_vec: HugeTable<Bucket>,
    /// Parent links, one block per bucket, or empty.
    links: Vec<Links>,
    buckets: usize,
    generation: u32,
}

impl MateTable {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> MateTable {
        MateTable::with_parent_links(megabytes, false)
    }

    /// A table of about `megabytes` MiB in all, with parent links when `links` (fewer
    /// entries then: the links share the memory).
    pub fn with_parent_links(megabytes: usize, links: bool) -> MateTable {
        let bytes = megabytes.saturating_mul(1 << 20);
        let per_bucket = std::mem::size_of::<Bucket>()
            + if links {
                std::mem::size_of::<Links>()
            } else {
                0
            };
        let buckets = (bytes / per_bucket).max(1);
        let no_parent = Links {
            key: [0; BUCKET],
            hand: [NO_PARENT; BUCKET],
        };
        MateTable {
            buckets_vec: HugeTable::new(buckets),
            links: if links {
                vec![no_parent; buckets]
            } else {
                Vec::new()
            },
            buckets,
            generation: 1,
        }
    }

    /// Whether the table keeps parent links.
    pub fn has_parent_links(&self) -> bool {
        !self.links.is_empty()
    }

    /// Forget everything (in O(1): a new generation; a full wipe only when it wraps).
    pub fn clear(&mut self) {
        self.generation += 1;
        if self.generation >= (u32::MAX >> GEN_SHIFT) {
            self.buckets_vec.fill(Bucket::default());
            self.generation = 1;
        }
    }

    /// Number of entries.
    pub fn capacity(&self) -> usize {
        self.buckets * BUCKET
    }

    /// Per-mille of used entries, sampled over the first buckets (USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = &self.buckets_vec[..self.buckets.min(500)];
        let used: usize = sample
            .iter()
            .map(|b| {
                b.flags
                    .iter()
                    .filter(|&&f| f >> GEN_SHIFT == self.generation)
                    .count()
            })
            .sum();
        (used * 1000 / (sample.len() * BUCKET)) as u32
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        // Multiply-shift maps the key onto any bucket count without a modulo.
        (((key as u128) * (self.buckets as u128)) >> 64) as usize
    }

    /// Ask the CPU to start loading the bucket of `key`. The search calls this for every child
    /// before probing them one by one, so the cache misses overlap instead of queueing.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr: *const Bucket = &self.buckets_vec[self.bucket(key)];
            // SAFETY: `_mm_prefetch` is a hint that never faults and never reads memory
            // architecturally; the pointer is in bounds anyway. SSE is baseline on x86_64.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Everything the table knows about `hand` on the board `key`.
    pub fn probe(&self, key: u64, hand: Hand) -> Probe {
        let index = self.bucket(key);
        let b = &self.buckets_vec[index];
        let mut probe = Probe {
            upper: LEN_INFINITE,
            proof_hand: hand,
            lower: 0,
            disproof_hand: hand,
            pndn: None,
            amount: 0,
            parent: None,
        };
        for i in 0..BUCKET {
            if b.key[i] != key || b.flags[i] >> GEN_SHIFT != self.generation {
                continue;
            }
            let e_hand = Hand::from_raw(b.hand[i]);
            if b.upper[i] < probe.upper && hand.is_superior_or_equal(e_hand) {
                probe.upper = b.upper[i];
                probe.proof_hand = e_hand;
            }
            if b.lower[i] > probe.lower && e_hand.is_superior_or_equal(hand) {
                probe.lower = b.lower[i];
                probe.disproof_hand = e_hand;
            }
            if b.hand[i] == hand.raw() {
                probe.amount = b.amount[i];
                if b.flags[i] & FLAG_HAS_PNDN != 0 {
                    probe.pndn = Some((b.pn[i], b.dn[i]));
                    if let Some(l) = self.links.get(index) {
                        if l.hand[i] != NO_PARENT {
                            probe.parent = Some((l.key[i], Hand::from_raw(l.hand[i])));
                        }
                    }
                }
            }
        }
        probe
    }

    /// The bucket number and index for exactly (key, hand), creating the entry if needed.
    fn slot(&mut self, key: u64, hand: Hand) -> (usize, usize) {
        let index = self.bucket(key);
        let generation = self.generation;
        let b = &mut self.buckets_vec[index];
        let mut victim = 0;
        let mut victim_amount = u64::MAX;
        for i in 0..BUCKET {
            let used = b.flags[i] >> GEN_SHIFT == generation;
            if used && b.key[i] == key && b.hand[i] == hand.raw() {
                return (index, i);
            }
            let priority = if !used { 0 } else { u64::from(b.amount[i]) + 1 };
            if priority < victim_amount {
                victim_amount = priority;
                victim = i;
            }
        }
        b.key[victim] = key;
        b.hand[victim] = hand.raw();
        b.amount[victim] = 0;
        b.pn[victim] = 0;
        b.dn[victim] = 0;
        b.upper[victim] = LEN_INFINITE;
        b.lower[victim] = 0;
        b.flags[victim] = generation << GEN_SHIFT;
        if let Some(l) = self.links.get_mut(index) {
            l.hand[victim] = NO_PARENT;
        }
        (index, victim)
    }

    /// Record proof and disproof numbers for exactly `hand`, found below `parent`.
    pub fn store_pndn(
        &mut self,
        key: u64,
        hand: Hand,
        pn: PnDn,
        dn: PnDn,
        amount: u32,
        parent: Option<NodeId>,
    ) {
        let (index, i) = self.slot(key, hand);
        let b = &mut self.buckets_vec[index];
        b.pn[i] = pn;
        b.dn[i] = dn;
        b.flags[i] |= FLAG_HAS_PNDN;
        b.amount[i] = b.amount[i].max(amount);
        if let Some(l) = self.links.get_mut(index) {
            let (pk, ph) = parent.unwrap_or((0, Hand::from_raw(NO_PARENT)));
            l.key[i] = pk;
            l.hand[i] = ph.raw();
        }
    }

    /// Record a proven mate of length `upper` for every hand ≥ `proof_hand`.
    pub fn store_proof(&mut self, key: u64, proof_hand: Hand, upper: Len, amount: u32) {
        let (index, i) = self.slot(key, proof_hand);
        let b = &mut self.buckets_vec[index];
        b.upper[i] = b.upper[i].min(upper);
        b.amount[i] = b.amount[i].max(amount);
    }

    /// Record "no mate shorter than `lower`" for every hand ≤ `disproof_hand`.
    pub fn store_lower(&mut self, key: u64, disproof_hand: Hand, lower: Len, amount: u32) {
        let (index, i) = self.slot(key, disproof_hand);
        let b = &mut self.buckets_vec[index];
        b.lower[i] = b.lower[i].max(lower);
        b.amount[i] = b.amount[i].max(amount);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::PieceKind;

    fn hand(pawns: u32, golds: u32) -> Hand {
        let mut h = Hand::EMPTY;
        h.set(PieceKind::Pawn, pawns);
        h.set(PieceKind::Gold, golds);
        h
    }

    #[test]
    fn proofs_extend_to_superior_hands_only() {
        let mut tt = MateTable::new(1);
        tt.store_proof(42, hand(1, 1), 7, 10);
        assert_eq!(tt.probe(42, hand(1, 1)).upper, 7);
        assert_eq!(tt.probe(42, hand(2, 1)).upper, 7);
        assert_eq!(tt.probe(42, hand(2, 1)).proof_hand, hand(1, 1));
        assert_eq!(tt.probe(42, hand(2, 0)).upper, LEN_INFINITE);
        assert_eq!(tt.probe(43, hand(2, 1)).upper, LEN_INFINITE);
        // A shorter proof with a bigger proof hand does not replace the first one.
        tt.store_proof(42, hand(3, 1), 5, 10);
        assert_eq!(tt.probe(42, hand(2, 1)).upper, 7);
        assert_eq!(tt.probe(42, hand(3, 2)).upper, 5);
    }

    #[test]
    fn lower_bounds_extend_to_inferior_hands_only() {
        let mut tt = MateTable::new(1);
        tt.store_lower(42, hand(1, 1), LEN_INFINITE, 10);
        assert_eq!(tt.probe(42, hand(0, 1)).lower, LEN_INFINITE);
        assert_eq!(tt.probe(42, hand(1, 0)).lower, LEN_INFINITE);
        assert_eq!(tt.probe(42, hand(2, 1)).lower, 0);
        tt.store_lower(42, hand(5, 5), 9, 10);
        assert_eq!(tt.probe(42, hand(2, 1)).lower, 9);
        assert_eq!(tt.probe(42, hand(1, 1)).lower, LEN_INFINITE);
    }

    #[test]
    fn pndn_is_exact_hand_and_replacement_keeps_big_entries() {
        let mut tt = MateTable::with_parent_links(0, true);
        assert_eq!(tt.capacity(), BUCKET);
        tt.store_pndn(1, hand(1, 0), 3, 4, 1000, Some((7, hand(2, 0))));
        assert_eq!(tt.probe(1, hand(1, 0)).pndn, Some((3, 4)));
        assert_eq!(tt.probe(1, hand(1, 0)).parent, Some((7, hand(2, 0))));
        assert_eq!(tt.probe(1, hand(2, 0)).pndn, None);
        assert_eq!(tt.probe(1, hand(2, 0)).parent, None);
        // Fill the single bucket with cheap entries; the expensive one survives.
        for k in 2..40 {
            tt.store_pndn(k, Hand::EMPTY, 1, 1, 1, None);
        }
        assert_eq!(tt.probe(39, Hand::EMPTY).parent, None);
        // Without links a table has no parents to give.
        let mut plain = MateTable::new(1);
        plain.store_pndn(1, hand(1, 0), 3, 4, 1000, Some((7, hand(2, 0))));
        assert_eq!(plain.probe(1, hand(1, 0)).parent, None);
        assert!(!plain.has_parent_links());
        assert_eq!(tt.probe(1, hand(1, 0)).pndn, Some((3, 4)));
        assert!(tt.hashfull() == 1000);
        tt.clear();
        assert_eq!(tt.probe(1, hand(1, 0)).pndn, None);
    }
}
