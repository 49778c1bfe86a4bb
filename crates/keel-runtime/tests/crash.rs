//! A process killed in the middle of delivering a notification: the notification is still
//! pending afterwards, nothing half-delivered, and it is delivered exactly once later.

use keel_core::Timestamp;
use keel_core::notify::{Lang, NotificationKind};
use keel_runtime::boundary::{deliver_after_close, open_user_turn};
use keel_store::{CRASH_POINT_ENV, QueueState, QueueStore, RunStore, SqliteStore, StoreOptions};
use keel_testkit::{Sandbox, child_env, child_test, ids, new_notification};

const CHILD_ENV: &str = "KEEL_DELIVERY_CHILD_DB";

/// The child: deliver (after a close, or by opening a user turn), then exit. Ignored, so it
/// never counts as a passing test: the crash test runs it with `--ignored` in a process of its
/// own, and run any other way it fails.
#[test]
#[ignore = "the child process of the delivery crash test, which runs it"]
fn delivery_child() -> Result<(), Box<dyn std::error::Error>> {
    let path = child_env(CHILD_ENV, "delivery_child")?;
    let mut store = SqliteStore::open(path.as_ref(), &StoreOptions::default())?;
    let mut next = ids("i");
    if std::env::var("KEEL_CHILD_OPEN").is_ok() {
        open_user_turn(
            &mut store,
            "r",
            "what's new",
            Timestamp(3),
            Lang::En,
            &mut next,
        )?;
    } else {
        deliver_after_close(&mut store, "r", Timestamp(3), Lang::En, &mut next)?;
    }
    Ok(())
}

#[test]
fn a_crash_mid_delivery_leaves_the_notification_pending() -> Result<(), Box<dyn std::error::Error>>
{
    for open_turn in [false, true] {
        let dir = Sandbox::new();
        let path = dir.db();
        let mut store = dir.store_with_run("r");
        store.enqueue_notification(
            "r",
            new_notification("t1", NotificationKind::TaskResult, "done", Timestamp(1)),
        )?;
        drop(store);

        let mut child = child_test("crash::delivery_child");
        child
            .env(CHILD_ENV, &path)
            .env(CRASH_POINT_ENV, "deliver:before-commit");
        if open_turn {
            child.env("KEEL_CHILD_OPEN", "1");
        }
        let status = child.status()?;
        assert!(!status.success(), "the child should have died mid-delivery");

        let mut store = SqliteStore::open(&path, &StoreOptions::default())?;
        let run = store.load_run("r")?;
        assert!(
            run.items.is_empty(),
            "nothing of the delivery (nor the user turn) was kept"
        );
        assert_eq!(
            store.pending_notifications("r")?.len(),
            1,
            "still pending after the crash"
        );
        let d = deliver_after_close(&mut store, "r", Timestamp(4), Lang::En, &mut ids("i"))?;
        assert_eq!(d.delivery.items.len(), 1);
        let states: Vec<QueueState> = store
            .notifications("r")?
            .into_iter()
            .map(|n| n.state)
            .collect();
        assert_eq!(states, [QueueState::Delivered], "delivered exactly once");
    }
    Ok(())
}
