//! The consultation page (`G_Monitor`): the events the coordinator publishes and the page
//! that draws them (`consult.html`: the board after each move, every member's score over the
//! game — calibrated and raw, from Black's side —, PVs, who was chosen and why, time used and
//! how often the members agreed).
//!
//! The page keeps no state of its own on the server: it replays the feed's snapshot (a
//! `hello`, the game's `newgame`, then one `round` per decision) and applies events as they
//! come, so a page opened mid-game shows the whole game.

use serde::Serialize;

/// The page, with the snapshot marker the server fills in.
pub const PAGE: &str = include_str!("consult.html");

/// One event of the feed; `kind` is the variant's name in lower case.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// Who plays: kept as the latest `hello` (the monitor was started, or members changed).
    Hello(Hello),
    /// `usinewgame`: the page starts a new game (the feed's log is reset).
    NewGame,
    /// One decision: a `bestmove` sent to the GUI.
    Round(Round),
}

#[derive(Clone, Debug, Serialize)]
pub struct Hello {
    /// The consultation type's id and Japanese name.
    pub policy: String,
    pub policy_ja: String,
    pub members: Vec<MemberInfo>,
    pub version: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemberInfo {
    pub number: u32,
    pub name: String,
    /// `Engine<N>.Scale` (cp per logistic unit) when the member is calibrated.
    pub scale: Option<f64>,
    /// `normal` or `mate`.
    pub role: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Round {
    /// The move number being played (1 at the start position).
    pub ply: u32,
    /// Black is to move in `sfen`.
    pub black: bool,
    /// The position searched, and the one after the chosen move (empty when no move: resign,
    /// win, or a board gougi could not set up).
    pub sfen: String,
    pub after: String,
    /// The answer sent: `7g7f`, `resign`, `win`, and its Japanese name.
    pub bestmove: String,
    pub bestmove_ja: String,
    /// Members whose own `bestmove` is the move played.
    pub chosen: Vec<u32>,
    /// Why, in a line: the type, the move and who proposed it.
    pub reason: String,
    /// gougi's `info string` lines at the decision (the vote's tally, an overruled
    /// resignation, a member's fault).
    pub notes: Vec<String>,
    /// gougi's time for the move, in ms.
    pub time_ms: u64,
    pub members: Vec<MemberRound>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct MemberRound {
    pub number: u32,
    pub name: String,
    /// It answered this round (a member left out or too late did not).
    pub answered: bool,
    pub bestmove: String,
    pub bestmove_ja: String,
    /// The score as the member said it (`cp 50`, `mate 3`), from the side to move.
    pub score_text: String,
    /// The member's own score on gougi's integer scale (cp; mate k = ±(100000 − k)).
    pub raw: Option<i32>,
    /// The same after `Engine<N>.Scale` (what the policies compare).
    pub calibrated: Option<i32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// The member's own `time` at its last line, in ms.
    pub time_ms: Option<u64>,
    pub pv: Vec<String>,
    pub pv_ja: String,
    /// Its `bestmove` is the move played.
    pub agrees: bool,
}
