//! Opening books in YaneuraOu's standard text format (`.db`, "YANEURAOU-DB2016"): reading,
//! writing, choosing a move with the options YaneuraOu's users know, and making a book from
//! `gougi match` CSA records.
//!
//! # The format
//!
//! ```text
//! #YANEURAOU-DB2016 1.00
//! sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
//! 7g7f 3c3d 30 16 12
//! 2g2f none 10 16 3
//! ```
//!
//! A `sfen` line names a position (board, side, hands, optionally the move number); each line
//! after it is one move from there: the move, the expected reply (`none` when unknown), the
//! evaluation after the move from the mover's side, the search depth and the number of times
//! the move was chosen. The last three are optional (0, 0, 1). Lines starting with `#` or `//`
//! are comments; writers sort positions by their SFEN text and moves by count, then eval.
//!
//! # How gougi reads it
//!
//! - A position is found by its Zobrist key (board, side to move, hands): the move number is
//!   ignored (YaneuraOu's `IgnoreBookPly`, always on), and so are the spelling differences of
//!   the hand field (`2Pr` and `r2P` are one position). The key is a `u64` in a `HashMap`, so an
//!   unsorted file reads as well as a sorted one.
//! - The file is read as bytes and split on `\n`; a trailing `\r` is dropped (CRLF files).
//!   Comment lines are skipped without being decoded, so CP932 or UTF-8 comments are fine.
//! - A line that cannot be read (bad SFEN, bad move, bad number, a move before any position)
//!   is skipped with a warning naming the file and line; the moves under a bad SFEN are
//!   skipped with it. The first [`MAX_WARNINGS`] warnings are kept ([`Book::warnings`]) and
//!   logged; the rest are counted ([`Book::skipped_lines`]). Only an unreadable or binary file
//!   is an error ([`BookError`]).
//! - A position listed twice (e.g. at two move numbers) is one position: the moves are merged,
//!   a repeated move keeps the later line's fields with the counts added.
//! - Moves are not checked when the book is loaded (a big book would cost a legality test per
//!   line); [`Book::choose`] checks every candidate with the rules core before it is played.
//!
//! Submodules: [`choose`] (the choice), [`options`] (the USI options and the lines a book
//! answer prints), [`make`] (`gougi book make`).

pub mod choose;
pub mod make;
pub mod options;

use crate::shogi::zobrist::KeyHasher;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::shogi::{Move, Position};

pub use choose::{BookChoice, Choice, SplitMix64};
pub use options::{BookAnswer, BookOptions, OPTION_LINES};

/// The header line writers put first.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// Warnings kept (and logged one by one) per load; later bad lines are only counted.
pub const MAX_WARNINGS: usize = 20;

/// One move of a book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    /// The expected reply (`none` in the file: `None`). Not checked until chosen.
    pub ponder: Option<Move>,
    /// The evaluation after the move, from the mover's side (centipawns).
    pub eval: i32,
    /// The search depth of `eval` (0: unknown).
    pub depth: i32,
    /// How often the move was chosen.
    pub count: u64,
}

impl BookMove {
    /// The move line of the format: `7g7f 3c3d 30 16 12`.
    pub fn line(&self) -> String {
        let ponder = self.ponder.map_or("none".to_string(), |p| p.to_string());
        format!(
            "{} {ponder} {} {} {}",
            self.mv, self.eval, self.depth, self.count
        )
    }
}

/// Why a book could not be read at all (bad lines are warnings, not errors).
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}: not a text book (binary data; an Apery book.bin is not supported)")]
    Binary(String),
}

/// Why a move line was skipped (a warning, see [`Book::warnings`]).
#[derive(Debug, thiserror::Error)]
enum MoveLineError {
    #[error("empty move line")]
    Empty,
    #[error("bad move {0:?}")]
    Move(String),
    #[error("bad ponder move {0:?}")]
    Ponder(String),
    #[error("bad eval {0:?}")]
    Eval(String),
    #[error("bad depth {0:?}")]
    Depth(String),
    #[error("bad count {0:?}")]
    Count(String),
}

/// One position of the book.
#[derive(Clone, Debug)]
struct Entry {
    /// Board, side and hands as read (without `sfen ` and the move number), to write back.
    sfen: Box<str>,
    /// Its move number (1 when the SFEN has none or a bad one): of two listings, the smaller
    /// is kept.
    ply: u32,
    /// Sorted by count, then eval (both descending), as writers order them.
    moves: Vec<BookMove>,
}

type KeyMap = HashMap<u64, u32, KeyHasher>;

/// An opening book in memory.
#[derive(Clone, Default)]
pub struct Book {
    entries: Vec<Entry>,
    index: KeyMap,
    warnings: Vec<String>,
    skipped: usize,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("positions", &self.entries.len())
            .field("skipped_lines", &self.skipped)
            .finish()
    }
}

/// The text of a line for a message: at most 60 characters, CP932 decoded if not UTF-8.
fn shown(raw: &[u8]) -> String {
    let text = crate::config::decode(raw);
    let mut s: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s
}

/// Cuts a trailing `# …` or `// …` comment off a data line. Done on bytes, before decoding:
/// the comment may be CP932, whose trail bytes (0x40 and up) never look like `#` or `/`.
fn strip_comment(line: &[u8]) -> &[u8] {
    let hash = line.iter().position(|&b| b == b'#');
    let slashes = line.windows(2).position(|w| w == b"//");
    let cut = hash.into_iter().chain(slashes).min().unwrap_or(line.len());
    line[..cut].trim_ascii_end()
}

/// Splits SFEN text into board-side-hands and the move number (1 when absent or not a
/// positive number: the number is never part of the lookup, so a book with `0` or garbage
/// there still reads).
fn split_ply(sfen: &str) -> (&str, u32) {
    let fields: Vec<&str> = sfen.split_ascii_whitespace().collect();
    if fields.len() != 4 {
        return (sfen, 1);
    }
    let head = sfen[..sfen.len() - fields[3].len()].trim_end();
    let ply = fields[3]
        .parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
        .unwrap_or(1);
    (head, ply)
}

/// Parses a move line (`<move> <ponder|none> [eval [depth [count]]]`).
fn parse_move_line(line: &str) -> Result<BookMove, MoveLineError> {
    let mut it = line.split_ascii_whitespace();
    let mv_text = it.next().ok_or(MoveLineError::Empty)?;
    let mv = Move::from_usi(mv_text).ok_or_else(|| MoveLineError::Move(mv_text.into()))?;
    let ponder = match it.next() {
        None | Some("none") | Some("resign") => None,
        Some(p) => Some(Move::from_usi(p).ok_or_else(|| MoveLineError::Ponder(p.into()))?),
    };
    let eval = match it.next() {
        None => 0,
        Some(t) => t
            .parse::<i32>()
            .map_err(|_| MoveLineError::Eval(t.into()))?,
    };
    let depth = match it.next() {
        None => 0,
        Some(t) => t
            .parse::<i32>()
            .map_err(|_| MoveLineError::Depth(t.into()))?,
    };
    let count = match it.next() {
        None => 1,
        Some(t) => t
            .parse::<u64>()
            .map_err(|_| MoveLineError::Count(t.into()))?,
    };
    // Further columns (some tools add win/lose counts) are not part of the standard; ignored.
    Ok(BookMove {
        mv,
        ponder,
        eval,
        depth,
        count,
    })
}

/// Count first, then eval, both descending: the order writers use and ties are broken by.
fn sort_moves(moves: &mut [BookMove]) {
    moves.sort_by(|a, b| b.count.cmp(&a.count).then(b.eval.cmp(&a.eval)));
}

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// Reads a book file. Bad lines are skipped with warnings (see [`Book::warnings`]).
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let bytes = std::fs::read(path).map_err(|source| BookError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Book::parse(&bytes, &path.display().to_string())
    }

    /// Reads a book from its bytes; `name` names it in warnings.
    pub fn parse(bytes: &[u8], name: &str) -> Result<Book, BookError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes[..bytes.len().min(4096)].contains(&0) {
            return Err(BookError::Binary(name.to_string()));
        }
        let mut book = Book::new();
        // The entry the move lines belong to; `Err(())` under a bad SFEN (its moves are
        // skipped without a warning each); `Ok(None)` before the first position.
        let mut current: Result<Option<u32>, ()> = Ok(None);
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let raw = raw.trim_ascii();
            if raw.is_empty() || raw.starts_with(b"#") || raw.starts_with(b"//") {
                continue;
            }
            let line_no = i + 1;
            let Ok(line) = std::str::from_utf8(strip_comment(raw)) else {
                book.warn(name, line_no, "not text", raw);
                continue;
            };
            if let Some(sfen) = line.strip_prefix("sfen ") {
                let (head, ply) = split_ply(sfen.trim());
                match Position::from_sfen(head) {
                    Ok(pos) => current = Ok(Some(book.entry_for(&pos, head, ply))),
                    Err(e) => {
                        book.warn(name, line_no, &format!("bad SFEN ({e})"), raw);
                        current = Err(());
                    }
                }
                continue;
            }
            match current {
                Err(()) => book.skipped += 1,
                Ok(None) => book.warn(name, line_no, "a move line before any sfen line", raw),
                Ok(Some(e)) => match parse_move_line(line) {
                    Ok(m) => book.merge(e, m),
                    Err(why) => book.warn(name, line_no, &why.to_string(), raw),
                },
            }
        }
        for e in &mut book.entries {
            sort_moves(&mut e.moves);
        }
        if book.skipped > book.warnings.len() {
            tracing::warn!(
                book = name,
                skipped = book.skipped,
                "more bad lines than shown were skipped"
            );
        }
        Ok(book)
    }

    fn warn(&mut self, name: &str, line: usize, why: &str, raw: &[u8]) {
        self.skipped += 1;
        if self.warnings.len() < MAX_WARNINGS {
            let msg = format!("{name}:{line}: {why}: {}; line skipped", shown(raw));
            tracing::warn!("book: {msg}");
            self.warnings.push(msg);
        }
    }

    /// The entry of `pos` (created if new); `head` (board, side, hands) and `ply` are its
    /// text for writing back.
    fn entry_for(&mut self, pos: &Position, head: &str, ply: u32) -> u32 {
        let next = self.entries.len() as u32;
        let idx = *self.index.entry(pos.key()).or_insert(next);
        if idx == next {
            self.entries.push(Entry {
                sfen: head.into(),
                ply,
                moves: Vec::new(),
            });
        } else if ply < self.entries[idx as usize].ply {
            let e = &mut self.entries[idx as usize];
            e.sfen = head.into();
            e.ply = ply;
        }
        idx
    }

    /// Adds a move to entry `idx`: a move already there takes the new fields and the sum of
    /// the counts.
    fn merge(&mut self, idx: u32, m: BookMove) {
        let moves = &mut self.entries[idx as usize].moves;
        match moves.iter_mut().find(|b| b.mv == m.mv) {
            Some(b) => {
                let count = b.count.saturating_add(m.count);
                *b = BookMove { count, ..m };
            }
            None => moves.push(m),
        }
    }

    /// Adds `m` to the moves of `pos` (merged as when a file lists a position twice).
    pub fn add(&mut self, pos: &Position, m: BookMove) {
        let sfen = pos.to_sfen();
        let (head, ply) = split_ply(&sfen);
        let idx = self.entry_for(pos, head, ply);
        self.merge(idx, m);
        sort_moves(&mut self.entries[idx as usize].moves);
    }

    /// The book's moves for `pos`, best first (count, then eval); empty when not in the book.
    /// Not checked for legality.
    pub fn moves(&self, pos: &Position) -> &[BookMove] {
        self.index
            .get(&pos.key())
            .map_or(&[], |&i| &self.entries[i as usize].moves)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of moves over all positions.
    pub fn move_count(&self) -> usize {
        self.entries.iter().map(|e| e.moves.len()).sum()
    }

    /// The first [`MAX_WARNINGS`] warnings of the load (`file:line: why: text; line skipped`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Lines skipped by the load (bad lines and the moves under a bad SFEN).
    pub fn skipped_lines(&self) -> usize {
        self.skipped
    }

    /// Every position with its moves, in no particular order: `(board side hands, moves)`.
    pub fn positions(&self) -> impl Iterator<Item = (&str, &[BookMove])> {
        self.entries
            .iter()
            .map(|e| (e.sfen.as_ref(), e.moves.as_slice()))
    }

    /// Writes the book in the standard format: the header, then positions sorted by their SFEN
    /// (re-spelt by the rules core, so hands are in the standard order and the move number is
    /// present), moves by count then eval. Positions without moves are left out.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut sorted: Vec<(String, &Entry)> = self
            .entries
            .iter()
            .filter(|e| !e.moves.is_empty())
            .map(|e| {
                let head = Position::from_sfen(&e.sfen).map_or_else(
                    |_| e.sfen.to_string(),
                    |p| split_ply(&p.to_sfen()).0.to_string(),
                );
                (format!("{head} {}", e.ply), e)
            })
            .collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        writeln!(out, "{HEADER}")?;
        for (sfen, e) in sorted {
            writeln!(out, "sfen {sfen}")?;
            for m in &e.moves {
                writeln!(out, "{}", m.line())?;
            }
        }
        Ok(())
    }

    /// Writes the book to `path` (see [`Book::write_to`]).
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        let io = |source| BookError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        let mut w = std::io::BufWriter::new(file);
        self.write_to(&mut w).map_err(io)?;
        w.flush().map_err(io)
    }
}

#[cfg(test)]
mod tests;
