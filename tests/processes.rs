//! Member processes never outlive gougi (issue #17, defect 11), through the real binary: a
//! member that ignores SIGTERM, `quit` and stdin EOF, and that starts a child of its own, must
//! be gone after gougi is SIGKILLed, SIGTERMed or quits, and what a member leaves behind when it
//! exits must die with it. And `MateEngine.forPV.Count` is capped, so a config cannot start an
//! unbounded number of members.
//!
//! The members are shell scripts that write their pid (and their child's) into the scratch
//! folder; `/proc/<pid>/stat` says whether a process is still alive (a zombie counts as gone:
//! in a container nobody may reap an orphan).

#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{mock_config, scratch_dir, Gougi};

/// How long a process may take to disappear.
const GONE_WITHIN: Duration = Duration::from_secs(2);

/// Answers `usi` / `isready`, ignores SIGTERM, SIGHUP, SIGINT, `quit` and stdin EOF. With
/// `child`, it first starts `sleep 1000` in the background (its pid in `child.pid`); with
/// `exit_at_newgame`, it exits at `usinewgame`, leaving that child behind.
fn stubborn_member(dir: &Path, child: bool, exit_at_newgame: bool) -> PathBuf {
    let mut script = String::from("#!/bin/sh\ncd \"$(dirname \"$0\")\"\n");
    if child {
        script += "sleep 1000 &\necho $! > child.pid\n";
    }
    script += "trap '' TERM HUP INT\necho $$ > member.pid\n";
    script += "while read -r line; do\n  case \"$line\" in\n";
    script += "    usi) echo 'id name stubborn'; echo usiok;;\n";
    script += "    isready) echo readyok;;\n";
    if exit_at_newgame {
        script += "    usinewgame) exit 3;;\n";
    }
    script += "  esac\ndone\n";
    // At EOF (gougi gone or `quit` ignored): keep running, same pid, SIGTERM still ignored.
    script += "exec sleep 1000\n";
    let path = dir.join("member.sh");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.join("SimpleGougi.config");
    std::fs::write(&config, "Gougi.Type=optimistic\nEngine1.Path=member.sh\n").unwrap();
    config
}

/// The pid in `dir/name`, waiting for the script to write it.
fn read_pid(dir: &Path, name: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "no {name} written");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `(state, parent pid)` from `/proc/<pid>/stat`, `None` if there is no such process.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so split after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

fn alive(pid: i32) -> bool {
    stat(pid).is_some_and(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// True once `pid` is gone, polling up to [`GONE_WITHIN`].
fn gone_in_time(pid: i32) -> bool {
    let deadline = Instant::now() + GONE_WITHIN;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: a plain system call on a pid this test started (indirectly).
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Kills what a failing run left behind, so a red test does not leave `sleep 1000`s around:
/// the pids first read, and those in the pid files at the end (a restarted member writes new
/// ones).
struct Cleanup(Vec<i32>, PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let latest = ["member.pid", "child.pid"].into_iter().filter_map(|name| {
            std::fs::read_to_string(self.1.join(name))
                .ok()
                .and_then(|t| t.trim().parse().ok())
        });
        for pid in self.0.iter().copied().chain(latest) {
            if alive(pid) {
                signal(pid, libc::SIGKILL);
            }
        }
    }
}

/// Starts gougi on a stubborn member, does the handshake; returns gougi, the member's pid and
/// its child's pid (if any). gougi's pid is the member's parent.
fn start_stubborn(tag: &str, child: bool, exit_at_newgame: bool) -> (Gougi, PathBuf, i32, Cleanup) {
    let dir = scratch_dir(tag);
    let config = stubborn_member(&dir, child, exit_at_newgame);
    let mut gougi = Gougi::with_config(&config);
    gougi.send("usi");
    gougi.until_prefix("usiok");
    gougi.send("isready");
    gougi.until(Duration::from_secs(20), |l| l == "readyok");
    let member = read_pid(&dir, "member.pid");
    let mut cleanup = Cleanup(vec![member], dir.clone());
    if child {
        cleanup.0.push(read_pid(&dir, "child.pid"));
    }
    (gougi, dir, member, cleanup)
}

#[test]
fn sigkill_of_gougi_kills_a_member_that_ignores_sigterm_and_eof() {
    let (_gougi, _dir, member, _cleanup) = start_stubborn("sigkill", false, false);
    let (_, gougi_pid) = stat(member).expect("member running");
    assert!(alive(member));
    signal(gougi_pid, libc::SIGKILL);
    assert!(
        gone_in_time(member),
        "member {member} still running {GONE_WITHIN:?} after gougi was SIGKILLed: {:?}",
        stat(member)
    );
}

#[test]
fn sigterm_of_gougi_kills_the_member_and_what_it_started() {
    let (_gougi, dir, member, _cleanup) = start_stubborn("sigterm", true, false);
    let child = read_pid(&dir, "child.pid");
    let (_, gougi_pid) = stat(member).expect("member running");
    signal(gougi_pid, libc::SIGTERM);
    assert!(
        gone_in_time(member),
        "member still running: {:?}",
        stat(member)
    );
    assert!(
        gone_in_time(child),
        "the member's child still running: {:?}",
        stat(child)
    );
}

#[test]
fn quit_leaves_neither_the_member_nor_what_it_started() {
    let (mut gougi, dir, member, _cleanup) = start_stubborn("quit", true, false);
    let child = read_pid(&dir, "child.pid");
    gougi.send("quit");
    assert!(
        gougi.wait_exit(Duration::from_secs(10)).is_some(),
        "gougi did not exit"
    );
    assert!(
        gone_in_time(member),
        "member still running: {:?}",
        stat(member)
    );
    assert!(
        gone_in_time(child),
        "the member's child still running: {:?}",
        stat(child)
    );
}

#[test]
fn a_member_that_exits_takes_what_it_started_with_it() {
    let (mut gougi, dir, member, _cleanup) = start_stubborn("exits", true, true);
    let child = read_pid(&dir, "child.pid");
    gougi.send("usinewgame");
    assert!(
        gone_in_time(member),
        "member still running: {:?}",
        stat(member)
    );
    assert!(
        gone_in_time(child),
        "the exited member's child still running: {:?}",
        stat(child)
    );
    // gougi itself is still there and answers (restarting the member), and quits cleanly:
    // the restarted member's child goes too.
    gougi.send("isready");
    gougi.until(Duration::from_secs(20), |l| l == "readyok");
    let restarted_child = read_pid(&dir, "child.pid");
    assert_ne!(restarted_child, child, "the member was restarted");
    gougi.send("quit");
    assert!(gougi.wait_exit(Duration::from_secs(10)).is_some());
    assert!(
        gone_in_time(restarted_child),
        "the restarted member's child still running: {:?}",
        stat(restarted_child)
    );
}

/// How many times the member whose transcript is `log` was started (each start is sent `usi`).
fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.trim() == "usi")
        .count()
}

/// Issue 65 item 4, "shutdown is final": after the GUI's input ends gougi still answers the
/// `go` it was given, and a member that dies meanwhile is not started again: gougi is ending,
/// and a replacement would be killed a moment later (on Windows, one started as Ctrl-C ended
/// the members outlived gougi). Failed before: E1 was restarted at once.
#[test]
fn a_member_that_dies_after_eof_is_not_started_again() {
    let dir = scratch_dir("eof-no-restart");
    let log = dir.join("e1.log");
    let e1 = format!(
        "transcript: {}\ngo: info depth 1 score cp 900 pv 7g7f ; busy 200 ; exit 3\n",
        log.display()
    );
    // E2 answers well after E1 has died, so the round is still open when it does.
    let e2 = "go: busy 1500 ; info depth 3 score cp 20 pv 2g2f ; bestmove 2g2f\n";
    let config = mock_config(&dir, "optimistic", &[&e1, e2], None, "");
    let mut gougi = Gougi::with_config(&config);
    gougi.handshake();
    gougi.send("position startpos");
    gougi.send("go btime 0 wtime 0 byoyomi 10000");
    gougi.close();
    let lines = gougi.until(Duration::from_secs(20), |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f", "{lines:#?}");
    assert_eq!(gougi.wait_exit(Duration::from_secs(10)), Some(0));
    assert_eq!(
        starts(&log),
        1,
        "E1 was started again after EOF: {lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string [Error] E1") && l.contains("not restarted")),
        "the GUI is told E1 stays down: {lines:#?}"
    );
}

/// The same at `quit`: members end as gougi ends (E1 dies in the middle of its search), and
/// none is started again.
#[test]
fn a_member_that_dies_at_quit_is_not_started_again() {
    let dir = scratch_dir("quit-no-restart");
    let log = dir.join("e1.log");
    let e1 = format!(
        "transcript: {}\ngo: info depth 1 score cp 900 pv 7g7f ; busy 100 ; exit 3\n",
        log.display()
    );
    let config = mock_config(&dir, "optimistic", &[&e1], None, "");
    let mut gougi = Gougi::with_config(&config);
    gougi.handshake();
    gougi.send("position startpos");
    gougi.send("go infinite");
    gougi.until_prefix("info depth 1");
    gougi.send("quit");
    assert_eq!(gougi.wait_exit(Duration::from_secs(10)), Some(0));
    // Time for a restart to show in the transcript, had there been one.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(starts(&log), 1, "E1 was started again after quit");
}

#[test]
fn mate_pv_count_beyond_the_cap_is_a_config_error() {
    let dir = scratch_dir("pvcount");
    let config = mock_config(
        &dir,
        "mate-pv",
        &["usi: usiok\nisready: readyok\n"],
        Some("usi: usiok\nisready: readyok\n"),
        "MateEngine.forPV.Count=17\n",
    );
    let mut gougi = Gougi::with_config(&config);
    gougi.send("usi");
    let line = gougi
        .next(Duration::from_secs(20))
        .expect("gougi says why it cannot start");
    assert!(
        line.starts_with("info string [Error] ")
            && line.contains("SimpleGougi.config:4: MateEngine.forPV.Count: ")
            && line.contains("16"),
        "{line}"
    );
    assert_eq!(gougi.wait_exit(Duration::from_secs(10)), Some(1));
    assert!(!gougi.seen.iter().any(|l| l == "usiok"), "{:?}", gougi.seen);
    // 16 is accepted.
    let config = mock_config(
        &dir,
        "mate-pv",
        &["usi: usiok\nisready: readyok\n"],
        Some("usi: usiok\nisready: readyok\n"),
        "MateEngine.forPV.Count=16\n",
    );
    let mut gougi = Gougi::with_config(&config);
    gougi.send("usi");
    gougi.until_prefix("usiok");
    gougi.send("quit");
    assert!(gougi.wait_exit(Duration::from_secs(20)).is_some());
}
