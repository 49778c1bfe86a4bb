//! A keel process killed with SIGKILL in the middle of closing a turn leaves either the whole
//! turn or none of it.
//!
//! The test binary re-runs itself as the child (`crash_child`, active only when
//! `KEEL_CRASH_CHILD_DB` is set). Each turn the child writes two transactions: the opening
//! one appends one item and adds a `Turn` note; the closing one appends `CLOSE_ITEMS` items,
//! updates a `Run` note with the number of closed turns, and consumes the turn note. The
//! parent kills it at random moments and checks the invariants on the file.

use crate::common;

use std::time::{Duration, Instant};

use common::new_run;
use keel_core::notes::DEFAULT_MAX_UNTAGGED;
use keel_core::{ItemBody, NoteLifetime, Timestamp};
use keel_store::{CRASH_POINT_ENV, NewItem, RunStore, RunWrite, SqliteStore, StoreOptions};
use keel_testkit::{add_note, child_env, child_test, new_item};

const CLOSE_ITEMS: u64 = 40;
const TURN_ITEMS: u64 = CLOSE_ITEMS + 1;
const CHILD_ENV: &str = "KEEL_CRASH_CHILD_DB";

fn item(seq: u64) -> NewItem {
    new_item(
        &format!("i{seq}"),
        Timestamp(seq as i64),
        ItemBody::Assistant {
            text: "x".repeat(200),
            tool_calls: vec![],
        },
    )
}

/// The child: close turns until killed (or, as a safety net, for 20 seconds). Ignored, so it
/// never counts as a passing test: the crash tests run it with `--ignored` in a process of
/// their own, and run any other way it fails.
#[test]
#[ignore = "the child process of the crash tests, which run it"]
fn crash_child() -> Result<(), Box<dyn std::error::Error>> {
    let path = child_env(CHILD_ENV, "crash_child")?;
    let mut store = SqliteStore::open(path.as_ref(), &StoreOptions::default())?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let run = store.load_run("r1")?;
        let (mut version, mut seq) = (run.head.version, run.head.next_seq);
        // A turn left open by the previous kill is resumed, not opened again.
        if seq % TURN_ITEMS == 0 {
            let wake = add_note(&format!("turn at {seq}"), NoteLifetime::Turn, Some("wake"));
            let open = RunWrite::append(version, Timestamp(1), vec![item(seq)])
                .with_note_ops(vec![wake], DEFAULT_MAX_UNTAGGED);
            let c = store.commit("r1", open)?;
            version = c.version;
            seq = c.next_seq;
        }
        let closing: Vec<NewItem> = (seq..seq + CLOSE_ITEMS).map(item).collect();
        let closed = (seq + CLOSE_ITEMS) / TURN_ITEMS;
        let count = add_note(&closed.to_string(), NoteLifetime::Run, Some("closed-turns"));
        store.commit(
            "r1",
            RunWrite::append(version, Timestamp(2), closing)
                .with_note_ops(vec![count], DEFAULT_MAX_UNTAGGED)
                .closing_turn(),
        )?;
    }
    Ok(())
}

#[test]
fn sigkill_mid_turn_close_leaves_whole_turns_or_none() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("keel.db");
    SqliteStore::open(&path, &StoreOptions::default())?.create_run(new_run("r1"))?;
    let mut saw_open_turn = false;
    for round in 0..24u64 {
        let before = SqliteStore::open(&path, &StoreOptions::default())?
            .run_head("r1")?
            .next_seq;
        let mut child = child_test("crash::crash_child")
            .env(CHILD_ENV, &path)
            .spawn()?;
        // Wait until the child is writing, then kill it at a varying moment.
        let store = SqliteStore::open(&path, &StoreOptions::default())?;
        let wait_until = Instant::now() + Duration::from_secs(15);
        while store.run_head("r1")?.next_seq <= before + TURN_ITEMS && Instant::now() < wait_until {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_micros(300 * round + 137));
        child.kill()?; // SIGKILL on Unix
        child.wait()?;

        let run = SqliteStore::open(&path, &StoreOptions::default())?.load_run("r1")?;
        let n = run.head.next_seq;
        assert!(n > before, "round {round}: the child made no progress");
        assert_eq!(run.items.len() as u64, n);
        assert!(
            run.items
                .iter()
                .enumerate()
                .all(|(i, it)| it.seq == i as u64)
        );
        let closed: u64 = run.notes.read("closed-turns").map_or(Ok(0), str::parse)?;
        let turn_notes = run
            .notes
            .iter()
            .filter(|n| n.lifetime == NoteLifetime::Turn)
            .count();
        match n % TURN_ITEMS {
            // Killed between turns: every turn closed whole, no turn note left behind.
            0 => {
                assert_eq!(closed, n / TURN_ITEMS, "round {round}");
                assert_eq!(turn_notes, 0, "round {round}: a consumed note came back");
            }
            // Killed inside a turn, before its close committed: the close left nothing.
            1 => {
                saw_open_turn = true;
                assert_eq!(closed, n / TURN_ITEMS, "round {round}");
                assert_eq!(
                    turn_notes, 1,
                    "round {round}: the open turn's note was lost"
                );
            }
            partial => panic!(
                "round {round}: a turn close was cut in the middle ({partial} of {TURN_ITEMS} items)"
            ),
        }
    }
    // Not an assertion on timing: report which states the kills landed in.
    eprintln!("killed inside an open turn at least once: {saw_open_turn}");
    Ok(())
}

/// The same invariant at exact steps of the closing transaction: the child aborts there, as if
/// killed at that instant.
#[test]
fn a_crash_at_each_step_of_a_turn_close_leaves_all_or_nothing()
-> Result<(), Box<dyn std::error::Error>> {
    for (point, closed) in [
        ("close:after-items", false),
        ("close:before-commit", false),
        ("close:after-commit", true),
    ] {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("keel.db");
        SqliteStore::open(&path, &StoreOptions::default())?.create_run(new_run("r1"))?;
        let status = child_test("crash::crash_child")
            .env(CHILD_ENV, &path)
            .env(CRASH_POINT_ENV, point)
            .status()?;
        assert!(
            !status.success(),
            "{point}: the child should have died at the crash point"
        );
        let run = SqliteStore::open(&path, &StoreOptions::default())?.load_run("r1")?;
        let turn_notes = run
            .notes
            .iter()
            .filter(|n| n.lifetime == NoteLifetime::Turn)
            .count();
        let closed_turns = run.notes.read("closed-turns").map(String::from);
        if closed {
            assert_eq!(run.items.len() as u64, TURN_ITEMS, "{point}");
            assert_eq!(
                (turn_notes, closed_turns.as_deref()),
                (0, Some("1")),
                "{point}"
            );
        } else {
            assert_eq!(run.items.len(), 1, "{point}: part of the close was kept");
            assert_eq!((turn_notes, closed_turns), (1, None), "{point}");
        }
    }
    Ok(())
}
