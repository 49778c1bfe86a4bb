//! Composing one model request from a run (system-notes.md N10–N12, interfaces.md §4).
//!
//! The system prompt is the byte-stable head (passed in, so a prompt cache can sit on it),
//! then the volatile blocks, then each system note as its own block; blank blocks are left
//! out and the rest joined with `"\n\n"`. It is sent as exactly one `system` message at index
//! 0. Everything after it is a conversation item rendered through its envelope; no message
//! after index 0 may have the `system` or `developer` role, and every tool call is answered by
//! exactly one `tool` message.

use std::collections::HashMap;

use serde::Serialize;

use crate::envelope::tool_message;
use crate::item::{Diagnostic, Item, ItemBody, ToolCall};
use crate::notes::SystemNotes;
use crate::text::is_blank;

/// What one request is built from.
#[derive(Clone, Copy, Debug)]
pub struct ComposeInput<'a> {
    /// Base instructions and fixed policies: identical bytes on every turn.
    pub stable_head: &'a str,
    /// Per-run context that may change between turns (retrieval, memory).
    pub volatile: &'a [String],
    pub notes: &'a SystemNotes,
    pub items: &'a [Item],
}

/// A Chat Completions role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A tool call as Chat Completions spells it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WireToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunction,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WireFunction {
    pub name: String,
    /// Compact JSON text.
    pub arguments: String,
}

/// One message of the request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    fn tool(call_id: &str, content: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.to_string()),
        }
    }
}

/// The provider-independent part of a Chat Completions request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRequest {
    pub messages: Vec<ChatMessage>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    /// N12: the call is not made.
    #[error("Model message at index {index} has role '{role}'")]
    SystemRole { index: usize, role: &'static str },
    #[error(
        "tool call {call_id} has no result and no diagnostic; record the call's outcome (or \
         mark its dispatch unknown) before composing the next request"
    )]
    UnansweredToolCall { call_id: String },
    #[error("item {seq} answers tool call {call_id}, which no earlier assistant item made")]
    OrphanToolMessage { seq: u64, call_id: String },
}

/// The stable head of every run: the base instructions, then the fixed notification policy
/// (notifications.md N12a), then one short summary per tool manual. It does not depend on
/// anything that changes during a run, so its bytes are identical on every request.
pub fn stable_head(base_instructions: &str, manual_summaries: &[&str]) -> String {
    std::iter::once(base_instructions)
        .chain(std::iter::once(
            crate::notify::REALTIME_NOTIFICATION_INSTRUCTIONS,
        ))
        .chain(manual_summaries.iter().copied())
        .filter(|b| !is_blank(b))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The system prompt's blocks in order (N10), blank ones left out.
pub fn system_prompt_blocks<'a>(input: &ComposeInput<'a>) -> Vec<&'a str> {
    std::iter::once(input.stable_head)
        .chain(input.volatile.iter().map(String::as_str))
        .chain(input.notes.iter().map(|n| n.text.as_str()))
        .filter(|b| !is_blank(b))
        .collect()
}

/// The one system string: the blocks joined with `"\n\n"`.
pub fn system_prompt(input: &ComposeInput<'_>) -> String {
    system_prompt_blocks(input).join("\n\n")
}

/// N12: no conversation message may carry the `system` (or `developer`) role. `index` is
/// 0-based among the conversation messages, after the system prompt.
pub fn guard_conversation(conversation: &[ChatMessage]) -> Result<(), ComposeError> {
    for (index, m) in conversation.iter().enumerate() {
        if matches!(m.role, Role::System | Role::Developer) {
            return Err(ComposeError::SystemRole {
                index,
                role: m.role.as_str(),
            });
        }
    }
    Ok(())
}

/// `unknown` dispatch, as the model reads it in place of a result. It opens with the reserved
/// `[DISPATCH_UNKNOWN]` marker, which a tool's text never carries
/// (`envelope::defuse_reserved_markers`), so a result that copies this note is not this note.
pub const DISPATCH_UNKNOWN_TEXT: &str = "[DISPATCH_UNKNOWN] keel does not know whether this call \
     ran: the process stopped after it was dispatched and before its result was recorded. keel \
     did not run the call again. Check its effect before repeating it.";

/// Builds the request for one model call.
pub fn compose(input: &ComposeInput<'_>) -> Result<ModelRequest, ComposeError> {
    // A call's tool message is its diagnostic if one exists (it replaces a result the API
    // rejected), else its result. Models reuse call ids across steps, so a call is answered by
    // the items after it and before the next call with the same id. A withdrawn turn is not
    // the model's to read (crate::withdrawal): it is left out before anything is rendered, so
    // its calls need no answers here.
    let items = &crate::withdrawal::in_context(input.items)[..];
    let mut consumed = vec![false; items.len()];
    let by_call = index_by_call(items);
    let mut conversation = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match &item.body {
            ItemBody::User { text } => conversation.push(ChatMessage::text(Role::User, text)),
            ItemBody::Assistant { text, tool_calls } => {
                conversation.push(assistant_message(text, tool_calls));
                for call in tool_calls {
                    let answer = answer_for(items, &by_call, i, &call.id, &mut consumed)
                        .ok_or_else(|| ComposeError::UnansweredToolCall {
                            call_id: call.id.clone(),
                        })?;
                    conversation.push(ChatMessage::tool(&call.id, answer));
                }
            }
            // Rendered right after the call they answer.
            ItemBody::ToolResult { call_id, .. }
            | ItemBody::Diagnostic(
                Diagnostic::ToolCallStatus { call_id, .. }
                | Diagnostic::DispatchUnknown { call_id, .. },
            ) => {
                if !consumed[i] {
                    return Err(ComposeError::OrphanToolMessage {
                        seq: item.seq,
                        call_id: call_id.clone(),
                    });
                }
            }
            ItemBody::Notification {
                envelope,
                merged_with_user,
                ..
            } => {
                // The envelope is rendered here, where the request is composed.
                let line = envelope.render();
                let text = if *merged_with_user {
                    format!("[MERGE_WITH_USER] {line}")
                } else {
                    line
                };
                conversation.push(ChatMessage::text(Role::User, text));
            }
            ItemBody::Diagnostic(Diagnostic::Context { envelope }) => {
                conversation.push(ChatMessage::text(Role::User, envelope.as_str()));
            }
            // `in_context` took every marker out with its turn.
            ItemBody::Withdrawal { .. } => {}
        }
    }
    guard_conversation(&conversation)?;

    // Always exactly one system message at index 0 (interfaces.md §4), even when every block
    // is blank, so `{i}` in N12's error always counts from index 1 of the request.
    let mut messages = Vec::with_capacity(conversation.len() + 1);
    messages.push(ChatMessage::text(Role::System, system_prompt(input)));
    messages.extend(conversation);
    Ok(ModelRequest { messages })
}

/// For each call id, the positions of the items that make or answer a call with it, in order:
/// so a call finds its answer without scanning the rest of the run (a run of n calls composes
/// in O(n log n), not O(n²)).
fn index_by_call(items: &[Item]) -> HashMap<&str, Vec<usize>> {
    let mut by_call: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, item) in items.iter().enumerate() {
        match &item.body {
            ItemBody::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    let at = by_call.entry(call.id.as_str()).or_default();
                    // One entry per item, even if a reply repeats an id.
                    if at.last() != Some(&j) {
                        at.push(j);
                    }
                }
            }
            ItemBody::ToolResult { call_id, .. }
            | ItemBody::Diagnostic(
                Diagnostic::ToolCallStatus { call_id, .. }
                | Diagnostic::DispatchUnknown { call_id, .. },
            ) => by_call.entry(call_id.as_str()).or_default().push(j),
            _ => {}
        }
    }
    by_call
}

/// The answer to call `id` made by item `at`: the last diagnostic for it, else its first
/// result, among the items before the next call that reuses the id. Marks what it used.
fn answer_for(
    items: &[Item],
    by_call: &HashMap<&str, Vec<usize>>,
    at: usize,
    id: &str,
    consumed: &mut [bool],
) -> Option<String> {
    let mut result = None;
    let mut diagnostic = None;
    let positions = by_call.get(id).map_or(&[][..], Vec::as_slice);
    let start = positions.partition_point(|&j| j <= at);
    for &j in &positions[start..] {
        let item = &items[j];
        match &item.body {
            ItemBody::Assistant { tool_calls, .. } if tool_calls.iter().any(|c| c.id == id) => {
                break;
            }
            ItemBody::ToolResult {
                call_id, output, ..
            } if call_id == id && !consumed[j] && result.is_none() => {
                result = Some(tool_message(output).into_owned());
                consumed[j] = true;
            }
            ItemBody::Diagnostic(Diagnostic::ToolCallStatus { call_id, envelope })
                if call_id == id && !consumed[j] =>
            {
                diagnostic = Some(envelope.render());
                consumed[j] = true;
            }
            ItemBody::Diagnostic(Diagnostic::DispatchUnknown { call_id, .. })
                if call_id == id && !consumed[j] =>
            {
                diagnostic = Some(DISPATCH_UNKNOWN_TEXT.to_string());
                consumed[j] = true;
            }
            _ => {}
        }
    }
    diagnostic.or(result)
}

/// Whether a Chat Completions API takes `name` as a function name: 1 to 64 ASCII letters,
/// digits, `_` and `-`. APIs refuse a request with any other name, among the tools offered or
/// in the calls of earlier messages.
pub fn is_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A call's name on the wire. A model can call a name no tool has and no API takes
/// (`functions.read_file`, `read file`); keel refuses that call, and its tool message names the
/// tool as the model wrote it. Sent back verbatim, the name would make the API refuse this
/// request and every later one of the run, so it goes with each character an API does not
/// take replaced by `_`, cut to 64.
fn wire_name(name: &str) -> String {
    if is_function_name(name) {
        return name.to_string();
    }
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "_".to_string()
    } else {
        name
    }
}

/// A call's arguments on the wire: the compact JSON text of an object. A model's arguments
/// that are not an object (text that is not JSON, which keel keeps as a string so its refusal
/// can quote it, or JSON such as `null` or `[1]`) go back as `{}`: servers parse the arguments
/// of earlier calls, and refuse a request where they are not an object. Such a call is refused
/// before the gate (keel-runtime's `proposal`); the stored call, and that refusal, keep what
/// the model sent.
fn wire_arguments(arguments: &serde_json::Value) -> String {
    if arguments.is_object() {
        arguments.to_string()
    } else {
        "{}".to_string()
    }
}

fn assistant_message(text: &str, calls: &[ToolCall]) -> ChatMessage {
    ChatMessage {
        role: Role::Assistant,
        content: if text.is_empty() && !calls.is_empty() {
            None
        } else {
            Some(text.to_string())
        },
        tool_calls: calls
            .iter()
            .map(|c| WireToolCall {
                id: c.id.clone(),
                kind: "function",
                function: WireFunction {
                    name: wire_name(&c.name),
                    arguments: wire_arguments(&c.arguments),
                },
            })
            .collect(),
        tool_call_id: None,
    }
}

#[cfg(test)]
mod tests;
