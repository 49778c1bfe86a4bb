//! Read-only or side-effecting? (issue 4, provenance gate.) MCP-style annotations decide when a
//! tool has them; otherwise a conservative classifier over the tool's name and description.
//! Anything it cannot place counts as side-effecting. Nothing here names any one tool set.

use serde_json::{Map, Value};

/// What keel knows about a tool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// `readOnlyHint`, `destructiveHint`, `openWorldHint`, … as the tool declares them.
    pub annotations: Option<Map<String, Value>>,
    /// The JSON Schema of its arguments, when known: provenance leaves alone what the schema
    /// itself fixes (an enum's values, booleans, declared keys).
    pub parameters: Option<Value>,
    /// It declares structured output (an MCP `outputSchema`): its results are records it
    /// serialized itself, which provenance may read for records the user names.
    pub structured_output: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    ReadOnly,
    SideEffecting,
}

/// Verbs that only look.
pub(crate) const READ_VERBS: &[&str] = &[
    "get", "read", "list", "search", "find", "show", "view", "query", "lookup", "look", "describe",
    "inspect", "check", "count", "stat", "cat", "head", "tail", "grep", "glob", "ls", "peek",
    "preview", "info", "status",
];

/// Words that mean the tool talks to the network.
const NETWORK_WORDS: &[&str] = &[
    "url", "urls", "uri", "web", "webpage", "website", "http", "https", "internet", "online",
    "fetch", "browse", "download", "webhook", "api", "request", "curl",
];

/// Verbs that change something. A name with any of these is never read-only.
const WRITE_VERBS: &[&str] = &[
    "send",
    "write",
    "create",
    "update",
    "delete",
    "remove",
    "set",
    "put",
    "post",
    "patch",
    "move",
    "rename",
    "copy",
    "upload",
    "pay",
    "transfer",
    "schedule",
    "cancel",
    "book",
    "reserve",
    "invite",
    "share",
    "add",
    "append",
    "insert",
    "edit",
    "modify",
    "change",
    "run",
    "exec",
    "execute",
    "install",
    "kill",
    "stop",
    "start",
    "deploy",
    "publish",
    "submit",
    "approve",
    "reply",
    "forward",
    "buy",
    "order",
    "purchase",
    "grant",
    "revoke",
    "reset",
    "apply",
    "commit",
    "push",
    "merge",
    "replace",
    "save",
    "store",
    "mark",
    "archive",
    "close",
    "open",
    "click",
    "type",
    "press",
    "drag",
    "purge",
    "erase",
    "destroy",
    "drop",
    "wipe",
    "clear",
    "empty",
    "truncate",
    "overwrite",
    "withdraw",
    "deposit",
    "sign",
];

/// A writing verb, in any of its plain English forms (share, shares, shared, sharing).
fn is_write_verb(word: &str) -> bool {
    let forms = [
        Some(word),
        word.strip_suffix('s'),
        word.strip_suffix("es"),
        word.strip_suffix("ed"),
        word.strip_suffix('d'),
        word.strip_suffix("ing"),
    ];
    forms.iter().flatten().any(|f| WRITE_VERBS.contains(f))
}

/// The words of a name or a text, lowercased: split at non-alphanumerics and at camelCase humps.
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Classifies a tool. Annotations win: `readOnlyHint: true` is read-only, `readOnlyHint: false`
/// or `destructiveHint: true` is side-effecting. Otherwise the name decides: read-only only if
/// its first word is a reading verb and no word is a writing verb.
pub fn classify(tool: &ToolInfo) -> Effect {
    if let Some(a) = &tool.annotations {
        // Destructive, or reaching the open world (a URL fetch can carry data out), is never
        // read-only for the gate.
        if a.get("destructiveHint") == Some(&Value::Bool(true))
            || a.get("openWorldHint") == Some(&Value::Bool(true))
        {
            return Effect::SideEffecting;
        }
        match a.get("readOnlyHint") {
            Some(Value::Bool(true)) => return Effect::ReadOnly,
            Some(Value::Bool(false)) => return Effect::SideEffecting,
            _ => {}
        }
    }
    let w = words(&tool.name);
    // Reaching the network by name or description: a URL fetch can carry data out.
    let reaches_network = |text: &str| {
        words(text)
            .iter()
            .any(|x| NETWORK_WORDS.contains(&x.as_str()))
    };
    if reaches_network(&tool.name) || reaches_network(&tool.description) {
        return Effect::SideEffecting;
    }
    // MCP names carry the server first: look past `mcp` and the server name.
    let w: Vec<&String> = if w.first().is_some_and(|f| f == "mcp") && w.len() > 2 {
        w.iter().skip(2).collect()
    } else {
        w.iter().collect()
    };
    let Some(first) = w.first() else {
        return Effect::SideEffecting;
    };
    if w.iter().any(|x| WRITE_VERBS.contains(&x.as_str())) {
        return Effect::SideEffecting;
    }
    // The description can admit what the name does not ("Gets a link and shares it").
    if words(&tool.description).iter().any(|x| is_write_verb(x)) {
        return Effect::SideEffecting;
    }
    if READ_VERBS.contains(&first.as_str()) {
        return Effect::ReadOnly;
    }
    Effect::SideEffecting
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            ..ToolInfo::default()
        }
    }

    #[test]
    fn names_decide_without_annotations() {
        for name in [
            "read_file",
            "get_balance",
            "listFiles",
            "search_emails",
            "mcp__fs__read_text",
            "GetUserInfo",
        ] {
            assert_eq!(classify(&tool(name)), Effect::ReadOnly, "{name}");
        }
        for name in [
            "send_money",
            "write_file",
            "update_password",
            "get_and_delete",
            "frobnicate",
            "",
            "schedule_transaction",
            "mcp__fs__write",
            "fetch_url",
            "browse_page",
        ] {
            assert_eq!(classify(&tool(name)), Effect::SideEffecting, "{name}");
        }
    }

    #[test]
    fn a_description_that_admits_a_write_makes_it_side_effecting() {
        let mut t = tool("get_link");
        t.description = "Gets a public link to the file and shares it with the given email.".into();
        assert_eq!(classify(&t), Effect::SideEffecting);
        t.description = "Gets the balance of the account.".into();
        assert_eq!(classify(&t), Effect::ReadOnly);
    }

    #[test]
    fn annotations_win() {
        let mut t = tool("send_money");
        t.annotations = json!({"readOnlyHint": true}).as_object().cloned();
        assert_eq!(classify(&t), Effect::ReadOnly);
        let mut t = tool("read_file");
        t.annotations = json!({"readOnlyHint": true, "destructiveHint": true})
            .as_object()
            .cloned();
        assert_eq!(classify(&t), Effect::SideEffecting);
        t.annotations = json!({"readOnlyHint": false}).as_object().cloned();
        assert_eq!(classify(&t), Effect::SideEffecting);
        t.annotations = json!({"readOnlyHint": true, "openWorldHint": true})
            .as_object()
            .cloned();
        assert_eq!(
            classify(&t),
            Effect::SideEffecting,
            "the open world can carry data out"
        );
    }
}
