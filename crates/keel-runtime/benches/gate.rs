//! `cargo bench -p keel-runtime --bench gate`: the gate's cost.
//!
//! - In-process: keel's built-in default policy (its rules, allowed-path, guarded-paths and
//!   provenance) over a 50-item conversation indexed afresh for each decision (as `keel
//!   check` and a run's first decision after a start do), and in a run: the gate keeps the
//!   run's index while the conversation grows by a call and its result before each decision
//!   (`time_in_run`). Both again from 10,000 items. Targets (issue 14): p50 ≤ 10 µs at 50
//!   items, ≤ 50 µs at 10k. The session's directory is the process's working directory, as
//!   `keel run` started in a folder has it; one row has it elsewhere (a stored run resumed
//!   from another folder), where a decision asks where that directory is by its path.
//! - In-process, thirty offered tools: an MCP server's tools beside keel's own, the user asking
//!   for one of them ("Delete file 13"), so the decision reads which offered tool the user's
//!   words choose (tool_choice), over the 50-item conversation.
//! - In-process, a named record: the same gate deciding a refund whose amount is a field of a
//!   record the user named, in a structured result of 200 records (the slow path: the value
//!   is tainted, so the result is parsed).
//! - External, same checker logic (`keel-example-checker`) in place of the default's in-process
//!   checkers, through the whole gate, on an empty conversation: spawn-per-call against one
//!   persistent process, which answers each request line at once. Targets for the persistent
//!   row: p50 ≤ 100 µs (issue 14), p99 ≤ 50 µs (issue 18). Its figures depend on how busy the
//!   machine is: on a virtual machine an idle CPU halts, and waking it is most of a check, so
//!   an idle machine gives the slower figures (docs/safety.md, "Figures"); `taskset -c 1`
//!   (keel and the checker on one CPU) shows a check without that wake-up.
//!
//! Arguments that are not flags pick rows by a part of their label (`cargo bench -p
//! keel-runtime --bench gate -- 50-item`), so a profiler can watch one row.

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
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

/// An MCP server's tools, each with its one argument: several act on one thing by other
/// verbs, as real servers' do.
const OFFERED_TOOLS: [(&str, &str); 30] = [
    ("list_files", "folder"),
    ("read_email", "email_id"),
    ("delete_file", "file_id"),
    ("purge_file", "file_id"),
    ("shred_file", "file_id"),
    ("share_file", "file_id"),
    ("publish_file", "file_id"),
    ("export_file", "file_id"),
    ("rename_file", "file_id"),
    ("update_file", "file_id"),
    ("send_email", "email_id"),
    ("reply_email", "email_id"),
    ("forward_email", "email_id"),
    ("broadcast_email", "email_id"),
    ("pay_invoice", "invoice_id"),
    ("refund_invoice", "invoice_id"),
    ("wire_invoice", "invoice_id"),
    ("set_invoice_paid", "invoice_id"),
    ("book_room", "room_id"),
    ("rent_room", "room_id"),
    ("cancel_booking", "booking_id"),
    ("void_booking", "booking_id"),
    ("merge_pull_request", "pr_id"),
    ("close_pull_request", "pr_id"),
    ("disable_account", "account_id"),
    ("ban_account", "account_id"),
    ("revoke_account", "account_id"),
    ("cancel_order", "order_id"),
    ("cancel_subscription", "subscription_id"),
    ("slack_post_message", "channel_id"),
];

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

/// Decisions as a run makes them: the gate keeps the run's provenance index, and before each
/// decision the conversation grows by the previous call and its result (new text, indexed
/// then), so the figure is a run's steady state and not a repeat of one input.
fn time_in_run(
    gate: &Gate,
    call: &ToolCall,
    start: &[Item],
    samples: usize,
    want: &Verdict,
) -> Vec<Duration> {
    let mut items = start.to_vec();
    (0..samples)
        .map(|n| {
            let seq = items.len() as u64;
            items.push(Item {
                seq,
                id: item_id(&format!("g{seq}")),
                ts: Timestamp(0),
                body: ItemBody::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: format!("g{n}"),
                        name: "read_file".into(),
                        arguments: serde_json::json!({"path": format!("notes/run-{n}.md")}),
                    }],
                },
            });
            items.push(Item {
                seq: seq + 1,
                id: item_id(&format!("g{}", seq + 1)),
                ts: Timestamp(0),
                body: ItemBody::ToolResult {
                    call_id: format!("g{n}"),
                    tool: "read_file".into(),
                    output: Untrusted::new(format!(
                        "Run note {n}: step {n} passed; owner team-{n}@example.org"
                    )),
                    is_error: false,
                },
            });
            let start = Instant::now();
            let v = gate.decide(
                &GateInput {
                    origin: ResponseOrigin::UserTurn,
                    call,
                    items: &items,
                    run: Some("bench-run"),
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
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |label: &str| filters.is_empty() || filters.iter().any(|f| label.contains(f));
    let sandbox = Sandbox::new();
    let cwd = sandbox.work();
    std::fs::create_dir_all(cwd.join("notes"))?;
    // The tools a run declares (keel's built-in toolbox), as a real run's gate knows them.
    let declared = keel_runtime::tools::Toolbox::builtin().infos();
    let env = |cwd: &std::path::Path| gate_env(cwd, true, declared.clone());
    // keel's built-in default policy, as a user with no configuration has it.
    let default = keel_app::policy::builtin().policy;
    let items = conversation(50);
    let call = ToolCall {
        id: "cx".into(),
        name: "write_file".into(),
        arguments: serde_json::json!({"path": "notes/summary.md", "content": "all good"}),
    };

    // A session whose directory is not the process's working directory (a stored run
    // resumed from elsewhere, `keel check` given another `cwd`): its gate made before the
    // process moves there.
    let elsewhere = keel_testkit::gate(default.clone(), BTreeMap::new(), env(cwd));
    // `keel run` works in the folder it was started in: the session's directory is the
    // process's working directory, as in the other rows.
    std::env::set_current_dir(cwd)?;
    let gate = keel_testkit::gate(default.clone(), BTreeMap::new(), env(cwd));
    let label = "in-process gate, 50-item conversation";
    if wanted(label) {
        report(
            label,
            WIDTH,
            time(&gate, &call, &items, samples, &Verdict::Allow),
        );
    }
    let label = "in-process gate, in a run from 50 items";
    if wanted(label) {
        let gate = keel_testkit::gate(default.clone(), BTreeMap::new(), env(cwd));
        report(
            label,
            WIDTH,
            time_in_run(&gate, &call, &items, samples.min(500), &Verdict::Allow),
        );
    }
    let label = "in-process gate, in a run from 50, cwd elsewhere";
    if wanted(label) {
        report(
            label,
            WIDTH,
            time_in_run(&elsewhere, &call, &items, samples.min(500), &Verdict::Allow),
        );
    }
    let long = conversation(10_000);
    let label = "in-process gate, 10k items, indexed afresh";
    if wanted(label) {
        report(
            label,
            WIDTH,
            time(&gate, &call, &long, samples.min(200), &Verdict::Allow),
        );
    }
    let label = "in-process gate, in a run from 10k items";
    if wanted(label) {
        let gate = keel_testkit::gate(default.clone(), BTreeMap::new(), env(cwd));
        report(
            label,
            WIDTH,
            time_in_run(&gate, &call, &long, samples.min(500), &Verdict::Allow),
        );
    }

    // An MCP server's thirty tools beside keel's own, the user asking for one of them by
    // name: a call to a tool not keel's own is held to the tool the user's words choose among
    // those on offer (tool_choice), which reads every offered tool.
    let label = "in-process gate, 50 items, 30 offered tools";
    if wanted(label) {
        let mut offered_env = env(cwd);
        for (name, key) in OFFERED_TOOLS {
            let parameters = serde_json::json!({
                "type": "object",
                "properties": {key: {"type": "string"}},
                "required": [key],
            });
            offered_env.tools.insert(
                name.to_string(),
                keel_policy::classify::ToolInfo {
                    name: name.to_string(),
                    description: format!("{} the {}.", name.replace('_', " "), key),
                    parameters: Some(parameters),
                    ..Default::default()
                },
            );
        }
        let offered_gate = keel_testkit::gate(default.clone(), BTreeMap::new(), offered_env);
        let mut asked = items.clone();
        asked[0].body = ItemBody::User {
            text: "Delete file 13, then read e-mail 12.".into(),
        };
        let delete = ToolCall {
            id: "cd".into(),
            name: "delete_file".into(),
            arguments: serde_json::json!({"file_id": "13"}),
        };
        report(
            label,
            WIDTH,
            time(&offered_gate, &delete, &asked, samples, &Verdict::Allow),
        );
        // In a run the gate keeps the index, and what the user's words ask is read once.
        report(
            "in-process gate, 30 offered tools, in a run",
            WIDTH,
            time_in_run(
                &offered_gate,
                &delete,
                &asked,
                samples.min(500),
                &Verdict::Allow,
            ),
        );
    }

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
    let label = "in-process gate, named record in 200";
    if wanted(label) {
        report(
            label,
            WIDTH,
            time(
                &named_gate,
                &refund,
                &named_items,
                samples.min(500),
                &Verdict::Allow,
            ),
        );
    }

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
        if !wanted(label) {
            continue;
        }
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
