//! Japanese move names as KIF files write them: `７六歩(77)`, `同　歩(76)`, `２二角成(88)`,
//! `２二角不成(88)`, `５五歩打`, `５八金右(49)`.
//!
//! The destination is a full-width file digit and a kanji rank, or `同` when it is the previous
//! move's destination (`同` is followed by an ideographic space U+3000 before a one-character
//! piece name, as KIF files align it: `同　歩`, but `同成銀`). Then the piece as it stood before
//! the move (歩 香 桂 銀 金 角 飛 玉 と 成香 成桂 成銀 馬 龍), the relative words when another
//! piece of the same kind could also reach the square, `成`/`不成` when promotion was possible,
//! and the origin in ASCII digits `(77)`; drops end in `打` (KIF writes it on every drop, since a
//! drop has no origin to show).
//!
//! Relative words follow the Japan Shogi Association's notation rules (棋譜の表記方法):
//! 1. if the motion — 上 (forward), 引 (backward), 寄 (sideways) — tells the pieces apart, it
//!    alone is written;
//! 2. otherwise, among the pieces with the same motion, 直 for a piece moving straight forward
//!    (not for 龍 and 馬), else 右 or 左 by position seen from the mover's side;
//! 3. with three or more pieces, 右/左 combine with the motion word when needed (`右上`).
//!
//! The old word 行 (used instead of 上 in some pre-war records) is not generated.

use super::position::Position;
use super::types::{Color, Move, PieceKind, Square};

const FILES: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The KIF name of a piece kind.
pub fn piece_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "歩",
        PieceKind::Lance => "香",
        PieceKind::Knight => "桂",
        PieceKind::Silver => "銀",
        PieceKind::Gold => "金",
        PieceKind::Bishop => "角",
        PieceKind::Rook => "飛",
        PieceKind::King => "玉",
        PieceKind::ProPawn => "と",
        PieceKind::ProLance => "成香",
        PieceKind::ProKnight => "成桂",
        PieceKind::ProSilver => "成銀",
        PieceKind::Horse => "馬",
        PieceKind::Dragon => "龍",
    }
}

/// `７六` for 7g.
pub fn square_name(sq: Square) -> String {
    format!("{}{}", FILES[sq.file().index()], RANKS[sq.rank().index()])
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    Up,
    Down,
    Side,
}

/// Motion of a board move from the mover's point of view.
fn motion(color: Color, from: Square, to: Square) -> Motion {
    // Ranks count from Black's far side: Black moves forward by decreasing rank.
    let (fr, tr) = (from.rank().number() as i32, to.rank().number() as i32);
    let forward = match color {
        Color::Black => fr - tr,
        Color::White => tr - fr,
    };
    match forward.signum() {
        1 => Motion::Up,
        -1 => Motion::Down,
        _ => Motion::Side,
    }
}

fn motion_word(m: Motion) -> &'static str {
    match m {
        Motion::Up => "上",
        Motion::Down => "引",
        Motion::Side => "寄",
    }
}

/// The mover's "rightness": larger is further to the mover's right (Black's right is file 1).
fn rightness(color: Color, sq: Square) -> i32 {
    let file = sq.file().number() as i32;
    match color {
        Color::Black => -file,
        Color::White => file,
    }
}

/// The relative words for a board move of `kind` from `from` to `to` by `color`, given the
/// other squares from which a piece of the same kind could legally move to `to`.
fn relative(color: Color, kind: PieceKind, from: Square, to: Square, others: &[Square]) -> String {
    if others.is_empty() {
        return String::new();
    }
    let m = motion(color, from, to);
    // Rule 1: the motion alone.
    if others.iter().all(|&o| motion(color, o, to) != m) {
        return motion_word(m).to_string();
    }
    let same: Vec<Square> = others
        .iter()
        .copied()
        .filter(|&o| motion(color, o, to) == m)
        .collect();
    let big = matches!(kind, PieceKind::Dragon | PieceKind::Horse);
    // Rule 2: 直 for a straight forward move.
    if !big && m == Motion::Up && from.file() == to.file() {
        return "直".to_string();
    }
    let r = rightness(color, from);
    let side = if same.iter().all(|&o| rightness(color, o) < r) {
        Some("右")
    } else if same.iter().all(|&o| rightness(color, o) > r) {
        Some("左")
    } else {
        None
    };
    match side {
        // The position word alone, when it also separates the pieces with other motions.
        Some(w)
            if others
                .iter()
                .all(|&o| (rightness(color, o) < r) == (w == "右") && rightness(color, o) != r) =>
        {
            w.to_string()
        }
        Some(w) => format!("{w}{}", motion_word(m)),
        // A piece in the middle of three: its motion is shared, so it must be straight (直)
        // or the pieces differ by motion among the others; fall back to the motion word.
        None => motion_word(m).to_string(),
    }
}

/// The KIF name of `m` (legal in `pos`); `prev_to` is the destination of the previous move,
/// for `同`.
pub fn kif_move(pos: &Position, m: Move, prev_to: Option<Square>) -> String {
    let to = m.to();
    let mut s = if prev_to == Some(to) {
        "同".to_string()
    } else {
        square_name(to)
    };
    let color = pos.side_to_move();
    if let Some(kind) = m.dropped_kind() {
        if s == "同" {
            s.push('\u{3000}');
        }
        s.push_str(piece_name(kind));
        s.push('打');
        return s;
    }
    let Some(from) = m.from() else { return s };
    let Some(piece) = pos.piece_on(from) else {
        return s;
    };
    let name = piece_name(piece.kind);
    if s == "同" && name.chars().count() == 1 {
        s.push('\u{3000}');
    }
    s.push_str(name);
    let others: Vec<Square> = pos
        .legal_moves()
        .iter()
        .filter_map(|&o| {
            let of = o.from()?;
            (o.to() == to && of != from && pos.piece_on(of) == Some(piece)).then_some(of)
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    s.push_str(&relative(color, piece.kind, from, to, &others));
    if m.is_promotion() {
        s.push('成');
    } else if piece.kind.can_promote() && (from.in_zone(color) || to.in_zone(color)) {
        // Promotion was possible; a legal non-promotion is written 不成.
        s.push_str("不成");
    }
    s.push_str(&format!(
        "({}{})",
        from.file().number(),
        from.rank().number()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(sfen: &str, usi: &str, prev: Option<&str>) -> String {
        let pos = Position::from_sfen(sfen).expect("sfen");
        let m = pos.parse_usi_move(usi).expect("legal move");
        kif_move(&pos, m, prev.and_then(Square::from_usi))
    }

    const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    #[test]
    fn plain_moves_drops_and_same_square() {
        assert_eq!(name(START, "7g7f", None), "７六歩(77)");
        assert_eq!(name(START, "2h6h", None), "６八飛(28)");
        assert_eq!(
            name("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "G*5b", None),
            "５二金打"
        );
        // 同 with the ideographic space before a one-character name.
        let s = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
        assert_eq!(name(s, "8h2b+", Some("3c")), "２二角成(88)");
        let s2 = "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4";
        assert_eq!(name(s2, "3a2b", Some("2b")), "同　銀(31)");
    }

    #[test]
    fn promotion_and_non_promotion() {
        let s = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
        assert_eq!(name(s, "8h2b", None), "２二角不成(88)");
        assert_eq!(name(s, "8h2b+", None), "２二角成(88)");
        // A promoted piece keeps its two-character name, and 同 takes no space before it.
        let p = "4k4/9/4+S4/9/9/9/9/9/4K4 b - 1";
        assert_eq!(name(p, "5c5b", Some("5b")), "同成銀(53)");
        // Outside the zone no word.
        assert_eq!(name(START, "3i3h", None), "３八銀(39)");
    }

    #[test]
    fn relative_words() {
        // Golds on 6i and 4i, both can go to 5h: both move up-diagonally → position words.
        let g = "4k4/9/9/9/9/9/9/9/3GKG3 b - 1";
        assert_eq!(name(g, "6i5h", None), "５八金左(69)");
        assert_eq!(name(g, "4i5h", None), "５八金右(49)");
        // Gold straight up versus a gold from the side: 直 and 右.
        let g2 = "4k4/9/9/9/9/9/9/9/K3GG3 b - 1";
        assert_eq!(name(g2, "5i5h", None), "５八金直(59)");
        assert_eq!(name(g2, "4i5h", None), "５八金右(49)");
        // Motion tells them apart: one gold moves up, the other sideways.
        let g3 = "4k4/9/9/9/9/9/9/3G5/4G4 b - 1";
        assert_eq!(name(g3, "5i5h", None), "５八金上(59)");
        assert_eq!(name(g3, "6h5h", None), "５八金寄(68)");
        // Silvers: one from below moves up, one from above moves back: 上 and 引.
        let s = "4k4/9/9/9/4s4/9/3S5/9/3S5 b - 1";
        assert_eq!(name(s, "6i5h", None), "５八銀上(69)");
        assert_eq!(name(s, "6g5h", None), "５八銀引(67)");
        // White sees right and left mirrored.
        let w = "3gkg3/9/9/9/9/9/9/9/4K4 w - 1";
        assert_eq!(name(w, "6a5b", None), "５二金右(61)");
        assert_eq!(name(w, "4a5b", None), "５二金左(41)");
        // Dragons use no 直: right/left.
        let d = "4k4/9/9/9/9/9/9/4K4/+R7+R b - 1";
        assert_eq!(name(d, "9i5i", None), "５九龍左(99)");
        assert_eq!(name(d, "1i5i", None), "５九龍右(19)");
    }
}
