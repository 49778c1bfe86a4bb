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

/// The tools of a started server, ready for a [`crate::tools::Toolbox`].
pub fn server_tools(client: McpClient) -> Result<Vec<Box<dyn Tool>>, McpError> {
    let client = Arc::new(client);
    Ok(client
        .tools()?
        .into_iter()
        .map(|tool| -> Box<dyn Tool> {
            Box::new(McpServerTool {
                name: tool_name(client.name(), &tool.name),
                client: Arc::clone(&client),
                tool,
            })
        })
        .collect())
}

impl Tool for McpServerTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.tool.description.clone(),
            parameters: self.tool.input_schema.clone(),
        }
    }

    fn annotations(&self) -> Map<String, Value> {
        self.tool.annotations.clone()
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
                text: ctx.cap(outcome.text),
                is_error: outcome.is_error,
            },
            Err(e) => ToolOutput {
                text: format!("{e}. Check whether it did before calling it again."),
                is_error: false,
            },
        }
    }
}
