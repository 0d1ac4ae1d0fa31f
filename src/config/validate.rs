//! From the merged layers ([`RawSettings`]) to a validated [`Config`]: per-member values (with
//! the per-member defaults), the type and its member counts, the mate engine, the PV mate count,
//! the log settings. Every error names where the value came from ([`Place`]): the file's line,
//! or the environment variable.
//!
//! # Checks (original §2 checks, plus §12.11)
//! At least one engine; a known type; `majority` needs ≥ 2 members (the original required exactly
//! 3; gougi votes among any number), `exchange` exactly 2, `by-phase` exactly 3, and `mate`,
//! `mate-sfen`, `mate-pv` exactly one normal engine plus `MateEngine.Path` (the original checked
//! this only for `mate`). Every error is a [`ConfigError`] whose `Display` names the file, the line
//! and the key: `SimpleGougi.config:3: Engine2.Path: no such file: /x/y`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::layers::{EngineKeys, Place, RawSettings, Setting};
use super::{
    Config, ConfigError, ConfigWarning, EngineCommand, EngineEntry, MemberOption, NodesRule,
    OptionFilter, PolicyKind, Problem, MAX_PV_MATE_COUNT,
};
use crate::member::command::resolve_command;

/// The settings being checked, with what messages and relative paths need.
pub(super) struct Validator {
    file: PathBuf,
    /// The config's folder: relative paths in the file resolve against it.
    dir: PathBuf,
    warnings: Vec<ConfigWarning>,
}

impl Validator {
    /// `file` names the config in messages; its folder anchors the file's relative paths.
    pub(super) fn new(file: &Path, warnings: Vec<ConfigWarning>) -> Validator {
        let dir = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_owned)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir().map(|c| c.join(&dir)).unwrap_or(dir)
        };
        Validator {
            file: file.to_owned(),
            dir,
            warnings,
        }
    }

    /// An error about `key`, at the place of the value that caused it (line 0: the key is
    /// missing, or came from gougi's defaults).
    fn err(&self, place: &Place, key: &str, problem: Problem) -> ConfigError {
        match place {
            Place::Env(var) => ConfigError::Env {
                var: var.clone(),
                key: key.to_owned(),
                problem,
            },
            _ => ConfigError::Invalid {
                file: self.file.clone(),
                line: place.line(),
                key: key.to_owned(),
                problem,
            },
        }
    }

    /// `Engine<N>.MinCores` or `MateEngine.MinCores`: a CPU count ≥ 1 (0 when absent: always).
    fn min_cores(&self, setting: Option<&Setting>, key: &str) -> Result<u32, ConfigError> {
        let Some(s) = setting else { return Ok(0) };
        match s.value.parse::<u32>() {
            Ok(count) if count >= 1 => Ok(count),
            _ => Err(self.at(
                s,
                key,
                Problem::BadMinCores {
                    value: s.value.clone(),
                },
            )),
        }
    }

    fn at(&self, setting: &Setting, key: &str, problem: Problem) -> ConfigError {
        self.err(&setting.place(), key, problem)
    }

    fn warn(&mut self, setting: &Setting, key: &str, message: String) {
        let (file, line) = self.origin(&setting.place());
        self.warnings.push(ConfigWarning {
            file,
            line,
            key: key.to_owned(),
            message,
        });
    }

    /// The file and line a value is reported at; a variable stands in for the file.
    fn origin(&self, place: &Place) -> (PathBuf, usize) {
        match place {
            Place::Env(var) => (PathBuf::from(format!("environment variable {var}")), 0),
            _ => (self.file.clone(), place.line()),
        }
    }

    /// The checks across keys, then the typed [`Config`].
    pub(super) fn build(mut self, raw: RawSettings) -> Result<Config, ConfigError> {
        let members: BTreeMap<u32, EngineKeys> = raw
            .engines
            .into_iter()
            .map(|(n, keys)| (n.parse().expect("the layers number members"), keys))
            .collect();
        // Path is the anchor: another key of a member without one is an error, reported in
        // the keys' order (all `Name`s first, then all `Weight`s, …, then the options).
        for field in 0..EngineKeys::default().fields().len() {
            for (&n, keys) in &members {
                if keys.path.is_none() {
                    if let Some(s) = keys.fields()[field] {
                        return Err(self.at(s, &s.key, Problem::NoPath { number: n }));
                    }
                }
            }
        }
        for (&n, keys) in &members {
            if keys.path.is_none() {
                let options = keys.options.values().chain(keys.solo_options.values());
                if let Some(s) = options.min_by_key(|s| s.place().line()) {
                    return Err(self.at(s, &s.key, Problem::NoPath { number: n }));
                }
            }
        }
        let mut engines = Vec::new();
        for (&n, keys) in &members {
            let Some(path) = &keys.path else { continue };
            engines.push(self.engine(n, path, keys)?);
        }

        let policy = match &raw.gougi.kind {
            None => {
                return Err(self.err(&Place::Default, "Gougi.Type", Problem::NoType));
            }
            Some(s) => s.value.parse::<PolicyKind>().map_err(|_| {
                self.at(
                    s,
                    "Gougi.Type",
                    Problem::UnknownType {
                        value: s.value.clone(),
                    },
                )
            })?,
        };
        let type_place = raw
            .gougi
            .kind
            .as_ref()
            .map_or(Place::Default, Setting::place);

        if engines.is_empty() {
            return Err(self.err(&Place::Default, "Engine1.Path", Problem::NoEngines));
        }
        let (min, max) = policy.engine_count();
        if engines.len() < min || max.is_some_and(|m| engines.len() > m) {
            let expected = match max {
                Some(m) if m == min => format!("exactly {m}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            return Err(self.err(
                &type_place,
                "Gougi.Type",
                Problem::EngineCount {
                    policy,
                    expected,
                    found: engines.len(),
                },
            ));
        }

        let mate_engine = match &raw.mate.path {
            None => None,
            Some(s) => Some(self.command(s, "MateEngine.Path")?),
        };
        if policy.needs_mate_engine() && mate_engine.is_none() {
            return Err(self.err(
                &type_place,
                "MateEngine.Path",
                Problem::NoMateEngine { policy },
            ));
        }
        // gougi's own: `MateEngine.Guard=true` runs the mate engine beside any type, and its
        // verified mate overrides the type's decision (the mate types always do this).
        let mate_guard = match &raw.mate.guard {
            None => false,
            Some(s) if s.value.eq_ignore_ascii_case("true") => true,
            Some(s) if s.value.eq_ignore_ascii_case("false") => false,
            Some(s) => {
                return Err(self.at(
                    s,
                    "MateEngine.Guard",
                    Problem::BadPonder {
                        value: s.value.clone(),
                    },
                ))
            }
        };
        let mate_guard = mate_guard && !policy.needs_mate_engine();
        if !policy.needs_mate_engine() && !mate_guard {
            if let Some(s) = &raw.mate.path {
                self.warn(s, "MateEngine.Path", format!("ignored by type {policy}"));
            }
        }
        // gougi's own: under a clock the guard sits out on a machine with fewer CPUs, where it
        // would take a core from the members (a mate type's mate engine always plays: the
        // type is built on it).
        let mate_min_cores = self.min_cores(raw.mate.min_cores.as_ref(), "MateEngine.MinCores")?;
        if let Some(s) = raw.mate.min_cores.as_ref().filter(|_| !mate_guard) {
            self.warn(
                s,
                "MateEngine.MinCores",
                "applies to MateEngine.Guard=true only: ignored".into(),
            );
        }
        if mate_guard && mate_engine.is_none() {
            if let Some(s) = &raw.mate.guard {
                self.warn(
                    s,
                    "MateEngine.Guard",
                    "no MateEngine.Path: nothing to run".into(),
                );
            }
        }

        // Always set: gougi's defaults hold it.
        let count = raw
            .mate
            .for_pv
            .count
            .as_ref()
            .expect("gougi's defaults set MateEngine.forPV.Count");
        let key = "MateEngine.forPV.Count";
        let pv_mate_count = count.value.parse::<u32>().map_err(|_| {
            self.at(
                count,
                key,
                Problem::BadNumber {
                    value: count.value.clone(),
                },
            )
        })?;
        if pv_mate_count > MAX_PV_MATE_COUNT {
            return Err(self.at(
                count,
                key,
                Problem::TooManyPvMates {
                    value: pv_mate_count,
                },
            ));
        }
        if policy != PolicyKind::MatePv && count.place() != Place::Default {
            self.warn(
                count,
                key,
                format!("ignored by type {policy} (used by mate-pv only)"),
            );
        }

        let name = raw.gougi.name.map(|s| s.value);
        let log_file = raw.log.file.as_ref().map(|s| self.dir.join(&s.value));
        let log_file_line = raw.log.file.as_ref().map_or(0, |s| s.place().line());
        let log_level = match &raw.log.level {
            None => None,
            Some(s) => Some(s.value.parse::<tracing::Level>().map_err(|_| {
                self.at(
                    s,
                    "Log.Level",
                    Problem::BadLevel {
                        value: s.value.clone(),
                    },
                )
            })?),
        };

        Ok(Config {
            path: self.file,
            policy,
            engines,
            mate_engine,
            pv_mate_count,
            mate_guard,
            mate_min_cores: if mate_guard { mate_min_cores } else { 0 },
            name,
            log_file,
            log_file_line,
            log_level,
            warnings: self.warnings,
        })
    }

    /// Member `n`'s entry, its defaults filled in.
    fn engine(
        &self,
        n: u32,
        path: &Setting,
        keys: &EngineKeys,
    ) -> Result<EngineEntry, ConfigError> {
        let command = self.command(path, &format!("Engine{n}.Path"))?;
        let name = keys.name.as_ref().map(|s| s.value.clone());
        let weight = match &keys.weight {
            None => 1.0,
            Some(s) => match s.value.parse::<f64>() {
                Ok(w) if w.is_finite() && w > 0.0 => w,
                _ => {
                    return Err(self.at(
                        s,
                        &format!("Engine{n}.Weight"),
                        Problem::BadWeight {
                            value: s.value.clone(),
                        },
                    ))
                }
            },
        };
        let scale = match &keys.scale {
            None => None,
            Some(s) => match s.value.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Some(x),
                _ => {
                    return Err(self.at(
                        s,
                        &format!("Engine{n}.Scale"),
                        Problem::BadScale {
                            value: s.value.clone(),
                        },
                    ))
                }
            },
        };
        let black_view_scores = match &keys.score_view {
            None => false,
            Some(s) if s.value.eq_ignore_ascii_case("side") => false,
            Some(s) if s.value.eq_ignore_ascii_case("black") => true,
            Some(s) => {
                return Err(self.at(
                    s,
                    &format!("Engine{n}.ScoreView"),
                    Problem::BadScoreView {
                        value: s.value.clone(),
                    },
                ))
            }
        };
        let ponder = match &keys.ponder {
            None => true,
            Some(s) if s.value.eq_ignore_ascii_case("true") => true,
            Some(s) if s.value.eq_ignore_ascii_case("false") => false,
            Some(s) => {
                return Err(self.at(
                    s,
                    &format!("Engine{n}.Ponder"),
                    Problem::BadPonder {
                        value: s.value.clone(),
                    },
                ))
            }
        };
        let searchmoves = match &keys.searchmoves {
            None => true,
            Some(s) if s.value.eq_ignore_ascii_case("true") => true,
            Some(s) if s.value.eq_ignore_ascii_case("false") => false,
            Some(s) => {
                return Err(self.at(
                    s,
                    &format!("Engine{n}.SearchMoves"),
                    Problem::BadPonder {
                        value: s.value.clone(),
                    },
                ))
            }
        };
        let nodes = match &keys.nodes {
            None => NodesRule::Gui,
            Some(s) if s.value.eq_ignore_ascii_case("off") => NodesRule::Off,
            Some(s) => match s.value.parse::<u64>() {
                Ok(count) if count >= 1 => NodesRule::Fixed(count),
                _ => {
                    return Err(self.at(
                        s,
                        &format!("Engine{n}.Nodes"),
                        Problem::BadNodes {
                            value: s.value.clone(),
                        },
                    ))
                }
            },
        };
        let min_cores = self.min_cores(keys.min_cores.as_ref(), &format!("Engine{n}.MinCores"))?;
        let mut patterns = [None, None];
        for (k, (setting, field)) in [
            (&keys.show_options, "ShowOptions"),
            (&keys.hide_options, "HideOptions"),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(s) = setting {
                if let Err(e) = regex::Regex::new(&s.value) {
                    return Err(self.at(
                        s,
                        &format!("Engine{n}.{field}"),
                        Problem::BadPattern {
                            message: e.to_string().lines().last().unwrap_or("").trim().to_owned(),
                        },
                    ));
                }
                patterns[k] = Some(s.value.clone());
            }
        }
        let [show, hide] = patterns;
        let member_options = |table: &BTreeMap<String, Setting>, solo: bool| {
            let mut options: Vec<MemberOption> = table
                .iter()
                .map(|(name, s)| {
                    let (file, line) = self.origin(&s.place());
                    MemberOption {
                        name: name.clone(),
                        value: s.value.clone(),
                        solo,
                        file,
                        line,
                    }
                })
                .collect();
            // The file's order; the environment's (line 0) first, in name order.
            options.sort_by_key(|o| o.line);
            options
        };
        Ok(EngineEntry {
            options: member_options(&keys.options, false),
            solo_options: member_options(&keys.solo_options, true),
            number: n,
            option_filter: OptionFilter { show, hide },
            command,
            name,
            weight,
            scale,
            black_view_scores,
            ponder,
            searchmoves,
            nodes,
            min_cores,
            line: path.place().line(),
        })
    }

    /// Resolves one `*.Path` value into a command: against the config's folder, or for a
    /// variable against the working directory (like `GOUGI_LOG_FILE`, a path typed in a shell).
    fn command(&self, setting: &Setting, key: &str) -> Result<EngineCommand, ConfigError> {
        let place = setting.place();
        let dir = match place {
            Place::Env(_) => std::env::current_dir().unwrap_or_else(|_| self.dir.clone()),
            _ => self.dir.clone(),
        };
        resolve_command(&setting.value, &dir)
            .map_err(|e| self.err(&place, key, Problem::Command(e)))
    }
}
