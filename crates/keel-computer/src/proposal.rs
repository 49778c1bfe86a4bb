//! The computer-use model's one proposal (N12 step 5, N19, N38a) and what makes an action
//! consequential (N8a).
//!
//! A proposal is exactly one JSON object: an answer, a finished claim, a takeover, or one
//! action. Anything else is refused, never repaired into an action: malformed JSON or an
//! unknown shape is `COMPUTER_INVALID_MODEL_OUTPUT`, several proposals or several actions are
//! `COMPUTER_EXPECTED_SINGLE_ACTION`. The only leniency is that a reply may wrap its one object
//! in a single Markdown code fence, which is framing, not JSON.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use super::codes::ErrorCode;
use super::observation::{Action, Element};

/// The longest `wait` a proposal may ask for. A longer one is refused, not shortened: a
/// model-chosen wait holds the desktop for every run of the process.
pub const MAX_WAIT_MS: u32 = 10_000;

/// One proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proposal {
    Answer { text: String },
    Finished { claimed_success: bool },
    Takeover { reason: String },
    Action { action: Action, consequential: bool },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
enum Wire {
    Answer {
        text: String,
    },
    Finished {
        #[serde(rename = "claimedSuccess")]
        claimed_success: bool,
    },
    Takeover {
        reason: String,
    },
    Action {
        action: Action,
        #[serde(default)]
        consequential: bool,
    },
}

/// Why a reply is not a proposal: the code and a short diagnostic in keel's words (the raw
/// reply is not echoed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadProposal {
    pub code: ErrorCode,
    pub diagnostic: String,
}

fn bad(code: ErrorCode, diagnostic: impl Into<String>) -> BadProposal {
    BadProposal {
        code,
        diagnostic: diagnostic.into(),
    }
}

fn unfenced(reply: &str) -> &str {
    let t = reply.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return t;
    };
    // The info string (`json`) runs to the first line break.
    match body.split_once('\n') {
        Some((info, inner)) if !info.contains('{') && !inner.contains("```") => inner.trim(),
        _ => t,
    }
}

/// Reads the model's reply as one proposal.
pub fn parse(reply: &str) -> Result<Proposal, BadProposal> {
    let text = unfenced(reply);
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let first = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            return Err(bad(
                ErrorCode::InvalidModelOutput,
                format!("the reply is not JSON ({e})"),
            ));
        }
        None => return Err(bad(ErrorCode::InvalidModelOutput, "the reply is empty")),
    };
    if let Some(next) = stream.next() {
        return Err(match next {
            Ok(_) => bad(
                ErrorCode::ExpectedSingleAction,
                "the reply holds more than one JSON value",
            ),
            Err(_) => bad(
                ErrorCode::InvalidModelOutput,
                "the reply has text after its JSON value",
            ),
        });
    }
    if first.is_array() {
        return Err(bad(
            ErrorCode::ExpectedSingleAction,
            "the reply is a list; one proposal was asked for",
        ));
    }
    if first.get("actions").is_some() || first.get("action").is_some_and(Value::is_array) {
        return Err(bad(
            ErrorCode::ExpectedSingleAction,
            "the reply proposes several actions; one was asked for",
        ));
    }
    match serde_json::from_value::<Wire>(first) {
        Ok(Wire::Answer { text }) => Ok(Proposal::Answer { text }),
        Ok(Wire::Finished { claimed_success }) => Ok(Proposal::Finished { claimed_success }),
        Ok(Wire::Takeover { reason }) => Ok(Proposal::Takeover { reason }),
        Ok(Wire::Action {
            action: Action::Wait { ms },
            ..
        }) if ms > MAX_WAIT_MS => Err(bad(
            ErrorCode::InvalidModelOutput,
            format!("a wait is at most {MAX_WAIT_MS} ms, not {ms}"),
        )),
        Ok(Wire::Action {
            action,
            consequential,
        }) => Ok(Proposal::Action {
            action,
            consequential,
        }),
        Err(e) => Err(bad(
            ErrorCode::InvalidModelOutput,
            format!("the reply is not a valid proposal ({e})"),
        )),
    }
}

/// The words that make an action consequential when its target's label or role holds one
/// (N8a): sending, publishing, deleting, buying, paying, passwords, security settings. Matched
/// case-insensitively at the start of a word, so inflections count too ("Sending", "Deleted",
/// "Payment"); a false match only means one more question to the user.
pub const CONSEQUENTIAL_WORDS: [&str; 7] = [
    "send", "publish", "delete", "buy", "pay", "password", "security",
];

fn consequential_words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let alternatives = CONSEQUENTIAL_WORDS.join("|");
        Regex::new(&format!(r"(?i)\b(?:{alternatives}|sent|purchase)")).unwrap_or_else(|_| {
            // The pattern is a fixed literal alternation; it always compiles.
            unreachable!("consequential word pattern")
        })
    })
}

/// The element an action lands on: the innermost element whose bounds hold its point, or,
/// for input without a point (keys, typing), the focused element.
pub fn target<'a>(elements: &'a [Element], action: &Action) -> Option<&'a Element> {
    match action.point() {
        Some((x, y)) => elements
            .iter()
            .filter(|e| {
                let [ex, ey, w, h] = e.bounds;
                w > 0 && h > 0 && x >= ex && y >= ey && x < ex + w && y < ey + h
            })
            .min_by_key(|e| i64::from(e.bounds[2]) * i64::from(e.bounds[3])),
        None => elements.iter().find(|e| e.focused == Some(true)),
    }
}

/// Whether an action needs the user's approval before it runs (N8a). `wait` never does.
pub fn is_consequential(marked: bool, action: &Action, elements: &[Element]) -> bool {
    if matches!(action, Action::Wait { .. }) {
        return false;
    }
    if marked {
        return true;
    }
    target(elements, action).is_some_and(|e| {
        consequential_words().is_match(&e.label) || consequential_words().is_match(&e.role)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(reply: &str) -> ErrorCode {
        match parse(reply) {
            Err(b) => b.code,
            Ok(p) => panic!("{reply} should be refused, got {p:?}"),
        }
    }

    #[test]
    fn each_proposal_kind_parses() {
        assert_eq!(
            parse(r#"{"type":"answer","text":"It says Hi"}"#),
            Ok(Proposal::Answer {
                text: "It says Hi".into()
            })
        );
        assert_eq!(
            parse(r#"{"type":"finished","claimedSuccess":true}"#),
            Ok(Proposal::Finished {
                claimed_success: true
            })
        );
        assert_eq!(
            parse(r#"{"type":"takeover","reason":"captcha"}"#),
            Ok(Proposal::Takeover {
                reason: "captcha".into()
            })
        );
        assert_eq!(
            parse(
                "```json\n{\"type\":\"action\",\"action\":{\"type\":\"click\",\"x\":10,\"y\":20}}\n```"
            ),
            Ok(Proposal::Action {
                action: Action::Click { x: 10, y: 20 },
                consequential: false
            })
        );
        assert_eq!(
            parse(
                r#"{"type":"action","action":{"type":"typeText","text":"hi"},"consequential":true}"#
            ),
            Ok(Proposal::Action {
                action: Action::TypeText {
                    text: "hi".into(),
                    x: None,
                    y: None
                },
                consequential: true
            })
        );
    }

    #[test]
    fn malformed_output_is_never_repaired() {
        assert_eq!(code("click the button"), ErrorCode::InvalidModelOutput);
        assert_eq!(code(""), ErrorCode::InvalidModelOutput);
        assert_eq!(
            code(r#"{"type":"action","action":{"type":"click","x":1}"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"{"type":"action","action":{"type":"click","x":1}}"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"{"type":"action","action":{"type":"drag","x":1,"y":2}}"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"{"type":"answer","text":"a","extra":1}"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"{"type":"answer","text":"a"} trailing"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"Sure! {"type":"answer","text":"a"}"#),
            ErrorCode::InvalidModelOutput
        );
        assert_eq!(
            code(r#"{"type":"action","action":{"type":"wait","ms":10001}}"#),
            ErrorCode::InvalidModelOutput
        );
        assert!(parse(r#"{"type":"action","action":{"type":"wait","ms":10000}}"#).is_ok());
    }

    #[test]
    fn several_proposals_or_actions_are_refused() {
        assert_eq!(
            code(r#"{"type":"answer","text":"a"}{"type":"answer","text":"b"}"#),
            ErrorCode::ExpectedSingleAction
        );
        assert_eq!(
            code(r#"[{"type":"answer","text":"a"}]"#),
            ErrorCode::ExpectedSingleAction
        );
        assert_eq!(
            code(
                r#"{"type":"action","action":[{"type":"click","x":1,"y":1},{"type":"click","x":2,"y":2}]}"#
            ),
            ErrorCode::ExpectedSingleAction
        );
        assert_eq!(
            code(r#"{"type":"action","actions":[{"type":"click","x":1,"y":1}]}"#),
            ErrorCode::ExpectedSingleAction
        );
    }

    fn el(role: &str, label: &str, bounds: [i32; 4]) -> Element {
        Element {
            role: role.into(),
            label: label.into(),
            bounds,
            ..Element::default()
        }
    }

    #[test]
    fn consequential_by_mark_or_by_the_target_label_or_role() {
        let elements = vec![
            el("AXWindow", "Mail", [0, 0, 400, 300]),
            el("push button", "Send now", [10, 10, 50, 20]),
            el("push button", "Bold", [100, 10, 50, 20]),
            el("password text", "", [10, 100, 200, 20]),
        ];
        let click = |x, y| Action::Click { x, y };
        assert!(is_consequential(false, &click(20, 15), &elements));
        assert!(!is_consequential(false, &click(110, 15), &elements));
        assert!(is_consequential(true, &click(110, 15), &elements));
        assert!(is_consequential(false, &click(50, 110), &elements));
        assert!(!is_consequential(true, &Action::Wait { ms: 10 }, &elements));
        // Typing without a point goes to the focused element.
        let mut focused = elements.clone();
        focused[3].focused = Some(true);
        let typing = Action::TypeText {
            text: "hunter2".into(),
            x: None,
            y: None,
        };
        assert!(is_consequential(false, &typing, &focused));
        assert!(!is_consequential(false, &typing, &elements));
        // Inflections count.
        let del = vec![el("menu item", "Deleted items: empty", [0, 0, 10, 10])];
        assert!(is_consequential(false, &click(1, 1), &del));
    }

    #[test]
    fn the_target_is_the_innermost_element_under_the_point() {
        let elements = vec![
            el("AXWindow", "W", [0, 0, 400, 300]),
            el("panel", "P", [0, 0, 200, 200]),
            el("push button", "B", [10, 10, 20, 20]),
        ];
        let t = target(&elements, &Action::Click { x: 15, y: 15 });
        assert_eq!(t.map(|e| e.label.as_str()), Some("B"));
        assert_eq!(target(&elements, &Action::Click { x: 500, y: 5 }), None);
    }
}
