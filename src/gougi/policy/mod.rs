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
//! The catalogue of consultation types (合議タイプ): one row per type says everything the rest of
//! gougi needs to know about it — its id and Japanese name (the config's `Gougi.Type`), how many
//! members it takes, the shape of its rounds, the `G_` options it advertises, how it picks one
//! answer among several, and the per-game memory it keeps.
//!
//! A new type is its policy file (in this folder) plus, here, its `mod` line, its variant in
//! [`PolicyKind`], its row in [`CATALOGUE`] and, when its reasons are of a new kind, a [`Why`]
//! variant; the coordinator reads the row and never matches on the kind.
//!
//! Round shapes (who searches what, in how many phases) are the coordinator's: [`Shape::All`]
//! (every normal member searches the position, the policy picks), [`Shape::Exchange`] (two
//! members, each then rates the other's move), [`Shape::ChangePlayer`] (one member plays at a
//! time), [`Shape::Mate`] (one normal member, overridden by a verified mate of the mate members),
//! [`Shape::Leader`] (every member searches, then the leader re-searches the others' moves).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use self::change_player::{Rotation, Rule};
use self::optimism::{Alternation, Extreme};
use crate::gougi::answer::Answer;
use crate::gougi::options::GOptions;

pub mod change_player;
pub mod exchange;
pub mod leader;
pub mod mate;
pub mod optimism;
mod reason;
pub mod vote;

pub use reason::{declaration, explain, obvious_move, outvoted, Outvoted, Who};

/// The outcome of a policy: which answer wins and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Index into the answers slice that was decided on.
    pub chosen: usize,
    pub reason: Reason,
}

/// Why a policy chose what it chose: the family's finding (its `Display` is the text after
/// `[why] <move>: `) and whether the GUI is told.
#[derive(Clone, Debug, PartialEq)]
pub struct Reason {
    pub why: Why,
    /// Not the obvious choice (see [`explain`]): the coordinator sends the reason to the GUI.
    pub explain: bool,
}

/// The finding of each family, in its own type (each written in its policy's file).
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// Optimism, pessimism, rises and weighted optimism.
    Extreme(optimism::Finding),
    /// Plurality of `bestmove`s.
    Vote(vote::Finding),
    /// The exchange rule.
    Exchange(exchange::Finding),
    /// The leader rule.
    Leader(leader::Finding),
    /// Another member took over from the previous move's player (change-player types).
    Switch(change_player::Switch),
    /// A member declared a win (入玉宣言): a legal declaration is played at once.
    Declared(Who),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Extreme(x) => x.fmt(f),
            Why::Vote(x) => x.fmt(f),
            Why::Exchange(x) => x.fmt(f),
            Why::Leader(x) => x.fmt(f),
            Why::Switch(x) => x.fmt(f),
            Why::Declared(who) => write!(f, "{who} declared a win, which is played at once"),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.why.fmt(f)
    }
}

/// The consultation types. `FromStr` accepts the original Japanese name (exact, after
/// trimming — full-width punctuation as written) or the English id; `Display` prints the id.
/// The variants are in [`CATALOGUE`] order (the original's 14 in its numbering, then gougi's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyKind {
    Majority,
    Optimistic,
    Pessimistic,
    Alternate,
    RiseOptimistic,
    RisePessimistic,
    Exchange,
    ChangeEvery,
    ByPhase,
    ChangeOnDrop,
    ChangeOnRise,
    Mate,
    MateSfen,
    MatePv,
    /// gougi's own: optimism with each member's win odds scaled by its weight.
    WeightedOptimistic,
    /// gougi's own: a vote over every member's MultiPV candidate list.
    MultipvVote,
    /// gougi's own: the leader's move unless its own re-search prefers a member's candidate.
    Leader,
}

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

/// One consultation type.
pub struct TypeInfo {
    pub kind: PolicyKind,
    /// The English id (`Gougi.Type=majority`).
    pub id: &'static str,
    /// The original's Japanese name, as its configs spell it.
    pub japanese: &'static str,
    /// Normal members: at least, at most.
    pub members: (usize, Option<usize>),
    /// Needs `MateEngine.Path`.
    pub mate_engine: bool,
    pub shape: Shape,
    /// Its own `G_` options (the ones of every type are not listed), in `usi` order.
    pub options: &'static [&'static str],
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
const fn row(kind: PolicyKind, id: &'static str, japanese: &'static str) -> TypeInfo {
    TypeInfo {
        kind,
        id,
        japanese,
        members: (1, None),
        mate_engine: false,
        shape: Shape::All,
        options: &[],
        decide: highest,
        settle: Settle::Never,
        multipv_vote: false,
        after_decision: None,
        rotation: None,
        mate_sfen: false,
        pv_mates: false,
    }
}

const fn mate_row(kind: PolicyKind, id: &'static str, japanese: &'static str) -> TypeInfo {
    TypeInfo {
        members: (1, Some(1)),
        mate_engine: true,
        shape: Shape::Mate,
        options: &["G_MateTimeout", "G_MateNodesPct"],
        ..row(kind, id, japanese)
    }
}

const fn rotation_row(
    kind: PolicyKind,
    id: &'static str,
    japanese: &'static str,
    rotation: fn(&GOptions) -> Rule,
    options: &'static [&'static str],
) -> TypeInfo {
    TypeInfo {
        shape: Shape::ChangePlayer,
        rotation: Some(rotation),
        options,
        ..row(kind, id, japanese)
    }
}

/// Every type, in [`PolicyKind`] order.
pub static CATALOGUE: [TypeInfo; 17] = {
    use PolicyKind as K;
    [
        TypeInfo {
            members: (2, None),
            decide: majority,
            settle: Settle::Plurality,
            ..row(K::Majority, "majority", "多数決合議（3者）")
        },
        row(K::Optimistic, "optimistic", "楽観合議"),
        TypeInfo {
            decide: lowest,
            ..row(K::Pessimistic, "pessimistic", "悲観合議")
        },
        TypeInfo {
            decide: |a, m| optimism::by_score(a, m.alternation.current()),
            after_decision: Some(|m| m.alternation.advance()),
            ..row(K::Alternate, "alternate", "楽観合議と悲観合議を交互")
        },
        TypeInfo {
            decide: |a, _| optimism::by_rise(a, Extreme::Highest),
            ..row(
                K::RiseOptimistic,
                "rise-optimistic",
                "2手前の評価値からの上昇分の楽観合議",
            )
        },
        TypeInfo {
            decide: |a, _| optimism::by_rise(a, Extreme::Lowest),
            ..row(
                K::RisePessimistic,
                "rise-pessimistic",
                "2手前の評価値からの上昇分の悲観合議",
            )
        },
        TypeInfo {
            members: (2, Some(2)),
            shape: Shape::Exchange,
            ..row(
                K::Exchange,
                "exchange",
                "各々の最善手を交換して評価値の合計で判定（2者）",
            )
        },
        rotation_row(
            K::ChangeEvery,
            "change-every",
            "数手ごとに対局者交代",
            |o| Rule::Every {
                plys: o.change_player_plys,
            },
            &["G_ChangePlayerPlys"],
        ),
        TypeInfo {
            members: (3, Some(3)),
            ..rotation_row(
                K::ByPhase,
                "by-phase",
                "序盤・中盤・終盤で対局者交代",
                |o| Rule::ByPhase {
                    middle_from: o.chuuban_start_plys,
                    end_from: o.shuuban_start_plys,
                },
                &["G_ChuubanStartPlys", "G_ShuubanStartPlys"],
            )
        },
        rotation_row(
            K::ChangeOnDrop,
            "change-on-drop",
            "2手前の評価値から一定値以上下降したら対局者交代",
            |o| Rule::OnDrop {
                diff: o.change_player_score_diff,
            },
            &["G_ChangePlayerScoreDiff"],
        ),
        rotation_row(
            K::ChangeOnRise,
            "change-on-rise",
            "2手前の評価値から一定値以上上昇したら対局者交代",
            |o| Rule::OnRise {
                diff: o.change_player_score_diff,
            },
            &["G_ChangePlayerScoreDiff"],
        ),
        mate_row(K::Mate, "mate", "詰探索エンジンとの合議"),
        TypeInfo {
            mate_sfen: true,
            ..mate_row(
                K::MateSfen,
                "mate-sfen",
                "詰探索エンジンとの合議（「脊尾詰」対応版）",
            )
        },
        TypeInfo {
            mate_sfen: true,
            pv_mates: true,
            options: &[
                "G_MateTimeout",
                "G_PvMateTimeout",
                "G_MateInfoCount",
                "G_MateInfoInterval",
                "G_MateNodesPct",
            ],
            ..mate_row(
                K::MatePv,
                "mate-pv",
                "詰探索エンジンとの合議（読み筋の局面も詰探索）",
            )
        },
        TypeInfo {
            decide: |a, _| optimism::by_weighted_score(a),
            ..row(
                K::WeightedOptimistic,
                "weighted-optimistic",
                "重み付き楽観合議",
            )
        },
        TypeInfo {
            members: (2, None),
            // Over `bestmove`s alone (the provisional leader, `G_Resign`) the vote is a
            // weighted plurality; the vote itself reads the candidate lists.
            decide: majority,
            settle: Settle::Ballots,
            multipv_vote: true,
            options: &["G_MultiPV", "G_VoteScoring"],
            ..row(K::MultipvVote, "multipv-vote", "候補手投票合議")
        },
        TypeInfo {
            members: (2, None),
            shape: Shape::Leader,
            decide: |a, _| leader::keep(a),
            options: &["G_LeaderNodes", "G_LeaderMargin"],
            ..row(K::Leader, "leader", "リーダー合議")
        },
    ]
};

impl PolicyKind {
    /// All types, in catalogue order.
    pub const ALL: [PolicyKind; 17] = [
        PolicyKind::Majority,
        PolicyKind::Optimistic,
        PolicyKind::Pessimistic,
        PolicyKind::Alternate,
        PolicyKind::RiseOptimistic,
        PolicyKind::RisePessimistic,
        PolicyKind::Exchange,
        PolicyKind::ChangeEvery,
        PolicyKind::ByPhase,
        PolicyKind::ChangeOnDrop,
        PolicyKind::ChangeOnRise,
        PolicyKind::Mate,
        PolicyKind::MateSfen,
        PolicyKind::MatePv,
        PolicyKind::WeightedOptimistic,
        PolicyKind::MultipvVote,
        PolicyKind::Leader,
    ];

    /// The type's row.
    pub fn info(self) -> &'static TypeInfo {
        &CATALOGUE[self as usize]
    }

    pub fn id(self) -> &'static str {
        self.info().id
    }

    pub fn japanese_name(self) -> &'static str {
        self.info().japanese
    }

    pub fn needs_mate_engine(self) -> bool {
        self.info().mate_engine
    }

    /// Normal members: at least, at most.
    pub fn engine_count(self) -> (usize, Option<usize>) {
        self.info().members
    }

    pub fn shape(self) -> Shape {
        self.info().shape
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown type {0:?}")]
pub struct UnknownPolicy(pub String);

impl FromStr for PolicyKind {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        CATALOGUE
            .iter()
            .find(|t| t.id == s || t.japanese == s)
            .map(|t| t.kind)
            .ok_or_else(|| UnknownPolicy(s.to_owned()))
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
    fn rows_are_in_kind_order_and_names_are_unique() {
        for (k, row) in CATALOGUE.iter().enumerate() {
            assert_eq!(row.kind as usize, k, "{}", row.id);
            assert_eq!(PolicyKind::ALL[k], row.kind);
            assert_eq!(row.id.parse::<PolicyKind>(), Ok(row.kind));
            assert_eq!(row.japanese.parse::<PolicyKind>(), Ok(row.kind));
        }
        let mut ids: Vec<&str> = CATALOGUE.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), CATALOGUE.len());
    }

    #[test]
    fn every_listed_option_exists_and_shapes_fit_their_flags() {
        for row in &CATALOGUE {
            for o in row.options {
                assert!(SPECS.iter().any(|s| s.name == *o), "{}: {o}", row.id);
            }
            assert_eq!(row.rotation.is_some(), row.shape == Shape::ChangePlayer);
            assert_eq!(row.mate_engine, row.shape == Shape::Mate);
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
