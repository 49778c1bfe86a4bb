//! Standard input as a feed of lines read on a thread of their own, so `keel chat` can wait for
//! the person's next line and still deliver what background tasks send meanwhile. The same
//! feed answers ask_user prompts (it is a `BufRead`), so nothing typed is read twice or lost.
//!
//! When stdin and stdout are a terminal, the thread reads each line with a line editor
//! (rustyline): the line can be edited, the arrow keys move in it or recall earlier lines,
//! and the lines of the run are kept in a history file of its own. The editor reads only when
//! asked to (the chat's prompt, an ask_user question), so between two prompts the terminal is
//! as keel found it: Ctrl-C during a turn is the signal that cancels the turn, and what is
//! typed meanwhile waits for the next prompt. While the editor is at the prompt, whatever keel
//! prints (a notification's turn, a background task's notice) is shown above the line being
//! typed ([`crate::out::route_to`]), which the editor then draws again.
//!
//! Otherwise (a pipe, a file, the tests) lines are read as they come, as before.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::out;

pub struct LineFeed {
    source: Source,
    /// The line being read through `BufRead`, and how far.
    current: Vec<u8>,
    pos: usize,
}

enum Source {
    /// Lines as they come, read by a thread from the start.
    Piped(Receiver<String>),
    /// A line editor on the terminal, reading when asked.
    Editor(Editor),
}

/// What waiting for a line gave.
pub enum Next {
    Line(String),
    /// Nothing yet.
    Quiet,
    /// End of input (Ctrl-D at the editor's prompt).
    Closed,
    /// Ctrl-C at the editor's prompt.
    Interrupted,
}

/// What the printing thread is handed.
enum Above {
    Text(String),
    /// Answered once everything handed before is printed.
    Barrier(Sender<()>),
}

/// A read the editor thread is asked for.
struct Ask {
    prompt: String,
    /// Keep the line in the run's history (the chat's lines; never an answer to a question).
    history: bool,
}

/// What the editor thread read.
enum Got {
    Line(String),
    Interrupted,
    Eof,
    /// The editor failed: end of input, with why.
    Failed(String),
}

struct Editor {
    asks: Sender<Ask>,
    got: Receiver<Got>,
    /// A read was asked for and its line has not come yet.
    outstanding: bool,
    /// To the thread that prints above the line being edited (and straight out when nothing
    /// is being edited). A thread of its own: the editor's printer can wait for the editor,
    /// and keel's own threads must never wait on it.
    above: Sender<Above>,
    /// The end of what an ask_user question wrote after its last line feed: the editor shows
    /// it as its prompt, so the answer is typed right after the question.
    question: Arc<Mutex<String>>,
    /// Set by Ctrl-C while a question is being answered: the turn is cancelled.
    cancel: Arc<AtomicBool>,
    /// The terminal's mode before the editor first touched it, put back when the feed goes
    /// (should keel end while the editor holds the terminal raw).
    saved: Option<nix::sys::termios::Termios>,
    /// The editor thread is gone: every later read is end of input.
    closed: bool,
}

/// The chat's prompt.
pub const PROMPT: &str = "you> ";

/// How long going back to printing straight out waits for what is still being printed above
/// the editor's line.
const ABOVE_WAIT: Duration = Duration::from_millis(500);

/// Where a run's chat history is kept: `$KEEL_HOME/history/RUN.txt`, one file per run.
pub fn history_file(run: &str) -> Option<PathBuf> {
    let name: String = run
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    keel_app::paths::data_dir()
        .ok()
        .map(|d| d.join("history").join(format!("{name}.txt")))
}

impl LineFeed {
    /// Starts reading standard input: with the line editor when stdin and stdout are a
    /// terminal (keeping the lines in `history`), else line by line as they come. `cancel` is
    /// set by a Ctrl-C typed while a question is being answered.
    pub fn stdin(history: Option<PathBuf>, cancel: Arc<AtomicBool>) -> Self {
        let source = if std::io::stdin().is_terminal() && out::is_terminal(out::Stream::Stdout) {
            match Editor::start(history, cancel) {
                Ok(editor) => Source::Editor(editor),
                Err(e) => {
                    out::say(&format!(
                        "warning: no line editing on this terminal ({e}); lines are read as typed"
                    ));
                    Source::Piped(piped())
                }
            }
        } else {
            Source::Piped(piped())
        };
        Self {
            source,
            current: Vec::new(),
            pos: 0,
        }
    }

    /// Whether the line editor shows the prompt itself (else the caller prints it).
    pub fn edits(&self) -> bool {
        matches!(self.source, Source::Editor(_))
    }

    /// The writer ask_user questions go to. With the line editor, the end of a question that
    /// waits for its answer on the same line becomes the editor's prompt.
    pub fn question_output(&self) -> Box<dyn Write> {
        match &self.source {
            Source::Editor(e) => Box::new(out::Terminal::new(QuestionSplit {
                question: e.question.clone(),
            })),
            Source::Piped(_) => Box::new(out::stderr()),
        }
    }

    /// The next whole line typed at the chat's prompt, waiting at most `wait`. With the line
    /// editor, what keel prints meanwhile is shown above the line being typed.
    pub fn next_line(&mut self, wait: Duration) -> Next {
        if self.pos < self.current.len() {
            let rest = String::from_utf8_lossy(&self.current[self.pos..]).into_owned();
            self.pos = self.current.len();
            return Next::Line(rest);
        }
        match &mut self.source {
            Source::Piped(lines) => match lines.recv_timeout(wait) {
                Ok(line) => Next::Line(line),
                Err(RecvTimeoutError::Timeout) => Next::Quiet,
                Err(RecvTimeoutError::Disconnected) => Next::Closed,
            },
            Source::Editor(e) => {
                if !e.outstanding {
                    e.ask(PROMPT.to_string(), true);
                }
                match e.wait(Some(wait)) {
                    None => Next::Quiet,
                    Some(Got::Line(line)) => Next::Line(line),
                    Some(Got::Interrupted) => Next::Interrupted,
                    Some(Got::Eof) => Next::Closed,
                    Some(Got::Failed(why)) => {
                        out::say(&format!("the line editor stopped: {why}"));
                        Next::Closed
                    }
                }
            }
        }
    }

    /// Shows whatever keel printed while the editor was at the prompt and has not shown yet
    /// (the end of a reply that did not end its line).
    pub fn flush_above(&self) {
        if self.edits() {
            out::flush_route();
        }
    }
}

/// Lines as they come, from a thread that reads stdin to its end.
fn piped() -> Receiver<String> {
    let (send, lines) = channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            let mut line = String::new();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if send.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    lines
}

impl Editor {
    fn start(history: Option<PathBuf>, cancel: Arc<AtomicBool>) -> Result<Self, String> {
        use rustyline::history::History as _;
        let saved = nix::sys::termios::tcgetattr(std::io::stdin()).ok();
        let config = rustyline::Config::builder()
            .auto_add_history(false)
            .max_history_size(1000)
            .and_then(|b| b.history_ignore_dups(true))
            .map_err(|e| e.to_string())?
            // A line typed with a space first is not kept (as in bash), for what should not be.
            .history_ignore_space(true)
            .build();
        let mut editor =
            rustyline::DefaultEditor::with_config(config).map_err(|e| e.to_string())?;
        if let Some(path) = history.as_ref().filter(|p| p.exists())
            && let Err(e) = editor.load_history(path)
        {
            out::say(&format!(
                "warning: the chat history {} could not be read ({e}); starting without it",
                path.display()
            ));
            let _ = editor.history_mut().clear();
        }
        let mut printer = editor
            .create_external_printer()
            .map_err(|e| e.to_string())?;
        let (above, to_print) = channel::<Above>();
        std::thread::spawn(move || {
            use rustyline::ExternalPrinter as _;
            for what in to_print {
                match what {
                    Above::Text(text) => {
                        let _ = printer.print(text);
                    }
                    Above::Barrier(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        let (asks, asked) = channel::<Ask>();
        let (send, got) = channel();
        std::thread::spawn(move || read_lines(editor, history, &asked, &send));
        Ok(Editor {
            asks,
            got,
            outstanding: false,
            above,
            question: Arc::new(Mutex::new(String::new())),
            cancel,
            saved,
            closed: false,
        })
    }

    /// Asks the editor thread for a line. While it reads, what keel prints goes above the
    /// line being typed.
    fn ask(&mut self, prompt: String, history: bool) {
        if self.closed {
            return;
        }
        let above = self.above.clone();
        out::route_to(
            Box::new(move |text: String| {
                let _ = above.send(Above::Text(text));
            }),
            out::is_terminal(out::Stream::Stderr),
        );
        if self.asks.send(Ask { prompt, history }).is_err() {
            self.closed = true;
            self.unroute();
            return;
        }
        self.outstanding = true;
    }

    /// Back to printing straight out, once what was handed to the printing thread is shown
    /// (so nothing printed later comes before it).
    fn unroute(&self) {
        out::unroute();
        let (done, printed) = channel();
        if self.above.send(Above::Barrier(done)).is_ok() {
            let _ = printed.recv_timeout(ABOVE_WAIT);
        }
    }

    /// The line asked for, waiting at most `wait` (`None`: for as long as it takes).
    fn wait(&mut self, wait: Option<Duration>) -> Option<Got> {
        if self.closed {
            return Some(Got::Eof);
        }
        let got = match wait {
            Some(wait) => match self.got.recv_timeout(wait) {
                Ok(got) => got,
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => Got::Eof,
            },
            None => self.got.recv().unwrap_or(Got::Eof),
        };
        if matches!(got, Got::Failed(_)) {
            self.closed = true;
        }
        self.outstanding = false;
        // Printed while it was being typed, and not shown yet: shown now, in order.
        self.unroute();
        Some(got)
    }

    /// One line for an ask_user question, read with the end of the question as its prompt.
    fn answer(&mut self) -> Option<String> {
        let question = self
            .question
            .lock()
            .map(|mut q| std::mem::take(&mut *q))
            .unwrap_or_default();
        if self.outstanding {
            // The chat's prompt is being read already: the question is shown above it, and
            // the line typed there answers it (as a pipe's next line would).
            out::eprint(&question);
        } else {
            self.ask(question, false);
        }
        match self.wait(None)? {
            Got::Line(line) => Some(line),
            Got::Interrupted => {
                // Ctrl-C while asked: no answer (a deny), and the turn stops at its next step.
                self.cancel.store(true, Ordering::SeqCst);
                out::say("cancelling this turn (not answered: denied)");
                None
            }
            Got::Eof => None,
            Got::Failed(why) => {
                out::say(&format!("the line editor stopped: {why}"));
                None
            }
        }
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        self.unroute();
        // keel may be leaving while the editor thread holds the terminal raw: put it back.
        if let Some(saved) = &self.saved {
            let _ = nix::sys::termios::tcsetattr(
                std::io::stdin(),
                nix::sys::termios::SetArg::TCSADRAIN,
                saved,
            );
        }
    }
}

/// The editor thread: reads a line each time it is asked, keeps the chat's lines in the
/// run's history file (saved before the line is handed on), and ends when the feed goes.
fn read_lines(
    mut editor: rustyline::DefaultEditor,
    history: Option<PathBuf>,
    asked: &Receiver<Ask>,
    send: &Sender<Got>,
) {
    use rustyline::error::ReadlineError;
    while let Ok(ask) = asked.recv() {
        let got = loop {
            match editor.readline(ask.prompt.as_str()) {
                Ok(line) => break Got::Line(line),
                Err(ReadlineError::Interrupted) => break Got::Interrupted,
                Err(ReadlineError::Eof) => break Got::Eof,
                // The window was resized: read on.
                Err(ReadlineError::Signal(_)) => {}
                Err(e) => break Got::Failed(e.to_string()),
            }
        };
        if let (Got::Line(line), true) = (&got, ask.history)
            && !line.trim().is_empty()
            && editor.add_history_entry(line.as_str()).unwrap_or(false)
            && let Some(path) = &history
        {
            save_history(&mut editor, path);
        }
        let got = match got {
            Got::Line(line) => Got::Line(format!("{line}\n")),
            other => other,
        };
        if send.send(got).is_err() {
            break;
        }
    }
}

fn save_history(editor: &mut rustyline::DefaultEditor, path: &std::path::Path) {
    if let Some(dir) = path.parent()
        && !dir.exists()
    {
        // What the person typed is theirs alone.
        let made = std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
        if made.is_err() {
            return;
        }
    }
    let _ = editor.append_history(path);
}

use std::os::unix::fs::DirBuilderExt as _;

/// An ask_user question's writer with the line editor: every whole line is shown at once; the
/// end of the question after its last line feed (`Allow? …: `) is kept for the editor's
/// prompt, so the answer is typed, and edited, right after it.
struct QuestionSplit {
    question: Arc<Mutex<String>>,
}

impl Write for QuestionSplit {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // `out::Terminal` hands on escaped UTF-8, whole chars only.
        let text = String::from_utf8_lossy(bytes);
        let mut question = self
            .question
            .lock()
            .map_err(|_| std::io::Error::other("question lock"))?;
        question.push_str(&text);
        if let Some(end) = question.rfind('\n') {
            let lines: String = question.drain(..=end).collect();
            // Escaped already; escaping again changes nothing.
            out::eprint(&lines);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Read for LineFeed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LineFeed {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.current.len() {
            let line = match &mut self.source {
                Source::Piped(lines) => lines.recv().ok(),
                Source::Editor(e) => e.answer(),
            };
            match line {
                Some(line) => {
                    self.current = line.into_bytes();
                    self.pos = 0;
                }
                // End of input: an empty buffer, as any reader says it.
                None => {
                    self.current.clear();
                    self.pos = 0;
                }
            }
        }
        Ok(&self.current[self.pos..])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.current.len());
    }
}
