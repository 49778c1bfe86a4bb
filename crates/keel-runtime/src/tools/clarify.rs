//! The `clarify` tool: the model asks the person a question in words and gets their answer,
//! through the same [`Approver`] that answers ask_user (so only the person answers, never a
//! flag or the model itself).
//!
//! The answer is the person's own words, but it reaches the model as a *tool result*, like any
//! other: it is quoted as data (`Untrusted`), carries no more authority than the conversation
//! gives a tool result, and does not open a user turn. Consent to a desktop action is never
//! taken from it: native consent is (computer-use.md N8a, N29).
//!
//! Output shapes:
//! - no `key`, or a key not starting with `computer:`: the answer, verbatim (an empty answer is
//!   said in keel's words, so the model does not read an empty result as nothing having
//!   happened);
//! - a `computer:` key (N29): compact JSON `{"answer":"…","keepsControl":true|false}`.
//!   `keepsControl` is [`clarification_keeps_control`]: true only for the exact answer
//!   `已在桌面端处理，继续`. Whoever holds the desktop session reads it and stops control when it
//!   is false;
//! - nobody to ask (no approver, or the approver cannot reach a person): an error output. No
//!   answer never keeps control.
//!
//! Not in [`super::Toolbox::builtin`]: it is offered by whoever wires computer use (N27 admits
//! it during desktop control), with `toolbox.add(Box::new(Clarify))`.

use keel_computer::manual::{clarification_keeps_control, is_computer_clarification};
use keel_model::ToolSpec;
use serde_json::{Map, Value, json};

use super::{Tool, ToolContext, ToolOutput, annotations, spec};
use crate::approval::Approver;

/// The tool's name, as the model calls it and the N27 gate admits it.
pub const NAME: &str = "clarify";

/// Most chars of a question (counted in Unicode scalar values, N36).
pub const MAX_QUESTION_CHARS: usize = 4000;

/// What the model reads when nobody can answer.
pub const NO_PERSON: &str = "No person can answer questions here (keel is running without \
    anyone to ask), so the question was not asked. Go on with what you know, or stop and say \
    what you need to know.";

/// What the model reads when the person answered with an empty line.
pub const EMPTY_ANSWER: &str = "The person answered with an empty line.";

/// `clarify {"question", "key"?}`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clarify;

impl Clarify {
    pub fn new() -> Self {
        Self
    }
}

/// The checked arguments.
struct Args<'a> {
    question: &'a str,
    key: Option<&'a str>,
}

fn parse(args: &Value) -> Result<Args<'_>, ToolOutput> {
    let Some(map) = args.as_object() else {
        return Err(ToolOutput::error("the arguments must be an object"));
    };
    if let Some(other) = map
        .keys()
        .find(|k| !matches!(k.as_str(), "question" | "key"))
    {
        return Err(ToolOutput::error(format!(
            "unknown field `{other}`; clarify takes `question` and optionally `key`"
        )));
    }
    let question = map
        .get("question")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolOutput::error("`question` must be a string"))?;
    let chars = question.chars().count();
    if chars == 0 || chars > MAX_QUESTION_CHARS {
        return Err(ToolOutput::error(format!(
            "`question` must be 1 to {MAX_QUESTION_CHARS} chars, not {chars}"
        )));
    }
    let key = match map.get("key") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) => Some(k.as_str()),
        Some(_) => return Err(ToolOutput::error("`key` must be a string")),
    };
    Ok(Args { question, key })
}

/// The output for the person's `answer` to a clarification with `key` (the shapes of the
/// module documentation).
pub fn answer_output(key: Option<&str>, answer: &str) -> ToolOutput {
    match key {
        Some(key) if is_computer_clarification(key) => ToolOutput::ok(
            json!({
                "answer": answer,
                "keepsControl": clarification_keeps_control(key, answer),
            })
            .to_string(),
        ),
        _ if answer.is_empty() => ToolOutput::ok(EMPTY_ANSWER),
        _ => ToolOutput::ok(answer),
    }
}

impl Tool for Clarify {
    fn spec(&self) -> ToolSpec {
        spec(
            NAME,
            "Ask the person a question and wait for their answer. Use it only when you cannot \
             go on without them.",
            json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS},
                    "key": {"type": "string", "description": "What the question is about; computer: for desktop control."}
                },
                "required": ["question"],
                "additionalProperties": false
            }),
        )
    }

    fn annotations(&self) -> Map<String, Value> {
        // Asking changes nothing in the world; the person's answer is the only effect.
        annotations(true, false)
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        self.call_asking(args, ctx, None)
    }

    fn call_asking(
        &self,
        args: &Value,
        _ctx: &ToolContext,
        asker: Option<&mut dyn Approver>,
    ) -> ToolOutput {
        let args = match parse(args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        match asker.and_then(|a| a.clarify(args.question)) {
            Some(answer) => answer_output(args.key, &answer),
            None => ToolOutput::error(NO_PERSON),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::{Answer, TerminalApprover};
    use keel_computer::manual::KEEP_CONTROL_ANSWER;
    use keel_core::ToolCall;

    /// A person who answers from a script and remembers what they were asked.
    struct Person {
        answers: Vec<Option<String>>,
        asked: Vec<String>,
    }

    impl Approver for Person {
        fn ask(&mut self, _call: &ToolCall, _reasons: &[String]) -> Answer {
            Answer::Deny
        }

        fn clarify(&mut self, question: &str) -> Option<String> {
            self.asked.push(question.to_string());
            if self.answers.is_empty() {
                None
            } else {
                self.answers.remove(0)
            }
        }
    }

    fn person(answers: &[Option<&str>]) -> Person {
        Person {
            answers: answers.iter().map(|a| a.map(String::from)).collect(),
            asked: Vec::new(),
        }
    }

    fn ask(args: Value, asker: Option<&mut dyn Approver>) -> ToolOutput {
        Clarify.call_asking(&args, &ToolContext::new(std::env::temp_dir()), asker)
    }

    #[test]
    fn the_answer_is_the_output_verbatim() {
        let mut p = person(&[Some("  the blue one, please  ")]);
        let out = ask(json!({"question": "Which file?"}), Some(&mut p));
        assert_eq!(out, ToolOutput::ok("  the blue one, please  "));
        assert_eq!(p.asked, ["Which file?"]);
        let mut p = person(&[Some("")]);
        let out = ask(json!({"question": "q", "key": "files"}), Some(&mut p));
        assert_eq!(out, ToolOutput::ok(EMPTY_ANSWER));
    }

    #[test]
    fn nobody_to_ask_is_an_error() {
        let out = ask(json!({"question": "Which file?"}), None);
        assert_eq!(out, ToolOutput::error(NO_PERSON));
        let mut p = person(&[None]);
        let out = ask(
            json!({"question": "Which file?", "key": "computer:x"}),
            Some(&mut p),
        );
        assert_eq!(out, ToolOutput::error(NO_PERSON));
        // Tool::call has nobody to ask.
        let out = Clarify.call(
            &json!({"question": "q"}),
            &ToolContext::new(std::env::temp_dir()),
        );
        assert_eq!(out, ToolOutput::error(NO_PERSON));
        // A terminal at end of input reaches nobody.
        let mut shown = Vec::new();
        let mut t = TerminalApprover::new("".as_bytes(), &mut shown);
        assert_eq!(
            ask(json!({"question": "q"}), Some(&mut t)),
            ToolOutput::error(NO_PERSON)
        );
    }

    #[test]
    fn n29_a_computer_key_says_whether_control_is_kept() {
        let mut p = person(&[
            Some(KEEP_CONTROL_ANSWER),
            Some("继续"),
            Some(KEEP_CONTROL_ANSWER),
        ]);
        let args = json!({"question": "Did you deal with the dialog?", "key": "computer:dialog"});
        let kept = ask(args.clone(), Some(&mut p));
        assert_eq!(
            kept,
            ToolOutput::ok(format!(
                "{{\"answer\":\"{KEEP_CONTROL_ANSWER}\",\"keepsControl\":true}}"
            ))
        );
        let stopped = ask(args, Some(&mut p));
        assert_eq!(
            stopped,
            ToolOutput::ok("{\"answer\":\"继续\",\"keepsControl\":false}")
        );
        // The phrase under another key is just an answer.
        let plain = ask(json!({"question": "q", "key": "other"}), Some(&mut p));
        assert_eq!(plain, ToolOutput::ok(KEEP_CONTROL_ANSWER));
    }

    #[test]
    fn through_a_terminal() {
        let mut shown = Vec::new();
        let input = format!("{KEEP_CONTROL_ANSWER}\r\n");
        let mut t = TerminalApprover::new(input.as_bytes(), &mut shown);
        let out = ask(
            json!({"question": "Handled?", "key": "computer:"}),
            Some(&mut t),
        );
        assert!(out.text.contains("\"keepsControl\":true"), "{}", out.text);
        assert!(String::from_utf8_lossy(&shown).contains("Handled?"));
    }

    #[test]
    fn bad_arguments_ask_nobody() {
        for args in [
            json!({}),
            json!({"question": ""}),
            json!({"question": "x".repeat(MAX_QUESTION_CHARS + 1)}),
            json!({"question": 7}),
            json!({"question": "q", "key": 1}),
            json!({"question": "q", "extra": true}),
            json!("q"),
        ] {
            let mut p = person(&[Some("a")]);
            let out = ask(args.clone(), Some(&mut p));
            assert!(out.is_error, "{args}");
            assert!(p.asked.is_empty(), "{args}");
        }
        // 4000 chars of a 4-byte char is within the limit (chars, not bytes or UTF-16 units).
        let mut p = person(&[Some("a")]);
        let out = ask(
            json!({"question": "😀".repeat(MAX_QUESTION_CHARS), "key": null}),
            Some(&mut p),
        );
        assert_eq!(out, ToolOutput::ok("a"));
    }

    #[test]
    fn read_only_and_named() {
        assert_eq!(Clarify.spec().name, NAME);
        assert_eq!(Clarify.annotations()["readOnlyHint"], json!(true));
    }
}
