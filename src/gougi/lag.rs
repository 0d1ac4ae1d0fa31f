//! How late a member's answers reach gougi: learned from its answers, per member.
//!
//! A member on another machine answers its `go` when its own clock runs out, and the answer
//! then still has to cross the network (and the `go` crossed it before the member started, so
//! its clock started late). gougi cannot ping a USI engine — `isready` is the only command with
//! an answer, and engines may clear their hash on it — so it learns from what every move gives
//! anyway: the **lag** of an answer. When the member answered on its own clock it is the time
//! from the end of the clock it was told (its main time and byoyomi, or its `movetime`, less the
//! margin it keeps itself) to its `bestmove`'s (or `checkmate`'s) arrival; when gougi's `stop`
//! came first, the time from the `stop`. The two are learned apart (the coordinator keeps one
//! [`Lag`] of each per member): both hold the network's round trip, but the second also holds
//! how long the engine takes to stop, which says nothing about when it answers on its clock —
//! an engine slow to unwind a long analysis must not lose its thinking time for it. An answer
//! that came before both says nothing about the network (the member chose to answer early) and
//! is no sample. A local member's lag is its own overrun, a few ms; a member 30 ms away lags by
//! the round trip, 60 ms and more.
//!
//! The estimate is TCP's retransmission timer (RFC 6298): a smoothed lag `s` (gain 1/8) and
//! its mean deviation `v` (gain 1/4), and the estimate `s + 4v`, which covers the tail of the
//! lag without one large sample ruling it. The first sample `r` starts `s = r`, `v = r / 2` (an
//! estimate of `3r`, cautious until more answers come). One sample counts at most twice the
//! estimate it meets, so one network hiccup (or a member paused once) raises the estimate by a
//! step, not to the hiccup; a lasting change is still followed, doubling each answer at most.
//! What gougi does with the estimates (a member whose answers lag is told a shorter clock, and
//! one whose clock runs past gougi's soft deadline is stopped earlier) is
//! [`crate::gougi::deadline::lag_extra`] and [`crate::gougi::deadline::take_lag`].

/// Answers after which the estimate is taken as learned (the GUI is told once then).
pub const LEARNED_AFTER: u32 = 8;

/// No estimate is larger than this (ms): a member this late would be left with nothing.
pub const MAX_LAG_MS: f64 = 60_000.0;

/// One member's answer lag: smoothed, its deviation, and how many samples made it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lag {
    smoothed: f64,
    deviation: f64,
    samples: u32,
}

impl Lag {
    /// One answer's lag, in ms.
    pub fn record(&mut self, ms: f64) {
        let ms = ms.clamp(0.0, MAX_LAG_MS);
        if self.samples == 0 {
            self.smoothed = ms;
            self.deviation = ms / 2.0;
        } else {
            let r = ms.min(2.0 * self.estimate_f64().max(1.0));
            // RFC 6298 updates the deviation with the old smoothed value first.
            self.deviation = 0.75 * self.deviation + 0.25 * (self.smoothed - r).abs();
            self.smoothed = 0.875 * self.smoothed + 0.125 * r;
        }
        self.samples = self.samples.saturating_add(1);
    }

    fn estimate_f64(&self) -> f64 {
        (self.smoothed + 4.0 * self.deviation).min(MAX_LAG_MS)
    }

    /// How late this member's answers may come, in ms (0 before its first sample).
    pub fn estimate(&self) -> u64 {
        self.estimate_f64().ceil() as u64
    }

    /// The smoothed lag (ms), for reports.
    pub fn typical(&self) -> u64 {
        self.smoothed.round() as u64
    }

    /// Answers learned from.
    pub fn samples(&self) -> u32 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_sample_no_lag() {
        assert_eq!(Lag::default().estimate(), 0);
    }

    #[test]
    fn the_first_sample_is_taken_cautiously_then_the_estimate_settles_near_the_tail() {
        let mut lag = Lag::default();
        lag.record(60.0);
        assert_eq!(lag.estimate(), 180);
        // 30 ± 10 ms each way: round trips between 40 and 80 ms.
        for k in 0..200 {
            lag.record(40.0 + ((k * 37) % 41) as f64);
        }
        let e = lag.estimate();
        assert!((75..=110).contains(&e), "{e}");
        assert!((55..=65).contains(&lag.typical()), "{}", lag.typical());
    }

    #[test]
    fn a_local_member_keeps_a_small_estimate() {
        let mut lag = Lag::default();
        for k in 0..50 {
            lag.record(1.0 + (k % 3) as f64);
        }
        assert!(lag.estimate() <= 6, "{}", lag.estimate());
    }

    #[test]
    fn one_hiccup_raises_the_estimate_by_a_step_and_a_lasting_change_is_followed() {
        let mut lag = Lag::default();
        for _ in 0..50 {
            lag.record(60.0);
        }
        let before = lag.estimate();
        lag.record(3_000.0);
        let after = lag.estimate();
        assert!(after <= 3 * before, "{before} -> {after}");
        for _ in 0..30 {
            lag.record(60.0);
        }
        assert!(lag.estimate() < before + 10, "{}", lag.estimate());
        for _ in 0..40 {
            lag.record(500.0);
        }
        assert!(lag.estimate() >= 480, "{}", lag.estimate());
        lag.record(f64::INFINITY);
        assert!(lag.estimate() as f64 <= MAX_LAG_MS);
    }
}
