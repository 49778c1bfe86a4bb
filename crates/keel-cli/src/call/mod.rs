//! `keel call FUNCTION`: keel's pure functions for programs not written in Rust
//! (interfaces.md §1).
//!
//! One JSON object in on stdin, one compact JSON value and LF out on stdout, exit 0. Bad input
//! is exit 2 with `{"error","field"}` on stderr; a function-level refusal (such as
//! `NoteLimit`) is exit 1 with `{"error"}`; nothing is printed on stdout in either case. Each
//! function is one entry of [`FUNCTIONS`]; later issues add theirs there.

mod bridge;
mod manual;
mod notifications;
mod system_notes;
pub mod wire;

use serde_json::{Value, json};

use wire::BadInput;

/// Why a call produced no result.
#[derive(Debug)]
pub enum CallError {
    /// Exit 2.
    BadInput(BadInput),
    /// Exit 1: the input was fine, the function said no.
    Refused(String),
}

impl From<BadInput> for CallError {
    fn from(e: BadInput) -> Self {
        CallError::BadInput(e)
    }
}

type Function = fn(&Value) -> Result<Value, CallError>;

/// The functions, for `keel call --help`: one name per line (docs/keel-call.md says what each
/// takes and returns).
pub fn function_list() -> String {
    let names: Vec<&str> = FUNCTIONS.iter().map(|(name, _)| *name).collect();
    format!(
        "Functions (docs/keel-call.md has each one's input and output):\n  {}",
        names.join("\n  ")
    )
}

/// Every function `keel call` knows, by its kebab-case name.
pub const FUNCTIONS: &[(&str, Function)] = &[
    ("system-notes", system_notes::call),
    (
        "notification-context",
        notifications::notification_context_call,
    ),
    (
        "conversation-language",
        notifications::conversation_language_call,
    ),
    ("detect-lang", bridge::detect_lang_call),
    (
        "build-bridge-instruction",
        bridge::build_bridge_instruction_call,
    ),
    ("build-bridge-kickoff", bridge::build_bridge_kickoff_call),
    (
        "preserve-active-user-constraints",
        bridge::preserve_active_user_constraints_call,
    ),
    ("build-bridge-source", bridge::build_bridge_source_call),
    (
        "collect-visual-evidence",
        bridge::collect_visual_evidence_call,
    ),
    (
        "append-visual-evidence",
        bridge::append_visual_evidence_call,
    ),
    ("summary-token-budget", bridge::summary_token_budget_call),
    (
        "estimate-summary-tokens",
        bridge::estimate_summary_tokens_call,
    ),
    ("tool-manual", manual::tool_manual_call),
];

/// What the process prints and how it exits.
#[derive(Debug, PartialEq, Eq)]
pub struct CallOutcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

fn error_line(error: &str, field: Option<&str>) -> String {
    let line = match field {
        Some(field) => json!({"error": error, "field": field}),
        None => json!({"error": error}),
    };
    format!("{line}\n")
}

/// Runs `name` on the raw stdin bytes.
pub fn call(name: &str, stdin: &[u8]) -> CallOutcome {
    let fail = |code, stderr| CallOutcome {
        code,
        stdout: String::new(),
        stderr,
    };
    let Some((_, function)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
        let known: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
        let msg = format!(
            "unknown function {name:?}; known functions: {}",
            known.join(", ")
        );
        return fail(2, error_line(&msg, Some("")));
    };
    let result = wire::parse_input(stdin)
        .map_err(CallError::from)
        .and_then(|input| function(&input));
    match result {
        Ok(value) => CallOutcome {
            code: 0,
            stdout: format!("{value}\n"),
            stderr: String::new(),
        },
        Err(CallError::BadInput(e)) => fail(2, error_line(&e.error, Some(&e.field))),
        Err(CallError::Refused(msg)) => fail(1, error_line(&msg, None)),
    }
}
