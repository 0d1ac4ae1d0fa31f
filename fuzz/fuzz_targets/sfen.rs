//! Fuzzes the SFEN and USI `position` parsers of the rules core.
//!
//! Checks, for any text: no panic; whatever parses as SFEN prints back to an SFEN that parses
//! to the same position (same key) and prints identically (a fixed point), and the legal move
//! generator runs on it without panicking.

#![no_main]

use gougi::shogi::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(pos) = Position::from_sfen(&text) {
        let sfen = pos.to_sfen();
        let again = Position::from_sfen(&sfen).expect("a printed SFEN parses");
        assert_eq!(again.key(), pos.key(), "{text:?} -> {sfen:?}");
        assert_eq!(again.to_sfen(), sfen);
        let _ = pos.legal_moves();
    }
    let _ = Position::from_usi_position(&text);
});
