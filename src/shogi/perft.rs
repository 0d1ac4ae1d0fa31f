//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard check
//! of a move generator. Depth 1 counts the legal moves without playing them (bulk counting),
//! with [`count_legal`]: the generator itself, counting instead of writing a list.

use super::movegen::{count_legal, generate_legal, MoveList};
use super::position::Position;
use super::types::Move;

/// Leaf nodes at `depth` plies below `pos`.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return count_legal(pos) as u64;
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut n = 0;
    for &m in list.as_slice() {
        pos.do_move(m);
        n += perft(pos, depth - 1);
        pos.undo_move(m);
    }
    n
}

/// Perft split by first move ("divide"), in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let list = pos.legal_moves();
    list.iter()
        .map(|&m| {
            pos.do_move(m);
            let n = perft(pos, depth.saturating_sub(1));
            pos.undo_move(m);
            (m, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_shallow() {
        let mut p = Position::startpos();
        assert_eq!(perft(&mut p, 1), 30);
        assert_eq!(perft(&mut p, 2), 900);
        assert_eq!(perft(&mut p, 3), 25470);
        let d = perft_divide(&mut p, 2);
        assert_eq!(d.len(), 30);
        assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), 900);
    }
}
