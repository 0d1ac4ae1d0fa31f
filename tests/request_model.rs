//! The request model's property test (issue 49): random sessions — ponder hits and misses,
//! `go infinite`/`stop`, `go mate`, zero clocks, sudden death, Fischer, byoyomi 0–30 s,
//! members thinking 0–60 s and unwinding `stop` for up to 2.5 s, members that hang or crash —
//! through the real coordinator with scripted members under paused time, checked after every
//! step against a model of each member's requests (`gougi::gougi::request_model`).
//!
//! CI runs a fixed set of seeds (1 to [`SEEDS`]), so every machine covers the same sessions
//! however fast it is; exploring further is a run by hand, for a bounded time, from the seeds
//! after those: `cargo test --release --test request_model explore -- --ignored --nocapture`
//! (`REQUEST_MODEL_SECS`, 600 s by default; `REQUEST_MODEL_SEED`, the first seed). A failure
//! prints its seed and the conversation, and the seeds that found bugs are kept below as their
//! own tests. The fuzz target `request_model` draws the same sessions from the fuzzer's bytes.

use std::time::{Duration, Instant};

use gougi::gougi::request_model::{run_session, Report, Seeded};

/// Steps per session: enough for several games' worth of rounds, ponder misses and restarts.
const STEPS: u32 = 40;

/// The seeds CI runs: about what the old 20 s run covered on an idle core. Measured
/// (2026-12-07, dev profile, shared 2 cores at load 10): 21.5 s of CPU (16.4 user, 5.1 sys), so
/// about 11 s on two idle cores; 50 s at that load.
const SEEDS: u64 = 2400;

fn session(seed: u64) -> Result<Report, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    rt.block_on(run_session(&mut Seeded::new(seed), STEPS))
        .map_err(|e| format!("seed {seed}: {e}"))
}

/// Sessions from seed `first` on, while `more(seed)`, on one thread per core (each seed's
/// session is the same on any thread: its own runtime, its own paused clock). Prints the totals
/// and returns how many ran; a failing session panics with its seed (the lowest, if several).
fn sessions(first: u64, more: impl Fn(u64) -> bool + Sync) -> u64 {
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let runs: Vec<Result<(u64, Report), (u64, String)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let more = &more;
                scope.spawn(move || {
                    let (mut ran, mut total) = (0, Report::default());
                    let mut seed = first + t;
                    while more(seed) {
                        total.add(&session(seed).map_err(|e| (seed, e))?);
                        ran += 1;
                        seed += threads;
                    }
                    Ok((ran, total))
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a session thread"))
            .collect()
    });
    if let Some((_, e)) = runs.iter().filter_map(|r| r.as_ref().err()).min() {
        panic!("{e}");
    }
    let (mut ran, mut total) = (0, Report::default());
    for (n, report) in runs.iter().flatten() {
        ran += n;
        total.add(report);
    }
    println!(
        "request model: {ran} sessions from seed {first} on {threads} threads, {} steps, {} gos, {} ponder hits, {} misses, {} infinite, {} go mate, {} fallbacks, {} restarts of faulty members, {:.1} h virtual in {:.1?}",
        total.steps,
        total.gos,
        total.ponder_hits,
        total.ponder_misses,
        total.infinite,
        total.mates,
        total.fallbacks,
        total.restarts,
        total.virtual_time.as_secs_f64() / 3600.0,
        started.elapsed()
    );
    ran
}

#[test]
fn random_sessions_keep_the_coordinator_and_the_model_in_step() {
    assert_eq!(sessions(1, |seed| seed <= SEEDS), SEEDS);
}

/// `name` parsed, or `default`.
fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The exploration: sessions beyond CI's seeds for `REQUEST_MODEL_SECS`.
#[test]
#[ignore = "exploration by hand: REQUEST_MODEL_SECS (600), from REQUEST_MODEL_SEED (after CI's)"]
fn explore() {
    let until = Instant::now() + Duration::from_secs(env_or("REQUEST_MODEL_SECS", 600));
    let first = env_or("REQUEST_MODEL_SEED", SEEDS + 1);
    assert!(sessions(first, |_| Instant::now() < until) >= 1);
}

/// Seed 4 (a `mate` session: one member unwinding `stop` for 2.5 s, a guard mate member)
/// found the per-member stop time of dd20d2f, put back into the hang clock on purpose: the
/// member was killed 3 s after a ponder miss's `stop` while it answered every `stop` in time.
#[test]
fn seed_4_a_slow_member_after_a_ponder_miss() {
    session(4).unwrap_or_else(|e| panic!("{e}"));
}

/// Seed 2 (three members, a guard, `stop` latencies up to 2.5 s) found that a member's answer
/// and gougi's `stop` can cross in the pipes: the model now allows a `stop` that reaches a
/// member at the instant it answered, and nothing else.
#[test]
fn seed_2_an_answer_and_a_stop_cross() {
    session(2).unwrap_or_else(|e| panic!("{e}"));
}
