//! A minimal external safety checker, for benchmarks and as an example of the protocol
//! (safety.md N1–N4). It denies a call whose arguments mention `/etc/`, else allows.
//!
//! `keel-example-checker` reads one SafetyCheckInput on stdin and prints one result (spawn
//! mode); `keel-example-checker --persistent` answers one JSON line per input line
//! (keel's `mode = "persistent"`).

use std::io::{BufRead, Read, Write};

fn decide(input: &str) -> String {
    let value: serde_json::Value = match serde_json::from_str(input) {
        Ok(v) => v,
        Err(e) => {
            return serde_json::json!({"decision": "deny", "reason": format!("unreadable input: {e}")})
                .to_string();
        }
    };
    let args = value["toolCall"]["args"].to_string();
    if args.contains("/etc/") {
        serde_json::json!({"decision": "deny", "reason": "touches /etc"}).to_string()
    } else {
        "{\"decision\":\"allow\"}".to_string()
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    if std::env::args().any(|a| a == "--persistent") {
        for line in stdin.lock().lines() {
            let Ok(line) = line else { return };
            if writeln!(stdout, "{}", decide(&line))
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return;
            }
        }
        return;
    }
    let mut input = String::new();
    if stdin.lock().read_to_string(&mut input).is_ok() {
        let _ = writeln!(stdout, "{}", decide(&input));
    }
}
