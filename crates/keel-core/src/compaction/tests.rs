use serde_json::json;

use super::*;
use crate::item::{ItemId, ToolCall, Untrusted};

fn item(seq: u64, body: ItemBody) -> Item {
    Item {
        seq,
        id: ItemId::try_from(format!("i{seq}").as_str()).unwrap_or_else(|_| unreachable!()),
        ts: Timestamp(0),
        body,
    }
}

fn user(seq: u64, text: &str) -> Item {
    item(seq, ItemBody::User { text: text.into() })
}

fn call(seq: u64, id: &str, path: &str) -> Item {
    item(
        seq,
        ItemBody::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: json!({ "path": path }),
            }],
        },
    )
}

fn result(seq: u64, id: &str, chars: usize) -> Item {
    item(
        seq,
        ItemBody::ToolResult {
            call_id: id.into(),
            tool: "read_file".into(),
            output: Untrusted::new("x".repeat(chars)),
            is_error: false,
        },
    )
}

fn reply(seq: u64, text: &str) -> Item {
    item(
        seq,
        ItemBody::Assistant {
            text: text.into(),
            tool_calls: vec![],
        },
    )
}

/// Two finished turns, then a turn with two steps so far.
fn run() -> Vec<Item> {
    vec![
        user(0, "Build a CLI. Do not touch /etc."),
        call(1, "c1", "src/main.rs"),
        result(2, "c1", 3000),
        reply(3, "Built."),
        user(4, "Add tests"),
        call(5, "c2", "tests/a.rs"),
        result(6, "c2", 3000),
        reply(7, "Tests pass."),
        user(8, "Use port 9090"),
        call(9, "c3", "src/port.rs"),
        result(10, "c3", 3000),
        call(11, "c4", "src/cfg.rs"),
        result(12, "c4", 3000),
    ]
}

fn limits(keep_recent: usize, keep_user: usize) -> CompactionLimits {
    CompactionLimits {
        keep_recent_chars: keep_recent,
        keep_user_chars: keep_user,
        ..CompactionLimits::default()
    }
}

fn record(first_unfolded_seq: u64, kept_user_seqs: Vec<u64>) -> Compaction {
    Compaction {
        round: 1,
        first_unfolded_seq,
        kept_user_seqs,
        summary_chars: 2,
        trigger: Trigger::Threshold,
        at: Timestamp(0),
    }
}

#[test]
fn the_cut_is_the_earliest_step_start_whose_tail_fits_and_never_splits_a_call() {
    let items = run();
    // The last two steps (9–12) cost 6061 chars; with the turn's user message, 6074.
    let p = plan(&items, None, limits(6_065, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 9);
    assert_eq!(p.kept_user_seqs, vec![0, 4, 8]);
    let p = plan(&items, None, limits(6_074, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 8);
    assert_eq!(p.kept_user_seqs, vec![0, 4]);
    // A tiny tail budget still keeps the newest step whole.
    let p = plan(&items, None, limits(10, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 11);
    let c = record(p.first_unfolded_seq, p.kept_user_seqs.clone());
    let seqs: Vec<u64> = visible_items(&items, &c).iter().map(|i| i.seq).collect();
    // Every tool result left visible answers a call left visible.
    assert_eq!(seqs, vec![0, 4, 8, 11, 12]);
    assert_eq!(c.folded_count(), 8);
}

#[test]
fn kept_users_are_the_newest_within_their_budget() {
    let items = run();
    let p = plan(&items, None, limits(10, 30)).expect("something to fold");
    // "Use port 9090" (13) + "Add tests" (9) fit in 30; the first message (31) does not.
    assert_eq!(p.kept_user_seqs, vec![4, 8]);
    let p = plan(&items, None, limits(10, 0)).expect("something to fold");
    assert!(p.kept_user_seqs.is_empty());
}

#[test]
fn nothing_to_fold_when_only_the_newest_step_is_left() {
    let items = vec![user(0, "hi"), call(1, "c1", "a"), result(2, "c1", 10)];
    let first = plan(&items, None, limits(0, 100)).expect("the user turn can be folded");
    assert_eq!(first.first_unfolded_seq, 1);
    let c = record(1, vec![0]);
    assert_eq!(plan(&items, Some((&c, "S1")), limits(0, 100)), None);
    assert_eq!(plan(&items[..1], None, limits(0, 100)), None);
}

#[test]
fn the_previous_summary_is_the_compaction_section_so_rounds_chain() {
    let items = run();
    let first = record(4, vec![0]);
    let note = match note_op("S1") {
        NoteOp::Add { text, .. } => text,
        _ => unreachable!(),
    };
    assert_eq!(note, format!("{SUMMARY_HEADER}\nS1"));
    let p = plan(&items, Some((&first, &note)), limits(10, 0)).expect("more to fold");
    assert_eq!(p.first_unfolded_seq, 11);
    let compaction: Vec<&ChatMessage> = p
        .messages
        .iter()
        .filter(|m| m.kind.as_deref() == Some("compaction"))
        .collect();
    assert_eq!(compaction.len(), 1);
    assert_eq!(
        compaction[0].content, "S1",
        "the header is not summarised again"
    );
    // The source keeps the user's words and the previous summary.
    let source = crate::bridge::source::build_bridge_source(&p.messages, Default::default());
    assert!(source.text.contains("S1"), "{}", source.text);
    assert!(
        source.text.contains("Do not touch /etc."),
        "{}",
        source.text
    );
    assert!(source.reused_compaction);
}

#[test]
fn instruction_names_its_budget_and_rules_in_both_languages() {
    let en = instruction(HandoffLang::En, 2400);
    assert!(
        en.contains("≤900 tokens") && en.contains("consolidate") && en.contains("never invent")
    );
    let zh = instruction(HandoffLang::Zh, 2400);
    assert!(zh.contains("≤900 tokens") && zh.contains("合并") && zh.contains("不得编造"));
}

#[test]
fn token_estimate_rounds_up() {
    assert_eq!(estimate_tokens(0), 0);
    assert_eq!(estimate_tokens(1), 1);
    assert_eq!(estimate_tokens(8), 2);
    assert_eq!(estimate_tokens(9), 3);
    assert_eq!(Trigger::parse("overflow"), Some(Trigger::Overflow));
    assert_eq!(Trigger::parse("x"), None);
    assert_eq!(summary_of_note("plain"), "plain");
}
