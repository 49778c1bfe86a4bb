use super::*;

fn ctx() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut c = ToolContext::new(dir.path().to_path_buf());
    c.shell_timeout = Duration::from_secs(10);
    c.output_cap = 1000;
    (dir, c)
}

fn call(name: &str, args: Value, c: &ToolContext) -> ToolOutput {
    Toolbox::builtin()
        .get(name)
        .map(|t| t.call(&args, c))
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn write_read_edit_list() {
    let (_d, c) = ctx();
    assert!(
        !call(
            "write_file",
            json!({"path": "a/b.txt", "content": "one two two"}),
            &c
        )
        .is_error
    );
    assert_eq!(
        call("read_file", json!({"path": "a/b.txt"}), &c).text,
        "one two two"
    );
    let twice = call(
        "edit_file",
        json!({"path": "a/b.txt", "old": "two", "new": "2"}),
        &c,
    );
    assert!(twice.is_error && twice.text.contains("occurs 2 times"));
    assert!(
        !call(
            "edit_file",
            json!({"path": "a/b.txt", "old": "one", "new": "1"}),
            &c
        )
        .is_error
    );
    assert_eq!(
        call("read_file", json!({"path": "a/b.txt"}), &c).text,
        "1 two two"
    );
    assert!(
        call(
            "edit_file",
            json!({"path": "a/b.txt", "old": "zzz", "new": ""}),
            &c
        )
        .is_error
    );
    assert_eq!(call("list_dir", json!({}), &c).text, "a/");
    assert!(call("read_file", json!({"path": "missing"}), &c).is_error);
    assert!(call("read_file", json!({"path": 5}), &c).is_error);
}

#[test]
fn shell_runs_in_the_session_directory_with_limits() {
    let (d, c) = ctx();
    let out = call("shell", json!({"command": "pwd; echo oops >&2"}), &c);
    assert!(!out.is_error);
    let canonical = d.path().canonicalize().unwrap_or_default();
    assert!(
        out.text.starts_with(&canonical.display().to_string()),
        "{}",
        out.text
    );
    assert!(out.text.contains("[stderr]\noops"));
    let failed = call("shell", json!({"command": "exit 3"}), &c);
    assert!(failed.is_error && failed.text.contains("[exit status: 3]"));
    let mut quick = c.clone();
    quick.shell_timeout = Duration::from_millis(300);
    let slow = call("shell", json!({"command": "sleep 5"}), &quick);
    assert!(slow.is_error && slow.text.contains("timed out after 300 ms"));
    let big = call(
        "shell",
        json!({"command": "head -c 5000 /dev/zero | tr '\\000' x"}),
        &c,
    );
    assert!(
        big.text.ends_with("x\n[output cut after 1000 bytes]"),
        "{}",
        &big.text[big.text.len() - 60..]
    );
}

#[test]
fn annotations_classify_the_tools() {
    use keel_policy::classify::{Effect, classify};
    let infos = Toolbox::builtin().infos();
    assert_eq!(classify(&infos["read_file"]), Effect::ReadOnly);
    assert_eq!(classify(&infos["list_dir"]), Effect::ReadOnly);
    for t in ["write_file", "edit_file", "shell"] {
        assert_eq!(classify(&infos[t]), Effect::SideEffecting, "{t}");
    }
}

#[test]
fn keel_schema_keywords_are_stripped_everywhere() {
    let mut schema = json!({
        "type": "object",
        "x-keel-provenance": "exempt",
        "properties": {
            "to": {"type": "string", "x-keel-provenance": "exempt"},
            "list": {"type": "array", "items": [{"x-keel-other": 1, "type": "string"}]}
        }
    });
    strip_keel_keywords(&mut schema);
    assert!(!schema.to_string().contains("x-keel"), "{schema}");
    assert_eq!(schema["properties"]["to"]["type"], "string");
    assert_eq!(schema["properties"]["list"]["items"][0]["type"], "string");
}

/// A workspace holding what the sandbox must keep a read-only command from: sensitive files at
/// the top and nested, a link to a folder outside, and a secret outside.
fn sandboxed_world() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let work = root.join("work");
    for (rel, text) in [
        ("outside/secret.txt", "OUTSIDE-CANARY"),
        ("work/a.txt", "alpha"),
        ("work/.env", "ENV-CANARY"),
        ("work/.git/config", "GIT-CANARY"),
        ("work/pkg/.env", "NESTED-CANARY"),
        ("work/pkg/ok.txt", "nested ok"),
        ("work/docs/d.txt", "docs ok"),
    ] {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(&root)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    std::os::unix::fs::symlink(root.join("outside"), work.join("link"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut c = ToolContext::new(work);
    c.shell_timeout = Duration::from_secs(10);
    c.shell_sandbox = ShellSandbox::Required;
    (dir, c)
}

#[test]
fn read_only_commands_run_in_a_sandbox_that_reads_only_the_workspace() {
    let (dir, c) = sandboxed_world();
    let run = |command: &str, c: &ToolContext| call("shell", json!({ "command": command }), c);
    // What read-only commands are for still works.
    for (command, expect) in [
        ("cat a.txt", "alpha"),
        ("cat pkg/ok.txt docs/d.txt", "nested okdocs ok"),
        ("ls -a", ".env"),
        ("grep -c alpha a.txt", "1"),
        ("wc -c a.txt | cat", "5 a.txt"),
        ("whoami && uname -s", "Linux"),
    ] {
        let out = run(command, &c);
        assert!(
            !out.is_error && out.text.contains(expect),
            "{command}: {}",
            out.text
        );
    }
    // What the allow-list should never have let through is stopped by the kernel too.
    let outside = dir
        .path()
        .canonicalize()
        .unwrap_or_default()
        .join("outside/secret.txt");
    for command in [
        "cat .env".to_string(),
        "cat .git/config".to_string(),
        "cat pkg/.env".to_string(),
        "cat link/secret.txt".to_string(),
        format!("cat {}", outside.display()),
        "head -c 100 /proc/self/environ".to_string(),
    ] {
        let out = run(&command, &c);
        assert!(out.is_error, "{command}: {}", out.text);
        assert!(!out.text.contains("CANARY"), "{command}: {}", out.text);
    }
    // A person's answer runs the command as they allowed it; so does a command keel does not
    // know to be read-only (it was asked about, or a rule of the user's allowed it).
    let mut approved = c.clone();
    approved.person_approved = true;
    assert!(run("cat .env", &approved).text.contains("ENV-CANARY"));
    assert!(run("cat .env | tr a-z A-Z", &c).text.contains("ENV-CANARY"));
    let mut off = c;
    off.shell_sandbox = ShellSandbox::Off;
    assert!(run("cat .env", &off).text.contains("ENV-CANARY"));
}

#[test]
fn a_confined_command_finds_programs_only_on_absolute_path_entries() {
    let kept = absolute_path_entries(std::ffi::OsStr::new("tools:/usr/bin::./bin:/bin:"));
    assert_eq!(kept, std::ffi::OsString::from("/usr/bin:/bin"));
}

#[test]
fn a_hard_link_to_a_file_outside_is_not_granted() {
    let (dir, c) = sandboxed_world();
    let outside = dir.path().join("outside/secret.txt");
    std::fs::hard_link(&outside, c.cwd.join("notes.txt")).unwrap_or_else(|e| panic!("{e}"));
    let out = call("shell", json!({"command": "cat notes.txt"}), &c);
    assert!(out.is_error && !out.text.contains("CANARY"), "{}", out.text);
    // The workspace's other files still read.
    assert!(
        call("shell", json!({"command": "cat a.txt"}), &c)
            .text
            .contains("alpha")
    );
}

#[test]
fn a_workspace_too_large_to_lay_out_is_refused_not_run_unconfined() {
    let (_dir, c) = sandboxed_world();
    let many = c.cwd.join("many");
    std::fs::create_dir_all(many.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..=crate::sandbox::MAX_ENTRIES {
        std::fs::write(many.join(format!("f{i}")), "").unwrap_or_else(|e| panic!("{e}"));
    }
    let out = call("shell", json!({"command": "cat a.txt"}), &c);
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.contains("did not run") && out.text.contains("entries"),
        "{}",
        out.text
    );
}

/// Found by an outsider's attack: the working directory exchanged for a link to another
/// folder between the gate's decision and the tool's start put a shell's `touch` (and the file
/// tools' writes) there. Every tool acts in the directory the context was made for, or refuses.
#[test]
fn no_tool_acts_in_a_working_directory_swapped_for_a_link() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let work = dir.path().join("work");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    let mut c = ToolContext::new(work.clone());
    c.shell_timeout = Duration::from_secs(10);
    let ran = call("shell", json!({"command": "touch before"}), &c);
    assert!(!ran.is_error, "{}", ran.text);
    assert!(work.join("before").exists());
    std::fs::rename(&work, dir.path().join("moved")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&outside, &work).unwrap_or_else(|e| panic!("{e}"));
    for (tool, args) in [
        ("shell", json!({"command": "touch after"})),
        ("write_file", json!({"path": "after.txt", "content": "x"})),
        ("list_dir", json!({})),
    ] {
        let out = call(tool, args, &c);
        assert!(
            out.is_error && out.text.contains("no longer the directory"),
            "{tool}: {}",
            out.text
        );
    }
    assert_eq!(
        std::fs::read_dir(&outside)
            .map(Iterator::count)
            .unwrap_or(99),
        0,
        "nothing was made outside"
    );
}

#[test]
fn search_files_names_the_files_that_contain_a_text() {
    let (d, c) = ctx();
    for (name, text) in [
        ("monday.txt", "The meeting is on Monday."),
        ("notes/tuesday.txt", "Call the DENTIST on Tuesday."),
        (".hidden.txt", "dentist"),
    ] {
        let path = d.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(d.path()))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    let found = call("search_files", json!({"text": "dentist"}), &c);
    assert_eq!(found, ToolOutput::ok("notes/tuesday.txt"));
    let none = call(
        "search_files",
        json!({"text": "invoice", "path": "notes"}),
        &c,
    );
    assert_eq!(none, ToolOutput::ok("no file contains \"invoice\""));
    assert!(call("search_files", json!({"text": " "}), &c).is_error);
    assert!(
        call(
            "search_files",
            json!({"text": "x", "path": "monday.txt"}),
            &c
        )
        .is_error
    );
    let info = &Toolbox::builtin().infos()["search_files"];
    assert_eq!(
        keel_policy::classify::classify(info),
        keel_policy::classify::Effect::ReadOnly
    );
}

/// The parameters kept for each tool are its spec's, keel's keywords and all, for the built-in
/// tools, a tool added later (it replaces the one of its name) and after a preset's `retain`.
#[test]
fn kept_parameters_are_each_tools_own() {
    let mut tools = Toolbox::builtin();
    tools.add(Box::new(search::SearchFiles));
    tools.add(Box::new(super::manual::ToolManual::new()));
    for name in tools.tools.keys() {
        let spec = tools.get(name).map(Tool::spec);
        assert_eq!(
            tools.parameters(name),
            spec.as_ref().map(|s| &s.parameters),
            "{name}"
        );
    }
    assert!(tools.parameters(super::manual::NAME).is_some());
    tools.retain(&["write_file".to_string()]);
    assert!(
        tools.parameters("read_file").is_none() && tools.parameters(super::manual::NAME).is_none()
    );
    assert!(tools.parameters("write_file").is_some());
}
