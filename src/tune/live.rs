//! `gougi tune --serve ADDR`: the run as the live page shows it (`monitor::tune`).
//!
//! The tuner calls these at its few moments — start (with the trace read back), each move of a
//! game in progress (at most every [`BOARD_EVERY`] per worker), each iteration done, the end —
//! and each call only hands an event to the monitor's thread (`monitor::Server::publish`:
//! `try_send` on a bounded channel, an event dropped when it is full), so serving the page
//! cannot slow a game's clock or the tune.

use std::net::SocketAddr;

use tokio::time::Instant;

use super::spsa::{Param, Probe};
use super::trace::TraceRow;
use crate::arena::game::PlayedMove;
pub use crate::arena::live::BOARD_EVERY;
use crate::monitor::tune::{Done, Event, Hello, Iteration, ParamInfo};
use crate::monitor::{Retain, Server};
use crate::shogi::Position;

pub struct Live {
    server: Server,
}

/// What the page's header says of the run.
pub struct RunInfo {
    pub engine: String,
    pub iterations: usize,
    pub games_per_iteration: usize,
    pub concurrency: usize,
    pub limits: String,
    pub openings: usize,
}

impl Live {
    /// Starts the server (an error if the address cannot be bound) and says where on stderr.
    pub fn start(addr: SocketAddr) -> std::io::Result<Live> {
        let server = crate::arena::live::start_page(addr, crate::monitor::tune::page(), "tune")?;
        Ok(Live { server })
    }

    /// The run and the rows of the trace so far (row 0, and those a resume read back).
    pub fn hello(&self, info: RunInfo, params: &[Param], rows: &[TraceRow]) {
        let event = Event::Hello(Hello {
            engine: info.engine,
            params: params
                .iter()
                .map(|p| ParamInfo {
                    name: p.name.clone(),
                    start: p.start,
                    min: p.min,
                    max: p.max,
                    c: p.c,
                    a: p.a,
                    integer: p.integer,
                    target: p.target.to_string(),
                })
                .collect(),
            iterations: info.iterations,
            games_per_iteration: info.games_per_iteration,
            concurrency: info.concurrency,
            limits: info.limits,
            openings: info.openings,
            resumed: rows.len().saturating_sub(1),
        });
        self.server.publish(Retain::Latest("hello".into()), &event);
        for row in rows {
            let event = Event::Iteration(Iteration {
                k: row.iteration,
                theta: row.theta.clone(),
                result: row.result,
                plus: None,
                minus: None,
                wdl: None,
                live: false,
            });
            self.server.publish(Retain::Log, &event);
        }
    }

    /// Iteration `row.iteration` done: the points it played and θ+'s wins, draws, losses.
    pub fn iteration(&self, row: &TraceRow, probe: &Probe, wdl: [u32; 3]) {
        let event = Event::Iteration(Iteration {
            k: row.iteration,
            theta: row.theta.clone(),
            result: row.result,
            plus: Some(probe.plus.clone()),
            minus: Some(probe.minus.clone()),
            wdl: Some(wdl),
            live: true,
        });
        self.server.publish(Retain::Log, &event);
    }

    /// A move of a game in progress on `worker`; `last` is when this worker's board was last
    /// sent (the caller keeps it).
    pub fn board(
        &self,
        worker: usize,
        game: usize,
        names: &[String; 2],
        pos: &Position,
        moves: &[PlayedMove],
        last: &mut Option<Instant>,
    ) {
        if let Some(board) = crate::arena::live::board_update(worker, game, names, pos, moves, last)
        {
            self.server.publish(
                Retain::Latest(format!("board-{worker:04}")),
                &Event::Board(board),
            );
        }
    }

    pub fn done(&self, summary: &str) {
        let event = Event::Done(Done {
            summary: summary.to_string(),
        });
        self.server.publish(Retain::Latest("done".into()), &event);
    }
}
