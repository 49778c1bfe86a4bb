//! Records the user names (issue 4's provenance): when a value from data is the user's choice.
//!
//! Provenance asks about every value that came from untrusted data. But users delegate
//! lookups: "refund DE44… for what they sent me", "the amount I usually pay for Acme Cloud".
//! The value the model then uses is one field of the record the user pointed at, and asking
//! about it asks the user to confirm what they just said. So a tainted value counts as the
//! user's when all of these hold:
//!
//! - it comes from the result of a tool that **declares structured output** (an MCP
//!   `outputSchema`, whose `structuredContent` keel then passes on as the result; a suite's
//!   `returns: list | dict`): the tool serialized the record, so the record's shape is the
//!   tool's, not whoever wrote its text. A file, a web page, a message body: their author
//!   decides the shape, so they have no records;
//! - that result is, as a whole, one JSON or YAML document (no aliases or tags, no duplicate
//!   keys, at most [`MAX_DEPTH`] deep and [`MAX_NODES`] nodes), and the value is **the whole
//!   value of one field of a top-level record** (the root mapping, an item of the root list,
//!   or an item of a list directly under the root mapping, as MCP wraps a list; other nested
//!   maps are free-form, so they are not records) **under the argument's own key**
//!   (`amount` for `amount`; case, `_` and `-` ignored): a number, a boolean, or a one-line
//!   string of at most [`MAX_FIELD_CHARS`]: a value, not a message;
//! - **the user's own words name that record** through *another* of its fields:
//!   - an identifier (at least [`MIN_IDENTIFIER_CHARS`] letters and digits, with a letter and
//!     a digit or `@`: an IBAN, an order number, an e-mail address) that is, in any case, a
//!     whole word the user typed, and that no other record holds anywhere, under any key, nor
//!     any other result or text without the value (a stranger's invoice holding the user's
//!     address under a key of its own names neither it nor the real one);
//!   - or a short label (at most [`MAX_LABEL_WORDS`] words, [`MAX_LABEL_CHARS`] characters)
//!     with a name: a word of letters, at least [`MIN_NAME_WORD_CHARS`] long, with a capital
//!     and a small letter, that the user wrote the same way, not at the start of a sentence
//!     (nor after a bullet, a dash or `1)`), and that occurs in no other record of the
//!     document, anywhere in it (nested, or in long text), nor outside the records, nor in
//!     another result or text without the value.
//!
//!   A label does not name its record where it also holds a word of the user's that another
//!   record holds ("Bob Lee from Finance" and a stranger's profile "Bob Lee Finance" beside
//!   the real Bob Lee's). Names and words are compared folded (`fold`): "Jose Muller" is "José
//!   Müller".
//! - or, for the record's own **identifier** only (an argument whose key ends in `id` or is
//!   `number`, naming no counterparty — it says which record the call acts on), in a call that
//!   moves no money, **the user's words describe that record alone**: its short fields
//!   (one-line strings of at most [`MAX_FIELD_CHARS`], and the keys of `true` flags) hold at
//!   least [`MIN_DESCRIBING_WORDS`] of the user's describing words and nothing else holds any
//!   — no other record of the result, wherever in it, no record of another result, no other
//!   text without the value ("archive my cancelled Paris train"). Where the words point at several
//!   records ("my Lisbon hotel booking" beside a flight to Lisbon and another hotel; "the
//!   Daily Brew newsletters"), a person picks: a record anyone may write (an invoice, a request,
//!   a file's description) can be made to hold every word of the user's, or every one the meant
//!   record lacks. An e-mail address or link the user wrote
//!   describes nothing. What a described record carries — an IBAN, an address, an amount —
//!   does not pass this way: a record anyone may write (an e-mail's subject) could hold the
//!   user's word and hand its payload over; acting on the record the user's words describe is
//!   what they asked for.
//!
//! Why injections stay out: an instruction hidden in data is text inside one field. What it
//! introduces is never the whole value of a field, so its IBAN, address or password still
//! asks. What this does trust: a field, under the argument's own key, of a record the user
//! named. An attacker who wrote a whole record through a structured tool (their own transfer
//! to you, their own invoice) chose its fields; they get one allowed only when the user's words
//! name that record: by a name the user uses, or by the user's identifier written into another
//! of its fields. A tool that declares structured output but splices untrusted text into it by
//! hand lets that text forge records; a malicious MCP server writes all of its records.
//! `named_records = false` in the provenance checker's config turns all of this off.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::Value;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// Longest string field that can stand for a value (an IBAN, a name, a date, a subject line).
pub const MAX_FIELD_CHARS: usize = 100;
/// Shortest identifier that names its record, in letters and digits.
pub const MIN_IDENTIFIER_CHARS: usize = 6;
/// At most this many words make a label that can name its record.
pub const MAX_LABEL_WORDS: usize = 4;
/// At most this many characters make a label that can name its record.
pub const MAX_LABEL_CHARS: usize = 40;
/// Shortest word of a label that can name its record.
pub const MIN_NAME_WORD_CHARS: usize = 4;
/// Fewest of the user's words a record must hold to be the one they describe.
pub const MIN_DESCRIBING_WORDS: usize = 2;
/// Texts longer than this are not read for records: a lookup result is small, and parsing is
/// on the gate's path.
pub const MAX_PARSED_BYTES: usize = 256 * 1024;
/// Documents nested deeper than this have no records.
pub const MAX_DEPTH: usize = 16;
/// Documents with more nodes (keys, values, collections) than this have no records.
pub const MAX_NODES: usize = 20_000;

/// One scalar field of a record. Integers stay exact: account numbers have 20 digits.
#[derive(Clone, Debug, PartialEq)]
enum Scalar {
    Str(String),
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// Largest integer an f64 holds exactly.
const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;

/// Whether `t` is written as an integer: `-?(0|[1-9][0-9]*)`.
fn integer_text(t: &str) -> bool {
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// Whether `t` is written as a decimal fraction: an integer, `.`, digits. Exponents, hex,
/// `_` separators, `.5` and `+5` stay strings: a serializer writes numbers plainly, and an ID
/// such as `1e2` is text.
fn fraction_text(t: &str) -> bool {
    t.split_once('.').is_some_and(|(int, frac)| {
        integer_text(int) && !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit())
    })
}

impl Scalar {
    /// An argument's value, as it compares with fields.
    fn of_argument(v: &Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(Scalar::Str(s.clone())),
            Value::Number(n) => Some(match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Scalar::Int(i.into()),
                (None, Some(u)) => Scalar::Int(u.into()),
                _ => Scalar::Float(n.as_f64()?),
            }),
            Value::Bool(b) => Some(Scalar::Bool(*b)),
            _ => None,
        }
    }

    /// A scalar of the document: quoted ones are strings; plain ones may be a number, a
    /// boolean or null (`None`), as JSON and YAML's core schema write them.
    fn of_document(text: String, style: TScalarStyle) -> Option<Self> {
        if style != TScalarStyle::Plain {
            return Some(Scalar::Str(text));
        }
        match text.as_str() {
            "~" | "null" | "Null" | "NULL" | "" => None,
            "true" | "True" | "TRUE" => Some(Scalar::Bool(true)),
            "false" | "False" | "FALSE" => Some(Scalar::Bool(false)),
            t if integer_text(t) => t.parse().ok().map(Scalar::Int),
            t if fraction_text(t) => t.parse().ok().map(Scalar::Float),
            _ => Some(Scalar::Str(text)),
        }
    }

    /// Whether it can stand for a value: a message (long, or several lines) cannot.
    fn is_value(&self) -> bool {
        match self {
            Scalar::Str(s) => s.chars().count() <= MAX_FIELD_CHARS && !s.contains(['\n', '\r']),
            Scalar::Float(f) => f.is_finite(),
            Scalar::Int(_) | Scalar::Bool(_) => true,
        }
    }

    /// Whether it equals an argument's value: strings exactly (ends trimmed), integers exactly,
    /// a fraction by value only where an f64 is exact.
    fn equals(&self, arg: &Scalar) -> bool {
        match (self, arg) {
            (Scalar::Str(a), Scalar::Str(b)) => a.trim() == b.trim(),
            (Scalar::Int(a), Scalar::Int(b)) => a == b,
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::Float(a), Scalar::Float(b)) => a == b && a.abs() < EXACT_IN_F64,
            (Scalar::Int(i), Scalar::Float(f)) | (Scalar::Float(f), Scalar::Int(i)) => {
                f.abs() < EXACT_IN_F64 && f.fract() == 0.0 && i128::from(*f as i64) == *i
            }
            _ => false,
        }
    }
}

/// A key as an argument name compares with it: `first_name`, `firstName` and `First-Name`
/// are one key.
fn folded_key(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A top-level mapping's scalar fields, by folded key.
type Record = Vec<(String, Scalar)>;

/// A collection open while events are read.
struct Open {
    /// `Some` for a mapping, with the keys seen (after folding: two keys that fold alike are
    /// a duplicate) and the key whose value comes next.
    mapping: Option<(HashSet<String>, Option<String>)>,
    /// The fields collected, for a top-level record.
    record: Option<Record>,
}

/// What a document holds: its top-level records, and the names (see [`is_name_word`]) that
/// occur anywhere in each of them, nested and long strings included, and outside them.
#[derive(Debug, Default)]
struct Parsed {
    records: Vec<Record>,
    names: Vec<HashSet<String>>,
    /// Each record's every string, nested and long ones too, folded ([`fold`]) and joined by
    /// line breaks: what another record holds, wherever it holds it.
    texts: Vec<String>,
    outside: HashSet<String>,
}

/// The top-level records of `text`, read from parser events (JSON is read as the YAML it
/// also is): nothing recurses, no alias is expanded, and any of these gives no records at all:
/// a second document, an alias, a tag, a key that is not a string, a duplicate or empty key,
/// or a bound passed. Top-level: the root mapping, a mapping that is an item of the root list,
/// or an item of a list directly under the root mapping (`{"result": [...]}`, as MCP wraps a
/// list). Other nested maps are free-form data, not records.
fn parse(text: &str) -> Parsed {
    if text.len() > MAX_PARSED_BYTES {
        return Parsed::default();
    }
    read_records(text).unwrap_or_default()
}

fn read_records(text: &str) -> Option<Parsed> {
    let mut parser = Parser::new_from_str(text);
    let mut out = Parsed::default();
    let mut stack: Vec<Open> = Vec::new();
    let (mut documents, mut nodes) = (0, 0usize);
    // The names of each top-level record being read, innermost last: an item of a wrapped
    // list is read inside the root record.
    let mut open_names: Vec<HashSet<String>> = Vec::new();
    let mut open_texts: Vec<String> = Vec::new();
    loop {
        let (event, _) = parser.next_token().ok()?;
        let opens = matches!(event, Event::MappingStart(..) | Event::SequenceStart(..));
        let is_mapping = matches!(event, Event::MappingStart(..));
        if matches!(event, Event::Scalar(..)) || opens {
            nodes += 1;
            if nodes > MAX_NODES {
                return None;
            }
        }
        match event {
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
            }
            Event::Alias(_) => return None,
            Event::Scalar(value, style, _, tag) => {
                if tag.is_some() {
                    return None;
                }
                let top = stack.last_mut()?;
                match &mut top.mapping {
                    Some((seen, next @ None)) => {
                        // `1`, `true` and `null` as plain keys are not strings.
                        let is_string = style != TScalarStyle::Plain
                            || matches!(
                                Scalar::of_document(value.clone(), style),
                                Some(Scalar::Str(_))
                            );
                        let key = folded_key(&value);
                        if !is_string || key.is_empty() || !seen.insert(key.clone()) {
                            return None;
                        }
                        *next = Some(key);
                        continue;
                    }
                    Some((_, next)) => {
                        let key = next.take().unwrap_or_default();
                        note_names(&value, open_names.last_mut().unwrap_or(&mut out.outside));
                        note_text(&value, open_texts.last_mut());
                        if let (Some(record), Some(v)) =
                            (top.record.as_mut(), Scalar::of_document(value, style))
                        {
                            record.push((key, v));
                        }
                    }
                    None => {
                        note_names(&value, open_names.last_mut().unwrap_or(&mut out.outside));
                        note_text(&value, open_texts.last_mut());
                    }
                }
            }
            Event::MappingStart(_, tag) | Event::SequenceStart(_, tag) => {
                if tag.is_some() {
                    return None;
                }
                if let Some(top) = stack.last_mut() {
                    match &mut top.mapping {
                        // A key that is a collection.
                        Some((_, None)) => return None,
                        Some((_, next)) => *next = None,
                        None => {}
                    }
                }
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                let top_level = is_mapping
                    && match stack.as_slice() {
                        [] => true,
                        [root] => root.mapping.is_none(),
                        [root, list] => root.mapping.is_some() && list.mapping.is_none(),
                        _ => false,
                    };
                if top_level {
                    open_names.push(HashSet::new());
                    open_texts.push(String::new());
                }
                stack.push(Open {
                    mapping: is_mapping.then(|| (HashSet::new(), None)),
                    record: top_level.then(Vec::new),
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(record) = stack.pop()?.record {
                    out.records.push(record);
                    out.names.push(open_names.pop().unwrap_or_default());
                    out.texts.push(open_texts.pop().unwrap_or_default());
                }
            }
        }
    }
    (documents == 1).then_some(out)
}

/// Adds the names `text` holds, wherever they stand in it, without their accents ("José" is
/// "Jose" to a reader comparing names).
fn note_names(text: &str, names: &mut HashSet<String>) {
    names.extend(
        text.split_whitespace()
            .map(bare)
            .map(unaccented)
            .filter(|w| is_name_word(w))
            .map(Cow::into_owned),
    );
}

/// Adds `text`, folded, to the text of the record being read (none outside a record).
fn note_text(text: &str, record: Option<&mut String>) {
    if let Some(record) = record {
        record.push_str(&fold(text));
        record.push('\n');
    }
}

/// `text` as a reader compares words: in Latin letters without accents (`Søren Kjær` is
/// `Soren Kjaer`, `Łukasz` `Lukasz`, `Иван` `Ivan`, fullwidth `ＧＲＡＮＤ` `GRAND`), without
/// invisible characters, in lower case; a German umlaut also written out (`Jörg Müller` is
/// `joerg mueller` too). An attacker's "Soren Kjaer" and the user's "Søren Kjær" are one name
/// to the user (an outsider's rounds 29 and 30).
pub(crate) fn fold(text: &str) -> String {
    let mut folded = unaccented(text).to_lowercase();
    if text.contains(['ä', 'ö', 'ü', 'Ä', 'Ö', 'Ü']) {
        let written_out: String = text
            .chars()
            .map(|c| match c {
                'ä' | 'Ä' => "ae".to_string(),
                'ö' | 'Ö' => "oe".to_string(),
                'ü' | 'Ü' => "ue".to_string(),
                c => c.to_string(),
            })
            .collect();
        folded.push('\n');
        folded.push_str(&unaccented(&written_out).to_lowercase());
    }
    folded
}

/// [`fold`] without the lower case or the umlauts written out.
fn unaccented(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let visible: String = text
        .chars()
        .filter(|&c| !keel_core::text::is_default_ignorable(c))
        .collect();
    Cow::Owned(deunicode::deunicode_with_tofu(&visible, ""))
}

/// Trims the punctuation a word carries in prose: `"Spotify,"`, `(DE44…)`.
fn bare(word: &str) -> &str {
    word.trim_matches(|c: char| c.is_ascii_punctuation() && c != '@')
}

/// The top-level records provenance reads out of a structured tool result `text` (see
/// [`parse`]): each record's scalar fields in order, by folded key, a string field's value as
/// `Some` and any other scalar as `None`. Public so the fuzz target (fuzz/) can hold the
/// reading to serde_json's reading of the same JSON.
pub fn record_fields(text: &str) -> Vec<Vec<(String, Option<String>)>> {
    parse(text)
        .records
        .into_iter()
        .map(|record| {
            record
                .into_iter()
                .map(|(key, field)| match field {
                    Scalar::Str(s) => (key, Some(s)),
                    _ => (key, None),
                })
                .collect()
        })
        .collect()
}

/// Whether `value`, given for the argument `arg_key`, is a field of a record of the
/// structured result `text` that the `users`' words name, and how: the named-record reading
/// of one result that provenance does (it keeps the parsed documents of a decision instead).
/// Public for the fuzz target (fuzz/).
pub fn named_field_in(text: &str, users: &[&str], arg_key: &str, value: &Value) -> Option<String> {
    let users: Vec<Cow<'_, str>> = users.iter().map(|u| Cow::Borrowed(*u)).collect();
    Document::parse(text)
        .named_field(arg_key, value, &UserTerms::of(&users), true)
        .map(|named| named.how)
}

/// How a record's field came to be the user's ([`Document::named_field`]).
#[derive(Debug)]
pub(super) struct Named {
    /// Said in the reason.
    pub how: String,
    /// The name word a label named the record by, if one did.
    pub name: Option<String>,
    /// The identifier the user typed that named the record, if one did.
    pub identifier: Option<String>,
    /// Whether the user's words only described the record (its own identifier): another
    /// result's record those words also describe makes it no longer theirs alone.
    pub described: bool,
}

/// Whether `text` holds any of the user's describing words, in any spelling [`fold`] reads as
/// the same.
pub(super) fn holds_users_words(text: &str, terms: &UserTerms) -> bool {
    describing_words(text).any(|w| terms.describing.contains(&w))
}

/// What of the user's turns can name a record, gathered once per decision.
#[derive(Debug, Default)]
pub(super) struct UserTerms {
    /// Every whole word the user typed, case folded.
    words: HashSet<String>,
    /// Name-like words the user wrote capitalized, not at the start of a sentence, as written.
    names: HashSet<String>,
    /// Each name word the user wrote beside another ("Priya Raman"), with the whole name's
    /// words: a label names the person only where it holds all of them.
    full_names: HashMap<String, Vec<String>>,
    /// The words that can describe a record: runs of letters and digits, case folded, of 3 or
    /// more chars or with a digit, less function words, and less the parts of addresses and
    /// links (an e-mail address the user sends to describes no record).
    describing: HashSet<String>,
}

impl UserTerms {
    pub(super) fn of(users: &[Cow<'_, str>]) -> Self {
        let mut terms = Self::default();
        for text in users {
            for line in text.lines() {
                let mut sentence_start = true;
                // Runs of capitalized name words, in order and not opening a sentence: a
                // person's whole name ("Give Priya Raman access" names Priya Raman).
                let mut run: Vec<String> = Vec::new();
                let close_run = |run: &mut Vec<String>, terms: &mut Self| {
                    if run.len() > 1 {
                        for w in run.iter() {
                            terms
                                .full_names
                                .entry(w.clone())
                                .or_insert_with(|| run.clone());
                        }
                    }
                    run.clear();
                };
                for raw in line.split_whitespace() {
                    if !raw.contains('@') && !raw.contains("://") {
                        terms.describing.extend(
                            describing_words(raw).filter(|w| !FUNCTION_WORDS.contains(&w.as_str())),
                        );
                    }
                    // (Names without their accents, as a record's are read: [`note_names`].)
                    let word = unaccented(bare(raw));
                    let word = word.as_ref();
                    let capitalized = word.chars().next().is_some_and(char::is_uppercase);
                    if !sentence_start && is_name_word(word) && capitalized {
                        run.push(word.to_string());
                        if raw.ends_with(|c: char| c.is_ascii_punctuation() && c != '\'') {
                            close_run(&mut run, &mut terms);
                        }
                    } else {
                        close_run(&mut run, &mut terms);
                    }
                    if !word.is_empty() {
                        terms.words.insert(word.to_lowercase());
                        if !sentence_start && is_name_word(word) {
                            terms.names.insert(word.to_string());
                        }
                    }
                    // A sentence starts after its end (a closing quote or bracket may follow
                    // the stop) and after a token that is no word: a bullet, a dash, `1)`.
                    let end = raw.trim_end_matches(|c: char| ")]}\"'\u{2019}\u{201d}".contains(c));
                    sentence_start = end.ends_with(['.', '!', '?', ':', ';'])
                        || !raw.chars().any(char::is_alphabetic);
                }
                close_run(&mut run, &mut terms);
            }
        }
        terms
    }
}

/// Whether an argument's key names an identifier — `id`, `booking_id`, `emailIds`, `number`,
/// `pr_number`, `ref` — which selects the thing a call acts on.
pub fn is_identifier_key(key: &str) -> bool {
    let identifier = |w: &str| {
        matches!(
            w,
            "id" | "ids" | "uid" | "uuid" | "number" | "num" | "no" | "ref" | "index" | "idx"
        )
    };
    // Every key of every side-effecting call is asked: a key in lower-case ASCII (`path`,
    // `hotel_id`) has its last word after its last separator, read without allocating.
    let plain = key
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-'));
    if plain {
        return key
            .split(['_', '-'])
            .rfind(|w| !w.is_empty())
            .is_some_and(identifier);
    }
    super::classify::words(key)
        .last()
        .is_some_and(|w| identifier(w))
}

/// Words of a key that name who a call reaches rather than which record it acts on.
const COUNTERPARTY: &[&str] = &[
    "account",
    "phone",
    "card",
    "recipient",
    "sender",
    "user",
    "owner",
    "payee",
    "payer",
    "contact",
    "member",
    "customer",
    "person",
    "author",
    "assignee",
    "beneficiary",
    "to",
    "from",
    "iban",
    "target",
    "destination",
];

/// Whether an argument's key names who a call reaches: a recipient, an account, a handle, an
/// address (`to`, `recipient`, `iban`, `email`, `handle`, `cc`). In an action, such a value
/// that neither the user nor any result has shown is one the model made up or decoded from
/// something no search reads (an outsider's attack: an address split across a wrapped line).
pub fn is_counterparty_key(key: &str) -> bool {
    const REACHED: &[&str] = &[
        "email",
        "emails",
        "cc",
        "bcc",
        "handle",
        "username",
        "recipients",
        "participants",
        "attendees",
        "invitees",
        "address",
        "number",
        "phone",
        "account",
        "dest",
        "dst",
        "people",
        "channel",
        "channels",
        "audience",
        "members",
        "grantee",
        "grantees",
        "who",
        "principal",
        "addressee",
        "receiver",
        "receivers",
        "counterparty",
        "reviewer",
        "reviewers",
        "mention",
        "mentions",
        "chat",
        "room",
        "group",
        "alias",
        "mailbox",
        "sms",
        "list",
        "with",
        "notify",
        "users",
        "contacts",
        "assignees",
        "followers",
        "subscribers",
        "webhook",
        "callback",
        "endpoint",
        "url",
        "host",
    ];
    super::classify::words(key)
        .iter()
        .any(|w| COUNTERPARTY.contains(&w.as_str()) || REACHED.contains(&w.as_str()))
}

/// Whether an argument's key is a record's own identifier — `id`, `email_id`, `booking_id`,
/// `number` (a pull request's, an issue's) — which says which record a call acts on, and not
/// a counterparty the call reaches (`account_number`, `phone_number`, `recipient_id`,
/// `user_id`): only those may pass because the user's words describe their record.
fn is_record_key(key: &str) -> bool {
    let words = super::classify::words(key);
    let last_is_id = words
        .last()
        .is_some_and(|w| matches!(w.as_str(), "id" | "ids" | "uid" | "uuid"));
    (last_is_id || words == ["number"]) && !words.iter().any(|w| COUNTERPARTY.contains(&w.as_str()))
}

/// Words that say how, not what: they describe no record.
const FUNCTION_WORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "that", "this", "these", "those", "all", "any", "my",
    "our", "your", "their", "its", "into", "onto", "about", "are", "was", "were", "been", "them",
    "they", "his", "her", "not", "yes", "please", "then", "than", "when", "which", "who", "what",
    "where", "why", "how", "one", "can", "will", "would", "should", "could", "does", "did", "has",
    "have", "had", "there", "here", "out", "off", "over", "just", "also", "only", "some", "each",
    "every", "both", "but", "too", "very", "make", "sure", "let", "know", "need", "want", "get",
    "got", "use", "like", "same",
];

/// The describing words of one token or field: runs of letters and digits, case folded, of
/// 3 or more chars or with a digit.
fn describing_words(text: &str) -> impl Iterator<Item = String> + '_ {
    let folded = fold(text);
    let mut words: Vec<String> = Vec::new();
    for token in folded.split_whitespace() {
        let parts: Vec<&str> = token
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let describes = |w: &str| w.chars().count() >= 3 || w.chars().any(|c| c.is_ascii_digit());
        words.extend(
            parts
                .iter()
                .filter(|w| describes(w))
                .map(|w| (*w).to_string()),
        );
        // A word written in parts is also the word joined: "North-Wind" is "northwind".
        if parts.len() > 1 {
            let joined: String = parts.concat();
            if describes(&joined) {
                words.push(joined);
            }
        }
    }
    words.into_iter()
}

/// The words a record's field offers a description: a one-line string of at most
/// [`MAX_FIELD_CHARS`] (a name, a title, a status; not a message, which anyone may write), or
/// a `true` flag's key (`merged: true` is a merged one).
fn field_words(key: &str, field: &Scalar) -> Vec<String> {
    match field {
        Scalar::Str(s) if s.chars().count() <= MAX_FIELD_CHARS && !s.contains('\n') => {
            describing_words(s).collect()
        }
        Scalar::Bool(true) => vec![key.to_string()],
        _ => Vec::new(),
    }
}

/// Whether `s` identifies something: long enough, with a letter and a digit or `@` (an IBAN,
/// an order number, an address). Plain words do not, nor do dates and amounts.
fn is_identifier(s: &str) -> bool {
    s.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_IDENTIFIER_CHARS
        && s.chars().any(char::is_alphabetic)
        && s.chars().any(|c| c.is_ascii_digit() || c == '@')
        && !s.contains(char::is_whitespace)
}

/// A name-like word: letters only (an identifier names by the other rule), long enough, with a
/// capital and a small letter: `Acme`, `iPhone`; not `IBAN` or `URGENT`.
fn is_name_word(w: &str) -> bool {
    w.chars().count() >= MIN_NAME_WORD_CHARS
        && w.chars().all(char::is_alphabetic)
        && w.chars().any(char::is_uppercase)
        && w.chars().any(char::is_lowercase)
}

/// The names in a label: a message is not a label, and an address or URL is not a name.
fn label_names(s: &str) -> impl Iterator<Item = &str> {
    let is_label =
        s.chars().count() <= MAX_LABEL_CHARS && s.split_whitespace().count() <= MAX_LABEL_WORDS;
    s.split_whitespace()
        .filter(move |_| is_label)
        .map(bare)
        .filter(|w| is_name_word(w))
}

/// One parsed result: its records, how often each identifier occurs under each key of them,
/// and in how many records (the outside counting as one more) each name occurs anywhere. A
/// reference picks out one record, so what two records share names neither.
#[derive(Debug, Default)]
pub(super) struct Document {
    records: Vec<Record>,
    identifiers: HashMap<(String, String), usize>,
    names: HashMap<String, usize>,
    /// Each record's every string, folded ([`Parsed::texts`]).
    texts: Vec<String>,
    /// The describing words of each record's every string: what points at it. Made when
    /// first asked for: only a reading by description or by a label needs them.
    words: std::cell::OnceCell<Vec<HashSet<String>>>,
}

impl Document {
    pub(super) fn parse(text: &str) -> Self {
        let parsed = parse(text);
        let mut identifiers = HashMap::new();
        for record in &parsed.records {
            for (key, field) in record {
                let Scalar::Str(s) = field else { continue };
                let s = s.trim();
                if is_identifier(s) {
                    *identifiers
                        .entry((key.clone(), s.to_lowercase()))
                        .or_default() += 1;
                }
            }
        }
        let mut names: HashMap<String, usize> = HashMap::new();
        for set in parsed.names.iter().chain(std::iter::once(&parsed.outside)) {
            for name in set {
                *names.entry(name.clone()).or_default() += 1;
            }
        }
        Self {
            records: parsed.records,
            identifiers,
            names,
            texts: parsed.texts,
            words: std::cell::OnceCell::new(),
        }
    }

    /// Whether the text was read as records at all.
    pub(super) fn has_records(&self) -> bool {
        !self.records.is_empty()
    }

    /// [`Self::words`], made on first use.
    fn words(&self) -> &[HashSet<String>] {
        self.words.get_or_init(|| {
            self.texts
                .iter()
                .map(|text| describing_words(text).collect())
                .collect()
        })
    }

    /// Whether a record other than `record` holds `folded` anywhere in its text: an identifier
    /// the user typed that a stranger's record repeats (`memo: "Re: INV-7781"`, a status line
    /// that is the user's address) points at that record too (an outsider's round 29).
    fn text_elsewhere(&self, record: &Record, folded: &str) -> bool {
        self.records
            .iter()
            .zip(&self.texts)
            .any(|(other, text)| !std::ptr::eq(other, record) && text.contains(folded))
    }

    /// Whether a record other than the one at `index` holds any of the user's describing
    /// words, anywhere in it (nested, in long text, its own identifier).
    fn another_holds_users_words(&self, index: usize, terms: &UserTerms) -> bool {
        self.words().iter().enumerate().any(|(other, words)| {
            other != index && words.iter().any(|w| terms.describing.contains(w))
        })
    }

    /// How the user's words name `record` through a field other than `skip`, if they do.
    /// The name word, where a label names it (the second part).
    fn named_by(
        &self,
        record: &Record,
        skip: usize,
        terms: &UserTerms,
    ) -> Option<(String, Option<String>, usize, Option<String>)> {
        for (at, (key, field)) in record.iter().enumerate() {
            let Scalar::Str(s) = field else { continue };
            if at == skip {
                continue;
            }
            let s = s.trim();
            let folded = s.to_lowercase();
            if is_identifier(s)
                && terms.words.contains(&folded)
                && self.identifiers.get(&(key.clone(), folded.clone())) == Some(&1)
                // Under a key that says who or which it is (a transfer's `sender`, a member's
                // `email`, an order's number) the identifier is the record's own; under any
                // other (a status line, a display name, a memo: whatever its author wrote) only
                // where no other record holds it anywhere — a stranger's profile whose status is
                // the user's address, an invoice whose memo repeats the number the user typed
                // (an outsider's round 29).
                && !self.text_elsewhere(record, fold(s).trim_start_matches(['@', '#']))
            {
                return Some((
                    format!("its {key} {s:?}, which the user typed"),
                    None,
                    at,
                    Some(s.to_string()),
                ));
            }
            // Every word of the whole name the user wrote: "Priya Shah", "Dr. Raman" or a
            // "Priya" alone name no "Priya Raman" (a fourteenth outsider round's look-alikes).
            // (Names are compared without accents, as they were counted: [`note_names`].)
            let plain = unaccented(s);
            let whole_name = |w: &str| {
                terms.full_names.get(w).is_none_or(|all| {
                    all.iter()
                        .all(|part| label_names(&plain).any(|l| l == part.as_str()))
                })
            };
            let name = label_names(&plain).find(|w| {
                terms.names.contains(*w) && self.names.get(*w) == Some(&1) && whole_name(w)
            });
            if let Some(name) = name {
                return Some((
                    format!("its {key} {s:?}, whose {name:?} the user wrote"),
                    Some(name.to_string()),
                    at,
                    None,
                ));
            }
        }
        None
    }

    /// The numbers the document's records hold under `arg_key` (case, `_` and `-` ignored):
    /// the figures a record keeps ("amount: 1000.0" of a transaction), which the user's own
    /// arithmetic may start from ([`super::amounts`]).
    pub(super) fn figures(&self, arg_key: &str) -> Vec<f64> {
        let arg_key = folded_key(arg_key);
        self.records
            .iter()
            .flat_map(|record| record.iter())
            .filter(|(key, _)| *key == arg_key)
            .filter_map(|(_, field)| match field {
                Scalar::Int(i) => Some(*i as f64),
                Scalar::Float(f) if f.is_finite() => Some(*f),
                _ => None,
            })
            .collect()
    }

    /// Whether `value`, given for an argument named `arg_key`, is that field of a record the
    /// user's words name; and how they name it.
    ///
    /// `by_description` allows the weaker reading (a record the user's words describe) at all;
    /// provenance allows it only where no money moves. The second part is the name word the
    /// record was named by, where a label named it.
    pub(super) fn named_field(
        &self,
        arg_key: &str,
        value: &Value,
        terms: &UserTerms,
        by_description: bool,
    ) -> Option<Named> {
        let identifier = by_description && is_record_key(arg_key);
        let arg_key = folded_key(arg_key);
        let value = Scalar::of_argument(value)?;
        let mut scores: Option<Vec<Vec<&str>>> = None;
        self.records.iter().enumerate().find_map(|(index, record)| {
            let at = record.iter().position(|(key, field)| {
                *key == arg_key && field.is_value() && field.equals(&value)
            })?;
            if let Some((how, name, by, identifier)) = self.named_by(record, at, terms) {
                // A label that also holds words of the user's that another record holds: the
                // user's words point at that record too ("Bob Lee from Finance" names both a
                // "Bob Lee" and the "Bob Lee Finance" a stranger called themself, which alone
                // holds "Finance", an outsider's round 28; "the Hotel Bristol Central" both
                // "Bristol Central" and a "Bristol Central Hotel Suites", round 29).
                if name.is_some() && self.label_points_elsewhere(record, by, index, terms) {
                    return None;
                }
                return Some(Named {
                    how: format!("field {arg_key} of a record the user named by {how}"),
                    name,
                    identifier,
                    described: false,
                });
            }
            // Only the record's own identifier passes by description: it says which record is
            // acted on. What a record carries to the call — an IBAN, an address, an amount —
            // passes only when the user named the record (above): a record anyone may write
            // (an e-mail's subject, an incoming transfer's) could otherwise hold the user's
            // word and hand its payload over.
            if !identifier {
                return None;
            }
            let scores = scores.get_or_insert_with(|| self.describing(&arg_key, terms));
            let mine = &scores[index];
            // One word is too little: a word most records share ("inbox"), or one a search the
            // injection steered put into a record ("project"), would pick a record. And the
            // user's words must describe this record alone: no other record of the result
            // holds any of them. A record anyone may write (an invoice, a request, a pull
            // request, a file's description) can hold every word of the user's, or every one
            // the record they meant lacks; the record they meant holds some of them, and then
            // the words point at both (an outsider's round 28: a "Northwind March hosting
            // invoice" from "Nortwind" was approved, a master file whose description a
            // collaborator edited to "duplicate" was deleted). Where the words point at more
            // than one record, which one is meant is a person's call.
            // (Another record's words count wherever it holds them — nested, in long text,
            // its own identifier — and in any spelling a reader takes for the same word: the
            // real invoice's vendor nested as `{name: …}`, its number the user typed, "José"
            // for "Jose", an outsider's round 29.)
            let alone = !self.another_holds_users_words(index, terms);
            let described = alone && mine.len() >= MIN_DESCRIBING_WORDS;
            described.then(|| Named {
                how: format!(
                    "field {arg_key} of the record the user's words describe best ({})",
                    mine.iter()
                        .map(|w| format!("\"{w}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                name: None,
                identifier: None,
                described: true,
            })
        })
    }

    /// Whether a record of this document that does not hold `value` (another record than the
    /// one described in another result) holds, anywhere in it, any of the user's describing
    /// words: the words that describe the record another result holds describe this one too,
    /// whatever key its identifier has.
    pub(super) fn describes_another(&self, value: &Value, terms: &UserTerms) -> bool {
        (0..self.records.len()).any(|index| {
            !self.holds_value(index, value)
                && self.words()[index]
                    .iter()
                    .any(|w| terms.describing.contains(w))
        })
    }

    /// Whether a record of this document that a label names `name` does not hold `value`:
    /// another person or thing of that name, whose address, account or id the named one's may
    /// not be taken for.
    pub(super) fn names_another_value(&self, name: &str, value: &Value) -> bool {
        let name = fold(name);
        (0..self.records.len()).any(|index| {
            // Named anywhere in it (a map by id nests the whole record under its key), and
            // whatever key its own identifier has: the real invoice found by a vendor search
            // as `id`, the look-alike listed as `invoice_id` (an outsider's rounds 29 and 30).
            self.words()[index].contains(&name) && !self.holds_value(index, value)
        })
    }

    /// Whether a record that does not hold `value` holds `identifier` anywhere in its text.
    pub(super) fn holds_elsewhere(&self, identifier: &str, value: &Value) -> bool {
        let identifier = fold(identifier);
        let identifier = identifier.trim_start_matches(['@', '#']);
        (0..self.records.len())
            .any(|index| self.texts[index].contains(identifier) && !self.holds_value(index, value))
    }

    /// Whether the record at `index` holds `value`: as a field's whole value, or, a string of
    /// three or more characters, anywhere in its text (a key of a map by id).
    fn holds_value(&self, index: usize, value: &Value) -> bool {
        let as_field = Scalar::of_argument(value).is_some_and(|v| {
            self.records[index]
                .iter()
                .any(|(_, field)| field.equals(&v))
        });
        let as_text = value
            .as_str()
            .is_some_and(|v| v.chars().count() >= 3 && self.texts[index].contains(fold(v).trim()));
        as_field || as_text
    }

    /// Whether the label at `field` of `record` (the record at `index`) holds a describing
    /// word of the user's that another record holds too, anywhere in it.
    fn label_points_elsewhere(
        &self,
        record: &Record,
        field: usize,
        index: usize,
        terms: &UserTerms,
    ) -> bool {
        let Some((key, label)) = record.get(field) else {
            return false;
        };
        field_words(key, label)
            .iter()
            .filter(|w| terms.describing.contains(*w))
            .any(|w| {
                self.words()
                    .iter()
                    .enumerate()
                    .any(|(other, words)| other != index && words.contains(w))
            })
    }

    /// For each record, the user's describing words that its fields other than `arg_key`
    /// hold (see [`field_words`]), in the order the fields give them.
    ///
    /// A delegated lookup names its record by what it is — "cancel my Lisbon hotel booking",
    /// "archive my cancelled bookings", "delete the Daily Brew newsletters" — rather than by a
    /// name written the same way. The record(s) whose fields hold the most of the user's words
    /// are the ones meant: when some other record holds fewer, or, where the words do not tell
    /// records apart, when they hold at least [`MIN_DESCRIBING_WORDS`]. An id an injection
    /// picks is another record's, which the user's words describe less (or it asks); a record
    /// is described only by its short fields, never by a message's text, which an attacker
    /// may write.
    fn describing<'t>(&self, arg_key: &str, terms: &'t UserTerms) -> Vec<Vec<&'t str>> {
        self.records
            .iter()
            .map(|record| {
                let mut held: Vec<&'t str> = Vec::new();
                for (key, field) in record {
                    if key == arg_key {
                        continue;
                    }
                    for word in field_words(key, field) {
                        if let Some(w) = terms.describing.get(&word)
                            && !held.contains(&w.as_str())
                        {
                            held.push(w.as_str());
                        }
                    }
                }
                held
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
