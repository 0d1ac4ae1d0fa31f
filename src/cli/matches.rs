//! `gougi match`: the arguments (see `gougi match --help`) into [`crate::arena::MatchOptions`].

use super::{serve_address, GameArgs};

/// `gougi match` arguments (see `gougi match --help`).
#[derive(clap::Args)]
pub struct MatchArgs {
    /// An engine: 'cmd=/usr/games/fairy-stockfish name=fsf option.Threads=1' (two or more).
    #[arg(long = "engine", short = 'e', required = true, value_name = "SPEC")]
    engines: Vec<String>,
    /// Openings, one a line (`startpos moves …` or SFEN); each is played with both colours.
    #[arg(long, value_name = "FILE")]
    openings: Option<std::path::PathBuf>,
    /// Games per pairing (default: two per opening).
    #[arg(long)]
    games: Option<usize>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    #[command(flatten)]
    game: GameArgs,
    /// Seed for --nodes-jitter (default: from the clock; printed in the summary).
    #[arg(long)]
    seed: Option<u64>,
    /// Both sides ponder: after a move with a ponder move, the mover gets `go ponder` on it
    /// while the opponent thinks, then `ponderhit` or `stop`. With node budgets it may ponder
    /// up to the opponent's budget and keep it on a hit: `go ponder nodes (own + opponent's)`
    /// (the cluster frame). The summary counts each engine's hits.
    #[arg(long)]
    ponder: bool,
    /// The first engine plays each other one (default: round robin).
    #[arg(long)]
    gauntlet: bool,
    /// Stop early by SPRT: ELO0 ELO1 ALPHA BETA (two engines only).
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_hyphen_values = true)]
    sprt: Option<Vec<f64>>,
    /// Folder for the records (games/*.kif, *.csa), games.sfen, summary.json, summary.txt and
    /// elo.svg (default: match-<date>-<time>).
    #[arg(long, value_name = "DIR")]
    out: Option<std::path::PathBuf>,
    /// Write nothing but the table on stdout.
    #[arg(long, conflicts_with = "out")]
    no_files: bool,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Serve a live page (standings, Elo/LLR curve, games in progress) at ADDR: a port
    /// (127.0.0.1:PORT) or an address with a port; 0 picks a free port (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    serve: Option<String>,
}

/// `gougi match`: turn the arguments into options and run.
fn run_match(a: MatchArgs) -> anyhow::Result<()> {
    use std::time::Duration;
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        // Log lines go above the progress bar, never into it.
        .with_writer(crate::arena::progress::LogWriter)
        .try_init();
    let sprt = a
        .sprt
        .as_deref()
        .map(crate::arena::stats::Sprt::from_args)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let serve = serve_address(a.serve.as_deref())?;
    let out = if a.no_files {
        None
    } else {
        Some(a.out.unwrap_or_else(|| {
            let t = crate::arena::game::now_utc_text();
            let stamp: String = t.chars().filter(char::is_ascii_digit).collect();
            std::path::PathBuf::from(format!("match-{}-{}", &stamp[..8], &stamp[8..]))
        }))
    };
    crate::arena::run(crate::arena::MatchOptions {
        engines: a.engines,
        openings: a.openings,
        games: a.games,
        concurrency: a.concurrency,
        limits: a.game.limits(),
        grace: Duration::from_millis(a.game.grace),
        hang_limit: Duration::from_millis(a.game.hang_limit),
        max_plies: a.game.max_plies,
        nodes_jitter: a.game.nodes_jitter,
        seed: a.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs() % 1_000_000)
        }),
        ponder: a.ponder,
        gauntlet: a.gauntlet,
        sprt,
        out,
        timeouts: a.game.timeouts(),
        quiet: a.quiet,
        serve,
    })
}

/// `gougi match`, ending the process with status 130 after Ctrl-C (the summary so far is out),
/// as the shell expects of SIGINT.
pub fn run(a: MatchArgs) -> anyhow::Result<()> {
    match run_match(a) {
        Err(e) if e.is::<crate::arena::Interrupted>() => std::process::exit(130),
        r => r,
    }
}
