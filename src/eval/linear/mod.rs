//! Static evaluation behind the [`Evaluator`] trait: a linear evaluation over piece-square,
//! hand and king-piece features, updated incrementally by a delta per move.
//!
//! The search talks to evaluation only through [`Evaluator`] (`reset` at the root,
//! `push`/`pop` around `do_move`/`undo_move`, `evaluate` at a node), so another evaluation
//! (NNUE, KPPT) can replace [`TableEval`] later without touching the search.
//!
//! [`TableEval`] scores, from Black's point of view, the sum over Black's pieces minus the sum
//! over White's of three table lookups (see [`Weights`]), plus the pieces in hand:
//! - `psq[kind][square]`: the piece's worth where it stands (material included);
//! - `own[king square][kind][square]`: where it stands given where its own king stands
//!   (defence, castles: Bonanza's "KP");
//! - `opp[king square][kind][square]`: where it stands given where the enemy king stands
//!   (attack);
//! - `hand[kind][i]`: the worth of the (i+1)-th piece of a kind in hand, plus
//!   `own_hand[king square][kind][i]` and `opp_hand[enemy king square][kind][i]`: the same
//!   given where the holder's own king and the enemy king stand (drops near an exposed king);
//! - `safety[near][guards][drops][pawn]` per king, from its owner's side: enemy pieces within
//!   two squares of it, its own pieces next to it, the enemy's non-pawn pieces in hand and
//!   whether the enemy holds a pawn (each count capped at 8) — the one term that is not a sum
//!   over single pieces, so three attackers can weigh more than three times one;
//! - `tempo`, for the side to move;
//! - side-to-move tables (since 2026-11-28, Apery's "T" of KPPT applied to these terms): for
//!   every piece-square, hand and king-hand weight, and for the safety table, a second weight
//!   the side to move gets, whoever owns the piece — a piece is worth more to its owner when
//!   the owner moves next (an attacker near the king, a piece en prise) — and for the
//!   king-piece weights one such weight per (kind, offset from the king) (their factor's
//!   shape: one per king square added nothing the learner could see on 480 k positions);
//! - `pair[camp][kind][kind][direction]` (since 2026-11-28): two pieces on neighbouring
//!   squares — of one side (a castle's gold beside its silver, a pawn in front of a lance),
//!   from their owner's side, or of opposing sides (what a piece touches), once from each
//!   piece's side — by the third of the board the first stands in; with side-to-move weights
//!   too (a piece touching an enemy piece is worth more when its owner moves next). The first
//!   term of two pieces: the king-piece tables see each piece alone.
//!
//! The side-to-move part is carried as one more sum per part (no owner's sign) and given to
//! the side to move at `evaluate`; the pairs a move changes (those of the squares it leaves
//! and takes, before and after) are updated in `push` from the occupied neighbours. Files of
//! the earlier layouts load with the new weights zero (and score as they did).
//!
//! Squares are taken in the owner's frame (White's board rotated by 180°), so one table serves
//! both colours. The weights are learned (`gougi learn`, see [`crate::learn`]) and
//! embedded; `EvalFile` loads another set. [`Weights::hand_set`] is the hand-set evaluation the
//! learning started from. The learner also sees, for every king-piece weight, a shared weight
//! per (kind, offset from the king) — a *factor* that generalises across king squares seen
//! rarely; [`fold_factors`] adds it into the king-piece tables, so the search never sees it.
//!
//! Incremental invariant: after `push(pos, m)` and `pos.do_move(m)`, the top of the stack
//! equals what `reset` would compute on the new position, except when a king moved: then that
//! king's terms are recomputed lazily on the next `evaluate` (kings move rarely). The safety
//! and tempo terms are not carried: a few bitboard counts at every `evaluate` are cheaper than
//! tracking them through every move.
//!
//! # Layout (one file per concern)
//!
//! - [`layout`]: where each weight sits in the one flat table (indices, sizes, the file
//!   layouts of earlier rounds, the learner's factors);
//! - [`weights`]: the table itself ([`Weights`]), its file format, the hand-set start and
//!   `EvalDropout`;
//! - [`terms`]: the one definition of a position's terms ([`for_each_term`](terms)), and the
//!   learner's view of them ([`features`]);
//! - [`table`]: the search's evaluation ([`TableEval`]), carried move by move.

pub mod layout;
pub mod table;
pub mod terms;
pub mod weights;

#[cfg(test)]
mod tests;

pub use layout::{
    factor_of, fold_factors, hand_index, king_range, opp_hand_index, opp_index, own_hand_index,
    own_index, psq_index, turn_index, NUM_FACTORS, NUM_WEIGHTS, OFFSETS,
};
pub use table::TableEval;
pub use terms::{features, safety_index};
pub use weights::{dropout, Weights, WeightsError, WeightsFileError};
