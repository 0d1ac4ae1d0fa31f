//! End to end with real engines from Debian as members (`.ci/run` installs them):
//! gougi plays full games against Fairy-Stockfish at byoyomi 200 ms, and every move it makes
//! must be legal and in time. Without the engines the test skips with a message, unless
//! `GOUGI_REQUIRE_ENGINES` is set (`tests/common/tools.rs`).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::tools::{have_engines, FAIRY, GPS};
use common::{scratch_dir, Gougi};
use gougi::shogi::{Color, Position};

const BYOYOMI: u64 = 200;
const MAX_PLIES: usize = 80;

fn ready(e: &mut Gougi) {
    e.send("usi");
    e.until(Duration::from_secs(30), |l| l == "usiok");
    e.send("isready");
    e.until(Duration::from_secs(60), |l| l == "readyok");
    e.send("usinewgame");
}

/// Plays one game; gougi is Black when `gougi_black`. Returns the number of plies played.
fn game(gougi: &mut Gougi, opponent: &mut Gougi, gougi_black: bool) -> usize {
    let mut pos = Position::startpos();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..MAX_PLIES {
        let gougi_to_move = (pos.side_to_move() == Color::Black) == gougi_black;
        let engine = if gougi_to_move {
            &mut *gougi
        } else {
            &mut *opponent
        };
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        engine.send(&position);
        let t0 = Instant::now();
        engine.send(&format!("go btime 0 wtime 0 byoyomi {BYOYOMI}"));
        let lines = engine.until(Duration::from_secs(10), |l| l.starts_with("bestmove"));
        let elapsed = t0.elapsed();
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_string();
        if gougi_to_move {
            assert!(
                elapsed < Duration::from_millis(BYOYOMI),
                "gougi took {elapsed:?} at ply {ply}"
            );
            if best == "resign" || best == "win" {
                assert!(best != "win" || pos.declaration_win(), "false declaration");
                return ply;
            }
            let mv = pos
                .parse_usi_move(&best)
                .unwrap_or_else(|e| panic!("gougi played illegal {best} at ply {ply}: {e:?}"));
            pos.do_move(mv);
        } else {
            match pos.parse_usi_move(&best) {
                Ok(mv) => pos.do_move(mv),
                Err(_) => return ply, // the opponent resigned or erred: the game is over
            }
        }
        moves.push(best);
        if pos.legal_moves().is_empty() {
            return ply + 1;
        }
    }
    MAX_PLIES
}

#[test]
fn gougi_with_fairy_stockfish_gpsshogi_and_builtin_search_plays_legal_timely_games() {
    if !have_engines(&[FAIRY, GPS]) {
        return;
    }
    let dir = scratch_dir("e2e");
    let config = dir.join("SimpleGougi.config");
    std::fs::write(
        &config,
        format!("Gougi.Type=optimistic\nEngine1.Path={FAIRY}\nEngine2.Path={GPS}\nEngine3.Path=builtin:search\n"),
    )
    .unwrap();
    let mut gougi = Gougi::with_config(&config);
    ready(&mut gougi);
    gougi.send("setoption name E1_Threads value 1");
    gougi.send("setoption name E3_USI_Hash value 64");
    let mut fairy = Gougi::program(Path::new(FAIRY), &[], None);
    ready(&mut fairy);
    for gougi_black in [true, false] {
        let plies = game(&mut gougi, &mut fairy, gougi_black);
        assert!(plies > 0);
        gougi.send("gameover draw");
        fairy.send("gameover draw");
        gougi.send("isready");
        gougi.until(Duration::from_secs(60), |l| l == "readyok");
        gougi.send("usinewgame");
    }
    // gpsusi cannot think in 100 ms: gougi must have decided without it, never waited.
    assert!(gougi.seen.iter().any(|l| l.starts_with("info string [O]")));
}
