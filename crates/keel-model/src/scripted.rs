//! The scripted provider (`--model script:FILE`): replays a file of model replies, one JSON
//! object per line, `{"text"?: "...", "tool_calls"?: [{"name", "arguments", "id"?}]}`. Blank
//! lines and lines starting with `#` are skipped. A call without an id gets `call_<n>`, unique
//! within the script. Each request it receives is kept, so tests can assert on what keel sent.

use std::path::Path;

use keel_core::ToolCall;
use keel_core::compose::ModelRequest;
use serde::Deserialize;
use serde_json::Value;

use crate::{Model, ModelError, ModelReply, ToolSpec};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptLine {
    #[serde(default)]
    text: String,
    #[serde(default)]
    tool_calls: Vec<ScriptCall>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptCall {
    name: String,
    #[serde(default)]
    arguments: Value,
    id: Option<String>,
}

/// Replays replies in order.
pub struct ScriptedModel {
    name: String,
    replies: std::collections::VecDeque<ModelReply>,
    /// Every request received, in order.
    pub requests: Vec<(ModelRequest, Vec<ToolSpec>)>,
}

impl ScriptedModel {
    pub fn from_replies(name: &str, replies: Vec<ModelReply>) -> Self {
        Self {
            name: name.to_string(),
            replies: replies.into(),
            requests: Vec::new(),
        }
    }

    /// Parses a script; errors name the line.
    pub fn parse(name: &str, text: &str) -> Result<Self, ModelError> {
        let mut replies = Vec::new();
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parsed: ScriptLine = serde_json::from_str(line).map_err(|e| {
                ModelError::Setup(format!("{name}: line {}: not a scripted reply: {e}", i + 1))
            })?;
            let tool_calls = parsed
                .tool_calls
                .into_iter()
                .map(|c| {
                    n += 1;
                    ToolCall {
                        id: c.id.unwrap_or_else(|| format!("call_{n}")),
                        name: c.name,
                        arguments: if c.arguments.is_null() {
                            Value::Object(Default::default())
                        } else {
                            c.arguments
                        },
                    }
                })
                .collect();
            replies.push(ModelReply {
                text: parsed.text,
                tool_calls,
            });
        }
        Ok(Self::from_replies(name, replies))
    }

    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ModelError::Setup(format!("cannot read the script {}: {e}", path.display()))
        })?;
        Self::parse(&format!("script:{}", path.display()), &text)
    }

    pub fn remaining(&self) -> usize {
        self.replies.len()
    }
}

impl Model for ScriptedModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        self.requests.push((request.clone(), tools.to_vec()));
        let reply = self.replies.pop_front().ok_or_else(|| {
            ModelError::Exhausted(format!(
                "{} has no more replies (keel asked for reply {})",
                self.name,
                self.requests.len()
            ))
        })?;
        if !reply.text.is_empty() {
            on_text(&reply.text);
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_replies_and_numbers_calls() -> Result<(), ModelError> {
        let script = "# a demo\n{\"tool_calls\":[{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}},{\"name\":\"list_dir\"}]}\n\n{\"text\":\"done\",\"tool_calls\":[{\"name\":\"x\",\"id\":\"mine\"}]}\n";
        let mut m = ScriptedModel::parse("s", script)?;
        let req = ModelRequest { messages: vec![] };
        let mut streamed = String::new();
        let first = m.complete(&req, &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(
            first
                .tool_calls
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>(),
            ["call_1", "call_2"]
        );
        assert_eq!(first.tool_calls[1].arguments, serde_json::json!({}));
        let second = m.complete(&req, &[], &mut |t| streamed.push_str(t))?;
        assert_eq!(second.tool_calls[0].id, "mine");
        assert_eq!(streamed, "done");
        assert!(matches!(
            m.complete(&req, &[], &mut |_| {}),
            Err(ModelError::Exhausted(_))
        ));
        assert_eq!(m.requests.len(), 3);
        Ok(())
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = ScriptedModel::parse("s", "{\"text\":\"a\"}\n{\"txet\":1}\n")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("line 2"), "{e}");
    }
}
