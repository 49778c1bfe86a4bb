//! `cargo bench -p keel-runtime`: the notification path. Builds the envelope for a 64 KiB
//! payload, and enqueues + delivers one notification through a real database file. Prints
//! p50/p90/p99 over `SAMPLES` runs.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use keel_core::notify::{Lang, NotificationKind, NotificationLanguage, notification_context};
use keel_core::{ItemId, Timestamp};
use keel_runtime::boundary::deliver_after_close;
use keel_store::{NewNotification, NewRun, QueueStore, RunStore, SqliteStore, StoreOptions};

const SAMPLES: usize = 300;

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
    println!(
        "{label:<40} p50 {:>9.3?}  p90 {:>9.3?}  p99 {:>9.3?}",
        at(0.5),
        at(0.9),
        at(0.99)
    );
}

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
    report("envelope, 64 KiB payload", times);

    let dir = tempfile::tempdir()?;
    let mut store = SqliteStore::open(&dir.path().join("bench.db"), &StoreOptions::default())?;
    store.create_run(NewRun {
        model: String::new(),
        origin: None,
        open_turn: false,
        id: "r".into(),
        preset: "default".into(),
        now: Timestamp(0),
        note_ops: Vec::new(),
        items: vec![],
    })?;
    let mut n = 0u64;
    let mut next_id = || {
        n += 1;
        ItemId::try_from(format!("i{n}")).unwrap_or_else(|_| unreachable!())
    };
    let mut times = Vec::with_capacity(samples);
    for i in 0..samples {
        let start = Instant::now();
        store.enqueue_notification(
            "r",
            NewNotification {
                id: format!("n{i}"),
                kind: NotificationKind::TaskResult,
                payload: "{\"status\":\"completed\",\"summary\":\"built and tested\"}".into(),
                now: Timestamp(i as i64),
            },
        )?;
        let delivered =
            deliver_after_close(&mut store, "r", Timestamp(i as i64), Lang::En, &mut next_id)?;
        times.push(start.elapsed());
        assert!(delivered.origin.is_some());
    }
    report("enqueue + deliver one notification", times);
    Ok(())
}
