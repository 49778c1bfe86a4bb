//! Prioritized rules and how a call's decision is composed (safety.md N11–N17, N36, N37, N41,
//! N42; T3, T4).
//!
//! A [`Policy`] holds compiled rules and checker rules, sorted once by descending priority
//! (ties: most restrictive first, then load order). The first matching rule gives the rule
//! decision; without a match the decision depends on the approval mode and interactivity
//! (N14). Checkers then run unless the rules denied (N16), and [`compose`] folds their verdicts
//! in priority order exactly as sequential evaluation would (N37). A workspace file's `allow`
//! is capped (N46): it is passed over for a call that a deny or ask_user rule of the default,
//! user or admin tier matches, so a cloned repository can tighten keel, never loosen it. What
//! is capped follows where a rule came from ([`RuleOrigin`]), not its priority number.

use regex::Regex;
use serde_json::Value;

use super::Decision;
use super::shell::{self, commands};

/// Approval modes (interfaces.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Default,
    Plan,
    Yolo,
}

impl Mode {
    /// `autoEdit` is Gemini's name for keel's `default`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "default" | "autoEdit" => Some(Mode::Default),
            "plan" => Some(Mode::Plan),
            "yolo" => Some(Mode::Yolo),
            _ => None,
        }
    }
}

/// Tiers (N11): the integer part of a priority.
pub const TIER_DEFAULT: i64 = 1;
pub const TIER_WORKSPACE: i64 = 3;
pub const TIER_USER: i64 = 4;
pub const TIER_ADMIN: i64 = 5;
/// "Allow for this run" answers (N12, interfaces.md §3).
pub const ALLOW_FOR_RUN_PRIORITY: i64 = 3950;
/// "Deny for this run" answers (an editor's reject_always): above every tier, so no rule of
/// any file allows what the person refused for their own run.
pub const DENY_FOR_RUN_PRIORITY: i64 = 6000;

/// `tier × 1000 + p` (N42).
pub fn priority(tier: i64, p: i64) -> i64 {
    tier * 1000 + p
}

/// Where a rule came from. Its priority decides where it sorts; its origin decides whether it
/// may loosen (N46). The two differ for "allow for this run": that rule sorts at 3950, among the
/// workspace tier's numbers, but it is the user's own answer, so it is never capped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleOrigin {
    /// keel's built-in default policy (tier 1).
    Default,
    /// A workspace-tier file (`./keel.toml`, `--policy FILE`; tier 3): what a cloned repository
    /// brings, so its `allow` rules are capped.
    Workspace,
    /// The user's configuration file (tier 4).
    User,
    /// An admin policy file (tier 5).
    Admin,
    /// An answer the user gave during the run ("allow for this run", N12; "deny for this
    /// run").
    Answer,
}

impl RuleOrigin {
    /// Whether this origin's deny and ask_user rules cap a workspace `allow` (N46: the default,
    /// user and admin tiers).
    pub fn caps_workspace(self) -> bool {
        matches!(
            self,
            RuleOrigin::Default | RuleOrigin::User | RuleOrigin::Admin
        )
    }
}

/// What a rule or checker rule matches on (N13).
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    /// Tool-name globs (`*`); empty matches every tool.
    pub tool_names: Vec<ToolGlob>,
    pub mcp_name: Option<String>,
    /// Over the stable stringified args (N41).
    pub args_pattern: Option<Regex>,
    /// Shell commands: every sub-command must start with one of these (keel, beyond N14).
    pub command_prefixes: Vec<String>,
    /// Shell commands: every sub-command must match.
    pub command_regex: Option<Regex>,
    /// For `allow` rules: every sub-command must match the command conditions, and a command
    /// with substitution or output redirection never does. For `deny` and `ask_user` rules
    /// (and checker rules) one matching sub-command is enough, so a forbidden command cannot
    /// hide behind an innocent one.
    pub every_command: bool,
    pub modes: Option<Vec<Mode>>,
    pub interactive: Option<bool>,
    /// Each listed annotation must equal the tool's.
    pub annotations: Option<serde_json::Map<String, Value>>,
    /// `sideEffects = true|false` (keel, beyond N13): whether keel reads the tool as
    /// side-effecting — its annotations, else its name and description (classify.rs). This is
    /// how the built-in policy says what plan mode may not do without naming any tool.
    pub side_effects: Option<bool>,
    /// `shellCommand = true|false` (keel, beyond N13): whether the call has a `command`
    /// argument that is free text — a string the tool's schema does not fix to listed values
    /// ([`free_text_command`]). The built-in policy's shell rule: `control_device
    /// {"command": "turn_off"}` with an `enum` of commands runs no shell.
    pub shell_command: Option<bool>,
}

/// The facts about one call that rules look at.
#[derive(Clone, Debug)]
pub struct CallFacts<'a> {
    pub tool: &'a str,
    pub args: &'a Value,
    pub mode: Mode,
    pub interactive: bool,
    pub annotations: Option<&'a serde_json::Map<String, Value>>,
    /// What keel's classifier makes of the tool (classify.rs).
    pub effect: crate::classify::Effect,
    /// `args` as [`stable_stringify`] writes them, for the rules with an argument pattern:
    /// written once per call, however many rules look. Leave it empty.
    pub args_text: std::sync::OnceLock<String>,
    /// The tool's JSON Schema for its arguments, where it declares one.
    pub parameters: Option<&'a Value>,
}

/// A tool-name glob: `*` matches any run of characters but a line feed. Every rule's names
/// are compared with every call's tool, so the common shapes — a name, `*`, `write_*`,
/// `*_file` — are compared as text (a regex search cost more than the rest of a rule), and
/// only a glob with `*` inside it is a regex.
#[derive(Clone, Debug)]
pub enum ToolGlob {
    Any,
    Exact(String),
    Prefix(String),
    Suffix(String),
    Pattern(Regex),
}

impl ToolGlob {
    pub fn is_match(&self, name: &str) -> bool {
        // What `*` stands for holds no line feed, as in the regex form (`.`).
        let starred = |rest: &str| !rest.contains('\n');
        match self {
            ToolGlob::Any => starred(name),
            ToolGlob::Exact(exact) => name == exact,
            ToolGlob::Prefix(prefix) => name.strip_prefix(prefix.as_str()).is_some_and(starred),
            ToolGlob::Suffix(suffix) => name.strip_suffix(suffix.as_str()).is_some_and(starred),
            ToolGlob::Pattern(regex) => regex.is_match(name),
        }
    }
}

/// A tool-name glob: `*` matches any run of chars; Gemini's `mcp_<server>_*` is read as keel's
/// `mcp__<server>__*`, the server's name ending at the first `_` ([`tool_glob_readings`] gives
/// every reading).
pub fn tool_glob(pattern: &str) -> Result<ToolGlob, regex::Error> {
    let pattern = match pattern.strip_prefix("mcp_") {
        Some(rest) if !rest.starts_with('_') => match rest.split_once('_') {
            Some((server, tail)) => format!("mcp__{server}__{tail}"),
            None => pattern.to_string(),
        },
        _ => pattern.to_string(),
    };
    glob_of(pattern)
}

/// Every reading of a tool-name glob: Gemini's `mcp_<server>_<tool>` does not say where a
/// server's name that holds `_` ends (`mcp_my_srv_*` is server `my_srv`'s tools, or server
/// `my`'s `srv_*`), so a rule that denies, asks or runs a checker matches under each (an
/// outsider's round 25: a deny for `my_srv` read as server `my` let its calls through); an
/// allow keeps the one reading [`tool_glob`] gives, never more.
pub fn tool_glob_readings(pattern: &str) -> Result<Vec<ToolGlob>, regex::Error> {
    let Some(rest) = pattern.strip_prefix("mcp_").filter(|r| !r.starts_with('_')) else {
        return Ok(vec![glob_of(pattern.to_string())?]);
    };
    let mut readings: Vec<ToolGlob> = rest
        .match_indices('_')
        .filter(|&(at, _)| at > 0)
        .map(|(at, _)| glob_of(format!("mcp__{}__{}", &rest[..at], &rest[at + 1..])))
        .collect::<Result<_, _>>()?;
    if readings.is_empty() {
        readings.push(glob_of(pattern.to_string())?);
    }
    Ok(readings)
}

fn glob_of(pattern: String) -> Result<ToolGlob, regex::Error> {
    let stars = pattern.matches('*').count();
    Ok(
        match (stars, pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
            (0, _, _) => ToolGlob::Exact(pattern),
            (1, Some(""), _) => ToolGlob::Any,
            (1, Some(suffix), _) => ToolGlob::Suffix(suffix.to_string()),
            (1, _, Some(prefix)) => ToolGlob::Prefix(prefix.to_string()),
            _ => {
                let body: Vec<String> = pattern.split('*').map(regex::escape).collect();
                ToolGlob::Pattern(Regex::new(&format!("^{}$", body.join(".*")))?)
            }
        },
    )
}

/// Stable stringify (N41): compact JSON, object keys sorted by code point at every level.
/// Written straight from `v`, keys sorted in place, rather than through a sorted copy: a rule
/// with an argument pattern reads it for every call.
pub fn stable_stringify(v: &Value) -> String {
    fn write(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                out.push(b'{');
                for (n, (key, value)) in entries.into_iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    scalar(key, out);
                    out.push(b':');
                    write(value, out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    write(item, out);
                }
                out.push(b']');
            }
            other => scalar(other, out),
        }
    }
    /// A string, number, boolean or null as serde_json writes it.
    fn scalar<T: serde::Serialize + ?Sized>(v: &T, out: &mut Vec<u8>) {
        // Writing a scalar into memory cannot fail.
        let _ = serde_json::to_writer(&mut *out, v);
    }
    let mut out = Vec::with_capacity(64);
    write(v, &mut out);
    // serde_json writes UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether `args` hold a `command` that is free text: a string that `parameters` (the tool's
/// argument schema, where it has one) does not fix to an `enum` or a `const`. Only such a
/// command can be a shell's; without a schema every string is free text.
pub fn free_text_command(args: &Value, parameters: Option<&Value>) -> bool {
    let Some(command @ Value::String(_)) = args.get("command") else {
        return false;
    };
    let declared = parameters
        .and_then(|p| p.get("properties"))
        .and_then(|p| p.get("command"));
    // Listed only where the value is one of the list: a command the schema does not list is
    // free text whatever the schema says (keel does not hold a model to a tool's schema).
    let listed = declared.is_some_and(|c| {
        c.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.contains(command))
            || c.get("const") == Some(command)
    });
    !listed
}

/// The shell command of a call, if it has one: its `command` argument.
pub fn shell_command(args: &Value) -> Option<&str> {
    args.get("command").and_then(Value::as_str)
}

/// Splits a compound shell command at `&&`, `||`, `;`, `|`, `&` and newlines, outside quotes.
pub fn split_commands(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            // Inside single quotes a backslash is just a backslash.
            (Some(q), '\\') if q != '\'' => {
                current.push(c);
                if let Some(n) = chars.next() {
                    current.push(n);
                }
            }
            (Some(_), c) => current.push(c),
            // A comment runs to the end of the line; what follows the line break is a command.
            (None, '#') if current.is_empty() || current.ends_with(char::is_whitespace) => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            (None, '\'' | '"' | '`') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '\\') => {
                current.push(c);
                if let Some(n) = chars.next() {
                    current.push(n);
                }
            }
            // Grouping and function bodies run commands of their own.
            (None, '(' | ')' | '{' | '}') => {
                parts.push(std::mem::take(&mut current));
            }
            (None, ';' | '\n' | '|' | '&') => {
                if matches!(chars.peek(), Some('|' | '&')) {
                    chars.next();
                }
                parts.push(std::mem::take(&mut current));
            }
            (None, '$') if chars.peek() == Some(&'(') => {
                // A command substitution is a command of its own.
                chars.next();
                parts.push(std::mem::take(&mut current));
            }
            (None, c) => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn starts_with_word(command: &str, prefix: &str) -> bool {
    command == prefix
        || command
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(char::is_whitespace))
}

/// The command a sub-command runs, with what can wrap it taken off: grouping `(` `{`,
/// negation `!`, a leading backslash, and `NAME=value` assignments. A deny rule for `rm`
/// must also see `(rm x)`, `{ rm x; }`, `! rm x`, `\rm x` and `FOO=1 rm x`.
fn unwrapped(part: &str) -> &str {
    let mut s = part.trim_start();
    loop {
        let before = s;
        s = s.trim_start_matches(['(', '{', '!', '\\']).trim_start();
        if let Some((word, rest)) = s.split_once(char::is_whitespace) {
            let is_assignment = word.contains('=')
                && word.split('=').next().is_some_and(|n| {
                    !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if is_assignment {
                s = rest.trim_start();
            }
        }
        if s == before {
            return s;
        }
    }
}

impl Matcher {
    /// Whether the call matches (N13). `with_interactive` is false for checker rules (N16).
    pub fn matches(&self, call: &CallFacts<'_>, with_interactive: bool) -> bool {
        // With `mcpName`, a tool name may be given bare (Gemini CLI joins the two): it then
        // matches the part after `mcp__<server>__`.
        let bare = match &self.mcp_name {
            Some(server) => match call.tool.strip_prefix(&format!("mcp__{server}__")) {
                Some(rest) => Some(rest),
                None => return false,
            },
            None => None,
        };
        if !self.tool_names.is_empty()
            && !self
                .tool_names
                .iter()
                .any(|r| r.is_match(call.tool) || bare.is_some_and(|b| r.is_match(b)))
        {
            return false;
        }
        if let Some(modes) = &self.modes
            && !modes.contains(&call.mode)
        {
            return false;
        }
        if with_interactive && self.interactive.is_some_and(|i| i != call.interactive) {
            return false;
        }
        if let Some(want) = &self.annotations {
            let Some(have) = call.annotations else {
                return false;
            };
            if want.iter().any(|(k, v)| have.get(k) != Some(v)) {
                return false;
            }
        }
        if let Some(want) = self.side_effects
            && want != (call.effect == crate::classify::Effect::SideEffecting)
        {
            return false;
        }
        if let Some(want) = self.shell_command
            && want != free_text_command(call.args, call.parameters)
        {
            return false;
        }
        if let Some(pattern) = &self.args_pattern
            && !pattern.is_match(call.args_text.get_or_init(|| stable_stringify(call.args)))
        {
            return false;
        }
        if !self.command_prefixes.is_empty() || self.command_regex.is_some() {
            let Some(command) = shell_command(call.args) else {
                return false;
            };
            let matched = if self.every_command {
                self.every_command_matches(command)
            } else {
                self.some_command_matches(command)
            };
            if !matched {
                return false;
            }
        }
        true
    }
}

impl Matcher {
    /// An allow rule's test: the command is fully understood ([`shell::parse`]), and each of
    /// its simple commands meets the command conditions and is one whose file operands keel can
    /// name ([`commands::path_operands`]). Anything else is left to the rules that ask.
    fn every_command_matches(&self, command: &str) -> bool {
        let Ok(parsed) = shell::parse(command) else {
            return false;
        };
        parsed
            .iter()
            .all(|c| self.words_match(&c.words) && commands::path_operands(&c.words).is_ok())
    }

    /// A deny or ask rule's test: any sub-command matching is enough, read both as the shell
    /// would (quotes removed: `"rm" x` is `rm x`) and, for what the shell grammar cannot read
    /// fully, by the plain split, which over-approximates.
    fn some_command_matches(&self, command: &str) -> bool {
        if let Ok(parsed) = shell::parse(command)
            && parsed.iter().any(|c| self.words_match(&c.words))
        {
            return true;
        }
        split_commands(command).iter().any(|part| {
            let part = unwrapped(part);
            (self.command_prefixes.is_empty()
                || self
                    .command_prefixes
                    .iter()
                    .any(|p| starts_with_word(part, p)))
                && self
                    .command_regex
                    .as_ref()
                    .is_none_or(|re| re.is_match(part))
        })
    }

    /// The command conditions over one simple command's words: a prefix is matched word by
    /// word, the regex over the words joined by single spaces.
    fn words_match(&self, words: &[String]) -> bool {
        let prefix_ok = self.command_prefixes.is_empty()
            || self.command_prefixes.iter().any(|p| {
                let prefix: Vec<&str> = p.split_whitespace().collect();
                !prefix.is_empty()
                    && words.len() >= prefix.len()
                    && words.iter().zip(&prefix).all(|(w, p)| w == p)
            });
        prefix_ok
            && self
                .command_regex
                .as_ref()
                .is_none_or(|re| re.is_match(&words.join(" ")))
    }
}

/// A compiled `[[rule]]`.
#[derive(Clone, Debug)]
pub struct Rule {
    pub matcher: Matcher,
    pub decision: Decision,
    pub priority: i64,
    pub deny_message: Option<String>,
    /// `file:line`, for messages.
    pub source: String,
    /// Where it came from: whether it is capped (N46).
    pub origin: RuleOrigin,
}

impl Rule {
    /// A workspace file's `allow`: it applies only where no deny or ask_user rule of the
    /// default, user or admin tier matches the call (N46).
    pub fn is_capped(&self) -> bool {
        self.decision == Decision::Allow && self.origin == RuleOrigin::Workspace
    }

    /// A rule that caps a workspace `allow` wherever it matches (N46).
    fn caps(&self) -> bool {
        self.decision != Decision::Allow && self.origin.caps_workspace()
    }
}

/// Which checker a checker rule runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckerRef {
    InProcess(String),
    External(String),
}

impl CheckerRef {
    pub fn name(&self) -> &str {
        match self {
            CheckerRef::InProcess(n) | CheckerRef::External(n) => n,
        }
    }
}

/// A compiled `[[safety_checker]]`.
#[derive(Clone, Debug)]
pub struct CheckerRule {
    pub matcher: Matcher,
    pub priority: i64,
    pub checker: CheckerRef,
    pub required_context: Option<Vec<String>>,
    pub config: Option<Value>,
    /// An in-process checker's budget; external checkers use their registry entry's.
    pub timeout_ms: Option<u64>,
    pub source: String,
}

/// The whole policy, sorted.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    rules: Vec<Rule>,
    checkers: Vec<CheckerRule>,
    /// N34: while a file fails to load, every call is denied with this reason.
    load_error: Option<String>,
}

/// The rule phase's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOutcome {
    pub decision: Decision,
    /// The tool result a rule denial gives the model (N27).
    pub reason: Option<String>,
    /// `file:line` of the matching rule; `None` when no rule matched.
    pub rule: Option<String>,
}

impl Policy {
    /// Sorts by descending priority; ties: most restrictive first, then load order (N42).
    pub fn new(mut rules: Vec<Rule>, mut checkers: Vec<CheckerRule>) -> Self {
        rules.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
                .then(b.decision.cmp(&a.decision))
        });
        checkers.sort_by_key(|c| std::cmp::Reverse(c.priority));
        Self {
            rules,
            checkers,
            load_error: None,
        }
    }

    /// The same policy with more rules, re-sorted (for "allow for this run", N12).
    pub fn with_rules(&self, extra: Vec<Rule>) -> Self {
        let mut rules = self.rules.clone();
        rules.extend(extra);
        let mut next = Self::new(rules, self.checkers.clone());
        next.load_error = self.load_error.clone();
        next
    }

    /// The rule an "allow for this run" answer adds: that tool, at priority 3950 (N12).
    pub fn allow_for_run_rule(tool: &str) -> Option<Rule> {
        Some(Rule {
            matcher: Matcher {
                tool_names: vec![ToolGlob::Exact(tool.to_string())],
                ..Matcher::default()
            },
            decision: Decision::Allow,
            priority: ALLOW_FOR_RUN_PRIORITY,
            deny_message: None,
            source: format!("allowed for this run: {tool}"),
            // The user's answer, though it sorts among the workspace tier's numbers.
            origin: RuleOrigin::Answer,
        })
    }

    /// The rule a "deny for this run" answer adds: that tool, denied at priority 6000, above
    /// every tier, with a reason that says the person refused it.
    pub fn deny_for_run_rule(tool: &str) -> Option<Rule> {
        Some(Rule {
            matcher: Matcher {
                tool_names: vec![ToolGlob::Exact(tool.to_string())],
                ..Matcher::default()
            },
            decision: Decision::Deny,
            priority: DENY_FOR_RUN_PRIORITY,
            deny_message: Some(format!(
                "You refused every {tool} call for the rest of this run."
            )),
            source: format!("denied for this run: {tool}"),
            origin: RuleOrigin::Answer,
        })
    }

    /// A policy that denies everything because a file failed to load (N34).
    pub fn failed(path: &str, error: &str) -> Self {
        Self {
            load_error: Some(format!("Policy file \"{path}\" failed to load: {error}")),
            ..Self::default()
        }
    }

    pub fn load_error(&self) -> Option<&str> {
        self.load_error.as_deref()
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn checker_rules(&self) -> &[CheckerRule] {
        &self.checkers
    }

    /// The rule phase (N13, N14).
    pub fn rule_decision(&self, call: &CallFacts<'_>) -> RuleOutcome {
        if let Some(error) = &self.load_error {
            return RuleOutcome {
                decision: Decision::Deny,
                reason: Some(error.clone()),
                rule: None,
            };
        }
        // Whether a deny or ask_user rule of the default, user or admin tier matches the call,
        // worked out once, and only when a workspace `allow` matches (N46).
        let mut tighter: Option<bool> = None;
        let mut capped: Option<&Rule> = None;
        let found = self.rules.iter().find(|r| {
            if !r.matcher.matches(call, true) {
                return false;
            }
            if !r.is_capped() {
                return true;
            }
            // Held back where a tighter rule matches, and where nothing but workspace allows
            // would let the call through: the built-in policy's answer when no rule matches
            // (ask, or deny without a person) is as much its answer as a rule's (interfaces.md
            // §2: a workspace allow only allows what would otherwise be allowed anyway).
            let held = *tighter.get_or_insert_with(|| {
                let capped_by_a_rule = self
                    .rules
                    .iter()
                    .any(|t| t.caps() && t.matcher.matches(call, true));
                let allowed_anyway = call.mode == Mode::Yolo
                    || self.rules.iter().any(|t| {
                        t.decision == Decision::Allow
                            && t.origin != RuleOrigin::Workspace
                            && t.matcher.matches(call, true)
                    });
                capped_by_a_rule || !allowed_anyway
            });
            if held && capped.is_none() {
                capped = Some(r);
            }
            !held
        });
        if let Some(rule) = found {
            let reason = match rule.decision {
                Decision::Deny => Some(match &rule.deny_message {
                    Some(m) => format!("Tool execution denied by policy. {m}"),
                    None => "Tool execution denied by policy.".to_string(),
                }),
                Decision::AskUser => Some(format!(
                    "policy: the rule at {} asks before {} runs{}",
                    rule.source,
                    call.tool,
                    capped_note(capped)
                )),
                Decision::Allow => None,
            };
            return RuleOutcome {
                decision: rule.decision,
                reason,
                rule: Some(rule.source.clone()),
            };
        }
        let decision = match (call.mode, call.interactive) {
            (Mode::Yolo, _) => Decision::Allow,
            (_, true) => Decision::AskUser,
            (_, false) => Decision::Deny,
        };
        let reason = match decision {
            Decision::Deny => {
                Some("Tool execution denied by policy: no rule allows it.".to_string())
            }
            Decision::AskUser => Some(format!("policy: no rule allows {} outright", call.tool)),
            Decision::Allow => None,
        };
        RuleOutcome {
            decision,
            reason,
            rule: None,
        }
    }

    /// The checker rules that apply to a call, in descending priority (N16, N36).
    pub fn matching_checkers<'p>(&'p self, call: &CallFacts<'_>) -> Vec<&'p CheckerRule> {
        self.checkers
            .iter()
            .filter(|c| c.matcher.matches(call, false))
            .collect()
    }

    /// Whether a tool is removed from what the model is offered: the first rule that applies
    /// to the tool whatever its arguments is an unconditional `deny`, and no conditional
    /// allow or ask_user rule comes before it. A workspace `allow` before it counts only when
    /// that deny is the workspace's own: a default, user or admin deny caps it (N46).
    pub fn hides_tool(&self, tool: &str, mode: Mode) -> bool {
        let mut workspace_allow = false;
        for rule in &self.rules {
            let m = &rule.matcher;
            let applies = (m.tool_names.is_empty()
                || m.tool_names.iter().any(|t| t.is_match(tool)))
                && m.modes.as_ref().is_none_or(|modes| modes.contains(&mode))
                && m.mcp_name
                    .as_ref()
                    .is_none_or(|s| tool.starts_with(&format!("mcp__{s}__")));
            if !applies {
                continue;
            }
            let unconditional = m.args_pattern.is_none()
                && m.command_prefixes.is_empty()
                && m.command_regex.is_none()
                && m.annotations.is_none()
                && m.side_effects.is_none()
                && m.shell_command.is_none()
                && m.interactive.is_none();
            if rule.is_capped() {
                // Passed over wherever a stricter rule of another tier matches; whether one
                // does is settled by the rules below.
                workspace_allow = true;
                continue;
            }
            if unconditional {
                return rule.decision == Decision::Deny && (rule.caps() || !workspace_allow);
            }
            if rule.decision != Decision::Deny {
                // Some calls of this tool may be allowed by this rule.
                return false;
            }
        }
        false
    }
}

/// What an ask_user reason adds when a workspace `allow` was passed over for the call (N46), so
/// the user sees why their `keel.toml` rule did not apply.
fn capped_note(capped: Option<&Rule>) -> String {
    match capped {
        Some(rule) => format!(
            " (the workspace rule at {} that allows it is capped: a workspace file can only \
             tighten)",
            rule.source
        ),
        None => String::new(),
    }
}

/// One checker's verdict, or the runner's failure (which denies, N8, N43).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckerVerdict {
    pub checker: String,
    pub decision: Decision,
    pub reason: Option<String>,
    /// Set when the runner failed (`timeout`, `exit`, …): "checker failed", not "checker denied".
    pub failure: Option<&'static str>,
}

/// The final decision and what the user and the model are told (N16, N27).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Final {
    pub decision: Decision,
    /// For deny: the tool result. For ask_user: each asking checker's name and reason, in
    /// priority order (or the rule's prompt). For allow: empty.
    pub reasons: Vec<String>,
}

/// Composes the rule outcome with the checkers' verdicts, given in descending priority
/// (N16, N37): the first deny wins; every ask_user before it is collected; allow changes
/// nothing. With a rule DENY no checker counts.
pub fn compose(rule: &RuleOutcome, checkers: &[CheckerVerdict]) -> Final {
    if rule.decision == Decision::Deny {
        return Final {
            decision: Decision::Deny,
            reasons: rule.reason.iter().cloned().collect(),
        };
    }
    let mut decision = rule.decision;
    let mut asks: Vec<String> = match rule.decision {
        Decision::AskUser => rule.reason.iter().cloned().collect(),
        _ => Vec::new(),
    };
    for v in checkers {
        let reason = v.reason.clone().unwrap_or_default();
        match v.decision {
            Decision::Deny => {
                return Final {
                    decision: Decision::Deny,
                    reasons: vec![format!(
                        "Tool execution denied by safety checker \"{}\": {reason}",
                        v.checker
                    )],
                };
            }
            Decision::AskUser => {
                decision = Decision::AskUser;
                asks.push(format!("{}: {reason}", v.checker));
            }
            Decision::Allow => {}
        }
    }
    Final {
        decision,
        reasons: asks,
    }
}

/// Non-interactive: ask_user becomes deny with N35's reason.
pub fn non_interactive(final_: Final) -> Final {
    if final_.decision != Decision::AskUser {
        return final_;
    }
    let reason = if final_.reasons.is_empty() {
        "Tool call requires confirmation".to_string()
    } else {
        final_.reasons.join("; ")
    };
    Final {
        decision: Decision::Deny,
        reasons: vec![format!(
            "{reason} (user confirmation is unavailable in non-interactive mode)"
        )],
    }
}

#[cfg(test)]
mod tests;
