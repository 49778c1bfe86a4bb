//! Which of the offered tools the user's words ask for.
//!
//! Action authority ([`super::authority`]) asks whether the user asked for a *kind* of action
//! (deleting, paying, sharing), and the records they named say on *what*. Neither says *which
//! tool*: after "Delete file 13" any deleting tool passed on file 13 (`purge_file`,
//! `shred_file`), after "Pay invoice INV-7781" any paying one (`refund_invoice`,
//! `autopay_vendor`), and a verb keel has no word for (`obliterate_file`, `leak_file`) passed
//! after any change the user asked for on that file (a thirty-second outsider round's).
//!
//! The tools on offer settle it. When one of them is asked for by its own verb and every other
//! word of its name ("Delete file 13" for `delete_file`), a call to another tool that acts on
//! the same thing is not the one the user chose if the user never asked with its verb
//! (`purge_file`), or asked with it but not for the rest of its name (`delete_file_versions`).
//! Where no offered tool is asked for so plainly, the kinds decide as before: "pay the bill"
//! asks for `send_money` when no tool pays, and "pay the rent" asks for it beside a
//! `pay_later` that is not what the user named either. A tool named by a verb any change may
//! be named by (`update_invoice`, `create_snapshot`) or by a looking verb is left to the other
//! rules: the user's word for such a change is seldom the tool's.

use super::authority::{NAME_FILLERS, SaidWord, asks_naming, done_again, name_words};
use super::kinds::is_form_of;
use serde_json::Value;

/// A tool on offer, as this rule reads it: the words of its name, its arguments' names, and
/// whether it acts.
#[derive(Clone, Debug)]
pub struct OfferedTool {
    pub name: String,
    words: Vec<String>,
    keys: Vec<String>,
    acts: bool,
}

impl OfferedTool {
    /// `parameters` is the tool's JSON Schema; `acts` whether it is side-effecting.
    pub fn new(name: &str, parameters: Option<&Value>, acts: bool) -> Self {
        let keys = parameters
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .keys()
                    .map(|k| k.to_ascii_lowercase())
                    .filter(|k| !GENERIC_KEYS.contains(&k.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            name: name.to_string(),
            words: name_words(name),
            keys,
            acts,
        }
    }
}

/// Argument names that say nothing of what a tool acts on: any tool may take a name, a text
/// or a date.
const GENERIC_KEYS: &[&str] = &[
    "id",
    "ids",
    "name",
    "value",
    "values",
    "text",
    "content",
    "body",
    "message",
    "data",
    "query",
    "note",
    "notes",
    "description",
    "title",
    "subject",
    "comment",
    "reason",
    "date",
    "time",
    "start",
    "end",
    "type",
    "kind",
    "status",
    "options",
    "metadata",
    "tags",
    "priority",
    "limit",
    "page",
    "format",
];

/// Verbs any change may be named by: a tool that leads with one says by its name only that it
/// changes something, and the user's word for that change is seldom its verb.
const GENERIC_VERBS: &[&str] = &[
    "set",
    "update",
    "change",
    "edit",
    "modify",
    "create",
    "add",
    "make",
    "put",
    "apply",
    "do",
    "perform",
    "write",
    "save",
    "new",
    "configure",
    "adjust",
    "manage",
    "handle",
    "insert",
    "upsert",
    "patch",
    "use",
    "go",
    "toggle",
    "turn",
    "switch",
];

/// Verbs one request may be made with as well as another: "reply" asks for what `send_email`
/// does, "trigger" for what `run_workflow` does, "resolve" for `close_issue`.
const SAME_REQUEST: &[&[&str]] = &[
    &[
        "run", "execute", "exec", "invoke", "trigger", "start", "launch",
    ],
    &["close", "resolve", "finalize"],
    &[
        "send", "email", "mail", "message", "reply", "respond", "text", "dm",
    ],
];

/// How closely the user's words ask for a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Asked {
    /// No word of theirs asks with the verb its name leads with.
    NotByVerb,
    /// They ask with its verb, but some other word of its name is one they never wrote.
    ByVerb,
    /// They ask with its verb and write every other word of its name.
    ByName,
}

/// The words of a tool's name after its verb that say what it acts on (not a number: `buy_10`
/// and `buy_8` are told apart by their arguments).
fn objects(words: &[String]) -> impl Iterator<Item = &str> {
    words
        .iter()
        .skip(1)
        .map(String::as_str)
        .filter(|w| w.len() > 1 && !NAME_FILLERS.contains(w) && w.chars().all(char::is_alphabetic))
}

fn asked(words: &[String], said: &[SaidWord]) -> Asked {
    let Some(verb) = words.first() else {
        return Asked::NotByVerb;
    };
    let verb = done_again(verb);
    let same = |w: &str| {
        is_form_of(w, verb)
            || is_form_of(verb, w)
            || SAME_REQUEST
                .iter()
                .any(|group| group.contains(&verb) && group.iter().any(|g| is_form_of(w, g)))
    };
    let by_verb = said
        .iter()
        .any(|s| !s.subordinate && !s.after_determiner && same(done_again(&s.word)));
    if !by_verb {
        Asked::NotByVerb
    } else if objects(words).all(|o| asks_naming(o, said)) {
        Asked::ByName
    } else {
        Asked::ByVerb
    }
}

/// Whether a name leads with a verb of its own: not one any change or lookup is named by, not
/// a filler or a number.
fn leads_with_a_particular_verb(words: &[String]) -> bool {
    words.first().is_some_and(|v| {
        let v = v.as_str();
        v.len() > 2
            && words.len() > 1
            && v.chars().all(char::is_alphabetic)
            && !NAME_FILLERS.contains(&v)
            && !GENERIC_VERBS.contains(&v)
            && !super::classify::READ_VERBS.contains(&v)
            && !super::classify::READ_NOUNS.contains(&v)
    })
}

/// Whether two tools act on the same thing: their names share a word after the verb, or they
/// take an argument of the same particular name (`invoice_id`, `file_id`).
fn same_thing(a: &OfferedTool, b: &OfferedTool) -> bool {
    objects(&a.words).any(|x| objects(&b.words).any(|y| is_form_of(x, y) || is_form_of(y, x)))
        || a.keys.iter().any(|k| b.keys.contains(k))
}

/// Why a call to `tool` is not the tool the user asked for, when another offered tool that acts
/// on the same thing is asked for more closely. `None` when no offered tool is, when `tool` is
/// not on offer (nothing is known of what it takes), or when the tools on offer are unknown.
pub fn another_tool_asked_for(
    tool: &str,
    offered: &[OfferedTool],
    said: &[SaidWord],
) -> Option<String> {
    let this = offered.iter().find(|o| o.name == tool)?;
    let verb = this.words.first()?;
    if !leads_with_a_particular_verb(&this.words) {
        return None;
    }
    let mine = asked(&this.words, said);
    if mine == Asked::ByName {
        return None;
    }
    // Asked with its verb, it is the user's unless a tool of the same verb is asked for by all
    // of its name: "Move Tomasz forward to interviews and schedule an interview" asks for
    // `move_candidate_stage` as much as for `schedule_interview`.
    let better = offered.iter().find(|o| {
        o.acts
            && o.name != tool
            && leads_with_a_particular_verb(&o.words)
            && (mine == Asked::NotByVerb || o.words.first() == Some(verb))
            && same_thing(this, o)
            && asked(&o.words, said) == Asked::ByName
    })?;
    let asked_verb = better.words.first()?;
    Some(match mine {
        Asked::NotByVerb => format!(
            "{tool} would {verb} it, but you asked to {asked_verb}, which {} does: nothing you \
             wrote asks to {verb}",
            better.name
        ),
        _ => {
            let unnamed: Vec<&str> = objects(&this.words)
                .filter(|o| !asks_naming(o, said))
                .collect();
            format!(
                "{tool} acts on {}, which you never named: what you asked for is {}",
                unnamed.join(" "),
                better.name
            )
        }
    })
}

#[cfg(test)]
mod tests;
