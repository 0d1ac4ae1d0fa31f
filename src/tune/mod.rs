//! `gougi tune`: SPSA tuning of an engine's numbers by self-play (θ+ against θ−).
//!
//! - [`spsa`]: the tune file and the arithmetic (schedule, probe, update, clamp, rounding);
//!   its module doc gives the format, the formulas and the sources.
//! - [`plot`]: `trace.svg`, the parameters over the iterations.
//! - [`live`]: `--serve ADDR`, the live page (traces, iterations, games in progress).
//! - [`trace`]: `trace.csv`, the run's values after each iteration, read back to resume.
//!
//! One iteration k plays `--games-per-iteration` games (an even number): pairs of games from
//! one opening, θ+ with Black in the first and θ− with Black in the second. The pairs of an
//! iteration run at once (up to `--concurrency`); every pair starts its two engines fresh with
//! the iteration's values (engines take most options only before `isready`) and quits them
//! after. Games go through the arena's referee ([`crate::arena::game::play`]), so limits,
//! openings, node jitter and adjudication are `gougi match`'s.
//!
//! Files in `--out DIR`: `trace.csv` (a header `iteration,<names…>,result`, row 0 the start
//! values, row k the values after iteration k and θ+'s wins − losses in it), `params.txt`
//! (the current values in the tune-file format, rewritten after each iteration),
//! `params-mean.txt` (the mean of the later half of the iterations done, the same format:
//! the values to verify, since the last point still carries its last steps' noise) and
//! `trace.svg`. The trace is the source of truth: started again with the same `--out`, a run
//! reads it, drops a torn last line, checks the parameter names, and continues after the last
//! complete iteration with its values (Δ is a function of the seed and k, so the run is the
//! one it would have been).

pub mod live;
pub mod plot;
pub mod spsa;
pub mod trace;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use anyhow::{bail, Context};

use crate::arena::clock::Limits;
use crate::arena::engine::{Engine, EngineSpec, StartTimeouts};
use crate::arena::game::{self, GameRules};
use crate::arena::opening::{self, Opening};
use crate::shogi::Color;

use spsa::{Param, Probe, Schedule, Target};
use trace::trace_line;
pub use trace::{read_trace, trace_header, TraceError, TraceRow, TRACE_FILE};

/// Everything `gougi tune` takes from the command line.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// The `--engine` spec (as `gougi match`'s) both sides are made from.
    pub engine: String,
    pub params_file: PathBuf,
    pub iterations: usize,
    /// Games per iteration, even (pairs with colours swapped).
    pub games_per_iteration: usize,
    pub openings: Option<PathBuf>,
    pub concurrency: usize,
    pub limits: Limits,
    pub grace: Duration,
    pub hang_limit: Duration,
    pub max_plies: usize,
    pub nodes_jitter: u32,
    /// Seeds Δ (and the node jitter).
    pub seed: u64,
    pub out: PathBuf,
    pub timeouts: StartTimeouts,
    pub quiet: bool,
    /// `--serve ADDR`: the live page's address ([`live`]).
    pub serve: Option<std::net::SocketAddr>,
}

/// Rewrites a config text so `key` has `value`: lines setting it are dropped and one
/// `key=value` line is appended (the parser keeps the last line of a key either way).
pub fn rewrite_config(text: &str, sets: &[(String, String)]) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        let sets_it = sets.iter().any(|(k, _)| {
            t.len() > k.len()
                && t.is_char_boundary(k.len())
                && t[..k.len()].eq_ignore_ascii_case(k)
                && t[k.len()..].starts_with(|c: char| c == '=' || c == ':' || c.is_whitespace())
        });
        if !sets_it {
            out.push_str(line);
            out.push('\n');
        }
    }
    for (k, v) in sets {
        out.push_str(&format!("{k}={v}\n"));
    }
    out
}

/// Runs (or resumes) a tune to its last iteration.
pub fn run(opts: TuneOptions) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("no working directory")?;
    let text = std::fs::read_to_string(&opts.params_file)
        .with_context(|| format!("cannot read {}", opts.params_file.display()))?;
    let params = spsa::parse_params(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", opts.params_file.display()))?;
    let spec = EngineSpec::parse(&opts.engine, &cwd).map_err(anyhow::Error::msg)?;
    spec.limits
        .apply(opts.limits)
        .validate()
        .map_err(anyhow::Error::msg)?;
    if params
        .iter()
        .any(|p| matches!(p.target, Target::ConfigKey(_)))
        && config_path(&spec).is_none()
    {
        bail!("a config-key target (like Engine2.Weight) needs a config= engine");
    }
    if opts.games_per_iteration < 2 || opts.games_per_iteration % 2 == 1 {
        bail!("--games-per-iteration must be even (pairs of games, colours swapped)");
    }
    if opts.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let openings = match &opts.openings {
        Some(p) => opening::load(p).map_err(anyhow::Error::msg)?,
        None => vec![Opening::startpos()],
    };
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("cannot create {}", opts.out.display()))?;

    // The trace decides where the run stands.
    let trace_path = opts.out.join(TRACE_FILE);
    let mut rows = match std::fs::read_to_string(&trace_path) {
        Ok(t) => {
            let (rows, end) = read_trace(&t, &params)
                .map_err(|e| anyhow::anyhow!("{}: {e}", trace_path.display()))?;
            if end < t.len() {
                tracing::warn!(bytes = t.len() - end, "dropping the trace's torn last line");
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&trace_path)
                    .with_context(|| format!("cannot open {}", trace_path.display()))?;
                f.set_len(end as u64)?;
            }
            rows
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).context(format!("cannot read {}", trace_path.display())),
    };
    if rows.is_empty() {
        let row0 = TraceRow {
            iteration: 0,
            theta: params.iter().map(|p| p.start).collect(),
            result: None,
        };
        let mut s = trace_header(&params);
        s.push_str(&trace_line(&row0));
        std::fs::write(&trace_path, s)
            .with_context(|| format!("cannot write {}", trace_path.display()))?;
        rows.push(row0);
    } else if !opts.quiet {
        eprintln!(
            "resuming {} after iteration {}",
            trace_path.display(),
            rows.len() - 1
        );
    }

    // The page is up before the first game, with the trace so far.
    let live = match opts.serve {
        Some(addr) => {
            let l = live::Live::start(addr).with_context(|| format!("--serve {addr}"))?;
            l.hello(
                live::RunInfo {
                    engine: opts.engine.clone(),
                    iterations: opts.iterations,
                    games_per_iteration: opts.games_per_iteration,
                    concurrency: opts.concurrency.max(1),
                    limits: spec.limits.apply(opts.limits).describe(),
                    openings: openings.len(),
                },
                &params,
                &rows,
            );
            Some(Rc::new(l))
        }
        None => None,
    };

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let local = tokio::task::LocalSet::new();
    local.block_on(
        &runtime,
        iterate(&opts, &params, &spec, &openings, rows, live.as_ref()),
    )
}

fn config_path(spec: &EngineSpec) -> Option<PathBuf> {
    match spec.command.args.as_slice() {
        [flag, path, ..] if flag == "--config" => Some(PathBuf::from(path)),
        _ => None,
    }
}

async fn iterate(
    opts: &TuneOptions,
    params: &[Param],
    spec: &EngineSpec,
    openings: &[Opening],
    mut rows: Vec<TraceRow>,
    live: Option<&Rc<live::Live>>,
) -> anyhow::Result<()> {
    let trace_path = opts.out.join(TRACE_FILE);
    let sched = Schedule::for_iterations(opts.iterations);
    let mut theta = rows.last().expect("row 0 exists").theta.clone();
    let start_k = rows.len();
    if start_k == 1 {
        // The start values must give a working engine before hours of games.
        let s = spec_for(spec, params, &theta, "check")?;
        let e = Engine::start(&s.spec, 1, opts.timeouts)
            .await
            .map_err(|f| anyhow::anyhow!("engine {}: {f}", spec.command.text))?;
        quit_and_wait(e).await;
        s.cleanup();
    }
    let pairs = opts.games_per_iteration / 2;
    let progress = Progress::new(opts.iterations, opts.quiet);
    for k in start_k..=opts.iterations {
        let pr = spsa::probe(params, &theta, &sched, opts.seed, k);
        let mut result = 0.0;
        let mut wdl = [0u32; 3];
        let jobs: Vec<usize> = (0..pairs).collect();
        for chunk in jobs.chunks(opts.concurrency.max(1)) {
            let mut handles = Vec::new();
            for &j in chunk {
                let opening = openings[((k - 1) * pairs + j) % openings.len()].clone();
                let ctx = PairCtx {
                    spec: spec.clone(),
                    params: params.to_vec(),
                    probe: pr.clone(),
                    opening,
                    opts: opts.clone(),
                    tag: format!("k{k}p{j}"),
                    seed: opts
                        .seed
                        .wrapping_mul(1_000_003)
                        .wrapping_add((k * pairs + j) as u64 * 2),
                    live: live.cloned(),
                    worker: j % opts.concurrency.max(1),
                    first_game: (k - 1) * opts.games_per_iteration + 2 * j + 1,
                };
                handles.push(tokio::task::spawn_local(play_pair(ctx)));
            }
            for h in handles {
                for score in h.await.context("a tune worker panicked")?? {
                    result += score;
                    wdl[if score > 0.0 {
                        0
                    } else if score < 0.0 {
                        2
                    } else {
                        1
                    }] += 1;
                }
            }
        }
        theta = spsa::update(params, &theta, &sched, &pr, result);
        let row = TraceRow {
            iteration: k,
            theta: theta.clone(),
            result: Some(result),
        };
        // One write per row, flushed: a kill leaves complete rows and at most a torn last one.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&trace_path)
            .with_context(|| format!("cannot open {}", trace_path.display()))?;
        f.write_all(trace_line(&row).as_bytes())
            .and_then(|_| f.flush())
            .with_context(|| format!("cannot write {}", trace_path.display()))?;
        if let Some(l) = live {
            l.iteration(&row, &pr, wdl);
        }
        rows.push(row);
        write_file(
            &opts.out.join("params.txt"),
            &spsa::format_params(params, &theta),
        )?;
        write_mean(&opts.out, params, &rows)?;
        write_file(&opts.out.join("trace.svg"), &plot::svg(params, &rows))?;
        progress.update(k, params, &theta, result);
    }
    progress.finish();
    let mut summary = format!(
        "gougi tune: {} iterations, {} games each; final values:\n",
        opts.iterations, opts.games_per_iteration
    );
    for (p, &t) in params.iter().zip(&theta) {
        summary.push_str(&format!(
            "  {} = {} (start {}, range {}…{})\n",
            p.name,
            p.text(t),
            p.text(p.start),
            p.text(p.min),
            p.text(p.max)
        ));
    }
    // Written here too: a finished run started again (or one from before the file existed)
    // gets it without playing.
    let mean = write_mean(&opts.out, params, &rows)?;
    let done = rows.len() - 1;
    summary.push_str(&format!(
        "mean of iterations {}…{} (the later half; {MEAN_FILE}):\n",
        done / 2 + 1,
        done
    ));
    for (p, &m) in params.iter().zip(&mean) {
        summary.push_str(&format!("  {} = {}\n", p.name, p.text(m)));
    }
    print!("{summary}");
    if let Some(l) = live {
        l.done(&summary);
    }
    println!(
        "trace.csv, params.txt, {MEAN_FILE} and trace.svg in {}",
        opts.out.display()
    );
    Ok(())
}

/// `params-mean.txt`: the mean of the later half of the trace, in the tune-file format.
const MEAN_FILE: &str = "params-mean.txt";

/// Writes [`MEAN_FILE`] in `out`: [`spsa::tail_mean`] of the trace's rows (the start values
/// while there are none), which it returns.
fn write_mean(out: &Path, params: &[Param], rows: &[TraceRow]) -> anyhow::Result<Vec<f64>> {
    let thetas: Vec<&[f64]> = rows.iter().map(|r| r.theta.as_slice()).collect();
    let mean = spsa::tail_mean(&thetas).unwrap_or_else(|| rows[0].theta.clone());
    write_file(&out.join(MEAN_FILE), &spsa::format_params(params, &mean))?;
    Ok(mean)
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// An engine spec with one point's values, and the config copy it may need.
struct PointSpec {
    spec: EngineSpec,
    temp_config: Option<PathBuf>,
}

impl PointSpec {
    fn cleanup(&self) {
        if let Some(p) = &self.temp_config {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// `base` with the values `theta`: options replaced or added, config keys in a copy of the
/// config written next to it (its relative paths are relative to its folder).
fn spec_for(
    base: &EngineSpec,
    params: &[Param],
    theta: &[f64],
    tag: &str,
) -> anyhow::Result<PointSpec> {
    let mut spec = base.clone();
    let mut sets = Vec::new();
    for (p, &t) in params.iter().zip(theta) {
        match &p.target {
            Target::Option(name) => {
                spec.options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                spec.options.push((name.clone(), p.text(t)));
            }
            Target::ConfigKey(key) => sets.push((key.clone(), p.text(t))),
        }
    }
    let mut temp_config = None;
    if !sets.is_empty() {
        let path = config_path(base).expect("checked at start");
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let text = rewrite_config(&crate::config::decode(&bytes), &sets);
        let stem = path
            .file_stem()
            .map_or_else(|| "config".into(), |s| s.to_string_lossy().into_owned());
        let copy = path.with_file_name(format!(".{stem}.tune-{}-{tag}.config", std::process::id()));
        write_file(&copy, &text)?;
        spec.command.args[1] = copy.display().to_string();
        temp_config = Some(copy);
    }
    Ok(PointSpec { spec, temp_config })
}

struct PairCtx {
    spec: EngineSpec,
    params: Vec<Param>,
    probe: Probe,
    opening: Opening,
    opts: TuneOptions,
    tag: String,
    seed: u64,
    live: Option<Rc<live::Live>>,
    /// The live page's board for this pair's games.
    worker: usize,
    /// The number of the pair's first game (from 1, counted over the run).
    first_game: usize,
}

/// Plays θ+ (Black) vs θ− and θ− (Black) vs θ+ from one opening; returns θ+'s score in each
/// game (+1 a win, 0 a draw, −1 a loss).
async fn play_pair(ctx: PairCtx) -> anyhow::Result<[f64; 2]> {
    let plus = spec_for(
        &ctx.spec,
        &ctx.params,
        &ctx.probe.plus,
        &format!("{}-plus", ctx.tag),
    )?;
    let minus = spec_for(
        &ctx.spec,
        &ctx.params,
        &ctx.probe.minus,
        &format!("{}-minus", ctx.tag),
    )?;
    let mut scores = [0.0; 2];
    for (g, plus_color) in [Color::Black, Color::White].into_iter().enumerate() {
        scores[g] = play_one(&ctx, &plus.spec, &minus.spec, plus_color, g as u64).await;
    }
    plus.cleanup();
    minus.cleanup();
    Ok(scores)
}

/// One game; +1 when θ+ wins, −1 when it loses, 0 for a draw. A side whose engine cannot
/// start loses the game (and the reason is logged).
async fn play_one(
    ctx: &PairCtx,
    plus: &EngineSpec,
    minus: &EngineSpec,
    plus_color: Color,
    g: u64,
) -> f64 {
    let n = |c: Color| if c == Color::Black { 1 } else { 2 };
    let mut ep = match Engine::start(plus, n(plus_color), ctx.opts.timeouts).await {
        Ok(e) => e,
        Err(f) => {
            tracing::warn!(tag = %ctx.tag, "θ+ engine failed: {f}");
            return -1.0;
        }
    };
    let mut em = match Engine::start(minus, n(!plus_color), ctx.opts.timeouts).await {
        Ok(e) => e,
        Err(f) => {
            tracing::warn!(tag = %ctx.tag, "θ− engine failed: {f}");
            quit_and_wait(ep).await;
            return 1.0;
        }
    };
    let limits = ctx.spec.limits.apply(ctx.opts.limits);
    let rules = GameRules {
        limits: [limits, limits],
        grace: ctx.opts.grace,
        hang_limit: ctx.opts.hang_limit,
        max_plies: ctx.opts.max_plies,
        nodes_jitter: ctx.opts.nodes_jitter,
        seed: ctx.seed.wrapping_add(g),
        black_view_scores: [ctx.spec.black_view_scores; 2],
        ponder: false,
    };
    let names = if plus_color == Color::Black {
        ["plus".to_owned(), "minus".to_owned()]
    } else {
        ["minus".to_owned(), "plus".to_owned()]
    };
    let players = if plus_color == Color::Black {
        [&mut ep, &mut em]
    } else {
        [&mut em, &mut ep]
    };
    let record = match &ctx.live {
        Some(l) => {
            let mut last = None;
            let game = ctx.first_game + g as usize;
            let shown = names.clone();
            let mut watch = |pos: &crate::shogi::Position, moves: &[game::PlayedMove]| {
                l.board(ctx.worker, game, &shown, pos, moves, &mut last)
            };
            game::play_watched(players, names, &ctx.opening, &rules, &mut watch).await
        }
        None => game::play(players, names, &ctx.opening, &rules).await,
    };
    quit_and_wait(ep).await;
    quit_and_wait(em).await;
    match record {
        Ok(r) => match r.outcome.winner {
            None => 0.0,
            Some(w) if w == plus_color => 1.0,
            Some(_) => -1.0,
        },
        Err(e) => {
            tracing::error!(error = %e, "game could not be set up");
            0.0
        }
    }
}

/// Sends `quit` and gives the engine a second to leave before it is dropped (which kills it):
/// engines live for one pair here, and a drop right after `quit` races the write of `quit`.
async fn quit_and_wait(mut e: Engine) {
    e.quit();
    let until = tokio::time::Instant::now() + Duration::from_secs(1);
    while !e.is_dead() && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(2)).await;
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

    fn update(&self, k: usize, params: &[Param], theta: &[f64], result: f64) {
        if self.quiet {
            return;
        }
        let width = 20;
        let filled = width * k / self.total.max(1);
        let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
        let values: Vec<String> = params
            .iter()
            .zip(theta)
            .map(|(p, &t)| format!("{} {:.2}", p.name, t))
            .collect();
        let line = format!(
            "[{bar}] {k}/{} | last {result:+} | {}",
            self.total,
            values.join(" ")
        );
        if self.tty {
            eprint!("\r\x1b[2K{line}");
        } else {
            let step = (self.total / 20).max(1);
            if k % step == 0 || k == self.total {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<Param> {
        spsa::parse_params("a 5 0 9 1 1\nb 0.5 0 2 0.1 0.1\n").unwrap()
    }

    #[test]
    fn trace_round_trips_and_drops_a_torn_line() {
        let ps = params();
        let mut text = trace_header(&ps);
        let r0 = TraceRow {
            iteration: 0,
            theta: vec![5.0, 0.5],
            result: None,
        };
        let r1 = TraceRow {
            iteration: 1,
            theta: vec![5.25, 0.4375],
            result: Some(-2.0),
        };
        text.push_str(&trace_line(&r0));
        text.push_str(&trace_line(&r1));
        let whole = text.len();
        text.push_str("2,5.5,0.4");
        let (rows, end) = read_trace(&text, &ps).unwrap();
        assert_eq!(rows, vec![r0, r1]);
        assert_eq!(end, whole);
    }

    #[test]
    fn trace_of_another_run_is_refused() {
        let ps = params();
        let e = read_trace("iteration,x,result\n0,1,\n", &ps)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not match"), "{e}");
        let mut t = trace_header(&ps);
        t.push_str("0,5,0.5,\n2,5,0.5,1\n");
        assert!(read_trace(&t, &ps)
            .unwrap_err()
            .to_string()
            .contains("not one run"));
        let mut t = trace_header(&ps);
        t.push_str("0,5,x,\n");
        assert!(read_trace(&t, &ps)
            .unwrap_err()
            .to_string()
            .contains("malformed"));
    }

    #[test]
    fn config_keys_are_replaced_once() {
        let text = "Engine1.Path=builtin:search\nengine2.weight = 1.5\nEngine2.WeightX=3\n";
        let out = rewrite_config(text, &[("Engine2.Weight".into(), "2.25".into())]);
        assert_eq!(
            out,
            "Engine1.Path=builtin:search\nEngine2.WeightX=3\nEngine2.Weight=2.25\n"
        );
    }
}
