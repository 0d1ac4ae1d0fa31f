//! `gougi tally`: one result from the records of several runs.
//!
//! A match is often played in pieces — several `gougi match` runs with different seeds, or on
//! different machines — and the figure a user wants is the pooled one. This reads the CSA
//! records (`games/*.csa` of each run), scores every game of one player against its
//! opponents, and prints the same line as `gougi match` (W/D/L, score, Elo with its 95 %
//! interval, LOS), optionally with the plot of the estimate over the games in the order the
//! files are given. `--skip-end` leaves out games by their CSA end line (e.g. `%TIME_UP` when
//! a run's time losses had an outside cause); how many were left out is printed, never hidden.
//! `--sprt` runs the sequential test over the games in that same order, as `gougi match`
//! would have run it had the games come in that order: the first crossing of a bound is the
//! verdict, and the LLR over every game is printed beside it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::report::{pair_line, sprt_line, svg, PairResult, SprtReport, SprtStop};
use super::stats::Sprt;
use crate::gougi::calibrate::{read_csa, read_games, UnknownEnd};

/// A record [`pool`] could not read, by its name.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {source}")]
pub struct PoolError {
    pub name: String,
    pub source: UnknownEnd,
}

/// What [`pool`] makes of the records.
pub struct Pooled {
    pub result: PairResult,
    /// The opponents with their game counts.
    pub opponents: BTreeMap<String, u32>,
    /// Games left out by their end line.
    pub skipped: u32,
    /// The first crossing of an SPRT bound, game by game in record order.
    pub sprt_stop: Option<SprtStop>,
}

/// The pooled result of `player` over `records` (name, CSA text), in order; games whose end
/// line is in `skip_ends` are counted apart. With `sprt`, the test is checked after each
/// counted game.
pub fn pool(
    records: &[(String, String)],
    player: &str,
    skip_ends: &[String],
    sprt: Option<&Sprt>,
) -> Result<Pooled, PoolError> {
    let mut result = PairResult::new(0, 1);
    let mut opponents = BTreeMap::new();
    let mut skipped = 0;
    let mut sprt_stop = None;
    for (name, text) in records {
        let Some(r) = read_csa(text, player).map_err(|source| PoolError {
            name: name.clone(),
            source,
        })?
        else {
            continue;
        };
        if skip_ends.contains(&r.end) {
            skipped += 1;
            continue;
        }
        result.add(r.player_points(), r.player_black);
        *opponents.entry(r.opponent).or_insert(0) += 1;
        SprtStop::check(sprt, &result.tally, &mut sprt_stop);
    }
    Ok(Pooled {
        result,
        opponents,
        skipped,
        sprt_stop,
    })
}

/// `gougi tally --player NAME [--skip-end CODE]… [--sprt E0 E1 A B] [--svg FILE] FILES…`.
pub fn run(
    player: &str,
    files: &[PathBuf],
    skip_ends: &[String],
    sprt: Option<&Sprt>,
    svg_path: Option<&std::path::Path>,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    // A file may hold several games (CSA's `/`-separated multi-game form).
    let records = read_games(files)?;
    let Pooled {
        result,
        opponents,
        skipped,
        sprt_stop,
    } = pool(&records, player, skip_ends, sprt).map_err(anyhow::Error::msg)?;
    let games = result.tally.games();
    if games == 0 {
        anyhow::bail!(
            "no finished game of {player:?} in {} file(s) (CSA records with N+/N- names and a result)",
            files.len()
        );
    }
    let opponent = if opponents.len() == 1 {
        opponents.keys().next().cloned().unwrap_or_default()
    } else {
        "its opponents".to_owned()
    };
    let names = [player.to_owned(), opponent];
    writeln!(out, "{}", pair_line(&names, &result))?;
    let list: Vec<String> = opponents.iter().map(|(n, g)| format!("{n} {g}")).collect();
    writeln!(
        out,
        "# {} file(s); games per opponent: {}; {} as Black; skipped by end line: {skipped}",
        files.len(),
        list.join(", "),
        result.a_black
    )?;
    if let Some(&sprt) = sprt {
        let report = SprtReport::new(sprt, &result.tally, sprt_stop);
        // The records are not games in flight: the line stops at the crossing, and the LLR
        // over every game follows on its own line.
        let at = sprt_stop.map_or(games, |s| s.games);
        write!(out, "{}", sprt_line(&report, at, false))?;
        if at != games {
            writeln!(
                out,
                "# LLR {:.3} over all {games} games in file order",
                report.llr
            )?;
        }
    }
    if let Some(path) = svg_path {
        std::fs::write(path, svg(&names, &[result]))
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        writeln!(out, "# plot in {}", path.display())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::calibrate::tests::GAME;

    #[test]
    fn pools_wins_draws_and_losses_across_records() {
        // GAME: alpha (Black) loses to beta by resignation.
        let records = vec![
            ("a.csa".to_owned(), GAME.to_owned()),
            ("b.csa".to_owned(), GAME.replace("%TORYO", "%KACHI")),
            ("c.csa".to_owned(), GAME.replace("%TORYO", "%SENNICHITE")),
            ("d.csa".to_owned(), GAME.replace("%TORYO", "%TIME_UP")),
            ("e.csa".to_owned(), GAME.replace("N-beta", "N-gamma")),
            ("f.csa".to_owned(), GAME.replace("%TORYO", "%CHUDAN")),
        ];
        let Pooled {
            result: r,
            opponents,
            skipped,
            sprt_stop,
        } = pool(&records, "alpha", &[], None).unwrap();
        assert!(sprt_stop.is_none());
        assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (1, 1, 3));
        assert_eq!(r.a_black, 5);
        assert_eq!(skipped, 0);
        assert_eq!(opponents.get("beta"), Some(&4));
        assert_eq!(opponents.get("gamma"), Some(&1));
        // The time loss left out on request, and counted as such.
        let Pooled {
            result: r, skipped, ..
        } = pool(&records, "alpha", &["%TIME_UP".to_owned()], None).unwrap();
        assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (1, 1, 2));
        assert_eq!(skipped, 1);
        // From the other side.
        let r = pool(&records[..3], "beta", &[], None).unwrap().result;
        assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (1, 1, 1));
        assert_eq!(r.a_black, 0);
        assert!(pool(
            &[("x".into(), GAME.replace("%TORYO", "%WHAT"))],
            "alpha",
            &[],
            None
        )
        .is_err());
    }

    #[test]
    fn every_game_of_a_multi_game_file_counts() {
        // cshogi's `--multi-csa`: games separated by a line holding `/`.
        let dir = std::env::temp_dir().join(format!("gougi-tally-multi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("all.csa");
        let text = [
            GAME.to_owned(),
            GAME.replace("%TORYO", "%KACHI"),
            GAME.replace("%TORYO", "%SENNICHITE"),
        ]
        .join("/\n");
        std::fs::write(&f, text).unwrap();
        let records = read_games(std::slice::from_ref(&f)).unwrap();
        assert_eq!(records.len(), 3);
        assert!(records[2].0.ends_with("all.csa#3"));
        let r = pool(&records, "alpha", &[], None).unwrap().result;
        assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (1, 1, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn prints_the_match_line_and_writes_the_plot() {
        let dir = std::env::temp_dir().join(format!("gougi-tally-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for (i, end) in ["%TORYO", "%KACHI", "%KACHI"].iter().enumerate() {
            let f = dir.join(format!("{i}.csa"));
            std::fs::write(&f, GAME.replace("%TORYO", end)).unwrap();
            files.push(f);
        }
        let plot = dir.join("elo.svg");
        let mut out = Vec::new();
        run("alpha", &files, &[], None, Some(&plot), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("alpha vs beta: +2 =0 -1 (3 games) score 66.7% Elo +120.4"),
            "{text}"
        );
        assert!(text.contains(
            "# 3 file(s); games per opponent: beta 3; 3 as Black; skipped by end line: 0"
        ));
        assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
        assert!(run("nobody", &files, &[], None, None, &mut Vec::new()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sprt_in_file_order_keeps_the_first_crossing() {
        // Five wins of alpha (`%KACHI`: the side to move, alpha, declares) then three losses.
        // Expected LLRs (elo0 0, elo1 100) computed independently in Python from the GSPRT
        // formula of `stats.rs`: 3.634912 after game 5, the first over ln(19) = 2.944;
        // 0.262793 after all eight (W5 L3).
        let dir = std::env::temp_dir().join(format!("gougi-tally-sprt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for i in 0..8 {
            let f = dir.join(format!("{i}.csa"));
            let end = if i < 5 { "%KACHI" } else { "%TORYO" };
            std::fs::write(&f, GAME.replace("%TORYO", end)).unwrap();
            files.push(f);
        }
        let sprt = Sprt::new(0.0, 100.0, 0.05, 0.05).unwrap();
        let mut out = Vec::new();
        run("alpha", &files, &[], Some(&sprt), None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "SPRT elo0 0 elo1 100 alpha 0.05 beta 0.05: H1 accepted at game 5 (LLR 3.635 \
             crossed the upper bound 2.944; bounds [-2.944, 2.944])\n\
             # LLR 0.263 over all 8 games in file order\n"
            ),
            "{text}"
        );
        // The same games the other way round never cross: the LLR over all of them is shown.
        files.reverse();
        let mut out = Vec::new();
        run("alpha", &files, &[], Some(&sprt), None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with(
            "SPRT elo0 0 elo1 100 alpha 0.05 beta 0.05: LLR 0.263 [-2.944, 2.944] inconclusive\n"
        ), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
