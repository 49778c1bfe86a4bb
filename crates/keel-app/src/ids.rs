//! Ids and the clock for a real session: keel-core takes both as inputs, and this is where a
//! front end gets them.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use keel_core::Timestamp;

pub fn now() -> Timestamp {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Timestamp(ms)
}

/// A unique id: `PREFIX-<millis>-<pid>-<random>`. The random part comes from the standard
/// library's per-process hasher keys, mixed with a counter, so two processes started in the
/// same millisecond still differ.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let random = RandomState::new().hash_one((nanos, n, std::process::id()));
    format!(
        "{prefix}-{}-{}-{:08x}",
        now().millis(),
        std::process::id(),
        random as u32
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn unique_ids_differ() {
        let a = super::unique("n");
        let b = super::unique("n");
        assert_ne!(a, b);
        assert!(a.starts_with("n-"));
    }
}
