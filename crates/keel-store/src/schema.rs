//! The database schema and its versioned migrations.
//!
//! `PRAGMA user_version` holds the schema version and `PRAGMA application_id` marks the file
//! as keel's. Migrations run in order on open, each in its own transaction; a file with a
//! higher version than this keel knows is refused before anything is written to it.

/// `keel` in ASCII.
pub const APPLICATION_ID: i64 = 0x6B65_656C;

/// Each entry migrates from version `index` to `index + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: runs, items, notes, and the tables later issues fill.
    r#"
    CREATE TABLE runs (
        id          TEXT PRIMARY KEY,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        preset      TEXT NOT NULL,
        version     INTEGER NOT NULL,
        next_seq    INTEGER NOT NULL,
        language    TEXT,
        -- 1 from a turn's opening write to its closing one.
        turn_open   INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX runs_by_update ON runs (updated_at DESC, id);

    CREATE TABLE items (
        run_id  TEXT NOT NULL REFERENCES runs (id),
        seq     INTEGER NOT NULL,
        id      TEXT NOT NULL,
        kind    TEXT NOT NULL,
        ts      INTEGER NOT NULL,
        body    TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER items_append_only_update BEFORE UPDATE ON items
        BEGIN SELECT RAISE(ABORT, 'items are append-only'); END;
    CREATE TRIGGER items_append_only_delete BEFORE DELETE ON items
        BEGIN SELECT RAISE(ABORT, 'items are append-only'); END;

    CREATE TABLE notes (
        run_id    TEXT NOT NULL REFERENCES runs (id),
        position  INTEGER NOT NULL,
        text      TEXT NOT NULL,
        lifetime  TEXT NOT NULL,
        tag       TEXT,
        PRIMARY KEY (run_id, position)
    ) WITHOUT ROWID;

    CREATE TABLE notification_queue (
        arrival          INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id           TEXT NOT NULL REFERENCES runs (id),
        notification_id  TEXT NOT NULL,
        kind             TEXT NOT NULL,
        payload          TEXT NOT NULL,
        enqueued_at      INTEGER NOT NULL,
        state            TEXT NOT NULL DEFAULT 'pending'
                         CHECK (state IN ('pending', 'delivered', 'merged', 'duplicate')),
        item_seq         INTEGER,
        settled_at       INTEGER
    );
    CREATE INDEX notification_queue_by_run ON notification_queue (run_id, state, arrival);
    CREATE INDEX notification_queue_by_id ON notification_queue (run_id, notification_id, state);

    CREATE TABLE dispatch_ledger (
        entry       INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id      TEXT NOT NULL REFERENCES runs (id),
        call_id     TEXT NOT NULL,
        tool        TEXT NOT NULL,
        arguments   TEXT NOT NULL,
        state       TEXT NOT NULL
                    CHECK (state IN ('intended', 'dispatched', 'completed', 'unknown')),
        result      TEXT,
        updated_at  INTEGER NOT NULL
    );
    CREATE INDEX dispatch_ledger_by_run ON dispatch_ledger (run_id, state);

    CREATE TABLE approvals (
        run_id      TEXT NOT NULL REFERENCES runs (id),
        call_id     TEXT NOT NULL,
        tool        TEXT NOT NULL,
        decision    TEXT NOT NULL
                    CHECK (decision IN ('allow_once', 'allow_for_run', 'deny')),
        reason      TEXT,
        answered_at INTEGER NOT NULL
    );
    -- Not keyed by call id: models reuse call ids across turns, and every answer is kept.
    CREATE INDEX approvals_by_run ON approvals (run_id);
    "#,
    // v2: the model a run was made with (a handoff's worker defaults to it, bridge.md §3.7),
    // where a run came from, and one row per compaction round (which items were folded).
    r#"
    ALTER TABLE runs ADD COLUMN model TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN origin TEXT;

    CREATE TABLE compactions (
        run_id              TEXT NOT NULL REFERENCES runs (id),
        round               INTEGER NOT NULL,
        first_unfolded_seq  INTEGER NOT NULL,
        -- JSON array of the user items before the cut still shown verbatim.
        kept_user_seqs      TEXT NOT NULL,
        summary_chars       INTEGER NOT NULL,
        trigger             TEXT NOT NULL CHECK (trigger IN ('threshold', 'overflow')),
        -- JSON array of the source sections the summariser did not see whole.
        source_dropped      TEXT NOT NULL DEFAULT '[]',
        created_at          INTEGER NOT NULL,
        PRIMARY KEY (run_id, round)
    ) WITHOUT ROWID;
    CREATE TRIGGER compactions_append_only_update BEFORE UPDATE ON compactions
        BEGIN SELECT RAISE(ABORT, 'compaction records are append-only'); END;
    CREATE TRIGGER compactions_append_only_delete BEFORE DELETE ON compactions
        BEGIN SELECT RAISE(ABORT, 'compaction records are append-only'); END;
    "#,
    // v3: desktop leases (computer-use.md N41), one append-only row per change, so a lease a
    // crashed process left held is seen and released on resume, and the release is recorded;
    // and the one desktop-control pause a user's stop sets (N30).
    r#"
    CREATE TABLE desktop_leases (
        run_id      TEXT NOT NULL REFERENCES runs (id),
        seq         INTEGER NOT NULL,
        event       TEXT NOT NULL
                    CHECK (event IN ('held', 'released', 'released_on_resume', 'revoked')),
        window      TEXT NOT NULL,
        detail      TEXT NOT NULL DEFAULT '',
        at          INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER desktop_leases_append_only_update BEFORE UPDATE ON desktop_leases
        BEGIN SELECT RAISE(ABORT, 'lease records are append-only'); END;
    CREATE TABLE desktop_control (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        paused_at   INTEGER NOT NULL,
        paused_by   TEXT NOT NULL
    );
    "#,
    // v4: the directory a run works in, so a resume, a chat or a handoff from another
    // directory acts where the run was started. NULL for runs from before v4.
    r#"
    ALTER TABLE runs ADD COLUMN cwd TEXT;
    "#,
    // v5: one writer per run at a time (issue 19). A row per held run: who holds it (a token
    // unique to the holding process, its pid, its host, and the process's start time, so a
    // pid reused by another process is not mistaken for the holder), since when, and until
    // when unless renewed. No row: the run is free.
    r#"
    CREATE TABLE run_leases (
        run_id       TEXT PRIMARY KEY REFERENCES runs (id),
        holder       TEXT NOT NULL,
        pid          INTEGER NOT NULL,
        host         TEXT NOT NULL,
        -- The holder's start time in clock ticks after boot (/proc/PID/stat field 22); NULL
        -- where the system does not say.
        started      INTEGER,
        acquired_at  INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL
    ) WITHOUT ROWID;
    "#,
    // v6: a run can be deleted whole (`keel runs delete`, `keel runs prune`). Items and
    // compaction records stay append-only, except within the one transaction that deletes
    // their run: it names the run in `run_deletions` first, deletes every row of the run, and
    // removes the name again before it commits, so no other writer ever sees it there.
    r#"
    CREATE TABLE run_deletions (
        run_id  TEXT PRIMARY KEY
    ) WITHOUT ROWID;
    DROP TRIGGER items_append_only_delete;
    CREATE TRIGGER items_append_only_delete BEFORE DELETE ON items
        WHEN NOT EXISTS (SELECT 1 FROM run_deletions WHERE run_id = OLD.run_id)
        BEGIN SELECT RAISE(ABORT, 'items are append-only'); END;
    DROP TRIGGER compactions_append_only_delete;
    CREATE TRIGGER compactions_append_only_delete BEFORE DELETE ON compactions
        WHEN NOT EXISTS (SELECT 1 FROM run_deletions WHERE run_id = OLD.run_id)
        BEGIN SELECT RAISE(ABORT, 'compaction records are append-only'); END;
    "#,
    // v7: "deny for this run" answers (an editor's reject_always, issue 15), kept with the
    // run like "allow for this run" ones. SQLite cannot change a CHECK, so the table is
    // rebuilt with every row it had.
    r#"
    CREATE TABLE approvals_v7 (
        run_id      TEXT NOT NULL REFERENCES runs (id),
        call_id     TEXT NOT NULL,
        tool        TEXT NOT NULL,
        decision    TEXT NOT NULL
                    CHECK (decision IN ('allow_once', 'allow_for_run', 'deny', 'deny_for_run')),
        reason      TEXT,
        answered_at INTEGER NOT NULL
    );
    INSERT INTO approvals_v7 (rowid, run_id, call_id, tool, decision, reason, answered_at)
        SELECT rowid, run_id, call_id, tool, decision, reason, answered_at FROM approvals;
    DROP TABLE approvals;
    ALTER TABLE approvals_v7 RENAME TO approvals;
    CREATE INDEX approvals_by_run ON approvals (run_id);
    "#,
    // v8: the ledger's state check written as comparisons, the same rule. SQLite checks a
    // `state IN (…)` list by building a temporary table of the list on every write of a state,
    // and every tool call writes the ledger twice: that was a fifth of a step's instructions.
    // A CHECK cannot be changed in place, so the table is rebuilt, its rows, its index and its
    // AUTOINCREMENT counter (the highest entry ever given, deleted runs' included) kept.
    r#"
    CREATE TABLE dispatch_ledger_v8 (
        entry       INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id      TEXT NOT NULL REFERENCES runs (id),
        call_id     TEXT NOT NULL,
        tool        TEXT NOT NULL,
        arguments   TEXT NOT NULL,
        state       TEXT NOT NULL
                    CHECK (state = 'intended' OR state = 'dispatched' OR state = 'completed'
                           OR state = 'unknown'),
        result      TEXT,
        updated_at  INTEGER NOT NULL
    );
    INSERT INTO dispatch_ledger_v8 (entry, run_id, call_id, tool, arguments, state, result, updated_at)
        SELECT entry, run_id, call_id, tool, arguments, state, result, updated_at
        FROM dispatch_ledger ORDER BY entry;
    DELETE FROM sqlite_sequence WHERE name = 'dispatch_ledger_v8';
    INSERT INTO sqlite_sequence (name, seq)
        SELECT 'dispatch_ledger_v8', seq FROM sqlite_sequence WHERE name = 'dispatch_ledger';
    DROP TABLE dispatch_ledger;
    ALTER TABLE dispatch_ledger_v8 RENAME TO dispatch_ledger;
    CREATE INDEX dispatch_ledger_by_run ON dispatch_ledger (run_id, state);
    "#,
    // v9: two indexes a step wrote and no query needed the way they were kept (issue 18).
    // Every commit writes the pages it changed to the log, and a durable step commits twice:
    // `runs_by_update` moved the run's entry at each commit (its `updated_at` changes), for
    // `keel runs list` alone, which reads every run anyway and now sorts them; and the
    // ledger's `(run_id, state)` index moved an entry at each state change, to find a call's
    // open entry, which `(run_id, call_id)` finds as well without moving (a call id has one
    // entry or a few). Two of the eleven pages a step wrote.
    r#"
    DROP INDEX runs_by_update;
    DROP INDEX dispatch_ledger_by_run;
    CREATE INDEX dispatch_ledger_by_call ON dispatch_ledger (run_id, call_id);
    "#,
];

/// The version a fully migrated database has.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;

    /// v8 rebuilds the ledger: every row kept as it was, the AUTOINCREMENT counter kept (an
    /// entry number a deleted run used is not given again), the index back, the state rule
    /// the same.
    #[test]
    fn v8_keeps_the_ledger_its_counter_and_its_rule() -> Result<(), rusqlite::Error> {
        let conn = rusqlite::Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        for sql in &MIGRATIONS[..7] {
            conn.execute_batch(sql)?;
        }
        conn.execute_batch(
            "INSERT INTO runs (id, created_at, updated_at, preset, version, next_seq) \
                 VALUES ('r', 0, 0, 'p', 1, 0);
             INSERT INTO dispatch_ledger (run_id, call_id, tool, arguments, state, result, updated_at) \
                 VALUES ('r', 'c1', 't', '{}', 'completed', 'ok', 1), \
                        ('r', 'c2', 't', '{\"a\":1}', 'intended', NULL, 2), \
                        ('r', 'c3', 't', '{}', 'dispatched', NULL, 3);
             DELETE FROM dispatch_ledger WHERE call_id = 'c3';",
        )?;
        let rows = |conn: &rusqlite::Connection| -> Result<Vec<String>, rusqlite::Error> {
            let mut stmt = conn.prepare(
                "SELECT entry || run_id || call_id || tool || arguments || state \
                 || coalesce(result, '-') || updated_at FROM dispatch_ledger ORDER BY entry",
            )?;
            stmt.query_map([], |r| r.get(0))?.collect()
        };
        let before = rows(&conn)?;
        conn.execute_batch(MIGRATIONS[7])?;
        assert_eq!(rows(&conn)?, before);
        conn.execute(
            "INSERT INTO dispatch_ledger (run_id, call_id, tool, arguments, state, updated_at) \
             VALUES ('r', 'c4', 't', '{}', 'intended', 4)",
            [],
        )?;
        let entry: i64 = conn.query_row(
            "SELECT entry FROM dispatch_ledger WHERE call_id = 'c4'",
            [],
            |r| r.get(0),
        )?;
        assert_eq!(entry, 4, "entry 3 was given before and is not given again");
        let refused = conn.execute(
            "UPDATE dispatch_ledger SET state = 'done' WHERE call_id = 'c4'",
            [],
        );
        assert!(refused.is_err(), "a state outside the four is refused");
        let index: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' \
             AND name = 'dispatch_ledger_by_run' AND tbl_name = 'dispatch_ledger'",
            [],
            |r| r.get(0),
        )?;
        assert_eq!(index, 1);
        Ok(())
    }

    /// v9 keeps every run and ledger entry and leaves the ledger with its (run, call) index
    /// and the runs without an index on `updated_at`.
    #[test]
    fn v9_moves_the_indexes_and_keeps_the_rows() -> Result<(), rusqlite::Error> {
        let conn = rusqlite::Connection::open_in_memory()?;
        for sql in &MIGRATIONS[..8] {
            conn.execute_batch(sql)?;
        }
        conn.execute_batch(
            "INSERT INTO runs (id, created_at, updated_at, preset, version, next_seq) \
                 VALUES ('r', 0, 0, 'p', 1, 0), ('s', 0, 9, 'p', 1, 0);
             INSERT INTO dispatch_ledger (run_id, call_id, tool, arguments, state, updated_at) \
                 VALUES ('r', 'c1', 't', '{}', 'completed', 1), ('s', 'c1', 't', '{}', 'intended', 2);",
        )?;
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
        conn.execute_batch(MIGRATIONS[8])?;
        assert_eq!(count("SELECT count(*) FROM runs")?, 2);
        assert_eq!(count("SELECT count(*) FROM dispatch_ledger")?, 2);
        let indexes: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' \
                 AND tbl_name IN ('runs', 'dispatch_ledger') AND sql IS NOT NULL ORDER BY name",
            )?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        assert_eq!(indexes, ["dispatch_ledger_by_call"]);
        Ok(())
    }
}
