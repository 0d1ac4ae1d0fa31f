//! The trainer's samples: `gougi learn gen`'s lines read into features (each position's 38
//! halfKP features per perspective), score and result, split into training and held-out
//! sets; and the mirror image of a position, which trains as well as the original.

use std::io::BufRead;
use std::path::PathBuf;

use super::net::{push_features, N};
use crate::learn::LearnError;
use crate::shogi::{Color, Position};

/// Positions in memory: per sample, the side to move's 38 features then the other side's,
/// score and result from the side to move's view.
pub(super) struct Samples {
    pub(super) feats: Vec<u32>,
    pub(super) score: Vec<f32>,
    /// 1 won, 0.5 drawn, 0 lost (the side to move).
    pub(super) result: Vec<f32>,
    /// The SFENs, kept for the held-out set only (the quantized net is checked on them).
    pub(super) sfen: Vec<String>,
}

impl Samples {
    pub(super) fn new() -> Samples {
        Samples {
            feats: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
            sfen: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.score.len()
    }

    pub(super) fn features(&self, k: usize) -> &[u32] {
        &self.feats[k * 2 * N..(k + 1) * 2 * N]
    }
}

/// Reads the data files: `(training, held out)`. Every `validation`-th block of 200 lines is
/// held out: the generator writes a game's positions together, so held-out positions mostly
/// come from games not trained on.
pub(super) fn load(
    files: &[PathBuf],
    validation: usize,
    mirror: bool,
) -> Result<(Samples, Samples), LearnError> {
    let (mut train, mut valid) = (Samples::new(), Samples::new());
    let mut line_no = 0usize;
    for path in files {
        let io = |source| LearnError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            let bad = |sfen| LearnError::Line {
                path: path.clone(),
                line: n + 1,
                sfen,
            };
            let mut fields = line.split('\t');
            let (Some(sfen), Some(score), Some(result)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad(None));
            };
            let pos = Position::from_sfen(sfen).map_err(|e| bad(Some(e)))?;
            let score: f32 = score.trim().parse().map_err(|_| bad(None))?;
            let result: f32 = match result.trim() {
                "1" => 1.0,
                "0" => 0.5,
                "-1" => 0.0,
                _ => return Err(bad(None)),
            };
            if pos.king_square(Color::Black).is_none() || pos.king_square(Color::White).is_none() {
                return Err(bad(None));
            }
            let held_out = validation > 0 && (line_no / 200) % validation == validation - 1;
            line_no += 1;
            let s = if held_out { &mut valid } else { &mut train };
            let white = pos.side_to_move() == Color::White;
            let (score, result) = if white {
                (-score, 1.0 - result)
            } else {
                (score, result)
            };
            let mut add = |pos: &Position| {
                push_features(pos, &mut s.feats);
                s.score.push(score);
                s.result.push(result);
            };
            add(&pos);
            if held_out {
                s.sfen.push(sfen.to_owned());
            } else if mirror {
                let m = Position::from_sfen(&mirrored(sfen)).map_err(|e| bad(Some(e)))?;
                add(&m);
            }
        }
    }
    Ok((train, valid))
}

/// The SFEN with the board mirrored left to right (each rank's cells reversed); hands, side
/// to move and move number unchanged.
pub(super) fn mirrored(sfen: &str) -> String {
    let (board, rest) = sfen.split_once(' ').unwrap_or((sfen, ""));
    let ranks: Vec<String> = board
        .split('/')
        .map(|rank| {
            // The rank's cells: `None` empty, `Some("+p")` or `Some("K")` a piece.
            let mut cells: Vec<Option<&str>> = Vec::with_capacity(9);
            let mut i = 0;
            while i < rank.len() {
                let c = rank.as_bytes()[i];
                if c.is_ascii_digit() {
                    cells.extend(std::iter::repeat_n(None, usize::from(c - b'0')));
                    i += 1;
                } else {
                    let n = if c == b'+' { 2 } else { 1 };
                    cells.push(rank.get(i..i + n));
                    i += n;
                }
            }
            let mut out = String::new();
            let mut empty = 0;
            for cell in cells.iter().rev() {
                match cell {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out += &empty.to_string();
                            empty = 0;
                        }
                        out += p;
                    }
                }
            }
            if empty > 0 {
                out += &empty.to_string();
            }
            out
        })
        .collect();
    format!("{} {rest}", ranks.join("/"))
}
