//! The book's USI options (YaneuraOu's names and defaults) and the lines a book answer prints,
//! shared by every front end that plays from a book (`gougi search` now; the proxy's
//! `G_BookFile` can use the same names behind its prefix).

use crate::shogi::{Move, Position};

use super::{Book, BookChoice, SplitMix64};

/// The option declarations, as printed after `usi`.
pub const OPTION_LINES: &[&str] = &[
    "option name USI_OwnBook type check default true",
    "option name BookFile type string default <empty>",
    "option name BookMoves type spin default 16 min 0 max 10000",
    "option name BookIgnoreRate type spin default 0 min 0 max 100",
    "option name BookEvalDiff type spin default 30 min 0 max 99999",
    "option name BookEvalBlackLimit type spin default 0 min -99999 max 99999",
    "option name BookEvalWhiteLimit type spin default -140 min -99999 max 99999",
    "option name BookDepthLimit type spin default 0 min 0 max 99999",
    "option name ConsiderBookMoveCount type check default false",
    "option name BookPvMoves type spin default 8 min 1 max 246",
    "option name BookSeed type spin default 0 min 0 max 2147483647",
];

/// The book options (see `OPTION_LINES`; the choice ones are explained in
/// [`crate::book::choose`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    /// `BookFile`: a `.db` text book; empty (`<empty>`, `no_book`) = no book.
    pub file: String,
    /// `USI_OwnBook`: the GUI's switch for the engine's own book.
    pub own_book: bool,
    /// `BookMoves` (alias `BookMaxPly`), `BookIgnoreRate`, `BookEvalDiff`,
    /// `BookEvalBlackLimit`, `BookEvalWhiteLimit` (`BookEvalLimit` sets both),
    /// `BookDepthLimit`, `ConsiderBookMoveCount`.
    pub choice: BookChoice,
    /// `BookPvMoves`: length of the `pv` printed for a book move.
    pub pv_moves: usize,
    /// `BookSeed`: the choice's random seed; 0 = from the clock.
    pub seed: u64,
}

impl Default for BookOptions {
    fn default() -> Self {
        BookOptions {
            file: String::new(),
            own_book: true,
            choice: BookChoice::default(),
            pv_moves: 8,
            seed: 0,
        }
    }
}

/// What a book answer prints: `info` lines (illegal book moves, the choice, its `pv`), then the
/// `bestmove` line when the book has a move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookAnswer {
    pub info: Vec<String>,
    pub bestmove: Option<String>,
}

/// A book option's value that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}: not {expected}: {value}")]
pub struct BookOptionError {
    pub name: String,
    pub value: String,
    /// What the option takes, e.g. "a number".
    pub expected: &'static str,
}

impl BookOptions {
    /// Applies `setoption name <name> value <value>` if `name` (any case) is a book option:
    /// `None` when it is not one, `Some(Err)` for a bad value (nothing changed). Numbers out
    /// of range are clamped.
    pub fn set(&mut self, name: &str, value: &str) -> Option<Result<(), BookOptionError>> {
        let v = value.trim();
        let bad = |expected| BookOptionError {
            name: name.to_owned(),
            value: value.to_owned(),
            expected,
        };
        let int = |lo: i64, hi: i64| -> Result<i64, BookOptionError> {
            v.parse::<i64>()
                .map(|n| n.clamp(lo, hi))
                .map_err(|_| bad("a number"))
        };
        let check = || -> Result<bool, BookOptionError> {
            match v.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(bad("true/false")),
            }
        };
        let c = &mut self.choice;
        let result = match name.to_ascii_lowercase().as_str() {
            "usi_ownbook" => check().map(|b| self.own_book = b),
            "bookfile" => {
                self.file = if v == "<empty>" || v == "no_book" {
                    String::new()
                } else {
                    v.to_string()
                };
                Ok(())
            }
            // `BookMaxPly` is accepted for `BookMoves` (the name gougi's issue used).
            "bookmoves" | "bookmaxply" => int(0, 10_000).map(|n| c.max_ply = n as u32),
            "bookignorerate" => int(0, 100).map(|n| c.ignore_rate = n as u32),
            "bookevaldiff" => int(0, 99_999).map(|n| c.eval_diff = Some(n as i32)),
            "bookevalblacklimit" => {
                int(-99_999, 99_999).map(|n| c.eval_limit_black = Some(n as i32))
            }
            "bookevalwhitelimit" => {
                int(-99_999, 99_999).map(|n| c.eval_limit_white = Some(n as i32))
            }
            // One floor for both sides, for users of engines with a single limit.
            "bookevallimit" => int(-99_999, 99_999).map(|n| {
                c.eval_limit_black = Some(n as i32);
                c.eval_limit_white = Some(n as i32);
            }),
            "bookdepthlimit" => int(0, 99_999).map(|n| c.depth_limit = n as i32),
            "considerbookmovecount" => check().map(|b| c.by_count = b),
            "bookpvmoves" => int(1, 246).map(|n| self.pv_moves = n as usize),
            "bookseed" => int(0, i64::from(i32::MAX)).map(|n| self.seed = n as u64),
            _ => return None,
        };
        Some(result)
    }

    /// Loads the book `BookFile` names (`None` when empty or unreadable), with the `info` lines
    /// that say what was read: `info string book: <file>: N positions, M moves`, one
    /// `info string book warning: <file>:<line>: …` per kept warning and a count of the rest,
    /// or `info string error: BookFile <why>; playing without a book`.
    pub fn load(&self) -> (Option<Book>, Vec<String>) {
        let mut lines = Vec::new();
        if self.file.is_empty() {
            return (None, lines);
        }
        match Book::load(std::path::Path::new(&self.file)) {
            Ok(book) => {
                lines.push(format!(
                    "info string book: {}: {} positions, {} moves",
                    self.file,
                    book.len(),
                    book.move_count()
                ));
                for w in book.warnings() {
                    lines.push(format!("info string book warning: {w}"));
                }
                let more = book.skipped_lines().saturating_sub(book.warnings().len());
                if more > 0 {
                    lines.push(format!(
                        "info string book warning: {more} more bad lines skipped"
                    ));
                }
                (Some(book), lines)
            }
            Err(e) => {
                tracing::warn!(error = %e, "BookFile");
                lines.push(format!(
                    "info string error: BookFile {e}; playing without a book"
                ));
                (None, lines)
            }
        }
    }

    /// The random numbers for the choice: seeded by `BookSeed`, else from the clock.
    pub fn rng(&self) -> SplitMix64 {
        if self.seed == 0 {
            SplitMix64::from_time()
        } else {
            SplitMix64::new(self.seed)
        }
    }

    /// The book's answer in `pos` under these options (nothing when `USI_OwnBook` is off):
    /// `info string book: <m> is not legal here; skipped` per illegal book move, then for a
    /// choice `info string book: 7g7f (count 12, eval 30)`, `info [depth D] score cp E pv …`
    /// and `bestmove 7g7f [ponder 3c3d]`.
    pub fn answer(&self, book: &Book, pos: &Position, rng: &mut SplitMix64) -> BookAnswer {
        let mut out = BookAnswer::default();
        if !self.own_book {
            return out;
        }
        let c = book.choose_explained(pos, &self.choice, &mut || rng.next_u64());
        for m in &c.illegal {
            out.info
                .push(format!("info string book: {m} is not legal here; skipped"));
        }
        let Some(pick) = c.pick else { return out };
        out.info.push(format!(
            "info string book: {} (count {}, eval {})",
            pick.mv, pick.count, pick.eval
        ));
        let pv: Vec<String> = book
            .pv(pos, pick.mv, pick.ponder, self.pv_moves)
            .iter()
            .map(Move::to_string)
            .collect();
        let depth = if pick.depth > 0 {
            format!(" depth {}", pick.depth)
        } else {
            String::new()
        };
        out.info.push(format!(
            "info{depth} score cp {} pv {}",
            pick.eval,
            pv.join(" ")
        ));
        out.bestmove = Some(match pick.ponder {
            Some(p) => format!("bestmove {} ponder {p}", pick.mv),
            None => format!("bestmove {}", pick.mv),
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_clamp_and_refuse() {
        let mut o = BookOptions::default();
        assert_eq!(o.set("Hash", "1"), None);
        assert_eq!(o.set("bookmoves", "20000"), Some(Ok(())));
        assert_eq!(o.choice.max_ply, 10_000);
        assert_eq!(o.set("BookMaxPly", "12"), Some(Ok(())));
        assert_eq!(o.choice.max_ply, 12);
        assert_eq!(o.set("BookEvalLimit", "-50"), Some(Ok(())));
        assert_eq!(
            (o.choice.eval_limit_black, o.choice.eval_limit_white),
            (Some(-50), Some(-50))
        );
        assert!(matches!(o.set("BookEvalDiff", "x"), Some(Err(_))));
        assert_eq!(o.choice.eval_diff, Some(30));
        assert!(matches!(o.set("USI_OwnBook", "maybe"), Some(Err(_))));
        assert_eq!(o.set("USI_OwnBook", "false"), Some(Ok(())));
        assert!(!o.own_book);
        assert_eq!(o.set("BookFile", " no_book "), Some(Ok(())));
        assert_eq!(o.file, "");
        assert_eq!(o.set("BookFile", "/tmp/a b.db"), Some(Ok(())));
        assert_eq!(o.file, "/tmp/a b.db");
    }

    #[test]
    fn every_declared_option_is_accepted() {
        for line in OPTION_LINES {
            let name = line.split_whitespace().nth(2).unwrap();
            let value = if line.contains("type check") {
                "true"
            } else {
                "1"
            };
            let mut o = BookOptions::default();
            assert_eq!(o.set(name, value), Some(Ok(())), "{name}");
        }
    }
}
