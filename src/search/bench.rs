//! `gougi bench search [depth]`: a fixed-depth search of a fixed set of positions on one
//! thread, printing the total node count (a signature that changes only when the search
//! does, as Stockfish's `bench`) and the speed.
//!
//! Positions: every distinct position of `tests/data/perft/perft.txt` and the first
//! [`OPENING_LINES`] lines of `tests/data/openings/balanced-16.txt`, embedded at build time
//! so the binary stands alone. The table is cleared before each position so that each
//! count is independent of the order.

use std::time::Instant;

use super::alphabeta::SearchLimits;
use super::engine::{parse_position, BadPosition};
use super::Searcher;
use crate::eval::{SearchEval, TableEval};
use crate::shogi::Position;

const PERFT_DATA: &str = include_str!("../../tests/data/perft/perft.txt");
const OPENINGS_DATA: &str = include_str!("../../tests/data/openings/balanced-16.txt");

/// How many opening lines join the perft positions.
pub const OPENING_LINES: usize = 6;
/// Default bench depth.
pub const DEFAULT_DEPTH: i32 = 13;
/// Table size for the bench, MiB (fixed so the signature does not depend on options).
pub const BENCH_HASH_MB: usize = 64;

/// The bench positions as `position` arguments (`sfen …` or `startpos moves …`).
pub fn positions() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in PERFT_DATA.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split('|');
        let (Some(_), Some(sfen)) = (fields.next(), fields.next()) else {
            continue;
        };
        let p = format!("sfen {}", sfen.trim());
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out.extend(
        OPENINGS_DATA
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("startpos"))
            .take(OPENING_LINES)
            .map(str::to_string),
    );
    out
}

/// What one bench run measured.
#[derive(Clone, Copy, Debug)]
pub struct BenchResult {
    pub nodes: u64,
    pub millis: u64,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        self.nodes * 1000 / self.millis.max(1)
    }
}

/// A positions file that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct PositionsFileError {
    pub path: std::path::PathBuf,
    pub source: std::io::Error,
}

/// Reads positions for a custom bench: one a line, `sfen …`, `startpos [moves …]` or a bare
/// SFEN; blank lines and `#` comments are skipped.
pub fn positions_from_file(path: &std::path::Path) -> Result<Vec<String>, PositionsFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| PositionsFileError {
        path: path.into(),
        source,
    })?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// Searches every bench position to `depth`; `report` receives one line per position.
pub fn run(depth: i32, report: impl FnMut(&str)) -> Result<BenchResult, BadPosition> {
    let linear = SearchEval::linear(TableEval::default());
    run_on(positions(), depth, linear, report)
}

/// Searches the given positions to `depth` with `eval` (see [`run`]).
pub fn run_on(
    texts: Vec<String>,
    depth: i32,
    eval: SearchEval,
    mut report: impl FnMut(&str),
) -> Result<BenchResult, BadPosition> {
    let positions: Vec<(String, Position)> = texts
        .into_iter()
        .map(|p| parse_position(&p).map(|pos| (p, pos)))
        .collect::<Result<_, _>>()?;
    let mut searcher = Searcher::with_eval(BENCH_HASH_MB, 1, eval);
    let limits = SearchLimits {
        depth: Some(depth),
        nodes: None,
        multipv: 1,
    };
    let mut total = 0;
    let mut millis = 0.0;
    for (i, (text, pos)) in positions.iter().enumerate() {
        // Clearing 64 MB is not search time: keep it out of the measurement.
        searcher.clear();
        let start = Instant::now();
        let out = searcher.search(pos, limits, None, None);
        millis += start.elapsed().as_secs_f64() * 1000.0;
        total += out.nodes;
        let best = out
            .best
            .map_or("none".to_string(), |rm| format!("{} {}", rm.mv, rm.score));
        report(&format!(
            "position {:2}: nodes {:>10} best {best}  [{text}]",
            i + 1,
            out.nodes
        ));
    }
    Ok(BenchResult {
        nodes: total,
        millis: millis.round() as u64,
    })
}
