//! Compiling the policy tables of the configuration (safety.md N5, N11, N13, N18, N19, N33,
//! N34, N38): `[[rule]]`, `[[safety_checker]]` and the `[checkers.NAME]` registry, each checked
//! strictly, with errors that name the file and line. A file that fails makes the whole policy
//! deny every call (N34) — an invalid rule is never half-applied. Each rule records its file's
//! tier as its origin, which is what caps a workspace file's `allow` (N46).

use std::collections::BTreeMap;
use std::time::Duration;

use keel_policy::Decision;
use keel_policy::rules::{
    CheckerRef, CheckerRule, Matcher, Mode, Policy, Rule, RuleOrigin, priority, tool_glob,
    tool_glob_readings,
};
use keel_runtime::checker::{CheckerMode, CheckerSpec};
use regex::Regex;
use serde_json::Value;

use crate::config::{Config, Tier, TieredTable};

/// The policy and the checkers it may run.
#[derive(Clone, Debug, Default)]
pub struct CompiledPolicy {
    pub policy: Policy,
    pub registry: BTreeMap<String, CheckerSpec>,
}

/// A policy table that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    pub path: String,
    pub line: usize,
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl PolicyError {
    /// The N34 form: every call is denied with this reason.
    pub fn as_policy(&self) -> Policy {
        let hint = self
            .hint
            .as_ref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        Policy::failed(
            &self.path,
            &format!("{} at {}:{}{hint}", self.message, self.path, self.line),
        )
    }
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)?;
        match &self.hint {
            Some(h) => write!(f, " ({h})"),
            None => Ok(()),
        }
    }
}

/// Gemini CLI keys that keel does not implement: a load error that says so, so that a file is
/// never run half-understood.
const UNSUPPORTED_GEMINI_KEYS: &[&str] = &["subagent", "allowRedirection", "allow_redirection"];

const RULE_KEYS: &[&str] = &[
    "toolName",
    "mcpName",
    "argsPattern",
    "commandPrefix",
    "commandRegex",
    "decision",
    "priority",
    "modes",
    "denyMessage",
    "deny_message",
    "interactive",
    "toolAnnotations",
    "sideEffects",
    "shellCommand",
];
const CHECKER_RULE_KEYS: &[&str] = &[
    "toolName",
    "mcpName",
    "argsPattern",
    "commandPrefix",
    "commandRegex",
    "priority",
    "modes",
    "toolAnnotations",
    "sideEffects",
    "shellCommand",
    "required_context",
    "config",
    "timeout_ms",
    "checker",
];
const REGISTRY_KEYS: &[&str] = &["command", "env", "timeout_ms", "kill_grace_ms", "mode"];

/// A priority within its tier (N11: the rule's priority is tier × 1000 + this).
const PRIORITY: std::ops::RangeInclusive<i64> = 0..=999;
/// What a `timeout_ms` may be, in a `[[safety_checker]]` table or a registry entry.
const TIMEOUT_MS: std::ops::RangeInclusive<i64> = 1..=3_600_000;

/// In-process checkers keel has (N18).
pub const IN_PROCESS_CHECKERS: &[&str] = &["allowed-path", "guarded-paths", "provenance"];

struct Ctx<'a> {
    t: &'a TieredTable,
}

impl Ctx<'_> {
    fn err(&self, message: impl Into<String>) -> PolicyError {
        PolicyError {
            path: self.t.file.display().to_string(),
            line: self.t.line,
            message: message.into(),
            hint: None,
        }
    }

    fn check_keys(&self, allowed: &[&str], what: &str) -> Result<(), PolicyError> {
        for key in self.t.table.keys() {
            if UNSUPPORTED_GEMINI_KEYS.contains(&key.as_str()) {
                return Err(self.err(format!("`{key}` in {what} is unsupported by keel")));
            }
            if !allowed.contains(&key.as_str()) {
                return Err(self.err(format!("unknown key `{key}` in {what}")));
            }
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<&toml::Value> {
        self.t.table.get(key)
    }

    fn string(&self, key: &str) -> Result<Option<String>, PolicyError> {
        match self.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.err(format!("`{key}` must be a string"))),
        }
    }

    /// A string or an array of strings.
    fn strings(&self, key: &str) -> Result<Option<Vec<String>>, PolicyError> {
        match self.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(toml::Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(String::from)
                        .ok_or_else(|| self.err(format!("`{key}` must hold strings")))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(self.err(format!("`{key}` must be a string or an array of strings"))),
        }
    }

    fn regex(&self, key: &str) -> Result<Option<Regex>, PolicyError> {
        // Rust's regex engine runs in linear time, so no pattern can backtrack catastrophically
        // (N19); an invalid pattern is a load error.
        self.string(key)?
            .map(|p| Regex::new(&p).map_err(|e| self.err(format!("invalid regex in `{key}`: {e}"))))
            .transpose()
    }

    fn integer(
        &self,
        key: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<Option<i64>, PolicyError> {
        match self.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) if range.contains(i) => Ok(Some(*i)),
            Some(_) => Err(self.err(format!(
                "`{key}` must be an integer from {} to {}",
                range.start(),
                range.end()
            ))),
        }
    }

    fn matcher(&self, every_command: bool) -> Result<Matcher, PolicyError> {
        let tool_names = match self.strings("toolName")? {
            None => Vec::new(),
            Some(names) => {
                if names.iter().any(String::is_empty) || names.is_empty() {
                    return Err(self.err("`toolName` must not be empty"));
                }
                // An allow takes one reading of an ambiguous name, the others every reading
                // (keel_policy::rules::tool_glob_readings).
                let mut globs = Vec::new();
                for n in &names {
                    let invalid = |e| self.err(format!("invalid `toolName` {n:?}: {e}"));
                    if every_command {
                        globs.push(tool_glob(n).map_err(invalid)?);
                    } else {
                        globs.extend(tool_glob_readings(n).map_err(invalid)?);
                    }
                }
                globs
            }
        };
        let modes = self
            .strings("modes")?
            .map(|ms| {
                ms.iter()
                    .map(|m| {
                        Mode::parse(m).ok_or_else(|| {
                            self.err(format!(
                                "unknown mode {m:?} in `modes` (default, plan, yolo)"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let annotations = match self.get("toolAnnotations") {
            None => None,
            Some(toml::Value::Table(t)) => Some(
                serde_json::to_value(t)
                    .ok()
                    .and_then(|v| v.as_object().cloned())
                    .unwrap_or_default(),
            ),
            Some(_) => return Err(self.err("`toolAnnotations` must be a table")),
        };
        let interactive = match self.get("interactive") {
            None => None,
            Some(toml::Value::Boolean(b)) => Some(*b),
            Some(_) => return Err(self.err("`interactive` must be true or false")),
        };
        let side_effects = match self.get("sideEffects") {
            None => None,
            Some(toml::Value::Boolean(b)) => Some(*b),
            Some(_) => return Err(self.err("`sideEffects` must be true or false")),
        };
        let shell_command = match self.get("shellCommand") {
            None => None,
            Some(toml::Value::Boolean(b)) => Some(*b),
            Some(_) => return Err(self.err("`shellCommand` must be true or false")),
        };
        let mcp_name = self.string("mcpName")?;
        if mcp_name.as_deref() == Some("") {
            return Err(self.err("`mcpName` must not be empty"));
        }
        Ok(Matcher {
            tool_names,
            mcp_name,
            args_pattern: self.regex("argsPattern")?,
            command_prefixes: self.strings("commandPrefix")?.unwrap_or_default(),
            // Gemini CLI anchors commandRegex at the start of the command; so does keel.
            command_regex: self
                .string("commandRegex")?
                .map(|p| {
                    Regex::new(&format!("^(?:{p})"))
                        .map_err(|e| self.err(format!("invalid regex in `commandRegex`: {e}")))
                })
                .transpose()?,
            every_command,
            modes,
            interactive,
            annotations,
            side_effects,
            shell_command,
        })
    }
}

fn checker_name_valid(name: &str) -> bool {
    !name.is_empty()
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn compile_rule(t: &TieredTable) -> Result<Rule, PolicyError> {
    let c = Ctx { t };
    c.check_keys(RULE_KEYS, "[[rule]]")?;
    let decision = match c.string("decision")?.as_deref() {
        Some("allow") => Decision::Allow,
        Some("deny") => Decision::Deny,
        Some("ask_user") => Decision::AskUser,
        Some(other) => {
            return Err(c.err(format!(
                "unknown decision {other:?} (allow, deny, ask_user)"
            )));
        }
        None => return Err(c.err("`decision` is required")),
    };
    let p = c.integer("priority", PRIORITY)?.unwrap_or(0);
    Ok(Rule {
        matcher: c.matcher(decision == Decision::Allow)?,
        decision,
        priority: priority(t.tier.number(), p),
        // Gemini CLI spells it `deny_message`; keel's docs, `denyMessage`.
        deny_message: match c.string("denyMessage")? {
            Some(m) => Some(m),
            None => c.string("deny_message")?,
        },
        source: format!("{}:{}", t.file.display(), t.line),
        origin: origin(t.tier),
    })
}

/// Where a rule of a file in `tier` comes from: what decides whether its `allow` is capped
/// (safety.md N46).
fn origin(tier: Tier) -> RuleOrigin {
    match tier {
        Tier::Default => RuleOrigin::Default,
        Tier::Workspace => RuleOrigin::Workspace,
        Tier::User => RuleOrigin::User,
        Tier::Admin => RuleOrigin::Admin,
    }
}

fn compile_checker_rule(
    t: &TieredTable,
    registry: &BTreeMap<String, CheckerSpec>,
) -> Result<CheckerRule, PolicyError> {
    let c = Ctx { t };
    c.check_keys(CHECKER_RULE_KEYS, "[[safety_checker]]")?;
    if c.get("toolName").is_none() {
        return Err(c.err("`toolName` is required in [[safety_checker]]"));
    }
    let Some(toml::Value::Table(checker)) = c.get("checker") else {
        return Err(c.err("[safety_checker.checker] with `type` and `name` is required"));
    };
    for key in checker.keys() {
        if !["type", "name", "config", "required_context"].contains(&key.as_str()) {
            return Err(c.err(format!("unknown key `{key}` in [safety_checker.checker]")));
        }
    }
    let checker_table = checker.clone();
    let name = checker
        .get("name")
        .and_then(toml::Value::as_str)
        .unwrap_or_default();
    if !checker_name_valid(name) {
        return Err(c.err(format!(
            "invalid checker name {name:?}: names match ^[a-z0-9-]+$ and contain no `..`"
        )));
    }
    let checker = match checker.get("type").and_then(toml::Value::as_str) {
        Some("in-process") if IN_PROCESS_CHECKERS.contains(&name) => {
            CheckerRef::InProcess(name.into())
        }
        Some("in-process") => {
            return Err(c.err(format!(
                "unknown in-process checker \"{name}\" (allowed-path, provenance)"
            )));
        }
        Some("external") if registry.contains_key(name) => CheckerRef::External(name.into()),
        Some("external") => {
            let mut e = c.err(format!("Unknown external checker \"{name}\""));
            e.hint = Some(format!(
                "register it in [checkers.{name}] in your user config"
            ));
            return Err(e);
        }
        _ => return Err(c.err("`checker.type` must be \"in-process\" or \"external\"")),
    };
    // Gemini CLI puts `config` and `required_context` inside the checker table; keel accepts
    // them there or beside it.
    let required_context = match c.strings("required_context")? {
        Some(r) => Some(r),
        None => match checker_table.get("required_context") {
            Some(toml::Value::Array(a)) => Some(
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect(),
            ),
            Some(_) => return Err(c.err("`required_context` must be an array of strings")),
            None => None,
        },
    };
    let config = c
        .get("config")
        .or_else(|| checker_table.get("config"))
        .map(|v| serde_json::to_value(v).unwrap_or(Value::Null));
    if let CheckerRef::InProcess(name) = &checker {
        validate_in_process_config(&c, name, config.as_ref())?;
    }
    Ok(CheckerRule {
        matcher: c.matcher(false)?,
        priority: priority(
            t.tier.number(),
            c.integer("priority", PRIORITY)?.unwrap_or(0),
        ),
        checker,
        required_context,
        config,
        timeout_ms: c.integer("timeout_ms", TIMEOUT_MS)?.map(|v| v as u64),
        source: format!("{}:{}", t.file.display(), t.line),
    })
}

/// An in-process checker's `config` is checked when the file loads: a mistyped key or value
/// would otherwise silently weaken it.
fn validate_in_process_config(
    c: &Ctx<'_>,
    name: &str,
    config: Option<&Value>,
) -> Result<(), PolicyError> {
    let Some(config) = config else { return Ok(()) };
    let Some(map) = config.as_object() else {
        return Err(c.err(format!("the config of \"{name}\" must be a table")));
    };
    for (key, value) in map {
        match (name, key.as_str()) {
            ("allowed-path", "included_args" | "excluded_args") => {
                let ok = value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string));
                if !ok {
                    return Err(c.err(format!(
                        "`{key}` of \"allowed-path\" must be an array of strings"
                    )));
                }
            }
            ("provenance", "on_tainted") => {
                if !matches!(value.as_str(), Some("ask_user" | "deny")) {
                    return Err(
                        c.err("`on_tainted` of \"provenance\" must be \"ask_user\" or \"deny\"")
                    );
                }
            }
            ("provenance", "named_records") => {
                if !value.is_boolean() {
                    return Err(c.err("`named_records` of \"provenance\" must be true or false"));
                }
            }
            _ => return Err(c.err(format!("unknown key `{key}` in the config of \"{name}\""))),
        }
    }
    Ok(())
}

fn compile_registry_entry(name: &str, t: &TieredTable) -> Result<CheckerSpec, PolicyError> {
    let c = Ctx { t };
    c.check_keys(REGISTRY_KEYS, &format!("[checkers.{name}]"))?;
    if !checker_name_valid(name) {
        return Err(c.err(format!(
            "invalid checker name {name:?}: names match ^[a-z0-9-]+$ and contain no `..`"
        )));
    }
    let command = match c.get("command") {
        Some(toml::Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| c.err("`command` must hold strings"))
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(c.err("`command` must be a non-empty array: [\"program\", \"arg\", …]")),
    };
    let env = match c.get("env") {
        None => BTreeMap::new(),
        Some(toml::Value::Table(t)) => t
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_string()))
                    .ok_or_else(|| c.err("`env` values must be strings"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(c.err("`env` must be a table")),
    };
    let mut spec = CheckerSpec::new(name, command);
    spec.env = env;
    if let Some(ms) = c.integer("timeout_ms", TIMEOUT_MS)? {
        spec.timeout = Duration::from_millis(ms as u64);
    }
    if let Some(ms) = c.integer("kill_grace_ms", 0..=600_000)? {
        spec.kill_grace = Duration::from_millis(ms as u64);
    }
    spec.mode = match c.string("mode")?.as_deref() {
        None | Some("spawn") => CheckerMode::Spawn,
        Some("persistent") => CheckerMode::Persistent,
        Some(other) => return Err(c.err(format!("unknown mode {other:?} (spawn, persistent)"))),
    };
    Ok(spec)
}

/// `keel policy show`: the built-in default policy, then every rule and checker in force,
/// highest priority first. A workspace file's `allow` is marked capped, with its file and line
/// and why (safety.md N46).
pub fn render(compiled: &CompiledPolicy) -> String {
    let mut out = String::from("Built-in default policy (tier 1):\n\n");
    out.push_str(crate::config::BUILTIN_POLICY);
    out.push_str("\nIn force, highest priority first:\n");
    if let Some(error) = compiled.policy.load_error() {
        out.push_str(&format!("  EVERY CALL IS DENIED: {error}\n"));
    }
    for rule in compiled.policy.rules() {
        out.push_str(&format!(
            "  rule     {:>5}  {:<8}  {}{}\n",
            rule.priority,
            rule.decision.as_str(),
            rule.source,
            if rule.is_capped() { "  (capped)" } else { "" }
        ));
        if rule.is_capped() {
            out.push_str(&format!(
                "           capped: the allow at {} is a workspace file's; it applies only where \
                 no deny or ask_user rule of the default, user or admin tier matches the call \
                 (a workspace file can only tighten)\n",
                rule.source
            ));
        }
    }
    for c in compiled.policy.checker_rules() {
        let kind = match c.checker {
            CheckerRef::InProcess(_) => "in-process",
            CheckerRef::External(_) => "external",
        };
        out.push_str(&format!(
            "  checker  {:>5}  {:<12}  {kind}  {}\n",
            c.priority,
            c.checker.name(),
            c.source
        ));
    }
    out
}

/// keel's built-in default policy and nothing else — what a user with no configuration file
/// gets — read from [`crate::config::BUILTIN_POLICY`] by the same loader and compiled by the
/// same compiler as any file, with its (empty) checker registry. Tests and benches that need
/// "the default policy" take it from here, so they exercise the rules keel ships rather than
/// a look-alike. Were the built-in file ever unreadable, the policy would deny every call and
/// say why (N34), as any broken file does; `the_builtin_policy_compiles…` proves it is not.
pub fn builtin() -> CompiledPolicy {
    // No workspace, user or admin file: the built-in tier alone.
    match crate::config::load(&crate::config::Sources::default()) {
        Ok(config) => compile_or_deny(&config),
        Err(e) => denying(Policy::failed(crate::config::BUILTIN_NAME, &e.message)),
    }
}

/// The policy of `config`, or, when a table of it is wrong, one that denies every call and
/// says why (N34): an invalid rule is never half-applied.
pub fn compile_or_deny(config: &Config) -> CompiledPolicy {
    compile(config).unwrap_or_else(|e| denying(e.as_policy()))
}

/// A policy that runs no checker (it denies every call, saying why).
pub fn denying(policy: Policy) -> CompiledPolicy {
    CompiledPolicy {
        policy,
        registry: BTreeMap::new(),
    }
}

/// Compiles the whole policy, or says which table of which file is wrong.
pub fn compile(config: &Config) -> Result<CompiledPolicy, PolicyError> {
    let mut registry = BTreeMap::new();
    for (name, t) in &config.checkers {
        registry.insert(name.clone(), compile_registry_entry(name, t)?);
    }
    let rules = config
        .rules
        .iter()
        .map(compile_rule)
        .collect::<Result<Vec<_>, _>>()?;
    let checkers = config
        .safety_checkers
        .iter()
        .map(|t| compile_checker_rule(t, &registry))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CompiledPolicy {
        policy: Policy::new(rules, checkers),
        registry,
    })
}

#[cfg(test)]
mod tests;
