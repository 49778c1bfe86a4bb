//! Calls keel cannot run as proposed are refused before the gate, and the calls of one reply
//! get ids of their own (issue 17): with the scripted provider, the built-in policy, a person
//! to ask and an external checker that leaves a mark each time it runs.

use std::collections::BTreeMap;

use keel_core::compose::Role;
use keel_core::item::ItemBody;
use keel_model::scripted::ScriptedModel;
use keel_policy::rules::{CheckerRef, CheckerRule, Policy};
use keel_runtime::agent::{Event, LoopSettings};
use keel_runtime::approval::Answer;
use keel_store::{LedgerStore, RunStore};
use keel_testkit::{checker_spec, gate, gate_env, matcher, write_script};

use crate::common;
use common::*;

/// The world of [`world`], with a rule asking before `read_file`, `write_file` and
/// `no_such_tool` and an external checker on every call that appends the call to `checked`.
fn watched_world() -> (World, std::path::PathBuf) {
    let mut w = world(&["read_file", "write_file", "no_such_tool"], true);
    let checked = w.sandbox.path().join("checked");
    let program = write_script(
        w.sandbox.path(),
        "mark.sh",
        &format!(
            "cat >> {}; echo >> {}; echo '{{\"decision\":\"allow\"}}'",
            checked.display(),
            checked.display()
        ),
    );
    let base = policy(&["read_file", "write_file", "no_such_tool"]);
    let mut checkers = base.checker_rules().to_vec();
    checkers.push(CheckerRule {
        matcher: matcher(&["*"]),
        priority: 100,
        checker: CheckerRef::External("mark".into()),
        required_context: None,
        config: None,
        timeout_ms: None,
        source: "test:mark".into(),
    });
    let policy = Policy::new(base.rules().to_vec(), checkers);
    w.gate = gate(
        policy,
        BTreeMap::from([("mark".into(), checker_spec("mark", &program))]),
        gate_env(&w.cwd, true, w.tools.infos()),
    );
    (w, checked)
}

fn tool_messages(model: &ScriptedModel, request: usize) -> Vec<(String, String)> {
    model.requests[request]
        .0
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| {
            (
                m.tool_call_id.clone().unwrap_or_default(),
                m.content.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Arguments that are not a JSON object — text that is not JSON, an array, a number, null —,
/// a key the tool's schema does not take, and a tool keel does not have: before issue 17 each passed the gate (the person was asked,
/// the checker ran) and failed in the tool. Now none reaches a stage, a person or a tool; the
/// well-formed call beside them is gated and runs as before.
#[test]
fn calls_keel_cannot_run_are_refused_before_the_gate() {
    let (mut w, checked) = watched_world();
    std::fs::write(w.cwd.join("a.txt"), "alpha").unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::parse(
        "script:t",
        &[
            r#"{"tool_calls":[
                {"id":"bad_text","name":"write_file","arguments":"{\"path\": \"x.txt\", \"content\": "},
                {"id":"bad_array","name":"write_file","arguments":["x.txt","hi"]},
                {"id":"bad_number","name":"read_file","arguments":7},
                {"id":"bad_key","name":"write_file","arguments":{"path":"x.txt","content":"hi","command":"ls"}},
                {"id":"unknown","name":"no_such_tool","arguments":{"path":"a.txt"}},
                {"id":"good","name":"read_file","arguments":{"path":"a.txt"}}
            ]}"#
            .replace('\n', ""),
            r#"{"text":"done"}"#.to_string(),
        ]
        .join("\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut approver = ScriptedApprover::always(Answer::AllowOnce);
    let end = with_agent(
        &mut w,
        &mut model,
        Some(&mut approver),
        LoopSettings::default(),
        |a| a.user_turn("r", "read a.txt"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(end.final_text, "done");

    // Only the well-formed call reached a person, the checker and the tool.
    let asked: Vec<&str> = approver.asked.iter().map(|(c, _)| c.id.as_str()).collect();
    assert_eq!(asked, ["good"]);
    let marks = std::fs::read_to_string(&checked).unwrap_or_default();
    assert_eq!(
        marks.lines().filter(|l| !l.is_empty()).count(),
        1,
        "{marks}"
    );
    assert!(
        marks.contains("\"good\"") || marks.contains("a.txt"),
        "{marks}"
    );
    let ledger = w.store.ledger("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        ledger
            .iter()
            .map(|e| e.call_id.as_str())
            .collect::<Vec<_>>(),
        ["good"]
    );
    assert!(!w.cwd.join("x.txt").exists());

    // The model reads why, with what it sent, and that it may call again.
    let answers = tool_messages(&model, 1);
    let text = |id: &str| {
        answers
            .iter()
            .find(|(c, _)| c == id)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    assert!(
        text("bad_text").contains(
            "a tool's arguments must be one JSON object (for example {\"path\": \"notes.txt\"}), \
             and these were text that is not a JSON object: {\"path\": \"x.txt\", \"content\": ."
        ),
        "{}",
        text("bad_text")
    );
    assert!(
        text("bad_text").contains("Call `write_file` again with its arguments as a JSON object"),
        "{}",
        text("bad_text")
    );
    assert!(text("bad_array").contains("these were a JSON array: [\"x.txt\",\"hi\"]"));
    assert!(text("bad_number").contains("these were a JSON number: 7"));
    // A key the tool does not take (a `command` once met the read-only shell allow).
    assert!(
        text("bad_key").contains(
            "`write_file` takes no argument \"command\"; it takes only \"path\", \"content\""
        ),
        "{}",
        text("bad_key")
    );
    assert!(text("unknown").starts_with("There is no tool named no_such_tool; the tools are: "));
    assert_eq!(text("good"), "alpha");

    // Recorded like every refusal: an error result, nothing dispatched; the person sees it.
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    let refused: Vec<&str> = record
        .items
        .iter()
        .filter_map(|i| match &i.body {
            ItemBody::ToolResult {
                call_id,
                is_error: true,
                ..
            } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused,
        ["bad_text", "bad_array", "bad_number", "bad_key", "unknown"]
    );
    let decisions: Vec<(&str, &str)> = w
        .events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall { call, decision, .. } => Some((call.id.as_str(), decision.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("bad_text", "refused before the gate"),
            ("bad_array", "refused before the gate"),
            ("bad_number", "refused before the gate"),
            ("bad_key", "refused before the gate"),
            ("unknown", "refused before the gate"),
            ("good", "allowed by you (allow_once)"),
        ]
    );
    assert_well_formed(&model);
}

/// A notification's response keeps notifications.md N15a's exact refusal for every call,
/// malformed ones included: the authority stage answers it, not the check before the gate.
#[test]
fn a_notification_response_keeps_its_authority_refusal_for_malformed_calls() {
    let mut w = world(&[], false);
    keel_store::QueueStore::enqueue_notification(
        &mut w.store,
        "r",
        keel_testkit::new_notification(
            "n1",
            keel_core::notify::NotificationKind::TaskResult,
            "done",
            keel_core::Timestamp(1),
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::parse(
        "script:t",
        r#"{"tool_calls":[{"id":"bad","name":"write_file","arguments":"oops"},{"id":"gone","name":"no_such_tool"}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.deliver_notifications("r")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        tool_outputs(&w.store, "r"),
        [
            keel_core::notify::NOT_AUTHORIZED_RESULT,
            keel_core::notify::NOT_AUTHORIZED_RESULT
        ]
    );
}

/// Two calls of one reply with the same id: before issue 17 both were stored and sent back
/// as they were, and the next request had the id twice (the scripted provider, strict as an
/// API, refused it). Now the second is renamed before the gate, both are gated and run, each
/// is answered under its own id, and the person is told.
#[test]
fn duplicate_call_ids_in_one_reply_are_renamed_before_the_gate() {
    let mut w = world(&[], false);
    std::fs::write(w.cwd.join("a.txt"), "alpha").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(w.cwd.join("b.txt"), "beta").unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::parse(
        "script:t",
        &[
            r#"{"tool_calls":[{"id":"call_0","name":"read_file","arguments":{"path":"a.txt"}},{"id":"call_0","name":"read_file","arguments":{"path":"b.txt"}},{"id":"call_0","name":"list_dir","arguments":{}}]}"#,
            r#"{"text":"done"}"#,
        ]
        .join("\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read both")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(end.final_text, "done");
    let answers = tool_messages(&model, 1);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0], ("call_0".to_string(), "alpha".to_string()));
    assert_eq!(answers[1], ("call_0-2".to_string(), "beta".to_string()));
    assert_eq!(answers[2].0, "call_0-3");
    let sent: Vec<&str> = model.requests[1]
        .0
        .messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str()))
        .collect();
    assert_eq!(sent, ["call_0", "call_0-2", "call_0-3"]);
    let ledger = w.store.ledger("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        ledger
            .iter()
            .map(|e| e.call_id.as_str())
            .collect::<Vec<_>>(),
        ["call_0", "call_0-2", "call_0-3"]
    );
    assert!(w.events.iter().any(|e| matches!(e, Event::Notice(n)
        if n.contains("the id call_0, which another call of the same reply has")
            && n.contains("call_0-2"))));
    assert_well_formed(&model);
}
