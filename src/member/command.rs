//! Member command lines: `*.Path` values (and `gougi match`'s `cmd=`) → what to spawn
//! ([`EngineCommand`]), or a [`CommandError`] saying why not. The error is the reason alone: the
//! config wraps it into its `Problem` with the file, line and key of the value, `gougi match`
//! into its own error naming the `cmd=` word, so this file imports neither.
//!
//! # Syntax
//! `builtin:search` / `builtin:mate` run this same executable with the subcommand `search` /
//! `mate` (extra words are passed as arguments); their working directory is the proxy's. Anything
//! else is a command line: words split on whitespace, `"…"` or `'…'` group a word with spaces (no
//! backslash escapes, so Windows paths stay intact). For compatibility with the original, which
//! launched the whole value with no arguments, an unquoted value that names an existing file as a
//! whole (`C:\Program Files\x\x.exe`-style) is that program with no arguments. A program path with
//! a folder part resolves against the **config file's folder** and must exist (and be executable,
//! on Unix); its working directory is its own folder. A bare program name (`ssh`) is looked up in
//! the config's folder first, then on `PATH`; found on `PATH`, it runs in the proxy's working
//! directory.

use std::path::{Path, PathBuf};

/// Why a command line cannot be run. `Display` is the sentence after the caller's prefix
/// (`<file>:<line>: Engine1.Path: no such file: /x/y`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("empty value")]
    Empty,
    #[error("unbalanced quote in {value:?}")]
    UnbalancedQuote { value: String },
    #[error("unknown builtin {value:?} (builtin:search, builtin:mate)")]
    UnknownBuiltin { value: String },
    #[error("cannot find this executable: {message}")]
    NoCurrentExe { message: String },
    #[error("no such file: {}", .path.display())]
    NoSuchFile { path: PathBuf },
    #[error("not executable: {}", .path.display())]
    NotExecutable { path: PathBuf },
    #[error("{program:?} is neither in the config's folder nor on PATH")]
    NotOnPath { program: String },
}

/// Which built-in engine a `builtin:` command names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `builtin:search` → `gougi search`.
    Search,
    /// `builtin:mate` → `gougi mate`.
    Mate,
}

impl Builtin {
    /// The subcommand of the gougi binary.
    pub fn subcommand(self) -> &'static str {
        match self {
            Builtin::Search => "search",
            Builtin::Mate => "mate",
        }
    }
}

/// A member's resolved command line: what to spawn, with which arguments, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    /// The program (absolute unless it was found on `PATH`, then as written).
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The child's working directory; `None` means the proxy's own.
    pub working_dir: Option<PathBuf>,
    /// `Some` for `builtin:*` (then `program` is this executable).
    pub builtin: Option<Builtin>,
    /// The value as written in the config, for messages.
    pub text: String,
}

/// Resolves an engine command line (`builtin:search`, `ssh -T host /path/engine`, a program
/// relative to `dir` or on `PATH`) the way `*.Path` config values are; `gougi match` uses it
/// for its `cmd=` values too.
pub fn resolve_command(text: &str, dir: &Path) -> Result<EngineCommand, CommandError> {
    if let Some(rest) = text.strip_prefix("builtin:") {
        let words = split_words(rest).ok_or_else(|| CommandError::UnbalancedQuote {
            value: text.to_owned(),
        })?;
        let (which, args) = words
            .split_first()
            .ok_or_else(|| CommandError::UnknownBuiltin {
                value: text.to_owned(),
            })?;
        let builtin = match which.as_str() {
            "search" => Builtin::Search,
            "mate" => Builtin::Mate,
            _ => {
                return Err(CommandError::UnknownBuiltin {
                    value: text.to_owned(),
                })
            }
        };
        let exe = std::env::current_exe().map_err(|e| CommandError::NoCurrentExe {
            message: e.to_string(),
        })?;
        let mut all_args = vec![builtin.subcommand().to_owned()];
        all_args.extend(args.iter().cloned());
        return Ok(EngineCommand {
            program: exe,
            args: all_args,
            working_dir: None,
            builtin: Some(builtin),
            text: text.to_owned(),
        });
    }

    // Compatibility: the original ran the whole value as one program path.
    let unquoted = !text.contains(['"', '\'']);
    if unquoted && text.contains(char::is_whitespace) {
        let whole = dir.join(text);
        if whole.is_file() {
            check_executable(&whole)?;
            return Ok(EngineCommand {
                working_dir: whole.parent().map(Path::to_owned),
                program: whole,
                args: Vec::new(),
                builtin: None,
                text: text.to_owned(),
            });
        }
    }

    let words = split_words(text).ok_or_else(|| CommandError::UnbalancedQuote {
        value: text.to_owned(),
    })?;
    let Some((program, args)) = words.split_first() else {
        return Err(CommandError::Empty);
    };
    let has_folder = program.contains('/') || program.contains('\\') || {
        let p = Path::new(program);
        p.is_absolute()
    };
    let (program_path, working_dir) = if has_folder {
        // `components()` drops `.` segments, so messages show `dir/x`, not `dir/./x`.
        let p: PathBuf = dir.join(program).components().collect();
        if !p.is_file() {
            return Err(CommandError::NoSuchFile { path: p });
        }
        check_executable(&p)?;
        let wd = p.parent().map(Path::to_owned);
        (p, wd)
    } else {
        let local = dir.join(program);
        if local.is_file() {
            check_executable(&local)?;
            let wd = local.parent().map(Path::to_owned);
            (local, wd)
        } else if find_on_path(program).is_some() {
            (PathBuf::from(program), None)
        } else {
            return Err(CommandError::NotOnPath {
                program: program.clone(),
            });
        }
    };
    Ok(EngineCommand {
        program: program_path,
        args: args.to_vec(),
        working_dir,
        builtin: None,
        text: text.to_owned(),
    })
}

/// On Unix, a file with no execute bit cannot be spawned: say so now rather than at `usi`.
fn check_executable(path: &Path) -> Result<(), CommandError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map(|m| m.permissions().mode());
        if let Ok(mode) = mode {
            if mode & 0o111 == 0 {
                return Err(CommandError::NotExecutable {
                    path: path.to_owned(),
                });
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The first `PATH` entry holding `program` (with `PATHEXT` suffixes on Windows).
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let exts: Vec<String> = if cfg!(windows) {
        std::env::var("PATHEXT")
            .unwrap_or_else(|_| ".EXE;.BAT;.CMD".into())
            .split(';')
            .map(str::to_owned)
            .chain(std::iter::once(String::new()))
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(&path).find_map(|dir| {
        exts.iter()
            .map(|ext| dir.join(format!("{program}{ext}")))
            .find(|p| p.is_file())
    })
}

/// Splits a command line into words: whitespace separates, `"…"` and `'…'` group (quotes may
/// start mid-word, `a"b c"d` is one word `ab cd`), no escapes. `None` on an unclosed quote.
pub fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_words_quotes() {
        assert_eq!(
            split_words(r#"ssh -T host "/opt/my engine/x" 'a b'"#).unwrap(),
            vec!["ssh", "-T", "host", "/opt/my engine/x", "a b"]
        );
        assert_eq!(split_words(r#"a"b c"d"#).unwrap(), vec!["ab cd"]);
        assert_eq!(split_words(r#""""#).unwrap(), vec![""]);
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
        assert!(split_words(r#"x "y"#).is_none());
        assert_eq!(
            split_words(r"C:\Program\x.exe").unwrap(),
            vec![r"C:\Program\x.exe"]
        );
    }
}
