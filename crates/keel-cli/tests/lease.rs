//! One writer per run at a time (issue 19), with real `keel` processes on one database: a
//! chat holds its run while its model answers (a loopback model server that holds the reply
//! until the test lets it go), and a second writer is refused before it writes; a lease left
//! by a killed keel is reclaimed by the next; a chat that loses a race anyway reloads.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use keel_core::{ItemBody, Timestamp};
use keel_model::testing::sse;
use keel_store::{RunLeaseStore, RunStore, RunWrite};
use serde_json::{Value, json};

use crate::common::Env;

/// A loopback Chat Completions server that answers each connection with the next response; a
/// held one is sent only when the test says so. Each request is announced as it arrives.
struct Gated {
    url: String,
    arrived: mpsc::Receiver<()>,
    release: mpsc::Sender<()>,
}

fn gated(responses: Vec<(bool, Vec<u8>)>) -> Gated {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let url = format!(
        "http://{}/v1",
        listener.local_addr().unwrap_or_else(|e| panic!("{e}"))
    );
    let (arrived_tx, arrived) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        for (held, response) in responses {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap_or_else(|e| panic!("{e}")));
            let mut length = 0;
            let mut line = String::new();
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim_end().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':')
                    && k.trim().eq_ignore_ascii_case("content-length")
                {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = arrived_tx.send(());
            if held && release_rx.recv().is_err() {
                return;
            }
            let _ = stream.write_all(&response);
            let _ = stream.flush();
        }
    });
    Gated {
        url,
        arrived,
        release,
    }
}

fn reply(text: &str) -> Vec<u8> {
    sse(&[json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]})])
}

/// A run with one finished turn, made by `keel run`.
fn a_run(env: &Env) -> String {
    let model = env.script("first.jsonl", &[json!({"text": "first answer"})]);
    let (code, _, err) = env.keel(
        &["run", "hello", "--model", &model, "--approval", "deny"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    env.only_run()
}

/// `keel chat --run RUN` against `server`, with `lines` typed and then end of input.
fn chat_on(env: &Env, run: &str, server: &Gated, lines: &str) -> Child {
    let mut cmd = env.cmd(&[
        "chat",
        "--run",
        run,
        "--model",
        "openai:slow",
        "--base-url",
        &server.url,
        "--approval",
        "deny",
    ]);
    cmd.env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    stdin
        .write_all(lines.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    child
}

fn wait_for_request(server: &Gated) {
    server
        .arrived
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("the chat's model request never arrived: {e}"));
}

fn finish(child: Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn texts(shown: &Value) -> Vec<String> {
    shown["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| format!("{}: {}", i["kind"].as_str().unwrap_or(""), i["text"]))
                .collect()
        })
        .unwrap_or_default()
}

/// The race: a chat answering (its model call in flight) and a second `keel chat`
/// on the same run. The second is refused before it writes, naming the first; the first
/// finishes its reply intact.
#[test]
fn a_second_writer_is_refused_before_writing_and_the_first_keeps_its_reply() {
    let env = Env::new();
    let run = a_run(&env);
    let server = gated(vec![(true, reply("the slow reply"))]);
    let first = chat_on(&env, &run, &server, "question A\n");
    wait_for_request(&server);
    let before = env.show(&run);

    let other = env.script("other.jsonl", &[json!({"text": "the other reply"})]);
    let (code, out, err) = env.keel(
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &other,
            "--approval",
            "deny",
        ],
        "another turn\n",
    );
    assert_ne!(code, 0, "the second writer was not refused: {out}{err}");
    assert!(
        err.contains(&format!("another keel process (pid {}", first.id())),
        "{err}"
    );
    assert!(err.contains("Nothing was written"), "{err}");
    assert!(!out.contains("the other reply"), "{out}");
    // A resume is a writer too.
    let (code, _, err) = env.keel(
        &[
            "runs",
            "resume",
            &run,
            "--model",
            &other,
            "--approval",
            "deny",
        ],
        "",
    );
    assert_ne!(code, 0, "the resume was not refused: {err}");
    assert!(err.contains("keel runs show"), "{err}");
    assert_eq!(env.show(&run), before, "a refused writer changed the run");

    let _ = server.release.send(());
    let (code, out, err) = finish(first);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the slow reply"), "{out}");
    let items = texts(&env.show(&run));
    let tail: Vec<&str> = items
        .iter()
        .rev()
        .take(2)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        ["user: \"question A\"", "assistant: \"the slow reply\""],
        "{items:?}"
    );
    assert!(
        !items.iter().any(|i| i.contains("another turn")),
        "{items:?}"
    );
    // Released on exit: a reader of the store sees the run free.
    let store = keel_testkit::open_store(&env.db());
    assert_eq!(
        store.run_lease(&run).unwrap_or_else(|e| panic!("{e}")),
        None
    );
}

/// A keel killed with SIGKILL cannot release its lease; the next writer sees its process is
/// gone and takes the run over at once, without waiting for the lease to expire.
#[test]
fn a_lease_left_by_a_killed_keel_is_reclaimed_by_the_next_writer() {
    let env = Env::new();
    let run = a_run(&env);
    // Defaults are 30 s; a long expiry shows the reclaim does not wait for it.
    env.user_config("[store]\nlease_expiry_ms = 600000\n");
    let server = gated(vec![(true, reply("never sent"))]);
    let mut killed = chat_on(&env, &run, &server, "question A\n");
    wait_for_request(&server);
    let pid = killed.id();
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    );
    let _ = killed.wait();
    let store = keel_testkit::open_store(&env.db());
    let left = store
        .run_lease(&run)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("the killed keel left no lease"));
    assert_eq!(left.holder.pid, pid);

    let next = env.script("next.jsonl", &[json!({"text": "back again"})]);
    let (code, out, err) = env.keel(
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &next,
            "--approval",
            "deny",
        ],
        "after the crash\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("back again"), "{out}");
    assert!(
        err.contains(&format!("written by process {pid}")) && err.contains("takes the run over"),
        "{err}"
    );
    assert_eq!(
        store.run_lease(&run).unwrap_or_else(|e| panic!("{e}")),
        None
    );
}

/// A chat that loses a race anyway (here to a writer that bypasses the lease, straight into
/// the store) does not quit: it says its reply was lost and what arrived, reloads, and
/// answers the next line.
#[test]
fn a_chat_that_loses_a_race_reloads_says_what_was_lost_and_goes_on() {
    let env = Env::new();
    let run = a_run(&env);
    let server = gated(vec![
        (true, reply("the lost reply")),
        (false, reply("the second answer")),
    ]);
    let chat = chat_on(&env, &run, &server, "question A\nquestion B\n");
    wait_for_request(&server);
    {
        let mut store = keel_testkit::open_store(&env.db());
        let head = store.run_head(&run).unwrap_or_else(|e| panic!("{e}"));
        let now = Timestamp(head.updated_at.millis() + 1);
        let item = |id: &str, body| keel_testkit::new_item(id, now, body);
        store
            .commit(
                &run,
                RunWrite::append(
                    head.version,
                    now,
                    vec![
                        item(
                            "sneaked-user",
                            ItemBody::User {
                                text: "another turn \u{1b}]0;title\u{7}".into(),
                            },
                        ),
                        item(
                            "sneaked-reply",
                            ItemBody::Assistant {
                                text: "the other reply".into(),
                                tool_calls: vec![],
                            },
                        ),
                    ],
                ),
            )
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let _ = server.release.send(());
    let (code, out, err) = finish(chat);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("another writer changed run") && err.contains("the reply above was lost"),
        "{err}"
    );
    assert!(err.contains("your message first"), "{err}");
    assert!(
        err.contains("2 item(s) arrived from the other writer"),
        "{err}"
    );
    // What the other writer wrote is shown, escaped.
    assert!(
        err.contains("another turn \\u{001b}]0;title\\u{0007}"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(err.contains("the other reply"), "{err}");
    assert!(out.contains("the second answer"), "{out}");
    let items = texts(&env.show(&run));
    assert!(
        !items.iter().any(|i| i.contains("the lost reply")),
        "{items:?}"
    );
    let tail: Vec<&str> = items
        .iter()
        .rev()
        .take(2)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        ["user: \"question B\"", "assistant: \"the second answer\""],
        "{items:?}"
    );
}

/// Readers take no lease: a run being written can be shown, listed and exported, and `show`
/// names its writer.
#[test]
fn a_held_run_can_still_be_read() {
    let env = Env::new();
    let run = a_run(&env);
    let server = gated(vec![(true, reply("the slow reply"))]);
    let chat = chat_on(&env, &run, &server, "question A\n");
    wait_for_request(&server);
    for args in [
        vec!["runs", "show", run.as_str()],
        vec!["runs", "list"],
        vec!["runs", "export", run.as_str()],
    ] {
        let (code, _, err) = env.keel(&args, "");
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    // `runs show` says who writes the run.
    let (_, shown, _) = env.keel(&["runs", "show", &run], "");
    assert!(
        shown.contains(&format!("writer   keel process {} on", chat.id())),
        "{shown}"
    );
    let _ = server.release.send(());
    let (code, _, err) = finish(chat);
    assert_eq!(code, 0, "{err}");
}

/// `keel run` holds its new run from right after creating it: a chat on it meanwhile is
/// refused, and the run finishes as if alone.
#[test]
fn a_new_run_is_held_while_keel_run_works_on_it() {
    let env = Env::new();
    let server = gated(vec![(true, reply("done alone"))]);
    let mut cmd = env.cmd(&[
        "run",
        "the task",
        "--model",
        "openai:slow",
        "--base-url",
        &server.url,
        "--approval",
        "deny",
    ]);
    cmd.env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let running = cmd.spawn().unwrap_or_else(|e| panic!("{e}"));
    wait_for_request(&server);
    let run = env.only_run();
    let other = env.script("other.jsonl", &[json!({"text": "the other reply"})]);
    let (code, _, err) = env.keel(
        &[
            "chat",
            "--run",
            &run,
            "--model",
            &other,
            "--approval",
            "deny",
        ],
        "another turn\n",
    );
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains(&format!("another keel process (pid {}", running.id())),
        "{err}"
    );
    let _ = server.release.send(());
    let (code, out, err) = finish(running);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("done alone"), "{out}");
    assert!(
        !texts(&env.show(&run))
            .iter()
            .any(|i| i.contains("another turn"))
    );
}
