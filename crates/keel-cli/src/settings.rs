//! `keel config`: the files keel found, the settings in effect once they are stacked
//! (docs/configuration.md), and whether the policy they make loads — a policy that fails to
//! load denies every call, which a person should learn here rather than from the first denial.

use keel_app::config::Config;

/// Where a setting comes from when no file sets it.
const BUILT_IN: &str = "(built-in default)";

/// One setting in effect: its key, its value as shown, and whether it is keel's built-in
/// default (no file sets it).
struct Setting {
    key: &'static str,
    value: String,
    built_in: bool,
}

/// The settings in effect, in the order `keel config` shows them.
fn settings(config: &Config) -> Vec<Setting> {
    let mut rows = Vec::new();
    let mut row = |key: &'static str, value: String, built_in: bool| {
        rows.push(Setting {
            key,
            value,
            built_in,
        });
    };
    let or_default = |v: Option<&str>, default: &str| match v {
        Some(v) => (v.to_string(), false),
        None => (default.to_string(), true),
    };
    let (v, d) = or_default(config.mode.as_deref(), "default");
    row("mode", v, d);
    let (v, d) = or_default(
        config.approval.as_deref(),
        "ask on a terminal, deny otherwise",
    );
    row("approval", v, d);
    let (v, d) = or_default(config.model.name.as_deref(), "local (the embedded model)");
    row("model", v, d);
    if let Some(url) = &config.model.base_url {
        row("model.base_url", url.clone(), false);
    }
    if let Some(env) = &config.model.api_key_env {
        row("model.api_key_env", env.clone(), false);
    }
    let presets: Vec<&str> = config.presets.keys().map(String::as_str).collect();
    if presets.is_empty() {
        row("presets", "none; runs use `default`".into(), true);
    } else {
        row("presets", presets.join(", "), false);
    }
    let servers: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
    row(
        "mcp_servers",
        if servers.is_empty() {
            "none".to_string()
        } else {
            servers.join(", ")
        },
        false,
    );
    match &config.computer_use {
        Some(c) if c.enabled == Some(true) => row(
            "computer_use",
            format!(
                "on, model {}",
                c.model.as_deref().unwrap_or("(none set: open fails)")
            ),
            false,
        ),
        Some(_) => row(
            "computer_use",
            "off ([computer_use] enabled is not true)".into(),
            false,
        ),
        None => row("computer_use", "off".into(), true),
    }
    row(
        "notes.max_untagged",
        config.max_untagged_notes().to_string(),
        false,
    );
    row(
        "store.busy_timeout_ms",
        config.store_options().busy_timeout.as_millis().to_string(),
        false,
    );
    rows
}

/// The whole `keel config` output, and whether the policy loads.
pub fn render(config: &Config) -> (String, bool) {
    let mut out = String::new();
    if config.files.is_empty() {
        out.push_str("No configuration files found; keel runs on its built-in defaults.\n");
    } else {
        out.push_str("Files, in the order they stack (a later file wins for a setting):\n");
        for (tier, path) in &config.files {
            out.push_str(&format!("  {:<9}  {}\n", tier.name(), path.display()));
        }
    }
    out.push_str("\nIn effect:\n");
    for s in settings(config) {
        let mark = if s.built_in {
            format!(" {BUILT_IN}")
        } else {
            String::new()
        };
        out.push_str(&format!("  {:<22} {}{mark}\n", s.key, s.value));
    }
    out.push_str("\nPolicy:\n");
    let compiled = keel_app::policy::compile(config);
    match &compiled {
        Ok(compiled) => out.push_str(&format!(
            "  loads: {} rules and {} checker rules in force (keel policy show lists them)\n",
            compiled.policy.rules().len(),
            compiled.policy.checker_rules().len()
        )),
        Err(e) => out.push_str(&format!(
            "  FAILS TO LOAD, so every call is denied: {e}\n  Fix the file it names (docs/safety.md \
             has the rule schema); keel check and keel policy show say the same.\n"
        )),
    }
    // Warnings (unknown keys) were said on stderr as the files loaded.
    (out, compiled.is_ok())
}

/// `keel config --json`: `{"files": [{"tier", "path"}], "settings": {KEY: {"value",
/// "built_in"}}, "policy": {"loads", "rules", "checker_rules"} | {"loads": false, "error"}}`,
/// and whether the policy loads.
pub fn render_json(config: &Config) -> (String, bool) {
    let files: Vec<serde_json::Value> = config
        .files
        .iter()
        .map(|(tier, path)| serde_json::json!({"tier": tier.name(), "path": path.display().to_string()}))
        .collect();
    let settings: serde_json::Map<String, serde_json::Value> = settings(config)
        .into_iter()
        .map(|s| {
            (
                s.key.to_string(),
                serde_json::json!({"value": s.value, "built_in": s.built_in}),
            )
        })
        .collect();
    let compiled = keel_app::policy::compile(config);
    let policy = match &compiled {
        Ok(c) => serde_json::json!({"loads": true, "rules": c.policy.rules().len(),
                                    "checker_rules": c.policy.checker_rules().len()}),
        Err(e) => serde_json::json!({"loads": false, "error": e.to_string()}),
    };
    let out = serde_json::json!({"files": files, "settings": settings, "policy": policy});
    (format!("{out}\n"), compiled.is_ok())
}

/// `keel policy show --json`: `{"loads", "error", "rules": [{"priority", "tier", "origin",
/// "decision", "source", "capped", "modes", "deny_message"}], "checkers": [{"priority",
/// "tier", "checker", "kind", "source"}]}`, highest priority first (as the text lists them),
/// and whether the policy loads. `tier` is the tier's name (safety.md N11: the priority's
/// thousands), `origin` where a rule came from (`answer`: "allow for this run").
pub fn policy_json(compiled: &keel_app::policy::CompiledPolicy) -> (String, bool) {
    use keel_policy::rules::{CheckerRef, Mode, RuleOrigin};
    let tier = |priority: i64| match priority.div_euclid(1000) {
        1 => "default",
        2 => "extension",
        3 => "workspace",
        4 => "user",
        5 => "admin",
        _ => "other",
    };
    let rules: Vec<serde_json::Value> = compiled
        .policy
        .rules()
        .iter()
        .map(|r| {
            let modes = r.matcher.modes.as_ref().map(|modes| {
                modes
                    .iter()
                    .map(|m| match m {
                        Mode::Default => "default",
                        Mode::Plan => "plan",
                        Mode::Yolo => "yolo",
                    })
                    .collect::<Vec<_>>()
            });
            serde_json::json!({
                "priority": r.priority,
                "tier": tier(r.priority),
                "origin": match r.origin {
                    RuleOrigin::Default => "default",
                    RuleOrigin::Workspace => "workspace",
                    RuleOrigin::User => "user",
                    RuleOrigin::Admin => "admin",
                    RuleOrigin::Answer => "answer",
                },
                "decision": r.decision.as_str(),
                "source": r.source,
                "capped": r.is_capped(),
                "modes": modes,
                "deny_message": r.deny_message,
            })
        })
        .collect();
    let checkers: Vec<serde_json::Value> = compiled
        .policy
        .checker_rules()
        .iter()
        .map(|c| {
            serde_json::json!({
                "priority": c.priority,
                "tier": tier(c.priority),
                "checker": c.checker.name(),
                "kind": match c.checker {
                    CheckerRef::InProcess(_) => "in-process",
                    CheckerRef::External(_) => "external",
                },
                "source": c.source,
            })
        })
        .collect();
    let error = compiled.policy.load_error();
    let out = serde_json::json!({
        "loads": error.is_none(),
        "error": error,
        "rules": rules,
        "checkers": checkers,
    });
    (format!("{out}\n"), error.is_none())
}

/// What `keel config init` writes: every setting, commented out, so the file changes nothing
/// until you uncomment a line (docs/configuration.md says what each one does).
pub const USER_CONFIG_TEMPLATE: &str = r#"# keel's user configuration (tier 4: yours; a repository's keel.toml cannot loosen it).
# Every line is commented out: uncomment what you want. `keel config` shows what is in effect.
# Reference: docs/configuration.md; rules and checkers: docs/safety.md.

# mode = "default"            # default | plan (read-only) | yolo (no built-in asks; checkers still run)
# approval = "ask"            # ask: you answer keel's questions; deny: every question is a no

# [model]
# name = "local"              # local | local:PATH.gguf | openai:MODEL | script:FILE
# base_url = "http://127.0.0.1:11434/v1"   # an OpenAI-compatible server (Ollama, llama.cpp, vLLM)
# api_key_env = "OPENAI_API_KEY"           # where the key is; a loopback server needs none

# [presets.review]            # `keel run --preset review …`
# system_prompt = "Review the change; do not edit files."
# tools = ["read_file", "list_dir"]
# mode = "plan"

# [compaction]                # when long runs are summarized (docs/handoff.md)
# context_window = 8192
# threshold_percent = 80

# [mcp_servers.files]         # an MCP server whose tools keel offers, behind the same gate
# command = "mcp-server-filesystem"
# args = ["."]

# A rule of your own: let a command you trust run without asking.
# [[rule]]
# toolName = "shell"
# commandPrefix = ["cargo test"]
# decision = "allow"
# priority = 500
"#;

/// `keel config init`: writes [`USER_CONFIG_TEMPLATE`] to `path`, unless a file is there and
/// `force` is not given. Returns what to tell the person.
pub fn init(path: &std::path::Path, force: bool) -> anyhow::Result<String> {
    use anyhow::Context;
    if path.exists() && !force {
        anyhow::bail!(
            "{} already exists; keel leaves it as it is (`keel config init --force` replaces it \
             with the commented template)",
            path.display()
        );
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, USER_CONFIG_TEMPLATE)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(format!(
        "wrote {}: every setting in it is commented out; uncomment what you want, then `keel \
         config` shows what is in effect\n",
        path.display()
    ))
}
