//! `cargo bench -p keel-runtime`: the notification path. Builds the envelope for a 64 KiB
//! payload, and enqueues + delivers one notification through a real database file. Prints
//! p50/p90/p99 over `SAMPLES` runs.

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

    let payload: String = "search result text with \"quotes\", \\ and\nnewlines 中文 😀 "
        .repeat(64 * 1024 / 60)
        .chars()
        .take(64 * 1024)
        .collect();
    let language = NotificationLanguage {
        fallback: Lang::En,
        output: None,
        samples: Some(vec!["please check the build".into(), "and the logs".into()]),
    };
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        let start = Instant::now();
        let env = notification_context(NotificationKind::SearchResult, &payload, Some(&language));
        times.push(start.elapsed());
        std::hint::black_box(env);
    }
    report("envelope, 64 KiB payload", 40, times);

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
