//! Resuming a run: the records in `--out DIR` are the state. Each CSA record ends with its
//! game's summary line (`'gougi-game {…}`, written last: see `out.rs`), so [`scan`] reads
//! which games of this match are done, and [`remaining`] keeps the jobs the records lack.
//! A record of other engines or openings, or of an older gougi without the line, is counted
//! as ignored and its number is never reused.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::jobs::Job;
use super::opening::Opening;
use super::report::GameSummary;

/// What an output folder's records say about a match.
#[derive(Default)]
pub(super) struct Found {
    /// Record files seen (`games/*.csa`).
    pub(super) files: usize,
    /// Finished games of this match, in index order, with their pairing.
    pub(super) games: Vec<(usize, GameSummary)>,
    /// Done games per (pairing, opening, black engine).
    done: HashMap<(usize, usize, usize), usize>,
    /// Record numbers in use (any file), never given to a new game.
    used: BTreeSet<usize>,
    /// Records without a game line (older runs) or of other engines / openings.
    ignored: usize,
}

impl Found {
    /// The line that tells the user what the records hold and what is left to play.
    pub(super) fn describe(
        &self,
        out: &Path,
        names: &[String],
        pairs: &[(usize, usize)],
        left: usize,
    ) -> String {
        let mut per_pair: BTreeMap<usize, usize> = BTreeMap::new();
        for (p, _) in &self.games {
            *per_pair.entry(*p).or_insert(0) += 1;
        }
        let list: Vec<String> = per_pair
            .iter()
            .map(|(&p, n)| format!("{} vs {} {n}", names[pairs[p].0], names[pairs[p].1]))
            .collect();
        let mut s = format!(
            "resuming {}: {} finished game(s) found in the records{}; {left} game(s) to play",
            out.display(),
            self.games.len(),
            if list.is_empty() {
                String::new()
            } else {
                format!(" ({})", list.join(", "))
            }
        );
        if self.ignored > 0 {
            s.push_str(&format!(
                "; {} record(s) ignored (not of these engines and openings, or without a gougi-game line)",
                self.ignored
            ));
        }
        s
    }
}

/// Reads `out/games/*.csa` (if any): which games of this match are already done.
pub(super) fn scan(
    out: &Path,
    names: &[String],
    openings: &[Opening],
    pairs: &[(usize, usize)],
) -> anyhow::Result<Found> {
    let mut found = Found::default();
    let dir = out.join("games");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(found);
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for path in files {
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(n) = file_name
            .split('-')
            .next()
            .and_then(|d| d.parse::<usize>().ok())
        {
            found.used.insert(n);
        }
        if path.extension().is_none_or(|x| x != "csa") {
            continue;
        }
        found.files += 1;
        let text =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let game = GameSummary::from_csa(&String::from_utf8_lossy(&text));
        let key = game.as_ref().and_then(|g| {
            let black = names.iter().position(|n| *n == g.black)?;
            let white = names.iter().position(|n| *n == g.white)?;
            let pair = pairs
                .iter()
                .position(|&(a, b)| (a, b) == (black, white) || (b, a) == (black, white))?;
            let opening = openings.iter().position(|o| o.usi() == g.opening)?;
            g.black_points()?;
            Some((pair, opening, black))
        });
        match (game, key) {
            (Some(g), Some(key)) => {
                found.used.insert(g.index);
                *found.done.entry(key).or_insert(0) += 1;
                found.games.push((key.0, g));
            }
            _ => found.ignored += 1,
        }
    }
    found.games.sort_by_key(|(_, g)| g.index);
    Ok(found)
}

/// The jobs still to play: per (pairing, opening, colours), as many as the records lack.
/// Jobs whose number a record already uses get fresh numbers after the highest one.
pub(super) fn remaining(jobs: &[Job], found: &Found) -> Vec<Job> {
    let mut done = found.done.clone();
    let mut left: Vec<Job> = jobs
        .iter()
        .filter(|j| match done.get_mut(&(j.pair, j.opening, j.black)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .copied()
        .collect();
    let mut next = found.used.iter().next_back().map_or(1, |m| m + 1);
    let mut taken = found.used.clone();
    for j in &mut left {
        if taken.contains(&j.index) {
            next = next.max(jobs.iter().map(|j| j.index).max().unwrap_or(0) + 1);
            while taken.contains(&next) {
                next += 1;
            }
            j.index = next;
        }
        taken.insert(j.index);
    }
    left
}
