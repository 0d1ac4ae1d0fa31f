//! The tune page (`gougi tune --serve`): each parameter's trace over the iterations between its
//! min and max, the current iteration, the results so far (θ+ against θ−) and the games in
//! progress on boards (`tune.html`). `tune::live` fills these shapes; this module knows
//! nothing of the tuner.

use std::sync::OnceLock;

use serde::Serialize;

pub use super::matches::Board;

/// The page (with the shared CSS and JS put in), with the snapshot marker the server fills in.
pub fn page() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    super::with_common(include_str!("tune.html"), &PAGE)
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    /// The run: kept as the latest `hello`.
    Hello(Hello),
    /// An iteration done (or read back from the trace of a resumed run): logged.
    Iteration(Iteration),
    /// A game in progress, after a move: kept as the latest per worker.
    Board(Board),
    /// The run ended: the summary as printed.
    Done(Done),
}

#[derive(Clone, Debug, Serialize)]
pub struct Hello {
    /// The `--engine` spec.
    pub engine: String,
    pub params: Vec<ParamInfo>,
    pub iterations: usize,
    pub games_per_iteration: usize,
    pub concurrency: usize,
    /// The time control, as `gougi match` prints it.
    pub limits: String,
    pub openings: usize,
    /// Iterations read back from the trace (a resumed run).
    pub resumed: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ParamInfo {
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    pub c: f64,
    pub a: f64,
    pub integer: bool,
    /// Where the value goes (`option.Skill`, `Engine2.Weight`).
    pub target: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Iteration {
    /// k (0: the start values).
    pub k: usize,
    /// The values after iteration k, in the tune file's order (as written to the trace).
    pub theta: Vec<f64>,
    /// θ+'s wins − losses in this iteration (none for k = 0).
    pub result: Option<f64>,
    /// The points played (none when read back: the trace keeps only the result).
    pub plus: Option<Vec<f64>>,
    pub minus: Option<Vec<f64>>,
    /// θ+'s wins, draws and losses in this iteration (none when read back).
    pub wdl: Option<[u32; 3]>,
    /// Played in this run (not read back from the trace).
    pub live: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Done {
    pub summary: String,
}
