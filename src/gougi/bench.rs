//! `gougi bench proxy`: what the proxy costs.
//!
//! Members here are instant engines (`gougi bench-member`, this same binary) that answer every
//! `go` at once with a legal move, after `infos` info lines. The bench measures, over many
//! rounds, the time from writing `go` to reading `bestmove`:
//!
//! - **direct**: talking to one instant member without gougi — two pipe hops and the member;
//! - **proxy**: talking to gougi with three such members — four pipe hops, the members, and
//!   gougi's own work (parsing, legality checks, the decision, annotated lines).
//!
//! The added latency is bounded above by `proxy − direct` per percentile (the extra pipe hops
//! included), so a p99 below 1 ms there proves gougi adds less than 1 ms after the last
//! member's `bestmove`. With `infos` > 0 and `G_InfoRelay all`, the proxy relays every member's
//! info lines, which gives the relay throughput (lines per second through gougi).

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
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                anyhow::bail!("engine closed its output while waiting for {prefix}");
            }
            n += 1;
            if line.starts_with(prefix) {
                return Ok(n);
            }
        }
    }

    /// Round trips `position` + `go` → `bestmove`; durations and lines read.
    fn rounds(&mut self, n: usize) -> anyhow::Result<(Vec<Duration>, usize)> {
        let mut times = Vec::with_capacity(n);
        let mut lines = 0;
        for k in 0..n {
            let pos = if k % 2 == 0 {
                "position startpos"
            } else {
                "position startpos moves 7g7f"
            };
            self.send(pos)?;
            let t = Instant::now();
            self.send("go btime 0 wtime 0 byoyomi 10000")?;
            lines += self.until("bestmove")?;
            times.push(t.elapsed());
        }
        Ok((times, lines))
    }
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

/// Run the bench: `rounds` latency rounds, then `relay_rounds` rounds with `infos` info lines
/// per member and per round relayed through `G_InfoRelay all`.
pub fn run(rounds: usize, infos: usize, relay_rounds: usize) -> anyhow::Result<()> {
    let exe = std::env::current_exe()?;
    let dir = std::env::temp_dir().join(format!("gougi-bench-proxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let write_config = |infos: usize| -> anyhow::Result<std::path::PathBuf> {
        let path = dir.join(format!("bench-{infos}.config"));
        let member = format!("\"{}\" bench-member --infos {infos}", exe.display());
        let text = format!(
            "Gougi.Type=majority\nEngine1.Path={member}\nEngine2.Path={member}\nEngine3.Path={member}\n"
        );
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

    println!("round trip go -> bestmove, instant members ({rounds} rounds)");
    let mut direct_cmd = Command::new(&exe);
    direct_cmd.args(["bench-member", "--infos", "0"]);
    let mut direct = Engine::start(direct_cmd)?;
    handshake(&mut direct)?;
    let (d_times, _) = direct.rounds(rounds)?;
    let d = summary("direct", d_times);

    let mut proxy_cmd = Command::new(&exe);
    proxy_cmd.arg("--config").arg(write_config(0)?);
    let mut proxy = Engine::start(proxy_cmd)?;
    handshake(&mut proxy)?;
    let (p_times, _) = proxy.rounds(rounds)?;
    let p = summary("proxy", p_times);
    let added = |k: usize| p[k].saturating_sub(d[k]).as_secs_f64() * 1e6;
    println!(
        "added by gougi (3 members, upper bound): p50 {:.1} us  p99 {:.1} us",
        added(0),
        added(1)
    );
    drop(proxy);

    if relay_rounds > 0 && infos > 0 {
        let mut relay_cmd = Command::new(&exe);
        relay_cmd.arg("--config").arg(write_config(infos)?);
        let mut relay = Engine::start(relay_cmd)?;
        handshake(&mut relay)?;
        relay.send("setoption name G_InfoRelay value all")?;
        let t = Instant::now();
        let (_, lines) = relay.rounds(relay_rounds)?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "info relay: {lines} lines in {secs:.3} s = {:.0} lines/s ({} members x {infos} infos x {relay_rounds} rounds)",
            lines as f64 / secs,
            3
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
