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
        origin: RuleOrigin::User,
    }
}

fn facts<'a>(tool: &'a str, args: &'a Value, mode: Mode, interactive: bool) -> CallFacts<'a> {
    CallFacts {
        tool,
        args,
        mode,
        interactive,
        annotations: None,
        effect: crate::classify::Effect::SideEffecting,
        args_text: Default::default(),
        parameters: None,
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

/// N41 as first written: a copy with every object's keys sorted, printed compact.
fn stable_stringify_by_copy(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z\\\"\n\u{0}\u{7f}\u{e9}\u{2028}😀]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec(("[a-zA-Z\u{e9}_ ]{0,4}", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    /// Written straight from the value, N41's text is byte for byte the sorted copy's.
    #[test]
    fn stable_stringify_is_the_sorted_copy_printed(v in any_json()) {
        proptest::prop_assert_eq!(stable_stringify(&v), stable_stringify_by_copy(&v));
    }
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

/// `rule` with the origin of a file of another tier.
fn from(origin: RuleOrigin, mut rule: Rule) -> Rule {
    rule.origin = origin;
    rule.source = format!("{origin:?}:{}", rule.priority);
    rule
}

/// The built-in default's shape: every tool allowed, a shell command asked about.
fn default_rules() -> Vec<Rule> {
    let mut shell_ask = rule(&[], Decision::AskUser, 1010);
    shell_ask.matcher.args_pattern = Regex::new("\"command\":").ok();
    vec![
        from(RuleOrigin::Default, rule(&["*"], Decision::Allow, 1000)),
        from(RuleOrigin::Default, shell_ask),
        from(RuleOrigin::Default, rule(&["deploy"], Decision::Deny, 1010)),
    ]
}

#[test]
fn n46_a_workspace_allow_is_capped_by_a_stricter_rule_of_another_tier() {
    let mut rules = default_rules();
    rules.push(from(
        RuleOrigin::Workspace,
        rule(&["shell"], Decision::Allow, 3999),
    ));
    let mut by_args = rule(&[], Decision::Allow, 3998);
    by_args.matcher.args_pattern = Regex::new("command").ok();
    rules.push(from(RuleOrigin::Workspace, by_args));
    rules.push(from(
        RuleOrigin::Workspace,
        rule(&["deploy", "fmt"], Decision::Allow, 3500),
    ));
    let p = Policy::new(rules, vec![]);
    let touch = json!({"command": "touch pwned"});
    for interactive in [true, false] {
        let out = p.rule_decision(&facts("shell", &touch, Mode::Default, interactive));
        assert_eq!(out.decision, Decision::AskUser, "the default's ask holds");
        assert_eq!(out.rule.as_deref(), Some("Default:1010"));
        assert_eq!(
            out.reason.as_deref(),
            Some(
                "policy: the rule at Default:1010 asks before shell runs (the workspace rule \
                 at Workspace:3999 that allows it is capped: a workspace file can only tighten)"
            )
        );
    }
    // `argsPattern = "command"` is capped alike, for any tool with a command.
    let out = p.rule_decision(&facts("bash", &touch, Mode::Default, false));
    assert_eq!(out.decision, Decision::AskUser);
    assert_eq!(out.rule.as_deref(), Some("Default:1010"));
    // A default deny holds too.
    let none = json!({});
    let out = p.rule_decision(&facts("deploy", &none, Mode::Default, true));
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(out.rule.as_deref(), Some("Default:1010"));
    // Where nothing stricter matches, the workspace allow applies.
    let out = p.rule_decision(&facts("fmt", &none, Mode::Default, false));
    assert_eq!(out.decision, Decision::Allow);
    assert_eq!(out.rule.as_deref(), Some("Workspace:3500"));
}

#[test]
fn n46_a_workspace_allow_outranks_its_own_tiers_asks_but_not_a_users() {
    let base = || {
        let mut rules = default_rules();
        // What a workspace allow may let through: what the built-in policy allows anyway.
        rules.push(from(
            RuleOrigin::Default,
            rule(&["lint"], Decision::Allow, 1000),
        ));
        rules.push(from(
            RuleOrigin::Workspace,
            rule(&["lint"], Decision::Allow, 3900),
        ));
        rules.push(from(
            RuleOrigin::Workspace,
            rule(&["lint"], Decision::AskUser, 3100),
        ));
        rules
    };
    let none = json!({});
    let p = Policy::new(base(), vec![]);
    let out = p.rule_decision(&facts("lint", &none, Mode::Default, false));
    assert_eq!(
        out.decision,
        Decision::Allow,
        "its own tier's ask does not cap"
    );
    // Where no rule of the built-in policy allows the tool, its answer is its fallback (ask;
    // deny without a person), and a workspace allow does not loosen that (interfaces.md §2).
    let lone = Policy::new(
        vec![from(
            RuleOrigin::Workspace,
            rule(&["mcp__fs__write_file"], Decision::Allow, 3999),
        )],
        vec![],
    );
    for (interactive, expected) in [(true, Decision::AskUser), (false, Decision::Deny)] {
        let out = lone.rule_decision(&facts(
            "mcp__fs__write_file",
            &none,
            Mode::Default,
            interactive,
        ));
        assert_eq!(out.decision, expected);
    }
    let mut rules = base();
    rules.push(from(
        RuleOrigin::User,
        rule(&["lint"], Decision::AskUser, 4000),
    ));
    rules.push(from(RuleOrigin::Admin, rule(&["gc"], Decision::Deny, 5000)));
    rules.push(from(
        RuleOrigin::Workspace,
        rule(&["gc"], Decision::Allow, 3999),
    ));
    let p = Policy::new(rules, vec![]);
    let out = p.rule_decision(&facts("lint", &none, Mode::Default, true));
    assert_eq!(out.decision, Decision::AskUser);
    assert_eq!(out.rule.as_deref(), Some("User:4000"));
    let out = p.rule_decision(&facts("gc", &none, Mode::Default, true));
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(out.rule.as_deref(), Some("Admin:5000"));
    // A stricter rule that does not match this call (another mode) caps nothing.
    let mut plan_only = from(RuleOrigin::Default, rule(&["fmt"], Decision::Deny, 1050));
    plan_only.matcher.modes = Some(vec![Mode::Plan]);
    let p = Policy::new(
        vec![
            plan_only,
            from(RuleOrigin::Default, rule(&["fmt"], Decision::Allow, 1000)),
            from(RuleOrigin::Workspace, rule(&["fmt"], Decision::Allow, 3000)),
        ],
        vec![],
    );
    assert_eq!(
        p.rule_decision(&facts("fmt", &none, Mode::Default, false))
            .decision,
        Decision::Allow
    );
    assert_eq!(
        p.rule_decision(&facts("fmt", &none, Mode::Plan, false))
            .decision,
        Decision::Deny
    );
}

#[test]
fn n46_allows_of_the_user_and_of_an_answer_are_not_capped() {
    let touch = json!({"command": "touch pwned"});
    let mut rules = default_rules();
    rules.push(from(
        RuleOrigin::User,
        rule(&["shell"], Decision::Allow, 4100),
    ));
    let p = Policy::new(rules, vec![]);
    let out = p.rule_decision(&facts("shell", &touch, Mode::Default, false));
    assert_eq!(out.decision, Decision::Allow);
    assert_eq!(out.rule.as_deref(), Some("User:4100"));

    // "Allow for this run" sorts at 3950, among the workspace tier's numbers, and is the user's
    // answer: not capped.
    let answered = Policy::new(default_rules(), vec![])
        .with_rules(Policy::allow_for_run_rule("shell").into_iter().collect());
    let rule = &answered.rules()[0];
    assert_eq!(rule.priority, ALLOW_FOR_RUN_PRIORITY);
    assert_eq!(rule.origin, RuleOrigin::Answer);
    assert!(!rule.is_capped());
    let out = answered.rule_decision(&facts("shell", &touch, Mode::Default, false));
    assert_eq!(out.decision, Decision::Allow);
    assert_eq!(out.rule.as_deref(), Some("allowed for this run: shell"));
}

/// "Deny for this run" (an editor's reject_always) sorts above every tier: even an admin's
/// allow does not let the refused tool run again, the tool is no longer offered, and the
/// reason says the person refused it. Other tools are untouched.
#[test]
fn a_deny_for_the_run_outranks_every_allow_and_hides_the_tool() {
    let touch = json!({"command": "touch x"});
    let mut rules = default_rules();
    rules.push(from(
        RuleOrigin::Admin,
        rule(&["shell"], Decision::Allow, 5999),
    ));
    let before = Policy::new(rules, vec![]);
    assert_eq!(
        before
            .rule_decision(&facts("shell", &touch, Mode::Yolo, false))
            .decision,
        Decision::Allow
    );
    assert!(!before.hides_tool("shell", Mode::Default));
    let denied = before.with_rules(Policy::deny_for_run_rule("shell").into_iter().collect());
    assert_eq!(denied.rules()[0].priority, DENY_FOR_RUN_PRIORITY);
    assert_eq!(denied.rules()[0].origin, RuleOrigin::Answer);
    for mode in [Mode::Default, Mode::Plan, Mode::Yolo] {
        let out = denied.rule_decision(&facts("shell", &touch, mode, true));
        assert_eq!(out.decision, Decision::Deny, "{mode:?}");
        assert_eq!(out.rule.as_deref(), Some("denied for this run: shell"));
        assert!(
            out.reason
                .as_deref()
                .is_some_and(|r| r.contains("You refused every shell call")),
            "{out:?}"
        );
    }
    assert!(denied.hides_tool("shell", Mode::Default));
    // A name that only contains the refused one is another tool.
    assert!(!denied.hides_tool("shell_safe", Mode::Default));
}

#[test]
fn n46_a_capped_allow_does_not_keep_a_denied_tool_offered() {
    let none = json!({});
    let p = Policy::new(
        vec![
            from(RuleOrigin::Default, rule(&["deploy"], Decision::Deny, 1010)),
            from(
                RuleOrigin::Workspace,
                rule(&["deploy"], Decision::Allow, 3999),
            ),
            from(
                RuleOrigin::Workspace,
                rule(&["ship"], Decision::Allow, 3999),
            ),
            from(RuleOrigin::Workspace, rule(&["ship"], Decision::Deny, 3000)),
            from(RuleOrigin::Default, rule(&["ship"], Decision::Allow, 1000)),
        ],
        vec![],
    );
    assert!(p.hides_tool("deploy", Mode::Default));
    assert_eq!(
        p.rule_decision(&facts("deploy", &none, Mode::Default, true))
            .decision,
        Decision::Deny
    );
    // Its own tier's deny does not cap it: `ship` is allowed, so it stays offered.
    assert!(!p.hides_tool("ship", Mode::Default));
    assert_eq!(
        p.rule_decision(&facts("ship", &none, Mode::Default, true))
            .decision,
        Decision::Allow
    );
}

/// `shellCommand`: a `command` argument is a shell's only where it is free text. An `enum` or
/// a `const` of commands (a smart home's `control_device`) is none; a string with no schema,
/// or a schema that lists nothing, is.
#[test]
fn a_command_from_a_list_is_no_shell() {
    let shell = Matcher {
        shell_command: Some(true),
        ..Matcher::default()
    };
    let args = json!({"device_id": "light.porch", "command": "turn_off"});
    let listed = json!({"type": "object", "properties": {
        "command": {"type": "string", "enum": ["turn_on", "turn_off"]}
    }});
    let free = json!({"type": "object", "properties": {"command": {"type": "string"}}});
    let mut call = facts("control_device", &args, Mode::Default, true);
    assert!(shell.matches(&call, true), "no schema: free text");
    call.parameters = Some(&listed);
    assert!(!shell.matches(&call, true), "an enum of commands");
    call.parameters = Some(&free);
    assert!(
        shell.matches(&call, true),
        "a string the schema lists nothing for"
    );
    // A command the list does not hold is free text, whatever the schema says.
    let unlisted = json!({"device_id": "light.porch", "command": "rm -rf ~"});
    let mut call = facts("control_device", &unlisted, Mode::Default, true);
    call.parameters = Some(&listed);
    assert!(shell.matches(&call, true), "a command outside the list");
    let none = json!({"device_id": "light.porch"});
    let call = facts("control_device", &none, Mode::Default, true);
    assert!(!shell.matches(&call, true), "no command at all");
}

#[test]
fn a_tool_glob_matches_as_its_regex_form_does() {
    // The regex every glob once was: `*` as `.*`, the rest literal, anchored.
    let regex_form = |glob: &str| {
        let body: Vec<String> = glob.split('*').map(regex::escape).collect();
        regex::Regex::new(&format!("^{}$", body.join(".*"))).unwrap_or_else(|e| panic!("{e}"))
    };
    let globs = [
        "*",
        "write_file",
        "write_*",
        "*_file",
        "*file*",
        "a*b",
        "**",
        "read.file",
        "w*e_*",
    ];
    let names = [
        "",
        "write_file",
        "write_",
        "write_file\n",
        "write\n_file",
        "read_file",
        "readXfile",
        "read.file",
        "ab",
        "a\nb",
        "axb",
        "file",
        "_file",
        "x\n_file",
        "wee_x",
    ];
    for glob in globs {
        let fast = tool_glob(glob).unwrap_or_else(|e| panic!("{e}"));
        let slow = regex_form(glob);
        for name in names {
            assert_eq!(
                fast.is_match(name),
                slow.is_match(name),
                "{glob:?} on {name:?}"
            );
        }
    }
    assert!(matches!(tool_glob("write_*"), Ok(ToolGlob::Prefix(_))));
    assert!(matches!(tool_glob("*"), Ok(ToolGlob::Any)));
}

#[test]
fn a_gemini_mcp_name_is_read_every_way_its_underscores_allow() {
    let readings = tool_glob_readings("mcp_my_srv_*").unwrap_or_else(|e| panic!("{e}"));
    let matches = |name: &str| readings.iter().any(|g| g.is_match(name));
    assert!(matches("mcp__my_srv__get_weather"));
    assert!(matches("mcp__my__srv_get_weather"));
    assert!(!matches("mcp__other__get_weather"));
    // The one reading `tool_glob` (an allow's) takes: the server's name ends at the first `_`.
    let one = tool_glob("mcp_my_srv_*").unwrap_or_else(|e| panic!("{e}"));
    assert!(one.is_match("mcp__my__srv_get_weather") && !one.is_match("mcp__my_srv__get_weather"));
    // Names that are not Gemini's MCP spelling have one reading.
    for plain in ["write_*", "mcp__fs__*", "mcp_", "mcpx_a_b"] {
        let r = tool_glob_readings(plain).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.len(), 1, "{plain}");
    }
}
