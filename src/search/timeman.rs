//! Time management (時間管理): how long one `go` may think.
//!
//! A pure function of the clock ([`Clock`]), the game ply and the engine options
//! ([`TimeOptions`]) gives a [`TimeBudget`]: `optimum` (stop starting new iterations around
//! here) and `maximum` (stop the search, whatever it is doing). The search reads it; nothing
//! here looks at the wall clock, so the arithmetic is unit-tested.
//!
//! Clock kinds:
//! - byoyomi (秒読み): `byoyomi` ms are free every move; when the main time is gone we think
//!   almost the whole byoyomi, since unused byoyomi is lost.
//! - Fischer (`binc`/`winc`): the increment arrives after the move, so the hard limit is the
//!   clock itself, but future increments are budgeted.
//! - sudden death (切れ負け): no byoyomi or increment; spend a fraction of what is left.
//!
//! Safety margins use YaneuraOu's option names: `NetworkDelay` (subtracted from the planned
//! time) and `NetworkDelay2` (subtracted from the hard limit), so latency never makes us lose
//! on time. The defaults are not YaneuraOu's 120/1120, which are a network GUI's margins: on a
//! pipe the only latency is the search noticing its limit and the process being scheduled, and
//! [`DEFAULT_NETWORK_DELAY2`] is measured from that (BENCHMARKS "Time: answer times on a pipe").

/// One side's clock as given by `go`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Main time left, ms.
    pub time: u64,
    /// Fischer increment, ms.
    pub inc: u64,
    /// Byoyomi, ms.
    pub byoyomi: u64,
}

/// The time options declared by `gougi search` (YaneuraOu names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeOptions {
    /// `NetworkDelay`: expected GUI/network latency, taken off every planned time.
    pub network_delay: u64,
    /// `NetworkDelay2`: latency margin at the hard limit, where losing on time is at stake.
    pub network_delay2: u64,
    /// `MinimumThinkingTime`: never plan less than this (unless the hard limit is lower).
    pub minimum_thinking_time: u64,
    /// `SlowMover`: percent scaling of the planned time (100 = as computed).
    pub slow_mover: u64,
}

/// Default `NetworkDelay2`, ms: the hard limit is the clock less this. Over a pipe, at byoyomi
/// 100 with `NetworkDelay2 0`, answers came at most 56 ms after the limit (p99 28 ms, median
/// 4 ms; 500 moves with the 2-core machine at load 10, i.e. every core shared five ways), so 60
/// ms keeps every answer inside the clock there, and `go byoyomi 1000` is answered in ~0.94 s.
pub const DEFAULT_NETWORK_DELAY2: u64 = 60;

impl Default for TimeOptions {
    fn default() -> Self {
        // NetworkDelay 0: the planned time needs no latency allowance of its own on a pipe (the
        // hard limit has one). SlowMover as YaneuraOu; MinimumThinkingTime is 2000 there, 1000
        // here because consultation members often get short clocks.
        TimeOptions {
            network_delay: 0,
            network_delay2: DEFAULT_NETWORK_DELAY2,
            minimum_thinking_time: 1000,
            slow_mover: 100,
        }
    }
}

/// The outcome of the arithmetic: both in ms from the start of thinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub optimum: u64,
    pub maximum: u64,
}

/// Games are planned as if they last this many plies (a long shogi game; YaneuraOu's
/// `MoveHorizon`-style assumption). Past it, [`MIN_MOVES_TO_GO`] applies.
pub const EXPECTED_GAME_PLY: u64 = 160;
/// We always assume at least this many of our own moves are still to be played.
pub const MIN_MOVES_TO_GO: u64 = 16;
/// The hard limit never plans more than this fraction (1/N) of the main time on one move
/// (Stockfish spends at most ~1/5 in sudden death; shogi endgames need reserves too).
pub const MAX_CLOCK_DIVISOR: u64 = 4;
/// The hard limit is at most this multiple of the planned time (Stockfish's `maxScale`-like cap).
pub const MAX_OVER_OPTIMUM: u64 = 5;
/// Floor for any limit, ms: below this we cannot even finish depth 1 reliably.
pub const MIN_LIMIT_MS: u64 = 10;
/// Every clock field and option is capped at this before any arithmetic.
pub const MAX_CLOCK_MS: u64 = crate::usi::MAX_TIME_MS;

/// Plans the time of one move for the side with clock `c` at game ply `ply` (1-based, as in SFEN).
///
/// Total for any input: clock fields and options are capped at [`MAX_CLOCK_MS`] (and
/// `slow_mover` at 10,000 %) before any arithmetic, so nothing overflows and the budget stays
/// finite — `u64::MAX` would read as "no limit" to the search and a huge clock would never end.
pub fn plan(c: Clock, ply: u32, opt: &TimeOptions) -> TimeBudget {
    let time = c.time.min(MAX_CLOCK_MS);
    let inc = c.inc.min(MAX_CLOCK_MS);
    let byoyomi = c.byoyomi.min(MAX_CLOCK_MS);
    let network_delay = opt.network_delay.min(MAX_CLOCK_MS);
    let network_delay2 = opt.network_delay2.min(MAX_CLOCK_MS);
    let minimum_thinking_time = opt.minimum_thinking_time.min(MAX_CLOCK_MS);
    let slow_mover = opt.slow_mover.min(10_000);

    let remaining_plies = EXPECTED_GAME_PLY.saturating_sub(u64::from(ply));
    let moves_to_go = (remaining_plies / 2).max(MIN_MOVES_TO_GO);

    // Hard limit: what the clock allows, minus the latency margin. If the margin eats
    // everything (tiny byoyomi), keep half of what is there rather than nothing.
    let available = time + byoyomi;
    let hard = available
        .saturating_sub(network_delay2)
        .max(available / 2)
        .max(MIN_LIMIT_MS);

    // Planned share of the main time, future increments included. With every input capped at
    // 2^31 the products stay far below 2^64.
    let pool = time + inc * (moves_to_go - 1);
    let base = pool / moves_to_go * slow_mover / 100;

    let mut maximum = hard
        .min(base * MAX_OVER_OPTIMUM + byoyomi)
        .min(time / MAX_CLOCK_DIVISOR + inc + byoyomi);
    maximum = maximum.max(MIN_LIMIT_MS.min(hard));

    let mut optimum = (base + byoyomi).saturating_sub(network_delay);
    if byoyomi > 0 && time < byoyomi {
        // Living on byoyomi: what we do not use is lost.
        optimum = maximum;
    }
    optimum = optimum
        .max(minimum_thinking_time)
        .min(maximum)
        .max(MIN_LIMIT_MS.min(maximum));
    TimeBudget { optimum, maximum }
}

/// A fixed `go movetime`: exactly that long (the GUI asked for it), never less than the floor,
/// never more than [`MAX_CLOCK_MS`].
pub fn fixed(movetime: u64) -> TimeBudget {
    let t = movetime.clamp(MIN_LIMIT_MS, MAX_CLOCK_MS);
    TimeBudget {
        optimum: t,
        maximum: t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt() -> TimeOptions {
        TimeOptions::default()
    }

    #[test]
    fn pure_byoyomi_uses_nearly_all_of_it() {
        let b = plan(
            Clock {
                time: 0,
                inc: 0,
                byoyomi: 10_000,
            },
            50,
            &opt(),
        );
        assert_eq!(b.maximum, 10_000 - DEFAULT_NETWORK_DELAY2);
        assert_eq!(b.optimum, b.maximum);
        // Issue 19: the default margins leave `go byoyomi 1000` most of its second.
        let b = plan(
            Clock {
                time: 0,
                inc: 0,
                byoyomi: 1000,
            },
            50,
            &opt(),
        );
        assert_eq!((b.optimum, b.maximum), (940, 940));
    }

    #[test]
    fn tiny_byoyomi_keeps_half() {
        let b = plan(
            Clock {
                time: 0,
                inc: 0,
                byoyomi: 100,
            },
            50,
            &opt(),
        );
        assert_eq!(b.maximum, 50);
        assert!(b.optimum <= b.maximum);
    }

    #[test]
    fn main_time_with_byoyomi_never_exceeds_clock() {
        for time in [0u64, 500, 5_000, 60_000, 600_000, 3_600_000] {
            for ply in [1u32, 40, 120, 300] {
                let c = Clock {
                    time,
                    inc: 0,
                    byoyomi: 3000,
                };
                let b = plan(c, ply, &opt());
                let d2 = DEFAULT_NETWORK_DELAY2;
                assert!(b.maximum <= (time + 3000).saturating_sub(d2).max((time + 3000) / 2));
                assert!(b.optimum <= b.maximum, "{time} {ply} {b:?}");
            }
        }
    }

    #[test]
    fn sudden_death_spends_a_fraction() {
        let b = plan(
            Clock {
                time: 300_000,
                inc: 0,
                byoyomi: 0,
            },
            1,
            &opt(),
        );
        // 300 s over at least 72 moves: about 4 s planned, at most a quarter of the clock.
        assert!(b.optimum > 2_000 && b.optimum < 6_000, "{b:?}");
        assert!(b.maximum <= 75_000 && b.maximum > b.optimum);
        // Almost flagged: still below the clock.
        let b = plan(
            Clock {
                time: 900,
                inc: 0,
                byoyomi: 0,
            },
            200,
            &opt(),
        );
        assert!(b.maximum < 900 && b.optimum <= b.maximum, "{b:?}");
    }

    #[test]
    fn fischer_budgets_increments() {
        let without = plan(
            Clock {
                time: 60_000,
                inc: 0,
                byoyomi: 0,
            },
            30,
            &opt(),
        );
        let with = plan(
            Clock {
                time: 60_000,
                inc: 10_000,
                byoyomi: 0,
            },
            30,
            &opt(),
        );
        assert!(with.optimum > without.optimum);
        assert!(with.maximum <= 60_000 - DEFAULT_NETWORK_DELAY2);
    }

    /// Clock values and options from outside (`go`, `setoption`) at their extremes (issue
    /// #17, defect 6): no overflow, and a finite budget (`u64::MAX` means "no limit" to the
    /// search, so a budget must stay below it or a huge clock would search forever).
    #[test]
    fn extreme_inputs_give_a_finite_budget() {
        const EXTREMES: [u64; 8] = [
            0,
            1,
            1_000,
            i32::MAX as u64,
            u32::MAX as u64 + 1,
            u64::MAX / 2,
            u64::MAX - 1,
            u64::MAX,
        ];
        for time in EXTREMES {
            for inc in EXTREMES {
                for byoyomi in EXTREMES {
                    for o in [
                        opt(),
                        TimeOptions {
                            network_delay: u64::MAX,
                            network_delay2: u64::MAX,
                            minimum_thinking_time: u64::MAX,
                            slow_mover: u64::MAX,
                        },
                        TimeOptions {
                            network_delay: 0,
                            network_delay2: 0,
                            minimum_thinking_time: 0,
                            slow_mover: 1000,
                        },
                    ] {
                        for ply in [0u32, 1, 300, u32::MAX] {
                            let c = Clock { time, inc, byoyomi };
                            let b = plan(c, ply, &o);
                            let why = format!("{c:?} ply {ply} {o:?}: {b:?}");
                            assert!(b.optimum <= b.maximum, "{why}");
                            assert!(b.maximum <= 2 * MAX_CLOCK_MS, "{why}");
                            let available = time.saturating_add(byoyomi);
                            assert!(b.maximum <= available.max(MIN_LIMIT_MS), "{why}");
                        }
                    }
                }
            }
        }
        for movetime in EXTREMES {
            let b = fixed(movetime);
            assert!(b.maximum <= MAX_CLOCK_MS && b.optimum == b.maximum, "{b:?}");
        }
        // A clock beyond the cap plans like the cap, with byoyomi on top.
        let huge = Clock {
            time: u64::MAX,
            inc: 0,
            byoyomi: 1000,
        };
        let capped = Clock {
            time: MAX_CLOCK_MS,
            ..huge
        };
        assert_eq!(plan(huge, 1, &opt()), plan(capped, 1, &opt()));
    }

    #[test]
    fn slow_mover_and_minimum() {
        let mut o = opt();
        o.slow_mover = 200;
        let c = Clock {
            time: 600_000,
            inc: 0,
            byoyomi: 0,
        };
        assert!(plan(c, 1, &o).optimum > plan(c, 1, &opt()).optimum);
        o.minimum_thinking_time = 5_000;
        o.slow_mover = 100;
        let b = plan(
            Clock {
                time: 60_000,
                inc: 0,
                byoyomi: 0,
            },
            100,
            &o,
        );
        assert!(b.optimum >= 5_000.min(b.maximum));
        assert_eq!(
            fixed(250),
            TimeBudget {
                optimum: 250,
                maximum: 250
            }
        );
    }
}
