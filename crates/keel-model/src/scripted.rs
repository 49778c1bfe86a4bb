//! The scripted provider (`--model script:FILE`): replays a file of model replies, one JSON
//! object per line, `{"text"?: "...", "tool_calls"?: [{"name", "arguments", "id"?}]}`. Blank
//! lines and lines starting with `#` are skipped. A call without an id gets `call_<n>`, unique
//! within the script. A line may instead fail the way a provider does —
//! `{"error": "context_overflow" | "failed", "message"?: "..."}`, or reject one tool result of
//! the request as an API does, `{"error": "tool_result_rejected", "call_id": "..."}` — and any
//! line may carry `"usage": {"prompt_tokens", "completion_tokens"}` and
//! `"delay_ms": N` to answer slowly (for timeouts). A reply may be a refusal, as a provider
//! reports one: `"refusal": "..."` (the model's refusal message, Chat Completions'
//! `message.refusal`) or `"content_filter": true` (`finish_reason: "content_filter"`), beside
//! any text and calls the line also has. A call argument written
//! `{"$from_last_result": "/json/pointer"}` is replaced by that value of the request's last
//! tool message read as JSON, so a script can use what a tool handed out (an opaque reference)
//! without knowing it in advance; a pointer that finds nothing fails the reply, saying so.
//! Each request it receives is kept, so tests
//! can assert on what keel sent, and, with [`ScriptedModel::log_requests_to`], appended to a
//! file as one JSON line per request, so tests of the `keel` binary can too. A script read from
//! a file ([`ScriptedModel::from_file`], what `--model script:FILE` builds) keeps none: the
//! program it serves cannot read them, and a run of N steps would hold N requests of up to N
//! messages each (a 2,000-step `keel run` peaked at 1.1 GB).
//!
//! It stands in for a model API, so it is as strict as one: every request is held to
//! [`crate::wire::check`] (with its images, if it has any) before it is answered, and a
//! malformed one fails the call with [`ModelError::Malformed`], naming every violation, instead
//! of being answered. So every test and demo that drives keel through a script also checks
//! that keel sent only requests a real API would take.

use std::path::Path;

use keel_core::ToolCall;
use keel_core::compose::ModelRequest;
use serde::Deserialize;
use serde_json::Value;

use crate::{Model, ModelError, ModelReply, ToolSpec};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptLine {
    #[serde(default)]
    text: String,
    #[serde(default)]
    tool_calls: Vec<ScriptCall>,
    error: Option<ScriptError>,
    message: Option<String>,
    /// The call whose tool result a `tool_result_rejected` line rejects.
    call_id: Option<String>,
    /// `{"prompt_tokens", "completion_tokens"}`, reported as the call's usage.
    usage: Option<Value>,
    #[serde(default)]
    delay_ms: u64,
    /// The model's refusal message.
    refusal: Option<String>,
    /// The provider's content filter stopped the reply.
    #[serde(default)]
    content_filter: bool,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ScriptError {
    ContextOverflow,
    Failed,
    ToolResultRejected,
}

/// One scripted answer.
#[derive(Debug)]
struct Scripted {
    reply: Result<ModelReply, ModelError>,
    delay: std::time::Duration,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptCall {
    name: String,
    #[serde(default)]
    arguments: Value,
    id: Option<String>,
}

/// Replays replies in order.
pub struct ScriptedModel {
    name: String,
    replies: std::collections::VecDeque<Scripted>,
    /// Every request received, in order.
    pub requests: Vec<(ModelRequest, Vec<ToolSpec>)>,
    /// What the turn loop said of the session before each step ([`crate::SessionView`]).
    pub sessions: Vec<crate::SessionView>,
    log: Option<std::path::PathBuf>,
    /// Off for benchmarks, where copying every request would be the provider's cost, not
    /// keel's.
    keep_requests: bool,
    /// Requests received so far.
    asked: usize,
    /// Off only for benchmarks (see [`ScriptedModel::without_request_check`]).
    check_requests: bool,
    /// Images received with requests (`complete_with_images`), for tests of what a seeing
    /// model is sent; the images themselves are not kept.
    pub images_seen: usize,
    cancel: Option<crate::CancelFlag>,
}

impl ScriptedModel {
    pub fn from_replies(name: &str, replies: Vec<ModelReply>) -> Self {
        Self::from_scripted(
            name,
            replies
                .into_iter()
                .map(|r| Scripted {
                    reply: Ok(r),
                    delay: std::time::Duration::ZERO,
                })
                .collect(),
        )
    }

    fn from_scripted(name: &str, replies: Vec<Scripted>) -> Self {
        Self {
            name: name.to_string(),
            replies: replies.into(),
            requests: Vec::new(),
            sessions: Vec::new(),
            log: None,
            keep_requests: true,
            asked: 0,
            check_requests: true,
            images_seen: 0,
            cancel: None,
        }
    }

    /// Stops keeping the requests it receives (`requests` stays empty).
    pub fn forgetting_requests(mut self) -> Self {
        self.keep_requests = false;
        self
    }

    /// Answers requests without checking them (module documentation). For benchmarks of
    /// keel's own cost per step only: the check reads the whole request, which the bench
    /// would count as keel's. Tests never turn it off.
    pub fn without_request_check(mut self) -> Self {
        self.check_requests = false;
        self
    }

    /// Also append every request, as `{"messages": [...], "tools": [names]}`, to `path`.
    pub fn log_requests_to(mut self, path: std::path::PathBuf) -> Self {
        self.log = Some(path);
        self
    }

    fn log(&self, request: &ModelRequest, tools: &[ToolSpec]) -> Result<(), ModelError> {
        let Some(path) = &self.log else {
            return Ok(());
        };
        let line = serde_json::json!({
            "messages": request.messages,
            "tools": tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        });
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|e| {
                ModelError::Setup(format!(
                    "cannot write the request log {}: {e}",
                    path.display()
                ))
            })
    }

    /// Parses a script; errors name the line.
    pub fn parse(name: &str, text: &str) -> Result<Self, ModelError> {
        let mut replies = Vec::new();
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parsed: ScriptLine = serde_json::from_str(line).map_err(|e| {
                ModelError::Setup(format!("{name}: line {}: not a scripted reply: {e}", i + 1))
            })?;
            let tool_calls = parsed
                .tool_calls
                .into_iter()
                .map(|c| {
                    n += 1;
                    ToolCall {
                        id: c.id.unwrap_or_else(|| format!("call_{n}")),
                        name: c.name,
                        arguments: if c.arguments.is_null() {
                            Value::Object(Default::default())
                        } else {
                            c.arguments
                        },
                    }
                })
                .collect();
            let message = parsed
                .message
                .unwrap_or_else(|| format!("scripted failure at line {}", i + 1));
            let reply = match parsed.error {
                Some(ScriptError::ContextOverflow) => Err(ModelError::ContextOverflow(message)),
                Some(ScriptError::Failed) => Err(ModelError::Failed(message)),
                Some(ScriptError::ToolResultRejected) => Err(ModelError::ToolResultRejected {
                    call_id: parsed.call_id.ok_or_else(|| {
                        ModelError::Setup(format!(
                            "{name}: line {}: a tool_result_rejected line needs a call_id",
                            i + 1
                        ))
                    })?,
                    message,
                }),
                None => Ok(ModelReply {
                    text: parsed.text,
                    tool_calls,
                    usage: parsed.usage.as_ref().and_then(crate::Usage::from_json),
                    refusal: match (parsed.refusal, parsed.content_filter) {
                        (Some(text), _) => Some(crate::Refusal::Message(text)),
                        (None, true) => Some(crate::Refusal::ContentFilter),
                        (None, false) => None,
                    },
                }),
            };
            replies.push(Scripted {
                reply,
                delay: std::time::Duration::from_millis(parsed.delay_ms),
            });
        }
        Ok(Self::from_scripted(name, replies))
    }

    /// The script in `path`, for a program: it keeps no requests (module documentation).
    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ModelError::Setup(format!("cannot read the script {}: {e}", path.display()))
        })?;
        Ok(Self::parse(&format!("script:{}", path.display()), &text)?.forgetting_requests())
    }

    pub fn remaining(&self) -> usize {
        self.replies.len()
    }
}

impl Model for ScriptedModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn watch_cancel(&mut self, flag: crate::CancelFlag) {
        self.cancel = Some(flag);
    }

    fn observe_session(&mut self, view: &crate::SessionView) {
        self.sessions.push(view.clone());
    }

    fn complete_with_images(
        &mut self,
        request: &ModelRequest,
        images: &[&[u8]],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        self.images_seen += images.len();
        // Checked as the HTTP provider would send it: the images as parts of the last message.
        let with_images = self.check_requests.then(|| {
            let mut body = crate::wire::chat_body(request, &[]);
            crate::openai::with_images(&mut body, images);
            body
        });
        self.answer(request, &[], with_images, on_text)
    }

    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        self.answer(request, tools, None, on_text)
    }
}

impl ScriptedModel {
    /// One call: `body`, when given, is the request as sent (with images); else it is
    /// `request` and `tools` on the wire.
    fn answer(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        body: Option<Value>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        self.asked += 1;
        if self.keep_requests {
            self.requests.push((request.clone(), tools.to_vec()));
        }
        // Logged before it is checked, so a test reading the log sees what keel sent.
        self.log(request, tools)?;
        if self.check_requests {
            match &body {
                Some(body) => crate::wire::check_body(body)?,
                None => crate::wire::check(request, tools)?,
            }
        }
        let scripted = self.replies.pop_front().ok_or_else(|| {
            ModelError::Exhausted(format!(
                "{} has no more replies (keel asked for reply {})",
                self.name, self.asked
            ))
        })?;
        // A slow answer can be cancelled while it is awaited, like a real one.
        let until = std::time::Instant::now() + scripted.delay;
        loop {
            if crate::is_set(self.cancel.as_ref()) {
                return Err(ModelError::Cancelled);
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(20)));
        }
        let mut reply = scripted.reply?;
        for call in &mut reply.tool_calls {
            fill_from_last_result(&mut call.arguments, request)?;
        }
        if !reply.text.is_empty() {
            on_text(&reply.text);
        }
        Ok(reply)
    }
}

/// Replaces every `{"$from_last_result": POINTER}` in `value` (see the module documentation).
fn fill_from_last_result(value: &mut Value, request: &ModelRequest) -> Result<(), ModelError> {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key("$from_last_result") => {
            let pointer = map["$from_last_result"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let last = request
                .messages
                .iter()
                .rev()
                .find(|m| m.tool_call_id.is_some())
                .and_then(|m| m.content.as_deref())
                .ok_or_else(|| {
                    ModelError::Failed(format!(
                        "script: {pointer} asked of the last tool result, but the request has none"
                    ))
                })?;
            let parsed: Value = serde_json::from_str(last).map_err(|e| {
                ModelError::Failed(format!(
                    "script: the last tool result is not JSON ({e}), so {pointer} finds nothing"
                ))
            })?;
            *value = parsed.pointer(&pointer).cloned().ok_or_else(|| {
                ModelError::Failed(format!(
                    "script: the last tool result has nothing at {pointer}: {last}"
                ))
            })?;
            Ok(())
        }
        Value::Object(map) => map
            .values_mut()
            .try_for_each(|v| fill_from_last_result(v, request)),
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|v| fill_from_last_result(v, request)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_core::compose::{ChatMessage, Role, WireFunction, WireToolCall};

    /// The smallest well-formed request: the system message, then one user message.
    fn request() -> ModelRequest {
        ModelRequest {
            messages: vec![
                ChatMessage::text(Role::System, "You are keel."),
                ChatMessage::text(Role::User, "go"),
            ],
        }
    }

    /// `request()`, then an assistant call `c1` of `open` and its tool message, `result`.
    fn request_with_result(result: &str) -> ModelRequest {
        let mut req = request();
        req.messages.push(ChatMessage {
            role: Role::Assistant,
            content: None,
            tool_calls: vec![WireToolCall {
                id: "c1".into(),
                kind: "function",
                function: WireFunction {
                    name: "open".into(),
                    arguments: "{}".into(),
                },
            }],
            tool_call_id: None,
        });
        let mut tool = ChatMessage::text(Role::Tool, result);
        tool.tool_call_id = Some("c1".into());
        req.messages.push(tool);
        req
    }

    #[test]
    fn an_argument_can_come_from_the_last_tool_result() -> Result<(), ModelError> {
        let script = r#"{"tool_calls":[{"name":"open","arguments":{"ref":{"$from_last_result":"/apps/0/appRef"},"mode":"control"}}]}
{"tool_calls":[{"name":"open","arguments":{"ref":{"$from_last_result":"/nothing"}}}]}"#;
        let mut m = ScriptedModel::parse("s", script)?;
        let req = request_with_result(r#"{"apps":[{"appRef":"app_x_1"}]}"#);
        let reply = m.complete(&req, &[], &mut |_| {})?;
        assert_eq!(
            reply.tool_calls[0].arguments,
            serde_json::json!({"ref": "app_x_1", "mode": "control"})
        );
        let missing = m.complete(&req, &[], &mut |_| {});
        assert!(
            matches!(&missing, Err(ModelError::Failed(e)) if e.contains("/nothing")),
            "{missing:?}"
        );
        Ok(())
    }

    #[test]
    fn parses_replies_and_numbers_calls() -> Result<(), ModelError> {
        let script = "# a demo\n{\"tool_calls\":[{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}},{\"name\":\"list_dir\"}]}\n\n{\"text\":\"done\",\"tool_calls\":[{\"name\":\"x\",\"id\":\"mine\"}]}\n";
        let mut m = ScriptedModel::parse("s", script)?;
        let req = request();
        let mut streamed = String::new();
        let first = m.complete(&req, &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(
            first
                .tool_calls
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>(),
            ["call_1", "call_2"]
        );
        assert_eq!(first.tool_calls[1].arguments, serde_json::json!({}));
        let second = m.complete(&req, &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(second.tool_calls[0].id, "mine");
        assert_eq!(streamed, "done");
        assert!(matches!(
            m.complete(&req, &[], &mut |_| {}),
            Err(ModelError::Exhausted(_))
        ));
        assert_eq!(m.requests.len(), 3);
        Ok(())
    }

    #[test]
    fn usage_is_reported_and_a_slow_answer_can_be_cancelled()
    -> Result<(), Box<dyn std::error::Error>> {
        let script = "{\"text\":\"a\",\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n{\"text\":\"b\",\"delay_ms\":30000}\n";
        let mut m = ScriptedModel::parse("s", script)?;
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        m.watch_cancel(flag.clone());
        let request = request();
        let first = m.complete(&request, &[], &mut |_| {})?;
        assert_eq!(
            first.usage,
            Some(crate::Usage {
                prompt_tokens: 12,
                completion_tokens: 3
            })
        );
        let setter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        // Only a cancel seen during the 30 s wait ends it as Cancelled.
        let second = m.complete(&request, &[], &mut |_| {});
        assert!(matches!(second, Err(ModelError::Cancelled)), "{second:?}");
        let _ = setter.join();
        Ok(())
    }

    #[test]
    fn scripted_failures_and_the_request_log() -> Result<(), Box<dyn std::error::Error>> {
        let script = "{\"error\":\"context_overflow\",\"message\":\"too long\"}\n{\"error\":\"failed\"}\n{\"text\":\"ok\",\"delay_ms\":1}\n";
        let dir = tempfile::tempdir()?;
        let log = dir.path().join("requests.jsonl");
        let mut m = ScriptedModel::parse("s", script)?.log_requests_to(log.clone());
        let req = request();
        let first = m.complete(&req, &[], &mut |_| {});
        assert!(matches!(first, Err(ModelError::ContextOverflow(ref e)) if e == "too long"));
        let second = m.complete(&req, &[], &mut |_| {});
        assert!(matches!(second, Err(ModelError::Failed(ref e)) if e.contains("line 2")));
        assert_eq!(m.complete(&req, &[], &mut |_| {})?.text, "ok");
        let logged = std::fs::read_to_string(&log)?;
        assert_eq!(logged.lines().count(), 3);
        assert!(
            logged.starts_with(
                "{\"messages\":[{\"role\":\"system\",\"content\":\"You are keel.\"},\
                 {\"role\":\"user\",\"content\":\"go\"}],\"tools\":[]}\n"
            ),
            "{logged}"
        );
        Ok(())
    }

    #[test]
    fn a_malformed_request_fails_the_call_naming_every_violation()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let log = dir.path().join("requests.jsonl");
        let mut m = ScriptedModel::parse("s", "{\"text\":\"a\"}\n{\"text\":\"b\"}\n")?
            .log_requests_to(log.clone());
        // No system message first, and a tool message that answers no call.
        let mut bad = request();
        bad.messages.remove(0);
        let mut orphan = ChatMessage::text(Role::Tool, "x");
        orphan.tool_call_id = Some("c9".into());
        bad.messages.push(orphan);
        let tools = [ToolSpec {
            name: "read.file".into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        let mut streamed = String::new();
        let refused = m.complete(&bad, &tools, &mut |t| streamed.push_str(t));
        let Err(ModelError::Malformed(e)) = &refused else {
            panic!("answered: {refused:?}");
        };
        assert_eq!(e.violations.len(), 3, "{e}");
        for kind in [
            crate::wire::ViolationKind::SystemMessage,
            crate::wire::ViolationKind::UnboundToolMessage,
            crate::wire::ViolationKind::ToolName,
        ] {
            assert!(e.has(kind), "{kind:?}: {e}");
        }
        let said = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            said.contains("messages[0]") && said.contains("tools[0]"),
            "{said}"
        );
        // Nothing was answered or streamed: the next request gets the first reply.
        assert!(streamed.is_empty());
        assert_eq!(m.remaining(), 2);
        assert_eq!(m.complete(&request(), &[], &mut |_| {})?.text, "a");
        // The log shows what was sent, the malformed request too.
        assert_eq!(std::fs::read_to_string(&log)?.lines().count(), 2);
        assert_eq!(m.requests.len(), 2);
        Ok(())
    }

    #[test]
    fn images_are_checked_as_they_are_sent() -> Result<(), ModelError> {
        let mut m = ScriptedModel::parse("s", "{\"text\":\"seen\"}\n{\"text\":\"seen\"}\n")?;
        let png: &[u8] = &[0x89, b'P', b'N', b'G'];
        assert_eq!(
            m.complete_with_images(&request(), &[png], &mut |_| {})?
                .text,
            "seen"
        );
        assert_eq!(m.images_seen, 1);
        // An image may only go in a user message: here the last message is a tool's.
        let refused = m.complete_with_images(&request_with_result("{}"), &[png], &mut |_| {});
        assert!(
            matches!(&refused, Err(ModelError::Malformed(e))
                if e.has(crate::wire::ViolationKind::Content)),
            "{refused:?}"
        );
        Ok(())
    }

    #[test]
    fn a_bench_may_turn_the_check_off() -> Result<(), ModelError> {
        let mut m = ScriptedModel::parse("s", "{\"text\":\"a\"}\n")?.without_request_check();
        let empty = ModelRequest { messages: vec![] };
        assert_eq!(m.complete(&empty, &[], &mut |_| {})?.text, "a");
        Ok(())
    }

    /// What `--model script:FILE` builds serves a program that cannot read the requests, so
    /// it keeps none: a long run would otherwise hold every request it made (issue 19).
    #[test]
    fn a_script_from_a_file_keeps_no_requests() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"text\":\"a\"}\n{\"text\":\"b\"}\n")?;
        let mut m = ScriptedModel::from_file(&path)?;
        assert_eq!(m.complete(&request(), &[], &mut |_| {})?.text, "a");
        assert_eq!(m.complete(&request(), &[], &mut |_| {})?.text, "b");
        assert!(m.requests.is_empty(), "{} requests kept", m.requests.len());
        Ok(())
    }

    #[test]
    fn a_refusal_can_be_scripted() -> Result<(), ModelError> {
        let script = concat!(
            "{\"refusal\":\"I can't help with that.\"}\n",
            "{\"text\":\"partly\",\"content_filter\":true,\"tool_calls\":[{\"name\":\"x\"}]}\n",
            "{\"text\":\"plain\"}\n",
        );
        let mut m = ScriptedModel::parse("s", script)?;
        let mut streamed = String::new();
        let first = m.complete(&request(), &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(
            first.refusal,
            Some(crate::Refusal::Message("I can't help with that.".into()))
        );
        let second = m.complete(&request(), &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(second.refusal, Some(crate::Refusal::ContentFilter));
        assert_eq!(second.tool_calls.len(), 1);
        assert_eq!(m.complete(&request(), &[], &mut |_| {})?.refusal, None);
        // Only reply text streams, as from a provider.
        assert_eq!(streamed, "partly");
        Ok(())
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = ScriptedModel::parse("s", "{\"text\":\"a\"}\n{\"txet\":1}\n")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("line 2"), "{e}");
    }
}
