//! Tool manuals and `clarify` through the turn loop: the stable head carries the summary of
//! each offered tool that has a manual (never the manual), `tool_manual` returns it whole, and
//! `clarify` reaches the person through the run's approver.

use keel_computer::manual::{COMPUTER_USE_MANUAL, COMPUTER_USE_SUMMARY, KEEP_CONTROL_ANSWER};
use keel_core::compose::stable_head;
use keel_model::ToolSpec;
use keel_model::scripted::ScriptedModel;
use keel_policy::Decision;
use keel_policy::rules::Policy;
use keel_runtime::agent::LoopSettings;
use keel_runtime::approval::Answer;
use keel_runtime::tools::clarify::Clarify;
use keel_runtime::tools::manual::ToolManual;
use keel_runtime::tools::{Tool, ToolContext, ToolOutput};
use serde_json::{Map, Value, json};

use crate::common;
use common::*;
use keel_testkit::rule;

/// Stands in for `computer_use`: only its name matters here.
struct FakeComputerUse;

impl Tool for FakeComputerUse {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "computer_use".into(),
            description: "Operate one desktop window.".into(),
            parameters: json!({"type": "object"}),
        }
    }
    fn annotations(&self) -> Map<String, Value> {
        Map::new()
    }
    fn call(&self, _args: &Value, _ctx: &ToolContext) -> ToolOutput {
        ToolOutput::ok("ok")
    }
}

/// A world offering the built-in tools plus computer use's three, with `policy` as its
/// policy (the gate is rebuilt so it knows the added tools).
fn computer_world(policy: Policy) -> World {
    let mut w = world(&[], false);
    w.tools.add(Box::new(FakeComputerUse));
    w.tools.add(Box::new(ToolManual::new()));
    w.tools.add(Box::new(Clarify::new()));
    w.regate(policy, true);
    w
}

fn system_prompts(model: &ScriptedModel) -> Vec<String> {
    model
        .requests
        .iter()
        .map(|(r, _)| r.messages[0].content.clone().unwrap_or_default())
        .collect()
}

#[test]
fn the_head_carries_the_summary_and_tool_manual_returns_the_manual() {
    let mut w = computer_world(common::policy(&[]));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("a", &[("tool_manual", json!({"name": "computer_use"}))]),
            reply("done", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read the page in the app")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_well_formed(&model);
    let prompts = system_prompts(&model);
    assert_eq!(prompts.len(), 2);
    let head = stable_head(
        &LoopSettings::default().base_instructions,
        &[COMPUTER_USE_SUMMARY],
    );
    for system in &prompts {
        // Byte-identical on every request, the summary once, the manual never.
        assert_eq!(system, &head);
        assert_eq!(system.matches(COMPUTER_USE_SUMMARY).count(), 1);
        assert!(system.ends_with(&format!("\n\n{COMPUTER_USE_SUMMARY}")));
        assert!(!system.contains("Use computer_use for a task that requires"));
    }
    // N2: the manual, verbatim, as the tool's result.
    assert_eq!(tool_outputs(&w.store, "r"), [COMPUTER_USE_MANUAL]);
}

#[test]
fn no_summary_without_a_tool_that_has_a_manual() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies("s", vec![reply("done", &[])]);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "hi")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let system = &system_prompts(&model)[0];
    assert_eq!(
        system,
        &stable_head(&LoopSettings::default().base_instructions, &[])
    );
    assert!(!system.contains("tool_manual"));
}

#[test]
fn a_tool_the_policy_hides_is_not_summarised() {
    let mut policy = common::policy(&[]);
    policy = Policy::new(
        policy
            .rules()
            .iter()
            .cloned()
            .chain([rule(&["computer_use"], Decision::Deny, 3000, "t")])
            .collect(),
        policy.checker_rules().to_vec(),
    );
    let mut w = computer_world(policy);
    let mut model = ScriptedModel::from_replies("s", vec![reply("done", &[])]);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "hi")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let (request, tools) = &model.requests[0];
    assert!(tools.iter().all(|t| t.name != "computer_use"));
    let system = request.messages[0].content.clone().unwrap_or_default();
    assert!(!system.contains(COMPUTER_USE_SUMMARY), "{system}");
}

#[test]
fn clarify_reaches_the_person_through_the_runs_approver() {
    let mut w = computer_world(common::policy(&[]));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("a", &[("clarify", json!({"question": "Which file?"}))]),
            reply(
                "bb",
                &[(
                    "clarify",
                    json!({"question": "Dealt with it?", "key": "computer:dialog"}),
                )],
            ),
            reply("ccc", &[("clarify", json!({"question": "Anything else?"}))]),
            reply("done", &[]),
        ],
    );
    // Answers clarifications from a script; denies every ask_user.
    let mut person =
        ScriptedApprover::always(Answer::Deny).clarifying(["notes.txt", KEEP_CONTROL_ANSWER]);
    with_agent(
        &mut w,
        &mut model,
        Some(&mut person),
        LoopSettings::default(),
        |a| a.user_turn("r", "tidy up"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_well_formed(&model);
    let outputs = tool_outputs(&w.store, "r");
    assert_eq!(outputs[0], "notes.txt");
    assert_eq!(
        outputs[1],
        format!("{{\"answer\":\"{KEEP_CONTROL_ANSWER}\",\"keepsControl\":true}}")
    );
    // Nobody left to answer.
    assert_eq!(outputs[2], keel_runtime::tools::clarify::NO_PERSON);
}
