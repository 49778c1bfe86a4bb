//! Runs remember where they work (issue 19): a run resumed, chatted on or handed off from
//! another directory acts in the directory it was started in, says so, and is refused when
//! that directory is gone.

use std::path::Path;

use serde_json::{Value, json};

use crate::common;
use common::{Env, call};

/// `keel args` run from `dir` instead of the sandbox's work directory.
fn keel_in(env: &Env, dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut cmd = env.cmd(args);
    cmd.current_dir(dir);
    let out = assert_cmd::Command::from_std(cmd)
        .write_stdin(stdin.as_bytes().to_vec())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A run started in `dir` whose first call writes `first.txt` there and whose model then
/// stops answering, so the turn is left open for `keel runs resume`.
fn interrupted_run_in(env: &Env, dir: &Path) -> String {
    let model = env.script(
        "first.jsonl",
        &[call(
            "write_file",
            json!({"path": "first.txt", "content": "one"}),
        )],
    );
    let (code, _, err) = keel_in(env, dir, &["run", "write two files", "--model", &model], "");
    assert_ne!(code, 0, "the script runs out: {err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("first.txt")).unwrap_or_default(),
        "one",
        "{err}"
    );
    env.only_run()
}

fn second_call(env: &Env) -> String {
    env.script(
        "second.jsonl",
        &[
            call(
                "write_file",
                json!({"path": "second.txt", "content": "two"}),
            ),
            json!({"text": "Wrote both."}),
        ],
    )
}

#[test]
fn a_resume_from_another_directory_works_where_the_run_was_started() {
    let env = Env::new();
    let a = env.work().join("a");
    let b = env.work().join("b");
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    let run = interrupted_run_in(&env, &a);
    let model = second_call(&env);
    let (code, out, err) = keel_in(
        &env,
        &b,
        &[
            "runs",
            "resume",
            &run,
            "--model",
            &model,
            "--approval",
            "deny",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Wrote both."), "{out}");
    assert_eq!(
        std::fs::read_to_string(a.join("second.txt")).unwrap_or_default(),
        "two",
        "{err}"
    );
    assert!(!b.join("second.txt").exists(), "written where keel was run");
    assert!(
        err.contains(&format!(
            "keel: this run works in {} (you are in {}); continuing there",
            a.display(),
            b.display()
        )),
        "{err}"
    );
    assert_eq!(err.matches("this run works in").count(), 1, "{err}");
    assert_eq!(env.show(&run)["run"]["cwd"], a.display().to_string());
    let (_, shown, _) = env.keel(&["runs", "show", &run], "");
    assert!(
        shown.contains(&format!("\n  cwd      {}\n", a.display())),
        "{shown}"
    );
    // From the run's own directory nothing is said.
    let done = env.script("done.jsonl", &[json!({"text": "nothing to do"})]);
    let (code, _, err) = keel_in(
        &env,
        &a,
        &["chat", "--run", &run, "--model", &done],
        "/quit\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("works in"), "{err}");
}

#[test]
fn a_chat_on_a_run_from_another_directory_works_there_too() {
    let env = Env::new();
    let a = env.work().join("a");
    std::fs::create_dir_all(&a).unwrap_or_else(|e| panic!("{e}"));
    let run = interrupted_run_in(&env, &a);
    let model = second_call(&env);
    let (code, _, err) = keel_in(
        &env,
        &env.work(),
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &model,
            "--approval",
            "deny",
        ],
        "go on\n/quit\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("keel: this run works in"), "{err}");
    assert!(a.join("second.txt").is_file(), "{err}");
    assert!(!env.work().join("second.txt").exists(), "{err}");
}

#[test]
fn a_resume_whose_directory_is_gone_is_refused_and_writes_nothing() {
    let env = Env::new();
    let a = env.work().join("gone");
    std::fs::create_dir_all(&a).unwrap_or_else(|e| panic!("{e}"));
    let run = interrupted_run_in(&env, &a);
    std::fs::remove_dir_all(&a).unwrap_or_else(|e| panic!("{e}"));
    let before: Value = env.show(&run);
    let model = second_call(&env);
    let log = env.dir.path().join("requests.jsonl");
    for args in [
        vec!["runs", "resume", &run, "--model", &model],
        vec!["chat", "--run", &run, "--model", &model],
    ] {
        let (code, _, err) = env.keel_env(&args, &[("KEEL_SCRIPT_LOG", &log)], "/quit\n");
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!(
                "run {run} works in {}, which no longer exists",
                a.display()
            )) && err.contains("Nothing was written"),
            "{err}"
        );
    }
    assert_eq!(env.show(&run), before, "the run is unchanged");
    assert!(common::requests(&log).is_empty(), "the model was asked");
    assert!(!env.work().join("second.txt").exists());
    assert!(!a.exists());
}

#[test]
fn a_handoff_target_works_where_its_source_does_and_not_where_it_is_gone() {
    let env = Env::new();
    env.user_config(&format!(
        "[presets.review]\nsystem_prompt = \"You review code.\"\n\n[handoff]\nworker_model = \
         \"script:{}\"\n",
        env.dir.path().join("worker.jsonl").display()
    ));
    let summary = "Goal: review.\nCurrent state: started.\nKey decisions & conventions: none.\nKey \
                   files: first.txt\nNext step: go on.";
    let a = env.work().join("a");
    let b = env.work().join("b");
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    let source = interrupted_run_in(&env, &a);
    let runs = |env: &Env| {
        let (_, out, _) = env.keel(&["runs", "list", "--json"], "");
        serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len))
            .unwrap_or(0)
    };
    for round in 0..2 {
        env.script("worker.jsonl", &[json!({ "text": summary })]);
        let (code, _, err) = keel_in(&env, &b, &["handoff", &source, "--to", "review"], "");
        assert_eq!(code, 0, "{err}");
        if round == 1 {
            std::fs::remove_dir_all(&a).unwrap_or_else(|e| panic!("{e}"));
            let before = runs(&env);
            let (code, _, err) = keel_in(&env, &b, &["handoff", &source, "--go"], "");
            assert_eq!(code, 2, "{err}");
            assert!(err.contains("which no longer exists"), "{err}");
            assert_eq!(runs(&env), before, "nothing was created");
            return;
        }
        let (code, out, err) = keel_in(&env, &b, &["handoff", &source, "--go"], "");
        assert_eq!(code, 0, "{err}");
        let target = out.trim().to_string();
        assert_eq!(env.show(&target)["run"]["cwd"], a.display().to_string());
        assert!(
            err.contains(&format!(
                "run {source} works in {} (you are in {}); the new run works there too",
                a.display(),
                b.display()
            )),
            "{err}"
        );
    }
}
