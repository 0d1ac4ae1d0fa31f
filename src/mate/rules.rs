//! A compact shogi position private to the mate solver: SFEN, do/undo, legal checks and
//! evasions, pawn-drop mate (打ち歩詰め), nifu (二歩), dead-end pieces (行き所のない駒).
//!
//! Why this exists: the rules core (`src/shogi`) was being written in parallel and had no move
//! generator yet when the solver was built. This is the "private helper" the brief allows: a
//! small mailbox board (81 squares, file-major like the core, `SQ11 = 0`) with legality by
//! make/unmake and an attack test. It is correct rather than fast; the solver reaches it only
//! through [`super::board::MateBoard`], so switching to the core's generators is an adapter.
//!
//! Invariants: `board[sq]` is 0 (empty) or `color << 4 | kind` with kinds 1..=14 as below;
//! either king may be missing (tsume positions often lack the attacker's king); a move carries
//! the captured piece so `undo_move` needs no history.

use std::fmt;

use super::board::MateBoard;
use super::hand::{HandKind, MateHand};

// Piece kinds (the low 4 bits of a board cell).
const PAWN: u8 = 1;
const LANCE: u8 = 2;
const KNIGHT: u8 = 3;
const SILVER: u8 = 4;
const GOLD: u8 = 5;
const BISHOP: u8 = 6;
const ROOK: u8 = 7;
const KING: u8 = 8;
const PRO_PAWN: u8 = 9;
const PRO_LANCE: u8 = 10;
const PRO_KNIGHT: u8 = 11;
const PRO_SILVER: u8 = 12;
const HORSE: u8 = 13;
const DRAGON: u8 = 14;

const WHITE_BIT: u8 = 16;
const NO_SQ: u8 = 81;

/// Black (sente, 0) or White (gote, 1).
pub type Side = usize;

#[inline]
fn color_of(p: u8) -> Side {
    usize::from(p & WHITE_BIT != 0)
}

#[inline]
fn kind_of(p: u8) -> u8 {
    p & 15
}

fn promoted(kind: u8) -> u8 {
    match kind {
        PAWN => PRO_PAWN,
        LANCE => PRO_LANCE,
        KNIGHT => PRO_KNIGHT,
        SILVER => PRO_SILVER,
        BISHOP => HORSE,
        ROOK => DRAGON,
        k => k,
    }
}

fn demoted(kind: u8) -> u8 {
    match kind {
        PRO_PAWN => PAWN,
        PRO_LANCE => LANCE,
        PRO_KNIGHT => KNIGHT,
        PRO_SILVER => SILVER,
        HORSE => BISHOP,
        DRAGON => ROOK,
        k => k,
    }
}

fn can_promote(kind: u8) -> bool {
    matches!(kind, PAWN | LANCE | KNIGHT | SILVER | BISHOP | ROOK)
}

/// Hand index (0..7) of a hand kind (PAWN..ROOK).
#[inline]
fn hand_index(kind: u8) -> usize {
    usize::from(kind - 1)
}

fn hand_kind(kind: u8) -> HandKind {
    HandKind::ALL[hand_index(kind)]
}

/// Step directions as (file delta, rank delta) for Black; White negates the rank delta.
/// Rank 0 is rank a (Black's far side), so Black moves forward with a negative rank delta.
const KING_STEPS: [(i8, i8); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
const GOLD_STEPS: [(i8, i8); 6] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const SILVER_STEPS: [(i8, i8); 5] = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const KNIGHT_STEPS: [(i8, i8); 2] = [(-1, -2), (1, -2)];
const PAWN_STEPS: [(i8, i8); 1] = [(0, -1)];
const ORTHO: [(i8, i8); 4] = [(0, -1), (-1, 0), (1, 0), (0, 1)];
const DIAG: [(i8, i8); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
const LANCE_RAY: [(i8, i8); 1] = [(0, -1)];

fn steps(kind: u8) -> &'static [(i8, i8)] {
    match kind {
        PAWN => &PAWN_STEPS,
        KNIGHT => &KNIGHT_STEPS,
        SILVER => &SILVER_STEPS,
        GOLD | PRO_PAWN | PRO_LANCE | PRO_KNIGHT | PRO_SILVER => &GOLD_STEPS,
        KING => &KING_STEPS,
        HORSE => &ORTHO,
        DRAGON => &DIAG,
        _ => &[],
    }
}

fn rays(kind: u8) -> &'static [(i8, i8)] {
    match kind {
        LANCE => &LANCE_RAY,
        BISHOP | HORSE => &DIAG,
        ROOK | DRAGON => &ORTHO,
        _ => &[],
    }
}

/// Board-frame directions: the eight king steps (indices 0..8, as in [`KING_STEPS`], whose
/// rank deltas are board deltas), then knight jumps (8, 9: up; 10, 11: down).
const DIRS: [(i8, i8); 12] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, -2),
    (1, -2),
    (-1, 2),
    (1, 2),
];

/// Precomputed geometry: why — `offset` needs a division per step, and the attack test and
/// move generation step millions of times per second.
struct Tables {
    /// `next[dir][sq]`: the square one step away, or `NO_SQ`.
    next: [[u8; 81]; 12],
    /// `steps[color][kind]`: bit d set if the piece steps in board direction d.
    steps: [[u16; 16]; 2],
    /// `rays[color][kind]`: bit d set if the piece slides in board direction d.
    rays: [[u16; 16]; 2],
    /// `lines[sq]`: every square on the eight lines through `sq` (bit = square index).
    lines: [u128; 81],
    /// `knights[sq]`: the four squares a knight jump away from `sq`.
    knights: [u128; 81],
}

fn dir_index(df: i8, dr: i8) -> usize {
    DIRS.iter()
        .position(|&d| d == (df, dr))
        .expect("a known direction")
}

fn tables() -> &'static Tables {
    static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = Tables {
            next: [[NO_SQ; 81]; 12],
            steps: [[0; 16]; 2],
            rays: [[0; 16]; 2],
            lines: [0; 81],
            knights: [0; 81],
        };
        for (d, &(df, dr)) in DIRS.iter().enumerate() {
            for sq in 0..81u8 {
                t.next[d][sq as usize] = offset(sq, df, dr).unwrap_or(NO_SQ);
            }
        }
        for sq in 0..81usize {
            for d in 0..8 {
                let mut cur = t.next[d][sq];
                while cur != NO_SQ {
                    t.lines[sq] |= 1u128 << cur;
                    cur = t.next[d][cur as usize];
                }
            }
            for d in 8..12 {
                let to = t.next[d][sq];
                if to != NO_SQ {
                    t.knights[sq] |= 1u128 << to;
                }
            }
        }
        for color in 0..2 {
            let sign: i8 = if color == 0 { 1 } else { -1 };
            for kind in 1..=DRAGON {
                for &(df, dr) in steps(kind) {
                    t.steps[color][kind as usize] |= 1 << dir_index(df, dr * sign);
                }
                for &(df, dr) in rays(kind) {
                    t.rays[color][kind as usize] |= 1 << dir_index(df, dr * sign);
                }
            }
        }
        t
    })
}

/// The opposite of a king-step direction (0..8).
#[inline]
fn opposite(d: usize) -> usize {
    7 - d
}

#[inline]
fn offset(sq: u8, df: i8, dr: i8) -> Option<u8> {
    let f = (sq / 9) as i8 + df;
    let r = (sq % 9) as i8 + dr;
    if (0..9).contains(&f) && (0..9).contains(&r) {
        Some((f * 9 + r) as u8)
    } else {
        None
    }
}

/// Rank index counted from the side's own far edge (0 = the last rank for that side).
#[inline]
fn rank_from_far(sq: u8, side: Side) -> u8 {
    if side == 0 {
        sq % 9
    } else {
        8 - sq % 9
    }
}

/// A move; carries the captured cell so it can be undone without history.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RMove {
    from: u8,
    to: u8,
    /// The dropped kind for drops (`from == NO_SQ`), else 0.
    drop: u8,
    promote: bool,
    captured: u8,
}

impl RMove {
    pub fn is_drop(self) -> bool {
        self.from == NO_SQ
    }
}

fn square_text(sq: u8) -> String {
    format!("{}{}", sq / 9 + 1, (b'a' + sq % 9) as char)
}

impl fmt::Display for RMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const LETTERS: [char; 7] = ['P', 'L', 'N', 'S', 'G', 'B', 'R'];
        if self.is_drop() {
            write!(
                f,
                "{}*{}",
                LETTERS[hand_index(self.drop)],
                square_text(self.to)
            )
        } else {
            write!(
                f,
                "{}{}{}",
                square_text(self.from),
                square_text(self.to),
                if self.promote { "+" } else { "" }
            )
        }
    }
}

impl fmt::Debug for RMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why an SFEN or a move text was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RulesError {
    #[error("bad SFEN: {0}")]
    Sfen(String),
    #[error("bad or illegal move: {0}")]
    Move(String),
}

/// Zobrist keys: a small xorshift generator filled at first use.
struct Keys {
    piece: [[u64; 81]; 32],
    hand: [[u64; 7]; 2],
    side: u64,
}

fn keys() -> &'static Keys {
    static KEYS: std::sync::OnceLock<Keys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut s: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut k = Keys {
            piece: [[0; 81]; 32],
            hand: [[0; 7]; 2],
            side: 0,
        };
        for row in k.piece.iter_mut() {
            for v in row.iter_mut() {
                *v = next() & !1;
            }
        }
        for row in k.hand.iter_mut() {
            for v in row.iter_mut() {
                *v = next() & !1;
            }
        }
        k.side = 1;
        k
    })
}

/// A shogi position with the attacker fixed (the side to move when it was loaded).
#[derive(Clone)]
pub struct TsumePosition {
    board: [u8; 81],
    hands: [[u8; 7]; 2],
    side: Side,
    kings: [u8; 2],
    key: u64,
    /// Sum of `hand[side][kind] * count` over both hands (incremental, for `position_key`).
    hand_key: u64,
    attacker: Side,
    /// The moves played since loading (for repetition outside the solver and for tests).
    played: Vec<RMove>,
}

impl TsumePosition {
    /// Parse `sfen <board> <side> <hands> [<ply>]`, the bare four fields, or `startpos`.
    pub fn from_sfen(text: &str) -> Result<TsumePosition, RulesError> {
        let text = text.trim();
        let text = text.strip_prefix("sfen ").unwrap_or(text);
        let text = if text == "startpos" {
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
        } else {
            text
        };
        let bad = |why: &str| RulesError::Sfen(format!("{why}: {text}"));
        let mut fields = text.split_whitespace();
        let board_text = fields.next().ok_or_else(|| bad("empty"))?;
        let side_text = fields.next().ok_or_else(|| bad("no side to move"))?;
        let hand_text = fields.next().unwrap_or("-");
        let mut pos = TsumePosition {
            board: [0; 81],
            hands: [[0; 7]; 2],
            side: 0,
            kings: [NO_SQ; 2],
            key: 0,
            hand_key: 0,
            attacker: 0,
            played: Vec::new(),
        };
        let ranks: Vec<&str> = board_text.split('/').collect();
        if ranks.len() != 9 {
            return Err(bad("need 9 ranks"));
        }
        for (r, rank) in ranks.iter().enumerate() {
            let mut file: i32 = 8; // file 9 first
            let mut promote = false;
            for ch in rank.chars() {
                if let Some(d) = ch.to_digit(10) {
                    if promote || d == 0 {
                        return Err(bad("bad digit"));
                    }
                    file -= d as i32;
                    continue;
                }
                if ch == '+' {
                    promote = true;
                    continue;
                }
                if file < 0 {
                    return Err(bad("rank too long"));
                }
                let kind = match ch.to_ascii_uppercase() {
                    'P' => PAWN,
                    'L' => LANCE,
                    'N' => KNIGHT,
                    'S' => SILVER,
                    'G' => GOLD,
                    'B' => BISHOP,
                    'R' => ROOK,
                    'K' => KING,
                    _ => return Err(bad("bad piece letter")),
                };
                if promote && !can_promote(kind) {
                    return Err(bad("piece cannot promote"));
                }
                let kind = if promote { promoted(kind) } else { kind };
                promote = false;
                let color = usize::from(ch.is_ascii_lowercase());
                let sq = (file * 9 + r as i32) as u8;
                if kind == KING {
                    if pos.kings[color] != NO_SQ {
                        return Err(bad("two kings of one side"));
                    }
                    pos.kings[color] = sq;
                }
                pos.board[sq as usize] = kind | if color == 1 { WHITE_BIT } else { 0 };
                file -= 1;
            }
            if file != -1 || promote {
                return Err(bad("rank does not fill 9 files"));
            }
        }
        pos.side = match side_text {
            "b" => 0,
            "w" => 1,
            _ => return Err(bad("side must be b or w")),
        };
        if hand_text != "-" {
            let mut count: u32 = 0;
            for ch in hand_text.chars() {
                if let Some(d) = ch.to_digit(10) {
                    count = count * 10 + d;
                    if count > 18 {
                        return Err(bad("hand count too large"));
                    }
                    continue;
                }
                let kind = match ch.to_ascii_uppercase() {
                    'P' => PAWN,
                    'L' => LANCE,
                    'N' => KNIGHT,
                    'S' => SILVER,
                    'G' => GOLD,
                    'B' => BISHOP,
                    'R' => ROOK,
                    _ => return Err(bad("bad hand letter")),
                };
                let color = usize::from(ch.is_ascii_lowercase());
                let n = if count == 0 { 1 } else { count };
                let slot = &mut pos.hands[color][hand_index(kind)];
                *slot = slot.saturating_add(n as u8);
                count = 0;
            }
        }
        pos.attacker = pos.side;
        pos.key = pos.compute_key();
        let k = keys();
        for side in 0..2 {
            for i in 0..7 {
                pos.hand_key = pos
                    .hand_key
                    .wrapping_add(k.hand[side][i].wrapping_mul(u64::from(pos.hands[side][i])));
            }
        }
        Ok(pos)
    }

    fn compute_key(&self) -> u64 {
        let k = keys();
        let mut key = 0;
        for sq in 0..81 {
            let p = self.board[sq];
            if p != 0 {
                key ^= k.piece[p as usize][sq];
            }
        }
        if self.side == 1 {
            key ^= k.side;
        }
        key
    }

    /// Side to move.
    pub fn side_to_move(&self) -> Side {
        self.side
    }

    /// The moves played since loading.
    pub fn played(&self) -> &[RMove] {
        &self.played
    }

    /// Whether `side`'s king (if any) is attacked.
    pub fn king_in_check(&self, side: Side) -> bool {
        let k = self.kings[side];
        k != NO_SQ && self.attacked(k, 1 - side)
    }

    /// Whether `sq` is attacked by a piece of `by`.
    fn attacked(&self, sq: u8, by: Side) -> bool {
        let t = tables();
        let by_bit = if by == 1 { WHITE_BIT } else { 0 };
        // Look outward from `sq`; a piece of `by` found in direction d reaches `sq` by moving
        // in the opposite direction.
        for d in 0..8 {
            let back = 1u16 << opposite(d);
            let mut cur = t.next[d][sq as usize];
            let mut first = true;
            while cur != NO_SQ {
                let p = self.board[cur as usize];
                if p != 0 {
                    if color_of(p) == by {
                        let kind = kind_of(p) as usize;
                        if (first && t.steps[by][kind] & back != 0) || t.rays[by][kind] & back != 0
                        {
                            return true;
                        }
                    }
                    break;
                }
                first = false;
                cur = t.next[d][cur as usize];
            }
        }
        // A knight of `by` jumps towards `sq` from the opposite side.
        let (k1, k2) = if by == 0 { (10, 11) } else { (8, 9) };
        for kd in [k1, k2] {
            let from = t.next[kd][sq as usize];
            if from != NO_SQ && self.board[from as usize] == KNIGHT | by_bit {
                return true;
            }
        }
        false
    }

    /// Play a move (must be pseudo-legal here).
    pub fn do_move(&mut self, m: RMove) {
        let k = keys();
        let us = self.side;
        let color_bit = if us == 1 { WHITE_BIT } else { 0 };
        if m.is_drop() {
            self.hands[us][hand_index(m.drop)] -= 1;
            self.hand_key = self.hand_key.wrapping_sub(k.hand[us][hand_index(m.drop)]);
            let p = m.drop | color_bit;
            self.board[m.to as usize] = p;
            self.key ^= k.piece[p as usize][m.to as usize];
        } else {
            let p = self.board[m.from as usize];
            self.board[m.from as usize] = 0;
            self.key ^= k.piece[p as usize][m.from as usize];
            if m.captured != 0 {
                self.key ^= k.piece[m.captured as usize][m.to as usize];
                let i = hand_index(demoted(kind_of(m.captured)));
                self.hands[us][i] += 1;
                self.hand_key = self.hand_key.wrapping_add(k.hand[us][i]);
                if kind_of(m.captured) == KING {
                    self.kings[1 - us] = NO_SQ;
                }
            }
            let np = if m.promote {
                promoted(kind_of(p)) | color_bit
            } else {
                p
            };
            self.board[m.to as usize] = np;
            self.key ^= k.piece[np as usize][m.to as usize];
            if kind_of(p) == KING {
                self.kings[us] = m.to;
            }
        }
        self.side = 1 - us;
        self.key ^= k.side;
        self.played.push(m);
    }

    /// Take back `m`, the last move played.
    pub fn undo_move(&mut self, m: RMove) {
        let k = keys();
        self.played.pop();
        self.side = 1 - self.side;
        self.key ^= k.side;
        let us = self.side;
        let color_bit = if us == 1 { WHITE_BIT } else { 0 };
        if m.is_drop() {
            let p = m.drop | color_bit;
            self.board[m.to as usize] = 0;
            self.key ^= k.piece[p as usize][m.to as usize];
            self.hands[us][hand_index(m.drop)] += 1;
            self.hand_key = self.hand_key.wrapping_add(k.hand[us][hand_index(m.drop)]);
        } else {
            let np = self.board[m.to as usize];
            self.key ^= k.piece[np as usize][m.to as usize];
            let p = if m.promote {
                demoted(kind_of(np)) | color_bit
            } else {
                np
            };
            self.board[m.from as usize] = p;
            self.key ^= k.piece[p as usize][m.from as usize];
            self.board[m.to as usize] = m.captured;
            if m.captured != 0 {
                self.key ^= k.piece[m.captured as usize][m.to as usize];
                let i = hand_index(demoted(kind_of(m.captured)));
                self.hands[us][i] -= 1;
                self.hand_key = self.hand_key.wrapping_sub(k.hand[us][i]);
                if kind_of(m.captured) == KING {
                    self.kings[1 - us] = m.to;
                }
            }
            if kind_of(p) == KING {
                self.kings[us] = m.from;
            }
        }
    }

    /// Board moves (pseudo-legal: own king safety not checked) of the side to move.
    fn board_moves(&self, out: &mut Vec<RMove>) {
        let t = tables();
        let us = self.side;
        for from in 0..81u8 {
            let p = self.board[from as usize];
            if p == 0 || color_of(p) != us {
                continue;
            }
            let kind = kind_of(p);
            let mut steps = t.steps[us][kind as usize];
            while steps != 0 {
                let d = steps.trailing_zeros() as usize;
                steps &= steps - 1;
                let to = t.next[d][from as usize];
                if to != NO_SQ {
                    self.push_board_move(out, from, to, kind);
                }
            }
            let mut rays = t.rays[us][kind as usize];
            while rays != 0 {
                let d = rays.trailing_zeros() as usize;
                rays &= rays - 1;
                let mut to = t.next[d][from as usize];
                while to != NO_SQ {
                    let q = self.board[to as usize];
                    if q != 0 && color_of(q) == us {
                        break;
                    }
                    self.push_board_move(out, from, to, kind);
                    if q != 0 {
                        break;
                    }
                    to = t.next[d][to as usize];
                }
            }
        }
    }

    fn push_board_move(&self, out: &mut Vec<RMove>, from: u8, to: u8, kind: u8) {
        let us = self.side;
        let q = self.board[to as usize];
        // Never capture a king: that only arises in illegal positions (a side left in check).
        if q != 0 && (color_of(q) == us || kind_of(q) == KING) {
            return;
        }
        let far = rank_from_far(to, us);
        let in_zone = far < 3 || rank_from_far(from, us) < 3;
        let must_promote = match kind {
            PAWN | LANCE => far == 0,
            KNIGHT => far <= 1,
            _ => false,
        };
        if can_promote(kind) && in_zone {
            out.push(RMove {
                from,
                to,
                drop: 0,
                promote: true,
                captured: q,
            });
        }
        if !must_promote {
            out.push(RMove {
                from,
                to,
                drop: 0,
                promote: false,
                captured: q,
            });
        }
    }

    /// Drops of the side to move onto `to` (empty), obeying nifu and dead-end rules.
    fn drops_to(&self, to: u8, out: &mut Vec<RMove>) {
        let us = self.side;
        let far = rank_from_far(to, us);
        for kind in PAWN..=ROOK {
            if self.hands[us][hand_index(kind)] == 0 {
                continue;
            }
            let dead = match kind {
                PAWN | LANCE => far == 0,
                KNIGHT => far <= 1,
                _ => false,
            };
            if dead || (kind == PAWN && self.pawn_on_file(us, to / 9)) {
                continue;
            }
            out.push(RMove {
                from: NO_SQ,
                to,
                drop: kind,
                promote: false,
                captured: 0,
            });
        }
    }

    fn pawn_on_file(&self, side: Side, file: u8) -> bool {
        let pawn = PAWN | if side == 1 { WHITE_BIT } else { 0 };
        (0..9).any(|r| self.board[(file * 9 + r) as usize] == pawn)
    }

    /// Whether `m` (pseudo-legal) is legal: own king safe and not a pawn-drop mate.
    fn is_legal_pseudo(&mut self, m: RMove) -> bool {
        let us = self.side;
        if !m.is_drop() && m.from == self.kings[us] {
            // A king move: lift the king (so sliders see through its square) and test the target.
            let king = self.board[m.from as usize];
            self.board[m.from as usize] = 0;
            let safe = !self.attacked(m.to, 1 - us);
            self.board[m.from as usize] = king;
            return safe;
        }
        self.do_move(m);
        let mut ok = !self.king_in_check(us);
        if ok && m.is_drop() && m.drop == PAWN && self.king_in_check(1 - us) {
            // Pawn-drop mate (打ち歩詰め) is illegal: the defender must have a legal reply.
            let mut replies = Vec::new();
            self.legal_moves_in_check(&mut replies, true);
            ok = !replies.is_empty();
        }
        self.undo_move(m);
        ok
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&mut self, out: &mut Vec<RMove>) {
        let mut pseudo = Vec::with_capacity(128);
        self.board_moves(&mut pseudo);
        for to in 0..81u8 {
            if self.board[to as usize] == 0 {
                self.drops_to(to, &mut pseudo);
            }
        }
        for m in pseudo {
            if self.is_legal_pseudo(m) {
                out.push(m);
            }
        }
    }

    /// Squares strictly between the side to move's king and each distant slider giving check.
    fn block_squares(&self, out: &mut Vec<u8>) {
        let t = tables();
        let us = self.side;
        let k = self.kings[us];
        if k == NO_SQ {
            return;
        }
        let them = 1 - us;
        for d in 0..8 {
            let back = 1u16 << opposite(d);
            let mark = out.len();
            let mut cur = t.next[d][k as usize];
            while cur != NO_SQ {
                let p = self.board[cur as usize];
                if p != 0 {
                    if color_of(p) != them || t.rays[them][kind_of(p) as usize] & back == 0 {
                        out.truncate(mark);
                    }
                    break;
                }
                out.push(cur);
                cur = t.next[d][cur as usize];
            }
            if cur == NO_SQ {
                out.truncate(mark);
            }
        }
    }

    /// Legal moves when in check: board moves plus drops between king and checker only.
    /// With `stop_at_one`, returns as soon as one is found (pawn-drop mate test).
    fn legal_moves_in_check(&mut self, out: &mut Vec<RMove>, stop_at_one: bool) {
        self.legal_moves_in_check_limited(out, if stop_at_one { 1 } else { usize::MAX });
    }

    /// As [`Self::legal_moves_in_check`], stopping once `out` holds `limit` moves.
    fn legal_moves_in_check_limited(&mut self, out: &mut Vec<RMove>, limit: usize) {
        let mut pseudo = Vec::with_capacity(64);
        self.board_moves(&mut pseudo);
        let (checkers, checker_sq) = self.checkers();
        let mut blocks = Vec::new();
        let mut block_mask: u128 = 0;
        if checkers == 1 {
            self.block_squares(&mut blocks);
            for &sq in &blocks {
                block_mask |= 1u128 << sq;
                self.drops_to(sq, &mut pseudo);
            }
        }
        let king = self.kings[self.side];
        for m in pseudo {
            // Only the king may move out of a double check; any other piece must capture the
            // checker or block. Cheap filters before the make/unmake legality test.
            if !m.is_drop()
                && m.from != king
                && (checkers != 1 || (m.to != checker_sq && block_mask & (1u128 << m.to) == 0))
            {
                continue;
            }
            // A drop between a single checker and the king blocks it and cannot expose the
            // king; only a pawn drop needs the full test (it might be a pawn-drop mate).
            if m.is_drop() && m.drop != PAWN {
                out.push(m);
                if out.len() >= limit {
                    return;
                }
                continue;
            }
            if self.is_legal_pseudo(m) {
                out.push(m);
                if out.len() >= limit {
                    return;
                }
            }
        }
    }

    /// The number of pieces checking the side to move's king, and one of their squares.
    fn checkers(&self) -> (u32, u8) {
        let t = tables();
        let us = self.side;
        let k = self.kings[us];
        if k == NO_SQ {
            return (0, NO_SQ);
        }
        let by = 1 - us;
        let by_bit = if by == 1 { WHITE_BIT } else { 0 };
        let (mut n, mut at) = (0, NO_SQ);
        for d in 0..8 {
            let back = 1u16 << opposite(d);
            let mut cur = t.next[d][k as usize];
            let mut first = true;
            while cur != NO_SQ {
                let p = self.board[cur as usize];
                if p != 0 {
                    if color_of(p) == by {
                        let kind = kind_of(p) as usize;
                        if (first && t.steps[by][kind] & back != 0) || t.rays[by][kind] & back != 0
                        {
                            n += 1;
                            at = cur;
                        }
                    }
                    break;
                }
                first = false;
                cur = t.next[d][cur as usize];
            }
        }
        let (k1, k2) = if by == 0 { (10, 11) } else { (8, 9) };
        for kd in [k1, k2] {
            let from = t.next[kd][k as usize];
            if from != NO_SQ && self.board[from as usize] == KNIGHT | by_bit {
                n += 1;
                at = from;
            }
        }
        (n, at)
    }

    /// Every legal move that gives check.
    pub fn legal_checks(&mut self, out: &mut Vec<RMove>) {
        let t = tables();
        let us = self.side;
        let them = 1 - us;
        let ek = self.kings[them];
        if ek == NO_SQ {
            return;
        }
        let mut pseudo = Vec::with_capacity(128);
        self.board_moves(&mut pseudo);
        // Drops can only check from squares where the dropped piece attacks the king: step
        // targets one step "back" from the king, ray targets along the empty line behind it.
        for kind in PAWN..=ROOK {
            if self.hands[us][hand_index(kind)] == 0 {
                continue;
            }
            let mut steps = t.steps[us][kind as usize];
            while steps != 0 {
                let d = steps.trailing_zeros() as usize;
                steps &= steps - 1;
                // The piece moves by d onto the king, so it stands at king - d.
                let sq = if d < 8 {
                    t.next[opposite(d)][ek as usize]
                } else {
                    // Knight jumps 8..12 pair up as 8<->11 and 9<->10.
                    t.next[d ^ 3][ek as usize]
                };
                if sq != NO_SQ && self.board[sq as usize] == 0 {
                    self.drop_of_kind(sq, kind, &mut pseudo);
                }
            }
            let mut rays = t.rays[us][kind as usize];
            while rays != 0 {
                let d = rays.trailing_zeros() as usize;
                rays &= rays - 1;
                let mut sq = t.next[opposite(d)][ek as usize];
                while sq != NO_SQ && self.board[sq as usize] == 0 {
                    self.drop_of_kind(sq, kind, &mut pseudo);
                    sq = t.next[opposite(d)][sq as usize];
                }
            }
        }
        // A board move can check only directly (to on a line or a knight jump from the king)
        // or by discovery (from on a line through the king); drops above always check.
        let direct = t.lines[ek as usize] | t.knights[ek as usize];
        let discover = t.lines[ek as usize];
        for m in pseudo {
            if !m.is_drop() && direct & (1u128 << m.to) == 0 && discover & (1u128 << m.from) == 0 {
                continue;
            }
            self.do_move(m);
            let ok = self.king_in_check(them) && !self.king_in_check(us);
            self.undo_move(m);
            if ok && (!m.is_drop() || m.drop != PAWN || self.is_legal_pseudo(m)) {
                out.push(m);
            }
        }
    }

    /// A drop of `kind` on the empty `to`, if the rules allow it there.
    fn drop_of_kind(&self, to: u8, kind: u8, out: &mut Vec<RMove>) {
        let us = self.side;
        let far = rank_from_far(to, us);
        let dead = match kind {
            PAWN | LANCE => far == 0,
            KNIGHT => far <= 1,
            _ => false,
        };
        if dead || (kind == PAWN && self.pawn_on_file(us, to / 9)) {
            return;
        }
        out.push(RMove {
            from: NO_SQ,
            to,
            drop: kind,
            promote: false,
            captured: 0,
        });
    }

    /// Parse a USI move and check it is legal here.
    pub fn parse_move(&mut self, text: &str) -> Result<RMove, RulesError> {
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        legal
            .into_iter()
            .find(|m| m.to_string() == text)
            .ok_or_else(|| RulesError::Move(text.to_string()))
    }

    /// Whether the side to move is in check.
    pub fn in_check_now(&self) -> bool {
        self.king_in_check(self.side)
    }

    /// Treat the side to move as the attacker (after playing moves from the loaded position).
    pub fn set_attacker_to_side_to_move(&mut self) {
        self.attacker = self.side;
    }

    fn hand_of(&self, side: Side) -> MateHand {
        let mut h = MateHand::EMPTY;
        for (i, kind) in HandKind::ALL.iter().enumerate() {
            h.set(*kind, u32::from(self.hands[side][i]));
        }
        h
    }
}

impl MateBoard for TsumePosition {
    type Move = RMove;

    fn board_key(&self) -> u64 {
        self.key
    }

    fn position_key(&self) -> u64 {
        let k = keys();
        let mut key = self.key;
        for side in 0..2 {
            for i in 0..7 {
                key =
                    key.wrapping_add(k.hand[side][i].wrapping_mul(u64::from(self.hands[side][i])));
            }
        }
        key
    }

    fn attacker_hand(&self) -> MateHand {
        self.hand_of(self.attacker)
    }

    fn defender_hand(&self) -> MateHand {
        self.hand_of(1 - self.attacker)
    }

    fn generate_or_moves(&mut self, out: &mut Vec<RMove>) {
        self.legal_checks(out);
    }

    fn generate_and_moves(&mut self, out: &mut Vec<RMove>) {
        if self.in_check_now() {
            self.legal_moves_in_check(out, false);
        } else {
            self.legal_moves(out);
        }
    }

    fn count_and_moves(&mut self, limit: usize) -> usize {
        let mut moves = Vec::new();
        if self.in_check_now() {
            self.legal_moves_in_check_limited(&mut moves, limit);
        } else {
            self.legal_moves(&mut moves);
        }
        moves.len().min(limit)
    }

    fn delay_group(&self, m: RMove) -> Option<u16> {
        if m.is_drop() {
            // Only interpositions (the side to move is in check) are chained.
            self.in_check_now().then_some(u16::from(m.to))
        } else if matches!(kind_of(self.board[m.from as usize]), PAWN | BISHOP | ROOK)
            && (rank_from_far(m.to, self.side) < 3 || rank_from_far(m.from, self.side) < 3)
        {
            // Not promoting a pawn, bishop or rook is rarely better (it can dodge a pawn-drop
            // mate or similar), so it waits for the promotion to be refuted. Lances, knights
            // and silvers often decline on purpose and keep both forms active.
            Some(100 + u16::from(m.from) * 81 + u16::from(m.to))
        } else {
            None
        }
    }

    fn do_move(&mut self, m: RMove) {
        TsumePosition::do_move(self, m);
    }

    fn undo_move(&mut self, m: RMove) {
        TsumePosition::undo_move(self, m);
    }

    fn dropped_kind(&self, m: RMove) -> Option<HandKind> {
        m.is_drop().then(|| hand_kind(m.drop))
    }

    fn captured_kind(&self, m: RMove) -> Option<HandKind> {
        let c = kind_of(m.captured);
        (m.captured != 0 && c != KING).then(|| hand_kind(demoted(c)))
    }

    fn check_is_blockable(&self) -> bool {
        let mut blocks = Vec::new();
        self.block_squares(&mut blocks);
        !blocks.is_empty()
    }

    fn in_check(&self) -> bool {
        self.in_check_now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perft(pos: &mut TsumePosition, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut n = 0;
        for m in moves {
            pos.do_move(m);
            n += perft(pos, depth - 1);
            pos.undo_move(m);
        }
        n
    }

    #[test]
    fn startpos_perft_matches_known_counts() {
        let mut pos = TsumePosition::from_sfen("startpos").unwrap();
        let key = pos.board_key();
        assert_eq!(perft(&mut pos, 1), 30);
        assert_eq!(perft(&mut pos, 2), 900);
        assert_eq!(perft(&mut pos, 3), 25470);
        assert_eq!(pos.board_key(), key);
    }

    #[test]
    fn bad_sfens_are_errors() {
        for bad in [
            "",
            "9/9/9 b -",
            "10/9/9/9/9/9/9/9/9 b -",
            "9/9/9/9/9/9/9/9/9 x -",
            "+K8/9/9/9/9/9/9/9/9 b -",
        ] {
            assert!(TsumePosition::from_sfen(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pawn_drop_mate_is_not_a_legal_check() {
        // White king 1a boxed in by its own knights; a pawn drop on 1b (guarded by the silver)
        // would mate.
        let mut pos = TsumePosition::from_sfen("7nk/7n1/7S1/9/9/9/9/9/9 b P 1").unwrap();
        let mut checks = Vec::new();
        pos.legal_checks(&mut checks);
        assert!(
            !checks.iter().any(|m| m.to_string() == "P*1b"),
            "{checks:?}"
        );
        // Without the guarding silver the king takes the pawn, so the drop is a legal check.
        let mut pos = TsumePosition::from_sfen("7nk/7n1/9/9/9/9/9/9/9 b P 1").unwrap();
        let mut checks = Vec::new();
        pos.legal_checks(&mut checks);
        assert!(checks.iter().any(|m| m.to_string() == "P*1b"), "{checks:?}");
    }

    #[test]
    fn checks_match_filtered_legal_moves() {
        let sfens = [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "6Snl/5+Rg1k/6ppp/9/9/9/9/9/9 b r2b3g3s3n3l15p 1",
            "k3l3R/p4s3/9/N8/4p4/4KBB2/9/1pp+l+l+l+n+n+n/+s+s+sggggr1 b 14p 1",
            "5rk2/6B2/9/5B3/8N/9/9/9/9 b GPr3g4s3n4l17p 1",
            "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLP 1",
            "4k4/9/9/9/9/9/9/9/4K4 w rbgsnlp 1",
            "9/9/9/9/4k4/9/9/9/4K4 b RBGSNLP 1",
            "4k4/9/9/9/4K4/9/9/9/9 w rbgsnlp 1",
        ];
        for sfen in sfens {
            let mut pos = TsumePosition::from_sfen(sfen).unwrap();
            let mut all = Vec::new();
            pos.legal_moves(&mut all);
            let them = 1 - pos.side_to_move();
            let mut expected: Vec<String> = Vec::new();
            for m in all {
                pos.do_move(m);
                if pos.king_in_check(them) {
                    expected.push(m.to_string());
                }
                pos.undo_move(m);
            }
            let mut checks = Vec::new();
            pos.legal_checks(&mut checks);
            let mut got: Vec<String> = checks.iter().map(|m| m.to_string()).collect();
            expected.sort();
            got.sort();
            assert_eq!(got, expected, "{sfen}");
        }
    }
}
