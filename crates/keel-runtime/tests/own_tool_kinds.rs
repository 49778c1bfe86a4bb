//! keel's own tools take the action kinds their names say, not kinds their descriptions
//! suggest: the shell's "Run a shell command" asks for no "run" in the user's words (what it
//! runs is the shell decision's to judge), and a `write_file` that "replaces" a file deletes
//! nothing the user must ask for by name (the gate's description reading, issue 14's third
//! round).

use keel_runtime::policy_gate::action_kinds;
use keel_runtime::tools::Toolbox;

#[test]
fn keels_own_tools_take_the_kinds_their_names_say() {
    let infos = Toolbox::builtin().infos();
    assert!(infos.len() >= 5, "{}", infos.len());
    for info in infos.values() {
        let kinds = action_kinds(info);
        assert!(kinds.is_empty(), "{}: {kinds:?}", info.name);
    }
    // A tool of an MCP server with the same description is read by it.
    let shell = infos.get("shell").cloned().unwrap_or_default();
    let theirs = keel_policy::classify::ToolInfo {
        name: "mcp__box__sh".into(),
        ..shell
    };
    assert!(!action_kinds(&theirs).is_empty(), "{theirs:?}");
}
