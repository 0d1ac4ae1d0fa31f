//! Rules questions the alpha-beta search (`crate::search`) asks that the rest of the core does
//! not: repetition as a search judges it, "is there any legal move", mate in one (一手詰め), and
//! the key a move will lead to (to prefetch its table entry before playing it).
//!
//! They live here, in one more `impl Position` block, so that the search reaches the rules only
//! through the core (one implementation of the rules) while the core's own files stay as they
//! are.
//!
//! References: YaneuraOu `position.cpp` (`is_repetition`, `mate1ply`), Stockfish
//! `position.cpp` (`is_draw`: a cycle never crosses a null move).

use super::attacks::{
    attacks, between, bishop_attacks, bishop_pseudo_attacks, gold_attacks, king_attacks,
    knight_attacks, lance_pseudo_attacks, line, pawn_attacks, rook_attacks, rook_pseudo_attacks,
    silver_attacks,
};
use super::bitboard::Bitboard;
use super::legality::has_further_move;
use super::movegen::{generate_checks, generate_legal, MoveEntry, MoveList};
use super::position::{Position, Repetition};
use super::types::{Color, Move, PieceKind, Square};
use super::zobrist;

impl Position {
    /// The [`Position::key`] that `do_move(m)` would produce, without playing `m` (a legal
    /// move). Mirrors the key update of `do_move`; a test checks them against each other.
    pub fn key_after(&self, m: Move) -> u64 {
        let us = self.side;
        let to = m.to();
        let mut bk = self.st.board_key ^ zobrist::SIDE;
        let mut hk = self.st.hand_key;
        match m.from() {
            None => {
                let kind = m.dropped_kind().expect("a drop has a kind");
                hk = hk.wrapping_sub(zobrist::hand(us, kind));
                bk ^= zobrist::piece(us, kind, to);
            }
            Some(from) => {
                let Some(p) = self.board[from.index()] else {
                    return bk ^ hk;
                };
                if let Some(cap) = self.board[to.index()] {
                    bk ^= zobrist::piece(cap.color, cap.kind, to);
                    hk = hk.wrapping_add(zobrist::hand(us, cap.kind.unpromote()));
                }
                let kind = if m.is_promotion() {
                    p.kind.promote().unwrap_or(p.kind)
                } else {
                    p.kind
                };
                bk ^= zobrist::piece(us, p.kind, from) ^ zobrist::piece(us, kind, to);
            }
        }
        bk ^ hk
    }

    /// Repetition (千日手) of the current position, as a search wants it.
    ///
    /// Differs from [`Position::repetition`] in three ways, all from YaneuraOu's
    /// `is_repetition`:
    /// - the look-back stops at a null move (a "cycle" through a pass is not one);
    /// - superior and inferior positions (優等局面/劣等局面: same board and side, more or less in
    ///   hand) count only within the last `superior_within` plies — the plies searched since
    ///   the root — so that the root's own score never becomes a superiority value; exact
    ///   repetitions (draw, perpetual check) use the game history too;
    /// - hands that differ both ways (more of one kind, less of another) are neither superior
    ///   nor inferior: the look-back goes on.
    ///
    /// Looks back at most `max_plies` plies.
    pub fn repetition_in_search(&self, max_plies: usize, superior_within: usize) -> Repetition {
        let n = self.history.len();
        // A cycle never crosses a null move or the start of the history.
        let limit = max_plies.min(n).min(self.st.moves_in_a_row as usize);
        let mut d = 4;
        while d <= limit {
            if self.history[n - d].board_key == self.st.board_key {
                if let Some(r) = self.repetition_at(d, d <= superior_within) {
                    return r;
                }
            }
            d += 2;
        }
        Repetition::None
    }

    /// Whether the side to move has at least one legal move.
    ///
    /// In check (the mate-in-one test's case) nothing is generated: a king step to an
    /// unattacked square, then (against a single checker) a capture of the checker or an
    /// interposition by a piece that is not pinned away from the line, or an interposing drop.
    /// Every piece moves where it attacks, and a piece that arrives where it could never move
    /// again may always promote there, so "some piece attacks the square" is "some legal move
    /// goes there".
    pub fn has_legal_move(&self) -> bool {
        let us = self.side;
        let Some(k) = self.kings[us.index()].filter(|_| self.in_check()) else {
            let mut list = MoveList::new();
            generate_legal(self, &mut list);
            return !list.is_empty();
        };
        let occ = self.occupied();
        let lifted = occ.without(k);
        for to in king_attacks(k) - self.by_color[us.index()] {
            if !self.is_attacked(!us, to, lifted) {
                return true;
            }
        }
        let checkers = self.st.checkers;
        let Some(c) = checkers.lsb().filter(|_| !checkers.more_than_one()) else {
            return false;
        };
        let movers = self.by_color[us.index()].without(k);
        let pinned = self.pinned(us);
        let can_reach = |to: Square| {
            let mut froms = self.attackers_to(us, to, occ) & movers;
            Iterator::any(&mut froms, |from| {
                !pinned.contains(from) || line(k, from).contains(to)
            })
        };
        if can_reach(c) {
            return true;
        }
        let hand = self.hands[us.index()];
        for s in between(k, c) {
            if can_reach(s) {
                return true;
            }
            for kind in PieceKind::HAND {
                if !hand.has(kind) || !has_further_move(us, kind, s) {
                    continue;
                }
                if kind != PieceKind::Pawn {
                    return true;
                }
                let nifu = (self.pieces(us, PieceKind::Pawn) & Bitboard::file(s.file())).any();
                if !nifu && !self.is_pawn_drop_mate(s) {
                    return true;
                }
            }
        }
        false
    }

    /// A move that mates at once (一手詰め), if one is found.
    ///
    /// Every legal check landing near the enemy king ([`near_king`]) is a candidate (a mate
    /// by a check from further away is left to the search, as in YaneuraOu's `mate1ply`).
    /// The checks are generated first (often there are none, and then nothing else is
    /// looked at); a candidate that leaves one of the enemy king's free flights uncovered by
    /// the moved piece (on an empty board, so a superset of what it covers), or whose checker
    /// the enemy could capture (with the king, or with another piece, pins not considered),
    /// is skipped before it is played: fewer than one candidate in ten is played out. A mate
    /// that relies on a slider the move uncovers (a discovered check, or a flight covered
    /// only by the uncovered slider), or whose checker only a pinned piece attacks, may be
    /// missed that way (a test holds the misses under one in ten); a reported mate is always
    /// real, and the search finds the missed ones by searching. Non-promotions of pawns,
    /// bishops and rooks are skipped: where they mate, the promotion mates too (its piece
    /// attacks a superset of squares).
    ///
    /// `checks` is scratch space (its contents are replaced).
    pub fn mate_in_one(&mut self, checks: &mut MoveList) -> Option<Move> {
        let us = self.side;
        let them = !us;
        let ek = self.kings[them.index()]?;
        // Checks first: often there are none, and then the flights need not be looked at.
        checks.clear();
        self.generate_checks_near_king(checks);
        if checks.is_empty() {
            return None;
        }
        let occ_without_king = self.occupied().without(ek);
        let their_men = self.by_color[them.index()].without(ek);
        let mut free = Bitboard::EMPTY;
        for f in king_attacks(ek) - self.by_color[them.index()] {
            if !self.is_attacked(us, f, occ_without_king) {
                free |= Bitboard::from_square(f);
            }
        }
        for &m in checks.as_slice() {
            let kind = match m.from() {
                None => m.dropped_kind().expect("a drop has a kind"),
                Some(from) => {
                    let k = self.board[from.index()].expect("own piece").kind;
                    if m.is_promotion() {
                        k.promote().unwrap_or(k)
                    } else if self.is_inferior_non_promotion(m) {
                        continue;
                    } else {
                        k
                    }
                }
            };
            let to = m.to();
            let covered = pseudo_attacks(us, kind, to).with(to);
            if (free - covered).any() {
                continue;
            }
            // The checker must not be capturable: by the king when it stands next to it
            // with nothing of ours behind it, or by any other piece (pins are not looked
            // at: a mate whose checker only a pinned piece attacks is left to the search).
            // Both are cheaper to ask than playing the move and looking for an escape.
            let occ_after = match m.from() {
                Some(from) => occ_without_king.without(from).with(to),
                None => occ_without_king.with(to),
            };
            if self.is_attacked_by(them, their_men, to, occ_after.with(ek)) {
                continue;
            }
            if king_attacks(ek).contains(to) {
                let ours = match m.from() {
                    Some(from) => self.by_color[us.index()].without(from),
                    None => self.by_color[us.index()],
                };
                if !self.is_attacked_by(us, ours, to, occ_after) {
                    continue;
                }
            }
            self.do_move_gives_check(m, true);
            let escapes = self.has_legal_move();
            self.undo_move(m);
            if !escapes {
                return Some(m);
            }
        }
        None
    }

    /// The legal checking moves of the side to move that land on [`near_king`] of the enemy
    /// king (captures included; nothing without an enemy king). The same moves as the core's
    /// [`generate_checks`] restricted to those squares — a test holds them to that — but made
    /// only from the pieces that reach those squares, which costs a fraction of generating
    /// every check (search asks at most nodes: mate in one, and quiet checks in quiescence).
    pub fn generate_checks_near_king<T: MoveEntry>(&self, list: &mut MoveList<T>) {
        let us = self.side;
        let them = !us;
        let Some(ek) = self.kings[them.index()] else {
            return;
        };
        let near = near_king(ek);
        if self.in_check() {
            // Rare in these callers: take the general generator.
            let start = list.len();
            generate_checks(self, list);
            let mut i = 0;
            list.retain(|e| {
                i += 1;
                i <= start || near.contains(e.mv().to())
            });
            return;
        }
        let occ = self.occupied();
        let ours = self.by_color[us.index()];
        let targets = near - ours;
        let ksq = self.kings[us.index()];
        let pinned = self.pinned(us);
        let discover = self.slider_blockers(us, ek, occ) & ours;
        // A step piece reaches `near` only from within two files and four ranks of the
        // king; sliders from anywhere.
        let k = &self.by_kind;
        let sliders = k[PieceKind::Lance.index()]
            | k[PieceKind::Bishop.index()]
            | k[PieceKind::Rook.index()]
            | k[PieceKind::Horse.index()]
            | k[PieceKind::Dragon.index()];
        for from in ours & (sliders | NEAR_KING_FROM[ek.index()]) {
            let kind = self.board[from.index()].expect("own piece").kind;
            let reach = attacks(us, kind, from, occ) & targets;
            if reach.is_empty() {
                continue;
            }
            let lifted = occ.without(from);
            if Some(from) == ksq {
                // A king move checks only by discovery.
                if discover.contains(from) {
                    for to in reach - line(ek, from) {
                        if !self.is_attacked(them, to, lifted) {
                            list.push(T::from_move(Move::new_normal(from, to, false)));
                        }
                    }
                }
                continue;
            }
            let reach = match ksq {
                Some(k) if pinned.contains(from) => reach & line(k, from),
                _ => reach,
            };
            let uncovering = discover.contains(from);
            let promoted = kind.promote();
            for to in reach {
                let disc = uncovering && !line(ek, from).contains(to);
                if let Some(pk) = promoted {
                    if (from.in_zone(us) || to.in_zone(us))
                        && (disc || attacks(us, pk, to, lifted).contains(ek))
                    {
                        list.push(T::from_move(Move::new_normal(from, to, true)));
                    }
                }
                if has_further_move(us, kind, to)
                    && (disc || attacks(us, kind, to, lifted).contains(ek))
                {
                    list.push(T::from_move(Move::new_normal(from, to, false)));
                }
            }
        }
        let hand = self.hands[us.index()];
        if hand.is_empty() {
            return;
        }
        let empty_near = near - occ;
        for kind in PieceKind::HAND {
            if !hand.has(kind) {
                continue;
            }
            for to in attacks(them, kind, ek, occ) & empty_near {
                if !has_further_move(us, kind, to) {
                    continue;
                }
                if kind == PieceKind::Pawn
                    && ((self.pieces(us, PieceKind::Pawn) & Bitboard::file(to.file())).any()
                        || self.is_pawn_drop_mate(to))
                {
                    continue;
                }
                list.push(T::from_move(Move::new_drop(kind, to)));
            }
        }
    }

    /// The pieces of both colors that attack `sq` given occupancy `occ`: the union of
    /// [`Position::attackers_to`] for Black and White, with each slider family computed once
    /// (static exchange evaluation asks this for every capture it weighs).
    pub fn attackers_to_both(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let k = &self.by_kind;
        let black = self.by_color[Color::Black.index()];
        let white = self.by_color[Color::White.index()];
        let hd = k[PieceKind::Horse.index()] | k[PieceKind::Dragon.index()];
        let king_like = k[PieceKind::King.index()] | hd;
        let silvers = k[PieceKind::Silver.index()] | king_like;
        let golds = self.golds() | king_like;
        // A Black piece attacks `sq` from where a White piece of its kind on `sq` would.
        let steps_of = |attacker: Color| {
            let v = !attacker;
            (pawn_attacks(v, sq) & k[PieceKind::Pawn.index()])
                | (knight_attacks(v, sq) & k[PieceKind::Knight.index()])
                | (silver_attacks(v, sq) & silvers)
                | (gold_attacks(v, sq) & golds)
        };
        let mut b = (steps_of(Color::Black) & black) | (steps_of(Color::White) & white);
        // Sliders: a family's rays only when one of its pieces stands on a line through
        // `sq`. Lances share the rook's file rays: a Black lance attacks `sq` from below it
        // (where a White lance on `sq` would attack), a White one from above.
        let diag = k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()];
        if (bishop_pseudo_attacks(sq) & diag).any() {
            b |= bishop_attacks(sq, occ) & diag;
        }
        let lances = k[PieceKind::Lance.index()];
        let orth = k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()];
        let file_lances = (lance_pseudo_attacks(Color::White, sq) & lances & black)
            | (lance_pseudo_attacks(Color::Black, sq) & lances & white);
        if (rook_pseudo_attacks(sq) & orth).any() || file_lances.any() {
            b |= rook_attacks(sq, occ) & (orth | file_lances);
        }
        b
    }

    /// Whether `m` is a non-promotion of a pawn, bishop or rook that could have promoted.
    /// Such a move is never better than its promotion (the promoted piece moves like the
    /// unpromoted one and more), so a search leaves it out, as YaneuraOu's default generator
    /// does. False for drops and promotions.
    #[inline]
    pub fn is_inferior_non_promotion(&self, m: Move) -> bool {
        let Some(from) = m.from() else {
            return false;
        };
        if m.is_promotion() {
            return false;
        }
        let us = self.side;
        matches!(
            self.board[from.index()].map(|p| p.kind),
            Some(PieceKind::Pawn | PieceKind::Bishop | PieceKind::Rook)
        ) && (from.in_zone(us) || m.to().in_zone(us))
    }
}

/// The squares within one file and two ranks of `sq`, `sq` excluded: where a check lands
/// when it comes from a step piece, or from a slider at close range.
pub fn near_king(sq: Square) -> Bitboard {
    NEAR_KING[sq.index()]
}

/// The squares within two files and four ranks of a square: from where a step piece (a
/// knight included) can land on [`near_king`] of it.
static NEAR_KING_FROM: [Bitboard; 81] = box_around(2, 4);

static NEAR_KING: [Bitboard; 81] = box_around(1, 2);

/// For each square, the squares within `files` files and `ranks` ranks of it, itself excluded.
pub(crate) const fn box_around(files: i32, ranks: i32) -> [Bitboard; 81] {
    let mut t = [Bitboard::EMPTY; 81];
    let mut i = 0;
    while i < 81 {
        let (f, r) = ((i / 9) as i32, (i % 9) as i32);
        let mut bits = 0u128;
        let mut df = -files;
        while df <= files {
            let mut dr = -ranks;
            while dr <= ranks {
                let (ff, rr) = (f + df, r + dr);
                if (df != 0 || dr != 0) && ff >= 0 && ff < 9 && rr >= 0 && rr < 9 {
                    bits |= 1u128 << (ff * 9 + rr);
                }
                dr += 1;
            }
            df += 1;
        }
        t[i] = Bitboard::from_bits(bits);
        i += 1;
    }
    t
}

/// Squares `kind` of `c` on `sq` attacks on an empty board (table lookups only).
#[inline]
fn pseudo_attacks(c: Color, kind: PieceKind, sq: Square) -> Bitboard {
    match kind {
        PieceKind::Lance => lance_pseudo_attacks(c, sq),
        PieceKind::Bishop => bishop_pseudo_attacks(sq),
        PieceKind::Rook => rook_pseudo_attacks(sq),
        PieceKind::Horse => bishop_pseudo_attacks(sq) | king_attacks(sq),
        PieceKind::Dragon => rook_pseudo_attacks(sq) | king_attacks(sq),
        // Step pieces ignore occupancy.
        _ => attacks(c, kind, sq, Bitboard::EMPTY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::shogi::position::tests::play;

    #[test]
    fn repetition_stops_at_a_null_move() {
        let mut p = Position::startpos();
        play(&mut p, "5i5h 5a5b 5h5i 5b5a");
        assert_eq!(p.repetition_in_search(16, 16), Repetition::Draw);
        let mut p = Position::startpos();
        play(&mut p, "5i5h");
        p.do_null_move();
        play(&mut p, "5h5i");
        p.do_null_move();
        // Same board and side as four plies back, but the cycle passes twice.
        assert_eq!(p.repetition(16), Repetition::Draw);
        assert_eq!(p.repetition_in_search(16, 16), Repetition::None);
    }

    #[test]
    fn superiority_only_within_the_window() {
        let mut p = Position::from_sfen("8k/9/9/9/9/4G4/9/9/K8 b p 1").unwrap();
        play(&mut p, "9i8i P*5e 5f5e 1a2a 5e5f 2a2b 8i9i 2b1a");
        assert_eq!(p.repetition_in_search(16, 8), Repetition::Superior);
        assert_eq!(p.repetition_in_search(16, 7), Repetition::None);
        play(&mut p, "9i8i");
        assert_eq!(p.repetition_in_search(16, 16), Repetition::Inferior);
    }

    #[test]
    fn perpetual_check_in_search() {
        let mut p = Position::from_sfen("8k/9/9/9/9/9/9/9/K6R1 b - 1").unwrap();
        play(&mut p, "2i1i 1a2a 1i2i 2a1a");
        assert_eq!(p.repetition_in_search(16, 0), Repetition::Loss);
        play(&mut p, "2i1i");
        assert_eq!(p.repetition_in_search(16, 0), Repetition::Win);
    }

    #[test]
    fn mate_in_one_and_legal_moves() {
        // A pawn drop on 1b would mate: illegal (打ち歩詰め); the gold mates instead.
        let mut p = Position::from_sfen("7nk/9/7GG/9/9/9/9/9/K8 b P 1").unwrap();
        assert!(p.parse_usi_move("P*1b").is_err());
        assert_eq!(
            p.mate_in_one(&mut MoveList::new())
                .map(|m| m.to_string())
                .as_deref(),
            Some("1c1b")
        );
        // Without the second gold nothing mates.
        let mut p = Position::from_sfen("7nk/9/8G/9/9/9/9/9/K8 b P 1").unwrap();
        assert_eq!(p.mate_in_one(&mut MoveList::new()), None);
        let mut q = Position::from_sfen("7nk/9/8G/9/9/9/9/9/K8 b G 1").unwrap();
        let m = q
            .mate_in_one(&mut MoveList::new())
            .expect("mate in one")
            .to_string();
        assert!(m == "G*1b" || m == "G*2b", "{m}");
        let mut s = Position::startpos();
        assert_eq!(s.mate_in_one(&mut MoveList::new()), None);
        assert!(s.has_legal_move());
        let m = q.parse_usi_move("G*1b").unwrap();
        q.do_move(m);
        assert!(!q.has_legal_move());
    }

    /// The near-king check generator gives exactly the core's checks landing there.
    #[test]
    fn near_king_checks_match_the_core() {
        let mut seed = 3u64;
        let mut seen = 0;
        for start in [
            "startpos",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
        ] {
            for _ in 0..20 {
                let mut p = Position::from_sfen(start).unwrap();
                for _ in 0..150 {
                    let mut core: MoveList = MoveList::new();
                    generate_checks(&p, &mut core);
                    let mut want: Vec<String> = match p.king_square(!p.side_to_move()) {
                        Some(ek) => core
                            .iter()
                            .filter(|m| near_king(ek).contains(m.to()))
                            .map(|m| m.to_string())
                            .collect(),
                        None => Vec::new(),
                    };
                    let mut mine: MoveList = MoveList::new();
                    p.generate_checks_near_king(&mut mine);
                    let mut got: Vec<String> = mine.iter().map(|m| m.to_string()).collect();
                    want.sort();
                    got.sort();
                    assert_eq!(got, want, "{}", p.to_sfen());
                    seen += got.len();
                    let legal = p.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    p.do_move(legal[(seed >> 33) as usize % legal.len()]);
                }
            }
        }
        assert!(seen > 1000, "{seen}");
    }

    /// In random games steered towards checks, `has_legal_move` in check agrees with full
    /// generation.
    #[test]
    fn has_legal_move_in_check_agrees_with_generation() {
        let mut seed = 11u64;
        let mut in_check = 0;
        for start in [
            "startpos",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
        ] {
            for _ in 0..30 {
                let mut p = Position::from_sfen(start).unwrap();
                for _ in 0..200 {
                    let legal = p.legal_moves();
                    if p.in_check() {
                        in_check += 1;
                        assert_eq!(p.has_legal_move(), !legal.is_empty(), "{}", p.to_sfen());
                    }
                    if legal.is_empty() {
                        break;
                    }
                    play_random_preferring_checks(&mut p, &legal, &mut seed, 8);
                }
            }
        }
        assert!(in_check > 500, "{in_check}");
    }

    /// Every mate found is a mate, in random positions the fast "any legal move" agrees with
    /// full generation, `key_after` with `do_move`, and `attackers_to_both` with
    /// `attackers_to`.
    #[test]
    fn agrees_with_generation_in_random_games() {
        let mut seed = 5u64;
        for _ in 0..20 {
            let mut p = Position::startpos();
            for _ in 0..150 {
                let legal = p.legal_moves();
                assert_eq!(p.has_legal_move(), !legal.is_empty(), "{}", p.to_sfen());
                let occ = p.occupied();
                for sq in crate::shogi::Square::ALL {
                    let both = p.attackers_to(Color::Black, sq, occ)
                        | p.attackers_to(Color::White, sq, occ);
                    assert_eq!(
                        p.attackers_to_both(sq, occ),
                        both,
                        "{sq} in {}",
                        p.to_sfen()
                    );
                }
                for &m in legal.as_slice() {
                    let mut q = p.clone();
                    q.do_move(m);
                    assert_eq!(p.key_after(m), q.key(), "{m} in {}", p.to_sfen());
                }
                if let Some(m) = p.clone().mate_in_one(&mut MoveList::new()) {
                    let mut q = p.clone();
                    q.do_move(m);
                    assert!(q.is_checkmate(), "{m} in {}", p.to_sfen());
                }
                if legal.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                p.do_move(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
    }

    /// Plays one of `legal` (the legal moves of `p`, not empty): a checking move with odds
    /// `check_odds` in 16 when there is one, else a random move (a seeded LCG).
    fn play_random_preferring_checks(
        p: &mut Position,
        legal: &MoveList,
        seed: &mut u64,
        check_odds: u64,
    ) {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let checking = legal.iter().copied().find(|&m| p.gives_check(m));
        let m = match checking {
            Some(m) if (*seed >> 60) < check_odds => m,
            _ => legal[(*seed >> 33) as usize % legal.len()],
        };
        p.do_move(m);
    }

    /// The mate-in-one test may miss mates (discovered checks, far checks, checkers only a
    /// pinned piece could take), but not many: over random games that check often, it finds
    /// at least nine in ten of the positions where some move mates.
    #[test]
    fn mate_in_one_finds_most_mates() {
        let mut seed = 11u64;
        let (mut mates, mut found) = (0, 0);
        for _ in 0..200 {
            let mut p = Position::startpos();
            for _ in 0..200 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if !p.in_check() {
                    let mating = legal.as_slice().iter().any(|&m| {
                        let mut q = p.clone();
                        q.do_move(m);
                        q.is_checkmate()
                    });
                    if mating {
                        mates += 1;
                        if p.clone().mate_in_one(&mut MoveList::new()).is_some() {
                            found += 1;
                        }
                    }
                }
                play_random_preferring_checks(&mut p, &legal, &mut seed, 4);
            }
        }
        assert!(mates > 300, "{mates}");
        assert!(found * 10 >= mates * 9, "found {found} of {mates}");
    }
}
