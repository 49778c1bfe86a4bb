//! MCP results: a line an MCP server writes on stdout, decoded as rmcp's transport decodes it
//! (`ServerJsonRpcMessage`), and the `tools/call` result or `tools/list` answer in it turned
//! into keel's types by keel-mcp (`outcome_of`, `tool_of`). The whole input is also read as a
//! bare result, so mutations need not keep the JSON-RPC wrapping intact.
//!
//! Beyond never panicking: the outcome carries the server's error flag and structured content
//! as sent; every text block's text is in the outcome's text; a tool keeps its name, its
//! schema as an object, and whether it declared an output schema.
#![no_main]

use keel_mcp::{outcome_of, tool_of};
use libfuzzer_sys::fuzz_target;
use rmcp::model::{
    CallToolResult, ContentBlock, JsonRpcMessage, ListToolsResult, ServerJsonRpcMessage,
    ServerResult,
};

fn check_call(result: CallToolResult) {
    let texts: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect();
    let (is_error, structured) = (result.is_error, result.structured_content.clone());
    let empty = result.content.is_empty();
    let outcome = outcome_of(result);
    assert_eq!(outcome.is_error, is_error.unwrap_or(false));
    assert_eq!(outcome.structured, structured);
    for t in &texts {
        assert!(
            outcome.text.contains(t.as_str()),
            "{t:?} in {:?}",
            outcome.text
        );
    }
    if empty && structured.is_none() {
        assert!(outcome.text.is_empty());
    }
}

fn check_tools(list: ListToolsResult) {
    for tool in list.tools {
        let (name, declared) = (tool.name.to_string(), tool.output_schema.is_some());
        let ours = tool_of(tool);
        assert_eq!(ours.name, name);
        assert!(ours.input_schema.is_object());
        assert_eq!(ours.structured_output, declared);
    }
}

fuzz_target!(|data: &[u8]| {
    let line = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    if let Ok(JsonRpcMessage::Response(response)) =
        serde_json::from_slice::<ServerJsonRpcMessage>(line)
    {
        match response.result {
            ServerResult::CallToolResult(result) => check_call(result),
            ServerResult::ListToolsResult(list) => check_tools(list),
            _ => {}
        }
    }
    if let Ok(result) = serde_json::from_slice::<CallToolResult>(line) {
        check_call(result);
    }
    if let Ok(list) = serde_json::from_slice::<ListToolsResult>(line) {
        check_tools(list);
    }
});
