//! Mate-assisted consultation (詰探索エンジンとの合議): a normal member plays, and a mate found
//! for the current position by a mate member overrides its move.
//!
//! The coordinator only calls this with a mate line it has checked against the rules (every
//! move legal, every attacker move a check, the last position mate), so a false `checkmate`
//! never decides a game (the reference trusted any `checkmate <moves>` line).

/// The outcome for one decision of the mate family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateChoice {
    /// Play the normal member's move.
    Normal,
    /// Play the first move of this verified mating line (USI moves).
    Mate(Vec<String>),
}

/// Prefer a verified mate for the current position over the normal member's move. Among
/// several verified lines (main and PV mate members), the shortest wins; ties keep the first.
pub fn choose(verified_mates: &[Vec<String>]) -> MateChoice {
    verified_mates
        .iter()
        .filter(|line| !line.is_empty())
        .min_by_key(|line| line.len())
        .map_or(MateChoice::Normal, |line| MateChoice::Mate(line.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn no_mate_keeps_the_normal_move() {
        assert_eq!(choose(&[]), MateChoice::Normal);
        assert_eq!(choose(&[vec![]]), MateChoice::Normal);
    }

    #[test]
    fn the_shortest_verified_mate_wins() {
        let mates = [line("R*6a 5a4b G*4c"), line("G*5b"), line("S*4b 5a6a G*6b")];
        assert_eq!(choose(&mates), MateChoice::Mate(line("G*5b")));
    }
}
