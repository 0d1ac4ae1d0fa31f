//! The settings as layers through the `config` crate, typed by `serde`.
//!
//! Three layers, each over the one before (a key set in a higher layer wins):
//! 1. **gougi's defaults** ([`DEFAULTS_TEXT`], `src/config/defaults.config`, compiled in): the
//!    keys that exist once and have a default (`MateEngine.forPV.Count`). Per-member defaults
//!    (`Engine<N>.Weight` 1, `Ponder` true, …) cannot be a layer, since the layer does not know
//!    which members there are: `validate` applies them to each member it builds.
//! 2. **The file** (`SimpleGougi.config`), read by [`LineFormat`], a [`config::Format`] for the
//!    reference's `Key=value` lines. The bytes are decoded by gougi ([`super::decode`]: UTF-8, else
//!    CP932) and handed over as text, because the crate's own file reader decodes lossily as
//!    UTF-8.
//! 3. **The environment** ([`EnvLayer`], a [`config::Source`]): `GOUGI_<KEY>` variables, see
//!    [`env_key`] for the naming.
//!
//! The crate merges the layers into one tree and `serde` types the tree into [`RawSettings`]
//! (sections, members by number, each member's options). `validate` turns that into the checked
//! [`super::Config`].
//!
//! # Why each value carries its place
//! Every error must name where the bad value came from: `file:line: key: problem` for the file,
//! the variable for the environment. The crate's errors name a key at best (its values keep an
//! `origin` string, but serde never sees it), so each leaf of the tree is a small record —
//! the value as text, the key as written, the line, the variable — and the checks that can fail
//! run where that record is at hand: line-level ones (syntax, unknown keys, repeats, empty values)
//! inside [`LineFormat`], value and cross-key ones in `validate`. A leaf stays text until then for
//! the same reason: a value `serde` failed to convert would have lost its line.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ::config::{FileStoredFormat, Format, Map, Source, Value, ValueKind};
use serde::Deserialize;

use super::reader::{engine_option_key, read_lines, Key};
use super::{ConfigError, ConfigWarning, Problem};

/// The bottom layer: gougi's defaults, in the file's own format.
pub const DEFAULTS_TEXT: &str = include_str!("defaults.config");

/// The prefix of the variables that override keys (`GOUGI_ENGINE1_PATH`).
pub const ENV_PREFIX: &str = "GOUGI_";

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The file, at this line.
    Line(usize),
    /// The environment variable of this name.
    Env(String),
    /// gougi's defaults ([`DEFAULTS_TEXT`]).
    Default,
}

impl Place {
    /// The line in the file, 0 when the value did not come from the file.
    pub fn line(&self) -> usize {
        match self {
            Place::Line(line) => *line,
            _ => 0,
        }
    }
}

/// One leaf of the merged tree: a value with the key as written and where it came from.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct Setting {
    pub value: String,
    pub key: String,
    line: usize,
    var: String,
}

impl Setting {
    pub fn place(&self) -> Place {
        if !self.var.is_empty() {
            Place::Env(self.var.clone())
        } else if self.line > 0 {
            Place::Line(self.line)
        } else {
            Place::Default
        }
    }

    /// The leaf as the crate stores it; `origin` is for the crate's own messages.
    fn into_value(self) -> Value {
        let origin = match self.place() {
            Place::Line(line) => format!("line {line}"),
            Place::Env(var) => var,
            Place::Default => "gougi's defaults".to_owned(),
        };
        let mut record = Map::new();
        record.insert("value".to_owned(), ValueKind::String(self.value).into());
        record.insert("key".to_owned(), ValueKind::String(self.key).into());
        record.insert("line".to_owned(), ValueKind::U64(self.line as u64).into());
        record.insert("var".to_owned(), ValueKind::String(self.var).into());
        Value::new(Some(&origin), ValueKind::Table(record))
    }
}

/// The merged layers as `serde` types them: the file's sections, members by number.
#[derive(Debug, Default, Deserialize)]
pub(super) struct RawSettings {
    #[serde(rename = "Gougi", default)]
    pub gougi: GougiKeys,
    /// `Engine<N>.*` by `N` (decimal text: the tree's keys are strings).
    #[serde(rename = "Engine", default)]
    pub engines: BTreeMap<String, EngineKeys>,
    #[serde(rename = "MateEngine", default)]
    pub mate: MateKeys,
    #[serde(rename = "Log", default)]
    pub log: LogKeys,
}

/// `Gougi.*`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct GougiKeys {
    #[serde(rename = "Type")]
    pub kind: Option<Setting>,
    #[serde(rename = "Name")]
    pub name: Option<Setting>,
}

/// `Engine<N>.*`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct EngineKeys {
    #[serde(rename = "Path")]
    pub path: Option<Setting>,
    #[serde(rename = "Name")]
    pub name: Option<Setting>,
    #[serde(rename = "Weight")]
    pub weight: Option<Setting>,
    #[serde(rename = "Scale")]
    pub scale: Option<Setting>,
    #[serde(rename = "ScoreView")]
    pub score_view: Option<Setting>,
    #[serde(rename = "Ponder")]
    pub ponder: Option<Setting>,
    #[serde(rename = "SearchMoves")]
    pub searchmoves: Option<Setting>,
    #[serde(rename = "Nodes")]
    pub nodes: Option<Setting>,
    #[serde(rename = "MinCores")]
    pub min_cores: Option<Setting>,
    #[serde(rename = "ShowOptions")]
    pub show_options: Option<Setting>,
    #[serde(rename = "HideOptions")]
    pub hide_options: Option<Setting>,
    /// `Engine<N>.Option.<Name>` by name.
    #[serde(rename = "Option", default)]
    pub options: BTreeMap<String, Setting>,
    /// `Engine<N>.SoloOption.<Name>` by name.
    #[serde(rename = "SoloOption", default)]
    pub solo_options: BTreeMap<String, Setting>,
}

impl EngineKeys {
    /// The single-valued fields in the order their orphans are reported (the keys' order).
    pub fn fields(&self) -> [Option<&Setting>; 10] {
        [
            self.name.as_ref(),
            self.weight.as_ref(),
            self.scale.as_ref(),
            self.score_view.as_ref(),
            self.ponder.as_ref(),
            self.searchmoves.as_ref(),
            self.nodes.as_ref(),
            self.min_cores.as_ref(),
            self.show_options.as_ref(),
            self.hide_options.as_ref(),
        ]
    }
}

/// `MateEngine.*`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct MateKeys {
    #[serde(rename = "Path")]
    pub path: Option<Setting>,
    #[serde(rename = "forPV", default)]
    pub for_pv: PvKeys,
    #[serde(rename = "Guard")]
    pub guard: Option<Setting>,
    #[serde(rename = "MinCores")]
    pub min_cores: Option<Setting>,
}

/// `MateEngine.forPV.*`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct PvKeys {
    #[serde(rename = "Count")]
    pub count: Option<Setting>,
}

/// `Log.*`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct LogKeys {
    #[serde(rename = "File")]
    pub file: Option<Setting>,
    #[serde(rename = "Level")]
    pub level: Option<Setting>,
}

/// A tree being built: the crate merges tables key by key, so every layer builds the same shape.
#[derive(Default)]
struct Tree(BTreeMap<String, Node>);

enum Node {
    Leaf(Setting),
    Table(Tree),
}

impl Tree {
    /// Sets the leaf at `key`'s place in the tree (`option`: the name of an `EngineOption` or
    /// `EngineSoloOption`).
    fn put(&mut self, key: Key, option: &str, setting: Setting) {
        let n = |n: u32| n.to_string();
        let path: Vec<String> = match key {
            Key::GougiType => vec!["Gougi".into(), "Type".into()],
            Key::GougiName => vec!["Gougi".into(), "Name".into()],
            Key::EnginePath(i) => vec!["Engine".into(), n(i), "Path".into()],
            Key::EngineName(i) => vec!["Engine".into(), n(i), "Name".into()],
            Key::EngineWeight(i) => vec!["Engine".into(), n(i), "Weight".into()],
            Key::EngineScale(i) => vec!["Engine".into(), n(i), "Scale".into()],
            Key::EngineScoreView(i) => vec!["Engine".into(), n(i), "ScoreView".into()],
            Key::EnginePonder(i) => vec!["Engine".into(), n(i), "Ponder".into()],
            Key::EngineSearchMoves(i) => vec!["Engine".into(), n(i), "SearchMoves".into()],
            Key::EngineNodes(i) => vec!["Engine".into(), n(i), "Nodes".into()],
            Key::EngineMinCores(i) => vec!["Engine".into(), n(i), "MinCores".into()],
            Key::EngineShowOptions(i) => vec!["Engine".into(), n(i), "ShowOptions".into()],
            Key::EngineHideOptions(i) => vec!["Engine".into(), n(i), "HideOptions".into()],
            Key::EngineOption(i, _) => {
                vec!["Engine".into(), n(i), "Option".into(), option.to_owned()]
            }
            Key::EngineSoloOption(i, _) => {
                vec![
                    "Engine".into(),
                    n(i),
                    "SoloOption".into(),
                    option.to_owned(),
                ]
            }
            Key::MatePath => vec!["MateEngine".into(), "Path".into()],
            Key::MatePvCount => vec!["MateEngine".into(), "forPV".into(), "Count".into()],
            Key::MateGuard => vec!["MateEngine".into(), "Guard".into()],
            Key::MateMinCores => vec!["MateEngine".into(), "MinCores".into()],
            Key::LogFile => vec!["Log".into(), "File".into()],
            Key::LogLevel => vec!["Log".into(), "Level".into()],
        };
        let (last, tables) = path.split_last().expect("a key has a path");
        let mut tree = self;
        for name in tables {
            let node = tree
                .0
                .entry(name.clone())
                .or_insert_with(|| Node::Table(Tree::default()));
            tree = match node {
                Node::Table(t) => t,
                Node::Leaf(_) => unreachable!("a section is never a leaf"),
            };
        }
        tree.0.insert(last.clone(), Node::Leaf(setting));
    }

    fn into_map(self) -> Map<String, Value> {
        self.0
            .into_iter()
            .map(|(name, node)| {
                let value = match node {
                    Node::Leaf(setting) => setting.into_value(),
                    Node::Table(tree) => ValueKind::Table(tree.into_map()).into(),
                };
                (name, value)
            })
            .collect()
    }
}

/// The reference's line format as a [`config::Format`]: the reader's line-level checks, then
/// the keys as a tree of [`Setting`]s. A problem is a [`ConfigError`] naming the file, the line
/// and the key, boxed for the crate and unboxed by [`merge`]. Warnings (free text, repeats) go to
/// the shared list, since a format returns only the values.
#[derive(Clone, Debug)]
pub(super) struct LineFormat {
    file: PathBuf,
    /// True for [`DEFAULTS_TEXT`]: its settings are [`Place::Default`].
    defaults: bool,
    warnings: Arc<Mutex<Vec<ConfigWarning>>>,
}

impl Format for LineFormat {
    fn parse(
        &self,
        _uri: Option<&String>,
        text: &str,
    ) -> Result<Map<String, Value>, Box<dyn Error + Send + Sync>> {
        let read = read_lines(text, &self.file)?;
        let mut tree = Tree::default();
        for (key, (line, value)) in read.values {
            let option = match key {
                Key::EngineOption(_, idx) | Key::EngineSoloOption(_, idx) => {
                    read.option_names[idx].as_str()
                }
                _ => "",
            };
            let setting = Setting {
                value,
                key: read.key_names[&key].clone(),
                line: if self.defaults { 0 } else { line },
                var: String::new(),
            };
            tree.put(key, option, setting);
        }
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(read.warnings);
        Ok(tree.into_map())
    }
}

impl FileStoredFormat for LineFormat {
    fn file_extensions(&self) -> &'static [&'static str] {
        &["config"]
    }
}

/// The environment as a [`config::Source`]: every `GOUGI_…` variable that names a key
/// ([`env_key`]). Empty variables count as unset, as `GOUGI_LOG` does.
#[derive(Clone, Debug)]
pub(super) struct EnvLayer {
    vars: Vec<(String, String)>,
}

impl Source for EnvLayer {
    fn clone_into_box(&self) -> Box<dyn Source + Send + Sync> {
        Box::new(self.clone())
    }

    fn collect(&self) -> Result<Map<String, Value>, ::config::ConfigError> {
        let fail = |var: &str, key: &str, problem| {
            ::config::ConfigError::Foreign(Box::new(ConfigError::Env {
                var: var.to_owned(),
                key: key.to_owned(),
                problem,
            }))
        };
        let mut tree = Tree::default();
        for (var, value) in &self.vars {
            let Some(key_text) = env_key(var) else {
                continue;
            };
            let key_text = key_text.map_err(|p| fail(var, "", p))?;
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            let (key, option) = match engine_option_key(&key_text) {
                Some((0, _, _)) => return Err(fail(var, &key_text, Problem::EngineZero)),
                // The index is the reader's; the tree is keyed by the name.
                Some((n, table, name)) => (table.key(n, 0), name.to_owned()),
                None => match Key::parse(&key_text) {
                    Ok(Some(key)) => (key, String::new()),
                    // A member number too large to be one (`GOUGI_ENGINE99999999999_PATH`).
                    Ok(None) => return Err(fail(var, "", Problem::UnknownVariable { hint: None })),
                    Err(problem) => return Err(fail(var, &key_text, problem)),
                },
            };
            let setting = Setting {
                value: value.to_owned(),
                key: key_text.clone(),
                line: 0,
                var: var.clone(),
            };
            tree.put(key, &option, setting);
        }
        Ok(tree.into_map())
    }
}

/// The key a variable overrides: `None` for a variable that is not a setting, `Some(Err)` for
/// one that looks like a setting but names no key.
///
/// The name is [`ENV_PREFIX`] and the key in capitals with `_` for `.`: `GOUGI_GOUGI_TYPE`,
/// `GOUGI_ENGINE<N>_PATH` (and `_NAME`, `_WEIGHT`, `_SCALE`, `_SCOREVIEW`, `_PONDER`, `_NODES`, `_MINCORES`,
/// `_SHOWOPTIONS`, `_HIDEOPTIONS`), `GOUGI_MATEENGINE_PATH`, `GOUGI_MATEENGINE_FORPV_COUNT`, `GOUGI_MATEENGINE_GUARD`, and
/// `GOUGI_ENGINE<N>_OPTION_<Name>` and `GOUGI_ENGINE<N>_SOLOOPTION_<Name>` with the option's
/// name as the member spells it (`GOUGI_ENGINE2_OPTION_USI_Hash`). Letters are matched in any
/// case, except `<Name>`'s.
/// `Log.Level` and `Log.File` keep their older overrides `GOUGI_LOG` and `GOUGI_LOG_FILE`
/// (`gougi::log_settings`), which also serve the subcommands that read no config.
///
/// A variable is taken for a setting when what follows `GOUGI_` starts with `GOUGI`, `ENG` or
/// `MATE`, so a typo there (`GOUGI_ENGIN1_PATH`) is an error, not a setting silently lost; the
/// other `GOUGI_…` variables (`GOUGI_CONFIG`, `GOUGI_LOG`, the tests' switches) are not ours.
pub fn env_key(var: &str) -> Option<Result<String, Problem>> {
    let rest = var
        .get(..ENV_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(ENV_PREFIX))
        .map(|_| &var[ENV_PREFIX.len()..])?;
    let upper = rest.to_ascii_uppercase();
    if !["GOUGI", "ENG", "MATE"]
        .iter()
        .any(|p| upper.starts_with(p))
    {
        return None;
    }
    let unknown = || {
        Some(Err(Problem::UnknownVariable {
            hint: env_hint(&upper),
        }))
    };
    let key = match upper.as_str() {
        "GOUGI_TYPE" => "Gougi.Type".to_owned(),
        "GOUGI_NAME" => "Gougi.Name".to_owned(),
        "MATEENGINE_PATH" => "MateEngine.Path".to_owned(),
        "MATEENGINE_FORPV_COUNT" => "MateEngine.forPV.Count".to_owned(),
        "MATEENGINE_GUARD" => "MateEngine.Guard".to_owned(),
        "MATEENGINE_MINCORES" => "MateEngine.MinCores".to_owned(),
        _ => {
            let Some(after) = upper.strip_prefix("ENGINE") else {
                return unknown();
            };
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let Some(field) = after[digits..].strip_prefix('_').filter(|_| digits > 0) else {
                return unknown();
            };
            let number = &after[..digits];
            let table = ["OPTION_", "SOLOOPTION_"]
                .into_iter()
                .zip(["Option", "SoloOption"])
                .find(|(prefix, _)| field.starts_with(prefix));
            if let Some((prefix, table)) = table {
                // The name as written: `rest` and `upper` have the same byte offsets.
                let name = &rest[rest.len() - field.len() + prefix.len()..];
                if name.is_empty() {
                    return unknown();
                }
                format!("Engine{number}.{table}.{name}")
            } else {
                let field = match field {
                    "PATH" => "Path",
                    "NAME" => "Name",
                    "WEIGHT" => "Weight",
                    "SCALE" => "Scale",
                    "SCOREVIEW" => "ScoreView",
                    "PONDER" => "Ponder",
                    "SEARCHMOVES" => "SearchMoves",
                    "NODES" => "Nodes",
                    "MINCORES" => "MinCores",
                    "SHOWOPTIONS" => "ShowOptions",
                    "HIDEOPTIONS" => "HideOptions",
                    _ => return unknown(),
                };
                format!("Engine{number}.{field}")
            }
        }
    };
    Some(Ok(key))
}

/// A suggestion for a variable that names no key: the reader's hint for the dotted form.
fn env_hint(upper: &str) -> Option<String> {
    let dotted = upper.replace('_', ".");
    let key = super::reader::key_hint(&dotted)?;
    Some(format!(
        "{ENV_PREFIX}{}",
        key.to_ascii_uppercase().replace('.', "_")
    ))
}

/// The layers merged and typed: [`DEFAULTS_TEXT`], then `text` (the file `file`, already
/// decoded), then `env` (`(name, value)` pairs; the proxy passes `std::env::vars()`). The
/// file's warnings come back beside the settings.
pub(super) fn merge(
    text: &str,
    file: &Path,
    env: Vec<(String, String)>,
) -> Result<(RawSettings, Vec<ConfigWarning>), ConfigError> {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let layers = ::config::Config::builder()
        .add_source(::config::File::from_str(
            DEFAULTS_TEXT,
            LineFormat {
                file: PathBuf::from(DEFAULTS_NAME),
                defaults: true,
                warnings: Arc::default(),
            },
        ))
        .add_source(::config::File::from_str(
            text,
            LineFormat {
                file: file.to_owned(),
                defaults: false,
                warnings: warnings.clone(),
            },
        ))
        .add_source(EnvLayer { vars: env })
        .build()
        .map_err(unbox)?;
    let settings: RawSettings = layers.try_deserialize().map_err(unbox)?;
    let warnings = std::mem::take(&mut *warnings.lock().unwrap_or_else(|e| e.into_inner()));
    Ok((settings, warnings))
}

/// The name [`DEFAULTS_TEXT`] goes by in messages (a problem there is a bug in gougi).
pub const DEFAULTS_NAME: &str = "<gougi's defaults>";

/// Our own error back out of the crate's, as the layer raised it; anything else the crate says
/// (a tree `serde` could not type: a bug, since the layers build the tree) as its text.
fn unbox(e: ::config::ConfigError) -> ConfigError {
    let ours = |cause: Box<dyn Error + Send + Sync>| match cause.downcast::<ConfigError>() {
        Ok(ours) => *ours,
        Err(other) => ConfigError::Layers {
            message: other.to_string(),
        },
    };
    match e {
        ::config::ConfigError::FileParse { cause, .. } | ::config::ConfigError::Foreign(cause) => {
            ours(cause)
        }
        other => ConfigError::Layers {
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_a_valid_layer_and_agree_with_the_constant() {
        let (settings, warnings) = merge("", Path::new("x.config"), Vec::new()).unwrap();
        assert!(warnings.is_empty());
        let count = settings.mate.for_pv.count.unwrap();
        assert_eq!(count.place(), Place::Default);
        assert_eq!(count.value, super::super::DEFAULT_PV_MATE_COUNT.to_string());
    }

    #[test]
    fn a_file_value_beats_the_default_and_an_env_value_beats_both() {
        let text = "MateEngine.forPV.Count=5\n";
        let (s, _) = merge(text, Path::new("x.config"), Vec::new()).unwrap();
        let count = s.mate.for_pv.count.unwrap();
        assert_eq!((count.value.as_str(), count.place()), ("5", Place::Line(1)));
        let env = vec![("GOUGI_MATEENGINE_FORPV_COUNT".into(), "7".into())];
        let (s, _) = merge(text, Path::new("x.config"), env).unwrap();
        let count = s.mate.for_pv.count.unwrap();
        assert_eq!(
            (count.value.as_str(), count.place()),
            ("7", Place::Env("GOUGI_MATEENGINE_FORPV_COUNT".into()))
        );
    }
}
