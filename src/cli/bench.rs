//! `gougi bench search` and `gougi bench mate`: the built-in search's node signature and speed,
//! and the mate solver over problem files.

/// `gougi bench search`: the node signature and speed of the built-in search.
pub fn search(
    depth: Option<i32>,
    file: Option<std::path::PathBuf>,
    eval_file: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    use crate::eval::{nnue, SearchEval, TableEval};
    use crate::search::bench;
    let depth = depth.unwrap_or(bench::DEFAULT_DEPTH).clamp(1, 60);
    let positions = match file {
        Some(f) => bench::positions_from_file(&f).map_err(anyhow::Error::msg)?,
        None => bench::positions(),
    };
    let linear = TableEval::default();
    let eval = match eval_file {
        Some(f) => {
            let net = nnue::Network::named(&f.to_string_lossy()).map_err(anyhow::Error::msg)?;
            let kernel = nnue::Kernel::best();
            println!(
                "NNUE {} ({}, {} kernel)",
                net.arch.name(),
                f.display(),
                kernel.name()
            );
            SearchEval::with_net(linear, nnue::NnueEval::new(net.shared()))
        }
        None => SearchEval::linear(linear),
    };
    let r =
        bench::run_on(positions, depth, eval, |l| println!("{l}")).map_err(anyhow::Error::msg)?;
    println!("===========================");
    println!("Total time (ms) : {}", r.millis);
    println!("Nodes searched  : {}", r.nodes);
    println!("Nodes/second    : {}", r.nps());
    Ok(())
}

/// `gougi bench mate`: the problem files (default: `tests/data/tsume`'s, see
/// [`crate::mate::bench::default_files`]) solved with these limits.
pub fn mate(
    files: Vec<std::path::PathBuf>,
    hash_mb: usize,
    limit_ms: u64,
    verbose: bool,
    double_count: bool,
) -> anyhow::Result<()> {
    let files = if files.is_empty() {
        crate::mate::bench::default_files(std::path::Path::new("tests/data/tsume"))
    } else {
        files
    };
    let limit = std::time::Duration::from_millis(limit_ms);
    crate::mate::bench::run_bench(
        &files,
        &crate::mate::bench::BenchOptions {
            hash_mb,
            limit,
            verbose,
            double_count,
        },
        &mut std::io::stdout(),
    )
}
