//! `cargo bench -p keel-runtime --bench step`: the runtime's own cost per step — compose,
//! gate, ledger and persist — with the scripted provider, on runs of 10, 1k and 10k items.
//! Target (issue 5): p50 ≤ 0.5 ms at every size, flat in history length. Each sample is one
//! model step that calls `list_dir` (read-only) or `write_file` (side-effecting, so provenance
//! attributes its arguments) once (gate + ledger + tool + persist), measured from the
//! agent's side (the scripted model answers instantly, and keeps no copy of the requests).
//! The history is users, tool calls, their results and replies; the first step of the turn
//! composes all of it, later steps only what they appended.

// A bench prints its figures.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use keel_core::Timestamp;
use keel_core::item::{ItemBody, ToolCall};
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::{Agent, LoopSettings};
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{NewItem, NewRun, RunStore, SqliteStore, StoreOptions};
use keel_testkit::{Sandbox, gate, gate_env, ids, item_id, new_run};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes: &[u64] = if quick { &[10] } else { &[10, 1_000, 10_000] };
    let steps = if quick { 3 } else { 60 };
    let sandbox = Sandbox::new();
    let cwd = sandbox.work();
    // keel's built-in default policy, as a user with no configuration has it.
    let policy = keel_app::policy::builtin().policy;
    let tools = Toolbox::builtin();
    for &size in sizes {
        let mut store = SqliteStore::open(
            &sandbox.path().join(format!("step-{size}.db")),
            &StoreOptions::default(),
        )?;
        let history: Vec<NewItem> = (0..size)
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
            .collect();
        store.create_run(NewRun {
            items: history,
            ..new_run("r")
        })?;
        // A read-only call (the provenance checker has nothing to do), and a side-effecting
        // one whose arguments it attributes against the whole history.
        type Arguments = fn(usize) -> serde_json::Value;
        let kinds: [(&str, Arguments); 2] = [
            ("list_dir", |_| serde_json::json!({})),
            (
                "write_file",
                |k| serde_json::json!({"path": format!("out/{k}.md"), "content": "a short note"}),
            ),
        ];
        std::fs::create_dir_all(cwd.join("out"))?;
        for (tool, arguments) in kinds {
            let replies: Vec<ModelReply> = (0..steps)
                .map(|k| ModelReply {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: format!("{tool}-c{k}"),
                        name: tool.into(),
                        arguments: arguments(k),
                    }],
                    usage: None,
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
            let start = Instant::now();
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
            // Per-step times: between consecutive tool results.
            let mut times: Vec<Duration> = std::iter::once(start)
                .chain(marks.iter().copied())
                .collect::<Vec<_>>()
                .windows(2)
                .map(|w| w[1] - w[0])
                .collect();
            times.sort();
            let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
            println!(
                "step (compose + gate + ledger + persist) @ {size:>6} items, {tool:<10}  p50 {:>10.3?}  p90 {:>10.3?}",
                at(0.5),
                at(0.9)
            );
        }
    }
    Ok(())
}
