//! The turn loop with the scripted provider, on a real database and real files.

use keel_core::NoteLifetime;
use keel_core::compose::{DISPATCH_UNKNOWN_TEXT, Role};
use keel_core::item::{ItemBody, ToolCall};
use keel_core::notify::{Lang, NOT_AUTHORIZED_RESULT, NotificationKind};
use keel_core::time::Timestamp;
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_policy::Decision;
use keel_runtime::agent::{Event, LoopSettings};
use keel_runtime::approval::Answer;
use keel_store::{DispatchState, LedgerStore, LedgerWrite, QueueStore, RunStore, RunWrite};
use keel_testkit::{add_note, new_item, new_notification, rule};
use serde_json::json;

use crate::common;
use common::*;

#[test]
fn allowed_and_denied_calls_and_the_reason_reaches_the_model() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply(
                "a",
                &[
                    ("write_file", json!({"path": "out.txt", "content": "hi"})),
                    ("write_file", json!({"path": "/etc/evil", "content": "x"})),
                ],
            ),
            reply("done", &[]),
        ],
    );
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "write out.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (end.final_text.as_str(), end.steps, end.hit_step_limit),
        ("done", 2, false)
    );
    assert_eq!(
        std::fs::read_to_string(w.cwd.join("out.txt")).unwrap_or_default(),
        "hi"
    );
    assert!(!std::path::Path::new("/etc/evil").exists());
    // The second request carries the denial as that call's tool message.
    let (second, _) = &model.requests[1];
    let denial = second
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .nth(1)
        .and_then(|m| m.content.clone())
        .unwrap_or_default();
    assert!(
        denial.starts_with("Tool execution denied by safety checker \"allowed-path\""),
        "{denial}"
    );
    assert_well_formed(&model);
    let ledger = w.store.ledger("r").unwrap_or_default();
    assert_eq!(ledger.len(), 1, "only the allowed call was dispatched");
    assert_eq!(ledger[0].state, DispatchState::Completed);
    assert!(
        !w.store.run_head("r").map(|h| h.turn_open).unwrap_or(true),
        "the turn closed"
    );
}

#[test]
fn ask_user_yes_and_no() {
    let mut w = world(&["write_file"], true);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply(
                "a",
                &[("write_file", json!({"path": "yes.txt", "content": "1"}))],
            ),
            reply(
                "bb",
                &[("write_file", json!({"path": "no.txt", "content": "2"}))],
            ),
            reply("done", &[]),
        ],
    );
    let mut approver = ScriptedApprover::answering([Answer::AllowOnce, Answer::Deny]);
    with_agent(
        &mut w,
        &mut model,
        Some(&mut approver),
        LoopSettings::default(),
        |a| a.user_turn("r", "Write yes.txt and no.txt"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(w.cwd.join("yes.txt").exists());
    assert!(!w.cwd.join("no.txt").exists());
    let last = &model.requests[2].0;
    assert_eq!(
        last.messages
            .last()
            .and_then(|m| m.content.clone())
            .as_deref(),
        Some(
            "The user denied this tool call. It needed confirmation because: policy: the rule at ask asks before write_file runs"
        )
    );
}

#[test]
fn turn_notes_are_consumed_when_the_turn_closes_and_the_step_limit_holds() {
    let mut w = world(&[], false);
    let wake = add_note("[Scheduled wake: daily]", NoteLifetime::Turn, Some("wake"));
    w.store
        .commit(
            "r",
            RunWrite::append(1, Timestamp(0), vec![]).with_note_ops(vec![wake], 16),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let looping: Vec<ModelReply> = (0..5)
        .map(|_| reply("x", &[("list_dir", json!({}))]))
        .collect();
    let mut model = ScriptedModel::from_replies("s", looping);
    let settings = LoopSettings {
        step_limit: 3,
        ..LoopSettings::default()
    };
    let end = with_agent(&mut w, &mut model, None, settings, |a| {
        a.user_turn("r", "loop")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(end.hit_step_limit);
    assert_eq!(model.requests.len(), 3);
    for (request, _) in &model.requests {
        assert!(
            request.messages[0]
                .content
                .as_deref()
                .unwrap_or("")
                .contains("[Scheduled wake: daily]")
        );
    }
    assert!(
        w.store
            .load_run("r")
            .map(|r| r.notes.is_empty())
            .unwrap_or(false),
        "consumed at close"
    );
    assert!(
        w.events
            .iter()
            .any(|e| matches!(e, Event::Notice(n) if n.contains("step limit")))
    );
    assert_well_formed(&model);
}

#[test]
fn a_tool_error_leaves_a_turn_note_for_the_next_step() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("a", &[("read_file", json!({"path": "missing.txt"}))]),
            reply("ok", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read it")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let system = model.requests[1].0.messages[0]
        .content
        .clone()
        .unwrap_or_default();
    assert!(
        system.contains("<<<TOOL_ERROR") && system.contains("cannot read"),
        "{system}"
    );
    assert!(
        w.store
            .load_run("r")
            .map(|r| r.notes.is_empty())
            .unwrap_or(false)
    );
}

#[test]
fn a_notification_turn_cannot_call_tools_and_gets_no_follow_up() {
    let mut w = world(&[], false);
    w.store
        .enqueue_notification(
            "r",
            new_notification(
                "p1",
                NotificationKind::Permission,
                "{\"tool\":\"write_file\"}",
                Timestamp(1),
            ),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![reply(
            "approving",
            &[("write_file", json!({"path": "x.txt", "content": "1"}))],
        )],
    );
    let delivered = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.deliver_notifications("r")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(delivered, 1);
    assert_eq!(model.requests.len(), 1, "no follow-up model call");
    assert!(!w.cwd.join("x.txt").exists());
    assert!(
        w.store.ledger("r").unwrap_or_default().is_empty(),
        "nothing dispatched"
    );
    assert_eq!(tool_outputs(&w.store, "r"), [NOT_AUTHORIZED_RESULT]);
    assert!(!w.store.run_head("r").map(|h| h.turn_open).unwrap_or(true));
}

#[test]
fn a_notification_waiting_when_the_user_speaks_is_merged() {
    let mut w = world(&[], false);
    w.store
        .enqueue_notification(
            "r",
            new_notification("t1", NotificationKind::TaskResult, "done", Timestamp(1)),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::from_replies("s", vec![reply("noted", &[])]);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "anything new?")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let msgs = &model.requests[0].0.messages;
    assert_eq!(msgs[1].content.as_deref(), Some("anything new?"));
    assert!(
        msgs[2]
            .content
            .as_deref()
            .unwrap_or("")
            .starts_with("[MERGE_WITH_USER] [NOTIFICATION] {\"kind\":\"task_result\"")
    );
    assert_eq!(msgs.len(), 3);
}

#[test]
fn recovery_marks_unfinished_calls_unknown_and_never_reruns_them() {
    let mut w = world(&[], false);
    // A crash left a call dispatched: the assistant item and the ledger entry exist, no result.
    let call = ToolCall {
        id: "c7".into(),
        name: "write_file".into(),
        arguments: json!({"path": "once.txt", "content": "1"}),
    };
    let items = vec![
        new_item(
            "u",
            Timestamp(0),
            ItemBody::User {
                text: "write once".into(),
            },
        ),
        new_item(
            "a",
            Timestamp(0),
            ItemBody::Assistant {
                text: String::new(),
                tool_calls: vec![call.clone()],
            },
        ),
    ];
    let ledger = vec![
        LedgerWrite::Intend {
            call_id: "c7".into(),
            tool: "write_file".into(),
            arguments: call.arguments,
        },
        LedgerWrite::Mark {
            call_id: "c7".into(),
            state: DispatchState::Dispatched,
            result: None,
        },
    ];
    w.store
        .commit(
            "r",
            RunWrite::append(1, Timestamp(0), items)
                .with_ledger(ledger)
                .opening_turn(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::from_replies("s", vec![reply("checked", &[])]);
    let recovered = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        let r = a.recover("r")?;
        a.continue_turn("r")?;
        Ok::<_, keel_runtime::agent::LoopError>(r)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(recovered.len(), 1);
    assert!(!w.cwd.join("once.txt").exists(), "never re-run");
    assert_eq!(
        w.store.ledger("r").unwrap_or_default()[0].state,
        DispatchState::Unknown
    );
    let tool_msg = model.requests[0]
        .0
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.content.clone());
    assert_eq!(tool_msg.as_deref(), Some(DISPATCH_UNKNOWN_TEXT));
    assert!(
        w.events
            .iter()
            .any(|e| matches!(e, Event::Notice(n) if n.contains("was not run again")))
    );
    let _ = Lang::En;
}

#[test]
fn a_call_whose_intent_was_never_recorded_is_answered_as_not_run() {
    let mut w = world(&[], false);
    // A crash right after the model's reply was stored: no ledger entry, no result.
    let call = ToolCall {
        id: "c1".into(),
        name: "write_file".into(),
        arguments: json!({"path": "x.txt", "content": "1"}),
    };
    let items = vec![
        new_item("u", Timestamp(0), ItemBody::User { text: "go".into() }),
        new_item(
            "a",
            Timestamp(0),
            ItemBody::Assistant {
                text: String::new(),
                tool_calls: vec![call],
            },
        ),
    ];
    w.store
        .commit("r", RunWrite::append(1, Timestamp(0), items).opening_turn())
        .unwrap_or_else(|e| panic!("{e}"));
    resumed_as_not_started(&mut w);
}

#[test]
fn a_tool_denied_outright_is_not_offered() {
    let mut w = world(&[], false);
    let deny = rule(&["shell"], Decision::Deny, 5000, "admin");
    w.regate(policy(&[]).with_rules(vec![deny]), false);
    let mut model = ScriptedModel::from_replies("s", vec![reply("ok", &[])]);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "hi")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let offered: Vec<String> = model.requests[0].1.iter().map(|t| t.name.clone()).collect();
    assert!(!offered.contains(&"shell".to_string()), "{offered:?}");
    assert!(offered.contains(&"read_file".to_string()));
}

/// The defaults a spec fixes: the in-process checkers' budget is every checker's default
/// budget, 30 000 ms (safety.md N7, N9 "under the same budget", N37), and a turn's step limit
/// is 32 model calls (interfaces.md §5.1), where a turn with the default settings stops.
#[test]
fn timeout_defaults() {
    assert_eq!(
        keel_runtime::policy_gate::IN_PROCESS_BUDGET,
        std::time::Duration::from_secs(30)
    );
    assert_eq!(keel_runtime::agent::DEFAULT_STEP_LIMIT, 32);
    let mut w = world(&[], false);
    let looping: Vec<ModelReply> = (1..=40)
        .map(|k| reply(&"x".repeat(k), &[("list_dir", json!({}))]))
        .collect();
    let mut model = ScriptedModel::from_replies("s", looping);
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "loop")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(end.hit_step_limit);
    assert_eq!(model.requests.len(), 32);
    assert_well_formed(&model);
}

/// What a tool returns is cut at the default output cap, 64 KiB (the `ToolContext` a session
/// gets), and the cut is said. (No spec fixes the cap; running.md documents it.)
#[test]
fn a_tools_output_is_cut_at_64_kib_by_default() {
    let mut w = world(&[], false);
    std::fs::write(w.cwd.join("big.txt"), "a".repeat(70_000)).unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("a", &[("read_file", json!({"path": "big.txt"}))]),
            reply("done", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read big.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let outputs = tool_outputs(&w.store, "r");
    assert_eq!(outputs.len(), 1);
    assert_eq!(
        outputs[0],
        format!("{}\n[output cut after 65536 bytes]", "a".repeat(64 * 1024))
    );
    assert_well_formed(&model);
}

#[test]
fn the_same_failing_calls_again_are_not_run_and_end_the_turn() {
    let mut w = world(&[], false);
    let missing = || reply("", &[("read_file", json!({"path": "missing.txt"}))]);
    let mut model =
        ScriptedModel::from_replies("s", vec![missing(), missing(), reply("never asked", &[])]);
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read missing.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(end.steps, 2);
    assert_eq!(model.remaining(), 1, "no third model call");
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert!(!record.head.turn_open);
    let last = record.items.last().map(|i| i.body.clone());
    assert!(
        matches!(&last, Some(ItemBody::ToolResult { is_error: true, .. })),
        "{last:?}"
    );
    // Only the first of the two identical calls ran.
    let ledger = w.store.ledger("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ledger.len(), 1);
    assert!(w.events.iter().any(
        |e| matches!(e, Event::Notice(n) if n.contains("repeated calls that had just failed"))
    ));
    assert_well_formed(&model);
}

/// Before each step the model is told the session's folder and the calls of the step before
/// that failed, so a provider that can rule them out (the local model's grammar) does, rather
/// than be asked for the same call again.
#[test]
fn the_model_is_told_which_calls_just_failed() {
    let mut w = world(&[], false);
    std::fs::write(w.cwd.join("there.txt"), "here").unwrap_or_else(|e| panic!("{e}"));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("", &[("read_file", json!({"path": "missing.txt"}))]),
            reply("", &[("read_file", json!({"path": "there.txt"}))]),
            reply("It says here.", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "read missing.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let failed: Vec<Vec<(String, serde_json::Value)>> = model
        .sessions
        .iter()
        .map(|v| {
            v.failed_calls
                .iter()
                .map(|c| (c.name.clone(), c.arguments.clone()))
                .collect()
        })
        .collect();
    assert_eq!(
        failed,
        vec![
            vec![],
            vec![("read_file".to_string(), json!({"path": "missing.txt"}))],
            vec![],
        ]
    );
    assert!(
        model
            .sessions
            .iter()
            .all(|v| v.workspace.as_deref() == Some(w.cwd.as_path()))
    );
}

fn script(lines: &[&str]) -> ScriptedModel {
    ScriptedModel::parse("script:t", &lines.join("\n")).unwrap_or_else(|e| panic!("{e}"))
}

fn tool_message<'a>(request: &'a keel_core::compose::ModelRequest, id: &str) -> Vec<&'a str> {
    request
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(id))
        .filter_map(|m| m.content.as_deref())
        .collect()
}

#[test]
fn a_rejected_tool_result_becomes_its_tool_output_status_and_nothing_runs_again() {
    let mut w = world(&[], false);
    let mut model = script(&[
        r#"{"tool_calls":[{"id":"c1","name":"write_file","arguments":{"path":"out.txt","content":"hi"}}]}"#,
        r#"{"error":"tool_result_rejected","call_id":"c1","message":"HTTP 400: Invalid 'messages[2].content'"}"#,
        r#"{"text":"written"}"#,
    ]);
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "write out.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((end.final_text.as_str(), end.steps), ("written", 2));
    assert_eq!(
        model.requests.len(),
        3,
        "the rejected request was made again once"
    );
    let original = tool_message(&model.requests[1].0, "c1");
    assert_eq!(original.len(), 1);
    assert!(
        !original[0].starts_with("[TOOL_OUTPUT_STATUS]"),
        "{}",
        original[0]
    );
    // In the retried request, and only there on, the call's one tool message is the diagnostic.
    let expected = format!(
        "[TOOL_OUTPUT_STATUS] {}",
        json!({"status": "rejected", "tool": "write_file", "call_id": "c1", "local_result": original[0]})
    );
    assert_eq!(
        tool_message(&model.requests[2].0, "c1"),
        vec![expected.as_str()]
    );
    assert_well_formed(&model);
    // Nothing was dispatched again.
    let ledger = w.store.ledger("r").unwrap_or_default();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].state, DispatchState::Completed);
    // Stored as a silent diagnostic, and the person was told.
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    let diagnostics = record
        .items
        .iter()
        .filter(|i| {
            matches!(
                &i.body,
                ItemBody::Diagnostic(keel_core::item::Diagnostic::ToolCallStatus { call_id, .. })
                    if call_id == "c1"
            )
        })
        .count();
    assert_eq!(diagnostics, 1);
    assert!(
        w.events
            .iter()
            .any(|e| matches!(e, Event::Notice(n) if n.contains("rejected the result of call c1"))),
        "{:?}",
        w.events
    );
    // A later turn's requests still carry the diagnostic and are accepted.
    let mut next = script(&[r#"{"text":"again"}"#]);
    with_agent(&mut w, &mut next, None, LoopSettings::default(), |a| {
        a.user_turn("r", "and now?")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        tool_message(&next.requests[0].0, "c1"),
        vec![expected.as_str()]
    );
}

#[test]
fn a_diagnostic_rejected_again_fails_the_call_and_runs_nothing() {
    let mut w = world(&[], false);
    let mut model = script(&[
        r#"{"tool_calls":[{"id":"c1","name":"write_file","arguments":{"path":"out.txt","content":"hi"}}]}"#,
        r#"{"error":"tool_result_rejected","call_id":"c1","message":"no"}"#,
        r#"{"error":"tool_result_rejected","call_id":"c1","message":"still no"}"#,
    ]);
    let err = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "write out.txt")
    })
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("second rejection of call c1"), "{err}");
    assert_eq!(model.requests.len(), 3);
    assert_eq!(w.store.ledger("r").unwrap_or_default().len(), 1);
}

#[test]
fn a_rejection_naming_an_unknown_call_is_a_clear_failure() {
    let mut w = world(&[], false);
    let mut model =
        script(&[r#"{"error":"tool_result_rejected","call_id":"nope","message":"bad id"}"#]);
    let err = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "hello")
    })
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("no tool result for call nope"), "{err}");
}

#[test]
fn a_notification_turn_left_open_keeps_no_authority_when_continued() {
    let mut w = world(&[], false);
    w.store
        .enqueue_notification(
            "r",
            new_notification(
                "t1",
                NotificationKind::TaskResult,
                "{\"status\":\"completed\"}",
                Timestamp(1),
            ),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    // The notification's turn opens, then its model call fails: the turn stays open.
    let mut failing = script(&[r#"{"error":"failed","message":"HTTP 503"}"#]);
    let failed = with_agent(&mut w, &mut failing, None, LoopSettings::default(), |a| {
        a.deliver_notifications("r")
    });
    assert!(failed.is_err());
    assert!(w.store.run_head("r").map(|h| h.turn_open).unwrap_or(false));
    // Continued (as `keel runs resume` does), it is still the notification's turn.
    let mut model = script(&[
        r#"{"tool_calls":[{"id":"c1","name":"write_file","arguments":{"path":"x.txt","content":"1"}}]}"#,
    ]);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.continue_turn("r")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!w.cwd.join("x.txt").exists());
    assert!(
        w.store.ledger("r").unwrap_or_default().is_empty(),
        "nothing dispatched"
    );
    assert_eq!(tool_outputs(&w.store, "r"), [NOT_AUTHORIZED_RESULT]);
    assert!(!w.store.run_head("r").map(|h| h.turn_open).unwrap_or(true));
}

/// A request a model API would refuse fails the turn, naming what is wrong, and is not
/// answered: here the script's model gives its call an empty id, which keel sends back.
#[test]
fn a_malformed_request_fails_the_turn_and_names_the_violation() {
    let mut w = world(&[], false);
    let mut model = script(&[
        r#"{"tool_calls":[{"id":"","name":"list_dir"}]}"#,
        r#"{"text":"never answered"}"#,
    ]);
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "list the files")
    });
    let err = end.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains(
            "malformed model request (1 violation of interfaces.md §4): \
             messages[2].tool_calls[0].id: a tool call needs a non-empty string id"
        ),
        "{err}"
    );
    assert_eq!(model.requests.len(), 2);
    assert_eq!(
        model.remaining(),
        1,
        "the malformed request was not answered"
    );
}

/// The run's version: one more for each write (transaction) made to it.
fn version(w: &World) -> u64 {
    w.store
        .load_run("r")
        .map(|r| r.head.version)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_reply_is_written_with_its_first_calls_intent_in_one_write() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply(
                "a",
                &[("write_file", json!({"path": "out.txt", "content": "hi"}))],
            ),
            reply("done", &[]),
        ],
    );
    let before = version(&w);
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "write out.txt")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // Opening the turn; the reply with the call's intent (and dispatch); the result with the
    // call completed; the closing reply: four writes, where the reply alone was a fifth.
    assert_eq!(version(&w) - before, 4);
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<&str> = record
        .items
        .iter()
        .map(|i| match &i.body {
            ItemBody::User { .. } => "user",
            ItemBody::Assistant { tool_calls, .. } if tool_calls.is_empty() => "reply",
            ItemBody::Assistant { .. } => "calls",
            ItemBody::ToolResult { .. } => "result",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["user", "calls", "result", "reply"]);
    let ledger = w.store.ledger("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].state, DispatchState::Completed);
    assert_eq!(
        std::fs::read_to_string(w.cwd.join("out.txt")).unwrap_or_default(),
        "hi"
    );
}

#[test]
fn a_reply_whose_calls_never_started_is_still_stored_and_its_calls_answered_on_recovery() {
    // The turn is cancelled while the model answers: the reply comes back, none of its
    // calls is recorded or run, and the reply is written on its own (as it was before it
    // waited for its first call's write).
    let mut w = world(&[], false);
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![reply(
            "writing it",
            &[("write_file", json!({"path": "x.txt", "content": "1"}))],
        )],
    );
    let settings = LoopSettings {
        cancel: Some(cancel.clone()),
        ..LoopSettings::default()
    };
    let mut n = 0;
    let mut next_id = || {
        n += 1;
        keel_core::item::ItemId::try_from(format!("k{n}")).unwrap_or_else(|_| unreachable!())
    };
    let flag = cancel;
    let mut sink = move |e: Event| {
        if matches!(e, Event::Text(_)) {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    };
    let mut agent = keel_runtime::agent::Agent {
        store: &mut w.store,
        model: &mut model,
        gate: &w.gate,
        tools: &w.tools,
        tool_context: keel_runtime::tools::ToolContext::new(w.cwd.clone()),
        approver: None,
        settings,
        clock: || Timestamp(1),
        next_id: &mut next_id,
        events: &mut sink,
        cache: keel_runtime::agent::TurnCache::default(),
    };
    let end = agent.user_turn("r", "write x.txt");
    assert!(
        matches!(end, Err(keel_runtime::agent::LoopError::Cancelled)),
        "{:?}",
        end.map(|e| e.final_text)
    );
    assert!(!w.cwd.join("x.txt").exists());
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(record.items.last().map(|i| &i.body), Some(ItemBody::Assistant { tool_calls, .. }) if tool_calls.len() == 1),
        "the reply is stored"
    );
    assert!(
        w.store
            .ledger("r")
            .unwrap_or_else(|e| panic!("{e}"))
            .is_empty()
    );
    // Resumed: the call is answered as not run, and still not run.
    resumed_as_not_started(&mut w);
}

/// Resumes run `r` and checks that its call was answered as never started and that `x.txt`,
/// the file it would have written, still does not exist.
fn resumed_as_not_started(w: &mut World) {
    let mut model = ScriptedModel::from_replies("s", vec![reply("ok", &[])]);
    with_agent(w, &mut model, None, LoopSettings::default(), |a| {
        a.recover("r")?;
        a.continue_turn("r")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!w.cwd.join("x.txt").exists());
    let tool_msg = model.requests[0]
        .0
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.content.clone());
    assert_eq!(tool_msg.as_deref(), Some(keel_runtime::agent::NOT_STARTED));
}
