//! `SimpleGougi.config` → typed, validated settings ([`Config`]). Nothing else reads the file.
//!
//! - `settings`: the typed settings ([`Config`], [`EngineEntry`], [`NodesRule`], …) and
//!   the table of keys.
//! - `layers`: the settings as layers through the `config` crate — gougi's defaults
//!   ([`DEFAULTS_TEXT`]) → the file (read by our own `config::Format`) → `GOUGI_…` environment
//!   variables ([`env_key`]: `GOUGI_ENGINE1_PATH` overrides `Engine1.Path`) — typed by `serde`.
//! - `reader`: the reference's `Key=value` line format (decoding, keys, comments, free text,
//!   repeats).
//! - `validate`: the checks across keys and the typed values built from them.
//! - `error`: [`ConfigError`], [`Problem`] and [`ConfigWarning`].
//! - `kind`: the consultation types' names, member counts and `G_` options ([`PolicyKind`],
//!   [`KINDS`]); their behaviour is `gougi::policy`'s, which uses these (never the reverse).
//! - Command lines (`*.Path` values) are resolved by [`crate::member::command`]; its
//!   [`CommandError`] becomes a [`Problem`] naming the value's file, line and key. The member's
//!   own switches ([`NodesRule`], [`OptionFilter`], [`MemberOption`]) are `member`'s types,
//!   re-exported here, and [`Config::member_specs`] builds the `MemberSpec`s from the settings.
//!
//! # Finding the file ([`locate`])
//! An explicit choice always wins: `--config PATH`, else the environment variable
//! `GOUGI_CONFIG`; a missing explicit file is an error (never a silent fallback). Otherwise the
//! first existing file among [`CONFIG_NAMES`] (`SimpleGougi.config`, then the original names
//! `GougiShogi.config` and `SimpleGougiShogi.config`) next to the executable, then in the working
//! directory. When none is found and none was named, the proxy plays with the shipped file
//! compiled in ([`BUILT_IN_TEXT`], built-in members only) and says so; `gougi init` writes
//! that text out to edit.

mod error;
mod kind;
mod layers;
mod reader;
mod settings;
mod validate;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use crate::member::command::{Builtin, CommandError, EngineCommand};
pub use error::{ConfigError, ConfigWarning, Problem};
pub use kind::{
    KindInfo, PolicyKind, UnknownPolicy, DEFAULT_PV_MATE_COUNT, KINDS, MAX_PV_MATE_COUNT,
};
pub use layers::{env_key, DEFAULTS_TEXT, ENV_PREFIX};
pub use reader::{decode, key_forms};
pub use settings::{Config, EngineEntry, MemberOption, NodesRule, OptionFilter};

/// File names looked up, in order, in each default folder.
pub const CONFIG_NAMES: [&str; 3] = [
    "SimpleGougi.config",
    "GougiShogi.config",
    "SimpleGougiShogi.config",
];

/// The environment variable naming the config file.
pub const CONFIG_ENV: &str = "GOUGI_CONFIG";

impl Config {
    /// Reads, decodes, parses and validates `path`, under the process's `GOUGI_…` variables.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_with_env(path, env_vars())
    }

    /// [`Config::load`] with `env` (`(name, value)` pairs) for the environment layer.
    pub fn load_with_env(path: &Path, env: Vec<(String, String)>) -> Result<Config, ConfigError> {
        let bytes = std::fs::read(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = decode(&bytes);
        let config = Config::parse_with_env(&text, path, env)?;
        for w in &config.warnings {
            tracing::warn!("{w}");
        }
        Ok(config)
    }

    /// Parses and validates config text over gougi's defaults, without the environment; `path`
    /// names the file in messages and anchors relative paths (its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Config::parse_with_env(text, path, Vec::new())
    }

    /// All three layers: gougi's defaults, config text (`path` as in [`Config::parse`]) and
    /// `env`, `(name, value)` pairs read as `GOUGI_…` overrides ([`env_key`]). [`Config::load`]
    /// and [`Config::built_in`] pass the process's environment.
    pub fn parse_with_env(
        text: &str,
        path: &Path,
        env: Vec<(String, String)>,
    ) -> Result<Config, ConfigError> {
        let (settings, warnings) = layers::merge(text, path, env)?;
        validate::Validator::new(path, warnings).build(settings)
    }

    /// The built-in config ([`BUILT_IN_TEXT`]), named [`BUILT_IN_NAME`] in messages. Its
    /// members are `builtin:` ones, so no folder is involved; an error here means the shipped
    /// file or this executable's path is broken, and is reported like any config error.
    pub fn built_in() -> Result<Config, ConfigError> {
        Config::parse_with_env(BUILT_IN_TEXT, Path::new(BUILT_IN_NAME), env_vars())
    }
}

/// The process's environment as text. Variables whose name is not Unicode are no settings of
/// ours; a value that is not is taken lossily (a path then fails to resolve, naming it).
fn env_vars() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            Some((name, value.to_string_lossy().into_owned()))
        })
        .collect()
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
pub const BUILT_IN_TEXT: &str = include_str!("../../SimpleGougi.config");

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
