//! The reaper with real processes: a holder process (this test binary, re-run in the role
//! `holder`) starts process groups, and is killed with SIGKILL; its groups must die with it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

const ROLE: &str = "KEEL_REAPER_TEST_ROLE";

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

/// The process exists and is not a zombie.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// Waits (bounded) for the group to be gone; true if it went.
fn gone_within(pgid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Starts this binary as a holder with `role`, and reads the pgids it reports ("pgid N"), up to
/// its line "ready".
/// The holder is waited for by the test that started it (`kill_holder`, or `wait`).
#[allow(clippy::zombie_processes)]
fn start_holder(role: &str) -> (std::process::Child, Vec<i32>, Option<i32>) {
    let mut child = Command::new(std::env::current_exe().unwrap_or_else(|e| panic!("{e}")))
        .args([
            "--exact",
            "holder",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut groups = Vec::new();
    let mut reaper = None;
    let out = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout")));
    for line in out.lines() {
        let line = line.unwrap_or_else(|e| panic!("{e}"));
        // libtest's "test holder ... " may open the first line.
        if let Some((_, n)) = line.rsplit_once("pgid ") {
            groups.push(n.trim().parse().unwrap_or_else(|e| panic!("{e}")));
        }
        if let Some((_, n)) = line.rsplit_once("reaper ") {
            reaper = Some(n.trim().parse().unwrap_or_else(|e| panic!("{e}")));
        }
        if line.trim().ends_with("ready") {
            return (child, groups, reaper);
        }
    }
    panic!("the holder ended before it was ready");
}

fn start_group(script: &str) -> (std::process::Child, keel_reaper::Watch) {
    keel_reaper::spawn(
        Command::new("/bin/sh")
            .arg("-c")
            .arg(script)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Not a test on its own: the holder process the tests start.
#[test]
#[ignore = "run by the other tests as a child process"]
fn holder() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let mut kept = Vec::new();
    match role.as_str() {
        "kill-me" => {
            // A background grandchild too: the parent-death signal would miss it.
            kept.push(start_group("sleep 30 & sleep 30"));
        }
        "released" => {
            let (child, watch) = start_group("sleep 30");
            println!("pgid {}", child.id());
            println!("reaper {}", keel_reaper::reaper_pid().unwrap());
            drop(watch);
            println!("ready");
            return;
        }
        "reaper-dies" => {
            kept.push(start_group("sleep 30"));
            let reaper = keel_reaper::reaper_pid().unwrap();
            kill(Pid::from_raw(reaper as i32), Signal::SIGKILL).unwrap();
            // Once it has died (a zombie until this process reaps it), the next registration
            // starts a new reaper, which hears about both groups.
            let start = Instant::now();
            while running(reaper as i32) && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(10));
            }
            kept.push(start_group("sleep 30"));
            assert_ne!(keel_reaper::reaper_pid(), Some(reaper), "no new reaper");
        }
        other => panic!("unknown role {other}"),
    }
    for (child, _) in &kept {
        println!("pgid {}", child.id());
    }
    println!("ready");
    std::thread::sleep(Duration::from_secs(60));
}

fn kill_holder(mut child: std::process::Child) {
    kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL).unwrap_or_else(|e| panic!("{e}"));
    child.wait().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_killed_keel_takes_its_groups_and_their_background_children_with_it() {
    let (child, groups, _) = start_holder("kill-me");
    assert_eq!(groups.len(), 1);
    assert!(
        group_alive(groups[0]),
        "the group runs while its holder lives"
    );
    kill_holder(child);
    assert!(
        gone_within(groups[0], Duration::from_secs(10)),
        "group {} outlived its SIGKILLed holder",
        groups[0]
    );
}

#[test]
fn a_released_group_is_not_killed_when_its_holder_exits() {
    let (mut child, groups, reaper) = start_holder("released");
    child.wait().unwrap();
    let pgid = groups[0];
    // Once the reaper has read end of input and ended, a group it was told to forget must live.
    let reaper = reaper.unwrap();
    let start = Instant::now();
    while running(reaper) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(reaper), "the reaper did not end with its holder");
    let alive = group_alive(pgid);
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    assert!(alive, "a group whose Watch was dropped was killed anyway");
}

#[test]
fn a_reaper_that_died_is_replaced_and_told_every_live_group() {
    let (child, groups, _) = start_holder("reaper-dies");
    assert!(groups.len() >= 2, "{groups:?}");
    kill_holder(child);
    for pgid in groups {
        assert!(
            gone_within(pgid, Duration::from_secs(10)),
            "group {pgid} outlived its holder after the reaper was replaced"
        );
    }
}
