//! The gate: every proposed tool call passes one pipeline before it runs (ARCHITECTURE.md,
//! step 4). The stages run in a fixed order — authority, the desktop lease, policy rules,
//! safety checkers, then ask_user — and the first stage that refuses ends the evaluation:
//! later stages never see a refused call.
//!
//! The authority stage is built in and always first (notifications.md N15a): a response
//! created for a notification may not call tools. Stages between it and the policy (the
//! desktop lease) plug in through [`GateStage`], in pipeline order. The policy stages — rules,
//! then checkers — come from a [`PolicyGate`], and an ask_user decision goes to a real person
//! through an [`Approver`]; without one (non-interactive) it is a deny with safety.md N35's
//! reason.

use keel_core::ToolCall;
use keel_core::item::Item;
use keel_core::notify::{ResponseOrigin, authorize};
use keel_core::policy::Decision;
use keel_core::policy::protocol::FunctionCall;
use keel_core::policy::provenance::ProvenanceIndex;
use keel_core::policy::rules::{Final, non_interactive};

use crate::approval::{Answer, Approver};
use crate::policy_gate::{CallToDecide, HistorySource, PolicyGate};

/// The pipeline's stages, in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Authority,
    DesktopLease,
    Rules,
    Checkers,
    AskUser,
}

/// What the gate decided for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Dispatch the call.
    Allow,
    /// Dispatch the call: a person allowed it when asked.
    Approved {
        answer: Answer,
        reasons: Vec<String>,
    },
    /// Do not dispatch. `tool_result` answers the call for the model; `reason` is shown to
    /// the user. Both say why.
    Refuse {
        stage: Stage,
        reason: String,
        tool_result: String,
    },
}

/// What one stage says about a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageOutcome {
    /// Nothing against it: go on to the next stage.
    Pass,
    /// Refused: the gate stops here.
    Refuse { reason: String, tool_result: String },
}

/// Everything a stage may look at.
#[derive(Clone, Copy, Debug)]
pub struct GateInput<'a> {
    pub origin: ResponseOrigin,
    pub call: &'a ToolCall,
    /// The run's conversation so far: history for checkers, provenance for the gate.
    pub items: &'a [Item],
}

/// A stage after authority.
pub trait GateStage {
    fn stage(&self) -> Stage;
    fn check(&self, input: &GateInput<'_>) -> StageOutcome;
}

/// The pipeline.
pub struct Gate {
    stages: Vec<Box<dyn GateStage>>,
    policy: Option<PolicyGate>,
}

/// The tool result of a call the user refused.
pub const USER_DENIED_RESULT: &str = "The user denied this tool call.";

#[derive(Debug, thiserror::Error)]
#[error("gate stages must follow the pipeline order; {got:?} cannot come after {after:?}")]
pub struct StageOrder {
    pub after: Stage,
    pub got: Stage,
}

impl Gate {
    /// A gate with the authority stage first and `stages` after it, which must be in
    /// pipeline order.
    pub fn new(stages: Vec<Box<dyn GateStage>>) -> Result<Self, StageOrder> {
        let mut last = Stage::Authority;
        for s in &stages {
            if s.stage() <= last {
                return Err(StageOrder {
                    after: last,
                    got: s.stage(),
                });
            }
            last = s.stage();
        }
        Ok(Self {
            stages,
            policy: None,
        })
    }

    /// Only the authority stage.
    pub fn authority_only() -> Self {
        Self {
            stages: Vec::new(),
            policy: None,
        }
    }

    /// Adds the policy stages (rules, checkers, ask_user) after the others.
    pub fn with_policy(mut self, policy: PolicyGate) -> Result<Self, StageOrder> {
        if let Some(s) = self.stages.iter().find(|s| s.stage() >= Stage::Rules) {
            return Err(StageOrder {
                after: s.stage(),
                got: Stage::Rules,
            });
        }
        self.policy = Some(policy);
        Ok(self)
    }

    /// The policy stages, if the gate has them.
    pub fn policy(&self) -> Option<&PolicyGate> {
        self.policy.as_ref()
    }

    /// Decides one call. `approver` answers ask_user; `None` means nobody can (non-interactive).
    pub fn decide(&self, input: &GateInput<'_>, approver: Option<&mut dyn Approver>) -> Verdict {
        if let Some(refusal) = authorize(input.origin, std::slice::from_ref(input.call)).pop() {
            return Verdict::Refuse {
                stage: Stage::Authority,
                reason: format!(
                    "tool call {} ({}) refused: a response to a notification may not call tools",
                    refusal.call_id, refusal.tool
                ),
                tool_result: refusal.result.to_string(),
            };
        }
        for stage in &self.stages {
            if let StageOutcome::Refuse {
                reason,
                tool_result,
            } = stage.check(input)
            {
                return Verdict::Refuse {
                    stage: stage.stage(),
                    reason,
                    tool_result,
                };
            }
        }
        match &self.policy {
            Some(policy) => Self::decide_policy(policy, input, approver),
            None => Verdict::Allow,
        }
    }

    fn decide_policy(
        policy: &PolicyGate,
        input: &GateInput<'_>,
        approver: Option<&mut dyn Approver>,
    ) -> Verdict {
        let provenance = ProvenanceIndex::from_items(input.items);
        let decision = policy.decide(&CallToDecide {
            call: FunctionCall {
                name: input.call.name.clone(),
                args: input.call.arguments.clone(),
                id: Some(input.call.id.clone()),
            },
            history: HistorySource::Items(input.items),
            provenance: &provenance,
        });
        let refuse = |stage: Stage, outcome: &Final| {
            let text = outcome.reasons.join("; ");
            Verdict::Refuse {
                stage,
                reason: text.clone(),
                tool_result: text,
            }
        };
        match decision.outcome.decision {
            Decision::Allow => Verdict::Allow,
            Decision::Deny => {
                let stage = if decision.rule.decision == Decision::Deny {
                    Stage::Rules
                } else {
                    Stage::Checkers
                };
                refuse(stage, &decision.outcome)
            }
            Decision::AskUser => match approver {
                Some(approver) if policy.env().interactive => {
                    match approver.ask(input.call, &decision.outcome.reasons) {
                        Answer::Deny => Verdict::Refuse {
                            stage: Stage::AskUser,
                            reason: format!(
                                "You denied {} ({}).",
                                input.call.name,
                                decision.outcome.reasons.join("; ")
                            ),
                            tool_result: format!(
                                "{USER_DENIED_RESULT} It needed confirmation because: {}",
                                decision.outcome.reasons.join("; ")
                            ),
                        },
                        answer => {
                            if answer == Answer::AllowForRun {
                                policy.allow_for_run(&input.call.name);
                            }
                            Verdict::Approved {
                                answer,
                                reasons: decision.outcome.reasons,
                            }
                        }
                    }
                }
                _ => refuse(Stage::AskUser, &non_interactive(decision.outcome)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use keel_core::notify::{NOT_AUTHORIZED_RESULT, NotificationKind};

    use super::*;

    struct Counting {
        stage: Stage,
        calls: Rc<Cell<u32>>,
        refuse: bool,
    }

    impl GateStage for Counting {
        fn stage(&self) -> Stage {
            self.stage
        }
        fn check(&self, _: &GateInput<'_>) -> StageOutcome {
            self.calls.set(self.calls.get() + 1);
            if self.refuse {
                StageOutcome::Refuse {
                    reason: format!("{:?} says no", self.stage),
                    tool_result: "denied".into(),
                }
            } else {
                StageOutcome::Pass
            }
        }
    }

    fn call() -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "write_file".into(),
            arguments: serde_json::json!({"path": "a"}),
        }
    }

    fn counting(stage: Stage, refuse: bool) -> (Box<dyn GateStage>, Rc<Cell<u32>>) {
        let calls = Rc::new(Cell::new(0));
        (
            Box::new(Counting {
                stage,
                calls: calls.clone(),
                refuse,
            }),
            calls,
        )
    }

    #[test]
    fn authority_is_first_and_stops_every_later_stage() -> Result<(), StageOrder> {
        let (rules, rules_calls) = counting(Stage::Rules, false);
        let gate = Gate::new(vec![rules])?;
        let c = call();
        let verdict = gate.decide(
            &GateInput {
                origin: ResponseOrigin::Notification(NotificationKind::Permission),
                call: &c,
                items: &[],
            },
            None,
        );
        match verdict {
            Verdict::Refuse {
                stage,
                tool_result,
                reason,
            } => {
                assert_eq!(stage, Stage::Authority);
                assert_eq!(tool_result, NOT_AUTHORIZED_RESULT);
                assert!(reason.contains("notification"), "{reason}");
            }
            other => panic!("a notification response called a tool: {other:?}"),
        }
        assert_eq!(rules_calls.get(), 0, "a later stage saw a refused call");
        // A real user turn passes authority and reaches the later stage.
        let verdict = gate.decide(
            &GateInput {
                origin: ResponseOrigin::UserTurn,
                call: &c,
                items: &[],
            },
            None,
        );
        assert_eq!(verdict, Verdict::Allow);
        assert_eq!(rules_calls.get(), 1);
        Ok(())
    }

    #[test]
    fn a_refusing_stage_stops_the_later_ones() -> Result<(), StageOrder> {
        let (lease, lease_calls) = counting(Stage::DesktopLease, true);
        let (rules, rules_calls) = counting(Stage::Rules, false);
        let gate = Gate::new(vec![lease, rules])?;
        let c = call();
        let verdict = gate.decide(
            &GateInput {
                origin: ResponseOrigin::UserTurn,
                call: &c,
                items: &[],
            },
            None,
        );
        assert!(matches!(
            verdict,
            Verdict::Refuse {
                stage: Stage::DesktopLease,
                ..
            }
        ));
        assert_eq!((lease_calls.get(), rules_calls.get()), (1, 0));
        Ok(())
    }

    #[test]
    fn stages_must_come_in_pipeline_order() {
        let (rules, _) = counting(Stage::Rules, false);
        let (lease, _) = counting(Stage::DesktopLease, false);
        assert!(Gate::new(vec![rules, lease]).is_err());
        let (authority, _) = counting(Stage::Authority, false);
        assert!(Gate::new(vec![authority]).is_err(), "authority is built in");
    }
}
