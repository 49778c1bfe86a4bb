//! `keel call` as a separate program sees it: stdin, stdout, stderr and the exit code
//! (interfaces.md §1).

use assert_cmd::Command;
use serde_json::{Value, json};

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn call(function: &str, stdin: impl Into<Vec<u8>>) -> Outcome {
    let out = Command::cargo_bin("keel")
        .unwrap_or_else(|e| panic!("keel binary: {e}"))
        .args(["call", function])
        .env_remove("KEEL_HOME")
        .write_stdin(stdin.into())
        .output()
        .unwrap_or_else(|e| panic!("run keel: {e}"));
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Bad input: exit 2, nothing on stdout, one JSON line on stderr naming `field`.
fn assert_bad_input(out: &Outcome, field: &str) {
    assert_eq!(out.code, 2, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.ends_with('\n') && out.stderr.matches('\n').count() == 1,
        "{:?}",
        out.stderr
    );
    let err: Value =
        serde_json::from_str(&out.stderr).unwrap_or_else(|e| panic!("{e}: {}", out.stderr));
    assert_eq!(err["field"], json!(field), "{}", out.stderr);
    assert!(err["error"].as_str().is_some_and(|s| !s.is_empty()));
}

#[test]
fn system_notes_applies_ops_in_order() {
    let input = json!({
        "notes": [{"text": "A", "lifetime": "run", "tag": "x"}],
        "ops": [
            {"op": "add", "text": "B", "lifetime": "turn"},
            {"op": "add", "text": "C", "lifetime": "run", "tag": "x"},
            {"op": "blocks"},
            {"op": "read", "tag": "x"},
            {"op": "read", "tag": "nope"},
            {"op": "consume"},
            {"op": "blocks"}
        ]
    });
    let out = call("system-notes", input.to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "{\"notes\":[{\"text\":\"C\",\"lifetime\":\"run\",\"tag\":\"x\"}],\"results\":[null,null,[\"B\",\"C\"],\"C\",null,null,[\"C\"]]}\n"
    );
}

#[test]
fn empty_notes_print_as_an_empty_array() {
    let out = call(
        "system-notes",
        r#"{"ops":[{"op":"add","text":"W","lifetime":"turn","tag":"wake"},{"op":"consume"}]}"#,
    );
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "{\"notes\":[],\"results\":[null,null]}\n");
    let out = call("system-notes", r#"{"ops":[]}"#);
    assert_eq!(out.stdout, "{\"notes\":[],\"results\":[]}\n");
}

#[test]
fn absent_null_and_unknown_keys() {
    let input = r#"{"notes":null,"extra":{"deep":1},"ops":[{"op":"add","text":"  padded  ","lifetime":"run","tag":null,"colour":"red"},{"op":"clear","tag":"ignored"},{"op":"add","text":"\ufeff","lifetime":"run","tag":"t"}]}"#;
    let out = call("system-notes", input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "{\"notes\":[],\"results\":[null,null,null]}\n");
    let out = call(
        "system-notes",
        r#"{"notes":[{"text":"  padded  ","lifetime":"run","x":1}],"ops":[{"op":"blocks"}]}"#,
    );
    assert_eq!(
        out.stdout,
        "{\"notes\":[{\"text\":\"  padded  \",\"lifetime\":\"run\"}],\"results\":[[\"  padded  \"]]}\n"
    );
}

#[test]
fn each_kind_of_bad_input_names_its_field() {
    let cases: &[(&[u8], &str)] = &[
        (b"{\"ops\": [", ""),                                                  // malformed JSON
        (b"{\"ops\":[{\"op\":\"add\",\"text\":\"\xff\",\"lifetime\":\"run\"}]}", ""), // invalid UTF-8
        (b"[]", ""),                                                          // not an object
        (b"\"ops\"", ""),
        (b"", ""),
        (b"{}", "ops"),                                                       // missing required key
        (b"{\"ops\":null}", "ops"),
        (b"{\"ops\":{}}", "ops"),                                             // wrong type
        (b"{\"ops\":[7]}", "ops.0"),
        (b"{\"ops\":[{}]}", "ops.0.op"),
        (b"{\"ops\":[{\"op\":\"shout\"}]}", "ops.0.op"),                       // wrong value
        (b"{\"ops\":[{\"op\":\"blocks\"},{\"op\":\"add\",\"lifetime\":\"run\"}]}", "ops.1.text"),
        (b"{\"ops\":[{\"op\":\"blocks\"},{\"op\":\"add\",\"text\":1,\"lifetime\":\"run\"}]}", "ops.1.text"),
        (b"{\"ops\":[{\"op\":\"blocks\"},{\"op\":\"blocks\"},{\"op\":\"add\",\"text\":\"a\",\"lifetime\":\"week\"}]}", "ops.2.lifetime"),
        (b"{\"ops\":[{\"op\":\"add\",\"text\":\"a\",\"lifetime\":\"run\",\"tag\":\"\"}]}", "ops.0.tag"), // empty tag
        (b"{\"ops\":[{\"op\":\"add\",\"text\":\"a\",\"lifetime\":\"run\",\"tag\":5}]}", "ops.0.tag"),
        (b"{\"ops\":[{\"op\":\"read\"}]}", "ops.0.tag"),
        (b"{\"ops\":[{\"op\":\"remove\",\"tag\":\"\"}]}", "ops.0.tag"),
        (b"{\"notes\":\"A\",\"ops\":[]}", "notes"),                            // malformed notes
        (b"{\"notes\":[{\"text\":\"A\"}],\"ops\":[]}", "notes.0.lifetime"),
        (b"{\"notes\":[{\"text\":\"A\",\"lifetime\":\"run\"},{\"lifetime\":\"run\"}],\"ops\":[]}", "notes.1.text"),
        (b"{\"notes\":[{\"text\":\"A\",\"lifetime\":\"run\",\"tag\":\"\"}],\"ops\":[]}", "notes.0.tag"),
        (b"{\"notes\":[\"A\"],\"ops\":[]}", "notes.0"),
    ];
    for (input, field) in cases {
        let out = call("system-notes", input.to_vec());
        assert_bad_input(&out, field);
    }
}

#[test]
fn note_limit_is_exit_1_with_nothing_on_stdout() {
    let ops: Vec<Value> = (0..17)
        .map(|i| json!({"op": "add", "text": format!("n{i}"), "lifetime": "run"}))
        .collect();
    let out = call("system-notes", json!({"ops": ops}).to_string());
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let err: Value = serde_json::from_str(&out.stderr).unwrap_or(Value::Null);
    assert!(
        err["error"]
            .as_str()
            .is_some_and(|e| e.contains("NoteLimit") && e.contains("16")),
        "{}",
        out.stderr
    );
    assert!(err.get("field").is_none());
    // Sixteen fit.
    let ops: Vec<Value> = ops.into_iter().take(16).collect();
    assert_eq!(
        call("system-notes", json!({"ops": ops}).to_string()).code,
        0
    );
}

#[test]
fn unknown_function_is_exit_2_with_empty_field() {
    let out = call("no-such-function", "{}");
    assert_bad_input(&out, "");
    assert!(
        out.stderr.contains("system-notes"),
        "lists the known functions: {}",
        out.stderr
    );
}

#[test]
fn oversized_input_is_refused() {
    let big = vec![b' '; 64 * 1024 * 1024 + 1];
    assert_bad_input(&call("system-notes", big), "");
}

#[test]
fn notification_context_builds_the_envelope() {
    let out = call(
        "notification-context",
        r#"{"kind":"permission","payload":"x","language":{"fallbackLanguage":"zh-CN","outputLanguage":"en","userLanguageSamples":["你好"]},"extra":1}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "\"[NOTIFICATION] {\\\"kind\\\":\\\"permission\\\",\\\"output_language\\\":\\\"en\\\",\\\"fallback_language\\\":\\\"zh-CN\\\",\\\"payload\\\":\\\"x\\\"}\"\n"
    );
    let envelope: String = serde_json::from_str(&out.stdout).unwrap_or_default();
    assert_eq!(
        envelope,
        r#"[NOTIFICATION] {"kind":"permission","output_language":"en","fallback_language":"zh-CN","payload":"x"}"#
    );
    // language absent or null: fallback en, no samples.
    for input in [
        r#"{"kind":"search_result","payload":"p"}"#,
        r#"{"kind":"search_result","payload":"p","language":null}"#,
    ] {
        let out = call("notification-context", input);
        let envelope: String = serde_json::from_str(&out.stdout).unwrap_or_default();
        assert_eq!(
            envelope,
            r#"[NOTIFICATION] {"kind":"search_result","fallback_language":"en","payload":"p"}"#
        );
    }
}

#[test]
fn notification_context_bad_input() {
    let cases: &[(&str, &str)] = &[
        (r#"{"payload":"p"}"#, "kind"),
        (r#"{"kind":"alert","payload":"p"}"#, "kind"),
        (r#"{"kind":"permission"}"#, "payload"),
        (r#"{"kind":"permission","payload":{"a":1}}"#, "payload"),
        (
            r#"{"kind":"permission","payload":"p","language":"en"}"#,
            "language",
        ),
        (
            r#"{"kind":"permission","payload":"p","language":{}}"#,
            "language.fallbackLanguage",
        ),
        (
            r#"{"kind":"permission","payload":"p","language":{"fallbackLanguage":"fr"}}"#,
            "language.fallbackLanguage",
        ),
        (
            r#"{"kind":"permission","payload":"p","language":{"fallbackLanguage":"en","outputLanguage":"zh-cn"}}"#,
            "language.outputLanguage",
        ),
        (
            r#"{"kind":"permission","payload":"p","language":{"fallbackLanguage":"en","userLanguageSamples":["a",2]}}"#,
            "language.userLanguageSamples.1",
        ),
    ];
    for (input, field) in cases {
        assert_bad_input(&call("notification-context", *input), field);
    }
}

#[test]
fn conversation_language_reports_the_tracker() {
    let out = call(
        "conversation-language",
        r#"{"utterances":["ok","  ","Please respond in English","你好，帮我看看这个"],"fallbackLanguage":"zh-CN"}"#,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "{\"outputLanguage\":\"en\",\"resolved\":\"en\",\"explicit\":true,\"samples\":[\"ok\",\"Please respond in English\",\"你好，帮我看看这个\"]}\n"
    );
    let out = call(
        "conversation-language",
        r#"{"utterances":["git status"],"fallbackLanguage":"zh-CN"}"#,
    );
    assert_eq!(
        out.stdout,
        "{\"outputLanguage\":null,\"resolved\":\"zh-CN\",\"explicit\":false,\"samples\":[\"git status\"]}\n"
    );
    for (input, field) in [
        (r#"{"fallbackLanguage":"en"}"#, "utterances"),
        (
            r#"{"utterances":"hi","fallbackLanguage":"en"}"#,
            "utterances",
        ),
        (
            r#"{"utterances":[null],"fallbackLanguage":"en"}"#,
            "utterances.0",
        ),
        (r#"{"utterances":[]}"#, "fallbackLanguage"),
        (
            r#"{"utterances":[],"fallbackLanguage":"de"}"#,
            "fallbackLanguage",
        ),
    ] {
        assert_bad_input(&call("conversation-language", input), field);
    }
}

#[test]
fn bridge_helpers_read_integers_and_nested_options() {
    let out = call(
        "estimate-summary-tokens",
        r#"{"sourceChars":60001,"options":{"summaryCharBudget":400,"other":1}}"#,
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "{\"input\":30401,\"output\":150}\n"),
        "{}",
        out.stderr
    );
    let out = call(
        "estimate-summary-tokens",
        r#"{"sourceChars":0,"options":null}"#,
    );
    assert_eq!(out.stdout, "{\"input\":400,\"output\":900}\n");
    assert_eq!(call("summary-token-budget", "{}").stdout, "900\n");
    assert_eq!(
        call("summary-token-budget", r#"{"summaryCharBudget":-7}"#).stdout,
        "100\n"
    );
    assert_eq!(
        call("detect-lang", r#"{"text":"こんにちは"}"#).stdout,
        "\"zh\"\n"
    );
    assert_eq!(call("detect-lang", r#"{"text":""}"#).stdout, "\"en\"\n");
    let instruction: String = serde_json::from_str(
        &call(
            "build-bridge-instruction",
            r#"{"lang":"en","options":{"summaryCharBudget":400}}"#,
        )
        .stdout,
    )
    .unwrap_or_default();
    assert!(instruction.contains("≤150 tokens"), "{instruction}");
    let kickoff: String = serde_json::from_str(
        &call(
            "build-bridge-kickoff",
            r#"{"lang":"en","autoContinue":true}"#,
        )
        .stdout,
    )
    .unwrap_or_default();
    assert!(kickoff.contains("continue with the next step"), "{kickoff}");
    let kept = call(
        "preserve-active-user-constraints",
        r#"{"summary":"S","lang":"en","messages":[{"role":"user","content":"Don't use any tools.","kind":"x"},{"role":"user","content":"Can you use tools now?"}]}"#,
    );
    assert_eq!(
        kept.stdout, "\"S\\n\\n## Active user constraints\\n- Don't use any tools\"\n",
        "{}",
        kept.stderr
    );
    for (function, input, field) in [
        (
            "estimate-summary-tokens",
            r#"{"sourceChars":1.5}"#,
            "sourceChars",
        ),
        (
            "estimate-summary-tokens",
            r#"{"sourceChars":"3"}"#,
            "sourceChars",
        ),
        ("estimate-summary-tokens", r#"{}"#, "sourceChars"),
        (
            "estimate-summary-tokens",
            r#"{"sourceChars":1,"options":[]}"#,
            "options",
        ),
        (
            "estimate-summary-tokens",
            r#"{"sourceChars":1,"options":{"summaryCharBudget":2.5}}"#,
            "options.summaryCharBudget",
        ),
        (
            "summary-token-budget",
            r#"{"summaryCharBudget":1e3}"#,
            "summaryCharBudget",
        ),
        ("detect-lang", r#"{"text":5}"#, "text"),
        ("build-bridge-instruction", r#"{"lang":"fr"}"#, "lang"),
        (
            "build-bridge-instruction",
            r#"{"lang":"en","options":{"summaryCharBudget":"9"}}"#,
            "options.summaryCharBudget",
        ),
        (
            "build-bridge-kickoff",
            r#"{"lang":"zh","autoContinue":"yes"}"#,
            "autoContinue",
        ),
        (
            "preserve-active-user-constraints",
            r#"{"summary":"S","lang":"en","messages":[{"role":"user"}]}"#,
            "messages.0.content",
        ),
        (
            "preserve-active-user-constraints",
            r#"{"summary":"S","lang":"en"}"#,
            "messages",
        ),
    ] {
        assert_bad_input(&call(function, input), field);
    }
}

#[test]
fn visual_evidence_round_trips_through_collect_and_append() {
    let messages = r#"[
        {"role":"user","content":"What is in this screenshot?","imageCount":1,"unknown":true,
         "imageAttachments":[{"attachmentId":"a1","mediaType":"image/png","bytes":10,"width":2,"height":3,"name":null,"extra":1}],
         "toolNodes":[{"title":"T","detail":null,"more":0}]},
        {"role":"assistant","content":"A login form with two fields.","kind":null},
        {"role":"user","content":"","imageCount":2}
    ]"#;
    let collected = call(
        "collect-visual-evidence",
        format!(r#"{{"messages":{messages},"charBudget":null}}"#),
    );
    assert_eq!(collected.code, 0, "{}", collected.stderr);
    let evidence: serde_json::Value = serde_json::from_str(&collected.stdout).unwrap();
    assert_eq!(
        keys(&evidence),
        [
            "imageMessages",
            "images",
            "represented",
            "unresolved",
            "included",
            "omitted",
            "truncated"
        ]
    );
    assert_eq!(evidence["images"], 3);
    assert_eq!(evidence["unresolved"], 1);
    assert_eq!(evidence["included"][0]["userMessage"], 1);
    assert_eq!(
        evidence["included"][0]["attachments"][0],
        serde_json::json!({"attachmentId":"a1","mediaType":"image/png","bytes":10,"width":2,"height":3})
    );

    let appended = call(
        "append-visual-evidence",
        format!(r#"{{"summary":"  Summary text.  ","lang":"en","evidence":{evidence}}}"#),
    );
    let text: String = serde_json::from_str(&appended.stdout).unwrap_or_default();
    assert!(
        text.starts_with("Summary text.\n\n## Visual evidence — verbatim, not summarized\n"),
        "{text:?} {}",
        appended.stderr
    );
    assert!(text.ends_with(
        "- Source user message 2: 2 image(s) without associated assistant text. Do not infer their contents."
    ));

    let tight = call(
        "collect-visual-evidence",
        format!(r#"{{"messages":{messages},"charBudget":-1}}"#),
    );
    let tight: serde_json::Value = serde_json::from_str(&tight.stdout).unwrap();
    assert_eq!(tight["omitted"], 2);
    assert_eq!(tight["truncated"], true);

    for (function, input, field) in [
        ("collect-visual-evidence", r#"{}"#, "messages"),
        (
            "collect-visual-evidence",
            r#"{"messages":[{"role":"user","content":"x","imageCount":"1"}]}"#,
            "messages.0.imageCount",
        ),
        (
            "collect-visual-evidence",
            r#"{"messages":[{"role":"user","content":"x","imageAttachments":[{"attachmentId":"a"}]}]}"#,
            "messages.0.imageAttachments.0.mediaType",
        ),
        (
            "append-visual-evidence",
            r#"{"summary":"S","lang":"en"}"#,
            "evidence",
        ),
        (
            "append-visual-evidence",
            r#"{"summary":"S","lang":"en","evidence":{"imageMessages":1}}"#,
            "evidence.included",
        ),
        (
            "append-visual-evidence",
            r#"{"summary":"S","lang":"fr","evidence":{"imageMessages":0,"included":[]}}"#,
            "lang",
        ),
    ] {
        assert_bad_input(&call(function, input), field);
    }
}

#[test]
fn build_bridge_source_prints_the_seed_keys_and_names_what_it_dropped() {
    let input = r#"{"messages":[
        {"role":"user","content":"alpha","future":1},{"role":"user","content":"bravo"},
        {"role":"user","content":"charlie"},{"role":"user","content":"delta"},
        {"role":"user","content":"echo","imageCount":null}
    ],"options":{"sourceCharBudget":59,"visualEvidenceCharBudget":null}}"#;
    let out = call("build-bridge-source", input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let source: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        keys(&source),
        [
            "text",
            "userMessagesUsed",
            "userMessagesTotal",
            "reusedCompaction",
            "truncated",
            "dropped",
            "visualEvidence"
        ]
    );
    assert_eq!(
        source["text"],
        "【用户消息全文（按时间序）】\n（较早的 3 条用户消息因预算省略，保留的是最近的）\n4. delta\n5. echo"
    );
    assert_eq!(source["userMessagesUsed"], 2);
    assert_eq!(source["userMessagesTotal"], 5);
    assert_eq!(source["dropped"], serde_json::json!(["users"]));
    assert_eq!(source["visualEvidence"]["imageMessages"], 0);

    let absent = call(
        "build-bridge-source",
        r#"{"messages":[{"role":"user","content":"hi"}],"options":null}"#,
    );
    let absent: serde_json::Value = serde_json::from_str(&absent.stdout).unwrap();
    assert_eq!(absent["text"], "【用户消息全文（按时间序）】\n1. hi");

    for (input, field) in [
        (
            r#"{"messages":[],"options":{"sourceCharBudget":1.5}}"#,
            "options.sourceCharBudget",
        ),
        (
            r#"{"messages":[{"role":"assistant","content":"x","toolNodes":[{"detail":"a"}]}]}"#,
            "messages.0.toolNodes.0.title",
        ),
        (r#"{"messages":{}}"#, "messages"),
    ] {
        assert_bad_input(&call("build-bridge-source", input), field);
    }
}

/// An object's keys in printed order (the wire's key order is part of the contract).
fn keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn a_message_role_other_than_user_assistant_or_system_is_bad_input() {
    for function in [
        "build-bridge-source",
        "collect-visual-evidence",
        "preserve-active-user-constraints",
    ] {
        let input = |second: Value| {
            json!({
                "summary": "S",
                "lang": "en",
                "messages": [{"role": "user", "content": "hi"}, second],
            })
            .to_string()
        };
        for role in ["tool", "User", "", "developer"] {
            assert_bad_input(
                &call(function, input(json!({"role": role, "content": "x"}))),
                "messages.1.role",
            );
        }
        for bad in [json!({"content": "x"}), json!({"role": 1, "content": "x"})] {
            assert_bad_input(&call(function, input(bad)), "messages.1.role");
        }
        for role in ["user", "assistant", "system"] {
            let out = call(function, input(json!({"role": role, "content": "x"})));
            assert_eq!(out.code, 0, "{function} {role}: {}", out.stderr);
        }
    }
}

#[test]
fn collect_visual_evidence_prints_blocks_and_attachments_in_the_seed_key_order() {
    // Input keys in another order, unknown keys and a null name: the output order is the
    // seed's, whatever the input's.
    let input = r#"{"charBudget":null,"messages":[
        {"imageAttachments":[{"height":3,"name":"shot.png","width":2,"extra":0,"bytes":10,"mediaType":"image/png","attachmentId":"a1"}],
         "imageCount":1,"content":" What is in this screenshot? ","role":"user"},
        {"content":"A login form.","role":"assistant"},
        {"role":"user","content":"","imageCount":2,
         "imageAttachments":[{"name":null,"attachmentId":"a2","bytes":20,"height":5,"mediaType":"image/jpeg","width":4}]}
    ]}"#;
    let out = call("collect-visual-evidence", input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        concat!(
            r#"{"imageMessages":2,"images":3,"represented":1,"unresolved":1,"included":["#,
            r#"{"userMessage":1,"imageCount":1,"userText":"What is in this screenshot?","#,
            r#""assistantText":"A login form.","attachments":[{"attachmentId":"a1","#,
            r#""mediaType":"image/png","bytes":10,"width":2,"height":3,"name":"shot.png"}]},"#,
            r#"{"userMessage":2,"imageCount":2,"userText":"","assistantText":"","#,
            r#""attachments":[{"attachmentId":"a2","mediaType":"image/jpeg","bytes":20,"#,
            r#""width":4,"height":5}]}],"omitted":0,"truncated":false}"#,
            "\n"
        )
    );
}

#[test]
fn tool_manual_prints_the_computer_use_manual_as_a_json_string() {
    let out = call("tool-manual", r#"{"tool":"computer_use","extra":1}"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert!(out.stdout.ends_with("\"\n") && out.stdout.matches('\n').count() == 1);
    let manual: String =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    // Verbatim (computer-use.md N2), trailing LF included.
    assert_eq!(manual, keel_computer::manual::COMPUTER_USE_MANUAL);
    assert!(manual.starts_with("# Computer Use\n\n") && manual.ends_with("mode stays observe.\n"));
}

#[test]
fn tool_manual_of_a_tool_without_one_is_bad_input_on_tool() {
    for input in [
        r#"{"tool":"shell"}"#,
        r#"{"tool":""}"#,
        r#"{"tool":"COMPUTER_USE"}"#,
        r#"{"tool":7}"#,
        r#"{"tool":null}"#,
        r#"{}"#,
    ] {
        assert_bad_input(&call("tool-manual", input), "tool");
    }
    let out = call("tool-manual", r#"{"tool":"shell"}"#);
    assert!(
        out.stderr.contains("computer_use"),
        "names the tools with a manual: {}",
        out.stderr
    );
    assert_bad_input(&call("tool-manual", "[]"), "");
}

/// `keel call --help` lists every function by the name `keel call` takes.
#[test]
fn help_lists_the_functions() {
    let out = assert_cmd::Command::cargo_bin("keel")
        .unwrap_or_else(|e| panic!("{e}"))
        .args(["call", "--help"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    for name in [
        "system-notes",
        "notification-context",
        "build-bridge-source",
        "tool-manual",
    ] {
        assert!(
            help.lines().any(|l| l.trim() == name),
            "{name} missing from:\n{help}"
        );
    }
}
