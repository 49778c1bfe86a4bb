//! `cargo bench -p keel-runtime --bench gate`: the gate's cost.
//!
//! - In-process: keel's built-in default policy (its rules, allowed-path, guarded-paths and
//!   provenance) over a 50-item conversation. Target p50 ≤ 20 µs.
//! - In-process, a named record: the same gate deciding a refund whose amount is a field of a
//!   record the user named, in a structured result of 200 records (the slow path: the value
//!   is tainted, so the result is parsed).
//! - External, same checker logic (`keel-example-checker`) in place of the default's in-process
//!   checkers, through the whole gate: spawn-per-call against one persistent process. Target:
//!   persistent p50 ≤ 100 µs.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use keel_core::item::{Item, ItemBody, ToolCall, Untrusted};
use keel_core::notify::ResponseOrigin;
use keel_core::time::Timestamp;
use keel_policy::rules::{CheckerRef, CheckerRule, Policy};
use keel_runtime::checker::{CheckerMode, CheckerSpec};
use keel_runtime::gate::{Gate, GateInput, Verdict};
use keel_testkit::bench::report;
use keel_testkit::{Sandbox, gate_env, item_id, matcher};

/// How wide the label column of the figures is.
const WIDTH: usize = 52;

fn checker_rule(checker: CheckerRef) -> CheckerRule {
    CheckerRule {
        matcher: matcher(&["*"]),
        priority: 1000,
        checker,
        required_context: None,
        config: None,
        timeout_ms: None,
        source: "bench".into(),
    }
}

fn conversation(n: u64) -> Vec<Item> {
    (0..n)
        .map(|i| {
            let body = match i % 3 {
                0 => ItemBody::User {
                    text: format!(
                        "please update notes/file-{i}.md with the summary for ticket {i}"
                    ),
                },
                1 => ItemBody::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: format!("c{i}"),
                        name: "read_file".into(),
                        arguments: serde_json::json!({"path": format!("notes/file-{i}.md")}),
                    }],
                },
                _ => ItemBody::ToolResult {
                    call_id: format!("c{}", i - 1),
                    tool: "read_file".into(),
                    output: Untrusted::new(format!(
                        "Ticket {i}: the build fails on step {i}; contact ops-{i}@example.com"
                    )),
                    is_error: false,
                },
            };
            Item {
                seq: i,
                id: item_id(&format!("i{i}")),
                ts: Timestamp(0),
                body,
            }
        })
        .collect()
}

fn time(
    gate: &Gate,
    call: &ToolCall,
    items: &[Item],
    samples: usize,
    want: &Verdict,
) -> Vec<Duration> {
    (0..samples)
        .map(|_| {
            let start = Instant::now();
            let v = gate.decide(
                &GateInput {
                    origin: ResponseOrigin::UserTurn,
                    call,
                    items,
                    run: None,
                },
                None,
            );
            let took = start.elapsed();
            assert_eq!(&v, want);
            took
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let samples = if quick { 5 } else { 2000 };
    let sandbox = Sandbox::new();
    let cwd = sandbox.work();
    std::fs::create_dir_all(cwd.join("notes"))?;
    let env = |cwd: &std::path::Path| gate_env(cwd, true, HashMap::new());
    // keel's built-in default policy, as a user with no configuration has it.
    let default = keel_app::policy::builtin().policy;
    let items = conversation(50);
    let call = ToolCall {
        id: "cx".into(),
        name: "write_file".into(),
        arguments: serde_json::json!({"path": "notes/summary.md", "content": "all good"}),
    };

    let gate = keel_testkit::gate(default.clone(), BTreeMap::new(), env(cwd));
    report(
        "in-process gate, 50-item conversation",
        WIDTH,
        time(&gate, &call, &items, samples, &Verdict::Allow),
    );

    // The named-record path: a structured result of 200 transfers, the user naming one.
    let transfers: Vec<serde_json::Value> = (0..200)
        .map(|i| {
            serde_json::json!({"id": i, "sender": format!("DE{:020}", 44_000 + i),
                               "amount": 10.0 + f64::from(i), "subject": format!("Transfer {i}")})
        })
        .collect();
    let named_items = vec![
        Item {
            seq: 0,
            id: item_id("u0"),
            ts: Timestamp(0),
            body: ItemBody::User {
                text: format!("Refund DE{:020} for what they sent me", 44_123),
            },
        },
        Item {
            seq: 1,
            id: item_id("r1"),
            ts: Timestamp(0),
            body: ItemBody::ToolResult {
                call_id: "c1".into(),
                tool: "list_transfers".into(),
                output: Untrusted::new(serde_json::Value::Array(transfers).to_string()),
                is_error: false,
            },
        },
    ];
    let refund = ToolCall {
        id: "cr".into(),
        name: "send_money".into(),
        arguments: serde_json::json!({"recipient": format!("DE{:020}", 44_123), "amount": 133.0}),
    };
    let mut named_env = env(cwd);
    named_env.tools.insert(
        "list_transfers".into(),
        keel_policy::classify::ToolInfo {
            name: "list_transfers".into(),
            structured_output: true,
            ..Default::default()
        },
    );
    let named_gate = keel_testkit::gate(default.clone(), BTreeMap::new(), named_env);
    report(
        "in-process gate, named record in 200",
        WIDTH,
        time(
            &named_gate,
            &refund,
            &named_items,
            samples.min(500),
            &Verdict::Allow,
        ),
    );

    let program = env!("CARGO_BIN_EXE_keel-example-checker").to_string();
    for (label, mode, args) in [
        (
            "external checker, spawn per call (whole gate)",
            CheckerMode::Spawn,
            vec![program.clone()],
        ),
        (
            "external checker, persistent (whole gate)",
            CheckerMode::Persistent,
            vec![program, "--persistent".into()],
        ),
    ] {
        let mut spec = CheckerSpec::new("example", args);
        spec.mode = mode;
        // The default's rules, with the external checker in place of its in-process ones.
        let policy = Policy::new(
            default.rules().to_vec(),
            vec![checker_rule(CheckerRef::External("example".into()))],
        );
        let gate = keel_testkit::gate(policy, BTreeMap::from([("example".into(), spec)]), env(cwd));
        let n = if mode == CheckerMode::Spawn {
            samples.min(300)
        } else {
            samples
        };
        report(
            label,
            WIDTH,
            time(&gate, &call, &items[..0], n, &Verdict::Allow),
        );
    }
    Ok(())
}
