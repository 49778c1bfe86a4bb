//! `keel call tool-manual` (interfaces.md §1.4, computer-use.md N2): a tool's manual, verbatim,
//! as a JSON string, for agents that offer keel's tools from outside keel.

use keel_computer::manual::{manual, tools_with_manuals};
use serde_json::{Value, json};

use super::CallError;
use super::wire::{BadInput, Obj};

pub fn tool_manual_call(input: &Value) -> Result<Value, CallError> {
    let root = Obj::root(input)?;
    let tool = root.req_str("tool")?;
    let text = manual(tool).ok_or_else(|| {
        let known: Vec<&str> = tools_with_manuals().collect();
        BadInput::new(
            "tool",
            format!(
                "{tool:?} has no manual; the tools with a manual are: {}",
                known.join(", ")
            ),
        )
    })?;
    Ok(json!(text))
}
