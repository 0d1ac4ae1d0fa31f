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
    // A mate in 1 is played as the mate member proves it.
    g.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    assert_eq!(g.until_prefix("bestmove").last().unwrap(), "bestmove G*5b");
    g.send("quit");
    assert_eq!(g.wait_exit(Duration::from_secs(5)), Some(0));
}
