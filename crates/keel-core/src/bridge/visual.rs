//! Visual evidence (bridge.md N3, N4, N32): the summary worker cannot see images, so the
//! assistant text that answered each image-bearing user message is carried into the handoff
//! verbatim, whole blocks only, newest first under a budget — and images nobody described are
//! named as unresolved so the next mode does not invent their contents.

use serde::Serialize;

use super::HandoffLang;
use super::message::{ChatMessage, ImageAttachment, count};
use crate::text::{char_len_at_most, js_trim};

/// The default evidence budget in chars (N1).
pub const VISUAL_EVIDENCE_CHAR_BUDGET: i64 = 60_000;

/// What each block costs beyond its texts (N3).
const BLOCK_OVERHEAD_CHARS: i64 = 240;

/// One image-bearing user message and the assistant text that followed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceBlock {
    /// The user message's number among all user messages, from 1.
    pub user_message: i64,
    pub image_count: i64,
    pub user_text: String,
    pub assistant_text: String,
    pub attachments: Vec<ImageAttachment>,
}

/// `collect_visual_evidence`'s result (N3), in the seed's field order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VisualEvidence {
    pub image_messages: i64,
    pub images: i64,
    pub represented: i64,
    pub unresolved: i64,
    pub included: Vec<EvidenceBlock>,
    pub omitted: i64,
    pub truncated: bool,
}

/// `collect_visual_evidence` (N3): admits whole blocks newest to oldest while they fit the
/// budget, skipping (not stopping at) one that does not, and returns them in chronological order.
///
/// A block is only measured against the room left — its texts counted no further than that —
/// and only the admitted blocks are copied out, so the cost follows the budget and the blocks
/// near it, not every image message's texts.
pub fn collect_visual_evidence(messages: &[ChatMessage], budget: Option<i64>) -> VisualEvidence {
    let budget = budget.unwrap_or(VISUAL_EVIDENCE_CHAR_BUDGET).max(0);
    // Each candidate: its user message's index and number, and the end of the messages that
    // answer it (up to the next user message).
    let mut candidates: Vec<(usize, i64, usize)> = Vec::new();
    let mut user_number = 0i64;
    for (index, message) in messages.iter().enumerate() {
        if message.role != "user" {
            continue;
        }
        if let Some(open) = candidates.last_mut().filter(|c| c.2 == usize::MAX) {
            open.2 = index;
        }
        user_number += 1;
        if message.image_count > 0 {
            candidates.push((index, user_number, usize::MAX));
        }
    }
    if let Some(open) = candidates.last_mut().filter(|c| c.2 == usize::MAX) {
        open.2 = messages.len();
    }
    let answers = |&(index, _, end): &(usize, i64, usize)| {
        messages[index + 1..end]
            .iter()
            .filter(|m| m.role == "assistant" && !m.is_compaction())
            .map(|m| js_trim(&m.content))
            .filter(|text| !text.is_empty())
    };

    let mut remaining = budget;
    let mut admitted = vec![false; candidates.len()];
    for (slot, candidate) in candidates.iter().enumerate().rev() {
        // The room for the block's two texts; a block costs them and the overhead (N3).
        let room = remaining - BLOCK_OVERHEAD_CHARS;
        let Some(user_len) = chars_at_most(js_trim(&messages[candidate.0].content), room) else {
            continue;
        };
        // The answers joined with "\n\n": each after the first brings two chars more.
        let mut used = user_len;
        let mut fits = true;
        for (k, answer) in answers(candidate).enumerate() {
            let separator = if k > 0 { 2 } else { 0 };
            match chars_at_most(answer, room - used - separator) {
                Some(n) => used += n + separator,
                None => {
                    fits = false;
                    break;
                }
            }
        }
        if fits {
            remaining -= used + BLOCK_OVERHEAD_CHARS;
            admitted[slot] = true;
        }
    }

    let image_messages = count(candidates.len());
    let images = candidates
        .iter()
        .fold(0i64, |sum, c| sum.saturating_add(messages[c.0].image_count));
    let included: Vec<EvidenceBlock> = candidates
        .iter()
        .zip(admitted)
        .filter(|(_, admitted)| *admitted)
        .map(|(candidate, _)| {
            let message = &messages[candidate.0];
            EvidenceBlock {
                user_message: candidate.1,
                image_count: message.image_count,
                user_text: js_trim(&message.content).to_string(),
                assistant_text: answers(candidate).collect::<Vec<_>>().join("\n\n"),
                attachments: message.image_attachments.clone(),
            }
        })
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

/// The chars of `text` when they are at most `limit` (a negative limit: never).
fn chars_at_most(text: &str, limit: i64) -> Option<i64> {
    let limit = usize::try_from(limit).ok()?;
    char_len_at_most(text, limit).map(count)
}

/// keel's fixed visual-evidence wording for one language (N4 table, N32).
struct Wording {
    header: &'static str,
    caveat: &'static str,
    user_label: &'static str,
    assistant_label: &'static str,
    unresolved_header: &'static str,
}

const EN: Wording = Wording {
    header: "## Visual evidence — verbatim, not summarized",
    caveat: "The assistant responses below are copied from the source session. They may be questions or partial analysis and prove no more than their text says.",
    user_label: "User context (verbatim):",
    assistant_label: "Associated assistant response (verbatim):",
    unresolved_header: "## Unresolved images",
};

const ZH: Wording = Wording {
    header: "## 视觉证据——原文搬运，未经摘要",
    caveat: "以下助手响应从源会话逐字复制，可能只是追问或部分分析，不能据此推出超出原文的结论。",
    user_label: "用户文字（原文）：",
    assistant_label: "关联助手响应（原文）：",
    unresolved_header: "## 未解析图片",
};

fn title(lang: HandoffLang, block: &EvidenceBlock) -> String {
    let (n, k) = (block.user_message, block.image_count);
    match lang {
        HandoffLang::En => format!("### Source user message {n} · {k} image(s)"),
        HandoffLang::Zh => format!("### 源用户消息 {n} · {k} 张图片"),
    }
}

fn unresolved_line(lang: HandoffLang, block: &EvidenceBlock) -> String {
    let (n, k) = (block.user_message, block.image_count);
    match lang {
        HandoffLang::En => format!(
            "- Source user message {n}: {k} image(s) without associated assistant text. Do not infer their contents."
        ),
        HandoffLang::Zh => {
            format!("- 源用户消息 {n}：{k} 张图片没有关联助手正文，不得推测其内容。")
        }
    }
}

fn omitted_line(lang: HandoffLang, omitted: i64) -> String {
    match lang {
        HandoffLang::En => format!(
            "- {omitted} older visual-evidence block(s) omitted whole by the evidence budget. Check the source session before relying on them."
        ),
        HandoffLang::Zh => {
            format!(
                "- 另有 {omitted} 个较早的视觉证据块因证据预算被整块省略，依赖前请回源会话核对。"
            )
        }
    }
}

/// `append_visual_evidence` (N4): the trimmed summary, then the described blocks verbatim, then
/// the images nobody described and the count of blocks the budget left out.
pub fn append_visual_evidence(
    summary: &str,
    evidence: &VisualEvidence,
    lang: HandoffLang,
) -> String {
    let summary = js_trim(summary);
    if evidence.image_messages == 0 {
        return summary.to_string();
    }
    let wording = match lang {
        HandoffLang::En => &EN,
        HandoffLang::Zh => &ZH,
    };
    let mut parts: Vec<String> = vec![summary.to_string()];
    let (described, undescribed): (Vec<&EvidenceBlock>, Vec<&EvidenceBlock>) = evidence
        .included
        .iter()
        .partition(|b| !b.assistant_text.is_empty());
    if !described.is_empty() {
        parts.push(format!("{}\n{}", wording.header, wording.caveat));
    }
    for block in &described {
        let mut block_parts = vec![title(lang, block)];
        if !block.user_text.is_empty() {
            block_parts.push(wording.user_label.to_string());
            block_parts.push(block.user_text.clone());
        }
        block_parts.push(wording.assistant_label.to_string());
        block_parts.push(block.assistant_text.clone());
        parts.push(block_parts.join("\n\n"));
    }
    if !undescribed.is_empty() || evidence.omitted > 0 {
        let mut lines = vec![wording.unresolved_header.to_string()];
        lines.extend(undescribed.iter().map(|b| unresolved_line(lang, b)));
        if evidence.omitted > 0 {
            lines.push(omitted_line(lang, evidence.omitted));
        }
        parts.push(lines.join("\n"));
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: &str, content: &str, images: i64) -> ChatMessage {
        ChatMessage {
            role: role.to_string(),
            content: content.to_string(),
            image_count: images,
            ..ChatMessage::default()
        }
    }

    /// T6's session: costs 300, 440 and 290 for users 1, 2 and 4.
    fn t6_session() -> Vec<ChatMessage> {
        vec![
            message("user", &"u".repeat(10), 1),
            message("assistant", &"a".repeat(50), 0),
            message("user", "", 2),
            message("assistant", &"b".repeat(200), 0),
            message("user", "plain", 0),
            message("user", &"c".repeat(20), 1),
            message("assistant", &"d".repeat(30), 0),
        ]
    }

    #[test]
    fn t6_admission_table() {
        // budget, included user numbers, represented, unresolved, omitted, truncated
        type Row = (i64, &'static [i64], i64, i64, i64, bool);
        let rows: [Row; 4] = [
            (60_000, &[1, 2, 4], 3, 0, 0, false),
            (600, &[1, 4], 2, 1, 1, true),
            (589, &[4], 1, 2, 2, true),
            (289, &[], 0, 3, 3, true),
        ];
        for (budget, included, represented, unresolved, omitted, truncated) in rows {
            let evidence = collect_visual_evidence(&t6_session(), Some(budget));
            let numbers: Vec<i64> = evidence.included.iter().map(|b| b.user_message).collect();
            assert_eq!(numbers, included, "budget {budget}");
            assert_eq!(evidence.represented, represented, "budget {budget}");
            assert_eq!(evidence.unresolved, unresolved, "budget {budget}");
            assert_eq!(evidence.omitted, omitted, "budget {budget}");
            assert_eq!(evidence.truncated, truncated, "budget {budget}");
            assert_eq!(evidence.image_messages, 3);
            assert_eq!(evidence.images, 4);
        }
    }

    #[test]
    fn absent_budget_is_the_default_and_negative_is_zero() {
        let all = collect_visual_evidence(&t6_session(), None);
        assert_eq!(all.included.len(), 3);
        let none = collect_visual_evidence(&t6_session(), Some(-5));
        assert!(none.included.is_empty());
        assert_eq!(none.omitted, 3);
    }

    #[test]
    fn assistant_text_skips_compaction_and_blank_answers_and_stops_at_the_next_user() {
        let mut compaction = message("assistant", "folded", 0);
        compaction.kind = Some("compaction".to_string());
        let session = vec![
            message("user", "  look  ", 1),
            message("assistant", " first ", 0),
            compaction,
            message("assistant", " \u{3000} ", 0),
            message("system", "note", 0),
            message("assistant", "second", 0),
            message("user", "next", 0),
            message("assistant", "not this", 0),
        ];
        let evidence = collect_visual_evidence(&session, None);
        assert_eq!(evidence.included[0].user_text, "look");
        assert_eq!(evidence.included[0].assistant_text, "first\n\nsecond");
    }

    fn t7_session() -> Vec<ChatMessage> {
        vec![
            message("user", "What is in this screenshot?", 1),
            message("assistant", "A login form with two fields.", 0),
            message("user", "", 2),
        ]
    }

    #[test]
    fn append_matches_the_spec_example_in_english() {
        let evidence = collect_visual_evidence(&t7_session(), None);
        let expected = "Summary text.\n\n## Visual evidence — verbatim, not summarized\nThe assistant responses below are copied from the source session. They may be questions or partial analysis and prove no more than their text says.\n\n### Source user message 1 · 1 image(s)\n\nUser context (verbatim):\n\nWhat is in this screenshot?\n\nAssociated assistant response (verbatim):\n\nA login form with two fields.\n\n## Unresolved images\n- Source user message 2: 2 image(s) without associated assistant text. Do not infer their contents.";
        assert_eq!(
            append_visual_evidence("  Summary text.  ", &evidence, HandoffLang::En),
            expected
        );
    }

    #[test]
    fn append_in_chinese_with_omitted_blocks() {
        let evidence = collect_visual_evidence(&t6_session(), Some(600));
        let text = append_visual_evidence("摘要", &evidence, HandoffLang::Zh);
        let expected = format!(
            "摘要\n\n## 视觉证据——原文搬运，未经摘要\n以下助手响应从源会话逐字复制，可能只是追问或部分分析，不能据此推出超出原文的结论。\n\n### 源用户消息 1 · 1 张图片\n\n用户文字（原文）：\n\n{u}\n\n关联助手响应（原文）：\n\n{a}\n\n### 源用户消息 4 · 1 张图片\n\n用户文字（原文）：\n\n{c}\n\n关联助手响应（原文）：\n\n{d}\n\n## 未解析图片\n- 另有 1 个较早的视觉证据块因证据预算被整块省略，依赖前请回源会话核对。",
            u = "u".repeat(10),
            a = "a".repeat(50),
            c = "c".repeat(20),
            d = "d".repeat(30),
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn append_without_images_is_the_trimmed_summary_and_empty_summary_is_left_out() {
        let none = collect_visual_evidence(&[message("user", "hi", 0)], None);
        assert_eq!(
            append_visual_evidence(" s \u{FEFF}", &none, HandoffLang::En),
            "s"
        );
        let evidence = collect_visual_evidence(&[message("user", "", 1)], None);
        assert_eq!(
            append_visual_evidence("  ", &evidence, HandoffLang::En),
            "## Unresolved images\n- Source user message 1: 1 image(s) without associated assistant text. Do not infer their contents."
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn session() -> impl Strategy<Value = Vec<ChatMessage>> {
            prop::collection::vec(
                (0usize..3, "[a-z文 ]{0,40}", 0i64..3).prop_map(|(role, text, images)| {
                    let role = ["user", "assistant", "system"][role];
                    message(role, &text, if role == "user" { images } else { 0 })
                }),
                0..30,
            )
        }

        proptest! {
            #[test]
            fn blocks_are_whole_in_order_and_within_budget(
                messages in session(),
                budget in -10i64..2000,
            ) {
                let all = collect_visual_evidence(&messages, Some(i64::MAX));
                let some = collect_visual_evidence(&messages, Some(budget));
                let chars = |s: &str| count(crate::text::char_len(s));
                let cost: i64 = some.included.iter().map(|b| {
                    chars(&b.user_text) + chars(&b.assistant_text) + 240
                }).sum();
                prop_assert!(cost <= budget.max(0));
                // Every included block is one of the unbudgeted blocks, unchanged, in order.
                let mut rest = all.included.iter();
                for block in &some.included {
                    prop_assert!(rest.any(|b| b == block));
                }
                prop_assert_eq!(some.omitted, all.included.len() as i64 - some.included.len() as i64);
                prop_assert_eq!(some.truncated, some.omitted > 0);
                prop_assert_eq!(some.represented + some.unresolved, some.image_messages);
            }
        }
    }
}
