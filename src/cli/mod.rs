//! The plumbing of `gougi`'s subcommands: turning parsed arguments into the options of the
//! module each drives, and the printing around it. `main.rs` keeps the top-level parser and the
//! dispatch; a subcommand whose arguments need more than passing on has its `clap` arguments
//! here, next to the code that reads them.
//!
//! - [`matches`]: `gougi match`.
//! - [`tune`]: `gougi tune`.
//! - [`learn`]: `gougi learn gen | train | init`.
//! - [`perft`]: `gougi perft` and `gougi bench perft`.
//! - [`bench`]: `gougi bench search` and `gougi bench mate`.
//! - [`init`]: `gougi init`.
//!
//! This module also holds what `match` and `tune` share ([`GameArgs`], the `--serve` address)
//! and `gougi search`'s start ([`search`]).

pub mod bench;
pub mod init;
pub mod learn;
pub mod matches;
pub mod perft;
pub mod tune;

/// How each game of `gougi match` and `gougi tune` is limited.
#[derive(clap::Args)]
pub struct GameArgs {
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
    /// Time over the allowance still accepted before a move loses on time, milliseconds: per
    /// move under byoyomi, for the whole game in sudden death and Fischer.
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
    /// Wait for `usiok`, milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    usi_timeout: u64,
    /// Wait for `readyok`, milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    ready_timeout: u64,
}

impl GameArgs {
    fn limits(&self) -> crate::arena::clock::Limits {
        crate::arena::clock::Limits {
            time_ms: self.time,
            byoyomi_ms: self.byoyomi,
            inc_ms: self.inc,
            nodes: self.nodes,
        }
    }

    /// How long an engine may take to start (`--usi-timeout`, `--ready-timeout`).
    fn timeouts(&self) -> crate::arena::engine::StartTimeouts {
        crate::arena::engine::StartTimeouts {
            usi: std::time::Duration::from_millis(self.usi_timeout),
            ready: std::time::Duration::from_millis(self.ready_timeout),
        }
    }
}

/// `--serve ADDR` of `gougi match` and `gougi tune`: the monitor's address rules (a bare port
/// is loopback; host names are refused), and no empty value.
fn serve_address(value: Option<&str>) -> anyhow::Result<Option<std::net::SocketAddr>> {
    match value {
        Some(v) => Ok(Some(
            crate::monitor::parse_address(v)
                .map_err(|e| anyhow::anyhow!("--serve {e}"))?
                .ok_or_else(|| anyhow::anyhow!("--serve needs an address or a port"))?,
        )),
        None => Ok(None),
    }
}

/// `gougi search`: the tune options' listing first when asked, then the USI loop.
pub fn search(tune_options: bool, member: bool) -> anyhow::Result<()> {
    if tune_options {
        crate::search::params::list_tune_options();
    }
    crate::search::engine::run_usi(if member {
        crate::search::engine::Options::member()
    } else {
        crate::search::engine::Options::default()
    })
}
