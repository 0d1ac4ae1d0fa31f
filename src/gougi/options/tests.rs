use super::*;

/// A spec's current value as text, through its field.
fn read(o: &GOptions, spec: &Spec) -> String {
    match spec.kind {
        Kind::Spin { field, .. } => (field.get)(o).to_string(),
        Kind::Combo { field, .. } => (field.get)(o).to_string(),
        Kind::Check { field, .. } => (field.get)(o).to_string(),
    }
}

fn default_of(spec: &Spec) -> String {
    match spec.kind {
        Kind::Spin { default, .. } => default.to_string(),
        Kind::Combo { default, .. } => default.to_string(),
        Kind::Check { default, .. } => default.to_string(),
    }
}

#[test]
fn defaults_are_the_specs_defaults() {
    let o = GOptions::default();
    for spec in SPECS {
        assert_eq!(read(&o, spec), default_of(spec), "{}", spec.name);
    }
    let mut names: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), SPECS.len(), "an option is declared twice");
}

#[test]
fn every_spec_round_trips_through_its_own_field() {
    for spec in SPECS {
        let values: Vec<String> = match spec.kind {
            Kind::Spin {
                default, min, max, ..
            } => [min, max, default, min + (max - min) / 2]
                .iter()
                .map(i64::to_string)
                .collect(),
            Kind::Combo { vars, .. } => vars.iter().map(|v| v.to_string()).collect(),
            Kind::Check { .. } => vec!["true".into(), "false".into()],
        };
        for value in values {
            // Combo words match in any case and are stored as declared.
            for sent in [value.clone(), value.to_ascii_lowercase()] {
                let mut o = GOptions::default();
                assert_eq!(o.set(spec.name, &sent), Ok(()), "{} {sent}", spec.name);
                assert_eq!(read(&o, spec), value, "{} {sent}", spec.name);
                // The setter wrote its own field and no other.
                for other in SPECS.iter().filter(|s| s.name != spec.name) {
                    assert_eq!(
                        read(&o, other),
                        default_of(other),
                        "{} → {}",
                        spec.name,
                        other.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_typed_field_holds_its_default() {
    let v = GOptions::default();
    assert_eq!(v.margin_ms, 60);
    assert_eq!(v.info_relay, InfoRelay::Leader);
    assert_eq!(v.resign, ResignRule::Chosen);
    assert_eq!(v.early_agreement_pct, 0);
    assert_eq!(v.time_bank_pct, 0);
    assert_eq!(v.mate_verify_ms, 200);
    assert_eq!(v.multipv, 3);
    assert_eq!(v.vote_scoring, VoteScoring::WinRate);
    assert_eq!(v.output_encoding, OutputEncoding::Utf8);
    assert_eq!(v.change_player_plys, 1);
    assert_eq!((v.chuuban_start_plys, v.shuuban_start_plys), (51, 101));
    assert_eq!(v.change_player_score_diff, 100);
    assert_eq!((v.mate_timeout_ms, v.pv_mate_timeout_ms), (10_000, 5_000));
    assert_eq!((v.mate_info_count, v.mate_info_interval_ms), (100, 100));
    assert_eq!((v.leader_nodes, v.leader_margin), (3_000, 50));
    assert_eq!(v.mate_nodes_pct, 100);
}

#[test]
fn declarations_match_the_reference() {
    let lines: Vec<String> = SPECS
        .iter()
        .filter(|s| s.advertised_for(PolicyKind::MatePv))
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "option name G_MateTimeout type spin default 10000 min 1 max 1000000",
            "option name G_PvMateTimeout type spin default 5000 min 1 max 1000000",
            "option name G_MateInfoCount type spin default 100 min 1 max 1000",
            "option name G_MateInfoInterval type spin default 100 min 1 max 100000",
            "option name G_MateNodesPct type spin default 100 min 1 max 100000",
            "option name G_Margin type spin default 60 min 0 max 60000",
            "option name G_NetworkDelay type spin default 300 min 0 max 10000",
            "option name G_MultiPonder type check default false",
            "option name G_InfoRelay type combo default leader var leader var all var none",
            "option name G_Resign type combo default chosen var chosen var all",
            "option name G_EarlyAgreement type spin default 0 min 0 max 100",
            "option name G_TimeBank type spin default 0 min 0 max 90",
            "option name G_MateVerifyMs type spin default 200 min 0 max 10000",
            "option name G_OutputEncoding type combo default UTF-8 var UTF-8 var Shift_JIS",
        ]
    );
    assert_eq!(
        SPECS
            .iter()
            .filter(|s| s.advertised_for(PolicyKind::Majority))
            .count(),
        9
    );
}

#[test]
fn the_mate_guard_advertises_the_mate_types_options() {
    let names = |guard: bool| -> Vec<&str> {
        SPECS
            .iter()
            .filter(|s| s.advertised(PolicyKind::Optimistic, guard))
            .filter(|s| !s.every)
            .map(|s| s.name)
            .collect()
    };
    assert!(names(false).is_empty());
    assert_eq!(names(true), ["G_MateTimeout", "G_MateNodesPct"]);
}

#[test]
fn setting_values() {
    let mut v = GOptions::default();
    assert_eq!(v.change_player_plys, 1);
    v.set("G_ChangePlayerPlys", "4").unwrap();
    assert_eq!(v.change_player_plys, 4);
    assert!(matches!(
        v.set("G_ChangePlayerPlys", "x"),
        Err(SetError::NotANumber { kept: 4, .. })
    ));
    assert!(matches!(
        v.set("G_ChangePlayerPlys", "5000"),
        Err(SetError::Clamped { clamped: 1000, .. })
    ));
    assert_eq!(v.change_player_plys, 1000);
    v.set("G_InfoRelay", "ALL").unwrap();
    assert_eq!(v.info_relay, InfoRelay::All);
    assert!(v.set("G_InfoRelay", "some").is_err());
    assert!(matches!(v.set("G_Nope", "1"), Err(SetError::Unknown(_))));
    assert_eq!(
        v.set("G_Margin", "-5").unwrap_err().to_string(),
        "outside 0..=60000; using 0"
    );
    assert_eq!(v.margin_ms, 0);
    assert_eq!(
        v.set("G_InfoRelay", "bogus").unwrap_err().to_string(),
        "not one of leader, all, none; keeping all"
    );
    assert_eq!(
        v.set("G_Margin", "x").unwrap_err().to_string(),
        "not a number; keeping 0"
    );
    assert!(GOptions::is_own("G_Margin") && !GOptions::is_own("USI_Hash"));
}
