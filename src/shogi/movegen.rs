//! Legal move generation into a [`MoveList`] (no heap).
//!
//! Moves are generated pseudo-legally per piece and filtered cheaply, never by do/undo
//! probing: a piece pinned to its king keeps to the pin line, the king avoids attacked squares
//! (tested with the king lifted off the board, so it cannot hide behind itself from a slider),
//! and in check only captures of the checker and interpositions are tried (only king moves in
//! double check). Pawn drops skip files holding an own pawn (二歩 nifu); the uchifuzume
//! (打ち歩詰め) test runs only for a pawn dropped right in front of the enemy king.
//!
//! Every legal non-promotion is generated (pawn, lance, knight, silver, bishop and rook), as
//! the perft references count them; only moves that would leave a piece with no further move
//! (行き所のない駒) are omitted.

use super::attacks::{
    attacks, between, bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks,
    line, pawn_attacks, rook_attacks, silver_attacks,
};
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Color, Move, PieceKind, Square};
use std::mem::MaybeUninit;

/// Capacity of a [`MoveList`] by default: 593 is the known maximum number of legal moves;
/// pseudo-legal lists can be a little longer, so there is room to spare (the slots are never
/// initialised up front, so the size costs nothing).
pub const MAX_MOVES: usize = 1024;

/// What a [`MoveList`] holds: a [`Move`], or a move with something beside it (the search's
/// ordering score, `search::movepick::ExtMove`). The generators write every entry through
/// [`from_move`](Self::from_move), so a search generates straight into its scored list.
pub trait MoveEntry: Copy {
    /// The entry for a freshly generated move.
    fn from_move(m: Move) -> Self;
    /// The entry's move.
    fn mv(self) -> Move;
}

impl MoveEntry for Move {
    #[inline(always)]
    fn from_move(m: Move) -> Move {
        m
    }
    #[inline(always)]
    fn mv(self) -> Move {
        self
    }
}

/// A fixed-capacity list of moves (or scored moves, see [`MoveEntry`]) on the stack, `N`
/// entries at most. The one list type of the crate: generation, search ordering and the
/// search's small "tried" lists all use it, so the unsafe code below exists once.
pub struct MoveList<T: MoveEntry = Move, const N: usize = MAX_MOVES> {
    moves: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: MoveEntry, const N: usize> MoveList<T, N> {
    /// An empty list.
    #[inline]
    pub fn new() -> Self {
        MoveList {
            // SAFETY: an array of `MaybeUninit` needs no initialisation (the pattern the
            // `MaybeUninit` docs give). The array-repeat form `[MaybeUninit::uninit(); N]`
            // compiled to a 2 KB memset per list here (measured: 3 % of perft).
            moves: unsafe { MaybeUninit::<[MaybeUninit<T>; N]>::uninit().assume_init() },
            len: 0,
        }
    }

    /// Appends an entry (silently dropped if the list is full: generation cannot reach
    /// [`MAX_MOVES`], and the search's short lists of tried moves keep their first `N`).
    #[inline]
    pub fn push(&mut self, e: T) {
        if self.len < N {
            self.moves[self.len] = MaybeUninit::new(e);
            self.len += 1;
        }
    }

    /// Appends `f(to)` for every square of `targets`. The length stays in a register for the
    /// whole loop; with `push` in a loop the compiler stores and reloads it on every move, a
    /// dependency chain that measured as the main cost of drop generation.
    #[inline(always)]
    fn push_each(&mut self, targets: Bitboard, f: impl Fn(Square) -> Move) {
        let mut len = self.len;
        targets.for_each(|to| {
            if len < N {
                self.moves[len] = MaybeUninit::new(T::from_move(f(to)));
                len += 1;
            }
        });
        self.len = len;
    }

    /// Appends a drop of each of `kinds` on every square of `targets`, square by square: one
    /// walk over the squares however many kinds are in hand (YaneuraOu's drop generator does
    /// the same), instead of one walk per kind. Dispatches on the number of kinds so that the
    /// inner loop is unrolled with the move bases in registers.
    #[inline(always)]
    fn push_drops(&mut self, targets: Bitboard, kinds: &[PieceKind]) {
        match kinds.len() {
            0 => {}
            1 => self.push_drops_n::<1>(targets, kinds),
            2 => self.push_drops_n::<2>(targets, kinds),
            3 => self.push_drops_n::<3>(targets, kinds),
            4 => self.push_drops_n::<4>(targets, kinds),
            5 => self.push_drops_n::<5>(targets, kinds),
            _ => self.push_drops_n::<6>(targets, kinds),
        }
    }

    #[inline(always)]
    fn push_drops_n<const K: usize>(&mut self, targets: Bitboard, kinds: &[PieceKind]) {
        let mut bases = [0u16; K];
        for (b, &k) in bases.iter_mut().zip(kinds) {
            *b = Move::drop_base(k);
        }
        let mut len = self.len;
        targets.for_each(|to| {
            if len + K <= N {
                for (i, &b) in bases.iter().enumerate() {
                    self.moves[len + i] =
                        MaybeUninit::new(T::from_move(Move::drop_with_base(b, to.index())));
                }
                len += K;
            }
        });
        self.len = len;
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes all entries.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps only the entries for which `f` holds, in order.
    pub fn retain(&mut self, mut f: impl FnMut(T) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            // SAFETY: slots below `len` are initialised.
            let e = unsafe { self.moves[i].assume_init() };
            if f(e) {
                self.moves[j] = MaybeUninit::new(e);
                j += 1;
            }
        }
        self.len = j;
    }

    /// The entries as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` slots are initialised (`push` and the generators write
        // slot `len` before raising it, never past `N`) and `MaybeUninit<T>` has the layout
        // of `T`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<T>(), self.len) }
    }

    /// The entries as a mutable slice (for scoring and sorting).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<T>(), self.len) }
    }

    /// Whether `m` is the move of some entry.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().iter().any(|e| e.mv() == m)
    }
}

impl<T: MoveEntry, const N: usize> Default for MoveList<T, N> {
    fn default() -> Self {
        MoveList::new()
    }
}

impl<T: MoveEntry, const N: usize> std::ops::Deref for MoveList<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: MoveEntry + std::fmt::Debug, const N: usize> std::fmt::Debug for MoveList<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a, T: MoveEntry, const N: usize> IntoIterator for &'a MoveList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Where the generators put their moves: a [`MoveList`], or a [`MoveCount`] that only counts
/// them (perft's last ply). One generator body serves both, monomorphised per sink, so the
/// count is the length of the list the same code would have written, by construction.
pub(crate) trait MoveSink {
    /// One move.
    fn push(&mut self, m: Move);
    /// `f(to)` for every square of `targets`.
    fn push_each(&mut self, targets: Bitboard, f: impl Fn(Square) -> Move);
    /// A drop of each of `kinds` on every square of `targets`.
    fn push_drops(&mut self, targets: Bitboard, kinds: &[PieceKind]);
}

impl<T: MoveEntry, const N: usize> MoveSink for MoveList<T, N> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, T::from_move(m));
    }
    #[inline(always)]
    fn push_each(&mut self, targets: Bitboard, f: impl Fn(Square) -> Move) {
        MoveList::push_each(self, targets, f);
    }
    #[inline(always)]
    fn push_drops(&mut self, targets: Bitboard, kinds: &[PieceKind]) {
        MoveList::push_drops(self, targets, kinds);
    }
}

/// A sink that counts moves without writing them: a popcount per target set instead of a
/// store per move.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MoveCount(pub(crate) usize);

impl MoveSink for MoveCount {
    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_each(&mut self, targets: Bitboard, _f: impl Fn(Square) -> Move) {
        self.0 += targets.count() as usize;
    }
    #[inline(always)]
    fn push_drops(&mut self, targets: Bitboard, kinds: &[PieceKind]) {
        self.0 += targets.count() as usize * kinds.len();
    }
}

#[inline(always)]
fn push_targets<const ALL: bool>(
    list: &mut impl MoveSink,
    us: Color,
    kind: PieceKind,
    from: Square,
    targets: Bitboard,
) {
    push_split::<ALL>(list, us, kind, from, targets, targets);
}

/// Pushes promotions to `promo` and non-promotions to `plain`, keeping only those the rules
/// allow: promotion needs a promotable kind and the zone at one end; a non-promotion may not
/// leave a piece with no further move. Without `ALL`, the non-promotions of pawns, bishops
/// and rooks that could promote are left out too (see [`SearchMoves`]).
#[inline(always)]
fn push_split<const ALL: bool>(
    list: &mut impl MoveSink,
    us: Color,
    kind: PieceKind,
    from: Square,
    promo: Bitboard,
    plain: Bitboard,
) {
    let zone = Bitboard::zone(us);
    match kind {
        PieceKind::Pawn | PieceKind::Lance | PieceKind::Knight => {
            // Dead ranks: relative rank 1 (pawn, lance) or 1-2 (knight); all inside the zone.
            let dead = if kind == PieceKind::Knight {
                Bitboard::far_ranks(us, 2)
            } else {
                Bitboard::far_ranks(us, 1)
            };
            // A pawn's non-promotion is inferior wherever it could promote: its
            // destination is in the zone (a pawn in the zone moves within it).
            let dead = if !ALL && kind == PieceKind::Pawn {
                zone
            } else {
                dead
            };
            list.push_each(promo & zone, |to| Move::new_normal(from, to, true));
            list.push_each(plain - dead, |to| Move::new_normal(from, to, false));
        }
        PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook => {
            let in_zone = zone.contains(from);
            let promo = if in_zone { promo } else { promo & zone };
            list.push_each(promo, |to| Move::new_normal(from, to, true));
            let plain = if ALL || kind == PieceKind::Silver {
                plain
            } else if in_zone {
                Bitboard::EMPTY
            } else {
                plain - zone
            };
            list.push_each(plain, |to| Move::new_normal(from, to, false));
        }
        _ => {
            list.push_each(plain, |to| Move::new_normal(from, to, false));
        }
    }
}

/// Board moves of non-king pieces to `target`, and drops to `drop_target`, legal given the pin
/// set; the caller has already restricted the targets for check. With `FILTER`, only the
/// pieces of `movers` are tried.
#[inline(always)]
fn gen_pieces<const ALL: bool, const FILTER: bool>(
    pos: &Position,
    list: &mut impl MoveSink,
    target: Bitboard,
    drop_target: Bitboard,
    pinned: Bitboard,
    movers: Bitboard,
) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let ksq = pos.king_square(us);
    let only = |b: Bitboard| if FILTER { b & movers } else { b };
    let ours = only(pos.pieces_of(us));
    let restrict = |from: Square, t: Bitboard| -> Bitboard {
        match ksq {
            Some(k) if pinned.contains(from) => t & line(k, from),
            _ => t,
        }
    };
    // Unpinned pawns all at once: their targets are the pawn set shifted one rank forward
    // (square index − 1 for Black, + 1 for White; a pawn is never on its far rank, so the shift
    // never crosses a file). Pinned pawns, rare, go one by one.
    let pawns = only(pos.pieces(us, PieceKind::Pawn));
    let free = pawns - pinned;
    let (ahead, back): (Bitboard, fn(Square) -> Square) = match us {
        Color::Black => (Bitboard::from_bits(free.bits() >> 1), |to| {
            Square::from_index_unchecked(to.index() + 1)
        }),
        Color::White => (Bitboard::from_bits(free.bits() << 1), |to| {
            Square::from_index_unchecked(to.index() - 1)
        }),
    };
    let ahead = ahead & target;
    list.push_each(ahead & Bitboard::zone(us), |to| {
        Move::new_normal(back(to), to, true)
    });
    let dead = if ALL {
        Bitboard::far_ranks(us, 1)
    } else {
        Bitboard::zone(us)
    };
    list.push_each(ahead - dead, |to| Move::new_normal(back(to), to, false));
    for from in pawns & pinned {
        let t = restrict(from, pawn_attacks(us, from) & target);
        push_targets::<ALL>(list, us, PieceKind::Pawn, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Lance)) {
        let t = restrict(from, lance_attacks(us, from, occ) & target);
        push_targets::<ALL>(list, us, PieceKind::Lance, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Knight)) {
        let t = restrict(from, knight_attacks(us, from) & target);
        push_targets::<ALL>(list, us, PieceKind::Knight, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Silver)) {
        let t = restrict(from, silver_attacks(us, from) & target);
        push_targets::<ALL>(list, us, PieceKind::Silver, from, t);
    }
    for from in pos.golds() & ours {
        let t = restrict(from, gold_attacks(us, from) & target);
        push_targets::<ALL>(list, us, PieceKind::Gold, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Bishop)) {
        let t = restrict(from, bishop_attacks(from, occ) & target);
        push_targets::<ALL>(list, us, PieceKind::Bishop, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Rook)) {
        let t = restrict(from, rook_attacks(from, occ) & target);
        push_targets::<ALL>(list, us, PieceKind::Rook, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Horse)) {
        let t = restrict(
            from,
            (bishop_attacks(from, occ) | king_attacks(from)) & target,
        );
        push_targets::<ALL>(list, us, PieceKind::Horse, from, t);
    }
    for from in only(pos.pieces(us, PieceKind::Dragon)) {
        let t = restrict(
            from,
            (rook_attacks(from, occ) | king_attacks(from)) & target,
        );
        push_targets::<ALL>(list, us, PieceKind::Dragon, from, t);
    }
    if drop_target.any() {
        gen_drops(pos, list, drop_target);
    }
}

#[inline(always)]
fn gen_drops(pos: &Position, list: &mut impl MoveSink, target: Bitboard) {
    let us = pos.side_to_move();
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    let rank1 = Bitboard::far_ranks(us, 1);
    if hand.has(PieceKind::Pawn) {
        let mut files = Bitboard::EMPTY;
        for p in pos.pieces(us, PieceKind::Pawn) {
            files |= Bitboard::file(p.file());
        }
        let t = target - rank1 - files;
        // The only square where a pawn drop can mate: right in front of the enemy king.
        let mate_sq = pos
            .king_square(!us)
            .and_then(|k| pawn_attacks(!us, k).lsb());
        let t = match mate_sq {
            Some(sq) if t.contains(sq) && pos.is_pawn_drop_mate(sq) => t.without(sq),
            _ => t,
        };
        list.push_each(t, |to| Move::new_drop(PieceKind::Pawn, to));
    }
    // The other kinds, grouped by where they may go: silver, gold, bishop and rook anywhere,
    // the lance not on the far rank, the knight not on the two far ranks.
    let mut kinds = [PieceKind::Pawn; 6];
    let mut n = 0;
    for k in [
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
    ] {
        if hand.has(k) {
            kinds[n] = k;
            n += 1;
        }
    }
    let anywhere = n;
    if hand.has(PieceKind::Lance) {
        kinds[n] = PieceKind::Lance;
        n += 1;
    }
    let with_lance = n;
    if hand.has(PieceKind::Knight) {
        kinds[n] = PieceKind::Knight;
        n += 1;
    }
    let rank2 = Bitboard::second_rank(us);
    list.push_drops(target & rank1, &kinds[..anywhere]);
    list.push_drops(target & rank2, &kinds[..with_lance]);
    list.push_drops(target - rank1 - rank2, &kinds[..n]);
}

/// The king's legal moves to squares of `mask` (which excludes our own pieces).
#[inline(always)]
fn gen_king_moves(pos: &Position, list: &mut impl MoveSink, mask: Bitboard) {
    let them = !pos.side_to_move();
    let Some(k) = pos.king_square(pos.side_to_move()) else {
        return;
    };
    let targets = king_attacks(k) & mask;
    if targets.any() {
        // Sliders once for all targets (each slider's rays, with the king lifted), then
        // the cheap step test per remaining square.
        let safe = targets - pos.slider_attacks_within(them, targets, pos.occupied().without(k));
        for to in safe {
            if !pos.is_step_attacked(them, to) {
                list.push(Move::new_normal(k, to, false));
            }
        }
    }
}

/// Legal moves whose destination is in `mask` (drops only on empty squares of it). Inlined
/// into each public generator so that [`count_legal`] can compile its copy with `popcnt`.
#[inline(always)]
fn gen_legal_masked<const ALL: bool>(pos: &Position, list: &mut impl MoveSink, mask: Bitboard) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let mask = mask - ours;
    let empty = !occ;
    let checkers = pos.checkers();
    let ksq = pos.king_square(us);
    gen_king_moves(pos, list, mask);
    let (target, drop_target) = if checkers.any() {
        if checkers.more_than_one() {
            return;
        }
        let c = checkers.lsb().expect("non-empty");
        let b = ksq.map_or(Bitboard::EMPTY, |k| between(k, c));
        (mask & (b.with(c)), mask & b)
    } else {
        (mask, mask & empty)
    };
    let pinned = pos.pinned(us);
    // Out of a contact check, or one with a single square between, few pieces can answer:
    // those found from the square(s) instead of trying every piece (the mate solver's AND
    // nodes are mostly such). Longer lines are cheaper piece by piece.
    if checkers.any() && target.count() <= 2 {
        let mut movers = Bitboard::EMPTY;
        for to in target {
            movers |= pos.attackers_to(us, to, occ);
        }
        gen_pieces::<ALL, true>(pos, list, target, drop_target, pinned, movers);
    } else {
        // Unfiltered: its own copy, so that perft and the search pay nothing for the filter.
        gen_pieces::<ALL, false>(pos, list, target, drop_target, pinned, ours);
    }
}

/// All legal moves.
pub fn generate_legal(pos: &Position, list: &mut MoveList) {
    gen_legal_masked::<true>(pos, list, Bitboard::FULL);
}

/// The number of legal moves: the length of [`generate_legal`]'s list, counted without
/// writing it (perft's bulk count at the last ply).
///
/// The count is a popcount per target set. The default x86-64 target has no `popcnt`
/// instruction and its software popcount made counting dearer than writing the list (callgrind:
/// +8 % instructions at the start position), so on a CPU that has it (all since 2008) a copy
/// of the generator compiled with it is used, chosen at run time.
pub fn count_legal(pos: &Position) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has `popcnt`, checked just above.
            return unsafe { count_legal_popcnt(pos) };
        }
    }
    count_legal_inline(pos)
}

/// [`count_legal`] compiled with the `popcnt` instruction.
///
/// # Safety
///
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn count_legal_popcnt(pos: &Position) -> usize {
    count_legal_inline(pos)
}

#[inline(always)]
fn count_legal_inline(pos: &Position) -> usize {
    let mut n = MoveCount(0);
    gen_legal_masked::<true>(pos, &mut n, Bitboard::FULL);
    n.0
}

/// Legal captures (board moves onto an enemy piece), promoting or not.
pub fn generate_captures(pos: &Position, list: &mut MoveList) {
    gen_legal_masked::<true>(pos, list, pos.pieces_of(!pos.side_to_move()));
}

/// Legal non-captures: board moves to empty squares and drops.
pub fn generate_quiets(pos: &Position, list: &mut MoveList) {
    gen_legal_masked::<true>(pos, list, !pos.occupied());
}

/// The move sets a search generates ([`generate_for_search`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMoves {
    /// As [`generate_captures`].
    Captures,
    /// As [`generate_quiets`].
    Quiets,
    /// As [`generate_evasions`] (in check only).
    Evasions,
}

/// The moves of `which`, without the non-promotions of pawns, bishops and rooks that could
/// promote ([`Position::is_inferior_non_promotion`]): never better than the promotion, and
/// left out by a search (YaneuraOu's default generator does the same). Leaving them out
/// while generating spares the search a filtering pass over every list.
pub fn generate_for_search<T: MoveEntry>(
    pos: &Position,
    list: &mut MoveList<T>,
    which: SearchMoves,
) {
    let mask = match which {
        SearchMoves::Captures => pos.pieces_of(!pos.side_to_move()),
        SearchMoves::Quiets => !pos.occupied(),
        SearchMoves::Evasions => Bitboard::FULL,
    };
    gen_legal_masked::<false>(pos, list, mask);
}

/// Legal moves when in check (the mate solver's AND-node generator). Out of check this is
/// simply all legal moves.
pub fn generate_evasions(pos: &Position, list: &mut MoveList) {
    debug_assert!(pos.in_check());
    gen_legal_masked::<true>(pos, list, Bitboard::FULL);
}

/// For each side, kind and enemy king square, the squares from which a piece of that kind
/// could give a direct check by one move (promoting or not) on an empty board: a superset, so
/// [`generate_checks`] skips a piece outside it without computing its moves. Sliders (which
/// reach from anywhere along a line) get every square; the king gets none (its checks are only
/// discovered ones, generated apart).
fn check_candidates(us: Color, kind: PieceKind, ek: Square) -> Bitboard {
    static TABLE: std::sync::OnceLock<Box<[[[Bitboard; 81]; PieceKind::NUM]; 2]>> =
        std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = Box::new([[[Bitboard::EMPTY; 81]; PieceKind::NUM]; 2]);
        for c in [Color::Black, Color::White] {
            for k in PieceKind::ALL {
                for e in Square::ALL {
                    let cand = &mut t[c.index()][k.index()][e.index()];
                    *cand = match k {
                        PieceKind::King => Bitboard::EMPTY,
                        PieceKind::Lance
                        | PieceKind::Bishop
                        | PieceKind::Rook
                        | PieceKind::Horse
                        | PieceKind::Dragon => Bitboard::FULL,
                        _ => {
                            let mut b = Bitboard::EMPTY;
                            for from in Square::ALL {
                                let reach = attacks(c, k, from, Bitboard::EMPTY);
                                let checks = |to: Square| {
                                    attacks(c, k, to, Bitboard::EMPTY).contains(e)
                                        || k.promote().is_some_and(|pk| {
                                            attacks(c, pk, to, Bitboard::EMPTY).contains(e)
                                        })
                                };
                                for to in reach {
                                    if checks(to) {
                                        b = b.with(from);
                                        break;
                                    }
                                }
                            }
                            b
                        }
                    };
                }
            }
        }
        t
    });
    t[us.index()][kind.index()][ek.index()]
}

/// Whether, after the side to move (the defender, at a mate search's AND node) plays its legal
/// move `m`, the other side may have a checking move: `false` proves it has none, `true` says
/// nothing. The mate solver asks it of every new OR child before searching it: a child without
/// a check disproves its AND node at once, where a search would first expand the siblings
/// ahead of it, counting the replies to every check of each. Tested on piece sets as `m` leaves
/// them, without playing it: a piece of the attacker's (less one `m` captures) on a square from
/// which its kind could check the king in one move ([`check_candidates`]: every square for a
/// slider, so a discovered check, which needs one, is covered too), or a drop with an empty
/// square that attacks the king.
pub fn may_give_check_after(pos: &Position, m: Move) -> bool {
    let defender = pos.side_to_move();
    let us = !defender;
    let Some(mut ek) = pos.king_square(defender) else {
        return false;
    };
    let to = m.to();
    let mut occ = pos.occupied().with(to);
    if let Some(from) = m.from() {
        occ = occ.without(from);
        if from == ek {
            ek = to;
        }
    }
    let board = PieceKind::ALL
        .into_iter()
        .filter(|&k| k != PieceKind::King)
        .any(|k| (pos.pieces(us, k).without(to) & check_candidates(us, k, ek)).any());
    if board {
        return true;
    }
    let hand = pos.hand(us);
    PieceKind::HAND
        .into_iter()
        .any(|k| hand.has(k) && (attacks(defender, k, ek, occ) - occ).any())
}

/// Every legal move that gives check (the mate solver's OR-node generator). Without an enemy
/// king there are none.
///
/// Generated directly, not by filtering: a move checks if its destination is a square from
/// which the moved (or promoted) piece attacks the enemy king — computed as the reverse attack
/// from the king, with the mover lifted off the board — or if the mover uncovers one of our
/// sliders (discovered check, 開き王手) by leaving the line to the king.
pub fn generate_checks<T: MoveEntry>(pos: &Position, list: &mut MoveList<T>) {
    let us = pos.side_to_move();
    let them = !us;
    let Some(ek) = pos.king_square(them) else {
        return;
    };
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let mask = !ours;
    let checkers = pos.checkers();
    let ksq = pos.king_square(us);
    let discover = pos.slider_blockers(us, ek, occ) & ours;
    if let Some(k) = ksq {
        if discover.contains(k) {
            let lifted = occ.without(k);
            for to in king_attacks(k) & (mask - line(ek, k)) {
                if !pos.is_attacked(them, to, lifted) {
                    list.push(T::from_move(Move::new_normal(k, to, false)));
                }
            }
        }
    }
    let (target, drop_target) = if checkers.any() {
        if checkers.more_than_one() {
            return;
        }
        let c = checkers.lsb().expect("non-empty");
        let b = ksq.map_or(Bitboard::EMPTY, |k| between(k, c));
        (mask & b.with(c), b)
    } else {
        (mask, !occ)
    };
    let pinned = pos.pinned(us);
    let kings = pos.pieces_of_kind(PieceKind::King);
    for from in ours - kings {
        let kind = pos.piece_on(from).expect("own piece").kind;
        if !discover.contains(from) && !check_candidates(us, kind, ek).contains(from) {
            continue;
        }
        let mut t = attacks(us, kind, from, occ) & target;
        if let Some(k) = ksq {
            if pinned.contains(from) {
                t &= line(k, from);
            }
        }
        if t.is_empty() {
            continue;
        }
        let lifted = occ.without(from);
        let disc = if discover.contains(from) {
            t - line(ek, from)
        } else {
            Bitboard::EMPTY
        };
        let plain = (t & attacks(them, kind, ek, lifted)) | disc;
        let promo = match kind.promote() {
            Some(pk) => (t & attacks(them, pk, ek, lifted)) | disc,
            None => Bitboard::EMPTY,
        };
        push_split::<true>(list, us, kind, from, promo, plain);
    }
    let hand = pos.hand(us);
    if hand.is_empty() || drop_target.is_empty() {
        return;
    }
    let rank1 = Bitboard::far_ranks(us, 1);
    for kind in PieceKind::HAND {
        if !hand.has(kind) {
            continue;
        }
        let mut t = attacks(them, kind, ek, occ) & drop_target;
        match kind {
            PieceKind::Pawn => {
                t = t - rank1;
                if let Some(to) = t.lsb() {
                    let nifu = (pos.pieces(us, PieceKind::Pawn) & Bitboard::file(to.file())).any();
                    if !nifu && !pos.is_pawn_drop_mate(to) {
                        list.push(T::from_move(Move::new_drop(kind, to)));
                    }
                }
                continue;
            }
            PieceKind::Lance => t = t - rank1,
            PieceKind::Knight => t = t - Bitboard::far_ranks(us, 2),
            _ => {}
        }
        list.push_each(t, |to| Move::new_drop(kind, to));
    }
}

/// Per-node data for fast [`Position::gives_check_with_info`]: the enemy king and our pieces
/// whose move may uncover a check (discovered-check candidates).
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    /// The enemy king's square.
    pub enemy_king: Square,
    /// Our pieces that alone block one of our sliders from the enemy king.
    pub discover: Bitboard,
}

/// Pseudo-legal moves for search, to be filtered lazily with [`Position::is_legal_pseudo`]:
/// out of check, every move by the piece rules, nifu and dead-square rules included, but
/// without the own-king safety test and without the uchifuzume test; in check, the legal
/// evasions (which then pass `is_legal_pseudo` trivially).
pub fn generate_pseudo_legal(pos: &Position, list: &mut MoveList) {
    if pos.in_check() {
        gen_legal_masked::<true>(pos, list, Bitboard::FULL);
        return;
    }
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let mask = !pos.pieces_of(us);
    if let Some(k) = pos.king_square(us) {
        for to in king_attacks(k) & mask {
            list.push(Move::new_normal(k, to, false));
        }
    }
    for from in pos.pieces_of(us) - pos.pieces_of_kind(PieceKind::King) {
        let kind = pos.piece_on(from).expect("own piece").kind;
        push_targets::<true>(list, us, kind, from, attacks(us, kind, from, occ) & mask);
    }
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    let empty = !occ;
    let rank1 = Bitboard::far_ranks(us, 1);
    for kind in PieceKind::HAND {
        if !hand.has(kind) {
            continue;
        }
        let t = match kind {
            PieceKind::Pawn => {
                let mut files = Bitboard::EMPTY;
                for p in pos.pieces(us, PieceKind::Pawn) {
                    files |= Bitboard::file(p.file());
                }
                empty - rank1 - files
            }
            PieceKind::Lance => empty - rank1,
            PieceKind::Knight => empty - Bitboard::far_ranks(us, 2),
            _ => empty,
        };
        list.push_each(t, |to| Move::new_drop(kind, to));
    }
}

impl Position {
    /// For a move from [`generate_pseudo_legal`]: whether it is legal (own king safe, and not
    /// a mate by pawn drop). Cheap for most moves: only a king move, a piece on a line with its
    /// own king, or a pawn dropped in front of the enemy king needs work.
    pub fn is_legal_pseudo(&self, m: Move) -> bool {
        let us = self.side_to_move();
        let to = m.to();
        let Some(from) = m.from() else {
            let in_front = match self.king_square(!us) {
                Some(ek) => pawn_attacks(!us, ek) == Bitboard::from_square(to),
                None => false,
            };
            return m.dropped_kind() != Some(PieceKind::Pawn)
                || !in_front
                || !self.is_pawn_drop_mate(to);
        };
        let Some(k) = self.king_square(us) else {
            return true;
        };
        let them = !us;
        let occ = self.occupied();
        if from == k {
            return !self.is_attacked(them, to, occ.without(k));
        }
        if self.in_check() || line(k, from).is_empty() || line(k, from).contains(to) {
            // Evasions are generated legal; a move along its line to the king cannot expose it.
            return true;
        }
        let occ2 = occ.without(from).with(to);
        let sliders = (bishop_attacks(k, occ2)
            & (self.pieces(them, PieceKind::Bishop) | self.pieces(them, PieceKind::Horse)))
            | (rook_attacks(k, occ2)
                & (self.pieces(them, PieceKind::Rook) | self.pieces(them, PieceKind::Dragon)))
            | (lance_attacks(us, k, occ2) & self.pieces(them, PieceKind::Lance));
        (sliders - Bitboard::from_square(to)).is_empty()
    }

    /// Whether the legal move `m` gives check.
    ///
    /// Computes the discovered-check candidates on each call; a search that asks for many
    /// moves of one node should take a [`CheckInfo`] once and use
    /// [`Position::gives_check_with_info`].
    pub fn gives_check(&self, m: Move) -> bool {
        match self.check_info() {
            Some(ci) => self.gives_check_with_info(m, &ci),
            None => false,
        }
    }

    /// What [`Position::gives_check_with_info`] needs, computed once per node; `None` when the
    /// opponent has no king (then no move gives check).
    pub fn check_info(&self) -> Option<CheckInfo> {
        let us = self.side_to_move();
        let ek = self.king_square(!us)?;
        Some(CheckInfo {
            enemy_king: ek,
            discover: self.slider_blockers(us, ek, self.occupied()) & self.pieces_of(us),
        })
    }

    /// Whether the legal move `m` gives check, with `ci` from [`Position::check_info`] of this
    /// same position.
    #[inline]
    pub fn gives_check_with_info(&self, m: Move, ci: &CheckInfo) -> bool {
        self.gives_check_with(m, ci.enemy_king, ci.discover)
    }

    fn gives_check_with(&self, m: Move, ek: Square, discover: Bitboard) -> bool {
        let us = self.side_to_move();
        let to = m.to();
        let occ = self.occupied();
        match m.from() {
            None => {
                let kind = m.dropped_kind().expect("a drop has a kind");
                super::attacks::attacks(us, kind, to, occ).contains(ek)
            }
            Some(from) => {
                let Some(p) = self.piece_on(from) else {
                    return false;
                };
                let kind = if m.is_promotion() {
                    p.kind.promote().unwrap_or(p.kind)
                } else {
                    p.kind
                };
                let occ2 = occ.without(from).with(to);
                if super::attacks::attacks(us, kind, to, occ2).contains(ek) {
                    return true;
                }
                discover.contains(from) && !line(ek, from).contains(to)
            }
        }
    }

    /// All legal moves, as a new list.
    pub fn legal_moves(&self) -> MoveList {
        let mut l = MoveList::new();
        generate_legal(self, &mut l);
        l
    }

    /// Whether the side to move is checkmated (in check with no legal move).
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && self.legal_moves().is_empty()
    }
}

#[cfg(test)]
mod tests;
