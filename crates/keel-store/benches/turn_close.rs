//! `cargo bench -p keel-store`: the cost of appending an item and of closing a turn, on runs
//! of 10, 1k, 10k and 100k items. Target (issue 2): p50 turn close ≤ 1 ms at 10k items, and
//! no growth with history length.
//!
//! A plain timing harness (no criterion) because the target is a percentile: each size runs
//! `SAMPLES` timed writes on a real database file and prints p50, p90 and p99.

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use keel_core::{ItemBody, NoteLifetime, Timestamp};
use keel_store::{NewItem, NewRun, RunStore, RunWrite, SqliteStore, StoreOptions};
use keel_testkit::bench::report;
use keel_testkit::{add_note, new_item, new_run};

const SAMPLES: usize = 300;

fn item(seq: u64) -> NewItem {
    new_item(
        &format!("item-{seq}"),
        Timestamp(seq as i64),
        ItemBody::Assistant {
            text: "a typical assistant reply of a hundred and some characters, with a little \
                   bit of detail about what it did and why."
                .to_string(),
            tool_calls: vec![],
        },
    )
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
    for &size in sizes {
        let path = dir.path().join(format!("bench-{size}.db"));
        let mut store = SqliteStore::open(&path, &StoreOptions::default())?;
        let history = (0..size).map(item).collect();
        let head = store.create_run(NewRun {
            items: history,
            ..new_run("r")
        })?;
        let (mut version, mut seq) = (head.version, head.next_seq);
        let mut appends = Vec::with_capacity(SAMPLES);
        let mut closes = Vec::with_capacity(SAMPLES);
        for _ in 0..SAMPLES {
            let start = Instant::now();
            let c = store.commit(
                "r",
                RunWrite::append(version, Timestamp(1), vec![item(seq)]),
            )?;
            appends.push(start.elapsed());
            (version, seq) = (c.version, c.next_seq);

            let wake = add_note("[Scheduled wake: bench]", NoteLifetime::Turn, Some("wake"));
            let start = Instant::now();
            let write = RunWrite::append(version, Timestamp(2), vec![item(seq)])
                .with_note_ops(vec![wake], 16)
                .closing_turn();
            let c = store.commit("r", write)?;
            closes.push(start.elapsed());
            (version, seq) = (c.version, c.next_seq);
        }
        report(&format!("append item   @ {size:>6} items"), 34, appends);
        report(&format!("close turn    @ {size:>6} items"), 34, closes);
    }
    Ok(())
}
