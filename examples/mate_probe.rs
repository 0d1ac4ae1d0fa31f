use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use gougi::mate::problems::parse_problems;
use gougi::mate::rules::TsumePosition;
use gougi::mate::{solve, MateMode, MateOutcome, MateTable, SolveLimits};
fn main() {
    tracing_subscriber::fmt().with_max_level(tracing::Level::DEBUG).with_writer(std::io::stderr).init();
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let mode = if args.get(2).map(|s| s.as_str()) == Some("first") { MateMode::First } else { MateMode::Shortest };
    let limit: u64 = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(10000);
    let only: Option<usize> = args.get(4).map(|s| s.parse().unwrap());
    let mut tt = MateTable::new(256);
    for p in parse_problems(&text).unwrap() {
        if only.is_some_and(|l| l != p.line_no) { continue; }
        let mut pos = TsumePosition::from_sfen(&p.sfen).unwrap();
        tt.clear();
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        let limits = SolveLimits { deadline: Some(t + Duration::from_millis(limit)), stop: &stop, mode };
        let (o, st) = solve(&mut pos, &mut tt, &limits, None);
        let r = match o { MateOutcome::Mate{moves, minimal} => format!("{} {}", moves.len(), minimal), x => format!("{x:?}") };
        println!("{}: exp {:?} got {} {:.1}ms nodes {}", p.line_no, p.expected, r, t.elapsed().as_secs_f64()*1e3, st.nodes);
    }
}
