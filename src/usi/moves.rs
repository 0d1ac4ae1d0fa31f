//! [`UsiMove`]: one move in USI text (`7g7f`, `P*5e`, `8h2b+`), checked for syntax only.
//!
//! The protocol layer does not know the rules: a proxy relays member moves and checks them
//! separately against its own board (`shogi::Position::parse_usi_move`). What this type guarantees
//! is that the text is a well-formed USI move token, so it can be compared, stored and printed
//! without re-validation, and `resign`/`win` can never be mistaken for a move (they live in
//! [`BestMove`](super::BestMove)).
//!
//! Grammar (USI, 将棋所「USIプロトコルとは」):
//! - board move: file `1`-`9`, rank `a`-`i`, file, rank, optional `+` (promotion, 成り);
//! - drop (打ち): piece letter `P L N S G B R` (upper case), `*`, file, rank.
//!
//! Invariant: the stored bytes always satisfy that grammar, so [`UsiMove::as_str`] is ASCII.
//! The type is `Copy` (six bytes) so move lists stay cheap.

use std::fmt;
use std::str::FromStr;

use super::error::UsiParseError;

/// A syntactically valid USI move token. See the module doc for the grammar.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UsiMove {
    /// ASCII text, `len` bytes used; the rest are zero.
    bytes: [u8; 5],
    len: u8,
}

fn is_file(b: u8) -> bool {
    (b'1'..=b'9').contains(&b)
}

fn is_rank(b: u8) -> bool {
    (b'a'..=b'i').contains(&b)
}

impl UsiMove {
    /// Parses one move token. Anything but the exact grammar is an error (no trimming).
    pub fn parse(text: &str) -> Result<Self, UsiParseError> {
        let b = text.as_bytes();
        let valid = match b {
            // The drop arm comes first: the 4-byte board-move arm would shadow it.
            [p, b'*', f, r] => b"PLNSGBR".contains(p) && is_file(*f) && is_rank(*r),
            [f1, r1, f2, r2] => is_file(*f1) && is_rank(*r1) && is_file(*f2) && is_rank(*r2),
            [f1, r1, f2, r2, b'+'] => is_file(*f1) && is_rank(*r1) && is_file(*f2) && is_rank(*r2),
            _ => false,
        };
        if !valid {
            return Err(UsiParseError::InvalidMove {
                text: text.to_owned(),
            });
        }
        let mut bytes = [0u8; 5];
        bytes[..b.len()].copy_from_slice(b);
        Ok(UsiMove {
            bytes,
            // `valid` implies 4 or 5 bytes.
            len: b.len() as u8,
        })
    }

    /// The USI text, e.g. `7g7f`.
    pub fn as_str(&self) -> &str {
        // Only validated ASCII is ever stored (see `parse`), so this cannot fail.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("UsiMove holds ASCII")
    }

    /// True for a drop such as `P*5e`.
    pub fn is_drop(&self) -> bool {
        self.bytes[1] == b'*'
    }

    /// True for a promoting board move such as `8h2b+`.
    pub fn is_promotion(&self) -> bool {
        self.len == 5
    }

    /// The origin square as (file 1-9, rank 1-9), `None` for a drop.
    pub fn from_square(&self) -> Option<(u8, u8)> {
        if self.is_drop() {
            None
        } else {
            Some((self.bytes[0] - b'0', self.bytes[1] - b'a' + 1))
        }
    }

    /// The destination square as (file 1-9, rank 1-9).
    pub fn to_square(&self) -> (u8, u8) {
        (self.bytes[2] - b'0', self.bytes[3] - b'a' + 1)
    }

    /// The dropped piece letter (`P`, `L`, `N`, `S`, `G`, `B`, `R`), `None` for a board move.
    pub fn dropped_piece(&self) -> Option<char> {
        self.is_drop().then(|| char::from(self.bytes[0]))
    }
}

impl FromStr for UsiMove {
    type Err = UsiParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UsiMove::parse(s)
    }
}

impl fmt::Display for UsiMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for UsiMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UsiMove({})", self.as_str())
    }
}

impl PartialEq<str> for UsiMove {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for UsiMove {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Formats a move list with single spaces (`7g7f 3c3d`).
pub(crate) fn write_moves(f: &mut fmt::Formatter<'_>, moves: &[UsiMove]) -> fmt::Result {
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(m.as_str())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_board_moves_drops_and_promotions() {
        for text in ["7g7f", "1a9i", "8h2b+", "P*5e", "R*1a", "L*9i", "N*3c"] {
            let m = UsiMove::parse(text).unwrap();
            assert_eq!(m.as_str(), text);
            assert_eq!(m.to_string(), text);
        }
    }

    #[test]
    fn rejects_malformed_tokens() {
        for text in [
            "", "7g7", "7g7f++", "0a1a", "7j7f", "7g7f=", "K*5e", "p*5e", "P*5e+", "P-5e",
            "resign", "win", " 7g7f", "7g7f ", "+P*5e", "７g7f", "7G7F", "none", "0000",
        ] {
            assert!(UsiMove::parse(text).is_err(), "{text:?} should be rejected");
        }
    }

    #[test]
    fn accessors_decode_squares() {
        let m = UsiMove::parse("7g7f").unwrap();
        assert_eq!(m.from_square(), Some((7, 7)));
        assert_eq!(m.to_square(), (7, 6));
        assert!(!m.is_drop() && !m.is_promotion());
        assert_eq!(m.dropped_piece(), None);
        let d = UsiMove::parse("P*5e").unwrap();
        assert!(d.is_drop());
        assert_eq!(d.from_square(), None);
        assert_eq!(d.to_square(), (5, 5));
        assert_eq!(d.dropped_piece(), Some('P'));
        let p = UsiMove::parse("8h2b+").unwrap();
        assert!(p.is_promotion());
        assert_eq!(p.from_square(), Some((8, 8)));
        assert_eq!(p.to_square(), (2, 2));
        assert_eq!(p, "8h2b+");
    }
}
