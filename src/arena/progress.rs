//! The match's progress line on stderr, and the log writer that keeps log lines out of it.
//!
//! On a terminal the line is redrawn in place (`\r`, erase line); every pairing's score is on
//! it, cut to the terminal's width so it never wraps (a wrapped line cannot be redrawn in
//! place). Elsewhere (a pipe, a file) a full line is printed every ~5 % of the games.
//!
//! A log line written while the bar is shown would land in the middle of it. [`LogWriter`] (the
//! writer `gougi match` gives `tracing`) erases the bar, writes the log line, and draws the bar
//! again below it, so logs scroll above the bar.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use super::report::{pair_brief, pair_line, PairResult};

/// The bar as last drawn on a terminal; `None` when no bar is on screen.
static BAR: Mutex<Option<String>> = Mutex::new(None);

/// What goes to stderr for one log record: erase the bar, the log text, the bar again.
pub fn compose(bar: Option<&str>, log: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(log.len() + bar.map_or(0, str::len) + 8);
    match bar {
        Some(b) => {
            out.extend_from_slice(b"\r\x1b[2K");
            out.extend_from_slice(log);
            if !log.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.extend_from_slice(b.as_bytes());
        }
        None => out.extend_from_slice(log),
    }
    out
}

/// A `tracing` writer for stderr that keeps log lines above the progress bar.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // The formatter hands over one whole record per write; the bar's lock keeps it from
        // interleaving with a redraw.
        let bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        err.write_all(&compose(bar.as_deref(), buf))?;
        err.flush()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogWriter;
    fn make_writer(&'a self) -> LogWriter {
        LogWriter
    }
}

/// The terminal's width in columns (80 when unknown).
fn terminal_width() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a plain struct; stderr is a terminal when this is called.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut ws) };
        if r == 0 && ws.ws_col > 0 {
            return usize::from(ws.ws_col);
        }
    }
    80
}

/// The progress line: the bar, the count, and every pairing's score.
pub fn line(done: usize, total: usize, names: &[String], results: &[PairResult]) -> String {
    let width = 20;
    let filled = (width * done / total.max(1)).min(width);
    let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
    let mut s = format!("[{bar}] {done}/{total}");
    if let [only] = results {
        s.push_str(" | ");
        s.push_str(&pair_line(names, only));
    } else {
        for p in results {
            s.push_str(" | ");
            s.push_str(&pair_brief(names, p));
        }
    }
    s
}

/// The progress display of one match.
pub struct Progress {
    total: usize,
    tty: bool,
    quiet: bool,
}

impl Progress {
    pub fn new(total: usize, quiet: bool) -> Progress {
        Progress {
            total,
            tty: std::io::stderr().is_terminal(),
            quiet,
        }
    }

    pub fn update(&self, done: usize, names: &[String], results: &[PairResult]) {
        if self.quiet {
            return;
        }
        let text = line(done, self.total, names, results);
        if self.tty {
            let cols = terminal_width().saturating_sub(1).max(10);
            let text: String = text.chars().take(cols).collect();
            let mut bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{text}");
            let _ = err.flush();
            *bar = Some(text);
        } else {
            let step = (self.total / 20).max(1);
            if done % step == 0 || done == self.total {
                eprintln!("{text}");
            }
        }
    }

    /// Ends the bar (a newline after it); later logs print plainly.
    pub fn finish(&self) {
        let mut bar = BAR.lock().unwrap_or_else(|e| e.into_inner());
        if bar.take().is_some() {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_go_above_the_bar() {
        let out = compose(Some("[##--] 2/4"), b"WARN engine died\n");
        assert_eq!(out, b"\r\x1b[2KWARN engine died\n[##--] 2/4".to_vec());
        // Without a bar the log passes unchanged.
        assert_eq!(compose(None, b"x\n"), b"x\n".to_vec());
    }

    #[test]
    fn the_line_shows_every_pairing() {
        let names: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
        let mut ab = PairResult::new(0, 1);
        ab.add(1.0, true);
        let mut ac = PairResult::new(0, 2);
        ac.add(0.5, false);
        let bc = PairResult::new(1, 2);
        let l = line(2, 6, &names, &[ab, ac, bc]);
        assert_eq!(
            l,
            "[######--------------] 2/6 | A-B +1 =0 -0 | A-C +0 =1 -0 | B-C +0 =0 -0"
        );
    }
}
