//! The worker protocol (keel-worker-protocol): the JSON lines keel and keel-llm-worker speak,
//! both directions — the worker reads a `Request`; keel reads the first line as `Started`,
//! each answer as `Response`, and the answer's text as the model's reply (keel-model's
//! `local::parse_output`).
//!
//! Beyond never panicking: every line either side accepts is written back by the other side's
//! serializer as a line that reads back as the same value; a finished answer is read only when it
//! is JSON, and an answer cut off mid-way never becomes a call.
#![no_main]

use keel_model::local::parse_output;
use keel_worker_protocol::{Request, Response, Started};
use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(line: &[u8]) {
    let Ok(value) = serde_json::from_slice::<T>(line) else {
        return;
    };
    let written = match serde_json::to_string(&value) {
        Ok(w) => w,
        Err(e) => panic!("{value:?} cannot be written: {e}"),
    };
    assert!(!written.contains('\n'), "one line: {written:?}");
    match serde_json::from_str::<T>(&written) {
        Ok(back) => assert_eq!(back, value, "{written}"),
        Err(e) => panic!("{written} does not read back: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<Request>(data);
    round_trip::<Started>(data);
    round_trip::<Response>(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if parse_output(text, true, 512).is_ok() {
        assert!(
            serde_json::from_str::<serde_json::Value>(text.trim()).is_ok(),
            "a finished answer that is not JSON was read: {text:?}"
        );
    }
    if let Ok(reply) = parse_output(text, false, 512) {
        // Cut off mid-answer: a reply may be kept, a call never guessed.
        let whole = serde_json::from_str::<serde_json::Value>(text.trim()).is_ok();
        assert!(whole || reply.tool_calls.is_empty(), "{text:?}: {reply:?}");
    }
});
