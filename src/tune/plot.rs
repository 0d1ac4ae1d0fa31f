//! `trace.svg`: every parameter over the iterations, each drawn as the share of its own
//! range (0 % = min, 100 % = max) so parameters of different sizes share one axis; the legend
//! gives the start and current values. Drawn by [`crate::plot`].

use super::spsa::Param;
use super::trace::TraceRow;
use crate::plot::{Axis, Chart, Series, PALETTE};

/// The chart for `rows` (row 0: the start values).
pub fn svg(params: &[Param], rows: &[TraceRow]) -> String {
    let last = rows.last().map_or(1, |r| r.iteration).max(1) as f64;
    // Five iteration labels at most, on whole iterations.
    let x_ticks = (0..=5)
        .map(|t| (last * f64::from(t) / 5.0).round())
        .map(|k| (k, format!("{k}")))
        .collect();
    let y_ticks = [0, 25, 50, 75, 100]
        .map(|p| (f64::from(p), format!("{p}%")))
        .to_vec();
    let mut chart = Chart::new(
        "SPSA parameters (share of each range) over iterations — gougi tune",
        720.0,
        300.0,
        Axis::with_ticks(0.0, last, x_ticks),
        Axis::with_ticks(0.0, 100.0, y_ticks),
    );
    chart.left = 50.0;
    chart.x_name = "iterations".into();
    for (i, p) in params.iter().enumerate() {
        let span = (p.max - p.min).max(f64::MIN_POSITIVE);
        let now = rows.last().and_then(|r| r.theta.get(i)).copied();
        chart.series.push(Series {
            legend: format!(
                "{} {} → {} (range {}…{})",
                p.name,
                p.text(p.start),
                now.map_or_else(|| "?".into(), |v| format!("{v:.2}")),
                p.text(p.min),
                p.text(p.max)
            ),
            colour: PALETTE[i % PALETTE.len()],
            points: rows
                .iter()
                .filter_map(|r| {
                    let v = *r.theta.get(i)?;
                    Some((r.iteration as f64, 100.0 * (v - p.min) / span))
                })
                .collect(),
            band: Vec::new(),
        });
    }
    chart.svg()
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
