//! Fuzzes the GUI → engine parser (`gougi::usi::parse_gui_command`) in both modes.
//!
//! Checks, for any line: no panic; and whatever parses is a fixed point of format-then-parse
//! (`parse(format(x)) == x`, in the mode that produced `x`), the invariant the proxy's relays
//! rely on.

#![no_main]

use gougi::usi::{parse_gui_command, Strictness};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    for mode in [Strictness::Strict, Strictness::Lenient] {
        if let Ok(cmd) = parse_gui_command(&line, mode) {
            let text = cmd.to_string();
            assert_eq!(
                parse_gui_command(&text, mode).as_ref(),
                Ok(&cmd),
                "{mode:?}: {line:?} formatted as {text:?}"
            );
        }
    }
});
