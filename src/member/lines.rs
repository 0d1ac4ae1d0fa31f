//! [`LineReader`]: lines from a member's pipe, robust against whatever a member prints.
//!
//! Why not `AsyncBufReadExt::lines`: it fails on invalid UTF-8 (a CP932 banner would end the
//! member) and buffers an endless line without bound. Here a line is decoded by
//! [`decode_line`] (UTF-8, else CP932 — Japanese engines print `info string` in it — else
//! lossily), each run of undecodable bytes becomes a single U+FFFD (so binary garbage is not
//! relayed as a wall of them), a line longer than [`MAX_LINE`] bytes is cut there (the rest up
//! to the newline is dropped, with a warning), and `\r\n` and `\n` both end a line.
//!
//! [`LineReader::next_line`] is cancel-safe: a partial line stays in the reader when the future
//! is dropped (the actor's `select!` relies on this).

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use crate::usi::text::decode_line_tagged;

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
    /// The last line returned was read as CP932.
    last_cp932: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(reader: R) -> LineReader<R> {
        LineReader {
            inner: BufReader::new(reader),
            buf: Vec::new(),
            overflow: false,
            started: false,
            last_cp932: false,
        }
    }

    /// Whether the last line [`next_line`](Self::next_line) returned was read as CP932.
    pub fn last_was_cp932(&self) -> bool {
        self.last_cp932
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
        if self.overflow {
            // The cut may split a UTF-8 character: drop the partial tail, so a UTF-8 line is
            // not misread as CP932 for its last byte.
            if let Err(e) = std::str::from_utf8(&self.buf) {
                if e.error_len().is_none() {
                    self.buf.truncate(e.valid_up_to());
                }
            }
        }
        let (line, cp932) = decode_line_tagged(&self.buf);
        self.last_cp932 = cp932;
        let line = collapse_replacements(line);
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

/// Each run of U+FFFD (what undecodable bytes became) as a single U+FFFD: a line of binary
/// garbage is relayed as a few characters, not a wall of a thousand.
fn collapse_replacements(line: String) -> String {
    if !line.contains("\u{fffd}\u{fffd}") {
        return line;
    }
    let mut out = String::with_capacity(line.len());
    let mut previous = None;
    for ch in line.chars() {
        if !(ch == '\u{fffd}' && previous == Some(ch)) {
            out.push(ch);
        }
        previous = Some(ch);
    }
    out
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
    async fn cp932_decodes_and_garbage_is_not_a_wall_of_replacement_characters() {
        // A Japanese engine's CP932 `info string` (日本 is 93 fa 96 7b).
        assert_eq!(
            all_lines(b"info string \x93\xfa\x96\x7b\r\n").await,
            vec!["info string 日本"]
        );
        // Bytes that are neither UTF-8 nor CP932: each run of U+FFFD is one character.
        let mut garbage = b"info string ".to_vec();
        garbage.extend(std::iter::repeat_n(0xffu8, 1000));
        garbage.extend_from_slice(b" ok \xff\xfe end\n");
        assert_eq!(
            all_lines(&garbage).await,
            vec!["info string \u{fffd} ok \u{fffd} end"]
        );
        // Valid UTF-8 is untouched.
        assert_eq!(
            all_lines("id name 技巧\n".as_bytes()).await,
            vec!["id name 技巧"]
        );
    }

    #[tokio::test]
    async fn long_line_is_cut() {
        let mut bytes = vec![b'x'; MAX_LINE + 10];
        bytes.extend_from_slice(b"\nnext\n");
        let lines = all_lines(&bytes).await;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "next");
        // A cut inside a UTF-8 character keeps the whole characters before it (not a CP932
        // reading of the whole line).
        let mut bytes = "日".repeat(MAX_LINE / 3 + 10).into_bytes();
        bytes.push(b'\n');
        let lines = all_lines(&bytes).await;
        assert_eq!(lines, vec!["日".repeat(MAX_LINE / 3)]);
    }
}
