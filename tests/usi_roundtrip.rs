//! Whole USI conversations through the public `gougi::usi` API: every GUI and engine line of
//! realistic sessions (Shogidokoro/ShogiHome on the GUI side; YaneuraOu, dlshogi and a mate
//! engine on the engine side) parses leniently, re-formats to the same text when canonical, and
//! yields the typed facts a consultation proxy reads from it.

use gougi::usi::{
    BestMove, Bound, Checkmate, EngineMessage, GoLimits, GuiCommand, InfoScore, Mate, MateLimit,
    OptionKind, PositionBase, Score, Strictness, UsiMove,
};

/// A ShogiHome game with early ponder, then Shogidokoro's gameover-without-stop, then analysis.
const GUI_SESSION: &str = "\
usi
setoption name USI_Hash value 1024
setoption name USI_Ponder value true
setoption name E1_OwnBook value false
setoption name EvalDir value eval files
isready
usinewgame
position startpos
go btime 300000 wtime 300000 byoyomi 10000
position startpos moves 7g7f 3c3d
go ponder
ponderhit btime 290000 wtime 300000 byoyomi 10000
position startpos moves 7g7f 3c3d 2g2f 8c8d
go ponder btime 290000 wtime 295000 byoyomi 10000
stop
gameover lose
isready
position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f
go infinite
stop
position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p 1
go mate 10000
go btime 0 wtime 0 binc 5000 winc 5000
quit
";

/// Engine output as real engines print it (spacing already canonical).
const ENGINE_SESSION: &str = "\
id name YaneuraOu NNUE 8.30 64AVX2
id author by yaneurao
option name Threads type spin default 4 min 1 max 1024
option name USI_Hash type spin default 1024 min 1 max 33554432
option name USI_Ponder type check default false
option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule24 var CSARule24H var CSARule27 var CSARule27H var TryRule
option name BookFile type combo default standard_book.db var no_book var standard_book.db var user_book1.db
option name EvalDir type string default eval
option name ClearHash type button
usiok

readyok
info depth 1 seldepth 1 score cp 52 nodes 61 nps 30500 time 2 pv 2g2f
info string Out Of Memory.
info depth 18 seldepth 24 score cp 80 lowerbound nodes 2847193 nps 1423596 hashfull 31 time 2000 pv 2g2f
info depth 18 seldepth 24 multipv 1 score cp 74 nodes 3001234 nps 1425000 hashfull 33 time 2106 pv 2g2f 8c8d 2f2e
info score mate + pv S*4b
info depth 30 score mate -0
bestmove 2g2f ponder 8c8d
checkmate G*5b
checkmate nomate
checkmate none
bestmove resign
bestmove win
";

#[test]
fn gui_session_parses_and_canonical_lines_round_trip() {
    for line in GUI_SESSION.lines() {
        let cmd: GuiCommand = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(!matches!(cmd, GuiCommand::Unknown(_)), "{line}");
        assert_eq!(cmd.to_string(), line);
        assert_eq!(GuiCommand::parse(line, Strictness::Strict), Ok(cmd));
    }
}

#[test]
fn gui_session_typed_facts() {
    let cmds: Vec<GuiCommand> = GUI_SESSION.lines().map(|l| l.parse().unwrap()).collect();

    let GuiCommand::SetOption(opt) = &cmds[4] else {
        panic!("not setoption")
    };
    assert_eq!(opt.name, "EvalDir");
    assert_eq!(opt.value.as_deref(), Some("eval files"));

    let GuiCommand::PonderHit(clock) = &cmds[11] else {
        panic!("not ponderhit")
    };
    assert_eq!(clock.clock_of(true), (Some(290_000), None));
    assert_eq!(clock.byoyomi, Some(10_000));

    let GuiCommand::Position(p) = &cmds[12] else {
        panic!("not position")
    };
    assert_eq!(p.base, PositionBase::StartPos);
    assert_eq!(p.moves.len(), 4);
    let predicted = p.with_move("7i6h".parse::<UsiMove>().unwrap());
    assert_eq!(
        predicted.to_string(),
        "position startpos moves 7g7f 3c3d 2g2f 8c8d 7i6h"
    );

    let GuiCommand::Go(mate) = &cmds[21] else {
        panic!("not go mate")
    };
    assert_eq!(mate.mate, Some(MateLimit::Time(10_000)));

    let GuiCommand::Go(fischer) = &cmds[22] else {
        panic!("not go")
    };
    assert_eq!(
        fischer,
        &GoLimits {
            btime: Some(0),
            wtime: Some(0),
            binc: Some(5000),
            winc: Some(5000),
            ..GoLimits::default()
        }
    );
}

#[test]
fn engine_session_parses_and_canonical_lines_round_trip() {
    for line in ENGINE_SESSION.lines() {
        let msg: EngineMessage = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        // Only the empty keep-alive line is unknown.
        assert_eq!(
            matches!(msg, EngineMessage::Unknown(_)),
            line.is_empty(),
            "{line}"
        );
        // Canonical field order differs from YaneuraOu's (`score` before `nodes`) on info
        // lines; those must still re-parse to the same value.
        let text = msg.to_string();
        if line.starts_with("info depth") && line.contains(" nodes ") {
            assert_eq!(text.parse::<EngineMessage>(), Ok(msg), "{line}");
        } else {
            assert_eq!(text, line);
        }
    }
}

#[test]
fn engine_session_typed_facts_a_proxy_needs() {
    let msgs: Vec<EngineMessage> = ENGINE_SESSION.lines().map(|l| l.parse().unwrap()).collect();

    // Option re-export: rename and print (GougiShogi's E<N>_ prefix).
    let options: Vec<_> = msgs
        .iter()
        .filter_map(|m| match m {
            EngineMessage::Option(d) => Some(d.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(options.len(), 7);
    let mut renamed = options[3].clone();
    renamed.name = format!("E1_{}", renamed.name);
    assert_eq!(
        renamed.to_string(),
        "option name E1_EnteringKingRule type combo default CSARule27 var NoEnteringKing \
         var CSARule24 var CSARule24H var CSARule27 var CSARule27H var TryRule"
    );
    assert!(matches!(options[6].kind, OptionKind::Button));
    assert!(options[1].check_value(Some("4096")).is_ok());

    // The member's "current score": the last exact main-line score before bestmove.
    let current = msgs
        .iter()
        .filter_map(|m| match m {
            EngineMessage::Info(i) if i.is_main_line() => i.score,
            _ => None,
        })
        .filter(|s| s.bound == Bound::Exact)
        .take(4)
        .collect::<Vec<InfoScore>>();
    assert_eq!(current[0].score, Score::Cp(52));
    assert_eq!(current[1].score, Score::Cp(74));
    assert_eq!(current[2].score, Score::Mate(Mate::WIN_UNKNOWN));
    assert_eq!(current[3].score, Score::Mate(Mate::lose_in(0)));
    assert!(current[2].score.key() > current[1].score.key());
    assert!(current[3].score.key() < current[0].score.key());

    let bestmoves: Vec<BestMove> = msgs
        .iter()
        .filter_map(|m| match m {
            EngineMessage::BestMove(b) => Some(*b),
            _ => None,
        })
        .collect();
    assert_eq!(
        bestmoves[0].mv().map(|m| m.to_string()).as_deref(),
        Some("2g2f")
    );
    assert_eq!(bestmoves[0].ponder().unwrap(), "8c8d");
    assert_eq!(bestmoves[1], BestMove::Resign);
    assert_eq!(bestmoves[2], BestMove::Win);

    let checkmates: Vec<&Checkmate> = msgs
        .iter()
        .filter_map(|m| match m {
            EngineMessage::Checkmate(c) => Some(c),
            _ => None,
        })
        .collect();
    assert!(checkmates[0].is_mate());
    assert_eq!(checkmates[1], &Checkmate::NoMate);
    assert_eq!(checkmates[2], &Checkmate::NoneFound);
}
