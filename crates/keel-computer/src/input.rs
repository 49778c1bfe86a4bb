//! The `computer_use` tool's input (N3): one tool, `op` selecting the operation, checked
//! strictly. An unknown field, a missing required field, a wrong type or an out-of-range length
//! is `COMPUTER_INVALID_INPUT` with a diagnostic naming the field. Lengths are chars (N36), and
//! nothing is trimmed.

use serde_json::{Map, Value, json};

use super::observation::Expectation;

/// Session mode: `observe` never dispatches input (N9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Observe,
    Control,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observe => "observe",
            Mode::Control => "control",
        }
    }
}

/// One checked operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Discover {
        query: String,
    },
    Open {
        app_ref: String,
        window_ref: Option<String>,
        mode: Mode,
        prepare: bool,
    },
    Observe {
        question: Option<String>,
        expect: Option<Expectation>,
    },
    Step {
        goal: String,
        expect: Option<Expectation>,
    },
    Close,
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::Discover { .. } => "discover",
            Op::Open { .. } => "open",
            Op::Observe { .. } => "observe",
            Op::Step { .. } => "step",
            Op::Close => "close",
        }
    }
}

/// Why the input was refused: the field (dot path) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct InvalidInput {
    pub field: String,
    pub message: String,
}

fn invalid(field: &str, message: impl Into<String>) -> InvalidInput {
    InvalidInput {
        field: field.to_string(),
        message: message.into(),
    }
}

/// The most chars of each bounded field (N3).
pub const MAX_QUERY: usize = 200;
pub const MAX_QUESTION: usize = 4000;
pub const MAX_GOAL: usize = 4000;
pub const MAX_EXPECT_TEXT: usize = 1000;
pub const MAX_LABEL: usize = 300;
pub const MAX_VALUE: usize = 4000;

struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: &'a str,
}

impl<'a> Fields<'a> {
    fn path(&self, key: &str) -> String {
        keel_core::text::dot_join(self.prefix, key)
    }

    /// Only `allowed` keys may be present.
    fn only(&self, allowed: &[&str]) -> Result<(), InvalidInput> {
        match self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(invalid(
                &self.path(k),
                format!(
                    "unknown field; allowed here: {}",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            )),
            None => Ok(()),
        }
    }

    fn string(&self, key: &str, min: usize, max: usize) -> Result<Option<String>, InvalidInput> {
        let Some(v) = self.map.get(key) else {
            return Ok(None);
        };
        let Some(s) = v.as_str() else {
            return Err(invalid(&self.path(key), "must be a string"));
        };
        let n = s.chars().count();
        if n < min || n > max {
            return Err(invalid(
                &self.path(key),
                format!("must be {min} to {max} characters long, not {n}"),
            ));
        }
        Ok(Some(s.to_string()))
    }

    fn required_string(&self, key: &str, min: usize, max: usize) -> Result<String, InvalidInput> {
        self.string(key, min, max)?
            .ok_or_else(|| invalid(&self.path(key), "is required"))
    }
}

/// Checks one `computer_use` call's arguments.
pub fn parse(args: &Value) -> Result<Op, InvalidInput> {
    let Some(map) = args.as_object() else {
        return Err(invalid("", "arguments must be a JSON object"));
    };
    let f = Fields { map, prefix: "" };
    let op = match map.get("op") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(invalid("op", "must be a string")),
        None => {
            return Err(invalid(
                "op",
                "is required: one of discover, open, observe, step, close",
            ));
        }
    };
    match op {
        "discover" => {
            f.only(&["op", "query"])?;
            Ok(Op::Discover {
                query: f.required_string("query", 0, MAX_QUERY)?,
            })
        }
        "open" => {
            f.only(&["op", "appRef", "windowRef", "mode", "prepare"])?;
            let mode = match f.required_string("mode", 1, 16)?.as_str() {
                "observe" => Mode::Observe,
                "control" => Mode::Control,
                other => {
                    return Err(invalid(
                        "mode",
                        format!("must be observe or control, not {other:?}"),
                    ));
                }
            };
            let prepare = match map.get("prepare") {
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(invalid("prepare", "must be true or false")),
                None => return Err(invalid("prepare", "is required (true or false)")),
            };
            Ok(Op::Open {
                app_ref: f.required_string("appRef", 1, 200)?,
                window_ref: f.string("windowRef", 1, 200)?,
                mode,
                prepare,
            })
        }
        "observe" => {
            f.only(&["op", "question", "expect"])?;
            Ok(Op::Observe {
                question: f.string("question", 1, MAX_QUESTION)?,
                expect: expectation(map.get("expect"))?,
            })
        }
        "step" => {
            f.only(&["op", "goal", "expect"])?;
            Ok(Op::Step {
                goal: f.required_string("goal", 1, MAX_GOAL)?,
                expect: expectation(map.get("expect"))?,
            })
        }
        "close" => {
            f.only(&["op"])?;
            Ok(Op::Close)
        }
        other => Err(invalid(
            "op",
            format!("unknown op {other:?}; one of discover, open, observe, step, close"),
        )),
    }
}

fn expectation(value: Option<&Value>) -> Result<Option<Expectation>, InvalidInput> {
    let Some(value) = value else {
        return Ok(None);
    };
    let Some(map) = value.as_object() else {
        return Err(invalid("expect", "must be an object with a kind"));
    };
    let f = Fields {
        map,
        prefix: "expect",
    };
    let kind = f.required_string("kind", 1, 16)?;
    Ok(Some(match kind.as_str() {
        "text" => {
            f.only(&["kind", "text"])?;
            Expectation::Text {
                text: f.required_string("text", 1, MAX_EXPECT_TEXT)?,
            }
        }
        "field" => {
            f.only(&["kind", "label", "value"])?;
            Expectation::Field {
                label: f.required_string("label", 1, MAX_LABEL)?,
                value: f.required_string("value", 0, MAX_VALUE)?,
            }
        }
        "selected" => {
            f.only(&["kind", "label"])?;
            Expectation::Selected {
                label: f.required_string("label", 1, MAX_LABEL)?,
            }
        }
        other => {
            return Err(invalid(
                "expect.kind",
                format!("must be text, field or selected, not {other:?}"),
            ));
        }
    }))
}

/// The JSON schema the model is offered. Model APIs handle a flat object best, so every op's
/// fields sit side by side and the description says which belong to which; [`parse`] is the
/// strict check. Exempt from provenance: `appRef`/`windowRef` (handles this tool issued and
/// checks), `expect` (a condition to verify, which directs nothing), and `op`, `mode` and
/// `prepare` (what they lead to is put to the person by the tool itself: opening names the
/// mode and whether the window is brought forward, and every consequential input is asked
/// about). `goal` and `question`, which direct what happens, are checked.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ["discover", "open", "observe", "step", "close"], "x-keel-provenance": "exempt"},
            "query": {"type": "string", "maxLength": MAX_QUERY, "description": "discover: the app name; empty lists the apps"},
            "appRef": {"type": "string", "description": "open: copied from this task's discover result", "x-keel-provenance": "exempt"},
            "windowRef": {"type": "string", "description": "open: copied from a window error's candidates", "x-keel-provenance": "exempt"},
            "mode": {"type": "string", "enum": ["observe", "control"], "description": "open", "x-keel-provenance": "exempt"},
            "prepare": {"type": "boolean", "description": "open: bring the window forward; only if the task authorizes it", "x-keel-provenance": "exempt"},
            "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION, "description": "observe: what to inspect"},
            "goal": {"type": "string", "minLength": 1, "maxLength": MAX_GOAL, "description": "step: one concrete next GUI action"},
            "expect": {
                "type": "object",
                "x-keel-provenance": "exempt",
                "description": "observe/step: {kind:\"text\",text} | {kind:\"field\",label,value} | {kind:\"selected\",label}",
                "properties": {
                    "kind": {"type": "string", "enum": ["text", "field", "selected"]},
                    "text": {"type": "string"},
                    "label": {"type": "string"},
                    "value": {"type": "string"}
                },
                "required": ["kind"],
                "additionalProperties": false
            }
        },
        "required": ["op"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(v: Value) -> InvalidInput {
        match parse(&v) {
            Err(e) => e,
            Ok(op) => panic!("{v} should be invalid, got {op:?}"),
        }
    }

    fn ok(v: Value) -> Op {
        parse(&v).unwrap_or_else(|e| panic!("{v}: {e}"))
    }

    #[test]
    fn t2_input_validation() {
        assert_eq!(
            err(json!({"op":"discover","query":"a".repeat(201)})).field,
            "query"
        );
        assert_eq!(
            err(json!({"op":"open","appRef":"r","mode":"observe"})).field,
            "prepare"
        );
        assert_eq!(err(json!({"op":"observe","question":""})).field, "question");
        assert_eq!(
            err(json!({"op":"step","goal":"x","extra":1})).field,
            "extra"
        );
        assert_eq!(
            err(json!({"op":"step","goal":"g","expect":{"kind":"field","label":"a".repeat(301),"value":""}}))
                .field,
            "expect.label"
        );
        // 200 chars of a non-BMP emoji: 400 UTF-16 units, valid (N36).
        assert_eq!(
            ok(json!({"op":"discover","query":"😀".repeat(200)})),
            Op::Discover {
                query: "😀".repeat(200)
            }
        );
    }

    #[test]
    fn each_op_parses_with_its_fields() {
        assert_eq!(
            ok(
                json!({"op":"open","appRef":"app-1","mode":"control","prepare":true,"windowRef":"w"})
            ),
            Op::Open {
                app_ref: "app-1".into(),
                window_ref: Some("w".into()),
                mode: Mode::Control,
                prepare: true
            }
        );
        assert_eq!(
            ok(json!({"op":"observe"})),
            Op::Observe {
                question: None,
                expect: None
            }
        );
        assert_eq!(
            ok(
                json!({"op":"step","goal":"Tick it","expect":{"kind":"selected","label":"Memories"}})
            ),
            Op::Step {
                goal: "Tick it".into(),
                expect: Some(Expectation::Selected {
                    label: "Memories".into()
                })
            }
        );
        assert_eq!(ok(json!({"op":"close"})), Op::Close);
        assert_eq!(
            ok(json!({"op":"discover","query":""})),
            Op::Discover {
                query: String::new()
            }
        );
    }

    #[test]
    fn wrong_types_unknown_ops_and_missing_fields_are_refused() {
        assert_eq!(err(json!([])).field, "");
        assert_eq!(err(json!({})).field, "op");
        assert_eq!(err(json!({"op":"click"})).field, "op");
        assert_eq!(err(json!({"op":"close","why":1})).field, "why");
        assert_eq!(err(json!({"op":"discover"})).field, "query");
        assert_eq!(
            err(json!({"op":"open","appRef":"r","mode":"drive","prepare":false})).field,
            "mode"
        );
        assert_eq!(
            err(json!({"op":"open","appRef":"r","mode":"observe","prepare":"yes"})).field,
            "prepare"
        );
        assert_eq!(err(json!({"op":"step"})).field, "goal");
        assert_eq!(err(json!({"op":"step","goal":7})).field, "goal");
        assert_eq!(
            err(json!({"op":"observe","expect":{"kind":"text","text":"a","label":"b"}})).field,
            "expect.label"
        );
        assert_eq!(
            err(json!({"op":"observe","expect":{"kind":"colour"}})).field,
            "expect.kind"
        );
        assert_eq!(
            err(json!({"op":"observe","expect":{"kind":"text","text":""}})).field,
            "expect.text"
        );
        assert_eq!(
            err(json!({"op":"step","goal":"g".repeat(4001)})).field,
            "goal"
        );
    }

    #[test]
    fn nothing_is_trimmed() {
        assert_eq!(
            ok(json!({"op":"step","goal":"  spaced  "})),
            Op::Step {
                goal: "  spaced  ".into(),
                expect: None
            }
        );
    }
}
