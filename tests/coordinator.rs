//! The coordinator in-process, with scripted members, under paused (virtual) time.
//!
//! `tests/proxy.rs` drives the real binary with real member processes; its timing tests cost
//! wall-clock seconds and can only check loose bounds. Here the same coordinator runs as a task
//! with `member::scripted` members (tokio tasks keeping tokio's clock) and a `Capture` that
//! stamps every output line with the virtual time it was written, so deadlines, hang detection
//! and the ponder miss are measured to the millisecond without sleeping. Every `bestmove` is
//! checked for legality with the rules core.

use std::path::Path;
use std::time::Duration;

use gougi::config::Config;
use gougi::gougi::coordinator::Coordinator;
use gougi::member::scripted::{Capture, Go, Script, Scripted};
use gougi::shogi::position::Position;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout, Instant};

const MS: Duration = Duration::from_millis(1);

/// gougi under test: its GUI input, its captured output and its members.
struct Gui {
    input: DuplexStream,
    out: Capture,
    members: Scripted,
    run: JoinHandle<anyhow::Result<()>>,
    /// Output lines already looked at.
    seen: usize,
    /// The moves of the game so far (`position startpos moves …`).
    moves: Vec<String>,
}

/// A config with one `Engine<N>` per script (the path is never run: members are scripted).
fn start(
    policy: &str,
    scripts: Vec<Script>,
    options: &[&str],
) -> impl std::future::Future<Output = Gui> {
    start_with(policy, scripts, "", options)
}

/// [`start`] with more config lines after the members' paths.
fn start_with(
    policy: &str,
    scripts: Vec<Script>,
    config: &str,
    options: &[&str],
) -> impl std::future::Future<Output = Gui> {
    start_numbered(policy, scripts, None, config, options)
}

/// [`start_with`] with a script for the mate member (`MateEngine.*`, member 0), when `config`
/// has one. As a local GUI on a pipe: `G_NetworkDelay` 0 (its tests set it themselves), so the
/// clocks here are gougi's own margins' ([`start_as_shipped`] keeps every default).
fn start_numbered(
    policy: &str,
    scripts: Vec<Script>,
    mate: Option<Script>,
    config: &str,
    options: &[&str],
) -> impl std::future::Future<Output = Gui> {
    let mut all = vec!["setoption name G_NetworkDelay value 0"];
    all.extend(options.iter().copied());
    start_inner(policy, scripts, mate, config, &all)
}

/// [`start`] with every `G_` option at its default.
fn start_as_shipped(policy: &str, scripts: Vec<Script>) -> impl std::future::Future<Output = Gui> {
    start_inner(policy, scripts, None, "", &[])
}

fn start_inner(
    policy: &str,
    scripts: Vec<Script>,
    mate: Option<Script>,
    config: &str,
    options: &[&str],
) -> impl std::future::Future<Output = Gui> {
    let mut text = format!("Gougi.Type={policy}\n");
    for i in 1..=scripts.len() {
        text.push_str(&format!("Engine{i}.Path=builtin:search\n"));
    }
    text.push_str(config);
    let config = Config::parse(&text, Path::new("/tmp/SimpleGougi.config")).expect("config");
    let members = Scripted::new((1..).zip(scripts).chain(mate.map(|m| (0, m))));
    let out = Capture::new();
    let coordinator = Coordinator::start_with(config, out.clone(), members.launcher());
    let (input, theirs) = tokio::io::duplex(1 << 16);
    let run = tokio::spawn(coordinator.run(BufReader::new(theirs)));
    let mut gui = Gui {
        input,
        out,
        members,
        run,
        seen: 0,
        moves: Vec::new(),
    };
    let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    async move {
        gui.send("usi").await;
        gui.until("usiok", Duration::from_secs(11)).await;
        for o in options {
            gui.send(&o).await;
        }
        gui.send("isready").await;
        gui.until("readyok", Duration::from_secs(61)).await;
        gui.send("usinewgame").await;
        gui
    }
}

impl Gui {
    /// Sends one GUI line; returns the (virtual) time it was sent.
    async fn send(&mut self, line: &str) -> Instant {
        self.input
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("gougi reads its input");
        Instant::now()
    }

    /// Waits at most `limit` of virtual time for a line starting with `prefix` after the lines
    /// already seen; returns the time it was written and every line up to it.
    async fn until(&mut self, prefix: &str, limit: Duration) -> (Instant, Vec<String>) {
        let wait = self.out.wait_for(self.seen, |l| l.starts_with(prefix));
        let Ok((i, at, _)) = timeout(limit, wait).await else {
            panic!(
                "no `{prefix}` within {limit:?}; output:\n{:#?}",
                self.out.lines()
            )
        };
        let lines = self.out.lines()[self.seen..=i]
            .iter()
            .map(|l| l.1.clone())
            .collect();
        self.seen = i + 1;
        (at, lines)
    }

    fn position(&self) -> String {
        if self.moves.is_empty() {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", self.moves.join(" "))
        }
    }

    /// `position` + `go <limits>`; waits for the `bestmove`, checks it is legal, plays it and
    /// an opponent reply. Returns the time from `go` to `bestmove` and the round's lines.
    async fn play(&mut self, limits: &str, limit: Duration) -> (Duration, Vec<String>) {
        let position = self.position();
        self.send(&position).await;
        let t0 = self.send(&format!("go {limits}")).await;
        let (at, lines) = self.until("bestmove", limit).await;
        let mv = legal_bestmove(&position, lines.last().unwrap());
        self.moves.push(mv);
        let reply = first_legal(&self.position());
        self.moves.push(reply);
        (at - t0, lines)
    }

    /// The last `go` member `n` (1-based) was sent.
    fn last_go(&self, n: u32) -> String {
        let received = self.members.received(n);
        let go = received.iter().rev().find(|r| r.1.starts_with("go "));
        go.expect("a go was sent").1.clone()
    }

    /// `moves` moves on main time from `main` (the other side at 60 s, byoyomi 1 s), the GUI
    /// charging each move `charge(gougi's time)`. Returns, per move, our main time and the `go`
    /// member 1 was told, and the lines that spoke of a network delay.
    async fn play_main_time(
        &mut self,
        mut main: u64,
        moves: usize,
        charge: impl Fn(Duration) -> u64,
    ) -> (Vec<(u64, String)>, Vec<String>) {
        let mut told = Vec::new();
        let mut said = Vec::new();
        for _ in 0..moves {
            let (took, lines) = self
                .play(&format!("btime {main} wtime 60000 byoyomi 1000"), 5000 * MS)
                .await;
            told.push((main, self.last_go(1)));
            said.extend(lines.into_iter().filter(|l| l.contains("network delay")));
            main -= charge(took);
        }
        (told, said)
    }

    fn all_output(&self) -> Vec<String> {
        self.out.lines().into_iter().map(|l| l.1).collect()
    }

    async fn quit(mut self) {
        self.send("quit").await;
        let result = timeout(Duration::from_secs(5), self.run)
            .await
            .expect("gougi ends after quit");
        result.expect("no panic").expect("no error");
    }
}

/// The move of a `bestmove` line, which must be legal in `position` (never `resign` here:
/// every position in these tests has legal moves).
fn legal_bestmove(position: &str, line: &str) -> String {
    let mv = line
        .strip_prefix("bestmove ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("not a bestmove line: {line:?}"));
    let board = Position::from_usi_position(position).expect("test positions are legal");
    assert!(
        board.parse_usi_move(mv).is_ok(),
        "illegal {line:?} in {position}"
    );
    mv.to_owned()
}

fn first_legal(position: &str) -> String {
    let board = Position::from_usi_position(position).unwrap();
    board.legal_moves().iter().next().unwrap().to_string()
}

fn count(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|l| l.contains(needle)).count()
}

#[tokio::test(start_paused = true)]
async fn healthy_members_are_answered_as_soon_as_all_have_answered() {
    let scripts = vec![
        Script::always(Go::Answer(300 * MS)).with_score(10),
        Script::always(Go::Answer(100 * MS)).with_score(20),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
    assert_eq!(took, 300 * MS, "{lines:#?}");
    // Optimistic: the higher score (E2's 20) is chosen and shown in the final info line.
    assert!(
        lines.iter().any(|l| l.contains("score cp 20")),
        "{lines:#?}"
    );
    gui.quit().await;
}

#[tokio::test(start_paused = true)]
async fn a_choice_off_the_obvious_move_says_why_and_agreement_does_not() {
    // Two members on different moves: E1's would be the obvious one, optimism takes E2's.
    let scripts = vec![
        Script::always(Go::AnswerNth(100 * MS, 0))
            .with_score(10)
            .named("low"),
        Script::always(Go::AnswerNth(100 * MS, 1))
            .with_score(20)
            .named("high"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let (_, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
    let best = lines.last().expect("bestmove").clone();
    let mv = best
        .strip_prefix("bestmove ")
        .and_then(|b| b.split(' ').next())
        .expect("a move");
    let why = format!("info string [why] {mv}: E2 (high) has the highest score 20 (E1 10)");
    let at = lines.iter().position(|l| *l == why);
    // After the [O]/[X] lines, before the final info and bestmove.
    assert_eq!(at, Some(lines.len() - 3), "{lines:#?}");
    assert_eq!(count(&lines, "[why]"), 1, "{lines:#?}");
    gui.quit().await;
    // Both on the same move: nothing to explain.
    let scripts = vec![
        Script::always(Go::Answer(100 * MS)).with_score(10),
        Script::always(Go::Answer(100 * MS)).with_score(20),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let (_, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
    assert_eq!(count(&lines, "[why]"), 0, "{lines:#?}");
    gui.quit().await;
}

/// (a) A member that never answers cannot make gougi lose on time: the `bestmove` comes
/// before the byoyomi ends, legal (the fallback move).
#[tokio::test(start_paused = true)]
async fn a_member_that_never_answers_gets_a_legal_move_within_byoyomi() {
    let mut gui = start("optimistic", vec![Script::always(Go::Hang)], &[]).await;
    let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
    assert!(took < 1000 * MS, "answered after {took:?}: {lines:#?}");
    // Not before the members' own clock (1000 − G_Margin 60) was up.
    assert!(took >= 940 * MS, "answered after {took:?}: {lines:#?}");
    assert_ne!(lines.last().unwrap(), "bestmove resign");
    gui.quit().await;
}

/// Issue 19 and 65: the defaults keep `G_NetworkDelay` (300 ms, what a CSA server's path
/// takes, here capped at a quarter of the 1 s clock: 250 ms) off the GUI's clock, then `G_Margin` (60 ms, measured on the pipe) off the members':
/// at byoyomi 1000 members are told 690 ms and stopped then, and gougi decides 30 ms later
/// without one that does not answer, 280 ms before the GUI's flag — the exact clock and the
/// exact moment.
#[tokio::test(start_paused = true)]
async fn the_default_margins_leave_members_all_but_310_ms() {
    let scripts = vec![
        Script::always(Go::Hang).named("hung"),
        Script::always(Go::OnStop).named("on-stop"),
    ];
    let mut gui = start_as_shipped("optimistic", scripts).await;
    let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
    assert_eq!(took, 720 * MS, "{lines:#?}");
    for member in [1, 2] {
        let received = gui.members.received(member);
        assert!(
            received
                .iter()
                .any(|(_, l)| l == "go btime 0 wtime 0 byoyomi 690"),
            "{received:#?}"
        );
    }
    gui.quit().await;
}

/// Issue 65: a GUI clock that counts milliseconds shows what it charged for each move; beyond
/// gougi's own time that is the GUI's delay (here 2 ms), and after four such moves it replaces
/// `G_NetworkDelay`: members get the clock less the learned delay and `G_Margin`, and the GUI
/// is told once.
#[tokio::test(start_paused = true)]
async fn a_local_guis_clock_teaches_its_own_small_delay() {
    let scripts = vec![Script::always(Go::Answer(500 * MS)).named("a")];
    let mut gui = start_as_shipped("optimistic", scripts).await;
    // The GUI charges gougi's time and 2 ms of its own.
    let (told, said) = gui
        .play_main_time(60_000, 6, |took| took.as_millis() as u64 + 2)
        .await;
    // Moves 1–4: G_NetworkDelay 300 and G_Margin 60 off main time; from move 5 the learned 4 ms.
    assert_eq!(told[0].1, "go btime 59640 wtime 60000 byoyomi 1000");
    assert_eq!(told[3].1, "go btime 58134 wtime 60000 byoyomi 1000");
    assert_eq!(told[4].1, "go btime 57928 wtime 60000 byoyomi 1000");
    assert_eq!(said, ["info string [Info] the GUI's clock charges ~2 ms a move beyond gougi's own time: network delay 4 ms (G_NetworkDelay 300 until learned)"]);
    gui.quit().await;
}

/// Issue 65: a CSA server's clock counts whole seconds and cannot teach a delay, a missed
/// ponder or not. The miss's turnaround (odd milliseconds) used to come off the clock before the
/// learner saw it, so the seconds looked like milliseconds and the floored charges taught
/// ~110 ms in place of `G_NetworkDelay` 300: through a real server at 60 + 2 s and 50 ms of lag
/// gougi then lost 2 games of 4 on time once its main time was gone. Here the GUI charges each
/// move its time rounded up to a second (so a learner would see ~500 ms); members must be told
/// the clock less 300 + 60 all game, and the GUI never told of a learned delay.
#[tokio::test(start_paused = true)]
async fn a_clock_in_whole_seconds_teaches_no_delay_after_a_ponder_miss() {
    let scripts = vec![Script::always(Go::Answer(500 * MS)).named("a")];
    let mut gui = start_as_shipped("optimistic", scripts).await;
    let main = 60_000u64;
    gui.moves = vec!["7g7f".into(), "3c3d".into()];
    let pondered = gui.position();
    gui.send(&pondered).await;
    gui.send(&format!("go ponder btime {main} wtime 60000 byoyomi 1000"))
        .await;
    sleep(300 * MS).await;
    gui.send("stop").await;
    gui.until("bestmove", 1000 * MS).await;
    sleep(7 * MS).await;
    gui.moves = vec!["7g7f".into(), "8c8d".into()];
    let (told, said) = gui
        .play_main_time(main, 7, |took| {
            (took.as_millis() as u64).div_ceil(1000) * 1000
        })
        .await;
    assert_eq!(said, Vec::<String>::new());
    // The first go after the miss: its 7 ms of turnaround too; then 300 + 60 every move.
    assert_eq!(told[0].1, "go btime 59633 wtime 60000 byoyomi 1000");
    for (main, go) in &told[1..] {
        assert_eq!(
            *go,
            format!("go btime {} wtime 60000 byoyomi 1000", main - 360)
        );
    }
    gui.quit().await;
}

/// (b) A member that ignores `stop` is reported hung, killed and restarted; the replacement
/// plays, hangs too, and is restarted again. Issue 17 defect 3: the killed process's `Exited`
/// used to be applied to its replacement (no instance check), killing it unreported, so the
/// second restart never gave a member that played.
#[tokio::test(start_paused = true)]
async fn a_member_that_hangs_twice_is_restarted_twice() {
    let scripts = vec![
        Script::always(Go::Hang).named("hanger"),
        Script::always(Go::Answer(100 * MS)).named("steady"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    const BYO: &str = "btime 0 wtime 0 byoyomi 1000";
    // Instance 1 hangs; gougi decides without it.
    let (took, _) = gui.play(BYO, 2000 * MS).await;
    assert!(took < 1000 * MS);
    for round in 0..2 {
        // More than HUNG_AFTER (3 s) after its `stop`: the next `go` finds it hung.
        sleep(Duration::from_secs(4)).await;
        let (took, lines) = gui.play(BYO, 2000 * MS).await;
        assert!(took < 1000 * MS, "{lines:#?}");
        assert_eq!(
            count(
                &lines,
                "E1 (hanger) hangs (does not answer after stop); killed, restarting it"
            ),
            1,
            "round {round}: {lines:#?}"
        );
        // The replacement is ready in time for the next move and gets that `go` (it hangs).
        sleep(Duration::from_millis(500)).await;
        let (took, lines) = gui.play(BYO, 2000 * MS).await;
        assert!(took < 1000 * MS, "{lines:#?}");
    }
    let received = gui.members.received(1);
    let instances: Vec<u64> = {
        let mut v: Vec<u64> = received.iter().map(|r| r.0).collect();
        v.dedup();
        v
    };
    assert_eq!(gui.members.launches(1), 3, "{received:#?}");
    assert_eq!(instances.len(), 3, "{received:#?}");
    for instance in instances {
        assert!(
            received
                .iter()
                .any(|(i, line)| *i == instance && line.starts_with("go ")),
            "instance {instance} never played: {received:#?}"
        );
    }
    let output = gui.all_output();
    assert_eq!(count(&output, "; killed, restarting it"), 2, "{output:#?}");
    // The kill was gougi's own doing: no member "exited" report follows it.
    assert_eq!(count(&output, "exited with"), 0, "{output:#?}");
    gui.quit().await;
}

/// The members for the ponder-miss tests: E1 thinks 200 ms (answers at once on `stop`), E2 is
/// hung from its first `go`.
fn ponder_members() -> Vec<Script> {
    vec![
        Script::always(Go::Answer(200 * MS)).named("thinker"),
        Script::always(Go::Hang).named("hung"),
    ]
}

/// `go ponder` → (opponent thinks 500 ms) → `stop` → `go` on another position. Returns the
/// times stop → ponder `bestmove`, final `go` → `bestmove`, and stop → final `bestmove`.
async fn ponder_miss(gui: &mut Gui) -> (Duration, Duration, Duration) {
    gui.moves = vec!["7g7f".into(), "3c3d".into()];
    let ponder_position = gui.position();
    gui.send(&ponder_position).await;
    gui.send("go ponder btime 0 wtime 0 byoyomi 1000").await;
    sleep(500 * MS).await;
    let stopped = gui.send("stop").await;
    let (at, lines) = gui.until("bestmove", 3000 * MS).await;
    legal_bestmove(&ponder_position, lines.last().unwrap());
    let stop_to_bestmove = at - stopped;
    // The opponent played something else: a ponder miss.
    gui.moves = vec!["7g7f".into(), "8c8d".into()];
    let (go_to_bestmove, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 3000 * MS).await;
    assert_ne!(lines.last().unwrap(), "bestmove resign");
    let total = Instant::now() - stopped;
    (stop_to_bestmove, go_to_bestmove, total)
}

/// (c) Both `go`s get exactly one legal `bestmove`, the ponder round's within the stop grace
/// (1 s), the next `go`'s within its byoyomi.
#[tokio::test(start_paused = true)]
async fn a_ponder_miss_with_a_hung_member_answers_both_goes_in_time() {
    let mut gui = start("optimistic", ponder_members(), &[]).await;
    let (stop_to_bestmove, go_to_bestmove, _) = ponder_miss(&mut gui).await;
    assert!(stop_to_bestmove <= 1000 * MS, "{stop_to_bestmove:?}");
    assert!(go_to_bestmove < 1000 * MS, "{go_to_bestmove:?}");
    let output = gui.all_output();
    let bestmoves = output.iter().filter(|l| l.starts_with("bestmove ")).count();
    assert_eq!(bestmoves, 2, "{output:#?}");
    gui.quit().await;
}

/// (c) What issue 17 asks: the whole ponder miss fits in the byoyomi. The GUI's clock runs
/// from `stop`, so `stop` must be answered at once (a member that cannot answer a ponder
/// round is not worth waiting 1 s for), and a member that ignored `stop` must not be waited
/// for again at the next `go`. Before the fix: ~1.0 s + ~0.94 s.
#[tokio::test(start_paused = true)]
async fn a_ponder_miss_with_a_hung_member_fits_in_the_byoyomi() {
    let mut gui = start("optimistic", ponder_members(), &[]).await;
    let (stop_to_bestmove, go_to_bestmove, total) = ponder_miss(&mut gui).await;
    assert!(
        stop_to_bestmove <= 100 * MS,
        "stop → bestmove {stop_to_bestmove:?}"
    );
    assert!(
        go_to_bestmove < 1000 * MS,
        "go → bestmove {go_to_bestmove:?}"
    );
    assert!(total < 1000 * MS, "stop → final bestmove {total:?}");
    gui.quit().await;
}

/// The GUI's clock runs from the opponent's move, so after a missed ponder the GUI's own
/// turnaround (`stop` → `bestmove` → `position` → `go`) is gougi's time: the next `go` is timed
/// from the `stop`. Here the turnaround is 200 ms at byoyomi 1000: members are told 1000 − 200
/// − 60 (`G_Margin`) = 740 and gougi answers 940 ms after the `stop`, not 1140. A gap longer
/// than a GUI's turnaround (1.5 s: the GUI was not timing this move) is not charged.
#[tokio::test(start_paused = true)]
async fn the_go_after_a_ponder_miss_is_timed_from_the_stop() {
    let scripts = vec![
        Script::always(Go::OnStop).named("a"),
        Script::always(Go::OnStop).named("b"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    for (turnaround, told, stop_to_answer) in [(200, 740, 940), (1500, 940, 2440)] {
        // Our move, then the reply gougi ponders on and the one the opponent plays instead.
        gui.moves.push(first_legal(&gui.position()));
        let board = Position::from_usi_position(&gui.position()).unwrap();
        let replies: Vec<String> = board.legal_moves().iter().map(|m| m.to_string()).collect();
        let pondered = format!("{} {}", gui.position(), replies[0]);
        gui.send(&pondered).await;
        gui.send("go ponder btime 0 wtime 0 byoyomi 1000").await;
        sleep(300 * MS).await;
        let stopped = gui.send("stop").await;
        let (_, lines) = gui.until("bestmove", 100 * MS).await;
        legal_bestmove(&pondered, lines.last().unwrap());
        sleep(turnaround * MS).await;
        gui.moves.push(replies[1].clone());
        gui.play("btime 0 wtime 0 byoyomi 1000", 3000 * MS).await;
        let took = gui.out.lines()[gui.seen - 1].0 - stopped;
        assert_eq!(took, stop_to_answer * MS, "turnaround {turnaround} ms");
        assert_eq!(gui.last_go(1), format!("go btime 0 wtime 0 byoyomi {told}"));
    }
    gui.quit().await;
}

/// (d) Fischer clocks: members are stopped at main/4 + inc and gougi decides G_Margin/2
/// later without a hung member; with little main time left, before the main time runs out.
#[tokio::test(start_paused = true)]
async fn fischer_deadlines_hold_with_a_hung_member() {
    let scripts = vec![
        Script::always(Go::Hang).named("hung"),
        Script::always(Go::OnStop).named("slow").with_score(77),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    // 10 s + 2 s/move: stop at 10000/4 + 2000 = 4500 ms, decide at 4500 + 30.
    let (took, lines) = gui
        .play("btime 10000 wtime 10000 binc 2000 winc 2000", 11_000 * MS)
        .await;
    assert_eq!(took, 4530 * MS, "{lines:#?}");
    // E2's answer (given at `stop`) is the one played, with its score.
    assert!(
        lines.iter().any(|l| l.contains("score cp 77")),
        "{lines:#?}"
    );
    let received = gui.members.received(2);
    assert!(
        received
            .iter()
            .any(|(_, l)| l == "go btime 9940 wtime 10000 binc 2000 winc 2000"),
        "members get the clock less G_Margin: {received:#?}"
    );
    // Black again, 500 ms left + 1 s/move: members get 440 ms, gougi answers before its
    // 500 ms (the increment is not counted on: GUIs differ on when they add it).
    let (took, lines) = gui
        .play("btime 500 wtime 10000 binc 1000 winc 1000", 11_000 * MS)
        .await;
    assert!(took < 500 * MS, "answered after {took:?}: {lines:#?}");
    assert!(took >= 440 * MS, "answered after {took:?}: {lines:#?}");
    gui.quit().await;
}

/// Issue 19, time banking (`G_TimeBank 50`, Fischer 60 s + 1 s): members are told half the
/// main time they would get (59 940 → 29 970 ms), so an agreed move costs half as much; when
/// they disagree the move is searched again at once with the whole clock that is left
/// (60 000 − 100 ms elapsed − G_Margin 60 = 59 840 ms), and decided on the second answers.
#[tokio::test(start_paused = true)]
async fn time_banking_shortens_agreed_moves_and_spends_the_bank_on_disagreements() {
    let scripts = vec![
        Script::always(Go::AnswerNth(100 * MS, 0)).named("first"),
        Script::new([
            Go::AnswerNth(100 * MS, 0),
            Go::AnswerNth(100 * MS, 1),
            Go::AnswerNth(100 * MS, 0),
            Go::AnswerNth(100 * MS, 1),
        ])
        .named("second"),
    ];
    let mut gui = start(
        "optimistic",
        scripts,
        &["setoption name G_TimeBank value 50"],
    )
    .await;
    let fischer = "btime 60000 wtime 60000 binc 1000 winc 1000";
    // Agreed: one search each, on the banked clock, decided when both answered.
    let (took, lines) = gui.play(fischer, 11_000 * MS).await;
    assert_eq!(took, 100 * MS, "{lines:#?}");
    let gos = |gui: &Gui, member| -> Vec<String> {
        gui.members
            .received(member)
            .into_iter()
            .map(|(_, l)| l)
            .filter(|l| l.starts_with("go "))
            .collect()
    };
    for member in [1, 2] {
        assert_eq!(
            gos(&gui, member),
            ["go btime 29970 wtime 60000 binc 1000 winc 1000"]
        );
    }
    // Disagreement: the banked search, then the whole clock left.
    let (took, lines) = gui.play(fischer, 11_000 * MS).await;
    assert_eq!(took, 200 * MS, "{lines:#?}");
    for member in [1, 2] {
        assert_eq!(
            gos(&gui, member)[1..],
            [
                "go btime 29970 wtime 60000 binc 1000 winc 1000",
                "go btime 59840 wtime 60000 binc 1000 winc 1000"
            ]
        );
    }
    // Byoyomi cannot be banked: the plan's clock, one search, even when they disagree.
    let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 11_000 * MS).await;
    assert_eq!(took, 100 * MS, "{lines:#?}");
    for member in [1, 2] {
        assert_eq!(gos(&gui, member)[3..], ["go btime 0 wtime 0 byoyomi 940"]);
    }
    gui.quit().await;
}

/// `EvalNoise` as the built-in search declares it.
const EVAL_NOISE: &str = "name EvalNoise type spin default 0 min 0 max 1000";

/// Two members declaring EvalNoise; E1 has it at 50 and 0 when alone, E2 asks for more CPUs
/// than any machine has, so under a clock E1 plays alone (under `go nodes` both play).
fn solo_pair() -> (Vec<Script>, &'static str) {
    let scripts = vec![
        Script::always(Go::Answer(100 * MS))
            .named("noisy")
            .with_option(EVAL_NOISE)
            .with_option("name Threads type spin default 1 min 1 max 64"),
        Script::always(Go::Answer(100 * MS))
            .named("other")
            .with_option(EVAL_NOISE),
    ];
    let config = "Engine1.Option.EvalNoise=50\nEngine1.SoloOption.EvalNoise=0\n\
                  Engine1.SoloOption.Threads=2\nEngine2.MinCores=100000\n";
    (scripts, config)
}

/// What member `n` received from `from` on: `setoption`s as they are, `position`/`go` as the
/// word alone.
fn received_from(gui: &Gui, n: u32, from: usize) -> Vec<String> {
    gui.members.received(n)[from..]
        .iter()
        .map(|(_, l)| l.clone())
        .filter(|l| !l.starts_with("usinewgame"))
        .map(|l| {
            if l.starts_with("setoption") {
                l
            } else {
                l.split(' ').next().unwrap_or("").to_owned()
            }
        })
        .collect()
}

const BYOYOMI: &str = "btime 0 wtime 0 byoyomi 1000";

/// `Engine<N>.SoloOption`: a round that asks E1 alone (E2 sits out under the clock) brings E1
/// its solo values before its `go`; the next round both play in brings its usual values back
/// (the config's `Engine1.Option.EvalNoise=50`, the declared default 1 for Threads); nothing is
/// sent while the state stays; E2, which has no solo options, never gets one.
#[tokio::test(start_paused = true)]
async fn solo_options_are_switched_when_a_member_plays_alone() {
    let (scripts, config) = solo_pair();
    let mut gui = start_with("optimistic", scripts, config, &[]).await;
    // The config's option reached E1 before the game, as always.
    let handshake = gui.members.received(1);
    assert!(
        handshake
            .iter()
            .any(|(_, l)| l == "setoption name EvalNoise value 50"),
        "{handshake:#?}"
    );
    let from1 = handshake.len();
    let from2 = gui.members.received(2).len();
    // Alone, twice: the solo values once, before the first `go`.
    gui.play(BYOYOMI, 2000 * MS).await;
    gui.play(BYOYOMI, 2000 * MS).await;
    // Together, twice: the usual values once.
    gui.play("nodes 1000", 2000 * MS).await;
    gui.play("nodes 1000", 2000 * MS).await;
    // Alone again.
    gui.play(BYOYOMI, 2000 * MS).await;
    assert_eq!(
        received_from(&gui, 1, from1),
        [
            "setoption name EvalNoise value 0",
            "setoption name Threads value 2",
            "position",
            "go",
            "position",
            "go",
            "setoption name EvalNoise value 50",
            "setoption name Threads value 1",
            "position",
            "go",
            "position",
            "go",
            "setoption name EvalNoise value 0",
            "setoption name Threads value 2",
            "position",
            "go",
        ]
    );
    assert_eq!(
        received_from(&gui, 2, from2),
        ["position", "go", "position", "go"]
    );
    // The GUI heard nothing of it.
    let output = gui.all_output();
    assert_eq!(count(&output, "SoloOption"), 0, "{output:#?}");
    assert_eq!(count(&output, "[Warning]"), 0, "{output:#?}");
    gui.quit().await;
}

/// A GUI `setoption` of a solo option replaces what the member holds: the next solo round sends
/// the solo value again, and the GUI's value is the usual one from then on. A restarted member
/// holds its usual values, so its first solo round sends the solo ones again.
#[tokio::test(start_paused = true)]
async fn the_guis_setoption_and_a_restart_reset_the_solo_state() {
    let (mut scripts, config) = solo_pair();
    // E1's third `go` (in the fourth round) crashes it; its restarted instance answers.
    scripts[0] = Script::new([
        Go::Answer(100 * MS),
        Go::Answer(100 * MS),
        Go::Answer(100 * MS),
        Go::Exit(3),
        Go::Answer(100 * MS),
    ])
    .named("noisy")
    .with_option(EVAL_NOISE);
    let config = config.replace("Engine1.SoloOption.Threads=2\n", "");
    let mut gui = start_with("optimistic", scripts, &config, &[]).await;
    let from = gui.members.received(1).len();
    gui.play(BYOYOMI, 2000 * MS).await;
    gui.send("setoption name E1_EvalNoise value 30").await;
    gui.play(BYOYOMI, 2000 * MS).await;
    gui.play("nodes 1000", 2000 * MS).await;
    assert_eq!(
        received_from(&gui, 1, from),
        [
            "setoption name EvalNoise value 0",
            "position",
            "go",
            "setoption name EvalNoise value 30",
            "setoption name EvalNoise value 0",
            "position",
            "go",
            "setoption name EvalNoise value 30",
            "position",
            "go",
        ]
    );
    // A round alone, in which E1 crashes; it is restarted with the GUI's value.
    let (_, lines) = gui.play(BYOYOMI, 2000 * MS).await;
    assert_eq!(
        count(&lines, "E1 (noisy) exited with code 3"),
        1,
        "{lines:#?}"
    );
    sleep(Duration::from_millis(500)).await;
    gui.play(BYOYOMI, 2000 * MS).await;
    let received = gui.members.received(1);
    let second = received.last().unwrap().0;
    let restarted: Vec<&str> = received
        .iter()
        .filter(|(i, l)| *i == second && (l.starts_with("setoption") || l.starts_with("go")))
        .map(|(_, l)| l.as_str())
        .collect();
    assert_eq!(
        restarted,
        [
            "setoption name EvalNoise value 30",
            "setoption name EvalNoise value 0",
            "go btime 0 wtime 0 byoyomi 940",
        ]
    );
    gui.quit().await;
}

/// A solo option the member does not declare, a value its declaration refuses, or one with no
/// usual value to go back to (no default declared, none set) is a warning naming the config's
/// line and key, shown to the GUI at start-up, and is never sent.
#[tokio::test(start_paused = true)]
async fn solo_options_the_member_refuses_are_warnings_and_never_sent() {
    let (mut scripts, _) = solo_pair();
    scripts[0] = scripts[0].clone().with_option("name Note type string");
    let config = "Engine1.SoloOption.Foo=1\nEngine1.SoloOption.EvalNoise=5000\n\
                  Engine1.SoloOption.Note=alone\nEngine2.MinCores=100000\n";
    let mut gui = start_with("optimistic", scripts, config, &[]).await;
    let from = gui.members.received(1).len();
    gui.play(BYOYOMI, 2000 * MS).await;
    assert_eq!(received_from(&gui, 1, from), ["position", "go"]);
    let output = gui.all_output();
    let warnings: Vec<&String> = output.iter().filter(|l| l.contains("[Warning]")).collect();
    assert_eq!(warnings.len(), 3, "{output:#?}");
    assert_eq!(
        warnings[0],
        "info string [Warning] /tmp/SimpleGougi.config:4: Engine1.SoloOption.Foo: \
         E1 (noisy) declares no option Foo; not sent"
    );
    assert!(
        warnings[1].starts_with(
            "info string [Warning] /tmp/SimpleGougi.config:5: Engine1.SoloOption.EvalNoise: "
        ) && warnings[1].ends_with("; not sent"),
        "{warnings:#?}"
    );
    assert_eq!(
        warnings[2],
        "info string [Warning] /tmp/SimpleGougi.config:6: Engine1.SoloOption.Note: E1 (noisy) \
         declares no default for Note and none is set, so its usual value could not be \
         restored; not sent"
    );
    // All before gougi's `usiok`.
    let usiok = output.iter().position(|l| l == "usiok").unwrap();
    assert!(output.iter().position(|l| l == warnings[2]).unwrap() < usiok);
    gui.quit().await;
}

// ----- Issue 49: a stop belongs to one request ----------------------------------------------

/// Lines that say gougi lost a member or played without one.
fn faults(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| {
            l.contains("hangs")
                || l.contains("no member answered")
                || l.contains("answers by itself")
                || l.contains("restarting")
        })
        .cloned()
        .collect()
}

/// Members as real engines behave at long thinking times: they think 4 s and take 300 ms to
/// unwind a search after `stop`.
fn unwinding_members() -> Vec<Script> {
    vec![
        Script::always(Go::Answer(4000 * MS))
            .stop_latency(300 * MS)
            .named("a"),
        Script::always(Go::Answer(4000 * MS))
            .stop_latency(300 * MS)
            .named("b"),
    ]
}

/// Issue 49, defect 1: after a ponder miss the members owe two answers, the stopped ponder
/// search's (300 ms after the `stop`) and the new search's (4 s after its `go`). The stop time
/// was kept per member, so 3 s after the `stop` both looked hung, were killed, and gougi
/// played a fallback at 3.0 s. Now the new search is answered at 4.3 s, by the members.
#[tokio::test(start_paused = true)]
async fn a_ponder_miss_does_not_make_the_next_long_search_look_hung() {
    let mut gui = start("optimistic", unwinding_members(), &[]).await;
    for miss in 0..3 {
        gui.moves = vec!["7g7f".into(), "3c3d".into()];
        let pondered = gui.position();
        gui.send(&pondered).await;
        gui.send("go ponder btime 0 wtime 0 byoyomi 6000").await;
        sleep(500 * MS).await;
        let stopped = gui.send("stop").await;
        let (at, lines) = gui.until("bestmove", 1000 * MS).await;
        assert_eq!(at, stopped, "a ponder miss is answered at once: {lines:#?}");
        gui.moves = vec!["7g7f".into(), "8c8d".into()];
        let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 6000", 7000 * MS).await;
        // Read 300 ms late (the members unwind first), then 4 s of thought.
        assert_eq!(took, 4300 * MS, "miss {miss}: {lines:#?}");
        assert_eq!(faults(&lines), Vec::<String>::new(), "miss {miss}");
        sleep(5000 * MS).await;
    }
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    assert_eq!((gui.members.launches(1), gui.members.launches(2)), (1, 1));
    gui.quit().await;
}

/// Issue 49, defect 1 in analysis: `go infinite` → `stop` → a long `go` kills nobody. E2
/// unwinds for 1.5 s, past the stop grace, so gougi answers the `stop` without it and its next
/// `go` is queued behind the stopped search; that search's `stop` must not be charged to it.
#[tokio::test(start_paused = true)]
async fn analysis_then_a_long_search_kills_nobody() {
    let scripts = vec![
        Script::always(Go::Answer(4000 * MS)).named("a"),
        Script::always(Go::Answer(4000 * MS))
            .stop_latency(1500 * MS)
            .named("b"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let position = gui.position();
    gui.send(&position).await;
    gui.send("go infinite").await;
    sleep(2000 * MS).await;
    gui.send("stop").await;
    gui.until("bestmove", 2000 * MS).await;
    let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 6000", 7000 * MS).await;
    // E2 reads the `go` 0.5 s after it was sent and thinks 4 s.
    assert_eq!(took, 4500 * MS, "{lines:#?}");
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    assert_eq!((gui.members.launches(1), gui.members.launches(2)), (1, 1));
    gui.quit().await;
}

/// Issue 49, defect 2: the mate member's `checkmate` to a stopped `go mate` took its request
/// off without its stop time, so its next search was killed 3 s after that old `stop`.
#[tokio::test(start_paused = true)]
async fn a_mate_member_that_answers_its_stops_is_never_killed() {
    let mate = Script::always(Go::Answer(5000 * MS))
        .stop_latency(200 * MS)
        .named("tsume");
    let normal = Script::always(Go::Answer(600 * MS)).named("search");
    let mut gui = start_numbered(
        "mate",
        vec![normal],
        Some(mate),
        "MateEngine.Path=builtin:mate\n",
        &[],
    )
    .await;
    for _ in 0..20 {
        let (took, lines) = gui.play("btime 0 wtime 0 byoyomi 1000", 2000 * MS).await;
        assert!(took < 1000 * MS, "{lines:#?}");
    }
    let output = gui.all_output();
    assert_eq!(faults(&output), Vec::<String>::new(), "{output:#?}");
    assert_eq!(gui.members.launches(0), 1);
    gui.quit().await;
}

/// Issue 49, defect 3: two `go`s with no time left in a row, then a byoyomi `go`. The second
/// round's search was never stopped (the member's one stop time was still set), so the third
/// `go` reached members still searching, which read it only when that search ended.
#[tokio::test(start_paused = true)]
async fn every_go_to_a_member_that_owes_an_answer_follows_a_stop() {
    let scripts = vec![
        Script::always(Go::OnStop).stop_latency(10 * MS).named("a"),
        Script::always(Go::OnStop).stop_latency(10 * MS).named("b"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let mut last = Vec::new();
    for limits in [
        "btime 0 wtime 0",
        "btime 0 wtime 0",
        "btime 0 wtime 0 byoyomi 940",
    ] {
        let position = gui.position();
        gui.send(&position).await;
        gui.send(&format!("go {limits}")).await;
        let (_, lines) = gui.until("bestmove", 2000 * MS).await;
        let mv = legal_bestmove(&position, lines.last().unwrap());
        gui.moves.push(mv);
        let reply = first_legal(&gui.position());
        gui.moves.push(reply);
        last = lines;
    }
    // With no time at all the first two are gougi's own moves; the third is the members'.
    assert_eq!(faults(&last), Vec::<String>::new(), "{last:#?}");
    sleep(5000 * MS).await;
    for member in [1, 2] {
        // Between two `go`s the member owed an answer to, exactly one `stop`.
        let received: Vec<String> = gui
            .members
            .received(member)
            .into_iter()
            .map(|r| r.1)
            .filter(|l| l.starts_with("go") || l == "stop")
            .collect();
        let gos = received.iter().filter(|l| l.starts_with("go")).count();
        assert_eq!(gos, 3, "{received:#?}");
        for pair in received.windows(2) {
            assert!(
                !(pair[0].starts_with("go") && pair[1].starts_with("go")),
                "a go on top of a search: {received:#?}"
            );
            assert!(pair != ["stop", "stop"], "two stops: {received:#?}");
        }
    }
    let output = gui.all_output();
    assert_eq!(count(&output, "hangs"), 0, "{output:#?}");
    assert_eq!((gui.members.launches(1), gui.members.launches(2)), (1, 1));
    gui.quit().await;
}

/// Issue 49 item 5: a `score cp` beyond the cp range counts as the range's top and no more.
/// E2 claims `cp 99999999`, which used to count as 99999 and win every optimistic decision;
/// clamped to 32000 (YaneuraOu's mate value) it only ties E1's 32000, and the tie goes to the
/// lower number. The GUI is told once per member, not at every line or round, and no line
/// carries a number beyond 32000.
#[tokio::test(start_paused = true)]
async fn a_score_beyond_the_cp_range_is_clamped_and_wins_nothing_by_its_size() {
    let scripts = vec![
        Script::always(Go::AnswerNth(100 * MS, 0))
            .with_score(32_000)
            .named("edge"),
        Script::always(Go::AnswerNth(100 * MS, 1))
            .with_score(99_999_999)
            .named("boast"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let (_, lines) = gui.play(BYOYOMI, 2000 * MS).await;
    assert_eq!(
        lines,
        [
            "info depth 1 score cp 32000 pv 5i4h",
            "info string [Warning] E2 (boast): score cp 99999 or more out of range; clamped to \
             32000",
            // E2's own line is not relayed: with its claim clamped it no longer leads.
            "info string [X] bestmove 5i5h [５八玉(59)] [評価値 32000] [boast]",
            "info string [O] bestmove 5i4h [４八玉(59)] [評価値 32000] [edge]",
            "info string [why] 5i4h: E1 (edge) has the highest score 32000 (E2 32000); the tie \
             goes to the lower number",
            "info depth 1 time 100 multipv 1 score cp 32000 pv 5i4h",
            "bestmove 5i4h",
        ]
    );
    let (_, lines) = gui.play(BYOYOMI, 2000 * MS).await;
    assert_eq!(count(&lines, "[Warning]"), 0, "{lines:#?}");
    assert_eq!(
        count(&lines, "[評価値 32000 （前回32000 差分0）] [boast]"),
        1,
        "{lines:#?}"
    );
    let output = gui.all_output();
    assert_eq!(count(&output, "out of range"), 1, "{output:#?}");
    let mut relayed = output.iter().filter(|l| l.starts_with("info depth"));
    assert!(relayed.all(|l| l.contains("score cp 32000")), "{output:#?}");
    gui.quit().await;
}

/// Issue 49 item 5: `score mate 0` is dropped, never relayed and never wins a decision (with
/// `G_MateVerifyMs 0` it used to count as the most extreme win and take the move); `hashfull`
/// and `seldepth` reach the GUI within 1000 per mille and 2000 plies, in the relay and in the
/// final `info`.
#[tokio::test(start_paused = true)]
async fn mate_zero_hashfull_and_seldepth_are_kept_within_usis_ranges() {
    let scripts = vec![
        Script::always(Go::AnswerNth(500 * MS, 0))
            .with_score(100)
            .named("sane"),
        Script::always(Go::AnswerNth(500 * MS, 1))
            .with_score(50)
            .named("wild"),
    ];
    let mut gui = start(
        "optimistic",
        scripts,
        &["setoption name G_MateVerifyMs value 0"],
    )
    .await;
    gui.send("position startpos").await;
    gui.send(&format!("go {BYOYOMI}")).await;
    sleep(10 * MS).await;
    let e1 = b"info depth 3 seldepth 4294967295 hashfull 5000 score cp 100 pv 5i4h\n";
    assert!(gui.members.say(1, e1));
    sleep(10 * MS).await;
    assert!(gui.members.say(2, b"info depth 3 score mate 0 pv 5i5h\n"));
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    assert_eq!(
        lines,
        [
            "info depth 1 score cp 100 pv 5i4h",
            "info depth 3 seldepth 2000 hashfull 1000 score cp 100 pv 5i4h",
            "info string [Warning] E2 (wild): score mate 0 is ambiguous (mated now, or a win of \
             unknown length); its score is ignored",
            "info string [X] bestmove 5i5h [５八玉(59)] [評価値 50] [wild]",
            "info string [O] bestmove 5i4h [４八玉(59)] [評価値 100] [sane]",
            "info depth 3 seldepth 2000 time 500 hashfull 1000 multipv 1 score cp 100 pv 5i4h",
            "bestmove 5i4h",
        ]
    );
    gui.quit().await;
}

/// `G_InfoRelay=all` with `n` members answering after `answer`: the GUI's `go` (returns its
/// time) and, 1 ms later, every member's lines for `depths`, member by member within a depth.
async fn relay_all_round(n: u32, answer: Duration, depths: std::ops::Range<u32>) -> (Gui, Instant) {
    let scripts = vec![Script::always(Go::Answer(answer)); n as usize];
    let mut gui = start(
        "majority",
        scripts,
        &["setoption name G_InfoRelay value all"],
    )
    .await;
    gui.send("position startpos").await;
    let t0 = gui.send("go btime 0 wtime 0 byoyomi 5000").await;
    sleep(MS).await;
    for depth in depths {
        for m in 1..=n {
            let line = format!("info depth {depth} nodes {m} score cp 1 pv 7g7f\n");
            assert!(gui.members.say(m, line.as_bytes()));
        }
    }
    (gui, t0)
}

/// The GUI's relayed lines of thought (members' infos with gougi's `multipv`, not its own
/// summary lines, which carry `time`).
fn relayed_thought(gui: &Gui) -> Vec<(Instant, String)> {
    gui.out
        .lines()
        .into_iter()
        .filter(|(_, l)| l.starts_with("info ") && l.contains(" multipv ") && !l.contains(" time "))
        .collect()
}

/// `G_InfoRelay=all` with 64 members: the GUI gets at most `RELAY_BURST` (200) lines of thought
/// at once and then 200 a second, each member's latest line kept. Counted exactly: 64 first
/// lines at `go` and 136 of the 640 that follow 1 ms later pass (200); 1 ms later every member
/// prints its depth-99 line, which replaces what it had waiting; those 64 go out one per 5 ms,
/// the last at 320 ms; nothing else.
#[tokio::test(start_paused = true)]
async fn relay_all_with_64_members_is_capped_at_200_lines_a_second_keeping_each_members_latest() {
    let (mut gui, t0) = relay_all_round(64, 1000 * MS, 2..12).await;
    sleep(MS).await;
    for m in 1..=64 {
        let line = format!("info depth 99 nodes {m} score cp 2 pv 7g7f\n");
        assert!(gui.members.say(m, line.as_bytes()));
    }
    let (at, _) = gui.until("bestmove", 2000 * MS).await;
    assert_eq!(at - t0, 1000 * MS);
    let relayed = relayed_thought(&gui);
    assert_eq!(relayed.len(), 264, "{relayed:#?}");
    let latest: Vec<&(Instant, String)> = relayed
        .iter()
        .filter(|(_, l)| l.contains("depth 99 "))
        .collect();
    assert_eq!(latest.len(), 64);
    for m in 1..=64 {
        let mine = format!("nodes {m} ");
        assert_eq!(
            latest.iter().filter(|(_, l)| l.contains(&mine)).count(),
            1,
            "member {m}"
        );
    }
    assert_eq!(latest.last().unwrap().0 - t0, 320 * MS);
    // No line of thought after the round's first second of credit but those 64.
    assert!(relayed
        .iter()
        .all(|(t, l)| *t - t0 <= 2 * MS || l.contains("depth 99 ")));
    gui.quit().await;
}

/// Below the cap nothing changes: three members' lines all reach the GUI, at once.
#[tokio::test(start_paused = true)]
async fn relay_all_with_three_members_passes_every_line() {
    let (mut gui, t0) = relay_all_round(3, 500 * MS, 2..32).await;
    gui.until("bestmove", 2000 * MS).await;
    let relayed = relayed_thought(&gui);
    assert_eq!(relayed.len(), 3 + 90, "{relayed:#?}");
    assert!(relayed.iter().all(|(t, _)| *t - t0 <= MS));
    gui.quit().await;
}

/// Issue 53 item 2: a member that takes 250 ms to answer a `stop` (a member at a distance, or
/// one that unwinds slowly) thinks on main time past gougi's soft deadline (10 s + byoyomi 1 s:
/// soft at `main/4 + byoyomi` = 3.5 s, decided by 3.53 s). Stopped at the soft deadline, its
/// answer came 220 ms after gougi decided; gougi learns its lag after `stop` from that answer and
/// stops it that much earlier, so from the second move on its answer is used.
#[tokio::test(start_paused = true)]
async fn a_member_slow_to_stop_on_main_time_is_stopped_earlier_and_its_answer_used() {
    let scripts = vec![
        Script::always(Go::Answer(100 * MS)).named("a"),
        Script::always(Go::Answer(60_000 * MS))
            .stop_latency(250 * MS)
            .named("b"),
    ];
    let mut gui = start("optimistic", scripts, &[]).await;
    let mut used = Vec::new();
    for k in 0..6 {
        let (took, lines) = gui
            .play("btime 10000 wtime 10000 byoyomi 1000", 20_000 * MS)
            .await;
        assert!(took <= 3_530 * MS, "move {k}: {took:?} {lines:#?}");
        used.push(lines.iter().any(|l| {
            (l.starts_with("info string [O]") || l.starts_with("info string [X]"))
                && l.ends_with("[b]")
        }));
    }
    assert_eq!(used, [false, true, true, true, true, true]);
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    gui.quit().await;
}

/// `optimistic` over `n` members with `G_MultiPonder` on: each answers the first legal move
/// after 200 ms, member k (from 1) predicting the (k − 1)-th legal reply.
const BYO_1S: &str = "btime 0 wtime 0 byoyomi 1000";

/// `optimistic` over `scripts` with `G_MultiPonder` on.
fn start_multi_ponder(scripts: Vec<Script>) -> impl std::future::Future<Output = Gui> {
    start(
        "optimistic",
        scripts,
        &["setoption name G_MultiPonder value true"],
    )
}

async fn multi_ponderers(n: usize) -> Gui {
    let scripts = (0..n)
        .map(|k| {
            Script::always(Go::Answer(200 * MS))
                .named(&format!("m{}", k + 1))
                .predicting(k)
        })
        .collect();
    start_multi_ponder(scripts).await
}

/// `position` (a `position …` line) with `mv` played.
fn with_move(position: &str, mv: &str) -> String {
    if position.contains(" moves ") {
        format!("{position} {mv}")
    } else {
        format!("{position} moves {mv}")
    }
}

/// The `n`-th legal move in `position` (a `position …` line).
fn nth_legal(position: &str, n: usize) -> String {
    let board = Position::from_usi_position(position).unwrap();
    let moves = board.legal_moves();
    moves[n % moves.len()].to_string()
}

/// The `position` and `go` lines member `member` received after the first `from` lines.
fn searches_of(gui: &Gui, member: u32, from: usize) -> Vec<String> {
    gui.members.received(member)[from..]
        .iter()
        .map(|r| r.1.clone())
        .filter(|l| {
            l.starts_with("position")
                || l.starts_with("go")
                || l == "stop"
                || l.starts_with("ponderhit")
        })
        .collect()
}

/// Issue 66 item 2, `G_MultiPonder`: three members play the same move and predict three
/// different replies. The GUI ponders the first; E2 and E3 ponder the others. On `ponderhit`
/// E1 goes on and E2, E3 are re-aimed at the real position. On a GUI-side miss to E3's reply
/// (`stop`, then `go`), E3 goes on from its search (`ponderhit`, no new `position`) while E1
/// and E2 start the real position; a reply nobody pondered starts everyone. The GUI hears who
/// pondered each reply and the game's hit rate.
#[tokio::test(start_paused = true)]
async fn multi_ponder_spreads_members_over_the_predicted_replies() {
    let mut gui = multi_ponderers(3).await;
    const BYO: &str = BYO_1S;
    let mut seen = [0usize; 3];
    let mark = |gui: &Gui, seen: &mut [usize; 3]| {
        for (m, seen) in seen.iter_mut().enumerate() {
            *seen = gui.members.received(m as u32 + 1).len();
        }
    };
    // Move 1: decided; then the GUI ponders the reply E1 predicted, and the opponent plays it.
    let ours = gui.position();
    let (_, lines) = gui.play(BYO, 2000 * MS).await;
    gui.moves.pop(); // `play` added a reply of its own
    let played = gui.moves.last().unwrap().clone();
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "bestmove {played} ponder {}",
            nth_legal(&with_move(&ours, &played), 0)
        )
    );
    let before = gui.position();
    let replies: Vec<String> = (0..3).map(|k| nth_legal(&before, k)).collect();
    mark(&gui, &mut seen);
    gui.moves.push(replies[0].clone());
    let pondered = gui.position();
    gui.send(&pondered).await;
    gui.send(&format!("go ponder {BYO}")).await;
    sleep(300 * MS).await;
    for m in 0..3 {
        let lines = searches_of(&gui, m as u32 + 1, seen[m]);
        assert_eq!(
            lines,
            [
                with_move(&before, &replies[m]),
                "go ponder btime 0 wtime 0 byoyomi 940".to_string()
            ],
            "E{}",
            m + 1
        );
    }
    mark(&gui, &mut seen);
    gui.send("ponderhit").await;
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    legal_bestmove(&pondered, lines.last().unwrap());
    assert!(
        lines.contains(&format!(
            "info string [ponder] {}: pondered by E1; hits 1 of 1 this game; head start: E1 \
             decides, the others count only with a mate",
            replies[0]
        )),
        "{lines:#?}"
    );
    assert_eq!(searches_of(&gui, 1, seen[0]), ["ponderhit"]);
    for (m, &from) in seen.iter().enumerate().skip(1) {
        assert_eq!(
            searches_of(&gui, m as u32 + 1, from)[..3],
            [
                "stop".to_string(),
                pondered.clone(),
                "go btime 0 wtime 0 byoyomi 940".to_string()
            ],
            "E{}",
            m + 1
        );
    }
    // Move 2 was played; the GUI ponders E1's reply again, but the opponent plays E3's.
    let mv = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    gui.moves.push(mv);
    sleep(10 * MS).await;
    let before = gui.position();
    let replies: Vec<String> = (0..3).map(|k| nth_legal(&before, k)).collect();
    gui.send(&with_move(&before, &replies[0])).await;
    gui.send(&format!("go ponder {BYO}")).await;
    sleep(300 * MS).await;
    mark(&gui, &mut seen);
    gui.send("stop").await;
    gui.until("bestmove", 100 * MS).await;
    gui.moves.push(replies[2].clone());
    let actual = gui.position();
    gui.send(&actual).await;
    gui.send(&format!("go {BYO}")).await;
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    legal_bestmove(&actual, lines.last().unwrap());
    assert!(
        lines.contains(&format!(
            "info string [ponder] {}: pondered by E3; hits 2 of 2 this game; head start: E3 \
             decides, the others count only with a mate",
            replies[2]
        )),
        "{lines:#?}"
    );
    assert_eq!(
        searches_of(&gui, 3, seen[2])[0],
        "ponderhit btime 0 wtime 0 byoyomi 940"
    );
    for (m, &from) in seen.iter().enumerate().take(2) {
        let lines = searches_of(&gui, m as u32 + 1, from);
        assert_eq!(lines[0], "stop", "E{}: {lines:#?}", m + 1);
        assert!(lines.contains(&actual), "E{}: {lines:#?}", m + 1);
    }
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    gui.quit().await;
}

/// `G_MultiPonder`: a reply no member pondered starts every member on it (the GUI hears so),
/// and a `gameover` after a missed ponder stops the parked members too.
#[tokio::test(start_paused = true)]
async fn multi_ponder_misses_and_gameover_leave_no_member_pondering() {
    let mut gui = multi_ponderers(2).await;
    const BYO: &str = "btime 0 wtime 0 byoyomi 1000";
    gui.play(BYO, 2000 * MS).await;
    gui.moves.pop();
    let before = gui.position();
    let replies: Vec<String> = (0..3).map(|k| nth_legal(&before, k)).collect();
    // The GUI ponders E1's reply; the opponent plays the third legal move, which nobody had.
    gui.send(&with_move(&before, &replies[0])).await;
    gui.send(&format!("go ponder {BYO}")).await;
    sleep(300 * MS).await;
    gui.send("stop").await;
    gui.until("bestmove", 100 * MS).await;
    gui.moves.push(replies[2].clone());
    let actual = gui.position();
    let from: Vec<usize> = (1..=2).map(|m| gui.members.received(m).len()).collect();
    gui.send(&actual).await;
    gui.send(&format!("go {BYO}")).await;
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    legal_bestmove(&actual, lines.last().unwrap());
    assert!(
        lines.contains(&format!(
            "info string [ponder] {}: pondered by nobody; hits 0 of 1 this game",
            replies[2]
        )),
        "{lines:#?}"
    );
    for m in 1..=2u32 {
        let s = searches_of(&gui, m, from[m as usize - 1]);
        assert!(
            s.contains(&actual) && !s.iter().any(|l| l.starts_with("ponderhit")),
            "E{m}: {s:#?}"
        );
    }
    // Another ponder missed, then the game ends: nobody is left searching.
    let mv = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    gui.moves.push(mv);
    let before = gui.position();
    gui.send(&with_move(&before, &nth_legal(&before, 0))).await;
    gui.send(&format!("go ponder {BYO}")).await;
    sleep(300 * MS).await;
    gui.send("stop").await;
    gui.until("bestmove", 100 * MS).await;
    gui.send("gameover win").await;
    sleep(100 * MS).await;
    for m in 1..=2u32 {
        let received = gui.members.received(m);
        let last_go = received
            .iter()
            .rposition(|r| r.1.starts_with("go"))
            .unwrap();
        assert!(
            received[last_go..].iter().any(|r| r.1 == "stop"),
            "E{m} was left pondering: {received:#?}"
        );
    }
    gui.quit().await;
}

/// Issue 66, multi-ponder's head-start rule, at `ponderhit`. Both members play the same first
/// move and E2 wins it (score 500), so the GUI ponders E2's predicted reply: E1 ponders it and
/// E2 the reply E1 predicted. At `ponderhit` E1 goes on from its ponder and E2 is re-aimed; E2
/// then proposes another move with its higher score. `optimistic` over every answer would play
/// E2's move; the head start decides, so E1's is played, and the GUI hears why.
#[tokio::test(start_paused = true)]
async fn multi_ponder_lets_the_member_with_the_head_start_decide() {
    let answer = Go::Answer(200 * MS);
    let scripts = vec![
        Script::always(answer.clone())
            .named("m1")
            .with_score(10)
            .predicting(0),
        Script::new([answer.clone(), answer, Go::AnswerNth(200 * MS, 1)])
            .named("m2")
            .with_score(500)
            .predicting(1),
    ];
    let mut gui = start_multi_ponder(scripts).await;
    let (_, lines) = gui.play(BYO_1S, 2000 * MS).await;
    gui.moves.pop();
    assert_eq!(lines.last().unwrap(), "bestmove 5i4h ponder 5a5b");
    gui.moves.push("5a5b".into());
    let pondered = gui.position();
    gui.send(&pondered).await;
    gui.send(&format!("go ponder {BYO_1S}")).await;
    sleep(300 * MS).await;
    gui.send("ponderhit").await;
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    assert_eq!(
        lines,
        [
            "info depth 1 score cp 10 pv 4h3h 5b4b",
            "info string [ponder] 5a5b: pondered by E1; hits 1 of 1 this game; head start: E1 \
             decides, the others count only with a mate",
            "info depth 1 score cp 500 pv 4h5h 5b5a",
            "info string [X] bestmove 4h5h ponder 5b5a [５八玉(48) ５一玉(52)] [評価値 500 （前回500 \
             差分0）] [m2]",
            "info string [O] bestmove 4h3h ponder 5b4b [３八玉(48) ４二玉(52)] [評価値 10 （前回10 \
             差分0）] [m1]",
            "info depth 1 time 200 multipv 1 score cp 10 pv 4h3h 5b4b",
            "bestmove 4h3h ponder 5b4b",
        ]
    );
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    gui.quit().await;
}

/// The head-start rule after a GUI-side miss: E1 wins the first move (score 900), so the GUI
/// ponders E1's predicted reply and E2 ponders its own. The opponent plays E2's reply: E2 goes
/// on from its ponder (`ponderhit` with the new clock) and E1 starts the position afresh,
/// proposing another move with the higher score. E2's move is played.
#[tokio::test(start_paused = true)]
async fn multi_ponder_after_a_miss_lets_the_parked_member_decide() {
    let answer = Go::Answer(200 * MS);
    let scripts = vec![
        Script::new([answer.clone(), answer.clone(), Go::AnswerNth(200 * MS, 2)])
            .named("m1")
            .with_score(900)
            .predicting(0),
        Script::always(answer)
            .named("m2")
            .with_score(500)
            .predicting(1),
    ];
    let mut gui = start_multi_ponder(scripts).await;
    let (_, lines) = gui.play(BYO_1S, 2000 * MS).await;
    gui.moves.pop();
    assert_eq!(lines.last().unwrap(), "bestmove 5i4h ponder 5a4b");
    let before = gui.position();
    gui.send(&with_move(&before, &nth_legal(&before, 0))).await;
    gui.send(&format!("go ponder {BYO_1S}")).await;
    sleep(300 * MS).await;
    gui.send("stop").await;
    gui.until("bestmove", 100 * MS).await;
    gui.moves.push(nth_legal(&before, 1));
    let actual = gui.position();
    gui.send(&actual).await;
    gui.send(&format!("go {BYO_1S}")).await;
    let (_, lines) = gui.until("bestmove", 2000 * MS).await;
    // E2's score is from the lines it sent while parked, before this round began: a parked
    // search's lines are kept across the missed round's decision.
    assert_eq!(
        lines,
        [
            "info string [ponder] 5a5b: pondered by E2; hits 1 of 1 this game; head start: E2 \
             decides, the others count only with a mate",
            "info depth 1 score cp 900 pv 4h5i 5b4b",
            "info string [O] bestmove 4h3h ponder 5b5a [３八玉(48) ５一玉(52)] [評価値 500 （前回500 \
             差分0）] [m2]",
            "info string [X] bestmove 4h5i ponder 5b4b [５九玉(48) ４二玉(52)] [評価値 900 （前回900 \
             差分0）] [m1]",
            "info depth 1 time 200 multipv 1 score cp 500 pv 4h3h 5b5a",
            "bestmove 4h3h ponder 5b5a",
        ]
    );
    assert_eq!(faults(&gui.all_output()), Vec::<String>::new());
    gui.quit().await;
}

/// `G_MultiPonder` with copies that all predict the same reply: the members left over ponder
/// the master's next best replies (its own small MultiPV search), each a different legal
/// reply, instead of all pondering the GUI's.
#[tokio::test(start_paused = true)]
async fn multi_ponder_fills_spare_members_with_the_masters_next_replies() {
    let scripts = (1..=3)
        .map(|k| {
            Script::always(Go::Answer(200 * MS))
                .named(&format!("m{k}"))
                .predicting(0)
        })
        .collect();
    let mut gui = start_multi_ponder(scripts).await;
    let ours = gui.position();
    let (_, lines) = gui.play(BYO_1S, 2000 * MS).await;
    gui.moves.pop();
    let played = gui.moves.last().unwrap().clone();
    let gui_reply = nth_legal(&with_move(&ours, &played), 0);
    assert_eq!(
        lines.last().unwrap(),
        &format!("bestmove {played} ponder {gui_reply}")
    );
    let before = gui.position();
    let from: Vec<usize> = (1..=3).map(|m| gui.members.received(m).len()).collect();
    gui.send(&with_move(&before, &gui_reply)).await;
    gui.send(&format!("go ponder {BYO_1S}")).await;
    sleep(300 * MS).await;
    let mut replies = Vec::new();
    for m in 1..=3u32 {
        let s = searches_of(&gui, m, from[m as usize - 1]);
        assert_eq!(s.len(), 2, "E{m}: {s:#?}");
        assert_eq!(s[1], format!("go ponder {}", "btime 0 wtime 0 byoyomi 940"));
        let reply = s[0].rsplit(' ').next().unwrap().to_string();
        assert_eq!(s[0], with_move(&before, &reply), "E{m}");
        replies.push(reply);
    }
    assert_eq!(replies[0], gui_reply);
    let legal: Vec<String> = Position::from_usi_position(&before)
        .unwrap()
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect();
    for r in &replies {
        assert!(legal.contains(r), "{r} is not legal: {replies:?}");
    }
    assert!(
        replies[1] != replies[0] && replies[2] != replies[0] && replies[1] != replies[2],
        "{replies:?}"
    );
    gui.send("stop").await;
    gui.until("bestmove", 100 * MS).await;
    gui.quit().await;
}
