//! `gougi calibrate`: fit a member's score scale (`Engine<N>.Scale`) from game records.
//!
//! Engines print scores on their own scales (one engine's +300 is another's +600), so
//! comparing raw numbers across members — the optimistic, pessimistic and rise rules — compares
//! unlike things. The usual remedy is a logistic model: win rate = 1/(1+e^(−cp/Scale)). Given
//! CSA records with floodgate-style comments (`'** <score> <pv…>` after a move, the score from
//! Black's point of view — what `gougi match` writes), every comment of the chosen player is a
//! sample (score, game result for Black), and the scale is the maximum-likelihood fit
//! (cross-entropy, draws count ½). Mate scores (|score| ≥ 30000) are left out.
//!
//! The same records give the member's weight for `weighted-optimistic`: that rule multiplies a
//! member's win odds by its weight, and a player that scores `s` against the records' opponents
//! is worth odds `s/(1−s)` against them (the Elo model: 10^(Elo/400)). So a member that scores
//! 50 % keeps weight 1, a stronger one is trusted more, a weaker one less.

use std::path::Path;

/// One record's contribution: the player's scores (Black's view) and Black's result.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordSamples {
    pub scores: Vec<f64>,
    /// 1 Black won, 0 White won, ½ draw.
    pub black_result: f64,
    /// Whether the player had Black.
    pub player_black: bool,
    /// The other side's name.
    pub opponent: String,
    /// The record's end line (`%TORYO`, `%TIME_UP`, …).
    pub end: String,
}

impl RecordSamples {
    /// The player's points in this game: 1, ½ or 0.
    pub fn player_points(&self) -> f64 {
        if self.player_black {
            self.black_result
        } else {
            1.0 - self.black_result
        }
    }
}

/// The `weighted-optimistic` weight of a player that made `points` in `games`: its odds
/// `s/(1−s)`, kept within 1/100 … 100 so that an all-win or all-loss record stays usable.
pub fn odds_weight(points: f64, games: usize) -> Option<f64> {
    if games == 0 {
        return None;
    }
    let s = points / games as f64;
    Some((s / (1.0 - s)).clamp(0.01, 100.0))
}

/// Scores at or beyond this are mates or mate-like and carry no scale information.
const MATE_LIKE: f64 = 30_000.0;

/// A CSA end line (`%…`) this reader does not know, so the game's result is unknown.
#[derive(Debug, thiserror::Error)]
#[error("unknown CSA end {0:?}")]
pub struct UnknownEnd(pub String);

/// Reads one CSA record: the comments of `player` (matched against `N+`/`N-`), and the result.
/// `Ok(None)` when the player did not play in it or the game has no result (`%CHUDAN`, no end).
pub fn read_csa(text: &str, player: &str) -> Result<Option<RecordSamples>, UnknownEnd> {
    let mut names = [None::<String>, None::<String>];
    // Side to move: true = Black. The position block's last line (`+`/`-`) sets it.
    let mut black_to_move = true;
    let mut last_mover_black: Option<bool> = None;
    let mut scores = Vec::new();
    let mut end: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim_end();
        if let Some(n) = line.strip_prefix("N+") {
            names[0] = Some(n.trim().to_owned());
        } else if let Some(n) = line.strip_prefix("N-") {
            names[1] = Some(n.trim().to_owned());
        } else if line == "+" || line == "-" {
            black_to_move = line == "+";
        } else if (line.starts_with('+') || line.starts_with('-'))
            && line.len() >= 7
            && line.as_bytes()[1].is_ascii_digit()
        {
            // A move (`+7776FU`), possibly followed by `,T3` on the same line.
            let mover_black = line.starts_with('+');
            last_mover_black = Some(mover_black);
            black_to_move = !mover_black;
        } else if let Some(rest) = line.strip_prefix("'**") {
            let Some(mover_black) = last_mover_black else {
                continue;
            };
            let Some(side) = names[if mover_black { 0 } else { 1 }].as_deref() else {
                continue;
            };
            if side != player {
                continue;
            }
            if let Some(Ok(v)) = rest.split_whitespace().next().map(str::parse::<f64>) {
                if v.abs() < MATE_LIKE {
                    scores.push(v);
                }
            }
        } else if line.starts_with('%') {
            end = Some(line.to_owned());
        }
    }
    if names.iter().all(|n| n.as_deref() != Some(player)) {
        return Ok(None);
    }
    let Some(end) = end else {
        return Ok(None);
    };
    let side_to_move_wins = |wins: bool| {
        if wins == black_to_move {
            1.0
        } else {
            0.0
        }
    };
    let player_black = names[0].as_deref() == Some(player);
    let opponent = names[usize::from(player_black)].clone().unwrap_or_default();
    let black_result = match end.as_str() {
        "%TORYO" | "%TSUMI" | "%TIME_UP" | "%ILLEGAL_MOVE" => side_to_move_wins(false),
        "%KACHI" => side_to_move_wins(true),
        "%+ILLEGAL_ACTION" => 0.0,
        "%-ILLEGAL_ACTION" => 1.0,
        "%SENNICHITE" | "%JISHOGI" | "%HIKIWAKE" | "%MAX_MOVES" => 0.5,
        "%CHUDAN" | "%ERROR" | "%FUZUMI" => return Ok(None),
        other => return Err(UnknownEnd(other.to_owned())),
    };
    Ok(Some(RecordSamples {
        scores,
        black_result,
        player_black,
        opponent,
        end,
    }))
}

/// Negative log-likelihood of the samples under scale `k`.
fn loss(samples: &[(f64, f64)], k: f64) -> f64 {
    samples
        .iter()
        .map(|&(s, y)| {
            // ln(1+e^x) computed stably.
            let x = s / k;
            let softplus = |z: f64| if z > 30.0 { z } else { z.exp().ln_1p() };
            // −[y ln σ(x) + (1−y) ln σ(−x)] = y·softplus(−x) + (1−y)·softplus(x)
            y * softplus(-x) + (1.0 - y) * softplus(x)
        })
        .sum()
}

/// The maximum-likelihood scale for (score, result) samples, searched on a log scale between
/// 10 and 100,000 centipawns per logistic unit (golden section; the loss is unimodal in ln k
/// for separable-free data). `None` without samples.
pub fn fit_scale(samples: &[(f64, f64)]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let f = |ln_k: f64| loss(samples, ln_k.exp());
    let (mut a, mut b) = (10f64.ln(), 100_000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..200 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
        if b - a < 1e-9 {
            break;
        }
    }
    Some(((a + b) / 2.0).exp())
}

/// `gougi calibrate --player NAME FILES…`: prints the fitted scale as a config line.
pub fn run(
    player: &str,
    files: &[std::path::PathBuf],
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    let mut samples = Vec::new();
    let mut games = 0usize;
    let (mut wins, mut draws, mut points) = (0usize, 0usize, 0.0);
    for (name, text) in read_games(files)? {
        match read_csa(&text, player).map_err(|e| anyhow::anyhow!("{name}: {e}"))? {
            None => {}
            Some(r) => {
                games += 1;
                let p = r.player_points();
                points += p;
                wins += usize::from(p == 1.0);
                draws += usize::from(p == 0.5);
                samples.extend(r.scores.iter().map(|&s| (s, r.black_result)));
            }
        }
    }
    let Some(weight) = odds_weight(points, games) else {
        anyhow::bail!(
            "no finished game of {player:?} in {} file(s) (CSA records with N+/N- names and a result)",
            files.len()
        );
    };
    match fit_scale(&samples) {
        Some(scale) => {
            writeln!(
                out,
                "Engine<N>.Scale={scale:.0}   # {player}: {} scored moves in {games} games",
                samples.len()
            )?;
            if !(10.5..99_000.0).contains(&scale) {
                // At the edge of the search range the scores do not predict the results (or
                // the engine reports them from another point of view than the side to move).
                writeln!(
                    out,
                    "# warning: the fit hit the edge of its range; {player}'s scores barely predict its results"
                )?;
            }
        }
        None => writeln!(out, "# {player}: no scored moves, no scale")?,
    }
    let losses = games - wins - draws;
    writeln!(
        out,
        "Engine<N>.Weight={weight:.3}   # {player}: +{wins} ={draws} -{losses} ({:.1} %) against its opponents; weighted-optimistic multiplies its win odds by this",
        100.0 * points / games as f64
    )?;
    Ok(())
}

/// CSA files are ASCII apart from names and comments, which may be Shift_JIS.
/// The games of CSA files, one per entry (name, text): a file may hold several games separated
/// by a line with a single `/` (CSA's multi-game form, which cshogi's match runner writes with
/// `--multi-csa`). Each game is named `file` or `file#k` (k from 1).
pub(crate) fn read_games(files: &[std::path::PathBuf]) -> anyhow::Result<Vec<(String, String)>> {
    let mut games = Vec::new();
    for f in files {
        let text = read_text(f)?;
        let parts = split_games(&text);
        let several = parts.len() > 1;
        for (k, part) in parts.into_iter().enumerate() {
            let name = if several {
                format!("{}#{}", f.display(), k + 1)
            } else {
                f.display().to_string()
            };
            games.push((name, part));
        }
    }
    Ok(games)
}

/// Split a CSA text at lines that hold a single `/`; empty parts are dropped.
pub(crate) fn split_games(text: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    for line in text.lines() {
        if line.trim() == "/" {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    parts.retain(|p| !p.trim().is_empty());
    parts
}

pub(crate) fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(crate::config::decode(&bytes))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_known_scale() {
        // Fractional results equal to the model's win rates: the likelihood peaks at 400.
        let samples: Vec<(f64, f64)> = [-1200.0, -600.0, -200.0, 100.0, 500.0, 900.0]
            .iter()
            .map(|&s| (s, 1.0 / (1.0 + (-s / 400.0f64).exp())))
            .collect();
        let k = fit_scale(&samples).unwrap();
        assert!((k - 400.0).abs() < 0.01, "{k}");
        assert_eq!(fit_scale(&[]), None);
    }

    pub(crate) const GAME: &str = "V2.2\nN+alpha\nN-beta\nPI\n+\n+7776FU\nT1\n'** 50 -3334FU\n-3334FU\nT1\n'** 80 +2726FU\n+2726FU\nT0\n'** 120\n-8384FU\nT2\n'** -100000\n%TORYO\n";

    #[test]
    fn reads_the_players_comments_and_the_result() {
        // After -8384FU Black is to move, so %TORYO is Black resigning: White (beta) won.
        let a = read_csa(GAME, "alpha").unwrap().unwrap();
        assert_eq!(a.scores, vec![50.0, 120.0]);
        assert_eq!(a.black_result, 0.0);
        assert!(a.player_black);
        assert_eq!(a.player_points(), 0.0);
        assert_eq!((a.opponent.as_str(), a.end.as_str()), ("beta", "%TORYO"));
        let b = read_csa(GAME, "beta").unwrap().unwrap();
        assert_eq!(b.scores, vec![80.0], "the mate score is left out");
        assert_eq!(b.opponent, "alpha");
        assert_eq!(b.player_points(), 1.0);
        assert_eq!(read_csa(GAME, "gamma").unwrap(), None);
        let draw = GAME.replace("%TORYO", "%SENNICHITE");
        assert_eq!(read_csa(&draw, "alpha").unwrap().unwrap().black_result, 0.5);
        let win = GAME.replace("%TORYO", "%KACHI");
        assert_eq!(read_csa(&win, "alpha").unwrap().unwrap().black_result, 1.0);
        assert!(read_csa(&GAME.replace("%TORYO", "%WHAT"), "alpha").is_err());
        assert_eq!(
            read_csa(&GAME.replace("%TORYO", "%CHUDAN"), "alpha").unwrap(),
            None
        );
    }

    #[test]
    fn weights_are_the_players_odds() {
        assert_eq!(odds_weight(3.5, 4), Some(7.0)); // 87.5 %: odds 7
        assert_eq!(odds_weight(1.0, 2), Some(1.0));
        assert_eq!(odds_weight(28.0, 200), Some(28.0 / 172.0));
        assert_eq!(odds_weight(0.0, 3), Some(0.01)); // all lost: the floor
        assert_eq!(odds_weight(3.0, 3), Some(100.0));
        assert_eq!(odds_weight(0.0, 0), None);
    }
}
