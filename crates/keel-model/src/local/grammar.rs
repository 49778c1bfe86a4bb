//! The output grammar of the local model: GBNF generated from the offered tools' JSON schemas,
//! so llama.cpp's sampler can only produce a well-formed reply or a well-formed call of an
//! offered tool — never a tool that does not exist or an argument of the wrong type.
//!
//! The model answers with one JSON object, either `{"reply": "text"}` or
//! `{"tool": "NAME", "arguments": {...}}`. Schema support is what tools need: objects with
//! `properties` and `required` (required keys first, in schema order, then each optional key),
//! strings (with `enum`), integers, numbers, booleans, arrays of those; anything else is any
//! JSON value.

use keel_core::ToolCall;
use serde_json::Value;

use crate::ToolSpec;

/// GBNF for a JSON string: printable characters and JSON escapes.
const STRING: &str = r#"string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] ) )* "\"""#;

/// A JSON string of at most [`SHORT_STRING`] characters (escapes count as one): the small
/// model's strings, so a rambling answer still closes its object within `max_tokens`.
const SHORT: &str = r#"string ::= "\"" char{0,SHORT_STRING} "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] )"#;

/// The longest string a small model writes, in characters.
pub const SHORT_STRING: usize = 240;

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

/// The grammar for a reply or one call of one of `tools`, from their schemas alone.
pub fn for_tools(tools: &[ToolSpec]) -> String {
    write(tools, false, true, None)
}

/// What a session narrows a grammar with, beyond the tools' schemas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// The workspace's files and folders, relative to it (folders without a trailing `/`);
    /// `None`: path arguments stay free strings.
    pub workspace: Option<Workspace>,
    /// Paths the user's latest message names (a file to write may not exist yet).
    pub named: Vec<String>,
    /// The words of the user's latest message a text to search for is picked from; empty:
    /// any text.
    pub words: Vec<String>,
    /// The previous step's calls that failed: none of them is admitted again as it was.
    pub failed: Vec<ToolCall>,
    /// The calls made since the user's latest message: none is made again with the same
    /// path or word (the same read gives the same result).
    pub done: Vec<ToolCall>,
    /// No answer without a tool this step (the user named a file and nothing has been done
    /// yet: an answer now could only be made up).
    pub require_tool: bool,
    /// Strings of at most [`SHORT_STRING`] characters (the small model's).
    pub short_strings: bool,
    /// Whether the user's message asks for a file to be written (`write`, `save`, `create`…):
    /// only then is a named file that exists a file to write (with `fit_message`).
    pub asks_to_write: bool,
    /// Only the tools that fit the user's message (the small model's choice): when it names
    /// files, the tools that act on those files (read one that exists, write one), not a
    /// listing or a search; when it names none, no file is written.
    pub fit_message: bool,
    /// The answer without a tool is written as a call of its own, [`REPLY_TOOL`], so the model
    /// makes one choice among the tools and the answer (the small model's form), instead of
    /// `{"reply": …}`.
    pub reply_as_tool: bool,
    /// The entries of the folder listed this turn (the last `list_dir` that went through),
    /// when the answer is what is left: the answer names them as a list, and only them — a
    /// small model copying a long listing makes entries up ("Benchmark.git" beside
    /// `.git`), as it would make up a path without the workspace's.
    pub listing: Vec<String>,
    /// The file written this turn and what was written to it (the last `write_file` that went
    /// through), when the answer is what is left: the answer says that file and that text —
    /// the small model otherwise copies its worked example's ("I wrote see you soon to
    /// note.txt" after writing `hello.txt`).
    pub written: Option<(String, String)>,
    /// The turn's last call, when it failed and the answer is what is left: what it tried
    /// ("write .env") and the first line of why it failed. The answer says both: the small
    /// model otherwise answers as if it had done the task, or with its example's words ("This
    /// is a test" after keel refused to write `.env`).
    pub failure: Option<(String, String)>,
    /// The user's message means the working folder ("this folder", "here", "the current
    /// directory") and names no other: a folder argument is `.` alone. Offered every folder,
    /// the small model listed `crates/keel-computer` for "List the files in this folder".
    pub here: bool,
}

/// The name of the answer without a tool when it is written as a call:
/// `{"tool": "reply", "arguments": {"text": "…"}}`.
pub const REPLY_TOOL: &str = "reply";

/// The paths of a workspace, as [`super::workspace::paths`] lists them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workspace {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

/// What a path argument of one of keel's own tools names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PathRole {
    /// A file that exists (`read_file`, `edit_file`).
    File,
    /// A folder that exists, or `.` (`list_dir`).
    Folder,
    /// A file to write: one the user named, when they named any (`write_file`).
    Target,
    /// A text to look for: a word of the user's message (`search_files`).
    Word,
}

fn path_role(tool: &str, key: &str) -> Option<PathRole> {
    match (tool, key) {
        ("read_file" | "edit_file", "path") => Some(PathRole::File),
        ("list_dir" | "search_files", "path") => Some(PathRole::Folder),
        ("write_file", "path") => Some(PathRole::Target),
        ("search_files", "text") => Some(PathRole::Word),
        _ => None,
    }
}

/// A grammar built from a session, and the tools it lets the model call.
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    pub grammar: String,
    /// The tools that fit: those whose arguments the session can fill, less those whose
    /// failed call could not be narrowed away any other way.
    pub tools: Vec<ToolSpec>,
}

/// The grammar for a reply or one call, narrowed by the session: a path argument of keel's
/// file tools admits only the paths that exist (and `.` for a folder, and the paths the user
/// named for a file to write); a call that just failed is not admitted again unchanged (its
/// path is taken out, or, where no argument is a list of choices, its tool is left out for
/// this step); a tool with a required path and nothing to fill it with is left out.
pub fn for_session(tools: &[ToolSpec], session: &Session) -> Built {
    let mut offered = Vec::new();
    'tools: for tool in tools {
        if session.reply_as_tool && tool.name == REPLY_TOOL {
            continue;
        }
        let mut tool = tool.clone();
        let keys: Vec<String> = tool.parameters["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let mut choices: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(ws) = &session.workspace {
            for key in &keys {
                let named_files: Vec<String> = session
                    .named
                    .iter()
                    .filter(|n| ws.files.contains(n))
                    .cloned()
                    .collect();
                let listed: Vec<String> = match path_role(&tool.name, key) {
                    None => continue,
                    // The files the user named, when they named some that exist.
                    Some(PathRole::File) if session.fit_message && !session.named.is_empty() => {
                        named_files
                    }
                    Some(PathRole::File) => ws.files.clone(),
                    Some(PathRole::Folder | PathRole::Word)
                        if session.fit_message && !session.named.is_empty() =>
                    {
                        continue 'tools;
                    }
                    Some(PathRole::Target) if session.fit_message && session.named.is_empty() => {
                        continue 'tools;
                    }
                    Some(PathRole::Folder) if session.here => vec![".".to_string()],
                    Some(PathRole::Folder) => std::iter::once(".".to_string())
                        .chain(ws.dirs.iter().cloned())
                        .collect(),
                    Some(PathRole::Target) if session.named.is_empty() => continue,
                    // A named file that exists is only overwritten when the message asks for
                    // a write: "Read trip.txt" must not end with trip.txt replaced.
                    Some(PathRole::Target) if session.fit_message && !session.asks_to_write => {
                        session
                            .named
                            .iter()
                            .filter(|n| !ws.files.contains(n))
                            .cloned()
                            .collect()
                    }
                    Some(PathRole::Target) => session.named.clone(),
                    Some(PathRole::Word) if session.words.is_empty() => continue,
                    Some(PathRole::Word) => session.words.clone(),
                };
                choices.push((key.clone(), listed));
            }
        }
        // A call made this turn, or one that just failed, is not admitted again as it was.
        for (made, failed) in session
            .done
            .iter()
            .map(|c| (c, false))
            .chain(session.failed.iter().map(|c| (c, true)))
            .filter(|(c, _)| c.name == tool.name)
        {
            let mut narrowed = false;
            for (key, listed) in &mut choices {
                let value = match made.arguments.get(key.as_str()) {
                    Some(Value::String(v)) => Some(v.as_str()),
                    // A folder left out is the working directory.
                    None if listed.first().is_some_and(|p| p == ".") => Some("."),
                    _ => None,
                };
                if let Some(value) = value {
                    listed.retain(|p| p != value);
                    narrowed = true;
                }
            }
            // A failed call with no list of choices to narrow: its tool sits this step out.
            if failed && !narrowed {
                continue 'tools;
            }
        }
        let required: Vec<String> = tool.parameters["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        for (key, listed) in choices {
            if listed.is_empty() {
                // A folder left out is the working directory, which is done too.
                let folder = path_role(&tool.name, &key) == Some(PathRole::Folder);
                if required.contains(&key) || folder {
                    continue 'tools;
                }
                if let Some(p) = tool.parameters["properties"].as_object_mut() {
                    p.remove(&key);
                }
                continue;
            }
            tool.parameters["properties"][key.as_str()] =
                serde_json::json!({"type": "string", "enum": listed});
        }
        offered.push(tool);
    }
    // The small model's turn is a call and its answer: once a call went through, with no
    // named file left to act on, what is left is the answer.
    let progressed = session
        .done
        .iter()
        .any(|d| !session.failed.iter().any(|f| f.id == d.id));
    if session.fit_message && session.named.is_empty() && progressed {
        offered.clear();
    }
    let reply = !session.require_tool || offered.is_empty();
    // (A file written stays the answer's subject even while other tools are still offered:
    // the user who named a file to write is answered about that file.)
    let answer = if offered.is_empty() && !session.listing.is_empty() {
        Some(listing_text(&session.listing))
    } else if let Some((path, content)) = &session.written {
        Some(written_text(path, content))
    } else if offered.is_empty() {
        session
            .failure
            .as_ref()
            .map(|(tried, why)| failure_text(tried, why))
    } else {
        None
    };
    let mut grammar = write(&offered, session.reply_as_tool, reply, answer);
    if session.short_strings {
        grammar = grammar.replace(
            STRING,
            &SHORT.replace("SHORT_STRING", &SHORT_STRING.to_string()),
        );
    }
    Built {
        grammar,
        tools: offered,
    }
}

/// The most entries a listing answer names; past them it says how many more there are.
pub const LISTED_ENTRIES: usize = 40;

/// The answer's text when it lists a folder: a short lead of the model's ("The folder has: ")
/// and then every entry, each as listed, in the listing's order, separated by commas — the
/// whole listing, since a list that stops short reads as the whole folder (the small model
/// stopped after nine of fifteen).
fn listing_text(entries: &[String]) -> String {
    let shown = &entries[..entries.len().min(LISTED_ENTRIES)];
    let mut items: Vec<String> = shown.iter().map(|e| json_inner(e)).collect();
    if entries.len() > shown.len() {
        items.push(format!("and {} more", entries.len() - shown.len()));
    }
    format!(
        "answer ::= \"\\\"\" lead {} \".\\\"\"\n\
         lead ::= [^\"\\\\\\n:]{{0,40}} \": \"",
        literal(&items.join(", "))
    )
}

/// The longest part of a written file's text an answer quotes, in characters.
pub const QUOTED_WRITE: usize = 60;

/// `text` as it stands inside a JSON string.
fn json_inner(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_default();
    json[1..json.len().saturating_sub(1).max(1)].to_string()
}

/// The answer's text after a file was written: "I wrote", what was written (its first
/// [`QUOTED_WRITE`] characters), "to" and the file.
fn written_text(path: &str, content: &str) -> String {
    let mut quoted: String = content.trim().chars().take(QUOTED_WRITE).collect();
    if content.trim().chars().count() > QUOTED_WRITE {
        quoted.push('…');
    }
    // The lead and the link are words, not free text: free, the model filled them with its
    // example's ("I wrote see you soon" before the text it had written).
    format!(
        "answer ::= \"\\\"\" ( \"I wrote \" | \"Wrote \" | \"Done: I wrote \" ) {} \" to \" {} \".\\\"\"",
        literal(&json_inner(&quoted)),
        literal(&json_inner(path))
    )
}

/// The longest part of a failed call's reason an answer quotes, in characters.
pub const QUOTED_FAILURE: usize = 200;

/// The answer's text after the turn's last call failed: that it could not do what it tried,
/// and why, in the reason's own words.
fn failure_text(tried: &str, why: &str) -> String {
    let why = why.lines().next().unwrap_or_default().trim();
    let mut quoted: String = why.chars().take(QUOTED_FAILURE).collect();
    if why.chars().count() > QUOTED_FAILURE {
        quoted.push('…');
    }
    let quoted = quoted.trim_end_matches('.');
    format!(
        "answer ::= \"\\\"I could not \" {} \": \" {} \".\\\"\"",
        literal(&json_inner(tried)),
        literal(&json_inner(quoted))
    )
}

fn write(tools: &[ToolSpec], reply_as_tool: bool, reply: bool, answer: Option<String>) -> String {
    let mut rules = Rules {
        rules: Vec::new(),
        next: 0,
    };
    let mut alternatives = if reply {
        vec!["reply".to_string()]
    } else {
        Vec::new()
    };
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
    let text = if answer.is_some() { "answer" } else { "string" };
    let mut out = vec![
        format!("root ::= {}", alternatives.join(" | ")),
        if reply_as_tool {
            format!(
                "reply ::= {} ws {text} \"}}}}\"",
                literal(&format!(
                    "{{\"tool\": \"{REPLY_TOOL}\", \"arguments\": {{\"text\":"
                ))
            )
        } else {
            format!("reply ::= {} ws {text} \"}}\"", literal("{\"reply\":"))
        },
    ];
    if let Some(answer) = answer {
        out.push(answer);
    }
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

#[cfg(test)]
mod session {
    use serde_json::json;

    use super::*;
    use crate::local::gbnf_check::Grammar;
    use crate::local::workspace;

    fn tools() -> Vec<ToolSpec> {
        let path = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false});
        vec![
            ToolSpec {
                name: "read_file".into(),
                description: "Read a text file.".into(),
                parameters: path,
            },
            ToolSpec {
                name: "list_dir".into(),
                description: "List a directory.".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": false}),
            },
            ToolSpec {
                name: "write_file".into(),
                description: "Create or overwrite a text file.".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"], "additionalProperties": false}),
            },
            ToolSpec {
                name: "shell".into(),
                description: "Run a shell command.".into(),
                parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}),
            },
        ]
    }

    fn call(tool: &str, args: &str) -> String {
        format!("{{\"tool\": \"{tool}\", \"arguments\": {args}}}")
    }

    #[test]
    fn an_answer_after_a_listing_names_only_what_was_listed() -> Result<(), String> {
        let session = Session {
            reply_as_tool: true,
            fit_message: true,
            listing: vec![
                ".git/".into(),
                "Cargo.toml".into(),
                "README.md".into(),
                "a \"b\".txt".into(),
            ],
            done: vec![ToolCall {
                id: "c1".into(),
                name: "list_dir".into(),
                arguments: serde_json::json!({"path": "."}),
            }],
            ..Session::default()
        };
        let built = for_session(&tools(), &session);
        let g = Grammar::parse(&built.grammar)?;
        let answer =
            |text: &str| format!(r#"{{"tool": "reply", "arguments": {{"text": "{text}"}}}}"#);
        for ok in [
            r#"The folder has: .git/, Cargo.toml, README.md, a \"b\".txt."#,
            r#"Files: .git/, Cargo.toml, README.md, a \"b\".txt."#,
        ] {
            assert!(g.admits(&answer(ok)), "{ok}");
        }
        for bad in [
            r#"The folder has: .git/, Benchmark.git, Cargo.toml, README.md, a \"b\".txt."#,
            "The folder has: .git/, Cargo.toml, README.md.",
            "Files: README.md.",
            "Cargo.toml and README.md",
        ] {
            assert!(!g.admits(&answer(bad)), "{bad}");
        }
        // With a call still to make, the answer is free.
        let free = Session {
            done: Vec::new(),
            ..session
        };
        let g = Grammar::parse(&for_session(&tools(), &free).grammar)?;
        assert!(g.admits(&answer("Cargo.toml and README.md")));
        Ok(())
    }

    #[test]
    fn an_answer_after_a_write_names_the_file_and_the_text_written() -> Result<(), String> {
        let session = Session {
            reply_as_tool: true,
            fit_message: true,
            written: Some(("hello.txt".into(), "Hello world!".into())),
            done: vec![ToolCall {
                id: "c1".into(),
                name: "write_file".into(),
                arguments: serde_json::json!({"path": "hello.txt", "content": "Hello world!"}),
            }],
            ..Session::default()
        };
        let g = Grammar::parse(&for_session(&tools(), &session).grammar)?;
        let answer =
            |text: &str| format!(r#"{{"tool": "reply", "arguments": {{"text": "{text}"}}}}"#);
        assert!(g.admits(&answer("I wrote Hello world! to hello.txt.")));
        for bad in [
            "I wrote see you soon to note.txt.",
            "I wrote Hello world! to note.txt.",
            "I wrote see you soon to hello.txt.",
        ] {
            assert!(!g.admits(&answer(bad)), "{bad}");
        }
        Ok(())
    }

    #[test]
    fn this_folder_is_the_working_folder_alone() -> Result<(), String> {
        let session = Session {
            workspace: Some(Workspace {
                files: vec!["Cargo.toml".into()],
                dirs: vec!["crates".into(), "crates/keel-computer".into()],
            }),
            here: true,
            ..Session::default()
        };
        let g = Grammar::parse(&for_session(&tools(), &session).grammar)?;
        assert!(g.admits(&call("list_dir", r#"{"path": "."}"#)));
        for other in ["crates", "crates/keel-computer"] {
            let listed = call("list_dir", &format!(r#"{{"path": "{other}"}}"#));
            assert!(!g.admits(&listed), "{other}");
        }
        let anywhere = Session {
            here: false,
            ..session
        };
        let g = Grammar::parse(&for_session(&tools(), &anywhere).grammar)?;
        assert!(g.admits(&call("list_dir", r#"{"path": "crates"}"#)));
        Ok(())
    }

    #[test]
    fn an_answer_after_a_refused_call_says_what_failed_and_why() -> Result<(), String> {
        let refused = ToolCall {
            id: "c1".into(),
            name: "write_file".into(),
            arguments: serde_json::json!({"path": ".env", "content": "TOKEN=abc123"}),
        };
        let why = "Tool execution denied by safety checker \"allowed-path\": Access to \
                   sensitive path \".env\" in argument \"path\" is blocked.";
        let session = Session {
            reply_as_tool: true,
            fit_message: true,
            // (Hidden files are not among the workspace's paths.)
            workspace: Some(Workspace {
                files: vec!["notes.txt".into()],
                dirs: Vec::new(),
            }),
            asks_to_write: true,
            named: vec![".env".into()],
            failed: vec![refused.clone()],
            done: vec![refused],
            failure: Some(("write .env".into(), why.into())),
            ..Session::default()
        };
        // The small model's tools: the file tools, no shell.
        let file_tools: Vec<ToolSpec> = tools().into_iter().filter(|t| t.name != "shell").collect();
        let built = for_session(&file_tools, &session);
        assert!(
            built.tools.is_empty(),
            "only the answer is left: {:?}",
            built.tools
        );
        let g = Grammar::parse(&built.grammar)?;
        let answer =
            |text: &str| format!(r#"{{"tool": "reply", "arguments": {{"text": "{text}"}}}}"#);
        assert!(g.admits(&answer(
            r#"I could not write .env: Tool execution denied by safety checker \"allowed-path\": Access to sensitive path \".env\" in argument \"path\" is blocked."#
        )));
        for bad in [
            "This is a test. Please note that this is a test.",
            "I wrote TOKEN=abc123 to .env.",
            "I could not write .env.",
        ] {
            assert!(!g.admits(&answer(bad)), "{bad}");
        }
        // While a tool is still offered, the model may go on instead.
        let open = Session {
            named: Vec::new(),
            fit_message: false,
            ..session
        };
        assert!(!for_session(&file_tools, &open).tools.is_empty());
        Ok(())
    }

    #[test]
    fn a_grammar_built_from_a_workspace_admits_only_its_paths() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let root = dir.path();
        for (name, text) in [("notes.txt", "n"), ("src/main.rs", "fn main() {}")] {
            std::fs::create_dir_all(root.join(name).parent().unwrap_or(root))
                .map_err(|e| e.to_string())?;
            std::fs::write(root.join(name), text).map_err(|e| e.to_string())?;
        }
        let session = Session {
            workspace: Some(workspace::paths(root, workspace::Limits::default())),
            ..Session::default()
        };
        let built = for_session(&tools(), &session);
        let g = Grammar::parse(&built.grammar)?;
        // The files that exist, and only they, for a file to read.
        for ok in ["notes.txt", "src/main.rs"] {
            assert!(
                g.admits(&call("read_file", &format!(r#"{{"path": "{ok}"}}"#))),
                "{ok}"
            );
        }
        for bad in [
            "list_dir",
            "missing.txt",
            "src",
            ".",
            "/etc/passwd",
            "notes.txt ",
        ] {
            assert!(
                !g.admits(&call("read_file", &format!(r#"{{"path": "{bad}"}}"#))),
                "{bad}"
            );
        }
        // The folders that exist, and `.`, for a folder to list (or none: its default).
        for ok in [r#"{"path": "."}"#, r#"{"path": "src"}"#, "{}"] {
            assert!(g.admits(&call("list_dir", ok)), "{ok}");
        }
        for bad in ["list_dir", "notes.txt", "src/", "..", "/"] {
            assert!(
                !g.admits(&call("list_dir", &format!(r#"{{"path": "{bad}"}}"#))),
                "{bad}"
            );
        }
        // A reply needs no tool; a tool keel does not offer is no answer.
        assert!(g.admits(r#"{"reply": "There are two files."}"#));
        assert!(!g.admits(&call("delete_file", r#"{"path": "notes.txt"}"#)));
        // Without the workspace, the same tools take any string.
        let free = Grammar::parse(&for_tools(&tools()))?;
        assert!(free.admits(&call("read_file", r#"{"path": "missing.txt"}"#)));
        Ok(())
    }

    #[test]
    fn a_file_to_write_is_one_the_user_named() -> Result<(), String> {
        let session = Session {
            workspace: Some(Workspace {
                files: vec!["a.txt".into()],
                dirs: vec![],
            }),
            named: vec!["hello.txt".into()],
            ..Session::default()
        };
        let g = Grammar::parse(&for_session(&tools(), &session).grammar)?;
        assert!(g.admits(&call(
            "write_file",
            r#"{"path": "hello.txt", "content": "Hi"}"#
        )));
        for bad in ["a.txt", "other.txt"] {
            let args = format!(r#"{{"path": "{bad}", "content": "Hi"}}"#);
            assert!(!g.admits(&call("write_file", &args)), "{bad}");
        }
        // Named nothing: a file to write is any name.
        let free = Session {
            named: vec![],
            ..session
        };
        let g = Grammar::parse(&for_session(&tools(), &free).grammar)?;
        assert!(g.admits(&call(
            "write_file",
            r#"{"path": "other.txt", "content": "Hi"}"#
        )));
        Ok(())
    }

    #[test]
    fn an_empty_workspace_leaves_out_the_tools_that_need_a_file() {
        let session = Session {
            workspace: Some(Workspace::default()),
            ..Session::default()
        };
        let names: Vec<String> = for_session(&tools(), &session)
            .tools
            .into_iter()
            .map(|t| t.name)
            .collect();
        // Nothing to read; a folder to list (`.`); a file to write is any name then.
        assert_eq!(names, vec!["list_dir", "write_file", "shell"]);
    }

    #[test]
    fn a_failed_call_is_not_admitted_again_unchanged() -> Result<(), String> {
        let failed = |name: &str, args: serde_json::Value| ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments: args,
        };
        let base = Session {
            workspace: Some(Workspace {
                files: vec!["a.txt".into(), "b.txt".into()],
                dirs: vec!["docs".into()],
            }),
            ..Session::default()
        };
        let before = Grammar::parse(&for_session(&tools(), &base).grammar)?;
        let read_a = call("read_file", r#"{"path": "a.txt"}"#);
        let list_docs = call("list_dir", r#"{"path": "docs"}"#);
        let ls = call("shell", r#"{"command": "ls"}"#);
        assert!(before.admits(&read_a) && before.admits(&list_docs) && before.admits(&ls));

        // A failed read: that file is taken out of read_file's choices, nothing else.
        let after = Grammar::parse(
            &for_session(
                &tools(),
                &Session {
                    failed: vec![failed("read_file", json!({"path": "a.txt"}))],
                    ..base.clone()
                },
            )
            .grammar,
        )?;
        assert!(!after.admits(&read_a));
        assert!(after.admits(&call("read_file", r#"{"path": "b.txt"}"#)));
        assert!(after.admits(&list_docs) && after.admits(&ls));

        // A failed call with no list of choices to narrow: its tool sits this step out.
        let after = Grammar::parse(
            &for_session(
                &tools(),
                &Session {
                    failed: vec![failed("shell", json!({"command": "ls"}))],
                    ..base
                },
            )
            .grammar,
        )?;
        assert!(!after.admits(&ls));
        assert!(after.admits(&read_a));
        // An answer without a tool is always left.
        assert!(after.admits(r#"{"reply": "I could not list the files."}"#));

        // The last file failed too: reading has nothing left, so read_file is not offered.
        let built = for_session(
            &tools(),
            &Session {
                workspace: Some(Workspace {
                    files: vec!["a.txt".into()],
                    dirs: vec![],
                }),
                failed: vec![failed("read_file", json!({"path": "a.txt"}))],
                ..Session::default()
            },
        );
        assert!(!built.tools.iter().any(|t| t.name == "read_file"));
        Ok(())
    }
}

#[cfg(test)]
mod turn {
    use serde_json::json;

    use super::*;
    use crate::local::gbnf_check::Grammar;

    fn spec(name: &str, properties: serde_json::Value, required: &[&str]) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": properties, "required": required}),
        }
    }

    fn tools() -> Vec<ToolSpec> {
        vec![
            spec("read_file", json!({"path": {"type": "string"}}), &["path"]),
            spec("list_dir", json!({"path": {"type": "string"}}), &[]),
            spec(
                "search_files",
                json!({"text": {"type": "string"}, "path": {"type": "string"}}),
                &["text"],
            ),
        ]
    }

    fn made(name: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: args,
        }
    }

    #[test]
    fn what_was_done_this_turn_is_not_done_again_and_an_answer_can_be_required()
    -> Result<(), String> {
        let session = Session {
            workspace: Some(Workspace {
                files: vec!["a.txt".into(), "b.txt".into()],
                dirs: vec![],
            }),
            words: vec!["dentist".into(), "tuesday".into()],
            reply_as_tool: true,
            ..Session::default()
        };
        let g = Grammar::parse(&for_session(&tools(), &session).grammar)?;
        let search = r#"{"tool": "search_files", "arguments": {"text": "dentist"}}"#;
        assert!(g.admits(search));
        // A word of the message, not any text.
        assert!(!g.admits(r#"{"tool": "search_files", "arguments": {"text": "rent"}}"#));
        assert!(g.admits(r#"{"tool": "reply", "arguments": {"text": "Hi."}}"#));
        assert!(!g.admits(r#"{"reply": "Hi."}"#));

        // Listed, searched and read already: none of it again.
        let built = for_session(
            &tools(),
            &Session {
                done: vec![
                    made("list_dir", json!({})),
                    made("search_files", json!({"text": "dentist"})),
                    made("read_file", json!({"path": "a.txt"})),
                ],
                ..session.clone()
            },
        );
        let g = Grammar::parse(&built.grammar)?;
        assert!(!built.tools.iter().any(|t| t.name == "list_dir"));
        assert!(!g.admits(search));
        assert!(!g.admits(r#"{"tool": "read_file", "arguments": {"path": "a.txt"}}"#));
        assert!(g.admits(r#"{"tool": "read_file", "arguments": {"path": "b.txt"}}"#));

        // Required to look first: no answer without a tool.
        let g = Grammar::parse(
            &for_session(
                &tools(),
                &Session {
                    require_tool: true,
                    ..session
                },
            )
            .grammar,
        )?;
        assert!(!g.admits(r#"{"tool": "reply", "arguments": {"text": "Hi."}}"#));
        assert!(g.admits(r#"{"tool": "read_file", "arguments": {"path": "b.txt"}}"#));
        Ok(())
    }
}
