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

use super::attacks::{attacks, between, king_attacks, line};
use super::bitboard::Bitboard;
use super::legality::has_further_move;
use super::movegen::{generate_checks, generate_legal, MoveList};
use super::position::{Position, Repetition};
use super::types::{Move, PieceKind, Square};
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
        let limit = max_plies.min(n);
        let mut d = 1;
        while d <= limit {
            // The state `d - 1` plies back must have been reached by a real move.
            let reached_by_move = if d == 1 {
                self.st.last_move.is_some()
            } else {
                self.history[n - d + 1].last_move.is_some()
            };
            if !reached_by_move {
                break;
            }
            if d >= 4 && d % 2 == 0 {
                let old = &self.history[n - d];
                if old.board_key == self.st.board_key {
                    let (mine_now, mine_then) = self.hands_now_and_then(d);
                    if mine_now == mine_then {
                        return self.exact_repetition(d);
                    }
                    if d <= superior_within {
                        if mine_now.is_superior_or_equal(mine_then) {
                            return Repetition::Superior;
                        }
                        if mine_then.is_superior_or_equal(mine_now) {
                            return Repetition::Inferior;
                        }
                    }
                }
            }
            d += 1;
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
    /// Every legal check is a candidate, but one that leaves one of the enemy king's free
    /// flights uncovered by the moved piece (on an empty board, so a superset of what it
    /// covers) is skipped before it is played. A flight covered only by a slider the move
    /// uncovers is missed that way, so a rare mate may be missed; a reported mate is always
    /// real. Non-promotions of pawns, bishops and rooks are skipped: where they mate, the
    /// promotion mates too (its piece attacks a superset of squares).
    pub fn mate_in_one(&mut self) -> Option<Move> {
        let us = self.side;
        let them = !us;
        let ek = self.kings[them.index()]?;
        let occ_without_king = self.occupied().without(ek);
        let mut free = Bitboard::EMPTY;
        for f in king_attacks(ek) - self.by_color[them.index()] {
            if !self.is_attacked(us, f, occ_without_king) {
                free |= Bitboard::from_square(f);
            }
        }
        if !self.some_piece_could_cover(free, ek) {
            return None;
        }
        let mut checks = MoveList::new();
        generate_checks(self, &mut checks);
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
            let covered = attacks(us, kind, m.to(), Bitboard::EMPTY).with(m.to());
            if (free - covered).any() {
                continue;
            }
            self.do_move(m);
            let escapes = self.has_legal_move();
            self.undo_move(m);
            if !escapes {
                return Some(m);
            }
        }
        None
    }

    /// The mate-in-one filter of [`Position::mate_in_one`], for all moves at once: whether
    /// some kind the side to move could put on a square (a hand piece, or a board piece,
    /// promoted or not) would, from a square where it checks `ek`, cover every square of
    /// `free` (empty-board attacks, or standing on it). Most positions fail this, and then no
    /// check needs to be generated.
    fn some_piece_could_cover(&self, free: Bitboard, ek: Square) -> bool {
        let us = self.side;
        let them = !us;
        let hand = self.hands[us.index()];
        let ours = self.by_color[us.index()];
        for kind in PieceKind::ALL {
            if kind == PieceKind::King {
                continue;
            }
            let available = (kind.is_hand_kind() && hand.has(kind))
                || (self.by_kind[kind.index()] & ours).any()
                || PieceKind::HAND.iter().any(|&base| {
                    base.promote() == Some(kind) && (self.by_kind[base.index()] & ours).any()
                });
            if !available {
                continue;
            }
            // Squares from which `kind` of `us` attacks the king, on an empty board.
            let mut to = attacks(them, kind, ek, Bitboard::EMPTY);
            for f in free {
                to &= attacks(them, kind, f, Bitboard::EMPTY).with(f);
                if to.is_empty() {
                    break;
                }
            }
            if to.any() {
                return true;
            }
        }
        false
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

#[cfg(test)]
mod tests {
    use super::*;

    fn play(p: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = p.parse_usi_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            p.do_move(mv);
        }
    }

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
            p.mate_in_one().map(|m| m.to_string()).as_deref(),
            Some("1c1b")
        );
        // Without the second gold nothing mates.
        let mut p = Position::from_sfen("7nk/9/8G/9/9/9/9/9/K8 b P 1").unwrap();
        assert_eq!(p.mate_in_one(), None);
        let mut q = Position::from_sfen("7nk/9/8G/9/9/9/9/9/K8 b G 1").unwrap();
        let m = q.mate_in_one().expect("mate in one").to_string();
        assert!(m == "G*1b" || m == "G*2b", "{m}");
        let mut s = Position::startpos();
        assert_eq!(s.mate_in_one(), None);
        assert!(s.has_legal_move());
        let m = q.parse_usi_move("G*1b").unwrap();
        q.do_move(m);
        assert!(!q.has_legal_move());
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
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let checking = legal.iter().copied().find(|&m| p.gives_check(m));
                    let m = match checking {
                        Some(m) if (seed >> 60) < 8 => m,
                        _ => legal[(seed >> 33) as usize % legal.len()],
                    };
                    p.do_move(m);
                }
            }
        }
        assert!(in_check > 500, "{in_check}");
    }

    /// Every mate found is a mate, in random positions the fast "any legal move" agrees with
    /// full generation, and `key_after` with `do_move`.
    #[test]
    fn agrees_with_generation_in_random_games() {
        let mut seed = 5u64;
        for _ in 0..20 {
            let mut p = Position::startpos();
            for _ in 0..150 {
                let legal = p.legal_moves();
                assert_eq!(p.has_legal_move(), !legal.is_empty(), "{}", p.to_sfen());
                for &m in legal.as_slice() {
                    let mut q = p.clone();
                    q.do_move(m);
                    assert_eq!(p.key_after(m), q.key(), "{m} in {}", p.to_sfen());
                }
                if let Some(m) = p.clone().mate_in_one() {
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
}
