//! Which of the offered tools the user's words ask for.
//!
//! Action authority ([`super::authority`]) asks whether the user asked for a *kind* of action
//! (deleting, paying, sharing), and the records they named say on *what*. Neither says *which
//! tool*: after "Delete file 13" any deleting tool passed on file 13 (`purge_file`,
//! `shred_file`), after "Pay invoice INV-7781" any paying one (`refund_invoice`,
//! `autopay_vendor`), and a verb keel has no word for (`obliterate_file`, `leak_file`) passed
//! after any change the user asked for on that file (a thirty-second outsider round's).
//!
//! The tools on offer settle it. Each tool's verb is the word of its name that names an action
//! (`delete_file`, `file_purge`, `gdrive_delete_file`, `do_refund_invoice`,
//! `get_and_disburse_invoice`, past tags such as `v2_`), and the user asks for it with that
//! verb, with another word for the same request ("reply" for `send_email`, "remove" for
//! `delete_file`), or not at all. A name that leads with a word keel does not know as a verb is
//! asked for by every word of it; one led by a verb any change is named by (`update_invoice`)
//! by every other word of it, and it is never the plainer choice. A call to a tool that acts
//! on the same thing as another acting tool on offer (a word of their names, an argument of the
//! same particular name, or a value the user wrote: an id, a file's name) is not the one the
//! user chose when:
//! - the user never asked with its verb, and asked with the other's;
//! - they asked for it in other words, and a tool of their own verb for just that is on offer
//!   (`remove_file` beside `delete_file` after "Delete file 13");
//! - its name says more than they wrote, and another tool of the same request says no more
//!   (`delete_file_versions` beside `delete_file`; `run_instance_reimage` beside
//!   `start_instance`), where what the user asked to keep ("but keep its old versions") is no
//!   word they asked for.
//!
//! Where no offered tool is asked for more plainly, the kinds decide as before: "pay the bill"
//! asks for `send_money` when no tool pays. `keel check` is told of no tools: there this rule
//! says nothing.
//!
//! What the user asked of the thing a call acts on decides too, read in these ways, each its
//! own function below:
//! - a request in words no offered tool's name holds, or in another word for each, chooses
//!   none of several tools of its kind on one thing, but for a kind's plain verb
//!   (`unchosen_of_its_kind`: "Settle invoice INV-7781" beside `pay_invoice` and
//!   `refund_invoice`);
//! - the verbs just before a value of the user's, and what a verb of theirs was said of, say
//!   which verb was for that value (`asked_of_another_thing`, `said_of_other_things`:
//!   "Delete file 13, then purge the trash");
//! - the word the user named a value by says whose tool it is (`named_as_another_thing`:
//!   "Close issue login-page-crash" beside `close_issue` and `close_ticket`);
//! - a setter of the state an action leaves is not the action (`a_state_for_the_action`).

use super::authority::{
    GENERIC_CHANGE_VERBS, KINDLESS_ACTION_VERBS, NAME_FILLERS, SaidWord, asks_naming, done_again,
    name_words,
};
use super::kinds::{ActionKind, is_form_of};
use serde_json::Value;

/// Whether the user's asking words name `w`, in any form, or written in two ("sign-in" for
/// `signin`), outside what they asked to keep.
fn named(w: &str, said: &[SaidWord], kept: &[String]) -> bool {
    if kept.iter().any(|k| is_form_of(k, w) || is_form_of(w, k)) {
        return false;
    }
    asks_naming(w, said)
        || said.windows(2).any(|pair| {
            !pair[0].subordinate
                && w.len() == pair[0].word.len() + pair[1].word.len()
                && w.starts_with(pair[0].word.as_str())
                && w.ends_with(pair[1].word.as_str())
        })
}

/// A tool on offer, as this rule reads it: the words of its name, which of them is its verb,
/// its arguments' names, and whether it acts.
#[derive(Clone, Debug)]
pub struct OfferedTool {
    pub name: String,
    words: Vec<String>,
    verb: Option<Verb>,
    /// The verb it is asked for by, as a choice the user made over the call's tool: for a name
    /// that leads with a word keel does not know, the first that names an action
    /// (`gdrive_delete_file` is asked for by "Delete file 13"). Only ever more asks: the call's
    /// own tool is judged by its whole name.
    choice: Option<usize>,
    /// Its first word names a service or a thing, and its verb follows (`slack_post_message`).
    prefixed: bool,
    /// The verb its choice is asked by, in the form the user's words are matched to
    /// ([`base_verb`]), read once per gate.
    choice_base: Option<String>,
    keys: Vec<String>,
    acts: bool,
    /// The kinds of action it takes, as the gate holds it to them; none when unknown.
    kinds: Vec<ActionKind>,
}

/// Which word of a name is its verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    /// A word that names an action keel knows.
    At(usize),
    /// The name leads with a word keel does not know as a verb: any of its words may be the
    /// verb (`obliterate_file`, `file_shred`), so only the whole name asks for it.
    Unknown,
    /// The name leads with a verb any change is named by and holds no other (`update_file`,
    /// `create_file_version`, `set_invoice_status`): the words after it say what it changes,
    /// and the user asks for it by naming each of them.
    Generic,
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
        let mut words = name_words(name);
        // A version's or a service's tag says nothing of what a tool does (`v2_purge_file`,
        // `s3_purge_file`, `gd_`, the third level of `mcp__a__b__purge_file`).
        while words.len() > 1
            && (words[0].len() < 3 || words[0].chars().any(|c| c.is_ascii_digit()))
        {
            words.remove(0);
        }
        let verb = verb_of(&words);
        let choice = match verb {
            Some(Verb::At(i)) => Some(i),
            Some(Verb::Unknown) => words
                .iter()
                .skip(1)
                .position(|w| is_particular_verb(w))
                .map(|i| i + 1),
            Some(Verb::Generic) | None => None,
        };
        // (Only before a verb and its object: the first of two words names what the verb acts
        // on, `versions_delete`, `vendor_pay`.)
        let prefixed = (matches!(verb, Some(Verb::At(1)) if words.len() > 2)
            || matches!(verb, Some(Verb::At(2)) if words.len() > 3))
            && words.first().is_some_and(|w| {
                !NAME_FILLERS.contains(&w.as_str())
                    && !is_generic_verb(w.as_str())
                    && !super::classify::READ_VERBS.contains(&w.as_str())
                    && !super::classify::READ_NOUNS.contains(&w.as_str())
            });
        Self {
            name: name.to_string(),
            verb,
            choice,
            prefixed,
            choice_base: choice.map(|c| base_verb(&words[c]).to_string()),
            words,
            keys,
            acts,
            kinds: Vec::new(),
        }
    }

    /// The same tool, known to take these kinds of action.
    #[must_use]
    pub fn with_kinds(mut self, kinds: &[ActionKind]) -> Self {
        self.kinds = kinds.to_vec();
        self
    }

    /// The verb, for a reason: an unknown one is taken to lead.
    fn verb_word(&self) -> Option<&str> {
        match self.verb? {
            Verb::At(i) => Some(self.words[i].as_str()),
            Verb::Unknown | Verb::Generic => self.words.first().map(String::as_str),
        }
    }

    /// How the user's words ask for its verb.
    fn asked(&self, said: &[SaidWord], kept: &[String]) -> ByVerb {
        match self.verb {
            None => ByVerb::Not,
            Some(Verb::At(_)) => self
                .choice_base
                .as_deref()
                .map_or(ByVerb::Not, |v| by_verb(v, said)),
            Some(Verb::Unknown) => {
                if self
                    .words
                    .iter()
                    .filter(|w| w.len() > 1 && !NAME_FILLERS.contains(&w.as_str()))
                    .all(|w| named(w, said, kept))
                {
                    ByVerb::Own
                } else {
                    ByVerb::Not
                }
            }
            Some(Verb::Generic) => {
                let mut objects = self.objects().peekable();
                if objects.peek().is_some() && objects.all(|w| named(w, said, kept)) {
                    ByVerb::Own
                } else {
                    ByVerb::Not
                }
            }
        }
    }

    /// Whether two tools' verbs make one request (`delete_file` and `delete_file_versions`,
    /// `delete_file` and `remove_file_backups`).
    fn same_request(&self, other: &OfferedTool) -> bool {
        match (self.verb, other.choice) {
            (Some(Verb::At(a)), Some(b)) => {
                let (a, b) = (self.words[a].as_str(), other.words[b].as_str());
                a == b
                    || SAME_REQUEST
                        .iter()
                        .any(|group| group.contains(&a) && group.contains(&b))
            }
            _ => false,
        }
    }

    /// How the user's words ask for it as the tool they chose: by its verb, or the verb its
    /// name holds after a word keel does not know.
    fn asked_as_choice(&self, said: &[SaidWord], kept: &[String]) -> ByVerb {
        match (self.verb, self.choice) {
            (Some(Verb::Unknown), Some(_)) => self
                .choice_base
                .as_deref()
                .map_or(ByVerb::Not, |v| by_verb(v, said)),
            // A verb any change is named by chooses nothing over another tool: "add Ana as an
            // admin" asks for `set_role` as much as for `add_admin`.
            (Some(Verb::Generic), _) => ByVerb::Not,
            _ => self.asked(said, kept),
        }
    }

    /// Whether its name, as the tool the user chose, says no more than they wrote (a leading
    /// word keel does not know, `gdrive`, says nothing of what it does).
    fn says_no_more(&self, said: &[SaidWord], kept: &[String]) -> bool {
        match (self.verb, self.choice) {
            (Some(Verb::Unknown), Some(c)) => self
                .words
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 0 && *i != c)
                .map(|(_, w)| w.as_str())
                .filter(|w| is_object_word(w))
                .all(|w| named(w, said, kept)),
            _ => self.objects().all(|w| named(w, said, kept)),
        }
    }

    /// The words of its name that say what it acts on or how: every word but its verb, the
    /// verbs any change is named by, fillers and numbers (`buy_10` and `buy_8` are told apart
    /// by their arguments).
    fn objects(&self) -> impl Iterator<Item = &str> {
        self.words
            .iter()
            .enumerate()
            .filter(|(i, _)| match self.verb {
                // A service's name before the verb says nothing of what it acts on
                // (`slack_post_message`, `google_drive_delete_file`).
                Some(Verb::At(v)) if *i < v && self.prefixed => false,
                Some(Verb::At(v)) => *i != v,
                Some(Verb::Generic) => true,
                // An unknown verb is asked for by the whole name.
                _ => false,
            })
            .map(|(_, w)| w.as_str())
            .filter(|w| is_object_word(w))
    }
}

/// Whether a word of a name may say what the tool acts on: not a filler, a verb any change is
/// named by, an `id` or a number.
fn is_object_word(w: &str) -> bool {
    w.len() > 1
        && !NAME_FILLERS.contains(&w)
        && !is_generic_verb(w)
        && !matches!(w, "id" | "ids")
        && w.chars().all(char::is_alphabetic)
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

/// Verbs of [`GENERIC_CHANGE_VERBS`] that are a tool's own verb here: there they ask for no
/// kind of their own ("run it", "enable it"); here `run_workflow` or `enable_mfa` is asked for
/// by that verb and no other.
const OWN_TOOL_VERBS: &[&str] = &[
    "run", "execute", "enable", "disable", "process", "submit", "start", "stop", "trigger",
    "invoke", "call", "act", "action",
];

/// Whether `w` is a verb any change may be named by, which says by a name only that it
/// changes something: [`GENERIC_CHANGE_VERBS`] less [`OWN_TOOL_VERBS`], and the verbs of
/// planning one ("schedule", "leave") that name no action of their own in a tool's name.
fn is_generic_verb(w: &str) -> bool {
    (GENERIC_CHANGE_VERBS.contains(&w) && !OWN_TOOL_VERBS.contains(&w))
        || matches!(w, "schedule" | "leave")
}

/// Words of the kinds' tool verbs ([`ActionKind::tool_verbs`]) this rule does not read as a
/// name's verb: too short to tell from a tag, or as often a noun of what a tool reads
/// (`get_date_format`).
const NOT_NAME_VERBS: &[&str] = &["rm", "ack", "format"];

/// Verbs of actions no kind takes a tool by, as names hold them.
const MORE_NAME_VERBS: &[&str] = &[
    "shred",
    "reject",
    "decline",
    "subscribe",
    "move",
    "rename",
    "copy",
    "print",
    "process",
    "import",
    "leak",
    "encrypt",
    "decrypt",
    "restore",
    "replace",
    "unshare",
    "disown",
    "quarantine",
    "expire",
    "scrub",
    "obliterate",
    "reimage",
    "rebuild",
    "teardown",
    "offboard",
    "autopay",
    "prepay",
    "reverse",
    "dispute",
];

/// Verbs a tool's name may lead with or hold, for actions keel knows: every kind's, less the
/// words that are also a kind's nouns ("public"), and more.
fn name_verbs() -> impl Iterator<Item = &'static str> {
    ActionKind::ALL
        .iter()
        .flat_map(|k| k.tool_verbs().iter().copied())
        .filter(|w| {
            !NOT_NAME_VERBS.contains(w)
                && !ActionKind::ALL.iter().any(|k| k.tool_nouns().contains(w))
        })
        .chain(MORE_NAME_VERBS.iter().copied())
}

fn is_name_verb(w: &str) -> bool {
    name_verbs().any(|v| v == w)
}

/// Verbs that, with a determiner and a noun of an action after them, ask for that action:
/// "leave a comment", "make a payment", "do a transfer".
const LIGHT_VERBS: &[&str] = &[
    "leave", "make", "do", "give", "take", "have", "add", "write", "post", "send", "put", "place",
];

/// Verbs one request may be made with as well as another: "reply" asks for what `send_email`
/// does, "trigger" for what `run_workflow` does, "resolve" for `close_issue`, "remove" and
/// "get rid of" for `delete_file`. (Not "erase": an `erase_file` may leave nothing to restore
/// where "delete" asked for what `delete_file` does.)
const SAME_REQUEST: &[&[&str]] = &[
    &[
        "run", "execute", "exec", "invoke", "trigger", "start", "launch",
    ],
    &["close", "resolve", "finalize"],
    &[
        "send", "email", "mail", "message", "reply", "respond", "text", "dm",
    ],
    &["delete", "remove", "rid"],
];

/// Whether a word of a tool's name names an action keel knows of its own: not one any
/// change or lookup is named by.
fn is_particular_verb(w: &str) -> bool {
    w.len() > 2
        && w.chars().all(char::is_alphabetic)
        && !NAME_FILLERS.contains(&w)
        && !is_generic_verb(w)
        && !super::classify::READ_VERBS.contains(&w)
        && verb_named(w).is_some_and(|v| {
            // (A noun of a kind made of a verb is no verb: `update_booking_cancelled`. One that
            // is a verb as it stands is: `message_driver`.)
            v == w || !ActionKind::ALL.iter().any(|k| k.tool_nouns().contains(&w))
        })
}

/// The verb a word of a name is, or is a form of (`purged`, `purging`), or the action a noun
/// of it names (`destruction`, `erasure`, `shredder`).
fn verb_named(w: &str) -> Option<&'static str> {
    const DERIVED: &[(&str, &str)] = &[
        ("destruction", "destroy"),
        ("erasure", "erase"),
        ("wipeout", "wipe"),
        ("shredder", "shred"),
        ("removal", "remove"),
        ("disposal", "dispose"),
        ("deletion", "delete"),
        ("cancellation", "cancel"),
        ("termination", "terminate"),
        ("revocation", "revoke"),
        // A state an action leaves, in its irregular form (`set_invoice_paid`).
        ("paid", "pay"),
        ("sent", "send"),
        ("sold", "sell"),
        ("bought", "buy"),
    ];
    let known = |v: &str| {
        let stem = v.trim_end_matches('e');
        w == v
            || w.strip_prefix(v)
                .is_some_and(|r| matches!(r, "s" | "es" | "d" | "ed"))
            || w.strip_prefix(stem)
                .is_some_and(|r| matches!(r, "ed" | "ing"))
            || w.strip_prefix(v)
                .is_some_and(|r| matches!(r, "ing" | "ding" | "ging" | "ping" | "led" | "ling"))
    };
    name_verbs()
        .chain(KINDLESS_ACTION_VERBS.iter().copied())
        .chain(SAME_REQUEST.iter().flat_map(|g| g.iter().copied()))
        .find(|v| known(v))
        .or_else(|| DERIVED.iter().find(|(d, _)| *d == w).map(|(_, v)| *v))
}

/// Which word of a name is its verb: the first where it names an action keel knows
/// (`delete_file`); after a lookup's word, the first that does (`get_and_purge_file`) or none
/// (`get_invoice`); after a verb any change is named by, the first that does
/// (`do_refund_invoice`, `set_file_purged`) or that verb (`update_file`); after a service's or
/// a thing's name, the verb beside it (`slack_post_message`, `file_purge`,
/// `gdrive_delete_file`); else any word may be (`obliterate_file`, `reimburse_expense_report`,
/// whose "report" is a noun).
fn verb_of(words: &[String]) -> Option<Verb> {
    let first = words.first()?.as_str();
    if is_particular_verb(first) {
        return Some(Verb::At(0));
    }
    let after = |from: usize| {
        words
            .iter()
            .skip(from)
            .position(|w| is_particular_verb(w))
            .map(|i| Verb::At(i + from))
    };
    if super::classify::READ_VERBS.contains(&first) || super::classify::READ_NOUNS.contains(&first)
    {
        // (After a join, the next word is a verb whether keel knows it or not:
        // `get_and_disburse_invoice`.)
        let joined = words.len() > 2 && matches!(words[1].as_str(), "and" | "then");
        return after(1).or((joined).then_some(Verb::At(2)));
    }
    if NAME_FILLERS.contains(&first) || is_generic_verb(first) {
        return Some(after(1).unwrap_or(Verb::Generic));
    }
    if first.len() < 3 || !first.chars().all(char::is_alphabetic) {
        return None;
    }
    match words.get(1).map(String::as_str) {
        Some(second) if is_particular_verb(second) => Some(Verb::At(1)),
        // A service of two words: `google_drive_delete_file`.
        Some(second)
            if words.len() > 3 && !is_generic_verb(second) && is_particular_verb(&words[2]) =>
        {
            Some(Verb::At(2))
        }
        Some(second) if is_generic_verb(second) => Some(after(2).unwrap_or(Verb::Generic)),
        _ => Some(Verb::Unknown),
    }
}

/// How the user's words ask with a verb.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum ByVerb {
    Not,
    /// With another word for the same request.
    Synonym,
    /// With the verb itself, in any form.
    Own,
}

/// The verb a name's word is matched to the user's words as: a form or noun of a verb is that
/// verb (`set_file_purged`, `apply_destruction`), and one done again is the verb.
fn base_verb(word: &str) -> &str {
    done_again(verb_named(word).unwrap_or(word))
}

/// How the user's words ask with `verb`, a [`base_verb`].
fn by_verb(verb: &str, said: &[SaidWord]) -> ByVerb {
    let mut found = ByVerb::Not;
    for (i, s) in said.iter().enumerate() {
        if s.subordinate {
            continue;
        }
        // The action named by its noun after a light verb: "leave a comment".
        let as_noun = s.after_determiner
            && i >= 2
            && LIGHT_VERBS.contains(&said[i - 2].word.as_str())
            && !said[i - 2].subordinate;
        if s.after_determiner && !as_noun {
            continue;
        }
        match word_asks(verb, &s.word) {
            ByVerb::Own => return ByVerb::Own,
            ByVerb::Synonym => found = ByVerb::Synonym,
            ByVerb::Not => {}
        }
    }
    found
}

/// How one word, standing as a verb, asks with `verb`, a [`base_verb`].
fn word_asks(verb: &str, word: &str) -> ByVerb {
    let w = done_again(word);
    if is_form_of(w, verb) || is_form_of(verb, w) {
        ByVerb::Own
    } else if SAME_REQUEST
        .iter()
        .any(|group| group.contains(&verb) && group.iter().any(|g| is_form_of(w, g)))
    {
        ByVerb::Synonym
    } else {
        ByVerb::Not
    }
}

/// Whether two tools act on the same thing: their names share a word after the verb, or they
/// take an argument of the same particular name (`invoice_id`, `file_id`).
fn same_thing(a: &OfferedTool, b: &OfferedTool) -> bool {
    a.objects()
        .any(|x| b.objects().any(|y| is_form_of(x, y) || is_form_of(y, x)))
        || a.keys.iter().any(|k| b.keys.contains(k))
}

/// Whether two tools act on one thing ([`same_thing`]) by more than whom they reach: a
/// recipient's address says nothing of what is given them (`grant_access` and `share_file`
/// both take an `email`, for a repository and a file). Where both names say what they act on,
/// a shared argument ties them only when it is that thing's id (`invoice_id`).
fn acts_on_one_thing(a: &OfferedTool, b: &OfferedTool) -> bool {
    const REACH_KEYS: &[&str] = &[
        "email",
        "emails",
        "recipient",
        "recipients",
        "to",
        "cc",
        "bcc",
        "phone",
        "phone_number",
    ];
    // (Nor by a place both act in, when their names say they act on different things there:
    // `close_issue` and `finalize_pull_request` both take a `repo`.)
    let (mut xs, mut ys) = (a.objects().peekable(), b.objects().peekable());
    let both_name_things = xs.peek().is_some() && ys.peek().is_some();
    a.objects()
        .any(|x| b.objects().any(|y| is_form_of(x, y) || is_form_of(y, x)))
        || a.keys.iter().any(|k| {
            !REACH_KEYS.contains(&k.as_str())
                && b.keys.contains(k)
                && (!both_name_things || k.ends_with("_id"))
        })
}

/// Argument names whose value measures or says something rather than names a thing: "set the
/// thermostat to 16" says nothing of which thing another request's "16" is.
const MEASURE_KEYS: &[&str] = &[
    "amount",
    "quantity",
    "count",
    "level",
    "temperature",
    "price",
    "total",
    "duration",
    "days",
    "hours",
    "minutes",
    "size",
    "percent",
    "percentage",
    "volume",
    "brightness",
    "units",
];

/// Where the call names a thing by a value the user wrote for it (`{"path": "13"}` after
/// "Delete file 13"): the positions in the user's words where each such value begins. Then
/// whatever else the user asked of that thing, they asked of the thing the call acts on. Only
/// values that can name one thing: a single token with a digit in it, not a text or a sum.
fn users_values_at(
    values: &[(&str, &str)],
    said: &[SaidWord],
    any_key: bool,
) -> Vec<(usize, usize)> {
    let mut at = Vec::new();
    for (key, v) in values {
        let v = v.trim();
        let key = key.to_ascii_lowercase();
        let one_identifier = !v.contains(char::is_whitespace);
        // (`any_key`, for a reader of the word the user named it by: one identifier under any
        // key, `{"query": "14"}` after "Delete file 14", however many words it joins.)
        if MEASURE_KEYS.contains(&key.as_str())
            || GENERIC_KEYS.contains(&key.as_str())
                && !matches!(key.as_str(), "id" | "ids" | "name")
                && !(any_key && one_identifier)
        {
            continue;
        }
        let tokens = super::classify::words(v);
        // A file's name names one thing though it holds no digit (`report.pdf`), and so does a
        // name of words joined into one (`login-page-crash`, `old_experiments`).
        let file_name = v.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        // (Joined words only where the word before says what they name: "lock the back
        // door" wrote no `back_door`, which an enum may hold.)
        let joined = any_key && one_identifier && tokens.len() > 1;
        if v.len() > 64
            || !((1..=3).contains(&tokens.len()) || any_key && one_identifier)
            || !(file_name
                || joined
                || tokens.iter().any(|t| t.chars().any(|c| c.is_ascii_digit())))
        {
            continue;
        }
        at.extend(
            said.windows(tokens.len())
                .enumerate()
                .filter(|(_, win)| win.iter().zip(&tokens).all(|(s, t)| &s.word == t))
                .map(|(i, _)| (i, tokens.len())),
        );
    }
    at
}

/// Why a call to `this` is not what the user asked of the thing they named by a value it
/// takes: the word they named it by ("Close issue login-page-crash", "Cancel order
/// ORD-2024-11-5512 for my subscription box", "Delete branch old-experiments in the api repo")
/// is what another offered tool of a verb they wrote acts on (`close_issue`, `cancel_order`,
/// `delete_branch`), and no word of `this`'s name (`close_ticket`, `cancel_subscription`,
/// `delete_repo`). A word of its name written elsewhere, or inside the value itself
/// (`subscription-box-march`), says nothing of what the value is.
fn named_as_another_thing(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
    values_at: &[usize],
    kept: &[String],
) -> Option<String> {
    let is_object_of = |o: &OfferedTool, w: &str| o.objects().any(|x| is_form_of(w, x));
    if !matches!(this.verb, Some(Verb::At(_))) || this.objects().next().is_none() {
        return None;
    }
    let unasked = this.asked(said, kept) == ByVerb::Not;
    values_at.iter().find_map(|&at| {
        let before = said.get(at.checked_sub(1)?)?;
        let noun = before.word.as_str();
        // (Where it acts says nothing of what it acts on: "rotate the logs on server web-3".)
        if before.located || !is_object_word(noun) || is_object_of(this, noun) {
            return None;
        }
        // Another tool of the same request, or of any the user made where they never asked
        // with `this`'s verb, whose name says no more than the user wrote.
        let o = offered.iter().find(|o| {
            o.acts
                && o.name != this.name
                && (this.same_request(o) || unasked)
                && is_object_of(o, noun)
                && o.asked_as_choice(said, kept) != ByVerb::Not
                && o.says_no_more(said, kept)
        })?;
        let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        Some(format!(
            "{} acts on {}, and what you named there is {article} {noun}: what you asked for \
             is {}",
            this.name,
            this.objects().collect::<Vec<_>>().join(" "),
            o.name
        ))
    })
}

/// Whether the user named a thing of `tool`'s by a word just before a value of theirs that the
/// call takes ("invoice INV-7781", "access to file DOC-13"): the user's words say which tool
/// that value was for.
fn named_before(tool: &OfferedTool, said: &[SaidWord], values_at: &[usize]) -> bool {
    values_at.iter().any(|&at| {
        said[at.saturating_sub(3)..at].iter().any(|s| {
            tool.objects()
                .any(|w| is_form_of(&s.word, w) || is_form_of(w, &s.word))
        })
    })
}

/// Words after which a clause names what the user asked to keep ("but keep its old
/// versions", "except its backups", "other than its history", "hold on to the copies").
const KEEPING_BEFORE: &[&str] = &[
    "keep",
    "keeps",
    "keeping",
    "kept",
    "retain",
    "retaining",
    "preserve",
    "preserving",
    "spare",
    "sparing",
    "protect",
    "protecting",
    "except",
    "excluding",
    "apart",
    "besides",
    "without",
    "hold",
    "save",
    "leaving",
    "need",
    "needs",
];

/// Words before which a clause names what the user asked to keep ("its revision history must
/// stay", "leave the links working", "its versions are fine", "… in place").
const KEEPING_AFTER: &[&str] = &[
    "stay",
    "stays",
    "remain",
    "remains",
    "intact",
    "untouched",
    "alone",
    "working",
    "fine",
    "important",
    "place",
    "needed",
];

/// The words of the user's clauses that name what they asked to keep, and no other clause's:
/// a tool's name that holds one ("versions" in `delete_file_versions`, after "Delete file 13
/// but keep its old versions") names what the user kept, not what they asked to act on.
pub(crate) fn kept_words(user: &[impl AsRef<str>]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut elsewhere = Vec::new();
    for turn in user {
        let lower = turn
            .as_ref()
            .to_lowercase()
            .replace(" other than ", " except ")
            .replace(" as they are", " intact")
            .replace(" as it is", " intact")
            .replace(" as is", " intact");
        for sentence in lower.split(['.', ';', ':', '(', ')', '\u{2014}', '\n', '!', '?']) {
            for clause in sentence
                .split(" but ")
                .flat_map(|c| c.split(" - "))
                .flat_map(|c| c.split(" then "))
                .flat_map(and_another_verb)
            {
                let (keeps, acts) = split_kept(clause);
                kept.extend(keeps);
                elsewhere.extend(acts);
            }
        }
    }
    kept.retain(|w| !elsewhere.contains(w));
    kept
}

/// A clause's words that name what it keeps, and the rest. After a word that keeps, the rest of
/// the clause is kept; before one that keeps at the end, the words back to the last part of
/// the clause that holds a verb of an action ("delete file 13, its versions must stay" keeps
/// "its versions"; "its revision history, copies and shares must stay" keeps all three).
fn split_kept(clause: &str) -> (Vec<String>, Vec<String>) {
    let words = super::classify::words(clause);
    let mut keeps: Vec<String> = Vec::new();
    if let Some(b) = words
        .iter()
        .position(|w| KEEPING_BEFORE.contains(&w.as_str()))
    {
        keeps.extend(words[b..].iter().cloned());
        // What follows names what is kept ("leaving its versions in place"), unless it only
        // ends the keeping ("its versions need to stay").
        if words[b + 1..].iter().any(|w| {
            is_object_word(w)
                && !KEEPING_BEFORE.contains(&w.as_str())
                && !KEEPING_AFTER.contains(&w.as_str())
                && !matches!(
                    w.as_str(),
                    "in" | "on" | "to" | "be" | "as" | "they" | "are" | "is"
                )
        }) {
            let acts = words.into_iter().filter(|w| !keeps.contains(w)).collect();
            return (keeps, acts);
        }
    }
    let parts: Vec<Vec<String>> = clause.split(", ").map(super::classify::words).collect();
    if let Some(k) = parts
        .iter()
        .rposition(|p| p.iter().any(|w| KEEPING_AFTER.contains(&w.as_str())))
    {
        // (A verb in its plain form: "shares and copies" holds no request to share; "leave
        // its versions as they are" none to leave.)
        let acts_in = |p: &[String]| {
            p.iter().any(|w| {
                (is_name_verb(w) || KINDLESS_ACTION_VERBS.contains(&w.as_str()))
                    && !is_generic_verb(w.as_str())
            })
        };
        let mut from = k;
        while from > 0 && !acts_in(&parts[from - 1]) && !acts_in(&parts[from]) {
            from -= 1;
        }
        keeps.extend(parts[from..=k].iter().flatten().cloned());
    }
    let acts = words.into_iter().filter(|w| !keeps.contains(w)).collect();
    (keeps, acts)
}

/// A clause split where "and" joins another verb's ("Delete file 13 and leave the links
/// working"), not where it joins things ("keep the backups and the comments").
fn and_another_verb(clause: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = clause;
    let mut from = 0;
    while let Some(at) = rest[from..].find(" and ") {
        let at = from + at;
        let next = rest[at + 5..].split_whitespace().next().unwrap_or("");
        if is_name_verb(next)
            || is_generic_verb(next)
            || LIGHT_VERBS.contains(&next)
            || KEEPING_BEFORE.contains(&next)
            || super::classify::READ_VERBS.contains(&next)
            || next == "please"
        {
            parts.push(&rest[..at]);
            rest = &rest[at + 5..];
            from = 0;
        } else {
            from = at + 5;
        }
    }
    parts.push(rest);
    parts
}

/// Why a call to `tool` is not the tool the user asked for (`kept`: the words of the user's
/// turns that ask to keep something), when another offered tool that acts on the same thing is
/// asked for more plainly. `values` are the call's argument values.
/// `None` when no offered tool is, when `tool` is not on offer (nothing is known of what it
/// takes), or when the tools on offer are unknown.
pub fn another_tool_asked_for(
    tool: &str,
    values: &[(&str, &str)],
    offered: &[OfferedTool],
    said: &[SaidWord],
    kept: &[String],
) -> Option<String> {
    let this = offered.iter().find(|o| o.name == tool)?;
    this.verb_word()?;
    let values_at: Vec<usize> = users_values_at(values, said, false)
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    let named_at = users_values_at(values, said, true);
    a_state_for_the_action(this, offered, said)
        .or_else(|| {
            let at: Vec<usize> = named_at.iter().map(|&(at, _)| at).collect();
            asked_of_another_thing(this, offered, said, &at)
        })
        .or_else(|| said_of_other_things(this, offered, said, values, &named_at))
        .or_else(|| another_plainly_asked(this, offered, said, kept, &values_at))
        .or_else(|| {
            let named_at: Vec<usize> = named_at.iter().map(|&(at, _)| at).collect();
            named_as_another_thing(this, offered, said, &named_at, kept)
        })
}

/// Why a call to `this` is not the tool the user asked for, when another offered tool that
/// acts on the same thing is asked for more plainly (the module's account).
fn another_plainly_asked(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
    kept: &[String],
    values_at: &[usize],
) -> Option<String> {
    let (tool, verb) = (this.name.as_str(), this.verb_word()?);
    let mine = this.asked(said, kept);
    let unnamed: Vec<&str> = this.objects().filter(|o| !named(o, said, kept)).collect();
    if mine == ByVerb::Own && unnamed.is_empty() {
        return None;
    }
    let on_users_value = !values_at.is_empty();
    // The plainest of them names the reason: asked with its own verb over another word, and
    // saying no more than the user wrote (`offered` comes in any order).
    let better = offered
        .iter()
        .filter_map(|o| {
            // (A value the user wrote ties a call of a verb they never used to the thing they
            // named, and one of their verb on a thing they never named to the tool of the
            // thing they named it by: "Cancel order ORD-5512" named an order, and
            // `cancel_subscription {"subscription_id": "ORD-5512"}` cancels a subscription,
            // where `cancel_order` is on offer; "send 50 to GB29…" named no e-mail. One asked
            // with its verb for all it names is compared with tools of the same thing only.)
            let tied = same_thing(this, o)
                || (on_users_value
                    && (mine == ByVerb::Not
                        || !unnamed.is_empty() && named_before(o, said, values_at)));
            if !o.acts || o.name == tool || !tied {
                return None;
            }
            let asked = o.asked_as_choice(said, kept);
            let says_no_more = o.says_no_more(said, kept);
            let better = match mine {
                ByVerb::Not => asked != ByVerb::Not,
                // Asked with its verb, or another word for its request, it is the user's unless
                // a tool of the same request says no more than they wrote ("Move Tomasz forward
                // to interviews and schedule an interview" asks for `move_candidate_stage` as
                // much as for `schedule_interview`; `run_instance_reimage` after "Start instance
                // web-1", beside `start_instance`; `remove_file_backups` after "Remove file
                // 13", beside `delete_file`).
                // Asked in other words for just what it names, it is the user's unless a tool of
                // their own verb is on offer for the same request (`remove_file` after "Delete
                // file 13", beside `delete_file`; `resolve_issue` after "Close issue 42").
                ByVerb::Synonym if unnamed.is_empty() => {
                    asked == ByVerb::Own && says_no_more && this.same_request(o)
                }
                _ => asked != ByVerb::Not && says_no_more && this.same_request(o),
            };
            better.then_some((asked, says_no_more, std::cmp::Reverse(o.name.as_str()), o))
        })
        .max_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)))
        .map(|(.., o)| o);
    let Some(better) = better else {
        return (mine != ByVerb::Own)
            .then(|| unchosen_of_its_kind(this, offered, said, kept))
            .flatten();
    };
    let asked_verb = better
        .choice
        .map(|c| better.words[c].as_str())
        .or(better.verb_word())?;
    Some(match mine {
        _ if mine != ByVerb::Not && unnamed.is_empty() => format!(
            "{tool} is another word for what you asked, but you asked to {asked_verb}, which {} \
             does",
            better.name
        ),
        ByVerb::Not if this.verb == Some(Verb::Generic) => format!(
            "{tool} changes {}, which you never named: what you asked for is {}",
            unnamed.join(" "),
            better.name
        ),
        ByVerb::Not if this.verb == Some(Verb::Unknown) => format!(
            "nothing you wrote names what {tool} does: you asked to {asked_verb}, which {} does",
            better.name
        ),
        ByVerb::Not => format!(
            "{tool} would {verb} it, but you asked to {asked_verb}, which {} does: nothing you \
             wrote asks to {verb}",
            better.name
        ),
        _ => format!(
            "{tool} acts on {}, which you never named: what you asked for is {}",
            unnamed.join(" "),
            better.name
        ),
    })
}

/// The verbs that act on the user's words at `at`: the verbs before it, back to the first,
/// and those joined to it ("delete file 13" → delete; "delete and purge file 13" → delete,
/// purge; "Purge the trash. After that, delete file 14" → delete, for 14), but not past
/// another value ("Refund order 88410; for order 88411, ship a replacement" says nothing
/// before 88411 of what is asked of it). A word that names what the call's tool acts on
/// ("expense report ER-4471" for `submit_expense_report`) is no verb there.
fn verbs_before<'s>(said: &'s [SaidWord], at: usize, this: &OfferedTool) -> Vec<&'s str> {
    let mut verbs = Vec::new();
    for s in said[..at].iter().rev() {
        let w = s.word.as_str();
        if w.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        let a_verb = !s.after_determiner
            && is_particular_verb(done_again(w))
            && !this.objects().any(|x| x == w);
        if a_verb {
            verbs.push(w);
        } else if !verbs.is_empty() && !matches!(w, "and" | "or" | "then" | "also") {
            break;
        }
    }
    verbs
}

/// The verbs the user wrote after `at` of a word that stands for it ("Finalize invoice in_77
/// and send it to the customer").
fn verbs_of_it_after(said: &[SaidWord], at: usize) -> impl Iterator<Item = &str> {
    said[at..].windows(2).filter_map(|pair| {
        matches!(pair[1].word.as_str(), "it" | "them" | "this" | "that")
            .then_some(pair[0].word.as_str())
    })
}

/// Why a call to `this`, whose verb the user wrote for another thing, is not what they asked of
/// the thing the call acts on: "Delete file 13, then purge the trash" asks to delete file 13,
/// and `purge_file {"file_id": "13"}` would purge it, where `delete_file` is on offer; "Pay
/// invoice INV-7781 and refund order ORD-5512" asks for no `refund_invoice` of INV-7781. The
/// verbs the user wrote before the value the call takes say what they asked of it.
fn asked_of_another_thing(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
    values_at: &[usize],
) -> Option<String> {
    let verb = this.choice_base.as_deref()?;
    // (Only a verb the user wrote: one they never did is judged as such.)
    if by_verb(verb, said) == ByVerb::Not {
        return None;
    }
    let asks_this = |w: &str| word_asks(verb, w) != ByVerb::Not;
    let mut asked_instead = None;
    for &at in values_at {
        let verbs = verbs_before(said, at, this);
        if verbs.is_empty()
            || verbs.iter().any(|w| asks_this(w))
            || verbs_of_it_after(said, at).any(asks_this)
        {
            return None;
        }
        asked_instead = asked_instead.or_else(|| {
            offered.iter().find(|o| {
                o.acts
                    && o.name != this.name
                    && same_thing(this, o)
                    && o.choice_base
                        .as_deref()
                        .is_some_and(|v| verbs.iter().any(|w| word_asks(v, w) == ByVerb::Own))
            })
        });
    }
    let o = asked_instead?;
    Some(format!(
        "{} would {verb} it, but what you asked of it is to {}, which {} does: the {verb} you \
         asked for is of something else",
        this.name,
        o.choice_base.as_deref().unwrap_or(verb),
        o.name
    ))
}

/// Words after a verb that stand for what it was said of before ("delete it", "text its
/// driver", "refund the former"), or for everything ("purge everything", "delete all").
const STANDS_FOR_IT: &[&str] = &[
    "it",
    "its",
    "them",
    "their",
    "both",
    "this",
    "these",
    "those",
    "former",
    "latter",
    "everything",
    "all",
];

/// Why a call to `this`, whose verb the user wrote of other things, is not what they asked of
/// the thing the call acts on: "Delete file 13, then purge the trash" asks for no purge of
/// file 13, nor "Pay invoice INV-7781 and refund order ORD-5512" for a refund of INV-7781, nor
/// "Share file 13 with kim and publish post 77" for publishing file 13. What a verb is said of
/// is the first thing named after it, before the user's next verb: a value ("purge file 14"),
/// a word standing for one ("delete it"), or what an offered tool acts on ("the trash" of
/// `purge_trash`, "order ORD-5512" of `refund_order`). Where every time the user wrote the
/// call's verb it was said of another value or of a thing another offered tool acts on, and
/// never of a value the call takes, the call asks. Where it was said of nothing the tools
/// know ("reply to the customer", "invoice INV-7781 needs paying"), the words say nothing
/// against it.
fn said_of_other_things(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
    values: &[(&str, &str)],
    values_at: &[(usize, usize)],
) -> Option<String> {
    let verb = this.choice_base.as_deref()?;
    if values_at.is_empty() || by_verb(verb, said) == ByVerb::Not {
        return None;
    }
    let own = |w: &str| this.objects().any(|x| is_form_of(w, x) || is_form_of(x, w));
    // (Any word of any value the call takes: `{"clinician": "Dr. Park"}` after "remove Dr.
    // Park from it", `{"workflow": "deploy"}` after "run the deploy workflow".)
    let call_words: Vec<String> = values
        .iter()
        .filter(|(_, v)| v.len() <= 64)
        .flat_map(|(_, v)| super::classify::words(v))
        .collect();
    let others_thing = |w: &str| {
        !own(w)
            && offered
                .iter()
                .any(|o| o.acts && o.name != this.name && o.objects().any(|x| is_form_of(w, x)))
    };
    let boundary = |s: &SaidWord| {
        !s.after_determiner && is_particular_verb(done_again(&s.word)) && !own(&s.word)
    };
    let mut other = Vec::new();
    for (i, s) in said.iter().enumerate() {
        if s.subordinate || s.after_determiner || word_asks(verb, &s.word) == ByVerb::Not {
            continue;
        }
        let end = said[i + 1..]
            .iter()
            .position(boundary)
            .map_or(said.len(), |k| i + 1 + k);
        // Said of the value itself, whatever names it ("cancel order ORD-5512"): other rules
        // judge the name.
        if values_at.iter().any(|&(at, n)| at > i && at + n <= end) {
            return None;
        }
        // The first thing named after the verb.
        let first = said[i + 1..end].iter().map(|s| s.word.as_str()).find(|w| {
            STANDS_FOR_IT.contains(w)
                || w.chars().any(|c| c.is_ascii_digit())
                || is_object_word(w)
                    && (own(w) || others_thing(w) || call_words.iter().any(|c| c == w))
        });
        match first {
            Some(w)
                if !STANDS_FOR_IT.contains(&w)
                    && !call_words.iter().any(|c| c == w)
                    && (w.chars().any(|c| c.is_ascii_digit()) || others_thing(w)) =>
            {
                // (Its value, if it has one, says which: "order ORD-5512".)
                let said_of: Vec<&str> = said[i + 1..end]
                    .iter()
                    .map(|s| s.word.as_str())
                    .skip_while(|x| *x != w)
                    .take_while(|x| {
                        x.chars().any(|c| c.is_ascii_digit()) || *x == w || others_thing(x)
                    })
                    .collect();
                other.push(said_of.join(" "));
            }
            _ => return None,
        }
    }
    let (at, n) = values_at[0];
    let value: Vec<&str> = said[at..at + n].iter().map(|s| s.word.as_str()).collect();
    (!other.is_empty()).then(|| {
        format!(
            "{} would {verb} {}, but what you asked to {verb} is {}: nothing you wrote asks to \
             {verb} {}",
            this.name,
            value.join(" "),
            other.join(", "),
            value.join(" ")
        )
    })
}

/// Why a call to `this`, a setter of the state an action leaves (`set_invoice_paid`,
/// `update_booking_cancelled`, `set_file_shared`), is not what the user asked for when they
/// asked for the action ("Pay invoice INV-7781") and a tool that takes it acts on the same
/// thing (`pay_invoice`): marking an invoice paid pays nobody, and leaves it unpaid as though
/// it were not. The user who writes the state ("mark it as paid") asks for the setter.
fn a_state_for_the_action(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
) -> Option<String> {
    let Some(Verb::At(at)) = this.verb else {
        return None;
    };
    let (state, action) = (this.words[at].as_str(), this.choice_base.as_deref()?);
    if at == 0 || !is_generic_verb(&this.words[0]) || state == action {
        return None;
    }
    if said.iter().any(|s| !s.subordinate && s.word == state) {
        return None;
    }
    let doer = offered.iter().find(|o| {
        o.acts
            && matches!(o.verb, Some(Verb::At(i)) if o.words[i] == action)
            && same_thing(this, o)
            && o.asked_as_choice(said, &[]) == ByVerb::Own
    })?;
    Some(format!(
        "{} only records it as {state}, and you asked to {action} it, which {} does",
        this.name, doer.name
    ))
}

/// Why a call to `this`, whose verb the user never wrote, is not the tool they asked for when
/// they asked for its kind in words no offered tool's name holds ("Settle invoice INV-7781",
/// "Grant kim view rights on file 13") or only in another word for each ("Close issue 42"
/// beside `resolve_issue` and `finalize_issue`, "Start pipeline 5" beside `run_pipeline` and
/// `invoke_pipeline`), and another tool that verb for verb is of that kind acts on the same
/// thing (`pay_invoice`, `refund_invoice`, `wire_invoice`): the user's words choose none of
/// them, so the model's choice would stand in for theirs, and that choice may
/// come from what it read. (Only tools whose verbs each name the kind: `send_money` pays by
/// its noun, and beside a `schedule_transfer` "pay Ana" chooses it as plainly as any word
/// could.)
fn unchosen_of_its_kind(
    this: &OfferedTool,
    offered: &[OfferedTool],
    said: &[SaidWord],
    kept: &[String],
) -> Option<String> {
    // (Asked in another word for its request, it is compared with the other tools of that
    // request alone: "run the deploy workflow" chooses between `trigger_workflow` and a
    // `run_workflow`, not a `push_file`.)
    let mine = this.asked(said, kept);
    // (A tool held to no kind needs no word of the user's for its action.)
    if this.kinds.is_empty() || !matches!(this.verb, Some(Verb::At(_))) {
        return None;
    }
    let verb = this.choice_base.as_deref()?;
    // (Every kind a verb names, though its tool is held to one: `ban` deletes and changes
    // access. A verb no kind takes a tool by, `autopay`, is of whatever kinds its tool is.)
    let of_kind_by_verb = |o: &OfferedTool, verb: &str| -> Vec<ActionKind> {
        let by_verb: Vec<ActionKind> = ActionKind::ALL
            .into_iter()
            .filter(|k| k.tool_verbs().contains(&verb))
            .collect();
        if by_verb.is_empty() {
            o.kinds.clone()
        } else {
            by_verb
        }
    };
    let kinds = of_kind_by_verb(this, verb);
    let mut kind = None;
    let rivals: Vec<&str> = offered
        .iter()
        .filter(|o| {
            let Some(v) = o.choice_base.as_deref() else {
                return false;
            };
            if !o.acts
                || o.kinds.is_empty()
                || o.name == this.name
                || !matches!(o.verb, Some(Verb::At(_)))
                || v == verb
                || !acts_on_one_thing(this, o)
                || o.asked_as_choice(said, kept) != mine
                // (One that names more than the user wrote is no reading of their words:
                // `remove_file_backups` beside `delete_file` after "Get rid of file 13".)
                || !o.says_no_more(said, kept)
            {
                return false;
            }
            let shared = of_kind_by_verb(o, v)
                .into_iter()
                .find(|k| kinds.contains(k));
            kind = kind.or(shared);
            shared.is_some()
        })
        .map(|o| o.name.as_str())
        .collect();
    let kind = kind?;
    if kind.plain_verb() == Some(verb) {
        return None;
    }
    // (`offered` comes in any order; a reason reads the same on every run.)
    let mut rivals = rivals;
    rivals.sort_unstable();
    let last = rivals.pop()?;
    let others = if rivals.is_empty() {
        last.to_string()
    } else {
        format!("{}, or {last}", rivals.join(", "))
    };
    Some(format!(
        "you asked to {} in words that name neither {} nor {others}, so which of them runs \
         would be the model's choice, not yours: nothing you wrote asks to {verb}",
        kind.describe(),
        this.name,
    ))
}

#[cfg(test)]
mod tests;
