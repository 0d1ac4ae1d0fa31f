//! One player of a match: what to run ([`EngineSpec`], parsed from the command line) and the
//! running process ([`Engine`]), a thin USI client on the proxy's member actor
//! ([`crate::member::MemberHandle`]), so spawning, reading and killing engines is one piece of
//! code in gougi.
//!
//! An engine is started once per worker and reused across games (`usinewgame` / `gameover`);
//! after a crash, a hang or a timeout it is dropped (which kills the process) and the worker
//! starts a fresh one for its next game.

use std::path::Path;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

use crate::config::Config;
use crate::member::command::{resolve_command, split_words, EngineCommand};
use crate::member::{handshake_all, ready_all, MemberEvent, MemberHandle, MemberSpec, Role};
use crate::usi::{BestMove, EngineMessage, GameResult, Info};

use super::clock::Limits;

/// How one engine is run and limited, from `--engine 'cmd=… name=… option.X=Y nodes=N'`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The name in tables and records (`name=`, else the program's file name).
    pub name: String,
    pub command: EngineCommand,
    /// `setoption` pairs, in the order given.
    pub options: Vec<(String, String)>,
    /// Overrides of the match's time control for this engine (`time= byoyomi= inc= nodes=`).
    pub limits: LimitOverrides,
    /// `score_view=black`: the engine prints scores from Black's side (gpsusi does), so the
    /// records turn them to the mover's side before writing.
    pub black_view_scores: bool,
}

/// Per-engine changes to the match limits; `None` keeps the match's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimitOverrides {
    pub time_ms: Option<u64>,
    pub byoyomi_ms: Option<u64>,
    pub inc_ms: Option<u64>,
    pub nodes: Option<u64>,
}

impl LimitOverrides {
    /// The match limits with this engine's overrides applied.
    pub fn apply(&self, base: Limits) -> Limits {
        Limits {
            time_ms: self.time_ms.unwrap_or(base.time_ms),
            byoyomi_ms: self.byoyomi_ms.unwrap_or(base.byoyomi_ms),
            inc_ms: self.inc_ms.unwrap_or(base.inc_ms),
            // `nodes=0` lifts the match's node limit for an engine that cannot take `go … nodes`
            // (gpsusi exits on it; it takes `--node-count-hard-limit` on its command line).
            nodes: match self.nodes {
                Some(0) => None,
                Some(n) => Some(n),
                None => base.nodes,
            },
        }
    }
}

/// Why an `--engine` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unbalanced quote in {0:?}")]
    Quote(String),
    #[error("{word:?} is not key=value (in {text:?})")]
    NotKeyValue { word: String, text: String },
    #[error("{key}={value:?}: not a non-negative integer")]
    NotANumber { key: String, value: String },
    #[error("cmd={value:?}: {problem}")]
    Command { value: String, problem: String },
    #[error("config={value:?}: {reason}")]
    Config { value: String, reason: String },
    #[error("score_view={0:?}: side or black")]
    ScoreView(String),
    #[error(
        "unknown key {key:?} in {text:?} (cmd, config, name, option.NAME, time, byoyomi, inc, \
         nodes, score_view)"
    )]
    UnknownKey { key: String, text: String },
    #[error("{0:?} has no cmd= or config=")]
    NoCommand(String),
}

impl EngineSpec {
    /// Parses one `--engine` value: space-separated `key=value` words, values quoted when they
    /// hold spaces (`cmd="/usr/games/gpsusi --node-count-hard-limit 20000"`). Keys: `cmd`
    /// (a command line as in a config's `Engine1.Path`, `builtin:search` included), or `config`
    /// (a gougi consultation config: the player is `gougi --config FILE`), `name`,
    /// `option.<NAME>`, `time`, `byoyomi`, `inc` (milliseconds), `nodes` (0: no node limit for
    /// this engine). Relative paths
    /// resolve against `dir` (the working directory).
    pub fn parse(text: &str, dir: &Path) -> Result<EngineSpec, SpecError> {
        let words = split_words(text).ok_or_else(|| SpecError::Quote(text.to_owned()))?;
        let mut name = None;
        let mut command = None;
        let mut options = Vec::new();
        let mut limits = LimitOverrides::default();
        let mut black_view_scores = false;
        let mut consultation = false;
        for word in &words {
            let (key, value) = word.split_once('=').ok_or_else(|| SpecError::NotKeyValue {
                word: word.clone(),
                text: text.to_owned(),
            })?;
            let number = |v: &str| {
                v.parse::<u64>().map_err(|_| SpecError::NotANumber {
                    key: key.to_owned(),
                    value: v.to_owned(),
                })
            };
            match key {
                "cmd" => {
                    let c = resolve_command(value, dir).map_err(|p| SpecError::Command {
                        value: value.to_owned(),
                        problem: p.to_string(),
                    })?;
                    command = Some(c);
                }
                "config" => {
                    let config_error = |reason: String| SpecError::Config {
                        value: value.to_owned(),
                        reason,
                    };
                    let exe = std::env::current_exe()
                        .map_err(|e| config_error(format!("cannot find gougi itself: {e}")))?;
                    let path = dir.join(value);
                    if !path.is_file() {
                        return Err(config_error(format!("no such file {}", path.display())));
                    }
                    // Validated here, as the proxy will: a broken config is refused with its own
                    // message (file:line: key: problem) instead of a player that "exited with
                    // status 1" at its first `usi`.
                    Config::load(&path)
                        .and_then(|c| c.open_log_file())
                        .map_err(|e| config_error(e.to_string()))?;
                    consultation = true;
                    command = Some(EngineCommand {
                        program: exe,
                        args: vec![
                            "--config".into(),
                            path.display().to_string(),
                            "proxy".into(),
                        ],
                        working_dir: None,
                        builtin: None,
                        text: format!("gougi --config {}", path.display()),
                    });
                    if name.is_none() {
                        name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
                    }
                }
                "name" => name = Some(value.to_owned()),
                "score_view" => {
                    black_view_scores = match value {
                        "side" => false,
                        "black" => true,
                        _ => return Err(SpecError::ScoreView(value.to_owned())),
                    }
                }
                "time" => limits.time_ms = Some(number(value)?),
                "byoyomi" => limits.byoyomi_ms = Some(number(value)?),
                "inc" => limits.inc_ms = Some(number(value)?),
                "nodes" => limits.nodes = Some(number(value)?),
                _ => match key.strip_prefix("option.") {
                    Some(opt) if !opt.is_empty() && !opt.contains(char::is_whitespace) => {
                        options.push((opt.to_owned(), value.to_owned()));
                    }
                    _ => {
                        return Err(SpecError::UnknownKey {
                            key: key.to_owned(),
                            text: text.to_owned(),
                        })
                    }
                },
            }
        }
        let command = command.ok_or_else(|| SpecError::NoCommand(text.to_owned()))?;
        // A consultation keeps `G_NetworkDelay` (300 ms) off a GUI's clock for a CSA server's
        // path; the referee here is on a pipe and times to the millisecond, so a `config=`
        // player gets that time back unless the run sets it.
        if consultation && !options.iter().any(|(n, _)| n == "G_NetworkDelay") {
            options.insert(0, ("G_NetworkDelay".to_owned(), "0".to_owned()));
        }
        let name = name.unwrap_or_else(|| match command.builtin {
            Some(b) => format!("gougi-{}", b.subcommand()),
            None => Path::new(&command.program).file_name().map_or_else(
                || command.text.clone(),
                |s| s.to_string_lossy().into_owned(),
            ),
        });
        Ok(EngineSpec {
            name,
            command,
            options,
            limits,
            black_view_scores,
        })
    }
}

/// Why an engine could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// It could not be spawned, or failed `usi`/`isready`.
    Start(String),
    /// The process ended.
    Exited(Option<i32>),
    /// No answer in time.
    Timeout,
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFailure::Start(why) => write!(f, "failed to start: {why}"),
            EngineFailure::Exited(Some(c)) => write!(f, "exited with status {c}"),
            EngineFailure::Exited(None) => f.write_str("was killed or crashed"),
            EngineFailure::Timeout => f.write_str("did not answer in time"),
        }
    }
}

/// What came back from one `go`.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A `bestmove` line (move, `resign` or `win`).
    Best(BestMove),
    /// `bestmove <text>` whose move is not even USI syntax.
    Unparsable(String),
    Failed(EngineFailure),
}

/// The answer to one `go` with what the engine said while thinking.
#[derive(Clone, Debug, PartialEq)]
pub struct Think {
    pub reply: Reply,
    /// Wall time from writing `go` to reading the answer.
    pub elapsed: Duration,
    /// The last `info` with a score (MultiPV 1 only), the engine's own view.
    pub last_scored: Option<Info>,
}

/// Timeouts for the start-up exchanges.
#[derive(Clone, Copy, Debug)]
pub struct StartTimeouts {
    pub usi: Duration,
    pub ready: Duration,
}

/// How long an engine may take to send its `bestmove` after `stop` before it is killed.
const STOP_GRACE: Duration = Duration::from_millis(1000);

/// A running engine process.
pub struct Engine {
    handle: MemberHandle,
    events: mpsc::UnboundedReceiver<MemberEvent>,
    /// The engine's `id name`.
    pub id_name: Option<String>,
    timeouts: StartTimeouts,
    dead: bool,
    /// `quit` was sent: the drop must not send it again (the engine may be gone by then).
    quit_sent: bool,
    /// A `go ponder` is under way: it ends with [`Engine::ponderhit`] or [`Engine::stop_ponder`].
    pondering: bool,
}

impl Engine {
    /// Spawns `spec`, does `usi`, sends its options, and `isready`. `number` only tags logs.
    pub async fn start(
        spec: &EngineSpec,
        number: u32,
        timeouts: StartTimeouts,
    ) -> Result<Engine, EngineFailure> {
        let mut member = MemberSpec::new(number, Role::Normal, &spec.command.program, &[]);
        member.args = spec.command.args.clone();
        member.working_dir = spec.command.working_dir.clone();
        let (tx, mut events) = mpsc::unbounded_channel();
        let handle =
            MemberHandle::spawn(&member, tx).map_err(|e| EngineFailure::Start(e.to_string()))?;
        let handshake = handshake_all(std::slice::from_ref(&handle), &mut events, timeouts.usi)
            .await
            .pop()
            .expect("one result per member");
        let handshake = handshake.map_err(|e| EngineFailure::Start(e.to_string()))?;
        for (name, value) in &spec.options {
            let known = handshake
                .options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(name));
            if !known && !name.starts_with("USI_") {
                tracing::warn!(engine = %spec.name, option = %name, "the engine did not declare this option; sending it anyway");
            }
            let line = format!("setoption name {name} value {value}");
            handle
                .send_line(line)
                .map_err(|e| EngineFailure::Start(e.to_string()))?;
        }
        let mut engine = Engine {
            handle,
            events,
            id_name: handshake.name,
            timeouts,
            dead: false,
            quit_sent: false,
            pondering: false,
        };
        engine.ready().await.map_err(|f| match f {
            EngineFailure::Start(s) => EngineFailure::Start(s),
            other => EngineFailure::Start(other.to_string()),
        })?;
        Ok(engine)
    }

    /// Whether the process is gone (or was given up on) and must be replaced.
    pub fn is_dead(&self) -> bool {
        self.dead || self.handle.exit_code().is_some()
    }

    /// `isready` → `readyok`.
    pub async fn ready(&mut self) -> Result<(), EngineFailure> {
        let r = ready_all(
            std::slice::from_ref(&self.handle),
            &mut self.events,
            self.timeouts.ready,
            Duration::from_secs(3600),
            || {},
        )
        .await
        .pop()
        .expect("one result per member");
        r.map_err(|e| {
            self.dead = true;
            match self.handle.exit_code() {
                Some(code) => EngineFailure::Exited(code),
                None => EngineFailure::Start(e.to_string()),
            }
        })
    }

    /// Before a game: `isready` (engines may clear their hash) and `usinewgame`.
    pub async fn new_game(&mut self) -> Result<(), EngineFailure> {
        self.ready().await?;
        self.send("usinewgame")
    }

    /// After a game: `gameover win|lose|draw` (ignored if the engine is gone).
    pub fn game_over(&mut self, result: GameResult) {
        if !self.is_dead() {
            let _ = self.send(&format!("gameover {}", result.as_str()));
        }
    }

    /// Ends the engine politely (`quit`); dropping it afterwards kills it if it lingers.
    pub fn quit(&mut self) {
        if !self.is_dead() && !self.quit_sent {
            self.quit_sent = true;
            let _ = self.send("quit");
        }
    }

    fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        self.handle.send_line(line).map_err(|_| {
            self.dead = true;
            EngineFailure::Exited(self.handle.exit_code().flatten())
        })
    }

    /// Sends `position_line` and `go_line`, then waits for `bestmove` until `deadline`. On a
    /// timeout the engine gets `stop`; if its `bestmove` does not follow within a second it is
    /// marked dead (the worker replaces it), so a late answer can never leak into the next
    /// game.
    pub async fn think(&mut self, position_line: &str, go_line: &str, deadline: Instant) -> Think {
        self.think_from(Instant::now(), position_line, go_line, deadline)
            .await
    }

    /// [`Engine::think`], its time counted from `start` (after a ponder miss, the `stop`: a
    /// GUI's clock runs from the opponent's move, so the turnaround is the mover's).
    pub async fn think_from(
        &mut self,
        start: Instant,
        position_line: &str,
        go_line: &str,
        deadline: Instant,
    ) -> Think {
        if let Err(f) = self.search(position_line, go_line) {
            return Think {
                reply: Reply::Failed(f),
                elapsed: start.elapsed(),
                last_scored: None,
            };
        }
        self.answer(start, deadline).await
    }

    /// Starts a ponder search (`go_line` is a `go ponder …`) and returns at once; the engine
    /// thinks while the opponent does, until [`Engine::ponderhit`] or [`Engine::stop_ponder`].
    pub fn ponder(&mut self, position_line: &str, go_line: &str) -> Result<(), EngineFailure> {
        self.search(position_line, go_line)?;
        self.pondering = true;
        Ok(())
    }

    /// Whether a ponder search is under way.
    pub fn is_pondering(&self) -> bool {
        self.pondering
    }

    /// The predicted move was played: `ponderhit`, then the answer as for a `go`, its time
    /// counted from here (GUIs start the mover's clock at the opponent's move). What the engine
    /// said while pondering is this search's too (its last score is kept). An engine that
    /// answered before `ponderhit` (USI forbids it) has that answer taken, at no time.
    pub async fn ponderhit(&mut self, deadline: Instant) -> Think {
        self.pondering = false;
        let start = Instant::now();
        if let Err(f) = self.send("ponderhit") {
            return Think {
                reply: Reply::Failed(f),
                elapsed: Duration::ZERO,
                last_scored: None,
            };
        }
        self.answer(start, deadline).await
    }

    /// The engine is gone (its events ended, or it exited): marks it dead and returns its exit
    /// code, from the event or else from the process.
    fn died(&mut self, event: Option<MemberEvent>) -> Option<i32> {
        self.dead = true;
        match event {
            Some(MemberEvent::Exited { code, .. }) => code,
            _ => self.handle.exit_code().flatten(),
        }
    }

    /// Another move was played (or the game ended): `stop`, and the ponder's `bestmove` is
    /// waited for and dropped, so it cannot be taken for the next search's. An engine that does
    /// not send it within a second is killed and fails (as after a `go`'s `stop`).
    pub async fn stop_ponder(&mut self) -> Result<(), EngineFailure> {
        self.pondering = false;
        self.send("stop")?;
        let until = Instant::now() + STOP_GRACE;
        loop {
            let event = tokio::select! {
                e = self.events.recv() => e,
                _ = sleep_until(until) => {
                    self.dead = true;
                    self.handle.kill();
                    return Err(EngineFailure::Timeout);
                }
            };
            match event {
                None | Some(MemberEvent::Exited { .. }) => {
                    let code = self.died(event);
                    return Err(EngineFailure::Exited(code));
                }
                Some(MemberEvent::Message { message, .. }) => match message {
                    EngineMessage::BestMove(_) => return Ok(()),
                    EngineMessage::Unknown(line)
                        if line.split_whitespace().next() == Some("bestmove") =>
                    {
                        return Ok(())
                    }
                    _ => {}
                },
            }
        }
    }

    /// Sends `position_line` and `go_line` after dropping what is left over from before (an
    /// `info` after the last `bestmove` is not this search's).
    fn search(&mut self, position_line: &str, go_line: &str) -> Result<(), EngineFailure> {
        while let Ok(event) = self.events.try_recv() {
            if let MemberEvent::Exited { code, .. } = event {
                self.dead = true;
                return Err(EngineFailure::Exited(code));
            }
        }
        self.send(position_line)?;
        self.send(go_line)
    }

    /// Waits for the `bestmove` of the search under way until `deadline` (then `stop`, and a
    /// second for the answer), timing it from `start`.
    async fn answer(&mut self, start: Instant, deadline: Instant) -> Think {
        let mut last_scored = None;
        let mut stop_sent: Option<Instant> = None;
        loop {
            let wake = match stop_sent {
                None => deadline,
                Some(at) => at + STOP_GRACE,
            };
            let event = tokio::select! {
                e = self.events.recv() => e,
                _ = sleep_until(wake) => {
                    if stop_sent.is_some() {
                        self.dead = true;
                        self.handle.kill();
                        return Think { reply: Reply::Failed(EngineFailure::Timeout), elapsed: start.elapsed(), last_scored };
                    }
                    let _ = self.send("stop");
                    stop_sent = Some(Instant::now());
                    continue;
                }
            };
            let elapsed = start.elapsed();
            match event {
                None | Some(MemberEvent::Exited { .. }) => {
                    let code = self.died(event);
                    return Think {
                        reply: Reply::Failed(EngineFailure::Exited(code)),
                        elapsed,
                        last_scored,
                    };
                }
                Some(MemberEvent::Message { message, .. }) => match message {
                    EngineMessage::BestMove(best) => {
                        let reply = if stop_sent.is_some() {
                            // Answered only after `stop`: the time was already over.
                            Reply::Failed(EngineFailure::Timeout)
                        } else {
                            Reply::Best(best)
                        };
                        return Think {
                            reply,
                            elapsed,
                            last_scored,
                        };
                    }
                    EngineMessage::Info(info) => {
                        if info.score.is_some() && info.multipv.unwrap_or(1) == 1 {
                            last_scored = Some(info);
                        }
                    }
                    EngineMessage::Unknown(line)
                        if line.split_whitespace().next() == Some("bestmove") =>
                    {
                        let reply = if stop_sent.is_some() {
                            Reply::Failed(EngineFailure::Timeout)
                        } else {
                            Reply::Unparsable(line)
                        };
                        return Think {
                            reply,
                            elapsed,
                            last_scored,
                        };
                    }
                    other => tracing::debug!(line = %other, "engine line ignored while thinking"),
                },
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Dropping the handle kills the process; `quit` first lets a healthy engine exit on its
        // own terms (flushing its logs) if it is quick about it.
        if !self.dead && !self.quit_sent {
            let _ = self.handle.send_line("quit");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_engine_specs() {
        let dir = Path::new(".");
        let s = EngineSpec::parse(
            "cmd=builtin:search name=gs option.USI_Hash=64 option.Threads=1 nodes=5000 byoyomi=100",
            dir,
        )
        .unwrap();
        assert_eq!(s.name, "gs");
        assert_eq!(s.command.args[0], "search");
        assert_eq!(
            s.options,
            vec![
                ("USI_Hash".to_owned(), "64".to_owned()),
                ("Threads".to_owned(), "1".to_owned())
            ]
        );
        assert_eq!(s.limits.nodes, Some(5000));
        assert_eq!(s.limits.byoyomi_ms, Some(100));
        assert!(!s.black_view_scores);
        let g = EngineSpec::parse("cmd=builtin:search score_view=black", dir).unwrap();
        assert!(g.black_view_scores);
        assert!(EngineSpec::parse("cmd=builtin:search score_view=up", dir).is_err());
        let d = EngineSpec::parse("cmd=builtin:mate", dir).unwrap();
        assert_eq!(d.name, "gougi-mate");
        // A quoted command line keeps its arguments.
        let q = EngineSpec::parse(r#"cmd="builtin:search --x 1" name='my engine'"#, dir).unwrap();
        assert_eq!(q.command.args, vec!["search", "--x", "1"]);
        assert_eq!(q.name, "my engine");
    }

    #[test]
    fn rejects_bad_specs_with_a_reason() {
        let dir = Path::new(".");
        let e = EngineSpec::parse("name=x", dir).unwrap_err().to_string();
        assert!(e.contains("no cmd="), "{e}");
        let e = EngineSpec::parse("cmd=builtin:search nodes=-3", dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nodes"), "{e}");
        let e = EngineSpec::parse("cmd=builtin:search colour=red", dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key \"colour\""), "{e}");
        let e = EngineSpec::parse("cmd=/no/such/engine", dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/no/such/engine"), "{e}");
        let e = EngineSpec::parse("cmd=\"builtin:search", dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("quote"), "{e}");
        let e = EngineSpec::parse("config=/no/such.config", dir)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
    }

    #[test]
    fn a_consultation_player_gets_the_network_delay_back_unless_the_run_sets_it() {
        let dir = std::env::temp_dir().join(format!("gougi-arena-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("c.config"),
            "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n",
        )
        .unwrap();
        let e = EngineSpec::parse("config=c.config", &dir).unwrap();
        assert_eq!(e.options, [("G_NetworkDelay".to_owned(), "0".to_owned())]);
        let e = EngineSpec::parse("config=c.config option.G_NetworkDelay=250", &dir).unwrap();
        assert_eq!(e.options, [("G_NetworkDelay".to_owned(), "250".to_owned())]);
        let e = EngineSpec::parse("cmd=builtin:search", &dir).unwrap();
        assert!(e.options.is_empty());
    }

    #[test]
    fn overrides_apply_over_the_match_limits() {
        let base = Limits {
            time_ms: 1000,
            byoyomi_ms: 100,
            inc_ms: 0,
            nodes: None,
        };
        let o = LimitOverrides {
            byoyomi_ms: Some(300),
            nodes: Some(9),
            ..Default::default()
        };
        assert_eq!(
            o.apply(base),
            Limits {
                time_ms: 1000,
                byoyomi_ms: 300,
                inc_ms: 0,
                nodes: Some(9)
            }
        );
        let lifted = LimitOverrides {
            nodes: Some(0),
            ..Default::default()
        };
        let with_nodes = Limits {
            nodes: Some(5),
            ..base
        };
        assert_eq!(lifted.apply(with_nodes).nodes, None);
    }
}
