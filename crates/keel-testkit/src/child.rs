//! Crash tests' children: the test binary runs itself again, as a process a test can kill,
//! with only one ignored test (the child's entry point) selected. The child is ignored so it
//! never counts as a passing test on its own.

use std::process::{Command, Stdio};

/// This test binary, to run only the ignored test `path` (`module::name`), alone, with its
/// output discarded. The caller adds the child's environment and spawns it.
pub fn child_test(path: &str) -> Command {
    let me = std::env::current_exe().unwrap_or_else(|e| panic!("the test binary: {e}"));
    let mut child = Command::new(me);
    child
        .args([
            "--exact",
            path,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    child
}

/// The value of `var`, which a crash test sets for its child `name`; an error saying so when
/// it is unset, as it is when the child is run on its own.
pub fn child_env(var: &str, name: &str) -> Result<String, String> {
    std::env::var(var)
        .map_err(|_| format!("{name} runs only as the child of its crash test ({var} is unset)"))
}
