//! What the GUI's engine dialog sees (issue 21, part 2): the plain options every GUI expects,
//! and how they reach the members.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{mock_config, scratch_dir, Gougi};

/// Member `log`'s `setoption` lines for `name`, once at least `want` arrived (or 5 s passed).
fn settings(log: &Path, name: &str, want: usize) -> Vec<String> {
    let prefix = format!("setoption name {name} value ");
    let t0 = Instant::now();
    loop {
        let got: Vec<String> = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
            .collect();
        if got.len() >= want || t0.elapsed() > Duration::from_secs(5) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn usi_hash_ponder_and_threads_are_offered_and_shared_among_the_members() {
    let dir = scratch_dir("guiview");
    let logs: Vec<_> = (1..=3).map(|k| dir.join(format!("e{k}.log"))).collect();
    let threads = "option name Threads type spin default 4 min 1 max 64";
    let scripts: Vec<String> = logs
        .iter()
        .enumerate()
        .map(|(k, log)| {
            let decl = if k < 2 { threads } else { "" };
            format!(
                "id name e{}\n{decl}\ntranscript: {}\n",
                k + 1,
                log.display()
            )
        })
        .collect();
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let mut g = Gougi::with_config(&mock_config(&dir, "majority", &refs, None, ""));
    g.send("usi");
    let lines = g.until_prefix("usiok");
    for want in [
        "option name USI_Hash type spin default 256 min 1 max 1048576",
        "option name USI_Ponder type check default false",
        "option name Threads type spin default 3 min 1 max 1024",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:#?}");
    }
    // A member's own setting wins over the shared budget, whenever it comes.
    g.send("setoption name E2_Threads value 7");
    g.send("setoption name USI_Hash value 1000");
    g.send("setoption name Threads value 8");
    g.send("setoption name USI_Ponder value true");
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
    // Three normal members share 1000 MB and 8 threads; only members that offer Threads get it.
    assert_eq!(settings(&logs[0], "USI_Hash", 1), ["333"]);
    assert_eq!(settings(&logs[0], "Threads", 1), ["2"]);
    assert_eq!(settings(&logs[1], "Threads", 1), ["7"]);
    assert_eq!(settings(&logs[2], "Threads", 0), Vec::<String>::new());
    assert_eq!(settings(&logs[2], "USI_Ponder", 1), ["true"]);
}

#[test]
fn the_relayed_depth_never_jumps_back_when_the_lead_changes() {
    let dir = scratch_dir("relaydepth");
    let scripts = [
        "id name e1\ngo: info depth 8 score cp 10 pv 7g7f ; sleep 400 ; bestmove 7g7f\n",
        "id name e2\ngo: sleep 100 ; info depth 1 score cp 50 pv 2g2f ; sleep 100 ; info depth 9 score cp 60 pv 2g2f ; sleep 100 ; bestmove 2g2f\n",
    ];
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &scripts, None, ""));
    g.handshake();
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 5000");
    let lines = g.until_prefix("bestmove");
    let relayed: Vec<&String> = lines
        .iter()
        .take_while(|l| !l.starts_with("info string ["))
        .filter(|l| l.starts_with("info depth"))
        .collect();
    // e2 takes the lead with a better score at depth 1; its line waits until it is deeper
    // than what the GUI already shows.
    assert_eq!(
        relayed,
        [
            "info depth 8 score cp 10 pv 7g7f",
            "info depth 9 score cp 60 pv 2g2f"
        ],
        "{lines:#?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f");
}

#[test]
fn the_proxys_book_answers_before_any_member_is_asked() {
    let dir = scratch_dir("proxybook");
    let log = dir.join("e1.log");
    let book = dir.join("book.db");
    std::fs::write(
        &book,
        "#YANEURAOU-DB2016 1.00\n\
         sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
         7g7f 3c3d 30 0 10\n",
    )
    .unwrap();
    let script = format!(
        "id name e1\ntranscript: {}\ngo: info score cp 5 pv 2g2f ; bestmove 2g2f\n",
        log.display()
    );
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &[&script], None, ""));
    g.send("usi");
    let lines = g.until_prefix("usiok");
    assert!(
        lines
            .iter()
            .any(|l| l == "option name G_BookFile type string default <empty>"),
        "{lines:#?}"
    );
    g.send(&format!(
        "setoption name G_BookFile value {}",
        book.display()
    ));
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
    g.send("usinewgame");
    g.send("position startpos");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    assert_eq!(
        lines[lines.len() - 3..],
        [
            "info string book: 7g7f (count 10, eval 30)",
            "info score cp 30 pv 7g7f 3c3d",
            "bestmove 7g7f ponder 3c3d"
        ],
        "{lines:#?}"
    );
    // Out of the book: the members are asked.
    g.send("position startpos moves 7g7f 8c8d");
    g.send("go btime 0 wtime 0 byoyomi 1000");
    let lines = g.until_prefix("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
    let text = std::fs::read_to_string(&log).unwrap();
    let gos: Vec<&str> = text.lines().filter(|l| l.starts_with("go")).collect();
    assert_eq!(gos.len(), 1, "{text}");
}

#[test]
fn show_and_hide_options_choose_what_the_gui_dialog_lists() {
    let dir = scratch_dir("filter");
    let decls = "option name Threads type spin default 1 min 1 max 8\n\
                 option name BookFile type string default <empty>\n\
                 option name BookMoves type spin default 16 min 0 max 100\n\
                 option name EvalDir type string default eval\n";
    let scripts = [
        format!("id name e1\n{decls}"),
        format!("id name e2\n{decls}"),
    ];
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let extra = "Engine1.ShowOptions=^(Threads|Book)\nEngine1.HideOptions=Moves$\nEngine2.HideOptions=^Book\n";
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &refs, None, extra));
    g.send("usi");
    let lines = g.until_prefix("usiok");
    let members: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("option name E"))
        .collect();
    assert_eq!(
        members,
        [
            "option name E1_Threads type spin default 1 min 1 max 8",
            "option name E1_BookFile type string default <empty>",
            "option name E2_Threads type spin default 1 min 1 max 8",
            "option name E2_EvalDir type string default eval",
        ]
    );
}

#[test]
fn a_bad_option_pattern_is_a_config_error_naming_its_line() {
    let dir = scratch_dir("badfilter");
    let config = mock_config(
        &dir,
        "optimistic",
        &["id name e1\n"],
        None,
        "Engine1.ShowOptions=(Threads\n",
    );
    let mut g = Gougi::with_config(&config);
    g.send("usi");
    let line = g.next(Duration::from_secs(10)).unwrap_or_default();
    assert!(
        line.starts_with("info string [Error]")
            && line.contains(":3: Engine1.ShowOptions: not a regular expression"),
        "{line}"
    );
}

/// The member's transcript once it holds `isready` (5 s at most), as raw bytes.
fn transcript_once_ready(log: &std::path::Path) -> Vec<u8> {
    let t0 = Instant::now();
    loop {
        let bytes = std::fs::read(log).unwrap_or_default();
        if bytes.windows(7).any(|w| w == b"isready") || t0.elapsed() > Duration::from_secs(5) {
            return bytes;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_cp932_setoption_value_reaches_the_member_in_cp932_and_a_utf8_one_in_utf8() {
    // A Japanese Windows GUI sends file names in CP932; a Windows engine reads them so. gougi
    // decodes the GUI's line to show and check it, and writes the member the same bytes.
    let dir = scratch_dir("cp932opt");
    let log = dir.join("e1.log");
    let script = format!(
        "id name e1\noption name EvalDir type string default eval\n\
         option name BookDir type string default book\ntranscript: {}\n",
        log.display()
    );
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &[&script], None, ""));
    g.handshake();
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("評価関数");
    let mut line = b"setoption name E1_EvalDir value ".to_vec();
    line.extend_from_slice(&sjis);
    line.push(b'\n');
    g.send_bytes(&line);
    g.send("setoption name E1_BookDir value 定跡");
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
    let bytes = transcript_once_ready(&log);
    let mut want_cp932 = b"setoption name EvalDir value ".to_vec();
    want_cp932.extend_from_slice(&sjis);
    want_cp932.push(b'\n');
    let want_utf8 = "setoption name BookDir value 定跡\n".as_bytes();
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(has(&want_cp932), "{}", String::from_utf8_lossy(&bytes));
    assert!(has(want_utf8), "{}", String::from_utf8_lossy(&bytes));
}

/// The same, from a GUI that does not wait for `usiok` before its `setoption`: gougi holds the
/// line until its members have answered `usi`, and the held line keeps its encoding. Failed
/// before (found under wine, issue 50): the held value reached the member re-encoded in UTF-8.
#[test]
fn a_cp932_setoption_held_until_usiok_keeps_its_bytes() {
    let dir = scratch_dir("cp932held");
    let log = dir.join("e1.log");
    let script = format!(
        "id name e1\noption name EvalDir type string default eval\n\
         usi: sleep 300 ; usiok\ntranscript: {}\n",
        log.display()
    );
    let mut g = Gougi::with_config(&mock_config(&dir, "optimistic", &[&script], None, ""));
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("C:\\将棋\\評価関数");
    let mut lines = b"usi\r\nsetoption name E1_EvalDir value ".to_vec();
    lines.extend_from_slice(&sjis);
    lines.extend_from_slice(b"\r\nisready\r\n");
    g.send_bytes(&lines);
    g.until(Duration::from_secs(10), |l| l == "readyok");
    let bytes = transcript_once_ready(&log);
    let mut want = b"setoption name EvalDir value ".to_vec();
    want.extend_from_slice(&sjis);
    want.push(b'\n');
    assert!(
        bytes.windows(want.len()).any(|w| w == want.as_slice()),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
}

/// `Engine<N>.Option.<Name>=<value>` (issue 19): the value is the default the GUI's dialog
/// shows as `E<N>_<Name>`, it reaches the member as `setoption` before `isready` unless the GUI
/// set `E<N>_<Name>` (then only the GUI's value is sent), and a name the member does not
/// declare is a warning naming the file, line and key.
#[test]
fn config_option_values_are_the_members_defaults() {
    let dir = scratch_dir("cfgoption");
    let logs: Vec<_> = (1..=2).map(|k| dir.join(format!("e{k}.log"))).collect();
    let decls = "option name Depth type spin default 10 min 1 max 99\n\
                 option name Style type combo default A var A var B\n\
                 option name Book type string default <empty>";
    let scripts: Vec<String> = logs
        .iter()
        .enumerate()
        .map(|(k, log)| {
            format!(
                "id name e{}\n{decls}\ntranscript: {}\n",
                k + 1,
                log.display()
            )
        })
        .collect();
    let refs: Vec<&str> = scripts.iter().map(String::as_str).collect();
    let extra = "Engine1.Option.Depth=42\n\
                 Engine1.Option.Style=B\n\
                 Engine1.Option.Book=my book.db\n\
                 Engine1.Option.Nope=1\n\
                 Engine2.Option.Depth=33\n\
                 Engine2.Option.Style=C\n";
    let config = mock_config(&dir, "majority", &refs, None, extra);
    let mut g = Gougi::with_config(&config);
    g.send("usi");
    g.until_prefix("usiok");
    let seen = g.seen.clone();
    for want in [
        "option name E1_Depth type spin default 42 min 1 max 99",
        "option name E1_Style type combo default B var A var B",
        "option name E1_Book type string default my book.db",
        "option name E2_Depth type spin default 33 min 1 max 99",
        // A value the declaration refuses leaves the member's default.
        "option name E2_Style type combo default A var A var B",
    ] {
        assert!(seen.iter().any(|l| l == want), "{want}: {seen:#?}");
    }
    // Lines 1–3 are Gougi.Type and the two paths.
    let file = config.display();
    for want in [
        format!("info string [Warning] {file}:7: Engine1.Option.Nope: E1 (e1) declares no option Nope; not sent"),
        format!("info string [Warning] {file}:9: Engine2.Option.Style: "),
    ] {
        assert!(seen.iter().any(|l| l.starts_with(&want)), "{want}: {seen:#?}");
    }
    g.send("setoption name E2_Depth value 50");
    g.send("isready");
    g.until(Duration::from_secs(10), |l| l == "readyok");
    let received = |log: &Path| -> Vec<String> {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("setoption") || *l == "isready")
            .map(str::to_string)
            .collect()
    };
    let t0 = Instant::now();
    while received(&logs[1]).last().map(String::as_str) != Some("isready")
        && t0.elapsed() < Duration::from_secs(5)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        received(&logs[0]),
        [
            "setoption name Depth value 42",
            "setoption name Style value B",
            "setoption name Book value my book.db",
            "isready"
        ]
    );
    // The GUI's E2_Depth wins: the config's 33 is never sent.
    assert_eq!(
        received(&logs[1]),
        ["setoption name Depth value 50", "isready"]
    );
}
