//! Starting a run from caller-supplied messages (`keel run --history`, an API's seed
//! messages): validated whole before anything is written (system-notes.md N13).

use keel_core::legacy::{CallerField, check_caller_roles};
use keel_core::notes::producers;
use keel_core::{ItemBody, ItemId, Timestamp};

use crate::{Committed, NewItem, NewRun, RunHead, RunWrite, Store, StoreError};

/// One caller message: `{"role":"user"|"assistant","content"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallerMessage {
    pub role: String,
    pub content: String,
}

impl CallerMessage {
    /// Reads one `--history` line, `{"role","content"}`. Other keys are dropped: whatever
    /// they are named (`system_notes`, `__systemNotes`, …), caller data never reaches the
    /// run's notes (system-notes.md N22, T6).
    pub fn from_json_line(line: &str, index: usize) -> Result<Self, StoreError> {
        let bad = |reason: &str| StoreError::BadCallerMessage {
            index,
            reason: reason.to_string(),
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(&format!("not JSON: {e}")))?;
        let role = value
            .get("role")
            .and_then(|v| v.as_str())
            .ok_or_else(|| bad("`role` must be a string"))?;
        let content = value
            .get("content")
            .and_then(|v| v.as_str())
            .ok_or_else(|| bad("`content` must be a string"))?;
        Ok(Self {
            role: role.to_string(),
            content: content.to_string(),
        })
    }
}

fn caller_items(
    messages: Vec<CallerMessage>,
    now: Timestamp,
    next_item_id: &mut dyn FnMut() -> ItemId,
) -> Result<Vec<NewItem>, StoreError> {
    let mut items = Vec::with_capacity(messages.len());
    for (index, message) in messages.into_iter().enumerate() {
        let body = match message.role.as_str() {
            "user" => ItemBody::User {
                text: message.content,
            },
            "assistant" => ItemBody::Assistant {
                text: message.content,
                tool_calls: Vec::new(),
            },
            _ => {
                return Err(StoreError::UnsupportedCallerRole {
                    index,
                    role: message.role,
                });
            }
        };
        items.push(NewItem {
            id: next_item_id(),
            ts: now,
            body,
        });
    }
    Ok(items)
}

/// Appends a caller's history delta to a run, validated whole before anything is written: a
/// role-`system` message is `InvalidCallerMessages { field: "historyDelta", index }`.
pub fn append_caller_messages(
    store: &mut dyn Store,
    run: &str,
    expected_version: u64,
    messages: Vec<CallerMessage>,
    now: Timestamp,
    next_item_id: &mut dyn FnMut() -> ItemId,
) -> Result<Committed, StoreError> {
    check_caller_roles(
        CallerField::HistoryDelta,
        messages.iter().map(|m| m.role.as_str()),
    )?;
    let items = caller_items(messages, now, next_item_id)?;
    store.commit(run, RunWrite::append(expected_version, now, items))
}

/// A run to start from caller input.
#[derive(Clone, Debug)]
pub struct StartRun {
    pub id: String,
    pub preset: String,
    /// The model the run is made with.
    pub model: String,
    /// The directory the run works in.
    pub cwd: Option<std::path::PathBuf>,
    pub now: Timestamp,
    pub field: CallerField,
    pub messages: Vec<CallerMessage>,
    /// System text from the caller; it becomes the `caller-instructions` note, never a
    /// message.
    pub instructions: Option<String>,
}

/// Validates every message, then creates the run in one transaction. A role-`system`
/// message is [`StoreError::InvalidCallerMessages`] naming its index, and nothing is written.
pub fn start_run_from_caller(
    store: &mut dyn Store,
    start: StartRun,
    mut next_item_id: impl FnMut() -> ItemId,
) -> Result<RunHead, StoreError> {
    check_caller_roles(start.field, start.messages.iter().map(|m| m.role.as_str()))?;
    let items = caller_items(start.messages, start.now, &mut next_item_id)?;
    let note_ops = start
        .instructions
        .map(producers::caller_instructions)
        .into_iter()
        .collect();
    store.create_run(NewRun {
        id: start.id,
        preset: start.preset,
        model: start.model,
        origin: None,
        cwd: start.cwd,
        open_turn: false,
        now: start.now,
        note_ops,
        items,
    })
}
