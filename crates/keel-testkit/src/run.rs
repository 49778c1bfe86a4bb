//! Runs, items and notifications as tests write them: the `NewRun` builder is [`new_run`] with struct update
//! syntax (`NewRun { preset: "review".into(), ..new_run("r") }`), so a test names only the
//! fields it is about, and a field `NewRun` gains is filled here once.

use keel_core::notify::NotificationKind;
use keel_core::{ItemBody, Timestamp};
use keel_store::{NewItem, NewNotification, NewRun};

use crate::ids::item_id;

/// Run `id`: preset `default`, no recorded model, no origin, no open turn, created at 0, with
/// no notes and no items.
pub fn new_run(id: &str) -> NewRun {
    NewRun {
        id: id.to_string(),
        preset: "default".to_string(),
        model: String::new(),
        origin: None,
        cwd: None,
        open_turn: false,
        now: Timestamp(0),
        note_ops: Vec::new(),
        items: Vec::new(),
    }
}

/// An item to append: `body` with id `id`, written at `ts`.
pub fn new_item(id: &str, ts: Timestamp, body: ItemBody) -> NewItem {
    NewItem {
        id: item_id(id),
        ts,
        body,
    }
}

/// A notification to enqueue: `payload` of `kind` with id `id`, arriving at `now`.
pub fn new_notification(
    id: &str,
    kind: NotificationKind,
    payload: &str,
    now: Timestamp,
) -> NewNotification {
    NewNotification {
        id: id.to_string(),
        kind,
        payload: payload.to_string(),
        now,
    }
}
