//! What a policy decides and why: the [`Decision`], its [`Reason`], and each family's finding
//! (the `[why]` line's text), with the declaration that wins whatever the type.
//!
//! The findings are data the families fill in and the catalogue and the coordinator read, so
//! they live here, below every family, rather than in each family's file: the [`Why`] that
//! gathers them names every family's finding, and every family builds a [`Why`]; kept in the
//! families' files, each family and the catalogue imported each other (an import circle).
//! Each family re-exports its own finding under its old name (`vote::Finding`,
//! `change_player::Switch`).

use std::fmt;

use super::reason::{Outvoted, Who};
use crate::gougi::answer::{Answer, Eval};
use crate::usi::BestMove;

/// The outcome of a policy: which answer wins and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Index into the answers slice that was decided on.
    pub chosen: usize,
    pub reason: Reason,
}

/// Why a policy chose what it chose: the family's finding (its `Display` is the text after
/// `[why] <move>: `) and whether the GUI is told.
#[derive(Clone, Debug, PartialEq)]
pub struct Reason {
    pub why: Why,
    /// Not the obvious choice (see [`explain`]): the coordinator sends the reason to the GUI.
    pub explain: bool,
}

/// The finding of each family, in its own type (below).
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    /// Optimism, pessimism, rises and weighted optimism.
    Extreme(ScoreFinding),
    /// Plurality of `bestmove`s.
    Vote(VoteFinding),
    /// The exchange rule.
    Exchange(ExchangeFinding),
    /// The leader rule.
    Leader(LeaderFinding),
    /// Another member took over from the previous move's player (change-player types).
    Switch(Switch),
    /// A member declared a win (入玉宣言): a legal declaration is played at once.
    Declared(Who),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Extreme(x) => x.fmt(f),
            Why::Vote(x) => x.fmt(f),
            Why::Exchange(x) => x.fmt(f),
            Why::Leader(x) => x.fmt(f),
            Why::Switch(x) => x.fmt(f),
            Why::Declared(who) => write!(f, "{who} declared a win, which is played at once"),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.why.fmt(f)
    }
}

/// A legal declaration (`win`) among the answers is played at once, whoever made it; it is
/// explained unless every member declared.
pub fn declaration(answers: &[Answer]) -> Option<Decision> {
    let k = answers.iter().position(Answer::is_win)?;
    Some(Decision {
        chosen: k,
        reason: Reason {
            why: Why::Declared(Who::of(&answers[k])),
            explain: !answers.iter().all(Answer::is_win),
        },
    })
}

// ----- each family's finding -----------------------------------------------------------

/// Why the plurality chose: the winning move's summed weight, the best other move's, the moves
/// it tied with (member order broke the tie) and the move most members proposed if not it.
#[derive(Clone, Debug, PartialEq)]
pub struct VoteFinding {
    pub mv: BestMove,
    pub votes: f64,
    /// The winner's lowest-numbered proposer (whose answer, ponder and PV are played).
    pub proposer: Who,
    /// Other moves with as many votes.
    pub tied_with: Vec<BestMove>,
    /// The best other move and its votes (when not tied).
    pub runner_up: Option<(BestMove, f64)>,
    pub outvoted: Option<Outvoted>,
}

/// A summed weight as reasons print it: `2`, `2.5` (three decimals at most).
fn number(w: f64) -> String {
    let text = format!("{w:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `1 vote`, `2 votes`, `2.5 votes`.
fn votes(w: f64) -> String {
    match number(w).as_str() {
        "1" => "1 vote".to_string(),
        n => format!("{n} votes"),
    }
}

impl fmt::Display for VoteFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tied_with.is_empty() {
            write!(f, "{} has {}", self.mv.token(), votes(self.votes))?;
            if let Some((mv, w)) = &self.runner_up {
                write!(f, " to {} for {}", number(*w), mv.token())?;
            }
        } else {
            let mut moves = vec![self.mv.token()];
            moves.extend(self.tied_with.iter().map(BestMove::token));
            let last = moves.pop().unwrap_or_default();
            write!(
                f,
                "{} and {last} tie at {} each; the tie goes to the lowest-numbered proposer, {}",
                moves.join(", "),
                votes(self.votes),
                self.proposer
            )?;
        }
        if let Some(o) = &self.outvoted {
            write!(f, "; {o}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    Highest,
    Lowest,
}

impl Extreme {
    pub(super) fn better(self, a: i64, b: i64) -> bool {
        match self {
            Extreme::Highest => a > b,
            Extreme::Lowest => a < b,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Extreme::Highest => "highest",
            Extreme::Lowest => "lowest",
        }
    }
}

/// What a score rule compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Score,
    Rise,
    WeightedScore,
}

impl Key {
    fn word(self) -> &'static str {
        match self {
            Key::Score => "score",
            Key::Rise => "rise",
            Key::WeightedScore => "weighted score",
        }
    }

    /// A value as the reason prints it: scores (and weighted ones, whose mates are not
    /// shifted) on the `Eval` scale, so mates read `mate 3`; rises as plain differences.
    fn show(self, v: i64) -> String {
        match (self, i32::try_from(v)) {
            (Key::Rise, _) | (_, Err(_)) => v.to_string(),
            (_, Ok(v)) => Eval(v).to_string(),
        }
    }
}

/// Why a score rule chose: every member's value (calibrated), the winner's, and whether a tie
/// between different moves went to the lower number.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreFinding {
    pub extreme: Extreme,
    pub key: Key,
    /// The chosen member and its value; `None` when no member had a value (engine 1 plays).
    pub chosen: Option<(Who, i64)>,
    /// Without values: the member whose move is played.
    pub fallback: Who,
    /// The other members' values, in member order (`None`: no value).
    pub others: Vec<(u32, Option<i64>)>,
    pub tied: bool,
    pub outvoted: Option<Outvoted>,
    /// Some member's values were calibrated (`Engine<N>.Scale`): the values are on the common
    /// scale, not the numbers the annotated lines print.
    pub calibrated: bool,
}

impl fmt::Display for ScoreFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.calibrated {
            format!("calibrated {}", self.key.word())
        } else {
            self.key.word().to_string()
        };
        match &self.chosen {
            Some((who, v)) => {
                write!(
                    f,
                    "{who} has the {} {key} {}",
                    self.extreme.word(),
                    self.key.show(*v)
                )?;
                if !self.others.is_empty() {
                    let others: Vec<String> = self
                        .others
                        .iter()
                        .map(|(n, v)| match v {
                            Some(v) => format!("E{n} {}", self.key.show(*v)),
                            None => format!("E{n} none"),
                        })
                        .collect();
                    write!(f, " ({})", others.join(", "))?;
                }
                if self.tied {
                    f.write_str("; the tie goes to the lower number")?;
                }
            }
            None => write!(f, "no member has a {key}: {}'s move", self.fallback)?,
        }
        if let Some(o) = &self.outvoted {
            write!(f, "; {o}")?;
        }
        Ok(())
    }
}

/// Why the exchange rule chose.
#[derive(Clone, Debug, PartialEq)]
pub enum ExchangeFinding {
    /// Both members proposed the same move.
    Agree,
    /// One member resigned: the other's move is played.
    Resigned { resigned: Who, plays: Who },
    /// No time was left for the exchange: the higher score decided.
    NoTime(ScoreFinding),
    /// Phase 2: the views of both moves (member 1's first), summed; a tie goes to member 1.
    Sums { moves: [String; 2], sums: [i64; 2] },
    /// Phase 2 with a view missing: compared by the views both moves have from one member
    /// (`by` = 1 or 2), or (`by` = 0) by the proposers' own scores.
    Partial {
        moves: [String; 2],
        by: u32,
        values: [i64; 2],
    },
    /// Phase 2 without any comparable view: member 1's move.
    NoViews { first: Who },
}

impl fmt::Display for ExchangeFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The winner first: the chosen move is the one with the larger value (ties: member 1).
        let order = |values: &[i64; 2]| {
            if values[0] >= values[1] {
                [0, 1]
            } else {
                [1, 0]
            }
        };
        match self {
            ExchangeFinding::Agree => f.write_str("both members proposed it"),
            ExchangeFinding::Resigned { resigned, plays } => {
                write!(f, "{resigned} resigned; {plays}'s move is played")
            }
            ExchangeFinding::NoTime(inner) => write!(f, "no time left to exchange; {inner}"),
            ExchangeFinding::Sums { moves, sums } if sums[0] == sums[1] => write!(
                f,
                "the views of {} and {} both sum to {}; the tie goes to member 1",
                moves[0], moves[1], sums[0]
            ),
            ExchangeFinding::Sums { moves, sums } => {
                let [w, l] = order(sums);
                write!(
                    f,
                    "its views sum to {}, those of {} to {}",
                    sums[w], moves[l], sums[l]
                )
            }
            ExchangeFinding::Partial { moves, by, values } => {
                let [w, l] = order(values);
                let whose = match by {
                    0 => "its proposer's own score".to_string(),
                    n => format!("member {n}'s view"),
                };
                write!(
                    f,
                    "a view is missing; by {whose}: {} against {} for {}",
                    values[w], values[l], moves[l]
                )
            }
            ExchangeFinding::NoViews { first } => write!(f, "no views to compare: {first}'s move"),
        }
    }
}

/// Why the leader rule chose. Values are the leader's, calibrated, on the `Eval` scale.
#[derive(Clone, Debug, PartialEq)]
pub enum LeaderFinding {
    /// The leader's own move, without re-searches.
    Leader(Who),
    /// Another member's verified mate, shorter than the leader's (if it has one).
    Mate {
        who: Who,
        plies: i32,
        leader: Who,
        leader_plies: Option<i32>,
    },
    /// After the re-searches: a candidate beat the leader's own move by more than the margin.
    Candidate {
        leader: Who,
        proposer: Who,
        value: i64,
        own_mv: String,
        own: i64,
        margin: i64,
    },
    /// After the re-searches: the leader keeps its move (`best`: the best candidate's move and
    /// value, when both values are known).
    Keeps {
        own: Option<i64>,
        best: Option<(String, i64)>,
        margin: i64,
    },
}

/// A value as the leader's line prints it (`mate 3` for mates).
fn leader_show(v: i64) -> String {
    i32::try_from(v).map_or(v.to_string(), |v| Eval(v).to_string())
}

impl fmt::Display for LeaderFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaderFinding::Leader(who) => write!(f, "the leader {who}'s move"),
            LeaderFinding::Mate {
                who,
                plies,
                leader,
                leader_plies,
            } => {
                write!(f, "{who}'s verified mate in {plies}; the leader {leader} ")?;
                match leader_plies {
                    Some(p) => write!(f, "mates in {p}"),
                    None => f.write_str("has no mate"),
                }
            }
            LeaderFinding::Candidate {
                leader,
                proposer,
                value,
                own_mv,
                own,
                margin,
            } => write!(
                f,
                "{proposer}'s move; the leader {leader}'s re-search values it at {}, more than its own {own_mv} at {} + margin {margin}",
                leader_show(*value),
                leader_show(*own)
            ),
            LeaderFinding::Keeps { own: None, .. } => f.write_str("no value for the leader's own move"),
            LeaderFinding::Keeps { best: None, .. } => f.write_str("no value for any candidate"),
            LeaderFinding::Keeps {
                own: Some(own),
                best: Some((mv, v)),
                margin,
            } => write!(
                f,
                "{mv} at {} is not more than the own move's {} + margin {margin}",
                leader_show(*v),
                leader_show(*own)
            ),
        }
    }
}

/// Another member plays than the one that played the previous move (a `[why]` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    pub to: Who,
    pub from: Who,
    pub cause: Cause,
}

/// Why the player changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// `change-every`: the previous player played its `G_ChangePlayerPlys` moves.
    Plies { plys: u32 },
    /// `change-on-drop` / `change-on-rise`: the previous player's score moved by `by` since its
    /// own previous move, at least `G_ChangePlayerScoreDiff` (`diff`).
    Swing { by: i64, diff: i64 },
    /// `by-phase`: the position's ply reached (or is before) a phase's first ply.
    Phase {
        ply: u32,
        option: &'static str,
        from: u32,
        before: bool,
    },
    /// The designated player is not available (down or left out): the next member stands in.
    StandIn { designated: Who },
    /// The designated player is back after a stand-in.
    Back,
}

impl fmt::Display for Switch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (to, from) = (&self.to, &self.from);
        match &self.cause {
            Cause::Plies { plys } => {
                let moves = if *plys == 1 { "move" } else { "moves" };
                write!(
                    f,
                    "{to} takes over from {from}, which played its {plys} {moves} (G_ChangePlayerPlys {plys})"
                )
            }
            Cause::Swing { by, diff } => {
                let verb = if *by < 0 { "fell" } else { "rose" };
                write!(
                    f,
                    "{to} takes over from {from}, whose score {verb} by {} on its last move (G_ChangePlayerScoreDiff {diff})",
                    by.unsigned_abs()
                )
            }
            Cause::Phase {
                ply,
                option,
                from: first,
                before,
            } => {
                let at = if *before { "before" } else { "from" };
                write!(
                    f,
                    "{to} takes over from {from} at ply {ply}, {at} {option} {first}"
                )
            }
            Cause::StandIn { designated } => write!(
                f,
                "{to} plays for {designated}, which is not available ({from} played the previous move)"
            ),
            Cause::Back => write!(
                f,
                "{to}, the designated player, is available again ({from} played the previous move)"
            ),
        }
    }
}
