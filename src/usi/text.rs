//! Lines as bytes: what arrives on a USI pipe is not guaranteed to be UTF-8.
//!
//! A Japanese Windows GUI sends `setoption` values (file names, engine names) in CP932, and
//! Japanese engines print `info string` and `id name` in CP932. A reader that insists on UTF-8
//! either ends at the first such byte (Rust's `lines()` returns an error, and a loop that stops
//! on errors stops the engine) or turns every byte into U+FFFD. Here a line is decoded as UTF-8
//! when it is valid UTF-8, else as CP932 when that decodes without errors, else lossily as
//! UTF-8 — never an error. [`StdinLines`] reads the process's stdin this way on its own thread,
//! for the built-in engines (`gougi search`, `gougi mate`).

use std::io::{BufRead, Read};
use std::sync::mpsc;

/// Decode one line's bytes (without its terminator): UTF-8, then CP932, then lossy UTF-8.
/// A trailing `\r` is dropped, so `\r\n` and `\n` both end a line.
pub fn decode_line(bytes: &[u8]) -> String {
    decode_line_tagged(bytes).0
}

/// [`decode_line`], also telling whether the line was read as CP932 (so what goes on to a
/// member can be written back in CP932: a Windows engine expects the bytes its GUI sends).
pub fn decode_line_tagged(bytes: &[u8]) -> (String, bool) {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if let Ok(s) = std::str::from_utf8(bytes) {
        return (s.to_owned(), false);
    }
    let (text, _, had_errors) = encoding_rs::SHIFT_JIS.decode(bytes);
    if !had_errors {
        return (text.into_owned(), true);
    }
    (String::from_utf8_lossy(bytes).into_owned(), false)
}

/// The longest GUI line kept, in bytes; the rest up to the newline is dropped. A `position`
/// with 1,000 moves is about 5 KB.
pub const MAX_GUI_LINE: usize = 256 * 1024;

/// Read lines from `reader` on the current thread and send them, decoded with
/// [`decode_line`], until end of input or a read error (both end the stream; the receiver sees
/// the channel close). Lines longer than [`MAX_GUI_LINE`] are cut.
pub fn pump_lines<R: Read>(reader: R, tx: &mpsc::Sender<String>) {
    let mut reader = std::io::BufReader::new(reader);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_capped_line(&mut reader, &mut buf) {
            Ok(0) => return,
            Ok(_) => {
                let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
                if tx.send(decode_line(line)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
}

/// `read_until(b'\n')` that keeps at most [`MAX_GUI_LINE`] bytes of a line (an endless line
/// without a newline must not grow memory without bound). Returns the bytes consumed.
fn read_capped_line<R: BufRead>(reader: &mut R, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(consumed);
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..=i], i + 1, true),
            None => (available, available.len(), false),
        };
        let room = MAX_GUI_LINE.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if done && !buf.ends_with(b"\n") {
            buf.push(b'\n');
        }
        reader.consume(used);
        consumed += used;
        if done {
            return Ok(consumed);
        }
    }
}

/// The process's stdin as decoded lines, read on a thread of its own so that a search can go
/// on while the next command (`stop`, `ponderhit`) is read.
pub struct StdinLines;

impl StdinLines {
    /// Start the reader thread. The channel closes at end of input.
    pub fn spawn() -> std::io::Result<mpsc::Receiver<String>> {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("usi-stdin".into())
            .spawn(move || pump_lines(std::io::stdin().lock(), &tx))?;
        Ok(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_cp932_and_garbage_all_decode() {
        assert_eq!(decode_line(b"usi"), "usi");
        assert_eq!(decode_line(b"isready\r"), "isready");
        assert_eq!(decode_line("名前".as_bytes()), "名前");
        // 日 in CP932 is 93 fa.
        assert_eq!(
            decode_line(b"setoption name USI_Hash value \x93\xfa"),
            "setoption name USI_Hash value 日"
        );
        // Neither encoding: lossy, never an error.
        assert_eq!(decode_line(b"a\xff\xffb"), "a\u{fffd}\u{fffd}b");
    }

    #[test]
    fn pump_splits_lines_and_survives_bad_bytes() {
        let (tx, rx) = mpsc::channel();
        pump_lines(&b"usi\r\n\x93\xfa\nlast"[..], &tx);
        drop(tx);
        let got: Vec<String> = rx.iter().collect();
        assert_eq!(got, vec!["usi", "日", "last"]);
    }

    #[test]
    fn an_endless_line_is_cut() {
        let (tx, rx) = mpsc::channel();
        let mut bytes = vec![b'x'; MAX_GUI_LINE + 100];
        bytes.extend_from_slice(b"\nquit\n");
        pump_lines(&bytes[..], &tx);
        drop(tx);
        let got: Vec<String> = rx.iter().collect();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].len(), MAX_GUI_LINE);
        assert_eq!(got[1], "quit");
    }
}
