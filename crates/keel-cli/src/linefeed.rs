//! Standard input as a feed of lines read on a thread of their own, so `keel chat` can wait for
//! the person's next line and still deliver what background tasks send meanwhile. The same
//! feed answers ask_user prompts (it is a `BufRead`), so nothing typed is read twice or lost.

use std::io::{BufRead, Read};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

pub struct LineFeed {
    lines: Receiver<String>,
    /// The line being read through `BufRead`, and how far.
    current: Vec<u8>,
    pos: usize,
}

/// What waiting for a line gave.
pub enum Next {
    Line(String),
    /// Nothing yet.
    Quiet,
    /// End of input.
    Closed,
}

impl LineFeed {
    /// Starts reading standard input.
    pub fn stdin() -> Self {
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
        Self {
            lines,
            current: Vec::new(),
            pos: 0,
        }
    }

    /// The next whole line, waiting at most `wait`.
    pub fn next_line(&mut self, wait: Duration) -> Next {
        if self.pos < self.current.len() {
            let rest = String::from_utf8_lossy(&self.current[self.pos..]).into_owned();
            self.pos = self.current.len();
            return Next::Line(rest);
        }
        match self.lines.recv_timeout(wait) {
            Ok(line) => Next::Line(line),
            Err(RecvTimeoutError::Timeout) => Next::Quiet,
            Err(RecvTimeoutError::Disconnected) => Next::Closed,
        }
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
            match self.lines.recv() {
                Ok(line) => {
                    self.current = line.into_bytes();
                    self.pos = 0;
                }
                // End of input: an empty buffer, as any reader says it.
                Err(_) => {
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
