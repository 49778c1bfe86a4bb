//! What keel reads back that it or another program wrote: a stored item body with its envelope
//! line (keel-core's `item::decode_body`, run on every item a store loads), a `--history`
//! JSONL file (keel-store's `CallerMessage::from_json_line` and the N13 role check), an
//! imported message list with legacy system messages (`legacy::migrate_legacy_system_messages`),
//! and a notification payload (`keel notify`'s stdin) or tool output stored and loaded again.
//!
//! Beyond never panicking: a body keel reads is written back as a line that reads back as the
//! same body, byte-stable from then on; a history with a `system` line is refused; the legacy
//! migration leaves no system message and, run again, changes nothing (N14); and whatever a
//! payload, a tool's output or the user's words (as language samples) hold, the item keel
//! stores for them loads back as the same item (a load refuses a line it would not write).
#![no_main]

use keel_core::envelope::{Lang, NotificationEnvelope, NotificationKind, NotificationLanguage};
use keel_core::item::{decode_body, encode_body};
use keel_core::legacy::{CallerField, check_caller_roles, migrate_legacy_system_messages};
use keel_core::{ItemBody, SystemNotes, Untrusted};
use keel_store::CallerMessage;
use libfuzzer_sys::fuzz_target;

mod common;
use common::same_json;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(body) = decode_body(text) {
        let line = encode_body(&body);
        match decode_body(&line) {
            Ok(back) if back == body => assert_eq!(encode_body(&back), line),
            // A float in a call's arguments may move by an ulp (`common::same_json`).
            Ok(back) => {
                let again = encode_body(&back);
                let value = |l: &str| serde_json::from_str::<Value>(l).unwrap_or_default();
                assert!(
                    same_json(&value(&again), &value(&line)),
                    "{line} -> {again}"
                );
            }
            Err(e) => panic!("{text:?} was read, but its stored line {line:?} is not: {e}"),
        }
    }
    let history: Result<Vec<CallerMessage>, _> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| CallerMessage::from_json_line(l, i))
        .collect();
    if let Ok(messages) = history {
        let checked = check_caller_roles(
            CallerField::SeedMessages,
            messages.iter().map(|m| m.role.as_str()),
        );
        assert_eq!(
            checked.is_err(),
            messages.iter().any(|m| m.role == "system")
        );
    }
    if let Ok(Value::Array(mut messages)) = serde_json::from_str::<Value>(text) {
        let mut notes = SystemNotes::new();
        let had_system = messages.iter().any(|m| m["role"] == "system");
        assert_eq!(
            migrate_legacy_system_messages(&mut messages, &mut notes),
            had_system
        );
        assert!(messages.iter().all(|m| m["role"] != "system"));
        let (after, notes_after) = (messages.clone(), format!("{notes:?}"));
        assert!(!migrate_legacy_system_messages(&mut messages, &mut notes));
        assert_eq!(messages, after);
        assert_eq!(
            format!("{notes:?}"),
            notes_after,
            "a second migration changed the notes"
        );
    }
    let samples: Vec<String> = text.lines().take(4).map(String::from).collect();
    let language = NotificationLanguage {
        fallback: Lang::En,
        output: None,
        samples: Some(samples),
    };
    let kind = NotificationKind::ALL[text.len() % NotificationKind::ALL.len()];
    for body in [
        ItemBody::Notification {
            envelope: NotificationEnvelope::new(
                "n1",
                kind,
                Untrusted::new(text.to_string()),
                Some(&language),
            ),
            merged_with_user: text.len() % 2 == 0,
        },
        ItemBody::ToolResult {
            call_id: "c1".into(),
            tool: "shell".into(),
            output: Untrusted::new(text.to_string()),
            is_error: false,
        },
        ItemBody::User { text: text.into() },
        ItemBody::Withdrawal {
            from_seq: text.len() as u64,
            reason: text.into(),
        },
    ] {
        let line = encode_body(&body);
        match decode_body(&line) {
            Ok(back) => assert_eq!(back, body, "{line}"),
            Err(e) => panic!("keel stores {line:?} but cannot load it: {e}"),
        }
    }
});
