//! Reading `keel call` input: one JSON object, with errors that name the dotted path of the
//! offending field (interfaces.md §1). Optional keys that are absent or `null` take their
//! default; unknown keys are ignored at every level.

use serde_json::{Map, Value};

/// Bad input: exit 2, `{"error","field"}` on stderr.
#[derive(Debug, PartialEq, Eq)]
pub struct BadInput {
    pub error: String,
    pub field: String,
}

impl BadInput {
    pub fn new(field: impl Into<String>, error: impl Into<String>) -> Self {
        Self {
            error: error.into(),
            field: field.into(),
        }
    }
}

/// The most `keel call` reads from stdin.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Parses stdin bytes into the input object.
pub fn parse_input(bytes: &[u8]) -> Result<Value, BadInput> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(BadInput::new(
            "",
            format!(
                "input is larger than {} MiB; pass a smaller object",
                MAX_INPUT_BYTES / 1024 / 1024
            ),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        BadInput::new(
            "",
            format!(
                "input is not valid UTF-8 (at byte {}); send one UTF-8 JSON object on stdin",
                e.valid_up_to()
            ),
        )
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        BadInput::new(
            "",
            format!("input is not valid JSON ({e}); send one JSON object on stdin"),
        )
    })?;
    if !value.is_object() {
        return Err(BadInput::new(
            "",
            format!("input must be a JSON object, not {}", type_name(&value)),
        ));
    }
    Ok(value)
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON object being read, with its dotted path.
pub struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    /// The input object itself.
    pub fn root(value: &'a Value) -> Result<Self, BadInput> {
        Self::at(value, String::new())
    }

    /// `value` as an object found at `path`.
    pub fn at(value: &'a Value, path: String) -> Result<Self, BadInput> {
        match value {
            Value::Object(map) => Ok(Self { map, path }),
            other => Err(BadInput::new(
                path.clone(),
                format!(
                    "`{}` must be an object, not {}",
                    shown(&path),
                    type_name(other)
                ),
            )),
        }
    }

    /// The dotted path of `key` inside this object.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// A key that may be absent; `null` counts as absent.
    pub fn opt(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub fn req(&self, key: &str) -> Result<&'a Value, BadInput> {
        self.opt(key).ok_or_else(|| {
            BadInput::new(
                self.path_of(key),
                format!("`{}` is required", self.path_of(key)),
            )
        })
    }

    fn wrong(&self, key: &str, want: &str, got: &Value) -> BadInput {
        BadInput::new(
            self.path_of(key),
            format!(
                "`{}` must be {want}, not {}",
                self.path_of(key),
                type_name(got)
            ),
        )
    }

    pub fn req_str(&self, key: &str) -> Result<&'a str, BadInput> {
        let v = self.req(key)?;
        v.as_str().ok_or_else(|| self.wrong(key, "a string", v))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, BadInput> {
        self.opt(key)
            .map(|v| v.as_str().ok_or_else(|| self.wrong(key, "a string", v)))
            .transpose()
    }

    pub fn req_array(&self, key: &str) -> Result<Items<'a>, BadInput> {
        let v = self.req(key)?;
        self.array(key, v)
    }

    pub fn opt_array(&self, key: &str) -> Result<Option<Items<'a>>, BadInput> {
        self.opt(key).map(|v| self.array(key, v)).transpose()
    }

    /// An optional nested options object (`{"options":{"summaryCharBudget":0}}`); absent or
    /// `null` is `None`.
    pub fn opt_obj(&self, key: &str) -> Result<Option<Obj<'a>>, BadInput> {
        self.opt(key)
            .map(|v| Obj::at(v, self.path_of(key)))
            .transpose()
    }

    /// An optional signed integer: `1.5`, `1e3` and `"3"` are bad input.
    pub fn opt_int(&self, key: &str) -> Result<Option<i64>, BadInput> {
        self.opt(key)
            .map(|v| v.as_i64().ok_or_else(|| self.wrong(key, "an integer", v)))
            .transpose()
    }

    pub fn req_int(&self, key: &str) -> Result<i64, BadInput> {
        let v = self.req(key)?;
        v.as_i64().ok_or_else(|| self.wrong(key, "an integer", v))
    }

    fn array(&self, key: &str, v: &'a Value) -> Result<Items<'a>, BadInput> {
        let list = v.as_array().ok_or_else(|| self.wrong(key, "an array", v))?;
        let base = self.path_of(key);
        Ok(Items {
            list: list
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("{base}.{i}"), v))
                .collect(),
        })
    }
}

/// The elements of an array, each with its dotted path.
pub struct Items<'a> {
    pub list: Vec<(String, &'a Value)>,
}

impl<'a> Items<'a> {
    /// Each element as an object.
    pub fn objects(self) -> Result<Vec<Obj<'a>>, BadInput> {
        self.list.into_iter().map(|(p, v)| Obj::at(v, p)).collect()
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "input" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_errors_have_empty_field() {
        assert_eq!(
            parse_input(b"\xff").map_err(|e| e.field),
            Err(String::new())
        );
        assert!(parse_input(b"{").is_err_and(|e| e.error.contains("not valid JSON")));
        assert!(parse_input(b"[1]").is_err_and(|e| e.error.contains("an array")));
        assert!(parse_input(b"{}").is_ok());
    }

    #[test]
    fn paths_are_dotted() -> Result<(), BadInput> {
        let v = json!({"ops": [{"op": "add"}, {"op": "add", "n": 1.5, "t": null}]});
        let root = Obj::root(&v)?;
        let ops = root.req_array("ops")?.objects()?;
        assert_eq!(
            ops[1].req_str("text").err().map(|e| e.field),
            Some("ops.1.text".into())
        );
        assert_eq!(ops[1].opt_str("t")?, None, "null is absent");
        assert_eq!(
            root.req("missing").err().map(|e| e.field),
            Some("missing".into())
        );
        Ok(())
    }
}
