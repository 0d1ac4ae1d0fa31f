//! Drives `examples/mock_engine` over stdin/stdout to prove each scripted behaviour works, so
//! proxy tests can rely on it. Timing checks are lower bounds only ("not before the scripted
//! delay") plus generous timeouts for "promptly"; nothing measures speed.
//!
//! [`mock_engine_path`] is the locator other integration tests can copy: it builds the example
//! with the same cargo and profile (a no-op when up to date) and returns
//! `target/<profile>/examples/mock_engine`.

mod common;

use common::mock_engine_path;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// Long enough for a loaded 2-core machine to answer a line; only failing tests wait this long.
const PATIENCE: Duration = Duration::from_secs(10);
/// How long "no answer" is watched for.
const SILENCE: Duration = Duration::from_millis(300);

/// A running mock engine with its stdout read on a thread.
struct Mock {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// stderr lines, kept apart from the protocol stream.
    errors: Receiver<String>,
}

impl Mock {
    fn spawn(mut command: Command) -> Mock {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mock engine");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = child.stderr.take().expect("stderr");
        let (tx, errors) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Mock {
            child,
            stdin,
            lines,
            errors,
        }
    }

    /// Starts the engine with the script in `MOCK_ENGINE_SCRIPT`.
    fn start(script: &str) -> Mock {
        let mut command = Command::new(mock_engine_path());
        command.env("MOCK_ENGINE_SCRIPT", script);
        Mock::spawn(command)
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to mock");
        stdin.flush().expect("flush to mock");
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn next_line(&self, timeout: Duration) -> Option<String> {
        // Timeout and a closed stdout (the engine exited) both mean "no line".
        self.lines.recv_timeout(timeout).ok()
    }

    /// The next line must be `expected`.
    fn expect(&self, expected: &str) {
        assert_eq!(self.next_line(PATIENCE).as_deref(), Some(expected));
    }

    /// No line for [`SILENCE`].
    fn expect_silence(&self) {
        assert_eq!(self.next_line(SILENCE), None);
    }

    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "mock engine did not exit");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn handshake_prints_id_and_options_then_usiok_and_readyok() {
    let mut m = Mock::start(
        "id name Mock A\nid author gougi tests\n\
         option name OwnBook type check default true\n\
         option name Threads type spin default 1 min 1 max 8\n",
    );
    m.send("usi");
    m.expect("id name Mock A");
    m.expect("id author gougi tests");
    m.expect("option name OwnBook type check default true");
    m.expect("option name Threads type spin default 1 min 1 max 8");
    m.expect("usiok");
    m.send("isready");
    m.expect("readyok");
    m.send("quit");
    assert_eq!(m.wait_exit().code(), Some(0));
}

#[test]
fn handshake_delays_are_honoured() {
    let mut m = Mock::start("usi: sleep 200 ; usiok\nisready: sleep 150 ; readyok\n");
    let t = Instant::now();
    m.send("usi");
    m.expect("usiok");
    assert!(t.elapsed() >= Duration::from_millis(200));
    let t = Instant::now();
    m.send("isready");
    m.expect("readyok");
    assert!(t.elapsed() >= Duration::from_millis(150));
}

#[test]
fn usiok_can_be_withheld_while_other_commands_still_work() {
    let mut m = Mock::start("id name Silent\nusi: say hello\n");
    m.send("usi");
    m.expect("id name Silent");
    m.expect("hello");
    m.expect_silence();
    m.send("isready");
    m.expect("readyok");
}

#[test]
fn readyok_can_be_withheld() {
    let mut m = Mock::start("isready: hang\n");
    m.send("usi");
    m.expect("usiok");
    m.send("isready");
    m.expect_silence();
}

#[test]
fn go_entries_are_consumed_in_order_and_the_last_repeats() {
    let mut m = Mock::start(
        "go: info depth 10 score cp 50 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d\n\
         go: info depth 8 score mate 3 pv 2g2f ; bestmove 2g2f\n",
    );
    m.send("position startpos");
    m.send("go btime 1000 wtime 1000 byoyomi 1000");
    m.expect("info depth 10 score cp 50 pv 7g7f 3c3d");
    m.expect("bestmove 7g7f ponder 3c3d");
    for _ in 0..2 {
        m.send("go btime 1000 wtime 1000 byoyomi 1000");
        m.expect("info depth 8 score mate 3 pv 2g2f");
        m.expect("bestmove 2g2f");
    }
}

#[test]
fn defaults_resign_and_checkmate_notimplemented() {
    let mut m = Mock::start("");
    m.send("go byoyomi 100");
    m.expect("bestmove resign");
    m.send("go mate 1000");
    m.expect("checkmate notimplemented");
}

#[test]
fn delay_before_bestmove() {
    let mut m = Mock::start("go: info depth 1 ; sleep 250 ; bestmove 7g7f\n");
    let t = Instant::now();
    m.send("go byoyomi 1000");
    m.expect("info depth 1");
    m.expect("bestmove 7g7f");
    assert!(t.elapsed() >= Duration::from_millis(250));
}

#[test]
fn think_spends_the_byoyomi_or_movetime_and_stop_cuts_it_short() {
    let mut m = Mock::start("go: think ; bestmove 7g7f\n");
    let t = Instant::now();
    m.send("go btime 0 wtime 0 byoyomi 300");
    m.expect("bestmove 7g7f");
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    let t = Instant::now();
    m.send("go movetime 200 byoyomi 5000");
    m.expect("bestmove 7g7f");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(200) && took < Duration::from_secs(4),
        "{took:?}"
    );
    let t = Instant::now();
    m.send("go btime 0 wtime 0 byoyomi 600000");
    m.send("stop");
    m.expect("bestmove 7g7f");
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn stop_cuts_a_sleep_short() {
    let mut m = Mock::start("go: sleep 600000 ; info depth 5 ; sleep 600000 ; bestmove 7g7f\n");
    m.send("go infinite");
    m.expect_silence();
    m.send("stop");
    m.expect("info depth 5");
    m.expect("bestmove 7g7f");
}

#[test]
fn busy_ignores_stop_until_its_time_is_up() {
    let mut m = Mock::start("go: busy 400 ; bestmove 7g7f\n");
    let t = Instant::now();
    m.send("go byoyomi 1000");
    m.send("stop");
    m.expect("bestmove 7g7f");
    assert!(t.elapsed() >= Duration::from_millis(400));
}

#[test]
fn lag_leaves_a_later_stop_to_the_later_go() {
    // The first `go` is stopped and answers 300 ms later; the `stop` sent after the second
    // `go`, during that lag, must stop the second one (`busy` would take it for the first).
    let mut m = Mock::start(
        "go: sleep 600000 ; lag 300 ; bestmove 7g7f\ngo: sleep 600000 ; bestmove 2g2f\n",
    );
    let t = Instant::now();
    m.send("go infinite");
    m.send("stop");
    m.send("go infinite");
    m.send("stop");
    m.expect("bestmove 7g7f");
    assert!(t.elapsed() >= Duration::from_millis(300));
    m.expect("bestmove 2g2f");
}

#[test]
fn answer_only_on_stop() {
    let mut m = Mock::start("go: info depth 1 score cp 3 ; wait stop ; bestmove 2g2f\n");
    m.send("go btime 0 wtime 0 byoyomi 100");
    m.expect("info depth 1 score cp 3");
    m.expect_silence();
    m.send("stop");
    m.expect("bestmove 2g2f");
}

#[test]
fn hang_ignores_stop_and_quit_but_exits_at_eof() {
    let mut m = Mock::start("go: info depth 1 ; hang\n");
    m.send("go byoyomi 100");
    m.expect("info depth 1");
    m.send("stop");
    m.send("quit");
    m.expect_silence();
    assert!(
        m.child.try_wait().expect("try_wait").is_none(),
        "still running"
    );
    m.close_stdin();
    assert_eq!(m.wait_exit().code(), Some(0));
}

#[test]
fn linger_outlives_stdin_eof_until_killed() {
    let mut m = Mock::start("go: info depth 1 ; linger\n");
    m.send("go byoyomi 100");
    m.expect("info depth 1");
    m.send("quit");
    m.close_stdin();
    m.expect_silence();
    assert!(
        m.child.try_wait().expect("try_wait").is_none(),
        "a lingering mock must survive quit and stdin EOF"
    );
    m.child.kill().expect("kill");
    m.child.wait().expect("wait");
}

#[test]
fn stderr_text_stays_off_the_protocol_stream() {
    let mut m = Mock::start("go: stderr debug: searching ; bestmove 7g7f\n");
    m.send("go byoyomi 100");
    m.expect("bestmove 7g7f");
    assert_eq!(
        m.errors.recv_timeout(PATIENCE).ok().as_deref(),
        Some("debug: searching")
    );
}

#[test]
fn crash_with_an_exit_code_mid_search() {
    let mut m = Mock::start("go: info score cp 5 pv 7g7f ; exit 3\n");
    m.send("go byoyomi 100");
    m.expect("info score cp 5 pv 7g7f");
    assert_eq!(m.wait_exit().code(), Some(3));
}

#[test]
fn crash_at_startup_and_at_usi() {
    let mut m = Mock::start("start: say boom ; exit 7\n");
    m.expect("boom");
    assert_eq!(m.wait_exit().code(), Some(7));
    let mut m = Mock::start("usi: exit 4\n");
    m.send("usi");
    assert_eq!(m.wait_exit().code(), Some(4));
}

#[test]
fn garbage_unparsable_and_illegal_moves_and_double_bestmove() {
    let mut m = Mock::start(
        "go: say %%% garbage line ; bestmove xyz\n\
         go: bestmove 5e5d\n\
         go: bestmove 7g7f ; bestmove 2g2f\n",
    );
    m.send("go byoyomi 100");
    m.expect("%%% garbage line");
    m.expect("bestmove xyz");
    m.send("go byoyomi 100");
    m.expect("bestmove 5e5d");
    m.send("go byoyomi 100");
    m.expect("bestmove 7g7f");
    m.expect("bestmove 2g2f");
}

#[test]
fn go_mate_is_answered_by_the_mate_entries_after_a_delay() {
    let mut m = Mock::start(
        "go: bestmove 7g7f\n\
         mate: sleep 200 ; checkmate G*5b 5a4a 5b4b\n\
         mate: checkmate nomate\n",
    );
    let t = Instant::now();
    m.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b4g4s4n4l17p 1");
    m.send("go mate 10000");
    m.expect("checkmate G*5b 5a4a 5b4b");
    assert!(t.elapsed() >= Duration::from_millis(200));
    // A normal go in between does not consume a mate entry.
    m.send("go byoyomi 100");
    m.expect("bestmove 7g7f");
    m.send("go mate infinite");
    m.send("stop");
    m.expect("checkmate nomate");
}

#[test]
fn go_infinite_holds_bestmove_until_stop() {
    let mut m = Mock::start("go: info depth 1 score cp 7 pv 7g7f ; bestmove 7g7f\n");
    m.send("go infinite");
    m.expect("info depth 1 score cp 7 pv 7g7f");
    m.expect_silence();
    m.send("stop");
    m.expect("bestmove 7g7f");
}

#[test]
fn ponder_waits_for_ponderhit_then_answers_after_the_delay() {
    let mut m = Mock::start("go: info depth 3 ; sleep 200 ; bestmove 3c3d ponder 2g2f\n");
    m.send("position startpos moves 7g7f 8c8d");
    m.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    m.expect_silence();
    let t = Instant::now();
    m.send("ponderhit");
    m.expect("info depth 3");
    m.expect("bestmove 3c3d ponder 2g2f");
    assert!(t.elapsed() >= Duration::from_millis(200));
}

#[test]
fn ponder_stop_answers_at_once() {
    let mut m = Mock::start("go: info depth 3 ; sleep 600000 ; bestmove 3c3d\n");
    m.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    m.expect_silence();
    m.send("stop");
    m.expect("info depth 3");
    m.expect("bestmove 3c3d");
}

#[test]
fn early_ponderhit_with_times_and_gameover_as_stop() {
    let mut m = Mock::start("go: sleep 600000 ; bestmove 7g7f\n");
    // ShogiHome early ponder: the clock comes with ponderhit; a stop then ends the search.
    m.send("go ponder");
    m.send("ponderhit btime 1000 wtime 1000 byoyomi 1000");
    m.expect_silence();
    m.send("stop");
    m.expect("bestmove 7g7f");
    // Shogidokoro can end a game during ponder with gameover and no stop.
    m.send("go ponder");
    m.send("gameover lose");
    m.expect("bestmove 7g7f");
}

#[test]
fn commands_received_during_a_search_are_handled_after_it() {
    let mut m = Mock::start("go: sleep 200 ; bestmove 7g7f\n");
    m.send("go byoyomi 1000");
    m.send("isready");
    m.expect("bestmove 7g7f");
    m.expect("readyok");
}

#[test]
fn transcript_records_every_received_line() {
    let log = common::scratch_path("transcript.log");
    let mut m = Mock::start(&format!(
        "transcript: {}\ngo: bestmove 7g7f\n",
        log.display()
    ));
    let sent = [
        "usi",
        "setoption name OwnBook value false",
        "setoption name USI_Hash value 256",
        "isready",
        "usinewgame",
        "position startpos moves 2g2f",
        "go btime 59000 wtime 60000 byoyomi 10000",
    ];
    for line in sent {
        m.send(line);
    }
    m.expect("usiok");
    m.expect("readyok");
    m.expect("bestmove 7g7f");
    m.send("gameover win");
    m.send("quit");
    assert_eq!(m.wait_exit().code(), Some(0));
    let text = std::fs::read_to_string(&log).expect("transcript");
    let _ = std::fs::remove_file(&log);
    let mut expected: Vec<&str> = sent.to_vec();
    expected.extend(["gameover win", "quit"]);
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn script_from_a_file_argument() {
    let script = common::scratch_path("script.txt");
    std::fs::write(
        &script,
        "# a comment\n\nid name FromFile\ngo: bestmove 1g1f\n",
    )
    .unwrap();
    let mut command = Command::new(mock_engine_path());
    command.arg(&script);
    let mut m = Mock::spawn(command);
    m.send("usi");
    m.expect("id name FromFile");
    m.expect("usiok");
    m.send("go byoyomi 100");
    m.expect("bestmove 1g1f");
    let _ = std::fs::remove_file(&script);
}

#[test]
fn stdin_eof_exits_cleanly_and_a_bad_script_exits_with_2() {
    let mut m = Mock::start("");
    m.close_stdin();
    assert_eq!(m.wait_exit().code(), Some(0));
    let mut m = Mock::start("go: fly 3\n");
    assert_eq!(m.wait_exit().code(), Some(2));
    assert!(m
        .errors
        .recv_timeout(PATIENCE)
        .is_ok_and(|e| e.contains("unknown action")));
    let mut m = Mock::start("go: sleep soon\n");
    assert_eq!(m.wait_exit().code(), Some(2));
}

/// A moves file with one line for `position startpos` (two legal moves and an illegal one).
fn moves_file(tag: &str) -> PathBuf {
    let path = common::scratch_path(tag);
    std::fs::write(
        &path,
        "position startpos moves 7g7f\t3c3d 8c8d\t5a4a\nposition   startpos\t7g7f 2g2f\t5a4b\n",
    )
    .unwrap();
    path
}

#[test]
fn play_answers_a_move_of_the_current_position_from_the_moves_file() {
    let file = moves_file("moves-play.tsv");
    let mut m = Mock::start(&format!("moves_file: {}\ngo: play\n", file.display()));
    m.send("position  startpos ");
    m.send("go byoyomi 100");
    let info = m.next_line(PATIENCE).expect("info");
    let best = m.next_line(PATIENCE).expect("bestmove");
    let mv = best.strip_prefix("bestmove ").expect("a bestmove");
    assert!(["7g7f", "2g2f"].contains(&mv), "{best}");
    assert!(info.starts_with("info depth 1 score cp ") && info.ends_with(&format!(" pv {mv}")));
    m.send("position startpos moves 7g7f");
    m.send("go byoyomi 100");
    m.next_line(PATIENCE).expect("info");
    let best = m.next_line(PATIENCE).expect("bestmove");
    assert!(
        ["bestmove 3c3d", "bestmove 8c8d"].contains(&best.as_str()),
        "{best}"
    );
    // A position the file does not list: resign.
    m.send("position startpos moves 2g2f");
    m.send("go byoyomi 100");
    m.expect("bestmove resign");
    let _ = std::fs::remove_file(&file);
}

/// A mock whose every `go` is the fault `kind`, with its faults log.
fn faulty(kind: &str) -> (Mock, PathBuf, PathBuf) {
    let file = moves_file(&format!("moves-{kind}.tsv"));
    let log = common::scratch_path(&format!("faults-{kind}.log"));
    let mut m = Mock::start(&format!(
        "moves_file: {}\nfaults: 100 seed 7 kinds {kind}\nfaults_log: {}\ngo: bestmove 9g9f\n",
        file.display(),
        log.display()
    ));
    m.send("position startpos");
    (m, file, log)
}

fn logged(log: &PathBuf) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split(" pid ").next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn faults_replace_the_entry_and_are_logged() {
    let (mut m, file, log) = faulty("crash");
    m.send("go byoyomi 100");
    assert_eq!(m.wait_exit().code(), Some(3));
    assert_eq!(logged(&log), ["crash"]);

    let (mut m, _, log) = faulty("illegal");
    m.send("go byoyomi 100");
    m.expect("bestmove 5a4b");
    m.send("go byoyomi 100");
    m.expect("bestmove 5a4b");
    assert_eq!(logged(&log), ["illegal", "illegal"]);

    let (mut m, _, log) = faulty("unparsable");
    m.send("go byoyomi 100");
    m.expect("bestmove xyz");
    assert_eq!(logged(&log), ["unparsable"]);

    let (mut m, _, _) = faulty("stale");
    m.send("go byoyomi 100");
    for _ in 0..2 {
        assert!(m.next_line(PATIENCE).unwrap().starts_with("info depth 1"));
        assert!(m.next_line(PATIENCE).unwrap().starts_with("bestmove "));
    }

    let (mut m, _, _) = faulty("garbage");
    m.send("go byoyomi 100");
    assert!(m.next_line(PATIENCE).unwrap().contains("garbage"));
    m.expect_silence();
    m.send("stop");
    assert!(m.next_line(PATIENCE).unwrap().starts_with("info depth 1"));
    assert!(m.next_line(PATIENCE).unwrap().starts_with("bestmove "));

    let (mut m, _, _) = faulty("slow");
    let start = Instant::now();
    m.send("go byoyomi 100");
    m.send("stop");
    assert!(m.next_line(PATIENCE).unwrap().starts_with("info depth 1"));
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "stop ignored"
    );

    let (mut m, _, log) = faulty("hang");
    m.send("go byoyomi 100");
    m.send("stop");
    m.send("quit");
    m.expect_silence();
    m.close_stdin();
    assert_eq!(m.wait_exit().code(), Some(0));
    assert_eq!(logged(&log), ["hang"]);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn fault_rate_zero_keeps_the_script_and_a_bad_directive_exits_with_2() {
    let mut m = Mock::start("faults: 0 seed 1\ngo: bestmove 1g1f\n");
    for _ in 0..20 {
        m.send("go byoyomi 100");
        m.expect("bestmove 1g1f");
    }
    for bad in [
        "faults: 120 seed 1\n",
        "faults: 5\n",
        "faults: 5 seed 1 kinds crash,explode\n",
    ] {
        let mut m = Mock::start(bad);
        assert_eq!(m.wait_exit().code(), Some(2), "{bad}");
    }
}

#[test]
fn fault_rate_is_roughly_the_percentage() {
    // 400 draws at 25 %: a binomial with σ ≈ 8.7; 50…150 is more than 5σ either side.
    let log = common::scratch_path("faults-rate.log");
    let mut m = Mock::start(&format!(
        "faults: 25 seed 3 kinds unparsable\nfaults_log: {}\ngo: bestmove 1g1f\n",
        log.display()
    ));
    let mut faults = 0;
    for _ in 0..400 {
        m.send("go byoyomi 100");
        match m.next_line(PATIENCE).as_deref() {
            Some("bestmove xyz") => faults += 1,
            Some("bestmove 1g1f") => {}
            other => panic!("{other:?}"),
        }
    }
    assert!((50..=150).contains(&faults), "{faults} faults in 400");
    assert_eq!(logged(&log).len(), faults);
    let _ = std::fs::remove_file(&log);
}
