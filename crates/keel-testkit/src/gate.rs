//! Gates as tests build them: rules over tool names, the environment a session in one
//! directory has, keel's gate over a policy, and external checkers run from scripts.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use keel_policy::Decision;
use keel_policy::classify::ToolInfo;
use keel_policy::provenance::OnTainted;
use keel_policy::rules::{Matcher, Mode, Policy, Rule, RuleOrigin, tool_glob};
use keel_runtime::checker::CheckerSpec;
use keel_runtime::gate::Gate;
use keel_runtime::policy_gate::{GateEnv, PolicyGate};

/// A matcher on tool names (globs such as `write_*`) and nothing else.
pub fn matcher(tools: &[&str]) -> Matcher {
    Matcher {
        tool_names: tools
            .iter()
            .map(|t| tool_glob(t).unwrap_or_else(|e| panic!("{t}: {e}")))
            .collect(),
        ..Matcher::default()
    }
}

/// A rule deciding `decision` for `tools` at `priority`, from `source` (which reasons name).
/// It comes from the user's own configuration, whatever its priority: an `allow` is never
/// capped, and a deny or ask_user caps a workspace file's `allow` (safety.md N46).
pub fn rule(tools: &[&str], decision: Decision, priority: i64, source: &str) -> Rule {
    Rule {
        matcher: matcher(tools),
        decision,
        priority,
        deny_message: None,
        source: source.to_string(),
        origin: RuleOrigin::User,
    }
}

/// A session in `cwd` with no other workspace, in the default mode, asking about tainted
/// values, knowing `tools`' declarations.
pub fn gate_env(cwd: &Path, interactive: bool, tools: HashMap<String, ToolInfo>) -> GateEnv {
    GateEnv {
        cwd: cwd.to_path_buf(),
        workspaces: vec![],
        mode: Mode::Default,
        interactive,
        on_tainted: OnTainted::AskUser,
        tools,
    }
}

/// keel's gate: authority, then `policy` with the external checkers of `registry`, in `env`.
pub fn gate(policy: Policy, registry: BTreeMap<String, CheckerSpec>, env: GateEnv) -> Gate {
    Gate::authority_only()
        .with_policy(PolicyGate::new(policy, registry, env))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The external checker `name` running `program`, a script (written with
/// [`crate::write_script`]), on a generous budget: a loaded CI machine can be slow to start
/// `/bin/sh`, and a test about timing out shortens it.
///
/// Scripts run as `/bin/sh SCRIPT`: executing a file that was just written races with other
/// tests' forks holding its write handle (ETXTBSY). The runner still spawns `/bin/sh`
/// directly, with no shell in between; a test of a direct exec sets `command` itself.
pub fn checker_spec(name: &str, program: &Path) -> CheckerSpec {
    let mut spec = CheckerSpec::new(name, vec!["/bin/sh".into(), program.display().to_string()]);
    spec.timeout = Duration::from_secs(10);
    spec.kill_grace = Duration::from_millis(200);
    spec
}
