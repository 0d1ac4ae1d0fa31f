//! The `gougi` command line: the consultation proxy (default) and the tools around it.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "gougi",
    version,
    about = "USI consultation (合議) engine for computer shogi"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the consultation proxy as a USI engine (what a GUI starts; the default).
    Proxy,
    /// Run the built-in alpha-beta search as a USI engine on stdin/stdout.
    Search,
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Fixed-depth search of fixed positions on one thread: node signature and nps.
    Search {
        /// Search depth.
        depth: Option<i32>,
        /// A file of positions (`sfen …` or `startpos moves …`, one a line) instead of the
        /// built-in set.
        file: Option<std::path::PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Proxy) {
        Command::Proxy => Ok(()),
        Command::Search => gougi::search::engine::run_usi(),
        Command::Bench {
            what: BenchCommand::Search { depth, file },
        } => {
            use gougi::search::bench;
            let depth = depth.unwrap_or(bench::DEFAULT_DEPTH).clamp(1, 60);
            let positions = match file {
                Some(f) => bench::positions_from_file(&f).map_err(anyhow::Error::msg)?,
                None => bench::positions(),
            };
            let r =
                bench::run_on(positions, depth, |l| println!("{l}")).map_err(anyhow::Error::msg)?;
            println!("===========================");
            println!("Total time (ms) : {}", r.millis);
            println!("Nodes searched  : {}", r.nodes);
            println!("Nodes/second    : {}", r.nps());
            Ok(())
        }
    }
}
