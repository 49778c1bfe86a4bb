//! Note operations as tests write them.

use keel_core::notes::NoteOp;
use keel_core::{NoteLifetime, NoteTag};

/// The tag `tag`; panics on an empty one.
pub fn note_tag(tag: &str) -> NoteTag {
    NoteTag::new(tag).unwrap_or_else(|_| panic!("a note tag may not be empty"))
}

/// Adds the note `text` for `lifetime`, tagged `tag` (an untagged note when `None`).
pub fn add_note(text: &str, lifetime: NoteLifetime, tag: Option<&str>) -> NoteOp {
    NoteOp::Add {
        text: text.to_string(),
        lifetime,
        tag: tag.map(note_tag),
    }
}
