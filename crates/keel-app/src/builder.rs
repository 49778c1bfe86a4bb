//! [`SessionBuilder`]: the one place a session is assembled. `keel run`, `keel chat`, a
//! background task's child run and any other front end get the same policy, the same tools
//! and the same gate from it, so none of them can decide a tool call differently.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use keel_mcp::{McpClient, ServerConfig};
use keel_model::CancelFlag;
use keel_policy::provenance::OnTainted;
use keel_policy::rules::Mode;
use keel_runtime::agent::{DEFAULT_INSTRUCTIONS, LoopSettings};
use keel_runtime::gate::Gate;
use keel_runtime::mcp::{is_server_name, server_tools};
use keel_runtime::policy_gate::{GateEnv, PolicyGate};
use keel_runtime::tasks::{RespondPermission, SpawnTask, TaskHub};
use keel_runtime::tools::Toolbox;
use keel_store::{RunStore, SqliteStore, StoreOptions};

use crate::config::Config;
use crate::models::{model_for, model_spec};
use crate::session::{DesktopOpener, Notices, Role, Session, SessionOptions, interactive};
use crate::tasks::TaskContext;
use crate::{AppError, ids, policy};

/// Builds a [`Session`]. Cheap to clone: a background task's child session is built from a
/// clone of its parent's builder. The crate's front page shows one in use.
#[derive(Clone)]
pub struct SessionBuilder {
    config: Config,
    db: PathBuf,
    store_options: StoreOptions,
    options: SessionOptions,
    existing: Option<String>,
    role: Role,
    terminal: bool,
    cancel: Option<CancelFlag>,
    desktop: Option<DesktopOpener>,
    notices: Notices,
}

impl SessionBuilder {
    /// A session on the database at `db`, configured by `config`, with keel's defaults for
    /// everything else: a new run, a person's role, no terminal (so ask_user is a deny unless
    /// `approval` says `ask`), no computer use, notices logged.
    pub fn new(config: Config, db: impl Into<PathBuf>) -> Self {
        let store_options = config.store_options();
        SessionBuilder {
            config,
            db: db.into(),
            store_options,
            options: SessionOptions::default(),
            existing: None,
            role: Role::Person,
            terminal: false,
            cancel: None,
            desktop: None,
            notices: Arc::new(|line| tracing::warn!("{line}")),
        }
    }

    /// What the front end was asked for (model, preset, mode, approval, cwd, step limit).
    pub fn options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    /// Continue the stored run `run`: its recorded model and preset are the defaults.
    pub fn continuing(mut self, run: Option<&str>) -> Self {
        self.existing = run.map(str::to_string);
        self
    }

    /// Whom the session serves (default: a person).
    pub fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }

    /// Whether a person sits at a terminal, who can answer ask_user when `approval` is unset.
    pub fn terminal(mut self, terminal: bool) -> Self {
        self.terminal = terminal;
        self
    }

    /// A flag that stops the loop at its next step and a model call in flight (Ctrl-C).
    pub fn cancel(mut self, flag: CancelFlag) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// The desktop backend computer use drives, when `[computer_use]` is configured. Without
    /// one, a configured `[computer_use]` has no desktop to open.
    pub fn desktop(mut self, opener: DesktopOpener) -> Self {
        self.desktop = Some(opener);
        self
    }

    /// Where notices go (default: logged as warnings).
    pub fn notices(mut self, notices: Notices) -> Self {
        self.notices = notices;
        self
    }

    fn notify(&self, line: &str) {
        (self.notices)(line)
    }

    /// Opens the store, picks the model, preset and mode, compiles the policy, starts the
    /// configured MCP servers and assembles the gate.
    pub fn build(self) -> Result<Session, AppError> {
        let config = &self.config;
        let flags = &self.options;
        let store = SqliteStore::open(&self.db, &self.store_options)?;
        let recorded = match &self.existing {
            Some(run) => Some(store.run_head(run)?),
            None => None,
        };
        // One writer per run (issue 19): a run another live process writes is refused here,
        // before anything is started or written. A task's run is this process's already.
        let lease = match &self.existing {
            Some(run) => Some(crate::session::take_lease(
                &self.db,
                &self.store_options,
                run,
                (self.role == Role::Person).then_some(&self.notices),
            )?),
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
            .or_else(|| recorded.as_ref().map(|h| h.preset.clone()))
            .unwrap_or_else(|| "default".into());
        let explicit = match &flags.cwd {
            Some(d) => Some(
                d.canonicalize()
                    .map_err(|e| AppError::Setup(format!("--cwd {}: {e}", d.display())))?,
            ),
            None => None,
        };
        // A stored run works where it was started (issue 19), checked before anything starts.
        let resolved = crate::workdir::resolve(
            self.existing.as_deref(),
            recorded.as_ref().map(|h| h.cwd.as_deref()),
            explicit.as_deref(),
            &std::env::current_dir()?,
        )?;
        // A task's parent session has already said where the run works.
        if let (Some(line), Role::Person) = (&resolved.notice, self.role) {
            self.notify(line);
        }
        let cwd = resolved.dir;
        let preset = config.presets.get(&preset_name);
        if preset_name != "default" && preset.is_none() {
            return Err(AppError::Setup(format!(
                "no preset named {preset_name:?}; define [presets.{preset_name}] in keel.toml or your config"
            )));
        }
        let mode_name = flags
            .mode
            .clone()
            .or_else(|| preset.and_then(|p| p.mode.clone()))
            .or_else(|| config.mode.clone())
            .unwrap_or_else(|| "default".into());
        let mode = Mode::parse(&mode_name)
            .ok_or_else(|| AppError::Setup(format!("unknown mode {mode_name:?}")))?;
        let interactive = interactive(
            flags.approval.as_deref().or(config.approval.as_deref()),
            self.terminal,
        );
        let compiled = policy::compile_or_deny(config);
        let mut tools = Toolbox::builtin();
        self.add_mcp_tools(&mut tools, &cwd);
        let hub = TaskHub::default();
        // Computer use serves the person's own run; a background task gets none (one desktop
        // session per owner, and consent must reach the person directly).
        let computer = match self.role {
            Role::Person => match &config.computer_use {
                Some(c) => Some(crate::computer::hub(
                    c,
                    SqliteStore::open(&self.db, &self.store_options)?,
                    self.desktop.as_ref(),
                    &self.notices,
                    ids::now,
                )?),
                None => None,
            },
            Role::Task => None,
        };
        if let Some(c) = &computer {
            for tool in c.tools() {
                tools.add(tool);
            }
        }
        if self.role == Role::Person {
            let spawner = crate::tasks::spawner(self.task_context(), &hub);
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
                self.notify(&format!(
                    "[presets.{preset_name}] tools names tools keel does not have, so they are not \
                     offered: {}",
                    unknown.join(", ")
                ));
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
        let stages = computer
            .iter()
            .map(keel_runtime::computer::ComputerHub::stage)
            .collect();
        let config_files: Vec<PathBuf> = config.files.iter().map(|(_, f)| f.clone()).collect();
        let guarded = crate::paths::guarded_paths(&cwd, &[], &config_files, Some(&self.db));
        let gate = Gate::new(stages)?.with_policy(
            PolicyGate::new(compiled.policy, compiled.registry, env).with_guarded_paths(guarded),
        )?;
        let mut base = DEFAULT_INSTRUCTIONS.to_string();
        if let Some(prompt) = preset.and_then(|p| p.system_prompt.clone()) {
            base = format!("{base}\n\n{prompt}");
        }
        let mut model = model_for(
            &model_spec,
            config,
            flags.base_url.as_deref(),
            &self.notices,
        )?;
        // The cancel flag also stops a model call in flight, not only the next step.
        if let Some(flag) = &self.cancel {
            model.watch_cancel(flag.clone());
        }
        let settings = LoopSettings {
            base_instructions: base,
            step_limit: flags.step_limit,
            max_untagged_notes: config.max_untagged_notes(),
            cancel: self.cancel.clone(),
            compaction: config.compaction(),
            ..LoopSettings::default()
        };
        Ok(Session {
            store,
            model,
            model_spec,
            preset: preset_name,
            gate,
            tools,
            cwd,
            interactive,
            settings,
            hub,
            computer,
            store_options: self.store_options.clone(),
            notices: self.notices.clone(),
            lease,
            issued: Vec::new(),
            text_files: None,
        })
    }

    /// What a background task of this session needs: its child session is built from a
    /// clone of this builder, as a task, continuing the child's own run, with its model and
    /// preset the ones recorded with that run and ask_user asked of the parent's person.
    fn task_context(&self) -> TaskContext {
        let parent = self.clone();
        TaskContext {
            db: self.db.clone(),
            store_options: self.store_options.clone(),
            model: self.config.tasks.model.clone(),
            permission_timeout: self.config.permission_timeout(),
            notices: self.notices.clone(),
            build_child: Arc::new(move |child: &str| {
                let mut options = parent.options.clone();
                options.model = None;
                options.preset = None;
                options.approval = Some("ask".into());
                (parent.clone())
                    .options(options)
                    .continuing(Some(child))
                    .role(Role::Task)
                    .build()
            }),
        }
    }

    /// Starts every `[mcp_servers.NAME]` and offers its tools. A server that does not start
    /// is a notice saying why, and the run goes on without its tools: one broken server
    /// should not stop every run, and nothing is left out without saying so.
    fn add_mcp_tools(&self, tools: &mut Toolbox, cwd: &Path) {
        for (name, server) in &self.config.mcp_servers {
            if !is_server_name(name) {
                self.notify(&format!(
                    "[mcp_servers.{name}] is not started: a server's name may hold only ASCII \
                     letters, digits, '_' and '-' (no '__'), so its tools can be named \
                     mcp__{{server}}__{{tool}}; rename the table"
                ));
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
                        self.notify(&format!(
                            "MCP server {name:?}: not offered, because a model API would refuse \
                             their names: {}",
                            skipped.join(", ")
                        ));
                    }
                }
                Err(e) => self.notify(&format!("{e}; its tools are not offered in this run")),
            }
        }
    }
}
