//! `preserve_active_user_constraints` (bridge.md N18, N19, N36; T8): a handoff summary must not
//! lose the user's standing "don't use tools" or "don't touch the files".
//!
//! Only two categories are recognised, **using tools** and **reading or writing files**, each
//! with narrow, explicit phrasings in Chinese and English — this is not a general policy
//! extractor. A prohibition stays active unless a later user message explicitly permits the
//! same category; a question ("Can you use tools now?") is not a permission, and optional
//! non-use ("You don't need tools") is not a prohibition.
//!
//! The phrasings keel recognises (case-insensitive in English):
//!
//! | category | prohibits | permits |
//! |---|---|---|
//! | tools | 不要/别/禁止 + 调用/使用/用 + (任何)工具; don't / do not / never + use / call / run + (any) tool(s); no tools | (现在)可以 + 用/使用/调用 + 工具; you can / may (now) use / call tools; tools are (now) allowed |
//! | files | 不要/别/禁止 + 读写/读/写/修改/编辑/改动/碰/动 + (任何)文件; don't / do not / never + read / write / modify / edit / touch / change (+ or/and + another) + (any / the) file(s) | (现在)可以 + 读写/读/写/修改/编辑 + 文件; you can / may (now) read / write / edit / modify (the) files |

use std::sync::LazyLock;

use regex::Regex;

use super::HandoffLang;
use super::message::ChatMessage;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("constraint pattern does not compile: {e}"))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Category {
    Tools,
    Files,
}

static TOOLS_NO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:(?:不要|别|禁止)(?:再)?(?:调用|使用|用)(?:任何)?工具|\b(?:don'?t|do not|never)\s+(?:use|call|run)\s+(?:any\s+)?tools?\b|\bno tools\b)",
    )
});
static TOOLS_YES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:可以(?:用|使用|调用)工具|\byou (?:can|may) (?:now )?(?:use|call) (?:the )?tools\b|\btools are (?:now )?allowed\b)",
    )
});
static FILES_NO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:(?:不要|别|禁止)(?:再)?(?:读写|读|写|修改|编辑|改动|碰|动)(?:任何)?文件|\b(?:don'?t|do not|never)\s+(?:read|write|modify|edit|touch|change)(?:\s+(?:or|and)\s+(?:read|write|modify|edit|touch|change))?\s+(?:any\s+|the\s+)?files?\b)",
    )
});
static FILES_YES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:可以(?:读写|读|写|修改|编辑)文件|\byou (?:can|may) (?:now )?(?:read|write|edit|modify)(?: and (?:read|write|edit|modify))? (?:the )?files\b)",
    )
});

/// Clauses of a message with whether each ended in a question mark (N36's clause split).
fn clauses(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if matches!(
            c,
            '\n' | '。' | '！' | '？' | '；' | '，' | '.' | '!' | '?' | ';' | ','
        ) {
            let clause = crate::text::js_trim(&current).to_string();
            if !clause.is_empty() {
                out.push((clause, matches!(c, '?' | '？')));
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    let clause = crate::text::js_trim(&current).to_string();
    if !clause.is_empty() {
        out.push((clause, false));
    }
    out
}

/// Appends the user's still-active prohibitions that `summary` omits (N18, N19, N36).
pub fn preserve_active_user_constraints(
    summary: &str,
    messages: &[ChatMessage],
    lang: HandoffLang,
) -> String {
    let mut active: [(Category, Option<String>); 2] =
        [(Category::Tools, None), (Category::Files, None)];
    for message in messages.iter().filter(|m| m.role == "user") {
        for (clause, question) in clauses(&message.content) {
            for (category, slot) in active.iter_mut() {
                let (no, yes) = match category {
                    Category::Tools => (&*TOOLS_NO, &*TOOLS_YES),
                    Category::Files => (&*FILES_NO, &*FILES_YES),
                };
                if no.is_match(&clause) {
                    *slot = Some(clause.clone());
                } else if yes.is_match(&clause) && !question {
                    *slot = None;
                }
            }
        }
    }
    let missing: Vec<String> = active
        .into_iter()
        .filter_map(|(_, clause)| clause)
        .filter(|clause| !summary.contains(clause.as_str()))
        .collect();
    if missing.is_empty() {
        return summary.to_string();
    }
    let header = match lang {
        HandoffLang::En => "## Active user constraints",
        HandoffLang::Zh => "## 仍然有效的用户限制",
    };
    let lines: Vec<String> = missing.iter().map(|c| format!("- {c}")).collect();
    format!("{summary}\n\n{header}\n{}", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(texts: &[&str]) -> Vec<ChatMessage> {
        texts
            .iter()
            .map(|t| ChatMessage {
                role: "user".into(),
                content: (*t).into(),
                ..ChatMessage::default()
            })
            .collect()
    }

    fn appended(texts: &[&str]) -> String {
        preserve_active_user_constraints("S", &users(texts), HandoffLang::En)
    }

    #[test]
    fn t8_constraints() {
        let both = preserve_active_user_constraints(
            "S",
            &users(&["不要调用任何工具，不要读写文件"]),
            HandoffLang::Zh,
        );
        assert_eq!(
            both,
            "S\n\n## 仍然有效的用户限制\n- 不要调用任何工具\n- 不要读写文件"
        );
        assert_eq!(
            appended(&["Don't use any tools.", "You can use tools now."]),
            "S"
        );
        assert_eq!(
            appended(&["Don't use any tools.", "Can you use tools now?"]),
            "S\n\n## Active user constraints\n- Don't use any tools"
        );
        assert_eq!(appended(&["You don't need tools for this."]), "S");
        let files = preserve_active_user_constraints(
            "S",
            &users(&["不要读写文件", "现在可以用工具了"]),
            HandoffLang::Zh,
        );
        assert_eq!(files, "S\n\n## 仍然有效的用户限制\n- 不要读写文件");
    }

    #[test]
    fn present_clauses_are_not_repeated_and_assistant_text_does_not_count() {
        let summary = "Goal: fix it. Don't use any tools";
        assert_eq!(
            preserve_active_user_constraints(
                summary,
                &users(&["Don't use any tools."]),
                HandoffLang::En
            ),
            summary
        );
        let msgs = vec![ChatMessage {
            role: "assistant".into(),
            content: "Don't use any tools.".into(),
            ..ChatMessage::default()
        }];
        assert_eq!(
            preserve_active_user_constraints("S", &msgs, HandoffLang::En),
            "S"
        );
        assert_eq!(
            appended(&["Please do not modify the files, thanks"]),
            "S\n\n## Active user constraints\n- Please do not modify the files"
        );
    }
}
