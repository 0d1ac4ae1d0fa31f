//! `gougi learn`: self-play data, fitting and the hand-set start of the evaluation weights
//! ([`crate::learn`]).

use clap::Subcommand;

#[derive(Subcommand)]
pub enum LearnStep {
    /// Play the built-in search against itself and append `SFEN<tab>score<tab>result` lines.
    Gen {
        /// Output file (appended to).
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Node budget per move (±10 % noise).
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Weights the players use (default: the embedded ones; `builtin:r9` a built-in round).
        #[arg(long, value_name = "FILE")]
        eval: Option<std::path::PathBuf>,
    },
    /// Fit weights to data files and write them.
    Train {
        /// Output weight file.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Start from these weights (default: the embedded ones; `builtin:r9` a built-in round).
        #[arg(long, value_name = "FILE")]
        init: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 2)]
        epochs: usize,
        /// Weight of the search score in the target; the rest goes to the game result (one
        /// label per game: with 0.5 the king-dependent weights learned the games, see
        /// BENCHMARKS "Learned evaluation").
        #[arg(long, default_value_t = 1.0)]
        lambda: f64,
        /// Adam step size, in evaluation units.
        #[arg(long, default_value_t = 1.0)]
        lr: f64,
        #[arg(long, default_value_t = 4096)]
        batch: usize,
        /// Learning rate of the king-piece weights relative to `--lr` (their shared factors
        /// learn at `--lr`).
        #[arg(long, default_value_t = 1.0)]
        kp_lr: f64,
        /// Pull of each king-piece weight back to its starting value, per step.
        #[arg(long, default_value_t = 1e-5)]
        decay: f64,
        /// Hold out every line of this file (else every 20th block of 200 lines of the data),
        /// and train on every line of the data files; with `--epochs 0`, the loss of `--init`'s
        /// weights on that file.
        #[arg(long)]
        held_out: Option<std::path::PathBuf>,
        /// Data files from `gougi learn gen`.
        #[arg(required = true)]
        data: Vec<std::path::PathBuf>,
    },
    /// Write the hand-set weights the learning starts from.
    Init {
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Write an NNUE net (YaneuraOu's format) with random weights from a seed: a test net
    /// whose evaluations spread over thousands, for comparing evaluations bit for bit.
    NnueRandom {
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The architecture, e.g. halfKP_256x2-32-32 (the public nets'), halfKP_512x2-16-32.
        #[arg(long, default_value = "halfKP_256x2-32-32")]
        arch: String,
    },
    /// Train an NNUE net (YaneuraOu's halfKP format) on data files from `gougi learn gen`;
    /// writes the net with the lowest held-out loss, and its loss table and plot
    /// (`OUT.loss.tsv`, `OUT.loss.svg`).
    NnueTrain {
        /// Output net file.
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 4)]
        epochs: usize,
        #[arg(long, default_value_t = 1024)]
        batch: usize,
        /// Adam step size.
        #[arg(long, default_value_t = 3e-4)]
        lr: f32,
        /// The step size is multiplied by this after each epoch.
        #[arg(long, default_value_t = 0.7)]
        lr_decay: f32,
        /// Step size of the per-king transformer rows relative to `--lr` (the shared piece
        /// rows learn at `--lr`).
        #[arg(long, default_value_t = 0.02)]
        king_lr: f32,
        /// Weight of the search score in the target; the rest goes to the game result.
        #[arg(long, default_value_t = 0.7)]
        lambda: f32,
        /// Every N-th block of 200 lines is held out for validation (0: none).
        #[arg(long, default_value_t = 20)]
        validation: usize,
        /// Hold out every line of this file instead (a fixed set to compare nets trained on
        /// different data), and train on every line of the data files.
        #[arg(long)]
        held_out: Option<std::path::PathBuf>,
        /// Initial weights and sample order.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Do not also train on each position mirrored left to right.
        #[arg(long)]
        no_mirror: bool,
        /// The architecture, e.g. halfKP_256x2-32-32 (the public nets').
        #[arg(long, default_value = "halfKP_256x2-32-32")]
        arch: String,
        /// Data files from `gougi learn gen`.
        #[arg(required = true)]
        data: Vec<std::path::PathBuf>,
    },
}

/// The supported NNUE architecture named `name` (case aside).
fn nnue_arch(name: &str) -> anyhow::Result<crate::eval::nnue::Arch> {
    use crate::eval::nnue::SUPPORTED;
    match SUPPORTED
        .iter()
        .find(|a| a.name().eq_ignore_ascii_case(name))
    {
        Some(a) => Ok(*a),
        None => {
            let names: Vec<String> = SUPPORTED.iter().map(|a| a.name()).collect();
            anyhow::bail!(
                "unknown architecture {name}; supported: {}",
                names.join(", ")
            )
        }
    }
}

/// `gougi learn`.
pub fn run(step: LearnStep) -> anyhow::Result<()> {
    use crate::eval::Weights;
    use crate::learn;
    let load = |f: Option<std::path::PathBuf>| -> anyhow::Result<&'static Weights> {
        Ok(match f {
            // `builtin:r9` and the like name a built-in round, as `EvalFile` does.
            Some(f) => match f.to_str() {
                Some(name) => Weights::named(name),
                None => Weights::load(&f).map(Weights::leak),
            }
            .map_err(anyhow::Error::msg)?,
            None => Weights::embedded(),
        })
    };
    let write = |w: &Weights, out: &std::path::Path| -> anyhow::Result<()> {
        std::fs::write(out, w.to_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))
    };
    match step {
        LearnStep::Gen {
            out,
            games,
            nodes,
            threads,
            seed,
            eval,
        } => {
            let opts = learn::GenOptions {
                games,
                nodes: nodes.max(1),
                threads,
                seed,
                ..learn::GenOptions::default()
            };
            let start = std::time::Instant::now();
            let s = learn::generate(&opts, load(eval)?, &out, &|s| {
                if s.games % 50 == 0 {
                    eprintln!(
                        "{} games, {} positions, {:.0} s",
                        s.games,
                        s.positions,
                        start.elapsed().as_secs_f64()
                    );
                }
            })
            .map_err(anyhow::Error::msg)?;
            println!(
                "games {} positions {} black {} white {} draws {} time {:.1}s",
                s.games,
                s.positions,
                s.black_wins,
                s.white_wins,
                s.draws,
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        LearnStep::Train {
            out,
            init,
            epochs,
            lambda,
            lr,
            batch,
            kp_lr,
            decay,
            held_out,
            data,
        } => {
            let o = learn::TrainOptions {
                epochs,
                lambda,
                lr,
                batch: batch.max(1),
                kp_lr,
                decay,
                held_out,
                ..learn::TrainOptions::default()
            };
            let w = learn::train(&data, load(init)?, &o, &mut |l| println!("{l}"))
                .map_err(anyhow::Error::msg)?;
            write(&w, &out)
        }
        LearnStep::Init { out } => write(&Weights::hand_set(), &out),
        LearnStep::NnueRandom { out, seed, arch } => {
            use crate::eval::nnue::Network;
            let a = nnue_arch(&arch)?;
            let bytes = Network::random(a, seed).to_bytes();
            std::fs::write(&out, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
            println!(
                "{}: {} seed {seed}, {} bytes",
                out.display(),
                a.name(),
                bytes.len()
            );
            Ok(())
        }
        LearnStep::NnueTrain {
            out,
            epochs,
            batch,
            lr,
            lr_decay,
            king_lr,
            lambda,
            validation,
            held_out,
            seed,
            no_mirror,
            arch,
            data,
        } => {
            use crate::eval::nnue::features::FeatureSet;
            use crate::learn::nnue as train;
            let arch = nnue_arch(&arch)?;
            // The trainer's shared (piece, square) rows are HalfKP's; K+P nets are loaded and
            // evaluated, not trained here.
            if arch.features != FeatureSet::HalfKP {
                anyhow::bail!(
                    "nnue-train trains halfKP architectures only; {} is loaded, not trained",
                    arch.name()
                );
            }
            let o = train::Options {
                arch,
                epochs,
                batch: batch.max(1),
                lr,
                lr_decay,
                king_lr,
                lambda,
                validation,
                held_out,
                seed,
                mirror: !no_mirror,
                ..train::Options::default()
            };
            let start = std::time::Instant::now();
            let r = train::train(&data, &o, &out, &mut |l| println!("{l}"))
                .map_err(anyhow::Error::msg)?;
            println!(
                "{}: {} from {} positions ({} held out), epoch {} written, {:.0} s",
                out.display(),
                o.arch.name(),
                r.train_positions,
                r.valid_positions,
                r.best_epoch,
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
    }
}
