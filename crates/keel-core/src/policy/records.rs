//! Records the user names (issue 4's provenance): when a value from data is the user's choice.
//!
//! Provenance asks about every value that came from untrusted data. But users delegate
//! lookups: "refund DE44… for what they sent me", "the amount I usually pay for Acme Cloud".
//! The value the model then uses is one field of the record the user pointed at, and asking
//! about it asks the user to confirm what they just said. So a tainted value counts as the
//! user's when all of these hold:
//!
//! - it comes from the result of a tool that **declares structured output** (an MCP
//!   `outputSchema`, a suite's `returns: list | dict`): the tool serialized the record, so the
//!   record's shape is the tool's, not whoever wrote its text. A file, a web page, a message
//!   body: their author decides the shape, so they have no records;
//! - that result is, as a whole, one JSON or YAML document (no aliases, at most
//!   [`MAX_DEPTH`] deep, [`MAX_NODES`] nodes), and the value is **the whole value of one
//!   field** of a mapping in it, under **the argument's own key** (`amount` for `amount`;
//!   case, `_` and `-` ignored), a number, a boolean, or a one-line string of at most
//!   [`MAX_FIELD_CHARS`]: a value, not a message;
//! - **the user's own words name that record** through *another* of its fields: an
//!   identifier the user typed (at least [`MIN_IDENTIFIER_CHARS`] characters with a digit or
//!   `@`, such as an IBAN, an order number or an address), or a short label (at most
//!   [`MAX_LABEL_WORDS`] words, [`MAX_LABEL_CHARS`] characters) with a name-like word the user
//!   typed (letters and digits only, at least [`MIN_NAME_WORD_CHARS`] long, with a capital).
//!   A value or a word that the same field of another record in that result also has names
//!   neither record.
//!
//! Why injections stay out: an instruction hidden in data is text inside one field. What it
//! introduces is never the whole value of a field, so its IBAN, address or password still
//! asks. What this does trust: a field, under the argument's own key, of a record the user
//! named. An attacker who wrote that whole record through a structured tool (their own transfer
//! to you, their own calendar entry) and gave it a label the user happens to use chose that
//! field. A tool that declares structured output but splices untrusted text into it by hand
//! lets that text forge records. `named_records = false` in the provenance checker's config
//! turns all of this off.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// Longest string field that can stand for a value (an IBAN, a name, a date, a subject line).
pub const MAX_FIELD_CHARS: usize = 100;
/// Shortest identifier that names its record.
pub const MIN_IDENTIFIER_CHARS: usize = 6;
/// At most this many words make a label that can name its record.
pub const MAX_LABEL_WORDS: usize = 4;
/// At most this many characters make a label that can name its record.
pub const MAX_LABEL_CHARS: usize = 40;
/// Shortest word of a label that can name its record.
pub const MIN_NAME_WORD_CHARS: usize = 4;
/// Texts longer than this are not read for records: a lookup result is small, and parsing is
/// on the gate's path.
pub const MAX_PARSED_BYTES: usize = 256 * 1024;
/// Documents nested deeper than this have no records.
pub const MAX_DEPTH: usize = 16;
/// Documents with more nodes than this have no records.
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

impl Scalar {
    fn from_json(v: &Value) -> Option<Self> {
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

    /// A YAML scalar under the core schema: plain scalars may be numbers or booleans, quoted
    /// ones are strings. `None` for null and for anything tagged (`!!binary`, custom tags).
    fn from_yaml(text: String, style: TScalarStyle, tagged: bool) -> Option<Self> {
        if tagged {
            return None;
        }
        if style != TScalarStyle::Plain {
            return Some(Scalar::Str(text));
        }
        match text.as_str() {
            "~" | "null" | "Null" | "NULL" | "" => return None,
            "true" | "True" | "TRUE" => return Some(Scalar::Bool(true)),
            "false" | "False" | "FALSE" => return Some(Scalar::Bool(false)),
            _ => {}
        }
        let numeric = text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
        if numeric {
            if let Ok(i) = text.parse::<i128>() {
                return Some(Scalar::Int(i));
            }
            if let Ok(f) = text.parse::<f64>() {
                return Some(Scalar::Float(f));
            }
        }
        Some(Scalar::Str(text))
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
    fn equals(&self, arg: &Value) -> bool {
        let Some(arg) = Scalar::from_json(arg) else {
            return false;
        };
        match (self, &arg) {
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

/// A mapping's scalar fields, by folded key.
type Record = Vec<(String, Scalar)>;

/// The records of `text`, or none when it is not one JSON or YAML collection within bounds.
fn records_of(text: &str) -> Vec<Record> {
    if text.len() > MAX_PARSED_BYTES {
        return Vec::new();
    }
    if text.trim_start().starts_with(['{', '['])
        && let Ok(v) = serde_json::from_str::<Value>(text)
    {
        let mut out = Vec::new();
        let mut nodes = 0;
        return if walk_json(&v, 0, &mut nodes, &mut out) {
            out
        } else {
            Vec::new()
        };
    }
    yaml_records(text).unwrap_or_default()
}

/// Collects `v`'s mappings; `false` when it is too deep or too large to read.
fn walk_json(v: &Value, depth: usize, nodes: &mut usize, out: &mut Vec<Record>) -> bool {
    *nodes += 1;
    if depth > MAX_DEPTH || *nodes > MAX_NODES {
        return false;
    }
    match v {
        Value::Object(map) => {
            out.push(
                map.iter()
                    .filter_map(|(k, v)| Some((folded_key(k), Scalar::from_json(v)?)))
                    .collect(),
            );
            map.values().all(|c| walk_json(c, depth + 1, nodes, out))
        }
        Value::Array(items) => items.iter().all(|c| walk_json(c, depth + 1, nodes, out)),
        _ => true,
    }
}

/// A collection being read from YAML events.
enum Open {
    Mapping {
        record: Record,
        /// The key whose value comes next; `None` when a key comes next.
        key: Option<String>,
    },
    Sequence,
}

/// Reads records from YAML events, without building the document: nothing it does recurses,
/// and it stops at the first alias (no expansion), second document, non-scalar key, duplicate
/// key, or bound.
fn yaml_records(text: &str) -> Option<Vec<Record>> {
    let mut parser = Parser::new_from_str(text);
    let mut out = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let (mut documents, mut nodes) = (0, 0);
    loop {
        let (event, _) = parser.next_token().ok()?;
        // A scalar, or a collection, in the position of the innermost open one.
        let mut node = |stack: &mut Vec<Open>, scalar: Option<Scalar>| -> Option<()> {
            nodes += 1;
            if nodes > MAX_NODES {
                return None;
            }
            match stack.last_mut() {
                Some(Open::Mapping { record, key }) => match key.take() {
                    Some(k) => {
                        if let Some(s) = scalar {
                            record.push((k, s));
                        }
                    }
                    None => {
                        let Some(Scalar::Str(k)) = scalar else {
                            return None;
                        };
                        let k = folded_key(&k);
                        if record.iter().any(|(have, _)| *have == k) {
                            return None;
                        }
                        *key = Some(k);
                    }
                },
                Some(Open::Sequence) | None => {}
            }
            Some(())
        };
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
                if stack.is_empty() {
                    return None;
                }
                // A key that is a string keeps its text: `Scalar::from_yaml` would read `1` as 1.
                let at_key = matches!(stack.last(), Some(Open::Mapping { key: None, .. }));
                let scalar = if at_key {
                    Some(Scalar::Str(value))
                } else {
                    Scalar::from_yaml(value, style, tag.is_some())
                };
                if at_key && tag.is_some() {
                    return None;
                }
                node(&mut stack, scalar)?;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if matches!(stack.last(), Some(Open::Mapping { key: None, .. })) {
                    return None;
                }
                node(&mut stack, None)?;
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Open::Mapping {
                        record: Vec::new(),
                        key: None,
                    }
                } else {
                    Open::Sequence
                });
            }
            Event::SequenceEnd => {
                stack.pop();
            }
            Event::MappingEnd => {
                if let Some(Open::Mapping { record, .. }) = stack.pop() {
                    out.push(record);
                }
            }
        }
    }
    (documents == 1 && !out.is_empty()).then_some(out)
}

/// Whether `hay` holds `needle` as whole words, in any case. `hay` is lowercase already.
fn contains_words(hay: &str, needle: &str) -> bool {
    let needle = needle.trim().to_lowercase();
    if needle.is_empty() {
        return false;
    }
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    hay.match_indices(&needle).any(|(at, _)| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        // A needle that starts or ends with a non-word character brings its own boundary.
        let glued_before = word(needle.chars().next()) && word(before);
        let glued_after = word(needle.chars().next_back()) && word(after);
        !glued_before && !glued_after
    })
}

/// Whether `s` identifies something: long enough, with a digit or `@` (an IBAN, an order
/// number, an address), as plain words never do.
fn is_identifier(s: &str) -> bool {
    s.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_IDENTIFIER_CHARS
        && s.chars().any(|c| c.is_ascii_digit() || c == '@')
}

/// The words of a label that can name its record: name-like (letters and digits only, with a
/// capital) and long enough not to be a function word. A message is not a label, and an
/// address or a URL is not made of names.
fn name_words(s: &str) -> impl Iterator<Item = &str> {
    let is_label =
        s.chars().count() <= MAX_LABEL_CHARS && s.split_whitespace().count() <= MAX_LABEL_WORDS;
    s.split_whitespace()
        .filter(move |_| is_label)
        .map(|w| w.trim_matches(|c: char| c.is_ascii_punctuation()))
        .filter(|w| w.chars().count() >= MIN_NAME_WORD_CHARS)
        .filter(|w| w.chars().all(char::is_alphanumeric))
        .filter(|w| w.chars().any(char::is_uppercase))
}

/// How often each field value, and each name word, occurs under each key of one document:
/// a reference picks out one record, so what two records share names neither.
#[derive(Default)]
struct Counts(HashMap<(String, String), usize>);

impl Counts {
    fn of(records: &[Record]) -> Self {
        let mut counts = Self::default();
        for record in records {
            for (key, field) in record {
                let Scalar::Str(s) = field else { continue };
                let s = s.trim();
                *counts.0.entry((key.clone(), s.to_string())).or_default() += 1;
                for w in name_words(s) {
                    *counts
                        .0
                        .entry((key.clone(), format!("\u{0}{}", w.to_lowercase())))
                        .or_default() += 1;
                }
            }
        }
        counts
    }

    fn unique_value(&self, key: &str, s: &str) -> bool {
        self.0.get(&(key.to_string(), s.to_string())) == Some(&1)
    }

    fn unique_word(&self, key: &str, w: &str) -> bool {
        self.0
            .get(&(key.to_string(), format!("\u{0}{}", w.to_lowercase())))
            == Some(&1)
    }
}

/// How the user's words (`users`, lowercased) name `record` through a field other than
/// `skip`, if they do.
fn named_by(record: &Record, skip: usize, counts: &Counts, users: &[String]) -> Option<String> {
    let typed = |s: &str| users.iter().any(|u| contains_words(u, s));
    for (at, (key, field)) in record.iter().enumerate() {
        let Scalar::Str(s) = field else { continue };
        if at == skip {
            continue;
        }
        let s = s.trim();
        if is_identifier(s) && typed(s) && counts.unique_value(key, s) {
            return Some(format!("its {key} {s:?}, which the user typed"));
        }
        if let Some(word) = name_words(s).find(|w| typed(w) && counts.unique_word(key, w)) {
            return Some(format!("its {key} {s:?}, whose {word:?} the user typed"));
        }
    }
    None
}

/// Whether `value`, given for an argument named `arg_key`, is that field of a record in
/// `text` which the user's words name; and how they name it.
pub(super) fn named_field(
    text: &str,
    arg_key: &str,
    value: &Value,
    users: &[Cow<'_, str>],
) -> Option<String> {
    let arg_key = folded_key(arg_key);
    let records = records_of(text);
    let mut candidates = records.iter().filter_map(|record| {
        let at = record
            .iter()
            .position(|(key, field)| *key == arg_key && field.is_value() && field.equals(value))?;
        Some((record, at))
    });
    let first = candidates.next()?;
    let counts = Counts::of(&records);
    let users: Vec<String> = users.iter().map(|u| u.to_lowercase()).collect();
    std::iter::once(first)
        .chain(candidates)
        .find_map(|(record, at)| {
            let how = named_by(record, at, &counts, &users)?;
            Some(format!(
                "field {arg_key} of a record the user named by {how}"
            ))
        })
}

#[cfg(test)]
mod tests;
