//! The SQLite implementation of the [`Store`](crate::Store) traits: one file, WAL,
//! `synchronous=NORMAL`.

mod checkpoint;
mod compaction;
mod delete;
mod desktop;
mod lease;
mod ledger;
mod queue;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::collections::HashSet;

use keel_core::language::ConversationLanguage;
use keel_core::notify::QueuedNotification;
use keel_core::{Item, NoteLifetime, NoteTag, SystemNote, SystemNotes, Timestamp};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use crate::schema::{APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION};
use crate::{
    Acquired, ApprovalRecord, ApprovalStore, Committed, CompactionStore, DesktopStore, LeaseHolder,
    LedgerStore, NewNotification, NewRun, NotificationRecord, QueueStore, RunHead, RunLeaseRecord,
    RunLeaseStore, RunRecord, RunStore, RunSummary, RunWrite, StoreError,
};

pub use delete::{DeleteOptions, DeletedRun, Deletion, SkippedRun};

/// The environment variable that names a crash point (see [`crash_point`]).
pub const CRASH_POINT_ENV: &str = "KEEL_STORE_CRASH_POINT";

/// Durability test hook. When `KEEL_STORE_CRASH_POINT` names this point, the process aborts
/// here — no destructors, no rollback, as if it were killed at this instant — so the crash
/// tests can stop a writer at an exact step of a turn close instead of hoping a random
/// SIGKILL lands there. The variable is read once; unset, this is a no-op.
fn crash_point(name: &str) {
    static POINT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let armed = POINT.get_or_init(|| std::env::var(CRASH_POINT_ENV).ok());
    if armed.as_deref() == Some(name) {
        std::process::abort();
    }
}

/// How to open the database.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// How long a writer waits for another process's write lock before failing.
    pub busy_timeout: Duration,
    /// How long a run lease lasts and how often its holder renews it.
    pub lease: crate::LeaseTerms,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            busy_timeout: Duration::from_secs(5),
            lease: crate::LeaseTerms::default(),
        }
    }
}

/// keel's embedded store.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// Who copies the log into the database: a thread of the store's, off the writer's path.
    checkpointer: checkpoint::Checkpointer,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    pub fn open(path: &Path, options: &StoreOptions) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        Self::init(conn, path, options, true)
    }

    /// Opens an existing keel database without creating one; for commands that only read. A
    /// file that holds no keel database yet (for example an empty file) is
    /// [`StoreError::NoDatabase`] and is left untouched.
    pub fn open_existing(path: &Path, options: &StoreOptions) -> Result<Self, StoreError> {
        if !path.exists() {
            return Err(StoreError::NoDatabase {
                path: path.display().to_string(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        Self::init(conn, path, options, false)
    }

    fn init(
        mut conn: Connection,
        path: &Path,
        options: &StoreOptions,
        create: bool,
    ) -> Result<Self, StoreError> {
        conn.busy_timeout(options.busy_timeout)?;
        // Room for every statement the store prepares (rusqlite keeps 16 by default, fewer
        // than a turn's writes and reads use, so they evicted one another and were parsed
        // again).
        conn.set_prepared_statement_cache_capacity(64);
        let shown = path.display().to_string();
        // Look before touching: nothing is written to a file we will refuse.
        // The first read is where a file that is not SQLite's says so; said once, with its name.
        let app_id: i64 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::NotADatabase) => StoreError::NotADatabase {
                    path: shown.clone(),
                },
                _ => e.into(),
            })?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if app_id != 0 && app_id != APPLICATION_ID {
            return Err(StoreError::NotKeel {
                path: shown,
                found: app_id,
            });
        }
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: shown,
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if app_id == 0 && version == 0 {
            let tables: i64 =
                conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
            if tables > 0 {
                return Err(StoreError::NotKeel {
                    path: shown,
                    found: app_id,
                });
            }
            if !create {
                return Err(StoreError::NoDatabase { path: shown });
            }
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        for (from, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // Another process may have migrated while we waited for the lock.
            let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            if now > from as i64 {
                continue;
            }
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", from as i64 + 1)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            tx.commit()?;
        }
        checkpoint::watch(&conn);
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            checkpointer: checkpoint::Checkpointer::new(path),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes each of `runs` whole, with the runs that are its tasks (origin `task of RUN`,
    /// and theirs in turn), in one transaction: every row of every table that holds a part
    /// of them. A run another live keel process holds (its lease is in force) is refused with
    /// [`StoreError::RunInUse`] and nothing is deleted, or, with
    /// [`DeleteOptions::skip_in_use`], left out with its tasks and said in
    /// [`Deletion::skipped`]. With [`DeleteOptions::dry_run`] nothing is committed: the
    /// answer says what would go.
    pub fn delete_runs(
        &mut self,
        runs: &[String],
        options: &DeleteOptions<'_>,
    ) -> Result<Deletion, StoreError> {
        delete::delete_runs(self, runs, options)
    }

    fn write_tx(&mut self) -> Result<WriteTx<'_>, StoreError> {
        Ok(WriteTx::begin(&self.conn, &self.checkpointer)?)
    }
}

/// A write transaction: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK` when it is dropped
/// uncommitted — what `rusqlite::Transaction` does, with both statements kept prepared in the
/// connection's cache. A durable step writes twice (three times before issue 18), and
/// rusqlite's transaction parses and plans `BEGIN` and `COMMIT` afresh each time
/// (`execute_batch`), about a sixth of the instructions of such a write.
pub(super) struct WriteTx<'a> {
    conn: &'a Connection,
    checkpointer: &'a checkpoint::Checkpointer,
}

impl<'a> WriteTx<'a> {
    fn begin(
        conn: &'a Connection,
        checkpointer: &'a checkpoint::Checkpointer,
    ) -> rusqlite::Result<Self> {
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(Self { conn, checkpointer })
    }

    /// Commits, then asks for a checkpoint if the log has grown long enough
    /// ([`checkpoint`]): the commit is durable before it, as without.
    pub(super) fn commit(self) -> rusqlite::Result<()> {
        checkpoint::reset();
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.checkpointer
            .committed(self.conn, checkpoint::log_pages());
        Ok(())
    }

    pub(super) fn rollback(self) -> rusqlite::Result<()> {
        self.conn.prepare_cached("ROLLBACK")?.execute([])?;
        Ok(())
    }
}

impl std::ops::Deref for WriteTx<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        // Still in the transaction: it was neither committed nor rolled back, or its COMMIT
        // failed. (Nothing to report from a drop; the write's error is the caller's.)
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// A head row as read, before its language JSON is parsed.
type RawHead = (RunHead, Option<String>);

fn head_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawHead> {
    Ok((
        RunHead {
            id: r.get(0)?,
            created_at: Timestamp(r.get(1)?),
            updated_at: Timestamp(r.get(2)?),
            preset: r.get(3)?,
            model: r.get(8)?,
            origin: r.get(9)?,
            cwd: r.get::<_, Option<String>>(10)?.map(PathBuf::from),
            version: r.get::<_, i64>(4)? as u64,
            next_seq: r.get::<_, i64>(5)? as u64,
            language: ConversationLanguage::default(),
            turn_open: r.get::<_, i64>(7)? != 0,
        },
        r.get(6)?,
    ))
}

fn parse_head((mut head, language): RawHead) -> Result<RunHead, StoreError> {
    if let Some(json) = language {
        head.language = serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
            run: head.id.clone(),
            what: "language".into(),
            reason: e.to_string(),
        })?;
    }
    Ok(head)
}

const HEAD_COLUMNS: &str = "id, created_at, updated_at, preset, version, next_seq, language, turn_open, model, origin, cwd";

/// The head as a write needs it (`RunRecord::apply` and the head row's update): its version,
/// next sequence number, `updated_at` and turn state, and its language only for a write that
/// changes the language (the column is written only then). The columns a write never reads
/// (preset, model, origin, cwd, created_at) are left empty: the head is not returned. Reading
/// and parsing the whole row was an eighth of a write's instructions.
fn read_head_for_write(
    conn: &Connection,
    id: &str,
    with_language: bool,
) -> Result<RunHead, StoreError> {
    let sql = if with_language {
        "SELECT version, next_seq, updated_at, turn_open, language FROM runs WHERE id = ?1"
    } else {
        "SELECT version, next_seq, updated_at, turn_open, NULL FROM runs WHERE id = ?1"
    };
    let raw = conn
        .prepare_cached(sql)?
        .query_row([id], |r| {
            Ok((
                RunHead {
                    id: id.to_string(),
                    created_at: Timestamp(0),
                    updated_at: Timestamp(r.get(2)?),
                    preset: String::new(),
                    model: String::new(),
                    origin: None,
                    cwd: None,
                    version: r.get::<_, i64>(0)? as u64,
                    next_seq: r.get::<_, i64>(1)? as u64,
                    language: ConversationLanguage::default(),
                    turn_open: r.get::<_, i64>(3)? != 0,
                },
                r.get(4)?,
            ))
        })
        .optional()?
        .ok_or_else(|| StoreError::RunNotFound(id.to_string()))?;
    parse_head(raw)
}

fn read_head(conn: &Connection, id: &str) -> Result<RunHead, StoreError> {
    let raw = conn
        .prepare_cached(&format!("SELECT {HEAD_COLUMNS} FROM runs WHERE id = ?1"))?
        .query_row([id], head_from_row)
        .optional()?
        .ok_or_else(|| StoreError::RunNotFound(id.to_string()))?;
    parse_head(raw)
}

fn insert_items(tx: &Connection, run: &str, items: &[Item]) -> Result<(), StoreError> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO items (run_id, seq, id, kind, ts, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for item in items {
        let body = keel_core::item::encode_body(&item.body);
        stmt.execute(params![
            run,
            item.seq as i64,
            item.id.as_str(),
            item.body.kind_name(),
            item.ts.millis(),
            body
        ])?;
    }
    Ok(())
}

fn replace_notes(tx: &Connection, run: &str, notes: &SystemNotes) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM notes WHERE run_id = ?1")?
        .execute([run])?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO notes (run_id, position, text, lifetime, tag) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (pos, note) in notes.iter().enumerate() {
        stmt.execute(params![
            run,
            pos as i64,
            note.text,
            note.lifetime.as_str(),
            note.tag.as_ref().map(NoteTag::as_str)
        ])?;
    }
    Ok(())
}

/// Reads notes tolerantly (N28): a malformed row is skipped and reported.
fn read_notes(
    conn: &Connection,
    run: &str,
) -> Result<(SystemNotes, Vec<(usize, String)>), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT text, lifetime, tag FROM notes WHERE run_id = ?1 ORDER BY position",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    let mut notes = Vec::new();
    let mut skipped = Vec::new();
    for (pos, row) in rows.enumerate() {
        let (text, lifetime, tag) = row?;
        let Some(lifetime) = NoteLifetime::parse(&lifetime) else {
            let reason = format!("unknown lifetime {lifetime:?}");
            tracing::warn!(run, position = pos, %reason, "skipped a malformed system note");
            skipped.push((pos, reason));
            continue;
        };
        let tag = match tag.map(NoteTag::new).transpose() {
            Ok(tag) => tag,
            Err(e) => {
                let reason = e.to_string();
                tracing::warn!(run, position = pos, %reason, "skipped a malformed system note");
                skipped.push((pos, reason));
                continue;
            }
        };
        notes.push(SystemNote {
            text,
            lifetime,
            tag,
        });
    }
    Ok((SystemNotes::from_stored(notes), skipped))
}

impl RunStore for SqliteStore {
    fn create_run(&mut self, run: NewRun) -> Result<RunHead, StoreError> {
        let tx = self.write_tx()?;
        let exists: Option<i64> = tx
            .query_row("SELECT 1 FROM runs WHERE id = ?1", [&run.id], |r| r.get(0))
            .optional()?;
        if exists.is_some() {
            return Err(StoreError::RunExists(run.id));
        }
        let head = RunHead {
            id: run.id.clone(),
            created_at: run.now,
            updated_at: run.now,
            preset: run.preset,
            model: run.model,
            origin: run.origin,
            cwd: run.cwd,
            version: 1,
            next_seq: run.items.len() as u64,
            language: ConversationLanguage::default(),
            turn_open: run.open_turn,
        };
        tx.execute(
            "INSERT INTO runs (id, created_at, updated_at, preset, version, next_seq, model, \
             origin, turn_open, cwd) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                head.id,
                head.created_at.millis(),
                head.updated_at.millis(),
                head.preset,
                head.version as i64,
                head.next_seq as i64,
                head.model,
                head.origin,
                i64::from(head.turn_open),
                // A path that is not UTF-8 is stored lossily: a resume then finds it missing
                // and says so rather than acting somewhere else.
                head.cwd.as_ref().map(|d| d.to_string_lossy().into_owned())
            ],
        )?;
        let items: Vec<Item> = (0..)
            .zip(run.items)
            .map(|(seq, n)| Item {
                seq,
                id: n.id,
                ts: n.ts,
                body: n.body,
            })
            .collect();
        insert_items(&tx, &run.id, &items)?;
        let mut notes = SystemNotes::new();
        for op in run.note_ops {
            notes.apply(op, keel_core::notes::DEFAULT_MAX_UNTAGGED)?;
        }
        replace_notes(&tx, &run.id, &notes)?;
        tx.commit()?;
        Ok(head)
    }

    fn run_head(&self, id: &str) -> Result<RunHead, StoreError> {
        read_head(&self.conn, id)
    }

    fn load_run(&self, id: &str) -> Result<RunRecord, StoreError> {
        // One read transaction, so the head, items and notes are one consistent snapshot.
        let tx = self.conn.unchecked_transaction()?;
        let head = read_head(&tx, id)?;
        let mut stmt = tx
            .prepare_cached("SELECT seq, id, ts, body FROM items WHERE run_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut items = Vec::with_capacity(head.next_seq as usize);
        for row in rows {
            let (seq, item_id, ts, body) = row?;
            let corrupt = |reason: String| StoreError::CorruptItem {
                run: id.to_string(),
                seq,
                reason,
            };
            items.push(Item {
                seq,
                id: item_id
                    .try_into()
                    .map_err(|e: keel_core::item::EmptyId| corrupt(e.to_string()))?,
                ts: Timestamp(ts),
                body: keel_core::item::decode_body(&body).map_err(|e| corrupt(e.to_string()))?,
            });
        }
        drop(stmt);
        let (notes, skipped_notes) = read_notes(&tx, id)?;
        let compaction = compaction::read(&tx, id, true)?.pop();
        tx.commit()?;
        Ok(RunRecord {
            head,
            items,
            notes,
            skipped_notes,
            compaction,
        })
    }

    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT r.id, r.created_at, r.updated_at, r.preset, r.version, r.next_seq, \
                    r.language, r.turn_open, r.model, r.origin, r.cwd, \
                    (SELECT count(*) FROM notes n WHERE n.run_id = r.id), \
                    (SELECT i.body FROM items i WHERE i.run_id = r.id AND i.kind = 'user' \
                     ORDER BY i.seq LIMIT 1) \
             FROM runs r ORDER BY r.updated_at DESC, r.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                head_from_row(r)?,
                r.get::<_, i64>(11)? as u64,
                r.get::<_, Option<String>>(12)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (raw, notes_count, first_user) = row?;
            // A body that does not decode (written by a newer keel) has no task to show.
            let task = first_user
                .and_then(|body| keel_core::item::decode_body(&body).ok())
                .and_then(|body| match body {
                    keel_core::ItemBody::User { text } => Some(text),
                    _ => None,
                });
            out.push(RunSummary {
                head: parse_head(raw)?,
                notes_count,
                task,
            });
        }
        Ok(out)
    }

    fn commit_kept(&mut self, run: &str, write: &RunWrite) -> Result<Committed, StoreError> {
        let tx = self.write_tx()?;
        // The run as the write needs it (`RunRecord::apply` reads no more): its head, its notes
        // if the write changes them, its last compaction round if it records one, and none of
        // its items, which a write only appends to. So a write's cost does not grow with history.
        let head = read_head_for_write(&tx, run, write.language.is_some())?;
        let (notes, skipped_notes) = if write.changes_notes() {
            read_notes(&tx, run)?
        } else {
            Default::default()
        };
        let compaction = match write.compaction {
            Some(_) => compaction::read(&tx, run, true)?.pop(),
            None => None,
        };
        let mut record = RunRecord {
            head,
            items: Vec::new(),
            notes,
            skipped_notes,
            compaction,
        };
        let applied = record.apply(write)?;
        // What follows persists what `apply` computed, and writes the parts of the write that
        // live in the run's other tables.
        insert_items(&tx, run, &record.items)?;
        if write.close_turn {
            crash_point("close:after-items");
        }
        ledger::write_ledger_changes(&tx, run, &write.ledger, write.now)?;
        if !write.note_ops.is_empty() {
            // The stored notes, changed only by note operations, in this transaction (N1); a
            // close's consumption of the `Turn` notes is already in them.
            replace_notes(&tx, run, &record.notes)?;
        } else if write.close_turn {
            // Only the `Turn` rows go; a malformed row (N28) stays, as it would without a close.
            tx.prepare_cached("DELETE FROM notes WHERE run_id = ?1 AND lifetime = 'turn'")?
                .execute([run])?;
        }
        for settle in &applied.settled {
            let changed = tx
                .prepare_cached(
                    "UPDATE notification_queue SET state = ?1, item_seq = ?2, settled_at = ?3 \
                     WHERE arrival = ?4 AND run_id = ?5 AND state = 'pending'",
                )?
                .execute(params![
                    settle.state.as_str(),
                    settle.item_seq.map(|s| s as i64),
                    write.now.millis(),
                    settle.arrival as i64,
                    run
                ])?;
            if changed != 1 {
                return Err(StoreError::NotPending {
                    run: run.to_string(),
                    arrival: settle.arrival,
                });
            }
        }
        if let Some(c) = &write.compaction {
            compaction::insert(&tx, run, c)?;
        }
        let head = &record.head;
        // The language column is written only by a write that carries one, so a run that never
        // had one keeps reading as the default.
        let language =
            match &write.language {
                Some(_) => Some(serde_json::to_string(&head.language).map_err(|e| {
                    StoreError::Corrupt {
                        run: run.to_string(),
                        what: "language".into(),
                        reason: e.to_string(),
                    }
                })?),
                None => None,
            };
        tx.prepare_cached(
            "UPDATE runs SET version = ?1, next_seq = ?2, updated_at = ?3, turn_open = ?4, \
             language = coalesce(?5, language) WHERE id = ?6",
        )?
        .execute(params![
            head.version as i64,
            head.next_seq as i64,
            head.updated_at.millis(),
            i64::from(head.turn_open),
            language,
            run
        ])?;
        if write.close_turn {
            crash_point("close:before-commit");
        }
        if !write.queue.is_empty() {
            crash_point("deliver:before-commit");
        }
        tx.commit()?;
        if write.close_turn {
            crash_point("close:after-commit");
        }
        Ok(applied.committed)
    }

    fn recent_user_texts(&self, run: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        // Newest first, withdrawal markers among them: a marker comes after the turn it
        // withdraws, so the user items it covers are skipped as they are met. Read lazily, so
        // only as many rows as it takes are read.
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, body FROM items WHERE run_id = ?1 AND kind IN ('user', 'withdrawal') \
             ORDER BY seq DESC",
        )?;
        let rows = stmt.query_map(params![run], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
        })?;
        let mut texts = Vec::new();
        let mut withdrawn: Vec<(u64, u64)> = Vec::new();
        for row in rows {
            if texts.len() >= limit {
                break;
            }
            let (seq, body) = row?;
            match keel_core::item::decode_body(&body) {
                Ok(keel_core::ItemBody::Withdrawal { from_seq, .. }) => {
                    withdrawn.push((from_seq, seq));
                }
                Ok(keel_core::ItemBody::User { text }) => {
                    if !withdrawn
                        .iter()
                        .any(|&(from, to)| (from..=to).contains(&seq))
                    {
                        texts.push(text);
                    }
                }
                Ok(_) | Err(_) => {
                    return Err(StoreError::CorruptItem {
                        run: run.to_string(),
                        seq,
                        reason: "a user or withdrawal row whose body is another kind".into(),
                    });
                }
            }
        }
        texts.reverse();
        Ok(texts)
    }
}

impl QueueStore for SqliteStore {
    fn enqueue_notification(&mut self, run: &str, n: NewNotification) -> Result<u64, StoreError> {
        queue::enqueue_notification(self, run, n)
    }

    fn pending_notifications(&self, run: &str) -> Result<Vec<QueuedNotification>, StoreError> {
        queue::pending_notifications(&self.conn, run)
    }

    fn delivered_notification_ids(&self, run: &str) -> Result<HashSet<String>, StoreError> {
        queue::delivered_notification_ids(&self.conn, run)
    }

    fn notifications(&self, run: &str) -> Result<Vec<NotificationRecord>, StoreError> {
        queue::notifications(&self.conn, run)
    }
}

impl ApprovalStore for SqliteStore {
    fn record_approval(&mut self, run: &str, a: &ApprovalRecord) -> Result<(), StoreError> {
        ledger::record_approval(self, run, a)
    }

    fn approvals(&self, run: &str) -> Result<Vec<ApprovalRecord>, StoreError> {
        ledger::approvals(&self.conn, run)
    }
}

impl LedgerStore for SqliteStore {
    fn ledger(&self, run: &str) -> Result<Vec<crate::LedgerEntry>, StoreError> {
        ledger::ledger(&self.conn, run)
    }
}

impl CompactionStore for SqliteStore {
    fn compactions(&self, run: &str) -> Result<Vec<keel_core::compaction::Compaction>, StoreError> {
        compaction::read(&self.conn, run, false)
    }
}

impl DesktopStore for SqliteStore {
    fn record_lease(&mut self, run: &str, event: &crate::LeaseEvent) -> Result<(), StoreError> {
        desktop::record_lease(self, run, event)
    }

    fn lease_events(&self, run: &str) -> Result<Vec<crate::LeaseEvent>, StoreError> {
        desktop::lease_events(&self.conn, run)
    }

    fn set_desktop_pause(&mut self, pause: Option<&crate::DesktopPause>) -> Result<(), StoreError> {
        desktop::set_pause(&self.conn, pause)
    }

    fn desktop_pause(&self) -> Result<Option<crate::DesktopPause>, StoreError> {
        desktop::pause(&self.conn)
    }
}

impl RunLeaseStore for SqliteStore {
    fn take_run_lease(
        &mut self,
        run: &str,
        holder: &LeaseHolder,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<Acquired, StoreError> {
        lease::take(self, run, holder, now, expires_at)
    }

    fn renew_run_lease(
        &mut self,
        run: &str,
        holder: &LeaseHolder,
        expires_at: Timestamp,
    ) -> Result<bool, StoreError> {
        lease::renew(&self.conn, run, holder, expires_at)
    }

    fn release_run_lease(&mut self, run: &str, holder: &LeaseHolder) -> Result<bool, StoreError> {
        lease::release(&self.conn, run, holder)
    }

    fn run_lease(&self, run: &str) -> Result<Option<RunLeaseRecord>, StoreError> {
        lease::read(&self.conn, run)
    }
}
