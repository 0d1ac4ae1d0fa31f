//! The built-in alpha-beta search engine (`gougi search`): a Stockfish/YaneuraOu-style
//! searcher. It evaluates through [`crate::eval`] (the learned linear tables or an NNUE net)
//! and only searches; learning the evaluation is [`crate::learn`]'s.
//!
//! # Layout
//!
//! - [`value`]: the `Value` score type, mate encoding.
//! - [`tt`]: the shared lock-free transposition table.
//! - [`history`]: move-ordering statistics.
//! - [`movepick`]: the staged move picker (and the search's move set).
//! - [`see`]: static exchange evaluation.
//! - [`params`]: the tunable constants ([`params::SearchParams`]) and their hidden `T_…` options.
//! - [`alphabeta`]: iterative deepening, PVS, quiescence; `Worker` per thread.
//! - [`timeman`]: time budgets for byoyomi, Fischer and sudden death.
//! - [`engine`]: the USI command loop of `gougi search`.
//! - [`bench`]: `gougi bench search`.
//!
//! The rules come from the core, `crate::shogi` (position, do/undo, legal move generators,
//! check detection), plus what only a search asks, in `crate::shogi::search_support`
//! (repetition within the search, mate in one).
//!
//! This facade, [`Searcher`], runs a search synchronously (bench, tests, embedding); the USI
//! front end drives the same workers on its own thread.
//!
//! References: Stockfish `search.cpp`, `movepick.cpp`, `tt.cpp`; YaneuraOu
//! `source/engine/yaneuraou-engine/yaneuraou-search.cpp`; apery_rust `search.rs`.

pub mod alphabeta;
pub mod bench;
pub mod engine;
pub mod history;
pub mod movepick;
pub mod params;
pub mod see;
pub mod timeman;
pub mod tt;
pub mod value;

use std::sync::Arc;

use alphabeta::{run_workers, Control, InfoSink, RootMove, SearchLimits, SearchOutcome, Worker};
use timeman::TimeBudget;
use tt::TranspositionTable;

use crate::eval::{SearchEval, TableEval};
use crate::shogi::Position;

/// A synchronous search facade: a table and `threads` workers.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    workers: Vec<Worker<SearchEval>>,
}

impl Searcher {
    pub fn new(hash_mb: usize, threads: usize) -> Searcher {
        Searcher::with_eval(hash_mb, threads, SearchEval::linear(TableEval::default()))
    }

    /// A searcher whose workers evaluate with (clones of) `eval`.
    pub fn with_eval(hash_mb: usize, threads: usize, eval: SearchEval) -> Searcher {
        let tt = Arc::new(TranspositionTable::new(hash_mb));
        let ctl = Arc::new(Control::new(threads));
        let workers = (0..threads.max(1))
            .map(|i| {
                Worker::new(
                    i,
                    tt.clone(),
                    ctl.clone(),
                    eval.clone(),
                    Position::startpos(),
                )
            })
            .collect();
        Searcher { tt, workers }
    }

    /// Forgets everything learned (table and histories), as `usinewgame`.
    pub fn clear(&mut self) {
        self.tt.clear();
        for w in &mut self.workers {
            w.clear_history();
        }
    }

    /// Searches `pos` to the limits (and the optional time budget) and returns the result.
    /// A position with no legal move returns `best: None`.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: SearchLimits,
        budget: Option<TimeBudget>,
        info: Option<InfoSink>,
    ) -> SearchOutcome {
        let legal = movepick::root_moves(pos);
        if legal.is_empty() {
            return SearchOutcome {
                best: None,
                lines: Vec::new(),
                nodes: 0,
                depth: 0,
            };
        }
        let ctl = Arc::new(Control::new(self.workers.len()));
        ctl.set_budget(budget);
        ctl.restart_clock();
        self.tt.new_search();
        for (i, w) in self.workers.iter_mut().enumerate() {
            let rms = legal.iter().map(|&m| RootMove::new(m)).collect();
            w.prepare(
                pos,
                rms,
                limits,
                ctl.clone(),
                if i == 0 { info.clone() } else { None },
            );
        }
        let workers = &mut self.workers;
        let ctl2 = ctl.clone();
        // Run on a thread with a large stack: the recursion is deep and frames are big.
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(alphabeta::SEARCH_STACK_BYTES)
                .spawn_scoped(s, move || run_workers(workers, &ctl2))
                .expect("spawn search thread")
                .join()
                .expect("search thread panicked")
        })
    }
}
