//! Withdrawn turns: the part of a run the model no longer reads.
//!
//! When a provider says its model refused, the turn ends and is withdrawn (ACP's
//! `stopReason: "refusal"`: "the user prompt and everything that comes after it won't be
//! included in the next prompt"). The run's items are append-only and every one is kept, so a
//! withdrawal is an item of its own, [`ItemBody::Withdrawal`], appended in the write that
//! closes the turn: it names the first item it withdraws (the item that opened the turn) and
//! withdraws everything from there up to and including itself. A crash leaves either the whole
//! close or none of it.
//!
//! [`in_context`] is the run as the model may read it. `compose`, compaction's plan and the
//! bridge's fold read the run through it, so a withdrawn turn reaches no request, no summary
//! and no handoff; `keel runs show` and the store still have it, marked with the reason.

use std::borrow::Cow;

use crate::item::{Item, ItemBody};

/// The seq ranges (first and last seq, both withdrawn) the run's withdrawals cover, in the
/// order their markers come.
pub fn ranges(items: &[Item]) -> Vec<(u64, u64)> {
    items
        .iter()
        .filter_map(|i| match &i.body {
            ItemBody::Withdrawal { from_seq, .. } => Some(((*from_seq).min(i.seq), i.seq)),
            _ => None,
        })
        .collect()
}

/// `items` without the withdrawn ones and without the withdrawal markers: what the model may
/// read of the run. Borrowed, at the cost of one pass over the items, when nothing is
/// withdrawn — the common case.
pub fn in_context(items: &[Item]) -> Cow<'_, [Item]> {
    let ranges = ranges(items);
    if ranges.is_empty() {
        return Cow::Borrowed(items);
    }
    Cow::Owned(
        items
            .iter()
            .filter(|i| {
                !ranges
                    .iter()
                    .any(|&(from, to)| (from..=to).contains(&i.seq))
            })
            .cloned()
            .collect(),
    )
}

/// The seq of the item that opened the run's latest turn: its last real user turn, or its
/// last notification delivered as a turn of its own, whichever came later (a notification
/// merged into a user turn belongs to that turn). This is where a withdrawal of the open turn
/// starts. `None` when the run has neither.
pub fn open_turn_start(items: &[Item]) -> Option<u64> {
    items.iter().rev().find_map(|item| match &item.body {
        ItemBody::User { .. }
        | ItemBody::Notification {
            merged_with_user: false,
            ..
        } => Some(item.seq),
        _ => None,
    })
}

/// `reason` as a sentence that another can follow: the model's own words often end one
/// already, and a second full stop would look like keel's typo.
pub fn as_sentence(reason: &str) -> String {
    let reason = reason.trim_end();
    if reason.ends_with(['.', '!', '?', '。', '！', '？']) {
        reason.to_string()
    } else {
        format!("{reason}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{ItemId, ToolCall, Untrusted};
    use crate::time::Timestamp;

    fn item(seq: u64, body: ItemBody) -> Item {
        Item {
            seq,
            id: ItemId::try_from(format!("i{seq}")).unwrap_or_else(|e| panic!("{e}")),
            ts: Timestamp(seq as i64),
            body,
        }
    }

    fn user(seq: u64, text: &str) -> Item {
        item(
            seq,
            ItemBody::User {
                text: text.to_string(),
            },
        )
    }

    fn run() -> Vec<Item> {
        vec![
            user(0, "first"),
            item(
                1,
                ItemBody::Assistant {
                    text: "one".into(),
                    tool_calls: vec![],
                },
            ),
            user(2, "second"),
            item(
                3,
                ItemBody::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "read_file".into(),
                        arguments: serde_json::json!({}),
                    }],
                },
            ),
            item(
                4,
                ItemBody::ToolResult {
                    call_id: "c1".into(),
                    tool: "read_file".into(),
                    output: Untrusted::new("not run".into()),
                    is_error: true,
                },
            ),
            item(
                5,
                ItemBody::Withdrawal {
                    from_seq: 2,
                    reason: "the model refused: no".into(),
                },
            ),
            user(6, "third"),
        ]
    }

    #[test]
    fn a_withdrawal_takes_its_turn_and_itself_out_of_context() {
        let items = run();
        assert_eq!(open_turn_start(&items[..5]), Some(2));
        assert_eq!(ranges(&items), [(2, 5)]);
        let seqs: Vec<u64> = in_context(&items).iter().map(|i| i.seq).collect();
        assert_eq!(seqs, [0, 1, 6]);
        // Nothing withdrawn: the items themselves, not a copy.
        assert!(matches!(in_context(&items[..5]), Cow::Borrowed(_)));
    }

    /// A notification merged into a user turn belongs to it; one delivered as a turn of its
    /// own opens that turn.
    #[test]
    fn the_open_turn_starts_at_its_user_or_its_own_notification() {
        use crate::envelope::NotificationEnvelope;
        use crate::notify::NotificationKind;
        let notification = |seq: u64, merged: bool| {
            item(
                seq,
                ItemBody::Notification {
                    envelope: NotificationEnvelope::new(
                        "n",
                        NotificationKind::TaskResult,
                        Untrusted::new("done".into()),
                        None,
                    ),
                    merged_with_user: merged,
                },
            )
        };
        let mut items = vec![user(0, "go"), notification(1, true)];
        assert_eq!(open_turn_start(&items), Some(0));
        items.push(notification(2, false));
        assert_eq!(open_turn_start(&items), Some(2));
        assert_eq!(open_turn_start(&[]), None);
    }

    #[test]
    fn a_reason_ends_one_sentence() {
        assert_eq!(
            as_sentence("the model refused: no"),
            "the model refused: no."
        );
        assert_eq!(
            as_sentence("the model refused: no. "),
            "the model refused: no."
        );
        assert_eq!(
            as_sentence("the model refused: why?"),
            "the model refused: why?"
        );
    }

    #[test]
    fn a_marker_that_names_a_later_seq_withdraws_only_itself() {
        let mut items = run();
        items[5].body = ItemBody::Withdrawal {
            from_seq: 99,
            reason: String::new(),
        };
        let seqs: Vec<u64> = in_context(&items).iter().map(|i| i.seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3, 4, 6]);
    }
}
