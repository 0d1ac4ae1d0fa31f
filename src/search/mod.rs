//! The built-in alpha-beta search engine (`gougi search`).

pub mod history;
pub mod timeman;
pub mod tt;
pub mod value;
