//! The summary draft: one pipeline for compaction and the handoff preview (bridge.md N20,
//! system-notes.md N23). Fold the run (N38), build the budgeted source (N5–N12), refuse a
//! blank one, choose the summary's language, write the worker prompt; then, once the worker
//! has answered (the model call, with its deadline, is keel-runtime's `worker`), check that the
//! answer is a summary and finish the draft (N4, N19). Both callers run exactly these steps, so
//! they cannot drift apart again; what differs is only the instruction ([`Purpose`]) and what
//! each does with a failure.
//!
//! **Language.** The summary is written in the conversation's language: the one keel's
//! conversation tracker established from the user's own messages (notifications.md N17–N23,
//! persisted with the run), else N17's `detect_lang` over those messages alone. The source
//! text is never read for it: its section headers are keel's Chinese words (N1), which made a
//! one-line English run come out `zh`.
//!
//! **The check.** A worker answer that repeats its instruction back (or the source's section
//! headers), or that lacks one of the five sections the instruction asks for (N15), is a
//! [`Rejection`], never a summary: a small model that cannot follow the instruction echoes it,
//! and a draft made of that would start the next run, or replace the folded turns, with
//! nothing in it.

use crate::bridge::fold::fold_items;
use crate::bridge::message::ChatMessage;
use crate::bridge::source::{BridgeSource, SECTION_HEADERS, SourceOptions, build_bridge_source};
use crate::bridge::{
    HandoffLang, build_bridge_instruction, detect_lang, finish_draft, worker_prompt,
};
use crate::compaction::{self, Compaction, PriorSummary, constraint_sources};
use crate::item::Item;
use crate::language::ConversationLanguage;
use crate::notes::SystemNotes;
use crate::notify::Lang;
use crate::text::{is_blank, is_js_whitespace, js_trim};

/// A run as the bridge reads it (N38), with the summary it already carries in place: its last
/// compaction summary, or — for a run made by a handoff — the handoff summary it started from.
pub fn fold_run<'a>(
    items: &[Item],
    notes: &'a SystemNotes,
    last_round: Option<&Compaction>,
) -> (Vec<ChatMessage>, Option<PriorSummary<'a>>) {
    let prior = PriorSummary::of_run(notes, last_round);
    (fold_items(items, prior.map(PriorSummary::folded)), prior)
}

/// What the draft is for; it picks the worker's instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A handoff to another preset (N15), with the `--summary-budget` given, if any.
    Handoff { summary_char_budget: Option<i64> },
    /// A compaction round inside the run (`[compaction] summary_chars`).
    Compaction { summary_chars: i64 },
}

/// Everything the pure steps read.
#[derive(Clone, Copy, Debug)]
pub struct DraftRequest<'a> {
    /// What the worker summarises, with the prior summary in place: the whole run for a
    /// handoff, the folded part for a compaction.
    pub messages: &'a [ChatMessage],
    /// The whole run, folded: the user's messages decide the language and the user's active
    /// prohibitions, wherever a compaction's cut fell.
    pub whole_run: &'a [ChatMessage],
    /// The summary the run already carries; read as the user's words for their prohibitions.
    pub prior: Option<PriorSummary<'a>>,
    /// The run's conversation language, as the turn loop tracked it.
    pub conversation: ConversationLanguage,
    /// A language the person asked for (`--lang zh|en`); `None` is the conversation's.
    pub lang: Option<HandoffLang>,
    /// The source budget (N5); `None` is the spec's default.
    pub source_char_budget: Option<i64>,
    pub purpose: Purpose,
}

/// The source is blank (the spec's `empty-source`): nothing to summarise, or — when `dropped`
/// is not empty — a budget too small for any section. Each caller words it for its own
/// setting (`--source-budget`, `[compaction] source_chars`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("empty-source: the summary worker's source is empty (dropped by the budget: {dropped:?})")]
pub struct EmptySource {
    pub dropped: Vec<String>,
}

/// A draft ready for the worker: its source, language and prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftJob {
    pub source: BridgeSource,
    pub lang: HandoffLang,
    pub instruction: String,
    /// The instruction, then the source (N20): the worker's one message.
    pub prompt: String,
    /// What the user's active prohibitions are read from (the prior summary, then every user
    /// message of the whole run).
    constraint_sources: Vec<ChatMessage>,
}

/// The pure steps before the worker: source, blank check, language, instruction, prompt.
pub fn prepare(request: DraftRequest<'_>) -> Result<DraftJob, EmptySource> {
    let source = build_bridge_source(
        request.messages,
        SourceOptions {
            source_char_budget: request.source_char_budget,
            visual_evidence_char_budget: None,
        },
    );
    if is_blank(&source.text) {
        return Err(EmptySource {
            dropped: source.dropped,
        });
    }
    let lang = request
        .lang
        .unwrap_or_else(|| conversation_lang(&request.conversation, request.whole_run));
    let instruction = match request.purpose {
        Purpose::Handoff {
            summary_char_budget,
        } => build_bridge_instruction(lang, summary_char_budget),
        Purpose::Compaction { summary_chars } => compaction::instruction(lang, summary_chars),
    };
    let prompt = worker_prompt(&instruction, &source);
    Ok(DraftJob {
        constraint_sources: constraint_sources(request.prior, request.whole_run),
        source,
        lang,
        instruction,
        prompt,
    })
}

/// The summary's language when nobody asked for one: the conversation tracker's, else N17's
/// `detect_lang` over the user's messages only (never over the source, whose headers are
/// keel's Chinese). A run the tracker has not decided — messages too short to tell, or a run
/// from before keel persisted the language — still follows what its user wrote.
pub fn conversation_lang(
    conversation: &ConversationLanguage,
    messages: &[ChatMessage],
) -> HandoffLang {
    match conversation.current {
        Some(Lang::ZhCn) => HandoffLang::Zh,
        Some(Lang::En) => HandoffLang::En,
        None => {
            let users: Vec<&str> = messages
                .iter()
                .filter(|m| m.role == "user" && !m.is_compaction())
                .map(|m| m.content.as_str())
                .collect();
            detect_lang(&users.join("\n"))
        }
    }
}

impl DraftJob {
    /// Whether the worker's answer is a summary ([`check_draft`] against this job's
    /// instruction).
    pub fn check(&self, answer: &str) -> Result<(), Rejection> {
        check_draft(answer, &self.instruction)
    }

    /// The draft from the worker's answer: checked, then the verbatim visual evidence and the
    /// user's active prohibitions the answer omits appended (N4, N19, N36).
    pub fn finish(&self, answer: &str) -> Result<String, Rejection> {
        self.check(answer)?;
        Ok(finish_draft(
            answer,
            &self.source,
            &self.constraint_sources,
            self.lang,
        ))
    }

    /// A draft for the person to write when the worker's was rejected: the five section
    /// headings in the job's language, empty, then what keel appends to every draft (the
    /// visual evidence and the active prohibitions), so nothing keel carries is lost.
    pub fn form(&self) -> String {
        let headings: Vec<String> = REQUIRED_SECTIONS
            .iter()
            .map(|s| format!("## {}", s.heading(self.lang)))
            .collect();
        finish_draft(
            &headings.join("\n\n"),
            &self.source,
            &self.constraint_sources,
            self.lang,
        )
    }
}

/// One of the five sections every summary has (N15; the compaction instruction asks for the
/// same five).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequiredSection {
    /// Its English name, as the instruction spells it.
    pub name: &'static str,
    /// Its Chinese name, as the zh instruction spells it.
    pub zh: &'static str,
    /// How a heading for it starts, lowercased, in English: a short prefix, so `Goals` and
    /// `Key decisions and conventions` count.
    marker: &'static str,
    /// The same in Chinese.
    zh_marker: &'static str,
}

impl RequiredSection {
    fn heading(self, lang: HandoffLang) -> &'static str {
        match lang {
            HandoffLang::En => self.name,
            HandoffLang::Zh => self.zh,
        }
    }
}

/// The five sections, in the instruction's order.
pub const REQUIRED_SECTIONS: [RequiredSection; 5] = [
    RequiredSection {
        name: "Goal",
        zh: "目标",
        marker: "goal",
        zh_marker: "目标",
    },
    RequiredSection {
        name: "Current state",
        zh: "当前状态",
        marker: "current state",
        zh_marker: "当前状态",
    },
    RequiredSection {
        name: "Key decisions & conventions",
        zh: "关键决策与约定",
        marker: "key decision",
        zh_marker: "关键决策",
    },
    RequiredSection {
        name: "Key files",
        zh: "关键文件",
        marker: "key file",
        zh_marker: "关键文件",
    },
    RequiredSection {
        name: "Next step",
        zh: "下一步",
        marker: "next step",
        zh_marker: "下一步",
    },
];

/// Why a worker's answer is not a summary.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// It repeats a clause of its instruction, or a section header of its source, verbatim.
    #[error("it repeats its instruction back (\"{fragment}\") instead of summarising the run")]
    Echo { fragment: String },
    /// It has no heading for these sections.
    #[error(
        "it lacks {} of the five sections the instruction asks for: {}",
        missing.len(),
        missing.join(", ")
    )]
    MissingSections { missing: Vec<&'static str> },
}

/// Clauses of the instruction shorter than this (in columns: a CJK char counts two) are not
/// compared: "no pleasantries" may well be in a summary by chance; "drop details tied to the
/// old preset's tools" is not.
const ECHO_MIN_COLUMNS: usize = 16;

/// How long an echoed clause is shown in the rejection.
const ECHO_SHOWN_CHARS: usize = 60;

/// Checks a worker's answer before it becomes a draft: it must not repeat its instruction (a
/// clause of 16 columns or more, other than a section's name, or one of the source's
/// section headers), and it must have a heading for each of the [`REQUIRED_SECTIONS`], in
/// either language (a worker asked in one that answers in the other has still summarised). A
/// heading is a line that starts with the section's name after list and Markdown decoration
/// (`## `, `1. `, `**`, `- `, `一、`).
pub fn check_draft(answer: &str, instruction: &str) -> Result<(), Rejection> {
    if let Some(fragment) = echoed(answer, instruction) {
        let mut shown: String = fragment.chars().take(ECHO_SHOWN_CHARS).collect();
        if fragment.chars().count() > ECHO_SHOWN_CHARS {
            shown.push('…');
        }
        return Err(Rejection::Echo { fragment: shown });
    }
    let missing: Vec<&'static str> = REQUIRED_SECTIONS
        .iter()
        .enumerate()
        .filter(|(i, _)| !answer.lines().any(|line| section_of(line) == Some(*i)))
        .map(|(_, s)| s.name)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Rejection::MissingSections { missing })
    }
}

/// The instruction clause (or source header) the answer repeats, if any. The instruction's
/// own section lines ("1. Goal — 1–2 sentences.") are left out: a summary written to the
/// schema may copy them as its headings.
fn echoed(answer: &str, instruction: &str) -> Option<String> {
    if let Some(header) = SECTION_HEADERS.iter().find(|h| answer.contains(**h)) {
        return Some((*header).to_string());
    }
    instruction
        .lines()
        .filter(|line| section_of(line).is_none())
        .flat_map(|line| line.split(is_clause_end))
        .map(js_trim)
        .filter(|clause| columns(clause) >= ECHO_MIN_COLUMNS && section_of(clause).is_none())
        .find(|clause| answer.contains(clause))
        .map(str::to_string)
}

fn is_clause_end(c: char) -> bool {
    matches!(
        c,
        '.' | ';' | ':' | '!' | '?' | '—' | '。' | '；' | '：' | '！' | '？'
    )
}

/// Width on a terminal, roughly: CJK and other wide chars count two.
fn columns(text: &str) -> usize {
    text.chars()
        .map(|c| if c >= '\u{2E80}' { 2 } else { 1 })
        .sum()
}

/// Which required section a line is a heading for.
fn section_of(line: &str) -> Option<usize> {
    let text = heading_text(line);
    REQUIRED_SECTIONS
        .iter()
        .position(|s| text.starts_with(s.marker) || text.starts_with(s.zh_marker))
}

/// A line without its list and Markdown decoration, lowercased.
fn heading_text(line: &str) -> String {
    let decoration =
        |c: char| is_js_whitespace(c) || matches!(c, '#' | '*' | '_' | '-' | '>' | '|' | '•' | '·');
    let mut rest = line.trim_start_matches(decoration);
    let unnumbered =
        rest.trim_start_matches(|c: char| c.is_ascii_digit() || "一二三四五六七八九十".contains(c));
    if unnumbered.len() < rest.len()
        && let Some(after) =
            unnumbered.strip_prefix(|c: char| matches!(c, '.' | ')' | '、' | '．' | '）'))
    {
        rest = after.trim_start_matches(decoration);
    }
    rest.to_lowercase()
}

#[cfg(test)]
mod tests;
