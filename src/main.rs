//! The `gougi` command line: the consultation proxy (default) and the tools around it. This
//! file is the top-level parser and the dispatch; each subcommand's plumbing is in the module
//! it drives or in `gougi::cli`.

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
    Match(gougi::cli::matches::MatchArgs),
    /// Tune an engine's numbers (spin options, gougi config keys) by SPSA self-play: each
    /// iteration plays θ+ against θ− from the same opening with both colours. Resumable: run
    /// again with the same --out to continue after the last complete iteration.
    Tune(gougi::cli::tune::TuneArgs),
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
        /// The SPRT over the games in file order: ELO0 ELO1 ALPHA BETA. The first crossing of a
        /// bound is the verdict, as `gougi match --sprt` would have stopped there.
        #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_hyphen_values = true)]
        sprt: Option<Vec<f64>>,
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
        step: gougi::cli::learn::LearnStep,
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
        /// Evaluate with this YaneuraOu NNUE net (`nn.bin`) instead of the linear weights.
        #[arg(long, value_name = "NN_BIN")]
        eval_file: Option<std::path::PathBuf>,
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
        /// Members behind gougi; a comma-separated list (`3,16,64,256`) measures each in turn
        /// and ends with one table.
        #[arg(long, value_delimiter = ',', default_value = "3")]
        members: Vec<usize>,
        /// `G_InfoRelay` for the relay measurement (`all` relays every member's lines; `leader`,
        /// the default of a real game, re-chooses the leader at each line).
        #[arg(long, default_value = "all")]
        relay: String,
        /// Plies into a game for the rounds' positions (0: the start position): a GUI sends
        /// the whole game at every move, so late positions make longer `position` lines.
        #[arg(long, default_value_t = 0)]
        ply: usize,
    },
}

fn main() -> std::process::ExitCode {
    let result = run();
    // Log lines still queued for stderr or the log file (the members are gone by now).
    gougi::gougi::log_sink::drain(gougi::gougi::log_sink::DRAIN_AT_EXIT);
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader went away (`gougi tally … | head -1`, a GUI that closed the pipe): what
        // was asked for was read, so stop quietly as Unix tools do, not with an error.
        Err(e) if is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // The form `fn main() -> anyhow::Result<()>` printed.
            eprintln!("Error: {e:?}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Whether `e` is, or was caused by, a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run() -> anyhow::Result<()> {
    use gougi::cli;
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Proxy) {
        Command::Proxy => gougi::gougi::run_proxy(cli.config.as_deref()),
        Command::Perft { depth, position } => cli::perft::run(depth, &position),
        Command::Search {
            tune_options,
            member,
        } => {
            gougi::gougi::init_standalone_logging();
            cli::search(tune_options, member)
        }
        Command::Init { path, force } => cli::init::run(path.or(cli.config), force),
        Command::Mate => {
            gougi::gougi::init_standalone_logging();
            gougi::mate::usi::run_stdio()
        }
        Command::Match(args) => cli::matches::run(args),
        Command::Tune(args) => cli::tune::run(args),
        Command::Calibrate { player, files } => {
            gougi::gougi::calibrate::run(&player, &files, &mut std::io::stdout())
        }
        Command::Tally {
            player,
            skip_end,
            sprt,
            svg,
            files,
        } => {
            let sprt = sprt
                .as_deref()
                .map(gougi::arena::stats::Sprt::from_args)
                .transpose()
                .map_err(anyhow::Error::msg)?;
            gougi::arena::tally::run(
                &player,
                &files,
                &skip_end,
                sprt.as_ref(),
                svg.as_deref(),
                &mut std::io::stdout(),
            )
        }
        Command::Learn { step } => cli::learn::run(step),
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
            BenchTarget::Perft => cli::perft::bench(),
            BenchTarget::Search {
                depth,
                file,
                eval_file,
            } => cli::bench::search(depth, file, eval_file),
            BenchTarget::Mate {
                files,
                hash,
                limit_ms,
                verbose,
                double_count,
            } => cli::bench::mate(files, hash, limit_ms, verbose, double_count),
            BenchTarget::Proxy {
                rounds,
                infos,
                relay_rounds,
                members,
                relay,
                ply,
            } => gougi::gougi::bench::run(&gougi::gougi::bench::Settings {
                rounds,
                infos,
                relay_rounds,
                members,
                relay,
                ply,
            }),
        },
    }
}
