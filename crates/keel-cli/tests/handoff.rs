//! `keel handoff` end to end, as separate processes with the scripted provider: the preview, the
//! draft file, `--go`, the new run's first composed request, the source run left unchanged, and
//! each failure named.

use serde_json::{Value, json};

use crate::common;
use common::Env;

/// A worker's summary with the five sections the instruction asks for (bridge.md N15): an
/// answer without them is a rejected draft.
const WORKER_SUMMARY: &str = "Goal: review the CLI.\nCurrent state: src/main.rs exists.\nKey \
                              decisions & conventions: the API keeps its port.\nKey files: \
                              src/main.rs\nNext step: review it.\nPort: 9090";

/// A five-section summary whose goal is `goal`.
fn summary(goal: &str) -> String {
    format!(
        "Goal: {goal}\nCurrent state: started.\nKey decisions & conventions: none.\nKey files: \
         none.\nNext step: go on."
    )
}

fn config(env: &Env, extra: &str) {
    env.user_config(&format!(
        "[presets.review]\nsystem_prompt = \"You review code.\"\ntools = [\"read_file\", \
         \"list_dir\"]\n\n[handoff]\nworker_model = \"script:{}\"\n{extra}",
        env.dir.path().join("worker.jsonl").display()
    ));
}

fn worker(env: &Env, replies: &[Value]) {
    env.script("worker.jsonl", replies);
}

/// A finished source run: one user turn, a write, a reply. Returns its id and model spec.
fn source_run(env: &Env, task: &str) -> (String, String) {
    let model = env.script(
        "run.jsonl",
        &[
            json!({"tool_calls": [{"name": "write_file", "arguments": {"path": "src/main.rs", "content": "fn main() {}"}}]}),
            json!({"text": "Created src/main.rs; the API listens on port 9090."}),
        ],
    );
    let (code, _, err) = env.keel(&["run", task, "--model", &model, "--mode", "autoEdit"], "");
    assert_eq!(code, 0, "{err}");
    (env.only_run(), model)
}

fn keel_logged(env: &Env, args: &[&str], log: &std::path::Path) -> (i32, String, String) {
    env.keel_env(args, &[("KEEL_SCRIPT_LOG", log)], "")
}

fn run_count(env: &Env) -> usize {
    let (_, out, _) = env.keel(&["runs", "list", "--json"], "");
    serde_json::from_str::<Value>(&out)
        .ok()
        .and_then(|v| v.as_array().map(Vec::len))
        .unwrap_or(0)
}

#[test]
fn preview_draft_go_and_the_new_runs_first_request() {
    let env = Env::new();
    config(&env, "");
    worker(&env, &[json!({ "text": WORKER_SUMMARY })]);
    let (source, source_model) = source_run(
        &env,
        "Build a CLI on port 9090. Do not use any tools after the handoff.",
    );
    let before = env.show(&source);

    // The preview: what the worker sees, prominently, and the draft's path on stdout.
    let worker_log = env.dir.path().join("worker-requests.jsonl");
    let (code, out, err) = keel_logged(&env, &["handoff", &source, "--to", "review"], &worker_log);
    assert_eq!(code, 0, "{err}");
    let draft_path = std::path::PathBuf::from(out.trim());
    assert_eq!(
        draft_path,
        env.dir.path().join(format!("home/handoff/{source}.md"))
    );
    for shown in [
        "Handoff preview",
        "1 of 1 user messages used",
        "dropped      nothing",
        "compaction   none in this run",
        "language     en (the conversation's, from the user's messages; --lang overrides)",
        "timeout 180 s",
        "--go",
    ] {
        assert!(err.contains(shown), "{shown:?} missing from:\n{err}");
    }
    // The worker got the instruction + source, and no tools.
    let requests = common::requests(&worker_log);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["tools"], json!([]));
    // A blank system message, then the prompt.
    assert_eq!(
        requests[0]["messages"][0],
        json!({"role": "system", "content": ""})
    );
    let prompt = requests[0]["messages"][1]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(prompt.starts_with("You are a handoff engineer"), "{prompt}");
    assert!(prompt.contains("1. Build a CLI on port 9090."), "{prompt}");
    assert!(prompt.contains("[工具] write_file"), "{prompt}");
    // The draft: the worker's summary, then the prohibition it left out.
    let draft = std::fs::read_to_string(&draft_path).unwrap_or_default();
    assert_eq!(
        draft,
        format!(
            "{WORKER_SUMMARY}\n\n## Active user constraints\n- Do not use any tools after the \
             handoff"
        )
    );

    // The user edits the draft; the target's note is the edited file, byte for byte.
    let edited = format!("{draft}\nEdited: keep the port.  \n\n");
    std::fs::write(&draft_path, &edited).unwrap_or_else(|e| panic!("{e}"));
    // The target keeps the source's model: rewrite its script for the target's turn.
    env.script(
        "run.jsonl",
        &[json!({"text": "Understood: review the CLI."})],
    );
    let target_log = env.dir.path().join("target-requests.jsonl");
    let (code, out, err) = keel_logged(
        &env,
        &[
            "handoff",
            &source,
            "--go",
            "--continue",
            "--approval",
            "deny",
        ],
        &target_log,
    );
    assert_eq!(code, 0, "{err}");
    let target = out.lines().next().unwrap_or_default().to_string();
    assert!(out.contains("Understood: review the CLI."), "{out}");
    assert!(err.contains(&format!("Run {source} is unchanged")), "{err}");

    let shown = env.show(&target);
    assert_eq!(shown["run"]["preset"], "review");
    assert_eq!(shown["run"]["model"], source_model.as_str());
    assert!(
        shown["run"]["origin"]
            .as_str()
            .is_some_and(|o| o.contains(&source)),
        "{shown}"
    );
    assert_eq!(shown["notes"].as_array().map(Vec::len), Some(1));
    assert_eq!(shown["notes"][0]["tag"], "handoff-summary");
    assert_eq!(shown["notes"][0]["text"], edited.as_str());
    assert_eq!(shown["items"][0]["kind"], "user");
    let kickoff = keel_core::bridge::build_bridge_kickoff(keel_core::bridge::HandoffLang::En, true);
    assert_eq!(shown["items"][0]["text"], kickoff.as_str());
    assert_eq!(shown["items"][1]["kind"], "assistant");

    // The new run's first composed request: the summary once, as the note; the kickoff as
    // the user turn; only the preset's tools.
    let requests = common::requests(&target_log);
    assert_eq!(requests.len(), 1);
    let first = &requests[0];
    let mut tools: Vec<&str> = first["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    tools.sort_unstable();
    assert_eq!(tools, ["list_dir", "read_file"]);
    let all = first["messages"].to_string();
    assert_eq!(all.matches("Goal: review the CLI.").count(), 1, "{all}");
    let system = first["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(
        system.ends_with(&edited),
        "the note closes the system prompt"
    );
    assert!(system.contains("You review code."));
    insta::assert_json_snapshot!("handoff_first_request", first["messages"]);

    // The source run is exactly as it was, and the preview was used up.
    assert_eq!(env.show(&source), before);
    let (code, _, err) = env.keel(&["handoff", &source, "--go"], "");
    assert_eq!(code, 1);
    assert!(err.contains("no handoff preview"), "{err}");

    // Handing the new run off again keeps what its handoff summary carried: the summary is
    // the source's compaction section, and the user's prohibition survives a worker that
    // drops it.
    worker(&env, &[json!({ "text": summary("review done.") })]);
    let again_log = env.dir.path().join("again.jsonl");
    let (code, out, err) = keel_logged(&env, &["handoff", &target, "--to", "default"], &again_log);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("compaction   reused whole"), "{err}");
    let prompt = common::requests(&again_log)[0]["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        prompt.contains("【早前上下文压缩摘要】\nGoal: review the CLI."),
        "{prompt}"
    );
    let draft = std::fs::read_to_string(out.trim()).unwrap_or_default();
    assert_eq!(
        draft,
        format!(
            "{}\n\n## Active user constraints\n- Do not use any tools after the handoff",
            summary("review done.")
        )
    );
}

#[test]
fn without_continue_the_new_run_waits_for_the_user() {
    let env = Env::new();
    config(&env, "");
    worker(
        &env,
        &[
            json!({ "text": "目标：审查命令行工具。\n当前状态：已开始。\n关键决策与约定：无。\n关键文件：无。\n下一步：等待确认。" }),
        ],
    );
    let (source, _) = source_run(&env, "Build a CLI.");
    let (code, _, err) = env.keel(&["handoff", &source, "--to", "review", "--lang", "zh"], "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("language     zh (as asked)"), "{err}");
    let (code, out, err) = env.keel(&["handoff", &source, "--go"], "");
    assert_eq!(code, 0, "{err}");
    let target = out.trim().to_string();
    assert!(err.contains(&format!("keel runs resume {target}")), "{err}");
    let shown = env.show(&target);
    let kickoff =
        keel_core::bridge::build_bridge_kickoff(keel_core::bridge::HandoffLang::Zh, false);
    assert_eq!(shown["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(shown["items"][0]["text"], kickoff.as_str());
    // `keel runs resume` answers the kickoff with the source's model.
    env.script(
        "run.jsonl",
        &[json!({"text": "我的理解是：审查命令行工具。等待确认。"})],
    );
    let (code, out, err) = env.keel(&["runs", "resume", &target, "--approval", "deny"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("等待确认"), "{out}");
    assert_eq!(env.show(&target)["items"].as_array().map(Vec::len), Some(2));
}

#[test]
fn each_failure_is_named_and_creates_nothing() {
    let env = Env::new();
    config(&env, "worker_timeout_secs = 1\n");
    let (source, _) = source_run(&env, "Build a CLI.");
    let draft = env.dir.path().join(format!("home/handoff/{source}.md"));
    let runs = run_count(&env);
    let cases = [
        (json!({"text": "  \n"}), "worker-empty"),
        (
            json!({"error": "failed", "message": "HTTP 503 from the worker"}),
            "worker-failed",
        ),
        (json!({"text": "late", "delay_ms": 3000}), "worker-timeout"),
    ];
    for (reply, name) in cases {
        worker(&env, &[reply]);
        let (code, out, err) = env.keel(&["handoff", &source, "--to", "review"], "");
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            err.contains(&format!("keel: error: {name}")),
            "{name}: {err}"
        );
        assert!(out.is_empty(), "{out}");
        assert!(!draft.exists(), "{name} left a draft");
    }
    assert!(run_count(&env) == runs);

    // A run with nothing to summarise (`keel chat` no longer leaves one: it is made here).
    let empty = "run-with-nothing".to_string();
    keel_store::RunStore::create_run(
        &mut keel_store::SqliteStore::open(&env.db(), &keel_store::StoreOptions::default())
            .unwrap_or_else(|e| panic!("{e}")),
        keel_testkit::new_run(&empty),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = env.keel(&["handoff", &empty, "--to", "review"], "");
    assert_eq!(code, 1);
    assert!(err.contains("empty-source"), "{err}");

    let (code, _, err) = env.keel(
        &["handoff", &source, "--to", "review", "--source-budget", "0"],
        "",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("empty-source") && err.contains("--source-budget 0 left no room"),
        "{err}"
    );
    let (code, _, err) = env.keel(&["handoff", &source, "--go", "--lang", "zh"], "");
    assert_eq!(code, 2, "--lang belongs to the preview: {err}");

    let (code, _, err) = env.keel(&["handoff", &source, "--to", "nope"], "");
    assert_eq!(code, 1);
    assert!(err.contains("no preset named \"nope\""), "{err}");
    let (code, _, err) = env.keel(&["handoff", &source, "--go"], "");
    assert_eq!(code, 1);
    assert!(err.contains("no handoff preview"), "{err}");
    let (code, _, err) = env.keel(&["handoff", &source, "--go", "--to", "review"], "");
    assert_eq!(code, 2, "clap refuses --go with --to: {err}");
    let (code, _, err) = env.keel(&["handoff", &source, "--to", "review", "--model", "x"], "");
    assert_eq!(code, 2, "a flag keel handoff does not take is bad input");
    assert!(err.contains("--worker-model"), "{err}");

    // A confirmed draft that is empty or not UTF-8 creates no run.
    worker(&env, &[json!({ "text": summary("x") })]);
    let (code, _, err) = env.keel(&["handoff", &source, "--to", "review"], "");
    assert_eq!(code, 0, "{err}");
    let runs = run_count(&env);
    for (bytes, says) in [
        (&b" \n\t"[..], "is empty; nothing was created"),
        (&b"Goal: \xff"[..], "not valid UTF-8; nothing was created"),
    ] {
        let path = env.dir.path().join("edited.md");
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let path = path.display().to_string();
        let (code, _, err) = env.keel(&["handoff", &source, "--go", "--draft", &path], "");
        assert_eq!(code, 1);
        assert!(err.contains(says), "{err}");
    }
    assert_eq!(run_count(&env), runs);
}

/// The second line of the preview's prominent drop warning.
const RAISE: &str =
    "  !! Raise --source-budget to keep more, or check the draft for what is missing.\n";

#[test]
fn a_preview_under_a_tight_budget_shows_every_dropped_section() {
    let env = Env::new();
    config(&env, "");
    worker(&env, &[json!({ "text": WORKER_SUMMARY })]);
    let (source, _) = source_run(&env, "Build a CLI.");

    // Users (30 chars) fit; the recent section (81) gets the other 80 of 112 − 2 (N9): room for
    // the drop note and the newest reply only, exactly the budget (N10, N28).
    let log = env.dir.path().join("tight.jsonl");
    let (code, out, err) = keel_logged(
        &env,
        &[
            "handoff",
            &source,
            "--to",
            "review",
            "--source-budget",
            "112",
        ],
        &log,
    );
    assert_eq!(code, 0, "{err}");
    for shown in [
        "  source       112 chars (budget 112)\n",
        "  users        1 of 1 user messages used\n",
        "  compaction   none in this run\n",
        &format!(
            "\n\n  !! DROPPED: recent — the worker does NOT see these sections whole.\n{RAISE}"
        ),
    ] {
        assert!(err.contains(shown), "{shown:?} missing from:\n{err}");
    }
    assert!(!err.contains("dropped      nothing"), "{err}");
    let prompt = common::requests(&log)[0]["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        prompt.ends_with(
            "【用户消息全文（按时间序）】\n1. Build a CLI.\n\n【最近助手输出摘要】\n\
             （更早的 1 条助手输出因预算省略）\nCreated src/main.rs; the API listens on port 9090."
        ),
        "{prompt}"
    );
    assert!(!prompt.contains("[工具] write_file"), "{prompt}");
    // The draft is still written: a drop is shown, not refused.
    assert_eq!(
        std::fs::read_to_string(out.trim()).unwrap_or_default(),
        WORKER_SUMMARY
    );

    // A run made by a handoff carries its summary as the compaction section. At 100 chars it
    // is clipped (24 of 98: "Goal" and the marker) and the kickoff does not fit at all.
    let (code, out, err) = env.keel(&["handoff", &source, "--go"], "");
    assert_eq!(code, 0, "{err}");
    let target = out.trim().to_string();
    worker(&env, &[json!({ "text": summary("review the CLI again.") })]);
    let log = env.dir.path().join("clipped.jsonl");
    let (code, _, err) = keel_logged(
        &env,
        &[
            "handoff",
            &target,
            "--to",
            "default",
            "--source-budget",
            "100",
        ],
        &log,
    );
    assert_eq!(code, 0, "{err}");
    for shown in [
        "  source       24 chars (budget 100)\n",
        "  users        0 of 1 user messages used\n",
        "  compaction   CLIPPED or dropped (see below)\n",
        &format!(
            "\n\n  !! DROPPED: compaction, users — the worker does NOT see these sections \
             whole.\n{RAISE}"
        ),
    ] {
        assert!(err.contains(shown), "{shown:?} missing from:\n{err}");
    }
    let prompt = common::requests(&log)[0]["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        prompt.ends_with("\n\n【早前上下文压缩摘要】\nGoal\n…（底稿截断）"),
        "{prompt}"
    );
    // The clipped summary's other sections are not in the source. (The instruction names
    // them: it is English, the conversation's language, where the old rule read the 24 chars
    // of source, mostly its Chinese header, as zh.)
    assert!(prompt.starts_with("You are a handoff engineer"), "{prompt}");
    let source_text = prompt
        .split_once("\n\n【")
        .map(|(_, s)| s)
        .unwrap_or_default();
    assert!(!source_text.contains("Current state"), "{prompt}");
}

#[test]
fn empty_source_names_the_budget_it_used() {
    let env = Env::new();
    config(&env, "");
    // One user message longer than the default budget (60000) and no reply: nothing fits.
    let failing = env.script(
        "fail.jsonl",
        &[json!({"error": "failed", "message": "HTTP 500"})],
    );
    let task = "x".repeat(61_000);
    let (code, _, err) = env.keel(&["run", &task, "--model", &failing], "");
    assert_ne!(code, 0, "{err}");
    let run = env.only_run();
    let shown = env.show(&run);
    assert_eq!(shown["items"][0]["kind"], "user", "{shown}");
    assert!(
        shown["items"]
            .as_array()
            .is_some_and(|items| items.iter().all(|i| i["kind"] != "assistant")),
        "{shown}"
    );

    let (code, out, err) = env.keel(&["handoff", &run, "--to", "review"], "");
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!(
            "empty-source: the default source budget 60000 left no room for any section of run \
             {run} (dropped: users); raise it with --source-budget"
        )),
        "{err}"
    );
    assert!(!err.contains("budget 0"), "{err}");
    // A negative budget is taken as 0 (N5), and the error says both.
    let (code, _, err) = env.keel(
        &["handoff", &run, "--to", "review", "--source-budget", "-5"],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("empty-source: --source-budget -5 (taken as 0) left no room"),
        "{err}"
    );
    // A budget that holds the message previews it.
    worker(&env, &[json!({ "text": summary("x.") })]);
    let (code, _, err) = env.keel(
        &[
            "handoff",
            &run,
            "--to",
            "review",
            "--source-budget",
            "61100",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("(budget 61100)") && err.contains("dropped      nothing"),
        "{err}"
    );
}

/// The bug report's run: one English line. The source's section headers are keel's Chinese
/// (bridge.md N1), so N17 over the source says zh; the summary follows the user's words.
#[test]
fn a_one_line_english_run_is_previewed_in_english() {
    let env = Env::new();
    config(&env, "");
    worker(&env, &[json!({ "text": WORKER_SUMMARY })]);
    let (source, _) = source_run(&env, "Build a CLI.");
    let log = env.dir.path().join("worker.jsonl.log");
    let (code, out, err) = keel_logged(&env, &["handoff", &source, "--to", "default"], &log);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "  language     en (the conversation's, from the user's messages; --lang overrides)\n"
        ),
        "{err}"
    );
    let prompt = common::requests(&log)[0]["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let instruction =
        keel_core::bridge::build_bridge_instruction(keel_core::bridge::HandoffLang::En, None);
    let text = prompt
        .strip_prefix(&format!("{instruction}\n\n"))
        .unwrap_or_else(|| panic!("the worker was not asked in English: {prompt}"));
    assert!(
        text.starts_with("【用户消息全文（按时间序）】\n1. Build a CLI."),
        "{text}"
    );
    assert_eq!(
        keel_core::bridge::detect_lang(text),
        keel_core::bridge::HandoffLang::Zh,
        "the old rule read the source: {text}"
    );
    assert_eq!(
        std::fs::read_to_string(out.trim()).unwrap_or_default(),
        WORKER_SUMMARY
    );
}

/// What the embedded worker did: its instruction's first line back. That, or an answer
/// without the five sections, is reported as a failed draft and never offered as a summary;
/// the draft file is a form to fill in, and `--go` refuses it until it is filled.
#[test]
fn a_worker_answer_that_is_not_a_summary_is_refused() {
    let env = Env::new();
    config(&env, "");
    let (source, _) = source_run(&env, "Build a CLI. Do not use any tools.");
    let draft_path = env.dir.path().join(format!("home/handoff/{source}.md"));
    let instruction =
        keel_core::bridge::build_bridge_instruction(keel_core::bridge::HandoffLang::En, None);
    let first_line = instruction.lines().next().unwrap_or_default().to_string();
    let runs = run_count(&env);
    for (reply, why) in [
        (
            first_line.as_str(),
            "it repeats its instruction back (\"You are a handoff engineer",
        ),
        (
            "Goal: review the CLI.\nCurrent state: src/main.rs exists.\nPort: 9090",
            "it lacks 3 of the five sections the instruction asks for: Key decisions & \
             conventions, Key files, Next step",
        ),
    ] {
        worker(&env, &[json!({ "text": reply })]);
        let (code, out, err) = env.keel(&["handoff", &source, "--to", "review"], "");
        assert_eq!(code, 1, "{err}");
        assert!(out.is_empty(), "no draft is offered: {out}");
        let script = env.dir.path().join("worker.jsonl").display().to_string();
        assert!(
            err.contains(&format!(
                "keel: error: draft-rejected: the worker model (script:{script}) did not write a \
                 summary: {why}"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "It is not offered as a summary: the draft {} is a form with the five sections \
                 for you to fill in (then `keel handoff {source} --go`), or name a capable \
                 worker model with [handoff] worker_model or --worker-model and preview again",
                draft_path.display()
            )),
            "{err}"
        );
        // The form: the five headings, then what keel appends — never the worker's answer.
        let form = std::fs::read_to_string(&draft_path).unwrap_or_default();
        assert_eq!(
            form,
            "## Goal\n\n## Current state\n\n## Key decisions & conventions\n\n## Key files\n\n\
             ## Next step\n\n## Active user constraints\n- Do not use any tools"
        );
        // `--go` refuses the form as it was left, and creates nothing.
        let (code, _, err) = env.keel(&["handoff", &source, "--go"], "");
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("is still the empty form the preview left")
                && err.contains("nothing was created"),
            "{err}"
        );
        assert_eq!(run_count(&env), runs);
    }
    // Filled in by the person, it is the new run's summary, byte for byte.
    let filled = std::fs::read_to_string(&draft_path)
        .unwrap_or_default()
        .replacen("## Goal\n", "## Goal\nReview the CLI.\n", 1);
    std::fs::write(&draft_path, &filled).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = env.keel(&["handoff", &source, "--go"], "");
    assert_eq!(code, 0, "{err}");
    let shown = env.show(out.trim());
    assert_eq!(shown["notes"][0]["text"], filled.as_str());
    assert_eq!(run_count(&env), runs + 1);
}

/// `keel handoff --help` lists only flags `keel handoff` takes: `--model` and `--preset` of
/// `keel run` are refused (the new run keeps the source run's model; `--to` names its preset),
/// so they are not offered, and giving one says what to use instead.
#[test]
fn handoff_help_lists_only_the_flags_it_takes() {
    let env = Env::new();
    let (code, help, err) = env.keel(&["handoff", "--help"], "");
    assert_eq!(code, 0, "{err}");
    for flag in [
        "--to",
        "--worker-model",
        "--go",
        "--continue",
        "--cwd",
        "--mode",
    ] {
        assert!(help.contains(flag), "{flag} missing:\n{help}");
    }
    for flag in ["--model ", "--preset "] {
        assert!(!help.contains(flag), "{flag} listed:\n{help}");
    }
    let (code, _, err) = env.keel(&["handoff", "r", "--to", "p", "--model", "script:x"], "");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--to PRESET") && err.contains("--worker-model"),
        "{err}"
    );
}
