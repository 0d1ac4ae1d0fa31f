//! The match page (`gougi match --serve`): standings, the Elo curve of each pairing with its
//! 95 % band, the SPRT's log-likelihood ratio between its bounds, and the games in progress on
//! boards (`match.html`). The arena fills these shapes (`arena::live`); this module knows
//! nothing of the arena.

use serde::Serialize;

use std::sync::OnceLock;

/// The page (with the shared CSS and JS put in), with the snapshot marker the server fills in.
pub fn page() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    super::with_common(include_str!("match.html"), &PAGE)
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// The match: kept as the latest `hello`.
    Hello(Hello),
    /// A game in progress, after a move: kept as the latest per worker.
    Board(Board),
    /// A game finished (or read back from the records of a resumed run): logged.
    Game(Game),
    /// The table after the last finished game: kept as the latest.
    Standings(Standings),
    /// The match ended: the summary as printed.
    Done(Done),
}

#[derive(Clone, Debug, Serialize)]
pub struct Hello {
    pub engines: Vec<String>,
    /// Pairings as engine indices, in the table's order.
    pub pairs: Vec<[usize; 2]>,
    /// Games scheduled (including those a resume read back).
    pub total: usize,
    pub resumed: usize,
    pub concurrency: usize,
    /// The time control, as the summary prints it.
    pub limits: String,
    pub openings: usize,
    pub sprt: Option<SprtInfo>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtInfo {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// The LLR bounds (accept H0 below `lower`, H1 above `upper`).
    pub lower: f64,
    pub upper: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Board {
    pub worker: usize,
    /// The game's number (as in the records' file names).
    pub game: usize,
    pub black: String,
    pub white: String,
    /// Plies played (opening moves included).
    pub ply: usize,
    /// The position after the last move.
    pub sfen: String,
    pub last: String,
    pub last_kif: String,
    /// The mover's last score (`cp 50`, `mate 3`) and thinking time.
    pub score: String,
    pub time_ms: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Game {
    pub index: usize,
    pub pair: usize,
    pub black: String,
    pub white: String,
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    pub reason: String,
    pub plies: usize,
    /// The pairing's games and Elo (first engine's view) with its 95 % interval after this
    /// game (`null` where not finite yet).
    pub pair_games: u32,
    pub elo: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The SPRT's LLR after this game (first pairing only, with `--sprt`).
    pub llr: Option<f64>,
    /// Finished while this run was running (not read back from records).
    pub live: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    pub played: usize,
    pub total: usize,
    pub pairs: Vec<PairRow>,
    /// The SPRT's state: `continue`, `H1 accepted`, `H0 accepted`.
    pub sprt_state: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub score: Option<f64>,
    pub elo: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub los: Option<f64>,
    /// The line of the text table (`A vs B: +3 =1 -2 …`).
    pub line: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Done {
    pub summary: String,
    pub interrupted: bool,
}
