//! Policy TOML and its rules: a configuration file's text as keel-app's loader reads it
//! (`config::load_text`, after the built-in default policy) and the policy compiler turns it
//! into rules, regexes included (`policy::compile`). The first byte picks the file's tier
//! (`u` user, `a` admin, anything else workspace); the rest is the file.
//!
//! Beyond never panicking: a file that fails to load changes nothing in the configuration;
//! a workspace file that loads starts no program and does not loosen the approval mode; and
//! whatever it holds, a workspace file never makes a call allowed that the built-in policy
//! alone does not allow (safety.md N46), for a set of probe calls and calls made from its own
//! rules' tool names and command prefixes.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use keel_app::config::{self, BUILTIN_NAME, BUILTIN_POLICY, Config, Tier};
use keel_app::policy::{compile, render};
use keel_policy::Decision;
use keel_policy::rules::{CallFacts, Mode, Policy};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// The built-in tier alone, loaded once.
fn builtin() -> &'static Config {
    static BUILTIN: OnceLock<Config> = OnceLock::new();
    BUILTIN.get_or_init(load_builtin)
}

fn load_builtin() -> Config {
    let mut config = Config::default();
    let loaded = config::load_text(
        &mut config,
        Tier::Default,
        Path::new(BUILTIN_NAME),
        BUILTIN_POLICY,
    );
    assert!(loaded.is_ok(), "the built-in policy loads: {loaded:?}");
    config
}

fn probes(config: &Config) -> Vec<(String, Value)> {
    let mut calls: Vec<(String, Value)> = [
        ("shell", json!({"command": "touch pwned"})),
        ("shell", json!({"command": "ls"})),
        ("shell", json!({"command": "cat .env"})),
        ("run_shell_command", json!({"command": "rm -rf /"})),
        ("read_file", json!({"path": ".env"})),
        ("write_file", json!({"path": "a.txt", "content": "x"})),
        ("spawn_task", json!({"task": "x"})),
        ("mcp__fs__write_file", json!({"path": "x"})),
    ]
    .into_iter()
    .map(|(t, a)| (t.to_string(), a))
    .collect();
    // Calls made of what the file's own rules name: what an attacker's rule is aimed at.
    for rule in config.rules.iter().filter(|r| r.tier == Tier::Workspace) {
        let names: Vec<String> = match rule.table.get("toolName") {
            Some(toml::Value::String(s)) => vec![s.clone()],
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            _ => vec!["shell".to_string()],
        };
        let prefix = match rule.table.get("commandPrefix") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(toml::Value::Array(a)) => a
                .first()
                .and_then(|v| v.as_str())
                .unwrap_or("touch")
                .to_string(),
            _ => "touch".to_string(),
        };
        for name in names.iter().take(4) {
            let tool = name.replace('*', "x");
            let tool = match (rule.table.get("mcpName").and_then(|v| v.as_str()), tool) {
                (Some(server), tool) => format!("mcp__{server}__{tool}"),
                (None, tool) => tool,
            };
            calls.push((tool.clone(), json!({"command": format!("{prefix} pwned")})));
            calls.push((tool, json!({"path": "x"})));
        }
    }
    calls
}

fn decision(policy: &Policy, tool: &str, args: &Value, mode: Mode, interactive: bool) -> Decision {
    policy
        .rule_decision(&CallFacts {
            tool,
            args,
            mode,
            interactive,
            annotations: None,
            effect: keel_policy::classify::Effect::SideEffecting,
            args_text: Default::default(),
            parameters: None,
        })
        .decision
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tier = match first {
        b'u' => Tier::User,
        b'a' => Tier::Admin,
        _ => Tier::Workspace,
    };
    let base = builtin();
    let mut config = base.clone();
    if let Err(e) = config::load_text(&mut config, tier, Path::new("keel.toml"), text) {
        assert_eq!(
            format!("{config:?}"),
            format!("{base:?}"),
            "a file that fails to load ({e}) changed the configuration"
        );
        return;
    }
    if tier == Tier::Workspace {
        assert!(config.checkers.is_empty() && config.mcp_servers.is_empty());
        assert!(config.computer_use.is_none() && config.approval.is_none());
        assert_ne!(config.mode.as_deref(), Some("yolo"));
    }
    let Ok(compiled) = compile(&config) else {
        return;
    };
    let _ = render(&compiled);
    if tier != Tier::Workspace {
        return;
    }
    static ALONE: OnceLock<Policy> = OnceLock::new();
    let alone = ALONE.get_or_init(|| match compile(base) {
        Ok(c) => c.policy,
        Err(e) => panic!("the built-in policy compiles: {e}"),
    });
    for (tool, args) in probes(&config) {
        for mode in [Mode::Default, Mode::Plan, Mode::Yolo] {
            for interactive in [true, false] {
                let with_file = decision(&compiled.policy, &tool, &args, mode, interactive);
                let without = decision(alone, &tool, &args, mode, interactive);
                assert!(
                    with_file != Decision::Allow || without == Decision::Allow,
                    "the workspace file allows {tool} {args} ({mode:?}, interactive \
                     {interactive}), which the built-in policy alone decides {without:?}"
                );
            }
        }
    }
});
