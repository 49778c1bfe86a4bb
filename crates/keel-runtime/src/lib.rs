//! keel-runtime: what happens between a model and the world, turn by turn.
//!
//! This crate turns the pure crates' decisions (keel-core, keel-policy, keel-computer) into
//! durable steps on a [`keel_store::Store`]:
//! the turn loop (`agent`), turn boundaries and notification delivery (`boundary`), what is
//! refused or renamed before the gate (`proposal`), the one gate pipeline every proposed call
//! passes (`gate`, `policy_gate`, external `checker`s, `approval`), the tools it runs (`tools`, MCP servers' tools in `mcp`, background subagents in
//! `tasks`), and the summary
//! worker compaction and handoff ask (`worker`).
//!
//! Not here: rendering (keel-core), persistence details (keel-store), assembling a session
//! from configuration (keel-app), the command line (keel-cli).

pub mod agent;
pub mod approval;
pub mod boundary;
pub mod checker;
pub mod computer;
mod fs_answers;
pub mod gate;
mod hook_folders;
pub mod mcp;
pub mod policy_gate;
pub mod proposal;
pub mod sandbox;
pub mod tasks;
pub mod tools;
pub mod worker;
