//! MCP end to end: a real MCP server from npm (`@modelcontextprotocol/server-filesystem`,
//! installed by `./scripts/test`, which sets KEEL_TEST_MCP_FILESYSTEM) configured in the user
//! tier, its tools offered as `mcp__fs__*` and every call through keel's gate.

use crate::common;

use common::{Env, call};
use serde_json::{Value, json};

fn filesystem_server() -> String {
    std::env::var("KEEL_TEST_MCP_FILESYSTEM").unwrap_or_else(|_| {
        panic!(
            "KEEL_TEST_MCP_FILESYSTEM is not set: run ./scripts/test, which installs the npm MCP \
             server and sets it"
        )
    })
}

#[test]
fn a_real_mcp_servers_tools_are_offered_and_every_call_is_gated() {
    let env = Env::new();
    let work = env.work().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let outside = env.dir.path().join("outside.txt");
    env.user_config(&format!(
        "[mcp_servers.fs]\ncommand = {:?}\nargs = [{:?}]\nstart_timeout_secs = 60\n\
             call_timeout_secs = 60\n",
        filesystem_server(),
        work.display().to_string()
    ));
    let hello = work.join("hello.txt").display().to_string();
    let model = env.script(
        "s.jsonl",
        &[
            call(
                "mcp__fs__write_file",
                json!({"path": hello, "content": "hi from mcp"}),
            ),
            call("mcp__fs__read_text_file", json!({"path": hello})),
            call(
                "mcp__fs__write_file",
                json!({"path": outside.display().to_string(), "content": "x"}),
            ),
            json!({"text": "done"}),
        ],
    );
    let log = env.dir.path().join("requests.jsonl");
    let (code, out, err) = env.keel_env(
        &[
            "run",
            "write hello.txt",
            "--model",
            &model,
            "--approval",
            "deny",
        ],
        &[("KEEL_SCRIPT_LOG", &log)],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done"), "{out}");
    // The server really ran the allowed call; the gate stopped the one outside the workspace.
    assert_eq!(
        std::fs::read_to_string(work.join("hello.txt")).unwrap_or_default(),
        "hi from mcp"
    );
    assert!(
        !outside.exists(),
        "a call outside the workspace must not run"
    );
    // The tools were offered under keel's MCP names.
    let first: Value = keel_model::testing::request_log(&log)
        .into_iter()
        .next()
        .unwrap_or_default();
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for tool in [
        "mcp__fs__write_file",
        "mcp__fs__read_text_file",
        "mcp__fs__list_directory",
        "read_file",
    ] {
        assert!(offered.contains(&tool), "{tool} not in {offered:?}");
    }
    let run = env.only_run();
    let shown = env.show(&run);
    let items = shown["items"].as_array().cloned().unwrap_or_default();
    let outputs: Vec<String> = items
        .iter()
        .filter(|i| i["kind"] == "tool_result")
        .map(|i| i["output"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(outputs.len(), 3, "{items:?}");
    // read_text_file declares an outputSchema: its result is the structuredContent.
    assert_eq!(
        serde_json::from_str::<Value>(&outputs[1]).ok(),
        Some(json!({"content": "hi from mcp"})),
        "the read went through the server: {}",
        outputs[1]
    );
    assert!(
        outputs[2].starts_with("Tool execution denied by safety checker \"allowed-path\""),
        "{}",
        outputs[2]
    );
    // Two calls reached the server; the denied one was never dispatched.
    let ledger = shown["ledger"].as_array().map_or(0, Vec::len);
    assert_eq!(ledger, 2, "{shown}");
}

#[test]
fn a_server_that_does_not_start_is_named_and_the_run_goes_on() {
    let env = Env::new();
    env.user_config("[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n\n[mcp_servers.\"a__b\"]\ncommand = \"/bin/true\"\n",
    );
    let model = env.script("s.jsonl", &[json!({"text": "still here"})]);
    let (code, out, err) = env.keel(&["run", "hello", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("still here"), "{out}");
    assert!(
        err.contains("MCP server \"broken\" did not start")
            && err.contains("/nonexistent/mcp-server")
            && err.contains("its tools are not offered in this run"),
        "{err}"
    );
    assert!(
        err.contains("[mcp_servers.a__b] is not started") && err.contains("rename the table"),
        "{err}"
    );
}
