//! [`GuiCommand`]: one line from the GUI to an engine (and from the proxy to a member).
//!
//! Covers the USI commands (`usi`, `isready`, `setoption`, `usinewgame`, `position`, `go`, `stop`,
//! `ponderhit`, `gameover`, `quit`), ShogiHome/YaneuraOu "early ponder" (`ponderhit` carrying
//! clock fields), and GougiShogi's `mateinfo` extension, kept as text because only engines built
//! for it understand it. Anything else is [`GuiCommand::Unknown`] with the line verbatim, so a
//! relay loses nothing.
//!
//! `position` stays as typed fields ([`PositionCommand`]: a base and a move list) rather than a
//! board: the proxy sends members exactly the text the GUI sent (YaneuraOu #264 — the same
//! position reached by a different sfen+moves path can evaluate differently), and rules live in
//! `shogi`. The SFEN is checked for shape only (four fields, board of nine ranks, side `b`/`w`,
//! hand, move number); full validation is `shogi::Position::from_sfen`'s job.
//!
//! `Display` prints the canonical line (single spaces), e.g. `position startpos moves 7g7f 3c3d`.

use std::fmt;

use super::go::GoLimits;
use super::moves::{write_moves, UsiMove};

/// The position a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PositionBase {
    /// `startpos`: the standard initial position (平手).
    StartPos,
    /// `sfen <board> <side> <hand> <move number>`: the four fields, single-spaced.
    Sfen(String),
}

/// `position <base> [moves <m1> <m2> …]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PositionCommand {
    pub base: PositionBase,
    /// The moves played from `base`; printed after `moves` when not empty.
    pub moves: Vec<UsiMove>,
}

impl PositionCommand {
    /// `position startpos` with no moves.
    pub fn startpos() -> Self {
        PositionCommand {
            base: PositionBase::StartPos,
            moves: Vec::new(),
        }
    }

    /// The same position with one more move played (for predicted-move pondering or exchange).
    pub fn with_move(&self, m: UsiMove) -> Self {
        let mut next = self.clone();
        next.moves.push(m);
        next
    }
}

impl fmt::Display for PositionCommand {
    /// `position startpos moves 7g7f` / `position sfen <4 fields>` (no `moves` when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.base {
            PositionBase::StartPos => f.write_str("position startpos")?,
            PositionBase::Sfen(sfen) => write!(f, "position sfen {sfen}")?,
        }
        if !self.moves.is_empty() {
            f.write_str(" moves ")?;
            write_moves(f, &self.moves)?;
        }
        Ok(())
    }
}

/// The result in `gameover`, from the engine's own point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win,
    Lose,
    Draw,
    /// No usable result word: cshogi sends a bare `gameover`, and a lenient parse also reads
    /// an unknown word this way (the game is over either way). Printed as a bare `gameover`.
    Unknown,
}

impl GameResult {
    /// `win`, `lose` or `draw`; `""` for [`GameResult::Unknown`].
    pub fn as_str(&self) -> &'static str {
        match self {
            GameResult::Win => "win",
            GameResult::Lose => "lose",
            GameResult::Draw => "draw",
            GameResult::Unknown => "",
        }
    }
}

/// `setoption name <name> [value <value>]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SetOption {
    /// The option name (no spaces in USI).
    pub name: String,
    /// The rest of the line after `value` (may contain spaces; may be empty); `None` for a
    /// button.
    pub value: Option<String>,
}

/// One GUI → engine line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GuiCommand {
    Usi,
    IsReady,
    SetOption(SetOption),
    UsiNewGame,
    Position(PositionCommand),
    Go(GoLimits),
    Stop,
    /// `ponderhit`, possibly with clock fields (ShogiHome early ponder: `ponderhit btime … wtime …
    /// byoyomi …`); `GoLimits::default()` for a bare `ponderhit`.
    PonderHit(GoLimits),
    GameOver(GameResult),
    Quit,
    /// GougiShogi's `mateinfo <text>` (a found mate for the engine's hash table), the text after
    /// the keyword as given.
    MateInfo(String),
    /// Any other line, verbatim (without its line terminator). A blank line (empty or only
    /// whitespace) is `Unknown("")`: see [`GuiCommand::is_blank`].
    Unknown(String),
}

impl GuiCommand {
    /// True for what a blank line parses to (`Unknown("")`): nothing to act on or relay.
    pub fn is_blank(&self) -> bool {
        matches!(self, GuiCommand::Unknown(line) if line.is_empty())
    }
}

impl fmt::Display for GuiCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuiCommand::Usi => f.write_str("usi"),
            GuiCommand::IsReady => f.write_str("isready"),
            GuiCommand::SetOption(SetOption { name, value }) => {
                write!(f, "setoption name {name}")?;
                match value.as_deref() {
                    // An empty string value: no trailing space, parses back to `Some("")`.
                    Some("") => f.write_str(" value"),
                    Some(v) => write!(f, " value {v}"),
                    None => Ok(()),
                }
            }
            GuiCommand::UsiNewGame => f.write_str("usinewgame"),
            GuiCommand::Position(p) => write!(f, "{p}"),
            GuiCommand::Go(limits) => write_keyword_and_limits(f, "go", limits),
            GuiCommand::Stop => f.write_str("stop"),
            GuiCommand::PonderHit(limits) => write_keyword_and_limits(f, "ponderhit", limits),
            GuiCommand::GameOver(GameResult::Unknown) => f.write_str("gameover"),
            GuiCommand::GameOver(result) => write!(f, "gameover {}", result.as_str()),
            GuiCommand::Quit => f.write_str("quit"),
            GuiCommand::MateInfo(text) if text.is_empty() => f.write_str("mateinfo"),
            GuiCommand::MateInfo(text) => write!(f, "mateinfo {text}"),
            GuiCommand::Unknown(line) => f.write_str(line),
        }
    }
}

fn write_keyword_and_limits(
    f: &mut fmt::Formatter<'_>,
    keyword: &str,
    limits: &GoLimits,
) -> fmt::Result {
    f.write_str(keyword)?;
    let rest = limits.to_string();
    if !rest.is_empty() {
        write!(f, " {rest}")?;
    }
    Ok(())
}
