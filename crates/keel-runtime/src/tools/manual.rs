//! The `tool_manual` tool (computer-use.md N2): the full manual of a tool, verbatim, read by
//! the model on demand. The stable head carries only each manual's summary, which tells the
//! model to call this.
//!
//! It is not in [`super::Toolbox::builtin`]: it is offered beside a tool that has a manual
//! (`computer_use`), by whoever offers that tool (`toolbox.add(Box::new(ToolManual))`). While
//! a desktop-control lease is held it is one of the three tools the gate still admits (N27).

use keel_computer::manual::{manual, tools_with_manuals};
use keel_model::ToolSpec;
use serde_json::{Map, Value, json};

use super::{Tool, ToolContext, ToolOutput, annotations, spec};

/// The tool's name, as the model calls it and the N27 gate admits it.
pub const NAME: &str = "tool_manual";

/// `tool_manual {"name"}`: the named tool's manual as the whole output.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolManual;

impl ToolManual {
    pub fn new() -> Self {
        Self
    }

    fn unknown(what: &str) -> ToolOutput {
        let known: Vec<&str> = tools_with_manuals().collect();
        ToolOutput::error(format!(
            "{what}; the tools with a manual are: {}",
            known.join(", ")
        ))
    }
}

impl Tool for ToolManual {
    fn spec(&self) -> ToolSpec {
        spec(
            NAME,
            "Return the full manual of a tool, verbatim. Read it before first using a tool whose \
             summary points here.",
            json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "The tool's name, e.g. computer_use."}},
                "required": ["name"],
                "additionalProperties": false
            }),
        )
    }

    fn annotations(&self) -> Map<String, Value> {
        annotations(true, false)
    }

    fn call(&self, args: &Value, _ctx: &ToolContext) -> ToolOutput {
        let Some(name) = args.get("name").and_then(Value::as_str) else {
            return Self::unknown("`name` must be a string naming a tool");
        };
        // Verbatim (N2): not cut at the output cap, not wrapped, not trimmed.
        match manual(name) {
            Some(text) => ToolOutput::ok(text),
            None => Self::unknown(&format!("there is no manual for {name:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_computer::manual::COMPUTER_USE_MANUAL;

    fn call(args: Value) -> ToolOutput {
        let mut ctx = ToolContext::new(std::env::temp_dir());
        // A cap below the manual's size: the manual is still returned whole.
        ctx.output_cap = 100;
        ToolManual::new().call(&args, &ctx)
    }

    #[test]
    fn n2_computer_use_manual_verbatim() {
        let out = call(json!({"name": "computer_use"}));
        assert_eq!(out, ToolOutput::ok(COMPUTER_USE_MANUAL));
    }

    #[test]
    fn unknown_or_missing_name_lists_the_tools_with_manuals() {
        for args in [json!({"name": "shell"}), json!({}), json!({"name": 3})] {
            let out = call(args.clone());
            assert!(out.is_error, "{args}");
            assert!(
                out.text
                    .ends_with("the tools with a manual are: computer_use"),
                "{args}: {}",
                out.text
            );
        }
        assert!(call(json!({"name": "shell"})).text.contains("\"shell\""));
    }

    #[test]
    fn read_only_and_named() {
        let t = ToolManual::new();
        assert_eq!(t.spec().name, NAME);
        assert_eq!(t.annotations()["readOnlyHint"], json!(true));
        assert_eq!(t.annotations()["destructiveHint"], json!(false));
    }
}
