//! The mate member under node- and depth-limited rounds (issue 19): it gets a node budget
//! proportional to the round's (`G_MateNodesPct`) beside `G_MateTimeout`, and the round waits
//! for its answer, so a node-limited game does not depend on which process was faster.

mod common;

use common::{mock_config, scratch_dir, Gougi};

const MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

/// The mate type with a normal member that answers at once and a mate member that answers
/// `mate_answer` after 300 ms; the mate member's transcript path.
fn start(tag: &str, mate_answer: &str) -> (Gougi, std::path::PathBuf) {
    let dir = scratch_dir(tag);
    let transcript = dir.join("mate.log");
    let mate = format!(
        "id name tsume\ntranscript: {}\nmate: sleep 300 ; {mate_answer}\n",
        transcript.display()
    );
    let normal = "id name e1\ngo: info depth 3 score cp 40 pv 5c5b+ ; bestmove 5c5b+\n";
    let config = mock_config(&dir, "mate", &[normal], Some(&mate), "");
    let mut g = Gougi::with_config(&config);
    g.handshake();
    (g, transcript)
}

/// The `go` lines the mate member received (waiting up to 2 s for the first: the decision
/// can come before the mock has written its transcript).
fn go_lines(transcript: &std::path::Path) -> Vec<String> {
    let read = || -> Vec<String> {
        std::fs::read_to_string(transcript)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("go"))
            .map(str::to_string)
            .collect()
    };
    for _ in 0..40 {
        let lines = read();
        if !lines.is_empty() {
            return lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    read()
}

#[test]
fn a_node_limited_round_gives_the_mate_member_nodes_and_waits_for_it() {
    let (mut g, transcript) = start("mate-nodes", "checkmate G*5b");
    g.send("setoption name G_MateNodesPct value 50");
    g.send(MATE1);
    g.send("go nodes 4000");
    let lines = g.until_prefix("bestmove");
    // The normal member answered at once; the mate, 300 ms later, still decides.
    assert_eq!(lines.last().unwrap(), "bestmove G*5b", "{lines:#?}");
    assert_eq!(go_lines(&transcript), ["go nodes 2000 mate 10000"]);
}

#[test]
fn a_depth_limited_round_counts_ten_thousand_nodes_a_ply() {
    let (mut g, transcript) = start("mate-depth", "checkmate nomate");
    g.send(MATE1);
    g.send("go depth 3");
    let lines = g.until_prefix("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+");
    assert_eq!(go_lines(&transcript), ["go nodes 30000 mate 10000"]);
}

#[test]
fn a_clocked_round_keeps_the_mate_timeout_alone() {
    let (mut g, transcript) = start("mate-clock", "checkmate G*5b");
    g.send(MATE1);
    g.send("go btime 0 wtime 0 byoyomi 2000");
    let lines = g.until_prefix("bestmove");
    // With a clock the round does not wait for the mate member (its deadline rules).
    assert_eq!(lines.last().unwrap(), "bestmove 5c5b+");
    assert_eq!(go_lines(&transcript), ["go mate 10000"]);
}
