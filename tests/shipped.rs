//! The README's main command: `gougi` with no arguments in the repository folder reads the
//! shipped `SimpleGougi.config` (built-in search + built-in mate solver) and plays.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::Gougi;
use gougi::shogi::Position;

#[test]
fn the_shipped_config_plays_legal_moves_in_time_and_takes_mates() {
    let mut g = Gougi::start_in(&[], Some(Path::new(env!("CARGO_MANIFEST_DIR"))));
    g.send("usi");
    let usi = g.until_prefix("usiok");
    assert!(
        usi.iter().any(|l| l.starts_with("option name E1_")),
        "{usi:#?}"
    );
    assert!(
        usi.iter().any(|l| l.starts_with("option name E0_")),
        "the mate member's options"
    );
    assert!(usi
        .iter()
        .any(|l| l.starts_with("option name G_MateTimeout ")));
    g.send("setoption name USI_Hash value 64");
    g.send("isready");
    g.until(Duration::from_secs(60), |l| l == "readyok");
    g.send("usinewgame");
    let mut pos = Position::startpos();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..4 {
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        g.send(&position);
        let t0 = Instant::now();
        g.send("go btime 0 wtime 0 byoyomi 500");
        let lines = g.until_prefix("bestmove");
        assert!(
            t0.elapsed() < Duration::from_millis(500),
            "took {:?}",
            t0.elapsed()
        );
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        let mv = pos
            .parse_usi_move(&best)
            .unwrap_or_else(|e| panic!("illegal {best}: {e:?}"));
        pos.do_move(mv);
        moves.push(best);
        // The opponent's reply: any legal move will do.
        let reply = pos.legal_moves()[0];
        moves.push(reply.to_string());
        pos.do_move(reply);
    }
    // A mate in 1 is played, as the mate member proves it (on a machine with fewer CPUs than
    // `MateEngine.MinCores` under a clock the guard sits out, and the search finds it).
    g.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    assert_eq!(g.until_prefix("bestmove").last().unwrap(), "bestmove G*5b");
    g.send("quit");
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(0));
}

/// `Engine<N>.SoloOption` end to end, with the real binary and `builtin:search` members: E2
/// sits out under a clock (`MinCores` above any machine's CPUs), so E1 plays the byoyomi round
/// alone and is sent its solo values before that `go`, and its usual ones (the config's
/// `Engine1.Option.EvalNoise`, the search's default `Threads`) before the `go nodes` round both
/// play. The switches go to the log, not to the GUI.
#[test]
fn solo_options_reach_a_builtin_member_playing_alone() {
    let dir = common::scratch_dir("solo-options");
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        "Gougi.Type=optimistic\n\
         Engine1.Path=builtin:search\n\
         Engine1.Option.EvalNoise=50\n\
         Engine1.SoloOption.EvalNoise=0\n\
         Engine1.SoloOption.Threads=2\n\
         Engine2.Path=builtin:search\n\
         Engine2.MinCores=100000\n",
    )
    .unwrap();
    let log = dir.join("gougi.log");
    let mut g = Gougi::with_config_env(
        &config,
        &[
            ("GOUGI_LOG", "debug"),
            ("GOUGI_LOG_FILE", log.to_str().unwrap()),
        ],
    );
    let mut out = g.handshake();
    for go in ["go btime 0 wtime 0 byoyomi 300", "go nodes 3000"] {
        g.send("position startpos");
        g.send(go);
        out.extend(g.until(Duration::from_secs(10), |l| l.starts_with("bestmove")));
    }
    g.send("quit");
    assert_eq!(g.wait_exit(Duration::from_secs(10)), Some(0));
    assert!(
        !out.iter()
            .any(|l| l.contains("SoloOption") || l.contains("[Warning]")),
        "{out:#?}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    // What E1 was sent, in order: its options and its `go`s.
    let to_e1: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("member=1") && l.contains("to member"))
        .filter_map(|l| l.split("line=").nth(1))
        .map(|l| l.split(" cp932=").next().unwrap_or(l))
        .filter(|l| l.starts_with("setoption") || l.starts_with("go"))
        .map(|l| if l.starts_with("go") { "go" } else { l })
        .collect();
    assert_eq!(
        to_e1,
        [
            "setoption name EvalNoise value 50",
            "setoption name EvalNoise value 0",
            "setoption name Threads value 2",
            "go",
            "setoption name EvalNoise value 50",
            "setoption name Threads value 1",
            "go",
        ],
        "{text}"
    );
    assert!(
        text.lines().any(
            |l| l.contains("plays alone: its SoloOption values are applied")
                && l.contains("EvalNoise=0 Threads=2")
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
