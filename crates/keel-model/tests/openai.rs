//! The OpenAI-compatible provider against a real HTTP server on loopback: the exact request
//! body, streamed text and parallel tool calls, a whole JSON completion, retries, and every
//! failure with what it tells the user.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use keel_core::compose::{ChatMessage, ModelRequest, Role, WireFunction, WireToolCall};
use keel_model::openai::{HttpSettings, OpenAiModel};
use keel_model::testing::{Server, http, seen, serve, sse};
use keel_model::{Model, ModelError, ModelReply, Refusal, ToolSpec, Usage};
use serde_json::{Value, json};

fn model(server: &Server) -> OpenAiModel {
    let mut s = HttpSettings::new(&server.url, "qwen2.5-7b");
    s.backoff = Duration::from_millis(1);
    s.max_retries = 2;
    s.api_key = Some("sk-test".into());
    s.headers = vec![("X-Org".into(), "keel".into())];
    s.read_timeout = Duration::from_secs(5);
    OpenAiModel::new(s).unwrap_or_else(|e| panic!("{e}"))
}

fn request() -> ModelRequest {
    ModelRequest {
        messages: vec![
            ChatMessage::text(Role::System, "You are keel."),
            ChatMessage::text(Role::User, "List the files."),
            ChatMessage {
                role: Role::Assistant,
                content: None,
                tool_calls: vec![WireToolCall {
                    id: "call_1".into(),
                    kind: "function",
                    function: WireFunction {
                        name: "list_dir".into(),
                        arguments: "{}".into(),
                    },
                }],
                tool_call_id: None,
            },
            ChatMessage {
                role: Role::Tool,
                content: Some("a.txt\nb.txt".into()),
                tool_calls: vec![],
                tool_call_id: Some("call_1".into()),
            },
        ],
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "list_dir".into(),
            description: "List a directory.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        },
        ToolSpec {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
    ]
}

fn complete(m: &mut OpenAiModel) -> (Result<ModelReply, ModelError>, String) {
    let mut streamed = String::new();
    let reply = m.complete(&request(), &tools(), &mut |t| streamed.push_str(t));
    (reply, streamed)
}

#[test]
fn the_request_is_exactly_the_composed_messages_and_tools() {
    let server = serve(vec![sse(&[
        json!({"choices": [{"delta": {"content": "ok"}, "finish_reason": "stop"}]}),
    ])]);
    let (reply, _) = complete(&mut model(&server));
    assert_eq!(reply.map(|r| r.text).ok().as_deref(), Some("ok"));
    let seen = seen(&server);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    let header = |k: &str| {
        seen[0]
            .headers
            .iter()
            .find(|(h, _)| h == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(header("authorization"), "Bearer sk-test");
    assert_eq!(header("x-org"), "keel");
    assert_eq!(header("content-type"), "application/json");
    insta::assert_json_snapshot!("openai_request_body", seen[0].body);
}

#[test]
fn streamed_text_and_parallel_tool_calls_are_assembled() {
    let server = serve(vec![sse(&[
        json!({"choices": [{"delta": {"role": "assistant", "content": "Let me "}}]}),
        json!({"choices": [{"delta": {"content": "look."}}]}),
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": ""}},
            {"index": 1, "id": "call_b", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
        ]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\": "}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"a.txt\"}"}}]}}]}),
        json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 9}}),
    ])]);
    let (reply, streamed) = complete(&mut model(&server));
    let reply = reply.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(streamed, "Let me look.");
    assert_eq!(reply.text, "Let me look.");
    let calls: Vec<(&str, &str, Value)> = reply
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        vec![
            ("call_a", "read_file", json!({"path": "a.txt"})),
            ("call_b", "list_dir", json!({}))
        ]
    );
    // The usage a server reports in its last chunk.
    assert_eq!(
        reply.usage,
        Some(Usage {
            prompt_tokens: 9,
            completion_tokens: 0
        })
    );
}

#[test]
fn a_whole_json_completion_is_read_too() {
    // Ollama-style: stream ignored, arguments as an object.
    let body = json!({"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}}
    ]}}]});
    let server = serve(vec![http("200 OK", "", &body.to_string())]);
    let reply = complete(&mut model(&server))
        .0
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].id, "call_1");
    assert_eq!(reply.tool_calls[0].arguments, json!({"path": "a.txt"}));
    assert_eq!(reply.usage, None, "no usage reported, none invented");
    let body = json!({"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22}});
    let server = serve(vec![http("200 OK", "", &body.to_string())]);
    let reply = complete(&mut model(&server))
        .0
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        reply.usage,
        Some(Usage {
            prompt_tokens: 20,
            completion_tokens: 2
        })
    );
}

/// A server that accepts the connection and never answers: a Ctrl-C must not wait for the
/// read timeout (found by an outside tester: keel hung after "stopping after the current step").
#[test]
fn a_cancel_stops_a_call_whose_server_has_not_answered_yet() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let url = format!(
        "http://{}/v1",
        listener.local_addr().unwrap_or_else(|e| panic!("{e}"))
    );
    // Accepts, reads nothing, says nothing, until the test ends.
    let held = std::thread::spawn(move || listener.accept().map(|(stream, _)| stream));
    let mut s = HttpSettings::new(&url, "m");
    s.max_retries = 0;
    // Far longer than the test may take: only the cancel can end the call in time.
    s.read_timeout = Duration::from_secs(600);
    let mut m = OpenAiModel::new(s).unwrap_or_else(|e| panic!("{e}"));
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    m.watch_cancel(flag.clone());
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(m.complete(&request(), &tools(), &mut |_| {}));
    });
    let reply = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("the call did not end within 60 s of a cancel"));
    assert!(matches!(reply, Err(ModelError::Cancelled)), "{reply:?}");
    let _ = setter.join();
    drop(held);
}

#[test]
fn a_cancel_stops_a_streaming_answer_at_its_next_piece() {
    let server = serve(vec![sse(&[
        json!({"choices": [{"delta": {"content": "one "}}]}),
        json!({"choices": [{"delta": {"content": "two "}}]}),
        json!({"choices": [{"delta": {"content": "three"}, "finish_reason": "stop"}]}),
    ])]);
    let mut m = model(&server);
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    m.watch_cancel(flag.clone());
    let mut streamed = String::new();
    let reply = m.complete(&request(), &tools(), &mut |t| {
        streamed.push_str(t);
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    assert!(matches!(reply, Err(ModelError::Cancelled)), "{reply:?}");
    assert_eq!(streamed, "one ", "nothing after the cancel is read");
    // Set before the call: nothing is sent.
    let server = serve(vec![]);
    let mut m = model(&server);
    m.watch_cancel(Arc::new(std::sync::atomic::AtomicBool::new(true)));
    assert!(matches!(complete(&mut m).0, Err(ModelError::Cancelled)));
    assert!(seen(&server).is_empty());
}

#[test]
fn busy_servers_are_retried_with_backoff() {
    let server = serve(vec![
        http(
            "503 Service Unavailable",
            "",
            r#"{"error":{"message":"loading model"}}"#,
        ),
        http(
            "429 Too Many Requests",
            "Retry-After: 0\r\n",
            r#"{"error":"slow down"}"#,
        ),
        sse(&[json!({"choices": [{"delta": {"content": "done"}, "finish_reason": "stop"}]})]),
    ]);
    let reply = complete(&mut model(&server))
        .0
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.text, "done");
    assert_eq!(seen(&server).len(), 3);
    // Out of retries: the last status and the server's words.
    let server = serve(vec![
        http("502 Bad Gateway", "", "upstream"),
        http("502 Bad Gateway", "", "upstream"),
        http("502 Bad Gateway", "", "upstream"),
    ]);
    let err = complete(&mut model(&server))
        .0
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("HTTP 502: upstream") && err.contains("after 3 attempts"),
        "{err}"
    );
}

#[test]
fn a_stream_that_breaks_after_it_began_is_not_retried() {
    let mut partial = sse(&[]);
    partial.truncate(partial.len() - "data: [DONE]\n\n".len());
    partial.extend_from_slice(
        format!(
            "data: {}\n\n",
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "shell", "arguments": "{\"command\": \"rm"}}]}}]})
        )
        .as_bytes(),
    );
    let server = serve(vec![partial, sse(&[])]);
    let err = complete(&mut model(&server))
        .0
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("broke off") && err.contains("not retried"),
        "{err}"
    );
    assert_eq!(seen(&server).len(), 1, "no second request");
}

#[test]
fn failures_say_what_to_do() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (http("401 Unauthorized", "", r#"{"error":{"message":"Incorrect API key"}}"#), "refused the API key"),
        (http("404 Not Found", "", r#"{"error":{"message":"model 'qwen2.5-7b' not found"}}"#), "does not know the model"),
        (http("400 Bad Request", "", r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#), "longer than the model's context window"),
        (http("200 OK", "", "<html>hello</html>"), "not a Chat Completions reply"),
        (sse(&[json!({"error": {"message": "the model crashed"}})]), "the model crashed"),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: {not json\n\n".to_vec(),
            "not JSON",
        ),
    ];
    for (response, says) in cases {
        let server = serve(vec![response]);
        let err = complete(&mut model(&server))
            .0
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(says), "{says:?} not in {err:?}");
        assert_eq!(seen(&server).len(), 1, "{says}: not retried");
    }
    let server = serve(vec![http(
        "400 Bad Request",
        "",
        r#"{"error":{"message":"prompt is too long"}}"#,
    )]);
    assert!(matches!(
        complete(&mut model(&server)).0,
        Err(ModelError::ContextOverflow(_))
    ));
}

#[test]
fn an_unreachable_server_is_retried_then_named() {
    // Bind and drop: nothing listens on this port any more.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let server = Server {
        url: format!("http://127.0.0.1:{port}/v1"),
        seen: Arc::default(),
    };
    let err = complete(&mut model(&server))
        .0
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("cannot reach") && err.contains("after 3 attempts"),
        "{err}"
    );
}

#[test]
fn a_rejected_tool_message_is_told_apart_by_index_or_by_call_id() {
    // In the request, messages[3] is the tool message of call_1 (index 0 is the system one).
    let rejected = [
        r#"{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[3].role"}}"#,
        r#"{"error":{"message":"Invalid 'messages[3].content': string too long."}}"#,
        r#"{"error":"tool call id call_1 was not found"}"#,
    ];
    for body in rejected {
        let server = serve(vec![http("400 Bad Request", "", body)]);
        match complete(&mut model(&server)).0 {
            Err(ModelError::ToolResultRejected { call_id, message }) => {
                assert_eq!(call_id, "call_1", "{body}");
                assert!(message.contains("HTTP 400"), "{message}");
            }
            other => panic!("{body}: {other:?}"),
        }
        assert_eq!(seen(&server).len(), 1, "never retried");
    }
    // An error about another message, or about none, is not a rejected tool result; nor is a
    // call id that only appears in the request a server echoes back.
    for body in [
        r#"{"error":{"message":"Invalid 'messages[1].content': expected a string."}}"#,
        r#"{"error":{"message":"unsupported value for temperature"}}"#,
        r#"{"detail":[{"msg":"field required","loc":["body","temperature"],"input":{"messages":[{"role":"tool","tool_call_id":"call_1"}]}}]}"#,
    ] {
        let server = serve(vec![http("400 Bad Request", "", body)]);
        assert!(
            matches!(
                complete(&mut model(&server)).0,
                Err(ModelError::Http { status: 400, .. })
            ),
            "{body}"
        );
    }
}

#[test]
fn a_redirect_is_an_http_error_when_redirects_are_off() {
    let server = serve(vec![
        http("302 Found", "Location: /elsewhere/chat/completions\r\n", ""),
        http("200 OK", "", "{}"),
    ]);
    let mut s = HttpSettings::new(&server.url, "m");
    s.follow_redirects = false;
    s.max_retries = 0;
    let mut m = OpenAiModel::new(s).unwrap_or_else(|e| panic!("{e}"));
    let reply = complete(&mut m).0;
    assert!(
        matches!(reply, Err(ModelError::Http { status: 302, .. })),
        "{reply:?}"
    );
    assert_eq!(seen(&server).len(), 1, "the redirect was not followed");
}

#[test]
fn the_server_fails_a_test_that_sent_a_malformed_request() {
    use keel_model::testing::check_seen;
    let answer =
        || sse(&[json!({"choices": [{"delta": {"content": "ok"}, "finish_reason": "stop"}]})]);
    // The provider sends what it is given; the server is the one that checks.
    let server = serve(vec![answer(), answer()]);
    let mut m = model(&server);
    let reply = m.complete(&request(), &tools(), &mut |_| {});
    assert!(reply.is_ok(), "{reply:?}");
    assert_eq!(check_seen(&server), Ok(()));
    let mut bad = request();
    bad.messages.swap(0, 1);
    bad.messages[3].tool_call_id = Some("call_9".into());
    let reply = m.complete(&bad, &tools(), &mut |_| {});
    assert!(reply.is_ok(), "{reply:?}");
    let said = check_seen(&server).err().unwrap_or_default();
    assert!(
        said.starts_with("request 1 to /v1/chat/completions: "),
        "{said}"
    );
    for what in [
        "messages[0]: the first message has role 'user'",
        "messages[1]: role 'system' after index 0",
        "messages[3].tool_call_id",
        "tool call \"call_1\" has no tool message",
    ] {
        assert!(said.contains(what), "{what}: {said}");
    }
    // And the test fails when the server goes, even if it never looked.
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(server)));
    let message = dropped
        .err()
        .and_then(|p| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        message.contains("malformed request") && message.contains("call_9"),
        "{message}"
    );
}

/// A refusal in a stream: `delta.refusal` pieces assemble into the refusal, and none of them
/// is streamed as reply text; what came beside it (text, calls) is kept as it came.
#[test]
fn a_streamed_refusal_is_read_and_not_streamed_as_text() {
    let server = serve(vec![
        sse(&[
            json!({"choices": [{"delta": {"role": "assistant", "content": null, "refusal": ""}}]}),
            json!({"choices": [{"delta": {"refusal": "I can't help "}}]}),
            json!({"choices": [{"delta": {"refusal": "with that."}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}),
        ]),
        // With content and a call beside it: both kept, the refusal still read.
        sse(&[
            json!({"choices": [{"delta": {"content": "Reading it."}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}]}}]}),
            json!({"choices": [{"delta": {"refusal": "No."}, "finish_reason": "stop"}]}),
        ]),
        // The content filter, with no refusal message.
        sse(&[
            json!({"choices": [{"delta": {"content": "Here is how to"}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "content_filter"}]}),
        ]),
        // `refusal` blank or null on every piece, as servers that copy OpenAI's shape send it:
        // no refusal.
        sse(&[
            json!({"choices": [{"delta": {"content": "fine", "refusal": null}}]}),
            json!({"choices": [{"delta": {"refusal": ""}, "finish_reason": "stop"}]}),
        ]),
    ]);
    let mut m = model(&server);
    let (first, streamed) = complete(&mut m);
    let first = first.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        first.refusal,
        Some(Refusal::Message("I can't help with that.".into()))
    );
    assert_eq!((first.text.as_str(), streamed.as_str()), ("", ""));
    assert!(first.tool_calls.is_empty());

    let (second, streamed) = complete(&mut m);
    let second = second.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(second.refusal, Some(Refusal::Message("No.".into())));
    assert_eq!(
        (second.text.as_str(), streamed.as_str()),
        ("Reading it.", "Reading it.")
    );
    assert_eq!(second.tool_calls.len(), 1, "{second:?}");

    let (third, streamed) = complete(&mut m);
    let third = third.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(third.refusal, Some(Refusal::ContentFilter));
    assert_eq!(streamed, "Here is how to");

    let (fourth, _) = complete(&mut m);
    let fourth = fourth.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((fourth.text.as_str(), fourth.refusal), ("fine", None));
}

/// A whole completion's `message.refusal` (with or without content) and `finish_reason:
/// "content_filter"`; a null or blank refusal is none.
#[test]
fn a_whole_completion_s_refusal_is_read() {
    let bodies = [
        json!({"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I won't do that."}, "finish_reason": "stop"}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "Partly: ", "refusal": "the rest I won't."}, "finish_reason": "stop"}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "cut"}, "finish_reason": "content_filter"}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "ok", "refusal": null}, "finish_reason": "stop"}]}),
        json!({"choices": [{"message": {"role": "assistant", "content": "ok", "refusal": " "}, "finish_reason": "stop"}]}),
    ];
    let server = serve(
        bodies
            .iter()
            .map(|b| http("200 OK", "", &b.to_string()))
            .collect(),
    );
    let mut m = model(&server);
    let mut next = || {
        let (reply, streamed) = complete(&mut m);
        let reply = reply.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(streamed, reply.text, "only content is streamed");
        (reply.text, reply.refusal)
    };
    assert_eq!(
        next(),
        (
            String::new(),
            Some(Refusal::Message("I won't do that.".into()))
        )
    );
    assert_eq!(
        next(),
        (
            "Partly: ".into(),
            Some(Refusal::Message("the rest I won't.".into()))
        )
    );
    assert_eq!(next(), ("cut".into(), Some(Refusal::ContentFilter)));
    assert_eq!(next(), ("ok".into(), None));
    assert_eq!(next(), ("ok".into(), None));
}
