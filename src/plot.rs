//! Line charts as SVG, written by hand: `gougi match`'s Elo over games (`elo.svg`, and `gougi
//! tally --svg`), `gougi tune`'s parameters over iterations (`trace.svg`) and the NNUE trainer's
//! losses over epochs (`OUT.loss.svg`). One drawing and one XML escaping for the three; a plot
//! library would be the tree's heaviest dependency for three pictures.
//!
//! A [`Chart`] is a plot area with a value axis on the left and a step axis below, each with
//! its ticks and labels ([`Axis`]), lines ([`Series`], optionally with a band around them, such
//! as a confidence interval) and a legend under the plot, one row per line. Values outside an
//! axis are drawn at its edge. A leaf: it knows numbers and text, nothing of shogi or engines.

use std::fmt::Write;

/// The colours lines take, in order (matplotlib's, readable on white).
pub const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// One axis: its range, and the ticks labelled on it (value, label).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
    /// Draw the line at 0 darker than the grid (a value axis on both sides of zero).
    pub zero_line: bool,
}

impl Axis {
    /// An axis over `[lo, hi]` (and 0) that ends on multiples of a "nice" step, with at most
    /// `max_ticks` steps, labelled with as many decimals as the step needs ([`tick_label`]).
    pub fn nice(lo: f64, hi: f64, max_ticks: usize) -> Axis {
        let (lo, hi, step) = nice_axis(lo, hi, max_ticks);
        let n = ((hi - lo) / step).round() as i64;
        let ticks = (0..=n)
            .map(|k| {
                let v = lo + step * k as f64 + 0.0;
                (v, tick_label(v, step))
            })
            .collect();
        Axis {
            lo,
            hi,
            ticks,
            zero_line: true,
        }
    }

    /// An axis over `[lo, hi]` with these ticks.
    pub fn with_ticks(lo: f64, hi: f64, ticks: Vec<(f64, String)>) -> Axis {
        Axis {
            lo,
            hi,
            ticks,
            zero_line: false,
        }
    }

    /// A step axis (games, iterations, epochs) from 0 to `last` (at least 1), ticked at whole
    /// numbers: a nice step giving at most `max_ticks` steps.
    pub fn counts(last: f64, max_ticks: usize) -> Axis {
        let last = last.max(1.0);
        let step = nice_step(last, max_ticks).max(1.0).round();
        let mut ticks = Vec::new();
        let mut v = 0.0;
        while v <= last + 1e-9 {
            ticks.push((v, format!("{v}")));
            v += step;
        }
        Axis::with_ticks(0.0, last, ticks)
    }
}

/// A line of the chart: its legend text, colour and points (step, value), and optionally a
/// band (step, low, high) drawn faintly behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub legend: String,
    pub colour: &'static str,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64, f64)>,
}

/// A chart: the picture's width, the margins around the plot area and its height, the axes,
/// the axes' names and the lines. The legend goes under the plot, so the picture is
/// `top + plot_height + bottom` high plus a row per line.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub title: String,
    pub width: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub plot_height: f64,
    pub bottom: f64,
    pub x: Axis,
    pub y: Axis,
    pub x_name: String,
    pub y_name: String,
    pub series: Vec<Series>,
}

/// A legend row's height.
const ROW: f64 = 18.0;

impl Chart {
    /// A chart of `width` whose plot area is `plot_height` high, with room for the labels:
    /// 60 px on the left, 20 on the right, 30 above, 40 below.
    pub fn new(title: impl Into<String>, width: f64, plot_height: f64, x: Axis, y: Axis) -> Chart {
        Chart {
            title: title.into(),
            width,
            left: 60.0,
            right: 20.0,
            top: 30.0,
            plot_height,
            bottom: 40.0,
            x,
            y,
            x_name: String::new(),
            y_name: String::new(),
            series: Vec::new(),
        }
    }

    /// The picture's x of step `v`.
    pub fn px(&self, v: f64) -> f64 {
        let span = (self.x.hi - self.x.lo).max(f64::MIN_POSITIVE);
        self.left + (self.width - self.left - self.right) * (v - self.x.lo) / span
    }

    /// The picture's y of value `v` (clamped to the axis).
    pub fn py(&self, v: f64) -> f64 {
        let span = (self.y.hi - self.y.lo).max(f64::MIN_POSITIVE);
        let v = v.clamp(self.y.lo, self.y.hi);
        self.top + self.plot_height * (self.y.hi - v) / span
    }

    /// The picture's height, legend included.
    pub fn height(&self) -> f64 {
        let legend = if self.series.is_empty() {
            0.0
        } else {
            ROW * self.series.len() as f64 + 10.0
        };
        self.top + self.plot_height + self.bottom + legend
    }

    /// The chart as an SVG document.
    pub fn svg(&self) -> String {
        let (w, h) = (self.width, self.height());
        let (l, r, t) = (self.left, self.width - self.right, self.top);
        let base = t + self.plot_height;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">"
        );
        let _ = writeln!(s, "<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>");
        let _ = writeln!(s, "<text x=\"{l}\" y=\"18\">{}</text>", escape(&self.title));
        // Value axis: a grid line, a tick and a label at every tick; 0 darker when asked.
        for (v, label) in &self.y.ticks {
            let yy = self.py(*v);
            let zero = self.y.zero_line && v.abs() <= (self.y.hi - self.y.lo) * 1e-9;
            let stroke = if zero { "#000" } else { "#ddd" };
            let _ = writeln!(
                s,
                "<line x1=\"{l}\" y1=\"{yy:.1}\" x2=\"{r:.1}\" y2=\"{yy:.1}\" stroke=\"{stroke}\"/>"
            );
            let _ = writeln!(
                s,
                "<line class=\"ytick\" x1=\"{:.1}\" y1=\"{yy:.1}\" x2=\"{l}\" y2=\"{yy:.1}\" stroke=\"#000\"/>",
                l - 5.0
            );
            let _ = writeln!(
                s,
                "<text class=\"ylabel\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                l - 8.0,
                yy + 4.0,
                escape(label)
            );
        }
        let _ = writeln!(
            s,
            "<line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{base:.1}\" stroke=\"#000\"/>"
        );
        let _ = writeln!(
            s,
            "<line x1=\"{l}\" y1=\"{base:.1}\" x2=\"{r:.1}\" y2=\"{base:.1}\" stroke=\"#000\"/>"
        );
        if !self.y_name.is_empty() {
            let mid = t + self.plot_height / 2.0;
            let _ = writeln!(
                s,
                "<text x=\"14\" y=\"{mid:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {mid:.1})\">{}</text>",
                escape(&self.y_name)
            );
        }
        // Step axis: a tick and a label at every tick.
        for (v, label) in &self.x.ticks {
            let xx = self.px(*v);
            let _ = writeln!(
                s,
                "<line x1=\"{xx:.1}\" y1=\"{base:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#000\"/>",
                base + 5.0
            );
            let _ = writeln!(
                s,
                "<text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                base + 18.0,
                escape(label)
            );
        }
        if !self.x_name.is_empty() {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                (l + r) / 2.0,
                base + 34.0,
                escape(&self.x_name)
            );
        }
        for line in &self.series {
            self.draw(&mut s, line);
        }
        for (i, line) in self.series.iter().enumerate() {
            let y = base + self.bottom + ROW * (i as f64 + 0.5);
            let _ = writeln!(
                s,
                "<rect x=\"{l}\" y=\"{:.1}\" width=\"12\" height=\"4\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\">{}</text>",
                y - 4.0,
                line.colour,
                l + 18.0,
                y,
                line.colour,
                escape(&line.legend)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    fn draw(&self, s: &mut String, line: &Series) {
        let colour = line.colour;
        if !line.band.is_empty() {
            let upper = line
                .band
                .iter()
                .map(|&(x, _, hi)| format!("{:.1},{:.1}", self.px(x), self.py(hi)));
            let lower = line
                .band
                .iter()
                .rev()
                .map(|&(x, lo, _)| format!("{:.1},{:.1}", self.px(x), self.py(lo)));
            let points: Vec<String> = upper.chain(lower).collect();
            let _ = writeln!(
                s,
                "<polygon points=\"{}\" fill=\"{colour}\" fill-opacity=\"0.15\" stroke=\"none\"/>",
                points.join(" ")
            );
        }
        if line.points.is_empty() {
            return;
        }
        let points: Vec<String> = line
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            points.join(" ")
        );
    }
}

/// `text` safe inside an SVG (XML) element or attribute.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" tick step (1, 2 or 5 × 10^k) that cuts `span` into at most `max_ticks` steps.
pub fn nice_step(span: f64, max_ticks: usize) -> f64 {
    let raw = (span / max_ticks.max(1) as f64).max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&st| st >= raw - 1e-12)
        .unwrap_or(10.0 * mag)
}

/// A value axis that holds `[lo, hi]` (and 0): ends on multiples of a nice step, at most
/// `max_ticks` steps. Returns `(axis_lo, axis_hi, step)`.
pub fn nice_axis(lo: f64, hi: f64, max_ticks: usize) -> (f64, f64, f64) {
    let (mut lo, mut hi) = (lo.min(0.0), hi.max(0.0));
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (-50.0, 50.0);
    }
    if hi - lo < 1e-9 {
        (lo, hi) = (lo - 10.0, hi + 10.0);
    }
    // Rounding the ends out can add a step: widen until the rounded range fits the tick budget.
    let mut step = nice_step(hi - lo, max_ticks);
    loop {
        let (a, b) = ((lo / step).floor() * step, (hi / step).ceil() * step);
        if ((b - a) / step).round() as usize <= max_ticks {
            return (a + 0.0, b + 0.0, step);
        }
        step = nice_step(step * 1.0001 * max_ticks as f64, max_ticks);
    }
}

/// `+50`, `-12.5`, `0`: as many decimals as the step needs, signed.
pub fn tick_label(v: f64, step: f64) -> String {
    // The fewest decimals that write the step exactly (0.25 → 2, 0.5 → 1, 20 → 0).
    let decimals = (0..6)
        .find(|&d| {
            let x = step * 10f64.powi(d);
            (x - x.round()).abs() < 1e-6
        })
        .unwrap_or(6) as usize;
    let v = v + 0.0;
    if v.abs() < step * 1e-6 {
        "0".into()
    } else {
        format!("{v:+.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_steps_are_nice_and_hold_the_data() {
        assert_eq!(nice_step(100.0, 5), 20.0);
        assert_eq!(nice_step(7.0, 6), 2.0);
        assert_eq!(nice_step(0.9, 10), 0.1);
        // The reported case: data up to +120 gets an axis to +120 or more, not ±50.
        let (lo, hi, step) = nice_axis(-13.0, 121.0, 8);
        assert_eq!((lo, hi, step), (-20.0, 140.0, 20.0));
        // 0 is always on the axis, ends are multiples of the step, at most 8 steps.
        for (a, b) in [
            (3.0, 9.0),
            (-700.0, -650.0),
            (-0.4, 0.3),
            (-1234.0, 5678.0),
            (0.0, 0.0),
        ] {
            let (lo, hi, step) = nice_axis(a, b, 8);
            assert!(lo <= a.min(0.0) && hi >= b.max(0.0), "{a} {b}: {lo} {hi}");
            assert!(
                ((hi - lo) / step).round() <= 8.0,
                "{a} {b}: {lo} {hi} {step}"
            );
            assert!((lo / step - (lo / step).round()).abs() < 1e-9);
        }
        assert_eq!(tick_label(40.0, 20.0), "+40");
        assert_eq!(tick_label(-0.5, 0.25), "-0.50");
        assert_eq!(tick_label(0.0, 20.0), "0");
    }

    #[test]
    fn a_chart_draws_its_lines_bands_ticks_and_escaped_legend() {
        let mut c = Chart::new(
            "A & B",
            720.0,
            300.0,
            Axis::counts(4.0, 5),
            Axis::nice(-10.0, 30.0, 4),
        );
        c.series.push(Series {
            legend: "b<c".into(),
            colour: PALETTE[0],
            points: vec![(0.0, 0.0), (4.0, 20.0)],
            band: vec![(0.0, -10.0, 10.0), (4.0, 10.0, 30.0)],
        });
        let s = c.svg();
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert_eq!(s.matches("<polyline").count(), 1);
        assert_eq!(s.matches("<polygon").count(), 1);
        assert!(
            s.contains(">A &amp; B</text>") && s.contains(">b&lt;c</text>"),
            "{s}"
        );
        // The axis is -10..30 in steps of 10: 0 at 30 + 300 × 30/40 = 255, 20 at 105.
        let labels = s.matches("class=\"ylabel\"").count();
        assert_eq!(labels, s.matches("class=\"ytick\"").count());
        assert_eq!(labels, 5);
        assert!(s.contains("points=\"60.0,255.0 700.0,105.0\""), "{s}");
        assert_eq!(c.height(), 30.0 + 300.0 + 40.0 + 18.0 + 10.0);
    }
}
