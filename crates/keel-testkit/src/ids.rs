//! Item ids for tests: one from a string, or a counter that hands out `i1`, `i2`, … as the
//! turn loop and the delivery functions ask for them.

use keel_core::ItemId;

/// The item id `id`; panics on an empty one.
pub fn item_id(id: &str) -> ItemId {
    ItemId::try_from(id).unwrap_or_else(|_| panic!("an item id may not be empty"))
}

/// Ids `{prefix}1`, `{prefix}2`, …, one a call: what `next_id` takes.
pub fn ids(prefix: &str) -> impl FnMut() -> ItemId + use<> {
    ids_after(prefix, 0)
}

/// Ids counted up from `last + 1`: `{prefix}{last + 1}`, `{prefix}{last + 2}`, …, for a test
/// that keeps numbering items it wrote itself.
pub fn ids_after(prefix: &str, last: u64) -> impl FnMut() -> ItemId + use<> {
    let prefix = prefix.to_string();
    let mut n = last;
    move || {
        n += 1;
        item_id(&format!("{prefix}{n}"))
    }
}
