//! The folders Git runs hooks from for the repositories a run works in: `core.hooksPath` in
//! a repository's own config. Writing a file there runs it on the next commit, as writing
//! `.git/hooks` does, so the guarded-paths checker asks about it. Read once, when the gate is
//! made: changing the setting takes a shell command, which the gate judges on its own.

use std::path::{Path, PathBuf};

/// The hook folders the config of the repository holding `dir` names, each absolute (a
/// relative one is the working tree's, as Git reads it). None where `dir` is in no
/// repository or the config names none.
pub fn hook_folders(dir: &Path) -> Vec<PathBuf> {
    let Some((top, git_dir)) = repository_of(dir) else {
        return Vec::new();
    };
    let Ok(config) = std::fs::read_to_string(git_dir.join("config")) else {
        return Vec::new();
    };
    core_hooks_paths(&config)
        .into_iter()
        .map(|value| match value.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME")
                .filter(|home| Path::new(home).is_absolute())
                .map_or_else(|| top.join(&value), |home| PathBuf::from(home).join(rest)),
            None => top.join(value),
        })
        .collect()
}

/// The working tree's top and its Git directory, for the repository holding `dir`: the
/// nearest folder up with a `.git` folder, or a `.git` file pointing at one (a worktree or a
/// submodule).
fn repository_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    for top in dir.ancestors() {
        let dot_git = top.join(".git");
        if dot_git.is_dir() {
            return Some((top.to_path_buf(), dot_git));
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let pointed = text.trim().strip_prefix("gitdir:")?.trim();
            let git_dir = top.join(pointed);
            // A worktree's own folder names the shared one, whose config is the repository's.
            let common = std::fs::read_to_string(git_dir.join("commondir"))
                .map(|c| git_dir.join(c.trim()))
                .unwrap_or(git_dir);
            return Some((top.to_path_buf(), common));
        }
    }
    None
}

/// Every `hooksPath` value of a `[core]` section of a Git config text (names compared as Git
/// does, without case; a value's quotes and trailing comment dropped).
fn core_hooks_paths(config: &str) -> Vec<String> {
    let mut in_core = false;
    let mut found = Vec::new();
    for line in config.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let name = header
                .split([']', ' ', '"', '.'])
                .next()
                .unwrap_or_default();
            in_core = name.eq_ignore_ascii_case("core") && !header.contains('"');
            // `[core] hooksPath = x` on the header's own line.
            let Some((_, rest)) = header.split_once(']') else {
                continue;
            };
            if !in_core || rest.trim().is_empty() {
                continue;
            }
            if let Some(value) = hooks_path_value(rest.trim()) {
                found.push(value);
            }
            continue;
        }
        if in_core && let Some(value) = hooks_path_value(line) {
            found.push(value);
        }
    }
    found
}

/// The value of a `hooksPath = value` line, if it is one.
fn hooks_path_value(line: &str) -> Option<String> {
    let (key, value) = line.split_once('=')?;
    if !key.trim().eq_ignore_ascii_case("hookspath") {
        return None;
    }
    let value = value.trim();
    let value = match value.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or_default().to_string(),
        None => value
            .split([';', '#'])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string(),
    };
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_core_hooks_path_as_git_writes_it() {
        let config = "[core]\n\trepositoryformatversion = 0\n\tHooksPath = tools/hooks ; team hooks\n[remote \"origin\"]\n\thooksPath = not/this\n[core \"x\"]\n\thookspath = nor/this\n";
        assert_eq!(core_hooks_paths(config), ["tools/hooks"]);
        assert_eq!(
            core_hooks_paths("[CORE]\nhookspath = \"a b/h\"\n"),
            ["a b/h"]
        );
        assert!(core_hooks_paths("[user]\nname = x\n").is_empty());
    }

    #[test]
    fn finds_the_repository_config_from_any_folder_below_it() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let repo = root.path().join("repo");
        std::fs::create_dir_all(repo.join(".git"))?;
        std::fs::create_dir_all(repo.join("src/deep"))?;
        std::fs::write(
            repo.join(".git/config"),
            "[core]\n\thooksPath = tools/hooks\n",
        )?;
        assert_eq!(
            hook_folders(&repo.join("src/deep")),
            [repo.join("tools/hooks")]
        );
        // A worktree's `.git` file leads to the shared config.
        let worktree = root.path().join("wt");
        let own = repo.join(".git/worktrees/wt");
        std::fs::create_dir_all(&own)?;
        std::fs::create_dir_all(&worktree)?;
        std::fs::write(own.join("commondir"), "../..\n")?;
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", own.display()),
        )?;
        assert_eq!(hook_folders(&worktree), [worktree.join("tools/hooks")]);
        assert!(hook_folders(root.path()).is_empty());
        Ok(())
    }
}
