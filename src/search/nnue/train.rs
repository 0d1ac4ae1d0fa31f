//! Training a halfKP net from `gougi learn gen`'s self-play lines (`SFEN <tab> score (Black's
//! view) <tab> result`), in floats, and quantizing it into YaneuraOu's file format.
//!
//! The float net is the integer net of [`super`] with its scales divided out, and it computes
//! with its weights and hidden outputs rounded as the file rounds them (the gradient moving the
//! unrounded weights), so the file written evaluates as the float net did, to the file's final
//! truncating division:
//!
//! - the transformer: `acc = b + Σ (W[f] + P[f mod FE_END])` over the 38 active features of a
//!   perspective, clipped to `0..=1` (the file's `0..=127`, weights and biases × 127 into
//!   `i16`). `P` is a virtual "piece on square, whatever the king" feature shared by the 81
//!   king squares: a few hundred thousand positions see each (king, piece, square) triple
//!   rarely, but each (piece, square) often, so material and piece-square values are learnt
//!   once instead of 81 times. `P` is folded into `W` when the net is written (the file has
//!   no room for it and needs none: the sum is the same).
//! - two hidden layers: `clamp(b + Σ w x, 0, 1)`; weights × 64 into `i8` (hence kept within
//!   ±127/64 while training), biases × 127 × 64 into `i32`, plus half a step so that the file's
//!   `>> 6` rounds rather than floors;
//! - the output `y = b + Σ w h`, with the evaluation `600 y`: weights × 600 × 16 / 127 into
//!   `i8` (kept within ±127² / (600 × 16)), bias × 600 × 16, the file's sum divided by
//!   `FV_SCALE` = 16 giving the evaluation.
//!
//! The loss is the linear learner's ([`crate::search::learn`]): the cross-entropy between the
//! predicted win rate `σ(eval / 600)` and `λ σ(score / 600) + (1 − λ) result` (elmo's mixture),
//! so the net's units are the linear evaluation's (a pawn ≈ 90). Adam; the transformer's rows
//! are updated lazily, only those of the features a batch touched (a small share of the
//! 125,388), as a sparse Adam does. Each training position is also used mirrored left to
//! right; every 20th block of 200 lines is held out, and the net with the lowest held-out loss
//! is the one written.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{features, file, Arch, Network, FV_SCALE};
use crate::book::SplitMix64;
use crate::search::learn::LearnError;
use crate::shogi::{Color, Position};

/// The float net's output times this is the evaluation.
const NNUE2SCORE: f32 = 600.0;
/// Transformer weights and biases: `i16` at this scale; a clipped sum of 1 is the file's 127.
const FT_SCALE: f32 = 127.0;
/// Hidden weights: `i8` at this scale (the 6-bit shift).
const W_SCALE: f32 = 64.0;
/// The largest hidden weight that still fits an `i8` after scaling.
const HIDDEN_MAX: f32 = 127.0 / W_SCALE;
/// The output weights' scale: `600 × 16 / 127` (the output layer's input is 0..=127, its sum is
/// divided by 16).
const OUT_SCALE: f32 = NNUE2SCORE * FV_SCALE as f32 / 127.0;
const OUT_MAX: f32 = 127.0 / OUT_SCALE;
/// Features per perspective.
const N: usize = features::PIECES;

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
            arch: super::HALFKP_256,
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

/// Positions in memory: per sample, the side to move's 38 features then the other side's,
/// score and result from the side to move's view.
struct Samples {
    feats: Vec<u32>,
    score: Vec<f32>,
    /// 1 won, 0.5 drawn, 0 lost (the side to move).
    result: Vec<f32>,
    /// The SFENs, kept for the held-out set only (the quantized net is checked on them).
    sfen: Vec<String>,
}

impl Samples {
    fn new() -> Samples {
        Samples {
            feats: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
            sfen: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.score.len()
    }

    fn features(&self, k: usize) -> &[u32] {
        &self.feats[k * 2 * N..(k + 1) * 2 * N]
    }
}

/// The side to move's features then the other's, as [`Network::evaluate`] orders them.
fn push_features(pos: &Position, out: &mut Vec<u32>) {
    let stm = pos.side_to_move();
    for c in [stm, !stm] {
        features::for_each_active(features::FeatureSet::HalfKP, pos, c, |f| out.push(f as u32));
    }
}

/// Reads the data files: `(training, held out)`. Every `validation`-th block of 200 lines is
/// held out: the generator writes a game's positions together, so held-out positions mostly
/// come from games not trained on.
fn load(
    files: &[PathBuf],
    validation: usize,
    mirror: bool,
) -> Result<(Samples, Samples), LearnError> {
    let (mut train, mut valid) = (Samples::new(), Samples::new());
    let mut line_no = 0usize;
    for path in files {
        let io = |source| LearnError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            let bad = |sfen| LearnError::Line {
                path: path.clone(),
                line: n + 1,
                sfen,
            };
            let mut fields = line.split('\t');
            let (Some(sfen), Some(score), Some(result)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad(None));
            };
            let pos = Position::from_sfen(sfen).map_err(|e| bad(Some(e)))?;
            let score: f32 = score.trim().parse().map_err(|_| bad(None))?;
            let result: f32 = match result.trim() {
                "1" => 1.0,
                "0" => 0.5,
                "-1" => 0.0,
                _ => return Err(bad(None)),
            };
            if pos.king_square(Color::Black).is_none() || pos.king_square(Color::White).is_none() {
                return Err(bad(None));
            }
            let held_out = validation > 0 && (line_no / 200) % validation == validation - 1;
            line_no += 1;
            let s = if held_out { &mut valid } else { &mut train };
            let white = pos.side_to_move() == Color::White;
            let (score, result) = if white {
                (-score, 1.0 - result)
            } else {
                (score, result)
            };
            let mut add = |pos: &Position| {
                push_features(pos, &mut s.feats);
                s.score.push(score);
                s.result.push(result);
            };
            add(&pos);
            if held_out {
                s.sfen.push(sfen.to_owned());
            } else if mirror {
                let m = Position::from_sfen(&mirrored(sfen)).map_err(|e| bad(Some(e)))?;
                add(&m);
            }
        }
    }
    Ok((train, valid))
}

/// The SFEN with the board mirrored left to right (each rank's cells reversed); hands, side
/// to move and move number unchanged.
fn mirrored(sfen: &str) -> String {
    let (board, rest) = sfen.split_once(' ').unwrap_or((sfen, ""));
    let ranks: Vec<String> = board
        .split('/')
        .map(|rank| {
            // The rank's cells: `None` empty, `Some("+p")` or `Some("K")` a piece.
            let mut cells: Vec<Option<&str>> = Vec::with_capacity(9);
            let mut i = 0;
            while i < rank.len() {
                let c = rank.as_bytes()[i];
                if c.is_ascii_digit() {
                    cells.extend(std::iter::repeat_n(None, usize::from(c - b'0')));
                    i += 1;
                } else {
                    let n = if c == b'+' { 2 } else { 1 };
                    cells.push(rank.get(i..i + n));
                    i += n;
                }
            }
            let mut out = String::new();
            let mut empty = 0;
            for cell in cells.iter().rev() {
                match cell {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out += &empty.to_string();
                            empty = 0;
                        }
                        out += p;
                    }
                }
            }
            if empty > 0 {
                out += &empty.to_string();
            }
            out
        })
        .collect();
    format!("{} {rest}", ranks.join("/"))
}

/// One parameter tensor with Adam's state and its gradient.
struct Param {
    w: Vec<f32>,
    g: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Param {
    fn new(w: Vec<f32>) -> Param {
        let n = w.len();
        Param {
            w,
            g: vec![0.0; n],
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// Adam on `range`, the gradient scaled by `inv` (1 / batch) and then cleared; the weights
    /// clipped to `±max`.
    fn step(&mut self, range: std::ops::Range<usize>, a: &AdamStep, inv: f32, max: f32) {
        let (w, g) = (&mut self.w[range.clone()], &mut self.g[range.clone()]);
        let (m, v) = (&mut self.m[range.clone()], &mut self.v[range]);
        for (((w, g), m), v) in w.iter_mut().zip(g.iter_mut()).zip(m).zip(v) {
            let grad = *g * inv;
            *g = 0.0;
            *m = B1 * *m + (1.0 - B1) * grad;
            *v = B2 * *v + (1.0 - B2) * grad * grad;
            *w = (*w - a.rate * *m / (v.sqrt() + a.eps)).clamp(-max, max);
        }
    }

    fn step_all(&mut self, a: &AdamStep, inv: f32, max: f32) {
        self.step(0..self.w.len(), a, inv, max);
    }
}

const B1: f32 = 0.9;
const B2: f32 = 0.999;

/// This step's bias-corrected rate (`lr √(1 − β₂ᵗ) / (1 − β₁ᵗ)`) and ε scaled to match.
struct AdamStep {
    rate: f32,
    eps: f32,
}

impl AdamStep {
    fn new(lr: f32, t: i32) -> AdamStep {
        let c2 = (1.0 - B2.powi(t)).sqrt();
        AdamStep {
            rate: lr * c2 / (1.0 - B1.powi(t)),
            eps: 1e-8 * c2,
        }
    }
}

/// The rows of a feature-major table a batch touched: only they are stepped.
struct Touched {
    stamp: Vec<u32>,
    rows: Vec<u32>,
    batch: u32,
}

impl Touched {
    fn new(rows: usize) -> Touched {
        Touched {
            stamp: vec![0; rows],
            rows: Vec::new(),
            batch: 1,
        }
    }

    fn mark(&mut self, row: usize) {
        if self.stamp[row] != self.batch {
            self.stamp[row] = self.batch;
            self.rows.push(row as u32);
        }
    }

    fn next_batch(&mut self) {
        self.rows.clear();
        self.batch += 1;
    }
}

/// The float net being trained (see the module's description for the scales).
pub struct FloatNet {
    arch: Arch,
    /// `DIMENSIONS × half`, feature-major.
    ft_w: Param,
    /// The shared (piece, square) rows: `FE_END × half`.
    ft_p: Param,
    ft_b: Param,
    /// Input-major: `2 half × l1` (an input's `l1` weights together: the input is sparse).
    l1_w: Param,
    l1_b: Param,
    /// `l1 × l2`, input-major.
    l2_w: Param,
    l2_b: Param,
    out_w: Param,
    out_b: Param,
    /// The layers' weights on the file's grid, which the net computes with. A step of the
    /// file is coarse (1/64 of a hidden weight, about 8 evaluation units of an output weight
    /// at a full input), and several hundred rounded weights add up: a net trained unrounded
    /// lost tens of units when written. Computing with the rounded weights while the gradient
    /// moves the unrounded ones (a straight-through estimate) makes the written net the net
    /// trained. The transformer's rows are rounded as they are summed.
    l1_q: Vec<f32>,
    l2_q: Vec<f32>,
    out_q: Vec<f32>,
}

/// One sample's activations (forward) and gradients (backward).
struct Work {
    acc: Vec<f32>,
    x: Vec<f32>,
    z1: Vec<f32>,
    h1: Vec<f32>,
    z2: Vec<f32>,
    h2: Vec<f32>,
    gx: Vec<f32>,
    gz1: Vec<f32>,
    gz2: Vec<f32>,
}

impl Work {
    fn new(a: Arch) -> Work {
        Work {
            acc: vec![0.0; 2 * a.half],
            x: vec![0.0; 2 * a.half],
            z1: vec![0.0; a.l1],
            h1: vec![0.0; a.l1],
            z2: vec![0.0; a.l2],
            h2: vec![0.0; a.l2],
            gx: vec![0.0; 2 * a.half],
            gz1: vec![0.0; a.l1],
            gz2: vec![0.0; a.l2],
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// `x` rounded to an integer (ties to even) by adding and taking away 1.5 × 2²³, which leaves
/// no fraction bits: plain adds, which the transformer's loops vectorise (`f32::round` is a
/// call). Exact for |x| < 2²².
#[inline]
fn round(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC) - MAGIC
}

/// `w` on the grid of step `1 / scale`: as the file will hold it.
fn on_grid(w: f32, scale: f32) -> f32 {
    round(w * scale) / scale
}

/// The clipped ReLU's gradient gate: the output moves with its input only inside `0..1`.
fn inside(z: f32) -> bool {
    z > 0.0 && z < 1.0
}

impl FloatNet {
    /// Initial weights from `seed`. The transformer's own rows start at zero and the shared
    /// piece rows small and random: each perspective's 38 features then sum to about
    /// `0.5 ± 0.3`, inside the clipped ReLU's slope. Hidden layers: uniform in `±1/√fan-in`
    /// with biases 0.5, also mid-slope. The output starts small, so the first evaluations are
    /// near 0 and the loss, not the initialisation, sets the scale.
    pub fn new(arch: Arch, seed: u64) -> FloatNet {
        let mut rng = SplitMix64::new(seed);
        let mut uniform = |r: f32| -> f32 {
            let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            (2.0 * u - 1.0) * r
        };
        let h = arch.half;
        let piece_r = 0.3 / (N as f32).sqrt() * 3f32.sqrt();
        let ft_p = (0..features::FE_END * h)
            .map(|_| uniform(piece_r))
            .collect();
        let mut layer = |inputs: usize, outputs: usize| {
            let r = 1.0 / (inputs as f32).sqrt();
            let w: Vec<f32> = (0..inputs * outputs).map(|_| uniform(r)).collect();
            (Param::new(w), Param::new(vec![0.5; outputs]))
        };
        let (l1_w, l1_b) = layer(2 * h, arch.l1);
        let (l2_w, l2_b) = layer(arch.l1, arch.l2);
        let out_w = (0..arch.l2).map(|_| uniform(0.05)).collect();
        let mut net = FloatNet {
            arch,
            ft_w: Param::new(vec![0.0; features::DIMENSIONS * h]),
            ft_p: Param::new(ft_p),
            ft_b: Param::new(vec![0.5; h]),
            l1_w,
            l1_b,
            l2_w,
            l2_b,
            out_w: Param::new(out_w),
            out_b: Param::new(vec![0.0]),
            l1_q: Vec::new(),
            l2_q: Vec::new(),
            out_q: Vec::new(),
        };
        net.snap();
        net
    }

    /// The layers' weights on the file's grid (after every step).
    fn snap(&mut self) {
        let grid = |w: &[f32], scale: f32| w.iter().map(|&v| on_grid(v, scale)).collect();
        self.l1_q = grid(&self.l1_w.w, W_SCALE);
        self.l2_q = grid(&self.l2_w.w, W_SCALE);
        self.out_q = grid(&self.out_w.w, OUT_SCALE);
    }

    /// The output `y` (the evaluation is `600 y`) for features `f` (the side to move's 38,
    /// then the other's), leaving the activations in `w`.
    fn forward(&self, f: &[u32], w: &mut Work) -> f32 {
        let a = self.arch;
        let h = a.half;
        for side in 0..2 {
            let acc = &mut w.acc[side * h..(side + 1) * h];
            // In the file's units (× 127), each weight rounded as the file rounds it.
            for (s, b) in acc.iter_mut().zip(&self.ft_b.w) {
                *s = round(b * FT_SCALE);
            }
            for &i in &f[side * N..(side + 1) * N] {
                let i = i as usize;
                let p = i % features::FE_END;
                let row = &self.ft_w.w[i * h..(i + 1) * h];
                let prow = &self.ft_p.w[p * h..(p + 1) * h];
                for ((s, r), q) in acc.iter_mut().zip(row).zip(prow) {
                    *s += round((r + q) * FT_SCALE);
                }
            }
        }
        for (x, s) in w.x.iter_mut().zip(&w.acc) {
            *x = s.clamp(0.0, FT_SCALE) / FT_SCALE;
        }
        // The first layer input by input, skipping the zeros (about half the inputs).
        w.z1.copy_from_slice(&self.l1_b.w);
        for (j, &x) in w.x.iter().enumerate() {
            if x != 0.0 {
                let row = &self.l1_q[j * a.l1..(j + 1) * a.l1];
                for (z, r) in w.z1.iter_mut().zip(row) {
                    *z += x * r;
                }
            }
        }
        // The hidden outputs as the file's bytes (0..=127) see them.
        for (o, z) in w.h1.iter_mut().zip(&w.z1) {
            *o = round(z.clamp(0.0, 1.0) * 127.0) / 127.0;
        }
        w.z2.copy_from_slice(&self.l2_b.w);
        for (i, &x) in w.h1.iter().enumerate() {
            let row = &self.l2_q[i * a.l2..(i + 1) * a.l2];
            for (z, r) in w.z2.iter_mut().zip(row) {
                *z += x * r;
            }
        }
        for (o, z) in w.h2.iter_mut().zip(&w.z2) {
            *o = round(z.clamp(0.0, 1.0) * 127.0) / 127.0;
        }
        self.out_b.w[0]
            + self
                .out_q
                .iter()
                .zip(&w.h2)
                .map(|(a, b)| a * b)
                .sum::<f32>()
    }

    /// Adds to the gradients the sample's, given `dy` (the loss's derivative by the output)
    /// and the activations `forward` left in `w`; marks the transformer rows touched.
    fn backward(
        &mut self,
        f: &[u32],
        dy: f32,
        w: &mut Work,
        rows: &mut Touched,
        prows: &mut Touched,
    ) {
        let a = self.arch;
        let h = a.half;
        self.out_b.g[0] += dy;
        for (k, g) in self.out_w.g.iter_mut().enumerate() {
            *g += dy * w.h2[k];
            w.gz2[k] = if inside(w.z2[k]) {
                dy * self.out_q[k]
            } else {
                0.0
            };
        }
        for (g, d) in self.l2_b.g.iter_mut().zip(&w.gz2) {
            *g += d;
        }
        for i in 0..a.l1 {
            let row = i * a.l2..(i + 1) * a.l2;
            let x = w.h1[i];
            let mut back = 0.0;
            for ((g, r), d) in self.l2_w.g[row.clone()]
                .iter_mut()
                .zip(&self.l2_q[row])
                .zip(&w.gz2)
            {
                *g += x * d;
                back += r * d;
            }
            w.gz1[i] = if inside(w.z1[i]) { back } else { 0.0 };
        }
        for (g, d) in self.l1_b.g.iter_mut().zip(&w.gz1) {
            *g += d;
        }
        for j in 0..2 * h {
            let x = w.x[j];
            w.gx[j] = 0.0;
            if x == 0.0 {
                continue;
            }
            let row = j * a.l1..(j + 1) * a.l1;
            let mut back = 0.0;
            for ((g, r), d) in self.l1_w.g[row.clone()]
                .iter_mut()
                .zip(&self.l1_q[row])
                .zip(&w.gz1)
            {
                *g += x * d;
                back += r * d;
            }
            if x < 1.0 {
                w.gx[j] = back;
            }
        }
        for side in 0..2 {
            let gx = &w.gx[side * h..(side + 1) * h];
            for (g, d) in self.ft_b.g.iter_mut().zip(gx) {
                *g += d;
            }
            for &i in &f[side * N..(side + 1) * N] {
                let i = i as usize;
                let p = i % features::FE_END;
                rows.mark(i);
                prows.mark(p);
                for (g, d) in self.ft_w.g[i * h..(i + 1) * h].iter_mut().zip(gx) {
                    *g += d;
                }
                for (g, d) in self.ft_p.g[p * h..(p + 1) * h].iter_mut().zip(gx) {
                    *g += d;
                }
            }
        }
    }

    /// One Adam step over a batch's gradients: the dense layers whole, the transformer's
    /// touched rows only.
    fn step(
        &mut self,
        a: &AdamStep,
        king: &AdamStep,
        batch: usize,
        rows: &Touched,
        prows: &Touched,
    ) {
        let inv = 1.0 / batch as f32;
        let h = self.arch.half;
        // The transformer needs no clipping to fit: its sums stay far inside ±258.
        let free = f32::INFINITY;
        for &r in &rows.rows {
            let r = r as usize;
            self.ft_w.step(r * h..(r + 1) * h, king, inv, free);
        }
        for &r in &prows.rows {
            let r = r as usize;
            self.ft_p.step(r * h..(r + 1) * h, a, inv, free);
        }
        self.ft_b.step_all(a, inv, free);
        self.l1_w.step_all(a, inv, HIDDEN_MAX);
        self.l1_b.step_all(a, inv, free);
        self.l2_w.step_all(a, inv, HIDDEN_MAX);
        self.l2_b.step_all(a, inv, free);
        self.out_w.step_all(a, inv, OUT_MAX);
        self.out_b.step_all(a, inv, free);
        self.snap();
    }

    /// The float net's evaluation of `pos` (side to move's view, the file's units).
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let mut f = Vec::with_capacity(2 * N);
        push_features(pos, &mut f);
        NNUE2SCORE * self.forward(&f, &mut Work::new(self.arch))
    }

    /// The net in YaneuraOu's integers: each weight scaled and rounded once (the shared piece
    /// rows folded into every king's rows first), the layers padded as the file pads them.
    pub fn quantize(&self) -> Network {
        let a = self.arch;
        let h = a.half;
        // The same rounding as the float net's (ties to even).
        let q16 = |v: f32| round(v * FT_SCALE).clamp(-32767.0, 32767.0) as i16;
        let q8 = |v: f32, s: f32| round(v * s).clamp(-127.0, 127.0) as i8;
        let q32 = |v: f32, s: f32| (v * s).round() as i32;
        let ft_bias = self.ft_b.w.iter().map(|&v| q16(v)).collect();
        let mut ft_weight = Vec::with_capacity(features::DIMENSIONS * h);
        for (i, row) in self.ft_w.w.chunks_exact(h).enumerate() {
            let p = i % features::FE_END;
            let prow = &self.ft_p.w[p * h..(p + 1) * h];
            ft_weight.extend(row.iter().zip(prow).map(|(r, q)| q16(r + q)));
        }
        // Input-major floats to the file's output-major rows, each padded to 32.
        let rows = |w: &[f32], inputs: usize, outputs: usize, s: f32| {
            let stride = file::padded(inputs);
            let mut out = vec![0i8; outputs * stride];
            for j in 0..inputs {
                for o in 0..outputs {
                    out[o * stride + j] = q8(w[j * outputs + o], s);
                }
            }
            out
        };
        let l1_weight = rows(&self.l1_w.w, 2 * h, a.l1, W_SCALE);
        let l2_weight = rows(&self.l2_w.w, a.l1, a.l2, W_SCALE);
        let out_weight = rows(&self.out_w.w, a.l2, 1, OUT_SCALE);
        // Half a step added to the hidden biases makes the file's `>> 6` round to nearest
        // instead of flooring: a floor loses half a step per unit on average, always the same
        // way, and 32 units' losses add up to tens of evaluation units at the output.
        let half_step = 1 << (super::WEIGHT_SCALE_BITS - 1);
        let bias = |b: &Param| {
            b.w.iter()
                .map(|&v| q32(v, FT_SCALE * W_SCALE) + half_step)
                .collect()
        };
        Network {
            arch: a,
            description: a.description(),
            ft_bias,
            ft_weight,
            l1_bias: bias(&self.l1_b),
            l1_by_input: super::by_input(&l1_weight, a),
            l1_weight,
            l2_bias: bias(&self.l2_b),
            l2_weight,
            out_bias: q32(self.out_b.w[0], NNUE2SCORE * FV_SCALE as f32),
            out_weight,
        }
    }
}

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

fn cross_entropy(p: f32, t: f32) -> f64 {
    let p = f64::from(p).clamp(1e-9, 1.0 - 1e-9);
    let t = f64::from(t);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

fn target(o: &Options, s: &Samples, k: usize) -> f32 {
    o.lambda * sigmoid(s.score[k] / o.scale) + (1.0 - o.lambda) * s.result[k]
}

fn losses(net: &FloatNet, s: &Samples, o: &Options) -> Losses {
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
    let (train_set, valid) = crate::search::learn::split(
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

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn epoch_line(e: &Epoch) -> String {
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
fn loss_tsv(epochs: &[Epoch]) -> String {
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
type Series<'a> = (&'a str, &'a str, Vec<(usize, f64)>);

/// The losses by epoch as an SVG line chart (training and held out), written by hand: a plot
/// library would be the tree's heaviest dependency for one picture.
fn loss_svg(epochs: &[Epoch], title: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::eval::Weights;
    use crate::search::learn::{generate, GenOptions};

    /// A few hundred self-play lines at a tiny budget, trained for a few epochs: the training
    /// loss falls, the same seed gives the same losses, the written file loads as the net
    /// trained, its integer evaluations track the float ones, and the loss table and plot are
    /// written.
    #[test]
    fn a_tiny_run_learns_and_writes_a_net_that_loads() {
        let dir = std::env::temp_dir().join(format!("gougi-nnue-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("data.txt");
        let _ = std::fs::remove_file(&data);
        let gen = GenOptions {
            games: 10,
            nodes: 300,
            max_plies: 80,
            hash_mb: 1,
            ..GenOptions::default()
        };
        let summary = generate(&gen, Weights::embedded(), &data, &|_| {}).unwrap();
        assert!(summary.positions > 250, "{summary:?}");
        let o = Options {
            epochs: 3,
            batch: 32,
            lr: 3e-3,
            validation: 2,
            ..Options::default()
        };
        let out = dir.join("net.bin");
        let mut lines = Vec::new();
        let files = std::slice::from_ref(&data);
        let r = train(files, &o, &out, &mut |l| lines.push(l.to_owned())).unwrap();
        // Each training position twice: as played and mirrored.
        assert_eq!(r.train_positions / 2 + r.valid_positions, summary.positions);
        assert!(
            r.valid_positions > 0 && r.train_positions > 200,
            "{lines:?}"
        );
        // The training loss over the whole set, before and after.
        let (train_set, valid) = load(files, o.validation, o.mirror).unwrap();
        let after = losses(&r.net, &train_set, &o).mixed;
        assert!(after < r.epochs[0].train - 0.002, "{after} {lines:?}");
        assert_eq!(r.epochs.len(), o.epochs + 1);

        let bytes = std::fs::read(&out).unwrap();
        let q = Network::from_bytes(&bytes).unwrap();
        assert_eq!(q.arch, o.arch);
        if r.best_epoch == o.epochs {
            // The file is the final float net quantized: evaluations within a few units.
            let d = r.quantization_error.unwrap();
            assert!(d < 2.0, "{d}");
            assert!((mean_abs_difference(&r.net, &q, &valid.sfen) - d).abs() < 1e-9);
            let start = Position::startpos();
            assert!((r.net.evaluate(&start) - q.evaluate(&start) as f32).abs() < 2.0);
        }
        let tsv = std::fs::read_to_string(with_suffix(&out, ".loss.tsv")).unwrap();
        assert_eq!(tsv.lines().count(), o.epochs + 2, "{tsv}");
        let svg = std::fs::read_to_string(with_suffix(&out, ".loss.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 2);

        // Reproducible from the seed.
        let again = train(files, &o, &dir.join("again.bin"), &mut |_| {}).unwrap();
        let figures = |r: &Outcome| -> Vec<(f64, f64)> {
            r.epochs
                .iter()
                .map(|e| (e.train, e.valid.unwrap().mixed))
                .collect()
        };
        assert_eq!(figures(&again), figures(&r));

        // A held-out file: all of it held out, all of the data trained on (and mirrored).
        let held = dir.join("held.txt");
        let text = std::fs::read_to_string(&data).unwrap();
        std::fs::write(
            &held,
            text.lines().take(30).collect::<Vec<_>>().join("\n") + "\n",
        )
        .unwrap();
        let o1 = Options {
            epochs: 1,
            held_out: Some(held),
            ..o
        };
        let r1 = train(files, &o1, &dir.join("held.bin"), &mut |_| {}).unwrap();
        assert_eq!(
            (r1.train_positions, r1.valid_positions),
            (2 * summary.positions, 30)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_mirror_swaps_files_and_keeps_the_rest() {
        let sfen = "ln1g3+Rl/1r1sk1g2/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/9/LN1GKGSNL w Bb 12";
        let m = mirrored(sfen);
        assert_eq!(
            m,
            "l+R3g1nl/2g1ks1r1/pp1pppp1p/2p6/7p1/6P2/PPPPPPSPP/9/LNSGKG1NL w Bb 12"
        );
        assert_eq!(mirrored(&m), sfen);
        let (a, b) = (
            Position::from_sfen(sfen).unwrap(),
            Position::from_sfen(&m).unwrap(),
        );
        assert_eq!(a.legal_moves().len(), b.legal_moves().len());
    }

    /// The quantization's scales: a float net with weights that are exact multiples of the
    /// integer steps evaluates to the same value once quantized (up to the final division's
    /// truncation), positions with pieces in hand included.
    #[test]
    fn quantization_keeps_the_float_net_s_value() {
        let mut net = FloatNet::new(super::super::HALFKP_256, 7);
        let snap = |v: &mut [f32], s: f32| v.iter_mut().for_each(|x| *x = (*x * s).round() / s);
        snap(&mut net.ft_p.w, FT_SCALE);
        snap(&mut net.ft_b.w, FT_SCALE);
        snap(&mut net.l1_w.w, W_SCALE);
        snap(&mut net.l2_w.w, W_SCALE);
        snap(&mut net.l1_b.w, FT_SCALE * W_SCALE);
        snap(&mut net.l2_b.w, FT_SCALE * W_SCALE);
        net.out_w.w.iter_mut().for_each(|w| *w = 0.1 * OUT_MAX);
        net.out_b.w[0] = -1.0;
        net.snap();
        let q = net.quantize();
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "ln1g3nl/1r1sk1g2/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/7R1/LN1GKGSNL w Bb 12",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let (f, i) = (net.evaluate(&pos), q.evaluate(&pos));
            // The file's division by 16 truncates: a unit or so.
            assert!(
                (f - i as f32).abs() < 2.0,
                "{sfen}: float {f}, quantized {i}"
            );
            assert!(
                f.abs() > 50.0,
                "{sfen}: {f} (a zero net would pass anything)"
            );
        }
    }
}
