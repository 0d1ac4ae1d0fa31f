//! Match statistics: score, Elo difference with a 95 % interval, likelihood of superiority (LOS)
//! and the sequential probability ratio test (SPRT) used to stop a match early.
//!
//! The model is the logistic Elo curve, expected score `s = 1 / (1 + 10^(-elo/400))`, with the
//! game results treated as a trinomial sample (win 1, draw ½, loss 0):
//! - the interval comes from the sample variance of the per-game score (draws shrink it), mapped
//!   through the Elo curve — the method of cutechess-cli and most engine testers;
//! - LOS = Φ((W − L) / √(W + L)), the normal approximation that ignores draws;
//! - the SPRT log-likelihood ratio uses the generalised (GSPRT) approximation of the trinomial
//!   likelihood ratio between `elo0` and `elo1`:
//!   `LLR = N · (s1 − s0) · (2ŝ − s0 − s1) / (2σ̂²)`, with the Wald bounds `ln(β/(1−α))` and
//!   `ln((1−β)/α)` (Michel Van den Bergh's note on the GSPRT, as used by engine test frameworks).

/// Wins, draws and losses of one side of a pairing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The two-sided 95 % quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The same games seen from the other side.
    pub fn flipped(&self) -> Tally {
        Tally {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Mean score per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / f64::from(n))
    }

    /// Per-game variance of the score (population variance of the sample).
    fn variance(&self) -> Option<f64> {
        let n = f64::from(self.games());
        let s = self.score()?;
        let (w, d, l) = (
            f64::from(self.wins) / n,
            f64::from(self.draws) / n,
            f64::from(self.losses) / n,
        );
        Some(w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2))
    }

    /// The Elo difference the score implies; infinite after only wins or only losses.
    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_from_score)
    }

    /// The 95 % interval of the Elo difference, `(low, high)`; the ends may be infinite.
    pub fn elo_interval(&self) -> Option<(f64, f64)> {
        let s = self.score()?;
        let n = f64::from(self.games());
        let se = (self.variance()? / n).sqrt();
        Some((elo_from_score(s - Z95 * se), elo_from_score(s + Z95 * se)))
    }

    /// Half the width of the 95 % interval, the `±` figure of a results table (infinite when
    /// an end is).
    pub fn elo_error(&self) -> Option<f64> {
        self.elo_interval().map(|(lo, hi)| (hi - lo) / 2.0)
    }

    /// Likelihood of superiority: the probability that this side is the stronger one.
    pub fn los(&self) -> Option<f64> {
        let decisive = f64::from(self.wins + self.losses);
        if decisive == 0.0 {
            return (self.games() > 0).then_some(0.5);
        }
        let z = (f64::from(self.wins) - f64::from(self.losses)) / decisive.sqrt();
        Some(normal_cdf(z))
    }

    /// The SPRT log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`); 0 before the first
    /// game. When every game had the same result the sample variance is 0 and the
    /// approximation undefined, so the variance is then taken with half a game added to each
    /// outcome (a small prior) — otherwise a run of straight losses would never stop.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let (Some(s), Some(mut var)) = (self.score(), self.variance()) else {
            return 0.0;
        };
        if var <= 0.0 {
            let (w, d, l) = (
                f64::from(self.wins) + 0.5,
                f64::from(self.draws) + 0.5,
                f64::from(self.losses) + 0.5,
            );
            let n = w + d + l;
            let m = (w + 0.5 * d) / n;
            var = (w * (1.0 - m).powi(2) + d * (0.5 - m).powi(2) + l * m.powi(2)) / n;
        }
        let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
        f64::from(self.games()) * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }
}

/// The expected score of a side `elo` points stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives expected score `s` (clamped to [0, 1]: ±∞ at the ends).
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(0.0, 1.0);
    if s <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if s >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Φ(z), the standard normal distribution function.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// The complementary error function, by the Chebyshev fit of Numerical Recipes (`erfcc`),
/// fractional error below 1.2e-7 everywhere — ample for match statistics.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// An SPRT's parameters: H0 `elo0`, H1 `elo1`, error rates `alpha` (false H1) and `beta`
/// (false H0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// Keep playing.
    Continue,
    /// H1 accepted: the difference is at least `elo1` (likely).
    H1,
    /// H0 accepted: the difference is at most `elo0` (likely).
    H0,
}

/// Why SPRT parameters were refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("SPRT needs elo0 < elo1, got {elo0} and {elo1}")]
    Bounds { elo0: f64, elo1: f64 },
    #[error("SPRT error rates must be in (0, 0.5), got alpha {alpha} beta {beta}")]
    Rates { alpha: f64, beta: f64 },
    #[error("--sprt takes four numbers: ELO0 ELO1 ALPHA BETA, got {0}")]
    Count(usize),
}

impl Sprt {
    /// Parameters from the command line, checked: `elo0 < elo1`, error rates in (0, ½).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        let rate_ok = |x: f64| x > 0.0 && x < 0.5;
        if elo0 >= elo1 || !elo0.is_finite() || !elo1.is_finite() {
            return Err(SprtError::Bounds { elo0, elo1 });
        }
        if !rate_ok(alpha) || !rate_ok(beta) {
            return Err(SprtError::Rates { alpha, beta });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Parameters as the command line gives them, `[elo0, elo1, alpha, beta]`, checked.
    pub fn from_args(v: &[f64]) -> Result<Sprt, SprtError> {
        match *v {
            [elo0, elo1, alpha, beta] => Sprt::new(elo0, elo1, alpha, beta),
            _ => Err(SprtError::Count(v.len())),
        }
    }

    /// The lower (accept H0) and upper (accept H1) LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a tally.
    pub fn state(&self, tally: &Tally) -> SprtState {
        let llr = tally.llr(self.elo0, self.elo1);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtState::H1
        } else if llr <= lo {
            SprtState::H0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    // The expected figures were computed independently (Python 3, `math` only):
    //   elo(s) = -400*log10(1/s-1); se = sqrt(var/n); var = w(1-s)^2 + d(.5-s)^2 + l s^2;
    //   los = 0.5*(1+erf((W-L)/sqrt(2(W+L)))); llr = n(s1-s0)(2s-s0-s1)/(2 var).

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        assert!(close(elo_from_score(0.75), 190.848_501_887_864_9, 1e-9));
        assert!(close(elo_from_score(0.7), 147.190_714_117_837_76, 1e-9));
        assert!(close(score_from_elo(100.0), 0.640_064_999_802_885_1, 1e-12));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(t(3, 0, 0).elo(), Some(f64::INFINITY));
        assert_eq!(t(0, 0, 0).elo(), None);
    }

    #[test]
    fn interval_matches_the_trinomial_formula() {
        // W60 D20 L20: s = 0.7, var = 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16, se = 0.04.
        let x = t(60, 20, 20);
        assert!(close(x.score().unwrap(), 0.7, 1e-12));
        let (lo, hi) = x.elo_interval().unwrap();
        assert!(close(lo, 86.225_015_200_304_23, 1e-6), "{lo}");
        assert!(close(hi, 218.251_777_641_074_8, 1e-6), "{hi}");
        // Even: symmetric around 0. W40 D20 L40: var = 0.8*0.25 = 0.2, se = sqrt(0.002).
        let (lo, hi) = t(40, 20, 40).elo_interval().unwrap();
        assert!(close(lo, -hi, 1e-9));
        assert!(close(hi, 61.542_712_574_579_58, 1e-6), "{hi}");
    }

    #[test]
    fn los_of_known_tallies() {
        assert!(close(
            t(30, 50, 20).los().unwrap(),
            0.921_350_396_474_857,
            1e-6
        ));
        assert!(close(
            t(20, 0, 30).los().unwrap(),
            0.078_649_603_525_142,
            1e-6
        ));
        assert_eq!(t(0, 10, 0).los(), Some(0.5));
        assert_eq!(t(0, 0, 0).los(), None);
    }

    #[test]
    fn normal_cdf_is_accurate() {
        assert!(close(normal_cdf(0.0), 0.5, 1e-7));
        assert!(close(normal_cdf(1.959_963_984_540_054), 0.975, 1e-7));
        assert!(close(normal_cdf(-3.0), 0.001_349_898_031_630_094_6, 1e-8));
    }

    #[test]
    fn sprt_llr_and_decisions() {
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_438_979_166_440_3, 1e-12));
        assert!(close(hi, 2.944_438_979_166_440_3, 1e-12));
        // W60 D20 L20, elo0 0, elo1 10: s0 = .5, s1 = .514387..., var .16.
        let x = t(60, 20, 20);
        assert!(
            close(x.llr(0.0, 10.0), 1.733_713_311_929_099_7, 1e-6),
            "{}",
            x.llr(0.0, 10.0)
        );
        assert_eq!(sprt.state(&x), SprtState::Continue);
        assert_eq!(sprt.state(&t(120, 40, 40)), SprtState::H1);
        assert_eq!(sprt.state(&t(40, 40, 120)), SprtState::H0);
        assert_eq!(t(0, 0, 0).llr(0.0, 10.0), 0.0);
        // Straight losses: the regularised variance still lets the test decide.
        assert!(
            close(t(0, 0, 20).llr(0.0, 10.0), -5.239_733_982_151_876, 1e-6),
            "{}",
            t(0, 0, 20).llr(0.0, 10.0)
        );
        assert_eq!(sprt.state(&t(0, 0, 20)), SprtState::H0);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert_eq!(Sprt::from_args(&[0.0, 10.0, 0.05, 0.05]), Ok(sprt));
        assert_eq!(
            Sprt::from_args(&[0.0, 10.0, 0.05]),
            Err(SprtError::Count(3))
        );
        assert!(Sprt::from_args(&[10.0, 0.0, 0.05, 0.05]).is_err());
    }
}
