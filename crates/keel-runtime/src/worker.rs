//! The summary worker (bridge.md N20–N22, §3.7): one model call on instruction + source, with
//! a deadline, whose failures are named so the user knows what to do next. The handoff preview
//! uses it with the worker model; compaction asks the run's own model the same way.

use std::sync::mpsc;
use std::time::Duration;

use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_core::text::is_blank;
use keel_model::{Model, ModelError};

/// How long the worker may take (N21); `[handoff] worker_timeout_secs` changes it (N40).
pub const DEFAULT_WORKER_TIMEOUT: Duration = Duration::from_secs(180);

/// Why the worker gave no summary. The names are the spec's (N22, §3.7).
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(
        "worker-empty: the worker model ({model}) answered with no text, so there is no \
         summary. Try again, or use a stronger model"
    )]
    Empty { model: String },
    #[error(
        "worker-timeout: the worker model ({model}) did not answer within {secs} s and was \
         abandoned. Raise [handoff] worker_timeout_secs, lower --source-budget, or use a faster \
         --worker-model"
    )]
    Timeout { model: String, secs: u64 },
    #[error("worker-failed: the worker model ({model}) failed: {source}")]
    Failed { model: String, source: ModelError },
}

impl WorkerError {
    /// The spec's name of the failure.
    pub fn name(&self) -> &'static str {
        match self {
            WorkerError::Empty { .. } => "worker-empty",
            WorkerError::Timeout { .. } => "worker-timeout",
            WorkerError::Failed { .. } => "worker-failed",
        }
    }
}

fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        messages: vec![ChatMessage::text(Role::User, prompt)],
    }
}

/// One worker call on `model`, in this thread (no tools are offered).
pub fn ask(model: &mut dyn Model, prompt: &str) -> Result<String, WorkerError> {
    let name = model.name().to_string();
    let reply = model
        .complete(&request(prompt), &[], &mut |_| {})
        .map_err(|source| WorkerError::Failed {
            model: name.clone(),
            source,
        })?;
    if is_blank(&reply.text) {
        return Err(WorkerError::Empty { model: name });
    }
    Ok(reply.text)
}

/// [`ask`] with a deadline. The call runs on its own thread; at the deadline keel stops
/// waiting and the thread is abandoned with whatever it holds (the CLI exits right after).
/// `on_wait` is called about once a second with the seconds waited, for progress.
pub fn ask_with_timeout(
    mut model: Box<dyn Model + Send>,
    prompt: String,
    timeout: Duration,
    on_wait: &mut dyn FnMut(u64),
) -> Result<String, WorkerError> {
    let name = model.name().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(ask(model.as_mut(), &prompt));
    });
    let started = std::time::Instant::now();
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(WorkerError::Timeout {
                model: name,
                secs: timeout.as_secs(),
            });
        }
        match rx.recv_timeout(left.min(Duration::from_secs(1))) {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Timeout) => on_wait(started.elapsed().as_secs()),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(WorkerError::Failed {
                    model: name,
                    source: ModelError::Failed(
                        "the worker thread stopped without an answer".into(),
                    ),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use keel_model::scripted::ScriptedModel;

    use super::*;

    fn script(lines: &str) -> Box<dyn Model + Send> {
        Box::new(ScriptedModel::parse("script:w", lines).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn n40_the_default_worker_timeout_is_180_seconds() {
        assert_eq!(DEFAULT_WORKER_TIMEOUT, Duration::from_secs(180));
    }

    #[test]
    fn each_failure_has_its_own_name() {
        let none = &mut |_| {};
        let ok = ask_with_timeout(
            script("{\"text\":\"S\"}"),
            "p".into(),
            DEFAULT_WORKER_TIMEOUT,
            none,
        );
        assert_eq!(ok.ok().as_deref(), Some("S"));
        let cases = [
            ("{\"text\":\"  \\n\"}", "worker-empty"),
            (
                "{\"error\":\"failed\",\"message\":\"HTTP 500\"}",
                "worker-failed",
            ),
            ("", "worker-failed"),
            ("{\"text\":\"late\",\"delay_ms\":2000}", "worker-timeout"),
        ];
        for (lines, want) in cases {
            let err = ask_with_timeout(script(lines), "p".into(), Duration::from_millis(200), none)
                .err()
                .unwrap_or_else(|| panic!("{lines} should fail"));
            assert_eq!(err.name(), want, "{lines}");
            assert!(err.to_string().starts_with(want), "{err}");
            assert!(err.to_string().contains("script:w"), "{err}");
        }
    }
}
