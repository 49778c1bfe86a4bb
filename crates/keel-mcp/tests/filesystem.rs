//! The client against a real MCP server from npm (`@modelcontextprotocol/server-filesystem`,
//! installed by `./scripts/test`, which sets KEEL_TEST_MCP_FILESYSTEM).

use keel_mcp::{McpClient, ServerConfig};
use serde_json::{Map, Value, json};

fn start(dir: &std::path::Path) -> McpClient {
    let server = std::env::var("KEEL_TEST_MCP_FILESYSTEM").unwrap_or_else(|_| {
        panic!("KEEL_TEST_MCP_FILESYSTEM is not set: run ./scripts/test, which installs it")
    });
    let mut config = ServerConfig::new("fs", server);
    config.args = vec![dir.display().to_string()];
    McpClient::start(config).unwrap_or_else(|e| panic!("{e}"))
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[test]
fn tools_come_with_their_schemas_and_annotations_and_calls_reach_the_server() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let client = start(&root);
    let tools = client.tools().unwrap_or_else(|e| panic!("{e}"));
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let read = find("read_text_file");
    assert_eq!(read.annotations.get("readOnlyHint"), Some(&json!(true)));
    assert_eq!(read.input_schema["type"], "object");
    assert!(!read.description.is_empty());
    let write = find("write_file");
    assert_eq!(write.annotations.get("readOnlyHint"), Some(&json!(false)));
    assert_eq!(write.annotations.get("destructiveHint"), Some(&json!(true)));

    let file = root.join("a.txt").display().to_string();
    let wrote = client
        .call(
            "write_file",
            args(json!({"path": file, "content": "one\ntwo"})),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!wrote.is_error, "{wrote:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap_or_default(),
        "one\ntwo"
    );
    let back = client
        .call("read_text_file", args(json!({"path": file})))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.text, "one\ntwo");
    // The server's own refusal is an error result the model can correct, not a failure.
    let refused = client
        .call("read_text_file", args(json!({"path": "/etc/hostname"})))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(refused.is_error, "{refused:?}");
    // A call the server rejects outright (no such tool) is a definite error, not a lost call.
    let unknown = client
        .call("no_such_tool", Map::new())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(unknown.is_error, "{unknown:?}");
}
