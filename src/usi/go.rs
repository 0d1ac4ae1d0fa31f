//! [`GoLimits`]: the parameters of `go` (and the time fields of `ponderhit`).
//!
//! Times are milliseconds. Who sends what (see `reference/usi-notes.md`): Shogidokoro and
//! ShogiHome send `btime wtime` plus **either** `byoyomi` **or** `binc winc`; GUI analysis (検討)
//! sends `infinite`; `mate <ms>|infinite` asks for a tsume search answered by `checkmate`, and the
//! number is a time, not a depth; `nodes depth movetime` are UCI carry-overs that YaneuraOu
//! accepts; `movestogo`, `searchmoves` and YaneuraOu's `rtime` are rare but kept so a relay loses
//! nothing. Lenient parsing keeps any other token in [`GoLimits::extra`], and clamps or drops a
//! bad value (`btime -5` → `btime 0`; the rule is in [`parse`]).
//!
//! `Display` prints the fields without the `go` keyword, in canonical order:
//! `ponder btime wtime byoyomi binc winc movestogo rtime infinite nodes depth movetime mate`
//! (YaneuraOu documents `go nodes X mate infinite`),
//! then the extra tokens, then `searchmoves …` last (it takes moves until the next keyword).

use std::fmt;

use super::lex;
use super::moves::{write_moves, UsiMove};

/// The longest time, in milliseconds, that planning takes from a clock field: `i32::MAX`,
/// about 24.8 days. Larger values (up to `u64::MAX`, which a GUI can send) are read as this
/// much by the time planners ([`crate::gougi::deadline`], [`crate::search::timeman`]), so
/// their sums cannot overflow, every deadline is a valid `Instant`, and a member that reads
/// clock fields into a 32-bit integer is never sent more than it can hold.
pub const MAX_TIME_MS: u64 = i32::MAX as u64;

/// The argument of `go mate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MateLimit {
    /// `go mate <ms>`: a time limit in milliseconds.
    Time(u64),
    /// `go mate infinite`: until `stop`.
    Infinite,
}

/// Every `go` parameter, typed. `Default` is a bare `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GoLimits {
    /// `ponder`: think on the opponent's time; the last `position` move is the predicted one.
    pub ponder: bool,
    pub btime: Option<u64>,
    pub wtime: Option<u64>,
    pub byoyomi: Option<u64>,
    pub binc: Option<u64>,
    pub winc: Option<u64>,
    /// `movestogo` (UCI; YaneuraOu ignores it).
    pub movestogo: Option<u32>,
    /// `rtime <ms>` (YaneuraOu: a random 1-3x time for self-play variety).
    pub rtime: Option<u64>,
    /// `infinite`: search until `stop` (analysis).
    pub infinite: bool,
    /// `mate <ms>|infinite`: a tsume (詰将棋) search answered by `checkmate`.
    pub mate: Option<MateLimit>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime: Option<u64>,
    /// `searchmoves <m1> <m2> …` (UCI; rare).
    pub searchmoves: Option<Vec<UsiMove>>,
    /// Tokens that are not part of the grammar, kept in order (lenient parsing only).
    pub extra: Vec<String>,
}

impl GoLimits {
    /// True for `go mate …`.
    pub fn is_mate(&self) -> bool {
        self.mate.is_some()
    }

    /// True when any clock field (`btime wtime byoyomi binc winc`) is present.
    pub fn has_clock(&self) -> bool {
        self.btime.is_some()
            || self.wtime.is_some()
            || self.byoyomi.is_some()
            || self.binc.is_some()
            || self.winc.is_some()
    }

    /// The remaining time and increment of one side: (`btime`, `binc`) for Black (先手),
    /// (`wtime`, `winc`) for White (後手).
    pub fn clock_of(&self, black: bool) -> (Option<u64>, Option<u64>) {
        if black {
            (self.btime, self.binc)
        } else {
            (self.wtime, self.winc)
        }
    }
}

impl fmt::Display for GoLimits {
    /// The fields without the `go` keyword, single-spaced, in canonical order; empty for a bare `go`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut word = |f: &mut fmt::Formatter<'_>, text: fmt::Arguments<'_>| {
            let r = write!(f, "{sep}{text}");
            sep = " ";
            r
        };
        if self.ponder {
            word(f, format_args!("ponder"))?;
        }
        let numbers = [
            ("btime", self.btime),
            ("wtime", self.wtime),
            ("byoyomi", self.byoyomi),
            ("binc", self.binc),
            ("winc", self.winc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("rtime", self.rtime),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                word(f, format_args!("{key} {v}"))?;
            }
        }
        if self.infinite {
            word(f, format_args!("infinite"))?;
        }
        let numbers = [
            ("nodes", self.nodes),
            ("depth", self.depth.map(u64::from)),
            ("movetime", self.movetime),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                word(f, format_args!("{key} {v}"))?;
            }
        }
        match self.mate {
            Some(MateLimit::Time(ms)) => word(f, format_args!("mate {ms}"))?,
            Some(MateLimit::Infinite) => word(f, format_args!("mate infinite"))?,
            None => {}
        }
        for token in lex::printable_extras(&self.extra, &GO_KEYWORDS) {
            word(f, format_args!("{token}"))?;
        }
        if let Some(moves) = &self.searchmoves {
            word(f, format_args!("searchmoves"))?;
            if !moves.is_empty() {
                f.write_str(" ")?;
                write_moves(f, moves)?;
            }
        }
        Ok(())
    }
}

/// Every keyword of `go`: in lenient mode a value is never taken from one of these.
pub(crate) const GO_KEYWORDS: [&str; 14] = [
    "ponder",
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movestogo",
    "rtime",
    "infinite",
    "nodes",
    "depth",
    "movetime",
    "mate",
    "searchmoves",
];
