//! `gougi bench proxy`: what the proxy costs.
//!
//! Members here are instant engines (`gougi bench-member`, this same binary) that answer every
//! `go` at once with a legal move, after `infos` info lines. The bench measures, over many
//! rounds, the time from writing `go` to reading `bestmove`:
//!
//! - **direct**: talking to one instant member without gougi — two pipe hops and the member;
//! - **proxy**: talking to gougi with N such members (`--members`, 3 by default) — four pipe
//!   hops, the members, and gougi's own work (parsing, legality checks, the decision, annotated
//!   lines). gougi's own CPU time per round is read from `/proc` beside it: with many members
//!   on few cores the round trip also holds the members' wake-ups, which are not gougi's cost.
//!
//! - **direct N**: the bench itself talking to N instant members, as a GUI that ran N engines
//!   would: `position` and `go` to each, then every `bestmove`. This is what N members cost on
//!   this machine without gougi: their wake-ups on shared cores, N pipe writes and N reads.
//!
//! Every frame times a round from `position` to `bestmove`, with `position` and `go` in one
//! write: gougi passes `position` on to its members only with `go` (in one write), so timing
//! from `go` would leave the direct members' reading of `position` outside their round but
//! gougi's members' inside it.
//!
//! The added latency is bounded above by `proxy − direct` per percentile (the extra pipe hops
//! included), so a p99 below 1 ms there proves gougi adds less than 1 ms after the last
//! member's `bestmove`. Against one member (`direct`) the difference also holds the other
//! N − 1 members' wake-ups, which grow with N whoever talks to them; against `direct N` it is
//! what putting gougi between a GUI and N members adds. Both are printed. With `infos` > 0 and
//! `G_InfoRelay all`, the proxy relays every member's info lines, which gives the relay
//! throughput (lines per second through gougi).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::shogi::Position;

/// One instant USI member for the bench (and for anyone who needs a trivial engine): answers
/// `go` with `infos` info lines and the first legal move of the position.
pub fn instant_member(infos: usize) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut pos = Position::startpos();
    for line in stdin.lock().lines() {
        let line = line?;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("usi") => writeln!(out, "id name instant\nid author gougi\nusiok")?,
            Some("isready") => writeln!(out, "readyok")?,
            Some("position") => {
                pos = Position::from_usi_position(line.trim_start_matches("position").trim())
                    .unwrap_or_else(|_| Position::startpos());
            }
            Some("go") => {
                let moves = pos.legal_moves();
                let mv = moves
                    .first()
                    .map_or("resign".to_string(), |m| m.to_string());
                for k in 0..infos {
                    writeln!(
                        out,
                        "info depth {} nodes {} score cp {} pv {mv}",
                        k + 1,
                        k * 100,
                        k % 50
                    )?;
                }
                writeln!(
                    out,
                    "info depth {} score cp 0 pv {mv}\nbestmove {mv}",
                    infos + 1
                )?;
            }
            Some("quit") => break,
            _ => {}
        }
        out.flush()?;
    }
    Ok(())
}

struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(mut cmd: Command) -> anyhow::Result<Engine> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| anyhow::anyhow!("no stdin"))?;
        let stdout = BufReader::new(
            child
                .stdout
                .take()
                .ok_or_else(|| anyhow::anyhow!("no stdout"))?,
        );
        Ok(Engine {
            child,
            stdin,
            stdout,
        })
    }

    fn send(&mut self, line: &str) -> anyhow::Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// Lines read until one starts with `prefix` (inclusive count).
    fn until(&mut self, prefix: &str) -> anyhow::Result<usize> {
        let mut n = 0;
        let mut line = String::new();
        // The last line read, for the message if the engine ends first (gougi says why there).
        let mut last = String::new();
        loop {
            if !line.is_empty() {
                last = format!(" (its last line: {})", line.trim_end());
            }
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                anyhow::bail!("engine closed its output while waiting for {prefix}{last}");
            }
            n += 1;
            if line.starts_with(prefix) {
                return Ok(n);
            }
        }
    }

    /// Round trips `position` + `go` → `bestmove`, alternating between `positions`; durations
    /// and lines read. The clock starts before `position`, as a GUI's wait does: it sends the
    /// two together (here in one write), and a proxy may pass `position` on only with `go`
    /// (gougi does), so the members' reading of it is inside the round either way.
    fn rounds(
        &mut self,
        n: usize,
        positions: &[String; 2],
    ) -> anyhow::Result<(Vec<Duration>, usize)> {
        let mut times = Vec::with_capacity(n);
        let mut lines = 0;
        for k in 0..n {
            let t = Instant::now();
            self.send(&format!("{}\n{GO}", positions[k % 2]))?;
            lines += self.until("bestmove")?;
            times.push(t.elapsed());
        }
        Ok((times, lines))
    }
}

/// The bench's `go`: a byoyomi no instant member comes near.
const GO: &str = "go btime 0 wtime 0 byoyomi 10000";

/// Round trips with N members talked to directly: `position` to each, then `go` to each (the
/// clock starts before the first `position`, as [`Engine::rounds`] starts it before its
/// `position`; each member gets both lines in one write, as gougi writes them), then every
/// member's `bestmove`.
fn group_rounds(
    engines: &mut [Engine],
    n: usize,
    positions: &[String; 2],
) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::with_capacity(n);
    for k in 0..n {
        let t = Instant::now();
        let request = format!("{}\n{GO}", positions[k % 2]);
        for e in engines.iter_mut() {
            e.send(&request)?;
        }
        for e in engines.iter_mut() {
            e.until("bestmove")?;
        }
        times.push(t.elapsed());
    }
    Ok(times)
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(label: &str, mut times: Vec<Duration>) -> [Duration; 3] {
    times.sort();
    let q = [
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        *times.last().expect("rounds"),
    ];
    println!(
        "{label:<8} rounds {:>6}  p50 {:>7.1} us  p99 {:>7.1} us  max {:>8.1} us",
        times.len(),
        q[0].as_secs_f64() * 1e6,
        q[1].as_secs_f64() * 1e6,
        q[2].as_secs_f64() * 1e6
    );
    q
}

/// What `gougi bench proxy` measures (its command-line arguments).
pub struct Settings {
    /// Latency rounds per member count.
    pub rounds: usize,
    /// Info lines per member per relay round.
    pub infos: usize,
    /// Relay rounds per member count.
    pub relay_rounds: usize,
    /// The member counts to measure, in turn.
    pub members: Vec<usize>,
    /// `G_InfoRelay` for the relay rounds.
    pub relay: String,
    /// Plies into a game for the rounds' positions (0: the start position).
    pub ply: usize,
}

/// The two `position` lines the rounds alternate between: `ply` and `ply + 1` plies into a game
/// that always plays the first legal move (any legal game would do: what matters to the bench is
/// the length of the line every member is sent), or fewer if that game ends before.
fn positions(ply: usize) -> [String; 2] {
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    let mut lines = Vec::new();
    for k in 0..=ply + 1 {
        if k >= ply {
            lines.push(if moves.is_empty() {
                "position startpos".to_string()
            } else {
                format!("position startpos moves {}", moves.join(" "))
            });
        }
        let Some(mv) = pos.legal_moves().first().copied() else {
            break;
        };
        moves.push(mv.to_string());
        pos.do_move(mv);
    }
    let first = lines.first().cloned().unwrap_or_default();
    let second = lines.get(1).cloned().unwrap_or_else(|| first.clone());
    [first, second]
}

/// One member count's figures, for the closing table.
struct Row {
    members: usize,
    /// Over one member talked to directly (p50, p99), µs.
    added: [f64; 2],
    /// Over the same N members talked to directly (p50, p99), µs.
    added_n: [f64; 2],
    /// gougi's own CPU time per latency round (user + system), µs: what the coordinator costs,
    /// apart from the members' wake-ups that share the machine's cores with it.
    cpu_us: Option<f64>,
    /// Member info lines handled per second, and lines the GUI received per second.
    relay: Option<(f64, f64)>,
    fds: Option<usize>,
    rss_kb: Option<u64>,
}

/// `/proc/<pid>` figures (Linux; elsewhere `None`): open descriptors, resident memory (kB),
/// CPU time used so far.
mod proc_stats {
    use std::time::Duration;

    pub fn fds(pid: u32) -> Option<usize> {
        Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
    }

    pub fn rss_kb(pid: u32) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    pub fn cpu(pid: u32) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name (which may hold spaces): state is field 3, utime 14,
        // stime 15, in clock ticks of 1/100 s (USER_HZ on every Linux gougi builds for).
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }
}

/// Run the bench: for each member count, `rounds` latency rounds, then `relay_rounds` rounds
/// with `infos` info lines per member and per round relayed under `G_InfoRelay` `relay`.
pub fn run(settings: &Settings) -> anyhow::Result<()> {
    let Settings {
        rounds,
        infos,
        relay_rounds,
        ..
    } = *settings;
    if rounds == 0 {
        anyhow::bail!("--rounds must be at least 1");
    }
    // The proxy's members decide by `majority`, which needs two (gougi refuses a config with
    // fewer, and the bench would only see it end).
    if let Some(n) = settings.members.iter().find(|&&n| n < 2) {
        anyhow::bail!("--members: each count must be at least 2 (a `majority` of {n} is refused)");
    }
    let exe = std::env::current_exe()?;
    let dir = std::env::temp_dir().join(format!("gougi-bench-proxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let write_config = |members: usize, infos: usize| -> anyhow::Result<std::path::PathBuf> {
        let path = dir.join(format!("bench-{members}-{infos}.config"));
        let member = format!("\"{}\" bench-member --infos {infos}", exe.display());
        let mut text = "Gougi.Type=majority\n".to_string();
        for k in 1..=members {
            text.push_str(&format!("Engine{k}.Path={member}\n"));
        }
        std::fs::write(&path, text)?;
        Ok(path)
    };
    let handshake = |e: &mut Engine| -> anyhow::Result<()> {
        e.send("usi")?;
        e.until("usiok")?;
        e.send("isready")?;
        e.until("readyok")?;
        e.send("usinewgame")
    };
    // One instant member with no info lines, talked to directly, ready for its first `go`.
    let direct_member = || -> anyhow::Result<Engine> {
        let mut cmd = Command::new(&exe);
        cmd.args(["bench-member", "--infos", "0"]);
        let mut e = Engine::start(cmd)?;
        handshake(&mut e)?;
        Ok(e)
    };

    let positions = positions(settings.ply);
    println!(
        "round trip go -> bestmove, instant members ({rounds} rounds, positions {} and {} plies in)",
        positions[0].split_whitespace().count().saturating_sub(3),
        positions[1].split_whitespace().count().saturating_sub(3)
    );
    let mut direct = direct_member()?;
    let (d_times, _) = direct.rounds(rounds, &positions)?;
    let d = summary("direct", d_times);
    drop(direct);

    let mut rows = Vec::new();
    for &n in &settings.members {
        let mut proxy_cmd = Command::new(&exe);
        proxy_cmd.arg("--config").arg(write_config(n, 0)?);
        let mut proxy = Engine::start(proxy_cmd)?;
        handshake(&mut proxy)?;
        let pid = proxy.child.id();
        // One round first: every member's first `go` is behind it, so descriptors and memory
        // are those of a running game.
        proxy.rounds(1, &positions)?;
        let (fds, rss_kb) = (proc_stats::fds(pid), proc_stats::rss_kb(pid));
        let cpu_before = proc_stats::cpu(pid);
        let (p_times, _) = proxy.rounds(rounds, &positions)?;
        let cpu_us = match (cpu_before, proc_stats::cpu(pid)) {
            (Some(a), Some(b)) => Some((b - a).as_secs_f64() * 1e6 / rounds.max(1) as f64),
            _ => None,
        };
        let p = summary(&format!("proxy {n}"), p_times);
        let added = |k: usize| p[k].saturating_sub(d[k]).as_secs_f64() * 1e6;
        println!(
            "added by gougi ({n} members, upper bound, over one member): p50 {:.1} us  p99 {:.1} us",
            added(0),
            added(1)
        );
        drop(proxy);

        // The same N members without gougi, started after the proxy's are gone so that the
        // two never share the machine.
        let mut group = (0..n)
            .map(|_| direct_member())
            .collect::<anyhow::Result<Vec<_>>>()?;
        group_rounds(&mut group, 1, &positions)?;
        let dn = summary(
            &format!("direct {n}"),
            group_rounds(&mut group, rounds, &positions)?,
        );
        drop(group);
        let added_n = |k: usize| p[k].saturating_sub(dn[k]).as_secs_f64() * 1e6;
        println!(
            "added by gougi ({n} members, upper bound, over {n} members direct): p50 {:.1} us  p99 {:.1} us",
            added_n(0),
            added_n(1)
        );

        let mut relay = None;
        if relay_rounds > 0 && infos > 0 {
            let mut relay_cmd = Command::new(&exe);
            relay_cmd.arg("--config").arg(write_config(n, infos)?);
            let mut engine = Engine::start(relay_cmd)?;
            handshake(&mut engine)?;
            engine.send(&format!(
                "setoption name G_InfoRelay value {}",
                settings.relay
            ))?;
            let t = Instant::now();
            let (_, lines) = engine.rounds(relay_rounds, &positions)?;
            let secs = t.elapsed().as_secs_f64();
            // Every member prints `infos` lines and one more with its bestmove's score.
            let handled = n * (infos + 1) * relay_rounds;
            println!(
                "info relay ({}): {handled} member lines in {secs:.3} s = {:.0} lines/s; \
                 the GUI read {lines} lines = {:.0} lines/s ({n} members x {infos} infos x {relay_rounds} rounds)",
                settings.relay,
                handled as f64 / secs,
                lines as f64 / secs,
            );
            relay = Some((handled as f64 / secs, lines as f64 / secs));
        }
        rows.push(Row {
            members: n,
            added: [added(0), added(1)],
            added_n: [added_n(0), added_n(1)],
            cpu_us,
            relay,
            fds,
            rss_kb,
        });
    }
    println!();
    println!(
        "members  added p50 us  added p99 us  over N direct p50  p99 us  gougi cpu us/round  member lines/s  gui lines/s  fds  fds/member  RSS kB  RSS kB/member"
    );
    let opt =
        |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    for r in &rows {
        let n = r.members as f64;
        println!(
            "{:>7}  {:>12.1}  {:>12.1}  {:>17.1}  {:>6.1}  {:>18}  {:>14}  {:>11}  {:>4}  {:>10}  {:>6}  {:>13}",
            r.members,
            r.added[0],
            r.added[1],
            r.added_n[0],
            r.added_n[1],
            opt(r.cpu_us, 1),
            opt(r.relay.map(|x| x.0), 0),
            opt(r.relay.map(|x| x.1), 0),
            r.fds.map_or("-".to_string(), |f| f.to_string()),
            opt(r.fds.map(|f| f as f64 / n), 2),
            r.rss_kb.map_or("-".to_string(), |f| f.to_string()),
            opt(r.rss_kb.map(|f| f as f64 / n), 1),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
