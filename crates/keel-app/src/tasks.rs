//! Background tasks of a session: how a `spawn_task` call becomes a child run on a thread of
//! this process (keel-runtime's `tasks` module has the protocol: the hub, the permission
//! approver, the two tools).
//!
//! A task is set up like any run — the same configuration, policy and tools (without
//! `spawn_task` and `respond_permission`: tasks do not nest) — on `[tasks] model`, or its
//! parent's model. Its ask_user goes to the parent as a `permission` notification. However it
//! ends, even by a panic, a `task_result` is queued for the parent.

use std::sync::Arc;

use keel_runtime::agent::LoopError;
use keel_runtime::tasks::{
    PermissionApprover, Spawner, TaskEnd, TaskHub, TaskRequest, TaskStatus, finish_task,
};
use keel_store::{NewRun, RunStore, SqliteStore};

use crate::session::{Notices, Session};
use crate::{AppError, ids};

/// Builds the session of a task's child run, given the child run's id.
pub type ChildSessions = Arc<dyn Fn(&str) -> Result<Session, AppError> + Send + Sync>;

/// What a session's background tasks need from it, handed over when it is built (so that this
/// module needs only a way to build a child session, not the builder).
#[derive(Clone)]
pub struct TaskContext {
    pub db: std::path::PathBuf,
    pub store_options: keel_store::StoreOptions,
    /// `[tasks] model`: the model of every task, else its parent's.
    pub model: Option<String>,
    pub permission_timeout: std::time::Duration,
    pub notices: Notices,
    pub build_child: ChildSessions,
}

/// The spawner `spawn_task` calls: creates the child run and starts its thread.
pub(crate) fn spawner(builder: TaskContext, hub: &TaskHub) -> Spawner {
    let hub = hub.clone();
    Arc::new(move |request: &TaskRequest| {
        let mut store =
            SqliteStore::open(&builder.db, &builder.store_options).map_err(|e| e.to_string())?;
        let parent = store.run_head(&request.parent).map_err(|e| e.to_string())?;
        let child = ids::unique("run");
        store
            .create_run(NewRun {
                id: child.clone(),
                preset: parent.preset.clone(),
                model: builder.model.clone().unwrap_or(parent.model),
                origin: Some(format!("task of {}", request.parent)),
                // A task works where its parent does.
                cwd: parent.cwd,
                open_turn: false,
                now: ids::now(),
                note_ops: vec![],
                items: vec![],
            })
            .map_err(|e| e.to_string())?;
        hub.task_started(&request.parent, &child);
        let job = Job {
            builder: builder.clone(),
            hub: hub.clone(),
            parent: request.parent.clone(),
            child: child.clone(),
            task: request.task.clone(),
        };
        let started = std::thread::Builder::new()
            .name(format!("task {child}"))
            .spawn(move || job.run_and_report());
        match started {
            Ok(_) => Ok(child),
            Err(e) => {
                let end = TaskEnd {
                    status: TaskStatus::Failed,
                    result: format!("the task's thread could not start: {e}"),
                };
                let _ = finish_task(&mut store, &hub, &request.parent, &child, &end, ids::now());
                Err(end.result)
            }
        }
    })
}

/// One task, on its own thread.
struct Job {
    builder: TaskContext,
    hub: TaskHub,
    parent: String,
    child: String,
    task: String,
}

impl Job {
    fn run_and_report(self) {
        let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run()))
            .unwrap_or_else(|_| TaskEnd {
                status: TaskStatus::Failed,
                result: "the task stopped on an internal error (a panic)".into(),
            });
        (self.builder.notices)(&format!(
            "background task {} {}",
            self.child,
            end.status.as_str()
        ));
        let reported = SqliteStore::open(&self.builder.db, &self.builder.store_options)
            .map_err(|e| e.to_string())
            .and_then(|mut store| {
                finish_task(
                    &mut store,
                    &self.hub,
                    &self.parent,
                    &self.child,
                    &end,
                    ids::now(),
                )
                .map_err(|e| e.to_string())
            });
        if let Err(e) = reported {
            self.hub.task_ended(&self.child);
            (self.builder.notices)(&format!(
                "the result of background task {} could not be queued for run {}: {e}",
                self.child, self.parent
            ));
        }
    }

    fn run(&self) -> TaskEnd {
        let failed = |why: String| TaskEnd {
            status: TaskStatus::Failed,
            result: why,
        };
        // The child's model and preset are the ones recorded with its run; ask_user is asked
        // (of the parent's person, through the parent), never turned into a silent deny.
        let mut s = match (self.builder.build_child)(&self.child) {
            Ok(s) => s,
            Err(e) => return failed(format!("the task could not be set up: {}", chain(&e))),
        };
        let mut permission_store =
            match SqliteStore::open(&self.builder.db, &self.builder.store_options) {
                Ok(store) => store,
                Err(e) => return failed(format!("the task could not open the store: {e}")),
            };
        let approver = PermissionApprover {
            store: &mut permission_store,
            hub: self.hub.clone(),
            parent: self.parent.clone(),
            child: self.child.clone(),
            timeout: self.builder.permission_timeout,
            next_request_id: Box::new(|| ids::unique("perm")),
            now: ids::now,
        };
        // A task's own text is not streamed into the parent's terminal: its result arrives as
        // a notification.
        let outcome = s.with_agent(
            approver,
            &self.child,
            |_| {},
            |a| a.user_turn(&self.child, &self.task),
        );
        match outcome {
            Ok(end) if end.hit_step_limit => failed(format!(
                "the task stopped at its step limit ({} model calls) before finishing; its last \
                 words: {}",
                s.settings.step_limit, end.final_text
            )),
            Ok(end) => TaskEnd {
                status: TaskStatus::Completed,
                result: end.final_text,
            },
            Err(crate::AppError::Loop(LoopError::Cancelled)) => TaskEnd {
                status: TaskStatus::Cancelled,
                result: format!(
                    "cancelled; `keel runs resume {}` continues the task's own run",
                    self.child
                ),
            },
            Err(e) => failed(chain(&e)),
        }
    }
}

/// An error and its causes, as `anyhow`'s `{:#}` would print them: "what: why: why".
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}
