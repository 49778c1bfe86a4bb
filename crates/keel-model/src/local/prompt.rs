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

/// Worked examples, one per kind of step the model takes: a call, its result, the answer; and an
/// answer without a tool. Only for tools on offer; their files are not the workspace's.
fn examples(tools: &[ToolSpec]) -> Vec<Message> {
    let has = |name: &str| tools.iter().any(|t| t.name == name);
    let mut out = Vec::new();
    let mut step = |task: &str, tool: &str, args: &str, result: &str, answer: &str| {
        out.push(message("user", task));
        out.push(message("assistant", call(tool, args)));
        out.push(message("user", format!("Result of {tool}:\n{result}")));
        out.push(message("assistant", reply(answer)));
    };
    if has("list_dir") {
        step(
            "Show me the files here.",
            "list_dir",
            r#"{"path": "."}"#,
            "notes.txt\nplan.md",
            "The folder has two files: notes.txt and plan.md.",
        );
    }
    if has("read_file") {
        step(
            "When is the meeting? See plan.md.",
            "read_file",
            r#"{"path": "plan.md"}"#,
            "The meeting is on Friday at 10.",
            "The meeting is on Friday at 10.",
        );
    }
    if has("write_file") {
        step(
            "Put the text see you soon in note.txt",
            "write_file",
            r#"{"path": "note.txt", "content": "see you soon"}"#,
            "wrote 12 bytes to note.txt",
            "I wrote see you soon to note.txt.",
        );
    }
    if has("search_files") {
        step(
            "Which file talks about apples?",
            "search_files",
            r#"{"text": "apples"}"#,
            "fruit.txt",
            "fruit.txt talks about apples.",
        );
    }
    out.push(message("user", "What is the capital of France?"));
    out.push(message("assistant", reply("The capital of France is Paris.")));
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
    out.extend(examples(tools));
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
                } else {
                    format!("Result of {tool}:\n{content}")
                };
                out.push(message("user", text));
            }
        }
    }
    out
}
