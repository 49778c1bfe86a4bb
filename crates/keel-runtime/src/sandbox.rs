//! A kernel sandbox for the shell commands keel runs without asking anyone (issue 17).
//!
//! The read-only allow-list is a reading of the command; a reading can be wrong. So what it
//! lets through runs under Landlock as well: the command may read and run the system's own
//! programs and libraries (`/usr`, `/bin`, `/lib*`, `/etc`), list the workspace, and read the
//! workspace's files — except the sensitive entries (`.git`, `.env`, `node_modules`, as the
//! allowed-path checker names them), anything behind a symbolic link and files with other
//! names (hard links); it may write nothing
//! but `/dev/null`. Reads of the home folder or anything else outside are refused by the
//! kernel, whatever the command turned out to mean.
//!
//! Landlock grants by hierarchy and cannot subtract, so the workspace is granted piece by
//! piece: a folder with nothing sensitive and no link anywhere below is one rule; a folder
//! that has one is opened up and its other entries granted one by one. The walk is bounded
//! ([`MAX_ENTRIES`]); a workspace larger than that, or a kernel without Landlock, makes
//! [`read_only`] fail, and the caller refuses to run the command (fail closed).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus,
};

/// Most entries of the workspace looked at to lay out the rules.
pub const MAX_ENTRIES: usize = 50_000;

/// The oldest Landlock keel asks for: its file rights are all keel needs.
const ABI_WANTED: ABI = ABI::V5;

/// System folders a command may read and run from.
const SYSTEM_ROOTS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"];

/// Why a command could not be confined.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the kernel does not enforce Landlock here ({0})")]
    Unsupported(String),
    #[error("the workspace has more than {MAX_ENTRIES} entries to lay out")]
    TooLarge,
    #[error("Landlock refused the rules: {0}")]
    Rules(String),
}

/// A ruleset ready to be applied in the child, just before it runs the command.
pub struct Confinement {
    ruleset: Option<RulesetCreated>,
    /// How many rules it has (for the benchmark and tests).
    pub rules: usize,
}

impl Confinement {
    /// Applies the ruleset to the calling thread. Called between fork and exec, so it only
    /// makes system calls (`prctl`, `landlock_restrict_self`) and allocates nothing on success.
    pub fn enforce(&mut self) -> std::io::Result<()> {
        let Some(ruleset) = self.ruleset.take() else {
            return Err(std::io::Error::other("the sandbox was already applied"));
        };
        match ruleset.restrict_self() {
            Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Ok(()),
            Ok(_) => Err(std::io::Error::other("the sandbox is not fully enforced")),
            Err(_) => Err(std::io::Error::other("the sandbox could not be applied")),
        }
    }
}

/// Whether a name is one the allowed-path checker holds sensitive (safety.md N25), or an
/// `.env.*` file the guarded-paths checker asks about.
fn sensitive(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    let cut = name.split(':').next().unwrap_or_default();
    let normal = cut.trim_end_matches([' ', '.']).to_lowercase();
    matches!(normal.as_str(), ".git" | ".env" | "node_modules")
        || keel_policy::paths::is_env_variant(&name)
}

/// What to grant inside the workspace.
struct Layout {
    /// Folders and files granted whole.
    grants: Vec<PathBuf>,
    seen: usize,
}

/// Whether anything below `dir` is sensitive or a link; counts what it looks at.
fn has_hazard(dir: &Path, seen: &mut usize) -> Result<bool, SandboxError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(true);
    };
    for entry in entries.flatten() {
        *seen += 1;
        if *seen > MAX_ENTRIES {
            return Err(SandboxError::TooLarge);
        }
        let Ok(kind) = entry.file_type() else {
            return Ok(true);
        };
        if kind.is_symlink() || sensitive(&entry.file_name()) || hard_linked(&entry.path()) {
            return Ok(true);
        }
        if kind.is_dir() && has_hazard(&entry.path(), seen)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A file with other names: Landlock grants an inode, so granting it here would grant it under
/// its names outside too.
fn hard_linked(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

fn lay_out(dir: &Path, layout: &mut Layout) -> Result<(), SandboxError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        layout.seen += 1;
        if layout.seen > MAX_ENTRIES {
            return Err(SandboxError::TooLarge);
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() || sensitive(&entry.file_name()) {
            continue;
        }
        let path = entry.path();
        if kind.is_dir() && has_hazard(&path, &mut layout.seen)? {
            lay_out(&path, layout)?;
        } else if !hard_linked(&path) {
            layout.grants.push(path);
        }
    }
    Ok(())
}

fn rule(path: &Path, access: BitFlags<AccessFs>) -> Option<PathBeneath<PathFd>> {
    let fd = PathFd::new(path).ok()?;
    let access = if path.is_dir() {
        access
    } else {
        // File rules may only carry file rights.
        access & (AccessFs::ReadFile | AccessFs::Execute | AccessFs::WriteFile | AccessFs::Truncate)
    };
    Some(PathBeneath::new(fd, access))
}

/// The read-only confinement for a command run in `workspace`.
pub fn read_only(workspace: &Path) -> Result<Confinement, SandboxError> {
    let abi = ABI_WANTED;
    let read = AccessFs::from_read(abi);
    let mut layout = Layout {
        grants: Vec::new(),
        seen: 0,
    };
    lay_out(workspace, &mut layout)?;
    let mut rules: Vec<PathBeneath<PathFd>> = Vec::new();
    rules.extend(SYSTEM_ROOTS.iter().filter_map(|r| rule(Path::new(r), read)));
    // Listing the workspace shows names (also of sensitive entries, as `ls` does); their
    // contents are another right.
    rules.extend(rule(workspace, AccessFs::ReadDir.into()));
    rules.extend(layout.grants.iter().filter_map(|p| rule(p, read)));
    rules.extend(rule(
        Path::new("/dev/null"),
        AccessFs::ReadFile | AccessFs::WriteFile,
    ));
    let count = rules.len();
    let ruleset = Ruleset::default()
        .set_compatibility(landlock::CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .and_then(Ruleset::create)
        .map_err(|e| SandboxError::Unsupported(e.to_string()))?
        .add_rules(rules.into_iter().map(Ok::<_, landlock::RulesetError>))
        .map_err(|e| SandboxError::Rules(e.to_string()))?;
    Ok(Confinement {
        ruleset: Some(ruleset),
        rules: count,
    })
}

#[cfg(test)]
mod tests {
    use super::sensitive;
    use std::ffi::OsStr;

    #[test]
    fn sensitive_names_follow_the_allowed_path_checker() {
        for name in [
            ".git",
            ".GIT",
            ".env",
            ".env.",
            ".env ",
            ".git:stream",
            "node_modules",
            ".env.local",
            ".ENV.production",
        ] {
            assert!(sensitive(OsStr::new(name)), "{name}");
        }
        for name in [".github", ".envrc", "env", "src", ".vscode", ".env.example"] {
            assert!(!sensitive(OsStr::new(name)), "{name}");
        }
    }
}
