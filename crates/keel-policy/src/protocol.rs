//! The safety-checker protocol (safety.md N1–N4, N10, N39; seed 002): wire-compatible with
//! Gemini CLI's, so checkers written for it run unchanged.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Decision;
use keel_core::item::{Item, ItemBody};
use keel_core::text::is_blank;

pub const PROTOCOL_VERSION: &str = "1.0.0";

/// `FunctionCall` as the protocol spells it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    #[serde(default = "empty_object")]
    pub args: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub cwd: String,
    pub workspaces: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserPart {
    pub text: String,
}

/// The model side of a turn: both keys present for a model message, `{}` for none (N10).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPart {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(rename = "toolCalls", default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<FunctionCall>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversationTurn {
    pub user: UserPart,
    pub model: ModelPart,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub turns: Vec<ConversationTurn>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// keel's extension (docs/safety.md, "keel check"): the tool results the agent has seen,
    /// so provenance can tell a value from data from the user's. Gemini CLI's input has none;
    /// keel never sends it to a checker.
    #[serde(
        rename = "keelToolResults",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub keel_tool_results: Vec<SeenToolResult>,
}

/// One tool result an agent saw, as `keel check`'s extension carries it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeenToolResult {
    pub tool: String,
    #[serde(rename = "callId", default)]
    pub call_id: String,
    pub output: String,
}

/// What a checker receives on stdin (N1), keys in this order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SafetyCheckInput {
    #[serde(rename = "protocolVersion")]
    pub protocol_version: String,
    #[serde(rename = "toolCall")]
    pub tool_call: FunctionCall,
    pub context: CheckContext,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
}

impl SafetyCheckInput {
    /// The input with only the `required_context` keys of the context (N10); `None` keeps all.
    pub fn restricted(&self, required_context: Option<&[String]>, config: Option<Value>) -> Self {
        let mut input = self.clone();
        input.config = config;
        if let Some(keys) = required_context {
            let keep = |k: &str| keys.iter().any(|r| r == k);
            if !keep("environment") {
                input.context.environment = None;
            }
            if !keep("history") {
                input.context.history = None;
            }
        }
        input
    }

    /// Compact JSON, no trailing newline (N1).
    pub fn to_wire(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A checker's verdict (N3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafetyCheckResult {
    pub decision: Decision,
    /// Required and non-blank for deny and ask_user (N39).
    pub reason: Option<String>,
}

impl SafetyCheckResult {
    pub fn allow() -> Self {
        Self {
            decision: Decision::Allow,
            reason: None,
        }
    }

    pub fn deny(reason: impl Into<String>) -> Self {
        Self {
            decision: Decision::Deny,
            reason: Some(reason.into()),
        }
    }

    pub fn ask(reason: impl Into<String>) -> Self {
        Self {
            decision: Decision::AskUser,
            reason: Some(reason.into()),
        }
    }

    /// Compact JSON as a checker prints it: `{"decision","reason"?}`.
    pub fn to_wire(&self) -> String {
        let mut map = serde_json::Map::new();
        map.insert("decision".into(), Value::from(self.decision.as_str()));
        if let Some(reason) = &self.reason {
            map.insert("reason".into(), Value::from(reason.as_str()));
        }
        Value::Object(map).to_string()
    }
}

/// Why a checker's stdout is not a valid result (N2, N3, N39).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidOutput(pub String);

/// Parses a checker's whole stdout as one result (N2, N3). Surrounding whitespace is allowed;
/// log lines, a second value, an unknown decision, or a deny/ask_user without a non-blank
/// reason are invalid. An `error` key is ignored: it never makes a result fail open.
pub fn parse_result(stdout: &[u8]) -> Result<SafetyCheckResult, InvalidOutput> {
    let text = std::str::from_utf8(stdout)
        .map_err(|e| InvalidOutput(format!("output is not UTF-8: {e}")))?;
    // serde_json accepts JSON whitespace around the value, and nothing else.
    let value: Value = serde_json::from_str(text)
        .map_err(|e| InvalidOutput(format!("output is not one JSON value: {e}")))?;
    let obj = value
        .as_object()
        .ok_or_else(|| InvalidOutput("output is not a JSON object".into()))?;
    let decision = match obj.get("decision").and_then(Value::as_str) {
        Some("allow") => Decision::Allow,
        Some("deny") => Decision::Deny,
        Some("ask_user") => Decision::AskUser,
        Some(other) => return Err(InvalidOutput(format!("unknown decision {other:?}"))),
        None => {
            return Err(InvalidOutput(
                "`decision` is missing or not a string".into(),
            ));
        }
    };
    let reason = match obj.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(InvalidOutput("`reason` is not a string".into())),
    };
    if decision != Decision::Allow && reason.as_deref().is_none_or(is_blank) {
        return Err(InvalidOutput(format!(
            "a {} decision needs a non-blank reason",
            decision.as_str()
        )));
    }
    Ok(SafetyCheckResult { decision, reason })
}

/// `history.turns` from a run's items (N10, T6): only User and Assistant items count; tool
/// results, notifications and diagnostics never become user text.
pub fn history_turns(items: &[Item], pending_question: Option<&str>) -> Vec<ConversationTurn> {
    let mut turns: Vec<ConversationTurn> = Vec::new();
    let mut open_user: Option<String> = None;
    for item in items {
        match &item.body {
            ItemBody::User { text } => {
                if let Some(previous) = open_user.replace(text.clone()) {
                    turns.push(ConversationTurn {
                        user: UserPart { text: previous },
                        model: ModelPart::default(),
                    });
                }
            }
            ItemBody::Assistant { text, tool_calls } => {
                turns.push(ConversationTurn {
                    user: UserPart {
                        text: open_user.take().unwrap_or_default(),
                    },
                    model: ModelPart {
                        text: Some(text.clone()),
                        tool_calls: Some(
                            tool_calls
                                .iter()
                                .map(|c| FunctionCall {
                                    name: c.name.clone(),
                                    args: c.arguments.clone(),
                                    id: Some(c.id.clone()),
                                })
                                .collect(),
                        ),
                    },
                });
            }
            _ => {}
        }
    }
    if let Some(last) = open_user {
        turns.push(ConversationTurn {
            user: UserPart { text: last },
            model: ModelPart::default(),
        });
    }
    if turns.is_empty()
        && let Some(q) = pending_question
    {
        turns.push(ConversationTurn {
            user: UserPart {
                text: q.to_string(),
            },
            model: ModelPart::default(),
        });
    }
    turns
}

#[cfg(test)]
mod tests;
