//! A background task's permission request, answered only from a real user turn of its parent:
//! the task's approver waits on its own thread and store connection, the parent's response to
//! the notification cannot answer it (authority), and `respond_permission` in the user's turn
//! can.

use std::time::{Duration, Instant};

use keel_core::item::ToolCall;
use keel_core::time::Timestamp;
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::LoopSettings;
use keel_runtime::approval::{Answer, Approver};
use keel_runtime::tasks::{PermissionApprover, RespondPermission, TaskHub};
use keel_store::{QueueStore, SqliteStore, StoreOptions};
use serde_json::json;

use crate::common;
use common::*;

#[test]
fn a_permission_request_is_answered_only_in_a_real_user_turn() {
    let mut w = world(&[], true);
    let hub = TaskHub::default();
    w.tools.add(Box::new(RespondPermission::new(hub.clone())));
    let db = w.sandbox.db();
    // The task, on its own thread, asks; its request goes to run "r".
    let task = {
        let hub = hub.clone();
        std::thread::spawn(move || {
            let mut store =
                SqliteStore::open(&db, &StoreOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            let mut approver = PermissionApprover {
                store: &mut store,
                hub,
                parent: "r".into(),
                child: "child-1".into(),
                timeout: Duration::from_secs(20),
                next_request_id: Box::new(|| "perm-1".to_string()),
                now: || Timestamp(2),
            };
            approver.ask(
                &ToolCall {
                    id: "t1".into(),
                    name: "shell".into(),
                    arguments: json!({"command": "touch x"}),
                },
                &["policy: shell commands ask".to_string()],
            )
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !w
        .store
        .pending_notifications("r")
        .unwrap_or_default()
        .iter()
        .any(|n| n.id == "perm-1")
    {
        assert!(Instant::now() < deadline, "the request never arrived");
        std::thread::sleep(Duration::from_millis(10));
    }
    let answer = json!({"request_id": "perm-1", "decision": "allow"});
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            // The response to the notification itself tries to allow: refused.
            reply("x", &[("respond_permission", answer.clone())]),
            // The user's own turn.
            reply("yy", &[("respond_permission", answer)]),
            reply("allowed", &[]),
        ],
    );
    let delivered = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.deliver_notifications("r")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(delivered, 1);
    assert_eq!(hub.waiting_requests("r"), vec!["perm-1".to_string()]);
    let mut person = ScriptedApprover::answering([Answer::AllowOnce]);
    with_agent(
        &mut w,
        &mut model,
        Some(&mut person),
        LoopSettings::default(),
        |a| a.user_turn("r", "yes, let the task do that"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(task.join().ok(), Some(Answer::AllowOnce));
    assert!(hub.waiting_requests("r").is_empty());
    let outputs = tool_outputs(&w.store, "r");
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert_eq!(outputs[0], keel_core::notify::NOT_AUTHORIZED_RESULT);
    assert_eq!(
        outputs[1],
        "permission request perm-1 answered: allowed, for that one call"
    );
}

#[test]
fn an_unanswered_request_is_a_deny_after_its_timeout() {
    let w = world(&[], true);
    let mut store = w.sandbox.store();
    let hub = TaskHub::default();
    let mut approver = PermissionApprover {
        store: &mut store,
        hub: hub.clone(),
        parent: "r".into(),
        child: "child-1".into(),
        timeout: Duration::from_millis(50),
        next_request_id: Box::new(|| "perm-2".to_string()),
        now: || Timestamp(2),
    };
    let call = ToolCall {
        id: "t1".into(),
        name: "shell".into(),
        arguments: json!({}),
    };
    assert_eq!(approver.ask(&call, &["r".into()]), Answer::Deny);
    assert!(hub.waiting_requests("r").is_empty());
}
