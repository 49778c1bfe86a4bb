//! Shell commands (keel-policy's `shell::parse` and `shell::commands::path_operands`): the
//! text of a model's `shell` call, read with brush-parser's grammar.
//!
//! Beyond never panicking and never overflowing the stack (a crash either way), a command the
//! parser accepts must (1) have no character the shell would expand outside quotes, and be
//! split into the same commands and words as sh splits it — checked against a separate,
//! simple reading of sh quoting, so the parser's own checks are not what judges it; (2) read back to the same words when each word is written again single-quoted;
//! and (3) name as paths only text that is in its words.
#![no_main]

use keel_policy::shell::{MAX_COMMAND_BYTES, SimpleCommand, commands, parse};
use libfuzzer_sys::fuzz_target;

/// Characters whose meaning, unquoted, the shell decides at run time (globs, braces, tilde,
/// expansions), or that group, negate or redirect.
const EXPANDS: &[char] = &[
    '*', '?', '[', ']', '{', '}', '~', '$', '`', '(', ')', '<', '>', '!',
];

/// How POSIX sh reads `command`'s quoting: the characters that stand outside any quoting, and
/// the words of each command (split at unquoted blanks, commands at `;`, `&`, `|` and
/// newlines), quotes removed. A backslash quotes the next character (a backslash-newline is
/// removed), single quotes quote everything up to the next one, double quotes everything up
/// to the next unescaped one, where a backslash quotes only `$`, `` ` ``, `"`, `\` and newline.
fn sh_reading(command: &str) -> (Vec<char>, Vec<Vec<String>>) {
    let mut unquoted = Vec::new();
    let (mut commands, mut words) = (Vec::new(), Vec::new());
    let (mut word, mut in_word) = (String::new(), false);
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(c) => {
                    word.push(c);
                    in_word = true;
                }
            },
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('\n') | None => {}
                            Some(c @ ('$' | '`' | '"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            ' ' | '\t' | '\n' | ';' | '&' | '|' => {
                unquoted.push(c);
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                if c != ' ' && c != '\t' && !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c => {
                unquoted.push(c);
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if !words.is_empty() {
        commands.push(words);
    }
    (unquoted, commands)
}

/// The words written again, each single-quoted, the commands joined by `;`.
fn requoted(commands: &[SimpleCommand]) -> String {
    commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse(command);
    assert_eq!(parsed, parse(command), "parse is deterministic");
    let Ok(simple) = parsed else {
        return;
    };
    assert!(!simple.is_empty(), "an accepted command runs something");
    let (unquoted, sh_words) = sh_reading(command);
    if let Some(c) = unquoted.into_iter().find(|c| EXPANDS.contains(c)) {
        panic!("{command:?} was accepted with an unquoted {c:?}: {simple:?}");
    }
    let words: Vec<Vec<String>> = simple.iter().map(|c| c.words.clone()).collect();
    assert_eq!(words, sh_words, "{command:?} is not read as sh reads it");
    let again = requoted(&simple);
    if again.len() <= MAX_COMMAND_BYTES {
        match parse(&again) {
            Ok(back) => assert_eq!(back, simple, "{command:?} requoted as {again:?}"),
            Err(e) => panic!("{command:?} requoted as {again:?} is refused: {e}"),
        }
    }
    for c in &simple {
        assert!(!c.words.is_empty(), "a simple command has its program word");
        let known = commands::is_known(&c.words[0]);
        if let Ok(paths) = commands::path_operands(&c.words) {
            for p in &paths {
                assert!(
                    c.words[1..].iter().any(|w| w.contains(p.as_str())),
                    "{p:?} is in no argument of {:?} (known program: {known})",
                    c.words
                );
            }
        }
    }
});
