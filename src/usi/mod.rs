//! The USI protocol as types: GUI → engine commands, engine → GUI messages, `go` limits, scores
//! and options. Parsing and formatting round-trip; no processes, no board.
//!
//! - [`command`]: [`GuiCommand`] (`usi`, `isready`, `setoption`, `usinewgame`, `position`, `go`,
//!   `stop`, `ponderhit`, `gameover`, `quit`, `mateinfo`, `Unknown`).
//! - [`message`]: [`EngineMessage`] (`id`, `option`, `usiok`, `readyok`, `info`, `bestmove`,
//!   `checkmate`, `Unknown`).
//! - [`go`]: [`GoLimits`]; [`score`]: [`Score`], [`Bound`]; [`option`]: [`OptionDecl`],
//!   [`OptionValue`]; [`moves`]: [`UsiMove`].
//! - [`parse`]: strict and lenient parsing (every type's `parse`/`FromStr`); [`error`]:
//!   [`Strictness`], [`UsiParseError`]. The types never import the parser: no import circle.
//! - [`text`]: lines as bytes (UTF-8, else CP932), and stdin read that way.
//!
//! Invariants: every type's `Display` prints one canonical line (single spaces, fixed field
//! order, no line terminator) and `parse(format(x)) == x`; a canonical line survives
//! `format(parse(line)) == line`; an unrecognised line is `Unknown(line)` verbatim, a blank one
//! `Unknown("")`. No input panics, and every printed `go`/`info` line is well-formed (no number
//! without its keyword, `cp` within ±[`CP_LIMIT`]). Moves stay USI text ([`UsiMove`], syntax-checked only): the proxy checks them against
//! its board with `shogi`, so this module does not depend on `shogi`.
//!
//! References: 将棋所「USIプロトコルとは」 (<http://shogidokoro.starfree.jp/usi.html>), ShogiHome
//! `src/background/usi/engine.ts`, YaneuraOu `source/usi.cpp` and docs/USI拡張コマンド.txt, and
//! `reference/usi-notes.md` for the quirks handled here.

pub mod command;
pub mod error;
pub mod go;
mod lex;
pub mod message;
pub mod moves;
pub mod option;
pub mod parse;
pub mod score;
pub mod text;

pub use command::{GameResult, GuiCommand, PositionBase, PositionCommand, SetOption};
pub use error::{Strictness, UsiParseError};
pub use go::{GoLimits, MateLimit, MAX_TIME_MS};
pub use message::{BestMove, Checkmate, EngineMessage, Info, InfoText};
pub use moves::UsiMove;
pub use option::{OptionDecl, OptionKind, OptionValue};
pub use parse::{parse_engine_message, parse_gui_command};
pub use score::{Bound, InfoScore, Mate, Score, CP_LIMIT, MATE_KEY, MATE_LIKE_CP};
pub use text::{decode_line, StdinLines};

#[cfg(test)]
mod tests;
