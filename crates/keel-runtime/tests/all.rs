//! keel-runtime's integration tests: the turn loop, the gate and the tools on real SQLite files and
//! child processes.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod agent;
mod boundary;
mod checker;
mod common;
mod compaction;
mod computer;
mod crash;
mod gate;
mod manual;
mod own_tool_kinds;
mod proposal;
mod refusal;
mod tasks;
