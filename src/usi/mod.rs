//! The USI protocol as types.
