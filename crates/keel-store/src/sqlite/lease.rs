//! Run leases (issue 19; the `lease` module says what they are for): one row per held run.

use keel_core::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, read_head};
use crate::StoreError;
use crate::lease::{Acquired, LeaseHolder, RunLeaseRecord};

pub(super) fn take(
    store: &mut SqliteStore,
    run: &str,
    holder: &LeaseHolder,
    now: Timestamp,
    expires_at: Timestamp,
) -> Result<Acquired, StoreError> {
    // One transaction: two processes that find a run free cannot both take it.
    let tx = store.write_tx()?;
    read_head(&tx, run)?;
    let replaced = match read(&tx, run)? {
        None => None,
        // Taken again by its own holder (after its lease expired unrenewed, say).
        Some(current) if current.holder.token == holder.token => None,
        Some(current) if !current.in_force(now) => Some(current),
        Some(current) => {
            return Err(StoreError::RunHeld {
                run: run.to_string(),
                pid: current.holder.pid,
                host: current.holder.host,
                since: current.acquired_at,
                until: current.expires_at,
            });
        }
    };
    tx.prepare_cached(
        "INSERT INTO run_leases (run_id, holder, pid, host, started, acquired_at, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT (run_id) DO UPDATE SET holder = ?2, pid = ?3, host = ?4, started = ?5, \
         acquired_at = ?6, expires_at = ?7",
    )?
    .execute(params![
        run,
        holder.token,
        i64::from(holder.pid),
        holder.host,
        holder.started.map(|s| s as i64),
        now.millis(),
        expires_at.millis()
    ])?;
    tx.commit()?;
    Ok(Acquired { replaced })
}

pub(super) fn renew(
    conn: &Connection,
    run: &str,
    holder: &LeaseHolder,
    expires_at: Timestamp,
) -> Result<bool, StoreError> {
    let changed = conn
        .prepare_cached("UPDATE run_leases SET expires_at = ?3 WHERE run_id = ?1 AND holder = ?2")?
        .execute(params![run, holder.token, expires_at.millis()])?;
    Ok(changed == 1)
}

pub(super) fn release(
    conn: &Connection,
    run: &str,
    holder: &LeaseHolder,
) -> Result<bool, StoreError> {
    let changed = conn
        .prepare_cached("DELETE FROM run_leases WHERE run_id = ?1 AND holder = ?2")?
        .execute(params![run, holder.token])?;
    Ok(changed == 1)
}

pub(super) fn read(conn: &Connection, run: &str) -> Result<Option<RunLeaseRecord>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT holder, pid, host, started, acquired_at, expires_at FROM run_leases \
             WHERE run_id = ?1",
        )?
        .query_row([run], |r| {
            Ok(RunLeaseRecord {
                run: run.to_string(),
                holder: LeaseHolder {
                    token: r.get(0)?,
                    pid: r.get::<_, i64>(1)? as u32,
                    host: r.get(2)?,
                    started: r.get::<_, Option<i64>>(3)?.map(|s| s as u64),
                },
                acquired_at: Timestamp(r.get(4)?),
                expires_at: Timestamp(r.get(5)?),
            })
        })
        .optional()?)
}
