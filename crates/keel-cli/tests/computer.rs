//! Computer use through the `keel` binary: what `[computer_use]` offers, `keel computer stop`
//! and `resume`, and the pause a stop leaves, on real processes and a real database. (The real
//! display is driven end to end in keel-desktop's tests.)

use crate::common;

use common::{Env, call, requests};
use serde_json::{Value, json};

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn computer_use_is_offered_only_when_configured_with_its_manual_summary() {
    let env = Env::new();
    let log = env.dir.path().join("requests.jsonl");
    let model = env.script("plain.jsonl", &[json!({"text": "hi"})]);
    let (code, _, err) = env.keel_env(
        &["run", "hello", "--model", &model],
        &[("KEEL_SCRIPT_LOG", &log)],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let names = tool_names(&requests(&log)[0]);
    assert!(!names.iter().any(|n| n == "computer_use"), "{names:?}");

    env.user_config("[computer_use]\nenabled = true\n");
    let log2 = env.dir.path().join("requests2.jsonl");
    let model = env.script("plain2.jsonl", &[json!({"text": "hi"})]);
    let (code, _, err) = env.keel_env(
        &["run", "hello", "--model", &model],
        &[("KEEL_SCRIPT_LOG", &log2)],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let request = &requests(&log2)[0];
    let names = tool_names(request);
    for tool in ["computer_use", "clarify", "tool_manual"] {
        assert!(names.iter().any(|n| n == tool), "{tool} not in {names:?}");
    }
    let system = request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(system.contains("tool_manual"), "{system}");
    assert!(
        !system.contains("# Computer Use"),
        "the head carries the summary, never the manual"
    );
}

#[test]
fn without_a_model_open_says_what_to_configure() {
    let env = Env::new();
    env.user_config("[computer_use]\nenabled = true\n");
    let model = env.script(
        "open.jsonl",
        &[
            call(
                "computer_use",
                json!({"op":"open","appRef":"app_made_up","mode":"observe","prepare":false}),
            ),
            json!({"text": "done"}),
        ],
    );
    let (code, _, err) = env.keel(&["run", "look", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    let shown = env.show(&run).to_string();
    // An appRef this run was never given is expired, whatever the model claims.
    assert!(shown.contains("COMPUTER_APP_REF_EXPIRED"), "{shown}");
}

#[test]
fn stop_pauses_desktop_control_until_resume() {
    let env = Env::new();
    env.user_config("[computer_use]\nenabled = true\nmodel = \"openai:x\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    );
    let (code, _, err) = env.keel(&["computer", "stop", "run-nope"], "");
    assert_ne!(code, 0);
    assert!(err.contains("run-nope"), "{err}");

    let model = env.script("first.jsonl", &[json!({"text": "hi"})]);
    let (code, _, err) = env.keel(&["run", "hello", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    let (code, _, err) = env.keel(&["computer", "stop", &run], "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("keel computer resume"), "{err}");

    let model = env.script(
        "paused.jsonl",
        &[
            call(
                "computer_use",
                json!({"op":"open","appRef":"app_any","mode":"control","prepare":false}),
            ),
            json!({"text": "done"}),
        ],
    );
    let (code, _, err) = env.keel(&["run", "try it", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let all = env.keel(&["runs", "list"], "").1;
    let newest = all
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .find(|id| id.starts_with("run-") && *id != run)
        .unwrap_or_else(|| panic!("no second run in {all}"))
        .to_string();
    let shown = env.show(&newest).to_string();
    assert!(shown.contains("COMPUTER_CONTROL_PAUSED"), "{shown}");

    let (code, _, err) = env.keel(&["computer", "resume"], "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resumed"), "{err}");
    let (_, _, err) = env.keel(&["computer", "resume"], "");
    assert!(err.contains("nothing to resume"), "{err}");
}

#[test]
fn resume_releases_a_lease_a_dead_process_left_and_records_it() {
    use keel_store::{DesktopStore, LeaseChange, LeaseEvent, SqliteStore, StoreOptions};
    let env = Env::new();
    env.user_config("[computer_use]\nenabled = true\n");
    let model = env.script("first.jsonl", &[json!({"text": "hi"})]);
    let (code, _, err) = env.keel(&["run", "hello", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    let db = env.dir.path().join("home/keel.db");
    let mut store =
        SqliteStore::open(&db, &StoreOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // What a process killed mid-session leaves behind.
    store
        .record_lease(
            &run,
            &LeaseEvent {
                change: LeaseChange::Held,
                window: "Settings".into(),
                detail: String::new(),
                at: keel_core::Timestamp(1),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = env.keel(&["runs", "resume", &run], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("desktop lease") && err.contains("Settings"),
        "{err}"
    );
    let changes: Vec<LeaseChange> = store
        .lease_events(&run)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|e| e.change)
        .collect();
    assert_eq!(
        changes,
        vec![LeaseChange::Held, LeaseChange::ReleasedOnResume]
    );
    // Released once: a second resume has nothing to say about it.
    let (_, _, err) = env.keel(&["runs", "resume", &run], "");
    assert!(!err.contains("desktop lease"), "{err}");
}

/// Without an X display, discover fails saying there is no display and how to get one, and its
/// next action does not send the model back to discover in a loop (issue 20).
#[test]
fn without_a_display_discover_says_so_and_does_not_invite_a_loop() {
    let env = Env::new();
    env.user_config("[computer_use]\nenabled = true\n");
    let model = env.script(
        "discover.jsonl",
        &[
            call("computer_use", json!({"op": "discover", "query": ""})),
            json!({"text": "done"}),
        ],
    );
    let mut cmd = env.cmd(&["run", "look", "--model", &model, "--approval", "deny"]);
    cmd.env_remove("DISPLAY");
    let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let shown = env.show(&env.only_run()).to_string();
    assert!(shown.contains("COMPUTER_WINDOW_NOT_FOUND"), "{shown}");
    assert!(shown.contains("no X display"), "{shown}");
    assert!(shown.contains("Xvfb"), "{shown}");
    assert!(shown.contains("do not call computer_use again"), "{shown}");
    assert!(!shown.contains("Call discover again"), "{shown}");
}
