//! Bridge handoff (bridge.md, seed 004): moving a run to another mode without dragging ghost
//! tool calls along. This module holds the helpers so far — the language of a conversation
//! (N17, N35) and the summary budgets (N13, N14, N34); the source builder, visual evidence,
//! instruction and kickoff texts and constraint preservation are the rest of the bridge issue.

use serde::Serialize;

/// The two languages of handoff texts (`"zh"` / `"en"` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

#[cfg(test)]
mod tests {
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
}
