//! The prompt for a small local model (the embedded SmolLM2-135M): short, in the model's own
//! chat template (the worker applies it), with worked examples of the answer format, and the
//! workspace's files named. It stands in for the composed system prompt a capable model gets
//! (`LocalModel` with `small_prompt` off, and every other provider): a 135M model follows a few
//! lines and an example, not a page of policy.
//!
//! What it keeps of the request: the conversation after the system message, with the model's
//! own turns written back in the answer format it is held to, and a failed call's result
//! marked as an error with what it may choose from instead.

use keel_core::compose::{ModelRequest, Role};

use super::grammar::Session;
use super::protocol::Message;
use crate::ToolSpec;

fn message(role: &str, content: impl Into<String>) -> Message {
    Message {
        role: role.to_string(),
        content: content.into(),
    }
}

fn call(tool: &str, arguments: &str) -> String {
    format!("{{\"tool\": \"{tool}\", \"arguments\": {arguments}}}")
}

/// An answer without a tool, in the form the small model's grammar holds it to.
fn reply(text: &str) -> String {
    call(
        super::grammar::REPLY_TOOL,
        &format!("{{\"text\": {}}}", serde_json::Value::from(text)),
    )
}

/// One line per tool: what it does and how a call of it looks.
fn tool_lines(tools: &[ToolSpec]) -> String {
    let mut out = String::new();
    for t in tools {
        let example = match t.name.as_str() {
            "list_dir" => call("list_dir", r#"{"path": "."}"#),
            "read_file" => call("read_file", r#"{"path": "FILE"}"#),
            "write_file" => call("write_file", r#"{"path": "FILE", "content": "TEXT"}"#),
            "edit_file" => call(
                "edit_file",
                r#"{"path": "FILE", "old": "TEXT", "new": "TEXT"}"#,
            ),
            "shell" => call("shell", r#"{"command": "COMMAND"}"#),
            "search_files" => call("search_files", r#"{"text": "WORD"}"#),
            name => call(name, "{...}"),
        };
        out.push_str(&format!("- {} {example}\n", t.description.trim()));
    }
    out.push_str(&format!(
        "- Answer the user, when you know the answer or need no tool. {}\n",
        reply("ANSWER")
    ));
    out
}

/// The files the model may name, for the system message.
fn files_line(session: &Session) -> String {
    match &session.workspace {
        None => String::new(),
        Some(ws) if ws.files.is_empty() && ws.dirs.is_empty() => {
            "The folder is empty.\n".to_string()
        }
        Some(ws) => {
            let mut names: Vec<String> = ws.files.clone();
            names.extend(ws.dirs.iter().map(|d| format!("{d}/")));
            format!("Files in the folder: {}\n", names.join(", "))
        }
    }
}

/// A worked example: a task, the call that serves it (none: answered at once), the call's
/// result, the answer.
struct Example {
    task: &'static str,
    call: Option<(&'static str, &'static str, &'static str)>,
    answer: &'static str,
}

/// The examples to pick from: one or two per kind of step. Their files are not the
/// workspace's.
const EXAMPLES: &[Example] = &[
    Example {
        task: "Show me the files in this folder.",
        call: Some(("list_dir", r#"{"path": "."}"#, "notes.txt, plan.md")),
        answer: "The folder has: notes.txt, plan.md.",
    },
    Example {
        task: "When is the meeting? Look in plan.md.",
        call: Some((
            "read_file",
            r#"{"path": "plan.md"}"#,
            "The meeting is on Friday at 10.",
        )),
        answer: "The meeting is on Friday at 10.",
    },
    Example {
        task: "What colour is the car in notes.txt?",
        call: Some((
            "read_file",
            r#"{"path": "notes.txt"}"#,
            "Our new car is red.",
        )),
        answer: "The car is red.",
    },
    Example {
        task: "Write the text see you soon to note.txt",
        call: Some((
            "write_file",
            r#"{"path": "note.txt", "content": "see you soon"}"#,
            "wrote 12 bytes to note.txt",
        )),
        answer: "I wrote see you soon to note.txt.",
    },
    Example {
        task: "Which file mentions apples?",
        call: Some(("search_files", r#"{"text": "apples"}"#, "fruit.txt")),
        answer: "fruit.txt mentions apples.",
    },
    Example {
        task: "What is the capital of France?",
        call: None,
        answer: "The capital of France is Paris.",
    },
    Example {
        task: "How many legs does a cat have?",
        call: None,
        answer: "A cat has four legs.",
    },
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The two examples most like `asked` (by the words they share), the most alike last, nearest
/// the user's message; ties go to the earlier example. Before any call of the turn, examples
/// whose tool is on offer or that need none; once `called` was made, examples of that tool:
/// the step the model is at is answering from its result.
fn examples(tools: &[ToolSpec], asked: &str, called: Option<&str>) -> Vec<Message> {
    let asked = words(asked);
    let mut scored: Vec<(usize, usize)> = EXAMPLES
        .iter()
        .enumerate()
        .filter(|(_, e)| match (called, e.call) {
            (Some(called), Some((tool, _, _))) => tool == called,
            (Some(_), None) => false,
            (None, call) => call.is_none_or(|(tool, _, _)| tools.iter().any(|t| t.name == tool)),
        })
        .map(|(i, e)| {
            let mine = words(e.task);
            (asked.iter().filter(|w| mine.contains(w)).count(), i)
        })
        .collect();
    // Most alike first; a tie keeps the earlier example.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    for &(_, i) in scored.iter().take(2).rev() {
        let e = &EXAMPLES[i];
        out.push(message("user", e.task));
        if let Some((tool, args, result)) = e.call {
            out.push(message("assistant", call(tool, args)));
            out.push(message("user", format!("Result of {tool}:\n{result}")));
        }
        out.push(message("assistant", reply(e.answer)));
    }
    out
}

/// The small model's messages for `request`. `failed` are the ids of the calls whose results
/// were errors (the session's failed calls).
pub fn small(request: &ModelRequest, tools: &[ToolSpec], session: &Session) -> Vec<Message> {
    let mut system = String::from(
        "You are a helpful assistant working in a folder of files. Each time, write one JSON \
         object that picks one of these tools:\n",
    );
    system.push_str(&tool_lines(tools));
    system.push_str(&files_line(session));
    system.push_str(
        "To answer about a file, read it first. After a tool's result, reply with the answer.",
    );
    let mut out = vec![message("system", system)];
    let asked = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .and_then(|m| m.content.as_deref())
        .unwrap_or_default();
    let last_user = request.messages.iter().rposition(|m| m.role == Role::User);
    let called = request.messages[last_user.map_or(0, |i| i + 1)..]
        .iter()
        .flat_map(|m| &m.tool_calls)
        .next_back()
        .map(|c| c.function.name.as_str());
    out.extend(examples(tools, asked, called));
    // The conversation: each call's name by its id, so a result says which tool it came from.
    let mut names: Vec<(String, String)> = Vec::new();
    for m in &request.messages {
        let content = m.content.clone().unwrap_or_default();
        match m.role {
            Role::System | Role::Developer => {}
            Role::User => out.push(message("user", content)),
            Role::Assistant => {
                let mut parts: Vec<String> = Vec::new();
                if !content.trim().is_empty() && m.tool_calls.is_empty() {
                    parts.push(reply(&content));
                }
                for c in &m.tool_calls {
                    names.push((c.id.clone(), c.function.name.clone()));
                    parts.push(call(&c.function.name, &c.function.arguments));
                }
                out.push(message("assistant", parts.join("\n")));
            }
            Role::Tool => {
                let id = m.tool_call_id.clone().unwrap_or_default();
                let tool = names
                    .iter()
                    .rev()
                    .find(|(i, _)| *i == id)
                    .map_or("the tool", |(_, n)| n.as_str());
                let text = if session.failed.iter().any(|c| c.id == id) {
                    let mut t = format!(
                        "Error from {tool}: {}\nThat call failed; do not repeat it.",
                        content.trim()
                    );
                    if let Some(ws) = &session.workspace
                        && !ws.files.is_empty()
                    {
                        t.push_str(&format!(" The files are: {}.", ws.files.join(", ")));
                    }
                    t.push_str(" Try something else, or reply to the user.");
                    t
                } else if matches!(tool, "list_dir" | "search_files") {
                    // A list on one line, as the examples show it: an answer that copies it
                    // copies all of it.
                    let items: Vec<&str> = content.lines().filter(|l| !l.is_empty()).collect();
                    format!("Result of {tool}:\n{}", items.join(", "))
                } else {
                    format!("Result of {tool}:\n{content}")
                };
                out.push(message("user", text));
            }
        }
    }
    out
}
