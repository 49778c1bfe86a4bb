//! Imported message lists: the legacy migration and the caller-message guard.
//!
//! Message lists that come from outside keel (an older store, another runtime, a caller's
//! `--history`) may hold role-`system` messages. keel never keeps such a message in the
//! conversation: caller lists are refused before anything is written (system-notes.md N13),
//! and stored legacy state is migrated into notes in memory only (N14), never writing on load.

use serde_json::Value;

use crate::notes::{NoteLifetime, NoteTag, SystemNotes, producers};
use crate::text::js_trim;

/// Where caller messages came from (N13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallerField {
    SeedMessages,
    HistoryDelta,
}

impl CallerField {
    pub fn as_str(self) -> &'static str {
        match self {
            CallerField::SeedMessages => "seedMessages",
            CallerField::HistoryDelta => "historyDelta",
        }
    }
}

/// A caller-supplied list held a role-`system` message (N13). Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "InvalidCallerMessages: {field} message at index {index} has role 'system'; nothing was \
     written. Pass system text as caller instructions (`--instructions`) instead",
    field = .field.as_str()
)]
pub struct InvalidCallerMessages {
    pub field: CallerField,
    pub index: usize,
}

/// Rejects a caller list that holds a role-`system` message, naming the first one's index.
pub fn check_caller_roles<'a>(
    field: CallerField,
    roles: impl IntoIterator<Item = &'a str>,
) -> Result<(), InvalidCallerMessages> {
    match roles.into_iter().position(|r| r == "system") {
        Some(index) => Err(InvalidCallerMessages { field, index }),
        None => Ok(()),
    }
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// The text of a message: its string content, or its text parts joined with LF.
fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The routing table of N14: trimmed-text prefix → tag and lifetime.
const ROUTES: [(&str, &str, NoteLifetime); 4] = [
    (
        "[Conversation summary — earlier turns were compacted]",
        producers::COMPACTION_SUMMARY,
        NoteLifetime::Run,
    ),
    (
        "Previous conversation summary:",
        producers::CONTEXT_RESET_SUMMARY,
        NoteLifetime::Run,
    ),
    (
        "[A human agent handled",
        producers::ESCALATION_RESUME,
        NoteLifetime::Run,
    ),
    ("[Scheduled wake:", producers::WAKE, NoteLifetime::Turn),
];

/// Migrates role-`system` messages of a loaded message list into notes, in memory (N14).
///
/// Returns whether anything changed: true iff a system message existed. Running it again on
/// its own output returns false and changes nothing. The caller must not write the result
/// back as part of loading (N21).
pub fn migrate_legacy_system_messages(messages: &mut Vec<Value>, notes: &mut SystemNotes) -> bool {
    let mut found = false;
    for (i, message) in messages.iter().enumerate() {
        if role(message) != Some("system") {
            continue;
        }
        found = true;
        let text = message_text(message);
        let text = js_trim(&text);
        if text.is_empty() {
            continue;
        }
        let (tag, lifetime) = ROUTES
            .iter()
            .find(|(prefix, _, _)| text.starts_with(prefix))
            .map(|(_, tag, lifetime)| ((*tag).to_string(), *lifetime))
            .unwrap_or_else(|| (format!("legacy-system-message-{i}"), NoteLifetime::Run));
        let tag_to_use = match notes.read(&tag) {
            Some(existing) if existing == text => continue,
            Some(_) => format!("legacy-{tag}-{i}"),
            None => tag,
        };
        // Both tag shapes are non-empty by construction.
        if let Ok(tag) = NoteTag::new(tag_to_use) {
            notes.add_tagged(text, lifetime, tag);
        }
    }
    if found {
        messages.retain(|m| role(m) != Some("system"));
    }
    found
}

/// A client-facing transcript: role-`system` messages dropped, mirrored nowhere (N15).
pub fn client_transcript(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| role(m) != Some("system"))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(notes: &SystemNotes) -> Vec<(String, &'static str, String)> {
        notes
            .iter()
            .map(|n| {
                (
                    n.text.clone(),
                    n.lifetime.as_str(),
                    n.tag
                        .as_ref()
                        .map(|t| t.as_str().to_string())
                        .unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn t4_legacy_migration() {
        let resume = "[A human agent handled this conversation. The assistant is now resuming.]";
        let mut messages = vec![
            json!({"role": "system", "content": "[Conversation summary — earlier turns were compacted] S1"}),
            json!({"role": "user", "content": "hi"}),
            json!({"role": "system", "content": resume}),
            json!({"role": "system", "content": "   "}),
            json!({"role": "system", "content": "[A human agent handled this conversation. Resolution: refund. The assistant is now resuming.]"}),
            json!({"role": "system", "content": resume}),
            json!({"role": "system", "content": [{"type": "text", "text": "You are"}, {"type": "text", "text": "terse"}]}),
            json!({"role": "system", "content": "[Scheduled wake: 9am]"}),
        ];
        let mut notes = SystemNotes::new();
        assert!(migrate_legacy_system_messages(&mut messages, &mut notes));
        assert_eq!(messages, vec![json!({"role": "user", "content": "hi"})]);
        assert_eq!(
            shape(&notes),
            vec![
                (
                    "[Conversation summary — earlier turns were compacted] S1".into(),
                    "run",
                    "compaction-summary".into()
                ),
                (resume.into(), "run", "escalation-resume".into()),
                (
                    "[A human agent handled this conversation. Resolution: refund. The assistant is now resuming.]".into(),
                    "run",
                    "legacy-escalation-resume-4".into()
                ),
                ("You are\nterse".into(), "run", "legacy-system-message-6".into()),
                ("[Scheduled wake: 9am]".into(), "turn", "wake".into()),
            ]
        );
        let (before_messages, before_notes) = (messages.clone(), notes.clone());
        assert!(!migrate_legacy_system_messages(&mut messages, &mut notes));
        assert_eq!(messages, before_messages);
        assert_eq!(notes, before_notes);
    }

    #[test]
    fn context_reset_prefix_routes_and_trims() {
        let mut messages =
            vec![json!({"role": "system", "content": "  Previous conversation summary: S  "})];
        let mut notes = SystemNotes::new();
        assert!(migrate_legacy_system_messages(&mut messages, &mut notes));
        assert_eq!(
            notes.read("context-reset-summary"),
            Some("Previous conversation summary: S")
        );
        assert!(messages.is_empty());
    }

    #[test]
    fn blank_only_system_message_still_counts_as_a_change() {
        let mut messages = vec![json!({"role": "system", "content": "\u{FEFF}"})];
        let mut notes = SystemNotes::new();
        assert!(migrate_legacy_system_messages(&mut messages, &mut notes));
        assert!(notes.is_empty());
        assert!(messages.is_empty());
    }

    #[test]
    fn n15_transcript_drops_system_messages() {
        let messages = vec![
            json!({"role": "system", "content": "secret"}),
            json!({"role": "user", "content": "hi"}),
        ];
        assert_eq!(
            client_transcript(&messages),
            vec![json!({"role": "user", "content": "hi"})]
        );
    }

    #[test]
    fn t5_caller_guards() {
        assert_eq!(
            check_caller_roles(CallerField::SeedMessages, ["user", "system"]),
            Err(InvalidCallerMessages {
                field: CallerField::SeedMessages,
                index: 1
            })
        );
        assert_eq!(
            check_caller_roles(CallerField::HistoryDelta, ["system"]),
            Err(InvalidCallerMessages {
                field: CallerField::HistoryDelta,
                index: 0
            })
        );
        assert_eq!(
            check_caller_roles(CallerField::HistoryDelta, ["user", "assistant"]),
            Ok(())
        );
        let msg = InvalidCallerMessages {
            field: CallerField::SeedMessages,
            index: 1,
        }
        .to_string();
        assert!(
            msg.contains("seedMessages message at index 1 has role 'system'"),
            "{msg}"
        );
    }
}
