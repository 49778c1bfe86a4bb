//! Running external safety checkers (safety.md N5–N8, N38, N40, N43, N45).
//!
//! A checker is a program registered by name in `[checkers.NAME]`. In `spawn` mode each check
//! starts it directly — no shell — in its own process group, writes the input, closes stdin,
//! reads at most 1 MiB of stdout, and waits within the checker's budget; on expiry the group
//! gets SIGTERM and, after a grace period, SIGKILL. Every fault denies, with a reason naming
//! the checker and a failure kind of its own, and no process of the group outlives the check.
//! In `persistent` mode one long-lived process answers one JSON line per request line under the
//! same budget and fail-closed rules, and is restarted after it dies.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use keel_core::text::js_trim;
use keel_policy::Decision;
use keel_policy::protocol::{SafetyCheckInput, parse_result};
use keel_policy::rules::CheckerVerdict;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Most stdout a checker may print (N40).
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;
/// How much of stderr a reason carries (N40).
pub const STDERR_TAIL_CHARS: usize = 1000;
/// Default budget per check (N7, N37).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Default time between SIGTERM and SIGKILL (N7).
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckerMode {
    #[default]
    Spawn,
    Persistent,
}

/// A `[checkers.NAME]` registry entry (N38).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckerSpec {
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub timeout: Duration,
    pub kill_grace: Duration,
    pub mode: CheckerMode,
}

impl CheckerSpec {
    pub fn new(name: &str, command: Vec<String>) -> Self {
        Self {
            name: name.to_string(),
            command,
            env: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            kill_grace: DEFAULT_KILL_GRACE,
            mode: CheckerMode::Spawn,
        }
    }
}

fn failed(name: &str, kind: &'static str, reason: String) -> CheckerVerdict {
    CheckerVerdict {
        checker: name.to_string(),
        decision: Decision::Deny,
        reason: Some(reason),
        failure: Some(kind),
    }
}

fn stderr_tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = js_trim(&text);
    let count = trimmed.chars().count();
    trimmed
        .chars()
        .skip(count.saturating_sub(STDERR_TAIL_CHARS))
        .collect()
}

fn signal_name(sig: i32) -> String {
    Signal::try_from(sig).map_or_else(|_| sig.to_string(), |s| s.as_str().to_string())
}

/// Why the process ended, as a verdict, when it did not end well.
fn status_failure(name: &str, status: ExitStatus, stderr: &[u8]) -> Option<CheckerVerdict> {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        return Some(failed(
            name,
            "signal",
            format!(
                "Safety checker \"{name}\" terminated by signal {}",
                signal_name(sig)
            ),
        ));
    }
    match status.code() {
        Some(0) => None,
        code => {
            let tail = stderr_tail(stderr);
            let code = code.map_or_else(|| "unknown".to_string(), |c| c.to_string());
            let mut reason = format!("Safety checker \"{name}\" exited with code {code}");
            if !tail.is_empty() {
                reason.push_str(": ");
                reason.push_str(&tail);
            }
            Some(failed(name, "exit", reason))
        }
    }
}

/// Starts the checker in a process group of its own, watched by keel's reaper: a checker (or
/// anything it starts) never outlives keel, even a keel killed mid-check.
fn spawn(
    spec: &CheckerSpec,
    cwd: &std::path::Path,
) -> Result<(Child, keel_reaper::Watch), CheckerVerdict> {
    let Some((program, args)) = spec.command.split_first() else {
        return Err(failed(
            &spec.name,
            "resolution",
            format!(
                "Failed to run safety checker \"{}\": its command is empty",
                spec.name
            ),
        ));
    };
    keel_reaper::spawn(
        Command::new(program)
            .args(args)
            .envs(&spec.env)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|e| {
        failed(
            &spec.name,
            "spawn",
            format!("Failed to spawn safety checker \"{}\": {e}", spec.name),
        )
    })
}

fn signal_group(pgid: u32, signal: Signal) {
    // ESRCH (nobody left in the group) is the expected outcome once everything has exited.
    let _ = killpg(Pid::from_raw(pgid as i32), signal);
}

/// Reads at most `limit + 1` bytes, so the caller can tell "over the limit".
fn read_limited(mut r: impl Read, limit: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = r.by_ref().take(limit as u64 + 1).read_to_end(&mut buf);
    buf
}

/// Runs one check in `spawn` mode.
pub fn run_spawn(
    spec: &CheckerSpec,
    input: &SafetyCheckInput,
    cwd: &std::path::Path,
) -> CheckerVerdict {
    let name = spec.name.as_str();
    let (mut child, _watch) = match spawn(spec, cwd) {
        Ok(c) => c,
        Err(v) => return v,
    };
    let pgid = child.id();
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        signal_group(pgid, Signal::SIGKILL);
        let _ = child.wait();
        return failed(
            name,
            "spawn",
            format!("Failed to spawn safety checker \"{name}\": no pipes"),
        );
    };
    let payload = input.to_wire();
    let writer = std::thread::spawn(move || -> Result<(), String> {
        stdin
            .write_all(payload.as_bytes())
            .map_err(|e| e.to_string())?;
        drop(stdin);
        Ok(())
    });
    let (out_tx, out_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = out_tx.send(read_limited(stdout, MAX_OUTPUT_BYTES));
    });
    let err_reader = std::thread::spawn(move || read_limited(stderr, 64 * 1024));

    let deadline = Instant::now() + spec.timeout;
    // Stdout reaching EOF (or the limit) comes first; then the exit status.
    let output = out_rx.recv_timeout(spec.timeout);
    let verdict = match output {
        Err(_) => None,
        Ok(out) if out.len() > MAX_OUTPUT_BYTES => Some(failed(
            name,
            "output_limit",
            format!("Safety checker \"{name}\" produced more than 1 MiB of output"),
        )),
        Ok(out) => match wait_until(&mut child, deadline) {
            None => None,
            Some(status) => {
                // A child of the checker can hold stderr open: end the group before waiting for
                // stderr's end, so the budget holds.
                signal_group(pgid, Signal::SIGKILL);
                let stderr = err_reader.join().unwrap_or_default();
                let write = writer
                    .join()
                    .unwrap_or_else(|_| Err("writer panicked".into()));
                Some(finish(name, status, &stderr, write, &out))
            }
        },
    };
    let verdict = verdict.unwrap_or_else(|| {
        failed(
            name,
            "timeout",
            format!(
                "Safety checker \"{name}\" timed out after {}ms",
                spec.timeout.as_millis()
            ),
        )
    });
    // Whatever happened, nothing of the group outlives the check.
    if verdict.failure == Some("timeout") {
        signal_group(pgid, Signal::SIGTERM);
        if wait_until(&mut child, Instant::now() + spec.kill_grace).is_none() {
            signal_group(pgid, Signal::SIGKILL);
        }
    } else {
        signal_group(pgid, Signal::SIGKILL);
    }
    let _ = child.wait();
    verdict
}

fn finish(
    name: &str,
    status: ExitStatus,
    stderr: &[u8],
    write: Result<(), String>,
    stdout: &[u8],
) -> CheckerVerdict {
    // How the process ended says the most: a checker that exits 2 without reading its input
    // is an exit, not a broken pipe.
    if let Some(v) = status_failure(name, status, stderr) {
        return v;
    }
    if let Err(e) = write {
        return failed(
            name,
            "stdin",
            format!("Failed to write to stdin of safety checker \"{name}\": {e}"),
        );
    }
    match parse_result(stdout) {
        Ok(r) => CheckerVerdict {
            checker: name.to_string(),
            decision: r.decision,
            reason: r.reason,
            failure: None,
        },
        Err(e) => failed(
            name,
            "invalid_output",
            format!("Failed to parse output from safety checker \"{name}\": {e}"),
        ),
    }
}

/// Waits for the child until `deadline`; `None` if it is still running then.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    let mut pause = Duration::from_micros(50);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// A long-lived checker process (`mode = "persistent"`).
struct Running {
    child: Child,
    /// Unregistered only after `Drop` has ended the group (fields drop after `drop` runs).
    _watch: keel_reaper::Watch,
    stdin: ChildStdin,
    lines: LineReader,
    stderr: std::sync::Arc<Mutex<Vec<u8>>>,
    /// Closed when stderr reaches end of file.
    stderr_done: mpsc::Receiver<()>,
}

impl Drop for Running {
    /// However a checker is let go (stopped, replaced, or its keel shutting down), its group
    /// ends before its registration with the reaper does.
    fn drop(&mut self) {
        signal_group(self.child.id(), Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// Makes a pipe end non-blocking, once, when the process starts (setting it before every
/// request was two system calls of each check).
fn set_nonblocking(fd: std::os::fd::BorrowedFd<'_>) -> std::io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = fcntl(fd, FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
    fcntl(fd, FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
    Ok(())
}

/// Writes `bytes` before `deadline` to the checker's stdin, which [`set_nonblocking`] made
/// non-blocking: a full pipe is waited on with poll(2), so a checker that never reads cannot
/// hold keel past its budget.
fn write_within(
    stdin: &mut ChildStdin,
    mut bytes: &[u8],
    deadline: Instant,
) -> std::io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    while !bytes.is_empty() {
        match stdin.write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(std::io::Error::from(std::io::ErrorKind::TimedOut));
                }
                let ms = u16::try_from((deadline - now).as_millis()).unwrap_or(u16::MAX);
                let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLOUT)];
                poll(&mut fds, PollTimeout::from(ms)).map_err(std::io::Error::from)?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// What reading one answer line gave.
enum Answer {
    Complete(Vec<u8>),
    TooLong,
    Eof,
    Timeout,
}

/// How long a check may wait for its answer on the CPU (reading without blocking) before it
/// sleeps in poll(2). A thread that sleeps is woken by the kernel, and on a virtual machine
/// whose idle CPUs halt that wake-up alone took 10–40 µs (`perf sched timehist` on `--bench
/// gate`): two per check, the checker's and this thread's. A checker that answers at once
/// answers within this while the CPU is kept awake, even when its own wake-up is slow (40 µs
/// caught too few of those: p99 49 µs on an idle machine, against 45 µs at 80). The wait
/// does not yield the CPU: under the EEVDF scheduler each `sched_yield` pushes the thread's
/// deadline back a whole slice, and with busy programs on the machine a check then waited
/// milliseconds to run again.
const ANSWER_SPIN: Duration = Duration::from_micros(80);

/// An answer slept for that took longer than this came through a slow wake-up (a whole check,
/// answer included, takes 12 µs in `--bench gate` while the CPUs are awake).
const SLOW_WAKE: Duration = Duration::from_micros(25);

/// Slow answers in a row after which checks wait on the CPU. One is not enough: beside busy
/// programs an answer is now and then slow for want of a CPU, and waiting on the CPU then
/// delays a checker that shares it (with one, two busy loops on the machine made the p99 of
/// `--bench gate` 45–51 µs, against 23 µs with two and 25 µs before the wait).
const SLOW_IN_A_ROW: u8 = 2;

/// Reads a persistent checker's answers on the calling thread: no reader thread, so no extra
/// thread hand-off on the hot path. The pipe is non-blocking ([`set_nonblocking`]); a read
/// waits on the CPU for [`ANSWER_SPIN`] while that pays, then with poll(2).
struct LineReader {
    out: std::process::ChildStdout,
    buf: Vec<u8>,
    /// What one read takes in, zeroed once when the checker starts: a buffer made in the read
    /// loop was zeroed (8 KiB) before every read, and a wait on the CPU reads over and over
    /// (a quarter of keel's instructions per check).
    chunk: Box<[u8; 8192]>,
    /// Whether the next answer is waited for on the CPU: after [`SLOW_IN_A_ROW`] answers
    /// slept for came slowly ([`SLOW_WAKE`]), until one is not in time. Waiting on the CPU
    /// costs a checker that shares it: that checker cannot run until the wait ends (the
    /// scheduler lets the waiting thread run out its turn), so it is stopped as soon as it
    /// fails.
    spin: bool,
    /// Slow answers slept for, in a row.
    slow: u8,
}

impl LineReader {
    fn readable(&self, timeout: Duration) -> Result<bool, ()> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(self.out.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) => Ok(false),
            Ok(_) => Ok(true),
            Err(nix::errno::Errno::EINTR) => Ok(false),
            Err(_) => Err(()),
        }
    }

    fn next_line(&mut self, deadline: Instant) -> Answer {
        let asked = Instant::now();
        let spin_until = if self.spin {
            asked + ANSWER_SPIN
        } else {
            asked
        };
        let mut slept = false;
        loop {
            if let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
                if pos > MAX_OUTPUT_BYTES {
                    return Answer::TooLong;
                }
                if slept && self.spin {
                    self.spin = false;
                } else if slept {
                    self.slow = if asked.elapsed() > SLOW_WAKE {
                        self.slow + 1
                    } else {
                        0
                    };
                    if self.slow >= SLOW_IN_A_ROW {
                        self.spin = true;
                        self.slow = 0;
                    }
                }
                return Answer::Complete(self.buf.drain(..=pos).collect());
            }
            if self.buf.len() > MAX_OUTPUT_BYTES {
                return Answer::TooLong;
            }
            let now = Instant::now();
            if now >= deadline {
                return Answer::Timeout;
            }
            let spinning = now < spin_until;
            if !spinning {
                slept = true;
                match self.readable(deadline - now) {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(()) => return Answer::Eof,
                }
            }
            match self.out.read(&mut self.chunk[..]) {
                Ok(0) => return Answer::Eof,
                Ok(n) => self.buf.extend_from_slice(&self.chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if spinning {
                        std::hint::spin_loop();
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Answer::Eof,
            }
        }
    }

    /// Output nobody asked for is waiting.
    fn has_pending(&mut self) -> bool {
        !self.buf.is_empty() || self.readable(Duration::ZERO) == Ok(true)
    }
}

/// One persistent checker: started on first use, restarted after it dies or times out.
pub struct PersistentChecker {
    spec: CheckerSpec,
    cwd: PathBuf,
    running: Mutex<Option<Running>>,
}

impl PersistentChecker {
    pub fn new(spec: CheckerSpec, cwd: PathBuf) -> Self {
        Self {
            spec,
            cwd,
            running: Mutex::new(None),
        }
    }

    fn start(&self) -> Result<Running, CheckerVerdict> {
        use std::os::fd::AsFd;
        let (mut child, watch) = spawn(&self.spec, &self.cwd)?;
        let name = self.spec.name.clone();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            signal_group(child.id(), Signal::SIGKILL);
            let _ = child.wait();
            return Err(failed(
                &name,
                "spawn",
                format!("Failed to spawn safety checker \"{name}\": no pipes"),
            ));
        };
        if let Err(e) =
            set_nonblocking(stdin.as_fd()).and_then(|()| set_nonblocking(stdout.as_fd()))
        {
            signal_group(child.id(), Signal::SIGKILL);
            let _ = child.wait();
            return Err(failed(
                &name,
                "spawn",
                format!("Failed to spawn safety checker \"{name}\": its pipes: {e}"),
            ));
        }
        let tail = std::sync::Arc::new(Mutex::new(Vec::new()));
        let sink = tail.clone();
        let (done_tx, stderr_done) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let _done = done_tx;
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = sink.lock() {
                    t.extend_from_slice(&buf[..n]);
                    let excess = t.len().saturating_sub(16 * 1024);
                    t.drain(..excess);
                }
            }
        });
        Ok(Running {
            child,
            _watch: watch,
            stdin,
            lines: LineReader {
                out: stdout,
                buf: Vec::new(),
                chunk: Box::new([0; 8192]),
                spin: true,
                slow: 0,
            },
            stderr: tail,
            stderr_done,
        })
    }

    fn stop(&self, mut running: Running, graceful: bool) {
        let pgid = running.child.id();
        if graceful {
            signal_group(pgid, Signal::SIGTERM);
            if wait_until(&mut running.child, Instant::now() + self.spec.kill_grace).is_none() {
                signal_group(pgid, Signal::SIGKILL);
            }
        } else {
            signal_group(pgid, Signal::SIGKILL);
        }
        let _ = running.child.wait();
    }

    /// Runs one check; a fault stops the process, and the next check starts a new one.
    pub fn check(&self, input: &SafetyCheckInput) -> CheckerVerdict {
        let name = self.spec.name.as_str();
        let Ok(mut slot) = self.running.lock() else {
            return failed(
                name,
                "resolution",
                format!("Failed to run safety checker \"{name}\": its lock is poisoned"),
            );
        };
        // A process that died between checks is replaced before it is asked anything.
        if let Some(r) = slot.as_mut()
            && matches!(r.child.try_wait(), Ok(Some(_)))
            && let Some(dead) = slot.take()
        {
            self.stop(dead, false);
        }
        // Output nobody asked for (a second line to an earlier request) means the process is
        // out of step with the protocol: replace it rather than read a stale answer.
        if let Some(r) = slot.as_mut()
            && r.lines.has_pending()
            && let Some(stale) = slot.take()
        {
            self.stop(stale, false);
        }
        let mut running = match slot.take() {
            Some(r) => r,
            None => match self.start() {
                Ok(r) => r,
                Err(v) => return v,
            },
        };
        let mut line = input.to_wire();
        line.push('\n');
        if let Err(e) = write_within(
            &mut running.stdin,
            line.as_bytes(),
            Instant::now() + self.spec.timeout,
        ) {
            if e.kind() == std::io::ErrorKind::TimedOut {
                self.stop(running, true);
                return failed(
                    name,
                    "timeout",
                    format!(
                        "Safety checker \"{name}\" timed out after {}ms",
                        self.spec.timeout.as_millis()
                    ),
                );
            }
            let verdict = self.died(&mut running).unwrap_or_else(|| {
                failed(
                    name,
                    "stdin",
                    format!("Failed to write to stdin of safety checker \"{name}\": {e}"),
                )
            });
            self.stop(running, false);
            return verdict;
        }
        match running.lines.next_line(Instant::now() + self.spec.timeout) {
            Answer::TooLong => {
                self.stop(running, false);
                failed(
                    name,
                    "output_limit",
                    format!("Safety checker \"{name}\" produced more than 1 MiB of output"),
                )
            }
            Answer::Complete(out) => match parse_result(&out) {
                // An answer followed at once by a failing exit counts as the failure, as in
                // spawn mode.
                Ok(_) if matches!(running.child.try_wait(), Ok(Some(s)) if !s.success()) => {
                    let verdict = self.died(&mut running).unwrap_or_else(|| {
                        failed(name, "exit", format!("Safety checker \"{name}\" exited"))
                    });
                    self.stop(running, false);
                    verdict
                }
                Ok(r) => {
                    *slot = Some(running);
                    CheckerVerdict {
                        checker: name.to_string(),
                        decision: r.decision,
                        reason: r.reason,
                        failure: None,
                    }
                }
                Err(e) => {
                    // Out of step with the protocol: start afresh next time.
                    self.stop(running, false);
                    failed(
                        name,
                        "invalid_output",
                        format!("Failed to parse output from safety checker \"{name}\": {e}"),
                    )
                }
            },
            Answer::Eof => {
                let verdict = self.died(&mut running).unwrap_or_else(|| {
                    failed(name, "invalid_output", format!("Failed to parse output from safety checker \"{name}\": it closed stdout without answering"))
                });
                self.stop(running, false);
                verdict
            }
            Answer::Timeout => {
                self.stop(running, true);
                failed(
                    name,
                    "timeout",
                    format!(
                        "Safety checker \"{name}\" timed out after {}ms",
                        self.spec.timeout.as_millis()
                    ),
                )
            }
        }
    }

    /// If the process has exited, why.
    fn died(&self, running: &mut Running) -> Option<CheckerVerdict> {
        let status = wait_until(
            &mut running.child,
            Instant::now() + Duration::from_millis(200),
        )?;
        // Let the stderr reader catch up with what the process wrote before it died.
        let _ = running.stderr_done.recv_timeout(Duration::from_millis(200));
        let stderr = running.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        status_failure(&self.spec.name, status, &stderr).or_else(|| {
            Some(failed(
                &self.spec.name,
                "exit",
                format!(
                    "Safety checker \"{}\" exited with code 0 without answering",
                    self.spec.name
                ),
            ))
        })
    }
}

impl Drop for PersistentChecker {
    fn drop(&mut self) {
        if let Ok(mut slot) = self.running.lock()
            && let Some(running) = slot.take()
        {
            self.stop(running, false);
        }
    }
}
