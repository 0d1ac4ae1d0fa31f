//! The `gougi` command line: the consultation proxy (default) and the tools around it.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "gougi",
    version,
    about = "USI consultation (合議) engine for computer shogi"
)]
struct Cli {
    /// The consultation config (else $GOUGI_CONFIG, else SimpleGougi.config next to the
    /// executable, else in the working directory).
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the consultation proxy as a USI engine (what a GUI starts; the default).
    Proxy,
    /// Count the leaves of the legal move tree: `gougi perft <depth> [startpos | sfen <SFEN…>]
    /// [moves …]`. Prints one `move: count` line per first move, then `nodes <total>`.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// The position, as after USI `position` (default `startpos`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        position: Vec<String>,
    },
    /// Fixed benchmarks that print node counts, time and speed.
    Bench {
        #[command(subcommand)]
        target: BenchTarget,
    },
    /// Run the built-in alpha-beta search as a USI engine on stdin/stdout.
    Search {
        /// List the search's tunable constants (`T_…` spin options) after `usi`; they are
        /// always settable, only hidden (also: GOUGI_TUNE_OPTIONS=1).
        #[arg(long)]
        tune_options: bool,
        /// Defaults for a consultation member (what `builtin:search` runs): NetworkDelay and
        /// NetworkDelay2 0, since gougi already keeps a margin (`G_Margin`).
        #[arg(long)]
        member: bool,
    },
    /// Write the shipped, commented SimpleGougi.config (the built-in default) to edit.
    Init {
        /// Where to write it (default: --config, else ./SimpleGougi.config).
        path: Option<std::path::PathBuf>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Run the built-in df-pn mate solver as a USI engine (`go mate`).
    Mate,
    /// Play games between USI engines (or gougi configs) and report Elo, LOS and SPRT.
    ///
    /// Each --engine is `key=value` words: cmd=COMMAND (quoted if it has spaces;
    /// builtin:search works) or config=FILE (a gougi consultation), name=NAME,
    /// option.NAME=VALUE, per-engine time=MS byoyomi=MS inc=MS nodes=N, and score_view=black
    /// for engines that print scores from Black's side (gpsusi).
    #[command(name = "match")]
    Match(MatchArgs),
    /// Tune an engine's numbers (spin options, gougi config keys) by SPSA self-play: each
    /// iteration plays θ+ against θ− from the same opening with both colours. Resumable: run
    /// again with the same --out to continue after the last complete iteration.
    Tune(TuneArgs),
    /// Fit a member's score scale (`Engine<N>.Scale`) from CSA game records with `'** score`
    /// comments (as `gougi match` writes them).
    Calibrate {
        /// The player whose scores to fit, as named in the records' N+/N- lines.
        #[arg(long)]
        player: String,
        /// CSA files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// One result from the CSA records of several `gougi match` runs: W/D/L, Elo ± 95 %, LOS
    /// for one player, and optionally the plot.
    Tally {
        /// The player, as named in the records' N+/N- lines.
        #[arg(long)]
        player: String,
        /// Leave out games with this CSA end line (e.g. %TIME_UP); repeatable.
        #[arg(long, value_name = "CODE")]
        skip_end: Vec<String>,
        /// Write the plot of the Elo estimate over the games (in file order) here.
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
        /// CSA files, in the order to plot them.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Make evaluation weights: self-play data (`gen`), fitting (`train`), the hand-set start
    /// (`init`). See ARCHITECTURE.md "Evaluation".
    Learn {
        #[command(subcommand)]
        step: LearnStep,
    },
    /// Opening books in YaneuraOu's `.db` text format (`BookFile` of `gougi search`).
    Book {
        #[command(subcommand)]
        action: BookAction,
    },
    /// An instant USI engine (first legal move at once), the member of `gougi bench proxy`.
    #[command(hide = true)]
    BenchMember {
        /// Info lines printed before each bestmove.
        #[arg(long, default_value_t = 0)]
        infos: usize,
    },
}

/// How each game of `gougi match` and `gougi tune` is limited.
#[derive(clap::Args)]
struct GameArgs {
    /// Main time per side, milliseconds (sudden death alone, or with byoyomi/inc).
    #[arg(long, default_value_t = 0, value_name = "MS")]
    time: u64,
    /// Byoyomi (秒読み) per move, milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    byoyomi: u64,
    /// Fischer increment per move, milliseconds (added when a turn starts).
    #[arg(long, default_value_t = 0, value_name = "MS")]
    inc: u64,
    /// Node budget per move (`go … nodes N`).
    #[arg(long)]
    nodes: Option<u64>,
    /// Time over the allowance still accepted before a move loses on time, milliseconds.
    #[arg(long, default_value_t = 200, value_name = "MS")]
    grace: u64,
    /// With no clock (nodes only), the longest a move may take, milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    hang_limit: u64,
    /// A draw after this many plies (opening moves included).
    #[arg(long, default_value_t = 320)]
    max_plies: usize,
    /// Vary each node budget by up to ±PCT % per move (deterministic engines otherwise replay
    /// the same games).
    #[arg(long, default_value_t = 0, value_name = "PCT")]
    nodes_jitter: u32,
}

impl GameArgs {
    fn limits(&self) -> gougi::arena::clock::Limits {
        gougi::arena::clock::Limits {
            time_ms: self.time,
            byoyomi_ms: self.byoyomi,
            inc_ms: self.inc,
            nodes: self.nodes,
        }
    }
}

#[derive(Subcommand)]
enum BookAction {
    /// Make a book from CSA records (`gougi match` games): each position up to --max-ply with
    /// the moves played from it, count = times played, eval = mean of the `'**` comments.
    Make {
        /// The book to write (sorted, standard format).
        #[arg(long, value_name = "BOOK.db")]
        out: std::path::PathBuf,
        /// Positions up to this move number (1 = the start position).
        #[arg(long, default_value_t = 32)]
        max_ply: u32,
        /// Leave out moves played fewer times.
        #[arg(long, default_value_t = 1)]
        min_count: u64,
        /// CSA files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum LearnStep {
    /// Play the built-in search against itself and append `SFEN<tab>score<tab>result` lines.
    Gen {
        /// Output file (appended to).
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Node budget per move (±10 % noise).
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Weights the players use (default: the embedded ones).
        #[arg(long, value_name = "FILE")]
        eval: Option<std::path::PathBuf>,
    },
    /// Fit weights to data files and write them.
    Train {
        /// Output weight file.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Start from these weights (default: the embedded ones).
        #[arg(long, value_name = "FILE")]
        init: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 2)]
        epochs: usize,
        /// Weight of the search score in the target; the rest goes to the game result (one
        /// label per game: with 0.5 the king-dependent weights learned the games, see
        /// BENCHMARKS "Learned evaluation").
        #[arg(long, default_value_t = 1.0)]
        lambda: f64,
        /// Adam step size, in evaluation units.
        #[arg(long, default_value_t = 1.0)]
        lr: f64,
        #[arg(long, default_value_t = 4096)]
        batch: usize,
        /// Learning rate of the king-piece weights relative to `--lr` (their shared factors
        /// learn at `--lr`).
        #[arg(long, default_value_t = 1.0)]
        kp_lr: f64,
        /// Pull of each king-piece weight back to its starting value, per step.
        #[arg(long, default_value_t = 1e-5)]
        decay: f64,
        /// Data files from `gougi learn gen`.
        #[arg(required = true)]
        data: Vec<std::path::PathBuf>,
    },
    /// Write the hand-set weights the learning starts from.
    Init {
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

/// `gougi learn`.
fn run_learn(step: LearnStep) -> anyhow::Result<()> {
    use gougi::search::eval::Weights;
    use gougi::search::learn;
    let load = |f: Option<std::path::PathBuf>| -> anyhow::Result<&'static Weights> {
        Ok(match f {
            Some(f) => Weights::load(&f).map_err(anyhow::Error::msg)?.leak(),
            None => Weights::embedded(),
        })
    };
    let write = |w: &Weights, out: &std::path::Path| -> anyhow::Result<()> {
        std::fs::write(out, w.to_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))
    };
    match step {
        LearnStep::Gen {
            out,
            games,
            nodes,
            threads,
            seed,
            eval,
        } => {
            let opts = learn::GenOptions {
                games,
                nodes: nodes.max(1),
                threads,
                seed,
                ..learn::GenOptions::default()
            };
            let start = std::time::Instant::now();
            let s = learn::generate(&opts, load(eval)?, &out, &|s| {
                if s.games % 50 == 0 {
                    eprintln!(
                        "{} games, {} positions, {:.0} s",
                        s.games,
                        s.positions,
                        start.elapsed().as_secs_f64()
                    );
                }
            })
            .map_err(anyhow::Error::msg)?;
            println!(
                "games {} positions {} black {} white {} draws {} time {:.1}s",
                s.games,
                s.positions,
                s.black_wins,
                s.white_wins,
                s.draws,
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        LearnStep::Train {
            out,
            init,
            epochs,
            lambda,
            lr,
            batch,
            kp_lr,
            decay,
            data,
        } => {
            let o = learn::TrainOptions {
                epochs,
                lambda,
                lr,
                batch: batch.max(1),
                kp_lr,
                decay,
                ..learn::TrainOptions::default()
            };
            let w = learn::train(&data, load(init)?, &o, &mut |l| println!("{l}"))
                .map_err(anyhow::Error::msg)?;
            write(&w, &out)
        }
        LearnStep::Init { out } => write(&Weights::hand_set(), &out),
    }
}

/// `gougi match` arguments (see `gougi match --help`).
#[derive(clap::Args)]
struct MatchArgs {
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
    /// Wait for `usiok`, milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    usi_timeout: u64,
    /// Wait for `readyok`, milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    ready_timeout: u64,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Serve a live page (standings, Elo/LLR curve, games in progress) at ADDR: a port
    /// (127.0.0.1:PORT) or an address with a port; 0 picks a free port (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    serve: Option<String>,
}

/// `--serve ADDR` of `gougi match` and `gougi tune`: the monitor's address rules (a bare port
/// is loopback; host names are refused), and no empty value.
fn serve_address(value: Option<&str>) -> anyhow::Result<Option<std::net::SocketAddr>> {
    match value {
        Some(v) => Ok(Some(
            gougi::monitor::parse_address(v)
                .map_err(|e| anyhow::anyhow!("--serve {e}"))?
                .ok_or_else(|| anyhow::anyhow!("--serve needs an address or a port"))?,
        )),
        None => Ok(None),
    }
}

/// `gougi match`: turn the arguments into options and run.
fn run_match(a: MatchArgs) -> anyhow::Result<()> {
    use std::time::Duration;
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        // Log lines go above the progress bar, never into it.
        .with_writer(gougi::arena::progress::LogWriter)
        .try_init();
    let sprt = match a.sprt.as_deref() {
        None => None,
        Some(&[e0, e1, alpha, beta]) => {
            Some(gougi::arena::stats::Sprt::new(e0, e1, alpha, beta).map_err(anyhow::Error::msg)?)
        }
        Some(_) => anyhow::bail!("--sprt takes four numbers: ELO0 ELO1 ALPHA BETA"),
    };
    let serve = serve_address(a.serve.as_deref())?;
    let out = if a.no_files {
        None
    } else {
        Some(a.out.unwrap_or_else(|| {
            let t = gougi::arena::game::now_utc_text();
            let stamp: String = t.chars().filter(char::is_ascii_digit).collect();
            std::path::PathBuf::from(format!("match-{}-{}", &stamp[..8], &stamp[8..]))
        }))
    };
    gougi::arena::run(gougi::arena::MatchOptions {
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
        gauntlet: a.gauntlet,
        sprt,
        out,
        timeouts: gougi::arena::engine::StartTimeouts {
            usi: Duration::from_millis(a.usi_timeout),
            ready: Duration::from_millis(a.ready_timeout),
        },
        quiet: a.quiet,
        serve,
    })
}

/// `gougi tune` arguments (see `gougi tune --help`).
#[derive(clap::Args)]
struct TuneArgs {
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
    /// Folder for trace.csv, params.txt and trace.svg; an existing trace is resumed.
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
    /// Wait for `usiok`, milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    usi_timeout: u64,
    /// Wait for `readyok`, milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    ready_timeout: u64,
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
fn run_tune(a: TuneArgs) -> anyhow::Result<()> {
    use std::time::Duration;
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .try_init();
    let serve = serve_address(a.serve.as_deref())?;
    gougi::tune::run(gougi::tune::TuneOptions {
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
        timeouts: gougi::arena::engine::StartTimeouts {
            usi: Duration::from_millis(a.usi_timeout),
            ready: Duration::from_millis(a.ready_timeout),
        },
        quiet: a.quiet,
        serve,
    })
}

#[derive(Subcommand)]
enum BenchTarget {
    /// Perft on fixed positions (startpos d5, matsuri d4, bench1 d4, bench2 d4, bench3 d3,
    /// max593 d3), with bulk counting at the leaves.
    Perft,
    /// Solve tsume problem files (default: tests/data/tsume/*.txt except long_famous.txt).
    Mate {
        /// Problem files.
        files: Vec<std::path::PathBuf>,
        /// Table size in MiB.
        #[arg(long, default_value_t = 256)]
        hash: usize,
        /// Time limit per problem in milliseconds.
        #[arg(long, default_value_t = 30_000)]
        limit_ms: u64,
        /// One line per problem (nodes, milliseconds), to compare two builds problem by problem.
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Turn on the double-count correction (the `DoubleCount` option of `gougi mate`).
        #[arg(long)]
        double_count: bool,
    },
    /// Fixed-depth search of fixed positions on one thread: node signature and nps.
    Search {
        /// Search depth.
        depth: Option<i32>,
        /// A file of positions (`sfen …` or `startpos moves …`, one a line) instead of the
        /// built-in set.
        file: Option<std::path::PathBuf>,
    },
    /// The latency gougi adds to a round and its info relay throughput, with instant members.
    Proxy {
        /// Latency rounds.
        #[arg(long, default_value_t = 2000)]
        rounds: usize,
        /// Info lines per member per round for the relay measurement.
        #[arg(long, default_value_t = 1000)]
        infos: usize,
        /// Relay rounds.
        #[arg(long, default_value_t = 20)]
        relay_rounds: usize,
    },
}

/// `gougi perft`: divide lines, then the total as the last token of the last line.
fn run_perft(depth: u32, position: &[String]) -> anyhow::Result<()> {
    use gougi::shogi::{perft_divide, Position};
    let text = position.join(" ");
    let text = if text.trim().is_empty() {
        "startpos"
    } else {
        text.trim()
    };
    let text =
        if text.starts_with("startpos") || text.starts_with("sfen") || text.starts_with("position")
        {
            text.to_string()
        } else {
            format!("sfen {text}")
        };
    let mut pos = Position::from_usi_position(&text)?;
    let start = std::time::Instant::now();
    let mut total = 0u64;
    if depth == 0 {
        total = 1;
    } else {
        for (m, n) in perft_divide(&mut pos, depth) {
            println!("{m}: {n}");
            total += n;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    tracing::info!(depth, nodes = total, secs, "perft done");
    // The time on stderr, so that stdout keeps the total as its last token and benchmarks
    // can read the search time without the process start-up.
    eprintln!(
        "perft depth {depth} nodes {total} time {secs:.4}s nps {:.0}",
        total as f64 / secs.max(1e-9)
    );
    println!("nodes {total}");
    Ok(())
}

/// `gougi bench perft`: fixed positions; each line checks the count against the reference.
fn bench_perft() -> anyhow::Result<()> {
    use gougi::shogi::{perft, Position};
    // (name, SFEN, depth, reference count from tests/data/perft/perft.txt)
    const CASES: [(&str, &str, u32, u64); 6] = [
        (
            "startpos",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            5,
            19_861_490,
        ),
        (
            "matsuri",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            4,
            516_925_165,
        ),
        (
            "bench1",
            "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
            4,
            1_307_221,
        ),
        (
            "bench2",
            "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
            4,
            153_238_280,
        ),
        (
            "bench3",
            "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
            3,
            8_420_492,
        ),
        (
            "max593",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            3,
            53_393_368,
        ),
    ];
    let mut nodes = 0u64;
    let mut secs = 0f64;
    let mut ok = true;
    for (name, sfen, depth, expected) in CASES {
        let mut pos = Position::from_sfen(sfen)?;
        let start = std::time::Instant::now();
        let n = perft(&mut pos, depth);
        let t = start.elapsed().as_secs_f64();
        let verdict = if n == expected { "ok" } else { "MISMATCH" };
        ok &= n == expected;
        println!(
            "{name:<9} depth {depth} nodes {n:>12} time {t:>8.3}s nps {:>12.0} {verdict}",
            n as f64 / t.max(1e-9)
        );
        nodes += n;
        secs += t;
    }
    println!(
        "total nodes {nodes} time {secs:.3}s nps {:.0}",
        nodes as f64 / secs.max(1e-9)
    );
    anyhow::ensure!(ok, "perft count mismatch");
    Ok(())
}

/// `gougi bench search`: the node signature and speed of the built-in search.
fn bench_search(depth: Option<i32>, file: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    use gougi::search::bench;
    let depth = depth.unwrap_or(bench::DEFAULT_DEPTH).clamp(1, 60);
    let positions = match file {
        Some(f) => bench::positions_from_file(&f).map_err(anyhow::Error::msg)?,
        None => bench::positions(),
    };
    let r = bench::run_on(positions, depth, |l| println!("{l}")).map_err(anyhow::Error::msg)?;
    println!("===========================");
    println!("Total time (ms) : {}", r.millis);
    println!("Nodes searched  : {}", r.nodes);
    println!("Nodes/second    : {}", r.nps());
    Ok(())
}

/// `gougi init`: the built-in config, written out to edit; never over a file without --force.
fn run_init(path: Option<std::path::PathBuf>, force: bool) -> anyhow::Result<()> {
    let path = path.unwrap_or_else(|| gougi::config::CONFIG_NAMES[0].into());
    if let Err(e) = gougi::config::write_built_in(&path, force) {
        // A plain sentence and status 1, not anyhow's report (with a backtrace under
        // RUST_BACKTRACE): this is a user's everyday mistake.
        eprintln!("gougi init: {e}");
        std::process::exit(1);
    }
    println!(
        "wrote {}: edit it, then start gougi from this folder (or with --config {})",
        path.display(),
        path.display()
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Proxy) {
        Command::Proxy => gougi::gougi::run_proxy(cli.config.as_deref()),
        Command::Perft { depth, position } => run_perft(depth, &position),
        Command::Search {
            tune_options,
            member,
        } => {
            if tune_options {
                gougi::search::params::list_tune_options();
            }
            gougi::search::engine::run_usi(if member {
                gougi::search::engine::Options::member()
            } else {
                gougi::search::engine::Options::default()
            })
        }
        Command::Init { path, force } => run_init(path.or(cli.config), force),
        Command::Mate => gougi::mate::usi::run_stdio(),
        Command::Match(args) => match run_match(args) {
            // Ctrl-C: the summary so far is out; end as the shell expects of SIGINT.
            Err(e) if e.is::<gougi::arena::Interrupted>() => std::process::exit(130),
            r => r,
        },
        Command::Tune(args) => run_tune(args),
        Command::Calibrate { player, files } => {
            gougi::gougi::calibrate::run(&player, &files, &mut std::io::stdout())
        }
        Command::Tally {
            player,
            skip_end,
            svg,
            files,
        } => gougi::arena::tally::run(
            &player,
            &files,
            &skip_end,
            svg.as_deref(),
            &mut std::io::stdout(),
        ),
        Command::Learn { step } => run_learn(step),
        Command::Book {
            action:
                BookAction::Make {
                    out,
                    max_ply,
                    min_count,
                    files,
                },
        } => gougi::book::make::run(
            &out,
            gougi::book::make::MakeOptions { max_ply, min_count },
            &files,
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        ),
        Command::BenchMember { infos } => gougi::gougi::bench::instant_member(infos),
        Command::Bench { target } => match target {
            BenchTarget::Perft => bench_perft(),
            BenchTarget::Search { depth, file } => bench_search(depth, file),
            BenchTarget::Mate {
                files,
                hash,
                limit_ms,
                verbose,
                double_count,
            } => {
                let files = if files.is_empty() {
                    gougi::mate::bench::default_files(std::path::Path::new("tests/data/tsume"))
                } else {
                    files
                };
                let limit = std::time::Duration::from_millis(limit_ms);
                gougi::mate::bench::run_bench(
                    &files,
                    &gougi::mate::bench::BenchOptions {
                        hash_mb: hash,
                        limit,
                        verbose,
                        double_count,
                    },
                    &mut std::io::stdout(),
                )
            }
            BenchTarget::Proxy {
                rounds,
                infos,
                relay_rounds,
            } => gougi::gougi::bench::run(rounds, infos, relay_rounds),
        },
    }
}
