//! What the tests of the `keel` binary share: a temporary world (work directory, config
//! home, data home) and helpers to write configuration and scripts and to run `keel` in it.
//! (The set-up other crates' tests share too, such as a database holding a run or an
//! executable script, is keel-testkit's.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// A sandbox: `work/` is the working directory, `config/` the config home
/// (`XDG_CONFIG_HOME`, so the user's config is `config/keel/config.toml`), `home/` keel's
/// data home (`KEEL_HOME`, so the database is `home/keel.db`).
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for sub in ["work", "config", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap_or_else(|e| panic!("{e}"));
        }
        Self { dir }
    }

    /// `sub` inside the sandbox.
    pub fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// The working directory, canonical (as keel sees it).
    pub fn work(&self) -> PathBuf {
        self.path("work")
            .canonicalize()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The database `keel` uses here.
    pub fn db(&self) -> PathBuf {
        self.path("home").join("keel.db")
    }

    /// Writes `text` to `rel` inside the sandbox (making its folders) and returns its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    /// Writes the user's own configuration file.
    pub fn user_config(&self, text: &str) {
        self.write("config/keel/config.toml", text);
    }

    /// Writes `replies` as the script of a scripted model and returns its `--model` spec.
    pub fn script(&self, name: &str, replies: &[Value]) -> String {
        let path = self.dir.path().join(name);
        let text: Vec<String> = replies.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n")).unwrap_or_else(|e| panic!("{e}"));
        format!("script:{}", path.display())
    }

    /// Replaces the sandbox's path so snapshots are stable.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.dir.path().display().to_string(), "[SANDBOX]")
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("keel"));
        c.args(args)
            .current_dir(self.work())
            .env("KEEL_HOME", self.dir.path().join("home"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"));
        c
    }

    /// `keel args` with `stdin` as its input: exit code, stdout and stderr.
    pub fn keel(&self, args: &[&str], stdin: impl AsRef<[u8]>) -> (i32, String, String) {
        self.keel_env(args, &[], stdin)
    }

    /// `keel` with extra environment variables (`KEEL_SCRIPT_LOG`, `KEEL_LLM_WORKER`, …).
    pub fn keel_env(
        &self,
        args: &[&str],
        vars: &[(&str, &Path)],
        stdin: impl AsRef<[u8]>,
    ) -> (i32, String, String) {
        let mut cmd = self.cmd(args);
        for (name, value) in vars {
            cmd.env(name, value);
        }
        let out = assert_cmd::Command::from_std(cmd)
            .write_stdin(stdin.as_ref().to_vec())
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn only_run(&self) -> String {
        let (_, out, _) = self.keel(&["runs", "list", "--json"], "");
        let v: Value = serde_json::from_str(&out).unwrap_or_default();
        v[0]["id"].as_str().unwrap_or_default().to_string()
    }

    pub fn show(&self, run: &str) -> Value {
        let (_, out, _) = self.keel(&["runs", "show", run, "--json"], "");
        serde_json::from_str(&out).unwrap_or_default()
    }
}

/// A scripted model's reply that calls `name` with `args`.
pub fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

/// The requests `KEEL_SCRIPT_LOG` recorded, each checked as well formed (a malformed one fails
/// the test); no requests when there is no file.
pub fn requests(path: &Path) -> Vec<Value> {
    keel_model::testing::request_log(path)
}
