//! The no-progress counter (N17, N34, N37): the same input on the same unchanged window, twice
//! with nothing to show for it, is not tried a third time; the session machine fails the
//! proposal with `COMPUTER_NO_PROGRESS` before anything is dispatched.
//!
//! Unlike the reference, a `wait` neither counts nor resets (N34): there a completed `wait`
//! reset the count, so "click, wait, click, wait, ..." never tripped the check and ran until the
//! action budget was gone. The counter is loop detection only; it is no guarantee against a
//! duplicate business write (N35).

use serde_json::Value;

use super::observation::Action;

/// How many identical unchanged inputs may complete before the next identical one is refused.
pub const MAX_UNCHANGED_REPEATS: u32 = 2;

/// The counted key and how many completed inputs in a row had it and changed nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoProgress {
    key: Option<String>,
    count: u32,
}

impl NoProgress {
    pub fn new() -> Self {
        Self::default()
    }

    /// Compact JSON of `[action, beforeDigest]` (N37). The action's fields come in the declared
    /// order of [`Action`], so equal actions on equal states give equal keys whatever order the
    /// model wrote the fields in.
    pub fn key(action: &Action, before_digest: &str) -> String {
        format!(
            "[{},{}]",
            action.canonical_json(),
            Value::from(before_digest)
        )
    }

    /// True when dispatching `action` on the state `before_digest` would be the third identical
    /// input on an unchanged window: the caller then fails `COMPUTER_NO_PROGRESS` and dispatches
    /// nothing. A `wait` is never refused; it is not counted either.
    pub fn would_repeat(&self, action: &Action, before_digest: &str) -> bool {
        if is_wait(action) || self.count < MAX_UNCHANGED_REPEATS {
            return false;
        }
        self.key.as_deref() == Some(Self::key(action, before_digest).as_str())
    }

    /// Records one input whose receipt says `dispatch:"completed"`; the caller records nothing
    /// else, since an input that may not have run is no evidence that repeating it is futile.
    pub fn record_completed(&mut self, action: &Action, before_digest: &str, after_digest: &str) {
        if is_wait(action) {
            // N34: waiting is how a model lets a slow app catch up; it must not hide a loop.
            return;
        }
        if after_digest != before_digest {
            self.key = None;
            self.count = 0;
            return;
        }
        let key = Self::key(action, before_digest);
        if self.key.as_deref() == Some(key.as_str()) {
            self.count = self.count.saturating_add(1);
        } else {
            self.key = Some(key);
            self.count = 1;
        }
    }

    /// The key being counted, if any.
    pub fn counted_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// How many completed inputs in a row had the counted key and changed nothing.
    pub fn count(&self) -> u32 {
        self.count
    }
}

fn is_wait(action: &Action) -> bool {
    matches!(action, Action::Wait { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "d0";
    const E: &str = "e1";

    fn click(x: i32, y: i32) -> Action {
        Action::Click { x, y }
    }

    fn wait() -> Action {
        Action::Wait { ms: 500 }
    }

    fn type_a() -> Action {
        Action::TypeText {
            text: "a".into(),
            x: None,
            y: None,
        }
    }

    /// Records each action as completed on D with D after.
    fn unchanged(actions: &[Action]) -> NoProgress {
        let mut np = NoProgress::new();
        for a in actions {
            assert!(!np.would_repeat(a, D), "{a:?} refused early: {np:?}");
            np.record_completed(a, D, D);
        }
        np
    }

    // T4, row by row.

    #[test]
    fn t4_third_identical_unchanged_click_is_refused() {
        let np = unchanged(&[click(10, 10), click(10, 10)]);
        assert_eq!(np.count(), 2);
        assert!(np.would_repeat(&click(10, 10), D));
    }

    #[test]
    fn t4_a_changed_digest_gives_a_new_key() {
        // The window changed on its own between the second click and the third proposal.
        let np = unchanged(&[click(10, 10), click(10, 10)]);
        assert!(!np.would_repeat(&click(10, 10), E));
        // The second click itself changed the window.
        let mut np = unchanged(&[click(10, 10)]);
        np.record_completed(&click(10, 10), D, E);
        assert_eq!((np.counted_key(), np.count()), (None, 0));
        assert!(!np.would_repeat(&click(10, 10), E));
    }

    #[test]
    fn t4_waits_neither_count_nor_reset() {
        let np = unchanged(&[click(10, 10), wait(), click(10, 10), wait()]);
        assert_eq!(np.count(), 2);
        assert!(np.would_repeat(&click(10, 10), D));
    }

    #[test]
    fn t4_a_different_key_restarts_the_count() {
        let mut np = unchanged(&[click(10, 10), type_a()]);
        assert_eq!(np.count(), 1);
        assert_eq!(
            np.counted_key(),
            Some(NoProgress::key(&type_a(), D).as_str())
        );
        assert!(!np.would_repeat(&click(10, 10), D));
        np.record_completed(&click(10, 10), D, D);
        assert_eq!(np.count(), 1);
        assert!(!np.would_repeat(&click(10, 10), D));
    }

    // N17, N34, N37, the rest.

    #[test]
    fn key_is_compact_json_of_action_and_digest() {
        assert_eq!(
            NoProgress::key(&click(10, 20), "abc"),
            r#"[{"type":"click","x":10,"y":20},"abc"]"#
        );
        assert_eq!(
            NoProgress::key(
                &Action::Scroll {
                    x: 1,
                    y: 2,
                    dx: 0,
                    dy: -3
                },
                "a\"b"
            ),
            r#"[{"type":"scroll","x":1,"y":2,"dx":0,"dy":-3},"a\"b"]"#
        );
        let parsed: Value = serde_json::from_str(&NoProgress::key(&type_a(), "q\n")).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!([{"type": "typeText", "text": "a"}, "q\n"])
        );
    }

    #[test]
    fn key_ignores_the_order_the_model_wrote_fields_in() {
        let a: Action = serde_json::from_str(r#"{"y":20,"type":"click","x":10}"#).unwrap();
        let b: Action = serde_json::from_str(r#"{"type":"click","x":10,"y":20}"#).unwrap();
        assert_eq!(NoProgress::key(&a, D), NoProgress::key(&b, D));
    }

    #[test]
    fn key_tells_actions_and_states_apart() {
        let keys = [
            NoProgress::key(&click(10, 10), D),
            NoProgress::key(&click(10, 11), D),
            NoProgress::key(&click(10, 10), E),
            NoProgress::key(&type_a(), D),
            NoProgress::key(
                &Action::TypeText {
                    text: "a".into(),
                    x: Some(10),
                    y: Some(10),
                },
                D,
            ),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn a_changed_window_resets_the_count() {
        let mut np = unchanged(&[click(10, 10), click(10, 10)]);
        np.record_completed(&type_a(), D, E);
        assert_eq!((np.counted_key(), np.count()), (None, 0));
        assert!(!np.would_repeat(&click(10, 10), D));
        // Counting starts over from one.
        np.record_completed(&click(10, 10), D, D);
        assert_eq!(np.count(), 1);
        assert!(!np.would_repeat(&click(10, 10), D));
    }

    #[test]
    fn a_wait_that_changes_the_window_still_does_not_reset() {
        let mut np = unchanged(&[click(10, 10), click(10, 10)]);
        np.record_completed(&wait(), D, E);
        assert_eq!(np.count(), 2);
        assert!(np.would_repeat(&click(10, 10), D));
    }

    #[test]
    fn a_wait_is_never_refused() {
        let mut np = NoProgress::new();
        for _ in 0..10 {
            assert!(!np.would_repeat(&wait(), D));
            np.record_completed(&wait(), D, D);
        }
        assert_eq!((np.counted_key(), np.count()), (None, 0));
    }

    #[test]
    fn a_different_action_on_a_counted_state_is_allowed() {
        let np = unchanged(&[click(10, 10), click(10, 10)]);
        assert!(!np.would_repeat(&click(20, 20), D));
        assert!(!np.would_repeat(&type_a(), D));
        assert!(!np.would_repeat(&wait(), D));
    }

    #[test]
    fn refusal_persists_until_something_changes() {
        // A refused proposal records nothing, so the next identical one is refused too.
        let np = unchanged(&[click(10, 10), click(10, 10)]);
        assert!(np.would_repeat(&click(10, 10), D));
        assert!(np.would_repeat(&click(10, 10), D));
    }

    #[test]
    fn only_after_two_unchanged_inputs() {
        let np = NoProgress::new();
        assert!(!np.would_repeat(&click(10, 10), D));
        let np = unchanged(&[click(10, 10)]);
        assert!(!np.would_repeat(&click(10, 10), D));
    }
}
