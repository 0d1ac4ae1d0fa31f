//! `gougi learn train`: the linear evaluation's [`Weights`] fitted to `gougi learn gen`'s lines
//! by logistic regression (Adam): the predicted win rate `σ(eval / K)` is pulled towards
//! `λ·σ(score / K) + (1 − λ)·result`, the search score as a teacher and the game's result as
//! the truth (elmo's mixture). The learner sees each king-piece weight's shared factor too
//! ([`fold_factors`] adds it back before the weights are written).

use std::io::BufRead;
use std::path::PathBuf;

use super::{split, LearnError, Rng};
use crate::eval::linear::{features, fold_factors, king_range, NUM_FACTORS, NUM_WEIGHTS};
use crate::eval::Weights;
use crate::shogi::Position;

/// What [`train`] does.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub epochs: usize,
    /// Weight of the search score in the target (1 − λ goes to the result).
    pub lambda: f64,
    /// Adam step size, in evaluation units.
    pub lr: f64,
    pub batch: usize,
    /// Win-rate scale: `σ(eval / scale)`.
    pub scale: f64,
    /// Pull of each king-dependent weight back towards its starting value, per step: they are
    /// the many weights with few samples each (their shared factors are not pulled).
    pub decay: f64,
    /// Learning rate of the king-dependent weights relative to `lr`: Adam moves a weight seen once
    /// as far as one seen in every batch, and most of these are seen rarely.
    pub kp_lr: f64,
    /// Every `validation`-th game is held out (0: none).
    pub validation: usize,
    /// Hold out every line of this file instead, and train on every line of the data files:
    /// one fixed set to compare runs on different data (see [`split`]).
    pub held_out: Option<PathBuf>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 2,
            lambda: 1.0,
            lr: 1.0,
            batch: 4096,
            scale: 600.0,
            decay: 1e-5,
            kp_lr: 1.0,
            validation: 20,
            held_out: None,
        }
    }
}

/// The training set in memory: every position's features, packed.
struct Samples {
    /// Feature `i` with a negative sign is stored as `i | NEGATIVE`.
    feats: Vec<u32>,
    /// `feats[start[k]..start[k + 1]]` are sample `k`'s features.
    start: Vec<u32>,
    score: Vec<f32>,
    result: Vec<f32>,
}

impl Samples {
    fn new() -> Samples {
        Samples {
            feats: Vec::new(),
            start: vec![0],
            score: Vec::new(),
            result: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.score.len()
    }

    fn push(&mut self, f: &[(u32, i8)], score: f32, result: f32) {
        self.feats
            .extend(f.iter().map(|&(i, s)| i | if s < 0 { NEGATIVE } else { 0 }));
        self.start.push(self.feats.len() as u32);
        self.score.push(score);
        self.result.push(result);
    }

    fn features(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.feats[self.start[k] as usize..self.start[k + 1] as usize]
            .iter()
            .map(|&v| {
                (
                    (v & !NEGATIVE) as usize,
                    if v & NEGATIVE != 0 { -1.0 } else { 1.0 },
                )
            })
    }
}

const NEGATIVE: u32 = 1 << 31;
/// The learner's parameters: the weights, then the factors (see [`fold_factors`]).
const NUM_PARAMS: usize = NUM_WEIGHTS + NUM_FACTORS;
const _: () = assert!(NUM_PARAMS < NEGATIVE as usize);

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Reads data files: `(training, validation)`. Every `validation`-th block of 200 lines is
/// held out: a generator writes a game's positions together, so held-out positions mostly
/// come from games not trained on.
fn load(files: &[PathBuf], validation: usize) -> Result<(Samples, Samples), LearnError> {
    let mut train = Samples::new();
    let mut valid = Samples::new();
    let mut f = Vec::with_capacity(160);
    let mut line_no = 0usize;
    for path in files {
        let io = |source| LearnError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            let bad = || LearnError::Line {
                path: path.clone(),
                line: n + 1,
                sfen: None,
            };
            let mut fields = line.split('\t');
            let (Some(sfen), Some(score), Some(result)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad());
            };
            let pos = Position::from_sfen(sfen).map_err(|e| LearnError::Line {
                path: path.clone(),
                line: n + 1,
                sfen: Some(e),
            })?;
            let score: f32 = score.trim().parse().map_err(|_| bad())?;
            let result: f32 = match result.trim() {
                "1" => 1.0,
                "0" => 0.5,
                "-1" => 0.0,
                _ => return Err(bad()),
            };
            f.clear();
            features(&pos, &mut f);
            let held_out = validation > 0 && (line_no / 200) % validation == validation - 1;
            if held_out { &mut valid } else { &mut train }.push(&f, score, result);
            line_no += 1;
        }
    }
    Ok((train, valid))
}

/// Losses of `w` on `s`: (cross-entropy against the mixed target, against the result alone,
/// share of decided games whose winner the evaluation's sign picks).
fn losses(w: &[f64], s: &Samples, o: &TrainOptions) -> (f64, f64, f64) {
    let (mut mixed, mut res, mut right, mut decided) = (0.0, 0.0, 0usize, 0usize);
    let ce = |p: f64, t: f64| {
        let p = p.clamp(1e-9, 1.0 - 1e-9);
        -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
    };
    for k in 0..s.len() {
        let v: f64 = s.features(k).map(|(i, sg)| sg * w[i]).sum();
        let p = sigmoid(v / o.scale);
        let r = s.result[k] as f64;
        let t = o.lambda * sigmoid(s.score[k] as f64 / o.scale) + (1.0 - o.lambda) * r;
        mixed += ce(p, t);
        res += ce(p, r);
        if r != 0.5 {
            decided += 1;
            right += ((v > 0.0) == (r > 0.5)) as usize;
        }
    }
    let n = s.len().max(1) as f64;
    (mixed / n, res / n, right as f64 / decided.max(1) as f64)
}

/// Fits weights to the data files, starting from `init`; `report` gets one line per epoch.
pub fn train(
    files: &[PathBuf],
    init: &Weights,
    o: &TrainOptions,
    report: &mut dyn FnMut(&str),
) -> Result<Weights, LearnError> {
    let (train, valid) = split(files, o.validation, o.held_out.as_deref(), load)?;
    if train.len() == 0 {
        return Err(LearnError::NoPositions);
    }
    report(&format!(
        "positions: {} training, {} held out; {NUM_WEIGHTS} weights, {NUM_FACTORS} factors",
        train.len(),
        valid.len(),
    ));
    // Parameters: the starting weights, and factors at zero (the weights already hold
    // whatever the factors would).
    let start: Vec<f64> = init.w.iter().map(|&v| v as f64).collect();
    let mut w = start.clone();
    w.resize(NUM_PARAMS, 0.0);
    let (mut m, mut v2) = (vec![0.0; NUM_PARAMS], vec![0.0; NUM_PARAMS]);
    let mut grad = vec![0.0; NUM_PARAMS];
    let kp = king_range();
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let mut step = 0i32;
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = Rng(0x5EED);
    let show = |w: &[f64], epoch: usize, report: &mut dyn FnMut(&str)| {
        let (tm, tr, _) = losses(w, &train, o);
        let (vm, vr, vacc) = losses(w, &valid, o);
        report(&format!(
            "epoch {epoch}: train loss {tm:.5} (result {tr:.5}); held out {vm:.5} (result {vr:.5}, winner by sign {:.1} %)",
            vacc * 100.0
        ));
    };
    show(&w, 0, report);
    for epoch in 1..=o.epochs {
        // Fisher–Yates with the seeded generator: a fixed data set trains the same way.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let lr = o.lr * if epoch > o.epochs * 3 / 4 { 0.3 } else { 1.0 };
        for batch in order.chunks(o.batch) {
            grad.iter_mut().for_each(|g| *g = 0.0);
            for &k in batch {
                let v: f64 = train.features(k).map(|(i, sg)| sg * w[i]).sum();
                let p = sigmoid(v / o.scale);
                let t = o.lambda * sigmoid(train.score[k] as f64 / o.scale)
                    + (1.0 - o.lambda) * train.result[k] as f64;
                let d = (p - t) / o.scale;
                for (i, sg) in train.features(k) {
                    grad[i] += sg * d;
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            let n = batch.len() as f64;
            for i in 0..NUM_PARAMS {
                let g = grad[i] / n;
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v2[i] = b2 * v2[i] + (1.0 - b2) * g * g;
                if g != 0.0 || m[i] != 0.0 {
                    let rate = if kp.contains(&i) { lr * o.kp_lr } else { lr };
                    w[i] -= rate * (m[i] / c1) / ((v2[i] / c2).sqrt() + eps);
                }
            }
            for i in kp.clone() {
                w[i] -= (w[i] - start[i]) * o.decay;
            }
        }
        show(&w, epoch, report);
    }
    Ok(Weights {
        w: fold_factors(&w)
            .iter()
            .map(|&v| v.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::{generate, GenOptions};

    /// A few games at a tiny budget: positions are written, parse back, are quiet, and carry
    /// a result; training on them lowers the training loss.
    #[test]
    fn generate_then_train_round_trip() {
        let dir = std::env::temp_dir().join(format!("gougi-learn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("data.txt");
        let _ = std::fs::remove_file(&data);
        let opts = GenOptions {
            games: 4,
            nodes: 300,
            threads: 2,
            max_plies: 60,
            hash_mb: 1,
            ..GenOptions::default()
        };
        let summary = generate(&opts, Weights::embedded(), &data, &|_| {}).unwrap();
        assert_eq!(summary.games, 4);
        assert!(summary.positions > 20, "{summary:?}");
        let text = std::fs::read_to_string(&data).unwrap();
        assert_eq!(text.lines().count(), summary.positions);
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let pos = Position::from_sfen(f[0]).unwrap();
            assert!(!pos.in_check(), "{line}");
            assert!(f[1].parse::<i32>().unwrap().abs() <= opts.resign);
            assert!(["1", "0", "-1"].contains(&f[2]));
        }
        let o = TrainOptions {
            epochs: 3,
            validation: 0,
            lr: 2.0,
            batch: 64,
            ..TrainOptions::default()
        };
        let mut lines = Vec::new();
        train(
            std::slice::from_ref(&data),
            Weights::embedded(),
            &o,
            &mut |l| lines.push(l.to_string()),
        )
        .unwrap();
        let loss = |l: &str| -> f64 {
            l.split("train loss ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(loss(&lines[4]) < loss(&lines[1]), "{lines:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_data_names_file_and_line() {
        let dir = std::env::temp_dir().join(format!("gougi-learn-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("bad.txt");
        std::fs::write(
            &data,
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\t0\t0\nnonsense\n",
        )
        .unwrap();
        let err = match train(
            std::slice::from_ref(&data),
            Weights::embedded(),
            &TrainOptions::default(),
            &mut |_| {},
        ) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted bad data"),
        };
        assert!(err.contains("bad.txt:2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
