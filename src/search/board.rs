//! A shogi position private to the search: mailbox board, incremental Zobrist key,
//! pseudo-legal move generation with a cheap legality test, SEE, one-ply mate detection,
//! repetition (千日手) with perpetual check and superior/inferior positions, and the CSA
//! 27-point entering-king declaration (入玉宣言).
//!
//! Why this exists: the rules core (`src/shogi`) was being written in parallel and had no
//! position or move generator when the search was built. This is the "private helper" the
//! brief allows. The search reaches the rules only through this file, so moving to the
//! core's bitboard position later is a change of this file alone.
//!
//! Layout: squares are file-major like the core (`index = (file-1)*9 + (rank-1)`, 1一 = 0);
//! a board cell is 0 (empty) or `color << 4 | (kind + 1)` with kinds in the order of
//! [`PAWN`]..[`DRAGON`]. Rays and step targets are precomputed once ([`tables`]).
//!
//! Search-only simplification (as YaneuraOu's default generator): non-promotions of pawns,
//! bishops and rooks where promotion is possible are not generated, except by
//! [`legal_moves_all`] (used to accept any legal USI move from a GUI).

use std::fmt;
use std::mem::MaybeUninit;
use std::num::NonZeroU16;
use std::sync::OnceLock;

use super::tt::TranspositionTable;

// ---------------------------------------------------------------------------------------------
// Kinds and pieces.
// ---------------------------------------------------------------------------------------------

/// A piece kind index, in the order of the core's `PieceKind`.
pub type Kind = usize;
pub const KINDS: usize = 14;
pub const PAWN: Kind = 0;
pub const LANCE: Kind = 1;
pub const KNIGHT: Kind = 2;
pub const SILVER: Kind = 3;
pub const GOLD: Kind = 4;
pub const BISHOP: Kind = 5;
pub const ROOK: Kind = 6;
pub const KING: Kind = 7;
pub const PRO_PAWN: Kind = 8;
pub const PRO_LANCE: Kind = 9;
pub const PRO_KNIGHT: Kind = 10;
pub const PRO_SILVER: Kind = 11;
pub const HORSE: Kind = 12;
pub const DRAGON: Kind = 13;

/// Kinds that can be held in hand, in hand-index order (hand index = kind index).
pub const HAND_KINDS: [Kind; 7] = [PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK];

/// The promoted form of `k`, if it promotes.
#[inline]
pub fn promoted(k: Kind) -> Option<Kind> {
    match k {
        PAWN => Some(PRO_PAWN),
        LANCE => Some(PRO_LANCE),
        KNIGHT => Some(PRO_KNIGHT),
        SILVER => Some(PRO_SILVER),
        BISHOP => Some(HORSE),
        ROOK => Some(DRAGON),
        _ => None,
    }
}

/// The unpromoted form of `k` (what a capture puts in hand).
#[inline]
pub fn unpromoted(k: Kind) -> Kind {
    match k {
        PRO_PAWN => PAWN,
        PRO_LANCE => LANCE,
        PRO_KNIGHT => KNIGHT,
        PRO_SILVER => SILVER,
        HORSE => BISHOP,
        DRAGON => ROOK,
        k => k,
    }
}

#[inline]
fn cell(color: usize, kind: Kind) -> u8 {
    ((color as u8) << 4) | (kind as u8 + 1)
}

#[inline]
fn cell_color(c: u8) -> usize {
    (c >> 4) as usize
}

#[inline]
fn cell_kind(c: u8) -> Kind {
    (c & 15) as usize - 1
}

const SFEN_LETTERS: [char; 8] = ['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K'];

// ---------------------------------------------------------------------------------------------
// Moves.
// ---------------------------------------------------------------------------------------------

/// A move: bits 0..7 destination, 7..14 origin (0..81) or `81 + kind` for a drop, bit 14
/// promotion. Never zero (a move to 1一 from 1一 cannot exist), so `Option<Move>` is 2 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

impl Move {
    #[inline]
    fn new(from: usize, to: usize, promote: bool) -> Move {
        let raw = to as u16 | (from as u16) << 7 | (promote as u16) << 14;
        Move(NonZeroU16::new(raw).expect("from != to"))
    }

    #[inline]
    fn drop(kind: Kind, to: usize) -> Move {
        Move::new(81 + kind, to, false)
    }

    /// Destination square index.
    #[inline]
    pub fn to(self) -> usize {
        (self.0.get() & 0x7F) as usize
    }

    /// Origin square index, `None` for drops.
    #[inline]
    pub fn from(self) -> Option<usize> {
        let f = ((self.0.get() >> 7) & 0x7F) as usize;
        (f < 81).then_some(f)
    }

    #[inline]
    pub fn is_drop(self) -> bool {
        ((self.0.get() >> 7) & 0x7F) >= 81
    }

    /// The dropped kind (meaningful for drops only).
    #[inline]
    pub fn drop_kind(self) -> Kind {
        ((self.0.get() >> 7) & 0x7F) as usize - 81
    }

    #[inline]
    pub fn is_promotion(self) -> bool {
        self.0.get() & (1 << 14) != 0
    }

    #[inline]
    pub fn raw(self) -> u16 {
        self.0.get()
    }

    /// A move from its raw bits, if they can describe a move at all (the caller still checks
    /// it against a position).
    #[inline]
    pub fn from_raw(raw: u16) -> Option<Move> {
        let to = raw & 0x7F;
        let from = (raw >> 7) & 0x7F;
        if raw >> 15 != 0 || to >= 81 || from >= 81 + 7 || from == to {
            return None;
        }
        if from >= 81 && raw & (1 << 14) != 0 {
            return None;
        }
        NonZeroU16::new(raw).map(Move)
    }
}

fn write_square(f: &mut fmt::Formatter<'_>, sq: usize) -> fmt::Result {
    write!(f, "{}{}", sq / 9 + 1, (b'a' + (sq % 9) as u8) as char)
}

/// USI text: `7g7f`, `8h2b+`, `P*5e`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from() {
            None => {
                write!(f, "{}*", SFEN_LETTERS[self.drop_kind()])?;
                write_square(f, self.to())
            }
            Some(from) => {
                write_square(f, from)?;
                write_square(f, self.to())?;
                if self.is_promotion() {
                    f.write_str("+")?;
                }
                Ok(())
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Geometry tables.
// ---------------------------------------------------------------------------------------------

/// Direction deltas (file, rank) for Black; "north" is toward rank 一 (rank index 0).
/// Ordered so that `d ^ 1` is the opposite direction (a 180° turn: White's view).
const DIRS: [(i32, i32); 8] = [
    (0, -1),  // N
    (0, 1),   // S
    (-1, 0),  // E (toward file 1)
    (1, 0),   // W
    (-1, -1), // NE
    (1, 1),   // SW
    (1, -1),  // NW
    (-1, 1),  // SE
];
const N: usize = 0;
const S: usize = 1;
const E: usize = 2;
const W: usize = 3;
const NE: usize = 4;
const SW: usize = 5;
const NW: usize = 6;
const SE: usize = 7;
const ORTH: [usize; 4] = [N, S, E, W];
const DIAG: [usize; 4] = [NE, NW, SE, SW];

/// The direction as seen by `color` (White's north is Black's south).
#[inline]
fn rel_dir(color: usize, d: usize) -> usize {
    if color == 0 {
        d
    } else {
        d ^ 1
    }
}

/// Step directions (Black's view) of the non-sliding part of each kind.
fn step_dirs(kind: Kind) -> &'static [usize] {
    const GOLD_DIRS: [usize; 6] = [N, NE, NW, E, W, S];
    match kind {
        PAWN => &[N],
        SILVER => &[N, NE, NW, SE, SW],
        GOLD | PRO_PAWN | PRO_LANCE | PRO_KNIGHT | PRO_SILVER => &GOLD_DIRS,
        KING => &[N, S, E, W, NE, NW, SE, SW],
        HORSE => &ORTH,
        DRAGON => &DIAG,
        _ => &[],
    }
}

/// Sliding directions (Black's view) of each kind.
fn slide_dirs(kind: Kind) -> &'static [usize] {
    match kind {
        LANCE => &[N],
        BISHOP | HORSE => &DIAG,
        ROOK | DRAGON => &ORTH,
        _ => &[],
    }
}

/// Precomputed geometry.
pub struct Tables {
    /// `rays[sq][dir]`: squares from `sq` outward in `dir` (absolute direction), nearest first.
    rays: [[SqList; 8]; 81],
    /// `steps[color][kind][sq]`: non-sliding destinations (knight included).
    steps: [[[SqList; 81]; KINDS]; 2],
    /// The same as bit masks, to skip pieces and rays that cannot reach a target set.
    step_mask: [[[u128; 81]; KINDS]; 2],
    ray_mask: [[u128; 8]; 81],
    /// `attack_span[color][kind][sq]`: every square the piece could attack from `sq` on an
    /// empty board (a cheap "can this possibly give check" filter).
    attack_span: [[[u128; 81]; KINDS]; 2],
    /// `adjacent_attack[color][kind][dir]`: a piece of `color`/`kind` one step away in
    /// absolute direction `dir` *from the target* attacks the target.
    adjacent_attack: [[[bool; 8]; KINDS]; 2],
    /// `slider_attack[color][kind][dir]`: a piece further away in `dir` from the target,
    /// with nothing between, attacks it.
    slider_attack: [[[bool; 8]; KINDS]; 2],
    /// Zobrist keys: board `[cell][sq]`, hands `[color][kind]` (added per piece), side.
    z_board: Vec<[u64; 81]>,
    z_hand: [[u64; 7]; 2],
    z_side: u64,
}

/// Up to 8 squares, inline (rays and step targets), so lookups chase no pointers.
#[derive(Clone, Copy, Default)]
struct SqList {
    sq: [u8; 8],
    len: u8,
}

impl SqList {
    fn from_slice(v: &[u8]) -> SqList {
        let mut l = SqList::default();
        for (i, &s) in v.iter().enumerate() {
            l.sq[i] = s;
        }
        l.len = v.len() as u8;
        l
    }
}

impl Tables {
    #[inline]
    fn ray(&self, sq: usize, d: usize) -> &[u8] {
        let l = &self.rays[sq][d];
        &l.sq[..l.len as usize]
    }

    /// The nearest occupied square from `sq` in direction `d` (square indices grow along
    /// S, W, SW and NW, and shrink along the others, so the nearest is the lowest or highest
    /// bit of the ray's occupancy).
    #[inline]
    fn first_on_ray(&self, sq: usize, d: usize, occ: u128) -> Option<usize> {
        let b = self.ray_mask[sq][d] & occ;
        if b == 0 {
            None
        } else if matches!(d, S | W | SW | NW) {
            Some(b.trailing_zeros() as usize)
        } else {
            Some(127 - b.leading_zeros() as usize)
        }
    }

    #[inline]
    fn step(&self, color: usize, kind: Kind, sq: usize) -> &[u8] {
        let l = &self.steps[color][kind][sq];
        &l.sq[..l.len as usize]
    }
}

fn sq_of(file: i32, rank: i32) -> Option<usize> {
    ((0..9).contains(&file) && (0..9).contains(&rank)).then(|| (file * 9 + rank) as usize)
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn build_tables() -> Tables {
    let mut rays = [[SqList::default(); 8]; 81];
    for sq in 0..81i32 {
        let (f, r) = (sq / 9, sq % 9);
        let mut per_dir: [Vec<u8>; 8] = Default::default();
        for (d, &(df, dr)) in DIRS.iter().enumerate() {
            let mut k = 1;
            while let Some(t) = sq_of(f + df * k, r + dr * k) {
                per_dir[d].push(t as u8);
                k += 1;
            }
        }
        for (d, v) in per_dir.iter().enumerate() {
            rays[sq as usize][d] = SqList::from_slice(v);
        }
    }
    let mut steps = [[[SqList::default(); 81]; KINDS]; 2];
    let mut adjacent_attack = [[[false; 8]; KINDS]; 2];
    let mut slider_attack = [[[false; 8]; KINDS]; 2];
    for color in 0..2 {
        for kind in 0..KINDS {
            for (sq, slot) in steps[color][kind].iter_mut().enumerate() {
                let (f, r) = ((sq / 9) as i32, (sq % 9) as i32);
                let mut v = Vec::new();
                for &d in step_dirs(kind) {
                    let (df, dr) = DIRS[rel_dir(color, d)];
                    if let Some(t) = sq_of(f + df, r + dr) {
                        v.push(t as u8);
                    }
                }
                if kind == KNIGHT {
                    let dr = if color == 0 { -2 } else { 2 };
                    for df in [-1, 1] {
                        if let Some(t) = sq_of(f + df, r + dr) {
                            v.push(t as u8);
                        }
                    }
                }
                *slot = SqList::from_slice(&v);
            }
            // A piece moving in absolute direction a attacks a target that lies in direction a
            // from it, i.e. the piece lies in direction opposite(a) from the target.
            for &d in step_dirs(kind) {
                adjacent_attack[color][kind][rel_dir(color, d) ^ 1] = true;
            }
            for &d in slide_dirs(kind) {
                adjacent_attack[color][kind][rel_dir(color, d) ^ 1] = true;
                slider_attack[color][kind][rel_dir(color, d) ^ 1] = true;
            }
        }
    }
    let mut seed = 0x6F75_6769_2D73_6561u64; // "gougi-sea"rch, fixed for reproducible keys
    let mut z_board = vec![[0u64; 81]; 32];
    for c in z_board.iter_mut() {
        for k in c.iter_mut() {
            *k = splitmix(&mut seed);
        }
    }
    let mut z_hand = [[0u64; 7]; 2];
    for c in z_hand.iter_mut() {
        for k in c.iter_mut() {
            // Low bit cleared so that the side-to-move bit stays meaningful.
            *k = splitmix(&mut seed) & !1;
        }
    }
    let mut step_mask = [[[0u128; 81]; KINDS]; 2];
    for c in 0..2 {
        for k in 0..KINDS {
            for sq in 0..81 {
                let l = &steps[c][k][sq];
                step_mask[c][k][sq] = l.sq[..l.len as usize]
                    .iter()
                    .fold(0, |m, &s| m | 1u128 << s);
            }
        }
    }
    let mut ray_mask = [[0u128; 8]; 81];
    for sq in 0..81 {
        for d in 0..8 {
            let l = &rays[sq][d];
            ray_mask[sq][d] = l.sq[..l.len as usize]
                .iter()
                .fold(0, |m, &s| m | 1u128 << s);
        }
    }
    let mut attack_span = [[[0u128; 81]; KINDS]; 2];
    for c in 0..2 {
        for k in 0..KINDS {
            for sq in 0..81 {
                let mut m = step_mask[c][k][sq];
                for &d in slide_dirs(k) {
                    m |= ray_mask[sq][rel_dir(c, d)];
                }
                attack_span[c][k][sq] = m;
            }
        }
    }
    Tables {
        rays,
        steps,
        step_mask,
        ray_mask,
        attack_span,
        adjacent_attack,
        slider_attack,
        z_board,
        z_hand,
        z_side: 1,
    }
}

/// The geometry tables, built on first use.
pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(build_tables)
}

#[inline]
fn rank_of(sq: usize) -> usize {
    sq % 9
}

#[inline]
fn file_of(sq: usize) -> usize {
    sq / 9
}

/// Relative rank: 0 is the far rank for `color`.
#[inline]
fn rel_rank(color: usize, sq: usize) -> usize {
    if color == 0 {
        rank_of(sq)
    } else {
        8 - rank_of(sq)
    }
}

#[inline]
fn in_zone(color: usize, sq: usize) -> bool {
    rel_rank(color, sq) < 3
}

/// Whether a piece of `kind` still has a move from `sq` (行き所のない駒 otherwise).
#[inline]
fn has_future(color: usize, kind: Kind, sq: usize) -> bool {
    match kind {
        PAWN | LANCE => rel_rank(color, sq) >= 1,
        KNIGHT => rel_rank(color, sq) >= 2,
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------
// Position.
// ---------------------------------------------------------------------------------------------

/// Why a text could not become a position or a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("bad SFEN: {0}")]
    Sfen(String),
    #[error("bad move text: {0}")]
    MoveText(String),
    #[error("illegal move: {0}")]
    Illegal(String),
}

/// What a repetition found at a node means for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    None,
    Draw,
    /// The opponent gave perpetual check (連続王手の千日手): they lose.
    Win,
    /// We gave perpetual check: we lose.
    Loss,
    /// Same board and side, we hold more in hand (優等局面).
    Superior,
    /// Same board and side, we hold less in hand (劣等局面).
    Inferior,
}

#[derive(Clone, Copy, Debug)]
struct State {
    key: u64,
    /// Key of board + side only (hands excluded), for superior/inferior detection.
    board_key: u64,
    hands: [[u8; 7]; 2],
    captured: u8,
    in_check: bool,
    /// Consecutive checking moves by each colour up to this position.
    cont_check: [u16; 2],
    /// Plies since the last null move (repetition never looks across one).
    plies_from_null: u16,
}

/// The position (see the module doc).
#[derive(Clone)]
pub struct Position {
    squares: [u8; 81],
    hands: [[u8; 7]; 2],
    stm: usize,
    kings: [Option<usize>; 2],
    /// Bit `file` set when `color` has an unpromoted pawn on that file (二歩 test).
    pawn_files: [u16; 2],
    /// Squares occupied by each colour (bit = square index), for iterating pieces.
    occ: [u128; 2],
    board_key: u64,
    hand_key: u64,
    ply: u32,
    states: Vec<State>,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

impl Position {
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS).expect("start position")
    }

    /// Parses `startpos`, `sfen <4 fields>` or the bare fields (the move number is optional).
    pub fn from_sfen(text: &str) -> Result<Position, BoardError> {
        let text = text.trim();
        if text == "startpos" {
            return Position::from_sfen(STARTPOS);
        }
        let text = text.strip_prefix("sfen").map(str::trim).unwrap_or(text);
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() < 3 || fields.len() > 4 {
            return Err(BoardError::Sfen(text.to_string()));
        }
        let bad = |why: &str| BoardError::Sfen(format!("{why}: {text}"));
        let mut p = Position {
            squares: [0; 81],
            hands: [[0; 7]; 2],
            stm: 0,
            kings: [None, None],
            pawn_files: [0; 2],
            occ: [0; 2],
            board_key: 0,
            hand_key: 0,
            ply: 1,
            states: Vec::with_capacity(1024),
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 9 {
            return Err(bad("need 9 ranks"));
        }
        for (r, row) in ranks.iter().enumerate() {
            let mut file: i32 = 8; // SFEN lists files 9..1
            let mut promote = false;
            for ch in row.chars() {
                if let Some(d) = ch.to_digit(10) {
                    if promote || d == 0 {
                        return Err(bad("bad digit"));
                    }
                    file -= d as i32;
                    continue;
                }
                if ch == '+' {
                    if promote {
                        return Err(bad("double +"));
                    }
                    promote = true;
                    continue;
                }
                if file < 0 {
                    return Err(bad("rank too long"));
                }
                let color = if ch.is_ascii_uppercase() { 0 } else { 1 };
                let up = ch.to_ascii_uppercase();
                let mut kind = SFEN_LETTERS
                    .iter()
                    .position(|&c| c == up)
                    .ok_or_else(|| bad("bad piece"))?;
                if promote {
                    kind = promoted(kind).ok_or_else(|| bad("piece cannot promote"))?;
                    promote = false;
                }
                let sq = file as usize * 9 + r;
                if kind == KING {
                    if p.kings[color].is_some() {
                        return Err(bad("two kings of one colour"));
                    }
                    p.kings[color] = Some(sq);
                }
                // A piece with no further move or a second pawn on a file cannot arise in a
                // game, but GUIs and problem collections send such positions; like YaneuraOu we
                // accept them (the piece simply has no moves; the file counts as occupied).
                if kind == PAWN {
                    p.pawn_files[color] |= 1 << file;
                }
                p.squares[sq] = cell(color, kind);
                p.occ[color] |= 1u128 << sq;
                file -= 1;
            }
            if file != -1 || promote {
                return Err(bad("rank length"));
            }
        }
        p.stm = match fields[1] {
            "b" => 0,
            "w" => 1,
            _ => return Err(bad("side to move")),
        };
        if fields[2] != "-" {
            let mut count: u32 = 0;
            for ch in fields[2].chars() {
                if let Some(d) = ch.to_digit(10) {
                    count = count * 10 + d;
                    if count > 18 {
                        return Err(bad("hand count"));
                    }
                    continue;
                }
                let color = if ch.is_ascii_uppercase() { 0 } else { 1 };
                let kind = SFEN_LETTERS
                    .iter()
                    .position(|&c| c == ch.to_ascii_uppercase());
                let kind = kind
                    .filter(|&k| k != KING)
                    .ok_or_else(|| bad("bad hand piece"))?;
                let n = if count == 0 { 1 } else { count };
                p.hands[color][kind] = p.hands[color][kind].saturating_add(n as u8);
                count = 0;
            }
            if count != 0 {
                return Err(bad("hand ends in a number"));
            }
        }
        if let Some(n) = fields.get(3) {
            p.ply = n.parse().map_err(|_| bad("move number"))?;
        }
        // Counts must not exceed the piece set.
        let mut totals = [0u32; 7];
        for hand in &p.hands {
            for (t, &n) in totals.iter_mut().zip(hand) {
                *t += n as u32;
            }
        }
        for &c in &p.squares {
            if c != 0 && cell_kind(c) != KING {
                totals[unpromoted(cell_kind(c))] += 1;
            }
        }
        const MAX: [u32; 7] = [18, 4, 4, 4, 4, 2, 2];
        if totals.iter().zip(MAX).any(|(&t, m)| t > m) {
            return Err(bad("too many pieces"));
        }
        let t = tables();
        for sq in 0..81 {
            if p.squares[sq] != 0 {
                p.board_key ^= t.z_board[p.squares[sq] as usize][sq];
            }
        }
        if p.stm == 1 {
            p.board_key ^= t.z_side;
        }
        for c in 0..2 {
            for k in 0..7 {
                p.hand_key = p
                    .hand_key
                    .wrapping_add(t.z_hand[c][k].wrapping_mul(p.hands[c][k] as u64));
            }
        }
        // The side not to move must not be in check (its king could be captured).
        if let Some(k) = p.kings[1 - p.stm] {
            if p.attacked(k, p.stm) {
                return Err(bad("side not to move is in check"));
            }
        }
        let in_check = p.compute_in_check();
        p.states.push(State {
            key: p.key(),
            board_key: p.board_key,
            hands: p.hands,
            captured: 0,
            in_check,
            cont_check: [0, 0],
            plies_from_null: 0,
        });
        Ok(p)
    }

    /// SFEN of the position (`<board> <side> <hands> <ply>`).
    pub fn to_sfen(&self) -> String {
        let mut s = String::new();
        for r in 0..9 {
            let mut empty = 0;
            for f in (0..9).rev() {
                let c = self.squares[f * 9 + r];
                if c == 0 {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                let k = cell_kind(c);
                if unpromoted(k) != k {
                    s.push('+');
                }
                let ch = SFEN_LETTERS[unpromoted(k).min(KING)];
                s.push(if cell_color(c) == 0 {
                    ch
                } else {
                    ch.to_ascii_lowercase()
                });
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if r < 8 {
                s.push('/');
            }
        }
        s.push_str(if self.stm == 0 { " b " } else { " w " });
        let mut hand = String::new();
        for c in 0..2 {
            for &k in [ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN].iter() {
                let n = self.hands[c][k];
                if n > 1 {
                    hand.push_str(&n.to_string());
                }
                if n > 0 {
                    let ch = SFEN_LETTERS[k];
                    hand.push(if c == 0 { ch } else { ch.to_ascii_lowercase() });
                }
            }
        }
        s.push_str(if hand.is_empty() { "-" } else { &hand });
        s.push_str(&format!(" {}", self.ply));
        s
    }

    /// Zobrist key of board, side and hands.
    #[inline]
    pub fn key(&self) -> u64 {
        self.board_key.wrapping_add(self.hand_key)
    }

    #[inline]
    pub fn side_to_move(&self) -> usize {
        self.stm
    }

    /// Game ply (the SFEN move number of this position).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.states.last().is_some_and(|s| s.in_check)
    }

    #[inline]
    pub fn piece_at(&self, sq: usize) -> Option<(usize, Kind)> {
        let c = self.squares[sq];
        (c != 0).then(|| (cell_color(c), cell_kind(c)))
    }

    #[inline]
    pub fn king_square(&self, color: usize) -> Option<usize> {
        self.kings[color]
    }

    #[inline]
    pub fn hand_count(&self, color: usize, kind: Kind) -> u32 {
        self.hands[color][kind] as u32
    }

    fn compute_in_check(&self) -> bool {
        self.kings[self.stm].is_some_and(|k| self.attacked(k, 1 - self.stm))
    }

    /// True if `by` attacks `sq` on the current board.
    #[inline]
    pub fn attacked(&self, sq: usize, by: usize) -> bool {
        self.attacked_ov(sq, by, Overlay::NONE)
    }

    /// True if `by` attacks `sq` on the board changed by `ov`.
    fn attacked_ov(&self, sq: usize, by: usize, ov: Overlay) -> bool {
        let t = tables();
        let mut occ = self.occ[0] | self.occ[1];
        if ov.vacated != NO_SQ {
            occ &= !(1u128 << ov.vacated);
        }
        if ov.placed_sq != NO_SQ {
            occ |= 1u128 << ov.placed_sq;
        }
        for d in 0..8 {
            let Some(s) = t.first_on_ray(sq, d, occ) else {
                continue;
            };
            let c = ov.cell(&self.squares, s);
            if cell_color(c) == by {
                let k = cell_kind(c);
                let adjacent = s == t.ray(sq, d)[0] as usize;
                if (adjacent && t.adjacent_attack[by][k][d])
                    || (!adjacent && t.slider_attack[by][k][d])
                {
                    return true;
                }
            }
        }
        // Knights: a knight of `by` two ranks "behind" the target (from its point of view).
        let (f, r) = (file_of(sq) as i32, rank_of(sq) as i32);
        let dr = if by == 0 { 2 } else { -2 };
        for df in [-1, 1] {
            if let Some(s) = sq_of(f + df, r + dr) {
                if ov.cell(&self.squares, s) == cell(by, KNIGHT) {
                    return true;
                }
            }
        }
        false
    }

    /// Pieces of the opponent attacking our king on `ksq`: how many, the square of one of
    /// them, and the squares between the king and that checker (empty unless it is a slider
    /// at a distance).
    fn checkers(&self, ksq: usize) -> (u32, usize, u128) {
        let t = tables();
        let them = 1 - self.stm;
        let mut count = 0;
        let mut checker = NO_SQ;
        let mut between = 0u128;
        for d in 0..8 {
            let mut path = 0u128;
            for (i, &s) in t.ray(ksq, d).iter().enumerate() {
                let c = self.squares[s as usize];
                if c == 0 {
                    path |= 1u128 << s;
                    continue;
                }
                if cell_color(c) == them {
                    let k = cell_kind(c);
                    if (i == 0 && t.adjacent_attack[them][k][d])
                        || (i > 0 && t.slider_attack[them][k][d])
                    {
                        count += 1;
                        checker = s as usize;
                        between = path;
                    }
                }
                break;
            }
        }
        let (f, r) = (file_of(ksq) as i32, rank_of(ksq) as i32);
        let dr = if them == 0 { 2 } else { -2 };
        for df in [-1, 1] {
            if let Some(s) = sq_of(f + df, r + dr) {
                if self.squares[s] == cell(them, KNIGHT) {
                    count += 1;
                    checker = s;
                    between = 0;
                }
            }
        }
        (count, checker, between)
    }

    /// The overlay describing the board after `m` (moved piece placed, origin emptied).
    #[inline]
    fn overlay(&self, m: Move) -> Overlay {
        let us = self.stm;
        match m.from() {
            None => Overlay {
                vacated: NO_SQ,
                placed_sq: m.to(),
                placed: cell(us, m.drop_kind()),
            },
            Some(from) => {
                let k = cell_kind(self.squares[from]);
                let nk = if m.is_promotion() {
                    promoted(k).unwrap_or(k)
                } else {
                    k
                };
                Overlay {
                    vacated: from,
                    placed_sq: m.to(),
                    placed: cell(us, nk),
                }
            }
        }
    }

    /// Whether `m` is a pseudo-legal move here (piece ownership, geometry, no own capture,
    /// promotion rules, drop rules). Used to validate TT moves and killers.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let us = self.stm;
        let to = m.to();
        let target = self.squares[to];
        match m.from() {
            None => {
                let k = m.drop_kind();
                target == 0
                    && self.hands[us][k] > 0
                    && has_future(us, k, to)
                    && !(k == PAWN && self.pawn_files[us] & (1 << file_of(to)) != 0)
            }
            Some(from) => {
                let c = self.squares[from];
                if c == 0 || cell_color(c) != us || (target != 0 && cell_color(target) == us) {
                    return false;
                }
                let k = cell_kind(c);
                if m.is_promotion() {
                    if promoted(k).is_none() || !(in_zone(us, from) || in_zone(us, to)) {
                        return false;
                    }
                } else if !has_future(us, k, to) {
                    return false;
                }
                self.piece_reaches(us, k, from, to)
            }
        }
    }

    /// Whether a piece of `us`/`k` on `from` can move to `to` on the current board.
    fn piece_reaches(&self, us: usize, k: Kind, from: usize, to: usize) -> bool {
        let t = tables();
        if t.step(us, k, from).contains(&(to as u8)) {
            return true;
        }
        for &d in slide_dirs(k) {
            let d = rel_dir(us, d);
            for &s in t.ray(from, d) {
                if s as usize == to {
                    return true;
                }
                if self.squares[s as usize] != 0 {
                    break;
                }
            }
        }
        false
    }

    /// Full legality of a pseudo-legal move: own king not left in check, no pawn-drop mate
    /// (打ち歩詰め).
    pub fn is_legal(&mut self, m: Move) -> bool {
        let us = self.stm;
        let them = 1 - us;
        if let Some(ksq) = self.kings[us] {
            let from = m.from();
            let king_move = from == Some(ksq);
            let needs_test = king_move || self.in_check() || from.is_some_and(|f| aligned(f, ksq));
            if needs_test {
                let target = if king_move { m.to() } else { ksq };
                if self.attacked_ov(target, them, self.overlay(m)) {
                    return false;
                }
            }
        }
        if m.is_drop() && m.drop_kind() == PAWN {
            if let Some(tk) = self.kings[them] {
                let front = if us == 0 {
                    tk as i32 + 1
                } else {
                    tk as i32 - 1
                };
                if front == m.to() as i32
                    && file_of(tk) == file_of(m.to())
                    && self.is_pawn_drop_mate(m)
                {
                    return false;
                }
            }
        }
        true
    }

    fn is_pawn_drop_mate(&mut self, m: Move) -> bool {
        self.do_move(m);
        let mated = !self.has_legal_move();
        self.undo_move(m);
        mated
    }

    /// Whether the move gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.stm;
        let Some(tk) = self.kings[1 - us] else {
            return false;
        };
        let ov = self.overlay(m);
        // Cheap filter first: a direct check needs the king in the moved piece's span, a
        // discovered one needs the origin on a line with the king.
        let direct = tables().attack_span[us][cell_kind(ov.placed)][m.to()] & (1u128 << tk) != 0;
        let discovered = m.from().is_some_and(|f| aligned(f, tk));
        (direct || discovered) && self.attacked_ov(tk, us, ov)
    }

    /// Plays a (legal) move.
    pub fn do_move(&mut self, m: Move) {
        let t = tables();
        let us = self.stm;
        let to = m.to();
        let mut captured = 0u8;
        match m.from() {
            None => {
                let k = m.drop_kind();
                self.hands[us][k] -= 1;
                self.hand_key = self.hand_key.wrapping_sub(t.z_hand[us][k]);
                let c = cell(us, k);
                self.squares[to] = c;
                self.occ[us] |= 1u128 << to;
                self.board_key ^= t.z_board[c as usize][to];
                if k == PAWN {
                    self.pawn_files[us] |= 1 << file_of(to);
                }
            }
            Some(from) => {
                let c = self.squares[from];
                let k = cell_kind(c);
                captured = self.squares[to];
                if captured != 0 {
                    let ck = cell_kind(captured);
                    self.board_key ^= t.z_board[captured as usize][to];
                    let hk = unpromoted(ck);
                    self.hands[us][hk] += 1;
                    self.hand_key = self.hand_key.wrapping_add(t.z_hand[us][hk]);
                    if ck == KING {
                        self.kings[1 - us] = None;
                    }
                }
                let nk = if m.is_promotion() {
                    promoted(k).unwrap_or(k)
                } else {
                    k
                };
                let nc = cell(us, nk);
                self.squares[from] = 0;
                self.squares[to] = nc;
                self.occ[us] ^= (1u128 << from) | (1u128 << to);
                if captured != 0 {
                    self.occ[1 - us] ^= 1u128 << to;
                }
                self.board_key ^= t.z_board[c as usize][from] ^ t.z_board[nc as usize][to];
                if captured != 0 && cell_kind(captured) == PAWN {
                    self.refresh_pawn_file(1 - us, file_of(to));
                }
                if k == PAWN && nk != PAWN {
                    self.refresh_pawn_file(us, file_of(from));
                }
                if k == KING {
                    self.kings[us] = Some(to);
                }
            }
        }
        self.stm = 1 - us;
        self.board_key ^= t.z_side;
        self.ply += 1;
        // Only the moved piece (directly) or a piece behind its origin can give check.
        let in_check = self.kings[1 - us].is_some_and(|tk| {
            let placed = cell_kind(self.squares[to]);
            let direct = t.attack_span[us][placed][to] & (1u128 << tk) != 0;
            let discovered = m.from().is_some_and(|f| aligned(f, tk));
            (direct || discovered) && self.attacked(tk, us)
        });
        let prev = self.states.last().copied().expect("state");
        let mut cont_check = prev.cont_check;
        cont_check[us] = if in_check { cont_check[us] + 1 } else { 0 };
        self.states.push(State {
            key: self.key(),
            board_key: self.board_key,
            hands: self.hands,
            captured,
            in_check,
            cont_check,
            plies_from_null: prev.plies_from_null + 1,
        });
    }

    /// Recomputes the 二歩 bit of one file (a file may hold two pawns in a position given by
    /// SFEN, so removing one pawn does not always free it).
    fn refresh_pawn_file(&mut self, color: usize, file: usize) {
        let pawn = cell(color, PAWN);
        if (0..9).any(|r| self.squares[file * 9 + r] == pawn) {
            self.pawn_files[color] |= 1 << file;
        } else {
            self.pawn_files[color] &= !(1 << file);
        }
    }

    /// Takes back the last move, which must be `m`.
    pub fn undo_move(&mut self, m: Move) {
        let t = tables();
        let st = self.states.pop().expect("a move to undo");
        self.stm = 1 - self.stm;
        let us = self.stm;
        self.board_key ^= t.z_side;
        self.ply -= 1;
        let to = m.to();
        match m.from() {
            None => {
                let k = m.drop_kind();
                let c = self.squares[to];
                self.board_key ^= t.z_board[c as usize][to];
                self.squares[to] = 0;
                self.occ[us] ^= 1u128 << to;
                self.hands[us][k] += 1;
                self.hand_key = self.hand_key.wrapping_add(t.z_hand[us][k]);
                if k == PAWN {
                    self.refresh_pawn_file(us, file_of(to));
                }
            }
            Some(from) => {
                let nc = self.squares[to];
                let nk = cell_kind(nc);
                let k = if m.is_promotion() { unpromoted(nk) } else { nk };
                let c = cell(us, k);
                self.squares[from] = c;
                self.squares[to] = st.captured;
                self.occ[us] ^= (1u128 << from) | (1u128 << to);
                if st.captured != 0 {
                    self.occ[1 - us] ^= 1u128 << to;
                }
                self.board_key ^= t.z_board[c as usize][from] ^ t.z_board[nc as usize][to];
                if k == PAWN && nk != PAWN {
                    self.pawn_files[us] |= 1 << file_of(from);
                }
                if k == KING {
                    self.kings[us] = Some(from);
                }
                if st.captured != 0 {
                    let ck = cell_kind(st.captured);
                    self.board_key ^= t.z_board[st.captured as usize][to];
                    let hk = unpromoted(ck);
                    self.hands[us][hk] -= 1;
                    self.hand_key = self.hand_key.wrapping_sub(t.z_hand[us][hk]);
                    if ck == PAWN {
                        self.pawn_files[1 - us] |= 1 << file_of(to);
                    }
                    if ck == KING {
                        self.kings[1 - us] = Some(to);
                    }
                }
            }
        }
    }

    /// Passes the turn (null move); only when not in check.
    pub fn do_null_move(&mut self) {
        let t = tables();
        self.stm = 1 - self.stm;
        self.board_key ^= t.z_side;
        let prev = self.states.last().copied().expect("state");
        self.states.push(State {
            key: self.key(),
            board_key: self.board_key,
            hands: self.hands,
            captured: 0,
            in_check: false,
            cont_check: prev.cont_check,
            plies_from_null: 0,
        });
    }

    pub fn undo_null_move(&mut self) {
        let t = tables();
        self.states.pop();
        self.stm = 1 - self.stm;
        self.board_key ^= t.z_side;
    }

    /// Repetition status of the current position, looking back at most
    /// [`MAX_REPETITION_PLY`] plies (YaneuraOu's default window) and never across a null move.
    /// Superior and inferior positions count only within the last `within` plies (the
    /// plies searched since the root); draws and perpetual checks use the game history too.
    pub fn repetition(&self, within: usize) -> Repetition {
        let n = self.states.len();
        let cur = &self.states[n - 1];
        let limit = (cur.plies_from_null as usize)
            .min(MAX_REPETITION_PLY)
            .min(n - 1);
        let us = self.stm;
        let them = 1 - us;
        let mut i = 4;
        while i <= limit {
            let st = &self.states[n - 1 - i];
            if st.board_key == cur.board_key {
                if st.key == cur.key {
                    let half = (i / 2) as u16;
                    if cur.cont_check[them] >= half {
                        return Repetition::Win;
                    }
                    if cur.cont_check[us] >= half {
                        return Repetition::Loss;
                    }
                    return Repetition::Draw;
                }
                // Superior/inferior only inside the search (YaneuraOu does not look before
                // the root for them: the root score should not become a superiority value).
                if i <= within {
                    if hand_ge(&cur.hands[us], &st.hands[us]) {
                        return Repetition::Superior;
                    }
                    if hand_ge(&st.hands[us], &cur.hands[us]) {
                        return Repetition::Inferior;
                    }
                }
            }
            i += 2;
        }
        Repetition::None
    }

    /// Whether the side to move may declare a win (入玉宣言, CSA 27-point rule): king in the
    /// enemy camp, not in check, at least ten other own pieces in the camp, and at least 28
    /// (Black) or 27 (White) points counting camp pieces and the hand, rook and bishop (and
    /// their promotions) 5, others 1.
    pub fn declaration_win(&self) -> bool {
        let us = self.stm;
        let Some(k) = self.kings[us] else {
            return false;
        };
        if !in_zone(us, k) || self.in_check() {
            return false;
        }
        let mut pieces = 0;
        let mut points = 0;
        for sq in 0..81 {
            let c = self.squares[sq];
            if c != 0 && cell_color(c) == us && in_zone(us, sq) {
                let kind = cell_kind(c);
                if kind == KING {
                    continue;
                }
                pieces += 1;
                points += if matches!(unpromoted(kind), BISHOP | ROOK) {
                    5
                } else {
                    1
                };
            }
        }
        for kind in HAND_KINDS {
            let n = self.hands[us][kind] as u32;
            points += n * if matches!(kind, BISHOP | ROOK) { 5 } else { 1 };
        }
        pieces >= 10 && points >= if us == 0 { 28 } else { 27 }
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&mut self) -> bool {
        let mut buf = MoveBuf::new();
        match self.kings[self.stm].filter(|_| self.in_check()) {
            Some(ksq) => {
                // In check (the one-ply mate test's case): try the king's flights first, which
                // settle most positions without generating anything else.
                let us = self.stm;
                let t = tables();
                for &to in t.step(us, KING, ksq) {
                    let to = to as usize;
                    let c = self.squares[to];
                    if (c == 0 || cell_color(c) != us) && self.is_legal(Move::new(ksq, to, false)) {
                        return true;
                    }
                }
                let (count, checker, between) = self.checkers(ksq);
                if count != 1 {
                    return false;
                }
                generate(
                    self,
                    &mut buf,
                    GenKind::All,
                    between | 1u128 << checker,
                    false,
                );
                if between != 0 {
                    let mut squares = [0usize; 8];
                    let mut n = 0;
                    let mut b = between;
                    while b != 0 {
                        squares[n] = b.trailing_zeros() as usize;
                        n += 1;
                        b &= b - 1;
                    }
                    generate_drops(self, &mut buf, Some(&squares[..n]));
                }
            }
            None => {
                generate(self, &mut buf, GenKind::All, ALL_SQUARES, true);
                generate_drops(self, &mut buf, None);
            }
        }
        for i in 0..buf.len() {
            let m = buf.as_slice()[i].m;
            if self.is_legal(m) {
                return true;
            }
        }
        false
    }

    /// Parses a USI move and checks that it is legal here.
    pub fn parse_usi_move(&mut self, text: &str) -> Result<Move, BoardError> {
        let bad = || BoardError::MoveText(text.to_string());
        let b = text.as_bytes();
        let square = |f: u8, r: u8| -> Option<usize> {
            let f = f.checked_sub(b'1')? as usize;
            let r = r.checked_sub(b'a')? as usize;
            (f < 9 && r < 9).then_some(f * 9 + r)
        };
        let m = if b.len() == 4 && b[1] == b'*' {
            let kind = SFEN_LETTERS[..7]
                .iter()
                .position(|&c| c as u8 == b[0])
                .ok_or_else(bad)?;
            Move::drop(kind, square(b[2], b[3]).ok_or_else(bad)?)
        } else if b.len() == 4 || (b.len() == 5 && b[4] == b'+') {
            let from = square(b[0], b[1]).ok_or_else(bad)?;
            let to = square(b[2], b[3]).ok_or_else(bad)?;
            if from == to {
                return Err(bad());
            }
            Move::new(from, to, b.len() == 5)
        } else {
            return Err(bad());
        };
        if self.is_pseudo_legal(m) && self.is_legal(m) {
            Ok(m)
        } else {
            Err(BoardError::Illegal(text.to_string()))
        }
    }
}

const NO_SQ: usize = 81;

/// A two-square change to the board, seen through without modifying it: `vacated` reads as
/// empty and `placed_sq` reads as `placed`.
#[derive(Clone, Copy)]
struct Overlay {
    vacated: usize,
    placed_sq: usize,
    placed: u8,
}

impl Overlay {
    const NONE: Overlay = Overlay {
        vacated: NO_SQ,
        placed_sq: NO_SQ,
        placed: 0,
    };

    #[inline]
    fn cell(&self, squares: &[u8; 81], s: usize) -> u8 {
        if s == self.placed_sq {
            self.placed
        } else if s == self.vacated {
            0
        } else {
            squares[s]
        }
    }
}

/// Repetition window, plies (YaneuraOu `max_repetition_ply` default 16).
pub const MAX_REPETITION_PLY: usize = 16;

#[inline]
fn hand_ge(a: &[u8; 7], b: &[u8; 7]) -> bool {
    a.iter().zip(b).all(|(x, y)| x >= y)
}

/// Whether two squares share a file, rank or diagonal (a pin or discovered attack is possible).
#[inline]
fn aligned(a: usize, b: usize) -> bool {
    let (fa, ra) = (file_of(a) as i32, rank_of(a) as i32);
    let (fb, rb) = (file_of(b) as i32, rank_of(b) as i32);
    fa == fb || ra == rb || (fa - fb).abs() == (ra - rb).abs()
}

// ---------------------------------------------------------------------------------------------
// Move generation.
// ---------------------------------------------------------------------------------------------

/// Upper bound on pseudo-legal moves of a shogi position (593 legal is the known maximum).
pub const MAX_MOVES: usize = 600;

/// A move with an ordering score.
#[derive(Clone, Copy, Debug)]
pub struct ExtMove {
    pub m: Move,
    pub score: i32,
}

/// A fixed-capacity move buffer (no heap). Its storage is left uninitialised so that
/// creating one costs nothing: only the first `len` entries are ever read.
pub struct MoveBuf {
    moves: [MaybeUninit<ExtMove>; MAX_MOVES],
    len: usize,
}

impl MoveBuf {
    pub fn new() -> MoveBuf {
        MoveBuf {
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, m: Move, score: i32) {
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(ExtMove { m, score });
            self.len += 1;
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The moves pushed so far.
    #[inline]
    pub fn as_slice(&self) -> &[ExtMove] {
        // SAFETY: entries `0..len` were all written by `push` (and `len <= MAX_MOVES`);
        // `MaybeUninit<T>` has the layout of `T`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<ExtMove>(), self.len) }
    }

    /// The moves pushed so far, mutable (for scoring and sorting).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [ExtMove] {
        // SAFETY: as in `as_slice`.
        unsafe {
            std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<ExtMove>(), self.len)
        }
    }
}

impl Default for MoveBuf {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GenKind {
    /// Board moves onto enemy pieces.
    Captures,
    /// Non-captures, drops included.
    Quiets,
    /// Everything (search set).
    All,
    /// Everything including non-promotions of pawns, bishops and rooks.
    AllWithUnpromoted,
}

#[inline]
fn push_board_move(
    buf: &mut MoveBuf,
    us: usize,
    k: Kind,
    from: usize,
    to: usize,
    everything: bool,
) {
    if promoted(k).is_some() && (in_zone(us, from) || in_zone(us, to)) {
        buf.push(Move::new(from, to, true), 0);
        let skip_unpromoted = !everything && matches!(k, PAWN | BISHOP | ROOK);
        if !skip_unpromoted && has_future(us, k, to) {
            buf.push(Move::new(from, to, false), 0);
        }
    } else {
        buf.push(Move::new(from, to, false), 0);
    }
}

const ALL_SQUARES: u128 = (1u128 << 81) - 1;

/// Board moves (no drops) of the side to move onto squares in `targets`; the king's moves
/// only if `with_king`.
fn generate(pos: &Position, buf: &mut MoveBuf, kind: GenKind, targets: u128, with_king: bool) {
    let t = tables();
    let us = pos.stm;
    let want_captures = kind != GenKind::Quiets;
    let want_quiets = kind != GenKind::Captures;
    let everything = kind == GenKind::AllWithUnpromoted;
    let mut pieces = pos.occ[us];
    while pieces != 0 {
        let from = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let c = pos.squares[from];
        let k = cell_kind(c);
        if k == KING && !with_king {
            continue;
        }
        let steps_useful = t.step_mask[us][k][from] & targets != 0;
        for &to in if steps_useful {
            t.step(us, k, from)
        } else {
            &[]
        } {
            let to = to as usize;
            let tc = pos.squares[to];
            let ok = if tc == 0 {
                want_quiets
            } else {
                cell_color(tc) != us && want_captures
            };
            if ok && targets & (1u128 << to) != 0 {
                push_board_move(buf, us, k, from, to, everything);
            }
        }
        for &d in slide_dirs(k) {
            let d = rel_dir(us, d);
            if t.ray_mask[from][d] & targets == 0 {
                continue;
            }
            for &to in t.ray(from, d) {
                let to = to as usize;
                let tc = pos.squares[to];
                let wanted = targets & (1u128 << to) != 0;
                if tc == 0 {
                    if want_quiets && wanted {
                        push_board_move(buf, us, k, from, to, everything);
                    }
                    continue;
                }
                if cell_color(tc) != us && want_captures && wanted {
                    push_board_move(buf, us, k, from, to, everything);
                }
                break;
            }
        }
    }
}

/// Drops of every hand piece, onto `targets` if given (else every empty square).
fn generate_drops(pos: &Position, buf: &mut MoveBuf, targets: Option<&[usize]>) {
    let us = pos.stm;
    let hand = &pos.hands[us];
    // The kinds in hand, listed once: the square loop then touches only those.
    let mut kinds = [0usize; 7];
    let mut n = 0;
    for k in HAND_KINDS {
        if hand[k] != 0 {
            kinds[n] = k;
            n += 1;
        }
    }
    if n == 0 {
        return;
    }
    let kinds = &kinds[..n];
    let mut drop_one = |to: usize| {
        if pos.squares[to] != 0 {
            return;
        }
        let rel = rel_rank(us, to);
        for &k in kinds {
            let ok = match k {
                PAWN => rel >= 1 && pos.pawn_files[us] & (1 << file_of(to)) == 0,
                LANCE => rel >= 1,
                KNIGHT => rel >= 2,
                _ => true,
            };
            if ok {
                buf.push(Move::drop(k, to), 0);
            }
        }
    };
    match targets {
        Some(ts) => ts.iter().for_each(|&s| drop_one(s)),
        None => {
            let mut empty = ALL_SQUARES & !(pos.occ[0] | pos.occ[1]);
            while empty != 0 {
                let sq = empty.trailing_zeros() as usize;
                empty &= empty - 1;
                drop_one(sq);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Search adapters (what the search and evaluation call).
// ---------------------------------------------------------------------------------------------

#[inline]
pub fn stm(pos: &Position) -> usize {
    pos.stm
}
#[inline]
pub fn key(pos: &Position) -> u64 {
    pos.key()
}
#[inline]
pub fn in_check(pos: &Position) -> bool {
    pos.in_check()
}
#[inline]
pub fn piece_at(pos: &Position, sq: usize) -> Option<(usize, Kind)> {
    pos.piece_at(sq)
}
#[inline]
pub fn king_sq(pos: &Position, color: usize) -> Option<usize> {
    pos.kings[color]
}
#[inline]
pub fn hand_count(pos: &Position, color: usize, kind: Kind) -> u32 {
    pos.hands[color][kind] as u32
}
#[inline]
pub fn to_sq(m: Move) -> usize {
    m.to()
}
#[inline]
pub fn from_sq(m: Move) -> Option<usize> {
    m.from()
}
#[inline]
pub fn drop_kind(m: Move) -> Kind {
    m.drop_kind()
}
#[inline]
pub fn move_to_u16(m: Move) -> u16 {
    m.raw()
}
#[inline]
pub fn move_from_u16(raw: u16) -> Option<Move> {
    Move::from_raw(raw)
}
/// Butterfly index: `from * 81 + to`, drops as `(81 + kind) * 81 + to`.
#[inline]
pub fn move_index(m: Move) -> usize {
    ((m.raw() >> 7) & 0x7F) as usize * 81 + m.to()
}
/// Kind of the moving piece (before promotion); the dropped kind for drops.
#[inline]
pub fn moved_kind(pos: &Position, m: Move) -> Kind {
    match m.from() {
        None => m.drop_kind(),
        Some(f) => cell_kind(pos.squares[f]),
    }
}
/// History piece index (`color * 16 + kind`), of the piece after the move.
#[inline]
pub fn moved_piece_index(pos: &Position, m: Move) -> usize {
    let k = moved_kind(pos, m);
    let k = if m.is_promotion() {
        promoted(k).unwrap_or(k)
    } else {
        k
    };
    pos.stm * 16 + k
}
#[inline]
pub fn is_capture(pos: &Position, m: Move) -> bool {
    !m.is_drop() && pos.squares[m.to()] != 0
}
#[inline]
pub fn captured_kind(pos: &Position, m: Move) -> Option<Kind> {
    if m.is_drop() {
        return None;
    }
    let c = pos.squares[m.to()];
    (c != 0).then(|| cell_kind(c))
}
#[inline]
pub fn is_pseudo_legal(pos: &Position, m: Move) -> bool {
    pos.is_pseudo_legal(m)
}
#[inline]
pub fn is_legal(pos: &mut Position, m: Move) -> bool {
    pos.is_legal(m)
}
#[inline]
pub fn gives_check(pos: &Position, m: Move) -> bool {
    pos.gives_check(m)
}
#[inline]
pub fn do_move(pos: &mut Position, m: Move) {
    pos.do_move(m)
}
#[inline]
pub fn undo_move(pos: &mut Position, m: Move) {
    pos.undo_move(m)
}
#[inline]
pub fn do_null_move(pos: &mut Position) {
    pos.do_null_move()
}
#[inline]
pub fn undo_null_move(pos: &mut Position) {
    pos.undo_null_move()
}
#[inline]
pub fn repetition(pos: &Position, ply: i32) -> Repetition {
    pos.repetition(ply.max(0) as usize)
}
#[inline]
pub fn declaration_win(pos: &Position) -> bool {
    pos.declaration_win()
}

/// Captures (board moves onto enemy pieces, with promotions); returns the count.
pub fn gen_captures(pos: &Position, buf: &mut MoveBuf) -> usize {
    buf.clear();
    generate(pos, buf, GenKind::Captures, pos.occ[1 - pos.stm], true);
    buf.len()
}

/// Non-captures, drops included; returns the count.
pub fn gen_quiets(pos: &Position, buf: &mut MoveBuf) -> usize {
    buf.clear();
    let empty = ALL_SQUARES & !(pos.occ[0] | pos.occ[1]);
    generate(pos, buf, GenKind::Quiets, empty, true);
    generate_drops(pos, buf, None);
    buf.len()
}

/// Check evasions (pseudo-legal; the caller filters legality): king moves, and against a
/// single checker its capture and interpositions (moves and drops). Returns the count.
pub fn gen_evasions(pos: &Position, buf: &mut MoveBuf) -> usize {
    buf.clear();
    let us = pos.stm;
    let Some(ksq) = pos.kings[us] else {
        generate(pos, buf, GenKind::All, ALL_SQUARES, true);
        generate_drops(pos, buf, None);
        return buf.len();
    };
    let t = tables();
    for &to in t.step(us, KING, ksq) {
        let to = to as usize;
        let c = pos.squares[to];
        if c == 0 || cell_color(c) != us {
            buf.push(Move::new(ksq, to, false), 0);
        }
    }
    let (count, checker, between) = pos.checkers(ksq);
    if count != 1 {
        return buf.len();
    }
    generate(pos, buf, GenKind::All, between | 1u128 << checker, false);
    if between != 0 {
        let mut squares = [0usize; 8];
        let mut n = 0;
        let mut b = between;
        while b != 0 {
            squares[n] = b.trailing_zeros() as usize;
            n += 1;
            b &= b - 1;
        }
        generate_drops(pos, buf, Some(&squares[..n]));
    }
    buf.len()
}

/// Squares within one file and two ranks of `king` (where non-sliding checks land).
fn near_squares(king: usize) -> ([usize; 15], usize) {
    let (f, r) = (file_of(king) as i32, rank_of(king) as i32);
    let mut near = [0usize; 15];
    let mut n = 0;
    for df in -1..=1 {
        for dr in -2..=2 {
            if let Some(s) = sq_of(f + df, r + dr) {
                if s != king {
                    near[n] = s;
                    n += 1;
                }
            }
        }
    }
    (near, n)
}

/// Moves and drops of the side to move that land near the enemy king `tk` (captures
/// included unless `quiet_only`).
fn gen_near_king(pos: &Position, buf: &mut MoveBuf, tk: usize, quiet_only: bool) {
    let (near, n) = near_squares(tk);
    let mut mask = 0u128;
    for &s in &near[..n] {
        mask |= 1u128 << s;
    }
    generate_drops(pos, buf, Some(&near[..n]));
    let kind = if quiet_only {
        GenKind::Quiets
    } else {
        GenKind::All
    };
    generate(pos, buf, kind, mask, false);
}

/// Quiet moves that give check (for the first quiescence ply); returns the count.
/// Only moves and drops that land near the enemy king — long-range quiet checks are left out
/// (cheap, not complete).
pub fn gen_quiet_checks(pos: &Position, buf: &mut MoveBuf) -> usize {
    buf.clear();
    let Some(tk) = pos.kings[1 - pos.stm] else {
        return 0;
    };
    let mut all = MoveBuf::new();
    gen_near_king(pos, &mut all, tk, true);
    for em in all.as_slice() {
        if pos.gives_check(em.m) {
            buf.push(em.m, 0);
        }
    }
    buf.len()
}

fn legal_of(pos: &Position, kind: GenKind) -> Vec<Move> {
    let mut p = pos.clone();
    let mut buf = MoveBuf::new();
    generate(&p, &mut buf, kind, ALL_SQUARES, true);
    generate_drops(&p, &mut buf, None);
    let moves: Vec<Move> = buf.as_slice().iter().map(|em| em.m).collect();
    moves.into_iter().filter(|&m| p.is_legal(m)).collect()
}

/// Every legal move of the search set (root moves).
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    legal_of(pos, GenKind::All)
}

/// Every legal move, non-promotions of pawns, bishops and rooks included.
pub fn legal_moves_all(pos: &Position) -> Vec<Move> {
    legal_of(pos, GenKind::AllWithUnpromoted)
}

/// A mate in one (一手詰め) for the side to move, if there is one among the moves that land
/// near the enemy king (YaneuraOu's `mate1ply` considers the same neighbourhood; long-range
/// checks are left to the search).
pub fn mate_in_one(pos: &mut Position) -> Option<Move> {
    let us = pos.stm;
    let tk = pos.kings[1 - us]?;
    let t = tables();
    // The king's flights that we do not attack now. A checking move can only take away the
    // ones its piece attacks from its new square, so a candidate that leaves one uncovered
    // is skipped before it is played. (Sliders uncovered by the move could cover more, so this
    // may skip a rare mate; it never reports a false one.)
    let mut free = 0u128;
    for &f in t.step(1 - us, KING, tk) {
        let f = f as usize;
        let c = pos.squares[f];
        if (c == 0 || cell_color(c) == us) && !pos.attacked(f, us) {
            free |= 1u128 << f;
        }
    }
    let mut buf = MoveBuf::new();
    gen_near_king(pos, &mut buf, tk, false);
    for i in 0..buf.len() {
        let m = buf.as_slice()[i].m;
        let kind = match m.from() {
            None => m.drop_kind(),
            Some(f) => {
                let k = cell_kind(pos.squares[f]);
                if m.is_promotion() {
                    promoted(k).unwrap_or(k)
                } else {
                    k
                }
            }
        };
        let covered = t.attack_span[us][kind][m.to()] | 1u128 << m.to();
        if free & !covered != 0 || !pos.gives_check(m) || !pos.is_legal(m) {
            continue;
        }
        pos.do_move(m);
        let escapes = pos.has_legal_move();
        pos.undo_move(m);
        if !escapes {
            return Some(m);
        }
    }
    None
}

/// A ponder move for `best` from the table, when the PV is too short to give one.
pub fn ponder_from_tt(pos: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut p = pos.clone();
    if !p.is_pseudo_legal(best) || !p.is_legal(best) {
        return None;
    }
    p.do_move(best);
    let (hit, data, _) = tt.probe(p.key());
    let m = Move::from_raw(data.mv).filter(|_| hit)?;
    (p.is_pseudo_legal(m) && p.is_legal(m)).then_some(m)
}

// ---------------------------------------------------------------------------------------------
// Static exchange evaluation.
// ---------------------------------------------------------------------------------------------

/// Value used by SEE (the evaluation's material values; the king is "infinite").
#[inline]
fn see_value(k: Kind) -> i32 {
    if k == KING {
        30000
    } else {
        super::eval::PIECE_VALUE[k]
    }
}

/// The least valuable piece of `side` attacking `sq`, ignoring pieces in `gone` (a bit per
/// square). Returns its square and kind.
fn least_attacker(pos: &Position, sq: usize, side: usize, gone: u128) -> Option<(usize, Kind)> {
    let t = tables();
    let mut best: Option<(usize, Kind)> = None;
    let consider = |s: usize, k: Kind, best: &mut Option<(usize, Kind)>| {
        if best.is_none_or(|(_, bk)| see_value(k) < see_value(bk)) {
            *best = Some((s, k));
        }
    };
    let occ = (pos.occ[0] | pos.occ[1]) & !gone;
    for d in 0..8 {
        let Some(s) = t.first_on_ray(sq, d, occ) else {
            continue;
        };
        let c = pos.squares[s];
        if cell_color(c) == side {
            let k = cell_kind(c);
            let adjacent = s == t.ray(sq, d)[0] as usize;
            if (adjacent && t.adjacent_attack[side][k][d])
                || (!adjacent && t.slider_attack[side][k][d])
            {
                consider(s, k, &mut best);
            }
        }
    }
    let (f, r) = (file_of(sq) as i32, rank_of(sq) as i32);
    let dr = if side == 0 { 2 } else { -2 };
    for df in [-1, 1] {
        if let Some(s) = sq_of(f + df, r + dr) {
            if gone & (1u128 << s) == 0 && pos.squares[s] == cell(side, KNIGHT) {
                consider(s, KNIGHT, &mut best);
            }
        }
    }
    best
}

/// Static exchange evaluation: does `m` win at least `threshold` after the best sequence of
/// recaptures on its square? (Stockfish's `see_ge`, swap algorithm; promotions on recapture
/// are ignored, the moved piece's promotion gain is counted.)
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    let to = m.to();
    let us = pos.stm;
    let (next_victim, first_gain) = match m.from() {
        None => (m.drop_kind(), 0),
        Some(from) => {
            let k = cell_kind(pos.squares[from]);
            let captured = captured_kind(pos, m).map_or(0, see_value);
            if m.is_promotion() {
                let pk = promoted(k).unwrap_or(k);
                (pk, captured + see_value(pk) - see_value(k))
            } else {
                (k, captured)
            }
        }
    };
    let mut swap = first_gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = see_value(next_victim) - swap;
    if swap <= 0 {
        return true;
    }
    let mut gone: u128 = m.from().map_or(0, |f| 1u128 << f);
    let mut side = 1 - us;
    let mut res = true; // true: the side that made `m` is currently winning the exchange
    while let Some((s, k)) = least_attacker(pos, to, side, gone) {
        // A king may only recapture if the other side has no attacker left.
        if k == KING && least_attacker(pos, to, 1 - side, gone | 1u128 << s).is_some() {
            break;
        }
        gone |= 1u128 << s;
        res = !res;
        swap = see_value(k) - swap;
        if swap < res as i32 {
            break;
        }
        side = 1 - side;
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perft(p: &mut Position, depth: u32) -> u64 {
        let moves = legal_moves_all(p);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut n = 0;
        for m in moves {
            p.do_move(m);
            n += perft(p, depth - 1);
            p.undo_move(m);
        }
        n
    }

    #[test]
    fn perft_matches_reference_counts() {
        let data = include_str!("../../tests/data/perft/perft.txt");
        let mut checked = 0;
        for line in data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let f: Vec<&str> = line.split('|').map(str::trim).collect();
            let depth: u32 = f[2].parse().unwrap();
            let nodes: u64 = f[3].parse().unwrap();
            if nodes > 2_000_000 {
                continue;
            }
            let mut p = Position::from_sfen(f[1]).unwrap();
            let key = p.key();
            assert_eq!(perft(&mut p, depth), nodes, "{line}");
            assert_eq!(p.key(), key, "do/undo restores the key");
            checked += 1;
        }
        assert!(checked >= 8);
    }

    /// In random games, evasions (filtered by legality) are exactly the legal moves, and the
    /// incremental check flag matches a fresh attack test.
    #[test]
    fn evasions_and_check_flags_agree_with_full_generation() {
        let mut seed = 99u64;
        let mut checks_seen = 0;
        for _ in 0..40 {
            let mut p = Position::startpos();
            for _ in 0..160 {
                assert_eq!(p.in_check(), p.compute_in_check(), "{}", p.to_sfen());
                let all = legal_moves(&p);
                if p.in_check() {
                    checks_seen += 1;
                    let mut buf = MoveBuf::new();
                    gen_evasions(&p, &mut buf);
                    let mut ev: Vec<Move> = buf.as_slice().iter().map(|e| e.m).collect();
                    ev.retain(|&m| p.clone().is_legal(m));
                    let mut a = all.clone();
                    a.sort_by_key(|m| m.raw());
                    ev.sort_by_key(|m| m.raw());
                    assert_eq!(a, ev, "{}", p.to_sfen());
                }
                for &m in &all {
                    let mut q = p.clone();
                    let gc = q.gives_check(m);
                    q.do_move(m);
                    assert_eq!(gc, q.in_check(), "{m} in {}", p.to_sfen());
                }
                if all.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Prefer checks and captures so that checks happen often.
                let pick = all
                    .iter()
                    .copied()
                    .find(|&m| (seed >> 60) < 6 && (p.gives_check(m) || is_capture(&p, m)))
                    .unwrap_or(all[(seed >> 33) as usize % all.len()]);
                p.do_move(pick);
            }
        }
        assert!(checks_seen > 50, "{checks_seen}");
    }

    /// The shogi core (`crate::shogi`) is an independent implementation of the rules: in random
    /// games, both must agree on every legal move (as USI text) and on check.
    #[test]
    fn agrees_with_the_core_move_generator() {
        let mut seed = 7u64;
        let mut positions = 0;
        for start in [
            "startpos",
            "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "sfen l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
        ] {
            for _ in 0..15 {
                let mut p = Position::from_sfen(start).unwrap();
                for _ in 0..120 {
                    let sfen = p.to_sfen();
                    let core =
                        crate::shogi::Position::from_sfen(&sfen).expect("core parses our SFEN");
                    let mut theirs: Vec<String> = core
                        .legal_moves()
                        .as_slice()
                        .iter()
                        .map(|m| m.to_string())
                        .collect();
                    let mine_moves = legal_moves_all(&p);
                    let mut mine: Vec<String> = mine_moves.iter().map(|m| m.to_string()).collect();
                    theirs.sort();
                    mine.sort();
                    assert_eq!(mine, theirs, "{sfen}");
                    assert_eq!(p.in_check(), core.in_check(), "{sfen}");
                    positions += 1;
                    if mine_moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    p.do_move(mine_moves[(seed >> 33) as usize % mine_moves.len()]);
                }
            }
        }
        assert!(positions > 1000);
    }

    #[test]
    fn sfen_round_trip_and_move_text() {
        let s = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
        let p = Position::from_sfen(s).unwrap();
        assert_eq!(p.to_sfen(), s);
        let mut p = Position::startpos();
        let m = p.parse_usi_move("7g7f").unwrap();
        assert_eq!(m.to_string(), "7g7f");
        assert!(p.parse_usi_move("7g7e").is_err());
        assert!(p.parse_usi_move("P*5e").is_err());
        assert!(Position::from_sfen("lnsgkgsnl/9 b - 1").is_err());
        assert!(Position::from_sfen("P8/9/9/9/9/9/9/9/9 b - 1").is_ok()); // accepted, no moves
        assert!(Position::from_sfen("9/9/9/9/9/9/9/9/PP7 x - 1").is_err());
        assert!(Position::from_sfen("9/9/9/9/9/9/9/9/9K b - 1").is_err());
        assert!(Position::from_sfen("9/9/9/9/9/9/9/9/k7K w - 1").is_ok());
        assert!(Position::from_sfen("9/9/9/9/9/9/9/9/9 b 19P 1").is_err());
        assert!(Position::from_sfen("9/9/9/9/9/9/9/9/P8 b - 1").is_ok());
    }

    #[test]
    fn keys_are_incremental() {
        let mut p = Position::startpos();
        for t in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"] {
            let m = p.parse_usi_move(t).unwrap();
            p.do_move(m);
            let fresh = Position::from_sfen(&p.to_sfen()).unwrap();
            assert_eq!(p.key(), fresh.key(), "after {t}");
        }
    }

    #[test]
    fn repetition_and_perpetual_check() {
        // Rook shuffles: the fourth ply returns to the start position.
        let mut p = Position::startpos();
        for t in ["2h3h", "8b7b", "3h2h", "7b8b"] {
            assert_eq!(p.repetition(usize::MAX), Repetition::None);
            let m = p.parse_usi_move(t).unwrap();
            p.do_move(m);
        }
        assert_eq!(p.repetition(usize::MAX), Repetition::Draw);

        // Perpetual check: Black's rook checks along files 1 and 2, White's king shuffles.
        let mut p = Position::from_sfen("8k/9/9/9/9/9/9/9/K6R1 b - 1").unwrap();
        for t in ["2i1i", "1a2a", "1i2i", "2a1a"] {
            let m = p.parse_usi_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            p.do_move(m);
        }
        // Black to move and Black checked with every move of the cycle: Black loses.
        assert_eq!(p.repetition(usize::MAX), Repetition::Loss);
        let m = p.parse_usi_move("2i1i").unwrap();
        p.do_move(m);
        // White to move: the checker is the opponent, White wins.
        assert_eq!(p.repetition(usize::MAX), Repetition::Win);
    }

    #[test]
    fn superior_and_inferior_positions_are_detected() {
        // White drops a pawn that Black's gold takes and brings back: same board, White to
        // move with one pawn fewer in hand (inferior for White).
        let mut p = Position::from_sfen("8k/9/9/9/9/4G4/9/9/K8 w p 1").unwrap();
        for t in [
            "P*5e", "5f5e", "1a2a", "5e5f", "2a2b", "9i9h", "2b1a", "9h9i",
        ] {
            assert_eq!(p.repetition(usize::MAX), Repetition::None, "before {t}");
            let m = p.parse_usi_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            p.do_move(m);
        }
        assert_eq!(p.repetition(usize::MAX), Repetition::Inferior);
        // The same cycle with Black to move at the repeated position: Black holds more.
        let mut p = Position::from_sfen("8k/9/9/9/9/4G4/9/9/K8 b p 1").unwrap();
        for t in [
            "9i9h", "P*5e", "5f5e", "1a2a", "5e5f", "2a2b", "9h9i", "2b1a",
        ] {
            assert_eq!(p.repetition(usize::MAX), Repetition::None, "before {t}");
            let m = p.parse_usi_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            p.do_move(m);
        }
        assert_eq!(p.repetition(usize::MAX), Repetition::Superior);
    }

    #[test]
    fn pawn_drop_mate_is_illegal_and_other_mates_found() {
        // White king 1a boxed in by Black's gold 2c... a pawn drop on 1b would mate: illegal.
        let mut p = Position::from_sfen("7nk/9/7GG/9/9/9/9/9/K8 b P 1").unwrap();
        assert!(p.parse_usi_move("P*1b").is_err());
        // A gold drop on 1b mates instead.
        let mut q = Position::from_sfen("7nk/9/8G/9/9/9/9/9/K8 b G 1").unwrap();
        let m = mate_in_one(&mut q).expect("mate in one").to_string();
        assert!(m == "G*1b" || m == "G*2b", "{m}");
        // No mate in one from the start position.
        assert!(mate_in_one(&mut Position::startpos()).is_none());
    }

    #[test]
    fn see_on_simple_exchanges() {
        // Black rook takes a pawn defended by a gold: loses the rook for a pawn.
        let p = Position::from_sfen("4k4/4g4/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = Move::new(4 * 9 + 7, 4 * 9 + 2, true);
        assert!(!see_ge(&p, m, 0));
        // An undefended pawn is a free capture.
        let p = Position::from_sfen("3k5/9/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = Move::new(4 * 9 + 7, 4 * 9 + 2, true);
        assert!(see_ge(&p, m, 0));
        assert!(see_ge(&p, m, 90));
    }

    #[test]
    fn declaration_rule() {
        let p = Position::from_sfen("K8/RBGGSSL2/NNLP5/9/9/9/9/9/4k4 b RB2G2S2N2L17P 1").unwrap();
        assert!(p.declaration_win());
        assert!(!Position::startpos().declaration_win());
    }
}
