//! Computer use through the runtime: the `computer_use` tool on the simulated desktop, driven
//! by scripted models (the chat model and the computer-use model), the desktop lease stage of
//! the real gate, consent through the approver, deadlines on a hung backend, the lease kept
//! with the run in a real SQLite file, and `keel computer stop`/`resume`.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{policy, reply, tool_outputs, with_agent, world};
use keel_computer::desktop::{AppInfo, Desktop, DesktopError, DispatchError, Snapshot, WindowInfo};
use keel_computer::observation::Action;
use keel_computer::session::{Lease, Limits};
use keel_computer::sim::{SimDesktop, SimWindow, check_box, element, text_field};
use keel_core::ToolCall;
use keel_core::time::Timestamp;
use keel_model::ModelReply;
use keel_model::scripted::ScriptedModel;
use keel_runtime::agent::LoopSettings;
use keel_runtime::approval::{Answer, Approver, RecordingApprover};
use keel_runtime::computer::{
    ComputerHub, ComputerSettings, Deadlines, ModelGrounder, TimedDesktop, resume_control,
    stop_control,
};
use keel_runtime::gate::{Gate, GateInput, Stage, Verdict};
use keel_runtime::policy_gate::PolicyGate;
use keel_runtime::tools::ToolContext;
use keel_store::{LeaseChange, SqliteStore, Store, StoreOptions};
use keel_testkit::{Sandbox, gate_env};
use serde_json::{Value, json};

fn settings_window() -> SimWindow {
    SimWindow::new("win:settings", "Settings")
        .with(text_field("Name", "", [10, 10, 200, 20]))
        .with(check_box("Memories", false, [10, 40, 20, 20]))
        .with(element("push button", "Delete account", [10, 70, 120, 20]))
}

fn grounder(replies: &[&str]) -> ModelGrounder {
    let replies = replies
        .iter()
        .map(|r| ModelReply {
            text: r.to_string(),
            tool_calls: vec![],
            usage: None,
            refusal: None,
        })
        .collect();
    ModelGrounder::new(
        Box::new(ScriptedModel::from_replies("vision", replies)),
        "script",
    )
}

fn store_at(path: &std::path::Path) -> Box<dyn Store + Send> {
    Box::new(SqliteStore::open(path, &StoreOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn hub_with(desktop: Box<dyn Desktop>, replies: &[&str], db: &std::path::Path) -> ComputerHub {
    ComputerHub::new(
        ComputerSettings {
            enabled: true,
            limits: Limits::default(),
        },
        desktop,
        Ok(Box::new(grounder(replies))),
        store_at(db),
        || Timestamp(1_795_987_900_000),
    )
}

/// A gate with the lease stage between authority and the policy.
fn gate(hub: &ComputerHub, cwd: &std::path::Path) -> Gate {
    gate_knowing(hub, cwd, Default::default())
}

/// The same, knowing the tools' specs as a real session does.
fn gate_knowing(
    hub: &ComputerHub,
    cwd: &std::path::Path,
    tools: std::collections::HashMap<String, keel_policy::classify::ToolInfo>,
) -> Gate {
    let env = gate_env(cwd, true, tools);
    Gate::new(vec![hub.stage()])
        .and_then(|g| g.with_policy(PolicyGate::new(policy(&[]), BTreeMap::new(), env)))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Answers consent questions in order, and keeps them.
struct Person {
    answers: Vec<Answer>,
    asked: Vec<(ToolCall, Vec<String>)>,
    words: Vec<String>,
}

impl Person {
    fn new(answers: &[Answer]) -> Self {
        Self {
            answers: answers.to_vec(),
            asked: Vec::new(),
            words: Vec::new(),
        }
    }
}

impl Person {
    /// The consent questions computer use asked (the gate's own asks are not among them).
    fn consents(&self) -> Vec<&(ToolCall, Vec<String>)> {
        self.asked
            .iter()
            .filter(|(_, r)| r.iter().any(|r| r.starts_with("computer use:")))
            .collect()
    }
}

impl Approver for Person {
    fn ask(&mut self, call: &ToolCall, reasons: &[String]) -> Answer {
        self.asked.push((call.clone(), reasons.to_vec()));
        // The gate's own ask_user decisions (provenance, rules) are answered yes; consent
        // questions take the scripted answers.
        if !reasons.iter().any(|r| r.starts_with("computer use:")) {
            return Answer::AllowOnce;
        }
        assert!(
            !self.answers.is_empty(),
            "asked more often than scripted: {reasons:?}"
        );
        self.answers.remove(0)
    }

    fn clarify(&mut self, _question: &str) -> Option<String> {
        (!self.words.is_empty()).then(|| self.words.remove(0))
    }
}

fn call_tool(hub: &ComputerHub, run: &str, args: Value, asker: Option<&mut dyn Approver>) -> Value {
    let tools = hub.tools();
    let tool = tools
        .iter()
        .find(|t| t.spec().name == "computer_use")
        .unwrap_or_else(|| panic!("no computer_use tool"));
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.run_id = run.to_string();
    let out = tool.call_asking(&args, &ctx, asker);
    serde_json::from_str(&out.text).unwrap_or_else(|e| panic!("{e}: {}", out.text))
}

fn discover(hub: &ComputerHub, run: &str) -> String {
    let r = call_tool(hub, run, json!({"op":"discover","query":"Settings"}), None);
    r["apps"][0]["appRef"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"))
        .to_string()
}

fn decide(gate: &Gate, run: &str, name: &str) -> Verdict {
    let call = ToolCall {
        id: "c".into(),
        name: name.into(),
        arguments: json!({"command": "ls"}),
    };
    gate.decide(
        &GateInput {
            origin: keel_core::notify::ResponseOrigin::UserTurn,
            call: &call,
            items: &[],
            run: Some(run),
        },
        None,
    )
}

fn lease_events(db: &std::path::Path, run: &str) -> Vec<LeaseChange> {
    store_at(db)
        .lease_events(run)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|e| e.change)
        .collect()
}

#[test]
fn an_agent_drives_the_simulated_desktop_end_to_end_behind_the_lease() {
    let mut w = world(&[], true);
    let db = w.sandbox.db();
    let hub = hub_with(
        Box::new(SimDesktop::single("Settings", settings_window())),
        &[
            r#"{"type":"action","action":{"type":"click","x":15,"y":45}}"#,
            r#"{"type":"action","action":{"type":"typeText","text":"Ada","x":20,"y":15}}"#,
        ],
        &db,
    );
    for t in hub.tools() {
        w.tools.add(t);
    }
    w.gate = gate_knowing(&hub, &w.cwd, w.tools.infos());
    let app_ref = discover(&hub, "r");
    let mut chat = ScriptedModel::from_replies(
        "chat",
        vec![
            reply("", &[("tool_manual", json!({"name": "computer_use"}))]),
            reply(
                "",
                &[(
                    "computer_use",
                    json!({"op":"open","appRef":app_ref,"mode":"control","prepare":true}),
                )],
            ),
            reply(
                "",
                &[(
                    "computer_use",
                    json!({"op":"step","goal":"Tick Memories","expect":{"kind":"selected","label":"Memories"}}),
                )],
            ),
            // While the lease is held, shell is refused by the lease stage.
            reply("", &[("shell", json!({"command": "ls"}))]),
            reply(
                "",
                &[(
                    "computer_use",
                    json!({"op":"step","goal":"Type Ada as the name","expect":{"kind":"field","label":"Name","value":"Ada"}}),
                )],
            ),
            reply("", &[("computer_use", json!({"op":"close"}))]),
            reply("", &[("list_dir", json!({}))]),
            reply("Done: Memories ticked and the name set.", &[]),
        ],
    );
    // One consent: the open. The two inputs are routine.
    let mut person = Person::new(&[Answer::AllowOnce]);
    let end = with_agent(
        &mut w,
        &mut chat,
        Some(&mut person),
        LoopSettings::default(),
        |a| a.user_turn("r", "Tick Memories and set my name to Ada in Settings"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!end.hit_step_limit);
    let outputs = tool_outputs(&w.store, "r");
    assert!(
        outputs[0].starts_with("# Computer Use"),
        "the manual: {}",
        outputs[0]
    );
    let results: Vec<Value> = outputs[1..]
        .iter()
        .map(|o| serde_json::from_str(o).unwrap_or(Value::String(o.clone())))
        .collect();
    assert_eq!(results[0]["status"], "open", "{:?}", results[0]);
    assert_eq!(results[1]["status"], "done");
    assert_eq!(results[1]["verified"], true);
    let refused = results[2].as_str().unwrap_or_default();
    assert!(
        refused.contains("desktop-control lease is active") && refused.contains("Never use shell"),
        "{refused}"
    );
    assert_eq!(
        results[3]["verification"]["status"], "satisfied",
        "{:?}",
        results[3]
    );
    assert_eq!(results[4]["status"], "stopped");
    assert_eq!(
        results[4]["handoff"]["recentActions"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // After the confirmed release, other tools run again.
    assert!(
        !results[5].to_string().contains("lease"),
        "{:?}",
        results[5]
    );
    let consents = person.consents();
    assert_eq!(consents.len(), 1, "only the open: {:?}", person.asked);
    // Nor did the gate ask: what the manual and the schema fix (op, mode, prepare) and what
    // directs nothing (expect) are not read as tainted; routine steps run without a question.
    assert_eq!(person.asked.len(), 1, "{:?}", person.asked);
    // The model is offered the schema without keel's own keywords.
    let offered = chat.requests[0]
        .1
        .iter()
        .find(|t| t.name == "computer_use")
        .map(|t| t.parameters.to_string())
        .unwrap_or_default();
    assert!(
        offered.contains("appRef") && !offered.contains("x-keel"),
        "{offered}"
    );
    assert!(consents[0].1[0].contains("Settings"));
    assert_eq!(
        lease_events(&db, "r"),
        vec![LeaseChange::Held, LeaseChange::Released]
    );
    // The consent answer is shown as a computer_use call naming what is consented to.
    assert_eq!(consents[0].0.arguments["op"], "open");
}

#[test]
fn a_consequential_action_is_asked_and_its_rejection_stops_the_session() {
    let (_dir, db) = database();
    let hub = hub_with(
        Box::new(SimDesktop::single("Settings", settings_window())),
        &[r#"{"type":"action","action":{"type":"click","x":20,"y":75}}"#],
        &db,
    );
    let app_ref = discover(&hub, "r");
    let mut person = Person::new(&[Answer::AllowOnce, Answer::Deny]);
    let r = call_tool(
        &hub,
        "r",
        json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}),
        Some(&mut person),
    );
    assert_eq!(r["status"], "open");
    let r = call_tool(
        &hub,
        "r",
        json!({"op":"step","goal":"Delete the account"}),
        Some(&mut person),
    );
    assert_eq!(r["errorCode"], "COMPUTER_ACTION_REJECTED", "{r}");
    assert!(
        person.asked[1].1[0].contains("Delete account"),
        "{:?}",
        person.asked[1]
    );
    assert_eq!(hub.lease("r"), Lease::Free);
}

#[test]
fn a_consent_answered_for_this_run_counts_and_is_recorded_as_once() {
    let (_dir, db) = database();
    let hub = settings_hub(&db);
    let app_ref = discover(&hub, "r");
    let mut store = store_at(&db);
    let mut asker = RecordingApprover::new(
        Person::new(&[Answer::AllowForRun]),
        store.as_mut(),
        "r",
        || Timestamp(7),
    );
    let r = call_tool(
        &hub,
        "r",
        json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}),
        Some(&mut asker),
    );
    assert_eq!(r["status"], "open", "{r}");
    // What a resumed run restores its "allow for this run" rules from.
    let approvals = store_at(&db)
        .approvals("r")
        .unwrap_or_else(|e| panic!("{e}"));
    let consent = approvals
        .iter()
        .find(|a| a.reason.starts_with("computer use:"))
        .unwrap_or_else(|| panic!("{approvals:?}"));
    assert_eq!(consent.answer, Answer::AllowOnce, "{approvals:?}");
    assert!(
        approvals.iter().all(|a| a.answer != Answer::AllowForRun),
        "{approvals:?}"
    );
}

/// A hub on the simulated Settings window, with no scripted proposals.
fn settings_hub(db: &std::path::Path) -> ComputerHub {
    hub_with(
        Box::new(SimDesktop::single("Settings", settings_window())),
        &[],
        db,
    )
}

/// A temporary database holding run `r`.
fn database() -> (Sandbox, std::path::PathBuf) {
    let sandbox = Sandbox::new();
    drop(sandbox.store_with_run("r"));
    let db = sandbox.db();
    (sandbox, db)
}

/// Opens `r`'s session on `hub` with `person` consenting.
fn open_session(hub: &ComputerHub, mode: &str, person: &mut Person) -> Value {
    let app_ref = discover(hub, "r");
    call_tool(
        hub,
        "r",
        json!({"op":"open","appRef":app_ref,"mode":mode,"prepare":false}),
        Some(person),
    )
}

/// A desktop whose release never answers, and whose inputs hang when told to.
struct Stuck {
    inner: SimDesktop,
    hang_act: bool,
    hang_release: bool,
}

impl Desktop for Stuck {
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError> {
        self.inner.apps()
    }
    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError> {
        self.inner.windows(app)
    }
    fn prepare(&mut self, window: &str) -> Result<(), DesktopError> {
        self.inner.prepare(window)
    }
    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError> {
        self.inner.snapshot(window, with_frame)
    }
    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError> {
        if self.hang_act {
            self.hang_act = false;
            std::thread::sleep(HANG);
        }
        self.inner.act(window, action)
    }
    fn release(&mut self, window: &str) -> Result<(), DesktopError> {
        if self.hang_release {
            std::thread::sleep(HANG);
        }
        self.inner.release(window)
    }
}

/// Short deadlines, with room for a loaded machine to schedule a call that does answer; a hang
/// outlasts them several times over.
fn short() -> Deadlines {
    Deadlines {
        endpoint: Duration::from_millis(500),
        release: Duration::from_millis(300),
    }
}

const HANG: Duration = Duration::from_millis(2000);

#[test]
fn a_hung_input_is_unknown_never_resent_and_an_unanswered_release_keeps_the_gate_shut() {
    let (dir, db) = database();
    let stuck = Stuck {
        inner: SimDesktop::single("Settings", settings_window()),
        hang_act: true,
        hang_release: true,
    };
    let hub = hub_with(
        Box::new(TimedDesktop::new(Box::new(stuck), short())),
        &[r#"{"type":"action","action":{"type":"click","x":15,"y":45}}"#],
        &db,
    );
    let cwd = dir.path().to_path_buf();
    let gate = gate(&hub, &cwd);
    let mut person = Person::new(&[Answer::AllowOnce]);
    open_session(&hub, "control", &mut person);
    let r = call_tool(&hub, "r", json!({"op":"step","goal":"Tick"}), None);
    assert_eq!(r["errorCode"], "COMPUTER_DISPATCH_UNKNOWN", "{r}");
    // The release after the error did not answer either: the gate stays shut (T5).
    assert!(matches!(hub.lease("r"), Lease::Held { .. }));
    assert!(matches!(
        decide(&gate, "r", "shell"),
        Verdict::Refuse {
            stage: Stage::DesktopLease,
            ..
        }
    ));
    let r = call_tool(&hub, "r", json!({"op":"close"}), None);
    assert_eq!(r["status"], "stop_unconfirmed", "{r}");
    assert_eq!(r["errorCode"], "COMPUTER_RELEASE_UNCONFIRMED");
    assert!(matches!(
        decide(&gate, "r", "shell"),
        Verdict::Refuse { .. }
    ));
    // The tools of the lease are still admitted.
    for admitted in ["computer_use", "clarify", "tool_manual"] {
        assert!(
            !matches!(
                decide(&gate, "r", admitted),
                Verdict::Refuse {
                    stage: Stage::DesktopLease,
                    ..
                }
            ),
            "{admitted}"
        );
    }
}

#[test]
fn a_lease_left_by_a_crash_is_released_on_resume_and_recorded() {
    let (dir, db) = database();
    {
        let hub = settings_hub(&db);
        let app_ref = discover(&hub, "r");
        let mut person = Person::new(&[Answer::AllowOnce]);
        call_tool(
            &hub,
            "r",
            json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}),
            Some(&mut person),
        );
        // The process dies here, holding the lease.
    }
    let hub = settings_hub(&db);
    let cwd = dir.path().to_path_buf();
    let gate = gate(&hub, &cwd);
    assert!(
        matches!(hub.lease("r"), Lease::Held { .. }),
        "recorded as held"
    );
    assert!(matches!(
        decide(&gate, "r", "shell"),
        Verdict::Refuse { .. }
    ));
    assert_eq!(hub.release_stale("r").as_deref(), Some("Settings"));
    assert_eq!(hub.lease("r"), Lease::Free);
    assert!(!matches!(
        decide(&gate, "r", "shell"),
        Verdict::Refuse {
            stage: Stage::DesktopLease,
            ..
        }
    ));
    assert_eq!(
        lease_events(&db, "r"),
        vec![LeaseChange::Held, LeaseChange::ReleasedOnResume]
    );
    assert_eq!(hub.release_stale("r"), None, "released once");
}

#[test]
fn stop_revokes_a_live_session_and_pauses_until_resume() {
    let (_dir, db) = database();
    let hub = settings_hub(&db);
    let mut person = Person::new(&[Answer::AllowOnce, Answer::AllowOnce]);
    open_session(&hub, "control", &mut person);
    // Another process (keel computer stop) writes the pause.
    let mut other = store_at(&db);
    stop_control(other.as_mut(), "r", Timestamp(5)).unwrap_or_else(|e| panic!("{e}"));
    let r = call_tool(&hub, "r", json!({"op":"observe"}), None);
    assert_eq!(r["status"], "stopped", "{r}");
    assert_eq!(
        hub.lease("r"),
        Lease::Free,
        "the session is stopped and released"
    );
    let app_ref = discover(&hub, "r");
    let open = json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false});
    let r = call_tool(&hub, "r", open.clone(), Some(&mut person));
    assert_eq!(r["errorCode"], "COMPUTER_CONTROL_PAUSED");
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("keel computer resume"))
    );
    assert_eq!(resume_control(other.as_mut()), Ok(true));
    let r = call_tool(&hub, "r", open, Some(&mut person));
    assert_eq!(r["status"], "open", "{r}");
    assert!(stop_control(other.as_mut(), "no-such-run", Timestamp(6)).is_err());
}

/// The deadlines the spec fixes: the desktop endpoint's calls time out after 30 s
/// (computer-use.md N26), and `close`'s release after 5 s (N28).
#[test]
fn every_default_deadline() {
    let d = Deadlines::default();
    assert_eq!(d.endpoint, Duration::from_secs(30));
    assert_eq!(d.release, Duration::from_secs(5));
}

#[test]
fn the_model_grounder_maps_http_statuses_and_sends_the_screen_quoted() {
    let mut g = ModelGrounder::new(
        Box::new(
            ScriptedModel::parse("vision", r#"{"error":"failed","message":"boom"}"#)
                .unwrap_or_else(|e| panic!("{e}")),
        ),
        "script",
    );
    use keel_computer::session::{Grounder, GroundingError, GroundingRequest};
    let request = GroundingRequest {
        task: "t",
        read_only: true,
        summary: "{}",
        frame: None,
        history: &[],
        format_problem: None,
    };
    assert_eq!(g.propose(&request), Err(GroundingError::Http(0)));
    assert!(!g.takes_images());
    assert_eq!(g.label(), "vision");
}

#[test]
fn a_computer_clarification_keeps_control_only_with_the_exact_answer() {
    let (_dir, db) = database();
    let hub = settings_hub(&db);
    let tools = hub.tools();
    let clarify = tools
        .iter()
        .find(|t| t.spec().name == "clarify")
        .unwrap_or_else(|| panic!("no clarify"));
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.run_id = "r".into();
    let mut person = Person::new(&[Answer::AllowOnce]);
    person.words = vec!["已在桌面端处理，继续".into(), "sure, go on".into()];
    let app_ref = discover(&hub, "r");
    call_tool(
        &hub,
        "r",
        json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}),
        Some(&mut person),
    );
    let ask = json!({"question": "I handled the dialog on the desktop; continue?", "key": "computer:dialog"});
    let out = clarify.call_asking(&ask, &ctx, Some(&mut person));
    assert!(out.text.contains("\"keepsControl\":true"), "{}", out.text);
    assert!(matches!(hub.lease("r"), Lease::Held { .. }), "control kept");
    let out = clarify.call_asking(&ask, &ctx, Some(&mut person));
    assert!(out.text.contains("\"keepsControl\":false"), "{}", out.text);
    assert_eq!(
        hub.lease("r"),
        Lease::Free,
        "any other answer stops control"
    );
    assert_eq!(
        lease_events(&db, "r"),
        vec![LeaseChange::Held, LeaseChange::Released]
    );
}

#[test]
fn a_second_operation_while_one_is_in_flight_is_busy() {
    let (_dir, db) = database();
    let slow = Stuck {
        inner: SimDesktop::single("Settings", settings_window()),
        hang_act: true,
        hang_release: false,
    };
    let hub = hub_with(
        Box::new(TimedDesktop::new(
            Box::new(slow),
            Deadlines {
                endpoint: Duration::from_secs(10),
                release: Duration::from_secs(10),
            },
        )),
        &[r#"{"type":"action","action":{"type":"click","x":15,"y":45}}"#],
        &db,
    );
    let mut person = Person::new(&[Answer::AllowOnce]);
    open_session(&hub, "control", &mut person);
    std::thread::scope(|scope| {
        let stepping =
            scope.spawn(|| call_tool(&hub, "r", json!({"op":"step","goal":"Tick"}), None));
        // Wait until the step holds the owner (the lease then reads "in use"); a second call on
        // the same owner is refused while it runs.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while hub.lease("r")
            != (Lease::Held {
                window: "in use".into(),
            })
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the step never started"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let second = call_tool(&hub, "r", json!({"op":"observe"}), None);
        assert_eq!(second["errorCode"], "COMPUTER_BUSY", "{second}");
        // Another owner is not busy.
        let other = call_tool(&hub, "other", json!({"op":"discover","query":""}), None);
        assert_eq!(other["status"], "ok");
        let first = stepping
            .join()
            .unwrap_or_else(|_| panic!("the step panicked"));
        assert_eq!(first["status"], "done", "{first}");
    });
}

#[test]
fn a_seeing_grounder_sends_the_screenshot_and_a_blind_one_does_not() {
    use keel_computer::desktop::Frame;
    use keel_computer::session::{Grounder, GroundingRequest};
    use keel_model::openai::{HttpSettings, OpenAiModel};
    use keel_model::testing::{seen, serve, sse};
    let answer = || {
        sse(&[
            json!({"choices": [{"index": 0, "delta": {"content": "{\"type\":\"answer\",\"text\":\"ok\"}"}}]}),
        ])
    };
    let server = serve(vec![answer(), answer()]);
    let frame = Frame {
        png: b"\x89PNG fake".to_vec(),
        width: 2,
        height: 1,
    };
    let request = GroundingRequest {
        task: "what is shown?",
        read_only: true,
        summary: r#"{"elements":[],"text":""}"#,
        frame: Some(&frame),
        history: &[],
        format_problem: None,
    };
    let model = || {
        let mut s = HttpSettings::new(&server.url, "vision");
        s.max_retries = 0;
        Box::new(OpenAiModel::new(s).unwrap_or_else(|e| panic!("{e}")))
    };
    let mut seeing = ModelGrounder::new(model(), &server.url).seeing();
    assert!(seeing.takes_images());
    assert_eq!(seeing.screenshot_recipient(), server.url);
    let reply = seeing.propose(&request).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(reply.contains("answer"), "{reply}");
    let mut blind = ModelGrounder::new(model(), &server.url);
    assert_eq!(
        blind.screenshot_recipient(),
        "",
        "no screenshots go anywhere"
    );
    blind.propose(&request).unwrap_or_else(|e| panic!("{e:?}"));
    let bodies: Vec<Value> = seen(&server).into_iter().map(|s| s.body).collect();
    let last = |b: &Value| {
        b["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default()
    };
    let parts = last(&bodies[0])["content"].clone();
    assert_eq!(parts[0]["type"], "text");
    assert_eq!(
        parts[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", keel_model::base64(&frame.png))
    );
    assert!(
        last(&bodies[1])["content"].is_string(),
        "no image parts: {}",
        bodies[1]
    );
    // The screen is quoted as data, and the instructions say so.
    assert_eq!(bodies[0]["messages"][0]["role"], "system");
    assert!(bodies[0].to_string().contains("untrusted_observation"));
}

#[test]
fn a_lease_a_live_process_holds_is_not_released_by_another() {
    let (_dir, db) = database();
    let mut holder = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    store_at(&db)
        .record_lease(
            "r",
            &keel_store::LeaseEvent {
                change: LeaseChange::Held,
                window: "Settings".into(),
                detail: format!("held by process {}", holder.id()),
                at: Timestamp(1),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let hub = settings_hub(&db);
    assert_eq!(hub.release_stale("r"), None, "its holder is alive");
    assert!(matches!(hub.lease("r"), Lease::Held { .. }));
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(hub.release_stale("r").as_deref(), Some("Settings"));
    assert_eq!(hub.lease("r"), Lease::Free);
}
