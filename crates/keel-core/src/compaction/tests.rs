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
        source_dropped: vec![],
    }
}

#[test]
fn the_cut_is_the_earliest_step_start_whose_tail_fits_and_never_splits_a_call() {
    let items = run();
    // The last two steps (9–12) cost 6061 chars; with the turn's user message, 6074.
    let p = plan(&items, None, None, limits(6_065, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 9);
    assert_eq!(p.kept_user_seqs, vec![0, 4, 8]);
    let p = plan(&items, None, None, limits(6_074, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 8);
    assert_eq!(p.kept_user_seqs, vec![0, 4]);
    // A tiny tail budget still keeps the newest step whole.
    let p = plan(&items, None, None, limits(10, 10_000)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 11);
    let c = record(p.first_unfolded_seq, p.kept_user_seqs);
    let seqs: Vec<u64> = visible_items(&items, &c).iter().map(|i| i.seq).collect();
    // Every tool result left visible answers a call left visible.
    assert_eq!(seqs, vec![0, 4, 8, 11, 12]);
    assert_eq!(c.folded_count(), 8);
}

#[test]
fn kept_users_are_the_newest_within_their_budget() {
    let items = run();
    let p = plan(&items, None, None, limits(10, 30)).expect("something to fold");
    // "Use port 9090" (13) + "Add tests" (9) fit in 30; the first message (31) does not.
    assert_eq!(p.kept_user_seqs, vec![4, 8]);
    // The newest folded user message stays whatever the budget: it is the current task.
    let p = plan(&items, None, None, limits(10, 0)).expect("something to fold");
    assert_eq!(p.kept_user_seqs, vec![8]);
}

#[test]
fn nothing_to_fold_when_only_the_newest_step_is_left() {
    let items = vec![user(0, "hi"), call(1, "c1", "a"), result(2, "c1", 10)];
    // Folding only the user turn, which stays verbatim, would fold nothing: no summariser.
    assert_eq!(plan(&items, None, None, limits(0, 100)), None);
    // With a step before the newest one, that step is folded.
    let longer = vec![
        user(0, "hi"),
        call(1, "c1", "a"),
        result(2, "c1", 10),
        call(3, "c2", "b"),
        result(4, "c2", 10),
    ];
    let first = plan(&longer, None, None, limits(0, 100)).expect("a step to fold");
    assert_eq!(first.first_unfolded_seq, 3);
    let c = record(1, vec![0]);
    let prior = PriorSummary {
        text: "S1",
        first_unfolded_seq: 1,
    };
    assert_eq!(plan(&items, Some(&c), Some(prior), limits(0, 100)), None);
    assert_eq!(plan(&items[..1], None, None, limits(0, 100)), None);
}

#[test]
fn the_previous_summary_is_the_compaction_section_so_rounds_chain() {
    let items = run();
    let first = record(4, vec![0]);
    let NoteOp::Add { text: note, .. } = note_op("S1") else {
        unreachable!()
    };
    assert_eq!(note, format!("{SUMMARY_HEADER}\nS1"));
    use crate::notes::SystemNotes;
    let mut notes = SystemNotes::new();
    let _ = notes.apply(note_op("S1"), 16);
    let prior = PriorSummary::of_run(&notes, Some(&first));
    assert_eq!(
        prior.map(|p| (p.text, p.first_unfolded_seq)),
        Some(("S1", 4))
    );
    let p = plan(&items, Some(&first), prior, limits(10, 0)).expect("more to fold");
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

#[test]
fn a_handoff_summary_is_the_prior_summary_of_a_run_made_by_a_handoff() {
    let mut notes = crate::notes::SystemNotes::new();
    let _ = notes.apply(producers::handoff_summary("H: port 9090"), 16);
    let prior = PriorSummary::of_run(&notes, None);
    assert_eq!(
        prior.map(|p| (p.text, p.first_unfolded_seq)),
        Some(("H: port 9090", 0))
    );
    let items = run();
    let p = plan(&items, None, prior, limits(10, 0)).expect("something to fold");
    assert_eq!(p.messages[0].kind.as_deref(), Some("compaction"));
    assert_eq!(p.messages[0].content, "H: port 9090");
    // Once a round exists, its summary (which consolidated the handoff summary) wins.
    let _ = notes.apply(note_op("S1"), 16);
    let round = record(4, vec![]);
    assert_eq!(
        PriorSummary::of_run(&notes, Some(&round)).map(|p| p.text),
        Some("S1")
    );
}

#[test]
fn constraints_come_from_the_prior_summary_and_the_whole_run_in_order() {
    use crate::bridge::{HandoffLang, constraints::preserve_active_user_constraints};
    let prior = PriorSummary {
        text: "Goal: x.\n\n## Active user constraints\n- Do not use any tools",
        first_unfolded_seq: 0,
    };
    let user = |t: &str| ChatMessage {
        role: "user".into(),
        content: t.into(),
        ..ChatMessage::default()
    };
    // Carried from the prior summary into a summary that dropped it.
    let sources = constraint_sources(Some(prior), &[user("Add tests")]);
    assert_eq!(sources.len(), 2);
    let kept = preserve_active_user_constraints("New summary.", &sources, HandoffLang::En);
    assert!(kept.ends_with("\n- Do not use any tools"), "{kept}");
    // A later permission anywhere in the run revokes it.
    let sources = constraint_sources(Some(prior), &[user("You can now use tools.")]);
    let kept = preserve_active_user_constraints("New summary.", &sources, HandoffLang::En);
    assert_eq!(kept, "New summary.");
}

#[test]
fn an_oversized_current_task_is_kept_verbatim() {
    let long = "x".repeat(5_000);
    let items = vec![
        user(0, &long),
        call(1, "c1", "a"),
        result(2, "c1", 10),
        call(3, "c2", "b"),
        result(4, "c2", 10),
    ];
    let p = plan(&items, None, None, limits(0, 100)).expect("something to fold");
    assert_eq!(p.first_unfolded_seq, 3);
    assert_eq!(p.kept_user_seqs, vec![0]);
}

mod pairing {
    use proptest::prelude::*;

    use super::*;
    use crate::compose::{ComposeInput, compose};

    /// A run of turns; each turn is a user message, then steps of 0–3 calls with their
    /// results, then a reply (unless it is the last, still open turn).
    fn build(turns: &[Vec<usize>], sizes: &[usize]) -> Vec<Item> {
        let mut items = Vec::new();
        let mut seq = 0u64;
        let mut size = sizes.iter().cycle();
        for (t, steps) in turns.iter().enumerate() {
            items.push(user(seq, &"u".repeat(*size.next().unwrap_or(&1))));
            seq += 1;
            for (s, calls) in steps.iter().enumerate() {
                let ids: Vec<String> = (0..*calls).map(|c| format!("t{t}s{s}c{c}")).collect();
                items.push(item(
                    seq,
                    ItemBody::Assistant {
                        text: String::new(),
                        tool_calls: ids
                            .iter()
                            .map(|id| ToolCall {
                                id: id.clone(),
                                name: "read_file".into(),
                                arguments: json!({"path": "a"}),
                            })
                            .collect(),
                    },
                ));
                seq += 1;
                for id in &ids {
                    items.push(result(seq, id, *size.next().unwrap_or(&1)));
                    seq += 1;
                }
            }
            if t + 1 < turns.len() {
                items.push(reply(seq, "done"));
                seq += 1;
            }
        }
        items
    }

    proptest! {
        /// Whatever the cut, every tool message left visible answers a call left visible, and
        /// every visible call keeps its answer: the request composes.
        #[test]
        fn the_visible_items_always_compose(
            turns in prop::collection::vec(prop::collection::vec(1usize..4, 0..4), 1..6),
            sizes in prop::collection::vec(1usize..400, 1..8),
            keep_recent in 0usize..2_000,
            keep_user in 0usize..500,
            rounds in 1usize..4,
        ) {
            let items = build(&turns, &sizes);
            let mut previous: Option<Compaction> = None;
            for round in 1..=rounds {
                let Some(p) = plan(&items, previous.as_ref(), None, limits(keep_recent, keep_user))
                else {
                    break;
                };
                if let Some(prev) = &previous {
                    prop_assert!(p.first_unfolded_seq > prev.first_unfolded_seq);
                }
                let c = Compaction {
                    round: round as u32,
                    first_unfolded_seq: p.first_unfolded_seq,
                    kept_user_seqs: p.kept_user_seqs,
                    summary_chars: 1,
                    trigger: Trigger::Threshold,
                    at: Timestamp(0),
                    source_dropped: vec![],
                };
                let visible = visible_items(&items, &c);
                let notes = crate::notes::SystemNotes::new();
                let composed = compose(&ComposeInput {
                    stable_head: "h",
                    volatile: &[],
                    notes: &notes,
                    items: &visible,
                });
                prop_assert!(composed.is_ok(), "{:?}", composed.err());
                previous = Some(c);
            }
        }
    }
}

/// A withdrawn turn (the model refused; crate::withdrawal) is neither folded nor kept: the
/// summariser's source and the items left visible have none of it.
#[test]
fn a_withdrawn_turn_is_neither_folded_nor_kept() {
    let mut items = run();
    // The second turn (4–7) was withdrawn by a marker; the third turn follows it.
    items.insert(
        8,
        item(
            8,
            ItemBody::Withdrawal {
                from_seq: 4,
                reason: "the model refused".into(),
            },
        ),
    );
    for (n, i) in items.iter_mut().enumerate() {
        i.seq = n as u64;
    }
    let p = plan(&items, None, None, limits(10, 10_000)).expect("something to fold");
    let said: Vec<&str> = p.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(
        !said.contains(&"Add tests") && !said.contains(&"Tests pass."),
        "{said:?}"
    );
    assert!(said.contains(&"Built."), "{said:?}");
    // The kept users are the first and the third turn's, never the withdrawn one.
    assert_eq!(p.kept_user_seqs, vec![0, 9]);
    let c = record(p.first_unfolded_seq, p.kept_user_seqs);
    let seqs: Vec<u64> = visible_items(&items, &c).iter().map(|i| i.seq).collect();
    assert!(seqs.iter().all(|s| !(4..=8).contains(s)), "{seqs:?}");
}
