//! A member's `info` line brought within USI's ranges as gougi takes it in (issue 49 item 5).
//!
//! The coordinator calls [`keep_in_range`] on every line a member owes the current round, before
//! anything stores or relays it, so policies, score history, annotated lines, the live relay
//! and the final `info` all see the same values: one place decides what an out-of-range value
//! means. What it does:
//!
//! - `score cp` beyond ±[`MATE_LIKE_CP`] is clamped to it. A bigger number is no better
//!   evidence: engines print mates as `mate`, and their cp stops below their mate value, so a
//!   `cp 99999999` claim must not outrank every other member's real evaluation (it used to
//!   count as 99999, three times the top of any engine's range). Clamped, it still ranks below
//!   every `mate`.
//! - `score mate 0` (and `mate +0`, which reads the same) is dropped; see [`keep_in_range`].
//! - `hashfull` is cut to [`MAX_HASHFULL`] and `seldepth` to [`MAX_SELDEPTH`]: no decision
//!   reads them, but the GUI shows them.
//!
//! `mate -0` stays: YaneuraOu prints it for "mated now" on purpose (an integer cannot carry the
//! sign of zero), and it is the most extreme loss in [`crate::usi::Score::key`].

use crate::usi::{Info, Mate, Score, CP_LIMIT, MATE_LIKE_CP};

/// `hashfull` is per mille of the hash table: a table cannot be more than full.
pub const MAX_HASHFULL: u32 = 1000;

/// The deepest `seldepth` relayed, in plies. Above the longest composed mate problem
/// (ミクロコスモス, 1525 plies) and far beyond any engine's search stack (YaneuraOu's default
/// and gougi's own search stop at 246 plies), so no honest engine is cut, while
/// `seldepth 4294967295` (a counter gone wrong, not a search) no longer reaches the GUI.
///
/// A `seldepth` below `depth` is left alone: some engines count it that way (the deepest ply of
/// the PV nodes they saw, which cut-offs can keep under the nominal depth), and raising it
/// would make up a number the member never said.
pub const MAX_SELDEPTH: u32 = 2_000;

/// What [`keep_in_range`] changed in a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjusted {
    /// A `score cp` beyond ±[`MATE_LIKE_CP`], as gougi read it (the lenient parser has already
    /// saturated it at ±[`CP_LIMIT`]; see [`claimed_cp`]).
    pub cp: Option<i32>,
    /// A `score mate 0` was dropped.
    pub mate_zero: bool,
    /// `hashfull` or `seldepth` was cut.
    pub counters: bool,
}

/// Brings `info` within range (see the module doc) and says what it changed.
///
/// `score mate 0` is dropped rather than read, because both readings are false whenever a
/// member's score can matter. Its sign says the side to move mates; its length says the game
/// is already over, which can only be a mate against the side to move. A member with a legal
/// `bestmove` is not mated, and nobody mates in zero plies. In practice it is an engine's
/// `mate -0` ("mated now") that lost its minus sign on the way through an integer, while
/// ShogiHome shows a relayed `mate 0` as a win of unknown length — the opposite. Read as a
/// win it would top every optimistic decision (and, with `G_MateVerifyMs 0`, unchecked); read
/// as a loss it would win pessimistic ones and count the move as lost for `G_Resign`. As no
/// score, the member's move still counts where moves count, its last sane score stands, and
/// the GUI is told nothing false.
pub fn keep_in_range(info: &mut Info) -> Adjusted {
    let mut adjusted = Adjusted::default();
    if let Some(s) = &mut info.score {
        match s.score {
            Score::Cp(cp) if !(-MATE_LIKE_CP..=MATE_LIKE_CP).contains(&cp) => {
                adjusted.cp = Some(cp);
                s.score = Score::Cp(cp.clamp(-MATE_LIKE_CP, MATE_LIKE_CP));
            }
            Score::Mate(Mate {
                winning: true,
                plies: Some(0),
            }) => {
                adjusted.mate_zero = true;
                info.score = None;
            }
            _ => {}
        }
    }
    if let Some(h) = &mut info.hashfull {
        if *h > MAX_HASHFULL {
            *h = MAX_HASHFULL;
            adjusted.counters = true;
        }
    }
    if let Some(d) = &mut info.seldepth {
        if *d > MAX_SELDEPTH {
            *d = MAX_SELDEPTH;
            adjusted.counters = true;
        }
    }
    adjusted
}

/// The claimed `cp` as the warning prints it. The lenient parser saturates at ±[`CP_LIMIT`], so
/// a value there stands for anything from it outwards (`cp 99999999` reads as 99999): saying
/// "99999 or more" keeps the warning true without the digits gougi never kept.
pub fn claimed_cp(cp: i32) -> String {
    if cp >= CP_LIMIT {
        format!("{CP_LIMIT} or more")
    } else if cp <= -CP_LIMIT {
        format!("-{CP_LIMIT} or less")
    } else {
        cp.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::{Bound, InfoScore};

    fn info(line: &str) -> Info {
        match line.parse() {
            Ok(crate::usi::EngineMessage::Info(info)) => info,
            other => panic!("not an info line: {other:?}"),
        }
    }

    fn kept(line: &str) -> (String, Adjusted) {
        let mut i = info(line);
        let adjusted = keep_in_range(&mut i);
        (i.to_string(), adjusted)
    }

    #[test]
    fn cp_beyond_the_mate_like_bound_is_clamped_both_ways() {
        assert_eq!(
            kept("info depth 20 score cp 99999999 pv 7g7f"),
            (
                "info depth 20 score cp 32000 pv 7g7f".to_string(),
                Adjusted {
                    cp: Some(CP_LIMIT),
                    ..Adjusted::default()
                }
            )
        );
        assert_eq!(
            kept("info score cp -45000 upperbound"),
            (
                "info score cp -32000 upperbound".to_string(),
                Adjusted {
                    cp: Some(-45_000),
                    ..Adjusted::default()
                }
            )
        );
        // i32::MIN cannot be negated: the clamp must not try.
        let mut i = Info {
            score: Some(InfoScore::exact(Score::Cp(i32::MIN))),
            ..Info::default()
        };
        assert_eq!(keep_in_range(&mut i).cp, Some(i32::MIN));
        assert_eq!(i.score, Some(InfoScore::exact(Score::Cp(-MATE_LIKE_CP))));
    }

    #[test]
    fn engines_own_range_is_untouched() {
        // YaneuraOu's and gougi's own mate value, gougi's superiority value, ordinary scores,
        // every mate but `mate 0`.
        for line in [
            "info depth 1 score cp 32000",
            "info depth 1 score cp -32000",
            "info depth 1 score cp 31753 lowerbound",
            "info depth 1 score cp 0",
            "info depth 1 score mate 5",
            "info depth 1 score mate -0",
            "info depth 1 score mate +",
            "info depth 1 score mate -",
            "info depth 9 seldepth 2000 hashfull 1000 score cp 12",
            "info depth 30 seldepth 12 hashfull 0 score cp 12",
            "info string mate 0",
        ] {
            assert_eq!(
                kept(line),
                (line.to_string(), Adjusted::default()),
                "{line}"
            );
        }
    }

    #[test]
    fn mate_zero_is_dropped_with_its_bound_and_the_rest_is_kept() {
        for line in [
            "info depth 3 score mate 0 pv 7g7f",
            "info depth 3 score mate +0 pv 7g7f",
            "info depth 3 score mate 0 lowerbound pv 7g7f",
        ] {
            assert_eq!(
                kept(line),
                (
                    "info depth 3 pv 7g7f".to_string(),
                    Adjusted {
                        mate_zero: true,
                        ..Adjusted::default()
                    }
                ),
                "{line}"
            );
        }
        let mut i = info("info score mate 0 upperbound");
        assert_eq!(i.score.map(|s| s.bound), Some(Bound::Upper));
        assert!(keep_in_range(&mut i).mate_zero);
        assert_eq!(i, Info::default());
    }

    #[test]
    fn hashfull_and_seldepth_are_cut_but_never_raised() {
        assert_eq!(
            kept("info depth 3 seldepth 4294967295 hashfull 5000 score cp 7 pv 7g7f"),
            (
                "info depth 3 seldepth 2000 hashfull 1000 score cp 7 pv 7g7f".to_string(),
                Adjusted {
                    counters: true,
                    ..Adjusted::default()
                }
            )
        );
        assert_eq!(kept("info hashfull 1001").0, "info hashfull 1000");
        assert_eq!(kept("info seldepth 2001").0, "info seldepth 2000");
        // A seldepth under depth is the member's own count: not made up to depth.
        assert_eq!(
            kept("info depth 40 seldepth 3"),
            ("info depth 40 seldepth 3".to_string(), Adjusted::default())
        );
    }

    #[test]
    fn the_warning_never_claims_digits_the_parser_did_not_keep() {
        assert_eq!(claimed_cp(45_000), "45000");
        assert_eq!(claimed_cp(-32_001), "-32001");
        assert_eq!(claimed_cp(CP_LIMIT), "99999 or more");
        assert_eq!(claimed_cp(i32::MAX), "99999 or more");
        assert_eq!(claimed_cp(-CP_LIMIT), "-99999 or less");
        assert_eq!(claimed_cp(i32::MIN), "-99999 or less");
    }
}
