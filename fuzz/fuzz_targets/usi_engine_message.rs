//! Fuzzes the engine → GUI parser (`gougi::usi::parse_engine_message`) in both modes.
//!
//! Checks, for any line: no panic; and whatever parses is a fixed point of format-then-parse
//! (`parse(format(x)) == x`, in the mode that produced `x`). Member output is untrusted input,
//! so this is the parser that matters most.

#![no_main]

use gougi::usi::{parse_engine_message, Strictness};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    for mode in [Strictness::Strict, Strictness::Lenient] {
        if let Ok(msg) = parse_engine_message(&line, mode) {
            let text = msg.to_string();
            assert_eq!(
                parse_engine_message(&text, mode).as_ref(),
                Ok(&msg),
                "{mode:?}: {line:?} formatted as {text:?}"
            );
        }
    }
});
