//! keel-desktop's integration tests: the Linux backend on a real Xvfb display, and the agent
//! driving it.
//!
//! One test binary for the crate (Cargo.toml sets `autotests = false`): each file beside
//! this one is a module of it, so the suite links one binary here instead of one per file.

mod agent;
mod display;
mod fixture;
