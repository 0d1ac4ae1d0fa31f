//! Text for the GUI: the annotated member lines and the final `info` before `bestmove`.

use std::collections::HashMap;

use tracing::{info, warn};

use crate::gougi::annotate::{History, MemberLine, Verdict};
use crate::gougi::answer::Eval;
use crate::gougi::game::Game;
use crate::member::Role;
use crate::usi::{BestMove, InfoScore, InfoText, Score, UsiMove};

use super::state::{label, Got, Round, Slot};
use super::Coordinator;

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
/// chosen move (ShogiHome attaches only such a line to the move), gougi's time and `nodes`
/// (the caller's count: every member's for a decision, the source line's for a fallback).
/// `resign` and `win` are not moves: their line has no PV, and with no score either there is
/// no line at all (`None`).
pub(super) fn final_info(round: &Round, got: &Got, nodes: Option<u64>) -> Option<String> {
    let mut info = got.info.clone().unwrap_or_default();
    let pv: Vec<String> = match got.best.mv() {
        Some(mv) if got.pv.first() == Some(&mv) => got.pv.iter().map(|m| m.to_string()).collect(),
        Some(mv) => std::iter::once(mv)
            .chain(got.best.ponder())
            .map(|m| m.to_string())
            .collect(),
        None => Vec::new(),
    };
    info.text = (!pv.is_empty()).then_some(InfoText::Pv(pv));
    info.multipv = info.text.is_some().then_some(1);
    info.time = Some(round.started.elapsed().as_millis() as u64);
    info.nodes = nodes.filter(|&n| n > 0);
    info.nps = None;
    info.currmove = None;
    info.currmovenumber = None;
    info.extra.clear();
    if let Some(s) = got.score {
        info.score = Some(InfoScore::exact(s));
    }
    if info.text.is_none() && info.score.is_none() {
        return None;
    }
    Some(info.to_string())
}

/// Every member's nodes on its last line, and the chosen line's own count if larger: what the
/// consultation searched for this move. Members' counts come from outside: saturate rather
/// than overflow.
pub(super) fn all_nodes(got: &Got, slots: &[Slot]) -> u64 {
    slots
        .iter()
        .filter_map(|s| s.last_info.as_ref().and_then(|i| i.nodes))
        .fold(0, u64::saturating_add)
        .max(got.info.as_ref().and_then(|i| i.nodes).unwrap_or(0))
}

/// `G_Monitor`: the live page's address (empty = off). Declared by gougi for every type.
pub(super) const MONITOR_OPTION: &str = "option name G_Monitor type string default <empty>";

// ----- the live page (`G_Monitor`, `crate::monitor`) ------------------------------------------
//
// Publishing is a `try_send` to the server's own thread (see `monitor`'s module doc): nothing
// here waits, and with no monitor running nothing is built at all.

impl<W: std::io::Write> Coordinator<W> {
    /// `setoption name G_Monitor value <addr>`: start, move or stop the page's server. The
    /// same value again (GUIs send every option before each game) keeps the running server.
    pub(super) fn set_monitor(&mut self, value: &str) {
        let value = value.trim();
        if self.monitor.as_ref().is_some_and(|(v, _)| v == value) {
            return;
        }
        self.monitor = None;
        let addr = match crate::monitor::parse_address(value) {
            Ok(Some(addr)) => addr,
            Ok(None) => return,
            Err(e) => {
                self.say(format!(
                    "info string [Warning] setoption G_Monitor {value}: {e}; no monitor"
                ));
                return;
            }
        };
        match crate::monitor::Server::start(addr, crate::monitor::consult::PAGE) {
            Ok(server) => {
                info!(url = %server.url(), "monitor started");
                self.say(format!("info string monitor: {}", server.url()));
                if !addr.ip().is_loopback() {
                    self.say(format!(
                        "info string [Warning] G_Monitor {value}: not a loopback address; \
                         anyone who can reach it sees the game"
                    ));
                }
                self.monitor = Some((value.to_string(), server));
                self.publish_hello();
            }
            Err(e) => {
                warn!(%addr, error = %e, "monitor");
                self.say(format!(
                    "info string [Warning] setoption G_Monitor {value}: cannot listen on {addr}: {e}; no monitor"
                ));
            }
        }
    }

    pub(super) fn publish(
        &self,
        retain: crate::monitor::Retain,
        event: impl FnOnce(&Self) -> crate::monitor::consult::Event,
    ) {
        if let Some((_, server)) = &self.monitor {
            server.publish(retain, &event(self));
        }
    }

    pub(super) fn publish_hello(&self) {
        use crate::monitor::consult::{Event, Hello, MemberInfo};
        self.publish(crate::monitor::Retain::Latest("hello".into()), |c| {
            Event::Hello(Hello {
                policy: c.config.policy.id().to_string(),
                policy_ja: c.config.policy.japanese_name().to_string(),
                members: c
                    .slots
                    .iter()
                    .map(|s| MemberInfo {
                        number: s.number(),
                        name: s.name.to_string(),
                        scale: s.spec.scale,
                        role: match s.spec.role {
                            Role::Normal => "normal",
                            _ => "mate",
                        }
                        .to_string(),
                    })
                    .collect(),
                version: env!("CARGO_PKG_VERSION").to_string(),
            })
        });
    }

    /// One decision for the page: called as `bestmove` is said, with the `[O]/[X]` lines and
    /// any `info string` of the decision still in the buffer (they become the notes). Only what
    /// the event needs is copied here; it is built and sent by [`Self::publish_pending`] after
    /// the `bestmove` reached the GUI (Japanese names and JSON cost tens of µs).
    pub(super) fn publish_round(&mut self, round: &Round, got: &Got) {
        if self.monitor.is_none() {
            return;
        }
        let mut members: Vec<usize> = round.participants.clone();
        members.extend(
            round
                .answers
                .keys()
                .filter(|i| !round.participants.contains(i)),
        );
        let notes = self
            .buffer
            .iter()
            .filter_map(|l| l.strip_prefix("info string "))
            .filter(|l| !l.starts_with("[O]") && !l.starts_with("[X]"))
            .map(str::to_string)
            .collect();
        self.unpublished.push(Decided {
            game: round.game.clone(),
            elsewhere: round.elsewhere.clone(),
            answers: members
                .into_iter()
                .map(|i| (i, round.answers.get(&i).cloned()))
                .collect(),
            got: got.clone(),
            time_ms: round.started.elapsed().as_millis() as u64,
            notes,
        });
    }

    /// Builds and sends the decisions said since the last flush (called after it).
    pub(super) fn publish_pending(&mut self) {
        for d in std::mem::take(&mut self.unpublished) {
            self.publish(crate::monitor::Retain::Log, |c| {
                crate::monitor::consult::Event::Round(c.round_event(&d))
            });
        }
    }

    fn round_event(&self, d: &Decided) -> crate::monitor::consult::Round {
        use crate::monitor::consult::{MemberRound, Round as RoundEvent};
        let (game, got) = (&d.game, &d.got);
        let played = got.best.mv();
        let bestmove = got.best.token().to_string();
        let ja = |game: &Game, best: &BestMove| match best {
            BestMove::Resign => "投了".to_string(),
            BestMove::Win => "入玉宣言".to_string(),
            BestMove::Move { mv, .. } => game.japanese(&[*mv]).join(""),
        };
        let mut members: Vec<&(usize, Option<Got>)> = d.answers.iter().collect();
        members.sort_by_key(|(i, _)| self.slots[*i].number());
        let members: Vec<MemberRound> = members
            .into_iter()
            .map(|(i, answer)| {
                let slot = &self.slots[*i];
                let mut row = MemberRound {
                    number: slot.number(),
                    name: slot.name.to_string(),
                    ..Default::default()
                };
                let Some(a) = answer else {
                    return row;
                };
                let g = d.elsewhere.get(i).unwrap_or(game);
                let info = a.info.as_ref();
                row.answered = true;
                row.bestmove = a.best.token().to_string();
                row.bestmove_ja = ja(g, &a.best);
                row.agrees = a.best == got.best || (played.is_some() && a.best.mv() == played);
                if let Some(s) = a.score {
                    row.score_text = score_text(&s);
                    let e = Eval::from_score(&s);
                    row.raw = Some(e.0);
                    row.calibrated = Some(e.calibrated(slot.spec.scale).0);
                }
                row.depth = info.and_then(|i| i.depth);
                row.nodes = info.and_then(|i| i.nodes);
                row.time_ms = info.and_then(|i| i.time);
                row.pv = a.pv.iter().map(ToString::to_string).collect();
                row.pv_ja = g.japanese(&a.pv).join(" ");
                row
            })
            .collect();
        let chosen: Vec<u32> = members
            .iter()
            .filter(|m| m.agrees)
            .map(|m| m.number)
            .collect();
        let answered = members.iter().filter(|m| m.answered).count();
        let by = match chosen.as_slice() {
            [] => "no member's own bestmove".to_string(),
            list => list
                .iter()
                .map(|n| {
                    let m = members.iter().find(|m| m.number == *n).expect("listed");
                    label(*n, &m.name)
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        let reason = format!(
            "{} ({}): {bestmove} from {by}; {} of {answered} answers agree",
            self.config.policy.id(),
            self.config.policy.japanese_name(),
            chosen.len()
        );
        let board = game.board.as_ref();
        RoundEvent {
            ply: game.ply(),
            black: game.black_to_move(),
            sfen: board.map_or(String::new(), |b| b.to_sfen()),
            // One move on a copy (not `Game::after`, which replays the whole game).
            after: match (board, played) {
                (Some(b), Some(mv)) => b.parse_usi_move(mv.as_str()).map_or(String::new(), |m| {
                    let mut b = b.clone();
                    b.do_move(m);
                    b.to_sfen()
                }),
                _ => String::new(),
            },
            bestmove_ja: ja(game, &got.best),
            bestmove,
            chosen,
            reason,
            notes: d.notes.clone(),
            time_ms: d.time_ms,
            members,
        }
    }
}

/// A decision waiting to be published: what `round_event` reads, copied at the decision.
pub(super) struct Decided {
    game: Game,
    elsewhere: HashMap<usize, Game>,
    /// Every participant (and any other member that answered) with its answer, if any.
    answers: Vec<(usize, Option<Got>)>,
    got: Got,
    time_ms: u64,
    notes: Vec<String>,
}
