//! The search's tunable constants as one value, [`SearchParams`], so `gougi tune` can move them
//! through USI options without a rebuild.
//!
//! Every constant the node searches used to hold as a literal is a field here; the defaults
//! are exactly the old literals (the `gougi bench search` node signature depends on them, and
//! a test below pins it). Each one is a hidden `spin` option named `T_<Field>`: `setoption`
//! always accepts it, but `usi` lists the `T_` options only when asked (`gougi search
//! --tune-options` or the environment variable `GOUGI_TUNE_OPTIONS=1`), so GUIs and
//! consultations see the same short option list as before. The idea is Stockfish's `TUNE`
//! macro (tuning knobs that appear as options only in a tuning build); here it is a run-time
//! switch instead of a build flag, so the released binary is the one being tuned.
//!
//! Units: evaluation units where a pawn is 90 ([`crate::eval::PIECE_VALUE`]), plies, or the
//! fixed-point scale named in the field's comment. Origins of the defaults are in the
//! comments (Stockfish 15 figures scaled ×0.45 to our pawn unless noted).

/// Whether `usi` lists the tuning options: set by `gougi search --tune-options` (before the
/// engine starts) or by `GOUGI_TUNE_OPTIONS=1` in the environment.
pub fn tune_options_listed() -> bool {
    LISTED.load(std::sync::atomic::Ordering::Relaxed)
        || std::env::var("GOUGI_TUNE_OPTIONS").is_ok_and(|v| v == "1" || v == "true")
}

static LISTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes `usi` list the tuning options (`gougi search --tune-options`).
pub fn list_tune_options() {
    LISTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

macro_rules! params {
    ($( $(#[doc = $doc:expr])* $field:ident : $opt:literal = $default:expr, $min:expr, $max:expr; )*) => {
        /// The search's tunable constants (see the module doc).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchParams {
            $( $(#[doc = $doc])* pub $field: i32, )*
        }

        impl Default for SearchParams {
            fn default() -> Self {
                SearchParams { $( $field: $default, )* }
            }
        }

        /// One tunable: its option name, default and range.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct ParamSpec {
            pub name: &'static str,
            pub default: i32,
            pub min: i32,
            pub max: i32,
        }

        /// Every tunable, in declaration order.
        pub const PARAM_SPECS: &[ParamSpec] = &[
            $( ParamSpec { name: $opt, default: $default, min: $min, max: $max }, )*
        ];

        impl SearchParams {
            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                $( if name.eq_ignore_ascii_case($opt) { return Some(&mut self.$field); } )*
                None
            }
        }
    };
}

params! {
    /// Late-move-reduction table factor ×100: `reductions[i] = lmr_log / 100 · ln i`
    /// (Stockfish 15: 20.81).
    lmr_log: "T_LmrLog" = 2081, 1000, 4000;
    /// LMR rounding offset in 1/1024 plies (Stockfish 15: 1463).
    lmr_offset: "T_LmrOffset" = 1463, 0, 3000;
    /// One more ply of reduction when not improving and the raw product exceeds this.
    lmr_nonimproving: "T_LmrNonImproving" = 1010, 0, 4000;
    /// LMR history adjustment: `(stat - offset) / div` plies (Stockfish 15: 4433, 13628).
    lmr_stat_offset: "T_LmrStatOffset" = 4433, 0, 20000;
    lmr_stat_div: "T_LmrStatDiv" = 13628, 2000, 40000;
    /// Aspiration half-window at depth ≥ 4: `base + |previous score| / div` (Stockfish's 10
    /// with pawn ≈ 200 → 12).
    aspiration_base: "T_AspirationBase" = 12, 2, 100;
    aspiration_div: "T_AspirationDiv" = 64, 8, 1024;
    /// Razoring: below `alpha - base - per_depth2 · d²` quiescence decides (426 + 252 d²).
    razor_base: "T_RazorBase" = 190, 0, 1000;
    razor_per_depth2: "T_RazorPerDepth2" = 115, 0, 600;
    /// Child-node futility margin per depth (165 → 75, raised to 90 for drops' swings) and
    /// the depth it stops at.
    futility_margin: "T_FutilityMargin" = 90, 20, 300;
    futility_max_depth: "T_FutilityMaxDepth" = 9, 1, 20;
    /// Null move: static eval ≥ beta − margin · d + base; R = r_base + d / r_depth_div +
    /// min((eval − beta) / r_eval_div, 3) (base R 3 as in Stockfish 11, 183 → 85).
    null_static_margin: "T_NullStaticMargin" = 10, 0, 100;
    null_static_base: "T_NullStaticBase" = 75, -200, 400;
    null_r_base: "T_NullRBase" = 3, 1, 8;
    null_r_depth_div: "T_NullRDepthDiv" = 3, 1, 12;
    null_r_eval_div: "T_NullREvalDiv" = 85, 10, 500;
    /// Internal iterative reduction from this depth on (Stockfish 15: 3 for PV, 8 for cut).
    iir_min_depth: "T_IirMinDepth" = 4, 1, 20;
    /// SEE pruning thresholds: captures/checks −margin · d (−185 d → 80), quiets −margin ·
    /// lmrDepth² (−27 → 12).
    capture_see_margin: "T_CaptureSeeMargin" = 80, 0, 400;
    quiet_see_margin: "T_QuietSeeMargin" = 12, 0, 100;
    /// Continuation-history pruning below −this · d (Stockfish 15: 3875).
    cont_history_prune: "T_ContHistoryPrune" = 3875, 0, 20000;
    /// Parent-node futility of quiets: static eval + base + per_depth · lmrDepth ≤ alpha
    /// (144 + 164 lmrDepth → 65 + 75).
    quiet_futility_base: "T_QuietFutilityBase" = 65, 0, 400;
    quiet_futility_per_depth: "T_QuietFutilityPerDepth" = 75, 0, 400;
    /// Extra history bonus when the best move beat beta by this much (153 → 70).
    history_bonus_margin: "T_HistoryBonusMargin" = 70, 0, 500;
    /// Quiescence futility margin (118 → 55) and SEE floor of non-quiet moves (90 → 40).
    qs_futility_margin: "T_QsFutilityMargin" = 55, 0, 400;
    qs_see_margin: "T_QsSeeMargin" = 40, 0, 400;
    /// Check extension only from this remaining depth on (0: every check that does not lose
    /// material, YaneuraOu's old rule; Stockfish 14 extended checks only beyond depth 6).
    check_ext_min_depth: "T_CheckExtMinDepth" = 0, 0, 20;
    /// The static evaluation's scale in percent (100 = as learned). The margins above are in
    /// pawn-90 units taken from Stockfish; this moves the evaluation against all of them at
    /// once.
    eval_scale: "T_EvalScale" = 100, 25, 400;
    /// Move-count pruning: quiets after `(base + per_depth2 · d² / 100) / (2 − improving)`
    /// moves are skipped. Stockfish 15's `(3 + d²) / (2 − improving)` (base 3, 100) leaves two
    /// moves at depth 1 of the ~80 a shogi position has. A larger base alone (20) widens the
    /// shallow nodes, where that count cost the most; a larger d² term too (400) gained more at
    /// 10 k nodes but lost at byoyomi 100 ms, where the deep nodes it stops pruning dominate
    /// (BENCHMARKS "Move-count pruning").
    lmp_base: "T_LmpBase" = 20, 0, 50;
    lmp_per_depth2: "T_LmpPerDepth2" = 100, 10, 1000;
}

/// A `T_…` option's value that is not an integer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}: not an integer: {value}")]
pub struct NotAnInteger {
    pub name: &'static str,
    pub value: String,
}

impl SearchParams {
    /// Sets the option `name` (a `T_…` name, case-insensitive) to `value`, clamped to its
    /// range. `Ok(false)`: not a tuning option; `Err`: not an integer.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, NotAnInteger> {
        let Some(spec) = PARAM_SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
        else {
            return Ok(false);
        };
        let v: i64 = value.trim().parse().map_err(|_| NotAnInteger {
            name: spec.name,
            value: value.to_owned(),
        })?;
        let v = v.clamp(spec.min as i64, spec.max as i64) as i32;
        *self.slot(spec.name).expect("every spec has a field") = v;
        Ok(true)
    }

    /// The `option name T_… type spin …` lines, defaults as today's constants.
    pub fn option_lines() -> Vec<String> {
        PARAM_SPECS
            .iter()
            .map(|s| {
                format!(
                    "option name {} type spin default {} min {} max {}",
                    s.name, s.default, s.min, s.max
                )
            })
            .collect()
    }

    /// Move-count pruning: at a node of `depth`, the quiets after this many moves are skipped
    /// (`T_LmpBase`, `T_LmpPerDepth2`: Stockfish's `(3 + d²) / (2 - improving)` in form, with
    /// shogi's own constants).
    pub fn move_count_limit(&self, improving: bool, depth: i32) -> i32 {
        (self.lmp_base + self.lmp_per_depth2 * depth * depth / 100) / (2 - improving as i32)
    }

    /// The late-move-reduction table for these parameters: `lmr_log / 100 · ln i`.
    pub fn reduction_table(&self) -> Vec<i32> {
        let k = self.lmr_log as f64 / 100.0;
        (0..256)
            .map(|i: i32| {
                if i == 0 {
                    0
                } else {
                    (k * (i as f64).ln()) as i32
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_their_ranges_and_names_are_unique() {
        for (i, s) in PARAM_SPECS.iter().enumerate() {
            assert!(s.min <= s.default && s.default <= s.max, "{s:?}");
            assert!(s.name.starts_with("T_"));
            assert!(PARAM_SPECS[..i].iter().all(|o| o.name != s.name), "{s:?}");
        }
    }

    #[test]
    fn move_count_limit_is_shogis_by_default_and_stockfishs_with_3_and_100() {
        let p = SearchParams::default();
        // (20 + d²) / (2 − improving)
        assert_eq!(p.move_count_limit(false, 1), 10);
        assert_eq!(p.move_count_limit(true, 1), 21);
        assert_eq!(p.move_count_limit(false, 3), 14);
        assert_eq!(p.move_count_limit(true, 5), 45);
        let mut sf = p;
        sf.set("T_LmpBase", "3").unwrap();
        sf.set("T_LmpPerDepth2", "100").unwrap();
        for d in 0..20 {
            for improving in [false, true] {
                let expected = (3 + d * d) / (2 - improving as i32);
                assert_eq!(sf.move_count_limit(improving, d), expected);
            }
        }
        // Per d² is in hundredths: 150 gives 1.5 d², rounded down with the base.
        sf.set("T_LmpPerDepth2", "150").unwrap();
        assert_eq!(sf.move_count_limit(true, 3), 3 + 13);
    }

    #[test]
    fn set_clamps_and_rejects() {
        let mut p = SearchParams::default();
        assert_eq!(p.set("t_futilitymargin", "120"), Ok(true));
        assert_eq!(p.futility_margin, 120);
        assert_eq!(p.set("T_FutilityMargin", "99999"), Ok(true));
        assert_eq!(p.futility_margin, 300);
        assert_eq!(p.set("T_NullRBase", "-4"), Ok(true));
        assert_eq!(p.null_r_base, 1);
        assert!(p.set("T_NullRBase", "x").is_err());
        assert_eq!(p.set("Threads", "2"), Ok(false));
    }

    #[test]
    fn the_default_reduction_table_is_the_old_one() {
        let t = SearchParams::default().reduction_table();
        for (i, &r) in t.iter().enumerate().skip(1) {
            assert_eq!(r, (20.81 * (i as f64).ln()) as i32, "i = {i}");
        }
    }
}
