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
    /// Run the built-in df-pn mate solver as a USI engine (`go mate`).
    Mate,
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        target: BenchTarget,
    },
}

#[derive(Subcommand)]
enum BenchTarget {
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
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Proxy) {
        Command::Proxy => Ok(()),
        Command::Mate => gougi::mate::usi::run_stdio(),
        Command::Bench {
            target:
                BenchTarget::Mate {
                    files,
                    hash,
                    limit_ms,
                },
        } => {
            let files = if files.is_empty() {
                gougi::mate::bench::default_files(std::path::Path::new("tests/data/tsume"))
            } else {
                files
            };
            gougi::mate::bench::run_bench(
                &files,
                hash,
                std::time::Duration::from_millis(limit_ms),
                &mut std::io::stdout(),
            )
        }
    }
}
