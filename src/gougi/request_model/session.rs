//! One session: the coordinator with scripted members, the GUI's side of the conversation
//! and the model's checks after every step.

use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::{sleep, timeout, Instant};

use super::*;
use crate::config::Config;
use crate::gougi::coordinator::{Coordinator, Owed, Probe};
use crate::member::scripted::{Capture, Scripted};
use crate::shogi::position::Position;

/// A session in progress.
struct Session {
    input: tokio::io::DuplexStream,
    out: Capture,
    members: Scripted,
    probe: Probe,
    numbers: Vec<u32>,
    /// Members whose script hangs or crashes somewhere.
    faulty: Vec<u32>,
    kind: Kind,
    seen: usize,
    moves: Vec<String>,
    /// The GUI lines sent, with times (for a failure's transcript).
    sent: Vec<(Instant, String)>,
    report: Report,
    start: Instant,
    mate_member: bool,
}

impl Session {
    async fn send(&mut self, line: &str) -> Instant {
        let now = Instant::now();
        self.sent.push((now, line.to_owned()));
        // The coordinator may have quit already; the checks then say why.
        let _ = self.input.write_all(format!("{line}\n").as_bytes()).await;
        now
    }

    /// Until every message in flight has arrived: time stands still while tasks are ready.
    async fn quiesce(&self) {
        for _ in 0..64 {
            tokio::task::yield_now().await;
        }
    }

    fn position(&self) -> String {
        if self.moves.is_empty() {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", self.moves.join(" "))
        }
    }

    fn board(&self) -> Position {
        Position::from_usi_position(&self.position()).expect("the session plays legal moves")
    }

    fn transcript(&self) -> String {
        let mut all: Vec<(Instant, String)> = self
            .sent
            .iter()
            .map(|(t, l)| (*t, format!("> {l}")))
            .collect();
        all.extend(
            self.out
                .lines()
                .into_iter()
                .map(|(t, l)| (t, format!("< {l}"))),
        );
        all.sort_by_key(|a| a.0);
        all.iter()
            .map(|(t, l)| format!("{:>9} {l}", (*t - self.start).as_millis()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The next line starting with `prefix` within `limit`, and every line up to it.
    async fn until(
        &mut self,
        prefix: &str,
        limit: Duration,
    ) -> Result<(Instant, Vec<String>), String> {
        let wait = self.out.wait_for(self.seen, |l| l.starts_with(prefix));
        let Ok((i, at, _)) = timeout(limit, wait).await else {
            return Err(format!("no `{prefix}` within {limit:?}"));
        };
        let lines = self.out.lines()[self.seen..=i]
            .iter()
            .map(|l| l.1.clone())
            .collect();
        self.seen = i + 1;
        Ok((at, lines))
    }

    /// `e` with member `n`'s traffic, relative to the session's start.
    fn pipes(&self, n: u32, e: String) -> String {
        let lines: Vec<String> = self
            .members
            .traffic(n)
            .iter()
            .filter(|t| !t.line.starts_with("info") && !t.line.starts_with("option"))
            .map(|t| {
                let dir = if t.to_member { "->" } else { "<-" };
                let ms = (t.at - self.start).as_millis();
                format!("{ms:>9} #{} {dir} {}", t.instance, t.line)
            })
            .collect();
        format!("{e}\nE{n}'s pipes:\n{}", lines.join("\n"))
    }

    /// The model's checks, after the messages in flight have arrived.
    async fn check(&mut self) -> Result<(), String> {
        self.quiesce().await;
        let owed: Vec<Owed> = self.probe.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for &n in &self.numbers {
            let Some(o) = owed.iter().find(|o| o.member == n) else {
                return Err(format!("E{n} missing from the probe"));
            };
            let (model, _) =
                replay(n, &self.members.traffic(n), o.instance).map_err(|e| self.pipes(n, e))?;
            if model != o.requests {
                return Err(format!(
                    "E{n}: gougi holds {:?}, the model {model:?}",
                    o.requests
                ));
            }
            if !self.faulty.contains(&n) && self.members.launches(n) != 1 {
                return Err(format!("E{n} answers every stop in time and was restarted"));
            }
        }
        Ok(())
    }

    /// A `bestmove` for the `go` at `clock_from` (the GUI's clock), `budget` the GUI's time.
    async fn bestmove(
        &mut self,
        go: Instant,
        clock_from: Instant,
        budget: Option<Duration>,
        position: &str,
    ) -> Result<(), String> {
        let limit = budget.unwrap_or(Duration::from_secs(120)) + 5000 * MS;
        let (at, lines) = self.until("bestmove", limit).await?;
        let last = lines.last().cloned().unwrap_or_default();
        let mv = last.split_whitespace().nth(1).unwrap_or("").to_owned();
        let board = Position::from_usi_position(position).map_err(|e| format!("{e:?}"))?;
        let legal =
            board.parse_usi_move(&mv).is_ok() || (mv == "resign" && board.legal_moves().is_empty());
        if !legal && mv != "win" {
            return Err(format!("illegal `{last}` in {position}"));
        }
        if let Some(b) = budget {
            if at > clock_from + b {
                return Err(format!(
                    "`{last}` {:?} after the GUI's clock started, budget {b:?}",
                    at - clock_from
                ));
            }
        }
        if lines
            .iter()
            .any(|l| l.contains("no member answered in time"))
        {
            self.report.fallbacks += 1;
            self.quiesce().await;
            for &n in &self.numbers {
                let (_, asked) =
                    replay(n, &self.members.traffic(n), None).map_err(|e| self.pipes(n, e))?;
                // Its search for this round: the last plain `go` it got, if sent since the
                // GUI's `go` (a member down for the round got none).
                let this_round = asked
                    .iter()
                    .rev()
                    .find(|a| !a.mate)
                    .filter(|a| a.sent >= go);
                if let Some(answered) = this_round.and_then(|a| a.answered).filter(|&a| a < at) {
                    return Err(self.pipes(
                        n,
                        format!(
                            "fallback at {:?} although E{n} answered at {:?}",
                            at - go,
                            answered - go
                        ),
                    ));
                }
            }
            let time_to_think = budget.is_some_and(|b| b >= 1000 * MS);
            if self.kind == Kind::Prompt && time_to_think {
                return Err(format!(
                    "fallback with {budget:?} to think and every member prompt"
                ));
            }
        }
        Ok(())
    }

    /// Plays gougi's move `mv` (when legal) and a reply drawn from `c`; a new game at the end.
    async fn advance(&mut self, c: &mut impl Choices, mv: Option<String>) {
        let board = self.board();
        let mut next = self.moves.clone();
        if let Some(mv) = mv.filter(|m| board.parse_usi_move(m).is_ok()) {
            next.push(mv);
        } else {
            return;
        }
        let after =
            Position::from_usi_position(&format!("position startpos moves {}", next.join(" ")))
                .expect("legal");
        let replies = after.legal_moves();
        if replies.is_empty() || next.len() > 120 {
            self.send("gameover win").await;
            self.send("usinewgame").await;
            self.moves.clear();
            return;
        }
        next.push(replies[c.below(replies.len() as u32) as usize].to_string());
        self.moves = next;
    }

    fn last_bestmove(&self) -> Option<String> {
        let lines = self.out.lines();
        let line = lines.iter().rev().find(|l| l.1.starts_with("bestmove "))?;
        line.1.split_whitespace().nth(1).map(str::to_owned)
    }
}

/// Runs one session of at most `steps` steps; `Err` names the rule broken, with the
/// conversation.
pub async fn run_session(c: &mut impl Choices, steps: u32) -> Result<Report, String> {
    let kind = c.pick(&[Kind::Prompt, Kind::Slow, Kind::Faulty]);
    let normals = 1 + c.below(3);
    let mate_member = c.below(3) == 0;
    let policy = if mate_member && c.below(2) == 0 {
        "mate"
    } else {
        c.pick(&["optimistic", "majority", "pessimistic"])
    };
    let normals = match policy {
        "mate" => 1,
        "majority" => normals.max(2), // a vote needs two
        _ => normals,
    };
    let mut text = format!("Gougi.Type={policy}\n");
    let mut scripts = Vec::new();
    let mut faulty = Vec::new();
    let mut numbers = Vec::new();
    for n in 1..=normals {
        text.push_str(&format!("Engine{n}.Path=builtin:search\n"));
        let bad = kind == Kind::Faulty && (n == 1 || c.below(2) == 0);
        if bad {
            faulty.push(n);
        }
        scripts.push((n, draw_script(c, kind, bad, format!("m{n}"))));
        numbers.push(n);
    }
    if mate_member {
        text.push_str("MateEngine.Path=builtin:mate\n");
        if policy != "mate" {
            text.push_str("MateEngine.Guard=true\n");
        }
        let bad = kind == Kind::Faulty && c.below(2) == 0;
        if bad {
            faulty.push(0);
        }
        scripts.push((0, draw_script(c, kind, bad, "tsume".into())));
        numbers.push(0);
    }
    let config =
        Config::parse(&text, Path::new("/model/SimpleGougi.config")).map_err(|e| e.to_string())?;
    let members = Scripted::new(scripts);
    let out = Capture::new();
    let probe = Probe::default();
    let coordinator =
        Coordinator::start_with(config, out.clone(), members.launcher()).with_probe(probe.clone());
    let (input, theirs) = tokio::io::duplex(1 << 16);
    let run = tokio::spawn(coordinator.run(tokio::io::BufReader::new(theirs)));
    let mut s = Session {
        input,
        out,
        members,
        probe,
        numbers,
        faulty,
        kind,
        seen: 0,
        moves: Vec::new(),
        sent: Vec::new(),
        report: Report::default(),
        start: Instant::now(),
        mate_member,
    };
    let result = drive(&mut s, c, steps).await;
    s.send("quit").await;
    let ended = timeout(Duration::from_secs(10), run).await;
    let result = result.and_then(|()| match ended {
        Ok(Ok(Ok(()))) => Ok(()),
        other => Err(format!("gougi did not end cleanly after quit: {other:?}")),
    });
    s.report.virtual_time = Instant::now() - s.start;
    s.report.restarts = s
        .numbers
        .iter()
        .map(|&n| s.members.launches(n).saturating_sub(1))
        .sum();
    result
        .map(|()| s.report.clone())
        .map_err(|e| format!("{e}\nsession ({kind:?}, {text}):\n{}", s.transcript()))
}

async fn drive(s: &mut Session, c: &mut impl Choices, steps: u32) -> Result<(), String> {
    s.send("usi").await;
    s.until("usiok", Duration::from_secs(30)).await?;
    s.send("isready").await;
    s.until("readyok", Duration::from_secs(70)).await?;
    s.send("usinewgame").await;
    for _ in 0..steps {
        s.report.steps += 1;
        let position = s.position();
        match c.below(10) {
            0..=3 => {
                let (clock, budget) = draw_clock(c);
                s.send(&position).await;
                let go = s.send(&format!("go {clock}")).await;
                s.report.gos += 1;
                s.bestmove(go, go, budget, &position).await?;
                let mv = s.last_bestmove();
                s.advance(c, mv).await;
            }
            4..=6 => {
                // Ponder on a predicted reply: gougi's move and one of the opponent's.
                let (clock, budget) = draw_clock(c);
                let mv = s.last_bestmove();
                s.advance(c, mv.clone()).await;
                let Some(last) = s.moves.pop() else { continue };
                let board = s.board();
                let others: Vec<String> = board
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .filter(|m| *m != last)
                    .collect();
                s.moves.push(last);
                let pondered = s.position();
                s.send(&pondered).await;
                let go = s.send(&format!("go ponder {clock}")).await;
                s.report.gos += 1;
                sleep(Duration::from_millis(u64::from(
                    c.pick(&[0u32, 500, 3000, 10000, 40000]),
                )))
                .await;
                s.check().await?;
                if c.below(2) == 0 || others.is_empty() {
                    s.report.ponder_hits += 1;
                    let hit = s.send("ponderhit").await;
                    s.bestmove(go, hit, budget, &pondered).await?;
                    let mv = s.last_bestmove();
                    s.advance(c, mv).await;
                } else {
                    s.report.ponder_misses += 1;
                    let stop = s.send("stop").await;
                    s.bestmove(go, stop, Some(100 * MS), &pondered).await?;
                    s.moves.pop();
                    s.moves
                        .push(others[c.below(others.len() as u32) as usize].clone());
                    let position = s.position();
                    s.send(&position).await;
                    let go = s.send(&format!("go {clock}")).await;
                    s.report.gos += 1;
                    s.bestmove(go, stop, budget, &position).await?;
                    let mv = s.last_bestmove();
                    s.advance(c, mv).await;
                }
            }
            7 => {
                s.report.infinite += 1;
                s.send(&position).await;
                let go = s.send("go infinite").await;
                s.report.gos += 1;
                sleep(Duration::from_millis(u64::from(
                    c.pick(&[0u32, 700, 5000, 20000]),
                )))
                .await;
                s.check().await?;
                let stop = s.send("stop").await;
                s.bestmove(go, stop, Some(1100 * MS), &position).await?;
            }
            8 if s.mate_member => {
                s.report.mates += 1;
                s.send(&position).await;
                let t = c.pick(&[100u32, 1000, 10000, 0]);
                if t == 0 {
                    s.send("go mate infinite").await;
                    sleep(Duration::from_millis(u64::from(c.below(8000)))).await;
                    s.check().await?;
                    s.send("stop").await;
                } else {
                    s.send(&format!("go mate {t}")).await;
                }
                s.until("checkmate", Duration::from_millis(u64::from(t) + 5000))
                    .await?;
            }
            _ => {
                sleep(Duration::from_millis(u64::from(
                    c.pick(&[1u32, 300, 3500, 30000]),
                )))
                .await
            }
        }
        s.check().await?;
    }
    // Whatever is still owed is answered or given up for lost within the hang limit.
    sleep(Duration::from_secs(70)).await;
    s.check().await
}
