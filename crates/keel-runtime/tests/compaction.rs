//! Compaction in the turn loop, with the scripted provider on a real database: chained rounds,
//! the record of what was folded, and the one compaction + one retry after a context overflow.

use keel_core::compaction::{CompactionLimits, SUMMARY_HEADER, Trigger};
use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::{CompactionSettings, Event, LoopError, LoopSettings};
use keel_store::{CompactionStore, RunStore};

use crate::common;
use common::*;

fn script(lines: &[&str]) -> ScriptedModel {
    ScriptedModel::parse("script:t", &lines.join("\n")).unwrap_or_else(|e| panic!("{e}"))
}

fn text(lines: &str) -> String {
    serde_json::json!({ "text": lines }).to_string()
}

/// A summary with the five sections the instruction asks for, told apart by `tag`: a worker
/// answer without them is a rejected draft, not a summary.
fn summary_text(tag: &str) -> String {
    format!(
        "Goal: {tag}\nCurrent state: {tag}\nKey decisions & conventions: none\nKey files: none\nNext \
         step: go on"
    )
}

/// The scripted reply of a summary worker that writes [`summary_text`].
fn summary(tag: &str) -> String {
    text(&summary_text(tag))
}

fn settings(context_window: Option<u64>) -> LoopSettings {
    LoopSettings {
        compaction: CompactionSettings {
            context_window,
            limits: CompactionLimits {
                keep_recent_chars: 0,
                keep_user_chars: 1_000,
                ..CompactionLimits::default()
            },
            ..CompactionSettings::default()
        },
        ..LoopSettings::default()
    }
}

fn system(request: &ModelRequest) -> &str {
    request.messages[0].content.as_deref().unwrap_or_default()
}

fn everything(request: &ModelRequest) -> String {
    request
        .messages
        .iter()
        .filter_map(|m| m.content.clone())
        // The summary worker's system message is blank.
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn notices(w: &World) -> Vec<String> {
    w.events
        .iter()
        .filter_map(|e| match e {
            Event::Notice(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn three_rounds_chain_each_summary_through_the_previous_one() {
    let mut w = world(&[], false);
    // A one-token window: every request with something to fold is compacted first.
    let lines = [
        text("A1"),
        summary("S1"),
        text("A2"),
        summary("S2"),
        text("A3"),
        summary("S3"),
        text("A4"),
    ];
    let mut model = script(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let users = [
        "Use port 8080. Do not use any tools.",
        "Now use port 9090",
        "Add tests",
        "Ship it",
    ];
    for user in users {
        with_agent(&mut w, &mut model, None, settings(Some(1)), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(model.remaining(), 0);
    let requests: Vec<&ModelRequest> = model.requests.iter().map(|(r, _)| r).collect();
    // Requests: A1 | S1 A2 | S2 A3 | S3 A4. The summary calls get no tools, a blank system
    // message and the prompt.
    for (i, summary) in [1usize, 3, 5].into_iter().enumerate() {
        let r = requests[summary];
        assert_eq!(r.messages.len(), 2);
        assert_eq!(r.messages[0], ChatMessage::text(Role::System, ""));
        assert_eq!(r.messages[1].role, Role::User);
        assert!(
            model.requests[summary].1.is_empty(),
            "no tools for the summariser"
        );
        let prompt = everything(r);
        assert!(prompt.contains("consolidate"), "{prompt}");
        if i > 0 {
            // Round N reads round N−1's summary as its compaction section (N23), with the
            // constraints block keel appended to it.
            let previous = format!(
                "【早前上下文压缩摘要】\n{}\n\n## Active user constraints",
                summary_text(&format!("S{i}"))
            );
            assert!(
                prompt.contains(&previous),
                "round {} lost S{i}: {prompt}",
                i + 1
            );
        }
    }
    let last = requests[6];
    let head = system(last);
    assert_eq!(head.matches(SUMMARY_HEADER).count(), 1, "{head}");
    assert!(head.contains("S3") && !head.contains("S2") && !head.contains("S1"));
    // The user's prohibition survives three rounds even though no worker wrote it.
    assert!(head.contains("## Active user constraints"), "{head}");
    assert!(head.contains("Do not use any tools"), "{head}");
    // The newest users stay verbatim as messages; folded replies are gone.
    let body = everything(&ModelRequest {
        messages: last.messages[1..].to_vec(),
    });
    for user in users {
        assert!(body.contains(user), "{user} missing from {body}");
    }
    assert!(!body.contains("A1") && !body.contains("A2") && !body.contains("A3"));
    let rounds = w.store.compactions("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rounds
            .iter()
            .map(|c| (c.round, c.first_unfolded_seq, c.trigger))
            .collect::<Vec<_>>(),
        vec![
            (1, 2, Trigger::Threshold),
            (2, 4, Trigger::Threshold),
            (3, 6, Trigger::Threshold)
        ]
    );
    assert_eq!(rounds[2].kept_user_seqs, vec![0, 2, 4]);
    assert_eq!(rounds[2].folded_count(), 3);
    // Nothing is cut from the run itself: every item is still stored.
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.items.len(), 8);
    assert!(
        notices(&w)
            .iter()
            .any(|n| n.starts_with("compaction round 3 (threshold): 3 items folded")),
        "{:?}",
        notices(&w)
    );
    for main in [0usize, 2, 4, 6] {
        assert_eq!(requests[main].messages[0].role, Role::System);
        assert!(
            requests[main].messages[1..]
                .iter()
                .all(|m| m.role != Role::System)
        );
    }
}

#[test]
fn a_context_overflow_compacts_once_and_retries_once() {
    let mut w = world(&[], false);
    let overflow = r#"{"error":"context_overflow","message":"maximum context length is 8192"}"#;
    let a1 = text("A1");
    let s1 = summary("S1");
    let a2 = text("A2");
    let mut model = script(&[&a1, overflow, &s1, &a2]);
    for user in ["first", "second"] {
        with_agent(&mut w, &mut model, None, settings(None), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(model.requests.len(), 4);
    let retry = &model.requests[3].0;
    assert!(system(retry).contains("S1"));
    assert!(!everything(retry).contains("A1"));
    let rounds = w.store.compactions("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].trigger, Trigger::Overflow);

    // A second overflow after the retry is the user's to see; nothing is lost.
    let mut model = script(&[overflow, &summary("S2"), overflow]);
    let err = with_agent(&mut w, &mut model, None, settings(None), |a| {
        a.user_turn("r", "third")
    })
    .err()
    .unwrap_or_else(|| panic!("a second overflow must fail"));
    assert!(matches!(err, LoopError::Model(_)), "{err}");
    assert!(err.to_string().contains("8192"), "{err}");
    assert_eq!(
        model.requests.len(),
        3,
        "one compaction, one retry, no more"
    );
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert!(record.items.iter().any(|i| matches!(
        &i.body,
        keel_core::ItemBody::User { text } if text == "third"
    )));
    assert!(
        record.head.turn_open,
        "the turn stays open for `keel runs resume`"
    );
}

#[test]
fn an_overflow_with_nothing_to_fold_says_so() {
    let mut w = world(&[], false);
    let mut model = script(&[r#"{"error":"context_overflow","message":"too long"}"#]);
    let err = with_agent(&mut w, &mut model, None, settings(None), |a| {
        a.user_turn("r", "a very long first message")
    })
    .err()
    .unwrap_or_else(|| panic!("must fail"));
    assert!(err.to_string().contains("nothing left to compact"), "{err}");
    assert_eq!(model.requests.len(), 1);
}

#[test]
fn a_failed_summary_before_the_threshold_leaves_the_run_as_it_was() {
    let mut w = world(&[], false);
    let a1 = text("A1");
    let a2 = text("A2");
    let mut model = script(&[&a1, r#"{"error":"failed","message":"HTTP 500"}"#, &a2]);
    for user in ["first", "second"] {
        with_agent(&mut w, &mut model, None, settings(Some(1)), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        w.store
            .compactions("r")
            .unwrap_or_else(|e| panic!("{e}"))
            .is_empty()
    );
    assert!(everything(&model.requests[2].0).contains("A1"));
    assert!(
        notices(&w)
            .iter()
            .any(|n| n.contains("compaction skipped") && n.contains("worker-failed")),
        "{:?}",
        notices(&w)
    );
}

#[test]
fn a_prohibition_revoked_after_the_cut_is_not_written_into_the_summary() {
    let mut w = world(&[], false);
    let mut model = script(&[&text("OK."), &summary("S1"), &text("Tools it is.")]);
    for user in ["Do not use any tools.", "You can now use tools."] {
        with_agent(&mut w, &mut model, None, settings(Some(1)), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let rounds = w.store.compactions("r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rounds.len(), 1);
    assert_eq!(
        rounds[0].first_unfolded_seq, 2,
        "the permission stays visible"
    );
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    let note = record.notes.read("compaction-summary").unwrap_or_default();
    assert!(!note.contains("Active user constraints"), "{note}");
}

#[test]
fn a_source_budget_too_small_for_the_previous_summary_folds_nothing_more() {
    let mut w = world(&[], false);
    let long_summary = summary(&"S".repeat(500));
    let mut model = script(&[&text("A1"), &long_summary, &text("A2"), &text("A3")]);
    let mut tight = settings(Some(1));
    for user in ["first", "second"] {
        with_agent(&mut w, &mut model, None, tight.clone(), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    // The next round's source cannot hold the 500-char summary whole.
    tight.compaction.limits.source_chars = 300;
    with_agent(&mut w, &mut model, None, tight, |a| {
        a.user_turn("r", "third")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(w.store.compactions("r").map(|r| r.len()).unwrap_or(0), 1);
    assert!(
        notices(&w)
            .iter()
            .any(|n| n.contains("cannot hold the previous summary whole")),
        "{:?}",
        notices(&w)
    );
    assert_eq!(model.remaining(), 0, "no summary was asked for");
}

/// The chars the agent weighs a request by: its messages' text and tool calls.
fn request_chars(request: &ModelRequest) -> usize {
    request
        .messages
        .iter()
        .map(|m| {
            m.content.as_deref().map_or(0, |c| c.chars().count())
                + m.tool_calls
                    .iter()
                    .map(|c| c.function.name.len() + c.function.arguments.chars().count())
                    .sum::<usize>()
        })
        .sum()
}

/// Two turns, the first answered with a reply of `reply_chars` chars; returns the model (with
/// every request it got) and the world.
fn two_turns(
    window: Option<u64>,
    threshold_percent: u64,
    reply_chars: usize,
    replies: &[&str],
) -> (ScriptedModel, World) {
    let mut w = world(&[], false);
    let first = text(&format!("A1 {}", "x".repeat(reply_chars - 3)));
    let lines: Vec<&str> = std::iter::once(first.as_str())
        .chain(replies.iter().copied())
        .collect();
    let mut model = script(&lines);
    let mut s = settings(window);
    s.compaction.threshold_percent = threshold_percent;
    for user in ["first", "second"] {
        with_agent(&mut w, &mut model, None, s.clone(), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
    (model, w)
}

#[test]
fn the_threshold_is_a_share_of_a_real_window() {
    // The second turn's request, without compaction, for a first reply of `reply` chars.
    let probe = |reply: usize| {
        let (model, _) = two_turns(None, 80, reply, &[&text("A2")]);
        request_chars(&model.requests[1].0)
    };
    let overhead = probe(1_000) - 1_000;
    assert_eq!(
        probe(2_000),
        overhead + 2_000,
        "the reply counts char for char"
    );
    // Tokens are estimated as ceil(chars / 4); a request compacts when tokens × 100 exceed
    // window × share. At 8192 tokens and 80 %: 6553 tokens (26212 chars) stay, 6554 (26213)
    // compact. At 8192 and 50 %: 4096 tokens (16384 chars) stay, 4097 (16385) compact. A check
    // against the whole window would compact neither.
    for (window, percent, stays) in [(8192u64, 80u64, 26_212usize), (8192, 50, 16_384)] {
        let below = stays - overhead;
        assert_eq!(probe(below), stays);
        assert_eq!(probe(below + 1), stays + 1);

        let (model, w) = two_turns(Some(window), percent, below, &[&text("A2")]);
        assert_eq!(model.remaining(), 0);
        assert_eq!(
            model.requests.len(),
            2,
            "{window}/{percent}%: no summary call"
        );
        assert_eq!(request_chars(&model.requests[1].0), stays);
        assert!(
            w.store
                .compactions("r")
                .map(|c| c.is_empty())
                .unwrap_or(false),
            "{window}/{percent}%: {stays} chars must not compact"
        );

        let (model, w) = two_turns(
            Some(window),
            percent,
            below + 1,
            &[&summary("S1"), &text("A2")],
        );
        assert_eq!(model.remaining(), 0);
        assert_eq!(
            model.requests.len(),
            3,
            "{window}/{percent}%: one summary call"
        );
        assert!(everything(&model.requests[1].0).contains("consolidate"));
        let rounds = w.store.compactions("r").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            rounds.iter().map(|c| c.trigger).collect::<Vec<_>>(),
            [Trigger::Threshold],
            "{window}/{percent}%: {} chars must compact",
            stays + 1
        );
        let sent = &model.requests[2].0;
        assert!(system(sent).contains("S1"), "{}", system(sent));
        assert!(
            !everything(sent).contains("xxxxxxxxxx"),
            "the long reply was folded"
        );
        assert!(request_chars(sent) < stays);
    }
}

/// Everything stored of the run: a failed compaction must leave it exactly so.
fn stored(w: &World) -> (Vec<keel_core::Item>, Vec<String>, usize) {
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    let notes = record.notes.iter().map(|n| n.text.clone()).collect();
    let rounds = w.store.compactions("r").map(|r| r.len()).unwrap_or(99);
    (record.items, notes, rounds)
}

#[test]
fn a_rejected_draft_before_the_threshold_folds_nothing_and_says_so() {
    // The summariser's instruction, as the run's own model is given it.
    let instruction = keel_core::compaction::instruction(
        keel_core::bridge::HandoffLang::En,
        CompactionLimits::default().summary_chars,
    );
    let echo = instruction
        .split(". ")
        .next()
        .unwrap_or_default()
        .to_string();
    let mut w = world(&[], false);
    let mut model = script(&[
        &text("A1"),
        &text(&echo),
        &text("A2"),
        &text("S1"),
        &text("A3"),
    ]);
    with_agent(&mut w, &mut model, None, settings(Some(1)), |a| {
        a.user_turn("r", "first")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let before = stored(&w);
    // An echo of the instruction, then an answer without the five sections: each is a failed
    // draft. The run goes on; nothing is folded, written or lost.
    for (user, why) in [
        ("second", "repeats its instruction back"),
        ("third", "lacks 5 of the five sections"),
    ] {
        let seen = notices(&w).len();
        with_agent(&mut w, &mut model, None, settings(Some(1)), |a| {
            a.user_turn("r", user)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let new = notices(&w).split_off(seen);
        let said = new
            .iter()
            .find(|n| n.starts_with("compaction skipped"))
            .unwrap_or_else(|| panic!("{user}: no notice among {new:?}"));
        assert!(
            said.starts_with(
                "compaction skipped, nothing was folded: draft-rejected: the worker model \
                 (script:t) did not write a summary: "
            ),
            "{said}"
        );
        assert!(said.contains(why), "{said}");
        assert!(
            said.ends_with(
                "(compaction summaries are written by the run's own model; every item is kept)"
            ),
            "{said}"
        );
    }
    assert_eq!(model.remaining(), 0);
    // The summariser was asked in English: the run's language, not its source's headers.
    assert!(everything(&model.requests[1].0).starts_with("You are compacting"));
    // The model went on seeing the run whole: no summary, every item verbatim.
    let last = &model.requests[4].0;
    assert!(!system(last).contains(SUMMARY_HEADER), "{}", system(last));
    assert!(!system(last).contains(&echo));
    for said in ["A1", "A2", "first", "second", "third"] {
        assert!(everything(last).contains(said), "{said} missing");
    }
    let (items, notes, rounds) = stored(&w);
    assert_eq!((notes, rounds), (before.1, 0));
    assert_eq!(items[..before.0.len()], before.0[..]);
    assert_eq!(items.len(), 6);
}

#[test]
fn a_rejected_draft_after_an_overflow_ends_the_turn_and_loses_nothing() {
    let mut w = world(&[], false);
    let overflow = r#"{"error":"context_overflow","message":"maximum context length is 8192"}"#;
    let mut model = script(&[&text("A1"), overflow, &text("Summary: things happened.")]);
    with_agent(&mut w, &mut model, None, settings(None), |a| {
        a.user_turn("r", "first")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let err = with_agent(&mut w, &mut model, None, settings(None), |a| {
        a.user_turn("r", "second")
    })
    .err()
    .unwrap_or_else(|| panic!("a rejected draft cannot rescue an overflow"));
    assert!(matches!(err, LoopError::Model(_)), "{err}");
    let said = err.to_string();
    assert!(
        said.contains(
            "the request was too long and compacting it failed: draft-rejected: the worker model \
             (script:t) did not write a summary: it lacks"
        ),
        "{said}"
    );
    assert!(said.contains("every item is kept"), "{said}");
    assert_eq!(model.remaining(), 0, "no retry without a summary");
    let (items, notes, rounds) = stored(&w);
    assert_eq!(rounds, 0);
    assert!(
        notes.iter().all(|n| !n.contains(SUMMARY_HEADER)),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("things happened")));
    assert_eq!(items.len(), 3, "first, A1, second");
    let record = w.store.load_run("r").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        record.head.turn_open,
        "the turn stays open for `keel runs resume`"
    );
}
