//! One writer per run at a time (issue 19): a run's lease, who holds it, and the keeper that
//! holds a process's leases.
//!
//! Every write is already guarded by the run's version ([`StoreError::StaleWrite`]), but that
//! guard only speaks once the loser has done its work: a chat whose model took a minute to
//! answer learns at the end that another process wrote the run meanwhile. The lease says so
//! up front. A process that writes a run takes its lease first ([`LeaseKeeper::acquire`]); a
//! second process is refused before it writes anything, told who holds the run
//! ([`StoreError::RunHeld`]). The version check stays the real guard; the lease keeps two
//! writers from getting that far.
//!
//! A lease is a row with its holder (a token unique to the process, its pid, its host and the
//! process's start time) and an expiry. It is taken when the run is free, when its lease has
//! expired, or when its holder is gone: on the same host, a pid with no process, or with a
//! process that started at another time (a reused pid is not the holder). A holder on another
//! host is never judged from here; only its expiry frees the run.
//!
//! The holder renews its leases before they expire and releases them when it is done, so a
//! process that stopped on its own leaves nothing, a killed one leaves a lease the next writer
//! reclaims at once (its pid is gone), and a stopped or hung one loses its leases when they
//! expire. The lease is the process's, not a thread's: one [`LeaseKeeper`] per process holds
//! all of its leases (a server or an editor protocol holds many) and renews them from one
//! thread through its own connection; a run taken twice by one process is one lease, released
//! when its last [`RunLease`] is dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use keel_core::Timestamp;

use crate::{RunLeaseStore, SqliteStore, StoreError, StoreOptions};

/// Who holds a lease: one process, as this machine knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseHolder {
    /// Unique to the holding process (two processes never share one, whatever their pids).
    pub token: String,
    pub pid: u32,
    pub host: String,
    /// The process's start time in clock ticks after boot (`/proc/PID/stat` field 22), when
    /// the system says.
    pub started: Option<u64>,
}

impl LeaseHolder {
    /// This process.
    pub fn this_process() -> LeaseHolder {
        static THIS: OnceLock<LeaseHolder> = OnceLock::new();
        THIS.get_or_init(|| {
            use std::hash::{BuildHasher, RandomState};
            let pid = std::process::id();
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let random = RandomState::new().hash_one((nanos, pid));
            LeaseHolder {
                token: format!("{pid}-{nanos}-{random:016x}"),
                pid,
                host: host_name(),
                started: process_start_time(pid),
            }
        })
        .clone()
    }

    /// Whether this holder is a process that no longer runs, as far as this machine can tell:
    /// it ran here, and its pid has no process now, or one that started at another time. A
    /// holder of another host, or any holder where `/proc` cannot be read, is not judged.
    pub fn is_gone(&self) -> bool {
        let here = LeaseHolder::this_process();
        if self.host != here.host || here.started.is_none() {
            return false;
        }
        match process_start_time(self.pid) {
            None => true,
            Some(started) => self.started != Some(started),
        }
    }
}

/// This machine's host name, `""` where the system does not say.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// When process `pid` started, in clock ticks after boot (`/proc/PID/stat` field 22); `None`
/// when there is no such process (or no `/proc`). A zombie has stopped: `None` too.
pub fn process_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and parentheses of its
    // own: the fields after it start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // Field 3, the state: a zombie holds nothing.
    if matches!(fields.next(), Some("Z" | "X")) {
        return None;
    }
    fields.nth(22 - 4)?.parse().ok()
}

/// A run's lease as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLeaseRecord {
    pub run: String,
    pub holder: LeaseHolder,
    pub acquired_at: Timestamp,
    pub expires_at: Timestamp,
}

impl RunLeaseRecord {
    /// Whether the lease still keeps other writers out at `now`: it has not expired, and its
    /// holder is not gone ([`LeaseHolder::is_gone`]).
    pub fn in_force(&self, now: Timestamp) -> bool {
        self.expires_at > now && !self.holder.is_gone()
    }
}

/// What taking a lease found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The lease it took over: one that had expired, or whose holder is gone.
    pub replaced: Option<RunLeaseRecord>,
}

/// How long a lease lasts unless renewed, and how often its holder renews it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseTerms {
    pub expiry: Duration,
    /// Shorter than `expiry` (see [`LeaseTerms::new`]), so a live holder's lease never lapses
    /// between two renewals.
    pub renew_every: Duration,
}

/// A lease lasts this long unless renewed: long enough that a busy machine's late renewal
/// does not lose it, short enough that a hung holder frees the run soon.
pub const DEFAULT_LEASE_EXPIRY: Duration = Duration::from_secs(30);
/// A holder renews its leases this often: two renewals may fail before a lease expires.
pub const DEFAULT_LEASE_RENEW: Duration = Duration::from_secs(10);

impl Default for LeaseTerms {
    fn default() -> Self {
        Self {
            expiry: DEFAULT_LEASE_EXPIRY,
            renew_every: DEFAULT_LEASE_RENEW,
        }
    }
}

impl LeaseTerms {
    /// Terms renewing every `renew_every`, unless that is not shorter than `expiry`: then a
    /// third of `expiry`, since a lease renewed no sooner than it expires would lapse.
    pub fn new(expiry: Duration, renew_every: Duration) -> Self {
        let renew_every = if renew_every < expiry && !renew_every.is_zero() {
            renew_every
        } else {
            expiry / 3
        };
        Self {
            expiry,
            renew_every,
        }
    }
}

/// The wall clock, as leases are stamped (processes on one host compare their stamps).
pub fn now() -> Timestamp {
    Timestamp(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    )
}

fn after(t: Timestamp, d: Duration) -> Timestamp {
    Timestamp(t.millis().saturating_add(d.as_millis() as i64))
}

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
