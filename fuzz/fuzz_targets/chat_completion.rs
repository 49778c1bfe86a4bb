//! A Chat Completions reply that is not streamed (keel-model's `openai::parse_completion`):
//! the JSON body a server answers with, into the reply the turn loop records as the model's
//! turn (its text and the tool calls it proposes).
//!
//! Beyond never panicking: the text shown is the reply's text; every proposed call has a name
//! and an id; and the reply depends on the JSON value, not on how it is written.
#![no_main]

use keel_model::openai::parse_completion;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let mut shown = String::new();
    let reply = parse_completion(body, &mut |t| shown.push_str(t), "http://fuzz");
    let Ok(reply) = reply else {
        return;
    };
    assert_eq!(reply.text, shown);
    for call in &reply.tool_calls {
        assert!(!call.name.is_empty() && !call.id.is_empty(), "{call:?}");
    }
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        panic!("a reply was read from a body that is not JSON: {body:?}");
    };
    let Ok(pretty) = serde_json::to_string_pretty(&value) else {
        return;
    };
    if serde_json::from_str::<Value>(&pretty).ok().as_ref() == Some(&value) {
        let again = parse_completion(&pretty, &mut |_| {}, "http://fuzz");
        assert_eq!(again.ok().as_ref(), Some(&reply), "{pretty}");
    }
});
