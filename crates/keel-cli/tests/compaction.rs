//! Compaction through the `keel` binary: `[compaction]` in the user config, the rounds and the
//! folded items shown by `keel runs show`.

use serde_json::json;

use crate::common;
use common::Env;

/// A summary with the five sections the instruction asks for: a worker answer without them is
/// a rejected draft, and nothing is folded.
fn summary(goal: &str) -> String {
    format!(
        "Goal: {goal}\nCurrent state: started.\nKey decisions & conventions: none.\nKey files: \
         none.\nNext step: go on."
    )
}

#[test]
fn runs_show_lists_every_round_and_marks_the_folded_items() {
    let env = Env::new();
    // A one-token window: every turn after the first compacts what came before it.
    env.user_config(
        "[compaction]\ncontext_window = 1\nkeep_recent_chars = 0\nkeep_user_chars = 0\n",
    );
    let model = env.script("s.jsonl", &[json!({"text": "A1"})]);
    let (code, _, err) = env.keel(&["run", "first", "--model", &model], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    // `keel chat --run` continues with the run's recorded model: the same script file.
    env.script(
        "s.jsonl",
        &[
            json!({"text": summary("S1")}),
            json!({"text": "A2"}),
            json!({"text": summary("S2")}),
            json!({"text": "A3"}),
        ],
    );
    let (code, _, err) = env.keel(
        &["chat", "--run", &run, "--approval", "deny"],
        "second\nthird\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("compaction round 2 (threshold): 3 items folded"),
        "{err}"
    );

    let (code, text, _) = env.keel(&["runs", "show", &run], "");
    assert_eq!(code, 0);
    assert!(text.contains("Compactions (2)"), "{text}");
    assert!(
        text.contains("round 1 (threshold)") && text.contains("folded 1 items before #2"),
        "{text}"
    );
    assert!(text.contains("folded 3 items before #4"), "{text}");
    assert_eq!(
        text.matches("(folded into the summary)").count(),
        3,
        "{text}"
    );
    let shown = env.show(&run);
    let rounds = shown["compactions"].as_array().cloned().unwrap_or_default();
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[1]["first_unfolded_seq"], 4);
    assert_eq!(rounds[1]["trigger"], "threshold");
    assert_eq!(rounds[1]["folded_count"], 3);
    // The newest folded user message stays verbatim even with keep_user_chars = 0.
    assert_eq!(rounds[1]["kept_user_seqs"], json!([2]));
    let note = shown["notes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["tag"] == "compaction-summary"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        note["text"],
        format!(
            "{}\n{}",
            keel_core::compaction::SUMMARY_HEADER,
            summary("S2")
        )
    );
    // Every item is still stored.
    assert_eq!(shown["items"].as_array().map(Vec::len), Some(6));

    // A handoff of the compacted run reads the summary as its compaction section (N38).
    let log = env.dir.path().join("worker.log");
    env.script("w.jsonl", &[json!({"text": summary("ship.")})]);
    let worker = format!("script:{}", env.dir.path().join("w.jsonl").display());
    let (code, _, err) = env.keel_env(
        &[
            "handoff",
            &run,
            "--to",
            "default",
            "--worker-model",
            &worker,
        ],
        &[("KEEL_SCRIPT_LOG", &log)],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("compaction   reused whole"), "{err}");
    assert_eq!(
        keel_model::testing::request_log(&log).len(),
        1,
        "one worker call"
    );
    let request = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        request.contains("【早前上下文压缩摘要】\\nGoal: S2\\n"),
        "{request}"
    );
    assert!(
        !request.contains("earlier turns were compacted"),
        "{request}"
    );
}
