//! keel-reaper: children that die with keel.
//!
//! Every program keel starts (a shell command, a safety checker, an MCP server, the local model
//! worker) is started as the leader of its own process group, registered with the reaper before
//! the program runs ([`prepare`] then [`adopt`], or [`spawn`] for both), for as long as it may
//! be running. The registrations go, one line
//! each, down a pipe to the *reaper*: a `/bin/sh` that keel starts once, on first use, in a
//! process group of its own. When keel ends, however it ends (an exit, a panic, `kill -9`), the
//! kernel closes the pipe; the reaper reads end-of-file, kills every group still registered with
//! SIGKILL, and exits. A group is unregistered when its [`Watch`] is dropped, which the caller
//! does once the group has been waited for and killed.
//!
//! Why a process and not `PR_SET_PDEATHSIG`: the parent-death signal fires when the *thread*
//! that spawned the child ends (a blocking-pool thread ends after a few idle seconds, taking a
//! long-lived MCP server with it), and it reaches only the direct child, never what a shell
//! command started in the background. Killing the whole group covers both.
//!
//! Why own groups: a terminal's Ctrl-C signals its whole foreground process group. A child in
//! keel's group would die of it on its own (the local model worker did, and the turn was
//! reported as a failed model call); in a group of its own, only keel sees the Ctrl-C and
//! decides what it means (a cancel, exit 130, the run resumable).
//!
//! If the reaper cannot be started or has died, the next [`prepare`] starts a new one and
//! registers every live group with it again; if that fails too it returns the error, and the
//! caller refuses to start the program rather than leave a child that could outlive keel.

use std::collections::BTreeSet;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, IntoRawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The reaper: reads `+PGID` and `-PGID` lines; at end of input kills what is left. Signals a
/// terminal or a process-group kill could send are ignored, so only end of input ends it. Only
/// shell builtins are used, so it needs nothing but `/bin/sh`.
const REAPER_SCRIPT: &str = r#"trap '' INT HUP TERM QUIT PIPE
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) keep=' '
        for g in $groups; do [ "$g" = "${line#-}" ] || keep="$keep$g "; done
        groups=$keep ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
"#;

struct Reaper {
    /// The reaper's input; keel holds the only write end (std opens pipes close-on-exec), so it
    /// closes exactly when keel's process ends.
    input: ChildStdin,
    /// Kept so the reaper is waited for if keel outlives it.
    process: Child,
}

#[derive(Default)]
struct Registry {
    reaper: Option<Reaper>,
    /// Every group registered and not yet released: what a new reaper must be told.
    groups: BTreeSet<u32>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    reaper: None,
    groups: BTreeSet::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A registered process group. Dropping it unregisters the group: do that once the group has
/// ended (its leader waited for, the rest killed), never while it may still run.
#[derive(Debug)]
#[must_use = "a Watch unregisters its group when dropped"]
pub struct Watch {
    pgid: u32,
}

impl Watch {
    /// Kills whatever is left of the group, then unregisters it: for a child whose leader has
    /// been waited for (or killed) while what it started may still run.
    pub fn end(self) {
        // ESRCH (nobody left in the group) is the usual outcome.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.pgid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut registry = registry();
        registry.groups.remove(&self.pgid);
        // A reaper that is gone has nothing to forget; the next registration starts a new one.
        if let Some(reaper) = registry.reaper.as_mut() {
            let _ = writeln!(reaper.input, "-{}", self.pgid);
        }
    }
}

fn cannot_start(e: &std::io::Error) -> std::io::Error {
    std::io::Error::new(
        e.kind(),
        format!("cannot start keel's reaper (/bin/sh), which makes children die with keel: {e}"),
    )
}

/// The descriptor children register themselves through (see [`prepare`]): a close-on-exec
/// duplicate of the running reaper's input, read by the child between fork and exec, where no
/// lock may be taken. A restart stores the new reaper's; the old one is left open on purpose
/// (one descriptor per restart, and restarts are rare), so a child can never write to a
/// number that was closed and reused for something else.
static CHILD_REGISTRATION_FD: AtomicI32 = AtomicI32::new(-1);

/// Starts (or restarts) the reaper unless it is running.
fn live_reaper(registry: &mut Registry) -> std::io::Result<()> {
    let alive = registry
        .reaper
        .as_mut()
        .is_some_and(|r| matches!(r.process.try_wait(), Ok(None)));
    if alive {
        Ok(())
    } else {
        restart(registry).map_err(|e| cannot_start(&e))
    }
}

/// Makes `cmd` start its child as the leader of a new process group (its pgid is its pid)
/// that registers itself with the reaper before it runs the program: between fork and exec,
/// the child writes `+PID` down the reaper's pipe. So there is no moment at which the program
/// runs unregistered, even if keel is killed the instant `spawn` returns. If the registration
/// cannot be written (the reaper died since), the child does not run and `spawn` fails.
/// After spawning, call [`adopt`] with the child's pid.
pub fn prepare(cmd: &mut Command) -> std::io::Result<&mut Command> {
    use std::os::unix::process::CommandExt;
    live_reaper(&mut registry())?;
    cmd.process_group(0);
    // SAFETY: between fork and exec only async-signal-safe calls may run. This closure
    // allocates nothing (the line is formatted into a stack buffer), takes no lock (the
    // descriptor is an atomic) and makes only the system calls getpid, sigaction and write.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(register_self);
    }
    Ok(cmd)
}

/// In the child, before exec: `+PID\n` to the reaper. SIGPIPE is ignored around the write so
/// a reaper that died makes the write fail (and the spawn with it) instead of killing the
/// child silently, and restored after, since an ignored disposition would outlive exec.
fn register_self() -> std::io::Result<()> {
    use nix::sys::signal::{SigHandler, Signal, signal};
    let mut line = [0u8; 16];
    let mut digits = [0u8; 10];
    let mut pid = nix::unistd::getpid().as_raw().unsigned_abs();
    let mut n = 0;
    loop {
        digits[n] = b'0' + (pid % 10) as u8;
        n += 1;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    line[0] = b'+';
    for i in 0..n {
        line[1 + i] = digits[n - 1 - i];
    }
    line[1 + n] = b'\n';
    let len = n + 2;
    // SAFETY: setting a signal's disposition to ignore or default installs no handler.
    #[allow(unsafe_code)]
    let previous = unsafe { signal(Signal::SIGPIPE, SigHandler::SigIgn) };
    let fd = CHILD_REGISTRATION_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return Err(std::io::Error::other("keel's reaper is not running"));
    }
    // SAFETY: the descriptor is never closed (see CHILD_REGISTRATION_FD).
    #[allow(unsafe_code)]
    let reaper = unsafe { BorrowedFd::borrow_raw(fd) };
    let written = nix::unistd::write(reaper, &line[..len]);
    // SAFETY: as above.
    #[allow(unsafe_code)]
    unsafe {
        let _ = signal(Signal::SIGPIPE, previous.unwrap_or(SigHandler::SigDfl));
    }
    match written {
        Ok(w) if w == len => Ok(()),
        Ok(_) => Err(std::io::Error::other("short write to keel's reaper")),
        Err(e) => Err(std::io::Error::from(e)),
    }
}

/// The [`Watch`] of a child started from a command [`prepare`]d for it (its pid is its
/// pgid). The child registered itself; keel records the group too, so a reaper started later
/// (after this one died) hears of it, and so the [`Watch`] can unregister it.
pub fn adopt(pgid: u32) -> Watch {
    let mut registry = registry();
    registry.groups.insert(pgid);
    if let Some(reaper) = registry.reaper.as_mut() {
        // Failing here means the reaper died; the next `prepare` starts one that hears of
        // every group in the set, this one included.
        let _ = writeln!(reaper.input, "+{pgid}");
    }
    Watch { pgid }
}

fn restart(registry: &mut Registry) -> std::io::Result<()> {
    if let Some(mut old) = registry.reaper.take() {
        // Killed, not closed: a reaper that read end of input would kill the groups that the
        // new one is about to be told of.
        let _ = old.process.kill();
        let _ = old.process.wait();
    }
    let mut process = Command::new("/bin/sh")
        .arg("-c")
        .arg(REAPER_SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/")
        .process_group(0)
        .spawn()?;
    let Some(mut input) = process.stdin.take() else {
        return Err(std::io::Error::other("the reaper's input pipe is missing"));
    };
    // Duplicated close-on-exec, like the original.
    let for_children = input.as_fd().try_clone_to_owned()?;
    let mut lines = String::new();
    for g in &registry.groups {
        lines.push_str(&format!("+{g}\n"));
    }
    input.write_all(lines.as_bytes())?;
    CHILD_REGISTRATION_FD.store(for_children.into_raw_fd(), Ordering::SeqCst);
    registry.reaper = Some(Reaper { input, process });
    Ok(())
}

/// The reaper's pid, if one is running: for tests and diagnostics.
pub fn reaper_pid() -> Option<u32> {
    registry().reaper.as_ref().map(|r| r.process.id())
}

/// Starts `cmd` as a watched group of its own: [`prepare`], spawn, [`adopt`]. A reaper that
/// died between the check and the child's registration shows as a broken pipe (no exec can
/// fail that way); the reaper is then restarted and the spawn tried once more.
pub fn spawn(cmd: &mut Command) -> std::io::Result<(Child, Watch)> {
    let child = match prepare(cmd)?.spawn() {
        Err(e) if e.raw_os_error() == Some(nix::libc::EPIPE) => {
            restart(&mut registry()).map_err(|e| cannot_start(&e))?;
            // The registration step already installed reads the new reaper's descriptor.
            cmd.spawn()?
        }
        other => other?,
    };
    let watch = adopt(child.id());
    Ok((child, watch))
}
