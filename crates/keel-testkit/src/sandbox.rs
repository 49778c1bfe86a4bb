//! A temporary world on disk: a directory that holds a working directory (`work/`,
//! canonicalized, as a session's cwd is) and a database file (`keel.db`), removed when the
//! sandbox is dropped.

use std::path::{Path, PathBuf};

use keel_store::{RunStore, SqliteStore, StoreOptions};

use crate::run::new_run;

/// A temporary directory with `work/` and the path of `keel.db` in it.
pub struct Sandbox {
    dir: tempfile::TempDir,
    work: PathBuf,
}

impl Sandbox {
    /// A fresh directory with an empty `work/`; the database is created when first opened.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary directory: {e}"));
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{}: {e}", work.display()));
        let work = work
            .canonicalize()
            .unwrap_or_else(|e| panic!("{}: {e}", work.display()));
        Self { dir, work }
    }

    /// The sandbox's own directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The working directory, canonical.
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// Where the database lives.
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("keel.db")
    }

    /// The database, opened (and created) with the default options.
    pub fn store(&self) -> SqliteStore {
        open_store(&self.db())
    }

    /// The database holding run `run` ([`new_run`]).
    pub fn store_with_run(&self, run: &str) -> SqliteStore {
        store_with_run(&self.db(), run)
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

/// The database at `path`, opened (and created) with the default options.
pub fn open_store(path: &Path) -> SqliteStore {
    SqliteStore::open(path, &StoreOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The database at `path`, holding run `run` ([`new_run`]) that this call creates.
pub fn store_with_run(path: &Path, run: &str) -> SqliteStore {
    let mut store = open_store(path);
    store
        .create_run(new_run(run))
        .unwrap_or_else(|e| panic!("run {run}: {e}"));
    store
}
