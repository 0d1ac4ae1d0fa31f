//! The consultation types (合議タイプ) as the config file and the `usi` answer see them: each
//! type's variant, its English id and Japanese name (`Gougi.Type`), its member counts, whether it
//! needs `MateEngine.Path`, and the `G_` options it advertises.
//!
//! This is one half of a type's row; the other half — how its rounds run and how it picks an
//! answer — is `gougi::policy::CATALOGUE`, indexed by the same [`PolicyKind`]. The halves are
//! split because `config` parses `Gougi.Type` and checks the member counts, and `config` sits
//! below `gougi` (lib.rs's layers): the names live here so that no arrow runs from `config` up
//! into `gougi`, and `gougi::options` reads the option lists here so that it no longer imports
//! `gougi::policy`, which imports it (the circle issue 51 removed).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// Default number of PV mate engines (`MateEngine.forPV.Count`), as in the original. A member
/// count, so it sits here beside the types' counts: `error.rs` names the limit in a message,
/// and `settings.rs` uses `error.rs`, so neither of them can hold it.
pub const DEFAULT_PV_MATE_COUNT: u32 = 3;

/// The most PV mate engines `MateEngine.forPV.Count` may ask for. Each is a process with its
/// own hash; the original had no limit, and `100000` started processes until the machine gave
/// out (issue #17). 16 is several times what a PV of 8 plies can keep busy.
pub const MAX_PV_MATE_COUNT: u32 = 16;

/// The consultation types. `FromStr` accepts the original Japanese name (exact, after
/// trimming — full-width punctuation as written) or the English id; `Display` prints the id.
/// The variants are in [`KINDS`] order (the original's 14 in its numbering, then gougi's).
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

/// What the config and the `G_` options know of one type.
pub struct KindInfo {
    pub kind: PolicyKind,
    /// The English id (`Gougi.Type=majority`).
    pub id: &'static str,
    /// The original's Japanese name, as its configs spell it.
    pub japanese: &'static str,
    /// Normal members: at least, at most.
    pub members: (usize, Option<usize>),
    /// Needs `MateEngine.Path`.
    pub mate_engine: bool,
    /// Its own `G_` options (the ones of every type are not listed), in `usi` order.
    pub options: &'static [&'static str],
}

/// A row with the defaults of an all-members type; the table below changes what differs.
const fn row(kind: PolicyKind, id: &'static str, japanese: &'static str) -> KindInfo {
    KindInfo {
        kind,
        id,
        japanese,
        members: (1, None),
        mate_engine: false,
        options: &[],
    }
}

const fn mate_row(kind: PolicyKind, id: &'static str, japanese: &'static str) -> KindInfo {
    KindInfo {
        members: (1, Some(1)),
        mate_engine: true,
        options: &["G_MateTimeout", "G_MateNodesPct"],
        ..row(kind, id, japanese)
    }
}

const fn with_options(info: KindInfo, options: &'static [&'static str]) -> KindInfo {
    KindInfo { options, ..info }
}

/// Every type, in [`PolicyKind`] order.
pub static KINDS: [KindInfo; 17] = {
    use PolicyKind as K;
    [
        KindInfo {
            members: (2, None),
            ..row(K::Majority, "majority", "多数決合議（3者）")
        },
        row(K::Optimistic, "optimistic", "楽観合議"),
        row(K::Pessimistic, "pessimistic", "悲観合議"),
        row(K::Alternate, "alternate", "楽観合議と悲観合議を交互"),
        row(
            K::RiseOptimistic,
            "rise-optimistic",
            "2手前の評価値からの上昇分の楽観合議",
        ),
        row(
            K::RisePessimistic,
            "rise-pessimistic",
            "2手前の評価値からの上昇分の悲観合議",
        ),
        KindInfo {
            members: (2, Some(2)),
            ..row(
                K::Exchange,
                "exchange",
                "各々の最善手を交換して評価値の合計で判定（2者）",
            )
        },
        with_options(
            row(K::ChangeEvery, "change-every", "数手ごとに対局者交代"),
            &["G_ChangePlayerPlys"],
        ),
        KindInfo {
            members: (3, Some(3)),
            options: &["G_ChuubanStartPlys", "G_ShuubanStartPlys"],
            ..row(K::ByPhase, "by-phase", "序盤・中盤・終盤で対局者交代")
        },
        with_options(
            row(
                K::ChangeOnDrop,
                "change-on-drop",
                "2手前の評価値から一定値以上下降したら対局者交代",
            ),
            &["G_ChangePlayerScoreDiff"],
        ),
        with_options(
            row(
                K::ChangeOnRise,
                "change-on-rise",
                "2手前の評価値から一定値以上上昇したら対局者交代",
            ),
            &["G_ChangePlayerScoreDiff"],
        ),
        mate_row(K::Mate, "mate", "詰探索エンジンとの合議"),
        mate_row(
            K::MateSfen,
            "mate-sfen",
            "詰探索エンジンとの合議（「脊尾詰」対応版）",
        ),
        with_options(
            mate_row(
                K::MatePv,
                "mate-pv",
                "詰探索エンジンとの合議（読み筋の局面も詰探索）",
            ),
            &[
                "G_MateTimeout",
                "G_PvMateTimeout",
                "G_MateInfoCount",
                "G_MateInfoInterval",
                "G_MateNodesPct",
            ],
        ),
        row(
            K::WeightedOptimistic,
            "weighted-optimistic",
            "重み付き楽観合議",
        ),
        KindInfo {
            members: (2, None),
            options: &["G_MultiPV", "G_VoteScoring"],
            ..row(K::MultipvVote, "multipv-vote", "候補手投票合議")
        },
        KindInfo {
            members: (2, None),
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

    /// The type's names, member counts and options.
    pub fn names(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }

    pub fn id(self) -> &'static str {
        self.names().id
    }

    pub fn japanese_name(self) -> &'static str {
        self.names().japanese
    }

    pub fn needs_mate_engine(self) -> bool {
        self.names().mate_engine
    }

    /// Normal members: at least, at most.
    pub fn engine_count(self) -> (usize, Option<usize>) {
        self.names().members
    }

    /// Its own `G_` options, in `usi` order.
    pub fn options(self) -> &'static [&'static str] {
        self.names().options
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
        KINDS
            .iter()
            .find(|t| t.id == s || t.japanese == s)
            .map(|t| t.kind)
            .ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_kind_order_and_names_are_unique() {
        for (k, row) in KINDS.iter().enumerate() {
            assert_eq!(row.kind as usize, k, "{}", row.id);
            assert_eq!(PolicyKind::ALL[k], row.kind);
            assert_eq!(row.id.parse::<PolicyKind>(), Ok(row.kind));
            assert_eq!(row.japanese.parse::<PolicyKind>(), Ok(row.kind));
        }
        let mut ids: Vec<&str> = KINDS.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), KINDS.len());
    }
}
