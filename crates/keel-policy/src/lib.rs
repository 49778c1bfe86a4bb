//! keel-policy: what decides a proposed tool call (safety.md, seed 002).
//!
//! The checker protocol's wire types ([`protocol`]), prioritized rules and how their decision
//! combines with checkers' ([`rules`]), what a shell command will run ([`shell`]), and the
//! in-process checkers: allowed paths over a [`paths::PathResolver`] passed in ([`paths`]) and
//! provenance ([`provenance`], with the records a user names, [`records`], and the files that
//! run as code, [`scripts`]), with the read-only/side-effecting tool classifier they share
//! ([`classify`]), what a call's arguments say it does ([`arguments`]), and the kinds of action
//! that need the user's word ([`kinds`], read by [`authority`]), which offered tool the user's
//! words ask for ([`tool_choice`]), whether an amount nobody showed is the user's own
//! arithmetic ([`amounts`]), whether a payment repeats as the user asked ([`repeats`]), the
//! dates a text spells ([`dates`]), and the secrets data holds ([`secrets`]). Pure: running
//! external checkers and resolving real paths happen in keel-runtime; compiling a
//! configuration's policy tables into a [`rules::Policy`] happens in keel-app.
#![forbid(unsafe_code)]

pub mod amounts;
pub mod arguments;
pub mod atoms;
pub mod authority;
pub mod classify;
pub mod dates;
pub mod disguise;
pub mod kinds;
pub mod left_out;
pub mod paths;
pub mod protocol;
pub mod provenance;
pub mod records;
pub mod repeats;
pub mod rules;
pub mod scripts;
pub mod secrets;
pub mod shell;
pub mod tool_choice;

use serde::{Deserialize, Serialize};

pub use keel_core::text::dot_join;

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
