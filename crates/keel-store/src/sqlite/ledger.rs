//! The dispatch ledger and the record of ask_user answers.

use keel_core::Timestamp;
use rusqlite::{Connection, params};

use super::{SqliteStore, read_head};
use crate::{Answer, ApprovalRecord, DispatchState, StoreError};

fn write_ledger(
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
            insert_entry(
                tx,
                run,
                call_id,
                tool,
                arguments,
                DispatchState::Intended,
                now,
            )?;
        }
        crate::LedgerWrite::Mark {
            call_id,
            state,
            result,
        } => {
            // The call's newest open entry, through the (run, call) index: a call id has one
            // entry or a few (models reuse ids across turns). (`state IN ('intended',
            // 'dispatched')` reads the same rows but builds an ephemeral table for the list on
            // every mark, half the cost of a marking write.)
            let changed = tx
                .prepare_cached(
                    "UPDATE dispatch_ledger SET state = ?1, result = ?2, updated_at = ?3 \
                     WHERE entry = (SELECT max(entry) FROM dispatch_ledger \
                                    WHERE run_id = ?4 AND call_id = ?5 \
                                    AND (state = 'intended' OR state = 'dispatched'))",
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

/// A write's ledger changes in order. An intent followed in the same write by the mark of its
/// call `dispatched` (and no result) is one insert of the entry as `dispatched`: the row each
/// gives is the same (the mark finds the call's newest open entry, the one just inserted, and
/// changes only its state), and no reader sees a transaction half done, so the second
/// statement — an update through two index lookups, and the index entry moved — was a tenth
/// of a step's instructions for nothing.
pub(super) fn write_ledger_changes(
    tx: &Connection,
    run: &str,
    changes: &[crate::LedgerWrite],
    now: Timestamp,
) -> Result<(), StoreError> {
    let mut changes = changes.iter().peekable();
    while let Some(change) = changes.next() {
        if let crate::LedgerWrite::Intend {
            call_id,
            tool,
            arguments,
        } = change
            && let Some(crate::LedgerWrite::Mark {
                call_id: marked,
                state: DispatchState::Dispatched,
                result: None,
            }) = changes.peek()
            && marked == call_id
        {
            insert_entry(
                tx,
                run,
                call_id,
                tool,
                arguments,
                DispatchState::Dispatched,
                now,
            )?;
            changes.next();
            continue;
        }
        write_ledger(tx, run, change, now)?;
    }
    Ok(())
}

fn insert_entry(
    tx: &Connection,
    run: &str,
    call_id: &str,
    tool: &str,
    arguments: &serde_json::Value,
    state: DispatchState,
    now: Timestamp,
) -> Result<(), StoreError> {
    tx.prepare_cached(
        "INSERT INTO dispatch_ledger (run_id, call_id, tool, arguments, state, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        run,
        call_id,
        tool,
        arguments.to_string(),
        state.as_str(),
        now.millis()
    ])?;
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
