//! `gougi perft` (divide lines and the total) and `gougi bench perft` (fixed positions checked
//! against their reference counts), over the rules core's [`crate::shogi::perft`].

/// `gougi perft`: divide lines, then the total as the last token of the last line.
pub fn run(depth: u32, position: &[String]) -> anyhow::Result<()> {
    use crate::shogi::{perft_divide, Position};
    let text = position.join(" ");
    let text = if text.trim().is_empty() {
        "startpos"
    } else {
        text.trim()
    };
    let text =
        if text.starts_with("startpos") || text.starts_with("sfen") || text.starts_with("position")
        {
            text.to_string()
        } else {
            format!("sfen {text}")
        };
    let mut pos = Position::from_usi_position(&text)?;
    let start = std::time::Instant::now();
    let mut total = 0u64;
    if depth == 0 {
        total = 1;
    } else {
        for (m, n) in perft_divide(&mut pos, depth) {
            println!("{m}: {n}");
            total += n;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    tracing::info!(depth, nodes = total, secs, "perft done");
    // The time on stderr, so that stdout keeps the total as its last token and benchmarks
    // can read the search time without the process start-up.
    eprintln!(
        "perft depth {depth} nodes {total} time {secs:.4}s nps {:.0}",
        total as f64 / secs.max(1e-9)
    );
    println!("nodes {total}");
    Ok(())
}

/// `gougi bench perft`: fixed positions; each line checks the count against the reference.
pub fn bench() -> anyhow::Result<()> {
    use crate::shogi::{perft, Position};
    // (name, SFEN, depth, reference count from tests/data/perft/perft.txt)
    const CASES: [(&str, &str, u32, u64); 6] = [
        (
            "startpos",
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            5,
            19_861_490,
        ),
        (
            "matsuri",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            4,
            516_925_165,
        ),
        (
            "bench1",
            "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
            4,
            1_307_221,
        ),
        (
            "bench2",
            "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
            4,
            153_238_280,
        ),
        (
            "bench3",
            "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
            3,
            8_420_492,
        ),
        (
            "max593",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            3,
            53_393_368,
        ),
    ];
    let mut nodes = 0u64;
    let mut secs = 0f64;
    let mut ok = true;
    for (name, sfen, depth, expected) in CASES {
        let mut pos = Position::from_sfen(sfen)?;
        let start = std::time::Instant::now();
        let n = perft(&mut pos, depth);
        let t = start.elapsed().as_secs_f64();
        let verdict = if n == expected { "ok" } else { "MISMATCH" };
        ok &= n == expected;
        println!(
            "{name:<9} depth {depth} nodes {n:>12} time {t:>8.3}s nps {:>12.0} {verdict}",
            n as f64 / t.max(1e-9)
        );
        nodes += n;
        secs += t;
    }
    println!(
        "total nodes {nodes} time {secs:.3}s nps {:.0}",
        nodes as f64 / secs.max(1e-9)
    );
    anyhow::ensure!(ok, "perft count mismatch");
    Ok(())
}
