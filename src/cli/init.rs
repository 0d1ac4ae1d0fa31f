//! `gougi init`: the shipped config written out to edit.

/// `gougi init`: the built-in config, written out to edit; never over a file without --force.
pub fn run(path: Option<std::path::PathBuf>, force: bool) -> anyhow::Result<()> {
    let path = path.unwrap_or_else(|| crate::config::CONFIG_NAMES[0].into());
    if let Err(e) = crate::config::write_built_in(&path, force) {
        // A plain sentence and status 1, not anyhow's report (with a backtrace under
        // RUST_BACKTRACE): this is a user's everyday mistake.
        eprintln!("gougi init: {e}");
        std::process::exit(1);
    }
    println!(
        "wrote {}: edit it, then start gougi from this folder (or with --config {})",
        path.display(),
        path.display()
    );
    Ok(())
}
