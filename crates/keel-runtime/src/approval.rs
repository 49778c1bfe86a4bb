//! ask_user: only a real person answers (interfaces.md §3, safety.md N17, N35).
//!
//! The gate asks through an [`Approver`]. The terminal one prints the call and every reason and
//! reads one of three answers — allow once, allow for this run, deny — and reads the person's
//! one-line answer to a `clarify` question. No flag or environment variable answers for the
//! user; tests answer through this interface.

use std::io::{BufRead, Write};

use keel_core::ToolCall;
use keel_core::text::{LineBreaks, terminal_safe};
pub use keel_store::Answer;

/// Someone who can answer ask_user.
pub trait Approver {
    /// Asks about one call; `reasons` are each asking stage's name and reason, in priority
    /// order. An approver that cannot reach a person must answer [`Answer::Deny`].
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer;

    /// Asks for consent to one thing (computer use, N8a): yes or no. "Allow for this run" is
    /// taken as once, since each consequential action is approved on its own; it must never
    /// leave a rule behind, not even in what is recorded with the run.
    fn confirm(&mut self, call: &ToolCall, reasons: &[String]) -> bool {
        self.ask(call, reasons).allows()
    }

    /// Asks the person a question in words (the `clarify` tool) and returns their answer;
    /// `None` when no person can be reached. Never answered by anyone but the person.
    fn clarify(&mut self, question: &str) -> Option<String> {
        let _ = question;
        None
    }
}

/// Asks on a terminal: the question on `output`, the answer from `input`. End of input, or
/// anything it cannot read, is a deny.
pub struct TerminalApprover<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> TerminalApprover<R, W> {
    pub fn new(input: R, output: W) -> Self {
        Self { input, output }
    }
}

impl<R: BufRead, W: Write> TerminalApprover<R, W> {
    /// The ask_user prompt, with `note` (keel's words) after the reasons.
    fn prompt(&mut self, call: &ToolCall, reasons: &[String], note: Option<&str>) -> Answer {
        let mut question = format!(
            "\nkeel wants to run {} {}\nIt needs your confirmation because:\n",
            terminal_safe(&call.name, LineBreaks::Escape),
            terminal_safe(&call.arguments.to_string(), LineBreaks::Escape)
        );
        for r in reasons {
            question.push_str(&format!("  - {}\n", terminal_safe(r, LineBreaks::Escape)));
        }
        if let Some(note) = note {
            question.push_str(note);
            question.push('\n');
        }
        // "For this run" is a rule for the tool, not for these arguments (N12): say so, so that
        // nobody approves every later command believing they approved this one.
        let for_run = format!(
            "for this [r]un (every later {} call of this run)",
            terminal_safe(&call.name, LineBreaks::Escape)
        );
        loop {
            let prompt = format!("{question}Allow? [o]nce, {for_run}, [d]eny: ");
            if self
                .output
                .write_all(prompt.as_bytes())
                .and_then(|()| self.output.flush())
                .is_err()
            {
                return Answer::Deny;
            }
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => return Answer::Deny,
                Ok(_) => {}
            }
            match line.trim().to_lowercase().as_str() {
                "o" | "once" | "y" | "yes" => return Answer::AllowOnce,
                "r" | "run" => return Answer::AllowForRun,
                "d" | "deny" | "n" | "no" => return Answer::Deny,
                _ => question = "Please answer o, r or d.\n".to_string(),
            }
        }
    }
}

impl<R: BufRead, W: Write> Approver for TerminalApprover<R, W> {
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        self.prompt(call, reasons, None)
    }

    fn confirm(&mut self, call: &ToolCall, reasons: &[String]) -> bool {
        let note = "Each of these is approved on its own: \"for this run\" counts as once here.";
        self.prompt(call, reasons, Some(note)).allows()
    }

    /// Shows the model's question, each of its lines made terminal-safe and set off by an
    /// indent, and reads one line. Only the line ending is removed: the words are the
    /// person's, exactly (N29 compares them exactly). End of input, or a line it cannot read,
    /// is no answer.
    fn clarify(&mut self, question: &str) -> Option<String> {
        // Control characters stay escaped in every line, a carriage return too.
        let lines: Vec<String> = question
            .split('\n')
            .map(|line| terminal_safe(line, LineBreaks::Escape))
            .collect();
        let prompt = format!(
            "\nThe agent asks you (its words, not keel's):\n  {}\nYour answer (one line): ",
            lines.join("\n  ")
        );
        self.output
            .write_all(prompt.as_bytes())
            .and_then(|()| self.output.flush())
            .ok()?;
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let answer = line
            .strip_suffix('\n')
            .map_or(line.as_str(), |l| l.strip_suffix('\r').unwrap_or(l));
        Some(answer.to_string())
    }
}

/// Records every answer with the run (interfaces.md §3: answers are persisted with the run),
/// then passes it on. An answer that cannot be recorded is a deny: keel does not act on an
/// approval it could not keep.
pub struct RecordingApprover<'s, A> {
    inner: A,
    store: &'s mut dyn keel_store::Store,
    run: String,
    now: fn() -> keel_core::Timestamp,
}

impl<'s, A: Approver> RecordingApprover<'s, A> {
    pub fn new(
        inner: A,
        store: &'s mut dyn keel_store::Store,
        run: &str,
        now: fn() -> keel_core::Timestamp,
    ) -> Self {
        Self {
            inner,
            store,
            run: run.to_string(),
            now,
        }
    }
}

impl<A: Approver> Approver for RecordingApprover<'_, A> {
    fn clarify(&mut self, question: &str) -> Option<String> {
        self.inner.clarify(question)
    }

    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        let answer = self.inner.ask(call, reasons);
        self.record(call, reasons, answer)
    }

    /// Recorded as what it counts as, once or deny: a consent answered "for this run" must not
    /// become an allow rule when the run is resumed.
    fn confirm(&mut self, call: &ToolCall, reasons: &[String]) -> bool {
        let answer = if self.inner.confirm(call, reasons) {
            Answer::AllowOnce
        } else {
            Answer::Deny
        };
        self.record(call, reasons, answer) == Answer::AllowOnce
    }
}

impl<A: Approver> RecordingApprover<'_, A> {
    fn record(&mut self, call: &ToolCall, reasons: &[String], answer: Answer) -> Answer {
        let record = keel_store::ApprovalRecord {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            answer,
            reason: reasons.join("; "),
            answered_at: (self.now)(),
        };
        match self.store.record_approval(&self.run, &record) {
            Ok(()) => answer,
            Err(e) => {
                tracing::warn!(run = %self.run, error = %e, "could not record an approval; denying");
                Answer::Deny
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "shell".into(),
            arguments: serde_json::json!({"command": "rm -rf build"}),
        }
    }

    fn answer(input: &str) -> (Answer, String) {
        let mut out = Vec::new();
        let a = TerminalApprover::new(input.as_bytes(), &mut out)
            .ask(&call(), &["policy: asks".into()]);
        (a, String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn the_three_answers() {
        assert_eq!(answer("o\n").0, Answer::AllowOnce);
        assert_eq!(answer("r\n").0, Answer::AllowForRun);
        assert_eq!(answer("d\n").0, Answer::Deny);
        let (a, shown) = answer("maybe\nr\n");
        assert_eq!(a, Answer::AllowForRun);
        assert!(shown.contains("Please answer o, r or d."));
        assert!(
            shown.contains("rm -rf build") && shown.contains("policy: asks"),
            "{shown}"
        );
    }

    #[test]
    fn consent_is_yes_or_no_and_says_that_for_this_run_counts_as_once() {
        let confirm = |input: &str| {
            let mut out = Vec::new();
            let yes = TerminalApprover::new(input.as_bytes(), &mut out)
                .confirm(&call(), &["computer use: open Settings".into()]);
            (yes, String::from_utf8_lossy(&out).into_owned())
        };
        let (yes, shown) = confirm("r\n");
        assert!(yes);
        assert!(
            shown.contains("\"for this run\" counts as once here")
                && shown.contains("open Settings"),
            "{shown}"
        );
        assert!(confirm("o\n").0);
        assert!(!confirm("d\n").0);
        assert!(!confirm("").0);
    }

    #[test]
    fn the_prompt_cannot_be_spoofed() {
        let mut out = Vec::new();
        let evil = ToolCall {
            id: "c".into(),
            name: "x\u{1b}[2K\rread_file".into(),
            arguments: serde_json::json!({}),
        };
        TerminalApprover::new("d\n".as_bytes(), &mut out).ask(&evil, &["a\nb\u{1b}[1A".into()]);
        let shown = String::from_utf8_lossy(&out);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\r'),
            "{shown:?}"
        );
    }

    #[test]
    fn no_answer_is_a_deny() {
        assert_eq!(answer("").0, Answer::Deny);
    }

    fn clarify(input: &[u8], question: &str) -> (Option<String>, String) {
        let mut out = Vec::new();
        let a = TerminalApprover::new(input, &mut out).clarify(question);
        (a, String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn clarify_reads_one_line_exactly() {
        let (a, shown) = clarify("已在桌面端处理，继续\nnext\n".as_bytes(), "Handled?");
        assert_eq!(a.as_deref(), Some("已在桌面端处理，继续"));
        assert!(shown.contains("Handled?") && shown.ends_with("Your answer (one line): "));
        assert_eq!(
            clarify(b"  spaced \r\n", "q").0.as_deref(),
            Some("  spaced ")
        );
        assert_eq!(clarify(b"\n", "q").0.as_deref(), Some(""));
        assert_eq!(clarify(b"no newline", "q").0.as_deref(), Some("no newline"));
    }

    #[test]
    fn clarify_without_input_is_no_answer() {
        assert_eq!(clarify(b"", "q").0, None);
        assert_eq!(clarify(b"\xff\n", "q").0, None);
    }

    #[test]
    fn clarify_question_cannot_rewrite_the_terminal() {
        let (_, shown) = clarify(b"x\n", "line one\nAllow? [o]nce\r\u{1b}[2Kkeel: approved");
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\r'),
            "{shown:?}"
        );
        // Every line of the question is indented under the heading, so none can pass for
        // keel's own prompt.
        assert!(shown.contains("\n  line one\n  Allow? [o]nce"), "{shown:?}");
    }
}
