//! keel-runtime: what happens between a model and the world, turn by turn.
//!
//! This crate turns keel-core's pure decisions into durable steps on a [`keel_store::Store`].
//! Today it holds the turn boundary (ARCHITECTURE.md, "One turn, as data", steps 1 and 8):
//! opening a real user turn — the conversation language observes it, and notifications waiting
//! for the run are merged into it — and delivering a notification as a turn of its own after a
//! turn closes, each in one transaction. The model loop, the gate pipeline and dispatch join it
//! with the issues that build them.
//!
//! Not here: rendering (keel-core), persistence details (keel-store), the command line.

pub mod agent;
pub mod approval;
pub mod boundary;
pub mod checker;
pub mod gate;
pub mod policy_gate;
pub mod tools;
pub mod worker;
