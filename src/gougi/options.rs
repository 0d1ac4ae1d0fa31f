//! gougi's own `G_` options: the reference program's, with their types, defaults and ranges,
//! plus gougi's additions.
//!
//! The reference advertised each of its options only for the consultation types that use it
//! (GougiShogi §3.5); gougi does the same for those, and advertises its own additions for every
//! type. Values outside the range are clamped (the reference accepted anything), and a value
//! that is not a number (or not one of a combo's words) keeps the current setting; either way
//! the coordinator tells the GUI with `info string [Warning] setoption <name> <value>: <reason>;
//! <what was used or kept>`.
//!
//! [`SPECS`] is the one declaration of every option — USI name, type, default, range or words,
//! where it is advertised — and of the [`GOptions`] field it sets (its `get`/`put` pair). The
//! rest of gougi reads the fields, so a misspelt option is a compile error; a `setoption` name
//! is looked up in [`SPECS`] alone, so an unknown one is a [`SetError`], never a panic. The
//! tests check that every spec round-trips through its field, touches no other, and that
//! [`GOptions::default`] holds the specs' defaults.

use std::fmt;

use crate::config::PolicyKind;
use crate::gougi::deadline::{DEFAULT_MARGIN_MS, DEFAULT_NETWORK_DELAY_MS};
use crate::gougi::resign::ResignRule;

/// One `G_` option: its USI declaration, where it applies and the field it sets.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    /// Advertised by every type; otherwise only by the types whose catalogue row lists it
    /// (`config::kind`, so that `policy`, which reads these options, is not imported back).
    pub every: bool,
}

#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
        field: SpinField,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
        field: ComboField,
    },
    Check {
        default: bool,
        field: CheckField,
    },
}

/// A spin option's [`GOptions`] field. `put` is given the value already clamped to the spec's
/// `min..=max`, which every field type holds exactly, so its `as` conversion loses nothing;
/// `get` gives it back as the USI integer.
#[derive(Clone, Copy, Debug)]
pub struct SpinField {
    get: fn(&GOptions) -> i64,
    put: fn(&mut GOptions, i64),
}

/// A combo option's [`GOptions`] field: `put` is given one of the spec's `vars` as declared,
/// `get` gives the current one back.
#[derive(Clone, Copy, Debug)]
pub struct ComboField {
    get: fn(&GOptions) -> &'static str,
    put: fn(&mut GOptions, &'static str),
}

/// A check option's [`GOptions`] field.
#[derive(Clone, Copy, Debug)]
pub struct CheckField {
    get: fn(&GOptions) -> bool,
    put: fn(&mut GOptions, bool),
}

/// A check option held in `GOptions::$field` as a `bool`.
macro_rules! check {
    ($name:literal, $default:literal, $every:expr, $field:ident) => {
        Spec {
            name: $name,
            kind: Kind::Check {
                default: $default,
                field: CheckField {
                    get: |o| o.$field,
                    put: |o, v| o.$field = v,
                },
            },
            every: $every,
        }
    };
}

/// A spin option held in `GOptions::$field` as `$ty`; `$range` is `(default, min, max)`. The
/// value reaches the field clamped to `min..=max`, which every `$ty` used holds exactly, so the
/// casts lose nothing. Naming the field once (not in two closures) keeps `get` and `put` on it.
macro_rules! spin {
    ($name:literal, ($default:expr, $min:expr, $max:expr), $every:expr, $field:ident: $ty:ty) => {
        Spec {
            name: $name,
            kind: Kind::Spin {
                default: $default,
                min: $min,
                max: $max,
                field: SpinField {
                    get: |o| o.$field as i64,
                    put: |o, v| o.$field = v as $ty,
                },
            },
            every: $every,
        }
    };
}

/// A combo option held in `GOptions::$field` as the enum `$ty`, whose `word` and `from_option`
/// translate it to and from the spec's `vars`.
macro_rules! combo {
    ($name:literal, $default:literal, $vars:expr, $every:expr, $field:ident: $ty:ty) => {
        Spec {
            name: $name,
            kind: Kind::Combo {
                default: $default,
                vars: $vars,
                field: ComboField {
                    get: |o| o.$field.word(),
                    put: |o, w| o.$field = <$ty>::from_option(w),
                },
            },
            every: $every,
        }
    };
}

/// Every `G_` option in declaration order.
pub const SPECS: &[Spec] = &[
    spin!("G_ChangePlayerPlys", (1, 1, 1000), false, change_player_plys: u32),
    spin!("G_ChuubanStartPlys", (51, 1, 1000), false, chuuban_start_plys: u32),
    spin!("G_ShuubanStartPlys", (101, 1, 1000), false, shuuban_start_plys: u32),
    spin!("G_ChangePlayerScoreDiff", (100, 1, 1_000_000), false, change_player_score_diff: i64),
    spin!("G_MateTimeout", (10_000, 1, 1_000_000), false, mate_timeout_ms: u64),
    spin!("G_PvMateTimeout", (5_000, 1, 1_000_000), false, pv_mate_timeout_ms: u64),
    spin!("G_MateInfoCount", (100, 1, 1000), false, mate_info_count: i64),
    spin!("G_MateInfoInterval", (100, 1, 100_000), false, mate_info_interval_ms: u64),
    // gougi's own, for the mate types: under `go nodes N` (or `go depth D`, counted as
    // 10,000 × D) the mate member gets `nodes` = this percentage of N beside G_MateTimeout,
    // and the round waits for it, so node-limited games are reproducible.
    spin!("G_MateNodesPct", (100, 1, 100_000), false, mate_nodes_pct: u64),
    // gougi's own type `multipv-vote`: how many candidates each member is asked for (sent as
    // `setoption name MultiPV` to members that declare it), and how a candidate scores — its
    // calibrated win rate (`winrate`) or its rank (`borda`: k points for first, k−1 for second…).
    spin!("G_MultiPV", (3, 1, 20), false, multipv: usize),
    combo!("G_VoteScoring", "winrate", &["winrate", "borda"], false, vote_scoring: VoteScoring),
    // gougi's own type `leader`: the nodes of each re-search by the leader (its own move and
    // each other member's move, searched from the position after the move), and by how much
    // (calibrated cp, see `Engine<N>.Scale`) a candidate must beat the leader's own move.
    // 3,000 is the value of every measured leader run (issue 19 goals 1–4): with two other
    // members the re-searches cost the built-in leader ~7,500 nodes on top of 10,000 a move
    // (BENCHMARKS); 20,000, the first default, cost more than the search it checks.
    spin!("G_LeaderNodes", (3_000, 1, 1_000_000_000), false, leader_nodes: u64),
    spin!("G_LeaderMargin", (50, 0, 100_000), false, leader_margin: i64),
    // gougi's own type `split`: the percentage of each member's budget (the round's nodes, or
    // its clock) the first member's shallow MultiPV search takes to predict the best moves when
    // the line played last move does not (the opponent did not reply as predicted); the leaves
    // get the rest. 0: never such a search under a playing `go`.
    spin!("G_SplitPredict", (10, 0, 50), false, split_predict_pct: u64),
    // gougi's own, for every type.
    // Milliseconds kept in hand on every move for pipes, the decision and the GUI's delay;
    // measured on a pipe (see `deadline::DEFAULT_MARGIN_MS`).
    spin!("G_Margin", (DEFAULT_MARGIN_MS as i64, 0, 60_000), true, margin_ms: u64),
    // Milliseconds the GUI's clock runs outside gougi on every move (a CSA server's network
    // and its own delays), taken off the clock before any plan; replaced by the delay learned
    // from a GUI clock that counts milliseconds (see `gui_lag`).
    spin!("G_NetworkDelay", (DEFAULT_NETWORK_DELAY_MS as i64, 0, 10_000), true,
        network_delay_ms: u64),
    // While the opponent thinks, members ponder different predicted replies (see
    // `coordinator::multi_ponder`); off: every member ponders the GUI's prediction.
    check!("G_MultiPonder", false, true, multi_ponder),
    // Which members' `info` lines the GUI sees while they think (see DESIGN.md).
    combo!("G_InfoRelay", "leader", &["leader", "all", "none"], true, info_relay: InfoRelay),
    // Resign when the chosen member resigns (the reference), or only when every member does.
    combo!("G_Resign", "chosen", &["chosen", "all"], true, resign: ResignRule),
    // Decide as soon as answers holding this percentage of the members' weight agree, and stop
    // the rest (0 = wait for every member; majority always decides once the vote is settled).
    spin!("G_EarlyAgreement", (0, 0, 100), true, early_agreement_pct: u64),
    // Time banking (sudden death and Fischer only): members are told this percentage less main
    // time, and a move they disagree on gets more: the all-members types search it again with
    // the whole clock, `leader` re-searches the candidates for as long as the first phase would
    // have taken unbanked instead of `G_LeaderNodes` (0 = off; see `deadline::banked_main`,
    // `deadline::leader_bank`). Unused byoyomi cannot be banked; exchange, change-player and
    // the mate types ignore it.
    spin!("G_TimeBank", (0, 0, 90), true, time_bank_pct: u64),
    // Milliseconds the built-in mate solver may spend confirming a member's `score mate +N`
    // before it counts (0 = believe every claim, as the reference did). See `verify.rs`.
    spin!("G_MateVerifyMs", (200, 0, 10_000), true, mate_verify_ms: u64),
    // The encoding of gougi's output. USI is 7-bit ASCII in principle, but the annotated lines
    // carry Japanese; UTF-8 suits ShogiHome and modern GUIs, Shift_JIS old Windows GUIs.
    combo!("G_OutputEncoding", "UTF-8", &["UTF-8", "Shift_JIS"], true,
        output_encoding: OutputEncoding),
];

impl Spec {
    /// The option called `name`, if it is one of gougi's.
    pub fn find(name: &str) -> Option<&'static Spec> {
        SPECS.iter().find(|s| s.name == name)
    }

    pub fn advertised_for(&self, policy: PolicyKind) -> bool {
        self.every || policy.options().contains(&self.name)
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
            Kind::Spin {
                default, min, max, ..
            } => {
                write!(
                    f,
                    "option name {} type spin default {default} min {min} max {max}",
                    self.name
                )
            }
            Kind::Combo { default, vars, .. } => {
                write!(f, "option name {} type combo default {default}", self.name)?;
                vars.iter().try_for_each(|v| write!(f, " var {v}"))
            }
            Kind::Check { default, .. } => {
                write!(f, "option name {} type check default {default}", self.name)
            }
        }
    }
}

/// The current values of all `G_` options, one field each (the option's name in its doc; the
/// declaration, range and advertising are its [`SPECS`] row). Spin fields hold values inside
/// the spec's range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GOptions {
    /// `G_ChangePlayerPlys` (`change-every`).
    pub change_player_plys: u32,
    /// `G_ChuubanStartPlys` (`by-phase`: the middle game's first ply).
    pub chuuban_start_plys: u32,
    /// `G_ShuubanStartPlys` (`by-phase`: the end game's first ply).
    pub shuuban_start_plys: u32,
    /// `G_ChangePlayerScoreDiff` (`change-on-drop`, `change-on-rise`).
    pub change_player_score_diff: i64,
    /// `G_MateTimeout`, in milliseconds.
    pub mate_timeout_ms: u64,
    /// `G_PvMateTimeout`, in milliseconds.
    pub pv_mate_timeout_ms: u64,
    /// `G_MateInfoCount`: how many times a `mateinfo` line is sent.
    pub mate_info_count: i64,
    /// `G_MateInfoInterval`, in milliseconds.
    pub mate_info_interval_ms: u64,
    /// `G_MateNodesPct`, in percent of the round's node budget.
    pub mate_nodes_pct: u64,
    /// `G_MultiPV` (`multipv-vote`), at least 1.
    pub multipv: usize,
    /// `G_VoteScoring` (`multipv-vote`).
    pub vote_scoring: VoteScoring,
    /// `G_LeaderNodes` (`leader`), at least 1.
    pub leader_nodes: u64,
    /// `G_LeaderMargin` (`leader`), in calibrated cp.
    pub leader_margin: i64,
    /// `G_SplitPredict` (`split`), in percent of each member's budget.
    pub split_predict_pct: u64,
    /// `G_Margin`, in milliseconds.
    pub margin_ms: u64,
    /// `G_NetworkDelay`, in milliseconds.
    pub network_delay_ms: u64,
    /// `G_MultiPonder`.
    pub multi_ponder: bool,
    /// `G_InfoRelay`.
    pub info_relay: InfoRelay,
    /// `G_Resign`.
    pub resign: ResignRule,
    /// `G_EarlyAgreement`, in percent of the members' weight (0 = off).
    pub early_agreement_pct: u64,
    /// `G_TimeBank`, in percent (0 = off).
    pub time_bank_pct: u64,
    /// `G_MateVerifyMs`, in milliseconds (0 = off).
    pub mate_verify_ms: u64,
    /// `G_OutputEncoding`.
    pub output_encoding: OutputEncoding,
}

impl Default for GOptions {
    /// The specs' defaults (a test checks each field against its [`SPECS`] row).
    fn default() -> Self {
        GOptions {
            change_player_plys: 1,
            chuuban_start_plys: 51,
            shuuban_start_plys: 101,
            change_player_score_diff: 100,
            mate_timeout_ms: 10_000,
            pv_mate_timeout_ms: 5_000,
            mate_info_count: 100,
            mate_info_interval_ms: 100,
            mate_nodes_pct: 100,
            multipv: 3,
            vote_scoring: VoteScoring::WinRate,
            leader_nodes: 3_000,
            leader_margin: 50,
            split_predict_pct: 10,
            margin_ms: DEFAULT_MARGIN_MS,
            network_delay_ms: DEFAULT_NETWORK_DELAY_MS,
            multi_ponder: false,
            info_relay: InfoRelay::Leader,
            resign: ResignRule::Chosen,
            early_agreement_pct: 0,
            time_bank_pct: 0,
            mate_verify_ms: 200,
            output_encoding: OutputEncoding::Utf8,
        }
    }
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

impl GOptions {
    /// Whether `name` is one of gougi's options (so the `setoption` is consumed, not forwarded).
    pub fn is_own(name: &str) -> bool {
        Spec::find(name).is_some()
    }

    /// Apply a `setoption`. On `Err` the value may still have changed (clamping); the error
    /// says what happened, for the log.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SetError> {
        let spec = Spec::find(name).ok_or_else(|| SetError::Unknown(name.to_string()))?;
        match spec.kind {
            Kind::Spin {
                min, max, field, ..
            } => {
                let Ok(v) = value.trim().parse::<i64>() else {
                    return Err(SetError::NotANumber {
                        name: name.into(),
                        value: value.into(),
                        kept: (field.get)(self),
                    });
                };
                let clamped = v.clamp(min, max);
                (field.put)(self, clamped);
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
            Kind::Check { field, .. } => {
                const WORDS: &[&str] = &["true", "false"];
                match value.trim().to_ascii_lowercase().as_str() {
                    "true" => (field.put)(self, true),
                    "false" => (field.put)(self, false),
                    _ => {
                        return Err(SetError::NotAVar {
                            name: name.into(),
                            value: value.into(),
                            vars: WORDS,
                            kept: if (field.get)(self) { "true" } else { "false" },
                        });
                    }
                }
            }
            Kind::Combo { vars, field, .. } => {
                match vars.iter().find(|v| v.eq_ignore_ascii_case(value.trim())) {
                    Some(v) => (field.put)(self, v),
                    None => {
                        return Err(SetError::NotAVar {
                            name: name.into(),
                            value: value.into(),
                            vars,
                            kept: (field.get)(self),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// `G_InfoRelay`: which members' lines the GUI sees while they think (`all` is capped by the
/// coordinator's `RELAY_RATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoRelay {
    Leader,
    All,
    None,
}

impl InfoRelay {
    /// From one of the spec's `vars`.
    fn from_option(word: &str) -> InfoRelay {
        match word {
            "all" => InfoRelay::All,
            "none" => InfoRelay::None,
            _ => InfoRelay::Leader,
        }
    }

    fn word(self) -> &'static str {
        match self {
            InfoRelay::Leader => "leader",
            InfoRelay::All => "all",
            InfoRelay::None => "none",
        }
    }
}

/// `G_VoteScoring` (`multipv-vote`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteScoring {
    WinRate,
    Borda,
}

impl VoteScoring {
    /// From one of the spec's `vars`.
    fn from_option(word: &str) -> VoteScoring {
        match word {
            "borda" => VoteScoring::Borda,
            _ => VoteScoring::WinRate,
        }
    }

    fn word(self) -> &'static str {
        match self {
            VoteScoring::WinRate => "winrate",
            VoteScoring::Borda => "borda",
        }
    }
}

/// `G_OutputEncoding`: how gougi's output reaches the GUI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputEncoding {
    Utf8,
    /// Old Windows GUIs; characters Shift_JIS lacks become numeric references.
    ShiftJis,
}

impl OutputEncoding {
    /// From one of the spec's `vars`.
    fn from_option(word: &str) -> OutputEncoding {
        match word {
            "Shift_JIS" => OutputEncoding::ShiftJis,
            _ => OutputEncoding::Utf8,
        }
    }

    fn word(self) -> &'static str {
        match self {
            OutputEncoding::Utf8 => "UTF-8",
            OutputEncoding::ShiftJis => "Shift_JIS",
        }
    }
}

// The tests are a file of their own, as `deadline`'s (ARCHITECTURE "Layout": no file under
// `src/gougi/` over 600 lines).
#[cfg(test)]
mod tests;
