use super::{MAX_COMMAND_BYTES, parse};

fn words(command: &str) -> Vec<Vec<String>> {
    match parse(command) {
        Ok(cmds) => cmds.into_iter().map(|c| c.words).collect(),
        Err(e) => panic!("{command:?} should parse: {e}"),
    }
}

fn is_opaque(command: &str) -> bool {
    parse(command).is_err()
}

#[test]
fn lists_and_pipelines_of_literal_words_are_read_as_the_shell_would() {
    assert_eq!(
        words("ls -la \"a b\" | grep x && cat 'y z'; wc -l\nhead c"),
        [
            vec!["ls", "-la", "a b"],
            vec!["grep", "x"],
            vec!["cat", "y z"],
            vec!["wc", "-l"],
            vec!["head", "c"],
        ]
    );
    // Quote removal and escapes: what the program receives.
    assert_eq!(words(r#""c"at a\ b 'q'"w""#), [vec!["cat", "a b", "qw"]]);
    assert_eq!(words(r#"echo "a\b\$c\"""#), [vec!["echo", "a\\b$c\""]]);
    assert_eq!(words(r"grep \( x"), [vec!["grep", "(", "x"]]);
    // Quoted, these characters are literal.
    assert_eq!(
        words("grep '(a|b)*{1}$' \"<x>\" '~'"),
        [vec!["grep", "(a|b)*{1}$", "<x>", "~"]]
    );
    // `#` inside a word is a character; a backslash-newline joins lines (POSIX 2.2.1).
    assert_eq!(words("ls a#b"), [vec!["ls", "a#b"]]);
    assert_eq!(words("cat a\\\nb"), [vec!["cat", "ab"]]);
    // `time` is a program in dash and a keyword in bash: either way on no list, so keel
    // treats it as the keyword (see a_shell_keyword_that_starts_a_command_…).
}

#[test]
fn expansions_the_shell_resolves_at_run_time_are_opaque() {
    for command in [
        // Globs (issue 17 rows 1, 2, 4).
        "cat .?/.?/etc/hostname",
        "cat .e*",
        "cat .en?",
        "cat .[e]nv",
        "echo ok && cat .en*",
        "cat .g*/config",
        "cat sub/l*/secret.txt",
        // Brace and tilde expansion.
        "cat {a,b}",
        "cat a{1..3}",
        "cat ~/.ssh/id_rsa",
        "cat ~root/x",
        // Parameters, substitution, arithmetic, ANSI-C quoting.
        "cat $HOME/x",
        "cat \"$HOME\"",
        "cat ${x:-.env}",
        "ls $(rm -rf /)",
        "ls \"$(rm x)\"",
        "ls `rm x`",
        "ls \"`rm x`\"",
        "echo $((1+1))",
        "cat $'\\x2eenv'",
        // Assignment prefixes (row 6).
        "PATH=tools ls",
        "LD_PRELOAD=x ls",
        "GCONV_PATH=. cat a",
        "LD_LIBRARY_PATH=. ls",
        // Redirections, process substitution, here-docs.
        "ls > out",
        "cat < .env",
        "cat 2>/dev/null a",
        "cat <(ls)",
        "cat <<EOF\nx\nEOF",
        "ls 2>&1",
        // Grouping, compound commands, functions, background jobs, negation.
        "(cat .env)",
        "{ cat a; }",
        "ls () (touch x) && ls",
        "if true; then ls; fi",
        "for f in a; do cat $f; done",
        "while true; do ls; done",
        "case a in a) ls;; esac",
        "ls &",
        "! ls",
        "[[ -f a ]]",
        // Comments (where one starts is the shell's guess), unterminated quotes.
        "ls # rm -rf /",
        "ls #x\ntouch y",
        "cat 'a",
        "cat \"a",
        // Nothing to run.
        "",
        "   ",
        ";",
    ] {
        assert!(is_opaque(command), "{command:?} should be opaque");
    }
}

#[test]
fn deep_nesting_cannot_overflow_the_stack() {
    // The parser recurses per level: these are refused before it sees them.
    let deep = [
        format!("{}ls{}", "(".repeat(5000), ")".repeat(5000)),
        format!("{}ls{}", "if true; then ".repeat(500), "; fi".repeat(500)),
        format!("{}ls{}", "{ ".repeat(2000), "; }".repeat(2000)),
        format!("echo {}ls{}", "$(".repeat(2000), ")".repeat(2000)),
        format!("{}ls", "! ".repeat(3000)),
    ];
    for command in &deep {
        assert!(is_opaque(command));
    }
    // A long flat list is fine, up to the size limit.
    let flat = "ls | ".repeat(1000) + "ls";
    assert_eq!(words(&flat).len(), 1001);
    let long = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES));
    assert!(is_opaque(&long));
}

#[test]
fn a_tilde_prefix_with_more_digits_than_the_parser_holds_is_opaque_not_a_panic() {
    // Found by fuzz/fuzz_targets/shell.rs: brush-parser unwraps the number of `~N`, `~+N` and
    // `~-N` (directory-stack tildes) as a usize, so a long one panicked the gate.
    for command in [
        "head -5 ~3337333333333330333333333333333333;33333333333333JJJJJJJJJ\0\0\0\0\0JJgrJJJJJep",
        "cat ~99999999999999999999",
        "cat ~+99999999999999999999/x",
        "cat ~-99999999999999999999",
        "ls a:~99999999999999999999",
    ] {
        assert!(is_opaque(command), "{command:?} should be opaque");
    }
}

/// Found by `scripts/fuzz --seconds 1500 shell`: brush-parser's tokenizer took more than 2 GB
/// on these 340 bytes (NULs and CRs around a here-document). Control characters and
/// unterminated quotes are refused before the tokenizer sees the command.
#[test]
fn control_characters_and_unterminated_quotes_are_opaque_before_the_tokenizer() {
    let bytes = include_bytes!("regressions/oom-control-characters.bin");
    let text = String::from_utf8_lossy(bytes);
    assert!(is_opaque(&text));
    // Subscript-like pieces the parser's grammar backtracks over exponentially: refused before
    // it sees them (this input, doubled, held it for minutes).
    let bytes = include_bytes!("regressions/backtracking-subscripts.bin");
    let text = String::from_utf8_lossy(bytes).repeat(2);
    assert!(is_opaque(&text));
    // bash's `$'…'` behind an escaped `$`, where brush-parser's tokenizer and sh part ways: a
    // 2.3 KB command of it held the grammar for seconds. Refused before the parser reads it.
    let bytes = include_bytes!("regressions/ansi-quote-after-escaped-dollar.bin");
    let text = String::from_utf8_lossy(bytes);
    assert_eq!(
        parse(&text).unwrap_err().to_string(),
        "it has an escaped `$` outside quotes (write '$' instead)"
    );
    for command in [
        "cat a\0b",
        "cat a\rb",
        "ls\u{1b}[2J",
        "cat 'a",
        "cat \"a",
        "cat a\\",
    ] {
        assert!(is_opaque(command), "{command:?}");
    }
    // Tabs and line feeds are ordinary.
    assert_eq!(words("cat\ta\nls"), [vec!["cat", "a"], vec!["ls"]]);
}

/// sh runs `touch pwned` here; brush-parser alone read one `cat` with one argument, because it
/// takes `\$'` for bash's `$'…'` quoting, in which `\'` does not end the quote.
#[test]
fn a_command_the_two_readers_split_differently_is_opaque() {
    for command in [
        r"cat \$'\' ; touch pwned ; echo '\'",
        r"cat a\$'b'",
        r"echo \$'\n'",
    ] {
        assert!(is_opaque(command), "{command:?}");
    }
    // What both read alike is still read.
    assert_eq!(
        words(r#"cat 'a b' "c\"d" e\ f "g\h""#),
        [vec!["cat", "a b", "c\"d", "e f", "g\\h"]]
    );
    assert_eq!(
        words("cat a.txt && ls -la | wc -l"),
        [vec!["cat", "a.txt"], vec!["ls", "-la"], vec!["wc", "-l"]]
    );
    assert_eq!(words("echo if then fi"), [vec!["echo", "if", "then", "fi"]]);
}

/// A keyword where a command starts opens a compound command, which is opaque whatever it
/// holds: the grammar never sees one.
#[test]
fn a_shell_keyword_that_starts_a_command_is_refused_before_parsing() {
    for command in [
        "if true; then ls; fi",
        "ls; while true; do ls; done",
        "A=b if",
        "ls | function f",
        "time ls",
    ] {
        let reason = parse(command).unwrap_err().to_string();
        assert!(reason.contains("shell keyword"), "{command:?}: {reason}");
    }
    // Quoted or escaped, it is only a word.
    assert_eq!(words("'if' x"), [vec!["if", "x"]]);
}
