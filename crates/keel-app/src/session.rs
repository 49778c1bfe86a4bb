//! A session: a store, a model, the gate and the tools, ready to run turns on one run; and
//! what a front end asks of one ([`SessionOptions`], [`Role`]) and hands it ([`Notices`],
//! [`DesktopOpener`]). The `builder` module makes sessions.

use std::path::PathBuf;
use std::sync::Arc;

use keel_computer::desktop::Desktop;
use keel_core::ItemId;
use keel_core::text::{LineBreaks, terminal_safe};
use keel_model::Model;
use keel_runtime::agent::{Agent, DEFAULT_STEP_LIMIT, Event, LoopSettings};
use keel_runtime::approval::{Approver, RecordingApprover};
use keel_runtime::gate::Gate;
use keel_runtime::tasks::{TaskHub, report_orphaned_tasks};
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{ApprovalStore, LeaseKeeper, RunLease, RunStore, SqliteStore, StoreOptions};

use crate::{AppError, ids};

/// Where a session's notices go: things a person should know that are not errors (a server
/// that did not start, a preset naming unknown tools, progress of a model download). Each is
/// one line without a prefix; a terminal front end prints `keel: {line}`.
pub type Notices = Arc<dyn Fn(&str) + Send + Sync>;

/// Opens the desktop backend for computer use; called once per session that has
/// `[computer_use]`, and only then (the backend itself connects on first use).
pub type DesktopOpener = Arc<dyn Fn() -> Box<dyn Desktop> + Send + Sync>;

/// What a front end was asked for, before the configuration fills in the rest. Every field
/// is optional except the step limit: `None` means "the run's own, else the configuration's,
/// else keel's default".
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// `local` | `local:PATH.gguf` | `openai:MODEL` | `script:FILE`.
    pub model: Option<String>,
    /// An OpenAI-compatible base URL, including `/v1`; wins over `[model] base_url`.
    pub base_url: Option<String>,
    /// The session's working directory (default: the process's).
    pub cwd: Option<PathBuf>,
    /// `ask` (a person answers ask_user) or `deny` (ask_user is a deny); `None` asks only
    /// when a person sits at a terminal ([`SessionBuilder::terminal`]).
    pub approval: Option<String>,
    /// `default` | `plan` | `yolo` | `autoEdit`.
    pub mode: Option<String>,
    /// The preset: system prompt, tools, mode.
    pub preset: Option<String>,
    /// Model calls per turn.
    pub step_limit: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            model: None,
            base_url: None,
            cwd: None,
            approval: None,
            mode: None,
            preset: None,
            step_limit: DEFAULT_STEP_LIMIT,
        }
    }
}

/// Whether a person can answer ask_user (interfaces.md §3): `approval`, else a terminal.
pub fn interactive(approval: Option<&str>, stdin_is_terminal: bool) -> bool {
    match approval {
        Some("ask") => true,
        Some(_) => false,
        None => stdin_is_terminal,
    }
}

/// Whom a session serves: a person (with `spawn_task` and `respond_permission` on offer), or
/// a background task of another run (asking through the parent, and spawning nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Person,
    Task,
}

/// What a run holds past a point, by writer ([`Session::arrivals`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Arrivals {
    /// How many of the items this session wrote.
    pub ours: usize,
    /// The items another writer wrote, in order.
    pub theirs: Vec<keel_core::Item>,
}

/// A ready session: everything a turn needs.
pub struct Session {
    pub store: SqliteStore,
    pub(crate) model: Box<dyn Model + Send>,
    /// The model spec in use (recorded with a new run).
    pub model_spec: String,
    /// The preset in use (recorded with a new run).
    pub preset: String,
    pub gate: Gate,
    pub tools: Toolbox,
    pub cwd: PathBuf,
    /// Whether a person answers ask_user (else it is a deny).
    pub interactive: bool,
    pub settings: LoopSettings,
    /// This process's background tasks (those this session's run spawned).
    pub hub: TaskHub,
    /// Computer use, when `[computer_use]` is configured.
    pub computer: Option<keel_runtime::computer::ComputerHub>,
    pub(crate) store_options: StoreOptions,
    pub(crate) notices: Notices,
    /// This process's lease of the run the session writes (issue 19): taken before the
    /// session writes it, released when the session is dropped.
    pub(crate) lease: Option<RunLease>,
    /// The ids of the items the last [`Session::with_agent`] made, so that after a stale
    /// write [`Session::arrivals`] can tell another writer's items from this session's.
    pub(crate) issued: Vec<ItemId>,
    /// Where the file tools read and write text, when a front end holds the files (an
    /// editor's buffers over ACP); `None`: the file system.
    pub text_files: Option<Arc<dyn keel_runtime::tools::TextFiles>>,
}

fn fresh_item_id() -> ItemId {
    ItemId::try_from(ids::unique("item")).unwrap_or_else(|_| unreachable!())
}

/// Takes this process's lease of `run` in the database at `db`; a lease it took over from a
/// process that is gone (or whose lease expired) is said through `notices`.
pub(crate) fn take_lease(
    db: &std::path::Path,
    options: &StoreOptions,
    run: &str,
    notices: Option<&Notices>,
) -> Result<RunLease, AppError> {
    let lease = LeaseKeeper::process().acquire(db, options, run)?;
    if let (Some(old), Some(notices)) = (lease.replaced(), notices) {
        notices(&format!(
            "run {run} was still marked as written by process {} (since {}), which is gone or \
             stopped renewing its lease; this process takes the run over",
            old.holder.pid,
            old.acquired_at.to_rfc3339()
        ));
    }
    Ok(lease)
}

impl Session {
    /// Creates a new run for this session's model and preset, seeded with `messages` (a
    /// caller's history, checked before anything is written) under `instructions`; returns
    /// its id.
    pub fn start_run(
        &mut self,
        instructions: Option<String>,
        messages: Vec<keel_store::CallerMessage>,
    ) -> Result<String, AppError> {
        let run_id = ids::unique("run");
        let mut next_id = fresh_item_id;
        keel_store::start_run_from_caller(
            &mut self.store,
            keel_store::StartRun {
                model: self.model_spec.clone(),
                cwd: Some(self.cwd.clone()),
                id: run_id.clone(),
                preset: self.preset.clone(),
                now: ids::now(),
                field: keel_core::legacy::CallerField::SeedMessages,
                messages,
                instructions,
            },
            &mut next_id,
        )?;
        // Held from right after its creation: nobody else knows the id before.
        self.lease = Some(take_lease(
            self.store.path(),
            &self.store_options,
            &run_id,
            None,
        )?);
        Ok(run_id)
    }

    /// This process's lease of the session's run, once the session holds one.
    pub fn lease(&self) -> Option<&RunLease> {
        self.lease.as_ref()
    }

    /// The text of the latest real user input of `run`, if it has one.
    pub fn last_user_text(&self, run: &str) -> Option<String> {
        let record = self.store.load_run(run).ok()?;
        record.items.iter().rev().find_map(|item| match &item.body {
            keel_core::item::ItemBody::User { text, .. } => Some(text.clone()),
            _ => None,
        })
    }

    /// What `run` holds from sequence number `since` on, told apart by writer: the items this
    /// session's last [`Session::with_agent`] wrote, and the others (another writer's).
    pub fn arrivals(&self, run: &str, since: u64) -> Result<Arrivals, AppError> {
        let (ours, theirs): (Vec<_>, Vec<_>) = self
            .store
            .load_run(run)?
            .items
            .into_iter()
            .filter(|item| item.seq >= since)
            .partition(|item| self.issued.contains(&item.id));
        Ok(Arrivals {
            ours: ours.len(),
            theirs,
        })
    }

    /// Runs `f` with an agent on the session whose ask_user goes to `approver` (when the
    /// session is interactive), each answer recorded with the run; `events` sees the turn
    /// as it happens.
    pub fn with_agent<T, A: Approver>(
        &mut self,
        approver: A,
        run: &str,
        mut events: impl FnMut(Event),
        f: impl FnOnce(&mut Agent<'_>) -> Result<T, keel_runtime::agent::LoopError>,
    ) -> Result<T, AppError> {
        // A process paused past its lease may have lost the run to another writer: it asks the
        // database before it writes anything (and stops, naming the holder, if so).
        if let Some(lease) = self.lease.as_ref().filter(|l| l.run() == run) {
            lease.confirm()?;
        }
        self.issued.clear();
        let issued = &mut self.issued;
        let mut next_id = || {
            let id = fresh_item_id();
            issued.push(id.clone());
            id
        };
        // The agent writes the run; answers are recorded through a second connection.
        let db = self.store.path().to_path_buf();
        let mut answers_store = SqliteStore::open(&db, &self.store_options)?;
        let mut recording = RecordingApprover::new(approver, &mut answers_store, run, ids::now);
        let approver: Option<&mut dyn Approver> = if self.interactive {
            Some(&mut recording)
        } else {
            None
        };
        let mut agent = Agent {
            store: &mut self.store,
            model: self.model.as_mut(),
            gate: &self.gate,
            tools: &self.tools,
            tool_context: {
                let base = ToolContext::new(self.cwd.clone());
                ToolContext {
                    files: self.text_files.clone(),
                    // The directory the gate was made for, not the one the name gives now.
                    cwd_identity: self.gate.cwd_identity().or(base.cwd_identity),
                    ..base
                }
            },
            approver,
            settings: self.settings.clone(),
            clock: ids::now,
            next_id: &mut next_id,
            events: &mut events,
            cache: keel_runtime::agent::TurnCache::default(),
        };
        f(&mut agent).map_err(AppError::from)
    }

    /// Before a stored run continues: the orphaned background tasks of a stopped process are
    /// reported (each said as it is), a desktop lease the run's last process left is released
    /// and said (N41), and the "allow for this run" answers given before hold again.
    pub fn reopen(&mut self, run: &str) -> Result<(), AppError> {
        let notices = self.notices.clone();
        report_orphaned_tasks(&mut self.store, &self.hub, run, ids::now(), &mut |child| {
            notices(&format!(
                "background task {child} was left unfinished by a stopped process: reported as failed"
            ));
        })?;
        if let Some(window) = self.computer.as_ref().and_then(|c| c.release_stale(run)) {
            notices(&format!(
                "the desktop lease on window {:?} was left by a process that is gone; released \
                 (recorded with the run)",
                terminal_safe(&window, LineBreaks::Escape)
            ));
        }
        if let Some(policy) = self.gate.policy() {
            policy.restore_answers(&self.store.approvals(run)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn approval_defaults_to_asking_only_on_a_terminal() {
        assert!(super::interactive(None, true));
        assert!(!super::interactive(None, false));
        assert!(super::interactive(Some("ask"), false));
        assert!(!super::interactive(Some("deny"), true));
    }
}
