//! Bridge handoff (bridge.md, seed 004): moving a run to another mode without dragging ghost
//! tool calls along. This module holds the helpers so far — the language of a conversation
//! (N17, N35), the summary budgets (N13, N14, N34), and the instruction and kickoff texts (N15,
//! N16); `visual` carries image evidence verbatim (N3, N4) and `constraints` the user's active
//! prohibitions (N18, N19, N36); `source` builds the budgeted worker input (N5–N12, N28–N31)
//! from the messages (`message`, N2) that `fold` makes of a run (N38).

pub mod constraints;
pub mod fold;
pub mod message;
pub mod source;
pub mod visual;

use serde::Serialize;

/// The two languages of handoff texts (`"zh"` / `"en"` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandoffLang {
    Zh,
    En,
}

impl HandoffLang {
    pub fn as_str(self) -> &'static str {
        match self {
            HandoffLang::Zh => "zh",
            HandoffLang::En => "en",
        }
    }
}

/// How much of a text `detect_lang` looks at (N17).
pub const DETECT_SAMPLE_CHARS: usize = 4000;

/// `detect_lang` (N17, N35): over the first 4000 chars, `zh` iff more than 15% are CJK
/// ideographs (U+4E00–U+9FFF) or kana (U+3040–U+30FF), compared in integers:
/// `20 × cjk > 3 × len`. Empty text is `en`.
pub fn detect_lang(text: &str) -> HandoffLang {
    let mut len = 0u64;
    let mut cjk = 0u64;
    for c in text.chars().take(DETECT_SAMPLE_CHARS) {
        len += 1;
        if matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3040}'..='\u{30FF}') {
            cjk += 1;
        }
    }
    if len > 0 && 20 * cjk > 3 * len {
        HandoffLang::Zh
    } else {
        HandoffLang::En
    }
}

/// The default summary budget in chars (N13).
pub const DEFAULT_SUMMARY_CHARS: i64 = 2400;

/// `summary_token_budget` (N13, N34): `max(100, floor((3c + 4) / 8))`, default `c` = 2400.
pub fn summary_token_budget(summary_char_budget: Option<i64>) -> i64 {
    let c = i128::from(summary_char_budget.unwrap_or(DEFAULT_SUMMARY_CHARS));
    let tokens = (3 * c + 4).div_euclid(8);
    i64::try_from(tokens.max(100)).unwrap_or(i64::MAX)
}

/// What a handoff's worker call is expected to cost, in tokens (N14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TokenEstimate {
    pub input: i64,
    pub output: i64,
}

/// `estimate_summary_tokens` (N14): input `ceil(source_chars / 2) + 400`, output the summary
/// token budget.
pub fn estimate_summary_tokens(
    source_chars: i64,
    summary_char_budget: Option<i64>,
) -> TokenEstimate {
    let input = (i128::from(source_chars) + 1).div_euclid(2) + 400;
    TokenEstimate {
        input: i64::try_from(input).unwrap_or(i64::MAX),
        output: summary_token_budget(summary_char_budget),
    }
}

/// `build_bridge_instruction` (N15): the fixed-schema handoff prompt put before the source.
pub fn build_bridge_instruction(lang: HandoffLang, summary_char_budget: Option<i64>) -> String {
    let tokens = summary_token_budget(summary_char_budget);
    match lang {
        HandoffLang::En => format!(
            "You are a handoff engineer. The conversation below comes from a session under another \
             tool preset. Write a handoff summary of ≤{tokens} tokens with exactly these five \
             sections:\n\
             1. Goal — 1–2 sentences.\n\
             2. Current state — 3–5 sentences.\n\
             3. Key decisions & conventions — ≤5 bullets; include the reasoning for each.\n\
             4. Key files — ≤10 paths, only paths that appear in the conversation.\n\
             5. Next step — 1–2 sentences.\n\
             Rules: drop details tied to the old preset's tools; keep the rationale behind \
             decisions; omit superseded or revoked values entirely, never restating them even as \
             obsolete; never invent paths, names or numbers; copy exact current numbers (ports, \
             versions, limits) verbatim, each on its own line; no pleasantries."
        ),
        HandoffLang::Zh => format!(
            "你是一名交接工程师。下面的对话来自另一个工具预设下的会话。请写一份不超过 ≤{tokens} tokens \
             的交接摘要，恰好包含以下五节：\n\
             1. 目标——1–2 句。\n\
             2. 当前状态——3–5 句。\n\
             3. 关键决策与约定——≤5 条，每条附决策理由。\n\
             4. 关键文件——≤10 个路径，只列对话中出现过的路径。\n\
             5. 下一步——1–2 句。\n\
             规则：删去只与旧预设工具相关的细节；保留决策的理由；已被取代或撤销的值一律省略，\
             不要以“已过时”的形式重述；不得编造路径、名称或数字；当前的确切数字（端口、版本、\
             限制）逐字照抄，各占一行；不要寒暄。"
        ),
    }
}

/// `build_bridge_kickoff` (N16): what the target run is told after the summary.
pub fn build_bridge_kickoff(lang: HandoffLang, auto_continue: bool) -> String {
    match (lang, auto_continue) {
        (HandoffLang::En, continue_) => format!(
            "The session goal above is a handoff summary from a session under a different tool \
             preset. Only the values it states as current are actionable; never quote obsolete \
             values. First restate your understanding in one paragraph. {}",
            if continue_ {
                "Then continue with the next step."
            } else {
                "Then stop and wait for the user to confirm before taking any further action."
            }
        ),
        (HandoffLang::Zh, continue_) => format!(
            "上面的会话目标是一份来自另一个工具预设会话的交接摘要。只有其中标明为当前有效的值才可据以行动；\
             不要引用已过时的值。请先用一段话复述你的理解。{}",
            if continue_ {
                "然后继续执行下一步。"
            } else {
                "然后停下，等待用户确认后再采取任何进一步行动。"
            }
        ),
    }
}

/// The worker's prompt (N20): the instruction, then the source.
pub fn worker_prompt(instruction: &str, source: &source::BridgeSource) -> String {
    format!("{instruction}\n\n{}", source.text)
}

/// The draft from the worker's text (N20's "append"): the verbatim visual evidence (N4), then
/// the user's active prohibitions the summary omits (N19, N36). Used by the handoff preview and
/// by compaction alike, so neither can lose a user's "don't touch the files".
pub fn finish_draft(
    worker_text: &str,
    source: &source::BridgeSource,
    messages: &[message::ChatMessage],
    lang: HandoffLang,
) -> String {
    let with_evidence = visual::append_visual_evidence(worker_text, &source.visual_evidence, lang);
    constraints::preserve_active_user_constraints(&with_evidence, messages, lang)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_draft_keeps_a_prohibition_the_worker_dropped() {
        let messages = vec![message::ChatMessage {
            role: "user".into(),
            content: "Fix the bug. Do not use any tools.".into(),
            ..Default::default()
        }];
        let source = source::build_bridge_source(&messages, Default::default());
        assert!(worker_prompt("INSTR", &source).starts_with("INSTR\n\n"));
        let draft = finish_draft("Goal: fix the bug.", &source, &messages, HandoffLang::En);
        assert!(draft.starts_with("Goal: fix the bug."), "{draft}");
        assert!(draft.contains("## Active user constraints"), "{draft}");
        assert!(draft.contains("Do not use any tools"), "{draft}");
    }

    use super::*;

    #[test]
    fn t1_detect_lang() {
        use HandoffLang::{En, Zh};
        let cases: Vec<(String, HandoffLang)> = vec![
            (String::new(), En),
            ("你好".into(), Zh),
            (format!("{}{}", "a".repeat(85), "中".repeat(15)), En),
            (format!("{}{}", "a".repeat(84), "中".repeat(16)), Zh),
            (format!("{}{}", "中".repeat(3), "a".repeat(17)), En),
            (format!("{}{}", "a".repeat(4000), "中".repeat(5000)), En),
            ("こんにちは".into(), Zh),
            ("。。。".into(), En),
            ("你😀😀😀".into(), Zh),
        ];
        for (text, want) in cases {
            assert_eq!(
                detect_lang(&text),
                want,
                "{:?}",
                text.chars().take(20).collect::<String>()
            );
        }
    }

    #[test]
    fn t2_helpers() {
        for (chars, tokens) in [
            (0, 100),
            (266, 100),
            (267, 100),
            (268, 101),
            (276, 104),
            (400, 150),
            (1000, 375),
            (2400, 900),
            (4800, 1800),
        ] {
            assert_eq!(summary_token_budget(Some(chars)), tokens, "{chars}");
        }
        assert_eq!(summary_token_budget(None), 900);
        assert_eq!(summary_token_budget(Some(-5)), 100);
        for (chars, input) in [(0, 400), (1, 401), (60000, 30400), (60001, 30401)] {
            assert_eq!(
                estimate_summary_tokens(chars, None),
                TokenEstimate { input, output: 900 }
            );
        }
        assert_eq!(
            estimate_summary_tokens(-3, Some(400)),
            TokenEstimate {
                input: 399,
                output: 150
            }
        );
        // N34: the integer form equals the float formula up to 1 000 000.
        for c in (0..=1_000_000i64).step_by(997) {
            let float = ((c as f64) * 900.0 / 2400.0 + 0.5).floor() as i64;
            assert_eq!(summary_token_budget(Some(c)), float.max(100), "{c}");
        }
        assert_eq!(DEFAULT_SUMMARY_CHARS, 2400);
        assert_eq!(DETECT_SAMPLE_CHARS, 4000);
    }

    #[test]
    fn n15_instruction_fragments() {
        let en = build_bridge_instruction(HandoffLang::En, None);
        for f in [
            "≤5 bullets",
            "≤10 paths",
            "never invent",
            "drop details tied to the old preset's tools",
            "include the reasoning",
            "no pleasantr",
            "≤900 tokens",
        ] {
            assert!(en.contains(f), "en lacks {f:?}");
        }
        let zh = build_bridge_instruction(HandoffLang::Zh, None);
        for f in [
            "≤5 条",
            "≤10 个路径",
            "不得编造",
            "附决策理由",
            "不要寒暄",
            "≤900 tokens",
        ] {
            assert!(zh.contains(f), "zh lacks {f:?}");
        }
        assert!(build_bridge_instruction(HandoffLang::En, Some(400)).contains("≤150 tokens"));
    }

    #[test]
    fn t7_n16_kickoff_waits_unless_told_to_continue() {
        let (en_wait, en_go) = (
            build_bridge_kickoff(HandoffLang::En, false),
            build_bridge_kickoff(HandoffLang::En, true),
        );
        // T7: the default waits for the user; auto-continue goes on and has no "wait" at all.
        assert!(en_wait.contains("Then stop and wait for the user to confirm before"));
        assert!(
            !en_wait.contains("continue with the next step"),
            "{en_wait}"
        );
        assert!(
            en_go.contains("Then continue with the next step."),
            "{en_go}"
        );
        assert!(!en_go.to_lowercase().contains("wait"), "{en_go}");
        assert!(
            !en_go.contains("confirm") && !en_go.contains("stop"),
            "{en_go}"
        );
        let (zh_wait, zh_go) = (
            build_bridge_kickoff(HandoffLang::Zh, false),
            build_bridge_kickoff(HandoffLang::Zh, true),
        );
        assert!(zh_wait.contains("然后停下，等待用户确认后再采取任何进一步行动"));
        assert!(!zh_wait.contains("继续执行下一步"), "{zh_wait}");
        assert!(zh_go.contains("然后继续执行下一步。"), "{zh_go}");
        assert!(!zh_go.contains('等') && !zh_go.contains("确认"), "{zh_go}");
        assert!(!zh_go.contains("停"), "{zh_go}");
        // N16's common part, in both variants: a handoff summary from another preset, only
        // current values act, no obsolete values, one paragraph of understanding first.
        for text in [&en_wait, &en_go] {
            for part in [
                "handoff summary from a session under a different tool preset",
                "Only the values it states as current are actionable",
                "never quote obsolete values",
                "restate your understanding in one paragraph",
            ] {
                assert!(text.contains(part), "{part:?} missing from {text}");
            }
        }
        for text in [&zh_wait, &zh_go] {
            for part in [
                "交接摘要",
                "另一个工具预设",
                "当前有效的值才可据以行动",
                "不要引用已过时的值",
                "一段话复述你的理解",
            ] {
                assert!(text.contains(part), "{part:?} missing from {text}");
            }
        }
        // The two variants differ only in their last sentence.
        let common = |text: &str, last: &str| text.strip_suffix(last).map(str::to_string);
        assert_eq!(
            common(
                &en_wait,
                "Then stop and wait for the user to confirm before taking any further action."
            ),
            common(&en_go, "Then continue with the next step.")
        );
        assert_eq!(
            common(&zh_wait, "然后停下，等待用户确认后再采取任何进一步行动。"),
            common(&zh_go, "然后继续执行下一步。")
        );
        assert!(common(&en_go, "Then continue with the next step.").is_some());
        assert!(common(&zh_go, "然后继续执行下一步。").is_some());
    }
}
