//! The evaluation a `gougi search` worker runs: the linear tables, or an NNUE net when
//! `EvalFile` names one (and both kings are on the board, which the net's features need).
//!
//! One type for both keeps the workers, the search thread and the facade single: the choice
//! costs one predictable branch per call, measured as noise against the linear evaluation
//! alone (ARCHITECTURE, "NNUE nets").

use std::sync::Arc;

use super::linear::TableEval;
use super::nnue::{Network, NnueEval};
use super::Evaluator;
use crate::shogi::{Color, Move, Position};

/// The linear evaluation, and the net's when there is one.
#[derive(Clone)]
pub struct SearchEval {
    linear: TableEval,
    nnue: Option<NnueEval>,
    /// Whether the search from the last `reset` evaluates with the net (it has one and the
    /// root has both kings; kings are never captured, so it holds for the whole search).
    with_net: bool,
}

impl SearchEval {
    /// The linear evaluation alone.
    pub fn linear(linear: TableEval) -> SearchEval {
        SearchEval {
            linear,
            nnue: None,
            with_net: false,
        }
    }

    /// The net, with `linear` for positions the net cannot evaluate (a king missing, as in
    /// some composed problems).
    pub fn with_net(linear: TableEval, nnue: NnueEval) -> SearchEval {
        SearchEval {
            linear,
            nnue: Some(nnue),
            with_net: false,
        }
    }

    /// The net this evaluation uses when it can, if any.
    pub fn net(&self) -> Option<&Arc<Network>> {
        self.nnue.as_ref().map(NnueEval::net)
    }
}

impl Evaluator for SearchEval {
    fn reset(&mut self, pos: &Position) {
        let kings = Color::ALL.iter().all(|&c| pos.king_square(c).is_some());
        self.with_net = self.nnue.is_some() && kings;
        match &mut self.nnue {
            Some(n) if self.with_net => n.reset(pos),
            _ => self.linear.reset(pos),
        }
    }

    #[inline]
    fn push(&mut self, pos: &Position, m: Move) {
        match &mut self.nnue {
            Some(n) if self.with_net => n.push(pos, m),
            _ => self.linear.push(pos, m),
        }
    }

    #[inline]
    fn push_null(&mut self) {
        match &mut self.nnue {
            Some(n) if self.with_net => n.push_null(),
            _ => self.linear.push_null(),
        }
    }

    #[inline]
    fn pop(&mut self) {
        match &mut self.nnue {
            Some(n) if self.with_net => n.pop(),
            _ => self.linear.pop(),
        }
    }

    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match &mut self.nnue {
            Some(n) if self.with_net => n.evaluate(pos),
            _ => self.linear.evaluate(pos),
        }
    }
}
