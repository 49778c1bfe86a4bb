use serde_json::{Value, json};

use super::left_to_the_tool;

fn left(schema: &Value, args: Value) -> Option<String> {
    left_to_the_tool(&args, Some(schema), "")
}

/// A link's visibility, however a schema generator writes its choices, and every way a call
/// leaves it to the tool (an outsider's rounds 28 and 29).
#[test]
fn a_setting_is_found_however_the_schema_writes_it() {
    let plain = json!({"type": "object", "properties": {
        "file_id": {"type": "string"},
        "visibility": {"type": "string", "enum": ["public", "organization"], "default": "public"}
    }});
    // Pydantic v2 for an Enum-typed parameter.
    let referenced = json!({"type": "object", "$defs": {"Visibility": {"enum": ["public", "organization"], "type": "string"}},
        "properties": {"file_id": {"type": "string"},
            "visibility": {"$ref": "#/$defs/Visibility", "default": "public"}}});
    // `Optional[Visibility]`.
    let optional = json!({"type": "object", "properties": {"file_id": {"type": "string"},
        "visibility": {"anyOf": [{"type": "string", "enum": ["public", "organization"]}, {"type": "null"}], "default": null}}});
    let consts = json!({"type": "object", "properties": {"file_id": {"type": "string"},
        "visibility": {"oneOf": [{"const": "public"}, {"const": "organization"}]}}});
    let nested = json!({"type": "object", "properties": {"file_id": {"type": "string"},
        "options": {"type": "object", "properties": {
            "visibility": {"type": "string", "enum": ["public", "organization"], "default": "public"}}}}});
    for schema in [&plain, &referenced, &optional, &consts, &nested] {
        for args in [
            json!({"file_id": "88"}),
            json!({"file_id": "88", "visibility": null}),
            json!({"file_id": "88", "visibility": ""}),
            json!({"file_id": "88", "visibility": []}),
            json!({"file_id": "88", "visibility": {}}),
            json!({"file_id": "88", "options": {}}),
            json!({"file_id": "88", "options": null}),
        ] {
            let found = left(schema, args.clone());
            assert!(
                found.as_deref().is_some_and(|f| f.contains("visibility")),
                "{schema} {args}: {found:?}"
            );
        }
        // Set, it is the call's own value, judged as any other.
        let given = json!({"file_id": "88", "visibility": "organization", "options": {"visibility": "organization"}});
        assert_eq!(left(schema, given), None, "{schema}");
    }
}

/// A setting in each item of a list of objects, a default only a description speaks of, and
/// a tool that declares no settings but speaks of a default (round 31); an argument with no
/// choices and no default left out is nothing the tool decides.
#[test]
fn defaults_in_items_descriptions_and_undeclared_settings_are_the_tools() {
    let grants = json!({"type": "object", "properties": {"file_id": {"type": "string"},
        "grants": {"type": "array", "items": {"type": "object", "properties": {
            "email": {"type": "string"},
            "role": {"type": "string", "enum": ["viewer", "editor"], "default": "editor"}}}}}});
    let found = left(
        &grants,
        json!({"file_id": "88", "grants": [{"email": "kim@acme.io"}]}),
    );
    assert!(found.is_some_and(|f| f.contains("grants.0.role")));
    let set = json!({"file_id": "88", "grants": [{"email": "kim@acme.io", "role": "viewer"}]});
    assert_eq!(left(&grants, set), None);
    let described = json!({"type": "object", "properties": {
        "expires_in_days": {"type": "integer", "description": "Days until it expires; defaults to 0 (never)."}
    }});
    assert!(left(&described, json!({})).is_some());
    let role = json!({"type": "object", "properties": {"email": {"type": "string"},
        "role": {"type": "string", "enum": ["guest", "member", "admin"]}}});
    assert!(left(&role, json!({"email": "kim@acme.io"})).is_some());
    let open = "Send money. Payments repeat monthly by default.";
    assert!(left_to_the_tool(&json!({"to": "GB29", "amount": 50}), None, open).is_some());
    let any = json!({"type": "object", "properties": {"to": {"type": "string"}}, "additionalProperties": true});
    assert!(left_to_the_tool(&json!({"to": "GB29"}), Some(&any), open).is_some());
    for said in [
        "Share a file through a link. Arguments: file_id, visibility (public when not given).",
        "Delete an e-mail. Erased for good unless to_trash is true.",
    ] {
        assert!(
            left_to_the_tool(&json!({"file_id": "88"}), None, said).is_some(),
            "{said}"
        );
    }
    // Nothing to choose, nothing left to the tool.
    let text = json!({"type": "object", "properties": {
        "to": {"type": "string"}, "note": {"type": "string"}, "count": {"type": "integer"}
    }});
    assert_eq!(left(&text, json!({"to": "GB29"})), None);
    assert_eq!(
        left_to_the_tool(&json!({"to": "GB29"}), None, "Send money."),
        None
    );
}

/// A thirty-first outsider round's last pair: a schema that declares some arguments, says
/// nothing of `additionalProperties`, and speaks in its description of an undeclared one's
/// default.
#[test]
fn an_undeclared_setting_whose_default_the_description_speaks_of_is_left_to_the_tool() {
    let schema = json!({"type": "object", "properties": {
        "recipient": {"type": "string"}, "amount": {"type": "number"}},
        "required": ["recipient", "amount"]});
    let description =
        "Send money to an IBAN. Optional: recurring (monthly repeat, true when not given).";
    let decide = |args: Value| left_to_the_tool(&args, Some(&schema), description);
    let left = decide(json!({"recipient": "GB29", "amount": 50}));
    assert!(
        left.as_deref()
            .is_some_and(|r| r.contains("recurring (monthly repeat")),
        "{left:?}"
    );
    // The call that sets it leaves nothing to the tool.
    assert_eq!(
        decide(json!({"recipient": "GB29", "amount": 50, "recurring": false})),
        None
    );
    // A default of a declared argument, at any depth, is read where it is declared.
    let declared = json!({"type": "object", "properties": {
        "recipient": {"type": "string"},
        "options": {"type": "object", "properties": {"currency": {"type": "string"}}}}});
    assert_eq!(
        left_to_the_tool(
            &json!({"recipient": "GB29", "options": {"currency": "EUR"}}),
            Some(&declared),
            "Send money. The currency defaults to EUR when not given."
        ),
        None
    );
    // A schema that closes its arguments lets no undeclared one through.
    let closed = json!({"type": "object", "additionalProperties": false, "properties": {
        "recipient": {"type": "string"}, "amount": {"type": "number"}}});
    assert_eq!(
        left_to_the_tool(
            &json!({"recipient": "GB29", "amount": 50}),
            Some(&closed),
            description
        ),
        None
    );
}
