//! The rules of shogi, with no I/O.
//!
//! - [`types`]: `Color`, `File`, `Rank`, `Square`, `PieceKind`, `Piece`, `Move`.
//! - [`hand`]: pieces in hand, packed with guard bits.
//! - [`bitboard`]: sets of squares in a `u128`.
//! - [`attacks`]: attack tables, sliders, `between`/`line`.
//! - [`position`]: `Position` — do/undo, keys, check state, repetition, declaration.
//! - [`sfen`]: SFEN and USI `position` text in and out.
//! - [`legality`]: `is_legal` with `IllegalMoveKind`, `parse_usi_move`, `try_play`.
//! - [`movegen`]: `MoveList` and the legal, capture, quiet, check and evasion generators.
//! - [`zobrist`]: hash keys.
//! - [`notation`]: Japanese KIF move names.
//! - [`csa`]: CSA move and position text (`+7776FU`).
//! - [`perft`]: move-tree counts.
//! - [`search_support`]: what the alpha-beta search asks beyond that (search repetition,
//!   any legal move, mate in one).
//!
//! ```
//! use gougi::shogi::{generate_checks, MoveList, Position};
//!
//! let mut pos = Position::from_usi_position("startpos moves 7g7f 3c3d").unwrap();
//! let m = pos.parse_usi_move("8h2b+").unwrap();
//! assert!(!pos.gives_check(m));
//! pos.do_move(m);
//! assert!(pos.legal_moves().iter().any(|m| m.to_string() == "3a2b"));
//! let mut checks: MoveList = MoveList::new(); // a list of plain moves (`MoveList<Move>`)
//! generate_checks(&pos, &mut checks);
//! assert!(checks.is_empty()); // White has no way to check here
//! assert_eq!(pos.to_sfen(), "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4");
//! ```

pub mod attacks;
pub mod bitboard;
pub mod csa;
pub mod hand;
pub mod legality;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod search_support;
pub mod sfen;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use hand::Hand;
pub use legality::IllegalMoveKind;
pub use movegen::{
    count_legal, generate_captures, generate_checks, generate_evasions, generate_for_search,
    generate_legal, generate_pseudo_legal, generate_quiets, may_give_check_after, CheckInfo,
    MoveList, SearchMoves,
};
pub use notation::{ki2_move, kif_move};
pub use perft::{perft, perft_divide};
pub use position::{Position, Repetition};
pub use sfen::{PositionError, SfenError, STARTPOS_SFEN};
pub use types::{Color, File, Move, Piece, PieceKind, Rank, Square};
