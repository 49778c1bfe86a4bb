//! Compaction records: one append-only row per round, written in the same transaction as the
//! summary note it produced, so a run never shows a summary without saying what it folded.

use keel_core::Timestamp;
use keel_core::compaction::{Compaction, Trigger};
use rusqlite::{Connection, params};

use crate::StoreError;

/// Records a round. That it follows the last one was checked when the write was applied
/// (`RunRecord::apply`), against the round `read` returned in the same transaction.
pub(super) fn insert(tx: &Connection, run: &str, c: &Compaction) -> Result<(), StoreError> {
    let json = |value: serde_json::Result<String>| {
        value.map_err(|e| StoreError::Corrupt {
            run: run.to_string(),
            what: "compaction".into(),
            reason: e.to_string(),
        })
    };
    let kept = json(serde_json::to_string(&c.kept_user_seqs))?;
    let dropped = json(serde_json::to_string(&c.source_dropped))?;
    tx.prepare_cached(
        "INSERT INTO compactions (run_id, round, first_unfolded_seq, kept_user_seqs, \
         summary_chars, trigger, created_at, source_dropped) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        run,
        c.round,
        c.first_unfolded_seq as i64,
        kept,
        c.summary_chars as i64,
        c.trigger.as_str(),
        c.at.millis(),
        dropped
    ])?;
    Ok(())
}

/// The run's rounds, oldest first; only the last one when `last_only`.
pub(super) fn read(
    conn: &Connection,
    run: &str,
    last_only: bool,
) -> Result<Vec<Compaction>, StoreError> {
    let sql = if last_only {
        "SELECT round, first_unfolded_seq, kept_user_seqs, summary_chars, trigger, created_at, \
         source_dropped FROM compactions WHERE run_id = ?1 ORDER BY round DESC LIMIT 1"
    } else {
        "SELECT round, first_unfolded_seq, kept_user_seqs, summary_chars, trigger, created_at, \
         source_dropped FROM compactions WHERE run_id = ?1 ORDER BY round"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([run], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, i64>(5)?,
            r.get::<_, String>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (round, first, kept, chars, trigger, at, dropped) = row?;
        let corrupt = |reason: String| StoreError::Corrupt {
            run: run.to_string(),
            what: format!("compaction round {round}"),
            reason,
        };
        out.push(Compaction {
            round,
            first_unfolded_seq: first as u64,
            kept_user_seqs: serde_json::from_str(&kept).map_err(|e| corrupt(e.to_string()))?,
            summary_chars: chars as usize,
            trigger: Trigger::parse(&trigger)
                .ok_or_else(|| corrupt(format!("unknown trigger {trigger:?}")))?,
            at: Timestamp(at),
            source_dropped: serde_json::from_str(&dropped).map_err(|e| corrupt(e.to_string()))?,
        });
    }
    Ok(out)
}
