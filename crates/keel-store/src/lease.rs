//! One writer per run at a time (issue 19): a run's lease, who holds it, and the keeper that
//! holds a process's leases.
//!
//! Every write is already guarded by the run's version ([`StoreError::StaleWrite`](crate::StoreError::StaleWrite)), but that
//! guard only speaks once the loser has done its work: a chat whose model took a minute to
//! answer learns at the end that another process wrote the run meanwhile. The lease says so
//! up front. A process that writes a run takes its lease first (`LeaseKeeper::acquire`); a
//! second process is refused before it writes anything, told who holds the run
//! ([`StoreError::RunHeld`](crate::StoreError::RunHeld)). The version check stays the real guard; the lease keeps two
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
//! expire. The lease is the process's, not a thread's: one `LeaseKeeper` per process holds
//! all of its leases (a server or an editor protocol holds many) and renews them from one
//! thread through its own connection; a run taken twice by one process is one lease, released
//! when its last `RunLease` is dropped.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use keel_core::Timestamp;

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

/// `t` plus `d`.
pub(crate) fn after(t: Timestamp, d: Duration) -> Timestamp {
    Timestamp(t.millis().saturating_add(d.as_millis() as i64))
}
