//! The real worker with the real embedded model (SmolLM2-135M-Instruct, Q4_1), through keel's
//! local provider: the grammar holds (every answer is a reply or a call of an offered tool with
//! object arguments), greedy sampling repeats itself, and a prompt longer than the context
//! window is a context overflow, not a crash. `./scripts/test` fetches the model and sets
//! KEEL_TEST_MODEL.

use std::path::PathBuf;

use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_model::local::{LocalModel, LocalSettings};
use keel_model::{Model, ModelError, ModelReply, ToolSpec};
use serde_json::json;

fn model_file() -> PathBuf {
    let path = std::env::var_os("KEEL_TEST_MODEL").unwrap_or_else(|| {
        panic!(
            "KEEL_TEST_MODEL is not set: these tests run the real embedded model. Run \
             ./scripts/test (it fetches the model), or `keel model fetch` and set \
             KEEL_TEST_MODEL to the path it prints"
        )
    });
    PathBuf::from(path)
}

fn local(context_window: u32) -> LocalModel {
    let mut s = LocalSettings::new(
        PathBuf::from(env!("CARGO_BIN_EXE_keel-llm-worker")),
        model_file(),
    );
    s.context_window = context_window;
    s.max_tokens = 96;
    // Tests run side by side on two cores: llama.cpp's busy-waiting threads must not
    // oversubscribe them.
    s.threads = Some(1);
    LocalModel::new("local", s).unwrap_or_else(|e| panic!("{e}"))
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "list_dir".into(),
            description: "List the entries of a directory.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        },
        ToolSpec {
            name: "read_file".into(),
            description: "Read a text file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
    ]
}

fn request(task: &str) -> ModelRequest {
    ModelRequest {
        messages: vec![
            ChatMessage::text(
                Role::System,
                "You are an agent. Answer with a tool call or a reply.",
            ),
            ChatMessage::text(Role::User, task),
        ],
    }
}

fn ask(m: &mut LocalModel, task: &str) -> ModelReply {
    let mut streamed = String::new();
    let reply = m
        .complete(&request(task), &tools(), &mut |t| streamed.push_str(t))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(streamed, reply.text);
    reply
}

#[test]
fn every_answer_is_a_reply_or_a_well_formed_call_of_an_offered_tool() {
    let mut m = local(2048);
    let offered: Vec<String> = tools().into_iter().map(|t| t.name).collect();
    for task in [
        "List the files in this folder.",
        "Read the file notes.txt.",
        "Say hello.",
    ] {
        let reply = ask(&mut m, task);
        assert!(
            !reply.text.is_empty() || !reply.tool_calls.is_empty(),
            "{task}: an empty answer"
        );
        for call in &reply.tool_calls {
            assert!(offered.contains(&call.name), "{task}: {}", call.name);
            assert!(call.arguments.is_object(), "{task}: {}", call.arguments);
            if call.name == "read_file" {
                assert!(call.arguments["path"].is_string(), "{}", call.arguments);
            }
        }
    }
    // Greedy sampling: the same request, the same answer.
    let a = ask(&mut m, "List the files in this folder.");
    let b = ask(&mut m, "List the files in this folder.");
    assert_eq!(a, b);
    assert_eq!(m.context_window(), Some(2048));
}

#[test]
fn a_prompt_longer_than_the_window_is_a_context_overflow() {
    let mut m = local(256);
    let long = "word ".repeat(2_000);
    let result = m.complete(&request(&long), &tools(), &mut |_| {});
    assert!(
        matches!(result, Err(ModelError::ContextOverflow(ref e)) if e.contains("256")),
        "{result:?}"
    );
    // The worker is still there for the next call.
    let reply = ask(&mut m, "Say hello.");
    assert!(!reply.text.is_empty() || !reply.tool_calls.is_empty());
}

/// The worker's own lines, read straight off its stdout: the exact bytes keel-model's client
/// has always read.
mod wire {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    const WORKER: &str = env!("CARGO_BIN_EXE_keel-llm-worker");

    #[test]
    fn a_bad_command_line_is_one_bad_request_line() {
        let out = Command::new(WORKER)
            .arg("--bogus")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "{\"error\":\"unknown argument \\\"--bogus\\\"\",\"kind\":\"bad_request\"}\n"
        );
    }

    #[test]
    fn ready_answer_and_failure_lines_keep_their_fields_and_order() {
        let model = super::model_file();
        let mut child = Command::new(WORKER)
            .arg("--model")
            .arg(&model)
            .args(["--ctx", "512", "--threads", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
        let mut lines = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")))
            .lines()
            .map(|l| l.unwrap_or_else(|e| panic!("{e}")));
        let mut next = || lines.next().unwrap_or_else(|| panic!("the worker stopped"));
        assert_eq!(
            next(),
            format!(
                "{{\"ready\":true,\"n_ctx\":512,\"model\":{}}}",
                serde_json::to_string(&model.display().to_string()).unwrap_or_default()
            )
        );
        let mut send = |line: &str| {
            writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("{e}"));
            stdin.flush().unwrap_or_else(|e| panic!("{e}"));
        };
        send("not json");
        assert_eq!(
            next(),
            r#"{"error":"not a request: expected ident at line 1 column 2","kind":"bad_request"}"#
        );
        // A grammar that allows one answer: the answer is that, and then the model must stop.
        let request = serde_json::json!({
            "messages": [{"role": "user", "content": "Say ok."}],
            "grammar": "root ::= \"ok\"",
            "max_tokens": 8,
        });
        send(&request.to_string());
        let line = next();
        let answer: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}"));
        // Compact, and in this order.
        assert_eq!(answer.to_string(), line);
        let keys: Vec<&str> = answer
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "text",
                "finished",
                "prompt_tokens",
                "completion_tokens",
                "reused_tokens"
            ],
            "{answer}"
        );
        assert_eq!(answer["text"], "ok", "{answer}");
        assert_eq!(answer["finished"], true, "{answer}");
        assert!(
            answer["prompt_tokens"].as_u64().is_some_and(|n| n > 0),
            "{answer}"
        );
        let mut long = request;
        long["max_tokens"] = serde_json::json!(100_000);
        send(&long.to_string());
        let overflow = next();
        assert!(
            overflow.starts_with("{\"error\":\"the prompt is ")
                && overflow.ends_with(
                    " tokens and the answer may take 100000, but the context window is 512 \
                     tokens\",\"kind\":\"context_overflow\"}"
                ),
            "{overflow}"
        );
        drop(stdin);
        let _ = child.wait();
    }
}
