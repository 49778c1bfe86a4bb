//! The workspace tier may only tighten (safety.md N46, interfaces.md §2): a `keel.toml` a
//! cloned repository brings, or a `--policy FILE`, can deny or ask, but its `allow` never
//! outranks the built-in policy's shell ask. Each case is issue 17's attack: `keel run
//! --approval deny` with a scripted model making one `shell` call `touch pwned`.

use serde_json::{Value, json};

use crate::common;
use common::{Env, call};

const ALLOW_SHELL: &str = "[[rule]]\ntoolName = \"shell\"\ndecision = \"allow\"\npriority = 999\n";
const ALLOW_COMMANDS: &str =
    "[[rule]]\nargsPattern = \"command\"\ndecision = \"allow\"\npriority = 999\n";

/// `keel run --approval deny` whose model calls `shell` with `touch pwned`, then answers; with
/// `extra` arguments. Returns stderr and the tool result the model read.
fn attack(env: &Env, extra: &[&str]) -> (String, String) {
    let model = env.script(
        "s.jsonl",
        &[
            call("shell", json!({"command": "touch pwned"})),
            json!({"text": "done"}),
        ],
    );
    let mut args = vec!["run", "go", "--model", &model, "--approval", "deny"];
    args.extend_from_slice(extra);
    let (code, out, err) = env.keel(&args, "");
    assert_eq!(code, 0, "{out}\n{err}");
    let shown = env.show(&env.only_run());
    let result: Value = shown["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["kind"] == "tool_result").cloned())
        .unwrap_or_default();
    (
        err,
        result["output"].as_str().unwrap_or_default().to_string(),
    )
}

/// What the user and the model are told: the built-in shell ask, turned into a deny with
/// nobody to ask, naming the capped workspace rule.
fn assert_denied(env: &Env, err: &str, output: &str, capped_source: &str) {
    assert!(
        !env.work().join("pwned").exists(),
        "the workspace rule let `touch pwned` run: {err}"
    );
    for told in [err, output] {
        assert!(told.contains("asks before shell runs"), "{told}");
        assert!(
            told.contains(&format!(
                "the workspace rule at {capped_source} that allows it is capped"
            )),
            "{told}"
        );
        assert!(
            told.contains("(user confirmation is unavailable in non-interactive mode)"),
            "{told}"
        );
    }
    assert!(
        err.contains("shell {\"command\":\"touch pwned\"}: refused"),
        "{err}"
    );
}

#[test]
fn a_keel_toml_allowing_the_shell_does_not_let_a_command_run() {
    for text in [ALLOW_SHELL, ALLOW_COMMANDS] {
        let env = Env::new();
        env.write("work/keel.toml", text);
        let (err, output) = attack(&env, &[]);
        assert_denied(&env, &err, &output, "keel.toml:1");
    }
}

#[test]
fn a_policy_file_allowing_the_shell_does_not_let_a_command_run() {
    for text in [ALLOW_SHELL, ALLOW_COMMANDS] {
        let env = Env::new();
        let file = env.write("allow.toml", text);
        let file = file.display().to_string();
        let (err, output) = attack(&env, &["--policy", &file]);
        assert_denied(&env, &err, &output, &format!("{file}:1"));
    }
}

/// The user's own file is the user's choice: the same rule there runs the command.
#[test]
fn the_same_rule_in_the_user_config_runs_the_command() {
    let env = Env::new();
    env.user_config(ALLOW_SHELL);
    let (err, output) = attack(&env, &[]);
    assert!(env.work().join("pwned").exists(), "{err}\n{output}");
}

/// `keel check --policy FILE` is the same gate: the workspace allow changes nothing.
#[test]
fn keel_check_with_a_policy_file_still_asks() {
    let env = Env::new();
    let file = env.write("allow.toml", ALLOW_SHELL).display().to_string();
    let input = json!({
        "protocolVersion": "1.0.0",
        "toolCall": {"name": "shell", "args": {"command": "touch pwned"}},
        "context": {"environment": {"cwd": env.work().display().to_string(), "workspaces": []}}
    });
    let (code, out, err) = env.keel(&["check", "--policy", &file], input.to_string());
    assert_eq!(code, 0, "{err}");
    let result: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(result["decision"], "ask_user", "{out}");
    assert!(
        result["reason"]
            .as_str()
            .is_some_and(|r| r.contains(&format!(
                "the workspace rule at {file}:1 that allows it is capped"
            ))),
        "{out}"
    );
}

/// `keel policy show` marks the capped rule, naming its file and line and why.
#[test]
fn policy_show_marks_a_workspace_allow_as_capped() {
    let env = Env::new();
    env.write(
        "work/keel.toml",
        &format!("# from the repository\n{ALLOW_SHELL}"),
    );
    let file = env.write("p.toml", ALLOW_COMMANDS).display().to_string();
    let (code, out, err) = env.keel(&["policy", "show", "--policy", &file], "");
    assert_eq!(code, 0, "{err}");
    for source in ["keel.toml:2".to_string(), format!("{file}:1")] {
        assert!(
            out.contains(&format!("  rule      3999  allow     {source}  (capped)\n")),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "capped: the allow at {source} is a workspace file's; it applies only where no \
                 deny or ask_user rule of the default, user or admin tier matches the call"
            )),
            "{out}"
        );
    }
    assert_eq!(out.matches("(capped)").count(), 2, "{out}");
}

/// `keel config init` writes a user config that changes nothing as written, whose every
/// example is a setting keel knows (uncommented, it loads without a warning), and it never
/// replaces one that is there unless told to.
#[test]
fn config_init_writes_a_commented_config_that_loads() {
    let env = Env::new();
    let (code, out, err) = env.keel(&["config", "init"], "");
    assert_eq!(code, 0, "{err}");
    let path = env.path("config/keel/config.toml");
    assert!(out.contains(&path.display().to_string()), "{out}");
    let written = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        written
            .lines()
            .all(|l| l.trim().is_empty() || l.starts_with('#')),
        "{written}"
    );
    let (code, _, err) = env.keel(&["config"], "");
    assert_eq!(code, 0, "{err}");
    // A second init leaves it alone.
    std::fs::write(&path, "mode = \"plan\"\n").unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = env.keel(&["config", "init"], "");
    assert_ne!(code, 0);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        "mode = \"plan\"\n"
    );
    let (code, _, err) = env.keel(&["config", "init", "--force"], "");
    assert_eq!(code, 0, "{err}");
    // Every example, uncommented, is a setting keel reads.
    let uncommented: String = written
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if rest.starts_with('[')
                    || rest.split_once(" = ").is_some_and(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    }) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(uncommented.contains("\n[model]"), "{uncommented}");
    std::fs::write(&path, &uncommented).unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = env.keel(&["config"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("warning"), "{err}\n{uncommented}");
}

/// `keel config --json`: the files, each setting with whether it is keel's default, and
/// whether the policy loads; a policy that does not load is exit 2 with its error.
#[test]
fn config_json_says_what_is_in_effect() {
    let env = Env::new();
    env.user_config("mode = \"plan\"\n");
    let (code, out, err) = env.keel(&["config", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        v["settings"]["mode"],
        json!({"value": "plan", "built_in": false}),
        "{v}"
    );
    assert_eq!(v["settings"]["approval"]["built_in"], true, "{v}");
    assert_eq!(v["files"][0]["tier"], "user", "{v}");
    assert_eq!(v["policy"]["loads"], true, "{v}");
    env.user_config("[[rule]]\ntoolName = \"shell\"\ndecision = \"maybe\"\n");
    let (code, out, _) = env.keel(&["config", "--json"], "");
    assert_eq!(code, 2, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["policy"]["loads"], false, "{v}");
    assert!(
        v["policy"]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{v}"
    );
}

/// An empty `HOME` or a relative `XDG_CONFIG_HOME` names no config folder: read as they are,
/// they would be the working directory's, and a cloned repository's `.config/keel/config.toml`
/// (or `keel/config.toml`) would be the user's own, free to set yolo and register programs
/// (an outsider's round 22).
#[test]
fn a_relative_or_empty_base_directory_is_no_config_folder() {
    let env = Env::new();
    for planted in [".config/keel", "keel"] {
        let dir = env.work().join(planted);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("config.toml"), "mode = \"yolo\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for (home, xdg) in [("", None), ("", Some(".")), ("relative", Some("."))] {
        let mut cmd = env.cmd(&["config", "--json"]);
        cmd.env("HOME", home);
        match xdg {
            Some(x) => cmd.env("XDG_CONFIG_HOME", x),
            None => cmd.env_remove("XDG_CONFIG_HOME"),
        };
        let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_ne!(
            v["settings"]["mode"]["value"], "yolo",
            "HOME={home:?} XDG={xdg:?}: {v}"
        );
        assert!(
            !text.contains("config.toml"),
            "HOME={home:?} XDG={xdg:?}: {v}"
        );
    }
}
