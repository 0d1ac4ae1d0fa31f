//! `gougi bench mate`: solve problem files and print per-file figures.
//!
//! For each file: problems solved (a valid mate, or `nomate` where expected), how many at the
//! expected (shortest) length, median and total time. Each problem starts from a cleared table
//! (O(1), see [`super::tt`]) and gets `limit_ms`.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::problems::{check_mate_line, parse_problems};
use super::solver::{solve, MateMode, MateOutcome, SolveLimits};
use super::tt::MateTable;

/// The default file set: every `.txt` in `dir` except `long_famous.txt`.
pub fn default_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .filter(|p| p.file_name().is_some_and(|n| n != "long_famous.txt"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The result of one problem.
#[derive(Debug)]
pub struct ProblemResult {
    pub solved: bool,
    pub shortest: bool,
    pub time: Duration,
    pub nodes: u64,
    pub answer: String,
}

/// Solve one problem line and judge the answer against its expected length.
pub fn run_problem(
    sfen: &str,
    expected: Option<u16>,
    tt: &mut MateTable,
    limit: Duration,
    double_count: bool,
) -> Result<ProblemResult, crate::shogi::SfenError> {
    tt.clear();
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let limits = SolveLimits {
        deadline: Some(start + limit),
        stop: &stop,
        mode: MateMode::Shortest,
        double_count,
        max_nodes: None,
    };
    let pos = crate::shogi::Position::from_sfen(sfen)?;
    let mut board = super::core_board::CoreBoard::new(pos);
    let (outcome, stats) = solve(&mut board, tt, &limits, None);
    let outcome = outcome.map_moves(|m| m.to_string());
    let time = start.elapsed();
    let (solved, shortest, answer) = match (&outcome, expected) {
        (MateOutcome::Mate { moves, .. }, _) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            let valid = check_mate_line(sfen, &text);
            let ok = valid.is_ok() && expected.is_some();
            let shortest = ok && expected == Some(text.len() as u16);
            (
                ok,
                shortest,
                match valid {
                    Ok(_) => format!("{} (a mate)", text.join(" ")),
                    Err(e) => format!("{} (not a mate: {e})", text.join(" ")),
                },
            )
        }
        (MateOutcome::NoMate, None) => (true, true, "nomate".to_string()),
        (MateOutcome::NoMate, Some(_)) => (false, false, "nomate".to_string()),
        (MateOutcome::Timeout, _) => (false, false, "timeout".to_string()),
    };
    Ok(ProblemResult {
        solved,
        shortest,
        time,
        nodes: stats.nodes,
        answer,
    })
}

/// How `gougi bench mate` runs.
#[derive(Clone, Copy, Debug)]
pub struct BenchOptions {
    /// Table size in MiB.
    pub hash_mb: usize,
    /// Time limit per problem.
    pub limit: Duration,
    /// One line per problem.
    pub verbose: bool,
    /// The solver's double-count correction.
    pub double_count: bool,
}

/// Run the bench over `files`, printing one line per file (and per failure) to `out`.
pub fn run_bench(
    files: &[PathBuf],
    options: &BenchOptions,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    let BenchOptions {
        hash_mb,
        limit,
        verbose,
        double_count,
    } = *options;
    let mut tt = MateTable::with_parent_links(hash_mb, double_count);
    let mut all_times = Vec::new();
    let mut all_nodes = 0u64;
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let problems =
            parse_problems(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut times = Vec::new();
        let (mut solved, mut shortest, mut nodes) = (0, 0, 0u64);
        for p in &problems {
            let r = run_problem(&p.sfen, p.expected, &mut tt, limit, double_count)
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", file.display(), p.line_no))?;
            solved += usize::from(r.solved);
            shortest += usize::from(r.shortest);
            nodes += r.nodes;
            times.push(r.time);
            if verbose {
                writeln!(
                    out,
                    "  {}:{} {} nodes {} ms {:.2}",
                    file.display(),
                    p.line_no,
                    if r.shortest { "ok" } else { "wrong" },
                    r.nodes,
                    r.time.as_secs_f64() * 1e3
                )?;
            }
            if !r.shortest {
                writeln!(
                    out,
                    "  {}:{} expected {} got {} in {:.1} ms",
                    file.display(),
                    p.line_no,
                    p.expected.map_or("nomate".to_string(), |n| n.to_string()),
                    r.answer,
                    r.time.as_secs_f64() * 1e3
                )?;
            }
        }
        all_nodes += nodes;
        all_times.extend_from_slice(&times);
        let total: Duration = times.iter().sum();
        writeln!(
            out,
            "{}: solved {}/{} shortest {}/{} median {:.2} ms total {:.1} ms nodes {}",
            file.file_name().map_or("?".into(), |n| n.to_string_lossy()),
            solved,
            problems.len(),
            shortest,
            problems.len(),
            median_ms(&mut times),
            total.as_secs_f64() * 1e3,
            nodes
        )?;
    }
    let total: Duration = all_times.iter().sum();
    writeln!(
        out,
        "all: {} problems median {:.2} ms total {:.1} ms nodes {} nps {:.0}",
        all_times.len(),
        median_ms(&mut all_times),
        total.as_secs_f64() * 1e3,
        all_nodes,
        all_nodes as f64 / total.as_secs_f64().max(1e-9)
    )?;
    Ok(())
}

fn median_ms(times: &mut [Duration]) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    times.sort();
    let n = times.len();
    let mid = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2
    };
    mid.as_secs_f64() * 1e3
}
