//! keel-model: what keel asks a language model, and the providers that answer.
//!
//! A [`Model`] takes a composed [`ModelRequest`] (one system message, then the conversation)
//! and the tools on offer, and returns the reply: text and proposed tool calls. Tool calls are
//! collected, never run here. Providers: [`openai::OpenAiModel`] speaks Chat Completions over
//! HTTP (llama.cpp server, Ollama, vLLM, OpenAI); [`scripted::ScriptedModel`] replays a file of
//! replies for tests and reproducible demos; [`local::LocalModel`] runs a GGUF model (the
//! embedded one by default) as a client of the `keel-llm-worker` process, which is the only
//! program that links llama.cpp.
//!
//! [`wire`] checks that a request is one a model API would take; the scripted provider and the
//! tests' loopback server hold every request to it.
//!
//! Not here: composing requests (keel-core), deciding calls (the gate), running tools.

pub mod local;
pub mod openai;
pub mod scripted;
#[cfg(feature = "testing")]
pub mod testing;
pub mod wire;

use keel_core::ToolCall;
use keel_core::compose::ModelRequest;
use serde::Serialize;
use serde_json::Value;

/// A tool as the model is offered it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// One model reply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelReply {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// The tokens the call used, when the provider says.
    pub usage: Option<Usage>,
    /// The provider said the model refused to answer. The turn loop ends the turn on it and
    /// leaves the turn out of the model's later context; `text` and `tool_calls` are whatever
    /// came beside it, kept for the record, never acted on.
    pub refusal: Option<Refusal>,
}

/// A provider's word that its model refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The model's own refusal message: Chat Completions' `message.refusal`, streamed as
    /// `delta.refusal` pieces.
    Message(String),
    /// The provider's content filter stopped the reply (`finish_reason: "content_filter"`),
    /// with no refusal message of the model's.
    ContentFilter,
}

impl Refusal {
    /// One line for the person and the run's record: what the provider said.
    pub fn describe(&self) -> String {
        match self {
            Refusal::Message(text) => format!("the model refused: {}", text.trim()),
            Refusal::ContentFilter => {
                "the provider's content filter stopped the model's reply".to_string()
            }
        }
    }
}

/// Tokens one call used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl Usage {
    /// Reads `{"prompt_tokens", "completion_tokens"}` (the Chat Completions `usage` object);
    /// `None` when neither is there.
    pub fn from_json(value: &Value) -> Option<Self> {
        Self::from_counts(
            value["prompt_tokens"].as_u64(),
            value["completion_tokens"].as_u64(),
        )
    }

    /// The usage of a call whose provider counted either side; `None` when it counted neither.
    pub fn from_counts(prompt: Option<u64>, completion: Option<u64>) -> Option<Self> {
        (prompt.is_some() || completion.is_some()).then(|| Self {
            prompt_tokens: prompt.unwrap_or(0),
            completion_tokens: completion.unwrap_or(0),
        })
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }
}

/// What the session knows beyond the request, for a provider that narrows its answers with it:
/// the local model builds its grammar and its prompt from it (the paths that exist, the calls
/// that just failed). Providers that need nothing of it ignore it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionView {
    /// The session's working directory, which relative paths name.
    pub workspace: Option<std::path::PathBuf>,
    /// The previous step's calls that failed (an error, or refused), which the next answer
    /// should not repeat unchanged.
    pub failed_calls: Vec<ToolCall>,
}

/// Set from outside (Ctrl-C) to stop a call in flight; providers look at it between the
/// pieces of an answer.
pub type CancelFlag = std::sync::Arc<std::sync::atomic::AtomicBool>;

fn is_set(flag: Option<&CancelFlag>) -> bool {
    flag.is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The provider could not be set up (bad file, unknown model name): fix and retry.
    #[error("{0}")]
    Setup(String),
    /// The provider has nothing more to say (a script ran out).
    #[error("{0}")]
    Exhausted(String),
    /// The request was too long for the model's context (system-notes.md N18).
    #[error("the request is longer than the model's context window: {0}")]
    ContextOverflow(String),
    /// The API refused one tool message of the request (an unknown call id, content it will
    /// not take): keel records a `[TOOL_OUTPUT_STATUS]` diagnostic in its place and runs
    /// nothing again (notifications.md N16a).
    #[error("the model API rejected the result of tool call {call_id}: {message}")]
    ToolResultRejected { call_id: String, message: String },
    #[error("the model call failed: {0}")]
    Failed(String),
    /// The endpoint answered with an HTTP error status (after any retries); `message` says
    /// what it was and what to do. Kept apart so a caller that reports statuses (computer
    /// use's `COMPUTER_MODEL_HTTP_<status>`) need not read it out of prose.
    #[error("the model call failed: {message}")]
    Http { status: u16, message: String },
    /// Stopped on request while the model was answering; nothing of the answer is used.
    #[error("the model call was cancelled")]
    Cancelled,
    /// The request is not one a model API would take ([`wire::check`]), so it was not
    /// answered: the scripted provider refuses it, as a strict API would, naming every
    /// violation. It is keel's bug, not the model's.
    #[error("{0}")]
    Malformed(wire::MalformedRequest),
}

// Not `#[from]`: that would make the violations the error's source too, and a report of the
// chain would list them twice.
impl From<wire::MalformedRequest> for ModelError {
    fn from(e: wire::MalformedRequest) -> Self {
        ModelError::Malformed(e)
    }
}

/// A language model, as keel uses it.
pub trait Model {
    /// A short name for logs and `keel runs show` (`script:demo.jsonl`, `openai:gpt-4o`).
    fn name(&self) -> &str;

    /// The model's context window in tokens, when the provider knows it. Compaction starts
    /// from it unless `[compaction] context_window` says otherwise.
    fn context_window(&self) -> Option<u64> {
        None
    }

    /// Gives the provider a flag to watch during calls: once set, a call in flight stops with
    /// [`ModelError::Cancelled`] at its next chance. Providers that answer at once ignore it.
    fn watch_cancel(&mut self, _flag: CancelFlag) {}

    /// Tells the provider about the session before the next call (see [`SessionView`]). The
    /// turn loop calls it before each step; providers that answer from the request alone
    /// ignore it.
    fn observe_session(&mut self, _view: &SessionView) {}

    /// One call. `on_text` receives reply text as it streams.
    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError>;

    /// One call whose last message also shows `images` (PNG files), for models that see
    /// (computer use's screenshots). The images go with this request only and are never
    /// kept. A provider that cannot send images refuses, saying so.
    fn complete_with_images(
        &mut self,
        request: &ModelRequest,
        images: &[&[u8]],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        let _ = (request, images, on_text);
        Err(ModelError::Setup(format!(
            "{} cannot be sent images",
            self.name()
        )))
    }
}

/// Standard base64 with padding (RFC 4648 §4): how an image travels in a data URL.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod base64_tests {
    #[test]
    fn rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), encoded);
        }
        assert_eq!(super::base64(&[0xff, 0xfe, 0x00]), "//4A");
    }
}
