//! The output grammar of the local model: GBNF generated from the offered tools' JSON schemas,
//! so llama.cpp's sampler can only produce a well-formed reply or a well-formed call of an
//! offered tool — never a tool that does not exist or an argument of the wrong type.
//!
//! The model answers with one JSON object, either `{"reply": "text"}` or
//! `{"tool": "NAME", "arguments": {...}}`. Schema support is what tools need: objects with
//! `properties` and `required` (required keys first, in schema order, then each optional key),
//! strings (with `enum`), integers, numbers, booleans, arrays of those; anything else is any
//! JSON value.

use serde_json::Value;

use crate::ToolSpec;

/// GBNF for a JSON string: printable characters and JSON escapes.
const STRING: &str = r#"string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] ) )* "\"""#;

const COMMON: &str = r#"ws ::= [ ]?
integer ::= "-"? ( "0" | [1-9] [0-9]* )
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
boolean ::= "true" | "false"
value ::= string | number | boolean | "null" | object | array
object ::= "{" ws ( string ":" ws value ( "," ws string ":" ws value )* )? "}"
array ::= "[" ws ( value ( "," ws value )* )? "]""#;

/// A GBNF string literal for `text` (a JSON fragment).
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A rule name for a tool: GBNF names are `[a-zA-Z0-9-]`.
fn rule_name(prefix: &str, name: &str, index: usize) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{prefix}{index}-{clean}")
}

struct Rules {
    rules: Vec<String>,
    next: usize,
}

impl Rules {
    fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        format!("{base}-{}", self.next)
    }

    /// The rule expression matching `schema`.
    fn expr(&mut self, schema: &Value) -> String {
        if let Some(options) = schema["enum"].as_array() {
            let alts: Vec<String> = options.iter().map(|o| literal(&o.to_string())).collect();
            if !alts.is_empty() {
                return format!("( {} )", alts.join(" | "));
            }
        }
        match schema["type"].as_str() {
            Some("string") => "string".into(),
            Some("integer") => "integer".into(),
            Some("number") => "number".into(),
            Some("boolean") => "boolean".into(),
            Some("array") => {
                let item = self.expr(&schema["items"]);
                let name = self.fresh("array");
                self.rules.push(format!(
                    "{name} ::= \"[\" ws ( {item} ( \",\" ws {item} )* )? \"]\""
                ));
                name
            }
            Some("object") if schema["properties"].is_object() => self.object(schema),
            _ => "value".into(),
        }
    }

    fn object(&mut self, schema: &Value) -> String {
        let empty = serde_json::Map::new();
        let properties = schema["properties"].as_object().unwrap_or(&empty);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut parts: Vec<(String, bool)> = Vec::new();
        for (key, sub) in properties {
            let value = self.expr(sub);
            let member = format!("{} ws {value}", literal(&format!("\"{key}\":")));
            parts.push((member, required.contains(&key.as_str())));
        }
        // Required keys first (schema order), then each optional key. With no required key,
        // the first key present leads, so no member ever starts with a stray comma.
        parts.sort_by_key(|(_, req)| !*req);
        let name = self.fresh("object");
        let optional_tail = |members: &[(String, bool)]| -> String {
            members
                .iter()
                .map(|(m, _)| format!(" ( \",\" ws {m} )?"))
                .collect()
        };
        let body = if parts.first().is_some_and(|(_, req)| *req) {
            let required: Vec<&str> = parts
                .iter()
                .filter(|(_, r)| *r)
                .map(|(m, _)| m.as_str())
                .collect();
            let optional: Vec<(String, bool)> =
                parts.iter().filter(|(_, r)| !*r).cloned().collect();
            format!(
                " {}{}",
                required.join(" \",\" ws "),
                optional_tail(&optional)
            )
        } else if parts.is_empty() {
            String::new()
        } else {
            let leads: Vec<String> = (0..parts.len())
                .map(|i| format!("{}{}", parts[i].0, optional_tail(&parts[i + 1..])))
                .collect();
            format!(" ( {} )?", leads.join(" | "))
        };
        self.rules
            .push(format!("{name} ::= \"{{\" ws{body} ws \"}}\""));
        name
    }
}

/// The grammar for a reply or one call of one of `tools`.
pub fn for_tools(tools: &[ToolSpec]) -> String {
    let mut rules = Rules {
        rules: Vec::new(),
        next: 0,
    };
    let mut alternatives = vec!["reply".to_string()];
    let mut tool_rules = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let args = rules.expr(&tool.parameters);
        let name = rule_name("call", &tool.name, i);
        tool_rules.push(format!(
            "{name} ::= {} ws {args} \"}}\"",
            literal(&format!("{{\"tool\": \"{}\", \"arguments\":", tool.name))
        ));
        alternatives.push(name);
    }
    let mut out = vec![
        format!("root ::= {}", alternatives.join(" | ")),
        format!("reply ::= {} ws string \"}}\"", literal("{\"reply\":")),
    ];
    out.extend(tool_rules);
    out.extend(rules.rules);
    out.push(STRING.to_string());
    out.push(COMMON.to_string());
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_becomes_a_rule_with_its_required_keys() {
        let g = for_tools(&[ToolSpec {
            name: "read_file".into(),
            description: "Read.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "max_bytes": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["text", "hex"]}
                },
                "required": ["path"]
            }),
        }]);
        assert!(g.starts_with("root ::= reply | call0-read-file\n"), "{g}");
        assert!(
            g.contains(
                r#"call0-read-file ::= "{\"tool\": \"read_file\", \"arguments\":" ws object-1 "}""#
            ),
            "{g}"
        );
        assert!(
            g.contains(r#"object-1 ::= "{" ws "\"path\":" ws string ( "," ws "\"max_bytes\":" ws integer )? ( "," ws "\"mode\":" ws ( "\"text\"" | "\"hex\"" ) )? ws "}""#),
            "{g}"
        );
    }

    #[test]
    fn without_tools_only_a_reply_is_possible() {
        let g = for_tools(&[]);
        assert!(g.starts_with("root ::= reply\nreply ::= "), "{g}");
    }
}

#[cfg(test)]
mod optional_only {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_object_with_only_optional_keys_never_starts_with_a_comma() {
        let g = for_tools(&[ToolSpec {
            name: "list_dir".into(),
            description: "List.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "all": {"type": "boolean"}}
            }),
        }]);
        assert!(
            g.contains(r#"object-1 ::= "{" ws ( "\"path\":" ws string ( "," ws "\"all\":" ws boolean )? | "\"all\":" ws boolean )? ws "}""#),
            "{g}"
        );
    }
}
