//! `gougi tune`: the arguments (see `gougi tune --help`) into [`crate::tune::TuneOptions`].

use super::{serve_address, GameArgs};

/// `gougi tune` arguments (see `gougi tune --help`).
#[derive(clap::Args)]
pub struct TuneArgs {
    /// The engine both sides run, as for `gougi match`: 'cmd=builtin:search option.USI_Hash=16'
    /// (or config=FILE for a consultation's numbers).
    #[arg(long, short = 'e', value_name = "SPEC")]
    engine: String,
    /// The tune file: `name start min max c a [target]` per line (see docs/tune.md).
    #[arg(long, value_name = "FILE")]
    params: std::path::PathBuf,
    /// SPSA iterations.
    #[arg(long)]
    iterations: usize,
    /// Games per iteration (even: pairs from one opening, colours swapped).
    #[arg(long, default_value_t = 2)]
    games_per_iteration: usize,
    /// Openings, one a line (`startpos moves …` or SFEN); taken in turn.
    #[arg(long, value_name = "FILE")]
    openings: Option<std::path::PathBuf>,
    /// Pairs of games played at once (within one iteration).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    #[command(flatten)]
    game: GameArgs,
    /// Seed of the perturbation signs (and node jitter); keep it when resuming.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Folder for trace.csv, params.txt, params-mean.txt and trace.svg; an existing trace is resumed.
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Serve a live page (each parameter's trace, the iterations so far, games in progress)
    /// at ADDR: a port (127.0.0.1:PORT) or an address with a port; 0 picks a free port
    /// (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    serve: Option<String>,
}

/// `gougi tune`: turn the arguments into options and run.
pub fn run(a: TuneArgs) -> anyhow::Result<()> {
    use std::time::Duration;
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .try_init();
    let serve = serve_address(a.serve.as_deref())?;
    crate::tune::run(crate::tune::TuneOptions {
        engine: a.engine,
        params_file: a.params,
        iterations: a.iterations,
        games_per_iteration: a.games_per_iteration,
        openings: a.openings,
        concurrency: a.concurrency,
        limits: a.game.limits(),
        grace: Duration::from_millis(a.game.grace),
        hang_limit: Duration::from_millis(a.game.hang_limit),
        max_plies: a.game.max_plies,
        nodes_jitter: a.game.nodes_jitter,
        seed: a.seed,
        out: a.out,
        timeouts: a.game.timeouts(),
        quiet: a.quiet,
        serve,
    })
}
