//! `preserve_active_user_constraints` (bridge.md N18, N19, N36; T8): a handoff summary must not
//! lose the user's standing "don't use tools" or "don't touch the files".
//!
//! Only two categories are recognised, **using tools** and **reading or writing files**, each
//! with narrow, explicit phrasings in Chinese and English — this is not a general policy
//! extractor. A prohibition stays active unless a later user message explicitly permits the
//! same category; a question ("Can you use tools now?") is not a permission, and optional
//! non-use ("You don't need tools") is not a prohibition.
//!
//! The phrasings keel recognises; a clause (N36's split: LF and `。！？；，.!?;,`) counts when it
//! contains one. English is case-insensitive, its words may be separated by any whitespace, and
//! each English phrase stands on word boundaries. `(x)` is optional, `a/b` is one of them, and
//! `+` joins the parts (Chinese without spaces):
//!
//! | category | prohibits | permits |
//! |---|---|---|
//! | tools | 不要/别/禁止 + (再) + 调用/使用/用 + (任何) + 工具 | 可以 + 用/使用/调用 + 工具 (so also 现在可以用工具了) |
//! | tools | don't/don’t/dont/do not/never + use/call/run + (any) + tool/tools | you + can/may + (now) + use/call + (the) + tools |
//! | tools | no tools | tools are + (now) + allowed |
//! | files | 不要/别/禁止 + (再) + 读写/读/写/修改/编辑/改动/碰/动 + (任何) + 文件 | 可以 + 读写/读/写/修改/编辑 + 文件 |
//! | files | don't/don’t/dont/do not/never + V + (or/and + V) + (any/the) + file/files, V = read/write/modify/edit/touch/change | you + can/may + (now) + W + (and + W) + (the) + files, W = read/write/edit/modify |
//!
//! A clause that matches a prohibition is a prohibition, even if it also matches a permission.
//! A clause that ends in `?` or `？` is a question and never a permission. Anything else —
//! "you don't need tools", "can you use tools now?" — is neither.

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

/// `don't`, `don’t` (the curly apostrophe), `dont`, `do not` or `never`.
const NEGATION: &str = r"\b(?:don['’]?t|do\s+not|never)\s+";

static TOOLS_NO: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)(?:(?:不要|别|禁止)再?(?:调用|使用|用)(?:任何)?工具|{NEGATION}(?:use|call|run)\s+(?:any\s+)?tools?\b|\bno\s+tools\b)"
    ))
});
static TOOLS_YES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:可以(?:用|使用|调用)工具|\byou\s+(?:can|may)\s+(?:now\s+)?(?:use|call)\s+(?:the\s+)?tools\b|\btools\s+are\s+(?:now\s+)?allowed\b)",
    )
});
static FILES_NO: LazyLock<Regex> = LazyLock::new(|| {
    const V: &str = "(?:read|write|modify|edit|touch|change)";
    re(&format!(
        r"(?i)(?:(?:不要|别|禁止)再?(?:读写|读|写|修改|编辑|改动|碰|动)(?:任何)?文件|{NEGATION}{V}(?:\s+(?:or|and)\s+{V})?\s+(?:any\s+|the\s+)?files?\b)"
    ))
});
static FILES_YES: LazyLock<Regex> = LazyLock::new(|| {
    const W: &str = "(?:read|write|edit|modify)";
    re(&format!(
        r"(?i)(?:可以(?:读写|读|写|修改|编辑)文件|\byou\s+(?:can|may)\s+(?:now\s+)?{W}(?:\s+and\s+{W})?\s+(?:the\s+)?files\b)"
    ))
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

    #[test]
    fn a_permission_asked_as_a_question_does_not_revoke() {
        // The permission pattern matches these clauses; only their question mark keeps the
        // prohibition active.
        for (no, question, statement) in [
            (
                "Don't use any tools.",
                "You can use tools now?",
                "You can use tools now.",
            ),
            (
                "Do not edit the files.",
                "So you may now edit the files?",
                "So you may now edit the files.",
            ),
        ] {
            let clause = no.trim_end_matches('.');
            assert!(TOOLS_YES.is_match(question) || FILES_YES.is_match(question));
            assert_eq!(
                appended(&[no, question]),
                format!("S\n\n## Active user constraints\n- {clause}"),
                "{question:?}"
            );
            assert_eq!(appended(&[no, statement]), "S", "{statement:?}");
        }
        let zh =
            |texts: &[&str]| preserve_active_user_constraints("S", &users(texts), HandoffLang::Zh);
        assert_eq!(
            zh(&["不要用工具", "现在可以用工具了吗？"]),
            "S\n\n## 仍然有效的用户限制\n- 不要用工具"
        );
        assert_eq!(zh(&["不要用工具", "现在可以用工具了。"]), "S");
    }

    #[test]
    fn the_curly_apostrophe_counts() {
        assert_eq!(
            appended(&["Don’t use any tools, and don’t touch the files."]),
            "S\n\n## Active user constraints\n- Don’t use any tools\n- and don’t touch the files"
        );
        assert_eq!(appended(&["You don’t need tools for this."]), "S");
        assert_eq!(appended(&["Dont use tools", "You can use tools now"]), "S");
    }

    /// Every phrasing the table at the top of this file lists, spelled out: the table is what
    /// the patterns accept.
    #[test]
    fn the_documented_table_is_what_the_patterns_accept() {
        fn all(parts: &[&[&str]], sep: &str) -> Vec<String> {
            parts.iter().fold(vec![String::new()], |acc, options| {
                acc.iter()
                    .flat_map(|a| {
                        options
                            .iter()
                            .map(move |o| match (a.is_empty(), o.is_empty()) {
                                (true, _) => (*o).to_string(),
                                (_, true) => a.clone(),
                                _ => format!("{a}{sep}{o}"),
                            })
                    })
                    .collect()
            })
        }
        let negations: &[&str] = &[
            "don't", "don’t", "dont", "do not", "never", "DON'T", "Do  Not",
        ];
        let cases: Vec<(&Regex, Vec<String>)> = vec![
            (
                &*TOOLS_NO,
                [
                    all(
                        &[
                            &["不要", "别", "禁止"],
                            &["", "再"],
                            &["调用", "使用", "用"],
                            &["", "任何"],
                            &["工具"],
                        ],
                        "",
                    ),
                    all(
                        &[
                            negations,
                            &["use", "call", "run"],
                            &["", "any"],
                            &["tool", "tools"],
                        ],
                        " ",
                    ),
                    vec!["no tools".into(), "No\ttools".into()],
                ]
                .concat(),
            ),
            (
                &*TOOLS_YES,
                [
                    all(
                        &[
                            &["", "现在"],
                            &["可以"],
                            &["用", "使用", "调用"],
                            &["工具"],
                            &["", "了"],
                        ],
                        "",
                    ),
                    all(
                        &[
                            &["you"],
                            &["can", "may"],
                            &["", "now"],
                            &["use", "call"],
                            &["", "the"],
                            &["tools"],
                        ],
                        " ",
                    ),
                    all(&[&["tools are"], &["", "now"], &["allowed"]], " "),
                ]
                .concat(),
            ),
            (
                &*FILES_NO,
                [
                    all(
                        &[
                            &["不要", "别", "禁止"],
                            &["", "再"],
                            &["读写", "读", "写", "修改", "编辑", "改动", "碰", "动"],
                            &["", "任何"],
                            &["文件"],
                        ],
                        "",
                    ),
                    all(
                        &[
                            negations,
                            &["read", "write", "modify", "edit", "touch", "change"],
                            &[
                                "",
                                "or read",
                                "and write",
                                "or modify",
                                "and edit",
                                "or touch",
                                "and change",
                            ],
                            &["", "any", "the"],
                            &["file", "files"],
                        ],
                        " ",
                    ),
                ]
                .concat(),
            ),
            (
                &*FILES_YES,
                [
                    all(
                        &[&["可以"], &["读写", "读", "写", "修改", "编辑"], &["文件"]],
                        "",
                    ),
                    all(
                        &[
                            &["you"],
                            &["can", "may"],
                            &["", "now"],
                            &["read", "write", "edit", "modify"],
                            &["", "and read", "and write", "and edit", "and modify"],
                            &["", "the"],
                            &["files"],
                        ],
                        " ",
                    ),
                ]
                .concat(),
            ),
        ];
        for (pattern, phrases) in cases {
            assert!(phrases.len() > 3);
            for phrase in phrases {
                assert!(
                    pattern.is_match(&phrase),
                    "{phrase:?} is in the table but not matched"
                );
            }
        }
        // And what the table leaves out is not matched.
        for (pattern, phrase) in [
            (&*TOOLS_NO, "you don't need tools"),
            (&*TOOLS_NO, "don't use toolsets"),
            (&*TOOLS_NO, "不要用别的"),
            (&*TOOLS_YES, "can you use tools now"),
            (&*TOOLS_YES, "you could use tools"),
            (&*FILES_NO, "don't delete files"),
            (&*FILES_NO, "do not read the filesystem"),
            (&*FILES_YES, "you can touch the files"),
            (&*FILES_YES, "you can read the file"),
            (&*FILES_YES, "可以删除文件"),
        ] {
            assert!(
                !pattern.is_match(phrase),
                "{phrase:?} is not in the table but matched"
            );
        }
    }
}
