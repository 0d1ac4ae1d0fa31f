//! Games against members at a distance (issue 53 item 2): mock members that spend their whole
//! clock (`think`), some behind the delay relay (`examples/delay_relay.rs`), playing legal moves
//! from a moves file; what a GUI sees is counted: `bestmove`s later than the byoyomi, and for
//! each member the moves at which its answer was used (it has an `[O]`/`[X]` line: an answer
//! dropped as late has none).

use std::path::Path;
use std::time::{Duration, Instant};

use gougi::shogi::position::Position;

use super::Gougi;

/// The script of a member named `name` that thinks its whole clock, then plays a legal move.
pub fn thinker(name: &str, moves_file: &Path, transcript: &Path) -> String {
    format!(
        "id name {name}\nmoves_file: {}\ntranscript: {}\ngo: think ; play\n",
        moves_file.display(),
        transcript.display()
    )
}

/// What a game gave.
#[derive(Debug)]
pub struct Outcome {
    pub moves: usize,
    /// `bestmove`s that came after the byoyomi (from the `go` written to their reading).
    pub late: usize,
    /// Per member name (in the order asked): moves at which its answer was used.
    pub used: Vec<usize>,
    /// Per member name: the moves (from 0) at which its answer was not used, with gougi's
    /// lines of that move.
    pub missed: Vec<Vec<(usize, Vec<String>)>>,
    pub slowest: Duration,
    /// Every line gougi printed.
    pub lines: Vec<String>,
}

impl Outcome {
    /// The share of moves at which member `k`'s answer was used, in percent.
    pub fn used_pct(&self, k: usize) -> f64 {
        100.0 * self.used[k] as f64 / self.moves.max(1) as f64
    }

    /// Prints the game's figures under `label`, then checks that no `bestmove` came after
    /// the byoyomi and that each of `names`' answers was used on ≥ 95 % of moves (on a loaded
    /// 2-core machine a local member too can overrun gougi's decision once in a while: the
    /// margin's business, not these tests').
    pub fn assert_in_time_and_used(&self, label: &str, names: &[&str]) {
        let used: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(k, who)| format!("{who} used {:.1} %", self.used_pct(k)))
            .collect();
        println!(
            "{label}, {} moves: late bestmoves {}, {}, slowest {:?}",
            self.moves,
            self.late,
            used.join(", "),
            self.slowest
        );
        assert_eq!(self.late, 0, "gougi answered after the byoyomi");
        for (k, who) in names.iter().enumerate() {
            assert!(
                self.used_pct(k) >= 95.0,
                "the {who} member's answer was used at {} of {} moves; missed: {:#?}",
                self.used[k],
                self.moves,
                self.missed[k].iter().map(|m| m.0).collect::<Vec<_>>()
            );
        }
    }
}

/// The `position` command of the start position after `moves`.
pub fn position(moves: &[String]) -> String {
    if moves.is_empty() {
        "position startpos".into()
    } else {
        format!("position startpos moves {}", moves.join(" "))
    }
}

/// The legal moves of a `position` command's position, in USI.
pub fn legal_moves(pos: &str) -> Vec<String> {
    let board = Position::from_usi_position(pos).expect("the test's positions are legal");
    board.legal_moves().iter().map(|m| m.to_string()).collect()
}

/// `moves` moves of gougi (its config's members answer from `moves_file`) at `byoyomi` ms,
/// against the first legal move; `names`: the members whose answers are counted.
pub fn play(
    g: &mut Gougi,
    moves_file: &Path,
    moves: usize,
    byoyomi: u64,
    names: &[&str],
) -> Outcome {
    g.send("usinewgame");
    let mut played: Vec<String> = Vec::new();
    let mut out = Outcome {
        moves: 0,
        late: 0,
        used: vec![0; names.len()],
        missed: vec![Vec::new(); names.len()],
        slowest: Duration::ZERO,
        lines: Vec::new(),
    };
    for k in 0..moves {
        let pos = position(&played);
        let legal = legal_moves(&pos);
        let tmp = moves_file.with_extension("tmp");
        std::fs::write(&tmp, format!("{pos}\t{}\n", legal.join(" "))).expect("moves");
        std::fs::rename(&tmp, moves_file).expect("moves file in place");
        g.send(&pos);
        let t = Instant::now();
        g.send(&format!("go btime 0 wtime 0 byoyomi {byoyomi}"));
        let lines = g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
        let took = t.elapsed();
        out.slowest = out.slowest.max(took);
        out.moves += 1;
        if took > Duration::from_millis(byoyomi) {
            out.late += 1;
        }
        let line = lines.last().expect("a bestmove");
        let mv = line.split_whitespace().nth(1).expect("a move").to_string();
        assert!(legal.contains(&mv), "illegal {line} in {pos}");
        for (m, name) in names.iter().enumerate() {
            let tag = format!("[{name}]");
            let answered = lines.iter().any(|l| {
                (l.starts_with("info string [O]") || l.starts_with("info string [X]"))
                    && l.ends_with(&tag)
            });
            out.used[m] += usize::from(answered);
            if !answered {
                out.missed[m].push((k, lines.clone()));
            }
        }
        out.lines.extend(lines);
        played.push(mv);
        let Some(reply) = legal_moves(&position(&played)).into_iter().next() else {
            break;
        };
        played.push(reply);
    }
    out
}

/// The `go` lines a member's transcript holds.
pub fn gos(transcript: &Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("go "))
        .map(str::to_string)
        .collect()
}
