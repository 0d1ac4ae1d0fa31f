//! Engine options: declarations ([`OptionDecl`], from `option name … type …`) and typed values
//! ([`OptionValue`], what `setoption` carries once checked against a declaration).
//!
//! Types (USI): `check`, `spin` (default/min/max), `combo` (`var` …), `button` (no value),
//! `string`, and `filename` (a USI addition). Names contain no spaces. A `string` or `filename`
//! default is the rest of the line and may contain spaces; YaneuraOu writes an empty default as
//! `<empty>`, which is kept as text (a GUI shows it, and the proxy re-exports it unchanged).
//! Reserved `USI_*` names (`USI_Hash`, `USI_Ponder`, …) are ordinary declarations here; what they
//! mean is the proxy's business.
//!
//! `Display` on [`OptionDecl`] prints the whole `option name … type …` line in canonical order
//! (`default min max`, then each `var`), which is how the proxy re-exports a member's option
//! under an `E<N>_` prefix: clone, rename, print.

use std::fmt;

use super::error::UsiParseError;

/// The option names USI reserves, each with a fixed meaning: a GUI may send them to an engine
/// that never declared them, and GUIs hide unknown `USI_*` names from users.
pub const RESERVED: &[&str] = &[
    "USI_Hash",
    "USI_Ponder",
    "USI_OwnBook",
    "USI_MultiPV",
    "USI_ShowCurrLine",
    "USI_ShowRefutations",
    "USI_LimitStrength",
    "USI_Strength",
    "USI_AnalyseMode",
];

/// The two a GUI sends to every engine before each `isready`, declared or not (USI lets an
/// engine leave them out of its `option` lines; Shogidokoro and ShogiGUI send both every game).
pub const SENT_TO_EVERY_ENGINE: &[&str] = &["USI_Hash", "USI_Ponder"];

/// Whether `name` is one of USI's reserved names ([`RESERVED`]) or another in the `USI_`
/// namespace, which only USI may define: an engine takes these quietly when it has no use for
/// them, since the GUI sent what USI told it to.
pub fn is_reserved(name: &str) -> bool {
    name.starts_with("USI_")
}

/// The type and bounds of one option.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OptionKind {
    Check {
        default: Option<bool>,
    },
    Spin {
        default: Option<i64>,
        min: Option<i64>,
        max: Option<i64>,
    },
    Combo {
        default: Option<String>,
        vars: Vec<String>,
    },
    Button,
    String {
        default: Option<String>,
    },
    Filename {
        default: Option<String>,
    },
}

impl OptionKind {
    /// The USI type keyword (`check`, `spin`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            OptionKind::Check { .. } => "check",
            OptionKind::Spin { .. } => "spin",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
            OptionKind::String { .. } => "string",
            OptionKind::Filename { .. } => "filename",
        }
    }
}

/// One `option name <name> type <kind> …` declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OptionDecl {
    pub name: String,
    pub kind: OptionKind,
}

/// A checked option value, as sent with `setoption name <n> value <v>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OptionValue {
    Check(bool),
    Spin(i64),
    Combo(String),
    /// A button carries no value (`setoption name <n>`).
    Button,
    String(String),
    Filename(String),
}

impl OptionValue {
    /// The text after `value`, `None` for a button.
    pub fn to_value_text(&self) -> Option<String> {
        match self {
            OptionValue::Check(b) => Some(b.to_string()),
            OptionValue::Spin(n) => Some(n.to_string()),
            OptionValue::Combo(s) | OptionValue::String(s) | OptionValue::Filename(s) => {
                Some(s.clone())
            }
            OptionValue::Button => None,
        }
    }
}

impl OptionDecl {
    /// The declared default as a typed value (`None` if the declaration has none; a button's
    /// "default" is [`OptionValue::Button`]).
    pub fn default_value(&self) -> Option<OptionValue> {
        match &self.kind {
            OptionKind::Check { default } => default.map(OptionValue::Check),
            OptionKind::Spin { default, .. } => default.map(OptionValue::Spin),
            OptionKind::Combo { default, .. } => default.clone().map(OptionValue::Combo),
            OptionKind::Button => Some(OptionValue::Button),
            OptionKind::String { default } => default.clone().map(OptionValue::String),
            OptionKind::Filename { default } => default.clone().map(OptionValue::Filename),
        }
    }

    /// Makes `value` (checked by [`OptionDecl::check_value`]) the declared default — a
    /// consultation's `Engine<N>.Option.<Name>` shown to the GUI as `E<N>_<Name>`'s default.
    pub fn set_default(&mut self, value: &OptionValue) {
        match (&mut self.kind, value) {
            (OptionKind::Check { default }, OptionValue::Check(v)) => *default = Some(*v),
            (OptionKind::Spin { default, .. }, OptionValue::Spin(v)) => *default = Some(*v),
            (OptionKind::Combo { default, .. }, OptionValue::Combo(v))
            | (OptionKind::String { default }, OptionValue::String(v))
            | (OptionKind::Filename { default }, OptionValue::Filename(v)) => {
                *default = Some(v.clone())
            }
            _ => {}
        }
    }

    /// Checks a `setoption` value against this declaration: `check` takes `true`/`false`, `spin`
    /// an integer within `min..=max`, `combo` one of its `var`s, `button` no value, `string` and
    /// `filename` any text (an absent value counts as empty).
    pub fn check_value(&self, value: Option<&str>) -> Result<OptionValue, UsiParseError> {
        let bad = |reason: &'static str| UsiParseError::InvalidOptionValue {
            name: self.name.clone(),
            value: value.unwrap_or("").to_owned(),
            reason,
        };
        match &self.kind {
            OptionKind::Check { .. } => match value {
                Some("true") => Ok(OptionValue::Check(true)),
                Some("false") => Ok(OptionValue::Check(false)),
                _ => Err(bad("a check option takes true or false")),
            },
            OptionKind::Spin { min, max, .. } => {
                let n: i64 = value
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| bad("a spin option takes an integer"))?;
                if min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi) {
                    return Err(bad("out of the declared min..max range"));
                }
                Ok(OptionValue::Spin(n))
            }
            OptionKind::Combo { vars, .. } => match value {
                Some(v) if vars.iter().any(|var| var == v) => Ok(OptionValue::Combo(v.to_owned())),
                _ => Err(bad("not one of the declared var values")),
            },
            OptionKind::Button => match value {
                None => Ok(OptionValue::Button),
                Some(_) => Err(bad("a button takes no value")),
            },
            OptionKind::String { .. } => Ok(OptionValue::String(value.unwrap_or("").to_owned())),
            OptionKind::Filename { .. } => {
                Ok(OptionValue::Filename(value.unwrap_or("").to_owned()))
            }
        }
    }
}

impl fmt::Display for OptionDecl {
    /// `option name <n> type <t> [default …] [min …] [max …] [var …]*`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "option name {} type {}",
            self.name,
            self.kind.type_name()
        )?;
        match &self.kind {
            OptionKind::Check { default } => {
                if let Some(d) = default {
                    write!(f, " default {d}")?;
                }
            }
            OptionKind::Spin { default, min, max } => {
                for (key, value) in [("default", default), ("min", min), ("max", max)] {
                    if let Some(v) = value {
                        write!(f, " {key} {v}")?;
                    }
                }
            }
            OptionKind::Combo { default, vars } => {
                write_default(f, default.as_deref())?;
                for v in vars {
                    write!(f, " var {v}")?;
                }
            }
            OptionKind::Button => {}
            OptionKind::String { default } | OptionKind::Filename { default } => {
                write_default(f, default.as_deref())?;
            }
        }
        Ok(())
    }
}

/// ` default <text>`; an empty text prints ` default` with no trailing space (it parses back
/// to an empty default).
fn write_default(f: &mut fmt::Formatter<'_>, default: Option<&str>) -> fmt::Result {
    match default {
        Some("") => f.write_str(" default"),
        Some(d) => write!(f, " default {d}"),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin() -> OptionDecl {
        OptionDecl {
            name: "USI_Hash".into(),
            kind: OptionKind::Spin {
                default: Some(256),
                min: Some(1),
                max: Some(1024),
            },
        }
    }

    #[test]
    fn check_value_enforces_each_type() {
        assert_eq!(spin().check_value(Some("512")), Ok(OptionValue::Spin(512)));
        assert!(spin().check_value(Some("0")).is_err());
        assert!(spin().check_value(Some("2048")).is_err());
        assert!(spin().check_value(Some("big")).is_err());
        assert!(spin().check_value(None).is_err());

        let check = OptionDecl {
            name: "USI_Ponder".into(),
            kind: OptionKind::Check {
                default: Some(false),
            },
        };
        assert_eq!(
            check.check_value(Some("true")),
            Ok(OptionValue::Check(true))
        );
        assert!(check.check_value(Some("yes")).is_err());

        let combo = OptionDecl {
            name: "EnteringKingRule".into(),
            kind: OptionKind::Combo {
                default: Some("CSARule27".into()),
                vars: vec![
                    "NoEnteringKing".into(),
                    "CSARule27".into(),
                    "TryRule".into(),
                ],
            },
        };
        assert_eq!(
            combo.check_value(Some("TryRule")),
            Ok(OptionValue::Combo("TryRule".into()))
        );
        assert!(combo.check_value(Some("CSARule24")).is_err());

        let button = OptionDecl {
            name: "ClearHash".into(),
            kind: OptionKind::Button,
        };
        assert_eq!(button.check_value(None), Ok(OptionValue::Button));
        assert!(button.check_value(Some("x")).is_err());
        assert_eq!(button.default_value(), Some(OptionValue::Button));

        let string = OptionDecl {
            name: "EvalDir".into(),
            kind: OptionKind::String {
                default: Some("eval".into()),
            },
        };
        assert_eq!(
            string.check_value(Some("my eval dir")),
            Ok(OptionValue::String("my eval dir".into()))
        );
        assert_eq!(
            string.default_value(),
            Some(OptionValue::String("eval".into()))
        );
        assert_eq!(
            OptionValue::String("a b".into()).to_value_text().as_deref(),
            Some("a b")
        );
        assert_eq!(OptionValue::Button.to_value_text(), None);
    }

    #[test]
    fn display_is_canonical() {
        assert_eq!(
            spin().to_string(),
            "option name USI_Hash type spin default 256 min 1 max 1024"
        );
    }
}
