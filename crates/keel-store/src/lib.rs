//! keel-store: durable state for keel runs, behind the [`Store`] trait.
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
//! Not here: deciding what to write. The turn loop, the note operations and the guards live
//! in keel-core and keel-runtime; this crate persists what they decided.

mod caller;
mod schema;
mod sqlite;

use keel_core::{Item, ItemBody, ItemId, SystemNotes, Timestamp};

pub use caller::{CallerMessage, StartRun, start_run_from_caller};
pub use schema::SCHEMA_VERSION;
pub use sqlite::{SqliteStore, StoreOptions};

/// A new run.
#[derive(Clone, Debug)]
pub struct NewRun {
    pub id: String,
    pub preset: String,
    pub now: Timestamp,
    pub notes: SystemNotes,
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
    /// Bumped by every write; a writer must present the version it loaded.
    pub version: u64,
    /// The sequence number the next appended item gets (= the number of items).
    pub next_seq: u64,
}

/// A whole run as loaded.
#[derive(Clone, Debug)]
pub struct RunRecord {
    pub head: RunHead,
    pub items: Vec<Item>,
    pub notes: SystemNotes,
    /// Stored notes that were not well formed and were skipped on read (N28): position and
    /// reason.
    pub skipped_notes: Vec<(usize, String)>,
}

/// One line of `keel runs list`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSummary {
    pub head: RunHead,
    pub notes_count: u64,
}

/// One transaction on a run.
#[derive(Clone, Debug)]
pub struct RunWrite {
    /// The version the writer loaded; the write fails as stale if the run has moved on.
    pub expected_version: u64,
    pub now: Timestamp,
    /// Appended in order after the run's last item.
    pub append: Vec<NewItem>,
    /// The run's notes after the writer's note operations, written in this transaction (N1).
    /// `None` leaves the stored notes as they are.
    pub notes: Option<SystemNotes>,
    /// Close the turn: consume every `Turn` note in this same transaction (N8).
    pub close_turn: bool,
}

impl RunWrite {
    /// A write that appends `items` to the run at `expected_version`.
    pub fn append(expected_version: u64, now: Timestamp, items: Vec<NewItem>) -> Self {
        Self {
            expected_version,
            now,
            append: items,
            notes: None,
            close_turn: false,
        }
    }

    /// Also write the run's notes as they are after the writer's note operations.
    pub fn with_notes(mut self, notes: SystemNotes) -> Self {
        self.notes = Some(notes);
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
    #[error("run {run} item {seq} cannot be read: {reason}")]
    CorruptItem {
        run: String,
        seq: u64,
        reason: String,
    },
    #[error(transparent)]
    InvalidCallerMessages(#[from] keel_core::legacy::InvalidCallerMessages),
    #[error(
        "caller message at index {index} has role {role:?}; only \"user\" and \"assistant\" are accepted"
    )]
    UnsupportedCallerRole { index: usize, role: String },
}

/// Durable runs. Every method that writes is one transaction.
pub trait Store {
    fn create_run(&mut self, run: NewRun) -> Result<RunHead, StoreError>;
    fn run_head(&self, id: &str) -> Result<RunHead, StoreError>;
    fn load_run(&self, id: &str) -> Result<RunRecord, StoreError>;
    /// All runs, most recently updated first.
    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError>;
    fn commit(&mut self, run: &str, write: RunWrite) -> Result<Committed, StoreError>;
}
