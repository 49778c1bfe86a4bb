//! The error codes keel emits (N31) and each one's `nextAction`: a pure function of the code,
//! in keel's own words. No text suggests replaying an input, switching providers,
//! auto-resuming, guessing identifiers, or getting around a desktop refusal with other tools;
//! the texts of codes where no input ran say so.

use serde::{Serialize, Serializer};

/// Every code of the N31 table. `ModelHttp` carries the HTTP status (`COMPUTER_MODEL_HTTP_<status>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidInput,
    Busy,
    Disabled,
    AppRefExpired,
    ModelRequired,
    ModelCapabilityRequired,
    ModelKeyMissing,
    CloseBeforeTargetChange,
    AuthorizationDenied,
    WindowNotFound,
    WindowAmbiguous,
    ReadOnly,
    SessionBudget,
    ActionBudget,
    ModelBudget,
    AuthorizationTimeout,
    ReadOnlyModelOutput,
    ObservationChanged,
    UiUnstable,
    DispatchUnknown,
    NoProgress,
    InvalidModelOutput,
    ExpectedSingleAction,
    ModelHttp(u16),
    StaleAction,
    StaleObservation,
    CoordinateOutsideWindow,
    EditableTargetRequired,
    ActionIdReused,
    DifferentActionPending,
    ActionRejected,
    SessionNotFound,
    ReleaseUnconfirmed,
    ControlPaused,
    AppInstanceAmbiguous,
}

/// Every code but `ModelHttp`, for tests and documentation.
pub const FIXED_CODES: [ErrorCode; 34] = [
    ErrorCode::InvalidInput,
    ErrorCode::Busy,
    ErrorCode::Disabled,
    ErrorCode::AppRefExpired,
    ErrorCode::ModelRequired,
    ErrorCode::ModelCapabilityRequired,
    ErrorCode::ModelKeyMissing,
    ErrorCode::CloseBeforeTargetChange,
    ErrorCode::AuthorizationDenied,
    ErrorCode::WindowNotFound,
    ErrorCode::WindowAmbiguous,
    ErrorCode::ReadOnly,
    ErrorCode::SessionBudget,
    ErrorCode::ActionBudget,
    ErrorCode::ModelBudget,
    ErrorCode::AuthorizationTimeout,
    ErrorCode::ReadOnlyModelOutput,
    ErrorCode::ObservationChanged,
    ErrorCode::UiUnstable,
    ErrorCode::DispatchUnknown,
    ErrorCode::NoProgress,
    ErrorCode::InvalidModelOutput,
    ErrorCode::ExpectedSingleAction,
    ErrorCode::StaleAction,
    ErrorCode::StaleObservation,
    ErrorCode::CoordinateOutsideWindow,
    ErrorCode::EditableTargetRequired,
    ErrorCode::ActionIdReused,
    ErrorCode::DifferentActionPending,
    ErrorCode::ActionRejected,
    ErrorCode::SessionNotFound,
    ErrorCode::ReleaseUnconfirmed,
    ErrorCode::ControlPaused,
    ErrorCode::AppInstanceAmbiguous,
];

const DEFAULT_NEXT: &str =
    "Do not repeat the same call without a state change; report the error to the user.";

impl ErrorCode {
    /// The code as the wire carries it.
    pub fn as_string(self) -> String {
        match self {
            ErrorCode::ModelHttp(status) => format!("COMPUTER_MODEL_HTTP_{status}"),
            other => other.fixed_name().to_string(),
        }
    }

    fn fixed_name(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "COMPUTER_INVALID_INPUT",
            ErrorCode::Busy => "COMPUTER_BUSY",
            ErrorCode::Disabled => "COMPUTER_DISABLED",
            ErrorCode::AppRefExpired => "COMPUTER_APP_REF_EXPIRED",
            ErrorCode::ModelRequired => "COMPUTER_MODEL_REQUIRED",
            ErrorCode::ModelCapabilityRequired => "COMPUTER_MODEL_CAPABILITY_REQUIRED",
            ErrorCode::ModelKeyMissing => "COMPUTER_MODEL_KEY_MISSING",
            ErrorCode::CloseBeforeTargetChange => "COMPUTER_CLOSE_BEFORE_TARGET_CHANGE",
            ErrorCode::AuthorizationDenied => "COMPUTER_AUTHORIZATION_DENIED",
            ErrorCode::WindowNotFound => "COMPUTER_WINDOW_NOT_FOUND",
            ErrorCode::WindowAmbiguous => "COMPUTER_WINDOW_AMBIGUOUS",
            ErrorCode::ReadOnly => "COMPUTER_READ_ONLY",
            ErrorCode::SessionBudget => "COMPUTER_SESSION_BUDGET",
            ErrorCode::ActionBudget => "COMPUTER_ACTION_BUDGET",
            ErrorCode::ModelBudget => "COMPUTER_MODEL_BUDGET",
            ErrorCode::AuthorizationTimeout => "COMPUTER_AUTHORIZATION_TIMEOUT",
            ErrorCode::ReadOnlyModelOutput => "COMPUTER_READ_ONLY_MODEL_OUTPUT",
            ErrorCode::ObservationChanged => "COMPUTER_OBSERVATION_CHANGED",
            ErrorCode::UiUnstable => "COMPUTER_UI_UNSTABLE",
            ErrorCode::DispatchUnknown => "COMPUTER_DISPATCH_UNKNOWN",
            ErrorCode::NoProgress => "COMPUTER_NO_PROGRESS",
            ErrorCode::InvalidModelOutput => "COMPUTER_INVALID_MODEL_OUTPUT",
            ErrorCode::ExpectedSingleAction => "COMPUTER_EXPECTED_SINGLE_ACTION",
            ErrorCode::ModelHttp(_) => "COMPUTER_MODEL_HTTP",
            ErrorCode::StaleAction => "COMPUTER_STALE_ACTION",
            ErrorCode::StaleObservation => "COMPUTER_STALE_OBSERVATION",
            ErrorCode::CoordinateOutsideWindow => "COMPUTER_COORDINATE_OUTSIDE_WINDOW",
            ErrorCode::EditableTargetRequired => "COMPUTER_EDITABLE_TARGET_REQUIRED",
            ErrorCode::ActionIdReused => "COMPUTER_ACTION_ID_REUSED",
            ErrorCode::DifferentActionPending => "COMPUTER_DIFFERENT_ACTION_PENDING",
            ErrorCode::ActionRejected => "COMPUTER_ACTION_REJECTED",
            ErrorCode::SessionNotFound => "COMPUTER_SESSION_NOT_FOUND",
            ErrorCode::ReleaseUnconfirmed => "COMPUTER_RELEASE_UNCONFIRMED",
            ErrorCode::ControlPaused => "COMPUTER_CONTROL_PAUSED",
            ErrorCode::AppInstanceAmbiguous => "COMPUTER_APP_INSTANCE_AMBIGUOUS",
        }
    }

    /// Whether the session survives this error. N14: any error closes the session, so an
    /// input of unknown delivery is never replayed — except errors about the call itself that
    /// touch no session (bad input, a second call while one is in flight, no session).
    pub fn closes_session(self) -> bool {
        !matches!(
            self,
            ErrorCode::InvalidInput
                | ErrorCode::Busy
                | ErrorCode::SessionNotFound
                | ErrorCode::CloseBeforeTargetChange
                | ErrorCode::ReleaseUnconfirmed
        )
    }

    /// What the model should do next (N31): fixed per code.
    pub fn next_action(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => {
                "Fix the arguments to match the computer_use schema (see tool_manual for computer_use); nothing was run."
            }
            ErrorCode::Busy => {
                "Another computer_use operation is still running for this conversation. Wait for its result; do not start a second one."
            }
            ErrorCode::Disabled => {
                "Computer use is turned off in keel's configuration ([computer_use] enabled). Tell the user; only the user can turn it on."
            }
            ErrorCode::AppRefExpired => {
                "The appRef has expired. Call discover again and copy a fresh appRef from its result."
            }
            ErrorCode::ModelRequired => {
                "No computer-use model is configured. Tell the user to set [computer_use] model in keel's user configuration; the chat model is never used for this."
            }
            ErrorCode::ModelCapabilityRequired => {
                "The configured computer-use model has no computer-use profile keel supports. Tell the user to configure a supported model."
            }
            ErrorCode::ModelKeyMissing => {
                "The computer-use model's API key is not set. Tell the user which environment variable [computer_use] api_key_env names."
            }
            ErrorCode::CloseBeforeTargetChange => {
                "A session with other parameters is open. Call close and wait for status stopped before opening a different target or mode."
            }
            ErrorCode::AuthorizationDenied => {
                "The user did not allow this desktop session. Do not try again or reach the app another way; tell the user it was not opened."
            }
            ErrorCode::WindowNotFound => {
                "The app or window was not found; the diagnostic says why. If the desktop itself cannot be reached (no X display, no accessibility bus), do not call computer_use again: tell the user what to start. Otherwise call discover once more; if the app is not running, tell the user."
            }
            ErrorCode::WindowAmbiguous => {
                "Several windows match. Copy the windowRef of the intended one from windows into open, or ask the user to choose by title if more than one genuinely fits."
            }
            ErrorCode::ReadOnly => {
                "This session is read-only (observe mode): no input was run. Close it and ask the user before opening in control mode."
            }
            ErrorCode::SessionBudget => {
                "The session's time budget is spent and the session is closed. Report what was done; do not start over without the user."
            }
            ErrorCode::ActionBudget => {
                "The session's action budget is spent; no further input will run. Close the session and report what was done."
            }
            ErrorCode::ModelBudget => {
                "The session's model-request budget is spent; no further input will run. Close the session and report what was done."
            }
            ErrorCode::AuthorizationTimeout => {
                "Nobody answered the desktop approval in time and the session is closed. Tell the user it is waiting for their approval."
            }
            ErrorCode::ReadOnlyModelOutput => {
                "The computer-use model proposed an input during observe; no input was run. Rephrase the question as something to read from the window."
            }
            ErrorCode::ObservationChanged => {
                "The window changed before the input was dispatched, so no input was run. Observe again and plan from the new state."
            }
            ErrorCode::UiUnstable => {
                "The window kept changing, so no input was run. Wait, observe again, and tell the user if it does not settle."
            }
            ErrorCode::DispatchUnknown => {
                "It is unknown whether the last input reached the app, so the session is stopped. Never send it again; observe in a new session and tell the user what may have happened."
            }
            ErrorCode::NoProgress => {
                "The same input left the window unchanged twice, so it was not run a third time. Inspect the actual outcome and change the plan."
            }
            ErrorCode::InvalidModelOutput => {
                "The computer-use model's answer was not a valid proposal, and nothing was run. Give a clearer, more concrete goal."
            }
            ErrorCode::ExpectedSingleAction => {
                "The computer-use model proposed more than one action, and nothing was run. Ask for one concrete GUI action per step."
            }
            ErrorCode::ModelHttp(_) => {
                "The computer-use model's endpoint answered with an HTTP error, and no input was run. Report it to the user."
            }
            ErrorCode::StaleAction => {
                "The proposed action belonged to an earlier state of the session and was not run. Observe again."
            }
            ErrorCode::StaleObservation => {
                "The observation the action was planned on is too old, and the action was not run. Observe again."
            }
            ErrorCode::CoordinateOutsideWindow => {
                "The proposed point lies outside the window, and nothing was run. Observe again and aim inside the window."
            }
            ErrorCode::EditableTargetRequired => {
                "No editable field has focus, so the text was not typed. Aim the step at the field first."
            }
            ErrorCode::ActionIdReused => {
                "An action id was reused for a different action and refused. Report the error to the user."
            }
            ErrorCode::DifferentActionPending => {
                "Another action is waiting for approval. Resume it with step, or close the session."
            }
            ErrorCode::ActionRejected => {
                "The user rejected the action and the session is stopped. Do not try the effect another way; ask the user what they want instead."
            }
            ErrorCode::SessionNotFound => {
                "No computer_use session is open. Call discover and open first."
            }
            ErrorCode::ReleaseUnconfirmed => {
                "The desktop did not confirm the release, so other tools stay blocked. Call close again; never use other tools to get around the desktop lease."
            }
            ErrorCode::ControlPaused => {
                "The user stopped desktop control. Only the user can resume it locally (keel computer resume); tell them, and do not retry."
            }
            ErrorCode::AppInstanceAmbiguous => {
                "Several processes of this app are running, which keel does not support. Ask the user to leave one running."
            }
        }
    }
}

/// The default guidance when no code applies.
pub fn default_next_action() -> &'static str {
    DEFAULT_NEXT
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_name_and_a_text() {
        let mut seen = std::collections::HashSet::new();
        for code in FIXED_CODES {
            let name = code.as_string();
            assert!(name.starts_with("COMPUTER_"), "{name}");
            assert!(seen.insert(name.clone()), "{name} twice");
            assert!(!code.next_action().is_empty());
        }
        assert_eq!(
            ErrorCode::ModelHttp(429).as_string(),
            "COMPUTER_MODEL_HTTP_429"
        );
    }

    #[test]
    fn texts_where_no_input_ran_say_so() {
        for code in [
            ErrorCode::ObservationChanged,
            ErrorCode::UiUnstable,
            ErrorCode::ModelHttp(500),
            ErrorCode::ReadOnlyModelOutput,
        ] {
            assert!(
                code.next_action().contains("no input was run"),
                "{}: {}",
                code.as_string(),
                code.next_action()
            );
        }
    }

    #[test]
    fn no_text_suggests_replaying_switching_or_bypassing() {
        let forbidden = [
            "retry the same",
            "send it again and",
            "try another provider",
            "switch provider",
            "use the shell",
            "use shell",
            "resume automatically",
            "guess",
        ];
        for code in FIXED_CODES {
            let text = code.next_action().to_lowercase();
            for f in forbidden {
                assert!(!text.contains(f), "{}: {text}", code.as_string());
            }
        }
    }
}
