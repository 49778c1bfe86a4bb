//! keel-llm-worker's integration tests: the worker program and its JSON-lines wire.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod worker;
