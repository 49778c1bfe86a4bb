//! What keel makes of a model's proposed calls before any of them reaches the gate: each call
//! of one reply gets an id of its own ([`unique_call_ids`]), and a call whose arguments are not
//! a JSON object, or carry keys its tool does not take, is refused with a reason the model can
//! act on ([`malformed_arguments`], [`unknown_arguments`]).
//!
//! A call keel cannot run as proposed — a tool it does not have (the agent's toolbox decides),
//! or arguments that are not an object — is refused before the gate, so no policy rule, checker
//! or person is asked about a call that could not run, and no tool is started to fail on it.
//! Pure functions: the agent records what they decide like every other refusal.

use keel_core::ToolCall;
use serde_json::Value;

/// How much of malformed arguments the refusal quotes back to the model.
pub const ARGUMENTS_SHOWN_CHARS: usize = 200;

/// A call whose id another call already had: of the same reply, or earlier in the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renamed {
    pub from: String,
    pub to: String,
    pub tool: String,
    /// The id was an earlier call's of the run (a scripted or resumed model numbering its
    /// calls afresh), not only another call's of this reply.
    pub earlier_in_run: bool,
}

/// Gives every call of one reply an id no other call has — of the reply, or of the run before
/// it (`taken`): a call whose id is used gets `ID-2`, `ID-3`, … (the first free one). Returns
/// what was renamed, in order.
///
/// Renamed rather than refused: a `tool` message says which call it answers only by its id, so
/// two calls with one id cannot both be answered — an API refuses such a request, and the
/// model could not tell its answers apart — and a refusal would need an id of its own all the
/// same. Once each call has its own id it is an ordinary proposal the gate judges on its own
/// merits; refusing it would drop a call the model meant for a provider's bookkeeping slip
/// (servers and small local models that number every call `call_0`). The renamed id is what
/// is stored, gated, recorded in the ledger and sent back, so no request ever carries a
/// duplicate (keel-model's `wire` check would refuse it).
pub fn unique_call_ids(calls: &mut [ToolCall], taken: &dyn Fn(&str) -> bool) -> Vec<Renamed> {
    let mut renamed = Vec::new();
    for at in 0..calls.len() {
        let earlier_in_run = taken(&calls[at].id);
        if !earlier_in_run && !calls[..at].iter().any(|c| c.id == calls[at].id) {
            continue;
        }
        // Free among every id of the reply, the later ones included, and of the run, so a
        // rename never collides with a call still to come or one already made.
        let fresh = (2..)
            .map(|n| format!("{}-{n}", calls[at].id))
            .find(|id| !taken(id) && !calls.iter().any(|c| &c.id == id))
            .unwrap_or_default();
        renamed.push(Renamed {
            from: std::mem::replace(&mut calls[at].id, fresh.clone()),
            to: fresh,
            tool: calls[at].name.clone(),
            earlier_in_run,
        });
    }
    renamed
}

/// The refusal for a call whose arguments are not a JSON object, or `None` when they are one.
/// It says what was received — its JSON type and its text, cut to
/// [`ARGUMENTS_SHOWN_CHARS`] — and how to call again. A provider keeps arguments that were
/// not JSON at all as a string of their text, so a string here is either.
pub fn malformed_arguments(call: &ToolCall) -> Option<String> {
    let (what, text) = match &call.arguments {
        Value::Object(_) => return None,
        Value::String(s) => ("text that is not a JSON object", s.clone()),
        Value::Array(_) => ("a JSON array", call.arguments.to_string()),
        Value::Number(_) => ("a JSON number", call.arguments.to_string()),
        Value::Bool(_) => ("a JSON boolean", call.arguments.to_string()),
        Value::Null => ("null", call.arguments.to_string()),
    };
    let total = text.chars().count();
    let shown: String = text.chars().take(ARGUMENTS_SHOWN_CHARS).collect();
    let shown = if total > ARGUMENTS_SHOWN_CHARS {
        format!("{shown}… ({total} chars in all)")
    } else {
        shown
    };
    Some(format!(
        "keel did not run this call: a tool's arguments must be one JSON object (for example \
         {{\"path\": \"notes.txt\"}}), and these were {what}: {shown}. Nothing was run. Call `{}` \
         again with its arguments as a JSON object.",
        call.name
    ))
}

/// The refusal for a call with arguments its tool's schema does not have, when the schema
/// says it takes no others (`"additionalProperties": false`), or `None`. A key the tool would
/// ignore is still one the gate would read — a `command` added to `write_file` once met the
/// read-only shell allow — so what the tool cannot take is refused before the gate, naming
/// the keys it does take.
pub fn unknown_arguments(call: &ToolCall, parameters: &Value) -> Option<String> {
    if parameters.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let known = parameters.get("properties").and_then(Value::as_object);
    let unknown: Vec<&str> = call
        .arguments
        .as_object()?
        .keys()
        .filter(|k| !known.is_some_and(|p| p.contains_key(*k)))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return None;
    }
    let quoted = |keys: &mut dyn Iterator<Item = &str>| {
        keys.map(|k| format!("\"{}\"", k.escape_debug()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let takes = known.map_or_else(String::new, |p| quoted(&mut p.keys().map(String::as_str)));
    Some(format!(
        "keel did not run this call: `{}` takes no argument {}; it takes only {}. Nothing was \
         run. Call it again with only those arguments.",
        call.name,
        quoted(&mut unknown.into_iter()),
        if takes.is_empty() {
            "none".to_string()
        } else {
            takes
        }
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(id: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments,
        }
    }

    fn ids(calls: &[ToolCall]) -> Vec<&str> {
        calls.iter().map(|c| c.id.as_str()).collect()
    }

    #[test]
    fn duplicate_ids_are_renamed_to_free_ones_in_order() {
        let mut calls = vec![
            call("a", json!({})),
            call("a", json!({})),
            call("a-2", json!({})),
            call("b", json!({})),
            call("a", json!({})),
        ];
        let renamed = unique_call_ids(&mut calls, &|_| false);
        assert_eq!(ids(&calls), ["a", "a-3", "a-2", "b", "a-4"]);
        assert_eq!(
            renamed
                .iter()
                .map(|r| (r.from.as_str(), r.to.as_str()))
                .collect::<Vec<_>>(),
            [("a", "a-3"), ("a", "a-4")]
        );
        let mut unique: Vec<&str> = ids(&calls);
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), calls.len());
    }

    /// A resumed or scripted model numbers its calls afresh: an id an earlier call of the
    /// run has is renamed too, to one free in the run and the reply.
    #[test]
    fn ids_earlier_calls_of_the_run_have_are_renamed() {
        let earlier = ["call_1", "call_1-2"];
        let taken = |id: &str| earlier.contains(&id);
        let mut calls = vec![call("call_1", json!({})), call("call_2", json!({}))];
        let renamed = unique_call_ids(&mut calls, &taken);
        assert_eq!(ids(&calls), ["call_1-3", "call_2"]);
        assert_eq!(renamed.len(), 1);
        assert!(renamed[0].earlier_in_run);
    }

    #[test]
    fn distinct_ids_are_left_alone() {
        let mut calls = vec![call("x", json!({})), call("y", json!({}))];
        assert!(unique_call_ids(&mut calls, &|_| false).is_empty());
        assert_eq!(ids(&calls), ["x", "y"]);
        assert!(unique_call_ids(&mut [], &|_| false).is_empty());
    }

    #[test]
    fn arguments_that_are_not_an_object_are_refused_saying_what_came() {
        assert_eq!(malformed_arguments(&call("c", json!({"path": "a"}))), None);
        assert_eq!(malformed_arguments(&call("c", json!({}))), None);
        for (arguments, what) in [
            (
                json!("{\"path\": \"a"),
                "text that is not a JSON object: {\"path\": \"a.",
            ),
            (json!([1, 2]), "a JSON array: [1,2]."),
            (json!(7), "a JSON number: 7."),
            (json!(true), "a JSON boolean: true."),
            (Value::Null, "null: null."),
        ] {
            let text = malformed_arguments(&call("c", arguments)).unwrap_or_default();
            assert!(text.contains(what), "{text}");
            assert!(text.contains("Call `read_file` again"), "{text}");
        }
    }

    #[test]
    fn long_malformed_arguments_are_cut() {
        let long = "x".repeat(5000);
        let text = malformed_arguments(&call("c", json!(long))).unwrap_or_default();
        assert!(
            text.contains(&format!("{}… (5000 chars in all)", "x".repeat(200))),
            "{text}"
        );
        assert!(!text.contains(&"x".repeat(201)));
    }
}
