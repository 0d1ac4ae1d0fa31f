//! The trainer's tests: a tiny run end to end, the mirror, the quantization.

use super::data::*;
use super::net::*;
use super::report::*;
use super::train::*;
use crate::eval::nnue::Network;
use crate::eval::Weights;
use crate::learn::{generate, GenOptions};
use crate::shogi::Position;

/// A few hundred self-play lines at a tiny budget, trained for a few epochs: the training
/// loss falls, the same seed gives the same losses, the written file loads as the net
/// trained, its integer evaluations track the float ones, and the loss table and plot are
/// written.
#[test]
fn a_tiny_run_learns_and_writes_a_net_that_loads() {
    let dir = std::env::temp_dir().join(format!("gougi-nnue-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.txt");
    let _ = std::fs::remove_file(&data);
    let gen = GenOptions {
        games: 10,
        nodes: 300,
        max_plies: 80,
        hash_mb: 1,
        ..GenOptions::default()
    };
    let summary = generate(&gen, Weights::embedded(), &data, &|_| {}).unwrap();
    assert!(summary.positions > 250, "{summary:?}");
    let o = Options {
        epochs: 3,
        batch: 32,
        lr: 3e-3,
        validation: 2,
        ..Options::default()
    };
    let out = dir.join("net.bin");
    let mut lines = Vec::new();
    let files = std::slice::from_ref(&data);
    let r = train(files, &o, &out, &mut |l| lines.push(l.to_owned())).unwrap();
    // Each training position twice: as played and mirrored.
    assert_eq!(r.train_positions / 2 + r.valid_positions, summary.positions);
    assert!(
        r.valid_positions > 0 && r.train_positions > 200,
        "{lines:?}"
    );
    // The training loss over the whole set, before and after.
    let (train_set, valid) = load(files, o.validation, o.mirror).unwrap();
    let after = losses(&r.net, &train_set, &o).mixed;
    assert!(after < r.epochs[0].train - 0.002, "{after} {lines:?}");
    assert_eq!(r.epochs.len(), o.epochs + 1);

    let bytes = std::fs::read(&out).unwrap();
    let q = Network::from_bytes(&bytes).unwrap();
    assert_eq!(q.arch, o.arch);
    if r.best_epoch == o.epochs {
        // The file is the final float net quantized: evaluations within a few units.
        let d = r.quantization_error.unwrap();
        assert!(d < 2.0, "{d}");
        assert!((mean_abs_difference(&r.net, &q, &valid.sfen) - d).abs() < 1e-9);
        let start = Position::startpos();
        assert!((r.net.evaluate(&start) - q.evaluate(&start) as f32).abs() < 2.0);
    }
    let tsv = std::fs::read_to_string(with_suffix(&out, ".loss.tsv")).unwrap();
    assert_eq!(tsv.lines().count(), o.epochs + 2, "{tsv}");
    let svg = std::fs::read_to_string(with_suffix(&out, ".loss.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 2);

    // Reproducible from the seed.
    let again = train(files, &o, &dir.join("again.bin"), &mut |_| {}).unwrap();
    let figures = |r: &Outcome| -> Vec<(f64, f64)> {
        r.epochs
            .iter()
            .map(|e| (e.train, e.valid.unwrap().mixed))
            .collect()
    };
    assert_eq!(figures(&again), figures(&r));

    // A held-out file: all of it held out, all of the data trained on (and mirrored).
    let held = dir.join("held.txt");
    let text = std::fs::read_to_string(&data).unwrap();
    std::fs::write(
        &held,
        text.lines().take(30).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let o1 = Options {
        epochs: 1,
        held_out: Some(held),
        ..o
    };
    let r1 = train(files, &o1, &dir.join("held.bin"), &mut |_| {}).unwrap();
    assert_eq!(
        (r1.train_positions, r1.valid_positions),
        (2 * summary.positions, 30)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_mirror_swaps_files_and_keeps_the_rest() {
    let sfen = "ln1g3+Rl/1r1sk1g2/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/9/LN1GKGSNL w Bb 12";
    let m = mirrored(sfen);
    assert_eq!(
        m,
        "l+R3g1nl/2g1ks1r1/pp1pppp1p/2p6/7p1/6P2/PPPPPPSPP/9/LNSGKG1NL w Bb 12"
    );
    assert_eq!(mirrored(&m), sfen);
    let (a, b) = (
        Position::from_sfen(sfen).unwrap(),
        Position::from_sfen(&m).unwrap(),
    );
    assert_eq!(a.legal_moves().len(), b.legal_moves().len());
}

/// The quantization's scales: a float net with weights that are exact multiples of the
/// integer steps evaluates to the same value once quantized (up to the final division's
/// truncation), positions with pieces in hand included.
#[test]
fn quantization_keeps_the_float_net_s_value() {
    let mut net = FloatNet::new(crate::eval::nnue::HALFKP_256, 7);
    let snap = |v: &mut [f32], s: f32| v.iter_mut().for_each(|x| *x = (*x * s).round() / s);
    snap(&mut net.ft_p.w, FT_SCALE);
    snap(&mut net.ft_b.w, FT_SCALE);
    snap(&mut net.l1_w.w, W_SCALE);
    snap(&mut net.l2_w.w, W_SCALE);
    snap(&mut net.l1_b.w, FT_SCALE * W_SCALE);
    snap(&mut net.l2_b.w, FT_SCALE * W_SCALE);
    net.out_w.w.iter_mut().for_each(|w| *w = 0.1 * OUT_MAX);
    net.out_b.w[0] = -1.0;
    net.snap();
    let q = net.quantize();
    for sfen in [
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "ln1g3nl/1r1sk1g2/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/7R1/LN1GKGSNL w Bb 12",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let (f, i) = (net.evaluate(&pos), q.evaluate(&pos));
        // The file's division by 16 truncates: a unit or so.
        assert!(
            (f - i as f32).abs() < 2.0,
            "{sfen}: float {f}, quantized {i}"
        );
        assert!(
            f.abs() > 50.0,
            "{sfen}: {f} (a zero net would pass anything)"
        );
    }
}
