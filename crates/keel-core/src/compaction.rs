//! Compaction inside a run (issue: "nothing dropped silently"; system-notes.md N16, N18, N23):
//! which items a compaction folds, what the model still sees verbatim afterwards, the worker
//! prompt that writes the summary, and the note that carries it.
//!
//! A compaction cuts the run at a step boundary (a User or an Assistant item: every tool result
//! follows its call, so nothing after the cut answers a call before it). Items before the cut
//! are folded into the `compaction-summary` run note, written by a model call on the bridge
//! source of the folded part with the previous summary as its compaction section, so round N
//! consolidates round N−1 (N23). The newest user messages before the cut stay verbatim, up to a
//! budget: the user's own words are the last thing to lose. The [`Compaction`] record says
//! exactly which items were folded; the store keeps one per round and `keel runs show` lists
//! them.
//!
//! Tool output is never given to the summariser (the bridge fold leaves it out, N38): a
//! summary becomes a system note, and nothing a tool or a web page wrote may reach one. What
//! the model learned from a tool survives through what the model said about it; the output
//! itself stays in the run's stored items.

use serde::{Deserialize, Serialize};

use crate::bridge::HandoffLang;
use crate::bridge::fold::{FoldedCompaction, fold_items};
use crate::bridge::message::ChatMessage;
use crate::item::{Item, ItemBody};
use crate::notes::{NoteLifetime, NoteOp, NoteTag, SystemNotes, producers};
use crate::time::Timestamp;

/// The first line of every compaction note, the prefix legacy migration routes by (N14).
pub const SUMMARY_HEADER: &str = "[Conversation summary — earlier turns were compacted]";

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The composed request passed the configured share of the context window.
    Threshold,
    /// The provider said the request was too long (N18).
    Overflow,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Threshold => "threshold",
            Trigger::Overflow => "overflow",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Threshold, Self::Overflow]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

/// One compaction round, as recorded with the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// 1 for the first round of the run.
    pub round: u32,
    /// Items before this seq were folded into the summary, except `kept_user_seqs`.
    pub first_unfolded_seq: u64,
    /// User items before the cut that the model still sees verbatim, in seq order.
    pub kept_user_seqs: Vec<u64>,
    pub summary_chars: usize,
    pub trigger: Trigger,
    pub at: Timestamp,
    /// Sections of the summariser's source the budget cut or clipped (bridge.md N11), so the
    /// record says what the summary could not cover.
    pub source_dropped: Vec<String>,
}

impl Compaction {
    /// How many items this round left folded: everything before the cut but the kept users.
    pub fn folded_count(&self) -> u64 {
        self.first_unfolded_seq - self.kept_user_seqs.len() as u64
    }
}

/// Limits of one compaction; every one is configurable (`[compaction]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionLimits {
    /// The newest items after the cut are kept verbatim while they total at most this many
    /// chars (at least the newest step is always kept).
    pub keep_recent_chars: usize,
    /// Folded user messages kept verbatim, newest first, while they total at most this.
    pub keep_user_chars: usize,
    /// The worker's source budget (bridge.md N5).
    pub source_chars: i64,
    /// The summary budget (bridge.md N13).
    pub summary_chars: i64,
}

impl Default for CompactionLimits {
    fn default() -> Self {
        Self {
            keep_recent_chars: 8_000,
            keep_user_chars: 4_000,
            source_chars: 24_000,
            summary_chars: crate::bridge::DEFAULT_SUMMARY_CHARS,
        }
    }
}

/// What a compaction will do, before the summary is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub first_unfolded_seq: u64,
    pub kept_user_seqs: Vec<u64>,
    /// The folded part as the bridge reads it, with the previous summary in place (N38).
    pub messages: Vec<ChatMessage>,
}

/// The chars an item costs in a request, as far as choosing the cut goes.
fn item_chars(item: &Item) -> usize {
    match &item.body {
        ItemBody::User { text } => text.chars().count(),
        ItemBody::Assistant { text, tool_calls } => {
            text.chars().count()
                + tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.arguments.to_string().chars().count())
                    .sum::<usize>()
        }
        ItemBody::ToolResult { output, .. } => output.char_len(),
        ItemBody::Notification { envelope, .. } => envelope.render().chars().count(),
        ItemBody::Diagnostic(_) => 200,
        // Never in context (`plan` reads the run without withdrawn turns).
        ItemBody::Withdrawal { .. } => 0,
    }
}

fn starts_step(item: &Item) -> bool {
    matches!(
        item.body,
        ItemBody::User { .. } | ItemBody::Assistant { .. }
    )
}

/// The summary text a note carries, without its header.
pub fn summary_of_note(note: &str) -> &str {
    note.strip_prefix(SUMMARY_HEADER)
        .map_or(note, |rest| rest.strip_prefix('\n').unwrap_or(rest))
}

/// The summary a run already carries, and the first item it does not cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriorSummary<'a> {
    pub text: &'a str,
    pub first_unfolded_seq: u64,
}

impl<'a> PriorSummary<'a> {
    /// The run's compaction summary (its last round), else the handoff summary the run was
    /// created from, which covers everything before its first item. A run made by a handoff
    /// and then handed off or compacted again keeps what the first summary carried.
    pub fn of_run(notes: &'a SystemNotes, last_round: Option<&Compaction>) -> Option<Self> {
        if let (Some(round), Some(note)) = (last_round, notes.read(producers::COMPACTION_SUMMARY)) {
            return Some(Self {
                text: summary_of_note(note),
                first_unfolded_seq: round.first_unfolded_seq,
            });
        }
        notes.read(producers::HANDOFF_SUMMARY).map(|text| Self {
            text,
            first_unfolded_seq: 0,
        })
    }

    pub fn folded(self) -> FoldedCompaction<'a> {
        FoldedCompaction {
            summary: self.text,
            first_unfolded_seq: self.first_unfolded_seq,
        }
    }
}

/// What `preserve_active_user_constraints` scans: the prior summary first, read as the user's
/// words (it carries their standing prohibitions, whether in its constraints block or in its
/// prose), then every user message of the whole run — folded or still visible — so a later
/// permission revokes an earlier prohibition wherever the cut fell.
pub fn constraint_sources(
    prior: Option<PriorSummary<'_>>,
    whole_run: &[ChatMessage],
) -> Vec<ChatMessage> {
    // List markers are the summary's formatting, not the user's words: the clause quoted
    // back must be the clause the user wrote.
    let unlisted = |text: &str| {
        text.lines()
            .map(|line| {
                let t = line.trim_start();
                t.strip_prefix("- ")
                    .or_else(|| t.strip_prefix("* "))
                    .unwrap_or(line)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut out: Vec<ChatMessage> = prior
        .map(|p| ChatMessage {
            role: "user".to_string(),
            content: unlisted(p.text),
            ..ChatMessage::default()
        })
        .into_iter()
        .collect();
    out.extend(whole_run.iter().filter(|m| m.role == "user").cloned());
    out
}

/// Plans a compaction of `items` (the whole run, in seq order) after the `previous` round,
/// with the run's `prior` summary as the source's compaction section. `None` when nothing new
/// can be folded: the newest step alone is all there is after the previous cut.
pub fn plan(
    items: &[Item],
    previous: Option<&Compaction>,
    prior: Option<PriorSummary<'_>>,
    limits: CompactionLimits,
) -> Option<Plan> {
    // A withdrawn turn is neither folded nor kept: the model reads none of it.
    let items = &crate::withdrawal::in_context(items)[..];
    let floor = previous.map_or(0, |c| c.first_unfolded_seq);
    // Walk back from the newest item; the cut is the earliest step start whose tail fits,
    // but never earlier than the newest step start.
    let mut tail = 0usize;
    let mut cut = None;
    for item in items.iter().rev() {
        if item.seq <= floor {
            break;
        }
        tail += item_chars(item);
        if starts_step(item) {
            if cut.is_some() && tail > limits.keep_recent_chars {
                break;
            }
            cut = Some(item.seq);
        }
    }
    let cut = cut?;
    let folded: Vec<&Item> = items.iter().filter(|i| i.seq < cut).collect();
    // The newest folded user message always stays, whatever its size: it is the instruction
    // the model is working on. Older ones stay newest first while they fit the budget.
    let mut kept_user_seqs = Vec::new();
    let mut kept_chars = 0usize;
    for item in folded.iter().rev() {
        if let ItemBody::User { text } = &item.body {
            let len = text.chars().count();
            if !kept_user_seqs.is_empty() && kept_chars + len > limits.keep_user_chars {
                break;
            }
            kept_chars += len;
            kept_user_seqs.push(item.seq);
        }
    }
    kept_user_seqs.reverse();
    // A plan that folds nothing new is no plan: what it would fold is already summarised, or
    // a user message that stays verbatim anyway, so the summariser would be asked for nothing
    // and the request would be no shorter.
    let folds_something = folded
        .iter()
        .any(|i| i.seq >= floor && kept_user_seqs.binary_search(&i.seq).is_err());
    if !folds_something {
        return None;
    }
    let folded_items: Vec<Item> = folded.into_iter().cloned().collect();
    let messages = fold_items(&folded_items, prior.map(PriorSummary::folded));
    Some(Plan {
        first_unfolded_seq: cut,
        kept_user_seqs,
        messages,
    })
}

/// The items the model still sees after `compaction`: the kept users, then everything from
/// the cut on, less any withdrawn turn.
pub fn visible_items(items: &[Item], compaction: &Compaction) -> Vec<Item> {
    crate::withdrawal::in_context(items)
        .iter()
        .filter(|i| {
            i.seq >= compaction.first_unfolded_seq
                || compaction.kept_user_seqs.binary_search(&i.seq).is_ok()
        })
        .cloned()
        .collect()
}

/// The worker prompt: what to write, then the source. keel's own text (the spec fixes only
/// the handoff instruction); the rules that matter — consolidate the earlier summary, keep
/// current values exact, never invent — are the bridge's.
pub fn instruction(lang: HandoffLang, summary_char_budget: i64) -> String {
    let tokens = crate::bridge::summary_token_budget(Some(summary_char_budget));
    match lang {
        HandoffLang::En => format!(
            "You are compacting the earlier part of this agent's own conversation so it can \
             continue the same task with less context. Write a summary of ≤{tokens} tokens \
             with these sections: Goal; Current state; Key decisions & conventions (with the \
             reasoning); Key files (only paths that appear below); Next step. If an earlier \
             summary is given, consolidate it: everything in it that still holds must be in \
             yours. Omit superseded or revoked values entirely; copy exact current numbers \
             (ports, versions, limits) verbatim; keep every instruction or prohibition the user \
             gave that still applies; never invent. No pleasantries."
        ),
        HandoffLang::Zh => format!(
            "你正在压缩本代理自己对话的较早部分，以便用更少的上下文继续同一任务。请写一份 \
             ≤{tokens} tokens 的摘要，包含：目标；当前状态；关键决策与约定（附决策理由）；\
             关键文件（只列下文出现过的路径）；下一步。若给出了更早的摘要，必须合并：其中仍然\
             有效的内容都要保留。完全省略已被取代或撤销的值；当前的精确数字（端口、版本、限额）\
             原样照抄；保留用户仍然有效的每条指示或禁止；不得编造。不要寒暄。"
        ),
    }
}

/// The note a summary becomes: tagged, so the new round replaces the previous one (whose
/// content it consolidated).
pub fn note_op(summary: &str) -> NoteOp {
    NoteOp::Add {
        text: format!("{SUMMARY_HEADER}\n{}", summary.trim()),
        lifetime: NoteLifetime::Run,
        tag: NoteTag::new(producers::COMPACTION_SUMMARY).ok(),
    }
}

/// Estimated tokens of a request of `chars` chars: one token per 4 chars, rounded up. Crude
/// on purpose — it only decides when to compact, and the provider's overflow error is the
/// backstop (N18).
pub fn estimate_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

#[cfg(test)]
mod tests;
