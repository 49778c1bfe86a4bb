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
use keel_policy::rules::Policy;
use keel_runtime::agent::{Agent, Event, LoopSettings};
use keel_runtime::approval::Approver;
use keel_runtime::gate::Gate;
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{RunStore, SqliteStore};
use keel_testkit::{Sandbox, gate, gate_env, rule};

pub use keel_testkit::ScriptedApprover;

/// keel's built-in default policy (`keel_app::policy::builtin`), plus, for a test that needs
/// a person asked, a rule that asks before each of `ask_tools` runs: the default allows them,
/// so the rule sits above it, where a workspace file's rule would.
pub fn policy(ask_tools: &[&str]) -> Policy {
    let ask = ask_tools
        .iter()
        .map(|t| rule(&[t], Decision::AskUser, 3000, "ask"))
        .collect();
    keel_app::policy::builtin().policy.with_rules(ask)
}

pub struct World {
    pub sandbox: Sandbox,
    pub cwd: std::path::PathBuf,
    pub store: SqliteStore,
    pub gate: Gate,
    pub tools: Toolbox,
    pub events: Vec<Event>,
}

/// Run `r` in a sandbox, the built-in tools in its working directory, and a gate over
/// [`policy`]`(ask_tools)`.
pub fn world(ask_tools: &[&str], interactive: bool) -> World {
    let sandbox = Sandbox::new();
    let cwd = sandbox.work().to_path_buf();
    let store = sandbox.store_with_run("r");
    let tools = Toolbox::builtin();
    let mut w = World {
        sandbox,
        cwd,
        store,
        gate: Gate::authority_only(),
        tools,
        events: Vec::new(),
    };
    w.regate(policy(ask_tools), interactive);
    w
}

impl World {
    /// Puts a gate over `policy` in place, one that knows the tools offered now (a test that
    /// adds tools or rules does this after).
    pub fn regate(&mut self, policy: Policy, interactive: bool) {
        let env = gate_env(&self.cwd, interactive, self.tools.infos());
        self.gate = gate(policy, BTreeMap::new(), env);
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
        refusal: None,
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
