//! `cargo bench -p keel-store`: the cost of appending an item and of closing a turn, on runs
//! of 10, 1k, 10k and 100k items. Target (issue 2): p50 turn close ≤ 1 ms at 10k items, and
//! no growth with history length.
//!
//! A plain timing harness (no criterion) because the target is a percentile: each size runs
//! `SAMPLES` timed writes on a real database file and prints p50, p90 and p99.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use keel_core::notes::NoteOp;
use keel_core::{ItemBody, ItemId, NoteLifetime, NoteTag, Timestamp};
use keel_store::{NewItem, NewRun, RunStore, RunWrite, SqliteStore, StoreOptions};

const SAMPLES: usize = 300;

fn item(seq: u64) -> Result<NewItem, Box<dyn std::error::Error>> {
    Ok(NewItem {
        id: ItemId::try_from(format!("item-{seq}"))?,
        ts: Timestamp(seq as i64),
        body: ItemBody::Assistant {
            text: "a typical assistant reply of a hundred and some characters, with a little \
                   bit of detail about what it did and why."
                .to_string(),
            tool_calls: vec![],
        },
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "{label:<34} p50 {:>9.3?}  p90 {:>9.3?}  p99 {:>9.3?}",
        percentile(&samples, 0.50),
        percentile(&samples, 0.90),
        percentile(&samples, 0.99)
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo test --benches` runs this binary with `--bench` absent; keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes: &[u64] = if quick {
        &[10]
    } else {
        &[10, 1_000, 10_000, 100_000]
    };
    let dir = tempfile::tempdir()?;
    let tag = NoteTag::new("wake")?;
    for &size in sizes {
        let path = dir.path().join(format!("bench-{size}.db"));
        let mut store = SqliteStore::open(&path, &StoreOptions::default())?;
        let history = (0..size).map(item).collect::<Result<Vec<_>, _>>()?;
        let head = store.create_run(NewRun {
            model: String::new(),
            origin: None,
            open_turn: false,
            id: "r".into(),
            preset: "default".into(),
            now: Timestamp(0),
            note_ops: Vec::new(),
            items: history,
        })?;
        let (mut version, mut seq) = (head.version, head.next_seq);
        let mut appends = Vec::with_capacity(SAMPLES);
        let mut closes = Vec::with_capacity(SAMPLES);
        for _ in 0..SAMPLES {
            let start = Instant::now();
            let c = store.commit(
                "r",
                RunWrite::append(version, Timestamp(1), vec![item(seq)?]),
            )?;
            appends.push(start.elapsed());
            (version, seq) = (c.version, c.next_seq);

            let wake = NoteOp::Add {
                text: "[Scheduled wake: bench]".into(),
                lifetime: NoteLifetime::Turn,
                tag: Some(tag.clone()),
            };
            let start = Instant::now();
            let write = RunWrite::append(version, Timestamp(2), vec![item(seq)?])
                .with_note_ops(vec![wake], 16)
                .closing_turn();
            let c = store.commit("r", write)?;
            closes.push(start.elapsed());
            (version, seq) = (c.version, c.next_seq);
        }
        report(&format!("append item   @ {size:>6} items"), appends);
        report(&format!("close turn    @ {size:>6} items"), closes);
    }
    Ok(())
}
