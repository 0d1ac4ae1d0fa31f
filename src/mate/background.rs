//! The mate solver in-process, on a thread of its own: [`BackgroundSolve`].
//!
//! For callers that need a mate answer without a `gougi mate` process (the coordinator's
//! `go mate` when no mate engine is configured). It runs the same path as `gougi mate`
//! ([`super::driver::solve_position`]: shortest mate, the rules core verifying the line) with
//! a table of its own, and hands the result to a callback exactly once.
//!
//! Latency: `stop` (or dropping the handle) ends the solve in every phase within a few
//! milliseconds (see [`super::solver`]); only the table's allocation at the start (about
//! 20 ms per 100 MiB, filling the memory) is not interruptible, and is followed by a check of
//! the stop flag before any search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::driver::{solve_position, to_checkmate, DriveOptions};
use super::tt::MateTable;
use crate::usi::Checkmate;

/// The largest table [`BackgroundSolve::spawn`] allocates, in MiB (as `gougi mate`'s
/// `USI_Hash` maximum).
const MAX_HASH_MB: u64 = 1 << 20;

/// A mate solve running on its own thread. Dropping it stops the solve without waiting.
pub struct BackgroundSolve {
    stop: Arc<AtomicBool>,
    /// Never joined (the caller must not block); kept so the thread is named in one place.
    _thread: std::thread::JoinHandle<()>,
}

/// Calls `done` exactly once: with the result, or with `Timeout` if the solver thread unwinds
/// before it has one (a panic), so a caller never waits forever.
struct DoneOnce(Option<Box<dyn FnOnce(Checkmate) + Send>>);

impl DoneOnce {
    fn call(mut self, answer: Checkmate) {
        if let Some(done) = self.0.take() {
            done(answer);
        }
    }
}

impl Drop for DoneOnce {
    fn drop(&mut self) {
        if let Some(done) = self.0.take() {
            tracing::error!("background mate solve ended without a result; answering timeout");
            done(Checkmate::Timeout);
        }
    }
}

impl BackgroundSolve {
    /// Start solving `position` (its side to move is the attacker) for a shortest mate on a
    /// thread of its own (the search itself runs on the solver's large-stack thread), within
    /// `limit` from now (`None`: until [`stop`](Self::stop)), with a table of `hash_mb` MiB
    /// (clamped to 1..=1 TiB). `done` is called exactly once, on the solver thread, with the
    /// result: `Checkmate::Mate(line)` only for a line verified by the rules core,
    /// `Checkmate::NoMate` when disproven, `Checkmate::Timeout` when stopped or out of time
    /// before a mate line was found. If a mate was proven but the shortest-mate proof was cut
    /// short, the line is a verified mate that may not be the shortest. Errors only if the
    /// thread cannot be started (`done` is then dropped uncalled).
    pub fn spawn(
        position: crate::shogi::Position,
        limit: Option<Duration>,
        hash_mb: u64,
        done: Box<dyn FnOnce(Checkmate) + Send>,
    ) -> std::io::Result<BackgroundSolve> {
        let stop = Arc::new(AtomicBool::new(false));
        let deadline = limit.map(|l| Instant::now() + l);
        let megabytes = hash_mb.clamp(1, MAX_HASH_MB) as usize;
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("mate-background".into())
            .spawn(move || {
                let done = DoneOnce(Some(done));
                let mut table = MateTable::new(megabytes);
                if flag.load(Ordering::Relaxed) {
                    done.call(Checkmate::Timeout);
                    return;
                }
                let (outcome, stats) = solve_position(
                    &position,
                    &mut table,
                    deadline,
                    &flag,
                    DriveOptions::default(),
                    None,
                );
                tracing::debug!(
                    nodes = stats.nodes,
                    ms = stats.elapsed.as_millis() as u64,
                    "background mate solve"
                );
                // Answer before the table is freed (freeing a large table takes a moment).
                done.call(to_checkmate(&outcome));
                drop(table);
            })?;
        Ok(BackgroundSolve {
            stop,
            _thread: thread,
        })
    }

    /// Ask the solve to stop; returns at once, `done` follows within about 10 ms.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Drop for BackgroundSolve {
    fn drop(&mut self) {
        // Stop, never join: the caller (the coordinator's loop) must not block.
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mate::problems::{parse_problems, verify_mate_line};
    use crate::shogi::Position;
    use std::sync::mpsc;

    fn problem(file: &str, expected: Option<u16>) -> Position {
        let path = format!("{}/tests/data/tsume/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let p = parse_problems(&text)
            .unwrap()
            .into_iter()
            .find(|p| p.expected == expected)
            .unwrap();
        Position::from_sfen(&p.sfen).unwrap()
    }

    /// Spawn a solve whose result arrives on the returned channel.
    fn start(
        pos: &Position,
        limit: Option<Duration>,
    ) -> (BackgroundSolve, mpsc::Receiver<Checkmate>) {
        let (tx, rx) = mpsc::channel();
        let solve = BackgroundSolve::spawn(
            pos.clone(),
            limit,
            16,
            Box::new(move |c| tx.send(c).unwrap()),
        )
        .unwrap();
        (solve, rx)
    }

    fn mate_length(pos: &Position, answer: Checkmate) -> usize {
        let Checkmate::Mate(line) = answer else {
            panic!("expected a mate, got {answer:?}");
        };
        let text: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        verify_mate_line(pos, &text).unwrap()
    }

    #[test]
    fn mates_in_one_and_three_have_lines_of_their_length() {
        for (file, len) in [
            ("antma_edge_cases.txt", 1),
            ("yaneuraou_mate_db_heads.txt", 3),
            ("tsumepara_kanna.txt", 13),
        ] {
            let pos = problem(file, Some(len));
            let (_solve, rx) = start(&pos, Some(Duration::from_secs(30)));
            let answer = rx.recv_timeout(Duration::from_secs(60)).unwrap();
            assert_eq!(mate_length(&pos, answer), len as usize, "{file}");
            // Exactly once: the sender is gone after the one answer.
            assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
        }
    }

    #[test]
    fn a_position_without_a_check_is_nomate() {
        let pos = Position::from_usi_position("startpos").unwrap();
        let (_solve, rx) = start(&pos, None);
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(10)).unwrap(),
            Checkmate::NoMate
        );
    }

    #[test]
    fn stop_limit_and_drop_end_a_long_solve_promptly() {
        // 寿 (611 plies): far beyond any of these waits.
        let pos = problem("long_famous.txt", Some(611));
        let (solve, rx) = start(&pos, None);
        std::thread::sleep(Duration::from_millis(200));
        assert!(rx.try_recv().is_err(), "still solving");
        let asked = Instant::now();
        solve.stop();
        let answer = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let latency = asked.elapsed();
        assert_eq!(answer, Checkmate::Timeout);
        // Generous for loaded test machines; the solver polls about every millisecond.
        assert!(
            latency < Duration::from_millis(300),
            "stop took {latency:?}"
        );

        let started = Instant::now();
        let (_solve, rx) = start(&pos, Some(Duration::from_millis(200)));
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(5)).unwrap(),
            Checkmate::Timeout
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(200) && took < Duration::from_millis(600),
            "a 200 ms limit took {took:?}"
        );

        let (solve, rx) = start(&pos, None);
        std::thread::sleep(Duration::from_millis(50));
        let dropped = Instant::now();
        drop(solve);
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(5)).unwrap(),
            Checkmate::Timeout
        );
        assert!(dropped.elapsed() < Duration::from_millis(300));
    }
}
