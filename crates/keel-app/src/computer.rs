//! Computer use in a session: `[computer_use]` turned into a [`ComputerHub`] (the desktop
//! backend the front end hands over, behind its deadlines; the computer-use model, never the
//! chat model). What is wrong with the table is an error; what keeps the model from being
//! used is the N6 code the first `open` reports, and a notice says why now.

use std::path::Path;
use std::time::Duration;

use keel_computer::codes::ErrorCode;
use keel_computer::session::{Grounder, Limits};
use keel_model::openai::{HttpSettings, OpenAiModel, is_loopback};
use keel_model::scripted::ScriptedModel;
use keel_runtime::computer::{
    ComputerHub, ComputerSettings, Deadlines, ModelGrounder, TimedDesktop,
};
use keel_store::SqliteStore;

use crate::AppError;
use crate::config::ComputerUseConfig;
use crate::session::{DesktopOpener, Notices};

/// How long the computer-use model may take to answer, without `[computer_use]
/// model_timeout_ms`.
pub const DEFAULT_MODEL_TIMEOUT: Duration = Duration::from_secs(60);

/// The budgets and limits `[computer_use]` sets (N10, N44).
pub fn limits(c: &ComputerUseConfig) -> Result<Limits, AppError> {
    let mut l = Limits::default();
    // N10: the session duration's default is also its maximum.
    let max_session_duration_ms = l.max_session_duration_ms;
    if let Some(ms) = c.max_session_duration_ms {
        if !(1..=max_session_duration_ms).contains(&ms) {
            return Err(AppError::Setup(format!(
                "[computer_use] max_session_duration_ms must be 1 to {max_session_duration_ms}, \
                 not {ms}"
            )));
        }
        l.max_session_duration_ms = ms;
    }
    l.max_actions_per_session = c
        .max_actions_per_session
        .unwrap_or(l.max_actions_per_session);
    l.max_model_requests = c.max_model_requests.unwrap_or(l.max_model_requests);
    l.app_ref_ttl_ms = c.app_ref_ttl_ms.unwrap_or(l.app_ref_ttl_ms);
    l.action_deadline_ms = c.action_deadline_ms.unwrap_or(l.action_deadline_ms);
    l.authorization_timeout_ms = c
        .authorization_timeout_ms
        .unwrap_or(l.authorization_timeout_ms);
    l.observation_max_age_ms = c.observation_max_age_ms.unwrap_or(l.observation_max_age_ms);
    if let Some(n) = c.max_app_refs {
        if n == 0 {
            return Err(AppError::Setup(
                "[computer_use] max_app_refs must be at least 1: every session needs a ref".into(),
            ));
        }
        l.max_app_refs = n;
    }
    Ok(l)
}

fn deadlines(c: &ComputerUseConfig) -> Deadlines {
    let mut d = Deadlines::default();
    if let Some(ms) = c.endpoint_timeout_ms {
        d.endpoint = Duration::from_millis(ms);
    }
    if let Some(ms) = c.release_timeout_ms {
        d.release = Duration::from_millis(ms);
    }
    d
}

/// The computer-use model (N6, N6a, N21): its own `model`, `base_url` and `api_key_env`; no
/// retries; HTTPS or loopback only. What is missing is the N6 code the first `open` reports,
/// and a notice says why now too.
fn grounder(
    c: &ComputerUseConfig,
    notices: &Notices,
) -> Result<Box<dyn Grounder + Send>, ErrorCode> {
    let Some(spec) = c.model.as_deref() else {
        return Err(ErrorCode::ModelRequired);
    };
    if let Some(path) = spec.strip_prefix("script:") {
        return match ScriptedModel::from_file(Path::new(path)) {
            Ok(m) => Ok(Box::new(ModelGrounder::new(Box::new(m), spec))),
            Err(e) => {
                notices(&format!("[computer_use] model {spec}: {e}"));
                Err(ErrorCode::ModelCapabilityRequired)
            }
        };
    }
    let Some(name) = spec.strip_prefix("openai:") else {
        notices(&format!(
            "[computer_use] model {spec:?} has no computer-use profile: use openai:MODEL \
             (a model that answers in JSON from an accessibility tree)"
        ));
        return Err(ErrorCode::ModelCapabilityRequired);
    };
    let base = c
        .base_url
        .as_deref()
        .unwrap_or(keel_model::openai::DEFAULT_BASE_URL);
    if !base.starts_with("https://") && !is_loopback(base) {
        notices(&format!(
            "[computer_use] base_url {base} is neither HTTPS nor loopback; screen content \
             is only sent over HTTPS or to this machine"
        ));
        return Err(ErrorCode::ModelCapabilityRequired);
    }
    let mut s = HttpSettings::new(base, name);
    let key_env = c
        .api_key_env
        .as_deref()
        .unwrap_or(keel_model::openai::DEFAULT_API_KEY_ENV);
    s.api_key = std::env::var(key_env).ok().filter(|k| !k.is_empty());
    s.api_key_source = format!("${key_env}");
    if s.api_key.is_none() && !is_loopback(base) {
        return Err(ErrorCode::ModelKeyMissing);
    }
    s.max_retries = 0;
    s.follow_redirects = false;
    s.read_timeout = c
        .model_timeout_ms
        .map_or(DEFAULT_MODEL_TIMEOUT, Duration::from_millis);
    match OpenAiModel::new(s) {
        Ok(m) => {
            let g = ModelGrounder::new(Box::new(m), base);
            Ok(Box::new(if c.images == Some(true) {
                g.seeing()
            } else {
                g
            }))
        }
        Err(e) => {
            notices(&format!("[computer_use] model {spec}: {e}"));
            Err(ErrorCode::ModelCapabilityRequired)
        }
    }
}

/// The hub of a session whose configuration has `[computer_use]` (without it, no computer-use
/// tool is offered at all): `store` is its own connection, `desktop` the front end's backend.
pub fn hub(
    c: &ComputerUseConfig,
    store: SqliteStore,
    desktop: Option<&DesktopOpener>,
    notices: &Notices,
    clock: fn() -> keel_core::Timestamp,
) -> Result<ComputerHub, AppError> {
    let settings = ComputerSettings {
        enabled: c.enabled.unwrap_or(false),
        limits: limits(c)?,
    };
    let desktop = match desktop {
        Some(open) => open(),
        // A front end that hands over no backend: every operation says so.
        None => Box::new(keel_runtime::computer::LazyDesktop::new(|| {
            Err(keel_computer::desktop::DesktopError::Unavailable(
                "this front end has no desktop backend".into(),
            ))
        })),
    };
    let timed = TimedDesktop::new(desktop, deadlines(c));
    Ok(ComputerHub::new(
        settings,
        Box::new(timed),
        grounder(c, notices),
        Box::new(store),
        clock,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> Notices {
        std::sync::Arc::new(|_| {})
    }

    #[test]
    fn limits_follow_the_table_and_the_session_maximum_holds() {
        let c = ComputerUseConfig {
            max_actions_per_session: Some(3),
            max_session_duration_ms: Some(60_000),
            observation_max_age_ms: Some(5_000),
            max_app_refs: Some(7),
            ..ComputerUseConfig::default()
        };
        let l = limits(&c).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(l.max_actions_per_session, 3);
        assert_eq!(l.max_session_duration_ms, 60_000);
        assert_eq!(l.observation_max_age_ms, 5_000);
        assert_eq!(l.max_app_refs, 7);
        let no_refs = ComputerUseConfig {
            max_app_refs: Some(0),
            ..ComputerUseConfig::default()
        };
        assert!(limits(&no_refs).is_err());
        let too_long = ComputerUseConfig {
            max_session_duration_ms: Some(900_001),
            ..ComputerUseConfig::default()
        };
        assert!(limits(&too_long).is_err());
    }

    #[test]
    fn the_model_is_never_inherited_and_must_be_reachable_safely() {
        let none = ComputerUseConfig::default();
        assert_eq!(
            grounder(&none, &quiet()).err(),
            Some(ErrorCode::ModelRequired)
        );
        let local = ComputerUseConfig {
            model: Some("local".into()),
            ..ComputerUseConfig::default()
        };
        assert_eq!(
            grounder(&local, &quiet()).err(),
            Some(ErrorCode::ModelCapabilityRequired)
        );
        let plain_http = ComputerUseConfig {
            model: Some("openai:gpt".into()),
            base_url: Some("http://example.com/v1".into()),
            ..ComputerUseConfig::default()
        };
        assert_eq!(
            grounder(&plain_http, &quiet()).err(),
            Some(ErrorCode::ModelCapabilityRequired)
        );
        let no_key = ComputerUseConfig {
            model: Some("openai:gpt".into()),
            base_url: Some("https://example.com/v1".into()),
            api_key_env: Some("KEEL_TEST_NO_SUCH_KEY_VAR".into()),
            ..ComputerUseConfig::default()
        };
        assert_eq!(
            grounder(&no_key, &quiet()).err(),
            Some(ErrorCode::ModelKeyMissing)
        );
        let loopback = ComputerUseConfig {
            model: Some("openai:gpt".into()),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..ComputerUseConfig::default()
        };
        assert!(grounder(&loopback, &quiet()).is_ok());
    }

    #[test]
    fn every_default_deadline_and_override() {
        let d = deadlines(&ComputerUseConfig::default());
        assert_eq!(d, Deadlines::default());
        let d = deadlines(&ComputerUseConfig {
            endpoint_timeout_ms: Some(10),
            release_timeout_ms: Some(20),
            ..ComputerUseConfig::default()
        });
        assert_eq!(d.endpoint, Duration::from_millis(10));
        assert_eq!(d.release, Duration::from_millis(20));
    }
}
