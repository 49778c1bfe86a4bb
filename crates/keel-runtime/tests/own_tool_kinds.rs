//! keel's own tools take the action kinds their names say, not kinds a word of their
//! descriptions suggests: a `write_file` that "replaces" a file deletes nothing the user
//! must ask for by name (the gate's description reading, issue 14's third round).

use keel_policy::authority::{ActionKind, tool_kinds};
use keel_runtime::tools::Toolbox;

#[test]
fn keels_own_tools_take_the_kinds_their_names_say() {
    let infos = Toolbox::builtin().infos();
    assert!(infos.len() >= 5, "{}", infos.len());
    for info in infos.values() {
        let kinds = tool_kinds(info);
        match info.name.as_str() {
            "write_file" | "read_file" | "list_dir" | "search_files" | "tool_manual" => {
                assert!(kinds.is_empty(), "{}: {kinds:?}", info.name)
            }
            _ => assert!(
                !kinds.contains(&ActionKind::Pay) && !kinds.contains(&ActionKind::Book),
                "{}: {kinds:?}",
                info.name
            ),
        }
    }
}
