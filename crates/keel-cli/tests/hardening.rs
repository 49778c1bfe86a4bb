//! Issue 17's attacks on the read-only shell allow-list, reproduced as an outsider would: the
//! default policy, `--approval deny` (so whatever runs was allowed by policy), a scripted model
//! making `shell` calls, in a workspace holding `.env`, `.git/config`, a symlink `sub/link` to
//! a folder outside, and an executable `tools/ls` of the workspace's choosing.

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::common::{Env, call};

/// Every token a file outside the allowed reading ground carries; none may reach the run.
const CANARIES: [&str; 4] = [
    "CANARY-OUTSIDE-7f3a",
    "CANARY-ENV-91c2",
    "CANARY-GIT-5d0e",
    "CANARY-TOOLS-33b8",
];

fn attacked_workspace() -> Env {
    let env = Env::new();
    env.write("outside/secret.txt", &format!("{}\n", CANARIES[0]));
    env.write("outside/file", &format!("{}\n", CANARIES[0]));
    env.write("work/.env", &format!("SECRET={}\n", CANARIES[1]));
    env.write(
        "work/.git/config",
        &format!("[core]\n# SECRET {}\n", CANARIES[2]),
    );
    env.write("work/a.txt", "hello SECRET world\n");
    std::fs::create_dir_all(env.path("work/sub")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(env.path("outside"), env.path("work/sub/link"))
        .unwrap_or_else(|e| panic!("{e}"));
    let marker = env.path("ran-tools-ls");
    let tool = env.write(
        "work/tools/ls",
        &format!(
            "#!/bin/sh\necho {} ; touch '{}'\n",
            CANARIES[3],
            marker.display()
        ),
    );
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    // A second name, inside, for a file outside (found by an attacker of keel's own).
    std::fs::hard_link(env.path("outside/secret.txt"), env.path("work/notes.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    env
}

/// The table of issue 17, every row and its variants.
const ATTACKS: &[&str] = &[
    // 1: globs that the shell expands to `..`.
    "cat .?/outside/secret.txt",
    "cat .?/.?/.?/.?/.?/.?/.?/.?/etc/hostname",
    // 2: globs onto sensitive files.
    "cat .e*",
    "cat .en?",
    "cat .[e]nv",
    "echo ok && cat .en*",
    "cat .g*/config",
    // 3: recursive reads into sensitive directories and through symlinks.
    "grep -r SECRET .",
    "grep -R SECRET .",
    "grep -rn SECRET .",
    "grep --recursive SECRET .",
    // 4: a glob through a symlink that leaves the workspace.
    "cat sub/l*/secret.txt",
    // 5: a path glued to an option.
    "wc --files0-from=../outside/file",
    "du --files0-from=../outside/file",
    "grep -f../outside/file -x -v a.txt",
    "grep -f ../outside/file a.txt",
    "wc --files0=../outside/file",
    // Found since: a hard link inside to a file outside; a list of names to open; tail's
    // obsolete `+N` form, which can follow for ever.
    "cat notes.txt",
    "wc --files0-from=a.txt",
    "tail +1f a.txt",
    // 6: a program of the workspace's choosing.
    "PATH=tools ls",
    "LD_PRELOAD=x ls",
    "GCONV_PATH=. ls",
    "LD_LIBRARY_PATH=. ls",
    // Found since (the shell fuzz target): a write hidden where readers of shell quoting
    // disagree — brush-parser took `\$'` for bash's `$'…'` and read one `cat` argument.
    r"cat a.txt \$'\' ; touch pwned ; echo '\'",
];

/// Read-only commands that must still run without asking.
const EVERYDAY: &[&str] = &[
    "ls -la",
    "cat a.txt",
    "grep -n SECRET a.txt",
    "wc -l a.txt && head -n 1 a.txt | wc -c",
    "ls -R sub",
    "du -sh .",
];

fn run_calls(env: &Env, commands: &[&str]) -> (String, Value) {
    let mut replies: Vec<Value> = commands
        .iter()
        .map(|c| call("shell", json!({ "command": c })))
        .collect();
    replies.push(json!({"text": "done"}));
    run_replies(env, &replies, &["--step-limit", "100"], &[])
}

/// `keel run go` on a scripted model making `replies`, with `--approval deny` (so whatever
/// ran was allowed without asking) and `extra` flags and `vars`: what it printed, and the run
/// as `keel runs show --json` has it.
fn run_replies(
    env: &Env,
    replies: &[Value],
    extra: &[&str],
    vars: &[(&str, &std::path::Path)],
) -> (String, Value) {
    let model = env.script("attack.jsonl", replies);
    let mut args = vec!["run", "go", "--model", &model, "--approval", "deny"];
    args.extend_from_slice(extra);
    let (code, out, err) = env.keel_env(&args, vars, "");
    assert_eq!(code, 0, "{err}");
    // The run, read from the database it was written to (`--db` among `extra`, or the home).
    let db: Vec<&str> = extra
        .iter()
        .position(|a| *a == "--db")
        .map(|at| vec!["--db", extra[at + 1]])
        .unwrap_or_default();
    let json = |args: &[&str]| -> Value {
        let (_, out, err) = env.keel(&[args, &db].concat(), "");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"))
    };
    let run = json(&["runs", "list", "--json"])[0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let shown = json(&["runs", "show", &run, "--json"]);
    assert!(shown["items"].is_array(), "no run was read: {shown}");
    (format!("{out}\n{err}"), shown)
}

#[test]
fn no_row_of_the_attack_table_runs_without_asking() {
    let env = attacked_workspace();
    let (printed, shown) = run_calls(&env, ATTACKS);
    let ledger = shown["ledger"].as_array().cloned().unwrap_or_default();
    assert!(ledger.is_empty(), "something ran: {ledger:#?}");
    let everything = format!("{printed}\n{shown}");
    for canary in CANARIES {
        assert!(
            !everything.contains(canary),
            "{canary} leaked:\n{everything}"
        );
    }
    assert!(!env.path("ran-tools-ls").exists(), "tools/ls ran");
    assert!(!env.path("pwned").exists(), "a hidden touch ran");
    assert_eq!(
        printed.matches("user confirmation is unavailable").count()
            + printed.matches("denied by safety checker").count(),
        ATTACKS.len(),
        "every attack is refused, each saying why:\n{printed}"
    );
}

#[test]
fn everyday_read_only_commands_still_run_without_asking() {
    let env = attacked_workspace();
    let (printed, shown) = run_calls(&env, EVERYDAY);
    let ledger = shown["ledger"].as_array().cloned().unwrap_or_default();
    assert_eq!(ledger.len(), EVERYDAY.len(), "{printed}\n{ledger:#?}");
    assert!(
        ledger.iter().all(|e| e["state"] == "completed"),
        "{ledger:#?}"
    );
    for canary in CANARIES {
        assert!(!printed.contains(canary), "{canary} leaked:\n{printed}");
    }
}

#[test]
fn keel_check_gives_the_same_answers() {
    let env = attacked_workspace();
    let check = |command: &str| -> String {
        let input = json!({
            "protocolVersion": "1.0.0",
            "toolCall": {"name": "shell", "args": {"command": command}},
            "context": {"environment": {"cwd": env.work().display().to_string(), "workspaces": []}}
        });
        let (_, out, err) = env.keel(&["check"], input.to_string());
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
        v["decision"].as_str().unwrap_or_default().to_string()
    };
    for command in ATTACKS {
        assert_ne!(check(command), "allow", "{command}");
    }
    for command in EVERYDAY {
        assert_eq!(check(command), "allow", "{command}");
    }
}

#[test]
fn a_hard_link_to_a_file_outside_is_not_read_by_any_tool_without_asking() {
    let env = attacked_workspace();
    let model = env.script(
        "link.jsonl",
        &[
            call("read_file", json!({"path": "notes.txt"})),
            json!({"text": "done"}),
        ],
    );
    let (code, out, err) = env.keel(&["run", "go", "--model", &model, "--approval", "deny"], "");
    assert_eq!(code, 0, "{err}");
    let shown = env.show(&env.only_run());
    let everything = format!("{out}\n{err}\n{shown}");
    assert!(!everything.contains(CANARIES[0]), "{everything}");
    assert!(err.contains("other names (hard links)"), "{err}");
}

/// A `command` key added to another tool's arguments once met the read-only shell allow, which
/// has no tool name of its own to match: `write_file` wrote in plan mode and `spawn_task` started
/// a subagent unasked (found by an outsider's attack). The allow is now the shell tool's only,
/// and a key a built-in tool does not take is refused before the gate.
#[test]
fn a_command_key_on_another_tool_is_not_a_read_only_shell_call() {
    let env = attacked_workspace();
    let replies = vec![
        call(
            "write_file",
            json!({"path": "plan-pwned.txt", "content": "x\n", "command": "ls"}),
        ),
        call(
            "edit_file",
            json!({"path": "a.txt", "old": "SECRET", "new": "PWNED", "command": "ls"}),
        ),
        call(
            "spawn_task",
            json!({"task": "write task-pwned.txt", "command": "ls"}),
        ),
        json!({"text": "done"}),
    ];
    let (printed, shown) = run_replies(&env, &replies, &["--mode", "plan"], &[]);
    assert!(!env.path("plan-pwned.txt").exists(), "{printed}");
    assert!(!env.path("task-pwned.txt").exists(), "{printed}");
    let a = std::fs::read_to_string(env.path("a.txt")).unwrap_or_default();
    assert!(!a.contains("PWNED"), "{a}");
    let ledger = shown["ledger"].as_array().cloned().unwrap_or_default();
    assert!(ledger.is_empty(), "something ran: {ledger:#?}");
    assert!(
        printed.contains("takes no argument \"command\""),
        "{printed}"
    );
    // keel check, which sees only the policy, asks about the subagent and its extra key.
    let input = json!({
        "protocolVersion": "1.0.0",
        "toolCall": {"name": "spawn_task", "args": {"task": "x", "command": "ls"}},
        "context": {"environment": {"cwd": env.work().display().to_string(), "workspaces": []}}
    });
    let (_, out, err) = env.keel(&["check"], input.to_string());
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    assert_eq!(v["decision"], "ask_user", "{v}");
}

/// What an outsider's second attack found past the first fixes: a model writing keel's user
/// config (inside the workspace when keel runs in the home folder), a `keel.toml` written
/// through a path with a `"` in it (which a rule on the arguments' JSON text missed), and an
/// `.env.local` read through shell quoting. The guarded-paths checker reads the same resolved
/// paths and shell words as allowed-path, so none of them runs without asking.
#[test]
fn keels_own_files_and_env_variants_are_not_touched_without_asking() {
    let env = attacked_workspace();
    env.write("work/.env.local", &format!("X={}\n", CANARIES[1]));
    let config_home = env.path("work/cfg");
    let replies = vec![
        call(
            "write_file",
            json!({"path": "cfg/keel/config.toml", "content": "[[rule]]\ntoolName = \"shell\"\ndecision = \"allow\"\npriority = 500\n"}),
        ),
        call(
            "write_file",
            json!({"path": "q\"/notes.txt", "content": "x\n"}),
        ),
        call(
            "write_file",
            json!({"path": "q\"/../keel.toml", "content": "[presets.review]\nsystem_prompt = \"pre-approved\"\n"}),
        ),
        call("shell", json!({"command": "cat \".env\".local"})),
        call("shell", json!({"command": "cat .\\env.local"})),
        call("read_file", json!({"path": ".env.local"})),
        json!({"text": "done"}),
    ];
    let (printed, shown) = run_replies(&env, &replies, &[], &[("XDG_CONFIG_HOME", &config_home)]);
    assert!(!env.path("work/cfg/keel/config.toml").exists(), "{printed}");
    assert!(!env.path("work/keel.toml").exists(), "{printed}");
    assert!(!printed.contains(CANARIES[1]), "{printed}");
    assert!(!shown.to_string().contains(CANARIES[1]), "{shown}");
    assert!(
        printed.contains("keel's own configuration or data"),
        "{printed}"
    );
    assert!(
        printed.contains("an environment file like .env"),
        "{printed}"
    );
}

/// What an outsider's fourth attack found past guarded-paths: a symlink with a trailing `/.`
/// resolved as the link's own name (listing a folder outside), a `keel.toml` in a subfolder
/// (which a run started there reads), SQLite's files beside a `--db` inside the workspace, and
/// a config folder not made yet under a symlinked home (compared unresolved, so missed).
#[test]
fn trailing_dots_subfolder_configs_db_sidecars_and_unmade_config_folders_are_held() {
    let env = attacked_workspace();
    // The working directory reached through a symlink, and a config home not made yet.
    std::os::unix::fs::symlink(env.path("work"), env.path("via")).unwrap_or_else(|e| panic!("{e}"));
    let config_home = env.path("via/cfg");
    let replies = vec![
        call("list_dir", json!({"path": "sub/link/."})),
        call("shell", json!({"command": "ls -la sub/link/."})),
        call(
            "write_file",
            json!({"path": "frontend/keel.toml", "content": "mode = \"plan\"\n"}),
        ),
        call(
            "write_file",
            json!({"path": "runs.db-journal", "content": "junk"}),
        ),
        call(
            "write_file",
            json!({"path": "cfg/keel/config.toml", "content": "x = 1\n"}),
        ),
        json!({"text": "done"}),
    ];
    let db = env.path("work/runs.db");
    let (printed, shown) = run_replies(
        &env,
        &replies,
        &["--db", db.to_str().unwrap_or_default()],
        &[("XDG_CONFIG_HOME", &config_home)],
    );
    assert!(!printed.contains(CANARIES[0]), "{printed}");
    // The folder outside was not listed: its file's name is in no result.
    let shown = shown.to_string();
    assert!(!shown.contains("secret.txt"), "{shown}");
    assert!(!env.path("work/frontend/keel.toml").exists(), "{printed}");
    // SQLite may keep a journal of its own there; the model's write of one was refused.
    assert!(
        shown.contains(
            r#"\"runs.db-journal\" in argument \"path\" is keel's own configuration or data"#
        ),
        "{shown}"
    );
    assert!(!env.path("work/cfg/keel/config.toml").exists(), "{printed}");
    assert!(printed.contains("is a keel.toml"), "{printed}");
}
