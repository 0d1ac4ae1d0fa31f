//! `SimpleGougi.config` parsing, validation, encodings, command lines and file lookup; and, through
//! the real binary, how config problems reach the GUI and `gougi match`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gougi::config::{
    decode, env_key, locate_in, Builtin, CommandError, Config, ConfigError, PolicyKind, Problem,
    CONFIG_NAMES, DEFAULT_PV_MATE_COUNT,
};
use gougi::member::NodesRule;

/// A fresh, empty folder under the system temp dir (removed on drop).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "gougi-config-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
    /// Writes an executable script at `rel`.
    fn exe(&self, rel: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        p
    }
    fn write(&self, name: &str, text: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Parses `text` as if it were `<dir>/SimpleGougi.config`.
fn parse_in(dir: &TempDir, text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, &dir.path().join("SimpleGougi.config"))
}

/// The error's Display, after checking it is an `Invalid` at `line` for `key`.
fn invalid(dir: &TempDir, text: &str, line: usize, key: &str) -> (Problem, String) {
    let err = parse_in(dir, text).expect_err("config should be rejected");
    let shown = err.to_string();
    let prefix = if line == 0 {
        format!("SimpleGougi.config: {key}: ")
    } else {
        format!("SimpleGougi.config:{line}: {key}: ")
    };
    assert!(shown.contains(&prefix), "{shown:?} lacks {prefix:?}");
    match err {
        ConfigError::Invalid {
            line: l,
            key: k,
            problem,
            ..
        } => {
            assert_eq!((l, k.as_str()), (line, key));
            (problem, shown)
        }
        other => panic!("not Invalid: {other:?}"),
    }
}

#[test]
fn every_key() {
    let dir = TempDir::new();
    let e1 = dir.exe("engines/one/yane");
    dir.exe("mate/solver");
    let text = "\
# comment
Gougi.Type=mate-pv
Gougi.Name=MyGougi 1.0
Engine1.Path=engines/one/yane
Engine1.Name=Yane
Engine1.Weight=2.5
MateEngine.Path=mate/solver --threads 2
MateEngine.forPV.Count=2
Log.File=logs/gougi.log
Log.Level=debug
";
    let c = parse_in(&dir, text).unwrap();
    assert_eq!(c.policy, PolicyKind::MatePv);
    assert_eq!(c.name.as_deref(), Some("MyGougi 1.0"));
    assert_eq!(c.engines.len(), 1);
    let e = &c.engines[0];
    assert_eq!(e.number, 1);
    assert_eq!(e.line, 4);
    assert_eq!(e.name.as_deref(), Some("Yane"));
    assert_eq!(e.weight, 2.5);
    assert_eq!(e.command.program, e1);
    assert!(e.command.args.is_empty());
    assert_eq!(
        e.command.working_dir.as_deref(),
        Some(dir.path().join("engines/one").as_path())
    );
    let m = c.mate_engine.as_ref().unwrap();
    assert_eq!(m.program, dir.path().join("mate/solver"));
    assert_eq!(m.args, vec!["--threads", "2"]);
    assert_eq!(c.pv_mate_count, 2);
    assert_eq!(c.pv_mate_numbers(), vec![11, 12]);
    assert_eq!(c.log_file, Some(dir.path().join("logs/gougi.log")));
    assert_eq!(c.log_level, Some(tracing::Level::DEBUG));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn defaults() {
    let dir = TempDir::new();
    let c = parse_in(&dir, "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n").unwrap();
    assert_eq!(c.engines[0].weight, 1.0);
    assert_eq!(c.engines[0].name, None);
    assert_eq!(c.pv_mate_count, 3);
    assert_eq!(c.name, None);
    assert_eq!(c.log_file, None);
    assert_eq!(c.log_level, None);
    assert!(c.mate_engine.is_none());
    assert!(c.pv_mate_numbers().is_empty());
}

#[test]
fn both_names_for_every_type() {
    let expected = [
        ("majority", "多数決合議（3者）"),
        ("optimistic", "楽観合議"),
        ("pessimistic", "悲観合議"),
        ("alternate", "楽観合議と悲観合議を交互"),
        ("rise-optimistic", "2手前の評価値からの上昇分の楽観合議"),
        ("rise-pessimistic", "2手前の評価値からの上昇分の悲観合議"),
        (
            "exchange",
            "各々の最善手を交換して評価値の合計で判定（2者）",
        ),
        ("change-every", "数手ごとに対局者交代"),
        ("by-phase", "序盤・中盤・終盤で対局者交代"),
        (
            "change-on-drop",
            "2手前の評価値から一定値以上下降したら対局者交代",
        ),
        (
            "change-on-rise",
            "2手前の評価値から一定値以上上昇したら対局者交代",
        ),
        ("mate", "詰探索エンジンとの合議"),
        ("mate-sfen", "詰探索エンジンとの合議（「脊尾詰」対応版）"),
        ("mate-pv", "詰探索エンジンとの合議（読み筋の局面も詰探索）"),
        // gougi's own.
        ("weighted-optimistic", "重み付き楽観合議"),
        ("multipv-vote", "候補手投票合議"),
        ("leader", "リーダー合議"),
        ("split", "最善手予測分割"),
    ];
    assert_eq!(PolicyKind::ALL.len(), expected.len());
    let dir = TempDir::new();
    for (kind, (id, ja)) in PolicyKind::ALL.iter().zip(expected) {
        assert_eq!(kind.id(), id);
        assert_eq!(kind.to_string(), id);
        assert_eq!(kind.japanese_name(), ja);
        assert_eq!(id.parse::<PolicyKind>().unwrap(), *kind);
        assert_eq!(ja.parse::<PolicyKind>().unwrap(), *kind);
        assert_eq!(format!("  {ja}\t").parse::<PolicyKind>().unwrap(), *kind);
        // Through a whole config with the right number of engines.
        let (min, _) = kind.engine_count();
        let mut text = String::new();
        for n in 1..=min.max(1) {
            text += &format!("Engine{n}.Path=builtin:search\n");
        }
        if kind.needs_mate_engine() {
            text += "MateEngine.Path=builtin:mate\n";
        }
        for name in [id, ja] {
            let c = parse_in(&dir, &format!("Gougi.Type={name}\n{text}")).unwrap();
            assert_eq!(c.policy, *kind, "{name}");
        }
    }
    // Half-width parentheses are not the original's string.
    assert!("多数決合議(3者)".parse::<PolicyKind>().is_err());
    assert!("Majority".parse::<PolicyKind>().is_err());
}

#[test]
fn cp932_file() {
    let dir = TempDir::new();
    let text = "# 合議タイプの設定\nGougi.Type=詰探索エンジンとの合議（「脊尾詰」対応版）\n\
                Engine1.Path=builtin:search\nEngine1.Name=やねうら王\nMateEngine.Path=builtin:mate\n";
    let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(text);
    assert!(!bad);
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the test needs non-UTF-8 bytes"
    );
    let path = dir.write("GougiShogi.config", &bytes);
    let c = Config::load(&path).unwrap();
    assert_eq!(c.policy, PolicyKind::MateSfen);
    assert_eq!(c.engines[0].name.as_deref(), Some("やねうら王"));
    assert_eq!(decode(&bytes), text);
}

#[test]
fn utf8_with_bom_and_crlf() {
    let dir = TempDir::new();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice("Gougi.Type=楽観合議\r\nEngine1.Path=builtin:search\r\n".as_bytes());
    let path = dir.write("SimpleGougi.config", &bytes);
    let c = Config::load(&path).unwrap();
    assert_eq!(c.policy, PolicyKind::Optimistic);
    assert_eq!(c.engines[0].command.builtin, Some(Builtin::Search));
}

#[test]
fn free_text_comments_and_spaces_around_equals() {
    let dir = TempDir::new();
    let text = "\
######## GougiShogi設定ファイル
ここは説明文です。
a sentence with = in it is prose, not a key

   Gougi.Type = majority
Engine1.Path=builtin:search
  Engine2.Path =builtin:search --extra 'two words'
";
    let c = parse_in(&dir, text).unwrap();
    assert_eq!(c.policy, PolicyKind::Majority);
    assert_eq!(c.engines[1].number, 2);
    assert_eq!(c.engines[1].line, 7);
    assert_eq!(
        c.engines[1].command.args,
        vec!["search", "--extra", "two words"]
    );
}

#[test]
fn builtins_run_this_executable() {
    let dir = TempDir::new();
    let c = parse_in(
        &dir,
        "Gougi.Type=mate\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n",
    )
    .unwrap();
    let exe = std::env::current_exe().unwrap();
    let s = &c.engines[0].command;
    assert_eq!(s.program, exe);
    assert_eq!(s.args, vec!["search"]);
    assert_eq!(s.working_dir, None);
    assert_eq!(s.builtin, Some(Builtin::Search));
    let m = c.mate_engine.as_ref().unwrap();
    assert_eq!(m.args, vec!["mate"]);
    assert_eq!(m.builtin, Some(Builtin::Mate));
}

#[test]
fn many_engines_sorted_with_gaps() {
    let dir = TempDir::new();
    let mut text = String::from("Gougi.Type=majority\n");
    for n in [12, 3, 1, 25, 7, 11, 2, 4, 5, 6, 8, 9] {
        text += &format!("Engine{n}.Path=builtin:search\n");
    }
    let c = parse_in(&dir, &text).unwrap();
    let numbers: Vec<u32> = c.engines.iter().map(|e| e.number).collect();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 25]);
}

#[test]
fn pv_mate_numbers_avoid_normal_members() {
    let dir = TempDir::new();
    let c = parse_in(
        &dir,
        "Gougi.Type=mate-pv\nEngine14.Path=builtin:search\nMateEngine.Path=builtin:mate\n\
         MateEngine.forPV.Count=2\n",
    )
    .unwrap();
    assert_eq!(c.pv_mate_numbers(), vec![15, 16]);
    let c = parse_in(
        &dir,
        "Gougi.Type=mate-pv\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n\
         MateEngine.forPV.Count=0\n",
    )
    .unwrap();
    assert!(c.pv_mate_numbers().is_empty());
}

#[test]
fn command_lines() {
    let dir = TempDir::new();
    let spaced = dir.exe("my engines/Yane Ura/yane ura");
    dir.exe("local-engine");
    // A quoted path with spaces and arguments.
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=\"my engines/Yane Ura/yane ura\" -x 'a b'\n",
    )
    .unwrap();
    let e = &c.engines[0].command;
    assert_eq!(e.program, spaced);
    assert_eq!(e.args, vec!["-x", "a b"]);
    assert_eq!(e.working_dir.as_deref(), spaced.parent());
    // The original's form: the whole unquoted value is the program.
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=my engines/Yane Ura/yane ura\n",
    )
    .unwrap();
    assert_eq!(c.engines[0].command.program, spaced);
    assert!(c.engines[0].command.args.is_empty());
    // An absolute path.
    let c = parse_in(
        &dir,
        &format!(
            "Gougi.Type=optimistic\nEngine1.Path='{}' --flag\n",
            spaced.display()
        ),
    )
    .unwrap();
    assert_eq!(c.engines[0].command.program, spaced);
    assert_eq!(c.engines[0].command.args, vec!["--flag"]);
    // A bare name in the config's folder wins over PATH.
    let c = parse_in(&dir, "Gougi.Type=optimistic\nEngine1.Path=local-engine\n").unwrap();
    assert_eq!(
        c.engines[0].command.program,
        dir.path().join("local-engine")
    );
    assert_eq!(
        c.engines[0].command.working_dir.as_deref(),
        Some(dir.path())
    );
    // A remote member: the program is found on PATH and kept as written.
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=sh -c 'exec ssh -T host /opt/YaneuraOu/YaneuraOu-by-gcc'\n",
    )
    .unwrap();
    let e = &c.engines[0].command;
    assert_eq!(e.program, PathBuf::from("sh"));
    assert_eq!(
        e.args,
        vec!["-c", "exec ssh -T host /opt/YaneuraOu/YaneuraOu-by-gcc"]
    );
    assert_eq!(e.working_dir, None);
    assert_eq!(e.builtin, None);
}

#[test]
fn same_value_repeat_is_a_warning() {
    let dir = TempDir::new();
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nGougi.Type=楽観合議\nGougi.Type=optimistic\n",
    )
    .unwrap();
    // The Japanese name and the id are the same value.
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert_eq!(c.warnings[0].line, 3);
    assert_eq!(
        c.warnings[1].to_string(),
        format!(
            "{}:4: Gougi.Type: repeated (first on line 1); same value, ignored",
            dir.path().join("SimpleGougi.config").display()
        )
    );
}

#[test]
fn ignored_keys_warn() {
    let dir = TempDir::new();
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n\
         MateEngine.forPV.Count=4\n",
    )
    .unwrap();
    let keys: Vec<(usize, &str)> = c
        .warnings
        .iter()
        .map(|w| (w.line, w.key.as_str()))
        .collect();
    assert_eq!(
        keys,
        vec![(3, "MateEngine.Path"), (4, "MateEngine.forPV.Count")]
    );
}

const OK: &str = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n";

#[test]
fn error_unknown_key_with_hint() {
    let dir = TempDir::new();
    let (p, shown) = invalid(
        &dir,
        &format!("{OK}Engin2.Path=builtin:search\n"),
        3,
        "Engin2.Path",
    );
    assert_eq!(
        p,
        Problem::UnknownKey {
            hint: Some("Engine2.Path".into())
        }
    );
    assert!(
        shown.ends_with("unknown key (did you mean Engine2.Path?)"),
        "{shown}"
    );
    let (p, _) = invalid(&dir, &format!("gougi.type=majority\n{OK}"), 1, "gougi.type");
    assert_eq!(
        p,
        Problem::UnknownKey {
            hint: Some("Gougi.Type".into())
        }
    );
    let (p, _) = invalid(&dir, &format!("{OK}Engine1.Paht=x\n"), 3, "Engine1.Paht");
    assert_eq!(
        p,
        Problem::UnknownKey {
            hint: Some("Engine1.Path".into())
        }
    );
    let (p, _) = invalid(&dir, &format!("{OK}Other.Thing=1\n"), 3, "Other.Thing");
    assert_eq!(p, Problem::UnknownKey { hint: None });
}

#[test]
fn error_duplicate() {
    let dir = TempDir::new();
    let (p, shown) = invalid(
        &dir,
        &format!("{OK}Gougi.Type=pessimistic\n"),
        3,
        "Gougi.Type",
    );
    assert_eq!(p, Problem::Duplicate { first_line: 1 });
    assert!(shown.contains("first on line 1"), "{shown}");
    let (p, _) = invalid(
        &dir,
        &format!("{OK}MateEngine.forPV.Count=1\nMateEngine.forPV.Count=2\n"),
        4,
        "MateEngine.forPV.Count",
    );
    assert_eq!(p, Problem::Duplicate { first_line: 3 });
}

#[test]
fn error_empty_value() {
    let dir = TempDir::new();
    let (p, _) = invalid(&dir, &format!("{OK}Engine2.Path=  \n"), 3, "Engine2.Path");
    assert_eq!(p, Problem::Empty);
}

#[test]
fn error_type() {
    let dir = TempDir::new();
    let (p, shown) = invalid(
        &dir,
        "Gougi.Type=多数決合議(3者)\nEngine1.Path=builtin:search\n",
        1,
        "Gougi.Type",
    );
    assert_eq!(
        p,
        Problem::UnknownType {
            value: "多数決合議(3者)".into()
        }
    );
    // The message lists every valid name, both forms.
    for k in PolicyKind::ALL {
        assert!(
            shown.contains(k.id()) && shown.contains(k.japanese_name()),
            "{shown}"
        );
    }
    let (p, _) = invalid(&dir, "Engine1.Path=builtin:search\n", 0, "Gougi.Type");
    assert_eq!(p, Problem::NoType);
}

#[test]
fn error_no_engines() {
    let dir = TempDir::new();
    let (p, _) = invalid(&dir, "Gougi.Type=majority\n", 0, "Engine1.Path");
    assert_eq!(p, Problem::NoEngines);
}

#[test]
fn error_engine_counts() {
    let dir = TempDir::new();
    let engines = |n: u32| -> String {
        (1..=n)
            .map(|i| format!("Engine{i}.Path=builtin:search\n"))
            .collect()
    };
    let cases = [
        ("majority", 1, "at least 2"),
        ("exchange", 1, "exactly 2"),
        ("exchange", 3, "exactly 2"),
        ("by-phase", 2, "exactly 3"),
        ("by-phase", 4, "exactly 3"),
        ("mate", 2, "exactly 1"),
        ("mate-sfen", 2, "exactly 1"),
        ("mate-pv", 2, "exactly 1"),
    ];
    for (ty, n, expected) in cases {
        let text = format!(
            "Gougi.Type={ty}\n{}MateEngine.Path=builtin:mate\n",
            engines(n)
        );
        let (p, shown) = invalid(&dir, &text, 1, "Gougi.Type");
        assert_eq!(
            p,
            Problem::EngineCount {
                policy: ty.parse().unwrap(),
                expected: expected.into(),
                found: n as usize
            },
            "{shown}"
        );
        assert!(
            shown.ends_with(&format!("type {ty} needs {expected} engine(s), found {n}")),
            "{shown}"
        );
    }
    // Majority of two is fine in gougi (the original needed exactly 3).
    parse_in(&dir, &format!("Gougi.Type=majority\n{}", engines(2))).unwrap();
    parse_in(&dir, &format!("Gougi.Type=majority\n{}", engines(5))).unwrap();
}

#[test]
fn error_no_mate_engine() {
    let dir = TempDir::new();
    for ty in ["mate", "mate-sfen", "mate-pv"] {
        let text = format!("\nGougi.Type={ty}\nEngine1.Path=builtin:search\n");
        let (p, shown) = invalid(&dir, &text, 2, "MateEngine.Path");
        assert_eq!(
            p,
            Problem::NoMateEngine {
                policy: ty.parse().unwrap()
            }
        );
        assert!(shown.ends_with(&format!("type {ty} needs MateEngine.Path")));
    }
}

#[test]
fn error_engine_fields() {
    let dir = TempDir::new();
    let (p, _) = invalid(&dir, &format!("{OK}Engine3.Name=x\n"), 3, "Engine3.Name");
    assert_eq!(p, Problem::NoPath { number: 3 });
    let (p, _) = invalid(
        &dir,
        &format!("{OK}Engine0.Path=builtin:search\n"),
        3,
        "Engine0.Path",
    );
    assert_eq!(p, Problem::EngineZero);
    for bad in ["abc", "0", "-1", "inf", "NaN"] {
        let (p, _) = invalid(
            &dir,
            &format!("{OK}Engine1.Weight={bad}\n"),
            3,
            "Engine1.Weight",
        );
        assert_eq!(p, Problem::BadWeight { value: bad.into() });
    }
    let c = parse_in(&dir, &format!("{OK}Engine1.Weight=0.5\n")).unwrap();
    assert_eq!(c.engines[0].weight, 0.5);
    for bad in ["x", "0", "-600", "inf"] {
        let (p, _) = invalid(
            &dir,
            &format!("{OK}Engine1.Scale={bad}\n"),
            3,
            "Engine1.Scale",
        );
        assert_eq!(p, Problem::BadScale { value: bad.into() });
    }
    let c = parse_in(&dir, &format!("{OK}Engine1.Scale=741\n")).unwrap();
    assert_eq!(c.engines[0].scale, Some(741.0));
    assert_eq!(parse_in(&dir, OK).unwrap().engines[0].scale, None);
    let c = parse_in(&dir, &format!("{OK}Engine1.ScoreView=black\n")).unwrap();
    assert!(c.engines[0].black_view_scores);
    assert!(!parse_in(&dir, OK).unwrap().engines[0].black_view_scores);
    let (p, _) = invalid(
        &dir,
        &format!("{OK}Engine1.ScoreView=white\n"),
        3,
        "Engine1.ScoreView",
    );
    assert_eq!(
        p,
        Problem::BadScoreView {
            value: "white".into()
        }
    );
    let (p, _) = invalid(
        &dir,
        &format!("{OK}Engine4.Scale=600\n"),
        3,
        "Engine4.Scale",
    );
    assert_eq!(p, Problem::NoPath { number: 4 });
}

#[test]
fn error_numbers_and_levels() {
    let dir = TempDir::new();
    let (p, _) = invalid(
        &dir,
        &format!("{OK}MateEngine.forPV.Count=three\n"),
        3,
        "MateEngine.forPV.Count",
    );
    assert_eq!(
        p,
        Problem::BadNumber {
            value: "three".into()
        }
    );
    let (p, _) = invalid(&dir, &format!("{OK}Log.Level=loud\n"), 3, "Log.Level");
    assert_eq!(
        p,
        Problem::BadLevel {
            value: "loud".into()
        }
    );
    for level in ["error", "WARN", "info", "debug", "trace"] {
        parse_in(&dir, &format!("{OK}Log.Level={level}\n")).unwrap();
    }
}

#[test]
fn error_command_lines() {
    let dir = TempDir::new();
    let head = "Gougi.Type=optimistic\n";
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Path=\"unclosed path\n"),
        2,
        "Engine1.Path",
    );
    assert!(matches!(
        p,
        Problem::Command(CommandError::UnbalancedQuote { .. })
    ));
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Path=builtin:bogus\n"),
        2,
        "Engine1.Path",
    );
    assert!(matches!(
        p,
        Problem::Command(CommandError::UnknownBuiltin { .. })
    ));
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Path=builtin:\n"),
        2,
        "Engine1.Path",
    );
    assert!(matches!(
        p,
        Problem::Command(CommandError::UnknownBuiltin { .. })
    ));

    let (p, shown) = invalid(
        &dir,
        &format!("{head}Engine2.Path=/x/y\n"),
        2,
        "Engine2.Path",
    );
    assert_eq!(
        p,
        Problem::Command(CommandError::NoSuchFile {
            path: "/x/y".into()
        })
    );
    assert!(
        shown.ends_with("SimpleGougi.config:2: Engine2.Path: no such file: /x/y"),
        "{shown}"
    );
    // Relative to the config's folder, not the working directory.
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Path=engines/yane -x\n"),
        2,
        "Engine1.Path",
    );
    assert_eq!(
        p,
        Problem::Command(CommandError::NoSuchFile {
            path: dir.path().join("engines/yane")
        })
    );
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Path=no-such-program-gougi-test arg\n"),
        2,
        "Engine1.Path",
    );
    assert_eq!(
        p,
        Problem::Command(CommandError::NotOnPath {
            program: "no-such-program-gougi-test".into()
        })
    );
    #[cfg(unix)]
    {
        dir.write("plain.txt", b"not a program");
        let (p, _) = invalid(
            &dir,
            &format!("{head}Engine1.Path=./plain.txt\n"),
            2,
            "Engine1.Path",
        );
        assert_eq!(
            p,
            Problem::Command(CommandError::NotExecutable {
                path: dir.path().join("plain.txt")
            })
        );
    }
    let (p, _) = invalid(
        &dir,
        "Gougi.Type=mate\nEngine1.Path=builtin:search\nMateEngine.Path=./nope\n",
        3,
        "MateEngine.Path",
    );
    assert!(matches!(
        p,
        Problem::Command(CommandError::NoSuchFile { .. })
    ));
}

#[test]
fn locate_order() {
    let exe = TempDir::new();
    let cwd = TempDir::new();
    let other = TempDir::new();
    // Nothing anywhere.
    match locate_in(None, None, Some(exe.path()), cwd.path()) {
        Err(ConfigError::NotFound { searched }) => assert_eq!(searched.len(), 6),
        other => panic!("{other:?}"),
    }
    // An original name in the working directory.
    let cwd_old = cwd.write("GougiShogi.config", b"");
    assert_eq!(
        locate_in(None, None, Some(exe.path()), cwd.path()).unwrap(),
        cwd_old
    );
    // The executable's folder beats the working directory, and names keep their order.
    let exe_oldest = exe.write(CONFIG_NAMES[2], b"");
    assert_eq!(
        locate_in(None, None, Some(exe.path()), cwd.path()).unwrap(),
        exe_oldest
    );
    let exe_new = exe.write(CONFIG_NAMES[0], b"");
    assert_eq!(
        locate_in(None, None, Some(exe.path()), cwd.path()).unwrap(),
        exe_new
    );
    // The environment beats both; --config beats the environment.
    let env = other.write("env.config", b"");
    let cli = other.write("cli.config", b"");
    assert_eq!(
        locate_in(None, Some(&env), Some(exe.path()), cwd.path()).unwrap(),
        env
    );
    assert_eq!(
        locate_in(Some(&cli), Some(&env), Some(exe.path()), cwd.path()).unwrap(),
        cli
    );
    // A relative explicit path is taken from the working directory.
    let rel = cwd.write("rel.config", b"");
    assert_eq!(
        locate_in(Some(Path::new("rel.config")), None, None, cwd.path()).unwrap(),
        rel
    );
    // A missing explicit file is an error, even though defaults exist.
    let missing = other.path().join("missing.config");
    let err = locate_in(Some(&missing), None, Some(exe.path()), cwd.path()).unwrap_err();
    assert!(matches!(err, ConfigError::Missing { .. }));
    assert_eq!(
        err.to_string(),
        format!("config file not found: {}", missing.display())
    );
    assert!(locate_in(None, Some(&missing), Some(exe.path()), cwd.path()).is_err());
}

#[test]
fn load_missing_file_is_io_error() {
    let dir = TempDir::new();
    let err = Config::load(&dir.path().join("none.config")).unwrap_err();
    assert!(matches!(err, ConfigError::Io { .. }));
    assert!(err.to_string().contains("none.config: cannot read"));
}

#[test]
fn shipped_example_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("SimpleGougi.config");
    let c = Config::load(&path).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert!(c.engines.iter().all(|e| e.command.builtin.is_some()));
    // Every type, in both names, is listed in the shipped file.
    let text = std::fs::read_to_string(&path).unwrap();
    for k in PolicyKind::ALL {
        assert!(text.contains(k.japanese_name()), "{}", k.japanese_name());
        assert!(text.contains(k.id()), "{}", k.id());
    }
}

#[test]
fn mate_pv_count_is_capped() {
    let dir = TempDir::new();
    let head = "Gougi.Type=mate-pv\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n";
    for n in [0, 16] {
        let c = parse_in(&dir, &format!("{head}MateEngine.forPV.Count={n}\n")).unwrap();
        assert_eq!(c.pv_mate_count, n);
    }
    let (p, shown) = invalid(
        &dir,
        &format!("{head}MateEngine.forPV.Count=100000\n"),
        4,
        "MateEngine.forPV.Count",
    );
    assert_eq!(p, Problem::TooManyPvMates { value: 100000 });
    assert!(shown.contains("at most 16"), "{shown}");
}

#[test]
fn free_text_warns_and_keylike_lines_without_equals_are_errors() {
    let dir = TempDir::new();
    let text = "\
ここは説明文です。
[Engines]
Gougi.Type=optimistic
a sentence with = in it is prose, not a key
Engine1.Path=builtin:search
";
    let c = parse_in(&dir, text).unwrap();
    let lines: Vec<usize> = c.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, vec![1, 2, 4], "{:?}", c.warnings);
    let shown = c.warnings[1].to_string();
    assert!(
        shown.ends_with("SimpleGougi.config:2: ignored: no \"=\", not a setting (start comments with #): \"[Engines]\""),
        "{shown}"
    );
    for (line, key) in [
        ("Engine2.Path builtin:search", "Engine2.Path"),
        ("Engine2.Path:builtin:search", "Engine2.Path"),
        ("Gougi.Name", "Gougi.Name"),
        ("Engin2.Path builtin:search", "Engin2.Path"),
    ] {
        let (p, _) = invalid(
            &dir,
            &format!("Gougi.Type=optimistic\nEngine1.Path=builtin:search\n{line}\n"),
            3,
            key,
        );
        assert_eq!(p, Problem::NoEquals, "{line}");
    }
}

#[test]
fn ponder_and_nodes_per_engine() {
    let dir = TempDir::new();
    let head = "Gougi.Type=majority\nEngine1.Path=builtin:search\nEngine2.Path=builtin:search\n";
    let c = parse_in(&dir, head).unwrap();
    assert!(c
        .engines
        .iter()
        .all(|e| e.ponder && e.nodes == NodesRule::Gui));
    let c = parse_in(
        &dir,
        &format!("{head}Engine1.Ponder=false\nEngine1.Nodes=OFF\nEngine2.Ponder=True\nEngine2.Nodes=20000\n"),
    )
    .unwrap();
    assert_eq!(
        c.engines
            .iter()
            .map(|e| (e.ponder, e.nodes))
            .collect::<Vec<_>>(),
        vec![(false, NodesRule::Off), (true, NodesRule::Fixed(20000))]
    );
    for bad in ["no", "1"] {
        let (p, _) = invalid(
            &dir,
            &format!("{head}Engine2.Ponder={bad}\n"),
            4,
            "Engine2.Ponder",
        );
        assert_eq!(p, Problem::BadPonder { value: bad.into() });
    }
    for bad in ["0", "-5", "many", "1.5"] {
        let (p, shown) = invalid(
            &dir,
            &format!("{head}Engine1.Nodes={bad}\n"),
            4,
            "Engine1.Nodes",
        );
        assert_eq!(p, Problem::BadNodes { value: bad.into() });
        assert!(shown.contains("1 or more, or off"), "{shown}");
    }
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine3.Nodes=100\n"),
        4,
        "Engine3.Nodes",
    );
    assert_eq!(p, Problem::NoPath { number: 3 });
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.ponder=false\n"),
        4,
        "Engine1.ponder",
    );
    assert_eq!(
        p,
        Problem::UnknownKey {
            hint: Some("Engine1.Ponder".into())
        }
    );
}

#[test]
fn log_file_that_cannot_be_opened_names_its_line() {
    let dir = TempDir::new();
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nLog.File=missing/gougi.log\n",
    )
    .unwrap();
    assert_eq!(c.log_file_line, 3);
    let e = c.open_log_file().unwrap_err().to_string();
    let want = format!(
        "SimpleGougi.config:3: Log.File: cannot open {}: ",
        dir.path().join("missing/gougi.log").display()
    );
    assert!(e.contains(&want), "{e}");
    let c = parse_in(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nLog.File=gougi.log\n",
    )
    .unwrap();
    assert!(c.open_log_file().unwrap().is_some());
    assert!(dir.path().join("gougi.log").is_file());
}

// Through the real binary.

const MEMBER: &str = "usi: usiok\nisready: readyok\ngo: bestmove 7g7f\n";

/// gougi on `config`: the first line it prints after `usi`, its exit status, and whether it
/// said `usiok`.
fn start_failure(config: &Path) -> (String, Option<i32>, bool) {
    let mut gougi = common::Gougi::with_config(config);
    gougi.send("usi");
    let first = gougi.next(Duration::from_secs(20)).unwrap_or_default();
    let code = gougi.wait_exit(Duration::from_secs(10));
    while gougi.next(Duration::from_millis(100)).is_some() {}
    let usiok = gougi.seen.iter().any(|l| l == "usiok");
    (first, code, usiok)
}

#[test]
fn binary_a_setting_without_equals_stops_gougi_with_its_line() {
    let dir = common::scratch_dir("noequals");
    let config = common::mock_config(&dir, "optimistic", &[MEMBER], None, "");
    let mock = common::mock_engine_path();
    let script = dir.join("member1.txt");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text += &format!("Engine2.Path {} {}\n", mock.display(), script.display());
    std::fs::write(&config, text).unwrap();
    let (first, code, usiok) = start_failure(&config);
    assert!(
        first.starts_with("info string [Error] ")
            && first.contains("SimpleGougi.config:3: Engine2.Path: no \"=\""),
        "{first}"
    );
    assert_eq!((code, usiok), (Some(1), false));
}

#[test]
fn binary_free_text_is_a_warning_the_gui_sees() {
    let dir = common::scratch_dir("freetext");
    let config = common::mock_config(&dir, "optimistic", &[MEMBER], None, "説明文です\n");
    let mut gougi = common::Gougi::with_config(&config);
    gougi.send("usi");
    let lines = gougi.until_prefix("usiok");
    let want = format!(
        "info string [Warning] {}:3: ignored: no \"=\", not a setting (start comments with #): \"説明文です\"",
        config.display()
    );
    assert!(lines.contains(&want), "{lines:#?}");
}

#[test]
fn binary_log_file_in_a_missing_folder_is_a_config_error() {
    let dir = common::scratch_dir("logfile");
    let config = common::mock_config(
        &dir,
        "optimistic",
        &[MEMBER],
        None,
        "Log.File=no/such/folder/gougi.log\n",
    );
    let (first, code, usiok) = start_failure(&config);
    let want = format!(
        "info string [Error] {}:3: Log.File: cannot open {}: ",
        config.display(),
        dir.join("no/such/folder/gougi.log").display()
    );
    assert!(first.starts_with(&want), "{first}\nwanted {want}");
    assert_eq!((code, usiok), (Some(1), false));
}

#[test]
fn binary_match_shows_a_broken_configs_message() {
    let dir = common::scratch_dir("matchconfig");
    let broken = dir.join("broken.config");
    std::fs::write(
        &broken,
        "Gougi.Type=optimistic\nEngine1.Path=no/such/engine\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gougi"))
        .args([
            "match",
            "--quiet",
            "--no-files",
            "--byoyomi",
            "100",
            "--engine",
        ])
        .arg(format!("config={}", broken.display()))
        .args(["--engine", "cmd=builtin:search"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let want = format!(
        "broken.config:2: Engine1.Path: no such file: {}",
        dir.join("no/such/engine").display()
    );
    assert!(err.contains(&want), "{err}\nwanted {want}");
}

#[test]
fn binary_bad_setoption_values_get_a_warning() {
    let dir = common::scratch_dir("setoption");
    let config = common::mock_config(&dir, "optimistic", &[MEMBER], None, "");
    let mut gougi = common::Gougi::with_config(&config);
    gougi.handshake();
    gougi.send("setoption name G_Margin value -5");
    gougi.send("setoption name G_InfoRelay value bogus");
    gougi.send("setoption name G_Margin value 200");
    gougi.send("isready");
    let lines = gougi.until(Duration::from_secs(20), |l| l == "readyok");
    let warnings: Vec<&String> = lines.iter().filter(|l| l.contains("[Warning]")).collect();
    assert_eq!(
        warnings,
        [
            "info string [Warning] setoption G_Margin -5: outside 0..=60000; using 0",
            "info string [Warning] setoption G_InfoRelay bogus: not one of leader, all, none; keeping leader",
        ],
        "{lines:#?}"
    );
}

#[test]
fn min_cores_per_engine() {
    let dir = TempDir::new();
    let head = "Gougi.Type=majority\nEngine1.Path=builtin:search\nEngine2.Path=builtin:search\n";
    let c = parse_in(&dir, head).unwrap();
    assert!(c.engines.iter().all(|e| e.min_cores == 0));
    let specs = c.member_specs();
    assert!(specs.iter().all(|s| s.min_cores == 0));
    let c = parse_in(&dir, &format!("{head}Engine2.MinCores=3\n")).unwrap();
    assert_eq!(
        c.engines.iter().map(|e| e.min_cores).collect::<Vec<_>>(),
        [0, 3]
    );
    assert_eq!(c.member_specs()[1].min_cores, 3);
    for bad in ["0", "-1", "two", "2.5"] {
        let (p, shown) = invalid(
            &dir,
            &format!("{head}Engine1.MinCores={bad}\n"),
            4,
            "Engine1.MinCores",
        );
        assert_eq!(p, Problem::BadMinCores { value: bad.into() });
        assert!(shown.contains("a CPU count of 1 or more"), "{shown}");
    }
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine3.MinCores=2\n"),
        4,
        "Engine3.MinCores",
    );
    assert_eq!(p, Problem::NoPath { number: 3 });
}

/// `MateEngine.MinCores` reaches the guard's mate member; a bad count names the key and line;
/// without the guard (a mate type's mate engine always plays) it is a warning and ignored.
#[test]
fn min_cores_for_the_mate_guard() {
    let dir = TempDir::new();
    let head = "Gougi.Type=leader\nEngine1.Path=builtin:search\nEngine2.Path=builtin:search\n\
                MateEngine.Path=builtin:mate\n";
    let c = parse_in(
        &dir,
        &format!("{head}MateEngine.Guard=true\nMateEngine.MinCores=3\n"),
    )
    .unwrap();
    assert_eq!(c.mate_min_cores, 3);
    let specs = c.member_specs();
    assert_eq!(
        specs
            .iter()
            .map(|s| (s.number, s.min_cores))
            .collect::<Vec<_>>(),
        [(1, 0), (2, 0), (0, 3)]
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    for bad in ["0", "x"] {
        let (p, shown) = invalid(
            &dir,
            &format!("{head}MateEngine.Guard=true\nMateEngine.MinCores={bad}\n"),
            6,
            "MateEngine.MinCores",
        );
        assert_eq!(p, Problem::BadMinCores { value: bad.into() });
        assert!(shown.contains("a CPU count of 1 or more"), "{shown}");
    }
    let c = parse_in(
        &dir,
        "Gougi.Type=mate\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n\
         MateEngine.MinCores=3\n",
    )
    .unwrap();
    assert_eq!(c.mate_min_cores, 0);
    assert!(c.member_specs().iter().all(|s| s.min_cores == 0));
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert_eq!(c.warnings[0].line, 4);
    assert!(
        c.warnings[0]
            .to_string()
            .contains("MateEngine.MinCores: applies to MateEngine.Guard=true only: ignored"),
        "{}",
        c.warnings[0]
    );
}

#[test]
fn binary_accepts_ponder_and_nodes_switches() {
    let dir = common::scratch_dir("switches");
    let config = common::mock_config(
        &dir,
        "optimistic",
        &[MEMBER],
        None,
        "Engine1.Ponder=false\nEngine1.Nodes=off\n",
    );
    let mut gougi = common::Gougi::with_config(&config);
    let lines = gougi.handshake();
    assert!(!lines.iter().any(|l| l.contains("[Error]")), "{lines:#?}");
    let config = common::mock_config(&dir, "optimistic", &[MEMBER], None, "Engine1.Nodes=0\n");
    let (first, code, usiok) = start_failure(&config);
    assert!(
        first.contains(
            "SimpleGougi.config:3: Engine1.Nodes: must be a node count of 1 or more, or off"
        ),
        "{first}"
    );
    assert_eq!((code, usiok), (Some(1), false));
}

#[test]
fn member_options_per_engine() {
    let dir = TempDir::new();
    let head = "Gougi.Type=majority\nEngine1.Path=builtin:search\nEngine2.Path=builtin:search\n";
    let c = parse_in(
        &dir,
        &format!(
            "{head}Engine2.Option.Seed=2\nEngine2.Option.EvalNoise = 50\nEngine1.Option.BookFile=my book.db\n"
        ),
    )
    .unwrap();
    let got: Vec<Vec<(String, String, usize)>> = c
        .engines
        .iter()
        .map(|e| {
            e.options
                .iter()
                .map(|o| (o.name.clone(), o.value.clone(), o.line))
                .collect()
        })
        .collect();
    assert_eq!(
        got,
        vec![
            vec![("BookFile".into(), "my book.db".into(), 6)],
            vec![
                ("Seed".into(), "2".into(), 4),
                ("EvalNoise".into(), "50".into(), 5)
            ],
        ]
    );
    assert_eq!(c.engines[1].options[0].key(2), "Engine2.Option.Seed");
    // The same option twice with another value is a duplicate, like any key.
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine2.Option.Seed=2\nEngine2.Option.Seed=3\n"),
        5,
        "Engine2.Option.Seed",
    );
    assert_eq!(p, Problem::Duplicate { first_line: 4 });
    // …but the same name for two members is two settings.
    assert!(parse_in(
        &dir,
        &format!("{head}Engine1.Option.Seed=1\nEngine2.Option.Seed=1\n")
    )
    .is_ok());
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine3.Option.Seed=3\n"),
        4,
        "Engine3.Option.Seed",
    );
    assert_eq!(p, Problem::NoPath { number: 3 });
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.Option.Seed=\n"),
        4,
        "Engine1.Option.Seed",
    );
    assert_eq!(p, Problem::Empty);
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine0.Option.Seed=1\n"),
        4,
        "Engine0.Option.Seed",
    );
    assert_eq!(p, Problem::EngineZero);
    // No name: not a key, said as a warning like other free text.
    let c = parse_in(&dir, &format!("{head}Engine1.Option.=1\n")).unwrap();
    assert!(c.engines.iter().all(|e| e.options.is_empty()));
    assert_eq!(c.warnings.len(), 1);
    assert_eq!(c.warnings[0].line, 4);
}

/// `Engine<N>.SoloOption.<Name>`: read like `Engine<N>.Option.<Name>` into its own list (the
/// same name may be in both), with the same rules for repeats, orphans and empty values, and the
/// key it names in messages is its own.
#[test]
fn member_solo_options_per_engine() {
    let dir = TempDir::new();
    let head = "Gougi.Type=majority\nEngine1.Path=builtin:search\nEngine2.Path=builtin:search\n";
    let c = parse_in(
        &dir,
        &format!(
            "{head}Engine1.Option.EvalNoise=50\nEngine1.SoloOption.EvalNoise=0\n\
             Engine1.SoloOption.Threads = 2\n"
        ),
    )
    .unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let e1 = &c.engines[0];
    let options = |list: &[gougi::member::MemberOption]| -> Vec<(String, String, usize, bool)> {
        list.iter()
            .map(|o| (o.name.clone(), o.value.clone(), o.line, o.solo))
            .collect()
    };
    assert_eq!(
        options(&e1.options),
        vec![("EvalNoise".into(), "50".into(), 4, false)]
    );
    assert_eq!(
        options(&e1.solo_options),
        vec![
            ("EvalNoise".into(), "0".into(), 5, true),
            ("Threads".into(), "2".into(), 6, true)
        ]
    );
    assert!(c.engines[1].solo_options.is_empty());
    assert_eq!(e1.solo_options[0].key(1), "Engine1.SoloOption.EvalNoise");
    assert_eq!(e1.options[0].key(1), "Engine1.Option.EvalNoise");
    assert_eq!(
        e1.solo_options[0].origin(),
        format!("{}:5", dir.path().join("SimpleGougi.config").display())
    );
    // The member's spec carries them.
    let specs = c.member_specs();
    assert_eq!(specs[0].solo_options, e1.solo_options);
    assert!(specs[1].solo_options.is_empty());

    // The same key twice with another value is a duplicate naming both lines; with the same
    // value, a warning.
    let (p, shown) = invalid(
        &dir,
        &format!("{head}Engine1.SoloOption.EvalNoise=0\nEngine1.SoloOption.EvalNoise=10\n"),
        5,
        "Engine1.SoloOption.EvalNoise",
    );
    assert_eq!(p, Problem::Duplicate { first_line: 4 });
    assert!(shown.contains("first on line 4"), "{shown}");
    let c = parse_in(
        &dir,
        &format!("{head}Engine1.SoloOption.EvalNoise=0\nEngine1.SoloOption.EvalNoise=0\n"),
    )
    .unwrap();
    assert_eq!(c.engines[0].solo_options.len(), 1);
    assert_eq!(
        (
            c.warnings.len(),
            c.warnings[0].line,
            c.warnings[0].key.as_str()
        ),
        (1, 5, "Engine1.SoloOption.EvalNoise")
    );
    // A member without Path: the orphan error, at the earliest of its option lines.
    let (p, shown) = invalid(
        &dir,
        &format!("{head}Engine3.SoloOption.EvalNoise=0\nEngine3.Option.EvalNoise=50\n"),
        4,
        "Engine3.SoloOption.EvalNoise",
    );
    assert_eq!(p, Problem::NoPath { number: 3 });
    assert!(shown.contains("Engine3.Path"), "{shown}");
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine3.Option.EvalNoise=50\nEngine3.SoloOption.EvalNoise=0\n"),
        4,
        "Engine3.Option.EvalNoise",
    );
    assert_eq!(p, Problem::NoPath { number: 3 });
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine1.SoloOption.Threads=\n"),
        4,
        "Engine1.SoloOption.Threads",
    );
    assert_eq!(p, Problem::Empty);
    let (p, _) = invalid(
        &dir,
        &format!("{head}Engine0.SoloOption.Threads=1\n"),
        4,
        "Engine0.SoloOption.Threads",
    );
    assert_eq!(p, Problem::EngineZero);
    // A misspelt table is an error with the right spelling as its hint.
    let (p, shown) = invalid(
        &dir,
        &format!("{head}Engine1.SoloOptions.Threads=2\n"),
        4,
        "Engine1.SoloOptions.Threads",
    );
    assert_eq!(
        p,
        Problem::UnknownKey {
            hint: Some("Engine1.SoloOption.Threads".into())
        }
    );
    assert!(shown.contains("Engine1.SoloOption.Threads"), "{shown}");
    // No name: free text, as for Option.
    let c = parse_in(&dir, &format!("{head}Engine1.SoloOption.=1\n")).unwrap();
    assert!(c.engines.iter().all(|e| e.solo_options.is_empty()));
    assert_eq!(c.warnings.len(), 1);
}

/// Every per-member key of a member without `Engine<N>.Path` is an error, the last field
/// (`HideOptions`) too.
#[test]
fn every_orphan_field_is_an_error() {
    let dir = TempDir::new();
    let head = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n";
    for field in [
        "Name=x",
        "MinCores=2",
        "ShowOptions=^Eval",
        "HideOptions=^Book",
    ] {
        let key = format!("Engine2.{}", field.split('=').next().unwrap());
        let (p, _) = invalid(&dir, &format!("{head}Engine2.{field}\n"), 3, &key);
        assert_eq!(p, Problem::NoPath { number: 2 }, "{field}");
    }
}

#[test]
fn mate_guard_runs_the_mate_engine_beside_any_type() {
    let dir = TempDir::new();
    let head = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\n";
    // Without the guard a non-mate type ignores the mate engine, with a warning.
    let c = parse_in(&dir, head).unwrap();
    assert!(!c.mate_guard && !c.runs_mate_engine());
    assert!(
        c.warnings
            .iter()
            .any(|w| w.key == "MateEngine.Path" && w.message.contains("ignored by type")),
        "{:?}",
        c.warnings
    );
    let c = parse_in(&dir, &format!("{head}MateEngine.Guard=TRUE\n")).unwrap();
    assert!(c.mate_guard && c.runs_mate_engine());
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // The mate types run it anyway; the guard is theirs already.
    let c = parse_in(
        &dir,
        "Gougi.Type=mate\nEngine1.Path=builtin:search\nMateEngine.Path=builtin:mate\nMateEngine.Guard=true\n",
    )
    .unwrap();
    assert!(!c.mate_guard && c.runs_mate_engine());
    let (p, _) = invalid(
        &dir,
        &format!("{head}MateEngine.Guard=yes\n"),
        4,
        "MateEngine.Guard",
    );
    assert_eq!(
        p,
        Problem::BadPonder {
            value: "yes".into()
        }
    );
}

// ---- Layers: gougi's defaults → the file → GOUGI_… variables (src/config/layers.rs) ----

/// `(name, value)` pairs for [`Config::parse_with_env`].
fn env(vars: &[(&str, &str)]) -> Vec<(String, String)> {
    vars.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn parse_env(dir: &TempDir, text: &str, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::parse_with_env(text, &dir.path().join("SimpleGougi.config"), env(vars))
}

#[test]
fn env_overrides_beat_the_file() {
    let dir = TempDir::new();
    let e2 = dir.exe("two/engine");
    let text = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nEngine1.Weight=2\n\
                Engine1.Option.USI_Hash=64\n";
    let c = parse_env(
        &dir,
        text,
        &[
            ("GOUGI_ENGINE1_WEIGHT", "3.5"),
            ("GOUGI_GOUGI_TYPE", "悲観合議"),
            // Adds a member the file does not have (an absolute path: from a shell, relative
            // ones resolve against the working directory).
            ("GOUGI_ENGINE2_PATH", e2.to_str().unwrap()),
            ("gougi_engine2_name", "two"),
            // The option's name keeps its case.
            ("GOUGI_ENGINE1_OPTION_USI_Hash", "256"),
            // Not settings: left alone.
            ("GOUGI_CONFIG", "/nowhere"),
            ("GOUGI_LOG", "debug"),
            ("GOUGI_REQUIRE_SSH", "1"),
            // Empty counts as unset.
            ("GOUGI_ENGINE1_SCALE", ""),
        ],
    )
    .unwrap();
    assert_eq!(c.policy, PolicyKind::Pessimistic);
    assert_eq!(c.engines.len(), 2);
    assert_eq!(c.engines[0].weight, 3.5);
    assert_eq!(c.engines[0].scale, None);
    assert_eq!(c.engines[0].options.len(), 1);
    let o = &c.engines[0].options[0];
    assert_eq!((o.name.as_str(), o.value.as_str()), ("USI_Hash", "256"));
    assert_eq!(
        o.origin(),
        "environment variable GOUGI_ENGINE1_OPTION_USI_Hash"
    );
    assert!(c.engines[0].solo_options.is_empty());
    assert_eq!(c.engines[1].number, 2);
    assert_eq!(c.engines[1].command.program, e2);
    assert_eq!(c.engines[1].name.as_deref(), Some("two"));
    assert_eq!(c.engines[1].line, 0);
    // The file alone, and the layer under it.
    let c = parse_in(&dir, text).unwrap();
    assert_eq!(
        (c.policy, c.engines[0].weight),
        (PolicyKind::Optimistic, 2.0)
    );
    assert_eq!(c.pv_mate_count, DEFAULT_PV_MATE_COUNT);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // An environment value the type ignores is a warning naming the variable.
    let c = parse_env(&dir, text, &[("GOUGI_MATEENGINE_FORPV_COUNT", "2")]).unwrap();
    assert_eq!(c.pv_mate_count, 2);
    assert_eq!(
        c.warnings[0].to_string(),
        "environment variable GOUGI_MATEENGINE_FORPV_COUNT: MateEngine.forPV.Count: \
         ignored by type optimistic (used by mate-pv only)"
    );
}

/// `GOUGI_ENGINE<N>_SOLOOPTION_<Name>` overrides or adds `Engine<N>.SoloOption.<Name>`, the name
/// keeping its case, and leaves `Engine<N>.Option.<Name>` alone; the value names the variable.
#[test]
fn env_overrides_solo_options() {
    let dir = TempDir::new();
    let text = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nEngine1.Option.EvalNoise=50\n\
                Engine1.SoloOption.EvalNoise=0\n";
    let c = parse_env(
        &dir,
        text,
        &[
            ("GOUGI_ENGINE1_SOLOOPTION_EvalNoise", "5"),
            ("GOUGI_ENGINE1_SOLOOPTION_Threads", "2"),
        ],
    )
    .unwrap();
    let e1 = &c.engines[0];
    assert_eq!(
        e1.options
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_str()))
            .collect::<Vec<_>>(),
        [("EvalNoise", "50")]
    );
    let solo: Vec<(&str, &str, String, bool)> = e1
        .solo_options
        .iter()
        .map(|o| (o.name.as_str(), o.value.as_str(), o.origin(), o.solo))
        .collect();
    assert_eq!(
        solo,
        [
            (
                "EvalNoise",
                "5",
                "environment variable GOUGI_ENGINE1_SOLOOPTION_EvalNoise".to_owned(),
                true
            ),
            (
                "Threads",
                "2",
                "environment variable GOUGI_ENGINE1_SOLOOPTION_Threads".to_owned(),
                true
            ),
        ]
    );
    // For a member the file does not have: the orphan error names the variable.
    let err = parse_env(&dir, text, &[("GOUGI_ENGINE4_SOLOOPTION_Threads", "2")]).unwrap_err();
    match &err {
        ConfigError::Env { var, key, problem } => {
            assert_eq!(
                (var.as_str(), key.as_str(), problem),
                (
                    "GOUGI_ENGINE4_SOLOOPTION_Threads",
                    "Engine4.SoloOption.Threads",
                    &Problem::NoPath { number: 4 }
                )
            );
        }
        other => panic!("not Env: {other:?}"),
    }
}

#[test]
fn env_errors_name_the_variable() {
    let dir = TempDir::new();
    let text = "Gougi.Type=optimistic\nEngine1.Path=builtin:search\n";
    let cases: [(&str, &str, &str, Problem); 8] = [
        (
            "GOUGI_ENGINE1_MINCORES",
            "all",
            "Engine1.MinCores",
            Problem::BadMinCores {
                value: "all".into(),
            },
        ),
        (
            "GOUGI_ENGINE1_WEIGHT",
            "heavy",
            "Engine1.Weight",
            Problem::BadWeight {
                value: "heavy".into(),
            },
        ),
        (
            "GOUGI_ENGINE1_PONDER",
            "yes",
            "Engine1.Ponder",
            Problem::BadPonder {
                value: "yes".into(),
            },
        ),
        (
            "GOUGI_GOUGI_TYPE",
            "nope",
            "Gougi.Type",
            Problem::UnknownType {
                value: "nope".into(),
            },
        ),
        (
            "GOUGI_ENGINE0_PATH",
            "builtin:search",
            "Engine0.Path",
            Problem::EngineZero,
        ),
        (
            "GOUGI_ENGINE3_WEIGHT",
            "2",
            "Engine3.Weight",
            Problem::NoPath { number: 3 },
        ),
        (
            "GOUGI_ENGIN1_PATH",
            "builtin:search",
            "",
            Problem::UnknownVariable {
                hint: Some("GOUGI_ENGINE1_PATH".into()),
            },
        ),
        (
            "GOUGI_ENGINE99999999999_PATH",
            "builtin:search",
            "",
            Problem::UnknownVariable { hint: None },
        ),
    ];
    for (var, value, key, problem) in cases {
        let err = parse_env(&dir, text, &[(var, value)]).expect_err(var);
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!("environment variable {var}: {key}")),
            "{shown}"
        );
        assert!(!shown.contains("SimpleGougi.config"), "{shown}");
        assert_eq!(err.problem(), Some(&problem), "{shown}");
    }
    let err = parse_env(&dir, text, &[("GOUGI_ENGINE1_WEIGHT", "-1")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "environment variable GOUGI_ENGINE1_WEIGHT: Engine1.Weight: weight must be a finite \
         number > 0, got \"-1\""
    );
    let err = parse_env(&dir, text, &[("GOUGI_ENGINE2_PATH", "/no/such/engine")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "environment variable GOUGI_ENGINE2_PATH: Engine2.Path: no such file: /no/such/engine"
    );
    // The file's own errors keep their file, line and key under the layers.
    let (p, _) = invalid(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=\n",
        2,
        "Engine1.Path",
    );
    assert_eq!(p, Problem::Empty);
    let err = parse_env(
        &dir,
        "Gougi.Type=optimistic\nEngine1.Path=builtin:search\nEngine1.Weight=0\n",
        &[("GOUGI_ENGINE1_NAME", "x")],
    )
    .unwrap_err();
    assert!(
        err.to_string().ends_with(
            "SimpleGougi.config:3: Engine1.Weight: weight must be a finite number > 0, got \"0\""
        ),
        "{err}"
    );
}

#[test]
fn env_variable_names() {
    let key = |var: &str| env_key(var).map(|k| k.map_err(|_| ()));
    assert_eq!(
        key("GOUGI_ENGINE12_SCOREVIEW"),
        Some(Ok("Engine12.ScoreView".into()))
    );
    assert_eq!(
        key("GOUGI_MATEENGINE_FORPV_COUNT"),
        Some(Ok("MateEngine.forPV.Count".into()))
    );
    assert_eq!(
        key("GOUGI_MATEENGINE_GUARD"),
        Some(Ok("MateEngine.Guard".into()))
    );
    assert_eq!(key("Gougi_Gougi_Name"), Some(Ok("Gougi.Name".into())));
    assert_eq!(
        key("GOUGI_ENGINE2_OPTION_Eval.Dir"),
        Some(Ok("Engine2.Option.Eval.Dir".into()))
    );
    assert_eq!(
        key("GOUGI_ENGINE1_SOLOOPTION_EvalNoise"),
        Some(Ok("Engine1.SoloOption.EvalNoise".into()))
    );
    assert_eq!(
        key("gougi_engine3_soloOption_Threads"),
        Some(Ok("Engine3.SoloOption.Threads".into()))
    );
    for typo in [
        "GOUGI_ENGINE_PATH",
        "GOUGI_ENGINE1_PATHS",
        "GOUGI_ENGINE1_OPTION_",
        "GOUGI_ENGINE1_SOLOOPTION_",
        "GOUGI_ENGINE1_SOLO_EvalNoise",
        "GOUGI_MATE",
    ] {
        assert_eq!(key(typo), Some(Err(())), "{typo}");
    }
    for other in [
        "GOUGI_CONFIG",
        "GOUGI_LOG",
        "GOUGI_LOG_FILE",
        "GOUGI_BIN",
        "GOUGI_TUNE_OPTIONS",
        "PATH",
    ] {
        assert_eq!(key(other), None, "{other}");
    }
}

#[test]
fn cp932_file_under_env_overrides() {
    let dir = TempDir::new();
    let text = "# 合議タイプの設定\nGougi.Type=楽観合議\nEngine1.Path=builtin:search\n\
                Engine1.Name=やねうら王\nEngine2.Path=builtin:search\n";
    let (bytes, _, bad) = encoding_rs::SHIFT_JIS.encode(text);
    assert!(!bad && std::str::from_utf8(&bytes).is_err());
    let path = dir.write("SimpleGougi.config", &bytes);
    let c = Config::load_with_env(&path, env(&[("GOUGI_ENGINE2_NAME", "技巧")])).unwrap();
    assert_eq!(c.policy, PolicyKind::Optimistic);
    assert_eq!(c.engines[0].name.as_deref(), Some("やねうら王"));
    assert_eq!(c.engines[1].name.as_deref(), Some("技巧"));
    // A CP932 file's error still names its file, line and key.
    let (bytes, _, _) = encoding_rs::SHIFT_JIS
        .encode("Gougi.Type=楽観合議\nEngine1.Path=builtin:search\nEngine1.Weight=重い\n");
    let path = dir.write("SimpleGougi.config", &bytes);
    let err = Config::load_with_env(&path, Vec::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3: Engine1.Weight: weight must be a finite number > 0, got \"重い\"",
            path.display()
        )
    );
}

#[test]
fn binary_a_bad_env_value_stops_gougi_naming_the_variable() {
    let dir = common::scratch_dir("envbad");
    let config = common::mock_config(&dir, "optimistic", &[MEMBER], None, "");
    let mut gougi = common::Gougi::with_config_env(&config, &[("GOUGI_ENGINE1_PONDER", "maybe")]);
    gougi.send("usi");
    let first = gougi.next(Duration::from_secs(20)).unwrap_or_default();
    let code = gougi.wait_exit(Duration::from_secs(10));
    assert_eq!(
        first,
        "info string [Error] environment variable GOUGI_ENGINE1_PONDER: Engine1.Ponder: \
         must be true or false, got \"maybe\""
    );
    assert_eq!(code, Some(1));
}
