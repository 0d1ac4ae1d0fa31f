//! [`EngineMessage`]: one line from an engine (a member, or gougi itself) to the GUI.
//!
//! `id name|author`, `option …`, `usiok`, `readyok`, `info …`, `bestmove …`, `checkmate …`, and
//! [`EngineMessage::Unknown`] for anything else, verbatim. YaneuraOu sends an **empty line** every
//! 5 s while it initialises (so Shogidokoro does not time out): that is `Unknown("")`.
//!
//! [`Info`] has a field for every USI `info` item. `pv` and `string` each take the rest of the
//! line, so a line carries at most one of them: they share [`InfoText`]. Lenient parsing keeps
//! unknown tokens in [`Info::extra`], so a relay loses little; a known keyword with a bad value
//! is clamped or dropped with its value (the value rule in [`parse`]), so no line
//! prints a number that belongs to nothing. PV tokens are kept as text: engines put `resign`, `win` or YaneuraOu's
//! `rep_*` markers in a PV, and book lines add `(38.62%)`; [`Info::pv_moves`] gives the leading
//! run of real moves.
//!
//! `Display` prints the canonical line. `info` fields come in this order: `depth seldepth time
//! nodes nps hashfull multipv currmove currmovenumber cpuload score [bound]`, then the extra
//! tokens, then `pv …` or `string …`.

use std::fmt;

use super::lex;
use super::moves::{write_moves, UsiMove};
use super::option::OptionDecl;
use super::score::InfoScore;

/// The rest-of-line part of an `info` line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InfoText {
    /// `pv <tokens…>`: the principal variation (読み筋), tokens as printed.
    Pv(Vec<String>),
    /// `string <text>`: free text, verbatim (internal spacing kept; trailing whitespace trimmed).
    String(String),
}

/// Every field of an `info` line. `Default` is a bare `info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// Milliseconds searched.
    pub time: Option<u64>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    /// Hash fill, per mille.
    pub hashfull: Option<u32>,
    /// 1-based line number in MultiPV mode.
    pub multipv: Option<u32>,
    pub currmove: Option<UsiMove>,
    pub currmovenumber: Option<u32>,
    /// CPU usage, per mille.
    pub cpuload: Option<u32>,
    pub score: Option<InfoScore>,
    /// Unknown tokens in order of appearance (lenient parsing only).
    pub extra: Vec<String>,
    /// `pv …` or `string …`.
    pub text: Option<InfoText>,
}

impl Info {
    /// The PV tokens, if this line has a `pv`.
    pub fn pv(&self) -> Option<&[String]> {
        match &self.text {
            Some(InfoText::Pv(tokens)) => Some(tokens),
            _ => None,
        }
    }

    /// The leading run of valid moves in the PV (stops at the first token that is not a move,
    /// such as `resign`, `rep_draw` or `(38.62%)`); empty without a PV.
    pub fn pv_moves(&self) -> Vec<UsiMove> {
        self.pv()
            .unwrap_or_default()
            .iter()
            .map_while(|t| UsiMove::parse(t).ok())
            .collect()
    }

    /// The `string` text, if this is an `info string` line.
    pub fn string(&self) -> Option<&str> {
        match &self.text {
            Some(InfoText::String(s)) => Some(s),
            _ => None,
        }
    }

    /// True when the line is the main line for evaluation purposes: `multipv` absent or 1 (what
    /// ShogiHome uses for the move's evaluation).
    pub fn is_main_line(&self) -> bool {
        matches!(self.multipv, None | Some(1))
    }
}

impl fmt::Display for Info {
    /// `info depth 10 … score cp 50 pv 7g7f 3c3d`; a bare `info` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("time", self.time),
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull.map(u64::from)),
            ("multipv", self.multipv.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(m) = self.currmove {
            write!(f, " currmove {m}")?;
        }
        if let Some(n) = self.currmovenumber {
            write!(f, " currmovenumber {n}")?;
        }
        if let Some(n) = self.cpuload {
            write!(f, " cpuload {n}")?;
        }
        if let Some(s) = &self.score {
            write!(f, " score {s}")?;
        }
        for token in lex::printable_extras(&self.extra, &INFO_KEYWORDS) {
            write!(f, " {token}")?;
        }
        match &self.text {
            Some(InfoText::Pv(tokens)) => {
                f.write_str(" pv")?;
                // Tokens that would not survive as one token are left out.
                let printable = tokens
                    .iter()
                    .filter(|t| !t.is_empty() && !t.bytes().any(|b| b.is_ascii_whitespace()));
                for t in printable {
                    write!(f, " {t}")?;
                }
            }
            Some(InfoText::String(s)) if s.is_empty() => f.write_str(" string")?,
            // A line break inside the text would end the line and start another: a space.
            Some(InfoText::String(s)) if s.contains(['\n', '\r']) => {
                write!(f, " string {}", s.replace(['\n', '\r'], " "))?
            }
            Some(InfoText::String(s)) => write!(f, " string {s}")?,
            None => {}
        }
        Ok(())
    }
}

/// The answer to `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BestMove {
    /// `bestmove <move> [ponder <move>]`.
    Move {
        mv: UsiMove,
        ponder: Option<UsiMove>,
    },
    /// `bestmove resign` (投了).
    Resign,
    /// `bestmove win`: an entering-king declaration (入玉宣言勝ち).
    Win,
}

impl BestMove {
    /// The move, `None` for `resign`/`win`.
    pub fn mv(&self) -> Option<UsiMove> {
        match self {
            BestMove::Move { mv, .. } => Some(*mv),
            _ => None,
        }
    }

    /// The ponder move, if any.
    pub fn ponder(&self) -> Option<UsiMove> {
        match self {
            BestMove::Move { ponder, .. } => *ponder,
            _ => None,
        }
    }

    /// The token after `bestmove`: the move's text, `resign` or `win` (the ponder move aside).
    pub fn token(&self) -> &str {
        match self {
            BestMove::Move { mv, .. } => mv.as_str(),
            BestMove::Resign => "resign",
            BestMove::Win => "win",
        }
    }

    /// The same answer without its ponder move (GougiShogi's "stripped" form, used for votes).
    pub fn without_ponder(&self) -> BestMove {
        match *self {
            BestMove::Move { mv, .. } => BestMove::Move { mv, ponder: None },
            other => other,
        }
    }
}

impl fmt::Display for BestMove {
    /// `bestmove 7g7f ponder 3c3d`, `bestmove resign`, `bestmove win`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BestMove::Move { mv, ponder } => {
                write!(f, "bestmove {mv}")?;
                if let Some(p) = ponder {
                    write!(f, " ponder {p}")?;
                }
                Ok(())
            }
            BestMove::Resign => f.write_str("bestmove resign"),
            BestMove::Win => f.write_str("bestmove win"),
        }
    }
}

/// The answer to `go mate`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Checkmate {
    /// `checkmate <m1> <m2> …`: a mate sequence (the attacker's first move first). An empty list
    /// is a bare `checkmate` (lenient parsing only; GougiShogi counts it as no mate).
    Mate(Vec<UsiMove>),
    /// `checkmate nomate`: proven no mate (不詰).
    NoMate,
    /// `checkmate timeout`.
    Timeout,
    /// `checkmate notimplemented`.
    NotImplemented,
    /// YaneuraOu's `checkmate none`: gave up on a node or memory limit (after
    /// `info string Out Of Memory.` or `Exceeded NodesLimit.`).
    NoneFound,
}

impl Checkmate {
    /// True for a mate sequence with at least one move.
    pub fn is_mate(&self) -> bool {
        matches!(self, Checkmate::Mate(moves) if !moves.is_empty())
    }
}

impl fmt::Display for Checkmate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Checkmate::Mate(moves) if moves.is_empty() => f.write_str("checkmate"),
            Checkmate::Mate(moves) => {
                f.write_str("checkmate ")?;
                write_moves(f, moves)
            }
            Checkmate::NoMate => f.write_str("checkmate nomate"),
            Checkmate::Timeout => f.write_str("checkmate timeout"),
            Checkmate::NotImplemented => f.write_str("checkmate notimplemented"),
            Checkmate::NoneFound => f.write_str("checkmate none"),
        }
    }
}

/// One engine → GUI line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EngineMessage {
    /// `id name <rest of line>`.
    IdName(String),
    /// `id author <rest of line>`.
    IdAuthor(String),
    Option(OptionDecl),
    UsiOk,
    ReadyOk,
    Info(Info),
    BestMove(BestMove),
    Checkmate(Checkmate),
    /// Any other line, verbatim (without its line terminator); `""` for an empty keep-alive line.
    Unknown(String),
}

impl fmt::Display for EngineMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineMessage::IdName(name) if name.is_empty() => f.write_str("id name"),
            EngineMessage::IdName(name) => write!(f, "id name {name}"),
            EngineMessage::IdAuthor(author) if author.is_empty() => f.write_str("id author"),
            EngineMessage::IdAuthor(author) => write!(f, "id author {author}"),
            EngineMessage::Option(decl) => write!(f, "{decl}"),
            EngineMessage::UsiOk => f.write_str("usiok"),
            EngineMessage::ReadyOk => f.write_str("readyok"),
            EngineMessage::Info(info) => write!(f, "{info}"),
            EngineMessage::BestMove(bm) => write!(f, "{bm}"),
            EngineMessage::Checkmate(cm) => write!(f, "{cm}"),
            EngineMessage::Unknown(line) => f.write_str(line),
        }
    }
}

/// Every keyword of `info`: in lenient mode a value is never taken from one of these.
pub(crate) const INFO_KEYWORDS: [&str; 15] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "nps",
    "hashfull",
    "multipv",
    "currmove",
    "currmovenumber",
    "cpuload",
    "score",
    "lowerbound",
    "upperbound",
    "pv",
    "string",
];
