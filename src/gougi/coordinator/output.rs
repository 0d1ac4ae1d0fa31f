//! Text for the GUI: the annotated member lines and the final `info` before `bestmove`.

use super::*;

impl<W: std::io::Write> Coordinator<W> {
    pub(super) fn member_line(&self, i: usize, got: &Got, verdict: Verdict) -> String {
        let slot = &self.slots[i];
        let game = self.round.as_ref().map_or(&self.game, |r| &r.game);
        let mut moves = Vec::new();
        if let Some(m) = got.best.mv() {
            moves.push(m);
            moves.extend(got.best.ponder());
        }
        let ja = match got.best {
            BestMove::Resign => "投了".to_string(),
            BestMove::Win => "入玉宣言".to_string(),
            _ => game.japanese(&moves).join(" "),
        };
        let score = got.score.map_or(String::new(), |s| score_text(&s));
        let history = History {
            prev: slot.prev.map_or(String::new(), |s| score_text(&s)),
            // A rise to or from a mate is no number of centipawns (it printed as 差分-199983).
            delta: match (got.score, slot.prev) {
                (Some(s @ Score::Cp(_)), Some(p @ Score::Cp(_))) => {
                    Some(i64::from(Eval::from_score(&s).0) - i64::from(Eval::from_score(&p).0))
                }
                _ => None,
            },
        };
        let bestmove = got.best.to_string();
        MemberLine {
            verdict,
            bestmove: &bestmove,
            ja: &ja,
            score: &score,
            history: Some(history),
            name: &slot.name,
        }
        .render()
    }
}

pub(super) fn best_text(best: &BestMove) -> String {
    match best {
        BestMove::Move { mv, .. } => mv.to_string(),
        BestMove::Resign => "resign".to_string(),
        BestMove::Win => "win".to_string(),
    }
}

/// The score as the reference showed it: `50`, `mate 3`, `mate -2`.
pub(super) fn score_text(score: &Score) -> String {
    match score {
        Score::Cp(cp) => cp.to_string(),
        mate => mate.to_string(),
    }
}

pub(super) fn join(moves: &[UsiMove]) -> String {
    moves
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last `info` before `bestmove`: the chosen member's score and a PV that starts with the
/// chosen move (ShogiHome attaches only such a line to the move), gougi's time and the nodes
/// of all members.
pub(super) fn final_info(round: &Round, got: &Got, slots: &[Slot]) -> String {
    let mut info = got.info.clone().unwrap_or_default();
    let pv: Vec<String> = match got.best.mv() {
        Some(mv) if got.pv.first() == Some(&mv) => got.pv.iter().map(|m| m.to_string()).collect(),
        Some(mv) => std::iter::once(mv)
            .chain(got.best.ponder())
            .map(|m| m.to_string())
            .collect(),
        None => vec![best_text(&got.best)],
    };
    info.text = Some(InfoText::Pv(pv));
    info.multipv = Some(1);
    info.time = Some(round.started.elapsed().as_millis() as u64);
    // Members' counts come from outside: saturate rather than overflow.
    let nodes: u64 = slots
        .iter()
        .filter_map(|s| s.last_info.as_ref().and_then(|i| i.nodes))
        .fold(0, u64::saturating_add);
    if nodes > 0 {
        info.nodes = Some(nodes.max(info.nodes.unwrap_or(0)));
    }
    info.nps = None;
    info.currmove = None;
    info.currmovenumber = None;
    info.extra.clear();
    if let Some(s) = got.score {
        info.score = Some(InfoScore::exact(s));
    }
    info.to_string()
}
