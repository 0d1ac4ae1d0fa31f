//! Member engines as real child processes: spawn, parallel handshakes, timeouts, exits,
//! garbage, kill and kill-on-drop. Members are `examples/mock_engine` (scripted) or `/bin/sh`
//! one-liners. Timing checks are generous bounds; nothing measures speed.

mod common;

use common::mock_engine_path;

use std::time::{Duration, Instant};

use gougi::member::{
    handshake_all, ready_all, MemberError, MemberEvent, MemberHandle, MemberSpec, Phase, Role,
};
use gougi::usi::{EngineMessage, GuiCommand, OptionKind, UsiMove};
use tokio::sync::mpsc;

/// Long enough for a loaded 2-core machine; only failing tests wait this long.
const PATIENCE: Duration = Duration::from_secs(10);

/// A mock member `number` running `script` (written to a scratch file).
fn mock(number: u32, script: &str) -> MemberSpec {
    let file = common::scratch_path(&format!("member-{number}.txt"));
    std::fs::write(&file, script).unwrap();
    let mut spec = MemberSpec::new(number, Role::Normal, mock_engine_path(), &[]);
    spec.args = vec![file.display().to_string()];
    spec
}

/// A `/bin/sh -c <script>` member.
fn sh(number: u32, script: &str) -> MemberSpec {
    MemberSpec::new(number, Role::Normal, "/bin/sh", &["-c", script])
}

type Events = mpsc::UnboundedReceiver<MemberEvent>;

fn start(specs: &[MemberSpec]) -> (Vec<MemberHandle>, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handles = MemberHandle::spawn_all(specs, &tx)
        .into_iter()
        .map(|h| h.expect("spawn"))
        .collect();
    (handles, rx)
}

/// The next event, or a test failure after [`PATIENCE`].
async fn next(events: &mut Events) -> MemberEvent {
    tokio::time::timeout(PATIENCE, events.recv())
        .await
        .expect("no event in time")
        .expect("event channel closed")
}

/// True once `/proc/<pid>` is gone (killed and reaped), polling up to [`PATIENCE`].
#[cfg(target_os = "linux")]
async fn process_gone(pid: u32) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

const ENGINE: &str = "\
id name MockYane 1.0
id author tests
option name USI_Hash type spin default 256 min 1 max 4096
option name OwnBook type check default true
usi: say banner before usiok ; usiok
isready: readyok
go: info depth 3 score cp 42 pv 7g7f 3c3d ; bestmove 7g7f ponder 3c3d
";

#[tokio::test]
async fn handshake_ready_and_a_search() {
    let (members, mut events) = start(&[mock(1, ENGINE)]);
    let hs = handshake_all(&members, &mut events, PATIENCE).await;
    let hs = hs.into_iter().next().unwrap().unwrap();
    assert_eq!(hs.name.as_deref(), Some("MockYane 1.0"));
    assert_eq!(hs.author.as_deref(), Some("tests"));
    let names: Vec<&str> = hs.options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, vec!["USI_Hash", "OwnBook"]);
    assert_eq!(
        hs.options[0].kind,
        OptionKind::Spin {
            default: Some(256),
            min: Some(1),
            max: Some(4096)
        }
    );

    let mut keepalives = 0;
    let ready = ready_all(
        &members,
        &mut events,
        PATIENCE,
        Duration::from_secs(5),
        || keepalives += 1,
    )
    .await;
    assert!(ready[0].is_ok(), "{ready:?}");

    members[0]
        .send(&"position startpos".parse::<GuiCommand>().unwrap())
        .unwrap();
    members[0].send_line("go byoyomi 1000").unwrap();
    let info = next(&mut events).await;
    assert_eq!(info.member(), 1);
    let MemberEvent::Message {
        message: EngineMessage::Info(info),
        ..
    } = info
    else {
        panic!("expected info, got {info:?}");
    };
    assert_eq!(info.depth, Some(3));
    let best = next(&mut events).await;
    let MemberEvent::Message {
        message: EngineMessage::BestMove(best),
        ..
    } = best
    else {
        panic!("expected bestmove, got {best:?}");
    };
    assert_eq!(best.mv(), Some("7g7f".parse::<UsiMove>().unwrap()));
    assert_eq!(best.ponder(), Some("3c3d".parse::<UsiMove>().unwrap()));

    // quit: the member exits by itself with status 0.
    members[0].send(&GuiCommand::Quit).unwrap();
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Exited {
            member: 1,
            instance: members[0].instance(),
            code: Some(0)
        }
    );
    assert_eq!(members[0].exit_code(), Some(Some(0)));
}

#[tokio::test]
async fn handshakes_run_in_parallel() {
    // Each member takes 700 ms to answer `usi`; one after another would take 2.1 s.
    let slow = "id name Slow\nusi: sleep 700 ; usiok\n";
    let specs: Vec<MemberSpec> = (1..=3).map(|n| mock(n, slow)).collect();
    let (members, mut events) = start(&specs);
    let t0 = Instant::now();
    let hs = handshake_all(&members, &mut events, PATIENCE).await;
    let elapsed = t0.elapsed();
    assert!(hs.iter().all(Result::is_ok), "{hs:?}");
    assert!(elapsed >= Duration::from_millis(700), "{elapsed:?}");
    assert!(
        elapsed < Duration::from_millis(1900),
        "not parallel: {elapsed:?}"
    );
}

#[tokio::test]
async fn usiok_timeout_leaves_the_others_alone() {
    let specs = [
        mock(1, "id name Good\n"),
        mock(2, "id name Mute\nusi: say starting up...\n"),
        mock(3, "id name Crash\nusi: exit 7\n"),
    ];
    let (members, mut events) = start(&specs);
    let t0 = Instant::now();
    let hs = handshake_all(&members, &mut events, Duration::from_millis(800)).await;
    assert!(t0.elapsed() < PATIENCE);
    assert_eq!(hs[0].as_ref().unwrap().name.as_deref(), Some("Good"));
    assert!(
        matches!(hs[1], Err(MemberError::Timeout { phase: Phase::Usi })),
        "{:?}",
        hs[1]
    );
    assert!(
        matches!(hs[2], Err(MemberError::Exited { code: Some(7) })),
        "{:?}",
        hs[2]
    );
    assert_eq!(
        hs[1].as_ref().unwrap_err().to_string(),
        "member did not answer `usi` in time"
    );
}

#[tokio::test]
async fn ready_keepalive_and_timeout() {
    let specs = [
        mock(1, "isready: sleep 400 ; readyok\n"),
        mock(2, "isready: sleep 60000 ; readyok\n"),
    ];
    let (members, mut events) = start(&specs);
    let hs = handshake_all(&members, &mut events, PATIENCE).await;
    assert!(hs.iter().all(Result::is_ok));
    let mut keepalives = 0;
    let ready = ready_all(
        &members,
        &mut events,
        Duration::from_millis(1000),
        Duration::from_millis(50),
        || keepalives += 1,
    )
    .await;
    assert!(ready[0].is_ok(), "{ready:?}");
    assert!(
        matches!(
            ready[1],
            Err(MemberError::Timeout {
                phase: Phase::IsReady
            })
        ),
        "{ready:?}"
    );
    // ~20 ticks in 1 s; a loaded machine may skip some, never all.
    assert!(keepalives >= 3, "{keepalives}");
}

#[tokio::test]
async fn exit_code_is_reported() {
    let (members, mut events) = start(&[sh(4, "echo hello; exit 3")]);
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Message {
            member: 4,
            instance: members[0].instance(),
            message: EngineMessage::Unknown("hello".into())
        }
    );
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Exited {
            member: 4,
            instance: members[0].instance(),
            code: Some(3)
        }
    );
    // Sending to a dead member is an error carrying its status.
    let err = members[0].send(&GuiCommand::IsReady).unwrap_err();
    assert!(
        matches!(err, MemberError::Exited { code: Some(3) }),
        "{err:?}"
    );
}

#[tokio::test]
async fn garbage_lines_never_panic() {
    let script = "go: say <<garbage>> ; say ; say bestmove 7g7z ; say info depth x score cp ; bestmove 2g2f\n";
    let (members, mut events) = start(&[mock(2, script)]);
    members[0].send_line("go btime 0 wtime 0").unwrap();
    let mut got = Vec::new();
    loop {
        match next(&mut events).await {
            MemberEvent::Message { message, .. } => {
                let done = matches!(message, EngineMessage::BestMove(_));
                got.push(message);
                if done {
                    break;
                }
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(got[0], EngineMessage::Unknown("<<garbage>>".into()));
    assert_eq!(got[1], EngineMessage::Unknown("".into()));
    // An invalid move is unusable: kept verbatim as Unknown, not a bestmove.
    assert_eq!(got[2], EngineMessage::Unknown("bestmove 7g7z".into()));
    assert!(matches!(got[3], EngineMessage::Info(_)), "{:?}", got[3]);
    assert_eq!(got[4], "bestmove 2g2f".parse::<EngineMessage>().unwrap());

    // Invalid UTF-8 and an unterminated last line.
    let (m, mut events) = start(&[sh(3, r"printf 'a\377b\nusiok'")]);
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Message {
            member: 3,
            instance: m[0].instance(),
            message: EngineMessage::Unknown("a\u{fffd}b".into())
        }
    );
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Message {
            member: 3,
            instance: m[0].instance(),
            message: EngineMessage::UsiOk
        }
    );
}

#[tokio::test]
async fn stderr_is_not_relayed_and_working_dir_is_used() {
    let dir = std::env::temp_dir();
    let mut spec = sh(5, "echo oops >&2; pwd; exit 0");
    spec.working_dir = Some(dir.clone());
    let (_members, mut events) = start(&[spec]);
    let first = next(&mut events).await;
    let MemberEvent::Message {
        message: EngineMessage::Unknown(pwd),
        ..
    } = first
    else {
        panic!("{first:?}");
    };
    assert_eq!(
        std::fs::canonicalize(pwd).unwrap(),
        std::fs::canonicalize(dir).unwrap()
    );
    assert!(matches!(
        next(&mut events).await,
        MemberEvent::Exited { code: Some(0), .. }
    ));
}

#[tokio::test]
async fn spawn_failure_is_an_error() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let spec = MemberSpec::new(
        6,
        Role::Normal,
        "/nonexistent/gougi-member-test-engine",
        &[],
    );
    let err = MemberHandle::spawn(&spec, tx).unwrap_err();
    assert!(
        matches!(err, MemberError::Spawn { member: 6, .. }),
        "{err:?}"
    );
    assert!(err
        .to_string()
        .starts_with("member 6: cannot start /nonexistent/gougi-member-test-engine"));
}

#[tokio::test]
async fn line_breaks_are_refused() {
    let (members, _events) = start(&[mock(1, ENGINE)]);
    assert!(matches!(
        members[0].send_line("isready\nquit"),
        Err(MemberError::Io(_))
    ));
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn kill_reports_exit_and_reaps() {
    let (members, mut events) = start(&[mock(1, "go: hang\n")]);
    let pid = members[0].pid().unwrap();
    members[0].send_line("go infinite").unwrap();
    members[0].kill();
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Exited {
            member: 1,
            instance: members[0].instance(),
            code: None
        }
    );
    assert!(process_gone(pid).await, "pid {pid} still exists");
    // Killing again is harmless.
    members[0].kill();
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn dropping_the_handle_kills_the_member() {
    let (members, mut events) = start(&[mock(1, ENGINE), sh(2, "exec sleep 600")]);
    let pids: Vec<u32> = members.iter().map(|m| m.pid().unwrap()).collect();
    drop(members);
    for pid in pids {
        assert!(process_gone(pid).await, "orphan pid {pid}");
    }
    // Both actors report the end.
    let mut exited = [next(&mut events).await, next(&mut events).await];
    exited.sort_by_key(MemberEvent::member);
    assert!(matches!(exited[0], MemberEvent::Exited { member: 1, .. }));
    assert!(matches!(exited[1], MemberEvent::Exited { member: 2, .. }));
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_member_that_closes_stdout_but_lingers_is_killed() {
    // stdout closed, process still alive: after the exit grace period it is killed and reaped.
    let (members, mut events) = start(&[sh(8, "exec >&-; exec sleep 600")]);
    let pid = members[0].pid().unwrap();
    assert_eq!(
        next(&mut events).await,
        MemberEvent::Exited {
            member: 8,
            instance: members[0].instance(),
            code: None
        }
    );
    assert!(process_gone(pid).await, "pid {pid} still exists");
}
