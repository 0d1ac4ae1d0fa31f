//! The documentation against the code: README's length, ARCHITECTURE's map (its layout tree and
//! dependency arrows), the user guide's reference tables (config keys, `G_` options, types), the
//! shipped config's comments, and every relative link in the repository's Markdown. The tables are written by hand for the reader, so this test is what
//! keeps them from drifting: each one is compared with the table the program itself uses.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::Duration;

use gougi::config::{key_forms, PolicyKind, KINDS};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn readme_fits_in_150_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 150,
        "README.md has {lines} lines; move detail into docs/guide/"
    );
}

/// BENCHMARKS.md shows today's figures, the story lives in docs/journal/ (issue 51 item 3).
#[test]
fn benchmarks_fits_in_300_lines_and_starts_with_todays_table() {
    let text = read("BENCHMARKS.md");
    let lines = text.lines().count();
    assert!(
        lines <= 300,
        "BENCHMARKS.md has {lines} lines; move the long story to docs/journal/"
    );
    assert!(
        text.lines().take(30).any(|l| l == "## Today's figures"),
        "BENCHMARKS.md: the table of today's figures comes first"
    );
}

/// ARCHITECTURE.md: the map (layout, arrows, the journey of one `go`) in its first 200 lines,
/// the decisions after it, 600 lines in all (issue 51 item 5).
#[test]
fn architecture_fits_in_600_lines_with_the_map_first() {
    let text = read("ARCHITECTURE.md");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() <= 600,
        "ARCHITECTURE.md has {} lines",
        lines.len()
    );
    let at = |heading: &str| {
        lines
            .iter()
            .position(|l| *l == heading)
            .unwrap_or_else(|| panic!("ARCHITECTURE.md lacks {heading:?}"))
    };
    let (layout, arrows, journey, decisions) = (
        at("## Layout"),
        at("## Dependency arrows"),
        at("## The journey of one `go`"),
        at("## Decisions"),
    );
    assert!(layout < arrows && arrows < journey && journey < decisions);
    assert!(
        decisions <= 200,
        "the map runs to line {decisions}; keep it within 200 lines"
    );
}

/// The lines of the first fenced block after the heading `heading` (a whole heading line).
fn fenced_after(text: &str, heading: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| *l != heading).skip(1);
    assert!(
        lines.by_ref().any(|l| l.starts_with("```")),
        "no fenced block after {heading:?}"
    );
    lines
        .take_while(|l| !l.starts_with("```"))
        .map(str::to_owned)
        .collect()
}

/// Every path under `dir`, relative to it, folders with a trailing `/`.
fn paths_under(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            out.push(format!("{prefix}{name}/"));
            paths_under(&e.path(), &format!("{prefix}{name}/"), out);
        } else {
            out.push(format!("{prefix}{name}"));
        }
    }
}

/// ARCHITECTURE.md's layout tree against `src/` (issue 67 item 3): an entry (`x/` for a
/// folder, `x.rs` for a file, two spaces in) for each of `src/`'s folders and files and
/// nothing else, and every file or folder an entry's text names (`coordinator/`,
/// `scripted.rs`, `policy/mod.rs`) exists inside it; the names around the tree (`README.md`,
/// `tests/` …) exist too. A new room, or a file moved out of the one the map puts it in, fails
/// here until the map says so.
#[test]
fn architecture_layout_is_the_tree_of_src() {
    let layout = fenced_after(&read("ARCHITECTURE.md"), "## Layout");
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut outside = Vec::new();
    let mut in_src = false;
    for line in &layout {
        if line == "src/" {
            in_src = true;
        } else if let Some(rest) = line.strip_prefix("  ").filter(|_| in_src) {
            if rest.starts_with(' ') {
                entries.last_mut().expect("a continuation first").1 += rest;
            } else {
                let (name, text) = rest.split_once(' ').unwrap_or((rest, ""));
                entries.push((name.to_owned(), text.to_owned()));
            }
        } else if !line.starts_with(' ') {
            // The top line lists the files at the root; below `src/`, a line names one entry.
            let names = line.split_whitespace().map(str::to_owned);
            if entries.is_empty() {
                outside.extend(names);
            } else {
                outside.extend(names.take(1));
            }
            in_src = false;
        }
    }
    let listed: BTreeSet<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    let mut real = Vec::new();
    paths_under(&root().join("src"), "", &mut real);
    let real: BTreeSet<String> = real
        .into_iter()
        .filter(|p| !p[..p.len() - 1].contains('/'))
        .collect();
    assert_eq!(
        listed, real,
        "ARCHITECTURE.md's layout lists other entries than src/ holds"
    );
    for name in &outside {
        assert!(
            root().join(name).exists(),
            "ARCHITECTURE.md's layout names {name}, which is not in the repository"
        );
    }
    for (entry, text) in &entries {
        let Some(dir) = entry.strip_suffix('/') else {
            continue;
        };
        let mut inside = Vec::new();
        paths_under(&root().join("src").join(dir), "", &mut inside);
        for word in text.split_whitespace() {
            let word = word.trim_matches(|c: char| "`(),;:".contains(c));
            let path_like = (word.ends_with(".rs") || word.ends_with('/'))
                && !word.starts_with('/')
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_./".contains(c));
            if !path_like {
                continue;
            }
            assert!(
                inside
                    .iter()
                    .any(|p| p == word || p.ends_with(&format!("/{word}"))),
                "ARCHITECTURE.md's layout names {word} in src/{entry}, which has none"
            );
        }
    }
}

/// ARCHITECTURE.md's dependency arrows and layers are `lib.rs`'s, line for line; those are
/// checked against the imports the code takes by `tests/import_graph.rs`, so the map's arrows
/// are the code's.
#[test]
fn architecture_arrows_are_lib_rs_arrows() {
    let map = fenced_after(&read("ARCHITECTURE.md"), "## Dependency arrows");
    let lib = read("src/lib.rs");
    let lib: Vec<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).to_owned())
        .collect();
    let start = lib
        .iter()
        .position(|l| l.starts_with("layers:"))
        .expect("lib.rs has no layers line");
    let lib: Vec<String> = lib[start..]
        .iter()
        .take_while(|l| !l.starts_with("```"))
        .cloned()
        .collect();
    assert_eq!(
        map, lib,
        "ARCHITECTURE.md's dependency arrows differ from lib.rs's"
    );
}

// ----- Markdown tables ---------------------------------------------------------------------

/// The rows of the first table after the heading `heading` (a whole heading line), as cells with
/// their 1-based line numbers; the header and separator rows are left out.
fn table_after(text: &str, heading: &str) -> Vec<(usize, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == heading)
        .unwrap_or_else(|| panic!("no heading {heading:?}"));
    let first = (start..lines.len())
        .find(|&i| lines[i].starts_with('|'))
        .unwrap_or_else(|| panic!("no table after {heading:?}"));
    (first + 2..lines.len())
        .take_while(|&i| lines[i].starts_with('|'))
        .map(|i| {
            let inner = lines[i]
                .trim()
                .trim_start_matches('|')
                .trim_end_matches('|');
            let cells = inner.split(" | ").map(|c| c.trim().to_owned()).collect();
            (i + 1, cells)
        })
        .collect()
}

/// The text of every `code span` in a cell, in order.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

fn unquote(cell: &str) -> String {
    cell.trim().trim_matches('`').to_owned()
}

// ----- config keys -------------------------------------------------------------------------

#[test]
fn config_keys_table_lists_exactly_the_parsers_keys() {
    let guide = read("docs/guide/config.md");
    let documented: BTreeSet<String> = table_after(&guide, "## Keys")
        .into_iter()
        .map(|(_, cells)| unquote(&cells[0]))
        .collect();
    let code: BTreeSet<String> = key_forms().into_iter().collect();
    let missing: Vec<_> = code.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&code).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "docs/guide/config.md \"## Keys\" against src/config/reader.rs: \
         not documented {missing:?}; documented but not keys {unknown:?}"
    );
}

#[test]
fn readme_config_example_uses_real_keys_and_a_real_type() {
    let readme = read("README.md");
    let block = readme
        .split("## A config that combines two engines")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("README.md: the example config block");
    let forms: BTreeSet<String> = key_forms().into_iter().collect();
    let settings: Vec<(&str, &str)> = block
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            l.split_once('=')
                .unwrap_or_else(|| panic!("README.md: {l:?}"))
        })
        .collect();
    for (key, value) in &settings {
        let form = key_form(key).unwrap_or_else(|| panic!("README.md: {key} is no key"));
        assert!(forms.contains(&form), "README.md: {key} is no key");
        if *key == "Gougi.Type" {
            assert!(
                value.parse::<PolicyKind>().is_ok(),
                "README.md: type {value}"
            );
        }
    }
    assert!(settings.len() >= 4, "{settings:?}");
}

/// The example configs the README and the guide recommend (`docs/configs/`, copies of the
/// measured runs' configs from the records) are configs gougi reads: a renamed key or type
/// would make the advice a broken file.
#[test]
fn example_configs_are_configs_gougi_reads() {
    let dir = root().join("docs/configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("docs/configs") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("config") {
            continue;
        }
        if let Err(e) = gougi::config::Config::load(&path) {
            panic!("{}: {e}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 5, "only {seen} configs in docs/configs");
    // Every `docs/configs/…` the docs name exists.
    for file in ["README.md", "docs/guide/types.md", "docs/ja/types.md"] {
        for (k, _) in read(file).match_indices("docs/configs/") {
            let rest = &read(file)[k..];
            let name: String = rest
                .chars()
                .take_while(|c| !matches!(c, '`' | ')' | ' ' | ','))
                .collect();
            assert!(root().join(&name).is_file(), "{file}: {name} is missing");
        }
    }
}

// ----- consultation types ------------------------------------------------------------------

/// How the guide and the shipped config write a type's member count.
fn members_text(kind: PolicyKind) -> String {
    let count = match kind.engine_count() {
        (n, None) => format!("{n} or more"),
        (n, Some(m)) if n == m => format!("exactly {n}"),
        (n, Some(m)) => format!("{n} to {m}"),
    };
    if kind.needs_mate_engine() {
        format!("{count} + MateEngine")
    } else {
        count
    }
}

#[test]
fn types_table_matches_the_catalogue() {
    let guide = read("docs/guide/types.md");
    let rows = table_after(&guide, "## Catalogue");
    let ids: Vec<String> = rows.iter().map(|(_, c)| unquote(&c[0])).collect();
    let code: Vec<&str> = KINDS.iter().map(|k| k.id).collect();
    assert_eq!(
        ids, code,
        "docs/guide/types.md: the catalogue's ids, in order"
    );
    for ((line, cells), info) in rows.iter().zip(KINDS.iter()) {
        assert_eq!(
            cells[1], info.japanese,
            "docs/guide/types.md:{line}: {}'s Japanese name",
            info.id
        );
        assert_eq!(
            cells[2],
            members_text(info.kind),
            "docs/guide/types.md:{line}: {}'s members",
            info.id
        );
    }
}

// ----- G_ options --------------------------------------------------------------------------

/// The `option name G_…` lines of the real binary's `usi` answer, per type: each type played
/// with the fewest `builtin:` members it takes (and the built-in mate solver where it needs a
/// mate engine), without the guard, so that what a type declares is its own.
fn declared_g_options() -> &'static BTreeMap<&'static str, BTreeSet<String>> {
    static DECLARED: OnceLock<BTreeMap<&'static str, BTreeSet<String>>> = OnceLock::new();
    DECLARED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gougi-docs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let declared = KINDS
            .iter()
            .map(|info| {
                let mut config = format!("Gougi.Type={}\n", info.id);
                for n in 1..=info.members.0 {
                    config += &format!("Engine{n}.Path=builtin:search\n");
                }
                if info.mate_engine {
                    config += "MateEngine.Path=builtin:mate\n";
                }
                let path = dir.join(format!("{}.config", info.id));
                std::fs::write(&path, config).unwrap();
                let lines = usi_answer(&path)
                    .into_iter()
                    .filter(|l| l.starts_with("option name G_"))
                    .collect();
                (info.id, lines)
            })
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        declared
    })
}

/// `gougi --config PATH`, asked `usi`: the lines up to `usiok`.
fn usi_answer(config: &Path) -> Vec<String> {
    let args = ["--config".as_ref(), config.as_os_str()];
    usi_answer_of(&args, &config.display().to_string())
}

/// `gougi ARGS`, asked `usi`: the lines up to `usiok`; `what` names the run in a failure.
fn usi_answer_of(args: &[&std::ffi::OsStr], what: &str) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gougi"));
    cmd.args(args);
    // The test's own environment must not change the config (GOUGI_… overrides every key).
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GOUGI_") {
            cmd.env_remove(name);
        }
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gougi");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    writeln!(stdin, "usi").unwrap();
    let mut lines = Vec::new();
    loop {
        // usiok waits at most 4 s for a late member; the rest is start-up on a busy machine.
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) if line == "usiok" => break,
            Ok(line) => lines.push(line),
            Err(e) => {
                let _ = child.kill();
                panic!("{what}: no usiok ({e}); got {lines:#?}");
            }
        }
    }
    let _ = writeln!(stdin, "quit");
    drop(stdin);
    let _ = child.wait();
    lines
}

/// One row of docs/guide/options.md's table: the `option …` line it describes and the types it
/// says declare it (`None`: every type).
struct OptionRow {
    line: usize,
    usi: String,
    types: Option<BTreeSet<String>>,
}

/// The `option …` line a guide's option row describes: its cells are name, type, default and
/// range (`min–max` for a spin, the words of a combo as code spans, `—` otherwise).
fn usi_line(file: &str, line: usize, c: &[String]) -> String {
    let (name, kind, default, range) = (unquote(&c[0]), &c[1], unquote(&c[2]), &c[3]);
    let mut usi = format!("option name {name} type {kind} default {default}");
    match kind.as_str() {
        "spin" => {
            let (min, max) = range
                .split_once('–')
                .unwrap_or_else(|| panic!("{file}:{line}: range {range:?} is not min–max"));
            usi += &format!(" min {min} max {max}");
        }
        "combo" => code_spans(range)
            .iter()
            .for_each(|v| usi += &format!(" var {v}")),
        _ => {}
    }
    usi
}

fn option_rows() -> Vec<OptionRow> {
    let file = "docs/guide/options.md";
    table_after(&read(file), "# Options in the GUI")
        .into_iter()
        .map(|(line, c)| {
            let usi = usi_line(file, line, &c);
            let types = (c[4] != "all").then(|| code_spans(&c[4]).into_iter().collect());
            OptionRow { line, usi, types }
        })
        .collect()
}

#[test]
fn search_options_table_matches_gougi_search() {
    let file = "docs/guide/search.md";
    let documented: BTreeSet<String> = table_after(&read(file), "## Options")
        .into_iter()
        .map(|(line, c)| usi_line(file, line, &c))
        .collect();
    // The book's options are books.md's, and the same lines as the proxy's `G_Book…`.
    let declared: BTreeSet<String> = usi_answer_of(&["search".as_ref()], "gougi search")
        .into_iter()
        .filter(|l| {
            l.starts_with("option name ") && !gougi::book::OPTION_LINES.contains(&l.as_str())
        })
        .collect();
    let missing: Vec<_> = declared.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&declared).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "{file} \"## Options\" against `gougi search`'s usi answer: \
         not documented {missing:#?}; documented but not declared {unknown:#?}"
    );
}

#[test]
fn g_options_table_matches_what_each_type_declares() {
    let rows = option_rows();
    let mut problems = Vec::new();
    for (id, declared) in declared_g_options() {
        let documented: BTreeSet<String> = rows
            .iter()
            .filter(|r| r.types.as_ref().is_none_or(|t| t.contains(*id)))
            .map(|r| r.usi.clone())
            .collect();
        for missing in declared.difference(&documented) {
            problems.push(format!("type {id} declares, the guide lacks: {missing}"));
        }
        for extra in documented.difference(declared) {
            let line = rows.iter().find(|r| &r.usi == extra).unwrap().line;
            problems.push(format!(
                "docs/guide/options.md:{line}: type {id} does not declare {extra}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ----- the shipped config's comments -------------------------------------------------------

#[test]
fn shipped_config_comments_name_real_keys_options_and_types() {
    let text = read("SimpleGougi.config");
    let options: BTreeSet<&str> = declared_g_options()
        .values()
        .flatten()
        .filter_map(|l| l.strip_prefix("option name ")?.split(' ').next())
        .collect();
    let forms: BTreeSet<String> = key_forms().into_iter().collect();
    let mut problems = Vec::new();
    // The type table lies between the `Gougi.Type` heading and the setting.
    let mut in_type_table = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.starts_with("# Gougi.Type") {
            in_type_table = true;
        } else if line.starts_with("Gougi.Type=") {
            in_type_table = false;
        }
        for word in words(line) {
            if word.starts_with("G_") && !options.contains(word.as_str()) {
                problems.push(format!("SimpleGougi.config:{n}: no option {word}"));
            }
            if let Some(form) = key_form(&word) {
                if !forms.contains(&form) {
                    problems.push(format!("SimpleGougi.config:{n}: no key {word}"));
                }
            }
            if word.starts_with("docs/") && !root().join(&word).exists() {
                problems.push(format!("SimpleGougi.config:{n}: no file {word}"));
            }
        }
        // The type table: "#   <id>  <Japanese name>  <members>".
        let cells: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
        if let Some(info) = cells
            .first()
            .filter(|_| in_type_table)
            .and_then(|c| KINDS.iter().find(|k| k.id == *c))
        {
            if cells.get(1) != Some(&info.japanese) {
                problems.push(format!(
                    "SimpleGougi.config:{n}: {} is {} in the code",
                    info.id, info.japanese
                ));
            }
            let members = cells[2.min(cells.len())..].join(" ");
            if !members.starts_with(&members_text(info.kind)) {
                problems.push(format!(
                    "SimpleGougi.config:{n}: {} takes {} members",
                    info.id,
                    members_text(info.kind)
                ));
            }
        }
    }
    for info in &KINDS {
        if !text.contains(&format!("#   {}", info.id)) && !text.contains(&format!("{} ", info.id)) {
            problems.push(format!(
                "SimpleGougi.config: type {} is not listed",
                info.id
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The words of a line, cut at anything that cannot be part of a key, option or path.
fn words(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || "._<>/-".contains(c)))
        .map(|w| w.trim_end_matches(['.', '-']).to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// `Engine2.Option.EvalNoise` → `Engine<N>.Option.<name>`; `None` for words that are no key.
fn key_form(word: &str) -> Option<String> {
    let head = word.split('.').next()?;
    if !word.contains('.') || !["Gougi", "MateEngine", "Log"].contains(&head) {
        let n = head.strip_prefix("Engine")?;
        if !(n == "<N>" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))) {
            return None;
        }
    }
    let mut parts: Vec<String> = word.split('.').map(str::to_owned).collect();
    if parts.len() < 2 {
        return None;
    }
    if parts[0].starts_with("Engine") && parts[0] != "Engine" {
        parts[0] = "Engine<N>".into();
        // `Engine<N>.Option` alone names the table of `Engine<N>.Option.<name>` keys.
        if matches!(parts[1].as_str(), "Option" | "SoloOption") {
            parts.truncate(2);
            parts.push("<name>".into());
        }
    }
    Some(parts.join("."))
}

// ----- links -------------------------------------------------------------------------------

/// Every Markdown file git tracks (or, outside a git checkout, every one under the root).
fn markdown_files() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z", "--", "*.md"])
        .current_dir(root())
        .output();
    match out {
        Ok(o) if o.status.success() => o
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| root().join(p).is_file())
            .collect(),
        _ => {
            let mut files = Vec::new();
            walk(root(), &mut files);
            files
        }
    }
}

fn walk(dir: &Path, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            walk(&path, files);
        } else if name.ends_with(".md") {
            let rel = path.strip_prefix(root()).unwrap();
            files.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The lines of a Markdown file outside fenced code blocks, with their 1-based numbers: links
/// inside code are examples, not links.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut fence: Option<(char, usize)> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let run = |c: char| t.chars().take_while(|&x| x == c).count();
        let opens = ['`', '~'].into_iter().find(|&c| run(c) >= 3);
        match (fence, opens) {
            (None, Some(c)) => fence = Some((c, run(c))),
            (Some((c, n)), Some(o)) if o == c && run(c) >= n && t.trim_end().len() == run(c) => {
                fence = None
            }
            (Some(_), _) => {}
            (None, None) => out.push((i + 1, line.to_owned())),
        }
    }
    out
}

/// The line without its code spans (a span opened by N backticks ends at the next N).
fn strip_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        let close = "`".repeat(ticks);
        match after.find(&close) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                // An unclosed run is literal text.
                out.push_str(&rest[start..start + ticks]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The link targets of a line: inline links and images `[text](target "title")`, and reference
/// definitions `[label]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let t = line.trim_start();
    if t.starts_with('[') {
        if let Some(close) = t.find("]:") {
            if !t[..close].contains('(') {
                if let Some(target) = t[close + 2..].split_whitespace().next() {
                    targets.push(target.to_owned());
                }
            }
        }
    }
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        // Balanced parentheses, as CommonMark allows in a bare destination.
        let mut depth = 0usize;
        let mut end = after.len();
        for (j, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = j;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inner = after[..end].trim();
        let target = if let Some(angled) = inner.strip_prefix('<') {
            angled.split('>').next().unwrap_or("")
        } else {
            inner.split_whitespace().next().unwrap_or("")
        };
        if !target.is_empty() {
            targets.push(target.to_owned());
        }
        rest = &after[end.min(after.len())..];
    }
    targets
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base/../x/./y` → `x/y`, lexically; `None` when it climbs out of the repository.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            _ => return None,
        }
    }
    Some(out)
}

/// GitHub's anchor for a heading: the rendered text lowercased, every character that is not a
/// letter, digit, mark, `_`, `-` or space dropped (Japanese letters stay), spaces made `-`.
fn slug(heading: &str) -> String {
    // Render the inline markup GitHub would: a link shows its text, code its content.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(i) = rest.find("](") {
        let Some(open) = rest[..i].rfind('[') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..i]);
        rest = rest[i..].split_once(')').map_or("", |(_, r)| r);
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a Markdown file offers: its headings' slugs (a repeated slug gets `-1`, `-2`, …
/// as on GitHub) and explicit `id="…"` / `name="…"` attributes.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        for attr in ["id=\"", "name=\""] {
            let mut rest = line.as_str();
            while let Some(i) = rest.find(attr) {
                let after = &rest[i + attr.len()..];
                if let Some(end) = after.find('"') {
                    out.insert(after[..end].to_owned());
                }
                rest = after;
            }
        }
        let t = line.trim_start();
        let level = t.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&level) || !(t[level..].starts_with(' ') || t.len() == level) {
            continue;
        }
        let title = t[level..].trim().trim_end_matches('#').trim_end();
        let base = slug(title);
        let n = seen.entry(base.clone()).or_insert(0);
        let s = if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        *n += 1;
        out.insert(s);
    }
    out
}

/// The paths the records archive stands in for (`docs/records/index.tsv`: one line per file,
/// `<archive file name>\t<original repo-relative path>`), or `None` when there is no index.
fn archived_paths() -> Option<BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/records/index.tsv")).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(_, path)| path.trim().to_owned())
            .collect(),
    )
}

#[test]
fn relative_links_in_markdown_resolve() {
    let archived = archived_paths();
    let mut anchor_cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut broken = Vec::new();
    let files = markdown_files();
    assert!(files.iter().any(|f| f == "README.md"), "{files:?}");
    for file in &files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for (line, prose) in prose_lines(&text) {
            for target in link_targets(&strip_code_spans(&prose)) {
                let lower = target.to_ascii_lowercase();
                if lower.starts_with("http://")
                    || lower.starts_with("https://")
                    || lower.starts_with("mailto:")
                    || target.contains("://")
                {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (percent_decode(p), Some(percent_decode(a))),
                    None => (percent_decode(&target), None),
                };
                let joined = if path.is_empty() {
                    PathBuf::from(file)
                } else if let Some(abs) = path.strip_prefix('/') {
                    PathBuf::from(abs)
                } else {
                    dir.join(&path)
                };
                let Some(resolved) = normalize(&joined) else {
                    broken.push(format!("{file}:{line}: {target} leaves the repository"));
                    continue;
                };
                let rel = resolved.to_string_lossy().replace('\\', "/");
                let full = root().join(&resolved);
                if !full.exists() {
                    let stands_in = rel.starts_with("docs/matches/")
                        && archived.as_ref().is_some_and(|paths| {
                            let prefix = format!("{}/", rel.trim_end_matches('/'));
                            paths.contains(&rel) || paths.iter().any(|p| p.starts_with(&prefix))
                        });
                    if !stands_in {
                        broken.push(format!("{file}:{line}: {target}: no file {rel}"));
                    }
                    continue;
                }
                let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                    continue;
                };
                if !rel.ends_with(".md") {
                    // Line anchors of source files (#L10) are GitHub's, not headings.
                    continue;
                }
                let known = anchor_cache.entry(resolved.clone()).or_insert_with(|| {
                    anchors(&std::fs::read_to_string(&full).unwrap_or_default())
                });
                if !known.contains(&anchor) {
                    broken.push(format!(
                        "{file}:{line}: {target}: no heading #{anchor} in {rel}"
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Which GUI needs what"), "which-gui-needs-what");
    assert_eq!(
        slug("Watching the members: `G_Monitor`"),
        "watching-the-members-g_monitor"
    );
    assert_eq!(slug("A .bat file"), "a-bat-file");
    assert_eq!(slug("GougiShogi から移る方へ"), "gougishogi-から移る方へ");
    assert_eq!(
        slug("`leader` over [three](x.md) copies"),
        "leader-over-three-copies"
    );
    assert_eq!(
        slug("Which consultation to use (what was measured, 2026-11-25/28)"),
        "which-consultation-to-use-what-was-measured-2026-11-2528"
    );
    let a = anchors("# A\n## A\n```\n# not a heading\n```\n## A\n");
    assert_eq!(
        a,
        ["a", "a-1", "a-2"].map(String::from).into_iter().collect()
    );
}
