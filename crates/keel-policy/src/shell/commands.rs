//! The options of the read-only commands keel's default policy lists, so the policy knows
//! which words a command reads as files (issue 17).
//!
//! A path can hide in an option: `wc --files0-from=/etc/shadow`, `grep -f/outside -x a.txt`,
//! and GNU tools also take any unambiguous abbreviation of a long option (`--files0=…`). So for
//! each command on the table every option is known — whether it takes a value, whether that
//! value is a file, in each spelling (`-fFILE`, `-f FILE`, `--file=FILE`, `--file FILE`,
//! abbreviations) — and an option that is not known, or that makes the command follow links
//! out of the workspace, recurse into file contents or never end, makes the command opaque.
//! A command that is not on the table is read generically: every word that is not an option
//! is a path, and so is the value of a `--name=value` option (an allow rule that lists such a
//! command vouches for its options itself).

use super::Opaque;

/// What an option does with its value, if it takes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// No value.
    Flag,
    /// A value that is not a file.
    Value,
    /// A long option's value is optional and never a file (`--color[=WHEN]`).
    OptionalValue,
    /// A value that names a file the command reads.
    Path,
    /// A value that must be one of these (`grep -d read|skip`; `recurse` is refused).
    OneOf(&'static [&'static str]),
    /// Never allowed without asking: why.
    Refused(&'static str),
}

/// One option: its short letter and long name (either may be absent).
#[derive(Clone, Copy, Debug)]
struct Opt {
    short: Option<char>,
    long: Option<&'static str>,
    kind: Kind,
}

const fn s(c: char, kind: Kind) -> Opt {
    Opt {
        short: Some(c),
        long: None,
        kind,
    }
}

const fn l(name: &'static str, kind: Kind) -> Opt {
    Opt {
        short: None,
        long: Some(name),
        kind,
    }
}

const fn b(c: char, name: &'static str, kind: Kind) -> Opt {
    Opt {
        short: Some(c),
        long: Some(name),
        kind,
    }
}

/// What a command's operands are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operands {
    /// Files it reads.
    Paths,
    /// The first is a pattern unless `-e`/`-f` gave one; the rest are files (grep).
    PatternThenPaths,
    /// Text that names no file (`echo`, `which`).
    Text,
}

struct Spec {
    name: &'static str,
    opts: &'static [Opt],
    operands: Operands,
    /// `-NUM` is an option (`head -5`).
    digits: bool,
    /// `echo` reads no options the way getopt does: every word is text.
    no_options: bool,
}

use Kind::{Flag, OneOf, OptionalValue, Path, Refused, Value};

const HELP: [Opt; 2] = [l("help", Flag), l("version", Flag)];

const LS: &[Opt] = &[
    b('a', "all", Flag),
    b('A', "almost-all", Flag),
    l("author", Flag),
    b('b', "escape", Flag),
    l("block-size", Value),
    b('B', "ignore-backups", Flag),
    s('c', Flag),
    s('C', Flag),
    l("color", OptionalValue),
    l("colour", OptionalValue),
    b('d', "directory", Flag),
    b('D', "dired", Flag),
    s('f', Flag),
    b('F', "classify", Flag),
    l("file-type", Flag),
    l("format", Value),
    l("full-time", Flag),
    s('g', Flag),
    l("group-directories-first", Flag),
    b('G', "no-group", Flag),
    b('h', "human-readable", Flag),
    l("si", Flag),
    b('H', "dereference-command-line", Flag),
    l("dereference-command-line-symlink-to-dir", Flag),
    l("hide", Value),
    l("hyperlink", OptionalValue),
    l("indicator-style", Value),
    b('i', "inode", Flag),
    b('I', "ignore", Value),
    s('k', Flag),
    l("kibibytes", Flag),
    s('l', Flag),
    // Following links is harmless alone (an operand is checked where it leads), but with
    // recursion it walks out of the workspace: both are refused with -R, see REFUSED_PAIRS.
    b('L', "dereference", Flag),
    s('m', Flag),
    b('n', "numeric-uid-gid", Flag),
    b('N', "literal", Flag),
    s('o', Flag),
    s('p', Flag),
    b('q', "hide-control-chars", Flag),
    l("show-control-chars", Flag),
    b('Q', "quote-name", Flag),
    l("quoting-style", Value),
    b('r', "reverse", Flag),
    b('R', "recursive", Flag),
    b('s', "size", Flag),
    s('S', Flag),
    l("sort", Value),
    l("time", Value),
    l("time-style", Value),
    s('t', Flag),
    b('T', "tabsize", Value),
    s('u', Flag),
    s('U', Flag),
    s('v', Flag),
    b('w', "width", Value),
    s('x', Flag),
    s('X', Flag),
    b('Z', "context", Flag),
    l("zero", Flag),
    s('1', Flag),
    HELP[0],
    HELP[1],
];

const CAT: &[Opt] = &[
    b('A', "show-all", Flag),
    b('b', "number-nonblank", Flag),
    s('e', Flag),
    b('E', "show-ends", Flag),
    b('n', "number", Flag),
    b('s', "squeeze-blank", Flag),
    s('t', Flag),
    b('T', "show-tabs", Flag),
    s('u', Flag),
    b('v', "show-nonprinting", Flag),
    HELP[0],
    HELP[1],
];

const FOLLOW: &str = "it follows a file and never ends";

const HEAD: &[Opt] = &[
    b('c', "bytes", Value),
    b('n', "lines", Value),
    b('q', "quiet", Flag),
    l("silent", Flag),
    b('v', "verbose", Flag),
    b('z', "zero-terminated", Flag),
    HELP[0],
    HELP[1],
];

const TAIL: &[Opt] = &[
    b('c', "bytes", Value),
    b('f', "follow", Refused(FOLLOW)),
    s('F', Refused(FOLLOW)),
    b('n', "lines", Value),
    l("max-unchanged-stats", Value),
    l("pid", Value),
    b('q', "quiet", Flag),
    l("silent", Flag),
    l("retry", Flag),
    b('s', "sleep-interval", Value),
    b('v', "verbose", Flag),
    b('z', "zero-terminated", Flag),
    HELP[0],
    HELP[1],
];

const WC: &[Opt] = &[
    b('c', "bytes", Flag),
    b('m', "chars", Flag),
    b('l', "lines", Flag),
    l("files0-from", Refused(FILE_LIST)),
    b('L', "max-line-length", Flag),
    b('w', "words", Flag),
    l("total", Value),
    HELP[0],
    HELP[1],
];

const RECURSE: &str = "it reads file contents recursively";

/// The names in such a list are files the command opens, which keel never sees.
const FILE_LIST: &str = "it reads the names of the files to open from a file";

const GREP: &[Opt] = &[
    b('E', "extended-regexp", Flag),
    b('F', "fixed-strings", Flag),
    b('G', "basic-regexp", Flag),
    b('P', "perl-regexp", Flag),
    b('e', "regexp", Value),
    b('f', "file", Path),
    b('i', "ignore-case", Flag),
    l("no-ignore-case", Flag),
    s('y', Flag),
    b('v', "invert-match", Flag),
    b('w', "word-regexp", Flag),
    b('x', "line-regexp", Flag),
    b('c', "count", Flag),
    l("color", OptionalValue),
    l("colour", OptionalValue),
    b('L', "files-without-match", Flag),
    b('l', "files-with-matches", Flag),
    b('m', "max-count", Value),
    b('o', "only-matching", Flag),
    b('q', "quiet", Flag),
    l("silent", Flag),
    b('s', "no-messages", Flag),
    b('b', "byte-offset", Flag),
    b('H', "with-filename", Flag),
    b('h', "no-filename", Flag),
    l("label", Value),
    b('n', "line-number", Flag),
    b('T', "initial-tab", Flag),
    b('u', "unix-byte-offsets", Flag),
    b('Z', "null", Flag),
    b('z', "null-data", Flag),
    b('A', "after-context", Value),
    b('B', "before-context", Value),
    b('C', "context", Value),
    b('a', "text", Flag),
    l("binary-files", Value),
    b('D', "devices", Value),
    b('d', "directories", OneOf(&["read", "skip"])),
    l("exclude", Value),
    l("exclude-from", Path),
    l("exclude-dir", Value),
    s('I', Flag),
    l("include", Value),
    b('r', "recursive", Refused(RECURSE)),
    b('R', "dereference-recursive", Refused(RECURSE)),
    l("line-buffered", Flag),
    b('U', "binary", Flag),
    b('V', "version", Flag),
    l("help", Flag),
];

const STAT: &[Opt] = &[
    b('L', "dereference", Flag),
    b('f', "file-system", Flag),
    l("cached", Value),
    b('c', "format", Value),
    l("printf", Value),
    b('t', "terse", Flag),
    HELP[0],
    HELP[1],
];

const DU: &[Opt] = &[
    b('0', "null", Flag),
    b('a', "all", Flag),
    l("apparent-size", Flag),
    b('B', "block-size", Value),
    b('b', "bytes", Flag),
    b('c', "total", Flag),
    b('D', "dereference-args", Flag),
    b('H', "dereference-args", Flag),
    b('d', "max-depth", Value),
    l("files0-from", Refused(FILE_LIST)),
    b('h', "human-readable", Flag),
    l("inodes", Flag),
    s('k', Flag),
    b(
        'L',
        "dereference",
        Refused("it follows links out of the workspace"),
    ),
    b('l', "count-links", Flag),
    s('m', Flag),
    b('P', "no-dereference", Flag),
    b('S', "separate-dirs", Flag),
    l("si", Flag),
    b('s', "summarize", Flag),
    b('t', "threshold", Value),
    l("time", OptionalValue),
    l("time-style", Value),
    b('X', "exclude-from", Path),
    l("exclude", Value),
    b('x', "one-file-system", Flag),
    HELP[0],
    HELP[1],
];

const DF: &[Opt] = &[
    b('a', "all", Flag),
    b('B', "block-size", Value),
    b('h', "human-readable", Flag),
    b('H', "si", Flag),
    b('i', "inodes", Flag),
    s('k', Flag),
    b('l', "local", Flag),
    l("no-sync", Flag),
    l("output", OptionalValue),
    b('P', "portability", Flag),
    l("sync", Flag),
    l("total", Flag),
    b('t', "type", Value),
    b('T', "print-type", Flag),
    b('x', "exclude-type", Value),
    s('v', Flag),
    HELP[0],
    HELP[1],
];

const PWD: &[Opt] = &[
    b('L', "logical", Flag),
    b('P', "physical", Flag),
    HELP[0],
    HELP[1],
];

const WHICH: &[Opt] = &[s('a', Flag), s('s', Flag)];

const UNAME: &[Opt] = &[
    b('a', "all", Flag),
    b('s', "kernel-name", Flag),
    b('n', "nodename", Flag),
    b('r', "kernel-release", Flag),
    b('v', "kernel-version", Flag),
    b('m', "machine", Flag),
    b('p', "processor", Flag),
    b('i', "hardware-platform", Flag),
    b('o', "operating-system", Flag),
    HELP[0],
    HELP[1],
];

const fn spec(name: &'static str, opts: &'static [Opt], operands: Operands) -> Spec {
    Spec {
        name,
        opts,
        operands,
        digits: false,
        no_options: false,
    }
}

const SPECS: &[Spec] = &[
    spec("ls", LS, Operands::Paths),
    spec("cat", CAT, Operands::Paths),
    Spec {
        digits: true,
        ..spec("head", HEAD, Operands::Paths)
    },
    Spec {
        digits: true,
        ..spec("tail", TAIL, Operands::Paths)
    },
    spec("wc", WC, Operands::Paths),
    Spec {
        digits: true,
        ..spec("grep", GREP, Operands::PatternThenPaths)
    },
    spec("stat", STAT, Operands::Paths),
    spec("du", DU, Operands::Paths),
    spec("df", DF, Operands::Paths),
    Spec {
        no_options: true,
        ..spec("echo", &[], Operands::Text)
    },
    spec("pwd", PWD, Operands::Text),
    spec("which", WHICH, Operands::Text),
    spec("whoami", &HELP, Operands::Text),
    spec("uname", UNAME, Operands::Text),
];

/// Options that may not be combined: (command, short letters of each).
const REFUSED_PAIRS: &[(&str, char, char, &str)] = &[(
    "ls",
    'R',
    'L',
    "it lists recursively through links that may leave the workspace",
)];

/// Whether keel knows the options of this program.
pub fn is_known(program: &str) -> bool {
    SPECS.iter().any(|s| s.name == program)
}

/// The words of a simple command that name files it will read, or why keel cannot tell.
pub fn path_operands(words: &[String]) -> Result<Vec<String>, Opaque> {
    let Some((program, args)) = words.split_first() else {
        return Ok(Vec::new());
    };
    match SPECS.iter().find(|s| s.name == program) {
        Some(spec) => known(spec, args),
        None => Ok(generic(args)),
    }
}

/// A command keel has no table for: every non-option word and every `--name=value` value.
fn generic(args: &[String]) -> Vec<String> {
    let mut paths = Vec::new();
    let mut options_end = false;
    for arg in args {
        if options_end || !arg.starts_with('-') || arg == "-" {
            paths.push(arg.clone());
            // An operand that assigns (dd's `of=.envrc`, `make DESTDIR=..`) names its value
            // too.
            if let Some((_, value)) = arg.split_once('=').filter(|(key, _)| !key.is_empty()) {
                paths.push(value.to_string());
            }
        } else if arg == "--" {
            options_end = true;
        } else if let Some((_, value)) = arg.split_once('=') {
            paths.push(value.to_string());
        }
    }
    paths
}

fn known(spec: &Spec, args: &[String]) -> Result<Vec<String>, Opaque> {
    let refuse = |why: String| Opaque(format!("`{}` {why}", spec.name));
    if spec.no_options {
        return Ok(Vec::new());
    }
    let mut paths = Vec::new();
    let mut operands: Vec<&String> = Vec::new();
    let mut pattern_given = false;
    let mut seen: Vec<char> = Vec::new();
    let mut options_end = false;
    // The option whose value is the next word.
    let mut pending: Option<(Opt, String)> = None;
    for arg in args {
        if let Some((opt, shown)) = pending.take() {
            take_value(spec, opt, &shown, arg, &mut paths)?;
            continue;
        }
        if spec.name == "tail" && arg.starts_with('+') && !options_end {
            // The obsolete `tail +N[bcl][f]` form is an option, and `f` follows for ever.
            return Err(refuse(format!(
                "{arg}: the old `+N` form is an option that may follow a file for ever"
            )));
        }
        if options_end || !arg.starts_with('-') || arg == "-" {
            operands.push(arg);
            continue;
        }
        if arg == "--" {
            options_end = true;
            continue;
        }
        let mut record = |opt: Opt| {
            if let Some(c) = opt.short {
                seen.push(c);
            }
            if matches!(opt.short, Some('e' | 'f')) && spec.operands == Operands::PatternThenPaths {
                pattern_given = true;
            }
        };
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let opt = long_option(spec, name).map_err(refuse)?;
            record(opt);
            let shown = format!("--{name}");
            match (opt.kind, value) {
                (Refused(why), _) => return Err(refuse(format!("{shown}: {why}"))),
                (Flag, Some(_)) => {
                    return Err(refuse(format!("{shown} takes no value")));
                }
                (Flag | OptionalValue, None) => {}
                (_, Some(value)) => take_value(spec, opt, &shown, value, &mut paths)?,
                (_, None) => pending = Some((opt, shown)),
            }
            continue;
        }
        let cluster = &arg[1..];
        if spec.digits && cluster.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        for (i, c) in cluster.char_indices() {
            let Some(opt) = spec.opts.iter().find(|o| o.short == Some(c)).copied() else {
                return Err(refuse(format!("has an option keel does not know: -{c}")));
            };
            record(opt);
            match opt.kind {
                Flag => {}
                Refused(why) => return Err(refuse(format!("-{c}: {why}"))),
                OptionalValue => {
                    return Err(refuse(format!("has an option keel does not know: -{c}")));
                }
                _ => {
                    let rest = &cluster[i + c.len_utf8()..];
                    let shown = format!("-{c}");
                    if rest.is_empty() {
                        pending = Some((opt, shown));
                    } else {
                        take_value(spec, opt, &shown, rest, &mut paths)?;
                    }
                    break;
                }
            }
        }
    }
    if let Some((_, shown)) = pending {
        return Err(refuse(format!("{shown} is missing its value")));
    }
    for (program, a, b, why) in REFUSED_PAIRS {
        if *program == spec.name && seen.contains(a) && seen.contains(b) {
            return Err(refuse(format!("-{a} with -{b}: {why}")));
        }
    }
    let operands = match spec.operands {
        Operands::Text => &[][..],
        Operands::Paths => &operands[..],
        Operands::PatternThenPaths if pattern_given => &operands[..],
        Operands::PatternThenPaths => operands.get(1..).unwrap_or(&[]),
    };
    paths.extend(operands.iter().map(|s| (*s).clone()));
    Ok(paths)
}

fn take_value(
    spec: &Spec,
    opt: Opt,
    shown: &str,
    value: &str,
    paths: &mut Vec<String>,
) -> Result<(), Opaque> {
    match opt.kind {
        Path => paths.push(value.to_string()),
        OneOf(allowed) if !allowed.contains(&value) => {
            return Err(Opaque(format!(
                "`{}` {shown} {value}: only {} are read-only",
                spec.name,
                allowed.join(", ")
            )));
        }
        _ => {}
    }
    Ok(())
}

/// A long option by its name or an unambiguous abbreviation, as getopt_long reads it.
fn long_option(spec: &Spec, name: &str) -> Result<Opt, String> {
    if let Some(opt) = spec.opts.iter().find(|o| o.long == Some(name)) {
        return Ok(*opt);
    }
    let candidates: Vec<&Opt> = spec
        .opts
        .iter()
        .filter(|o| o.long.is_some_and(|l| l.starts_with(name)))
        .collect();
    match candidates.as_slice() {
        [one] => Ok(**one),
        [] => Err(format!("has an option keel does not know: --{name}")),
        // getopt_long accepts an ambiguous prefix when every candidate is the same option.
        [first, rest @ ..]
            if rest
                .iter()
                .all(|o| o.kind == first.kind && o.short == first.short) =>
        {
            Ok(**first)
        }
        _ => Err(format!("has an ambiguous option: --{name}")),
    }
}

#[cfg(test)]
mod tests;
