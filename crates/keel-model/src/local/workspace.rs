//! What the local model's grammar knows of the session's folder: the files and folders that
//! exist under it (bounded in number and depth), and the paths the user's message names.
//!
//! Hidden entries (a name starting with `.`), symbolic links and names a grammar literal would
//! need escapes for are left out: the grammar offers what a small model should pick from, and
//! the gate still decides every call.

use std::path::Path;

use super::grammar::Workspace;

/// How many paths the grammar offers at most, and how deep it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_paths: usize,
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_paths: 64,
            max_depth: 3,
        }
    }
}

/// A name the grammar can offer as it is: printable ASCII without quotes or backslashes.
fn plain(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| (c.is_ascii_graphic() && c != '"' && c != '\\') || c == ' ')
}

/// The files and folders under `root`, breadth first and sorted by name at each level, at most
/// `limits.max_paths` of them in all. An unreadable folder is skipped.
pub fn paths(root: &Path, limits: Limits) -> Workspace {
    let mut out = Workspace::default();
    let mut level: Vec<String> = vec![String::new()];
    for _ in 0..limits.max_depth {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            let mut named: Vec<(String, bool)> = entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    let kind = e.file_type().ok()?;
                    if !plain(&name) || kind.is_symlink() {
                        return None;
                    }
                    Some((name, kind.is_dir()))
                })
                .collect();
            named.sort();
            for (name, is_dir) in named {
                if out.files.len() + out.dirs.len() >= limits.max_paths {
                    return out;
                }
                let path = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if is_dir {
                    out.dirs.push(path.clone());
                    next.push(path);
                } else {
                    out.files.push(path);
                }
            }
        }
        level = next;
    }
    out
}

/// The relative file paths `text` names: words with a file extension (`notes.txt`,
/// `docs/plan.md`), quotes and sentence punctuation around them taken off; no absolute path,
/// none that climbs out with `..`, at most eight.
pub fn named_paths(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "\"'`,;()[]{}<>".contains(c)) {
        let word = word.trim_end_matches(['.', ':', '!', '?']);
        let Some((stem, ext)) = word.rsplit_once('.') else {
            continue;
        };
        // A dot-file (`.env`) is named by its name alone.
        let stem = if stem.is_empty() { ext } else { stem };
        let ok = !stem.is_empty()
            && !stem.ends_with('/')
            && (1..=8).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
            && !word.starts_with(['/', '-'])
            && !word.starts_with("./")
            && !word.split('/').any(|part| part == ".." || part.is_empty());
        if ok && !out.iter().any(|w| w == word) && out.len() < 8 {
            out.push(word.to_string());
        }
    }
    out
}

/// Words a text to search for may be: those of `text` with three letters or more, lower-case,
/// less the words that ask rather than name (`which`, `file`, `mentions`, …), at most sixteen.
pub fn search_words(text: &str) -> Vec<String> {
    const ASKING: &[&str] = &[
        "which",
        "what",
        "where",
        "when",
        "who",
        "how",
        "the",
        "and",
        "file",
        "files",
        "folder",
        "mention",
        "mentions",
        "mentioned",
        "contain",
        "contains",
        "say",
        "says",
        "talk",
        "talks",
        "about",
        "this",
        "that",
        "there",
        "here",
        "does",
        "any",
        "find",
        "word",
        "with",
    ];
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        if word.chars().count() >= 3
            && !ASKING.contains(&word.as_str())
            && !out.contains(&word)
            && out.len() < 16
        {
            out.push(word);
        }
    }
    out
}

/// The words of `text`, lower-case.
/// Whether `text` means the working folder and names no other path: "this folder", "this
/// directory", "the current folder", "here".
pub fn means_here(text: &str) -> bool {
    let words = words_of(text);
    let folder = |w: &str| matches!(w, "folder" | "directory" | "dir");
    let here = words.iter().any(|w| w == "here")
        || words
            .windows(2)
            .any(|p| matches!(p[0].as_str(), "this" | "current") && folder(&p[1]));
    here && named_paths(text).is_empty()
}

pub fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `text` asks for a file to be written: one of its words is a verb of writing.
pub fn asks_to_write(text: &str) -> bool {
    const WRITING: &[&str] = &[
        "write",
        "save",
        "create",
        "put",
        "store",
        "add",
        "append",
        "overwrite",
        "replace",
        "change",
        "update",
        "edit",
        "set",
        "make",
        "record",
        "note",
    ];
    words_of(text).iter().any(|w| WRITING.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_folder_means_the_working_folder() {
        for here in [
            "List the files in this folder",
            "What is in the current directory?",
            "list what's here",
        ] {
            assert!(super::means_here(here), "{here}");
        }
        for elsewhere in [
            "List the files in src",
            "Is notes.txt here?",
            "Read notes.txt",
            "List the files",
        ] {
            assert!(!super::means_here(elsewhere), "{elsewhere}");
        }
    }

    #[test]
    fn named_paths_are_the_words_with_an_extension() {
        assert_eq!(
            named_paths("Write \"Hello\" to hello.txt, then read docs/plan.md."),
            vec!["hello.txt", "docs/plan.md"]
        );
        assert!(named_paths("Read /etc/passwd.txt and ../up.txt or 3.14").is_empty());
        assert!(named_paths("List the files in this folder.").is_empty());
        // A dot-file is a name the user may give; the gate decides what may be done with it.
        assert_eq!(named_paths("Put KEY=1 in .env please"), vec![".env"]);
        assert!(named_paths("Read ./x.txt or .. or .").is_empty());
    }

    #[test]
    fn the_listing_is_bounded_and_leaves_hidden_entries_out() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("b.txt"), "b")?;
        std::fs::write(dir.path().join(".env"), "secret")?;
        std::fs::create_dir_all(dir.path().join("sub/deeper/deepest/gone"))?;
        std::fs::write(dir.path().join("sub/a.md"), "a")?;
        std::os::unix::fs::symlink("/etc", dir.path().join("etc"))?;
        let ws = paths(dir.path(), Limits::default());
        assert_eq!(ws.files, vec!["b.txt", "sub/a.md"]);
        assert_eq!(ws.dirs, vec!["sub", "sub/deeper", "sub/deeper/deepest"]);
        let few = paths(
            dir.path(),
            Limits {
                max_paths: 2,
                max_depth: 3,
            },
        );
        assert_eq!(few.files.len() + few.dirs.len(), 2);
        Ok(())
    }

    #[test]
    fn words_to_search_for_and_verbs_of_writing() {
        assert_eq!(
            search_words("Which file mentions the dentist? The dentist!"),
            vec!["dentist"]
        );
        assert!(asks_to_write("Write the line A=1 to .env"));
        assert!(asks_to_write("Create a file named x.txt"));
        assert!(!asks_to_write("Read trip.txt. Which city is the trip to?"));
    }
}
