//! Settings a call leaves to the tool (issue 14; an outsider's rounds 28 to 31).
//!
//! Provenance traces the values a call carries. A call can also do harm by what it does not
//! carry: "share it with my organization only" sent without `visibility` makes whatever link
//! the tool makes by default — a public one, where that is the default; "delete it, I may want
//! it back" sent without `permanent` erases it where that defaults to true; a payment without
//! `recurring` repeats where that is the default. The user's restriction may be in words no
//! choice is spelt in ("only people in my company", "just this once"), and a sibling tool may
//! differ from the one the user meant only by its default. So a call that acts leaves no
//! setting to the tool: an argument with choices or a default (declared in the schema, or one
//! its description speaks of) that the call leaves out, or sends empty (`null`, `""`, `[]`,
//! `{}`, which a tool may read as anything), asks, whatever the user wrote. Nothing of such a
//! call is a value to trace, so only the schema says what is missing.
//!
//! The schema is read as generators write it: an argument's choices may stand behind a
//! `$ref` (Pydantic's enums), in `anyOf`/`oneOf`/`allOf` branches (an `Optional[...]`), as
//! `const`s, inside an object argument (`options.visibility`) or in each item of a list of
//! objects (`grants: [{"email": …}]`). A tool that declares no arguments, or lets any through,
//! while its description speaks of a default, asks too: which setting it defaults nobody can
//! tell. The reading is bounded: [`MAX_DEPTH`] levels of objects and references.

use serde_json::Value;

/// Most levels of nested objects and references followed.
pub const MAX_DEPTH: usize = 8;

/// What the schema says of one argument, its references and branches followed.
#[derive(Default)]
struct Declared<'s> {
    choices: Vec<&'s str>,
    default: Option<&'s Value>,
    /// An object's own arguments, for one given as an object (or left out).
    properties: Vec<(&'s str, &'s Value)>,
    /// A list's items' schema: each item given is read as an object of its own.
    items: Option<&'s Value>,
    /// Its descriptions: a default may be said only there.
    descriptions: Vec<&'s str>,
}

/// How the call leaves a setting to the tool, said for the reason; `None` when it does not.
/// `tool_description` is the tool's own, where a default may also be said.
pub fn left_to_the_tool(
    args: &Value,
    schema: Option<&Value>,
    tool_description: &str,
) -> Option<String> {
    let mut declared = Declared::default();
    if let Some(schema) = schema {
        read(schema, schema, &mut declared, 0);
    }
    let open = schema.is_none_or(|s| {
        declared.properties.is_empty()
            || s.get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(false))
    });
    if open && speaks_of_default(tool_description) {
        return Some(
            "declares no setting it takes, and its description speaks of a default: what the call leaves to it is the tool's to choose".to_string(),
        );
    }
    let schema = schema?;
    // A schema that declares some arguments and leaves `additionalProperties` unsaid lets
    // others through, and its description may speak of one's default ("Optional: recurring
    // (monthly repeat, true when not given)", a thirty-first outsider round's): a sentence
    // that speaks of a default and names no declared argument speaks of an undeclared one,
    // which a call that sets none of the sentence's words leaves to the tool.
    if schema.get("additionalProperties").is_none()
        && let Some(sentence) = undeclared_default(tool_description, schema, args)
    {
        return Some(format!(
            "sets nothing its description speaks of a default for (\"{sentence}\"), an \
             argument its schema does not declare: what the call leaves to it is the tool's to \
             choose"
        ));
    }
    let context = Context {
        root: schema,
        tool_description,
    };
    left_out_in(args, &declared, &context, "", 0)
}

/// The sentence of `description` that speaks of a default and names no argument the schema
/// declares at any depth, nor any key the call sets.
fn undeclared_default<'d>(description: &'d str, schema: &Value, args: &Value) -> Option<&'d str> {
    let mut known = Vec::new();
    declared_names(schema, &mut known, 0);
    keys_of(args, &mut known, 0);
    let names = |sentence: &str, name: &str| {
        let name = name.to_lowercase();
        sentence.contains(&name) || sentence.contains(&name.replace(['_', '-'], " "))
    };
    description
        .split(['.', ';', '\n'])
        .map(str::trim)
        .find(|sentence| {
            let lower = sentence.to_lowercase();
            speaks_of_default(&lower) && !known.iter().any(|k| names(&lower, k))
        })
}

/// Every argument name a schema declares, at any depth (its `$defs` included).
fn declared_names<'s>(schema: &'s Value, into: &mut Vec<&'s str>, depth: usize) {
    if depth > MAX_DEPTH * 4 {
        return;
    }
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                into.extend(properties.keys().map(String::as_str));
            }
            for v in map.values() {
                declared_names(v, into, depth + 1);
            }
        }
        Value::Array(items) => {
            for v in items {
                declared_names(v, into, depth + 1);
            }
        }
        _ => {}
    }
}

/// Every key of a call's arguments, at any depth.
fn keys_of<'a>(args: &'a Value, into: &mut Vec<&'a str>, depth: usize) {
    if depth > MAX_DEPTH * 4 {
        return;
    }
    match args {
        Value::Object(map) => {
            into.extend(map.keys().map(String::as_str));
            for v in map.values() {
                keys_of(v, into, depth + 1);
            }
        }
        Value::Array(items) => {
            for v in items {
                keys_of(v, into, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether a description says what a tool does with a setting it is not given ("defaults to
/// 'admin'", "public when not given", "true unless given", "erased unless to_trash is true").
fn speaks_of_default(text: &str) -> bool {
    let text = text.to_lowercase();
    [
        "default",
        "not given",
        "unless",
        "omitted",
        "not set",
        "not specified",
        "otherwise",
    ]
    .iter()
    .any(|said| text.contains(said))
}

/// What every level of the reading shares.
struct Context<'a> {
    root: &'a Value,
    tool_description: &'a str,
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
        // A list of objects: each item's own settings (`grants: [{"email": …}]` with each
        // grant's role defaulting to editor, round 31).
        let mut item = Declared::default();
        if let Some(item_schema) = own.items {
            read(item_schema, context.root, &mut item, 0);
        }
        if !item.properties.is_empty() {
            for (n, each) in given
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let inner = if each.is_object() { each } else { &Value::Null };
                let at = format!("{at}.{n}");
                if let Some(found) = left_out_in(inner, &item, context, &at, depth + 1) {
                    return Some(found);
                }
            }
            continue;
        }
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
        // A default: declared, or said in a description ("defaults to 0").
        let has_default = own.default.is_some()
            || own.descriptions.iter().any(|d| speaks_of_default(d))
            || (speaks_of_default(context.tool_description)
                && context.tool_description.contains(name));
        if own.choices.is_empty() && !has_default {
            continue;
        }
        let how = match given {
            Some(v) => format!("sends \"{at}\" as {v}"),
            None => format!("leaves \"{at}\" out"),
        };
        let default_said = own
            .default
            .map_or(String::new(), |d| format!(" (its default is {d})"));
        return Some(format!(
            "{how}, so the tool sets it{default_said}: what an action does is yours to say, not a tool's default"
        ));
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
    if into.items.is_none() {
        into.items = map.get("items").filter(|i| i.is_object());
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
