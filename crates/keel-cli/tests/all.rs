//! keel-cli's integration tests: the `keel` binary run as a user runs it.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod acp;
mod call;
mod chat;
mod check;
mod common;
mod compaction;
mod computer;
mod eval;
mod handoff;
mod hardening;
mod lease;
mod mcp;
mod notify;
mod orphans;
mod person;
mod run;
mod runs;
mod starter;
mod tasks;
mod terminal;
mod workdir;
mod workspace_tier;
