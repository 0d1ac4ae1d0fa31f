//! gougi: a USI consultation (合議) engine for computer shogi.
//!
//! # Layout
//!
//! - [`config`]: `SimpleGougi.config` → typed, validated settings ([`config::Config`]), as
//!   layers: gougi's defaults → the file → `GOUGI_…` environment overrides.
//! - [`member`]: one running member engine (command line, process, USI over pipes, handshake,
//!   exit detection).
//! - [`gougi`]: consultation — the coordinator, rounds, deadlines, policies, annotated lines.
//! - [`shogi`]: the rules — types, bitboards, positions, legal move generation, notation. No I/O.
//! - [`usi`]: the USI protocol as types; parse and format round-trip. No processes.
//! - [`mate`]: the df-pn mate (tsume) solver, its `gougi mate` USI loop and `bench mate`.
//! - [`search`]: the built-in alpha-beta engine (`gougi search`, `gougi bench search`); it only
//!   searches, through the [`eval::Evaluator`] it is given.
//! - [`eval`]: static evaluation — the `Evaluator` trait, the learned linear tables (one file
//!   per concern), YaneuraOu's NNUE nets (inference, bit for bit), the built-in `EvalFile`
//!   names.
//! - [`learn`]: `gougi learn` — self-play data, the linear fit and the NNUE trainer; above the
//!   search, which it plays.
//! - [`arena`]: `gougi match` — refereed games between engines, Elo/LOS/SPRT, KIF/CSA records.
//! - [`tune`]: `gougi tune` — SPSA over engine options and config numbers, games through the arena.
//! - [`monitor`]: live pages beside the GUI (`G_Monitor`, `gougi match`/`tune --serve`): a small
//!   HTTP/1.1 server on a thread of its own, its event stream and the self-contained pages.
//! - [`plot`]: line charts as SVG (the match's Elo, the tuner's trace, the trainer's losses).
//! - [`hugemem`]: big zero-filled tables on transparent huge pages (the search's and the mate
//!   solver's hash tables).
//! - [`book`]: opening books (YaneuraOu's `.db` text format): read, write, choose, make from CSA.
//! - [`cli`]: the subcommands' plumbing (arguments into each module's options, the printing
//!   around them); `main.rs` keeps the top-level parser and the dispatch.
//!
//! Dependency arrows (a module may use only what it points to), and the layers they run
//! down through: every arrow points from a module to one in a lower layer, never up or across,
//! which also rules out circles between modules (`tests/import_graph.rs` checks both):
//!
//! ```text
//! layers: cli > tune > arena > gougi, learn > search > mate, eval > book > config > member
//!     > usi, shogi, monitor, hugemem, plot
//!
//! gougi ──> member, search, mate, book, monitor, usi, shogi, config   (search: multi-ponder ranks replies)
//! arena ──> gougi, member, monitor, usi, shogi, config, plot
//! tune ──> arena, monitor, shogi, config, plot
//! member ──> usi, shogi     (shogi: the in-process scripted members for tests)
//! mate ──> shogi, usi, hugemem
//! search ──> eval, book, shogi, usi, hugemem
//! learn ──> search, eval, book, shogi, plot
//! eval ──> book, shogi     (book: the seeded generator of random test nets)
//! book ──> shogi, config
//! cli ──> arena, tune, learn, search, eval, mate, monitor, shogi, config
//! config ──> member        (`*.Path` command lines, member specs)
//! monitor, usi, shogi, hugemem, plot: leaves
//! ```

pub mod arena;
pub mod book;
pub mod cli;
pub mod config;
pub mod eval;
pub mod gougi;
pub mod hugemem;
pub mod learn;
pub mod mate;
pub mod member;
pub mod monitor;
pub mod plot;
pub mod search;
pub mod shogi;
pub mod tune;
pub mod usi;
