//! `keel run "TASK"` and `keel runs resume ID` (interfaces.md §5.1): one agent turn on a run,
//! with the whole gate, durable at every step.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use keel_app::{AppError, Config, Notices, Session, SessionBuilder, SessionOptions};
use keel_core::legacy::CallerField;
use keel_runtime::agent::{Agent, Event};
use keel_runtime::approval::TerminalApprover;
use keel_store::CallerMessage;

use crate::linefeed::{self, LineFeed, Next};
use crate::out;

/// The flags `keel run` and `keel runs resume` share.
#[derive(clap::Args, Clone, Debug)]
pub struct RunFlags {
    /// local | local:PATH.gguf | openai:MODEL | script:FILE. Default: the run's own model
    /// (when resuming), else `[model] name`, else local.
    #[arg(long)]
    pub model: Option<String>,
    /// The preset: system prompt, tools, mode. Default: the run's own preset (when resuming),
    /// else `default`.
    #[arg(long)]
    pub preset: Option<String>,
    #[command(flatten)]
    pub how: HowFlags,
}

/// How a run is run, whichever model and preset it has: the flags `keel run`, `keel runs
/// resume` and `keel handoff --go --continue` share.
#[derive(clap::Args, Clone, Debug)]
pub struct HowFlags {
    /// OpenAI-compatible base URL, including /v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The session working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// ask: a person answers ask_user; deny: ask_user is a deny. Default: ask on a terminal.
    #[arg(long, value_parser = ["ask", "deny"])]
    pub approval: Option<String>,
    /// Approval mode. default: the built-in policy asks before shell commands outside the
    /// read-only list and before spawn_task. plan: read-only — reading tools and read-only
    /// shell commands run, every side-effecting tool is denied, the model can still answer and
    /// propose. yolo: the built-in asks are dropped, every checker still runs (paths outside
    /// the workspace, .env and .git still deny; values that came from data still ask).
    /// autoEdit is default.
    #[arg(long, value_parser = ["default", "plan", "yolo", "autoEdit"])]
    pub mode: Option<String>,
    /// Add FILE at the workspace tier of the configuration.
    #[arg(long, value_name = "FILE")]
    pub policy: Vec<PathBuf>,
    /// Model calls per turn (at least 1).
    #[arg(
        long,
        default_value_t = keel_runtime::agent::DEFAULT_STEP_LIMIT,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
    )]
    pub step_limit: usize,
}

/// The flags of `keel handoff --go --continue`: how the new run is run. Its model and preset
/// are not among them — the new run keeps the source run's model, and `--to` names its
/// preset — so `--help` lists only what `keel handoff` takes.
#[derive(clap::Args, Clone, Debug)]
pub struct ContinueFlags {
    #[command(flatten)]
    pub how: HowFlags,
    /// Not taken (hidden from `--help`): given, it is refused with what to use instead.
    #[arg(long, hide = true)]
    pub model: Option<String>,
    #[arg(long, hide = true)]
    pub preset: Option<String>,
}

impl ContinueFlags {
    /// A flag of `keel run` that `keel handoff` does not take, with what to use instead.
    pub fn refused(&self) -> Option<&'static str> {
        (self.model.is_some() || self.preset.is_some()).then_some(
            "keel handoff takes --to PRESET for the new run's preset and --worker-model for the \
             model that writes the summary; the new run keeps the source run's model",
        )
    }
}

impl From<ContinueFlags> for RunFlags {
    fn from(f: ContinueFlags) -> Self {
        RunFlags {
            model: None,
            preset: None,
            how: f.how,
        }
    }
}

/// A task or turn must say something: an empty one would start a run that has nothing to do.
pub fn non_blank(text: &str) -> Result<String, String> {
    if keel_core::text::is_blank(text) {
        Err(
            "the task is empty: say what the agent should do, e.g. keel run \"List the files \
             in this folder\""
                .into(),
        )
    } else {
        Ok(text.to_string())
    }
}

/// The flag Ctrl-C sets, once [`catch_ctrl_c`] has installed the handler.
fn cancel_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    static FLAG: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
        std::sync::OnceLock::new();
    FLAG.get_or_init(Default::default).clone()
}

/// From now on Ctrl-C asks the loop to stop at the next step; a second Ctrl-C leaves at once
/// (the store keeps everything committed, and `keel runs resume` recovers either way).
/// Installed once the session is set up: a Ctrl-C while it is being set up (the store opened,
/// MCP servers started, the model fetched) still ends keel at once, before any run exists.
fn catch_ctrl_c() {
    use std::sync::atomic::Ordering;
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let seen = cancel_flag();
        let _ = ctrlc::set_handler(move || {
            if seen.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            // At `keel chat`'s idle prompt there is no step to stop after: the chat loop
            // says it leaves.
            if IN_TURN.load(Ordering::SeqCst) {
                out::eprint(if IN_CHAT.load(Ordering::SeqCst) {
                    "\nkeel: cancelling this turn (Ctrl-C again to leave keel now)\n"
                } else {
                    "\nkeel: stopping after the current step (Ctrl-C again to leave now)\n"
                });
            }
        });
    });
}

/// Whether this process is `keel chat`, where Ctrl-C during a turn cancels that turn and goes
/// back to the prompt (rather than ending keel).
static IN_CHAT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a turn is running (so Ctrl-C stops it at the next step), rather than `keel chat`
/// waiting for the person's next line. `keel run` is always in its turn.
static IN_TURN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

fn set_in_turn(in_turn: bool) {
    IN_TURN.store(in_turn, std::sync::atomic::Ordering::SeqCst);
}

/// What to print and how to exit when a turn was cancelled.
fn cancelled(run: &str) -> ExitCode {
    out::say(&format!(
        "cancelled; everything so far is saved. `keel runs resume {run}` continues."
    ));
    ExitCode::from(130)
}

impl RunFlags {
    /// The session options these flags ask for.
    pub fn session_options(&self) -> SessionOptions {
        SessionOptions {
            model: self.model.clone(),
            base_url: self.how.base_url.clone(),
            cwd: self.how.cwd.clone(),
            approval: self.how.approval.clone(),
            mode: self.how.mode.clone(),
            preset: self.preset.clone(),
            step_limit: self.how.step_limit,
        }
    }
}

/// Notices go to the terminal, one `keel: ` line each, escaped: they quote what others wrote
/// (servers, tasks, files).
pub(crate) fn notices() -> Notices {
    Arc::new(out::say)
}

/// Sets up a session for a person at this terminal; `existing` is the run it continues,
/// whose recorded model is the default.
pub(crate) fn session(
    config: &Config,
    flags: &RunFlags,
    db: &Path,
    existing: Option<&str>,
) -> Result<Session> {
    let session = SessionBuilder::new(config.clone(), db)
        .options(flags.session_options())
        .continuing(existing)
        .terminal(std::io::stdin().is_terminal())
        .cancel(cancel_flag())
        .desktop(Arc::new(crate::computer::desktop))
        .notices(notices())
        .build()?;
    catch_ctrl_c();
    if !cfg!(feature = "desktop")
        && config
            .computer_use
            .as_ref()
            .is_some_and(|c| c.enabled == Some(true))
    {
        out::say(&format!(
            "note: computer use is on in your config, but {}",
            crate::computer::DESKTOP_LEFT_OUT
        ));
    }
    Ok(session)
}

/// What the loop tells the person, through `out`: the model's reply as it streams (escaped,
/// its lines kept), and each call, result and notice as one line whose model- and
/// tool-written fields (the call's name, arguments and id, a reason) are escaped whole.
fn print_event(e: Event) {
    // A reply's text after a call starts on a line of its own on stdout too, so that replies
    // read apart whatever stderr does ("Let me look." / "Wrote notes.md.", not run together).
    thread_local! {
        /// The model's text on stdout so far does not end a line, and a call came after it.
        static LINE_OPEN: std::cell::Cell<(bool, bool)> = const { std::cell::Cell::new((false, false)) };
    }
    match &e {
        Event::Text(t) if !t.is_empty() => {
            let (open, after_call) = LINE_OPEN.get();
            if open && after_call {
                let _ = out::print("\n");
            }
            LINE_OPEN.set((!t.ends_with('\n'), false));
        }
        Event::ToolCall { .. } | Event::ToolResult { .. } => {
            let (open, _) = LINE_OPEN.get();
            LINE_OPEN.set((open, true));
        }
        _ => {}
    }
    match e {
        Event::Text(t) => {
            let _ = out::print(&t);
        }
        Event::ToolCall {
            call,
            decision,
            reason,
        } => {
            out::eprint(&format!(
                "\n→ {} {}: {decision}{}\n",
                out::field(&call.name),
                out::field(&call.arguments.to_string()),
                reason
                    .map(|r| format!(" — {}", out::field(&r)))
                    .unwrap_or_default()
            ));
        }
        Event::ToolResult {
            call_id,
            is_error,
            chars,
            first_line,
        } => {
            let status = match (is_error, first_line) {
                (false, _) => "done".to_string(),
                (true, None) => "error".to_string(),
                (true, Some(line)) => format!("error: {}", out::field(&line)),
            };
            out::eprint(&format!(
                "  {}: {status} ({chars} chars)\n",
                out::field(&call_id),
            ));
        }
        Event::Notice(n) => out::say(&n),
    }
}

/// Where ask_user reads its answers, and where its questions go.
pub(crate) trait Input: std::io::BufRead {
    /// The writer the questions are written to (escaped).
    fn question_output(&self) -> Box<dyn std::io::Write>;
}

impl Input for std::io::BufReader<std::io::Stdin> {
    fn question_output(&self) -> Box<dyn std::io::Write> {
        Box::new(out::stderr())
    }
}

impl Input for LineFeed {
    fn question_output(&self) -> Box<dyn std::io::Write> {
        LineFeed::question_output(self)
    }
}

/// Runs `f` with an agent on the session. ask_user reads answers from `input`, which the
/// caller keeps between calls (`keel chat` reads the user's lines from it too).
fn with_agent<T>(
    s: &mut Session,
    input: &mut dyn Input,
    run: &str,
    f: impl FnOnce(&mut Agent<'_>) -> Result<T, keel_runtime::agent::LoopError>,
) -> Result<T> {
    // The approver escapes what it quotes itself; its writer escapes again, so nothing it
    // prints can reach the terminal raw.
    let questions = input.question_output();
    let terminal = TerminalApprover::new(input, questions);
    Ok(s.with_agent(terminal, run, print_event, f)?)
}

fn is_cancelled(e: &anyhow::Error) -> bool {
    e.downcast_ref::<AppError>()
        .is_some_and(AppError::is_cancelled)
}

/// Text of several lines, each its own `keel:` line (each escaped as one).
fn say_lines(text: &str) {
    for line in text.lines() {
        out::say(line);
    }
}

fn is_model_failure(e: &anyhow::Error) -> bool {
    e.downcast_ref::<AppError>()
        .is_some_and(AppError::is_model_failure)
}

fn is_stale_write(e: &anyhow::Error) -> bool {
    e.downcast_ref::<AppError>()
        .is_some_and(AppError::is_stale_write)
}

/// A chat's delivery of notifications between turns. One that loses a race to another
/// writer stored nothing (the notifications stay queued): it is said, and the next delivery
/// goes on from the run as reloaded.
fn delivering(
    s: &mut Session,
    input: &mut dyn Input,
    run: &str,
    f: impl FnOnce(&mut Agent<'_>) -> Result<usize, keel_runtime::agent::LoopError>,
) -> Result<usize> {
    match with_agent(s, input, run, f) {
        Err(e) if is_stale_write(&e) => {
            out::say(&format!(
                "another writer changed run {run} while keel delivered its notifications; \
                 nothing of that delivery was stored, and they stay queued for the next one"
            ));
            Ok(0)
        }
        other => other,
    }
}

/// After a turn lost a race to another writer: what was lost, and what the other writer
/// added, from the run as stored now (the next turn starts from it).
fn report_lost_race(s: &Session, run: &str, before: u64) -> Result<()> {
    let _ = out::print("\n");
    let arrived = s.arrivals(run, before)?;
    out::say(&format!(
        "another writer changed run {run} while this turn was being answered, so the reply \
         above was lost: it is not in the run. {} The run is reloaded as stored.",
        match arrived.ours {
            0 => "Nothing of this turn was stored.".to_string(),
            n =>
                format!("What this turn stored before that stays: {n} item(s), your message first."),
        }
    ));
    out::say(&format!(
        "{} item(s) arrived from the other writer:",
        arrived.theirs.len()
    ));
    for item in &arrived.theirs {
        let (label, text) = crate::runs::describe(&item.body);
        out::say(&format!("  #{} {label}: {text}", item.seq));
    }
    out::say("send your message again to have it answered");
    Ok(())
}

fn report_end(s: &Session, run: &str, end: Option<keel_runtime::agent::TurnEnd>) {
    let _ = out::print("\n");
    let gave_up = end
        .as_ref()
        .is_some_and(|e| e.hit_step_limit || e.stalled || e.final_text.trim().is_empty());
    if gave_up && keel_app::models::is_embedded(&s.model_spec) {
        let task = s.last_user_text(run).unwrap_or_else(|| "TASK".to_string());
        say_lines(&keel_app::models::capable_model_hint(&task));
    }
    if let Some(used) = end.as_ref().and_then(|e| e.usage) {
        out::say(&format!(
            "{} prompt + {} completion tokens this turn",
            used.prompt_tokens, used.completion_tokens
        ));
    }
    if end.is_some_and(|e| e.hit_step_limit) {
        out::say(&format!(
            "stopped at the step limit ({}): the turn is closed. `keel chat --run {run}` gives \
             the run a new turn (with --step-limit N for more model calls per turn)",
            s.settings.step_limit
        ));
    }
}

fn stdin_reader() -> std::io::BufReader<std::io::Stdin> {
    std::io::BufReader::new(std::io::stdin())
}

/// `--history FILE.jsonl`, read and validated before anything is written (system-notes.md
/// N13): a role-`system` line is refused with its 0-based index among the messages
/// (interfaces.md §5.1); every error also names the file and the line, counted from 1 as
/// editors count.
fn read_history(history: Option<&Path>) -> Result<Vec<CallerMessage>> {
    let Some(path) = history else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read --history {}", path.display()))?;
    let at_line = |line: usize| format!("--history {}, line {line}", path.display());
    let mut messages = Vec::new();
    let mut lines = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let message =
            CallerMessage::from_json_line(l, messages.len()).with_context(|| at_line(i + 1))?;
        messages.push(message);
        lines.push(i + 1);
    }
    if let Err(e) = keel_core::legacy::check_caller_roles(
        CallerField::SeedMessages,
        messages.iter().map(|m| m.role.as_str()),
    ) {
        let line = lines.get(e.index).copied().unwrap_or_default();
        return Err(
            anyhow::Error::from(keel_store::StoreError::from(e)).context(format!(
                "{} (system text goes in --instructions)",
                at_line(line)
            )),
        );
    }
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
) -> Result<ExitCode> {
    let messages = read_history(history.as_deref())?;
    let mut s = session(config, flags, db, None)?;
    let run_id = s.start_run(instructions, messages)?;
    let mut input = stdin_reader();
    let end = match with_agent(&mut s, &mut input, &run_id, |a| a.user_turn(&run_id, task)) {
        Err(e) if is_cancelled(&e) => return Ok(cancelled(&run_id)),
        Err(e) if is_model_failure(&e) && keel_app::models::is_embedded(&s.model_spec) => {
            // Said plainly, with the way to a capable model, after the error itself.
            out::eprint(&format!("keel: error: {e:#}\n"));
            say_lines(&keel_app::models::capable_model_hint(task));
            out::say(&format!("run {run_id} (keel runs show {run_id})"));
            return Ok(ExitCode::FAILURE);
        }
        other => other?,
    };
    report_end(&s, &run_id, Some(end));
    settle_tasks(&mut s, &mut input, &run_id)?;
    out::say(&format!("run {run_id} (keel runs show {run_id})"));
    Ok(ExitCode::SUCCESS)
}

/// Before a stored run continues (keel-app's `Session::reopen`); N41: a desktop lease the
/// run's last process left held is released, and said.
fn reopen(s: &mut Session, run: &str) -> Result<()> {
    Ok(s.reopen(run)?)
}

/// `keel runs resume ID`.
pub fn resume(
    config: &Config,
    flags: &RunFlags,
    run_id: &str,
    db: &std::path::Path,
) -> Result<ExitCode> {
    let mut s = session(config, flags, db, Some(run_id))?;
    // "Allow for this run" answers given before still hold.
    reopen(&mut s, run_id)?;
    let mut input = stdin_reader();
    let (end, delivered) = match with_agent(&mut s, &mut input, run_id, |a| {
        a.recover(run_id)?;
        let end = if a.store.run_head(run_id)?.turn_open {
            Some(a.continue_turn(run_id)?)
        } else {
            None
        };
        Ok((end, a.deliver_notifications(run_id)?))
    }) {
        Err(e) if is_cancelled(&e) => return Ok(cancelled(run_id)),
        other => other?,
    };
    if end.is_none() && delivered == 0 && s.hub.running(run_id) == 0 {
        // Nothing was left to do: say so rather than end in silence.
        out::say(&format!(
            "run {run_id} is closed: its last turn ended, and nothing was waiting for it. To \
             continue it, give it a new turn: keel chat --run {run_id}"
        ));
        return Ok(ExitCode::SUCCESS);
    }
    report_end(&s, run_id, end);
    settle_tasks(&mut s, &mut input, run_id)?;
    out::say(&format!("run {run_id} (keel runs show {run_id})"));
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
fn settle_tasks(s: &mut Session, input: &mut dyn Input, run: &str) -> Result<()> {
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
                out::say(&format!(
                    "a background task's permission request {request} was denied: `keel run` \
                     takes no further turn from you to answer it (use `keel chat` for tasks that \
                     need your answers)"
                ));
            }
        }
        let running = s.hub.running(run);
        if running == 0 {
            // What the last task sent on its way out.
            with_agent(s, input, run, |a| a.deliver_notifications(run))?;
            return Ok(());
        }
        if !announced {
            out::say(&format!(
                "waiting for {running} background task(s) to finish"
            ));
            announced = true;
        }
        s.hub.wait_for_change(TASK_POLL);
    }
}

/// A line of `keel chat` that is a command: `/` and one word, and nothing else. Any other
/// line is the person's message, even one that starts with `/` (`/etc/hosts is broken`).
#[derive(Debug, PartialEq)]
enum ChatCommand {
    Help,
    Exit,
    Unknown(String),
}

fn chat_command(line: &str) -> Option<ChatCommand> {
    let word = line.trim().strip_prefix('/')?;
    if !word
        .chars()
        .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    Some(match word.to_lowercase().as_str() {
        "help" => ChatCommand::Help,
        "exit" | "quit" => ChatCommand::Exit,
        _ => ChatCommand::Unknown(word.to_string()),
    })
}

/// What `/help` prints.
pub const CHAT_HELP: &str = "\
Each line you send is a turn: the model answers, and its tool calls pass keel's gate.
Commands (a line that is / and one word, nothing else):
  /help          this list
  /exit, /quit   leave; the run is saved, and keel chat --run RUN goes on with it
Any other line is your message, even one that starts with / (\"/etc/hosts is broken\").
On a terminal: the arrow keys, Home and End move in the line; up and down recall this run's
earlier lines, Ctrl-R searches them; a line typed with a space first is not kept in them.
Ctrl-C during a turn cancels the turn and comes back to this prompt; Ctrl-C or Ctrl-D at the
prompt leaves.
";

/// How a chat ended.
enum Left {
    /// `/exit`, `/quit` or the end of input.
    Done,
    /// Ctrl-C at the prompt.
    Interrupted,
}

/// After a Ctrl-C during a chat's turn: the background tasks the Ctrl-C reached stop (at
/// their next step; a task waiting for an answer is denied), the calls the model proposed and
/// keel did not run are answered as not run, the turn is closed, and the chat goes on.
fn turn_cancelled(s: &mut Session, input: &mut LineFeed, run: &str) -> Result<()> {
    while s.hub.running(run) > 0 {
        for request in s.hub.waiting_requests(run) {
            let _ = s.hub.answer(run, &request, keel_store::Answer::Deny);
        }
        s.hub.wait_for_change(TASK_POLL);
    }
    if let Some(flag) = &s.settings.cancel {
        flag.store(false, std::sync::atomic::Ordering::SeqCst);
    }
    with_agent(s, input, run, |a| {
        a.recover(run)?;
        let head = a.store.run_head(run)?;
        if head.turn_open {
            a.store.commit(
                run,
                keel_store::RunWrite::append(head.version, keel_app::ids::now(), Vec::new())
                    .closing_turn(),
            )?;
        }
        Ok(())
    })?;
    let _ = out::print("\n");
    out::say(
        "turn cancelled: what it did before the Ctrl-C is saved, and the run stays open. Type \
         your next message (/exit or Ctrl-C at the prompt leaves)",
    );
    Ok(())
}

/// `keel chat`: a conversation on one run, turn after turn. Notifications are delivered as
/// they arrive, between turns and while it waits for the person's next line; `/exit`, `/quit`,
/// the end of input or Ctrl-C at the prompt leaves, after the background tasks the run
/// started have ended. A run the chat made and left with nothing in it is not kept.
pub fn chat(
    config: &Config,
    flags: &RunFlags,
    existing: Option<String>,
    instructions: Option<String>,
    history: Option<PathBuf>,
    db: &std::path::Path,
) -> Result<ExitCode> {
    let messages = read_history(history.as_deref())?;
    let mut s = session(config, flags, db, existing.as_deref())?;
    let made = existing.is_none();
    let run_id = match existing {
        Some(id) => {
            reopen(&mut s, &id)?;
            id
        }
        None => s.start_run(instructions, messages)?,
    };
    IN_CHAT.store(true, std::sync::atomic::Ordering::SeqCst);
    out::say(&format!(
        "chatting on run {run_id}; /help lists the commands, /exit leaves"
    ));
    let mut input = LineFeed::stdin(linefeed::history_file(&run_id), cancel_flag());
    let left = chat_turns(&mut s, &mut input, &run_id)?;
    if matches!(left, Left::Interrupted) {
        // As a Ctrl-C anywhere else: the background tasks stop too.
        cancel_flag().store(true, std::sync::atomic::Ordering::SeqCst);
    }
    settle_tasks(&mut s, &mut input, &run_id)?;
    drop(input);
    if made && is_empty(&s, &run_id)? {
        // Nothing was said and nothing arrived: an empty run is not left behind. The session
        // goes first, and its lease of the run with it.
        drop(s);
        match drop_empty_run(db, &config.store_options(), &run_id) {
            Ok(()) => out::say(&format!(
                "left; nothing was said, so run {run_id} was not kept"
            )),
            Err(e) => out::say(&format!(
                "left; run {run_id} is empty, and could not be deleted: {e:#}"
            )),
        }
    } else {
        match left {
            Left::Interrupted => out::say(&format!(
                "left; run {run_id} is saved. `keel chat --run {run_id}` goes on with it."
            )),
            Left::Done => out::say(&format!("run {run_id} (keel runs show {run_id})")),
        }
    }
    Ok(match left {
        Left::Interrupted => ExitCode::from(130),
        Left::Done => ExitCode::SUCCESS,
    })
}

/// Whether a run holds nothing: no item, and no notification queued for it.
fn is_empty(s: &Session, run: &str) -> Result<bool> {
    use keel_store::{QueueStore, RunStore};
    Ok(s.store.run_head(run)?.next_seq == 0 && s.store.notifications(run)?.is_empty())
}

/// Deletes a run the chat made and left empty.
fn drop_empty_run(db: &Path, options: &keel_store::StoreOptions, run: &str) -> Result<()> {
    keel_store::SqliteStore::open_existing(db, options)?
        .delete_runs(&[run.to_string()], &keel_store::DeleteOptions::default())?;
    crate::runs::remove_history(run);
    Ok(())
}

/// The chat's turns, until the person leaves.
fn chat_turns(s: &mut Session, input: &mut LineFeed, run_id: &str) -> Result<Left> {
    loop {
        match delivering(s, input, run_id, |a| {
            a.recover(run_id)?;
            a.deliver_notifications(run_id)
        }) {
            Err(e) if is_cancelled(&e) => {
                turn_cancelled(s, input, run_id)?;
                continue;
            }
            other => other?,
        };
        if !input.edits() {
            out::eprint(linefeed::PROMPT);
        }
        set_in_turn(false);
        // While the person thinks, what background tasks send is delivered as it comes.
        let line = loop {
            match input.next_line(TASK_POLL) {
                Next::Line(line) => break line,
                Next::Closed => return Ok(Left::Done),
                Next::Interrupted => return Ok(Left::Interrupted),
                // Ctrl-C at the prompt leaves; the run is saved as it is, and nothing was cut
                // short.
                Next::Quiet if is_set(&s.settings.cancel) => return Ok(Left::Interrupted),
                Next::Quiet => {
                    let delivered =
                        match delivering(s, input, run_id, |a| a.deliver_notifications(run_id)) {
                            Err(e) if is_cancelled(&e) => return Ok(Left::Interrupted),
                            other => other?,
                        };
                    input.flush_above();
                    if delivered > 0 && !input.edits() {
                        out::eprint(&format!("\n{}", linefeed::PROMPT));
                    }
                }
            }
        };
        let line = line.trim_end_matches(['\n', '\r']);
        match chat_command(line) {
            Some(ChatCommand::Exit) => return Ok(Left::Done),
            Some(ChatCommand::Help) => {
                out::eprint(CHAT_HELP);
                continue;
            }
            Some(ChatCommand::Unknown(word)) => {
                out::say(&format!(
                    "/{word} is not a command of keel chat, and nothing was sent. The commands: \
                     /help, /exit (or /quit). A line that is / and one word is read as a \
                     command; to send it to the model, say more around it"
                ));
                continue;
            }
            None => {}
        }
        if line.trim().is_empty() {
            continue;
        }
        let before = keel_store::RunStore::run_head(&s.store, run_id)?.next_seq;
        set_in_turn(true);
        let end = match with_agent(s, input, run_id, |a| a.user_turn(run_id, line)) {
            Err(e) if is_cancelled(&e) => {
                turn_cancelled(s, input, run_id)?;
                continue;
            }
            Err(e) if is_stale_write(&e) => {
                // Another writer got in (one that ignored the run's lease, or took it after
                // this process's expired): reload and say what happened, then go on.
                report_lost_race(s, run_id, before)?;
                continue;
            }
            other => other?,
        };
        // A Ctrl-C that came as the turn ended cancels nothing, and does not leave.
        if let Some(flag) = &s.settings.cancel {
            flag.store(false, std::sync::atomic::Ordering::SeqCst);
        }
        report_end(s, run_id, Some(end));
    }
}

#[cfg(test)]
mod tests {
    use super::{ChatCommand, chat_command};

    #[test]
    fn a_slash_and_one_word_is_a_command_and_other_lines_are_messages() {
        assert_eq!(chat_command("/help\n"), Some(ChatCommand::Help));
        assert_eq!(chat_command("  /exit "), Some(ChatCommand::Exit));
        assert_eq!(chat_command("/QUIT"), Some(ChatCommand::Exit));
        assert_eq!(
            chat_command("/tmp"),
            Some(ChatCommand::Unknown("tmp".into()))
        );
        assert_eq!(chat_command("/"), Some(ChatCommand::Unknown(String::new())));
        assert_eq!(chat_command("/etc/hosts is broken"), None);
        assert_eq!(chat_command("/etc/hosts"), None);
        assert_eq!(chat_command("/help me"), None);
        assert_eq!(chat_command("hello /help"), None);
    }
}
