//! The rule for tests that need a tool (`tests/common/tools.rs`): without the tool a test skips
//! with a message, and where the tool's `GOUGI_REQUIRE_*` variable is set it fails instead.
//! Checked here from both ends: the helper panics under its variable, `.ci/run` sets every
//! variable, and no test skips for want of a tool by a path of its own.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::tools::{have, Tool};

const ABSENT: &str = "a tool no machine has";
/// Set by the parent for the child process; anywhere else `every_tool_missing` does nothing (so
/// `--include-ignored` under CI's variables passes).
const PROBE: &str = "GOUGI_TOOLS_PROBE";

/// Run by [`a_missing_tool_fails_where_its_variable_is_set`] in a child process whose
/// environment it sets: every tool is reported missing in turn.
#[test]
#[ignore = "run by a_missing_tool_fails_where_its_variable_is_set in a child process"]
fn every_tool_missing() {
    if std::env::var_os(PROBE).is_none() {
        return;
    }
    for tool in Tool::ALL {
        assert!(
            !have(tool, &[ABSENT.to_owned()]),
            "{tool:?} ran without its tool"
        );
    }
}

/// [`every_tool_missing`] in a child process with no `GOUGI_REQUIRE_*` variable but `set`'s
/// (to `value`); its status and everything it printed.
fn probe(set: Option<(Tool, &str)>) -> (Output, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
    cmd.args(["every_tool_missing", "--exact", "--ignored", "--nocapture"])
        .env(PROBE, "1");
    for tool in Tool::ALL {
        cmd.env_remove(tool.variable());
    }
    if let Some((tool, value)) = set {
        cmd.env(tool.variable(), value);
    }
    let out = cmd.output().expect("run this test binary");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out, said)
}

#[test]
fn a_missing_tool_fails_where_its_variable_is_set() {
    // Nothing required (an empty value counts as unset): each tool is a skip, said once.
    for value in [None, Some("")] {
        let (out, said) = probe(value.map(|v| (Tool::Engines, v)));
        assert!(out.status.success(), "{said}");
        assert_eq!(
            said.matches(&format!("skipping: this machine lacks {ABSENT}"))
                .count(),
            Tool::ALL.len(),
            "{said}"
        );
    }
    // Each variable turns its tool's absence into a failure that names the variable.
    for tool in Tool::ALL {
        let (out, said) = probe(Some((tool, "1")));
        assert!(
            !out.status.success(),
            "{tool:?} passed under its variable: {said}"
        );
        let variable = tool.variable();
        assert!(
            said.contains(&format!(
                "{variable} is set but this machine lacks {ABSENT}"
            )),
            "{said}"
        );
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, with its text.
fn rust_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read");
            let name = path
                .strip_prefix(root())
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, text));
        }
    }
}

/// The `GOUGI_REQUIRE_*` names in `text` (not the pattern itself).
fn require_variables(text: &str) -> Vec<&str> {
    const PREFIX: &str = "GOUGI_REQUIRE_";
    text.match_indices(PREFIX)
        .map(|(at, _)| {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| name.len() > PREFIX.len())
        .collect()
}

#[test]
fn ci_requires_every_tool_and_no_test_skips_on_its_own() {
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    for tool in Tool::ALL {
        assert!(
            ci.lines()
                .any(|l| l.trim() == format!("export {}=1", tool.variable())),
            ".ci/run does not export {}=1",
            tool.variable()
        );
    }
    let known: Vec<&str> = Tool::ALL.iter().map(|t| t.variable()).collect();
    let mut files = Vec::new();
    rust_files(&root().join("tests"), &mut files);
    files.push((".ci/run".to_owned(), ci.clone()));
    // Spelled in pieces so this file does not find itself.
    let own_reads = ["env::var_os(\"GOUGI_", "REQUIRE"].concat();
    let own_skips = ["eprintln!(\"skip"].concat();
    for (name, text) in &files {
        for variable in require_variables(text) {
            assert!(
                known.contains(&variable),
                "{name}: {variable} is not a tool's variable (tests/common/tools.rs)"
            );
        }
        if name.ends_with("common/tools.rs") {
            continue;
        }
        assert!(
            !text.contains(&own_reads),
            "{name} reads a GOUGI_REQUIRE_* variable itself: use tests/common/tools.rs"
        );
        assert!(
            !text.to_lowercase().contains(&own_skips),
            "{name} says it skips by itself: use tests/common/tools.rs, which fails under CI"
        );
    }
}
