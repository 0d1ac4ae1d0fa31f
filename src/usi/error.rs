//! The two parse modes and the one parse error of the USI vocabulary, in a leaf file so the
//! types (`command`, `go`, `message`, …) and the parser can all name them without importing
//! each other: the types never import the parser, the parser imports the types.

/// How forgiving a parse is. See the module doc for the exact differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strictness {
    /// The USI grammar exactly (whitespace still tolerated).
    Strict,
    /// What real GUIs and engines send; keeps unknown tokens instead of failing.
    Lenient,
}

/// Why a line could not be parsed. Field-carrying so a log says exactly what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsiParseError {
    #[error("`{command}`: missing {what}")]
    Missing {
        command: &'static str,
        what: &'static str,
    },
    #[error("`{command}`: unexpected token `{token}`")]
    UnexpectedToken {
        command: &'static str,
        token: String,
    },
    #[error("`{command}`: invalid value `{value}` for `{field}`")]
    InvalidValue {
        command: &'static str,
        field: &'static str,
        value: String,
    },
    #[error("`{command}`: `{field}` given more than once")]
    Duplicate {
        command: &'static str,
        field: &'static str,
    },
    #[error("invalid USI move `{text}`")]
    InvalidMove { text: String },
    #[error("invalid sfen `{sfen}`: {reason}")]
    InvalidSfen { sfen: String, reason: &'static str },
    #[error("invalid score `{text}`")]
    InvalidScore { text: String },
    #[error("option `{name}`: unknown type `{kind}`")]
    UnknownOptionType { name: String, kind: String },
    #[error("option `{name}`: value `{value}` rejected: {reason}")]
    InvalidOptionValue {
        name: String,
        value: String,
        reason: &'static str,
    },
}
