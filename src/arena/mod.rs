//! `gougi match`: games between USI engines, refereed by gougi's rules core, with Elo, LOS and
//! SPRT, records in KIF/CSA/USI, a JSON summary and an SVG plot.
//!
//! - [`engine`]: engine specs (`--engine 'cmd=… name=… option.X=Y nodes=N'`) and the process
//!   client, built on the proxy's member actor.
//! - [`clock`]: time controls and the runner's clocks.
//! - [`opening`]: opening files.
//! - [`game`]: one refereed game.
//! - [`record`]: KIF and CSA text.
//! - [`stats`]: Elo, interval, LOS, SPRT.
//! - [`report`]: the table, `summary.json`, `elo.svg`.
//! - [`tally`]: `gougi tally`, one result pooled from the records of several runs.
//!
//! Scheduling: every pairing (round robin, or the first engine against each other one with
//! `--gauntlet`) plays each opening twice, colours swapped, cycling through the openings until
//! its game count is reached. `--concurrency` workers each own one process per engine, reused
//! across games and replaced when it dies; a finished game goes to the main task, which keeps
//! the tallies, writes the records, draws the progress line and checks the SPRT (with it, no new
//! game starts once a hypothesis is accepted; games under way finish and count).

pub mod clock;
pub mod engine;
pub mod game;
pub mod opening;
pub mod record;
pub mod report;
pub mod stats;
pub mod tally;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use tokio::sync::mpsc;

use clock::Limits;
use engine::{Engine, EngineFailure, EngineSpec, StartTimeouts};
use game::{EndReason, GameRecord, GameRules, Outcome};
use opening::Opening;
use report::{GameSummary, PairResult, SprtReport, Summary};
use stats::{Sprt, SprtState};

use crate::shogi::Color;

/// Everything `gougi match` takes from the command line.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// `--engine` values, at least two.
    pub engines: Vec<String>,
    /// Opening file; the start position alone when `None`.
    pub openings: Option<PathBuf>,
    /// Games per pairing; default: two per opening.
    pub games: Option<usize>,
    pub concurrency: usize,
    /// The match's time control (engines may override parts).
    pub limits: Limits,
    pub grace: Duration,
    pub hang_limit: Duration,
    pub max_plies: usize,
    /// Per-move node budget variation, percent.
    pub nodes_jitter: u32,
    /// Base seed of the variation (game k uses seed + k).
    pub seed: u64,
    pub gauntlet: bool,
    pub sprt: Option<Sprt>,
    /// Where records and summaries go; `None`: nothing is written but the table on stdout.
    pub out: Option<PathBuf>,
    pub timeouts: StartTimeouts,
    /// No progress line.
    pub quiet: bool,
}

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
struct Job {
    index: usize,
    pair: usize,
    black: usize,
    white: usize,
    opening: usize,
}

/// A worker's report of a finished game.
struct Done {
    job: Job,
    record: GameRecord,
}

/// Runs a match to the end and prints the table. Errors only for what stops the whole match
/// (bad arguments, an engine that cannot start at all, an unwritable output folder).
pub fn run(opts: MatchOptions) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("no working directory")?;
    let specs: Vec<EngineSpec> = opts
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e, &cwd).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<_>>()?;
    if specs.len() < 2 {
        bail!("a match needs at least two --engine");
    }
    let mut names: Vec<String> = Vec::new();
    for s in &specs {
        let mut n = s.name.clone();
        let mut k = 2;
        while names.contains(&n) {
            n = format!("{}#{k}", s.name);
            k += 1;
        }
        names.push(n);
    }
    for s in &specs {
        s.limits
            .apply(opts.limits)
            .validate()
            .map_err(|e| anyhow::anyhow!("{}: {e}", s.name))?;
    }
    let openings = match &opts.openings {
        Some(p) => opening::load(p).map_err(anyhow::Error::msg)?,
        None => vec![Opening::startpos()],
    };
    if opts.sprt.is_some() && specs.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    if let Some(out) = &opts.out {
        std::fs::create_dir_all(out.join("games"))
            .with_context(|| format!("cannot create {}", out.display()))?;
    }

    let pairs: Vec<(usize, usize)> = if opts.gauntlet {
        (1..specs.len()).map(|j| (0, j)).collect()
    } else {
        (0..specs.len())
            .flat_map(|i| (i + 1..specs.len()).map(move |j| (i, j)))
            .collect()
    };
    let per_pair = opts.games.unwrap_or(2 * openings.len()).max(1);
    let mut jobs = Vec::new();
    for g in 0..per_pair {
        for (p, &(a, b)) in pairs.iter().enumerate() {
            let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                index: jobs.len() + 1,
                pair: p,
                black,
                white,
                opening: (g / 2) % openings.len(),
            });
        }
    }

    // One thread is plenty: the engines think in their own processes, the runner only waits
    // on pipes and timers. Workers are local tasks (the engine client is not `Send`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let local = tokio::task::LocalSet::new();
    local.block_on(
        &runtime,
        run_jobs(opts, specs, names, openings, pairs, jobs),
    )
}

async fn run_jobs(
    opts: MatchOptions,
    specs: Vec<EngineSpec>,
    names: Vec<String>,
    openings: Vec<Opening>,
    pairs: Vec<(usize, usize)>,
    jobs: Vec<Job>,
) -> anyhow::Result<()> {
    // Every engine must start once before any game: a typo in a path is an error, not 200
    // forfeits.
    for (i, s) in specs.iter().enumerate() {
        let mut e = Engine::start(s, i as u32 + 1, opts.timeouts)
            .await
            .map_err(|f| anyhow::anyhow!("engine {} ({}): {f}", names[i], s.command.text))?;
        if let Some(id) = &e.id_name {
            tracing::info!(engine = %names[i], id = %id, "engine ok");
        }
        e.quit();
    }

    let total = jobs.len();
    let specs = Arc::new(specs);
    let names = Arc::new(names);
    let openings = Arc::new(openings);
    let jobs = Arc::new(jobs);
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::unbounded_channel::<Done>();
    let mut workers = Vec::new();
    for w in 0..opts.concurrency.max(1).min(total) {
        let ctx = WorkerCtx {
            specs: specs.clone(),
            names: names.clone(),
            openings: openings.clone(),
            jobs: jobs.clone(),
            next: next.clone(),
            stop: stop.clone(),
            opts: opts.clone(),
            tx: tx.clone(),
        };
        workers.push(tokio::task::spawn_local(worker(w, ctx)));
    }
    drop(tx);

    let mut results: Vec<PairResult> = pairs.iter().map(|&(a, b)| PairResult::new(a, b)).collect();
    let mut summaries: Vec<GameSummary> = Vec::new();
    let mut usi_lines: Vec<(usize, String)> = Vec::new();
    let mut stopped_early = false;
    let progress = Progress::new(total, opts.quiet);
    while let Some(done) = rx.recv().await {
        let Done { job, record } = done;
        let (a, _) = pairs[job.pair];
        let a_is_black = job.black == a;
        let a_color = if a_is_black {
            Color::Black
        } else {
            Color::White
        };
        let a_score = match record.outcome.winner {
            None => 0.5,
            Some(w) if w == a_color => 1.0,
            Some(_) => 0.0,
        };
        results[job.pair].add(a_score, a_is_black);
        let record_path = match &opts.out {
            Some(out) => Some(write_records(out, &job, &record)?),
            None => None,
        };
        usi_lines.push((job.index, record.usi_position()));
        summaries.push(game_summary(&job, &record, &names, &openings, record_path));
        if let Some(sprt) = &opts.sprt {
            if sprt.state(&results[0].tally) != SprtState::Continue && !stop.load(Ordering::SeqCst)
            {
                stop.store(true, Ordering::SeqCst);
                stopped_early = true;
            }
        }
        progress.update(summaries.len(), &names, &results);
    }
    for w in workers {
        w.await.context("a match worker panicked")?;
    }
    progress.finish();
    summaries.sort_by_key(|g| g.index);
    usi_lines.sort_by_key(|l| l.0);

    let table = report::table(&names, &results);
    let mut text = String::new();
    text.push_str(&format!(
        "gougi match: {} games, {} opening(s), {}{}\n",
        summaries.len(),
        openings.len(),
        describe_limits(&specs, &names, opts.limits),
        if opts.nodes_jitter > 0 {
            format!(
                " (node budgets ±{}%, seed {})",
                opts.nodes_jitter, opts.seed
            )
        } else {
            String::new()
        }
    ));
    text.push_str(&table);
    // Deterministic engines (fixed nodes, one thread) replay identical games; say how many
    // games were really different, since the interval assumes independent games.
    let mut distinct: Vec<&String> = usi_lines.iter().map(|(_, l)| l).collect();
    distinct.sort();
    distinct.dedup();
    text.push_str(&format!(
        "distinct games: {} of {}{}\n",
        distinct.len(),
        usi_lines.len(),
        if distinct.len() * 10 < usi_lines.len() * 9 {
            " — repeated games make the interval too narrow; add openings or --nodes-jitter"
        } else {
            ""
        }
    ));
    let ends = end_counts(&summaries);
    text.push_str(&format!("game ends: {ends}\n"));
    let sprt_report = opts.sprt.map(|s| {
        let llr = results[0].tally.llr(s.elo0, s.elo1);
        let (lo, hi) = s.bounds();
        let state = s.state(&results[0].tally);
        text.push_str(&format!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {:.3} [{:.3}, {:.3}] {}\n",
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            llr,
            lo,
            hi,
            match state {
                SprtState::Continue => "inconclusive",
                SprtState::H0 => "H0 accepted",
                SprtState::H1 => "H1 accepted",
            }
        ));
        SprtReport {
            sprt: s,
            llr,
            state,
        }
    });
    print!("{text}");
    if let Some(out) = &opts.out {
        let commands: Vec<String> = specs.iter().map(|s| s.command.text.clone()).collect();
        let limits: Vec<String> = specs
            .iter()
            .map(|s| s.limits.apply(opts.limits).describe())
            .collect();
        let summary = Summary {
            names: &names,
            commands: &commands,
            limits: &limits,
            pairs: &results,
            games: &summaries,
            sprt: sprt_report,
            stopped_early,
        };
        write_file(&out.join("summary.json"), &report::json(&summary))?;
        write_file(&out.join("summary.txt"), &text)?;
        write_file(&out.join("elo.svg"), &report::svg(&names, &results))?;
        let mut sfen = String::new();
        for (_, l) in &usi_lines {
            sfen.push_str(l);
            sfen.push('\n');
        }
        write_file(&out.join("games.sfen"), &sfen)?;
        println!("records, summary.json and elo.svg in {}", out.display());
    }
    Ok(())
}

fn describe_limits(specs: &[EngineSpec], names: &[String], base: Limits) -> String {
    let all: Vec<String> = specs
        .iter()
        .map(|s| s.limits.apply(base).describe())
        .collect();
    if all.iter().all(|d| *d == all[0]) {
        all[0].clone()
    } else {
        names
            .iter()
            .zip(&all)
            .map(|(n, d)| format!("{n}: {d}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// `checkmate 120, resign 40, repetition 3` in a fixed order.
fn end_counts(games: &[GameSummary]) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for g in games {
        match counts.iter_mut().find(|(r, _)| *r == g.reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((g.reason.clone(), 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if counts.is_empty() {
        return "none".into();
    }
    counts
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn game_summary(
    job: &Job,
    record: &GameRecord,
    names: &[String],
    openings: &[Opening],
    record_path: Option<String>,
) -> GameSummary {
    let o: &Outcome = &record.outcome;
    GameSummary {
        index: job.index,
        black: names[job.black].clone(),
        white: names[job.white].clone(),
        opening: openings[job.opening].usi(),
        result: match o.winner {
            None => "1/2-1/2",
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
        },
        reason: o.reason.label().to_owned(),
        detail: match &o.reason {
            EndReason::IllegalMove { text, why } => Some(format!("{text} ({why})")),
            EndReason::Crash(why) => Some(why.clone()),
            _ => None,
        },
        plies: record.moves.len(),
        record: record_path,
    }
}

/// File names keep letters, digits, `-`, `_` and `.`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes `games/NNNN-black-vs-white.{kif,csa}`; returns the KIF path relative to `out`.
fn write_records(out: &Path, job: &Job, record: &GameRecord) -> anyhow::Result<String> {
    let stem = format!(
        "games/{:04}-{}-vs-{}",
        job.index,
        file_safe(&record.names[0]),
        file_safe(&record.names[1])
    );
    write_file(&out.join(format!("{stem}.kif")), &record::kif(record))?;
    write_file(&out.join(format!("{stem}.csa")), &record::csa(record))?;
    Ok(format!("{stem}.kif"))
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

struct WorkerCtx {
    specs: Arc<Vec<EngineSpec>>,
    names: Arc<Vec<String>>,
    openings: Arc<Vec<Opening>>,
    jobs: Arc<Vec<Job>>,
    next: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    opts: MatchOptions,
    tx: mpsc::UnboundedSender<Done>,
}

/// Takes jobs until none are left (or the SPRT stopped the match); owns its engine processes.
async fn worker(w: usize, ctx: WorkerCtx) {
    let mut engines: Vec<Option<Engine>> = (0..ctx.specs.len()).map(|_| None).collect();
    loop {
        if ctx.stop.load(Ordering::SeqCst) {
            break;
        }
        let i = ctx.next.fetch_add(1, Ordering::SeqCst);
        let Some(&job) = ctx.jobs.get(i) else {
            break;
        };
        let record = play_job(w, &ctx, &mut engines, job).await;
        if ctx.tx.send(Done { job, record }).is_err() {
            break;
        }
    }
    for e in engines.iter_mut().flatten() {
        e.quit();
    }
}

/// Makes sure engine `i` runs (starting or restarting it); `Err` if it cannot start.
async fn ensure_engine(
    w: usize,
    ctx: &WorkerCtx,
    engines: &mut [Option<Engine>],
    i: usize,
) -> Result<(), EngineFailure> {
    if engines[i].as_ref().is_some_and(Engine::is_dead) {
        tracing::warn!(worker = w, engine = %ctx.names[i], "engine died; restarting it");
        engines[i] = None;
    }
    if engines[i].is_none() {
        let number = (w * ctx.specs.len() + i + 1) as u32;
        engines[i] = Some(Engine::start(&ctx.specs[i], number, ctx.opts.timeouts).await?);
    }
    Ok(())
}

async fn play_job(
    w: usize,
    ctx: &WorkerCtx,
    engines: &mut [Option<Engine>],
    job: Job,
) -> GameRecord {
    let names = [ctx.names[job.black].clone(), ctx.names[job.white].clone()];
    let limits = [
        ctx.specs[job.black].limits.apply(ctx.opts.limits),
        ctx.specs[job.white].limits.apply(ctx.opts.limits),
    ];
    let opening = &ctx.openings[job.opening];
    let forfeit = |loser: Color, why: String| GameRecord {
        base: opening.base.clone(),
        names: names.clone(),
        limits,
        moves: Vec::new(),
        outcome: Outcome {
            winner: Some(!loser),
            reason: EndReason::Crash(why),
        },
        started: game::now_utc_text(),
    };
    for (c, i) in [(Color::Black, job.black), (Color::White, job.white)] {
        if let Err(f) = ensure_engine(w, ctx, engines, i).await {
            return forfeit(c, f.to_string());
        }
    }
    let mut black = engines[job.black].take().expect("started above");
    let mut white = engines[job.white].take().expect("started above");
    let rules = GameRules {
        limits,
        grace: ctx.opts.grace,
        hang_limit: ctx.opts.hang_limit,
        max_plies: ctx.opts.max_plies,
        nodes_jitter: ctx.opts.nodes_jitter,
        seed: ctx.opts.seed.wrapping_add(job.index as u64),
        black_view_scores: [
            ctx.specs[job.black].black_view_scores,
            ctx.specs[job.white].black_view_scores,
        ],
    };
    let result = game::play([&mut black, &mut white], names.clone(), opening, &rules).await;
    engines[job.black] = Some(black);
    engines[job.white] = Some(white);
    match result {
        Ok(r) => r,
        // Openings are checked at load, so this is unexpected; the game is void for Black.
        Err(e) => {
            tracing::error!(error = %e, "game could not be set up");
            forfeit(Color::Black, e)
        }
    }
}

/// The progress line on stderr: redrawn in place on a terminal, every ~5 % otherwise.
struct Progress {
    total: usize,
    tty: bool,
    quiet: bool,
}

impl Progress {
    fn new(total: usize, quiet: bool) -> Progress {
        Progress {
            total,
            tty: std::io::stderr().is_terminal(),
            quiet,
        }
    }

    fn update(&self, done: usize, names: &[String], results: &[PairResult]) {
        if self.quiet {
            return;
        }
        let width = 30;
        let filled = width * done / self.total.max(1);
        let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
        let first = results
            .first()
            .map(|p| report::pair_line(names, p))
            .unwrap_or_default();
        let line = format!("[{bar}] {done}/{} | {first}", self.total);
        if self.tty {
            eprint!("\r\x1b[2K{line}");
        } else {
            let step = (self.total / 20).max(1);
            if done % step == 0 || done == self.total {
                eprintln!("{line}");
            }
        }
    }

    fn finish(&self) {
        if self.tty && !self.quiet {
            eprintln!();
        }
    }
}
