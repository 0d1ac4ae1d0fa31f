//! gougi's own `G_` options: the reference program's, with their types, defaults and ranges,
//! plus gougi's additions.
//!
//! The reference advertised each of its options only for the consultation types that use it
//! (GougiShogi §3.5); gougi does the same for those, and advertises its own additions for every
//! type. Values outside the range are clamped (the reference accepted anything), and a value
//! that is not a number (or not one of a combo's words) keeps the current setting; either way
//! the coordinator tells the GUI with `info string [Warning] setoption <name> <value>: <reason>;
//! <what was used or kept>`.

use std::fmt;

use crate::gougi::policy::kind::PolicyKind;

/// One `G_` option: its USI declaration and where it applies.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    /// Advertised by every type; otherwise only by the types whose catalogue row lists it
    /// (`policy::kind`).
    pub every: bool,
}

#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

/// Every `G_` option in declaration order.
pub const SPECS: &[Spec] = &[
    spin("G_ChangePlayerPlys", 1, 1, 1000, false),
    spin("G_ChuubanStartPlys", 51, 1, 1000, false),
    spin("G_ShuubanStartPlys", 101, 1, 1000, false),
    spin("G_ChangePlayerScoreDiff", 100, 1, 1_000_000, false),
    spin("G_MateTimeout", 10_000, 1, 1_000_000, false),
    spin("G_PvMateTimeout", 5_000, 1, 1_000_000, false),
    spin("G_MateInfoCount", 100, 1, 1000, false),
    spin("G_MateInfoInterval", 100, 1, 100_000, false),
    // gougi's own, for the mate types: under `go nodes N` (or `go depth D`, counted as
    // 10,000 × D) the mate member gets `nodes` = this percentage of N beside G_MateTimeout,
    // and the round waits for it, so node-limited games are reproducible.
    spin("G_MateNodesPct", 100, 1, 100_000, false),
    // gougi's own type `multipv-vote`: how many candidates each member is asked for (sent as
    // `setoption name MultiPV` to members that declare it), and how a candidate scores — its
    // calibrated win rate (`winrate`) or its rank (`borda`: k points for first, k−1 for second…).
    spin("G_MultiPV", 3, 1, 20, false),
    combo("G_VoteScoring", "winrate", &["winrate", "borda"], false),
    // gougi's own type `leader`: the nodes of each re-search by the leader (its own move and
    // each other member's move, searched from the position after the move), and by how much
    // (calibrated cp, see `Engine<N>.Scale`) a candidate must beat the leader's own move.
    spin("G_LeaderNodes", 20_000, 1, 1_000_000_000, false),
    spin("G_LeaderMargin", 50, 0, 100_000, false),
    // gougi's own, for every type.
    // Milliseconds kept in hand on every move for pipes, the decision and the GUI's delay;
    // measured on a pipe (see `deadline::DEFAULT_MARGIN_MS`).
    spin(
        "G_Margin",
        crate::gougi::deadline::DEFAULT_MARGIN_MS as i64,
        0,
        60_000,
        true,
    ),
    // Which members' `info` lines the GUI sees while they think (see DESIGN.md).
    combo("G_InfoRelay", "leader", &["leader", "all", "none"], true),
    // Resign when the chosen member resigns (the reference), or only when every member does.
    combo("G_Resign", "chosen", &["chosen", "all"], true),
    // Decide as soon as answers holding this percentage of the members' weight agree, and stop
    // the rest (0 = wait for every member; majority always decides once the vote is settled).
    spin("G_EarlyAgreement", 0, 0, 100, true),
    // Time banking (sudden death and Fischer only): members are told this percentage less main
    // time, and a move they disagree on is searched again with the whole clock (0 = off; see
    // `deadline::banked_main`). Unused byoyomi cannot be banked.
    spin("G_TimeBank", 0, 0, 90, true),
    // Milliseconds the built-in mate solver may spend confirming a member's `score mate +N`
    // before it counts (0 = believe every claim, as the reference did). See `verify.rs`.
    spin("G_MateVerifyMs", 200, 0, 10_000, true),
    // The encoding of gougi's output. USI is 7-bit ASCII in principle, but the annotated lines
    // carry Japanese; UTF-8 suits ShogiHome and modern GUIs, Shift_JIS old Windows GUIs.
    combo("G_OutputEncoding", "UTF-8", &["UTF-8", "Shift_JIS"], true),
];

const fn spin(name: &'static str, default: i64, min: i64, max: i64, every: bool) -> Spec {
    Spec {
        name,
        kind: Kind::Spin { default, min, max },
        every,
    }
}

const fn combo(
    name: &'static str,
    default: &'static str,
    vars: &'static [&'static str],
    every: bool,
) -> Spec {
    Spec {
        name,
        kind: Kind::Combo { default, vars },
        every,
    }
}

impl Spec {
    pub fn advertised_for(&self, policy: PolicyKind) -> bool {
        self.every || policy.info().options.contains(&self.name)
    }

    /// Advertised by this config: its type's options, and with `MateEngine.Guard` the mate
    /// type's too (the guard runs the mate member as the mate type does).
    pub fn advertised(&self, policy: PolicyKind, mate_guard: bool) -> bool {
        self.advertised_for(policy) || (mate_guard && self.advertised_for(PolicyKind::Mate))
    }
}

impl fmt::Display for Spec {
    /// The `option …` line of the `usi` answer.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Spin { default, min, max } => {
                write!(
                    f,
                    "option name {} type spin default {default} min {min} max {max}",
                    self.name
                )
            }
            Kind::Combo { default, vars } => {
                write!(f, "option name {} type combo default {default}", self.name)?;
                vars.iter().try_for_each(|v| write!(f, " var {v}"))
            }
        }
    }
}

/// The current values of all `G_` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    values: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Int(i64),
    Text(&'static str),
}

/// Why a `setoption` for a `G_` option was not applied as given. `Display` is the reason and
/// what gougi did instead (`outside 0..=60000; using 0`), without the option's name and value,
/// which the coordinator's `info string [Warning] setoption <name> <value>: …` line already
/// carries.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    #[error("unknown option {0}")]
    Unknown(String),
    #[error("not a number; keeping {kept}")]
    NotANumber {
        name: String,
        value: String,
        kept: i64,
    },
    #[error("outside {min}..={max}; using {clamped}")]
    Clamped {
        name: String,
        value: i64,
        min: i64,
        max: i64,
        clamped: i64,
    },
    #[error("not one of {}; keeping {kept}", .vars.join(", "))]
    NotAVar {
        name: String,
        value: String,
        vars: &'static [&'static str],
        kept: &'static str,
    },
}

impl Default for Values {
    fn default() -> Self {
        let values = SPECS
            .iter()
            .map(|s| match s.kind {
                Kind::Spin { default, .. } => Value::Int(default),
                Kind::Combo { default, .. } => Value::Text(default),
            })
            .collect();
        Values { values }
    }
}

impl Values {
    fn index(name: &str) -> Option<usize> {
        SPECS.iter().position(|s| s.name == name)
    }

    /// Whether `name` is one of gougi's options (so the `setoption` is consumed, not forwarded).
    pub fn is_own(name: &str) -> bool {
        Self::index(name).is_some()
    }

    /// Apply a `setoption`. On `Err` the value may still have changed (clamping); the error
    /// says what happened, for the log.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SetError> {
        let i = Self::index(name).ok_or_else(|| SetError::Unknown(name.to_string()))?;
        match SPECS[i].kind {
            Kind::Spin { min, max, .. } => {
                let Ok(v) = value.trim().parse::<i64>() else {
                    let kept = self.int(name);
                    return Err(SetError::NotANumber {
                        name: name.into(),
                        value: value.into(),
                        kept,
                    });
                };
                let clamped = v.clamp(min, max);
                self.values[i] = Value::Int(clamped);
                if clamped != v {
                    return Err(SetError::Clamped {
                        name: name.into(),
                        value: v,
                        min,
                        max,
                        clamped,
                    });
                }
            }
            Kind::Combo { vars, .. } => {
                match vars.iter().find(|v| v.eq_ignore_ascii_case(value.trim())) {
                    Some(v) => self.values[i] = Value::Text(v),
                    None => {
                        let kept = self.text(name);
                        return Err(SetError::NotAVar {
                            name: name.into(),
                            value: value.into(),
                            vars,
                            kept,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// A spin option's value; panics only on a misspelt name here (the typed accessors below
    /// are the only callers, and a test calls every one of them).
    fn int(&self, name: &str) -> i64 {
        match Self::index(name).map(|i| &self.values[i]) {
            Some(Value::Int(v)) => *v,
            _ => panic!("G_ option {name} is not a spin option"),
        }
    }

    /// A combo option's value; panics only on a misspelt name here (see [`Values::int`]).
    fn text(&self, name: &str) -> &'static str {
        match Self::index(name).map(|i| &self.values[i]) {
            Some(Value::Text(v)) => v,
            _ => panic!("G_ option {name} is not a combo option"),
        }
    }
}

/// `G_InfoRelay`: which members' lines the GUI sees while they think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoRelay {
    Leader,
    All,
    None,
}

/// `G_VoteScoring` (`multipv-vote`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteScoring {
    WinRate,
    Borda,
}

/// The options as typed values: the rest of gougi reads these, never a name.
impl Values {
    /// `G_Margin`, in milliseconds.
    pub fn margin_ms(&self) -> u64 {
        self.int("G_Margin").max(0) as u64
    }
    pub fn info_relay(&self) -> InfoRelay {
        match self.text("G_InfoRelay") {
            "all" => InfoRelay::All,
            "none" => InfoRelay::None,
            _ => InfoRelay::Leader,
        }
    }
    pub fn resign(&self) -> crate::gougi::resign::ResignRule {
        crate::gougi::resign::ResignRule::from_option(self.text("G_Resign"))
    }
    /// `G_EarlyAgreement` as a share of the members' weight (0 = off).
    pub fn early_agreement(&self) -> f64 {
        self.int("G_EarlyAgreement") as f64 / 100.0
    }
    /// `G_TimeBank` in percent (0 = off).
    pub fn time_bank_percent(&self) -> u64 {
        self.int("G_TimeBank").clamp(0, 90) as u64
    }
    pub fn mate_verify_ms(&self) -> u64 {
        self.int("G_MateVerifyMs").max(0) as u64
    }
    /// `G_MultiPV`, at least 1.
    pub fn multipv(&self) -> usize {
        self.int("G_MultiPV").max(1) as usize
    }
    pub fn vote_scoring(&self) -> VoteScoring {
        match self.text("G_VoteScoring") {
            "borda" => VoteScoring::Borda,
            _ => VoteScoring::WinRate,
        }
    }
    /// `G_OutputEncoding=Shift_JIS`.
    pub fn shift_jis_output(&self) -> bool {
        self.text("G_OutputEncoding") == "Shift_JIS"
    }
    pub fn change_player_plys(&self) -> u32 {
        self.int("G_ChangePlayerPlys").max(1) as u32
    }
    pub fn chuuban_start_plys(&self) -> u32 {
        self.int("G_ChuubanStartPlys").max(1) as u32
    }
    pub fn shuuban_start_plys(&self) -> u32 {
        self.int("G_ShuubanStartPlys").max(1) as u32
    }
    pub fn change_player_score_diff(&self) -> i64 {
        self.int("G_ChangePlayerScoreDiff")
    }
    pub fn leader_nodes(&self) -> u64 {
        self.int("G_LeaderNodes").max(1) as u64
    }
    pub fn leader_margin(&self) -> i64 {
        self.int("G_LeaderMargin")
    }
    pub fn mate_nodes_pct(&self) -> u64 {
        self.int("G_MateNodesPct").max(1) as u64
    }
    pub fn mate_timeout_ms(&self) -> u64 {
        self.int("G_MateTimeout").max(1) as u64
    }
    pub fn pv_mate_timeout_ms(&self) -> u64 {
        self.int("G_PvMateTimeout").max(1) as u64
    }
    pub fn mate_info_count(&self) -> i64 {
        self.int("G_MateInfoCount")
    }
    pub fn mate_info_interval_ms(&self) -> u64 {
        self.int("G_MateInfoInterval").max(1) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_typed_accessor_reads_a_declared_option() {
        // A misspelt name would panic here, not in a game.
        let v = Values::default();
        assert_eq!(v.margin_ms(), 60);
        assert_eq!(v.info_relay(), InfoRelay::Leader);
        assert_eq!(v.resign(), crate::gougi::resign::ResignRule::Chosen);
        assert_eq!(v.early_agreement(), 0.0);
        assert_eq!(v.time_bank_percent(), 0);
        assert_eq!(v.mate_verify_ms(), 200);
        assert_eq!(v.multipv(), 3);
        assert_eq!(v.vote_scoring(), VoteScoring::WinRate);
        assert!(!v.shift_jis_output());
        assert_eq!(v.change_player_plys(), 1);
        assert_eq!((v.chuuban_start_plys(), v.shuuban_start_plys()), (51, 101));
        assert_eq!(v.change_player_score_diff(), 100);
        assert_eq!(
            (v.mate_timeout_ms(), v.pv_mate_timeout_ms()),
            (10_000, 5_000)
        );
        assert_eq!((v.mate_info_count(), v.mate_info_interval_ms()), (100, 100));
        assert_eq!((v.leader_nodes(), v.leader_margin()), (20_000, 50));
        assert_eq!(v.mate_nodes_pct(), 100);
    }

    #[test]
    fn declarations_match_the_reference() {
        let lines: Vec<String> = SPECS
            .iter()
            .filter(|s| s.advertised_for(PolicyKind::MatePv))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            lines,
            [
                "option name G_MateTimeout type spin default 10000 min 1 max 1000000",
                "option name G_PvMateTimeout type spin default 5000 min 1 max 1000000",
                "option name G_MateInfoCount type spin default 100 min 1 max 1000",
                "option name G_MateInfoInterval type spin default 100 min 1 max 100000",
                "option name G_MateNodesPct type spin default 100 min 1 max 100000",
                "option name G_Margin type spin default 60 min 0 max 60000",
                "option name G_InfoRelay type combo default leader var leader var all var none",
                "option name G_Resign type combo default chosen var chosen var all",
                "option name G_EarlyAgreement type spin default 0 min 0 max 100",
                "option name G_TimeBank type spin default 0 min 0 max 90",
                "option name G_MateVerifyMs type spin default 200 min 0 max 10000",
                "option name G_OutputEncoding type combo default UTF-8 var UTF-8 var Shift_JIS",
            ]
        );
        assert_eq!(
            SPECS
                .iter()
                .filter(|s| s.advertised_for(PolicyKind::Majority))
                .count(),
            7
        );
    }

    #[test]
    fn the_mate_guard_advertises_the_mate_types_options() {
        let names = |guard: bool| -> Vec<&str> {
            SPECS
                .iter()
                .filter(|s| s.advertised(PolicyKind::Optimistic, guard))
                .filter(|s| !s.every)
                .map(|s| s.name)
                .collect()
        };
        assert!(names(false).is_empty());
        assert_eq!(names(true), ["G_MateTimeout", "G_MateNodesPct"]);
    }

    #[test]
    fn setting_values() {
        let mut v = Values::default();
        assert_eq!(v.int("G_ChangePlayerPlys"), 1);
        v.set("G_ChangePlayerPlys", "4").unwrap();
        assert_eq!(v.int("G_ChangePlayerPlys"), 4);
        assert!(matches!(
            v.set("G_ChangePlayerPlys", "x"),
            Err(SetError::NotANumber { kept: 4, .. })
        ));
        assert!(matches!(
            v.set("G_ChangePlayerPlys", "5000"),
            Err(SetError::Clamped { clamped: 1000, .. })
        ));
        assert_eq!(v.int("G_ChangePlayerPlys"), 1000);
        v.set("G_InfoRelay", "ALL").unwrap();
        assert_eq!(v.text("G_InfoRelay"), "all");
        assert!(v.set("G_InfoRelay", "some").is_err());
        assert!(matches!(v.set("G_Nope", "1"), Err(SetError::Unknown(_))));
        assert_eq!(
            v.set("G_Margin", "-5").unwrap_err().to_string(),
            "outside 0..=60000; using 0"
        );
        assert_eq!(v.int("G_Margin"), 0);
        assert_eq!(
            v.set("G_InfoRelay", "bogus").unwrap_err().to_string(),
            "not one of leader, all, none; keeping all"
        );
        assert_eq!(
            v.set("G_Margin", "x").unwrap_err().to_string(),
            "not a number; keeping 0"
        );
        assert!(Values::is_own("G_Margin") && !Values::is_own("USI_Hash"));
    }
}
