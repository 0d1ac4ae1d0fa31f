//! `SimpleGougi.config` → typed, validated settings ([`Config`]). Nothing else reads the file.
//!
//! # Finding the file ([`locate`])
//! An explicit choice always wins: `--config PATH`, else the environment variable
//! `GOUGI_CONFIG`; a missing explicit file is an error (never a silent fallback). Otherwise the
//! first existing file among [`CONFIG_NAMES`] (`SimpleGougi.config`, then the original names
//! `GougiShogi.config` and `SimpleGougiShogi.config`) next to the executable, then in the working
//! directory. When none is found and none was named, the proxy plays with the shipped file
//! compiled in ([`BUILT_IN_TEXT`], built-in members only) and says so; `gougi init` writes
//! that text out to edit.
//!
//! # Format
//! Compatible with GougiShogi (formerly SimpleGougiShogi, see
//! `reference/gougishogi-behaviour.md` §2), with the weaknesses of its §12.11 fixed:
//! - UTF-8 (a leading BOM is skipped); if the bytes are not valid UTF-8 the file is decoded as
//!   CP932 (Shift_JIS), which is what the original shipped.
//! - Each line is trimmed. Blank lines and lines starting with `#` are comments.
//! - A setting is `Key=value`; spaces around `=` are allowed (the original required none before
//!   `=`); the value is trimmed. Keys are case-sensitive, as in the original.
//! - **Unknown keys.** A line shaped like a dotted key (`Word.Word…=…`, e.g. `Engin1.Path=…`) whose
//!   key is not one of ours is an **error** naming the line: a typo there would silently lose a
//!   member, which is worse than refusing to start.
//! - **Lines without `=`.** One that starts like a dotted key (`Engine2.Path builtin:search`,
//!   `Engine2.Path:…`, a lone `Gougi.Type`) is an **error** naming the line, for the same reason.
//! - **Free text.** The original had no comment syntax and ignored every line that did not start
//!   with `Key=`, so old files hold prose and section titles (`［エンジン］`, `[Engines]`). gougi
//!   still ignores them, but says so: each is a [`ConfigWarning`] (`file:line: ignored: …`), which
//!   the proxy prints as `info string [Warning] …` at start-up, so a line that was meant as a
//!   setting never vanishes without a word.
//! - **Duplicate keys.** The original took the first occurrence (the last for
//!   `MateEngine.forPV.Count`). gougi: a repeat with the same value is a warning; a repeat with a
//!   different value is an error naming both lines, because either reading surprises somebody.
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
//! | `Engine<N>.ShowOptions`, `Engine<N>.HideOptions` | regular expressions over the member's option names: the GUI's dialog lists (as `E<N>_…`) those matching ShowOptions and not HideOptions ([`OptionFilter`]) | all shown |
//! | `Engine<N>.Option.<Name>` | a value for member N's USI option `<Name>` ([`MemberOption`]): it becomes that option's default (the GUI's `E<N>_<Name>` shows it) and is sent as `setoption` before the member's first `isready` unless the GUI sets `E<N>_<Name>`; a name the member does not declare is a warning naming this line | the member's own default |
//! | `MateEngine.Path` | the mate engine (number 0, options `E0_…`) | — |
//! | `MateEngine.forPV.Count` | extra mate processes for PV positions (type `mate-pv` only), 0…[`MAX_PV_MATE_COUNT`] | 3 |
//! | `Gougi.Name` | the `id name` gougi announces | `gougi <version>` |
//! | `Log.File` | log file (relative to the config's folder; opened for appending at start-up, a failure is a config error naming the line) | stderr |
//! | `Log.Level` | `error`, `warn`, `info`, `debug` or `trace` (the environment's `GOUGI_LOG` / `GOUGI_LOG_FILE` override `Log.Level` / `Log.File`) | `warn` |
//!
//! # Command lines ([`EngineCommand`])
//! `builtin:search` / `builtin:mate` run this same executable with the subcommand `search` /
//! `mate` (extra words are passed as arguments); their working directory is the proxy's. Anything
//! else is a command line: words split on whitespace, `"…"` or `'…'` group a word with spaces (no
//! backslash escapes, so Windows paths stay intact). For compatibility with the original, which
//! launched the whole value with no arguments, an unquoted value that names an existing file as a
//! whole (`C:\Program Files\x\x.exe`-style) is that program with no arguments. A program path with
//! a folder part resolves against the **config file's folder** and must exist (and be executable,
//! on Unix); its working directory is its own folder. A bare program name (`ssh`) is looked up in
//! the config's folder first, then on `PATH`; found on `PATH`, it runs in the proxy's working
//! directory.
//!
//! # Validation (original §2 checks, plus §12.11)
//! At least one engine; a known type; `majority` needs ≥ 2 members (the original required exactly
//! 3; gougi votes among any number), `exchange` exactly 2, `by-phase` exactly 3, and `mate`,
//! `mate-sfen`, `mate-pv` exactly one normal engine plus `MateEngine.Path` (the original checked
//! this only for `mate`). Every error is a [`ConfigError`] whose `Display` names the file, the line
//! and the key: `SimpleGougi.config:3: Engine2.Path: no such file: /x/y`.
//!
//! # Numbering
//! Member N has option prefix `E<N>_`; the mate engine is 0. PV mate engines take the numbers after
//! `max(10, highest N)`, so they are `E11_`, `E12_`, … as in the original whenever N ≤ 10, and never
//! collide with a normal member when there are more.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// File names looked up, in order, in each default folder.
pub const CONFIG_NAMES: [&str; 3] = [
    "SimpleGougi.config",
    "GougiShogi.config",
    "SimpleGougiShogi.config",
];

/// The environment variable naming the config file.
pub const CONFIG_ENV: &str = "GOUGI_CONFIG";

/// How `nodes` limits reach one member (`Engine<N>.Nodes`). Some engines cannot take
/// `go … nodes` at all (Debian's gpsusi aborts on it; its own `--node-count-hard-limit` bounds
/// it instead), others should search a fixed budget whatever the GUI asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NodesRule {
    /// The default: the GUI's `go` is passed on as it is (with its `nodes`, if any).
    #[default]
    Gui,
    /// Every `go` this member gets carries `nodes <n>` instead of the GUI's node limit.
    Fixed(u64),
    /// The member never gets `nodes`: a GUI `go nodes` reaches it as
    /// `go btime 0 wtime 0 byoyomi 1000`, and its own limits decide.
    Off,
}

/// Default number of PV mate engines (`MateEngine.forPV.Count`), as in the original.
pub const DEFAULT_PV_MATE_COUNT: u32 = 3;

/// The most PV mate engines `MateEngine.forPV.Count` may ask for. Each is a process with its
/// own hash; the original had no limit, and `100000` started processes until the machine gave
/// out (issue #17). 16 is several times what a PV of 8 plies can keep busy.
pub const MAX_PV_MATE_COUNT: u32 = 16;

pub use crate::gougi::policy::kind::{PolicyKind, UnknownPolicy};

/// Which built-in engine a `builtin:` command names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `builtin:search` → `gougi search`.
    Search,
    /// `builtin:mate` → `gougi mate`.
    Mate,
}

impl Builtin {
    /// The subcommand of the gougi binary.
    pub fn subcommand(self) -> &'static str {
        match self {
            Builtin::Search => "search",
            Builtin::Mate => "mate",
        }
    }
}

/// A member's resolved command line: what to spawn, with which arguments, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    /// The program (absolute unless it was found on `PATH`, then as written).
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The child's working directory; `None` means the proxy's own.
    pub working_dir: Option<PathBuf>,
    /// `Some` for `builtin:*` (then `program` is this executable).
    pub builtin: Option<Builtin>,
    /// The value as written in the config, for messages.
    pub text: String,
}

/// `Engine<N>.ShowOptions` / `Engine<N>.HideOptions`: regular expressions (searched anywhere in
/// the option's name; anchor with `^…$`) choosing which of a member's options reach the GUI's
/// dialog as `E<N>_<name>`: those that match `show` (all when absent) and not `hide`. Three real
/// members bring over a hundred rows; the hidden ones keep the member's defaults. Checked when
/// the config is read, so a bad pattern is a config error naming its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionFilter {
    pub show: Option<String>,
    pub hide: Option<String>,
}

impl OptionFilter {
    /// The filter as a predicate on option names (patterns compiled once).
    pub fn matcher(&self) -> impl Fn(&str) -> bool {
        let compile = |p: &Option<String>| p.as_deref().and_then(|p| regex::Regex::new(p).ok());
        let (show, hide) = (compile(&self.show), compile(&self.hide));
        move |name: &str| {
            show.as_ref().is_none_or(|r| r.is_match(name))
                && !hide.as_ref().is_some_and(|r| r.is_match(name))
        }
    }
}

/// `Engine<N>.Option.<Name>=<value>`: a config default for one of a member's USI options.
/// Whether the member declares it is known only at its `usiok`, so that check is the
/// coordinator's (a warning, not an error: the member may be another build or version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberOption {
    pub name: String,
    pub value: String,
    /// The config file and line, for the warning about a name the member does not declare.
    pub file: PathBuf,
    pub line: usize,
}

impl MemberOption {
    /// `Engine<N>.Option.<Name>`, the key as written.
    pub fn key(&self, number: u32) -> String {
        format!("Engine{number}.Option.{}", self.name)
    }
}

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
    /// `Engine<N>.ShowOptions` / `HideOptions`: which of its options the GUI's dialog shows.
    pub option_filter: OptionFilter,
    /// `Engine<N>.Option.<Name>=<value>`, in the file's order.
    pub options: Vec<MemberOption>,
    /// The line of `Engine<N>.Path`, for later messages.
    pub line: usize,
}

/// A non-fatal remark about the file (a repeated key with the same value, a key the chosen type
/// ignores). `Display` has the same `file:line: key: message` shape as errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigWarning {
    pub file: PathBuf,
    pub line: usize,
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    /// `file:line: key: message`, or `file:line: message` for a line with no key (free text).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.file.display(), self.line)?;
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
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
    /// The numbers given to the PV mate engines (`mate-pv`): after `max(10, highest N)`.
    /// Whether the mate engine is started: the mate types need it, any other type runs it as
    /// a guard when `MateEngine.Guard=true`.
    pub fn runs_mate_engine(&self) -> bool {
        self.mate_engine.is_some() && (self.policy.needs_mate_engine() || self.mate_guard)
    }

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

    /// Reads, decodes, parses and validates `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let bytes = std::fs::read(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = decode(&bytes);
        let config = Config::parse(&text, path)?;
        for w in &config.warnings {
            tracing::warn!("{w}");
        }
        Ok(config)
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

    /// Parses and validates config text; `path` names the file in messages and anchors relative
    /// paths (its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Parser::new(path).run(text)
    }

    /// The built-in config ([`BUILT_IN_TEXT`]), named [`BUILT_IN_NAME`] in messages. Its
    /// members are `builtin:` ones, so no folder is involved; an error here means the shipped
    /// file or this executable's path is broken, and is reported like any config error.
    pub fn built_in() -> Result<Config, ConfigError> {
        Config::parse(BUILT_IN_TEXT, Path::new(BUILT_IN_NAME))
    }
}

/// Decodes config bytes: UTF-8 (BOM skipped) when valid, else CP932.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => {
            let (text, _, had_errors) = encoding_rs::SHIFT_JIS.decode(bytes);
            if had_errors {
                tracing::warn!(
                    "config is neither UTF-8 nor clean CP932; undecodable bytes replaced"
                );
            }
            text.into_owned()
        }
    }
}

/// Finds the config file. `explicit` is `--config`; `env` the value of `GOUGI_CONFIG`; `exe_dir`
/// the executable's folder; `cwd` the working directory. See the module doc for the order.
pub fn locate_in(
    explicit: Option<&Path>,
    env: Option<&Path>,
    exe_dir: Option<&Path>,
    cwd: &Path,
) -> Result<PathBuf, ConfigError> {
    if let Some(p) = explicit.or(env) {
        let p = if p.is_absolute() {
            p.to_owned()
        } else {
            cwd.join(p)
        };
        return if p.is_file() {
            Ok(p)
        } else {
            Err(ConfigError::Missing { path: p })
        };
    }
    let mut searched = Vec::new();
    for dir in exe_dir.into_iter().chain(std::iter::once(cwd)) {
        for name in CONFIG_NAMES {
            let p = dir.join(name);
            if p.is_file() {
                return Ok(p);
            }
            searched.push(p);
        }
    }
    Err(ConfigError::NotFound { searched })
}

/// [`locate_in`] with the real environment: `GOUGI_CONFIG`, `current_exe()`'s folder and the
/// current directory.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    let env = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty());
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_owned));
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    locate_in(
        explicit,
        env.as_deref().map(Path::new),
        exe_dir.as_deref(),
        &cwd,
    )
}

/// [`locate`] then [`Config::load`]: a file, or an error (no built-in fallback).
pub fn load_config(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    Config::load(&locate(explicit)?)
}

/// The shipped `SimpleGougi.config`, compiled in: what gougi plays with when no config file is
/// found, and what `gougi init` writes. It names only `builtin:` members, which resolve to this
/// executable, so it works wherever the executable alone was copied or registered.
pub const BUILT_IN_TEXT: &str = include_str!("../SimpleGougi.config");

/// The name the built-in config goes by in messages (it has no file).
pub const BUILT_IN_NAME: &str = "<built-in SimpleGougi.config>";

/// What the proxy does at start-up: [`locate`] then [`Config::load`]; when no file is found and
/// none was named (no `--config`, no `GOUGI_CONFIG`), the built-in config
/// ([`Config::built_in`]) instead. The flag is true for the built-in one. A named file that is
/// missing stays an error: the user asked for that file.
pub fn load_config_or_built_in(explicit: Option<&Path>) -> Result<(Config, bool), ConfigError> {
    match locate(explicit) {
        Ok(path) => Ok((Config::load(&path)?, false)),
        Err(ConfigError::NotFound { .. }) => Ok((Config::built_in()?, true)),
        Err(e) => Err(e),
    }
}

/// Why `gougi init` wrote nothing.
#[derive(Debug, Error)]
pub enum InitError {
    #[error("{} already exists; not overwritten (gougi init --force overwrites it)", .0.display())]
    Exists(PathBuf),
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `gougi init`: writes [`BUILT_IN_TEXT`] to `path`. Without `force` an existing file is never
/// touched (checked by the create itself, so there is no window between a test and the write).
pub fn write_built_in(path: &Path, force: bool) -> Result<(), InitError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let io = |source| InitError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = options.open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            InitError::Exists(path.to_owned())
        } else {
            io(e)
        }
    })?;
    file.write_all(BUILT_IN_TEXT.as_bytes()).map_err(io)?;
    file.flush().map_err(io)
}

/// Every way the config can be wrong. `Display` names the file, the line and the key.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("config file not found: {}", .path.display())]
    Missing { path: PathBuf },
    #[error("no config file found (looked for {})", list_paths(.searched))]
    NotFound { searched: Vec<PathBuf> },
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A problem tied to a key; `line` is 0 when the key is absent from the file.
    #[error("{}{}: {key}: {problem}", .file.display(), line_part(*.line))]
    Invalid {
        file: PathBuf,
        line: usize,
        key: String,
        problem: Problem,
    },
}

impl ConfigError {
    /// The problem, for the `Invalid` variant.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            ConfigError::Invalid { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

fn line_part(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What is wrong with one key.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum Problem {
    #[error("unknown key{}", hint_part(.hint))]
    UnknownKey { hint: Option<String> },
    #[error("set again with a different value (first on line {first_line})")]
    Duplicate { first_line: usize },
    #[error("empty value")]
    Empty,
    #[error("unknown type {value:?}; valid types: {}", valid_types())]
    UnknownType { value: String },
    #[error("missing; valid types: {}", valid_types())]
    NoType,
    #[error("no engines configured (set Engine1.Path=…)")]
    NoEngines,
    #[error("type {policy} needs {expected} engine(s), found {found}")]
    EngineCount {
        policy: PolicyKind,
        expected: String,
        found: usize,
    },
    #[error("type {policy} needs MateEngine.Path")]
    NoMateEngine { policy: PolicyKind },
    #[error("Engine{number}.Path is missing")]
    NoPath { number: u32 },
    #[error("engine number must be 1 or more (0 is the mate engine)")]
    EngineZero,
    #[error("not a number: {value:?}")]
    BadNumber { value: String },
    #[error("{value} is too many; at most {MAX_PV_MATE_COUNT} PV mate engines (0 for none)")]
    TooManyPvMates { value: u32 },
    #[error("weight must be a finite number > 0, got {value:?}")]
    BadWeight { value: String },
    #[error("scale must be a finite number > 0 (centipawns per logistic unit), got {value:?}")]
    BadScale { value: String },
    #[error("score view must be side or black, got {value:?}")]
    BadScoreView { value: String },
    #[error("must be true or false, got {value:?}")]
    BadPonder { value: String },
    #[error("must be a node count of 1 or more, or off, got {value:?}")]
    BadNodes { value: String },
    #[error("not a regular expression: {message}")]
    BadPattern { message: String },
    #[error("no \"=\": a setting is Key=value (start a comment with #)")]
    NoEquals,
    #[error("cannot open {}: {message}", .path.display())]
    CannotOpenLog { path: PathBuf, message: String },
    #[error("unknown level {value:?} (error, warn, info, debug, trace)")]
    BadLevel { value: String },
    #[error("unbalanced quote in {value:?}")]
    UnbalancedQuote { value: String },
    #[error("unknown builtin {value:?} (builtin:search, builtin:mate)")]
    UnknownBuiltin { value: String },
    #[error("cannot find this executable: {message}")]
    NoCurrentExe { message: String },
    #[error("no such file: {}", .path.display())]
    NoSuchFile { path: PathBuf },
    #[error("not executable: {}", .path.display())]
    NotExecutable { path: PathBuf },
    #[error("{program:?} is neither in the config's folder nor on PATH")]
    NotOnPath { program: String },
}

fn hint_part(hint: &Option<String>) -> String {
    match hint {
        Some(h) => format!(" (did you mean {h}?)"),
        None => String::new(),
    }
}

fn valid_types() -> String {
    PolicyKind::ALL
        .iter()
        .map(|k| format!("{} ({})", k.id(), k.japanese_name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A recognised key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    GougiType,
    GougiName,
    EnginePath(u32),
    EngineName(u32),
    EngineWeight(u32),
    EngineScale(u32),
    EngineScoreView(u32),
    EnginePonder(u32),
    EngineNodes(u32),
    EngineShowOptions(u32),
    EngineHideOptions(u32),
    /// `Engine<N>.Option.<Name>`: the name is `Parser::option_names[.1]` (keys stay `Copy`).
    EngineOption(u32, usize),
    MatePath,
    MatePvCount,
    MateGuard,
    LogFile,
    LogLevel,
}

/// The fixed keys, for hints.
const FIXED_KEYS: [&str; 7] = [
    "Gougi.Type",
    "Gougi.Name",
    "MateEngine.Path",
    "MateEngine.forPV.Count",
    "MateEngine.Guard",
    "Log.File",
    "Log.Level",
];

impl Key {
    /// `Ok(None)` when the text is not a key of ours; `Err` for `Engine0.*`.
    fn parse(key: &str) -> Result<Option<Key>, Problem> {
        Ok(Some(match key {
            "Gougi.Type" => Key::GougiType,
            "Gougi.Name" => Key::GougiName,
            "MateEngine.Path" => Key::MatePath,
            "MateEngine.forPV.Count" => Key::MatePvCount,
            "MateEngine.Guard" => Key::MateGuard,
            "Log.File" => Key::LogFile,
            "Log.Level" => Key::LogLevel,
            _ => {
                let Some(rest) = key.strip_prefix("Engine") else {
                    return Ok(None);
                };
                let Some((num, field)) = rest.split_once('.') else {
                    return Ok(None);
                };
                if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
                    return Ok(None);
                }
                let Ok(n) = num.parse::<u32>() else {
                    return Ok(None);
                };
                let k = match field {
                    "Path" => Key::EnginePath(n),
                    "Name" => Key::EngineName(n),
                    "Weight" => Key::EngineWeight(n),
                    "Scale" => Key::EngineScale(n),
                    "ScoreView" => Key::EngineScoreView(n),
                    "Ponder" => Key::EnginePonder(n),
                    "Nodes" => Key::EngineNodes(n),
                    "ShowOptions" => Key::EngineShowOptions(n),
                    "HideOptions" => Key::EngineHideOptions(n),
                    _ => return Ok(None),
                };
                if n == 0 {
                    return Err(Problem::EngineZero);
                }
                k
            }
        }))
    }

    /// A suggestion for an unknown key: a case-insensitive match, or the engine field form.
    fn hint(key: &str) -> Option<String> {
        let lower = key.to_ascii_lowercase();
        if let Some(k) = FIXED_KEYS.iter().find(|k| k.to_ascii_lowercase() == lower) {
            return Some((*k).to_owned());
        }
        let digits: String = key.chars().filter(char::is_ascii_digit).collect();
        let field = key.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        let looks_like_engine = lower.starts_with("eng") || lower.starts_with("egn");
        if looks_like_engine && !digits.is_empty() {
            let f = match field.as_str() {
                "name" => "Name",
                "weight" => "Weight",
                "scale" => "Scale",
                "scoreview" => "ScoreView",
                "ponder" => "Ponder",
                "nodes" => "Nodes",
                "showoptions" => "ShowOptions",
                "hideoptions" => "HideOptions",
                _ => "Path",
            };
            return Some(format!("Engine{digits}.{f}"));
        }
        None
    }
}

/// `Engine<N>.Option.<Name>` → `(N, Name)`. USI option names hold no spaces, so neither may
/// `<Name>` (a key like `Engine2.Option.Skill Level` is no key of ours).
fn engine_option_key(key: &str) -> Option<(u32, &str)> {
    let rest = key.strip_prefix("Engine")?;
    let (num, field) = rest.split_once('.')?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = field.strip_prefix("Option.")?;
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    Some((num.parse().ok()?, name))
}

/// True if the text before `=` looks like a dotted key (`Word.Word…`), so a typo there is an error
/// rather than ignored prose.
fn looks_like_key(key: &str) -> bool {
    let mut parts = key.split('.');
    let all_words = key
        .split('.')
        .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    parts.next().is_some() && parts.next().is_some() && all_words
}

struct Parser {
    file: PathBuf,
    dir: PathBuf,
    /// key → (line, raw value), first occurrence.
    values: BTreeMap<Key, (usize, String)>,
    key_names: BTreeMap<Key, String>,
    /// The option names of `Engine<N>.Option.<Name>` keys ([`Key::EngineOption`]'s index).
    option_names: Vec<String>,
    warnings: Vec<ConfigWarning>,
}

impl Parser {
    fn new(path: &Path) -> Parser {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_owned)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().map(|c| c.join(&dir)).unwrap_or(dir)
        };
        Parser {
            file: path.to_owned(),
            dir,
            values: BTreeMap::new(),
            key_names: BTreeMap::new(),
            option_names: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn err(&self, line: usize, key: &str, problem: Problem) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.clone(),
            line,
            key: key.to_owned(),
            problem,
        }
    }

    fn warn(&mut self, line: usize, key: &str, message: String) {
        self.warnings.push(ConfigWarning {
            file: self.file.clone(),
            line,
            key: key.to_owned(),
            message,
        });
    }

    /// A line that is neither a comment nor a setting: ignored as the original did, with a
    /// warning that quotes its start.
    fn free_text(&mut self, line: usize, text: &str, why: &str) {
        const QUOTE_CHARS: usize = 40;
        let mut quoted: String = text.chars().take(QUOTE_CHARS).collect();
        if text.chars().nth(QUOTE_CHARS).is_some() {
            quoted.push('…');
        }
        self.warn(
            line,
            "",
            format!("ignored: {why}, not a setting (start comments with #): {quoted:?}"),
        );
    }

    fn run(mut self, text: &str) -> Result<Config, ConfigError> {
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key_text, value)) = line.split_once('=') else {
                // What a key would be: the leading run of key characters (`Engine2.Path` in
                // `Engine2.Path builtin:search` or `Engine2.Path:…`).
                let head_len = line
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    .unwrap_or(line.len());
                let head = &line[..head_len];
                if looks_like_key(head) {
                    return Err(self.err(line_no, head, Problem::NoEquals));
                }
                self.free_text(line_no, line, "no \"=\"");
                continue;
            };
            let key_text = key_text.trim();
            let value = value.trim();
            let parsed = match engine_option_key(key_text) {
                Some((0, _)) => Err(Problem::EngineZero),
                Some((n, name)) => {
                    let idx = match self.option_names.iter().position(|o| o == name) {
                        Some(idx) => idx,
                        None => {
                            self.option_names.push(name.to_owned());
                            self.option_names.len() - 1
                        }
                    };
                    Ok(Some(Key::EngineOption(n, idx)))
                }
                None => Key::parse(key_text),
            };
            let key = match parsed {
                Ok(Some(k)) => k,
                Ok(None) if looks_like_key(key_text) => {
                    return Err(self.err(
                        line_no,
                        key_text,
                        Problem::UnknownKey {
                            hint: Key::hint(key_text),
                        },
                    ))
                }
                Ok(None) => {
                    self.free_text(line_no, line, "not a key");
                    continue;
                }
                Err(p) => return Err(self.err(line_no, key_text, p)),
            };
            if value.is_empty() {
                return Err(self.err(line_no, key_text, Problem::Empty));
            }
            if let Some((first, old)) = self.values.get(&key) {
                let first = *first;
                // The two names of one type are the same value.
                let same = old == value
                    || (key == Key::GougiType
                        && old.parse::<PolicyKind>().ok() == value.parse::<PolicyKind>().ok()
                        && value.parse::<PolicyKind>().is_ok());
                if same {
                    self.warn(
                        line_no,
                        key_text,
                        format!("repeated (first on line {first}); same value, ignored"),
                    );
                    continue;
                }
                return Err(self.err(line_no, key_text, Problem::Duplicate { first_line: first }));
            }
            self.values.insert(key, (line_no, value.to_owned()));
            self.key_names.insert(key, key_text.to_owned());
        }
        self.build()
    }

    fn get(&self, key: Key) -> Option<(usize, &str)> {
        self.values.get(&key).map(|(l, v)| (*l, v.as_str()))
    }

    fn build(mut self) -> Result<Config, ConfigError> {
        // Engines: Path is the anchor; Name/Weight without Path is an error.
        let mut engines = Vec::new();
        let keys: Vec<Key> = self.values.keys().copied().collect();
        for key in &keys {
            let (Key::EngineName(n)
            | Key::EngineWeight(n)
            | Key::EngineScale(n)
            | Key::EngineScoreView(n)
            | Key::EnginePonder(n)
            | Key::EngineNodes(n)
            | Key::EngineShowOptions(n)
            | Key::EngineHideOptions(n)
            | Key::EngineOption(n, _)) = *key
            else {
                continue;
            };
            if !self.values.contains_key(&Key::EnginePath(n)) {
                let (line, _) = self.values[key];
                return Err(self.err(line, &self.key_names[key], Problem::NoPath { number: n }));
            }
        }
        for key in &keys {
            let Key::EnginePath(n) = *key else { continue };
            let (line, text) = self.values[key].clone();
            let key_name = format!("Engine{n}.Path");
            let command = self.command(line, &key_name, &text)?;
            let name = self.get(Key::EngineName(n)).map(|(_, v)| v.to_owned());
            let weight = match self.get(Key::EngineWeight(n)) {
                None => 1.0,
                Some((wl, v)) => match v.parse::<f64>() {
                    Ok(w) if w.is_finite() && w > 0.0 => w,
                    _ => {
                        return Err(self.err(
                            wl,
                            &format!("Engine{n}.Weight"),
                            Problem::BadWeight {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let scale = match self.get(Key::EngineScale(n)) {
                None => None,
                Some((sl, v)) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && x > 0.0 => Some(x),
                    _ => {
                        return Err(self.err(
                            sl,
                            &format!("Engine{n}.Scale"),
                            Problem::BadScale {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let black_view_scores = match self.get(Key::EngineScoreView(n)) {
                None => false,
                Some((_, v)) if v.eq_ignore_ascii_case("side") => false,
                Some((_, v)) if v.eq_ignore_ascii_case("black") => true,
                Some((vl, v)) => {
                    return Err(self.err(
                        vl,
                        &format!("Engine{n}.ScoreView"),
                        Problem::BadScoreView {
                            value: v.to_owned(),
                        },
                    ))
                }
            };
            let ponder = match self.get(Key::EnginePonder(n)) {
                None => true,
                Some((_, v)) if v.eq_ignore_ascii_case("true") => true,
                Some((_, v)) if v.eq_ignore_ascii_case("false") => false,
                Some((pl, v)) => {
                    return Err(self.err(
                        pl,
                        &format!("Engine{n}.Ponder"),
                        Problem::BadPonder {
                            value: v.to_owned(),
                        },
                    ))
                }
            };
            let nodes = match self.get(Key::EngineNodes(n)) {
                None => NodesRule::Gui,
                Some((_, v)) if v.eq_ignore_ascii_case("off") => NodesRule::Off,
                Some((nl, v)) => match v.parse::<u64>() {
                    Ok(count) if count >= 1 => NodesRule::Fixed(count),
                    _ => {
                        return Err(self.err(
                            nl,
                            &format!("Engine{n}.Nodes"),
                            Problem::BadNodes {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let mut patterns = [None, None];
            for (k, (key, field)) in [
                (Key::EngineShowOptions(n), "ShowOptions"),
                (Key::EngineHideOptions(n), "HideOptions"),
            ]
            .into_iter()
            .enumerate()
            {
                if let Some((pl, v)) = self.get(key) {
                    if let Err(e) = regex::Regex::new(v) {
                        return Err(self.err(
                            pl,
                            &format!("Engine{n}.{field}"),
                            Problem::BadPattern {
                                message: e
                                    .to_string()
                                    .lines()
                                    .last()
                                    .unwrap_or("")
                                    .trim()
                                    .to_owned(),
                            },
                        ));
                    }
                    patterns[k] = Some(v.to_owned());
                }
            }
            let [show, hide] = patterns;
            let mut options: Vec<MemberOption> = self
                .values
                .iter()
                .filter_map(|(k, (line, value))| match *k {
                    Key::EngineOption(m, idx) if m == n => Some(MemberOption {
                        name: self.option_names[idx].clone(),
                        value: value.clone(),
                        file: self.file.clone(),
                        line: *line,
                    }),
                    _ => None,
                })
                .collect();
            options.sort_by_key(|o| o.line);
            engines.push(EngineEntry {
                options,
                number: n,
                option_filter: OptionFilter { show, hide },
                command,
                name,
                weight,
                scale,
                black_view_scores,
                ponder,
                nodes,
                line,
            });
        }

        let policy = match self.get(Key::GougiType) {
            None => return Err(self.err(0, "Gougi.Type", Problem::NoType)),
            Some((line, v)) => v.parse::<PolicyKind>().map_err(|_| {
                self.err(
                    line,
                    "Gougi.Type",
                    Problem::UnknownType {
                        value: v.to_owned(),
                    },
                )
            })?,
        };
        let type_line = self.get(Key::GougiType).map_or(0, |(l, _)| l);

        if engines.is_empty() {
            return Err(self.err(0, "Engine1.Path", Problem::NoEngines));
        }
        let (min, max) = policy.engine_count();
        if engines.len() < min || max.is_some_and(|m| engines.len() > m) {
            let expected = match max {
                Some(m) if m == min => format!("exactly {m}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            return Err(self.err(
                type_line,
                "Gougi.Type",
                Problem::EngineCount {
                    policy,
                    expected,
                    found: engines.len(),
                },
            ));
        }

        let mate_engine = match self.get(Key::MatePath) {
            None => None,
            Some((line, text)) => {
                let text = text.to_owned();
                Some(self.command(line, "MateEngine.Path", &text)?)
            }
        };
        if policy.needs_mate_engine() && mate_engine.is_none() {
            return Err(self.err(
                type_line,
                "MateEngine.Path",
                Problem::NoMateEngine { policy },
            ));
        }
        // gougi's own: `MateEngine.Guard=true` runs the mate engine beside any type, and its
        // verified mate overrides the type's decision (the mate types always do this).
        let mate_guard = match self.get(Key::MateGuard) {
            None => false,
            Some((_, v)) if v.eq_ignore_ascii_case("true") => true,
            Some((_, v)) if v.eq_ignore_ascii_case("false") => false,
            Some((line, v)) => {
                return Err(self.err(
                    line,
                    "MateEngine.Guard",
                    Problem::BadPonder {
                        value: v.to_owned(),
                    },
                ))
            }
        };
        let mate_guard = mate_guard && !policy.needs_mate_engine();
        if !policy.needs_mate_engine() && !mate_guard {
            if let Some((line, _)) = self.get(Key::MatePath) {
                self.warn(line, "MateEngine.Path", format!("ignored by type {policy}"));
            }
        }
        if mate_guard && mate_engine.is_none() {
            if let Some((line, _)) = self.get(Key::MateGuard) {
                self.warn(
                    line,
                    "MateEngine.Guard",
                    "no MateEngine.Path: nothing to run".into(),
                );
            }
        }

        let pv_mate_count = match self.get(Key::MatePvCount) {
            None => DEFAULT_PV_MATE_COUNT,
            Some((line, v)) => {
                let n = v.parse::<u32>().map_err(|_| {
                    self.err(
                        line,
                        "MateEngine.forPV.Count",
                        Problem::BadNumber {
                            value: v.to_owned(),
                        },
                    )
                })?;
                if n > MAX_PV_MATE_COUNT {
                    return Err(self.err(
                        line,
                        "MateEngine.forPV.Count",
                        Problem::TooManyPvMates { value: n },
                    ));
                }
                if policy != PolicyKind::MatePv {
                    self.warn(
                        line,
                        "MateEngine.forPV.Count",
                        format!("ignored by type {policy} (used by mate-pv only)"),
                    );
                }
                n
            }
        };

        let name = self.get(Key::GougiName).map(|(_, v)| v.to_owned());
        let log_file = self.get(Key::LogFile).map(|(_, v)| self.dir.join(v));
        let log_file_line = self.get(Key::LogFile).map_or(0, |(l, _)| l);
        let log_level = match self.get(Key::LogLevel) {
            None => None,
            Some((line, v)) => Some(v.parse::<tracing::Level>().map_err(|_| {
                self.err(
                    line,
                    "Log.Level",
                    Problem::BadLevel {
                        value: v.to_owned(),
                    },
                )
            })?),
        };

        Ok(Config {
            path: self.file,
            policy,
            engines,
            mate_engine,
            pv_mate_count,
            mate_guard,
            name,
            log_file,
            log_file_line,
            log_level,
            warnings: self.warnings,
        })
    }

    /// Resolves one `*.Path` value into a command.
    fn command(&self, line: usize, key: &str, text: &str) -> Result<EngineCommand, ConfigError> {
        resolve_command(text, &self.dir).map_err(|p| self.err(line, key, p))
    }
}

/// Resolves an engine command line (`builtin:search`, `ssh -T host /path/engine`, a program
/// relative to `dir` or on `PATH`) the way `*.Path` config values are; `gougi match` uses it
/// for its `cmd=` values too.
pub fn resolve_command(text: &str, dir: &Path) -> Result<EngineCommand, Problem> {
    if let Some(rest) = text.strip_prefix("builtin:") {
        let words = split_words(rest).ok_or_else(|| Problem::UnbalancedQuote {
            value: text.to_owned(),
        })?;
        let (which, args) = words.split_first().ok_or_else(|| Problem::UnknownBuiltin {
            value: text.to_owned(),
        })?;
        let builtin = match which.as_str() {
            "search" => Builtin::Search,
            "mate" => Builtin::Mate,
            _ => {
                return Err(Problem::UnknownBuiltin {
                    value: text.to_owned(),
                })
            }
        };
        let exe = std::env::current_exe().map_err(|e| Problem::NoCurrentExe {
            message: e.to_string(),
        })?;
        let mut all_args = vec![builtin.subcommand().to_owned()];
        all_args.extend(args.iter().cloned());
        return Ok(EngineCommand {
            program: exe,
            args: all_args,
            working_dir: None,
            builtin: Some(builtin),
            text: text.to_owned(),
        });
    }

    // Compatibility: the original ran the whole value as one program path.
    let unquoted = !text.contains(['"', '\'']);
    if unquoted && text.contains(char::is_whitespace) {
        let whole = dir.join(text);
        if whole.is_file() {
            check_executable(&whole)?;
            return Ok(EngineCommand {
                working_dir: whole.parent().map(Path::to_owned),
                program: whole,
                args: Vec::new(),
                builtin: None,
                text: text.to_owned(),
            });
        }
    }

    let words = split_words(text).ok_or_else(|| Problem::UnbalancedQuote {
        value: text.to_owned(),
    })?;
    let Some((program, args)) = words.split_first() else {
        return Err(Problem::Empty);
    };
    let has_folder = program.contains('/') || program.contains('\\') || {
        let p = Path::new(program);
        p.is_absolute()
    };
    let (program_path, working_dir) = if has_folder {
        // `components()` drops `.` segments, so messages show `dir/x`, not `dir/./x`.
        let p: PathBuf = dir.join(program).components().collect();
        if !p.is_file() {
            return Err(Problem::NoSuchFile { path: p });
        }
        check_executable(&p)?;
        let wd = p.parent().map(Path::to_owned);
        (p, wd)
    } else {
        let local = dir.join(program);
        if local.is_file() {
            check_executable(&local)?;
            let wd = local.parent().map(Path::to_owned);
            (local, wd)
        } else if find_on_path(program).is_some() {
            (PathBuf::from(program), None)
        } else {
            return Err(Problem::NotOnPath {
                program: program.clone(),
            });
        }
    };
    Ok(EngineCommand {
        program: program_path,
        args: args.to_vec(),
        working_dir,
        builtin: None,
        text: text.to_owned(),
    })
}

/// On Unix, a file with no execute bit cannot be spawned: say so now rather than at `usi`.
fn check_executable(path: &Path) -> Result<(), Problem> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map(|m| m.permissions().mode());
        if let Ok(mode) = mode {
            if mode & 0o111 == 0 {
                return Err(Problem::NotExecutable {
                    path: path.to_owned(),
                });
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The first `PATH` entry holding `program` (with `PATHEXT` suffixes on Windows).
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let exts: Vec<String> = if cfg!(windows) {
        std::env::var("PATHEXT")
            .unwrap_or_else(|_| ".EXE;.BAT;.CMD".into())
            .split(';')
            .map(str::to_owned)
            .chain(std::iter::once(String::new()))
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(&path).find_map(|dir| {
        exts.iter()
            .map(|ext| dir.join(format!("{program}{ext}")))
            .find(|p| p.is_file())
    })
}

/// Splits a command line into words: whitespace separates, `"…"` and `'…'` group (quotes may
/// start mid-word, `a"b c"d` is one word `ab cd`), no escapes. `None` on an unclosed quote.
pub fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_words_quotes() {
        assert_eq!(
            split_words(r#"ssh -T host "/opt/my engine/x" 'a b'"#).unwrap(),
            vec!["ssh", "-T", "host", "/opt/my engine/x", "a b"]
        );
        assert_eq!(split_words(r#"a"b c"d"#).unwrap(), vec!["ab cd"]);
        assert_eq!(split_words(r#""""#).unwrap(), vec![""]);
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert!(split_words(r#"x "y"#).is_none());
        assert_eq!(
            split_words(r"C:\Program\x.exe").unwrap(),
            vec![r"C:\Program\x.exe"]
        );
    }

    #[test]
    fn looks_like_key_shapes() {
        assert!(looks_like_key("Engin1.Path"));
        assert!(looks_like_key("Gougi.type"));
        assert!(!looks_like_key("合議タイプ"));
        assert!(!looks_like_key("a b.c"));
        assert!(!looks_like_key("Path"));
    }

    #[test]
    fn hints() {
        assert_eq!(Key::hint("gougi.type").as_deref(), Some("Gougi.Type"));
        assert_eq!(Key::hint("Engin1.Path").as_deref(), Some("Engine1.Path"));
        assert_eq!(Key::hint("engine2.name").as_deref(), Some("Engine2.Name"));
        assert_eq!(Key::hint("Foo.Bar"), None);
    }
}
