//! What the trainer reports: a line per epoch, the loss table (`OUT.loss.tsv`) and its plot
//! (`OUT.loss.svg`).

use std::path::{Path, PathBuf};

use crate::plot::{Axis, Chart, Series, PALETTE};

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

/// The losses by epoch as a line chart (training and held out), drawn by [`crate::plot`]; the
/// loss axis spans the losses seen, not 0, so that the curves' shape shows.
pub(super) fn loss_svg(epochs: &[Epoch], title: &str) -> String {
    let train: Vec<(f64, f64)> = epochs.iter().map(|e| (e.epoch as f64, e.train)).collect();
    let held: Vec<(f64, f64)> = epochs
        .iter()
        .filter_map(|e| e.valid.map(|v| (e.epoch as f64, v.mixed)))
        .collect();
    let all = train.iter().chain(&held).map(|p| p.1);
    let (mut lo, mut hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-6 {
        (lo, hi) = (lo - 0.01, hi + 0.01);
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let y_ticks = (0..=4)
        .map(|i| {
            let v = lo + (hi - lo) * f64::from(i) / 4.0;
            (v, format!("{v:.4}"))
        })
        .collect();
    let last = epochs.last().map_or(1, |e| e.epoch).max(1);
    let tick = (epochs.len() / 10).max(1);
    let x_ticks = epochs
        .iter()
        .step_by(tick)
        .map(|e| (e.epoch as f64, e.epoch.to_string()))
        .collect();
    let mut chart = Chart::new(
        format!("{title}: loss by epoch"),
        640.0,
        310.0,
        Axis::with_ticks(0.0, last as f64, x_ticks),
        Axis::with_ticks(lo, hi, y_ticks),
    );
    chart.left = 70.0;
    chart.x_name = "epoch".into();
    for (legend, colour, points) in [
        ("training", PALETTE[0], train),
        ("held out", PALETTE[1], held),
    ] {
        if !points.is_empty() {
            chart.series.push(Series {
                legend: legend.into(),
                colour,
                points,
                band: Vec::new(),
            });
        }
    }
    chart.svg()
}
