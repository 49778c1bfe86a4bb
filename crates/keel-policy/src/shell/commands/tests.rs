use super::{is_known, path_operands};

fn paths(command: &str) -> Result<Vec<String>, String> {
    let words: Vec<String> = command.split_whitespace().map(String::from).collect();
    path_operands(&words).map_err(|e| e.0)
}

fn ok(command: &str) -> Vec<String> {
    paths(command).unwrap_or_else(|e| panic!("{command:?} should be read-only: {e}"))
}

#[test]
fn operands_and_file_valued_options_in_every_spelling_are_paths() {
    assert_eq!(ok("cat -n a b"), ["a", "b"]);
    assert_eq!(ok("cat -- -n"), ["-n"]);
    assert_eq!(ok("head -n 5 a"), ["a"]);
    assert_eq!(ok("head -5 a"), ["a"]);
    assert_eq!(ok("tail -n+3 a"), ["a"]);
    assert_eq!(ok("ls -la --color=auto --sort time d"), ["d"]);
    // Issue 17 row 5: a path glued to an option, in every spelling; getopt_long takes
    // unambiguous abbreviations.
    assert_eq!(ok("du -sX/outside ."), ["/outside", "."]);
    assert_eq!(ok("du --exclude-from /outside ."), ["/outside", "."]);
    assert_eq!(ok("du --exclude-f=/outside ."), ["/outside", "."]);
    assert_eq!(
        ok("grep -f/outside/file -x -v a.txt"),
        ["/outside/file", "a.txt"]
    );
    assert_eq!(
        ok("grep -xf /outside/file a.txt"),
        ["/outside/file", "a.txt"]
    );
    assert_eq!(ok("grep --file=p a.txt"), ["p", "a.txt"]);
    assert_eq!(ok("grep --exclude-from=x pat a"), ["x", "a"]);
    // grep's first operand is its pattern unless -e or -f gave one.
    assert_eq!(ok("grep needle a b"), ["a", "b"]);
    assert_eq!(ok("grep -e needle a b"), ["a", "b"]);
    assert_eq!(ok("grep -ineedle a"), ["a"]);
    assert_eq!(ok("grep -d skip x a"), ["a"]);
    // Commands whose operands are not files.
    assert!(ok("echo .env ../x /etc/passwd").is_empty());
    assert!(ok("which -a ls cat").is_empty());
    assert!(ok("uname -a").is_empty());
    // A command keel has no table for: words and `--name=value` values.
    assert!(!is_known("git"));
    assert_eq!(ok("git log --output=../x -3 HEAD"), ["log", "../x", "HEAD"]);
}

#[test]
fn what_reads_recursively_follows_out_or_never_ends_is_opaque() {
    for command in [
        // Issue 17 row 3.
        "grep -r SECRET .",
        "grep -R SECRET .",
        "grep -rn SECRET .",
        "grep --recursive SECRET .",
        "grep --recur SECRET .",
        "grep --dereference-recursive SECRET .",
        "grep -d recurse SECRET .",
        "grep --directories=recurse SECRET .",
        "grep -drecurse SECRET .",
        "ls -RL .",
        "ls -R --dereference .",
        "du -L .",
        "du --dereference .",
        "tail -f a",
        "tail --follow=name a",
        "tail -F a",
        "tail +1f a",
        "tail +5 a",
        // A list of file names to open: the names inside are never checked.
        "wc --files0-from=/outside/file",
        "wc --files0-from list",
        "wc --files0=list",
        "du --files0-from=names",
        // Unknown, ambiguous, malformed.
        "cat --output=x a",
        "cat -Z a",
        "ls --co",
        "head -n",
        "grep -e",
        "wc --lines=3 a",
        "grep -5x a",
    ] {
        assert!(paths(command).is_err(), "{command:?} should be opaque");
    }
    // Listing recursively without following links reads names, not contents.
    assert_eq!(ok("ls -R ."), ["."]);
    assert_eq!(ok("ls -L a"), ["a"]);
}
