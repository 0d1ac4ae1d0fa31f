//! The feed a page reads: what was published, kept so a page opened late sees the whole game,
//! and passed on live to every open event stream.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use tokio::sync::broadcast;

/// How the feed keeps an event for pages opened later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Retain {
    /// Appended to the log (a round of the game).
    Log,
    /// Only the newest event with this key is kept (standings, a board in progress).
    Latest(String),
    /// Clears the log, then is its first entry (a new game).
    Reset,
}

/// The most events a log keeps; older ones are dropped (and counted in the snapshot). A game
/// of 512 plies with a few extra events stays well inside.
pub const LOG_CAP: usize = 4096;

/// Events held for event streams that have not read them yet; a stream that falls further
/// behind is sent a fresh snapshot instead.
pub const STREAM_BUFFER: usize = 256;

pub struct Feed {
    log: VecDeque<Arc<str>>,
    latest: BTreeMap<String, Arc<str>>,
    dropped: u64,
    tx: broadcast::Sender<Arc<str>>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed {
            log: VecDeque::new(),
            latest: BTreeMap::new(),
            dropped: 0,
            tx: broadcast::channel(STREAM_BUFFER).0,
        }
    }
}

impl Feed {
    /// Keeps `json` as `retain` says and sends it to every open stream.
    pub fn apply(&mut self, retain: Retain, json: Arc<str>) {
        match retain {
            Retain::Log => self.push(json.clone()),
            Retain::Reset => {
                self.log.clear();
                self.dropped = 0;
                self.push(json.clone());
            }
            Retain::Latest(key) => {
                self.latest.insert(key, json.clone());
            }
        }
        // No stream open is not an error.
        let _ = self.tx.send(json);
    }

    fn push(&mut self, json: Arc<str>) {
        if self.log.len() == LOG_CAP {
            self.log.pop_front();
            self.dropped += 1;
        }
        self.log.push_back(json);
    }

    /// Everything kept, as one JSON object `{"kind":"snapshot","dropped":n,"events":[…]}`:
    /// the latest-by-key events first (in key order), then the log in order.
    pub fn snapshot(&self) -> String {
        let mut out = format!(
            "{{\"kind\":\"snapshot\",\"dropped\":{},\"events\":[",
            self.dropped
        );
        for (k, json) in self.latest.values().chain(self.log.iter()).enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str(json);
        }
        out.push_str("]}");
        out
    }

    /// A snapshot and a receiver of everything published after it (taken together under the
    /// caller's lock, so nothing falls between them and nothing comes twice).
    pub fn subscribe(&self) -> (String, broadcast::Receiver<Arc<str>>) {
        (self.snapshot(), self.tx.subscribe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Arc<str> {
        Arc::from(s)
    }

    #[test]
    fn log_latest_and_reset() {
        let mut f = Feed::default();
        let (_, mut rx) = f.subscribe();
        f.apply(Retain::Log, j("1"));
        f.apply(Retain::Latest("s".into()), j("\"a\""));
        f.apply(Retain::Latest("s".into()), j("\"b\""));
        f.apply(Retain::Log, j("2"));
        assert_eq!(
            f.snapshot(),
            r#"{"kind":"snapshot","dropped":0,"events":["b",1,2]}"#
        );
        f.apply(Retain::Reset, j("0"));
        assert_eq!(
            f.snapshot(),
            r#"{"kind":"snapshot","dropped":0,"events":["b",0]}"#
        );
        let got: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(got, ["1", "\"a\"", "\"b\"", "2", "0"]);
    }

    #[test]
    fn the_log_is_bounded_and_says_what_it_dropped() {
        let mut f = Feed::default();
        for k in 0..LOG_CAP + 3 {
            f.apply(Retain::Log, j(&k.to_string()));
        }
        let s = f.snapshot();
        assert!(
            s.starts_with(r#"{"kind":"snapshot","dropped":3,"events":[3,4,"#),
            "{s}"
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["events"].as_array().unwrap().len(), LOG_CAP);
    }

    #[test]
    fn a_stream_that_falls_behind_is_told() {
        let mut f = Feed::default();
        let (_, mut rx) = f.subscribe();
        for k in 0..STREAM_BUFFER + 10 {
            f.apply(Retain::Log, j(&k.to_string()));
        }
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(10))
        ));
    }
}
