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
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Proxy) {
        Command::Proxy => Ok(()),
    }
}
