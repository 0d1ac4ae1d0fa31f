//! Time controls and the runner's own clocks.
//!
//! The runner never trusts an engine's sense of time: it measures each move itself, from
//! writing `go` to reading `bestmove`, and a move that takes longer than the side's allowance
//! plus a grace (pipe and scheduling latency) loses on time.
//!
//! Conventions (documented in ARCHITECTURE.md): the Fischer increment is added to a side's time
//! when its turn starts (as Shogidokoro does), so `btime`/`wtime` in `go` already include it;
//! byoyomi (秒読み) is per move and does not accumulate; a node limit (`go … nodes N`) may be
//! combined with a time control, and with no time control at all a move may take at most the
//! hang limit.
//!
//! The grace is per move under byoyomi, which starts afresh every move. Without byoyomi
//! (sudden death, Fischer) it is one overdraft for the whole game: what a side used beyond its
//! allowances adds up, and it loses once the sum passes the grace. A per-move grace there let a
//! side whose clock had run out play on for ever at up to the grace a move (2026-12-02: the
//! 2-thread search ran 3 s sudden-death games to 3.42 s).

use std::time::Duration;

use crate::shogi::Color;

/// One side's limits. All times in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Main time (持ち時間) at the start of the game.
    pub time_ms: u64,
    /// Byoyomi (秒読み), per move, after the main time is spent.
    pub byoyomi_ms: u64,
    /// Fischer increment per move.
    pub inc_ms: u64,
    /// A node budget per move (`go … nodes N`).
    pub nodes: Option<u64>,
}

/// Why a time control cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitsError {
    #[error("byoyomi and a Fischer increment cannot be combined (USI sends one or the other)")]
    ByoyomiAndIncrement,
    #[error("no time control: give --time, --byoyomi, --inc or --nodes")]
    NoControl,
}

impl Limits {
    /// Whether a clock runs (else only the node budget and the hang limit bound a move).
    pub fn is_timed(&self) -> bool {
        self.time_ms > 0 || self.byoyomi_ms > 0 || self.inc_ms > 0
    }

    /// Checks that the limits make a playable control.
    pub fn validate(&self) -> Result<(), LimitsError> {
        if self.byoyomi_ms > 0 && self.inc_ms > 0 {
            return Err(LimitsError::ByoyomiAndIncrement);
        }
        if !self.is_timed() && self.nodes.is_none() {
            return Err(LimitsError::NoControl);
        }
        Ok(())
    }

    /// `10s+1s byoyomi`, `60s+2s inc`, `nodes 20000`, … for tables and records.
    pub fn describe(&self) -> String {
        let secs = |ms: u64| {
            if ms % 1000 == 0 {
                format!("{}s", ms / 1000)
            } else {
                format!("{:.3}s", ms as f64 / 1000.0)
            }
        };
        let mut parts = Vec::new();
        if self.time_ms > 0 {
            parts.push(secs(self.time_ms));
        }
        if self.byoyomi_ms > 0 {
            parts.push(format!("byoyomi {}", secs(self.byoyomi_ms)));
        }
        if self.inc_ms > 0 {
            parts.push(format!("inc {}", secs(self.inc_ms)));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes {n}"));
        }
        parts.join(" + ")
    }
}

/// A move took longer than the side's allowance plus the grace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLoss;

/// Both sides' clocks during one game.
#[derive(Clone, Debug)]
pub struct Clocks {
    limits: [Limits; 2],
    remaining_ms: [u64; 2],
    /// Time used beyond the allowances so far, without byoyomi (see the module notes).
    overdrawn_ms: [u64; 2],
    jitter: Option<Jitter>,
    /// The node budget of each ply drawn so far, from `first_ply` on (see [`Clocks::nodes_at`]).
    budgets: Vec<Option<u64>>,
    first_ply: Option<usize>,
}

/// Random per-move variation of node budgets. Engines searching a fixed number of nodes on one
/// thread are deterministic, so without it a pairing replays the same few games (2 per opening)
/// and the Elo interval pretends to a precision the sample does not have.
#[derive(Clone, Debug)]
struct Jitter {
    /// The largest change, as a fraction of the budget (0.1 = ±10 %).
    fraction: f64,
    /// xorshift64* state (never 0).
    state: u64,
}

impl Jitter {
    /// Uniform in [-1, 1].
    fn next_unit(&mut self) -> f64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let x = self.state.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

impl Clocks {
    /// Fresh clocks; `limits` indexed by colour.
    pub fn new(limits: [Limits; 2]) -> Clocks {
        Clocks {
            limits,
            remaining_ms: [limits[0].time_ms, limits[1].time_ms],
            overdrawn_ms: [0, 0],
            jitter: None,
            budgets: Vec::new(),
            first_ply: None,
        }
    }

    /// Varies every node budget by up to ±`percent` %, uniformly, from `seed` (the same seed
    /// gives the same budgets).
    pub fn with_node_jitter(mut self, percent: u32, seed: u64) -> Clocks {
        if percent > 0 {
            self.jitter = Some(Jitter {
                fraction: f64::from(percent.min(90)) / 100.0,
                // Scramble so that neighbouring seeds (game numbers) diverge at once.
                state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            });
        }
        self
    }

    /// The side's limits.
    pub fn limits(&self, c: Color) -> Limits {
        self.limits[c.index()]
    }

    /// Starts `c`'s turn: adds its increment.
    pub fn start_turn(&mut self, c: Color) {
        let i = c.index();
        self.remaining_ms[i] += self.limits[i].inc_ms;
    }

    /// Main time left (increment included once the turn started).
    pub fn remaining_ms(&self, c: Color) -> u64 {
        self.remaining_ms[c.index()]
    }

    /// The most `c` may use on this move before it loses on time; `None` when no clock runs.
    pub fn allowance(&self, c: Color) -> Option<Duration> {
        let l = self.limits[c.index()];
        l.is_timed()
            .then(|| Duration::from_millis(self.remaining_ms[c.index()] + l.byoyomi_ms))
    }

    /// The node budget of ply `ply` (an index into the game's moves, opening moves included),
    /// which `c` plays; `None` when `c` has no node limit. With jitter, budgets are drawn once
    /// per ply and in ply order, whatever order they are asked for in (a ponder asks for the
    /// next two plies' at once): the same seed gives the same budget to every ply, with
    /// `--ponder` or without, hit or miss. Plies before the first one asked for draw nothing.
    pub fn nodes_at(&mut self, c: Color, ply: usize) -> Option<u64> {
        let first = *self.first_ply.get_or_insert(ply);
        let Some(k) = ply.checked_sub(first) else {
            // Never happens in a game (plies only move forward); no draw, so no effect.
            return self.limits[c.index()].nodes;
        };
        while self.budgets.len() <= k {
            // The side of the ply being drawn: `c` at `ply`, alternating backwards.
            let behind = k - self.budgets.len();
            let side = if behind % 2 == 0 { c } else { !c };
            let budget = self.limits[side.index()]
                .nodes
                .map(|n| match &mut self.jitter {
                    None => n,
                    Some(j) => {
                        let scaled = n as f64 * (1.0 + j.fraction * j.next_unit());
                        (scaled.round() as u64).max(1)
                    }
                });
            self.budgets.push(budget);
        }
        self.budgets[k]
    }

    /// The clock part of a `go` line (` btime … wtime … byoyomi …|binc … winc …`), as the
    /// clocks stand, with `extra_ms` added to `c`'s main time; empty when `c` plays no clock.
    fn clock_words(&self, c: Color, extra_ms: [u64; 2]) -> String {
        let l = self.limits[c.index()];
        if !l.is_timed() {
            return String::new();
        }
        let (b, w) = (Color::Black.index(), Color::White.index());
        let mut s = format!(
            " btime {} wtime {}",
            self.remaining_ms[b] + extra_ms[b],
            self.remaining_ms[w] + extra_ms[w]
        );
        if l.inc_ms > 0 {
            s.push_str(&format!(
                " binc {} winc {}",
                self.limits[b].inc_ms, self.limits[w].inc_ms
            ));
        } else {
            s.push_str(&format!(" byoyomi {}", l.byoyomi_ms));
        }
        s
    }

    /// The `go` line for `c` to move at ply `ply`: `go btime … wtime … byoyomi …|binc … winc …`
    /// plus `nodes …`, or `go nodes …` with no clock.
    pub fn go_line(&mut self, c: Color, ply: usize) -> String {
        let mut s = format!("go{}", self.clock_words(c, [0, 0]));
        if let Some(n) = self.nodes_at(c, ply) {
            s.push_str(&format!(" nodes {n}"));
        }
        s
    }

    /// The `go ponder` line for `c`, which has just played ply `ply - 2` and ponders its reply
    /// to the opponent's ply `ply - 1` (the cluster frame, ARCHITECTURE "Cluster frame"):
    /// - the clock as it stands (the opponent's at the start of its turn, `c`'s after its
    ///   move, with the increment it gets when its turn starts, as a `go` then would say);
    ///   `ponderhit` is sent plain, so the engine plans from these;
    /// - with node budgets, `nodes` = `c`'s own budget for ply `ply` + the opponent's for
    ///   ply `ply - 1`: while the opponent searches its budget `c` may search as much, and on
    ///   a hit its own limit covers both, whatever the timing. On a miss it gets a plain
    ///   `go nodes <own>` ([`Clocks::go_line`] for `ply`).
    pub fn ponder_line(&mut self, c: Color, ply: usize) -> String {
        let mut extra = [0, 0];
        extra[c.index()] = self.limits[c.index()].inc_ms;
        let mut s = format!("go ponder{}", self.clock_words(c, extra));
        // In ply order: the opponent's (ply - 1) first.
        let theirs = ply
            .checked_sub(1)
            .and_then(|p| self.nodes_at(!c, p))
            .unwrap_or(0);
        if let Some(own) = self.nodes_at(c, ply) {
            s.push_str(&format!(" nodes {}", own.saturating_add(theirs)));
        }
        s
    }

    /// What is left of `grace` for `c`'s move: all of it under byoyomi, else what the game's
    /// overdraft has not used (see the module notes).
    pub fn grace_left(&self, c: Color, grace: Duration) -> Duration {
        let i = c.index();
        if self.limits[i].byoyomi_ms > 0 {
            return grace;
        }
        grace.saturating_sub(Duration::from_millis(self.overdrawn_ms[i]))
    }

    /// Charges `used` to `c` after its move. `Err(TimeLoss)` when it overstepped its allowance
    /// by more than [`Clocks::grace_left`]; otherwise the byoyomi part is not carried over and,
    /// without byoyomi, the overstep is added to the side's overdraft.
    pub fn charge(&mut self, c: Color, used: Duration, grace: Duration) -> Result<(), TimeLoss> {
        let i = c.index();
        if let Some(allow) = self.allowance(c) {
            if used > allow + self.grace_left(c, grace) {
                return Err(TimeLoss);
            }
            if self.limits[i].byoyomi_ms == 0 && used > allow {
                let over = u64::try_from((used - allow).as_millis()).unwrap_or(u64::MAX);
                self.overdrawn_ms[i] = self.overdrawn_ms[i].saturating_add(over);
            }
        }
        let used_ms = u64::try_from(used.as_millis()).unwrap_or(u64::MAX);
        self.remaining_ms[i] = self.remaining_ms[i].saturating_sub(used_ms);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byoyomi(ms: u64) -> Limits {
        Limits {
            byoyomi_ms: ms,
            ..Default::default()
        }
    }

    #[test]
    fn go_lines() {
        let mut c = Clocks::new([byoyomi(1000), byoyomi(1000)]);
        assert_eq!(
            c.go_line(Color::Black, 0),
            "go btime 0 wtime 0 byoyomi 1000"
        );
        let f = Limits {
            time_ms: 60_000,
            inc_ms: 2_000,
            ..Default::default()
        };
        let mut c = Clocks::new([f, f]);
        c.start_turn(Color::Black);
        assert_eq!(
            c.go_line(Color::Black, 0),
            "go btime 62000 wtime 60000 binc 2000 winc 2000"
        );
        let n = Limits {
            nodes: Some(5000),
            ..Default::default()
        };
        let mut c = Clocks::new([n, n]);
        assert_eq!(c.go_line(Color::White, 1), "go nodes 5000");
        assert_eq!(c.allowance(Color::White), None);
    }

    #[test]
    fn node_jitter_stays_in_range_and_repeats_by_seed() {
        let n = Limits {
            nodes: Some(10_000),
            ..Default::default()
        };
        let budgets = |seed| {
            let mut c = Clocks::new([n, n]).with_node_jitter(10, seed);
            (0..200)
                .map(|ply| {
                    let line = c.go_line(Color::Black, ply);
                    line["go nodes ".len()..].parse::<u64>().unwrap()
                })
                .collect::<Vec<_>>()
        };
        let a = budgets(7);
        assert!(a.iter().all(|&x| (9_000..=11_000).contains(&x)), "{a:?}");
        assert!(a.iter().any(|&x| x < 9_500) && a.iter().any(|&x| x > 10_500));
        assert_eq!(a, budgets(7));
        assert_ne!(a, budgets(8));
        // No jitter: the budget as given.
        let mut c = Clocks::new([n, n]).with_node_jitter(0, 7);
        assert_eq!(c.go_line(Color::White, 0), "go nodes 10000");
    }

    #[test]
    fn ponder_lines_carry_the_clock_and_both_budgets() {
        // Nodes: Black played ply 0 and ponders ply 2 while White searches ply 1.
        let n = Limits {
            nodes: Some(5000),
            ..Default::default()
        };
        let mut c = Clocks::new([n, n]);
        assert_eq!(c.go_line(Color::Black, 0), "go nodes 5000");
        assert_eq!(c.ponder_line(Color::Black, 2), "go ponder nodes 10000");
        assert_eq!(c.go_line(Color::White, 1), "go nodes 5000");
        // Per-engine budgets: each side's own plus the other's.
        let m = Limits {
            nodes: Some(2000),
            ..Default::default()
        };
        let mut c = Clocks::new([n, m]);
        assert_eq!(c.ponder_line(Color::White, 3), "go ponder nodes 7000");
        assert_eq!(c.ponder_line(Color::Black, 4), "go ponder nodes 7000");
        // A clock: as it stands, with the ponderer's coming increment.
        let f = Limits {
            time_ms: 60_000,
            inc_ms: 2_000,
            ..Default::default()
        };
        let mut c = Clocks::new([f, f]);
        c.start_turn(Color::Black);
        c.charge(Color::Black, Duration::from_millis(5_000), Duration::ZERO)
            .unwrap();
        c.start_turn(Color::White);
        assert_eq!(
            c.ponder_line(Color::Black, 2),
            "go ponder btime 59000 wtime 62000 binc 2000 winc 2000"
        );
        let b = Limits {
            byoyomi_ms: 300,
            ..Default::default()
        };
        let mut c = Clocks::new([b, b]);
        assert_eq!(
            c.ponder_line(Color::White, 1),
            "go ponder btime 0 wtime 0 byoyomi 300"
        );
    }

    #[test]
    fn jittered_budgets_are_drawn_in_ply_order_whoever_asks() {
        // A ponder asks for the next two plies' budgets before the first of them is played:
        // every ply still gets the budget a run without ponder gives it.
        let n = Limits {
            nodes: Some(10_000),
            ..Default::default()
        };
        let side = |ply: usize| {
            if ply % 2 == 0 {
                Color::Black
            } else {
                Color::White
            }
        };
        let mut plain = Clocks::new([n, n]).with_node_jitter(10, 3);
        let without: Vec<u64> = (4..40)
            .map(|p| plain.nodes_at(side(p), p).unwrap())
            .collect();
        let mut pondering = Clocks::new([n, n]).with_node_jitter(10, 3);
        let mut with = Vec::new();
        for p in 4..40 {
            with.push(pondering.nodes_at(side(p), p).unwrap());
            // The mover ponders its next move: the opponent's ply and its own.
            let _ = pondering.ponder_line(side(p), p + 2);
        }
        assert_eq!(with, without);
        // Black's move at ply 4, then its ponder: White's ply 5 and its own ply 6.
        let mut again = Clocks::new([n, n]).with_node_jitter(10, 3);
        assert_eq!(again.nodes_at(Color::Black, 4), Some(without[0]));
        assert_eq!(
            again.ponder_line(Color::Black, 6),
            format!("go ponder nodes {}", without[1] + without[2])
        );
    }

    #[test]
    fn time_is_charged_and_lost() {
        let l = Limits {
            time_ms: 1000,
            byoyomi_ms: 500,
            ..Default::default()
        };
        let grace = Duration::from_millis(50);
        let mut c = Clocks::new([l, l]);
        c.start_turn(Color::Black);
        assert_eq!(c.allowance(Color::Black), Some(Duration::from_millis(1500)));
        c.charge(Color::Black, Duration::from_millis(1200), grace)
            .unwrap();
        assert_eq!(c.remaining_ms(Color::Black), 0);
        // Now only byoyomi (+ grace) is left.
        assert!(c
            .charge(Color::Black, Duration::from_millis(540), grace)
            .is_ok());
        assert!(c
            .charge(Color::Black, Duration::from_millis(551), grace)
            .is_err());
        // Sudden death: the main time only.
        let sd = Limits {
            time_ms: 300,
            ..Default::default()
        };
        let mut c = Clocks::new([sd, sd]);
        c.charge(Color::White, Duration::from_millis(200), Duration::ZERO)
            .unwrap();
        assert!(c
            .charge(Color::White, Duration::from_millis(101), Duration::ZERO)
            .is_err());
    }

    #[test]
    fn without_byoyomi_the_grace_is_one_overdraft_for_the_game() {
        let grace = Duration::from_millis(200);
        let ms = Duration::from_millis;
        // Sudden death 300 ms: 350 leaves 150 of the grace; at 0 left, 100 more is still in it,
        // and 60 after that is not (150 + 60 > 200 altogether).
        let sd = Limits {
            time_ms: 300,
            ..Default::default()
        };
        let mut c = Clocks::new([sd, sd]);
        c.charge(Color::Black, ms(350), grace).unwrap();
        assert_eq!(c.remaining_ms(Color::Black), 0);
        assert_eq!(c.grace_left(Color::Black, grace), ms(150));
        c.charge(Color::Black, ms(100), grace).unwrap();
        assert_eq!(c.grace_left(Color::Black, grace), ms(50));
        assert!(c.charge(Color::Black, ms(60), grace).is_err());
        // The other side's grace is its own.
        assert_eq!(c.grace_left(Color::White, grace), grace);
        // Fischer: the increment is the allowance of a side at 0; beyond it the overdraft grows.
        let f = Limits {
            time_ms: 100,
            inc_ms: 50,
            ..Default::default()
        };
        let mut c = Clocks::new([f, f]);
        c.start_turn(Color::White);
        c.charge(Color::White, ms(300), grace).unwrap(); // 150 allowed: 150 over
        c.start_turn(Color::White);
        c.charge(Color::White, ms(50), grace).unwrap(); // the increment: nothing over
        c.start_turn(Color::White);
        // 51 over: 201 in all.
        assert!(c.charge(Color::White, ms(101), grace).is_err());
        // Byoyomi: every move has the whole grace again.
        let b = Limits {
            byoyomi_ms: 100,
            ..Default::default()
        };
        let mut c = Clocks::new([b, b]);
        for _ in 0..5 {
            c.charge(Color::Black, ms(290), grace).unwrap();
            assert_eq!(c.grace_left(Color::Black, grace), grace);
        }
    }

    #[test]
    fn validation_and_description() {
        assert!(Limits::default().validate().is_err());
        let both = Limits {
            byoyomi_ms: 1,
            inc_ms: 1,
            ..Default::default()
        };
        assert!(both.validate().is_err());
        let l = Limits {
            time_ms: 10_000,
            byoyomi_ms: 1_500,
            nodes: Some(100),
            ..Default::default()
        };
        assert!(l.validate().is_ok());
        assert_eq!(l.describe(), "10s + byoyomi 1.500s + nodes 100");
    }
}
