use super::*;
use crate::bridge::message::ToolNode;

fn user(text: &str) -> ChatMessage {
    ChatMessage {
        role: "user".into(),
        content: text.into(),
        ..ChatMessage::default()
    }
}

fn assistant(text: &str, tool: Option<&str>) -> ChatMessage {
    ChatMessage {
        role: "assistant".into(),
        content: text.into(),
        tool_nodes: tool
            .map(|t| ToolNode {
                title: t.into(),
                detail: Some("{\"path\":\"src/main.rs\"}".into()),
            })
            .into_iter()
            .collect(),
        ..ChatMessage::default()
    }
}

fn request<'a>(messages: &'a [ChatMessage], purpose: Purpose) -> DraftRequest<'a> {
    DraftRequest {
        messages,
        whole_run: messages,
        prior: None,
        conversation: ConversationLanguage::new(),
        lang: None,
        source_char_budget: None,
        purpose,
    }
}

const HANDOFF: Purpose = Purpose::Handoff {
    summary_char_budget: None,
};
const COMPACTION: Purpose = Purpose::Compaction {
    summary_chars: 2400,
};

fn job(messages: &[ChatMessage], purpose: Purpose) -> DraftJob {
    prepare(request(messages, purpose)).unwrap_or_else(|e| panic!("{e}"))
}

const GOOD_EN: &str = "## Goal\nBuild a CLI.\n\n## Current state\nsrc/main.rs exists.\n\n\
                       ## Key decisions & conventions\n- Port 9090, because the user asked.\n\n\
                       ## Key files\n- src/main.rs\n\n## Next step\nAdd tests.";

/// The one-line English run of the bug report: the source's Chinese headers tip N17's
/// `detect_lang` over the source to zh, but the summary follows what the user wrote.
#[test]
fn a_one_line_english_run_is_summarised_in_english() {
    for task in ["Build a CLI.", "Fix it."] {
        let messages = [
            user(task),
            assistant("Created src/main.rs.", Some("write_file")),
        ];
        let job = job(&messages, HANDOFF);
        assert_eq!(
            detect_lang(&job.source.text),
            HandoffLang::Zh,
            "the old rule: {}",
            job.source.text
        );
        assert_eq!(job.lang, HandoffLang::En, "{task}");
        assert!(
            job.prompt.starts_with("You are a handoff engineer"),
            "{task}"
        );
        assert!(job.instruction.contains("exactly these five sections"));
        assert_eq!(
            job.prompt,
            format!("{}\n\n{}", job.instruction, job.source.text)
        );
        // Compaction follows the same rule.
        let job = super::tests::job(&messages, COMPACTION);
        assert_eq!(job.lang, HandoffLang::En, "{task}");
        assert!(job.prompt.starts_with("You are compacting"), "{task}");
    }
}

#[test]
fn the_tracked_language_wins_then_the_users_words_then_a_request() {
    let english = [user("Please build the command line tool for me.")];
    let chinese = [user("请帮我写一个命令行工具。")];
    // Undecided tracker: the user's words (N17 over them alone).
    assert_eq!(job(&english, HANDOFF).lang, HandoffLang::En);
    assert_eq!(job(&chinese, HANDOFF).lang, HandoffLang::Zh);
    // The tracker's language, e.g. from an explicit "请用中文回答" (N19), decides.
    let mut tracked = ConversationLanguage::new();
    tracked.observe("请用中文回答");
    let mut r = request(&english, COMPACTION);
    r.conversation = tracked;
    assert_eq!(prepare(r).map(|j| j.lang), Ok(HandoffLang::Zh));
    // `--lang` decides over everything.
    r.lang = Some(HandoffLang::En);
    assert_eq!(prepare(r).map(|j| j.lang), Ok(HandoffLang::En));
    // Only user messages count: the prior summary and the replies are not the user's words.
    let mixed = [
        ChatMessage {
            role: "system".into(),
            content: "早前的摘要：一个命令行工具，端口九零九零。".into(),
            kind: Some("compaction".into()),
            ..ChatMessage::default()
        },
        user("ok, ship it"),
        assistant("好的，已经完成了全部的工作。", None),
    ];
    assert_eq!(
        conversation_lang(&ConversationLanguage::new(), &mixed),
        HandoffLang::En
    );
}

#[test]
fn a_blank_source_is_refused_with_what_the_budget_dropped() {
    assert_eq!(
        prepare(request(&[], HANDOFF)),
        Err(EmptySource { dropped: vec![] })
    );
    let messages = [user("Build a CLI.")];
    let mut r = request(&messages, HANDOFF);
    r.source_char_budget = Some(0);
    assert_eq!(
        prepare(r),
        Err(EmptySource {
            dropped: vec!["users".into()]
        })
    );
}

#[test]
fn an_echo_of_the_instruction_is_rejected() {
    let messages = [user("Build a CLI."), user("请写测试。")];
    for purpose in [HANDOFF, COMPACTION] {
        for lang in [HandoffLang::En, HandoffLang::Zh] {
            let mut r = request(&messages, purpose);
            r.lang = Some(lang);
            let job = prepare(r).unwrap_or_else(|e| panic!("{e}"));
            let first_line = job.instruction.lines().next().unwrap_or_default();
            // What the embedded worker did: its instruction's first line, as the summary.
            for echo in [first_line, &job.instruction, &job.prompt] {
                let got = job.finish(echo);
                assert!(
                    matches!(got, Err(Rejection::Echo { .. })),
                    "{purpose:?} {lang:?}: {got:?}"
                );
            }
            // Even with every section heading added, an echo is not a summary.
            let padded = format!("{GOOD_EN}\n\n{first_line}");
            assert!(matches!(job.check(&padded), Err(Rejection::Echo { .. })));
        }
    }
    // Repeating the source is an echo of the prompt too.
    let job = job(&messages[..1], HANDOFF);
    let got = job.check(&format!("{GOOD_EN}\n\n{}", job.source.text));
    assert_eq!(
        got,
        Err(Rejection::Echo {
            fragment: "【用户消息全文（按时间序）】".into()
        })
    );
    // The rejection quotes what was repeated, shortened.
    let said = job
        .check(job.instruction.lines().next().unwrap_or_default())
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        said.as_deref(),
        Some(
            "it repeats its instruction back (\"You are a handoff engineer\") instead of summarising the run"
        )
    );
    let rule = "omit superseded or revoked values entirely, never restating them even as obsolete";
    assert!(job.instruction.contains(rule));
    let said = job
        .check(&format!("{GOOD_EN}\nRules: {rule}."))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert_eq!(
        said,
        format!(
            "it repeats its instruction back (\"{}…\") instead of summarising the run",
            rule.chars().take(60).collect::<String>()
        )
    );
}

#[test]
fn a_draft_without_the_required_sections_is_rejected() {
    let job = job(&[user("Build a CLI.")], HANDOFF);
    assert_eq!(
        job.finish("Goal: review the CLI.\nCurrent state: src/main.rs exists.\nPort: 9090"),
        Err(Rejection::MissingSections {
            missing: vec!["Key decisions & conventions", "Key files", "Next step"]
        })
    );
    assert_eq!(
        job.finish("S1"),
        Err(Rejection::MissingSections {
            missing: REQUIRED_SECTIONS.iter().map(|s| s.name).collect()
        })
    );
    // A name inside prose is not a heading.
    let prose = "The goal is a CLI; the current state is good; key decisions: none; key files: \
                 src/main.rs; the next step is tests.";
    assert!(matches!(
        job.check(prose),
        Err(Rejection::MissingSections { missing }) if missing.len() == 5
    ));
    let said = job.check("Goal: x").err().map(|e| e.to_string());
    assert_eq!(
        said.as_deref(),
        Some(
            "it lacks 4 of the five sections the instruction asks for: Current state, Key \
             decisions & conventions, Key files, Next step"
        )
    );
}

#[test]
fn a_good_draft_is_accepted_and_finished() {
    let messages = [user("Build a CLI. Do not use any tools.")];
    let job = job(&messages, HANDOFF);
    let draft = job.finish(GOOD_EN).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        draft,
        format!("{GOOD_EN}\n\n## Active user constraints\n- Do not use any tools")
    );
    // The shapes models write headings in, in either language.
    for good in [
        "1. Goal — a CLI.\n2. Current state — started.\n3. Key decisions & conventions — none.\n\
         4. Key files — src/main.rs\n5. Next step — tests.",
        "**Goal:** a CLI.\n**Current state:** started.\n**Key decisions and conventions:**\n\
         - none\n**Key files:** src/main.rs\n**Next steps:** tests.",
        "Goal: a CLI\nCurrent state: started\nKey decisions: none\nKey files: none\nNext step: \
         tests",
        "## 目标\n写一个命令行工具。\n## 当前状态\n已开始。\n## 关键决策与约定\n- 无\n## 关键文件\n\
         - src/main.rs\n## 下一步\n写测试。",
        "一、目标：命令行工具\n二、当前状态：已开始\n三、关键决策与约定：无\n四、关键文件：无\n\
         五、下一步：写测试",
    ] {
        assert_eq!(job.check(good), Ok(()), "{good}");
    }
    // A compaction summary is checked the same way.
    let job = super::tests::job(&messages, COMPACTION);
    assert_eq!(job.check(GOOD_EN), Ok(()));
}

#[test]
fn the_form_has_every_heading_and_what_keel_appends() {
    let messages = [user("不要读写文件。请写一个命令行工具。")];
    let job = job(&messages, HANDOFF);
    assert_eq!(job.lang, HandoffLang::Zh);
    let form = job.form();
    assert_eq!(
        form,
        "## 目标\n\n## 当前状态\n\n## 关键决策与约定\n\n## 关键文件\n\n## 下一步\n\n\
         ## 仍然有效的用户限制\n- 不要读写文件"
    );
    assert_eq!(job.check(&form), Ok(()));
}

#[test]
fn fold_run_places_the_summary_the_run_carries() {
    use crate::item::{ItemBody, ItemId};
    let mut notes = SystemNotes::default();
    let (messages, prior) = fold_run(&[], &notes, None);
    assert!(messages.is_empty() && prior.is_none());
    // A run made by a handoff: its handoff summary covers everything before its first item.
    notes
        .apply(crate::notes::producers::handoff_summary("Goal: ship."), 8)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let items = [Item {
        seq: 0,
        id: ItemId::try_from("i0").unwrap_or_else(|_| unreachable!()),
        ts: crate::time::Timestamp(0),
        body: ItemBody::User {
            text: "Go on.".into(),
        },
    }];
    let (messages, prior) = fold_run(&items, &notes, None);
    assert_eq!(
        prior.map(|p| (p.text, p.first_unfolded_seq)),
        Some(("Goal: ship.", 0))
    );
    assert_eq!(
        messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()))
            .collect::<Vec<_>>(),
        [("system", "Goal: ship."), ("user", "Go on.")]
    );
    assert!(messages[0].is_compaction());
}
