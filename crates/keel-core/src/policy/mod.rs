//! Policy: what decides a proposed tool call (safety.md, seed 002).
//!
//! The checker protocol's wire types ([`protocol`]), prioritized rules and how their decision
//! combines with checkers' ([`rules`]), and the in-process checkers: allowed paths over a
//! [`paths::PathResolver`] passed in ([`paths`]) and provenance ([`provenance`], with the records a user names, [`records`]), with the
//! read-only/side-effecting tool classifier they share ([`classify`]). Pure: running external
//! checkers and resolving real paths happen in keel-runtime.

pub mod classify;
pub mod paths;
pub mod protocol;
pub mod provenance;
pub mod records;
pub mod rules;

use serde::{Deserialize, Serialize};

/// `parent.key`, or `key` at the top: the dot-paths arguments are named by (`paths.0`,
/// `options.target_directory`).
pub fn dot_join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// A decision, most permissive first; `max` is the most restrictive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    AskUser,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::AskUser => "ask_user",
            Decision::Deny => "deny",
        }
    }
}
