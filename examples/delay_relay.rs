//! A delay relay: runs a command (a USI engine, or `ssh host engine`) and passes every line in
//! each direction after a delay, as a network between gougi and a member's machine would.
//!
//! ```sh
//! delay_relay [--delay MS] [--jitter MS] [--seed N] -- PROGRAM [ARGS…]
//! ```
//!
//! Each line read (from our stdin for the program, from the program's stdout for ours) is
//! written `delay ± jitter` ms after it was read (default 30 ± 10, uniform, from a seeded
//! stream: the same seed gives the same delays), and never before the line read before it in the
//! same direction: order is kept per direction as TCP keeps it, so a line drawn a short delay
//! behind one drawn a long delay waits for it. Lines are passed as bytes (a CP932 `setoption`
//! stays CP932). The program's stderr is ours, undelayed.
//!
//! The kernel's netem would delay packets, not lines, but it needs privileges the test
//! machines do not have; a USI session is lines, so delaying lines is the same for gougi.
//! Used as `Engine<N>.Path=delay_relay -- ssh -T host engine` in a config, or in
//! `tests/distance.rs`. When our stdin ends, the lines still on their way are delivered, then
//! the program's stdin is closed; when the program's stdout ends, the lines on their way are
//! delivered and the relay exits with the program's status. std only, like `mock_engine`.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{self, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

struct Settings {
    delay_ms: f64,
    jitter_ms: f64,
    seed: u64,
    program: Vec<String>,
}

fn usage() -> ! {
    eprintln!("usage: delay_relay [--delay MS] [--jitter MS] [--seed N] -- PROGRAM [ARGS…]");
    process::exit(2)
}

fn parse_args() -> Settings {
    let mut s = Settings {
        delay_ms: 30.0,
        jitter_ms: 10.0,
        seed: 1,
        program: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> f64 {
            args.next()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .unwrap_or_else(|| {
                    eprintln!("delay_relay: {name} needs a number of ms (or a seed) ≥ 0");
                    usage()
                })
        };
        match a.as_str() {
            "--delay" => s.delay_ms = number("--delay"),
            "--jitter" => s.jitter_ms = number("--jitter"),
            "--seed" => s.seed = number("--seed") as u64,
            "--" => {
                s.program = args.collect();
                break;
            }
            _ => usage(),
        }
    }
    if s.program.is_empty() {
        usage();
    }
    if s.jitter_ms > s.delay_ms {
        eprintln!("delay_relay: the jitter cannot exceed the delay (a line cannot arrive before it is sent)");
        usage();
    }
    s
}

/// xorshift64*: a small seeded stream for the jitter.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One direction: a reader thread stamps each line with the time it is due and a writer thread
/// writes it then. Returns the writer's handle, which ends after the reader's end of input and
/// every line still on its way.
fn direction(
    input: impl Read + Send + 'static,
    mut output: impl Write + Send + 'static,
    delay_ms: f64,
    jitter_ms: f64,
    seed: u64,
) -> thread::JoinHandle<()> {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    thread::spawn(move || {
        let mut rng = Rng::new(seed);
        let mut reader = BufReader::new(input);
        let mut last = Instant::now();
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let ms = delay_ms + jitter_ms * (2.0 * rng.unit() - 1.0);
            // Never before the line before it: one stream, in order.
            let due = (Instant::now() + Duration::from_secs_f64(ms / 1000.0)).max(last);
            last = due;
            if tx.send((due, line)).is_err() {
                break;
            }
        }
    });
    thread::spawn(move || {
        for (due, line) in rx {
            let wait = due.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                thread::sleep(wait);
            }
            if output
                .write_all(&line)
                .and_then(|()| output.flush())
                .is_err()
            {
                return;
            }
        }
    })
}

fn main() {
    let s = parse_args();
    let mut child = Command::new(&s.program[0])
        .args(&s.program[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            eprintln!("delay_relay: cannot run {}: {e}", s.program[0]);
            process::exit(2)
        });
    let to_child = child.stdin.take().expect("piped stdin");
    let from_child = child.stdout.take().expect("piped stdout");
    // Two streams with their own draws (a seed each), as two directions of a link are.
    // The way in ends by itself when our stdin ends (the program's stdin is then closed).
    let _in = direction(io::stdin(), to_child, s.delay_ms, s.jitter_ms, s.seed);
    let out = direction(
        from_child,
        io::stdout(),
        s.delay_ms,
        s.jitter_ms,
        s.seed ^ 0x5eed_0000,
    );
    // The program's output is what the relay is for: when it ends (and is delivered), so do we.
    let _ = out.join();
    let code = child.wait().ok().and_then(|st| st.code()).unwrap_or(1);
    process::exit(code)
}
