//! Issue 65: gougi where tournament users play it — a GUI or a CSA bridge that never reads
//! stderr, the start-of-game sequences Shogidokoro and ShogiGUI send, and a server's clock with
//! network lag. Through the real binary with the shipped config (built-in members), and with
//! Debian's engines as members where they are installed.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Gougi;
use gougi::shogi::Position;

fn shipped_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("SimpleGougi.config")
}

/// Whether `bestmove` (a full `bestmove …` line) is legal in `position` (a `position` line).
fn legal_in(position: &str, bestmove: &str) -> bool {
    let mv = bestmove.split_whitespace().nth(1).expect("a move");
    let Ok(pos) = Position::from_usi_position(position.trim_start_matches("position ")) else {
        return false;
    };
    pos.legal_moves().iter().any(|m| m.to_string() == mv)
}

// ----- stderr nobody reads --------------------------------------------------------------------

/// A warning per line of about 10 KB: a `G_Margin` value of 10,000 digits, which gougi refuses
/// and logs (value included) at the default level.
fn noisy_setoption() -> String {
    format!("setoption name G_Margin value {}", "9".repeat(10_000))
}

/// Sends `n` noisy lines and reads back the `[Warning]` each draws on stdout, four at a time,
/// so that a gougi that stopped reading fails the test (no `[Warning]` within 30 s) instead of
/// blocking it on a full stdin pipe.
fn warn(g: &mut Gougi, n: usize) {
    let line = noisy_setoption();
    let mut sent = 0;
    while sent < n {
        let batch = (n - sent).min(4);
        for _ in 0..batch {
            g.send(&line);
        }
        let mut seen = 0;
        while seen < batch {
            let l = g
                .next(Duration::from_secs(30))
                .unwrap_or_else(|| panic!("gougi went silent after {} warnings", sent + seen));
            if l.starts_with("info string [Warning] setoption G_Margin") {
                seen += 1;
            }
        }
        sent += batch;
    }
}

#[test]
fn a_stderr_nobody_reads_never_stops_the_game() {
    let config = shipped_config();
    let mut g = Gougi::with_unread_stderr(&["--config", config.to_str().unwrap()], &[]);
    g.send("usi");
    g.until(Duration::from_secs(20), |l| l == "usiok");
    // 10 MB of warnings into a pipe that holds 64 KiB: before the fix gougi stopped answering
    // after about 82 KB.
    warn(&mut g, 1_000);
    g.send("isready");
    g.until(Duration::from_secs(20), |l| l == "readyok");
    g.send("usinewgame");
    // The game goes on, with more warnings between the moves (a chatty member mid-game).
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..4 {
        let position = common::distance::position(&moves);
        g.send(&position);
        let asked = Instant::now();
        g.send("go btime 0 wtime 0 byoyomi 500");
        let lines = g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
        let best = lines.last().unwrap().clone();
        assert!(
            asked.elapsed() < Duration::from_millis(1_500),
            "{best} after {:?}",
            asked.elapsed()
        );
        assert!(legal_in(&position, &best), "{best} in {position}");
        moves.push(best.split_whitespace().nth(1).unwrap().to_string());
        warn(&mut g, 50);
    }
    // A reader that comes late learns that lines are missing, and how many: each notice counts
    // the lines dropped before the line it precedes (a short line may find room between long
    // ones, so there may be several); together they count every line not written.
    let mut stderr = g.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    // The reader drains the pipe; the next warning brings the last notice out before it.
    std::thread::sleep(Duration::from_millis(500));
    warn(&mut g, 1);
    g.send("quit");
    assert!(
        g.wait_exit(Duration::from_secs(20)).is_some(),
        "gougi ended"
    );
    let text = reader.join().unwrap();
    let notices: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("log lines dropped"))
        .collect();
    let dropped: u64 = notices
        .iter()
        .map(|n| {
            n.trim_start_matches("gougi: ")
                .split(' ')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no count in {n:?}"))
        })
        .sum();
    let written = text.lines().filter(|l| l.contains("G_Margin")).count() as u64;
    // 1,201 warnings of ~10 KB: only a pipe's and a queue's worth (64 + 256 KiB) were kept,
    // and every other one is counted.
    assert_eq!(written + dropped, 1_201, "{notices:?}");
    assert!(written < 60, "{written} written");
}

// ----- what GUIs send at the start of every game ----------------------------------------------

/// The options gougi declares, as `(name, type, default)`.
fn declared(usi_lines: &[String]) -> Vec<(String, String, String)> {
    usi_lines
        .iter()
        .filter_map(|l| {
            let rest = l.strip_prefix("option name ")?;
            let (name, rest) = rest.split_once(" type ")?;
            let mut words = rest.split_whitespace();
            let kind = words.next()?.to_string();
            let default = rest
                .split_once(" default ")
                .map(|(_, d)| {
                    // A string's default is the rest of the line; others end at the next word.
                    if kind == "string" || kind == "filename" {
                        d.to_string()
                    } else {
                        d.split_whitespace().next().unwrap_or("").to_string()
                    }
                })
                .unwrap_or_default();
            Some((name.to_string(), kind, default))
        })
        .collect()
}

/// Lines that say "error" in any case: what the GUIs show their users as a fault. Option
/// declarations are names (gpsusi's `ErrorLogFile`), not faults. A member slower to answer
/// `usi` or `isready` than gougi waits (gpsusi takes 1 s idle for `usi`, several on a loaded
/// machine), or later than gougi's deadline with its move (the leader's two threads on two
/// cores busy with other tests), is reported as a fault, rightly, but that depends on the
/// machine, not on what the GUI sent: not counted here.
fn errors(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.to_ascii_lowercase().contains("error"))
        .filter(|l| !l.starts_with("option name "))
        .filter(|l| {
            !l.contains("has not answered usi yet")
                && !l.contains("is not ready; left out until")
                && !l.contains("no member answered in time")
        })
        .cloned()
        .collect()
}

/// One game's start as the GUI sends it, then two moves; every line gougi printed.
fn game(g: &mut Gougi, before_isready: &[String], ponder: bool) -> Vec<String> {
    let mut got = Vec::new();
    for l in before_isready {
        g.send(l);
    }
    g.send("isready");
    got.extend(g.until(Duration::from_secs(30), |l| l == "readyok"));
    g.send("usinewgame");
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
    let best = lines.last().unwrap().clone();
    got.extend(lines);
    let mut words = best.split_whitespace().skip(1);
    let mv = words.next().unwrap().to_string();
    if let (true, Some("ponder"), Some(reply)) = (ponder, words.next(), words.next()) {
        // The GUI ponders the predicted reply, the opponent plays it: ponderhit.
        g.send(&format!("position startpos moves {mv} {reply}"));
        g.send("go ponder btime 0 wtime 0 byoyomi 1000");
        std::thread::sleep(Duration::from_millis(100));
        g.send("ponderhit");
    } else {
        g.send(&format!("position startpos moves {mv} 3c3d"));
        g.send("go btime 0 wtime 0 byoyomi 1000");
    }
    got.extend(g.until(Duration::from_secs(10), |l| l.starts_with("bestmove")));
    g.send("gameover lose");
    // Whatever the members say as the game ends.
    std::thread::sleep(Duration::from_millis(300));
    while let Some(l) = g.next(Duration::from_millis(50)) {
        got.push(l);
    }
    got
}

/// Shogidokoro: every option the engine declared, with its value (here the defaults), then
/// `USI_Hash` and `USI_Ponder`, before every `isready`; buttons are not sent.
fn shogidokoro(options: &[(String, String, String)], ponder: bool) -> Vec<String> {
    let mut lines: Vec<String> = options
        .iter()
        .filter(|(name, kind, _)| kind != "button" && !name.starts_with("USI_"))
        .map(|(name, _, default)| format!("setoption name {name} value {default}"))
        .collect();
    lines.push("setoption name USI_Hash value 256".into());
    lines.push(format!("setoption name USI_Ponder value {ponder}"));
    lines
}

/// ShogiGUI: `USI_Ponder` and `USI_Hash`, then the options the user changed (none here).
fn shogigui(ponder: bool) -> Vec<String> {
    vec![
        format!("setoption name USI_Ponder value {ponder}"),
        "setoption name USI_Hash value 256".into(),
    ]
}

/// Two games in a row with each GUI's sequence, ponder off then on: no line says "error".
fn no_error_at_game_start(config: &Path) {
    for gui in ["Shogidokoro", "ShogiGUI"] {
        let mut g = Gougi::with_config(config);
        g.send("usi");
        let usi = g.until(Duration::from_secs(20), |l| l == "usiok");
        let options = declared(&usi);
        let mut all = usi.clone();
        for ponder in [false, true] {
            let before = if gui == "Shogidokoro" {
                shogidokoro(&options, ponder)
            } else {
                shogigui(ponder)
            };
            all.extend(game(&mut g, &before, ponder));
        }
        assert!(
            all.iter().filter(|l| l.starts_with("bestmove")).count() == 4,
            "{gui}: {all:#?}"
        );
        assert_eq!(errors(&all), Vec::<String>::new(), "{gui}, {config:?}");
    }
}

#[test]
fn the_start_of_every_game_draws_no_error_with_the_shipped_config() {
    no_error_at_game_start(&shipped_config());
}

#[test]
fn the_start_of_every_game_draws_no_error_with_debian_engines_as_members() {
    if !common::tools::have_engines(&[common::tools::FAIRY, common::tools::GPS]) {
        return;
    }
    let dir = common::scratch_dir("game-start-debian");
    // As the guides say to: Debian's gpsusi aborts at `go ponder` and prints Black's view.
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        "Gougi.Type=leader\n\
         Engine1.Path=builtin:search\n\
         Engine2.Path=/usr/games/gpsusi\n\
         Engine2.ScoreView=black\n\
         Engine2.Ponder=false\n\
         Engine3.Path=/usr/games/fairy-stockfish\n\
         Engine3.Option.UCI_Variant=shogi\n\
         MateEngine.Path=builtin:mate\n\
         MateEngine.Guard=true\n",
    )
    .unwrap();
    no_error_at_game_start(&config);
}

// ----- a CSA server's clock, with lag -----------------------------------------------------------

/// What the game's server and the bridge in front of gougi do with time, as floodgate's
/// `shogi-server` and ShogiHome's `usi-csa-bridge` do it: the server's clock for a move starts
/// when it *queues* the previous move (sending it takes `send_delay` on a loaded server) and
/// stops when it *reads* gougi's move; each way the line crosses `lag` of network. The server
/// charges whole seconds, floored, and flags a move once `floor(t) ≥ main + byoyomi`; the bridge
/// tells gougi the server's clock, in whole seconds, nothing subtracted.
struct CsaClock {
    lag: Duration,
    /// The server's extra delay in sending the previous move, per move (a loaded server).
    send_delay: Vec<Duration>,
    byoyomi_s: u64,
    /// gougi's remaining main time, whole seconds (the server's `mytime`).
    main_s: u64,
}

/// One move's result on the server's clock.
struct Charged {
    elapsed: Duration,
    flagged: bool,
}

impl CsaClock {
    /// Charges a move that took `gougi` between the bridge's `go` (or `ponderhit`) and the
    /// bridge reading `bestmove`; `upstream` is the time from the server's clock start to that
    /// `go`.
    fn charge(&mut self, upstream: Duration, gougi: Duration) -> Charged {
        let elapsed = upstream + gougi + self.lag;
        let t = elapsed.as_secs();
        let flagged = t >= self.main_s + self.byoyomi_s;
        self.main_s = self.main_s.saturating_sub(t);
        Charged { elapsed, flagged }
    }

    fn go(&self, ponder: bool) -> String {
        let ms = self.main_s * 1000;
        format!(
            "go{} btime {ms} wtime {ms} byoyomi {}",
            if ponder { " ponder" } else { "" },
            self.byoyomi_s * 1000
        )
    }
}

/// A small deterministic generator for the server's send delays and the opponent's choices.
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// `moves` moves of gougi (the shipped config) through the server and bridge above: 50 ms of
/// network each way and a loaded server (0–80 ms to send each move), at `main_s` + 2 s byoyomi,
/// with ponder (the opponent plays the predicted reply every other move; else gougi's ponder
/// is stopped and a plain `go` follows, as the bridge does). Returns each move's server time.
fn through_a_csa_server(main_s: u64, moves: usize) -> Vec<(Duration, bool)> {
    let config = shipped_config();
    let mut g = Gougi::with_config(&config);
    g.send("usi");
    g.until(Duration::from_secs(20), |l| l == "usiok");
    g.send("setoption name USI_Ponder value true");
    g.send("isready");
    g.until(Duration::from_secs(30), |l| l == "readyok");
    g.send("usinewgame");
    let mut seed = 65;
    let mut clock = CsaClock {
        lag: Duration::from_millis(50),
        send_delay: (0..moves)
            .map(|_| Duration::from_millis(lcg(&mut seed) % 81))
            .collect(),
        byoyomi_s: 2,
        main_s,
    };
    let mut played: Vec<String> = Vec::new();
    let mut pondering: Option<String> = None;
    let mut out = Vec::new();
    for k in 0..moves {
        // The opponent's move is queued: the server's clock for gougi starts.
        let start = Instant::now();
        let position = format!("position startpos moves {}", played.join(" "));
        let position = position.trim_end().trim_end_matches(" moves").to_string();
        std::thread::sleep(clock.send_delay[k] + clock.lag);
        let asked = Instant::now();
        match pondering.take() {
            Some(ponder_pos) if ponder_pos == position => g.send("ponderhit"),
            Some(_) => {
                g.send("stop");
                g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
                g.send(&position);
                g.send(&clock.go(false));
            }
            None => {
                g.send(&position);
                g.send(&clock.go(false));
            }
        }
        let lines = g.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
        let took = asked.elapsed();
        let charged = clock.charge(asked - start, took);
        out.push((charged.elapsed, charged.flagged));
        if charged.flagged {
            break;
        }
        let best = lines.last().unwrap().clone();
        assert!(legal_in(&position, &best), "{best} in {position}");
        let mut words = best.split_whitespace().skip(1);
        played.push(words.next().unwrap().to_string());
        let predicted = words.nth(1).map(str::to_string);
        // The opponent: the predicted reply every other move, else its first other legal move.
        let after =
            Position::from_usi_position(&format!("position startpos moves {}", played.join(" ")))
                .expect("legal so far");
        let legal: Vec<String> = after.legal_moves().iter().map(|m| m.to_string()).collect();
        let reply = match &predicted {
            Some(p) if k % 2 == 0 => p.clone(),
            _ => legal
                .iter()
                .find(|m| Some(*m) != predicted.as_ref())
                .cloned()
                .expect("a legal reply"),
        };
        if let Some(p) = predicted {
            // The bridge ponders the predicted reply at once.
            let ponder_pos = format!("position startpos moves {} {p}", played.join(" "));
            g.send(&ponder_pos);
            g.send(&clock.go(true));
            pondering = Some(ponder_pos);
        }
        played.push(reply);
        // The opponent thinks a little before its move reaches the server.
        std::thread::sleep(Duration::from_millis(100 + lcg(&mut seed) % 200));
    }
    out
}

#[test]
fn no_time_loss_through_a_csa_server_with_50_ms_of_lag_each_way() {
    let moves = through_a_csa_server(0, 8);
    let flagged: Vec<String> = moves
        .iter()
        .enumerate()
        .filter(|(_, (_, f))| *f)
        .map(|(k, (t, _))| format!("move {}: {t:?} on the server's clock", k + 1))
        .collect();
    assert!(flagged.is_empty(), "lost on time: {flagged:?} ({moves:?})");
    let slowest = moves.iter().map(|m| m.0).max().unwrap();
    eprintln!("0 + 2 s through a CSA server, 50 ms each way: slowest move {slowest:?} on the server's clock");
    assert_eq!(moves.len(), 8);
}
