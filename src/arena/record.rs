//! Game records: KIF (Kifu for Windows style, what Japanese GUIs open), CSA V2.2 (what
//! floodgate and tools read), and one USI `position` line per game.
//!
//! CSA comments after each engine move follow the floodgate convention,
//! `'** <score> <pv…>`, with the score from Black's (先手) point of view (mates as ±100000), so
//! records can be replayed in viewers that plot scores and fed to `gougi calibrate`.

use crate::shogi::csa::csa_position;
use crate::shogi::{Color, Piece, PieceKind, Position, Square};
use crate::usi::Score;

use super::game::{EndReason, GameRecord};

/// The score written for a mate in the CSA comments.
pub const CSA_MATE_SCORE: i64 = 100_000;

/// One-character KIF board names (BOD diagrams).
fn bod_char(kind: PieceKind) -> char {
    match kind {
        PieceKind::Pawn => '歩',
        PieceKind::Lance => '香',
        PieceKind::Knight => '桂',
        PieceKind::Silver => '銀',
        PieceKind::Gold => '金',
        PieceKind::Bishop => '角',
        PieceKind::Rook => '飛',
        PieceKind::King => '玉',
        PieceKind::ProPawn => 'と',
        PieceKind::ProLance => '杏',
        PieceKind::ProKnight => '圭',
        PieceKind::ProSilver => '全',
        PieceKind::Horse => '馬',
        PieceKind::Dragon => '龍',
    }
}

const KANJI_DIGITS: [&str; 11] = [
    "", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十",
];

/// 1 → "" (a single piece has no count), 2 → 二, 12 → 十二, 18 → 十八.
fn kanji_count(n: u32) -> String {
    match n {
        0 | 1 => String::new(),
        2..=10 => KANJI_DIGITS[n as usize].to_owned(),
        _ => format!("十{}", KANJI_DIGITS[(n % 10) as usize]),
    }
}

fn hand_text(pos: &Position, c: Color) -> String {
    let hand = pos.hand(c);
    // Rook first, pawn last, as KIF files list hands.
    let parts: Vec<String> = PieceKind::HAND
        .into_iter()
        .rev()
        .filter(|&k| hand.count(k) > 0)
        .map(|k| format!("{}{}", bod_char(k), kanji_count(hand.count(k))))
        .collect();
    if parts.is_empty() {
        "なし".into()
    } else {
        parts.join("　")
    }
}

/// The KIF board diagram (BOD) of a non-standard start position.
fn bod(pos: &Position) -> String {
    let mut s = String::new();
    s.push_str(&format!("後手の持駒：{}\n", hand_text(pos, Color::White)));
    s.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for rank in 1..=9u8 {
        s.push('|');
        for file in (1..=9u8).rev() {
            let sq = Square::new(
                crate::shogi::File::new(file).expect("1..=9"),
                crate::shogi::Rank::new(rank).expect("1..=9"),
            );
            match pos.piece_on(sq) {
                None => s.push_str(" ・"),
                Some(Piece { color, kind }) => {
                    s.push(if color == Color::White { 'v' } else { ' ' });
                    s.push(bod_char(kind));
                }
            }
        }
        s.push('|');
        s.push_str(KANJI_DIGITS[rank as usize]);
        s.push('\n');
    }
    s.push_str("+---------------------------+\n");
    s.push_str(&format!("先手の持駒：{}\n", hand_text(pos, Color::Black)));
    if pos.side_to_move() == Color::White {
        s.push_str("後手番\n");
    }
    s
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "先手",
        Color::White => "後手",
    }
}

/// `( 0:03/00:01:12)`: this move's time and the mover's running total.
fn kif_time(move_ms: u64, total_ms: u64) -> String {
    let m = move_ms / 1000;
    let t = total_ms / 1000;
    format!(
        "({:>2}:{:02}/{:02}:{:02}:{:02})",
        m / 60,
        m % 60,
        t / 3600,
        t % 3600 / 60,
        t % 60
    )
}

/// The KIF text of a game.
pub fn kif(record: &GameRecord) -> String {
    let base = Position::from_usi_position(&record.base).unwrap_or_else(|_| Position::startpos());
    let mut s = String::new();
    s.push_str("# KIF written by gougi match\n");
    s.push_str(&format!("開始日時：{}\n", record.started));
    if record.base == "startpos" {
        s.push_str("手合割：平手\n");
    } else {
        s.push_str(&bod(&base));
    }
    s.push_str(&format!("先手：{}\n", record.names[0]));
    s.push_str(&format!("後手：{}\n", record.names[1]));
    s.push_str(&format!(
        "持ち時間：{} / {}\n",
        record.limits[0].describe(),
        record.limits[1].describe()
    ));
    s.push_str("手数----指手---------消費時間--\n");
    let mut totals = [0u64; 2];
    for (i, m) in record.moves.iter().enumerate() {
        totals[m.color.index()] += m.time_ms;
        s.push_str(&format!(
            "{:>4} {}   {}\n",
            i + 1,
            m.kif,
            kif_time(m.time_ms, totals[m.color.index()])
        ));
        if m.from_opening && (i + 1 == record.moves.len() || !record.moves[i + 1].from_opening) {
            s.push_str("*opening ends\n");
        }
    }
    let n = record.moves.len();
    let last_mover = record
        .moves
        .last()
        .map_or(!base.side_to_move(), |m| m.color);
    let to_move = !last_mover;
    let o = &record.outcome;
    let special = match &o.reason {
        EndReason::Checkmate => "詰み",
        EndReason::Resign | EndReason::Crash(_) => "投了",
        EndReason::IllegalMove { .. } | EndReason::FalseDeclaration => "反則負け",
        EndReason::TimeLoss => "切れ負け",
        EndReason::Repetition => "千日手",
        EndReason::PerpetualCheck => "反則負け",
        EndReason::Declaration => "入玉勝ち",
        EndReason::MaxPlies => "持将棋",
    };
    s.push_str(&format!("{:>4} {special}\n", n + 1));
    match &o.reason {
        EndReason::IllegalMove { text, why } => s.push_str(&format!(
            "*illegal move by {}: {text} ({why})\n",
            side_name(to_move)
        )),
        EndReason::Crash(why) => s.push_str(&format!("*{} engine {why}\n", side_name(to_move))),
        EndReason::PerpetualCheck => s.push_str("*連続王手の千日手\n"),
        EndReason::TimeLoss => {
            if let Some(d) = &record.time_loss {
                s.push_str(&format!("*time loss: {d}\n"));
            }
        }
        _ => {}
    }
    match o.winner {
        None => s.push_str(&format!("まで{n}手で{special}\n")),
        Some(w) => match o.reason {
            EndReason::TimeLoss => s.push_str(&format!(
                "まで{n}手で時間切れにより{}の勝ち\n",
                side_name(w)
            )),
            EndReason::IllegalMove { .. }
            | EndReason::FalseDeclaration
            | EndReason::PerpetualCheck => {
                s.push_str(&format!("まで{n}手で{}の反則負け\n", side_name(!w)))
            }
            _ => s.push_str(&format!("まで{n}手で{}の勝ち\n", side_name(w))),
        },
    }
    s
}

/// Text in CP932 (Shift_JIS with Microsoft's extensions), the encoding a `.kif` file is read
/// in (Kifu for Windows, ShogiGUI, cshogi); a character CP932 lacks (in an engine's name, say)
/// becomes a numeric reference `&#NNNN;` rather than a broken byte.
pub fn cp932(text: &str) -> Vec<u8> {
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(text);
    bytes.into_owned()
}

/// A score from the mover's view as the CSA comment number from Black's view.
pub fn csa_score(score: &Score, mover: Color) -> i64 {
    let own = match *score {
        Score::Cp(cp) => i64::from(cp),
        Score::Mate(m) if m.winning => CSA_MATE_SCORE,
        Score::Mate(_) => -CSA_MATE_SCORE,
    };
    match mover {
        Color::Black => own,
        Color::White => -own,
    }
}

/// The CSA V2.2 text of a game.
pub fn csa(record: &GameRecord) -> String {
    let base = Position::from_usi_position(&record.base).unwrap_or_else(|_| Position::startpos());
    let mut s = String::new();
    s.push_str("V2.2\n");
    s.push_str(&format!("N+{}\nN-{}\n", record.names[0], record.names[1]));
    s.push_str("$EVENT:gougi match\n");
    s.push_str(&format!("$START_TIME:{}\n", record.started));
    s.push_str(&format!(
        "$TIME_LIMIT:{}\n",
        if record.limits[0] == record.limits[1] {
            record.limits[0].describe()
        } else {
            format!(
                "{} / {}",
                record.limits[0].describe(),
                record.limits[1].describe()
            )
        }
    ));
    s.push_str(&csa_position(&base));
    for m in &record.moves {
        s.push_str(&m.csa);
        s.push('\n');
        s.push_str(&format!("T{}\n", m.time_ms / 1000));
        if let Some(score) = &m.score {
            s.push_str(&format!("'** {}", csa_score(score, m.color)));
            for p in &m.pv_csa {
                s.push(' ');
                s.push_str(p);
            }
            s.push('\n');
        }
    }
    let o = &record.outcome;
    let end = match &o.reason {
        EndReason::Checkmate => "%TSUMI",
        EndReason::Resign | EndReason::Crash(_) => "%TORYO",
        EndReason::IllegalMove { .. } | EndReason::FalseDeclaration => "%ILLEGAL_MOVE",
        EndReason::TimeLoss => "%TIME_UP",
        EndReason::Repetition => "%SENNICHITE",
        EndReason::PerpetualCheck => "%SENNICHITE",
        EndReason::Declaration => "%KACHI",
        EndReason::MaxPlies => "%MAX_MOVES",
    };
    s.push_str(end);
    s.push('\n');
    let result = match o.winner {
        None => "draw".to_owned(),
        Some(Color::Black) => "black (+) wins".to_owned(),
        Some(Color::White) => "white (-) wins".to_owned(),
    };
    s.push_str(&format!("'gougi result: {result} by {}", o.reason.label()));
    if let EndReason::IllegalMove { text, why } = &o.reason {
        s.push_str(&format!(": {text} ({why})"));
    }
    if let EndReason::Crash(why) = &o.reason {
        s.push_str(&format!(": engine {why}"));
    }
    if let (EndReason::TimeLoss, Some(d)) = (&o.reason, &record.time_loss) {
        s.push_str(&format!(": {d}"));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::clock::Limits;
    use crate::arena::game::{Outcome, PlayedMove};
    use crate::shogi::csa::csa_move;
    use crate::shogi::kif_move;
    use crate::usi::Mate;

    fn record(base: &str, moves: &[&str], outcome: Outcome) -> GameRecord {
        let mut pos = Position::from_usi_position(base).unwrap();
        let mut played: Vec<PlayedMove> = Vec::new();
        for (i, t) in moves.iter().enumerate() {
            let m = pos.parse_usi_move(t).unwrap();
            played.push(PlayedMove {
                mv: m,
                color: pos.side_to_move(),
                kif: kif_move(&pos, m, played.last().map(|p| p.mv.to())).unwrap(),
                csa: csa_move(&pos, m).unwrap(),
                time_ms: 1500 * i as u64,
                score: Some(Score::Cp(30)),
                pv_csa: vec![],
                from_opening: i == 0,
            });
            pos.do_move(m);
        }
        let l = Limits {
            byoyomi_ms: 1000,
            ..Default::default()
        };
        GameRecord {
            base: base.into(),
            names: ["A".into(), "B".into()],
            limits: [l, l],
            moves: played,
            outcome,
            started: "2026/11/22 10:00:00".into(),
            time_loss: None,
            ponder: Default::default(),
        }
    }

    #[test]
    fn kif_of_a_short_game() {
        let r = record(
            "startpos",
            &["7g7f", "3c3d", "8h2b+", "3a2b"],
            Outcome {
                winner: Some(Color::White),
                reason: EndReason::Resign,
            },
        );
        let k = kif(&r);
        let lines: Vec<&str> = k.lines().collect();
        assert_eq!(lines[2], "手合割：平手");
        assert_eq!(lines[3], "先手：A");
        assert_eq!(lines[7], "   1 ７六歩(77)   ( 0:00/00:00:00)");
        assert_eq!(lines[8], "*opening ends");
        assert_eq!(lines[10], "   3 ２二角成(88)   ( 0:03/00:00:03)");
        assert_eq!(lines[11], "   4 同　銀(31)   ( 0:04/00:00:06)");
        assert_eq!(lines[12], "   5 投了");
        assert_eq!(lines[13], "まで4手で後手の勝ち");
    }

    #[test]
    fn kif_board_for_a_position_start() {
        let r = record(
            "sfen 4k4/9/9/9/9/9/9/9/4K4 w 2Pr 10",
            &["5a4b"],
            Outcome {
                winner: None,
                reason: EndReason::MaxPlies,
            },
        );
        let k = kif(&r);
        assert!(k.contains("後手の持駒：飛\n"), "{k}");
        assert!(k.contains("先手の持駒：歩二\n"), "{k}");
        assert!(k.contains("| ・ ・ ・ ・v玉 ・ ・ ・ ・|一\n"), "{k}");
        assert!(k.contains("後手番\n"), "{k}");
        assert!(k.ends_with("   2 持将棋\nまで1手で持将棋\n"), "{k}");
    }

    #[test]
    fn csa_of_a_short_game() {
        let mut r = record(
            "startpos",
            &["7g7f", "3c3d"],
            Outcome {
                winner: Some(Color::Black),
                reason: EndReason::TimeLoss,
            },
        );
        r.moves[1].score = Some(Score::Cp(-40)); // White thinks it is behind by 40
        r.moves[1].pv_csa = vec!["+2726FU".into()];
        let c = csa(&r);
        let expected = "V2.2\nN+A\nN-B\n$EVENT:gougi match\n$START_TIME:2026/11/22 10:00:00\n\
$TIME_LIMIT:byoyomi 1s\nPI\n+\n+7776FU\nT0\n'** 30\n-3334FU\nT1\n'** 40 +2726FU\n%TIME_UP\n\
'gougi result: black (+) wins by time loss\n";
        assert_eq!(c, expected);
        assert_eq!(
            csa_score(&Score::Mate(Mate::win_in(3)), Color::White),
            -100_000
        );
    }

    #[test]
    fn kanji_counts() {
        assert_eq!(kanji_count(1), "");
        assert_eq!(kanji_count(9), "九");
        assert_eq!(kanji_count(10), "十");
        assert_eq!(kanji_count(18), "十八");
    }
}
