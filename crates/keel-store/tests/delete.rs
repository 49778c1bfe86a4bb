//! Deleting runs whole (`keel runs delete`, `keel runs prune`), on real database files: every
//! row of the run and of its tasks' runs goes, in every table, in one transaction; nothing of
//! any other run does; a run another live process holds is refused (or, when asked, left out);
//! a dry run commits nothing; items stay append-only for every other writer.

use keel_core::compaction::{Compaction, Trigger, note_op};
use keel_core::notify::NotificationKind;
use keel_core::{NoteLifetime, Timestamp};
use keel_store::{
    ApprovalRecord, ApprovalStore, DeleteOptions, DesktopStore, LeaseChange, LeaseEvent,
    LeaseHolder, LedgerWrite, NewNotification, QueueStore, RunLeaseStore, RunStore, RunWrite,
    SqliteStore, StoreError, StoreOptions,
};

use crate::common::{new_run, user_item};

type R = Result<(), Box<dyn std::error::Error>>;

/// The tables that hold a part of a run, and the column naming it.
const TABLES: &[(&str, &str)] = &[
    ("runs", "id"),
    ("items", "run_id"),
    ("notes", "run_id"),
    ("notification_queue", "run_id"),
    ("dispatch_ledger", "run_id"),
    ("approvals", "run_id"),
    ("compactions", "run_id"),
    ("desktop_leases", "run_id"),
    ("run_leases", "run_id"),
];

/// A run with a row in every table that can hold part of one; `origin` says whose task it is.
fn full_run(store: &mut SqliteStore, id: &str, origin: Option<&str>) -> R {
    store.create_run(keel_store::NewRun {
        origin: origin.map(str::to_string),
        note_ops: vec![keel_testkit::add_note(
            "a note",
            NoteLifetime::Run,
            Some("n"),
        )],
        ..new_run(id)
    })?;
    store.commit(
        id,
        RunWrite::append(1, Timestamp(2_000), (0..4).map(user_item).collect()).with_ledger(vec![
            LedgerWrite::Intend {
                call_id: "c1".into(),
                tool: "shell".into(),
                arguments: serde_json::json!({"command": "ls"}),
            },
        ]),
    )?;
    store.commit(
        id,
        RunWrite::append(2, Timestamp(3_000), vec![])
            .with_note_ops(vec![note_op("summary")], 16)
            .with_compaction(Compaction {
                round: 1,
                first_unfolded_seq: 2,
                kept_user_seqs: vec![1],
                summary_chars: 7,
                trigger: Trigger::Threshold,
                at: Timestamp(3_000),
                source_dropped: vec![],
            }),
    )?;
    store.enqueue_notification(
        id,
        NewNotification {
            id: "n1".into(),
            kind: NotificationKind::SearchResult,
            payload: "{}".into(),
            now: Timestamp(4_000),
        },
    )?;
    store.record_approval(
        id,
        &ApprovalRecord {
            call_id: "c1".into(),
            tool: "shell".into(),
            answer: keel_store::Answer::AllowOnce,
            reason: "asked".into(),
            answered_at: Timestamp(4_000),
        },
    )?;
    store.record_lease(
        id,
        &LeaseEvent {
            change: LeaseChange::Held,
            window: "w".into(),
            detail: String::new(),
            at: Timestamp(4_000),
        },
    )?;
    Ok(())
}

/// How many rows of each table belong to `run`.
fn rows(path: &std::path::Path, run: &str) -> Result<Vec<(String, i64)>, rusqlite::Error> {
    let conn = rusqlite::Connection::open(path)?;
    TABLES
        .iter()
        .map(|(table, column)| {
            conn.query_row(
                &format!("SELECT count(*) FROM {table} WHERE {column} = ?1"),
                [run],
                |r| r.get(0),
            )
            .map(|n| (table.to_string(), n))
        })
        .collect()
}

fn open(path: &std::path::Path) -> Result<SqliteStore, StoreError> {
    SqliteStore::open(path, &StoreOptions::default())
}

/// A holder that is another live process as far as the store can tell: this process's pid
/// and start time (alive), another token.
fn another_live_process() -> LeaseHolder {
    LeaseHolder {
        token: "another-process".into(),
        ..LeaseHolder::this_process()
    }
}

#[test]
fn a_run_goes_whole_with_its_tasks_and_nothing_else_does() -> R {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("keel.db");
    let mut store = open(&path)?;
    full_run(&mut store, "parent", None)?;
    full_run(&mut store, "child", Some("task of parent"))?;
    full_run(&mut store, "grandchild", Some("task of child"))?;
    full_run(&mut store, "other", None)?;
    // The run's own lease (a process that is gone left it): it goes too.
    let gone = LeaseHolder {
        token: "gone".into(),
        pid: u32::MAX - 1,
        ..LeaseHolder::this_process()
    };
    store.take_run_lease("parent", &gone, Timestamp(1), Timestamp(i64::MAX))?;
    for run in ["parent", "child", "grandchild", "other"] {
        let counted = rows(&path, run)?;
        assert!(
            counted
                .iter()
                .all(|(t, n)| *n > 0 || (t == "run_leases" && run != "parent")),
            "{run}: {counted:?}"
        );
    }

    let deletion = store.delete_runs(&["parent".into()], &DeleteOptions::default())?;
    let deleted: Vec<(&str, Option<&str>, u64)> = deletion
        .deleted
        .iter()
        .map(|d| (d.id.as_str(), d.task_of.as_deref(), d.items))
        .collect();
    assert_eq!(
        deleted,
        [
            ("parent", None, 4),
            ("child", Some("parent"), 4),
            ("grandchild", Some("parent"), 4)
        ]
    );
    assert!(deletion.skipped.is_empty());
    for run in ["parent", "child", "grandchild"] {
        let counted = rows(&path, run)?;
        assert!(counted.iter().all(|(_, n)| *n == 0), "{run}: {counted:?}");
    }
    let other = rows(&path, "other")?;
    assert!(
        other.iter().all(|(t, n)| *n > 0 || t == "run_leases"),
        "{other:?}"
    );
    assert!(matches!(
        store.load_run("parent"),
        Err(StoreError::RunNotFound(_))
    ));
    // Asking again: the run is not there.
    assert!(matches!(
        store.delete_runs(&["parent".into()], &DeleteOptions::default()),
        Err(StoreError::RunNotFound(_))
    ));
    drop(store);

    // Every other writer still finds items and compaction records append-only, and the
    // deletion left no run named as being deleted.
    let conn = rusqlite::Connection::open(&path)?;
    assert!(
        conn.execute("DELETE FROM items WHERE run_id = 'other'", [])
            .is_err()
    );
    assert!(conn.execute("DELETE FROM compactions", []).is_err());
    let marked: i64 = conn.query_row("SELECT count(*) FROM run_deletions", [], |r| r.get(0))?;
    assert_eq!(marked, 0);
    Ok(())
}

#[test]
fn a_run_another_live_process_holds_is_refused_or_left_out() -> R {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("keel.db");
    let mut store = open(&path)?;
    full_run(&mut store, "busy", None)?;
    full_run(&mut store, "busy-task", Some("task of busy"))?;
    full_run(&mut store, "parent", None)?;
    full_run(&mut store, "working-task", Some("task of parent"))?;
    full_run(&mut store, "free", None)?;
    let other = another_live_process();
    store.take_run_lease("busy", &other, Timestamp(1), Timestamp(i64::MAX))?;
    // A task still running in a live process holds its own run.
    store.take_run_lease("working-task", &other, Timestamp(1), Timestamp(i64::MAX))?;

    // Refused whole: nothing is deleted, not even the free run asked for first.
    let err = store
        .delete_runs(&["free".into(), "busy".into()], &DeleteOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("run busy is in use by keel process") && err.contains("nothing was deleted"),
        "{err}"
    );
    let err = store
        .delete_runs(&["parent".into()], &DeleteOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("run working-task (a task of run parent, deleted with it) is in use"),
        "{err}"
    );
    for run in ["free", "busy", "busy-task", "parent", "working-task"] {
        assert!(store.load_run(run).is_ok(), "{run} was deleted");
    }

    // Left out, with its tasks, when asked to skip.
    let deletion = store.delete_runs(
        &["free".into(), "busy".into(), "parent".into()],
        &DeleteOptions {
            skip_in_use: true,
            ..Default::default()
        },
    )?;
    let deleted: Vec<&str> = deletion.deleted.iter().map(|d| d.id.as_str()).collect();
    let skipped: Vec<&str> = deletion.skipped.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(deleted, ["free"]);
    assert_eq!(skipped, ["busy", "parent"]);
    assert_eq!(deletion.skipped[0].lease.holder.token, "another-process");

    // The holder itself may delete what it holds (a chat that made a run and said nothing).
    let deletion = store.delete_runs(
        &["busy".into()],
        &DeleteOptions {
            holder: Some(&other),
            ..Default::default()
        },
    )?;
    assert_eq!(deletion.deleted.len(), 2);
    assert!(rows(&path, "busy")?.iter().all(|(_, n)| *n == 0));
    Ok(())
}

#[test]
fn a_dry_run_says_what_would_go_and_deletes_nothing() -> R {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("keel.db");
    let mut store = open(&path)?;
    full_run(&mut store, "p", None)?;
    full_run(&mut store, "t", Some("task of p"))?;
    let before = (rows(&path, "p")?, rows(&path, "t")?);
    let deletion = store.delete_runs(
        &["p".into()],
        &DeleteOptions {
            dry_run: true,
            ..Default::default()
        },
    )?;
    let would: Vec<&str> = deletion.deleted.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(would, ["p", "t"]);
    assert_eq!((rows(&path, "p")?, rows(&path, "t")?), before);
    Ok(())
}
