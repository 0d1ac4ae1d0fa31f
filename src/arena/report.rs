//! What a match prints and leaves behind: the results table, the machine-readable summary
//! (`summary.json`) and the plot of the Elo estimate over the games (`elo.svg`).
//!
//! JSON and SVG are written by hand: both are a few dozen lines of output and not worth a
//! serde or plotting dependency on a 2-core build.

use std::fmt::Write as _;

use super::stats::{Sprt, SprtState, Tally};

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

/// JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, `null` when not finite (JSON has no infinity).
pub fn json_num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => {
            let r = (v * 1e4).round() / 1e4;
            format!("{r}")
        }
        _ => "null".into(),
    }
}

/// One finished game, as the JSON summary lists it.
#[derive(Clone, Debug)]
pub struct GameSummary {
    pub index: usize,
    pub black: String,
    pub white: String,
    pub opening: String,
    /// `1-0` (Black won), `0-1`, `1/2-1/2`.
    pub result: &'static str,
    pub reason: String,
    pub detail: Option<String>,
    pub plies: usize,
    pub record: Option<String>,
}

/// The SPRT's state for the summary.
pub struct SprtReport {
    pub sprt: Sprt,
    pub llr: f64,
    pub state: SprtState,
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
}

/// The machine-readable summary.
pub fn json(sum: &Summary) -> String {
    let mut s = String::from("{\n  \"engines\": [\n");
    for (i, n) in sum.names.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {{\"name\": {}, \"command\": {}, \"limits\": {}}}{}",
            json_str(n),
            json_str(&sum.commands[i]),
            json_str(&sum.limits[i]),
            if i + 1 < sum.names.len() { "," } else { "" }
        );
    }
    s.push_str("  ],\n  \"pairs\": [\n");
    for (i, p) in sum.pairs.iter().enumerate() {
        let t = &p.tally;
        let (lo, hi) = t.elo_interval().unzip();
        let _ = writeln!(
            s,
            "    {{\"a\": {}, \"b\": {}, \"games\": {}, \"wins\": {}, \"draws\": {}, \"losses\": {}, \
             \"a_black\": {}, \"score\": {}, \"elo\": {}, \"elo_low\": {}, \"elo_high\": {}, \"los\": {}}}{}",
            json_str(&sum.names[p.a]),
            json_str(&sum.names[p.b]),
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            p.a_black,
            json_num(t.score()),
            json_num(t.elo()),
            json_num(lo),
            json_num(hi),
            json_num(t.los()),
            if i + 1 < sum.pairs.len() { "," } else { "" }
        );
    }
    s.push_str("  ],\n");
    match &sum.sprt {
        None => s.push_str("  \"sprt\": null,\n"),
        Some(r) => {
            let (lo, hi) = r.sprt.bounds();
            let state = match r.state {
                SprtState::Continue => "continue",
                SprtState::H0 => "H0",
                SprtState::H1 => "H1",
            };
            let _ = writeln!(
                s,
                "  \"sprt\": {{\"elo0\": {}, \"elo1\": {}, \"alpha\": {}, \"beta\": {}, \"llr\": {}, \
                 \"lower\": {}, \"upper\": {}, \"result\": {}}},",
                json_num(Some(r.sprt.elo0)),
                json_num(Some(r.sprt.elo1)),
                json_num(Some(r.sprt.alpha)),
                json_num(Some(r.sprt.beta)),
                json_num(Some(r.llr)),
                json_num(Some(lo)),
                json_num(Some(hi)),
                json_str(state)
            );
        }
    }
    let _ = writeln!(s, "  \"stopped_early\": {},", sum.stopped_early);
    s.push_str("  \"games\": [\n");
    for (i, g) in sum.games.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {{\"index\": {}, \"black\": {}, \"white\": {}, \"opening\": {}, \"result\": {}, \
             \"reason\": {}, \"detail\": {}, \"plies\": {}, \"record\": {}}}{}",
            g.index,
            json_str(&g.black),
            json_str(&g.white),
            json_str(&g.opening),
            json_str(g.result),
            json_str(&g.reason),
            g.detail.as_deref().map_or("null".into(), json_str),
            g.plies,
            g.record.as_deref().map_or("null".into(), json_str),
            if i + 1 < sum.games.len() { "," } else { "" }
        );
    }
    s.push_str("  ]\n}\n");
    s
}

/// An SVG line chart of each pair's Elo estimate (with its 95 % band) against games played.
pub fn svg(names: &[String], pairs: &[PairResult]) -> String {
    const W: f64 = 720.0;
    const H: f64 = 420.0;
    const L: f64 = 60.0; // left margin (axis labels)
    const R: f64 = 20.0;
    const T: f64 = 30.0;
    const B: f64 = 40.0;
    const COLORS: [&str; 6] = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    ];
    let max_games = pairs
        .iter()
        .flat_map(|p| p.history.last().map(|h| h.0))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    // Finite values only; infinite ends of early intervals are clipped to the range.
    let finite = pairs
        .iter()
        .flat_map(|p| p.history.iter())
        .filter(|h| h.0 >= 10)
        .flat_map(|h| [h.1, h.2, h.3])
        .filter(|v| v.is_finite());
    let (mut lo, mut hi) = finite.fold((-50.0f64, 50.0f64), |(a, b), v| (a.min(v), b.max(v)));
    lo = (lo / 50.0).floor() * 50.0;
    hi = (hi / 50.0).ceil() * 50.0;
    let x = |g: f64| L + (W - L - R) * g / max_games;
    let y = |e: f64| {
        let e = e.clamp(lo, hi);
        T + (H - T - B) * (hi - e) / (hi - lo)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{L}\" y=\"18\">Elo estimate (95% band) over games — gougi match</text>"
    );
    // Grid every 50 Elo (or 100 when the range is wide).
    let step = if hi - lo > 600.0 { 100.0 } else { 50.0 };
    // Grid lines on multiples of the step, so 0 is always one of them.
    let mut e = (lo / step).ceil() * step;
    while e <= hi + 1e-9 {
        let yy = y(e);
        let stroke = if e == 0.0 { "#000" } else { "#ddd" };
        let _ = writeln!(
            s,
            "<line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"{stroke}\"/>",
            W - R
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{e:+.0}</text>",
            L - 6.0,
            yy + 4.0
        );
        e += step;
    }
    // Five ticks along the games axis.
    for k in 0..=5 {
        let g = (max_games * f64::from(k) / 5.0).round();
        let xx = x(g);
        let _ = writeln!(
            s,
            "<line x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#000\"/>",
            H - B,
            H - B + 5.0
        );
        let _ = writeln!(
            s,
            "<text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{g}</text>",
            H - B + 18.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">games</text>",
        (L + W - R) / 2.0,
        H - 6.0
    );
    for (i, p) in pairs.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        if p.history.is_empty() {
            continue;
        }
        let upper: Vec<String> = p
            .history
            .iter()
            .map(|h| format!("{:.1},{:.1}", x(f64::from(h.0)), y(h.3)))
            .collect();
        let lower: Vec<String> = p
            .history
            .iter()
            .rev()
            .map(|h| format!("{:.1},{:.1}", x(f64::from(h.0)), y(h.2)))
            .collect();
        let _ = writeln!(
            s,
            "<polygon points=\"{} {}\" fill=\"{color}\" fill-opacity=\"0.15\" stroke=\"none\"/>",
            upper.join(" "),
            lower.join(" ")
        );
        let line: Vec<String> = p
            .history
            .iter()
            .map(|h| format!("{:.1},{:.1}", x(f64::from(h.0)), y(h.1)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>",
            line.join(" ")
        );
        let last = p.history.last().expect("not empty");
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{color}\">{} vs {}: {} ± {} after {} games</text>",
            L + 10.0,
            T + 16.0 * (i as f64 + 1.0),
            xml_escape(&names[p.a]),
            xml_escape(&names[p.b]),
            fmt_elo(last.1),
            if (last.3 - last.2).is_finite() {
                format!("{:.1}", (last.3 - last.2) / 2.0)
            } else {
                "inf".to_owned()
            },
            last.0
        );
    }
    s.push_str("</svg>\n");
    s
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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
}
