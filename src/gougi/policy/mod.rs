//! Consultation policies: given every member's answer, pick one.
//!
//! Each function here is pure: answers (and, where a rule needs it, a small explicit state) in,
//! a [`Decision`] out. Round shapes — who searches, for how long, in how many phases — belong to
//! the coordinator (`gougi::round`), never to a policy. Answers arrive sorted by member number,
//! and every tie goes to the lower number, as in the reference program (GougiShogi).
//!
//! Every decision carries its [`Reason`], built from the decision's own data; the reason says
//! whether the GUI is told (`info string [why] <move>: <reason>`, ARCHITECTURE "Reasons"): only
//! when the choice is not the [obvious](obvious_move) one.
//!
//! Families (one file each):
//! - [`vote`]: majority vote (plurality over any number of members, optionally weighted);
//! - [`optimism`]: optimistic, pessimistic and their alternation; rise-based variants;
//! - [`exchange`]: two members evaluate each other's best move;
//! - [`change_player`]: one member plays at a time, rotating by plies, phase or score swing;
//! - [`mate`]: a mate found by a mate member overrides the normal member's move;
//! - [`leader`]: the leader's move unless its own re-search prefers another member's.
//!
//! # The catalogue
//!
//! The catalogue of consultation types (合議タイプ), in two halves indexed by [`PolicyKind`]. Its
//! names, member counts, mate engine and advertised `G_` options are `config::kind` (the config
//! parses `Gougi.Type` with them, and `config` is below `gougi`); here, [`CATALOGUE`] holds the
//! behaviour: the shape of its rounds, how it picks one answer among several, and the per-game
//! memory it keeps.
//!
//! A new type is its policy file (in this folder) plus, here, its `mod` line, its row in
//! [`CATALOGUE`] and, when its reasons are of a new kind, a [`Why`] variant; and in
//! `config/kind.rs` its variant in [`PolicyKind`] and its row of names. The coordinator reads
//! the rows and never matches on the kind.
//!
//! Round shapes (who searches what, in how many phases) are the coordinator's: [`Shape::All`]
//! (every normal member searches the position, the policy picks), [`Shape::Exchange`] (two
//! members, each then rates the other's move), [`Shape::ChangePlayer`] (one member plays at a
//! time), [`Shape::Mate`] (one normal member, overridden by a verified mate of the mate members),
//! [`Shape::Leader`] (every member searches, then the leader re-searches the others' moves).

use self::change_player::{Rotation, Rule};
use self::optimism::{Alternation, Extreme};
use crate::gougi::answer::Answer;
use crate::gougi::options::GOptions;

pub mod change_player;
mod decision;
pub mod exchange;
pub mod leader;
pub mod mate;
pub mod optimism;
mod reason;
pub mod vote;

/// The kinds and their names are `config`'s (see the module doc); re-exported so that
/// `gougi::policy::PolicyKind` still names them.
pub use crate::config::{PolicyKind, UnknownPolicy};
pub use decision::{declaration, Decision, Reason, Why};
pub use reason::{explain, obvious_move, outvoted, Outvoted, Who};

/// How a type's rounds run (the coordinator's part of a type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    All,
    Exchange,
    ChangePlayer,
    Mate,
    /// Every normal member searches; then the leader re-searches the other members' moves.
    Leader,
}

/// When an all-members round may be decided before every member answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    /// Only by `G_EarlyAgreement`.
    Never,
    /// As soon as the leading move's weight can no longer be caught (a plurality).
    Plurality,
    /// As soon as the leading candidate's points can no longer be caught (the MultiPV vote).
    Ballots,
}

/// The memory a type keeps over one game (reset at `usinewgame`).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    pub alternation: Alternation,
    pub rotation: Rotation,
}

/// How a type picks one answer among several (answers sorted by member number, non-empty).
pub type DecideFn = fn(&[Answer], &Memory) -> Decision;

/// How one consultation type behaves (its names and options: [`PolicyKind::names`]).
pub struct TypeInfo {
    pub kind: PolicyKind,
    pub shape: Shape,
    pub decide: DecideFn,
    pub settle: Settle,
    /// Asks members for `G_MultiPV` lines and votes over them.
    pub multipv_vote: bool,
    /// After each decision (the alternation's turn).
    pub after_decision: Option<fn(&mut Memory)>,
    /// Change-player types: when the player changes, from the current options.
    pub rotation: Option<fn(&GOptions) -> Rule>,
    /// Mate types: mate members get `position sfen …` made by the rules core rather than the
    /// GUI's command (for solvers that do not read `moves`).
    pub mate_sfen: bool,
    /// Mate types: positions along the normal member's PV are searched by PV mate members.
    pub pv_mates: bool,
}

fn highest(a: &[Answer], _: &Memory) -> Decision {
    optimism::by_score(a, Extreme::Highest)
}
fn lowest(a: &[Answer], _: &Memory) -> Decision {
    optimism::by_score(a, Extreme::Lowest)
}
fn majority(a: &[Answer], _: &Memory) -> Decision {
    vote::majority(a)
}

/// A row with the defaults of an all-members type; the table below changes what differs.
const fn row(kind: PolicyKind) -> TypeInfo {
    TypeInfo {
        kind,
        shape: Shape::All,
        decide: highest,
        settle: Settle::Never,
        multipv_vote: false,
        after_decision: None,
        rotation: None,
        mate_sfen: false,
        pv_mates: false,
    }
}

const fn mate_row(kind: PolicyKind) -> TypeInfo {
    TypeInfo {
        shape: Shape::Mate,
        ..row(kind)
    }
}

const fn rotation_row(kind: PolicyKind, rotation: fn(&GOptions) -> Rule) -> TypeInfo {
    TypeInfo {
        shape: Shape::ChangePlayer,
        rotation: Some(rotation),
        ..row(kind)
    }
}

/// Every type, in [`PolicyKind`] order.
pub static CATALOGUE: [TypeInfo; 17] = {
    use PolicyKind as K;
    [
        TypeInfo {
            decide: majority,
            settle: Settle::Plurality,
            ..row(K::Majority)
        },
        row(K::Optimistic),
        TypeInfo {
            decide: lowest,
            ..row(K::Pessimistic)
        },
        TypeInfo {
            decide: |a, m| optimism::by_score(a, m.alternation.current()),
            after_decision: Some(|m| m.alternation.advance()),
            ..row(K::Alternate)
        },
        TypeInfo {
            decide: |a, _| optimism::by_rise(a, Extreme::Highest),
            ..row(K::RiseOptimistic)
        },
        TypeInfo {
            decide: |a, _| optimism::by_rise(a, Extreme::Lowest),
            ..row(K::RisePessimistic)
        },
        TypeInfo {
            shape: Shape::Exchange,
            ..row(K::Exchange)
        },
        rotation_row(K::ChangeEvery, |o| Rule::Every {
            plys: o.change_player_plys,
        }),
        rotation_row(K::ByPhase, |o| Rule::ByPhase {
            middle_from: o.chuuban_start_plys,
            end_from: o.shuuban_start_plys,
        }),
        rotation_row(K::ChangeOnDrop, |o| Rule::OnDrop {
            diff: o.change_player_score_diff,
        }),
        rotation_row(K::ChangeOnRise, |o| Rule::OnRise {
            diff: o.change_player_score_diff,
        }),
        mate_row(K::Mate),
        TypeInfo {
            mate_sfen: true,
            ..mate_row(K::MateSfen)
        },
        TypeInfo {
            mate_sfen: true,
            pv_mates: true,
            ..mate_row(K::MatePv)
        },
        TypeInfo {
            decide: |a, _| optimism::by_weighted_score(a),
            ..row(K::WeightedOptimistic)
        },
        TypeInfo {
            // Over `bestmove`s alone (the provisional leader, `G_Resign`) the vote is a
            // weighted plurality; the vote itself reads the candidate lists.
            decide: majority,
            settle: Settle::Ballots,
            multipv_vote: true,
            ..row(K::MultipvVote)
        },
        TypeInfo {
            shape: Shape::Leader,
            decide: |a, _| leader::keep(a),
            ..row(K::Leader)
        },
    ]
};

/// A type's behaviour row as methods on its kind. `PolicyKind` is `config`'s, which cannot
/// know gougi's rows, so the methods come with this trait (import it to call them).
pub trait Behaviour {
    /// The type's row.
    fn info(self) -> &'static TypeInfo;

    fn shape(self) -> Shape;
}

impl Behaviour for PolicyKind {
    fn info(self) -> &'static TypeInfo {
        &CATALOGUE[self as usize]
    }

    fn shape(self) -> Shape {
        self.info().shape
    }
}

/// The rotation rule of a change-player type (`None` for other shapes).
pub fn rotation(kind: PolicyKind, options: &GOptions) -> Option<change_player::Rule> {
    kind.info().rotation.map(|f| f(options))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gougi::options::SPECS;

    #[test]
    fn rows_are_in_kind_order() {
        // `Behaviour::info` indexes by the kind, so row k must be `PolicyKind::ALL[k]`.
        for (k, row) in CATALOGUE.iter().enumerate() {
            assert_eq!(row.kind, PolicyKind::ALL[k], "{}", row.kind);
        }
    }

    #[test]
    fn every_listed_option_exists_and_shapes_fit_their_flags() {
        for row in &CATALOGUE {
            for o in row.kind.options() {
                assert!(SPECS.iter().any(|s| s.name == *o), "{}: {o}", row.kind);
            }
            assert_eq!(row.rotation.is_some(), row.shape == Shape::ChangePlayer);
            assert_eq!(row.kind.needs_mate_engine(), row.shape == Shape::Mate);
            assert!(!row.pv_mates || row.mate_sfen);
        }
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use crate::gougi::answer::{Answer, Eval};
    use crate::usi::BestMove;

    /// A compact answer for table-driven tests: number, move (`resign`, `win` or a USI move),
    /// score, previous score.
    pub fn ans(number: u32, mv: &str, score: Option<i32>, prev: Option<i32>) -> Answer {
        Answer {
            number,
            name: format!("e{number}").into(),
            best: match mv {
                "resign" => BestMove::Resign,
                "win" => BestMove::Win,
                m => BestMove::Move {
                    mv: m.parse().expect("a USI move"),
                    ponder: None,
                },
            },
            score: score.map(Eval),
            prev: prev.map(Eval),
            weight: 1.0,
            calibrated: false,
        }
    }
}
