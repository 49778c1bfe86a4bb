//! keel-worker-protocol: what keel and `keel-llm-worker` say to each other, as serde types.
//!
//! keel-model's `local` provider starts the worker with `--model PATH.gguf [--ctx N]
//! [--threads N]`, reads one [`Started`] line (the worker is [`Ready`], or it [`Failure`]d to
//! load), then writes one [`Request`] per line and reads one [`Response`] per line:
//!
//! ```text
//! ← {"ready": true, "n_ctx": N, "model": "PATH"}
//! → {"messages": [{"role", "content"}...], "grammar": "GBNF" | null, "max_tokens": N}
//! ← {"text": "...", "finished": bool, "prompt_tokens": N, "completion_tokens": N, "reused_tokens": N}
//! ← {"error": "...", "kind": "context_overflow" | "bad_request" | "failed"}
//! ```
//!
//! A crate of its own, with serde alone, so that both sides share one definition without the
//! worker linking keel-model's HTTP stack or keel-model linking llama.cpp. Fields serialize
//! in the order written here, which is the order on the wire. What keel reads is read
//! leniently, as it always was: a field the worker leaves out takes its default, and a
//! failure `kind` keel does not know is a plain failure.

#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

/// The context window the worker is asked for (and uses without `--ctx`), in tokens; llama.cpp
/// caps it at what the model was trained on.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 8192;
/// The longest answer, in tokens, when a request does not say.
pub const DEFAULT_MAX_TOKENS: usize = 512;

/// One message of the conversation, as the model's chat template takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// One request, one line on the worker's stdin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub messages: Vec<Message>,
    /// GBNF the sampler must follow (keel builds it from the offered tools); `null`: none.
    pub grammar: Option<String>,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
}

fn default_max_tokens() -> usize {
    DEFAULT_MAX_TOKENS
}

/// The worker's first line when the model has loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    pub ready: bool,
    /// The context window it has, after llama.cpp's cap.
    #[serde(default)]
    pub n_ctx: Option<u64>,
    /// The model file it loaded.
    #[serde(default)]
    pub model: String,
}

/// What went wrong, for keel to tell apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The prompt and the longest answer do not fit the context window: keel compacts.
    ContextOverflow,
    /// The request, or the command line, cannot be used.
    BadRequest,
    /// Anything else (llama.cpp failed, the model did not load).
    #[default]
    #[serde(other)]
    Failed,
}

/// A failure line: in place of the ready line (then the worker exits) or of an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub error: String,
    #[serde(default)]
    pub kind: FailureKind,
}

/// A generated answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Answer {
    pub text: String,
    /// The model ended the answer itself, rather than running out of `max_tokens`.
    pub finished: bool,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// How many prompt tokens came from the cache of the previous request.
    pub reused_tokens: Option<u64>,
}

/// The first line: the worker is ready, or could not start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Started {
    Ready(Ready),
    Failed(Failure),
}

/// The line that answers a request: a failure when it has an `error`, else an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Response {
    Failed(Failure),
    Answered(Answer),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: &impl Serialize) -> String {
        serde_json::to_string(v).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn lines_are_the_bytes_keel_and_the_worker_have_always_exchanged() {
        // What each side wrote with `json!` before these types existed.
        let request = Request {
            messages: vec![Message {
                role: "user".into(),
                content: "hi \"there\"\n".into(),
            }],
            grammar: Some("root ::= \"a\"".into()),
            max_tokens: 96,
        };
        assert_eq!(
            line(&request),
            json!({
                "messages": [{"role": "user", "content": "hi \"there\"\n"}],
                "grammar": "root ::= \"a\"",
                "max_tokens": 96,
            })
            .to_string()
        );
        let ready = Ready {
            ready: true,
            n_ctx: Some(2048),
            model: "/m/x.gguf".into(),
        };
        assert_eq!(
            line(&ready),
            r#"{"ready":true,"n_ctx":2048,"model":"/m/x.gguf"}"#
        );
        let answer = Answer {
            text: "{\"reply\": \"ok\"}".into(),
            finished: true,
            prompt_tokens: Some(30),
            completion_tokens: Some(7),
            reused_tokens: Some(0),
        };
        assert_eq!(
            line(&answer),
            r#"{"text":"{\"reply\": \"ok\"}","finished":true,"prompt_tokens":30,"completion_tokens":7,"reused_tokens":0}"#
        );
        for (kind, name) in [
            (FailureKind::ContextOverflow, "context_overflow"),
            (FailureKind::BadRequest, "bad_request"),
            (FailureKind::Failed, "failed"),
        ] {
            let failure = Failure {
                error: "no".into(),
                kind,
            };
            assert_eq!(
                line(&failure),
                format!(r#"{{"error":"no","kind":"{name}"}}"#)
            );
        }
    }

    #[test]
    fn keel_reads_what_the_worker_leaves_out_as_it_always_did() -> serde_json::Result<()> {
        let r: Request = serde_json::from_str(r#"{"messages":[],"grammar":null}"#)?;
        assert_eq!((r.grammar, r.max_tokens), (None, DEFAULT_MAX_TOKENS));
        match serde_json::from_str(r#"{"ready":true,"n_ctx":512}"#)? {
            Started::Ready(r) => assert_eq!((r.ready, r.n_ctx), (true, Some(512))),
            other => panic!("{other:?}"),
        }
        match serde_json::from_str(r#"{"error":"bad magic","kind":"failed"}"#)? {
            Started::Failed(f) => assert_eq!(f.error, "bad magic"),
            other => panic!("{other:?}"),
        }
        // An answer without its counts; usage stays unknown.
        match serde_json::from_str(r#"{"text":"x","finished":true,"prompt_tokens":3}"#)? {
            Response::Answered(a) => {
                assert_eq!((a.text.as_str(), a.finished), ("x", true));
                assert_eq!((a.prompt_tokens, a.completion_tokens), (Some(3), None));
            }
            other => panic!("{other:?}"),
        }
        // A kind keel does not know, or none, is a failure.
        for text in [r#"{"error":"e","kind":"new_kind"}"#, r#"{"error":"e"}"#] {
            match serde_json::from_str(text)? {
                Response::Failed(f) => assert_eq!(f.kind, FailureKind::Failed, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let overflow: Response =
            serde_json::from_str(r#"{"error":"e","kind":"context_overflow"}"#)?;
        assert!(matches!(
            overflow,
            Response::Failed(Failure {
                kind: FailureKind::ContextOverflow,
                ..
            })
        ));
        assert!(serde_json::from_str::<Response>("not json").is_err());
        Ok(())
    }
}
