//! The summary worker (bridge.md N20–N22, §3.7): one model call on instruction + source, with
//! a deadline, whose failures are named so the user knows what to do next. The handoff preview
//! uses it with the worker model; compaction asks the run's own model the same way.
//!
//! [`draft`] and [`draft_with_timeout`] are the model step of keel-core's draft pipeline
//! (`keel_core::draft`): the job's prompt goes to the worker, and its answer comes back only
//! as a finished draft, or as a named failure — an answer that is not a summary (an echo of
//! the instruction, missing sections) is `draft-rejected`, never a draft.

use std::sync::mpsc;
use std::time::Duration;

use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_core::draft::{DraftJob, Rejection};
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
    /// The worker answered, but not with a summary. Its answer is not used: the caller
    /// says what to do instead (write the draft, or a worker model that can follow the
    /// instruction).
    #[error("draft-rejected: the worker model ({model}) did not write a summary: {reason}")]
    Rejected { model: String, reason: Rejection },
}

impl WorkerError {
    /// The spec's name of the failure.
    pub fn name(&self) -> &'static str {
        match self {
            WorkerError::Empty { .. } => "worker-empty",
            WorkerError::Timeout { .. } => "worker-timeout",
            WorkerError::Failed { .. } => "worker-failed",
            WorkerError::Rejected { .. } => "draft-rejected",
        }
    }
}

/// The worker call, shaped as every request keel sends (interfaces.md §4): exactly one
/// `system` message at index 0, then the conversation. The system message is blank, as
/// compose's is when every block is: the instruction travels with the source in the one user
/// message (bridge.md N20, "prompt it with instruction + source"). Without it the request had
/// no system message at all, which the request check (`keel_model::wire`) refuses, and a
/// server's chat template would put its own default system prompt there.
fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        messages: vec![
            ChatMessage::text(Role::System, ""),
            ChatMessage::text(Role::User, prompt),
        ],
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

/// The draft of `job` by `model`, in this thread: [`ask`], then the job's check and finish.
pub fn draft(model: &mut dyn Model, job: &DraftJob) -> Result<String, WorkerError> {
    let name = model.name().to_string();
    let answer = ask(model, &job.prompt)?;
    job.finish(&answer).map_err(|reason| WorkerError::Rejected {
        model: name,
        reason,
    })
}

/// [`draft`] with a deadline, as [`ask_with_timeout`].
pub fn draft_with_timeout(
    model: Box<dyn Model + Send>,
    job: &DraftJob,
    timeout: Duration,
    on_wait: &mut dyn FnMut(u64),
) -> Result<String, WorkerError> {
    let name = model.name().to_string();
    let answer = ask_with_timeout(model, job.prompt.clone(), timeout, on_wait)?;
    job.finish(&answer).map_err(|reason| WorkerError::Rejected {
        model: name,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use keel_model::scripted::ScriptedModel;

    use super::*;

    fn script(lines: &str) -> Box<dyn Model + Send> {
        Box::new(ScriptedModel::parse("script:w", lines).unwrap_or_else(|e| panic!("{e}")))
    }

    fn job() -> DraftJob {
        let messages = [keel_core::bridge::message::ChatMessage {
            role: "user".into(),
            content: "Build a CLI. Do not use any tools.".into(),
            ..Default::default()
        }];
        keel_core::draft::prepare(keel_core::draft::DraftRequest {
            messages: &messages,
            whole_run: &messages,
            prior: None,
            conversation: Default::default(),
            lang: None,
            source_char_budget: None,
            purpose: keel_core::draft::Purpose::Handoff {
                summary_char_budget: None,
            },
        })
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_draft_is_checked_before_it_is_finished() {
        let job = job();
        let none = &mut |_| {};
        let good = "Goal: a CLI\nCurrent state: none\nKey decisions: none\nKey files: none\nNext \
                    step: start";
        let line = serde_json::json!({ "text": good }).to_string();
        let finished = draft_with_timeout(script(&line), &job, DEFAULT_WORKER_TIMEOUT, none);
        assert_eq!(
            finished.ok(),
            Some(format!(
                "{good}\n\n## Active user constraints\n- Do not use any tools"
            ))
        );
        // The embedded worker's failure: the instruction's first line back.
        let first = job.instruction.lines().next().unwrap_or_default();
        let echo = serde_json::json!({ "text": first }).to_string();
        let mut model = script(&echo);
        let err = draft(model.as_mut(), &job)
            .err()
            .unwrap_or_else(|| panic!("an echo became a draft"));
        assert_eq!(err.name(), "draft-rejected");
        assert!(
            err.to_string().starts_with(
                "draft-rejected: the worker model (script:w) did not write a summary: it \
                 repeats its instruction back"
            ),
            "{err}"
        );
        let err = draft_with_timeout(
            script("{\"text\":\"Goal: a CLI\"}"),
            &job,
            DEFAULT_WORKER_TIMEOUT,
            none,
        )
        .err()
        .unwrap_or_else(|| panic!("a draft without sections passed"));
        assert!(
            matches!(&err, WorkerError::Rejected { reason: Rejection::MissingSections { missing }, .. } if missing.len() == 4),
            "{err}"
        );
        // The worker's own failures keep their names.
        let err = draft_with_timeout(
            script("{\"text\":\" \"}"),
            &job,
            DEFAULT_WORKER_TIMEOUT,
            none,
        );
        assert_eq!(err.err().map(|e| e.name()), Some("worker-empty"));
    }

    /// The spec fixes it: the preview's worker times out after 180 s (bridge.md N21), and one
    /// unit test asserts each default (N40).
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
