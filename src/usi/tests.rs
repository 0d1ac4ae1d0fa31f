//! Round-trip and parsing tests across the USI types: `format(parse(line)) == line` for canonical
//! lines, `parse(format(x)) == x` for hand-built and generated values of every variant, messy
//! whitespace, strict-versus-lenient differences, and error values for malformed lines.

use super::*;

fn mv(text: &str) -> UsiMove {
    UsiMove::parse(text).unwrap()
}

fn gui_strict(line: &str) -> GuiCommand {
    GuiCommand::parse_strict(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

fn gui_lenient(line: &str) -> GuiCommand {
    line.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

fn eng_strict(line: &str) -> EngineMessage {
    EngineMessage::parse_strict(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

fn eng_lenient(line: &str) -> EngineMessage {
    line.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

const CANONICAL_GUI: &[&str] = &[
    "usi",
    "isready",
    "setoption name USI_Hash value 256",
    "setoption name USI_Ponder value true",
    "setoption name EvalDir value my eval  dir",
    "setoption name ClearHash",
    "setoption name BookFile value",
    "usinewgame",
    "position startpos",
    "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "position sfen 8l/1r5k1/4+P1gpp/p3p1p2/2p2P1P1/P1P1P1P1P/1P2GS3/1KG6/LN5NL w BGS2Prbsnl2p 73 moves 2c2d R*2b",
    "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p 1",
    "go btime 60000 wtime 50000 byoyomi 10000",
    "go btime 60000 wtime 50000 binc 1000 winc 2000",
    "go ponder btime 0 wtime 0 byoyomi 3000",
    "go ponder",
    "go infinite",
    "go mate 10000",
    "go mate infinite",
    "go nodes 1000000 mate infinite",
    "go depth 12",
    "go movetime 2000",
    "go btime 1000 wtime 1000 movestogo 40 rtime 100",
    "go infinite searchmoves 7g7f 2g2f",
    "go",
    "stop",
    "ponderhit",
    "ponderhit btime 59000 wtime 50000 byoyomi 10000",
    "ponderhit btime 59000 wtime 50000 binc 1000 winc 1000",
    "gameover win",
    "gameover lose",
    "gameover draw",
    "quit",
    "mateinfo position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p 1 checkmate G*5b",
];

const CANONICAL_ENGINE: &[&str] = &[
    "id name YaneuraOu NNUE 8.30 64AVX2",
    "id author by yaneurao",
    "option name USI_Hash type spin default 256 min 1 max 33554432",
    "option name USI_Ponder type check default false",
    "option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule24 var CSARule27 var TryRule",
    "option name ClearHash type button",
    "option name EvalDir type string default eval",
    "option name BookDir type string default <empty>",
    "option name BookFile type filename default book/standard book.db",
    "usiok",
    "readyok",
    "info depth 10 seldepth 14 time 120 nodes 123456 nps 1028800 hashfull 12 multipv 1 score cp 55 pv 7g7f 3c3d 2g2f",
    "info depth 3 score cp -120 lowerbound pv 2g2f",
    "info depth 3 score cp 300 upperbound",
    "info score mate 5 pv G*5b 5a4a 5b4b",
    "info score mate -4",
    "info score mate + pv S*4b",
    "info score mate -",
    "info score mate -0",
    "info score mate 0",
    "info currmove 7g7f currmovenumber 3",
    "info nps 500000 cpuload 987",
    "info string Out Of Memory.",
    "info string 評価値  spaced   text",
    "info string",
    "info pv 7g7f 3c3d rep_draw",
    "info depth 1 pv",
    "info",
    "bestmove 7g7f",
    "bestmove 7g7f ponder 3c3d",
    "bestmove P*5e ponder 5d5e",
    "bestmove 8h2b+",
    "bestmove resign",
    "bestmove win",
    "checkmate G*5b 5a4a 5b4b",
    "checkmate nomate",
    "checkmate timeout",
    "checkmate notimplemented",
    "checkmate none",
];

#[test]
fn canonical_gui_lines_round_trip_in_both_modes() {
    for line in CANONICAL_GUI {
        let strict = gui_strict(line);
        assert_eq!(strict, gui_lenient(line), "{line}");
        assert_eq!(strict.to_string(), *line);
        assert!(!matches!(strict, GuiCommand::Unknown(_)), "{line}");
    }
}

#[test]
fn canonical_engine_lines_round_trip_in_both_modes() {
    for line in CANONICAL_ENGINE {
        // YaneuraOu's `rep_draw` PV marker is a lenient-only token.
        let lenient = eng_lenient(line);
        if !line.contains("rep_draw") {
            assert_eq!(eng_strict(line), lenient, "{line}");
        }
        assert_eq!(lenient.to_string(), *line);
        assert!(!matches!(lenient, EngineMessage::Unknown(_)), "{line}");
    }
}

#[test]
fn unknown_lines_round_trip_verbatim() {
    for line in [
        "d",
        "printsfen",
        "bench 16 1 10",
        "  weird\tline  ",
        "USI",
        "Go btime 1",
        "日本語のバナー",
    ] {
        assert_eq!(gui_strict(line), GuiCommand::Unknown(line.to_owned()));
        assert_eq!(gui_strict(line).to_string(), line);
        assert_eq!(eng_strict(line), EngineMessage::Unknown(line.to_owned()));
        assert_eq!(eng_strict(line).to_string(), line);
    }
    // A blank line is `Unknown("")`, whatever its whitespace.
    for line in ["", "   ", "\t", " \t \r\n", "\r"] {
        for mode in [Strictness::Strict, Strictness::Lenient] {
            let cmd = GuiCommand::parse(line, mode).unwrap();
            assert_eq!(cmd, GuiCommand::Unknown(String::new()), "{line:?}");
            assert!(cmd.is_blank());
            let msg = EngineMessage::parse(line, mode).unwrap();
            assert_eq!(msg, EngineMessage::Unknown(String::new()), "{line:?}");
        }
    }
    assert!(!gui_strict("d").is_blank());
    // The line terminator is not part of the line.
    assert_eq!(gui_strict("d\r\n"), GuiCommand::Unknown("d".into()));
    assert_eq!(eng_strict("\r\n"), EngineMessage::Unknown(String::new()));
}

#[test]
fn messy_whitespace_parses_to_the_canonical_value() {
    let pairs = [
        ("  usi  \r\n", "usi"),
        ("isready\r", "isready"),
        (
            "position   startpos\tmoves  7g7f   3c3d ",
            "position startpos moves 7g7f 3c3d",
        ),
        (
            "go  btime 1000\twtime 2000   byoyomi 3000\r\n",
            "go btime 1000 wtime 2000 byoyomi 3000",
        ),
        (
            "setoption  name  USI_Hash   value 256 ",
            "setoption name USI_Hash value 256",
        ),
        ("gameover\twin", "gameover win"),
    ];
    for (messy, canonical) in pairs {
        assert_eq!(gui_strict(messy).to_string(), canonical, "{messy:?}");
    }
    let pairs = [
        (
            "bestmove  7g7f   ponder 3c3d\r\n",
            "bestmove 7g7f ponder 3c3d",
        ),
        (
            "info  depth 3 \t score   cp 5  pv 7g7f  3c3d ",
            "info depth 3 score cp 5 pv 7g7f 3c3d",
        ),
        ("  usiok ", "usiok"),
        ("id name  Gikou 2 ", "id name Gikou 2"),
        ("checkmate  G*5b  5a4a ", "checkmate G*5b 5a4a"),
        (
            "option  name Threads type  spin default 4 min 1  max 512",
            "option name Threads type spin default 4 min 1 max 512",
        ),
    ];
    for (messy, canonical) in pairs {
        assert_eq!(eng_strict(messy).to_string(), canonical, "{messy:?}");
    }
    // Rest-of-line fields keep their internal spacing.
    assert_eq!(
        eng_strict("info string  a  b "),
        EngineMessage::Info(Info {
            text: Some(InfoText::String("a  b".into())),
            ..Info::default()
        })
    );
}

#[test]
fn typed_fields_are_what_the_lines_say() {
    assert_eq!(
        gui_strict("position startpos moves 7g7f 3c3d"),
        GuiCommand::Position(PositionCommand {
            base: PositionBase::StartPos,
            moves: vec![mv("7g7f"), mv("3c3d")],
        })
    );
    assert_eq!(
        gui_strict("setoption name EvalDir value my eval  dir"),
        GuiCommand::SetOption(SetOption {
            name: "EvalDir".into(),
            value: Some("my eval  dir".into()),
        })
    );
    let GuiCommand::Go(g) = gui_strict("go ponder btime 1 wtime 2 byoyomi 3 mate 4") else {
        panic!("not go");
    };
    assert!(g.ponder && g.is_mate() && g.has_clock());
    assert_eq!((g.btime, g.wtime, g.byoyomi), (Some(1), Some(2), Some(3)));
    assert_eq!(g.mate, Some(MateLimit::Time(4)));
    assert_eq!(g.clock_of(false), (Some(2), None));

    let EngineMessage::Info(info) =
        eng_strict("info depth 5 multipv 2 score cp -30 upperbound pv 2g2f 8c8d")
    else {
        panic!("not info");
    };
    assert_eq!(info.depth, Some(5));
    assert!(!info.is_main_line());
    assert_eq!(
        info.score,
        Some(InfoScore {
            score: Score::Cp(-30),
            bound: Bound::Upper
        })
    );
    assert_eq!(info.pv_moves(), vec![mv("2g2f"), mv("8c8d")]);
    assert_eq!(info.string(), None);

    let EngineMessage::Info(book) = eng_lenient("info pv 7g7f 8c8d (38.62%) score cp 0") else {
        panic!("not info");
    };
    // `pv` takes the rest of the line (USI); only the leading moves are moves.
    assert_eq!(book.pv_moves(), vec![mv("7g7f"), mv("8c8d")]);
    assert_eq!(book.score, None);

    assert_eq!(
        eng_strict("bestmove 7g7f ponder 3c3d"),
        EngineMessage::BestMove(BestMove::Move {
            mv: mv("7g7f"),
            ponder: Some(mv("3c3d"))
        })
    );
    let EngineMessage::BestMove(bm) = eng_strict("bestmove 7g7f ponder 3c3d") else {
        panic!()
    };
    assert_eq!(bm.mv(), Some(mv("7g7f")));
    assert_eq!(bm.ponder(), Some(mv("3c3d")));
    assert_eq!(bm.without_ponder().to_string(), "bestmove 7g7f");
    assert_eq!(BestMove::Resign.mv(), None);

    let EngineMessage::Checkmate(cm) = eng_strict("checkmate G*5b 5a4a 5b4b") else {
        panic!()
    };
    assert!(cm.is_mate());
    assert!(!Checkmate::NoMate.is_mate());
    assert!(!Checkmate::Mate(vec![]).is_mate());

    let EngineMessage::Option(decl) =
        eng_strict("option name BookFile type filename default book/standard book.db")
    else {
        panic!()
    };
    assert_eq!(
        decl.kind,
        OptionKind::Filename {
            default: Some("book/standard book.db".into())
        }
    );
}

#[test]
fn lenient_accepts_what_strict_rejects() {
    let gui = [
        ("usi extra", "usi"),
        (
            "go btime 1000 wtime 1000 byoyomi 0 foo 7",
            "go btime 1000 wtime 1000 byoyomi 0 foo 7",
        ),
        ("go btime +100", "go btime 100"),
        ("go btime 1 btime 2", "go btime 2"),
        ("go mate", "go mate infinite"),
        ("go depth x", "go"),
        // Negative times are an exhausted clock; the values never stay behind (issue #17).
        (
            "go btime -5 wtime -5 binc -1 winc -1",
            "go btime 0 wtime 0 binc 0 winc 0",
        ),
        (
            "go btime 18446744073709551616",
            "go btime 18446744073709551615",
        ),
        ("go mate ponder", "go ponder mate infinite"),
        ("go 5 foo 6", "go foo 6"),
        ("gameover", "gameover"),
        ("gameover maybe", "gameover"),
        // Found by fuzzing: a dropped keyword must not capture a later number when printed.
        (
            "go btime 6000050000 byoyomi btime 6000 10000",
            "go btime 6000",
        ),
        ("ponderhit infinite", "ponderhit infinite"),
        (
            "setoption name Multi Word value 3",
            "setoption name Multi Word value 3",
        ),
        (
            "setoption Threads value 4",
            "setoption name Threads value 4",
        ),
        (
            "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p",
            "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p",
        ),
        ("mateinfo", "mateinfo"),
    ];
    for (line, canonical) in gui {
        assert!(
            GuiCommand::parse_strict(line).is_err(),
            "strict took {line:?}"
        );
        let lenient = gui_lenient(line);
        assert_eq!(lenient.to_string(), canonical, "{line:?}");
        // The lenient canonical form is stable.
        assert_eq!(gui_lenient(canonical), lenient, "{line:?}");
    }
    let engine = [
        ("usiok now", "usiok"),
        ("bestmove 7g7f ponder", "bestmove 7g7f"),
        ("bestmove 7g7f ponder none", "bestmove 7g7f"),
        ("bestmove resign ponder 7g7f", "bestmove resign"),
        (
            "info depth 3 foo bar score cp 1",
            "info depth 3 score cp 1 foo bar",
        ),
        ("info score cp +50", "info score cp 50"),
        ("info depth x nodes 5", "info nodes 5"),
        ("info depth nodes 5", "info nodes 5"),
        ("info currmove xyz", "info"),
        ("info score cp x depth 2", "info depth 2"),
        ("info score cp 100000", "info score cp 99999"),
        ("info lowerbound score cp 5", "info score cp 5"),
        ("info score pawn 3 depth 1", "info depth 1 pawn 3"),
        ("info depth 1 depth 2", "info depth 2"),
        ("info pv 7g7f rep_inf", "info pv 7g7f rep_inf"),
        ("checkmate", "checkmate"),
        ("checkmate nomate please", "checkmate nomate"),
        (
            "option name Multi Word type check default true",
            "option name Multi Word type check default true",
        ),
        (
            "option name Hash type spin default 16",
            "option name Hash type spin default 16",
        ),
        ("option name X type string", "option name X type string"),
        (
            "option name B type button default x",
            "option name B type button",
        ),
        (
            "option name C type combo default a b var a b var c",
            "option name C type combo default a b var a b var c",
        ),
    ];
    for (line, canonical) in engine {
        assert!(
            EngineMessage::parse_strict(line).is_err(),
            "strict took {line:?}"
        );
        let lenient = eng_lenient(line);
        assert_eq!(lenient.to_string(), canonical, "{line:?}");
        assert_eq!(eng_lenient(canonical), lenient, "{line:?}");
    }
    // An `id` with an unknown field is passed on untouched.
    assert_eq!(
        eng_lenient("id version 3"),
        EngineMessage::Unknown("id version 3".into())
    );
}

#[test]
fn malformed_lines_are_error_values() {
    use UsiParseError as E;
    let gui = [
        "position",
        "position startpos moves 7g7f 7g7",
        "position startpos 7g7f",
        "position sfen lnsgkgsnl b - 1",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2 1",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG+KGSNL b - 1",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - one",
        "setoption",
        "setoption name",
        "setoption value 3",
    ];
    for line in gui {
        for mode in [Strictness::Strict, Strictness::Lenient] {
            assert!(
                GuiCommand::parse(line, mode).is_err(),
                "{mode:?} took {line:?}"
            );
        }
    }
    let engine = [
        "bestmove",
        "bestmove 7g7x",
        "bestmove none",
        "checkmate G*5b 5a4",
        "option name X",
        "option name X type",
        "option name X type slider default 3",
        "option name X type spin default big min 0 max 1",
        "option name X type check default maybe",
        "option type check default true",
        "option name X type spin default 1 step 2",
    ];
    for line in engine {
        for mode in [Strictness::Strict, Strictness::Lenient] {
            assert!(
                EngineMessage::parse(line, mode).is_err(),
                "{mode:?} took {line:?}"
            );
        }
    }
    // The variants carry what went wrong.
    assert_eq!(
        EngineMessage::parse_strict("bestmove 7g7x"),
        Err(E::InvalidMove {
            text: "7g7x".into()
        })
    );
    assert_eq!(
        GuiCommand::parse_strict("go btime 1 btime 2"),
        Err(E::Duplicate {
            command: "go",
            field: "btime"
        })
    );
    assert_eq!(
        GuiCommand::parse_strict("go byoyomi -5"),
        Err(E::InvalidValue {
            command: "go",
            field: "byoyomi",
            value: "-5".into()
        })
    );
    assert_eq!(
        EngineMessage::parse_strict("info score mate x"),
        Err(E::InvalidScore {
            text: "mate x".into()
        })
    );
    assert!(matches!(
        EngineMessage::parse_strict("option name X type slider"),
        Err(E::UnknownOptionType { .. })
    ));
    assert!(matches!(
        GuiCommand::parse_strict("position sfen 9/9 b - 1"),
        Err(E::InvalidSfen { .. })
    ));
    // Error messages name the problem.
    let message = GuiCommand::parse_strict("go btime x")
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("btime") && message.contains('x'),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// Generated values: parse(format(x)) == x over many random values of every variant.

/// xorshift64*: deterministic, dependency-free randomness for the generators below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self) -> bool {
        self.below(2) == 0
    }
    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.chance() {
            Some(f(self))
        } else {
            None
        }
    }
    fn number(&mut self) -> u64 {
        match self.below(3) {
            0 => self.below(10),
            1 => self.below(100_000),
            _ => self.next(),
        }
    }
    fn small(&mut self) -> u32 {
        self.number() as u32
    }
    fn usi_move(&mut self) -> UsiMove {
        let file = |r: &mut Self| char::from(b'1' + r.below(9) as u8);
        let rank = |r: &mut Self| char::from(b'a' + r.below(9) as u8);
        let text = if self.below(4) == 0 {
            let piece = char::from(b"PLNSGBR"[self.below(7) as usize]);
            format!("{piece}*{}{}", file(self), rank(self))
        } else {
            let promote = if self.chance() { "+" } else { "" };
            format!(
                "{}{}{}{}{promote}",
                file(self),
                rank(self),
                file(self),
                rank(self)
            )
        };
        mv(&text)
    }
    fn moves(&mut self, max: u64) -> Vec<UsiMove> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.usi_move()).collect()
    }
    fn word(&mut self) -> String {
        const WORDS: &[&str] = &["a", "eval", "<empty>", "x-1", "book.db", "日本", "C:\\x"];
        WORDS[self.below(WORDS.len() as u64) as usize].to_owned()
    }
    fn text(&mut self) -> String {
        let n = 1 + self.below(4);
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
    fn score(&mut self) -> Score {
        match self.below(3) {
            0 => Score::Cp(self.next() as i32 % (CP_LIMIT + 1)),
            1 => Score::Cp(self.below(2000) as i32 - 1000),
            _ => Score::Mate(Mate {
                winning: self.chance(),
                plies: self.maybe(|r| r.small()),
            }),
        }
    }
    fn go(&mut self, ponderhit: bool) -> GoLimits {
        let mut g = GoLimits {
            btime: self.maybe(Self::number),
            wtime: self.maybe(Self::number),
            byoyomi: self.maybe(Self::number),
            binc: self.maybe(Self::number),
            winc: self.maybe(Self::number),
            ..GoLimits::default()
        };
        if !ponderhit {
            g.ponder = self.chance();
            g.infinite = self.chance();
            g.movestogo = self.maybe(Self::small);
            g.rtime = self.maybe(Self::number);
            g.mate = self.maybe(|r| {
                if r.chance() {
                    MateLimit::Infinite
                } else {
                    MateLimit::Time(r.number())
                }
            });
            g.nodes = self.maybe(Self::number);
            g.depth = self.maybe(Self::small);
            g.movetime = self.maybe(Self::number);
            g.searchmoves = if self.below(4) == 0 {
                Some((0..1 + self.below(3)).map(|_| self.usi_move()).collect())
            } else {
                None
            };
        }
        g
    }
    fn sfen(&mut self) -> String {
        const SFENS: &[&str] = &[
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p 1",
            "8l/1r5k1/4+P1gpp/p3p1p2/2p2P1P1/P1P1P1P1P/1P2GS3/1KG6/LN5NL w BGS2Prbsnl2p 73",
        ];
        SFENS[self.below(SFENS.len() as u64) as usize].to_owned()
    }
    fn gui_command(&mut self) -> GuiCommand {
        match self.below(12) {
            0 => GuiCommand::Usi,
            1 => GuiCommand::IsReady,
            2 => GuiCommand::SetOption(SetOption {
                name: self.word().replace(' ', "_"),
                value: self.maybe(Self::text),
            }),
            3 => GuiCommand::UsiNewGame,
            4 => GuiCommand::Position(PositionCommand {
                base: if self.chance() {
                    PositionBase::StartPos
                } else {
                    PositionBase::Sfen(self.sfen())
                },
                moves: self.moves(6),
            }),
            5 => GuiCommand::Go(self.go(false)),
            6 => GuiCommand::Stop,
            7 => GuiCommand::PonderHit(self.go(true)),
            8 => GuiCommand::GameOver(
                [GameResult::Win, GameResult::Lose, GameResult::Draw][self.below(3) as usize],
            ),
            9 => GuiCommand::Quit,
            10 => GuiCommand::MateInfo(format!("position sfen {} checkmate G*5b", self.sfen())),
            _ => GuiCommand::Unknown(format!("x{}", self.text())),
        }
    }
    fn info(&mut self) -> Info {
        Info {
            depth: self.maybe(Self::small),
            seldepth: self.maybe(Self::small),
            time: self.maybe(Self::number),
            nodes: self.maybe(Self::number),
            nps: self.maybe(Self::number),
            hashfull: self.maybe(Self::small),
            multipv: self.maybe(Self::small),
            currmove: self.maybe(Self::usi_move),
            currmovenumber: self.maybe(Self::small),
            cpuload: self.maybe(Self::small),
            score: self.maybe(|r| InfoScore {
                score: r.score(),
                bound: [Bound::Exact, Bound::Lower, Bound::Upper][r.below(3) as usize],
            }),
            extra: Vec::new(),
            text: match self.below(3) {
                0 => None,
                1 => Some(InfoText::Pv(
                    self.moves(8).iter().map(|m| m.to_string()).collect(),
                )),
                _ => Some(InfoText::String(self.text())),
            },
        }
    }
    fn option(&mut self) -> OptionDecl {
        let kind = match self.below(6) {
            0 => OptionKind::Check {
                default: Some(self.chance()),
            },
            1 => OptionKind::Spin {
                default: Some(self.next() as i64),
                min: Some(-(self.below(100) as i64)),
                max: Some(self.number() as i64),
            },
            2 => OptionKind::Combo {
                default: Some(self.word()),
                vars: (0..1 + self.below(4)).map(|_| self.word()).collect(),
            },
            3 => OptionKind::Button,
            4 => OptionKind::String {
                default: Some(self.text()),
            },
            _ => OptionKind::Filename {
                default: Some(self.text()),
            },
        };
        OptionDecl {
            name: format!("Opt{}", self.below(100)),
            kind,
        }
    }
    fn engine_message(&mut self) -> EngineMessage {
        match self.below(9) {
            0 => EngineMessage::IdName(self.text()),
            1 => EngineMessage::IdAuthor(self.text()),
            2 => EngineMessage::Option(self.option()),
            3 => EngineMessage::UsiOk,
            4 => EngineMessage::ReadyOk,
            5 => EngineMessage::Info(self.info()),
            6 => EngineMessage::BestMove(match self.below(4) {
                0 => BestMove::Resign,
                1 => BestMove::Win,
                _ => BestMove::Move {
                    mv: self.usi_move(),
                    ponder: self.maybe(Self::usi_move),
                },
            }),
            7 => EngineMessage::Checkmate(match self.below(5) {
                0 => Checkmate::NoMate,
                1 => Checkmate::Timeout,
                2 => Checkmate::NotImplemented,
                3 => Checkmate::NoneFound,
                _ => Checkmate::Mate((0..1 + self.below(9)).map(|_| self.usi_move()).collect()),
            }),
            _ => EngineMessage::Unknown(format!("y{}", self.text())),
        }
    }
}

#[test]
fn generated_gui_commands_round_trip() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let cmd = rng.gui_command();
        let line = cmd.to_string();
        assert_eq!(GuiCommand::parse_strict(&line), Ok(cmd.clone()), "{line}");
        assert_eq!(gui_lenient(&line), cmd, "{line}");
    }
}

#[test]
fn generated_engine_messages_round_trip() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..20_000 {
        let msg = rng.engine_message();
        let line = msg.to_string();
        assert_eq!(
            EngineMessage::parse_strict(&line),
            Ok(msg.clone()),
            "{line}"
        );
        assert_eq!(eng_lenient(&line), msg, "{line}");
    }
}

#[test]
fn lenient_extras_round_trip() {
    // Values carrying lenient-only extras still satisfy parse(format(x)) == x in lenient mode.
    let go = GoLimits {
        btime: Some(5),
        extra: vec!["foo".into(), "12".into()],
        searchmoves: Some(vec![mv("7g7f")]),
        ..GoLimits::default()
    };
    let line = GuiCommand::Go(go.clone()).to_string();
    assert_eq!(line, "go btime 5 foo 12 searchmoves 7g7f");
    assert_eq!(gui_lenient(&line), GuiCommand::Go(go));

    let info = Info {
        depth: Some(2),
        extra: vec!["hello".into()],
        text: Some(InfoText::Pv(vec!["7g7f".into(), "resign".into()])),
        ..Info::default()
    };
    let line = EngineMessage::Info(info.clone()).to_string();
    assert_eq!(line, "info depth 2 hello pv 7g7f resign");
    assert_eq!(eng_lenient(&line), EngineMessage::Info(info));
}

// ---------------------------------------------------------------------------------------------
// Hostile input (issue #17, defects 6, 7 and 13): what the lenient parser makes of bad values,
// and that whatever it returns prints as a well-formed line.

/// Keywords of `info` that take one number, and of `go`.
const INFO_NUMBERS: [&str; 9] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "nps",
    "hashfull",
    "multipv",
    "currmovenumber",
    "cpuload",
];
const GO_NUMBERS: [&str; 10] = [
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movestogo",
    "rtime",
    "nodes",
    "depth",
    "movetime",
];

fn is_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Checks a printed `go`/`ponderhit`/`info` line token by token: every numeric keyword has one
/// non-negative number that fits its field, a score is `cp` within ±99999 or a mate form with
/// an optional bound, and unknown tokens come in runs that start with a word, never with a
/// number (a number after a complete field belongs to nothing: `go -5`, `cp 5 -1`).
fn assert_well_formed(line: &str) {
    let tokens: Vec<&str> = line.split(' ').collect();
    let (numbers, info): (&[&str], bool) = match tokens[0] {
        "go" | "ponderhit" => (&GO_NUMBERS, false),
        "info" => (&INFO_NUMBERS, true),
        other => panic!("not a go/info line: {other}"),
    };
    let mut i = 1;
    let mut in_extras = false;
    while i < tokens.len() {
        let t = tokens[i];
        assert!(!t.is_empty(), "double space in {line:?}");
        i += 1;
        let was_in_extras = std::mem::replace(&mut in_extras, false);
        if numbers.contains(&t) {
            let v = tokens.get(i).copied().unwrap_or("");
            let fits = match t {
                "depth" | "seldepth" | "hashfull" | "multipv" | "currmovenumber" | "cpuload"
                | "movestogo" => v.parse::<u32>().is_ok(),
                _ => v.parse::<u64>().is_ok(),
            };
            assert!(fits, "`{t} {v}` in {line:?}");
            i += 1;
        } else if info && t == "score" {
            let (kind, v) = (tokens.get(i).copied(), tokens.get(i + 1).copied());
            let ok = match (kind, v) {
                (Some("cp"), Some(v)) => v.parse::<i32>().is_ok_and(|cp| cp.abs() <= 99_999),
                (Some("mate"), Some(v)) => {
                    let digits = v.trim_start_matches(['+', '-']);
                    (v == "+" || v == "-" || digits.parse::<u32>().is_ok())
                        && v.len() - digits.len() <= 1
                }
                _ => false,
            };
            assert!(ok, "`score {kind:?} {v:?}` in {line:?}");
            i += 2;
            if matches!(tokens.get(i), Some(&"lowerbound" | &"upperbound")) {
                i += 1;
            }
        } else if info && t == "currmove" {
            let m = tokens.get(i).copied().unwrap_or("");
            assert!(UsiMove::parse(m).is_ok(), "`currmove {m}` in {line:?}");
            i += 1;
        } else if info && (t == "pv" || t == "string") {
            return;
        } else if !info && ["ponder", "infinite"].contains(&t) {
        } else if !info && t == "mate" {
            let v = tokens.get(i).copied().unwrap_or("");
            assert!(v == "infinite" || v.parse::<u64>().is_ok(), "{line:?}");
            i += 1;
        } else if !info && t == "searchmoves" {
            while tokens.get(i).is_some_and(|m| UsiMove::parse(m).is_ok()) {
                i += 1;
            }
        } else {
            assert!(
                was_in_extras || !is_integer(t),
                "stray number `{t}` in {line:?}"
            );
            in_extras = true;
        }
    }
}

#[test]
fn bad_values_are_clamped_or_dropped_never_left_behind() {
    // The issue's lines, and their neighbours.
    let gui = [
        (
            "go btime -5 wtime -5 binc -1 winc -1",
            "go btime 0 wtime 0 binc 0 winc 0",
        ),
        (
            "go btime 18446744073709551615 wtime 0 byoyomi 1000",
            "go btime 18446744073709551615 wtime 0 byoyomi 1000",
        ),
        (
            "go btime 18446744073709551616 wtime 99999999999999999999999999999999999999999999",
            "go btime 18446744073709551615 wtime 18446744073709551615",
        ),
        (
            "go depth -3 movestogo 4294967296",
            "go movestogo 4294967295 depth 0",
        ),
        ("go mate -5", "go mate 0"),
        ("go mate x byoyomi 100", "go byoyomi 100"),
        ("go btime x wtime 1.5 byoyomi +7", "go byoyomi 7"),
        ("go btime wtime 5", "go wtime 5"),
        ("go foo 5", "go foo 5"),
        ("go 5 -1 foo", "go foo"),
        ("ponderhit btime -1 wtime -2", "ponderhit btime 0 wtime 0"),
    ];
    for (line, want) in gui {
        let cmd = gui_lenient(line);
        let text = cmd.to_string();
        assert_eq!(text, want, "{line:?}");
        assert_well_formed(&text);
        assert_eq!(gui_lenient(&text), cmd, "{line:?}");
    }
    let engine = [
        (
            "info score cp 99999999 multipv 99999999999999 nodes 18446744073709551616 depth -5 seldepth -1 pv 7g7f 3c3d",
            "info depth 0 seldepth 0 nodes 18446744073709551615 multipv 4294967295 score cp 99999 pv 7g7f 3c3d",
        ),
        (
            "info depth 3 score cp -99999999999999999999 lowerbound nodes -1 pv 7g7f",
            "info depth 3 nodes 0 score cp -99999 lowerbound pv 7g7f",
        ),
        ("info score mate -99999999999", "info score mate -4294967295"),
        ("info score mate x -1 nodes 5", "info nodes 5"),
        ("info score cp pv 7g7f", "info pv 7g7f"),
        ("info score pawn 3", "info pawn 3"),
        ("info time 1.5 depth 2 5 6", "info depth 2"),
        ("info currmove 7g7x 5", "info"),
        ("info currmove depth 4", "info depth 4"),
        ("info hashfull -1000 cpuload 4294967296", "info hashfull 0 cpuload 4294967295"),
    ];
    for (line, want) in engine {
        let msg = eng_lenient(line);
        let text = msg.to_string();
        assert_eq!(text, want, "{line:?}");
        assert_well_formed(&text);
        assert_eq!(eng_lenient(&text), msg, "{line:?}");
    }
}

#[test]
fn hand_built_values_still_print_well_formed_lines() {
    let info = Info {
        score: Some(InfoScore::exact(Score::Cp(i32::MIN))),
        extra: vec![
            "-5".into(),
            "".into(),
            "a b".into(),
            "lowerbound".into(),
            "foo".into(),
            "-1".into(),
        ],
        text: Some(InfoText::String("one\ntwo".into())),
        ..Info::default()
    };
    let text = info.to_string();
    assert_eq!(text, "info score cp -99999 foo -1 string one two");
    assert_well_formed(&text);
    let go = GoLimits {
        btime: Some(u64::MAX),
        extra: vec!["7".into(), "btime".into(), "bar".into(), "8".into()],
        ..GoLimits::default()
    };
    let text = GuiCommand::Go(go).to_string();
    assert_eq!(text, "go btime 18446744073709551615 bar 8");
    assert_well_formed(&text);
}

#[test]
fn bare_gameover_is_a_game_over_with_an_unknown_result() {
    for line in [
        "gameover",
        "gameover  \r\n",
        "gameover maybe",
        "gameover 1 2",
    ] {
        assert_eq!(
            gui_lenient(line),
            GuiCommand::GameOver(GameResult::Unknown),
            "{line:?}"
        );
        assert!(GuiCommand::parse_strict(line).is_err(), "{line:?}");
    }
    assert_eq!(
        GuiCommand::GameOver(GameResult::Unknown).to_string(),
        "gameover"
    );
    assert_eq!(
        gui_lenient("gameover draw"),
        GuiCommand::GameOver(GameResult::Draw)
    );
}

#[test]
fn garbage_gui_commands_give_clear_answers() {
    use UsiParseError as E;
    // `go` with junk: a `go` with the junk kept as unknown tokens (relayed as sent).
    let GuiCommand::Go(g) = gui_lenient("go foo 5") else {
        panic!("not a go");
    };
    assert_eq!(g.extra, vec!["foo", "5"]);
    assert!(!g.has_clock() && g.mate.is_none());
    // `position` and `setoption` garbage: errors that say what is wrong, in both modes.
    let errors = [
        (
            "position",
            E::Missing {
                command: "position",
                what: "`startpos` or `sfen`",
            },
        ),
        (
            "position garbage",
            E::UnexpectedToken {
                command: "position",
                token: "garbage".into(),
            },
        ),
        (
            "position startpos garbage 7g7f",
            E::UnexpectedToken {
                command: "position",
                token: "garbage".into(),
            },
        ),
        (
            "position startpos moves 7g7f zz",
            E::InvalidMove { text: "zz".into() },
        ),
        (
            "setoption",
            E::Missing {
                command: "setoption",
                what: "option name",
            },
        ),
        (
            "setoption name",
            E::Missing {
                command: "setoption",
                what: "option name",
            },
        ),
        (
            "setoption value 5",
            E::Missing {
                command: "setoption",
                what: "option name",
            },
        ),
    ];
    for (line, want) in errors {
        assert_eq!(
            GuiCommand::parse(line, Strictness::Lenient),
            Err(want),
            "{line:?}"
        );
        assert!(GuiCommand::parse_strict(line).is_err(), "{line:?}");
    }
    assert!(matches!(
        GuiCommand::parse("position sfen garbage moves 7g7f", Strictness::Lenient),
        Err(E::InvalidSfen { .. })
    ));
    let message = GuiCommand::parse("position sfen x y", Strictness::Lenient)
        .unwrap_err()
        .to_string();
    assert!(message.contains("sfen `x y`"), "{message}");
}

/// Random soups of real keywords, hostile numbers, moves and junk after each command word:
/// whatever the lenient parser accepts prints as a well-formed line that parses back to the
/// same value, and nothing panics.
#[test]
fn token_soups_round_trip_through_display() {
    const HEADS: [&str; 12] = [
        "go",
        "ponderhit",
        "info",
        "info",
        "position startpos",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -",
        "setoption",
        "gameover",
        "bestmove",
        "checkmate",
        "option name X type",
        "id name",
    ];
    // The `go` keywords are the parser's own list; the rest follow.
    const OTHER_TOKENS: &[&str] = &[
        // info
        "seldepth",
        "time",
        "nps",
        "hashfull",
        "multipv",
        "currmove",
        "currmovenumber",
        "cpuload",
        "score",
        "cp",
        "lowerbound",
        "upperbound",
        "pv",
        "string",
        // others
        "moves",
        "name",
        "value",
        "type",
        "spin",
        "default",
        "min",
        "max",
        "var",
        "win",
        "lose",
        "draw",
        "resign",
        "nomate",
        "startpos",
        "sfen",
        // numbers
        "0",
        "-0",
        "7",
        "+3",
        "-5",
        "-1",
        "99999",
        "100000",
        "-99999999",
        "4294967296",
        "9223372036854775807",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999999999999999999",
        "+",
        "-",
        // moves and junk
        "7g7f",
        "3c3d",
        "G*5b",
        "8h2b+",
        "7g7x",
        "x",
        "foo",
        "1.5",
        "--1",
        "日本",
        "rep_draw",
    ];
    let tokens: Vec<&str> = crate::usi::go::GO_KEYWORDS
        .iter()
        .copied()
        .chain(OTHER_TOKENS.iter().copied())
        .collect();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..60_000 {
        let head = HEADS[rng.below(HEADS.len() as u64) as usize];
        let n = rng.below(12);
        let mut line = head.to_owned();
        for _ in 0..n {
            line.push(' ');
            line.push_str(tokens[rng.below(tokens.len() as u64) as usize]);
        }
        if let Ok(cmd) = GuiCommand::parse(&line, Strictness::Lenient) {
            let text = cmd.to_string();
            assert_eq!(gui_lenient(&text), cmd, "{line:?} printed as {text:?}");
            if matches!(cmd, GuiCommand::Go(_) | GuiCommand::PonderHit(_)) {
                assert_well_formed(&text);
            }
        }
        if let Ok(msg) = EngineMessage::parse(&line, Strictness::Lenient) {
            let text = msg.to_string();
            assert_eq!(eng_lenient(&text), msg, "{line:?} printed as {text:?}");
            if matches!(msg, EngineMessage::Info(_)) {
                assert_well_formed(&text);
            }
        }
        // Strict values round-trip strictly.
        if let Ok(cmd) = GuiCommand::parse_strict(&line) {
            assert_eq!(
                GuiCommand::parse_strict(&cmd.to_string()),
                Ok(cmd),
                "{line:?}"
            );
        }
        if let Ok(msg) = EngineMessage::parse_strict(&line) {
            assert_eq!(
                EngineMessage::parse_strict(&msg.to_string()),
                Ok(msg),
                "{line:?}"
            );
        }
    }
}
