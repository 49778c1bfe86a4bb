//! The allowed-path checker's decision logic (safety.md N22–N25, N28–N32; T5).
//!
//! Every path-like string argument is resolved physically — component by component, each
//! existing prefix canonicalized through the [`PathResolver`] passed in — and classified
//! against the allowed roots. All paths are evaluated and the most restrictive result wins,
//! with the reason of the first path that has it. The filesystem itself is behind the
//! resolver: keel-runtime has the `std::fs` one, tests have a map.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::Decision;
use super::protocol::SafetyCheckResult;

/// Why a path could not be canonicalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// Nothing exists there.
    NotFound,
    /// Anything else (permissions, a loop of links, …).
    Other(String),
}

/// Canonicalizes existing paths (symlinks resolved).
pub trait PathResolver {
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ResolveError>;

    /// The target of `path` if it is a symbolic link (dangling or not), else `None`.
    fn read_link(&self, _path: &Path) -> Option<PathBuf> {
        None
    }

    /// Whether the last component of `path` is missing or an entry that is not a symbolic
    /// link (`Some(true)`), or a link (`Some(false)`), in one cheap look (`lstat`); `None` when
    /// this resolver cannot tell that way.
    fn missing_or_not_a_link(&self, _path: &Path) -> Result<Option<bool>, ResolveError> {
        Ok(None)
    }

    /// Whether `path` (resolved) is a file with more than one name: a hard link may give a
    /// file outside the workspace a name inside it, which no path shows.
    fn has_other_names(&self, _path: &Path) -> bool {
        false
    }

    /// Whether `dir`, a directory the run was given (its working directory), no longer names
    /// the directory it named when the run began: moved, deleted, or swapped for a link. A
    /// tool that takes no path still acts there (`list_dir {}`, a shell's `pwd`).
    fn directory_replaced(&self, _dir: &Path) -> bool {
        false
    }
}

/// How many symbolic links one resolution may follow (as the OS's own limit).
const MAX_LINKS: usize = 40;

/// A string argument to check, with its dot-path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathArg {
    pub arg: String,
    pub value: String,
    /// Taken for a path by keel beyond N23 — by a key N23 does not name, by being nested under
    /// a path's key, or by its shape — so perhaps not one (a web route `/v1/users`, a
    /// subreddit `/r/rust`): outside the workspace, it asks rather than denies.
    pub inferred: bool,
}

/// Config `{included_args?, excluded_args?}` (N22).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathConfig {
    pub included: Vec<String>,
    pub excluded: Vec<String>,
}

impl PathConfig {
    pub fn from_value(config: Option<&Value>) -> Self {
        let list = |key: &str| -> Vec<String> {
            config
                .and_then(|c| c.get(key))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        Self {
            included: list("included_args"),
            excluded: list("excluded_args"),
        }
    }
}

pub(crate) fn path_like(written: &str) -> bool {
    let key = lower(written);
    holds_any(&key, &["path", "directory", "file", "folder"])
        // keel's own beyond N23: the names MCP servers give paths (an outsider's attack
        // copied `src` to `dest` past the check, a key nobody read as a path).
        || PATH_KEYS.contains(&key.as_ref())
        // `outputDir`, `dest_dir`, `srcFolder`, `workingDir`: a part that names a path.
        || a_part_names_a_path(written)
}

/// Whether a part of a key written in snake, kebab or camel case (split at `_`, `-` and
/// before a capital) is one that names a path. Without allocating: every key of every call
/// is asked.
fn a_part_names_a_path(key: &str) -> bool {
    const PARTS: &[&str] = &[
        "src", "dest", "dst", "dir", "target", "output", "workdir", "cwd",
    ];
    let b = key.as_bytes();
    let mut start = 0;
    for at in 1..=b.len() {
        let ends = at == b.len()
            || matches!(b[at], b'_' | b'-')
            || (b[at].is_ascii_uppercase() && b[at - 1].is_ascii_lowercase());
        if ends {
            let part = key[start..at].trim_matches(['_', '-']);
            if part.len() < key.len() && PARTS.iter().any(|p| part.eq_ignore_ascii_case(p)) {
                return true;
            }
            start = at;
        }
    }
    false
}

/// Keys that name a path though no word of N23's is in them.
const PATH_KEYS: &[&str] = &[
    "source",
    "destination",
    "src",
    "dest",
    "dst",
    "target",
    "from",
    "to",
    "output",
    "location",
    "dir",
    "cwd",
    "root",
    "workdir",
    "uri",
];

/// Whether a string is written as a path whatever its key calls it: absolute, from the home
/// folder (`~`), from a variable (`$HOME/…`), up out of the folder (`../`), or a `file:` URI.
/// Only a value without whitespace: prose that begins with `/` is not a path.
fn shaped_like_a_path(value: &str) -> bool {
    // Printable ASCII (almost every value) by bytes: there `unseen` is a space or a control
    // character and white space is one of ASCII's six, where the general reading decodes
    // each character and asks Unicode's tables.
    if value.is_ascii() {
        let b = value.as_bytes();
        let shown = |c: &u8| *c > b' ' && *c != 0x7f;
        let Some(first) = b.iter().position(shown) else {
            return false;
        };
        let last = b.iter().rposition(shown).unwrap_or(first);
        let b = &b[first..=last];
        if b.iter().any(u8::is_ascii_whitespace) || b.contains(&0x0b) {
            return false;
        }
        let value = &value[first..=last];
        return b[0] == b'/'
            || b[0] == b'~'
            || names_a_variable(value)
            || value == ".."
            || file_uri_path(value).is_some()
            || (b.contains(&b'/') && !b.windows(3).any(|w| w == b"://"));
    }
    let value = value.trim_matches(unseen);
    !value.is_empty()
        && !value.contains(char::is_whitespace)
        && (value.starts_with(['/', '~'])
            || names_a_variable(value)
            || value == ".."
            || file_uri_path(value).is_some()
            // Folders and a name, unless a web link: `sub/../../x`, `dlink/x`.
            || (value.contains('/') && !value.contains("://")))
}

/// Whether N23 itself names `key` as a path's (its effective key, N28).
fn n23_path_key(key: &str) -> bool {
    let key = lower(key);
    holds_any(&key, &["path", "directory", "file"]) || key == "source" || key == "destination"
}

/// Whether `key` holds one of `parts`: one pass over a key's few bytes, where a search for
/// each part set up a searcher of its own (every key of every call is asked).
fn holds_any(key: &str, parts: &[&str]) -> bool {
    let key = key.as_bytes();
    (0..key.len()).any(|at| parts.iter().any(|p| key[at..].starts_with(p.as_bytes())))
}

/// Keys whose value is text to write or send, never where to: a file's content that reads
/// `/etc/passwd` is not a path (safety.md T5).
fn free_text(key: &str) -> bool {
    matches!(
        lower(key).as_ref(),
        "content" | "contents" | "text" | "body" | "message" | "data" | "old_string" | "new_string"
    )
}

/// `$HOME/…`, `${XDG_CONFIG_HOME}/…`: a variable's value, which keel does not expand (`$100`
/// is an amount).
fn names_a_variable(value: &str) -> bool {
    value
        .strip_prefix('$')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c == '{' || c == '_' || c.is_ascii_alphabetic())
}

/// The path a `file:` URI names (`file:///etc/passwd`, `file://localhost/etc`,
/// `file:/etc`), percent escapes decoded; `None` for anything else.
fn file_uri_path(value: &str) -> Option<String> {
    let scheme = value.get(..5)?;
    if !scheme.eq_ignore_ascii_case("file:") {
        return None;
    }
    let rest = &value[5..];
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            // An authority, then the path: only the local host is a local file.
            let slash = after.find('/').unwrap_or(after.len());
            let host = &after[..slash];
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                // Another host's file: checked as the absolute `//host/…` it is not here.
                return Some(format!("//{after}"));
            }
            &after[slash..]
        }
        None => rest,
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                at += 3;
            }
            (b, _) => {
                out.push(b);
                at += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Whether a character shows nothing where it stands, so a server may drop it before a path:
/// white space, control characters, and Unicode's format and default-ignorable characters
/// (zero-width and bidirectional marks, the byte-order mark, variation selectors, tags, the
/// Hangul fillers, the Braille blank), which outsider rounds 22 and 23 put before `/etc/…`.
fn unseen(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// Every path a tool may take `value` for, each checked: as written, and trimmed of what a
/// server's trim drops (a Python `strip()` drops the separators U+001C–U+001F, a JavaScript
/// `trim()` the byte-order mark) — `"\u{1c}/etc/cron.d/job"` is `/etc/cron.d/job` there; and
/// a `file:` URI both as the path it names and as the name it is, which keel's own file
/// tools open as given (a repository can ship a link named `file:.` that leads to `.git`, an
/// outsider's round 22).
fn path_readings(value: &str) -> Vec<String> {
    let trimmed = value.trim_matches(unseen);
    let forms: &[&str] = if trimmed.len() == value.len() {
        &[value]
    } else {
        &[value, trimmed]
    };
    let mut readings: Vec<String> = Vec::with_capacity(forms.len());
    for form in forms {
        for reading in [file_uri_path(form), None] {
            let reading = reading.as_deref().unwrap_or(form);
            if !readings.iter().any(|r| r == reading) {
                readings.push(reading.to_string());
            }
        }
    }
    readings
}

/// Whether keel cannot say where `value` points before the tool runs: `~` and `$VAR` are the
/// user's home and the environment, which a shell (or a server that expands them) resolves.
fn unresolvable_here(value: &str) -> bool {
    value.starts_with('~') || names_a_variable(value)
}

/// Why a `command` argument in `args` names files keel cannot list before it runs: a command
/// the shell grammar does not read fully ([`shell_words`]) and that holds an expansion that
/// makes file names — a glob, a variable, a command substitution. (A redirection or `$$` alone
/// names no file the words do not show: the words are checked as paths.) `None` otherwise.
fn opaque_command(args: &Value) -> Option<String> {
    fn walk(v: &Value, key: Option<&str>) -> Option<String> {
        match v {
            Value::Object(map) => map.iter().find_map(|(k, child)| walk(child, Some(k))),
            Value::Array(items) => items.iter().find_map(|child| walk(child, key)),
            Value::String(command) if key == Some("command") => {
                let reads_fully = super::shell::parse(command).is_ok_and(|parsed| {
                    parsed
                        .iter()
                        .all(|c| super::shell::commands::path_operands(&c.words).is_ok())
                });
                if reads_fully {
                    return None;
                }
                expansion_naming_files(command).map(|what| format!("it holds {what}"))
            }
            _ => None,
        }
    }
    walk(args, None)
}

/// Whether `rest` (from an unquoted `{`) opens a brace expansion: a `,` or `..` before its `}`.
fn brace_expansion(rest: &[u8]) -> bool {
    let Some(end) = rest.iter().position(|&b| b == b'}') else {
        return false;
    };
    let inside = &rest[1..end];
    inside.contains(&b',') || inside.windows(2).any(|w| w == b"..")
}

/// The first expansion in a shell command that makes file names, outside single quotes: a
/// glob (`*`, `?`, `[…`, unquoted), a variable (`$HOME`, `${X}`), a command substitution
/// (`` `…` ``, `$(…)`).
fn expansion_naming_files(command: &str) -> Option<&'static str> {
    let b = command.as_bytes();
    let (mut single, mut double) = (false, false);
    let mut at = 0;
    while at < b.len() {
        let c = b[at];
        match c {
            b'\\' if !single => {
                at += 2;
                continue;
            }
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ if single => {}
            b'`' => return Some("a command substitution"),
            b'$' => match b.get(at + 1) {
                Some(b'(') => return Some("a command substitution"),
                // `$'\x2fetc'` and `$"…"`: quoting that makes characters of its own.
                Some(b'\'' | b'"') => return Some("a quoted string the shell translates"),
                Some(&n) if n == b'{' || n == b'_' || n.is_ascii_alphabetic() => {
                    return Some("a variable");
                }
                _ => {}
            },
            b'*' | b'?' if !double => return Some("a glob"),
            // `{/etc/passwd,x}`, `{a..z}`.
            b'{' if !double && brace_expansion(&b[at..]) => return Some("a brace expansion"),
            // `[ -f x ]` is the test command; `[abc]x` a glob.
            b'[' if !double && b.get(at + 1).is_some_and(|n| !n.is_ascii_whitespace()) => {
                return Some("a glob");
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The words of a shell command that name files. For a command the shell grammar reads fully,
/// exactly the files each simple command will read, option values included
/// ([`shell::commands::path_operands`]). Otherwise (such a command is never allowed without
/// asking) a best effort: every word after the first that is not an option or assignment.
fn shell_words(command: &str) -> Vec<String> {
    if let Ok(parsed) = super::shell::parse_with_flow(command) {
        let operands: Result<Vec<Vec<String>>, _> = parsed
            .iter()
            .map(|(c, _)| super::shell::commands::path_operands(&c.words))
            .collect();
        if let Ok(operands) = operands {
            let mut words = Vec::new();
            let mut at = Whereabouts::default();
            let searched = command.contains("CDPATH");
            // Names an earlier part of the command made stand for another path: a link
            // (`ln -s .github g`) or a rename (`mv .github gh`), so `g/workflows/x` is
            // `.github/workflows/x` (an outsider's round 23).
            let mut aliases: Vec<(String, String)> = Vec::new();
            for ((command, flow), operands) in parsed.iter().zip(operands) {
                let operands = relinked(&command.words, operands, &mut aliases);
                if let Some(target) = directory_change(&command.words, searched) {
                    let sure = flow.alone && flow.and_next && plain_cd(&command.words);
                    // A name an earlier part made stand for another path goes there too
                    // (`ln -sfn . lnk && cd lnk && touch ../p`, an outsider's round 27): the
                    // shell is in one of them.
                    let others = aliased(&target, &aliases);
                    let sure = sure && others.is_empty();
                    for target in std::iter::once(target).chain(others) {
                        words.extend(at.change(&target, sure));
                    }
                } else {
                    // A directory this one command runs in (`env -C .github`, `git -C x`,
                    // `make -C build`, `tar --directory=x`).
                    let own_dir = runs_in(&command.words);
                    // And what a word carries inside it, which no option table reads
                    // (`sort -o/x`, `curl -d @file`).
                    let known = command
                        .words
                        .first()
                        .is_some_and(|p| super::shell::commands::is_known(p));
                    let embedded = command
                        .words
                        .iter()
                        .skip(1)
                        .flat_map(|w| embedded_paths(w, known));
                    let read: Vec<String> = operands.into_iter().chain(embedded).collect();
                    for dir in &at.possible {
                        let own = own_dir.clone().map(|d| under(dir.as_deref(), d));
                        let base = own.clone().or_else(|| dir.clone());
                        words.extend(own);
                        words.extend(read.iter().map(|w| under(base.as_deref(), w.clone())));
                    }
                }
                if !flow.and_next {
                    at.chain_ends();
                }
            }
            return words;
        }
    }
    plain_shell_words(command)
}

/// Where the shell may be while a command runs, after the `cd`s before it: each place a
/// folder written relative to the working directory (`None`: the working directory itself).
/// A `cd` the shell surely ran — alone in its pipeline, with what follows joined by `&&` —
/// moves the shell for the rest of that chain; any other (after `;` or `||`, in a pipeline,
/// a `pushd`, which `/bin/sh` lacks, one with an option it refuses) may not have happened,
/// so the words after it are read both where it went and where the shell was (an outsider's
/// round 27: `(cd src); touch ../p`, `pushd src || cat ../secret.txt` and `mv src s2; cd src;
/// … > ../.local/bin/git` reached outside). Where a surely-run `cd`'s chain ends (`;`, `||`),
/// the shell may be where it was before it again: that `cd` may have failed.
#[derive(Debug)]
struct Whereabouts {
    possible: Vec<Option<String>>,
    /// Where the shell was before `cd`s of the current `&&` chain that moved it for sure.
    before_chain: Vec<Option<String>>,
}

impl Default for Whereabouts {
    fn default() -> Self {
        Self {
            possible: vec![None],
            before_chain: Vec::new(),
        }
    }
}

impl Whereabouts {
    /// A `cd` to `target`: the path words it names (its target from each place, read as the
    /// kernel and as the shell reads it: [`shell_reading`]), and the places the shell may be
    /// after it.
    fn change(&mut self, target: &str, sure: bool) -> Vec<String> {
        let mut words = Vec::new();
        let mut moved: Vec<Option<String>> = Vec::new();
        for dir in &self.possible {
            let went = under(dir.as_deref(), target.to_string());
            let logical = shell_reading(Some(&went));
            if !went.starts_with('$') {
                words.push(went.clone());
            }
            words.extend(logical.clone());
            for place in std::iter::once(went).chain(logical) {
                if !moved.contains(&Some(place.clone())) {
                    moved.push(Some(place));
                }
            }
        }
        if sure {
            let before = std::mem::replace(&mut self.possible, moved);
            for dir in before {
                if !self.before_chain.contains(&dir) {
                    self.before_chain.push(dir);
                }
            }
        } else {
            for place in moved {
                if !self.possible.contains(&place) {
                    self.possible.push(place);
                }
            }
        }
        self.bound();
        words
    }

    /// The `&&` chain ended: the shell may be wherever it was before its `cd`s.
    fn chain_ends(&mut self) {
        for dir in std::mem::take(&mut self.before_chain) {
            if !self.possible.contains(&dir) {
                self.possible.push(dir);
            }
        }
        self.bound();
    }

    /// Each `cd` that may not have run can double the places (`cd a; cd b; cd c; …`): past
    /// [`MAX_PLACES`], the shell's place is unknown, and a relative word after it is read as
    /// somewhere keel cannot follow (outside), as after `cd -`.
    fn bound(&mut self) {
        for places in [&mut self.possible, &mut self.before_chain] {
            if places.len() > MAX_PLACES {
                *places = vec![Some("$UNKNOWN_DIRECTORY".to_string())];
            }
        }
    }
}

/// How many places [`Whereabouts`] follows the shell to.
const MAX_PLACES: usize = 16;

/// Whether `words` is a `cd` that `/bin/sh` runs as written: `cd` itself (not `pushd` or
/// `chdir`, which dash lacks), with no option but `-L`, `-P` and `--`.
fn plain_cd(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    program == "cd"
        && args
            .iter()
            .take_while(|a| a.starts_with('-') && *a != "-")
            .all(|a| matches!(a.as_str(), "-L" | "-P" | "--"))
}

/// `operands` of one command with what earlier links and renames of the same command stand
/// for ([`shell_words`]), and the links and renames this one makes added to `aliases`. A
/// symbolic link's relative target is read from the link's folder, where it points
/// (`ln -s ../main.c src/main.c` is `main.c`).
/// What `word` stands for through the names earlier parts of its command made stand for
/// other paths ([`relinked`]): each reading, the word itself aside.
fn aliased(word: &str, aliases: &[(String, String)]) -> Vec<String> {
    aliases
        .iter()
        .filter_map(|(name, meant)| {
            let rest = word.strip_prefix(name.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{meant}{rest}"))
        })
        .collect()
}

fn relinked(
    words: &[String],
    operands: Vec<String>,
    aliases: &mut Vec<(String, String)>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(operands.len());
    for word in operands {
        out.extend(aliased(&word, aliases));
        out.push(word);
    }
    let program = words.first().map_or("", String::as_str);
    let given: Vec<&String> = words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let symbolic = words.iter().skip(1).any(|w| {
        w == "--symbolic" || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
    });
    // A copy that keeps links as links (`cp -P`, `-d`, `-a`, `--no-dereference`, `--archive`)
    // makes its target the same link (an outsider's round 27 copied `self -> .` to `lnk`).
    let copies_links = program == "cp"
        && words.iter().skip(1).any(|w| {
            matches!(w.as_str(), "--no-dereference" | "--archive")
                || (w.starts_with('-') && !w.starts_with("--") && w.contains(['P', 'd', 'a']))
        });
    if let [from, to] = given.as_slice()
        && (matches!(program, "ln" | "mv") || copies_links)
    {
        let to = to.trim_end_matches('/').to_string();
        let meant = if program == "ln" && symbolic && !from.starts_with(['/', '~', '$']) {
            // Where the link points: its target read from the link's own folder.
            let pointed = match to.rsplit_once('/') {
                Some((folder, _)) => format!("{folder}/{from}"),
                None => from.to_string(),
            };
            if let Some(at) = out.iter().position(|w| w == *from) {
                out[at] = pointed.clone();
            }
            pointed
        } else {
            from.to_string()
        };
        aliases.push((to, meant));
    }
    out
}

/// Words that may stand before a command without being it: `command cd x`, `if cd x; then`.
const COMMAND_PREFIXES: &[&str] = &[
    "command", "builtin", "exec", "if", "then", "else", "elif", "do", "while", "until", "!", "{",
    "time", "nohup",
];

/// Where a `cd`, `pushd` or `popd` moves the shell, as a path word: its operand, `~` with
/// none, `$OLDPWD` for `cd -` and `popd`, and `$CDPATH/…` for a relative operand where the
/// command sets a search path for `cd` (keel follows neither). `None` for any other command.
fn directory_change(words: &[String], searched: bool) -> Option<String> {
    // (An assignment before it sets the command's environment: `CDPATH=.github cd x`.)
    let assigns = |w: &str| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    };
    let at = words
        .iter()
        .position(|w| !COMMAND_PREFIXES.contains(&w.as_str()) && !assigns(w))?;
    let (program, args) = words[at..].split_first()?;
    match program.as_str() {
        "cd" | "pushd" | "chdir" => {
            let operand = args.iter().find(|a| !a.starts_with('-') || *a == "-");
            Some(match operand.map(String::as_str) {
                None => "~".to_string(),
                Some("-") => "$OLDPWD".to_string(),
                // (Only `/…`, `./…` and `../…` are not searched for: `.local` is.)
                Some(dir)
                    if searched
                        && !(dir.starts_with(['/', '~', '$'])
                            || matches!(dir, "." | "..")
                            || dir.starts_with("./")
                            || dir.starts_with("../")) =>
                {
                    format!("$CDPATH/{dir}")
                }
                Some(dir) => dir.to_string(),
            })
        }
        "popd" => Some("$OLDPWD".to_string()),
        _ => None,
    }
}

/// The directory one command runs in by its own option: `-C DIR`, `-CDIR`, `--chdir[=]DIR`,
/// `--directory[=]DIR` (`env`, `git`, `make`, `tar` and many more). The commands keel has
/// tables of read their options by them (`grep -C 3` is context).
fn runs_in(words: &[String]) -> Option<String> {
    let (program, args) = words.split_first()?;
    if super::shell::commands::is_known(program) {
        return None;
    }
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        for long in ["--chdir", "--directory"] {
            if arg == long {
                return args.next().cloned();
            }
            if let Some(dir) = arg.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(dir.to_string());
            }
        }
        if arg == "-C" {
            return args.next().cloned();
        }
        if let Some(dir) = arg.strip_prefix("-C").filter(|d| !d.is_empty()) {
            return Some(dir.to_string());
        }
    }
    None
}

/// Where the shell is after the `cd`s of a command, when that may differ from `moved_to` (the
/// operands joined, which is where the kernel's reading of the path goes): the shell reads
/// `cd`'s operand logically, so `lnk/..` is the folder `lnk` is in, whatever `lnk` links to,
/// where the kernel (and keel's resolution of every other path) goes to the parent of `lnk`'s
/// target. A `cd lnk/../..` that the kernel's reading keeps inside the workspace climbs out of
/// it in the shell (an outsider's round 26). (With `-P` the shell reads a `cd` physically:
/// both readings are checked, and the words after it under both.)
fn shell_reading(moved_to: Option<&str>) -> Option<String> {
    let moved_to = moved_to?;
    lexical(moved_to).filter(|logical| logical != moved_to)
}

/// `path` with each `name/..` taken away and `.` dropped, as a shell's logical `cd` reads it;
/// `None` for a path with a `~` or a `$` (expanded by the shell, to anything).
fn lexical(path: &str) -> Option<String> {
    if path.contains(['~', '$']) {
        return None;
    }
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                // `/..` is `/`.
                _ if absolute => {}
                _ => parts.push(".."),
            },
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    Some(match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    })
}

/// `word` as the shell reads it after moving to `dir` (where an earlier `cd` in the same
/// command went): a relative word is under it. (`cd .github && cd workflows && printf … >
/// ci.yml` writes `.github/workflows/ci.yml`, an outsider's round 22.)
fn under(dir: Option<&str>, word: String) -> String {
    match dir {
        Some(dir) if !word.starts_with(['/', '~', '$']) => format!("{dir}/{word}"),
        _ => word,
    }
}

/// The paths a word carries inside it: curl's `@file`, a `file:` URL, and — for a program
/// keel has no table of (`known`: a table reads its options) — the value glued to a short
/// option, whatever it looks like: `sort -o/x`, `-C$HOME/.ssh`, `-cf/x`, `sort -o.npmrc`,
/// `sort -okeel.toml`, `sort -otools/hooks/pre-commit` (outsider rounds 22 and 23). Read
/// after one option letter and after two, since keel cannot know how many the program takes.
fn embedded_paths(word: &str, known: bool) -> Vec<String> {
    if let Some(file) = word.strip_prefix('@').filter(|f| !f.is_empty()) {
        return vec![file_uri_path(file).unwrap_or_else(|| file.to_string())];
    }
    if let Some(path) = file_uri_path(word) {
        return vec![path];
    }
    let Some(rest) = word.strip_prefix('-').filter(|rest| !rest.starts_with('-')) else {
        return Vec::new();
    };
    if known || rest.contains('=') {
        return Vec::new();
    }
    let mut out = Vec::new();
    for letters in 1..=2 {
        let Some((option, value)) = rest.split_at_checked(letters) else {
            break;
        };
        // (A separator or a number is no name: `cut -d/`, `sort -t.`, `-k1,2`, `-n5`.)
        let no_name = value
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b',' | b'/'));
        if option.bytes().all(|b| b.is_ascii_alphabetic())
            && !value.is_empty()
            && (value.trim_end_matches('/') == ".." || !no_name)
        {
            out.push(value.to_string());
        }
    }
    out
}

fn plain_shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    // (What the grammar did not read — subshells, groups, branches, background jobs — keel
    // cannot tell which `cd` ran: each may not have.)
    let mut at = Whereabouts::default();
    let searched = command.contains("CDPATH");
    // Names earlier parts made stand for other paths, as [`shell_words`] keeps them.
    let mut aliases: Vec<(String, String)> = Vec::new();
    for part in super::rules::split_commands(command) {
        let part_words: Vec<String> = part.split_whitespace().map(str::to_string).collect();
        if let Some(target) = directory_change(&part_words, searched) {
            let others = aliased(&target, &aliases);
            for target in std::iter::once(target).chain(others) {
                words.extend(at.change(&target, false));
            }
            continue;
        }
        let own_dir = runs_in(&part_words);
        let known = part_words
            .first()
            .is_some_and(|p| super::shell::commands::is_known(p));
        let first_of_part = words.len();
        let mut program = true;
        // What `echo` and `printf` print is text, not files: only where they write is a path
        // (`echo ".env" >> .gitignore`).
        let prints = part_words
            .first()
            .is_some_and(|p| matches!(p.as_str(), "echo" | "printf"));
        let mut redirected = false;
        for word in part.split_whitespace() {
            // A redirection written apart from its target: `>> .gitignore`, `2> log`.
            if word.ends_with(['<', '>'])
                && word
                    .trim_start_matches(|c: char| c.is_ascii_digit() || c == '&')
                    .bytes()
                    .all(|b| b == b'<' || b == b'>')
            {
                redirected = true;
                program = false;
                continue;
            }
            let target = std::mem::take(&mut redirected);
            // A redirection's target is a path wherever it is written: `cat </etc/passwd`,
            // `cat x</etc/passwd`, `echo a >/outside/x`, `2>&1`.
            for (n, piece) in word.split(['<', '>']).enumerate() {
                let piece = piece.trim_matches(['\'', '"', '&', '|', '(', ')']);
                if piece.is_empty() {
                    continue;
                }
                if program && n == 0 {
                    program = false;
                    continue;
                }
                program = false;
                if prints && n == 0 && !target {
                    continue;
                }
                // Not files: a file descriptor's number, the null device and the streams.
                if piece.bytes().all(|b| b.is_ascii_digit())
                    || matches!(
                        piece,
                        "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
                    )
                {
                    continue;
                }
                let carried = embedded_paths(piece, known);
                if !carried.is_empty() {
                    words.extend(carried);
                    continue;
                }
                // An assignment's value, a path as any word is (dd's `of=/x`, `of=.envrc`,
                // `of=keel.toml`); an option's where it is written as one, or as a dot-name
                // the option does not leave out (`--output=.envrc`, not `--exclude-dir=.git`).
                let piece = match piece.split_once('=') {
                    Some((key, value)) if !value.is_empty() && !key.starts_with('-') => value,
                    Some((key, value))
                        if shaped_like_a_path(value)
                            || (value.starts_with('.') && !names_a_pattern(key)) =>
                    {
                        value
                    }
                    Some(_) => continue,
                    None if piece.starts_with('-') => continue,
                    None => piece,
                };
                words.push(piece.to_string());
            }
        }
        // The part's words, under each place the shell may be.
        let read: Vec<String> = relinked(
            &part_words,
            words.drain(first_of_part..).collect(),
            &mut aliases,
        );
        for dir in &at.possible {
            let own = own_dir.clone().map(|d| under(dir.as_deref(), d));
            let base = own.clone().or_else(|| dir.clone());
            words.extend(read.iter().map(|w| under(base.as_deref(), w.clone())));
            words.extend(own);
        }
    }
    words
}

/// Whether an option's name says its value is a pattern of what to leave out or take in, not a
/// file (`--exclude-dir=.git`, `--ignore=.env`).
fn names_a_pattern(option: &str) -> bool {
    [
        "exclude", "include", "ignore", "hide", "filter", "skip", "prune",
    ]
    .iter()
    .any(|p| option.contains(p))
}

/// Collects the string arguments to check, depth-first, keys in the order received (N23, N28,
/// N29). An array element's effective key is the array's.
pub fn collect_path_args(args: &Value, config: &PathConfig) -> Vec<PathArg> {
    fn walk(
        v: &Value,
        dot: &str,
        effective: Option<&str>,
        under_path: bool,
        config: &PathConfig,
        out: &mut Vec<PathArg>,
    ) {
        if !dot.is_empty() && config.excluded.iter().any(|e| e == dot) {
            return;
        }
        // Everything under a path's key is read as a path: `{"path": {"p": "/etc/passwd"}}`.
        let under_path = under_path || effective.is_some_and(path_like);
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let path = super::dot_join(dot, k);
                    // Under a path's key, a key can name the file too:
                    // `{"files": {"/home/u/.bashrc": "…"}}`.
                    if under_path && shaped_like_a_path(k) {
                        for value in path_readings(k) {
                            out.push(PathArg {
                                arg: format!("{path} (key)"),
                                value,
                                inferred: true,
                            });
                        }
                    }
                    walk(child, &path, Some(k), under_path, config, out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(
                        child,
                        &format!("{dot}.{i}"),
                        effective,
                        under_path,
                        config,
                        out,
                    );
                }
            }
            Value::String(s) if effective == Some("command") => {
                // A shell command: its words are checked as paths (options and the program
                // name aside), so `cat .env` is held to the same rules as reading `.env`.
                for word in shell_words(s) {
                    out.push(PathArg {
                        arg: dot.to_string(),
                        value: word,
                        inferred: false,
                    });
                }
            }
            Value::String(s) => {
                // Options a server takes as a JSON text are read as what they hold:
                // `{"opts": "{\"path\": \"/etc/cron.d/x\"}"}` (an outsider's round 23).
                // (Not a file's content or a message: a `tsconfig.json` written names paths
                // of its own.)
                if s.trim_start().starts_with(['{', '['])
                    && !effective.is_some_and(free_text)
                    && let Ok(inner) = serde_json::from_str::<Value>(s)
                    && (inner.is_object() || inner.is_array())
                {
                    walk(&inner, dot, effective, under_path, config, out);
                }
                let included = config.included.iter().any(|i| i == dot);
                let declared = included || effective.is_some_and(n23_path_key);
                let shaped = shaped_like_a_path(s) && !effective.is_some_and(free_text);
                if declared || under_path || shaped {
                    for value in path_readings(s) {
                        out.push(PathArg {
                            arg: dot.to_string(),
                            value,
                            inferred: !declared,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(args, "", None, false, config, &mut out);
    out
}

/// Physical resolution (N32): `.` skipped; `..` goes to the parent of the canonical prefix;
/// an existing component is canonicalized; from the first missing one on, the rest is
/// appended, and a `..` there cannot be resolved.
pub fn resolve(path: &str, cwd: &Path, fs: &dyn PathResolver) -> Result<PathBuf, String> {
    resolve_from(cwd.join(path), fs, 0)
}

fn resolve_from(joined: PathBuf, fs: &dyn PathResolver, links: usize) -> Result<PathBuf, String> {
    if links > MAX_LINKS {
        return Err("too many levels of symbolic links".into());
    }
    // Fast paths with the same meaning. A last component that is no link (missing, or a
    // plain entry) is its canonical parent's: one look at it and one resolution of the parent,
    // where resolving a missing path whole would walk it twice. (A trailing `/` asks for a
    // directory: that is the OS's to judge.)
    // A trailing `/` asks for a directory, and a trailing `/.` is the directory itself: a
    // symbolic link there is followed (`lstat("link/.")` is its target's), which the last
    // component's name (`link`, as `Path` reads it) does not say.
    let bytes = joined.as_os_str().as_encoded_bytes();
    let trailing_slash = bytes.ends_with(b"/") || bytes.ends_with(b"/.");
    if let (false, Some(parent), Some(Component::Normal(name))) = (
        trailing_slash,
        joined.parent(),
        joined.components().next_back(),
    ) {
        match fs.missing_or_not_a_link(&joined) {
            Err(ResolveError::Other(e)) => return Err(e),
            Ok(Some(true)) => {
                if let Ok(canonical) = fs.canonicalize(parent) {
                    return Ok(canonical.join(name));
                }
            }
            _ => {}
        }
    }
    // The OS resolves an existing path physically, and a missing last component under an
    // existing parent is appended — unless it is a dangling symbolic link, which a write would
    // follow.
    match fs.canonicalize(&joined) {
        Ok(canonical) => return Ok(canonical),
        Err(ResolveError::Other(e)) => return Err(e),
        Err(ResolveError::NotFound) => {}
    }
    if let (Some(parent), Some(Component::Normal(name))) =
        (joined.parent(), joined.components().next_back())
        && fs.read_link(&joined).is_none()
        && let Ok(canonical) = fs.canonicalize(parent)
    {
        return Ok(canonical.join(name));
    }
    let components: Vec<Component<'_>> = joined.components().collect();
    let mut prefix = PathBuf::from("/");
    let mut missing = false;
    for (i, component) in components.iter().enumerate() {
        match component {
            Component::RootDir | Component::Prefix(_) => prefix = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                if missing {
                    return Err("`..` after a component that does not exist".into());
                }
                prefix.pop();
            }
            Component::Normal(name) => {
                let candidate = prefix.join(name);
                if missing {
                    prefix = candidate;
                    continue;
                }
                match fs.canonicalize(&candidate) {
                    Ok(canonical) => prefix = canonical,
                    Err(ResolveError::NotFound) => {
                        if let Some(target) = fs.read_link(&candidate) {
                            // A dangling link: follow it, then the rest of the path.
                            let mut next = prefix.join(target);
                            for rest in &components[i + 1..] {
                                next.push(rest.as_os_str());
                            }
                            return resolve_from(next, fs, links + 1);
                        }
                        missing = true;
                        prefix = candidate;
                    }
                    Err(ResolveError::Other(e)) => return Err(e),
                }
            }
        }
    }
    Ok(prefix)
}

/// What of `path` lies below `dir`, as bytes: empty or starting with `/`; `None` where `path`
/// is not `dir` or under it. Compared as bytes, which costs a fraction of `Path::starts_with`
/// (every decision compares each path with each root, guarded place and hook folder), so both
/// are meant resolved (absolute, without `.`, `..` or a doubled `/`): a path spelled another
/// way is simply not found below.
pub fn below<'p>(path: &'p [u8], dir: &Path) -> Option<&'p [u8]> {
    let dir = dir.as_os_str().as_encoded_bytes();
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    let rest = path.strip_prefix(dir)?;
    (rest.is_empty() || rest[0] == b'/').then_some(rest)
}

/// Whether `path` is `dir` or lies under it ([`below`]).
fn is_under(path: &Path, dir: &Path) -> bool {
    below(path.as_os_str().as_encoded_bytes(), dir).is_some()
}

/// A segment as N25 compares it: up to a `:`, without trailing spaces and dots, in lower
/// case. Borrowed when that changes nothing but the cut: the gate reads every segment of every
/// path of every call.
fn segment_key(segment: &str) -> Cow<'_, str> {
    // By bytes: `:`, ` ` and `.` are ASCII, so every cut falls between characters.
    let bytes = segment.as_bytes();
    let cut = bytes.iter().position(|&b| b == b':').unwrap_or(bytes.len());
    let kept = bytes[..cut]
        .iter()
        .rposition(|&b| b != b' ' && b != b'.')
        .map_or(0, |last| last + 1);
    lower(&segment[..kept])
}

/// `text` in lower case, borrowed when it is already.
fn lower(text: &str) -> Cow<'_, str> {
    if text
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(text.to_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// The keys ([`segment_key`]) of the named segments of `resolved`, a path as resolution gives
/// it (absolute, no `.` or `..`), in order: split at `/` by hand, which costs a fraction of
/// `Path::components`.
fn segment_keys(resolved: &Path) -> Vec<Cow<'_, str>> {
    use std::os::unix::ffi::OsStrExt;
    // A path in UTF-8 (almost every one) is validated once, not segment by segment.
    if let Some(whole) = resolved.to_str() {
        return whole
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(segment_key)
            .collect();
    }
    resolved
        .as_os_str()
        .as_bytes()
        .split(|&b| b == b'/')
        .filter(|s| !s.is_empty() && *s != b".")
        .map(|s| match std::str::from_utf8(s) {
            Ok(name) => segment_key(name),
            Err(_) => Cow::Owned(segment_key(&String::from_utf8_lossy(s)).into_owned()),
        })
        .collect()
}

/// Classifies one resolved path against the roots (N25).
fn classify_path(resolved: &Path, shown: &str, arg: &str, roots: &[PathBuf]) -> SafetyCheckResult {
    let mut inside = false;
    let mut result = SafetyCheckResult::allow();
    let path = resolved.as_os_str().as_encoded_bytes();
    for root in roots {
        let Some(rel) = below(path, root) else {
            continue;
        };
        inside = true;
        for segment in rel.split(|&b| b == b'/').filter(|s| !s.is_empty()) {
            match segment_key(&String::from_utf8_lossy(segment)).as_ref() {
                ".git" | ".env" | "node_modules" => {
                    return SafetyCheckResult::deny(format!(
                        "Access to sensitive path \"{shown}\" in argument \"{arg}\" is blocked."
                    ));
                }
                ".vscode" => {
                    result = SafetyCheckResult::ask(
                        "Modifying .vscode configuration files requires explicit user confirmation.",
                    );
                }
                _ => {}
            }
        }
    }
    if !inside {
        return SafetyCheckResult::deny(format!(
            "Path \"{shown}\" in argument \"{arg}\" is outside of the allowed workspace directories."
        ));
    }
    result
}

/// Whether `path` is under `/proc` or `/dev/fd`, whose entries (`/proc/self/cwd`, `/dev/fd/3`)
/// mean something else to each process: keel would resolve them in its own, while a shell
/// command reads them in the shell's, whose working directory may differ (`--cwd`, a resumed
/// run). They are never inside a workspace, so they are outside, as `~` is.
fn names_a_process(path: &str) -> bool {
    let mut parts = Path::new(path).components();
    matches!(parts.next(), Some(Component::RootDir))
        && match parts.next() {
            Some(Component::Normal(first)) if first == "proc" => true,
            Some(Component::Normal(first)) if first == "dev" => {
                matches!(parts.next(), Some(Component::Normal(n)) if n == "fd")
            }
            _ => false,
        }
}

/// The allowed roots: `cwd` and each workspace, canonicalized; a root that cannot be is
/// skipped (N22).
pub fn allowed_roots(cwd: &Path, workspaces: &[PathBuf], fs: &dyn PathResolver) -> Vec<PathBuf> {
    std::iter::once(cwd)
        .chain(workspaces.iter().map(PathBuf::as_path))
        .filter_map(|r| fs.canonicalize(r).ok())
        .collect()
}

/// The allowed-path checker (N22–N25, N30).
pub fn check_paths(
    args: &Value,
    cwd: &Path,
    workspaces: &[PathBuf],
    config: &PathConfig,
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    let roots = allowed_roots(cwd, workspaces, fs);
    check_paths_in(args, cwd, &roots, config, fs)
}

/// A path argument with where it leads, worked out once per decision: the allowed-path and
/// guarded-paths checkers both read the same arguments the same way.
#[derive(Clone, Debug)]
pub struct ResolvedArg {
    pub path: PathArg,
    /// `~`, `$VAR` or a process's files (`/proc`, `/dev/fd`): what a shell or the kernel
    /// expands and keel cannot resolve here.
    pub unresolvable: bool,
    /// The physical path ([`resolve`]); not tried for an unresolvable one.
    pub resolved: Result<PathBuf, String>,
}

/// The path arguments of `args` ([`collect_path_args`]), each resolved against `cwd`.
pub fn resolve_path_args(
    args: &Value,
    config: &PathConfig,
    cwd: &Path,
    fs: &dyn PathResolver,
) -> Vec<ResolvedArg> {
    collect_path_args(args, config)
        .into_iter()
        .map(|path| {
            let unresolvable = unresolvable_here(&path.value) || names_a_process(&path.value);
            let resolved = if unresolvable {
                Err(String::new())
            } else {
                resolve(&path.value, cwd, fs)
            };
            ResolvedArg {
                path,
                unresolvable,
                resolved,
            }
        })
        .collect()
}

/// [`check_paths`] with the roots already canonicalized (a gate computes them once).
pub fn check_paths_in(
    args: &Value,
    cwd: &Path,
    roots: &[PathBuf],
    config: &PathConfig,
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    check_resolved_paths(args, &resolve_path_args(args, config, cwd, fs), roots, fs)
}

/// [`check_paths_in`] over arguments already resolved ([`resolve_path_args`] of `args`).
pub fn check_resolved_paths(
    args: &Value,
    paths: &[ResolvedArg],
    roots: &[PathBuf],
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    // A command the shell expands (a glob, a variable, a substitution) names files keel cannot
    // list before it runs: asked in every mode, since no rule's ask may be all that holds it
    // (yolo drops the rules' asks; an outsider's `cat fl*` read a file outside).
    let opaque = opaque_command(args);
    let mut worst = match &opaque {
        Some(why) => SafetyCheckResult::ask(format!(
            "keel cannot tell which files this shell command names before the shell expands it ({why}): write the paths out, or allow it yourself."
        )),
        None => SafetyCheckResult::allow(),
    };
    for ResolvedArg {
        path: PathArg {
            arg,
            value,
            inferred,
        },
        unresolvable,
        resolved,
    } in paths
    {
        let inferred = *inferred;
        // A variable in a command keel cannot read is what the ask above is about.
        if opaque.is_some() && arg_is_command(arg) && names_a_variable(value) {
            continue;
        }
        // `~` and `$VAR` are the user's home and environment, which a shell expands and keel
        // cannot resolve: outside. `outside`: the path lies in no root, or cannot be resolved.
        let (result, outside) = match (*unresolvable, resolved) {
            (true, _) => (
                SafetyCheckResult::deny(format!(
                    "Path \"{value}\" in argument \"{arg}\" is outside of the allowed workspace directories."
                )),
                true,
            ),
            (false, Ok(resolved)) => {
                let outside = !roots.iter().any(|root| is_under(resolved, root));
                let result = match classify_path(resolved, value, arg, roots) {
                    r if r.decision == Decision::Allow && fs.has_other_names(resolved) => {
                        SafetyCheckResult::ask(format!(
                            "\"{value}\" in argument \"{arg}\" is a file with other names (hard links), which may be outside the workspace."
                        ))
                    }
                    r => r,
                };
                (result, outside)
            }
            (false, Err(_)) => (
                SafetyCheckResult::deny(format!(
                    "Cannot resolve path \"{value}\" in argument \"{arg}\""
                )),
                true,
            ),
        };
        // What only keel takes for a path may be none: outside the workspace (or unresolvable)
        // it asks, saying why it was read so. A sensitive folder inside (`.git`, `.env`) still
        // denies.
        let result = match result {
            r if inferred && outside && r.decision == Decision::Deny => {
                SafetyCheckResult::ask(format!(
                    "{} keel reads it as a path by its name or its shape; if it is not one, allow it.",
                    r.reason.unwrap_or_default()
                ))
            }
            r => r,
        };
        if result.decision > worst.decision {
            worst = result;
            if worst.decision == Decision::Deny {
                break;
            }
        }
    }
    worst
}

/// Whether a path argument's dot-path is a `command` (its words are a shell's).
fn arg_is_command(dot: &str) -> bool {
    dot.rsplit('.').next() == Some("command")
}

/// Environment files beside `.env` that, by convention, hold no secrets.
const ENV_TEMPLATES: &[&str] = &[".env.example", ".env.sample", ".env.template", ".env.dist"];

/// Whether a file name, read as N25 reads segments, is an `.env.*` file that may hold
/// secrets (`.env.local`, `.env.production`; not the templates `.env.example`, …). Shared with
/// keel-runtime's sandbox, which keeps such files unreadable as it keeps `.env`.
pub fn is_env_variant(name: &str) -> bool {
    is_env_key(&segment_key(name))
}

/// [`is_env_variant`] of a segment's key.
fn is_env_key(key: &str) -> bool {
    key.starts_with(".env.") && !ENV_TEMPLATES.contains(&key)
}

/// The guarded-paths checker (keel's own, beside N22–N25's allowed-path): the files the
/// allowed-path checker lets through that still need a person's word, read from the same path
/// arguments and shell words, resolved the same way.
///
/// - an `.env.*` file (`.env.local`, `.env.production`): the secrets of `.env`, which N25
///   denies, under another name (templates such as `.env.example` aside);
/// - anything under `guarded`: keel's own configuration and data — a workspace's `keel.toml`,
///   the user's config folder, the admin policy folder, the database — which a later run reads
///   (a model that rewrote them unasked could choose what that run does) or which holds other
///   runs' conversations.
///
/// A path it cannot resolve, or `~`, is left to allowed-path, which denies it. `guarded`
/// holds canonical paths.
/// Files an editor, a shell or CI runs what they say from, by their path inside a folder:
/// writing one is running code later, outside the gate (`.zed/tasks.json`, `.nvim.lua`,
/// `.envrc`, a workflow). `.vscode` is allowed-path's own (N25).
fn runs_what_it_says(names: &[Cow<'_, str>]) -> Option<&'static str> {
    let has = |dir: &str| names.iter().any(|n| n == dir);
    let last = names.last().map(AsRef::as_ref).unwrap_or("");
    let pair = |a: &str, b: &str| names.windows(2).any(|w| w[0] == a && w[1] == b);
    if has(".zed") {
        Some("Zed's settings and tasks (it runs the commands they name)")
    } else if has(".idea") {
        Some("a JetBrains IDE's project settings (run configurations)")
    } else if matches!(last, ".nvim.lua" | ".nvimrc" | ".exrc") {
        Some("a Vim or Neovim project config, which the editor runs")
    } else if matches!(last, ".dir-locals.el" | ".dir-locals-2.el") {
        Some("Emacs's directory variables, which can run code")
    } else if last == ".envrc" {
        Some("direnv's .envrc, which the shell runs on entering the folder")
    } else if matches!(
        last,
        ".mise.toml" | "mise.toml" | ".rtx.toml" | "mise.local.toml" | ".mise.local.toml"
    ) || pair(".mise", "config.toml")
    {
        Some("mise's config, which runs what it names on entering the folder")
    } else if last == ".pre-commit-config.yaml" {
        Some("pre-commit's hooks, which run on every commit")
    } else if has(".devcontainer") || last == ".devcontainer.json" {
        Some("a dev container's definition, which the editor builds and runs on opening")
    } else if last.ends_with(".code-workspace") || has(".helix") {
        Some("an editor's workspace settings, which name tasks and programs it runs on opening")
    } else if pair(".github", "workflows")
        || pair(".github", "actions")
        || has(".circleci")
        || has(".buildkite")
        || has(".woodpecker")
        || pair(".gitea", "workflows")
        || pair(".forgejo", "workflows")
        || matches!(
            last,
            ".gitlab-ci.yml"
                | "jenkinsfile"
                | ".travis.yml"
                | "azure-pipelines.yml"
                | "bitbucket-pipelines.yml"
                | ".drone.yml"
                | ".woodpecker.yml"
        )
    {
        Some("a CI workflow, which runs with the repository's secrets")
    } else if has(".husky")
        || has(".githooks")
        || has(".lefthook")
        || matches!(
            last,
            "lefthook.yml"
                | ".lefthook.yml"
                | "lefthook-local.yml"
                | ".lefthook-local.yml"
                | ".overcommit.yml"
        )
    {
        Some("a Git hook or a hook manager's config, which runs on every commit")
    } else if pair(".hg", "hgrc") {
        Some("Mercurial's repository config, whose hooks run on every hg command")
    } else if matches!(
        last,
        ".yarnrc.yml"
            | ".yarnrc"
            | "rust-toolchain.toml"
            | "rust-toolchain"
            | ".pylintrc"
            | "pylintrc"
    ) {
        Some(
            "a tool's config that names a program it runs (yarnPath, a toolchain's path, an init-hook)",
        )
    } else if pair(".cargo", "config.toml") || pair(".cargo", "config") {
        Some("Cargo's configuration, which can name the programs a build runs")
    } else {
        None
    }
}

/// Keys and credentials, and the files a login shell or Git runs what they say from: asked
/// for reading (they hold secrets) and writing (they run code later) alike, wherever keel runs
/// (a run started in the home folder reaches them by a relative path).
fn credentials_or_startup(names: &[Cow<'_, str>]) -> Option<&'static str> {
    if names.iter().any(|name| {
        matches!(
            name.as_ref(),
            ".ssh" | ".gnupg" | ".aws" | ".azure" | ".kube" | ".docker" | ".ipython"
        )
    }) {
        return Some("in a folder of keys, credentials or startup code");
    }
    let pair = |a: &str, b: &str| names.windows(2).any(|w| w[0] == a && w[1] == b);
    // Under `.config`: Git's second config file and credential store, the GitHub and cloud
    // CLIs' tokens, and what a login session or a shell starts from.
    if [
        "git",
        "gh",
        "gcloud",
        "rclone",
        "systemd",
        "autostart",
        "fish",
        "nvim",
        "environment.d",
        "pip",
    ]
    .iter()
    .any(|dir| pair(".config", dir))
    {
        return Some("configuration or credentials a program runs or signs in with");
    }
    if pair(".cargo", "credentials")
        || pair(".cargo", "credentials.toml")
        || pair(".m2", "settings.xml")
    {
        return Some("a file that holds credentials");
    }
    let last = names.last()?.as_ref();
    // Python runs these from any site-packages folder at start.
    if matches!(last, "usercustomize.py" | "sitecustomize.py")
        || (last.ends_with(".pth")
            && names
                .iter()
                .any(|n| n == "site-packages" || n == "dist-packages"))
    {
        return Some("a file Python runs at start");
    }
    match last {
        ".vimrc" | ".gvimrc" | ".emacs" | ".tmux.conf" | ".xprofile" | ".xinitrc" | ".irbrc"
        | ".bash_aliases" | ".xsession" | ".pam_environment" | ".wgetrc" | ".curlrc" => {
            Some("a program's startup file, which it runs")
        }
        ".vault-token" | ".s3cfg" | ".pgpass" | ".my.cnf" => Some("a file that holds credentials"),
        _ => credentials_or_shell_startup(last),
    }
}

/// The shells' startup files and the common credential files, by name.
fn credentials_or_shell_startup(last: &str) -> Option<&'static str> {
    match last {
        ".bashrc" | ".bash_profile" | ".bash_login" | ".bash_logout" | ".profile" | ".zshrc"
        | ".zprofile" | ".zshenv" | ".zlogin" | ".zlogout" | ".kshrc" | ".cshrc" | ".tcshrc"
        | ".inputrc" => Some("a shell's startup file, which the shell runs"),
        ".gitconfig" => Some("Git's configuration, which can name programs Git runs"),
        ".netrc" | ".git-credentials" | ".npmrc" | ".pypirc" => {
            Some("a file that holds credentials")
        }
        _ => None,
    }
}

/// Whether `resolved` is the config or a hook of a Git directory, whatever the directory is
/// called (`.git` is allowed-path's own; `git init --separate-git-dir=gitdata`, a bare
/// `mirror.git` are not): a folder holding `HEAD` and `objects`. Only a path named like one
/// (`…/config`, `…/hooks/…`) is looked at, so other writes cost no system call.
fn in_a_git_directory(resolved: &Path, names: &[Cow<'_, str>], fs: &dyn PathResolver) -> bool {
    let n = names.len();
    // The folders that would be Git directories, by how many segments they have: the one a
    // `config`, `HEAD` or `objects` is written in, and the one holding a `hooks` folder.
    let last = names.last().map(AsRef::as_ref);
    let written_in =
        matches!(last, Some("config" | "head" | "objects" | "commondir")).then(|| n - 1);
    let holding_hooks = names[..n.saturating_sub(1)]
        .iter()
        .rposition(|s| s == "hooks")
        .filter(|&i| i > 0);
    let exists = |p: PathBuf| fs.canonicalize(&p).is_ok();
    [written_in, holding_hooks]
        .into_iter()
        .flatten()
        .filter(|&k| k > 0)
        .any(|k| {
            let Some(folder) = resolved.ancestors().nth(n - k) else {
                return false;
            };
            // A bare repository's folder is named `*.git` before it holds anything.
            (names[k - 1].len() > 4 && names[k - 1].ends_with(".git"))
                || (exists(folder.join("HEAD")) && exists(folder.join("objects")))
                // Written beside another of what makes one, in any order: `HEAD` beside a
                // config, a config beside `HEAD`, a `commondir` anywhere.
                || (written_in == Some(k)
                    && (last == Some("commondir")
                        || ["HEAD", "config", "objects", "hooks", "commondir"]
                            .iter()
                            .filter(|marker| !last.is_some_and(|l| l.eq_ignore_ascii_case(marker)))
                            .any(|marker| exists(folder.join(marker)))))
        })
}

/// The guarded-paths checker: `writes` says whether the call is side-effecting (a read of an
/// editor's config is no risk; writing it is).
pub fn check_guarded_paths(
    args: &Value,
    cwd: &Path,
    guarded: &[PathBuf],
    writes: bool,
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    check_guarded_paths_in(args, cwd, guarded, None, &[], writes, fs)
}

/// [`check_guarded_paths`], knowing the user's home folder (resolved): what lies in its
/// settings — a dot-file or dot-folder right under it, where programs keep credentials and
/// the code they run at start (`.ssh`, `.config`, `.vim`, `.local/bin`, …) — asks, read or
/// written, whatever its name. A list of names cannot keep up with every program's.
///
/// `hook_folders`: the folders Git runs hooks from that the repository's config names
/// (`core.hooksPath`), resolved; writing a file there asks as writing `.git/hooks` does.
pub fn check_guarded_paths_in(
    args: &Value,
    cwd: &Path,
    guarded: &[PathBuf],
    home: Option<&Path>,
    hook_folders: &[PathBuf],
    writes: bool,
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    let paths = resolve_path_args(args, &PathConfig::default(), cwd, fs);
    check_guarded_resolved(&paths, guarded, home, hook_folders, writes, fs)
}

/// [`check_guarded_paths_in`] over arguments already resolved ([`resolve_path_args`] with
/// the default [`PathConfig`]: guarded files are guarded under every key).
pub fn check_guarded_resolved(
    paths: &[ResolvedArg],
    guarded: &[PathBuf],
    home: Option<&Path>,
    hook_folders: &[PathBuf],
    writes: bool,
    fs: &dyn PathResolver,
) -> SafetyCheckResult {
    for ResolvedArg {
        path: PathArg { arg, value, .. },
        unresolvable,
        resolved,
    } in paths
    {
        if *unresolvable {
            continue;
        }
        let Ok(resolved) = resolved else {
            continue;
        };
        let names = segment_keys(resolved);
        let env_file = names.iter().any(|key| is_env_key(key));
        // (Compared as bytes: `resolved` is absolute, without `.`, `..` or a doubled `/`.)
        let bytes = resolved.as_os_str().as_encoded_bytes();
        // keel reads the `keel.toml` of whatever folder it starts in, so every one is keel's.
        let keel_file = bytes
            .rsplit(|&b| b == b'/')
            .next()
            .is_some_and(|name| name.eq_ignore_ascii_case(b"keel.toml"));
        if keel_file {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is a keel.toml, which a keel run started in its folder reads as configuration: only you may let a tool touch it."
            ));
        }
        if env_file {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is an environment file like .env, which holds secrets."
            ));
        }
        if let Some(what) = credentials_or_startup(&names) {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is {what}: only you may let a tool touch it."
            ));
        }
        if writes && in_a_git_directory(resolved, &names, fs) {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is inside a Git repository's own folder (its config or hooks): Git runs what they say, so writing them runs code later, outside keel's gate."
            ));
        }
        if writes && hook_folders.iter().any(|h| is_under(resolved, h)) {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is where Git runs code from for this repository (a folder core.hooksPath names, or a config file Git reads): writing it runs code on the next commit or git status, outside keel's gate."
            ));
        }
        if writes && let Some(what) = runs_what_it_says(&names) {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is {what}: writing it runs code later, outside keel's gate."
            ));
        }
        if let Some(guard) = guarded.iter().find(|g| is_under(resolved, g)) {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is keel's own configuration or data ({}): a later run reads it, so only you may let a tool touch it.",
                guard.display()
            ));
        }
        let home_settings = home
            .and_then(|home| below(bytes, home))
            .and_then(|rest| rest.strip_prefix(b"/"))
            .is_some_and(|first| first.starts_with(b"."));
        if home_settings {
            return SafetyCheckResult::ask(format!(
                "\"{value}\" in argument \"{arg}\" is in your home folder's settings, where programs keep credentials and the code they run at start: only you may let a tool touch it."
            ));
        }
    }
    SafetyCheckResult::allow()
}

#[cfg(test)]
mod tests;
