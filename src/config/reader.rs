//! The reader of the reference's line format: bytes → text ([`decode`]) → one value per
//! recognised key, with its line ([`read_lines`]). It runs inside the file layer's
//! `config::Format` (`layers::LineFormat`), so every problem it finds names the file, the line
//! and the key; checks of values and across keys are `validate`'s.
//!
//! # Format
//! Compatible with GougiShogi (formerly SimpleGougiShogi, see
//! `reference/gougishogi-behaviour.md` §2), with the weaknesses of its §12.11 fixed:
//! - UTF-8 (a leading BOM is skipped); if the bytes are not valid UTF-8 the file is decoded as
//!   CP932 (Shift_JIS), which is what the original shipped.
//! - Each line is trimmed. Blank lines and lines starting with `#` are comments.
//! - A setting is `Key=value`; spaces around `=` are allowed (the original required none before
//!   `=`); the value is trimmed. Keys are case-sensitive, as in the original.
//! - **Unknown keys.** A line shaped like a dotted key (`Word.Word…=…`, e.g. `Engin1.Path=…`) whose
//!   key is not one of ours is an **error** naming the line: a typo there would silently lose a
//!   member, which is worse than refusing to start.
//! - **Lines without `=`.** One that starts like a dotted key (`Engine2.Path builtin:search`,
//!   `Engine2.Path:…`, a lone `Gougi.Type`) is an **error** naming the line, for the same reason.
//! - **Free text.** The original had no comment syntax and ignored every line that did not start
//!   with `Key=`, so old files hold prose and section titles (`［エンジン］`, `[Engines]`). gougi
//!   still ignores them, but says so: each is a [`ConfigWarning`] (`file:line: ignored: …`), which
//!   the proxy prints as `info string [Warning] …` at start-up, so a line that was meant as a
//!   setting never vanishes without a word.
//! - **Duplicate keys.** The original took the first occurrence (the last for
//!   `MateEngine.forPV.Count`). gougi: a repeat with the same value is a warning; a repeat with a
//!   different value is an error naming both lines, because either reading surprises somebody.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{ConfigError, ConfigWarning, PolicyKind, Problem};

/// Decodes config bytes: UTF-8 (BOM skipped) when valid, else CP932.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => {
            let (text, _, had_errors) = encoding_rs::SHIFT_JIS.decode(bytes);
            if had_errors {
                tracing::warn!(
                    "config is neither UTF-8 nor clean CP932; undecodable bytes replaced"
                );
            }
            text.into_owned()
        }
    }
}

/// A recognised key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Key {
    GougiType,
    GougiName,
    EnginePath(u32),
    EngineName(u32),
    EngineWeight(u32),
    EngineScale(u32),
    EngineScoreView(u32),
    EnginePonder(u32),
    EngineSearchMoves(u32),
    EngineNodes(u32),
    EngineMinCores(u32),
    EngineShowOptions(u32),
    EngineHideOptions(u32),
    /// `Engine<N>.Option.<Name>`: the name is `Parser::option_names[.1]` (keys stay `Copy`).
    EngineOption(u32, usize),
    /// `Engine<N>.SoloOption.<Name>`, named like [`Key::EngineOption`].
    EngineSoloOption(u32, usize),
    MatePath,
    MatePvCount,
    MateGuard,
    MateMinCores,
    LogFile,
    LogLevel,
}

/// The keys that exist once, and the fields of `Engine<N>.<field>`: [`Key::parse`] reads these
/// two tables and [`key_forms`] lists them, so the user guide's reference, which `tests/docs.rs`
/// checks against [`key_forms`], names exactly the keys the parser accepts.
const FIXED_KEYS: [(&str, Key); 8] = [
    ("Gougi.Type", Key::GougiType),
    ("Gougi.Name", Key::GougiName),
    ("MateEngine.Path", Key::MatePath),
    ("MateEngine.forPV.Count", Key::MatePvCount),
    ("MateEngine.Guard", Key::MateGuard),
    ("MateEngine.MinCores", Key::MateMinCores),
    ("Log.File", Key::LogFile),
    ("Log.Level", Key::LogLevel),
];

/// A field of `Engine<N>.<field>` and the key it makes for member N.
type EngineField = (&'static str, fn(u32) -> Key);

/// See [`FIXED_KEYS`]; `Option.<name>` and `SoloOption.<name>` are [`engine_option_key`]'s.
const ENGINE_FIELDS: [EngineField; 11] = [
    ("Path", Key::EnginePath),
    ("Name", Key::EngineName),
    ("Weight", Key::EngineWeight),
    ("Scale", Key::EngineScale),
    ("ScoreView", Key::EngineScoreView),
    ("Ponder", Key::EnginePonder),
    ("SearchMoves", Key::EngineSearchMoves),
    ("Nodes", Key::EngineNodes),
    ("MinCores", Key::EngineMinCores),
    ("ShowOptions", Key::EngineShowOptions),
    ("HideOptions", Key::EngineHideOptions),
];

/// Every key the config accepts, as the user guide writes them: the fixed keys, then
/// `Engine<N>.<field>` and `Engine<N>.Option.<name>` / `Engine<N>.SoloOption.<name>`.
pub fn key_forms() -> Vec<String> {
    let fixed = FIXED_KEYS.iter().map(|(k, _)| (*k).to_owned());
    let fields = ENGINE_FIELDS.iter().map(|(f, _)| format!("Engine<N>.{f}"));
    let options = ["Option", "SoloOption"].map(|t| format!("Engine<N>.{t}.<name>"));
    fixed.chain(fields).chain(options).collect()
}

impl Key {
    /// `Ok(None)` when the text is not a key of ours; `Err` for `Engine0.*`.
    pub(super) fn parse(key: &str) -> Result<Option<Key>, Problem> {
        if let Some((_, k)) = FIXED_KEYS.iter().find(|(name, _)| *name == key) {
            return Ok(Some(*k));
        }
        let Some(rest) = key.strip_prefix("Engine") else {
            return Ok(None);
        };
        let Some((num, field)) = rest.split_once('.') else {
            return Ok(None);
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        let Ok(n) = num.parse::<u32>() else {
            return Ok(None);
        };
        let Some((_, make)) = ENGINE_FIELDS.iter().find(|(name, _)| *name == field) else {
            return Ok(None);
        };
        if n == 0 {
            return Err(Problem::EngineZero);
        }
        Ok(Some(make(n)))
    }

    /// A suggestion for an unknown key: a case-insensitive match, or the engine field form.
    fn hint(key: &str) -> Option<String> {
        let lower = key.to_ascii_lowercase();
        if let Some((k, _)) = FIXED_KEYS
            .iter()
            .find(|(k, _)| k.to_ascii_lowercase() == lower)
        {
            return Some((*k).to_owned());
        }
        if let Some(k) = option_hint(key) {
            return Some(k);
        }
        let digits: String = key.chars().filter(char::is_ascii_digit).collect();
        let field = key.rsplit('.').next().unwrap_or("");
        let looks_like_engine = lower.starts_with("eng") || lower.starts_with("egn");
        if looks_like_engine && !digits.is_empty() {
            let f = ENGINE_FIELDS
                .iter()
                .find(|(f, _)| f.eq_ignore_ascii_case(field))
                .map_or("Path", |(f, _)| f);
            return Some(format!("Engine{digits}.{f}"));
        }
        None
    }
}

/// Which of a member's option tables a key sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OptionTable {
    /// `Engine<N>.Option.<Name>`: the member's value.
    Normal,
    /// `Engine<N>.SoloOption.<Name>`: its value in the rounds where it plays alone.
    Solo,
}

impl OptionTable {
    /// The key for member `n`'s option `name` in this table.
    pub(super) fn key(self, n: u32, index: usize) -> Key {
        match self {
            OptionTable::Normal => Key::EngineOption(n, index),
            OptionTable::Solo => Key::EngineSoloOption(n, index),
        }
    }
}

/// `Engine<N>.Option.<Name>` / `Engine<N>.SoloOption.<Name>` → `(N, table, Name)`. USI option
/// names hold no spaces, so neither may `<Name>` (a key like `Engine2.Option.Skill Level` is no
/// key of ours).
pub(super) fn engine_option_key(key: &str) -> Option<(u32, OptionTable, &str)> {
    let rest = key.strip_prefix("Engine")?;
    let (num, field) = rest.split_once('.')?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (table, name) = if let Some(name) = field.strip_prefix("Option.") {
        (OptionTable::Normal, name)
    } else {
        (OptionTable::Solo, field.strip_prefix("SoloOption.")?)
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    Some((num.parse().ok()?, table, name))
}

/// A suggestion for a misspelt option key (`Engine1.option.Threads`,
/// `Engine1.SoloOptions.Threads`, `Engine1.Solo.Threads`): the table's spelling with the
/// member's number and the option's name as written (a USI name is case-sensitive).
fn option_hint(key: &str) -> Option<String> {
    let mut parts = key.splitn(3, '.');
    let (engine, table, name) = (parts.next()?, parts.next()?, parts.next()?);
    let digits: String = engine.chars().filter(char::is_ascii_digit).collect();
    let table: String = table
        .chars()
        .filter(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_lowercase();
    let engine = engine.to_ascii_lowercase();
    if digits.is_empty()
        || name.is_empty()
        || !(engine.starts_with("eng") || engine.starts_with("egn"))
    {
        return None;
    }
    let field = if table.starts_with("solo") {
        "SoloOption"
    } else if table.starts_with("opt") {
        "Option"
    } else {
        return None;
    };
    Some(format!("Engine{digits}.{field}.{name}"))
}

/// True if the text before `=` looks like a dotted key (`Word.Word…`), so a typo there is an error
/// rather than ignored prose.
fn looks_like_key(key: &str) -> bool {
    let mut parts = key.split('.');
    let all_words = key
        .split('.')
        .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    parts.next().is_some() && parts.next().is_some() && all_words
}

/// What [`read_lines`] found: each key's first value and line, the keys as written.
pub(super) struct ReadKeys {
    /// key → (line, raw value), first occurrence.
    pub values: BTreeMap<Key, (usize, String)>,
    pub key_names: BTreeMap<Key, String>,
    /// The option names of `Engine<N>.Option.<Name>` and `Engine<N>.SoloOption.<Name>` keys
    /// ([`Key::EngineOption`]'s and [`Key::EngineSoloOption`]'s index).
    pub option_names: Vec<String>,
    pub warnings: Vec<ConfigWarning>,
}

/// Reads config text line by line (see the module doc); `file` names it in messages.
pub(super) fn read_lines(text: &str, file: &Path) -> Result<ReadKeys, ConfigError> {
    Parser {
        file: file.to_owned(),
        keys: ReadKeys {
            values: BTreeMap::new(),
            key_names: BTreeMap::new(),
            option_names: Vec::new(),
            warnings: Vec::new(),
        },
    }
    .run(text)
}

/// A suggestion for an unknown key (a case-insensitive match, or the engine field form).
pub(super) fn key_hint(key: &str) -> Option<String> {
    Key::hint(key)
}

struct Parser {
    file: PathBuf,
    keys: ReadKeys,
}

impl Parser {
    fn err(&self, line: usize, key: &str, problem: Problem) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.clone(),
            line,
            key: key.to_owned(),
            problem,
        }
    }

    fn warn(&mut self, line: usize, key: &str, message: String) {
        self.keys.warnings.push(ConfigWarning {
            file: self.file.clone(),
            line,
            key: key.to_owned(),
            message,
        });
    }

    /// A line that is neither a comment nor a setting: ignored as the original did, with a
    /// warning that quotes its start.
    fn free_text(&mut self, line: usize, text: &str, why: &str) {
        const QUOTE_CHARS: usize = 40;
        let mut quoted: String = text.chars().take(QUOTE_CHARS).collect();
        if text.chars().nth(QUOTE_CHARS).is_some() {
            quoted.push('…');
        }
        self.warn(
            line,
            "",
            format!("ignored: {why}, not a setting (start comments with #): {quoted:?}"),
        );
    }

    fn run(mut self, text: &str) -> Result<ReadKeys, ConfigError> {
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key_text, value)) = line.split_once('=') else {
                // What a key would be: the leading run of key characters (`Engine2.Path` in
                // `Engine2.Path builtin:search` or `Engine2.Path:…`).
                let head_len = line
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    .unwrap_or(line.len());
                let head = &line[..head_len];
                if looks_like_key(head) {
                    return Err(self.err(line_no, head, Problem::NoEquals));
                }
                self.free_text(line_no, line, "no \"=\"");
                continue;
            };
            let key_text = key_text.trim();
            let value = value.trim();
            let parsed = match engine_option_key(key_text) {
                Some((0, _, _)) => Err(Problem::EngineZero),
                Some((n, table, name)) => {
                    let idx = match self.keys.option_names.iter().position(|o| o == name) {
                        Some(idx) => idx,
                        None => {
                            self.keys.option_names.push(name.to_owned());
                            self.keys.option_names.len() - 1
                        }
                    };
                    Ok(Some(table.key(n, idx)))
                }
                None => Key::parse(key_text),
            };
            let key = match parsed {
                Ok(Some(k)) => k,
                Ok(None) if looks_like_key(key_text) => {
                    return Err(self.err(
                        line_no,
                        key_text,
                        Problem::UnknownKey {
                            hint: Key::hint(key_text),
                        },
                    ))
                }
                Ok(None) => {
                    self.free_text(line_no, line, "not a key");
                    continue;
                }
                Err(p) => return Err(self.err(line_no, key_text, p)),
            };
            if value.is_empty() {
                return Err(self.err(line_no, key_text, Problem::Empty));
            }
            if let Some((first, old)) = self.keys.values.get(&key) {
                let first = *first;
                // The two names of one type are the same value.
                let same = old == value
                    || (key == Key::GougiType
                        && old.parse::<PolicyKind>().ok() == value.parse::<PolicyKind>().ok()
                        && value.parse::<PolicyKind>().is_ok());
                if same {
                    self.warn(
                        line_no,
                        key_text,
                        format!("repeated (first on line {first}); same value, ignored"),
                    );
                    continue;
                }
                return Err(self.err(line_no, key_text, Problem::Duplicate { first_line: first }));
            }
            self.keys.values.insert(key, (line_no, value.to_owned()));
            self.keys.key_names.insert(key, key_text.to_owned());
        }
        Ok(self.keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_like_key_shapes() {
        assert!(looks_like_key("Engin1.Path"));
        assert!(looks_like_key("Gougi.type"));
        assert!(!looks_like_key("合議タイプ"));
        assert!(!looks_like_key("a b.c"));
        assert!(!looks_like_key("Path"));
    }

    #[test]
    fn hints() {
        assert_eq!(Key::hint("gougi.type").as_deref(), Some("Gougi.Type"));
        assert_eq!(Key::hint("Engin1.Path").as_deref(), Some("Engine1.Path"));
        assert_eq!(Key::hint("engine2.name").as_deref(), Some("Engine2.Name"));
        assert_eq!(Key::hint("Foo.Bar"), None);
        assert_eq!(
            Key::hint("Engine1.SoloOptions.EvalNoise").as_deref(),
            Some("Engine1.SoloOption.EvalNoise")
        );
        assert_eq!(
            Key::hint("engine2.solo_option.Threads").as_deref(),
            Some("Engine2.SoloOption.Threads")
        );
        assert_eq!(
            Key::hint("Engine3.Options.USI_Hash").as_deref(),
            Some("Engine3.Option.USI_Hash")
        );
    }

    #[test]
    fn option_keys() {
        assert_eq!(
            engine_option_key("Engine2.SoloOption.EvalNoise"),
            Some((2, OptionTable::Solo, "EvalNoise"))
        );
        assert_eq!(
            engine_option_key("Engine2.Option.EvalNoise"),
            Some((2, OptionTable::Normal, "EvalNoise"))
        );
        assert_eq!(engine_option_key("Engine2.SoloOption."), None);
        assert_eq!(engine_option_key("Engine2.Solooption.X"), None);
        assert_eq!(engine_option_key("Engine2.SoloOption.Skill Level"), None);
    }

    #[test]
    fn every_key_form_is_a_key() {
        // The forms are what the guide's reference lists; each must be a key of ours.
        for form in key_forms() {
            let key = form.replace("<N>", "2").replace("<name>", "Threads");
            let known =
                matches!(Key::parse(&key), Ok(Some(_))) || engine_option_key(&key).is_some();
            assert!(known, "{form}");
        }
    }
}
