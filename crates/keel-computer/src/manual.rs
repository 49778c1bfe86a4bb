//! The manuals a model reads on demand through `tool_manual` (computer-use.md N1, N2), the
//! short summary of each that the byte-stable head carries instead (ARCHITECTURE.md,
//! "Compose"), and N29's rule for a clarification during computer control.
//!
//! [`COMPUTER_USE_MANUAL`] is the seed's `computerUseManual`, decoded byte for byte and never
//! retyped: `computer_use_manual.txt` is written by
//! `scripts/seed-literal ../shared/seeds/003_d926960e01e1d8a7.txt computerUseManual`, and a test
//! decodes the seed again and compares.

/// The `computer_use` manual (N1): 4442 chars, 4446 bytes, trailing LF included (T1).
pub const COMPUTER_USE_MANUAL: &str = include_str!("computer_use_manual.txt");

/// What the stable head says about `computer_use`; the manual itself is too long to pay for
/// on every request, and the model reads it once, when it needs it.
pub const COMPUTER_USE_SUMMARY: &str = "computer_use operates one desktop window, one grounded \
    input at a time, behind the user's consent (discover, open, observe, step, close). Before \
    the first computer_use call, call tool_manual with {\"name\":\"computer_use\"} and follow \
    the full manual it returns.";

/// One tool that has a manual.
struct Entry {
    tool: &'static str,
    manual: &'static str,
    summary: &'static str,
}

/// Every manual keel has, by tool name, in the order they are listed.
const MANUALS: &[Entry] = &[Entry {
    tool: "computer_use",
    manual: COMPUTER_USE_MANUAL,
    summary: COMPUTER_USE_SUMMARY,
}];

/// The full manual of `tool`, verbatim (N2); `None` for a tool without one.
pub fn manual(tool: &str) -> Option<&'static str> {
    MANUALS.iter().find(|e| e.tool == tool).map(|e| e.manual)
}

/// The one- or two-sentence summary of `tool`'s manual for the stable head, which tells the
/// model to read the full text with `tool_manual`; `None` for a tool without a manual.
pub fn manual_summary(tool: &str) -> Option<&'static str> {
    MANUALS.iter().find(|e| e.tool == tool).map(|e| e.summary)
}

/// The tools that have a manual, in a fixed order (for error messages that list them).
pub fn tools_with_manuals() -> impl Iterator<Item = &'static str> {
    MANUALS.iter().map(|e| e.tool)
}

/// The prefix of a `clarify` key that belongs to computer control (N29).
pub const COMPUTER_CLARIFICATION_PREFIX: &str = "computer:";

/// The one answer to a computer-control clarification that keeps control (N29): the person
/// says they dealt with it on the desktop and control goes on.
pub const KEEP_CONTROL_ANSWER: &str = "已在桌面端处理，继续";

/// Whether a `clarify` key is about computer control (starts with `computer:`).
pub fn is_computer_clarification(key: &str) -> bool {
    key.starts_with(COMPUTER_CLARIFICATION_PREFIX)
}

/// N29: a clarification keyed `computer:` answered exactly [`KEEP_CONTROL_ANSWER`] keeps
/// computer control; any other answer to it stops control. The match is exact — no trimming,
/// no case or width folding (N36) — because anything looser would let a chat reply that merely
/// resembles the phrase stand in for the person's decision. A key that is not a computer key
/// never keeps control: only a computer clarification can.
pub fn clarification_keeps_control(key: &str, answer: &str) -> bool {
    is_computer_clarification(key) && answer == KEEP_CONTROL_ANSWER
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_core::seed_literal::{seed_literal, seed_path, sha256_hex};

    #[test]
    fn n1_manual_is_the_seed_literal_byte_for_byte() {
        let seed = seed_literal(&seed_path("003_d926960e01e1d8a7.txt"), "computerUseManual");
        assert_eq!(COMPUTER_USE_MANUAL, seed);
    }

    #[test]
    fn t1_manual_fingerprint() {
        let m = COMPUTER_USE_MANUAL;
        assert_eq!(m.chars().count(), 4442);
        assert_eq!(m.len(), 4446);
        assert_eq!(
            sha256_hex(m),
            "2c4785925d7eefc799677447f2e7da869e8b4c8be3583ae34bec68d9cd91170b"
        );
        assert!(m.starts_with("# Computer Use\n\n"));
        assert!(m.ends_with("mode stays observe.\n"));
    }

    #[test]
    fn n2_registry_serves_the_manual_verbatim() {
        assert_eq!(manual("computer_use"), Some(COMPUTER_USE_MANUAL));
        assert_eq!(manual("shell"), None);
        assert_eq!(manual("Computer_Use"), None);
        assert_eq!(tools_with_manuals().collect::<Vec<_>>(), ["computer_use"]);
    }

    #[test]
    fn summaries_are_short_point_to_tool_manual_and_are_not_the_manual() {
        for tool in tools_with_manuals() {
            let s = manual_summary(tool).unwrap_or_default();
            assert!(s.contains("tool_manual"), "{tool}: {s}");
            assert!(
                s.contains(&format!("{{\"name\":\"{tool}\"}}")),
                "{tool}: {s}"
            );
            assert!(
                s.chars().count() <= 400,
                "{tool}: {} chars",
                s.chars().count()
            );
            assert!(
                s.matches(". ").count() <= 1,
                "{tool}: at most two sentences: {s}"
            );
            let manual = manual(tool).unwrap_or_default();
            assert!(!manual.contains(s) && !s.contains(manual.trim()));
        }
        assert_eq!(manual_summary("shell"), None);
    }

    #[test]
    fn n29_only_the_exact_answer_to_a_computer_key_keeps_control() {
        assert!(clarification_keeps_control(
            "computer:open",
            KEEP_CONTROL_ANSWER
        ));
        assert!(clarification_keeps_control(
            "computer:",
            "已在桌面端处理，继续"
        ));
        for answer in [
            "",
            "继续",
            "continue",
            " 已在桌面端处理，继续",
            "已在桌面端处理，继续\n",
            "已在桌面端处理,继续", // ASCII comma
            "已在桌面端处理，继续。",
        ] {
            assert!(
                !clarification_keeps_control("computer:x", answer),
                "{answer:?}"
            );
        }
        for key in [
            "",
            "computer",
            "Computer:x",
            " computer:x",
            "other:computer:x",
        ] {
            assert!(!is_computer_clarification(key), "{key:?}");
            assert!(
                !clarification_keeps_control(key, KEEP_CONTROL_ANSWER),
                "{key:?}"
            );
        }
    }

    /// The computer module's runtime source, without comments and without test modules, so a
    /// name counts only where code (a string, an identifier) carries it.
    fn runtime_source() -> String {
        [
            include_str!("codes.rs"),
            include_str!("input.rs"),
            include_str!("session.rs"),
            include_str!("observation.rs"),
            include_str!("verify.rs"),
            include_str!("progress.rs"),
            include_str!("proposal.rs"),
            include_str!("summary.rs"),
        ]
        .iter()
        .map(|file| {
            let code = file.split("#[cfg(test)]").next().unwrap_or_default();
            code.lines()
                .map(|l| match l.find("//") {
                    // A `//` inside a string literal (a URL) is rare in this module; cutting
                    // there only ever hides a name, never invents one.
                    Some(at) => &l[..at],
                    None => l,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
    }

    fn has_word(text: &str, word: &str) -> bool {
        let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        text.match_indices(word).any(|(at, _)| {
            !text[..at].chars().next_back().is_some_and(is_ident)
                && !text[at + word.len()..].chars().next().is_some_and(is_ident)
        })
    }

    /// The Rust spelling serde renames into `name`: a camelCase field is `snake_case` in Rust
    /// (`rename_all = "camelCase"`), a snake_case or lowercase value is a `PascalCase`
    /// variant (`rename_all = "snake_case"` / `"lowercase"`).
    fn rust_spelling(name: &str) -> Option<String> {
        if name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            return None;
        }
        if name.chars().any(|c| c.is_ascii_uppercase()) {
            return Some(name.chars().fold(String::new(), |mut s, c| {
                if c.is_ascii_uppercase() {
                    s.push('_');
                }
                s.push(c.to_ascii_lowercase());
                s
            }));
        }
        Some(
            name.split('_')
                .map(|w| {
                    let mut cs = w.chars();
                    cs.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + cs.as_str())
                        .unwrap_or_default()
                })
                .collect(),
        )
    }

    /// Every name of N32's list that the manual uses.
    const N32_NAMES: [&str; 20] = [
        "discover",
        "open",
        "observe",
        "step",
        "close",
        "appRef",
        "windowRef",
        "prepare",
        "expect",
        "preexisting",
        "unavailable",
        "pending_action",
        "stopped",
        "stop_unconfirmed",
        "recentActions",
        "budget",
        "model_finished",
        "takeover",
        "nextAction",
        "COMPUTER_NO_PROGRESS",
    ];

    #[test]
    fn n32_every_name_the_manual_uses_exists_in_the_runtime() {
        let source = runtime_source();
        let mut missing = Vec::new();
        for name in N32_NAMES {
            assert!(
                has_word(COMPUTER_USE_MANUAL, name),
                "the manual lacks {name}"
            );
            let found = has_word(&source, name)
                || rust_spelling(name).is_some_and(|r| has_word(&source, &r));
            if !found {
                missing.push(name);
            }
        }
        assert!(
            missing.is_empty(),
            "names the manual uses that the computer module's code does not: {missing:?}"
        );
    }

    #[test]
    fn the_n32_helpers() {
        assert_eq!(rust_spelling("appRef").as_deref(), Some("app_ref"));
        assert_eq!(
            rust_spelling("pending_action").as_deref(),
            Some("PendingAction")
        );
        assert_eq!(rust_spelling("stopped").as_deref(), Some("Stopped"));
        assert_eq!(rust_spelling("COMPUTER_NO_PROGRESS"), None);
        assert!(has_word("a \"open\" b", "open"));
        assert!(!has_word("reopened", "open"));
        assert!(!has_word("open_x", "open"));
    }
}
