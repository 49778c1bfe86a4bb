//! keel-mcp: keel's client for MCP servers over stdio.
//!
//! [`McpClient::start`] spawns the configured program (directly, no shell), completes the MCP
//! handshake through `rmcp`, and then answers [`McpClient::tools`] and [`McpClient::call`] as
//! plain blocking calls, each with its own deadline: keel's turn loop is synchronous, so the
//! async runtime that `rmcp` needs lives inside the client and nowhere else. Dropping the
//! client ends the server.
//!
//! Not here: naming the tools for the model (`mcp__<server>__<tool>`), gating calls, or
//! deciding which servers may run (only the user and admin configuration tiers may name one).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value};

/// Default wait for a server to start and answer the handshake.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);
/// Default wait for one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// One `[mcp_servers.NAME]` table, as the client needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// The server's working directory (keel passes the session directory).
    pub cwd: Option<PathBuf>,
    pub start_timeout: Duration,
    pub call_timeout: Duration,
}

impl ServerConfig {
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            start_timeout: DEFAULT_START_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
        }
    }
}

/// A tool as the server describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct McpTool {
    /// The server's own name for it.
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// MCP annotations (`readOnlyHint`, `destructiveHint`, `openWorldHint`, …) as the server
    /// sent them, camelCase keys; empty when it sent none.
    pub annotations: Map<String, Value>,
    /// The server declared an `outputSchema`: its results are structured content.
    pub structured_output: bool,
}

/// What one call returned: the text of its content blocks, and whether the server flagged it
/// as an error (the tool ran and failed; the model may correct it).
#[derive(Clone, Debug, PartialEq)]
pub struct CallOutcome {
    pub text: String,
    pub is_error: bool,
    /// The `structuredContent` the server returned, if any.
    pub structured: Option<Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The server could not be started or did not complete the handshake.
    #[error("MCP server {server:?} did not start: {why}")]
    Start { server: String, why: String },
    /// Listing the tools failed.
    #[error("MCP server {server:?} could not list its tools: {why}")]
    List { server: String, why: String },
    /// The call was sent but no answer came: whether it took effect is unknown.
    #[error(
        "MCP server {server:?} gave no answer to {tool} within {secs} s; whether the call took effect is unknown"
    )]
    CallTimedOut {
        server: String,
        tool: String,
        secs: u64,
    },
    /// The call failed in transport or protocol (the server died, answered garbage): its
    /// effect is unknown too.
    #[error(
        "MCP server {server:?} failed during {tool}: {why}; whether the call took effect is unknown"
    )]
    CallFailed {
        server: String,
        tool: String,
        why: String,
    },
}

/// A running MCP server and the runtime that drives it.
pub struct McpClient {
    config: ServerConfig,
    service: Option<RunningService<RoleClient, ()>>,
    /// The server's process group with keel's reaper; ended after the service is closed.
    watch: Option<keel_reaper::Watch>,
    runtime: tokio::runtime::Runtime,
}

impl McpClient {
    /// Starts the server and completes the handshake within `start_timeout`.
    pub fn start(config: ServerConfig) -> Result<Self, McpError> {
        let start_error = |why: String| McpError::Start {
            server: config.name.clone(),
            why,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| start_error(format!("cannot create its runtime: {e}")))?;
        let service = runtime.block_on(async {
            let mut command = tokio::process::Command::new(&config.command);
            command
                .args(&config.args)
                .envs(&config.env)
                .kill_on_drop(true);
            if let Some(cwd) = &config.cwd {
                command.current_dir(cwd);
            }
            // A process group of its own (a terminal's Ctrl-C is keel's to handle, not the
            // server's), registered with keel's reaper before the server runs: if keel dies,
            // the server and whatever it started (`npx` starts `node`) die too.
            keel_reaper::prepare(command.as_std_mut()).map_err(|e| start_error(e.to_string()))?;
            let (transport, _stderr) = TokioChildProcess::builder(command)
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|e| {
                    start_error(format!(
                        "cannot run {:?}: {e}; check `command` in [mcp_servers.{}]",
                        config.command, config.name
                    ))
                })?;
            let pgid = transport
                .id()
                .ok_or_else(|| start_error("it exited as soon as it started".into()))?;
            let watch = keel_reaper::adopt(pgid);
            let served = match tokio::time::timeout(config.start_timeout, ().serve(transport)).await
            {
                Ok(Ok(service)) => Ok(service),
                Ok(Err(e)) => Err(start_error(format!(
                    "the MCP handshake failed ({e}); is {:?} an MCP server speaking stdio?",
                    config.command
                ))),
                Err(_) => Err(start_error(format!(
                    "no handshake within {} s (raise [mcp_servers.{}] start_timeout_secs if it is \
                     slow to start)",
                    config.start_timeout.as_secs(),
                    config.name
                ))),
            };
            match served {
                Ok(service) => Ok((service, watch)),
                Err(e) => {
                    watch.end();
                    Err(e)
                }
            }
        })?;
        let (service, watch) = service;
        Ok(Self {
            config,
            service: Some(service),
            watch: Some(watch),
            runtime,
        })
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Every tool the server offers (all pages), within `call_timeout`.
    pub fn tools(&self) -> Result<Vec<McpTool>, McpError> {
        let list_error = |why: String| McpError::List {
            server: self.config.name.clone(),
            why,
        };
        let service = self
            .service
            .as_ref()
            .ok_or_else(|| list_error("it was stopped".into()))?;
        let tools = self
            .runtime
            .block_on(async {
                tokio::time::timeout(self.config.call_timeout, service.list_all_tools()).await
            })
            .map_err(|_| {
                list_error(format!(
                    "no answer within {} s",
                    self.config.call_timeout.as_secs()
                ))
            })?
            .map_err(|e| list_error(e.to_string()))?;
        Ok(tools.into_iter().map(tool_of).collect())
    }

    /// Calls one tool within `call_timeout`. A call that times out is abandoned (rmcp sends
    /// the server a cancellation) and reported as of unknown effect, never retried here.
    pub fn call(&self, tool: &str, arguments: Map<String, Value>) -> Result<CallOutcome, McpError> {
        let failed = |why: String| McpError::CallFailed {
            server: self.config.name.clone(),
            tool: tool.to_string(),
            why,
        };
        let service = self
            .service
            .as_ref()
            .ok_or_else(|| failed("it was stopped".into()))?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let result = self
            .runtime
            .block_on(async {
                tokio::time::timeout(self.config.call_timeout, service.call_tool(params)).await
            })
            .map_err(|_| McpError::CallTimedOut {
                server: self.config.name.clone(),
                tool: tool.to_string(),
                secs: self.config.call_timeout.as_secs(),
            })?;
        let result = match result {
            Ok(result) => result,
            // The server answered with a JSON-RPC error (unknown tool, invalid arguments): the
            // call was refused, not lost, and the model can correct it.
            Err(rmcp::ServiceError::McpError(refused)) => {
                return Ok(CallOutcome {
                    text: format!(
                        "the MCP server refused the call ({:?}): {}",
                        refused.code, refused.message
                    ),
                    is_error: true,
                    structured: None,
                });
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        Ok(outcome_of(result))
    }
}

/// A tool of the server's `tools/list` answer, as keel describes it. Public, like
/// [`outcome_of`], so the fuzz target (fuzz/) converts what rmcp decoded through it.
pub fn tool_of(t: rmcp::model::Tool) -> McpTool {
    McpTool {
        name: t.name.to_string(),
        description: t.description.map(|d| d.to_string()).unwrap_or_default(),
        input_schema: Value::Object((*t.input_schema).clone()),
        annotations: t
            .annotations
            .and_then(|a| serde_json::to_value(a).ok())
            .and_then(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .unwrap_or_default(),
        structured_output: t.output_schema.is_some(),
    }
}

/// A `tools/call` result as keel's outcome: the content blocks as text (the structured
/// content when there are none), and whether the server flagged an error.
pub fn outcome_of(result: rmcp::model::CallToolResult) -> CallOutcome {
    let blocks: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(|block| render_block(&block))
        .collect();
    let mut text = blocks.join("\n");
    if text.is_empty()
        && let Some(structured) = &result.structured_content
    {
        text = structured.to_string();
    }
    CallOutcome {
        text,
        is_error: result.is_error.unwrap_or(false),
        structured: result.structured_content,
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if let Some(service) = self.service.take() {
            // Closes the server's stdin and reaps it; `kill_on_drop` covers a server that
            // ignores the close.
            let _ = self.runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(2), service.cancel()).await
            });
        }
        // What the server started and left behind goes with it.
        if let Some(watch) = self.watch.take() {
            watch.end();
        }
    }
}

/// One content block as text: text blocks verbatim; anything else by what it is, since the
/// model reads text (an image's bytes are not pasted into the conversation).
fn render_block(block: &Value) -> String {
    let kind = block["type"].as_str().unwrap_or("unknown");
    match kind {
        "text" => block["text"].as_str().unwrap_or_default().to_string(),
        "resource" => {
            let resource = &block["resource"];
            match resource["text"].as_str() {
                Some(text) => text.to_string(),
                None => format!(
                    "[resource {} ({}), binary, not shown]",
                    resource["uri"].as_str().unwrap_or("?"),
                    resource["mimeType"].as_str().unwrap_or("unknown type")
                ),
            }
        }
        "resource_link" => format!(
            "[resource link {} {}]",
            block["uri"].as_str().unwrap_or("?"),
            block["name"].as_str().unwrap_or_default()
        ),
        _ => format!(
            "[{kind} content ({}), {} base64 chars, not shown]",
            block["mimeType"].as_str().unwrap_or("unknown type"),
            block["data"].as_str().map_or(0, str::len)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_render_as_text_and_binary_is_named_not_pasted() {
        assert_eq!(render_block(&json!({"type": "text", "text": "hi"})), "hi");
        assert_eq!(
            render_block(&json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})),
            "[image content (image/png), 4 base64 chars, not shown]"
        );
        assert_eq!(
            render_block(
                &json!({"type": "resource", "resource": {"uri": "file:///a", "text": "body"}})
            ),
            "body"
        );
        assert_eq!(
            render_block(
                &json!({"type": "resource", "resource": {"uri": "file:///b", "mimeType": "application/pdf", "blob": "xx"}})
            ),
            "[resource file:///b (application/pdf), binary, not shown]"
        );
    }

    #[test]
    fn a_missing_program_is_a_start_error_that_names_it() {
        let err = McpClient::start(ServerConfig::new("fs", "/nonexistent/mcp-server"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("MCP server \"fs\" did not start"), "{err}");
        assert!(err.contains("/nonexistent/mcp-server"), "{err}");
    }

    #[test]
    fn a_program_that_is_no_mcp_server_fails_the_handshake_quickly() {
        let mut config = ServerConfig::new("cat", "sh");
        config.args = vec!["-c".into(), "echo not-json; sleep 5".into()];
        config.start_timeout = Duration::from_millis(500);
        let err = McpClient::start(config)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("did not start"), "{err}");
    }
}
