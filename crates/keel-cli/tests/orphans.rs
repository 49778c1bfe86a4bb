//! keel's children (issue 19). No orphans: a `keel` killed with SIGKILL takes every child it
//! started with it — the shell command in flight and what that command started in the
//! background, a persistent safety checker and its own children, and an MCP server — so
//! nothing acts later where nobody can see or stop it; the call that was in flight is reported
//! `unknown`, never replayed. And a terminal's Ctrl-C, which signals the whole foreground
//! process group, is a cancel (exit 130, the run resumable) even while the local model worker
//! is answering.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

use crate::common;
use common::{Env, call};

/// Polls (bounded) until `done` holds.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    done()
}

fn pid_in(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn group_alive(pgid: i32) -> bool {
    // A member that has ended but was not yet reaped (a zombie: here, init may be slow to reap
    // orphans) cannot run any more, so it does not count; signal 0 would count it.
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            let Some((_, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            let mut fields = rest.split(' ');
            let state = fields.next();
            // After the state: ppid, then pgrp.
            let group = fields.nth(1).and_then(|g| g.parse::<i32>().ok());
            state != Some("Z") && group == Some(pgid)
        })
}

fn alive(pid: i32) -> bool {
    // A zombie has ended; only a process that can still run counts.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// The pids of processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .filter(|pid| alive(*pid))
        .collect()
}

#[test]
fn a_keel_killed_with_sigkill_leaves_none_of_its_children_running() {
    let env = Env::new();
    let work = env.work();
    // A persistent checker that starts a child of its own and answers allow to every check.
    let checker_pid = env.dir.path().join("checker.pid");
    let checker = env.write(
        "checker.sh",
        "#!/bin/sh\nsleep 300 &\necho $$ > \"$PIDFILE\"\n\
         while IFS= read -r line; do echo '{\"decision\":\"allow\"}'; done\n",
    );
    make_executable(&checker);
    let mut config = format!(
        "[checkers.watcher]\ncommand = [{:?}]\nmode = \"persistent\"\n\
         env = {{ PIDFILE = {:?} }}\n",
        checker.display().to_string(),
        checker_pid.display().to_string()
    );
    // An MCP server too, when the npm one is installed (./scripts/test installs it).
    let mcp_root = work.join("mcp-root");
    std::fs::create_dir_all(&mcp_root).unwrap_or_else(|e| panic!("{e}"));
    let mcp = std::env::var("KEEL_TEST_MCP_FILESYSTEM").ok();
    if let Some(server) = &mcp {
        config.push_str(&format!(
            "[mcp_servers.fs]\ncommand = {server:?}\nargs = [{:?}]\nstart_timeout_secs = 60\n",
            mcp_root.display().to_string()
        ));
    }
    env.user_config(&config);
    env.write(
        "work/keel.toml",
        "[[safety_checker]]\ntoolName = \"shell\"\n[safety_checker.checker]\n\
         type = \"external\"\nname = \"watcher\"\n",
    );
    // The command records its group, starts a background child, and would write crash.txt
    // two seconds later if it were left running.
    let model = env.script(
        "s.jsonl",
        &[
            call(
                "shell",
                json!({"command": "sleep 300 & echo $$ > shell.pid; sleep 2; echo late > crash.txt"}),
            ),
            json!({"text": "done"}),
        ],
    );
    let mut keel = env.cmd(&[
        "run",
        "go",
        "--model",
        &model,
        "--approval",
        "deny",
        "--mode",
        "yolo",
    ]);
    let mut keel = keel
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let shell_pid = work.join("shell.pid");
    let started = eventually(Duration::from_secs(60), || pid_in(&shell_pid).is_some());
    let mcp_servers = processes_with(&mcp_root.display().to_string());
    kill(Pid::from_raw(keel.id() as i32), Signal::SIGKILL).unwrap_or_else(|e| panic!("{e}"));
    let _ = keel.wait();
    let err = std::io::read_to_string(keel.stderr.take().unwrap_or_else(|| panic!("stderr")))
        .unwrap_or_default();
    assert!(started, "the shell call never started: {err}");

    let shell = pid_in(&shell_pid).unwrap_or_else(|| panic!("no shell pid"));
    assert!(
        eventually(Duration::from_secs(10), || !group_alive(shell)),
        "the shell command's group (and its background sleep) outlived keel"
    );
    // Once its group is gone, nothing can write crash.txt any more.
    assert!(
        !work.join("crash.txt").exists(),
        "the orphaned command acted after keel died"
    );
    let checker = pid_in(&checker_pid).unwrap_or_else(|| panic!("the checker never started"));
    assert!(
        eventually(Duration::from_secs(10), || !group_alive(checker)),
        "the persistent checker's group outlived keel"
    );
    if mcp.is_some() {
        assert!(
            !mcp_servers.is_empty(),
            "the MCP server was not found running"
        );
        for pid in mcp_servers {
            assert!(
                eventually(Duration::from_secs(10), || !alive(pid)),
                "MCP server process {pid} outlived keel"
            );
        }
    }

    // The call in flight stays `dispatched` until a resume, which reports it as unknown and
    // does not run it again.
    let run = env.only_run();
    let (_, shown, _) = env.keel(&["runs", "show", &run], "");
    assert!(shown.contains("dispatched  call_1"), "{shown}");
    std::fs::remove_file(&shell_pid).unwrap_or_else(|e| panic!("{e}"));
    let answer = env.script("answer.jsonl", &[json!({"text": "done"})]);
    let (code, _, err) = env.keel(
        &[
            "runs",
            "resume",
            &run,
            "--model",
            &answer,
            "--approval",
            "deny",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!shell_pid.exists(), "the unknown call was replayed: {err}");
    let (_, shown, _) = env.keel(&["runs", "show", &run], "");
    assert!(shown.contains("unknown     call_1"), "{shown}");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The pids of every live descendant of `root`.
fn descendants(root: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(i32, i32)> = dir
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (_, rest) = stat.rsplit_once(") ")?;
            let ppid = rest.split(' ').nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    found.retain(|p| *p != root && alive(*p));
    found
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .unwrap_or_default()
}

/// Ctrl-C typed at a real terminal (a pseudo-terminal from `script`), while the real local
/// model worker is answering: the terminal signals the whole foreground group, and the worker
/// used to die of it, which keel reported as a failed model call (exit 1).
#[test]
fn ctrl_c_at_a_terminal_while_the_local_model_answers_is_a_cancel() {
    use std::io::Write;
    let model = std::env::var("KEEL_TEST_MODEL").unwrap_or_else(|_| {
        panic!("KEEL_TEST_MODEL is not set: run ./scripts/test, which fetches the model")
    });
    let keel = assert_cmd::cargo::cargo_bin("keel");
    let worker = keel.with_file_name("keel-llm-worker");
    assert!(worker.is_file(), "{} is missing", worker.display());
    let env = Env::new();
    // Long answers, so the Ctrl-C lands while the worker is busy.
    env.user_config("[model]\nthreads = 1\nmax_tokens = 2048\n");
    let inner = format!(
        "{} run 'Write a long story about a lighthouse.' --model local:{model} --approval deny",
        keel.display()
    );
    let mut terminal = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &inner, "/dev/null"])
        .current_dir(env.work())
        .env("KEEL_HOME", env.dir.path().join("home"))
        .env("XDG_CONFIG_HOME", env.dir.path().join("config"))
        .env("KEEL_LLM_WORKER", &worker)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let root = terminal.id() as i32;
    let worker_name = worker.display().to_string();
    let mut worker_stat = String::new();
    let worker_up = eventually(Duration::from_secs(120), || {
        let found = descendants(root)
            .into_iter()
            .find(|p| cmdline(*p).contains(&worker_name));
        if let Some(pid) = found {
            worker_stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        }
        !worker_stat.is_empty()
    });
    // The terminal's Ctrl-C goes to its foreground process group (field 8 of the stat line,
    // tpgid): keel's. The worker must lead a group of its own (field 5, pgrp), out of reach.
    let fields: Vec<String> = worker_stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split(' ').map(str::to_string).collect())
        .unwrap_or_default();
    let (group, foreground) = (fields.get(2).cloned(), fields.get(5).cloned());
    // Past loading: the worker has read the model and is answering.
    std::thread::sleep(Duration::from_millis(1500));
    let mut input = terminal.stdin.take().unwrap_or_else(|| panic!("stdin"));
    input.write_all(b"\x03").unwrap_or_else(|e| panic!("{e}"));
    input.flush().unwrap_or_else(|e| panic!("{e}"));
    let ended = eventually(Duration::from_secs(60), || {
        matches!(terminal.try_wait(), Ok(Some(_)))
    });
    if !ended {
        let _ = terminal.kill();
    }
    let status = terminal.wait().unwrap_or_else(|e| panic!("{e}"));
    drop(input);
    let shown = std::io::read_to_string(terminal.stdout.take().unwrap_or_else(|| panic!("out")))
        .unwrap_or_default();
    assert!(worker_up, "the worker never started: {shown}");
    assert!(group.is_some() && foreground.is_some(), "{worker_stat}");
    assert_ne!(
        group, foreground,
        "the worker is in the terminal's foreground group, where Ctrl-C reaches it"
    );
    assert!(ended, "keel did not end after Ctrl-C: {shown}");
    assert_eq!(status.code(), Some(130), "{shown}");
    assert!(shown.contains("cancelled"), "{shown}");
    assert!(!shown.contains("the model call failed"), "{shown}");
    // The run stays resumable: its turn is open.
    let run = env.only_run();
    assert_eq!(env.show(&run)["run"]["turn_open"], true, "{shown}");
}
