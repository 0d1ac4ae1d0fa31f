//! The annotated `info string` lines gougi prints at each decision.
//!
//! Formats follow the reference program byte for byte where its users read them (GougiShogi
//! §6), with full Japanese move names (`７六歩(77)` rather than the reference's `７六(77)`):
//!
//! ```text
//! info string [O] bestmove 7g7f ponder 8c8d [７六歩(77) ８四歩(83)] [評価値 50 （前回40 差分10）] [YaneuraOu]
//! info string [O] [3手詰め]　[６一飛打 同　玉(51) ５二金打] [gougi-mate]
//! info string [X] [詰み無し] [gougi-mate]
//! info string [O] bestmove 7g7f [７六歩(77)] [評価値 15 （50, -20）]
//! ```
//!
//! The parentheses around the history are full-width (U+FF08/U+FF09) after an ASCII space, and
//! the mate summary separates its parts with an ideographic space (U+3000), as in the reference.
//! Formatting is pure: the coordinator renders the Japanese move names with
//! `shogi::notation` and passes them in.

use std::fmt::Write;

/// `[O] ` for a member whose move was chosen, `[X] ` for one whose move was not, nothing for
/// the per-answer line printed when a `bestmove` arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Chosen,
    NotChosen,
    None,
}

impl Verdict {
    fn prefix(self) -> &'static str {
        match self {
            Verdict::Chosen => "[O] ",
            Verdict::NotChosen => "[X] ",
            Verdict::None => "",
        }
    }

    pub fn of(chosen: bool) -> Verdict {
        if chosen {
            Verdict::Chosen
        } else {
            Verdict::NotChosen
        }
    }
}

/// The score history part: the previous score's text and the difference, when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    pub prev: String,
    pub delta: Option<i64>,
}

/// One member's summary line (the reference's `D(ponder, prev)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLine<'a> {
    pub verdict: Verdict,
    /// `bestmove 7g7f` or, with the ponder part, `bestmove 7g7f ponder 8c8d`.
    pub bestmove: &'a str,
    /// Japanese names of the move and, if shown, the ponder move, joined by a space.
    pub ja: &'a str,
    /// The score as the member printed it (`50`, `mate 3`), empty when it gave none.
    pub score: &'a str,
    /// Shown when the line carries the history part.
    pub history: Option<History>,
    pub name: &'a str,
}

impl MemberLine<'_> {
    pub fn render(&self) -> String {
        // No score is shown as `-`, not as an empty field.
        let score = if self.score.is_empty() {
            "-"
        } else {
            self.score
        };
        let mut s = format!(
            "info string {}{} [{}] [評価値 {score}",
            self.verdict.prefix(),
            self.bestmove,
            self.ja,
        );
        // The reference printed ` （前回 差分 ）` with both fields empty on a member's first move
        // and a difference to or from a mate as a number: only what is known is shown.
        if let Some(h) = self.history.as_ref().filter(|h| !h.prev.is_empty()) {
            match h.delta {
                Some(d) => {
                    let _ = write!(s, " （前回{} 差分{d}）", h.prev);
                }
                None => {
                    let _ = write!(s, " （前回{}）", h.prev);
                }
            }
        }
        let _ = write!(s, "] [{}]", self.name);
        s
    }
}

/// The mate member's summary: `[k手詰め]　[moves] [name]`, or `[詰み無し] [name]`.
pub fn mate_line(verdict: Verdict, ja_moves: Option<&[String]>, name: &str) -> String {
    match ja_moves {
        Some(moves) => format!(
            "info string {}[{}手詰め]\u{3000}[{}] [{name}]",
            verdict.prefix(),
            moves.len(),
            moves.join(" ")
        ),
        None => format!("info string {}[詰み無し] [{name}]", verdict.prefix()),
    }
}

/// One candidate of the exchange rule: `[O] bestmove m [ja] [評価値 avg （view1, view2）]`.
pub fn exchange_line(
    verdict: Verdict,
    mv: &str,
    ja: &str,
    average: Option<i64>,
    views: [Option<i64>; 2],
    name: &str,
) -> String {
    let text = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
    format!(
        "info string {}bestmove {mv} [{ja}] [評価値 {} （{}, {}）] [{name}]",
        verdict.prefix(),
        text(average),
        text(views[0]),
        text(views[1])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_lines_match_the_reference_layout() {
        let line = MemberLine {
            verdict: Verdict::Chosen,
            bestmove: "bestmove 7g7f",
            ja: "７六歩(77)",
            score: "50",
            history: Some(History {
                prev: "40".into(),
                delta: Some(10),
            }),
            name: "YaneuraOu",
        };
        assert_eq!(
            line.render(),
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 50 （前回40 差分10）] [YaneuraOu]"
        );
        let fresh = MemberLine {
            verdict: Verdict::None,
            bestmove: "bestmove 7g7f ponder 8c8d",
            ja: "７六歩(77) ８四歩(83)",
            score: "50",
            history: Some(History {
                prev: String::new(),
                delta: None,
            }),
            name: "Mock e1",
        };
        assert_eq!(
            fresh.render(),
            "info string bestmove 7g7f ponder 8c8d [７六歩(77) ８四歩(83)] [評価値 50] [Mock e1]"
        );
        let bare = MemberLine {
            verdict: Verdict::NotChosen,
            history: None,
            score: "",
            ..fresh
        };
        assert_eq!(
            bare.render(),
            "info string [X] bestmove 7g7f ponder 8c8d [７六歩(77) ８四歩(83)] [評価値 -] [Mock e1]"
        );
    }

    #[test]
    fn a_rise_to_or_from_a_mate_shows_the_previous_score_alone() {
        let line = MemberLine {
            verdict: Verdict::Chosen,
            bestmove: "bestmove G*5b",
            ja: "５二金打",
            score: "mate 1",
            history: Some(History {
                prev: "mate 3".into(),
                delta: None,
            }),
            name: "e1",
        };
        assert_eq!(
            line.render(),
            "info string [O] bestmove G*5b [５二金打] [評価値 mate 1 （前回mate 3）] [e1]"
        );
    }

    #[test]
    fn mate_lines() {
        let moves = [
            "６一飛打".to_string(),
            "同　玉(51)".to_string(),
            "５二金打".to_string(),
        ];
        assert_eq!(
            mate_line(Verdict::Chosen, Some(&moves), "MockMate"),
            "info string [O] [3手詰め]\u{3000}[６一飛打 同　玉(51) ５二金打] [MockMate]"
        );
        assert_eq!(
            mate_line(Verdict::NotChosen, None, "MockMate"),
            "info string [X] [詰み無し] [MockMate]"
        );
    }

    #[test]
    fn exchange_lines_follow_the_reference_example() {
        assert_eq!(
            exchange_line(
                Verdict::NotChosen,
                "2g2f",
                "２六歩(27)",
                Some(-24),
                [Some(-40), Some(-8)],
                "e2"
            ),
            "info string [X] bestmove 2g2f [２六歩(27)] [評価値 -24 （-40, -8）] [e2]"
        );
        assert_eq!(
            exchange_line(
                Verdict::Chosen,
                "7g7f",
                "７六歩(77)",
                Some(15),
                [Some(50), Some(-20)],
                "e1"
            ),
            "info string [O] bestmove 7g7f [７六歩(77)] [評価値 15 （50, -20）] [e1]"
        );
    }
}
