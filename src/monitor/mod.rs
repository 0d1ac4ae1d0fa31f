//! Live pages beside the GUI: a small HTTP/1.1 server for one self-contained HTML page, its
//! event stream (Server-Sent Events) and a JSON snapshot.
//!
//! `G_Monitor=127.0.0.1:PORT` serves the consultation page ([`consult`]); `gougi match --serve`
//! the match page ([`matches`]); `gougi tune --serve` the tune page ([`tune`]). All use
//! [`Server`]. The match and tune pages share their CSS and their board and chart code
//! (`common.css`, `common.js`, put in by [`with_common`]):
//!
//! - `GET /` — the page (HTML, CSS and JS inline, no network fetches), with the snapshot of
//!   the feed embedded, so it shows the game at once;
//! - `GET /events` — `text/event-stream`: first a snapshot, then every event as it is
//!   published (a page replays the snapshot and applies events as they come);
//! - `GET /state.json` — the snapshot alone, for scripts.
//!
//! # Why publishing never slows the USI path
//! The server runs on a thread of its own with its own tokio runtime. The publisher (the
//! coordinator, the match runner) only serialises an event and calls `try_send` on a bounded
//! channel to that thread: no lock shared with a socket, no await, no I/O. A full channel drops
//! the event (counted, logged once). On the server's side each open stream reads a bounded
//! broadcast buffer; a page that falls behind gets a fresh snapshot instead of the events it
//! missed, and a client that does not read its socket is dropped after [`WRITE_TIMEOUT`].
//!
//! # What is refused
//! Only `GET` of the three paths; request heads are read up to [`http::MAX_HEAD`] bytes within
//! [`READ_TIMEOUT`]; at most [`MAX_CONNECTIONS`] connections at once (more get `503`). A server
//! on a loopback address (the default: a bare port means `127.0.0.1:PORT`) also refuses a
//! `Host` that is not a loopback name or an IP literal, so a web page cannot read it through
//! DNS rebinding. Nothing here panics on what a client sends.

pub mod consult;
pub mod feed;
pub mod http;
pub mod matches;
pub mod tune;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener as StdListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, oneshot, Semaphore};
use tracing::{debug, warn};

pub use feed::Retain;
use feed::{Feed, STREAM_BUFFER};
use http::Refusal;

/// Events waiting for the server thread; beyond this the publisher drops them.
pub const PUBLISH_BUFFER: usize = 1024;
/// Connections served at once (event streams included).
pub const MAX_CONNECTIONS: usize = 32;
/// A request head must arrive within this.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// A client that does not take a write within this is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// A comment line on idle event streams, so dead clients are noticed.
pub const KEEPALIVE: Duration = Duration::from_secs(15);

/// Where the page's HTML holds the snapshot (replaced at each `GET /`).
const SNAPSHOT_MARKER: &str = "/*SNAPSHOT*/null";

/// `html` with its `/*COMMON_CSS*/` and `/*COMMON_JS*/` markers replaced by `common.css` and
/// `common.js`, built once into `cell`: the pages stay one self-contained file each when
/// served, while their shared code is written once.
pub fn with_common(html: &'static str, cell: &'static OnceLock<String>) -> &'static str {
    cell.get_or_init(|| {
        html.replacen("/*COMMON_CSS*/", include_str!("common.css"), 1)
            .replacen("/*COMMON_JS*/", include_str!("common.js"), 1)
    })
}

/// A running monitor server. Dropping it stops the server thread (without waiting for it).
pub struct Server {
    tx: mpsc::Sender<(Retain, Arc<str>)>,
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
    dropped: AtomicU64,
}

impl Server {
    /// Binds `addr` at once (so a busy port is an error here, and port 0 picks a free one:
    /// see [`Server::addr`]) and serves `page` from a thread of its own.
    pub fn start(addr: SocketAddr, page: &'static str) -> std::io::Result<Server> {
        let listener = StdListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (tx, rx) = mpsc::channel(PUBLISH_BUFFER);
        let (stop, stopped) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("gougi-monitor".into())
            .spawn(move || {
                runtime.block_on(async move {
                    match TcpListener::from_std(listener) {
                        Ok(listener) => serve(listener, rx, stopped, page).await,
                        Err(e) => warn!(error = %e, "monitor: cannot serve"),
                    }
                });
                // Event streams still open end with the runtime.
                runtime.shutdown_background();
            })?;
        Ok(Server {
            tx,
            addr,
            _stop: stop,
            dropped: AtomicU64::new(0),
        })
    }

    /// The address served (with the port the system chose for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://127.0.0.1:8080/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Hands `event` to the server thread. Never blocks: when the thread is behind by
    /// [`PUBLISH_BUFFER`] events the event is dropped (and the first drop logged).
    pub fn publish(&self, retain: Retain, event: &impl serde::Serialize) {
        let json = match serde_json::to_string(event) {
            Ok(j) => j,
            Err(e) => {
                warn!(error = %e, "monitor: event not serialisable");
                return;
            }
        };
        if self.tx.try_send((retain, Arc::from(json))).is_err()
            && self.dropped.fetch_add(1, Ordering::Relaxed) == 0
        {
            warn!("monitor: the server thread is behind; events dropped");
        }
    }
}

/// A `G_Monitor` / `--serve` value that is neither a port nor an IP address with a port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}: not a port or an address with a port (127.0.0.1:8080, [::1]:8080)")]
pub struct BadAddress(pub String);

/// What `G_Monitor` / `--serve` asked for: `None` for off (empty), else the address. A bare
/// port means `127.0.0.1:PORT`; `localhost:PORT` is `127.0.0.1:PORT`; otherwise an IP address
/// and port (`[::1]:8080`). Host names are refused: the address is where gougi listens.
pub fn parse_address(value: &str) -> Result<Option<SocketAddr>, BadAddress> {
    let v = value.trim();
    if v.is_empty() || v == "<empty>" {
        return Ok(None);
    }
    if let Ok(port) = v.parse::<u16>() {
        return Ok(Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)));
    }
    if let Some(port) = v
        .strip_prefix("localhost:")
        .and_then(|p| p.parse::<u16>().ok())
    {
        return Ok(Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)));
    }
    v.parse::<SocketAddr>()
        .map(Some)
        .map_err(|_| BadAddress(v.to_owned()))
}

async fn serve(
    listener: TcpListener,
    mut rx: mpsc::Receiver<(Retain, Arc<str>)>,
    mut stopped: oneshot::Receiver<()>,
    page: &'static str,
) {
    let feed = Arc::new(Mutex::new(Feed::default()));
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let publisher = {
        let feed = feed.clone();
        tokio::spawn(async move {
            while let Some((retain, json)) = rx.recv().await {
                lock(&feed).apply(retain, json);
            }
        })
    };
    loop {
        tokio::select! {
            _ = &mut stopped => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let Ok(permit) = permits.clone().try_acquire_owned() else {
                        tokio::spawn(async move {
                            let mut stream = stream;
                            let _ = write(&mut stream, &Refusal::Busy.response()).await;
                        });
                        continue;
                    };
                    let feed = feed.clone();
                    tokio::spawn(async move {
                        connection(stream, &feed, page, loopback).await;
                        debug!(%peer, "monitor: connection closed");
                        drop(permit);
                    });
                }
                Err(e) => {
                    // Out of descriptors and the like: wait a little rather than spin.
                    debug!(error = %e, "monitor: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    // The publisher is gone too (dropping the `Server` dropped its sender): what it sent last
    // (a match's summary) still reaches the open pages if this thread gets the moment.
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_millis(200), publisher).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The feed's lock; a panic elsewhere while holding it (there is none) would not stop the page.
fn lock(feed: &Mutex<Feed>) -> std::sync::MutexGuard<'_, Feed> {
    feed.lock().unwrap_or_else(|e| e.into_inner())
}

async fn write(stream: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    match tokio::time::timeout(WRITE_TIMEOUT, stream.write_all(bytes)).await {
        Ok(r) => r,
        Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
    }
}

/// Reads a request head: `Ok(None)` when the client went away or was too slow.
async fn read_head(stream: &mut TcpStream) -> Result<Option<Vec<u8>>, Refusal> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = match tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return Ok(None),
            Ok(Ok(n)) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = http::head_end(&buf) {
            buf.truncate(end);
            return Ok(Some(buf));
        }
        if buf.len() > http::MAX_HEAD {
            return Err(Refusal::HeadTooLarge);
        }
    }
}

async fn connection(mut stream: TcpStream, feed: &Mutex<Feed>, page: &'static str, loopback: bool) {
    let request = match read_head(&mut stream).await.and_then(|head| match head {
        Some(h) => http::parse(&h, loopback).map(Some),
        None => Ok(None),
    }) {
        Ok(Some(r)) => r,
        Ok(None) => return,
        Err(refusal) => {
            debug!(%refusal, "monitor: request refused");
            let _ = write(&mut stream, &refusal.response()).await;
            return;
        }
    };
    let response = match request.path.as_str() {
        "/" | "/index.html" => {
            let snapshot = script_safe(&lock(feed).snapshot());
            let html = page.replacen(SNAPSHOT_MARKER, &snapshot, 1);
            http::ok("text/html; charset=utf-8", html.as_bytes())
        }
        "/state.json" => http::ok("application/json", lock(feed).snapshot().as_bytes()),
        "/events" => {
            event_stream(stream, feed, &request).await;
            return;
        }
        _ => Refusal::NotFound.response(),
    };
    let _ = write(&mut stream, &response).await;
}

/// JSON inside `<script>`: `<` only occurs in strings, where `\u003c` means the same and no
/// `</script>` can end the element early.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// An event stream: the snapshot, then events as they come, a fresh snapshot after falling
/// behind, a comment every [`KEEPALIVE`]. `?stream=S` ends it after S seconds (1…3600; the
/// page reconnects at once): headless browsers' virtual clocks stand still while a request is
/// open.
async fn event_stream(mut stream: TcpStream, feed: &Mutex<Feed>, request: &http::Request) {
    let until = request
        .query_value("stream")
        .and_then(|s| s.parse::<u64>().ok())
        .map(|s| tokio::time::Instant::now() + Duration::from_secs(s.clamp(1, 3600)));
    let (snapshot, mut rx) = lock(feed).subscribe();
    let mut first = http::EVENT_STREAM_HEAD.as_bytes().to_vec();
    first.extend_from_slice(b"retry: 500\n\n");
    first.extend_from_slice(&http::event(&snapshot));
    if write(&mut stream, &first).await.is_err() {
        return;
    }
    debug!(buffer = STREAM_BUFFER, "monitor: event stream opened");
    loop {
        let ended = async {
            match until {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        let bytes = tokio::select! {
            _ = ended => return,
            _ = tokio::time::sleep(KEEPALIVE) => b": keepalive\n\n".to_vec(),
            got = rx.recv() => match got {
                Ok(json) => http::event(&json),
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    debug!(missed = n, "monitor: stream behind; sending a snapshot");
                    let (snapshot, fresh) = lock(feed).subscribe();
                    rx = fresh;
                    http::event(&snapshot)
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        if write(&mut stream, &bytes).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        let a = |s: &str| parse_address(s).map(|o| o.map(|a| a.to_string()));
        assert_eq!(a(""), Ok(None));
        assert_eq!(a("<empty>"), Ok(None));
        assert_eq!(a("8080"), Ok(Some("127.0.0.1:8080".into())));
        assert_eq!(a(" localhost:0 "), Ok(Some("127.0.0.1:0".into())));
        assert_eq!(a("[::1]:9"), Ok(Some("[::1]:9".into())));
        assert_eq!(a("0.0.0.0:80"), Ok(Some("0.0.0.0:80".into())));
        assert!(a("shogi.lan:80")
            .unwrap_err()
            .to_string()
            .contains("not a port"));
        assert!(a("127.0.0.1").is_err());
        assert!(a("70000").is_err());
    }

    #[test]
    fn a_snapshot_cannot_end_the_script_element() {
        assert_eq!(
            script_safe(r#"{"a":"</script><b>"}"#),
            r#"{"a":"\u003c/script>\u003cb>"}"#
        );
    }
}
