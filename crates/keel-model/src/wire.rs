//! Whether a request is well formed, as a Chat Completions API receives it (interfaces.md §4,
//! ARCHITECTURE.md "One turn, as data" step 2): one function, [`check_body`], over the JSON
//! body, and [`check`] over a composed request and the tools offered with it.
//!
//! The rules are the shape keel sends (keel-core's `compose`, [`crate::openai`]'s body) and
//! what an API refuses: exactly one `system` message, at index 0, and no `system` or
//! `developer` role after it; roles from the set keel uses; content that is a string, or text
//! parts (and, in a `user` message, image parts); every assistant tool call answered by
//! exactly one `tool` message bound to its id, in the messages right after it, and no `tool`
//! message without its call; call arguments that are compact JSON text of an object; tools
//! offered with function names an API accepts (1 to 64 of `A-Za-z0-9_-`, unique) and JSON
//! Schema parameters of type `object`. Every violation is reported, not only the first, each
//! with where it is (`messages[3].tool_call_id`).
//!
//! Who runs it: the scripted provider, which stands in for a model API in tests and demos and
//! so refuses a malformed request the way a strict API would (with
//! [`crate::ModelError::Malformed`]); and the tests' loopback server
//! (`keel_model::testing`), for every request it records. The HTTP and local providers do
//! not: there the API (or the worker's template) is the judge of what it takes, and this
//! check must not change what keel sends to one.

use std::collections::HashSet;
use std::fmt;

use keel_core::compose::ModelRequest;
pub use keel_core::compose::is_function_name;
use serde_json::{Map, Value, json};

use crate::ToolSpec;

/// The kinds of violation, one per rule, so a test can say which rule a request broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViolationKind {
    /// Not a JSON object with a `messages` array of message objects, or a field of the wrong
    /// type or in the wrong place (`tool_calls` on a user message, an unknown key).
    Shape,
    /// Not exactly one `system` message at index 0, or a `system`/`developer` role after it.
    SystemMessage,
    /// A role outside the set keel sends (`system`, `user`, `assistant`, `tool`).
    Role,
    /// Content that is neither a string nor text parts (or image parts, for a user), or that
    /// is missing where the API requires it.
    Content,
    /// An assistant tool call without its one `tool` message right after it, or a call id
    /// given twice in one assistant message.
    UnansweredCall,
    /// A `tool` message that answers no call, or one already answered.
    UnboundToolMessage,
    /// A tool call whose arguments are not the JSON text of an object.
    Arguments,
    /// A function name (offered, or in a tool call) an API does not accept, or offered twice.
    ToolName,
    /// Offered tool parameters that are not a JSON Schema of type `object`.
    ToolParameters,
}

/// One broken rule, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: ViolationKind,
    /// A path into the body: `messages[2].tool_calls[0].function.arguments`, `tools[1]`.
    pub at: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Every violation a request has (never empty).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct MalformedRequest {
    pub violations: Vec<Violation>,
}

impl MalformedRequest {
    /// Whether some violation is of `kind`.
    pub fn has(&self, kind: ViolationKind) -> bool {
        self.violations.iter().any(|v| v.kind == kind)
    }
}

impl fmt::Display for MalformedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.violations.len();
        write!(
            f,
            "malformed model request ({n} {} of interfaces.md §4): ",
            if n == 1 { "violation" } else { "violations" }
        )?;
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// The offered tools as a Chat Completions body carries them:
/// `{"type":"function","function":{name, description, parameters}}`.
pub fn tools_json(tools: &[ToolSpec]) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                }
            })
        })
        .collect()
}

/// The part of a Chat Completions body the check reads: the messages and, when any are
/// offered, the tools.
pub fn chat_body(request: &ModelRequest, tools: &[ToolSpec]) -> Value {
    let mut body = json!({ "messages": request.messages });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools_json(tools));
    }
    body
}

/// Checks a composed request and the tools offered with it, as they go on the wire.
pub fn check(request: &ModelRequest, tools: &[ToolSpec]) -> Result<(), MalformedRequest> {
    check_body(&chat_body(request, tools))
}

/// Checks a Chat Completions request body (its `messages` and `tools`; other keys, such as
/// `model` and `stream`, are the provider's).
pub fn check_body(body: &Value) -> Result<(), MalformedRequest> {
    let mut c = Checker::default();
    match body {
        Value::Object(map) => {
            c.messages(map.get("messages"));
            if let Some(tools) = map.get("tools") {
                c.tools(tools);
            }
        }
        _ => c.push(
            ViolationKind::Shape,
            "body",
            "the body is not a JSON object",
        ),
    }
    c.finish()
}

/// Checks the messages, and the offered tools' names only: the form of the scripted model's
/// request log (`{"messages": [...], "tools": ["name", ...]}`).
pub fn check_messages_and_tool_names(
    messages: Option<&Value>,
    names: &[&str],
) -> Result<(), MalformedRequest> {
    let mut c = Checker::default();
    c.messages(messages);
    let mut offered = HashSet::new();
    for (i, name) in names.iter().enumerate() {
        let at = format!("tools[{i}]");
        c.function_name(&at, name);
        if !offered.insert(*name) {
            c.push(
                ViolationKind::ToolName,
                &at,
                format!("the tool {name:?} is offered twice"),
            );
        }
    }
    c.finish()
}

const MESSAGE_KEYS: [&str; 5] = ["role", "content", "name", "tool_calls", "tool_call_id"];

#[derive(Default)]
struct Checker {
    violations: Vec<Violation>,
}

/// The assistant message whose calls the `tool` messages after it answer.
struct OpenCalls {
    at: String,
    /// Call ids not yet answered, in the order they were made.
    pending: Vec<String>,
    answered: HashSet<String>,
}

impl Checker {
    fn push(&mut self, kind: ViolationKind, at: &str, message: impl Into<String>) {
        self.violations.push(Violation {
            kind,
            at: at.to_string(),
            message: message.into(),
        });
    }

    fn finish(self) -> Result<(), MalformedRequest> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            Err(MalformedRequest {
                violations: self.violations,
            })
        }
    }

    fn messages(&mut self, messages: Option<&Value>) {
        let Some(messages) = messages.and_then(Value::as_array) else {
            self.push(
                ViolationKind::Shape,
                "messages",
                "there is no messages array",
            );
            return;
        };
        if messages.is_empty() {
            self.push(
                ViolationKind::SystemMessage,
                "messages",
                "there are no messages; the first must be the one 'system' message",
            );
            return;
        }
        let mut open: Option<OpenCalls> = None;
        for (i, m) in messages.iter().enumerate() {
            let at = format!("messages[{i}]");
            let Some(m) = m.as_object() else {
                self.push(ViolationKind::Shape, &at, "a message is not a JSON object");
                self.close(&mut open);
                continue;
            };
            let role = m.get("role").and_then(Value::as_str);
            match (i, role) {
                (0, Some("system")) => {}
                (0, r) => self.push(
                    ViolationKind::SystemMessage,
                    &at,
                    format!(
                        "the first message has role {}; it must be the one 'system' message",
                        r.map_or_else(|| "none".to_string(), |r| format!("'{r}'"))
                    ),
                ),
                (_, Some(r @ ("system" | "developer"))) => self.push(
                    ViolationKind::SystemMessage,
                    &at,
                    format!(
                        "role '{r}' after index 0: only the first message may carry the system \
                         prompt"
                    ),
                ),
                _ => {}
            }
            for key in m.keys() {
                if !MESSAGE_KEYS.contains(&key.as_str()) {
                    self.push(
                        ViolationKind::Shape,
                        &format!("{at}.{key}"),
                        "a key a message does not have",
                    );
                }
            }
            if role != Some("tool") {
                self.close(&mut open);
            }
            match role {
                Some("system") => self.text_content(&at, m, false),
                Some("developer") => {}
                Some("user") => self.text_content(&at, m, true),
                Some("assistant") => open = self.assistant(&at, m),
                Some("tool") => self.tool_message(&at, m, &mut open),
                Some(other) => self.push(
                    ViolationKind::Role,
                    &format!("{at}.role"),
                    format!("role '{other}' is not one of system, user, assistant, tool"),
                ),
                None => self.push(
                    ViolationKind::Role,
                    &format!("{at}.role"),
                    "the message has no role (a string)",
                ),
            }
            if role != Some("assistant") && m.contains_key("tool_calls") {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.tool_calls"),
                    "only an assistant message makes tool calls",
                );
            }
            if role != Some("tool") && m.contains_key("tool_call_id") {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.tool_call_id"),
                    "only a tool message answers a tool call",
                );
            }
        }
        self.close(&mut open);
    }

    /// The calls of the last assistant message that are still unanswered, once a message
    /// other than their `tool` messages comes (or the request ends).
    fn close(&mut self, open: &mut Option<OpenCalls>) {
        if let Some(calls) = open.take() {
            for id in calls.pending {
                self.push(
                    ViolationKind::UnansweredCall,
                    &calls.at,
                    format!(
                        "tool call {id:?} has no tool message right after the assistant message \
                         that made it"
                    ),
                );
            }
        }
    }

    /// `content`: a string, or a non-empty array of text parts (image parts too, in a user
    /// message).
    fn text_content(&mut self, at: &str, m: &Map<String, Value>, images: bool) {
        let at = format!("{at}.content");
        match m.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(parts)) => self.parts(&at, parts, images),
            Some(Value::Null) | None => {
                self.push(ViolationKind::Content, &at, "the message has no content");
            }
            Some(_) => self.push(
                ViolationKind::Content,
                &at,
                "content is neither a string nor an array of content parts",
            ),
        }
    }

    fn parts(&mut self, at: &str, parts: &[Value], images: bool) {
        if parts.is_empty() {
            self.push(
                ViolationKind::Content,
                at,
                "an empty array of content parts",
            );
        }
        for (j, part) in parts.iter().enumerate() {
            let at = format!("{at}[{j}]");
            let kind = part.get("type").and_then(Value::as_str);
            let fine = match kind {
                Some("text") => {
                    part.get("text").is_some_and(Value::is_string)
                        && part.as_object().is_some_and(|p| p.len() == 2)
                }
                Some("image_url") if images => {
                    part.pointer("/image_url/url").is_some_and(Value::is_string)
                        && part.as_object().is_some_and(|p| p.len() == 2)
                }
                _ => false,
            };
            if !fine {
                self.push(
                    ViolationKind::Content,
                    &at,
                    if images {
                        "not a text part {\"type\":\"text\",\"text\"} or an image part \
                         {\"type\":\"image_url\",\"image_url\":{\"url\"}}"
                    } else {
                        "not a text part {\"type\":\"text\",\"text\"}"
                    },
                );
            }
        }
    }

    /// An assistant message: its content and its tool calls; returns the calls its `tool`
    /// messages must answer.
    fn assistant(&mut self, at: &str, m: &Map<String, Value>) -> Option<OpenCalls> {
        let calls = match m.get("tool_calls") {
            None => None,
            Some(Value::Array(calls)) if !calls.is_empty() => Some(calls),
            Some(_) => {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.tool_calls"),
                    "tool_calls is not a non-empty array (leave it out when there are none)",
                );
                None
            }
        };
        // Content may be left out (or null) only when the message calls tools.
        match (m.get("content"), calls.is_some()) {
            (None | Some(Value::Null), true) => {}
            (content, _) => {
                let content_at = format!("{at}.content");
                match content {
                    Some(Value::String(_)) => {}
                    Some(Value::Array(parts)) => self.parts(&content_at, parts, false),
                    Some(Value::Null) | None => self.push(
                        ViolationKind::Content,
                        &content_at,
                        "an assistant message without tool calls needs content",
                    ),
                    Some(_) => self.push(
                        ViolationKind::Content,
                        &content_at,
                        "content is neither a string, null, nor an array of text parts",
                    ),
                }
            }
        }
        let calls = calls?;
        let mut open = OpenCalls {
            at: at.to_string(),
            pending: Vec::new(),
            answered: HashSet::new(),
        };
        for (k, call) in calls.iter().enumerate() {
            let call_at = format!("{at}.tool_calls[{k}]");
            if let Some(id) = self.tool_call(&call_at, call) {
                if open.pending.contains(&id) {
                    self.push(
                        ViolationKind::UnansweredCall,
                        &format!("{call_at}.id"),
                        format!(
                            "call id {id:?} is given twice in one message, so a tool message \
                             cannot say which call it answers"
                        ),
                    );
                } else {
                    open.pending.push(id);
                }
            }
        }
        Some(open)
    }

    /// One `{"id","type":"function","function":{"name","arguments"}}`; returns its id.
    fn tool_call(&mut self, at: &str, call: &Value) -> Option<String> {
        let Some(call) = call.as_object() else {
            self.push(ViolationKind::Shape, at, "a tool call is not a JSON object");
            return None;
        };
        for key in call.keys() {
            if !["id", "type", "function"].contains(&key.as_str()) {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.{key}"),
                    "a key a tool call does not have",
                );
            }
        }
        if call.get("type").and_then(Value::as_str) != Some("function") {
            self.push(
                ViolationKind::Shape,
                &format!("{at}.type"),
                "a tool call's type must be \"function\"",
            );
        }
        let id = call.get("id").and_then(Value::as_str);
        if id.is_none_or(str::is_empty) {
            self.push(
                ViolationKind::Shape,
                &format!("{at}.id"),
                "a tool call needs a non-empty string id",
            );
        }
        // An empty id still binds its tool message: the one violation is the id.
        let id = id.map(str::to_string);
        let function = call.get("function").and_then(Value::as_object);
        let Some(function) = function else {
            self.push(
                ViolationKind::Shape,
                &format!("{at}.function"),
                "a tool call needs a function object {\"name\",\"arguments\"}",
            );
            return id;
        };
        for key in function.keys() {
            if !["name", "arguments"].contains(&key.as_str()) {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.function.{key}"),
                    "a key a tool call's function does not have",
                );
            }
        }
        match function.get("name").and_then(Value::as_str) {
            Some(name) => self.function_name(&format!("{at}.function.name"), name),
            None => self.push(
                ViolationKind::ToolName,
                &format!("{at}.function.name"),
                "a tool call needs a function name",
            ),
        }
        let arguments_at = format!("{at}.function.arguments");
        match function.get("arguments") {
            Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(_)) => {}
                Ok(other) => self.push(
                    ViolationKind::Arguments,
                    &arguments_at,
                    format!(
                        "the arguments are {}, not an object: {text}",
                        json_type(&other)
                    ),
                ),
                Err(e) => self.push(
                    ViolationKind::Arguments,
                    &arguments_at,
                    format!("the arguments are not JSON ({e}): {text}"),
                ),
            },
            _ => self.push(
                ViolationKind::Arguments,
                &arguments_at,
                "the arguments must be a string holding a JSON object",
            ),
        }
        id
    }

    /// A `tool` message: a string content, and a call of the assistant message before it.
    fn tool_message(&mut self, at: &str, m: &Map<String, Value>, open: &mut Option<OpenCalls>) {
        self.text_content(at, m, false);
        let Some(id) = m.get("tool_call_id").and_then(Value::as_str) else {
            self.push(
                ViolationKind::UnboundToolMessage,
                &format!("{at}.tool_call_id"),
                "a tool message needs the id of the call it answers",
            );
            return;
        };
        let Some(calls) = open.as_mut() else {
            self.push(
                ViolationKind::UnboundToolMessage,
                &format!("{at}.tool_call_id"),
                format!(
                    "the tool message for {id:?} does not follow an assistant message that made \
                     the call"
                ),
            );
            return;
        };
        if let Some(p) = calls.pending.iter().position(|c| c == id) {
            calls.pending.remove(p);
            calls.answered.insert(id.to_string());
        } else if calls.answered.contains(id) {
            self.push(
                ViolationKind::UnboundToolMessage,
                &format!("{at}.tool_call_id"),
                format!("call {id:?} is answered a second time"),
            );
        } else {
            self.push(
                ViolationKind::UnboundToolMessage,
                &format!("{at}.tool_call_id"),
                format!(
                    "no call {id:?} in the assistant message at {} that these tool messages \
                     answer",
                    calls.at
                ),
            );
        }
    }

    fn function_name(&mut self, at: &str, name: &str) {
        if !is_function_name(name) {
            self.push(
                ViolationKind::ToolName,
                at,
                format!(
                    "{name:?} is not a function name an API accepts (1 to 64 ASCII letters, \
                     digits, '_' and '-')"
                ),
            );
        }
    }

    fn tools(&mut self, tools: &Value) {
        let Some(tools) = tools.as_array() else {
            self.push(ViolationKind::Shape, "tools", "tools is not an array");
            return;
        };
        let mut offered = HashSet::new();
        for (i, tool) in tools.iter().enumerate() {
            let at = format!("tools[{i}]");
            if tool.get("type").and_then(Value::as_str) != Some("function") {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.type"),
                    "an offered tool's type must be \"function\"",
                );
            }
            let Some(function) = tool.get("function").and_then(Value::as_object) else {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.function"),
                    "an offered tool needs a function object",
                );
                continue;
            };
            let name_at = format!("{at}.function.name");
            match function.get("name").and_then(Value::as_str) {
                Some(name) => {
                    self.function_name(&name_at, name);
                    if !offered.insert(name) {
                        self.push(
                            ViolationKind::ToolName,
                            &name_at,
                            format!("the tool {name:?} is offered twice"),
                        );
                    }
                }
                None => self.push(
                    ViolationKind::ToolName,
                    &name_at,
                    "an offered tool needs a name",
                ),
            }
            if function.get("description").is_some_and(|d| !d.is_string()) {
                self.push(
                    ViolationKind::Shape,
                    &format!("{at}.function.description"),
                    "a description is a string",
                );
            }
            let parameters_at = format!("{at}.function.parameters");
            match function.get("parameters") {
                Some(schema @ Value::Object(map)) => {
                    if map.get("type").and_then(Value::as_str) != Some("object") {
                        self.push(
                            ViolationKind::ToolParameters,
                            &format!("{parameters_at}.type"),
                            "the parameters must be a JSON Schema of type \"object\"",
                        );
                    }
                    self.schema(&parameters_at, schema);
                }
                _ => self.push(
                    ViolationKind::ToolParameters,
                    &parameters_at,
                    "the parameters must be a JSON Schema object",
                ),
            }
        }
    }

    /// A JSON Schema: an object (or `true`/`false`) whose keywords keel or an API reads have
    /// the types the specification gives them; its subschemas likewise.
    fn schema(&mut self, at: &str, schema: &Value) {
        let map = match schema {
            Value::Bool(_) => return,
            Value::Object(map) => map,
            _ => {
                self.push(
                    ViolationKind::ToolParameters,
                    at,
                    "a schema is a JSON object (or true/false)",
                );
                return;
            }
        };
        const TYPES: [&str; 7] = [
            "string", "number", "integer", "boolean", "object", "array", "null",
        ];
        let is_type = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
        if let Some(t) = map.get("type") {
            let fine = match t {
                Value::Array(ts) => !ts.is_empty() && ts.iter().all(is_type),
                t => is_type(t),
            };
            if !fine {
                self.push(
                    ViolationKind::ToolParameters,
                    &format!("{at}.type"),
                    format!("{t} is not a JSON Schema type"),
                );
            }
        }
        if let Some(required) = map.get("required") {
            let fine = required
                .as_array()
                .is_some_and(|r| r.iter().all(Value::is_string));
            if !fine {
                self.push(
                    ViolationKind::ToolParameters,
                    &format!("{at}.required"),
                    "required is an array of property names",
                );
            }
        }
        if map.get("enum").is_some_and(|e| !e.is_array()) {
            self.push(
                ViolationKind::ToolParameters,
                &format!("{at}.enum"),
                "enum is an array",
            );
        }
        for key in ["properties", "$defs", "definitions", "patternProperties"] {
            match map.get(key) {
                None => {}
                Some(Value::Object(subs)) => {
                    for (name, sub) in subs {
                        self.schema(&format!("{at}.{key}.{name}"), sub);
                    }
                }
                Some(_) => self.push(
                    ViolationKind::ToolParameters,
                    &format!("{at}.{key}"),
                    format!("{key} is an object of schemas"),
                ),
            }
        }
        for key in ["items", "additionalProperties", "not", "contains"] {
            match map.get(key) {
                None => {}
                // `items` as an array of schemas is the older tuple form.
                Some(Value::Array(subs)) if key == "items" => {
                    for (j, sub) in subs.iter().enumerate() {
                        self.schema(&format!("{at}.{key}[{j}]"), sub);
                    }
                }
                Some(sub) => self.schema(&format!("{at}.{key}"), sub),
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            match map.get(key) {
                None => {}
                Some(Value::Array(subs)) if !subs.is_empty() => {
                    for (j, sub) in subs.iter().enumerate() {
                        self.schema(&format!("{at}.{key}[{j}]"), sub);
                    }
                }
                Some(_) => self.push(
                    ViolationKind::ToolParameters,
                    &format!("{at}.{key}"),
                    format!("{key} is a non-empty array of schemas"),
                ),
            }
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "JSON null",
        Value::Bool(_) => "a JSON boolean",
        Value::Number(_) => "a JSON number",
        Value::String(_) => "a JSON string",
        Value::Array(_) => "a JSON array",
        Value::Object(_) => "a JSON object",
    }
}

#[cfg(test)]
mod tests;
