//! Dispatch (N12 step 5, N17, N22–N25): binding one proposed action to its state, holding
//! it, asking consent when it is consequential, observing once more just before sending, the
//! broker's staleness checks, sending it once, and recording the receipt and history. The one
//! place an input reaches the desktop.

use serde_json::json;

use super::{
    BoundAction, Computer, Failure, Observed, Outcome, PENDING_NEXT, PREEXISTING_NEXT, Receipt,
    cut, fail, fail_with,
};
use super::{Env, HistoryEntry};
use crate::codes::ErrorCode;
use crate::desktop::DispatchError;
use crate::observation::{
    Action, Expectation, ROLE_TEXT_AREA, ROLE_TEXT_FIELD, VerificationStatus,
};
use crate::{proposal, verify};

impl Computer {
    /// Checks no-progress, reserves a slot and binds the action to the state it was planned
    /// for (N12, N17).
    pub(super) fn plan(
        &mut self,
        goal: &str,
        action: Action,
        marked: bool,
        observed: &Observed,
        env: &mut Env<'_>,
    ) -> Result<BoundAction, Failure> {
        let consequential =
            proposal::is_consequential(marked, &action, &observed.snapshot.elements);
        let max = self.limits.max_actions_per_session;
        let deadline = env.now.0 + self.limits.action_deadline_ms;
        let action_id = self.mint("act");
        let s = self.session_mut()?;
        if s.progress.would_repeat(&action, &observed.digest) {
            return Err(fail(ErrorCode::NoProgress));
        }
        if s.actions_used >= max {
            return Err(fail(ErrorCode::ActionBudget));
        }
        s.actions_used += 1;
        s.generation += 1;
        Ok(BoundAction {
            action_id,
            session_id: s.id.clone(),
            observation_id: observed.id.clone(),
            broker_epoch: s.epoch,
            generation: s.generation,
            grant_id: s.grant_id.clone(),
            deadline_at: deadline,
            action,
            consequential,
            goal: goal.to_string(),
            before_digest: observed.digest.clone(),
            before_summary: observed.summary.clone(),
            held_since: env.now.0,
        })
    }

    /// Holds the action, asks consent when it is consequential, re-checks the window just
    /// before dispatch, sends it once and records what happened (N22–N25).
    pub(super) fn release_and_dispatch(
        &mut self,
        bound: BoundAction,
        planned_on: &Observed,
        expect: Option<&Expectation>,
        env: &mut Env<'_>,
    ) -> Outcome {
        if let Some(receipt) = self.known_receipt(&bound)? {
            return Ok(self.with_budget(json!({"status": "done", "action": bound.action, "receipt": receipt, "verified": false})));
        }
        let is_wait = matches!(bound.action, Action::Wait { .. });
        if !is_wait {
            let s = self.session_mut()?;
            match &s.held {
                Some(h) if h.action_id != bound.action_id => {
                    return Err(fail(ErrorCode::DifferentActionPending));
                }
                _ => s.held = Some(bound.clone()),
            }
        }
        if bound.consequential {
            let target = proposal::target(&planned_on.snapshot.elements, &bound.action)
                .map(|e| format!("{} \"{}\"", e.role, e.label))
                .unwrap_or_else(|| "no identifiable element".into());
            let question = format!(
                "Allow keel to {} in \"{}\"? It lands on {}. Goal: {}",
                bound.action.canonical_json(),
                self.session
                    .as_ref()
                    .map_or("", |s| s.window_title.as_str()),
                target,
                bound.goal
            );
            let subject = json!({"op": "step", "action": bound.action, "target": target});
            let approved = match env.consent.as_mut() {
                // Nobody to ask: the action stays held, and `step` asks again, until the
                // N11 limit (which runs only while no approver is attached).
                None if env.now.0 - bound.held_since >= self.limits.authorization_timeout_ms => {
                    return Err(fail_with(
                        ErrorCode::AuthorizationTimeout,
                        "nobody approved the held action in time",
                    ));
                }
                None => {
                    return Ok(self.with_budget(json!({
                        "status": "pending_action",
                        "action": bound.action,
                        "question": question,
                        "nextAction": PENDING_NEXT,
                    })));
                }
                Some(c) => c.approve(&question, &subject),
            };
            if !approved {
                return Err(fail(ErrorCode::ActionRejected));
            }
            // Time passed while the person read the question, and they may have stopped
            // desktop control meanwhile: the checks below see the world as it is now.
            if let Some(recheck) = env.recheck {
                let (now, paused) = recheck();
                env.now = now;
                env.paused = paused;
            }
            if env.paused {
                let s = self.session_mut()?;
                s.held = None;
                return Err(super::revoked("the user stopped desktop control"));
            }
        }
        // Just before dispatch: the same state it was planned on, or nothing is sent (N24).
        let now_obs = self.snapshot(false, env)?;
        // The summaries themselves, not their digests: the screen text is the attacker's to
        // craft, the digest is not meant to resist that.
        let unchanged = now_obs.summary == bound.before_summary
            && proposal::target(&now_obs.snapshot.elements, &bound.action)
                == proposal::target(&planned_on.snapshot.elements, &bound.action);
        if !unchanged || env.now.0 > bound.deadline_at {
            let s = self.session_mut()?;
            s.held = None;
            s.actions_used = s.actions_used.saturating_sub(1);
            return Err(fail(ErrorCode::ObservationChanged));
        }
        self.broker_checks(&bound, &now_obs, env)?;
        let window = self.session_mut()?.window_key.clone();
        let dispatched = env.desktop.act(&window, &bound.action);
        let digest = bound.digest();
        let s = self.session_mut()?;
        s.held = None;
        let receipt = match &dispatched {
            Ok(()) => Receipt {
                dispatch: "completed",
                outcome: "applied",
                verification: "visual",
            },
            Err(DispatchError::NotStarted(_)) => Receipt {
                dispatch: "notStarted",
                outcome: "notApplied",
                verification: "none",
            },
            Err(DispatchError::Unknown(_)) => Receipt {
                dispatch: "unknown",
                outcome: "unknown",
                verification: "none",
            },
        };
        s.receipts
            .insert(bound.action_id.clone(), (digest, receipt.clone()));
        match dispatched {
            Err(DispatchError::Unknown(d)) => {
                return Err(Failure {
                    code: ErrorCode::DispatchUnknown,
                    diagnostic: Some(d),
                    extra: Some(Box::new(("receipt", json!(receipt)))),
                    revoked: None,
                });
            }
            Err(DispatchError::NotStarted(d)) => {
                return Err(Failure {
                    code: ErrorCode::WindowNotFound,
                    diagnostic: Some(format!("the input was not sent: {d}")),
                    extra: Some(Box::new(("receipt", json!(receipt)))),
                    revoked: None,
                });
            }
            Ok(()) => {}
        }
        let after = self.snapshot(false, env)?;
        let verification =
            expect.map(|e| verify::verify_after(&bound.before_summary, &after.summary, e));
        let history_len = self.limits.history_entries;
        let s = self.session_mut()?;
        s.progress
            .record_completed(&bound.action, &bound.before_digest, &after.digest);
        s.history.push_back(HistoryEntry {
            goal: cut(&bound.goal, 1000),
            action: bound.action.kind().to_string(),
            action_preview: cut(&bound.action.canonical_json(), 1000),
            dispatch: receipt.dispatch.to_string(),
            outcome: receipt.outcome.to_string(),
            after: cut(&after.summary, 2000),
            after_state_digest: Some(after.digest.clone()),
            verification: verification.clone(),
        });
        while s.history.len() > history_len {
            s.history.pop_front();
        }
        // Text already visible before the action does not verify it (N15).
        let verified = verification.as_ref().is_some_and(|v| {
            v.status == VerificationStatus::Satisfied && v.preexisting != Some(true)
        });
        let mut result = json!({
            "status": "done",
            "action": bound.action,
            "actionId": bound.action_id,
            "receipt": receipt,
            "after": after.summary,
            "verified": verified,
        });
        if let Some(v) = verification {
            if v.preexisting == Some(true) {
                result["nextAction"] = json!(PREEXISTING_NEXT);
            }
            result["verification"] = json!(v);
        }
        Ok(self.with_budget(result))
    }

    /// N23: an action id already dispatched returns its receipt when the bound action is the
    /// same, and is refused when it is not.
    pub(super) fn known_receipt(
        &mut self,
        bound: &BoundAction,
    ) -> Result<Option<Receipt>, Failure> {
        let s = self.session_mut()?;
        match s.receipts.get(&bound.action_id) {
            None => Ok(None),
            Some((digest, receipt)) if *digest == bound.digest() => Ok(Some(receipt.clone())),
            Some(_) => Err(fail(ErrorCode::ActionIdReused)),
        }
    }

    /// N22: the bound action must belong to the current session, epoch, generation, grant and
    /// observation, before its deadline, aimed inside the window.
    pub(super) fn broker_checks(
        &mut self,
        bound: &BoundAction,
        current: &Observed,
        env: &Env<'_>,
    ) -> Result<(), Failure> {
        let max_age = self.limits.observation_max_age_ms;
        let s = self.session_mut()?;
        if bound.session_id != s.id
            || bound.broker_epoch != s.epoch
            || bound.generation != s.generation
            || bound.grant_id != s.grant_id
            || env.now.0 > bound.deadline_at
        {
            return Err(fail(ErrorCode::StaleAction));
        }
        // The broker refuses input in observe mode on its own, whatever the caller checked (N9).
        if s.mode == super::Mode::Observe {
            return Err(fail(ErrorCode::ReadOnly));
        }
        match &s.observation {
            Some((_, taken, digest))
                if *digest == bound.before_digest && env.now.0 - taken.0 <= max_age => {}
            _ => return Err(fail(ErrorCode::StaleObservation)),
        }
        if let Some((x, y)) = bound.action.point() {
            let (w, h) = (
                current.snapshot.width as i64,
                current.snapshot.height as i64,
            );
            if x < 0 || y < 0 || i64::from(x) >= w || i64::from(y) >= h {
                return Err(fail(ErrorCode::CoordinateOutsideWindow));
            }
        }
        if let Action::TypeText { x: None, .. } | Action::TypeText { y: None, .. } = bound.action {
            let editable = current.snapshot.elements.iter().any(|e| {
                e.focused == Some(true) && (e.role == ROLE_TEXT_FIELD || e.role == ROLE_TEXT_AREA)
            });
            if !editable {
                return Err(fail(ErrorCode::EditableTargetRequired));
            }
        }
        Ok(())
    }
}
