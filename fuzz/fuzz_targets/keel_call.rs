//! `keel call FUNCTION` (interfaces.md §1): the JSON object a program not written in Rust sends
//! on stdin. The input is `FUNCTION\nSTDIN`; the target runs keel-cli's own `call` module (the
//! binary's source, compiled in here: it depends on keel-core and keel-computer alone).
//!
//! Beyond never panicking: every outcome has the contract's shape (exit 0 with one JSON value
//! and LF on stdout and nothing on stderr; exit 1 with `{"error"}`, exit 2 with
//! `{"error","field"}` on stderr and nothing on stdout); a call is a pure function (the same
//! input gives the same outcome); and what a call does depends on the JSON value alone, not on
//! how it is written (compact or pretty, the same outcome).
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/keel-cli/src/call/mod.rs"]
mod call;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn check_shape(name: &str, outcome: &call::CallOutcome) {
    let one_line = |text: &str| -> Value {
        let body = text
            .strip_suffix('\n')
            .unwrap_or_else(|| panic!("{name}: {text:?} does not end with LF"));
        assert!(!body.contains('\n'), "{name}: {text:?} is more than a line");
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{name}: {body:?} is not JSON: {e}"))
    };
    match outcome.code {
        0 => {
            assert!(outcome.stderr.is_empty(), "{name}: {outcome:?}");
            one_line(&outcome.stdout);
        }
        1 | 2 => {
            assert!(outcome.stdout.is_empty(), "{name}: {outcome:?}");
            let error = one_line(&outcome.stderr);
            assert!(error["error"].is_string(), "{name}: {outcome:?}");
            assert_eq!(
                error.get("field").is_some_and(Value::is_string),
                outcome.code == 2,
                "{name}: {outcome:?}"
            );
        }
        _ => panic!("{name}: exit {}", outcome.code),
    }
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(name) = std::str::from_utf8(&data[..split]) else {
        return;
    };
    let stdin = data.get(split + 1..).unwrap_or_default();
    let outcome = call::call(name, stdin);
    check_shape(name, &outcome);
    assert_eq!(
        outcome,
        call::call(name, stdin),
        "{name}: not deterministic"
    );
    if let Ok(value) = serde_json::from_slice::<Value>(stdin) {
        for written in [
            serde_json::to_string(&value),
            serde_json::to_string_pretty(&value),
        ]
        .into_iter()
        .flatten()
        {
            // Only a value serde_json writes back as itself: its float parsing is not exact.
            if serde_json::from_str::<Value>(&written).ok().as_ref() != Some(&value) {
                continue;
            }
            assert_eq!(
                call::call(name, written.as_bytes()),
                outcome,
                "{name}: the same value written as {written:?}"
            );
        }
    }
});
