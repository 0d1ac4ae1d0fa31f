//! `gougi learn`: where the evaluations' weights come from. Above the search (it plays the
//! search against itself) and beside the evaluations it writes for (`crate::eval`).
//!
//! - [`gen`]: self-play data, one line per quiet position (`SFEN <tab> search score (Black's
//!   view) <tab> result`);
//! - [`linear`]: the linear evaluation's weights fitted to those lines;
//! - [`nnue`]: an NNUE net trained on them, written in YaneuraOu's format.
//!
//! Both learners read the same lines and hold out the same way ([`split`]), and stop with the
//! same errors ([`LearnError`]).

pub mod gen;
pub mod linear;
pub mod nnue;

use std::path::{Path, PathBuf};

pub use gen::{generate, GenOptions, GenSummary};
pub use linear::{train, TrainOptions};

/// Why `gougi learn gen` or `train` stopped; the file ones name the file.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A data line that is not `SFEN<tab>score<tab>result` (with the SFEN's own fault, if that
    /// is what was wrong).
    #[error(
        "{}:{line}: expected SFEN<tab>score<tab>result{}",
        path.display(),
        sfen.as_ref().map(|e| format!(": {e}")).unwrap_or_default()
    )]
    Line {
        path: PathBuf,
        line: usize,
        sfen: Option<crate::shogi::SfenError>,
    },
    #[error("no training positions")]
    NoPositions,
}

/// Training and held-out samples: with `held_out`, every line of the data files trains and
/// every line of that file is held out (`load` with a `validation` of 0, then of 1); without,
/// `load` splits the data files by blocks. Shared by the linear and the NNUE learners, whose
/// samples differ.
pub fn split<S, E>(
    files: &[PathBuf],
    validation: usize,
    held_out: Option<&Path>,
    mut load: impl FnMut(&[PathBuf], usize) -> Result<(S, S), E>,
) -> Result<(S, S), E> {
    match held_out {
        Some(file) => {
            let (train, _) = load(files, 0)?;
            let (_, valid) = load(&[file.to_path_buf()], 1)?;
            Ok((train, valid))
        }
        None => load(files, validation),
    }
}

/// A small, seedable generator (SplitMix64): the games must be reproducible from the seed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_out_file_is_all_held_out_and_the_data_all_trained() {
        // A stand-in `load`: each file's name as its one sample, split by `validation` as the
        // real loaders do (0: all trained, 1: all held out, else by the file's index).
        let load =
            |files: &[PathBuf], validation: usize| -> Result<(Vec<String>, Vec<String>), ()> {
                let (mut t, mut v) = (Vec::new(), Vec::new());
                for (k, f) in files.iter().enumerate() {
                    let name = f.display().to_string();
                    let held = validation > 0 && k % validation == validation - 1;
                    if held { &mut v } else { &mut t }.push(name);
                }
                Ok((t, v))
            };
        let files = [PathBuf::from("a"), PathBuf::from("b")];
        assert_eq!(
            split(&files, 2, None, load).unwrap(),
            (vec!["a".to_string()], vec!["b".to_string()])
        );
        assert_eq!(
            split(&files, 2, Some(Path::new("h")), load).unwrap(),
            (
                vec!["a".to_string(), "b".to_string()],
                vec!["h".to_string()]
            )
        );
    }
}
