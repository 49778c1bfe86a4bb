//! `keel run "TASK"` and `keel runs resume ID` (interfaces.md §5.1): one agent turn on a run,
//! with the whole gate, durable at every step.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use keel_core::ItemId;
use keel_core::legacy::CallerField;
use keel_core::policy::provenance::OnTainted;
use keel_core::policy::rules::Mode;
use keel_mcp::{McpClient, ServerConfig};
use keel_model::Model;
use keel_runtime::agent::{Agent, DEFAULT_INSTRUCTIONS, Event, LoopSettings};
use keel_runtime::approval::{Approver, RecordingApprover, TerminalApprover};
use keel_runtime::gate::Gate;
use keel_runtime::mcp::{is_server_name, server_tools};
use keel_runtime::policy_gate::{GateEnv, PolicyGate};
use keel_runtime::tasks::{RespondPermission, SpawnTask, TaskHub};
use keel_runtime::tools::{ToolContext, Toolbox};
use keel_store::{
    CallerMessage, SqliteStore, StartRun, Store, StoreOptions, start_run_from_caller,
};

use crate::config::Config;
use crate::linefeed::{LineFeed, Next};
use crate::models::{model_for, model_spec};
use crate::{ids, policy};

/// The flags `keel run` and `keel runs resume` share.
#[derive(clap::Args, Clone, Debug)]
pub struct RunFlags {
    /// local | local:PATH.gguf | openai:MODEL | script:FILE. Default: the run's own model
    /// (when resuming), else `[model] name`, else local.
    #[arg(long)]
    pub model: Option<String>,
    /// OpenAI-compatible base URL, including /v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The session working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// ask: a person answers ask_user; deny: ask_user is a deny. Default: ask on a terminal.
    #[arg(long, value_parser = ["ask", "deny"])]
    pub approval: Option<String>,
    /// default | plan | yolo (autoEdit is default).
    #[arg(long, value_parser = ["default", "plan", "yolo", "autoEdit"])]
    pub mode: Option<String>,
    /// Add FILE at the workspace tier of the configuration.
    #[arg(long, value_name = "FILE")]
    pub policy: Vec<PathBuf>,
    /// The preset: system prompt, tools, mode. Default: the run's own preset (when resuming),
    /// else `default`.
    #[arg(long)]
    pub preset: Option<String>,
    /// Model calls per turn.
    #[arg(long, default_value_t = keel_runtime::agent::DEFAULT_STEP_LIMIT)]
    pub step_limit: usize,
}

/// Ctrl-C asks the loop to stop at the next step; a second Ctrl-C leaves at once (the store
/// keeps everything committed, and `keel runs resume` recovers either way).
fn cancel_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: std::sync::OnceLock<std::sync::Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = std::sync::Arc::new(AtomicBool::new(false));
        let seen = flag.clone();
        let _ = ctrlc::set_handler(move || {
            if seen.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\nkeel: stopping after the current step (Ctrl-C again to leave now)");
        });
        flag
    })
    .clone()
}

/// What to print and how to exit when a turn was cancelled.
fn cancelled(run: &str) -> ExitCode {
    eprintln!("keel: cancelled; everything so far is saved. `keel runs resume {run}` continues.");
    ExitCode::from(130)
}

/// Whether a person can answer ask_user (interfaces.md §3): `--approval`, else a terminal.
pub fn interactive(flag: Option<&str>, stdin_is_terminal: bool) -> bool {
    match flag {
        Some("ask") => true,
        Some(_) => false,
        None => stdin_is_terminal,
    }
}

pub(crate) struct Session {
    pub(crate) store: SqliteStore,
    model: Box<dyn Model + Send>,
    pub(crate) model_spec: String,
    pub(crate) preset: String,
    gate: Gate,
    tools: Toolbox,
    cwd: PathBuf,
    interactive: bool,
    pub(crate) settings: LoopSettings,
    /// This process's background tasks (those this session's run spawned).
    pub(crate) hub: TaskHub,
    /// Computer use, when `[computer_use]` is configured.
    pub(crate) computer: Option<keel_runtime::computer::ComputerHub>,
}

/// Whom a session serves: a person (with `spawn_task` and `respond_permission` on offer), or
/// a background task of another run (asking through the parent, and spawning nothing).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Person,
    Task,
}

/// Sets up a session; `existing` is the run it continues, whose recorded model is the default.
pub(crate) fn session(
    config: &Config,
    flags: &RunFlags,
    db: &std::path::Path,
    options: &StoreOptions,
    existing: Option<&str>,
    role: Role,
) -> Result<Session> {
    let store = SqliteStore::open(db, options)?;
    let recorded = match existing {
        Some(run) => Some(store.run_head(run)?),
        None => None,
    };
    let model_spec = model_spec(
        config,
        flags.model.as_deref(),
        recorded.as_ref().map(|h| h.model.as_str()),
    );
    let preset_name = flags
        .preset
        .clone()
        .or_else(|| recorded.map(|h| h.preset))
        .unwrap_or_else(|| "default".into());
    let cwd = match &flags.cwd {
        Some(d) => d
            .canonicalize()
            .with_context(|| format!("--cwd {}", d.display()))?,
        None => std::env::current_dir()?,
    };
    let preset = config.presets.get(&preset_name);
    if preset_name != "default" && preset.is_none() {
        bail!(
            "no preset named {preset_name:?}; define [presets.{preset_name}] in keel.toml or your config"
        );
    }
    let mode_name = flags
        .mode
        .clone()
        .or_else(|| preset.and_then(|p| p.mode.clone()))
        .or_else(|| config.mode.clone())
        .unwrap_or_else(|| "default".into());
    let mode = Mode::parse(&mode_name).with_context(|| format!("unknown mode {mode_name:?}"))?;
    let interactive = interactive(
        flags.approval.as_deref().or(config.approval.as_deref()),
        std::io::stdin().is_terminal(),
    );
    let compiled = policy::compile(config).unwrap_or_else(|e| policy::CompiledPolicy {
        policy: e.as_policy(),
        registry: Default::default(),
    });
    let mut tools = Toolbox::builtin();
    add_mcp_tools(&mut tools, config, &cwd);
    let hub = TaskHub::default();
    // Computer use serves the person's own run; a background task gets none (one desktop
    // session per owner, and consent must reach the person directly).
    let computer = match role {
        Role::Person => crate::computer::hub(config, db, options, crate::ids::now)?,
        Role::Task => None,
    };
    if let Some(c) = &computer {
        for tool in c.tools() {
            tools.add(tool);
        }
    }
    if role == Role::Person {
        let spawner = crate::tasks::spawner(config, flags, db, options, &hub);
        tools.add(Box::new(SpawnTask::new(spawner)));
        tools.add(Box::new(RespondPermission::new(hub.clone())));
    }
    if let Some(names) = preset.and_then(|p| p.tools.clone()) {
        let unknown: Vec<&str> = names
            .iter()
            .filter(|n| tools.get(n).is_none())
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            eprintln!(
                "keel: [presets.{preset_name}] tools names tools keel does not have, so they are not \
                 offered: {}",
                unknown.join(", ")
            );
        }
        tools.retain(&names);
    }
    let env = GateEnv {
        cwd: cwd.clone(),
        workspaces: vec![],
        mode,
        interactive,
        on_tainted: OnTainted::AskUser,
        tools: tools.infos(),
    };
    let stages = computer.iter().map(|c| c.stage()).collect();
    let gate =
        Gate::new(stages)?.with_policy(PolicyGate::new(compiled.policy, compiled.registry, env))?;
    let mut base = DEFAULT_INSTRUCTIONS.to_string();
    if let Some(prompt) = preset.and_then(|p| p.system_prompt.clone()) {
        base = format!("{base}\n\n{prompt}");
    }
    let mut model = model_for(&model_spec, config, flags.base_url.as_deref())?;
    // Ctrl-C also stops a model call in flight, not only the next step.
    model.watch_cancel(cancel_flag());
    Ok(Session {
        store,
        model,
        model_spec,
        preset: preset_name,
        gate,
        tools,
        cwd,
        interactive,
        settings: LoopSettings {
            base_instructions: base,
            step_limit: flags.step_limit,
            max_untagged_notes: config.max_untagged_notes(),
            cancel: Some(cancel_flag()),
            compaction: config.compaction(),
            ..LoopSettings::default()
        },
        hub,
        computer,
    })
}

/// Starts every `[mcp_servers.NAME]` and offers its tools. A server that does not start is
/// named on stderr with why, and the run goes on without its tools: one broken server should
/// not stop every run, and nothing is left out without saying so.
fn add_mcp_tools(tools: &mut Toolbox, config: &Config, cwd: &Path) {
    for (name, server) in &config.mcp_servers {
        if !is_server_name(name) {
            eprintln!(
                "keel: [mcp_servers.{name}] is not started: a server's name may hold only ASCII \
                 letters, digits, '_' and '-' (no '__'), so its tools can be named \
                 mcp__{{server}}__{{tool}}; rename the table"
            );
            continue;
        }
        let mut settings = ServerConfig::new(name, &server.command);
        settings.args = server.args.clone();
        settings.env = server.env.clone();
        settings.cwd = Some(cwd.to_path_buf());
        if let Some(secs) = server.start_timeout_secs {
            settings.start_timeout = Duration::from_secs(secs);
        }
        if let Some(secs) = server.call_timeout_secs {
            settings.call_timeout = Duration::from_secs(secs);
        }
        match McpClient::start(settings).and_then(server_tools) {
            Ok((list, skipped)) => {
                tracing::info!(server = %name, tools = list.len(), "MCP server started");
                for tool in list {
                    tools.add(tool);
                }
                if !skipped.is_empty() {
                    eprintln!(
                        "keel: MCP server {name:?}: not offered, because a model API would refuse \
                         their names: {}",
                        skipped.join(", ")
                    );
                }
            }
            Err(e) => eprintln!("keel: {e}; its tools are not offered in this run"),
        }
    }
}

fn print_event(e: Event) {
    match e {
        Event::Text(t) => {
            print!("{t}");
            let _ = std::io::stdout().flush();
        }
        Event::ToolCall {
            call,
            decision,
            reason,
        } => {
            eprintln!(
                "\n→ {} {}: {decision}{}",
                call.name,
                call.arguments,
                reason.map(|r| format!(" — {r}")).unwrap_or_default()
            );
        }
        Event::ToolResult {
            call_id,
            is_error,
            chars,
        } => {
            eprintln!(
                "  {call_id}: {} ({chars} chars)",
                if is_error { "error" } else { "done" }
            );
        }
        // Notices quote what others wrote (servers, tasks): never raw control characters.
        Event::Notice(n) => eprintln!("keel: {}", keel_runtime::approval::terminal_safe(&n)),
    }
}

fn item_ids() -> impl FnMut() -> ItemId {
    move || ItemId::try_from(ids::unique("item")).unwrap_or_else(|_| unreachable!())
}

/// Runs `f` with an agent on the session. ask_user reads answers from `input`, which the
/// caller keeps between calls (`keel chat` reads the user's lines from it too).
fn with_agent<T>(
    s: &mut Session,
    input: &mut dyn std::io::BufRead,
    run: &str,
    f: impl FnOnce(&mut Agent<'_>) -> Result<T, keel_runtime::agent::LoopError>,
) -> Result<T> {
    let terminal = TerminalApprover::new(input, std::io::stderr());
    with_approver(s, terminal, run, print_event, f)
}

/// Runs `f` with an agent on the session whose ask_user goes to `approver` (when the
/// session is interactive), each answer recorded with the run.
pub(crate) fn with_approver<T, A: Approver>(
    s: &mut Session,
    approver: A,
    run: &str,
    mut events: impl FnMut(Event),
    f: impl FnOnce(&mut Agent<'_>) -> Result<T, keel_runtime::agent::LoopError>,
) -> Result<T> {
    let mut next_id = item_ids();
    // The agent writes the run; answers are recorded through a second connection.
    let db = s.store.path().to_path_buf();
    let mut answers_store = SqliteStore::open(&db, &StoreOptions::default())?;
    let mut recording = RecordingApprover::new(approver, &mut answers_store, run, ids::now);
    let approver: Option<&mut dyn Approver> = if s.interactive {
        Some(&mut recording)
    } else {
        None
    };
    let mut agent = Agent {
        store: &mut s.store,
        model: s.model.as_mut(),
        gate: &s.gate,
        tools: &s.tools,
        tool_context: ToolContext::new(s.cwd.clone()),
        approver,
        settings: s.settings.clone(),
        clock: ids::now,
        next_id: &mut next_id,
        events: &mut events,
        cache: keel_runtime::agent::TurnCache::default(),
    };
    f(&mut agent).map_err(anyhow::Error::from)
}

fn is_cancelled(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<keel_runtime::agent::LoopError>(),
        Some(keel_runtime::agent::LoopError::Cancelled)
    )
}

fn report_end(s: &Session, run: &str, end: Option<keel_runtime::agent::TurnEnd>) {
    println!();
    if let Some(used) = end.as_ref().and_then(|e| e.usage) {
        eprintln!(
            "keel: {} prompt + {} completion tokens this turn",
            used.prompt_tokens, used.completion_tokens
        );
    }
    if end.is_some_and(|e| e.hit_step_limit) {
        eprintln!(
            "keel: stopped at the step limit ({}); `keel runs resume {run}` continues",
            s.settings.step_limit
        );
    }
}

fn stdin_reader() -> std::io::BufReader<std::io::Stdin> {
    std::io::BufReader::new(std::io::stdin())
}

/// `--history FILE.jsonl`, read and validated before anything is written (system-notes.md
/// N13): a role-`system` line is refused with its index.
fn read_history(history: Option<&Path>) -> Result<Vec<CallerMessage>> {
    let messages = match history {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read --history {}", path.display()))?;
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| CallerMessage::from_json_line(l, i))
                .collect::<Result<Vec<_>, _>>()?
        }
        None => Vec::new(),
    };
    keel_core::legacy::check_caller_roles(
        CallerField::SeedMessages,
        messages.iter().map(|m| m.role.as_str()),
    )
    .map_err(keel_store::StoreError::from)?;
    Ok(messages)
}

/// `keel run "TASK"`.
pub fn run(
    config: &Config,
    flags: &RunFlags,
    task: &str,
    instructions: Option<String>,
    history: Option<PathBuf>,
    db: &std::path::Path,
    options: &StoreOptions,
) -> Result<ExitCode> {
    let messages = read_history(history.as_deref())?;
    let mut s = session(config, flags, db, options, None, Role::Person)?;
    let run_id = ids::unique("run");
    let mut next_id = item_ids();
    start_run_from_caller(
        &mut s.store,
        StartRun {
            model: s.model_spec.clone(),
            id: run_id.clone(),
            preset: s.preset.clone(),
            now: ids::now(),
            field: CallerField::SeedMessages,
            messages,
            instructions,
        },
        &mut next_id,
    )?;
    let mut input = stdin_reader();
    let end = match with_agent(&mut s, &mut input, &run_id, |a| a.user_turn(&run_id, task)) {
        Err(e) if is_cancelled(&e) => return Ok(cancelled(&run_id)),
        other => other?,
    };
    report_end(&s, &run_id, Some(end));
    settle_tasks(&mut s, &mut input, &run_id)?;
    eprintln!("keel: run {run_id} (keel runs show {run_id})");
    Ok(ExitCode::SUCCESS)
}

/// N41: a desktop lease the run's last process left held is released, and said.
pub(crate) fn release_stale_lease(s: &Session, run: &str) {
    if let Some(window) = s.computer.as_ref().and_then(|c| c.release_stale(run)) {
        eprintln!(
            "keel: the desktop lease on window {:?} was left by a process that is gone; released \
             (recorded with the run)",
            keel_runtime::approval::terminal_safe(&window)
        );
    }
}

/// `keel runs resume ID`.
pub fn resume(
    config: &Config,
    flags: &RunFlags,
    run_id: &str,
    db: &std::path::Path,
    options: &StoreOptions,
) -> Result<ExitCode> {
    let mut s = session(config, flags, db, options, Some(run_id), Role::Person)?;
    crate::tasks::report_orphaned_tasks(&mut s.store, &s.hub, run_id)?;
    release_stale_lease(&s, run_id);
    // "Allow for this run" answers given before still hold.
    if let Some(policy) = s.gate.policy() {
        policy.restore_answers(&s.store.approvals(run_id)?);
    }
    let mut input = stdin_reader();
    let end = match with_agent(&mut s, &mut input, run_id, |a| {
        a.recover(run_id)?;
        let end = if a.store.run_head(run_id)?.turn_open {
            Some(a.continue_turn(run_id)?)
        } else {
            None
        };
        a.deliver_notifications(run_id)?;
        Ok(end)
    }) {
        Err(e) if is_cancelled(&e) => return Ok(cancelled(run_id)),
        other => other?,
    };
    report_end(&s, run_id, end);
    settle_tasks(&mut s, &mut input, run_id)?;
    eprintln!("keel: run {run_id} (keel runs show {run_id})");
    Ok(ExitCode::SUCCESS)
}

fn is_set(flag: &Option<std::sync::Arc<std::sync::atomic::AtomicBool>>) -> bool {
    flag.as_ref()
        .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
}

/// How often a process that waits for its background tasks looks at the queue.
const TASK_POLL: Duration = Duration::from_millis(200);

/// Before `keel run` (or `resume`) exits: waits for the background tasks it started and
/// delivers what they send, one notification turn each. `keel run` takes no further user
/// turn, so nobody could answer a task's permission request: each is denied as soon as it is
/// seen, and the person is told to use `keel chat` for tasks that need answers.
fn settle_tasks(s: &mut Session, input: &mut dyn std::io::BufRead, run: &str) -> Result<()> {
    let mut announced = false;
    loop {
        if is_set(&s.settings.cancel) {
            // Ctrl-C stops the tasks too, at their next step; what they send stays queued
            // for `keel runs resume`.
            while s.hub.running(run) > 0 {
                // A task waiting for an answer would otherwise wait out its timeout.
                for request in s.hub.waiting_requests(run) {
                    let _ = s.hub.answer(run, &request, keel_store::Answer::Deny);
                }
                s.hub.wait_for_change(TASK_POLL);
            }
            return Ok(());
        }
        with_agent(s, input, run, |a| a.deliver_notifications(run))?;
        for request in s.hub.waiting_requests(run) {
            if s.hub
                .answer(run, &request, keel_store::Answer::Deny)
                .is_ok()
            {
                eprintln!(
                    "keel: a background task's permission request {request} was denied: `keel \
                     run` takes no further turn from you to answer it (use `keel chat` for tasks \
                     that need your answers)"
                );
            }
        }
        let running = s.hub.running(run);
        if running == 0 {
            // What the last task sent on its way out.
            with_agent(s, input, run, |a| a.deliver_notifications(run))?;
            return Ok(());
        }
        if !announced {
            eprintln!("keel: waiting for {running} background task(s) to finish");
            announced = true;
        }
        s.hub.wait_for_change(TASK_POLL);
    }
}

/// `keel chat`: a conversation on one run, turn after turn. Notifications are delivered as
/// they arrive, between turns and while it waits for the person's next line; `/quit` or end of
/// input leaves, after the background tasks the run started have ended.
pub fn chat(
    config: &Config,
    flags: &RunFlags,
    existing: Option<String>,
    instructions: Option<String>,
    history: Option<PathBuf>,
    db: &std::path::Path,
    options: &StoreOptions,
) -> Result<ExitCode> {
    let messages = read_history(history.as_deref())?;
    let mut s = session(
        config,
        flags,
        db,
        options,
        existing.as_deref(),
        Role::Person,
    )?;
    let run_id = match existing {
        Some(id) => {
            if let Some(policy) = s.gate.policy() {
                policy.restore_answers(&s.store.approvals(&id)?);
            }
            crate::tasks::report_orphaned_tasks(&mut s.store, &s.hub, &id)?;
            release_stale_lease(&s, &id);
            id
        }
        None => {
            let id = ids::unique("run");
            let mut next_id = item_ids();
            start_run_from_caller(
                &mut s.store,
                StartRun {
                    model: s.model_spec.clone(),
                    id: id.clone(),
                    preset: s.preset.clone(),
                    now: ids::now(),
                    field: CallerField::SeedMessages,
                    messages,
                    instructions,
                },
                &mut next_id,
            )?;
            id
        }
    };
    eprintln!("keel: chatting on run {run_id}; /quit to leave");
    let mut input = LineFeed::stdin();
    'chat: loop {
        with_agent(&mut s, &mut input, &run_id, |a| {
            a.recover(&run_id)?;
            a.deliver_notifications(&run_id)
        })?;
        eprint!("you> ");
        let _ = std::io::stderr().flush();
        // While the person thinks, what background tasks send is delivered as it comes.
        let line = loop {
            match input.next_line(TASK_POLL) {
                Next::Line(line) => break line,
                Next::Closed => break 'chat,
                Next::Quiet if is_set(&s.settings.cancel) => {
                    // Ctrl-C at the prompt leaves; the run is saved as it is.
                    settle_tasks(&mut s, &mut input, &run_id)?;
                    return Ok(cancelled(&run_id));
                }
                Next::Quiet => {
                    let delivered = with_agent(&mut s, &mut input, &run_id, |a| {
                        a.deliver_notifications(&run_id)
                    })?;
                    if delivered > 0 {
                        eprint!("\nyou> ");
                        let _ = std::io::stderr().flush();
                    }
                }
            }
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim() == "/quit" {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let end = match with_agent(&mut s, &mut input, &run_id, |a| a.user_turn(&run_id, line)) {
            Err(e) if is_cancelled(&e) => return Ok(cancelled(&run_id)),
            other => other?,
        };
        report_end(&s, &run_id, Some(end));
    }
    settle_tasks(&mut s, &mut input, &run_id)?;
    eprintln!("keel: run {run_id} (keel runs show {run_id})");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn approval_defaults_to_asking_only_on_a_terminal() {
        assert!(super::interactive(None, true));
        assert!(!super::interactive(None, false));
        assert!(super::interactive(Some("ask"), false));
        assert!(!super::interactive(Some("deny"), true));
    }
}
