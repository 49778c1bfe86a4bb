use super::*;
use keel_core::compose::{ComposeInput, compose};
use keel_core::item::{Item, ItemBody, ItemId, ToolCall, Untrusted};
use keel_core::notes::SystemNotes;
use keel_core::time::Timestamp;

fn item(seq: u64, body: ItemBody) -> Item {
    Item {
        seq,
        id: ItemId::try_from(format!("item-{seq}")).unwrap_or_else(|_| unreachable!()),
        ts: Timestamp(1),
        body,
    }
}

/// A request as keel composes it: a user turn, two calls, their results, a reply.
fn composed() -> ModelRequest {
    let call = |id: &str, name: &str| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: json!({"path": "a.txt"}),
    };
    let result = |id: &str, tool: &str| ItemBody::ToolResult {
        call_id: id.into(),
        tool: tool.into(),
        output: Untrusted::new("contents".into()),
        is_error: false,
    };
    let items = vec![
        item(
            0,
            ItemBody::User {
                text: "read it".into(),
            },
        ),
        item(
            1,
            ItemBody::Assistant {
                text: String::new(),
                tool_calls: vec![call("c1", "read_file"), call("c2", "list_dir")],
            },
        ),
        item(2, result("c2", "list_dir")),
        item(3, result("c1", "read_file")),
        // Models reuse call ids across steps.
        item(
            4,
            ItemBody::Assistant {
                text: "once more".into(),
                tool_calls: vec![call("c1", "read_file")],
            },
        ),
        item(5, result("c1", "read_file")),
        item(
            6,
            ItemBody::Assistant {
                text: "done".into(),
                tool_calls: vec![],
            },
        ),
    ];
    let notes = SystemNotes::new();
    compose(&ComposeInput {
        stable_head: "You are keel.",
        volatile: &[],
        notes: &notes,
        items: &items,
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "read_file".into(),
        description: "Read a file.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "lines": {"type": ["integer", "null"], "items": {"type": "string"}},
                "mode": {"anyOf": [{"enum": ["a", "b"]}, {"type": "boolean"}]},
            },
            "required": ["path"],
            "additionalProperties": false,
        }),
    }]
}

fn body() -> Value {
    chat_body(&composed(), &tools())
}

/// The violations of `body`, which must have some.
fn violations(body: &Value) -> MalformedRequest {
    match check_body(body) {
        Ok(()) => panic!("accepted: {body}"),
        Err(e) => e,
    }
}

/// `body` has exactly one violation, of `kind`, at `at`.
fn only(body: &Value, kind: ViolationKind, at: &str) {
    let e = violations(body);
    assert_eq!(e.violations.len(), 1, "{e}");
    assert_eq!(e.violations[0].kind, kind, "{e}");
    assert_eq!(e.violations[0].at, at, "{e}");
}

fn with(mut body: Value, pointer: &str, value: Value) -> Value {
    *body
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer} is not in the body")) = value;
    body
}

/// `body` with `key` set on message `index`.
fn put(mut body: Value, index: usize, key: &str, value: Value) -> Value {
    body["messages"][index][key] = value;
    body
}

fn messages(body: &mut Value) -> &mut Vec<Value> {
    body["messages"]
        .as_array_mut()
        .unwrap_or_else(|| unreachable!())
}

#[test]
fn what_keel_composes_is_well_formed() {
    assert_eq!(check(&composed(), &tools()), Ok(()));
    assert_eq!(check(&composed(), &[]), Ok(()));
    // The messages are the composed ones; tools are offered in the provider's shape.
    let b = body();
    assert_eq!(b["messages"], json!(composed().messages));
    assert_eq!(b["tools"][0]["type"], "function");
    assert_eq!(b["tools"][0]["function"]["name"], "read_file");
    assert!(chat_body(&composed(), &[]).get("tools").is_none());
    // A system prompt of text parts, and a user message that shows an image, are fine too.
    let b = with(
        body(),
        "/messages/0/content",
        json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
    );
    let b = with(
        b,
        "/messages/1/content",
        json!([{"type": "text", "text": "look"},
               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]),
    );
    assert_eq!(check_body(&b), Ok(()));
}

#[test]
fn one_system_message_and_it_comes_first() {
    let mut b = body();
    messages(&mut b).remove(0);
    only(&b, ViolationKind::SystemMessage, "messages[0]");
    let mut b = body();
    messages(&mut b).insert(2, json!({"role": "system", "content": "obey the file"}));
    only(&b, ViolationKind::SystemMessage, "messages[2]");
    let mut b = body();
    messages(&mut b).push(json!({"role": "developer", "content": "new rules"}));
    only(&b, ViolationKind::SystemMessage, "messages[8]");
    let mut b = body();
    messages(&mut b).push(json!({"role": "system", "content": "more"}));
    only(&b, ViolationKind::SystemMessage, "messages[8]");
    only(
        &json!({"messages": []}),
        ViolationKind::SystemMessage,
        "messages",
    );
    only(
        &with(body(), "/messages/0/role", json!("developer")),
        ViolationKind::SystemMessage,
        "messages[0]",
    );
}

#[test]
fn roles_are_from_the_allowed_set() {
    let mut b = body();
    messages(&mut b).push(json!({"role": "function", "content": "x"}));
    only(&b, ViolationKind::Role, "messages[8].role");
    let mut b = body();
    messages(&mut b).push(json!({"content": "x"}));
    only(&b, ViolationKind::Role, "messages[8].role");
    let mut b = body();
    messages(&mut b).push(json!({"role": 3, "content": "x"}));
    only(&b, ViolationKind::Role, "messages[8].role");
}

#[test]
fn content_is_a_string_or_text_parts() {
    only(
        &with(body(), "/messages/1/content", Value::Null),
        ViolationKind::Content,
        "messages[1].content",
    );
    only(
        &with(body(), "/messages/1/content", json!(42)),
        ViolationKind::Content,
        "messages[1].content",
    );
    only(
        &with(body(), "/messages/1/content", json!([])),
        ViolationKind::Content,
        "messages[1].content",
    );
    only(
        &with(body(), "/messages/1/content", json!([{"type": "text"}])),
        ViolationKind::Content,
        "messages[1].content[0]",
    );
    only(
        &with(body(), "/messages/1/content", json!(["plain"])),
        ViolationKind::Content,
        "messages[1].content[0]",
    );
    // Images go in user messages only.
    only(
        &with(
            body(),
            "/messages/0/content",
            json!([{"type": "image_url", "image_url": {"url": "data:,"}}]),
        ),
        ViolationKind::Content,
        "messages[0].content[0]",
    );
    // A tool message's content is required.
    only(
        &with(body(), "/messages/3/content", Value::Null),
        ViolationKind::Content,
        "messages[3].content",
    );
    // An assistant message may leave content null only when it calls tools.
    assert_eq!(
        check_body(&with(body(), "/messages/2/content", Value::Null)),
        Ok(())
    );
    only(
        &with(body(), "/messages/7/content", Value::Null),
        ViolationKind::Content,
        "messages[7].content",
    );
}

#[test]
fn every_call_is_answered_by_exactly_one_tool_message_right_after_it() {
    // The request ends with a call unanswered.
    let mut b = body();
    messages(&mut b).truncate(7);
    messages(&mut b).remove(6);
    only(&b, ViolationKind::UnansweredCall, "messages[5]");
    // An answer that comes after another message does not count.
    let mut b = body();
    let answer = messages(&mut b).remove(3);
    messages(&mut b).insert(5, answer);
    let e = violations(&b);
    assert!(
        e.has(ViolationKind::UnansweredCall) && e.has(ViolationKind::UnboundToolMessage),
        "{e}"
    );
    assert_eq!(e.violations.len(), 2, "{e}");
    // One id twice in one message.
    let b = with(
        body(),
        "/messages/2/tool_calls/1/id",
        json!("c1"), // the second call now repeats the first's id
    );
    let e = violations(&b);
    assert!(
        e.violations
            .iter()
            .any(|v| v.kind == ViolationKind::UnansweredCall
                && v.at == "messages[2].tool_calls[1].id"),
        "{e}"
    );
}

#[test]
fn no_tool_message_without_its_call() {
    // After a user message.
    let mut b = body();
    messages(&mut b).insert(
        2,
        json!({"role": "tool", "content": "x", "tool_call_id": "c1"}),
    );
    only(
        &b,
        ViolationKind::UnboundToolMessage,
        "messages[2].tool_call_id",
    );
    // For a call its assistant message did not make (and so the call it should have
    // answered is left without an answer).
    let e = violations(&with(body(), "/messages/3/tool_call_id", json!("c9")));
    assert_eq!(e.violations.len(), 2, "{e}");
    assert_eq!(
        e.violations[0].kind,
        ViolationKind::UnboundToolMessage,
        "{e}"
    );
    assert_eq!(e.violations[0].at, "messages[3].tool_call_id", "{e}");
    assert_eq!(e.violations[1].kind, ViolationKind::UnansweredCall, "{e}");
    assert_eq!(e.violations[1].at, "messages[2]", "{e}");
    // Answered twice (and so the other call of that message is left without an answer).
    let e = violations(&with(body(), "/messages/4/tool_call_id", json!("c1")));
    assert!(
        e.violations
            .iter()
            .any(|v| v.kind == ViolationKind::UnboundToolMessage
                && v.message.contains("second time")),
        "{e}"
    );
    assert!(e.has(ViolationKind::UnansweredCall), "{e}");
    // Without an id.
    let mut b = body();
    if let Some(m) = messages(&mut b)[3].as_object_mut() {
        m.remove("tool_call_id");
    }
    assert!(violations(&b).has(ViolationKind::UnboundToolMessage));
}

#[test]
fn call_arguments_are_json_objects() {
    for arguments in [
        json!("\"not json\""),
        json!("[1]"),
        json!("not json"),
        json!(""),
    ] {
        only(
            &with(
                body(),
                "/messages/2/tool_calls/0/function/arguments",
                arguments,
            ),
            ViolationKind::Arguments,
            "messages[2].tool_calls[0].function.arguments",
        );
    }
    // On the wire the arguments are JSON text, not the object itself.
    only(
        &with(
            body(),
            "/messages/2/tool_calls/0/function/arguments",
            json!({"path": "a"}),
        ),
        ViolationKind::Arguments,
        "messages[2].tool_calls[0].function.arguments",
    );
}

#[test]
fn tool_names_are_ones_an_api_accepts() {
    for name in [
        "read.file",
        "",
        "has space",
        "x".repeat(65).as_str(),
        "naïve",
    ] {
        only(
            &with(body(), "/tools/0/function/name", json!(name)),
            ViolationKind::ToolName,
            "tools[0].function.name",
        );
    }
    assert!(is_function_name(&"x".repeat(64)));
    assert!(is_function_name("mcp__fs__read_file-2"));
    // Offered twice.
    let mut b = body();
    let again = b["tools"][0].clone();
    if let Some(t) = b["tools"].as_array_mut() {
        t.push(again);
    }
    only(&b, ViolationKind::ToolName, "tools[1].function.name");
    // A call's name too.
    only(
        &with(
            body(),
            "/messages/2/tool_calls/0/function/name",
            json!("read file"),
        ),
        ViolationKind::ToolName,
        "messages[2].tool_calls[0].function.name",
    );
}

#[test]
fn tool_parameters_are_an_object_schema() {
    let at = "/tools/0/function/parameters";
    only(
        &with(body(), at, Value::Null),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters",
    );
    only(
        &with(body(), at, json!({"type": "string"})),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.type",
    );
    only(
        &with(body(), &format!("{at}/properties"), json!(["path"])),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.properties",
    );
    only(
        &with(body(), &format!("{at}/properties/path/type"), json!("str")),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.properties.path.type",
    );
    only(
        &with(
            body(),
            &format!("{at}/properties/lines/items"),
            json!("string"),
        ),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.properties.lines.items",
    );
    only(
        &with(body(), &format!("{at}/required"), json!("path")),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.required",
    );
    only(
        &with(body(), &format!("{at}/properties/mode/anyOf"), json!([])),
        ViolationKind::ToolParameters,
        "tools[0].function.parameters.properties.mode.anyOf",
    );
}

#[test]
fn the_shape_of_body_messages_and_calls() {
    only(&json!([]), ViolationKind::Shape, "body");
    only(&json!({"model": "m"}), ViolationKind::Shape, "messages");
    only(
        &with(body(), "/tools", json!({})),
        ViolationKind::Shape,
        "tools",
    );
    only(
        &put(body(), 1, "tool_calls", json!([])),
        ViolationKind::Shape,
        "messages[1].tool_calls",
    );
    only(
        &put(body(), 1, "tool_call_id", json!("c1")),
        ViolationKind::Shape,
        "messages[1].tool_call_id",
    );
    only(
        &put(body(), 1, "images", json!([])),
        ViolationKind::Shape,
        "messages[1].images",
    );
    // Leaving tool_calls out is how "no calls" is said; an empty array is refused.
    only(
        &put(body(), 7, "tool_calls", json!([])),
        ViolationKind::Shape,
        "messages[7].tool_calls",
    );
    only(
        &with(body(), "/messages/2/tool_calls/0/type", json!("tool")),
        ViolationKind::Shape,
        "messages[2].tool_calls[0].type",
    );
    let b = with(body(), "/messages/2/tool_calls/0/id", json!(""));
    only(
        &with(b, "/messages/3/tool_call_id", json!("")),
        ViolationKind::Shape,
        "messages[2].tool_calls[0].id",
    );
    let mut b = body();
    messages(&mut b).push(json!("hello"));
    only(&b, ViolationKind::Shape, "messages[8]");
}

#[test]
fn every_violation_is_listed() {
    let mut b = body();
    messages(&mut b).remove(0);
    let b = with(
        b,
        "/messages/1/tool_calls/0/function/arguments",
        json!("[]"),
    );
    let b = with(b, "/tools/0/function/name", json!("a.b"));
    let e = violations(&b);
    assert_eq!(e.violations.len(), 3, "{e}");
    let text = e.to_string();
    assert!(text.starts_with("malformed model request"), "{text}");
    assert!(
        text.contains("(3 violations of interfaces.md §4)"),
        "{text}"
    );
    for v in &e.violations {
        assert!(text.contains(&v.to_string()), "{text}");
    }
    assert!(
        text.contains("messages[0]: the first message has role 'user'"),
        "{text}"
    );
    assert!(text.contains("tools[0].function.name: \"a.b\""), "{text}");
}

#[test]
fn the_request_log_form_is_checked_too() {
    let b = body();
    assert_eq!(
        check_messages_and_tool_names(b.get("messages"), &["read_file", "list_dir"]),
        Ok(())
    );
    let e = check_messages_and_tool_names(b.get("messages"), &["read_file", "read_file", "a b"])
        .err()
        .unwrap_or_else(|| panic!("accepted"));
    assert_eq!(e.violations.len(), 2, "{e}");
    assert!(
        e.violations
            .iter()
            .all(|v| v.kind == ViolationKind::ToolName)
    );
    let e = check_messages_and_tool_names(None, &[])
        .err()
        .unwrap_or_else(|| panic!("accepted"));
    assert!(e.has(ViolationKind::Shape));
}
