//! The OpenAI-compatible Chat Completions provider (`--model openai:MODEL`), for llama.cpp
//! server, Ollama, vLLM and OpenAI alike.
//!
//! Requests are the composed messages as interfaces.md §4 shapes them, the offered tools as
//! `{"type":"function","function":{name, description, parameters}}`, `"stream": true` and
//! `"stream_options": {"include_usage": true}` (usage arrives in a last chunk). The
//! reply is read as server-sent events — text deltas streamed to the caller, tool-call name and
//! argument deltas assembled by index, several calls in one reply — or, from a server that
//! ignores `stream`, as one JSON completion. Parsing is lenient where servers differ (arguments
//! as a JSON string or an object, missing indices or ids, errors sent inside the stream).
//! A refusal — `message.refusal`, `delta.refusal` pieces, or `finish_reason:
//! "content_filter"` — is read into [`crate::ModelReply::refusal`]; its words are not streamed
//! as reply text.
//!
//! A 429 or 5xx answer, or a connection that fails before any answer, is retried with
//! exponential backoff (honouring `Retry-After`); once the reply has started streaming nothing
//! is retried, so a tool call is never proposed twice. Other failures become errors that say
//! what to do: a refused key, an unknown model, a request longer than the context window
//! ([`ModelError::ContextOverflow`], which the loop answers by compacting).

use std::io::BufRead;
use std::time::Duration;

use keel_core::ToolCall;
use keel_core::compose::{ModelRequest, Role};
use serde_json::{Value, json};

use crate::{CancelFlag, Model, ModelError, ModelReply, ToolSpec, Usage, is_set};

/// Where and how to reach the server; every timeout and the retry policy are configurable.
#[derive(Clone, Debug)]
pub struct HttpSettings {
    /// The base URL including `/v1`; requests go to `{base}/chat/completions`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// Where the key came from, for error messages (`$OPENAI_API_KEY`).
    pub api_key_source: String,
    pub headers: Vec<(String, String)>,
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of an answer.
    pub read_timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and connection failures.
    pub max_retries: u32,
    /// The first backoff; each retry doubles it.
    pub backoff: Duration,
    pub context_window: Option<u64>,
    /// Whether a redirect is followed. Off for computer use (computer-use.md N21), where the
    /// screen content must reach only the configured origin: a redirect is then an HTTP error.
    pub follow_redirects: bool,
}

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The environment variable the key is read from unless `api_key_env` names another.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_MAX_RETRIES: u32 = 3;
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(500);
/// A `Retry-After` longer than this is not waited for: the error says to try later.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

impl HttpSettings {
    pub fn new(base_url: &str, model: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key: None,
            api_key_source: format!("${DEFAULT_API_KEY_ENV}"),
            headers: Vec::new(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: DEFAULT_READ_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            backoff: DEFAULT_BACKOFF,
            context_window: None,
            follow_redirects: true,
        }
    }
}

/// Whether `url` names this machine (such a server needs no key).
pub fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    // The authority ends at the first of these, as a URL parser reads it: a `#@127.0.0.1` after
    // a real host must not pass for loopback.
    let host = rest.split(['/', '?', '#', '\\']).next().unwrap_or_default();
    let host = match host.rsplit_once('@') {
        Some((_, h)) => h,
        None => host,
    };
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

pub struct OpenAiModel {
    name: String,
    settings: HttpSettings,
    endpoint: String,
    client: reqwest::blocking::Client,
    cancel: Option<CancelFlag>,
}

impl OpenAiModel {
    pub fn new(settings: HttpSettings) -> Result<Self, ModelError> {
        if settings.api_key.is_none() && !is_loopback(&settings.base_url) {
            return Err(ModelError::Setup(format!(
                "no API key for {}: set {} (or [model] api_key_env in your config). A server on \
                 this machine (localhost) needs none",
                settings.base_url, settings.api_key_source
            )));
        }
        // One TLS backend for the whole process; a second install is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(key) = &settings.api_key {
            let value =
                reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                    ModelError::Setup(format!(
                        "the API key in {} is not a valid header value",
                        settings.api_key_source
                    ))
                })?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        for (name, value) in &settings.headers {
            let bad =
                || ModelError::Setup(format!("[model] headers: {name:?} is not a valid header"));
            headers.insert(
                reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?,
                reqwest::header::HeaderValue::from_str(value).map_err(|_| bad())?,
            );
        }
        let client = reqwest::blocking::Client::builder()
            .default_headers(headers)
            .connect_timeout(settings.connect_timeout)
            // In the blocking client this bounds each wait: for the answer's head, then for
            // every read of the streamed body — an idle limit, not a cap on long replies.
            .timeout(settings.read_timeout)
            .redirect(if settings.follow_redirects {
                reqwest::redirect::Policy::default()
            } else {
                reqwest::redirect::Policy::none()
            })
            .build()
            .map_err(|e| ModelError::Setup(format!("cannot set up the HTTP client: {e}")))?;
        Ok(Self {
            name: format!("openai:{}", settings.model),
            endpoint: format!("{}/chat/completions", settings.base_url),
            settings,
            client,
            cancel: None,
        })
    }

    /// The exact body sent for `request` (interfaces.md §4).
    pub fn request_body(&self, request: &ModelRequest, tools: &[ToolSpec]) -> Value {
        let mut body = json!({
            "model": self.settings.model,
            "messages": request.messages,
            "stream": true,
            // Usage comes in a last chunk only when asked for; servers that do not know the
            // option ignore it.
            "stream_options": {"include_usage": true},
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(crate::wire::tools_json(tools));
        }
        body
    }

    fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        retry_after.unwrap_or_else(|| self.settings.backoff * 2u32.saturating_pow(retry))
    }
}

fn retry_after(response: &reqwest::blocking::Response) -> Option<Duration> {
    response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// The server's own words: `error.message` of a JSON error body, else the first 500 chars.
fn error_text(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v["error"]["message"]
            .as_str()
            .or_else(|| v["error"].as_str())
            .or_else(|| v["message"].as_str())
            .or_else(|| v["detail"].as_str())
            .map(str::to_string)
    });
    let text = message.unwrap_or_else(|| body.trim().to_string());
    let mut short: String = text.chars().take(500).collect();
    if text.chars().count() > 500 {
        short.push('…');
    }
    short
}

/// The call id of the tool message a 4xx error is about, when the error says so: by the
/// message's index (`messages[3]`, `messages.[3].tool_call_id`), or by naming a call id of the
/// request's tool messages. Only the error's own words count (`error.message`, `error.param`,
/// or the text a server sent instead of JSON), never the whole body: some servers echo the
/// request back in a 422, and a call id found there says nothing. An error about any other
/// message is not a rejected tool result.
fn rejected_tool_message(request: &ModelRequest, body: &str) -> Option<String> {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let said = match &parsed {
        Some(v) => {
            let error = &v["error"];
            [
                error["message"].as_str(),
                error["param"].as_str(),
                error.as_str(),
                v["message"].as_str(),
                v["detail"].as_str(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
        }
        None => body.chars().take(2000).collect(),
    };
    let tool_call_of = |index: usize| {
        request
            .messages
            .get(index)
            .filter(|m| m.role == Role::Tool)
            .and_then(|m| m.tool_call_id.clone())
    };
    let by_index = message_indexes(&said).find_map(tool_call_of);
    by_index.or_else(|| {
        request
            .messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| m.tool_call_id.as_deref())
            .find(|id| id.chars().count() >= 4 && said.contains(id))
            .map(str::to_string)
    })
}

/// The indexes in every `messages[N]` or `messages.[N]` of an error text.
fn message_indexes(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.match_indices("messages").filter_map(|(at, word)| {
        let rest = &text[at + word.len()..];
        let rest = rest.strip_prefix('.').unwrap_or(rest).strip_prefix('[')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        rest[digits.len()..]
            .starts_with(']')
            .then(|| digits.parse().ok())?
    })
}

fn is_context_overflow(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "context_length_exceeded",
        "context length",
        "maximum context",
        "context window",
        "too many tokens",
        "exceeds the available context",
        "prompt is too long",
        "n_ctx",
    ]
    .iter()
    .any(|needle| t.contains(needle))
}

impl Model for OpenAiModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn context_window(&self) -> Option<u64> {
        self.settings.context_window
    }

    fn watch_cancel(&mut self, flag: CancelFlag) {
        self.cancel = Some(flag);
    }

    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        let body = self.request_body(request, tools);
        self.send(request, body, on_text)
    }

    fn complete_with_images(
        &mut self,
        request: &ModelRequest,
        images: &[&[u8]],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        let mut body = self.request_body(request, &[]);
        with_images(&mut body, images);
        self.send(request, body, on_text)
    }
}

/// The last message of `body` with `images` after its text, as Chat Completions content
/// parts (`image_url` with a PNG data URL).
pub fn with_images(body: &mut Value, images: &[&[u8]]) {
    let Some(last) = body["messages"].as_array_mut().and_then(|m| m.last_mut()) else {
        return;
    };
    let mut parts =
        vec![json!({"type": "text", "text": last["content"].as_str().unwrap_or_default()})];
    parts.extend(images.iter().map(|png| {
        json!({
            "type": "image_url",
            "image_url": {"url": format!("data:image/png;base64,{}", crate::base64(png))}
        })
    }));
    last["content"] = Value::Array(parts);
}

impl OpenAiModel {
    fn send(
        &mut self,
        request: &ModelRequest,
        body: Value,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        let body = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Failed(format!("cannot encode the request: {e}")))?;
        let endpoint = &self.endpoint;
        let mut retry = 0;
        loop {
            if is_set(self.cancel.as_ref()) {
                return Err(ModelError::Cancelled);
            }
            let post = self
                .client
                .post(endpoint)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
            let Some(sent) = send_unless_cancelled(post, self.cancel.as_ref()) else {
                return Err(ModelError::Cancelled);
            };
            let last_try = retry >= self.settings.max_retries;
            let response = match sent {
                Ok(r) => r,
                Err(e) if !last_try && (e.is_connect() || e.is_timeout()) => {
                    if !sleep_unless_cancelled(self.backoff(retry, None), self.cancel.as_ref()) {
                        return Err(ModelError::Cancelled);
                    }
                    retry += 1;
                    continue;
                }
                Err(e) => {
                    return Err(ModelError::Failed(format!(
                        "cannot reach {endpoint} ({e}) after {} attempts; is the server running, \
                         and does --base-url include /v1?",
                        retry + 1
                    )));
                }
            };
            let status = response.status();
            if status.is_success() {
                // From here on nothing is retried: the reply has begun.
                return read_reply(response, on_text, endpoint, self.cancel.as_ref());
            }
            let code = status.as_u16();
            let wait = retry_after(&response);
            let raw = response.text().unwrap_or_default();
            let text = error_text(&raw);
            if matches!(code, 400 | 422)
                && let Some(call_id) = rejected_tool_message(request, &raw)
            {
                return Err(ModelError::ToolResultRejected {
                    call_id,
                    message: format!("HTTP {code} from {endpoint}: {text}"),
                });
            }
            let retryable = code == 429 || status.is_server_error();
            if retryable && !last_try && wait.is_none_or(|w| w <= MAX_RETRY_AFTER) {
                if !sleep_unless_cancelled(self.backoff(retry, wait), self.cancel.as_ref()) {
                    return Err(ModelError::Cancelled);
                }
                retry += 1;
                continue;
            }
            return Err(classify(code, &text, &self.settings, endpoint, retry + 1));
        }
    }
}

/// How often a wait for the server looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Sends `request` on a thread of its own and waits for the response headers, looking at
/// `cancel` meanwhile: a server that accepts the connection and then says nothing would
/// otherwise hold a Ctrl-C until the read timeout. `None` when cancelled; the abandoned request
/// ends on its own timeout, and its connection is dropped with it.
fn send_unless_cancelled(
    request: reqwest::blocking::RequestBuilder,
    cancel: Option<&CancelFlag>,
) -> Option<reqwest::Result<reqwest::blocking::Response>> {
    if cancel.is_none() {
        return Some(request.send());
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let sender = std::thread::spawn(move || {
        let _ = tx.send(request.send());
    });
    loop {
        match rx.recv_timeout(CANCEL_POLL) {
            Ok(sent) => return Some(sent),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if is_set(cancel) => return None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            // The request panicked: the panic goes on here, as it would have inline.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match sender.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => return None,
            },
        }
    }
}

/// Sleeps `wait`, or less if `cancel` is set meanwhile; false when cancelled.
fn sleep_unless_cancelled(wait: Duration, cancel: Option<&CancelFlag>) -> bool {
    let until = std::time::Instant::now() + wait;
    loop {
        if is_set(cancel) {
            return false;
        }
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(CANCEL_POLL));
    }
}

fn classify(
    code: u16,
    text: &str,
    settings: &HttpSettings,
    endpoint: &str,
    attempts: u32,
) -> ModelError {
    match code {
        401 | 403 => ModelError::Setup(format!(
            "{endpoint} refused the API key (HTTP {code}: {text}). Check the key in {}",
            settings.api_key_source
        )),
        404 if text.to_lowercase().contains("model") => ModelError::Setup(format!(
            "{endpoint} does not know the model {:?} (HTTP 404: {text}). Pick one it serves with \
             --model openai:NAME",
            settings.model
        )),
        404 => ModelError::Setup(format!(
            "no Chat Completions endpoint at {endpoint} (HTTP 404: {text}); --base-url must be \
             the API base including /v1"
        )),
        400 | 413 | 422 if is_context_overflow(text) => {
            ModelError::ContextOverflow(format!("HTTP {code} from {endpoint}: {text}"))
        }
        429 => ModelError::Http {
            status: code,
            message: format!(
                "{endpoint} is rate limiting (HTTP 429: {text}) after {attempts} attempts; wait, \
                 then `keel runs resume` the run"
            ),
        },
        _ if code >= 500 => ModelError::Http {
            status: code,
            message: format!("{endpoint} failed (HTTP {code}: {text}) after {attempts} attempts"),
        },
        _ => ModelError::Http {
            status: code,
            message: format!("HTTP {code} from {endpoint}: {text}"),
        },
    }
}

/// A tool call being assembled from deltas.
#[derive(Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

#[derive(Default)]
struct Assembly {
    text: String,
    calls: Vec<(i64, PartialCall)>,
    usage: Option<Usage>,
    /// The model's refusal message, as its pieces arrived. Not streamed to the caller as
    /// reply text: the turn loop says what happened in its own words.
    refusal: String,
    /// `finish_reason: "content_filter"`.
    content_filter: bool,
}

impl Assembly {
    /// What one choice says of a refusal: its refusal text (`message.refusal` or a
    /// `delta.refusal` piece) and its finish reason. A blank refusal is none: servers that copy
    /// OpenAI's message shape may fill the field with `""`, and taking that for a refusal would
    /// withdraw a turn the model answered.
    fn refusal_of(&mut self, choice: &Value, message: &Value) {
        if let Some(piece) = message["refusal"].as_str() {
            self.refusal.push_str(piece);
        }
        if choice["finish_reason"].as_str() == Some("content_filter") {
            self.content_filter = true;
        }
    }

    /// One `tool_calls` entry of a delta or a message.
    fn tool_delta(&mut self, position: usize, delta: &Value) {
        let index = delta["index"].as_i64();
        let id = delta["id"].as_str().filter(|s| !s.is_empty());
        let slot = match index {
            Some(i) => match self.calls.iter().position(|(k, _)| *k == i) {
                Some(p) => p,
                None => {
                    self.calls.push((i, PartialCall::default()));
                    self.calls.len() - 1
                }
            },
            // No index: a new call when it brings a new id, or when it is not the first entry
            // of this delta; otherwise the continuation of the last call.
            None => {
                let continues = match (self.calls.last(), id) {
                    (Some((_, last)), Some(id)) => last.id.as_deref() == Some(id),
                    (Some(_), None) => position == 0,
                    (None, _) => false,
                };
                if !continues {
                    let key = self.calls.len() as i64 + 1_000_000;
                    self.calls.push((key, PartialCall::default()));
                }
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot].1;
        if let Some(id) = id {
            call.id = Some(id.to_string());
        }
        let function = &delta["function"];
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        match &function["arguments"] {
            Value::String(s) => call.arguments.push_str(s),
            Value::Null => {}
            // Some servers (Ollama) send the arguments as an object.
            other => call.arguments.push_str(&other.to_string()),
        }
    }

    fn finish(self) -> Result<ModelReply, ModelError> {
        let mut tool_calls = Vec::new();
        for (n, (_, call)) in self.calls.into_iter().enumerate() {
            if call.name.is_empty() {
                return Err(ModelError::Failed(
                    "the model sent a tool call without a name; nothing was run".into(),
                ));
            }
            let arguments = if call.arguments.trim().is_empty() {
                json!({})
            } else {
                // Not JSON: kept as the raw text, so keel's refusal (keel-runtime's
                // `proposal`, before the gate) can quote it to the model instead of keel
                // guessing what was meant.
                serde_json::from_str(&call.arguments).unwrap_or(Value::String(call.arguments))
            };
            tool_calls.push(ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{}", n + 1)),
                name: call.name,
                arguments,
            });
        }
        let refusal = if !self.refusal.trim().is_empty() {
            Some(crate::Refusal::Message(self.refusal))
        } else if self.content_filter {
            Some(crate::Refusal::ContentFilter)
        } else {
            None
        };
        Ok(ModelReply {
            text: self.text,
            tool_calls,
            usage: self.usage,
            refusal,
        })
    }
}

fn in_stream_error(event: &Value) -> Option<String> {
    let error = event.get("error")?;
    Some(
        error["message"]
            .as_str()
            .map_or_else(|| error.to_string(), str::to_string),
    )
}

fn read_reply(
    response: reqwest::blocking::Response,
    on_text: &mut dyn FnMut(&str),
    endpoint: &str,
    cancel: Option<&CancelFlag>,
) -> Result<ModelReply, ModelError> {
    let is_stream = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_stream {
        let body = response
            .text()
            .map_err(|e| ModelError::Failed(format!("reading the answer of {endpoint}: {e}")))?;
        return parse_completion(&body, on_text, endpoint);
    }
    read_stream(std::io::BufReader::new(response), on_text, endpoint, cancel)
}

/// A streamed completion: the server-sent events of `reader`, read up to `[DONE]` (or the end
/// of the stream after a finish reason), assembled into one reply. `on_text` receives the
/// text as it arrives. Public so the fuzz target (fuzz/) reads streams through it.
pub fn read_stream(
    mut reader: impl BufRead,
    on_text: &mut dyn FnMut(&str),
    endpoint: &str,
    cancel: Option<&CancelFlag>,
) -> Result<ModelReply, ModelError> {
    let broken = |e: std::io::Error| {
        ModelError::Failed(format!(
            "the answer from {endpoint} broke off while streaming ({e}); it was not retried, so \
             nothing is proposed twice. `keel runs resume` asks again"
        ))
    };
    let mut assembly = Assembly::default();
    let mut data = String::new();
    // `[DONE]` or a finish reason: without either, an end of stream is a broken answer.
    let mut finished = false;
    let mut line = String::new();
    loop {
        if is_set(cancel) {
            return Err(ModelError::Cancelled);
        }
        line.clear();
        let n = reader.read_line(&mut line).map_err(broken)?;
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if n == 0 || trimmed.is_empty() {
            if !data.is_empty() {
                if data.trim() == "[DONE]" {
                    finished = true;
                    break;
                }
                let event: Value = serde_json::from_str(&data).map_err(|e| {
                    ModelError::Failed(format!(
                        "{endpoint} streamed an event that is not JSON ({e}): {}",
                        data.chars().take(200).collect::<String>()
                    ))
                })?;
                data.clear();
                if let Some(message) = in_stream_error(&event) {
                    return Err(if is_context_overflow(&message) {
                        ModelError::ContextOverflow(message)
                    } else {
                        ModelError::Failed(format!("{endpoint}: {message}"))
                    });
                }
                if !event["choices"][0]["finish_reason"].is_null() {
                    finished = true;
                }
                // Servers that report usage send it in a last chunk (often with no choices).
                if let Some(usage) = Usage::from_json(&event["usage"]) {
                    assembly.usage = Some(usage);
                }
                let delta = &event["choices"][0]["delta"];
                assembly.refusal_of(&event["choices"][0], delta);
                if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                    on_text(text);
                    assembly.text.push_str(text);
                }
                if let Some(calls) = delta["tool_calls"].as_array() {
                    for (i, call) in calls.iter().enumerate() {
                        assembly.tool_delta(i, call);
                    }
                }
            }
            if n == 0 {
                break;
            }
            continue;
        }
        if let Some(payload) = trimmed.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(payload.strip_prefix(' ').unwrap_or(payload));
        }
        // `event:`, `id:`, `retry:` and `:` comment lines carry nothing keel needs.
    }
    if !finished {
        return Err(broken(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the stream ended before the reply was complete",
        )));
    }
    assembly.finish()
}

/// A whole (non-streamed) completion, as the reply keel uses. Public so the fuzz target
/// (fuzz/) reads replies through it.
pub fn parse_completion(
    body: &str,
    on_text: &mut dyn FnMut(&str),
    endpoint: &str,
) -> Result<ModelReply, ModelError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        ModelError::Failed(format!(
            "{endpoint} answered with something that is not a Chat Completions reply ({e}): {}",
            body.chars().take(200).collect::<String>()
        ))
    })?;
    if let Some(message) = in_stream_error(&value) {
        return Err(if is_context_overflow(&message) {
            ModelError::ContextOverflow(message)
        } else {
            ModelError::Failed(format!("{endpoint}: {message}"))
        });
    }
    let message = &value["choices"][0]["message"];
    if message.is_null() {
        return Err(ModelError::Failed(format!(
            "{endpoint} answered without choices[0].message: {}",
            body.chars().take(200).collect::<String>()
        )));
    }
    let mut assembly = Assembly {
        usage: Usage::from_json(&value["usage"]),
        ..Assembly::default()
    };
    assembly.refusal_of(&value["choices"][0], message);
    if let Some(text) = message["content"].as_str() {
        if !text.is_empty() {
            on_text(text);
        }
        assembly.text = text.to_string();
    }
    if let Some(calls) = message["tool_calls"].as_array() {
        for (i, call) in calls.iter().enumerate() {
            // A call that is not an object cannot be read (and indexing into one to number it
            // would panic): the reply is refused, saying what came.
            let Value::Object(fields) = call else {
                return Err(ModelError::Failed(format!(
                    "{endpoint} answered with tool call {i} that is not a JSON object: {}",
                    call.to_string().chars().take(200).collect::<String>()
                )));
            };
            let mut call = Value::Object(fields.clone());
            if call["index"].is_null() {
                call["index"] = json!(i);
            }
            assembly.tool_delta(i, &call);
        }
    }
    assembly.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_that_is_not_an_object_is_refused_not_a_panic() {
        // Found by the chat_completion fuzz target.
        for body in [
            r#"{"choices": [{"message": {"role": "as", "tool_calls": [0]}}]}"#,
            r#"{"choices": [{"message": {"tool_calls": ["x", {"id": "a"}]}}]}"#,
        ] {
            let err = parse_completion(body, &mut |_| {}, "http://x").unwrap_err();
            assert!(
                err.to_string()
                    .contains("tool call 0 that is not a JSON object"),
                "{err}"
            );
        }
    }

    #[test]
    fn loopback_needs_no_key_and_others_do() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://user@127.0.0.2/v1",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "http://10.0.0.1/v1",
            "http://localhost.evil/v1",
            "http://evil.com#@127.0.0.1/v1",
            "http://evil.com?@127.0.0.1/v1",
            "http://evil.com\\@127.0.0.1/v1",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
        let err = OpenAiModel::new(HttpSettings::new(DEFAULT_BASE_URL, "gpt-4o"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("$OPENAI_API_KEY"), "{err}");
        assert!(OpenAiModel::new(HttpSettings::new("http://127.0.0.1:9/v1", "m")).is_ok());
    }

    #[test]
    fn deltas_assemble_parallel_calls_with_or_without_indices() -> Result<(), ModelError> {
        let mut a = Assembly::default();
        a.tool_delta(0, &json!({"index": 0, "id": "a", "function": {"name": "read_file", "arguments": "{\"pa"}}));
        a.tool_delta(
            1,
            &json!({"index": 1, "id": "b", "function": {"name": "list_dir", "arguments": ""}}),
        );
        a.tool_delta(
            0,
            &json!({"index": 0, "function": {"arguments": "th\":\"x\"}"}}),
        );
        let reply = a.finish()?;
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, json!({"path": "x"}));
        assert_eq!(reply.tool_calls[1].arguments, json!({}));
        let mut a = Assembly::default();
        a.tool_delta(
            0,
            &json!({"id": "a", "function": {"name": "f", "arguments": {"k": 1}}}),
        );
        a.tool_delta(
            1,
            &json!({"function": {"name": "g", "arguments": "not json"}}),
        );
        let reply = a.finish()?;
        assert_eq!(reply.tool_calls[0].arguments, json!({"k": 1}));
        assert_eq!(reply.tool_calls[1].id, "call_2");
        assert_eq!(reply.tool_calls[1].arguments, json!("not json"));
        Ok(())
    }

    #[test]
    fn errors_say_what_to_do() {
        let s = HttpSettings::new("http://127.0.0.1:1/v1", "qwen");
        let e = |code, text| classify(code, text, &s, "E", 1).to_string();
        assert!(e(401, "bad key").contains("$OPENAI_API_KEY"));
        assert!(e(404, "model 'qwen' not found").contains("--model openai:NAME"));
        assert!(e(404, "Not Found").contains("/v1"));
        assert!(matches!(
            classify(
                400,
                "This model's maximum context length is 8192 tokens",
                &s,
                "E",
                1
            ),
            ModelError::ContextOverflow(_)
        ));
        assert!(e(429, "slow down").contains("keel runs resume"));
        assert_eq!(error_text(r#"{"error":{"message":"nope"}}"#), "nope");
        assert_eq!(error_text("x".repeat(600).as_str()).chars().count(), 501);
    }
}
