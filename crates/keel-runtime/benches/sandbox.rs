//! `cargo bench -p keel-runtime --bench sandbox`: what the kernel sandbox costs a read-only
//! shell command (issue 17).
//!
//! The shell tool runs `cat a.txt` in a workspace with and without the Landlock confinement:
//! a small workspace (10 files, a `.git` at the top) and a repository-sized one (2,000 files in
//! 100 folders, one nested `.env`), so the figures show both the fixed cost (the ruleset, two
//! system calls in the child) and the cost of laying the workspace out. Only the difference
//! between the rows of one workspace is the sandbox's.

/// The allocator the `keel` binary runs with (keel-cli/src/main.rs), so the figures are its.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::{Duration, Instant};

use keel_runtime::tools::{ShellSandbox, ToolContext, Toolbox};
use keel_testkit::bench::report;
use serde_json::json;

const WIDTH: usize = 44;
const RUNS: usize = 200;

fn workspace(folders: usize, files_each: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join(".git/config"), "x").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("a.txt"), "alpha").unwrap_or_else(|e| panic!("{e}"));
    for f in 0..folders {
        let sub = root.join(format!("d{f}"));
        std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
        for i in 0..files_each {
            std::fs::write(sub.join(format!("f{i}.rs")), "fn x() {}")
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    if folders > 1 {
        std::fs::write(root.join("d1/.env"), "SECRET=1").unwrap_or_else(|e| panic!("{e}"));
    }
    dir
}

fn measure(label: &str, dir: &tempfile::TempDir, sandbox: ShellSandbox) {
    let tools = Toolbox::builtin();
    let Some(shell) = tools.get("shell") else {
        panic!("no shell tool");
    };
    let mut ctx = ToolContext::new(dir.path().to_path_buf());
    ctx.shell_sandbox = sandbox;
    let args = json!({"command": "cat a.txt"});
    let mut samples: Vec<Duration> = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let out = shell.call(&args, &ctx);
        samples.push(started.elapsed());
        assert!(!out.is_error && out.text.contains("alpha"), "{}", out.text);
    }
    report(label, WIDTH, samples);
}

fn main() {
    let small = workspace(1, 9);
    let large = workspace(100, 20);
    measure("cat a.txt, 10 files, unconfined", &small, ShellSandbox::Off);
    measure(
        "cat a.txt, 10 files, sandboxed",
        &small,
        ShellSandbox::Required,
    );
    measure(
        "cat a.txt, 2,000 files, unconfined",
        &large,
        ShellSandbox::Off,
    );
    measure(
        "cat a.txt, 2,000 files, sandboxed",
        &large,
        ShellSandbox::Required,
    );
}
