//! `keel acp`: keel as an Agent Client Protocol agent (ACP v1: JSON-RPC 2.0, one message per
//! line, on stdin and stdout), so an editor that speaks ACP runs keel — and gets keel's gate.
//! An ACP session is a durable keel run in the client's working directory; a prompt is one
//! real user turn; the gate's ask_user becomes `session/request_permission`; `session/cancel`
//! stops the turn at its next safe point and leaves the run resumable. Nothing but protocol
//! messages goes to stdout (keel's notices go to stderr).
//!
//! One thread reads stdin: it answers malformed lines, routes the client's answers to the
//! requests keel made (a permission), and sets a session's cancel flag at once; every other
//! request waits its turn on the main thread, which runs prompts one at a time.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use anyhow::Result;
use keel_app::{AppError, Config, Session, SessionBuilder, SessionOptions};
use keel_core::item::{ItemBody, ToolCall};
use keel_runtime::agent::Event;
use keel_runtime::approval::{Answer, Approver};
use keel_runtime::tools::{FileSystem, TextFiles};
use keel_store::{QueueStore, RunStore};
use serde_json::{Value, json};

use crate::out;

/// ACP's protocol version this agent speaks.
const PROTOCOL_VERSION: u64 = 1;

/// JSON-RPC's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// What `keel acp` takes from its command line: `keel run`'s model flags.
pub struct AcpOptions {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub preset: Option<String>,
    pub step_limit: usize,
    /// How often, between prompts, the sessions are looked at for notifications that
    /// arrived (a background task's result), which are delivered to the client as they come.
    pub poll: std::time::Duration,
}

/// The line-delimited JSON-RPC connection: writes whole messages, numbers keel's own
/// requests, and hands each answer to the request that waits for it.
#[derive(Debug)]
struct Wire {
    writing: Mutex<()>,
    next_id: AtomicU64,
    /// keel's requests waiting for an answer: the session each is for, and where the answer
    /// goes.
    pending: Mutex<HashMap<u64, (String, mpsc::Sender<Value>)>>,
}

impl Wire {
    fn send(&self, message: &Value) {
        let _one_at_a_time = self.writing.lock();
        let _ = out::wire(out::Stream::Stdout, &format!("{message}\n"));
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn reply(&self, id: &Value, result: Result<Value, (i64, String)>) {
        let message = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        self.send(&message);
    }

    /// A request to the client for `session`; `None` when the connection closed before it
    /// answered.
    fn request(&self, session: &str, method: &str, params: Value) -> Option<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id, (session.to_string(), tx));
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.recv().ok()
    }
}

/// Text files through the client, for what it advertised (`fs.readTextFile`,
/// `fs.writeTextFile`): keel's file tools then read the editor's buffers and their edits land
/// there. What the client does not offer goes to the file system.
#[derive(Debug)]
struct ClientFiles {
    wire: Arc<Wire>,
    session: String,
    read: bool,
    write: bool,
}

impl ClientFiles {
    fn ask(&self, method: &str, params: Value) -> Result<Value, String> {
        let answer = self
            .wire
            .request(&self.session, method, params)
            .ok_or_else(|| "the editor went away".to_string())?;
        if let Some(error) = answer.get("error") {
            return Err(format!(
                "the editor refused: {}",
                error["message"].as_str().unwrap_or("no reason given")
            ));
        }
        Ok(answer["result"].clone())
    }
}

impl TextFiles for ClientFiles {
    fn read(&self, path: &Path) -> Result<String, String> {
        if !self.read {
            return FileSystem.read(path);
        }
        let result = self.ask(
            "fs/read_text_file",
            json!({"sessionId": self.session, "path": path.display().to_string()}),
        )?;
        result["content"]
            .as_str()
            .map(String::from)
            .ok_or_else(|| "the editor's answer has no content".to_string())
    }

    fn write(&self, path: &Path, text: &str) -> Result<(), String> {
        if !self.write {
            return FileSystem.write(path, text);
        }
        self.ask(
            "fs/write_text_file",
            json!({"sessionId": self.session, "path": path.display().to_string(), "content": text}),
        )
        .map(|_| ())
    }
}

/// Files through the client for a session, when the client offers either way.
fn client_files(
    wire: &Arc<Wire>,
    capabilities: &Value,
    session: &str,
) -> Option<Arc<dyn TextFiles>> {
    let read = capabilities["fs"]["readTextFile"] == true;
    let write = capabilities["fs"]["writeTextFile"] == true;
    (read || write).then(|| {
        Arc::new(ClientFiles {
            wire: Arc::clone(wire),
            session: session.to_string(),
            read,
            write,
        }) as Arc<dyn TextFiles>
    })
}

/// One ACP session: the keel session and its run.
struct Open {
    session: Session,
    run: String,
    cancel: Arc<AtomicBool>,
    /// The session's working directory and MCP servers, to build it again in another mode.
    params: Value,
    mode: String,
}

impl Open {
    /// Runs `f` with an agent on the session whose asks go to the client and whose turn
    /// streams to it: what a prompt and a notification's delivery share.
    fn with_client<T>(
        &mut self,
        wire: &Wire,
        f: impl FnOnce(&mut keel_runtime::agent::Agent<'_>) -> Result<T, keel_runtime::agent::LoopError>,
    ) -> Result<T, AppError> {
        let shown = Mutex::new(Vec::new());
        let approver = ClientApprover {
            wire,
            session: self.run.clone(),
            shown: &shown,
            cancel: &self.cancel,
        };
        let events = to_client(wire, &self.run, &shown);
        self.session.with_agent(approver, &self.run, events, f)
    }

    /// The open session, its cancel flag where the reader finds it.
    fn register(
        session: Session,
        run: String,
        cancel: Arc<AtomicBool>,
        params: Value,
        mode: &str,
        cancels: &Mutex<HashMap<String, Arc<AtomicBool>>>,
    ) -> Self {
        if let Ok(mut c) = cancels.lock() {
            c.insert(run.clone(), Arc::clone(&cancel));
        }
        Self {
            session,
            run,
            cancel,
            params,
            mode: mode.to_string(),
        }
    }
}

/// keel's modes as ACP offers them (interfaces.md §3).
const MODES: [(&str, &str, &str); 3] = [
    (
        "default",
        "Default",
        "Files in the folder are read and written; shell commands that are not read-only ask, and so does any call whose values came from data or whose action you did not ask for.",
    ),
    (
        "plan",
        "Plan",
        "Read-only: the model reads and proposes; nothing is written, sent or run.",
    ),
    (
        "yolo",
        "Yolo",
        "Keel's own asks are dropped; every checker still runs (paths, provenance).",
    ),
];

fn modes(current: &str) -> Value {
    json!({
        "currentModeId": current,
        "availableModes": MODES.iter().map(|(id, name, description)| {
            json!({"id": id, "name": name, "description": description})
        }).collect::<Vec<_>>(),
    })
}

/// What the reader hands the main thread.
struct Incoming {
    id: Option<Value>,
    method: String,
    params: Value,
}

/// Runs the agent until stdin closes.
pub fn serve(config: &Config, options: &AcpOptions, db: &Path) -> Result<ExitCode> {
    let wire = Arc::new(Wire {
        writing: Mutex::new(()),
        next_id: AtomicU64::new(1),
        pending: Mutex::new(HashMap::new()),
    });
    let cancels: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>> = Arc::default();
    let (tx, rx) = mpsc::channel::<Incoming>();
    {
        let wire = Arc::clone(&wire);
        let cancels = Arc::clone(&cancels);
        std::thread::spawn(move || read_messages(&wire, &cancels, &tx));
    }
    let mut sessions: HashMap<String, Open> = HashMap::new();
    let mut client_capabilities = Value::Null;
    loop {
        let message = match rx.recv_timeout(options.poll) {
            Ok(message) => message,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                for open in sessions.values_mut() {
                    deliver_arrivals(open, &wire);
                    ask_for_tasks(open, &wire);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let result = match message.method.as_str() {
            "initialize" => {
                client_capabilities = message.params["clientCapabilities"].clone();
                Ok(initialize())
            }
            "authenticate" => Ok(json!({})),
            "session/new" => {
                new_session(config, options, db, &message.params, &cancels).map(|open| {
                    let id = open.run.clone();
                    let answer = json!({"sessionId": id, "modes": modes(&open.mode)});
                    sessions.insert(id, open);
                    answer
                })
            }
            "session/set_mode" => set_mode(
                config,
                options,
                db,
                &mut sessions,
                &message.params,
                &cancels,
                &wire,
            ),
            "session/load" => load_session(config, options, db, &message.params, &cancels, &wire)
                .map(|open| {
                    let answer = json!({"modes": modes(&open.mode)});
                    sessions.insert(open.run.clone(), open);
                    answer
                }),
            "session/list" => list_sessions(config, db),
            "session/prompt" => prompt(&mut sessions, &message.params, &wire),
            other => Err((
                METHOD_NOT_FOUND,
                format!("keel does not know the method {other}"),
            )),
        };
        // keel's file tools go through the client where it offers that.
        for open in sessions.values_mut() {
            if open.session.text_files.is_none() {
                open.session.text_files = client_files(&wire, &client_capabilities, &open.run);
            }
        }
        // A notification gets no answer, even when it fails.
        if let Some(id) = &message.id {
            wire.reply(id, result);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The reader: every line of stdin, until it closes.
fn read_messages(
    wire: &Wire,
    cancels: &Mutex<HashMap<String, Arc<AtomicBool>>>,
    to_main: &mpsc::Sender<Incoming>,
) {
    let stdin = std::io::stdin();
    for line in stdin.lock().split(b'\n') {
        let Ok(line) = line else { break };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            wire.reply(
                &Value::Null,
                Err((
                    PARSE_ERROR,
                    "not a JSON message (one JSON-RPC message per line)".into(),
                )),
            );
            continue;
        };
        let id = message.get("id").cloned();
        match message.get("method").and_then(Value::as_str) {
            Some("session/cancel") => {
                let session = message["params"]["sessionId"].as_str().unwrap_or_default();
                if let Some(flag) = cancels.lock().ok().and_then(|c| c.get(session).cloned()) {
                    flag.store(true, Ordering::SeqCst);
                }
                // A permission still open for the session is answered now, as cancelled: a
                // late "allow" must not run a call of a turn that was stopped.
                if let Ok(mut pending) = wire.pending.lock() {
                    let open: Vec<u64> = pending
                        .iter()
                        .filter(|(_, (s, _))| s == session)
                        .map(|(id, _)| *id)
                        .collect();
                    for id in open {
                        if let Some((_, waiting)) = pending.remove(&id) {
                            let _ = waiting
                                .send(json!({"result": {"outcome": {"outcome": "cancelled"}}}));
                        }
                    }
                }
            }
            Some(method) => {
                let incoming = Incoming {
                    id,
                    method: method.to_string(),
                    params: message.get("params").cloned().unwrap_or(Value::Null),
                };
                if to_main.send(incoming).is_err() {
                    break;
                }
            }
            None => {
                // An answer to one of keel's requests.
                let answered = id
                    .as_ref()
                    .and_then(Value::as_u64)
                    .and_then(|n| wire.pending.lock().ok()?.remove(&n));
                let is_answer = id.as_ref().is_some_and(|id| !id.is_null())
                    && (message.get("result").is_some() || message.get("error").is_some());
                match answered {
                    Some((_, waiting)) => {
                        let _ = waiting.send(message);
                    }
                    // An answer to a request keel no longer waits for: a permission request a
                    // cancel settled, which a client answers afterwards (ACP asks it to). It
                    // allows nothing, and gets no reply: JSON-RPC answers requests, not
                    // answers, and a reply with that id would reach whichever request of the
                    // client's own has the same number.
                    None if is_answer => out::say(&format!(
                        "an answer to request {} that keel no longer waits for was ignored",
                        id.unwrap_or(Value::Null)
                    )),
                    None => wire.reply(
                        &id.unwrap_or(Value::Null),
                        Err((
                            INVALID_REQUEST,
                            "a message needs a method, or must answer one of keel's requests"
                                .into(),
                        )),
                    ),
                }
            }
        }
    }
    // The client is gone: whoever waits for an answer gets none (a permission is a deny).
    if let Ok(mut pending) = wire.pending.lock() {
        pending.clear();
    }
}

fn initialize() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": true,
            // Embedded resources are not taken: a file's text in a prompt would be the user's
            // words, with the user's authority. Links are: keel reads them through the gate.
            "promptCapabilities": {"image": false, "audio": false, "embeddedContext": false},
            "mcpCapabilities": {"http": false, "sse": false},
        },
        "authMethods": [],
        "agentInfo": {"name": "keel", "version": env!("CARGO_PKG_VERSION")},
    })
}

type Reply = Result<Value, (i64, String)>;

fn invalid(message: impl Into<String>) -> (i64, String) {
    (INVALID_PARAMS, message.into())
}

fn internal(e: impl std::fmt::Display) -> (i64, String) {
    (INTERNAL_ERROR, e.to_string())
}

/// The client's MCP servers (stdio ones), added to the configuration's for this session.
fn with_client_servers(config: &Config, params: &Value) -> Result<Config, (i64, String)> {
    let mut config = config.clone();
    let servers = match &params["mcpServers"] {
        Value::Null => return Ok(config),
        Value::Array(servers) => servers,
        _ => return Err(invalid("mcpServers must be a list")),
    };
    for server in servers {
        let name = server["name"]
            .as_str()
            .ok_or_else(|| invalid("an MCP server needs a name"))?;
        let Some(command) = server["command"].as_str() else {
            return Err(invalid(format!(
                "MCP server {name}: keel runs servers over stdio only, and this one has no command"
            )));
        };
        let args = server["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let env = server["env"]
            .as_array()
            .map(|vars| {
                vars.iter()
                    .filter_map(|v| {
                        Some((
                            v["name"].as_str()?.to_string(),
                            v["value"].as_str()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        config.mcp_servers.insert(
            name.to_string(),
            keel_app::config::McpServer {
                command: command.to_string(),
                args,
                env,
                start_timeout_secs: None,
                call_timeout_secs: None,
            },
        );
    }
    Ok(config)
}

fn build(
    config: &Config,
    options: &AcpOptions,
    db: &Path,
    params: &Value,
    existing: Option<&str>,
    mode: &str,
) -> Result<(Session, Arc<AtomicBool>), (i64, String)> {
    let cwd = params["cwd"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| invalid("cwd (an absolute path) is required"))?;
    if !cwd.is_absolute() {
        return Err(invalid(format!(
            "cwd must be an absolute path, not {}",
            cwd.display()
        )));
    }
    let config = with_client_servers(config, params)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let session = SessionBuilder::new(config, db)
        .options(SessionOptions {
            model: options.model.clone(),
            base_url: options.base_url.clone(),
            cwd: Some(cwd),
            // The client is the person's window: every ask reaches them.
            approval: Some("ask".into()),
            mode: Some(mode.to_string()),
            preset: options.preset.clone(),
            step_limit: options.step_limit,
        })
        .continuing(existing)
        .terminal(false)
        .cancel(Arc::clone(&cancel))
        .notices(crate::run::notices())
        .build()
        .map_err(internal)?;
    Ok((session, cancel))
}

fn new_session(
    config: &Config,
    options: &AcpOptions,
    db: &Path,
    params: &Value,
    cancels: &Mutex<HashMap<String, Arc<AtomicBool>>>,
) -> Result<Open, (i64, String)> {
    let (mut session, cancel) = build(config, options, db, params, None, "default")?;
    let run = session.start_run(None, Vec::new()).map_err(internal)?;
    Ok(Open::register(
        session,
        run,
        cancel,
        params.clone(),
        "default",
        cancels,
    ))
}

/// `session/load`: the stored run, its history sent to the client as it happened.
fn load_session(
    config: &Config,
    options: &AcpOptions,
    db: &Path,
    params: &Value,
    cancels: &Mutex<HashMap<String, Arc<AtomicBool>>>,
    wire: &Wire,
) -> Result<Open, (i64, String)> {
    let run = params["sessionId"]
        .as_str()
        .ok_or_else(|| invalid("sessionId is required"))?
        .to_string();
    // The run works where it was made: a client's other folder does not re-root it (its
    // workspace would widen with it).
    let head = keel_store::SqliteStore::open(db, &config.store_options())
        .and_then(|store| store.run_head(&run))
        .map_err(|e| invalid(format!("no session {run}: {e}")))?;
    let mut params = params.clone();
    if let Some(cwd) = &head.cwd {
        params["cwd"] = json!(cwd.display().to_string());
    }
    let params = &params;
    let (mut session, cancel) = build(config, options, db, params, Some(&run), "default")?;
    let record = session
        .store
        .load_run(&run)
        .map_err(|e| invalid(format!("no session {run}: {e}")))?;
    session.reopen(&run).map_err(internal)?;
    // A withdrawn turn is not replayed: the client took it out of the thread when the turn
    // ended with `refusal`, and the model no longer reads it. A `[keel]` line stands in its
    // place, so the client is told what was left out and where it is kept.
    let withdrawn = keel_core::withdrawal::ranges(&record.items);
    for item in &record.items {
        if withdrawn
            .iter()
            .any(|&(from, to)| (from..to).contains(&item.seq))
        {
            continue;
        }
        let update = match &item.body {
            ItemBody::Withdrawal { reason, .. } => {
                Some(json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": format!(
                    "\n[keel] {} That turn is left out of the model's context; `keel runs show \
                     {run}` has it\n", keel_core::withdrawal::as_sentence(reason))}}))
            }
            ItemBody::User { text } => Some(json!({"sessionUpdate": "user_message_chunk",
                "content": {"type": "text", "text": text}})),
            ItemBody::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    wire.notify(
                        "session/update",
                        json!({"sessionId": run, "update": {"sessionUpdate": "agent_message_chunk",
                            "content": {"type": "text", "text": text}}}),
                    );
                }
                for call in tool_calls {
                    wire.notify(
                        "session/update",
                        json!({"sessionId": run, "update": tool_call_update(call, "pending", None, true)}),
                    );
                }
                None
            }
            ItemBody::ToolResult {
                call_id,
                output,
                is_error,
                ..
            } => Some(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                "status": if *is_error { "failed" } else { "completed" },
                "content": [{"type": "content", "content": {"type": "text", "text": keel_core::envelope::for_display(output)}}]}),
            ),
            _ => None,
        };
        if let Some(update) = update {
            wire.notify(
                "session/update",
                json!({"sessionId": run, "update": update}),
            );
        }
    }
    Ok(Open::register(
        session,
        run,
        cancel,
        params.clone(),
        "default",
        cancels,
    ))
}

/// `session/set_mode`: the session is built again on its stored run, in the new mode (the
/// gate's mode is part of the session), and the client is told.
fn set_mode(
    config: &Config,
    options: &AcpOptions,
    db: &Path,
    sessions: &mut HashMap<String, Open>,
    params: &Value,
    cancels: &Mutex<HashMap<String, Arc<AtomicBool>>>,
    wire: &Wire,
) -> Reply {
    let id = params["sessionId"]
        .as_str()
        .ok_or_else(|| invalid("sessionId is required"))?;
    let mode = params["modeId"]
        .as_str()
        .filter(|m| MODES.iter().any(|(known, ..)| known == m))
        .ok_or_else(|| invalid("modeId must be one of default, plan, yolo"))?;
    let open = sessions
        .remove(id)
        .ok_or_else(|| invalid(format!("no session {id}: start one with session/new")))?;
    let Open {
        session,
        run,
        params: built_with,
        ..
    } = open;
    // The old session lets go of the run before the new one takes it.
    drop(session);
    let (mut session, cancel) = build(config, options, db, &built_with, Some(&run), mode)?;
    session.reopen(&run).map_err(internal)?;
    wire.notify(
        "session/update",
        json!({"sessionId": run, "update": {"sessionUpdate": "current_mode_update", "currentModeId": mode}}),
    );
    let open = Open::register(session, run.clone(), cancel, built_with, mode, cancels);
    sessions.insert(run, open);
    Ok(json!({}))
}

fn list_sessions(config: &Config, db: &Path) -> Reply {
    let store = keel_store::SqliteStore::open(db, &config.store_options()).map_err(internal)?;
    let runs = store.list_runs().map_err(internal)?;
    let sessions: Vec<Value> = runs
        .iter()
        .map(|r| {
            json!({
                "sessionId": r.head.id,
                "cwd": r.head.cwd.as_ref().map(|c| c.display().to_string()),
                "title": r.task,
                "updatedAt": r.head.updated_at.to_rfc3339(),
            })
        })
        .collect();
    Ok(json!({"sessions": sessions}))
}

/// ACP's kind of a tool call, for the client's icon.
fn kind_of(tool: &str) -> &'static str {
    match tool {
        "read_file" | "list_dir" => "read",
        "search_files" => "search",
        "write_file" | "edit_file" => "edit",
        "shell" => "execute",
        _ => "other",
    }
}

/// A `tool_call` (first sight) or `tool_call_update` for `call`.
fn tool_call_update(call: &ToolCall, status: &str, reason: Option<&str>, first: bool) -> Value {
    let arguments = call.arguments.to_string();
    let title: String = format!("{} {arguments}", call.name)
        .chars()
        .take(120)
        .collect();
    let mut update = json!({
        "sessionUpdate": if first { "tool_call" } else { "tool_call_update" },
        "toolCallId": call.id,
        "title": title,
        "kind": kind_of(&call.name),
        "status": status,
        "rawInput": call.arguments,
    });
    if let Some(reason) = reason {
        update["content"] =
            json!([{"type": "content", "content": {"type": "text", "text": reason}}]);
    }
    update
}

/// The text of a prompt's content blocks: text, and the text of embedded resources.
fn prompt_text(blocks: &Value) -> Result<String, (i64, String)> {
    let blocks = blocks
        .as_array()
        .ok_or_else(|| invalid("prompt must be a list of content blocks"))?;
    let mut parts = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => parts.push(block["text"].as_str().unwrap_or_default().to_string()),
            Some("resource") => {
                // Its text would become the user's own words, and carry the user's authority:
                // an instruction in an attached file would act. keel reads files itself, as
                // data, through the gate.
                return Err(invalid(
                    "keel does not take embedded resources (it does not advertise \
                     embeddedContext): a file's text in the prompt would count as your own \
                     words. Send a resource_link (or the path) and keel reads the file as data",
                ));
            }
            Some("resource_link") => {
                // What the user pointed at, by its path: the file itself is read as data.
                let uri = block["uri"].as_str().unwrap_or_default();
                parts.push(format!(
                    "(attached: {})",
                    uri.strip_prefix("file://").unwrap_or(uri)
                ));
            }
            Some(other) => {
                return Err(invalid(format!(
                    "keel takes text and resource links, not {other} content"
                )));
            }
            None => return Err(invalid("a content block needs a type")),
        }
    }
    let text = parts.join("\n");
    if text.trim().is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    Ok(text)
}

/// The gate's ask_user, put to the client as `session/request_permission`.
struct ClientApprover<'w> {
    wire: &'w Wire,
    session: String,
    /// Calls the client has already been shown (a permission request shows its call first).
    shown: &'w Mutex<Vec<String>>,
    /// The session's cancel flag: an answer that comes after a cancel allows nothing.
    cancel: &'w AtomicBool,
}

impl Approver for ClientApprover<'_> {
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        self.wire.notify(
            "session/update",
            json!({"sessionId": self.session,
                   "update": tool_call_update(call, "pending", Some(&reasons.join("; ")), true)}),
        );
        if let Ok(mut shown) = self.shown.lock() {
            shown.push(call.id.clone());
        }
        let options = json!([
            {"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow_always", "name": format!("Allow every {} call for the rest of this run (the checkers still run)", call.name), "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
            {"optionId": "reject_always", "name": format!("Reject every {} call for the rest of this run", call.name), "kind": "reject_always"},
        ]);
        let mut tool_call = tool_call_update(call, "pending", Some(&reasons.join("; ")), false);
        if let Some(fields) = tool_call.as_object_mut() {
            fields.remove("sessionUpdate");
        }
        let answer = self.wire.request(
            &self.session,
            "session/request_permission",
            json!({"sessionId": self.session, "toolCall": tool_call, "options": options}),
        );
        // A turn cancelled meanwhile allows nothing either.
        let chosen = selected(answer.as_ref()).filter(|_| !self.cancel.load(Ordering::SeqCst));
        match chosen {
            Some("allow_once") => Answer::AllowOnce,
            Some("allow_always") => Answer::AllowForRun,
            Some("reject_always") => Answer::DenyForRun,
            _ => Answer::Deny,
        }
    }
}

/// The option the person selected. Only a well-formed selection counts: a cancelled request,
/// an error (even beside a result), an answer that is not JSON-RPC 2.0, or a client that left
/// (`None`) selects nothing, which is a deny.
fn selected(answer: Option<&Value>) -> Option<&str> {
    answer
        .filter(|a| a.get("error").is_none() && a.get("jsonrpc") == Some(&json!("2.0")))
        .filter(|a| a["result"]["outcome"]["outcome"] == "selected")
        .and_then(|a| a["result"]["outcome"]["optionId"].as_str())
}

/// What a turn tells the client as it happens: the reply as message chunks, each call as a
/// `tool_call` (or an update of the one a permission request showed), its outcome as a
/// `tool_call_update`, keel's notices as `[keel]` lines.
fn to_client<'a>(
    wire: &'a Wire,
    run: &'a str,
    shown: &'a Mutex<Vec<String>>,
) -> impl FnMut(Event) + 'a {
    move |e: Event| {
        let update = match e {
            Event::Text(t) => json!({"sessionUpdate": "agent_message_chunk",
                                     "content": {"type": "text", "text": t}}),
            Event::ToolCall {
                call,
                decision,
                reason,
            } => {
                let first = !shown.lock().is_ok_and(|s| s.contains(&call.id));
                let status = if decision.starts_with("allowed") {
                    "in_progress"
                } else {
                    "failed"
                };
                let said = reason.map(|r| format!("{decision}: {r}"));
                tool_call_update(&call, status, said.as_deref(), first)
            }
            Event::ToolResult {
                call_id,
                is_error,
                first_line,
                ..
            } => {
                let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                    "status": if is_error { "failed" } else { "completed" }});
                if let Some(line) = first_line {
                    update["content"] =
                        json!([{"type": "content", "content": {"type": "text", "text": line}}]);
                }
                update
            }
            Event::Notice(n) => json!({"sessionUpdate": "agent_message_chunk",
                                       "content": {"type": "text", "text": format!("\n[keel] {n}\n")}}),
        };
        wire.notify(
            "session/update",
            json!({"sessionId": run, "update": update}),
        );
    }
}

/// Between prompts: notifications queued for the session's run (a background task's result,
/// `keel notify`) are delivered now, the response streamed to the client like a turn's. A
/// response made for a notification cannot call tools (the agent refuses them).
fn deliver_arrivals(open: &mut Open, wire: &Wire) {
    let waiting = open
        .session
        .store
        .pending_notifications(&open.run)
        .map(|p| !p.is_empty())
        .unwrap_or(false);
    if !waiting {
        return;
    }
    let run = open.run.clone();
    if let Err(e) = open.with_client(wire, |a| a.deliver_notifications(&run)) {
        out::say(&format!("could not deliver a notification to {run}: {e}"));
    }
}

/// Between prompts: each permission request of the session's background tasks that still
/// waits, and that the run has been told of (its notification delivered), is put to the
/// person as `session/request_permission` — allow this one call, or reject. The editor's
/// answer is the person's, like their answer to the run's own asks; the model's response to
/// the notification still cannot answer it. A task's allowance is for that call only.
fn ask_for_tasks(open: &mut Open, wire: &Wire) {
    let waiting = open.session.hub.waiting_requests(&open.run);
    if waiting.is_empty() {
        return;
    }
    let Ok(record) = open.session.store.load_run(&open.run) else {
        return;
    };
    for id in waiting {
        // The request as the task sent it (its words are the task's: shown, not obeyed).
        let Some(request) = record.items.iter().find_map(|item| match &item.body {
            ItemBody::Notification { envelope, .. }
                if envelope.id() == id
                    && envelope.kind() == keel_core::notify::NotificationKind::Permission =>
            {
                serde_json::from_str::<Value>(envelope.payload_text()).ok()
            }
            _ => None,
        }) else {
            // Not delivered yet: asked at the next look, once the run has it.
            continue;
        };
        let tool = request["tool"].as_str().unwrap_or_default();
        let task = request["run_id"].as_str().unwrap_or_default();
        let title: String = format!("background task {task}: {tool} {}", request["args"])
            .chars()
            .take(120)
            .collect();
        let why = format!(
            "a background task ({task}) asks to run {tool}: {}",
            request["reason"].as_str().unwrap_or_default()
        );
        let answer = wire.request(
            &open.run,
            "session/request_permission",
            json!({"sessionId": open.run,
                   "toolCall": {"toolCallId": id, "title": title, "kind": kind_of(tool),
                                "status": "pending", "rawInput": request["args"],
                                "content": [{"type": "content", "content": {"type": "text", "text": why}}]},
                   "options": [
                       {"optionId": "allow_once", "name": "Allow this call of the background task", "kind": "allow_once"},
                       {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
                   ]}),
        );
        let answer = match selected(answer.as_ref()) {
            Some("allow_once") => Answer::AllowOnce,
            _ => Answer::Deny,
        };
        if let Err(why) = open.session.hub.answer(&open.run, &id, answer) {
            out::say(&format!(
                "your answer to the background task's request {id} was not passed on: {why}"
            ));
        }
    }
}

fn prompt(sessions: &mut HashMap<String, Open>, params: &Value, wire: &Wire) -> Reply {
    let id = params["sessionId"]
        .as_str()
        .ok_or_else(|| invalid("sessionId is required"))?;
    let open = sessions.get_mut(id).ok_or_else(|| {
        invalid(format!(
            "no session {id}: start one with session/new, or session/load a stored one"
        ))
    })?;
    let text = prompt_text(&params["prompt"])?;
    open.cancel.store(false, Ordering::SeqCst);
    let run = open.run.clone();
    let outcome = open.with_client(wire, |a| {
        // Calls a cancel or a crash left without an answer are settled first (never
        // re-run), so the run can take a new turn.
        a.recover(&run)?;
        a.user_turn(&run, &text)
    });
    if let Ok(end) = &outcome
        && let Some(used) = end.usage
    {
        let size = open.session.settings.compaction.context_window.unwrap_or(0);
        wire.notify(
            "session/update",
            json!({"sessionId": run, "update": {"sessionUpdate": "usage_update",
                   "used": used.prompt_tokens + used.completion_tokens, "size": size}}),
        );
    }
    match outcome {
        Ok(end) => Ok(json!({"stopReason": if end.refusal.is_some() {
            // The turn is withdrawn (the notice said so): ACP's meaning of `refusal`.
            "refusal"
        } else if end.hit_step_limit {
            "max_turn_requests"
        } else {
            "end_turn"
        }})),
        Err(e) if e.is_cancelled() => Ok(json!({"stopReason": "cancelled"})),
        Err(e) => Err(internal(describe(&e))),
    }
}

fn describe(e: &AppError) -> String {
    e.to_string()
}
