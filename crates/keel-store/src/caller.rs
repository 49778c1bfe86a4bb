//! Starting a run from caller-supplied messages (`keel run --history`, an API's seed
//! messages): validated whole before anything is written (system-notes.md N13).

use keel_core::legacy::{CallerField, check_caller_roles};
use keel_core::notes::producers;
use keel_core::{ItemBody, ItemId, SystemNotes, Timestamp};

use crate::{NewItem, NewRun, RunHead, Store, StoreError};

/// One caller message: `{"role":"user"|"assistant","content"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallerMessage {
    pub role: String,
    pub content: String,
}

/// A run to start from caller input.
#[derive(Clone, Debug)]
pub struct StartRun {
    pub id: String,
    pub preset: String,
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
    let mut items = Vec::with_capacity(start.messages.len());
    for (index, message) in start.messages.into_iter().enumerate() {
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
            ts: start.now,
            body,
        });
    }
    let mut notes = SystemNotes::new();
    if let Some(text) = start.instructions {
        producers::add_caller_instructions(&mut notes, text);
    }
    store.create_run(NewRun {
        id: start.id,
        preset: start.preset,
        now: start.now,
        notes,
        items,
    })
}
