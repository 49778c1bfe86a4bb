//! The source and visual-evidence algorithms as first written (bridge.md N3, N5–N12): every
//! item built and counted whole. Kept for the tests only, which hold the bounded versions in
//! `source.rs` and `visual.rs` to the same output, byte for byte, on random sessions.

use crate::bridge::message::{ChatMessage, count};
use crate::bridge::source::{BridgeSource, SOURCE_CHAR_BUDGET, SourceOptions, tool_line};
use crate::bridge::visual::{EvidenceBlock, VISUAL_EVIDENCE_CHAR_BUDGET, VisualEvidence};
use crate::text::{char_len, is_blank, js_trim};

const BLOCK_OVERHEAD_CHARS: i64 = 240;

/// How much of each recent assistant message is kept (N1).
const ASSISTANT_SNIPPET_CHARS: usize = 900;
/// How many recent assistant messages are read (N1).
const RECENT_ASSISTANT_MESSAGES: usize = 6;
const COMPACTION_HEADER: &str = "【早前上下文压缩摘要】";
const USERS_HEADER: &str = "【用户消息全文（按时间序）】";
const RECENT_HEADER: &str = "【最近助手输出摘要】";
const CLIP_MARKER: &str = "\n…（底稿截断）";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// One item, cut at its end when it does not fit.
    Head,
    /// Whole items, the newest kept.
    Newest,
}

struct Section {
    name: &'static str,
    header: &'static str,
    keep: Keep,
    share_percent: i128,
    items: Vec<String>,
}

impl Section {
    fn header_len(&self) -> i128 {
        len(self.header)
    }

    fn need(&self) -> i128 {
        let body: i128 = self.items.iter().map(|i| len(i) + 1).sum::<i128>() - 1;
        self.header_len() + 1 + body.max(0)
    }

    fn drop_note(&self, n: usize) -> String {
        if self.name == "users" {
            format!("（较早的 {n} 条用户消息因预算省略，保留的是最近的）")
        } else {
            format!("（更早的 {n} 条助手输出因预算省略）")
        }
    }
}

/// How one section came out of its allocation (N10).
enum Rendered {
    Dropped,
    Whole(String),
    Clipped(String, usize),
}

fn len(text: &str) -> i128 {
    i128::try_from(char_len(text)).unwrap_or(i128::MAX)
}

/// The first `n` chars of `text` (cut on a char boundary, N31).
fn first_chars(text: &str, n: i128) -> &str {
    let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

pub(super) fn user_item(number: usize, message: &ChatMessage) -> String {
    let images = (message.image_count > 0).then(|| {
        format!(
            "[image attachments: {}; visual content is not available to the summary worker]",
            message.image_count
        )
    });
    let parts: Vec<String> = images
        .into_iter()
        .chain([js_trim(&message.content).to_string()])
        .filter(|p| !p.is_empty())
        .collect();
    format!("{number}. {}", parts.join(" "))
}

fn recent_block(message: &ChatMessage) -> String {
    let text = js_trim(&message.content);
    let text = if char_len(text) > ASSISTANT_SNIPPET_CHARS {
        format!("{}…", first_chars(text, ASSISTANT_SNIPPET_CHARS as i128))
    } else {
        text.to_string()
    };
    let tools = (!message.tool_nodes.is_empty()).then(|| {
        let lines: Vec<String> = message.tool_nodes.iter().map(tool_line).collect();
        format!("[工具] {}", lines.join("；"))
    });
    [Some(text), tools]
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The three sections with their items, in order, leaving out empty ones (N6, N7).
fn sections(messages: &[ChatMessage]) -> (Vec<Section>, usize) {
    let compaction = messages
        .iter()
        .rev()
        .find(|m| m.is_compaction() && !is_blank(&m.content));
    let users: Vec<&ChatMessage> = messages
        .iter()
        .filter(|m| m.role == "user" && (!is_blank(&m.content) || m.image_count > 0))
        .collect();
    let mut recent: Vec<&ChatMessage> = messages
        .iter()
        .rev()
        .filter(|m| m.role == "assistant" && (!is_blank(&m.content) || !m.tool_nodes.is_empty()))
        .take(RECENT_ASSISTANT_MESSAGES)
        .collect();
    recent.reverse();

    let mut recent_items: Vec<String> = recent.iter().map(|m| recent_block(m)).collect();
    let last = recent_items.len().saturating_sub(1);
    for block in recent_items.iter_mut().take(last) {
        block.push_str("\n---");
    }
    let all = [
        Section {
            name: "compaction",
            header: COMPACTION_HEADER,
            keep: Keep::Head,
            share_percent: 25,
            items: compaction
                .map(|m| js_trim(&m.content).to_string())
                .into_iter()
                .collect(),
        },
        Section {
            name: "users",
            header: USERS_HEADER,
            keep: Keep::Newest,
            share_percent: 45,
            items: users
                .iter()
                .enumerate()
                .map(|(i, m)| user_item(i + 1, m))
                .collect(),
        },
        Section {
            name: "recent",
            header: RECENT_HEADER,
            keep: Keep::Newest,
            share_percent: 30,
            items: recent_items,
        },
    ];
    let present = all.into_iter().filter(|s| !s.items.is_empty()).collect();
    (present, users.len())
}

/// Each section's allocation (N9): its share up to its need, then the unused pool to users,
/// recent and compaction, in that order.
fn allocate(sections: &[Section], budget: i128) -> Vec<i128> {
    let separators = 2 * (i128::try_from(sections.len()).unwrap_or(0) - 1);
    let usable = (budget - separators).max(0);
    let mut alloc: Vec<i128> = sections
        .iter()
        .map(|s| s.need().min(usable * s.share_percent / 100))
        .collect();
    let mut pool = usable - alloc.iter().sum::<i128>();
    for name in ["users", "recent", "compaction"] {
        if let Some(i) = sections.iter().position(|s| s.name == name) {
            let extra = (sections[i].need() - alloc[i]).clamp(0, pool.max(0));
            alloc[i] += extra;
            pool -= extra;
        }
    }
    alloc
}

/// One section within its allocation (N10, N28, N29).
fn render(section: &Section, alloc: i128) -> Rendered {
    let header_len = section.header_len();
    if alloc <= header_len + 1 {
        return Rendered::Dropped;
    }
    let room = alloc - header_len - 1;
    let header = section.header;
    match section.keep {
        Keep::Head => {
            let body = section.items.join("\n");
            if len(&body) <= room {
                return Rendered::Whole(format!("{header}\n{body}"));
            }
            let marker = len(CLIP_MARKER);
            if room <= marker {
                return Rendered::Dropped;
            }
            let cut = first_chars(&body, room - marker);
            Rendered::Clipped(format!("{header}\n{cut}{CLIP_MARKER}"), 1)
        }
        Keep::Newest => {
            let mut taken: Vec<&str> = Vec::new();
            let mut used: i128 = 0;
            for item in section.items.iter().rev() {
                let cost = len(item) + i128::from(!taken.is_empty());
                if used + cost > room {
                    break;
                }
                used += cost;
                taken.push(item);
            }
            taken.reverse();
            if taken.is_empty() {
                return Rendered::Dropped;
            }
            if taken.len() == section.items.len() {
                return Rendered::Whole(format!("{header}\n{}", taken.join("\n")));
            }
            // N28: make room for the note by shedding the oldest taken items, counting each.
            let mut note = section.drop_note(section.items.len() - taken.len());
            while used + len(&note) + 1 > room {
                if taken.is_empty() {
                    return Rendered::Dropped;
                }
                let shed = taken.remove(0);
                used -= len(shed) + i128::from(!taken.is_empty());
                note = section.drop_note(section.items.len() - taken.len());
            }
            if taken.is_empty() {
                return Rendered::Dropped;
            }
            let kept = taken.len();
            Rendered::Clipped(format!("{header}\n{note}\n{}", taken.join("\n")), kept)
        }
    }
}

/// `build_bridge_source` (N5–N12): the budgeted source text, what it used of the users, and the
/// name of every section it dropped or clipped.
pub(super) fn build_bridge_source(
    messages: &[ChatMessage],
    options: SourceOptions,
) -> BridgeSource {
    let budget = i128::from(
        options
            .source_char_budget
            .unwrap_or(SOURCE_CHAR_BUDGET)
            .max(0),
    );
    let visual_evidence = collect_visual_evidence(messages, options.visual_evidence_char_budget);
    let (sections, users_total) = sections(messages);
    let user_messages_total = count(users_total);
    if sections.is_empty() {
        return BridgeSource {
            text: String::new(),
            user_messages_used: 0,
            user_messages_total,
            reused_compaction: false,
            truncated: false,
            dropped: Vec::new(),
            visual_evidence,
        };
    }
    let alloc = allocate(&sections, budget);
    let mut texts = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    let mut user_messages_used = 0;
    let mut has_compaction = false;
    for (section, alloc) in sections.iter().zip(alloc) {
        has_compaction |= section.name == "compaction";
        let (text, kept) = match render(section, alloc) {
            Rendered::Dropped => {
                dropped.push(section.name.to_string());
                continue;
            }
            Rendered::Whole(text) => (text, section.items.len()),
            Rendered::Clipped(text, kept) => {
                dropped.push(section.name.to_string());
                (text, kept)
            }
        };
        if section.name == "users" {
            user_messages_used = count(kept);
        }
        texts.push(text);
    }
    let reused_compaction = has_compaction && !dropped.iter().any(|d| d == "compaction");
    if visual_evidence.truncated {
        dropped.push("visual-evidence".to_string());
    }
    BridgeSource {
        text: texts.join("\n\n"),
        user_messages_used,
        user_messages_total,
        reused_compaction,
        truncated: !dropped.is_empty(),
        dropped,
        visual_evidence,
    }
}

/// `collect_visual_evidence` (N3): admits whole blocks newest to oldest while they fit the
/// budget, skipping (not stopping at) one that does not, and returns them in chronological order.
pub(super) fn collect_visual_evidence(
    messages: &[ChatMessage],
    budget: Option<i64>,
) -> VisualEvidence {
    let budget = budget.unwrap_or(VISUAL_EVIDENCE_CHAR_BUDGET).max(0);
    let mut candidates = Vec::new();
    let mut user_number = 0i64;
    for (index, message) in messages.iter().enumerate() {
        if message.role != "user" {
            continue;
        }
        user_number += 1;
        if message.image_count <= 0 {
            continue;
        }
        let answers: Vec<&str> = messages[index + 1..]
            .iter()
            .take_while(|m| m.role != "user")
            .filter(|m| m.role == "assistant" && !m.is_compaction())
            .map(|m| js_trim(&m.content))
            .filter(|text| !text.is_empty())
            .collect();
        candidates.push(EvidenceBlock {
            user_message: user_number,
            image_count: message.image_count,
            user_text: js_trim(&message.content).to_string(),
            assistant_text: answers.join("\n\n"),
            attachments: message.image_attachments.clone(),
        });
    }

    let mut remaining = budget;
    let mut admitted = vec![false; candidates.len()];
    for (index, block) in candidates.iter().enumerate().rev() {
        let cost = char_count(&block.user_text)
            .saturating_add(char_count(&block.assistant_text))
            .saturating_add(BLOCK_OVERHEAD_CHARS);
        if cost <= remaining {
            remaining -= cost;
            admitted[index] = true;
        }
    }

    let image_messages = count(candidates.len());
    let images = candidates
        .iter()
        .fold(0i64, |sum, b| sum.saturating_add(b.image_count));
    let included: Vec<EvidenceBlock> = candidates
        .into_iter()
        .zip(admitted)
        .filter_map(|(block, admitted)| admitted.then_some(block))
        .collect();
    let represented = count(
        included
            .iter()
            .filter(|b| !b.assistant_text.is_empty())
            .count(),
    );
    let omitted = image_messages - count(included.len());
    VisualEvidence {
        image_messages,
        images,
        represented,
        unresolved: image_messages - represented,
        included,
        omitted,
        truncated: omitted > 0,
    }
}

fn char_count(text: &str) -> i64 {
    count(char_len(text))
}
