//! What the store's integration tests share beyond keel-testkit: their runs are created at
//! 1 000 ms and their user items written after that, so a test can tell a run's creation from
//! its later writes by time.
#![allow(dead_code)]

use keel_core::{ItemBody, Timestamp};
use keel_store::{NewItem, NewRun};

pub use keel_testkit::{item_id as id, note_tag as tag};

pub fn user_item(n: u64) -> NewItem {
    keel_testkit::new_item(
        &format!("item-{n}"),
        Timestamp(1_000 + n as i64),
        ItemBody::User {
            text: format!("message {n}"),
        },
    )
}

pub fn new_run(run: &str) -> NewRun {
    NewRun {
        now: Timestamp(1_000),
        ..keel_testkit::new_run(run)
    }
}
