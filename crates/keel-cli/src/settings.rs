//! `keel config`: the files keel found, the settings in effect once they are stacked
//! (docs/configuration.md), and whether the policy they make loads — a policy that fails to
//! load denies every call, which a person should learn here rather than from the first denial.

use keel_app::config::Config;

/// Where a setting comes from when no file sets it.
const BUILT_IN: &str = "(built-in default)";

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
    let mut row = |key: &str, value: String| {
        out.push_str(&format!("  {key:<22} {value}\n"));
    };
    let or_default = |v: Option<&str>, default: &str| match v {
        Some(v) => v.to_string(),
        None => format!("{default} {BUILT_IN}"),
    };
    row("mode", or_default(config.mode.as_deref(), "default"));
    row(
        "approval",
        or_default(
            config.approval.as_deref(),
            "ask on a terminal, deny otherwise",
        ),
    );
    row(
        "model",
        or_default(config.model.name.as_deref(), "local (the embedded model)"),
    );
    if let Some(url) = &config.model.base_url {
        row("model.base_url", url.clone());
    }
    if let Some(env) = &config.model.api_key_env {
        row("model.api_key_env", env.clone());
    }
    let presets: Vec<&str> = config.presets.keys().map(String::as_str).collect();
    row(
        "presets",
        if presets.is_empty() {
            format!("none; runs use `default` {BUILT_IN}")
        } else {
            presets.join(", ")
        },
    );
    let servers: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
    row(
        "mcp_servers",
        if servers.is_empty() {
            "none".to_string()
        } else {
            servers.join(", ")
        },
    );
    row(
        "computer_use",
        match &config.computer_use {
            Some(c) if c.enabled == Some(true) => format!(
                "on, model {}",
                c.model.as_deref().unwrap_or("(none set: open fails)")
            ),
            Some(_) => "off ([computer_use] enabled is not true)".to_string(),
            None => format!("off {BUILT_IN}"),
        },
    );
    row(
        "notes.max_untagged",
        config.max_untagged_notes().to_string(),
    );
    row(
        "store.busy_timeout_ms",
        config.store_options().busy_timeout.as_millis().to_string(),
    );

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
