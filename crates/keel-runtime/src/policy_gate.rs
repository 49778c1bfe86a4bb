//! The policy stages of the gate: rules, then safety checkers (safety.md N13–N17, N36, N37),
//! with the in-process checkers (allowed-path over the real filesystem, provenance) and
//! external ones (spawned or persistent) run through one path, so `keel check`, `keel eval`
//! and real runs decide alike.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use keel_core::item::Item;
use keel_policy::Decision;
use keel_policy::classify::{ToolInfo, classify};
use keel_policy::paths::{
    PathConfig, PathResolver, ResolvedArg, allowed_roots, check_guarded_resolved,
    check_resolved_paths, resolve_path_args,
};
use keel_policy::protocol::{
    CheckContext, Environment, FunctionCall, History, PROTOCOL_VERSION, SafetyCheckInput,
    SafetyCheckResult, history_turns,
};
use keel_policy::provenance::{OnTainted, ProvenanceIndex, ProvenanceSettings, check_provenance};
use keel_policy::rules::{
    CallFacts, CheckerRef, CheckerRule, CheckerVerdict, Final, Mode, Policy, RuleOutcome, compose,
};

use crate::checker::{CheckerMode, CheckerSpec, PersistentChecker, run_spawn};
pub use crate::fs_answers::StdResolver;
use crate::fs_answers::{DecisionFs, KnownDir};

/// What one decision works out once for every checker that reads it.
struct DecisionMemo {
    /// The call's effect ([`PolicyGate::call_effect`]): its arguments are read for it once.
    effect: keel_policy::classify::Effect,
    /// The call's path arguments as the default [`PathConfig`] reads them, resolved.
    paths: std::sync::OnceLock<Vec<ResolvedArg>>,
}

/// keel's own tools. A side effect of theirs is wholly in values the gate's other checks judge
/// (a path and its content, a shell command, a subagent's task, computer use's consent), so
/// provenance does not also ask that the user's words ask for some change before them; the
/// tools of MCP servers and of replayed suites, whose effects their names alone say, do.
const KEEL_OWN_TOOLS: &[&str] = &[
    "read_file",
    "list_dir",
    "write_file",
    "edit_file",
    "shell",
    "spawn_task",
    "tool_manual",
    "clarify",
    "computer_use",
];

/// The arguments of keel's own tools that are text the tool writes into a file, never a path
/// it touches: `edit_file`'s `old` and `new` (the file is its `path`). Another tool's `old` and
/// `new` may be a rename's two paths, so only keel's own edit is read this way; the text is
/// still searched by provenance like any content.
const OWN_TOOL_TEXT: &[(&str, &[&str])] = &[("edit_file", &["old", "new"])];

/// `config` with keel's own text arguments of `tool` ([`OWN_TOOL_TEXT`]) excluded from the
/// path checks, as `write_file`'s `content` is.
fn with_own_text(mut config: PathConfig, tool: &str) -> PathConfig {
    if let Some((_, keys)) = OWN_TOOL_TEXT.iter().find(|(name, _)| *name == tool) {
        config
            .excluded
            .extend(keys.iter().map(|key| (*key).to_string()));
    }
    config
}

/// The budget of an in-process checker without its own `timeout_ms` (safety.md N9, N37): the
/// one per-checker default N37 gives, the same as an external checker's.
pub const IN_PROCESS_BUDGET: std::time::Duration = crate::checker::DEFAULT_TIMEOUT;

/// Where and how calls are being decided.
#[derive(Clone, Debug)]
pub struct GateEnv {
    /// The session working directory (N26).
    pub cwd: PathBuf,
    pub workspaces: Vec<PathBuf>,
    pub mode: Mode,
    pub interactive: bool,
    pub on_tainted: OnTainted,
    /// Declarations of the tools on offer, for classification; unknown tools count as
    /// side-effecting.
    pub tools: HashMap<String, ToolInfo>,
}

/// The call being decided, borrowed from whoever proposed it: copied only into an external
/// checker's wire input, since a decision that runs no external checker only reads it.
#[derive(Clone, Copy, Debug)]
pub struct CallRef<'a> {
    pub name: &'a str,
    pub args: &'a serde_json::Value,
    pub id: Option<&'a str>,
}

impl<'a> CallRef<'a> {
    pub fn of(call: &'a FunctionCall) -> Self {
        Self {
            name: &call.name,
            args: &call.args,
            id: call.id.as_deref(),
        }
    }

    fn to_wire(self) -> FunctionCall {
        FunctionCall {
            name: self.name.to_string(),
            args: self.args.clone(),
            id: self.id.map(str::to_string),
        }
    }
}

/// One call to decide, with what the run has seen so far.
#[derive(Clone, Debug)]
pub struct CallToDecide<'a> {
    pub call: CallRef<'a>,
    /// Real user turns and model turns, for `history.turns` (N10).
    pub history: HistorySource<'a>,
    /// Where every value of the conversation came from.
    pub provenance: &'a ProvenanceIndex<'a>,
}

/// Where `history.turns` comes from; it is built only when an external checker needs it.
#[derive(Clone, Debug)]
pub enum HistorySource<'a> {
    Items(&'a [Item]),
    Given(History),
}

impl HistorySource<'_> {
    fn history(&self) -> History {
        match self {
            HistorySource::Items(items) => History {
                turns: history_turns(items, None),
            },
            HistorySource::Given(h) => h.clone(),
        }
    }
}

/// What the policy stages decided, and each checker's verdict for the record.
#[derive(Clone, Debug)]
pub struct PolicyDecision {
    pub rule: RuleOutcome,
    pub checkers: Vec<CheckerVerdict>,
    pub outcome: Final,
}

/// What keel reads off a tool's declaration, once per gate: a tool's name, description and
/// annotations do not change while it is on offer, so neither do these.
#[derive(Clone)]
struct ToolFacts {
    effect: keel_policy::classify::Effect,
    kinds: Vec<keel_policy::authority::ActionKind>,
}

impl ToolFacts {
    fn of(info: &ToolInfo) -> Self {
        Self {
            effect: classify(info),
            kinds: action_kinds(info),
        }
    }
}

/// The kinds of action a tool takes, as the gate holds it to them. keel's own tools take
/// those their names say: what the shell runs, and what the file tools write, is judged by
/// their own checks (the shell decision, allowed paths, guarded paths, provenance's values),
/// so "Run a shell command" in the shell's description asks for no "run" in your words.
pub fn action_kinds(info: &ToolInfo) -> Vec<keel_policy::authority::ActionKind> {
    if KEEL_OWN_TOOLS.contains(&info.name.as_str()) {
        return keel_policy::authority::tool_kinds(&ToolInfo {
            description: String::new(),
            ..info.clone()
        });
    }
    keel_policy::authority::tool_kinds(info)
}

/// Rules + checkers, ready to decide calls.
pub struct PolicyGate {
    /// Swapped whole when a rule is added ("allow for this run"), so a decision holds the
    /// snapshot it read without copying its rules.
    policy: std::sync::RwLock<std::sync::Arc<Policy>>,
    /// [`ToolFacts`] of every declared tool.
    /// Hashed with foldhash: a decision looks a tool up here several times.
    facts: HashMap<String, ToolFacts, foldhash::fast::RandomState>,
    /// Every declared tool, as provenance reads which of them the user asked for.
    offered: Vec<keel_policy::tool_choice::OfferedTool>,
    registry: BTreeMap<String, CheckerSpec>,
    persistent: HashMap<String, PersistentChecker>,
    env: GateEnv,
    /// `cwd` and the workspaces, canonicalized once (N22).
    roots: Vec<PathBuf>,
    /// The same directories as given and as resolved, so a decision resolves a path under one
    /// without walking it from `/` again ([`DecisionFs`]).
    known_dirs: Vec<KnownDir>,
    /// keel's own configuration and data, canonicalized: what the guarded-paths checker asks
    /// about ([`PolicyGate::with_guarded_paths`]).
    guarded: Vec<PathBuf>,
    /// The user's home folder, resolved: its dot-files and dot-folders are guarded too.
    home: Option<PathBuf>,
    /// The folders Git runs hooks from (`core.hooksPath`) in the repositories of `cwd` and
    /// the workspaces, resolved ([`crate::hook_folders`]).
    hook_folders: Vec<PathBuf>,
}

impl PolicyGate {
    /// Which directory (device, inode) the working directory named when this gate was made:
    /// the file tools refuse to act in another ([`crate::tools::ToolContext::cwd_identity`]).
    pub fn cwd_identity(&self) -> Option<(u64, u64)> {
        self.known_dirs
            .iter()
            .find(|k| k.given() == self.env.cwd)
            .map(KnownDir::id)
    }

    pub fn new(policy: Policy, registry: BTreeMap<String, CheckerSpec>, env: GateEnv) -> Self {
        let persistent = registry
            .values()
            .filter(|s| s.mode == CheckerMode::Persistent)
            .map(|s| {
                (
                    s.name.clone(),
                    PersistentChecker::new(s.clone(), env.cwd.clone()),
                )
            })
            .collect();
        let roots = allowed_roots(&env.cwd, &env.workspaces, &StdResolver);
        let known_dirs = std::iter::once(&env.cwd)
            .chain(&env.workspaces)
            .filter_map(|d| KnownDir::of(d))
            .collect();
        let facts: HashMap<String, ToolFacts, foldhash::fast::RandomState> = env
            .tools
            .iter()
            .map(|(name, info)| (name.clone(), ToolFacts::of(info)))
            .collect();
        let offered = env
            .tools
            .iter()
            .map(|(name, info)| {
                keel_policy::tool_choice::OfferedTool::new(
                    name,
                    info.parameters.as_ref(),
                    facts[name].effect == keel_policy::classify::Effect::SideEffecting,
                )
                .with_kinds(&facts[name].kinds)
            })
            .collect();
        let mut hook_folders: Vec<PathBuf> = std::iter::once(&env.cwd)
            .chain(&env.workspaces)
            .flat_map(|d| crate::hook_folders::hook_folders(d))
            .map(|h| {
                keel_policy::paths::resolve(&h.to_string_lossy(), &env.cwd, &StdResolver)
                    .unwrap_or(h)
            })
            .collect();
        hook_folders.dedup();
        Self {
            policy: std::sync::RwLock::new(std::sync::Arc::new(policy)),
            facts,
            offered,
            registry,
            persistent,
            env,
            roots,
            known_dirs,
            guarded: Vec::new(),
            // (An empty or relative HOME is no home: it would be the working directory.)
            home: std::env::var_os("HOME")
                .filter(|h| Path::new(h).is_absolute())
                .and_then(|h| std::fs::canonicalize(h).ok()),
            hook_folders,
        }
    }

    /// The files and folders the guarded-paths checker asks about: keel's own configuration
    /// and data, which the application knows (keel-app's paths). Each is resolved as an
    /// argument's path is — physically, a missing tail appended to its resolved parent — so
    /// one that does not exist yet (a config folder still to be made, under a symlinked home)
    /// is compared in the same form as the paths it guards against.
    pub fn with_guarded_paths(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let here = std::env::current_dir().unwrap_or_default();
        self.guarded = paths
            .into_iter()
            .map(|p| {
                let absolute = here.join(&p);
                keel_policy::paths::resolve(&absolute.to_string_lossy(), &here, &StdResolver)
                    .unwrap_or(absolute)
            })
            .collect();
        self
    }

    /// Restores a resumed run's "allow for this run" and "deny for this run" answers. A
    /// computer-use consent is never an allowance, even where an older keel recorded it so:
    /// each is approved on its own (N8a).
    pub fn restore_answers(&self, approvals: &[keel_store::ApprovalRecord]) {
        for a in approvals {
            let consent = a.call_id.starts_with(keel_computer::CONSENT_CALL_PREFIX);
            match a.answer {
                keel_store::Answer::AllowForRun if !consent => self.allow_for_run(&a.tool),
                keel_store::Answer::DenyForRun => self.deny_for_run(&a.tool),
                _ => {}
            }
        }
    }

    /// Whether the policy removes `tool` from what the model is offered (an unconditional deny).
    pub fn hides_tool(&self, tool: &str) -> bool {
        self.policy
            .read()
            .map(|p| p.hides_tool(tool, self.env.mode))
            .unwrap_or(true)
    }

    /// "Allow for this run": a rule allowing `tool` at priority 3950 from now on (N12). The
    /// checkers still run after it.
    pub fn allow_for_run(&self, tool: &str) {
        if let (Ok(mut policy), Some(rule)) =
            (self.policy.write(), Policy::allow_for_run_rule(tool))
        {
            *policy = std::sync::Arc::new(policy.with_rules(vec![rule]));
        }
    }

    /// "Deny for this run": a rule denying `tool` above every tier from now on, so its later
    /// calls are refused without asking (and it is no longer offered to the model).
    pub fn deny_for_run(&self, tool: &str) {
        if let (Ok(mut policy), Some(rule)) = (self.policy.write(), Policy::deny_for_run_rule(tool))
        {
            *policy = std::sync::Arc::new(policy.with_rules(vec![rule]));
        }
    }

    pub fn env(&self) -> &GateEnv {
        &self.env
    }

    /// A tool's declaration; a tool nobody declared is known by its name alone.
    fn tool_info(&self, name: &str) -> std::borrow::Cow<'_, ToolInfo> {
        match self.env.tools.get(name) {
            Some(info) => std::borrow::Cow::Borrowed(info),
            None => std::borrow::Cow::Owned(ToolInfo {
                name: name.to_string(),
                ..ToolInfo::default()
            }),
        }
    }

    fn tool_facts(&self, name: &str) -> std::borrow::Cow<'_, ToolFacts> {
        match self.facts.get(name) {
            Some(facts) => std::borrow::Cow::Borrowed(facts),
            None => std::borrow::Cow::Owned(ToolFacts::of(&self.tool_info(name))),
        }
    }

    /// The call's effect: its tool's, or side-effecting where its arguments say it acts
    /// ([`keel_policy::arguments::call_effect`]).
    fn call_effect(&self, c: &CallToDecide<'_>) -> keel_policy::classify::Effect {
        keel_policy::arguments::call_effect(
            c.call.name,
            self.tool_facts(c.call.name).effect,
            c.call.args,
        )
    }

    fn input(&self, c: &CallToDecide<'_>) -> SafetyCheckInput {
        SafetyCheckInput {
            protocol_version: PROTOCOL_VERSION.into(),
            tool_call: c.call.to_wire(),
            context: CheckContext {
                environment: Some(Environment {
                    cwd: self.env.cwd.display().to_string(),
                    workspaces: self
                        .env
                        .workspaces
                        .iter()
                        .map(|w| w.display().to_string())
                        .collect(),
                }),
                history: Some(c.history.history()),
                keel_tool_results: Vec::new(),
            },
            config: None,
        }
    }

    /// The call's path arguments as the default [`PathConfig`] reads them, resolved once for
    /// the decision: both path checkers read them.
    fn default_paths<'p>(
        &self,
        c: &CallToDecide<'_>,
        fs: &(dyn PathResolver + Sync),
        memo: &'p DecisionMemo,
    ) -> &'p [ResolvedArg] {
        memo.paths.get_or_init(|| {
            let config = with_own_text(PathConfig::default(), c.call.name);
            resolve_path_args(c.call.args, &config, &self.env.cwd, fs)
        })
    }

    fn run_in_process(
        &self,
        rule: &CheckerRule,
        name: &str,
        c: &CallToDecide<'_>,
        fs: &(dyn PathResolver + Sync),
        memo: &DecisionMemo,
    ) -> SafetyCheckResult {
        match name {
            "allowed-path" => {
                // Inline: handing the check to another thread costs several times the check.
                // It cannot be preempted, so an overrun is judged when it returns: a decision
                // that took longer than the budget is a deny (N9).
                let budget = rule
                    .timeout_ms
                    .map_or(IN_PROCESS_BUDGET, std::time::Duration::from_millis);
                if fs.directory_replaced(&self.env.cwd) {
                    return SafetyCheckResult::deny(format!(
                        "The working directory {} is no longer the directory this run started in: it was moved, deleted or replaced (by a link, say), so nothing runs there. Start keel again in the folder you mean.",
                        self.env.cwd.display()
                    ));
                }
                let start = std::time::Instant::now();
                let config = PathConfig::from_value(rule.config.as_ref());
                let own;
                let resolved = if config == PathConfig::default() {
                    self.default_paths(c, fs, memo)
                } else {
                    let config = with_own_text(config, c.call.name);
                    own = resolve_path_args(c.call.args, &config, &self.env.cwd, fs);
                    &own
                };
                let result = check_resolved_paths(c.call.args, resolved, &self.roots, fs);
                if start.elapsed() > budget {
                    return SafetyCheckResult::deny(format!(
                        "Failed to run in-process checker \"allowed-path\": timed out after {}ms",
                        budget.as_millis()
                    ));
                }
                result
            }
            "guarded-paths" => {
                let budget = rule
                    .timeout_ms
                    .map_or(IN_PROCESS_BUDGET, std::time::Duration::from_millis);
                let start = std::time::Instant::now();
                let result = check_guarded_resolved(
                    self.default_paths(c, fs, memo),
                    &self.guarded,
                    self.home.as_deref(),
                    &self.hook_folders,
                    memo.effect == keel_policy::classify::Effect::SideEffecting,
                    fs,
                );
                if start.elapsed() > budget {
                    return SafetyCheckResult::deny(format!(
                        "Failed to run in-process checker \"guarded-paths\": timed out after {}ms",
                        budget.as_millis()
                    ));
                }
                result
            }
            "provenance" => {
                let config = rule.config.as_ref();
                let on_tainted = match config
                    .and_then(|v| v.get("on_tainted"))
                    .and_then(|v| v.as_str())
                {
                    Some("deny") => OnTainted::Deny,
                    Some(_) => OnTainted::AskUser,
                    None => self.env.on_tainted,
                };
                // On unless set off; a value that is not a boolean (the CLI refuses it at load)
                // is the stricter rule.
                let named_records = match config.and_then(|v| v.get("named_records")) {
                    None => true,
                    Some(v) => v.as_bool() == Some(true),
                };
                let structured = |tool: &str| {
                    self.env
                        .tools
                        .get(tool)
                        .is_some_and(|t| t.structured_output)
                };
                let info = self.tool_info(c.call.name);
                let facts = self.tool_facts(c.call.name);
                let settings = ProvenanceSettings {
                    on_tainted,
                    structured_tools: named_records.then_some(&structured as &dyn Fn(&str) -> bool),
                    action_kinds: &facts.kinds,
                    change_request: !KEEL_OWN_TOOLS.contains(&c.call.name),
                    description: &info.description,
                    offered: &self.offered,
                };
                let budget = rule
                    .timeout_ms
                    .map_or(IN_PROCESS_BUDGET, std::time::Duration::from_millis);
                let start = std::time::Instant::now();
                let result = check_provenance(
                    memo.effect,
                    c.call.name,
                    c.call.args,
                    info.parameters.as_ref(),
                    c.provenance,
                    settings,
                );
                if start.elapsed() > budget {
                    return SafetyCheckResult::deny(format!(
                        "Failed to run in-process checker \"provenance\": timed out after {}ms",
                        budget.as_millis()
                    ));
                }
                result
            }
            other => SafetyCheckResult::deny(format!(
                "Failed to run in-process checker \"{other}\": no such checker"
            )),
        }
    }

    fn run_checker(
        &self,
        rule: &CheckerRule,
        input: Option<&SafetyCheckInput>,
        c: &CallToDecide<'_>,
        fs: &(dyn PathResolver + Sync),
        memo: &DecisionMemo,
    ) -> CheckerVerdict {
        match &rule.checker {
            CheckerRef::InProcess(name) => {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.run_in_process(rule, name, c, fs, memo)
                }));
                match outcome {
                    Ok(r) => CheckerVerdict {
                        checker: name.clone(),
                        decision: r.decision,
                        reason: r.reason,
                        failure: None,
                    },
                    Err(_) => CheckerVerdict {
                        checker: name.clone(),
                        decision: Decision::Deny,
                        reason: Some(format!(
                            "Failed to run in-process checker \"{name}\": it panicked"
                        )),
                        failure: Some("in_process"),
                    },
                }
            }
            CheckerRef::External(name) => {
                let built;
                let input = match input {
                    Some(i) => i,
                    None => {
                        built = self.input(c);
                        &built
                    }
                };
                let input = input.restricted(rule.required_context.as_deref(), rule.config.clone());
                match (self.registry.get(name), self.persistent.get(name)) {
                    (Some(_), Some(p)) => p.check(&input),
                    (Some(spec), None) => run_spawn(spec, &input, &self.env.cwd),
                    (None, _) => CheckerVerdict {
                        checker: name.clone(),
                        decision: Decision::Deny,
                        reason: Some(format!(
                            "Failed to run safety checker \"{name}\": it is not registered"
                        )),
                        failure: Some("resolution"),
                    },
                }
            }
        }
    }

    /// Rules, then checkers unless the rules denied (N16); checkers run concurrently and their
    /// verdicts are folded in priority order (N37).
    pub fn decide(&self, c: &CallToDecide<'_>) -> PolicyDecision {
        let info = self.tool_info(c.call.name);
        let facts = CallFacts {
            tool: c.call.name,
            args: c.call.args,
            mode: self.env.mode,
            interactive: self.env.interactive,
            annotations: info.annotations.as_ref(),
            effect: self.call_effect(c),
            args_text: Default::default(),
            parameters: info.parameters.as_ref(),
        };
        // The policy is read once per call: rules and checker rules from the same snapshot.
        let snapshot = self
            .policy
            .read()
            .map(|p| std::sync::Arc::clone(&p))
            .map_err(|_| ());
        let (rule, matching) = match &snapshot {
            Ok(policy) => (
                policy.rule_decision(&facts),
                policy.matching_checkers(&facts),
            ),
            Err(_) => (
                RuleOutcome {
                    decision: Decision::Deny,
                    reason: Some("Tool execution denied: the policy is unavailable.".into()),
                    rule: None,
                },
                Vec::new(),
            ),
        };
        if rule.decision == Decision::Deny {
            let outcome = compose(&rule, &[]);
            return PolicyDecision {
                rule,
                checkers: Vec::new(),
                outcome,
            };
        }
        // The wire input (with history) is built only for external checkers, once; several
        // external checkers run concurrently, one runs inline.
        let externals = matching
            .iter()
            .filter(|r| matches!(r.checker, CheckerRef::External(_)))
            .count();
        let input = (externals > 0).then(|| self.input(c));
        let fs = DecisionFs::new(&self.known_dirs);
        let memo = DecisionMemo {
            effect: facts.effect,
            paths: std::sync::OnceLock::new(),
        };
        let checkers: Vec<CheckerVerdict> = if externals > 1 {
            std::thread::scope(|scope| {
                let handles: Vec<_> = matching
                    .iter()
                    .map(|r| scope.spawn(|| self.run_checker(r, input.as_ref(), c, &fs, &memo)))
                    .collect();
                handles
                    .into_iter()
                    .zip(&matching)
                    .map(|(h, r)| {
                        h.join().unwrap_or_else(|_| CheckerVerdict {
                            checker: r.checker.name().to_string(),
                            decision: Decision::Deny,
                            reason: Some(format!(
                                "Failed to run safety checker \"{}\": it panicked",
                                r.checker.name()
                            )),
                            failure: Some("resolution"),
                        })
                    })
                    .collect()
            })
        } else {
            matching
                .iter()
                .map(|r| self.run_checker(r, input.as_ref(), c, &fs, &memo))
                .collect()
        };
        let outcome = compose(&rule, &checkers);
        PolicyDecision {
            rule,
            checkers,
            outcome,
        }
    }
}
