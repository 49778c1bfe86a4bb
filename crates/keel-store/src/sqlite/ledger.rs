//! The dispatch ledger and the record of ask_user answers.

use keel_core::Timestamp;
use rusqlite::{Connection, params};

use super::{SqliteStore, read_head};
use crate::{Answer, ApprovalRecord, StoreError};

pub(super) fn write_ledger(
    tx: &Connection,
    run: &str,
    change: &crate::LedgerWrite,
    now: Timestamp,
) -> Result<(), StoreError> {
    match change {
        crate::LedgerWrite::Intend {
            call_id,
            tool,
            arguments,
        } => {
            tx.prepare_cached(
                "INSERT INTO dispatch_ledger (run_id, call_id, tool, arguments, state, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'intended', ?5)",
            )?
            .execute(params![
                run,
                call_id,
                tool,
                arguments.to_string(),
                now.millis()
            ])?;
        }
        crate::LedgerWrite::Mark {
            call_id,
            state,
            result,
        } => {
            // The call's newest open entry: one lookup per open state on the (run, state)
            // index. (`state IN ('intended', 'dispatched')` reads the same rows but builds an
            // ephemeral table for the list on every mark, half the cost of a marking write.)
            let changed = tx
                .prepare_cached(
                    "UPDATE dispatch_ledger SET state = ?1, result = ?2, updated_at = ?3 \
                     WHERE entry = max( \
                         coalesce((SELECT max(entry) FROM dispatch_ledger \
                                   WHERE run_id = ?4 AND state = 'intended' AND call_id = ?5), -1), \
                         coalesce((SELECT max(entry) FROM dispatch_ledger \
                                   WHERE run_id = ?4 AND state = 'dispatched' AND call_id = ?5), -1))",
                )?
                .execute(params![state.as_str(), result, now.millis(), run, call_id])?;
            if changed != 1 {
                return Err(StoreError::NoLedgerEntry {
                    run: run.to_string(),
                    call_id: call_id.clone(),
                });
            }
        }
    }
    Ok(())
}

pub(super) fn record_approval(
    store: &mut SqliteStore,
    run: &str,
    a: &ApprovalRecord,
) -> Result<(), StoreError> {
    let tx = store.write_tx()?;
    read_head(&tx, run)?;
    tx.prepare_cached(
        "INSERT INTO approvals (run_id, call_id, tool, decision, reason, answered_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        run,
        a.call_id,
        a.tool,
        a.answer.as_str(),
        a.reason,
        a.answered_at.millis()
    ])?;
    tx.commit()?;
    Ok(())
}

pub(super) fn approvals(conn: &Connection, run: &str) -> Result<Vec<ApprovalRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT call_id, tool, decision, reason, answered_at FROM approvals \
         WHERE run_id = ?1 ORDER BY answered_at, rowid",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (call_id, tool, decision, reason, at) = row?;
        out.push(ApprovalRecord {
            call_id,
            tool,
            answer: Answer::parse(&decision).ok_or_else(|| StoreError::Corrupt {
                run: run.to_string(),
                what: "approval".into(),
                reason: format!("unknown answer {decision:?}"),
            })?,
            reason: reason.unwrap_or_default(),
            answered_at: Timestamp(at),
        });
    }
    Ok(out)
}

pub(super) fn ledger(conn: &Connection, run: &str) -> Result<Vec<crate::LedgerEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT call_id, tool, arguments, state, result, updated_at FROM dispatch_ledger \
         WHERE run_id = ?1 ORDER BY entry",
    )?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, i64>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (call_id, tool, arguments, state, result, at) = row?;
        let corrupt = |reason: String| StoreError::Corrupt {
            run: run.to_string(),
            what: format!("ledger entry for {call_id}"),
            reason,
        };
        out.push(crate::LedgerEntry {
            arguments: serde_json::from_str(&arguments).map_err(|e| corrupt(e.to_string()))?,
            state: crate::DispatchState::parse(&state)
                .ok_or_else(|| corrupt(format!("unknown state {state:?}")))?,
            call_id,
            tool,
            result,
            updated_at: Timestamp(at),
        });
    }
    Ok(out)
}
