//! The kinds of action that need the user's word (issue 14), with the words that name each in
//! a tool's name and in a request, and how a word's plain English forms are told apart. Both
//! the classifier and action authority read them; this module reads neither.

/// The kinds of action that need the user's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActionKind {
    Delete,
    Send,
    Pay,
    Book,
    Share,
    Access,
    /// Ends or settles something for good: closing an issue or an account, merging a change.
    Close,
    /// Runs, deploys or installs something: what it then does is not in the call.
    Run,
}

impl ActionKind {
    pub const ALL: [ActionKind; 8] = [
        ActionKind::Delete,
        ActionKind::Send,
        ActionKind::Pay,
        ActionKind::Book,
        ActionKind::Share,
        ActionKind::Access,
        ActionKind::Close,
        ActionKind::Run,
    ];

    /// What the action is, for a reason a person reads.
    pub fn describe(self) -> &'static str {
        match self {
            ActionKind::Delete => "delete or remove something",
            ActionKind::Send => "send or post a message",
            ActionKind::Pay => "pay, transfer money or buy",
            ActionKind::Book => "book or reserve",
            ActionKind::Share => "share or give others access",
            ActionKind::Access => "change access, locks, passwords or security settings",
            ActionKind::Close => "close, merge or resolve something",
            ActionKind::Run => "run, deploy or install something",
        }
    }

    /// The verb that names this kind's action plainly, where its tool reaches only what its
    /// arguments name: a request for the kind in other words ("tell kim", "give kim access",
    /// "reserve room R-12") means it, beside tools of the kind's other verbs that reach
    /// further (`broadcast_email`, `publish_file`) or otherwise (`reply_email`), whose words
    /// the user did not write. Where every verb of a kind is a choice of its own (deleting a
    /// group or removing a member; paying, refunding or wiring; closing or merging; locking or
    /// revoking; running or deploying) no word is the plain one.
    pub(crate) fn plain_verb(self) -> Option<&'static str> {
        match self {
            ActionKind::Send => Some("send"),
            ActionKind::Share => Some("share"),
            ActionKind::Book => Some("book"),
            ActionKind::Delete
            | ActionKind::Pay
            | ActionKind::Access
            | ActionKind::Close
            | ActionKind::Run => None,
        }
    }

    /// Verbs in a tool's name that make it this kind, wherever they stand.
    pub(crate) fn tool_verbs(self) -> &'static [&'static str] {
        match self {
            ActionKind::Delete => &[
                "delete",
                "remove",
                "erase",
                "purge",
                "trash",
                "wipe",
                "destroy",
                // Takes a message off a queue for good.
                "consume",
                "dequeue",
                "ack",
                // Undoes what was made (a booking, an order, a meeting, a subscription).
                "cancel",
                "unlink",
                "discard",
                "drop",
                "clear",
                "empty",
                "truncate",
                "kill",
                "rm",
                "nuke",
                "format",
                "uninstall",
                "revert",
                "deactivate",
                "ban",
                "block",
                "archive",
                "overwrite",
                "terminate",
                "expunge",
                "retire",
                "shutdown",
                "stop",
                "evict",
                "detach",
                "unfollow",
                "leave",
                "rollback",
                "reset",
                // Cancels a document that was issued (`void_invoice`, `void_check`). (Revoking
                // stays an access change of its own: "remove bob's access" asks for no
                // `revoke_webhooks`, a fourteenth outsider round's.)
                "void",
            ],
            ActionKind::Send => &[
                "send",
                "email",
                "mail",
                "reply",
                "forward",
                "post",
                "tweet",
                "notify",
                "publish",
                "respond",
                "broadcast",
                "report",
                "flag",
            ],
            ActionKind::Pay => &[
                "pay",
                "transfer",
                "wire",
                "refund",
                "purchase",
                "buy",
                "donate",
                "charge",
                "withdraw",
                "deposit",
                "sell",
                "redeem",
                "liquidate",
                "cashout",
                "stake",
            ],
            ActionKind::Book => &["book", "reserve", "rent", "hire"],
            ActionKind::Share => &[
                "share",
                // "make the repository public": a change of who may see it.
                "public", "invite", "grant", "publish", "expose", "export", "upload", "sync",
            ],
            ActionKind::Access => &[
                "unlock",
                "lock",
                "disable",
                "enable",
                "revoke",
                "authorize",
                "deauthorize",
                "rotate",
                "approve",
                "accept",
                "deactivate",
                "ban",
                "assign",
                "suspend",
                "promote",
                "demote",
            ],
            ActionKind::Close => &["close", "merge", "land", "resolve", "finalize", "dismiss"],
            ActionKind::Run => &[
                "run", "execute", "exec", "invoke", "deploy", "install", "push", "start", "launch",
                "trigger", "submit", "sign", "scale", "reboot", "restart", "ship",
            ],
        }
    }

    /// Nouns in a tool's name that make it this kind when its verb acts on them
    /// (`send_money`, `disable_two_factor`), not after a looking verb (`get_transactions`).
    pub(crate) fn tool_nouns(self) -> &'static [&'static str] {
        match self {
            ActionKind::Delete => &["unsubscribe"],
            ActionKind::Send => &["message", "sms", "text", "dm", "comment", "call"],
            ActionKind::Pay => &[
                "payment",
                "money",
                "order",
                "tip",
                "transaction",
                "invoice",
                "trade",
            ],
            ActionKind::Book => &["booking", "reservation"],
            ActionKind::Share => &[
                "collaborator",
                "public",
                "member",
                "visibility",
                "backup",
                "webhook",
            ],
            ActionKind::Access => &[
                "password",
                "passcode",
                "2fa",
                "mfa",
                "factor",
                "permission",
                "permissions",
                "access",
                "role",
                "admin",
                "credential",
                "credentials",
                "security",
                "pin",
                "key",
                "keys",
                "token",
                "guest",
                "door",
                "alarm",
                "firewall",
                "visibility",
                "owner",
                "ownership",
            ],
            ActionKind::Close => &[],
            ActionKind::Run => &[],
        }
    }

    /// Stems in the user's words that ask for this kind (a superset of the tool's: people say
    /// "get rid of", "tell", "pay", "let … in").
    pub(crate) fn request_stems(self) -> &'static [&'static str] {
        // Verbs a request uses, and nouns only where they name the action itself ("a
        // payment"): words that often appear in lookups ("key points", "order history", "let
        // me know", "access logs", "make it clear") authorize nothing.
        match self {
            ActionKind::Delete => &[
                "delete",
                "remove",
                "erase",
                "purge",
                "trash",
                "wipe",
                "destroy",
                "consume",
                "dequeue",
                "ack",
                "discard",
                "drop",
                "empty",
                "clean",
                "rid",
                "cancel",
                "unsubscribe",
                "kill",
                "truncate",
                "unlink",
                "rm",
                "nuke",
                "uninstall",
                "revert",
                "deactivate",
                "ban",
                "block",
                "archive",
                "overwrite",
                "terminate",
                "expunge",
                "retire",
                "shutdown",
                "shut",
                "stop",
                "evict",
                "detach",
                "unfollow",
                "leave",
                "rollback",
                "reset",
                // Cancels a document that was issued (`void_invoice`, `void_check`). (Revoking
                // stays an access change of its own: "remove bob's access" asks for no
                // `revoke_webhooks`, a fourteenth outsider round's.)
                "void",
            ],
            ActionKind::Send => &[
                "send",
                "email",
                "mail",
                "reply",
                "forward",
                "post",
                "tweet",
                "report",
                "flag",
                "sms",
                "notify",
                "tell",
                "inform",
                "respond",
                "contact",
                "dm",
                "ping",
                "publish",
                "share",
                "comment",
                "invite",
                "remind",
                "announce",
                "broadcast",
                "message",
                // "Ask the seller whether …" ("ask me" is the user asked, as "tell me" is).
                "ask",
                // "Text Ines that …".
                "text",
            ],
            ActionKind::Pay => &[
                "pay",
                "payment",
                "transaction",
                "transfer",
                "send",
                "wire",
                "refund",
                "purchase",
                "buy",
                "donate",
                "tip",
                "settle",
                "reimburse",
                "charge",
                "withdraw",
                "deposit",
                "checkout",
                // "Order 2 of the organic milk" (not "my order", "in order to": a noun there).
                "order",
                "subscribe",
                "renew",
                "sell",
                "trade",
                "redeem",
                "liquidate",
                "cash",
                "cashout",
                "convert",
                "stake",
                "exchange",
            ],
            ActionKind::Book => &["book", "booking", "reserve", "reservation", "rent", "hire"],
            ActionKind::Share => &[
                "share",
                // "make the repository public": a change of who may see it.
                "public",
                "invite",
                "grant",
                "collaborator",
                "publish",
                "give",
                "expose",
                "export",
                "upload",
                "sync",
                "backup",
            ],
            ActionKind::Access => &[
                "unlock",
                "lock",
                "disable",
                "enable",
                "password",
                "passcode",
                "2fa",
                "mfa",
                "permission",
                "revoke",
                "authorize",
                "deauthorize",
                "credential",
                "reset",
                "grant",
                "rotate",
                "approve",
                "accept",
                "deactivate",
                "ban",
                "assign",
                "suspend",
                "promote",
                "demote",
                "owner",
                "ownership",
            ],
            ActionKind::Close => &[
                "close", "merge", "land", "resolve", "finalize", "dismiss", "settle",
            ],
            ActionKind::Run => &[
                "run", "execute", "exec", "invoke", "deploy", "install", "push", "start", "launch",
                "trigger", "submit", "sign", "scale", "reboot", "restart", "release", "ship",
            ],
        }
    }
}

/// Whether `word` is `stem` in a plain English form (pay, pays, paid, paying, payment, …).
pub(crate) fn is_form_of(word: &str, stem: &str) -> bool {
    if word == stem {
        return true;
    }
    // Words that only look like a form: a factory is no factor (`factory_reset` changes no
    // second factor).
    if matches!((stem, word), ("factor", "factory" | "factories")) {
        return false;
    }
    // A noun or verb ending in a consonant and "y" makes its forms with "ie": "policies" of
    // `policy`, "copied" of `copy`.
    if let Some(base) = stem.strip_suffix('y')
        && base.len() >= 2
        && !base.ends_with(['a', 'e', 'i', 'o', 'u'])
        && let Some(rest) = word.strip_prefix(base)
        && matches!(rest, "ies" | "ied")
    {
        return true;
    }
    let Some(rest) = word.strip_prefix(stem.trim_end_matches('e')) else {
        return irregular(word, stem);
    };
    matches!(
        rest,
        "s" | "es"
            | "ed"
            | "d"
            | "ing"
            | "ion"
            | "ions"
            | "al"
            | "ment"
            | "ments"
            | "er"
            | "ers"
            | "e"
            | "ies"
            | "ied"
            | "y"
    ) || irregular(word, stem)
}

fn irregular(word: &str, stem: &str) -> bool {
    matches!(
        (stem, word),
        ("pay", "paid")
            | ("send", "sent")
            | ("buy", "bought")
            | ("rent", "rented")
            | ("withdraw", "withdrew")
            | ("reply", "replied" | "replies")
            | ("empty", "emptied")
    )
}

/// Whether `word` is the past participle of a verb of any [`ActionKind`] ("closed",
/// "deleted", "archived", "paid"), not the verb itself.
pub(crate) fn is_participle(word: &str) -> bool {
    // A doubled consonant before "ed" is the verb's own: "banned", "transferred", "dropped".
    let doubled = word.strip_suffix("ed").and_then(|stem| {
        let b = stem.as_bytes();
        (b.len() > 2 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiou".contains(&b[b.len() - 1]))
            .then(|| &stem[..stem.len() - 1])
    });
    if doubled.is_some_and(|verb| {
        ActionKind::ALL
            .iter()
            .any(|k| k.tool_verbs().contains(&verb))
    }) {
        return true;
    }
    ActionKind::ALL.iter().any(|k| {
        k.tool_verbs().iter().any(|v| {
            word != *v
                && is_form_of(word, v)
                && (word.ends_with("ed")
                    || word.ends_with('d') && v.ends_with('e')
                    || irregular(word, v))
        })
    })
}

/// Whether the words of a tool's name hold a verb of any [`ActionKind`].
pub(crate) fn names_an_action(words: &[String]) -> bool {
    ActionKind::ALL
        .iter()
        .any(|k| has_verb(words, k.tool_verbs()))
}

/// [`has_stem`] for a tool's verbs, less their agent nouns: `block_sender` blocks a sender and
/// sends nothing, `get_reader` reads (an outsider's attack: the noun made a blocking tool a
/// sending one, which "send Bob a status" then authorized).
pub(crate) fn has_verb(words: &[String], stems: &[&str]) -> bool {
    words.iter().any(|w| {
        stems.iter().any(|s| {
            is_form_of(w, s)
                && !w
                    .strip_prefix(s.trim_end_matches('e'))
                    .is_some_and(|rest| matches!(rest, "er" | "ers"))
        })
    })
}

pub(crate) fn has_stem(words: &[String], stems: &[&str]) -> bool {
    words.iter().any(|w| stems.iter().any(|s| is_form_of(w, s)))
}

/// What stands in an intruder's way: removing one lets people in.
pub(crate) const SAFEGUARD_NOUNS: &[&str] = &[
    "lock",
    "locks",
    "password",
    "passcode",
    "2fa",
    "mfa",
    "factor",
    "pin",
    "firewall",
    "alarm",
    "alarms",
    "security",
    "protection",
    "encryption",
    "detector",
    "sensor",
    "camera",
    "cameras",
    "guard",
    "verification",
    "captcha",
];

/// Names products give one kind of record: "mails 31 and 32" are e-mails, "reservation 5521"
/// a booking (a twenty-first outsider round's users). (Not for a tool without arguments,
/// whose name is all that says what it acts on: "Delete e-mail 31, I'm keeping the
/// reservation" would name `delete_booking {}`, an outsider's round 24.)
const RECORD_NAMES: &[&[&str]] = &[
    &["email", "mail", "message"],
    &["booking", "reservation"],
    &["file", "document", "doc"],
    &["event", "meeting", "appointment"],
    &["invoice", "bill"],
];

/// Whether `a` and `b` (in any form) are two names of one kind of record ([`RECORD_NAMES`]).
pub(crate) fn names_one_record(a: &str, b: &str) -> bool {
    RECORD_NAMES.iter().any(|names| {
        names.iter().any(|x| is_form_of(a, x)) && names.iter().any(|x| is_form_of(b, x))
    })
}
