//! `cargo bench -p keel-runtime --bench step`: the runtime's own cost per step — compose,
//! gate, ledger and persist — with the scripted provider, on runs of 10, 1k, 10k and 100k
//! items. Targets: p50 ≤ 0.5 ms at every size, flat in history length (issue 5); a step that
//! writes a file ≤ 100 µs and flat to 100k items, as a read-only one is (issue 18). Each
//! sample is one model step that calls a tool once (gate + ledger + tool + persist), measured
//! from the agent's side (the scripted model answers instantly, and keeps no copy of the
//! requests): `list_dir` (read-only: the provenance checker has nothing to do), `write_file`
//! with a short note (side-effecting, so provenance attributes its arguments against the
//! whole history), and the write-heavy variant, `write_file` with 16 KiB of content (the
//! argument provenance reads, the call the ledger keeps, the file and the result all grow).
//! Every step writes a file of its own name (row and step), never one an earlier row wrote:
//! rewriting a file through `O_TRUNC` is another operation for the file system (on ext4 it
//! waits for the earlier data's writeback), and when each size's row rewrote the files of the
//! size before it, the later rows measured that instead — the "growth with history" the
//! earlier figures showed. (The names carry the row's index, not its size: a value with six
//! digits or more also takes provenance's path for numbers written another way, which this
//! bench does not mean to time. That path grew with history until issue 18's fourth round —
//! 1.73M instructions a step at 100k items with `out/100000-k.md` — and is indexed since:
//! 350k there, against 313k without it.)
//! Every ~125 steps the run's log passes 1,000 pages and is checkpointed: by a
//! thread of the store's own since issue 18's fourth round, beside the steps (before, inside
//! the step that crossed it: that step was the row's p99 on a disk).
//! The history is users, tool calls, their results and replies. The turn's first step —
//! which opens the turn, loads the run and composes it whole once — is left out of the
//! samples (it is the run's load, not a step's cost); later steps compose only what they
//! appended. Prints p50, p90 and p99 per row, over 200 steps. `KEEL_BENCH_SIZES=10,100000`,
//! `KEEL_BENCH_TOOLS=list_dir,write_file,write_heavy` (a label's first word) and
//! `KEEL_BENCH_STEPS=N` pick rows and lengths, for a profiler: two lengths' instruction
//! counts give one step's.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use keel_core::Timestamp;
use keel_core::item::{ItemBody, ToolCall};
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::{Agent, LoopSettings};
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{NewItem, NewRun, RunStore, SqliteStore, StoreOptions};
use keel_testkit::bench::report;
use keel_testkit::{Sandbox, gate, gate_env, ids, item_id, new_run};

/// A row's tool arguments for step `k`.
type Arguments<'a> = Box<dyn Fn(usize) -> serde_json::Value + 'a>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let pick = |name: &str| -> Option<Vec<String>> {
        std::env::var(name)
            .ok()
            .map(|v| v.split(',').map(str::to_string).collect())
    };
    let sizes: Vec<u64> = match pick("KEEL_BENCH_SIZES") {
        Some(sizes) => sizes.iter().filter_map(|s| s.parse().ok()).collect(),
        None if quick => vec![10],
        None => vec![10, 1_000, 10_000, 100_000],
    };
    let only_tools = pick("KEEL_BENCH_TOOLS");
    let steps = match std::env::var("KEEL_BENCH_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(steps) => steps,
        None if quick => 3,
        None => 201,
    };
    let sandbox = Sandbox::new();
    let cwd = sandbox.work();
    // keel's built-in default policy, as a user with no configuration has it.
    let policy = keel_app::policy::builtin().policy;
    let tools = Toolbox::builtin();
    // The write-heavy variant's 16 KiB file: the model's own prose (nothing in the history
    // holds it, so the gate allows it without asking).
    let heavy: String = "draft: keel keeps the intent durable before the side effect starts. "
        .repeat(16 * 1024 / 60 + 1)
        .chars()
        .take(16 * 1024)
        .collect();
    let heavy: &str = &heavy;
    for (row, &size) in sizes.iter().enumerate() {
        let mut store = SqliteStore::open(
            &sandbox.path().join(format!("step-{size}.db")),
            &StoreOptions::default(),
        )?;
        let history = || -> Vec<NewItem> {
            (0..size)
                .map(|i| NewItem {
                    id: item_id(&format!("h{i}")),
                    ts: Timestamp(0),
                    // User, a tool call, its result, a reply: the history a real run has.
                    // (The last item is never a call left without its result.)
                    body: match if i + 1 == size && i % 4 == 1 {
                        3
                    } else {
                        i % 4
                    } {
                        0 => ItemBody::User {
                            text: format!("message {i} about the project plan"),
                        },
                        1 => ItemBody::Assistant {
                            text: String::new(),
                            tool_calls: vec![ToolCall {
                                id: format!("h{i}"),
                                name: "read_file".into(),
                                arguments: serde_json::json!({"path": format!("notes/{i}.md")}),
                            }],
                        },
                        2 => ItemBody::ToolResult {
                            call_id: format!("h{}", i - 1),
                            tool: "read_file".into(),
                            output: keel_core::item::Untrusted::new(format!(
                                "contents of notes/{}.md: the plan, step {i}",
                                i - 1
                            )),
                            is_error: false,
                        },
                        _ => ItemBody::Assistant {
                            text: format!("reply {i}: noted, here is what I found"),
                            tool_calls: vec![],
                        },
                    },
                })
                .collect()
        };
        store.create_run(NewRun {
            items: history(),
            ..new_run("r")
        })?;
        // A read-only call (the provenance checker has nothing to do), and a side-effecting
        // one whose arguments it attributes against the whole history.
        let kinds: [(&str, &str, Arguments<'_>); 3] = [
            ("list_dir", "list_dir", Box::new(|_| serde_json::json!({}))),
            (
                "write_file",
                "write_file",
                Box::new(
                    move |k| serde_json::json!({"path": format!("out/r{row}-{k}.md"), "content": "a short note"}),
                ),
            ),
            (
                "write_heavy: write_file, 16 KiB",
                "write_file",
                Box::new(
                    move |k| serde_json::json!({"path": format!("out/heavy-r{row}-{k}.md"), "content": heavy}),
                ),
            ),
        ];
        std::fs::create_dir_all(cwd.join("out"))?;
        for (label, tool, arguments) in kinds {
            if only_tools.as_ref().is_some_and(|t| {
                !t.iter()
                    .any(|t| label.split(':').next() == Some(t.as_str()))
            }) {
                continue;
            }
            let replies: Vec<ModelReply> = (0..steps)
                .map(|k| ModelReply {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: format!("{tool}-c{k}"),
                        name: tool.into(),
                        arguments: arguments(k),
                    }],
                    ..ModelReply::default()
                })
                .chain(std::iter::once(ModelReply {
                    text: "done".into(),
                    ..ModelReply::default()
                }))
                .collect();
            let mut model = ScriptedModel::from_replies("bench", replies).forgetting_requests();
            // The quick run (`cargo test --benches`) holds every request to the check; the
            // measured one does not, as the check reads the whole request, which is not keel's
            // cost per step.
            if !quick {
                model = model.without_request_check();
            }
            let gate = gate(
                policy.clone(),
                BTreeMap::new(),
                gate_env(cwd, false, tools.infos()),
            );
            let mut next_id = ids("b");
            let mut marks: Vec<Instant> = Vec::new();
            // A step the gate refused costs less than one it allows: the bench measures allowed
            // steps only, and says so if the policy refused any.
            let mut refused: Vec<String> = Vec::new();
            let mut events = |e: keel_runtime::agent::Event| match e {
                keel_runtime::agent::Event::ToolResult { .. } => marks.push(Instant::now()),
                keel_runtime::agent::Event::ToolCall {
                    decision, reason, ..
                } if decision != "allowed" => {
                    refused.push(format!("{decision}: {}", reason.unwrap_or_default()));
                }
                _ => {}
            };
            let mut agent = Agent {
                store: &mut store,
                model: &mut model,
                gate: &gate,
                tools: &tools,
                tool_context: ToolContext::new(cwd.to_path_buf()),
                approver: None,
                settings: LoopSettings {
                    step_limit: steps + 5,
                    ..LoopSettings::default()
                },
                clock: || Timestamp(1),
                next_id: &mut next_id,
                events: &mut events,
                cache: keel_runtime::agent::TurnCache::default(),
            };
            agent.user_turn("r", "work on the notes, step after step")?;
            if let Some(first) = refused.first() {
                return Err(format!("{tool}: the gate refused a step ({first})").into());
            }
            // Per-step times: between consecutive tool results, so the first step (the turn's
            // opening) is not among them.
            let times: Vec<Duration> = marks.windows(2).map(|w| w[1] - w[0]).collect();
            report(&format!("step @ {size:>6} items, {label}"), 60, times);
        }
    }
    Ok(())
}
