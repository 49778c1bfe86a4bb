//! The one way `keel` writes to the terminal. Nothing from a model, a tool, a file, a server or
//! a task reaches stdout or stderr raw: every byte for a person goes through a [`Terminal`],
//! which shows control characters escaped (keel-core's [`terminal_safe`]: ESC, BEL, every
//! other C0 and C1 control, DEL, and the bidi overrides), so a reply that repeats a tool's
//! `\x1b]0;title\x07` or an OSC 52 clipboard write cannot retitle the terminal, write the
//! clipboard, move the cursor or rewrite the prompt a person is answering. Line feeds and tabs
//! stay, so answers read as they were written.
//!
//! The only bytes written unchanged are a machine wire's ([`wire`]): `keel call` and the
//! `--json` outputs, whose JSON escapes every C0 control already and whose bytes scripts
//! compare (interfaces.md §1).
//!
//! This is the only module of the binary that names `std::io::stdout` or `std::io::stderr`,
//! so a new printer cannot write raw text by accident: the workspace's lints deny the printing
//! macros (`print_stdout`, `print_stderr`) in the whole crate, and a test here fails on any
//! other module that names the two functions.

use std::io::{self, Write};

pub use keel_core::text::LineBreaks;
use keel_core::text::terminal_safe;

/// A writer for a person's terminal: what is written to it is written on, escaped by
/// [`terminal_safe`] with [`LineBreaks::Keep`]. It takes bytes in any pieces: a UTF-8
/// sequence split between two writes is held until it is whole, and bytes that are not UTF-8
/// are shown as U+FFFD. Each char is escaped on its own, so a control character split from
/// what follows it (an ESC at the end of one streamed chunk, `]0;…` at the start of the next)
/// is escaped all the same.
pub struct Terminal<W: Write> {
    inner: W,
    /// The start of a UTF-8 sequence whose other bytes have not been written yet.
    partial: Vec<u8>,
}

impl<W: Write> Terminal<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            partial: Vec::new(),
        }
    }

    /// The text of `bytes` (after what was held back), escaped; keeps back an incomplete
    /// sequence at the end.
    fn escaped(&mut self, bytes: &[u8]) -> String {
        let mut pending = std::mem::take(&mut self.partial);
        pending.extend_from_slice(bytes);
        let mut text = String::with_capacity(pending.len());
        let mut rest = &pending[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // `valid_up_to` is where the valid prefix ends, so this cannot fail.
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            self.partial = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        terminal_safe(&text, LineBreaks::Keep)
    }
}

impl<W: Write> Write for Terminal<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let text = self.escaped(bytes);
        self.inner.write_all(text.as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Terminal<W> {
    /// An incomplete sequence left at the end is shown as U+FFFD, not dropped silently.
    fn drop(&mut self) {
        if !self.partial.is_empty() {
            self.partial.clear();
            let _ = self
                .inner
                .write_all(char::REPLACEMENT_CHARACTER.to_string().as_bytes());
            let _ = self.inner.flush();
        }
    }
}

/// Where escaped text goes: the stream, or, while `keel chat`'s line editor is at its prompt,
/// above the line being typed ([`route_to`]).
pub struct Sink(Stream);

/// Text printed while the line editor is at its prompt: handed on a line at a time (the editor
/// draws its prompt again after each piece, so a piece is best a whole line).
struct Route {
    print: Box<dyn FnMut(String) + Send>,
    /// Printed and not handed on yet: the start of a line.
    pending: String,
    /// stderr is routed too (it is the same terminal).
    stderr: bool,
}

static ROUTE: std::sync::Mutex<Option<Route>> = std::sync::Mutex::new(None);

/// From now on what is printed for a person on stdout (and on stderr when `stderr`) is handed
/// to `print`, a line at a time, instead of written: `keel chat`'s line editor shows it above
/// the line being typed.
pub fn route_to(print: Box<dyn FnMut(String) + Send>, stderr: bool) {
    if let Ok(mut route) = ROUTE.lock() {
        *route = Some(Route {
            print,
            pending: String::new(),
            stderr,
        });
    }
}

/// Hands on what was printed since the last line feed, if anything.
pub fn flush_route() {
    if let Ok(mut route) = ROUTE.lock()
        && let Some(r) = route.as_mut()
        && !r.pending.is_empty()
    {
        let text = std::mem::take(&mut r.pending);
        (r.print)(text);
    }
}

/// Back to writing straight to the streams, after handing on what is still pending.
pub fn unroute() {
    flush_route();
    if let Ok(mut route) = ROUTE.lock() {
        *route = None;
    }
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Ok(mut route) = ROUTE.lock()
            && let Some(r) = route.as_mut()
            && (matches!(self.0, Stream::Stdout) || r.stderr)
        {
            r.pending.push_str(&String::from_utf8_lossy(bytes));
            if let Some(end) = r.pending.rfind('\n') {
                let lines: String = r.pending.drain(..=end).collect();
                (r.print)(lines);
            }
            return Ok(bytes.len());
        }
        match self.0 {
            Stream::Stdout => io::stdout().write(bytes),
            Stream::Stderr => io::stderr().write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0 {
            Stream::Stdout => io::stdout().flush(),
            Stream::Stderr => io::stderr().flush(),
        }
    }
}

/// Whether `stream` is a terminal.
pub fn is_terminal(stream: Stream) -> bool {
    use std::io::IsTerminal as _;
    match stream {
        Stream::Stdout => io::stdout().is_terminal(),
        Stream::Stderr => io::stderr().is_terminal(),
    }
}

/// The terminal's stdout, escaped.
pub fn stdout() -> Terminal<Sink> {
    Terminal::new(Sink(Stream::Stdout))
}

/// The terminal's stderr, escaped: for the approver's prompts and for logs.
pub fn stderr() -> Terminal<Sink> {
    Terminal::new(Sink(Stream::Stderr))
}

/// `text` on stdout, escaped, flushed (a streamed reply shows as it comes).
pub fn print(text: &str) -> io::Result<()> {
    let mut out = stdout();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// `text` on stderr, escaped; its line feeds stay (keel's own multi-line messages).
pub fn eprint(text: &str) {
    let mut err = stderr();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// One line of keel's on stderr, `keel: ` + `line`, with line feeds escaped too: what it
/// quotes (a notice, a warning naming a file's key, a task's message) cannot start a line of
/// its own that looks like keel's.
pub fn say(line: &str) {
    eprint(&format!("keel: {}\n", field(line)));
}

/// A progress line that rewrites itself: keel's own carriage return, then `line` escaped
/// (with its carriage returns, so it cannot rewrite anything else).
pub fn progress(line: &str) {
    let mut err = Sink(Stream::Stderr);
    let _ = err.write_all(b"\r");
    eprint(&field(line));
}

/// A field shown inside one line (a tool name, a reason, a call's arguments): control
/// characters and line feeds escaped.
pub fn field(text: &str) -> String {
    terminal_safe(text, LineBreaks::Escape)
}

/// Where a machine wire goes.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A machine wire's bytes, unchanged: `keel call`'s result or error line, and the JSON of
/// `--json`, `keel runs export` and `keel check`. JSON escapes every C0 control (ESC and BEL
/// among them) itself, and scripts compare these bytes, so they are not rewritten.
pub fn wire(stream: Stream, text: &str) -> io::Result<()> {
    match stream {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()
        }
        Stream::Stderr => {
            let mut err = io::stderr().lock();
            err.write_all(text.as_bytes())?;
            err.flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(pieces: &[&[u8]]) -> String {
        let mut shown = Vec::new();
        {
            let mut t = Terminal::new(&mut shown);
            for p in pieces {
                t.write_all(p).unwrap_or_else(|e| panic!("{e}"));
            }
        }
        String::from_utf8(shown).unwrap_or_else(|e| panic!("{e}"))
    }

    fn raw_controls(text: &str) -> Vec<char> {
        text.chars()
            .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202E}')
            .collect()
    }

    #[test]
    fn escape_sequences_are_shown_escaped_and_lines_kept() {
        let reply = "Title \u{1b}]0;pwned\u{7} clip \u{1b}]52;c;Y3VybCBldmlsIHwgc2g=\u{7}\n\
                     \tcsi \u{9b}2J del \u{7f} bell \u{7} rlo \u{202E}gpj.exe\r\n";
        let shown = through(&[reply.as_bytes()]);
        assert_eq!(
            shown,
            "Title \\u{001b}]0;pwned\\u{0007} clip \\u{001b}]52;c;Y3VybCBldmlsIHwgc2g=\\u{0007}\n\
             \tcsi \\u{009b}2J del \\u{007f} bell \\u{0007} rlo \\u{202e}gpj.exe\\u{000d}\n"
        );
        assert!(raw_controls(&shown).is_empty(), "{shown:?}");
    }

    #[test]
    fn a_control_split_between_writes_is_still_escaped() {
        // ESC alone at the end of one streamed chunk, the rest of OSC 0 in the next.
        assert_eq!(
            through(&[b"a\x1b", b"]0;x\x07b"]),
            "a\\u{001b}]0;x\\u{0007}b"
        );
        // The two bytes of C1 CSI (U+009B) in two writes: held, then escaped whole.
        let csi = "\u{9b}".as_bytes();
        assert_eq!(csi.len(), 2);
        assert_eq!(
            through(&[b"x", &csi[..1], &csi[1..], b"31m"]),
            "x\\u{009b}31m"
        );
        // A four-byte char split three ways comes out whole.
        let emoji = "😀".as_bytes();
        assert_eq!(through(&[&emoji[..1], &emoji[1..3], &emoji[3..]]), "😀");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_never_passed_on() {
        // A raw 8-bit CSI byte, and a sequence cut off at the end.
        assert_eq!(through(&[b"a\x9b[2Jb"]), "a\u{FFFD}[2Jb");
        assert_eq!(through(&[b"end\xe2\x82"]), "end\u{FFFD}");
    }

    #[test]
    fn escaping_twice_changes_nothing() {
        let once = through(&["\u{1b}[31mred\u{7}\n".as_bytes()]);
        assert_eq!(through(&[once.as_bytes()]), once);
    }

    #[test]
    fn a_field_escapes_its_line_feeds_too() {
        assert_eq!(
            field("a\nkeel: allowed\u{1b}"),
            "a\\u{000a}keel: allowed\\u{001b}"
        );
    }

    /// The lints keep the printing macros out of every other module; this keeps out the two
    /// functions that would bypass them (`std::io::stdout`, `std::io::stderr`), and the
    /// macros too, should an `allow` ever let one in.
    #[test]
    fn no_other_module_writes_to_the_terminal() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut offenders = Vec::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{e}")) {
                let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.file_name().is_some_and(|n| n == "out.rs")
                    || path.extension().is_none_or(|e| e != "rs")
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or_default();
                    let named = ["io::stdout", "io::stderr", "print!", "println!"]
                        .iter()
                        .any(|f| code.contains(f));
                    if named {
                        offenders.push(format!("{}:{}: {line}", path.display(), n + 1));
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "print through crate::out, never straight to the terminal:\n{}",
            offenders.join("\n")
        );
    }
}
