//! The training loop: epochs of shuffled batches, the held-out loss after each, and the best
//! net written as it is found.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::adam::{AdamStep, Touched};
use super::data::{load, Samples};
use super::net::{FloatNet, Work, NNUE2SCORE};
use super::report::{epoch_line, loss_svg, loss_tsv, with_suffix, Epoch, Losses};
use crate::book::SplitMix64;
use crate::eval::nnue::{features, Arch, Network, HALFKP_256};
use crate::learn::LearnError;
use crate::shogi::Position;

/// What [`train`] does.
#[derive(Clone, Debug)]
pub struct Options {
    pub arch: Arch,
    pub epochs: usize,
    pub batch: usize,
    /// Adam's step size.
    pub lr: f32,
    /// The step size is multiplied by this after each epoch.
    pub lr_decay: f32,
    /// Step size of the transformer's per-king rows relative to `lr`. Adam moves a row a
    /// batch touched once as far as one every batch touches, and most (king, piece, square)
    /// rows are touched rarely: at full rate they learn their few positions by heart.
    pub king_lr: f32,
    /// Weight of the search score in the target; the rest goes to the game's result.
    pub lambda: f32,
    /// Win-rate scale: `σ(eval / scale)` (the linear learner's 600).
    pub scale: f32,
    /// Every `validation`-th block of 200 lines is held out (0: none).
    pub validation: usize,
    /// Hold out every line of this file instead, and train on every line of the data files.
    pub held_out: Option<PathBuf>,
    /// Initial weights and the order of the samples.
    pub seed: u64,
    /// Also train on each training position mirrored left to right (files 1–9 swapped):
    /// shogi's rules and the start position are symmetric that way, so the mirror is as good a
    /// sample as the original, and the data count doubles for nothing but time.
    pub mirror: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            arch: HALFKP_256,
            // The best of the runs in the journal (2026-12-01, issue 52 item 4): on 200,000
            // positions a higher rate or a slower decay overfits after an epoch or two.
            epochs: 4,
            batch: 1024,
            lr: 3e-4,
            lr_decay: 0.7,
            king_lr: 0.02,
            lambda: 0.7,
            scale: 600.0,
            validation: 20,
            held_out: None,
            seed: 1,
            mirror: true,
        }
    }
}

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

pub(super) fn cross_entropy(p: f32, t: f32) -> f64 {
    let p = f64::from(p).clamp(1e-9, 1.0 - 1e-9);
    let t = f64::from(t);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

pub(super) fn target(o: &Options, s: &Samples, k: usize) -> f32 {
    o.lambda * sigmoid(s.score[k] / o.scale) + (1.0 - o.lambda) * s.result[k]
}

pub(super) fn losses(net: &FloatNet, s: &Samples, o: &Options) -> Losses {
    let mut w = Work::new(net.arch);
    let (mut mixed, mut result, mut right, mut decided) = (0.0, 0.0, 0usize, 0usize);
    for k in 0..s.len() {
        let eval = NNUE2SCORE * net.forward(s.features(k), &mut w);
        let p = sigmoid(eval / o.scale);
        mixed += cross_entropy(p, target(o, s, k));
        result += cross_entropy(p, s.result[k]);
        if s.result[k] != 0.5 {
            decided += 1;
            right += usize::from((eval > 0.0) == (s.result[k] > 0.5));
        }
    }
    let n = s.len().max(1) as f64;
    Losses {
        mixed: mixed / n,
        result: result / n,
        winner: right as f64 / decided.max(1) as f64,
    }
}

/// What [`train`] found.
pub struct Outcome {
    pub net: FloatNet,
    pub epochs: Vec<Epoch>,
    pub train_positions: usize,
    pub valid_positions: usize,
    /// Mean |float − quantized| evaluation of the written net over (up to 20,000 of) the
    /// held-out positions, in evaluation units.
    pub quantization_error: Option<f64>,
    /// The epoch whose net was written (the lowest held-out loss; the last without one).
    pub best_epoch: usize,
}

/// Trains a net on the data files and writes the best one (by held-out loss) to `out` after
/// each epoch that improves it, with the loss table `out.loss.tsv` and its plot
/// `out.loss.svg`; `report` gets a line per epoch.
pub fn train(
    files: &[PathBuf],
    o: &Options,
    out: &Path,
    report: &mut dyn FnMut(&str),
) -> Result<Outcome, LearnError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LearnError::Io { path, source }
    };
    let started = Instant::now();
    let (train_set, valid) = crate::learn::split(
        files,
        o.validation,
        o.held_out.as_deref(),
        |f: &[PathBuf], v| load(f, v, o.mirror),
    )?;
    if train_set.len() == 0 {
        return Err(LearnError::NoPositions);
    }
    report(&format!(
        "positions: {} training, {} held out; read in {:.1} s",
        train_set.len(),
        valid.len(),
        started.elapsed().as_secs_f64()
    ));
    let mut net = FloatNet::new(o.arch, o.seed);
    let mut work = Work::new(o.arch);
    let mut rows = Touched::new(features::DIMENSIONS);
    let mut prows = Touched::new(features::FE_END);
    let mut rng = SplitMix64::new(o.seed ^ 0x5EED_DA7A);
    let mut order: Vec<u32> = (0..train_set.len() as u32).collect();
    let has_valid = valid.len() > 0;
    let mut epochs = vec![Epoch {
        epoch: 0,
        train: losses(&net, &train_set, o).mixed,
        valid: has_valid.then(|| losses(&net, &valid, o)),
        seconds: 0.0,
        samples_per_second: 0.0,
    }];
    report(&epoch_line(&epochs[0]));
    let mut best = (f64::INFINITY, 0usize);
    let mut quantization_error = None;
    let mut t = 0i32;
    let mut lr = o.lr;
    // dL/dy: the cross-entropy's (p − t) times d(eval / scale)/dy.
    let dscale = NNUE2SCORE / o.scale;
    for epoch in 1..=o.epochs {
        let clock = Instant::now();
        // Fisher–Yates from the seed: the same data and seed train the same net.
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        let mut sum = 0.0;
        for batch in order.chunks(o.batch.max(1)) {
            for &k in batch {
                let k = k as usize;
                let f = train_set.features(k);
                let y = net.forward(f, &mut work);
                let p = sigmoid(y * dscale);
                let tgt = target(o, &train_set, k);
                sum += cross_entropy(p, tgt);
                net.backward(f, (p - tgt) * dscale, &mut work, &mut rows, &mut prows);
            }
            t += 1;
            let (all, king) = (AdamStep::new(lr, t), AdamStep::new(lr * o.king_lr, t));
            net.step(&all, &king, batch.len(), &rows, &prows);
            rows.next_batch();
            prows.next_batch();
        }
        let seconds = clock.elapsed().as_secs_f64();
        lr *= o.lr_decay;
        let e = Epoch {
            epoch,
            train: sum / train_set.len() as f64,
            valid: has_valid.then(|| losses(&net, &valid, o)),
            seconds,
            samples_per_second: train_set.len() as f64 / seconds,
        };
        report(&epoch_line(&e));
        epochs.push(e);
        let score = e.valid.map_or(-(epoch as f64), |v| v.mixed);
        if score < best.0 {
            let q = net.quantize();
            quantization_error = has_valid.then(|| mean_abs_difference(&net, &q, &valid.sfen));
            if let Some(d) = quantization_error {
                report(&format!(
                    "written: epoch {epoch}; float vs quantized on the held-out positions: \
                     mean |difference| {d:.2}"
                ));
            }
            best = (score, epoch);
            std::fs::write(out, q.to_bytes()).map_err(io(out))?;
        }
        let tsv = with_suffix(out, ".loss.tsv");
        std::fs::write(&tsv, loss_tsv(&epochs)).map_err(io(&tsv))?;
        let svg = with_suffix(out, ".loss.svg");
        std::fs::write(&svg, loss_svg(&epochs, &o.arch.name())).map_err(io(&svg))?;
    }
    Ok(Outcome {
        net,
        epochs,
        train_positions: train_set.len(),
        valid_positions: valid.len(),
        quantization_error,
        best_epoch: best.1,
    })
}

/// Mean |float − quantized| evaluation over up to 20,000 of `sfens`.
pub fn mean_abs_difference(net: &FloatNet, q: &Network, sfens: &[String]) -> f64 {
    let step = sfens.len().div_ceil(20_000).max(1);
    let (mut sum, mut n) = (0.0, 0usize);
    for s in sfens.iter().step_by(step) {
        let pos = Position::from_sfen(s).expect("held-out SFENs parsed when read");
        sum += (f64::from(net.evaluate(&pos)) - f64::from(q.evaluate(&pos))).abs();
        n += 1;
    }
    sum / n.max(1) as f64
}
