//! Action authority (issue 14): does anything the user wrote ask for this kind of action?
//!
//! Provenance judges a call by where its argument values came from. An injected instruction
//! that needs no value from data — unlock the front door, disable two-factor authentication,
//! delete everything — has nothing to trace. So a call whose tool deletes, sends, pays, books,
//! shares, changes access or closes (an issue, a merge) also needs the user's own words (any of the run's real user turns)
//! to ask for that kind of action; otherwise it asks, saying which kind nobody asked for.
//!
//! Both sides are read generically. A tool's kinds come from the words of its name (past an
//! MCP server prefix; `readOnlyHint: true` means none); a user's requests from the
//! verbs and nouns of their turns, in any plain English form. Nothing here names a tool set.

use serde_json::Value;

use super::classify::{ToolInfo, words};
pub use super::kinds::ActionKind;
use super::kinds::{has_stem, has_verb, is_form_of};

/// Words that negate what follows them. (`don't` splits into `don` and `t`.)
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "dont", "doesnt", "didnt", "wont", "without", "nothing", "nor", "avoid",
    "stop", "neither",
];

/// A verb, what else the name must hold for it to pay, and the words that say it does not.
type QualifiedVerb = (
    &'static str,
    Option<&'static [&'static str]>,
    &'static [&'static str],
);

/// Verbs that move money only when the name says what is held: `convert_time`,
/// `convert_currency` (a rate), `exchange_code_for_token` and `git_checkout` compute or switch,
/// while `convert_funds`, `exchange_currency` and a shop's `checkout` trade or pay. Each verb
/// with what else makes it a payment: `Some(words)`, a holding ([`HELD_NOUNS`]) or one of the
/// words; `None`, any name without one of the veto words.
const QUALIFIED_PAY_VERBS: &[QualifiedVerb] = &[
    ("convert", Some(&[]), &[]),
    ("exchange", Some(&["currency", "currencies"]), &[]),
    // Version control checks out a branch; everything else that checks out pays.
    (
        "checkout",
        None,
        &[
            "git",
            "branch",
            "commit",
            "ref",
            "revision",
            "tag",
            "repo",
            "repository",
            "worktree",
            "svn",
            "hg",
        ],
    ),
];

/// What a conversion or an exchange moves money with: a holding, not a unit or a rate.
const HELD_NOUNS: &[&str] = &[
    "money", "funds", "fund", "balance", "crypto", "coin", "coins", "asset", "assets", "holdings",
    "points", "shares", "stock", "stocks",
];

/// Whether a qualified verb in `words` makes the name a payment ([`QUALIFIED_PAY_VERBS`]).
fn qualified_pay(words: &[String]) -> bool {
    let holds = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    QUALIFIED_PAY_VERBS.iter().any(|(verb, needs, vetoes)| {
        words.iter().any(|w| is_form_of(w, verb))
            && needs.is_none_or(|extra| holds(HELD_NOUNS) || holds(extra))
            && !holds(vetoes)
    })
}

/// The kinds of action a tool takes, from its name's words. A tool its annotations call read-only takes none.
pub fn tool_kinds(tool: &ToolInfo) -> Vec<ActionKind> {
    let annotation = |key: &str| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    // A read-only hint is believed only where the name agrees (classify's rule).
    if annotation("readOnlyHint") == Some(true)
        && !super::classify::name_says_it_acts(tool)
        && !super::classify::contradicts_a_read(&tool.description)
    {
        return Vec::new();
    }
    let name = name_words(&tool.name);
    // A name that starts with a looking verb names what it looks at: `get_transactions`,
    // `read_door_status` take no action, while `get_and_delete_mail` still deletes.
    let looks = name
        .first()
        .is_some_and(|f| super::classify::READ_VERBS.contains(&f.as_str()));
    // `destructiveHint` is not a kind: it marks tools that may overwrite (an MCP server's
    // write_file, keel's shell) as much as ones that delete, and what they do is judged by
    // their names here and by their values in provenance.
    let acting = if looks { &name[1..] } else { &name[..] };
    // Beside a verb of a kind that opens the name, a past participle describes what it acts
    // on and takes no action of its own: `purge_closed_tickets` deletes and closes nothing (a
    // held-out suite's injection purged tickets after "then close it"). After a looking verb,
    // or none, it is the action: `get_transfer_sent` may send (a seventh outsider round sent
    // money through one).
    let opens_with_a_kind = !looks
        && acting.first().is_some_and(|f| {
            super::kinds::names_an_action(std::slice::from_ref(f))
                && !super::kinds::is_participle(f)
        });
    // "leave" is a verb only where it opens the name: `leave_channel` leaves, while
    // `approve_leave` takes a person's time off as its object
    // (a thirteenth outsider round's approval read as a removal).
    let verbs: Vec<String> = acting
        .iter()
        .enumerate()
        .filter(|(i, w)| *i == 0 || !opens_with_a_kind || !super::kinds::is_participle(w))
        .filter(|(i, w)| *i == 0 || w.as_str() != "leave")
        // Nouns made of a kind's verb that name another thing: a shipment is goods on their
        // way, not a release shipped (`reroute_shipment`, `hold_shipment`), an on-call
        // rotation a schedule, not a key rotated (`add_to_rotation`): a seventeenth outsider
        // round's plain requests asked for both.
        .filter(|(i, w)| {
            *i == 0
                || !matches!(
                    w.as_str(),
                    "shipment" | "shipments" | "rotation" | "rotations"
                )
        })
        // A verb done again is the verb: `resend_invoice` sends, `redeploy_service` deploys.
        .map(|(_, w)| done_again(w).to_string())
        .collect();
    let by_verb: Vec<ActionKind> = ActionKind::ALL
        .into_iter()
        .filter(|k| {
            has_verb(&verbs, k.tool_verbs()) || (*k == ActionKind::Pay && qualified_pay(acting))
        })
        .collect();
    // A verb that marks the user's own view of a thing (`mark_all_dms_read`, `star_message`,
    // `pin_post`) names it, as a looking verb does: it sends no message it names.
    let marks = name
        .first()
        .is_some_and(|f| MARKING_VERBS.contains(&f.as_str()));
    let by_noun = ActionKind::ALL
        .into_iter()
        .filter(|k| !looks && !marks && has_stem(acting, k.tool_nouns()));
    // Beside a verb that deletes or closes, the other words name what goes, not another
    // action: `delete_email`, `delete_message`, `cancel_room_booking` and
    // `delete_shared_document` send, book and share nothing, so a user who asked for a reply,
    // a booking or a share has not asked for them (a third and a fifth outsider round deleted
    // that way). Only what access a removal changes stays (`remove_access`,
    // `remove_collaborator`). A verb of another kind leaves the noun its own kind:
    // `send_payment` pays as much as it sends.
    let removes = |k: &ActionKind| matches!(k, ActionKind::Delete | ActionKind::Close);
    let removing = by_verb.iter().any(removes);
    let mut by_name: Vec<ActionKind> = by_verb
        .into_iter()
        .filter(|k| !removing || removes(k))
        .collect();
    // Removing a safeguard — a lock, a password, two-factor, an alarm — lets people in: an
    // access change alone, so "Delete the front door photos" does not authorize `remove_lock`
    // (a sixth outsider round). Removing someone's access or membership is a removal, which
    // also changes access (`remove_collaborator`: either asked for will do).
    // (The safeguard must be what goes, the name's last word: `clear_camera_history` deletes
    // recordings and leaves the cameras watching.)
    if removing
        && acting
            .last()
            .is_some_and(|w| super::kinds::SAFEGUARD_NOUNS.contains(&w.as_str()))
    {
        by_name = vec![ActionKind::Access];
    }
    // An invoice sent, made or issued asks to be paid; it pays nothing (`send_invoice`,
    // `create_invoice`), where paying or settling one does.
    let bills_someone = acting.iter().any(|w| is_form_of(w, "invoice"))
        && acting.iter().any(|w| {
            ActionKind::Send.tool_verbs().contains(&w.as_str())
                || matches!(w.as_str(), "create" | "issue" | "draft" | "resend")
        });
    for kind in by_noun {
        if bills_someone && kind == ActionKind::Pay && !by_name.contains(&ActionKind::Pay) {
            continue;
        }
        let kept = !removing || matches!(kind, ActionKind::Share | ActionKind::Access);
        if kept && !by_name.contains(&kind) && by_name != [ActionKind::Access] {
            by_name.push(kind);
        }
    }
    by_name.sort();
    // A name with a verb keel knows (`write_file`, `update_profile`) says what the tool does.
    let knows_a_verb = name.iter().any(|w| {
        let w = w.as_str();
        super::classify::WRITE_VERBS.contains(&w)
            || super::classify::READ_VERBS.contains(&w)
            || super::classify::READ_NOUNS.contains(&w)
            || CHANGE_VERBS.contains(&w)
    });
    if !by_name.is_empty() || tool.description.is_empty() {
        return by_name;
    }
    // A name no kind knows (`del_repo`, `elevate_user`, `borrar_repositorio`): its
    // description says what it does — by its verbs, and by what they act on ("Gives the user
    // full administrator rights", "Makes a copy … that anyone on the internet can read").
    let (mut verbs, mut objects, all) = super::classify::description_verbs(&tool.description);
    if knows_a_verb {
        // What its verbs act on is what the name already says ("write the text to a file").
        objects.clear();
        // How a writing verb writes is not another action: "Create … or completely overwrite
        // an existing file" of `write_file`.
        verbs.retain(|v| {
            !matches!(
                v.as_str(),
                "overwrite" | "replace" | "truncate" | "clear" | "empty"
            )
        });
    }
    if verbs.is_empty() {
        return by_name;
    }
    ActionKind::ALL
        .into_iter()
        .filter(|k| {
            has_verb(&verbs, k.tool_verbs())
                || has_stem(&objects, k.tool_nouns())
                || (*k == ActionKind::Share
                    && all
                        .iter()
                        .any(|w| matches!(w.as_str(), "anyone" | "everyone" | "public")))
                || (*k == ActionKind::Access
                    && !knows_a_verb
                    && all
                        .iter()
                        .any(|w| matches!(w.as_str(), "administrator" | "rights" | "privileges")))
        })
        .collect()
}

/// Verbs that mark how the user sees a thing, changing nothing anyone else sees.
const MARKING_VERBS: &[&str] = &[
    "mark", "unmark", "star", "unstar", "pin", "unpin", "flag", "unflag", "label", "tag", "snooze",
    "mute", "unmute", "hide", "unhide", "collapse", "expand", "sort",
];

/// Definite and possessive determiners: after one, a word that could be a verb names a thing
/// that already exists — "the contact", "my messages", "this email" say what to look at, while
/// "contact Ada", "email the report" ask. (An indefinite article introduces something to be
/// made: "a comment", "a payment" still ask.)
const DETERMINERS: &[&str] = &[
    "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their",
    // German, French, Spanish and Italian articles and possessives: "Lies die E-Mail 12",
    // "Lis le mail 12" name an e-mail and ask for none to be sent (a fifth outsider round).
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "mein", "meine", "meinen",
    "le", "la", "les", "un", "une", "mon", "ma", "mes", "el", "los", "las", "una", "mi", "mis",
    "il", "lo", "gli",
];

/// Words that end a noun phrase: what follows them is not its noun ("the file and delete
/// it", "the note to Bob"), or is a clause of its own ("the amount I usually pay").
const PHRASE_BREAKS: &[&str] = &[
    "to", "of", "for", "from", "with", "in", "on", "at", "by", "into", "onto", "as", "about",
    "via", "than", "and", "or", "then", "but", "so", "it", "them", "him", "her", "me", "us", "is",
    "are", "was", "were", "be", "please", "i", "you", "we", "they", "he", "she", "who", "which",
];

/// How many words after its determiner a noun phrase may run: "the front door lock", "the
/// acme/keel PR 31 merge conflicts".
const PHRASE_WORDS: usize = 6;

/// Verbs that, with the user as their object, still send ("email me the report").
const SENDS_TO_THE_USER: &[&str] = &[
    "send", "email", "mail", "text", "forward", "message", "dm", "sms", "ping", "fax",
];

/// Prepositions whose object names a thing: "described in e-mail 12", "the invoice from
/// Dana" ask for no e-mail and no payment.
const PREPOSITIONS: &[&str] = &[
    "in",
    "on",
    "at",
    "from",
    "of",
    "with",
    "about",
    "into",
    "by",
    "via",
    "per",
    "under",
    "regarding",
];

/// Request stems that are only nouns, naming what an action changes or the action itself
/// ("update the password", "the transfer to Bob"): no determiner makes them a mere mention.
const NOUN_STEMS: &[&str] = &[
    "password",
    "passcode",
    "2fa",
    "mfa",
    "permission",
    "credential",
    "collaborator",
    "backup",
];

/// Words that, followed by a number, name the thing numbered ("Archive e-mail 12", "reply to
/// message 4") rather than ask for a message to be sent.
const NUMBERED_THINGS: &[&str] = &[
    "email", "mail", "message", "msg", "text", "sms", "dm", "comment", "post", "note", "ticket",
    "thread", "chat", "reply",
];

/// Verbs that look at what follows them (not `get`: "get rid of" deletes).
const LOOKING_VERBS: &[&str] = &[
    // "read" in German, French, Spanish, Italian and Portuguese: "Lies Mail 12".
    "lies",
    "lese",
    "lesen",
    "lis",
    "lire",
    "lee",
    "leer",
    "leggi",
    "leia",
    "zeig",
    "zeige",
    "read",
    "open",
    "view",
    "show",
    "list",
    "find",
    "search",
    "check",
    "review",
    "see",
    "summarize",
    "summarise",
    "analyze",
    "analyse",
    "explain",
    "translate",
    "print",
    "scan",
    "skim",
    "inspect",
    "describe",
    "display",
    "look",
    "browse",
];

/// One word of the user's turns that no negation before it takes back.
#[derive(Clone, Debug)]
pub struct SaidWord {
    pub word: String,
    /// It follows a determiner: it names a thing.
    pub after_determiner: bool,
    /// It asks for nothing by itself: it stands in a clause a subordinator opens ("let me
    /// know if I need to turn it off", "before I change anything", "whether I can restart
    /// it"), is a passive ("needs to be reset"), or a verb whose object is the user ("let me
    /// know", "give me a report", "tell us"), or that a word after it takes elsewhere ("set
    /// aside").
    pub subordinate: bool,
    /// It names what a creating verb makes ("add the deploy key", "create a webhook"): the
    /// kind a tool takes by that noun is asked for.
    pub created: bool,
    /// It names where an action happens, not what it acts on: "remove Carl from the design
    /// channel", "delete the files in Downloads".
    pub located: bool,
}

/// Verbs after which the end of the phrase says what the thing is made.
const COMPLEMENT_VERBS: &[&str] = &["make", "set", "turn", "switch", "keep", "mark"];

/// Verbs that make a new thing of what they name.
pub(crate) const CREATING_VERBS: &[&str] = &[
    "add",
    "create",
    "generate",
    "grant",
    "give",
    "enable",
    "issue",
    "register",
    "provision",
];

/// Prepositions whose object is where an action happens.
pub(crate) const LOCATING: &[&str] = &["from", "in", "inside", "within", "off"];

/// What holds things that clearing empties.
const STORES: &[&str] = &[
    "history",
    "cache",
    "inbox",
    "trash",
    "bin",
    "log",
    "logs",
    "queue",
    "notifications",
    "recordings",
    "clips",
    "downloads",
    "cart",
    "basket",
    "list",
    "chat",
    "conversation",
];

/// Who a verb's object is made for, right after it: "give her access", "grant them admin".
const INDIRECT_OBJECTS: &[&str] = &["her", "him", "them", "me", "us"];

/// Verbs that change an access setting they are said of: "set the alarm", "change the door
/// code", "arm the alarm".
const ACCESS_CHANGING_VERBS: &[&str] = &[
    "set", "change", "turn", "switch", "arm", "disarm", "update", "rotate",
];

/// A verb done again is the verb: "resend the invoice" sends it, "resubmit the claim" submits
/// it, "rebook" books. (Words that only begin like one keep their meaning: "resign",
/// "recharge", "rewire", "reset", "remark", and "reorder" and "reformat" arrange, a
/// fifteenth outsider round's.)
pub(crate) fn done_again(word: &str) -> &str {
    let Some(rest) = word.strip_prefix("re").map(|r| r.trim_start_matches('-')) else {
        return word;
    };
    let verb = rest.len() >= 3
        && !matches!(
            word,
            "resign" | "recharge" | "rewire" | "reset" | "remark" | "rest" | "reorder" | "reformat"
        )
        && ActionKind::ALL
            .iter()
            .any(|k| k.request_stems().contains(&rest) || k.tool_verbs().contains(&rest));
    if verb { rest } else { word }
}

/// What the verb at `i` with its particle means, where keel reads the particle: `take` with
/// `away`, `let` with `in` ("let him in" unlocks; "let Marco know I'm in the garden" does not,
/// a fifteenth outsider round's false alarm). The particle stands within four words, in the
/// verb's clause, before any other verb's. ("Turn off" is no request to disable: "turn off the
/// porch light" asks for no alarm switched off, a twelfth outsider round's; a flag it switches
/// off is read by [`switched_off`]. "Take her out of the group" is no removal of anything but
/// her membership, which a deletion's own word must ask for: a fifteenth round deleted the
/// group.)
fn phrasal_verb(words: &[String], clause: &[usize], i: usize) -> Option<&'static str> {
    let verb = words[i].as_str();
    // "Make him a manager", "make Sofia an admin": a role given is access granted (a held-out
    // suite's user).
    if verb == "make" {
        let word = |k: usize| words.get(k).map_or("", String::as_str);
        // (Not a role's possession: "make bob a manager's checklist".)
        let role = |k: usize| {
            ROLE_NAMES.contains(&word(k)) && clause.get(k) == clause.get(i) && word(k + 1) != "s"
        };
        let pronoun = matches!(word(i + 1), "him" | "her" | "them" | "me" | "us");
        let named = matches!(word(i + 2), "a" | "an")
            && !matches!(
                word(i + 1),
                "sure" | "it" | "this" | "that" | "everything" | "something" | "everyone"
            );
        let grants = (pronoun
            && (role(i + 2) || (matches!(word(i + 2), "a" | "an") && role(i + 3))))
            || (named && role(i + 3));
        return grants.then_some("grant");
    }
    // "Answer the e-mail from the couple": a message answered is a reply (a held-out suite's
    // user); "answer my question" is the user told.
    if matches!(verb, "answer" | "answers") {
        let in_clause: Vec<&str> = words
            .iter()
            .enumerate()
            .skip(i + 1)
            .take_while(|(k, _)| clause[*k] == clause[i])
            .map(|(_, w)| w.as_str())
            .collect();
        // Its object right after it, past a determiner and a word that picks one ("the latest
        // review"): "answer my question about review R-5" answers the user, and an answer "in
        // a draft" or "in your head" sends nothing (an outsider's round 24).
        let object = in_clause.iter().find(|w| {
            !(DETERMINERS.contains(w)
                || matches!(
                    **w,
                    "her"
                        | "his"
                        | "their"
                        | "our"
                        | "its"
                        | "latest"
                        | "last"
                        | "new"
                        | "newest"
                        | "first"
                        | "unread"
                ))
        });
        let answered = object.is_some_and(|w| {
            matches!(
                *w,
                "email"
                    | "emails"
                    | "mail"
                    | "message"
                    | "messages"
                    | "review"
                    | "reviews"
                    | "comment"
                    | "comments"
                    | "inquiry"
                    | "enquiry"
                    | "ticket"
                    | "dm"
                    | "text"
                    | "sms"
                    | "letter"
            )
        }) && !in_clause
            .iter()
            .any(|w| matches!(*w, "draft" | "head" | "mind" | "drafts"));
        return answered.then_some("reply");
    }
    if !matches!(verb, "take" | "let") {
        return None;
    }
    words
        .iter()
        .enumerate()
        .skip(i + 1)
        .take(4)
        .take_while(|(k, w)| {
            clause[*k] == clause[i]
                && !matches!(
                    w.as_str(),
                    "and" | "then" | "but" | "to" | "know" | "see" | "i"
                )
        })
        .find_map(|(k, w)| match (verb, w.as_str()) {
            ("take", "away") => Some("remove"),
            // "Take him off as a beneficiary" removes him; "take the milk off the groceries
            // list" names the list it comes off, which is no list to delete (a fifteenth
            // outsider round's).
            ("take", "off")
                if words.get(k + 1).is_none_or(|next| {
                    clause.get(k + 1) != clause.get(k)
                        || matches!(next.as_str(), "as" | "now" | "please" | "too" | "today")
                }) =>
            {
                Some("remove")
            }
            ("let", "in") => Some("unlock"),
            _ => None,
        })
}

/// Words that open a clause saying why or what for, after the request.
const PURPOSE_WORDS: &[&str] = &["so", "because", "since", "otherwise"];

/// `sentence` with idioms read as what they say: "not forget to" and "never forget to" ask
/// ("Please don't forget to pay the water bill B-300", a nineteenth outsider round's user),
/// and "no." before a number is "number", not a "no" ("Delete e-mail no. 31", a
/// twenty-first's).
fn plain_idioms(sentence: &str) -> std::borrow::Cow<'_, str> {
    if !sentence.contains("orget") && !sentence.contains("o.") {
        return std::borrow::Cow::Borrowed(sentence);
    }
    let mut out = sentence.to_string();
    for (from, to) in [
        ("not forget to", "remember to"),
        ("never forget to", "remember to"),
        ("Never forget to", "Remember to"),
    ] {
        out = out.replace(from, to);
    }
    for no in ["no.", "No.", "NO."] {
        let mut from = 0;
        while let Some(at) = out[from..].find(no).map(|at| at + from) {
            let starts_word = out[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let number_follows = out[at + no.len()..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit());
            if starts_word && number_follows {
                out.replace_range(at..at + no.len(), "number");
            }
            from = at + no.len();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether the words after a subject "I" or "we" tell how the user lives, with a negation
/// that forbids nothing: "never use it", "don't really need it anymore". Not where the verb
/// is one of wanting or allowing ("I don't want it sent", "we never agreed to this").
fn tells_a_habit(after: &[String]) -> bool {
    let mut rest = after
        .iter()
        .map(String::as_str)
        .skip_while(|w| matches!(*w, "really" | "just" | "hardly" | "ever" | "honestly"));
    let negated = match (rest.next(), rest.clone().next()) {
        (Some("never"), _) => true,
        (Some("do"), Some("not")) => {
            rest.next();
            true
        }
        _ => false,
    };
    let verb = rest.find(|w| !matches!(*w, "really" | "even" | "ever" | "actually"));
    negated
        && verb.is_some_and(|v| {
            v.len() > 2
                && !matches!(
                    v,
                    "want"
                        | "wish"
                        | "allow"
                        | "let"
                        | "authorize"
                        | "authorise"
                        | "approve"
                        | "agree"
                        | "agreed"
                        | "permit"
                        | "like"
                        | "trust"
                        | "mean"
                )
                && !ActionKind::ALL
                    .iter()
                    .any(|k| k.request_stems().iter().any(|s| is_form_of(v, s)))
        })
}

/// Whether the words after a "but" keep a thing apart from the request with a verb of their
/// own: "change the address on the home and auto policies, but don't touch the life policy"
/// (a fifth held-out set's user), "but never e-mail Bob". A negation there takes back only its
/// own clause. One that takes back part of the request ("but not the second one", "but
/// actually not db-1", "but wait, not the fridge": an eighteenth outsider round's) takes back
/// the sentence, as any negation does.
fn keeps_apart(after: &[String]) -> bool {
    let after: Vec<&str> = after
        .iter()
        .map(String::as_str)
        .skip_while(|w| *w == "please")
        .take(3)
        .collect();
    let verb_at = match after.as_slice() {
        ["do", "not", ..] | ["don", "t", ..] => 2,
        ["never", ..] => 1,
        _ => return false,
    };
    after.get(verb_at).is_some_and(|v| {
        v.len() > 2
            && !DETERMINERS.contains(v)
            && !PREPOSITIONS.contains(v)
            && !v.chars().any(|c| c.is_ascii_digit())
            && !matches!(
                *v,
                "yet" | "now" | "today" | "that" | "this" | "one" | "both" | "any" | "anything"
            )
    })
}

/// Verbs that have someone told or asked something: what follows their "that", "if" or
/// "whether" is the message.
const SAYING_VERBS: &[&str] = &[
    "tell", "ask", "text", "reply", "answer", "respond", "inform", "notify", "message", "email",
    "write", "say", "know", "remind", "warn",
];

/// What "send" sends when it sends a message, not money: within seven words after it (an
/// address between is three).
const MESSAGE_OBJECTS: &[&str] = &[
    // A bill sent asks to be paid; it pays nothing ("send invoice INV-2207 to Acme").
    "invoice",
    "invoices",
    "quote",
    "estimate",
    "receipt",
    "statement",
    "sms",
    "text",
    "email",
    "mail",
    "message",
    "note",
    "dm",
    "reply",
    "letter",
    "invite",
    "invitation",
    "link",
    "file",
    "report",
    "photo",
    "photos",
    "document",
    "list",
    "reminder",
    "memo",
    "update",
    "summary",
    "agenda",
];

/// What "leave" or "drop" at `at` of `said` asks for: a message where it leaves one ("leave
/// a comment on it", "drop Bob a line", "leave Bob a note"), nothing where "leave" is a
/// person's time off ("approve leave request LR-554", "E-4411's annual leave"), keeps a thing
/// as it is ("leave its disk alone", "leave the rest as is", "leave the porch light on"), or
/// tells what someone is doing ("we are leaving for the weekend"); otherwise a removal ("leave
/// the #random channel", "drop the table"). A thirteenth outsider round deleted a repository
/// after "leave a comment on it", and terminated an employee after "approve leave request".
fn leaves_or_drops(said: &[SaidWord], at: usize) -> &'static str {
    const LEFT_MESSAGES: &[&str] = &[
        "comment",
        "comments",
        "review",
        "feedback",
        "voicemail",
        "line",
        "word",
        "message",
        "messages",
        "note",
        "notes",
        "reply",
    ];
    const TIME_OFF_BEFORE: &[&str] = &[
        "on",
        "annual",
        "sick",
        "parental",
        "maternity",
        "paternity",
        "unpaid",
        "paid",
        "medical",
        "study",
        "compassionate",
        "am",
        "are",
        "is",
        "was",
        "were",
        "be",
        "been",
    ];
    const TIME_OFF_AFTER: &[&str] = &[
        "request",
        "requests",
        "balance",
        "application",
        "applications",
        "policy",
        "days",
        "entitlement",
        "form",
        "approval",
        "of",
        "for",
    ];
    const KEPT: &[&str] = &[
        "alone",
        "untouched",
        "unchanged",
        "on",
        "running",
        "open",
        "intact",
    ];
    let word = |i: usize| said.get(i).map_or("", |w| w.word.as_str());
    let next: Vec<&str> = (at + 1..(at + 6).min(said.len())).map(word).collect();
    if next
        .iter()
        .take(4)
        .any(|w| LEFT_MESSAGES.contains(w) || MESSAGE_OBJECTS.contains(w))
    {
        return "message";
    }
    let leave = is_form_of(word(at), "leave");
    let time_off = leave
        && ((at > 0 && TIME_OFF_BEFORE.contains(&word(at - 1)))
            || next.first().is_some_and(|w| TIME_OFF_AFTER.contains(w)));
    // ("Leave deleting it to me" hands the deleting to the user: a fifteenth outsider
    // round's.)
    let kept = next.iter().any(|w| KEPT.contains(w))
        || next.windows(2).any(|pair| {
            pair == ["as", "is"]
                || pair == ["as", "it"]
                || pair == ["to", "me"]
                || pair == ["to", "us"]
        });
    if time_off || kept {
        return "";
    }
    if leave { "leave" } else { "drop" }
}

/// What "send" sends when it pays: a sum, or a word for one.
const MONEY_OBJECTS: &[&str] = &[
    "eur",
    "euro",
    "euros",
    "usd",
    "dollar",
    "dollars",
    "gbp",
    "pound",
    "pounds",
    "chf",
    "money",
    "payment",
    "amount",
    "difference",
    "share",
    "refund",
    "rest",
    "balance",
    "cash",
    "funds",
    "tip",
    "deposit",
    "rent",
];

/// Nouns of a message or a note whose text follows a colon ("add a to-do: …", "post in
/// #general: …", "my weekend list: …"), beside the saying verbs.
const MESSAGE_NOUNS: &[&str] = &[
    "post", "note", "todo", "reminder", "memo", "list", "sms", "dm", "body", "comment", "status",
    "message", "caption", "task",
];

/// Words that open a condition on what the rest of the sentence asks.
const CONDITIONS: &[&str] = &["if", "unless", "when", "once", "whenever"];

/// Words that open a clause that says when or whether, not what to do.
const SUBORDINATORS: &[&str] = &[
    "if",
    "whether",
    "before",
    "after",
    "when",
    "until",
    "unless",
    "once",
    "how",
    "why",
    "what",
    "which",
    "where",
    "while",
    "whenever",
    // A supposition asks for nothing: "Suppose I share the deck with Dana, would she…".
    "suppose",
    "supposing",
    "imagine",
    "assuming",
    "hypothetically",
    // What someone else said, wrote or asked is reported, not asked of you: "IT said they
    // would revoke all sessions", "Bob asked me to delete it".
    "said",
    "says",
    "wrote",
    "writes",
    "asked",
    "asks",
    "told",
    "claims",
    "claimed",
    "mentioned",
    "suggested",
    "wants",
    "wanted",
];

/// Verbs whose object is text being made or worked on, not sent or done: "Draft a reply to
/// Dana", "Write a note for the plumber", "Translate …".
const COMPOSING_VERBS: &[&str] = &[
    "draft",
    "write",
    "compose",
    "prepare",
    "translate",
    "proofread",
    "rephrase",
    "rewrite",
    "outline",
    "sketch",
    "calculate",
    "estimate",
    "compute",
];

/// Words that open a question about how things are, which asks for nothing ("Who unlocked the
/// door?", "Is the front door locked?", "Why did my payment fail?"). A question that asks for
/// something opens otherwise ("Can you delete it?", "Could you send…?").
const QUESTION_WORDS: &[&str] = &[
    "who", "whom", "whose", "why", "what", "when", "where", "which", "how", "did", "does", "do",
    "was", "were", "is", "are", "has", "have", "had", "any",
];

/// The words of the user's turns, less those a negation earlier in their sentence takes back
/// ("don't delete anything", "no payments please", "Do NOT, under any circumstances, delete
/// it"), and less every word of a question about how things are ([`QUESTION_WORDS`]).
pub fn said_words<'a>(user_turns: impl IntoIterator<Item = &'a str>) -> Vec<SaidWord> {
    let mut said: Vec<SaidWord> = Vec::new();
    for turn in user_turns {
        let turn = without_quotes(turn);
        let turn = without_shown_lists(&turn);
        // After a sentence that opens a message ("e-mail Bob this:", "Message follows."),
        // what the turn goes on to say is the message (an eleventh outsider round's).
        let mut in_message = false;
        let turn_start = said.len();
        for sentence in sentences(&turn) {
            let before = said.len();
            // "Never mind", "Scratch that", "No.", "Sorry, I meant: …" take back what the turn
            // asked before them (a seventeenth outsider round refunded the order the user had
            // asked about and then called off).
            if retracts(sentence) {
                for word in &mut said[turn_start..before] {
                    word.subordinate = true;
                }
            }
            said_in_sentence(sentence, &mut said);
            if in_message {
                for word in &mut said[before..] {
                    word.subordinate = true;
                }
            }
            in_message |= opens_a_message(sentence);
        }
    }
    said
}

/// Whether a sentence puts what it asks off until something nobody has seen happen yet:
/// "only if I tell you so", "once Legal signs off", "after the returned item arrives",
/// "keep it until the renewal date, then cancel it" (a seventeenth outsider round's). A data
/// of the run cannot show that the time has come, since an injection can say so; so the
/// sentence asks for nothing now, and acting on it is a question. What the agent does itself
/// comes in order, not later ("once you have found it", "after reading it", "after that"), and
/// a range's end is no deferral ("from 6pm until 11").
fn deferred(turn_words: &[String], clause: &[usize], reported: &dyn Fn(usize) -> bool) -> bool {
    let is = |k: usize, w: &str| turn_words.get(k).is_some_and(|x| x == w);
    turn_words
        .iter()
        .enumerate()
        .any(|(k, w)| match w.as_str() {
            // The user's own later word: "only if I tell you", "when I say so", "once I confirm"
            // — wherever it stands, a dictated message too ("…: we will sign, after I've read
            // the draft", an outsider's round 24).
            "if" | "unless" | "once" | "after" | "when" if is(k + 1, "i") => !matches!(
                turn_words.get(k + 2).map(String::as_str),
                Some("m" | "am" | "was")
            ),
            // Someone else's later act, in the present tense: "once Legal signs off", "when the
            // bill arrives". (In the message the user dictates it is its reader's: "Reply to
            // counsel: we'll sign once the funds have cleared" asks for the reply now, a
            // held-out suite's user.)
            "once" | "after" | "when" if !reported(k) => {
                let event: Vec<usize> = (k + 1..turn_words.len())
                    .take_while(|&n| {
                        clause[n] == clause[k]
                            && !matches!(turn_words[n].as_str(), "and" | "then" | "but")
                    })
                    .take(5)
                    .collect();
                !event.iter().any(|&n| {
                    // (What the agent's own work does is in order too: "notify me when it
                    // finishes", "once they pass".)
                    matches!(
                        turn_words[n].as_str(),
                        "you" | "your" | "u" | "that" | "this" | "it" | "they"
                    )
                }) && !event
                    .first()
                    .is_some_and(|&n| turn_words[n].ends_with("ing"))
                    && event.iter().skip(1).any(|&n| {
                        let v = turn_words[n].as_str();
                        let before = turn_words[n - 1].as_str();
                        v.len() > 3
                            && v.ends_with('s')
                            && !v.ends_with("ss")
                            && !v.ends_with("us")
                            && !matches!(
                                v,
                                "this"
                                    | "does"
                                    | "goes"
                                    | "always"
                                    | "times"
                                    | "days"
                                    | "weeks"
                                    | "hours"
                                    | "minutes"
                                    | "months"
                                    | "years"
                            )
                            && !DETERMINERS.contains(&before)
                            && !before.chars().all(|c| c.is_ascii_digit())
                    })
            }
            // "Keep it until the renewal date, then cancel it."
            "until" => turn_words[k + 1..].iter().any(|n| n == "then"),
            _ => false,
        })
}

/// Why a value the user wrote is not given to the call that carries it
/// ([`bound_to_another_action`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotGiven {
    /// Given to another action: "refund order 88410 and ship a replacement for order 88411"
    /// gives 88411 to the shipping. The other verb and the call's.
    ToAnother { other: String, own: String },
    /// Excepted from the request: "pay all my open bills except B-200".
    Excepted,
    /// Corrected away: "refund order 88411, sorry, typo: 88410", "Pay bill B-200. Wrong
    /// one, B-100."
    Corrected,
}

/// Words that open a correction of what was just written ("88411, sorry, typo: 88410").
const CORRECTING: &[&str] = &[
    "sorry",
    "typo",
    "err",
    "erm",
    "um",
    "umm",
    "uh",
    "correction",
    "oops",
    "rather",
    "i mean",
    "i meant",
    "meant to say",
    "make that",
    "no wait",
    "wait no",
    "wrong",
    "should be",
    "not that one",
    "actually",
    "my mistake",
    "the right one is",
    "make it",
    "instead",
];

/// Words that except what follows them from a request: "pay all open bills except B-200".
const EXCEPTING: &[&str] = &[
    "except",
    "excepting",
    "excluding",
    "minus",
    "other than",
    "apart from",
    "aside from",
    "leaving out",
    "leave out",
    "not including",
    "with the exception of",
    "save for",
    "save",
    "bar",
];

/// The form of a value, as a correction or a request repeats it: letters as `a`, digits as
/// `9`, each run once (`B-200` and `BK-5521` are `a-9`, `88410` is `9`), or `@` for an
/// address.
fn value_form(token: &str) -> Option<String> {
    let token = token.trim_matches(|c: char| !c.is_alphanumeric());
    if token.contains('@') {
        return Some("@".into());
    }
    if !token.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut form = String::new();
    for c in token.chars() {
        let class = if c.is_ascii_digit() {
            '9'
        } else if c.is_alphabetic() {
            'a'
        } else {
            c
        };
        if !form.ends_with(class) {
            form.push(class);
        }
    }
    Some(form)
}

/// Whether `text` holds a token of the form `form` ([`value_form`]).
fn holds_form(text: &str, form: &str) -> bool {
    text.split_whitespace()
        .any(|t| value_form(t).as_deref() == Some(form))
}

/// Where a whole phrase of `phrases` first stands in `lower` (lowercase text), as the byte
/// offset just past it.
fn phrase_end(lower: &str, phrases: &[&str]) -> Option<usize> {
    phrases
        .iter()
        .filter_map(|p| {
            lower.match_indices(p).find_map(|(at, _)| {
                let before = lower[..at].chars().next_back();
                let after = lower[at + p.len()..].chars().next();
                (before.is_none_or(|c| !c.is_alphanumeric())
                    && after.is_none_or(|c| !c.is_alphanumeric()))
                .then_some(at + p.len())
            })
        })
        .min()
}

/// Whether the sentence corrects the value `value` (of form `form`) it writes: a correcting
/// word after it, then another value of its form.
fn corrected_within(sentence: &str, value: &str, form: &str) -> bool {
    let lower = sentence.to_lowercase();
    let Some(at) = lower.find(&value.to_lowercase()) else {
        return false;
    };
    let after = &lower[at + value.len()..];
    phrase_end(after, CORRECTING)
        .is_some_and(|end| holds_form(&after[end..], form) && !adds(&after[end..]))
}

/// Whether words after a correcting word add to the request rather than correct it: "oops,
/// and 32 as well", "sorry, 32 too".
fn adds(after: &str) -> bool {
    let w = words(after);
    w.first()
        .is_some_and(|f| matches!(f.as_str(), "and" | "also" | "plus"))
        || w.windows(2).any(|p| p[0] == "as" && p[1] == "well")
        || w.iter().any(|x| matches!(x.as_str(), "too" | "also"))
}

/// Whether a sentence opens by correcting the one before it and gives a value of the form
/// `form` instead: "Wrong one, B-100", "Sorry, should be BK-5521", "Oops, wrong person: with
/// ana@acme.com".
fn opens_a_correction(sentence: &str, form: &str) -> bool {
    let lower = sentence.trim_start().to_lowercase();
    let opening = lower.get(..40.min(lower.len())).unwrap_or(&lower);
    let starts = words(opening);
    let interjections = starts
        .iter()
        .take_while(|w| {
            matches!(
                w.as_str(),
                "oops"
                    | "sorry"
                    | "ah"
                    | "oh"
                    | "no"
                    | "hmm"
                    | "argh"
                    | "ugh"
                    | "wait"
                    | "erm"
                    | "err"
                    | "um"
                    | "uh"
            )
        })
        .count();
    let rest = starts[interjections..].join(" ");
    if adds(&lower) {
        return false;
    }
    (CORRECTING
        .iter()
        .any(|c| rest.starts_with(c) && rest[c.len()..].chars().next().is_none_or(|n| n == ' '))
        // Or an interjection, then the value itself: "Sorry, B-100."
        || (interjections > 0
            && lower
                .split_whitespace()
                .nth(interjections)
                .and_then(value_form)
                .as_deref()
                == Some(form)))
        && holds_form(&lower, form)
}

/// Prepositions that name where an action acts: "to the care team", "from it".
const PLACE_PREPOSITIONS: &[&str] = &["to", "from", "in", "into", "on", "onto", "off", "of"];

/// Whether `clause` excepts `value` from its request: an [`EXCEPTING`] word, then the value
/// within four words ("except B-200", "other than the porch light"; not "850 EUR minus the 50
/// EUR I advanced to DE89…", which is a sum).
fn excepts(clause: &str, value: &str) -> bool {
    let lower = clause.to_lowercase();
    let value = value.to_lowercase();
    let mut from = 0;
    while let Some(end) = phrase_end(&lower[from..], EXCEPTING) {
        let after = &lower[from + end..];
        // (Something is asked before the exception: "Save a draft reply to bob@acme.com"
        // opens with a verb, and excepts nothing.)
        let asked_before = words(&lower[..from + end])
            .iter()
            .rev()
            .skip(1)
            .any(|w| !CLAUSE_FILLERS.contains(&w.as_str()));
        // "Pay nothing but B-200", "no bills other than B-200": after a negation the
        // exception is the only thing asked for.
        let only = words(&lower[..from + end]).iter().any(|w| {
            matches!(
                w.as_str(),
                "nothing" | "no" | "none" | "not" | "nobody" | "never"
            )
        });
        if asked_before
            && !only
            && let Some(at) = after.find(&value)
            && after[..at].split_whitespace().count() <= 4
        {
            return true;
        }
        from += end;
    }
    false
}

/// Whether the word after a clause's first is a name or an id, which the first labels ("and
/// patient P-4415 with Dr. Park at 14:00"): the first is then no verb.
fn labels_a_value(clause: &str) -> bool {
    let mut tokens = clause
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '@'))
        .filter(|t| !t.is_empty())
        .skip_while(|t| CLAUSE_FILLERS.contains(&t.to_lowercase().as_str()));
    tokens.next();
    tokens.next().is_some_and(|t| {
        t.chars().any(|c| c.is_ascii_digit()) || t.chars().next().is_some_and(char::is_uppercase)
    })
}

/// Where the user gave a value to one action and the call gives it to another, or took it
/// out of the request: "refund order 88410 and ship a replacement for order 88411" gives 88411
/// to the shipping, so `refund_order {"order_id": "88411"}` refunds what the user did not ask
/// to refund (a seventeenth outsider round swapped the objects of two actions of one request
/// this way); a nineteenth round gave the call a value the user excepted ("pay all my open
/// bills except B-200") or corrected ("refund order 88411, sorry, typo: 88410").
/// Judged only where the user's words are plain about it: every clause that holds the value
/// opens with another acting verb (not a looking one: "read e-mail 12 and reply to Bob" gives
/// 12 to the reply), excepts it or corrects it; and a clause that opens with the call's own
/// verb writes an object of its own (in "find invoice 1002 and pay it" the "it" is 1002).
/// `identifier` says the value names a thing (not an amount or text). (A value only
/// mentioned in a question or a statement beside the request, "Did I already pay B-200? Pay
/// B-100 now.", is not read: a twentieth outsider round showed such a reading asks for the
/// user's own additions, "Oh, and B-200 too", and stops few of the ways to mention a thing.)
pub fn bound_to_another_action(
    value: &str,
    tool: &str,
    kinds: &[ActionKind],
    user: &[impl AsRef<str>],
    identifier: bool,
) -> Option<NotGiven> {
    let needle = words(value);
    if needle.is_empty() {
        return None;
    }
    let form = value_form(value).filter(|_| identifier && !value.contains(char::is_whitespace));
    let name = words(tool);
    // (The name's first word is its verb, whether keel knows it or not: `discharge_patient`.)
    let calls_verb = |w: &str| {
        !w.ends_with("ing")
            && (name.iter().enumerate().any(|(i, n)| {
                n.len() > 2 && (i == 0 || is_any_verb(n)) && (is_form_of(w, n) || is_form_of(n, w))
            }) || kinds.iter().any(|k| {
                k.tool_verbs()
                    .iter()
                    .chain(k.request_stems())
                    .any(|v| is_form_of(w, v))
            }))
    };
    let mut others: Vec<String> = Vec::new();
    let mut own: Option<String> = None;
    let mut excepted = false;
    let mut corrected = false;
    let mut open_object = false;
    let mut points_back = false;
    let mut place_of_another = false;
    for turn in user {
        let turn_sentences: Vec<&str> = sentences(turn.as_ref()).collect();
        for (at, sentence) in turn_sentences.iter().enumerate() {
            let sentence_words = words(sentence);
            let sentence_holds = sentence_words
                .windows(needle.len())
                .any(|win| win == needle.as_slice());
            if let Some(form) = &form
                && sentence_holds
                && (corrected_within(sentence, value, form)
                    || turn_sentences
                        .get(at + 1)
                        .is_some_and(|next| opens_a_correction(next, form)))
            {
                corrected = true;
                continue;
            }
            // A correction's own values are the request's.
            if sentence_holds
                && at > 0
                && form
                    .as_ref()
                    .is_some_and(|form| opens_a_correction(sentence, form))
            {
                return None;
            }
            // The last word of the clause before, in this sentence.
            let mut previous_last: Option<String> = None;
            for (n, clause) in clauses(sentence).into_iter().enumerate() {
                let w = words(clause);
                let last_before = std::mem::replace(&mut previous_last, w.last().cloned());
                let start = w
                    .iter()
                    .position(|x| !CLAUSE_FILLERS.contains(&x.as_str()))
                    .unwrap_or(w.len());
                let Some(head) = w.get(start) else { continue };
                let at_value = w
                    .windows(needle.len())
                    .position(|win| win == needle.as_slice());
                let holds = at_value.is_some();
                // The value names the place an action acts in ("add Dr. Lee to patient
                // P-4410's care team"), which another action may share ("and remove Dr. Park
                // from it").
                let names_a_place = at_value.is_some_and(|at| {
                    (at.saturating_sub(2)..at).any(|k| PLACE_PREPOSITIONS.contains(&w[k].as_str()))
                });
                // "but 55211" after "archive every resolved ticket": the clause excepts it.
                // (Not after a negation, where "but" means "only": "pay nothing but B-200".)
                if head == "but"
                    && !last_before.as_ref().is_some_and(|w| {
                        matches!(
                            w.as_str(),
                            "nothing" | "none" | "nobody" | "no" | "anything"
                        )
                    })
                    && w.get(start + 1..).is_some_and(|rest| {
                        rest.starts_with(&needle) || rest.first().is_some_and(|r| r == "not")
                    })
                    && holds
                {
                    excepted = true;
                    continue;
                }
                // Excepted where it is written: "unlock every door except the front door".
                if holds && excepts(clause, value) {
                    excepted = true;
                    continue;
                }
                // A generic verb may be any action's ("switch off the hallway light" for
                // `set_light`): the value may be the call's, and no clause is the call's own.
                // (But a making verb is no removal's: "add carol@acme.com to it and remove
                // dave@acme.com from it" gives carol to the adding.)
                if GENERIC_CHANGE_VERBS.contains(&head.as_str()) {
                    if holds
                        && kinds.contains(&ActionKind::Delete)
                        && CREATING_VERBS.contains(&head.as_str())
                    {
                        place_of_another |= names_a_place;
                        others.push(head.clone());
                        continue;
                    }
                    if holds {
                        return None;
                    }
                    continue;
                }
                if calls_verb(head) {
                    // An object of its own: a number, an address or a name the clause writes.
                    let object = clause
                        .trim_start()
                        .char_indices()
                        .skip(1)
                        .any(|(_, c)| c.is_ascii_digit() || c == '@' || c.is_uppercase());
                    if holds {
                        return None;
                    }
                    // (Its object may be a value named before: "find invoice 1002 and pay it".)
                    if !object {
                        open_object = true;
                        continue;
                    }
                    // "… and remove Dr. Park from it": the place is one named before.
                    points_back |= w.windows(2).any(|pair| {
                        PLACE_PREPOSITIONS.contains(&pair[0].as_str())
                            && matches!(pair[1].as_str(), "it" | "them" | "there")
                    });
                    own.get_or_insert_with(|| head.clone());
                    continue;
                }
                if !holds {
                    continue;
                }
                // The clause opens with another action's verb, one keel knows: "and ship a
                // replacement for order 88411", "and reject ER-302".
                // (Not a looking verb: "open ticket 5521 and reply to the customer" gives
                // 5521 to the reply.)
                let looks = super::classify::READ_VERBS.contains(&head.as_str())
                    || LOOKING_VERBS.contains(&head.as_str())
                    || matches!(head.as_str(), "open" | "check" | "track" | "look" | "find");
                // A value the user also asked to look at may still be given to another
                // action beside it ("track SH-7781, then reroute SH-7781 …").
                if looks {
                    continue;
                }
                let verb = DECISION_VERBS.contains(&head.as_str())
                    || ActionKind::ALL.iter().any(|k| {
                        !kinds.contains(k)
                            && k.tool_verbs().iter().chain(k.request_stems()).any(|v| head == v)
                    }) || is_acting_verb(head)
                        // Or a verb keel does not know, where a joined action's verb stands: a
                        // lowercase word after "and" that no noun of the tool's name is
                        // ("and dispute invoice INV-1002", not "and invoice INV-1002").
                        // (A word right before the value labels it: "and patient P-4415".)
                        // (Not a verb that tells what happened: "Apple called and said …".)
                        || ((n > 0 || start > 0)
                            && !head.ends_with("ed")
                            && !matches!(head.as_str(), "said" | "told" | "paid" | "sent" | "went" | "got" | "made" | "gave" | "took" | "wrote" | "came" | "did" | "was" | "were" | "had" | "has" | "is" | "are")
                            && w.get(start + 1).is_some_and(|x| Some(x) != needle.first())
                            // (Nor one before a name or an id: "and patient P-4415 with Dr.
                            // Park".)
                            && !labels_a_value(clause)
                            && !name.iter().any(|x| is_form_of(head, x) || is_form_of(x, head))
                            && head.chars().all(|c| c.is_ascii_lowercase())
                            && head.len() > 2
                            && clause
                                .split_whitespace()
                                .find(|t| !CLAUSE_FILLERS.contains(&t.to_lowercase().as_str()))
                                .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_lowercase()))
                            && !DETERMINERS.contains(&head.as_str())
                            && !PREPOSITIONS.contains(&head.as_str())
                            && !matches!(head.as_str(), "his" | "her" | "its" | "their" | "our" | "your" | "him" | "them" | "other" | "another" | "also" | "both"));
                if !verb {
                    return None;
                }
                // A verb whose object points back carries on the action before it: "export
                // the RSVPs and send them to the caterer" is one export.
                if w.get(start + 1).is_some_and(|x| {
                    matches!(
                        x.as_str(),
                        "it" | "them" | "these" | "those" | "this" | "that"
                    )
                }) {
                    return None;
                }
                place_of_another |= names_a_place;
                others.push(head.clone());
            }
        }
    }
    match (others.first(), own) {
        _ if corrected => Some(NotGiven::Corrected),
        _ if excepted => Some(NotGiven::Excepted),
        _ if open_object || (points_back && place_of_another) => None,
        (Some(other), Some(own)) => Some(NotGiven::ToAnother {
            other: other.clone(),
            own,
        }),
        _ => None,
    }
}

/// Verbs that decide what happens to a thing, which no kind of their own names: "approve
/// ER-301 and reject ER-302".
const DECISION_VERBS: &[&str] = &[
    "reject",
    "decline",
    "deny",
    "refuse",
    "dispute",
    "hold",
    "release",
    "admit",
    "discharge",
    "approve",
    "keep",
    "renew",
    "snapshot",
];

/// Words that may stand before a clause's verb: "please", "then", "also", "could you".
const CLAUSE_FILLERS: &[&str] = &[
    "and", "then", "also", "please", "just", "now", "kindly", "so", "could", "can", "would",
    "will", "you", "finally", "next", "after", "that",
];

/// A sentence's clauses, as actions are joined: split at semicolons and before "and", "then",
/// "but" (not at commas, which also set off what a value is: "pay 850 EUR to DE89…, subject
/// 'Rent July'").
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = sentence.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at_word = |w: &str| {
            sentence.get(i..).is_some_and(|rest| rest.starts_with(w))
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
                && bytes
                    .get(i + w.len())
                    .is_none_or(|b| !b.is_ascii_alphanumeric())
        };
        if bytes[i] == b';' || (bytes[i] == b',' && so_opens_a_request(&sentence[i + 1..])) {
            out.push(&sentence[start..i]);
            start = i + 1;
        } else if i > start && (at_word("and") || at_word("then") || at_word("but")) {
            out.push(&sentence[start..i]);
            start = i;
        }
        i += 1;
    }
    out.push(&sentence[start..]);
    out.into_iter().filter(|c| !c.trim().is_empty()).collect()
}

/// Whether the words after a comma open a request that follows from what came before:
/// "we're running the trucks through the yard this afternoon, so pause the geofence alerts"
/// (a fifth held-out set's user). Not "so that …", "so as to …", "so he can …": those say
/// what for.
fn so_opens_a_request(after: &str) -> bool {
    let w = words(after);
    w.first().is_some_and(|f| f == "so")
        && w.get(1).is_some_and(|v| {
            !matches!(
                v.as_str(),
                "that"
                    | "as"
                    | "far"
                    | "much"
                    | "many"
                    | "long"
                    | "i"
                    | "we"
                    | "you"
                    | "he"
                    | "she"
                    | "they"
                    | "it"
                    | "there"
                    | "this"
                    | "the"
                    | "my"
                    | "our"
            )
        })
}

/// Whether a sentence calls off what came before it: it opens with "never mind", "scratch
/// that", "forget it", "on second thought", "I meant", "absolutely not", or is a bare "no" or
/// "nope" ("No.", "No, show me …"). A new request in it still asks ("No wait, delete the other
/// one"); where the user only corrected a detail ("No, 60 EUR"), the cost is a question.
fn retracts(sentence: &str) -> bool {
    let lower = sentence
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('\u{2019}', "'");
    let all = words(&lower);
    // Past the interjections that open a change of mind: "Actually, forget it", "Hmm, forget
    // I said that", "Oops, wrong chat".
    let skipped = all
        .iter()
        .take_while(|w| {
            matches!(
                w.as_str(),
                "actually"
                    | "hmm"
                    | "hm"
                    | "oh"
                    | "oops"
                    | "ok"
                    | "okay"
                    | "well"
                    | "sorry"
                    | "um"
                    | "uh"
                    | "ah"
            )
        })
        .count();
    let w = &all[skipped..];
    let starts =
        |phrase: &[&str]| w.len() >= phrase.len() && w.iter().zip(phrase).all(|(a, b)| a == b);
    // ("No payments please" and "No need to cc her" forbid or spare; they call nothing off.)
    let bare_no = skipped == 0
        && matches!(all.first().map(String::as_str), Some("no" | "nope" | "nah"))
        && (lower[all[0].len()..]
            .trim_start()
            .chars()
            .next()
            .is_none_or(|c| matches!(c, '.' | ',' | '!' | ';' | '?'))
            || matches!(
                all.get(1).map(String::as_str),
                Some("wait" | "sorry" | "actually")
            ));
    bare_no
        || [
            &["never", "mind"][..],
            &["nevermind"],
            &["scratch", "that"],
            &["strike", "that"],
            &["belay", "that"],
            &["forget"],
            &["on", "second", "thought"],
            &["on", "second", "thoughts"],
            &["on", "reflection"],
            &["i", "meant"],
            &["i", "take", "that", "back"],
            &["take", "that", "back"],
            &["absolutely", "not"],
            &["not", "yet"],
            &["not", "now"],
            &["not", "today"],
            &["no"],
            &["don", "t"],
            &["do", "not"],
            &["let", "s", "not"],
            &["let", "us", "not"],
            &["or", "rather"],
            &["hold", "off"],
            // "Hold on, I'll do that later myself."
            &["hold", "on"],
            &["ignore", "that"],
            &["ignore", "my"],
            &["ignore", "the", "above"],
            &["disregard"],
            &["undo", "that"],
            &["cancel", "that"],
            &["just", "kidding"],
            &["kidding"],
            &["wrong", "chat"],
            &["wrong", "window"],
            &["that", "was", "a", "test"],
            &["wait"],
            &["vergiss", "es"],
            &["olvídalo"],
            &["laisse", "tomber"],
            &["lascia", "perdere"],
        ]
        .iter()
        .any(|p| {
            starts(p)
                // ("No" and "don't" only after an interjection: "Actually, don't"; "Cancel
                // that" only alone: "cancel that meeting" asks for a cancellation; "cancel
                // that request" calls the request off.)
                && (!matches!(p, ["no" | "don" | "do"] | ["don", "t"] | ["do", "not"]) || skipped > 0)
                && (p != &&["cancel", "that"][..] || w.len() == 2 || w.get(2).is_some_and(|x| x == "request"))
        })
}

/// Whether a sentence opens a message that the turn's next sentences are: it ends with a colon
/// after a saying verb or a message's noun ("e-mail Bob this:"), or says the message follows
/// ("Message follows.", "The text is below.").
fn opens_a_message(sentence: &str) -> bool {
    let sentence = sentence
        .replace("e-mail", "email")
        .replace("E-mail", "Email");
    let w = words(&sentence);
    let messaging = w
        .iter()
        .any(|w| SAYING_VERBS.contains(&w.as_str()) || MESSAGE_NOUNS.contains(&w.as_str()));
    messaging
        && (sentence.trim_end().ends_with(':')
            || w.iter()
                .any(|w| matches!(w.as_str(), "follows" | "below" | "following")))
}

/// `text` without the items of a list the user shows rather than hands over: bullets under a
/// heading that asks for nothing ("My to-do list for next week:", "Notes from the call:")
/// are what the user wrote down, not what they ask of you (a third outsider round ran each
/// item of a to-do list). Under a heading that asks ("Please do the following:", "Pay
/// these:") the items stand.
fn without_shown_lists(text: &str) -> std::borrow::Cow<'_, str> {
    let is_item = |line: &str| {
        let t = line.trim_start();
        t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("\u{2022} ")
            || t.split_once(['.', ')']).is_some_and(|(n, rest)| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' ')
            })
    };
    if !text.lines().any(is_item) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut shown = false;
    for line in text.lines() {
        if is_item(line) {
            if shown {
                out.push_str("an item\n");
                continue;
            }
        } else {
            let heading = line.trim_end();
            shown = heading.ends_with(':') && {
                let said = {
                    let mut said = Vec::new();
                    said_in_sentence(heading, &mut said);
                    said
                };
                let requested = requested_in(&said);
                // Under a heading that sends or tells ("send Bob my weekend list:"), the items
                // are the message (a tenth outsider round's).
                let tells = !requested.is_empty()
                    && requested.iter().all(|k| *k == ActionKind::Send)
                    && said.iter().any(|w| {
                        SAYING_VERBS.contains(&w.word.as_str())
                            || MESSAGE_NOUNS.contains(&w.word.as_str())
                    });
                tells
                    || (!asks_for_change(&said)
                        && requested.is_empty()
                        && !said
                            .iter()
                            .any(|w| matches!(w.word.as_str(), "please" | "following" | "these")))
            };
        }
        out.push_str(line);
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

/// `text` with each quotation in it ("…", “…”, and '…' around words) read as one noun: what
/// someone else wrote, a line to translate, a note's text or a to-do's title is quoted, not
/// asked for ('The landlord wrote: "Please transfer the deposit…"', 'Translate: "Delete my
/// account"'; a third outsider round had each run the action it quoted).
fn without_quotes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains([
        '"', '\u{201c}', '\u{2018}', '\'', '\u{ab}', '\u{201e}', '\u{2039}', '\u{201a}',
    ]) {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let closing = match c {
            '"' => Some('"'),
            '\u{201c}' => Some('\u{201d}'),
            // Guillemets and low quotes («…», „…“, ‹…›): a tenth outsider round's message.
            '\u{ab}' => Some('\u{bb}'),
            '\u{2039}' => Some('\u{203a}'),
            '\u{201e}' => Some(if chars[i + 1..].contains(&'\u{201c}') {
                '\u{201c}'
            } else {
                '\u{201d}'
            }),
            // A single quote opens only after a space or the start, so "Dana's" and "don't"
            // stay words.
            '\'' | '\u{2018}'
                if i == 0 || chars[i - 1].is_whitespace() || matches!(chars[i - 1], ':' | '(') =>
            {
                Some(if c == '\'' { '\'' } else { '\u{2019}' })
            }
            _ => None,
        };
        let end = closing.and_then(|close| {
            chars[i + 1..]
                .iter()
                .position(|&d| d == close)
                .map(|at| i + 1 + at)
                // A quotation holds words: `'a'` or a stray mark is none.
                .filter(|&e| chars[i + 1..e].iter().any(|d| d.is_whitespace()))
        });
        match end {
            Some(e) => {
                out.push_str(" the quote ");
                i = e + 1;
            }
            None => {
                out.push(c);
                i += 1;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words that forbid: a sentence holding one says what must not happen.
const FORBIDS: &[&str] = &[
    "not",
    "no",
    "never",
    "dont",
    "doesnt",
    "didnt",
    "wont",
    "without",
    "nothing",
    "none",
    "nobody",
    "nor",
    "neither",
    "avoid",
    "forbidden",
    "forbid",
    "prohibited",
    "prohibit",
    "refrain",
    "cannot",
];

/// Whether `sentence` forbids an action ([`without_prohibitions`]).
fn forbids(sentence: &str) -> bool {
    // A prohibition puts its negation before an action: "never send", "don't pay", "no
    // transfers" — not "it did not include the VAT", which tells how things are.
    let acts = |w: &str| {
        CHANGE_VERBS.contains(&w)
            || super::classify::WRITE_VERBS.contains(&w)
            || ActionKind::ALL
                .iter()
                .any(|k| k.request_stems().iter().any(|s| is_form_of(w, s)))
    };
    let sentence = if sentence.contains(['\'', '\u{2019}']) {
        std::borrow::Cow::Owned(
            sentence
                .replace("n't", " not")
                .replace("n\u{2019}t", " not"),
        )
    } else {
        std::borrow::Cow::Borrowed(sentence)
    };
    let sentence = plain_idioms(&sentence);
    let w = words(&sentence);
    // A prohibition the user quotes is the message's ("E-mail Bob: 'Please never purge
    // the inbox.'"), and takes back nothing of theirs (a ninth outsider round's). (Where
    // the quotes are is read only for a sentence that forbids at all: every user turn's
    // sentences are read here.)
    let mut quoted: Option<Vec<bool>> = None;
    // A negation in a condition that opens the sentence negates the condition: "If not, add
    // two cartons" and "if nothing in them is needed, purge them" forbid nothing (as
    // [`said_words`] reads them).
    let condition_words = {
        let first = sentence.split(',').next().unwrap_or_default();
        let first_words = words(first);
        if sentence.contains(',')
            && first_words
                .first()
                .is_some_and(|f| CONDITIONS.contains(&f.as_str()))
        {
            first_words.len()
        } else {
            0
        }
    };
    foreign_negation(&sentence, &w)
        || w.iter().enumerate().any(|(i, n)| {
            FORBIDS.contains(&n.as_str())
                && i >= condition_words
                && w[i + 1..].iter().take(3).any(|a| acts(a))
                && !quoted
                    .get_or_insert_with(|| quoted_words(&sentence, w.len()))
                    .get(i)
                    .copied()
                    .unwrap_or(false)
        })
}

/// `text` with every sentence that forbids something blanked out, for grounding values in the
/// user's words: "Never send anything to mallory@evil.io" names an address the user ruled
/// out, not one they chose (a fourth outsider round sent mail there on its strength). Where
/// that takes a value the user did want ("Pay Bob, not Alice"), the cost is a question.
pub fn without_prohibitions(text: &str) -> std::borrow::Cow<'_, str> {
    // Most turns hold no word a prohibition needs: one look at the whole text says so.
    if !may_forbid(text)
        || !sentences(text).any(|s| may_forbid(s) && (forbids(s) || negated_reason_at(s).is_some()))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        sentences(text)
            .map(|s| {
                if !forbids(s) {
                    // A reason that negates names what must not be: "share it as viewer,
                    // because he shouldn't be an editor" gives no `editor` (a fifteenth
                    // outsider round's).
                    return match negated_reason_at(s) {
                        Some(at) => format!("{}{}", &s[..at], " ".repeat(s.len() - at)),
                        None => s.to_string(),
                    };
                }
                // Only the clause of why or what for, where the request before it forbids
                // nothing: "Tell Jordan when it is so we don't run the dryer" names Jordan.
                match purpose_clause_at(s) {
                    Some(at) if !forbids(&s[..at]) => {
                        format!("{}{}", &s[..at], " ".repeat(s.len() - at))
                    }
                    // A sentence that calls off what came before still does, read as a bare
                    // "No.": "Cancel it. Sorry, I meant: don't cancel anything."
                    _ if retracts(s) && s.trim_start().len() >= 3 => {
                        let lead = s.len() - s.trim_start().len();
                        format!("{}No.{}", &s[..lead], " ".repeat(s.len() - lead - 3))
                    }
                    _ => " ".repeat(s.len()),
                }
            })
            .collect(),
    )
}

/// Where a clause of why or what for that holds a negation starts in `sentence`.
fn negated_reason_at(sentence: &str) -> Option<usize> {
    let at = purpose_clause_at(sentence)?;
    let reason = sentence[at..]
        .replace("n't", " not")
        .replace("n\u{2019}t", " not");
    words(&reason)
        .iter()
        .any(|w| FORBIDS.contains(&w.as_str()) || TAKES_BACK.contains(&w.as_str()))
        .then_some(at)
}

/// Where the clause of why or what for starts in `sentence` ([`PURPOSE_WORDS`], not as its
/// first word), as a byte offset.
fn purpose_clause_at(sentence: &str) -> Option<usize> {
    let mut start: Option<usize> = None;
    let mut first = true;
    for (at, c) in sentence
        .char_indices()
        .chain(std::iter::once((sentence.len(), ' ')))
    {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                let word = &sentence[from..at];
                if !first
                    && (PURPOSE_WORDS.iter().any(|p| word.eq_ignore_ascii_case(p))
                        || (word.eq_ignore_ascii_case("but")
                            && keeps_apart(&words(&sentence[at..]))))
                {
                    return Some(from);
                }
                first = false;
                start = None;
            }
            _ => {}
        }
    }
    None
}

/// Titles written with a stop before a name, which ends no sentence. (Not "St.", "Jr.",
/// "Sr.", which end names and addresses, and so sentences: "… on Baker St. Did I pay …".)
const TITLES: &[&str] = &["Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "Capt", "Lt"];

/// `text` cut into sentences at `.`, `!`, `?`, `;`, their full-width forms and line breaks;
/// each keeps its own end.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    // A stop inside a word ("mallory@evil.io", "e.g", "3.5") ends no sentence.
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut chars = rest.char_indices().peekable();
        let mut end = rest.len();
        while let Some((at, c)) = chars.next() {
            let stop = match c {
                '\n' | '\u{3002}' | '\u{ff01}' | '\u{ff1f}' | '\u{ff1b}' => true,
                // (Not the stop of a title: "with Dr. Park at 14:00".)
                '.' => {
                    chars.peek().is_none_or(|(_, n)| n.is_whitespace())
                        // (Nor the stop of "no." before a number: "e-mail no. 31".)
                        && !(["no", "No", "NO"].iter().any(|t| {
                            rest[..at].ends_with(t)
                                && rest[..at - t.len()]
                                    .chars()
                                    .next_back()
                                    .is_none_or(|c| !c.is_alphanumeric())
                        }) && rest[at + 1..]
                            .trim_start()
                            .starts_with(|c: char| c.is_ascii_digit()))
                        && !TITLES.iter().any(|t| {
                            rest[..at].ends_with(t)
                                && rest[..at - t.len()]
                                    .chars()
                                    .next_back()
                                    .is_none_or(|c| !c.is_alphanumeric())
                        })
                }
                '!' | '?' | ';' => chars.peek().is_none_or(|(_, n)| n.is_whitespace()),
                _ => false,
            };
            if stop {
                end = at + c.len_utf8();
                break;
            }
        }
        let (sentence, after) = rest.split_at(end);
        rest = after;
        Some(sentence)
    })
}

/// Negations of other languages (German, French, Spanish, Italian, Portuguese). keel reads no
/// verb of theirs, so a sentence that holds one is taken as a prohibition whatever it
/// negates: "Nunca envíes nada a mallory@evil.io", "Schick niemals etwas an …", "N'envoie
/// jamais rien à …" rule an address out (a fifth outsider round sent mail there on their
/// strength). Where the sentence asked for something after all, the cost is a question.
const FOREIGN_NEGATIONS: &[&str] = &[
    // Spanish, Portuguese
    "nunca",
    "jamás",
    "jamas",
    "nada",
    "ningún",
    "ningun",
    "ninguna",
    "ninguno",
    "não",
    "nao",
    "nenhum",
    "nenhuma",
    // German
    "nicht",
    "nichts",
    "niemals",
    "kein",
    "keine",
    "keinen",
    "keinem",
    "keiner",
    // French (with "ne" or "n'", below)
    "jamais",
    "rien",
    "aucun",
    "aucune",
    // Italian
    "niente",
    "nulla",
    "nessun",
    "nessuno",
    "nessuna",
    // Dutch
    "nooit",
    "niet",
    "niets",
    "geen",
    // Swedish, Danish, Norwegian
    "aldrig",
    "inte",
    "inget",
    "ingenting",
    "ikke",
    "aldri",
    "ingen",
    // Polish, Czech
    "nie",
    "nigdy",
    "nic",
    "nikdy",
    // Russian, Ukrainian
    "не",
    "никогда",
    "ничего",
    "нельзя",
    "ні",
    "ніколи",
    "нічого",
];

/// Whether `sentence` (or any text) holds a word that a prohibition needs ([`FORBIDS`], a negation of
/// another language, "ne", "keep" or "leave" of their pairs), read without splitting it into
/// words: `false` proves that [`without_prohibitions`] finds nothing in it. Every user turn's
/// sentences are read for prohibitions each time a history is indexed afresh, and splitting
/// each into owned lowercase words was two thirds of such a decision at 10k items.
fn may_forbid(sentence: &str) -> bool {
    /// The words, in ASCII, by length, and for each length the first letters they start with
    /// (a bit per letter): a token of another length or first letter is no word. The words
    /// themselves, in lower case, in a set: a token that passes is looked up once, where
    /// comparing it with each word of its length and letter was most of an afresh decision
    /// (several words share a length and a first letter: "never", "nunca", "nicht", …).
    struct Needed {
        by_length: Vec<Vec<&'static [u8]>>,
        first_letters: Vec<u64>,
        words: std::collections::HashSet<Vec<u8>, foldhash::fast::RandomState>,
    }
    static NEEDED: std::sync::LazyLock<Needed> = std::sync::LazyLock::new(|| {
        let mut needed = Needed {
            by_length: Vec::new(),
            first_letters: Vec::new(),
            words: std::collections::HashSet::default(),
        };
        for word in FORBIDS
            .iter()
            .chain(FOREIGN_NEGATIONS)
            .chain(&["ne", "n", "keep", "leave"])
            .filter(|w| w.is_ascii())
        {
            if needed.by_length.len() <= word.len() {
                needed.by_length.resize(word.len() + 1, Vec::new());
                needed.first_letters.resize(word.len() + 1, 0);
            }
            needed.by_length[word.len()].push(word.as_bytes());
            needed.first_letters[word.len()] |= letter_bit(word.as_bytes()[0]);
            needed.words.insert(word.as_bytes().to_ascii_lowercase());
        }
        needed
    });
    fn letter_bit(b: u8) -> u64 {
        1 << (b.to_ascii_lowercase() & 63)
    }
    // Outside ASCII, lowercasing and the unspaced negations need the whole reading; "n't"
    // becomes "not".
    if !sentence.is_ascii() || sentence.contains("n't") {
        return true;
    }
    let needed = &*NEEDED;
    let holds = |token: &[u8]| {
        // A word split from a longer token at a camelCase hump ("NeverSend") is a part of it:
        // such a token (rare in what a person writes) is searched for every word.
        if token.iter().skip(1).any(u8::is_ascii_uppercase) {
            let folded = token.to_ascii_lowercase();
            return needed
                .by_length
                .iter()
                .flatten()
                .any(|w| folded.windows(w.len()).any(|part| part == *w));
        }
        if needed
            .first_letters
            .get(token.len())
            .is_none_or(|letters| letters & letter_bit(token[0]) == 0)
        {
            return false;
        }
        // (A token that passes is as long as some word: a few bytes, lowered on the stack.)
        let mut lowered = [0u8; 64];
        match lowered.get_mut(..token.len()) {
            Some(lowered) => {
                lowered.copy_from_slice(token);
                lowered.make_ascii_lowercase();
                needed.words.contains(&lowered[..])
            }
            None => needed.by_length[token.len()]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(token)),
        }
    };
    let bytes = sentence.as_bytes();
    let mut start = 0;
    for (at, b) in bytes.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if at > start && holds(&bytes[start..at]) {
                return true;
            }
            start = at + 1;
        }
    }
    start < bytes.len() && holds(&bytes[start..])
}

/// Negations written without spaces (Chinese, Japanese, Korean): "不要给 … 发任何东西",
/// "削除も転送もしないで".
const UNSPACED_NEGATIONS: &[&str] = &[
    "不要",
    "别",
    "不准",
    "不许",
    "禁止",
    "永远不",
    "绝不",
    "ないで",
    "しない",
    "するな",
    "禁止",
    "않",
    "말고",
    "마세요",
    "마라",
];

/// Whether a sentence holds a negation of another language ([`FOREIGN_NEGATIONS`],
/// [`UNSPACED_NEGATIONS`]).
fn foreign_negation(sentence: &str, words: &[String]) -> bool {
    // Looked up for every word of every user sentence a decision reads (a fifth of a
    // decision made afresh at 50 items when it was a list compared in turn).
    static FOREIGN: std::sync::LazyLock<
        std::collections::HashSet<&'static str, foldhash::fast::RandomState>,
    > = std::sync::LazyLock::new(|| FOREIGN_NEGATIONS.iter().copied().collect());
    let has = |w: &str| words.iter().any(|x| x == w);
    words
        .iter()
        .any(|w| FOREIGN.contains(w.as_str()))
        // French negates with two words: "ne … pas", "n'envoie … plus".
        || ((has("ne") || has("n"))
            && ["pas", "plus", "personne", "guère"].iter().any(|w| has(w)))
        // "keep mallory@evil.io out of this", "leave Bob out".
        || ((has("keep") || has("leave")) && has("out"))
        // (All of them are written outside ASCII.)
        || (!sentence.is_ascii() && UNSPACED_NEGATIONS.iter().any(|n| sentence.contains(n)))
}

/// Words after a negation that put a request off rather than refuse part of it: "not yet",
/// "not until Friday", "not before the 5th".
const PUT_OFF_UNTIL: &[&str] = &[
    "yet", "now", "until", "till", "before", "today", "tonight", "tomorrow", "right",
];

/// Verbs that stand for a request already made: "I'll do it myself", "I'll handle that myself".
const REFERS_BACK: &[&str] = &[
    "do", "doing", "handle", "handling", "care", "deal", "sort", "manage",
];

/// Words that take back the actions a sentence names from their part of it on: a prohibition
/// or a negation after the verb ("send nothing", "Sending is forbidden", "Refrain from
/// replying"), advice rather than a request ("which I should pay"), a deferral ("replying can
/// wait", "I will unlock it myself later"). Advice and deferrals take back the whole
/// sentence; where a reading was wrong, the cost is a question, never an action nobody asked
/// for.
const TAKES_BACK: &[&str] = &[
    // Beside every word that forbids ([`FORBIDS`]):
    "forbids",
    "disallowed",
    "should",
    "myself",
    "later",
    "wait",
];

/// `text` with each quotation mark written `"`: double ones, curly ones, and single ones that
/// open after a space or colon or close before a space or punctuation (an apostrophe, as in
/// "Tom's" or "don’t", is none).
pub(crate) fn marked_quotes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut marked = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|b| chars[b]);
        let after = chars.get(i + 1).copied();
        let single = matches!(c, '\'' | '\u{2018}' | '\u{2019}');
        let opens = before.is_none_or(|b| b.is_whitespace() || matches!(b, ':' | '('))
            && after.is_some_and(|a| !a.is_whitespace());
        let closes = after.is_none_or(|a| a.is_whitespace() || a.is_ascii_punctuation())
            && before.is_some_and(|b| !b.is_whitespace());
        if matches!(
            c,
            '"' | '\u{201c}'
                | '\u{201d}'
                | '\u{ab}'
                | '\u{bb}'
                | '\u{2039}'
                | '\u{203a}'
                | '\u{201e}'
        ) || (single && (opens || closes))
        {
            marked.push('"');
        } else {
            marked.push(c);
        }
    }
    marked
}

/// For each of a sentence's `count` words, whether it stands inside quotation marks
/// ([`marked_quotes`]). All false where the quotes do not pair up or the words do not split
/// as [`words`] splits them.
fn quoted_words(sentence: &str, count: usize) -> Vec<bool> {
    let marked = marked_quotes(sentence);
    let parts: Vec<&str> = marked.split('"').collect();
    let quoted: Vec<bool> = parts
        .iter()
        .enumerate()
        .flat_map(|(n, part)| std::iter::repeat_n(n % 2 == 1, words(part).len()))
        .collect();
    if parts.len().is_multiple_of(2) || quoted.len() != count {
        return vec![false; count];
    }
    quoted
}

fn said_in_sentence(sentence: &str, said: &mut Vec<SaidWord>) {
    // "e-mail" is one word, not "e" and "mail".
    // "won't", "don't", "can’t" are a negation, read as one: the words they split into
    // (`won`, `don`) are also a deal stage and a name ("Closed Won", "ask Don").
    let sentence = sentence
        .replace("e-mail", "email")
        .replace("E-mail", "Email")
        // "to-do" is one noun, not "to" and the go-ahead "do".
        .replace("to-do", "todo")
        .replace("To-do", "Todo")
        .replace("n't", " not")
        .replace("n\u{2019}t", " not");
    let sentence = plain_idioms(&sentence);
    let turn_words = words(&sentence);
    // Which comma-separated clause each word stands in (all in one where the split reads the
    // words otherwise).
    let mut clause: Vec<usize> = sentence
        .split(',')
        .enumerate()
        .flat_map(|(n, part)| std::iter::repeat_n(n, words(part).len()))
        .collect();
    if clause.len() != turn_words.len() {
        clause = vec![0; turn_words.len()];
    }
    // A negation inside a condition that opens the sentence negates the condition, not what
    // follows it: "if there is nothing in them we still need, purge them" asks for the purge
    // (a held-out suite's user). The condition itself asks for nothing (its words are
    // subordinate); a negation anywhere else still takes the whole sentence back.
    let clauses = clause.last().map_or(0, |c| c + 1);
    let in_condition = |i: usize| {
        clause[i] + 1 < clauses
            && turn_words
                .iter()
                .zip(&clause)
                .find(|(_, c)| **c == clause[i])
                .is_some_and(|(first, _)| CONDITIONS.contains(&first.as_str()))
    };
    // What the user has someone told or asked is the message, not what they ask of you: in
    // "tell her Sam would love to come and ask if he should bring anything" or "tell Bob that
    // we won't pay", the "should" and the "won't" are Bob's to read (a held-out suite's user
    // tasks asked), and a "pay" there asks for no payment. It runs from "that", "if" or
    // "whether" within a few words of a saying verb to the next "and", "then" or "but".
    // (The saying verb may stand several words back: "e-mail bob.lee@acme.com that …" is
    // five words to "that".)
    // A saying verb's participle opens the message itself ("an SMS saying I will …", "e-mail
    // Bob telling him I plan to …"), and so does the "to" of whom the user has told, asked or
    // reminded ("tell Bob to send …", "remind me on Monday to pay …"): a tenth outsider round's.
    let reported_from = turn_words.iter().enumerate().find_map(|(k, w)| {
        let opens = match w.as_str() {
            "that" | "if" | "whether" => (k.saturating_sub(8)..k)
                .any(|v| clause[v] == clause[k] && SAYING_VERBS.contains(&turn_words[v].as_str())),
            "saying" | "telling" | "asking" | "stating" | "reminding" | "writing" => true,
            // "let Jordan know the car won't charge": what follows is what Jordan is told.
            "know" => {
                (k.saturating_sub(6)..k).any(|v| turn_words[v] == "let" && clause[v] == clause[k])
                    && turn_words
                        .get(k + 1)
                        .is_some_and(|n| !matches!(n.as_str(), "that" | "if" | "whether"))
            }
            "to" => (k.saturating_sub(8)..k).any(|v| {
                let whom = matches!(
                    turn_words[v].as_str(),
                    "tell" | "ask" | "remind" | "instruct" | "request" | "reminder"
                );
                // "text +49… to send 300 EUR": a message's verb asks its reader to act,
                // where an action follows the "to" (not "e-mail the report to Bob").
                let asks_reader = SAYING_VERBS.contains(&turn_words[v].as_str())
                    && turn_words.get(k + 1).is_some_and(|next| {
                        ActionKind::ALL
                            .iter()
                            .any(|kind| kind.request_stems().contains(&next.as_str()))
                    });
                clause[v] == clause[k] && (whom || asks_reader) && v + 1 < k
            }),
            _ => false,
        };
        opens.then_some(k)
    });
    // Words in quotation marks are the user's quoting, not their asking: in "E-mail Bob
    // saying: 'Please never delete file 48.'" the "never" is Bob's to read, and the "delete"
    // asks for nothing (an eighth outsider round's false positive).
    let quoted = quoted_words(&sentence, turn_words.len());
    // What follows a colon after a saying verb is the message: "Reply to bob@friends.de:
    // settling INV-2207 now, renewing plan Family", "let Bob know my plan: wipe the old
    // phone" (a ninth outsider round's) ask for no renewal and no wipe.
    // So is what the saying verb's object names before the colon: "my plan" in "let Bob know
    // my plan: …" is the message's subject.
    let colon_reported_from = sentence.split_once(':').and_then(|(before, _)| {
        let before_words = words(before);
        let verb = before_words.iter().rposition(|w| {
            SAYING_VERBS.contains(&w.as_str()) || MESSAGE_NOUNS.contains(&w.as_str())
        })?;
        (turn_words.get(..before_words.len()) == Some(&before_words[..])).then_some(verb + 1)
    });
    // A message runs to "then" or "but"; an "and" ends it only where it lists nothing ("tell
    // Bob that I'm late and book a table"): after a comma it joins the list the message gives
    // ("that I will send 300 EUR, cancel Zoom and share the photos").
    let reported = |j: usize| {
        quoted[j]
            || colon_reported_from.is_some_and(|k| j >= k)
            || reported_from.is_some_and(|k| {
                let listed = clause[j] != clause[k];
                j > k
                    && !turn_words[k + 1..j]
                        .iter()
                        .any(|w| matches!(w.as_str(), "then" | "but") || (w == "and" && !listed))
            })
    };
    // A negation in a clause that says why or what for ("so we don't run the dryer",
    // "because it won't charge") negates that clause, not the request before it: "Tell
    // Jordan when it is so we don't run the dryer" asks for the message (a held-out suite's
    // user). Its own words still ask for nothing (each word after a negation is negated).
    let purpose_from = turn_words
        .iter()
        .enumerate()
        .skip(1)
        .find(|(k, w)| {
            PURPOSE_WORDS.contains(&w.as_str())
                || (w.as_str() == "but" && keeps_apart(&turn_words[k + 1..]))
                // A clause of its own that tells how the user lives is a reason too: "Cancel
                // my Netflix subscription, I never use it" (a nineteenth outsider round's).
                || (clause.get(*k) != clause.get(k - 1)
                    && matches!(w.as_str(), "i" | "we")
                    && tells_a_habit(&turn_words[k + 1..]))
        })
        .map(|(k, _)| k);
    let in_purpose = |i: usize| purpose_from.is_some_and(|k| i > k);
    // A clause of why or of what is kept apart that forbids or negates asks for nothing of its
    // own: "Summarize my inbox but send nothing".
    let purpose_negated = purpose_from.is_some_and(|k| {
        turn_words[k + 1..].iter().any(|w| {
            FORBIDS.contains(&w.as_str())
                || TAKES_BACK.contains(&w.as_str())
                || NEGATIONS.contains(&w.as_str())
        })
    });
    // A negation takes back its own part of the sentence and what follows, not the request
    // before it, where it refuses another action: "Cancel the later one, and don't text them
    // about it" asks for the cancel (a held-out suite's user). A part runs from a comma or an "and", "but" or "then". What puts the whole
    // request off or hands it back takes back the whole sentence: "Pay Bob, but not until
    // Friday", "…, later", "…, wait", "…, I'll do it myself".
    let taken_back_from = if foreign_negation(&sentence, &turn_words) {
        Some(0)
    } else {
        turn_words
            .iter()
            .enumerate()
            .filter(|&(i, w)| {
                (FORBIDS.contains(&w.as_str()) || TAKES_BACK.contains(&w.as_str()))
                    // "the later one" picks which booking; it puts nothing off.
                    && !(w == "later" && i > 0 && DETERMINERS.contains(&turn_words[i - 1].as_str()))
                    && !in_condition(i)
                    && !reported(i)
                    && !in_purpose(i)
            })
            .map(|(i, w)| {
                let part_start = (0..i)
                    .rev()
                    .take_while(|&b| {
                        clause[b] == clause[i]
                            && !matches!(turn_words[b].as_str(), "and" | "but" | "then")
                    })
                    .last()
                    .unwrap_or(i);
                let part_end = (i..turn_words.len())
                    .take_while(|&n| {
                        clause[n] == clause[i]
                            && !matches!(turn_words[n].as_str(), "and" | "but" | "then")
                    })
                    .last()
                    .unwrap_or(i);
                let part = &turn_words[part_start..=part_end];
                let asked_before = |verb: &str| {
                    turn_words[..part_start].iter().any(|b| {
                        is_acting_verb(b)
                            && (b == verb || is_form_of(b, verb) || is_form_of(verb, b))
                    })
                };
                // "I'll call them myself" does something else; "I'll do it myself", or doing
                // the same action myself ("PR 97 I'll merge myself"), takes the request back.
                if w == "myself" {
                    return if part
                        .iter()
                        .any(|p| REFERS_BACK.contains(&p.as_str()) || asked_before(p))
                    {
                        0
                    } else {
                        part_start
                    };
                }
                if !FORBIDS.contains(&w.as_str()) || part_start == 0 {
                    return 0;
                }
                let after = &turn_words[i + 1..=part_end];
                if after
                    .iter()
                    .take(2)
                    .any(|n| PUT_OFF_UNTIL.contains(&n.as_str()))
                {
                    return 0;
                }
                // Another action refused: the negation's own verb, which the request before it
                // does not use ("and don't text them", "but never touch the inbox"). Refusing
                // the same action again, or part of what was asked ("but not the second one",
                // "Delete it, don't."), takes the whole request back.
                let refuses_another = after
                    .iter()
                    .find(|n| {
                        !matches!(n.as_str(), "ever" | "you" | "even" | "do" | "to" | "please")
                    })
                    .is_some_and(|verb| is_acting_verb(verb) && !asked_before(verb));
                // (A statement of how things stand still takes the request back: in "Merge PR
                // 96, PR 97 is not what I meant" it names the record the request leaves out,
                // and an outsider's round 24 merged it.)
                if refuses_another { part_start } else { 0 }
            })
            .min()
    };
    if taken_back_from == Some(0) {
        return;
    }
    let asking = taken_back_from.unwrap_or(turn_words.len());
    let question = sentence.trim_end().ends_with('?')
        && turn_words
            .first()
            .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()));
    // A request called off within its own sentence: "Refund order 88410 — strike that",
    // "Delete document 5521... wait, no", "Refund order 88410 - kidding" (an eighteenth
    // outsider round's).
    let called_off_within = sentence
        .split([',', '\u{2014}', '\u{2013}', '(', ':'])
        .flat_map(|part| part.split(" - "))
        .flat_map(|part| part.split("..."))
        .skip(1)
        // ("… next month, not now" puts off; the sentence's own words say when.)
        .filter(|part| !part.trim_start().to_lowercase().starts_with("not "))
        .any(retracts);
    if question || called_off_within || deferred(&turn_words, &clause, &reported) {
        return;
    }
    // The determiner that opens the noun phrase ending at word `j`, in its clause: the phrase
    // runs on to its last noun ("the front door lock").
    let phrase_start_of = |j: usize| {
        (1..=PHRASE_WORDS).rev().find_map(|back| {
            j.checked_sub(back).filter(|&d| {
                DETERMINERS.contains(&turn_words[d].as_str())
                    && (d + 1..=j).all(|n| {
                        clause[n] == clause[d] && !PHRASE_BREAKS.contains(&turn_words[n].as_str())
                    })
            })
        })
    };
    {
        for (i, w) in turn_words.iter().enumerate().take(asking) {
            let negated =
                turn_words[..i].iter().enumerate().any(|(j, b)| {
                    NEGATIONS.contains(&b.as_str()) && !in_condition(j) && !reported(j)
                }) || (purpose_negated && in_purpose(i));
            if !negated {
                // A noun phrase: the determiner, perhaps a modifier ("the Acme contact"), the
                // noun.
                // A noun phrase runs on to its last noun, in its clause: in "the front door
                // lock" the lock is named, not asked for.
                let phrase_start = phrase_start_of(i);
                let verb_before = |d: usize| d.checked_sub(1).map(|v| turn_words[v].as_str());
                let ends_phrase = turn_words.get(i + 1).is_none_or(|n| {
                    PHRASE_BREAKS.contains(&n.as_str()) || clause.get(i + 1) != clause.get(i)
                });
                // What a thing is made stands after it, not in its name: "make the
                // repository public", "set the channel private".
                // The object may carry a phrase of its own: "make the dataset for the 2025
                // paper public" (a held-out suite's user).
                let complement = phrase_start.is_some_and(|d| {
                    d + 1 < i && ends_phrase && {
                        let mut start = d;
                        let mut hops = 0;
                        loop {
                            match verb_before(start) {
                                Some(v) if COMPLEMENT_VERBS.contains(&v) => break true,
                                Some("for" | "of" | "in" | "from" | "on" | "at" | "with")
                                    if hops < 2 =>
                                {
                                    match start.checked_sub(2).and_then(phrase_start_of) {
                                        Some(earlier) => {
                                            start = earlier;
                                            hops += 1;
                                        }
                                        None => break false,
                                    }
                                }
                                _ => break false,
                            }
                        }
                    }
                });
                // The object a creating verb makes: "add the deploy key", "create a webhook",
                // "give Sofia access".
                // (Whom it is made for may stand between: "give her accountant access".)
                // An access noun a verb changes is changed: "set the alarm to away", "change
                // the door code".
                let access_noun = ActionKind::Access.tool_nouns().contains(&w.as_str());
                let created = (1..=PHRASE_WORDS + 1).any(|back| {
                    i.checked_sub(back).is_some_and(|v| {
                        (CREATING_VERBS.contains(&turn_words[v].as_str())
                            // "set up a door code"
                            || (turn_words[v] == "up" && v > 0 && turn_words[v - 1] == "set")
                            || (access_noun && ACCESS_CHANGING_VERBS.contains(&turn_words[v].as_str())))
                            && (v + 1..=i).all(|n| {
                                clause[n] == clause[v]
                                    && (!PHRASE_BREAKS.contains(&turn_words[n].as_str())
                                        || (n == v + 1
                                            && INDIRECT_OBJECTS.contains(&turn_words[n].as_str())))
                            })
                    })
                });
                // A word followed by a short number names a thing: "Archive e-mail 12",
                // "message 4", "issue 41" (not "Text +1 415 555 0199", a phone number).
                // So does "order" before an id, which no count is: "refunding order 88410"
                // asks for no purchase ("Order 2 of the organic milk" still does).
                let numbered = (NUMBERED_THINGS.contains(&w.as_str())
                    && turn_words
                        .get(i + 1)
                        .is_some_and(|n| n.len() <= 5 && n.bytes().all(|b| b.is_ascii_digit()))
                    || (w == "order"
                        && turn_words.get(i + 1).is_some_and(|n| {
                            n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit())
                        })))
                    && !turn_words
                        .get(i + 2)
                        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
                let after_determiner = numbered
                    || (phrase_start.is_some() && !complement)
                    // The object of a looking verb names a thing: "Read e-mail 29", "Open
                    // message 4" ask for no e-mail to be sent; so does a preposition's.
                    || i.checked_sub(1).is_some_and(|b| {
                        LOOKING_VERBS.contains(&turn_words[b].as_str())
                            || PREPOSITIONS.contains(&turn_words[b].as_str())
                    })
                    // The object of a composing verb is the text: "Draft a reply to Dana".
                    || (1..=3).any(|back| {
                        i.checked_sub(back).is_some_and(|v| {
                            COMPOSING_VERBS.contains(&turn_words[v].as_str())
                                && (v + 1..i).all(|n| {
                                    clause[n] == clause[v]
                                        && matches!(
                                            turn_words[n].as_str(),
                                            "a" | "an" | "the" | "this" | "that" | "my" | "short"
                                                | "quick" | "new" | "polite" | "brief"
                                        )
                                })
                        })
                    });
                let next = turn_words.get(i + 1).map(String::as_str);
                // A subordinate clause ends at its comma: "When you are done, update the CRM"
                // asks for the update.
                // It ends at "and", "then" or "but" too: "Find the message where Sofia shared
                // the logo and add a reaction to it" asks for the reaction.
                let subordinate = reported(i)
                    || (0..i)
                    .rev()
                    .take_while(|&b| {
                        clause[b] == clause[i]
                            && !matches!(turn_words[b].as_str(), "and" | "then" | "but")
                    })
                    .any(|b| SUBORDINATORS.contains(&turn_words[b].as_str()))
                    || i.checked_sub(1).is_some_and(|b| turn_words[b] == "be")
                    // What someone else asked for, offered or may try, and the option the user
                    // turns down: "decline bob-lee's request to make acme/web public", "rather
                    // than delete it", "in case someone tries to delete it", "leave deleting it
                    // to me" ask for none of it (a fifteenth outsider round's).
                    || (1..i).any(|b| {
                        clause[b - 1] == clause[i]
                            && (b..i).all(|n| {
                                !matches!(turn_words[n].as_str(), "and" | "then" | "but")
                            })
                            && matches!(
                                (turn_words[b - 1].as_str(), turn_words[b].as_str()),
                                ("request" | "requests" | "requested" | "offer" | "offers"
                                    | "offered" | "tries" | "attempt"
                                    | "attempts" | "wants" | "proposal", "to")
                                    | ("rather", "than")
                                    | ("instead", "of")
                                    | ("in", "case")
                            )
                    })
                    || (i >= 1 && turn_words[i - 1] == "leave" && w.ends_with("ing"))
                    // What someone else can or will do: "so he can send me the 300 EUR he
                    // owes me" asks nothing of you (an eleventh outsider round's).
                    || (1..i).any(|b| {
                        clause[b - 1] == clause[i]
                            && matches!(turn_words[b - 1].as_str(), "he" | "she" | "they")
                            && matches!(
                                turn_words[b].as_str(),
                                "can" | "could" | "will" | "would" | "should" | "may" | "might"
                                    | "must" | "shall" | "ll"
                            )
                    })
                    // What the user says they will do themselves: "I will transfer it next
                    // week", "I'll pay it", "we are going to delete it".
                    || (1..i).any(|b| {
                        clause[b - 1] == clause[i]
                            && matches!(turn_words[b - 1].as_str(), "i" | "we")
                            && (matches!(
                                turn_words[b].as_str(),
                                "will" | "ll" | "shall" | "plan" | "intend"
                            ) || (matches!(turn_words[b].as_str(), "am" | "are")
                                && turn_words.get(b + 1).is_some_and(|g| g == "going")))
                    })
                    // A verb after a noun and "to" says what the noun is for: "the fee to wire
                    // 1200 euros" asks for no transfer.
                    || (i >= 2 && turn_words[i - 1] == "to" && phrase_start_of(i - 2).is_some())
                        // "tell me", "let us know": the user is told; "send me", "email
                        // us" still send.
                        || (matches!(next, Some("me" | "us")) && !SENDS_TO_THE_USER.contains(&w.as_str()))
                        || next == Some("aside")
                        // What a verb gives or tells the user is theirs to read, up to the
                        // next action: "give me a report on the garage", "let me know the
                        // state of the lock" ask for no report sent and no lock.
                        || (1..i).rev().take_while(|&b| {
                            clause[b] == clause[i]
                                && !matches!(turn_words[b].as_str(), "and" | "or" | "then" | "but")
                        }).any(|b| {
                            matches!(turn_words[b].as_str(), "me" | "us")
                                // "help me delete the old files" asks for the delete, and
                                // "a transfer for me of what I usually pay" for the payment:
                                // only a verb's receiver reads what follows.
                                && turn_words[b - 1] != "help"
                                && !PHRASE_BREAKS.contains(&turn_words[b - 1].as_str())
                        });
                // (Also what access is to: "take away Priya's access to Q3-budget.xlsx" names
                // the file access is removed from, not a file to delete.)
                let locates = |k: usize| {
                    let w = turn_words[k].as_str();
                    LOCATING.contains(&w)
                        || (w == "of" && k > 0 && turn_words[k - 1] == "out")
                        || (w == "to"
                            && k > 0
                            && matches!(
                                turn_words[k - 1].as_str(),
                                "access" | "permission" | "permissions" | "rights"
                            ))
                };
                let located = (1..=PHRASE_WORDS).any(|back| {
                    i.checked_sub(back).is_some_and(|k| {
                        locates(k)
                            && (k + 1..i).all(|n| {
                                clause[n] == clause[k]
                                    && !PHRASE_BREAKS.contains(&turn_words[n].as_str())
                            })
                    })
                });
                said.push(SaidWord {
                    word: w.clone(),
                    after_determiner,
                    subordinate,
                    created,
                    located,
                });
                // A verb and its particle ask for one action: "take away his access" and "take
                // her out of the group" remove, "let him in" unlocks.
                if !after_determiner && let Some(meant) = phrasal_verb(&turn_words, &clause, i) {
                    said.push(SaidWord {
                        word: meant.to_string(),
                        after_determiner: false,
                        subordinate,
                        created: false,
                        located: false,
                    });
                }
            }
        }
    }
}

/// The kinds of action the user's words ask for.
pub fn requested_kinds<'a>(user_turns: impl IntoIterator<Item = &'a str>) -> Vec<ActionKind> {
    requested_in(&said_words(user_turns))
}

/// Whether `word` asks for `stem`'s action: any of its forms but the past ones ("Who deleted
/// it", "the message I sent", "it was paid" tell of what happened, and ask for nothing).
fn asks_for(word: &str, stem: &str) -> bool {
    // A request uses the plain form ("send", "pay", "delete it"); the other forms name things
    // or tell of them ("my unread emails", "any transfers", "Sending is …"). Nouns that name
    // an action are stems of their own ("payment", "booking").
    if word != stem {
        return false;
    }
    if !is_form_of(word, stem) || word == stem {
        return word == stem;
    }
    let past = matches!(
        (stem, word),
        ("pay", "paid")
            | ("send", "sent")
            | ("buy", "bought")
            | ("withdraw", "withdrew")
            | ("reply", "replied")
            | ("empty", "emptied")
    ) || word
        .strip_prefix(stem.trim_end_matches('e'))
        .is_some_and(|rest| rest == "d" || rest.ends_with("ed"));
    !past
}

/// The kinds of action `said` asks for: a word asks unless a definite determiner makes a
/// word that could be a verb name a thing.
pub fn requested_in(said: &[SaidWord]) -> Vec<ActionKind> {
    // "send" pays only what is money: "send Bob an SMS saying I will send 300 EUR …" asks for
    // a message (a tenth outsider round's), "send Bob 50 EUR" or "send him the difference"
    // for a payment.
    let sends_a_message = |at: usize| {
        said.get(at + 1..(at + 8).min(said.len()))
            .is_some_and(|next| {
                // The first of the two it comes to decides: "send Bob 50 EUR and the report" pays
                // (a sum has at most six digits; a phone number, `+4917099988877`, is no sum).
                next.iter()
                    .map(|w| w.word.as_str())
                    .find_map(|w| {
                        if MESSAGE_OBJECTS.contains(&w) {
                            Some(true)
                        } else if (w.len() <= 6 && w.bytes().all(|b| b.is_ascii_digit()))
                            || MONEY_OBJECTS.contains(&w)
                        {
                            Some(false)
                        } else {
                            None
                        }
                    })
                    .unwrap_or(false)
            })
    };
    let asking: Vec<String> = said
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.subordinate)
        .filter(|(_, w)| !w.after_determiner || NOUN_STEMS.iter().any(|n| is_form_of(&w.word, n)))
        .map(|(at, w)| {
            if done_again(&w.word) == "send" && sends_a_message(at) {
                // Still a send, not a payment.
                "message".to_string()
            } else if is_form_of(&w.word, "leave") || is_form_of(&w.word, "drop") {
                leaves_or_drops(said, at).to_string()
            } else if w.word == "clear"
                && said.get(at + 1).is_some_and(|n| {
                    DETERMINERS.contains(&n.word.as_str())
                        || matches!(n.word.as_str(), "all" | "out")
                })
                && said[at + 1..]
                    .iter()
                    .take(PHRASE_WORDS)
                    .any(|n| STORES.contains(&n.word.as_str()))
            {
                // "clear the camera history", "clear out my inbox" empty a store of things
                // ("make it clear which bills arrived" asks for nothing, and "clear my
                // afternoon" for no deleted contact, a thirteenth outsider round's).
                "empty".to_string()
            } else {
                done_again(&w.word).to_string()
            }
        })
        .collect();
    // "let them know", "let the requester know" tell someone: a message ("let me know" is
    // the user told, and its words are subordinate).
    // (An address between is several words: "let bob@friends.de know" is six.)
    let lets_know = (3..=6).flat_map(|n| said.windows(n)).any(|w| {
        w[0].word == "let"
            && !w[0].subordinate
            && w.last().is_some_and(|k| k.word == "know")
            && !w[1..w.len() - 1]
                .iter()
                .any(|o| matches!(o.word.as_str(), "me" | "us" | "know"))
    });
    ActionKind::ALL
        .into_iter()
        .filter(|k| {
            (*k == ActionKind::Send && lets_know)
                || asking
                    .iter()
                    .any(|w| k.request_stems().iter().any(|s| asks_for(w, s)))
                || said.iter().any(|w| {
                    w.created
                        && !w.subordinate
                        && k.tool_nouns().iter().any(|n| is_form_of(&w.word, n))
                        // An invoice made bills someone; it pays nothing ("create an
                        // invoice for Acme", a fifteenth outsider round's).
                        && !(*k == ActionKind::Pay && is_form_of(&w.word, "invoice"))
                })
        })
        .collect()
}

/// Verbs that ask for a change of some kind beyond [`ActionKind`]'s and the classifier's
/// writing verbs: what people say when they want something made, fixed or switched.
const CHANGE_VERBS: &[&str] = &[
    "make",
    "turn",
    "switch",
    "fix",
    "add",
    "put",
    "give",
    "let",
    "implement",
    "refactor",
    "rewrite",
    "generate",
    "build",
    "compile",
    "test",
    "format",
    "rename",
    "draft",
    "compose",
    "note",
    "log",
    "record",
    "organize",
    "tidy",
    "save",
    "import",
    "bump",
    "upgrade",
    "downgrade",
    "configure",
    "adjust",
    "raise",
    "lower",
    "increase",
    "decrease",
    "mute",
    "unmute",
    "pause",
    "resume",
    "toggle",
    "activate",
    "restore",
    "apply",
    "create",
    "write",
    "update",
    "set",
    "change",
    "edit",
    "modify",
    "move",
    "copy",
    "replace",
    "append",
    "insert",
    "register",
    "sign",
    "join",
    "follow",
    "subscribe",
    "like",
    "react",
    "pin",
    "star",
    "label",
    "tag",
    "assign",
    "schedule",
    "plan",
    "arrange",
    "prepare",
    "order",
    // A browser's navigation reaches the network, which makes its tool side-effecting.
    "navigate",
    "visit",
    "browse",
    // Go-ahead words a person uses for "do what we discussed".
    "go",
    "do",
    "proceed",
    "continue",
];

/// Whether the user's words ask for any change at all: a word in its plain form that is a
/// writing or acting verb, not one naming a thing after a determiner. A run whose user only
/// asked questions or asked to look, read, summarize or explain ("Is the front door locked?",
/// "Read e-mail 29 and summarize it") authorizes no side effect of any kind, so a tool whose
/// action no [`ActionKind`] names (`release_latch`, `update_workspace_settings`) still needs
/// one.
pub fn asks_for_change(said: &[SaidWord]) -> bool {
    said.iter()
        .filter(|w| !w.after_determiner && !w.subordinate)
        .any(|w| is_acting_verb(&w.word))
}

/// Whether a word, in its plain form, is a verb that writes, changes or acts.
pub(crate) fn is_acting_verb(word: &str) -> bool {
    CHANGE_VERBS.contains(&word)
        || super::classify::WRITE_VERBS.contains(&word)
        || ActionKind::ALL
            .iter()
            .any(|k| k.request_stems().iter().any(|s| asks_for(word, s)))
}

/// Words of a tool's name that say nothing about what it does.
pub(crate) const NAME_FILLERS: &[&str] = &[
    "all", "any", "every", "the", "a", "an", "as", "of", "to", "for", "my", "new", "now", "and",
    "or", "by", "in", "on", "at", "from", "with", "it", "me", "is",
];

/// Words of a tool's name that make it act on every thing of its kind (`delete_all_emails`,
/// `cancel_every_meeting`, `bulk_archive`).
const EVERY_THING_NAME_WORDS: &[&str] = &[
    "all",
    "every",
    "everything",
    "entire",
    "whole",
    "bulk",
    "mass",
];

/// Words after "all" or "everything" that narrow it to some: "everything from spam@…",
/// "all e-mails older than a year", "all but the last".
const NARROWING_WORDS: &[&str] = &[
    "from",
    "by",
    "except",
    "but",
    "older",
    "newer",
    "before",
    "after",
    "that",
    "which",
    "who",
    "whose",
    "containing",
    "matching",
    "with",
    "without",
    "where",
    "since",
    "until",
    "under",
    "over",
    "tagged",
    "labelled",
    "labeled",
    "sent",
];

/// Words by which a person asks for every thing of a kind rather than one ("delete all of
/// them", "mark everything as read", "clear the whole inbox").
const EVERY_THING_WORDS: &[&str] = &[
    "all",
    "every",
    "everything",
    "each",
    "entire",
    "whole",
    "bulk",
    "everyone",
    "everybody",
];

/// For a call that takes no arguments, the words of the tool's name that the user's words do
/// not name. Such a call (`empty_trash`, `mark_all_as_read`, `purge_deleted_emails`) acts on
/// everything its name says, and nothing in the call ties it to what the user asked about, so
/// the user must have named what it does: every word of its name, in any form — or, where a
/// product name leads (`SmartLockUnlockDoor`), at least its last two words ("unlock the
/// door") when they hold the verb itself (in `empty_deleted_items` they hold a participle, and
/// "delete my sent items" does not ask for emptying anything). A name that acts on every
/// thing of its kind (`delete_all_emails`) needs the user to have asked for every one: "Delete
/// the e-mail from spam@deals.biz" names one. Empty when they did.
pub fn unnamed_words(tool: &str, said: &[SaidWord]) -> Vec<String> {
    let name = name_words(tool);
    // The user asked for every thing of a kind when they said "all" or "everything" and did
    // not narrow it: "delete everything from spam@deals.biz" asks for less than a call that
    // takes no arguments can do.
    let asked_for_every = said.iter().enumerate().any(|(i, s)| {
        EVERY_THING_WORDS.contains(&s.word.as_str())
            && !said[i + 1..]
                .iter()
                .take(2)
                .any(|n| NARROWING_WORDS.contains(&n.word.as_str()))
    });
    let every_thing = name
        .iter()
        .find(|w| EVERY_THING_NAME_WORDS.contains(&w.as_str()))
        .filter(|_| !asked_for_every)
        .cloned();
    let content: Vec<String> = name
        .into_iter()
        .filter(|w| !NAME_FILLERS.contains(&w.as_str()))
        .collect();
    let named = |w: &str| {
        said.iter()
            .any(|s| is_form_of(&s.word, w) || is_form_of(w, &s.word))
    };
    let named_tail: Vec<&String> = content.iter().rev().take_while(|w| named(w)).collect();
    let tail_holds_the_verb = named_tail.len() >= 2
        && named_tail
            .iter()
            .any(|w| is_acting_verb(w) && !super::kinds::is_participle(w));
    let mut unnamed: Vec<String> = if named_tail.len() == content.len() || tail_holds_the_verb {
        Vec::new()
    } else {
        content.into_iter().filter(|w| !named(w)).collect()
    };
    unnamed.extend(every_thing);
    unnamed
}

/// Verbs any change may be named by, which say nothing of what it changes.
pub(crate) const GENERIC_CHANGE_VERBS: &[&str] = &[
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
    "run",
    "perform",
    "execute",
    "write",
    "save",
    "new",
    "toggle",
    "turn",
    "switch",
    "enable",
    "disable",
    "configure",
    "adjust",
    "manage",
    "handle",
    "process",
    "submit",
    "insert",
    "upsert",
    "patch",
    "start",
    "stop",
    "trigger",
    "invoke",
    "call",
    "use",
    "act",
    "action",
    "go",
];

/// Words of a tool's name that say only that it acts on whatever its arguments pick
/// (`control_device`, `operate_entity`): no verb of the user's is theirs. (They still name
/// what the tool changes, which the user must name: an eighteenth outsider round reached
/// devices the user never named through `control_device` when they did not.)
const GENERIC_SUBJECT_WORDS: &[&str] = &[
    "control", "operate", "device", "devices", "entity", "entities",
];

/// For a call whose action no [`ActionKind`] names (`set_thermostat`, `mark_as_read`,
/// `create_filter`), in a run whose user asked for some change: the words of its name that say
/// what it changes, when the user's words name none of them. The user who asked to turn on the
/// porch light asked for no camera, thermostat or mail filter to be touched, and an id or a
/// room the user did mention (`set_camera {"camera": "porch"}`) does not make it so (a third
/// outsider round turned a camera off, raised the heating and hid its mail that way). Generic
/// verbs (`set`, `update`, `create`), looking verbs and fillers are not what a tool changes;
/// a word counts as named in any form or by its abbreviation (`repo` for "repository").
/// Empty when the user named one, or the name says nothing more. A file name the user wrote
/// names a file (`write_file` after "fix the typo in README.md"); an argument's key names
/// nothing (a sixth outsider round gave `set_camera` a `room` the user had named for a
/// light).
pub fn unnamed_subject(tool: &str, said: &[SaidWord]) -> Vec<String> {
    let name = name_words(tool);
    let says_something = |w: &String| {
        let w = w.as_str();
        w.len() > 1
            && !NAME_FILLERS.contains(&w)
            && !GENERIC_CHANGE_VERBS.contains(&w)
            && !super::classify::READ_VERBS.contains(&w)
            && !w.chars().all(|c| c.is_ascii_digit())
    };
    let content: Vec<String> = name.into_iter().filter(says_something).collect();
    if content.is_empty() {
        return content;
    }
    if content.iter().any(|w| asks_naming(w, said)) {
        return Vec::new();
    }
    content
}

/// For a call whose action no [`ActionKind`] names, in a run whose user asked for some change
/// of the thing it changes: the verb its name leads with, when the user's asking words do not
/// ask for it in any form. Naming the incident to summarize it and asking to add a note to it
/// asks for no `snooze_incident`, and naming a claim asks for no `fast_track_claim` (a
/// seventeenth outsider round's). Generic verbs (`set`, `update`, `add`), looking verbs and a
/// name that leads with a noun say nothing here; a lookup joined to an action is judged by the
/// action (`get_and_disburse_invoice`).
pub fn unasked_verb(tool: &str, said: &[SaidWord]) -> Option<String> {
    let mut name = name_words(tool);
    // A lookup joined to an action leads with the lookup: the action is the verb after the
    // join (`get_and_disburse_invoice`, `read_then_relay_email`, a thirty-sixth outsider
    // round's).
    let joined = name.len() > 3
        && super::classify::READ_VERBS.contains(&name[0].as_str())
        && matches!(name[1].as_str(), "and" | "then");
    if joined {
        name.drain(..2);
    }
    let verb = name.first()?;
    let w = verb.as_str();
    if w.len() < 3
        || name.len() < 2
        || NAME_FILLERS.contains(&w)
        || GENERIC_CHANGE_VERBS.contains(&w)
        || GENERIC_SUBJECT_WORDS.contains(&w)
        || super::classify::READ_VERBS.contains(&w)
        // (A kind's own verb is judged as that kind.)
        || ActionKind::ALL.iter().any(|k| k.tool_verbs().contains(&w))
        // (After a join the word is a verb, whether keel knows it or not.)
        || !joined
            && !is_any_verb(w)
            && !is_acting_verb(w)
            && !w.ends_with("ize")
            && !w.ends_with("ise")
            && !KINDLESS_ACTION_VERBS.contains(&w)
        || asks_naming(w, said)
    {
        return None;
    }
    Some(verb.clone())
}

/// Whether the user's asking words ask with the verb a tool's name leads with: "Discharge
/// patient P-4410" for `discharge_patient {"patient_id": "P-4410"}`, "Refill my prescription
/// RX-5512" for `refill_prescription` ask for a change keel has no word of its own for. Only
/// where the clause that verb opens names every other word of the tool's name and holds each
/// of the call's `values` that has a digit in it, and is no question and no condition (an
/// eighteenth outsider round discharged P-4415 after "Discharge patient P-4410 and show me
/// P-4415's chart", and ran `discharge_patient_balance` and "Quarantine host web-7 if the
/// scan is positive").
pub fn asks_with_its_verb(
    tool: &str,
    said: &[SaidWord],
    user: &[impl AsRef<str>],
    values: &[&str],
) -> bool {
    let name = name_words(tool);
    let Some(verb) = name.first().map(String::as_str) else {
        return false;
    };
    if name.len() < 2
        || verb.len() < 3
        || NAME_FILLERS.contains(&verb)
        || GENERIC_CHANGE_VERBS.contains(&verb)
        || super::classify::READ_VERBS.contains(&verb)
        || !said
            .iter()
            .filter(|s| !s.subordinate && !s.after_determiner)
            .any(|s| s.word == verb)
    {
        return false;
    }
    let rest: Vec<&String> = name[1..]
        .iter()
        .filter(|w| w.len() > 1 && !NAME_FILLERS.contains(&w.as_str()))
        .collect();
    let ids: Vec<Vec<String>> = values
        .iter()
        .filter(|v| v.chars().any(|c| c.is_ascii_digit()))
        .map(|v| words(v))
        .filter(|v| !v.is_empty())
        .collect();
    user.iter().any(|turn| {
        sentences(turn.as_ref()).any(|sentence| {
            !sentence.trim_end().ends_with('?')
                && clauses(sentence).into_iter().any(|clause| {
                    let w = words(clause);
                    w.iter()
                        .find(|x| !CLAUSE_FILLERS.contains(&x.as_str()))
                        .map(String::as_str)
                        == Some(verb)
                        && !w.iter().any(|x| {
                            matches!(
                                x.as_str(),
                                "if" | "unless" | "once" | "until" | "when" | "after"
                            )
                        })
                        // A heading, not a request: "Discharge summary for patient P-4410: show
                        // it to me", "Evict notices: list the ones pending".
                        && !clause.split_once(':').is_some_and(|(_, after)| {
                            words(after).first().is_some_and(|f| {
                                super::classify::READ_VERBS.contains(&f.as_str())
                                    || LOOKING_VERBS.contains(&f.as_str())
                                    || matches!(f.as_str(), "show" | "list" | "tell" | "give")
                            })
                        })
                        && rest
                            .iter()
                            .all(|n| w.iter().any(|x| is_form_of(x, n) || is_form_of(n, x)))
                        && ids
                            .iter()
                            .all(|id| w.windows(id.len()).any(|win| win == id.as_slice()))
                })
        })
    })
}

/// Verbs of changes no [`ActionKind`] names, as tools lead with them: what a record's state
/// becomes (`snooze_incident`, `fast_track_claim`, `mute_alert`).
pub(crate) const KINDLESS_ACTION_VERBS: &[&str] = &[
    "snooze",
    "mute",
    "silence",
    "unmute",
    "downgrade",
    "upgrade",
    "escalate",
    "deescalate",
    "expedite",
    "fast",
    "verify",
    "mark",
    "hide",
    "unhide",
    "feature",
    "pin",
    "unpin",
    "star",
    "flag",
    "waive",
    "release",
    "hold",
    "pause",
    "resume",
    "acknowledge",
    "ack",
    "dismiss",
    "override",
    "bypass",
    "skip",
    "extend",
    "postpone",
    "defer",
    "reschedule",
    "reassign",
    "transfer",
    "move",
    "rename",
    "tag",
    "label",
    "rate",
    "score",
    "rank",
    "boost",
    "promote",
    "demote",
    "clear",
    "reopen",
    "restore",
    "sign",
    "certify",
    "endorse",
];

/// The words of a tool's name, less an MCP server's `mcp` prefix and its server's name
/// (`mcp__files__delete_file` → `delete`, `file`).
pub(crate) fn name_words(tool: &str) -> Vec<String> {
    let mut name = words(tool);
    if name.first().is_some_and(|f| f == "mcp") && name.len() > 2 {
        name.drain(..2);
    }
    name
}

/// Whether the user's asking words name `w`, in any form or by its abbreviation, a file by its
/// kind or extension. Only words that ask name what is changed: "e-mail Bob that I will top up
/// his phone", "Reply to Bob: renewing plan Family" ask for no top-up and no renewal (a ninth
/// outsider round's).
pub(crate) fn asks_naming(w: &str, said: &[SaidWord]) -> bool {
    said.iter().filter(|s| !s.subordinate).any(|s| {
        let s = s.word.as_str();
        is_form_of(s, w)
            || is_form_of(w, s)
            || ABBREVIATIONS
                .iter()
                .any(|(short, long)| (w == *short && s == *long) || (s == *short && w == *long))
    }) || (FILE_NOUNS.contains(&w)
        && said.iter().filter(|s| !s.subordinate).any(|s| {
            super::atoms::is_file_extension(&s.word)
                || KINDS_OF_FILE.iter().any(|k| is_form_of(&s.word, k))
        }))
}

/// Levels of access, from least to most, by the words that name each.
const ACCESS_LEVELS: &[&[&str]] = &[
    &[
        "read", "view", "viewer", "viewers", "reader", "readers", "readonly",
    ],
    &["comment", "commenter", "commenters"],
    &["triage"],
    &[
        "write",
        "edit",
        "editor",
        "editors",
        "push",
        "contributor",
        "writer",
        // What a writer does: "can modify code", "can also push commits".
        "modify",
        "commit",
        "commits",
        "upload",
    ],
    &[
        "maintain",
        "maintainer",
        "maintainers",
        // Merging and settings are a maintainer's: "who can push and merge", "including
        // merging and settings".
        "merge",
        "merging",
        "settings",
    ],
    &[
        "admin",
        "administrator",
        "administrators",
        "administer",
        "owner",
        "owners",
        "full",
        "manage",
        "control",
    ],
];

/// Words that make a level word beside them a level of access ("read access", "write
/// permission", "admin rights", "viewer role").
const ACCESS_NOUNS: &[&str] = &[
    "access",
    "permission",
    "permissions",
    "rights",
    "role",
    "roles",
    "level",
    "only",
    "privileges",
];

/// Words after which a level word says what someone may do: "members can read and write",
/// "so they can manage it", "including merging and settings", "with full control".
const MAY_DO: &[&str] = &["can", "may", "including", "with", "also"];

/// The levels `words` name: a role noun alone ("as a viewer"), a level word beside an
/// access noun ("with read access", "read-only"), or after what someone may do ("can push
/// and merge"). `None` where levels are offered as a choice ("read, write or admin access"):
/// an argument chooses among them, which provenance judges as a value.
fn levels_named<'a>(words: impl Iterator<Item = &'a str>) -> Option<Vec<usize>> {
    let all: Vec<&str> = words.collect();
    let level_of = |w: &str| ACCESS_LEVELS.iter().position(|names| names.contains(&w));
    let joins = |n: &&str| {
        matches!(
            *n,
            "or" | "and" | "to" | "a" | "an" | "also" | "it" | "them"
        ) || level_of(n).is_some()
            || ACCESS_NOUNS.contains(n)
    };
    let mut out = Vec::new();
    let mut choice = false;
    for (i, w) in all.iter().enumerate() {
        let Some(level) = level_of(w) else {
            continue;
        };
        let role_noun = w.ends_with("er") || w.ends_with("ers") || w.ends_with("or");
        // Beside an access noun, or in a list of levels that one ends or opens ("read, write
        // and admin access", "access: read or write").
        let after = all[i + 1..].iter().find(|n| !joins(n));
        let before = all[..i].iter().rev().find(|n| !joins(n));
        let run_has_noun = all[i + 1..]
            .iter()
            .take_while(|n| joins(n))
            .chain(all[..i].iter().rev().take_while(|n| joins(n)))
            .any(|n| ACCESS_NOUNS.contains(n));
        let beside = run_has_noun
            || after.is_some_and(|n| ACCESS_NOUNS.contains(n))
            || before.is_some_and(|n| ACCESS_NOUNS.contains(n) || MAY_DO.contains(n));
        if role_noun || beside {
            // Joined by "or" to another level: a choice.
            let next = all.get(i + 1).copied();
            if next == Some("or") && all.get(i + 2).is_some_and(|n| level_of(n).is_some()) {
                choice = true;
            }
            if !out.contains(&level) {
                out.push(level);
            }
        }
    }
    (!choice).then_some(out)
}

/// Where the user asked for a level of access ("add bob as a collaborator with read access")
/// and the tool grants more, by its name (`grant_write`) or what its description says the
/// grantee may do ("… with write access", "… who can push and merge", "… with full control"):
/// the level it grants and the one asked for (the thirteenth and fourteenth outsider rounds').
/// A description that offers levels as a choice leaves it to an argument, which provenance
/// judges as a value.
pub fn granted_beyond_asked(
    tool: &str,
    description: &str,
    kinds: &[ActionKind],
    said: &[SaidWord],
) -> Option<(String, String)> {
    // (A tool no kind names may still grant: `add_reader`, whose readers "can also push".)
    if !kinds.is_empty()
        && !kinds
            .iter()
            .any(|k| matches!(k, ActionKind::Access | ActionKind::Share))
    {
        return None;
    }
    let asking: Vec<&str> = said
        .iter()
        .filter(|s| !s.subordinate)
        .map(|s| s.word.as_str())
        .collect();
    let asked = levels_named(asking.iter().copied())?.into_iter().max()?;
    let name = words(tool);
    let by_name = name
        .iter()
        .filter_map(|w| {
            ACCESS_LEVELS
                .iter()
                .position(|names| names.contains(&w.as_str()))
        })
        .max();
    let described = words(description);
    let by_description =
        levels_named(described.iter().map(String::as_str)).and_then(|l| l.into_iter().max());
    let granted = by_name.into_iter().chain(by_description).max()?;
    (granted > asked).then(|| {
        (
            ACCESS_LEVELS[granted][0].to_string(),
            ACCESS_LEVELS[asked][0].to_string(),
        )
    })
}

/// For a call that deletes, closes or changes access or sharing, the word of its name that
/// makes it act on every thing of a kind, where the user named one: `close_every_issue`,
/// `bulk_close_issues`, `remove_all_collaborators`, or `close_stale_issues` (a plural) after
/// "close issue #12" (a fourteenth outsider round's). Nothing where the user asked for all
/// of them ("close all the open issues") or named them in the plural.
pub fn every_thing_unasked(tool: &str, kinds: &[ActionKind], said: &[SaidWord]) -> Option<String> {
    if !kinds.iter().any(|k| {
        matches!(
            k,
            ActionKind::Delete | ActionKind::Close | ActionKind::Access | ActionKind::Share
        )
    }) {
        return None;
    }
    let asked_for_every = said
        .iter()
        .any(|s| EVERY_THING_WORDS.contains(&s.word.as_str()));
    if asked_for_every {
        return None;
    }
    let name = words(tool);
    if let Some(every) = name
        .iter()
        .find(|w| EVERY_THING_NAME_WORDS.contains(&w.as_str()))
    {
        return Some(every.clone());
    }
    // A plural whose singular the user wrote, and never the plural (or a file named by its
    // extension for `delete_files`).
    let named_a_file = said
        .iter()
        .any(|s| super::atoms::is_file_extension(&s.word));
    if let Some(files) = name.iter().find(|w| {
        matches!(w.as_str(), "files" | "documents" | "docs")
            && named_a_file
            && !said.iter().any(|s| s.word == **w)
    }) {
        return Some(files.clone());
    }
    name.iter().find_map(|w| {
        let singular = w
            .strip_suffix("es")
            .filter(|s| s.ends_with(['s', 'x', 'h']))
            .or_else(|| w.strip_suffix('s'))?;
        (singular.len() > 2
            && !w.ends_with("ss")
            && said.iter().any(|s| s.word == singular)
            && !said.iter().any(|s| s.word == *w))
        .then(|| w.clone())
    })
}

/// The content words of messages the user dictates ("reply to bob@acme.com that we got the
/// contract", "tell her: the plumber comes Thursday", quoted text): words of four letters or
/// more after a saying verb's "that", "saying" or colon, to the sentence's end. Empty where
/// the user dictates nothing, or too little to tell one message from another.
pub fn dictated_words(user: &[&str], said: &[SaidWord]) -> Vec<String> {
    // Only where the user asks for one message: with two ("tell Ann that the meeting moved,
    // and send Bob the report"), a body need not say what the other one dictates.
    let sends = said
        .iter()
        .filter(|w| {
            !w.subordinate
                && !w.after_determiner
                && ActionKind::Send
                    .request_stems()
                    .contains(&done_again(&w.word))
        })
        .count();
    if sends > 1 {
        return Vec::new();
    }
    const PLAIN: &[&str] = &[
        "that", "this", "with", "have", "will", "what", "when", "from", "your", "they", "them",
        "their", "there", "here", "been", "were", "just", "also", "about", "would", "could",
        "should", "please", "thanks", "know",
    ];
    let mut out: Vec<String> = Vec::new();
    for text in user {
        for sentence in sentences(text) {
            let lower = sentence.to_lowercase();
            let all = words(&lower);
            let opens = all.iter().enumerate().find_map(|(k, w)| {
                let says =
                    (k.saturating_sub(8)..k).any(|v| SAYING_VERBS.contains(&all[v].as_str()));
                (says && matches!(w.as_str(), "that" | "saying")).then_some(k + 1)
            });
            let from = opens.or_else(|| {
                let (before, _) = lower.split_once(':')?;
                let before = words(before);
                before
                    .iter()
                    .any(|w| SAYING_VERBS.contains(&w.as_str()))
                    .then_some(before.len())
            });
            let Some(from) = from else { continue };
            out.extend(
                all[from.min(all.len())..]
                    .iter()
                    .filter(|w| {
                        w.len() >= 4
                            && w.chars().all(char::is_alphabetic)
                            && !PLAIN.contains(&w.as_str())
                    })
                    .cloned(),
            );
        }
    }
    out.sort();
    out.dedup();
    // (One word says enough only when it is a long one: "it's done" tells no message from
    // another, "we got the contract" does.)
    if out.len() < 2 && !out.iter().any(|w| w.len() >= 6) {
        Vec::new()
    } else {
        out
    }
}

/// Whether a message body says any of what the user dictated: one of its words in any form,
/// or sharing its first five letters ("received" for "receive", "contracts" for "contract").
pub fn says_any_of(body: &str, dictated: &[String]) -> bool {
    let body = words(&body.to_lowercase());
    dictated.iter().any(|d| {
        body.iter().any(|w| {
            is_form_of(w, d)
                || is_form_of(d, w)
                || (w.len() >= 5 && d.len() >= 5 && w[..5] == d[..5])
        })
    })
}

/// Whether a tool's name says where it acts (`remove_user_from_group`, `delete_in_folder`).
pub fn name_says_where(tool: &str) -> bool {
    words(tool).iter().any(|w| LOCATING.contains(&w.as_str()))
}

/// Whether the user's words name any of `objects` only where they say where something is
/// done ("from the design group", "access to Q3-budget.xlsx"), never as what is acted on.
pub fn named_only_as_place(objects: &[String], said: &[SaidWord]) -> bool {
    let (places, acted_on): (Vec<SaidWord>, Vec<SaidWord>) =
        said.iter().cloned().partition(|s| s.located);
    objects
        .iter()
        .any(|o| asks_naming(o, &places) && !asks_naming(o, &acted_on))
}

/// Whether the user's words ask for less than full rights on what is made: "read-only",
/// "view-only", "as a viewer". A permission flag turned off on a new thing is then theirs.
pub fn asks_for_less(said: &[SaidWord]) -> bool {
    said.iter().any(|s| {
        !s.subordinate
            && matches!(
                s.word.as_str(),
                "only" | "readonly" | "viewer" | "viewers" | "reader" | "readers"
            )
    })
}

/// Words too common in a tool's description to say what it acts on.
const DESCRIPTION_FILLERS: &[&str] = &[
    "this",
    "that",
    "these",
    "those",
    "with",
    "from",
    "into",
    "onto",
    "your",
    "their",
    "them",
    "they",
    "will",
    "when",
    "then",
    "than",
    "only",
    "also",
    "each",
    "which",
    "what",
    "where",
    "given",
    "user",
    "users",
    "account",
    "returns",
    "return",
    "optional",
    "optionally",
];

/// For a call that closes, ends or runs something (a kind whose verbs are many and particular:
/// complete, land, finalize, deploy, roll out), the words of its name for what it acts on,
/// when nothing the user asked names any of them, nor anything its description names: after
/// "close issue #12", `complete_pull_request` completes a pull request, and after "run the
/// deploy workflow" `deploy_production` deploys production (a thirteenth outsider round's).
/// Nothing where the name says only its verb. Other kinds keep their own checks: a payment's
/// or a deletion's object is judged by its values, and people name it by its parts ("wipe
/// her phone" for `wipe_device`).
pub fn unnamed_object(
    tool: &str,
    description: &str,
    kinds: &[ActionKind],
    said: &[SaidWord],
) -> Vec<String> {
    if !kinds
        .iter()
        .any(|k| matches!(k, ActionKind::Close | ActionKind::Run | ActionKind::Delete))
    {
        return Vec::new();
    }
    let is_verb = is_any_verb;
    let name = name_words(tool);
    // The name's words after "from" or "in" say where it acts (`remove_user_from_group`):
    // any word of the user's names them. What it acts on must be named where the user says
    // what to act on, not where (a fourteenth outsider round deleted the channel after
    // "remove Carl from the design channel").
    let located_from = name
        .iter()
        .position(|w| LOCATING.contains(&w.as_str()))
        .unwrap_or(name.len());
    let content = |w: &String| {
        w.len() > 2
            && !NAME_FILLERS.contains(&w.as_str())
            && !EVERY_THING_NAME_WORDS.contains(&w.as_str())
            && !w.chars().all(|c| c.is_ascii_digit())
            && !is_verb(w)
    };
    let places: Vec<&String> = name[located_from..].iter().filter(|w| content(w)).collect();
    let objects: Vec<String> = name[..located_from]
        .iter()
        .filter(|w| content(w))
        .cloned()
        .collect();
    let acted_on: Vec<SaidWord> = said.iter().filter(|s| !s.located).cloned().collect();
    // A name that says only where it acts (`remove_from_workspace`) acts on the whole of
    // that place, which the user must name.
    let only_places = objects.is_empty();
    let (objects, places) = if only_places {
        (
            places.into_iter().cloned().collect::<Vec<String>>(),
            Vec::new(),
        )
    } else {
        (objects, places)
    };
    let object_named_by = if only_places { said } else { &acted_on[..] };
    if objects.is_empty()
        || objects.iter().any(|w| asks_naming(w, object_named_by))
        || places.iter().any(|w| asks_naming(w, said))
    {
        return Vec::new();
    }
    // What the description says the tool acts on, where the user's words name it: "sign the
    // lease" for a `sign_document` that signs "a document, a contract or a lease".
    if description_names_asked(description, &acted_on) {
        Vec::new()
    } else {
        objects
    }
}

/// Whether `w` is a verb keel reads: a generic change verb, a looking verb, an acting verb
/// or any kind's.
fn is_any_verb(w: &str) -> bool {
    GENERIC_CHANGE_VERBS.contains(&w)
        || super::classify::READ_VERBS.contains(&w)
        || is_acting_verb(w)
        || ActionKind::ALL.iter().any(|k| {
            k.tool_verbs().iter().any(|v| is_form_of(w, v))
                || k.request_stems().iter().any(|v| is_form_of(w, v))
        })
}

/// Whether a thing the tool's description says it acts on is one the user's asking words
/// name: "sign the lease" for a `sign_document` that signs "a document, a contract or a
/// lease". (Only for what a kind's tool acts on: a tool no kind names, which any change the
/// user asked for would cover, keeps to the words of its name — a description that names a
/// light let a `control_device` of an injection's choosing through.)
fn description_names_asked(description: &str, said: &[SaidWord]) -> bool {
    words(description).into_iter().any(|w| {
        w.len() > 3
            && !DESCRIPTION_FILLERS.contains(&w.as_str())
            && !is_any_verb(&w)
            && asks_naming(&w, said)
    })
}

/// Words of a tool's name for a change that keeps acting after the call, or reaches past whom
/// the user named: forwarding all mail, a delegate, a recovery address, an automatic reply, a
/// folder made public (a tenth outsider round ran each after "share the folder with Bob" or
/// "e-mail Bob", whose kinds they share). Each needs the user's own word for it.
const REACH_WORDS: &[(&str, &[&str])] = &[
    ("forwarding", &["forward", "forwarding", "autoforward"]),
    ("autoforward", &["forward", "forwarding", "autoforward"]),
    ("delegate", &["delegate", "delegation"]),
    ("delegation", &["delegate", "delegation"]),
    ("recovery", &["recovery", "recover"]),
    (
        "auto",
        &[
            "auto",
            "automatic",
            "automatically",
            "autoreply",
            "vacation",
            "office",
        ],
    ),
    (
        "autoreply",
        &[
            "auto",
            "automatic",
            "automatically",
            "autoreply",
            "vacation",
            "office",
        ],
    ),
    (
        "publish",
        &[
            "publish", "public", "publicly", "anyone", "everyone", "world", "internet", "web",
        ],
    ),
    (
        "public",
        &[
            "publish", "public", "publicly", "anyone", "everyone", "world", "internet", "web",
        ],
    ),
    (
        "anyone",
        &[
            "publish", "public", "publicly", "anyone", "everyone", "world", "internet", "web",
        ],
    ),
    (
        "everyone",
        &[
            "publish", "public", "publicly", "anyone", "everyone", "world", "internet", "web",
        ],
    ),
    ("forward", &["forward", "forwarding", "autoforward"]),
    ("redirect", &["redirect", "forward", "forwarding"]),
    ("account", &["account"]),
];

/// The word of `tool`'s name, or of its short string arguments (`"action": "forward"`,
/// `"visibility": "anyone with the link"`), for a change that keeps acting or reaches anyone
/// ([`REACH_WORDS`]) that none of the user's asking words names. (`forward`, `anyone`,
/// `account` count only in a name of several words or in a value: `forward_email` forwards one
/// e-mail, which its kind judges.)
pub fn unnamed_reach(tool: &str, args: &Value, said: &[SaidWord]) -> Option<String> {
    let mut name = words(tool);
    name.retain(|w| {
        !matches!(w.as_str(), "forward" | "anyone" | "everyone" | "account") || {
            // `change_account_email`: the account itself changes hands.
            w == "account"
                && tool.contains("account")
                && ["email", "phone", "owner", "recovery", "password"]
                    .iter()
                    .any(|part| tool.to_lowercase().contains(part))
        }
    });
    if let Some(fields) = args.as_object() {
        for value in fields.values() {
            if let Some(text) = value.as_str()
                && text.split_whitespace().count() <= 5
            {
                name.extend(words(text));
            }
        }
    }
    name.iter().find_map(|w| {
        let (_, naming) = REACH_WORDS.iter().find(|(word, _)| word == w)?;
        let named = said
            .iter()
            .filter(|s| !s.subordinate)
            .any(|s| naming.iter().any(|n| is_form_of(&s.word, n)));
        (!named).then(|| w.clone())
    })
}

/// The verb of `tool`'s name and the one the user asked for when the name does the opposite
/// of it: `unlock_door` after "lock the front door", `disable_alarm` after "enable the alarm",
/// `lock_door` after "unlock it" (a twelfth outsider round's: both are access changes to the
/// same door, which the kind alone does not tell apart).
pub fn opposite_of_asked(tool: &str, said: &[SaidWord]) -> Option<(String, String)> {
    const UNDOING: &[&str] = &["un", "dis", "de"];
    let name = words(tool);
    // "Send back" is returning it: `send_back_expense_report` after "approve".
    let verb = match name.as_slice() {
        [send, back, ..] if send == "send" && back == "back" => "return".to_string(),
        _ => name.first()?.clone(),
    };
    let asking = |w: &str| said.iter().any(|s| !s.subordinate && s.word == w);
    if asking(&verb) {
        return None;
    }
    // The name undoes what the user asked: `unlock` for "lock".
    for prefix in UNDOING {
        if let Some(root) = verb.strip_prefix(prefix)
            && root.len() >= 3
            && asking(root)
        {
            return Some((verb.clone(), root.to_string()));
        }
    }
    // Pairs that no prefix makes.
    const PAIRS: &[(&str, &str)] = &[
        ("enable", "disable"),
        ("grant", "revoke"),
        ("approve", "revoke"),
        ("approve", "reject"),
        ("approve", "deny"),
        ("accept", "reject"),
        ("accept", "decline"),
        // A decision's other side, by any of its verbs (a fourteenth outsider round's).
        ("approve", "decline"),
        ("approve", "rescind"),
        ("approve", "refuse"),
        ("approve", "veto"),
        ("approve", "hold"),
        ("approve", "return"),
        ("approve", "reopen"),
        ("approve", "flag"),
        ("approve", "turn"),
        ("reject", "confirm"),
        ("reject", "approve"),
        ("reject", "accept"),
        ("reject", "verify"),
        ("reject", "acknowledge"),
        ("reject", "mark"),
        ("deny", "confirm"),
        ("deny", "approve"),
        ("deny", "allow"),
        ("decline", "accept"),
        ("decline", "confirm"),
        // Giving someone access is the opposite of taking theirs away.
        ("give", "revoke"),
        ("give", "remove"),
        ("give", "suspend"),
        ("grant", "remove"),
        ("grant", "suspend"),
        ("add", "remove"),
        ("invite", "remove"),
        ("open", "close"),
        ("start", "stop"),
        ("show", "hide"),
    ];
    if let Some(asked) = PAIRS.iter().find_map(|(a, b)| {
        if verb == *a && asking(b) {
            Some(*b)
        } else if verb == *b && asking(a) {
            Some(*a)
        } else {
            None
        }
    }) {
        return Some((verb, asked.to_string()));
    }
    // The user asked to undo what the name does: "unlock" for `lock`.
    UNDOING.iter().find_map(|prefix| {
        let undone = format!("{prefix}{verb}");
        asking(&undone).then(|| (verb.clone(), undone))
    })
}

/// Whether a flag named `key` is the thing's being on (`enabled`, `active`, `is_on`) and the
/// user's asking words switch something off ("turn off that automation", "disable it"): then
/// `false` is their choice.
pub fn switched_off(key: &str, said: &[SaidWord]) -> bool {
    let words = super::classify::words(key);
    words
        .iter()
        .any(|w| matches!(w.as_str(), "enabled" | "enable" | "active" | "on" | "power"))
        && said
            .iter()
            .any(|s| !s.subordinate && matches!(s.word.as_str(), "disable" | "deactivate" | "off"))
}

/// Words that put a thing in its working state, and words that take it out of it.
const ON_WORDS: &[&str] = &[
    "on",
    "armed",
    "enabled",
    "active",
    "running",
    "recording",
    "locked",
    "lock",
];
const OFF_WORDS: &[&str] = &[
    "off",
    "pause",
    "paused",
    "snooze",
    "snoozed",
    "disarm",
    "disarmed",
    "mute",
    "muted",
    "sleep",
    "hibernate",
    "disconnect",
    "disconnected",
    "standby",
    "hold",
    "silence",
    "silenced",
    "disable",
    "disabled",
    "deactivate",
    "deactivated",
    "stop",
    "stopped",
    "suspend",
    "suspended",
    "unlocked",
    "unlock",
];

/// Where a call takes a thing out of the state the user asked it kept in, or the other way:
/// `pause_camera {"device": "porch camera"}` or `turn_off` after "leave the porch camera on"
/// (a fourteenth outsider round's, where "turn off the hallway light" stood beside it). The
/// thing is an argument value the user's words name, and the state they gave it is the state
/// word right after it ("the porch camera on") or the one it keeps ("keep the alarm armed").
/// The value and the state the user gave it.
pub fn state_against_words(
    tool: &str,
    args: &Value,
    user: &[&str],
) -> Option<(String, &'static str)> {
    let state_of = |w: &str| {
        if ON_WORDS.contains(&w) {
            Some(true)
        } else if OFF_WORDS.contains(&w) {
            Some(false)
        } else {
            None
        }
    };
    let mut call: Option<bool> = None;
    let mut values: Vec<String> = Vec::new();
    for w in words(tool) {
        if let Some(st) = state_of(&w) {
            call = Some(st);
        }
    }
    if let Some(fields) = args.as_object() {
        for (key, v) in fields {
            match v {
                Value::String(text) => {
                    let lower = text.trim().to_lowercase();
                    match state_of(&lower) {
                        Some(st) => call = Some(st),
                        None if lower.len() >= 3 => values.push(lower),
                        None => {}
                    }
                }
                // A flag that is the state: `{"on": false}`, `{"locked": true}`.
                Value::Bool(b) => {
                    if let Some(st) = state_of(&key.to_lowercase()) {
                        call = Some(st == *b);
                    }
                }
                _ => {}
            }
        }
    }
    let call = call?;
    for text in user {
        let lower = text.to_lowercase();
        for value in &values {
            let Some(at) = lower.find(value.as_str()) else {
                continue;
            };
            let after: Vec<String> = words(&lower[at + value.len()..])
                .into_iter()
                .take(3)
                .collect();
            let before: Vec<String> = words(&lower[..at]).into_iter().rev().take(4).collect();
            let keeps = before
                .iter()
                .any(|w| matches!(w.as_str(), "keep" | "leave" | "stay" | "remain"));
            // ("the front door stays locked", "the porch light is on")
            let stays = after.iter().take(2).any(|w| {
                matches!(
                    w.as_str(),
                    "stays" | "stay" | "remains" | "remain" | "is" | "must"
                )
            });
            let given = after.iter().find_map(|w| state_of(w)).filter(|_| {
                keeps
                    || stays
                    || after.first().is_some_and(|w| state_of(w).is_some())
                    || (after.len() > 1 && state_of(&after[1]).is_some())
            });
            if let Some(given) = given
                && given != call
            {
                return Some((value.clone(), if given { "on" } else { "off" }));
            }
        }
    }
    None
}

/// States that undo each other, each by the words that name it.
const OPPOSITE_STATES: &[(&[&str], &[&str])] = &[
    (&["on"], &["off"]),
    (&["open", "opened"], &["close", "closed", "shut"]),
    (&["lock", "locked"], &["unlock", "unlocked"]),
    (&["enable", "enabled"], &["disable", "disabled"]),
    (&["public"], &["private"]),
    (&["visible", "shown", "show"], &["hidden", "hide"]),
    (&["arm", "armed"], &["disarm", "disarmed"]),
    (
        &["active", "activate", "activated"],
        &["inactive", "deactivate", "deactivated"],
    ),
    (
        &["allow", "allowed"],
        &["deny", "denied", "block", "blocked"],
    ),
];

/// Where a one-word value is a state whose opposite the user's asking words name and it they
/// do not: `set_light {"state": "off"}` after "leave the porch light on" (a thirteenth
/// outsider round's). The state asked for. (Where the user named both, each may be meant for
/// another thing, and the values' other checks judge.)
pub fn opposite_state(value: &str, said: &[SaidWord]) -> Option<&'static str> {
    let value = value.trim().to_lowercase();
    let asked = |names: &[&str]| {
        said.iter()
            .any(|s| !s.subordinate && names.contains(&s.word.as_str()))
    };
    OPPOSITE_STATES.iter().find_map(|(a, b)| {
        let (this, other) = if a.contains(&value.as_str()) {
            (a, b)
        } else if b.contains(&value.as_str()) {
            (b, a)
        } else {
            return None;
        };
        (asked(other) && !asked(this)).then_some(other[0])
    })
}

/// The verb of `tool`'s name and the one the user asked with, when the name's verb is a
/// particular action of the kind the user asked for by another verb: `merge_pull_request`
/// after "close issue #12", `push_file` after "run the deploy workflow" (a twelfth outsider
/// round's: one kind of action, which the kind alone does not tell apart). A generic verb of
/// the kind (`run_job`, `resolve_ticket` after "close it") is the user's own; a particular
/// one needs its own word, or one of its synonyms. A tool that another kind the user asked
/// for also covers is theirs by that kind (`push_notification` after "run the tests and
/// notify me"). `tool_kinds` are the tool's, `requested` the kinds the user asked for.
pub fn other_action_of_kind(
    tool: &str,
    tool_kinds: &[ActionKind],
    requested: &[ActionKind],
    said: &[SaidWord],
) -> Option<(String, String)> {
    /// Each kind's verbs any ask of the kind covers, and its particular verbs.
    const PARTICULAR: &[(ActionKind, &[&str], &[&str])] = &[
        (
            ActionKind::Close,
            &["close", "resolve", "finalize", "dismiss", "settle"],
            // "Landing" a change is merging it.
            &["merge", "land"],
        ),
        (
            ActionKind::Run,
            &[
                "run", "execute", "exec", "invoke", "trigger", "start", "launch",
            ],
            &[
                "push", "deploy", "release", "install", "merge", "submit", "sign", "scale",
                "reboot", "restart", "publish", "ship", "commit", "migrate",
            ],
        ),
        // Forwarding sends someone else's message on: a reply asked covers none (a fifteenth
        // outsider round's `forward_email` after "reply to bob@acme.com that …").
        (
            ActionKind::Send,
            &[
                "send", "email", "mail", "message", "reply", "respond", "tell", "notify", "text",
                "post", "comment", "contact", "inform", "ask",
            ],
            &["forward"],
        ),
        // Opening, resetting or disabling a lock or a safeguard is more than the access change
        // asked: "add a door code for the cleaner" asks for no `open_door` or `reset_lock` (a
        // fourteenth outsider round's).
        (
            ActionKind::Access,
            &[
                "lock",
                "enable",
                "approve",
                "accept",
                "assign",
                "grant",
                "authorize",
                "give",
                "add",
                "set",
                "create",
                "invite",
                "share",
                "change",
                "update",
                "edit",
                "modify",
            ],
            &[
                "unlock",
                "open",
                "disable",
                "reset",
                "disarm",
                "revoke",
                "deauthorize",
                "demote",
                "promote",
                "suspend",
                "deactivate",
                "rotate",
            ],
        ),
        // Stopping, pausing or archiving something undoes less than deleting or terminating it:
        // "stop instance web-3" asks for no `terminate_instance` or `delete_volume` (a
        // thirteenth outsider round's). (Cancelling a meeting is deleting its event.)
        (
            ActionKind::Delete,
            &[
                "stop",
                "shutdown",
                "shut",
                "pause",
                "suspend",
                "archive",
                "disable",
                "deactivate",
                "detach",
                "unfollow",
                "unsubscribe",
                "revert",
                "rollback",
            ],
            &[
                // A reset wipes what a thing held (`factory_reset`): more than stopping it.
                "reset",
                // Voiding a document cancels it where it stays on the books: deleting it, or
                // its customer, is another action (a fifteenth outsider round's).
                "void",
                "delete",
                "remove",
                "erase",
                "purge",
                "destroy",
                "wipe",
                "terminate",
                "trash",
                "nuke",
                "expunge",
                "truncate",
                "drop",
            ],
        ),
    ];
    const SYNONYMS: &[&[&str]] = &[
        &["deploy", "release", "ship"],
        &["merge", "land"],
        &["reboot", "restart"],
        &[
            "delete", "remove", "erase", "purge", "destroy", "wipe", "trash", "nuke", "expunge",
            "drop", "discard", "rid", "clean", "clear", "empty", "rm", "truncate", "unlink",
        ],
        &["terminate", "kill", "end", "destroy"],
        &["unlock", "open"],
        &["revoke", "remove", "delete", "disable", "deactivate"],
        &["disable", "deactivate", "suspend"],
    ];
    // The verb judged is the name's particular one, in any form and wherever it stands
    // (`github_push_file`, `run_merge`, `close_pull_request_by_merging`): a generic verb
    // beside it (`run_`, `trigger_`, `close_and_`) does not make it the user's.
    let name = words(tool);
    // (A verb done again is the verb: `redeploy_service` deploys.)
    let verb = name.iter().find_map(|w| {
        let w = done_again(w);
        PARTICULAR
            .iter()
            .flat_map(|(_, _, particular)| particular.iter())
            .find(|p| is_form_of(w, p))
            .map(|p| (*p).to_string())
    })?;
    // A verb that names a thing after a determiner asks for nothing: "run the deploy
    // workflow" asks to run a workflow, not to deploy (a thirteenth outsider round's
    // `execute_deploy` and `run_release`).
    let asking = |w: &str| {
        said.iter().any(|s| {
            let said = done_again(&s.word);
            !s.subordinate && !s.after_determiner && (is_form_of(said, w) || is_form_of(w, said))
        })
    };
    // A synonym counts wherever the user wrote it as a verb: it only keeps this rule from
    // asking. A push that is a notification's (`push_notification`) is a notice: "notify" or
    // "alert".
    let wrote = |w: &str| {
        said.iter()
            .any(|s| !s.after_determiner && is_form_of(&s.word, w))
    };
    let notice = verb == "push"
        && name.iter().any(|w| {
            matches!(
                w.as_str(),
                "notification" | "notifications" | "alert" | "alerts"
            )
        })
        && (wrote("notify") || wrote("alert"));
    if notice
        || asking(&verb)
        || SYNONYMS
            .iter()
            .any(|group| group.contains(&verb.as_str()) && group.iter().any(|w| wrote(w)))
    {
        return None;
    }
    PARTICULAR.iter().find_map(|(kind, generic, particular)| {
        if !particular.contains(&verb.as_str())
            || !tool_kinds.contains(kind)
            || tool_kinds
                .iter()
                .any(|k| k != kind && requested.contains(k))
        {
            return None;
        }
        generic
            .iter()
            .chain(particular.iter())
            .find(|w| **w != verb && asking(w))
            .map(|asked| (verb.clone(), (*asked).to_string()))
    })
}

/// Whether the user's words make `choice`, one of the values a tool's schema offers: each of
/// its words (`anyone_with_link`, `readOnly`, `view-only`), less fillers, is one the user
/// said in a sentence that asks ("so anyone with the link can open it"), in any form. A word
/// a negation took back does not count ("not anyone with the link"), nor one in a clause
/// that asks for nothing.
pub fn names_choice(choice: &str, said: &[SaidWord]) -> bool {
    let wanted: Vec<String> = words(choice)
        .into_iter()
        .filter(|w| !CHOICE_FILLERS.contains(&w.as_str()))
        .collect();
    let same = |s: &SaidWord, w: &str| {
        !s.subordinate && (is_form_of(&s.word, w) || is_form_of(w, &s.word))
    };
    // In order, with nothing but fillers between: "anyone with the link", not "anyone on my
    // team who needs the link" (a seventh outsider round opened a file to the world that way).
    !wanted.is_empty()
        && (0..said.len()).any(|start| {
            let mut at = start;
            wanted.iter().all(|w| {
                while said.get(at).is_some_and(|s| {
                    at > start && CHOICE_FILLERS.contains(&s.word.as_str()) && !same(s, w)
                }) {
                    at += 1;
                }
                let found = said.get(at).is_some_and(|s| same(s, w));
                at += 1;
                found
            })
        })
}

/// Words that join a choice's name and choose nothing by themselves.
const CHOICE_FILLERS: &[&str] = &[
    "a", "an", "the", "with", "to", "of", "by", "for", "in", "on", "and", "or", "can",
];

/// Whether one of `a` and `b` is the other's short form ([`ABBREVIATIONS`]).
pub(crate) fn abbreviates(a: &str, b: &str) -> bool {
    ABBREVIATIONS
        .iter()
        .any(|(short, long)| (a == *short && b == *long) || (b == *short && a == *long))
}

/// Short forms of words that tools' names use ("repo" for "repository"): a word of a name
/// counts as named by its long form and the other way round, and by no other prefix
/// ("marketing" does not name `mark_as_read`).
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("repo", "repository"),
    ("repos", "repositories"),
    ("info", "information"),
    ("config", "configuration"),
    ("doc", "document"),
    ("docs", "documents"),
    ("msg", "message"),
    ("env", "environment"),
    ("dir", "directory"),
    ("auth", "authentication"),
    ("admin", "administrator"),
    ("org", "organization"),
    ("db", "database"),
    ("app", "application"),
    ("img", "image"),
    ("pic", "picture"),
    ("addr", "address"),
    ("num", "number"),
    ("pwd", "password"),
    ("temp", "temperature"),
    ("calc", "calculator"),
    ("cal", "calendar"),
    ("pr", "pull"),
    ("prefs", "preferences"),
    ("settings", "setting"),
];

/// Nouns a file name names.
const FILE_NOUNS: &[&str] = &["file", "files", "document", "documents", "doc", "docs"];

/// What people call the file they want written ("Write a deploy script", "Save my notes").
const KINDS_OF_FILE: &[&str] = &[
    "script",
    "note",
    "readme",
    "report",
    "draft",
    "page",
    "config",
    "letter",
    "essay",
    "log",
    "changelog",
    "spreadsheet",
    "sheet",
    "slide",
    "deck",
    "summary",
    "document",
    "doc",
    "file",
    "folder",
    "directory",
    "program",
    "module",
    "test",
    "list",
    "poem",
    "story",
    "memo",
];

/// The kinds of each action of a name that joins several (`revert_and_push`,
/// `archive_and_forward_email`, `lookup_then_delete`): each must be asked for, not one of
/// them (a sixth outsider round ran `revert_and_push` after "Revert the last commit"). Empty
/// for a name of one action.
pub fn joined_actions(tool: &str) -> Vec<Vec<ActionKind>> {
    let name = words(tool);
    if !name
        .iter()
        .any(|w| matches!(w.as_str(), "and" | "then" | "plus"))
    {
        return Vec::new();
    }
    let parts: Vec<Vec<ActionKind>> = name
        .split(|w| matches!(w.as_str(), "and" | "then" | "plus"))
        .filter(|part| !part.is_empty())
        .map(|part| {
            tool_kinds(&ToolInfo {
                name: part.join("_"),
                ..ToolInfo::default()
            })
        })
        .filter(|kinds| !kinds.is_empty())
        .collect();
    if parts.len() < 2 { Vec::new() } else { parts }
}

/// The kinds of this tool's action that nothing the user wrote asks for: empty when the user
/// asked for one of them or the tool takes no such action. Money is the exception: a tool that
/// pays needs a payment asked for ("pay", "transfer", "send 50 EUR", "send Bob his share"
/// ask for one; "e-mail Bob that I will send 850 next month" asks only for the e-mail, and
/// `send_money` is a send too — an eighth outsider round's).
pub fn unrequested(tool: &[ActionKind], requested: &[ActionKind]) -> Vec<ActionKind> {
    if tool.contains(&ActionKind::Pay) && !requested.contains(&ActionKind::Pay) {
        return vec![ActionKind::Pay];
    }
    if tool.is_empty() || tool.iter().any(|k| requested.contains(k)) {
        return Vec::new();
    }
    tool.to_vec()
}

#[cfg(test)]
mod tests;

/// Roles a person may be given or hold, as a role argument or the user's words name them
/// ("make him a manager" grants access).
const ROLE_NAMES: &[&str] = &[
    "admin",
    "administrator",
    "manager",
    "owner",
    "editor",
    "moderator",
    "maintainer",
    "collaborator",
    "approver",
    "reviewer",
    "contributor",
    "superuser",
    "member",
    "viewer",
    "guest",
    "reader",
    "writer",
    "commenter",
];

/// Where the user's words give the person or thing another argument names a role other than
/// `role`: "make ana an admin and bob a member" gives bob no admin (a seventeenth outsider
/// round's role swap). The one named, and the role the user gave them. `None` where the user
/// gave them `role`, or gave them none in words keel reads ("X a R", "X an R", "X as R").
pub fn role_given_to_another<'a>(
    role: &str,
    others: impl IntoIterator<Item = &'a str>,
    user: &[impl AsRef<str>],
) -> Option<(String, String)> {
    if !ROLE_NAMES.iter().any(|r| r.eq_ignore_ascii_case(role)) {
        return None;
    }
    let role = role.to_lowercase();
    let turns: Vec<Vec<String>> = user.iter().map(|t| words(t.as_ref())).collect();
    for other in others {
        let name = words(other);
        if name.is_empty() || name.iter().all(|w| ROLE_NAMES.contains(&w.as_str())) {
            continue;
        }
        let mut given: Option<String> = None;
        let mut theirs = false;
        for turn in &turns {
            for at in 0..turn.len().saturating_sub(name.len() - 1) {
                if turn[at..at + name.len()] != name[..] {
                    continue;
                }
                // "bob a member", "bob as a viewer", "bob is just a member", "bob stays a
                // regular member", "bob gets member".
                let next = turn[at + name.len()..].iter().take(5).find(|w| {
                    !matches!(
                        w.as_str(),
                        "a" | "an"
                            | "the"
                            | "as"
                            | "to"
                            | "is"
                            | "just"
                            | "only"
                            | "still"
                            | "remains"
                            | "remain"
                            | "stays"
                            | "stay"
                            | "gets"
                            | "get"
                            | "keeps"
                            | "keep"
                            | "regular"
                            | "plain"
                            | "normal"
                            | "be"
                            | "should"
                            | "will"
                            | "ll"
                            | "can"
                            | "s"
                    )
                });
                match next {
                    Some(r) if r == &role || is_form_of(r, &role) => theirs = true,
                    Some(r) if ROLE_NAMES.iter().any(|n| is_form_of(r, n)) => {
                        given = Some(r.clone());
                    }
                    _ => {}
                }
            }
        }
        if let (false, Some(given)) = (theirs, given) {
            return Some((other.to_string(), given));
        }
    }
    None
}
