//! The request model's sessions (issue 49), drawn from the fuzzer's bytes instead of a seed:
//! the same generator, coordinator, scripted members and checks as `tests/request_model.rs`
//! (`gougi::gougi::request_model`). Each byte is one choice — the kind of members, their think
//! times and `stop` latencies, the type, then each step's GUI action, clock and waits — and the
//! bytes that run out read as zeros, so any input is a valid session. A broken rule panics with
//! the conversation and the failing member's pipes.

#![no_main]

use gougi::gougi::request_model::{run_session, Bytes};
use libfuzzer_sys::fuzz_target;

/// Steps per input: a short session keeps each run fast; the fuzzer strings choices together.
const STEPS: u32 = 24;

fuzz_target!(|data: &[u8]| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    if let Err(e) = rt.block_on(run_session(&mut Bytes::new(data), STEPS)) {
        panic!("{e}");
    }
});
