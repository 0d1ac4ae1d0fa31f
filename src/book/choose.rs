//! Choosing a book move, with the options YaneuraOu's users know.
//!
//! In order: the ply limit (`BookMoves`: the book answers while the position's move number is
//! at most this), the ignore rate (`BookIgnoreRate`: skip the book that % of the time), then
//! among the book's moves that are *legal here* (each checked by the rules core; an illegal
//! one is left out and logged): the depth limit (`BookDepthLimit`, per move), the eval window
//! (`BookEvalDiff`: within N of the best eval among them) and the side's floor
//! (`BookEvalBlackLimit`/`BookEvalWhiteLimit`). One of the moves left is drawn: weighted by
//! count (`ConsiderBookMoveCount`), else uniformly. The reply comes from the book line if it
//! is legal after the move, else from the book's best move of the next position.
//!
//! Differences from YaneuraOu, on purpose: the eval window is measured from the best eval
//! (YaneuraOu measures from the most-played move, which is the best only in books sorted by
//! eval); the depth limit drops each shallow move rather than the whole position when its
//! first move is shallow; and books made from game records carry depth 0, so gougi's
//! `BookDepthLimit` defaults to 0 (off) where YaneuraOu's is 16.

use crate::shogi::{Color, Move, Position};

use super::{Book, BookMove};

/// The choice options (see the module doc). `Default` is YaneuraOu's defaults, except
/// `depth_limit` (0 here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookChoice {
    /// The book answers while `pos.ply()` (the SFEN move number) is at most this.
    pub max_ply: u32,
    /// Percent of the time the book is skipped (0–100).
    pub ignore_rate: u32,
    /// Keep moves whose eval is at least the best eval minus this (`None`: any eval).
    pub eval_diff: Option<i32>,
    /// The least eval a move may have when Black / White is to move (`None`: no floor).
    pub eval_limit_black: Option<i32>,
    pub eval_limit_white: Option<i32>,
    /// Moves searched less deep than this are left out (0: depth ignored).
    pub depth_limit: i32,
    /// Draw weighted by count (`ConsiderBookMoveCount`); else every move left is as likely.
    pub by_count: bool,
}

impl Default for BookChoice {
    fn default() -> Self {
        BookChoice {
            max_ply: 16,
            ignore_rate: 0,
            eval_diff: Some(30),
            eval_limit_black: Some(0),
            eval_limit_white: Some(-140),
            depth_limit: 0,
            by_count: false,
        }
    }
}

impl BookChoice {
    /// One floor for both sides (a `BookEvalLimit`).
    pub fn with_eval_limit(mut self, limit: Option<i32>) -> Self {
        self.eval_limit_black = limit;
        self.eval_limit_white = limit;
        self
    }
}

/// What [`Book::choose_explained`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// The move to play, its `ponder` checked (legal after the move, else `None`).
    pub pick: Option<BookMove>,
    /// Book moves of this position that are illegal here (skipped).
    pub illegal: Vec<Move>,
    /// Legal book moves left after the filters (the pick was drawn among these).
    pub candidates: usize,
    /// Why there is no pick: `"beyond BookMoves"`, `"ignored (BookIgnoreRate)"`,
    /// `"not in book"`, `"no legal book move"`, `"filtered out (depth/eval limits)"`.
    pub why_not: Option<&'static str>,
}

/// A small seeded generator (SplitMix64) for the choice: deterministic under a seed in tests.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// Seeded from the clock (a different game each run).
    pub fn from_time() -> SplitMix64 {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9E37_79B9, |d| d.as_nanos() as u64);
        SplitMix64(t ^ u64::from(std::process::id()).rotate_left(32))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A number in `0..n` from a 64-bit draw (multiply-shift: no modulo bias worth speaking of).
fn below(r: u64, n: u64) -> u64 {
    ((u128::from(r) * u128::from(n)) >> 64) as u64
}

impl Book {
    /// Chooses a book move for `pos` (see the module doc), or `None`. Illegal book moves are
    /// skipped and logged. `rng` gives uniform 64-bit numbers.
    pub fn choose(
        &self,
        pos: &Position,
        choice: &BookChoice,
        rng: &mut impl FnMut() -> u64,
    ) -> Option<BookMove> {
        self.choose_explained(pos, choice, rng).pick
    }

    /// [`Book::choose`] with the details a front end may show.
    pub fn choose_explained(
        &self,
        pos: &Position,
        choice: &BookChoice,
        rng: &mut impl FnMut() -> u64,
    ) -> Choice {
        let none = |why| Choice {
            why_not: Some(why),
            ..Choice::default()
        };
        if pos.ply() > choice.max_ply {
            return none("beyond BookMoves");
        }
        if choice.ignore_rate > 0 && below(rng(), 100) < u64::from(choice.ignore_rate) {
            return none("ignored (BookIgnoreRate)");
        }
        let all = self.moves(pos);
        if all.is_empty() {
            return none("not in book");
        }
        let mut illegal = Vec::new();
        let mut legal: Vec<BookMove> = Vec::with_capacity(all.len());
        for m in all {
            match pos.is_legal(m.mv) {
                Ok(()) => legal.push(*m),
                Err(why) => {
                    tracing::warn!(
                        sfen = %pos.to_sfen(),
                        mv = %m.mv,
                        ?why,
                        "book move illegal here; skipped"
                    );
                    illegal.push(m.mv);
                }
            }
        }
        if legal.is_empty() {
            return Choice {
                illegal,
                why_not: Some("no legal book move"),
                ..Choice::default()
            };
        }
        if choice.depth_limit > 0 {
            legal.retain(|m| m.depth >= choice.depth_limit);
        }
        let best = legal.iter().map(|m| m.eval).max();
        let side_floor = match pos.side_to_move() {
            Color::Black => choice.eval_limit_black,
            Color::White => choice.eval_limit_white,
        };
        let window_floor = best.zip(choice.eval_diff).map(|(b, d)| b.saturating_sub(d));
        let floor = window_floor.max(side_floor);
        if let Some(f) = floor {
            legal.retain(|m| m.eval >= f);
        }
        if legal.is_empty() {
            return Choice {
                illegal,
                why_not: Some("filtered out (depth/eval limits)"),
                ..Choice::default()
            };
        }
        let total: u64 = legal.iter().map(|m| m.count).fold(0, u64::saturating_add);
        let index = if choice.by_count && total > 0 {
            let mut r = below(rng(), total);
            legal
                .iter()
                .position(|m| {
                    if r < m.count {
                        true
                    } else {
                        r -= m.count;
                        false
                    }
                })
                .unwrap_or(0)
        } else {
            below(rng(), legal.len() as u64) as usize
        };
        let mut pick = legal[index];
        pick.ponder = self.reply(pos, &pick);
        Choice {
            pick: Some(pick),
            illegal,
            candidates: legal.len(),
            why_not: None,
        }
    }

    /// The reply to `m` in `pos`: the book line's if legal after the move, else the first legal
    /// book move of the next position.
    fn reply(&self, pos: &Position, m: &BookMove) -> Option<Move> {
        let mut next = pos.clone();
        next.try_play(m.mv).ok()?;
        m.ponder
            .filter(|&p| next.is_legal(p).is_ok())
            .or_else(|| self.best_legal(&next))
    }

    /// The first (most played) book move of `pos` that is legal.
    fn best_legal(&self, pos: &Position) -> Option<Move> {
        self.moves(pos)
            .iter()
            .map(|b| b.mv)
            .find(|&m| pos.is_legal(m).is_ok())
    }

    /// A principal variation for the `info` line: `first`, its reply (`ponder`, if legal),
    /// then the book's best legal move at each following position, up to `max_len` moves.
    pub fn pv(
        &self,
        pos: &Position,
        first: Move,
        ponder: Option<Move>,
        max_len: usize,
    ) -> Vec<Move> {
        let mut line = Vec::new();
        let mut p = pos.clone();
        if max_len == 0 || p.try_play(first).is_err() {
            return line;
        }
        line.push(first);
        if let Some(r) = ponder {
            if line.len() < max_len && p.try_play(r).is_ok() {
                line.push(r);
            } else {
                return line;
            }
        }
        while line.len() < max_len {
            let Some(m) = self.best_legal(&p) else { break };
            p.do_move(m);
            line.push(m);
        }
        line
    }
}
