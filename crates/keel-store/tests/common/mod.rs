//! Helpers shared by the store's integration tests.
#![allow(dead_code)]

use keel_core::{ItemBody, ItemId, Timestamp};
use keel_store::{NewItem, NewRun};

pub fn id(s: &str) -> ItemId {
    ItemId::try_from(s).unwrap_or_else(|_| panic!("empty id"))
}

pub fn user_item(n: u64) -> NewItem {
    NewItem {
        id: id(&format!("item-{n}")),
        ts: Timestamp(1_000 + n as i64),
        body: ItemBody::User {
            text: format!("message {n}"),
        },
    }
}

pub fn new_run(run: &str) -> NewRun {
    NewRun {
        model: String::new(),
        origin: None,
        open_turn: false,
        id: run.to_string(),
        preset: "default".to_string(),
        now: Timestamp(1_000),
        note_ops: Vec::new(),
        items: Vec::new(),
    }
}
