//! SFEN text in and out, and USI `position` strings (`startpos moves …`, `sfen … moves …`).
//!
//! The parser is written for hostile input: any malformed text gives an [`SfenError`], never a
//! panic (a test feeds it a set of nasty strings). Besides syntax it refuses positions the
//! move generator cannot handle: more pieces than a hand could hold, two kings of one color, a
//! piece that could never move again (行き所のない駒), and the side not to move in check.

use super::bitboard::Bitboard;
use super::hand::Hand;
use super::legality::IllegalMoveKind;
use super::position::Position;
use super::types::{Color, File, Piece, PieceKind, Rank, Square};
use thiserror::Error;

/// The initial position.
pub const STARTPOS_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Why SFEN text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SfenError {
    /// Wrong number of space-separated fields.
    #[error("expected 3 or 4 SFEN fields, found {0}")]
    FieldCount(usize),
    /// The board field does not have 9 ranks of 9 squares.
    #[error("bad board shape at rank {rank}")]
    BoardShape {
        /// 1-based rank where the problem was seen.
        rank: usize,
    },
    /// An unknown character in the board field.
    #[error("bad board character {0:?}")]
    BoardChar(char),
    /// `+` before a piece that cannot promote, or at the end.
    #[error("bad promotion mark")]
    BadPromotion,
    /// The side field is not `b` or `w`.
    #[error("bad side to move {0:?}")]
    Side(String),
    /// The hand field is malformed.
    #[error("bad hand {0:?}")]
    Hand(String),
    /// The move number is not a positive integer.
    #[error("bad move number {0:?}")]
    MoveNumber(String),
    /// More pieces of a kind than a hand can hold (counting board and hands); a few more than
    /// a set are tolerated for tsume files, see `Hand::capacity`.
    #[error("too many pieces of kind {0:?}")]
    TooManyPieces(PieceKind),
    /// Two kings of one color.
    #[error("two kings for {0:?}")]
    TwoKings(Color),
    /// A piece on a square from which it can never move (行き所のない駒).
    #[error("piece with no further move on {0}")]
    DeadPiece(Square),
    /// The side that is not to move is in check (its king could be captured).
    #[error("the side not to move is in check")]
    OpponentInCheck,
}

/// Why a USI `position` string was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The SFEN part is bad.
    #[error(transparent)]
    Sfen(#[from] SfenError),
    /// Neither `startpos` nor `sfen`.
    #[error("expected `startpos` or `sfen`")]
    Start,
    /// A token after the position where `moves` was expected.
    #[error("unexpected token {0:?}")]
    Token(String),
    /// Move number `index` (0-based) could not be played.
    #[error("move {index} ({text}): {kind}")]
    Move {
        /// 0-based index in the move list.
        index: usize,
        /// The move text.
        text: String,
        /// Why it was refused.
        kind: IllegalMoveKind,
    },
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), SfenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return Err(SfenError::BoardShape {
            rank: ranks.len().min(9),
        });
    }
    for (r, text) in ranks.iter().enumerate() {
        // SFEN lists each rank from file 9 to file 1.
        let mut file: usize = 9;
        let mut promoted = false;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promoted || d == 0 || d as usize > file {
                    return Err(SfenError::BoardShape { rank: r + 1 });
                }
                file -= d as usize;
            } else if ch == '+' {
                if promoted {
                    return Err(SfenError::BadPromotion);
                }
                promoted = true;
            } else {
                let kind = PieceKind::from_sfen_char(ch).ok_or(SfenError::BoardChar(ch))?;
                if !ch.is_ascii() {
                    return Err(SfenError::BoardChar(ch));
                }
                if file == 0 {
                    return Err(SfenError::BoardShape { rank: r + 1 });
                }
                let kind = if promoted {
                    kind.promote().ok_or(SfenError::BadPromotion)?
                } else {
                    kind
                };
                promoted = false;
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let sq = Square::new(
                    File::try_index(file - 1).ok_or(SfenError::BoardShape { rank: r + 1 })?,
                    Rank::try_index(r).ok_or(SfenError::BoardShape { rank: r + 1 })?,
                );
                if kind == PieceKind::King && pos.kings[color.index()].is_some() {
                    return Err(SfenError::TwoKings(color));
                }
                pos.put_piece(Piece::new(color, kind), sq);
                file -= 1;
            }
        }
        if promoted {
            return Err(SfenError::BadPromotion);
        }
        if file != 0 {
            return Err(SfenError::BoardShape { rank: r + 1 });
        }
    }
    Ok(())
}

fn parse_hands(pos: &mut Position, text: &str) -> Result<(), SfenError> {
    if text == "-" {
        return Ok(());
    }
    let bad = || SfenError::Hand(text.chars().take(40).collect());
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        if let Some(d) = ch.to_digit(10) {
            let c = count.unwrap_or(0) * 10 + d;
            if c > 31 || (count.is_none() && d == 0) {
                return Err(bad());
            }
            count = Some(c);
        } else {
            let kind = PieceKind::from_sfen_char(ch).ok_or_else(bad)?;
            if !ch.is_ascii() || !kind.is_hand_kind() {
                return Err(bad());
            }
            let color = if ch.is_ascii_uppercase() {
                Color::Black
            } else {
                Color::White
            };
            let n = count.take().unwrap_or(1);
            if n == 0 {
                return Err(bad());
            }
            let h = &mut pos.hands[color.index()];
            *h = h
                .with_added(kind, n)
                .ok_or(SfenError::TooManyPieces(kind))?;
        }
    }
    if count.is_some() || text.is_empty() {
        return Err(bad());
    }
    Ok(())
}

fn validate(pos: &Position) -> Result<(), SfenError> {
    for k in PieceKind::HAND.into_iter().chain([PieceKind::King]) {
        let mut n = pos.hands[0].count(k) + pos.hands[1].count(k);
        for p in PieceKind::ALL {
            if p.unpromote() == k {
                n += pos.by_kind[p.index()].count();
            }
        }
        // More than a set is tolerated up to the hand capacity (see `Hand::capacity`).
        let max = if k == PieceKind::King {
            2
        } else {
            Hand::capacity(k)
        };
        if n > max {
            return Err(SfenError::TooManyPieces(k));
        }
    }
    for c in Color::ALL {
        let dead1 = Bitboard::far_ranks(c, 1);
        let dead2 = Bitboard::far_ranks(c, 2);
        let bad = ((pos.pieces(c, PieceKind::Pawn) | pos.pieces(c, PieceKind::Lance)) & dead1)
            | (pos.pieces(c, PieceKind::Knight) & dead2);
        if let Some(sq) = bad.lsb() {
            return Err(SfenError::DeadPiece(sq));
        }
    }
    let them = !pos.side;
    if let Some(k) = pos.kings[them.index()] {
        if pos.is_attacked(pos.side, k, pos.occupied()) {
            return Err(SfenError::OpponentInCheck);
        }
    }
    Ok(())
}

impl Position {
    /// The initial position (平手). Here, beside the parser, so that `position` does not import
    /// `sfen` (which imports `legality`, which imports `position`): no import circle.
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS_SFEN).expect("the startpos SFEN is valid")
    }

    /// Parses a position: `startpos`, `sfen <board> <side> <hands> [<move number>]`, or the
    /// bare SFEN fields. The move number defaults to 1.
    pub fn from_sfen(text: &str) -> Result<Position, SfenError> {
        let text = text.trim();
        if text == "startpos" {
            return Position::from_sfen(STARTPOS_SFEN);
        }
        let text = text.strip_prefix("sfen ").unwrap_or(text);
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 && fields.len() != 4 {
            return Err(SfenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_board(&mut pos, fields[0])?;
        pos.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(SfenError::Side(s.chars().take(20).collect())),
        };
        parse_hands(&mut pos, fields[2])?;
        if let Some(n) = fields.get(3) {
            pos.ply = n
                .parse::<u32>()
                .ok()
                .filter(|n| (1..u32::MAX / 2).contains(n))
                .ok_or_else(|| SfenError::MoveNumber(n.chars().take(20).collect()))?;
        }
        validate(&pos)?;
        pos.refresh_state();
        Ok(pos)
    }

    /// Parses a USI `position` argument: `startpos [moves …]` or `sfen <fields> [moves …]`
    /// (a leading `position` word is accepted too), playing the moves with full legality checks.
    pub fn from_usi_position(text: &str) -> Result<Position, PositionError> {
        let text = text.trim();
        let text = text
            .strip_prefix("position")
            .map(str::trim_start)
            .unwrap_or(text);
        let (head, moves) = match text.find(" moves") {
            Some(i) => (&text[..i], Some(&text[i + " moves".len()..])),
            None => (text, None),
        };
        let head = head.trim();
        let mut pos = if head == "startpos" {
            Position::startpos()
        } else if let Some(s) = head.strip_prefix("sfen ") {
            Position::from_sfen(s)?
        } else {
            return Err(PositionError::Start);
        };
        if let Some(moves) = moves {
            if !moves.is_empty() && !moves.starts_with(' ') {
                return Err(PositionError::Token(moves.chars().take(20).collect()));
            }
            for (index, t) in moves.split_whitespace().enumerate() {
                let err = |kind| PositionError::Move {
                    index,
                    text: t.chars().take(20).collect(),
                    kind,
                };
                let m = pos.parse_usi_move(t).map_err(err)?;
                pos.do_move(m);
            }
        }
        Ok(pos)
    }

    /// The SFEN text (`<board> <side> <hands> <move number>`), without the `sfen ` prefix.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        for r in 0..9 {
            let mut empty = 0;
            for f in (0..9).rev() {
                match self.board[f * 9 + r] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push_str(&p.to_string());
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if r < 8 {
                s.push('/');
            }
        }
        s.push_str(if self.side == Color::Black {
            " b "
        } else {
            " w "
        });
        let mut any = false;
        // SFEN hand order (as YaneuraOu writes it): rook, bishop, gold, silver, knight, lance,
        // pawn; Black first.
        const ORDER: [PieceKind; 7] = [
            PieceKind::Rook,
            PieceKind::Bishop,
            PieceKind::Gold,
            PieceKind::Silver,
            PieceKind::Knight,
            PieceKind::Lance,
            PieceKind::Pawn,
        ];
        for c in Color::ALL {
            for k in ORDER {
                let n = self.hands[c.index()].count(k);
                if n == 0 {
                    continue;
                }
                any = true;
                if n > 1 {
                    s.push_str(&n.to_string());
                }
                s.push_str(&Piece::new(c, k).to_string());
            }
        }
        if !any {
            s.push('-');
        }
        s.push(' ');
        s.push_str(&self.ply.to_string());
        s
    }
}

/// The same game seen from the other chair: the board rotated by 180°, every piece's colour
/// and the hands exchanged, the other side to move; the move number is kept (1 when absent).
/// Text in, text out, with or without the `sfen ` prefix: evaluations that must be symmetric
/// are tested with it. Malformed text gives malformed text back — parse the result to check.
pub fn colour_swapped(sfen: &str) -> String {
    let f: Vec<&str> = sfen
        .trim_start_matches("sfen ")
        .split_whitespace()
        .collect();
    let swap = |c: char| {
        if c.is_ascii_uppercase() {
            c.to_ascii_lowercase()
        } else {
            c.to_ascii_uppercase()
        }
    };
    let board = f.first().copied().unwrap_or("");
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|rank| {
            // Tokens are a digit or a piece with its `+`; the rank is read backwards by token.
            let mut tokens: Vec<String> = Vec::new();
            let mut promoted = false;
            for c in rank.chars() {
                if c == '+' {
                    promoted = true;
                    continue;
                }
                let plus = if promoted { "+" } else { "" };
                tokens.push(format!("{plus}{}", swap(c)));
                promoted = false;
            }
            tokens.reverse();
            tokens.concat()
        })
        .collect();
    let side = if f.get(1) == Some(&"b") { "w" } else { "b" };
    let hand: String = match f.get(2) {
        None | Some(&"-") => "-".into(),
        Some(h) => h.chars().map(swap).collect(),
    };
    let ply = f.get(3).copied().unwrap_or("1");
    format!("{} {side} {hand} {ply}", ranks.join("/"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn colour_swapped_turns_the_board_and_swaps_colours_and_hands() {
        assert_eq!(
            super::colour_swapped("sfen l8/1+P7/9/9/9/9/9/9/8K b Pr 3"),
            "k8/9/9/9/9/9/9/7+p1/8L w pR 3"
        );
        let start = super::STARTPOS_SFEN;
        assert_eq!(super::colour_swapped(&super::colour_swapped(start)), start);
    }

    use super::*;

    #[test]
    fn round_trip() {
        for s in [
            STARTPOS_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            "8k/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1",
        ] {
            assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
        }
        assert_eq!(
            Position::from_sfen("startpos").unwrap().to_sfen(),
            STARTPOS_SFEN
        );
        let p = Position::from_sfen(&format!("sfen {}", STARTPOS_SFEN)).unwrap();
        assert_eq!(p, Position::startpos());
        let p =
            Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -")
                .unwrap();
        assert_eq!(p.ply(), 1);
    }

    #[test]
    fn nasty_inputs_are_errors() {
        for s in [
            "",
            "sfen",
            "startpos moves",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 0",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - -3",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 99999999999999999999",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 32P 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 14P 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b K 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 0P 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b +P 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+ b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG+KGSNL b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG++GSNL b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN0L b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGＫGSNL b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN１ b - 1",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P１ 1",
            "P8/9/9/9/9/9/9/9/9 b - 1",
            "9/9/9/9/9/9/9/9/8n b - 1",
            "k8/9/9/9/9/9/9/9/K7K b - 1",
            "4k4/9/9/9/9/9/9/9/4R4 b - 1",
            "9/9/9/9/9/9/9/9/9 b 4R 1",
            "9/9/9/9/9/9/9/9/9 b 2R2r 1",
            "///////// b - 1",
            "99/9/9/9/9/9/9/9/9 b - 1",
        ] {
            assert!(Position::from_sfen(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn usi_position() {
        let p = Position::from_usi_position("startpos moves 7g7f 3c3d 8h2b+").unwrap();
        assert_eq!(
            p.to_sfen(),
            "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4"
        );
        let p2 = Position::from_usi_position(&format!("position sfen {STARTPOS_SFEN} moves 7g7f"))
            .unwrap();
        assert_eq!(p2.ply(), 2);
        assert!(Position::from_usi_position("startpos moves 7g7e").is_err());
        assert!(Position::from_usi_position("startpos movesx").is_err());
        assert!(Position::from_usi_position("startpos moves 7g7f 7g7f").is_err());
        assert!(Position::from_usi_position("foo").is_err());
    }
}
