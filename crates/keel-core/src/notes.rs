//! System notes: what the runtime tells the model that is not a turn anybody took
//! (system-notes.md).
//!
//! A run's notes are an ordered list with a lifetime each (`turn` or `run`) and an optional
//! idempotency tag. They are composed into the system prompt after the stable head, never into
//! the message array. [`SystemNotes`] keeps its list private: the only ways to change it are
//! the note operations below (N4–N7), which is what keeps caller data away from it (N22, T6).

use serde::{Deserialize, Serialize};

use crate::text::{char_len, is_blank};

/// The default cap on untagged notes per run (N25, `[notes] max_untagged`).
pub const DEFAULT_MAX_UNTAGGED: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteLifetime {
    /// Consumed when the current turn closes.
    Turn,
    /// Kept until something replaces or removes it.
    Run,
}

impl NoteLifetime {
    pub fn as_str(self) -> &'static str {
        match self {
            NoteLifetime::Turn => "turn",
            NoteLifetime::Run => "run",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "turn" => Some(NoteLifetime::Turn),
            "run" => Some(NoteLifetime::Run),
            _ => None,
        }
    }
}

/// A note's idempotency tag: non-empty by construction (N27).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct NoteTag(String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a note tag must not be empty")]
pub struct EmptyTag;

impl NoteTag {
    pub fn new(tag: impl Into<String>) -> Result<Self, EmptyTag> {
        let tag = tag.into();
        if tag.is_empty() {
            Err(EmptyTag)
        } else {
            Ok(Self(tag))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for NoteTag {
    type Error = EmptyTag;
    fn try_from(s: String) -> Result<Self, EmptyTag> {
        Self::new(s)
    }
}

impl From<NoteTag> for String {
    fn from(t: NoteTag) -> String {
        t.0
    }
}

/// One note, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemNote {
    pub text: String,
    pub lifetime: NoteLifetime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<NoteTag>,
}

/// An untagged add past the cap (N25). Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "NoteLimit: the run already holds {max} untagged system notes (the `[notes] max_untagged` \
     limit); nothing was added. Give the note a tag so it replaces an earlier one, remove old \
     notes, or raise the limit"
)]
pub struct NoteLimit {
    pub max: usize,
}

/// A run's notes, oldest first.
///
/// The list is private: caller data cannot be merged into it, only the note operations change
/// it (system-notes.md N22, T6).
///
/// ```compile_fail,E0451
/// let notes = keel_core::SystemNotes { notes: Vec::new() };
/// ```
///
/// ```compile_fail,E0616
/// let mut notes = keel_core::SystemNotes::new();
/// notes.notes.clear();
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemNotes {
    notes: Vec<SystemNote>,
}

impl SystemNotes {
    pub fn new() -> Self {
        Self::default()
    }

    /// The notes exactly as a store holds them (for loading persisted state).
    pub fn from_stored(notes: Vec<SystemNote>) -> Self {
        Self { notes }
    }

    /// Tolerant read of a serialized `system_notes` field (N3, N28): a missing or non-array
    /// value is an empty list; an element that is not a well-formed note is skipped, and its
    /// index and reason are returned so the caller can log it.
    pub fn from_stored_json(value: Option<&serde_json::Value>) -> (Self, Vec<(usize, String)>) {
        let mut skipped = Vec::new();
        let Some(serde_json::Value::Array(elements)) = value else {
            return (Self::new(), skipped);
        };
        let mut notes = Vec::with_capacity(elements.len());
        for (i, element) in elements.iter().enumerate() {
            match serde_json::from_value::<SystemNote>(element.clone()) {
                Ok(note) => notes.push(note),
                Err(e) => skipped.push((i, e.to_string())),
            }
        }
        (Self { notes }, skipped)
    }

    /// The serialized `system_notes` field: absent (`None`) when there are no notes (N2).
    pub fn to_stored_json(&self) -> Option<serde_json::Value> {
        if self.notes.is_empty() {
            None
        } else {
            serde_json::to_value(&self.notes).ok()
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &SystemNote> {
        self.notes.iter()
    }

    pub fn as_slice(&self) -> &[SystemNote] {
        &self.notes
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Total size of the note texts, in chars (N25, N26): their cost in every prompt.
    pub fn total_chars(&self) -> usize {
        self.notes.iter().map(|n| char_len(&n.text)).sum()
    }

    /// `add_system_note` (N4): a blank text changes nothing; a tag replaces every note with
    /// that tag and appends at the newest position; untagged adds are capped at `max_untagged`.
    pub fn add(
        &mut self,
        text: impl Into<String>,
        lifetime: NoteLifetime,
        tag: Option<NoteTag>,
        max_untagged: usize,
    ) -> Result<(), NoteLimit> {
        let text = text.into();
        if is_blank(&text) {
            return Ok(());
        }
        match tag {
            Some(tag) => {
                self.notes.retain(|n| n.tag.as_ref() != Some(&tag));
                self.notes.push(SystemNote {
                    text,
                    lifetime,
                    tag: Some(tag),
                });
            }
            None => {
                let untagged = self.notes.iter().filter(|n| n.tag.is_none()).count();
                if untagged >= max_untagged {
                    return Err(NoteLimit { max: max_untagged });
                }
                self.notes.push(SystemNote {
                    text,
                    lifetime,
                    tag: None,
                });
            }
        }
        Ok(())
    }

    /// A tagged add, which no cap applies to.
    pub fn add_tagged(&mut self, text: impl Into<String>, lifetime: NoteLifetime, tag: NoteTag) {
        // Tagged adds are never capped, so this cannot fail.
        let _ = self.add(text, lifetime, Some(tag), usize::MAX);
    }

    /// `system_note_blocks` (N5): the texts in stored order, undecorated.
    pub fn blocks(&self) -> Vec<&str> {
        self.notes.iter().map(|n| n.text.as_str()).collect()
    }

    /// `consume_turn_notes` (N6): drop every `Turn` note, keep `Run` notes in order.
    pub fn consume_turn_notes(&mut self) {
        self.notes.retain(|n| n.lifetime == NoteLifetime::Run);
    }

    /// `remove_system_note` (N7): drop every note with this tag.
    pub fn remove(&mut self, tag: &str) {
        self.notes
            .retain(|n| n.tag.as_ref().map(NoteTag::as_str) != Some(tag));
    }

    /// `clear_system_notes` (N7, N30).
    pub fn clear(&mut self) {
        self.notes.clear();
    }

    /// `read_system_note` (N7): the text of the first note with this tag.
    pub fn read(&self, tag: &str) -> Option<&str> {
        self.notes
            .iter()
            .find(|n| n.tag.as_ref().map(NoteTag::as_str) == Some(tag))
            .map(|n| n.text.as_str())
    }
}

/// One note operation, as `keel call system-notes` and the property tests drive them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteOp {
    Add {
        text: String,
        lifetime: NoteLifetime,
        tag: Option<NoteTag>,
    },
    Blocks,
    Consume,
    Read {
        tag: NoteTag,
    },
    Remove {
        tag: NoteTag,
    },
    Clear,
}

/// What an operation returned: nothing for a mutation, the blocks, or the text read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteOpResult {
    Mutated,
    Blocks(Vec<String>),
    Read(Option<String>),
}

impl SystemNotes {
    /// Applies one operation. An add refused by [`NoteLimit`] changes nothing.
    pub fn apply(&mut self, op: NoteOp, max_untagged: usize) -> Result<NoteOpResult, NoteLimit> {
        Ok(match op {
            NoteOp::Add {
                text,
                lifetime,
                tag,
            } => {
                self.add(text, lifetime, tag, max_untagged)?;
                NoteOpResult::Mutated
            }
            NoteOp::Blocks => {
                NoteOpResult::Blocks(self.blocks().into_iter().map(String::from).collect())
            }
            NoteOp::Consume => {
                self.consume_turn_notes();
                NoteOpResult::Mutated
            }
            NoteOp::Read { tag } => NoteOpResult::Read(self.read(tag.as_str()).map(String::from)),
            NoteOp::Remove { tag } => {
                self.remove(tag.as_str());
                NoteOpResult::Mutated
            }
            NoteOp::Clear => {
                self.clear();
                NoteOpResult::Mutated
            }
        })
    }
}

/// Tags and texts of the producers keel builds (N16).
pub mod producers {
    use super::*;
    use crate::envelope::tool_error_note_text;
    use crate::item::Untrusted;

    pub const COMPACTION_SUMMARY: &str = "compaction-summary";
    pub const HANDOFF_SUMMARY: &str = "handoff-summary";
    pub const CALLER_INSTRUCTIONS: &str = "caller-instructions";
    pub const CONTEXT_RESET_SUMMARY: &str = "context-reset-summary";
    pub const ESCALATION_RESUME: &str = "escalation-resume";
    pub const WAKE: &str = "wake";

    fn tag(name: &str) -> NoteTag {
        NoteTag(name.to_string())
    }

    /// System text from a caller (`keel run --instructions`): a run note, never a message.
    pub fn caller_instructions(text: impl Into<String>) -> NoteOp {
        NoteOp::Add {
            text: text.into(),
            lifetime: NoteLifetime::Run,
            tag: Some(tag(CALLER_INSTRUCTIONS)),
        }
    }

    /// The confirmed handoff draft, byte for byte (bridge.md N19, N39): a run note.
    pub fn handoff_summary(draft: impl Into<String>) -> NoteOp {
        NoteOp::Add {
            text: draft.into(),
            lifetime: NoteLifetime::Run,
            tag: Some(tag(HANDOFF_SUMMARY)),
        }
    }

    /// A recoverable tool error, informing exactly the turn it was raised in.
    pub fn tool_error(call_id: &str, tool: &str, message: &Untrusted<String>) -> NoteOp {
        NoteOp::Add {
            text: tool_error_note_text(tool, message),
            lifetime: NoteLifetime::Turn,
            tag: Some(NoteTag(format!("tool-error:{call_id}"))),
        }
    }

    /// [`caller_instructions`], applied.
    pub fn add_caller_instructions(notes: &mut SystemNotes, text: impl Into<String>) {
        let _ = notes.apply(caller_instructions(text), usize::MAX);
    }

    /// A recoverable tool error, informing exactly the turn it was raised in.
    pub fn add_tool_error(
        notes: &mut SystemNotes,
        call_id: &str,
        tool: &str,
        message: &Untrusted<String>,
    ) {
        let _ = notes.apply(tool_error(call_id, tool, message), usize::MAX);
    }
}

#[cfg(test)]
mod tests;
