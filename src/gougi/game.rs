//! The game as the coordinator sees it: the GUI's `position` on a real board.
//!
//! Everything the consultation needs from the rules goes through here: the side to move and
//! ply (clocks, by-phase), the legality of a member's move (with the reason when it is not),
//! the entering-king declaration, Japanese move names, SFEN for mate members, the validity of
//! a claimed mate line, and a legal fallback move when no member answered.

use crate::shogi::legality::IllegalMoveKind;
use crate::shogi::notation;
use crate::shogi::position::Position;
use crate::shogi::sfen::SfenError;
use crate::shogi::types::Color;
use crate::shogi::Move;
use crate::usi::{PositionBase, PositionCommand, UsiMove};

/// Why the rules core refused the GUI's `position` (said to the GUI as `info string`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionRefused {
    #[error("bad sfen: {0}")]
    Sfen(#[from] SfenError),
    /// `number` counts the command's moves from 1.
    #[error("move {number} ({text}) is illegal: {kind}")]
    IllegalMove {
        number: usize,
        text: String,
        kind: IllegalMoveKind,
    },
}

/// Why a member's answer cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerRefused {
    #[error(transparent)]
    Illegal(#[from] IllegalMoveKind),
    #[error("declaration (入玉宣言) conditions not met")]
    Declaration,
}

/// The current position: the GUI's command (sent to members verbatim) and the board.
#[derive(Clone, Debug)]
pub struct Game {
    pub command: PositionCommand,
    /// The board after the command's moves; `None` when the GUI's position did not parse or
    /// contained an illegal move (then nothing can be checked and gougi says so).
    pub board: Option<Position>,
    /// The last move played to reach the position (for 同 in Japanese names).
    last_to: Option<crate::shogi::types::Square>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(PositionCommand::startpos()).expect("the start position is valid")
    }
}

impl Game {
    /// Set up the board of a `position` command; the error says which part is wrong.
    pub fn new(command: PositionCommand) -> Result<Game, PositionRefused> {
        let mut board = match &command.base {
            PositionBase::StartPos => Position::startpos(),
            PositionBase::Sfen(sfen) => Position::from_sfen(sfen)?,
        };
        let mut last_to = None;
        for (i, m) in command.moves.iter().enumerate() {
            let mv =
                board
                    .parse_usi_move(m.as_str())
                    .map_err(|kind| PositionRefused::IllegalMove {
                        number: i + 1,
                        text: m.to_string(),
                        kind,
                    })?;
            board.do_move(mv);
            last_to = Some(mv.to());
        }
        Ok(Game {
            command,
            board: Some(board),
            last_to,
        })
    }

    /// A game whose board is unknown: members still get the command, nothing is checked.
    pub fn unchecked(command: PositionCommand) -> Game {
        Game {
            command,
            board: None,
            last_to: None,
        }
    }

    pub fn black_to_move(&self) -> bool {
        match &self.board {
            Some(b) => b.side_to_move() == Color::Black,
            // Without a board, count the moves from the base's side (the reference's guess).
            None => {
                let base_black = match &self.command.base {
                    PositionBase::StartPos => true,
                    PositionBase::Sfen(s) => s.split_whitespace().nth(1) != Some("w"),
                };
                base_black == (self.command.moves.len() % 2 == 0)
            }
        }
    }

    /// The ply number of the move to play (1 at the start position), as the SFEN counts it.
    pub fn ply(&self) -> u32 {
        match &self.board {
            Some(b) => b.ply(),
            None => self.command.moves.len() as u32 + 1,
        }
    }

    /// Check a member's move; `Err` carries the reason for the log and the GUI.
    pub fn check(&self, mv: &UsiMove) -> Result<(), AnswerRefused> {
        match &self.board {
            Some(b) => b
                .parse_usi_move(mv.as_str())
                .map(|_| ())
                .map_err(Into::into),
            None => Ok(()),
        }
    }

    /// Whether the side to move may declare a win (入玉宣言, CSA 27-point rule).
    pub fn declaration_is_legal(&self) -> bool {
        self.board.as_ref().is_some_and(|b| b.declaration_win())
    }

    /// The game after `moves` (each already checked), for ponder and exchange positions.
    /// How many of `moves`, played in turn from this position, are legal (all of them when
    /// the board is unknown). Engines print PVs stitched from their hash table, and one with an
    /// illegal move makes some GUIs and match runners abort.
    pub fn legal_prefix(&self, moves: &[UsiMove]) -> usize {
        let Some(board) = &self.board else {
            return moves.len();
        };
        let mut pos = board.clone();
        for (k, m) in moves.iter().enumerate() {
            match pos.parse_usi_move(m.as_str()) {
                Ok(mv) => pos.do_move(mv),
                Err(_) => return k,
            }
        }
        moves.len()
    }

    pub fn after(&self, moves: &[UsiMove]) -> Game {
        let mut command = self.command.clone();
        command.moves.extend_from_slice(moves);
        Game::new(command.clone()).unwrap_or_else(|_| Game::unchecked(command))
    }

    /// Japanese names of a line of moves from this position (`７六歩(77) 同　歩(76)`); a move
    /// that is not legal ends the rendering and is shown as USI text.
    pub fn japanese(&self, moves: &[UsiMove]) -> Vec<String> {
        let Some(board) = &self.board else {
            return moves.iter().map(|m| m.to_string()).collect();
        };
        let mut board = board.clone();
        let mut last_to = self.last_to;
        let mut names = Vec::with_capacity(moves.len());
        for m in moves {
            match board.parse_usi_move(m.as_str()) {
                Ok(mv) => {
                    names.push(
                        notation::kif_move(&board, mv, last_to).unwrap_or_else(|| m.to_string()),
                    );
                    board.do_move(mv);
                    last_to = Some(mv.to());
                }
                Err(_) => names.push(m.to_string()),
            }
        }
        names
    }

    /// `position sfen <board> <side> <hands> <ply>` of this position, for mate members that
    /// want a plain SFEN (the `mate-sfen` type; the reference needed a helper program).
    pub fn sfen_command(&self) -> PositionCommand {
        match &self.board {
            Some(b) => PositionCommand {
                base: PositionBase::Sfen(b.to_sfen()),
                moves: Vec::new(),
            },
            None => self.command.clone(),
        }
    }

    /// Whether `line` is a mate from this position: every move legal, every attacker move a
    /// check, and the last position has no legal move. Never trusts the member that sent it.
    pub fn is_mate_line(&self, line: &[UsiMove]) -> bool {
        let Some(board) = &self.board else {
            return false;
        };
        if line.is_empty() || line.len() % 2 == 0 {
            return false;
        }
        let mut board = board.clone();
        for (i, m) in line.iter().enumerate() {
            let Ok(mv) = board.parse_usi_move(m.as_str()) else {
                return false;
            };
            let attacker = i % 2 == 0;
            if attacker && !board.gives_check(mv) {
                return false;
            }
            board.do_move(mv);
        }
        board.legal_moves().is_empty()
    }

    /// Whether the side to move has any checking move (a `go mate` without one is `nomate`).
    pub fn has_check(&self) -> bool {
        let Some(board) = &self.board else {
            return true;
        };
        board.legal_moves().iter().any(|&m| board.gives_check(m))
    }

    /// Some legal move when no member gave one: a capture of the most valuable piece if any,
    /// else the first legal move; `None` when there is no legal move (gougi then resigns).
    pub fn fallback(&self) -> Option<UsiMove> {
        let board = self.board.as_ref()?;
        let best: Option<Move> = board
            .legal_moves()
            .iter()
            .copied()
            .max_by_key(|&m| board.piece_on(m.to()).map_or(0, |p| p.kind as i32 + 1));
        best.and_then(|m| UsiMove::parse(&m.to_string()).ok())
    }
}
