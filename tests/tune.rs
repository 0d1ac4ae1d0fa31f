//! `gougi tune` end to end with the mock engine's `skill:` directive (an engine that resigns
//! more the further its option `Skill` is from 37), resume after a kill, refusals; and the
//! built-in search's hidden `T_…` options.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{scratch_dir, skill_engine, Gougi};

fn tune_command(engine: &str, params: &Path, out: &Path, iterations: usize) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gougi"));
    c.args(["tune", "--engine", engine, "--params"])
        .arg(params)
        .args([
            "--iterations",
            &iterations.to_string(),
            "--games-per-iteration",
            "4",
            "--concurrency",
            "2",
            "--nodes",
            "1000",
            "--max-plies",
            "6",
            "--seed",
            "5",
            "--out",
        ])
        .arg(out)
        .env_remove("GOUGI_CONFIG");
    c
}

fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null()).output().expect("run gougi tune")
}

/// The trace's rows as (iteration, Skill) after the header.
fn trace_rows(path: &Path) -> Vec<(usize, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("iteration,Skill,result"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect()
}

#[test]
fn tune_moves_a_mock_option_toward_its_best_value() {
    let dir = scratch_dir("tune-skill");
    let engine = skill_engine(&dir);
    let params = dir.join("skill.tune");
    std::fs::write(&params, "# the mock is best at 37\nSkill 5 0 100 8 120\n").unwrap();
    let out = dir.join("run");
    let o = run(tune_command(&engine, &params, &out, 60));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = trace_rows(&out.join("trace.csv"));
    assert_eq!(rows.len(), 61);
    assert!(rows.iter().enumerate().all(|(i, r)| r.0 == i));
    assert_eq!(rows[0].1, 5.0);
    // The mean of the last 20 values sits near 37 (the start was 32 away).
    let tail: f64 = rows[41..].iter().map(|r| r.1).sum::<f64>() / 20.0;
    assert!((tail - 37.0).abs() < 12.0, "ended near {tail}: {rows:?}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("Skill = "), "{stdout}");
    let final_params = std::fs::read_to_string(out.join("params.txt")).unwrap();
    assert!(final_params.contains("Skill "), "{final_params}");
    assert!(final_params.contains("option.Skill"), "{final_params}");
    // The mean of the later half (iterations 31…60) is in params-mean.txt and the summary.
    let want = rows[31..].iter().map(|r| r.1).sum::<f64>() / 30.0;
    let mean_params = std::fs::read_to_string(out.join("params-mean.txt")).unwrap();
    let line = mean_params
        .lines()
        .find(|l| l.starts_with("Skill "))
        .unwrap_or_else(|| panic!("{mean_params}"));
    let mean: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(mean, want.round(), "{mean_params}");
    assert!(
        stdout.contains(&format!(
            "mean of iterations 31…60 (the later half; params-mean.txt):\n  Skill = {mean}\n"
        )),
        "{stdout}"
    );
    let svg = std::fs::read_to_string(out.join("trace.svg")).unwrap();
    assert!(svg.contains("<polyline"), "{svg}");
}

#[test]
fn tune_resumes_after_a_kill_from_the_trace() {
    let dir = scratch_dir("tune-resume");
    let engine = skill_engine(&dir);
    let params = dir.join("skill.tune");
    std::fs::write(&params, "Skill 20 0 100 8 60\n").unwrap();
    let out = dir.join("run");
    let trace = out.join("trace.csv");
    let mut child = tune_command(&engine, &params, &out, 40)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let n = std::fs::read_to_string(&trace).map_or(0, |t| t.lines().count());
        if n >= 6 {
            break;
        }
        assert!(Instant::now() < deadline, "no progress in the trace");
        assert!(child.try_wait().unwrap().is_none(), "tune ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&trace).unwrap();
    let done = trace_rows(&trace).len() - 1;
    assert!(done < 40, "the kill came too late to test a resume");
    // A kill in the middle of a write leaves a torn line; the resume must drop it.
    std::fs::write(&trace, format!("{before}{},99.5", done + 1)).unwrap();

    let o = run(tune_command(&engine, &params, &out, 40));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("after iteration {done}")),
        "{stderr}"
    );
    let after = std::fs::read_to_string(&trace).unwrap();
    assert!(after.starts_with(&before), "the first run's rows changed");
    assert!(!after.contains("99.5"), "the torn line survived");
    let rows = trace_rows(&trace);
    assert_eq!(rows.len(), 41);
    assert!(rows.iter().enumerate().all(|(i, r)| r.0 == i), "{rows:?}");

    // A finished run started again plays nothing and keeps its trace.
    let o = run(tune_command(&engine, &params, &out, 40));
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), after);
}

#[test]
fn tune_refuses_bad_input_with_a_reason() {
    let dir = scratch_dir("tune-bad");
    let engine = skill_engine(&dir);
    let out = dir.join("run");
    let cases: [(&str, &str); 3] = [
        ("Skill 5 0 100 8\n", "line 1: expected"),
        ("Skill 500 0 100 8 1\n", "min ≤ start ≤ max"),
        (
            "Skill 5 0 100 8 1 Engine2.Weight\n",
            "needs a config= engine",
        ),
    ];
    for (text, needle) in cases {
        let params = dir.join("bad.tune");
        std::fs::write(&params, text).unwrap();
        let o = run(tune_command(&engine, &params, &out, 3));
        assert!(!o.status.success(), "{text}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{text}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A trace from another tune file is not resumed.
    let params = dir.join("ok.tune");
    std::fs::write(&params, "Skill 5 0 100 8 1\n").unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("trace.csv"), "iteration,Other,result\n0,1,\n").unwrap();
    let o = run(tune_command(&engine, &params, &out, 3));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("does not match"), "{err}");
}

fn search_lines(args: &[&str], input: &[&str]) -> Vec<String> {
    let mut g = Gougi::start(args);
    for l in input {
        g.send(l);
    }
    let lines = g.until_prefix("bestmove");
    g.send("quit");
    lines
}

fn nodes_of(lines: &[String]) -> u64 {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let w: Vec<&str> = info.split_whitespace().collect();
    let i = w.iter().position(|x| *x == "nodes").unwrap();
    w[i + 1].parse().unwrap()
}

#[test]
fn search_lists_tuning_options_only_when_asked() {
    let plain = search_lines(&["search"], &["usi", "go depth 1"]);
    assert!(plain.iter().any(|l| l.contains("name Threads")));
    assert!(!plain.iter().any(|l| l.contains("T_")), "{plain:?}");
    let asked = search_lines(&["search", "--tune-options"], &["usi", "go depth 1"]);
    assert!(
        asked
            .iter()
            .any(|l| l == "option name T_FutilityMargin type spin default 90 min 20 max 300"),
        "{asked:?}"
    );
    assert!(asked.iter().any(|l| l.starts_with("option name T_LmrLog ")));
}

#[test]
fn search_tuning_options_change_the_search_and_defaults_do_not() {
    let pos =
        "position sfen lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9";
    let base = nodes_of(&search_lines(
        &["search"],
        &["setoption name USI_Hash value 16", pos, "go depth 7"],
    ));
    let same = nodes_of(&search_lines(
        &["search"],
        &[
            "setoption name USI_Hash value 16",
            "setoption name T_FutilityMargin value 90",
            "setoption name T_LmrLog value 2081",
            pos,
            "go depth 7",
        ],
    ));
    assert_eq!(base, same, "setting the defaults changed the search");
    let changed = nodes_of(&search_lines(
        &["search"],
        &[
            "setoption name USI_Hash value 16",
            "setoption name T_LmrLog value 1500",
            pos,
            "go depth 7",
        ],
    ));
    assert_ne!(base, changed, "T_LmrLog had no effect");
}
