//! What the turn-loop tests share: a world with a real database, a gate with keel's built-in
//! default policy, the built-in tools in a temporary directory, and a scripted model driving
//! an agent.
#![allow(dead_code)]

use std::collections::BTreeMap;

use keel_core::compose::Role;
use keel_core::item::{ItemId, ToolCall};
use keel_core::time::Timestamp;
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_policy::Decision;
use keel_policy::provenance::OnTainted;
use keel_policy::rules::{Matcher, Mode, Policy, Rule, tool_glob};
use keel_runtime::agent::{Agent, Event, LoopSettings};
use keel_runtime::approval::{Answer, Approver};
use keel_runtime::gate::Gate;
use keel_runtime::policy_gate::{GateEnv, PolicyGate};
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{NewRun, RunStore, SqliteStore, StoreOptions};

/// keel's built-in default policy (`keel_app::policy::builtin`), plus, for a test that needs
/// a person asked, a rule that asks before each of `ask_tools` runs: the default allows them,
/// so the rule sits above it, where a workspace file's rule would.
pub fn policy(ask_tools: &[&str]) -> Policy {
    let ask = ask_tools
        .iter()
        .map(|t| Rule {
            matcher: Matcher {
                tool_names: vec![tool_glob(t).unwrap_or_else(|e| panic!("{e}"))],
                ..Matcher::default()
            },
            decision: Decision::AskUser,
            priority: 3000,
            deny_message: None,
            source: "ask".into(),
        })
        .collect();
    keel_app::policy::builtin().policy.with_rules(ask)
}

pub struct World {
    pub _dir: tempfile::TempDir,
    pub cwd: std::path::PathBuf,
    pub store: SqliteStore,
    pub gate: Gate,
    pub tools: Toolbox,
    pub events: Vec<Event>,
}

pub fn world(ask_tools: &[&str], interactive: bool) -> World {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cwd = dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap_or_else(|e| panic!("{e}"));
    let cwd = cwd.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut store = SqliteStore::open(&dir.path().join("keel.db"), &StoreOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    store
        .create_run(NewRun {
            model: String::new(),
            origin: None,
            open_turn: false,
            id: "r".into(),
            preset: "default".into(),
            now: Timestamp(0),
            note_ops: Vec::new(),
            items: vec![],
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let tools = Toolbox::builtin();
    let env = GateEnv {
        cwd: cwd.clone(),
        workspaces: vec![],
        mode: Mode::Default,
        interactive,
        on_tainted: OnTainted::AskUser,
        tools: tools.infos(),
    };
    let gate = Gate::authority_only()
        .with_policy(PolicyGate::new(policy(ask_tools), BTreeMap::new(), env))
        .unwrap_or_else(|e| panic!("{e}"));
    World {
        _dir: dir,
        cwd,
        store,
        gate,
        tools,
        events: Vec::new(),
    }
}

pub fn reply(text: &str, calls: &[(&str, serde_json::Value)]) -> ModelReply {
    ModelReply {
        text: text.into(),
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| ToolCall {
                id: format!("c{}-{i}", text.len()),
                name: (*n).into(),
                arguments: a.clone(),
            })
            .collect(),
        usage: None,
    }
}

pub struct Yes(pub Vec<Answer>);
impl Approver for Yes {
    fn ask(&mut self, _: &ToolCall, _: &[String]) -> Answer {
        self.0.remove(0)
    }
}

pub fn with_agent<T>(
    w: &mut World,
    model: &mut ScriptedModel,
    approver: Option<&mut dyn Approver>,
    settings: LoopSettings,
    f: impl FnOnce(&mut Agent<'_>) -> T,
) -> T {
    let mut n = 0;
    let mut next_id = || {
        n += 1;
        ItemId::try_from(format!("i{n}-{}", rand_suffix())).unwrap_or_else(|_| unreachable!())
    };
    let events = &mut w.events;
    let mut sink = |e: Event| events.push(e);
    let mut agent = Agent {
        store: &mut w.store,
        model,
        gate: &w.gate,
        tools: &w.tools,
        tool_context: ToolContext::new(w.cwd.clone()),
        // Shorten the approver's trait-object lifetime to this agent's.
        approver: approver.map(|a| -> &mut dyn Approver { a }),
        settings,
        clock: || Timestamp(1),
        next_id: &mut next_id,
        events: &mut sink,
        cache: keel_runtime::agent::TurnCache::default(),
    };
    f(&mut agent)
}

pub fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Every request: one system message at index 0; every tool call answered by exactly one
/// tool message.
pub fn assert_well_formed(model: &ScriptedModel) {
    for (request, _) in &model.requests {
        assert_eq!(request.messages[0].role, Role::System);
        assert!(request.messages[1..].iter().all(|m| m.role != Role::System));
        let calls: Vec<&str> = request
            .messages
            .iter()
            .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
            .collect();
        let answers: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| m.tool_call_id.as_deref())
            .collect();
        assert_eq!(calls, answers);
    }
}

/// The text of every tool result the run holds, in order, as the model reads them.
pub fn tool_outputs(store: &SqliteStore, run: &str) -> Vec<String> {
    store
        .load_run(run)
        .unwrap_or_else(|e| panic!("{e}"))
        .items
        .iter()
        .filter_map(|i| match &i.body {
            keel_core::item::ItemBody::ToolResult { output, .. } => {
                Some(keel_core::envelope::tool_message_content(output).to_string())
            }
            _ => None,
        })
        .collect()
}
