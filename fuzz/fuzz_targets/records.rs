//! Records (JSON and YAML): a structured tool result as provenance reads it for the records a
//! user names (keel-policy's `records`). The input is `TEXT`, optionally followed by
//! `\0USER WORDS\0ARGUMENT KEY\0ARGUMENT VALUE (JSON)`.
//!
//! Beyond never panicking, never recursing without bound and never expanding aliases (each a
//! crash or a timeout): no record has an empty or repeated key; JSON is read as serde_json
//! reads it (the same records, the same keys, the same strings; numbers aside) whenever keel
//! finds records in it; and a field is only ever vouched for under a key its record has.
#![no_main]

use keel_policy::records::{named_field_in, record_fields};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn folded(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

type Fields = Vec<(String, Option<String>)>;

/// What keel should read from a JSON document: its top-level records (the root object, the
/// objects of the root array, and those of an array directly under the root object), each
/// with its string and boolean fields, and the keys of its number fields apart: keel keeps
/// `1e2` as text and an integer too long for an i128 not at all, where serde_json has numbers.
fn expected(value: &Value) -> Vec<(Fields, Vec<String>)> {
    fn fields(map: &serde_json::Map<String, Value>) -> (Fields, Vec<String>) {
        let mut fields = Vec::new();
        let mut numbers = Vec::new();
        for (k, v) in map {
            match v {
                Value::String(s) => fields.push((folded(k), Some(s.clone()))),
                Value::Bool(_) => fields.push((folded(k), None)),
                Value::Number(_) => numbers.push(folded(k)),
                _ => {}
            }
        }
        (fields, numbers)
    }
    let mut out = Vec::new();
    match value {
        Value::Object(root) => {
            for v in root.values() {
                if let Value::Array(items) = v {
                    out.extend(items.iter().filter_map(Value::as_object).map(fields));
                }
            }
            out.push(fields(root));
        }
        Value::Array(items) => out.extend(items.iter().filter_map(Value::as_object).map(fields)),
        _ => {}
    }
    out
}

fn matches(ours: &Fields, (want, numbers): &(Fields, Vec<String>)) -> bool {
    let rest: Fields = ours
        .iter()
        .filter(|(k, _)| !numbers.contains(k))
        .cloned()
        .collect();
    rest == *want
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = input.split('\0');
    let text = parts.next().unwrap_or_default();
    let records = record_fields(text);
    for record in &records {
        let mut keys: Vec<&str> = record.iter().map(|(k, _)| k.as_str()).collect();
        assert!(keys.iter().all(|k| !k.is_empty()), "{record:?}");
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), record.len(), "a repeated key in {record:?}");
    }
    if !records.is_empty()
        && let Ok(value) = serde_json::from_str::<Value>(text)
    {
        let want = expected(&value);
        assert_eq!(
            records.len(),
            want.len(),
            "records of {text:?}: {records:?}"
        );
        // The same records, in any order.
        let mut unmatched: Vec<&Fields> = records.iter().collect();
        for w in &want {
            match unmatched.iter().position(|r| matches(r, w)) {
                Some(at) => {
                    unmatched.remove(at);
                }
                None => panic!("{text:?}: serde_json's record {w:?} is not in {records:?}"),
            }
        }
    }
    let users = parts
        .next()
        .unwrap_or("Please pay ACME-2023 what they asked for");
    let key = parts.next().unwrap_or("amount");
    let value = parts
        .next()
        .and_then(|v| serde_json::from_str::<Value>(v).ok())
        .unwrap_or(Value::from(42));
    if let Some(how) = named_field_in(text, &[users], key, &value) {
        let key = folded(key);
        assert!(
            records.iter().any(|r| r.iter().any(|(k, _)| *k == key)),
            "{how}: no record of {text:?} has the key {key:?}"
        );
    }
});
