use super::*;
use serde_json::json;

fn rule(tools: &[&str], decision: Decision, priority: i64) -> Rule {
    Rule {
        matcher: Matcher {
            tool_names: tools
                .iter()
                .map(|t| tool_glob(t).unwrap_or_else(|e| panic!("{e}")))
                .collect(),
            ..Matcher::default()
        },
        decision,
        priority,
        deny_message: None,
        source: format!("test:{priority}"),
    }
}

fn facts<'a>(tool: &'a str, args: &'a Value, mode: Mode, interactive: bool) -> CallFacts<'a> {
    CallFacts {
        tool,
        args,
        mode,
        interactive,
        annotations: None,
    }
}

#[test]
fn t3_priorities() {
    assert_eq!(priority(TIER_DEFAULT, 0), 1000);
    assert_eq!(priority(2, 500), 2500);
    assert_eq!(priority(TIER_WORKSPACE, 999), 3999);
    assert_eq!(priority(TIER_USER, 100), 4100);
    assert_eq!(priority(TIER_ADMIN, 10), 5010);
    assert_eq!(ALLOW_FOR_RUN_PRIORITY, 3950);
}

#[test]
fn first_match_wins_by_priority_then_restrictiveness_then_order() {
    let args = json!({});
    let p = Policy::new(
        vec![
            rule(&["write_file"], Decision::Allow, 3100),
            rule(&["write_*"], Decision::Deny, 4000),
            rule(&["write_file"], Decision::Allow, 4000),
        ],
        vec![],
    );
    let out = p.rule_decision(&facts("write_file", &args, Mode::Default, true));
    assert_eq!(
        out.decision,
        Decision::Deny,
        "a tie goes to the more restrictive rule"
    );
    assert_eq!(
        out.reason.as_deref(),
        Some("Tool execution denied by policy.")
    );
    assert_eq!(out.rule.as_deref(), Some("test:4000"));
}

#[test]
fn n14_no_rule_matched() {
    let p = Policy::new(vec![], vec![]);
    let args = json!({});
    assert_eq!(
        p.rule_decision(&facts("x", &args, Mode::Default, true))
            .decision,
        Decision::AskUser
    );
    assert_eq!(
        p.rule_decision(&facts("x", &args, Mode::Plan, false))
            .decision,
        Decision::Deny
    );
    assert_eq!(
        p.rule_decision(&facts("x", &args, Mode::Yolo, false))
            .decision,
        Decision::Allow
    );
}

#[test]
fn n34_a_failed_file_denies_everything() {
    let p = Policy::failed("/w/keel.toml", "bad");
    let args = json!({});
    let out = p.rule_decision(&facts("read_file", &args, Mode::Yolo, true));
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(
        out.reason.as_deref(),
        Some("Policy file \"/w/keel.toml\" failed to load: bad")
    );
}

#[test]
fn globs_and_mcp_names() -> Result<(), regex::Error> {
    assert!(tool_glob("mcp__files__*")?.is_match("mcp__files__read"));
    assert!(!tool_glob("mcp__files__*")?.is_match("mcp__other__read"));
    assert!(
        tool_glob("mcp_files_*")?.is_match("mcp__files__read"),
        "Gemini alias"
    );
    assert!(tool_glob("read.file")?.is_match("read.file"));
    assert!(
        !tool_glob("read.file")?.is_match("readXfile"),
        "dots are literal"
    );
    assert!(tool_glob("*")?.is_match("anything"));
    let m = Matcher {
        mcp_name: Some("files".into()),
        ..Matcher::default()
    };
    let args = json!({});
    assert!(m.matches(&facts("mcp__files__read", &args, Mode::Default, true), true));
    assert!(!m.matches(&facts("read", &args, Mode::Default, true), true));
    Ok(())
}

#[test]
fn n41_stable_stringify_sorts_keys_at_every_level() {
    let v = json!({"b": 1, "a": {"d": [ {"z": 1, "y": 2} ], "c": "x\n"}});
    assert_eq!(
        stable_stringify(&v),
        r#"{"a":{"c":"x\n","d":[{"y":2,"z":1}]},"b":1}"#
    );
}

#[test]
fn args_pattern_matches_the_stable_string() -> Result<(), regex::Error> {
    let m = Matcher {
        args_pattern: Some(Regex::new(r#""path":"/etc/"#)?),
        ..Matcher::default()
    };
    let yes = json!({"z": 1, "path": "/etc/passwd"});
    let no = json!({"path": "/home/x"});
    assert!(m.matches(&facts("read", &yes, Mode::Default, true), true));
    assert!(!m.matches(&facts("read", &no, Mode::Default, true), true));
    Ok(())
}

#[test]
fn every_sub_command_must_match_the_prefix() {
    let m = Matcher {
        command_prefixes: vec!["git status".into(), "ls".into()],
        every_command: true,
        ..Matcher::default()
    };
    let check = |cmd: &str| {
        let args = json!({"command": cmd});
        m.matches(
            &facts("run_shell_command", &args, Mode::Default, true),
            true,
        )
    };
    assert!(check("git status"));
    assert!(check("git status --short && ls -la"));
    assert!(!check("git status; rm -rf /"));
    assert!(!check("ls | sh"));
    assert!(!check("git statusx"));
    assert!(!check("ls $(rm -rf /)"));
    assert!(!check("ls `rm -rf /`") || split_commands("ls `rm -rf /`").len() == 1);
    assert!(check("ls 'a;b'"), "a quoted separator is not a separator");
    assert!(!check("ls > /etc/passwd"), "output redirection");
    // Read with a shell grammar, a quoted `>` is a word like any other (it used to ask).
    assert!(check("ls '>' x"), "a quoted > is a file name");
    assert!(
        !check("ls \"$(rm -rf /)\""),
        "substitution inside double quotes still runs"
    );
    assert!(!check("ls <(rm x)"));
    assert!(!check(""));
    let no_command = json!({});
    assert!(!m.matches(
        &facts("run_shell_command", &no_command, Mode::Default, true),
        true
    ));
}

#[test]
fn modes_and_interactive() {
    let m = Matcher {
        modes: Some(vec![Mode::Plan]),
        interactive: Some(false),
        ..Matcher::default()
    };
    let args = json!({});
    assert!(m.matches(&facts("x", &args, Mode::Plan, false), true));
    assert!(!m.matches(&facts("x", &args, Mode::Default, false), true));
    assert!(!m.matches(&facts("x", &args, Mode::Plan, true), true));
    assert!(
        m.matches(&facts("x", &args, Mode::Plan, true), false),
        "checker rules ignore interactive"
    );
    assert_eq!(Mode::parse("autoEdit"), Some(Mode::Default));
}

fn v(checker: &str, decision: Decision, reason: &str) -> CheckerVerdict {
    CheckerVerdict {
        checker: checker.into(),
        decision,
        reason: Some(reason.into()),
        failure: None,
    }
}

fn outcome(decision: Decision) -> RuleOutcome {
    RuleOutcome {
        decision,
        reason: (decision == Decision::Deny).then(|| "Tool execution denied by policy.".into()),
        rule: None,
    }
}

#[test]
fn t4_composition() {
    use Decision::*;
    let allow = |c: &str| v(c, Allow, "");
    assert_eq!(compose(&outcome(Deny), &[allow("a")]).decision, Deny);
    assert_eq!(
        compose(&outcome(Allow), &[allow("a"), allow("b")]),
        Final {
            decision: Allow,
            reasons: vec![]
        }
    );
    assert_eq!(
        compose(&outcome(Allow), &[v("a", AskUser, "A"), allow("b")]),
        Final {
            decision: AskUser,
            reasons: vec!["a: A".into()]
        }
    );
    assert_eq!(
        compose(&outcome(Allow), &[v("a", AskUser, "A"), v("b", Deny, "B")]),
        Final {
            decision: Deny,
            reasons: vec!["Tool execution denied by safety checker \"b\": B".into()]
        }
    );
    assert_eq!(
        compose(&outcome(Allow), &[v("b", Deny, "B"), v("c", AskUser, "C")]),
        Final {
            decision: Deny,
            reasons: vec!["Tool execution denied by safety checker \"b\": B".into()]
        }
    );
    assert_eq!(compose(&outcome(AskUser), &[allow("a")]).decision, AskUser);
    let timeout = CheckerVerdict {
        checker: "t".into(),
        decision: Deny,
        reason: Some("Safety checker \"t\" timed out after 50ms".into()),
        failure: Some("timeout"),
    };
    assert_eq!(compose(&outcome(Allow), &[timeout]).decision, Deny);
    // none matched, interactive → ask_user; YOLO → allow, but a checker deny still denies.
    assert_eq!(
        compose(&outcome(Allow), &[v("b", Deny, "B")]).decision,
        Deny
    );
}

#[test]
fn n35_non_interactive_ask_is_deny() {
    let f = non_interactive(Final {
        decision: Decision::AskUser,
        reasons: vec!["a: confirm".into()],
    });
    assert_eq!(f.decision, Decision::Deny);
    assert_eq!(
        f.reasons,
        vec!["a: confirm (user confirmation is unavailable in non-interactive mode)".to_string()]
    );
}

#[test]
fn unconditional_deny_hides_the_tool() {
    let mut conditional = rule(&["shell"], Decision::Allow, 4500);
    conditional.matcher.command_prefixes = vec!["ls".into()];
    let p = Policy::new(
        vec![
            rule(&["delete_*"], Decision::Deny, 4000),
            conditional,
            rule(&["shell"], Decision::Deny, 4000),
        ],
        vec![],
    );
    assert!(p.hides_tool("delete_file", Mode::Default));
    assert!(!p.hides_tool("read_file", Mode::Default));
    assert!(
        !p.hides_tool("shell", Mode::Default),
        "`ls` may still be allowed"
    );
}

#[test]
fn a_deny_rule_needs_only_one_sub_command() {
    let m = Matcher {
        command_prefixes: vec!["rm".into()],
        every_command: false,
        ..Matcher::default()
    };
    for cmd in ["ls && rm -rf /", "ls $(rm -rf /)", "rm x"] {
        let args = json!({"command": cmd});
        assert!(
            m.matches(&facts("shell", &args, Mode::Default, true), true),
            "{cmd}"
        );
    }
    let args = json!({"command": "ls -la"});
    assert!(!m.matches(&facts("shell", &args, Mode::Default, true), true));
}

#[test]
fn quoting_and_comment_tricks_do_not_hide_commands() {
    let allow = Matcher {
        command_prefixes: vec!["cat".into(), "ls".into()],
        every_command: true,
        ..Matcher::default()
    };
    let deny = Matcher {
        command_prefixes: vec!["rm".into(), "touch".into()],
        every_command: false,
        ..Matcher::default()
    };
    for cmd in [
        "cat 'a\\' ; rm -rf ~/important ; cat '\\'",
        "ls #'\ntouch /tmp/PWNED\n#'",
        "ls # just a comment",
    ] {
        let args = json!({"command": cmd});
        let f = facts("shell", &args, Mode::Default, true);
        assert!(!allow.matches(&f, true), "allowed: {cmd:?}");
        if cmd.contains("rm") || cmd.contains("touch") {
            assert!(deny.matches(&f, true), "a deny rule missed: {cmd:?}");
        }
    }
    assert_eq!(split_commands("cat 'a\\' ; rm x"), ["cat 'a\\'", "rm x"]);
    assert_eq!(split_commands("ls #c\ntouch y"), ["ls", "touch y"]);
}

#[test]
fn wrappers_and_function_definitions_do_not_hide_commands() {
    let allow = Matcher {
        command_prefixes: vec!["ls".into(), "cat".into()],
        every_command: true,
        ..Matcher::default()
    };
    let deny = Matcher {
        command_prefixes: vec!["rm".into()],
        every_command: false,
        ..Matcher::default()
    };
    for cmd in [
        "ls () (touch pwned) && ls",
        "ls $HOME",
        "ls { touch x; }",
        "ls ! x",
        "ls\\;rm x",
    ] {
        let args = json!({"command": cmd});
        assert!(
            !allow.matches(&facts("shell", &args, Mode::Default, true), true),
            "allowed: {cmd:?}"
        );
    }
    for cmd in [
        "(rm -rf x)",
        "{ rm -rf x; }",
        "FOO=1 rm -rf x",
        "\\rm -rf x",
        "! rm -rf x",
        "ls () (rm -rf x) && ls",
        "A=1 B=2 rm x",
    ] {
        let args = json!({"command": cmd});
        assert!(
            deny.matches(&facts("shell", &args, Mode::Default, true), true),
            "a deny rule missed: {cmd:?}"
        );
    }
    let args = json!({"command": "ls -la"});
    assert!(allow.matches(&facts("shell", &args, Mode::Default, true), true));
}
