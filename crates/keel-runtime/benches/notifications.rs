//! `cargo bench -p keel-runtime --bench notifications`: the notification path. Prints
//! p50/p90/p99 over `SAMPLES` runs of each row.
//!
//! - Envelope: `notification_context` for a payload of 64 Ki chars (66.6 KB: prose with Chinese
//!   and an emoji, a `"`, a backslash or a line feed every 15 bytes, 4,368 escapes in all), so
//!   it measures the quoting of text that needs many escapes, not one copy. Target (issue 18):
//!   p50 ≤ 15 µs.
//! - The same envelope for a payload of the same text with each escaped char replaced by a
//!   plain one (no escapes): the scan and one copy.
//! - Enqueue + deliver one notification through a real database file.
//!
//! On a CPU with AVX2 (asked at run time) the envelope rows time `push_json_string`'s AVX2
//! build, elsewhere its portable one; the figures in docs/notifications.md say which.

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use keel_core::Timestamp;
use keel_core::notify::{Lang, NotificationKind, NotificationLanguage, notification_context};
use keel_runtime::boundary::deliver_after_close;
use keel_store::QueueStore;
use keel_testkit::bench::report;
use keel_testkit::{Sandbox, ids, new_notification};

const SAMPLES: usize = 300;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let samples = if quick { 3 } else { SAMPLES };

    let payload = |unit: &str| -> String {
        unit.repeat(64 * 1024 / 60)
            .chars()
            .take(64 * 1024)
            .collect()
    };
    let language = NotificationLanguage {
        fallback: Lang::En,
        output: None,
        samples: Some(vec!["please check the build".into(), "and the logs".into()]),
    };
    for (label, payload) in [
        (
            "envelope, 64 KiB payload",
            payload("search result text with \"quotes\", \\ and\nnewlines 中文 😀 "),
        ),
        (
            "envelope, 64 KiB payload without escapes",
            payload("search result text with 'quotes', / and newlines 中文 😀 "),
        ),
    ] {
        let mut times = Vec::with_capacity(samples);
        for _ in 0..samples {
            let start = Instant::now();
            let env =
                notification_context(NotificationKind::SearchResult, &payload, Some(&language));
            times.push(start.elapsed());
            std::hint::black_box(env);
        }
        report(label, 40, times);
    }

    let sandbox = Sandbox::new();
    let mut store = sandbox.store_with_run("r");
    let mut next_id = ids("i");
    let mut times = Vec::with_capacity(samples);
    for i in 0..samples {
        let start = Instant::now();
        store.enqueue_notification(
            "r",
            new_notification(
                &format!("n{i}"),
                NotificationKind::TaskResult,
                "{\"status\":\"completed\",\"summary\":\"built and tested\"}",
                Timestamp(i as i64),
            ),
        )?;
        let delivered =
            deliver_after_close(&mut store, "r", Timestamp(i as i64), Lang::En, &mut next_id)?;
        times.push(start.elapsed());
        assert!(delivered.origin.is_some());
    }
    report("enqueue + deliver one notification", 40, times);
    Ok(())
}
