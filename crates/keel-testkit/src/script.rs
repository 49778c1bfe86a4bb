//! Programs keel starts, written by a test as `/bin/sh` scripts: external checkers, stand-in
//! llm workers, anything that speaks a protocol over stdin and stdout.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Writes `body` to `dir/name` after a `#!/bin/sh` line, makes it executable and returns its
/// path.
pub fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}
