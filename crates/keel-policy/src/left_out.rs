//! Settings the user chose that a call leaves to the tool (issue 14; an outsider's rounds 28
//! and 29).
//!
//! Provenance traces the values a call carries. A call can also do harm by what it does not
//! carry: "share it with my organization only" sent without `visibility` makes whatever link
//! the tool makes by default — a public one, where that is the default. Nothing of such a
//! call is a value to trace, so the tool's schema says what is missing: an argument left out,
//! or sent empty (`null`, `""`, `[]`, `{}`, which a tool may read as anything), where the
//! user's words chose one of its choices (other than the default the schema declares), or,
//! for a setting with a default (declared, or one its description speaks of), said a word of
//! its name ("expires in 1 day" for `expires_in_days`, default 0: never).
//!
//! The schema is read as generators write it: an argument's choices may stand behind a
//! `$ref` (Pydantic's enums), in `anyOf`/`oneOf`/`allOf` branches (an `Optional[...]`), as
//! `const`s, and inside an object argument (`options.visibility`). The reading is bounded:
//! [`MAX_DEPTH`] levels of objects and references.

use serde_json::Value;

use super::authority::SaidWord;

/// Most levels of nested objects and references followed.
const MAX_DEPTH: usize = 8;

/// What the schema says of one argument, its references and branches followed.
#[derive(Default)]
struct Declared<'s> {
    choices: Vec<&'s str>,
    default: Option<&'s Value>,
    /// An object's own arguments, for one given as an object (or left out).
    properties: Vec<(&'s str, &'s Value)>,
    /// Its descriptions: a default may be said only there.
    descriptions: Vec<&'s str>,
}

/// How the call leaves a setting of the user's to the tool, said for the reason; `None` when
/// it does not. `tool_description` is the tool's own, where a default may also be said.
///
/// `reach`: the call shares or changes access. Then any setting it leaves to the tool asks,
/// whatever the user's words: how far a share reaches is what its settings say (a link's
/// visibility, a role, an expiry), the user's restriction may be in words no choice is spelt
/// in ("only people in my company can open it", "look at it but not change anything"), and a
/// tool's default is often its broadest (an outsider's round 30).
pub fn chosen_but_left_out(
    args: &Value,
    schema: Option<&Value>,
    said: &[SaidWord],
    tool_description: &str,
    reach: bool,
) -> Option<String> {
    let schema = schema?;
    let mut declared = Declared::default();
    read(schema, schema, &mut declared, 0);
    let context = Context {
        root: schema,
        said,
        tool_description,
        reach,
    };
    left_out_in(args, &declared, &context, "", 0)
}

/// What every level of the reading shares.
struct Context<'a> {
    root: &'a Value,
    said: &'a [SaidWord],
    tool_description: &'a str,
    reach: bool,
}

fn left_out_in(
    args: &Value,
    declared: &Declared<'_>,
    context: &Context<'_>,
    path: &str,
    depth: usize,
) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    for &(name, property) in &declared.properties {
        let at = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        let given = args.get(name);
        let mut own = Declared::default();
        read(property, context.root, &mut own, 0);
        // An object argument: its own settings, whether it is given or left out.
        if !own.properties.is_empty() {
            let inner = given.filter(|v| v.is_object()).unwrap_or(&Value::Null);
            if let Some(found) = left_out_in(inner, &own, context, &at, depth + 1) {
                return Some(found);
            }
            continue;
        }
        if given.is_some_and(|v| !is_empty(v)) {
            continue;
        }
        let how = match given {
            Some(v) => format!("sends \"{at}\" as {v}"),
            None => format!("leaves \"{at}\" out"),
        };
        let said_so = |what: &str| super::authority::names_choice(what, context.said);
        let default_said = own
            .default
            .map_or(String::new(), |d| format!(" (its default is {d})"));
        // A default: declared, or said in a description ("defaults to 0").
        let speaks_of_default = |text: &str| text.to_lowercase().contains("default");
        let has_default = own.default.is_some()
            || own.descriptions.iter().any(|d| speaks_of_default(d))
            || (speaks_of_default(context.tool_description)
                && context.tool_description.contains(name));
        if context.reach && (!own.choices.is_empty() || has_default) {
            return Some(format!(
                "{how}, so the tool sets it{default_said}: how far a share or an access reaches is yours to set"
            ));
        }
        if !own.choices.is_empty() {
            let default = own.default.and_then(Value::as_str);
            let chosen = own
                .choices
                .iter()
                .filter(|c| Some(**c) != default)
                .find(|c| said_so(c));
            if let Some(chosen) = chosen {
                return Some(format!(
                    "{how}, so the tool chooses it{default_said}, but you chose \"{chosen}\""
                ));
            }
            continue;
        }
        if !has_default || super::records::is_identifier_key(name) {
            continue;
        }
        let named = super::classify::words(name)
            .into_iter()
            .filter(|w| w.chars().count() >= 4)
            .find(|w| said_so(w));
        if let Some(word) = named {
            return Some(format!(
                "{how}, so the tool sets it{default_said}, but you said how: \"{word}\""
            ));
        }
    }
    None
}

/// `null`, `""`, `[]` or `{}`: nothing a tool must read as the user's choice.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Gathers what `schema` declares into `into`, following local references (`#/$defs/…`,
/// `#/definitions/…`) into `root` and every `anyOf`/`oneOf`/`allOf` branch.
fn read<'s>(schema: &'s Value, root: &'s Value, into: &mut Declared<'s>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(map) = schema.as_object() else {
        return;
    };
    if let Some(Value::Array(choices)) = map.get("enum") {
        into.choices
            .extend(choices.iter().filter_map(Value::as_str));
    }
    if let Some(Value::String(c)) = map.get("const") {
        into.choices.push(c);
    }
    if into.default.is_none() {
        into.default = map.get("default").filter(|d| !d.is_null());
    }
    if let Some(Value::String(d)) = map.get("description") {
        into.descriptions.push(d);
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        into.properties
            .extend(properties.iter().map(|(k, v)| (k.as_str(), v)));
    }
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = resolve(reference, root)
    {
        read(target, root, into, depth + 1);
    }
    for branches in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(branches) {
            for branch in branches {
                read(branch, root, into, depth + 1);
            }
        }
    }
}

/// A local reference's target: `#/$defs/Name`, `#/definitions/Name` (JSON pointer escapes
/// read).
fn resolve<'s>(reference: &str, root: &'s Value) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

#[cfg(test)]
mod tests;
