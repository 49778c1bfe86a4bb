//! `keel call system-notes` (interfaces.md §1.1): apply note operations to a list of notes.

use keel_core::notes::{DEFAULT_MAX_UNTAGGED, NoteOp, NoteOpResult};
use keel_core::{NoteLifetime, NoteTag, SystemNote, SystemNotes};
use serde_json::{Value, json};

use super::CallError;
use super::wire::{BadInput, Obj};

pub fn call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let notes = match root.opt_array("notes")? {
        Some(items) => items
            .objects()?
            .iter()
            .map(read_note)
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let ops = root
        .req_array("ops")?
        .objects()?
        .iter()
        .map(read_op)
        .collect::<Result<Vec<_>, _>>()?;

    let mut notes = SystemNotes::from_stored(notes);
    let mut results = Vec::with_capacity(ops.len());
    for op in ops {
        let result = notes
            .apply(op, DEFAULT_MAX_UNTAGGED)
            .map_err(|e| CallError::Refused(e.to_string()))?;
        results.push(match result {
            NoteOpResult::Mutated => Value::Null,
            NoteOpResult::Blocks(blocks) => json!(blocks),
            NoteOpResult::Read(text) => json!(text),
        });
    }
    Ok(json!({"notes": notes.as_slice(), "results": results}))
}

fn lifetime(obj: &Obj<'_>) -> Result<NoteLifetime, BadInput> {
    let s = obj.req_str("lifetime")?;
    NoteLifetime::parse(s).ok_or_else(|| {
        BadInput::new(
            obj.path_of("lifetime"),
            format!(
                "`{}` must be \"turn\" or \"run\", not {s:?}",
                obj.path_of("lifetime")
            ),
        )
    })
}

fn tag(obj: &Obj<'_>, required: bool) -> Result<Option<NoteTag>, BadInput> {
    let value = if required {
        Some(obj.req_str("tag")?)
    } else {
        obj.opt_str("tag")?
    };
    value
        .map(|t| {
            NoteTag::new(t).map_err(|_| {
                BadInput::new(
                    obj.path_of("tag"),
                    format!(
                        "`{}` must not be empty; leave it out for an untagged note",
                        obj.path_of("tag")
                    ),
                )
            })
        })
        .transpose()
}

fn read_note(obj: &Obj<'_>) -> Result<SystemNote, BadInput> {
    Ok(SystemNote {
        text: obj.req_str("text")?.to_string(),
        lifetime: lifetime(obj)?,
        tag: tag(obj, false)?,
    })
}

fn read_op(obj: &Obj<'_>) -> Result<NoteOp, BadInput> {
    let name = obj.req_str("op")?;
    Ok(match name {
        "add" => NoteOp::Add {
            text: obj.req_str("text")?.to_string(),
            lifetime: lifetime(obj)?,
            tag: tag(obj, false)?,
        },
        "blocks" => NoteOp::Blocks,
        "consume" => NoteOp::Consume,
        "read" | "remove" => {
            let tag = tag(obj, true)?.ok_or_else(|| BadInput::new(obj.path_of("tag"), "tag"))?;
            if name == "read" {
                NoteOp::Read { tag }
            } else {
                NoteOp::Remove { tag }
            }
        }
        "clear" => NoteOp::Clear,
        other => {
            return Err(BadInput::new(
                obj.path_of("op"),
                format!(
                    "`{}` must be one of add, blocks, consume, read, remove, clear; not {other:?}",
                    obj.path_of("op")
                ),
            ));
        }
    })
}
