//! What a match prints and leaves behind: the results table, the machine-readable summary
//! (`summary.json`) and the plot of the Elo estimate over the games (`elo.svg`).
//!
//! The JSON is written by hand (a few dozen lines, not worth serde's derive here), the plot by
//! [`crate::plot`], which draws the tuner's and the trainer's too.

use std::fmt::Write as _;

use super::game::PonderCount;
use super::stats::{Sprt, SprtState, Tally};
use crate::plot::{nice_axis, Axis, Chart, Series, PALETTE};

/// One pairing's running results, from `a`'s point of view.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub a: usize,
    pub b: usize,
    pub tally: Tally,
    /// Games with `a` as Black.
    pub a_black: u32,
    /// After each game of the pair: (games, Elo, low, high) — the plot's data.
    pub history: Vec<(u32, f64, f64, f64)>,
}

impl PairResult {
    pub fn new(a: usize, b: usize) -> PairResult {
        PairResult {
            a,
            b,
            tally: Tally::default(),
            a_black: 0,
            history: Vec::new(),
        }
    }

    /// Adds a game: `a_score` 1, ½ or 0.
    pub fn add(&mut self, a_score: f64, a_was_black: bool) {
        if a_score > 0.75 {
            self.tally.wins += 1;
        } else if a_score < 0.25 {
            self.tally.losses += 1;
        } else {
            self.tally.draws += 1;
        }
        if a_was_black {
            self.a_black += 1;
        }
        if let (Some(e), Some((lo, hi))) = (self.tally.elo(), self.tally.elo_interval()) {
            self.history.push((self.tally.games(), e, lo, hi));
        }
    }
}

/// `+147.2`, `+inf`, `-inf`.
pub fn fmt_elo(x: f64) -> String {
    // `+ 0.0` turns a negative zero (a 50 % score) into `+0.0`.
    let x = x + 0.0;
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_owned()
    } else {
        format!("{x:+.1}")
    }
}

/// The one-line summary of a pair: `A vs B: +60 =20 -20 (100 games) score 70.0% Elo +147.2 ±
/// 66.0 [86.2, 218.3] LOS 100.0%`.
pub fn pair_line(names: &[String], p: &PairResult) -> String {
    let t = &p.tally;
    let mut s = format!(
        "{} vs {}: +{} ={} -{} ({} games)",
        names[p.a],
        names[p.b],
        t.wins,
        t.draws,
        t.losses,
        t.games()
    );
    if let (Some(score), Some(elo), Some((lo, hi)), Some(los)) =
        (t.score(), t.elo(), t.elo_interval(), t.los())
    {
        let err = if (hi - lo).is_finite() {
            format!("± {:.1}", (hi - lo) / 2.0)
        } else {
            "± inf".to_owned()
        };
        let _ = write!(
            s,
            " score {:.1}% Elo {} {err} [{}, {}] LOS {:.1}%",
            100.0 * score,
            fmt_elo(elo),
            fmt_elo(lo),
            fmt_elo(hi),
            100.0 * los
        );
    }
    s
}

/// A pairing's score in a few characters, for the progress line: `A-B +3 =1 -2`.
pub fn pair_brief(names: &[String], p: &PairResult) -> String {
    let t = &p.tally;
    format!(
        "{}-{} +{} ={} -{}",
        names[p.a], names[p.b], t.wins, t.draws, t.losses
    )
}

/// The results table: one line per pair, then per-engine totals when there are several pairs.
pub fn table(names: &[String], pairs: &[PairResult]) -> String {
    let mut s = String::new();
    for p in pairs {
        s.push_str(&pair_line(names, p));
        s.push('\n');
    }
    if pairs.len() > 1 {
        s.push_str("\nengine totals (score against all opponents):\n");
        let w = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(4)
            .max(6);
        let _ = writeln!(
            s,
            "  {:<w$}  games   wins  draws losses  score   Elo",
            "engine"
        );
        for (i, name) in names.iter().enumerate() {
            let mut t = Tally::default();
            for p in pairs {
                let x = if p.a == i {
                    p.tally
                } else if p.b == i {
                    p.tally.flipped()
                } else {
                    continue;
                };
                t.wins += x.wins;
                t.draws += x.draws;
                t.losses += x.losses;
            }
            let _ = writeln!(
                s,
                "  {:<w$}  {:>5}  {:>5}  {:>5}  {:>5}  {:>5}  {:>6}",
                name,
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                t.score()
                    .map_or("-".into(), |x| format!("{:.1}%", 100.0 * x)),
                t.elo().map_or("-".into(), fmt_elo)
            );
        }
    }
    s
}

/// JSON string literal (kept for callers that write JSON by hand; the summary uses serde).
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A JSON number, `null` when not finite (JSON has no infinity).
pub fn json_num(x: Option<f64>) -> String {
    match finite4(x) {
        Some(v) => format!("{v}"),
        None => "null".into(),
    }
}

/// Rounded to 4 decimals; `None` when not finite (JSON has no infinity).
fn finite4(x: Option<f64>) -> Option<f64> {
    x.filter(|v| v.is_finite()).map(|v| (v * 1e4).round() / 1e4)
}

/// One finished game, as the JSON summary and the CSV list it. The same object is written as
/// the last comment line of the game's CSA record (`'gougi-game {…}`), which is what a resumed
/// run reads back: the records, not a separate state file, say which games are done.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameSummary {
    pub index: usize,
    pub black: String,
    pub white: String,
    pub opening: String,
    /// `1-0` (Black won), `0-1`, `1/2-1/2`.
    pub result: String,
    pub reason: String,
    pub detail: Option<String>,
    pub plies: usize,
    pub record: Option<String>,
    /// The pairing, `A vs B` in the pairing's order (not the colours').
    #[serde(default)]
    pub pair: String,
    /// Thinking time each side used, milliseconds (as the runner measured it).
    #[serde(default)]
    pub black_time_ms: u64,
    #[serde(default)]
    pub white_time_ms: u64,
    /// Start, `YYYY/MM/DD HH:MM:SS` UTC.
    #[serde(default)]
    pub started: String,
    /// The final position as a USI `position` argument (`startpos moves …`).
    #[serde(default)]
    pub usi: String,
    /// `--ponder`: each side's ponders settled by the opponent's move, and its hits (left out
    /// when 0, so records without ponder read as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub black_ponders: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub black_ponder_hits: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub white_ponders: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub white_ponder_hits: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Each engine's ponders and hits over `games` (by name), in `names`' order.
pub fn ponder_totals(names: &[String], games: &[GameSummary]) -> Vec<PonderCount> {
    let mut totals = vec![PonderCount::default(); names.len()];
    for g in games {
        let sides = [
            (&g.black, g.black_ponders, g.black_ponder_hits),
            (&g.white, g.white_ponders, g.white_ponder_hits),
        ];
        for (name, ponders, hits) in sides {
            if let Some(i) = names.iter().position(|n| n == name) {
                totals[i].ponders += ponders;
                totals[i].hits += hits;
            }
        }
    }
    totals
}

/// `ponder hits: A 43/80 (53.8 %), B 40/79 (50.6 %)` (with a newline), or nothing when no
/// ponder was settled.
pub fn ponder_line(names: &[String], games: &[GameSummary]) -> String {
    let totals = ponder_totals(names, games);
    if totals.iter().all(|t| t.ponders == 0) {
        return String::new();
    }
    let each: Vec<String> = names
        .iter()
        .zip(&totals)
        .map(|(n, t)| format!("{n} {}", t.describe()))
        .collect();
    format!("ponder hits: {}\n", each.join(", "))
}

/// The prefix of the CSA comment line that carries a game's [`GameSummary`].
pub const CSA_GAME_LINE: &str = "'gougi-game ";

impl GameSummary {
    /// The CSA comment line (without newline).
    pub fn csa_line(&self) -> String {
        format!(
            "{CSA_GAME_LINE}{}",
            serde_json::to_string(self).unwrap_or_default()
        )
    }

    /// The summary carried by a CSA record, if it has one (records of older runs do not).
    pub fn from_csa(text: &str) -> Option<GameSummary> {
        text.lines()
            .rev()
            .find_map(|l| l.strip_prefix(CSA_GAME_LINE))
            .and_then(|j| serde_json::from_str(j).ok())
    }

    /// Black's points: 1, ½ or 0 (`None` for an unknown result text).
    pub fn black_points(&self) -> Option<f64> {
        match self.result.as_str() {
            "1-0" => Some(1.0),
            "0-1" => Some(0.0),
            "1/2-1/2" => Some(0.5),
            _ => None,
        }
    }
}

/// Where an SPRT crossed a bound and stopped the match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStop {
    /// `H0` (lower bound) or `H1` (upper bound).
    pub state: SprtState,
    /// The LLR when it crossed.
    pub llr: f64,
    /// Games counted when it crossed.
    pub games: u32,
}

impl SprtStop {
    /// After a game of the SPRT's pairing (`tally`): the first crossing of a bound is kept in
    /// `stopped` (the match and `gougi tally` both stop there; later games still count).
    pub fn check(sprt: Option<&Sprt>, tally: &Tally, stopped: &mut Option<SprtStop>) {
        let Some(sprt) = sprt else { return };
        if stopped.is_some() {
            return;
        }
        let state = sprt.state(tally);
        if state != SprtState::Continue {
            *stopped = Some(SprtStop {
                state,
                llr: tally.llr(sprt.elo0, sprt.elo1),
                games: tally.games(),
            });
        }
    }
}

/// The SPRT's state for the summary.
pub struct SprtReport {
    pub sprt: Sprt,
    /// The LLR over every counted game (including games that finished after the stop).
    pub llr: f64,
    /// The state over every counted game.
    pub state: SprtState,
    /// Set when a bound was crossed and the match stopped on it: that is the verdict, even if
    /// the games still in flight then moved the LLR back inside the bounds.
    pub stopped: Option<SprtStop>,
}

impl SprtReport {
    /// Where `sprt` stands over `tally`, with the crossing that stopped it, if any.
    pub fn new(sprt: Sprt, tally: &Tally, stopped: Option<SprtStop>) -> SprtReport {
        SprtReport {
            sprt,
            llr: tally.llr(sprt.elo0, sprt.elo1),
            state: sprt.state(tally),
            stopped,
        }
    }

    /// The verdict: the crossing when there was one, else the state now.
    pub fn verdict(&self) -> SprtState {
        self.stopped.map_or(self.state, |s| s.state)
    }
}

fn state_name(s: SprtState) -> &'static str {
    match s {
        SprtState::Continue => "continue",
        SprtState::H0 => "H0",
        SprtState::H1 => "H1",
    }
}

/// The SPRT line of the text summary: the verdict with the LLR and bounds it was decided on.
pub fn sprt_line(r: &SprtReport, games: u32, interrupted: bool) -> String {
    let s = r.sprt;
    let (lo, hi) = s.bounds();
    let head = format!(
        "SPRT elo0 {} elo1 {} alpha {} beta {}",
        s.elo0, s.elo1, s.alpha, s.beta
    );
    match r.stopped {
        Some(stop) => {
            let (bound, value) = match stop.state {
                SprtState::H1 => ("upper", hi),
                _ => ("lower", lo),
            };
            let verdict = match stop.state {
                SprtState::H1 => "H1 accepted",
                _ => "H0 accepted",
            };
            let mut line = format!(
                "{head}: {verdict} at game {} (LLR {:.3} crossed the {bound} bound {:.3}; bounds [{lo:.3}, {hi:.3}])",
                stop.games, stop.llr, value
            );
            if games != stop.games {
                let _ = write!(
                    line,
                    "; LLR {:.3} after the {} game(s) in flight",
                    r.llr,
                    games - stop.games
                );
            }
            line.push('\n');
            line
        }
        None => format!(
            "{head}: LLR {:.3} [{lo:.3}, {hi:.3}] {}\n",
            r.llr,
            match r.state {
                SprtState::Continue if interrupted => "inconclusive (interrupted)",
                SprtState::Continue => "inconclusive",
                SprtState::H0 => "H0 accepted",
                SprtState::H1 => "H1 accepted",
            }
        ),
    }
}

/// Everything the JSON summary holds.
pub struct Summary<'a> {
    pub names: &'a [String],
    pub commands: &'a [String],
    pub limits: &'a [String],
    pub pairs: &'a [PairResult],
    pub games: &'a [GameSummary],
    pub sprt: Option<SprtReport>,
    pub stopped_early: bool,
    /// Ctrl-C ended the run; the games in flight were abandoned (a resume plays them).
    pub interrupted: bool,
    /// Games read back from an earlier run's records in the same folder.
    pub resumed: usize,
}

#[derive(serde::Serialize)]
struct JsonEngine<'a> {
    name: &'a str,
    command: &'a str,
    limits: &'a str,
    /// Over the run's games, when it pondered (`--ponder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    ponder: Option<JsonPonder>,
}

#[derive(serde::Serialize)]
struct JsonPonder {
    ponders: u32,
    hits: u32,
    /// hits / ponders.
    rate: Option<f64>,
}

#[derive(serde::Serialize)]
struct JsonPair<'a> {
    a: &'a str,
    b: &'a str,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    a_black: u32,
    score: Option<f64>,
    elo: Option<f64>,
    elo_low: Option<f64>,
    elo_high: Option<f64>,
    los: Option<f64>,
}

#[derive(serde::Serialize)]
struct JsonSprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    llr: Option<f64>,
    lower: Option<f64>,
    upper: Option<f64>,
    /// `H0`, `H1` or `continue`: the crossing when the test stopped the match.
    result: &'static str,
    /// `lower`/`upper` when the match stopped on a bound, else null.
    bound_crossed: Option<&'static str>,
    llr_at_stop: Option<f64>,
    games_at_stop: Option<u32>,
}

#[derive(serde::Serialize)]
struct JsonSummary<'a> {
    engines: Vec<JsonEngine<'a>>,
    pairs: Vec<JsonPair<'a>>,
    sprt: Option<JsonSprt>,
    stopped_early: bool,
    interrupted: bool,
    resumed_games: usize,
    games: &'a [GameSummary],
}

/// The machine-readable summary (serde_json, pretty-printed).
pub fn json(sum: &Summary) -> String {
    let ponders = ponder_totals(sum.names, sum.games);
    let pondered = ponders.iter().any(|t| t.ponders > 0);
    let engines = (0..sum.names.len())
        .map(|i| JsonEngine {
            name: &sum.names[i],
            command: &sum.commands[i],
            limits: &sum.limits[i],
            ponder: pondered.then(|| JsonPonder {
                ponders: ponders[i].ponders,
                hits: ponders[i].hits,
                rate: finite4(Some(
                    f64::from(ponders[i].hits) / f64::from(ponders[i].ponders),
                )),
            }),
        })
        .collect();
    let pairs = sum
        .pairs
        .iter()
        .map(|p| {
            let t = &p.tally;
            let (lo, hi) = t.elo_interval().unzip();
            JsonPair {
                a: &sum.names[p.a],
                b: &sum.names[p.b],
                games: t.games(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                a_black: p.a_black,
                score: finite4(t.score()),
                elo: finite4(t.elo()),
                elo_low: finite4(lo),
                elo_high: finite4(hi),
                los: finite4(t.los()),
            }
        })
        .collect();
    let sprt = sum.sprt.as_ref().map(|r| {
        let (lo, hi) = r.sprt.bounds();
        JsonSprt {
            elo0: r.sprt.elo0,
            elo1: r.sprt.elo1,
            alpha: r.sprt.alpha,
            beta: r.sprt.beta,
            llr: finite4(Some(r.llr)),
            lower: finite4(Some(lo)),
            upper: finite4(Some(hi)),
            result: state_name(r.verdict()),
            bound_crossed: r.stopped.map(|s| match s.state {
                SprtState::H1 => "upper",
                _ => "lower",
            }),
            llr_at_stop: r.stopped.and_then(|s| finite4(Some(s.llr))),
            games_at_stop: r.stopped.map(|s| s.games),
        }
    });
    let doc = JsonSummary {
        engines,
        pairs,
        sprt,
        stopped_early: sum.stopped_early,
        interrupted: sum.interrupted,
        resumed_games: sum.resumed,
        games: sum.games,
    };
    let mut s = serde_json::to_string_pretty(&doc)
        .unwrap_or_else(|e| format!("{{\"error\": {}}}", json_str(&e.to_string())));
    s.push('\n');
    s
}

/// One CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The games as CSV, one row per game, with a header row.
pub fn csv(games: &[GameSummary]) -> String {
    let mut s = String::from(
        "index,pair,black,white,opening,result,reason,detail,plies,black_time_ms,white_time_ms,started,record\n",
    );
    for g in games {
        let row = [
            g.index.to_string(),
            csv_field(&g.pair),
            csv_field(&g.black),
            csv_field(&g.white),
            csv_field(&g.opening),
            csv_field(&g.result),
            csv_field(&g.reason),
            csv_field(g.detail.as_deref().unwrap_or("")),
            g.plies.to_string(),
            g.black_time_ms.to_string(),
            g.white_time_ms.to_string(),
            csv_field(&g.started),
            csv_field(g.record.as_deref().unwrap_or("")),
        ];
        s.push_str(&row.join(","));
        s.push('\n');
    }
    s
}

/// An SVG line chart of each pair's Elo estimate (with its 95 % band) against games played.
pub fn svg(names: &[String], pairs: &[PairResult]) -> String {
    let max_games = pairs
        .iter()
        .flat_map(|p| p.history.last().map(|h| h.0))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let (lo, hi, _) = elo_axis(pairs);
    let mut chart = Chart::new(
        "Elo estimate (95% band) over games — gougi match",
        720.0,
        350.0,
        Axis::counts(max_games, 6),
        Axis::nice(lo, hi, 8),
    );
    chart.x_name = "games".into();
    chart.y_name = "Elo".into();
    for (i, p) in pairs.iter().enumerate() {
        let Some(last) = p.history.last() else {
            continue;
        };
        let spread = if (last.3 - last.2).is_finite() {
            format!("{:.1}", (last.3 - last.2) / 2.0)
        } else {
            "inf".to_owned()
        };
        chart.series.push(Series {
            legend: format!(
                "{} vs {}: {} ± {spread} after {} games",
                names[p.a],
                names[p.b],
                fmt_elo(last.1),
                last.0
            ),
            colour: PALETTE[i % PALETTE.len()],
            points: p.history.iter().map(|h| (f64::from(h.0), h.1)).collect(),
            band: p
                .history
                .iter()
                .map(|h| (f64::from(h.0), h.2, h.3))
                .collect(),
        });
    }
    chart.svg()
}

/// The value axis of the plot: every finite estimate, and the 95 % band from game 10 or a
/// quarter of the games on (earlier bands are too wide to be worth the scale; they are clipped
/// to the axis, as are the infinite estimates of a start with only wins or only losses).
pub fn elo_axis(pairs: &[PairResult]) -> (f64, f64, f64) {
    let last = pairs
        .iter()
        .filter_map(|p| p.history.last().map(|h| h.0))
        .max()
        .unwrap_or(0);
    let band_from = (last / 4).max(10);
    let values = pairs
        .iter()
        .flat_map(|p| p.history.iter())
        .flat_map(move |h| {
            let band = if h.0 >= band_from {
                [h.2, h.3]
            } else {
                [h.1, h.1]
            };
            [h.1, band[0], band[1]]
        });
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    nice_axis(lo, hi, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_line_and_table() {
        let names = vec!["A".to_owned(), "B".to_owned(), "C".to_owned()];
        let mut p = PairResult::new(0, 1);
        for _ in 0..60 {
            p.add(1.0, true);
        }
        for _ in 0..20 {
            p.add(0.5, false);
        }
        for _ in 0..20 {
            p.add(0.0, false);
        }
        assert_eq!(
            pair_line(&names, &p),
            "A vs B: +60 =20 -20 (100 games) score 70.0% Elo +147.2 ± 66.0 [+86.2, +218.3] LOS 100.0%"
        );
        let q = PairResult::new(1, 2);
        let t = table(&names, &[p.clone(), q]);
        assert!(t.contains("B vs C: +0 =0 -0 (0 games)\n"), "{t}");
        // B's totals are A's results flipped.
        assert!(
            t.contains("  B         100     20     20     60  30.0%  -147.2"),
            "{t}"
        );
        assert_eq!(p.history.len(), 100);
    }

    #[test]
    fn json_is_escaped_and_finite() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(json_num(Some(f64::INFINITY)), "null");
        assert_eq!(json_num(Some(147.190_714)), "147.1907");
        assert_eq!(json_num(None), "null");
    }

    #[test]
    fn svg_has_one_line_per_pair() {
        let names = vec!["A".to_owned(), "B<".to_owned()];
        let mut p = PairResult::new(0, 1);
        for i in 0..30 {
            p.add(if i % 3 == 0 { 0.0 } else { 1.0 }, i % 2 == 0);
        }
        let s = svg(&names, &[p]);
        assert!(s.starts_with("<svg"));
        assert_eq!(s.matches("<polyline").count(), 1);
        assert!(s.contains("A vs B&lt;: +120.4 ± "), "{s}");
        assert!(s.contains("after 30 games"), "{s}");
    }

    /// Every point of every line lies inside the plot, and the value labels bracket the data:
    /// a short run (+191 after 6 games, which the fixed ±50 axis drew at +50) and a longer one.
    #[test]
    fn svg_axis_fits_the_data() {
        let mut short = PairResult::new(0, 1);
        for x in [1.0, 1.0, 0.5, 1.0, 1.0, 0.0] {
            short.add(x, true);
        }
        // 5 wins in 6 games, repeated: an estimate near +280 with a wide early band.
        let mut long = PairResult::new(0, 1);
        for i in 0..60 {
            long.add(if i % 6 == 0 { 0.0 } else { 1.0 }, i % 2 == 0);
        }
        for p in [short, long] {
            svg_fits(p);
        }
    }

    fn svg_fits(p: PairResult) {
        let names = vec!["A".to_owned(), "B".to_owned()];
        let last = p.history.last().unwrap().1;
        assert!(last > 150.0, "{last}");
        let estimates: Vec<f64> = p.history.iter().map(|h| h.1).collect();
        let (lo, hi, _) = elo_axis(std::slice::from_ref(&p));
        let s = svg(&names, &[p]);
        let line = s.lines().find(|l| l.starts_with("<polyline")).unwrap();
        let pts = line.split('"').nth(1).unwrap();
        for (xy, elo) in pts.split(' ').zip(estimates) {
            if !elo.is_finite() {
                continue; // the first game, a loss: -inf, clipped to the axis
            }
            assert!((lo..=hi).contains(&elo), "{elo} outside [{lo}, {hi}]");
            // Drawn where it is, not clamped: the pixel maps back to the value.
            let y: f64 = xy.split(',').nth(1).unwrap().parse().unwrap();
            let back = hi - (y - 30.0) * (hi - lo) / 350.0;
            assert!(
                (back - elo).abs() <= (hi - lo) / 350.0,
                "{xy}: {back} vs {elo}"
            );
        }
        let labels: Vec<f64> = s
            .lines()
            .filter(|l| l.contains("class=\"ylabel\""))
            .map(|l| {
                let t = &l[l.find('>').unwrap() + 1..l.find("</").unwrap()];
                t.parse::<f64>().unwrap()
            })
            .collect();
        assert!(labels.len() >= 3, "{s}");
        assert_eq!(s.matches("class=\"ytick\"").count(), labels.len());
        assert!(
            *labels.last().unwrap() >= last && labels[0] <= 0.0,
            "{labels:?}"
        );
    }

    #[test]
    fn sprt_line_names_the_bound_crossed() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        // Stopped on the lower bound at game 30; the games in flight then moved the LLR back
        // inside the bounds: the verdict is still the crossing.
        let r = SprtReport {
            sprt,
            llr: -2.5,
            state: SprtState::Continue,
            stopped: Some(SprtStop {
                state: SprtState::H0,
                llr: -2.96,
                games: 30,
            }),
        };
        assert_eq!(r.verdict(), SprtState::H0);
        let line = sprt_line(&r, 32, false);
        assert_eq!(
            line,
            "SPRT elo0 0 elo1 10 alpha 0.05 beta 0.05: H0 accepted at game 30 (LLR -2.960 crossed the lower bound -2.944; bounds [-2.944, 2.944]); LLR -2.500 after the 2 game(s) in flight\n"
        );
        let r = SprtReport { stopped: None, ..r };
        assert!(sprt_line(&r, 32, true).ends_with("inconclusive (interrupted)\n"));
        let names = vec!["A".to_owned(), "B".to_owned()];
        let sum = Summary {
            names: &names,
            commands: &["a".to_owned(), "b".to_owned()],
            limits: &["x".to_owned(), "y".to_owned()],
            pairs: &[PairResult::new(0, 1)],
            games: &[],
            sprt: Some(SprtReport {
                stopped: Some(SprtStop {
                    state: SprtState::H1,
                    llr: 3.0,
                    games: 12,
                }),
                ..r
            }),
            stopped_early: true,
            interrupted: false,
            resumed: 0,
        };
        let v: serde_json::Value = serde_json::from_str(&json(&sum)).unwrap();
        assert_eq!(v["sprt"]["result"], "H1");
        assert_eq!(v["sprt"]["bound_crossed"], "upper");
        assert_eq!(v["sprt"]["games_at_stop"], 12);
        assert_eq!(v["pairs"][0]["elo"], serde_json::Value::Null);
    }

    #[test]
    fn csv_quotes_and_csa_game_lines_round_trip() {
        let g = GameSummary {
            index: 7,
            black: "A,1".into(),
            white: "B \"x\"".into(),
            opening: "startpos".into(),
            result: "0-1".into(),
            reason: "time loss".into(),
            detail: Some("Black (A,1) took 1.000 s".into()),
            plies: 3,
            record: Some("games/0007-A_1-vs-B__x_.kif".into()),
            pair: "A,1 vs B \"x\"".into(),
            black_time_ms: 1000,
            white_time_ms: 20,
            started: "2026/11/25 10:00:00".into(),
            usi: "startpos moves 7g7f".into(),
            black_ponders: 2,
            black_ponder_hits: 1,
            white_ponders: 0,
            white_ponder_hits: 0,
        };
        let c = csv(std::slice::from_ref(&g));
        assert_eq!(
            c.lines().nth(1).unwrap(),
            "7,\"A,1 vs B \"\"x\"\"\",\"A,1\",\"B \"\"x\"\"\",startpos,0-1,time loss,\"Black (A,1) took 1.000 s\",3,1000,20,2026/11/25 10:00:00,games/0007-A_1-vs-B__x_.kif"
        );
        let csa = format!("V2.2\n%TORYO\n{}\n", g.csa_line());
        assert_eq!(GameSummary::from_csa(&csa), Some(g.clone()));
        // Ponder counts of 0 are left out of the line, as records before `--ponder` have them.
        assert!(g
            .csa_line()
            .contains("\"black_ponders\":2,\"black_ponder_hits\":1}"));
        assert!(!g.csa_line().contains("white_ponder"));
        // The match summary's line, per engine by name whatever its colour.
        let names = ["B \"x\"".to_owned(), "A,1".to_owned()];
        let mut h = g.clone();
        (h.black, h.white) = (g.white.clone(), g.black.clone());
        (h.white_ponders, h.white_ponder_hits) = (3, 3);
        (h.black_ponders, h.black_ponder_hits) = (1, 0);
        assert_eq!(
            ponder_line(&names, &[g, h]),
            "ponder hits: B \"x\" 0/1 (0.0 %), A,1 4/5 (80.0 %)\n"
        );
        assert_eq!(ponder_line(&names, &[]), "");
        assert_eq!(GameSummary::from_csa("V2.2\n%TORYO\n"), None);
    }
}
