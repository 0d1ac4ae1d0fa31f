//! The match records under `docs/records/` (issue 51, item 4): one xz archive per study and
//! `index.tsv`, the line `<archive>\t<path>` for every file they hold. Links in the journal
//! still point at `docs/matches/…` and are checked against the index, so the index must list
//! exactly what the archives hold; and the records must still give their figures when
//! unpacked, which the tally test checks with the real binary on one study.
//!
//! The archives are read with the system's `tar` and `xz` (no crate for them: nothing else
//! in gougi needs one). Without them the tests that unpack skip with a message, unless
//! `GOUGI_REQUIRE_TAR` is set, where a missing tool is a failure (`tests/common/tools.rs`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn records() -> PathBuf {
    repo().join("docs/records")
}

/// Whether `tar -J` can run; `false` (a skip) only where a missing tool is allowed.
fn have_tar_xz() -> bool {
    use common::tools::{have, missing_unless, runs, Tool};
    let missing = [
        missing_unless(runs("tar"), "tar"),
        missing_unless(runs("xz"), "xz"),
    ]
    .concat();
    have(Tool::Tar, &missing)
}

/// The archive names in `docs/records/`, sorted.
fn archives() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(records())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tar.xz"))
        .collect();
    names.sort();
    names
}

/// `index.tsv` as (archive, path) pairs, in file order.
fn index() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(records().join("index.tsv")).unwrap();
    text.lines()
        .map(|line| {
            let (archive, path) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("index.tsv: no tab in {line:?}"));
            assert!(
                !path.contains('\t'),
                "index.tsv: more than two fields in {line:?}"
            );
            (archive.to_owned(), path.to_owned())
        })
        .collect()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn index_is_sorted_and_names_each_file_once() {
    let index = index();
    assert!(!index.is_empty());
    // Sorted as whole lines in byte order, as `LC_ALL=C sort` writes it (tools/records.sh).
    let lines: Vec<String> = index.iter().map(|(a, p)| format!("{a}\t{p}")).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "index.tsv is not sorted");
    let mut seen = BTreeSet::new();
    let archives: BTreeSet<String> = archives().into_iter().collect();
    for (archive, path) in &index {
        assert!(seen.insert(path), "index.tsv names {path} twice");
        // Unpacking at the repository root must put the file back where the links point.
        assert!(
            path.starts_with("docs/matches/"),
            "{path} is not under docs/matches/"
        );
        assert!(
            !path.split('/').any(|part| part == ".." || part.is_empty()),
            "{path} is not a plain relative path"
        );
        assert!(
            archives.contains(archive),
            "index.tsv names a missing {archive}"
        );
    }
}

#[test]
fn index_lists_exactly_what_the_archives_hold() {
    if !have_tar_xz() {
        return;
    }
    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (archive, path) in index() {
        want.entry(archive).or_default().insert(path);
    }
    for archive in archives() {
        let listing = run(Command::new("tar")
            .arg("-tJf")
            .arg(records().join(&archive)));
        let got: BTreeSet<String> = listing.lines().map(str::to_owned).collect();
        let listed = want.remove(&archive).unwrap_or_default();
        let only_index: Vec<_> = listed.difference(&got).collect();
        let only_archive: Vec<_> = got.difference(&listed).collect();
        assert!(
            only_index.is_empty() && only_archive.is_empty(),
            "{archive}: in index.tsv only {only_index:?}; in the archive only {only_archive:?} \
             (tools/records.sh pack the study again)"
        );
    }
    assert!(
        want.is_empty(),
        "index.tsv names missing archives: {:?}",
        want.keys()
    );
}

#[test]
fn readme_lists_every_archive_with_its_file_count() {
    // One table row per archive, `| `name.tar.xz` | what | files |`: the count must be the
    // index's, so a re-packed study cannot leave its README line behind.
    let readme = std::fs::read_to_string(records().join("README.md")).unwrap();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (archive, _) in index() {
        *counts.entry(archive).or_default() += 1;
    }
    let mut rows = BTreeMap::new();
    for line in readme.lines() {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((name, _)) = rest.split_once('`') else {
            continue;
        };
        if !name.ends_with(".tar.xz") {
            continue;
        }
        let files = line
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap()
            .trim();
        let files: usize = files
            .parse()
            .unwrap_or_else(|_| panic!("README.md: no file count at the end of {line:?}"));
        rows.insert(name.to_owned(), files);
    }
    assert_eq!(rows, counts, "README.md's table against index.tsv");
}

#[test]
fn docs_holds_fewer_than_150_files() {
    // Issue 51: a folder a user can browse. docs/matches/ is skipped: it holds unpacked
    // records, which .gitignore keeps out of the repository.
    fn count(dir: &Path) -> usize {
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path != repo().join("docs/matches") {
                    n += count(&path);
                }
            } else {
                n += 1;
            }
        }
        n
    }
    let n = count(&repo().join("docs"));
    assert!(
        n < 150,
        "docs/ holds {n} files; the issue asks for fewer than 150"
    );
}

#[test]
fn unpacked_records_give_the_tally_written_beside_them() {
    // gps-byo1000-cshogi: 432 games against gpsshogi refereed by cshogi, whose pooled figure
    // (BENCHMARKS.md) is `gougi tally`'s output in its tally.txt. Its records are archives of
    // their own inside the study's archive, as the run left them: unpack both levels as the
    // README says, then tally every CSA file as tally.txt's command does.
    if !have_tar_xz() {
        return;
    }
    let root = common::scratch_dir("records");
    run(Command::new("tar")
        .arg("-xJf")
        .arg(records().join("gps-byo1000-cshogi.tar.xz"))
        .arg("-C")
        .arg(&root));
    let study = root.join("docs/matches/gps-byo1000-cshogi");
    let mut nested = Vec::new();
    for entry in std::fs::read_dir(&study).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("records-") && name.ends_with(".tar.xz") {
            nested.push(name);
        }
    }
    assert_eq!(nested.len(), 5, "records-*.tar.xz in the study: {nested:?}");
    for name in &nested {
        run(Command::new("tar")
            .arg("-xJf")
            .arg(name)
            .current_dir(&study));
    }
    // `csa-*/*.csa`, as the shell would expand it (in byte order; the figure is the same in
    // any order without --sprt).
    let mut csa = Vec::new();
    for dir in std::fs::read_dir(&study).unwrap() {
        let dir = dir.unwrap().path();
        if !(dir.is_dir()
            && dir
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("csa-"))
        {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "csa") {
                csa.push(file.strip_prefix(&study).unwrap().to_path_buf());
            }
        }
    }
    csa.sort();
    assert_eq!(csa.len(), 432);
    let out = run(Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args(["tally", "--player", "gougi-search"])
        .args(&csa)
        .current_dir(&study));

    // The two lines tally.txt shows after that command: the result and the count line.
    let tally = std::fs::read_to_string(study.join("tally.txt")).unwrap();
    let command = "$ gougi tally --player gougi-search csa-*/*.csa";
    let recorded: Vec<&str> = tally
        .lines()
        .skip_while(|l| *l != command)
        .skip(1)
        .take_while(|l| !l.starts_with('$'))
        .collect();
    assert_eq!(
        recorded.len(),
        2,
        "tally.txt after {command:?}: {recorded:?}"
    );
    assert!(recorded[0].contains("(432 games)"), "{recorded:?}");
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got, recorded, "gougi tally on the unpacked records");
}
