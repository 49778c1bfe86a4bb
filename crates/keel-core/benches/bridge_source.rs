//! `cargo bench -p keel-core --bench bridge_source`: `build_bridge_source` on sessions of 100,
//! 10k and 100k messages (0.2, 20 and 50 MB of text), warm (the same session built again, the
//! way a preview is rebuilt after an edit), p50 and p99 over the runs. Each session is users
//! with an image now and then, assistants with a tool call each and a compaction checkpoint
//! every 1000 messages; the default budgets (60k chars of source, 60k of visual evidence) hold
//! a small part of the large ones, so most of the work is deciding what does not fit.
//! Targets (issue 18): p50 ≤ 0.5 ms at 10k messages / 20 MB, ≤ 5 ms at 100k. Without
//! `--bench` (as `cargo test` runs it) it does one small pass, so the bench stays compiled and
//! working.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};

use keel_core::bridge::message::{ChatMessage, ToolNode};
use keel_core::bridge::source::{SourceOptions, build_bridge_source};

/// A chronological session of `count` messages of about `chars` chars each: users with an
/// image now and then, assistants with tool calls, and a compaction checkpoint every 1000.
fn session(count: usize, chars: usize) -> Vec<ChatMessage> {
    let filler = "the quick brown fox jumps over the lazy dog; 快速的棕色狐狸跳过了懒狗。 ";
    let text: String = filler.chars().cycle().take(chars).collect();
    (0..count)
        .map(|i| {
            let mut m = ChatMessage {
                role: if i % 2 == 0 { "user" } else { "assistant" }.to_string(),
                content: format!("{i}: {text}"),
                ..ChatMessage::default()
            };
            if i % 2 == 0 && i % 10 == 0 {
                m.image_count = 1;
            }
            if i % 2 == 1 {
                m.tool_nodes.push(ToolNode {
                    title: "Edit".to_string(),
                    detail: Some(format!("src/module_{i}.rs\n+ changed")),
                });
            }
            if i % 1000 == 999 {
                m.role = "system".to_string();
                m.kind = Some("compaction".to_string());
            }
            m
        })
        .collect()
}

/// The `p`-quantile of `samples` (nearest rank).
fn quantile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let cases: &[(usize, usize)] = if quick {
        &[(100, 1_390)]
    } else {
        &[(100, 1_390), (10_000, 1_390), (100_000, 340)]
    };
    let runs = if quick { 1 } else { 101 };
    for &(count, chars) in cases {
        let messages = session(count, chars);
        let bytes: usize = messages.iter().map(|m| m.content.len()).sum();
        let mut samples = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let start = Instant::now();
            let source = build_bridge_source(&messages, SourceOptions::default());
            samples.push(start.elapsed());
            last = Some(source);
        }
        let Some(source) = last else { return };
        assert!(
            source.text.chars().count() <= 60_000,
            "source over its budget"
        );
        assert!(
            !source.dropped.is_empty() || count <= 10,
            "a large session must be cut visibly"
        );
        let (p50, p99) = (quantile(&samples, 0.5), quantile(&samples, 0.99));
        let per_message = p50.as_nanos() / count.max(1) as u128;
        println!(
            "build_bridge_source: {count} messages, {:.1} MB: p50 {:.3} ms ({per_message} ns/message), p99 {:.3} ms, dropped {:?}",
            bytes as f64 / 1e6,
            p50.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3,
            source.dropped
        );
    }
}
