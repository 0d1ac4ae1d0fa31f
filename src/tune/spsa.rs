//! The tune file and the SPSA arithmetic: pure functions, no processes.
//!
//! # Tune file
//!
//! One parameter a line; blank lines and `#` comments are ignored; fields are separated by
//! whitespace or commas:
//!
//! ```text
//! # name              start  min   max   c     a      [target]
//! T_FutilityMargin    90     20    300   8     4
//! Skill               10     0     100   5     3      option.Skill
//! w2                  1.0    0.2   5.0   0.2   0.01   Engine2.Weight
//! ```
//!
//! A parameter is an integer when its start, min and max are all written without a decimal
//! point; it is kept as a real number and rounded only when sent. The target says where the
//! value goes: `option.NAME` (a `setoption`; the default is `option.<name>`), a gougi `G_…`
//! option (also a `setoption`, gougi's proxy takes them), or a config key such as
//! `Engine2.Weight` (the player must be a `config=` engine; the key is rewritten in a copy of
//! its config).
//!
//! # Schedule (iteration k = 1, 2, …, N)
//!
//! - perturbation `c_k = c / k^γ`, γ = 0.101;
//! - step `a_k = a / (A + k)^α`, α = 0.602, A = N / 10 (a warm-up that keeps the first steps
//!   from being the largest by far);
//! - Δ ∈ {−1, +1} per parameter, drawn from a seeded stream (a function of the seed, k and
//!   the parameter's position, so a resumed run draws the same Δ);
//! - θ± = θ ± c_k Δ, clamped to [min, max]; the games give `result` = θ+'s wins − losses;
//! - θ ← clamp(θ + a_k · result / (2 c_k) · Δ).
//!
//! Sources read (the code and text here are our own): J. C. Spall, "Implementation of the
//! simultaneous perturbation algorithm for stochastic optimization", IEEE Trans. Aerospace and
//! Electronic Systems 34(3), 1998 — the gain sequences, α = 0.602, γ = 0.101 and A ≈ 10 % of
//! the iterations; the description of fishtest's SPSA in the `fishtest-spsa-lab` project
//! (`docs/Algorithms.md`): workers play θ ± c·flip and each report's raw wins − losses is one
//! update, every θ clamped; OpenBench's SPSA input format (name, type, start, min, max, c, a),
//! which the line format above follows without the type column.

use std::fmt;

/// Spall's standard exponent of the step sequence.
pub const ALPHA: f64 = 0.602;
/// Spall's standard exponent of the perturbation sequence.
pub const GAMMA: f64 = 0.101;

/// Where a parameter's value is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `setoption name NAME value V` (engine options and gougi's `G_…`).
    Option(String),
    /// A key of the player's consultation config (`Engine2.Weight`).
    ConfigKey(String),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Option(n) => write!(f, "option.{n}"),
            Target::ConfigKey(k) => f.write_str(k),
        }
    }
}

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// Perturbation size at k = 1.
    pub c: f64,
    /// Step size numerator.
    pub a: f64,
    pub integer: bool,
    pub target: Target,
}

impl Param {
    /// The value as sent to the engine: rounded for integers.
    pub fn text(&self, v: f64) -> String {
        if self.integer {
            format!("{}", v.round() as i64)
        } else {
            let s = format!("{v:.6}");
            // At least one decimal: a real written back must not read as an integer.
            let s = s.trim_end_matches('0');
            if s.ends_with('.') {
                format!("{s}0")
            } else {
                s.to_owned()
            }
        }
    }

    pub fn clamp(&self, v: f64) -> f64 {
        v.clamp(self.min, self.max)
    }
}

/// Why a tune file was refused: the line (from 1) and the problem.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamsError {
    #[error("line {line}: {problem}")]
    Line { line: usize, problem: ParamProblem },
    #[error("no parameter in the tune file")]
    Empty,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamProblem {
    #[error("expected `name start min max c a [target]`, got {0} fields")]
    Fields(usize),
    #[error("{name}: {what} {text:?} is not a number")]
    NotANumber {
        name: String,
        what: &'static str,
        text: String,
    },
    #[error("{name}: needs min ≤ start ≤ max (got {start} in [{min}, {max}])")]
    Range {
        name: String,
        start: f64,
        min: f64,
        max: f64,
    },
    #[error("{0}: c and a must be positive")]
    Step(String),
    #[error("{0}: empty option name")]
    EmptyOption(String),
    #[error(
        "{name}: target {target:?} is not option.NAME, G_… or a config key like Engine2.Weight"
    )]
    Target { name: String, target: String },
    #[error("{0} appears twice")]
    Twice(String),
    #[error("{0}: a name cannot hold , or \"")]
    BadName(String),
}

/// Parses a tune file. Errors name the line.
pub fn parse_params(text: &str) -> Result<Vec<Param>, ParamsError> {
    let mut out: Vec<Param> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        let f: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let fail = |problem| ParamsError::Line { line: n, problem };
        if f.len() != 6 && f.len() != 7 {
            return Err(fail(ParamProblem::Fields(f.len())));
        }
        let name = f[0].to_owned();
        let num = |k: usize, what: &'static str| -> Result<f64, ParamsError> {
            f[k].parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    fail(ParamProblem::NotANumber {
                        name: name.clone(),
                        what,
                        text: f[k].to_owned(),
                    })
                })
        };
        let (start, min, max, c, a) = (
            num(1, "start")?,
            num(2, "min")?,
            num(3, "max")?,
            num(4, "c")?,
            num(5, "a")?,
        );
        if min > max || start < min || start > max {
            return Err(fail(ParamProblem::Range {
                name,
                start,
                min,
                max,
            }));
        }
        if c <= 0.0 || a <= 0.0 {
            return Err(fail(ParamProblem::Step(name)));
        }
        let integer = f[1..4].iter().all(|w| !w.contains(['.', 'e', 'E']));
        let target = match f.get(6) {
            None => Target::Option(name.clone()),
            Some(t) => match t.strip_prefix("option.") {
                Some(o) if !o.is_empty() => Target::Option(o.to_owned()),
                Some(_) => return Err(fail(ParamProblem::EmptyOption(name))),
                None if t.starts_with("G_") => Target::Option((*t).to_owned()),
                None if t.contains('.') => Target::ConfigKey((*t).to_owned()),
                None => {
                    return Err(fail(ParamProblem::Target {
                        name,
                        target: (*t).to_owned(),
                    }))
                }
            },
        };
        if out.iter().any(|p| p.name == name) {
            return Err(fail(ParamProblem::Twice(name)));
        }
        if name.contains(',') || name.contains('"') {
            return Err(fail(ParamProblem::BadName(name)));
        }
        out.push(Param {
            name,
            start,
            min,
            max,
            c,
            a,
            integer,
            target,
        });
    }
    if out.is_empty() {
        return Err(ParamsError::Empty);
    }
    Ok(out)
}

/// Writes parameters back in the tune-file format with `values` as the start values.
pub fn format_params(params: &[Param], values: &[f64]) -> String {
    let mut s = String::from("# name start min max c a target\n");
    for (p, &v) in params.iter().zip(values) {
        let num = |x: f64| p.text(x);
        s.push_str(&format!(
            "{} {} {} {} {} {} {}\n",
            p.name,
            num(v),
            num(p.min),
            num(p.max),
            p.c,
            p.a,
            p.target
        ));
    }
    s
}

/// The SPSA gain sequences of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// The stability constant A (10 % of the planned iterations).
    pub big_a: f64,
}

impl Schedule {
    pub fn for_iterations(n: usize) -> Schedule {
        Schedule {
            big_a: n as f64 / 10.0,
        }
    }

    /// `c_k = c / k^γ`.
    pub fn c_k(&self, c: f64, k: usize) -> f64 {
        c / (k.max(1) as f64).powf(GAMMA)
    }

    /// `a_k = a / (A + k)^α`.
    pub fn a_k(&self, a: f64, k: usize) -> f64 {
        a / (self.big_a + k.max(1) as f64).powf(ALPHA)
    }
}

/// One iteration's plan: the perturbation signs and the two points played.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub k: usize,
    pub delta: Vec<f64>,
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
}

/// Δ_i for iteration `k`: a pure function of (seed, k, i), so a resumed run repeats it.
pub fn delta_sign(seed: u64, k: usize, i: usize) -> f64 {
    let mut z = seed
        ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (i as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    // splitmix64's finaliser: every input bit reaches the low bit.
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    if z & 1 == 1 {
        1.0
    } else {
        -1.0
    }
}

/// The points θ ± c_k Δ for iteration `k`, clamped to each range.
pub fn probe(params: &[Param], theta: &[f64], sched: &Schedule, seed: u64, k: usize) -> Probe {
    let delta: Vec<f64> = (0..params.len()).map(|i| delta_sign(seed, k, i)).collect();
    let mut plus = Vec::new();
    let mut minus = Vec::new();
    for ((p, &t), &d) in params.iter().zip(theta).zip(&delta) {
        let ck = sched.c_k(p.c, k);
        plus.push(p.clamp(t + ck * d));
        minus.push(p.clamp(t - ck * d));
    }
    Probe {
        k,
        delta,
        plus,
        minus,
    }
}

/// θ after iteration `probe.k` with `result` = θ+'s wins − losses.
pub fn update(
    params: &[Param],
    theta: &[f64],
    sched: &Schedule,
    probe: &Probe,
    result: f64,
) -> Vec<f64> {
    params
        .iter()
        .zip(theta)
        .zip(&probe.delta)
        .map(|((p, &t), &d)| {
            let ck = sched.c_k(p.c, probe.k);
            let ak = sched.a_k(p.a, probe.k);
            p.clamp(t + ak * result / (2.0 * ck) * d)
        })
        .collect()
}

/// The mean of θ over the second half of the iterations done (rows `1..=done`, row 0 being
/// the start): SPSA's last point carries the noise of its last steps, the mean of the points
/// it has walked through since it settled carries much less (iterate averaging, Polyak and
/// Ruppert). `None` before the first iteration.
pub fn tail_mean(thetas: &[&[f64]]) -> Option<Vec<f64>> {
    let done = thetas.len().checked_sub(1)?;
    if done == 0 {
        return None;
    }
    // Rows done/2 + 1 ..= done: the later half, the middle row going to the earlier one.
    let tail = &thetas[done / 2 + 1..];
    let n = tail.len() as f64;
    Some(
        (0..thetas[0].len())
            .map(|i| tail.iter().map(|t| t[i]).sum::<f64>() / n)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Param {
        parse_params(text).unwrap().remove(0)
    }

    #[test]
    fn parses_lines_targets_and_types() {
        let ps = parse_params(
            "# comment\n\nT_X 90 20 300 8 4\nSkill, 10, 0, 100, 5, 3, option.Skill\n\
             w2 1.0 0.2 5 0.2 0.01 Engine2.Weight\nG_Margin 120 0 500 20 10 G_Margin\n",
        )
        .unwrap();
        assert_eq!(ps.len(), 4);
        assert!(ps[0].integer && ps[1].integer && !ps[2].integer);
        assert_eq!(ps[0].target, Target::Option("T_X".into()));
        assert_eq!(ps[1].target, Target::Option("Skill".into()));
        assert_eq!(ps[2].target, Target::ConfigKey("Engine2.Weight".into()));
        assert_eq!(ps[3].target, Target::Option("G_Margin".into()));
        assert_eq!((ps[1].start, ps[1].c, ps[1].a), (10.0, 5.0, 3.0));
    }

    #[test]
    fn refuses_bad_lines_with_their_number() {
        for (text, needle) in [
            ("a 1 2", "line 1"),
            ("\nb 5 6 4 1 1", "line 2: b: needs min"),
            ("c x 0 9 1 1", "start \"x\""),
            ("d 1 0 9 0 1", "positive"),
            ("e 1 0 9 1 1 Weight", "target"),
            ("f 1 0 9 1 1\nf 2 0 9 1 1", "twice"),
            ("", "no parameter"),
        ] {
            let e = parse_params(text).unwrap_err();
            assert!(e.to_string().contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn schedule_matches_hand_computed_values() {
        let s = Schedule::for_iterations(100); // A = 10
        assert_eq!(s.big_a, 10.0);
        // c_1 = c; c_10 = 8 / 10^0.101 = 8 / 1.261828… = 6.340011…
        assert!((s.c_k(8.0, 1) - 8.0).abs() < 1e-12);
        assert!(
            (s.c_k(8.0, 10) - 6.340_011).abs() < 1e-5,
            "{}",
            s.c_k(8.0, 10)
        );
        // a_1 = 4 / 11^0.602 = 4 / 4.235634… = 0.944369…
        assert!(
            (s.a_k(4.0, 1) - 0.944_369).abs() < 1e-5,
            "{}",
            s.a_k(4.0, 1)
        );
        // a_90 = 4 / 100^0.602 = 4 / 15.995580… = 0.250069…
        assert!(
            (s.a_k(4.0, 90) - 0.250_069).abs() < 1e-5,
            "{}",
            s.a_k(4.0, 90)
        );
    }

    #[test]
    fn probe_and_update_by_hand() {
        let p = one("x 50 0 100 10 2");
        let s = Schedule::for_iterations(10); // A = 1
        let mut pr = probe(std::slice::from_ref(&p), &[50.0], &s, 7, 1);
        // Force Δ = +1 to check the arithmetic itself.
        pr.delta = vec![1.0];
        // k = 1: c_1 = 10, a_1 = 2 / 2^0.602 = 1.317680…; result +2:
        // θ = 50 + 1.317680 · 2 / 20 = 50.131768…
        let t = update(std::slice::from_ref(&p), &[50.0], &s, &pr, 2.0);
        assert!((t[0] - 50.131_768).abs() < 1e-5, "{}", t[0]);
        // Δ = −1 and a loss move the other way by the same amount.
        pr.delta = vec![-1.0];
        let t = update(std::slice::from_ref(&p), &[50.0], &s, &pr, 2.0);
        assert!((t[0] - 49.868_232).abs() < 1e-5, "{}", t[0]);
        // The points played: θ ± c_1 Δ.
        let pr = probe(std::slice::from_ref(&p), &[50.0], &s, 7, 1);
        assert_eq!(pr.plus[0], 50.0 + 10.0 * pr.delta[0]);
        assert_eq!(pr.minus[0], 50.0 - 10.0 * pr.delta[0]);
    }

    #[test]
    fn clamps_points_and_updates() {
        let p = one("x 98 0 100 10 5000");
        let s = Schedule::for_iterations(10);
        let mut pr = probe(std::slice::from_ref(&p), &[98.0], &s, 1, 1);
        pr.delta = vec![1.0];
        let t = update(std::slice::from_ref(&p), &[98.0], &s, &pr, 2.0);
        assert_eq!(t[0], 100.0);
        let t = update(std::slice::from_ref(&p), &[98.0], &s, &pr, -2.0);
        assert_eq!(t[0], 0.0);
        let pr = probe(std::slice::from_ref(&p), &[98.0], &s, 1, 1);
        assert!(pr.plus[0] <= 100.0 && pr.minus[0] <= 100.0);
        assert!(pr.plus[0] == 100.0 || pr.minus[0] == 100.0);
    }

    #[test]
    fn integers_are_rounded_when_sent_reals_are_not() {
        let i = one("x 5 0 9 1 1");
        assert_eq!(i.text(4.5), "5");
        assert_eq!(i.text(4.49), "4");
        assert_eq!(i.text(-0.6), "-1");
        let r = one("y 0.5 0 1 0.1 0.1");
        assert_eq!(r.text(0.25), "0.25");
        assert_eq!(r.text(1.0), "1.0");
    }

    #[test]
    fn signs_are_balanced_and_repeatable() {
        let plus = (1..=2000).filter(|&k| delta_sign(1, k, 0) > 0.0).count();
        assert!((900..1100).contains(&plus), "{plus}");
        assert_eq!(delta_sign(3, 17, 2), delta_sign(3, 17, 2));
        let differ = (1..=200)
            .filter(|&k| delta_sign(1, k, 0) != delta_sign(1, k, 1))
            .count();
        assert!((60..140).contains(&differ), "{differ}");
    }

    #[test]
    fn tail_mean_averages_the_later_half_of_the_iterations() {
        let rows: Vec<Vec<f64>> = vec![
            vec![0.0, 10.0], // start
            vec![1.0, 11.0],
            vec![2.0, 12.0],
            vec![3.0, 13.0],
            vec![4.0, 14.0],
            vec![6.0, 18.0],
        ];
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        // Five iterations: rows 3, 4 and 5.
        assert_eq!(tail_mean(&refs), Some(vec![13.0 / 3.0, 15.0]));
        // Four: rows 3 and 4; one: row 1 alone; none: nothing to average.
        assert_eq!(tail_mean(&refs[..5]), Some(vec![3.5, 13.5]));
        assert_eq!(tail_mean(&refs[..2]), Some(vec![1.0, 11.0]));
        assert_eq!(tail_mean(&refs[..1]), None);
    }

    #[test]
    fn written_params_parse_back() {
        let ps = parse_params("x 5 0 9 1 1\nw 0.5 0 2 0.1 0.05 Engine2.Weight\n").unwrap();
        let text = format_params(&ps, &[7.4, 0.75]);
        let back = parse_params(&text).unwrap();
        assert_eq!(back[0].start, 7.0);
        assert_eq!(back[1].start, 0.75);
        assert_eq!(back[1].target, ps[1].target);
        assert!(back[0].integer && !back[1].integer);
    }
}
