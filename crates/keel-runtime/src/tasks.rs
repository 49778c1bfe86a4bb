//! Background tasks: `spawn_task` starts a subagent run beside its parent, and what the
//! subagent needs from the parent's person comes back as data, never as authority.
//!
//! - The task's end — `completed`, `failed` or `cancelled`, never upgraded to success — is
//!   queued for the parent as a `task_result` notification `{run_id, status, result}`.
//! - The task's ask_user decisions are queued for the parent as `permission` notifications
//!   `{request_id, run_id, tool, args, reason}`. The task waits. Only `respond_permission
//!   {request_id, decision}` answers one, and the gate's authority stage refuses it (like every
//!   call) in a response to a notification, so the answer can only follow a real user turn of
//!   the parent. No answer within the timeout is a deny.
//!
//! Everything here is in-process: a task is a thread of the live run process, with its own
//! store connection, model and gate (made by the [`Spawner`] the caller gives), and the
//! [`TaskHub`] is how the threads meet. keel sets `automatic_delivery_failed` nowhere: it has no
//! automatic approval (notifications.md N35).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use keel_core::ToolCall;
use keel_core::notify::NotificationKind;
use keel_model::ToolSpec;
use keel_store::{Answer, NewNotification, Store};
use serde_json::{Map, Value, json};

use crate::approval::Approver;
use crate::tools::{Tool, ToolContext, ToolOutput};

/// Default wait of a task for the parent's answer to one permission request.
pub const DEFAULT_PERMISSION_TIMEOUT: Duration = Duration::from_secs(600);

/// How a task ended (notifications.md: a `task_result` never reports more than happened).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskStatus {
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task's end: its status and what it said (its final answer, or why it failed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskEnd {
    pub status: TaskStatus,
    pub result: String,
}

/// One permission request waiting for the parent's person.
struct Pending {
    parent: String,
    answer: Option<Answer>,
}

#[derive(Default)]
struct HubState {
    /// Running tasks by child run id, with their parent.
    running: HashMap<String, String>,
    pending: HashMap<String, Pending>,
}

/// Where a run process's tasks and their permission requests meet. Cheap to clone: every
/// clone is the same hub.
#[derive(Clone, Default)]
pub struct TaskHub {
    inner: Arc<(Mutex<HubState>, Condvar)>,
}

impl TaskHub {
    fn state(&self) -> MutexGuard<'_, HubState> {
        // A thread that panicked while holding the lock left consistent maps behind: every
        // change is a single insert or remove.
        self.inner
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn changed(&self) {
        self.inner.1.notify_all();
    }

    /// Tasks of `parent` still running.
    pub fn running(&self, parent: &str) -> usize {
        self.state()
            .running
            .values()
            .filter(|p| *p == parent)
            .count()
    }

    /// Permission requests of `parent`'s tasks not answered yet.
    pub fn waiting_requests(&self, parent: &str) -> Vec<String> {
        let mut ids: Vec<String> = self
            .state()
            .pending
            .iter()
            .filter(|(_, p)| p.parent == parent && p.answer.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// Waits until something changes (a task ends, a request opens or is answered), or
    /// `timeout` passes.
    pub fn wait_for_change(&self, timeout: Duration) {
        let guard = self.state();
        let _ = self.inner.1.wait_timeout(guard, timeout);
    }

    pub fn task_started(&self, parent: &str, child: &str) {
        self.state()
            .running
            .insert(child.to_string(), parent.to_string());
        self.changed();
    }

    /// Whether task `child` runs in this process.
    pub fn is_running(&self, child: &str) -> bool {
        self.state().running.contains_key(child)
    }

    pub fn task_ended(&self, child: &str) {
        self.state().running.remove(child);
        self.changed();
    }

    fn open_request(&self, parent: &str, request_id: &str) {
        self.state().pending.insert(
            request_id.to_string(),
            Pending {
                parent: parent.to_string(),
                answer: None,
            },
        );
        self.changed();
    }

    /// The answer to `request_id` once given, or `None` after `timeout`. The request is
    /// closed either way: a late answer finds nothing to answer.
    fn wait_answer(&self, request_id: &str, timeout: Duration) -> Option<Answer> {
        let deadline = Instant::now() + timeout;
        let mut state = self.state();
        loop {
            if let Some(answer) = state.pending.get(request_id).and_then(|p| p.answer) {
                state.pending.remove(request_id);
                drop(state);
                self.changed();
                return Some(answer);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.pending.remove(request_id);
                drop(state);
                self.changed();
                return None;
            }
            state = self
                .inner
                .1
                .wait_timeout(state, left)
                .map(|(s, _)| s)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Answers one request of `parent`'s tasks. Err says why it cannot be answered.
    pub fn answer(&self, parent: &str, request_id: &str, answer: Answer) -> Result<(), String> {
        let mut state = self.state();
        let Some(pending) = state.pending.get_mut(request_id) else {
            return Err(format!(
                "there is no open permission request {request_id:?}: it was answered, timed out, \
                 or never existed"
            ));
        };
        if pending.parent != parent {
            return Err(format!(
                "permission request {request_id:?} belongs to another run's task"
            ));
        }
        if pending.answer.is_some() {
            return Err(format!(
                "permission request {request_id:?} was already answered"
            ));
        }
        pending.answer = Some(answer);
        drop(state);
        self.changed();
        Ok(())
    }
}

/// The `task_result` payload.
pub fn task_result_payload(child: &str, end: &TaskEnd) -> String {
    json!({"run_id": child, "status": end.status.as_str(), "result": end.result}).to_string()
}

/// The id of a task's `task_result` notification: one per task, so a result queued twice is
/// delivered once (notifications.md N27a).
pub fn task_result_id(child: &str) -> String {
    format!("task-result-{child}")
}

/// Queues a task's end for its parent and marks it ended. The notification's id is the child
/// run's, so a task's result is delivered once even if this is called again.
pub fn finish_task(
    store: &mut dyn Store,
    hub: &TaskHub,
    parent: &str,
    child: &str,
    end: &TaskEnd,
    now: keel_core::Timestamp,
) -> Result<(), keel_store::StoreError> {
    let queued = store.enqueue_notification(
        parent,
        NewNotification {
            id: task_result_id(child),
            kind: NotificationKind::TaskResult,
            payload: task_result_payload(child, end),
            now,
        },
    );
    hub.task_ended(child);
    queued.map(|_| ())
}

/// Tasks of `parent` whose end was never reported: a process that ran them stopped (a crash,
/// a kill) before they finished. Each gets its `task_result` now, `failed` with what is known,
/// so the parent is never left waiting and nothing is reported as done; `on_reported` hears
/// each as it is reported. Returns how many.
pub fn report_orphaned_tasks(
    store: &mut dyn Store,
    hub: &TaskHub,
    parent: &str,
    now: keel_core::Timestamp,
    on_reported: &mut dyn FnMut(&str),
) -> Result<usize, keel_store::StoreError> {
    let origin = format!("task of {parent}");
    let reported: std::collections::HashSet<String> = store
        .notifications(parent)?
        .into_iter()
        .map(|n| n.id)
        .collect();
    let orphans: Vec<String> = store
        .list_runs()?
        .into_iter()
        .filter(|r| r.head.origin.as_deref() == Some(origin.as_str()))
        .map(|r| r.head.id)
        .filter(|child| !hub.is_running(child))
        .filter(|child| !reported.contains(&task_result_id(child)))
        .collect();
    for child in &orphans {
        let end = TaskEnd {
            status: TaskStatus::Failed,
            result: format!(
                "the keel process running this task stopped before it finished; whatever it did \
                 is in its own run (`keel runs show {child}`), and `keel runs resume {child}` \
                 continues it"
            ),
        };
        finish_task(store, hub, parent, child, &end, now)?;
        on_reported(child);
    }
    Ok(orphans.len())
}

/// A task's ask_user: queued for the parent as a `permission` notification, then waited for.
pub struct PermissionApprover<'s> {
    pub store: &'s mut dyn Store,
    pub hub: TaskHub,
    pub parent: String,
    /// The task's own run.
    pub child: String,
    pub timeout: Duration,
    pub next_request_id: Box<dyn FnMut() -> String + 's>,
    pub now: fn() -> keel_core::Timestamp,
}

impl Approver for PermissionApprover<'_> {
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        let request_id = (self.next_request_id)();
        let payload = json!({
            "request_id": request_id,
            "run_id": self.child,
            "tool": call.name,
            "args": call.arguments,
            "reason": reasons.join("; "),
        })
        .to_string();
        // Open before queueing: an answer may come as soon as the parent sees it.
        self.hub.open_request(&self.parent, &request_id);
        let queued = self.store.enqueue_notification(
            &self.parent,
            NewNotification {
                id: request_id.clone(),
                kind: NotificationKind::Permission,
                payload,
                now: (self.now)(),
            },
        );
        if queued.is_err() {
            // Nobody can be asked: fail closed.
            let _ = self.hub.wait_answer(&request_id, Duration::ZERO);
            return Answer::Deny;
        }
        match self.hub.wait_answer(&request_id, self.timeout) {
            // "For this run" is the parent's person's to give for their own run, not a
            // standing grant to a task: a task's allowance is always for this call.
            Some(Answer::AllowForRun | Answer::AllowOnce) => Answer::AllowOnce,
            Some(Answer::Deny | Answer::DenyForRun) | None => Answer::Deny,
        }
    }
}

/// Starts one task: creates its run and its thread, and returns the child run's id. Given by
/// the caller, which knows how a run is set up (store, model, gate, tools).
pub type Spawner = Arc<dyn Fn(&TaskRequest) -> Result<String, String> + Send + Sync>;

/// What `spawn_task` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRequest {
    pub parent: String,
    pub task: String,
}

fn side_effect_annotations() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("readOnlyHint".into(), Value::Bool(false));
    m.insert("destructiveHint".into(), Value::Bool(false));
    m.insert("openWorldHint".into(), Value::Bool(false));
    m
}

/// The `spawn_task` tool.
pub struct SpawnTask {
    spawner: Spawner,
}

impl SpawnTask {
    pub fn new(spawner: Spawner) -> Self {
        Self { spawner }
    }
}

impl Tool for SpawnTask {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "spawn_task".into(),
            description: "Start a subagent on a task in the background. It works on its own \
                          run with the same tools and policy; its result arrives later as a \
                          task_result notification, and anything it needs your user to allow \
                          arrives as a permission notification."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"task": {"type": "string", "description": "What the subagent should do, in full."}},
                "required": ["task"],
                "additionalProperties": false
            }),
        }
    }

    fn annotations(&self) -> Map<String, Value> {
        side_effect_annotations()
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let task = match args.get("task").and_then(Value::as_str) {
            Some(t) if !keel_core::text::is_blank(t) => t.to_string(),
            _ => return ToolOutput::error("`task` must be a non-blank string"),
        };
        match (self.spawner)(&TaskRequest {
            parent: ctx.run_id.clone(),
            task,
        }) {
            Ok(child) => ToolOutput::ok(format!(
                "Task started in the background as run {child}. Its result will arrive as a \
                 task_result notification; do not wait for it by calling tools."
            )),
            Err(why) => ToolOutput::error(format!("the task could not be started: {why}")),
        }
    }
}

/// The `respond_permission` tool.
pub struct RespondPermission {
    hub: TaskHub,
}

impl RespondPermission {
    pub fn new(hub: TaskHub) -> Self {
        Self { hub }
    }
}

impl Tool for RespondPermission {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "respond_permission".into(),
            description: "Answer a background task's permission request with the user's \
                          decision. Only ever on the user's own word in this conversation."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "request_id": {"type": "string"},
                    "decision": {"type": "string", "enum": ["allow", "deny"]}
                },
                "required": ["request_id", "decision"],
                "additionalProperties": false
            }),
        }
    }

    fn annotations(&self) -> Map<String, Value> {
        side_effect_annotations()
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        let Some(request_id) = args.get("request_id").and_then(Value::as_str) else {
            return ToolOutput::error("`request_id` must be a string");
        };
        let answer = match args.get("decision").and_then(Value::as_str) {
            Some("allow") => Answer::AllowOnce,
            Some("deny") => Answer::Deny,
            _ => return ToolOutput::error("`decision` must be \"allow\" or \"deny\""),
        };
        match self.hub.answer(&ctx.run_id, request_id, answer) {
            Ok(()) => ToolOutput::ok(format!(
                "permission request {request_id} answered: {}",
                if answer == Answer::Deny {
                    "denied"
                } else {
                    "allowed, for that one call"
                }
            )),
            Err(why) => ToolOutput::error(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reaches_the_waiting_task_once_and_only_from_its_parent() {
        let hub = TaskHub::default();
        hub.open_request("parent", "p1");
        assert_eq!(hub.waiting_requests("parent"), vec!["p1".to_string()]);
        let err = hub.answer("other", "p1", Answer::AllowOnce).err();
        assert!(err.is_some_and(|e| e.contains("another run")));
        let waiter = {
            let hub = hub.clone();
            std::thread::spawn(move || hub.wait_answer("p1", Duration::from_secs(10)))
        };
        assert_eq!(hub.answer("parent", "p1", Answer::AllowOnce), Ok(()));
        assert_eq!(waiter.join().ok().flatten(), Some(Answer::AllowOnce));
        // Closed once answered.
        let again = hub.answer("parent", "p1", Answer::Deny).err();
        assert!(again.is_some_and(|e| e.contains("no open permission request")));
    }

    #[test]
    fn no_answer_in_time_closes_the_request() {
        let hub = TaskHub::default();
        hub.open_request("parent", "p2");
        assert_eq!(hub.wait_answer("p2", Duration::from_millis(20)), None);
        assert!(hub.waiting_requests("parent").is_empty());
        assert!(hub.answer("parent", "p2", Answer::AllowOnce).is_err());
    }

    #[test]
    fn timeout_default_and_status_names() {
        assert_eq!(DEFAULT_PERMISSION_TIMEOUT, Duration::from_secs(600));
        let names: Vec<&str> = [
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .iter()
        .map(|s| s.as_str())
        .collect();
        assert_eq!(names, ["completed", "failed", "cancelled"]);
        assert_eq!(
            task_result_payload(
                "run-c",
                &TaskEnd {
                    status: TaskStatus::Failed,
                    result: "boom".into()
                }
            ),
            r#"{"run_id":"run-c","status":"failed","result":"boom"}"#
        );
    }
}
