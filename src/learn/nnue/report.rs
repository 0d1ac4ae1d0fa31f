//! What the trainer reports: a line per epoch, the loss table (`OUT.loss.tsv`) and its plot
//! (`OUT.loss.svg`).

use std::path::{Path, PathBuf};

/// The losses of a net over a sample set.
#[derive(Clone, Copy, Debug, Default)]
pub struct Losses {
    /// Cross-entropy against the mixed target (what is minimised).
    pub mixed: f64,
    /// Cross-entropy against the game's result alone.
    pub result: f64,
    /// Share of decided games whose winner the evaluation's sign picks.
    pub winner: f64,
}

/// One epoch's figures. Epoch 0 is the initial net, its training loss over the whole set;
/// later epochs' training loss is the mean over the epoch's batches as they were trained
/// (a second pass would cost a third of the training time).
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    pub epoch: usize,
    pub train: f64,
    pub valid: Option<Losses>,
    pub seconds: f64,
    pub samples_per_second: f64,
}

pub(super) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

pub(super) fn epoch_line(e: &Epoch) -> String {
    let mut line = format!("epoch {}: train loss {:.5}", e.epoch, e.train);
    if let Some(v) = e.valid {
        line += &format!(
            "; held out {:.5} (result {:.5}, winner by sign {:.1} %)",
            v.mixed,
            v.result,
            v.winner * 100.0
        );
    }
    if e.epoch > 0 {
        line += &format!(
            "; {:.1} s, {:.0} samples/s",
            e.seconds, e.samples_per_second
        );
    }
    line
}

/// The loss table: one line per epoch.
pub(super) fn loss_tsv(epochs: &[Epoch]) -> String {
    let mut s = String::from("epoch\ttrain\tvalidation\tvalidation_result\tseconds\n");
    for e in epochs {
        let (v, r) = e.valid.map_or((String::new(), String::new()), |v| {
            (format!("{:.6}", v.mixed), format!("{:.6}", v.result))
        });
        s += &format!("{}\t{:.6}\t{v}\t{r}\t{:.1}\n", e.epoch, e.train, e.seconds);
    }
    s
}

/// A line of the plot: its name, colour and (epoch, loss) points.
pub(super) type Series<'a> = (&'a str, &'a str, Vec<(usize, f64)>);

/// The losses by epoch as an SVG line chart (training and held out), written by hand: a plot
/// library would be the tree's heaviest dependency for one picture.
pub(super) fn loss_svg(epochs: &[Epoch], title: &str) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 70.0, 20.0, 40.0, 50.0);
    let series: [Series; 2] = [
        (
            "training",
            "#1f77b4",
            epochs.iter().map(|e| (e.epoch, e.train)).collect(),
        ),
        (
            "held out",
            "#d62728",
            epochs
                .iter()
                .filter_map(|e| e.valid.map(|v| (e.epoch, v.mixed)))
                .collect(),
        ),
    ];
    let all = series.iter().flat_map(|s| s.2.iter().map(|p| p.1));
    let (mut lo, mut hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if hi - lo < 1e-6 {
        (lo, hi) = (lo - 0.01, hi + 0.01);
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let last = epochs.last().map_or(1, |e| e.epoch).max(1) as f64;
    let x = |e: usize| left + (w - left - right) * e as f64 / last;
    let y = |v: f64| top + (h - top - bottom) * (hi - v) / (hi - lo);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{title}: loss by epoch</text>\n\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n",
        w / 2.0,
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for i in 0..=4 {
        let v = lo + (hi - lo) * f64::from(i) / 4.0;
        s += &format!(
            "<line x1=\"{}\" y1=\"{yy:.1}\" x2=\"{}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.4}</text>\n",
            left,
            w - right,
            left - 6.0,
            y(v) + 4.0,
            yy = y(v)
        );
    }
    let tick = (epochs.len() / 10).max(1);
    for e in epochs.iter().step_by(tick) {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            x(e.epoch),
            h - bottom + 18.0,
            e.epoch
        );
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch</text>\n",
        (left + w - right) / 2.0,
        h - 10.0
    );
    for (n, (name, colour, points)) in series.iter().enumerate() {
        if points.is_empty() {
            continue;
        }
        let path: Vec<String> = points
            .iter()
            .map(|&(e, v)| format!("{:.1},{:.1}", x(e), y(v)))
            .collect();
        s += &format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n",
            path.join(" ")
        );
        let ly = top + 8.0 + 18.0 * n as f64;
        s += &format!(
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\"/>\
             <text x=\"{}\" y=\"{}\">{name}</text>\n",
            w - right - 120.0,
            w - right - 95.0,
            w - right - 90.0,
            ly + 4.0
        );
    }
    s + "</svg>\n"
}
