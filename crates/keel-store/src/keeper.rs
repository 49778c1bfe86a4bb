//! [`LeaseKeeper`]: how a process holds its run leases (the `lease` module says what they are
//! for), all of them from one renewing thread through its own connection to each database.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use crate::lease::{LeaseHolder, LeaseTerms, RunLeaseRecord, after, now};
use crate::{RunLeaseStore, SqliteStore, StoreError, StoreOptions};

/// Holds a process's run leases and renews them, from one thread through its own connection
/// to each database. [`LeaseKeeper::process`] is this process's; a test makes others to play
/// other processes.
pub struct LeaseKeeper {
    shared: Arc<Shared>,
}

struct Shared {
    holder: LeaseHolder,
    state: Mutex<State>,
    /// Signalled when the set of held leases changes, so the renewing thread looks again.
    changed: Condvar,
}

/// A lease is keyed by its database and its run.
type Key = (PathBuf, String);

#[derive(Default)]
struct State {
    /// The keeper's own connection to each database it holds a lease in.
    stores: HashMap<PathBuf, SqliteStore>,
    held: HashMap<Key, Held>,
    /// The renewing thread runs (it stops when nothing is held).
    renewing: bool,
}

struct Held {
    /// How many [`RunLease`]s of this process share it.
    count: usize,
    terms: LeaseTerms,
    /// When it is renewed next.
    due: Instant,
    /// Another process took it (it had expired): it is not renewed, and not released.
    lost: bool,
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LeaseKeeper {
    /// This process's keeper.
    pub fn process() -> &'static LeaseKeeper {
        static KEEPER: OnceLock<LeaseKeeper> = OnceLock::new();
        KEEPER.get_or_init(|| LeaseKeeper::new(LeaseHolder::this_process()))
    }

    /// A keeper holding leases as `holder`.
    pub fn new(holder: LeaseHolder) -> Self {
        Self {
            shared: Arc::new(Shared {
                holder,
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
            }),
        }
    }

    pub fn holder(&self) -> &LeaseHolder {
        &self.shared.holder
    }

    /// Takes the lease of `run` in the database at `db`, on `options.lease` terms, and keeps
    /// it until the returned [`RunLease`] (and every other this keeper handed out for the run)
    /// is dropped. A run another live process holds is [`StoreError::RunHeld`], and nothing is
    /// written.
    pub fn acquire(
        &self,
        db: &Path,
        options: &StoreOptions,
        run: &str,
    ) -> Result<RunLease, StoreError> {
        let path = db.canonicalize().unwrap_or_else(|_| db.to_path_buf());
        let key = (path.clone(), run.to_string());
        let mut state = lock(&self.shared);
        if let Some(held) = state.held.get_mut(&key).filter(|h| !h.lost) {
            held.count += 1;
            return Ok(RunLease {
                shared: self.shared.clone(),
                key,
                replaced: None,
            });
        }
        if !state.stores.contains_key(&path) {
            let store = SqliteStore::open(db, options)?;
            state.stores.insert(path.clone(), store);
        }
        let terms = options.lease;
        let acquired = {
            let store = state
                .stores
                .get_mut(&path)
                .ok_or_else(|| StoreError::RunNotFound(run.to_string()))?;
            let at = now();
            store.take_run_lease(run, &self.shared.holder, at, after(at, terms.expiry))
        };
        let acquired = match acquired {
            Ok(a) => a,
            Err(e) => {
                forget_unused_store(&mut state, &path);
                return Err(e);
            }
        };
        // A lease this process lost and now takes again keeps its count: the handles of the
        // lost one are still out there, and the lease goes with the last of them all.
        let held = state.held.entry(key.clone()).or_insert(Held {
            count: 0,
            terms,
            due: Instant::now(),
            lost: false,
        });
        held.count += 1;
        held.terms = terms;
        held.due = Instant::now() + terms.renew_every;
        held.lost = false;
        if state.renewing {
            self.shared.changed.notify_all();
        } else {
            let shared = self.shared.clone();
            let started = std::thread::Builder::new()
                .name("keel lease keeper".into())
                .spawn(move || renew_until_idle(&shared));
            match started {
                Ok(_) => state.renewing = true,
                // Without the thread the lease still holds until it expires, and the version
                // check still guards every write; said, not fatal.
                Err(e) => tracing::warn!(
                    error = %e,
                    "the thread that renews run leases could not start; this process's leases \
                     will expire unrenewed"
                ),
            }
        }
        Ok(RunLease {
            shared: self.shared.clone(),
            key,
            replaced: acquired.replaced,
        })
    }
}

/// Closes the keeper's connection to a database it no longer holds anything in.
fn forget_unused_store(state: &mut State, path: &Path) {
    if !state.held.keys().any(|(p, _)| p == path) {
        state.stores.remove(path);
    }
}

/// The renewing thread: renews each lease when it is due, until nothing is held.
fn renew_until_idle(shared: &Shared) {
    let mut state = lock(shared);
    loop {
        if state.held.is_empty() {
            state.renewing = false;
            return;
        }
        let now_instant = Instant::now();
        let next = state.held.values().filter(|h| !h.lost).map(|h| h.due).min();
        match next {
            None => {
                state = shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            Some(due) if due > now_instant => {
                state = shared
                    .changed
                    .wait_timeout(state, due - now_instant)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            Some(_) => {
                let State { stores, held, .. } = &mut *state;
                for ((path, run), lease) in held.iter_mut() {
                    if lease.lost || lease.due > now_instant {
                        continue;
                    }
                    let Some(store) = stores.get_mut(path) else {
                        continue;
                    };
                    let expires = after(now(), lease.terms.expiry);
                    match store.renew_run_lease(run, &shared.holder, expires) {
                        Ok(true) => lease.due = Instant::now() + lease.terms.renew_every,
                        Ok(false) => {
                            lease.lost = true;
                            tracing::warn!(
                                run = %run,
                                "this process's lease of the run expired and another writer \
                                 took it; this process's next write to it will be refused as \
                                 stale"
                            );
                        }
                        Err(e) => {
                            // Tried again at the next interval; the lease lasts two more.
                            lease.due = Instant::now() + lease.terms.renew_every;
                            tracing::warn!(run = %run, error = %e, "could not renew the run's lease");
                        }
                    }
                }
            }
        }
    }
}

/// A held run lease. Dropping the last one of a run releases the lease.
pub struct RunLease {
    shared: Arc<Shared>,
    key: Key,
    replaced: Option<RunLeaseRecord>,
}

impl RunLease {
    pub fn run(&self) -> &str {
        &self.key.1
    }

    /// The lease this one took over when it was taken: expired, or its holder gone.
    pub fn replaced(&self) -> Option<&RunLeaseRecord> {
        self.replaced.as_ref()
    }

    /// Checks with the database, now, that this process still holds the run, renewing the
    /// lease: before each phase of writes, so a process that was paused past its lease (and
    /// lost the run to another writer meanwhile) never writes again behind that writer's back.
    /// A lease nobody else holds is taken back; one another live process holds is
    /// [`StoreError::RunHeld`], naming it.
    pub fn confirm(&self) -> Result<(), StoreError> {
        let mut state = lock(&self.shared);
        let (path, run) = &self.key;
        let Some(terms) = state.held.get(&self.key).map(|h| h.terms) else {
            return Err(StoreError::RunNotFound(run.clone()));
        };
        let Some(store) = state.stores.get_mut(path) else {
            return Err(StoreError::RunNotFound(run.clone()));
        };
        let at = now();
        store.take_run_lease(run, &self.shared.holder, at, after(at, terms.expiry))?;
        if let Some(held) = state.held.get_mut(&self.key) {
            held.lost = false;
            held.due = Instant::now() + terms.renew_every;
        }
        self.shared.changed.notify_all();
        Ok(())
    }

    /// Whether another process took the run after this lease expired unrenewed.
    pub fn is_lost(&self) -> bool {
        lock(&self.shared)
            .held
            .get(&self.key)
            .is_none_or(|h| h.lost)
    }
}

impl std::fmt::Debug for RunLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunLease")
            .field("db", &self.key.0)
            .field("run", &self.key.1)
            .finish()
    }
}

impl Drop for RunLease {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        let Some(held) = state.held.get_mut(&self.key) else {
            return;
        };
        held.count -= 1;
        if held.count > 0 {
            return;
        }
        let lost = held.lost;
        state.held.remove(&self.key);
        let (path, run) = &self.key;
        if !lost && let Some(store) = state.stores.get_mut(path) {
            // Synchronous, so a process that returns from main has released its runs.
            if let Err(e) = store.release_run_lease(run, &self.shared.holder) {
                tracing::warn!(run = %run, error = %e, "could not release the run's lease; it frees the run when it expires");
            }
        }
        forget_unused_store(&mut state, path);
        self.shared.changed.notify_all();
    }
}
