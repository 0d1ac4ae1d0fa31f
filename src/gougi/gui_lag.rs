//! How late the GUI's clock sees gougi's moves: the time lost outside gougi on every move,
//! kept off the clock before any plan (`G_NetworkDelay`), and learned from the GUI's own clock
//! where that clock can tell.
//!
//! A GUI or a CSA server times a move from before gougi reads its `go` to after it reads the
//! `bestmove`. Locally that is a pipe each way, ~1 ms. Through a CSA server it is the network
//! both ways, the server's own delay in sending the previous move (its clock starts when it
//! *queues* the move; 40 ms measured on an idle loopback server, 80 ms loaded) and the bridge:
//! at byoyomi 2 s gougi answered at 1.97 s by its own clock, the server read 2.05 s, and the game
//! was lost (issue 65). So before gougi plans a move it takes this delay off the GUI's clock,
//! main time first, then byoyomi ([`crate::gougi::deadline::spent`]), as if the GUI had already
//! spent it.
//!
//! **Learning.** When the game has main time, the clock the GUI sends with the next `go` says
//! what it charged for gougi's last move: `main + inc − main'`. Less the time gougi itself took
//! (from reading `go` or `ponderhit` to writing `bestmove`), that is the delay the GUI's clock
//! saw. It is learned with the members' estimator ([`crate::gougi::lag::Lag`], TCP's timer:
//! smoothed + 4 × deviation) and, once [`LEARNED_AFTER`] moves gave a sample, it replaces
//! `G_NetworkDelay`, down (a local GUI, a few ms) or up (a GUI slower than the default
//! assumes). Only a clock that counts milliseconds can tell: a CSA server counts whole seconds
//! and floors (a move of 1.98 s costs 1 s), and a bridge passes those seconds on, so a charge of
//! a whole number of seconds says nothing of a 100 ms lag. The game's clock must therefore have
//! shown a value that is not a whole number of seconds, else `G_NetworkDelay` stands. A
//! byoyomi-only game (`btime 0`) never shows what it charged: `G_NetworkDelay` stands there too.
//!
//! A move does not give a sample when the main time ran out during it (byoyomi paid part of
//! it), when the next clock is not two plies later (a take-back, a new game), or when the move
//! followed a missed ponder (its clock started at the `stop`, which the turnaround charge
//! already covers).

use crate::gougi::lag::Lag;

/// Moves that gave a sample before the learned delay replaces `G_NetworkDelay`.
pub const LEARNED_AFTER: u32 = 4;

/// One answered move, waiting for the clock of the next `go` to say what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Answered {
    ply: u32,
    black: bool,
    /// Our main time and increment when the move was asked for (the GUI's numbers).
    main: u64,
    inc: u64,
    /// gougi's own time for the move, ms.
    took: u64,
}

/// The GUI's delay as learned from its clock (see the module notes). One per gougi process.
#[derive(Clone, Debug, Default)]
pub struct GuiLag {
    lag: Lag,
    /// This game's clock counted milliseconds (a value that is not a whole second was seen).
    fine: bool,
    answered: Option<Answered>,
    /// The learned value was reported to the GUI in this game.
    said: bool,
}

impl GuiLag {
    /// A new game: the clock must show again that it counts milliseconds; the estimate stays
    /// (the same GUI, the same pipe).
    pub fn new_game(&mut self) {
        self.fine = false;
        self.answered = None;
        self.said = false;
    }

    /// The clock of a `go`, `go ponder` or `ponderhit` at `ply` (plies played), for the side
    /// to move (`black`): its main time, and the other side's. If our previous move was
    /// answered two plies earlier, its cost is learned now.
    pub fn clock(&mut self, ply: u32, black: bool, main: u64, other: u64) {
        if main % 1000 != 0 || other % 1000 != 0 {
            self.fine = true;
        }
        let Some(a) = self.answered.take() else {
            return;
        };
        if a.black != black || a.ply + 2 != ply || a.main == 0 || main == 0 || !self.fine {
            return;
        }
        let charged = (a.main + a.inc).saturating_sub(main);
        self.lag.record(charged as f64 - a.took as f64);
    }

    /// Our move at `ply` was written `took` ms after gougi read its `go` (or `ponderhit`);
    /// `main`/`inc` are the GUI's clock for it. `usable` is false after a missed ponder.
    pub fn answered(
        &mut self,
        ply: u32,
        black: bool,
        main: u64,
        inc: u64,
        took: u64,
        usable: bool,
    ) {
        self.answered = usable.then_some(Answered {
            ply,
            black,
            main,
            inc,
            took,
        });
    }

    /// The learned delay (ms), when this game's clock counts milliseconds and enough moves
    /// gave a sample.
    pub fn learned(&self) -> Option<u64> {
        (self.fine && self.lag.samples() >= LEARNED_AFTER).then(|| self.lag.estimate())
    }

    /// The delay to take off the GUI's clock: the learned one, else `configured`
    /// (`G_NetworkDelay`).
    pub fn delay(&self, configured: u64) -> u64 {
        self.learned().unwrap_or(configured)
    }

    /// The line to tell the GUI, once a game, when the learned delay first applies.
    pub fn report(&mut self, configured: u64) -> Option<String> {
        let learned = self.learned()?;
        if self.said {
            return None;
        }
        self.said = true;
        Some(format!(
            "info string [Info] the GUI's clock charges ~{} ms a move beyond gougi's own time: \
             network delay {learned} ms (G_NetworkDelay {configured} until learned)",
            self.lag.typical()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `moves` of our moves at main time `start`, each taking `took` by gougi's clock and
    /// charged `took + lag` by the GUI (no increment), Black to move at even plies.
    fn play(g: &mut GuiLag, start: u64, took: u64, lag: u64, moves: u32) -> u64 {
        let mut main = start;
        for k in 0..moves {
            let ply = 2 * k;
            g.clock(ply, true, main, 60_000);
            g.answered(ply, true, main, 0, took, true);
            main -= took + lag;
        }
        g.clock(2 * moves, true, main, 60_000);
        main
    }

    #[test]
    fn a_local_gui_teaches_a_small_delay() {
        let mut g = GuiLag::default();
        play(&mut g, 60_000, 1_234, 2, 3);
        assert_eq!(g.learned(), None, "three samples are not enough");
        assert_eq!(g.delay(250), 250);
        play(&mut g, 56_000, 1_234, 2, 5);
        let d = g.delay(250);
        assert!((2..=12).contains(&d), "{d}");
        assert!(g.report(250).unwrap().contains("~2 ms"));
        assert_eq!(g.report(250), None, "once a game");
    }

    #[test]
    fn a_slow_gui_teaches_a_larger_delay() {
        let mut g = GuiLag::default();
        play(&mut g, 60_000, 900, 400, 10);
        assert!(g.delay(250) >= 400, "{}", g.delay(250));
    }

    #[test]
    fn a_clock_in_whole_seconds_teaches_nothing() {
        // A CSA server's clock, passed on by a bridge: the charge is floored to seconds.
        let mut g = GuiLag::default();
        let mut main = 60_000;
        for k in 0..20 {
            g.clock(2 * k, true, main, 60_000);
            g.answered(2 * k, true, main, 0, 1_970, true);
            main -= 1_000;
        }
        assert_eq!(g.learned(), None);
        assert_eq!(g.delay(250), 250);
    }

    #[test]
    fn byoyomi_moves_and_broken_sequences_give_no_sample() {
        let mut g = GuiLag::default();
        // Main time ran out during the move.
        g.clock(0, true, 1_500, 60_001);
        g.answered(0, true, 1_500, 0, 1_900, true);
        g.clock(2, true, 0, 60_001);
        // A take-back: the next clock is not two plies on.
        g.answered(2, true, 30_000, 0, 500, true);
        g.clock(6, true, 29_499, 60_001);
        // After a missed ponder.
        g.answered(6, true, 29_499, 0, 500, false);
        g.clock(8, true, 28_900, 60_001);
        // The other side's clock.
        g.answered(8, true, 28_900, 0, 500, true);
        g.clock(10, false, 28_300, 60_001);
        assert_eq!(g.lag.samples(), 0);
    }

    #[test]
    fn the_increment_is_part_of_the_charge() {
        let mut g = GuiLag::default();
        let mut main = 10_000;
        for k in 0..6 {
            g.clock(2 * k, true, main, 10_001);
            g.answered(2 * k, true, main, 1_000, 800, true);
            // Charged 805 ms, the increment added after the move.
            main = main + 1_000 - 805;
        }
        g.clock(12, true, main, 10_001);
        assert!((5..=20).contains(&g.delay(250)), "{}", g.delay(250));
    }

    #[test]
    fn a_new_game_needs_the_clock_to_show_milliseconds_again() {
        let mut g = GuiLag::default();
        play(&mut g, 60_000, 1_234, 2, 8);
        assert!(g.learned().is_some());
        g.new_game();
        assert_eq!(g.delay(250), 250);
        g.clock(0, true, 60_000, 60_000);
        assert_eq!(g.delay(250), 250);
        g.clock(2, true, 58_766, 60_000);
        assert!(g.delay(250) < 20);
    }
}
