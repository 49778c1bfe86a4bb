//! What the tests of the `keel` binary share: a temporary world (work directory, config
//! home, data home) and helpers to write scripts and run `keel` in it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

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

    pub fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    pub fn script(&self, name: &str, replies: &[Value]) -> String {
        let path = self.dir.path().join(name);
        let text: Vec<String> = replies.iter().map(Value::to_string).collect();
        std::fs::write(&path, text.join("\n")).unwrap_or_else(|e| panic!("{e}"));
        format!("script:{}", path.display())
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("keel"));
        c.args(args)
            .current_dir(self.work())
            .env("KEEL_HOME", self.dir.path().join("home"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"));
        c
    }

    pub fn keel(&self, args: &[&str], stdin: &str) -> (i32, String, String) {
        self.keel_env(args, &[], stdin)
    }

    /// `keel` with extra environment variables (`KEEL_SCRIPT_LOG`, `KEEL_LLM_WORKER`, …).
    pub fn keel_env(
        &self,
        args: &[&str],
        vars: &[(&str, &std::path::Path)],
        stdin: &str,
    ) -> (i32, String, String) {
        let mut cmd = self.cmd(args);
        for (name, value) in vars {
            cmd.env(name, value);
        }
        let out = assert_cmd::Command::from_std(cmd)
            .write_stdin(stdin.to_string())
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
