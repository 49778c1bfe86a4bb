//! `cargo bench -p keel-core --bench bridge_source`: `build_bridge_source` on sessions of 100,
//! 10k and 100k messages (0.2, 20 and 50 MB of text). Target (issue 6): linear in the session,
//! and p50 ≤ 50 ms at 10k messages / 20 MB. Without `--bench` (as `cargo test` runs it) it does
//! one small pass, so the bench stays compiled and working.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

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

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let cases: &[(usize, usize)] = if quick {
        &[(100, 1_390)]
    } else {
        &[(100, 1_390), (10_000, 1_390), (100_000, 340)]
    };
    let runs = if quick { 1 } else { 9 };
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
        let per_message = p50(samples.clone()).as_nanos() / count.max(1) as u128;
        println!(
            "build_bridge_source: {count} messages, {:.1} MB: p50 {:.2} ms ({per_message} ns/message), dropped {:?}",
            bytes as f64 / 1e6,
            p50(samples).as_secs_f64() * 1e3,
            source.dropped
        );
    }
}
