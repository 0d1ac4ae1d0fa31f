//! Japanese move names, in the two forms kifu files use.
//!
//! - [`kif_move`]: the KIF file form (柿木 Kifu for Windows): destination, piece name, `成` or
//!   `不成`, then the origin in half-width digits: `７六歩(77)`, `２二角成(88)`,
//!   `２二角不成(88)`, and `同　歩(76)` when the move lands where the previous move did
//!   (`同` plus a full-width space U+3000 before a one-character piece name; `同成銀(45)` needs
//!   none). KIF never writes relative words, since the origin is given, and writes `打` on
//!   every drop with no origin: `５五歩打`. We checked this against the KIF description on
//!   the author's site and files written by Kifu for Windows and ShogiGUI.
//! - [`ki2_move`]: the Japanese Shogi Association (日本将棋連盟) form, used in KI2 files and in
//!   print: no origin; when two or more pieces of the same kind can reach the square, the
//!   motion words 上 (forward), 引 (backward), 寄 (sideways) are added, and where motion does
//!   not single the piece out, the position words 右/左 (seen from the mover), with 直 for a
//!   gold, silver or promoted minor piece moving straight forward; both are combined (`左上`)
//!   when needed. 竜 and 馬 never use 直. `打` is written only when a piece on the board could
//!   also have moved there. Some older KI2 records write 行 in place of 上; we always write 上,
//!   and a reader should accept both.
//!
//! `成`/`不成` follow the rules: `不成` only when promotion was possible and not taken; a
//! forced promotion is written `成`.

use super::position::Position;
use super::types::{Color, Move, PieceKind, Square};

const FILE_FW: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANK_KANJI: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The kifu name of a piece kind: 歩 香 桂 銀 金 角 飛 玉 と 成香 成桂 成銀 馬 龍.
pub fn kind_name(kind: PieceKind) -> &'static str {
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

/// `７六` for 7六.
pub fn square_name(sq: Square) -> String {
    let mut s = String::with_capacity(6);
    s.push(FILE_FW[sq.file().index()]);
    s.push(RANK_KANJI[sq.rank().index()]);
    s
}

/// The destination part: `７六`, or `同` (+ U+3000 before a one-character name).
fn destination(out: &mut String, to: Square, prev_to: Option<Square>, name: &str) {
    if prev_to == Some(to) {
        out.push('同');
        if name.chars().count() == 1 {
            out.push('\u{3000}');
        }
    } else {
        out.push_str(&square_name(to));
    }
}

/// The moving piece's kind and the promotion suffix (`成`, `不成` or nothing).
fn kind_and_suffix(pos: &Position, m: Move) -> Option<(PieceKind, &'static str)> {
    if let Some(k) = m.dropped_kind() {
        return Some((k, ""));
    }
    let from = m.from()?;
    let p = pos.piece_on(from)?;
    let us = pos.side_to_move();
    let suffix = if m.is_promotion() {
        "成"
    } else if p.kind.can_promote() && (from.in_zone(us) || m.to().in_zone(us)) {
        "不成"
    } else {
        ""
    };
    Some((p.kind, suffix))
}

/// The KIF file name of `m` (legal in `pos`); `prev_to` is the previous move's destination,
/// for `同`. `None` if `m` does not fit the position (no piece on its origin).
pub fn kif_move(pos: &Position, m: Move, prev_to: Option<Square>) -> Option<String> {
    let (kind, suffix) = kind_and_suffix(pos, m)?;
    let name = kind_name(kind);
    let mut s = String::with_capacity(24);
    destination(&mut s, m.to(), prev_to, name);
    s.push_str(name);
    match m.from() {
        None => s.push('打'),
        Some(from) => {
            s.push_str(suffix);
            s.push('(');
            s.push(char::from(b'0' + from.file().number()));
            s.push(char::from(b'0' + from.rank().number()));
            s.push(')');
        }
    }
    Some(s)
}

/// Motion of a board move seen from the mover: forward, backward or sideways.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    Up,
    Down,
    Side,
}

fn motion(us: Color, from: Square, to: Square) -> Motion {
    let (fr, tr) = (
        from.rank().relative(us) as i32,
        to.rank().relative(us) as i32,
    );
    match tr.cmp(&fr) {
        std::cmp::Ordering::Less => Motion::Up,
        std::cmp::Ordering::Greater => Motion::Down,
        std::cmp::Ordering::Equal => Motion::Side,
    }
}

fn motion_word(mo: Motion) -> &'static str {
    match mo {
        Motion::Up => "上",
        Motion::Down => "引",
        Motion::Side => "寄",
    }
}

/// How far left a square is from `us`'s point of view (Black's left is file 9).
fn leftness(us: Color, sq: Square) -> i32 {
    match us {
        Color::Black => sq.file().index() as i32,
        Color::White => 8 - sq.file().index() as i32,
    }
}

/// 右/左 when the mover is strictly the left- or rightmost of `group` (which includes it).
fn side_word(us: Color, from: Square, group: &[Square]) -> Option<&'static str> {
    let me = leftness(us, from);
    let others = group
        .iter()
        .filter(|&&s| s != from)
        .map(|&s| leftness(us, s));
    let (mut all_right, mut all_left) = (true, true);
    for o in others {
        all_right &= o < me;
        all_left &= o > me;
    }
    if all_right {
        Some("左")
    } else if all_left {
        Some("右")
    } else {
        None
    }
}

/// The relative words (右左直上引寄) JSA rules need for the board move `from`→`to` of `kind`,
/// given the origins of all pieces of that kind that can legally reach `to` (`from` included).
fn relative_words(
    us: Color,
    kind: PieceKind,
    from: Square,
    to: Square,
    cands: &[Square],
) -> String {
    if cands.len() <= 1 {
        return String::new();
    }
    let mo = motion(us, from, to);
    let same_motion: Vec<Square> = cands
        .iter()
        .copied()
        .filter(|&s| motion(us, s, to) == mo)
        .collect();
    if same_motion.len() == 1 {
        return motion_word(mo).to_string();
    }
    let gold_like = matches!(
        kind,
        PieceKind::Gold
            | PieceKind::Silver
            | PieceKind::ProPawn
            | PieceKind::ProLance
            | PieceKind::ProKnight
            | PieceKind::ProSilver
    );
    if gold_like && mo == Motion::Up && from.file() == to.file() {
        return "直".to_string();
    }
    if let Some(w) = side_word(us, from, cands) {
        return w.to_string();
    }
    if let Some(w) = side_word(us, from, &same_motion) {
        return format!("{w}{}", motion_word(mo));
    }
    // Not reachable with a legal set of pieces; the motion word is the best remaining hint.
    motion_word(mo).to_string()
}

/// The JSA / KI2 name of `m` (legal in `pos`): relative words when needed, `打` only when a
/// board piece could also reach the square, no origin. `None` if `m` does not fit.
pub fn ki2_move(pos: &Position, m: Move, prev_to: Option<Square>) -> Option<String> {
    let (kind, suffix) = kind_and_suffix(pos, m)?;
    let us = pos.side_to_move();
    let to = m.to();
    let name = kind_name(kind);
    // Origins of the pieces of this kind that can legally reach `to`.
    let legal = pos.legal_moves();
    let mut cands: Vec<Square> = legal
        .iter()
        .filter(|x| x.to() == to)
        .filter_map(|x| x.from())
        .filter(|&f| pos.piece_on(f).is_some_and(|p| p.kind == kind))
        .collect();
    cands.sort_unstable();
    cands.dedup();
    let mut s = String::with_capacity(24);
    destination(&mut s, to, prev_to, name);
    s.push_str(name);
    match m.from() {
        None => {
            if !cands.is_empty() {
                s.push('打');
            }
        }
        Some(from) => {
            s.push_str(&relative_words(us, kind, from, to, &cands));
            s.push_str(suffix);
        }
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(s: &str) -> Position {
        Position::from_sfen(s).unwrap()
    }

    #[track_caller]
    fn kif(p: &Position, m: &str, prev: Option<Square>) -> String {
        kif_move(p, p.parse_usi_move(m).unwrap(), prev).unwrap()
    }

    #[track_caller]
    fn ki2(p: &Position, m: &str) -> String {
        let mv = p.parse_usi_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        ki2_move(p, mv, None).unwrap()
    }

    #[test]
    fn kif_basic_forms() {
        let mut p = Position::startpos();
        assert_eq!(kif(&p, "7g7f", None), "７六歩(77)");
        p.do_move(p.parse_usi_move("7g7f").unwrap());
        p.do_move(p.parse_usi_move("3c3d").unwrap());
        assert_eq!(kif(&p, "8h2b+", None), "２二角成(88)");
        assert_eq!(kif(&p, "8h2b", None), "２二角不成(88)");
        p.do_move(p.parse_usi_move("8h2b+").unwrap());
        // 同 with a full-width space before a one-character name.
        assert_eq!(kif(&p, "3a2b", Some(Square::SQ22)), "同\u{3000}銀(31)");
        assert_eq!(ki2(&p, "3a2b"), "２二銀");
        p.do_move(p.parse_usi_move("3a2b").unwrap());
        assert_eq!(kif(&p, "B*5e", None), "５五角打");
        // KI2 writes 打 only when a board piece could also go there.
        assert_eq!(ki2(&p, "B*5e"), "５五角");
    }

    #[test]
    fn promotion_words() {
        // Forced promotion is 成; no 不成 where promotion is impossible.
        let p = pos("4k4/P8/9/9/9/9/9/9/4K4 b - 1");
        assert_eq!(kif(&p, "9b9a+", None), "９一歩成(92)");
        let p = pos("4k4/9/9/9/9/9/9/9/4K3R b - 1");
        assert_eq!(kif(&p, "1i1e", None), "１五飛(19)");
        // Promoted pieces and 同 without a space for two-character names.
        let p = pos("4k4/9/9/9/5+S3/9/9/9/4K4 b - 1");
        assert_eq!(kif(&p, "4e4d", Some(Square::SQ44)), "同成銀(45)");
        let p = pos("4k4/9/9/9/5+R3/9/9/9/4K4 b - 1");
        assert_eq!(kif(&p, "4e4d", Some(Square::SQ44)), "同\u{3000}龍(45)");
    }

    #[test]
    fn drop_with_board_alternative() {
        // A black gold on 5i can also reach 5h: KI2 writes 打 for the drop.
        let p = pos("4k4/9/9/9/9/9/9/9/3GK4 b G 1");
        assert_eq!(ki2(&p, "G*5h"), "５八金打");
        assert_eq!(ki2(&p, "6i5h"), "５八金");
        assert_eq!(kif(&p, "G*5h", None), "５八金打");
    }

    #[test]
    fn relative_words_jsa() {
        // Golds on 6i and 4i both step up to 5h: 左 / 右.
        let p = pos("4k4/9/9/9/9/9/9/9/3G1G2K b - 1");
        assert_eq!(ki2(&p, "6i5h"), "５八金左");
        assert_eq!(ki2(&p, "4i5h"), "５八金右");
        // Gold on 4h moves sideways, gold on 6i moves up: 寄 / 上.
        let p = pos("4k4/9/9/9/9/9/9/5G3/3G4K b - 1");
        assert_eq!(ki2(&p, "4h5h"), "５八金寄");
        assert_eq!(ki2(&p, "6i5h"), "５八金上");
        // Three golds in a row below 5h: 左, 直, 右.
        let p = pos("4k4/9/9/9/9/9/9/9/3GGG2K b - 1");
        assert_eq!(ki2(&p, "6i5h"), "５八金左");
        assert_eq!(ki2(&p, "5i5h"), "５八金直");
        assert_eq!(ki2(&p, "4i5h"), "５八金右");
        // Silvers on 6g and 4g come down (引) and one on 6i goes up (上). 左 alone does not
        // single out 6g (6i is on the same file), so motion is added; 右 alone does for 4g.
        let p = pos("4k4/9/9/9/9/9/3S1S3/9/3S4K b - 1");
        assert_eq!(ki2(&p, "6g5h"), "５八銀左引");
        assert_eq!(ki2(&p, "4g5h"), "５八銀右");
        assert_eq!(ki2(&p, "6i5h"), "５八銀上");
        // White sees left and right mirrored: white golds on 6a and 4a to 5b.
        let p = pos("3g1g3/9/9/9/9/9/9/9/K3k4 w - 1");
        assert_eq!(ki2(&p, "6a5b"), "５二金右");
        assert_eq!(ki2(&p, "4a5b"), "５二金左");
        // Two dragons on one rank moving sideways to a square between them: 左 / 右, no 直.
        let p = pos("4k4/9/9/9/+R7+R/9/9/9/4K4 b - 1");
        assert_eq!(ki2(&p, "9e5e"), "５五龍左");
        assert_eq!(ki2(&p, "1e5e"), "５五龍右");
        // Two horses: one moves up, one down: 上 / 引.
        let p = pos("4k4/9/9/6+B2/9/9/9/2+B6/4K4 b - 1");
        assert_eq!(ki2(&p, "7h5f"), "５六馬上");
        assert_eq!(ki2(&p, "3d5f"), "５六馬引");
        // Silvers: one straight up (直) versus one diagonal from the right.
        let p = pos("4k4/9/9/9/9/9/9/4SS3/4K4 b - 1");
        assert_eq!(ki2(&p, "5h5g"), "５七銀直");
        assert_eq!(ki2(&p, "4h5g"), "５七銀右");
        // With 成/不成 after the relative word.
        let p = pos("4k4/9/9/3S1S3/9/9/9/9/4K4 b - 1");
        assert_eq!(ki2(&p, "6d5c+"), "５三銀左成");
        assert_eq!(ki2(&p, "4d5c"), "５三銀右不成");
    }
}
