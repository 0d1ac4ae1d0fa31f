//! The linear evaluation's tests: layouts, the learner's view against the search's, the
//! incremental path against a full recompute, noise and dropout.

use super::layout::*;
use super::table::*;
use super::terms::*;
use super::weights::*;
use crate::eval::noise::{mix64, noise_cp};
use crate::eval::Evaluator;
use crate::shogi::{Color, PieceKind, Position, Square};

/// Weights with every entry different, so that a wrong index shows up in a score.
fn scrambled() -> &'static Weights {
    let mut seed = 99u64;
    let w = (0..NUM_WEIGHTS)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) % 2001) as i16 - 1000
        })
        .collect();
    Weights { w }.leak()
}

/// The score as the sum of the runtime weights among `pos`'s features (factors left out).
fn feature_sum(w: &Weights, pos: &Position) -> i32 {
    let mut f = Vec::new();
    features(pos, &mut f);
    f.iter()
        .filter(|&&(i, _)| (i as usize) < NUM_WEIGHTS)
        .map(|&(i, s)| s as i32 * w.w[i as usize] as i32)
        .sum()
}

/// Learner parameters (weights, then factors) with small integer values, so that sums are
/// exact in f64.
fn scrambled_params(mut seed: u64) -> Vec<f64> {
    (0..NUM_WEIGHTS + NUM_FACTORS)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) % 201) as f64 - 100.0
        })
        .collect()
}

fn to_weights(p: &[f64]) -> &'static Weights {
    Weights {
        w: p.iter().map(|&v| v as i16).collect(),
    }
    .leak()
}

/// What the learner sums over the features (weights and factors) is what the search
/// computes with the folded weights.
#[test]
fn folded_factors_score_what_the_learner_sums() {
    let p = scrambled_params(7);
    let ev = TableEval::new(to_weights(&fold_factors(&p)));
    for sfen in [
        "startpos",
        "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut f = Vec::new();
        features(&pos, &mut f);
        let learner: f64 = f.iter().map(|&(i, s)| s as f64 * p[i as usize]).sum();
        assert_eq!(ev.black_score(&pos), learner as i32, "{sfen}");
    }
}

/// A file of the first layout (king-relative tables by offset only) reads as the
/// king-piece weights whose factors those tables were.
#[test]
fn first_layout_files_read_as_factors() {
    let mut p = scrambled_params(3);
    p[king_range()].iter_mut().for_each(|v| *v = 0.0);
    p[SAFETY_BASE..NUM_WEIGHTS]
        .iter_mut()
        .for_each(|v| *v = 0.0);
    let folded = to_weights(&fold_factors(&p));
    let mut v1: Vec<i16> = p[..OWN_BASE].iter().map(|&v| v as i16).collect();
    v1.extend(p[NUM_WEIGHTS..].iter().map(|&v| v as i16));
    assert_eq!(v1.len(), V1_WEIGHTS);
    let bytes = Weights { w: v1 }.to_bytes();
    assert_eq!(&Weights::from_bytes(&bytes).unwrap(), folded);
}

/// The first `n` weights of a file of an earlier layout read as they are and the rest as
/// zero, so the file scores as it did.
fn reads_earlier_layout(n: usize) {
    let w = scrambled();
    let bytes = Weights {
        w: w.w[..n].to_vec(),
    }
    .to_bytes();
    let read = Weights::from_bytes(&bytes).unwrap();
    assert_eq!(read.w[..n], w.w[..n]);
    assert!(read.w[n..].iter().all(|&v| v == 0));
    assert_eq!(read.w.len(), NUM_WEIGHTS);
}

/// Rounds 9–11 (no side-to-move or pair tables; round 11 is built in).
#[test]
fn third_layout_files_read_with_no_side_to_move_tables() {
    reads_earlier_layout(V3_WEIGHTS);
    let r11 = Weights::named("builtin:r11").unwrap();
    assert!(r11.w[V3_WEIGHTS..].iter().all(|&v| v == 0));
}

/// Rounds 5–8 (no king-safety table, no tempo).
#[test]
fn second_layout_files_read_with_no_safety_terms() {
    reads_earlier_layout(V2_WEIGHTS);
}

/// The tempo weight counts for the side to move, whichever colour that is.
#[test]
fn side_to_move_weights_go_to_the_side_to_move_whoever_owns_the_piece() {
    // One rook on its home square in each camp, kings far apart: only the rook's
    // piece-square side-to-move weight and the rook's king-piece ones are non-zero.
    let mut w = Weights {
        w: vec![0; NUM_WEIGHTS],
    };
    let black = Position::from_sfen("sfen 4k4/1r7/9/9/9/9/9/7R1/4K4 b - 1").unwrap();
    let sq = Square::from_usi("2h").unwrap();
    let white_rook = psq_index(
        Color::White,
        PieceKind::Rook,
        Square::from_usi("8b").unwrap(),
    );
    let black_rook = psq_index(Color::Black, PieceKind::Rook, sq);
    assert_eq!(black_rook, white_rook, "one weight, both colours");
    w.w[turn_index(black_rook).unwrap()] = 40;
    let k = black.king_square(Color::Black).unwrap();
    let own = own_index(Color::Black, PieceKind::Rook, k, sq);
    w.w[turn_index(own).unwrap()] = 5;
    let ev = TableEval::new(w.leak());
    // Black to move: both rooks' 40 and the mirrored king-piece 5 of each, for Black.
    assert_eq!(ev.black_score(&black), 2 * 40 + 2 * 5);
    let white = Position::from_sfen("sfen 4k4/1r7/9/9/9/9/9/7R1/4K4 w - 1").unwrap();
    assert_eq!(ev.black_score(&white), -(2 * 40 + 2 * 5));
    let mut ev = ev;
    ev.reset(&white);
    assert_eq!(ev.evaluate(&white), 2 * 40 + 2 * 5);
}

#[test]
fn tempo_counts_for_the_side_to_move() {
    let mut w = Weights {
        w: vec![0; NUM_WEIGHTS],
    };
    w.w[TEMPO] = 30;
    let ev = TableEval::new(w.leak());
    let black = Position::from_sfen("startpos").unwrap();
    let white =
        Position::from_sfen("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
            .unwrap();
    assert_eq!(ev.black_score(&black), 30);
    assert_eq!(ev.black_score(&white), -30);
    let mut ev = ev;
    ev.reset(&white);
    assert_eq!(ev.evaluate(&white), 30);
}

/// The king-safety index counts what it says: at the start each king has two
/// neighbours of its own (the golds) and no enemy within two squares; a
/// position with the enemy close and pieces in hand moves every count.
#[test]
fn safety_index_counts_zone_guards_and_hand() {
    let idx = |near: usize, guards: usize, drops: usize, pawn: usize| {
        SAFETY_BASE + ((near * SAFETY_COUNTS + guards) * SAFETY_COUNTS + drops) * 2 + pawn
    };
    let pos = Position::from_sfen("startpos").unwrap();
    for c in Color::ALL {
        let k = pos.king_square(c).unwrap();
        assert_eq!(safety_index(&pos, c, k), idx(0, 2, 0, 0), "{c:?}");
    }
    // White king on 1b with a gold on 2b (next to it) and lance/knight on 1a/2a; Black's
    // promoted pawn on 2c (giving check: White to move) and silver on 3d are within two;
    // Black holds R G and no pawn, White holds g s n and five pawns.
    let pos = Position::from_sfen("sfen 7nl/7gk/7+P1/6S2/9/9/9/9/K8 w RGgsn5p 1").unwrap();
    let wk = pos.king_square(Color::White).unwrap();
    assert_eq!(safety_index(&pos, Color::White, wk), idx(2, 3, 2, 0));
    let bk = pos.king_square(Color::Black).unwrap();
    assert_eq!(safety_index(&pos, Color::Black, bk), idx(0, 0, 3, 1));
}

/// Plays pseudo-random games and checks the incremental score against a full recompute
/// (and against the feature list the learner uses) after every move and every undo.
#[test]
fn incremental_matches_full_recompute() {
    let mut seed = 12345u64;
    for weights in [scrambled(), Weights::hand_set().leak(), Weights::embedded()] {
        for start in [
            "startpos",
            "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ] {
            let mut pos = Position::from_sfen(start).unwrap();
            let mut ev = TableEval::new(weights);
            ev.reset(&pos);
            let mut played = Vec::new();
            for _ in 0..160 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                ev.push(&pos, m);
                pos.do_move(m);
                played.push(m);
                let full = ev.black_score(&pos);
                assert_eq!(full, feature_sum(weights, &pos));
                // Evaluate only every other ply, so that two king moves can pile up.
                if played.len() % 2 == 0 {
                    let inc = ev.evaluate(&pos) * sign(pos.side_to_move());
                    assert_eq!(inc, full, "after {m} in {}", pos.to_sfen());
                }
            }
            while let Some(m) = played.pop() {
                pos.undo_move(m);
                ev.pop();
                let full = ev.black_score(&pos);
                let inc = ev.evaluate(&pos) * sign(pos.side_to_move());
                assert_eq!(inc, full);
            }
        }
    }
}

/// The start position is symmetric: every term but the tempo (Black's, to move) cancels.
#[test]
fn start_position_is_balanced() {
    // The sides' terms cancel; what is left is the side to move's (tempo, side-to-move
    // weights), the same whichever side that is.
    let pos = Position::startpos();
    let white =
        Position::from_sfen("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
            .unwrap();
    let hand_set = Weights::hand_set().leak();
    assert_eq!(
        TableEval::new(hand_set).black_score(&pos),
        i32::from(hand_set.w[TEMPO])
    );
    for w in [hand_set, Weights::embedded()] {
        let ev = TableEval::new(w);
        assert_eq!(ev.black_score(&pos), -ev.black_score(&white));
    }
}

/// A position and its colour-swapped mirror score the same for the side to move.
#[test]
fn colour_swap_negates_the_score() {
    let w = scrambled();
    let ev = TableEval::new(w);
    for sfen in [
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
    ] {
        let pos = Position::from_sfen(&format!("sfen {sfen}")).unwrap();
        let swapped = Position::from_sfen(&crate::shogi::sfen::colour_swapped(sfen)).unwrap();
        assert_eq!(ev.black_score(&pos), -ev.black_score(&swapped), "{sfen}");
    }
}

#[test]
fn weights_round_trip_and_reject_bad_files() {
    let w = scrambled().clone();
    assert_eq!(Weights::from_bytes(&w.to_bytes()).unwrap(), w);
    assert!(Weights::from_bytes(b"GOUGIEV1\x01\0\0\0\0\0").is_err());
    assert!(Weights::from_bytes(b"NOTANEVAL").is_err());
}

#[test]
fn noise_is_a_pure_near_normal_function_of_key_and_seed() {
    let keys: Vec<u64> = (0..20_000u64)
        .map(|i| mix64(i.wrapping_mul(0x2545_F491_4F6C_DD1D)))
        .collect();
    for sd in [1, 50, 300] {
        let xs: Vec<f64> = keys.iter().map(|&k| noise_cp(k, 3, sd) as f64).collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let sd = sd as f64;
        // Truncation to whole cp loses a little at sd 1.
        assert!(mean.abs() < 0.05 * sd + 0.5, "mean {mean} at sd {sd}");
        assert!(
            (var.sqrt() - sd).abs() < 0.05 * sd + 0.5,
            "sd {} at sd {sd}",
            var.sqrt()
        );
        // Near normal: about 68 % within one sd (Irwin–Hall of 4: 66.5 %).
        let within = xs.iter().filter(|x| x.abs() <= sd).count() as f64 / n;
        assert!((0.62..0.72).contains(&within) || sd < 2.0, "{within}");
    }
    for &k in &keys[..100] {
        assert_eq!(noise_cp(k, 9, 50), noise_cp(k, 9, 50));
        assert_eq!(noise_cp(k, 9, 0), 0);
    }
    let differ = keys[..1000]
        .iter()
        .filter(|&&k| noise_cp(k, 1, 50) != noise_cp(k, 2, 50))
        .count();
    assert!(differ > 900, "{differ}");
}

#[test]
fn noise_moves_the_score_by_the_same_amount_for_both_sides() {
    let pos = Position::from_sfen(
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
    )
    .unwrap();
    let mut plain = TableEval::default();
    plain.reset(&pos);
    let mut noisy = TableEval::default().with_noise(80, 5);
    noisy.reset(&pos);
    // White to move: the noise is from Black's view, so White sees it negated.
    assert_eq!(
        noisy.evaluate(&pos),
        plain.evaluate(&pos) - noise_cp(pos.key(), 5, 80)
    );
}

#[test]
fn dropout_zeroes_its_share_of_the_king_tables_only() {
    let base = Weights::embedded();
    let d = dropout(base, 100, 4);
    assert_eq!(d, dropout(base, 100, 4), "not reproducible");
    assert_ne!(
        d,
        dropout(base, 100, 5),
        "seeds 4 and 5 drop the same weights"
    );
    assert_eq!(
        &d.w[..OWN_BASE],
        &base.w[..OWN_BASE],
        "material was touched"
    );
    let range = king_range();
    let nonzero = base.w[range.clone()].iter().filter(|&&v| v != 0).count();
    let dropped = range.filter(|&i| base.w[i] != 0 && d.w[i] == 0).count();
    let share = dropped as f64 / nonzero as f64;
    assert!((0.09..0.11).contains(&share), "{share}");
    assert_eq!(dropout(base, 0, 4), *base);
}
