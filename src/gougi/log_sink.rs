//! Where log lines go: a thread of their own, so that writing a log line never waits on a
//! reader.
//!
//! A GUI starts gougi with stderr piped and may never read it: ShogiHome (the GUI and its
//! `usi-csa-bridge`) does not. A pipe holds 64 KiB on Linux and may hold far less on Windows;
//! once it is full a plain `write` to stderr blocks, and with it the coordinator, which then
//! answers neither `readyok` nor `bestmove` (issue 65: 556 warnings, about 82 KB, hung it).
//!
//! So the `tracing` subscriber hands each formatted line to a bounded queue and returns; one
//! thread writes the queue out. When the queue is full:
//! - to stderr the line is **dropped** and counted, and the next line that finds room carries
//!   the count before it (`gougi: N log lines dropped: …`), where the gap is, so a reader who
//!   comes late knows lines are missing. A stderr nobody reads costs gougi one queue and one blocked thread, never
//!   a move.
//! - to a log file (`Log.File`, `GOUGI_LOG_FILE`) the line **waits** for room: the user asked
//!   for every line there, and a file does not stop accepting writes the way an unread pipe
//!   does.
//!
//! Writing through a thread also takes the write's system call off the coordinator's path.
//! Lines still queued when the process ends are lost unless [`drain`] is called first (the
//! proxy and the built-in engines drain for up to [`DRAIN_AT_EXIT`] on their way out).

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Lines queued before the queue is full.
pub const QUEUE_LINES: usize = 1024;

/// Bytes queued for stderr before new lines are dropped: the queue's memory stays bounded
/// however long the lines are (a member's 10 KB `info string`, logged at `trace`). At ~150
/// bytes a warning that is ~1,700 warnings, more than many games of gougi's usual log (0–989
/// bytes a game through a CSA bridge).
pub const QUEUE_BYTES: u64 = 256 * 1024;

/// How long the end of a run waits for queued lines to be written.
pub const DRAIN_AT_EXIT: Duration = Duration::from_millis(200);

/// What a full queue does to a new line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Drop it and count it (stderr: a pipe nobody reads is full for ever).
    Drop,
    /// Wait for room (a file: it accepts writes again within a disk's latency).
    Wait,
}

/// The sending end: cheap to clone, one per `tracing` event.
#[derive(Clone)]
pub struct LogSink {
    tx: SyncSender<Vec<u8>>,
    shared: Arc<Shared>,
    when_full: WhenFull,
    /// [`QUEUE_BYTES`], or less in tests.
    bytes: u64,
}

/// Counters shared with the writer thread.
#[derive(Default)]
struct Shared {
    /// Lines dropped since the last notice was written.
    dropped: AtomicU64,
    /// Lines accepted and not yet written.
    pending: AtomicU64,
    /// Their bytes.
    pending_bytes: AtomicU64,
}

/// The sink the process logs through, for [`drain`].
static CURRENT: OnceLock<LogSink> = OnceLock::new();

impl LogSink {
    /// Starts the writer thread over `out`. `None` if the thread cannot be started.
    pub fn start(out: Box<dyn Write + Send>, when_full: WhenFull) -> Option<LogSink> {
        Self::with_capacity(out, when_full, QUEUE_LINES, QUEUE_BYTES)
    }

    /// [`LogSink::start`] with a queue of `lines` lines and `bytes` bytes (tests use small ones).
    pub fn with_capacity(
        out: Box<dyn Write + Send>,
        when_full: WhenFull,
        lines: usize,
        bytes: u64,
    ) -> Option<LogSink> {
        let (tx, rx) = sync_channel(lines);
        let shared = Arc::new(Shared::default());
        let writer_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("log".into())
            .spawn(move || write_out(rx, out, &writer_shared))
            .ok()?;
        Some(LogSink {
            tx,
            shared,
            when_full,
            bytes,
        })
    }

    /// Makes this the sink [`drain`] waits for (the first call wins).
    pub fn install(&self) {
        let _ = CURRENT.set(self.clone());
    }

    /// Lines dropped so far and not yet reported by a notice.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Waits until every accepted line is written, or `timeout` passes. Whether it drained.
    pub fn drain(&self, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while self.shared.pending.load(Ordering::Acquire) > 0 {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    fn send(&self, mut line: Vec<u8>) {
        if self.when_full == WhenFull::Wait {
            self.shared.pending.fetch_add(1, Ordering::AcqRel);
            if self.tx.send(line).is_err() {
                self.shared.pending.fetch_sub(1, Ordering::AcqRel);
            }
            return;
        }
        // The lines dropped before this one are reported just before it, where the gap is.
        let dropped = self.shared.dropped.swap(0, Ordering::AcqRel);
        if dropped > 0 {
            let mut notice = format!(
                "gougi: {dropped} log line{} dropped: nobody read stderr (set Log.File to keep \
                 every line)\n",
                if dropped == 1 { "" } else { "s" }
            )
            .into_bytes();
            notice.append(&mut line);
            line = notice;
        }
        let bytes = line.len() as u64;
        let queued = self.shared.pending_bytes.fetch_add(bytes, Ordering::AcqRel);
        self.shared.pending.fetch_add(1, Ordering::AcqRel);
        // One line always fits an empty queue, however long.
        let sent = (queued == 0 || queued + bytes <= self.bytes)
            && match self.tx.try_send(line) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            };
        if !sent {
            self.shared.pending.fetch_sub(1, Ordering::AcqRel);
            self.shared.pending_bytes.fetch_sub(bytes, Ordering::AcqRel);
            self.shared.dropped.fetch_add(dropped + 1, Ordering::AcqRel);
        }
    }
}

/// The writer thread: each line as it comes.
/// A failed write (a closed pipe) is not retried: there is nobody to tell.
fn write_out(rx: Receiver<Vec<u8>>, mut out: Box<dyn Write + Send>, shared: &Shared) {
    for line in rx {
        let _ = out.write_all(&line);
        let _ = out.flush();
        shared
            .pending_bytes
            .fetch_sub(line.len() as u64, Ordering::AcqRel);
        shared.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One event's bytes: `tracing`'s formatter writes each event whole with one `write_all`.
impl Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.send(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Waits up to `timeout` for the installed sink's queued lines to be written (at the end of a
/// run, so the last lines are not lost). Without a sink, returns at once.
pub fn drain(timeout: Duration) {
    if let Some(sink) = CURRENT.get() {
        sink.drain(timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A writer that blocks until the test lets it go, then records what it got.
    struct Gate {
        open: Arc<(Mutex<bool>, std::sync::Condvar)>,
        got: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (lock, cv) = &*self.open;
            let mut open = lock.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
            self.got.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_blocked_reader_drops_lines_with_a_count_and_never_blocks_the_logger() {
        let open = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let got = Arc::new(Mutex::new(Vec::new()));
        let gate = Gate {
            open: Arc::clone(&open),
            got: Arc::clone(&got),
        };
        let mut sink = LogSink::with_capacity(Box::new(gate), WhenFull::Drop, 4, 1 << 20).unwrap();
        let started = Instant::now();
        for i in 0..1000 {
            sink.write_all(format!("line {i}\n").as_bytes()).unwrap();
        }
        // 1,000 lines into a writer that never returns: the logger went on regardless.
        assert!(started.elapsed() < Duration::from_secs(2));
        // One line is in the blocked write, four in the queue; the rest were dropped.
        assert!((995..=996).contains(&sink.dropped()), "{}", sink.dropped());
        *open.0.lock().unwrap() = true;
        open.1.notify_all();
        assert!(sink.drain(Duration::from_secs(5)));
        sink.write_all(b"after\n").unwrap();
        assert!(sink.drain(Duration::from_secs(5)));
        let text = String::from_utf8(got.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "line 0");
        let notice = lines
            .iter()
            .find(|l| l.contains("dropped"))
            .expect("a notice");
        let n: u64 = notice
            .trim_start_matches("gougi: ")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // Every line is either written or counted.
        let written = lines.iter().filter(|l| l.starts_with("line ")).count() as u64;
        assert_eq!(written + n, 1000, "{text}");
        assert_eq!(lines.last(), Some(&"after"));
    }

    #[test]
    fn long_lines_are_bounded_by_bytes() {
        let open = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let got = Arc::new(Mutex::new(Vec::new()));
        let gate = Gate {
            open: Arc::clone(&open),
            got,
        };
        let mut sink =
            LogSink::with_capacity(Box::new(gate), WhenFull::Drop, 1024, 10_000).unwrap();
        let line = format!("{}\n", "x".repeat(999));
        for _ in 0..100 {
            sink.write_all(line.as_bytes()).unwrap();
        }
        // 10,000 bytes hold ten 1,000-byte lines (one of them maybe in the blocked write, so
        // an eleventh fits): 89 or 90 dropped, not 0 as a count of lines alone would allow.
        assert!((89..=90).contains(&sink.dropped()), "{}", sink.dropped());
        *open.0.lock().unwrap() = true;
        open.1.notify_all();
    }

    #[test]
    fn a_file_sink_keeps_every_line() {
        let open = Arc::new((Mutex::new(true), std::sync::Condvar::new()));
        let got = Arc::new(Mutex::new(Vec::new()));
        let gate = Gate {
            open,
            got: Arc::clone(&got),
        };
        let mut sink = LogSink::with_capacity(Box::new(gate), WhenFull::Wait, 2, 1 << 20).unwrap();
        for i in 0..500 {
            sink.write_all(format!("line {i}\n").as_bytes()).unwrap();
        }
        assert!(sink.drain(Duration::from_secs(5)));
        let text = String::from_utf8(got.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 500);
        assert_eq!(sink.dropped(), 0);
    }
}
