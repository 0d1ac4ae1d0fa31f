//! `trace.svg`: every parameter over the iterations, each drawn as the share of its own
//! range (0 % = min, 100 % = max) so parameters of different sizes share one axis; the legend
//! gives the start and current values. Hand-written SVG, as `arena::report::svg`.

use std::fmt::Write;

use super::spsa::Param;
use super::trace::TraceRow;

/// The chart for `rows` (row 0: the start values).
pub fn svg(params: &[Param], rows: &[TraceRow]) -> String {
    const W: f64 = 720.0;
    const L: f64 = 50.0;
    const R: f64 = 20.0;
    const T: f64 = 30.0;
    const PLOT_H: f64 = 300.0;
    const COLORS: [&str; 8] = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
    ];
    let legend_h = 18.0 * params.len() as f64 + 10.0;
    let h = T + PLOT_H + 30.0 + legend_h;
    let last = rows.last().map_or(1, |r| r.iteration).max(1) as f64;
    let x = |k: usize| L + (W - L - R) * k as f64 / last;
    let y = |share: f64| T + PLOT_H * (1.0 - share.clamp(0.0, 1.0));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{h}\" viewBox=\"0 0 {W} {h}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{h}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{L}\" y=\"18\">SPSA parameters (share of each range) over iterations — gougi tune</text>"
    );
    for pct in [0, 25, 50, 75, 100] {
        let yy = y(pct as f64 / 100.0);
        let _ = writeln!(
            s,
            "<line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/>",
            W - R
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>",
            L - 6.0,
            yy + 4.0
        );
    }
    for t in 0..=5 {
        let k = (last * t as f64 / 5.0).round() as usize;
        let xx = x(k);
        let _ = writeln!(
            s,
            "<text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{k}</text>",
            T + PLOT_H + 16.0
        );
    }
    for (i, p) in params.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let span = (p.max - p.min).max(f64::MIN_POSITIVE);
        let mut points = String::new();
        for r in rows {
            if let Some(&v) = r.theta.get(i) {
                let _ = write!(
                    points,
                    "{:.1},{:.1} ",
                    x(r.iteration),
                    y((v - p.min) / span)
                );
            }
        }
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.trim_end()
        );
        let ly = T + PLOT_H + 36.0 + 18.0 * i as f64;
        let now = rows.last().and_then(|r| r.theta.get(i)).copied();
        let _ = writeln!(
            s,
            "<rect x=\"{L}\" y=\"{:.1}\" width=\"12\" height=\"4\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{:.1}\">{} {} → {} (range {}…{})</text>",
            ly - 4.0,
            L + 18.0,
            ly,
            escape(&p.name),
            p.text(p.start),
            now.map_or_else(|| "?".into(), |v| format!("{v:.2}")),
            p.text(p.min),
            p.text(p.max)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_one_line_per_parameter_scaled_to_its_range() {
        let ps = crate::tune::spsa::parse_params("a 0 0 10 1 1\nb<c 5 0 10 1 1\n").unwrap();
        let rows = vec![
            TraceRow {
                iteration: 0,
                theta: vec![0.0, 5.0],
                result: None,
            },
            TraceRow {
                iteration: 4,
                theta: vec![10.0, 5.0],
                result: Some(2.0),
            },
        ];
        let s = svg(&ps, &rows);
        assert_eq!(s.matches("<polyline").count(), 2);
        // a: 0 % at x = L, 100 % at the right edge; b stays at 50 %.
        assert!(s.contains("points=\"50.0,330.0 700.0,30.0\""), "{s}");
        assert!(s.contains("points=\"50.0,180.0 700.0,180.0\""), "{s}");
        assert!(s.contains("b&lt;c 5 → 5.00"), "{s}");
    }
}
