//! WAL checkpoints off the writer's path (issue 18).
//!
//! In WAL mode a commit appends its pages to the `-wal` file; a checkpoint copies them into
//! the database file and syncs it, after which the log starts over. SQLite's default runs the
//! checkpoint inside the commit that takes the log past 1,000 pages, on the writer's thread:
//! every ~90 steps of an agent one step paid for copying the whole log and for two `fsync`s
//! (1–4 ms on an ext4 disk), which was the step's p99. Here the writer's connection only
//! notes how long the log is after each commit (SQLite's WAL hook; registering it turns the
//! automatic checkpoint off), and past the same 1,000 pages asks a thread of its own, with its
//! own connection, to run the same checkpoint (`PASSIVE`: it never waits for, or blocks, a
//! reader or the writer). The writer goes on committing meanwhile.
//!
//! Nothing a commit promises changes: a commit is durable against a crash of the process when
//! it is in the log, before and after a checkpoint alike (docs/storage.md, "Durability"), and
//! a checkpoint interrupted at any point is one SQLite recovers from, whichever connection ran
//! it. What changes is only who copies the log: the thread starts the first time the log is
//! long enough, and stops when the store is dropped (SQLite checkpoints what is left when the
//! last connection closes). Where no thread can be started, the writer checkpoints itself,
//! as SQLite would have.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

use rusqlite::Connection;

/// Log pages past which a checkpoint is asked for: SQLite's own default.
pub(super) const CHECKPOINT_PAGES: i32 = 1000;

thread_local! {
    /// The pages in the log after the last commit on this thread, as the WAL hook reported
    /// them (the hook is a plain function: it can reach no store). A commit's reader resets
    /// it first, so a commit that reports nothing reads as zero.
    static LOG_PAGES: Cell<i32> = const { Cell::new(0) };
}

fn note_log_pages(_: &rusqlite::hooks::Wal, pages: std::ffi::c_int) -> rusqlite::Result<()> {
    LOG_PAGES.set(pages);
    Ok(())
}

/// Registers the hook that notes the log's length on `conn`, which turns SQLite's own
/// checkpoint-in-the-commit off for it.
pub(super) fn watch(conn: &Connection) {
    conn.wal_hook(Some(note_log_pages));
}

/// Forgets the length noted by an earlier commit on this thread (another store's, perhaps):
/// called before a commit, whose own length [`log_pages`] then reads.
pub(super) fn reset() {
    LOG_PAGES.set(0);
}

/// The log's pages after this thread's last commit.
pub(super) fn log_pages() -> i32 {
    LOG_PAGES.get()
}

/// One store's checkpointing thread, started when first needed.
pub(super) struct Checkpointer {
    path: PathBuf,
    shared: Arc<Shared>,
    /// The thread, once started; `None` in it when none could be (or the database has no
    /// file of its own): the writer then checkpoints itself.
    thread: OnceLock<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// A checkpoint was asked for and has not finished.
    asked: bool,
    stop: bool,
    /// Checkpoints the thread ran (for the tests).
    done: u64,
}

impl Checkpointer {
    pub(super) fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            shared: Arc::default(),
            thread: OnceLock::new(),
        }
    }

    /// After a commit on `conn` that left the log `pages` long: asks for a checkpoint once it
    /// is long enough, unless one is under way.
    pub(super) fn committed(&self, conn: &Connection, pages: i32) {
        if pages < CHECKPOINT_PAGES {
            return;
        }
        if self.thread.get_or_init(|| self.start()).is_none() {
            // As SQLite's automatic checkpoint does; a failure is the next commit's to meet.
            let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
            return;
        }
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !state.asked {
            state.asked = true;
            self.shared.wake.notify_one();
        }
    }

    fn start(&self) -> Option<JoinHandle<()>> {
        // An in-memory database has no log, and another connection would open another one.
        let path = self.path.as_os_str();
        if path.is_empty() || path == ":memory:" {
            return None;
        }
        let conn = Connection::open(&self.path).ok()?;
        let shared = Arc::clone(&self.shared);
        std::thread::Builder::new()
            .name("keel-checkpoint".into())
            .spawn(move || run(&conn, &shared))
            .ok()
    }

    /// Checkpoints the thread has run so far.
    #[cfg(test)]
    pub(super) fn done(&self) -> u64 {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .done
    }

    /// Whether a checkpoint was asked for and has not finished.
    #[cfg(test)]
    pub(super) fn asked(&self) -> bool {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .asked
    }

    /// Whether this store's checkpoints run on a thread of their own.
    #[cfg(test)]
    pub(super) fn threaded(&self) -> bool {
        self.thread.get().is_some_and(Option::is_some)
    }
}

fn run(conn: &Connection, shared: &Shared) {
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        while !state.asked && !state.stop {
            state = shared
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if state.stop {
            return;
        }
        drop(state);
        // PASSIVE copies what no reader still needs and never waits; what it leaves, a later
        // checkpoint copies. A failure (the disk full, say) leaves the log longer, as a failed
        // automatic checkpoint would, and is asked again after the next commit.
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.asked = false;
        state.done += 1;
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take().flatten() {
            self.shared
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .stop = true;
            self.shared.wake.notify_one();
            // It finishes the checkpoint it is running, if any, and closes its connection.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::{SqliteStore, StoreOptions};

    fn wal_pages(path: &std::path::Path) -> u64 {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(&wal).map_or(0, |m| m.len() / 4096)
    }

    /// Commits add to the log and nothing checkpoints them while it is short; past
    /// [`super::CHECKPOINT_PAGES`] the store's own thread copies it into the database, the
    /// log starts over, and every row is there after a reopen.
    #[test]
    fn a_long_log_is_checkpointed_by_the_stores_thread() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("keel.db");
        let mut store = SqliteStore::open(&path, &StoreOptions::default())?;
        store
            .conn
            .execute_batch("CREATE TABLE scratch (x BLOB NOT NULL)")?;
        let db_pages = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len() / 4096);
        let before = db_pages(&path);
        // About five pages a commit (a 16 KB row): 150 commits stay under 1,000 pages.
        let commit = |store: &mut SqliteStore| -> Result<(), Box<dyn std::error::Error>> {
            let tx = store.write_tx()?;
            tx.execute("INSERT INTO scratch VALUES (zeroblob(16000))", [])?;
            tx.commit()?;
            Ok(())
        };
        for _ in 0..150 {
            commit(&mut store)?;
        }
        assert!(!store.checkpointer.threaded());
        assert_eq!(store.checkpointer.done(), 0);
        assert_eq!(db_pages(&path), before, "nothing checkpointed yet");
        let logged = wal_pages(&path);
        assert!((600..1000).contains(&logged), "{logged} pages in the log");
        for _ in 0..100 {
            commit(&mut store)?;
        }
        let mut rows = 250;
        // A checkpoint that found the log busy copies what it can, perhaps nothing (a loaded
        // CI machine's first one did), and the next commit asks again: commit on until the
        // rows are in the database.
        let deadline = Instant::now() + Duration::from_secs(20);
        while (store.checkpointer.done() == 0 || db_pages(&path) <= before + 500)
            && Instant::now() < deadline
        {
            if store.checkpointer.done() > 0 && !store.checkpointer.asked() {
                commit(&mut store)?;
                rows += 1;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(store.checkpointer.threaded());
        assert!(store.checkpointer.done() >= 1);
        assert!(
            db_pages(&path) > before + 500,
            "the rows are in the database"
        );
        // The log starts over at a commit after a checkpoint that copied all of it (one that
        // ran while commits went on copies what it can, and the next one the rest).
        let mut restarted = false;
        for _ in 0..10 {
            let idle = Instant::now() + Duration::from_secs(20);
            while store.checkpointer.asked() && Instant::now() < idle {
                std::thread::sleep(Duration::from_millis(5));
            }
            commit(&mut store)?;
            rows += 1;
            if super::log_pages() < 100 {
                restarted = true;
                break;
            }
        }
        assert!(restarted, "the log never started over");
        drop(store);
        let store = SqliteStore::open(&path, &StoreOptions::default())?;
        let stored: i64 = store
            .conn
            .query_row("SELECT count(*) FROM scratch", [], |r| r.get(0))?;
        assert_eq!(stored, rows);
        Ok(())
    }
}
