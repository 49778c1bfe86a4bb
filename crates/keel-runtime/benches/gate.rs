//! `cargo bench -p keel-runtime --bench gate`: the gate's cost.
//!
//! - In-process: keel's built-in default policy (its rules, allowed-path and provenance) over
//!   a 50-item conversation. Target p50 ≤ 20 µs.
//! - In-process, a named record: the same gate deciding a refund whose amount is a field of a
//!   record the user named, in a structured result of 200 records (the slow path: the value
//!   is tainted, so the result is parsed).
//! - External, same checker logic (`keel-example-checker`) in place of the default's in-process
//!   checkers, through the whole gate: spawn-per-call against one persistent process. Target:
//!   persistent p50 ≤ 100 µs.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use keel_core::item::{Item, ItemBody, ItemId, ToolCall, Untrusted};
use keel_core::notify::ResponseOrigin;
use keel_core::time::Timestamp;
use keel_policy::provenance::OnTainted;
use keel_policy::rules::{CheckerRef, CheckerRule, Matcher, Mode, Policy, tool_glob};
use keel_runtime::checker::{CheckerMode, CheckerSpec};
use keel_runtime::gate::{Gate, GateInput, Verdict};
use keel_runtime::policy_gate::{GateEnv, PolicyGate};

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
    println!(
        "{label:<52} p50 {:>10.3?}  p90 {:>10.3?}  p99 {:>10.3?}",
        at(0.5),
        at(0.9),
        at(0.99)
    );
}

fn any_tool() -> Result<Matcher, regex::Error> {
    Ok(Matcher {
        tool_names: vec![tool_glob("*")?],
        ..Matcher::default()
    })
}

fn checker_rule(checker: CheckerRef) -> Result<CheckerRule, regex::Error> {
    Ok(CheckerRule {
        matcher: any_tool()?,
        priority: 1000,
        checker,
        required_context: None,
        config: None,
        timeout_ms: None,
        source: "bench".into(),
    })
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
                id: ItemId::try_from(format!("i{i}")).unwrap_or_else(|_| unreachable!()),
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
    let dir = tempfile::tempdir()?;
    let cwd = dir.path().canonicalize()?;
    std::fs::create_dir_all(cwd.join("notes"))?;
    let env = |cwd: &std::path::Path| GateEnv {
        cwd: cwd.to_path_buf(),
        workspaces: vec![],
        mode: Mode::Default,
        interactive: true,
        on_tainted: OnTainted::AskUser,
        tools: HashMap::new(),
    };
    // keel's built-in default policy, as a user with no configuration has it.
    let default = keel_app::policy::builtin().policy;
    let items = conversation(50);
    let call = ToolCall {
        id: "cx".into(),
        name: "write_file".into(),
        arguments: serde_json::json!({"path": "notes/summary.md", "content": "all good"}),
    };

    let gate = Gate::authority_only().with_policy(PolicyGate::new(
        default.clone(),
        BTreeMap::new(),
        env(&cwd),
    ))?;
    report(
        "in-process gate, 50-item conversation",
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
            id: ItemId::try_from("u0").unwrap_or_else(|_| unreachable!()),
            ts: Timestamp(0),
            body: ItemBody::User {
                text: format!("Refund DE{:020} for what they sent me", 44_123),
            },
        },
        Item {
            seq: 1,
            id: ItemId::try_from("r1").unwrap_or_else(|_| unreachable!()),
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
    let mut named_env = env(&cwd);
    named_env.tools.insert(
        "list_transfers".into(),
        keel_policy::classify::ToolInfo {
            name: "list_transfers".into(),
            structured_output: true,
            ..Default::default()
        },
    );
    let named_gate = Gate::authority_only().with_policy(PolicyGate::new(
        default.clone(),
        BTreeMap::new(),
        named_env,
    ))?;
    report(
        "in-process gate, named record in 200",
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
            vec![checker_rule(CheckerRef::External("example".into()))?],
        );
        let gate = Gate::authority_only().with_policy(PolicyGate::new(
            policy,
            BTreeMap::from([("example".into(), spec)]),
            env(&cwd),
        ))?;
        let n = if mode == CheckerMode::Spawn {
            samples.min(300)
        } else {
            samples
        };
        report(label, time(&gate, &call, &items[..0], n, &Verdict::Allow));
    }
    Ok(())
}
