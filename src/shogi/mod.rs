//! The rules of shogi, with no I/O.
