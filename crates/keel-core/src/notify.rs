//! Notifications: background results delivered as quoted data (notifications.md, seed 000).
//!
//! The fixed policy text that teaches the model to read the `[NOTIFICATION]` envelope
//! (N10–N12a), the authority rule for a response created for a notification (N15a), the
//! `[TOOL_OUTPUT_STATUS]` diagnostic (N16a), and the delivery plan at a turn boundary (N13a,
//! N14a, N25a, N27a, N28a). The envelopes themselves (N3–N9, N16a's line) and the notification
//! vocabulary are [`crate::envelope`]'s; this module imports them, never the other way round.
//! Pure: the queue itself lives in keel-store.

use std::collections::HashSet;

use crate::envelope::{NotificationEnvelope, ToolOutputStatus};
use crate::item::{Diagnostic, Item, ItemBody, ItemId, ToolCall};
use crate::untrusted::Untrusted;

// The notification vocabulary and the `[NOTIFICATION]` line are the envelope's; they are
// named here too, where notifications are planned, so callers keep one path for them.
pub use crate::envelope::{
    Lang, NotificationKind, NotificationLanguage, OutputStatus, notification_context,
};

/// The fixed policy, installed in the stable head of every run (N10, N12a). It is the decoded
/// string literal of that name in seed `000_5d41f7c06b100716.txt`, byte for byte; a test
/// decodes the seed and compares.
pub const REALTIME_NOTIFICATION_INSTRUCTIONS: &str =
    include_str!("notify/REALTIME_NOTIFICATION_INSTRUCTIONS.txt");

/// Who a model response was created for (N15a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseOrigin {
    /// A real user turn: full authority.
    UserTurn,
    /// A notification delivered as a turn of its own: no authority to call tools.
    Notification(NotificationKind),
}

/// Who the open turn of a run was opened for, from its items: the last real user turn, or the
/// last notification delivered as a turn of its own, whichever came later (merged
/// notifications belong to the user turn they joined). A turn continued after a crash or a
/// cancel keeps its origin, so a notification's turn never gains a user's authority by being
/// resumed (N15a).
pub fn open_turn_origin(items: &[Item]) -> ResponseOrigin {
    for item in items.iter().rev() {
        match &item.body {
            ItemBody::User { .. } => return ResponseOrigin::UserTurn,
            ItemBody::Notification {
                envelope,
                merged_with_user: false,
            } => return ResponseOrigin::Notification(envelope.kind()),
            _ => {}
        }
    }
    ResponseOrigin::UserTurn
}

/// The tool result every call of a notification-created response gets (N15a).
pub const NOT_AUTHORIZED_RESULT: &str =
    r#"{"status":"error","note":"This response is not authorized to call tools."}"#;

/// One tool call that may not be dispatched, with the result that answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub call_id: String,
    pub tool: String,
    pub result: &'static str,
}

/// The authority stage: the first stage of the gate. Every call of a notification-created
/// response is refused; a response to a real user turn passes.
pub fn authorize(origin: ResponseOrigin, tool_calls: &[ToolCall]) -> Vec<Refusal> {
    match origin {
        ResponseOrigin::UserTurn => Vec::new(),
        ResponseOrigin::Notification(_) => tool_calls
            .iter()
            .map(|c| Refusal {
                call_id: c.id.clone(),
                tool: c.name.clone(),
                result: NOT_AUTHORIZED_RESULT,
            })
            .collect(),
    }
}

/// The silent diagnostic that replaces a call's rejected tool message (N16a).
pub fn tool_output_status(
    status: OutputStatus,
    tool: &str,
    call_id: &str,
    local_result: &Untrusted<String>,
) -> Diagnostic {
    Diagnostic::ToolCallStatus {
        call_id: call_id.to_string(),
        envelope: ToolOutputStatus::new(status, tool, call_id, local_result.clone()),
    }
}

/// A notification waiting in a run's queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedNotification {
    /// Position in the run's queue: arrival order.
    pub arrival: u64,
    pub id: String,
    pub kind: NotificationKind,
    pub payload: Untrusted<String>,
}

/// Where in the run delivery happens (N25a): only at a turn boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// A real user turn is being opened, before its first model call: everything waiting is
    /// merged into it (N14a).
    OpeningUserTurn { user_item: ItemId },
    /// A turn has closed: the first waiting notification becomes a turn of its own (N13a).
    AfterTurnClose,
}

/// One notification to deliver now: its queue position, and its envelope (which holds its
/// id and kind).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedDelivery {
    pub arrival: u64,
    pub envelope: NotificationEnvelope,
    pub merged_with_user: bool,
}

/// The delivery plan for one boundary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delivery {
    /// In delivery order; each becomes one Notification item.
    pub items: Vec<PlannedDelivery>,
    /// The user item they were merged into, when a user turn is being opened.
    pub merged_into: Option<ItemId>,
    /// Arrivals whose id was already delivered, or seen earlier in the queue: recorded as
    /// duplicates and never delivered (N27a).
    pub duplicates: Vec<u64>,
}

/// Plans delivery at a boundary (N13a, N14a, N25a, N27a, N28a).
///
/// `pending` is the run's undelivered queue in arrival order; `delivered_ids` the ids already
/// delivered or merged for this run. Nothing is batched or cut: each notification is its own
/// item with its whole payload.
pub fn next_delivery(
    pending: &[QueuedNotification],
    delivered_ids: &HashSet<String>,
    boundary: &Boundary,
    language: &NotificationLanguage,
) -> Delivery {
    let mut order: Vec<&QueuedNotification> = pending.iter().collect();
    order.sort_by_key(|n| n.arrival);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut fresh = Vec::new();
    let mut duplicates = Vec::new();
    for n in order {
        if delivered_ids.contains(&n.id) || !seen.insert(n.id.as_str()) {
            duplicates.push(n.arrival);
        } else {
            fresh.push(n);
        }
    }
    let (take, merged_into) = match boundary {
        Boundary::OpeningUserTurn { user_item } => (fresh.len(), Some(user_item.clone())),
        Boundary::AfterTurnClose => (fresh.len().min(1), None),
    };
    let merged = merged_into.is_some();
    let items = fresh
        .into_iter()
        .take(take)
        .map(|n| PlannedDelivery {
            arrival: n.arrival,
            envelope: NotificationEnvelope::new(
                n.id.clone(),
                n.kind,
                n.payload.clone(),
                Some(language),
            ),
            merged_with_user: merged,
        })
        .collect::<Vec<_>>();
    Delivery {
        merged_into: if items.is_empty() { None } else { merged_into },
        items,
        duplicates,
    }
}

#[cfg(test)]
mod tests;
