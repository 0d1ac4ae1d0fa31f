//! One game between two running engines, refereed by the rules core.
//!
//! The referee trusts nothing an engine says: every move is checked for legality
//! ([`Position::parse_usi_move`]), a `bestmove win` is checked against the CSA 27-point rule
//! ([`Position::declaration_win`]), the clocks are the runner's ([`Clocks`]), and the end of
//! the game (checkmate, sennichite, max plies) is detected here rather than left to a
//! `resign`. Game end rules:
//! - checkmate: the side to move has no legal move (pawn-drop mate is never legal, so it
//!   cannot end a game) — it loses;
//! - `bestmove resign`: the mover loses;
//! - an illegal or unparsable move: the mover loses; the text and the reason are recorded;
//! - a time loss (allowance + grace exceeded, or no answer): the mover loses;
//! - a crash (the process ends, or fails `isready` before the game): that side loses;
//! - sennichite (千日手, the same position — board, hands, side — for the fourth time): a
//!   draw, unless one side gave check with every one of its moves since the first of those
//!   occurrences (連続王手の千日手): that side loses;
//! - `bestmove win` (入玉宣言): a win if the rule holds, else a loss;
//! - max plies (counted from the opening's base position, opening moves included): a draw.
//!
//! With [`GameRules::ponder`] both sides ponder as under a GUI: after a move that names a ponder
//! move legal after it, the mover gets `position … <ponder move>` and `go ponder …` (the clock
//! as it stands, or its own next node budget plus the opponent's: [`Clocks::ponder_line`]).
//! The opponent's move settles it: the same move is a hit (`ponderhit`, the mover's time counted
//! from there), another a miss (`stop`, its `bestmove` waited for and dropped, then `position`
//! and `go` as usual, the time counted from the `stop`). A ponder still running when the game
//! ends is stopped before `gameover`.

use std::time::Duration;

use tokio::time::Instant;

use crate::shogi::csa::csa_move;
use crate::shogi::{kif_move, Color, IllegalMoveKind, Move, Position, PositionError};
use crate::usi::{BestMove, GameResult, Score};

use super::clock::{Clocks, Limits};
use super::engine::{Engine, EngineFailure, Reply};
use super::opening::Opening;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    Resign,
    /// The mover's `bestmove` text and why it was refused.
    IllegalMove {
        text: String,
        why: String,
    },
    TimeLoss,
    /// The engine process ended or failed to get ready.
    Crash(String),
    Repetition,
    PerpetualCheck,
    Declaration,
    FalseDeclaration,
    MaxPlies,
}

impl EndReason {
    /// A short English label for tables and JSON.
    pub fn label(&self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Resign => "resign",
            EndReason::IllegalMove { .. } => "illegal move",
            EndReason::TimeLoss => "time loss",
            EndReason::Crash(_) => "crash",
            EndReason::Repetition => "repetition",
            EndReason::PerpetualCheck => "perpetual check",
            EndReason::Declaration => "declaration",
            EndReason::FalseDeclaration => "false declaration",
            EndReason::MaxPlies => "max plies",
        }
    }
}

/// The result: the winner (`None` for a draw) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub reason: EndReason,
}

impl Outcome {
    /// The `gameover` word for side `c`.
    pub fn result_for(&self, c: Color) -> GameResult {
        match self.winner {
            None => GameResult::Draw,
            Some(w) if w == c => GameResult::Win,
            Some(_) => GameResult::Lose,
        }
    }
}

/// One move of the record.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedMove {
    pub mv: Move,
    /// Who played it.
    pub color: Color,
    /// KIF name (`７六歩(77)`, `同　歩(76)`).
    pub kif: String,
    /// CSA text (`+7776FU`).
    pub csa: String,
    /// Thinking time as measured by the runner (0 for opening moves).
    pub time_ms: u64,
    /// The engine's last score before the move, from the mover's view.
    pub score: Option<Score>,
    /// The expected continuation after this move, in CSA text.
    pub pv_csa: Vec<String>,
    /// Part of the opening, not played by an engine.
    pub from_opening: bool,
}

/// What a time loss was: who, how late, against which limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeLossDetail {
    /// The side that lost on time.
    pub side: Color,
    /// Its player's name.
    pub name: String,
    /// How long the move took; `None` when no move came before the limit (the engine was
    /// stopped there).
    pub used_ms: Option<u64>,
    /// The clock's allowance for the move (main time left + byoyomi, increment included);
    /// `None` without a clock (node games), where the hang limit is the limit.
    pub allowance_ms: Option<u64>,
    /// The grace over the allowance (or the hang limit without a clock).
    pub grace_ms: u64,
}

impl TimeLossDetail {
    /// The limit the move had to meet, milliseconds.
    pub fn limit_ms(&self) -> u64 {
        self.allowance_ms.unwrap_or(0).saturating_add(self.grace_ms)
    }
}

fn secs(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

impl std::fmt::Display for TimeLossDetail {
    /// `Black (A) took 0.912 s: 0.762 s over the limit of 0.150 s (allowance 0.100 s + grace
    /// 0.050 s)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = match self.side {
            Color::Black => "Black",
            Color::White => "White",
        };
        let limit = self.limit_ms();
        let why = match self.allowance_ms {
            Some(a) => format!("allowance {} + grace {}", secs(a), secs(self.grace_ms)),
            None => "no clock: the hang limit".to_owned(),
        };
        match self.used_ms {
            Some(used) => write!(
                f,
                "{side} ({}) took {}: {} over the limit of {} ({why})",
                self.name,
                secs(used),
                secs(used.saturating_sub(limit)),
                secs(limit)
            ),
            None => write!(
                f,
                "{side} ({}) sent no move within the limit of {} ({why})",
                self.name,
                secs(limit)
            ),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// `startpos` or `sfen …`: the position before the first move.
    pub base: String,
    /// Player names, indexed by colour.
    pub names: [String; 2],
    /// Limits, indexed by colour.
    pub limits: [Limits; 2],
    pub moves: Vec<PlayedMove>,
    pub outcome: Outcome,
    /// Local wall-clock start, `YYYY/MM/DD HH:MM:SS` (UTC).
    pub started: String,
    /// Set when the game ended on time: who, how late, the limit.
    pub time_loss: Option<TimeLossDetail>,
    /// Ponders and hits, indexed by colour (`--ponder`; zero without it).
    pub ponder: [PonderCount; 2],
}

/// One side's ponders in a game (`gougi match --ponder`): how many were settled by the
/// opponent's move (a ponder cut short by the end of the game is neither), and how many of
/// those predicted it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PonderCount {
    pub ponders: u32,
    pub hits: u32,
}

impl PonderCount {
    /// `43/80 (53.8 %)`.
    pub fn describe(&self) -> String {
        if self.ponders == 0 {
            return "0/0".to_owned();
        }
        format!(
            "{}/{} ({:.1} %)",
            self.hits,
            self.ponders,
            100.0 * f64::from(self.hits) / f64::from(self.ponders)
        )
    }
}

impl GameRecord {
    /// The USI `position` text of the final position (`startpos moves …`).
    pub fn usi_position(&self) -> String {
        let mut s = self.base.clone();
        if !self.moves.is_empty() {
            s.push_str(" moves");
            for m in &self.moves {
                s.push(' ');
                s.push_str(&m.mv.to_string());
            }
        }
        s
    }

    /// Thinking time each colour used, milliseconds (indexed by colour).
    pub fn times_ms(&self) -> [u64; 2] {
        let mut t = [0u64; 2];
        for m in &self.moves {
            t[m.color.index()] = t[m.color.index()].saturating_add(m.time_ms);
        }
        t
    }

    /// Plies played by the engines (opening moves excluded).
    pub fn engine_plies(&self) -> usize {
        self.moves.iter().filter(|m| !m.from_opening).count()
    }
}

/// What the referee needs besides the engines.
#[derive(Clone, Copy, Debug)]
pub struct GameRules {
    /// Limits indexed by colour.
    pub limits: [Limits; 2],
    /// Extra time over the allowance before a move counts as late.
    pub grace: Duration,
    /// The longest a move may take when no clock runs (node-limited games).
    pub hang_limit: Duration,
    /// A draw after this many plies from the base position.
    pub max_plies: usize,
    /// Per-move node budget variation, percent (0: exact budgets).
    pub nodes_jitter: u32,
    /// Seed of this game's variation.
    pub seed: u64,
    /// Players (by colour) whose scores are from Black's side rather than the mover's.
    pub black_view_scores: [bool; 2],
    /// `--ponder`: after each move with a legal ponder move, the mover ponders it while the
    /// opponent thinks (ARCHITECTURE "Cluster frame").
    pub ponder: bool,
}

/// Tracks what sennichite needs: the key of every position and whether each move gave check.
struct History {
    keys: Vec<u64>,
    checks: Vec<bool>,
    movers: Vec<Color>,
}

impl History {
    fn new(pos: &Position) -> History {
        History {
            keys: vec![pos.key()],
            checks: Vec::new(),
            movers: Vec::new(),
        }
    }

    fn push(&mut self, pos: &Position, mover: Color) {
        self.keys.push(pos.key());
        self.checks.push(pos.in_check());
        self.movers.push(mover);
    }

    /// After a move: `None` if the game goes on, else the repetition's outcome.
    fn sennichite(&self) -> Option<Outcome> {
        let now = *self.keys.last()?;
        let occurrences: Vec<usize> = (0..self.keys.len())
            .filter(|&i| self.keys[i] == now)
            .collect();
        if occurrences.len() < 4 {
            return None;
        }
        // Moves since the first occurrence: move k leads to position k + 1.
        let first = occurrences[0];
        let span = first..self.checks.len();
        let all_checks = |c: Color| {
            span.clone()
                .filter(|&k| self.movers[k] == c)
                .all(|k| self.checks[k])
        };
        let (b, w) = (all_checks(Color::Black), all_checks(Color::White));
        Some(match (b, w) {
            (true, false) => Outcome {
                winner: Some(Color::White),
                reason: EndReason::PerpetualCheck,
            },
            (false, true) => Outcome {
                winner: Some(Color::Black),
                reason: EndReason::PerpetualCheck,
            },
            _ => Outcome {
                winner: None,
                reason: EndReason::Repetition,
            },
        })
    }
}

/// `YYYY/MM/DD HH:MM:SS` in UTC for now (records want a date; no time-zone crate needed).
pub fn now_utc_text() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm), for the proleptic Gregorian calendar.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}/{m:02}/{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Why a game could not start: its opening does not play out (openings are checked when
/// loaded, so this is unexpected).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("opening {base:?}: {source}")]
    Base { base: String, source: PositionError },
    #[error("opening move {text}: {source}")]
    Move {
        text: String,
        source: IllegalMoveKind,
    },
}

/// Plays the opening's moves onto its base position, recording them.
fn setup(opening: &Opening) -> Result<(Position, Vec<PlayedMove>, History), SetupError> {
    let mut pos =
        Position::from_usi_position(&opening.base).map_err(|source| SetupError::Base {
            base: opening.base.clone(),
            source,
        })?;
    let mut history = History::new(&pos);
    let mut moves = Vec::new();
    let mut prev_to = None;
    for text in &opening.moves {
        let m = pos
            .parse_usi_move(text)
            .map_err(|source| SetupError::Move {
                text: text.clone(),
                source,
            })?;
        let color = pos.side_to_move();
        moves.push(PlayedMove {
            mv: m,
            color,
            kif: kif_move(&pos, m, prev_to).unwrap_or_default(),
            csa: csa_move(&pos, m).unwrap_or_default(),
            time_ms: 0,
            score: None,
            pv_csa: Vec::new(),
            from_opening: true,
        });
        prev_to = Some(m.to());
        pos.do_move(m);
        history.push(&pos, color);
    }
    Ok((pos, moves, history))
}

/// The CSA text of a PV's moves after `played`, on a scratch copy (stops at the first move
/// that does not fit).
fn pv_after(pos: &Position, played: Move, pv: &[crate::usi::UsiMove]) -> Vec<String> {
    let mut scratch = pos.clone();
    let mut tokens = pv.iter().map(|m| m.to_string()).peekable();
    if tokens.peek().map(String::as_str) == Some(played.to_string().as_str()) {
        tokens.next();
    }
    scratch.do_move(played);
    let mut out = Vec::new();
    for t in tokens {
        let Ok(m) = scratch.parse_usi_move(&t) else {
            break;
        };
        match csa_move(&scratch, m) {
            Some(c) => out.push(c),
            None => break,
        }
        scratch.do_move(m);
    }
    out
}

/// `position <base> moves …` for the game so far, and `then` after it (a ponder's reply).
fn position_command(base: &str, moves: &[PlayedMove], then: Option<Move>) -> String {
    let mut s = format!("position {base}");
    let all = moves.iter().map(|m| m.mv).chain(then);
    for (k, m) in all.enumerate() {
        s.push_str(if k == 0 { " moves " } else { " " });
        s.push_str(&m.to_string());
    }
    s
}

/// Plays one game; `players` is indexed by colour (black first), `names` likewise.
pub async fn play(
    players: [&mut Engine; 2],
    names: [String; 2],
    opening: &Opening,
    rules: &GameRules,
) -> Result<GameRecord, SetupError> {
    play_watched(players, names, opening, rules, &mut |_, _| {}).await
}

/// [`play`], calling `watch` with the position after each move an engine played (the live
/// page of `gougi match --serve`); `watch` must not block.
pub async fn play_watched(
    players: [&mut Engine; 2],
    names: [String; 2],
    opening: &Opening,
    rules: &GameRules,
    watch: &mut dyn FnMut(&Position, &[PlayedMove]),
) -> Result<GameRecord, SetupError> {
    let (mut pos, mut moves, mut history) = setup(opening)?;
    let started = now_utc_text();
    let mut players = players;
    let mut time_loss = None;
    let mut ponder = [PonderCount::default(); 2];
    let finish = |moves: Vec<PlayedMove>, outcome: Outcome, time_loss, ponder| GameRecord {
        base: opening.base.clone(),
        names: names.clone(),
        limits: rules.limits,
        moves,
        outcome,
        started: started.clone(),
        time_loss,
        ponder,
    };

    for c in [Color::Black, Color::White] {
        if let Err(f) = players[c.index()].new_game().await {
            let outcome = Outcome {
                winner: Some(!c),
                reason: EndReason::Crash(f.to_string()),
            };
            for p in players.iter_mut() {
                p.game_over(outcome.result_for(c));
            }
            return Ok(finish(moves, outcome, None, ponder));
        }
    }

    let mut clocks = Clocks::new(rules.limits).with_node_jitter(rules.nodes_jitter, rules.seed);
    // The reply each side is pondering, if it is.
    let mut pondering: [Option<Move>; 2] = [None, None];
    let outcome = loop {
        let us = pos.side_to_move();
        if pos.legal_moves().is_empty() {
            break Outcome {
                winner: Some(!us),
                reason: EndReason::Checkmate,
            };
        }
        if moves.len() >= rules.max_plies {
            break Outcome {
                winner: None,
                reason: EndReason::MaxPlies,
            };
        }
        clocks.start_turn(us);
        let position_line = position_command(&opening.base, &moves, None);
        let go_line = clocks.go_line(us, moves.len());
        let allowance = clocks.allowance(us);
        let grace = clocks.grace_left(us, rules.grace);
        let budget = allowance.map_or(rules.hang_limit, |a| a + grace);
        let late = |used: Option<Duration>| TimeLossDetail {
            side: us,
            name: names[us.index()].clone(),
            used_ms: used.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            allowance_ms: allowance.map(|a| u64::try_from(a.as_millis()).unwrap_or(u64::MAX)),
            grace_ms: u64::try_from(
                if allowance.is_some() {
                    grace
                } else {
                    rules.hang_limit
                }
                .as_millis(),
            )
            .unwrap_or(u64::MAX),
        };
        let lose = |reason| Outcome {
            winner: Some(!us),
            reason,
        };
        let player = &mut players[us.index()];
        let think = match pondering[us.index()].take() {
            None => {
                player
                    .think(&position_line, &go_line, Instant::now() + budget)
                    .await
            }
            Some(predicted) => {
                let count = &mut ponder[us.index()];
                count.ponders += 1;
                if moves.last().map(|m| m.mv) == Some(predicted) {
                    count.hits += 1;
                    player.ponderhit(Instant::now() + budget).await
                } else {
                    let start = Instant::now();
                    if let Err(f) = player.stop_ponder().await {
                        break lose(EndReason::Crash(format!(
                            "{f} (the `bestmove` owed for `stop` after a ponder miss)"
                        )));
                    }
                    player
                        .think_from(start, &position_line, &go_line, start + budget)
                        .await
                }
            }
        };
        let best = match think.reply {
            Reply::Failed(EngineFailure::Timeout) => {
                // A `bestmove` after `stop` leaves the engine alive and says how late it was;
                // an engine killed for not answering at all has no time to report.
                let answered = !players[us.index()].is_dead();
                time_loss = Some(late(answered.then_some(think.elapsed)));
                break lose(EndReason::TimeLoss);
            }
            Reply::Failed(f) => break lose(EndReason::Crash(f.to_string())),
            Reply::Unparsable(line) => {
                break lose(EndReason::IllegalMove {
                    text: line,
                    why: "not a USI move".into(),
                })
            }
            Reply::Best(b) => b,
        };
        if clocks.charge(us, think.elapsed, rules.grace).is_err() {
            time_loss = Some(late(Some(think.elapsed)));
            break lose(EndReason::TimeLoss);
        }
        let (usi_move, ponder_move) = match best {
            BestMove::Resign => break lose(EndReason::Resign),
            BestMove::Win => {
                break if pos.declaration_win() {
                    Outcome {
                        winner: Some(us),
                        reason: EndReason::Declaration,
                    }
                } else {
                    lose(EndReason::FalseDeclaration)
                }
            }
            BestMove::Move { mv, ponder } => (mv, ponder),
        };
        let text = usi_move.to_string();
        let m = match pos.parse_usi_move(&text) {
            Ok(m) => m,
            Err(why) => {
                break lose(EndReason::IllegalMove {
                    text,
                    why: why.to_string(),
                })
            }
        };
        let info = think.last_scored;
        let pv_csa = info
            .as_ref()
            .map(|i| pv_after(&pos, m, &i.pv_moves()))
            .unwrap_or_default();
        moves.push(PlayedMove {
            mv: m,
            color: us,
            kif: kif_move(&pos, m, moves.last().map(|p| p.mv.to())).unwrap_or_default(),
            csa: csa_move(&pos, m).unwrap_or_default(),
            time_ms: u64::try_from(think.elapsed.as_millis()).unwrap_or(u64::MAX),
            score: info.and_then(|i| i.score).map(|s| {
                if rules.black_view_scores[us.index()] && us == Color::White {
                    s.score.negate()
                } else {
                    s.score
                }
            }),
            pv_csa,
            from_opening: false,
        });
        pos.do_move(m);
        watch(&pos, &moves);
        history.push(&pos, us);
        if let Some(o) = history.sennichite() {
            break o;
        }
        // The mover ponders its predicted reply while the opponent thinks, if the game goes on
        // (a ponder move that is not legal here is ignored, as GUIs do).
        let predicted = ponder_move
            .filter(|_| rules.ponder && moves.len() < rules.max_plies)
            .filter(|_| !pos.legal_moves().is_empty())
            .and_then(|p| pos.parse_usi_move(&p.to_string()).ok());
        if let Some(p) = predicted {
            let go = clocks.ponder_line(us, moves.len() + 1);
            let line = position_command(&opening.base, &moves, Some(p));
            // A failed send leaves the engine dead: its next think reports it.
            if players[us.index()].ponder(&line, &go).is_ok() {
                pondering[us.index()] = Some(p);
            }
        }
    };
    // A ponder still running (the side that moved last) ends before `gameover`; an engine
    // that does not answer its `stop` is dead and replaced before its next game.
    for c in [Color::Black, Color::White] {
        if players[c.index()].is_pondering() {
            let _ = players[c.index()].stop_ponder().await;
        }
    }
    for c in [Color::Black, Color::White] {
        players[c.index()].game_over(outcome.result_for(c));
    }
    Ok(finish(moves, outcome, time_loss, ponder))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history_of(base: &str, moves: &[&str]) -> History {
        let mut pos = Position::from_usi_position(base).unwrap();
        let mut h = History::new(&pos);
        for t in moves {
            let m = pos.parse_usi_move(t).unwrap();
            let c = pos.side_to_move();
            pos.do_move(m);
            h.push(&pos, c);
        }
        h
    }

    #[test]
    fn fourfold_repetition_is_a_draw() {
        let cycle = ["5i4h", "5a4b", "4h5i", "4b5a"];
        let mut moves = Vec::new();
        for _ in 0..2 {
            moves.extend(cycle);
        }
        assert_eq!(history_of("startpos", &moves).sennichite(), None);
        moves.extend(cycle);
        assert_eq!(
            history_of("startpos", &moves).sennichite(),
            Some(Outcome {
                winner: None,
                reason: EndReason::Repetition
            })
        );
    }

    #[test]
    fn perpetual_check_loses() {
        // Black's rook checks along rank a or b, White's king steps between 5a and 5b.
        let base = "sfen 4k4/9/9/9/9/9/9/9/R3K4 b - 1";
        let mut moves = vec!["9i9a", "5a5b"];
        let cycle = ["9a9b", "5b5a", "9b9a", "5a5b"];
        for _ in 0..2 {
            moves.extend(cycle);
        }
        assert_eq!(history_of(base, &moves).sennichite(), None);
        moves.extend(cycle);
        assert_eq!(
            history_of(base, &moves).sennichite(),
            Some(Outcome {
                winner: Some(Color::White),
                reason: EndReason::PerpetualCheck
            })
        );
    }

    #[test]
    fn utc_text_has_the_record_shape() {
        let t = now_utc_text();
        assert_eq!(t.len(), 19, "{t}");
        assert_eq!(&t[4..5], "/");
        assert!(t.starts_with("20"));
    }
}
