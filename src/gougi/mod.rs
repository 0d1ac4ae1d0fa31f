//! Consultation (合議): the coordinator, its rounds and the policies that merge members' answers.

pub mod annotate;
pub mod answer;
pub mod bench;
pub mod calibrate;
pub mod coordinator;
pub mod deadline;
pub mod game;
pub mod options;
pub mod policy;
pub mod resign;
pub mod verify;

use std::path::Path;

use crate::config;

/// `gougi` / `gougi proxy`: load the config, start the members and serve the GUI on
/// stdin/stdout until `quit` or end of input.
///
/// A broken config is reported to the GUI as `info string [Error] <file>:<line>: <key>: …`
/// and gougi exits without `usiok` (after a short pause so the GUI reads the line), as the
/// reference did; a `Log.File` that cannot be opened is such an error. Config warnings (free
/// text ignored, a repeated key, a key the type ignores) are printed as
/// `info string [Warning] <file>:<line>: …` before anything else, so nothing in the file is
/// dropped without a word.
pub fn run_proxy(explicit: Option<&Path>) -> anyhow::Result<()> {
    let config = config::load_config(explicit).unwrap_or_else(|e| config_failure(&e));
    let log_file = config
        .open_log_file()
        .unwrap_or_else(|e| config_failure(&e));
    init_logging(&config, log_file);
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        for w in &config.warnings {
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

/// Reports a config error the reference's way — `info string [Error] …` to the GUI, the same
/// on stderr — and exits with status 1 after a pause long enough for the GUI to read it.
fn config_failure(e: &config::ConfigError) -> ! {
    println!("info string [Error] {e}");
    eprintln!("gougi: {e}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::process::exit(1);
}

/// Logs go to the config's `Log.File` (already opened) or to stderr — never to stdout, the USI
/// channel.
fn init_logging(config: &config::Config, log_file: Option<std::fs::File>) {
    let level = config.log_level.unwrap_or(tracing::Level::WARN);
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false);
    let result = match log_file {
        Some(file) => builder.with_writer(std::sync::Mutex::new(file)).try_init(),
        None => builder.with_writer(std::io::stderr).try_init(),
    };
    // A second initialisation (tests calling twice) is harmless.
    let _ = result;
}
