//! The float net being trained: the integer net of `crate::eval::nnue` with its scales
//! divided out, computing on the file's grid (see [`super`]); forward, backward, the Adam
//! step, and the quantization into YaneuraOu's integers.

use crate::book::SplitMix64;
use crate::eval::nnue::arch::padded;
use crate::eval::nnue::{features, Arch, Layers, Network, FV_SCALE, WEIGHT_SCALE_BITS};
use crate::shogi::Position;

use super::adam::{AdamStep, Param, Touched};

/// The float net's output times this is the evaluation.
pub(super) const NNUE2SCORE: f32 = 600.0;
/// Transformer weights and biases: `i16` at this scale; a clipped sum of 1 is the file's 127.
pub(super) const FT_SCALE: f32 = 127.0;
/// Hidden weights: `i8` at this scale (the 6-bit shift).
pub(super) const W_SCALE: f32 = 64.0;
/// The largest hidden weight that still fits an `i8` after scaling.
pub(super) const HIDDEN_MAX: f32 = 127.0 / W_SCALE;
/// The output weights' scale: `600 × 16 / 127` (the output layer's input is 0..=127, its sum is
/// divided by 16).
pub(super) const OUT_SCALE: f32 = NNUE2SCORE * FV_SCALE as f32 / 127.0;
pub(super) const OUT_MAX: f32 = 127.0 / OUT_SCALE;
/// Features per perspective.
pub(super) const N: usize = features::PIECES;

/// The side to move's features then the other's, as [`Network::evaluate`] orders them.
pub(super) fn push_features(pos: &Position, out: &mut Vec<u32>) {
    let stm = pos.side_to_move();
    for c in [stm, !stm] {
        features::for_each_active(features::FeatureSet::HalfKP, pos, c, |f| out.push(f as u32));
    }
}

/// The float net being trained (see the module's description for the scales).
pub struct FloatNet {
    pub(super) arch: Arch,
    /// `DIMENSIONS × half`, feature-major.
    pub(super) ft_w: Param,
    /// The shared (piece, square) rows: `FE_END × half`.
    pub(super) ft_p: Param,
    pub(super) ft_b: Param,
    /// Input-major: `2 half × l1` (an input's `l1` weights together: the input is sparse).
    pub(super) l1_w: Param,
    pub(super) l1_b: Param,
    /// `l1 × l2`, input-major.
    pub(super) l2_w: Param,
    pub(super) l2_b: Param,
    pub(super) out_w: Param,
    pub(super) out_b: Param,
    /// The layers' weights on the file's grid, which the net computes with. A step of the
    /// file is coarse (1/64 of a hidden weight, about 8 evaluation units of an output weight
    /// at a full input), and several hundred rounded weights add up: a net trained unrounded
    /// lost tens of units when written. Computing with the rounded weights while the gradient
    /// moves the unrounded ones (a straight-through estimate) makes the written net the net
    /// trained. The transformer's rows are rounded as they are summed.
    pub(super) l1_q: Vec<f32>,
    pub(super) l2_q: Vec<f32>,
    pub(super) out_q: Vec<f32>,
}

/// One sample's activations (forward) and gradients (backward).
pub(super) struct Work {
    pub(super) acc: Vec<f32>,
    pub(super) x: Vec<f32>,
    pub(super) z1: Vec<f32>,
    pub(super) h1: Vec<f32>,
    pub(super) z2: Vec<f32>,
    pub(super) h2: Vec<f32>,
    pub(super) gx: Vec<f32>,
    pub(super) gz1: Vec<f32>,
    pub(super) gz2: Vec<f32>,
}

impl Work {
    pub(super) fn new(a: Arch) -> Work {
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

/// `x` rounded to an integer (ties to even) by adding and taking away 1.5 × 2²³, which leaves
/// no fraction bits: plain adds, which the transformer's loops vectorise (`f32::round` is a
/// call). Exact for |x| < 2²².
#[inline]
pub(super) fn round(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC) - MAGIC
}

/// `w` on the grid of step `1 / scale`: as the file will hold it.
pub(super) fn on_grid(w: f32, scale: f32) -> f32 {
    round(w * scale) / scale
}

/// The clipped ReLU's gradient gate: the output moves with its input only inside `0..1`.
pub(super) fn inside(z: f32) -> bool {
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
    pub(super) fn snap(&mut self) {
        let grid = |w: &[f32], scale: f32| w.iter().map(|&v| on_grid(v, scale)).collect();
        self.l1_q = grid(&self.l1_w.w, W_SCALE);
        self.l2_q = grid(&self.l2_w.w, W_SCALE);
        self.out_q = grid(&self.out_w.w, OUT_SCALE);
    }

    /// The output `y` (the evaluation is `600 y`) for features `f` (the side to move's 38,
    /// then the other's), leaving the activations in `w`.
    pub(super) fn forward(&self, f: &[u32], w: &mut Work) -> f32 {
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
    pub(super) fn backward(
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
    pub(super) fn step(
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
            let stride = padded(inputs);
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
        let half_step = 1 << (WEIGHT_SCALE_BITS - 1);
        let bias = |b: &Param| {
            b.w.iter()
                .map(|&v| q32(v, FT_SCALE * W_SCALE) + half_step)
                .collect()
        };
        Network::from_layers(
            a,
            a.description(),
            Layers {
                ft_bias,
                ft_weight,
                l1_bias: bias(&self.l1_b),
                l1_weight,
                l2_bias: bias(&self.l2_b),
                l2_weight,
                out_bias: q32(self.out_b.w[0], NNUE2SCORE * FV_SCALE as f32),
                out_weight,
            },
        )
    }
}
