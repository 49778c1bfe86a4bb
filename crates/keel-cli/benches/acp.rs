//! `cargo bench -p keel-cli --bench acp`: what an editor waits for from `keel acp` (issue 15).
//!
//! - Prompt to first chunk: the time from writing a `session/prompt` line to reading the
//!   first `agent_message_chunk` of its reply, with the scripted model (so the figure is
//!   keel's own: the turn's durable writes, the gate, the wire), over many prompts in one
//!   session.
//! - Idle memory: the resident set of a `keel acp` process that has answered `initialize`
//!   and opened a session, waiting for the next prompt.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keel_testkit::bench::report;
use serde_json::{Value, json};

// A bench prints its figures.
#[allow(clippy::print_stdout)]
fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let prompts = if quick { 5 } else { 300 };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    let script = dir.path().join("script.jsonl");
    let replies: Vec<String> = (0..prompts)
        .map(|i| json!({"text": format!("Reply {i}.")}).to_string())
        .collect();
    std::fs::write(&script, replies.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel"))
        .arg("--db")
        .arg(dir.path().join("keel.db"))
        .args(["acp", "--model"])
        .arg(format!("script:{}", script.display()))
        .env("KEEL_HOME", dir.path().join("home"))
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
    let mut lines = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout"))).lines();
    let mut send = |m: Value| {
        writeln!(stdin, "{m}").unwrap_or_else(|e| panic!("{e}"));
        stdin.flush().unwrap_or_else(|e| panic!("{e}"));
    };
    let mut next = || -> Value {
        let line = lines
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("keel acp closed"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}),
    );
    next();
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                "params": {"cwd": work.display().to_string(), "mcpServers": []}}));
    let session = next()["result"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    std::thread::sleep(Duration::from_millis(200));
    let rss = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(|l| l.trim_start_matches("VmRSS:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("{:<44} {rss}", "keel acp idle, one session open (VmRSS)");
    let mut samples = Vec::with_capacity(prompts);
    for i in 0..prompts {
        let id = 10 + i as u64;
        let start = Instant::now();
        send(
            json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
                    "params": {"sessionId": session, "prompt": [{"type": "text", "text": format!("say {i}")}]}}),
        );
        let mut first = None;
        loop {
            let m = next();
            if first.is_none() && m["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
                first = Some(start.elapsed());
            }
            if m["id"] == id {
                assert_eq!(m["result"]["stopReason"], "end_turn", "{m}");
                break;
            }
        }
        samples.push(first.unwrap_or_else(|| panic!("no chunk for prompt {i}")));
    }
    report("session/prompt to first agent_message_chunk", 44, samples);
    let _ = child.kill();
    let _ = child.wait();
}
