//! keel-testkit: the set-up keel's integration tests and benches share, written once.
//!
//! Tests across the workspace build the same worlds: a temporary directory with a working
//! directory and a `keel.db` holding run `r`, a `NewRun` with every field but one or two at
//! its plain value, item ids counted up from a prefix, an approver that answers from a script
//! and keeps what it was asked, a gate over a policy in the usual environment, an external
//! checker or worker written as a `/bin/sh` script. This crate is where that set-up lives, so
//! each test says only what is particular to it; what is particular to one crate stays in
//! that crate's `tests/common`. It is a dev-dependency only (`publish = false`, never in
//! `[dependencies]`), and it panics on every error, as the tests it serves do. The pure
//! crates (keel-core, keel-policy, keel-computer) keep their tests self-contained and do not
//! use it. Its features keep test builds small: the base needs keel-core alone, `store` adds
//! the database, `runtime` the gate and the approver.

pub mod bench;
pub mod child;
pub mod ids;
pub mod notes;
pub mod script;

#[cfg(feature = "store")]
pub mod run;
#[cfg(feature = "store")]
pub mod sandbox;

#[cfg(feature = "runtime")]
pub mod approver;
#[cfg(feature = "runtime")]
pub mod gate;

pub use child::{child_env, child_test};
pub use ids::{ids, ids_after, item_id};
pub use notes::{add_note, note_tag};
pub use script::write_script;

#[cfg(feature = "store")]
pub use run::{new_item, new_notification, new_run};
#[cfg(feature = "store")]
pub use sandbox::{Sandbox, open_store, store_with_run};

#[cfg(feature = "runtime")]
pub use approver::ScriptedApprover;
#[cfg(feature = "runtime")]
pub use gate::{checker_spec, gate, gate_env, matcher, rule};

#[cfg(test)]
mod tests;
