//! The session machine on the simulated desktop: every code path the spec numbers, driven
//! with a scripted model and scripted consent.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::*;
use crate::desktop::DispatchError;
use crate::sim::{SimApp, SimDesktop, SimWindow, check_box, element, text_field};

struct Model {
    replies: VecDeque<Result<String, GroundingError>>,
    asked: Vec<(String, bool, Option<String>)>,
    images: bool,
    frames_seen: u32,
}

impl Model {
    fn new(replies: &[&str]) -> Self {
        Self {
            replies: replies.iter().map(|r| Ok(r.to_string())).collect(),
            asked: Vec::new(),
            images: false,
            frames_seen: 0,
        }
    }
}

impl Grounder for Model {
    fn label(&self) -> String {
        "test-vision-model".into()
    }
    fn screenshot_recipient(&self) -> String {
        "http://127.0.0.1:9/v1".into()
    }
    fn takes_images(&self) -> bool {
        self.images
    }
    fn propose(&mut self, r: &GroundingRequest<'_>) -> Result<String, GroundingError> {
        self.asked.push((
            r.task.to_string(),
            r.read_only,
            r.format_problem.map(str::to_string),
        ));
        if r.frame.is_some() {
            self.frames_seen += 1;
        }
        self.replies
            .pop_front()
            .unwrap_or_else(|| panic!("the model was asked more often than scripted: {}", r.task))
    }
}

#[derive(Default)]
struct Person {
    answers: VecDeque<bool>,
    questions: Vec<String>,
}

impl Consent for Person {
    fn approve(&mut self, question: &str, _subject: &Value) -> bool {
        self.questions.push(question.to_string());
        self.answers
            .pop_front()
            .unwrap_or_else(|| panic!("consent asked more often than scripted: {question}"))
    }
}

fn window() -> SimWindow {
    let mut w = SimWindow::new("win:settings", "Settings")
        .with(text_field("Name", "", [10, 10, 200, 20]))
        .with(check_box("Memories", false, [10, 40, 20, 20]))
        .with(element("push button", "Send", [10, 70, 60, 20]))
        .with(element("push button", "Bold", [100, 70, 60, 20]))
        .with(element("label", "Status", [10, 100, 200, 20]));
    w.on_click
        .insert("Bold".into(), ("Status".into(), "Bold is on".into()));
    w
}

struct Fixture {
    computer: Computer,
    desktop: SimDesktop,
    model: Model,
    person: Person,
    now: i64,
    interactive: bool,
    enabled: bool,
    paused: bool,
    no_model: Option<ErrorCode>,
    /// What happens while a person is asked: this many ms pass, and the user stops control.
    while_asked: (i64, bool),
}

const T0: i64 = 1_795_987_900_000;

impl Fixture {
    fn new() -> Self {
        Self::with_limits(Limits::default())
    }

    fn with_limits(limits: Limits) -> Self {
        Self {
            computer: Computer::new(limits, "s1"),
            desktop: SimDesktop::single("Settings", window()),
            model: Model::new(&[]),
            person: Person::default(),
            now: T0,
            interactive: true,
            enabled: true,
            paused: false,
            no_model: None,
            while_asked: (0, false),
        }
    }

    fn call(&mut self, args: Value) -> Value {
        let grounder: Result<&mut dyn Grounder, ErrorCode> = match self.no_model {
            Some(code) => Err(code),
            None => Ok(&mut self.model),
        };
        let (later, stop) = self.while_asked;
        let (now, paused) = (self.now, self.paused);
        let recheck = move || (Timestamp(now + later), paused || stop);
        let mut env = Env {
            desktop: &mut self.desktop,
            grounder,
            consent: if self.interactive {
                Some(&mut self.person)
            } else {
                None
            },
            now: Timestamp(self.now),
            enabled: self.enabled,
            paused: self.paused,
            recheck: Some(&recheck),
        };
        self.computer.call(&args, &mut env)
    }

    fn app_ref(&mut self) -> String {
        let r = self.call(json!({"op":"discover","query":"sett"}));
        r["apps"][0]["appRef"]
            .as_str()
            .unwrap_or_else(|| panic!("no app in {r}"))
            .to_string()
    }

    fn open(&mut self, mode: &str) -> Value {
        let app_ref = self.app_ref();
        self.person.answers.push_back(true);
        self.call(json!({"op":"open","appRef":app_ref,"mode":mode,"prepare":false}))
    }

    fn script(&mut self, replies: &[&str]) {
        self.model
            .replies
            .extend(replies.iter().map(|r| Ok(r.to_string())));
    }

    fn name_value(&self) -> Option<String> {
        self.desktop
            .element("win:settings", "Name")
            .and_then(|e| e.value.clone())
    }
}

fn code(v: &Value) -> &str {
    v["errorCode"].as_str().unwrap_or("")
}

const CLICK_BOLD: &str = r#"{"type":"action","action":{"type":"click","x":110,"y":75}}"#;
const CLICK_SEND: &str = r#"{"type":"action","action":{"type":"click","x":20,"y":75}}"#;
const CLICK_NAME: &str = r#"{"type":"action","action":{"type":"click","x":20,"y":15}}"#;
const TICK_MEMORIES: &str = r#"{"type":"action","action":{"type":"click","x":15,"y":45}}"#;

#[test]
fn discover_lists_apps_with_opaque_refs_and_the_untrusted_hint() {
    let mut f = Fixture::new();
    f.desktop.apps.push(SimApp {
        key: "key:other".into(),
        name: "Other".into(),
        instances: 1,
        windows: vec![],
    });
    let r = f.call(json!({"op":"discover","query":"SETT"}));
    assert_eq!(r["status"], "ok");
    assert_eq!(r["apps"].as_array().map(Vec::len), Some(1));
    assert_eq!(r["apps"][0]["name"], "Settings");
    assert_eq!(r["apps"][0]["running"], true);
    let app_ref = r["apps"][0]["appRef"].as_str().unwrap_or("");
    assert!(
        !app_ref.contains("key:"),
        "the backend key leaked: {app_ref}"
    );
    assert!(
        r["hint"]
            .as_str()
            .is_some_and(|h| h.contains("untrusted") && h.contains("empty query"))
    );
    let all = f.call(json!({"op":"discover","query":""}));
    assert_eq!(all["apps"].as_array().map(Vec::len), Some(2));
    // No model, consent or lease is needed to discover (N5).
    assert!(f.model.asked.is_empty() && f.person.questions.is_empty());
    assert_eq!(f.computer.lease(), Lease::Free);
}

#[test]
fn an_app_ref_expires_after_five_minutes_and_refs_are_capped() {
    let mut f = Fixture::new();
    let app_ref = f.app_ref();
    f.now += 300_000;
    f.person.answers.push_back(true);
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_APP_REF_EXPIRED");
    let unknown =
        f.call(json!({"op":"open","appRef":"app_forged","mode":"observe","prepare":false}));
    assert_eq!(code(&unknown), "COMPUTER_APP_REF_EXPIRED");

    let limits = Limits {
        max_app_refs: 3,
        ..Limits::default()
    };
    let mut g = Fixture::with_limits(limits);
    let first = g.app_ref();
    for _ in 0..3 {
        g.app_ref();
    }
    assert!(g.computer.app_refs.len() <= 3);
    assert!(
        !g.computer.app_refs.contains_key(&first),
        "the oldest ref goes first"
    );
}

#[test]
fn open_asks_consent_naming_app_window_mode_model_and_screenshot_recipient() {
    let mut f = Fixture::new();
    let r = f.open("control");
    assert_eq!(r["status"], "open", "{r}");
    assert_eq!(r["mode"], "control");
    assert_eq!(r["budget"]["actionsRemaining"], 80);
    assert_eq!(r["budget"]["modelRequestsRemaining"], 120);
    assert_eq!(r["budget"]["expiresAt"], "2026-11-29T21:46:40.000Z");
    let q = &f.person.questions[0];
    for needle in [
        "Settings",
        "control",
        "test-vision-model",
        "http://127.0.0.1:9/v1",
    ] {
        assert!(q.contains(needle), "{needle} missing from {q}");
    }
    // N8: without prepare nothing is activated; N7: the owner is behind the gate.
    assert!(f.desktop.prepared.is_empty());
    assert!(matches!(f.computer.lease(), Lease::Held { .. }));
}

#[test]
fn prepare_brings_the_window_forward() {
    let mut f = Fixture::new();
    let app_ref = f.app_ref();
    f.person.answers.push_back(true);
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":true}));
    assert_eq!(r["status"], "open");
    assert_eq!(f.desktop.prepared, vec!["win:settings".to_string()]);
}

#[test]
fn denied_or_unanswerable_consent_opens_nothing() {
    let mut f = Fixture::new();
    let app_ref = f.app_ref();
    f.person.answers.push_back(false);
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_AUTHORIZATION_DENIED");
    assert_eq!(f.computer.lease(), Lease::Free);
    assert!(!f.computer.has_session());

    f.interactive = false;
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_AUTHORIZATION_TIMEOUT");
    assert_eq!(f.computer.lease(), Lease::Free);
}

#[test]
fn model_errors_of_n6_come_before_consent() {
    for missing in [
        ErrorCode::ModelRequired,
        ErrorCode::ModelCapabilityRequired,
        ErrorCode::ModelKeyMissing,
    ] {
        let mut f = Fixture::new();
        f.no_model = Some(missing);
        let app_ref = f.app_ref();
        let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}));
        assert_eq!(code(&r), missing.as_string());
        assert!(f.person.questions.is_empty());
    }
}

#[test]
fn several_windows_are_ambiguous_until_a_window_ref_is_copied() {
    let mut f = Fixture::new();
    f.desktop.apps[0]
        .windows
        .push(SimWindow::new("win:second", "Settings — second"));
    let app_ref = f.app_ref();
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_WINDOW_AMBIGUOUS");
    let windows = r["windows"].as_array().cloned().unwrap_or_default();
    assert_eq!(windows.len(), 2);
    assert_eq!(f.computer.lease(), Lease::Free, "a failed open releases");
    let second = windows
        .iter()
        .find(|w| w["title"] == "Settings — second")
        .and_then(|w| w["windowRef"].as_str())
        .unwrap_or_else(|| panic!("{r}"))
        .to_string();
    f.person.answers.push_back(true);
    let r = f.call(
        json!({"op":"open","appRef":app_ref,"windowRef":second,"mode":"observe","prepare":false}),
    );
    assert_eq!(r["window"], "Settings — second", "{r}");

    // A window ref expires like an app ref.
    let mut late = Fixture::new();
    late.desktop = f.desktop.clone();
    let late_app = late.app_ref();
    let r = late.call(json!({"op":"open","appRef":late_app,"mode":"observe","prepare":false}));
    let late_ref = r["windows"][0]["windowRef"]
        .as_str()
        .unwrap_or("")
        .to_string();
    late.now += 300_000;
    let fresh_app = late.app_ref();
    late.person.answers.push_back(true);
    let r = late.call(json!({"op":"open","appRef":fresh_app,"windowRef":late_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_WINDOW_NOT_FOUND", "{r}");
}

#[test]
fn several_instances_and_missing_windows_are_refused() {
    let mut f = Fixture::new();
    f.desktop.apps[0].instances = 2;
    let app_ref = f.app_ref();
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_APP_INSTANCE_AMBIGUOUS");

    let mut g = Fixture::new();
    let app_ref = g.app_ref();
    g.desktop.apps[0].windows.clear();
    g.person.answers.push_back(true);
    let r = g.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_WINDOW_NOT_FOUND");
}

#[test]
fn reopening_the_same_target_is_idempotent_and_another_needs_close_first() {
    let mut f = Fixture::new();
    let app_ref = f.app_ref();
    f.person.answers.push_back(true);
    let open = json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false});
    assert_eq!(f.call(open.clone())["status"], "open");
    assert_eq!(f.call(open)["status"], "open");
    assert_eq!(f.person.questions.len(), 1, "asked once");
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"control","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_CLOSE_BEFORE_TARGET_CHANGE");
    assert!(f.computer.has_session(), "the open session stays");
    // A re-open of a session past its time budget is not reported as open.
    f.now += 900_000;
    let r = f.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_SESSION_BUDGET", "{r}");
}

#[test]
fn observe_without_question_returns_the_accessibility_text_and_verification() {
    let mut f = Fixture::new();
    f.open("observe");
    let r = f.call(json!({"op":"observe","expect":{"kind":"selected","label":"Memories"}}));
    assert_eq!(r["status"], "observed", "{r}");
    let summary: Value = serde_json::from_str(r["text"].as_str().unwrap_or("")).unwrap_or_default();
    assert_eq!(summary["elements"][0]["role"], "AXWindow");
    assert_eq!(r["verification"]["status"], "not_met");
    assert_eq!(r["verified"], false);
    assert!(
        f.model.asked.is_empty(),
        "no model request without a question"
    );
}

#[test]
fn observe_with_a_question_accepts_only_an_answer() {
    let mut f = Fixture::new();
    f.open("observe");
    f.script(&[r#"{"type":"answer","text":"A settings form"}"#]);
    let r = f.call(json!({"op":"observe","question":"What is this?"}));
    assert_eq!(r["status"], "answered");
    assert_eq!(r["answer"], "A settings form");
    assert_eq!(r["verified"], false);
    assert!(f.model.asked[0].1, "asked as read-only");
    f.script(&[CLICK_BOLD]);
    let r = f.call(json!({"op":"observe","question":"Click bold"}));
    assert_eq!(code(&r), "COMPUTER_READ_ONLY_MODEL_OUTPUT");
    assert!(f.desktop.delivered.is_empty());
}

#[test]
fn step_in_observe_mode_is_read_only_and_runs_nothing() {
    let mut f = Fixture::new();
    f.open("observe");
    let r = f.call(json!({"op":"step","goal":"click bold"}));
    assert_eq!(code(&r), "COMPUTER_READ_ONLY");
    assert!(f.desktop.delivered.is_empty());
    assert!(f.model.asked.is_empty());
}

#[test]
fn a_routine_action_runs_without_asking_and_is_verified_from_native_evidence() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[TICK_MEMORIES]);
    let r = f.call(
        json!({"op":"step","goal":"Tick Memories","expect":{"kind":"selected","label":"Memories"}}),
    );
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(r["receipt"]["dispatch"], "completed");
    assert_eq!(r["receipt"]["verification"], "visual");
    assert_eq!(r["verification"]["status"], "satisfied");
    assert_eq!(r["verified"], true);
    assert_eq!(r["budget"]["actionsRemaining"], 79);
    assert_eq!(r["budget"]["modelRequestsRemaining"], 119);
    assert_eq!(f.person.questions.len(), 1, "only the open was asked");
    assert_eq!(f.desktop.delivered.len(), 1);
}

#[test]
fn a_consequential_action_is_asked_and_a_rejection_stops_the_session() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[CLICK_SEND]);
    f.person.answers.push_back(false);
    let r = f.call(json!({"op":"step","goal":"Send the form"}));
    assert_eq!(code(&r), "COMPUTER_ACTION_REJECTED", "{r}");
    let q = f.person.questions.last().cloned().unwrap_or_default();
    assert!(q.contains("click") && q.contains("Send"), "{q}");
    assert!(f.desktop.delivered.is_empty());
    assert!(!f.computer.has_session());
    assert_eq!(f.computer.lease(), Lease::Free);

    let mut g = Fixture::new();
    g.open("control");
    g.script(&[CLICK_SEND]);
    g.person.answers.push_back(true);
    let r = g.call(json!({"op":"step","goal":"Send the form"}));
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(g.desktop.delivered.len(), 1);
}

#[test]
fn a_stop_or_a_deadline_passing_while_the_person_is_asked_sends_nothing() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[CLICK_SEND]);
    f.person.answers.push_back(true);
    f.while_asked = (0, true);
    let r = f.call(json!({"op":"step","goal":"Send"}));
    assert_eq!(r["status"], "stopped", "{r}");
    assert!(f.desktop.delivered.is_empty());
    assert!(!f.computer.has_session());

    let mut g = Fixture::new();
    g.open("control");
    g.script(&[CLICK_SEND, CLICK_SEND]);
    g.person.answers.extend([true, true]);
    g.while_asked = (120_001, false);
    // The first bound action's deadline passed during the question: it is not sent, its slot is
    // refunded, and the step re-plans once with a fresh bound action, asked about again.
    let r = g.call(json!({"op":"step","goal":"Send"}));
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(g.model.asked.len(), 2);
    assert_eq!(
        g.person.questions.len(),
        3,
        "the open and both bound actions"
    );
    assert_eq!(g.desktop.delivered.len(), 1);
    assert_eq!(r["budget"]["actionsRemaining"], 79);
}

#[test]
fn a_proposal_marked_consequential_is_asked_even_on_a_harmless_target() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[
        r#"{"type":"action","action":{"type":"click","x":110,"y":75},"consequential":true}"#,
    ]);
    f.person.answers.push_back(true);
    let r = f.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(r["status"], "done");
    assert_eq!(f.person.questions.len(), 2);
}

#[test]
fn without_an_approver_a_consequential_action_is_held_and_resumed_by_step_never_repredicted() {
    let mut f = Fixture::new();
    f.open("control");
    f.interactive = false;
    f.script(&[CLICK_SEND]);
    let r = f.call(json!({"op":"step","goal":"Send"}));
    assert_eq!(r["status"], "pending_action", "{r}");
    assert_eq!(r["budget"]["actionsRemaining"], 79, "the slot is reserved");
    // observe returns status only (N11).
    let o = f.call(json!({"op":"observe"}));
    assert_eq!(o["status"], "pending_action");
    // step with another goal resumes the same held action: no new prediction.
    f.interactive = true;
    f.person.answers.push_back(true);
    let asked = f.model.asked.len();
    let r = f.call(json!({"op":"step","goal":"something else entirely"}));
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(f.model.asked.len(), asked);
    assert_eq!(r["budget"]["actionsRemaining"], 79, "no new slot");
    assert_eq!(
        f.desktop.delivered,
        vec![("win:settings".to_string(), Action::Click { x: 20, y: 75 })]
    );
}

#[test]
fn a_held_action_times_out_after_the_authorization_limit() {
    let mut f = Fixture::new();
    f.open("control");
    f.interactive = false;
    f.script(&[CLICK_SEND]);
    assert_eq!(
        f.call(json!({"op":"step","goal":"Send"}))["status"],
        "pending_action"
    );
    f.now += 60_000;
    let r = f.call(json!({"op":"step","goal":"Send"}));
    assert_eq!(code(&r), "COMPUTER_AUTHORIZATION_TIMEOUT");
    assert!(!f.computer.has_session());
    assert!(f.desktop.delivered.is_empty());
}

#[test]
fn an_already_satisfied_field_or_selected_skips_input_but_text_never_does() {
    let mut f = Fixture::new();
    f.desktop.apps[0].windows[0].elements[1].selected = Some(true);
    f.open("control");
    let r = f.call(
        json!({"op":"step","goal":"Tick Memories","expect":{"kind":"selected","label":"Memories"}}),
    );
    assert_eq!(r["status"], "condition_satisfied");
    assert_eq!(r["verified"], true);
    assert!(f.model.asked.is_empty(), "N39: no model request");
    assert_eq!(r["budget"]["actionsRemaining"], 80, "N39: no action slot");

    // Text alone never skips the input; text visible before does not verify (N15).
    f.script(&[CLICK_NAME]);
    let r = f.call(
        json!({"op":"step","goal":"Go to settings","expect":{"kind":"text","text":"Memories"}}),
    );
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(r["verification"]["preexisting"], true);
    assert_eq!(
        r["verified"], false,
        "visible before, so it verifies nothing (N15)"
    );
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("already visible"))
    );
}

#[test]
fn finished_is_a_claim_and_takeover_asks_for_the_user() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[
        r#"{"type":"finished","claimedSuccess":true}"#,
        r#"{"type":"takeover","reason":"a captcha"}"#,
    ]);
    let r = f.call(json!({"op":"step","goal":"Done?"}));
    assert_eq!(r["status"], "model_finished");
    assert_eq!(r["claimedSuccess"], true);
    assert_eq!(r["verified"], false);
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("not proof"))
    );
    let r = f.call(json!({"op":"step","goal":"Go on"}));
    assert_eq!(r["status"], "takeover");
    assert_eq!(r["pending"], true);
}

#[test]
fn one_format_retry_only_and_both_attempts_count() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&["not json", TICK_MEMORIES]);
    let r = f.call(json!({"op":"step","goal":"Tick"}));
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(r["budget"]["modelRequestsRemaining"], 118);
    assert!(
        f.model.asked[1].2.is_some(),
        "the retry says what was wrong"
    );

    f.script(&["[1,2]", "still not a proposal"]);
    let r = f.call(json!({"op":"step","goal":"Tick"}));
    assert_eq!(code(&r), "COMPUTER_INVALID_MODEL_OUTPUT");
    assert_eq!(f.desktop.delivered.len(), 1);
    assert!(!f.computer.has_session(), "any error stops the session");
}

#[test]
fn an_http_failure_is_its_code_and_runs_nothing() {
    let mut f = Fixture::new();
    f.open("control");
    f.model.replies.push_back(Err(GroundingError::Http(429)));
    let r = f.call(json!({"op":"step","goal":"Tick"}));
    assert_eq!(code(&r), "COMPUTER_MODEL_HTTP_429");
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("no input was run"))
    );
    assert_eq!(f.model.asked.len(), 1, "no retry");
}

#[test]
fn dispatch_unknown_stops_the_session_and_nothing_is_replayed() {
    let mut f = Fixture::new();
    f.open("control");
    f.desktop
        .dispatch_faults
        .push(DispatchError::Unknown("timed out".into()));
    f.script(&[CLICK_BOLD]);
    let r = f.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(code(&r), "COMPUTER_DISPATCH_UNKNOWN");
    assert_eq!(r["receipt"]["dispatch"], "unknown");
    assert!(!f.computer.has_session());
    assert_eq!(f.computer.lease(), Lease::Free, "released, confirmed");
    let again = f.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(code(&again), "COMPUTER_SESSION_NOT_FOUND");
    assert_eq!(f.desktop.delivered.len(), 1, "sent at most once");
}

#[test]
fn observation_changed_refunds_and_replans_once_then_the_ui_is_unstable() {
    // Changed once before dispatch: one re-plan, then it runs.
    let mut f = Fixture::new();
    f.open("control");
    f.desktop.churn = 2;
    f.script(&[CLICK_BOLD, CLICK_BOLD]);
    let r = f.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(r["status"], "done", "{r}");
    assert_eq!(
        r["budget"]["actionsRemaining"], 79,
        "the first slot was refunded"
    );
    assert_eq!(f.model.asked.len(), 2);
    assert_eq!(f.desktop.delivered.len(), 1);

    // Changed twice: nothing runs.
    let mut g = Fixture::new();
    g.open("control");
    g.desktop.churn = 100;
    g.script(&[CLICK_BOLD, CLICK_BOLD]);
    let r = g.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(code(&r), "COMPUTER_UI_UNSTABLE");
    assert!(g.desktop.delivered.is_empty());
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("no input was run"))
    );
}

#[test]
fn the_third_identical_unchanged_input_never_runs() {
    let mut f = Fixture::new();
    f.open("control");
    let nothing = r#"{"type":"action","action":{"type":"click","x":300,"y":300}}"#;
    f.script(&[nothing, nothing, nothing]);
    for _ in 0..2 {
        assert_eq!(f.call(json!({"op":"step","goal":"poke"}))["status"], "done");
    }
    let r = f.call(json!({"op":"step","goal":"poke"}));
    assert_eq!(code(&r), "COMPUTER_NO_PROGRESS");
    assert_eq!(f.desktop.delivered.len(), 2);
}

#[test]
fn each_budget_is_enforced() {
    let limits = Limits {
        max_actions_per_session: 1,
        ..Limits::default()
    };
    let mut f = Fixture::with_limits(limits);
    f.open("control");
    f.script(&[CLICK_BOLD, CLICK_NAME]);
    assert_eq!(f.call(json!({"op":"step","goal":"Bold"}))["status"], "done");
    let r = f.call(json!({"op":"step","goal":"Name"}));
    assert_eq!(code(&r), "COMPUTER_ACTION_BUDGET");
    assert_eq!(f.desktop.delivered.len(), 1);

    let limits = Limits {
        max_model_requests: 1,
        ..Limits::default()
    };
    let mut g = Fixture::with_limits(limits);
    g.open("control");
    g.script(&["garbage"]);
    let r = g.call(json!({"op":"step","goal":"Bold"}));
    assert_eq!(
        code(&r),
        "COMPUTER_MODEL_BUDGET",
        "the format retry needs a request too"
    );

    let mut h = Fixture::new();
    h.open("control");
    h.now += 900_000;
    let r = h.call(json!({"op":"observe"}));
    assert_eq!(code(&r), "COMPUTER_SESSION_BUDGET");
    assert!(!h.computer.has_session(), "the session is closed");
}

#[test]
fn the_broker_refuses_points_outside_and_typing_without_a_field() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[r#"{"type":"action","action":{"type":"click","x":900,"y":10}}"#]);
    let r = f.call(json!({"op":"step","goal":"far away"}));
    assert_eq!(code(&r), "COMPUTER_COORDINATE_OUTSIDE_WINDOW");

    let mut g = Fixture::new();
    g.open("control");
    g.script(&[r#"{"type":"action","action":{"type":"typeText","text":"Ada"}}"#]);
    let r = g.call(json!({"op":"step","goal":"type the name"}));
    assert_eq!(code(&r), "COMPUTER_EDITABLE_TARGET_REQUIRED");
    assert!(g.desktop.delivered.is_empty());
}

#[test]
fn typing_into_a_field_is_verified_by_its_value() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[
        CLICK_NAME,
        r#"{"type":"action","action":{"type":"typeText","text":"Ada"}}"#,
    ]);
    f.call(json!({"op":"step","goal":"focus the name"}));
    let r = f.call(json!({"op":"step","goal":"type Ada","expect":{"kind":"field","label":"Name","value":"Ada"}}));
    assert_eq!(r["verification"]["status"], "satisfied", "{r}");
    assert_eq!(f.name_value().as_deref(), Some("Ada"));
}

#[test]
fn close_returns_recent_actions_and_opens_the_gate_only_when_confirmed() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[CLICK_BOLD]);
    f.call(json!({"op":"step","goal":"Bold"}));
    f.desktop.release_fails = true;
    let r = f.call(json!({"op":"close"}));
    assert_eq!(r["status"], "stop_unconfirmed");
    assert_eq!(r["errorCode"], "COMPUTER_RELEASE_UNCONFIRMED");
    assert!(
        matches!(f.computer.lease(), Lease::Held { .. }),
        "the gate stays shut"
    );
    f.desktop.release_fails = false;
    let r = f.call(json!({"op":"close"}));
    assert_eq!(r["status"], "stopped");
    assert_eq!(f.computer.lease(), Lease::Free);

    let mut g = Fixture::new();
    g.open("control");
    g.script(&[CLICK_BOLD]);
    g.call(json!({"op":"step","goal":"Make it bold"}));
    let r = g.call(json!({"op":"close"}));
    assert_eq!(r["status"], "stopped");
    let recent = &r["handoff"]["recentActions"];
    assert_eq!(recent[0]["goal"], "Make it bold");
    assert_eq!(recent[0]["dispatch"], "completed");
    assert!(
        r["nextAction"]
            .as_str()
            .is_some_and(|n| n.contains("released"))
    );
    assert_eq!(g.computer.lease(), Lease::Free);
}

#[test]
fn history_keeps_the_last_six_and_is_cleared_on_close() {
    let mut f = Fixture::new();
    f.open("control");
    let clicks: Vec<String> = (0..8)
        .map(|i| {
            format!(
                r#"{{"type":"action","action":{{"type":"click","x":{},"y":500}}}}"#,
                300 + i
            )
        })
        .collect();
    f.script(&clicks.iter().map(String::as_str).collect::<Vec<_>>());
    for i in 0..8 {
        let r = f.call(json!({"op":"step","goal":format!("poke {i}")}));
        assert_eq!(r["status"], "done", "{r}");
    }
    let r = f.call(json!({"op":"close"}));
    let recent = r["handoff"]["recentActions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(recent.len(), 6);
    assert_eq!(recent[0]["goal"], "poke 2");
}

#[test]
fn a_gone_window_revokes_control() {
    let mut f = Fixture::new();
    f.open("control");
    f.desktop.close_window("win:settings");
    // N9: the session's status is stopped; keel forgets it and says so.
    let r = f.call(json!({"op":"observe"}));
    assert_eq!(r["status"], "stopped", "{r}");
    assert!(r["reason"].as_str().is_some_and(|d| d.contains("gone")));
    assert!(!f.computer.has_session());
    assert_eq!(f.computer.lease(), Lease::Free);
    let again = f.call(json!({"op":"observe"}));
    assert_eq!(code(&again), "COMPUTER_SESSION_NOT_FOUND");
}

#[test]
fn disabled_closes_the_session_and_paused_refuses_to_open() {
    let mut f = Fixture::new();
    f.open("control");
    f.enabled = false;
    let r = f.call(json!({"op":"observe"}));
    assert_eq!(code(&r), "COMPUTER_DISABLED");
    assert!(!f.computer.has_session());
    assert_eq!(f.computer.lease(), Lease::Free);

    let mut g = Fixture::new();
    g.open("control");
    g.paused = true;
    let r = g.call(json!({"op":"observe"}));
    assert_eq!(r["status"], "stopped", "{r}");
    assert!(!g.computer.has_session());
    let app_ref = g.app_ref();
    let r = g.call(json!({"op":"open","appRef":app_ref,"mode":"observe","prepare":false}));
    assert_eq!(code(&r), "COMPUTER_CONTROL_PAUSED");
}

#[test]
fn invalid_input_touches_nothing() {
    let mut f = Fixture::new();
    f.open("control");
    let r = f.call(json!({"op":"step","goal":"x","extra":1}));
    assert_eq!(code(&r), "COMPUTER_INVALID_INPUT");
    assert!(
        r["diagnostic"]
            .as_str()
            .is_some_and(|d| d.contains("extra"))
    );
    assert!(f.computer.has_session());
}

#[test]
fn screenshots_go_only_to_a_model_that_takes_images() {
    let mut f = Fixture::new();
    f.desktop.frames = true;
    f.open("control");
    f.script(&[r#"{"type":"answer","text":"ok"}"#]);
    f.call(json!({"op":"observe","question":"what?"}));
    assert_eq!(f.model.frames_seen, 0);
    f.model.images = true;
    f.script(&[r#"{"type":"answer","text":"ok"}"#]);
    f.call(json!({"op":"observe","question":"what?"}));
    assert_eq!(f.model.frames_seen, 1);
}

#[test]
fn a_tree_the_backend_read_only_in_part_verifies_nothing() {
    let mut f = Fixture::new();
    f.desktop.apps[0].windows[0].elements[1].selected = Some(true);
    f.desktop.partial = true;
    f.open("control");
    let r = f.call(json!({"op":"observe","expect":{"kind":"selected","label":"Memories"}}));
    assert_eq!(r["verification"]["status"], "unavailable", "{r}");
    assert_eq!(r["verified"], false);
    let summary: Value = serde_json::from_str(r["text"].as_str().unwrap_or("")).unwrap_or_default();
    assert_eq!(summary["truncated"], true);
}

#[test]
fn a_screenshot_over_the_limits_is_not_sent_and_the_result_says_so() {
    let mut f = Fixture::new();
    f.desktop.frames = true;
    f.desktop.frame_bytes = MAX_FRAME_BYTES + 1;
    f.model.images = true;
    f.open("control");
    f.script(&[r#"{"type":"answer","text":"ok"}"#]);
    let r = f.call(json!({"op":"observe","question":"what?"}));
    assert_eq!(r["status"], "answered");
    assert_eq!(f.model.frames_seen, 0);
    assert!(
        r["screenshot"]
            .as_str()
            .is_some_and(|n| n.contains("not sent")),
        "{r}"
    );

    let mut g = Fixture::new();
    g.desktop.frames = true;
    g.desktop.apps[0].windows[0].width = 5000;
    g.desktop.apps[0].windows[0].height = 4000;
    g.model.images = true;
    g.open("control");
    g.script(&[r#"{"type":"answer","text":"ok"}"#]);
    g.call(json!({"op":"observe","question":"what?"}));
    assert_eq!(g.model.frames_seen, 0, "20 Mpx is over 16");
}

#[test]
fn a_reused_action_id_with_other_content_is_refused() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&[CLICK_BOLD]);
    f.call(json!({"op":"step","goal":"Bold"}));
    let s = f
        .computer
        .session
        .as_mut()
        .unwrap_or_else(|| panic!("open"));
    let (id, _) = s
        .receipts
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or_else(|| panic!("a receipt"));
    let forged = BoundAction {
        action_id: id,
        session_id: s.id.clone(),
        observation_id: "obs".into(),
        broker_epoch: s.epoch,
        generation: s.generation,
        grant_id: s.grant_id.clone(),
        deadline_at: T0 + 1,
        action: Action::Click { x: 1, y: 1 },
        consequential: false,
        goal: String::new(),
        before_digest: String::new(),
        before_summary: String::new(),
        held_since: T0,
    };
    assert!(matches!(
        f.computer.known_receipt(&forged),
        Err(Failure {
            code: ErrorCode::ActionIdReused,
            ..
        })
    ));
}

/// Every limit is one the spec fixes (computer-use.md): the session's time, actions and model
/// requests (N10), an appRef's 5 minutes, the 500 refs kept and the 100 apps listed (N5), an
/// action's deadline of 120 s (N12), an observation's age of 120 s (N22), the 6 history
/// entries (N18) and the 60 s an authorization may wait (N11).
#[test]
fn every_default_limit() {
    let l = Limits::default();
    assert_eq!(l.max_session_duration_ms, 900_000);
    assert_eq!(l.max_actions_per_session, 80);
    assert_eq!(l.max_model_requests, 120);
    assert_eq!(l.app_ref_ttl_ms, 300_000);
    assert_eq!(l.max_app_refs, 500);
    assert_eq!(l.action_deadline_ms, 120_000);
    assert_eq!(l.observation_max_age_ms, 120_000);
    assert_eq!(l.history_entries, 6);
    assert_eq!(l.max_discovered_apps, 100);
    assert_eq!(l.authorization_timeout_ms, 60_000);
}

/// A held action (no approver, consequential) in a fixture whose authorization limit is long.
fn held() -> Fixture {
    let mut f = Fixture::with_limits(Limits {
        authorization_timeout_ms: 600_000,
        ..Limits::default()
    });
    f.open("control");
    f.interactive = false;
    f.script(&[CLICK_SEND]);
    assert_eq!(
        f.call(json!({"op":"step","goal":"Send"}))["status"],
        "pending_action"
    );
    f
}

#[test]
fn a_held_action_past_its_deadline_is_cleared_not_dispatched() {
    let mut f = held();
    f.now += 120_001;
    f.interactive = true;
    f.person.answers.push_back(true);
    let r = f.call(json!({"op":"step","goal":"Send"}));
    assert_eq!(code(&r), "COMPUTER_OBSERVATION_CHANGED", "{r}");
    assert!(r.get("receipt").is_none(), "no receipt: never dispatched");
    assert!(f.desktop.delivered.is_empty());
    assert_eq!(r["nextAction"], ErrorCode::ObservationChanged.next_action());
}

#[test]
fn a_different_action_while_one_is_held_is_refused() {
    let mut f = held();
    let s = f
        .computer
        .session
        .as_ref()
        .unwrap_or_else(|| panic!("a session"));
    let mut other = s.held.clone().unwrap_or_else(|| panic!("a held action"));
    other.action_id = "act_other".into();
    other.consequential = false;
    let observed = Observed {
        id: "obs".into(),
        summary: String::new(),
        digest: String::new(),
        snapshot: Snapshot {
            elements: vec![],
            width: 800,
            height: 600,
            frame: None,
            partial: false,
        },
        frame_note: None,
    };
    let mut env = Env {
        desktop: &mut f.desktop,
        grounder: Err(ErrorCode::ModelRequired),
        consent: None,
        now: Timestamp(f.now),
        enabled: true,
        paused: false,
        recheck: None,
    };
    let result = f
        .computer
        .release_and_dispatch(other, &observed, None, &mut env);
    assert!(matches!(
        result,
        Err(Failure {
            code: ErrorCode::DifferentActionPending,
            ..
        })
    ));
    assert!(f.desktop.delivered.is_empty());
}

#[test]
fn the_broker_refuses_stale_bound_actions_and_stale_observations() {
    let mut f = held();
    let s = f
        .computer
        .session
        .as_ref()
        .unwrap_or_else(|| panic!("a session"));
    let bound = s.held.clone().unwrap_or_else(|| panic!("a held action"));
    let (obs_id, taken, digest) = s.observation.clone().unwrap_or_else(|| panic!("observed"));
    let current = Observed {
        id: obs_id,
        summary: String::new(),
        digest: digest.clone(),
        snapshot: Snapshot {
            elements: vec![],
            width: 800,
            height: 600,
            frame: None,
            partial: false,
        },
        frame_note: None,
    };
    let check = |computer: &mut Computer, e: &BoundAction, now: i64| {
        let mut desktop = SimDesktop::default();
        let env = Env {
            desktop: &mut desktop,
            grounder: Err(ErrorCode::ModelRequired),
            consent: None,
            now: Timestamp(now),
            enabled: true,
            paused: false,
            recheck: None,
        };
        computer
            .broker_checks(e, &current, &env)
            .err()
            .map(|f| f.code)
    };
    let now = f.now;
    assert_eq!(check(&mut f.computer, &bound, now), None);
    for stale in [
        BoundAction {
            broker_epoch: bound.broker_epoch + 1,
            ..bound.clone()
        },
        BoundAction {
            generation: bound.generation + 1,
            ..bound.clone()
        },
        BoundAction {
            grant_id: "grant_forged".into(),
            ..bound.clone()
        },
        BoundAction {
            session_id: "session_other".into(),
            ..bound.clone()
        },
    ] {
        assert_eq!(
            check(&mut f.computer, &stale, now),
            Some(ErrorCode::StaleAction)
        );
    }
    assert_eq!(
        check(&mut f.computer, &bound, bound.deadline_at + 1),
        Some(ErrorCode::StaleAction),
        "past its deadline"
    );
    // An observation older than 120 s, or not the one planned on.
    let late = BoundAction {
        deadline_at: taken.0 + 1_000_000,
        ..bound.clone()
    };
    assert_eq!(
        check(&mut f.computer, &late, taken.0 + 120_001),
        Some(ErrorCode::StaleObservation)
    );
    let other_state = BoundAction {
        before_digest: format!("{digest}x"),
        ..bound
    };
    assert_eq!(
        check(&mut f.computer, &other_state, now),
        Some(ErrorCode::StaleObservation)
    );
}

#[test]
fn several_actions_after_the_retry_are_expected_single_action() {
    let mut f = Fixture::new();
    f.open("control");
    f.script(&["not json", r#"[{"type":"answer","text":"a"}]"#]);
    let r = f.call(json!({"op":"step","goal":"Tick"}));
    assert_eq!(code(&r), "COMPUTER_EXPECTED_SINGLE_ACTION");
    assert!(f.desktop.delivered.is_empty());
}
