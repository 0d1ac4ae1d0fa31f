//! The match's games as jobs: which pairings play ([`pairings`]), the order the games are
//! played in ([`schedule`]), and what one played game comes to ([`summary`]).

use crate::shogi::Color;

use super::game::{EndReason, GameRecord, Outcome};
use super::opening::Opening;
use super::report::GameSummary;

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
pub(super) struct Job {
    /// The game's number, in its record's file name and in the summary.
    pub(super) index: usize,
    /// Its pairing, an index into [`pairings`]' list.
    pub(super) pair: usize,
    pub(super) black: usize,
    pub(super) white: usize,
    pub(super) opening: usize,
}

/// A worker's report of a finished game.
pub(super) struct Done {
    pub(super) job: Job,
    pub(super) record: GameRecord,
}

/// The pairings of `engines` engines: the first against each other one (`gauntlet`), else
/// every engine against every later one.
pub(super) fn pairings(engines: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..engines).map(|j| (0, j)).collect()
    } else {
        (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect()
    }
}

/// Every game of the match in playing order, numbered from 1: round after round, each pairing
/// once, colours swapped every other round, so each opening is played twice with the colours
/// swapped and the openings cycle until `per_pair` games per pairing.
pub(super) fn schedule(pairs: &[(usize, usize)], per_pair: usize, openings: usize) -> Vec<Job> {
    let mut jobs: Vec<Job> = Vec::new();
    for g in 0..per_pair {
        for (p, &(a, b)) in pairs.iter().enumerate() {
            let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                index: jobs.len() + 1,
                pair: p,
                black,
                white,
                opening: (g / 2) % openings,
            });
        }
    }
    jobs
}

/// What `job`'s finished game comes to in the summary (and in its CSA record's last line);
/// `record_path`: its KIF file, when records are written.
pub(super) fn summary(
    job: &Job,
    record: &GameRecord,
    names: &[String],
    openings: &[Opening],
    pairs: &[(usize, usize)],
    record_path: Option<String>,
) -> GameSummary {
    let o: &Outcome = &record.outcome;
    let (a, b) = pairs[job.pair];
    let times = record.times_ms();
    GameSummary {
        index: job.index,
        black: names[job.black].clone(),
        white: names[job.white].clone(),
        opening: openings[job.opening].usi(),
        result: match o.winner {
            None => "1/2-1/2",
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
        }
        .to_owned(),
        reason: o.reason.label().to_owned(),
        detail: match &o.reason {
            EndReason::IllegalMove { text, why } => Some(format!("{text} ({why})")),
            EndReason::Crash(why) => Some(why.clone()),
            EndReason::TimeLoss => record.time_loss.as_ref().map(ToString::to_string),
            _ => None,
        },
        plies: record.moves.len(),
        record: record_path,
        pair: format!("{} vs {}", names[a], names[b]),
        black_time_ms: times[Color::Black.index()],
        white_time_ms: times[Color::White.index()],
        started: record.started.clone(),
        usi: record.usi_position(),
        black_ponders: record.ponder[Color::Black.index()].ponders,
        black_ponder_hits: record.ponder[Color::Black.index()].hits,
        white_ponders: record.ponder[Color::White.index()].ponders,
        white_ponder_hits: record.ponder[Color::White.index()].hits,
    }
}
