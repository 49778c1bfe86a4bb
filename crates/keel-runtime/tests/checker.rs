//! External checkers as real child processes, with every fault injected (safety.md N5–N8,
//! N40, N43, N45), on short timeouts.

use std::path::Path;
use std::time::{Duration, Instant};

use keel_policy::Decision;
use keel_policy::protocol::{
    CheckContext, Environment, FunctionCall, PROTOCOL_VERSION, SafetyCheckInput,
};
use keel_policy::rules::CheckerVerdict;
use keel_runtime::checker::{CheckerMode, CheckerSpec, PersistentChecker, run_spawn};
// Checkers are written as scripts and run as `/bin/sh SCRIPT` on a generous budget; `short` is
// the budget of a test about timing out, and `direct` tests exec a file itself.
use keel_testkit::{checker_spec as spec, write_script as script};

fn direct(name: &str, program: &Path) -> CheckerSpec {
    let mut s = spec(name, program);
    s.command = vec![program.display().to_string()];
    s
}

fn short(mut s: CheckerSpec) -> CheckerSpec {
    s.timeout = Duration::from_millis(1000);
    s
}

fn input(big: usize) -> SafetyCheckInput {
    SafetyCheckInput {
        protocol_version: PROTOCOL_VERSION.into(),
        tool_call: FunctionCall {
            name: "write_file".into(),
            args: serde_json::json!({"path": "a", "content": "x".repeat(big)}),
            id: Some("c1".into()),
        },
        context: CheckContext {
            environment: Some(Environment {
                cwd: "/tmp".into(),
                workspaces: vec![],
            }),
            history: None,
            keel_tool_results: Vec::new(),
        },
        config: None,
    }
}

fn run(dir: &Path, name: &str, body: &str) -> CheckerVerdict {
    let program = script(dir, name, body);
    run_spawn(&spec(name, &program), &input(10), dir)
}

fn alive(pid: i32) -> bool {
    // A zombie is dead for our purposes; /proc/<pid>/stat's third field is its state.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.split_whitespace().nth(2).is_none_or(|st| st != "Z"))
        .unwrap_or(false)
}

fn assert_deny(v: &CheckerVerdict, kind: &str, reason_start: &str) {
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.failure, Some(kind).filter(|k| !k.is_empty()), "{v:?}");
    let reason = v.reason.clone().unwrap_or_default();
    assert!(
        reason.starts_with(reason_start),
        "{reason:?} should start with {reason_start:?}"
    );
}

#[test]
fn a_good_checker_decides() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let v = run(
        dir.path(),
        "ok",
        "cat >/dev/null; echo '{\"decision\":\"allow\"}'",
    );
    assert_eq!((v.decision, v.failure), (Decision::Allow, None));
    let v = run(
        dir.path(),
        "no",
        "cat >/dev/null; printf '{\"decision\":\"deny\",\"reason\":\"no\"}'",
    );
    assert_eq!(
        (v.decision, v.reason.as_deref(), v.failure),
        (Decision::Deny, Some("no"), None)
    );
    let v = run(
        dir.path(),
        "ask",
        "cat >/dev/null; echo '{\"decision\":\"ask_user\",\"reason\":\"confirm\",\"error\":\"x\"}'",
    );
    assert_eq!(
        (v.decision, v.reason.as_deref()),
        (Decision::AskUser, Some("confirm"))
    );
}

#[test]
fn the_checker_receives_exactly_the_input_and_runs_in_the_session_directory() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let v = run(
        dir.path(),
        "echoer",
        "cat > received.json; pwd > cwd.txt; echo $KEEL_TEST_ENV > env.txt; echo '{\"decision\":\"allow\"}'",
    );
    assert_eq!(v.decision, Decision::Allow);
    let received = std::fs::read_to_string(dir.path().join("received.json")).unwrap_or_default();
    assert_eq!(
        received,
        input(10).to_wire(),
        "no trailing newline, compact"
    );
    let cwd = std::fs::read_to_string(dir.path().join("cwd.txt")).unwrap_or_default();
    assert_eq!(
        Path::new(cwd.trim()).canonicalize().ok(),
        dir.path().canonicalize().ok()
    );
    let program = script(
        dir.path(),
        "env",
        "cat >/dev/null; echo \"{\\\"decision\\\":\\\"deny\\\",\\\"reason\\\":\\\"$KEEL_TEST_ENV\\\"}\"",
    );
    let mut s = spec("env", &program);
    s.env.insert("KEEL_TEST_ENV".into(), "from-config".into());
    assert_eq!(
        run_spawn(&s, &input(1), dir.path()).reason.as_deref(),
        Some("from-config")
    );
}

#[test]
fn every_fault_denies_with_its_own_reason() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let d = dir.path();
    assert_deny(
        &run(d, "crash", "cat >/dev/null; kill -SEGV $$"),
        "signal",
        "Safety checker \"crash\" terminated by signal SIGSEGV",
    );
    assert_deny(
        &run(d, "killed", "cat >/dev/null; kill -9 $$"),
        "signal",
        "Safety checker \"killed\" terminated by signal SIGKILL",
    );
    assert_deny(
        &run(
            d,
            "boom",
            "cat >/dev/null; echo '{\"decision\":\"allow\"}'; echo boom >&2; exit 1",
        ),
        "exit",
        "Safety checker \"boom\" exited with code 1: boom",
    );
    let v = run(d, "quiet", "cat >/dev/null; exit 2");
    assert_deny(&v, "exit", "Safety checker \"quiet\" exited with code 2");
    assert_eq!(
        v.reason.as_deref(),
        Some("Safety checker \"quiet\" exited with code 2"),
        "no colon without stderr"
    );
    assert_deny(
        &run(
            d,
            "two",
            "cat >/dev/null; echo '{\"decision\":\"allow\"}{\"decision\":\"allow\"}'",
        ),
        "invalid_output",
        "Failed to parse output from safety checker \"two\": ",
    );
    assert_deny(
        &run(
            d,
            "empty-reason",
            "cat >/dev/null; echo '{\"decision\":\"deny\",\"reason\":\"\"}'",
        ),
        "invalid_output",
        "Failed to parse output from safety checker \"empty-reason\"",
    );
    assert_deny(
        &run(
            d,
            "chatty",
            "cat >/dev/null; echo starting; echo '{\"decision\":\"allow\"}'",
        ),
        "invalid_output",
        "Failed to parse output",
    );
    assert_deny(
        &run(
            d,
            "flood",
            "cat >/dev/null; head -c 10485760 /dev/zero | tr '\\000' a",
        ),
        "output_limit",
        "Safety checker \"flood\" produced more than 1 MiB of output",
    );
    let missing = run_spawn(&direct("missing", &d.join("does-not-exist")), &input(1), d);
    assert_deny(
        &missing,
        "spawn",
        "Failed to spawn safety checker \"missing\": ",
    );
    let not_exec = d.join("not-exec");
    std::fs::write(&not_exec, "#!/bin/sh\necho '{\"decision\":\"allow\"}'\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_deny(
        &run_spawn(&direct("not-exec", &not_exec), &input(1), d),
        "spawn",
        "Failed to spawn safety checker \"not-exec\": ",
    );
    let long_stderr = run(
        d,
        "loud",
        "cat >/dev/null; head -c 5000 /dev/zero | tr '\\000' e >&2; printf 'END' >&2; exit 3",
    );
    let reason = long_stderr.reason.unwrap_or_default();
    assert!(reason.ends_with("eeeEND"), "keeps the tail");
    assert_eq!(
        reason.chars().count(),
        "Safety checker \"loud\" exited with code 3: "
            .chars()
            .count()
            + 1000
    );
}

#[test]
fn stdin_closed_early_is_its_own_failure() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let program = script(
        dir.path(),
        "closer",
        "exec 0<&-; echo '{\"decision\":\"allow\"}'; sleep 0.1",
    );
    let v = run_spawn(&spec("closer", &program), &input(200 * 1024), dir.path());
    assert_deny(
        &v,
        "stdin",
        "Failed to write to stdin of safety checker \"closer\": ",
    );
}

#[test]
fn a_checker_that_hangs_times_out_and_its_whole_group_is_killed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // It starts a grandchild, records its pid, ignores SIGTERM and never answers.
    let body = "trap '' TERM; sleep 1000 & echo $! > grandchild.pid; cat >/dev/null; sleep 1000";
    let program = script(dir.path(), "hang", body);
    let start = Instant::now();
    let v = run_spawn(&short(spec("hang", &program)), &input(1), dir.path());
    assert_deny(
        &v,
        "timeout",
        "Safety checker \"hang\" timed out after 1000ms",
    );
    assert!(start.elapsed() < Duration::from_secs(10), "gave up in time");
    let pid: i32 = std::fs::read_to_string(dir.path().join("grandchild.pid"))
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(pid > 0);
    // SIGKILL has been sent to the group when the check returns; the kernel ends the process
    // when it next runs, which a loaded machine may delay a little.
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid), "a child of the checker outlived the check");
}

#[test]
fn output_after_the_timeout_is_ignored() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let program = script(
        dir.path(),
        "late",
        "cat >/dev/null; sleep 4; echo '{\"decision\":\"allow\"}'",
    );
    let v = run_spawn(&short(spec("late", &program)), &input(10), dir.path());
    assert_deny(&v, "timeout", "Safety checker \"late\" timed out");
}

/// The defaults the spec fixes, which it asks one unit test to assert (safety.md N45): a
/// checker's budget is 30 000 ms (N7, N37), SIGKILL follows SIGTERM 5 s later (N7), and a
/// registered checker is spawned per call unless it says `mode = "persistent"` (N38).
#[test]
fn defaults() {
    let s = CheckerSpec::new("x", vec!["x".into()]);
    assert_eq!(s.timeout, Duration::from_millis(30_000));
    assert_eq!(s.kill_grace, Duration::from_secs(5));
    assert_eq!(s.mode, CheckerMode::Spawn);
}

fn persistent(dir: &Path, name: &str, body: &str) -> PersistentChecker {
    let program = script(dir, name, body);
    // "slow" is the one that must time out.
    let mut s = if name == "slow" {
        short(spec(name, &program))
    } else {
        spec(name, &program)
    };
    s.mode = CheckerMode::Persistent;
    PersistentChecker::new(s, dir.to_path_buf())
}

#[test]
fn a_persistent_checker_answers_line_by_line_from_one_process() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let body = "echo $$ >> pids; while IFS= read -r line; do case \"$line\" in *evil*) echo '{\"decision\":\"deny\",\"reason\":\"evil\"}';; *) echo '{\"decision\":\"allow\"}';; esac; done";
    let c = persistent(dir.path(), "lines", body);
    for _ in 0..5 {
        assert_eq!(c.check(&input(3)).decision, Decision::Allow);
    }
    let mut evil = input(1);
    evil.tool_call.args = serde_json::json!({"path": "evil"});
    assert_eq!(c.check(&evil).reason.as_deref(), Some("evil"));
    let pids = std::fs::read_to_string(dir.path().join("pids")).unwrap_or_default();
    assert_eq!(pids.lines().count(), 1, "one process served every check");
}

#[test]
fn a_persistent_checker_is_restarted_after_a_crash() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Answers one request, then dies.
    let c = persistent(
        dir.path(),
        "once",
        "echo $$ >> pids; IFS= read -r line; echo '{\"decision\":\"allow\"}'; exit 0",
    );
    assert_eq!(c.check(&input(1)).decision, Decision::Allow);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        c.check(&input(1)).decision,
        Decision::Allow,
        "restarted transparently"
    );
    let pids = std::fs::read_to_string(dir.path().join("pids")).unwrap_or_default();
    assert_eq!(pids.lines().count(), 2);
}

#[test]
fn a_persistent_checker_fails_closed_and_recovers() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let c = persistent(
        dir.path(),
        "slow",
        "while IFS= read -r line; do case \"$line\" in *slow*) sleep 5;; esac; echo '{\"decision\":\"allow\"}'; done",
    );
    let mut slow = input(1);
    slow.tool_call.args = serde_json::json!({"path": "slow"});
    assert_deny(
        &c.check(&slow),
        "timeout",
        "Safety checker \"slow\" timed out after 1000ms",
    );
    assert_eq!(
        c.check(&input(1)).decision,
        Decision::Allow,
        "a fresh process after the timeout"
    );
    let bad = persistent(
        dir.path(),
        "garbage",
        "while IFS= read -r line; do echo 'not json'; done",
    );
    assert_deny(
        &bad.check(&input(1)),
        "invalid_output",
        "Failed to parse output from safety checker \"garbage\"",
    );
    let dies = persistent(
        dir.path(),
        "dies",
        "IFS= read -r line; echo oops >&2; exit 4",
    );
    assert_deny(
        &dies.check(&input(1)),
        "exit",
        "Safety checker \"dies\" exited with code 4: oops",
    );
    let missing = PersistentChecker::new(
        direct("gone", &dir.path().join("gone")),
        dir.path().to_path_buf(),
    );
    assert_deny(
        &missing.check(&input(1)),
        "spawn",
        "Failed to spawn safety checker \"gone\"",
    );
}

#[test]
fn a_persistent_checker_that_answers_twice_is_replaced_not_believed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let body = "while IFS= read -r line; do case \"$line\" in *evil*) echo '{\"decision\":\"deny\",\"reason\":\"evil\"}';; *) echo '{\"decision\":\"allow\"}'; echo '{\"decision\":\"allow\"}';; esac; done";
    let c = persistent(dir.path(), "chatty", body);
    assert_eq!(c.check(&input(1)).decision, Decision::Allow);
    std::thread::sleep(Duration::from_millis(100));
    let mut evil = input(1);
    evil.tool_call.args = serde_json::json!({"path": "evil"});
    let v = c.check(&evil);
    assert_eq!(
        (v.decision, v.reason.as_deref()),
        (Decision::Deny, Some("evil")),
        "a stale allow was used: {v:?}"
    );
}

#[test]
fn faults_found_in_review_fail_closed_within_the_budget() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let d = dir.path();
    // Exits 2 without reading a large input: an exit, not a broken pipe.
    let quits = script(d, "quits", "exit 2");
    assert_deny(
        &run_spawn(&spec("quits", &quits), &input(200 * 1024), d),
        "exit",
        "Safety checker \"quits\" exited with code 2",
    );
    // A background child keeps stderr open: the answer still comes within the budget.
    let lingering = script(
        d,
        "lingering",
        "sleep 30 >/dev/null & cat >/dev/null; echo '{\"decision\":\"allow\"}'",
    );
    let start = Instant::now();
    let v = run_spawn(&short(spec("lingering", &lingering)), &input(1), d);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // Persistent: never reads stdin, and the input is larger than a pipe holds.
    let mut sleeper = short(direct("sleeper", Path::new("/bin/sleep")));
    sleeper.command.push("1000".into());
    sleeper.mode = CheckerMode::Persistent;
    let c = PersistentChecker::new(sleeper, d.to_path_buf());
    let start = Instant::now();
    assert_deny(
        &c.check(&input(300 * 1024)),
        "timeout",
        "Safety checker \"sleeper\" timed out after 1000ms",
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // Persistent: an answer line over 1 MiB.
    let huge = persistent(
        d,
        "huge",
        "while IFS= read -r line; do head -c 1050000 /dev/zero | tr '\\000' ' '; echo '{\"decision\":\"allow\"}'; done",
    );
    assert_deny(
        &huge.check(&input(1)),
        "output_limit",
        "Safety checker \"huge\" produced more than 1 MiB of output",
    );
    // Persistent: allow, then exit 1 at once.
    let flaky = persistent(
        d,
        "flaky",
        "IFS= read -r line; echo '{\"decision\":\"allow\"}'; echo boom >&2; exit 1",
    );
    let v = flaky.check(&input(1));
    // The exit may not have happened yet when the answer is read; if it has, it is a deny.
    if v.decision != Decision::Allow {
        assert_deny(&v, "exit", "Safety checker \"flaky\" exited with code 1");
    }
}
