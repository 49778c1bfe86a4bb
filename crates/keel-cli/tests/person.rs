//! Snapshots of what a person reads (issue 20): `keel policy show`, `keel config`, `keel runs
//! list`, and the lines `keel run` prints for calls (a tool the preset does not offer, one
//! that does not exist, a tool's error, a user rule's deny). Paths, run ids and times are
//! redacted, so the snapshots hold only what keel chose to say.

use serde_json::json;

use crate::common;
use common::{Env, call};

/// `text` with the sandbox's path, run ids and RFC 3339 times replaced, and the padding after
/// a line's first word (a list's id column, as wide as its longest id, whose process id part
/// varies) made two spaces.
fn redacted(env: &Env, text: &str) -> String {
    let text = env.redact(text);
    let ids = regex::Regex::new(r"run-\d+-\d+-[0-9a-f]+").unwrap_or_else(|e| panic!("{e}"));
    let text = ids.replace_all(&text, "[RUN]");
    let column = regex::Regex::new(r"(?m)^(\S+) {2,}").unwrap_or_else(|e| panic!("{e}"));
    let text = column.replace_all(&text, "$1  ");
    let times = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
        .unwrap_or_else(|e| panic!("{e}"));
    times.replace_all(&text, "[TIME]").into_owned()
}

/// A workspace policy with a deny rule and an allow the workspace tier caps.
fn workspace_policy(env: &Env) {
    env.write(
        "work/keel.toml",
        "[[rule]]\ntoolName = \"list_dir\"\ndecision = \"deny\"\ndenyMessage = \"Listing is \
         not for this project.\"\n\n[[rule]]\ntoolName = \"shell\"\ndecision = \"allow\"\n\
         priority = 5\n",
    );
}

#[test]
fn policy_show_in_force() {
    let env = Env::new();
    workspace_policy(&env);
    env.user_config("[[rule]]\ntoolName = \"deploy\"\ndecision = \"ask_user\"\n");
    let (code, out, err) = env.keel(&["policy", "show"], "");
    assert_eq!(code, 0, "{err}");
    // The built-in policy's text comes first, verbatim (docs/safety.md explains it); what a
    // person looks for is what is in force here.
    let in_force = out
        .find("In force, highest priority first:")
        .map(|at| &out[at..])
        .unwrap_or_else(|| panic!("{out}"));
    insta::assert_snapshot!("policy_show_in_force", redacted(&env, in_force));
}

#[test]
fn config_shows_what_is_in_effect() {
    let env = Env::new();
    workspace_policy(&env);
    env.user_config(
        "mode = \"plan\"\n\n[model]\nname = \"openai:gpt-4o-mini\"\n\n[presets.review]\n\
         system_prompt = \"Review only.\"\n",
    );
    let (code, out, err) = env.keel(&["config"], "");
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("config", redacted(&env, &out));
}

#[test]
fn runs_list_with_a_task_and_an_open_run() {
    let env = Env::new();
    let model = env.script("one.jsonl", &[json!({"text": "done"})]);
    let (code, _, err) = env.keel(&["run", "write the release notes", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let parent = env.only_run();
    // A background task's run, as spawn_task records it.
    let mut store = keel_store::SqliteStore::open(&env.db(), &keel_store::StoreOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    keel_store::RunStore::create_run(
        &mut store,
        keel_store::NewRun {
            origin: Some(format!("task of {parent}")),
            cwd: Some(env.work()),
            now: keel_core::Timestamp(keel_store::lease::now().millis() + 1_000),
            items: vec![keel_testkit::new_item(
                "i0",
                keel_core::Timestamp(0),
                keel_core::ItemBody::User {
                    text: "collect the merged pull requests of this month and group them".into(),
                },
            )],
            ..keel_testkit::new_run("task-run")
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    drop(store);
    let failing = env.script(
        "fail.jsonl",
        &[json!({"error": "failed", "message": "HTTP 503"})],
    );
    let (code, _, _) = env.keel(&["run", "summarise the diff", "--model", &failing], "");
    assert_ne!(code, 0);
    let (code, out, err) = env.keel(&["runs", "list"], "");
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("runs_list_task_and_open", redacted(&env, &out));
}

#[test]
fn call_lines() {
    let env = Env::new();
    workspace_policy(&env);
    env.user_config("[presets.reader]\ntools = [\"list_dir\", \"read_file\"]\n");
    let model = env.script(
        "s.jsonl",
        &[
            call("write_file", json!({"path": "notes.md", "content": "x"})),
            call("no_such_tool", json!({})),
            call("read_file", json!({"path": "missing.txt"})),
            call("list_dir", json!({})),
            json!({"text": "I could only read."}),
        ],
    );
    let (code, out, err) = env.keel(
        &[
            "run",
            "look around",
            "--model",
            &model,
            "--preset",
            "reader",
            "--approval",
            "deny",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("I could only read."), "{out}");
    insta::assert_snapshot!("call_lines", redacted(&env, &err));
}
