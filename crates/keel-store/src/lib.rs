//! keel-store: durable state for keel runs, behind the [`Store`] traits.
//!
//! A run is a head row (id, timestamps, preset, a version for optimistic concurrency), an
//! append-only ordered list of items, and its system notes. Every write is one transaction
//! guarded by the version the writer loaded: a second writer on the same run gets
//! [`StoreError::StaleWrite`], never a silent overwrite. Closing a turn appends its last items
//! and consumes the turn's notes in that same transaction (system-notes.md N8).
//!
//! [`SqliteStore`] is the embedded default: a single file in WAL mode with
//! `synchronous=NORMAL`. That survives a crash of the keel process at any point (a `kill -9`
//! mid-write leaves the last committed state), but **not** a power loss or OS crash, which
//! may lose the most recent commits (never corrupt the file). The notification queue, the
//! dispatch ledger and approvals have their tables here too; the issues that use them add
//! their operations.
//!
//! What a write does to a run is one pure function, [`RunRecord::apply`] (apply.rs): the
//! SQLite store persists what it computes, and a writer that keeps the run in memory applies
//! the same function to its copy. The storage itself is split by concern into traits
//! ([`RunStore`], [`QueueStore`], [`LedgerStore`], [`ApprovalStore`], [`CompactionStore`],
//! [`DesktopStore`], [`RunLeaseStore`]); [`Store`] is all of them, for callers that use the
//! whole store.
//!
//! One writer per run at a time: a process that writes a run holds its lease ([`lease`]; a
//! row naming the holding process, with an expiry its [`LeaseKeeper`] renews), so a second
//! process is refused before it writes anything ([`StoreError::RunHeld`], naming the holder)
//! instead of finding out at its first stale write. Readers take no lease, and a notification
//! enqueued by another process needs none (it does not move the run's version).
//!
//! Not here: deciding what to write. The turn loop, the note operations and the guards live
//! in keel-core and keel-runtime; this crate persists what they decided.

mod apply;
mod caller;
mod keeper;
pub mod lease;
mod schema;
mod sqlite;

use std::path::PathBuf;

use keel_core::compaction::Compaction;
use keel_core::language::ConversationLanguage;
use keel_core::notes::NoteOp;
use keel_core::notify::{NotificationKind, QueuedNotification};
use keel_core::{Item, ItemBody, ItemId, SystemNotes, Timestamp};

pub use apply::{Applied, Settled};
pub use caller::{CallerMessage, StartRun, append_caller_messages, start_run_from_caller};
pub use keeper::{LeaseKeeper, RunLease};
pub use lease::{Acquired, LeaseHolder, LeaseTerms, RunLeaseRecord};
pub use schema::SCHEMA_VERSION;

/// The SQL that migrates schema version `from` to `from + 1`, for tests that build an older
/// database by hand.
pub fn schema_migration(from: usize) -> Option<&'static str> {
    schema::MIGRATIONS.get(from).copied()
}
pub use sqlite::{
    CRASH_POINT_ENV, DeleteOptions, DeletedRun, Deletion, SkippedRun, SqliteStore, StoreOptions,
};

/// A new run.
#[derive(Clone, Debug)]
pub struct NewRun {
    pub id: String,
    pub preset: String,
    /// The model the run is made with (`script:FILE`, `local`, …); `""` when unknown.
    pub model: String,
    /// Where the run came from, when not from a plain `keel run` (a handoff names its source).
    pub origin: Option<String>,
    /// The directory the run works in (its tools, gate roots and shell); `None` when unknown.
    pub cwd: Option<PathBuf>,
    /// The run starts with an open turn (its items end with a user turn the model has not
    /// answered yet), so `keel runs resume` answers it.
    pub open_turn: bool,
    pub now: Timestamp,
    /// The run's first notes, as note operations (the only way notes are ever written).
    pub note_ops: Vec<NoteOp>,
    pub items: Vec<NewItem>,
}

/// An item to append; the store assigns its sequence number.
#[derive(Clone, Debug, PartialEq)]
pub struct NewItem {
    pub id: ItemId,
    pub ts: Timestamp,
    pub body: ItemBody,
}

/// A run's head row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunHead {
    pub id: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub preset: String,
    /// The model the run was made with; `""` for runs from before schema v2.
    pub model: String,
    pub origin: Option<String>,
    /// The directory the run works in; `None` for runs from before schema v4, which keep
    /// working in whatever directory they are resumed from.
    pub cwd: Option<PathBuf>,
    /// Bumped by every write; a writer must present the version it loaded.
    pub version: u64,
    /// The sequence number the next appended item gets (= the number of items).
    pub next_seq: u64,
    /// The conversation language, persisted so a restart does not reset it.
    pub language: ConversationLanguage,
    /// A turn was opened and has not closed (a crash or a cancel left it open).
    pub turn_open: bool,
}

/// A whole run as loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub head: RunHead,
    pub items: Vec<Item>,
    pub notes: SystemNotes,
    /// Stored notes that were not well formed and were skipped on read (N28): position and
    /// reason.
    pub skipped_notes: Vec<(usize, String)>,
    /// The latest compaction round, if any: what the model no longer sees verbatim.
    pub compaction: Option<Compaction>,
}

/// A notification for a run's queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewNotification {
    pub id: String,
    pub kind: NotificationKind,
    /// Stored verbatim; never parsed.
    pub payload: String,
    pub now: Timestamp,
}

/// What became of a queued notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueState {
    Pending,
    /// Delivered as a turn of its own.
    Delivered,
    /// Merged into a real user turn.
    Merged,
    /// Its id had already been seen for the run; never delivered.
    Duplicate,
}

impl QueueState {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueState::Pending => "pending",
            QueueState::Delivered => "delivered",
            QueueState::Merged => "merged",
            QueueState::Duplicate => "duplicate",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            Self::Pending,
            Self::Delivered,
            Self::Merged,
            Self::Duplicate,
        ]
        .into_iter()
        .find(|q| q.as_str() == s)
    }
}

/// One queue entry, as `keel runs show` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotificationRecord {
    pub arrival: u64,
    pub id: String,
    pub kind: NotificationKind,
    pub state: QueueState,
    pub enqueued_at: Timestamp,
    /// The Notification item it became.
    pub item_seq: Option<u64>,
    pub payload_chars: usize,
}

/// A person's answer to an ask_user decision (interfaces.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    AllowOnce,
    /// Adds a rule allowing the tool for the rest of the run, at priority 3950 (safety.md N12).
    AllowForRun,
    Deny,
    /// Denies this call and adds a rule denying the tool for the rest of the run, above every
    /// tier, so later calls of it are refused without asking (an editor's "reject always").
    DenyForRun,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::AllowOnce => "allow_once",
            Answer::AllowForRun => "allow_for_run",
            Answer::Deny => "deny",
            Answer::DenyForRun => "deny_for_run",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::AllowOnce,
            Self::AllowForRun,
            Self::Deny,
            Self::DenyForRun,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }

    /// Whether the answer lets the call run.
    pub fn allows(self) -> bool {
        matches!(self, Answer::AllowOnce | Answer::AllowForRun)
    }
}

/// One recorded answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalRecord {
    pub call_id: String,
    pub tool: String,
    pub answer: Answer,
    /// What the person was told: the reasons the call needed confirmation.
    pub reason: String,
    pub answered_at: Timestamp,
}

/// Settles one queued notification in a [`RunWrite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSettlement {
    pub arrival: u64,
    pub state: QueueState,
    /// Index into the write's `append` of the item it became.
    pub item_index: Option<usize>,
}

/// One line of `keel runs list`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSummary {
    pub head: RunHead,
    pub notes_count: u64,
    /// The text of the run's first real user turn, if it has one: what the run is about.
    pub task: Option<String>,
}

/// One transaction on a run.
///
/// A run's notes change only through note operations (system-notes.md N22, T6): there is no
/// way to write a list of notes as given.
///
/// ```compile_fail,E0599
/// let write = keel_store::RunWrite::append(1, keel_core::Timestamp(0), vec![])
///     .with_notes(keel_core::SystemNotes::new());
/// ```
///
/// ```compile_fail,E0560
/// let run = keel_store::NewRun {
///     id: "r".into(),
///     preset: "default".into(),
///     model: String::new(),
///     origin: None,
///     cwd: None,
///     open_turn: false,
///     now: keel_core::Timestamp(0),
///     notes: keel_core::SystemNotes::new(),
///     items: vec![],
/// };
/// ```
#[derive(Clone, Debug)]
pub struct RunWrite {
    /// The version the writer loaded; the write fails as stale if the run has moved on.
    pub expected_version: u64,
    pub now: Timestamp,
    /// Appended in order after the run's last item.
    pub append: Vec<NewItem>,
    /// Note operations, applied to the stored notes and written in this transaction (N1).
    /// They are the only way to change a run's notes: no API writes a list of notes as given
    /// (system-notes.md N22, T6).
    pub note_ops: Vec<NoteOp>,
    /// The untagged-note cap the operations are applied under (N25).
    pub max_untagged_notes: usize,
    /// Close the turn: consume every `Turn` note in this same transaction (N8).
    pub close_turn: bool,
    /// The conversation language after this write's user turn, if it changed.
    pub language: Option<ConversationLanguage>,
    /// Queue entries settled by this write (delivered, merged, duplicate).
    pub queue: Vec<QueueSettlement>,
    /// Dispatch-ledger changes made in this write.
    pub ledger: Vec<LedgerWrite>,
    /// This write opens a turn.
    pub open_turn: bool,
    /// A compaction round recorded in this write (with its summary note in `note_ops`).
    pub compaction: Option<Compaction>,
}

/// Where a tool call's side effect stands (ARCHITECTURE.md, step 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DispatchState {
    /// Recorded before anything was done.
    Intended,
    /// The side effect was started.
    Dispatched,
    /// It finished; the result is recorded.
    Completed,
    /// A crash left it intended or dispatched: it may or may not have happened. Never re-run.
    Unknown,
}

impl DispatchState {
    pub fn as_str(self) -> &'static str {
        match self {
            DispatchState::Intended => "intended",
            DispatchState::Dispatched => "dispatched",
            DispatchState::Completed => "completed",
            DispatchState::Unknown => "unknown",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            Self::Intended,
            Self::Dispatched,
            Self::Completed,
            Self::Unknown,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
    }
}

/// One ledger change.
#[derive(Clone, Debug, PartialEq)]
pub enum LedgerWrite {
    /// A new entry, `intended`.
    Intend {
        call_id: String,
        tool: String,
        arguments: serde_json::Value,
    },
    /// Moves the call's open entry on (to dispatched, completed with a result, or unknown).
    Mark {
        call_id: String,
        state: DispatchState,
        result: Option<String>,
    },
}

/// One ledger entry, as `keel runs show` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerEntry {
    pub call_id: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub state: DispatchState,
    pub result: Option<String>,
    pub updated_at: Timestamp,
}

impl RunWrite {
    /// A write that appends `items` to the run at `expected_version`.
    pub fn append(expected_version: u64, now: Timestamp, items: Vec<NewItem>) -> Self {
        Self {
            expected_version,
            now,
            append: items,
            note_ops: Vec::new(),
            max_untagged_notes: keel_core::notes::DEFAULT_MAX_UNTAGGED,
            close_turn: false,
            language: None,
            queue: Vec::new(),
            ledger: Vec::new(),
            open_turn: false,
            compaction: None,
        }
    }

    /// Also record a compaction round.
    pub fn with_compaction(mut self, compaction: Compaction) -> Self {
        self.compaction = Some(compaction);
        self
    }

    /// Also record ledger changes.
    pub fn with_ledger(mut self, changes: Vec<LedgerWrite>) -> Self {
        self.ledger.extend(changes);
        self
    }

    /// Also mark a turn as open.
    pub fn opening_turn(mut self) -> Self {
        self.open_turn = true;
        self
    }

    /// Also apply note operations, under the untagged-note cap `max_untagged`.
    pub fn with_note_ops(mut self, ops: Vec<NoteOp>, max_untagged: usize) -> Self {
        self.note_ops.extend(ops);
        self.max_untagged_notes = max_untagged;
        self
    }

    /// Also persist the conversation language.
    pub fn with_language(mut self, language: ConversationLanguage) -> Self {
        self.language = Some(language);
        self
    }

    /// Also settle queued notifications.
    pub fn settling(mut self, settlements: Vec<QueueSettlement>) -> Self {
        self.queue.extend(settlements);
        self
    }

    /// Also close the turn: consume its `Turn` notes in this transaction.
    pub fn closing_turn(mut self) -> Self {
        self.close_turn = true;
        self
    }
}

/// What a committed write left behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Committed {
    pub version: u64,
    pub next_seq: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "{path} was written by a newer keel (schema version {found}; this keel knows up to \
         {supported}). Nothing was changed. Upgrade keel, or pass --db with another file"
    )]
    NewerSchema {
        path: String,
        found: i64,
        supported: i64,
    },
    #[error(
        "{path} is not a keel database (its application id is {found:#x}); nothing was changed"
    )]
    NotKeel { path: String, found: i64 },
    #[error(
        "{path} is not a database at all (SQLite cannot read it); nothing was changed. Pass \
         --db with a keel database, or move the file away"
    )]
    NotADatabase { path: String },
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("no database at {path} yet: nothing has been run with it")]
    NoDatabase { path: String },
    #[error("no run with id {0:?}; `keel runs list` shows the runs there are")]
    RunNotFound(String),
    #[error("a run with id {0:?} already exists")]
    RunExists(String),
    #[error(
        "stale write to run {run}: another writer changed it (it is at version {actual}; this \
         writer loaded version {expected}). Nothing was written; reload the run and try again"
    )]
    StaleWrite {
        run: String,
        expected: u64,
        actual: u64,
    },
    #[error(
        "run {run} is being written by another keel process (pid {pid} on {host}, since {since}; \
         its lease runs to {until} and is renewed while that process lives). Nothing was \
         written. Wait for it to finish, or stop that process; `keel runs show {run}` reads the \
         run meanwhile",
        host = if .host.is_empty() { "this machine" } else { .host.as_str() },
        since = .since.to_rfc3339(),
        until = .until.to_rfc3339()
    )]
    RunHeld {
        run: String,
        pid: u32,
        host: String,
        since: Timestamp,
        until: Timestamp,
    },
    #[error(
        "run {run}{of} is in use by keel process {pid} on {host} (since {since}): nothing was \
         deleted. Wait for that process to finish with it, or stop it, then delete again",
        of = .task_of.as_ref().map(|p| format!(" (a task of run {p}, deleted with it)")).unwrap_or_default(),
        host = if .host.is_empty() { "this machine" } else { .host.as_str() },
        since = .since.to_rfc3339()
    )]
    RunInUse {
        run: String,
        /// The run asked for, when `run` is one of its tasks.
        task_of: Option<String>,
        pid: u32,
        host: String,
        since: Timestamp,
    },
    #[error("run {run} item {seq} cannot be read: {reason}")]
    CorruptItem {
        run: String,
        seq: u64,
        reason: String,
    },
    #[error("tool call {call_id} of run {run} has no open ledger entry; nothing was written")]
    NoLedgerEntry { run: String, call_id: String },
    #[error(
        "compaction round {round} of run {run} does not follow the last recorded round; \
         nothing was written"
    )]
    CompactionOutOfOrder { run: String, round: u32 },
    #[error("notification {arrival} of run {run} is not pending any more; nothing was written")]
    NotPending { run: String, arrival: u64 },
    #[error("stored {what} of run {run} cannot be read: {reason}")]
    Corrupt {
        run: String,
        what: String,
        reason: String,
    },
    #[error(transparent)]
    NoteLimit(#[from] keel_core::NoteLimit),
    #[error(transparent)]
    InvalidCallerMessages(#[from] keel_core::legacy::InvalidCallerMessages),
    #[error(
        "caller message at index {index} has role {role:?}; only \"user\" and \"assistant\" are accepted"
    )]
    UnsupportedCallerRole { index: usize, role: String },
    #[error("caller message at index {index} cannot be read: {reason}")]
    BadCallerMessage { index: usize, reason: String },
}

/// Runs: their heads, items and notes, and the one write that changes them ([`RunWrite`]).
/// Every method that writes is one transaction.
///
/// A commit also writes the queue settlements, ledger changes and compaction round the write
/// carries, in that same transaction, so whatever implements this trait holds those tables too
/// (the other traits read them). What a write does to the run itself is [`RunRecord::apply`].
pub trait RunStore {
    fn create_run(&mut self, run: NewRun) -> Result<RunHead, StoreError>;
    fn run_head(&self, id: &str) -> Result<RunHead, StoreError>;
    fn load_run(&self, id: &str) -> Result<RunRecord, StoreError>;
    /// All runs, most recently updated first.
    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError>;
    fn commit(&mut self, run: &str, write: RunWrite) -> Result<Committed, StoreError> {
        self.commit_kept(run, &write)
    }
    /// [`RunStore::commit`] of a write the caller keeps: the agent applies the same write to
    /// the run it holds in memory once it is stored, and a copy of it made for the store was
    /// a fiftieth of a durable step.
    fn commit_kept(&mut self, run: &str, write: &RunWrite) -> Result<Committed, StoreError>;
    /// The texts of the run's last `limit` real user turns, oldest first, leaving out the
    /// turns withdrawn from the model's context (keel-core's `withdrawal`): these texts become
    /// language samples in later notifications, which the model reads.
    fn recent_user_texts(&self, run: &str, limit: usize) -> Result<Vec<String>, StoreError>;
}

/// A run's notification queue (notifications.md). Entries are settled by a run's write
/// ([`RunWrite::settling`]).
pub trait QueueStore {
    /// Adds a notification to the run's queue. It does not touch the run's version, so a
    /// producer in another process never makes the live writer's next write stale.
    fn enqueue_notification(
        &mut self,
        run: &str,
        notification: NewNotification,
    ) -> Result<u64, StoreError>;
    /// The run's pending notifications in arrival order.
    fn pending_notifications(&self, run: &str) -> Result<Vec<QueuedNotification>, StoreError>;
    /// The ids of pending notifications that were already delivered or merged for the run:
    /// all that de-duplication needs, without reading the run's whole queue history.
    fn delivered_notification_ids(
        &self,
        run: &str,
    ) -> Result<std::collections::HashSet<String>, StoreError>;
    /// Every queue entry of the run, in arrival order.
    fn notifications(&self, run: &str) -> Result<Vec<NotificationRecord>, StoreError>;
}

/// The dispatch ledger of a run's tool calls. Entries change only in a run's write
/// ([`RunWrite::with_ledger`]).
pub trait LedgerStore {
    /// The run's dispatch ledger, oldest first.
    fn ledger(&self, run: &str) -> Result<Vec<LedgerEntry>, StoreError>;
}

/// A person's answers to ask_user decisions.
pub trait ApprovalStore {
    /// Records a person's answer with the run, in its own transaction: an answer is a fact
    /// whatever happens to the turn it was given in.
    fn record_approval(&mut self, run: &str, approval: &ApprovalRecord) -> Result<(), StoreError>;
    /// The run's answers, in the order given.
    fn approvals(&self, run: &str) -> Result<Vec<ApprovalRecord>, StoreError>;
}

/// A run's compaction rounds. A round is recorded by a run's write
/// ([`RunWrite::with_compaction`]); [`RunRecord::compaction`] is the latest.
pub trait CompactionStore {
    /// The run's compaction rounds, oldest first.
    fn compactions(&self, run: &str) -> Result<Vec<Compaction>, StoreError>;
}

/// Desktop leases and the desktop-control pause (computer-use.md N30, N41).
pub trait DesktopStore {
    /// Records a change of the run's desktop lease (computer-use.md N41).
    fn record_lease(&mut self, run: &str, event: &LeaseEvent) -> Result<(), StoreError>;
    /// The run's lease changes, oldest first.
    fn lease_events(&self, run: &str) -> Result<Vec<LeaseEvent>, StoreError>;
    /// Pauses desktop control for every run (`keel computer stop`), or resumes it (`None`).
    fn set_desktop_pause(&mut self, pause: Option<&DesktopPause>) -> Result<(), StoreError>;
    /// The pause in force, if any.
    fn desktop_pause(&self) -> Result<Option<DesktopPause>, StoreError>;
}

/// Run leases: one writer per run at a time (the [`lease`] module). Each method is one
/// transaction; a process holds its leases through a [`LeaseKeeper`], not these directly.
pub trait RunLeaseStore {
    /// Takes the run's lease for `holder` until `expires_at`: when the run is free, its lease
    /// expired (at or before `now`), its holder is gone ([`LeaseHolder::is_gone`]), or
    /// `holder` already holds it. Otherwise [`StoreError::RunHeld`], naming the holder.
    fn take_run_lease(
        &mut self,
        run: &str,
        holder: &LeaseHolder,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<Acquired, StoreError>;
    /// Moves the lease's expiry to `expires_at`; `false` when `holder` does not hold it any
    /// more (it expired and another writer took it).
    fn renew_run_lease(
        &mut self,
        run: &str,
        holder: &LeaseHolder,
        expires_at: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Frees the run; `false` when `holder` did not hold it.
    fn release_run_lease(&mut self, run: &str, holder: &LeaseHolder) -> Result<bool, StoreError>;
    /// The run's lease, if one is recorded (it may have expired).
    fn run_lease(&self, run: &str) -> Result<Option<RunLeaseRecord>, StoreError>;
}

/// The whole store: every concern's trait. Anything that implements them all is one, so a
/// caller that needs the whole store takes `&mut dyn Store` and a second implementation
/// implements the pieces.
pub trait Store:
    RunStore + QueueStore + LedgerStore + ApprovalStore + CompactionStore + DesktopStore + RunLeaseStore
{
}

impl<T> Store for T where
    T: RunStore
        + QueueStore
        + LedgerStore
        + ApprovalStore
        + CompactionStore
        + DesktopStore
        + RunLeaseStore
{
}

/// What happened to a run's desktop lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseChange {
    /// A computer-use session holds the gate shut.
    Held,
    /// The release was confirmed: the gate is open.
    Released,
    /// Found held by a process that is gone, and released on resume (N41).
    ReleasedOnResume,
    /// The user stopped desktop control (`keel computer stop`).
    Revoked,
}

impl LeaseChange {
    pub fn as_str(self) -> &'static str {
        match self {
            LeaseChange::Held => "held",
            LeaseChange::Released => "released",
            LeaseChange::ReleasedOnResume => "released_on_resume",
            LeaseChange::Revoked => "revoked",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "held" => LeaseChange::Held,
            "released" => LeaseChange::Released,
            "released_on_resume" => LeaseChange::ReleasedOnResume,
            "revoked" => LeaseChange::Revoked,
            _ => return None,
        })
    }

    /// Whether the gate is shut after this change.
    pub fn holds(self) -> bool {
        self == LeaseChange::Held
    }
}

/// One lease change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseEvent {
    pub change: LeaseChange,
    /// The window the lease is for, as the user knows it (its title).
    pub window: String,
    pub detail: String,
    pub at: Timestamp,
}

/// A user's stop of desktop control, in force until `keel computer resume`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopPause {
    pub at: Timestamp,
    /// Who stopped it: the run named to `keel computer stop`.
    pub by: String,
}
