//! From the keys the reader collected to a validated [`Config`]: per-member values, the type and
//! its member counts, the mate engine, the PV mate count, the log settings.
//!
//! # Checks (original §2 checks, plus §12.11)
//! At least one engine; a known type; `majority` needs ≥ 2 members (the original required exactly
//! 3; gougi votes among any number), `exchange` exactly 2, `by-phase` exactly 3, and `mate`,
//! `mate-sfen`, `mate-pv` exactly one normal engine plus `MateEngine.Path` (the original checked
//! this only for `mate`). Every error is a [`ConfigError`] whose `Display` names the file, the line
//! and the key: `SimpleGougi.config:3: Engine2.Path: no such file: /x/y`.

use super::reader::{Key, Parser};
use super::{
    Config, ConfigError, EngineCommand, EngineEntry, MemberOption, NodesRule, OptionFilter,
    PolicyKind, Problem, DEFAULT_PV_MATE_COUNT, MAX_PV_MATE_COUNT,
};
use crate::member::command::resolve_command;

impl Parser {
    /// The checks across keys, then the typed [`Config`].
    pub(super) fn build(mut self) -> Result<Config, ConfigError> {
        // Engines: Path is the anchor; Name/Weight without Path is an error.
        let mut engines = Vec::new();
        let keys: Vec<Key> = self.values.keys().copied().collect();
        for key in &keys {
            let (Key::EngineName(n)
            | Key::EngineWeight(n)
            | Key::EngineScale(n)
            | Key::EngineScoreView(n)
            | Key::EnginePonder(n)
            | Key::EngineNodes(n)
            | Key::EngineShowOptions(n)
            | Key::EngineHideOptions(n)
            | Key::EngineOption(n, _)) = *key
            else {
                continue;
            };
            if !self.values.contains_key(&Key::EnginePath(n)) {
                let (line, _) = self.values[key];
                return Err(self.err(line, &self.key_names[key], Problem::NoPath { number: n }));
            }
        }
        for key in &keys {
            let Key::EnginePath(n) = *key else { continue };
            let (line, text) = self.values[key].clone();
            let key_name = format!("Engine{n}.Path");
            let command = self.command(line, &key_name, &text)?;
            let name = self.get(Key::EngineName(n)).map(|(_, v)| v.to_owned());
            let weight = match self.get(Key::EngineWeight(n)) {
                None => 1.0,
                Some((wl, v)) => match v.parse::<f64>() {
                    Ok(w) if w.is_finite() && w > 0.0 => w,
                    _ => {
                        return Err(self.err(
                            wl,
                            &format!("Engine{n}.Weight"),
                            Problem::BadWeight {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let scale = match self.get(Key::EngineScale(n)) {
                None => None,
                Some((sl, v)) => match v.parse::<f64>() {
                    Ok(x) if x.is_finite() && x > 0.0 => Some(x),
                    _ => {
                        return Err(self.err(
                            sl,
                            &format!("Engine{n}.Scale"),
                            Problem::BadScale {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let black_view_scores = match self.get(Key::EngineScoreView(n)) {
                None => false,
                Some((_, v)) if v.eq_ignore_ascii_case("side") => false,
                Some((_, v)) if v.eq_ignore_ascii_case("black") => true,
                Some((vl, v)) => {
                    return Err(self.err(
                        vl,
                        &format!("Engine{n}.ScoreView"),
                        Problem::BadScoreView {
                            value: v.to_owned(),
                        },
                    ))
                }
            };
            let ponder = match self.get(Key::EnginePonder(n)) {
                None => true,
                Some((_, v)) if v.eq_ignore_ascii_case("true") => true,
                Some((_, v)) if v.eq_ignore_ascii_case("false") => false,
                Some((pl, v)) => {
                    return Err(self.err(
                        pl,
                        &format!("Engine{n}.Ponder"),
                        Problem::BadPonder {
                            value: v.to_owned(),
                        },
                    ))
                }
            };
            let nodes = match self.get(Key::EngineNodes(n)) {
                None => NodesRule::Gui,
                Some((_, v)) if v.eq_ignore_ascii_case("off") => NodesRule::Off,
                Some((nl, v)) => match v.parse::<u64>() {
                    Ok(count) if count >= 1 => NodesRule::Fixed(count),
                    _ => {
                        return Err(self.err(
                            nl,
                            &format!("Engine{n}.Nodes"),
                            Problem::BadNodes {
                                value: v.to_owned(),
                            },
                        ))
                    }
                },
            };
            let mut patterns = [None, None];
            for (k, (key, field)) in [
                (Key::EngineShowOptions(n), "ShowOptions"),
                (Key::EngineHideOptions(n), "HideOptions"),
            ]
            .into_iter()
            .enumerate()
            {
                if let Some((pl, v)) = self.get(key) {
                    if let Err(e) = regex::Regex::new(v) {
                        return Err(self.err(
                            pl,
                            &format!("Engine{n}.{field}"),
                            Problem::BadPattern {
                                message: e
                                    .to_string()
                                    .lines()
                                    .last()
                                    .unwrap_or("")
                                    .trim()
                                    .to_owned(),
                            },
                        ));
                    }
                    patterns[k] = Some(v.to_owned());
                }
            }
            let [show, hide] = patterns;
            let mut options: Vec<MemberOption> = self
                .values
                .iter()
                .filter_map(|(k, (line, value))| match *k {
                    Key::EngineOption(m, idx) if m == n => Some(MemberOption {
                        name: self.option_names[idx].clone(),
                        value: value.clone(),
                        file: self.file.clone(),
                        line: *line,
                    }),
                    _ => None,
                })
                .collect();
            options.sort_by_key(|o| o.line);
            engines.push(EngineEntry {
                options,
                number: n,
                option_filter: OptionFilter { show, hide },
                command,
                name,
                weight,
                scale,
                black_view_scores,
                ponder,
                nodes,
                line,
            });
        }

        let policy = match self.get(Key::GougiType) {
            None => return Err(self.err(0, "Gougi.Type", Problem::NoType)),
            Some((line, v)) => v.parse::<PolicyKind>().map_err(|_| {
                self.err(
                    line,
                    "Gougi.Type",
                    Problem::UnknownType {
                        value: v.to_owned(),
                    },
                )
            })?,
        };
        let type_line = self.get(Key::GougiType).map_or(0, |(l, _)| l);

        if engines.is_empty() {
            return Err(self.err(0, "Engine1.Path", Problem::NoEngines));
        }
        let (min, max) = policy.engine_count();
        if engines.len() < min || max.is_some_and(|m| engines.len() > m) {
            let expected = match max {
                Some(m) if m == min => format!("exactly {m}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            return Err(self.err(
                type_line,
                "Gougi.Type",
                Problem::EngineCount {
                    policy,
                    expected,
                    found: engines.len(),
                },
            ));
        }

        let mate_engine = match self.get(Key::MatePath) {
            None => None,
            Some((line, text)) => {
                let text = text.to_owned();
                Some(self.command(line, "MateEngine.Path", &text)?)
            }
        };
        if policy.needs_mate_engine() && mate_engine.is_none() {
            return Err(self.err(
                type_line,
                "MateEngine.Path",
                Problem::NoMateEngine { policy },
            ));
        }
        // gougi's own: `MateEngine.Guard=true` runs the mate engine beside any type, and its
        // verified mate overrides the type's decision (the mate types always do this).
        let mate_guard = match self.get(Key::MateGuard) {
            None => false,
            Some((_, v)) if v.eq_ignore_ascii_case("true") => true,
            Some((_, v)) if v.eq_ignore_ascii_case("false") => false,
            Some((line, v)) => {
                return Err(self.err(
                    line,
                    "MateEngine.Guard",
                    Problem::BadPonder {
                        value: v.to_owned(),
                    },
                ))
            }
        };
        let mate_guard = mate_guard && !policy.needs_mate_engine();
        if !policy.needs_mate_engine() && !mate_guard {
            if let Some((line, _)) = self.get(Key::MatePath) {
                self.warn(line, "MateEngine.Path", format!("ignored by type {policy}"));
            }
        }
        if mate_guard && mate_engine.is_none() {
            if let Some((line, _)) = self.get(Key::MateGuard) {
                self.warn(
                    line,
                    "MateEngine.Guard",
                    "no MateEngine.Path: nothing to run".into(),
                );
            }
        }

        let pv_mate_count = match self.get(Key::MatePvCount) {
            None => DEFAULT_PV_MATE_COUNT,
            Some((line, v)) => {
                let n = v.parse::<u32>().map_err(|_| {
                    self.err(
                        line,
                        "MateEngine.forPV.Count",
                        Problem::BadNumber {
                            value: v.to_owned(),
                        },
                    )
                })?;
                if n > MAX_PV_MATE_COUNT {
                    return Err(self.err(
                        line,
                        "MateEngine.forPV.Count",
                        Problem::TooManyPvMates { value: n },
                    ));
                }
                if policy != PolicyKind::MatePv {
                    self.warn(
                        line,
                        "MateEngine.forPV.Count",
                        format!("ignored by type {policy} (used by mate-pv only)"),
                    );
                }
                n
            }
        };

        let name = self.get(Key::GougiName).map(|(_, v)| v.to_owned());
        let log_file = self.get(Key::LogFile).map(|(_, v)| self.dir.join(v));
        let log_file_line = self.get(Key::LogFile).map_or(0, |(l, _)| l);
        let log_level = match self.get(Key::LogLevel) {
            None => None,
            Some((line, v)) => Some(v.parse::<tracing::Level>().map_err(|_| {
                self.err(
                    line,
                    "Log.Level",
                    Problem::BadLevel {
                        value: v.to_owned(),
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
            name,
            log_file,
            log_file_line,
            log_level,
            warnings: self.warnings,
        })
    }

    /// Resolves one `*.Path` value into a command.
    fn command(&self, line: usize, key: &str, text: &str) -> Result<EngineCommand, ConfigError> {
        resolve_command(text, &self.dir).map_err(|p| self.err(line, key, p))
    }
}
