//! Every way the config can be wrong ([`ConfigError`], whose `Display` names the file, the line
//! and the key: `SimpleGougi.config:3: Engine2.Path: no such file: /x/y`, or the environment
//! variable a value came from), the problem with one key ([`Problem`]) and the non-fatal
//! remarks ([`ConfigWarning`]).

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use super::{CommandError, PolicyKind, MAX_PV_MATE_COUNT};

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
    /// A problem with a `GOUGI_…` variable (`layers::env_key`); `key` is the key it sets, empty
    /// when it names none.
    #[error("environment variable {var}: {}{problem}", key_part(.key))]
    Env {
        var: String,
        key: String,
        problem: Problem,
    },
    /// The `config` crate could not merge or type the layers: a bug in gougi, since the layers
    /// build the tree the types expect.
    #[error("settings: {message}")]
    Layers { message: String },
}

impl ConfigError {
    /// The problem, for the `Invalid` and `Env` variants.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            ConfigError::Invalid { problem, .. } | ConfigError::Env { problem, .. } => {
                Some(problem)
            }
            _ => None,
        }
    }
}

fn key_part(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("{key}: ")
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
    #[error("must be a CPU count of 1 or more, got {value:?}")]
    BadMinCores { value: String },
    #[error("not a regular expression: {message}")]
    BadPattern { message: String },
    #[error("no \"=\": a setting is Key=value (start a comment with #)")]
    NoEquals,
    #[error("cannot open {}: {message}", .path.display())]
    CannotOpenLog { path: PathBuf, message: String },
    #[error("unknown level {value:?} (error, warn, info, debug, trace)")]
    BadLevel { value: String },
    /// A `*.Path` command line that cannot be run (`member::command` says why).
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(
        "names no setting{}; a setting's variable is GOUGI_ and its key in capitals with _ for . \
         (GOUGI_ENGINE1_PATH, GOUGI_MATEENGINE_FORPV_COUNT)",
        hint_part(.hint)
    )]
    UnknownVariable { hint: Option<String> },
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
    /// `file:line: key: message`, or `file:line: message` for a line with no key (free text);
    /// without `:line` when the line is 0 (a value from an environment variable, whose name
    /// then stands in `file`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}: ", self.file.display(), line_part(self.line))?;
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}
