//! What `EvalFile` names when it names no file: `builtin:r14` and the earlier rounds of the
//! linear weights, `builtin:n1` the net gougi trained. They are built into the binary (in
//! `builtin/`), so that a consultation of rounds, or of a net with the tables, needs no file
//! beside the executable; an empty `EvalFile` is the newest round.

use std::sync::OnceLock;

use super::linear::{TableEval, Weights, WeightsFileError};
use super::nnue::Network;

/// The embedded, learned weights (see ARCHITECTURE.md "Evaluation" for how they were made).
static EMBEDDED: &[u8] = include_bytes!("builtin/eval.bin");

/// The round [`EMBEDDED`] is, by the name `EvalFile` gives it (`builtin:r14`).
const EMBEDDED_ROUND: &str = "r14";

/// Earlier rounds of the learned weights, built in so that a consultation of rounds needs no
/// files beside the binary (issue 19 goal 1: rounds disagree where their errors differ, and a
/// vote over four of them beat one search at equal nodes by more than noisy copies did). Each
/// is the `eval.bin` of the commit that embedded it (round 13 d6cfcab, 11 dc936f6, 9 d32c4e9,
/// 8 36a48c9, 7 f5cba7f).
/// Round 10 is left out: its king-ring table is no longer read.
const ROUNDS: [(&str, &[u8]); 5] = [
    ("r13", include_bytes!("builtin/rounds/r13.bin")),
    ("r11", include_bytes!("builtin/rounds/r11.bin")),
    ("r9", include_bytes!("builtin/rounds/r9.bin")),
    ("r8", include_bytes!("builtin/rounds/r8.bin")),
    ("r7", include_bytes!("builtin/rounds/r7.bin")),
];

/// The prefix of an `EvalFile` value that names a built-in round or net instead of a file.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// Every `EvalFile` value that names a built-in round, newest first.
pub fn builtin_names() -> Vec<String> {
    std::iter::once(EMBEDDED_ROUND)
        .chain(ROUNDS.iter().map(|(n, _)| *n))
        .map(|n| format!("{BUILTIN_PREFIX}{n}"))
        .collect()
}

impl Weights {
    /// The embedded weights, parsed once.
    pub fn embedded() -> &'static Weights {
        static W: OnceLock<Weights> = OnceLock::new();
        W.get_or_init(|| Weights::from_bytes(EMBEDDED).expect("embedded eval.bin is valid"))
    }

    /// The weights an `EvalFile` value names: empty for the embedded ones, `builtin:r9` (any
    /// of [`builtin_names`]) for a built-in round, anything else a file (read each time: a
    /// user may have rewritten it). A built-in round is parsed once per process.
    pub fn named(name: &str) -> Result<&'static Weights, WeightsFileError> {
        let Some(round) = name.strip_prefix(BUILTIN_PREFIX) else {
            return if name.is_empty() {
                Ok(Weights::embedded())
            } else {
                Weights::load(std::path::Path::new(name)).map(Weights::leak)
            };
        };
        if round == EMBEDDED_ROUND {
            return Ok(Weights::embedded());
        }
        static PARSED: [OnceLock<Weights>; ROUNDS.len()] =
            [const { OnceLock::new() }; ROUNDS.len()];
        let i = ROUNDS
            .iter()
            .position(|(n, _)| *n == round)
            .ok_or_else(|| WeightsFileError::UnknownRound {
                name: name.to_owned(),
                rounds: builtin_names(),
                nets: builtin_net_names(),
            })?;
        Ok(PARSED[i]
            .get_or_init(|| Weights::from_bytes(ROUNDS[i].1).expect("built-in rounds are valid")))
    }
}

/// The linear evaluation with the embedded weights.
impl Default for TableEval {
    fn default() -> Self {
        TableEval::new(Weights::embedded())
    }
}

/// Nets built into the binary, by the name `EvalFile` gives them (`builtin:n1`), each an
/// xz-compressed net file (see `builtin/nets/README.md`): a consultation can mix a net with the linear
/// members with no file beside the binary.
const BUILTIN_NETS: [(&str, &[u8]); 1] = [("n1", include_bytes!("builtin/nets/n1.bin.xz"))];

/// Every `EvalFile` value that names a built-in net.
pub fn builtin_net_names() -> Vec<String> {
    BUILTIN_NETS
        .iter()
        .map(|(n, _)| format!("{}{n}", BUILTIN_PREFIX))
        .collect()
}

/// Whether `name` is one of [`builtin_net_names`].
pub fn is_builtin_net(name: &str) -> bool {
    builtin_bytes(name).is_some()
}

fn builtin_bytes(name: &str) -> Option<&'static [u8]> {
    let short = name.strip_prefix(BUILTIN_PREFIX)?;
    BUILTIN_NETS
        .iter()
        .find(|(n, _)| *n == short)
        .map(|(_, bytes)| *bytes)
}

impl Network {
    /// The net `EvalFile` names: a built-in one ([`builtin_net_names`]) or a file.
    pub fn named(name: &str) -> Result<Network, String> {
        let Some(packed) = builtin_bytes(name) else {
            return Network::load(std::path::Path::new(name));
        };
        let mut bytes = Vec::new();
        lzma_rs::xz_decompress(&mut std::io::Cursor::new(packed), &mut bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{name}: {e}"))
    }
}
