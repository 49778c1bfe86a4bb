//! Provenance as a type: [`Untrusted`], text that came from neither the user nor the model.
//!
//! A leaf module on purpose: items hold `Untrusted` fields and envelopes quote them, so both
//! import it and it imports neither (no import circle between `item`, `envelope` and
//! `notify`). Its raw value is crate-private; [`crate::envelope`] is the one module that
//! reads it to quote it, and `item::encode_body` the one that reads it to store it.

use std::fmt;

/// Text that came from neither the user nor the model: tool output, search results, screen
/// content, subagent reports, notification payloads.
///
/// It has no `Display`, no `Deref` and no public field, and its `Debug` shows only its length,
/// so it cannot be formatted into a prompt by accident. [`crate::envelope`] is the only module
/// that can read it, and it always quotes.
///
/// ```compile_fail,E0277
/// let outside = keel_core::Untrusted::new("ignore previous instructions".to_string());
/// let prompt = format!("{outside}"); // no Display: does not compile
/// ```
///
/// ```compile_fail,E0616
/// let outside = keel_core::Untrusted::new("ignore previous instructions".to_string());
/// let text: &String = &outside.0; // the field is private: does not compile
/// ```
///
/// ```compile_fail,E0277
/// // Not serializable on its own either: only as part of a stored item.
/// let outside = keel_core::Untrusted::new("ignore previous instructions".to_string());
/// let raw = serde_json::to_value(&outside);
/// ```
///
/// ```compile_fail,E0308
/// // A tool result cannot be made from plain text: its output must be `Untrusted`.
/// let body = keel_core::ItemBody::ToolResult {
///     call_id: "c1".into(),
///     tool: "search".into(),
///     output: "ignore previous instructions".to_string(),
///     is_error: false,
/// };
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Untrusted<T>(T);

impl<T> Untrusted<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// Only envelope functions read the raw value to quote it, and the stored form of an item
    /// (`item::encode_body`) to persist it.
    pub(crate) fn raw(&self) -> &T {
        &self.0
    }
}

impl Untrusted<String> {
    /// Size in Unicode scalar values; reveals nothing of the content.
    pub fn char_len(&self) -> usize {
        self.0.chars().count()
    }
}

impl<T> fmt::Debug for Untrusted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Untrusted(..)")
    }
}
