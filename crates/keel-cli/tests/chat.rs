//! `keel chat` as a person uses it (issue 20): on a real pseudo-terminal (the chat's own
//! controlling terminal, so Ctrl-C is the signal a terminal sends) the line can be edited, the
//! arrow keys never reach the turn, earlier lines of the run come back with the up arrow in a
//! later chat, and Ctrl-C during a turn cancels that turn and comes back to the prompt; on a
//! pipe or a terminal alike `/help` and `/exit` are commands, never turns, and a chat that
//! leaves without a word leaves no run behind.

use std::time::{Duration, Instant};

use rexpect::session::PtySession;
use serde_json::{Value, json};

use crate::common;
use common::Env;

/// How long the tests wait for what keel prints on the terminal (a debug build on a busy
/// machine); every wait ends as soon as the text is there.
const WAIT_MS: u64 = 30_000;

/// `keel ARGS` on a pseudo-terminal of its own: stdin, stdout and stderr, as in a terminal
/// window.
fn on_terminal(env: &Env, args: &[&str]) -> PtySession {
    let mut cmd = env.cmd(args);
    cmd.env("TERM", "xterm");
    rexpect::session::spawn_with_options(
        cmd,
        rexpect::reader::Options::new()
            .timeout_ms(Some(WAIT_MS))
            .strip_ansi_escape_codes(true),
    )
    .unwrap_or_else(|e| panic!("cannot start keel on a pseudo-terminal: {e}"))
}

/// Types `keys` (flushed at once).
fn press(p: &mut PtySession, keys: &str) {
    p.send(keys).unwrap_or_else(|e| panic!("{e}"));
    p.flush().unwrap_or_else(|e| panic!("{e}"));
}

/// Waits for `text` on the terminal; what came before it.
fn expect(p: &mut PtySession, text: &str) -> String {
    p.exp_string(text)
        .unwrap_or_else(|e| panic!("waiting for {text:?}: {e}"))
}

/// Waits for the line editor's prompt. The editor asks the terminal where its cursor is
/// before it shows the prompt; keys typed only once it shows cannot be taken for the answer.
fn prompt(p: &mut PtySession) {
    expect(p, "you> ");
}

/// Waits for the keel process to end; its exit code.
fn exit_code(p: &mut PtySession) -> i32 {
    let _ = p.exp_eof();
    match p.process().wait() {
        Ok(rexpect::process::WaitStatus::Exited(_, code)) => code,
        Ok(other) => panic!("keel ended with {other:?}"),
        Err(e) => panic!("{e}"),
    }
}

/// The texts of the run's user items, in order.
fn user_turns(env: &Env, run: &str) -> Vec<String> {
    env.show(run)["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["kind"] == "user")
                .filter_map(|i| i["text"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn kinds(shown: &Value) -> Vec<String> {
    shown["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|i| i["kind"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until `ok` holds (the database is read by another process), at most [`WAIT_MS`].
fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_millis(WAIT_MS);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Left, right, Home and End move in the line; the turn holds the line as edited, not the
/// keys' escape sequences. Before issue 20, `hllo` + left arrows + `e` was stored as
/// `hllo\u{1b}[D\u{1b}[D\u{1b}[De`.
#[test]
fn arrow_keys_edit_the_line_and_never_reach_the_turn() {
    let env = Env::new();
    let model = env.script(
        "s.jsonl",
        &[json!({"text": "Hello to you."}), json!({"text": "Fine."})],
    );
    let mut p = on_terminal(&env, &["chat", "--model", &model, "--approval", "deny"]);
    prompt(&mut p);
    // "hllo", three steps left, "e": "hello".
    press(&mut p, "hllo\x1b[D\x1b[D\x1b[De\r");
    expect(&mut p, "Hello to you.");
    prompt(&mut p);
    // "world", Home, "a ", End, "!": "a world!"; up and down come back to the new line.
    press(&mut p, "world\x1b[Ha \x1b[F!\r");
    expect(&mut p, "Fine.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    let run = env.only_run();
    assert_eq!(user_turns(&env, &run), ["hello", "a world!"]);
    let text = env.show(&run).to_string();
    assert!(
        !text.contains("\\u001b"),
        "an escape reached the run: {text}"
    );
}

/// The lines of a run come back with the up arrow in a later `keel chat --run`, from the
/// run's own history file; an ask_user answer typed at the same terminal is not kept in it.
#[test]
fn the_up_arrow_recalls_an_earlier_line_of_the_run_in_a_later_chat() {
    let env = Env::new();
    let model = env.script(
        "s.jsonl",
        &[
            common::call("shell", json!({"command": "touch approved"})),
            json!({"text": "Done, I made the file."}),
        ],
    );
    let mut p = on_terminal(&env, &["chat", "--model", &model]);
    prompt(&mut p);
    press(&mut p, "make the file please\r");
    // The question waits on its own line, and the answer is typed right after it.
    expect(&mut p, "[d]eny: ");
    press(&mut p, "o\r");
    expect(&mut p, "Done, I made the file.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    assert!(env.work().join("approved").exists());
    let run = env.only_run();
    let history = env.path("home").join("history").join(format!("{run}.txt"));
    let kept = std::fs::read_to_string(&history).unwrap_or_default();
    // What the person typed is theirs alone.
    use std::os::unix::fs::PermissionsExt as _;
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.permissions().mode() & 0o777);
    assert_eq!(mode(&history), 0o600);
    assert_eq!(mode(history.parent().unwrap_or(&history)), 0o700);
    assert!(kept.contains("make the file please"), "{kept:?}");
    assert!(
        !kept.lines().any(|l| l.trim() == "o"),
        "the answer is not history: {kept:?}"
    );

    let again = env.script("again.jsonl", &[json!({"text": "Again, then."})]);
    let mut p = on_terminal(
        &env,
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &again,
            "--approval",
            "deny",
        ],
    );
    prompt(&mut p);
    // Up once: /exit, the last line; up twice: the request before it.
    press(&mut p, "\x1b[A\x1b[A\r");
    expect(&mut p, "Again, then.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!(
        user_turns(&env, &run),
        ["make the file please", "make the file please"]
    );
}

/// Ctrl-C while the model answers cancels that turn: the chat says so and comes back to the
/// prompt, and the next line is a turn of the same run, which is left closed.
#[test]
fn ctrl_c_during_a_turn_cancels_it_and_the_chat_goes_on() {
    let env = Env::new();
    let model = env.script(
        "s.jsonl",
        &[
            json!({"text": "never shown", "delay_ms": 60_000}),
            json!({"text": "Here is the next answer."}),
        ],
    );
    let mut p = on_terminal(&env, &["chat", "--model", &model, "--approval", "deny"]);
    prompt(&mut p);
    press(&mut p, "take your time\r");
    let run = env.only_run();
    until("the turn to start", || !user_turns(&env, &run).is_empty());
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    press(&mut p, "\x03");
    expect(&mut p, "turn cancelled");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the 60 s answer was cut short"
    );
    prompt(&mut p);
    press(&mut p, "and now?\r");
    expect(&mut p, "Here is the next answer.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    let shown = env.show(&run);
    assert_eq!(user_turns(&env, &run), ["take your time", "and now?"]);
    assert_eq!(kinds(&shown), ["user", "user", "assistant"], "{shown}");
    assert_eq!(shown["run"]["turn_open"], false, "{shown}");
    assert!(!shown.to_string().contains("never shown"));
}

/// Ctrl-C while keel asks for your word denies the call and cancels the turn: the command
/// does not run, and the chat comes back to the prompt.
#[test]
fn ctrl_c_at_a_question_denies_and_cancels_the_turn() {
    let env = Env::new();
    let model = env.script(
        "s.jsonl",
        &[
            common::call("shell", json!({"command": "touch never"})),
            // The cancelled turn asks the model nothing more: the next turn gets this.
            json!({"text": "Back again."}),
        ],
    );
    let mut p = on_terminal(&env, &["chat", "--model", &model]);
    prompt(&mut p);
    press(&mut p, "make a file\r");
    expect(&mut p, "[d]eny: ");
    press(&mut p, "\x03");
    expect(&mut p, "turn cancelled");
    prompt(&mut p);
    press(&mut p, "hello again\r");
    expect(&mut p, "Back again.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    assert!(!env.work().join("never").exists());
    let run = env.only_run();
    let shown = env.show(&run);
    assert_eq!(user_turns(&env, &run), ["make a file", "hello again"]);
    assert_eq!(shown["approvals"][0]["answer"], "deny", "{shown}");
    assert_eq!(
        kinds(&shown),
        ["user", "assistant", "tool_result", "user", "assistant"],
        "{shown}"
    );
}

/// A notification that arrives while the person is typing is delivered and shown above the
/// line, and the line typed so far is still there to finish.
#[test]
fn a_notification_at_the_prompt_is_shown_above_the_line_being_typed() {
    let env = Env::new();
    let first = env.script("first.jsonl", &[json!({"text": "started"})]);
    let (code, _, err) = env.keel(&["run", "start", "--model", &first], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    let model = env.script(
        "s.jsonl",
        &[
            json!({"text": "The search found 42."}),
            json!({"text": "Half and half."}),
        ],
    );
    let mut p = on_terminal(
        &env,
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &model,
            "--approval",
            "deny",
        ],
    );
    prompt(&mut p);
    press(&mut p, "ha");
    std::thread::sleep(Duration::from_millis(300));
    let (code, _, err) = env.keel(
        &["notify", &run, "--kind", "search_result", "--id", "s1"],
        "{\"answer\":\"42\"}",
    );
    assert_eq!(code, 0, "{err}");
    expect(&mut p, "The search found 42.");
    // The editor drew its line again below what was printed: "ha" is still being typed.
    press(&mut p, "lf\r");
    expect(&mut p, "Half and half.");
    prompt(&mut p);
    press(&mut p, "/exit\r");
    assert_eq!(exit_code(&mut p), 0);
    assert_eq!(user_turns(&env, &run), ["start", "half"]);
    let shown = env.show(&run);
    assert_eq!(shown["notifications"][0]["state"], "delivered", "{shown}");
}

/// `/help` lists the commands and `/exit` leaves, a `/word` keel does not know is said to be
/// none, and a line that only starts with a slash is a message: none of the commands is a
/// turn.
#[test]
fn slash_commands_are_never_turns() {
    let env = Env::new();
    let model = env.script(
        "s.jsonl",
        &[
            json!({"text": "Look at its permissions."}),
            json!({"text": "unused"}),
        ],
    );
    let (code, _, err) = env.keel(
        &["chat", "--model", &model],
        "/help\n/bogus\n/etc/hosts is broken\n/exit\nnot read\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("  /exit, /quit   leave"), "{err}");
    assert!(
        err.contains("/bogus is not a command of keel chat, and nothing was sent"),
        "{err}"
    );
    let run = env.only_run();
    assert_eq!(user_turns(&env, &run), ["/etc/hosts is broken"]);
    assert_eq!(kinds(&env.show(&run)), ["user", "assistant"]);
}

/// A chat that leaves without a turn (commands only, end of input, Ctrl-C at the prompt)
/// leaves no run behind; one on an existing run never deletes it.
#[test]
fn a_chat_that_says_nothing_leaves_no_run() {
    let env = Env::new();
    let model = env.script("s.jsonl", &[json!({"text": "unused"})]);
    for input in ["/help\n/exit\n", "", "\n\n/quit\n"] {
        let (code, _, err) = env.keel(&["chat", "--model", &model], input);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("nothing was said, so run "), "{err}");
        assert!(err.contains("was not kept"), "{err}");
        assert_eq!(env.only_run(), "", "{input:?} left a run");
    }
    // An existing run stays, even empty-handed.
    let first = env.script("first.jsonl", &[json!({"text": "started"})]);
    let (code, _, err) = env.keel(&["run", "start", "--model", &first], "");
    assert_eq!(code, 0, "{err}");
    let run = env.only_run();
    let (code, _, err) = env.keel(&["chat", "--run", &run, "--model", &model], "/exit\n");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not kept"), "{err}");
    assert_eq!(env.only_run(), run);

    // Ctrl-C at the terminal's prompt, before a word: no run either.
    let mut p = on_terminal(&env, &["chat", "--model", &model, "--approval", "deny"]);
    prompt(&mut p);
    press(&mut p, "\x03");
    expect(&mut p, "was not kept");
    assert_eq!(exit_code(&mut p), 130);
    let (_, listed, _) = env.keel(&["runs", "list", "--json"], "");
    let listed: Value = serde_json::from_str(&listed).unwrap_or_default();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
}

/// What `/help` prints, as a person reads it.
#[test]
fn chat_help() {
    let env = Env::new();
    let model = env.script("s.jsonl", &[json!({"text": "unused"})]);
    let (code, _, err) = env.keel(&["chat", "--model", &model], "/help\n");
    assert_eq!(code, 0, "{err}");
    let help: String = err
        .lines()
        .skip_while(|l| !l.contains("Each line you send"))
        .take_while(|l| !l.starts_with("you> keel:"))
        .map(|l| format!("{}\n", l.trim_start_matches("you> ")))
        .collect();
    insta::assert_snapshot!("chat_help", help);
}
