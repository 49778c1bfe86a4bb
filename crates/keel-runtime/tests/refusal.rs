//! A reply the provider reports as a refusal: the turn ends, none of the reply's calls runs,
//! and the turn — from the user's words on — is withdrawn from every later request while the
//! store keeps it, marked with the reason.

use keel_core::compose::{ChatMessage, Role};
use keel_core::item::ItemBody;
use keel_model::scripted::ScriptedModel;
use keel_model::{ModelReply, Refusal};
use keel_runtime::agent::{Event, LoopSettings, REFUSED_REPLY_CALL};
use keel_store::{LedgerStore, RunStore};
use serde_json::json;

use crate::common;
use common::*;

fn refusal(text: &str, calls: &[(&str, serde_json::Value)]) -> ModelReply {
    ModelReply {
        refusal: Some(Refusal::Message(text.into())),
        ..reply("", calls)
    }
}

fn said(messages: &[ChatMessage]) -> Vec<(Role, String)> {
    messages[1..]
        .iter()
        .map(|m| (m.role, m.content.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn a_refused_turn_ends_runs_none_of_its_calls_and_is_left_out_of_later_requests() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("first answer", &[]),
            reply(
                "",
                &[("write_file", json!({"path": "ran.txt", "content": "1"}))],
            ),
            refusal(
                "I can't help with that.",
                &[("write_file", json!({"path": "refused.txt", "content": "2"}))],
            ),
            reply("third answer", &[]),
        ],
    );
    let (first, second, third) =
        with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
            let first = a.user_turn("r", "first task");
            let second = a.user_turn("r", "the refused task");
            let third = a.user_turn("r", "third task");
            (first, second, third)
        });
    let (_, second, third) = (
        first.unwrap_or_else(|e| panic!("{e}")),
        second.unwrap_or_else(|e| panic!("{e}")),
        third.unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!(
        second.refusal.as_deref(),
        Some("the model refused: I can't help with that.")
    );
    assert_eq!((second.steps, second.hit_step_limit), (2, false));
    assert_eq!(third.refusal, None);
    // The call before the refusal ran; the refusal's own call did not.
    assert!(w.cwd.join("ran.txt").exists());
    assert!(!w.cwd.join("refused.txt").exists());
    assert_eq!(w.store.ledger("r").unwrap_or_default().len(), 1);

    // The next request holds the first turn and the third, nothing of the second.
    let (next, _) = &model.requests[3];
    assert_eq!(
        said(&next.messages),
        [
            (Role::User, "first task".to_string()),
            (Role::Assistant, "first answer".to_string()),
            (Role::User, "third task".to_string()),
        ]
    );
    assert_well_formed(&model);

    // The store keeps the turn whole, closed, with the marker and its reason.
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert!(!record.head.turn_open);
    let opened = record
        .items
        .iter()
        .find(|i| matches!(&i.body, ItemBody::User { text } if text == "the refused task"))
        .map(|i| i.seq);
    let marker = record.items.iter().find_map(|i| match &i.body {
        ItemBody::Withdrawal { from_seq, reason } => Some((*from_seq, reason.clone(), i.seq)),
        _ => None,
    });
    let Some((from_seq, reason, marker_seq)) = marker else {
        panic!("no withdrawal in {:?}", record.items);
    };
    assert_eq!(Some(from_seq), opened);
    assert_eq!(reason, "the model refused: I can't help with that.");
    let refused_answer = record.items.iter().find_map(|i| match &i.body {
        ItemBody::ToolResult {
            output, is_error, ..
        } if i.seq > from_seq && i.seq < marker_seq && *is_error => {
            Some(keel_core::envelope::tool_message(output).into_owned())
        }
        _ => None,
    });
    assert_eq!(refused_answer.as_deref(), Some(REFUSED_REPLY_CALL));
    // The person is told, in one notice.
    let notices: Vec<&String> = w
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Notice(n) if n.contains("left out of the model's next context") => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 1, "{:?}", w.events);
    assert!(
        notices[0].starts_with("the model refused: I can't help with that.")
            && notices[0].contains("the call in its reply was not run"),
        "{}",
        notices[0]
    );
}

/// The withdrawal is the store's, not the agent's memory: an agent started afresh on the run
/// (a restart) composes without the turn too, and a content-filter stop withdraws a turn the
/// same way.
#[test]
fn a_withdrawal_holds_for_a_fresh_agent_and_the_content_filter_withdraws_too() {
    let mut w = world(&[], false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![ModelReply {
            refusal: Some(Refusal::ContentFilter),
            ..reply("Here is how to", &[])
        }],
    );
    let end = with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "a filtered request")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        end.refusal.as_deref(),
        Some("the provider's content filter stopped the model's reply")
    );
    assert_eq!(end.final_text, "Here is how to");
    let mut fresh = ScriptedModel::from_replies("s", vec![reply("hello", &[])]);
    with_agent(&mut w, &mut fresh, None, LoopSettings::default(), |a| {
        a.user_turn("r", "hello again")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        said(&fresh.requests[0].0.messages),
        [(Role::User, "hello again".to_string())]
    );
    let kinds: Vec<&str> = w
        .store
        .load_run("r")
        .unwrap_or_else(|e| panic!("{e}"))
        .items
        .iter()
        .map(|i| i.body.kind_name())
        .collect();
    assert_eq!(
        kinds,
        ["user", "assistant", "withdrawal", "user", "assistant"]
    );
}

/// A tool that deletes: a call to it needs the user's own words to ask for a deletion (action
/// authority). It counts the calls that reached it.
struct DeleteRecord(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl keel_runtime::tools::Tool for DeleteRecord {
    fn spec(&self) -> keel_model::ToolSpec {
        keel_model::ToolSpec {
            name: "delete_record".into(),
            description: "Delete one record.".into(),
            parameters: json!({"type": "object", "properties": {"id": {"type": "string"}}}),
        }
    }
    fn annotations(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
    fn call(
        &self,
        _args: &serde_json::Value,
        _ctx: &keel_runtime::tools::ToolContext,
    ) -> keel_runtime::tools::ToolOutput {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        keel_runtime::tools::ToolOutput::ok("deleted")
    }
}

/// Runs "delete record 7" as the first turn — answered, or refused by the model — then a turn
/// that asks for nothing, in which the model deletes record 7; how many deletions ran.
fn deletions_after(first_reply: ModelReply) -> usize {
    let mut w = world(&[], false);
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    w.tools.add(Box::new(DeleteRecord(count.clone())));
    w.regate(policy(&[]), false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            first_reply,
            reply("", &[("delete_record", json!({"id": "7"}))]),
            reply("ok", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "Please delete record 7.")?;
        a.user_turn("r", "How are things?")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    count.load(std::sync::atomic::Ordering::SeqCst)
}

/// The gate reads the run as the model does: a withdrawn turn's words carry no authority. The
/// same deletion that an answered request allows is not run after that request was withdrawn
/// (nobody is there to ask, so the ask is a deny).
#[test]
fn a_withdrawn_turn_s_words_carry_no_authority() {
    assert_eq!(deletions_after(reply("Noted.", &[])), 1);
    assert_eq!(deletions_after(refusal("I won't delete anything.", &[])), 0);
}

/// The same, when the agent decided a call of the run before the withdrawal: what it keeps
/// between calls about the run's withdrawals grows with the run, and the withdrawal that came
/// after is in it.
#[test]
fn a_turn_withdrawn_after_a_call_was_decided_carries_no_authority_either() {
    let mut w = world(&[], false);
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    w.tools.add(Box::new(DeleteRecord(count.clone())));
    w.regate(policy(&[]), false);
    let mut model = ScriptedModel::from_replies(
        "s",
        vec![
            reply("", &[("list_dir", json!({}))]),
            reply("Here they are.", &[]),
            refusal("I won't delete anything.", &[]),
            reply("", &[("delete_record", json!({"id": "7"}))]),
            reply("ok", &[]),
        ],
    );
    with_agent(&mut w, &mut model, None, LoopSettings::default(), |a| {
        a.user_turn("r", "List the files.")?;
        a.user_turn("r", "Please delete record 7.")?;
        a.user_turn("r", "How are things?")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// A compaction round inside the refused turn had already summarised part of it: a summary
/// cannot be taken apart, so the notice says that much of the turn stays (docs/running.md).
/// The turn's items themselves are still in no later request.
#[test]
fn a_summary_written_inside_the_refused_turn_is_told() {
    let mut w = world(&[], false);
    let summary = |tag: &str| {
        json!({"text": format!(
            "Goal: {tag}\nCurrent state: {tag}\nKey decisions & conventions: none\nKey files: \
             none\nNext step: go on"
        )})
    };
    let call =
        |path: &str| json!({"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]});
    // A one-token window: every request with something new to fold is compacted first.
    let lines = [
        json!({"text": "A1"}),
        summary("S1"),
        call("a.txt"),
        call("b.txt"),
        summary("S2"),
        json!({"refusal": "No."}),
        json!({"text": "A3"}),
    ];
    let script: Vec<String> = lines.iter().map(ToString::to_string).collect();
    let mut model = ScriptedModel::parse("s", &script.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let settings = LoopSettings {
        compaction: keel_runtime::agent::CompactionSettings {
            context_window: Some(1),
            limits: keel_core::compaction::CompactionLimits {
                keep_recent_chars: 0,
                keep_user_chars: 1_000,
                ..keel_core::compaction::CompactionLimits::default()
            },
            ..keel_runtime::agent::CompactionSettings::default()
        },
        ..LoopSettings::default()
    };
    for text in ["first", "the unwelcome request", "hello"] {
        with_agent(&mut w, &mut model, None, settings.clone(), |a| {
            a.user_turn("r", text)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(model.remaining(), 0);
    let told = w
        .events
        .iter()
        .find_map(|e| match e {
            Event::Notice(n) if n.starts_with("the model refused") => Some(n.clone()),
            _ => None,
        })
        .unwrap_or_default();
    assert!(
        told.ends_with(
            "; compaction round 2 had already summarised part of it, and that summary stays"
        ),
        "{told}"
    );
    let (last, _) = model.requests.last().unwrap_or_else(|| unreachable!());
    let body = serde_json::to_string(&last.messages[1..]).unwrap_or_default();
    assert!(
        !body.contains("the unwelcome request") && body.contains("hello"),
        "{body}"
    );
}
