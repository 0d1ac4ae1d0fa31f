//! What `gougi match --out DIR` writes: each game's records as it ends ([`write_records`]:
//! `games/NNNN-black-vs-white.{kif,kifu,csa}`) and the run's summary files at the end
//! ([`write_summary`]). Every file goes through a temporary file and a rename
//! ([`write_file`]), and a game's CSA record, the one a resume reads (`resume.rs`), is written
//! last: a run killed at any moment leaves whole records only, and a game counts as done only
//! once all its files are there.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::game::GameRecord;
use super::jobs::{self, Job};
use super::opening::Opening;
use super::record;
use super::report::{self, Summary};

/// Writes `games/NNNN-black-vs-white.{kif,kifu,csa}` — the KIF in CP932 as the format
/// expects, the KIFU in UTF-8, the CSA ending with the game's summary line (what a resume
/// reads); returns the KIF path relative to `out`.
pub(super) fn write_records(
    out: &Path,
    job: &Job,
    record: &GameRecord,
    names: &[String],
    openings: &[Opening],
    pairs: &[(usize, usize)],
) -> anyhow::Result<String> {
    let stem = format!(
        "games/{:04}-{}-vs-{}",
        job.index,
        file_safe(&record.names[0]),
        file_safe(&record.names[1])
    );
    let kif_path = format!("{stem}.kif");
    let kif = record::kif(record);
    write_file(&out.join(&kif_path), &record::cp932(&kif))?;
    write_file(&out.join(format!("{stem}.kifu")), kif.as_bytes())?;
    let summary = jobs::summary(job, record, names, openings, pairs, Some(kif_path.clone()));
    let mut csa = record::csa(record);
    csa.push_str(&summary.csa_line());
    csa.push('\n');
    write_file(&out.join(format!("{stem}.csa")), csa.as_bytes())?;
    Ok(kif_path)
}

/// Writes the run's summary into `out`: `summary.json` (`summary`), `summary.txt` (`text`,
/// as printed), `games.csv`, `elo.svg` and `games.sfen` (one game's `position` line each).
pub(super) fn write_summary(out: &Path, summary: &Summary, text: &str) -> anyhow::Result<()> {
    write_file(&out.join("summary.json"), report::json(summary).as_bytes())?;
    write_file(&out.join("summary.txt"), text.as_bytes())?;
    write_file(
        &out.join("games.csv"),
        report::csv(summary.games).as_bytes(),
    )?;
    write_file(
        &out.join("elo.svg"),
        report::svg(summary.names, summary.pairs).as_bytes(),
    )?;
    let mut sfen = String::new();
    for g in summary.games {
        sfen.push_str(&g.usi);
        sfen.push('\n');
    }
    write_file(&out.join("games.sfen"), sfen.as_bytes())
}

/// File names keep letters, digits, `-`, `_` and `.`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes through a temporary file and a rename: a run killed mid-write leaves no half record.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
}
