//! An MCP server's tools as keel tools. Each is offered as `mcp__<server>__<tool>` with the
//! server's description, schema and annotations, so the gate classifies and rules match it
//! like any other tool (safety.md N13) and nothing about MCP reaches the turn loop.
//!
//! A call the server answered is a result like any other (its `isError` becomes the tool-error
//! note). A call that timed out, or whose server failed mid-call, may or may not have taken
//! effect: the model is told exactly that, and it is not marked as an error it could fix by
//! simply calling again.

use std::sync::Arc;

use keel_mcp::{McpClient, McpError, McpTool};
use keel_model::ToolSpec;
use serde_json::{Map, Value};

use crate::tools::{Tool, ToolContext, ToolOutput};

/// The name keel offers an MCP server's tool under.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// One tool of a running server.
pub struct McpServerTool {
    client: Arc<McpClient>,
    tool: McpTool,
    name: String,
}

/// Whether `name` can be offered to a model: Chat Completions APIs take function names of 1
/// to 64 ASCII letters, digits, `_` and `-`, and refuse the whole request otherwise.
pub fn is_offerable_name(name: &str) -> bool {
    keel_core::compose::is_function_name(name)
}

/// Whether `server` can name an MCP server: offerable, and without `__`, so that
/// `mcp__<server>__<tool>` always splits one way.
pub fn is_server_name(server: &str) -> bool {
    is_offerable_name(server) && !server.contains("__")
}

/// A started server's tools, ready for a [`crate::tools::Toolbox`], and the names of those
/// that cannot be offered (their keel name would not be a valid function name).
pub type ServerTools = (Vec<Box<dyn Tool>>, Vec<String>);

/// The tools of a started server.
pub fn server_tools(client: McpClient) -> Result<ServerTools, McpError> {
    let client = Arc::new(client);
    let mut offered: Vec<Box<dyn Tool>> = Vec::new();
    let mut skipped = Vec::new();
    for tool in client.tools()? {
        let name = tool_name(client.name(), &tool.name);
        if !is_offerable_name(&name) {
            skipped.push(tool.name);
            continue;
        }
        offered.push(Box::new(McpServerTool {
            name,
            client: Arc::clone(&client),
            tool,
        }));
    }
    Ok((offered, skipped))
}

impl Tool for McpServerTool {
    fn spec(&self) -> ToolSpec {
        // Only keel's own tools may speak keel's schema keywords: a server that marked its
        // arguments exempt from provenance would be choosing what the gate checks.
        let mut parameters = self.tool.input_schema.clone();
        crate::tools::strip_keel_keywords(&mut parameters);
        ToolSpec {
            name: self.name.clone(),
            description: self.tool.description.clone(),
            parameters,
        }
    }

    fn annotations(&self) -> Map<String, Value> {
        self.tool.annotations.clone()
    }
    fn structured_output(&self) -> bool {
        self.tool.structured_output
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let arguments = match args {
            Value::Object(m) => m.clone(),
            Value::Null => Map::new(),
            _ => {
                return ToolOutput {
                    text: "the arguments must be a JSON object".into(),
                    is_error: true,
                };
            }
        };
        match self.client.call(&self.tool.name, arguments) {
            Ok(outcome) => ToolOutput {
                text: ctx.cap(result_text(&self.tool, outcome.text, outcome.structured)),
                is_error: outcome.is_error,
            },
            Err(e) => ToolOutput {
                text: format!("{e}. Check whether it did before calling it again."),
                is_error: false,
            },
        }
    }
}

/// What a call's result reads as. A tool that declares an `outputSchema` must return
/// `structuredContent` (MCP 2025-06-18): that data, serialized, is its result, which is also
/// what provenance reads records from; its text blocks are a rendering for clients that do not
/// read structured content, and may be a file's raw text. Without structured content, such a
/// tool's text is given as one JSON string, so nobody's text passes for the tool's records.
fn result_text(tool: &McpTool, text: String, structured: Option<Value>) -> String {
    if !tool.structured_output {
        return text;
    }
    match structured {
        Some(data) => data.to_string(),
        None => Value::String(text).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structured_tools_result_is_its_structured_content_and_never_raw_text() {
        let mut tool = McpTool {
            name: "read_text_file".into(),
            description: String::new(),
            input_schema: serde_json::json!({"type": "object"}),
            annotations: Map::new(),
            structured_output: false,
        };
        let file = "iban: XX13300000012121212\nvendor: ACME-2023\n".to_string();
        let data = serde_json::json!({"content": file});
        assert_eq!(result_text(&tool, file.clone(), Some(data.clone())), file);
        tool.structured_output = true;
        assert_eq!(
            result_text(&tool, file.clone(), Some(data.clone())),
            data.to_string()
        );
        // A server that breaks the contract: its text becomes one JSON string.
        let text = result_text(&tool, file.clone(), None);
        assert_eq!(
            serde_json::from_str::<Value>(&text).ok(),
            Some(Value::String(file))
        );
    }

    #[test]
    fn names_that_a_model_api_takes_and_that_split_one_way() {
        assert!(is_offerable_name("mcp__fs__read_text_file"));
        assert!(!is_offerable_name("mcp__fs__read file"));
        assert!(!is_offerable_name(&"x".repeat(65)));
        assert!(!is_offerable_name(""));
        assert!(is_server_name("files-2"));
        assert!(!is_server_name("a__b"));
        assert!(!is_server_name("a.b"));
    }
}
