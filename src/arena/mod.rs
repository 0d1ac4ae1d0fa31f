//! `gougi match`: games between USI engines, refereed by gougi's rules core, with Elo, LOS and
//! SPRT, records in KIF/CSA/USI, a JSON summary and an SVG plot.
//!
//! - [`engine`]: engine specs (`--engine 'cmd=… name=… option.X=Y nodes=N'`) and the process
//!   client, built on the proxy's member actor.
//! - [`clock`]: time controls and the runner's clocks.
//! - [`opening`]: opening files.
//! - `jobs`: the pairings, the schedule of games, and what one played game comes to.
//! - [`game`]: one refereed game.
//! - [`record`]: KIF and CSA text.
//! - `out`: the files `--out DIR` gets: each game's records, the summaries at the end.
//! - `resume`: which games an output folder's records already hold.
//! - `sigint`: Ctrl-C (and its Windows console twin).
//! - [`stats`]: Elo, interval, LOS, SPRT.
//! - [`report`]: the table, `summary.json`, `elo.svg`.
//! - [`tally`]: `gougi tally`, one result pooled from the records of several runs.
//! - [`progress`]: the progress line, and the log writer that keeps logs above it.
//!
//! Scheduling: every pairing (round robin, or the first engine against each other one with
//! `--gauntlet`) plays each opening twice, colours swapped, cycling through the openings until
//! its game count is reached. `--concurrency` workers each own one process per engine, reused
//! across games and replaced when it dies; a finished game goes to the main task, which keeps
//! the tallies, writes the records, draws the progress line and checks the SPRT (with it, no new
//! game starts once a hypothesis is accepted; games under way finish and count).
//!
//! [`run`] sets the match up (engines, openings, pairings, the schedule less what the records
//! already hold) and `run_jobs` plays it in steps, each a function of its own: replay the
//! resumed games, start every engine once, start the workers, count the games as they come
//! (`collect`), wind the workers down, then write the summary (`report_text`,
//! `out::write_summary`).
//!
//! Long runs: `--out DIR` on a folder that already holds records resumes the run. The records
//! are the state: each CSA file ends with a `'gougi-game {…}` line (the game's summary as JSON);
//! the finished games are counted per pairing, opening and colours, and only the rest are
//! played (new games never reuse an existing record's number). Ctrl-C (SIGINT; on Windows the
//! console's Ctrl-C or Ctrl-Break) abandons the games in flight (their engines are killed),
//! prints and writes the summary so far, and ends with [`Interrupted`] (exit status 130); a
//! second Ctrl-C kills everything at once.

pub mod clock;
pub mod engine;
pub mod game;
mod jobs;
pub mod live;
pub mod opening;
mod out;
pub mod progress;
pub mod record;
pub mod report;
mod resume;
mod sigint;
pub mod stats;
pub mod tally;

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use clock::Limits;
use engine::{Engine, EngineFailure, EngineSpec, StartTimeouts};
use game::{EndReason, GameRecord, GameRules, Outcome};
use jobs::{Done, Job};
use live::Live;
use opening::Opening;
use progress::Progress;
use report::{GameSummary, PairResult, SprtReport, SprtStop, Summary};
use stats::Sprt;

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
    /// `--ponder`: both sides ponder (ARCHITECTURE "Cluster frame").
    pub ponder: bool,
    pub gauntlet: bool,
    pub sprt: Option<Sprt>,
    /// Where records and summaries go; `None`: nothing is written but the table on stdout.
    pub out: Option<PathBuf>,
    pub timeouts: StartTimeouts,
    /// No progress line.
    pub quiet: bool,
    /// `--serve ADDR`: the live page's address (`live.rs`).
    pub serve: Option<std::net::SocketAddr>,
}

/// The error [`run`] ends with after Ctrl-C, once the summary so far is printed and written;
/// `gougi match` exits with status 130 on it (the shell's code for SIGINT).
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Runs a match to the end and prints the table. Errors only for what stops the whole match
/// (bad arguments, an engine that cannot start at all, an unwritable output folder).
pub fn run(opts: MatchOptions) -> anyhow::Result<()> {
    let m = Match::new(opts)?;
    let per_pair = m.opts.games.unwrap_or(2 * m.openings.len()).max(1);
    let jobs = jobs::schedule(&m.pairs, per_pair, m.openings.len());
    let scheduled = jobs.len();
    let (jobs, resumed) = match &m.opts.out {
        Some(out) => {
            let found = resume::scan(out, &m.names, &m.openings, &m.pairs)?;
            let left = resume::remaining(&jobs, &found);
            if found.files > 0 {
                eprintln!("{}", found.describe(out, &m.names, &m.pairs, left.len()));
            }
            (left, found.games)
        }
        None => (jobs, Vec::new()),
    };
    tracing::debug!(scheduled, left = jobs.len(), "jobs");

    // One thread is plenty: the engines think in their own processes, the runner only waits
    // on pipes and timers. Workers are local tasks (the engine client is not `Send`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, run_jobs(m, jobs, resumed))
}

/// A match as [`run`] set it up, read by every step after: the options, the engines (their
/// names made unique), the openings and the pairings. Shared with the workers, hence the
/// `Arc`s.
struct Match {
    opts: MatchOptions,
    specs: Arc<Vec<EngineSpec>>,
    names: Arc<Vec<String>>,
    openings: Arc<Vec<Opening>>,
    pairs: Vec<(usize, usize)>,
}

impl Match {
    /// Checks the command line (engines, their limits, openings, the SPRT's two engines) and
    /// makes the output folder.
    fn new(opts: MatchOptions) -> anyhow::Result<Match> {
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
        let pairs = jobs::pairings(specs.len(), opts.gauntlet);
        Ok(Match {
            opts,
            specs: Arc::new(specs),
            names: Arc::new(names),
            openings: Arc::new(openings),
            pairs,
        })
    }

    fn sprt(&self) -> Option<&Sprt> {
        self.opts.sprt.as_ref()
    }
}

/// The result so far: each pairing's tally, every counted game, and where the SPRT stopped.
struct Standings {
    results: Vec<PairResult>,
    games: Vec<GameSummary>,
    /// The first crossing of an SPRT bound (kept: later games under way still count).
    sprt_stop: Option<SprtStop>,
}

impl Standings {
    fn new(pairs: &[(usize, usize)]) -> Standings {
        Standings {
            results: pairs.iter().map(|&(a, b)| PairResult::new(a, b)).collect(),
            games: Vec::new(),
            sprt_stop: None,
        }
    }

    /// Counts one finished game of pairing `pair`: its tally, then the SPRT.
    fn count(&mut self, m: &Match, pair: usize, g: GameSummary) {
        let (a, _) = m.pairs[pair];
        let a_is_black = g.black == m.names[a];
        let black_points = g.black_points().unwrap_or(0.5);
        let a_score = if a_is_black {
            black_points
        } else {
            1.0 - black_points
        };
        self.results[pair].add(a_score, a_is_black);
        SprtStop::check(m.sprt(), &self.results[0].tally, &mut self.sprt_stop);
        self.games.push(g);
    }
}

/// The match after the set-up, step by step: each step below is a function of its own.
async fn run_jobs(
    m: Match,
    jobs: Vec<Job>,
    resumed: Vec<(usize, GameSummary)>,
) -> anyhow::Result<()> {
    sigint::install();
    let live = match m.opts.serve {
        Some(addr) => Some(Rc::new(
            Live::start(addr).with_context(|| format!("--serve {addr}"))?,
        )),
        None => None,
    };
    let mut standings = Standings::new(&m.pairs);
    let resumed_count = resumed.len();
    for (pair, g) in resumed {
        standings.count(&m, pair, g);
        if let Some((l, g)) = live.as_ref().zip(standings.games.last()) {
            l.game(g, pair, &standings.results, m.sprt(), false);
        }
    }
    // A resumed SPRT that had already decided plays nothing more.
    let jobs = if standings.sprt_stop.is_some() {
        Vec::new()
    } else {
        jobs
    };
    if !jobs.is_empty() {
        start_each_engine(&m).await?;
    }
    let total = jobs.len() + resumed_count;
    if let Some(l) = &live {
        let limits = describe_limits(&m.specs, &m.names, m.opts.limits);
        let (n, c) = (m.openings.len(), m.opts.concurrency);
        l.hello(
            &m.names,
            &m.pairs,
            total,
            resumed_count,
            c,
            limits,
            n,
            m.sprt(),
        );
        l.standings(
            &m.names,
            &standings.results,
            standings.games.len(),
            total,
            m.sprt(),
        );
    }
    let mut play = Play::start(&m, jobs, live.clone());
    let progress = Progress::new(total, m.opts.quiet);
    progress.update(standings.games.len(), &m.names, &standings.results);
    let interrupted = collect(
        &m,
        &mut standings,
        &mut play,
        live.as_deref(),
        &progress,
        total,
    )
    .await?;
    play.finish(interrupted).await?;
    progress.finish();
    standings.games.sort_by_key(|g| g.index);

    let in_flight = if interrupted {
        (total - standings.games.len()).min(m.opts.concurrency.max(1))
    } else {
        0
    };
    let ended = Ended {
        resumed: resumed_count,
        interrupted,
        in_flight,
        not_played: total - standings.games.len(),
    };
    let (text, sprt_report) = report_text(&m, &standings, &ended);
    print!("{text}");
    if let Some(l) = &live {
        l.done(&text, interrupted);
    }
    if let Some(out) = &m.opts.out {
        write_summary(out, &m, &standings, sprt_report, &ended, &text)?;
    }
    if interrupted {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// Every engine must start once before any game: a typo in a path is an error, not 200
/// forfeits.
async fn start_each_engine(m: &Match) -> anyhow::Result<()> {
    for (i, s) in m.specs.iter().enumerate() {
        let mut e = Engine::start(s, i as u32 + 1, m.opts.timeouts)
            .await
            .map_err(|f| anyhow::anyhow!("engine {} ({}): {f}", m.names[i], s.command.text))?;
        if let Some(id) = &e.id_name {
            tracing::info!(engine = %m.names[i], id = %id, "engine ok");
        }
        e.quit();
    }
    Ok(())
}

/// The workers playing the jobs, and the channel their finished games come back on.
struct Play {
    workers: Vec<JoinHandle<()>>,
    done: mpsc::UnboundedReceiver<Done>,
    /// Set when no new game may start (the SPRT decided, or Ctrl-C).
    stop: Arc<AtomicBool>,
}

impl Play {
    /// `--concurrency` workers (no more than there are jobs), taking the jobs in order.
    fn start(m: &Match, jobs: Vec<Job>, live: Option<Rc<Live>>) -> Play {
        let jobs = Arc::new(jobs);
        let next = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, done) = mpsc::unbounded_channel::<Done>();
        let mut workers = Vec::new();
        for w in 0..m.opts.concurrency.max(1).min(jobs.len()) {
            let ctx = WorkerCtx {
                specs: m.specs.clone(),
                names: m.names.clone(),
                openings: m.openings.clone(),
                jobs: jobs.clone(),
                next: next.clone(),
                stop: stop.clone(),
                opts: m.opts.clone(),
                tx: tx.clone(),
                live: live.clone(),
            };
            workers.push(tokio::task::spawn_local(worker(w, ctx)));
        }
        // The channel closes when the last worker ends.
        drop(tx);
        Play {
            workers,
            done,
            stop,
        }
    }

    /// After [`collect`]: the workers' end. Interrupted, the games in flight are abandoned:
    /// the workers' futures are dropped with their engines, and every engine group still
    /// registered is killed now, before anything else.
    async fn finish(self, interrupted: bool) -> anyhow::Result<()> {
        if interrupted {
            self.stop.store(true, Ordering::SeqCst);
            for w in &self.workers {
                w.abort();
            }
            for w in self.workers {
                let _ = w.await;
            }
            crate::member::process::kill_all_groups();
        } else {
            for w in self.workers {
                w.await.context("a match worker panicked")?;
            }
        }
        Ok(())
    }
}

/// Counts the workers' games as they finish, until all are played or Ctrl-C: each one's
/// records written (`--out`), counted, shown live and on the progress line. Once the SPRT
/// decides, no new game starts (games under way finish and count). True when Ctrl-C ended it.
async fn collect(
    m: &Match,
    standings: &mut Standings,
    play: &mut Play,
    live: Option<&Live>,
    progress: &Progress,
    total: usize,
) -> anyhow::Result<bool> {
    let mut poll = tokio::time::interval(Duration::from_millis(50));
    loop {
        let done = tokio::select! {
            d = play.done.recv() => d,
            _ = poll.tick() => {
                if sigint::raised() {
                    return Ok(true);
                }
                continue;
            }
        };
        let Some(Done { job, record }) = done else {
            return Ok(false);
        };
        let record_path = match &m.opts.out {
            Some(out) => Some(out::write_records(
                out,
                &job,
                &record,
                &m.names,
                &m.openings,
                &m.pairs,
            )?),
            None => None,
        };
        let g = jobs::summary(&job, &record, &m.names, &m.openings, &m.pairs, record_path);
        standings.count(m, job.pair, g);
        if let Some((l, g)) = live.zip(standings.games.last()) {
            l.game(g, job.pair, &standings.results, m.sprt(), true);
            l.standings(
                &m.names,
                &standings.results,
                standings.games.len(),
                total,
                m.sprt(),
            );
        }
        if standings.sprt_stop.is_some() {
            play.stop.store(true, Ordering::SeqCst);
        }
        progress.update(standings.games.len(), &m.names, &standings.results);
    }
}

/// How the run ended, for the summary.
struct Ended {
    /// Games read back from the records of earlier runs.
    resumed: usize,
    /// Ctrl-C.
    interrupted: bool,
    /// Games abandoned under way (interrupted only).
    in_flight: usize,
    /// Scheduled games not counted (the in-flight ones included).
    not_played: usize,
}

/// The summary text, as printed and written to `summary.txt`, and the SPRT's report.
fn report_text(m: &Match, s: &Standings, ended: &Ended) -> (String, Option<SprtReport>) {
    let mut text = String::new();
    text.push_str(&format!(
        "gougi match: {} games, {} opening(s), {}{}{}\n",
        s.games.len(),
        m.openings.len(),
        describe_limits(&m.specs, &m.names, m.opts.limits),
        if m.opts.ponder { ", ponder" } else { "" },
        if m.opts.nodes_jitter > 0 {
            format!(
                " (node budgets ±{}%, seed {})",
                m.opts.nodes_jitter, m.opts.seed
            )
        } else {
            String::new()
        }
    ));
    if ended.resumed > 0 {
        text.push_str(&format!(
            "resumed: {} game(s) from earlier runs in this folder\n",
            ended.resumed
        ));
    }
    if ended.interrupted {
        text.push_str(&format!(
            "interrupted (Ctrl-C): the summary so far; {} game(s) in flight abandoned, {} not played; run the same command again to resume\n",
            ended.in_flight,
            ended.not_played
        ));
    }
    text.push_str(&report::table(&m.names, &s.results));
    // Deterministic engines (fixed nodes, one thread) replay identical games; say how many
    // games were really different, since the interval assumes independent games.
    let mut distinct: Vec<&String> = s.games.iter().map(|g| &g.usi).collect();
    distinct.sort();
    distinct.dedup();
    text.push_str(&format!(
        "distinct games: {} of {}{}\n",
        distinct.len(),
        s.games.len(),
        if distinct.len() * 10 < s.games.len() * 9 {
            " — repeated games make the interval too narrow; add openings or --nodes-jitter"
        } else {
            ""
        }
    ));
    let ends = end_counts(&s.games);
    text.push_str(&format!("game ends: {ends}\n"));
    text.push_str(&report::ponder_line(&m.names, &s.games));
    let sprt_report = m.opts.sprt.map(|sprt| {
        let report = SprtReport::new(sprt, &s.results[0].tally, s.sprt_stop);
        text.push_str(&report::sprt_line(
            &report,
            s.results[0].tally.games(),
            ended.interrupted,
        ));
        report
    });
    (text, sprt_report)
}

/// `--out`: the summary files (`out.rs`), and where they are said on stdout.
fn write_summary(
    out: &Path,
    m: &Match,
    s: &Standings,
    sprt: Option<SprtReport>,
    ended: &Ended,
    text: &str,
) -> anyhow::Result<()> {
    let commands: Vec<String> = m.specs.iter().map(|s| s.command.text.clone()).collect();
    let limits: Vec<String> = m
        .specs
        .iter()
        .map(|s| s.limits.apply(m.opts.limits).describe())
        .collect();
    let summary = Summary {
        names: &m.names,
        commands: &commands,
        limits: &limits,
        pairs: &s.results,
        games: &s.games,
        sprt,
        // The SPRT stops the match the moment a bound is crossed (or a resumed run that had
        // crossed one plays nothing), so a crossing is an early stop.
        stopped_early: s.sprt_stop.is_some(),
        interrupted: ended.interrupted,
        resumed: ended.resumed,
    };
    out::write_summary(out, &summary, text)?;
    println!(
        "records, summary.json, games.csv and elo.svg in {}",
        out.display()
    );
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

struct WorkerCtx {
    specs: Arc<Vec<EngineSpec>>,
    names: Arc<Vec<String>>,
    openings: Arc<Vec<Opening>>,
    jobs: Arc<Vec<Job>>,
    next: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    opts: MatchOptions,
    tx: mpsc::UnboundedSender<Done>,
    live: Option<Rc<Live>>,
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
        time_loss: None,
        ponder: Default::default(),
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
        ponder: ctx.opts.ponder,
    };
    let result = match &ctx.live {
        Some(l) => {
            let mut last = None;
            let mut watch = |pos: &crate::shogi::Position, moves: &[game::PlayedMove]| {
                l.board(w, job.index, &names, pos, moves, &mut last)
            };
            let players = [&mut black, &mut white];
            game::play_watched(players, names.clone(), opening, &rules, &mut watch).await
        }
        None => game::play([&mut black, &mut white], names.clone(), opening, &rules).await,
    };
    engines[job.black] = Some(black);
    engines[job.white] = Some(white);
    match result {
        Ok(r) => r,
        // Openings are checked at load, so this is unexpected; the game is void for Black.
        Err(e) => {
            tracing::error!(error = %e, "game could not be set up");
            forfeit(Color::Black, e.to_string())
        }
    }
}
