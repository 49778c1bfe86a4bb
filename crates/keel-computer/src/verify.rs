//! Verification from native evidence only (N16): an expectation is checked against the
//! accessibility summary of one observation, never against anything the model said. The
//! answer is `satisfied`, `not_met` or `unavailable`, and `unavailable` is what keel says
//! whenever the evidence cannot decide, so `verified:true` (N35) rests on a summary that
//! positively shows the expected state.
//!
//! The summary is read as a loose [`serde_json::Value`] rather than as [`Element`]s: it comes
//! from a backend, and one element with a missing key (T3 has elements with no bounds) must
//! cost that element, not the whole verdict.
//!
//! [`Element`]: super::observation::Element

use serde_json::{Map, Value};

use super::observation::{
    Expectation, ROLE_TEXT_AREA, ROLE_TEXT_FIELD, ROLE_WINDOW, Verification, VerificationStatus,
};

use VerificationStatus::{NotMet, Satisfied, Unavailable};

/// Checks `expect` against one observation's `summary` (N16).
pub fn verify(summary: &str, expect: &Expectation) -> Verification {
    Verification::new(status(summary, expect))
}

/// Checks `expect` against the observation after an input, and marks a `text` expectation that
/// the observation before the input already satisfied as `preexisting:true` (N15): text that
/// was on screen before cannot show that the input changed anything.
///
/// Only `text` gets the mark. A `field` or `selected` expectation satisfied before the input
/// never reaches here, because it skips the input ([`skips_input`]).
pub fn verify_after(before: &str, after: &str, expect: &Expectation) -> Verification {
    let mut verification = verify(after, expect);
    if matches!(expect, Expectation::Text { .. })
        && verification.status == Satisfied
        && status(before, expect) == Satisfied
    {
        verification.preexisting = Some(true);
    }
    verification
}

/// N12 step 4: true when `step` must dispatch nothing because the expectation already holds.
/// Only a satisfied `field` or `selected` expectation qualifies; a `text` expectation never
/// skips input, because a label that is already visible (a navigation item, say) says nothing
/// about whether the requested action has happened.
pub fn skips_input(expect: &Expectation, verification: &Verification) -> bool {
    verification.status == Satisfied && !matches!(expect, Expectation::Text { .. })
}

fn status(summary: &str, expect: &Expectation) -> VerificationStatus {
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(summary) else {
        return Unavailable;
    };
    let Some(Value::Array(elements)) = root.get("elements") else {
        return Unavailable;
    };
    // N33: a summary without its window (an empty tree included) is no evidence at all, not an
    // empty window in which nothing is selected.
    if !elements
        .iter()
        .any(|e| str_key(e, "role") == Some(ROLE_WINDOW))
    {
        return Unavailable;
    }
    let truncated = is_truncated(&root);
    match expect {
        Expectation::Text { text } => {
            let Some(seen) = root
                .get("text")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            else {
                return Unavailable;
            };
            if seen.contains(text.as_str()) {
                Satisfied
            } else if truncated {
                // The expected text may be in the part that was dropped.
                Unavailable
            } else {
                NotMet
            }
        }
        // A dropped element could be a second one with the same label, so even a unique match
        // in a truncated summary is not unique in the window.
        Expectation::Field { .. } | Expectation::Selected { .. } if truncated => Unavailable,
        Expectation::Selected { label } => selected(elements, label),
        Expectation::Field { label, value } => field(elements, label, value),
    }
}

/// Anything but an absent, `null` or `false` flag counts as truncated: a summary that does not
/// plainly say it is complete is not trusted to be.
fn is_truncated(root: &Map<String, Value>) -> bool {
    !matches!(
        root.get("truncated"),
        None | Some(Value::Null | Value::Bool(false))
    )
}

/// The candidates are the elements with that label that carry a `selected` key: N38a puts the
/// key only on selectable or checkable elements, so a heading or a static text that repeats the
/// label is not a second candidate. A candidate whose `selected` is not a boolean is still one,
/// but its state cannot be read.
fn selected(elements: &[Value], label: &str) -> VerificationStatus {
    let mut candidates = elements
        .iter()
        .filter(|e| str_key(e, "label") == Some(label) && e.get("selected").is_some());
    let (Some(only), None) = (candidates.next(), candidates.next()) else {
        return Unavailable;
    };
    match only.get("selected") {
        Some(Value::Bool(true)) => Satisfied,
        Some(Value::Bool(false)) => NotMet,
        _ => Unavailable,
    }
}

/// The candidates are the text fields and text areas with that label. Uniqueness is required
/// among all of them before the value is looked at: if the window has two `To` fields, keel
/// cannot tell which one the caller meant, even when only one of them has a readable value or
/// lies outside web content. Web content is excluded as evidence because a page, not the app,
/// decides what its accessible tree says.
fn field(elements: &[Value], label: &str, expected: &str) -> VerificationStatus {
    let mut candidates = elements.iter().filter(|e| {
        matches!(str_key(e, "role"), Some(ROLE_TEXT_FIELD | ROLE_TEXT_AREA))
            && str_key(e, "label") == Some(label)
    });
    let (Some(only), None) = (candidates.next(), candidates.next()) else {
        return Unavailable;
    };
    if only.get("in_web_content") == Some(&Value::Bool(true)) {
        return Unavailable;
    }
    match str_key(only, "value") {
        Some(value) if value == expected => Satisfied,
        Some(_) => NotMet,
        None => Unavailable,
    }
}

/// The string under `key`, if the element is an object and the value a string.
fn str_key<'a>(element: &'a Value, key: &str) -> Option<&'a str> {
    element.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &str) -> Expectation {
        Expectation::Text { text: t.into() }
    }

    fn field_is(label: &str, value: &str) -> Expectation {
        Expectation::Field {
            label: label.into(),
            value: value.into(),
        }
    }

    fn selected_is(label: &str) -> Expectation {
        Expectation::Selected {
            label: label.into(),
        }
    }

    fn all_kinds() -> [Expectation; 3] {
        [text("Hi"), field_is("To", "a@b"), selected_is("Memories")]
    }

    fn st(summary: &str, expect: &Expectation) -> VerificationStatus {
        verify(summary, expect).status
    }

    /// A summary with a window element first and then `rest`, plus the given top-level keys.
    fn summary(rest: serde_json::Value, extra: serde_json::Value) -> String {
        let mut elements = vec![json!({"role": "AXWindow"})];
        elements.extend(rest.as_array().cloned().unwrap_or_default());
        let mut root = json!({"elements": elements, "text": "t"});
        if let (Some(root), Some(extra)) = (root.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                root.insert(k.clone(), v.clone());
            }
        }
        root.to_string()
    }

    // T3, row by row.

    #[test]
    fn t3_not_json_is_unavailable_for_any_expectation() {
        for e in all_kinds() {
            assert_eq!(st("not json", &e), Unavailable, "{e:?}");
        }
    }

    #[test]
    fn t3_no_window_is_unavailable() {
        assert_eq!(
            st(r#"{"elements":[],"text":"Hi"}"#, &text("Hi")),
            Unavailable
        );
    }

    #[test]
    fn t3_text_present_is_satisfied() {
        let s = r#"{"elements":[{"role":"AXWindow"}],"text":"Saved"}"#;
        assert_eq!(st(s, &text("Saved")), Satisfied);
    }

    #[test]
    fn t3_text_is_case_sensitive() {
        let s = r#"{"elements":[{"role":"AXWindow"}],"text":"Saved"}"#;
        assert_eq!(st(s, &text("saved")), NotMet);
    }

    #[test]
    fn t3_text_missing_from_a_truncated_summary_is_unavailable() {
        let s = r#"{"elements":[{"role":"AXWindow"}],"text":"Sa","truncated":true}"#;
        assert_eq!(st(s, &text("Saved")), Unavailable);
    }

    #[test]
    fn t3_selected_true_is_satisfied() {
        let s =
            r#"{"elements":[{"role":"AXWindow"},{"label":"Memories","selected":true}],"text":"t"}"#;
        assert_eq!(st(s, &selected_is("Memories")), Satisfied);
    }

    #[test]
    fn t3_two_selectable_elements_with_the_label_are_unavailable() {
        for (a, b) in [(true, true), (true, false), (false, false)] {
            let s = summary(
                json!([
                    {"label": "Memories", "selected": a},
                    {"label": "Memories", "selected": b}
                ]),
                json!({}),
            );
            assert_eq!(st(&s, &selected_is("Memories")), Unavailable, "{a} {b}");
        }
    }

    #[test]
    fn t3_field_with_equal_value_is_satisfied() {
        let s = r#"{"elements":[{"role":"AXWindow"},{"role":"AXTextField","label":"To","value":"a@b"}],"text":"t"}"#;
        assert_eq!(st(s, &field_is("To", "a@b")), Satisfied);
    }

    #[test]
    fn t3_field_in_web_content_is_unavailable() {
        let s = r#"{"elements":[{"role":"AXWindow"},{"role":"AXTextField","label":"To","value":"a@b","in_web_content":true}],"text":"t"}"#;
        assert_eq!(st(s, &field_is("To", "a@b")), Unavailable);
    }

    #[test]
    fn t3_truncated_makes_field_and_selected_unavailable() {
        let satisfied_rows = [
            (
                json!([{"label": "Memories", "selected": true}]),
                selected_is("Memories"),
            ),
            (
                json!([{"label": "Memories", "selected": false}]),
                selected_is("Memories"),
            ),
            (
                json!([{"role": "AXTextField", "label": "To", "value": "a@b"}]),
                field_is("To", "a@b"),
            ),
            (
                json!([{"role": "AXTextField", "label": "To", "value": "x"}]),
                field_is("To", "a@b"),
            ),
        ];
        for (rest, e) in satisfied_rows {
            let whole = summary(rest.clone(), json!({}));
            assert_ne!(st(&whole, &e), Unavailable, "{whole}");
            let cut = summary(rest, json!({"truncated": true}));
            assert_eq!(st(&cut, &e), Unavailable, "{cut}");
        }
    }

    // N16, the rest.

    #[test]
    fn missing_or_wrong_elements_is_unavailable() {
        for s in [
            r#"{"text":"Hi"}"#,
            r#"{"elements":null,"text":"Hi"}"#,
            r#"{"elements":{"role":"AXWindow"},"text":"Hi"}"#,
            r#"[{"role":"AXWindow"}]"#,
            r#""Hi""#,
            "",
        ] {
            for e in all_kinds() {
                assert_eq!(st(s, &e), Unavailable, "{s} {e:?}");
            }
        }
    }

    #[test]
    fn n33_empty_tree_is_unavailable_for_every_kind() {
        let s = r#"{"elements":[],"text":"Hi To a@b Memories","truncated":false}"#;
        for e in all_kinds() {
            assert_eq!(st(s, &e), Unavailable, "{e:?}");
        }
    }

    #[test]
    fn window_is_recognised_only_by_its_exact_role() {
        for window in [
            json!({"role": "axwindow"}),
            json!({"role": "window"}),
            json!({"label": "AXWindow"}),
            json!({"role": ["AXWindow"]}),
            json!("AXWindow"),
        ] {
            let s = json!({"elements": [window], "text": "Hi"}).to_string();
            assert_eq!(st(&s, &text("Hi")), Unavailable, "{s}");
        }
        // The window need not come first.
        let s = r#"{"elements":[{"role":"AXButton"},{"role":"AXWindow"}],"text":"Hi"}"#;
        assert_eq!(st(s, &text("Hi")), Satisfied);
    }

    #[test]
    fn text_must_be_a_non_empty_string() {
        for t in [json!(""), json!(null), json!(1), json!(["Hi"])] {
            let s = json!({"elements": [{"role": "AXWindow"}], "text": t}).to_string();
            assert_eq!(st(&s, &text("Hi")), Unavailable, "{s}");
        }
        let s = r#"{"elements":[{"role":"AXWindow"}]}"#;
        assert_eq!(st(s, &text("Hi")), Unavailable);
    }

    #[test]
    fn text_found_in_a_truncated_summary_is_still_satisfied() {
        let s = r#"{"elements":[{"role":"AXWindow"}],"text":"Saved","truncated":true}"#;
        assert_eq!(st(s, &text("Saved")), Satisfied);
    }

    #[test]
    fn text_is_a_substring_match_across_lines_and_in_unicode() {
        let s =
            json!({"elements": [{"role": "AXWindow"}], "text": "Inbox\nÉté 😀 done"}).to_string();
        assert_eq!(st(&s, &text("Été 😀")), Satisfied);
        assert_eq!(st(&s, &text("x\nÉ")), Satisfied);
        assert_eq!(st(&s, &text("été")), NotMet);
    }

    #[test]
    fn a_truncated_flag_that_is_not_false_counts_as_truncated() {
        for flag in [json!(true), json!("yes"), json!(1), json!("false")] {
            let s = summary(
                json!([{"label": "Memories", "selected": true}]),
                json!({"truncated": flag}),
            );
            assert_eq!(st(&s, &selected_is("Memories")), Unavailable, "{s}");
        }
        for flag in [json!(false), json!(null)] {
            let s = summary(
                json!([{"label": "Memories", "selected": true}]),
                json!({"truncated": flag}),
            );
            assert_eq!(st(&s, &selected_is("Memories")), Satisfied, "{s}");
        }
    }

    #[test]
    fn selected_false_is_not_met() {
        let s = summary(json!([{"label": "Memories", "selected": false}]), json!({}));
        assert_eq!(st(&s, &selected_is("Memories")), NotMet);
    }

    #[test]
    fn selected_needs_a_boolean() {
        for v in [json!("true"), json!(1), json!(null), json!({})] {
            let s = summary(json!([{"label": "Memories", "selected": v}]), json!({}));
            assert_eq!(st(&s, &selected_is("Memories")), Unavailable, "{s}");
        }
        // A second, non-boolean candidate still makes the label ambiguous.
        let s = summary(
            json!([
                {"label": "Memories", "selected": true},
                {"label": "Memories", "selected": "no"}
            ]),
            json!({}),
        );
        assert_eq!(st(&s, &selected_is("Memories")), Unavailable);
    }

    #[test]
    fn selected_ignores_elements_that_are_not_selectable_or_not_labelled() {
        let s = summary(
            json!([
                {"role": "AXStaticText", "label": "Memories"},
                {"role": "AXHeading", "label": "Memories", "value": "Memories"},
                {"selected": false},
                {"label": "memories", "selected": false},
                {"label": "Memories ", "selected": false},
                {"label": 7, "selected": false},
                {"role": "AXTab", "label": "Memories", "selected": true}
            ]),
            json!({}),
        );
        assert_eq!(st(&s, &selected_is("Memories")), Satisfied);
    }

    #[test]
    fn selected_with_no_candidate_is_unavailable() {
        let s = summary(json!([{"label": "Memories"}]), json!({}));
        assert_eq!(st(&s, &selected_is("Memories")), Unavailable);
        let s = summary(json!([]), json!({}));
        assert_eq!(st(&s, &selected_is("Memories")), Unavailable);
    }

    #[test]
    fn field_value_must_be_exactly_equal() {
        for (value, want) in [
            ("a@b", Satisfied),
            ("a@b ", NotMet),
            ("A@B", NotMet),
            ("", NotMet),
            ("a@bc", NotMet),
        ] {
            let s = summary(
                json!([{"role": "AXTextField", "label": "To", "value": value}]),
                json!({}),
            );
            assert_eq!(st(&s, &field_is("To", "a@b")), want, "{value:?}");
        }
        let s = summary(
            json!([{"role": "AXTextField", "label": "To", "value": ""}]),
            json!({}),
        );
        assert_eq!(st(&s, &field_is("To", "")), Satisfied);
    }

    #[test]
    fn field_accepts_a_text_area() {
        let s = summary(
            json!([{"role": "AXTextArea", "label": "Body", "value": "hello\nworld"}]),
            json!({}),
        );
        assert_eq!(st(&s, &field_is("Body", "hello\nworld")), Satisfied);
    }

    #[test]
    fn field_ignores_other_roles_and_labels() {
        let s = summary(
            json!([
                {"role": "AXStaticText", "label": "To", "value": "x"},
                {"label": "To", "value": "x"},
                {"role": "AXTextField", "label": "Cc", "value": "x"},
                {"role": "AXTextField", "value": "x"},
                {"role": "AXTextField", "label": "To", "value": "a@b"}
            ]),
            json!({}),
        );
        assert_eq!(st(&s, &field_is("To", "a@b")), Satisfied);
        // Only other roles: no candidate.
        let s = summary(
            json!([{"role": "AXComboBox", "label": "To", "value": "a@b"}]),
            json!({}),
        );
        assert_eq!(st(&s, &field_is("To", "a@b")), Unavailable);
    }

    #[test]
    fn field_needs_a_string_value() {
        for rest in [
            json!([{"role": "AXTextField", "label": "To"}]),
            json!([{"role": "AXTextField", "label": "To", "value": null}]),
            json!([{"role": "AXTextField", "label": "To", "value": 5}]),
        ] {
            let s = summary(rest, json!({}));
            assert_eq!(st(&s, &field_is("To", "5")), Unavailable, "{s}");
        }
    }

    #[test]
    fn field_in_web_content_false_is_native() {
        let s = summary(
            json!([{"role": "AXTextField", "label": "To", "value": "a@b", "in_web_content": false}]),
            json!({}),
        );
        assert_eq!(st(&s, &field_is("To", "a@b")), Satisfied);
    }

    #[test]
    fn two_fields_with_the_label_are_unavailable_whatever_their_values() {
        for other in [
            json!({"role": "AXTextArea", "label": "To", "value": "a@b"}),
            json!({"role": "AXTextField", "label": "To", "value": "zzz"}),
            json!({"role": "AXTextField", "label": "To"}),
            json!({"role": "AXTextField", "label": "To", "value": "a@b", "in_web_content": true}),
        ] {
            let s = summary(
                json!([{"role": "AXTextField", "label": "To", "value": "a@b"}, other]),
                json!({}),
            );
            assert_eq!(st(&s, &field_is("To", "a@b")), Unavailable, "{s}");
        }
    }

    #[test]
    fn verification_shape_is_accessibility_expectation() {
        let v = verify("not json", &text("x"));
        assert_eq!(v.source, "accessibility");
        assert_eq!(v.scope, "expectation");
        assert_eq!(v.preexisting, None);
        assert_eq!(
            serde_json::to_value(&v).unwrap(),
            json!({"status": "unavailable", "source": "accessibility", "scope": "expectation"})
        );
    }

    // N15: preexisting text.

    #[test]
    fn text_visible_before_and_after_is_preexisting() {
        let before = r#"{"elements":[{"role":"AXWindow"}],"text":"Inbox"}"#;
        let after = r#"{"elements":[{"role":"AXWindow"}],"text":"Inbox\nOpened"}"#;
        let v = verify_after(before, after, &text("Inbox"));
        assert_eq!(v.status, Satisfied);
        assert_eq!(v.preexisting, Some(true));
        assert_eq!(
            serde_json::to_value(&v).unwrap()["preexisting"],
            json!(true)
        );
        let v = verify_after(before, after, &text("Opened"));
        assert_eq!(v.status, Satisfied);
        assert_eq!(v.preexisting, None);
    }

    #[test]
    fn preexisting_needs_both_sides_satisfied() {
        let yes = r#"{"elements":[{"role":"AXWindow"}],"text":"Saved"}"#;
        let no = r#"{"elements":[{"role":"AXWindow"}],"text":"Draft"}"#;
        // Before could not decide: the text is not known to have been there.
        for before in [no, "not json", r#"{"elements":[],"text":"Saved"}"#] {
            let v = verify_after(before, yes, &text("Saved"));
            assert_eq!((v.status, v.preexisting), (Satisfied, None), "{before}");
        }
        // Gone after the input: not satisfied, so nothing to mark.
        let v = verify_after(yes, no, &text("Saved"));
        assert_eq!((v.status, v.preexisting), (NotMet, None));
    }

    #[test]
    fn preexisting_is_only_for_text() {
        let s = summary(
            json!([
                {"role": "AXTextField", "label": "To", "value": "a@b"},
                {"label": "Memories", "selected": true}
            ]),
            json!({}),
        );
        for e in [field_is("To", "a@b"), selected_is("Memories")] {
            let v = verify_after(&s, &s, &e);
            assert_eq!((v.status, v.preexisting), (Satisfied, None), "{e:?}");
        }
    }

    // N12 step 4.

    #[test]
    fn only_satisfied_field_or_selected_skips_input() {
        let s = summary(
            json!([
                {"role": "AXTextField", "label": "To", "value": "a@b"},
                {"label": "Memories", "selected": true}
            ]),
            json!({"text": "To a@b Memories"}),
        );
        for (e, skips) in [
            (field_is("To", "a@b"), true),
            (selected_is("Memories"), true),
            (text("Memories"), false),
            (field_is("To", "other"), false),
            (field_is("Missing", "a@b"), false),
        ] {
            let v = verify(&s, &e);
            assert_eq!(skips_input(&e, &v), skips, "{e:?} {v:?}");
        }
        let unavailable = Verification::new(Unavailable);
        let not_met = Verification::new(NotMet);
        for e in all_kinds() {
            assert!(!skips_input(&e, &unavailable));
            assert!(!skips_input(&e, &not_met));
        }
    }
}
