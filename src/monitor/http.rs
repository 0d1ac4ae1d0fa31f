//! Just enough HTTP/1.1 for a monitor page: read one request head (bounded), answer `GET`.
//!
//! Pure functions over bytes, so every refusal is tested without sockets: a head over
//! [`MAX_HEAD`] bytes, a method other than `GET`, a target that is not an origin path, a
//! version that is not HTTP/1.x, bytes that are not text, or (on a loopback server) a `Host`
//! that is not a loopback name are each answered with a status and the connection closed.
//! Nothing here panics on input.

use std::fmt;

/// The longest request head read (request line and headers). Browsers send well under 2 KB.
pub const MAX_HEAD: usize = 8 * 1024;

/// A request gougi serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The path without the query (`/`, `/events`, `/state.json`).
    pub path: String,
    /// The query after `?`, as sent (may be empty).
    pub query: String,
}

impl Request {
    /// The value of `key` in the query (`stream=2` → `query_value("stream") == Some("2")`).
    pub fn query_value(&self, key: &str) -> Option<&str> {
        self.query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// Why a request is refused: the status line's code and reason, and a short text body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    BadRequest(&'static str),
    MethodNotAllowed,
    HeadTooLarge,
    /// A `Host` that is not the loopback server's own: a web page may not read the monitor by
    /// pointing a name it controls at 127.0.0.1 (DNS rebinding).
    ForbiddenHost,
    NotFound,
    /// Too many connections at once.
    Busy,
}

impl Refusal {
    pub fn status(self) -> (u16, &'static str) {
        match self {
            Refusal::BadRequest(_) => (400, "Bad Request"),
            Refusal::MethodNotAllowed => (405, "Method Not Allowed"),
            Refusal::HeadTooLarge => (431, "Request Header Fields Too Large"),
            Refusal::ForbiddenHost => (403, "Forbidden"),
            Refusal::NotFound => (404, "Not Found"),
            Refusal::Busy => (503, "Service Unavailable"),
        }
    }

    /// The whole response: status, a text body saying why, `Connection: close`.
    pub fn response(self) -> Vec<u8> {
        let (code, reason) = self.status();
        let body = format!("{code} {reason}: {self}\n");
        let allow = if self == Refusal::MethodNotAllowed {
            "Allow: GET\r\n"
        } else {
            ""
        };
        format!(
            "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\n{allow}Connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadRequest(why) => write!(f, "{why}"),
            Refusal::MethodNotAllowed => write!(f, "only GET is served"),
            Refusal::HeadTooLarge => write!(f, "request head over {MAX_HEAD} bytes"),
            Refusal::ForbiddenHost => write!(f, "Host is not this loopback server"),
            Refusal::NotFound => write!(f, "the pages are /, /events and /state.json"),
            Refusal::Busy => write!(f, "too many connections; try again"),
        }
    }
}

/// Where the head ends (the index after `\r\n\r\n`, or after `\n\n` from a lax client), if it
/// is complete in `buf`.
pub fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Parses a complete head. `loopback`: the server listens on a loopback address, so the
/// `Host` header (when present) must name a loopback host or an IP literal.
pub fn parse(head: &[u8], loopback: bool) -> Result<Request, Refusal> {
    if head.len() > MAX_HEAD {
        return Err(Refusal::HeadTooLarge);
    }
    let text = std::str::from_utf8(head).map_err(|_| Refusal::BadRequest("head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Refusal::BadRequest(
            "request line is not METHOD TARGET VERSION",
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Refusal::BadRequest("only HTTP/1.x is spoken"));
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(Refusal::BadRequest("bad method"));
    }
    if method != "GET" {
        return Err(Refusal::MethodNotAllowed);
    }
    if !target.starts_with('/') || target.bytes().any(|b| b.is_ascii_control()) {
        return Err(Refusal::BadRequest("target is not a path"));
    }
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Refusal::BadRequest("header line without ':'"));
        };
        if loopback && name.trim().eq_ignore_ascii_case("host") && !loopback_host(value.trim()) {
            return Err(Refusal::ForbiddenHost);
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Ok(Request {
        path: path.to_string(),
        query: query.to_string(),
    })
}

/// `localhost`, `127.0.0.1`, `[::1]`, any IP literal, each with an optional port: names a page
/// on the web cannot make resolve to this machine without the user's say.
fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        // [v6]:port
        match rest.split_once(']') {
            Some((v6, _)) => return v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::Ipv4Addr>().is_ok()
}

/// A `200 OK` with a body of known length.
pub fn ok(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// The head of an event stream (Server-Sent Events); the body never ends by itself.
pub const EVENT_STREAM_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
     Cache-Control: no-store\r\nConnection: close\r\n\r\n";

/// One Server-Sent Event carrying `json` (compact JSON has no raw newline, so one `data:`
/// line is the whole message).
pub fn event(json: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len() + 8);
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(b"\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_get_is_read() {
        let head = b"GET /events?stream=2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: text/event-stream\r\n\r\n";
        assert_eq!(head_end(head), Some(head.len()));
        let r = parse(head, true).unwrap();
        assert_eq!(r.path, "/events");
        assert_eq!(r.query_value("stream"), Some("2"));
        assert_eq!(r.query_value("other"), None);
        assert_eq!(parse(b"GET / HTTP/1.0\n\n", true).unwrap().path, "/");
    }

    #[test]
    fn everything_else_is_refused_with_a_status() {
        let cases: [(&[u8], u16); 9] = [
            (b"POST / HTTP/1.1\r\n\r\n", 405),
            (b"HEAD / HTTP/1.1\r\n\r\n", 405),
            (b"GET / HTTP/2\r\n\r\n", 400),
            (b"GET http://x/ HTTP/1.1\r\n\r\n", 400),
            (b"GET /  HTTP/1.1\r\n\r\n", 400),
            (b"\xff\xfe / HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n", 403),
            (b"", 400),
        ];
        for (head, code) in cases {
            let got = parse(head, true).map_err(|r| r.status().0);
            assert_eq!(got, Err(code), "{:?}", String::from_utf8_lossy(head));
        }
        let big = vec![b'a'; MAX_HEAD + 1];
        assert_eq!(parse(&big, true), Err(Refusal::HeadTooLarge));
        // A server bound to another address on purpose serves any name.
        assert!(parse(b"GET / HTTP/1.1\r\nHost: shogi.lan\r\n\r\n", false).is_ok());
    }

    #[test]
    fn loopback_names() {
        for h in [
            "localhost",
            "LOCALHOST:80",
            "127.0.0.1:9",
            "[::1]:8080",
            "10.0.0.2",
        ] {
            assert!(loopback_host(h), "{h}");
        }
        for h in [
            "evil.example",
            "localhost.evil.example",
            "[::1",
            "127.0.0.1.nip.io:80",
        ] {
            assert!(!loopback_host(h), "{h}");
        }
    }

    #[test]
    fn refusals_are_complete_responses() {
        let r = String::from_utf8(Refusal::MethodNotAllowed.response()).unwrap();
        assert!(r.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"), "{r}");
        assert!(r.contains("\r\nAllow: GET\r\n"), "{r}");
        let body = r.split("\r\n\r\n").nth(1).unwrap();
        assert!(
            r.contains(&format!("Content-Length: {}\r\n", body.len())),
            "{r}"
        );
        assert_eq!(event("{\"a\":1}"), b"data: {\"a\":1}\n\n");
    }
}
