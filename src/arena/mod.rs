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
//! - [`progress`]: the progress line, and the log writer that keeps logs above it.
//!
//! Scheduling: every pairing (round robin, or the first engine against each other one with
//! `--gauntlet`) plays each opening twice, colours swapped, cycling through the openings until
//! its game count is reached. `--concurrency` workers each own one process per engine, reused
//! across games and replaced when it dies; a finished game goes to the main task, which keeps
//! the tallies, writes the records, draws the progress line and checks the SPRT (with it, no new
//! game starts once a hypothesis is accepted; games under way finish and count).
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
pub mod live;
pub mod opening;
pub mod progress;
pub mod record;
pub mod report;
pub mod stats;
pub mod tally;

use std::collections::{BTreeMap, BTreeSet, HashMap};
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
use progress::Progress;
use report::{GameSummary, PairResult, SprtReport, SprtStop, Summary};
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
    let mut jobs: Vec<Job> = Vec::new();
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

    let scheduled = jobs.len();
    let resumed = match &opts.out {
        Some(out) => {
            let found = scan_records(out, &names, &openings, &pairs)?;
            let jobs_left = remaining_jobs(&jobs, &found);
            if found.files > 0 {
                eprintln!("{}", found.describe(out, &names, &pairs, jobs_left.len()));
            }
            jobs = jobs_left;
            found.games
        }
        None => Vec::new(),
    };
    tracing::debug!(scheduled, left = jobs.len(), "jobs");

    // One thread is plenty: the engines think in their own processes, the runner only waits
    // on pipes and timers. Workers are local tasks (the engine client is not `Send`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let local = tokio::task::LocalSet::new();
    local.block_on(
        &runtime,
        run_jobs(opts, specs, names, openings, pairs, jobs, resumed),
    )
}

/// What an output folder's records say about a match.
#[derive(Default)]
struct Found {
    /// Record files seen (`games/*.csa`).
    files: usize,
    /// Finished games of this match, in index order, with their pairing.
    games: Vec<(usize, GameSummary)>,
    /// Done games per (pairing, opening, black engine).
    done: HashMap<(usize, usize, usize), usize>,
    /// Record numbers in use (any file), never given to a new game.
    used: BTreeSet<usize>,
    /// Records without a game line (older runs) or of other engines / openings.
    ignored: usize,
}

impl Found {
    fn describe(
        &self,
        out: &Path,
        names: &[String],
        pairs: &[(usize, usize)],
        left: usize,
    ) -> String {
        let mut per_pair: BTreeMap<usize, usize> = BTreeMap::new();
        for (p, _) in &self.games {
            *per_pair.entry(*p).or_insert(0) += 1;
        }
        let list: Vec<String> = per_pair
            .iter()
            .map(|(&p, n)| format!("{} vs {} {n}", names[pairs[p].0], names[pairs[p].1]))
            .collect();
        let mut s = format!(
            "resuming {}: {} finished game(s) found in the records{}; {left} game(s) to play",
            out.display(),
            self.games.len(),
            if list.is_empty() {
                String::new()
            } else {
                format!(" ({})", list.join(", "))
            }
        );
        if self.ignored > 0 {
            s.push_str(&format!(
                "; {} record(s) ignored (not of these engines and openings, or without a gougi-game line)",
                self.ignored
            ));
        }
        s
    }
}

/// Reads `out/games/*.csa` (if any): which games of this match are already done.
fn scan_records(
    out: &Path,
    names: &[String],
    openings: &[Opening],
    pairs: &[(usize, usize)],
) -> anyhow::Result<Found> {
    let mut found = Found::default();
    let dir = out.join("games");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(found);
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for path in files {
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(n) = file_name
            .split('-')
            .next()
            .and_then(|d| d.parse::<usize>().ok())
        {
            found.used.insert(n);
        }
        if path.extension().is_none_or(|x| x != "csa") {
            continue;
        }
        found.files += 1;
        let text =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let game = GameSummary::from_csa(&String::from_utf8_lossy(&text));
        let key = game.as_ref().and_then(|g| {
            let black = names.iter().position(|n| *n == g.black)?;
            let white = names.iter().position(|n| *n == g.white)?;
            let pair = pairs
                .iter()
                .position(|&(a, b)| (a, b) == (black, white) || (b, a) == (black, white))?;
            let opening = openings.iter().position(|o| o.usi() == g.opening)?;
            g.black_points()?;
            Some((pair, opening, black))
        });
        match (game, key) {
            (Some(g), Some(key)) => {
                found.used.insert(g.index);
                *found.done.entry(key).or_insert(0) += 1;
                found.games.push((key.0, g));
            }
            _ => found.ignored += 1,
        }
    }
    found.games.sort_by_key(|(_, g)| g.index);
    Ok(found)
}

/// The jobs still to play: per (pairing, opening, colours), as many as the records lack.
/// Jobs whose number a record already uses get fresh numbers after the highest one.
fn remaining_jobs(jobs: &[Job], found: &Found) -> Vec<Job> {
    let mut done = found.done.clone();
    let mut left: Vec<Job> = jobs
        .iter()
        .filter(|j| match done.get_mut(&(j.pair, j.opening, j.black)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .copied()
        .collect();
    let mut next = found.used.iter().next_back().map_or(1, |m| m + 1);
    let mut taken = found.used.clone();
    for j in &mut left {
        if taken.contains(&j.index) {
            next = next.max(jobs.iter().map(|j| j.index).max().unwrap_or(0) + 1);
            while taken.contains(&next) {
                next += 1;
            }
            j.index = next;
        }
        taken.insert(j.index);
    }
    left
}

/// Ctrl-C handling: the first SIGINT sets [`INTERRUPTED`] (the runner polls it); a second one
/// kills every engine group and ends gougi at once, as the default handler would. On Windows the
/// same through a console control handler: the first Ctrl-C (or Ctrl-Break) sets the flag and
/// is handled; a second one, or the console closing, logoff or shutdown, is passed on to the
/// members' handler (which ends every member) and then to the default one (which ends gougi).
mod sigint {
    use std::sync::atomic::{AtomicBool, Ordering};

    pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

    #[cfg(unix)]
    extern "C" fn on_sigint(sig: libc::c_int) {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            // Async-signal-safe: atomics and killpg, then the default action.
            crate::member::process::kill_all_groups();
            // SAFETY: `signal` and `raise` are async-signal-safe.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
    }

    /// Windows' console event `event`: TRUE (handled, gougi goes on) for the first Ctrl-C or
    /// Ctrl-Break only. Runs on a thread Windows makes for the event; touches one atomic.
    #[cfg(windows)]
    unsafe extern "system" fn on_console_event(event: u32) -> windows_sys::core::BOOL {
        use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, CTRL_C_EVENT};
        let interrupt = event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT;
        windows_sys::core::BOOL::from(interrupt && !INTERRUPTED.swap(true, Ordering::SeqCst))
    }

    /// Installs the handler over the members' kill-and-die one (which keeps SIGTERM/SIGHUP; on
    /// Windows, which handles the events this one passes on).
    pub fn install() {
        crate::member::process::install_exit_signal_handlers();
        #[cfg(unix)]
        // SAFETY: installs an async-signal-safe handler (atomics, killpg, signal, raise).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        }
        #[cfg(windows)]
        {
            // Windows calls the handlers last installed first: this one, then the members'.
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
                // SAFETY: `on_console_event` has the PHANDLER_ROUTINE signature and touches
                // only an atomic, which is thread-safe.
                if unsafe { SetConsoleCtrlHandler(Some(on_console_event), 1) } == 0 {
                    tracing::warn!(error = %std::io::Error::last_os_error(), "no Ctrl-C handler: Ctrl-C ends the match without its summary");
                }
            });
        }
    }

    pub fn raised() -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

/// Tallies one finished game into its pairing.
fn count_game(
    results: &mut [PairResult],
    pairs: &[(usize, usize)],
    pair: usize,
    g: &GameSummary,
    names: &[String],
) {
    let (a, _) = pairs[pair];
    let a_is_black = g.black == names[a];
    let black_points = g.black_points().unwrap_or(0.5);
    let a_score = if a_is_black {
        black_points
    } else {
        1.0 - black_points
    };
    results[pair].add(a_score, a_is_black);
}

/// Checks the SPRT after a game: the first crossing of a bound is kept.
fn check_sprt(sprt: Option<&Sprt>, results: &[PairResult], stopped: &mut Option<SprtStop>) {
    let Some(sprt) = sprt else { return };
    if stopped.is_some() {
        return;
    }
    let t = &results[0].tally;
    let state = sprt.state(t);
    if state != SprtState::Continue {
        *stopped = Some(SprtStop {
            state,
            llr: t.llr(sprt.elo0, sprt.elo1),
            games: t.games(),
        });
    }
}

async fn run_jobs(
    opts: MatchOptions,
    specs: Vec<EngineSpec>,
    names: Vec<String>,
    openings: Vec<Opening>,
    pairs: Vec<(usize, usize)>,
    jobs: Vec<Job>,
    resumed: Vec<(usize, GameSummary)>,
) -> anyhow::Result<()> {
    sigint::install();
    let live = match opts.serve {
        Some(addr) => Some(std::rc::Rc::new(
            live::Live::start(addr).with_context(|| format!("--serve {addr}"))?,
        )),
        None => None,
    };
    let mut results: Vec<PairResult> = pairs.iter().map(|&(a, b)| PairResult::new(a, b)).collect();
    let mut summaries: Vec<GameSummary> = Vec::new();
    let mut sprt_stop: Option<SprtStop> = None;
    let resumed_count = resumed.len();
    for (pair, g) in resumed {
        count_game(&mut results, &pairs, pair, &g, &names);
        check_sprt(opts.sprt.as_ref(), &results, &mut sprt_stop);
        if let Some(l) = &live {
            l.game(&g, pair, &results, opts.sprt.as_ref(), false);
        }
        summaries.push(g);
    }
    // A resumed SPRT that had already decided plays nothing more.
    let jobs = if sprt_stop.is_some() {
        Vec::new()
    } else {
        jobs
    };

    // Every engine must start once before any game: a typo in a path is an error, not 200
    // forfeits.
    if !jobs.is_empty() {
        for (i, s) in specs.iter().enumerate() {
            let mut e = Engine::start(s, i as u32 + 1, opts.timeouts)
                .await
                .map_err(|f| anyhow::anyhow!("engine {} ({}): {f}", names[i], s.command.text))?;
            if let Some(id) = &e.id_name {
                tracing::info!(engine = %names[i], id = %id, "engine ok");
            }
            e.quit();
        }
    }

    let total = jobs.len() + resumed_count;
    if let Some(l) = &live {
        let limits = describe_limits(&specs, &names, opts.limits);
        let (n, c) = (openings.len(), opts.concurrency);
        l.hello(
            &names,
            &pairs,
            total,
            resumed_count,
            c,
            limits,
            n,
            opts.sprt.as_ref(),
        );
        l.standings(&names, &results, summaries.len(), total, opts.sprt.as_ref());
    }
    let specs = Arc::new(specs);
    let names = Arc::new(names);
    let openings = Arc::new(openings);
    let jobs = Arc::new(jobs);
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::unbounded_channel::<Done>();
    let mut workers = Vec::new();
    for w in 0..opts.concurrency.max(1).min(jobs.len()) {
        let ctx = WorkerCtx {
            specs: specs.clone(),
            names: names.clone(),
            openings: openings.clone(),
            jobs: jobs.clone(),
            next: next.clone(),
            stop: stop.clone(),
            opts: opts.clone(),
            tx: tx.clone(),
            live: live.clone(),
        };
        workers.push(tokio::task::spawn_local(worker(w, ctx)));
    }
    drop(tx);

    let mut stopped_early = sprt_stop.is_some() && resumed_count > 0;
    let mut interrupted = false;
    let progress = Progress::new(total, opts.quiet);
    progress.update(summaries.len(), &names, &results);
    let mut poll = tokio::time::interval(Duration::from_millis(50));
    loop {
        let done = tokio::select! {
            d = rx.recv() => d,
            _ = poll.tick() => {
                if sigint::raised() {
                    interrupted = true;
                    break;
                }
                continue;
            }
        };
        let Some(Done { job, record }) = done else {
            break;
        };
        let record_path = match &opts.out {
            Some(out) => Some(write_records(
                out, &job, &record, &names, &openings, &pairs,
            )?),
            None => None,
        };
        let g = game_summary(&job, &record, &names, &openings, &pairs, record_path);
        count_game(&mut results, &pairs, job.pair, &g, &names);
        if let Some(l) = &live {
            l.game(&g, job.pair, &results, opts.sprt.as_ref(), true);
            l.standings(
                &names,
                &results,
                summaries.len() + 1,
                total,
                opts.sprt.as_ref(),
            );
        }
        summaries.push(g);
        check_sprt(opts.sprt.as_ref(), &results, &mut sprt_stop);
        if sprt_stop.is_some() && !stop.swap(true, Ordering::SeqCst) {
            stopped_early = true;
        }
        progress.update(summaries.len(), &names, &results);
    }
    if interrupted {
        // Abandon the games in flight: the workers' futures are dropped with their engines,
        // and every engine group still registered is killed now, before anything else.
        stop.store(true, Ordering::SeqCst);
        for w in &workers {
            w.abort();
        }
        for w in workers {
            let _ = w.await;
        }
        crate::member::process::kill_all_groups();
    } else {
        for w in workers {
            w.await.context("a match worker panicked")?;
        }
    }
    progress.finish();
    summaries.sort_by_key(|g| g.index);
    let in_flight = if interrupted {
        (total - summaries.len()).min(opts.concurrency.max(1))
    } else {
        0
    };

    let table = report::table(&names, &results);
    let mut text = String::new();
    text.push_str(&format!(
        "gougi match: {} games, {} opening(s), {}{}{}\n",
        summaries.len(),
        openings.len(),
        describe_limits(&specs, &names, opts.limits),
        if opts.ponder { ", ponder" } else { "" },
        if opts.nodes_jitter > 0 {
            format!(
                " (node budgets ±{}%, seed {})",
                opts.nodes_jitter, opts.seed
            )
        } else {
            String::new()
        }
    ));
    if resumed_count > 0 {
        text.push_str(&format!(
            "resumed: {resumed_count} game(s) from earlier runs in this folder\n"
        ));
    }
    if interrupted {
        text.push_str(&format!(
            "interrupted (Ctrl-C): the summary so far; {} game(s) in flight abandoned, {} not played; run the same command again to resume\n",
            in_flight,
            total - summaries.len()
        ));
    }
    text.push_str(&table);
    // Deterministic engines (fixed nodes, one thread) replay identical games; say how many
    // games were really different, since the interval assumes independent games.
    let mut distinct: Vec<&String> = summaries.iter().map(|g| &g.usi).collect();
    distinct.sort();
    distinct.dedup();
    text.push_str(&format!(
        "distinct games: {} of {}{}\n",
        distinct.len(),
        summaries.len(),
        if distinct.len() * 10 < summaries.len() * 9 {
            " — repeated games make the interval too narrow; add openings or --nodes-jitter"
        } else {
            ""
        }
    ));
    let ends = end_counts(&summaries);
    text.push_str(&format!("game ends: {ends}\n"));
    text.push_str(&report::ponder_line(&names, &summaries));
    let sprt_report = opts.sprt.map(|s| {
        let report = SprtReport::new(s, &results[0].tally, sprt_stop);
        text.push_str(&report::sprt_line(
            &report,
            results[0].tally.games(),
            interrupted,
        ));
        report
    });
    print!("{text}");
    if let Some(l) = &live {
        l.done(&text, interrupted);
    }
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
            interrupted,
            resumed: resumed_count,
        };
        write_file(&out.join("summary.json"), report::json(&summary).as_bytes())?;
        write_file(&out.join("summary.txt"), text.as_bytes())?;
        write_file(&out.join("games.csv"), report::csv(&summaries).as_bytes())?;
        write_file(
            &out.join("elo.svg"),
            report::svg(&names, &results).as_bytes(),
        )?;
        let mut sfen = String::new();
        for g in &summaries {
            sfen.push_str(&g.usi);
            sfen.push('\n');
        }
        write_file(&out.join("games.sfen"), sfen.as_bytes())?;
        println!(
            "records, summary.json, games.csv and elo.svg in {}",
            out.display()
        );
    }
    if interrupted {
        return Err(Interrupted.into());
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
    pairs: &[(usize, usize)],
    record_path: Option<String>,
) -> GameSummary {
    let o: &Outcome = &record.outcome;
    let (a, b) = pairs[job.pair];
    let times = record.times_ms();
    GameSummary {
        index: job.index,
        black: names[job.black].clone(),
        white: names[job.white].clone(),
        opening: openings[job.opening].usi(),
        result: match o.winner {
            None => "1/2-1/2",
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
        }
        .to_owned(),
        reason: o.reason.label().to_owned(),
        detail: match &o.reason {
            EndReason::IllegalMove { text, why } => Some(format!("{text} ({why})")),
            EndReason::Crash(why) => Some(why.clone()),
            EndReason::TimeLoss => record.time_loss.as_ref().map(ToString::to_string),
            _ => None,
        },
        plies: record.moves.len(),
        record: record_path,
        pair: format!("{} vs {}", names[a], names[b]),
        black_time_ms: times[Color::Black.index()],
        white_time_ms: times[Color::White.index()],
        started: record.started.clone(),
        usi: record.usi_position(),
        black_ponders: record.ponder[Color::Black.index()].ponders,
        black_ponder_hits: record.ponder[Color::Black.index()].hits,
        white_ponders: record.ponder[Color::White.index()].ponders,
        white_ponder_hits: record.ponder[Color::White.index()].hits,
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

/// Writes `games/NNNN-black-vs-white.{kif,kifu,csa}` — the KIF in CP932 as the format
/// expects, the KIFU in UTF-8, the CSA ending with the game's summary line (what a resume
/// reads); returns the KIF path relative to `out`. The CSA is written last and atomically, so
/// a game counts as done only once all its files are there.
fn write_records(
    out: &Path,
    job: &Job,
    record: &GameRecord,
    names: &[String],
    openings: &[Opening],
    pairs: &[(usize, usize)],
) -> anyhow::Result<String> {
    let stem = format!(
        "games/{:04}-{}-vs-{}",
        job.index,
        file_safe(&record.names[0]),
        file_safe(&record.names[1])
    );
    let kif_path = format!("{stem}.kif");
    let kif = record::kif(record);
    write_file(&out.join(&kif_path), &record::cp932(&kif))?;
    write_file(&out.join(format!("{stem}.kifu")), kif.as_bytes())?;
    let summary = game_summary(job, record, names, openings, pairs, Some(kif_path.clone()));
    let mut csa = record::csa(record);
    csa.push_str(&summary.csa_line());
    csa.push('\n');
    write_file(&out.join(format!("{stem}.csa")), csa.as_bytes())?;
    Ok(kif_path)
}

/// Writes through a temporary file and a rename: a run killed mid-write leaves no half record.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
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
    live: Option<std::rc::Rc<live::Live>>,
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
