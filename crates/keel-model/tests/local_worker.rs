//! The local model's process handling, with stand-in workers (shell scripts speaking the
//! worker's protocol): an abort mid-answer, a hang, a worker that never gets ready, and the
//! restart on the next call. The real llama.cpp worker is tested in keel-llm-worker.

use std::path::Path;
use std::time::Duration;

use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_model::local::{LocalModel, LocalSettings};
use keel_model::{Model, ModelError};
use keel_testkit::write_script;

fn model(dir: &Path, body: &str) -> LocalModel {
    model_with(dir, body, Duration::from_millis(500))
}

fn model_with(dir: &Path, body: &str, request_timeout: Duration) -> LocalModel {
    let gguf = dir.join("m.gguf");
    std::fs::write(&gguf, b"GGUF").unwrap_or_else(|e| panic!("{e}"));
    let mut s = LocalSettings::new(write_script(dir, "worker.sh", body), gguf);
    s.start_timeout = Duration::from_millis(500);
    s.request_timeout = request_timeout;
    LocalModel::new("local:test", s).unwrap_or_else(|e| panic!("{e}"))
}

fn ask(m: &mut LocalModel) -> Result<String, ModelError> {
    let request = ModelRequest {
        messages: vec![ChatMessage::text(Role::User, "hi")],
    };
    m.complete(&request, &[], &mut |_| {}).map(|r| r.text)
}

const READY: &str = r#"echo '{"ready":true,"n_ctx":512}'"#;

#[test]
fn an_abort_fails_the_call_and_the_next_call_starts_a_fresh_worker() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let count = dir.path().join("starts");
    let body = format!(
        "echo x >> {count}\n{READY}\nread line\nif [ $(wc -l < {count}) -eq 1 ]; then echo 'GGML_ASSERT failed' >&2; kill -ABRT $$; fi\necho '{{\"text\":\"{{\\\"reply\\\": \\\"hello\\\"}}\",\"finished\":true,\"prompt_tokens\":3}}'\nread line",
        count = count.display()
    );
    let mut m = model(dir.path(), &body);
    let err = ask(&mut m).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("llama.cpp aborted (SIGABRT)"), "{err}");
    assert!(err.contains("GGML_ASSERT failed"), "{err}");
    assert!(err.contains("keel runs resume"), "{err}");
    assert_eq!(ask(&mut m).ok().as_deref(), Some("hello"));
    assert_eq!(m.context_window(), Some(512));
}

#[test]
fn a_hang_is_stopped_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut m = model(dir.path(), &format!("{READY}\nsleep 30"));
    let err = ask(&mut m).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains("did not answer within 0 s and was stopped"),
        "{err}"
    );
    let mut m = model(dir.path(), "sleep 30");
    let err = ask(&mut m).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("did not load within"), "{err}");
}

#[test]
fn worker_errors_are_told_apart() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut m = model(
        dir.path(),
        &format!(
            "{READY}\nread line\necho '{{\"error\":\"prompt is 900 tokens\",\"kind\":\"context_overflow\"}}'\nread line\necho 'not json'\nread line"
        ),
    );
    assert!(matches!(ask(&mut m), Err(ModelError::ContextOverflow(_))));
    let err = ask(&mut m).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("said something unexpected"), "{err}");
    let mut m = model(
        dir.path(),
        r#"echo '{"error":"cannot load the model m.gguf: bad magic","kind":"failed"}'; exit 1"#,
    );
    let err = ask(&mut m).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains("could not start: cannot load the model"),
        "{err}"
    );
}

#[test]
fn a_cancel_stops_the_worker_mid_answer() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // The request timeout outlasts the hang, so only the cancel can end the call; a timeout
    // would be a different error.
    let mut m = model_with(
        dir.path(),
        &format!("{READY}\nsleep 30"),
        Duration::from_secs(60),
    );
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    m.watch_cancel(flag.clone());
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let result = ask(&mut m);
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    let _ = setter.join();
}

#[test]
fn the_request_line_is_the_bytes_the_worker_reads() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let sent = dir.path().join("sent");
    let body = format!(
        "{READY}\nIFS= read -r line\nprintf '%s\\n' \"$line\" > {sent}\necho '{{\"text\":\"{{\\\"reply\\\": \\\"hello\\\"}}\",\"finished\":true,\"prompt_tokens\":3,\"completion_tokens\":2,\"reused_tokens\":0}}'\nread line",
        sent = sent.display()
    );
    let mut m = model(dir.path(), &body);
    let tools = [keel_model::ToolSpec {
        name: "list_dir".into(),
        description: "List a directory.".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let request = ModelRequest {
        messages: vec![
            ChatMessage::text(Role::System, "Be brief."),
            ChatMessage::text(Role::User, "hi \"you\" ünïcode"),
        ],
    };
    let reply = m
        .complete(&request, &tools, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.text, "hello");
    assert_eq!(
        reply.usage,
        Some(keel_model::Usage {
            prompt_tokens: 3,
            completion_tokens: 2
        })
    );
    let line = std::fs::read_to_string(&sent).unwrap_or_else(|e| panic!("{e}"));
    let guide = "Answer with exactly one JSON object: {\"reply\": \"your answer\"} to answer the \
                 user, or {\"tool\": \"NAME\", \"arguments\": {...}} to call one of these tools:\
                 \n- list_dir: List a directory. Arguments: {\"type\":\"object\"}\nPaths are \
                 relative to the working directory; \".\" is the working directory itself.";
    // Field order, escapes and all: what the worker has always been sent.
    let expected = format!(
        "{{\"messages\":[{{\"role\":\"system\",\"content\":{}}},{{\"role\":\"user\",\"content\":\
         \"hi \\\"you\\\" ünïcode\"}}],\"grammar\":{},\"max_tokens\":512}}\n",
        serde_json::to_string(&format!("Be brief.\n\n{guide}")).unwrap_or_default(),
        serde_json::to_string(&keel_model::local::grammar::for_tools(&tools)).unwrap_or_default(),
    );
    assert_eq!(line, expected);
}
