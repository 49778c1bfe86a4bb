//! The observation vocabulary (N38, N38a): the elements a backend reports, the summary JSON
//! the model and the verifier read, the actions a proposal carries, and expectations.

use serde::{Deserialize, Serialize};

/// The role every platform maps its windows, frames and dialogs onto (N38).
pub const ROLE_WINDOW: &str = "AXWindow";
/// A single-line text entry.
pub const ROLE_TEXT_FIELD: &str = "AXTextField";
/// A multi-line text entry.
pub const ROLE_TEXT_AREA: &str = "AXTextArea";

/// Most chars of a summary (N12, N38a); over it, elements are dropped from the end.
pub const MAX_SUMMARY_CHARS: usize = 12_000;

/// One accessible element of the target window, in depth-first order (N38a).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Element {
    pub role: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Present only on selectable or checkable elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<bool>,
    /// `[x, y, width, height]` in window coordinates.
    pub bounds: [i32; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_web_content: Option<bool>,
}

/// One input, as a proposal carries it (N38a). Fields are in declared order, so equal actions
/// give equal canonical JSON (N37).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Action {
    Click {
        x: i32,
        y: i32,
    },
    TypeText {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i32>,
    },
    Key {
        keys: String,
    },
    Scroll {
        x: i32,
        y: i32,
        dx: i32,
        dy: i32,
    },
    Wait {
        ms: u32,
    },
}

impl Action {
    /// The action's `type` name.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Click { .. } => "click",
            Action::TypeText { .. } => "typeText",
            Action::Key { .. } => "key",
            Action::Scroll { .. } => "scroll",
            Action::Wait { .. } => "wait",
        }
    }

    /// The point the action aims at, if it has one.
    pub fn point(&self) -> Option<(i32, i32)> {
        match self {
            Action::Click { x, y } | Action::Scroll { x, y, .. } => Some((*x, *y)),
            Action::TypeText {
                x: Some(x),
                y: Some(y),
                ..
            } => Some((*x, *y)),
            _ => None,
        }
    }

    /// Compact JSON in declared field order (N37).
    pub fn canonical_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What the caller expects to see (N3, N16).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Expectation {
    Text { text: String },
    Field { label: String, value: String },
    Selected { label: String },
}

/// The outcome of checking an expectation (N16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationStatus {
    Satisfied,
    NotMet,
    Unavailable,
}

/// `{status, source:"accessibility", scope:"expectation", preexisting?}` (N16).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub status: VerificationStatus,
    pub source: String,
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preexisting: Option<bool>,
}

impl Verification {
    pub fn new(status: VerificationStatus) -> Self {
        Self {
            status,
            source: "accessibility".into(),
            scope: "expectation".into(),
            preexisting: None,
        }
    }
}
