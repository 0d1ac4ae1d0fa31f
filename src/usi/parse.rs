//! Parsing USI lines into the protocol types: [`parse_gui_command`], [`parse_engine_message`],
//! with [`Strictness`], and the one error type [`UsiParseError`].
//!
//! Both modes:
//! - split on ASCII whitespace, so extra spaces, tabs and a trailing `\r` are tolerated;
//! - take "rest of line" fields (`id name`, `info string`, `setoption … value`, a `string`
//!   option default, `mateinfo`) verbatim from the first character after the keyword's
//!   whitespace to the end of the line, trailing whitespace trimmed;
//! - map a line whose first word is not a known keyword to `Unknown` with the line verbatim
//!   (line terminator removed), and a blank line (empty or whitespace only) to `Unknown("")`
//!   ([`GuiCommand::is_blank`](super::GuiCommand::is_blank)): nothing to relay;
//! - reject an invalid move token where a move is required (`position … moves`, `bestmove`,
//!   `checkmate`): the caller must know a member's answer was unusable.
//!
//! [`Strictness::Strict`] is the grammar as written (for testing our own output): no unknown
//! tokens, no duplicated fields, no `+` sign on numbers, numbers within their field's type,
//! `cp` within ±[`CP_LIMIT`], required fields present.
//!
//! [`Strictness::Lenient`] is what real GUIs and engines print. **The value rule** (`go` and
//! `info`; issue #17 found `go btime -5` relayed as `go -5`): a keyword that takes a value
//! consumes its value token, unless the line ends there or the next token is itself a keyword
//! of that command (then the keyword alone is dropped and the next keyword is read as usual).
//! The value is then
//! - an integer of any size, optional sign: **clamped** into the field's range — a negative
//!   time (a clock that ran out, as some GUIs send it) or count becomes 0, a number beyond the
//!   type saturates (`nodes 18446744073709551616` → `u64::MAX`), `cp` is clamped to
//!   ±[`CP_LIMIT`], a `mate` length beyond `u32` saturates;
//! - anything else (`depth x`, `currmove xyz`, `score cp 1.5`): **dropped** with its keyword.
//!
//! `score` consumes `cp`/`mate` and its value (a following `lowerbound`/`upperbound` too);
//! `score pawn 3` drops `score` alone. `go mate` with no usable value after it (end of line, a
//! keyword) means `mate infinite`. So no value of a known field is ever left behind to be
//! printed as a number belonging to nothing.
//!
//! Unknown tokens of `go`/`info` are kept in `extra`, in order, so a relay loses little —
//! except an integer that does not follow a kept unknown token (`go 5`; the stray `-1` of a
//! field that the value rule already consumed cannot occur): an unknown keyword keeps its
//! values (`go foo 5`), a number on its own is dropped. A bound away from its score is
//! dropped. `Display` prints only extras that keep this shape (see `printable_extras`), so every
//! printed `go`/`info` line is well-formed and `parse(format(x)) == x` for parsed values.
//!
//! Lenient also: later duplicates win; `+50` is a number; a missing or malformed `ponder` move
//! is dropped; trailing junk after a complete command is ignored; an option name or setoption
//! name may contain spaces; `setoption <name> value <v>` (no `name`) is YaneuraOu's shorthand;
//! `gameover` without a known result word (cshogi sends a bare `gameover`) is
//! `GameOver(GameResult::Unknown)`; a bare `checkmate` is an empty mate list; and a SFEN may
//! lack its move number.
//!
//! Errors in both modes (a clear [`UsiParseError`], never a panic): `position` without
//! `startpos`/`sfen`, with a malformed SFEN or an invalid move; `setoption` without a name;
//! `bestmove` without a valid move; a malformed `option` declaration.
//!
//! Nothing here panics on any input; the `fuzz/` crate exercises both parsers.

use std::str::FromStr;

use super::command::{GameResult, GuiCommand, PositionBase, PositionCommand, SetOption};
use super::error::{Strictness, UsiParseError};
use super::go::{GoLimits, MateLimit, GO_KEYWORDS};
use super::lex::lenient_integer;
use super::message::{BestMove, Checkmate, EngineMessage, Info, InfoText, INFO_KEYWORDS};
use super::moves::UsiMove;
use super::option::{OptionDecl, OptionKind};
use super::score::{Bound, InfoScore, Mate, Score, CP_LIMIT};

type Result<T> = std::result::Result<T, UsiParseError>;

/// Removes the line terminator (`\n`, `\r\n`, stray `\r`), nothing else.
fn strip_eol(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// Whitespace-separated tokens with their byte offsets, so rest-of-line fields can be sliced
/// from the original text with internal spacing intact.
struct Cursor<'a> {
    line: &'a str,
    tokens: Vec<(usize, &'a str)>,
    next: usize,
}

impl<'a> Cursor<'a> {
    fn new(line: &'a str) -> Self {
        let mut tokens = Vec::new();
        let mut start = None;
        for (i, ch) in line.char_indices() {
            match (ch.is_ascii_whitespace(), start) {
                (true, Some(s)) => {
                    tokens.push((s, &line[s..i]));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            tokens.push((s, &line[s..]));
        }
        Cursor {
            line,
            tokens,
            next: 0,
        }
    }

    fn peek(&self) -> Option<&'a str> {
        self.peek_at(0)
    }

    fn peek_at(&self, k: usize) -> Option<&'a str> {
        self.tokens.get(self.next + k).map(|&(_, t)| t)
    }

    fn advance(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        self.next += 1;
        Some(t)
    }

    /// The raw text from the next token to the end of the line (trailing whitespace trimmed),
    /// consuming everything; `""` at the end.
    fn rest(&mut self) -> &'a str {
        match self.tokens.get(self.next) {
            Some(&(start, _)) => {
                self.next = self.tokens.len();
                self.line[start..].trim_end_matches(|c: char| c.is_ascii_whitespace())
            }
            None => "",
        }
    }

    /// Strict: fails if tokens remain. Lenient: ignores them.
    fn finish(&mut self, mode: Strictness, command: &'static str) -> Result<()> {
        match (mode, self.peek()) {
            (Strictness::Strict, Some(token)) => Err(UsiParseError::UnexpectedToken {
                command,
                token: token.to_owned(),
            }),
            _ => Ok(()),
        }
    }
}

/// An unsigned number; lenient mode accepts a leading `+` (std's `FromStr` does too, so strict
/// mode rejects it explicitly).
fn parse_uint<T: FromStr>(text: &str, mode: Strictness) -> Option<T> {
    if mode == Strictness::Strict && text.starts_with('+') {
        return None;
    }
    text.parse().ok()
}

/// A signed number, with the same `+` rule as [`parse_uint`].
fn parse_int<T: FromStr>(text: &str, mode: Strictness) -> Option<T> {
    parse_uint(text, mode)
}

/// Stores a field, refusing duplicates in strict mode (lenient: the later value wins).
fn set<T>(
    slot: &mut Option<T>,
    value: T,
    mode: Strictness,
    command: &'static str,
    field: &'static str,
) -> Result<()> {
    if mode == Strictness::Strict && slot.is_some() {
        return Err(UsiParseError::Duplicate { command, field });
    }
    *slot = Some(value);
    Ok(())
}

/// A numeric field type, for lenient clamping: its range as `i128`.
pub(crate) trait Bounded: FromStr + Copy {
    const LOW: i128;
    const HIGH: i128;
    /// `v` must already be within `LOW..=HIGH`.
    fn from_in_range(v: i128) -> Self;

    /// `v` clamped into the type's range.
    fn clamped(v: i128) -> Self {
        Self::from_in_range(v.clamp(Self::LOW, Self::HIGH))
    }
}

macro_rules! bounded {
    ($($t:ty),*) => {$(
        impl Bounded for $t {
            const LOW: i128 = <$t>::MIN as i128;
            const HIGH: i128 = <$t>::MAX as i128;
            fn from_in_range(v: i128) -> Self {
                v as $t
            }
        }
    )*};
}
bounded!(u32, u64, i32, i64);

/// Reads the number after a keyword.
///
/// Strict: the next token must be a number of type `T` (no `+`), else an error.
/// Lenient (the rule in the module doc): the value token is consumed unless the line ends or
/// the next token is one of `keywords` (then it is left for the caller's loop); an integer is
/// clamped into `T`'s range; anything else gives `Ok(None)`, "drop the field".
fn take_number<T: Bounded>(
    c: &mut Cursor<'_>,
    mode: Strictness,
    command: &'static str,
    field: &'static str,
    keywords: &[&str],
) -> Result<Option<T>> {
    if mode == Strictness::Lenient {
        return Ok(match c.peek() {
            None => None,
            Some(t) if keywords.contains(&t) => None,
            Some(t) => {
                c.advance();
                lenient_integer(t).map(T::clamped)
            }
        });
    }
    match c.peek().and_then(|t| parse_uint::<T>(t, mode)) {
        Some(n) => {
            c.advance();
            Ok(Some(n))
        }
        None => Err(UsiParseError::InvalidValue {
            command,
            field,
            value: c.peek().unwrap_or("").to_owned(),
        }),
    }
}

/// Lenient handling of an unknown token: kept in `extra` — except an integer that does not
/// follow a kept token (`after_extra`), which is a stray value (`go 5`, the `-1` of a field
/// already dropped) and would print as a number belonging to nothing.
fn keep_extra(extra: &mut Vec<String>, tok: &str, after_extra: &mut bool) {
    if *after_extra || lenient_integer(tok).is_none() {
        extra.push(tok.to_owned());
        *after_extra = true;
    }
}

/// Finds `token` in a table of keywords, returning the table's `'static` copy (for error fields).
fn keyword(token: &str, table: &[&'static str]) -> Option<&'static str> {
    table.iter().copied().find(|k| *k == token)
}

// ---------------------------------------------------------------------------------------------
// The types' parse entry points. They live here, not beside the types, so that the types never
// import the parser (the parser imports them): `usi/` has no import circle.

impl GuiCommand {
    /// Parses one line with the given strictness (see [`Strictness`] for the two modes).
    pub fn parse(line: &str, mode: Strictness) -> Result<Self> {
        parse_gui_command(line, mode)
    }

    /// Strict parse: the grammar exactly (whitespace still tolerated).
    pub fn parse_strict(line: &str) -> Result<Self> {
        parse_gui_command(line, Strictness::Strict)
    }
}

impl FromStr for GuiCommand {
    type Err = UsiParseError;
    /// Lenient parse, what a GUI-facing loop wants.
    fn from_str(s: &str) -> Result<Self> {
        parse_gui_command(s, Strictness::Lenient)
    }
}

impl GoLimits {
    /// Parses the tokens after `go` (or after `ponderhit`).
    pub fn parse(text: &str, mode: Strictness) -> Result<Self> {
        parse_go_limits_text(text, mode)
    }
}

impl FromStr for GoLimits {
    type Err = UsiParseError;
    /// Lenient parse of the tokens after `go`.
    fn from_str(s: &str) -> Result<Self> {
        GoLimits::parse(s, Strictness::Lenient)
    }
}

impl EngineMessage {
    /// Parses one line with the given strictness (see [`Strictness`] for the two modes).
    pub fn parse(line: &str, mode: Strictness) -> Result<Self> {
        parse_engine_message(line, mode)
    }

    /// Strict parse: the grammar exactly (whitespace still tolerated).
    pub fn parse_strict(line: &str) -> Result<Self> {
        parse_engine_message(line, Strictness::Strict)
    }
}

impl FromStr for EngineMessage {
    type Err = UsiParseError;
    /// Lenient parse, what a member reader wants.
    fn from_str(s: &str) -> Result<Self> {
        parse_engine_message(s, Strictness::Lenient)
    }
}

impl FromStr for Score {
    type Err = UsiParseError;
    /// Parses `cp <x>` or `mate <y>` (lenient: a leading `+` is accepted).
    fn from_str(s: &str) -> Result<Self> {
        parse_score_text(s, Strictness::Lenient)
    }
}

// ---------------------------------------------------------------------------------------------
// GUI → engine

/// Parses one GUI → engine line. An empty line or an unknown first word gives
/// [`GuiCommand::Unknown`] with the line verbatim.
pub fn parse_gui_command(line: &str, mode: Strictness) -> Result<GuiCommand> {
    let line = strip_eol(line);
    let mut c = Cursor::new(line);
    let Some(head) = c.advance() else {
        // Blank: `Unknown("")` whatever the whitespace was, so callers test one value.
        return Ok(GuiCommand::Unknown(String::new()));
    };
    let simple = |c: &mut Cursor<'_>, command: &'static str, value: GuiCommand| {
        c.finish(mode, command).map(|()| value)
    };
    match head {
        "usi" => simple(&mut c, "usi", GuiCommand::Usi),
        "isready" => simple(&mut c, "isready", GuiCommand::IsReady),
        "usinewgame" => simple(&mut c, "usinewgame", GuiCommand::UsiNewGame),
        "stop" => simple(&mut c, "stop", GuiCommand::Stop),
        "quit" => simple(&mut c, "quit", GuiCommand::Quit),
        "setoption" => parse_setoption(&mut c, mode).map(GuiCommand::SetOption),
        "position" => parse_position(&mut c, mode).map(GuiCommand::Position),
        "go" => parse_go(&mut c, mode, "go").map(GuiCommand::Go),
        "ponderhit" => parse_go(&mut c, mode, "ponderhit").map(GuiCommand::PonderHit),
        "gameover" => {
            let result = match c.advance() {
                Some("win") => GameResult::Win,
                Some("lose") => GameResult::Lose,
                Some("draw") => GameResult::Draw,
                // cshogi's bare `gameover`, or a word we do not know: the game is over.
                _ if mode == Strictness::Lenient => {
                    c.next = c.tokens.len();
                    GameResult::Unknown
                }
                other => {
                    return Err(UsiParseError::InvalidValue {
                        command: "gameover",
                        field: "result",
                        value: other.unwrap_or("").to_owned(),
                    })
                }
            };
            simple(&mut c, "gameover", GuiCommand::GameOver(result))
        }
        "mateinfo" => {
            let text = c.rest();
            if text.is_empty() && mode == Strictness::Strict {
                return Err(UsiParseError::Missing {
                    command: "mateinfo",
                    what: "text",
                });
            }
            Ok(GuiCommand::MateInfo(text.to_owned()))
        }
        _ => Ok(GuiCommand::Unknown(line.to_owned())),
    }
}

fn parse_setoption(c: &mut Cursor<'_>, mode: Strictness) -> Result<SetOption> {
    const CMD: &str = "setoption";
    match c.peek() {
        Some("name") => {
            c.advance();
        }
        // YaneuraOu accepts the shorthand `setoption <name> value <v>`; so does lenient mode.
        _ if mode == Strictness::Lenient => {}
        _ => {
            return Err(UsiParseError::Missing {
                command: CMD,
                what: "`name`",
            })
        }
    }
    let mut name_parts = Vec::new();
    while let Some(t) = c.peek() {
        if t == "value" {
            break;
        }
        name_parts.push(t);
        c.advance();
    }
    if name_parts.is_empty() {
        return Err(UsiParseError::Missing {
            command: CMD,
            what: "option name",
        });
    }
    if mode == Strictness::Strict && name_parts.len() > 1 {
        return Err(UsiParseError::UnexpectedToken {
            command: CMD,
            token: name_parts[1].to_owned(),
        });
    }
    // The name loop stops only at `value` or at the end of the line.
    let value = c.advance().map(|_value_keyword| c.rest().to_owned());
    Ok(SetOption {
        name: name_parts.join(" "),
        value,
    })
}

fn parse_position(c: &mut Cursor<'_>, mode: Strictness) -> Result<PositionCommand> {
    const CMD: &str = "position";
    let base = match c.advance() {
        Some("startpos") => PositionBase::StartPos,
        Some("sfen") => {
            let mut fields = Vec::with_capacity(4);
            while let Some(t) = c.peek() {
                if t == "moves" {
                    break;
                }
                fields.push(t);
                c.advance();
            }
            PositionBase::Sfen(check_sfen_fields(&fields, mode)?)
        }
        Some(other) => {
            return Err(UsiParseError::UnexpectedToken {
                command: CMD,
                token: other.to_owned(),
            })
        }
        None => {
            return Err(UsiParseError::Missing {
                command: CMD,
                what: "`startpos` or `sfen`",
            })
        }
    };
    let mut moves = Vec::new();
    match c.advance() {
        None => {}
        Some("moves") => {
            while let Some(t) = c.advance() {
                moves.push(UsiMove::parse(t)?);
            }
        }
        Some(other) => {
            return Err(UsiParseError::UnexpectedToken {
                command: CMD,
                token: other.to_owned(),
            })
        }
    }
    Ok(PositionCommand { base, moves })
}

/// Checks the shape of the SFEN fields (not the rules) and joins them with single spaces.
fn check_sfen_fields(fields: &[&str], mode: Strictness) -> Result<String> {
    let sfen = fields.join(" ");
    let bad = |reason: &'static str| UsiParseError::InvalidSfen {
        sfen: sfen.clone(),
        reason,
    };
    let (board, side, hand, ply) = match (fields, mode) {
        ([b, s, h, p], _) => (*b, *s, *h, Some(*p)),
        ([b, s, h], Strictness::Lenient) => (*b, *s, *h, None),
        _ => {
            return Err(bad(
                "expected four fields: board, side to move, hands, move number",
            ))
        }
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return Err(bad("the board needs nine ranks separated by `/`"));
    }
    for rank in ranks {
        let mut squares = 0u32;
        let mut promoted = false;
        for ch in rank.chars() {
            match ch {
                '1'..='9' if !promoted => squares += ch as u32 - '0' as u32,
                '+' if !promoted => promoted = true,
                'P' | 'L' | 'N' | 'S' | 'B' | 'R' | 'p' | 'l' | 'n' | 's' | 'b' | 'r' => {
                    squares += 1;
                    promoted = false;
                }
                'G' | 'K' | 'g' | 'k' if !promoted => squares += 1,
                _ => return Err(bad("unexpected character on the board")),
            }
        }
        if promoted || squares != 9 {
            return Err(bad("a rank does not cover nine squares"));
        }
    }
    if side != "b" && side != "w" {
        return Err(bad("side to move must be `b` or `w`"));
    }
    if hand != "-" {
        let mut count_digits = 0;
        for ch in hand.chars() {
            match ch {
                '0'..='9' if count_digits < 2 => count_digits += 1,
                'P' | 'L' | 'N' | 'S' | 'G' | 'B' | 'R' | 'p' | 'l' | 'n' | 's' | 'g' | 'b'
                | 'r' => count_digits = 0,
                _ => return Err(bad("unexpected character in the hands")),
            }
        }
        if count_digits != 0 {
            return Err(bad("a hand count without a piece"));
        }
    }
    if let Some(p) = ply {
        if parse_uint::<u32>(p, mode).is_none() {
            return Err(bad("the move number is not a number"));
        }
    }
    Ok(sfen)
}

/// The tokens after `go` or `ponderhit` (`command` says which; strict `ponderhit` takes only
/// clock fields).
fn parse_go(c: &mut Cursor<'_>, mode: Strictness, command: &'static str) -> Result<GoLimits> {
    const U64: [&str; 8] = [
        "btime", "wtime", "byoyomi", "binc", "winc", "rtime", "nodes", "movetime",
    ];
    const U32: [&str; 2] = ["movestogo", "depth"];
    const CLOCK: [&str; 5] = ["btime", "wtime", "byoyomi", "binc", "winc"];
    let strict = mode == Strictness::Strict;
    let mut g = GoLimits::default();
    // The previous token was kept in `extra` (see `keep_extra`).
    let mut after_extra = false;
    while let Some(tok) = c.advance() {
        if strict && command == "ponderhit" && !CLOCK.contains(&tok) {
            return Err(UsiParseError::UnexpectedToken {
                command,
                token: tok.to_owned(),
            });
        }
        let was_after_extra = std::mem::replace(&mut after_extra, false);
        if let Some(key) = keyword(tok, &U64) {
            let Some(n) = take_number::<u64>(c, mode, command, key, &GO_KEYWORDS)? else {
                // Lenient: a keyword without a usable value is dropped with its value.
                continue;
            };
            let slot = match key {
                "btime" => &mut g.btime,
                "wtime" => &mut g.wtime,
                "byoyomi" => &mut g.byoyomi,
                "binc" => &mut g.binc,
                "winc" => &mut g.winc,
                "rtime" => &mut g.rtime,
                "nodes" => &mut g.nodes,
                _ => &mut g.movetime,
            };
            set(slot, n, mode, command, key)?;
        } else if let Some(key) = keyword(tok, &U32) {
            let Some(n) = take_number::<u32>(c, mode, command, key, &GO_KEYWORDS)? else {
                // Lenient: a keyword without a usable value is dropped with its value.
                continue;
            };
            let slot = if key == "depth" {
                &mut g.depth
            } else {
                &mut g.movestogo
            };
            set(slot, n, mode, command, key)?;
        } else {
            match tok {
                "ponder" | "infinite" => {
                    let flag = if tok == "ponder" {
                        &mut g.ponder
                    } else {
                        &mut g.infinite
                    };
                    if strict && *flag {
                        return Err(UsiParseError::Duplicate {
                            command,
                            field: if tok == "ponder" {
                                "ponder"
                            } else {
                                "infinite"
                            },
                        });
                    }
                    *flag = true;
                }
                "mate" if strict => {
                    let limit = match c.peek() {
                        Some("infinite") => Some(MateLimit::Infinite),
                        Some(t) => parse_uint::<u64>(t, mode).map(MateLimit::Time),
                        None => None,
                    };
                    let Some(l) = limit else {
                        return Err(UsiParseError::InvalidValue {
                            command,
                            field: "mate",
                            value: c.peek().unwrap_or("").to_owned(),
                        });
                    };
                    c.advance();
                    set(&mut g.mate, l, mode, command, "mate")?;
                }
                "mate" => {
                    // Lenient: `go mate` with nothing usable after it (end of line, another
                    // keyword) means `mate infinite`; a number is clamped like a time field;
                    // any other value is consumed and the field dropped.
                    let limit = match c.peek() {
                        None => Some(MateLimit::Infinite),
                        Some(t) if t != "infinite" && GO_KEYWORDS.contains(&t) => {
                            Some(MateLimit::Infinite)
                        }
                        Some(t) => {
                            c.advance();
                            if t == "infinite" {
                                Some(MateLimit::Infinite)
                            } else {
                                lenient_integer(t).map(|n| MateLimit::Time(u64::clamped(n)))
                            }
                        }
                    };
                    if let Some(l) = limit {
                        g.mate = Some(l);
                    }
                }
                "searchmoves" => {
                    let mut moves = Vec::new();
                    while let Some(m) = c.peek().and_then(|t| UsiMove::parse(t).ok()) {
                        moves.push(m);
                        c.advance();
                    }
                    if strict && moves.is_empty() {
                        return Err(UsiParseError::Missing {
                            command,
                            what: "moves after `searchmoves`",
                        });
                    }
                    match &mut g.searchmoves {
                        Some(list) if !strict => list.extend(moves),
                        slot => set(slot, moves, mode, command, "searchmoves")?,
                    }
                }
                _ if strict => {
                    return Err(UsiParseError::UnexpectedToken {
                        command,
                        token: tok.to_owned(),
                    })
                }
                _ => {
                    after_extra = was_after_extra;
                    keep_extra(&mut g.extra, tok, &mut after_extra);
                }
            }
        }
    }
    Ok(g)
}

/// Parses the text after `go` (used by `GoLimits::parse`).
pub(crate) fn parse_go_limits_text(text: &str, mode: Strictness) -> Result<GoLimits> {
    parse_go(&mut Cursor::new(strip_eol(text)), mode, "go")
}

// ---------------------------------------------------------------------------------------------
// Engine → GUI

/// Parses one engine → GUI line. An empty line or an unknown first word gives
/// [`EngineMessage::Unknown`] with the line verbatim.
pub fn parse_engine_message(line: &str, mode: Strictness) -> Result<EngineMessage> {
    let line = strip_eol(line);
    let mut c = Cursor::new(line);
    let Some(head) = c.advance() else {
        // Blank (YaneuraOu's keep-alive): `Unknown("")` whatever the whitespace was.
        return Ok(EngineMessage::Unknown(String::new()));
    };
    match head {
        "id" => match c.advance() {
            Some("name") => Ok(EngineMessage::IdName(c.rest().to_owned())),
            Some("author") => Ok(EngineMessage::IdAuthor(c.rest().to_owned())),
            _ if mode == Strictness::Lenient => Ok(EngineMessage::Unknown(line.to_owned())),
            other => Err(UsiParseError::InvalidValue {
                command: "id",
                field: "kind",
                value: other.unwrap_or("").to_owned(),
            }),
        },
        "option" => parse_option(&mut c, mode).map(EngineMessage::Option),
        "usiok" => c.finish(mode, "usiok").map(|()| EngineMessage::UsiOk),
        "readyok" => c.finish(mode, "readyok").map(|()| EngineMessage::ReadyOk),
        "info" => parse_info(&mut c, mode).map(EngineMessage::Info),
        "bestmove" => parse_bestmove(&mut c, mode).map(EngineMessage::BestMove),
        "checkmate" => parse_checkmate(&mut c, mode).map(EngineMessage::Checkmate),
        _ => Ok(EngineMessage::Unknown(line.to_owned())),
    }
}

fn parse_bestmove(c: &mut Cursor<'_>, mode: Strictness) -> Result<BestMove> {
    const CMD: &str = "bestmove";
    let strict = mode == Strictness::Strict;
    let best = match c.advance() {
        None => {
            return Err(UsiParseError::Missing {
                command: CMD,
                what: "move",
            })
        }
        Some("resign") => BestMove::Resign,
        Some("win") => BestMove::Win,
        Some(text) => BestMove::Move {
            mv: UsiMove::parse(text)?,
            ponder: None,
        },
    };
    if c.peek() == Some("ponder") {
        c.advance();
        let ponder = c.advance();
        let parsed = ponder.map(UsiMove::parse);
        match (&best, parsed) {
            (BestMove::Move { mv, .. }, Some(Ok(p))) => {
                c.finish(mode, CMD)?;
                return Ok(BestMove::Move {
                    mv: *mv,
                    ponder: Some(p),
                });
            }
            (BestMove::Move { .. }, Some(Err(e))) if strict => return Err(e),
            _ if strict => {
                return Err(UsiParseError::InvalidValue {
                    command: CMD,
                    field: "ponder",
                    value: ponder.unwrap_or("").to_owned(),
                })
            }
            // Lenient: an unusable ponder move is dropped; the best move still stands.
            _ => {}
        }
    }
    c.finish(mode, CMD)?;
    Ok(best)
}

fn parse_checkmate(c: &mut Cursor<'_>, mode: Strictness) -> Result<Checkmate> {
    const CMD: &str = "checkmate";
    let word = match c.peek() {
        Some("nomate") => Some(Checkmate::NoMate),
        Some("timeout") => Some(Checkmate::Timeout),
        Some("notimplemented") => Some(Checkmate::NotImplemented),
        Some("none") => Some(Checkmate::NoneFound),
        Some(_) => None,
        None if mode == Strictness::Lenient => return Ok(Checkmate::Mate(Vec::new())),
        None => {
            return Err(UsiParseError::Missing {
                command: CMD,
                what: "moves or `nomate`/`timeout`/`notimplemented`",
            })
        }
    };
    if let Some(result) = word {
        c.advance();
        c.finish(mode, CMD)?;
        return Ok(result);
    }
    let mut moves = Vec::new();
    while let Some(t) = c.advance() {
        moves.push(UsiMove::parse(t)?);
    }
    Ok(Checkmate::Mate(moves))
}

fn parse_info(c: &mut Cursor<'_>, mode: Strictness) -> Result<Info> {
    const CMD: &str = "info";
    const U32: [&str; 6] = [
        "depth",
        "seldepth",
        "hashfull",
        "multipv",
        "currmovenumber",
        "cpuload",
    ];
    const U64: [&str; 3] = ["time", "nodes", "nps"];
    let strict = mode == Strictness::Strict;
    let mut info = Info::default();
    // The previous token was kept in `extra` (see `keep_extra`).
    let mut after_extra = false;
    while let Some(tok) = c.advance() {
        let was_after_extra = std::mem::replace(&mut after_extra, false);
        if let Some(key) = keyword(tok, &U32) {
            let Some(n) = take_number::<u32>(c, mode, CMD, key, &INFO_KEYWORDS)? else {
                // Lenient: a keyword without a usable value is dropped with its value.
                continue;
            };
            let slot = match key {
                "depth" => &mut info.depth,
                "seldepth" => &mut info.seldepth,
                "hashfull" => &mut info.hashfull,
                "multipv" => &mut info.multipv,
                "currmovenumber" => &mut info.currmovenumber,
                _ => &mut info.cpuload,
            };
            set(slot, n, mode, CMD, key)?;
        } else if let Some(key) = keyword(tok, &U64) {
            let Some(n) = take_number::<u64>(c, mode, CMD, key, &INFO_KEYWORDS)? else {
                // Lenient: a keyword without a usable value is dropped with its value.
                continue;
            };
            let slot = match key {
                "time" => &mut info.time,
                "nodes" => &mut info.nodes,
                _ => &mut info.nps,
            };
            set(slot, n, mode, CMD, key)?;
        } else {
            match tok {
                "currmove" => match c.peek() {
                    // Lenient: a keyword is not a value; `currmove` alone is dropped.
                    Some(t) if !strict && INFO_KEYWORDS.contains(&t) => {}
                    Some(t) => {
                        c.advance();
                        match UsiMove::parse(t) {
                            Ok(m) => set(&mut info.currmove, m, mode, CMD, "currmove")?,
                            Err(e) if strict => return Err(e),
                            // Lenient: an invalid move is dropped with its keyword.
                            Err(_) => {}
                        }
                    }
                    None if strict => {
                        return Err(UsiParseError::Missing {
                            command: CMD,
                            what: "move after `currmove`",
                        })
                    }
                    None => {}
                },
                "score" => {
                    // Lenient `None`: the field is dropped (see `take_score` for what is consumed).
                    if let Some(s) = take_score(c, mode)? {
                        set(&mut info.score, s, mode, CMD, "score")?;
                    }
                }
                "pv" => {
                    let mut tokens = Vec::new();
                    while let Some(t) = c.advance() {
                        if strict && t != "resign" && t != "win" {
                            UsiMove::parse(t)?;
                        }
                        tokens.push(t.to_owned());
                    }
                    info.text = Some(InfoText::Pv(tokens));
                }
                "string" => info.text = Some(InfoText::String(c.rest().to_owned())),
                _ if strict => {
                    return Err(UsiParseError::UnexpectedToken {
                        command: CMD,
                        token: tok.to_owned(),
                    })
                }
                // A bound away from its score is dropped: kept as an extra, it would attach
                // itself to the score when the line is printed again.
                "lowerbound" | "upperbound" => {}
                _ => {
                    after_extra = was_after_extra;
                    keep_extra(&mut info.extra, tok, &mut after_extra);
                }
            }
        }
    }
    Ok(info)
}

/// Reads `cp <x>` / `mate <y>` and an optional bound after `score`.
///
/// Strict: both tokens must be there and valid. Lenient: when the next token is not `cp` or
/// `mate`, nothing is consumed and `Ok(None)` drops `score` alone (the following tokens are
/// unknown tokens to the caller); otherwise `cp`/`mate` is consumed, and its value too unless
/// the line ends or the value is an `info` keyword; an unusable value gives `Ok(None)`.
fn take_score(c: &mut Cursor<'_>, mode: Strictness) -> Result<Option<InfoScore>> {
    let score = if mode == Strictness::Lenient {
        let Some(kind @ ("cp" | "mate")) = c.peek() else {
            return Ok(None);
        };
        c.advance();
        match c.peek() {
            None => return Ok(None),
            Some(v) if INFO_KEYWORDS.contains(&v) => return Ok(None),
            Some(v) => {
                c.advance();
                match score_from_tokens(kind, v, mode) {
                    Some(s) => s,
                    None => return Ok(None),
                }
            }
        }
    } else {
        let score = match (c.peek(), c.peek_at(1)) {
            (Some(kind), Some(value)) => score_from_tokens(kind, value, mode),
            _ => None,
        };
        let Some(score) = score else {
            let text = [c.peek(), c.peek_at(1)]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            return Err(UsiParseError::InvalidScore { text });
        };
        c.advance();
        c.advance();
        score
    };
    let bound = match c.peek() {
        Some("lowerbound") => Bound::Lower,
        Some("upperbound") => Bound::Upper,
        _ => Bound::Exact,
    };
    if bound != Bound::Exact {
        c.advance();
    }
    Ok(Some(InfoScore { score, bound }))
}

/// `cp <int>` or `mate <+|-|[+-]digits>`. The mate forms `+`, `-`, `+N` and `-0` are taken in
/// both modes because engines print them and ShogiHome reads them.
///
/// Strict: `cp` within ±[`CP_LIMIT`], mate plies within `u32`. Lenient: `cp +N` is taken, any
/// integer is clamped to ±[`CP_LIMIT`], and a mate length beyond `u32` saturates.
fn score_from_tokens(kind: &str, value: &str, mode: Strictness) -> Option<Score> {
    match kind {
        "cp" if mode == Strictness::Lenient => {
            let cp = lenient_integer(value)?.clamp(-i128::from(CP_LIMIT), i128::from(CP_LIMIT));
            Some(Score::Cp(i32::clamped(cp)))
        }
        "cp" => parse_int::<i32>(value, mode)
            .filter(|cp| cp.unsigned_abs() <= CP_LIMIT.unsigned_abs())
            .map(Score::Cp),
        "mate" => {
            let (winning, digits) = match value.as_bytes().first()? {
                b'+' => (true, &value[1..]),
                b'-' => (false, &value[1..]),
                _ => (true, value),
            };
            if digits.is_empty() {
                // `mate +` / `mate -`; a bare number without a sign cannot be empty.
                return (value.len() == 1).then_some(Score::Mate(Mate {
                    winning,
                    plies: None,
                }));
            }
            // Digits only: `u32::from_str` would also take a second sign.
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let plies = match mode {
                Strictness::Strict => digits.parse::<u32>().ok()?,
                Strictness::Lenient => u32::clamped(lenient_integer(digits)?),
            };
            Some(Score::Mate(Mate {
                winning,
                plies: Some(plies),
            }))
        }
        _ => None,
    }
}

/// Parses a whole score text such as `cp 50` or `mate -3` (used by `Score::from_str`).
pub(crate) fn parse_score_text(text: &str, mode: Strictness) -> Result<Score> {
    let c = Cursor::new(strip_eol(text));
    let invalid = || UsiParseError::InvalidScore {
        text: text.to_owned(),
    };
    match (c.peek_at(0), c.peek_at(1), c.peek_at(2)) {
        (Some(kind), Some(value), None) => score_from_tokens(kind, value, mode).ok_or_else(invalid),
        _ => Err(invalid()),
    }
}

fn parse_option(c: &mut Cursor<'_>, mode: Strictness) -> Result<OptionDecl> {
    const CMD: &str = "option";
    let strict = mode == Strictness::Strict;
    if c.advance() != Some("name") {
        return Err(UsiParseError::Missing {
            command: CMD,
            what: "`name`",
        });
    }
    let mut name_parts = Vec::new();
    while let Some(t) = c.peek() {
        if t == "type" {
            break;
        }
        name_parts.push(t);
        c.advance();
    }
    if name_parts.is_empty() {
        return Err(UsiParseError::Missing {
            command: CMD,
            what: "option name",
        });
    }
    if strict && name_parts.len() > 1 {
        return Err(UsiParseError::UnexpectedToken {
            command: CMD,
            token: name_parts[1].to_owned(),
        });
    }
    let name = name_parts.join(" ");
    if c.advance() != Some("type") {
        return Err(UsiParseError::Missing {
            command: CMD,
            what: "`type`",
        });
    }
    let unexpected = |token: &str| UsiParseError::UnexpectedToken {
        command: CMD,
        token: token.to_owned(),
    };
    let kind = match c.advance() {
        Some("check") => {
            let mut default = None;
            while let Some(t) = c.advance() {
                match (t, c.advance()) {
                    ("default", Some("true")) => set(&mut default, true, mode, CMD, "default")?,
                    ("default", Some("false")) => set(&mut default, false, mode, CMD, "default")?,
                    ("default", v) => {
                        return Err(UsiParseError::InvalidValue {
                            command: CMD,
                            field: "default",
                            value: v.unwrap_or("").to_owned(),
                        })
                    }
                    (other, _) => return Err(unexpected(other)),
                }
            }
            OptionKind::Check { default }
        }
        Some("spin") => {
            let (mut default, mut min, mut max) = (None, None, None);
            while let Some(t) = c.advance() {
                let Some(key) = keyword(t, &["default", "min", "max"]) else {
                    return Err(unexpected(t));
                };
                let value = c.advance();
                let n = value
                    .and_then(|v| parse_int::<i64>(v, mode))
                    .ok_or_else(|| UsiParseError::InvalidValue {
                        command: CMD,
                        field: key,
                        value: value.unwrap_or("").to_owned(),
                    })?;
                let slot = match key {
                    "default" => &mut default,
                    "min" => &mut min,
                    _ => &mut max,
                };
                set(slot, n, mode, CMD, key)?;
            }
            if strict && (min.is_none() || max.is_none()) {
                return Err(UsiParseError::Missing {
                    command: CMD,
                    what: "`min` and `max` of a spin option",
                });
            }
            OptionKind::Spin { default, min, max }
        }
        Some("combo") => {
            let mut default: Option<String> = None;
            let mut vars: Vec<String> = Vec::new();
            while let Some(t) = c.advance() {
                if t != "default" && t != "var" {
                    return Err(unexpected(t));
                }
                // A value runs to the next `default`/`var`; values with spaces keep single spaces.
                let mut parts = Vec::new();
                while let Some(p) = c.peek() {
                    if p == "var" || p == "default" {
                        break;
                    }
                    parts.push(p);
                    c.advance();
                }
                if strict && parts.len() != 1 {
                    return Err(UsiParseError::Missing {
                        command: CMD,
                        what: "a single-word combo value",
                    });
                }
                let value = parts.join(" ");
                if t == "var" {
                    vars.push(value);
                } else {
                    set(&mut default, value, mode, CMD, "default")?;
                }
            }
            OptionKind::Combo { default, vars }
        }
        Some("button") => {
            c.finish(mode, CMD)?;
            // Lenient: anything after a button's type is ignored.
            c.next = c.tokens.len();
            OptionKind::Button
        }
        Some(kind @ ("string" | "filename")) => {
            let default = match c.advance() {
                Some("default") => Some(c.rest().to_owned()),
                Some(other) => return Err(unexpected(other)),
                None => None,
            };
            if kind == "string" {
                OptionKind::String { default }
            } else {
                OptionKind::Filename { default }
            }
        }
        Some(other) => {
            return Err(UsiParseError::UnknownOptionType {
                name,
                kind: other.to_owned(),
            })
        }
        None => {
            return Err(UsiParseError::Missing {
                command: CMD,
                what: "option type",
            })
        }
    };
    let needs_default = !matches!(kind, OptionKind::Button);
    let has_default = !matches!(
        kind,
        OptionKind::Check { default: None }
            | OptionKind::Spin { default: None, .. }
            | OptionKind::Combo { default: None, .. }
            | OptionKind::String { default: None }
            | OptionKind::Filename { default: None }
    );
    if strict && needs_default && !has_default {
        return Err(UsiParseError::Missing {
            command: CMD,
            what: "`default`",
        });
    }
    Ok(OptionDecl { name, kind })
}
