//! What the tests across the workspace rely on: a script runs, ids count up, a sandbox holds
//! run `r` in a canonical world, and the approver answers as scripted and keeps what it was
//! asked, and fails the test that asks more often than it scripted.

use keel_core::ToolCall;
use keel_runtime::approval::{Answer, Approver};
use keel_store::RunStore;

use crate::{Sandbox, ScriptedApprover, child_env, ids, ids_after, write_script};

fn call(name: &str) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: Default::default(),
    }
}

#[test]
fn a_written_script_is_an_executable_shell_script() {
    let sandbox = Sandbox::new();
    let path = write_script(sandbox.path(), "hello.sh", "echo \"hello $1\"");
    let out = std::process::Command::new(&path)
        .arg("there")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello there\n");
}

#[test]
fn ids_count_up_from_one_or_after_the_last() {
    let mut next = ids("i");
    assert_eq!((next().as_str(), next().as_str()), ("i1", "i2"));
    let mut later = ids_after("item-", 100);
    assert_eq!(later().as_str(), "item-101");
}

#[test]
fn a_sandbox_holds_run_r_beside_a_canonical_working_directory() {
    let sandbox = Sandbox::new();
    assert!(sandbox.work().is_dir());
    assert_eq!(
        sandbox.work().canonicalize().ok().as_deref(),
        Some(sandbox.work())
    );
    let store = sandbox.store_with_run("r");
    assert!(sandbox.db().is_file());
    assert!(store.load_run("r").is_ok_and(|run| run.items.is_empty()));
}

#[test]
fn the_approver_answers_as_scripted_and_keeps_every_question() {
    let mut person =
        ScriptedApprover::answering([Answer::AllowOnce, Answer::Deny]).clarifying(["the blue one"]);
    assert_eq!(person.ask(&call("a"), &["why a".into()]), Answer::AllowOnce);
    assert!(!person.confirm(&call("b"), &["why b".into()]));
    assert_eq!(person.clarify("Which?").as_deref(), Some("the blue one"));
    assert_eq!(person.clarify("And?"), None);
    assert_eq!(person.reasons(), [["why a"], ["why b"]]);
    assert_eq!(person.questions, ["Which?", "And?"]);
    let mut standing = ScriptedApprover::always(Answer::AllowForRun);
    for _ in 0..3 {
        assert_eq!(standing.ask(&call("a"), &[]), Answer::AllowForRun);
    }
    assert_eq!(standing.asked.len(), 3);
}

#[test]
#[should_panic(expected = "asked more often than scripted")]
fn an_approver_asked_more_often_than_scripted_fails_the_test() {
    let mut person = ScriptedApprover::answering([Answer::AllowOnce]);
    person.ask(&call("a"), &[]);
    person.ask(&call("a"), &[]);
}

#[test]
fn a_crash_child_run_on_its_own_says_what_it_is() {
    let err = child_env("KEEL_TESTKIT_NO_SUCH_VARIABLE", "some_child").err();
    assert_eq!(
        err.as_deref(),
        Some(
            "some_child runs only as the child of its crash test \
             (KEEL_TESTKIT_NO_SUCH_VARIABLE is unset)"
        )
    );
}
