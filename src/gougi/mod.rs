//! Consultation (合議): the coordinator, its rounds and the policies that merge members' answers.

pub mod annotate;
pub mod answer;
pub mod bench;
pub mod calibrate;
pub mod coordinator;
pub mod deadline;
pub mod game;
pub mod gui_lag;
pub mod lag;
pub mod log_sink;
pub mod options;
pub mod policy;
pub mod ranges;
// Test scaffolding (Cargo.toml's `testkit`): not in the default library's API.
#[cfg(any(test, feature = "testkit"))]
pub mod request_model;
pub mod resign;
pub mod verify;

use std::path::Path;

use crate::config;

/// The environment variable that sets the log level (`error` … `trace`), over `Log.Level`.
pub const LOG_LEVEL_ENV: &str = "GOUGI_LOG";
/// The environment variable naming a log file (appended to), over `Log.File`.
pub const LOG_FILE_ENV: &str = "GOUGI_LOG_FILE";

/// `gougi` / `gougi proxy`: load the config, start the members and serve the GUI on
/// stdin/stdout until `quit` or end of input.
///
/// With no config file found (and none named by `--config` or `GOUGI_CONFIG`) gougi plays with
/// the built-in one ([`config::BUILT_IN_TEXT`]) and says so in one `info string`, so that the
/// executable registered alone in a GUI works. A broken config is reported to the GUI as
/// `info string [Error] <file>:<line>: <key>: …` and gougi exits without `usiok` (after a short
/// pause so the GUI reads the line), as the reference did; a `Log.File` that cannot be opened is
/// such an error. Config warnings (free text ignored, a repeated key, a key the type ignores)
/// are printed as `info string [Warning] <file>:<line>: …` before anything else, so nothing in
/// the file is dropped without a word. `GOUGI_LOG` / `GOUGI_LOG_FILE` override `Log.Level` /
/// `Log.File` without editing the file ([`log_settings`]).
pub fn run_proxy(explicit: Option<&Path>) -> anyhow::Result<()> {
    let (config, built_in) =
        config::load_config_or_built_in(explicit).unwrap_or_else(|e| config_failure(&e));
    let env_level = std::env::var(LOG_LEVEL_ENV).ok();
    let env_file = std::env::var_os(LOG_FILE_ENV);
    let log = log_settings(&config, env_level.as_deref(), env_file.as_deref());
    let log_file = match &log.file {
        LogFile::Config => config
            .open_log_file()
            .unwrap_or_else(|e| config_failure(&e)),
        LogFile::Env(path) => Some(open_env_log_file(path)),
    };
    init_logging(log.level, log_file);
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        if built_in {
            // One line: the GUI shows it, and a user reading it knows what to do next.
            let line = format!(
                "no {} found; using the built-in default ({}); gougi init writes one to edit",
                config::CONFIG_NAMES[0],
                built_in_members(&config)
            );
            tracing::info!("{line}");
            let _ = writeln!(out, "info string {line}");
        }
        for w in config
            .warnings
            .iter()
            .map(ToString::to_string)
            .chain(log.warning)
        {
            tracing::warn!("{w}");
            // stdout is not the coordinator's yet; a GUI shows `info string` lines or skips them.
            let _ = writeln!(out, "info string [Warning] {w}");
        }
        let _ = out.flush();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let out = std::io::stdout();
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        coordinator::Coordinator::start(config, out)
            .run(input)
            .await
    });
    // Tokio's stdin reader sits on a blocking thread that a runtime shutdown would wait for.
    runtime.shutdown_background();
    // The runtime's `kill_on_drop` ended the members themselves; this ends what they started
    // (a wrapper's children), and any member that outlived its task.
    crate::member::process::kill_all_groups();
    result
}

/// `3 × builtin:search + builtin:mate`: the members of the built-in config, as its file writes
/// them (a run of equal commands counted, so the start-up line stays one short line).
fn built_in_members(config: &config::Config) -> String {
    let mut texts: Vec<&str> = config
        .engines
        .iter()
        .map(|e| e.command.text.as_str())
        .collect();
    if config.runs_mate_engine() {
        texts.extend(config.mate_engine.iter().map(|m| m.text.as_str()));
    }
    let mut runs: Vec<(usize, &str)> = Vec::new();
    for t in texts {
        match runs.last_mut() {
            Some((n, last)) if *last == t => *n += 1,
            _ => runs.push((1, t)),
        }
    }
    runs.iter()
        .map(|&(n, t)| {
            if n == 1 {
                t.to_string()
            } else {
                format!("{n} × {t}")
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Where the log goes, after the environment had its say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogFile {
    /// The config's `Log.File` (stderr without one).
    Config,
    /// `GOUGI_LOG_FILE`, relative to the working directory like any path typed in a shell.
    Env(std::path::PathBuf),
}

/// The log level and destination: the config's, overridden by `GOUGI_LOG` (a level name,
/// any case) and `GOUGI_LOG_FILE` (a path) when they are set and not empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSettings {
    pub level: tracing::Level,
    pub file: LogFile,
    /// A `GOUGI_LOG` value that is not a level: said once, then the config's level is kept.
    pub warning: Option<String>,
}

/// Without `Log.Level` or `GOUGI_LOG`: warnings and errors only.
pub const DEFAULT_LOG_LEVEL: tracing::Level = tracing::Level::WARN;

/// Combines the config's log settings with the environment's (`env_level` = `GOUGI_LOG`,
/// `env_file` = `GOUGI_LOG_FILE`). The environment wins, so logging can be turned on for one
/// run — from a `.bat` wrapper or a shell — without touching the file a GUI uses.
pub fn log_settings(
    config: &config::Config,
    env_level: Option<&str>,
    env_file: Option<&std::ffi::OsStr>,
) -> LogSettings {
    let config_level = config.log_level.unwrap_or(DEFAULT_LOG_LEVEL);
    let (level, warning) = env_log_level(env_level, config_level);
    let file = match env_file.filter(|f| !f.is_empty()) {
        Some(f) => LogFile::Env(std::path::PathBuf::from(f)),
        None => LogFile::Config,
    };
    LogSettings {
        level,
        file,
        warning,
    }
}

/// The level `GOUGI_LOG` (`env_level`) asks for, else `fallback`; with the warning to give when
/// the variable is set but is not a level.
fn env_log_level(
    env_level: Option<&str>,
    fallback: tracing::Level,
) -> (tracing::Level, Option<String>) {
    match env_level.map(str::trim).filter(|v| !v.is_empty()) {
        None => (fallback, None),
        Some(v) => match parse_level(v) {
            Some(level) => (level, None),
            None => (
                fallback,
                Some(format!(
                    "{LOG_LEVEL_ENV}={v}: not a level (error, warn, info, debug, trace); \
                     using {}",
                    fallback.as_str().to_ascii_lowercase()
                )),
            ),
        },
    }
}

/// A level name, any case (`tracing`'s own parser also takes digits, which nobody types).
fn parse_level(v: &str) -> Option<tracing::Level> {
    match v.to_ascii_lowercase().as_str() {
        "error" => Some(tracing::Level::ERROR),
        "warn" | "warning" => Some(tracing::Level::WARN),
        "info" => Some(tracing::Level::INFO),
        "debug" => Some(tracing::Level::DEBUG),
        "trace" => Some(tracing::Level::TRACE),
        _ => None,
    }
}

/// Opens `GOUGI_LOG_FILE` for appending; a failure ends gougi like a `Log.File` that cannot be
/// opened (the user asked for a log and would otherwise look for it in vain).
fn open_env_log_file(path: &Path) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| {
            let message = format!("{LOG_FILE_ENV}: cannot open {}: {e}", path.display());
            println!("info string [Error] {message}");
            eprintln!("gougi: {message}");
            std::thread::sleep(std::time::Duration::from_millis(500));
            std::process::exit(1);
        })
}

/// Reports a config error the reference's way — `info string [Error] …` to the GUI, the same
/// on stderr — and exits with status 1 after a pause long enough for the GUI to read it.
fn config_failure(e: &config::ConfigError) -> ! {
    println!("info string [Error] {e}");
    eprintln!("gougi: {e}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::process::exit(1);
}

/// Logging for the engines run alone (`gougi search`, `gougi mate`): no config file, so only
/// `GOUGI_LOG` / `GOUGI_LOG_FILE` decide (warnings to stderr without them), as in the proxy.
/// A `GOUGI_LOG` that is not a level is said on stderr, not on stdout: the GUI did not ask.
pub fn init_standalone_logging() {
    let env_level = std::env::var(LOG_LEVEL_ENV).ok();
    let env_file = std::env::var_os(LOG_FILE_ENV);
    let (level, warning) = env_log_level(env_level.as_deref(), DEFAULT_LOG_LEVEL);
    if let Some(w) = warning {
        eprintln!("gougi: {w}");
    }
    let file = env_file
        .filter(|f| !f.is_empty())
        .map(|f| open_env_log_file(Path::new(&f)));
    init_logging(level, file);
}

/// Logs go to the chosen file (already opened) or to stderr — never to stdout, the USI
/// channel — through a [`log_sink::LogSink`], so that a stderr nobody reads never blocks
/// gougi (lines to it are dropped with a count when its queue is full; a file keeps them all).
fn init_logging(level: tracing::Level, log_file: Option<std::fs::File>) {
    use log_sink::{LogSink, WhenFull};
    let sink = match log_file {
        Some(file) => LogSink::start(Box::new(file), WhenFull::Wait),
        None => LogSink::start(Box::new(std::io::stderr()), WhenFull::Drop),
    };
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false);
    // Without a thread for the sink (the system refused one) nothing is logged: a log line
    // written in place could block on a full pipe, and the game matters more than the log.
    let result = match sink {
        Some(sink) => {
            sink.install();
            builder.with_writer(move || sink.clone()).try_init()
        }
        None => builder.with_writer(std::io::sink).try_init(),
    };
    // A second initialisation (tests calling twice) is harmless.
    let _ = result;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn config(text: &str) -> config::Config {
        config::Config::parse(text, Path::new("/tmp/SimpleGougi.config")).unwrap()
    }

    #[test]
    fn the_environment_overrides_the_config_log_settings() {
        let c = config(
            "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nLog.Level=error\n\
             Log.File=gougi.log\n",
        );
        let plain = log_settings(&c, None, None);
        assert_eq!(
            (plain.level, plain.file, plain.warning),
            (tracing::Level::ERROR, LogFile::Config, None)
        );
        let env = log_settings(&c, Some("Debug"), Some(OsStr::new("x/trace.log")));
        assert_eq!(env.level, tracing::Level::DEBUG);
        assert_eq!(env.file, LogFile::Env("x/trace.log".into()));
        // Empty values are unset (`set GOUGI_LOG=` in a .bat).
        let empty = log_settings(&c, Some(" "), Some(OsStr::new("")));
        assert_eq!(
            (empty.level, empty.file),
            (tracing::Level::ERROR, LogFile::Config)
        );
        let bad = log_settings(&c, Some("loud"), None);
        assert_eq!(bad.level, tracing::Level::ERROR);
        assert_eq!(
            bad.warning.as_deref(),
            Some("GOUGI_LOG=loud: not a level (error, warn, info, debug, trace); using error")
        );
    }

    #[test]
    fn without_settings_the_level_is_warn() {
        let c = config("Gougi.Type=optimistic\nEngine1.Path=builtin:search\n");
        assert_eq!(log_settings(&c, None, None).level, tracing::Level::WARN);
    }

    #[test]
    fn built_in_members_as_written() {
        let c = config::Config::built_in().unwrap();
        assert_eq!(built_in_members(&c), "3 × builtin:search + builtin:mate");
    }
}
