//! `gougi match --serve ADDR`: the match as the live page shows it (`monitor::matches`).
//!
//! The runner calls these at its few moments — start, each move of a game in progress (at
//! most every [`BOARD_EVERY`] per worker), each finished game, the end — and each call only
//! hands an event to the monitor's thread (`monitor::Server::publish`, which never waits), so
//! serving the page cannot slow a game's clock.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::time::Instant;

use super::game::PlayedMove;
use super::report::{pair_line, GameSummary, PairResult};
use super::stats::{Sprt, SprtState};
use crate::monitor::matches::{Board, Done, Event, Game, Hello, PairRow, SprtInfo, Standings};
use crate::monitor::{Retain, Server};
use crate::shogi::Position;

/// The shortest interval between two board events of one worker: games at small node budgets
/// play hundreds of moves a second, more than a page can draw or an eye follow.
pub const BOARD_EVERY: Duration = Duration::from_millis(100);

pub struct Live {
    server: Server,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Starts a `--serve` page (an error if the address cannot be bound) and says where on stderr,
/// with a warning when the address is not loopback; `what` names the run (`match`, `tune`).
pub fn start_page(addr: SocketAddr, page: &'static str, what: &str) -> std::io::Result<Server> {
    let server = Server::start(addr, page)?;
    eprintln!("live page: {}", server.url());
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: --serve {addr} is not a loopback address; anyone who can reach it sees the {what}"
        );
    }
    Ok(server)
}

impl Live {
    /// Starts the server (an error if the address cannot be bound) and says where on stderr.
    pub fn start(addr: SocketAddr) -> std::io::Result<Live> {
        let server = start_page(addr, crate::monitor::matches::page(), "match")?;
        Ok(Live { server })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn hello(
        &self,
        names: &[String],
        pairs: &[(usize, usize)],
        total: usize,
        resumed: usize,
        concurrency: usize,
        limits: String,
        openings: usize,
        sprt: Option<&Sprt>,
    ) {
        let event = Event::Hello(Hello {
            engines: names.to_vec(),
            pairs: pairs.iter().map(|&(a, b)| [a, b]).collect(),
            total,
            resumed,
            concurrency,
            limits,
            openings,
            sprt: sprt.map(|s| {
                let (lower, upper) = s.bounds();
                SprtInfo {
                    elo0: s.elo0,
                    elo1: s.elo1,
                    alpha: s.alpha,
                    beta: s.beta,
                    lower,
                    upper,
                }
            }),
        });
        self.server.publish(Retain::Latest("hello".into()), &event);
    }

    /// A move of a game in progress; `last` is when this worker's board was last sent (the
    /// caller keeps it).
    pub fn board(
        &self,
        worker: usize,
        game: usize,
        names: &[String; 2],
        pos: &Position,
        moves: &[PlayedMove],
        last: &mut Option<Instant>,
    ) {
        if let Some(board) = board_update(worker, game, names, pos, moves, last) {
            self.server.publish(
                Retain::Latest(format!("board-{worker:04}")),
                &Event::Board(board),
            );
        }
    }

    /// A finished game (`live`: played in this run) and the table after it.
    pub fn game(
        &self,
        g: &GameSummary,
        pair: usize,
        results: &[PairResult],
        sprt: Option<&Sprt>,
        live: bool,
    ) {
        let t = &results[pair].tally;
        let interval = t.elo_interval();
        let event = Event::Game(Game {
            index: g.index,
            pair,
            black: g.black.clone(),
            white: g.white.clone(),
            result: g.result.clone(),
            reason: g.reason.clone(),
            plies: g.plies,
            pair_games: t.games(),
            elo: t.elo().and_then(finite),
            lo: interval.and_then(|i| finite(i.0)),
            hi: interval.and_then(|i| finite(i.1)),
            llr: sprt
                .filter(|_| pair == 0)
                .map(|s| results[0].tally.llr(s.elo0, s.elo1))
                .and_then(finite),
            live,
        });
        self.server.publish(Retain::Log, &event);
    }

    pub fn standings(
        &self,
        names: &[String],
        results: &[PairResult],
        played: usize,
        total: usize,
        sprt: Option<&Sprt>,
    ) {
        let pairs = results
            .iter()
            .map(|p| {
                let t = &p.tally;
                let interval = t.elo_interval();
                PairRow {
                    a: names[p.a].clone(),
                    b: names[p.b].clone(),
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                    score: t.score(),
                    elo: t.elo().and_then(finite),
                    lo: interval.and_then(|i| finite(i.0)),
                    hi: interval.and_then(|i| finite(i.1)),
                    los: t.los(),
                    line: pair_line(names, p),
                }
            })
            .collect();
        let sprt_state = sprt.map(|s| {
            match s.state(&results[0].tally) {
                SprtState::Continue => "continue",
                SprtState::H0 => "H0 accepted",
                SprtState::H1 => "H1 accepted",
            }
            .to_string()
        });
        let event = Event::Standings(Standings {
            played,
            total,
            pairs,
            sprt_state,
        });
        self.server
            .publish(Retain::Latest("standings".into()), &event);
    }

    pub fn done(&self, summary: &str, interrupted: bool) {
        let event = Event::Done(Done {
            summary: summary.to_string(),
            interrupted,
        });
        self.server.publish(Retain::Latest("done".into()), &event);
    }
}

/// The board of a game in progress on `worker`, for the match and the tune pages alike: `None`
/// when this worker's board was sent less than [`BOARD_EVERY`] ago (`last`, kept by the
/// caller) or no move was played yet.
pub fn board_update(
    worker: usize,
    game: usize,
    names: &[String; 2],
    pos: &Position,
    moves: &[PlayedMove],
    last: &mut Option<Instant>,
) -> Option<Board> {
    let now = Instant::now();
    if last.is_some_and(|t| now < t + BOARD_EVERY) {
        return None;
    }
    *last = Some(now);
    let m = moves.last()?;
    Some(Board {
        worker,
        game,
        black: names[0].clone(),
        white: names[1].clone(),
        ply: moves.len(),
        sfen: pos.to_sfen(),
        last: m.mv.to_string(),
        last_kif: m.kif.clone(),
        score: m.score.map_or(String::new(), |s| s.to_string()),
        time_ms: m.time_ms,
    })
}
