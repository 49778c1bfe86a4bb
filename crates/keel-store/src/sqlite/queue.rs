//! The notification queue: enqueue from any process, read what waits, list what happened.
//! Settling entries happens inside a run's write (`commit`).

use std::collections::HashSet;

use keel_core::Timestamp;
use keel_core::Untrusted;
use keel_core::notify::{NotificationKind, QueuedNotification};
use rusqlite::{Connection, params};

use super::{SqliteStore, read_head};
use crate::{NewNotification, NotificationRecord, QueueState, StoreError};

pub(super) fn enqueue_notification(
    store: &mut SqliteStore,
    run: &str,
    n: NewNotification,
) -> Result<u64, StoreError> {
    let tx = store.write_tx()?;
    read_head(&tx, run)?;
    tx.prepare_cached(
        "INSERT INTO notification_queue (run_id, notification_id, kind, payload, enqueued_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        run,
        n.id,
        n.kind.as_str(),
        n.payload,
        n.now.millis()
    ])?;
    let arrival = tx.last_insert_rowid() as u64;
    tx.commit()?;
    Ok(arrival)
}

pub(super) fn pending_notifications(
    conn: &Connection,
    run: &str,
) -> Result<Vec<QueuedNotification>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT arrival, notification_id, kind, payload FROM notification_queue \
         WHERE run_id = ?1 AND state = 'pending' ORDER BY arrival",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, i64>(0)? as u64,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (arrival, id, kind, payload) = row?;
        out.push(QueuedNotification {
            arrival,
            id,
            kind: parse_kind(run, &kind)?,
            payload: Untrusted::new(payload),
        });
    }
    Ok(out)
}

pub(super) fn delivered_notification_ids(
    conn: &Connection,
    run: &str,
) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT d.notification_id FROM notification_queue d \
         WHERE d.run_id = ?1 AND d.state IN ('delivered', 'merged') \
           AND d.notification_id IN (SELECT p.notification_id FROM notification_queue p \
                                     WHERE p.run_id = ?1 AND p.state = 'pending')",
    )?;
    let rows = stmt.query_map([run], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn notifications(
    conn: &Connection,
    run: &str,
) -> Result<Vec<NotificationRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT arrival, notification_id, kind, state, enqueued_at, item_seq, payload \
         FROM notification_queue WHERE run_id = ?1 ORDER BY arrival",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, i64>(0)? as u64,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, i64>(4)?,
            r.get::<_, Option<i64>>(5)?,
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (arrival, id, kind, state, enqueued_at, item_seq, payload) = row?;
        out.push(NotificationRecord {
            arrival,
            id,
            kind: parse_kind(run, &kind)?,
            state: QueueState::parse(&state).ok_or_else(|| StoreError::Corrupt {
                run: run.to_string(),
                what: format!("notification {arrival}"),
                reason: format!("unknown state {state:?}"),
            })?,
            enqueued_at: Timestamp(enqueued_at),
            item_seq: item_seq.map(|s| s as u64),
            payload_chars: payload.chars().count(),
        });
    }
    Ok(out)
}
fn parse_kind(run: &str, kind: &str) -> Result<NotificationKind, StoreError> {
    NotificationKind::parse(kind).ok_or_else(|| StoreError::Corrupt {
        run: run.to_string(),
        what: "notification".into(),
        reason: format!("unknown kind {kind:?}"),
    })
}
