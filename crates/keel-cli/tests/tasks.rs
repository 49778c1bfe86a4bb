//! Background tasks end to end: `spawn_task` in `keel run` starts a child run on its own
//! scripted model; its end comes back as a `task_result` notification, its ask_user as a
//! `permission` notification, and `keel run` waits for it before exiting.

use crate::common;

use common::{Env, call};
use serde_json::{Value, json};

/// The user's own config: tasks on `child`'s script, and spawning allowed without asking
/// (by default keel asks before delegating).
fn config(env: &Env, child: &str) {
    env.user_config(&format!(
        "[tasks]\nmodel = {child:?}\npermission_timeout_secs = 30\n\n[[rule]]\n\
         toolName = \"spawn_task\"\ndecision = \"allow\"\npriority = 100\n"
    ));
}

fn notifications(shown: &Value) -> Vec<Value> {
    shown["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["kind"] == "notification")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// The `[NOTIFICATION]` envelope of a delivered item, parsed.
fn envelope(item: &Value) -> Value {
    let line = item["envelope"].as_str().unwrap_or_default();
    let json = line.split_once("[NOTIFICATION] ").map_or("", |(_, j)| j);
    serde_json::from_str(json).unwrap_or_default()
}

fn kind(item: &Value) -> String {
    envelope(item)["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn payload(item: &Value) -> Value {
    serde_json::from_str(envelope(item)["payload"].as_str().unwrap_or_default()).unwrap_or_default()
}

fn runs(env: &Env) -> Vec<Value> {
    let (_, out, _) = env.keel(&["runs", "list", "--json"], "");
    serde_json::from_str::<Value>(&out)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

/// `keel run "delegate"` on `parent`'s replies, with tasks on `child`'s.
fn delegate(env: &Env, child: &[Value], parent: &[Value]) -> (i32, String, String) {
    let child = env.script("child.jsonl", child);
    config(env, &child);
    let parent = env.script("parent.jsonl", parent);
    env.keel(
        &["run", "delegate", "--model", &parent, "--approval", "deny"],
        "",
    )
}

/// The run a person started (tasks' runs name their parent as their origin).
fn parent_run(env: &Env) -> String {
    runs(env)
        .iter()
        .find(|r| r["origin"].is_null())
        .and_then(|r| r["id"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_task_runs_in_the_background_and_its_result_comes_back_as_a_notification() {
    let env = Env::new();
    let (code, out, err) = delegate(
        &env,
        &[
            call(
                "write_file",
                json!({"path": "child.txt", "content": "from the task"}),
            ),
            json!({"text": "child done"}),
        ],
        &[
            call("spawn_task", json!({"task": "write child.txt"})),
            json!({"text": "started it"}),
            json!({"text": "the task finished"}),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the task finished"), "{out}\n{err}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("child.txt")).unwrap_or_default(),
        "from the task"
    );
    let all = runs(&env);
    assert_eq!(all.len(), 2, "{all:?}");
    let parent_id = parent_run(&env);
    let child_run = all
        .iter()
        .find(|r| r["origin"] == format!("task of {parent_id}"))
        .unwrap_or_else(|| panic!("no child run in {all:?}"));
    let child_id = child_run["id"].as_str().unwrap_or_default();
    let shown = env.show(&parent_id);
    let delivered = notifications(&shown);
    assert_eq!(delivered.len(), 1, "{shown}");
    assert_eq!(kind(&delivered[0]), "task_result", "{shown}");
    assert_eq!(
        payload(&delivered[0]),
        json!({"run_id": child_id, "status": "completed", "result": "child done"})
    );
    // The child's own run holds its work; the parent's holds only the spawn and the result.
    let child_shown = env.show(child_id);
    assert!(
        child_shown["items"]
            .as_array()
            .is_some_and(|items| items.iter().any(|i| i["kind"] == "tool_result")),
        "{child_shown}"
    );
}

#[test]
fn a_tasks_ask_user_comes_back_as_a_permission_notification_and_keel_run_denies_it() {
    let env = Env::new();
    let (code, _, err) = delegate(
        &env,
        &[
            call("shell", json!({"command": "touch made-by-task"})),
            json!({"text": "I was not allowed"}),
        ],
        &[
            call("spawn_task", json!({"task": "touch a file"})),
            json!({"text": "started it"}),
            json!({"text": "a task asks"}),
            json!({"text": "the task ended"}),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!env.work().join("made-by-task").exists());
    assert!(
        err.contains("permission request") && err.contains("was denied"),
        "{err}"
    );
    // The person saw the request itself, not only the model's account of it.
    assert!(
        err.contains("a background task asks for your permission")
            && err.contains("touch made-by-task"),
        "{err}"
    );
    let parent_id = parent_run(&env);
    let shown = env.show(&parent_id);
    let delivered = notifications(&shown);
    let kinds: Vec<String> = delivered.iter().map(kind).collect();
    assert_eq!(kinds, ["permission", "task_result"], "{shown}");
    let request = payload(&delivered[0]);
    let keys: Vec<&str> = request
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    // Exactly these keys: keel has no automatic approval, so no automatic_delivery_failed.
    assert_eq!(keys, ["request_id", "run_id", "tool", "args", "reason"]);
    assert_eq!(request["tool"], "shell");
    assert_eq!(request["args"], json!({"command": "touch made-by-task"}));
    assert!(request["reason"].as_str().is_some_and(|r| !r.is_empty()));
    let end = payload(&delivered[1]);
    assert_eq!(end["status"], "completed");
    assert_eq!(end["result"], "I was not allowed");
}

#[test]
fn by_default_spawning_a_task_is_asked_and_without_a_person_denied() {
    let env = Env::new();
    let parent = env.script(
        "parent.jsonl",
        &[
            call("spawn_task", json!({"task": "anything"})),
            json!({"text": "not started"}),
        ],
    );
    let (code, _, err) = env.keel(
        &["run", "delegate", "--model", &parent, "--approval", "deny"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(runs(&env).len(), 1, "no task run was created");
}

#[test]
fn keel_chat_delivers_a_task_result_while_it_waits_for_the_person() {
    use std::io::Write;
    let env = Env::new();
    let child = env.script(
        "child.jsonl",
        &[json!({"text": "child done", "delay_ms": 300})],
    );
    config(&env, &child);
    let parent = env.script(
        "parent.jsonl",
        &[
            call("spawn_task", json!({"task": "think"})),
            json!({"text": "started it"}),
            json!({"text": "the task is back"}),
        ],
    );
    let mut chat = env.cmd(&["chat", "--model", &parent, "--approval", "deny"]);
    let mut child_process = chat
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut stdin = child_process
        .stdin
        .take()
        .unwrap_or_else(|| panic!("stdin"));
    stdin
        .write_all(b"delegate\n")
        .unwrap_or_else(|e| panic!("{e}"));
    stdin.flush().unwrap_or_else(|e| panic!("{e}"));
    // No further line is typed: the result must arrive while chat waits.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let delivered = loop {
        let run = parent_run(&env);
        if !run.is_empty() {
            let shown = env.show(&run);
            let items = shown["items"].as_array().cloned().unwrap_or_default();
            let answered = items
                .iter()
                .any(|i| i["kind"] == "assistant" && i["text"] == "the task is back");
            if answered {
                break items;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the task's result was not delivered while chat waited"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let result = delivered
        .iter()
        .find(|i| i["kind"] == "notification")
        .unwrap_or_else(|| panic!("no notification in {delivered:?}"));
    assert_eq!(kind(result), "task_result");
    assert_eq!(payload(result)["result"], "child done");
    stdin
        .write_all(b"/quit\n")
        .unwrap_or_else(|e| panic!("{e}"));
    drop(stdin);
    let out = child_process
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_task_left_by_a_killed_process_is_reported_failed_on_resume() {
    let env = Env::new();
    let child = env.script(
        "child.jsonl",
        &[json!({"text": "too late", "delay_ms": 60000})],
    );
    config(&env, &child);
    let parent = env.script(
        "parent.jsonl",
        &[
            call("spawn_task", json!({"task": "take your time"})),
            json!({"text": "started it"}),
        ],
    );
    let mut keel = env
        .cmd(&["run", "delegate", "--model", &parent, "--approval", "deny"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    // Killed once the task runs and the parent has answered after starting it: a kill
    // between the two leaves `spawn_task`'s outcome unknown, which is another test's case
    // (and asks the resumed model for one more reply than `after` has).
    while runs(&env).len() < 2
        || !env
            .show(&parent_run(&env))
            .to_string()
            .contains("started it")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the task never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    keel.kill().unwrap_or_else(|e| panic!("{e}"));
    let _ = keel.wait();
    let parent_id = parent_run(&env);
    let after = env.script("after.jsonl", &[json!({"text": "the task failed"})]);
    let (code, out, err) = env.keel(
        &[
            "runs",
            "resume",
            &parent_id,
            "--model",
            &after,
            "--approval",
            "deny",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("left unfinished by a stopped process"),
        "{err}"
    );
    assert!(out.contains("the task failed"), "{out}");
    let shown = env.show(&parent_id);
    let delivered = notifications(&shown);
    assert_eq!(delivered.len(), 1, "{shown}");
    let end = payload(&delivered[0]);
    assert_eq!(end["status"], "failed", "never reported as done: {end}");
    // Resuming again reports nothing twice.
    let (code, _, err) = env.keel(
        &[
            "runs",
            "resume",
            &parent_id,
            "--model",
            &after,
            "--approval",
            "deny",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("left unfinished"), "{err}");
}
