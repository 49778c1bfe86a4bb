//! keel-model's integration tests: the providers against a loopback HTTP server and the real
//! worker.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod local_worker;
mod openai;
