//! Tsume problem files (`tests/data/tsume/` format) and a mate-line checker that uses the
//! rules core's legal move list, not the solver.
//!
//! Format, one problem per line, `#` comments:
//! `sfen <board> <side> <hands> <ply> <expected> [moves…]`, where `<expected>` is the minimax
//! mate length in plies or `nomate`.

use crate::shogi::{generate_legal, IllegalMoveKind, MoveList, Position, SfenError};

/// A problem file line that is not a problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemsError {
    #[error("line {0}: expected `sfen <4 fields> <expected>`")]
    Shape(usize),
    #[error("line {line}: bad expected length {text:?}")]
    Length { line: usize, text: String },
}

/// Why a line is not a mate (ply numbers from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MateLineError {
    #[error(transparent)]
    Sfen(#[from] SfenError),
    #[error("a mate has an odd number of plies, got {0}")]
    EvenLength(usize),
    #[error("ply {ply}: {text} is not legal ({kind})")]
    Illegal {
        ply: usize,
        text: String,
        kind: IllegalMoveKind,
    },
    #[error("ply {ply}: {text} is not a check")]
    NotCheck { ply: usize, text: String },
    #[error("the final position is not mate ({0} replies)")]
    NotMate(usize),
}

/// One problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The four SFEN fields.
    pub sfen: String,
    /// Mate length in plies, or `None` for "no mate".
    pub expected: Option<u16>,
    /// The reference line given in the file (may be empty).
    pub line: Vec<String>,
    /// 1-based line number in the file.
    pub line_no: usize,
}

/// Parse a problem file's text. Bad lines are errors naming the line.
pub fn parse_problems(text: &str) -> Result<Vec<Problem>, ProblemsError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 6 || fields[0] != "sfen" {
            return Err(ProblemsError::Shape(i + 1));
        }
        let expected = match fields[5] {
            "nomate" => None,
            n => Some(n.parse::<u16>().map_err(|_| ProblemsError::Length {
                line: i + 1,
                text: n.to_owned(),
            })?),
        };
        out.push(Problem {
            sfen: fields[1..5].join(" "),
            expected,
            line: fields[6..].iter().map(|s| s.to_string()).collect(),
            line_no: i + 1,
        });
    }
    Ok(out)
}

/// Check that `moves` is a mate from `sfen`: every move legal, every attacker move a check,
/// and the final position checkmate (the defender in check with no legal move). Returns the
/// length. This uses only the rules (legal move lists), never the solver.
pub fn check_mate_line(sfen: &str, moves: &[String]) -> Result<usize, MateLineError> {
    let pos = Position::from_sfen(sfen)?;
    verify_mate_line(&pos, moves)
}

/// [`check_mate_line`] from a position (e.g. one reached by `position … moves`); the moves
/// are USI text, parsed here by the rules core.
pub fn verify_mate_line(pos: &Position, moves: &[impl AsRef<str>]) -> Result<usize, MateLineError> {
    let mut pos = pos.clone();
    if moves.len() % 2 == 0 {
        return Err(MateLineError::EvenLength(moves.len()));
    }
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let m = pos
            .parse_usi_move(text)
            .map_err(|kind| MateLineError::Illegal {
                ply: i + 1,
                text: text.to_owned(),
                kind,
            })?;
        pos.do_move(m);
        if i % 2 == 0 && !pos.in_check() {
            return Err(MateLineError::NotCheck {
                ply: i + 1,
                text: text.to_owned(),
            });
        }
    }
    let mut replies = MoveList::new();
    generate_legal(&pos, &mut replies);
    if !pos.in_check() || !replies.is_empty() {
        return Err(MateLineError::NotMate(replies.len()));
    }
    Ok(moves.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_problems_and_rejects_garbage() {
        let text =
            "# c\nsfen 9/9/9/9/9/9/9/9/9 b - 1 3 a b c\n\nsfen 9/9/9/9/9/9/9/9/9 w - 1 nomate\n";
        let p = parse_problems(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].expected, Some(3));
        assert_eq!(p[0].line, vec!["a", "b", "c"]);
        assert_eq!(p[1].expected, None);
        assert_eq!(p[1].line_no, 4);
        assert!(parse_problems("sfen x b - 1 three").is_err());
        assert!(parse_problems("position startpos").is_err());
    }

    #[test]
    fn checks_reference_lines() {
        let sfen = "6Snl/5+Rg1k/6ppp/9/9/9/9/9/9 b r2b3g3s3n3l15p 1";
        let line: Vec<String> = ["4b3b", "N*2b", "3b2b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(check_mate_line(sfen, &line), Ok(3));
        assert!(check_mate_line(sfen, &line[..1]).is_err());
        let bad: Vec<String> = ["4b3b", "N*2b", "3b3a"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(check_mate_line(sfen, &bad).is_err());
    }
}
