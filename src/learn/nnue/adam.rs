//! Adam, as the trainer steps it: a parameter tensor with its moments, the bias-corrected
//! step of a batch, and the rows of a feature-major table a batch touched (only those are
//! stepped: a sparse Adam).

/// One parameter tensor with Adam's state and its gradient.
pub(super) struct Param {
    pub(super) w: Vec<f32>,
    pub(super) g: Vec<f32>,
    pub(super) m: Vec<f32>,
    pub(super) v: Vec<f32>,
}

impl Param {
    pub(super) fn new(w: Vec<f32>) -> Param {
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
    pub(super) fn step(&mut self, range: std::ops::Range<usize>, a: &AdamStep, inv: f32, max: f32) {
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

    pub(super) fn step_all(&mut self, a: &AdamStep, inv: f32, max: f32) {
        self.step(0..self.w.len(), a, inv, max);
    }
}

pub(super) const B1: f32 = 0.9;
pub(super) const B2: f32 = 0.999;

/// This step's bias-corrected rate (`lr √(1 − β₂ᵗ) / (1 − β₁ᵗ)`) and ε scaled to match.
pub(super) struct AdamStep {
    pub(super) rate: f32,
    pub(super) eps: f32,
}

impl AdamStep {
    pub(super) fn new(lr: f32, t: i32) -> AdamStep {
        let c2 = (1.0 - B2.powi(t)).sqrt();
        AdamStep {
            rate: lr * c2 / (1.0 - B1.powi(t)),
            eps: 1e-8 * c2,
        }
    }
}

/// The rows of a feature-major table a batch touched: only they are stepped.
pub(super) struct Touched {
    pub(super) stamp: Vec<u32>,
    pub(super) rows: Vec<u32>,
    pub(super) batch: u32,
}

impl Touched {
    pub(super) fn new(rows: usize) -> Touched {
        Touched {
            stamp: vec![0; rows],
            rows: Vec::new(),
            batch: 1,
        }
    }

    pub(super) fn mark(&mut self, row: usize) {
        if self.stamp[row] != self.batch {
            self.stamp[row] = self.batch;
            self.rows.push(row as u32);
        }
    }

    pub(super) fn next_batch(&mut self) {
        self.rows.clear();
        self.batch += 1;
    }
}
