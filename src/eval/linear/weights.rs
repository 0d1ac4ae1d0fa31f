//! The linear evaluation's weights ([`Weights`], one flat table indexed as [`super::layout`]
//! says): the hand-set start of the learning, the `gougi learn` file format (with the earlier
//! layouts it still reads) and `EvalDropout`'s thinned copies. The built-in rounds are
//! [`crate::eval::builtin`]'s.

use crate::eval::material::PIECE_VALUE;
use crate::eval::noise::mix64;
use crate::shogi::PieceKind;

use super::layout::*;

/// The weights of [`TableEval`], one flat table (indices from [`psq_index`], [`hand_index`],
/// [`own_index`], [`opp_index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub w: Vec<i16>,
}

/// The file format: this magic, the weight count as a little-endian u32, then the weights as
/// little-endian i16.
const MAGIC: &[u8; 8] = b"GOUGIEV1";

/// Why bytes are not a weight file of this gougi.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    #[error("not a gougi evaluation file (no GOUGIEV1 header)")]
    NoHeader,
    #[error(
        "evaluation file has {weights} weights in {bytes} bytes; this gougi reads {NUM_WEIGHTS} \
         (or {V3_WEIGHTS}, {V2_WEIGHTS} or {V1_WEIGHTS}, the earlier layouts)"
    )]
    Size { weights: usize, bytes: usize },
}

/// Why a weight file could not be loaded; both name the file.
#[derive(Debug, thiserror::Error)]
pub enum WeightsFileError {
    #[error("{}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Format {
        path: std::path::PathBuf,
        source: WeightsError,
    },
    /// `builtin:` with a name that is neither a round nor a net (the lists are
    /// [`crate::eval::builtin`]'s, which makes this error).
    #[error(
        "{name}: no such built-in round (built in: {}; nets: {})",
        rounds.join(", "),
        nets.join(", ")
    )]
    UnknownRound {
        name: String,
        rounds: Vec<String>,
        nets: Vec<String>,
    },
}

impl Weights {
    /// The evaluation the learning started from, set by hand: material (Bonanza's values ×
    /// 0.9, the same in hand), a piece-square term by rank, and king safety by Chebyshev
    /// distance (golds and silvers near their own king defend, pieces near the enemy king
    /// attack).
    pub fn hand_set() -> Weights {
        const PSQ_RANK: [(PieceKind, [i16; 9]); 5] = [
            (PieceKind::Pawn, [0, 25, 20, 12, 6, 2, 0, 0, 0]),
            (PieceKind::Knight, [0, 0, 10, 12, 8, 2, 0, -5, -10]),
            (PieceKind::Silver, [-10, 0, 10, 15, 14, 10, 4, 0, -8]),
            (PieceKind::Gold, [-25, -20, -12, -4, 2, 8, 12, 8, 0]),
            (PieceKind::King, [-120, -100, -80, -60, -40, -20, 0, 15, 20]),
        ];
        let gold_def = [0, 36, 20, 8, 0];
        let gold_att = [0, 45, 28, 10, 2];
        let mut defend = [[0i16; 5]; KINDS];
        let mut attack = [[0i16; 5]; KINDS];
        for k in [
            PieceKind::Gold,
            PieceKind::ProPawn,
            PieceKind::ProLance,
            PieceKind::ProKnight,
            PieceKind::ProSilver,
        ] {
            defend[k.index()] = gold_def;
            attack[k.index()] = gold_att;
        }
        defend[PieceKind::Silver.index()] = [0, 28, 16, 6, 0];
        defend[PieceKind::Knight.index()] = [0, 6, 8, 2, 0];
        defend[PieceKind::Horse.index()] = [0, 30, 20, 10, 0];
        attack[PieceKind::Silver.index()] = [0, 40, 24, 8, 2];
        attack[PieceKind::Knight.index()] = [0, 10, 24, 10, 0];
        attack[PieceKind::Pawn.index()] = [0, 16, 6, 0, 0];
        attack[PieceKind::Lance.index()] = [0, 12, 8, 4, 0];
        attack[PieceKind::Bishop.index()] = [0, 20, 14, 8, 4];
        attack[PieceKind::Rook.index()] = [0, 22, 16, 10, 4];
        attack[PieceKind::Horse.index()] = [0, 50, 32, 16, 6];
        attack[PieceKind::Dragon.index()] = [0, 70, 45, 22, 8];

        let mut w = vec![0i16; NUM_WEIGHTS];
        for kind in PieceKind::ALL {
            let rank_term = PSQ_RANK
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or([0; 9], |(_, t)| *t);
            for sq in 0..81 {
                // Frame index `sq`: rank index `sq % 9` counts from the far rank.
                w[PSQ_BASE + kind.index() * 81 + sq] =
                    PIECE_VALUE[kind.index()] as i16 + rank_term[sq % 9];
            }
            if kind == PieceKind::King {
                continue;
            }
            for k in 0..81usize {
                for s in 0..81usize {
                    let d = (k / 9).abs_diff(s / 9).max((k % 9).abs_diff(s % 9));
                    if (1..=4).contains(&d) {
                        let at = (k * KINDS + kind.index()) * 81 + s;
                        w[OWN_BASE + at] = defend[kind.index()][d];
                        w[OPP_BASE + at] = attack[kind.index()][d];
                    }
                }
            }
        }
        for (h, kind) in PieceKind::HAND.into_iter().enumerate() {
            for n in 0..HAND_CAP[h] {
                w[hand_index(h, n)] = PIECE_VALUE[kind.index()] as i16;
            }
        }
        Weights { w }
    }

    /// Reads weights in the `gougi learn` format.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(WeightsError::NoHeader);
        }
        let n = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
        if ![NUM_WEIGHTS, V3_WEIGHTS, V2_WEIGHTS, V1_WEIGHTS].contains(&n)
            || bytes.len() != 12 + 2 * n
        {
            return Err(WeightsError::Size {
                weights: n,
                bytes: bytes.len(),
            });
        }
        let w: Vec<i16> = bytes[12..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        if n == V1_WEIGHTS {
            return Ok(Weights::from_v1(&w));
        }
        let mut w = w;
        // The second layout lacks the safety table and the tempo, the third the side-to-move
        // tables: zero, the scores they gave.
        w.resize(NUM_WEIGHTS, 0);
        Ok(Weights { w })
    }

    /// The first layout's weights in this one: its king-relative tables were indexed by
    /// (kind, offset from the king) alone, which is what a king-piece weight's factor is, so
    /// every king square gets the same values and the scores do not change.
    fn from_v1(v1: &[i16]) -> Weights {
        let mut w = vec![0i16; NUM_WEIGHTS];
        w[..OWN_BASE].copy_from_slice(&v1[..OWN_BASE]);
        for (i, wi) in w.iter_mut().enumerate().take(OWN_HAND_BASE).skip(OWN_BASE) {
            *wi = v1[OWN_BASE + factor_of(i).expect("a king-piece weight")];
        }
        Weights { w }
    }

    /// Writes weights in the format [`Weights::from_bytes`] reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + 2 * self.w.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.w.len() as u32).to_le_bytes());
        for v in &self.w {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a weight file.
    pub fn load(path: &std::path::Path) -> Result<Weights, WeightsFileError> {
        let bytes = std::fs::read(path).map_err(|source| WeightsFileError::Io {
            path: path.into(),
            source,
        })?;
        Weights::from_bytes(&bytes).map_err(|source| WeightsFileError::Format {
            path: path.into(),
            source,
        })
    }

    /// Weights that live as long as the program (an `EvalFile` is loaded a few times at most).
    pub fn leak(self) -> &'static Weights {
        Box::leak(Box::new(self))
    }
}

/// `weights` with `per_mille`/1000 of its king-relative weights (king-piece and king-hand,
/// [`king_range`]) set to zero, chosen by `seed` (`EvalDropout`, GA将's diversified clients).
/// The piece-square and hand tables are kept: they hold the material, and a rook worth 0 on
/// one square is a blunder, not a different opinion.
pub fn dropout(weights: &Weights, per_mille: u32, seed: u64) -> Weights {
    let mut out = weights.clone();
    let mut rng = seed ^ 0xD1B5_4A32_D192_ED03;
    for i in king_range() {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        if mix64(rng) % 1000 < per_mille as u64 {
            out.w[i] = 0;
        }
    }
    out
}
