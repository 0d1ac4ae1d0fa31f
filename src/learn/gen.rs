//! `gougi learn gen`: games of the built-in search against itself at a node budget, from the
//! embedded openings plus a few random moves, written as one line per quiet position:
//! `SFEN <tab> search score (Black's view) <tab> result (1 Black won, 0 draw, −1 White won)`.
//!
//! A position is kept when the side to move is not in check and the search's best move is not
//! a capture, so that the static evaluation has a chance to see what the search saw; mate
//! scores are not kept.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{LearnError, Rng};
use crate::eval::{SearchEval, TableEval, Weights};
use crate::search::alphabeta::SearchLimits;
use crate::search::engine::parse_position;
use crate::search::Searcher;
use crate::shogi::{Color, Position, Repetition};

const OPENINGS: &str = include_str!("../../tests/data/openings/balanced-16.txt");

/// What [`generate`] does.
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub games: usize,
    pub nodes: u64,
    pub threads: usize,
    pub seed: u64,
    /// Random moves played after the opening line: a number in `min..=max`.
    pub random_plies: (usize, usize),
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// A side whose search score falls below `-resign` loses.
    pub resign: i32,
    pub hash_mb: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            games: 100,
            nodes: 5000,
            threads: 1,
            seed: 1,
            random_plies: (2, 8),
            max_plies: 300,
            resign: 3000,
            hash_mb: 16,
        }
    }
}

/// Counts of what [`generate`] wrote.
#[derive(Clone, Copy, Debug, Default)]
pub struct GenSummary {
    pub games: usize,
    pub positions: usize,
    pub black_wins: usize,
    pub white_wins: usize,
    pub draws: usize,
}

/// One recorded position: SFEN, score from Black's view.
struct Record {
    sfen: String,
    score: i32,
}

/// The opening lines (`startpos moves …`).
fn opening_lines() -> Vec<&'static str> {
    OPENINGS
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("startpos") || l.starts_with("sfen"))
        .collect()
}

/// Plays `opts.games` games and appends their positions to `out`.
pub fn generate(
    opts: &GenOptions,
    weights: &'static Weights,
    out: &Path,
    progress: &(dyn Fn(&GenSummary) + Sync),
) -> Result<GenSummary, LearnError> {
    let io = |source| LearnError::Io {
        path: out.into(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(io)?;
    let writer = Mutex::new((BufWriter::new(file), GenSummary::default()));
    let next_game = AtomicUsize::new(0);
    let openings = opening_lines();
    let error = Mutex::new(None::<LearnError>);
    std::thread::scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|| {
                let mut searcher = Searcher::with_eval(
                    opts.hash_mb,
                    1,
                    SearchEval::linear(TableEval::new(weights)),
                );
                loop {
                    let g = next_game.fetch_add(1, Ordering::Relaxed);
                    if g >= opts.games {
                        break;
                    }
                    let mut rng = Rng(opts.seed ^ (g as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
                    let opening = openings[g % openings.len()];
                    let (records, result) = play_game(&mut searcher, opts, opening, &mut rng);
                    let mut guard = writer.lock().expect("writer");
                    let (w, summary) = &mut *guard;
                    for r in &records {
                        if let Err(e) = writeln!(w, "{}\t{}\t{}", r.sfen, r.score, result) {
                            *error.lock().expect("error") = Some(io(e));
                        }
                    }
                    summary.games += 1;
                    summary.positions += records.len();
                    match result {
                        1 => summary.black_wins += 1,
                        -1 => summary.white_wins += 1,
                        _ => summary.draws += 1,
                    }
                    progress(summary);
                }
            });
        }
    });
    if let Some(e) = error.into_inner().expect("error") {
        return Err(e);
    }
    let (mut w, summary) = writer.into_inner().expect("writer");
    w.flush().map_err(io)?;
    Ok(summary)
}

/// Plays one game; returns the recorded positions and the result from Black's view.
fn play_game(
    searcher: &mut Searcher,
    opts: &GenOptions,
    opening: &str,
    rng: &mut Rng,
) -> (Vec<Record>, i32) {
    let limits = |nodes| SearchLimits {
        depth: None,
        nodes: Some(nodes),
        multipv: 1,
    };
    // Random moves after the opening line, redrawn until a short search calls the position
    // roughly balanced: the games should teach positions a real game reaches.
    let mut pos = Position::startpos();
    for _attempt in 0..20 {
        pos = parse_position(opening).expect("embedded openings parse");
        let (lo, hi) = opts.random_plies;
        let n = lo + rng.below(hi.saturating_sub(lo) + 1);
        for _ in 0..n {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rng.below(moves.len())]);
        }
        searcher.clear();
        let probe = searcher.search(&pos, limits(opts.nodes), None, None);
        match probe.best {
            Some(b) if b.score.0.abs() <= 400 => break,
            _ => continue,
        }
    }
    searcher.clear();
    let mut records = Vec::new();
    let start_ply = pos.game_ply();
    let sign = |c: Color| if c == Color::Black { 1 } else { -1 };
    let result = loop {
        let us = pos.side_to_move();
        if pos.declaration_win() {
            break sign(us);
        }
        if pos.game_ply() - start_ply >= opts.max_plies {
            break 0;
        }
        // A little noise in the budget, or a seed's games would repeat move for move.
        let nodes = opts.nodes - opts.nodes / 10 + rng.next() % (opts.nodes / 5 + 1);
        let out = searcher.search(&pos, limits(nodes), None, None);
        let Some(best) = out.best else {
            break -sign(us); // no legal move: mated
        };
        let score = best.score.0;
        // Mate scores are past `resign` too. The losing side resigns; a winning side plays
        // on until the other resigns or is mated.
        if score < -opts.resign {
            break -sign(us);
        }
        if score <= opts.resign && !pos.in_check() && !pos.is_capture(best.mv) {
            records.push(Record {
                sfen: pos.to_sfen(),
                score: sign(us) * score,
            });
        }
        pos.do_move(best.mv);
        if pos.repetition_count() >= 4 {
            let them = pos.side_to_move();
            break match pos.repetition(usize::MAX) {
                Repetition::Win => sign(them),
                Repetition::Loss => -sign(them),
                _ => 0,
            };
        }
    };
    (records, result)
}
