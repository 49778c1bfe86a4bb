//! The gate: every proposed tool call passes one pipeline before it runs (ARCHITECTURE.md,
//! step 4). The stages run in a fixed order — authority, the desktop lease, policy rules,
//! safety checkers, then ask_user — and the first stage that refuses ends the evaluation:
//! later stages never see a refused call.
//!
//! The authority stage is built in and always first (notifications.md N15a): a response
//! created for a notification may not call tools. The other stages are added by the issues
//! that build them, through [`GateStage`]; [`Gate::new`] takes them in pipeline order and
//! refuses to be built out of order.

use keel_core::ToolCall;
use keel_core::notify::{ResponseOrigin, authorize};

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
}

/// A stage after authority.
pub trait GateStage {
    fn stage(&self) -> Stage;
    fn check(&self, input: &GateInput<'_>) -> StageOutcome;
}

/// The pipeline.
pub struct Gate {
    stages: Vec<Box<dyn GateStage>>,
}

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
        Ok(Self { stages })
    }

    /// Only the authority stage.
    pub fn authority_only() -> Self {
        Self { stages: Vec::new() }
    }

    /// Decides one call.
    pub fn decide(&self, input: &GateInput<'_>) -> Verdict {
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
        Verdict::Allow
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
        let verdict = gate.decide(&GateInput {
            origin: ResponseOrigin::Notification(NotificationKind::Permission),
            call: &c,
        });
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
            Verdict::Allow => panic!("a notification response called a tool"),
        }
        assert_eq!(rules_calls.get(), 0, "a later stage saw a refused call");
        // A real user turn passes authority and reaches the later stage.
        let verdict = gate.decide(&GateInput {
            origin: ResponseOrigin::UserTurn,
            call: &c,
        });
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
        let verdict = gate.decide(&GateInput {
            origin: ResponseOrigin::UserTurn,
            call: &c,
        });
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
