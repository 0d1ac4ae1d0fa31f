//! The typed settings ([`Config`] and its parts), as `SimpleGougi.config`'s keys give them.
//!
//! # Keys
//! | key | value | default |
//! |---|---|---|
//! | `Gougi.Type` | one of the 17 types (the original's 14 and gougi's `weighted-optimistic`, `multipv-vote`, `leader`), Japanese name or English id ([`PolicyKind`]) | required |
//! | `Engine<N>.Path` | member N ≥ 1 (any number of members, gaps allowed): a command line | — |
//! | `Engine<N>.Name` | display name override for member N (else its `id name`) | `id name` |
//! | `Engine<N>.Weight` | vote weight, a finite number > 0 | 1 |
//! | `Engine<N>.ScoreView` | `side` (scores from the side to move, as USI says) or `black` (from Black's side, as gpsusi prints them) | `side` |
//! | `Engine<N>.Scale` | score calibration: the member's cp per logistic unit, win rate = 1/(1+e^(−cp/Scale)); `gougi calibrate` fits it from game records | none (raw scores) |
//! | `Engine<N>.Ponder` | `true` or `false`: with `false` the member never gets `go ponder`; at `ponderhit` it starts with a normal `go` | `true` |
//! | `Engine<N>.Nodes` | a node count ≥ 1 (every `go` it gets carries `nodes <n>` instead of the GUI's limits) or `off` (it never gets `nodes`: a GUI `go nodes` reaches it as `go btime 0 wtime 0 byoyomi 1000`) ([`NodesRule`]) | absent: the GUI's `go` as is |
//! | `Engine<N>.MinCores` | a CPU count ≥ 1: under a clock (any `go` but `nodes`, `depth` and `mate`) member N is asked only when this machine has at least that many logical CPUs, so a config written for a bigger machine does not make its members share cores; under `go nodes`/`depth` it always plays | absent: always asked |
//! | `Engine<N>.ShowOptions`, `Engine<N>.HideOptions` | regular expressions over the member's option names: the GUI's dialog lists (as `E<N>_…`) those matching ShowOptions and not HideOptions ([`OptionFilter`]) | all shown |
//! | `Engine<N>.Option.<Name>` | a value for member N's USI option `<Name>` ([`MemberOption`]): it becomes that option's default (the GUI's `E<N>_<Name>` shows it) and is sent as `setoption` before the member's first `isready` unless the GUI sets `E<N>_<Name>`; a name the member does not declare is a warning naming this line | the member's own default |
//! | `Engine<N>.SoloOption.<Name>` | member N's value for its USI option `<Name>` in the rounds where it is the only normal member asked (the others sit out by `MinCores`, or it is the only one): sent as `setoption` before that round's `go`, and the usual value (the GUI's or `Engine<N>.Option.<Name>`, else the member's default) is sent back before the first round it shares; checked like `Engine<N>.Option` (a name the member does not declare, or a value it refuses, is a warning naming this line, and the option is never sent). For noise that only pays in company (`EvalNoise=0` alone) or cores the others leave (`Threads=2`) | no change when alone |
//! | `MateEngine.Path` | the mate engine (number 0, options `E0_…`) | — |
//! | `MateEngine.forPV.Count` | extra mate processes for PV positions (type `mate-pv` only), 0…[`MAX_PV_MATE_COUNT`](super::MAX_PV_MATE_COUNT) | 3 |
//! | `MateEngine.Guard` | `true` or `false`: with `true` and a type that is not a mate type, the mate engine runs beside the members and its verified mate overrides the type's decision | `false` |
//! | `MateEngine.MinCores` | a CPU count ≥ 1, with `MateEngine.Guard=true` only: under a clock the guard runs only on a machine with at least that many logical CPUs, like `Engine<N>.MinCores` (with a mate type it is a warning and ignored: the type is built on its mate engine) | absent: always runs |
//! | `Gougi.Name` | the `id name` gougi announces | `gougi <version>` |
//! | `Log.File` | log file (relative to the config's folder; opened for appending at start-up, a failure is a config error naming the line) | stderr |
//! | `Log.Level` | `error`, `warn`, `info`, `debug` or `trace` (the environment's `GOUGI_LOG` / `GOUGI_LOG_FILE` override `Log.Level` / `Log.File`) | `warn` |
//!
//! Every key but `Log.*` can also be set by an environment variable, which beats the file:
//! `GOUGI_` and the key in capitals with `_` for `.` (`GOUGI_ENGINE1_PATH`,
//! `GOUGI_ENGINE2_OPTION_USI_Hash`, `GOUGI_ENGINE1_SOLOOPTION_EvalNoise`; see `layers` and
//! [`super::env_key`]).
//!
//! # Numbering
//! Member N has option prefix `E<N>_`; the mate engine is 0. PV mate engines take the numbers after
//! `max(10, highest N)`, so they are `E11_`, `E12_`, … as in the original whenever N ≤ 10, and never
//! collide with a normal member when there are more.

use std::path::PathBuf;

use super::{ConfigError, ConfigWarning, EngineCommand, PolicyKind, Problem};
// The member's own switches are the member module's types; the config fills them in.
pub use crate::member::{MemberOption, NodesRule, OptionFilter};
use crate::member::{MemberSpec, Role};

/// One normal member, `Engine<N>.*`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineEntry {
    /// N, as configured (option prefix `E<N>_`).
    pub number: u32,
    pub command: EngineCommand,
    /// `Engine<N>.Name`, overriding the member's `id name`.
    pub name: Option<String>,
    /// `Engine<N>.Weight` (default 1).
    pub weight: f64,
    /// `Engine<N>.Scale`: centipawns per logistic unit of this member's scores, if calibrated.
    pub scale: Option<f64>,
    /// `Engine<N>.ScoreView=black`: the member prints scores from Black's side.
    pub black_view_scores: bool,
    /// `Engine<N>.Ponder` (default true): false = the member never gets `go ponder`.
    pub ponder: bool,
    /// `Engine<N>.Nodes`: how `nodes` limits reach this member (default [`NodesRule::Gui`]).
    pub nodes: NodesRule,
    /// `Engine<N>.MinCores` (0 when absent: always asked).
    pub min_cores: u32,
    /// `Engine<N>.ShowOptions` / `HideOptions`: which of its options the GUI's dialog shows.
    pub option_filter: OptionFilter,
    /// `Engine<N>.Option.<Name>=<value>`, in the file's order.
    pub options: Vec<MemberOption>,
    /// `Engine<N>.SoloOption.<Name>=<value>`, in the file's order.
    pub solo_options: Vec<MemberOption>,
    /// The line of `Engine<N>.Path`, for later messages.
    pub line: usize,
}

/// The validated settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The file read.
    pub path: PathBuf,
    pub policy: PolicyKind,
    /// Normal members, sorted by number.
    pub engines: Vec<EngineEntry>,
    /// `MateEngine.Path` (number 0).
    pub mate_engine: Option<EngineCommand>,
    /// `MateEngine.forPV.Count` (used by `mate-pv` only).
    pub pv_mate_count: u32,
    /// `MateEngine.Guard=true` with a type that is not a mate type: the mate engine runs beside
    /// the type's members and its verified mate overrides the decision.
    pub mate_guard: bool,
    /// `MateEngine.MinCores` with `MateEngine.Guard=true` (0 when absent or without the guard):
    /// under a clock the guard runs only on a machine with at least this many logical CPUs.
    pub mate_min_cores: u32,
    /// `Gougi.Name`.
    pub name: Option<String>,
    /// `Log.File`, resolved against the config's folder.
    pub log_file: Option<PathBuf>,
    /// The line of `Log.File` (0 when absent), for [`Config::open_log_file`]'s error.
    pub log_file_line: usize,
    /// `Log.Level`.
    pub log_level: Option<tracing::Level>,
    pub warnings: Vec<ConfigWarning>,
}

impl Config {
    /// Whether the mate engine is started: the mate types need it, any other type runs it as
    /// a guard when `MateEngine.Guard=true`.
    pub fn runs_mate_engine(&self) -> bool {
        self.mate_engine.is_some() && (self.policy.needs_mate_engine() || self.mate_guard)
    }

    /// The numbers given to the PV mate engines (`mate-pv`): after `max(10, highest N)`.
    pub fn pv_mate_numbers(&self) -> Vec<u32> {
        if self.policy != PolicyKind::MatePv || self.mate_engine.is_none() {
            return Vec::new();
        }
        let base = self
            .engines
            .iter()
            .map(|e| e.number)
            .max()
            .unwrap_or(0)
            .max(10);
        (1..=self.pv_mate_count).map(|i| base + i).collect()
    }

    /// Every member this config asks for: normal members by number, then (when it runs one)
    /// the mate engine, then (for `mate-pv`) the PV mate engines.
    pub fn member_specs(&self) -> Vec<MemberSpec> {
        let mut specs: Vec<MemberSpec> = self
            .engines
            .iter()
            .map(|e| MemberSpec {
                display_name: e.name.clone(),
                weight: e.weight,
                scale: e.scale,
                black_view_scores: e.black_view_scores,
                ponder: e.ponder,
                nodes: e.nodes,
                min_cores: e.min_cores,
                option_filter: e.option_filter.clone(),
                options: e.options.clone(),
                solo_options: e.solo_options.clone(),
                ..MemberSpec::from_command(e.number, Role::Normal, &e.command)
            })
            .collect();
        if self.runs_mate_engine() {
            if let Some(mate) = &self.mate_engine {
                specs.push(MemberSpec {
                    min_cores: self.mate_min_cores,
                    ..MemberSpec::from_command(0, Role::Mate, mate)
                });
                for n in self.pv_mate_numbers() {
                    specs.push(MemberSpec::from_command(n, Role::PvMate, mate));
                }
            }
        }
        specs
    }

    /// Opens `Log.File` for appending (`None` without one). A failure is a config error naming
    /// the file, the line and the key: `SimpleGougi.config:7: Log.File: cannot open
    /// /x/logs/gougi.log: No such file or directory (os error 2)`.
    pub fn open_log_file(&self) -> Result<Option<std::fs::File>, ConfigError> {
        let Some(path) = &self.log_file else {
            return Ok(None);
        };
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(Some)
            .map_err(|e| ConfigError::Invalid {
                file: self.path.clone(),
                line: self.log_file_line,
                key: "Log.File".to_owned(),
                problem: Problem::CannotOpenLog {
                    path: path.clone(),
                    message: e.to_string(),
                },
            })
    }
}
