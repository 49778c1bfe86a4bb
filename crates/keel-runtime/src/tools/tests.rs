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
