//! A person, scripted: an [`Approver`] that answers from a script and keeps every question.

use std::collections::VecDeque;

use keel_core::ToolCall;
use keel_runtime::approval::{Answer, Approver};

/// Answers `ask` with its scripted answers in order, then with its standing answer (or
/// panics, when it has none: the test asked more often than it scripted); answers `clarify`
/// with its scripted words in order, then `None` (no person). Keeps each call and reasons it
/// was asked about, and each question it was asked.
#[derive(Debug, Default)]
pub struct ScriptedApprover {
    answers: VecDeque<Answer>,
    otherwise: Option<Answer>,
    words: VecDeque<String>,
    /// Every `ask`: the call and the reasons, in order.
    pub asked: Vec<(ToolCall, Vec<String>)>,
    /// Every `clarify` question, in order.
    pub questions: Vec<String>,
}

impl ScriptedApprover {
    /// Answers `answers` in order, and panics when asked once more.
    pub fn answering(answers: impl IntoIterator<Item = Answer>) -> Self {
        Self {
            answers: answers.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Answers `answer` every time.
    pub fn always(answer: Answer) -> Self {
        Self {
            otherwise: Some(answer),
            ..Self::default()
        }
    }

    /// Also answers `clarify` with `words`, in order.
    pub fn clarifying<S: Into<String>>(mut self, words: impl IntoIterator<Item = S>) -> Self {
        self.words = words.into_iter().map(Into::into).collect();
        self
    }

    /// The reasons of every `ask`, in order.
    pub fn reasons(&self) -> Vec<Vec<String>> {
        self.asked.iter().map(|(_, r)| r.clone()).collect()
    }
}

impl Approver for ScriptedApprover {
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        self.asked.push((call.clone(), reasons.to_vec()));
        match (self.answers.pop_front(), self.otherwise) {
            (Some(answer), _) | (None, Some(answer)) => answer,
            (None, None) => panic!("asked more often than scripted: {reasons:?}"),
        }
    }

    fn clarify(&mut self, question: &str) -> Option<String> {
        self.questions.push(question.to_string());
        self.words.pop_front()
    }
}
