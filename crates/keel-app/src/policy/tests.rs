use std::path::{Path, PathBuf};

use keel_policy::Decision;
use keel_policy::rules::{CallFacts, Mode, RuleOrigin};
use serde_json::json;

use super::*;
use crate::config::{Sources, load};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

fn compiled(workspace: Vec<PathBuf>, user: Option<PathBuf>) -> Result<CompiledPolicy, PolicyError> {
    let config = load(&Sources {
        workspace,
        user,
        admin_dir: None,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    compile(&config)
}

fn decide(p: &CompiledPolicy, tool: &str, args: serde_json::Value) -> Decision {
    p.policy
        .rule_decision(&CallFacts {
            tool,
            args: &args,
            mode: Mode::Default,
            interactive: true,
            annotations: None,
            effect: keel_policy::classify::Effect::SideEffecting,
            args_text: Default::default(),
            parameters: None,
        })
        .decision
}

#[test]
fn the_builtin_policy_compiles_and_reads_as_documented() -> Result<(), PolicyError> {
    let p = compiled(vec![], None)?;
    assert_eq!(
        decide(&p, "write_file", json!({"path": "a"})),
        Decision::Allow
    );
    assert_eq!(
        decide(&p, "shell", json!({"command": "ls -la && cat README.md"})),
        Decision::Allow
    );
    assert_eq!(
        decide(&p, "shell", json!({"command": "rm -rf build"})),
        Decision::AskUser
    );
    assert_eq!(
        decide(&p, "shell", json!({"command": "ls > out.txt"})),
        Decision::AskUser
    );
    assert_eq!(
        decide(
            &p,
            "run_shell_command",
            json!({"command": "cat a; curl evil"})
        ),
        Decision::AskUser
    );
    for risky in [
        "tree -o /tmp/x",
        "date -s 2020-01-01",
        "git status",
        "cat 'a\\' ; rm -rf ~ ; cat '\\'",
        "ls #'\ntouch x\n#'",
    ] {
        assert_eq!(
            decide(&p, "shell", json!({"command": risky})),
            Decision::AskUser,
            "{risky}"
        );
    }
    for shell in ["bash", "Bash", "exec_command"] {
        assert_eq!(
            decide(&p, shell, json!({"command": "rm -rf ~"})),
            Decision::AskUser,
            "{shell}"
        );
    }
    let names: Vec<&str> = p
        .policy
        .checker_rules()
        .iter()
        .map(|c| c.checker.name())
        .collect();
    assert_eq!(names, ["allowed-path", "guarded-paths", "provenance"]);
    Ok(())
}

#[test]
fn builtin_is_the_built_in_tier_compiled_alone() -> Result<(), PolicyError> {
    let p = builtin();
    assert_eq!(p.policy.load_error(), None);
    assert!(p.registry.is_empty());
    let loaded = compiled(vec![], None)?;
    let sources = |c: &CompiledPolicy| -> Vec<(String, i64)> {
        c.policy
            .rules()
            .iter()
            .map(|r| (r.source.clone(), r.priority))
            .chain(
                c.policy
                    .checker_rules()
                    .iter()
                    .map(|r| (r.source.clone(), r.priority)),
            )
            .collect()
    };
    assert_eq!(sources(&p), sources(&loaded));
    // Every table is tier 1, from the built-in file.
    assert!(
        sources(&p)
            .iter()
            .all(|(s, n)| s.starts_with(crate::config::BUILTIN_NAME) && (1000..2000).contains(n)),
        "{:?}",
        sources(&p)
    );
    assert_eq!(sources(&p).len(), 8);
    assert_eq!(
        decide(&p, "shell", json!({"command": "rm -rf build"})),
        Decision::AskUser
    );
    assert_eq!(decide(&p, "spawn_task", json!({})), Decision::AskUser);
    assert_eq!(
        decide(&p, "write_file", json!({"path": "a"})),
        Decision::Allow
    );
    Ok(())
}

#[test]
fn rules_from_two_tiers_stack_in_tier_order() -> Result<(), PolicyError> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = write(
        dir.path(),
        "keel.toml",
        "[[rule]]\ntoolName = \"deploy\"\ndecision = \"allow\"\npriority = 999\n",
    );
    let user = write(
        dir.path(),
        "user.toml",
        "[[rule]]\ntoolName = \"deploy\"\ndecision = \"deny\"\npriority = 1\ndenyMessage = \"Not from here.\"\n",
    );
    let p = compiled(vec![ws], Some(user))?;
    let priorities: Vec<i64> = p.policy.rules().iter().map(|r| r.priority).collect();
    assert_eq!(&priorities[..2], [4001, 3999]);
    let out = p.policy.rule_decision(&CallFacts {
        tool: "deploy",
        args: &json!({}),
        mode: Mode::Default,
        interactive: true,
        annotations: None,
        effect: keel_policy::classify::Effect::SideEffecting,
        args_text: Default::default(),
        parameters: None,
    });
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(
        out.reason.as_deref(),
        Some("Tool execution denied by policy. Not from here.")
    );
    Ok(())
}

fn error_of(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = write(dir.path(), "keel.toml", text);
    let e = compiled(vec![ws], None)
        .err()
        .unwrap_or_else(|| panic!("expected an error for {text}"));
    assert!(e.path.ends_with("keel.toml"), "{e}");
    format!("line {}: {}", e.line, e.message)
}

#[test]
fn load_errors_name_the_line() {
    let unregistered = "mode = \"default\"\n\n[[safety_checker]]\ntoolName = \"*\"\n[safety_checker.checker]\ntype = \"external\"\nname = \"secret-scan\"\n";
    assert_eq!(
        error_of(unregistered),
        "line 3: Unknown external checker \"secret-scan\""
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\nfrobnicate = 1\n")
            .contains("line 1: unknown key `frobnicate`")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\nsubagent = \"a\"\n")
            .contains("unsupported")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\nargsPattern = \"(\"\n")
            .contains("invalid regex in `argsPattern`")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"\"\ndecision = \"allow\"\n")
            .contains("`toolName` must not be empty")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"maybe\"\n").contains("unknown decision")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\npriority = 1000\n")
            .contains("from 0 to 999")
    );
    assert!(
        error_of("[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\npriority = 1.5\n")
            .contains("integer")
    );
    assert!(error_of("[[safety_checker]]\ntoolName = \"\"\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"allowed-path\"\n").contains("must not be empty"));
    for bad in ["My_Checker", "a/b", "a..b", ""] {
        let text = format!(
            "[[safety_checker]]\ntoolName = \"x\"\n[safety_checker.checker]\ntype = \"external\"\nname = \"{bad}\"\n"
        );
        assert!(error_of(&text).contains("invalid checker name"), "{bad}");
    }
    assert!(error_of("[[safety_checker]]\ntoolName = \"x\"\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"conseca\"\n").contains("unknown in-process checker"));
    assert!(error_of("[[safety_checker]]\ntoolName = \"x\"\nconfig = { on_tainted = \"DENY\" }\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"provenance\"\n").contains("`on_tainted`"));
    assert!(error_of("[[safety_checker]]\ntoolName = \"x\"\nconfig = { named_records = \"no\" }\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"provenance\"\n").contains("`named_records` of \"provenance\" must be true or false"));
    assert!(error_of("[[safety_checker]]\ntoolName = \"x\"\nconfig = { included_args = \"path\" }\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"allowed-path\"\n").contains("array of strings"));
    assert!(error_of("[[safety_checker]]\ntoolName = \"x\"\nconfig = { inclued_args = [] }\n[safety_checker.checker]\ntype = \"in-process\"\nname = \"allowed-path\"\n").contains("unknown key `inclued_args`"));
    let e = error_of("\n\n[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\nextra = 1\n");
    assert!(e.starts_with("line 3:"), "{e}");
}

#[test]
fn a_failed_policy_denies_every_call() {
    let e = PolicyError {
        path: "/w/keel.toml".into(),
        line: 3,
        message: "Unknown external checker \"x\"".into(),
        hint: None,
    };
    let p = e.as_policy();
    let out = p.rule_decision(&CallFacts {
        tool: "read_file",
        args: &json!({}),
        mode: Mode::Yolo,
        interactive: true,
        annotations: None,
        effect: keel_policy::classify::Effect::SideEffecting,
        args_text: Default::default(),
        parameters: None,
    });
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(
        out.reason.as_deref(),
        Some(
            "Policy file \"/w/keel.toml\" failed to load: Unknown external checker \"x\" at /w/keel.toml:3"
        )
    );
}

#[test]
fn registered_checkers_compile_with_their_settings() -> Result<(), PolicyError> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let user = write(
        dir.path(),
        "user.toml",
        "[checkers.secret-scan]\ncommand = [\"/usr/bin/scan\", \"--fast\"]\ntimeout_ms = 250\nkill_grace_ms = 100\nmode = \"persistent\"\nenv = { LEVEL = \"2\" }\n\n[[safety_checker]]\ntoolName = \"write_*\"\npriority = 5\nrequired_context = [\"environment\"]\nconfig = { strict = true }\n[safety_checker.checker]\ntype = \"external\"\nname = \"secret-scan\"\n",
    );
    let p = compiled(vec![], Some(user))?;
    let spec = p
        .registry
        .get("secret-scan")
        .cloned()
        .unwrap_or_else(|| panic!("registered"));
    assert_eq!(spec.command, ["/usr/bin/scan", "--fast"]);
    assert_eq!(spec.timeout, Duration::from_millis(250));
    assert_eq!(spec.kill_grace, Duration::from_millis(100));
    assert_eq!(spec.mode, CheckerMode::Persistent);
    assert_eq!(spec.env.get("LEVEL").map(String::as_str), Some("2"));
    let rule = p
        .policy
        .checker_rules()
        .iter()
        .find(|c| c.checker.name() == "secret-scan")
        .cloned()
        .unwrap_or_else(|| panic!("rule"));
    assert_eq!(rule.priority, 4005);
    assert_eq!(rule.config, Some(json!({"strict": true})));
    assert_eq!(rule.required_context, Some(vec!["environment".to_string()]));
    let bad = write(
        dir.path(),
        "bad.toml",
        "[checkers.x]\ncommand = \"sh -c evil\"\n",
    );
    let e = compiled(vec![], Some(bad))
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(e.contains("non-empty array"), "{e}");
    Ok(())
}

/// What a checker registered without `timeout_ms`, `kill_grace_ms` or `mode` gets: the
/// defaults safety.md fixes (N7: a 30 000 ms budget, SIGKILL 5 s after SIGTERM; N38: spawned
/// per call).
#[test]
fn a_checker_registered_without_settings_gets_the_specs_defaults() -> Result<(), PolicyError> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let user = write(
        dir.path(),
        "user.toml",
        "[checkers.plain]\ncommand = [\"/usr/bin/scan\"]\n",
    );
    let p = compiled(vec![], Some(user))?;
    let spec = p
        .registry
        .get("plain")
        .cloned()
        .unwrap_or_else(|| panic!("registered"));
    assert_eq!(spec.timeout, Duration::from_millis(30_000));
    assert_eq!(spec.kill_grace, Duration::from_secs(5));
    assert_eq!(spec.mode, CheckerMode::Spawn);
    Ok(())
}

#[test]
fn a_gemini_cli_policy_file_loads_unchanged() -> Result<(), PolicyError> {
    // Shaped like Gemini CLI's own examples: arrays of tool names, command prefixes, MCP
    // names, modes, priorities.
    let gemini = r#"
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git log"]
decision = "allow"
priority = 100

[[rule]]
toolName = ["read_file", "glob", "search_file_content"]
decision = "allow"
priority = 95

[[rule]]
mcpName = "github"
toolName = "mcp_github_*"
decision = "ask_user"
priority = 90
modes = ["default", "autoEdit"]

[[rule]]
toolName = "run_shell_command"
commandRegex = "rm -rf .*"
decision = "deny"
deny_message = "No."
priority = 200

[[rule]]
mcpName = "github"
toolName = "delete_repo"
decision = "deny"
priority = 300

[[rule]]
toolName = "run_shell_command"
commandRegex = "git (status|log)"
decision = "allow"
priority = 150

[[safety_checker]]
toolName = "write_file"
[safety_checker.checker]
type = "in-process"
name = "allowed-path"
required_context = ["environment"]
config = { included_args = ["target"] }
"#;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = write(dir.path(), "gemini.toml", gemini);
    // As the user's own file: at the workspace tier its shell allows would be capped by the
    // built-in shell ask (safety.md N46), checked below.
    let p = compiled(vec![], Some(file.clone()))?;
    assert_eq!(
        decide(&p, "run_shell_command", json!({"command": "git log -3"})),
        Decision::Allow
    );
    let as_workspace = compiled(vec![file], None)?;
    assert_eq!(
        decide(
            &as_workspace,
            "run_shell_command",
            json!({"command": "git log -3"})
        ),
        Decision::AskUser
    );
    assert_eq!(
        decide(&as_workspace, "glob", json!({"pattern": "*"})),
        Decision::Allow
    );
    assert_eq!(
        decide(&p, "run_shell_command", json!({"command": "rm -rf /"})),
        Decision::Deny
    );
    assert_eq!(
        decide(&p, "mcp__github__create_issue", json!({})),
        Decision::AskUser
    );
    assert_eq!(decide(&p, "glob", json!({"pattern": "*"})), Decision::Allow);
    assert_eq!(
        decide(&p, "mcp__github__delete_repo", json!({})),
        Decision::Deny,
        "bare toolName with mcpName"
    );
    // commandRegex is anchored at the start, as in Gemini CLI.
    assert_ne!(
        decide(
            &p,
            "run_shell_command",
            json!({"command": "rm -rf ~ #git status"})
        ),
        Decision::Allow
    );
    let checker = p
        .policy
        .checker_rules()
        .iter()
        .find(|c| c.source.contains("gemini.toml"))
        .cloned()
        .unwrap_or_else(|| panic!("checker"));
    assert_eq!(checker.config, Some(json!({"included_args": ["target"]})));
    assert_eq!(
        checker.required_context,
        Some(vec!["environment".to_string()])
    );
    Ok(())
}

/// safety.md N46, interfaces.md §2: the compiler records where each rule came from, so a
/// workspace file's `allow` is capped and the same rule in the user's file is not; `keel policy
/// show` marks the capped one with its file and line.
#[test]
fn a_workspace_files_allow_is_capped_and_shown_so() -> Result<(), PolicyError> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let allow_shell = "# a cloned repository's file\n[[rule]]\ntoolName = \"shell\"\ndecision = \"allow\"\npriority = 999\n";
    let ws = write(dir.path(), "keel.toml", allow_shell);
    let p = compiled(vec![ws.clone()], None)?;
    let touch = json!({"command": "touch pwned"});
    assert_eq!(decide(&p, "shell", touch.clone()), Decision::AskUser);
    let origins: Vec<(i64, RuleOrigin, bool)> = p
        .policy
        .rules()
        .iter()
        .map(|r| (r.priority, r.origin, r.is_capped()))
        .collect();
    assert_eq!(origins[0], (3999, RuleOrigin::Workspace, true));
    assert!(
        origins[1..]
            .iter()
            .all(|(_, o, capped)| *o == RuleOrigin::Default && !capped),
        "{origins:?}"
    );
    let shown = render(&p);
    let source = format!("{}:2", ws.display());
    assert!(
        shown.contains(&format!("  rule      3999  allow     {source}  (capped)\n")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "           capped: the allow at {source} is a workspace file's; it applies only \
             where no deny or ask_user rule of the default, user or admin tier matches the call \
             (a workspace file can only tighten)\n"
        )),
        "{shown}"
    );
    // A deny there is not capped, nor marked.
    let deny = write(
        dir.path(),
        "deny.toml",
        "[[rule]]\ntoolName = \"deploy\"\ndecision = \"deny\"\n",
    );
    let shown = render(&compiled(vec![deny], None)?);
    assert!(!shown.contains("capped"), "{shown}");

    // The same file as the user's own: not capped, and shown plainly.
    let user = write(dir.path(), "user.toml", allow_shell);
    let p = compiled(vec![], Some(user))?;
    assert_eq!(decide(&p, "shell", touch), Decision::Allow);
    assert_eq!(p.policy.rules()[0].origin, RuleOrigin::User);
    assert!(!render(&p).contains("capped"));
    Ok(())
}

fn decide_in(
    p: &CompiledPolicy,
    mode: Mode,
    tool: &str,
    args: serde_json::Value,
    effect: keel_policy::classify::Effect,
) -> Decision {
    p.policy
        .rule_decision(&CallFacts {
            tool,
            args: &args,
            mode,
            interactive: true,
            annotations: None,
            effect,
            args_text: Default::default(),
            parameters: None,
        })
        .decision
}

/// interfaces.md §3: the built-in policy's plan mode denies what keel reads as side-effecting,
/// whatever the tool is called, and leaves reading tools and read-only shell commands alone;
/// the other modes are untouched by it.
#[test]
fn plan_mode_denies_side_effecting_tools_by_their_effect_not_their_name() -> Result<(), PolicyError>
{
    use keel_policy::classify::Effect::{ReadOnly, SideEffecting};
    let p = compiled(vec![], None)?;
    let plan = |tool: &str, args, effect| decide_in(&p, Mode::Plan, tool, args, effect);
    assert_eq!(
        plan("mcp__x__publish", json!({}), SideEffecting),
        Decision::Deny
    );
    assert_eq!(plan("mcp__x__lookup", json!({}), ReadOnly), Decision::Allow);
    assert_eq!(
        plan("shell", json!({"command": "ls -la"}), SideEffecting),
        Decision::Allow
    );
    assert_eq!(
        plan("shell", json!({"command": "rm -rf build"}), SideEffecting),
        Decision::Deny
    );
    for mode in [Mode::Default, Mode::Yolo] {
        assert_eq!(
            decide_in(&p, mode, "mcp__x__publish", json!({}), SideEffecting),
            Decision::Allow,
            "{mode:?}"
        );
    }
    // A user's own allow still applies in plan mode; a workspace file's cannot loosen it.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rule = "[[rule]]\ntoolName = \"mcp__x__publish\"\ndecision = \"allow\"\npriority = 100\n";
    let user = write(dir.path(), "user.toml", rule);
    let ws = write(dir.path(), "keel.toml", rule);
    let with_user = compiled(vec![], Some(user))?;
    assert_eq!(
        decide_in(
            &with_user,
            Mode::Plan,
            "mcp__x__publish",
            json!({}),
            SideEffecting
        ),
        Decision::Allow
    );
    let with_ws = compiled(vec![ws], None)?;
    assert_eq!(
        decide_in(
            &with_ws,
            Mode::Plan,
            "mcp__x__publish",
            json!({}),
            SideEffecting
        ),
        Decision::Deny
    );
    Ok(())
}

#[test]
fn side_effects_must_be_a_boolean() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = write(
        dir.path(),
        "keel.toml",
        "[[rule]]\nsideEffects = \"yes\"\ndecision = \"deny\"\n",
    );
    match compiled(vec![ws], None) {
        Err(e) => assert!(
            e.to_string()
                .contains("`sideEffects` must be true or false"),
            "{e}"
        ),
        Ok(_) => panic!("a string sideEffects loaded"),
    }
}
