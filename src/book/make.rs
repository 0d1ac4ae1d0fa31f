//! `gougi book make`: a book from CSA game records (as `gougi match` writes them).
//!
//! Each game is replayed move by move through the rules core; every position whose move number
//! is at most `max_ply` gets the moves played from it, `count` = how often. The eval is the mean
//! of the floodgate-style `'** <score>` comments that follow the move (Black's view in the
//! record, turned to the mover's view for the book), 0 when no occurrence had one; depth is 0.
//! The reply (`ponder`) is the most played move of the position after the move (looked up one
//! ply beyond `max_ply` too), `none` when the records have none. Moves played fewer than
//! `min_count` times are left out, and positions left without moves.
//!
//! The CSA reader takes what `gougi match` and floodgate write: `PI` (with handicap removals
//! such as `PI82HI`) or `P1`…`P9` rows with `P+`/`P-` pieces, the side line, moves with or
//! without `,T…` on the same line, `'` comments, `%` end lines, several games separated by
//! `/`, CRLF, UTF-8 or CP932. A record whose start cannot be read, or a move that is not legal,
//! ends that record's contribution with a warning naming file and line; what came before it
//! counts. A CSA position has no move number: a record starting from `P1`…`P9` rows starts at
//! move number 1.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::shogi::csa::{kind_from_csa, parse_csa_move};
use crate::shogi::{Color, File, PieceKind, Position, Rank, SfenError, Square};

use super::{Book, BookError, BookMove};

/// Options of `gougi book make`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakeOptions {
    /// Positions up to this move number (1 = the start position only).
    pub max_ply: u32,
    /// Moves played fewer times are left out.
    pub min_count: u64,
}

impl Default for MakeOptions {
    fn default() -> Self {
        MakeOptions {
            max_ply: 32,
            min_count: 1,
        }
    }
}

/// What a make run read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MakeReport {
    /// Games with at least one position (a file may hold several, separated by `/`).
    pub games: usize,
    /// Moves counted (occurrences within `max_ply`).
    pub moves_counted: usize,
    /// `file:line: why` for every record cut short or skipped.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug)]
struct MoveTally {
    mv: crate::shogi::Move,
    count: u64,
    eval_sum: i64,
    evals: u64,
    /// Key of the position after the move (for the reply).
    next: u64,
}

#[derive(Clone, Debug)]
struct PositionTally {
    /// `to_sfen()` at the lowest move number it was reached at.
    sfen: String,
    ply: u32,
    moves: Vec<MoveTally>,
}

/// Why a record's start position could not be read (the warning that skips the record).
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error("bad PI line: PI{0}")]
    PiLine(String),
    #[error("bad square in PI{0}")]
    PiSquare(String),
    #[error("bad piece in PI{0}")]
    PiPiece(String),
    #[error("PI{rest}: no {piece} to remove")]
    PiNothing { rest: String, piece: String },
    #[error("bad row P{rank}{cells}")]
    Row { rank: u8, cells: String },
    #[error("bad cell {text:?} in P{rank}")]
    Cell { text: String, rank: u8 },
    #[error("bad piece list {0:?}")]
    PieceList(String),
    #[error("00AL (all remaining pieces) is not supported")]
    AllRemaining,
    #[error("bad piece {0:?}")]
    Piece(String),
    #[error("{0}: not a piece for the hand")]
    NotForHand(String),
    #[error("bad square in {0:?}")]
    Square(String),
    #[error("the start position is not valid: {0}")]
    Invalid(SfenError),
    #[error("a move before the side-to-move line")]
    MoveBeforeSide,
}

/// Positions → moves played, for one layer of plies.
type Tallies = HashMap<u64, PositionTally>;

/// Collects records; [`Maker::finish`] makes the book.
#[derive(Debug, Default)]
pub struct Maker {
    opts: MakeOptions,
    /// Positions with move number ≤ `max_ply`.
    book: Tallies,
    /// Positions one ply further: only to name the reply of the last book moves.
    beyond: Tallies,
    report: MakeReport,
}

/// The board and hands of a CSA position block, as it is read.
struct Setup {
    /// `[rank 1..9][file 9..1]`, SFEN order.
    board: [Option<(Color, PieceKind)>; 81],
    hands: [[u8; 7]; 2],
}

fn cell(file: u8, rank: u8) -> Option<usize> {
    ((1..=9).contains(&file) && (1..=9).contains(&rank))
        .then(|| usize::from(rank - 1) * 9 + usize::from(9 - file))
}

impl Setup {
    fn empty() -> Setup {
        Setup {
            board: [None; 81],
            hands: [[0; 7]; 2],
        }
    }

    /// `PI` with optional removals (`PI82HI22KA`).
    fn hirate(rest: &str) -> Result<Setup, StartError> {
        let start = Position::startpos();
        let mut s = Setup::empty();
        for rank in 1..=9u8 {
            for file in 1..=9u8 {
                let sq = Square::new(
                    File::new(file).expect("1..=9"),
                    Rank::new(rank).expect("1..=9"),
                );
                if let (Some(p), Some(i)) = (start.piece_on(sq), cell(file, rank)) {
                    s.board[i] = Some((p.color, p.kind));
                }
            }
        }
        let b = rest.as_bytes();
        if b.len() % 4 != 0 || !rest.is_ascii() {
            return Err(StartError::PiLine(rest.into()));
        }
        for chunk in rest.as_bytes().chunks(4) {
            let text = std::str::from_utf8(chunk).map_err(|_| StartError::PiLine(rest.into()))?;
            let i = cell(chunk[0].wrapping_sub(b'0'), chunk[1].wrapping_sub(b'0'))
                .ok_or_else(|| StartError::PiSquare(rest.into()))?;
            let kind = kind_from_csa(&text[2..]).ok_or_else(|| StartError::PiPiece(rest.into()))?;
            match s.board[i] {
                Some((_, k)) if k == kind => s.board[i] = None,
                _ => {
                    return Err(StartError::PiNothing {
                        rest: rest.into(),
                        piece: text[2..].into(),
                    })
                }
            }
        }
        Ok(s)
    }

    /// A `P1`…`P9` row: nine cells of three characters (` * `, `+FU`, `-OU`).
    fn row(&mut self, rank: u8, cells: &str) -> Result<(), StartError> {
        let padded = format!("{cells:<27}");
        if padded.len() != 27 || !padded.is_ascii() {
            return Err(StartError::Row {
                rank,
                cells: cells.into(),
            });
        }
        for (k, c) in padded.as_bytes().chunks(3).enumerate() {
            let text = std::str::from_utf8(c).map_err(|_| StartError::Row {
                rank,
                cells: cells.into(),
            })?;
            let i = cell(9 - k as u8, rank).expect("k < 9");
            self.board[i] = match text {
                " * " => None,
                _ => {
                    let color = match c[0] {
                        b'+' => Color::Black,
                        b'-' => Color::White,
                        _ => {
                            return Err(StartError::Cell {
                                text: text.into(),
                                rank,
                            })
                        }
                    };
                    let kind = kind_from_csa(&text[1..]).ok_or_else(|| StartError::Cell {
                        text: text.into(),
                        rank,
                    })?;
                    Some((color, kind))
                }
            };
        }
        Ok(())
    }

    /// A `P+`/`P-` line: `00FU` puts a piece in hand, `5141KI` on the board.
    fn pieces(&mut self, color: Color, list: &str) -> Result<(), StartError> {
        if list.len() % 4 != 0 || !list.is_ascii() {
            return Err(StartError::PieceList(list.into()));
        }
        for chunk in list.as_bytes().chunks(4) {
            let text =
                std::str::from_utf8(chunk).map_err(|_| StartError::PieceList(list.into()))?;
            if &text[2..] == "AL" {
                return Err(StartError::AllRemaining);
            }
            let kind = kind_from_csa(&text[2..]).ok_or_else(|| StartError::Piece(text.into()))?;
            if &text[..2] == "00" {
                if !kind.is_hand_kind() {
                    return Err(StartError::NotForHand(text.into()));
                }
                self.hands[color.index()][kind.index()] += 1;
            } else {
                let i = cell(chunk[0].wrapping_sub(b'0'), chunk[1].wrapping_sub(b'0'))
                    .ok_or_else(|| StartError::Square(text.into()))?;
                self.board[i] = Some((color, kind));
            }
        }
        Ok(())
    }

    /// The position, `side` to move, move number 1 (checked by the rules core's SFEN reader).
    fn position(&self, side: Color) -> Result<Position, StartError> {
        let mut s = String::with_capacity(96);
        for rank in 0..9 {
            if rank > 0 {
                s.push('/');
            }
            let mut empty = 0;
            for f in 0..9 {
                match self.board[rank * 9 + f] {
                    None => empty += 1,
                    Some((color, kind)) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        if kind.is_promoted() {
                            s.push('+');
                        }
                        let c = kind.sfen_char();
                        s.push(if color == Color::White {
                            c.to_ascii_lowercase()
                        } else {
                            c
                        });
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
        }
        s.push_str(if side == Color::Black { " b " } else { " w " });
        let mut hands = String::new();
        for color in [Color::Black, Color::White] {
            for kind in PieceKind::HAND.into_iter().rev() {
                let n = self.hands[color.index()][kind.index()];
                if n == 0 {
                    continue;
                }
                if n > 1 {
                    hands.push_str(&n.to_string());
                }
                let c = kind.sfen_char();
                hands.push(if color == Color::White {
                    c.to_ascii_lowercase()
                } else {
                    c
                });
            }
        }
        s.push_str(if hands.is_empty() { "-" } else { &hands });
        s.push_str(" 1");
        Position::from_sfen(&s).map_err(StartError::Invalid)
    }
}

/// Reading state of one game.
enum Game {
    /// Reading the position block.
    Setup(Setup),
    /// Playing moves; `last` is the move a `'**` comment belongs to (when it was counted).
    Playing {
        pos: Box<Position>,
        last: Option<(u64, usize, Color)>,
    },
    /// Cut short (bad start, illegal move, or the end): the rest up to `/` is ignored.
    Done,
}

impl Maker {
    pub fn new(opts: MakeOptions) -> Maker {
        Maker {
            opts,
            ..Maker::default()
        }
    }

    fn warn(&mut self, name: &str, line: usize, why: &str) {
        let msg = format!("{name}:{line}: {why}");
        tracing::warn!("book make: {msg}");
        self.report.warnings.push(msg);
    }

    /// Reads one record file's text (any number of games separated by `/`).
    pub fn add_record(&mut self, name: &str, text: &str) {
        let mut game = Game::Setup(Setup::empty());
        let mut counted = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim_end();
            if line == "/" {
                if counted {
                    self.report.games += 1;
                }
                counted = false;
                game = Game::Setup(Setup::empty());
                continue;
            }
            for stmt in line.split(',') {
                let stmt = stmt.trim_end();
                if stmt.is_empty() {
                    continue;
                }
                let next = self.statement(name, line_no, stmt, &mut game, &mut counted);
                if let Some(g) = next {
                    game = g;
                }
            }
        }
        if counted {
            self.report.games += 1;
        }
    }

    /// One CSA statement; returns the game's next state when it changes.
    fn statement(
        &mut self,
        name: &str,
        line_no: usize,
        stmt: &str,
        game: &mut Game,
        counted: &mut bool,
    ) -> Option<Game> {
        match game {
            Game::Done => None,
            Game::Setup(setup) => {
                let result = if let Some(rest) = stmt.strip_prefix("PI") {
                    Setup::hirate(rest).map(|s| {
                        *setup = s;
                    })
                } else if let Some(rest) = stmt.strip_prefix("P+") {
                    setup.pieces(Color::Black, rest)
                } else if let Some(rest) = stmt.strip_prefix("P-") {
                    setup.pieces(Color::White, rest)
                } else if let Some(rank) = stmt
                    .strip_prefix('P')
                    .and_then(|r| r.as_bytes().first())
                    .filter(|b| (b'1'..=b'9').contains(b))
                {
                    setup.row(rank - b'0', &stmt[2..])
                } else if stmt == "+" || stmt == "-" {
                    let side = if stmt == "+" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    match setup.position(side) {
                        Ok(pos) => {
                            return Some(Game::Playing {
                                pos: Box::new(pos),
                                last: None,
                            })
                        }
                        Err(e) => Err(e),
                    }
                } else if stmt.starts_with('+') || stmt.starts_with('-') {
                    Err(StartError::MoveBeforeSide)
                } else {
                    // V, N+, N-, $ headers, ' comments: nothing for the book.
                    Ok(())
                };
                match result {
                    Ok(()) => None,
                    Err(why) => {
                        self.warn(name, line_no, &format!("{why}; record skipped"));
                        Some(Game::Done)
                    }
                }
            }
            Game::Playing { pos, last } => {
                if stmt.starts_with('%') {
                    return Some(Game::Done);
                }
                if let Some(rest) = stmt.strip_prefix("'**") {
                    if let (Some((key, idx, mover)), Some(Ok(v))) =
                        (*last, rest.split_whitespace().next().map(str::parse::<i64>))
                    {
                        let v = v.clamp(-100_000, 100_000);
                        let own = if mover == Color::White { -v } else { v };
                        if let Some(t) = self.book.get_mut(&key).map(|p| &mut p.moves[idx]) {
                            t.eval_sum += own;
                            t.evals += 1;
                        }
                    }
                    *last = None;
                    return None;
                }
                if !(stmt.starts_with('+') || stmt.starts_with('-')) {
                    return None; // T lines, comments
                }
                let Some(m) = parse_csa_move(pos, stmt).filter(|&m| pos.is_legal(m).is_ok()) else {
                    self.warn(
                        name,
                        line_no,
                        &format!("{stmt}: not a legal move here; rest of the record skipped"),
                    );
                    return Some(Game::Done);
                };
                let key = pos.key();
                let ply = pos.ply();
                let mover = pos.side_to_move();
                let before = pos.to_sfen();
                pos.do_move(m);
                let next = pos.key();
                let layer = if ply <= self.opts.max_ply {
                    self.report.moves_counted += 1;
                    *counted = true;
                    &mut self.book
                } else if ply == self.opts.max_ply + 1 {
                    &mut self.beyond
                } else {
                    return Some(Game::Done);
                };
                let entry = layer.entry(key).or_insert_with(|| PositionTally {
                    sfen: before.clone(),
                    ply,
                    moves: Vec::new(),
                });
                if ply < entry.ply {
                    entry.ply = ply;
                    entry.sfen = before;
                }
                let idx = match entry.moves.iter().position(|t| t.mv == m) {
                    Some(i) => i,
                    None => {
                        entry.moves.push(MoveTally {
                            mv: m,
                            count: 0,
                            eval_sum: 0,
                            evals: 0,
                            next,
                        });
                        entry.moves.len() - 1
                    }
                };
                entry.moves[idx].count += 1;
                *last = (ply <= self.opts.max_ply).then_some((key, idx, mover));
                None
            }
        }
    }

    /// The book: moves played at least `min_count` times, each with its mean eval and reply.
    pub fn finish(self) -> (Book, MakeReport) {
        let min = self.opts.min_count;
        let eval = |t: &MoveTally| {
            if t.evals == 0 {
                0
            } else {
                (t.eval_sum as f64 / t.evals as f64).round() as i32
            }
        };
        // The most played move (then the best eval) of a position, among those kept.
        let top = |tallies: &Tallies, key: u64| {
            tallies.get(&key).and_then(|p| {
                p.moves
                    .iter()
                    .filter(|t| t.count >= min)
                    .max_by(|a, b| {
                        a.count
                            .cmp(&b.count)
                            .then(eval(a).cmp(&eval(b)))
                            .then(b.mv.to_u16().cmp(&a.mv.to_u16()))
                    })
                    .map(|t| t.mv)
            })
        };
        let mut book = Book::new();
        let mut keys: Vec<&u64> = self.book.keys().collect();
        keys.sort_unstable();
        for key in keys {
            let p = &self.book[key];
            let Ok(pos) = Position::from_sfen(&p.sfen) else {
                continue; // our own to_sfen(): always readable
            };
            for t in p.moves.iter().filter(|t| t.count >= min) {
                let ponder = top(&self.book, t.next).or_else(|| top(&self.beyond, t.next));
                book.add(
                    &pos,
                    BookMove {
                        mv: t.mv,
                        ponder,
                        eval: eval(t),
                        depth: 0,
                        count: t.count,
                    },
                );
            }
        }
        (book, self.report)
    }
}

/// Reads CSA files (UTF-8 or CP932) and makes the book.
pub fn make_from_files(
    files: &[PathBuf],
    opts: MakeOptions,
) -> Result<(Book, MakeReport), BookError> {
    let mut maker = Maker::new(opts);
    for f in files {
        let bytes = std::fs::read(f).map_err(|source| BookError::Io {
            path: f.clone(),
            source,
        })?;
        maker.add_record(&f.display().to_string(), &crate::config::decode(&bytes));
    }
    Ok(maker.finish())
}

/// `gougi book make`: writes the book to `out_path`, the summary to `out`, warnings to `err`.
pub fn run(
    out_path: &Path,
    opts: MakeOptions,
    files: &[PathBuf],
    out: &mut impl Write,
    err: &mut impl Write,
) -> anyhow::Result<()> {
    let (book, report) = make_from_files(files, opts)?;
    for w in &report.warnings {
        writeln!(err, "warning: {w}")?;
    }
    book.save(out_path)?;
    writeln!(
        out,
        "book: {} positions, {} moves from {} games in {} files (max ply {}, min count {}) -> {}",
        book.len(),
        book.move_count(),
        report.games,
        files.len(),
        opts.max_ply,
        opts.min_count,
        out_path.display()
    )?;
    Ok(())
}
