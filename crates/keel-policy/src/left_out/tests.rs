use serde_json::{Value, json};

use super::chosen_but_left_out;

fn left_out(schema: &Value, args: Value, user: &str) -> Option<String> {
    let said = crate::authority::said_words([user]);
    chosen_but_left_out(&args, Some(schema), &said, "", false)
}

/// "Share file 88 through a link with my organization only": every way a schema generator
/// writes the choice, and every way a call leaves it to the tool (an outsider's round 29).
#[test]
fn a_choice_the_user_made_is_found_however_the_schema_writes_it() {
    let user = "Share file 88 through a link with my organization only.";
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
            let found = left_out(schema, args.clone(), user);
            assert!(
                found
                    .as_deref()
                    .is_some_and(|f| f.contains("you chose \"organization\"")),
                "{schema} {args}: {found:?}"
            );
        }
        // Given, it is the call's to be judged as a value.
        let given = json!({"file_id": "88", "visibility": "organization", "options": {"visibility": "organization"}});
        assert_eq!(left_out(schema, given, user), None, "{schema}");
    }
}

/// What is left out is the user's where they chose nothing, or chose what the tool's default
/// is; a setting with no default anywhere is not judged by a word of its name.
#[test]
fn leaving_out_what_the_user_did_not_choose_is_theirs() {
    let schema = json!({"type": "object", "properties": {
        "file_id": {"type": "string"},
        "visibility": {"type": "string", "enum": ["public", "organization"], "default": "public"},
        "expires_in_days": {"type": "integer"},
        "notify": {"type": "boolean", "description": "Tell them by e-mail."}
    }});
    let none = |user: &str| left_out(&schema, json!({"file_id": "88"}), user);
    assert_eq!(none("Share file 88 through a link."), None);
    assert_eq!(none("Share file 88 through a public link."), None);
    assert_eq!(
        none("Share file 88 through a link that expires in 1 day."),
        None
    );
    // A default said only in a description counts: "defaults to 0, which never expires".
    let described = json!({"type": "object", "properties": {
        "expires_in_days": {"type": "integer", "description": "Days until it expires; defaults to 0 (never)."}
    }});
    let found = left_out(
        &described,
        json!({}),
        "Make an invite link that expires in 1 day.",
    );
    assert!(
        found
            .as_deref()
            .is_some_and(|f| f.contains("\"expires_in_days\"")),
        "{found:?}"
    );
    // So does one the tool's description says.
    let said = crate::authority::said_words(["Invite kim@acme.io as a guest."]);
    let role = json!({"type": "object", "properties": {"email": {"type": "string"},
        "role": {"type": "string", "enum": ["guest", "member", "admin"]}}});
    let found = chosen_but_left_out(
        &json!({"email": "kim@acme.io"}),
        Some(&role),
        &said,
        "Invite a person. role defaults to 'admin'.",
        false,
    );
    assert!(found.is_some_and(|f| f.contains("\"guest\"")));
}

/// A share or an access change leaves none of its settings to the tool, whatever words the
/// user chose theirs in: "a link only people in my company can open" spells no `organization`,
/// "look at it but not change anything" no `viewer` (an outsider's round 30).
#[test]
fn a_share_leaves_no_setting_to_the_tool() {
    let schema = json!({"type": "object", "properties": {
        "file_id": {"type": "string"},
        "visibility": {"type": "string", "enum": ["public", "organization"], "default": "public"},
        "message": {"type": "string"}
    }});
    let said = crate::authority::said_words([
        "Make a link to file 88 that only people in my company can open.",
    ]);
    let found = chosen_but_left_out(&json!({"file_id": "88"}), Some(&schema), &said, "", true);
    assert!(found.is_some_and(|f| f.contains("\"visibility\"")));
    // Set, it is a value to judge; a text left out is no setting.
    let given = json!({"file_id": "88", "visibility": "organization"});
    assert_eq!(
        chosen_but_left_out(&given, Some(&schema), &said, "", true),
        None
    );
    // Not a share: only a choice the user made counts.
    let plain = json!({"file_id": "88"});
    assert_eq!(
        chosen_but_left_out(&plain, Some(&schema), &said, "", false),
        None
    );
}
