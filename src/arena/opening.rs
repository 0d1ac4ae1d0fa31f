//! Openings: a base position plus moves, one per line of an openings file.
//!
//! Accepted lines (optionally prefixed `position `): `startpos [moves …]`, `sfen <4 fields>
//! [moves …]`, or the four SFEN fields alone; blank lines and `#` comments are skipped. Every
//! line is checked by playing it, and an error names the file and line, so a bad book fails
//! before the first game rather than in game 137.

use std::path::{Path, PathBuf};

use crate::shogi::{Position, PositionError};

/// One opening: `base` is `startpos` or `sfen …`, `moves` the USI moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub base: String,
    pub moves: Vec<String>,
}

/// Why an opening line was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    #[error("{base:?}: {source}")]
    Position { base: String, source: PositionError },
    #[error("move {text} is not legal here ({kind})")]
    IllegalMove {
        text: String,
        kind: crate::shogi::legality::IllegalMoveKind,
    },
    #[error("the opening ends in a position with no legal move")]
    NoLegalMove,
}

impl Opening {
    /// The standard start position with no moves.
    pub fn startpos() -> Opening {
        Opening {
            base: "startpos".into(),
            moves: Vec::new(),
        }
    }

    /// Parses one line (see the module doc); checks the SFEN and every move.
    pub fn parse(line: &str) -> Result<Opening, OpeningError> {
        let line = line.trim();
        let line = line.strip_prefix("position ").unwrap_or(line).trim();
        let (head, moves) = match line.split_once(" moves") {
            Some((h, rest)) if rest.is_empty() || rest.starts_with(char::is_whitespace) => (
                h.trim(),
                rest.split_whitespace().map(str::to_owned).collect(),
            ),
            _ => (line, Vec::new()),
        };
        let base = if head == "startpos" || head.starts_with("sfen ") {
            head.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            format!(
                "sfen {}",
                head.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        };
        let mut pos =
            Position::from_usi_position(&base).map_err(|source| OpeningError::Position {
                base: base.clone(),
                source,
            })?;
        for m in &moves {
            let mv = pos
                .parse_usi_move(m)
                .map_err(|kind| OpeningError::IllegalMove {
                    text: m.clone(),
                    kind,
                })?;
            pos.do_move(mv);
        }
        if pos.legal_moves().is_empty() {
            return Err(OpeningError::NoLegalMove);
        }
        Ok(Opening { base, moves })
    }

    /// The USI `position` text (`startpos moves 7g7f …`).
    pub fn usi(&self) -> String {
        if self.moves.is_empty() {
            self.base.clone()
        } else {
            format!("{} moves {}", self.base, self.moves.join(" "))
        }
    }
}

/// Why an openings file was refused: each names the file (and the line).
#[derive(Debug, thiserror::Error)]
pub enum OpeningsFileError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {source}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        source: OpeningError,
    },
    #[error("{}: no openings in the file", path.display())]
    Empty { path: PathBuf },
}

/// Reads an openings file; errors name the file and the line.
pub fn load(path: &Path) -> Result<Vec<Opening>, OpeningsFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| OpeningsFileError::Read {
        path: path.into(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let o = Opening::parse(t).map_err(|source| OpeningsFileError::Line {
            path: path.into(),
            line: i + 1,
            source,
        })?;
        out.push(o);
    }
    if out.is_empty() {
        return Err(OpeningsFileError::Empty { path: path.into() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_accepted_shapes() {
        let o = Opening::parse("startpos moves 7g7f 3c3d").unwrap();
        assert_eq!(o.base, "startpos");
        assert_eq!(o.moves, vec!["7g7f", "3c3d"]);
        assert_eq!(o.usi(), "startpos moves 7g7f 3c3d");
        let o = Opening::parse("position  startpos").unwrap();
        assert_eq!(o, Opening::startpos());
        let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
        let o = Opening::parse(sfen).unwrap();
        assert_eq!(o.base, format!("sfen {sfen}"));
        let o = Opening::parse(&format!("sfen {sfen} moves 3c3d")).unwrap();
        assert_eq!(o.moves, vec!["3c3d"]);
    }

    #[test]
    fn refuses_bad_lines() {
        assert_eq!(
            Opening::parse("startpos moves 7g7f 7g7f")
                .unwrap_err()
                .to_string(),
            "move 7g7f is not legal here (no piece on the origin square)"
        );
        assert!(Opening::parse("sfen nonsense").is_err());
        // Mated at the start: nothing to play.
        assert_eq!(
            Opening::parse("sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1"),
            Err(OpeningError::NoLegalMove)
        );
    }

    #[test]
    fn the_shipped_openings_load() {
        let v = load(Path::new("tests/data/openings/balanced-16.txt")).unwrap();
        assert_eq!(v.len(), 16);
        // The held-out set (verification only): every line legal, none repeated.
        let held = load(Path::new("tests/data/openings/heldout-512.txt")).unwrap();
        assert_eq!(held.len(), 512);
        let mut texts: Vec<String> = held.iter().map(|o| o.usi()).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), 512);
        let dir = std::env::temp_dir().join(format!("gougi-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.txt");
        std::fs::write(&f, "# book\nstartpos\n\nstartpos moves 1a1b\n").unwrap();
        let e = load(&f).unwrap_err().to_string();
        assert!(e.contains("bad.txt:4: move 1a1b is not legal here"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
