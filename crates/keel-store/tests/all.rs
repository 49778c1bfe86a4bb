//! keel-store's integration tests: real SQLite files, and processes killed mid-write.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod common;
mod crash;
mod delete;
mod lease;
mod store;
