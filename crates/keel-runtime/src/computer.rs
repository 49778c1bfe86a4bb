//! Computer use in the runtime: the `computer_use` tool over keel-core's session machine, the
//! desktop lease stage of the gate (N27), deadlines on the backend (N26, N28), the grounding
//! model (N6a) and the lease record with the run (N41).
//!
//! One [`ComputerHub`] serves a process: it holds the backend (on its own thread, so a call
//! that hangs is abandoned at its deadline instead of hanging the run), the computer-use
//! model, and one [`Computer`] per owner (a run). The tool and the gate stage share it: the
//! tool opens and releases leases, the stage refuses every other tool while one is held.
//! Consent goes through the same [`Approver`] as every gated call (N8a).

use std::collections::HashMap;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use keel_computer::codes::ErrorCode;
use keel_computer::desktop::{AppInfo, Desktop, DesktopError, DispatchError, Snapshot, WindowInfo};
use keel_computer::grounding::{GROUNDING_INSTRUCTIONS, grounding_message};
use keel_computer::input;
use keel_computer::observation::Action;
use keel_computer::session::{
    Computer, Consent, Env, Grounder, GroundingError, GroundingRequest, Lease, Limits, error_result,
};
use keel_core::Timestamp;
use keel_core::ToolCall;
use keel_core::compose::{ChatMessage, ModelRequest, Role};
use keel_model::{Model, ModelError, ToolSpec};
use keel_store::{DesktopPause, LeaseChange, LeaseEvent, Store};
use serde_json::{Map, Value};

use crate::approval::Approver;
use crate::gate::{GateInput, GateStage, Stage, StageOutcome};
use crate::tools::{Tool, ToolContext, ToolOutput};

/// The tools that run while a desktop lease is held (N27).
pub const ADMITTED_WHILE_LEASED: [&str; 3] = ["computer_use", "clarify", "tool_manual"];

/// What a refused call is told while the lease is held (N27).
pub fn lease_refusal(tool: &str, window: &str) -> String {
    format!(
        "{tool} was not run: a desktop-control lease is active (window \"{window}\"). Until its \
         release is confirmed only computer_use, clarify and tool_manual run. Never use shell, \
         a browser or raw MCP tools to get around a desktop refusal; call computer_use close \
         and wait for status stopped first."
    )
}

/// Deadlines on the backend (N26, N28); every one configurable (N44).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// open, status, observe, act.
    pub endpoint: Duration,
    /// release.
    pub release: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Self {
            endpoint: Duration::from_secs(30),
            release: Duration::from_secs(5),
        }
    }
}

type Job = Box<dyn FnOnce(&mut dyn Desktop) + Send>;

/// A backend on its own thread, each call bounded by a deadline. A call past its deadline is
/// abandoned (its answer, should one come, is dropped): an act becomes `unknown`, anything
/// else fails as unavailable. Later calls queue behind a stuck one and time out too, so a
/// hung display stops the session rather than the process.
pub struct TimedDesktop {
    jobs: Sender<Job>,
    deadlines: Deadlines,
}

impl TimedDesktop {
    pub fn new(mut desktop: Box<dyn Desktop>, deadlines: Deadlines) -> Self {
        let (jobs, inbox) = mpsc::channel::<Job>();
        std::thread::spawn(move || {
            for job in inbox {
                job(desktop.as_mut());
            }
        });
        Self { jobs, deadlines }
    }

    fn run<T: Send + 'static>(
        &self,
        deadline: Duration,
        call: impl FnOnce(&mut dyn Desktop) -> T + Send + 'static,
    ) -> Option<T> {
        let (answer, reply) = mpsc::channel();
        let job: Job = Box::new(move |d| {
            let _ = answer.send(call(d));
        });
        self.jobs.send(job).ok()?;
        reply.recv_timeout(deadline).ok()
    }

    fn timed_out(&self, what: &str, deadline: Duration) -> DesktopError {
        DesktopError::Unavailable(format!(
            "the desktop did not answer {what} within {} ms",
            deadline.as_millis()
        ))
    }
}

impl Desktop for TimedDesktop {
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError> {
        let d = self.deadlines.endpoint;
        self.run(d, |x| x.apps())
            .unwrap_or_else(|| Err(self.timed_out("apps", d)))
    }

    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError> {
        let (d, app) = (self.deadlines.endpoint, app.to_string());
        self.run(d, move |x| x.windows(&app))
            .unwrap_or_else(|| Err(self.timed_out("windows", d)))
    }

    fn prepare(&mut self, window: &str) -> Result<(), DesktopError> {
        let (d, w) = (self.deadlines.endpoint, window.to_string());
        self.run(d, move |x| x.prepare(&w))
            .unwrap_or_else(|| Err(self.timed_out("prepare", d)))
    }

    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError> {
        let (d, w) = (self.deadlines.endpoint, window.to_string());
        self.run(d, move |x| x.snapshot(&w, with_frame))
            .unwrap_or_else(|| Err(self.timed_out("observe", d)))
    }

    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError> {
        let (d, w, a) = (self.deadlines.endpoint, window.to_string(), action.clone());
        // Past the deadline the input may or may not have arrived: unknown, never resent.
        self.run(d, move |x| x.act(&w, &a)).unwrap_or_else(|| {
            Err(DispatchError::Unknown(format!(
                "the desktop did not confirm the input within {} ms",
                d.as_millis()
            )))
        })
    }

    fn release(&mut self, window: &str) -> Result<(), DesktopError> {
        let (d, w) = (self.deadlines.release, window.to_string());
        self.run(d, move |x| x.release(&w))
            .unwrap_or_else(|| Err(self.timed_out("release", d)))
    }
}

/// Connects the backend on first use, and again after a failed connect, so a run that never
/// touches the desktop never needs a display, and one started before the display comes up
/// still finds it.
pub struct LazyDesktop {
    connect: Box<dyn FnMut() -> Result<Box<dyn Desktop>, DesktopError> + Send>,
    desktop: Option<Box<dyn Desktop>>,
}

impl LazyDesktop {
    pub fn new(
        connect: impl FnMut() -> Result<Box<dyn Desktop>, DesktopError> + Send + 'static,
    ) -> Self {
        Self {
            connect: Box::new(connect),
            desktop: None,
        }
    }

    fn get(&mut self) -> Result<&mut Box<dyn Desktop>, DesktopError> {
        if self.desktop.is_none() {
            self.desktop = Some((self.connect)()?);
        }
        self.desktop
            .as_mut()
            .ok_or_else(|| DesktopError::Unavailable("not connected".into()))
    }
}

impl Desktop for LazyDesktop {
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError> {
        self.get()?.apps()
    }
    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError> {
        self.get()?.windows(app)
    }
    fn prepare(&mut self, window: &str) -> Result<(), DesktopError> {
        self.get()?.prepare(window)
    }
    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError> {
        self.get()?.snapshot(window, with_frame)
    }
    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError> {
        match self.get() {
            Ok(d) => d.act(window, action),
            Err(e) => Err(DispatchError::NotStarted(e.to_string())),
        }
    }
    fn release(&mut self, window: &str) -> Result<(), DesktopError> {
        self.get()?.release(window)
    }
}

/// The computer-use model over a [`Model`] (N6a): text only, the accessibility tree as the
/// observation. No retries (N21) are the provider's settings, made by whoever builds it.
pub struct ModelGrounder {
    model: Box<dyn Model + Send>,
    recipient: String,
    images: bool,
}

impl ModelGrounder {
    /// `recipient` names where requests go (the endpoint), for the consent question.
    pub fn new(model: Box<dyn Model + Send>, recipient: &str) -> Self {
        Self {
            model,
            recipient: recipient.to_string(),
            images: false,
        }
    }

    /// The model sees: each request also carries the window's screenshot (N6a).
    pub fn seeing(mut self) -> Self {
        self.images = true;
        self
    }
}

impl Grounder for ModelGrounder {
    fn label(&self) -> String {
        self.model.name().to_string()
    }

    fn screenshot_recipient(&self) -> String {
        // Without images, screenshots go nowhere; the tree goes to the endpoint either way.
        if self.images {
            self.recipient.clone()
        } else {
            String::new()
        }
    }

    fn takes_images(&self) -> bool {
        self.images
    }

    fn propose(&mut self, request: &GroundingRequest<'_>) -> Result<String, GroundingError> {
        let request_frame = request.frame.filter(|_| self.images);
        let request = ModelRequest {
            messages: vec![
                ChatMessage::text(Role::System, GROUNDING_INSTRUCTIONS),
                ChatMessage::text(Role::User, grounding_message(request)),
            ],
        };
        let reply = match request_frame {
            Some(frame) => self
                .model
                .complete_with_images(&request, &[&frame.png], &mut |_| {}),
            None => self.model.complete(&request, &[], &mut |_| {}),
        };
        match reply {
            Ok(reply) if reply.tool_calls.is_empty() => Ok(reply.text),
            // A tool call is not a proposal: the parser refuses the empty text.
            Ok(_) => Ok(String::new()),
            Err(ModelError::Http { status, .. }) => Err(GroundingError::Http(status)),
            Err(_) => Err(GroundingError::Http(0)),
        }
    }
}

impl std::fmt::Debug for ModelGrounder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ModelGrounder({}, {})",
            self.model.name(),
            self.recipient
        )
    }
}

/// Where lease changes and the pause are kept: the run's store (N30, N41).
pub type ControlStore = Box<dyn Store + Send>;

/// `[computer_use]` as the runtime needs it.
#[derive(Clone, Debug, Default)]
pub struct ComputerSettings {
    pub enabled: bool,
    pub limits: Limits,
}

struct Owner {
    computer: Computer,
    /// The lease as last recorded, so only changes are written.
    recorded: Lease,
}

struct HubState {
    owners: HashMap<String, Arc<Mutex<Owner>>>,
}

struct Shared {
    settings: ComputerSettings,
    desktop: Mutex<Box<dyn Desktop>>,
    grounder: Mutex<Result<Box<dyn Grounder + Send>, ErrorCode>>,
    store: Mutex<ControlStore>,
    state: Mutex<HubState>,
    clock: fn() -> Timestamp,
}

/// One process's computer use, shared by the tool and the gate stage.
#[derive(Clone)]
pub struct ComputerHub {
    shared: Arc<Shared>,
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl ComputerHub {
    pub fn new(
        settings: ComputerSettings,
        desktop: Box<dyn Desktop>,
        grounder: Result<Box<dyn Grounder + Send>, ErrorCode>,
        store: ControlStore,
        clock: fn() -> Timestamp,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                settings,
                desktop: Mutex::new(desktop),
                grounder: Mutex::new(grounder),
                store: Mutex::new(store),
                state: Mutex::new(HubState {
                    owners: HashMap::new(),
                }),
                clock,
            }),
        }
    }

    fn owner(&self, run: &str) -> Arc<Mutex<Owner>> {
        let mut state = lock(&self.shared.state);
        state
            .owners
            .entry(run.to_string())
            .or_insert_with(|| {
                // Mixed into refs, so they are opaque and differ between runs and processes.
                let salt: String = keel_computer::summary::state_digest(&format!(
                    "{run}{}",
                    (self.shared.clock)().millis()
                ))
                .chars()
                .take(8)
                .collect();
                Arc::new(Mutex::new(Owner {
                    computer: Computer::new(self.shared.settings.limits.clone(), &salt),
                    recorded: Lease::Free,
                }))
            })
            .clone()
    }

    /// The lease of `run`: in this process, or as the store last recorded it for a run this
    /// process has not touched (a lease another process holds, or a crash left).
    pub fn lease(&self, run: &str) -> Lease {
        let known = lock(&self.shared.state).owners.get(run).cloned();
        if let Some(owner) = known {
            return match owner.try_lock() {
                Ok(o) => o.computer.lease(),
                // A computer_use call is running for the run: it holds or is taking the lease.
                Err(_) => Lease::Held {
                    window: "in use".into(),
                },
            };
        }
        recorded_lease(lock(&self.shared.store).as_ref(), run)
    }

    /// N41: a lease the store shows held for `run` that no session of this process holds is
    /// released, and the release is recorded. Returns the window released, if any.
    pub fn release_stale(&self, run: &str) -> Option<String> {
        if lock(&self.shared.state).owners.contains_key(run) {
            return None;
        }
        let mut store = lock(&self.shared.store);
        let Lease::Held { window } = recorded_lease(store.as_ref(), run) else {
            return None;
        };
        // A lease another live process holds is its to release: only a dead holder's is.
        let holder = store
            .lease_events(run)
            .ok()
            .and_then(|events| events.last().and_then(|e| holder_pid(&e.detail)));
        if holder.is_some_and(|pid| pid != std::process::id() && process_alive(pid)) {
            return None;
        }
        let event = LeaseEvent {
            change: LeaseChange::ReleasedOnResume,
            window: window.clone(),
            detail: "the session that held it no longer exists".into(),
            at: (self.shared.clock)(),
        };
        match store.record_lease(run, &event) {
            Ok(()) => Some(window),
            Err(e) => {
                tracing::warn!(run, error = %e, "could not record a lease release");
                None
            }
        }
    }

    /// The tools computer use brings: `computer_use`, `clarify` (which stops control on any
    /// answer to a `computer:` question but the one N29 names), `tool_manual`.
    pub fn tools(&self) -> Vec<Box<dyn Tool>> {
        vec![
            Box::new(ComputerUseTool { hub: self.clone() }),
            Box::new(ControlClarify { hub: self.clone() }),
            Box::new(crate::tools::manual::ToolManual::new()),
        ]
    }

    /// Ends `run`'s session and releases its window (N29, N30); the gate opens only if the
    /// release is confirmed.
    pub fn revoke(&self, run: &str) {
        let owner = self.owner(run);
        let mut owner = lock(&owner);
        owner.computer.revoke(lock(&self.shared.desktop).as_mut());
        self.record_change(run, &mut owner);
    }

    fn record_change(&self, run: &str, owner: &mut Owner) {
        let lease = owner.computer.lease();
        if lease == owner.recorded {
            return;
        }
        let (change, window) = match &lease {
            Lease::Held { window } => (LeaseChange::Held, window.clone()),
            Lease::Free => (
                LeaseChange::Released,
                match &owner.recorded {
                    Lease::Held { window } => window.clone(),
                    Lease::Free => String::new(),
                },
            ),
        };
        let event = LeaseEvent {
            change,
            window,
            detail: match change {
                LeaseChange::Held => format!("{HOLDER_PREFIX}{}", std::process::id()),
                _ => String::new(),
            },
            at: (self.shared.clock)(),
        };
        match lock(&self.shared.store).record_lease(run, &event) {
            Ok(()) => owner.recorded = lease,
            Err(e) => tracing::warn!(run, error = %e, "could not record a lease change"),
        }
    }

    /// The gate's desktop-lease stage.
    pub fn stage(&self) -> Box<dyn GateStage> {
        Box::new(DesktopLeaseStage { hub: self.clone() })
    }

    fn call(&self, run: &str, args: &Value, asker: Option<&mut dyn Approver>) -> Value {
        let owner = self.owner(run);
        // N4: one operation in flight per owner.
        let Ok(mut owner) = owner.try_lock() else {
            return error_result(ErrorCode::Busy, None);
        };
        let paused = match lock(&self.shared.store).desktop_pause() {
            Ok(p) => p.is_some(),
            // A pause that cannot be read is taken as in force: fail closed.
            Err(_) => true,
        };
        let mut desktop = lock(&self.shared.desktop);
        let mut grounder = lock(&self.shared.grounder);
        let grounder: Result<&mut dyn Grounder, ErrorCode> = match grounder.as_mut() {
            Ok(g) => Ok(g.as_mut()),
            Err(code) => Err(*code),
        };
        let mut consent = asker.map(|a| ApproverConsent { approver: a, run });
        let shared = &self.shared;
        let recheck = move || {
            let paused = lock(&shared.store)
                .desktop_pause()
                .map_or(true, |p| p.is_some());
            ((shared.clock)(), paused)
        };
        let mut env = Env {
            desktop: desktop.as_mut(),
            grounder,
            consent: consent.as_mut().map(|c| c as &mut dyn Consent),
            now: (self.shared.clock)(),
            enabled: self.shared.settings.enabled,
            paused,
            recheck: Some(&recheck),
        };
        let result = owner.computer.call(args, &mut env);
        drop(desktop);
        self.record_change(run, &mut owner);
        result
    }
}

/// How a Held record names the process holding the lease.
const HOLDER_PREFIX: &str = "held by process ";

/// The process a Held record names, if it names one.
fn holder_pid(detail: &str) -> Option<u32> {
    detail.strip_prefix(HOLDER_PREFIX)?.trim().parse().ok()
}

/// Whether `pid` is a running process of this machine (Linux: it has a /proc entry; a pid
/// reused since keeps the lease shut, which errs on the side of the gate).
fn process_alive(pid: u32) -> bool {
    std::path::Path::new("/proc").join(pid.to_string()).exists()
}

fn recorded_lease(store: &dyn Store, run: &str) -> Lease {
    match store.lease_events(run) {
        Ok(events) => match events.last() {
            Some(e) if e.change.holds() => Lease::Held {
                window: e.window.clone(),
            },
            _ => Lease::Free,
        },
        Err(keel_store::StoreError::RunNotFound(_)) => Lease::Free,
        // Unreadable: shut, so nothing slips past a lease keel cannot see.
        Err(_) => Lease::Held {
            window: "unknown (the lease record cannot be read)".into(),
        },
    }
}

/// `keel computer stop RUN`: pauses desktop control and records the revocation with the run;
/// a live session sees the pause at its next operation and is stopped (N29a, N30).
pub fn stop_control(store: &mut dyn Store, run: &str, now: Timestamp) -> Result<(), String> {
    store.run_head(run).map_err(|e| e.to_string())?;
    store
        .set_desktop_pause(Some(&DesktopPause {
            at: now,
            by: run.to_string(),
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// `keel computer resume`: the local "Resume desktop control" (N29a).
pub fn resume_control(store: &mut dyn Store) -> Result<bool, String> {
    let was = store.desktop_pause().map_err(|e| e.to_string())?.is_some();
    store.set_desktop_pause(None).map_err(|e| e.to_string())?;
    Ok(was)
}

pub use keel_computer::CONSENT_CALL_PREFIX;

/// Consent through the approver every gated call uses. The question is asked as a call of
/// `computer_use` whose arguments are what is being consented to, so it is shown and recorded
/// like any ask_user, through [`Approver::confirm`]: "for this run" is taken (and recorded) as
/// once, because each consequential action must be approved on its own (N8a).
struct ApproverConsent<'a> {
    approver: &'a mut dyn Approver,
    run: &'a str,
}

impl Consent for ApproverConsent<'_> {
    fn approve(&mut self, question: &str, subject: &Value) -> bool {
        let call = ToolCall {
            id: format!("{CONSENT_CALL_PREFIX}{}", self.run),
            name: "computer_use".into(),
            arguments: subject.clone(),
        };
        self.approver
            .confirm(&call, &[format!("computer use: {question}")])
    }
}

struct ComputerUseTool {
    hub: ComputerHub,
}

const COMPUTER_USE_DESCRIPTION: &str = "Operate one desktop app window: discover, open (observe or control), observe, step (one grounded input), close. Read tool_manual for computer_use before the first use.";

impl Tool for ComputerUseTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "computer_use".into(),
            description: COMPUTER_USE_DESCRIPTION.into(),
            parameters: input::schema(),
        }
    }

    fn annotations(&self) -> Map<String, Value> {
        // Consent and the action gate are inside the tool (N8a); the gate's rules still see
        // it as side-effecting.
        let mut m = Map::new();
        m.insert("readOnlyHint".into(), Value::Bool(false));
        m.insert("destructiveHint".into(), Value::Bool(true));
        m.insert("openWorldHint".into(), Value::Bool(true));
        m
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        self.call_asking(args, ctx, None)
    }

    fn call_asking(
        &self,
        args: &Value,
        ctx: &ToolContext,
        asker: Option<&mut dyn Approver>,
    ) -> ToolOutput {
        let result = self.hub.call(&ctx.run_id, args, asker);
        let text = result.to_string();
        if result["status"] == "error" || result["status"] == "stop_unconfirmed" {
            ToolOutput::error(text)
        } else {
            ToolOutput::ok(text)
        }
    }
}

/// `clarify`, and N29: a `computer:` question answered with anything but the one answer
/// that keeps control — or not answered at all — stops desktop control.
struct ControlClarify {
    hub: ComputerHub,
}

impl Tool for ControlClarify {
    fn spec(&self) -> ToolSpec {
        crate::tools::clarify::Clarify::new().spec()
    }

    fn annotations(&self) -> Map<String, Value> {
        crate::tools::clarify::Clarify::new().annotations()
    }

    fn call(&self, args: &Value, ctx: &ToolContext) -> ToolOutput {
        self.call_asking(args, ctx, None)
    }

    fn call_asking(
        &self,
        args: &Value,
        ctx: &ToolContext,
        asker: Option<&mut dyn Approver>,
    ) -> ToolOutput {
        let out = crate::tools::clarify::Clarify::new().call_asking(args, ctx, asker);
        let about_control = args
            .get("key")
            .and_then(Value::as_str)
            .is_some_and(keel_computer::manual::is_computer_clarification);
        if about_control {
            let keeps = !out.is_error
                && serde_json::from_str::<Value>(&out.text)
                    .is_ok_and(|v| v["keepsControl"] == Value::Bool(true));
            if !keeps {
                self.hub.revoke(&ctx.run_id);
            }
        }
        out
    }
}

/// The gate's second stage (N27).
struct DesktopLeaseStage {
    hub: ComputerHub,
}

impl GateStage for DesktopLeaseStage {
    fn stage(&self) -> Stage {
        Stage::DesktopLease
    }

    fn check(&self, input: &GateInput<'_>) -> StageOutcome {
        if ADMITTED_WHILE_LEASED.contains(&input.call.name.as_str()) {
            return StageOutcome::Pass;
        }
        let Some(run) = input.run else {
            return StageOutcome::Pass;
        };
        match self.hub.lease(run) {
            Lease::Free => StageOutcome::Pass,
            Lease::Held { window } => {
                let text = lease_refusal(&input.call.name, &window);
                StageOutcome::Refuse {
                    reason: text.clone(),
                    tool_result: text,
                }
            }
        }
    }
}
