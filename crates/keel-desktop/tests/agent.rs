//! Computer use end to end on a real display: the turn loop, driven by the scripted provider,
//! calls `computer_use` discover → open → observe → step → step → close on a real GTK form
//! under Xvfb, through the real gate (with the desktop lease stage and keel's built-in default
//! policy) and keel's session machine, with consent answered through the approver interface.
//! Typing into the field and ticking the check button are verified with `field` and
//! `selected` expectations from the accessibility tree, and checked again from a second
//! connection.
//!
//! The computer-use model is the one part that is not real: a stand-in that reads the
//! observation it is given and aims at the element the goal names, as a grounding model would.

use crate::fixture;

use fixture::{App, Fixture};
use keel_computer::desktop::Desktop;
use keel_computer::session::{Grounder, GroundingError, GroundingRequest, Lease, Limits};
use keel_core::ToolCall;
use keel_core::time::Timestamp;
use keel_desktop::{DesktopConfig, LinuxDesktop};
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::{Agent, LoopSettings, TurnCache};
use keel_runtime::approval::Answer;
use keel_runtime::computer::{ComputerHub, ComputerSettings, Deadlines, TimedDesktop};
use keel_runtime::gate::Gate;
use keel_runtime::policy_gate::PolicyGate;
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{DesktopStore, LeaseChange, RunStore, SqliteStore, StoreOptions};
use keel_testkit::{Sandbox, ScriptedApprover, gate_env, ids};
use serde_json::{Value, json};

/// Aims each step at the element whose label the goal names last ("… into Name", "Tick
/// Memories"), from the observation it is given: typing when the element is a field.
struct AimingModel {
    asked: usize,
}

impl Grounder for AimingModel {
    fn label(&self) -> String {
        "aiming-stand-in".into()
    }
    fn screenshot_recipient(&self) -> String {
        String::new()
    }
    fn takes_images(&self) -> bool {
        false
    }
    fn propose(&mut self, r: &GroundingRequest<'_>) -> Result<String, GroundingError> {
        self.asked += 1;
        let summary: Value = serde_json::from_str(r.summary).unwrap_or_default();
        let elements = summary["elements"].as_array().cloned().unwrap_or_default();
        if r.read_only {
            return Ok(json!({"type": "answer", "text": summary["text"]}).to_string());
        }
        let target = elements
            .iter()
            .filter(|e| {
                let label = e["label"].as_str().unwrap_or_default();
                !label.is_empty() && r.task.ends_with(label)
            })
            .find(|e| e["role"] != "label")
            .cloned()
            .unwrap_or_default();
        let b = &target["bounds"];
        let (x, y) = (
            b[0].as_i64().unwrap_or(0) + b[2].as_i64().unwrap_or(0) / 2,
            b[1].as_i64().unwrap_or(0) + b[3].as_i64().unwrap_or(0) / 2,
        );
        let action = if target["role"] == "AXTextField" {
            let text = r.task.split('"').nth(1).unwrap_or_default();
            json!({"type": "typeText", "text": text, "x": x, "y": y})
        } else {
            json!({"type": "click", "x": x, "y": y})
        };
        Ok(json!({"type": "action", "action": action}).to_string())
    }
}

fn call(name: &str, args: Value) -> ModelReply {
    ModelReply {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: format!("c-{}", args["op"].as_str().unwrap_or(name)),
            name: name.into(),
            arguments: args,
        }],
        usage: None,
        refusal: None,
    }
}

#[test]
fn an_agent_types_and_ticks_on_a_real_gtk_form_verified_from_the_tree() {
    let f = Fixture::start_app(App::Form);
    let config = DesktopConfig {
        display: Some(f.display.clone()),
        session_bus: Some(f.session_bus.clone()),
        ..DesktopConfig::default()
    };
    let sandbox = Sandbox::new();
    let db = sandbox.db();
    let mut store = sandbox.store_with_run("r");
    let desktop = LinuxDesktop::connect(config.clone()).unwrap();
    let hub = ComputerHub::new(
        ComputerSettings {
            enabled: true,
            limits: Limits::default(),
        },
        Box::new(TimedDesktop::new(Box::new(desktop), Deadlines::default())),
        Ok(Box::new(AimingModel { asked: 0 })),
        Box::new(SqliteStore::open(&db, &StoreOptions::default()).unwrap()),
        keel_cli_clock,
    );
    let mut tools = Toolbox::builtin();
    for t in hub.tools() {
        tools.add(t);
    }
    let cwd = sandbox.work().to_path_buf();
    let env = gate_env(&cwd, true, tools.infos());
    // keel's built-in default policy, as a user with no configuration has it.
    let policy = keel_app::policy::builtin();
    let gate = Gate::new(vec![hub.stage()])
        .unwrap()
        .with_policy(PolicyGate::new(policy.policy, policy.registry, env))
        .unwrap();
    let from = |pointer: &str| json!({"$from_last_result": pointer});
    let mut chat = ScriptedModel::from_replies(
        "chat",
        vec![
            call(
                "computer_use",
                json!({"op": "discover", "query": fixture::FORM}),
            ),
            call(
                "computer_use",
                json!({"op": "open", "appRef": from("/apps/0/appRef"), "mode": "control", "prepare": true}),
            ),
            call(
                "computer_use",
                json!({"op": "observe", "expect": {"kind": "field", "label": "Name", "value": ""}}),
            ),
            call(
                "computer_use",
                json!({"op": "step", "goal": "Type \"Ada\" into Name", "expect": {"kind": "field", "label": "Name", "value": "Ada"}}),
            ),
            call(
                "computer_use",
                json!({"op": "step", "goal": "Tick Memories", "expect": {"kind": "selected", "label": "Memories"}}),
            ),
            call("computer_use", json!({"op": "close"})),
            ModelReply {
                text: "The name is Ada and Memories is ticked.".into(),
                tool_calls: vec![],
                usage: None,
                refusal: None,
            },
        ],
    );
    // Says yes to the open and to everything the gate asks, and keeps each question.
    let mut person = ScriptedApprover::always(Answer::AllowOnce);
    let mut next_id = ids("i");
    let mut events = Vec::new();
    let mut sink = |e| events.push(e);
    let mut agent = Agent {
        store: &mut store,
        model: &mut chat,
        gate: &gate,
        tools: &tools,
        tool_context: ToolContext::new(cwd),
        approver: Some(&mut person),
        settings: LoopSettings::default(),
        clock: keel_cli_clock,
        next_id: &mut next_id,
        events: &mut sink,
        cache: TurnCache::default(),
    };
    agent
        .user_turn("r", "Set the name to Ada and tick Memories in keel-form")
        .unwrap();
    drop(agent);

    let results: Vec<Value> = store
        .load_run("r")
        .unwrap()
        .items
        .iter()
        .filter_map(|i| match &i.body {
            keel_core::ItemBody::ToolResult { output, .. } => Some(
                serde_json::from_str(keel_core::envelope::tool_message_content(output))
                    .unwrap_or(Value::Null),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 6, "{results:#?}");
    assert_eq!(results[0]["status"], "ok", "{}", results[0]);
    assert_eq!(results[1]["status"], "open", "{}", results[1]);
    assert_eq!(
        results[2]["verification"]["status"], "satisfied",
        "{}",
        results[2]
    );
    assert_eq!(results[3]["status"], "done", "{}", results[3]);
    assert_eq!(results[3]["receipt"]["dispatch"], "completed");
    assert_eq!(
        results[3]["verification"]["status"], "satisfied",
        "{}",
        results[3]
    );
    assert_eq!(results[3]["verified"], true);
    assert_eq!(
        results[4]["verification"]["status"], "satisfied",
        "{}",
        results[4]
    );
    assert_eq!(results[5]["status"], "stopped", "{}", results[5]);
    assert_eq!(
        results[5]["handoff"]["recentActions"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // The open was consented to, naming the app; the routine inputs were not asked about.
    let consents: Vec<_> = person
        .asked
        .iter()
        .filter(|(_, r)| r.iter().any(|r| r.starts_with("computer use:")))
        .collect();
    assert_eq!(consents.len(), 1, "{:?}", person.asked);
    // Nor did the default policy's checkers ask: the appRef came from discover's result, but
    // computer use's schema exempts it from provenance (its consent covers the open).
    assert_eq!(person.asked.len(), 1, "{:?}", person.asked);
    assert!(consents[0].1[0].contains(fixture::FORM));
    assert_eq!(hub.lease("r"), Lease::Free);
    let changes: Vec<LeaseChange> = store
        .lease_events("r")
        .unwrap()
        .into_iter()
        .map(|e| e.change)
        .collect();
    assert_eq!(changes, vec![LeaseChange::Held, LeaseChange::Released]);

    // What the app shows now, read over a second connection.
    let mut check = LinuxDesktop::connect(config).unwrap();
    let app = check
        .apps()
        .unwrap()
        .into_iter()
        .find(|a| a.name == fixture::FORM)
        .unwrap();
    let window = check.windows(&app.key).unwrap().remove(0);
    let s = check.snapshot(&window.key, false).unwrap();
    let name = s
        .elements
        .iter()
        .find(|e| e.label == "Name" && e.role == "AXTextField");
    assert_eq!(name.and_then(|e| e.value.as_deref()), Some("Ada"));
    let memories = s.elements.iter().find(|e| e.label == "Memories");
    assert_eq!(memories.and_then(|e| e.selected), Some(true));
}

fn keel_cli_clock() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Timestamp(ms)
}
