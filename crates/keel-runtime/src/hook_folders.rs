//! What Git runs code from for the repositories a run works in: the folders `core.hooksPath`
//! names and the config files Git reads outside the Git directory. Writing a file there runs
//! it on the next commit or `git status`, as writing `.git/hooks` does, so the guarded-paths
//! checker asks about it. Read once, when the gate is
//! made: changing the setting takes a shell command, which the gate judges on its own.

use std::path::{Path, PathBuf};

/// What Git runs code from for the repository holding `dir`, each absolute: the hook folders
/// its config names (`core.hooksPath`; a relative one is the working tree's, as Git reads
/// it), and every config file Git reads for it that lies outside its Git directory — a file
/// the repository's config includes (`include.path = ../tools/git.cfg`) is Git config, whose
/// `core.fsmonitor` runs on the next `git status` (an outsider's round 23). Git itself is
/// asked (`git config --list --show-origin`), so includes, conditional includes, a
/// worktree's config and the user's global files count as Git reads them; where Git cannot
/// be run (or does not take the folder for a repository), the repository's own config file
/// is still read here. Empty where `dir` is in no repository.
pub fn hook_folders(dir: &Path) -> Vec<PathBuf> {
    let Some((top, git_dir)) = repository_of(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = std::fs::read_to_string(git_dir.join("config"))
        .map(|config| {
            core_hooks_paths(&config)
                .into_iter()
                .map(|value| expand(&top, &value))
                .collect()
        })
        .unwrap_or_default();
    for more in asked_of_git(dir, &top, &git_dir).unwrap_or_default() {
        if !found.contains(&more) {
            found.push(more);
        }
    }
    found
}

/// [`hook_folders`] as `git config --list --show-origin --includes` gives them; `None` when
/// Git cannot be run or fails.
fn asked_of_git(dir: &Path, top: &Path, git_dir: &Path) -> Option<Vec<PathBuf>> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["config", "--list", "--show-origin", "--includes"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let git_dir = std::fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.to_path_buf());
    let mut found = Vec::new();
    for line in text.lines() {
        let Some((origin, setting)) = line.split_once('\t') else {
            continue;
        };
        if let Some(file) = origin.strip_prefix("file:") {
            let file = dir.join(file);
            let resolved = std::fs::canonicalize(&file).unwrap_or(file);
            // The Git directory is guarded as a whole already; the user's own files are in
            // their home folder's settings.
            if !resolved.starts_with(&git_dir) && !found.contains(&resolved) {
                found.push(resolved);
            }
        }
        let Some((key, value)) = setting.split_once('=') else {
            continue;
        };
        if key.eq_ignore_ascii_case("core.hookspath") && !value.is_empty() {
            found.push(expand(top, value));
        }
        // A file included is Git config even while it holds no setting yet (Git lists a file
        // by its settings): relative to the file that includes it.
        let key = key.to_ascii_lowercase();
        if (key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path")))
            && !value.is_empty()
            && let Some(file) = origin.strip_prefix("file:")
        {
            let including = dir.join(file);
            let included = match value.strip_prefix("~/") {
                Some(_) => expand(top, value),
                None => including
                    .parent()
                    .map_or_else(|| PathBuf::from(value), |d| d.join(value)),
            };
            let resolved = std::fs::canonicalize(&included).unwrap_or(included);
            if !resolved.starts_with(&git_dir) && !found.contains(&resolved) {
                found.push(resolved);
            }
        }
    }
    Some(found)
}

/// A `core.hooksPath` value as Git reads it: `~/` is the home folder, a relative one the
/// working tree's.
fn expand(top: &Path, value: &str) -> PathBuf {
    match value.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .filter(|home| Path::new(home).is_absolute())
            .map_or_else(|| top.join(value), |home| PathBuf::from(home).join(rest)),
        None => top.join(value),
    }
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
        assert!(hook_folders(&repo.join("src/deep")).contains(&repo.join("tools/hooks")));
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
        assert!(hook_folders(&worktree).contains(&worktree.join("tools/hooks")));
        assert!(hook_folders(root.path()).is_empty());
        Ok(())
    }

    /// Git is asked, so a setting in a file the repository's config includes counts, and that
    /// file is Git config too (an outsider's round 23 wrote `core.fsmonitor` into one).
    #[test]
    fn what_an_included_config_says_counts_and_the_file_is_git_config() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let repo = std::fs::canonicalize(root.path())?.join("repo");
        std::fs::create_dir_all(repo.join("tools"))?;
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .arg("-C")
                .arg(&repo)
                .args(args)
                .status()
                .map(|s| s.success())
        };
        assert!(git(&["init", "-q"])?, "git init");
        assert!(git(&["config", "include.path", "../tools/git.cfg"])?);
        std::fs::write(repo.join("tools/git.cfg"), "[core]\n\thooksPath = hk\n")?;
        let found = hook_folders(&repo);
        assert!(found.contains(&repo.join("hk")), "{found:?}");
        assert!(found.contains(&repo.join("tools/git.cfg")), "{found:?}");
        // One that holds no setting yet is Git config all the same.
        std::fs::write(repo.join("tools/git.cfg"), "[alias]\n")?;
        let found = hook_folders(&repo);
        assert!(found.contains(&repo.join("tools/git.cfg")), "{found:?}");
        assert!(
            !found.iter().any(|f| f.starts_with(repo.join(".git"))),
            "{found:?}"
        );
        Ok(())
    }
}
