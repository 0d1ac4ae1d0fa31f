//! Basic shogi types: [`Color`], [`File`], [`Rank`], [`Square`], [`PieceKind`], [`Piece`] and
//! [`Move`].
//!
//! Invariants:
//! - Squares are file-major: `SQ11 = 0` is 1一 (file 1, rank 1, the top right corner seen from
//!   Black), index = (file-1)*9 + (rank-1), as in YaneuraOu. Rank 1 is Black's far rank.
//! - [`Move`] is a `NonZeroU16`, so `Option<Move>` is 2 bytes. Bit layout:
//!
//! ```text
//!  15 14 13........7 6........0
//!  1  P  from/drop    to
//! ```
//!
//!   `to` is the destination square; `from` is a square (0..=80) or `81 + kind` for a drop of
//!   `kind` (Pawn..=Rook, 81..=87); `P` marks a promotion; bit 15 is always set so the value is
//!   never zero.

use std::fmt;
use std::num::NonZeroU16;

/// Side. Black (先手 sente, `b` in SFEN) moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente (先手), moves first, uppercase in SFEN.
    Black = 0,
    /// Gote (後手), lowercase in SFEN.
    White = 1,
}

impl Color {
    /// Number of colors.
    pub const NUM: usize = 2;
    /// Both colors, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The index (Black 0, White 1).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The color with this index.
    pub const fn try_index(i: usize) -> Option<Color> {
        match i {
            0 => Some(Color::Black),
            1 => Some(Color::White),
            _ => None,
        }
    }

    /// The other side.
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A file (筋), 1..=9, right to left as Black sees the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    /// Number of files.
    pub const NUM: usize = 9;

    /// The file with number `n` (1..=9).
    pub const fn new(n: u8) -> Option<File> {
        if n >= 1 && n <= 9 {
            Some(File(n - 1))
        } else {
            None
        }
    }

    /// The file from a 0-based index (0..=8).
    pub const fn try_index(i: usize) -> Option<File> {
        if i < 9 {
            Some(File(i as u8))
        } else {
            None
        }
    }

    /// 0-based index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The number as written in notation (1..=9).
    #[inline]
    pub const fn number(self) -> u8 {
        self.0 + 1
    }
}

/// A rank (段), 1..=9 (一..九), top to bottom as Black sees the board; USI letters a..i.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// Number of ranks.
    pub const NUM: usize = 9;

    /// The rank with number `n` (1..=9).
    pub const fn new(n: u8) -> Option<Rank> {
        if n >= 1 && n <= 9 {
            Some(Rank(n - 1))
        } else {
            None
        }
    }

    /// The rank from a 0-based index (0..=8).
    pub const fn try_index(i: usize) -> Option<Rank> {
        if i < 9 {
            Some(Rank(i as u8))
        } else {
            None
        }
    }

    /// 0-based index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The number as written in notation (1..=9).
    #[inline]
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// The rank counted from `c`'s side: 1 is `c`'s far rank (the last rank for its pawns).
    #[inline]
    pub const fn relative(self, c: Color) -> u8 {
        match c {
            Color::Black => self.0 + 1,
            Color::White => 9 - self.0,
        }
    }
}

/// A square, file-major: `SQ11 = 0` is 1一, `SQ12` is 1二, …, `SQ99 = 80` is 9九.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[rustfmt::skip]
#[allow(missing_docs)]
pub enum Square {
    SQ11, SQ12, SQ13, SQ14, SQ15, SQ16, SQ17, SQ18, SQ19,
    SQ21, SQ22, SQ23, SQ24, SQ25, SQ26, SQ27, SQ28, SQ29,
    SQ31, SQ32, SQ33, SQ34, SQ35, SQ36, SQ37, SQ38, SQ39,
    SQ41, SQ42, SQ43, SQ44, SQ45, SQ46, SQ47, SQ48, SQ49,
    SQ51, SQ52, SQ53, SQ54, SQ55, SQ56, SQ57, SQ58, SQ59,
    SQ61, SQ62, SQ63, SQ64, SQ65, SQ66, SQ67, SQ68, SQ69,
    SQ71, SQ72, SQ73, SQ74, SQ75, SQ76, SQ77, SQ78, SQ79,
    SQ81, SQ82, SQ83, SQ84, SQ85, SQ86, SQ87, SQ88, SQ89,
    SQ91, SQ92, SQ93, SQ94, SQ95, SQ96, SQ97, SQ98, SQ99,
}

impl Square {
    /// Number of squares.
    pub const NUM: usize = 81;

    /// All squares in index order.
    pub const ALL: [Square; 81] = {
        let mut a = [Square::SQ11; 81];
        let mut i = 0;
        while i < 81 {
            a[i] = Square::from_index_unchecked(i);
            i += 1;
        }
        a
    };

    /// The square with this index, if `i < 81`.
    #[inline]
    pub const fn try_index(i: usize) -> Option<Square> {
        if i < 81 {
            Some(Square::from_index_unchecked(i))
        } else {
            None
        }
    }

    /// The square with this index; `i` must be below 81.
    #[inline]
    pub(crate) const fn from_index_unchecked(i: usize) -> Square {
        debug_assert!(i < 81);
        // SAFETY: `Square` is `repr(u8)` with the 81 contiguous discriminants 0..=80, and
        // `i < 81` is the caller's precondition (checked in debug builds).
        unsafe { std::mem::transmute::<u8, Square>(i as u8) }
    }

    /// The square at `file`, `rank`.
    #[inline]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square::from_index_unchecked(file.index() * 9 + rank.index())
    }

    /// The index, 0..=80.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The file.
    #[inline]
    pub const fn file(self) -> File {
        File(self as u8 / 9)
    }

    /// The rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(self as u8 % 9)
    }

    /// The square seen from the other side (rotated 180 degrees).
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Square {
        Square::from_index_unchecked(80 - self as usize)
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file().0 as i8 + df;
        let r = self.rank().0 as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 9 {
            Some(Square::from_index_unchecked((f * 9 + r) as usize))
        } else {
            None
        }
    }

    /// Whether the square is in `c`'s promotion zone (the three far ranks).
    #[inline]
    pub const fn in_zone(self, c: Color) -> bool {
        self.rank().relative(c) <= 3
    }

    /// Parses USI square text such as `7g`.
    pub fn from_usi(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = File::new(b[0].wrapping_sub(b'0'))?;
        let r = Rank::new(b[1].wrapping_sub(b'a').wrapping_add(1))?;
        Some(Square::new(f, r))
    }
}

impl fmt::Display for Square {
    /// USI text: file digit then rank letter, `7g`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.file().number(),
            (b'a' + self.rank().index() as u8) as char
        )
    }
}

/// A kind of piece, colorless. The first seven can be held in hand, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum PieceKind {
    Pawn,
    Lance,
    Knight,
    Silver,
    Gold,
    Bishop,
    Rook,
    King,
    ProPawn,
    ProLance,
    ProKnight,
    ProSilver,
    Horse,
    Dragon,
}

impl PieceKind {
    /// Number of kinds.
    pub const NUM: usize = 14;
    /// All kinds in index order.
    pub const ALL: [PieceKind; 14] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    /// The kinds that can be held in hand (and dropped), in hand order.
    pub const HAND: [PieceKind; 7] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
    ];

    /// The index, 0..=13.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index.
    pub const fn try_index(i: usize) -> Option<PieceKind> {
        if i < 14 {
            Some(PieceKind::ALL[i])
        } else {
            None
        }
    }

    /// The promoted form, if this kind can promote.
    #[inline]
    pub const fn promote(self) -> Option<PieceKind> {
        match self {
            PieceKind::Pawn => Some(PieceKind::ProPawn),
            PieceKind::Lance => Some(PieceKind::ProLance),
            PieceKind::Knight => Some(PieceKind::ProKnight),
            PieceKind::Silver => Some(PieceKind::ProSilver),
            PieceKind::Bishop => Some(PieceKind::Horse),
            PieceKind::Rook => Some(PieceKind::Dragon),
            _ => None,
        }
    }

    /// The unpromoted form (itself when not promoted); this is what a capture puts in hand
    /// (King stays King).
    #[inline]
    pub const fn unpromote(self) -> PieceKind {
        match self {
            PieceKind::ProPawn => PieceKind::Pawn,
            PieceKind::ProLance => PieceKind::Lance,
            PieceKind::ProKnight => PieceKind::Knight,
            PieceKind::ProSilver => PieceKind::Silver,
            PieceKind::Horse => PieceKind::Bishop,
            PieceKind::Dragon => PieceKind::Rook,
            k => k,
        }
    }

    /// Whether this is a promoted kind.
    #[inline]
    pub const fn is_promoted(self) -> bool {
        self as u8 >= PieceKind::ProPawn as u8
    }

    /// Whether this kind can promote.
    #[inline]
    pub const fn can_promote(self) -> bool {
        self.promote().is_some()
    }

    /// Whether a piece of this kind can be held in hand and dropped.
    #[inline]
    pub const fn is_hand_kind(self) -> bool {
        (self as u8) < PieceKind::King as u8
    }

    /// The SFEN letter (uppercase) of an unpromoted kind; promoted kinds use `+` and the base.
    pub const fn sfen_char(self) -> char {
        match self.unpromote() {
            PieceKind::Pawn => 'P',
            PieceKind::Lance => 'L',
            PieceKind::Knight => 'N',
            PieceKind::Silver => 'S',
            PieceKind::Gold => 'G',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            _ => 'K',
        }
    }

    /// The unpromoted kind for an SFEN letter (either case).
    pub const fn from_sfen_char(c: char) -> Option<PieceKind> {
        match c.to_ascii_uppercase() {
            'P' => Some(PieceKind::Pawn),
            'L' => Some(PieceKind::Lance),
            'N' => Some(PieceKind::Knight),
            'S' => Some(PieceKind::Silver),
            'G' => Some(PieceKind::Gold),
            'B' => Some(PieceKind::Bishop),
            'R' => Some(PieceKind::Rook),
            'K' => Some(PieceKind::King),
            _ => None,
        }
    }
}

/// A piece: a color and a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }
}

impl fmt::Display for Piece {
    /// SFEN text: `P`, `+p`, ….
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_promoted() {
            f.write_str("+")?;
        }
        let c = self.kind.sfen_char();
        let c = match self.color {
            Color::Black => c,
            Color::White => c.to_ascii_lowercase(),
        };
        write!(f, "{c}")
    }
}

/// A move in 16 bits (see the module doc for the layout). It does not record the moving piece;
/// ask the position (`piece_on(from)`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

const MOVE_MARK: u16 = 1 << 15;
const MOVE_PROMOTE: u16 = 1 << 14;
const DROP_BASE: u16 = 81;

impl Move {
    /// A board move from `from` to `to`, promoting if `promote`.
    #[inline]
    pub const fn new_normal(from: Square, to: Square, promote: bool) -> Move {
        let v =
            MOVE_MARK | (if promote { MOVE_PROMOTE } else { 0 }) | ((from as u16) << 7) | to as u16;
        match NonZeroU16::new(v) {
            Some(n) => Move(n),
            // Bit 15 is set, so `v` is never zero.
            None => unreachable!(),
        }
    }

    /// A drop of `kind` (Pawn..=Rook) on `to`.
    #[inline]
    pub const fn new_drop(kind: PieceKind, to: Square) -> Move {
        debug_assert!(kind.is_hand_kind());
        let v = MOVE_MARK | ((DROP_BASE + kind as u16) << 7) | to as u16;
        match NonZeroU16::new(v) {
            Some(n) => Move(n),
            None => unreachable!(),
        }
    }

    /// The drop of `kind` on square index `to`, given `drop_base(kind)`: move generation makes
    /// many drops of one kind, so it computes the base once and ORs in each square.
    #[inline(always)]
    pub const fn drop_with_base(base: u16, to: usize) -> Move {
        match NonZeroU16::new(base | to as u16) {
            Some(n) => Move(n),
            // The base has bit 15 set.
            None => unreachable!(),
        }
    }

    /// The bits of a drop of `kind` without its square (see [`Move::drop_with_base`]).
    #[inline(always)]
    pub const fn drop_base(kind: PieceKind) -> u16 {
        MOVE_MARK | ((DROP_BASE + kind as u16) << 7)
    }

    /// The raw 16 bits (for transposition tables).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0.get()
    }

    /// A move from raw bits, if they form a well-shaped move (it may still be illegal).
    pub const fn from_u16(v: u16) -> Option<Move> {
        let to = v & 0x7f;
        let from = (v >> 7) & 0x7f;
        if v & MOVE_MARK == 0 || to >= 81 || from >= DROP_BASE + 7 || from == to {
            return None;
        }
        if from >= DROP_BASE && v & MOVE_PROMOTE != 0 {
            return None;
        }
        match NonZeroU16::new(v) {
            Some(n) => Some(Move(n)),
            None => None,
        }
    }

    /// The destination square.
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0.get() & 0x7f) as usize)
    }

    /// The origin square, or `None` for a drop.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        let f = (self.0.get() >> 7) & 0x7f;
        if f < DROP_BASE {
            Some(Square::from_index_unchecked(f as usize))
        } else {
            None
        }
    }

    /// The raw origin field; the square index for a board move. Hot-path helper.
    #[inline]
    pub(crate) const fn origin_index(self) -> usize {
        ((self.0.get() >> 7) & 0x7f) as usize
    }

    /// Whether this is a drop.
    #[inline]
    pub const fn is_drop(self) -> bool {
        (self.0.get() >> 7) & 0x7f >= DROP_BASE
    }

    /// Whether this move promotes.
    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.0.get() & MOVE_PROMOTE != 0
    }

    /// The dropped kind, for a drop.
    #[inline]
    pub const fn dropped_kind(self) -> Option<PieceKind> {
        let f = (self.0.get() >> 7) & 0x7f;
        if f >= DROP_BASE {
            Some(PieceKind::ALL[(f - DROP_BASE) as usize])
        } else {
            None
        }
    }

    /// Parses the USI form (`7g7f`, `8h2b+`, `P*5e`) without a position; the result may be
    /// illegal. See `Position::parse_usi_move` for a checked parse.
    pub fn from_usi(s: &str) -> Option<Move> {
        let b = s.as_bytes();
        if b.len() == 4 && b[1] == b'*' {
            let k = PieceKind::from_sfen_char(b[0] as char)?;
            if !b[0].is_ascii_uppercase() || !k.is_hand_kind() {
                return None;
            }
            let to = Square::from_usi(s.get(2..4)?)?;
            return Some(Move::new_drop(k, to));
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return None,
        };
        let from = Square::from_usi(s.get(0..2)?)?;
        let to = Square::from_usi(s.get(2..4)?)?;
        if from == to {
            return None;
        }
        Some(Move::new_normal(from, to, promote))
    }
}

impl fmt::Display for Move {
    /// USI text: `7g7f`, `P*5e`, `8h2b+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from(), self.dropped_kind()) {
            (Some(from), _) => {
                write!(f, "{}{}", from, self.to())?;
                if self.is_promotion() {
                    f.write_str("+")?;
                }
                Ok(())
            }
            (None, Some(k)) => write!(f, "{}*{}", k.sfen_char(), self.to()),
            (None, None) => unreachable!("a move is a board move or a drop"),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_layout() {
        assert_eq!(Square::SQ11.index(), 0);
        assert_eq!(Square::SQ77.index(), 6 * 9 + 6);
        assert_eq!(Square::SQ99.index(), 80);
        assert_eq!(Square::from_usi("7g"), Some(Square::SQ77));
        assert_eq!(Square::SQ77.to_string(), "7g");
        assert_eq!(Square::from_usi("0a"), None);
        assert_eq!(Square::from_usi("1j"), None);
        assert!(Square::SQ13.in_zone(Color::Black));
        assert!(!Square::SQ14.in_zone(Color::Black));
        assert!(Square::SQ17.in_zone(Color::White));
    }

    #[test]
    fn move_roundtrip() {
        assert_eq!(std::mem::size_of::<Option<Move>>(), 2);
        for s in ["7g7f", "8h2b+", "P*5e", "R*1a", "1a9i"] {
            let m = Move::from_usi(s).unwrap();
            assert_eq!(m.to_string(), s);
            assert_eq!(Move::from_u16(m.to_u16()), Some(m));
        }
        let d = Move::from_usi("P*5e").unwrap();
        assert!(d.is_drop());
        assert_eq!(d.dropped_kind(), Some(PieceKind::Pawn));
        assert_eq!(d.from(), None);
        for bad in [
            "", "7g7g", "K*5e", "p*5e", "P*5", "7g7f=", "7g7f++", "+*5e", "７六",
        ] {
            assert_eq!(Move::from_usi(bad), None, "{bad}");
        }
        assert_eq!(Move::from_u16(0), None);
    }
}
