//! CSA standard text (CSA 標準棋譜ファイル形式 V2.2/V3.0): moves such as `+7776FU`, `-0055KA`,
//! `+8822UM`, and the position lines (`PI`, or `P1`…`P9` rows, `P+`/`P-` hands, side to move).
//!
//! A CSA move names the piece *after* the move (so a bishop promoting on 22 is `+8822UM`), the
//! origin `00` for a drop, and the side by its sign. Game records written by `gougi match` and
//! read back by tools use these functions, so records and the rules core agree on one spelling.

use super::position::Position;
use super::types::{Color, File, Move, Piece, PieceKind, Rank, Square};

/// The two-letter CSA name of a piece kind (`FU` … `RY`).
pub fn csa_kind(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "FU",
        PieceKind::Lance => "KY",
        PieceKind::Knight => "KE",
        PieceKind::Silver => "GI",
        PieceKind::Gold => "KI",
        PieceKind::Bishop => "KA",
        PieceKind::Rook => "HI",
        PieceKind::King => "OU",
        PieceKind::ProPawn => "TO",
        PieceKind::ProLance => "NY",
        PieceKind::ProKnight => "NK",
        PieceKind::ProSilver => "NG",
        PieceKind::Horse => "UM",
        PieceKind::Dragon => "RY",
    }
}

/// The kind a CSA name stands for.
pub fn kind_from_csa(name: &str) -> Option<PieceKind> {
    (0..14)
        .filter_map(PieceKind::try_index)
        .find(|&k| csa_kind(k) == name)
}

/// `+` for Black (sente), `-` for White.
pub fn csa_sign(c: Color) -> char {
    match c {
        Color::Black => '+',
        Color::White => '-',
    }
}

fn push_square(s: &mut String, sq: Square) {
    s.push(char::from(b'0' + sq.file().number()));
    s.push(char::from(b'0' + sq.rank().number()));
}

/// The CSA text of `m` played by the side to move of `pos`; `None` if `m` does not fit the
/// position (no piece on its origin).
pub fn csa_move(pos: &Position, m: Move) -> Option<String> {
    let mut s = String::with_capacity(7);
    s.push(csa_sign(pos.side_to_move()));
    let kind = match m.from() {
        None => {
            s.push_str("00");
            m.dropped_kind()?
        }
        Some(from) => {
            push_square(&mut s, from);
            let k = pos.piece_on(from)?.kind;
            if m.is_promotion() {
                k.promote()?
            } else {
                k
            }
        }
    };
    push_square(&mut s, m.to());
    s.push_str(csa_kind(kind));
    Some(s)
}

/// The move that CSA `text` (`+7776FU`, sign optional) names in `pos`, if it is well formed and
/// agrees with the position (right side, a piece of ours on the origin, a reachable kind). The
/// move is not checked for legality: use [`Position::is_legal`] for that.
pub fn parse_csa_move(pos: &Position, text: &str) -> Option<Move> {
    let text = text.trim();
    let body = match text.as_bytes().first()? {
        b'+' | b'-' => {
            let sign = if text.starts_with('+') {
                Color::Black
            } else {
                Color::White
            };
            if sign != pos.side_to_move() {
                return None;
            }
            &text[1..]
        }
        _ => text,
    };
    let b = body.as_bytes();
    if b.len() != 6 || !body.is_ascii() {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(10).map(|d| d as u8);
    let square = |f: u8, r: u8| Some(Square::new(File::new(f)?, Rank::new(r)?));
    let to = square(digit(b[2])?, digit(b[3])?)?;
    let kind = kind_from_csa(&body[4..])?;
    if b[0] == b'0' && b[1] == b'0' {
        return kind.is_hand_kind().then(|| Move::new_drop(kind, to));
    }
    let from = square(digit(b[0])?, digit(b[1])?)?;
    let p = pos.piece_on(from)?;
    if p.color != pos.side_to_move() {
        return None;
    }
    if p.kind == kind {
        Some(Move::new_normal(from, to, false))
    } else if p.kind.promote() == Some(kind) {
        Some(Move::new_normal(from, to, true))
    } else {
        None
    }
}

/// The CSA position block: `PI` for the standard start, else the nine `P1`…`P9` rows and the
/// `P+`/`P-` hand lines; then the side to move (`+`/`-`). Each line ends with `\n`.
pub fn csa_position(pos: &Position) -> String {
    let mut s = String::with_capacity(400);
    let start = Position::startpos();
    let same_as_start = pos.side_to_move() == Color::Black
        && pos.hand(Color::Black).is_empty()
        && pos.hand(Color::White).is_empty()
        && (0..81)
            .filter_map(Square::try_index)
            .all(|sq| pos.piece_on(sq) == start.piece_on(sq));
    if same_as_start {
        s.push_str("PI\n+\n");
        return s;
    }
    for rank in 1..=9u8 {
        s.push('P');
        s.push(char::from(b'0' + rank));
        for file in (1..=9u8).rev() {
            let sq = Square::new(File::new(file).unwrap(), Rank::new(rank).unwrap());
            match pos.piece_on(sq) {
                None => s.push_str(" * "),
                Some(Piece { color, kind }) => {
                    s.push(csa_sign(color));
                    s.push_str(csa_kind(kind));
                }
            }
        }
        s.push('\n');
    }
    for c in [Color::Black, Color::White] {
        let hand = pos.hand(c);
        if hand.is_empty() {
            continue;
        }
        s.push('P');
        s.push(csa_sign(c));
        // From the most valuable, as records usually list them.
        for kind in PieceKind::HAND.into_iter().rev() {
            for _ in 0..hand.count(kind) {
                s.push_str("00");
                s.push_str(csa_kind(kind));
            }
        }
        s.push('\n');
    }
    s.push(csa_sign(pos.side_to_move()));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(text: &str) -> Position {
        Position::from_usi_position(text).unwrap()
    }

    #[test]
    fn moves_name_the_piece_after_the_move() {
        let pos = play("startpos");
        let m = pos.parse_usi_move("7g7f").unwrap();
        assert_eq!(csa_move(&pos, m).unwrap(), "+7776FU");
        let pos = play("startpos moves 7g7f 3c3d");
        let m = pos.parse_usi_move("8h2b+").unwrap();
        assert_eq!(csa_move(&pos, m).unwrap(), "+8822UM");
        let pos = play("startpos moves 7g7f 3c3d 8h2b+ 3a2b");
        let m = pos.parse_usi_move("B*4e").unwrap();
        assert_eq!(csa_move(&pos, m).unwrap(), "+0045KA");
        let pos = play("startpos moves 7g7f");
        let m = pos.parse_usi_move("3c3d").unwrap();
        assert_eq!(csa_move(&pos, m).unwrap(), "-3334FU");
    }

    #[test]
    fn parse_round_trips_every_legal_move() {
        for text in [
            "startpos",
            "startpos moves 7g7f 3c3d 8h2b+ 3a2b",
            "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ] {
            let pos = play(text);
            for m in pos.legal_moves().iter().copied() {
                let csa = csa_move(&pos, m).unwrap();
                assert_eq!(parse_csa_move(&pos, &csa), Some(m), "{text}: {csa}");
            }
        }
    }

    #[test]
    fn parse_rejects_what_does_not_fit() {
        let pos = play("startpos");
        assert_eq!(parse_csa_move(&pos, "-3334FU"), None); // not White's turn
        assert_eq!(parse_csa_move(&pos, "+7776KI"), None); // wrong kind
        assert_eq!(parse_csa_move(&pos, "+5576FU"), None); // empty origin
        assert_eq!(parse_csa_move(&pos, "+0055OU"), None); // a king is never in hand
        assert_eq!(parse_csa_move(&pos, "+77"), None);
        assert_eq!(parse_csa_move(&pos, "+7776ＦＵ"), None);
        assert!(parse_csa_move(&pos, "7776FU").is_some());
    }

    #[test]
    fn position_block() {
        assert_eq!(csa_position(&Position::startpos()), "PI\n+\n");
        // After moves the board differs from the start: full rows.
        let pos = play("sfen 4k4/9/9/9/9/9/9/9/4K4 w 2Pr 10");
        let text = csa_position(&pos);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "P1 *  *  *  * -OU *  *  *  * ");
        assert_eq!(lines[8], "P9 *  *  *  * +OU *  *  *  * ");
        assert_eq!(lines[9], "P+00FU00FU");
        assert_eq!(lines[10], "P-00HI");
        assert_eq!(lines[11], "-");
    }
}
