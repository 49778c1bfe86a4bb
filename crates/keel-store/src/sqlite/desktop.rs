//! Desktop leases and the desktop-control pause (computer-use.md N30, N41). Lease changes are
//! append-only rows, so the last one says whether a run's gate is shut, and a lease a crashed
//! process left held can be found and its release recorded beside it.

use keel_core::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, read_head};
use crate::{DesktopPause, LeaseChange, LeaseEvent, StoreError};

pub(super) fn record_lease(
    store: &mut SqliteStore,
    run: &str,
    e: &LeaseEvent,
) -> Result<(), StoreError> {
    let tx = store.write_tx()?;
    read_head(&tx, run)?;
    let next: i64 = tx
        .prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM desktop_leases WHERE run_id = ?1")?
        .query_row([run], |r| r.get(0))?;
    tx.prepare_cached(
        "INSERT INTO desktop_leases (run_id, seq, event, window, detail, at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        run,
        next,
        e.change.as_str(),
        e.window,
        e.detail,
        e.at.millis()
    ])?;
    tx.commit()?;
    Ok(())
}

pub(super) fn lease_events(conn: &Connection, run: &str) -> Result<Vec<LeaseEvent>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT event, window, detail, at FROM desktop_leases WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (event, window, detail, at) = row?;
        let change = LeaseChange::parse(&event).ok_or_else(|| StoreError::Corrupt {
            run: run.to_string(),
            what: "desktop lease".into(),
            reason: format!("unknown lease event {event:?}"),
        })?;
        out.push(LeaseEvent {
            change,
            window,
            detail,
            at: Timestamp(at),
        });
    }
    Ok(out)
}

pub(super) fn set_pause(conn: &Connection, pause: Option<&DesktopPause>) -> Result<(), StoreError> {
    match pause {
        Some(p) => conn
            .prepare_cached(
                "INSERT INTO desktop_control (id, paused_at, paused_by) VALUES (1, ?1, ?2) \
                 ON CONFLICT (id) DO UPDATE SET paused_at = ?1, paused_by = ?2",
            )?
            .execute(params![p.at.millis(), p.by])?,
        None => conn
            .prepare_cached("DELETE FROM desktop_control")?
            .execute([])?,
    };
    Ok(())
}

pub(super) fn pause(conn: &Connection) -> Result<Option<DesktopPause>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT paused_at, paused_by FROM desktop_control WHERE id = 1")?
        .query_row([], |r| {
            Ok(DesktopPause {
                at: Timestamp(r.get(0)?),
                by: r.get(1)?,
            })
        })
        .optional()?)
}
