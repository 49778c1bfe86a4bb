//! `keel check [--policy FILE]` (interfaces.md §5.4): keel's whole gate as an external checker
//! for other agents. One SafetyCheckInput on stdin, one SafetyCheckResult on stdout. It never
//! prompts and never converts: ask_user is printed as ask_user, with its reasons.

use std::collections::HashMap;
use std::path::PathBuf;

use keel_policy::Decision;
use keel_policy::protocol::{SafetyCheckInput, SafetyCheckResult};
use keel_policy::provenance::{OnTainted, ProvenanceIndex};
use keel_policy::rules::Mode;
use keel_runtime::policy_gate::{CallRef, CallToDecide, GateEnv, PolicyGate};

use keel_app::config::{self, Sources};
use keel_app::policy::{CompiledPolicy, compile_or_deny, denying};

/// The policy `keel check` and `keel eval` use: the built-in default policy, `--policy` files
/// at the workspace tier, and the user's and the admin's own files (where checkers are
/// registered). A file that fails to load makes every call deny (N34), saying why.
pub fn load_policy(policy_files: &[PathBuf], include_user: bool) -> CompiledPolicy {
    let standard = Sources::standard(&[]);
    compile_sources(&Sources {
        workspace: policy_files.to_vec(),
        user: if include_user { standard.user } else { None },
        admin_dir: if include_user {
            standard.admin_dir
        } else {
            None
        },
    })
}

/// The policy of the given files; a file that fails makes every call deny, saying why.
pub fn compile_sources(sources: &Sources) -> CompiledPolicy {
    let config = match config::load(sources) {
        Ok(c) => c,
        Err(e) => {
            return denying(keel_policy::rules::Policy::failed(
                &e.path.display().to_string(),
                &e.message,
            ));
        }
    };
    for warning in &config.warnings {
        crate::out::say(&format!("warning: {warning}"));
    }
    compile_or_deny(&config)
}

/// Result of one check, as printed.
pub fn result_of(decision: Decision, reasons: &[String]) -> SafetyCheckResult {
    match decision {
        Decision::Allow => SafetyCheckResult::allow(),
        Decision::Deny => SafetyCheckResult::deny(reasons.join("; ")),
        Decision::AskUser => SafetyCheckResult::ask(reasons.join("; ")),
    }
}

/// Runs the check; `Err` is bad input (exit 2).
pub fn check(stdin: &[u8], policy: CompiledPolicy) -> Result<SafetyCheckResult, String> {
    let text = std::str::from_utf8(stdin).map_err(|_| "input is not valid UTF-8".to_string())?;
    let input: SafetyCheckInput = serde_json::from_str(text).map_err(|e| {
        format!("input is not a SafetyCheckInput ({e}); see docs/safety.md, \"keel check\", for its fields and an example")
    })?;
    if !input.tool_call.args.is_object() {
        return Err("toolCall.args must be a JSON object".to_string());
    }
    if input.protocol_version != keel_policy::protocol::PROTOCOL_VERSION {
        return Err(format!(
            "unsupported protocolVersion {:?}; keel speaks 1.0.0",
            input.protocol_version
        ));
    }
    // No tool is named with a control character, and a rule's `*` does not stand for a line
    // feed: such a name is refused here, as a run refuses a call of a tool it did not offer
    // (an outsider's round 25: "write_file\n" under a deny of `write_*` was asked about).
    if let Some(c) = input.tool_call.name.chars().find(|c| c.is_control()) {
        return Ok(SafetyCheckResult::deny(format!(
            "The tool name holds a control character (U+{:04X}): no tool is named so.",
            u32::from(c)
        )));
    }
    let (cwd, workspaces) = match &input.context.environment {
        Some(env) => (
            PathBuf::from(&env.cwd),
            env.workspaces.iter().map(PathBuf::from).collect(),
        ),
        None => (
            std::env::current_dir().map_err(|e| e.to_string())?,
            Vec::new(),
        ),
    };
    // Gemini CLI's SafetyCheckInput carries no tool results: without keel's extension the
    // user's turns are all provenance knows.
    let mut provenance = ProvenanceIndex::default();
    let history = input.context.history.clone().unwrap_or_default();
    for turn in &history.turns {
        provenance.push_user(&turn.user.text);
    }
    // keel's extension: the tool results the agent saw are data, so values taken from them
    // count as tainted here as they do in keel's own runs.
    for seen in &input.context.keel_tool_results {
        provenance.push_untrusted(
            &format!("the result of tool {} (call {})", seen.tool, seen.call_id),
            &seen.output,
        );
    }
    let guarded = keel_app::paths::guarded_paths(&cwd, &workspaces, &[], None);
    let gate = PolicyGate::new(
        policy.policy,
        policy.registry,
        GateEnv {
            cwd,
            workspaces,
            mode: Mode::Default,
            interactive: true,
            on_tainted: OnTainted::AskUser,
            tools: HashMap::new(),
        },
    )
    .with_guarded_paths(guarded);
    let decision = gate.decide(&CallToDecide {
        call: CallRef::of(&input.tool_call),
        history: keel_runtime::policy_gate::HistorySource::Given(history),
        provenance: &provenance,
    });
    Ok(result_of(
        decision.outcome.decision,
        &decision.outcome.reasons,
    ))
}
