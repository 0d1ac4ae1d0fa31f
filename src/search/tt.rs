//! The transposition table (置換表): a shared, lock-free hash of search results.
//!
//! Layout: the table is a vector of 64-byte clusters (one cache line), each holding four
//! 16-byte entries. An entry is two `AtomicU64` words:
//!
//! ```text
//!  word 0: key ^ data          word 1: data
//!  data bits:  0..16 move (raw u16, 0 = none)
//!             16..32 value (i16, node-relative, see Value::to_tt)
//!             32..48 static eval (i16)
//!             48..56 depth + DEPTH_OFFSET (u8; 0 means "empty slot")
//!             56..58 bound (Bound)   58 is_pv   59..64 generation (5 bits)
//! ```
//!
//! Why the XOR: helper threads of the lazy SMP search (Threads > 1) read and write entries
//! without locks. A torn write (one word from each of two writers) makes `word0 ^ word1`
//! differ from the probing key, so a torn entry reads as a miss instead of as a wrong move or
//! score (Hyatt and Mann, "A lock-less transposition table implementation for parallel search
//! chess engines", 2002). Relaxed atomics are enough: nothing else is ordered by the table.
//!
//! Replacement follows Stockfish's `tt.cpp`: in a cluster, replace the entry with the lowest
//! `depth - 8 * age`; an entry for the same key keeps its move when the new result has none
//! and keeps its deeper result unless the new one is exact or close in depth.
//!
//! The move read back is only a hint: callers check it against the position before playing it.
//!
//! Memory: the clusters live in one allocation aligned to 2 MiB and, on Linux, marked for
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`) before it is first touched
//! (`crate::hugemem`, shared with the mate solver's table). A probe is
//! one random access into tens of megabytes; with 4 KiB pages nearly every probe also misses
//! the TLB, and the page walk cost as much as the cache miss (measured: the probe was 15% of
//! the search's time). YaneuraOu and Stockfish allocate their tables the same way.

use crate::hugemem::{HugeTable, Zeroable};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::value::Value;

/// How the stored value relates to the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    None = 0,
    /// The true score is at most the stored value (fail-low).
    Upper = 1,
    /// The true score is at least the stored value (fail-high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    #[inline]
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }

    /// True if this bound allows a cutoff for a value compared with `beta` in the direction
    /// given by `value >= beta` (Stockfish's `tte->bound() & (v >= beta ? LOWER : UPPER)`).
    #[inline]
    pub fn includes(self, lower: bool) -> bool {
        let mask = if lower {
            Bound::Lower as u8
        } else {
            Bound::Upper as u8
        };
        (self as u8) & mask != 0
    }
}

/// Depths are stored shifted so that quiescence depths (down to `DEPTH_OFFSET + 1` below
/// zero) fit in a byte and 0 stays free for "empty".
pub const DEPTH_OFFSET: i32 = -7;

const GENERATION_BITS: u32 = 3; // bound (2) + pv (1) occupy the low bits of the byte
const GENERATION_DELTA: u8 = 1 << GENERATION_BITS;
const GENERATION_CYCLE: u16 = 255 + GENERATION_DELTA as u16;
const GENERATION_MASK: u16 = (0xFF << GENERATION_BITS) & 0xFF;

/// What a probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtData {
    /// Raw 16-bit move, 0 when none; the caller validates it.
    pub mv: u16,
    pub value: Value,
    pub eval: Value,
    pub depth: i32,
    pub bound: Bound,
    pub is_pv: bool,
}

impl TtData {
    const EMPTY: TtData = TtData {
        mv: 0,
        value: Value::NONE,
        eval: Value::NONE,
        depth: DEPTH_OFFSET,
        bound: Bound::None,
        is_pv: false,
    };
}

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

impl Entry {
    /// Returns the data word if the entry belongs to `key` (and was not torn).
    #[inline]
    fn load(&self) -> (u64, u64) {
        let kx = self.key_xor_data.load(Ordering::Relaxed);
        let d = self.data.load(Ordering::Relaxed);
        (kx ^ d, d)
    }
}

#[inline]
fn depth8(d: u64) -> i32 {
    ((d >> 48) & 0xFF) as i32
}

#[inline]
fn gen8(d: u64) -> u8 {
    (d >> 56) as u8
}

fn unpack(d: u64) -> TtData {
    TtData {
        mv: d as u16,
        value: Value((d >> 16) as u16 as i16 as i32),
        eval: Value((d >> 32) as u16 as i16 as i32),
        depth: depth8(d) + DEPTH_OFFSET,
        bound: Bound::from_bits(d >> 56),
        is_pv: (d >> 58) & 1 != 0,
    }
}

const CLUSTER_SIZE: usize = 4;

#[repr(C, align(64))]
#[derive(Default)]
struct Cluster {
    entries: [Entry; CLUSTER_SIZE],
}

const _: () = assert!(std::mem::size_of::<Cluster>() == 64);

// SAFETY: atomics only; all-zero bytes are an empty cluster.
unsafe impl Zeroable for Cluster {}

/// The cluster array, on huge pages (see the module doc and `crate::hugemem`).
type Clusters = HugeTable<Cluster>;

/// A handle on the slot a probe chose, for writing the node's result afterwards.
#[derive(Clone, Copy, Debug)]
pub struct TtWriter {
    cluster: usize,
    slot: usize,
}

/// The shared transposition table.
pub struct TranspositionTable {
    clusters: Clusters,
    generation8: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one cluster).
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable {
            clusters: Clusters::new(Self::cluster_count(mb)),
            generation8: AtomicU8::new(0),
        }
    }

    /// Reallocates to about `mb` mebibytes and clears. Must not run during a search.
    pub fn resize(&mut self, mb: usize) {
        // Free the old table before allocating the new one.
        self.clusters = Clusters::new(1);
        self.clusters = Clusters::new(Self::cluster_count(mb));
        self.generation8.store(0, Ordering::Relaxed);
    }

    fn cluster_count(mb: usize) -> usize {
        (mb.max(1) << 20) / std::mem::size_of::<Cluster>()
    }

    /// Empties every entry (`usinewgame`).
    pub fn clear(&self) {
        for c in self.clusters.iter() {
            for e in &c.entries {
                e.key_xor_data.store(0, Ordering::Relaxed);
                e.data.store(0, Ordering::Relaxed);
            }
        }
        self.generation8.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries age and become cheaper to replace.
    pub fn new_search(&self) {
        self.generation8
            .fetch_add(GENERATION_DELTA, Ordering::Relaxed);
    }

    #[inline]
    fn generation(&self) -> u8 {
        self.generation8.load(Ordering::Relaxed)
    }

    #[inline]
    fn cluster_index(&self, key: u64) -> usize {
        // Multiply-high maps the key uniformly onto any table size without a modulo.
        ((key as u128 * self.clusters.len() as u128) >> 64) as usize
    }

    /// Hints the CPU to bring the cluster of `key` into cache (called right after do_move).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = &self.clusters[self.cluster_index(key)] as *const Cluster as *const i8;
            // SAFETY: prefetch is only a hint; `p` points into our own live allocation.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up. Returns whether it was found, what was stored (or an empty record) and
    /// the slot to write this node's result into.
    pub fn probe(&self, key: u64) -> (bool, TtData, TtWriter) {
        let ci = self.cluster_index(key);
        let cluster = &self.clusters[ci];
        let generation = self.generation();
        let mut replace = 0;
        let mut replace_score = i32::MAX;
        for (i, e) in cluster.entries.iter().enumerate() {
            let (k, d) = e.load();
            if k == key && depth8(d) != 0 {
                // Refresh the age so that a hit survives replacement (Stockfish does the same).
                let refreshed = (d & !(0xF8u64 << 56)) | ((generation as u64) << 56);
                if refreshed != d {
                    e.data.store(refreshed, Ordering::Relaxed);
                    e.key_xor_data.store(key ^ refreshed, Ordering::Relaxed);
                }
                return (
                    true,
                    unpack(d),
                    TtWriter {
                        cluster: ci,
                        slot: i,
                    },
                );
            }
            let age =
                ((GENERATION_CYCLE + generation as u16 - gen8(d) as u16) & GENERATION_MASK) as i32;
            let score = depth8(d) - age;
            if score < replace_score {
                replace_score = score;
                replace = i;
            }
        }
        (
            false,
            TtData::EMPTY,
            TtWriter {
                cluster: ci,
                slot: replace,
            },
        )
    }

    /// Writes a node's result into the slot a probe returned (Stockfish `TTEntry::save`).
    #[allow(clippy::too_many_arguments)]
    pub fn save(
        &self,
        w: TtWriter,
        key: u64,
        value: Value,
        is_pv: bool,
        bound: Bound,
        depth: i32,
        mv: u16,
        eval: Value,
    ) {
        let e = &self.clusters[w.cluster].entries[w.slot];
        let (k, old) = e.load();
        let same = k == key && depth8(old) != 0;
        // Keep the old move when the new result has none.
        let mv = if mv == 0 && same { old as u16 } else { mv };
        let d8 = (depth - DEPTH_OFFSET).clamp(1, 255);
        // Overwrite unless the same position already holds a clearly deeper, non-exact result.
        // The "+ 2 * is_pv" and "- 4" margins are Stockfish's (tt.cpp, SF 16).
        if bound == Bound::Exact
            || !same
            || d8 + 2 * is_pv as i32 > depth8(old) - 4
            || ((gen8(old) & 0xF8) != self.generation())
        {
            let v = value.0.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
            let ev = eval.0.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
            let data = mv as u64
                | (v << 16)
                | (ev << 32)
                | ((d8 as u64) << 48)
                | ((bound as u64) << 56)
                | ((is_pv as u64) << 58)
                | ((self.generation() as u64) << 56);
            e.data.store(data, Ordering::Relaxed);
            e.key_xor_data.store(key ^ data, Ordering::Relaxed);
        } else if mv != old as u16 {
            let data = (old & !0xFFFF) | mv as u64;
            e.data.store(data, Ordering::Relaxed);
            e.key_xor_data.store(key ^ data, Ordering::Relaxed);
        }
    }

    /// Permille of sampled entries written in the current search (USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.clusters.len().min(1000);
        let mut used = 0;
        for c in &self.clusters[..sample] {
            for e in &c.entries {
                let d = e.data.load(Ordering::Relaxed);
                if depth8(d) != 0 && gen8(d) & 0xF8 == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * CLUSTER_SIZE).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        tt.new_search();
        let key = 0x1234_5678_9abc_def0;
        let (found, _, w) = tt.probe(key);
        assert!(!found);
        tt.save(
            w,
            key,
            Value(-321),
            true,
            Bound::Lower,
            9,
            0x0abc,
            Value(17),
        );
        let (found, d, _) = tt.probe(key);
        assert!(found);
        assert_eq!(d.value, Value(-321));
        assert_eq!(d.eval, Value(17));
        assert_eq!(d.depth, 9);
        assert_eq!(d.bound, Bound::Lower);
        assert!(d.is_pv);
        assert_eq!(d.mv, 0x0abc);
        // A different key in the same cluster is a miss.
        assert!(!tt.probe(key ^ 1).0);
    }

    #[test]
    fn qsearch_depths_and_move_preservation() {
        let tt = TranspositionTable::new(1);
        let key = 42;
        let (_, _, w) = tt.probe(key);
        tt.save(
            w,
            key,
            Value(5),
            false,
            Bound::Upper,
            -3,
            0x0101,
            Value::NONE,
        );
        let (found, d, w) = tt.probe(key);
        assert!(found);
        assert_eq!(d.depth, -3);
        assert_eq!(d.eval, Value::NONE);
        // Saving without a move keeps the old one.
        tt.save(w, key, Value(6), false, Bound::Exact, 2, 0, Value(1));
        let (_, d, _) = tt.probe(key);
        assert_eq!((d.mv, d.value, d.depth), (0x0101, Value(6), 2));
    }

    #[test]
    fn torn_entry_reads_as_miss() {
        let tt = TranspositionTable::new(1);
        let key = 7;
        let (_, _, w) = tt.probe(key);
        tt.save(w, key, Value(1), false, Bound::Exact, 4, 1, Value(0));
        // Simulate a torn write: the data word changes but the xor word does not.
        let e = &tt.clusters[w.cluster].entries[w.slot];
        e.data
            .store(e.data.load(Ordering::Relaxed) ^ 0xFF00, Ordering::Relaxed);
        assert!(!tt.probe(key).0);
    }

    #[test]
    fn hashfull_counts_current_generation() {
        let tt = TranspositionTable::new(1);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        for k in 0..20_000u64 {
            let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let (_, _, w) = tt.probe(key);
            tt.save(w, key, Value(0), false, Bound::Exact, 1, 0, Value(0));
        }
        assert!(tt.hashfull() > 100);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
