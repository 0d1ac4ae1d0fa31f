//! Perft against the reference counts in `tests/data/perft/perft.txt`. Entries up to
//! `LIMIT` leaf nodes run in the normal suite; the deeper ones are `#[ignore]`d (run them with
//! `cargo test --release --test perft -- --ignored`).

use gougi::shogi::{perft, Position};

const LIMIT: u64 = 25_000_000;

struct Case {
    name: String,
    sfen: String,
    depth: u32,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/perft/perft.txt"
    ))
    .expect("perft.txt is readable");
    let mut v = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(f.len(), 4, "bad line {line}");
        v.push(Case {
            name: f[0].to_string(),
            sfen: f[1].to_string(),
            depth: f[2].parse().expect("depth"),
            nodes: f[3].parse().expect("nodes"),
        });
    }
    assert!(v.len() >= 20, "perft.txt looks truncated");
    v
}

fn run(filter: impl Fn(&Case) -> bool) {
    let mut ran = 0;
    for c in cases().iter().filter(|c| filter(c)) {
        let mut pos = Position::from_sfen(&c.sfen).expect("valid SFEN");
        let n = perft(&mut pos, c.depth);
        assert_eq!(n, c.nodes, "{} depth {}", c.name, c.depth);
        assert_eq!(
            pos.to_sfen(),
            Position::from_sfen(&c.sfen).unwrap().to_sfen()
        );
        ran += 1;
    }
    assert!(ran > 0);
}

#[test]
fn perft_up_to_limit() {
    run(|c| c.nodes <= LIMIT);
}

#[test]
#[ignore = "deep perft: minutes even in release"]
fn perft_deep_below_1g() {
    run(|c| c.nodes > LIMIT && c.nodes <= 1_000_000_000);
}

#[test]
#[ignore = "very deep perft: hours"]
fn perft_deepest() {
    run(|c| c.nodes > 1_000_000_000);
}
