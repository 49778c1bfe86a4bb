//! keel-core: the pure heart of keel.
//!
//! Everything here is a pure function or a pure value: conversation items and their
//! provenance, system notes, the envelopes that quote untrusted text, and the composition of a
//! model request. There is no IO, no async, no clock and no randomness of its own: ids,
//! timestamps and limits are passed in, so every contract in `shared/spec` can be driven by a
//! unit test, a property test or a fuzzer without a runtime around it.
//!
//! Not here: policy (`keel-policy`), computer use (`keel-computer`), storage (`keel-store`),
//! model providers, the turn loop, or the command line.
// Two `unsafe` blocks, both in `text::push_json_string` (issue 18): calling its AVX2 build
// once the CPU is known to have AVX2, and taking the quoted line it wrote as a `String`
// without reading it all again (its SAFETY comment says why it is UTF-8; debug builds check,
// and the tests hold it to serde's bytes). Nothing else may use unsafe code.
#![deny(unsafe_code)]

pub mod bridge;
pub mod compaction;
pub mod compose;
pub mod draft;
pub mod envelope;
pub mod item;
pub mod language;
pub mod legacy;
pub mod notes;
pub mod notify;
#[cfg(any(test, feature = "test-support"))]
pub mod seed_literal;
pub mod text;
pub mod time;
mod untrusted;
pub mod withdrawal;

pub use item::{Item, ItemBody, ItemId, ToolCall, Untrusted};
pub use notes::{NoteLifetime, NoteLimit, NoteTag, SystemNote, SystemNotes};
pub use time::Timestamp;
