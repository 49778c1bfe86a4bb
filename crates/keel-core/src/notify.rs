//! Notifications: background results delivered as quoted data (notifications.md, seed 000).
//!
//! The `[NOTIFICATION]` envelope (N3–N9), the fixed policy text that teaches the model to read
//! it (N10–N12a), the authority rule for a response created for a notification (N15a), the
//! `[TOOL_OUTPUT_STATUS]` diagnostic (N16a), and the delivery plan at a turn boundary (N13a,
//! N14a, N25a, N27a, N28a). Pure: the queue itself lives in keel-store.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::envelope::Envelope;
use crate::item::{Diagnostic, ItemId, ToolCall, Untrusted};
use crate::text::js_trim;

/// The fixed policy, installed in the stable head of every run (N10, N12a). It is the decoded
/// string literal of that name in seed `000_5d41f7c06b100716.txt`, byte for byte; a test
/// decodes the seed and compares.
pub const REALTIME_NOTIFICATION_INSTRUCTIONS: &str =
    include_str!("notify/REALTIME_NOTIFICATION_INSTRUCTIONS.txt");

/// The five kinds of background result (notifications.md N1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    SearchResult,
    VisualResult,
    PeerReport,
    Permission,
    TaskResult,
}

/// The two output languages (notifications.md N2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Lang {
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh-CN")]
    ZhCn,
}

/// Language metadata carried by an envelope (notifications.md N2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationLanguage {
    pub fallback: Lang,
    pub output: Option<Lang>,
    pub samples: Option<Vec<String>>,
}

const NOTIFICATION_PREFIX: &str = "[NOTIFICATION] ";
const SAMPLES_KEPT: usize = 3;
const SAMPLE_MAX_CHARS: usize = 512;

/// `[NOTIFICATION] ` + one compact JSON object (notifications.md N3–N9). The payload is
/// embedded verbatim as a JSON string and never parsed.
pub fn notification_context(
    kind: NotificationKind,
    payload: &str,
    language: Option<&NotificationLanguage>,
) -> String {
    #[derive(Serialize)]
    struct Wire<'a> {
        kind: NotificationKind,
        #[serde(skip_serializing_if = "Option::is_none")]
        output_language: Option<Lang>,
        fallback_language: Lang,
        #[serde(skip_serializing_if = "Option::is_none")]
        language_samples: Option<Vec<&'a str>>,
        payload: &'a str,
    }
    let output = language.and_then(|l| l.output);
    let samples = match (output, language.and_then(|l| l.samples.as_deref())) {
        (None, Some(all)) => {
            let kept: Vec<&str> = all[all.len().saturating_sub(SAMPLES_KEPT)..]
                .iter()
                .map(|s| cut_chars(js_trim(s), SAMPLE_MAX_CHARS))
                .filter(|s| !s.is_empty())
                .collect();
            (!kept.is_empty()).then_some(kept)
        }
        _ => None,
    };
    let wire = Wire {
        kind,
        output_language: output,
        fallback_language: language.map_or(Lang::En, |l| l.fallback),
        language_samples: samples,
        payload,
    };
    // Serializing plain strings and enums cannot fail; fall back to an empty object anyway
    // rather than panic in a library.
    let json = serde_json::to_string(&wire).unwrap_or_else(|_| "{}".to_string());
    format!("{NOTIFICATION_PREFIX}{json}")
}

fn cut_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 5] = [
        NotificationKind::SearchResult,
        NotificationKind::VisualResult,
        NotificationKind::PeerReport,
        NotificationKind::Permission,
        NotificationKind::TaskResult,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::SearchResult => "search_result",
            NotificationKind::VisualResult => "visual_result",
            NotificationKind::PeerReport => "peer_report",
            NotificationKind::Permission => "permission",
            NotificationKind::TaskResult => "task_result",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "en" => Some(Lang::En),
            "zh-CN" => Some(Lang::ZhCn),
            _ => None,
        }
    }
}

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
pub fn open_turn_origin(items: &[crate::item::Item]) -> ResponseOrigin {
    use crate::item::ItemBody;
    for item in items.iter().rev() {
        match &item.body {
            ItemBody::User { .. } => return ResponseOrigin::UserTurn,
            ItemBody::Notification {
                envelope,
                merged_with_user: false,
                ..
            } => {
                let kind = envelope
                    .as_str()
                    .find('{')
                    .and_then(|at| {
                        serde_json::from_str::<serde_json::Value>(&envelope.as_str()[at..]).ok()
                    })
                    .and_then(|v| v["kind"].as_str().and_then(NotificationKind::parse));
                // An envelope keel wrote always names its kind; failing that, still no
                // authority.
                return ResponseOrigin::Notification(kind.unwrap_or(NotificationKind::PeerReport));
            }
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

/// Why a tool result did not reach the model API (N16a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputStatus {
    Rejected,
    Unacknowledged,
}

impl OutputStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OutputStatus::Rejected => "rejected",
            OutputStatus::Unacknowledged => "unacknowledged",
        }
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
        envelope: Envelope::tool_output_status(status.as_str(), tool, call_id, local_result),
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

/// One notification to deliver now.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedDelivery {
    pub arrival: u64,
    pub id: String,
    pub kind: NotificationKind,
    pub envelope: Envelope,
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
            id: n.id.clone(),
            kind: n.kind,
            envelope: Envelope::notification(n.kind, &n.payload, Some(language)),
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
