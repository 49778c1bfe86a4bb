use super::*;
use keel_core::ToolCall;
use keel_core::item::{ItemId, Untrusted};
use keel_core::time::Timestamp;

#[test]
fn t1_checker_output() {
    let ok = |s: &str| parse_result(s.as_bytes());
    assert_eq!(
        ok("{\"decision\":\"allow\"}"),
        Ok(SafetyCheckResult::allow())
    );
    assert_eq!(
        ok("{\"decision\":\"allow\"}\n"),
        Ok(SafetyCheckResult::allow())
    );
    assert_eq!(
        ok("{\"decision\":\"allow\",\"error\":\"llm down\"}"),
        Ok(SafetyCheckResult::allow())
    );
    assert_eq!(
        ok("{\"decision\":\"deny\",\"reason\":\"no\"}"),
        Ok(SafetyCheckResult::deny("no"))
    );
    assert_eq!(
        ok("{\"decision\":\"ask_user\",\"reason\":\"confirm\"}"),
        Ok(SafetyCheckResult::ask("confirm"))
    );
    for bad in [
        "{\"decision\":\"deny\"}",
        "{\"decision\":\"deny\",\"reason\":\"\"}",
        "{\"decision\":\"ask_user\",\"reason\":\"  \"}",
        "{\"decision\":\"ask_user\",\"reason\":\"\u{FEFF}\"}",
        "{\"decision\":\"maybe\"}",
        "starting\n{\"decision\":\"allow\"}",
        "{\"decision\":\"allow\"}{\"decision\":\"allow\"}",
        "",
        "[]",
        "{\"decision\":\"deny\",\"reason\":5}",
    ] {
        assert!(ok(bad).is_err(), "{bad:?}");
    }
    assert!(parse_result(b"\xff").is_err());
}

#[test]
fn n1_input_key_order_and_no_trailing_newline() {
    let input = SafetyCheckInput {
        protocol_version: PROTOCOL_VERSION.into(),
        tool_call: FunctionCall {
            name: "write_file".into(),
            args: serde_json::json!({"path": "a"}),
            id: Some("c1".into()),
        },
        context: CheckContext {
            environment: Some(Environment {
                cwd: "/w".into(),
                workspaces: vec!["/w".into()],
            }),
            history: Some(History { turns: vec![] }),
            keel_tool_results: Vec::new(),
        },
        config: Some(serde_json::json!({"x": 1})),
    };
    assert_eq!(
        input.to_wire(),
        r#"{"protocolVersion":"1.0.0","toolCall":{"name":"write_file","args":{"path":"a"},"id":"c1"},"context":{"environment":{"cwd":"/w","workspaces":["/w"]},"history":{"turns":[]}},"config":{"x":1}}"#
    );
    let only_env = input.restricted(Some(&["environment".to_string()]), None);
    assert_eq!(
        only_env.to_wire(),
        r#"{"protocolVersion":"1.0.0","toolCall":{"name":"write_file","args":{"path":"a"},"id":"c1"},"context":{"environment":{"cwd":"/w","workspaces":["/w"]}}}"#
    );
}

fn item(seq: u64, body: ItemBody) -> Item {
    Item {
        seq,
        id: ItemId::try_from(format!("i{seq}")).unwrap_or_else(|_| unreachable!()),
        ts: Timestamp(0),
        body,
    }
}

fn user(seq: u64, t: &str) -> Item {
    item(seq, ItemBody::User { text: t.into() })
}

fn model(seq: u64, t: &str, calls: Vec<ToolCall>) -> Item {
    item(
        seq,
        ItemBody::Assistant {
            text: t.into(),
            tool_calls: calls,
        },
    )
}

fn wire(turns: &[ConversationTurn]) -> String {
    serde_json::to_string(turns).unwrap_or_default()
}

#[test]
fn t6_history() {
    let f = ToolCall {
        id: "c1".into(),
        name: "f".into(),
        arguments: serde_json::json!({}),
    };
    assert_eq!(
        wire(&history_turns(
            &[user(0, "a"), model(1, "b", vec![f])],
            None
        )),
        r#"[{"user":{"text":"a"},"model":{"text":"b","toolCalls":[{"name":"f","args":{},"id":"c1"}]}}]"#
    );
    assert_eq!(
        wire(&history_turns(
            &[user(0, "a"), user(1, "b"), model(2, "c", vec![])],
            None
        )),
        r#"[{"user":{"text":"a"},"model":{}},{"user":{"text":"b"},"model":{"text":"c","toolCalls":[]}}]"#
    );
    assert_eq!(
        wire(&history_turns(&[model(0, "x", vec![])], None)),
        r#"[{"user":{"text":""},"model":{"text":"x","toolCalls":[]}}]"#
    );
    assert_eq!(
        wire(&history_turns(&[], Some("q"))),
        r#"[{"user":{"text":"q"},"model":{}}]"#
    );
}

#[test]
fn n10_tool_results_never_become_user_text() {
    let items = vec![
        user(0, "a"),
        item(
            1,
            ItemBody::ToolResult {
                call_id: "c".into(),
                tool: "t".into(),
                output: Untrusted::new("IGNORE ALL".into()),
                is_error: false,
            },
        ),
    ];
    let json = wire(&history_turns(&items, None));
    assert!(!json.contains("IGNORE ALL"), "{json}");
    assert_eq!(json, r#"[{"user":{"text":"a"},"model":{}}]"#);
}
