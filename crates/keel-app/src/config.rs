//! Configuration: the files and tiers of interfaces.md §2.
//!
//! Files are read in tier order — workspace (`./keel.toml`, `--policy FILE`), user
//! (`$XDG_CONFIG_HOME/keel/config.toml`), admin (`/etc/keel/policy.d/*.toml`, in name order) —
//! and later files win for scalar keys. Rules accumulate across files, tagged with their tier.
//! A workspace file is what a cloned repository can bring along, so it may not start programs
//! (`[checkers.*]`, `[mcp_servers.*]`), choose where screenshots or conversations go
//! (`[computer_use]`, model endpoints, `[handoff] worker_model`) or loosen the approval mode
//! (`yolo`): each of those is a load error naming the file. Its rules can only tighten: the
//! policy compiler (`crate::policy`) marks each rule with its file's tier, and a workspace
//! `allow` is capped (safety.md N46). Unknown keys outside the policy tables are warnings
//! naming the key and the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Where a file sits in the precedence order (interfaces.md §2, safety.md N11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// keel's built-in default policy.
    Default = 1,
    Workspace = 3,
    User = 4,
    Admin = 5,
}

impl Tier {
    /// The integer tier of safety.md N11.
    pub fn number(self) -> i64 {
        self as i64
    }

    pub fn name(self) -> &'static str {
        match self {
            Tier::Default => "default",
            Tier::Workspace => "workspace",
            Tier::User => "user",
            Tier::Admin => "admin",
        }
    }
}

/// The files to read; the command line and the environment decide them.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// `./keel.toml` and `--policy FILE`, in that order.
    pub workspace: Vec<PathBuf>,
    pub user: Option<PathBuf>,
    /// The admin policy directory (`/etc/keel/policy.d` outside tests).
    pub admin_dir: Option<PathBuf>,
}

pub const ADMIN_POLICY_DIR: &str = "/etc/keel/policy.d";

/// A base directory from the environment (`HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`): only
/// an absolute one, as the XDG spec says. An empty or relative one would be the working
/// directory's — a cloned repository's `.config/keel/config.toml` read as the user's own
/// (an outsider's round 22, with `HOME` empty).
pub fn base_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

impl Sources {
    /// The standard locations: `./keel.toml` if present, then `--policy` files, the user file
    /// under `$XDG_CONFIG_HOME` (or `~/.config`), and the admin directory.
    pub fn standard(policy_files: &[PathBuf]) -> Self {
        let mut workspace = Vec::new();
        let local = PathBuf::from("keel.toml");
        if local.is_file() {
            workspace.push(local);
        }
        workspace.extend(policy_files.iter().cloned());
        let config_home =
            base_dir("XDG_CONFIG_HOME").or_else(|| base_dir("HOME").map(|h| h.join(".config")));
        Self {
            workspace,
            user: config_home.map(|d| d.join("keel").join("config.toml")),
            admin_dir: Some(PathBuf::from(ADMIN_POLICY_DIR)),
        }
    }
}

/// A policy table as written, with where it came from (tier, file and line), for the policy
/// compiler (`crate::policy`) to check and compile.
#[derive(Clone, Debug, PartialEq)]
pub struct TieredTable {
    pub tier: Tier,
    pub file: PathBuf,
    pub line: usize,
    pub table: toml::Table,
}

/// The built-in default policy: tier 1, read like any other file.
pub const BUILTIN_POLICY: &str = include_str!("default_policy.toml");
pub const BUILTIN_NAME: &str = "<built-in default policy>";

/// Line numbers of the policy tables of one file.
#[derive(Default, Deserialize)]
#[serde(default)]
struct PolicySpans {
    rule: Vec<toml::Spanned<toml::Table>>,
    safety_checker: Vec<toml::Spanned<toml::Table>>,
    checkers: BTreeMap<String, toml::Spanned<toml::Table>>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct ModelSettings {
    /// `local`, `local:PATH.gguf`, `openai:MODEL` or `script:FILE`.
    pub name: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    pub connect_timeout_secs: Option<u64>,
    /// The longest wait for the next bytes of an answer.
    pub read_timeout_secs: Option<u64>,
    /// Retries on 429, 5xx and connection failures.
    pub max_retries: Option<u32>,
    /// The local model: how long loading may take, how long one answer may take, the longest
    /// answer in tokens, and the CPU threads it uses.
    pub start_timeout_secs: Option<u64>,
    pub request_timeout_secs: Option<u64>,
    pub max_tokens: Option<usize>,
    pub threads: Option<u32>,
    /// The local model gets the short prompt made for a small model and only the tools it can
    /// use (default: on for the embedded model, off for `local:PATH.gguf`).
    pub small_prompt: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct NotesSettings {
    pub max_untagged: Option<usize>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct StoreSettings {
    /// How long a writer waits for another process's lock, in milliseconds.
    pub busy_timeout_ms: Option<u64>,
    /// How long a run's lease lasts unless its holder renews it, in milliseconds.
    pub lease_expiry_ms: Option<u64>,
    /// How often a process renews the leases of the runs it writes, in milliseconds; shorter
    /// than `lease_expiry_ms`.
    pub lease_renew_ms: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Preset {
    pub system_prompt: Option<String>,
    pub tools: Option<Vec<String>>,
    pub mode: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct HandoffSettings {
    pub worker_model: Option<String>,
    /// How long the handoff worker may take (bridge.md N21, N40); default 180.
    pub worker_timeout_secs: Option<u64>,
}

/// `[tasks]`: background subagents started by `spawn_task`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct TasksSettings {
    /// The model a task runs on (default: its parent's). A model choice: user or admin tier.
    pub model: Option<String>,
    /// How long a task waits for the answer to a permission request (default 600).
    pub permission_timeout_secs: Option<u64>,
}

/// `[computer_use]` (computer-use.md N40, N44): user or admin tier only, because its model
/// receives what is on the screen. Every timeout and budget is configurable.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct ComputerUseConfig {
    /// Off unless set: calls fail `COMPUTER_DISABLED` (N4).
    pub enabled: Option<bool>,
    /// The computer-use model, in `--model` syntax; never the chat model (N6a).
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    /// The model sees: each request also carries the window's screenshot (default false).
    pub images: Option<bool>,
    pub max_session_duration_ms: Option<i64>,
    pub max_actions_per_session: Option<u32>,
    pub max_model_requests: Option<u32>,
    pub app_ref_ttl_ms: Option<i64>,
    pub action_deadline_ms: Option<i64>,
    pub authorization_timeout_ms: Option<i64>,
    /// How old an observation may be before an action on it is refused as stale (N12, N22).
    pub observation_max_age_ms: Option<i64>,
    /// How many app and window refs the broker keeps (N5).
    pub max_app_refs: Option<usize>,
    /// The backend's deadlines (N26, N28).
    pub endpoint_timeout_ms: Option<u64>,
    pub release_timeout_ms: Option<u64>,
    /// The model's HTTP timeout (N21, default 60 000).
    pub model_timeout_ms: Option<u64>,
}

/// `[compaction]` (bridge issue, system-notes.md N18): when and how much a run compacts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct CompactionConfig {
    /// The model's context window in tokens (default: what the model reports; unknown means
    /// compaction only after a context-overflow error).
    pub context_window: Option<u64>,
    /// Compact when a request is estimated above this share of the window (default 80).
    pub threshold_percent: Option<u64>,
    pub keep_recent_chars: Option<usize>,
    pub keep_user_chars: Option<usize>,
    pub source_chars: Option<i64>,
    pub summary_chars: Option<i64>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct McpServer {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Wait for the server's handshake (default 30).
    pub start_timeout_secs: Option<u64>,
    /// Wait for one tool call (default 120).
    pub call_timeout_secs: Option<u64>,
}

/// One file as written: every key optional, so a file sets only what it names.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
struct FileSettings {
    mode: Option<String>,
    approval: Option<String>,
    model: ModelSettings,
    notes: NotesSettings,
    store: StoreSettings,
    presets: BTreeMap<String, Preset>,
    handoff: HandoffSettings,
    tasks: TasksSettings,
    compaction: CompactionConfig,
    mcp_servers: BTreeMap<String, McpServer>,
    computer_use: Option<ComputerUseConfig>,
    checkers: BTreeMap<String, toml::Table>,
    // Read with their lines through `PolicySpans`; named here so they are not reported as
    // unknown keys.
    #[allow(dead_code)]
    rule: Vec<toml::Table>,
    #[allow(dead_code)]
    safety_checker: Vec<toml::Table>,
}

/// A file's policy tables with their lines.
struct FilePolicy {
    rules: Vec<(usize, toml::Table)>,
    safety_checkers: Vec<(usize, toml::Table)>,
    checkers: Vec<(String, usize, toml::Table)>,
}

/// The effective configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub mode: Option<String>,
    pub approval: Option<String>,
    pub model: ModelSettings,
    pub notes: NotesSettings,
    pub store: StoreSettings,
    pub presets: BTreeMap<String, Preset>,
    pub handoff: HandoffSettings,
    pub tasks: TasksSettings,
    pub compaction: CompactionConfig,
    pub mcp_servers: BTreeMap<String, McpServer>,
    pub computer_use: Option<ComputerUseConfig>,
    /// `[checkers.NAME]` registry entries (user and admin tiers only); a later file's entry of
    /// the same name replaces an earlier one.
    pub checkers: BTreeMap<String, TieredTable>,
    /// `[[rule]]` tables of every file, ordered by tier.
    pub rules: Vec<TieredTable>,
    /// `[[safety_checker]]` tables of every file, ordered by tier.
    pub safety_checkers: Vec<TieredTable>,
    /// The files read, in order.
    pub files: Vec<(Tier, PathBuf)>,
    /// Unknown keys, each naming the key and the file.
    pub warnings: Vec<String>,
}

impl Config {
    pub fn max_untagged_notes(&self) -> usize {
        self.notes
            .max_untagged
            .unwrap_or(keel_core::notes::DEFAULT_MAX_UNTAGGED)
    }

    /// The loop's compaction settings: the configured values over keel's defaults.
    pub fn compaction(&self) -> keel_runtime::agent::CompactionSettings {
        use keel_runtime::agent::CompactionSettings;
        let d = CompactionSettings::default();
        let c = &self.compaction;
        CompactionSettings {
            context_window: c.context_window,
            threshold_percent: c.threshold_percent.unwrap_or(d.threshold_percent),
            limits: keel_core::compaction::CompactionLimits {
                keep_recent_chars: c.keep_recent_chars.unwrap_or(d.limits.keep_recent_chars),
                keep_user_chars: c.keep_user_chars.unwrap_or(d.limits.keep_user_chars),
                source_chars: c.source_chars.unwrap_or(d.limits.source_chars),
                summary_chars: c.summary_chars.unwrap_or(d.limits.summary_chars),
            },
        }
    }

    /// How long the handoff worker may take.
    pub fn worker_timeout(&self) -> std::time::Duration {
        self.handoff
            .worker_timeout_secs
            .map_or(keel_runtime::worker::DEFAULT_WORKER_TIMEOUT, |s| {
                std::time::Duration::from_secs(s)
            })
    }

    /// How long a background task waits for an answer to a permission request.
    pub fn permission_timeout(&self) -> std::time::Duration {
        self.tasks
            .permission_timeout_secs
            .map_or(keel_runtime::tasks::DEFAULT_PERMISSION_TIMEOUT, |s| {
                std::time::Duration::from_secs(s)
            })
    }

    /// How the store is opened: `[store]` over keel-store's defaults.
    pub fn store_options(&self) -> keel_store::StoreOptions {
        let defaults = keel_store::StoreOptions::default();
        let ms = |v: Option<u64>, default| v.map_or(default, std::time::Duration::from_millis);
        keel_store::StoreOptions {
            busy_timeout: ms(self.store.busy_timeout_ms, defaults.busy_timeout),
            lease: keel_store::LeaseTerms::new(
                ms(self.store.lease_expiry_ms, defaults.lease.expiry),
                ms(self.store.lease_renew_ms, defaults.lease.renew_every),
            ),
        }
    }
}

/// A file that cannot be used. Always names the file and says what to change.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

fn err(path: &Path, message: impl Into<String>) -> ConfigError {
    ConfigError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Reads every file of `sources` in tier order.
pub fn load(sources: &Sources) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    load_text(
        &mut config,
        Tier::Default,
        Path::new(BUILTIN_NAME),
        BUILTIN_POLICY,
    )?;
    for path in &sources.workspace {
        // `--policy FILE` must exist; `./keel.toml` was only listed if it did.
        load_file(&mut config, Tier::Workspace, path, true)?;
    }
    if let Some(path) = &sources.user {
        load_file(&mut config, Tier::User, path, false)?;
    }
    if let Some(dir) = &sources.admin_dir {
        for path in admin_files(dir)? {
            load_file(&mut config, Tier::Admin, &path, true)?;
        }
    }
    let lease = config.store_options().lease;
    let asked = config
        .store
        .lease_renew_ms
        .map(std::time::Duration::from_millis);
    if asked.is_some_and(|renew| renew != lease.renew_every) {
        config.warnings.push(format!(
            "[store] lease_renew_ms must be shorter than the lease's expiry ({} ms), or a lease \
             would lapse between renewals; keel renews every {} ms instead",
            lease.expiry.as_millis(),
            lease.renew_every.as_millis()
        ));
    }
    Ok(config)
}

/// The admin directory's `*.toml` files in name order, after checking that only root can
/// change them (safety.md N21). A missing directory has no files.
fn admin_files(dir: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    check_root_owned(dir)?;
    let entries = std::fs::read_dir(dir).map_err(|e| err(dir, format!("cannot list: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| err(dir, format!("cannot list: {e}")))?
            .path();
        if path.extension().is_some_and(|x| x == "toml") {
            check_root_owned(&path)?;
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn check_root_owned(path: &Path) -> Result<(), ConfigError> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).map_err(|e| err(path, format!("cannot read: {e}")))?;
    if meta.uid() != 0 || meta.mode() & 0o022 != 0 {
        return Err(err(
            path,
            format!(
                "admin policy must be owned by root and not writable by group or others \
                 (owner uid {}, mode {:o}); fix with: chown root {p} && chmod go-w {p}",
                meta.uid(),
                meta.mode() & 0o7777,
                p = path.display()
            ),
        ));
    }
    Ok(())
}

fn load_file(
    config: &mut Config,
    tier: Tier,
    path: &Path,
    required: bool,
) -> Result<(), ConfigError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| err(path, "not valid UTF-8"))?,
        Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(err(path, format!("cannot read: {e}"))),
    };
    load_text(config, tier, path, &text)
}

/// Reads one file's text at `tier` into `config`, as [`load`] does for each file (`path` only
/// names the file in errors and warnings). A file that cannot be used changes nothing: the
/// error comes before anything is merged. Public so the fuzz target (fuzz/) reads policy text
/// through the same loader.
pub fn load_text(
    config: &mut Config,
    tier: Tier,
    path: &Path,
    text: &str,
) -> Result<(), ConfigError> {
    let spans: PolicySpans = toml::from_str(text).map_err(|e| err(path, e.to_string()))?;
    let policy = FilePolicy {
        rules: spans
            .rule
            .into_iter()
            .map(|s| (line_of(text, s.span().start), s.into_inner()))
            .collect(),
        safety_checkers: spans
            .safety_checker
            .into_iter()
            .map(|s| (line_of(text, s.span().start), s.into_inner()))
            .collect(),
        checkers: spans
            .checkers
            .into_iter()
            .map(|(name, s)| (name, line_of(text, s.span().start), s.into_inner()))
            .collect(),
    };
    let mut unknown = Vec::new();
    // Read from the text, not a parsed table, so an error names the line of the bad key.
    let file: FileSettings = serde_ignored::deserialize(
        toml::Deserializer::parse(text).map_err(|e| err(path, e.to_string()))?,
        |key| unknown.push(key.to_string()),
    )
    .map_err(|e| err(path, e.to_string()))?;
    check_modes(path, &file)?;
    if tier == Tier::Workspace {
        check_workspace_limits(path, &file)?;
    }
    for key in unknown {
        config
            .warnings
            .push(format!("{}: unknown key `{key}` (ignored)", path.display()));
    }
    merge(config, tier, path, file, policy);
    if tier != Tier::Default {
        config.files.push((tier, path.to_path_buf()));
    }
    Ok(())
}

/// Every mode a file names is one keel knows, so `keel config` says what `keel run` would
/// refuse, naming the file (a workspace's `mode = "YOLO"` looked valid there and stopped every
/// run in its folder, an outsider's round 22).
fn check_modes(path: &Path, file: &FileSettings) -> Result<(), ConfigError> {
    let named = std::iter::once(("mode".to_string(), file.mode.as_deref())).chain(
        file.presets
            .iter()
            .map(|(name, p)| (format!("[presets.{name}] mode"), p.mode.as_deref())),
    );
    for (key, mode) in named {
        if let Some(mode) = mode
            && keel_policy::rules::Mode::parse(mode).is_none()
        {
            return Err(err(
                path,
                format!(
                    "{key} = {mode:?} is no mode keel knows: write \"default\", \"plan\" or \"yolo\""
                ),
            ));
        }
    }
    Ok(())
}

/// What a workspace-tier file may not hold (interfaces.md §2).
fn check_workspace_limits(path: &Path, file: &FileSettings) -> Result<(), ConfigError> {
    let why = " A workspace file (./keel.toml or --policy) may not set this; put it in your \
               user config ($XDG_CONFIG_HOME/keel/config.toml) instead.";
    let refuse = |what: &str| Err(err(path, format!("{what} is not allowed here.{why}")));
    if !file.checkers.is_empty() {
        return refuse("[checkers.*] (it would run a program)");
    }
    if !file.mcp_servers.is_empty() {
        return refuse("[mcp_servers.*] (it would run a program)");
    }
    if file.computer_use.is_some() {
        return refuse("[computer_use] (it chooses where screenshots go)");
    }
    let m = &file.model;
    if m.base_url.is_some() || m.api_key_env.is_some() || m.headers.is_some() {
        return refuse("a model endpoint setting (base_url, api_key_env, headers)");
    }
    // A model read from a file is whatever that file says: a cloned repository's script
    // (`script:FILE`) would be the model, choosing every call.
    if m.name
        .as_deref()
        .is_some_and(|n| n.starts_with("local:") || n.starts_with("script:"))
    {
        return refuse("a model named by a file (local:PATH, script:FILE)");
    }
    // Nor a provider: `openai:gpt-4o` sends the conversation, with your key, to that
    // provider's endpoint (an outsider's attack moved a run off the embedded model so). Only
    // the embedded model, which sends nothing anywhere, may be named here.
    if m.name.as_deref().is_some_and(|n| n.trim() != "local") {
        return refuse("a model that sends the conversation to a provider (openai:MODEL)");
    }
    if file.handoff.worker_model.is_some() {
        return refuse("[handoff] worker_model");
    }
    if file.tasks.model.is_some() {
        return refuse("[tasks] model");
    }
    if file.mode.as_deref() == Some("yolo") {
        return refuse("mode = \"yolo\" (it loosens the approval mode)");
    }
    if file.approval.is_some() {
        return refuse("approval (whether keel reads answers from stdin is the user's choice)");
    }
    for (name, preset) in &file.presets {
        if preset.mode.as_deref() == Some("yolo") {
            return refuse(&format!(
                "[presets.{name}] mode = \"yolo\" (it loosens the approval mode)"
            ));
        }
    }
    Ok(())
}

fn later<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

fn merge(config: &mut Config, tier: Tier, path: &Path, file: FileSettings, policy: FilePolicy) {
    later(&mut config.mode, file.mode);
    later(&mut config.approval, file.approval);
    later(&mut config.model.name, file.model.name);
    later(&mut config.model.base_url, file.model.base_url);
    later(&mut config.model.api_key_env, file.model.api_key_env);
    later(&mut config.model.headers, file.model.headers);
    later(
        &mut config.model.connect_timeout_secs,
        file.model.connect_timeout_secs,
    );
    later(
        &mut config.model.read_timeout_secs,
        file.model.read_timeout_secs,
    );
    later(&mut config.model.max_retries, file.model.max_retries);
    later(
        &mut config.model.start_timeout_secs,
        file.model.start_timeout_secs,
    );
    later(
        &mut config.model.request_timeout_secs,
        file.model.request_timeout_secs,
    );
    later(&mut config.model.max_tokens, file.model.max_tokens);
    later(&mut config.model.threads, file.model.threads);
    later(&mut config.model.small_prompt, file.model.small_prompt);
    later(&mut config.notes.max_untagged, file.notes.max_untagged);
    later(
        &mut config.store.busy_timeout_ms,
        file.store.busy_timeout_ms,
    );
    later(
        &mut config.store.lease_expiry_ms,
        file.store.lease_expiry_ms,
    );
    later(&mut config.store.lease_renew_ms, file.store.lease_renew_ms);
    later(&mut config.handoff.worker_model, file.handoff.worker_model);
    later(
        &mut config.handoff.worker_timeout_secs,
        file.handoff.worker_timeout_secs,
    );
    later(&mut config.tasks.model, file.tasks.model);
    later(
        &mut config.tasks.permission_timeout_secs,
        file.tasks.permission_timeout_secs,
    );
    let (c, f) = (&mut config.compaction, file.compaction);
    later(&mut c.context_window, f.context_window);
    later(&mut c.threshold_percent, f.threshold_percent);
    later(&mut c.keep_recent_chars, f.keep_recent_chars);
    later(&mut c.keep_user_chars, f.keep_user_chars);
    later(&mut c.source_chars, f.source_chars);
    later(&mut c.summary_chars, f.summary_chars);
    later(&mut config.computer_use, file.computer_use);
    for (name, preset) in file.presets {
        let slot = config.presets.entry(name).or_default();
        later(&mut slot.system_prompt, preset.system_prompt);
        later(&mut slot.tools, preset.tools);
        later(&mut slot.mode, preset.mode);
    }
    config.mcp_servers.extend(file.mcp_servers);
    let tiered = |(line, table)| TieredTable {
        tier,
        file: path.to_path_buf(),
        line,
        table,
    };
    config.rules.extend(policy.rules.into_iter().map(tiered));
    config
        .safety_checkers
        .extend(policy.safety_checkers.into_iter().map(tiered));
    for (name, line, table) in policy.checkers {
        config.checkers.insert(name, tiered((line, table)));
    }
}

#[cfg(test)]
mod tests;
