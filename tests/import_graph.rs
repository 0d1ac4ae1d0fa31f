//! The import graph of `src/` against the map: `lib.rs` declares which top-level module may use
//! which ("Dependency arrows") and in which layers they sit (`layers: a > b, c > …`, top
//! first); every arrow must run down the layers; `usi/`, `shogi/` and `gougi/` (each folder of
//! it) must have no import circle between their files; and no file under `src/gougi/` may pass
//! [`MAX_GOUGI_LINES`] lines (issue 51, "the house"). All is read from the sources as text, so
//! the map cannot drift from the code unnoticed: an arrow the code takes and the map lacks, or
//! an arrow the map keeps that the code no longer takes, fails here.
//!
//! Test code does not count (a test may reach anywhere): files named `tests.rs`/`*_tests.rs`
//! and everything from a `#[cfg(test)]` line on (the project keeps test modules last).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's non-test code, with line comments removed (doc links are not imports).
fn code_of(path: &Path) -> String {
    let name = path.file_stem().unwrap().to_string_lossy();
    if name == "tests" || name.ends_with("_tests") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let mut code = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// Names used after `prefix::`, including each name of a `prefix::{a, b::c}` group.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let single = Regex::new(&format!(r"(?-u:\b){prefix}::([a-z_][a-z0-9_]*)")).unwrap();
    let group = Regex::new(&format!(r"(?-u:\b){prefix}::\{{([^}}]*)\}}")).unwrap();
    let mut out: BTreeSet<String> = single
        .captures_iter(code)
        .map(|c| c[1].to_owned())
        .collect();
    for c in group.captures_iter(code) {
        for item in c[1].split(',') {
            let head = item.trim().split("::").next().unwrap_or("").trim();
            if !head.is_empty() && head.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_') {
                out.insert(head.to_owned());
            }
        }
    }
    out
}

/// The top-level module a file belongs to (`src/gougi/policy/leader.rs` → `gougi`), or `None`
/// for the crate roots.
fn top_module(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    let first = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    (first != "lib" && first != "main").then_some(first)
}

/// The arrows `lib.rs` declares, from its "Dependency arrows" block: `a ──> b, c::d (note)`.
fn declared_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut arrows = BTreeMap::new();
    for line in lib.lines() {
        let line = line.trim_start_matches("//!").trim();
        let Some((from, to)) = line.split_once("──>") else {
            continue;
        };
        let to = to.split('(').next().unwrap();
        let targets: BTreeSet<String> = to
            .split(',')
            .map(|t| t.trim().split("::").next().unwrap().to_owned())
            .filter(|t| !t.is_empty())
            .collect();
        arrows.insert(from.trim().to_owned(), targets);
    }
    assert!(!arrows.is_empty(), "lib.rs has no `a ──> b` arrows");
    arrows
}

/// The layers `lib.rs` declares, top first, from its `layers: a > b, c > …` line (which may go
/// on over lines that start with `>`): module → its depth (1 = top).
fn declared_layers() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let lines: Vec<&str> = lib
        .lines()
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    // Within the arrows' block: the module list above has a line of config layers too.
    let block = lines
        .iter()
        .position(|l| l.starts_with("Dependency arrows"))
        .expect("lib.rs has no \"Dependency arrows\" block");
    let start = block
        + lines[block..]
            .iter()
            .position(|l| l.starts_with("layers:"))
            .expect("lib.rs has no `layers: a > b, c > …` line");
    let mut text = lines[start]["layers:".len()..].to_owned();
    for l in &lines[start + 1..] {
        if !l.starts_with('>') {
            break;
        }
        text.push(' ');
        text.push_str(l);
    }
    let mut layers = BTreeMap::new();
    for (depth, layer) in (1..).zip(text.split('>')) {
        for m in layer.split(',').map(str::trim).filter(|m| !m.is_empty()) {
            let again = layers.insert(m.to_owned(), depth);
            assert!(again.is_none(), "lib.rs puts {m} in two layers");
        }
    }
    layers
}

fn top_modules() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.iter().filter_map(|f| top_module(f)).collect()
}

/// The arrows the code takes between top-level modules: (from, to) → the files that take it.
fn real_arrows() -> BTreeMap<(String, String), BTreeSet<String>> {
    let tops = top_modules();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut real: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = top_module(file) else {
            continue;
        };
        for to in names_after(&code_of(file), "crate") {
            if to != from && tops.contains(&to) {
                let rel = file.strip_prefix(src()).unwrap().display().to_string();
                real.entry((from.clone(), to)).or_default().insert(rel);
            }
        }
    }
    real
}

#[test]
fn no_arrow_runs_up() {
    let layers = declared_layers();
    let mut problems = Vec::new();
    for m in top_modules() {
        if !layers.contains_key(&m) {
            problems.push(format!("{m} is in no layer of lib.rs's `layers:` line"));
        }
    }
    for ((from, to), files) in real_arrows() {
        let (Some(&f), Some(&t)) = (layers.get(&from), layers.get(&to)) else {
            continue; // reported above
        };
        if f >= t {
            let way = if f == t { "across" } else { "up" };
            problems.push(format!(
                "{from} (layer {f}) ──> {to} (layer {t}) runs {way}, in src/{}",
                files.into_iter().collect::<Vec<_>>().join(", src/")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn lib_rs_arrows_equal_the_real_ones() {
    let tops = top_modules();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut real: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = top_module(file) else {
            continue;
        };
        let used = names_after(&code_of(file), "crate");
        let entry = real.entry(from.clone()).or_default();
        for to in used {
            if to != from && tops.contains(&to) {
                entry.insert(to);
            }
        }
    }
    real.retain(|_, to| !to.is_empty());
    let declared = declared_arrows();
    let mut problems = Vec::new();
    for (from, to) in &real {
        let map = declared.get(from).cloned().unwrap_or_default();
        for t in to.difference(&map) {
            problems.push(format!("{from} uses {t}, lib.rs does not say so"));
        }
    }
    for (from, to) in &declared {
        let code = real.get(from).cloned().unwrap_or_default();
        for t in to.difference(&code) {
            problems.push(format!(
                "lib.rs says {from} ──> {t}, the code does not use it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// File-level import edges inside one folder (`usi`, `gougi/policy`): `super::x`,
/// `crate::<dir>::x` and groups of them; `x.rs` and the folder `x/` are one node.
fn edges_in(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = src().join(dir);
    let path = dir.replace('/', "::");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let node = |path: &Path| -> String {
        let rel = path.strip_prefix(&root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.strip_suffix(".rs").unwrap_or(&first).to_owned()
    };
    let nodes: BTreeSet<String> = files.iter().map(|f| node(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = node(file);
        if from == "mod" {
            continue; // the folder's root only declares and re-exports
        }
        let code = code_of(file);
        let mut used = names_after(&code, &format!("crate::{path}"));
        // `super::` from a file directly in the folder names a sibling; from deeper files
        // (`movegen/x.rs`) it names the node itself.
        if file.parent() == Some(root.as_path()) {
            used.extend(names_after(&code, "super"));
        }
        for to in used {
            if to != from && nodes.contains(&to) && to != "mod" {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_owned(), 1);
        stack.push(n.to_owned());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn usi_and_shogi_have_no_import_circle() {
    for dir in ["usi", "shogi"] {
        let edges = edges_in(dir);
        assert!(
            !edges.is_empty(),
            "{dir}: no edges found, the reader is broken"
        );
        if let Some(cycle) = find_cycle(&edges) {
            panic!("{dir}/ has an import circle: {}", cycle.join(" → "));
        }
    }
}

/// `dir` and every folder below it, as paths under `src/` (`gougi`, `gougi/policy`, …).
fn folders(dir: &str) -> Vec<String> {
    let mut out = vec![dir.to_owned()];
    for entry in std::fs::read_dir(src().join(dir)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            out.extend(folders(&format!("{dir}/{name}")));
        }
    }
    out.sort();
    out
}

#[test]
fn gougi_has_no_import_circle() {
    // Each folder on its own: at the top, `policy/` and `options.rs` are two nodes; inside
    // `policy/`, `vote.rs` and `reason.rs` are.
    let mut circles = Vec::new();
    for dir in folders("gougi") {
        if let Some(cycle) = find_cycle(&edges_in(&dir)) {
            circles.push(format!(
                "src/{dir}/ has an import circle: {}",
                cycle.join(" → ")
            ));
        }
    }
    assert!(
        !edges_in("gougi").is_empty(),
        "gougi: no edges found, the reader is broken"
    );
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

/// The most lines a file under `src/gougi/` may have (issue 51): past it, split the file by
/// concern, or move its tests into `<name>/tests.rs`.
const MAX_GOUGI_LINES: usize = 600;

#[test]
fn no_gougi_file_is_over_the_line_limit() {
    let mut files = Vec::new();
    rust_files(&src().join("gougi"), &mut files);
    files.sort();
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            let rel = f.strip_prefix(src()).unwrap().display();
            (lines > MAX_GOUGI_LINES).then(|| format!("src/{rel}: {lines} lines"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_GOUGI_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_cycle_finder_finds_a_planted_circle() {
    // So the test above cannot pass by never finding anything.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    assert_eq!(find_cycle(&edges), None);
    edges.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        find_cycle(&edges),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}
