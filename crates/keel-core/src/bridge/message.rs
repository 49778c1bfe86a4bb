//! The messages every bridge function reads (bridge.md N2): a run folded into user, assistant and
//! compaction messages, with the tool calls and images each carried.

use serde::Serialize;

/// An image attached to a user message (N2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageAttachment {
    pub attachment_id: String,
    pub media_type: String,
    pub bytes: i64,
    pub width: i64,
    pub height: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A tool call shown under an assistant message (N2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolNode {
    pub title: String,
    pub detail: Option<String>,
}

/// One message of the history a handoff reads (N2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChatMessage {
    /// `user`, `assistant` or `system`.
    pub role: String,
    pub content: String,
    /// `Some("compaction")` marks a compaction checkpoint.
    pub kind: Option<String>,
    pub tool_nodes: Vec<ToolNode>,
    pub image_count: i64,
    pub image_attachments: Vec<ImageAttachment>,
}

impl ChatMessage {
    pub fn is_compaction(&self) -> bool {
        self.kind.as_deref() == Some("compaction")
    }
}

/// A length or count as the wire's signed integer.
pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
