//! The observation summary (N12, N38a): the one JSON text the model reads, the verifier
//! checks ([`super::verify`]) and the state digest is taken of. It is
//! `{"elements":[...],"text":...,"truncated":bool}`, at most [`MAX_SUMMARY_CHARS`] chars
//! (N36: Unicode scalar values). Over the cap, elements are dropped from the end of the
//! depth-first list, which keeps the window element and the top of its tree, and `truncated`
//! says so, because the verifier must not read a cut summary as the whole window.

use serde::Serialize;
use serde_json::Value;

use super::observation::{Element, MAX_SUMMARY_CHARS};

/// A built summary and what was left out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The summary JSON, at most [`MAX_SUMMARY_CHARS`] chars.
    pub json: String,
    /// True when elements were dropped to fit the cap.
    pub truncated: bool,
    /// How many elements were dropped from the end.
    pub dropped: usize,
}

/// Field order is the wire order of N38a.
#[derive(Serialize)]
struct Wire<'a> {
    elements: &'a [Element],
    text: String,
    truncated: bool,
}

/// Builds the summary of `elements` (the window's subtree, depth first), dropping elements
/// from the end until it fits [`MAX_SUMMARY_CHARS`].
pub fn summarize(elements: &[Element]) -> Summary {
    summarize_within(elements, MAX_SUMMARY_CHARS)
}

/// As [`summarize`], for elements the backend could read only in part: the summary then says
/// `truncated` whatever its length, because what is missing may be what a check looks for.
pub fn summarize_partial(elements: &[Element], partial: bool) -> Summary {
    let mut s = summarize(elements);
    if partial && !s.truncated {
        // `true` is shorter than `false`, so the cap still holds.
        s.json = render(elements, true);
        s.truncated = true;
    }
    s
}

/// The labels and values of `elements`, in order, joined with LF; empty strings are left out
/// so a label-less element does not add a blank line.
pub fn text_of(elements: &[Element]) -> String {
    pieces(elements).collect::<Vec<_>>().join("\n")
}

fn pieces(elements: &[Element]) -> impl Iterator<Item = &str> {
    elements
        .iter()
        .flat_map(|e| [Some(e.label.as_str()), e.value.as_deref()])
        .flatten()
        .filter(|s| !s.is_empty())
}

fn render(elements: &[Element], truncated: bool) -> String {
    let wire = Wire {
        elements,
        text: text_of(elements),
        truncated,
    };
    // Serializing plain strings, integers and booleans cannot fail; were it ever to, an empty
    // summary reads as `unavailable` everywhere, which is the safe way to be wrong.
    serde_json::to_string(&wire).unwrap_or_default()
}

fn json_chars<T: Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_string(value)
        .map(|s| s.chars().count())
        .unwrap_or(0)
}

/// The work of [`summarize`] with the cap as a parameter, so tests can reach the boundary
/// with small trees.
fn summarize_within(elements: &[Element], cap: usize) -> Summary {
    let whole = render(elements, false);
    if whole.chars().count() <= cap {
        return Summary {
            json: whole,
            truncated: false,
            dropped: 0,
        };
    }
    // A window can have tens of thousands of elements; re-serializing after every single drop
    // would be quadratic. The length of a prefix's summary is a sum of per-element parts (JSON
    // escapes char by char, so the escaped text is the escaped pieces plus one `\n` escape
    // between each two), so the longest prefix that fits is found in one pass.
    let skeleton = render(&[], true).chars().count(); // {"elements":[],"text":"","truncated":true}
    let mut fits = 0;
    let mut length = skeleton;
    let mut pieces_so_far = 0usize;
    for (i, element) in elements.iter().enumerate() {
        let mut added = json_chars(element) + usize::from(i > 0); // the comma before it
        for piece in pieces(std::slice::from_ref(element)) {
            added += json_chars(piece).saturating_sub(2); // without its quotes
            if pieces_so_far > 0 {
                added += 2; // the `\n` escape that joins it to the text before
            }
            pieces_so_far += 1;
        }
        length += added;
        if length > cap {
            break;
        }
        fits = i + 1;
    }
    // `false` is one char longer than `true`, so the whole list can fit once it is marked
    // truncated; a summary that says truncated must have lost something, so one element goes.
    let mut kept = fits.min(elements.len().saturating_sub(1));
    // The count above is exact, but the cap is a promise: check the string itself and drop
    // more if it were ever off.
    loop {
        let json = render(&elements[..kept], true);
        if json.chars().count() <= cap || kept == 0 {
            return Summary {
                json,
                truncated: true,
                dropped: elements.len() - kept,
            };
        }
        kept -= 1;
    }
}

/// A deterministic digest of a summary, 32 lowercase hex digits (two 64-bit FNV-1a passes,
/// one forward and one over the reversed bytes with another offset basis).
///
/// The digest is of the accessibility summary, not of the screenshot. A blinking caret, a
/// spinner or a clock changes pixels all the time, so a pixel digest would differ between any
/// two observations: every re-check just before dispatch (N24) would report
/// `COMPUTER_OBSERVATION_CHANGED` and the no-progress check (N17) could never see an unchanged
/// window. The price is that a change only visible in pixels (a canvas redrawing) is not seen;
/// it then reads as no progress, the cautious side.
///
/// It tells states apart; it is not meant to resist someone crafting collisions, and nothing
/// here needs it to.
pub fn state_digest(summary: &str) -> String {
    let bytes = summary.as_bytes();
    let forward = fnv1a64(FNV_OFFSET, bytes.iter().copied());
    let backward = fnv1a64(SECOND_OFFSET, bytes.iter().rev().copied());
    format!("{forward:016x}{backward:016x}")
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
/// Any offset basis other than the standard one gives an independent-enough second pass; this
/// one is the standard basis hashed over the byte 0x01.
const SECOND_OFFSET: u64 = (FNV_OFFSET ^ 0x01).wrapping_mul(FNV_PRIME);

fn fnv1a64(offset: u64, bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(offset, |h, b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

impl Summary {
    /// [`state_digest`] of this summary.
    pub fn digest(&self) -> String {
        state_digest(&self.json)
    }

    /// The summary parsed back, for callers that want to look inside.
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::super::observation::VerificationStatus;
    use super::super::observation::{Expectation, ROLE_TEXT_FIELD, ROLE_WINDOW};
    use super::super::verify::verify;
    use super::*;
    use serde_json::json;

    fn el(role: &str, label: &str, value: Option<&str>) -> Element {
        Element {
            role: role.into(),
            label: label.into(),
            value: value.map(str::to_string),
            bounds: [0, 0, 10, 10],
            ..Element::default()
        }
    }

    fn window(label: &str) -> Element {
        el(ROLE_WINDOW, label, None)
    }

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn shape_and_key_order() {
        let s = summarize(&[window("Mail"), el(ROLE_TEXT_FIELD, "To", Some("a@b"))]);
        assert_eq!(
            s.json,
            concat!(
                r#"{"elements":[{"role":"AXWindow","label":"Mail","bounds":[0,0,10,10]},"#,
                r#"{"role":"AXTextField","label":"To","value":"a@b","bounds":[0,0,10,10]}],"#,
                r#""text":"Mail\nTo\na@b","truncated":false}"#
            )
        );
        assert!(!s.truncated);
        assert_eq!(s.dropped, 0);
    }

    #[test]
    fn optional_keys_appear_only_when_set() {
        let e = Element {
            role: "AXCheckBox".into(),
            label: "Bold".into(),
            value: None,
            selected: Some(false),
            focused: Some(true),
            bounds: [1, 2, 3, 4],
            in_web_content: Some(true),
        };
        let v = summarize(&[window("W"), e]).value();
        assert_eq!(
            v["elements"][1],
            json!({"role": "AXCheckBox", "label": "Bold", "selected": false, "focused": true,
                   "bounds": [1, 2, 3, 4], "in_web_content": true})
        );
        assert_eq!(
            v["elements"][0],
            json!({"role": "AXWindow", "label": "W", "bounds": [0, 0, 10, 10]})
        );
    }

    #[test]
    fn text_joins_labels_and_values_skipping_empty_strings() {
        let elements = [
            window("Mail"),
            el("AXGroup", "", None),
            el(ROLE_TEXT_FIELD, "To", Some("")),
            el(ROLE_TEXT_FIELD, "", Some("body")),
            el("AXButton", "Send", None),
            el("AXStaticText", "two\nlines", Some("v")),
        ];
        assert_eq!(text_of(&elements), "Mail\nTo\nbody\nSend\ntwo\nlines\nv");
        assert_eq!(
            summarize(&elements).value()["text"],
            json!("Mail\nTo\nbody\nSend\ntwo\nlines\nv")
        );
        assert_eq!(text_of(&[]), "");
        assert_eq!(text_of(&[el("AXGroup", "", Some(""))]), "");
    }

    #[test]
    fn an_empty_tree_is_a_summary_the_verifier_calls_unavailable() {
        let s = summarize(&[]);
        assert_eq!(s.json, r#"{"elements":[],"text":"","truncated":false}"#);
        for e in [
            Expectation::Text { text: "x".into() },
            Expectation::Selected { label: "x".into() },
        ] {
            assert_eq!(verify(&s.json, &e).status, VerificationStatus::Unavailable);
        }
    }

    /// A tree whose summary is long: a window and `n` labelled buttons.
    fn long_tree(n: usize, label: impl Fn(usize) -> String) -> Vec<Element> {
        let mut v = vec![window("Big")];
        v.extend((0..n).map(|i| el("AXButton", &label(i), None)));
        v
    }

    #[test]
    fn over_the_cap_elements_are_dropped_from_the_end() {
        let elements = long_tree(2000, |i| format!("button number {i}"));
        assert!(chars(&render(&elements, false)) > MAX_SUMMARY_CHARS);
        let s = summarize(&elements);
        assert!(s.truncated);
        assert!(chars(&s.json) <= MAX_SUMMARY_CHARS);
        let kept = elements.len() - s.dropped;
        assert!(kept > 1 && kept < elements.len());
        // Exactly the first `kept` elements, text rebuilt from them, and one more would not fit.
        assert_eq!(s.json, render(&elements[..kept], true));
        assert!(chars(&render(&elements[..=kept], true)) > MAX_SUMMARY_CHARS);
        let v = s.value();
        assert_eq!(v["truncated"], json!(true));
        assert_eq!(v["text"], json!(text_of(&elements[..kept])));
        assert_eq!(
            v["elements"][kept - 1]["label"],
            json!(format!("button number {}", kept - 2))
        );
    }

    #[test]
    fn the_cap_is_inclusive_at_exactly_the_boundary() {
        let elements = long_tree(5, |i| format!("b{i}"));
        let whole = render(&elements, false);
        let n = chars(&whole);
        let at = summarize_within(&elements, n);
        assert_eq!(
            (at.json.as_str(), at.truncated, at.dropped),
            (whole.as_str(), false, 0)
        );
        let under = summarize_within(&elements, n - 1);
        assert!(under.truncated);
        assert_eq!(under.dropped, 1);
        assert!(chars(&under.json) < n);
    }

    #[test]
    fn every_cap_gives_the_longest_prefix_that_fits() {
        // Escapes, multi-byte chars, empty labels and values in the mix.
        let mut elements = vec![window("Wïndow \"q\"")];
        elements.push(el(ROLE_TEXT_FIELD, "", Some("tab\there")));
        elements.push(el("AXButton", "😀😀", Some("\u{1}")));
        elements.push(el("AXGroup", "", None));
        elements.push(el("AXStaticText", "back\\slash", Some("Été")));
        let whole = chars(&render(&elements, false));
        for cap in 0..whole + 3 {
            let s = summarize_within(&elements, cap);
            let kept = elements.len() - s.dropped;
            if s.truncated {
                assert!(s.dropped >= 1, "cap {cap}");
                assert_eq!(s.json, render(&elements[..kept], true), "cap {cap}");
                let fits = chars(&s.json) <= cap;
                assert!(fits || kept == 0, "cap {cap}");
                if kept + 1 < elements.len() {
                    assert!(
                        chars(&render(&elements[..=kept], true)) > cap,
                        "cap {cap}: could have kept one more"
                    );
                }
            } else {
                assert!(cap >= whole);
                assert_eq!(s.dropped, 0);
            }
        }
    }

    #[test]
    fn multi_byte_chars_are_counted_as_chars() {
        // Four bytes a char: a byte-counting cap would drop far more.
        let elements = long_tree(150, |_| "😀".repeat(10));
        let s = summarize(&elements);
        let bytes = render(&elements, false).len();
        let n = chars(&render(&elements, false));
        assert!(n <= MAX_SUMMARY_CHARS && bytes > MAX_SUMMARY_CHARS);
        assert!(!s.truncated);
        assert_eq!(s.dropped, 0);
        assert_eq!(chars(&s.json), n);
        // And over the cap, the kept part is measured in chars as well.
        let elements = long_tree(400, |_| "😀".repeat(10));
        let s = summarize(&elements);
        assert!(s.truncated);
        assert!(chars(&s.json) <= MAX_SUMMARY_CHARS);
        assert!(s.json.len() > MAX_SUMMARY_CHARS);
        let kept = elements.len() - s.dropped;
        assert!(chars(&render(&elements[..=kept], true)) > MAX_SUMMARY_CHARS);
    }

    #[test]
    fn an_element_too_big_on_its_own_is_dropped_with_the_rest() {
        let elements = vec![window("W"), el("AXStaticText", &"x".repeat(20_000), None)];
        let s = summarize(&elements);
        assert_eq!((s.truncated, s.dropped), (true, 1));
        assert_eq!(
            s.json,
            r#"{"elements":[{"role":"AXWindow","label":"W","bounds":[0,0,10,10]}],"text":"W","truncated":true}"#
        );
        let s = summarize(&[el(ROLE_WINDOW, &"x".repeat(20_000), None)]);
        assert_eq!((s.truncated, s.dropped), (true, 1));
        assert_eq!(s.json, r#"{"elements":[],"text":"","truncated":true}"#);
    }

    #[test]
    fn the_verifier_reads_what_summarize_writes() {
        let mut tab = el("AXTab", "Memories", None);
        tab.selected = Some(true);
        let elements = [
            window("Mail"),
            el(ROLE_TEXT_FIELD, "To", Some("a@b")),
            tab,
            el("AXStaticText", "Saved", None),
        ];
        let s = summarize(&elements);
        for (e, want) in [
            (
                Expectation::Text {
                    text: "Saved".into(),
                },
                VerificationStatus::Satisfied,
            ),
            (
                Expectation::Text {
                    text: "Gone".into(),
                },
                VerificationStatus::NotMet,
            ),
            (
                Expectation::Field {
                    label: "To".into(),
                    value: "a@b".into(),
                },
                VerificationStatus::Satisfied,
            ),
            (
                Expectation::Field {
                    label: "To".into(),
                    value: "x".into(),
                },
                VerificationStatus::NotMet,
            ),
            (
                Expectation::Selected {
                    label: "Memories".into(),
                },
                VerificationStatus::Satisfied,
            ),
        ] {
            assert_eq!(verify(&s.json, &e).status, want, "{e:?}");
        }
        // Cut: the field and the tab are no longer decidable, nor is absent text.
        let mut big = elements.to_vec();
        big.extend((0..3000).map(|i| el("AXButton", &format!("b{i}"), None)));
        let s = summarize(&big);
        assert!(s.truncated);
        for (e, want) in [
            (
                Expectation::Text {
                    text: "Saved".into(),
                },
                VerificationStatus::Satisfied,
            ),
            (
                Expectation::Text {
                    text: "Gone".into(),
                },
                VerificationStatus::Unavailable,
            ),
            (
                Expectation::Field {
                    label: "To".into(),
                    value: "a@b".into(),
                },
                VerificationStatus::Unavailable,
            ),
            (
                Expectation::Selected {
                    label: "Memories".into(),
                },
                VerificationStatus::Unavailable,
            ),
        ] {
            assert_eq!(verify(&s.json, &e).status, want, "{e:?}");
        }
    }

    #[test]
    fn output_parses_back_into_elements() {
        let elements = vec![window("W"), el(ROLE_TEXT_FIELD, "To", Some("a@b"))];
        let v = summarize(&elements).value();
        let back: Vec<Element> = serde_json::from_value(v["elements"].clone()).unwrap();
        assert_eq!(back, elements);
    }

    #[test]
    fn digest_is_stable_and_sensitive() {
        let s = summarize(&[window("Mail"), el(ROLE_TEXT_FIELD, "To", Some("a@b"))]);
        let d = s.digest();
        assert_eq!(d, state_digest(&s.json));
        assert_eq!(d.len(), 32);
        assert!(
            d.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        // Fixed value: the digest is part of what a session compares across calls.
        assert_eq!(
            state_digest(""),
            format!("{FNV_OFFSET:016x}{SECOND_OFFSET:016x}")
        );
        assert_eq!(&state_digest("a")[..16], "af63dc4c8601ec8c"); // FNV-1a 64 of "a"
        let other = summarize(&[window("Mail"), el(ROLE_TEXT_FIELD, "To", Some("a@c"))]);
        assert_ne!(other.digest(), d);
        let mut focused = el(ROLE_TEXT_FIELD, "To", Some("a@b"));
        focused.focused = Some(true);
        assert_ne!(summarize(&[window("Mail"), focused]).digest(), d);
        // Same bytes in another order, and one-byte changes, all differ.
        let mut seen = std::collections::HashSet::new();
        for s in ["ab", "ba", "abc", "acb", "abd", "ab ", " ab", "", "a", "b"] {
            assert!(seen.insert(state_digest(s)), "{s:?}");
        }
    }
}
