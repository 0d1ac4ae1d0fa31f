//! [`LineReader`]: lines from a member's pipe, robust against whatever a member prints.
//!
//! Why not `AsyncBufReadExt::lines`: it fails on invalid UTF-8 (a CP932 banner would end the
//! member) and buffers an endless line without bound. Here invalid bytes are replaced (U+FFFD),
//! a line longer than [`MAX_LINE`] bytes is cut there (the rest up to the newline is dropped,
//! with a warning), and `\r\n` and `\n` both end a line.
//!
//! [`LineReader::next_line`] is cancel-safe: a partial line stays in the reader when the future
//! is dropped (the actor's `select!` relies on this).

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The longest line kept, in bytes. USI lines are short; a PV of 500 moves is ~3 KB.
pub const MAX_LINE: usize = 64 * 1024;

/// Reads lines from `R`; `Ok(None)` at end of file.
pub struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    /// The current line passed `MAX_LINE`; its rest is skipped.
    overflow: bool,
    /// Bytes of the current line were seen (so an unterminated last line is still returned).
    started: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            inner: BufReader::new(reader),
            buf: Vec::new(),
            overflow: false,
            started: false,
        }
    }

    /// The next line without its terminator, `Ok(None)` at end of file.
    pub async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if !self.started {
                    return Ok(None);
                }
                return Ok(Some(self.take_line()));
            }
            self.started = true;
            let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            let room = MAX_LINE.saturating_sub(self.buf.len());
            if chunk.len() > room {
                self.overflow = true;
            }
            self.buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.inner.consume(used);
            if done {
                return Ok(Some(self.take_line()));
            }
        }
    }

    fn take_line(&mut self) -> String {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let line = String::from_utf8_lossy(&self.buf).into_owned();
        if self.overflow {
            tracing::warn!(
                kept = line.len(),
                "line longer than {MAX_LINE} bytes cut short"
            );
        }
        self.buf.clear();
        self.overflow = false;
        self.started = false;
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all_lines(bytes: &[u8]) -> Vec<String> {
        let mut r = LineReader::new(bytes);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().await.unwrap() {
            out.push(l);
        }
        // EOF is sticky.
        assert_eq!(r.next_line().await.unwrap(), None);
        out
    }

    #[tokio::test]
    async fn splits_and_tolerates() {
        assert_eq!(
            all_lines(b"usiok\r\n\nreadyok\nlast").await,
            vec!["usiok", "", "readyok", "last"]
        );
        assert_eq!(all_lines(b"").await, Vec::<String>::new());
        assert_eq!(all_lines(b"a\xffb\n").await, vec!["a\u{fffd}b"]);
    }

    #[tokio::test]
    async fn long_line_is_cut() {
        let mut bytes = vec![b'x'; MAX_LINE + 10];
        bytes.extend_from_slice(b"\nnext\n");
        let lines = all_lines(&bytes).await;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "next");
    }
}
