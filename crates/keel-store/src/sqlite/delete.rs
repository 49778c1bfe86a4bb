//! Deleting runs whole (`keel runs delete`, `keel runs prune`): every row of a run, in every
//! table that holds a part of it, with the runs that are its background tasks, in one
//! transaction.

use std::collections::HashSet;

use keel_core::Timestamp;
use rusqlite::{Connection, params};

use super::{SqliteStore, lease, read_head};
use crate::{LeaseHolder, RunLeaseRecord, StoreError};

/// How a background task's run names its parent (keel-runtime's `spawn_task`).
const TASK_OF: &str = "task of ";

/// The tables that hold a part of a run, keyed by `run_id`; the `runs` row goes last.
const RUN_TABLES: &[&str] = &[
    "items",
    "notes",
    "notification_queue",
    "dispatch_ledger",
    "approvals",
    "compactions",
    "desktop_leases",
    "run_leases",
];

/// How [`SqliteStore::delete_runs`] deletes.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeleteOptions<'a> {
    /// The deleting process, when it may hold a lease of one of the runs itself (a run it
    /// holds is not "in use by another process").
    pub holder: Option<&'a LeaseHolder>,
    /// Leave out a run another live process holds (with its tasks), instead of refusing all.
    pub skip_in_use: bool,
    /// Commit nothing: say what would go.
    pub dry_run: bool,
}

/// A run deleted (or, in a dry run, that would be).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletedRun {
    pub id: String,
    /// The run asked for that this one is a task of (directly or through other tasks); `None`
    /// for a run asked for itself.
    pub task_of: Option<String>,
    /// How many items it held.
    pub items: u64,
}

/// A run left out because another live process holds it (or holds one of its tasks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedRun {
    pub id: String,
    pub lease: RunLeaseRecord,
}

/// What [`SqliteStore::delete_runs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deletion {
    /// In the order asked, each run followed by its tasks.
    pub deleted: Vec<DeletedRun>,
    pub skipped: Vec<SkippedRun>,
}

pub(super) fn delete_runs(
    store: &mut SqliteStore,
    runs: &[String],
    options: &DeleteOptions<'_>,
) -> Result<Deletion, StoreError> {
    let tx = store.write_tx()?;
    let now = crate::lease::now();
    let mut done: HashSet<String> = HashSet::new();
    let mut deletion = Deletion::default();
    for root in runs {
        if done.contains(root) {
            continue;
        }
        let family = family(&tx, root)?;
        if let Some((member, lease)) = in_use(&tx, &family, options.holder, now)? {
            if options.skip_in_use {
                done.extend(family.iter().map(|(id, _)| id.clone()));
                deletion.skipped.push(SkippedRun {
                    id: root.clone(),
                    lease,
                });
                continue;
            }
            return Err(StoreError::RunInUse {
                task_of: (member != *root).then(|| root.clone()),
                run: member,
                pid: lease.holder.pid,
                host: lease.holder.host,
                since: lease.acquired_at,
            });
        }
        for (id, items) in family {
            if !done.insert(id.clone()) {
                continue;
            }
            delete_one(&tx, &id)?;
            deletion.deleted.push(DeletedRun {
                task_of: (id != *root).then(|| root.clone()),
                id,
                items,
            });
        }
    }
    if options.dry_run {
        tx.rollback()?;
    } else {
        tx.commit()?;
    }
    Ok(deletion)
}

/// `root` and the runs that are its tasks, theirs in turn, root first, each with its item
/// count. A run that is not there is [`StoreError::RunNotFound`].
fn family(tx: &Connection, root: &str) -> Result<Vec<(String, u64)>, StoreError> {
    let head = read_head(tx, root)?;
    let mut out = vec![(head.id, head.next_seq)];
    let mut stmt = tx.prepare_cached(
        "SELECT id, next_seq FROM runs WHERE origin = ?1 ORDER BY created_at, id",
    )?;
    let mut i = 0;
    while i < out.len() {
        let origin = format!("{TASK_OF}{}", out[i].0);
        let children = stmt
            .query_map([origin], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        for child in children {
            // A cycle cannot be made by keel; a hand-edited database is not followed round.
            if !out.iter().any(|(id, _)| *id == child.0) {
                out.push(child);
            }
        }
        i += 1;
    }
    Ok(out)
}

/// The first run of `family` another live process holds, and its lease.
fn in_use(
    tx: &Connection,
    family: &[(String, u64)],
    holder: Option<&LeaseHolder>,
    now: Timestamp,
) -> Result<Option<(String, RunLeaseRecord)>, StoreError> {
    for (id, _) in family {
        if let Some(lease) = lease::read(tx, id)?
            && lease.in_force(now)
            && holder.is_none_or(|h| h.token != lease.holder.token)
        {
            return Ok(Some((id.clone(), lease)));
        }
    }
    Ok(None)
}

/// Every row of run `id`. Its items and compaction records are append-only but for this:
/// the run is named in `run_deletions` for the length of the deletion (schema v6).
fn delete_one(tx: &Connection, id: &str) -> Result<(), StoreError> {
    tx.prepare_cached("INSERT INTO run_deletions (run_id) VALUES (?1)")?
        .execute([id])?;
    for table in RUN_TABLES {
        tx.prepare_cached(&format!("DELETE FROM {table} WHERE run_id = ?1"))?
            .execute(params![id])?;
    }
    tx.prepare_cached("DELETE FROM runs WHERE id = ?1")?
        .execute([id])?;
    tx.prepare_cached("DELETE FROM run_deletions WHERE run_id = ?1")?
        .execute([id])?;
    Ok(())
}
