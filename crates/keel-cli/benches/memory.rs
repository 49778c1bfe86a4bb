//! `cargo bench -p keel-cli --bench memory`: the peak resident memory of a whole `keel run`
//! (the real binary) of 10 and of 2,000 model steps, for each provider, and the difference.
//! Target (issue 19): a 2,000-step run peaks at most 64 MiB above a 10-step one — memory flat
//! in run length, whatever answers.
//!
//! Each step is one tool call, `read_file` and `shell` (`echo`) in turn, then a final answer;
//! the providers are:
//! - `script`: the scripted provider, from a file (`--model script:FILE`);
//! - `openai`: the OpenAI-compatible HTTP provider against a loopback server in this process
//!   that streams the same steps and keeps nothing it is sent;
//! - `local`: the local provider's client (keel-model's `local`) against a stand-in worker —
//!   this bench's own executable, speaking the worker protocol — so the figure is keel's, not
//!   llama.cpp's: a real model cannot be made to take 2,000 scripted steps, and the real
//!   worker's memory is its model and context window, fixed when it starts. It says its
//!   context window is 100M tokens, so keel never compacts and holds the whole history.
//!
//! A run is measured from outside: this executable starts itself as a measurer
//! (`memory measure KEEL ARGS…`), which starts `keel` and, once it has exited, reads the
//! peak RSS of its waited-for children (`getrusage(RUSAGE_CHILDREN)`): `keel` and whatever it
//! waited for (the stand-in worker, its shells). A fresh measurer per run keeps one run's peak
//! out of the next one's figure.
//!
//! `cargo test --benches` runs it quickly (10 and 40 steps), so a broken bench fails there.
//! Provider names after `--` measure only those (`cargo bench -p keel-cli --bench memory --
//! script`).

// A bench prints its figures.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use serde_json::{Value, json};

/// How many steps the stand-in worker answers with a call before its final answer.
const STEPS_ENV: &str = "KEEL_MEMORY_BENCH_STEPS";
/// The target: a 2,000-step run peaks at most this much above a 10-step one.
const TARGET_MIB: f64 = 64.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = if args.get(1).map(String::as_str) == Some("measure") {
        measure(&args[2..])
    } else if args.iter().any(|a| a == "--model") {
        // keel starts its worker as `WORKER --model PATH.gguf [--ctx N] …`.
        stand_in_worker()
    } else {
        // Names among the arguments pick providers: `cargo bench … --bench memory -- script`.
        let picked: Vec<&str> = args[1..]
            .iter()
            .map(String::as_str)
            .filter(|a| !a.starts_with('-'))
            .collect();
        bench(!args.iter().any(|a| a == "--bench"), &picked)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memory bench: {e}");
            ExitCode::FAILURE
        }
    }
}

type Error = Box<dyn std::error::Error>;

fn bench(quick: bool, picked: &[&str]) -> Result<(), Error> {
    let (short, long) = if quick { (10, 40) } else { (10, 2_000) };
    let keel = env!("CARGO_BIN_EXE_keel");
    let me = std::env::current_exe()?;
    println!("peak RSS of `keel run`, {short} and {long} steps (tool calls), then the difference");
    for provider in ["script", "openai", "local"] {
        if !picked.is_empty() && !picked.contains(&provider) {
            continue;
        }
        let a = run_once(keel, &me, provider, short)?;
        let b = run_once(keel, &me, provider, long)?;
        let (a, b) = (a as f64 / 1024.0, b as f64 / 1024.0);
        let over = if !quick && b - a > TARGET_MIB {
            format!("  over the {TARGET_MIB} MiB target")
        } else {
            String::new()
        };
        println!(
            "{provider:<7} {short:>5} steps {a:>8.1} MiB  {long:>5} steps {b:>8.1} MiB  difference {:>+8.1} MiB{over}",
            b - a
        );
    }
    Ok(())
}

/// The reply for step `k` of `steps` (0-based): a call, then the final answer at `steps`.
fn step(k: usize, steps: usize) -> Option<(&'static str, Value)> {
    (k < steps).then(|| {
        if k.is_multiple_of(2) {
            ("read_file", json!({"path": "notes.md"}))
        } else {
            ("shell", json!({"command": format!("echo step {k}")}))
        }
    })
}

/// One `keel run` of `steps` steps with `provider`; its peak RSS in KiB.
fn run_once(keel: &str, me: &Path, provider: &str, steps: usize) -> Result<u64, Error> {
    let dir = tempfile::tempdir()?;
    let (work, home, config) = (
        dir.path().join("work"),
        dir.path().join("home"),
        dir.path().join("config"),
    );
    for d in [&work, &home, &config.join("keel")] {
        std::fs::create_dir_all(d)?;
    }
    std::fs::write(
        work.join("notes.md"),
        "The plan: read the notes, then echo each step, and report when done.\n".repeat(4),
    )?;
    // The user allows the shell (a workspace file's allow would be capped).
    std::fs::write(
        config.join("keel/config.toml"),
        "[[rule]]\ntoolName = \"shell\"\ndecision = \"allow\"\npriority = 999\n",
    )?;
    let mut command = Command::new(me);
    command
        .arg("measure")
        .arg(keel)
        .args(["run", "follow the plan in notes.md, step after step"])
        .args([
            "--approval",
            "deny",
            "--step-limit",
            &(steps + 5).to_string(),
        ])
        .current_dir(&work)
        .env("KEEL_HOME", &home)
        .env("XDG_CONFIG_HOME", &config)
        .env_remove(keel_app::models::SCRIPT_LOG_ENV);
    let _server = match provider {
        "script" => {
            let script = dir.path().join("script.jsonl");
            let lines: Vec<String> = (0..=steps)
                .map(|k| match step(k, steps) {
                    Some((name, arguments)) => {
                        json!({"tool_calls": [{"name": name, "arguments": arguments}]}).to_string()
                    }
                    None => json!({"text": "done"}).to_string(),
                })
                .collect();
            std::fs::write(&script, lines.join("\n"))?;
            command.args(["--model", &format!("script:{}", script.display())]);
            None
        }
        "openai" => {
            let (url, server) = serve(steps)?;
            command
                .args(["--model", "openai:bench", "--base-url", &url])
                .env("OPENAI_API_KEY", "bench");
            Some(server)
        }
        _ => {
            let gguf = dir.path().join("m.gguf");
            std::fs::write(&gguf, b"GGUF")?;
            command
                .args(["--model", &format!("local:{}", gguf.display())])
                .env("KEEL_LLM_WORKER", me)
                .env(STEPS_ENV, steps.to_string());
            None
        }
    };
    let out = command.stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(format!(
            "{provider}, {steps} steps: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let kib = text
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("max_rss_kib "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("{provider}, {steps} steps: the measurer said {text:?}"))?;
    // The run must have taken every step, or the figure is of a shorter run.
    if !text.contains("done") {
        return Err(format!("{provider}, {steps} steps: the run did not finish: {text}").into());
    }
    Ok(kib)
}

/// `measure KEEL ARGS…`: runs keel, passes its output on, then prints the peak RSS.
fn measure(args: &[String]) -> Result<(), Error> {
    let (keel, rest) = args.split_first().ok_or("measure: no program given")?;
    let out = Command::new(keel)
        .args(rest)
        .stdin(Stdio::null())
        .output()?;
    std::io::stdout().write_all(&out.stdout)?;
    std::io::stderr().write_all(&out.stderr)?;
    if !out.status.success() {
        return Err(format!("keel exited with {}", out.status).into());
    }
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)?;
    // Linux reports ru_maxrss in KiB.
    println!("max_rss_kib {}", usage.max_rss());
    Ok(())
}

/// The worker protocol (keel-worker-protocol), answering `$KEEL_MEMORY_BENCH_STEPS` calls then
/// a final answer; it reads each request whole and keeps none.
fn stand_in_worker() -> Result<(), Error> {
    let steps: usize = std::env::var(STEPS_ENV)?.parse()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", json!({"ready": true, "n_ctx": 100_000_000}))?;
    out.flush()?;
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut line = String::new();
    for k in 0.. {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let text = match step(k, steps) {
            Some((name, arguments)) => json!({"tool": name, "arguments": arguments}).to_string(),
            None => json!({"reply": "done"}).to_string(),
        };
        let answer = json!({"text": text, "finished": true, "prompt_tokens": line.len() / 4,
            "completion_tokens": 20, "reused_tokens": 0});
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

/// A loopback OpenAI-compatible server streaming `steps` calls then a final answer, one
/// connection each; it reads each request whole and keeps none.
fn serve(steps: usize) -> Result<(String, std::thread::JoinHandle<()>), Error> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    let handle = std::thread::spawn(move || {
        for k in 0..=steps {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let _ = answer(stream, k, steps);
        }
    });
    Ok((url, handle))
}

fn answer(stream: std::net::TcpStream, k: usize, steps: usize) -> Result<(), Error> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse()?;
        }
    }
    std::io::copy(&mut reader.by_ref().take(length), &mut std::io::sink())?;
    let event = match step(k, steps) {
        Some((name, arguments)) => json!({"choices": [{"delta": {"tool_calls": [{
            "index": 0, "id": format!("call_{k}"), "type": "function",
            "function": {"name": name, "arguments": arguments.to_string()}
        }]}, "finish_reason": "tool_calls"}]}),
        None => json!({"choices": [{"delta": {"content": "done"}, "finish_reason": "stop"}]}),
    };
    let mut stream = stream;
    stream.write_all(&keel_model::testing::sse(&[event]))?;
    stream.flush()?;
    Ok(())
}
