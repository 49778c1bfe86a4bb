//! Checker output and input (safety.md N1–N3, N39): an external checker's whole stdout, as
//! keel-runtime's checker runner hands it to keel-policy's `protocol::parse_result`, and the
//! `SafetyCheckInput` that `keel check` reads from another agent.
//!
//! Beyond never panicking: a result keel accepts is allow, or deny/ask_user with a non-blank
//! reason (never fail-open on garbage), and reads back the same from the line keel would print
//! for it (`to_wire`); an input reads back the same from its wire form (floats to within an ulp: see
//! `common::same_json`).
#![no_main]

use keel_policy::Decision;
use keel_policy::protocol::{SafetyCheckInput, parse_result};
use libfuzzer_sys::fuzz_target;

mod common;
use common::same_json;

fuzz_target!(|data: &[u8]| {
    if let Ok(result) = parse_result(data) {
        if result.decision != Decision::Allow {
            assert!(
                result
                    .reason
                    .as_deref()
                    .is_some_and(|r| !keel_core::text::is_blank(r)),
                "{result:?} from {data:?}"
            );
        }
        let wire = result.to_wire();
        assert_eq!(parse_result(wire.as_bytes()), Ok(result), "{wire}");
    }
    if let Ok(input) = serde_json::from_slice::<SafetyCheckInput>(data) {
        let wire = input.to_wire();
        assert!(!wire.is_empty(), "an input always has a wire form");
        let back: SafetyCheckInput = match serde_json::from_str(&wire) {
            Ok(back) => back,
            Err(e) => panic!("{wire} does not read back: {e}"),
        };
        let value = |i: &SafetyCheckInput| serde_json::to_value(i).unwrap_or_default();
        assert!(
            same_json(&value(&back), &value(&input)),
            "{wire} reads back as {}",
            back.to_wire()
        );
    }
});
