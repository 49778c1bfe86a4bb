//! The file system as the path checkers see it: `std::fs` canonicalization
//! ([`StdResolver`]), and one decision's answers asked once ([`DecisionFs`]). The allowed-path
//! and guarded-paths checkers resolve the same paths, and on a virtual machine each system
//! call costs about as much as the rest of a decision, so a decision looks at each entry once
//! (one `lstat` answers "missing?", "a link?" and "other names?") and resolves a path under a
//! directory whose canonical form the gate already knows by looking only at the components
//! below it. Those looks start from the directory itself (a descriptor the gate holds), not
//! from `/`: on a virtual machine the kernel's walk of each leading component is a sixth of
//! a look, and a decision makes three. The first, whether the directory's path still names it,
//! is a question to the kernel about the process's working directory when the session works
//! there (`keel run` in a folder), which walks no path at all.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use keel_policy::paths::{PathResolver, ResolveError};

/// `std::fs` canonicalization for the allowed-path checker.
pub struct StdResolver;

fn resolve_error(e: &std::io::Error) -> ResolveError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ResolveError::NotFound,
        _ => ResolveError::Other(e.to_string()),
    }
}

impl PathResolver for StdResolver {
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ResolveError> {
        std::fs::canonicalize(path).map_err(|e| resolve_error(&e))
    }

    fn read_link(&self, path: &Path) -> Option<PathBuf> {
        std::fs::read_link(path).ok()
    }

    fn has_other_names(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
    }

    fn missing_or_not_a_link(&self, path: &Path) -> Result<Option<bool>, ResolveError> {
        match std::fs::symlink_metadata(path) {
            Ok(meta) => Ok(Some(!meta.file_type().is_symlink())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Some(true)),
            Err(e) => Err(ResolveError::Other(e.to_string())),
        }
    }
}

/// What one `lstat` said of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    Missing,
    Link,
    Dir,
    File {
        links: u64,
    },
    /// A socket, a device, a FIFO.
    Special,
    Unreadable(String),
}

/// Answers by path, in the order they were asked: a decision looks at a handful of paths, so
/// a list is searched rather than a map hashed.
type Remembered<T> = Mutex<Vec<(PathBuf, T)>>;

/// `path`'s answer in `seen`, asked of `ask` the first time.
fn remembered<T: Clone>(seen: &Remembered<T>, path: &Path, ask: impl FnOnce() -> T) -> T {
    let Ok(mut seen) = seen.lock() else {
        return ask();
    };
    // Compared as bytes: `Path`'s equality walks both paths' components, and a path spelled
    // another way (`a//b`) is only asked again, with the same answer.
    let bytes = path.as_os_str().as_encoded_bytes();
    if let Some((_, answer)) = seen
        .iter()
        .find(|(p, _)| p.as_os_str().as_encoded_bytes() == bytes)
    {
        return answer.clone();
    }
    let answer = ask();
    seen.push((path.to_path_buf(), answer.clone()));
    answer
}

/// A directory as given (the session's cwd, a workspace) with its canonical form and which
/// directory that is (device and inode), resolved when the gate was made, and a descriptor
/// of it (`O_PATH`: it grants no reading) that entries below it are looked at from.
#[derive(Clone, Debug)]
pub struct KnownDir {
    given: PathBuf,
    canonical: PathBuf,
    id: (u64, u64),
    handle: std::sync::Arc<std::os::fd::OwnedFd>,
    /// When the process's working directory was this directory, given by its canonical path,
    /// when the gate was made (`keel run` in a folder): a watch on the mount table, and then
    /// the kernel's answer to "where is the working directory now" ([`std::env::current_dir`],
    /// no walk of the path) says whether the path still names it ([`DecisionFs::unchanged`]).
    in_process_cwd: Option<std::sync::Arc<MountWatch>>,
}

/// Whether the mount table has changed since the gate was made: `/proc/self/mountinfo`, which
/// the kernel marks (`POLLPRI`) at each mount and unmount. The working directory's path stays
/// the same under a mount over it (or over a folder above it) while the path names the
/// mounted file system from then on, so after any change the path is looked up again.
#[derive(Debug)]
struct MountWatch {
    table: std::fs::File,
    /// Once a change was seen (a poll reports it once): the path is looked up from then on.
    changed: std::sync::atomic::AtomicBool,
}

impl MountWatch {
    fn new() -> Option<Self> {
        Some(Self {
            table: std::fs::File::open("/proc/self/mountinfo").ok()?,
            changed: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Whether the mount table may have changed since the watch began.
    fn changed(&self) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        use std::sync::atomic::Ordering;
        if self.changed.load(Ordering::Acquire) {
            return true;
        }
        let mut fds = [PollFd::new(self.table.as_fd(), PollFlags::POLLPRI)];
        let quiet = matches!(poll(&mut fds, PollTimeout::ZERO), Ok(0));
        if !quiet {
            self.changed.store(true, Ordering::Release);
        }
        !quiet
    }
}

impl KnownDir {
    /// `given` resolved now; `None` when it is not a directory that can be resolved.
    /// Which directory `given` named then: its device and inode.
    pub fn id(&self) -> (u64, u64) {
        self.id
    }

    pub fn given(&self) -> &Path {
        &self.given
    }

    pub fn of(given: &Path) -> Option<Self> {
        use nix::fcntl::OFlag;
        let canonical = std::fs::canonicalize(given).ok()?;
        let handle = nix::fcntl::open(
            &canonical,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            nix::sys::stat::Mode::empty(),
        )
        .ok()?;
        // The identity is the descriptor's, so the two cannot name different directories.
        let stat = nix::sys::stat::fstat(&handle).ok()?;
        #[allow(clippy::useless_conversion)] // `dev_t` and `ino_t` differ in width by target.
        let id = (u64::from(stat.st_dev), u64::from(stat.st_ino));
        // Only a directory given by its canonical path can be the working directory's
        // (`getcwd` answers canonically): any other (a workspace given through a link, most
        // known directories) opens no watch. Then the watch before the working directory's
        // checks: a mount made after it is seen, one made before it is under those checks.
        let in_process_cwd = (given.as_os_str() == canonical.as_os_str())
            .then(MountWatch::new)
            .flatten()
            .filter(|_| {
                dir_id(Path::new(".")) == Some(id)
                    && std::env::current_dir()
                        .is_ok_and(|cwd| cwd.as_os_str() == canonical.as_os_str())
            })
            .map(std::sync::Arc::new);
        Some(Self {
            given: given.to_path_buf(),
            canonical,
            id,
            handle: std::sync::Arc::new(handle),
            in_process_cwd,
        })
    }

    /// Whether the process still works in this directory at the path it was given, with the
    /// mount table as it was ([`DecisionFs::unchanged`]): `false` says only that the path must
    /// be looked up.
    fn still_worked_in(&self) -> bool {
        self.in_process_cwd.as_ref().is_some_and(|watch| {
            !watch.changed()
                && std::env::current_dir()
                    .is_ok_and(|cwd| cwd.as_os_str() == self.canonical.as_os_str())
        })
    }

    /// What of `path` lies below this directory as given or in its canonical form, without
    /// leading `/`; `None` when it lies in neither or names the directory itself (whose own
    /// entry may be a link, which a look from inside it would not see).
    fn below<'p>(&self, path: &'p [u8]) -> Option<&'p [u8]> {
        [&self.given, &self.canonical].into_iter().find_map(|dir| {
            let rest = keel_policy::paths::below(path, dir)?;
            let rest = &rest[rest.iter().take_while(|&&b| b == b'/').count()..];
            (!rest.is_empty()).then_some(rest)
        })
    }
}

/// The device and inode of the directory `path` names (links followed).
fn dir_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    meta.is_dir().then(|| (meta.dev(), meta.ino()))
}

/// One decision's file-system answers, each asked of the OS once. Every answer is the one
/// [`StdResolver`] gives; only how many system calls it takes differs.
pub struct DecisionFs<'a> {
    known: &'a [KnownDir],
    canonical: Remembered<Result<PathBuf, ResolveError>>,
    entries: Remembered<Entry>,
    /// Whether each known directory's given path still names the same directory (one look
    /// per decision: a directory swapped for a link since is resolved by the OS).
    unchanged: Remembered<bool>,
}

impl<'a> DecisionFs<'a> {
    pub fn new(known: &'a [KnownDir]) -> Self {
        Self {
            known,
            canonical: Mutex::default(),
            entries: Mutex::default(),
            unchanged: Mutex::default(),
        }
    }

    /// Whether `known`'s given path still names the directory it named when the gate was
    /// made (one look per decision).
    ///
    /// When the process works in that directory, asking the kernel where the working
    /// directory is now costs a third of a `stat` of its path (no walk of the path's
    /// components), and the same path says the path names it: the working directory follows
    /// the directory wherever it is moved (keel never changes it), so a directory moved away
    /// and replaced is somewhere else, and its path is looked up like any other. So is it
    /// after any change to the mount table ([`MountWatch`]). (A program embedding keel that
    /// changes its working directory into a replacement at the same path is not seen: make
    /// the gate again after changing it.) Entries below are looked at from the descriptor
    /// either way.
    fn unchanged(&self, known: &KnownDir) -> bool {
        remembered(&self.unchanged, &known.given, || {
            known.still_worked_in() || dir_id(&known.given) == Some(known.id)
        })
    }

    fn entry(&self, path: &Path) -> Entry {
        remembered(&self.entries, path, || {
            if let Some(entry) = self.entry_from_known(path) {
                return entry;
            }
            match std::fs::symlink_metadata(path) {
                Ok(meta) => {
                    use std::os::unix::fs::MetadataExt;
                    let kind = meta.file_type();
                    if kind.is_symlink() {
                        Entry::Link
                    } else if kind.is_dir() {
                        Entry::Dir
                    } else if kind.is_file() {
                        Entry::File {
                            links: meta.nlink(),
                        }
                    } else {
                        Entry::Special
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Entry::Missing,
                Err(e) => Entry::Unreadable(e.to_string()),
            }
        })
    }

    /// `path`'s entry looked at from a known directory it lies below, when that directory's
    /// given path still names it: what `lstat` of the whole path would say, with the walk of
    /// the directory's own components left out. `None` for any other path.
    fn entry_from_known(&self, path: &Path) -> Option<Entry> {
        use nix::fcntl::AtFlags;
        use nix::sys::stat::{SFlag, fstatat};
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        let (known, rest) = self.known.iter().find_map(|k| Some((k, k.below(bytes)?)))?;
        if !self.unchanged(known) {
            return None;
        }
        let rest = std::ffi::OsStr::from_bytes(rest);
        Some(
            match fstatat(&*known.handle, rest, AtFlags::AT_SYMLINK_NOFOLLOW) {
                Ok(stat) => match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
                    SFlag::S_IFLNK => Entry::Link,
                    SFlag::S_IFDIR => Entry::Dir,
                    // `nlink_t` is 32 bits wide on some targets.
                    #[allow(clippy::useless_conversion)]
                    SFlag::S_IFREG => Entry::File {
                        links: u64::from(stat.st_nlink),
                    },
                    _ => Entry::Special,
                },
                Err(nix::errno::Errno::ENOENT) => Entry::Missing,
                Err(e) => Entry::Unreadable(std::io::Error::from(e).to_string()),
            },
        )
    }

    /// `path` canonicalized from a known directory it lies under, when every component below
    /// that directory is a plain entry (the ones before the last, directories): then the
    /// canonical form is the directory's with those components appended, as `realpath` would
    /// find it one `readlink` per component from the root. `None` for anything else (a link,
    /// `..`, a missing component), which the OS resolves.
    fn canonical_under_known(&self, path: &Path) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        // Compared as bytes, which costs a fraction of `Path::starts_with`: a path spelled
        // another way (`//`, `./`) is left to the OS, which answers the same.
        let bytes = path.as_os_str().as_bytes();
        let (known, below) = self
            .known
            .iter()
            .find_map(|k| Some((k, keel_policy::paths::below(bytes, &k.given)?)))?;
        // A trailing `/` asks for a directory (a file there is an error): the OS's to judge.
        if !self.unchanged(known) || below.ends_with(b"/") || below.ends_with(b"/.") {
            return None;
        }
        let mut out = known.canonical.clone();
        let mut names = below
            .split(|&b| b == b'/')
            .filter(|n| !n.is_empty() && *n != b".")
            .peekable();
        while let Some(name) = names.next() {
            if name == b".." {
                return None;
            }
            out.push(std::ffi::OsStr::from_bytes(name));
            let last = names.peek().is_none();
            match self.entry(&out) {
                Entry::Dir => {}
                Entry::File { .. } | Entry::Special if last => {}
                _ => return None,
            }
        }
        Some(out)
    }
}

impl PathResolver for DecisionFs<'_> {
    fn directory_replaced(&self, dir: &Path) -> bool {
        self.known
            .iter()
            .find(|k| k.given == dir)
            .is_some_and(|k| !self.unchanged(k))
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ResolveError> {
        remembered(&self.canonical, path, || {
            match self.canonical_under_known(path) {
                Some(canonical) => Ok(canonical),
                None => StdResolver.canonicalize(path),
            }
        })
    }

    fn read_link(&self, path: &Path) -> Option<PathBuf> {
        match self.entry(path) {
            Entry::Link => std::fs::read_link(path).ok(),
            _ => None,
        }
    }

    fn has_other_names(&self, path: &Path) -> bool {
        match self.entry(path) {
            // An entry that is no link is what `stat` would read too.
            Entry::File { links } => links > 1,
            Entry::Link => StdResolver.has_other_names(path),
            Entry::Missing | Entry::Dir | Entry::Special | Entry::Unreadable(_) => false,
        }
    }

    fn missing_or_not_a_link(&self, path: &Path) -> Result<Option<bool>, ResolveError> {
        match self.entry(path) {
            Entry::Link => Ok(Some(false)),
            Entry::Unreadable(e) => Err(ResolveError::Other(e)),
            Entry::Missing | Entry::Dir | Entry::File { .. } | Entry::Special => Ok(Some(true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// Every answer a decision's resolver gives, next to the plain `std::fs` one.
    fn answers(fs: &dyn PathResolver, path: &Path) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            fs.canonicalize(path),
            fs.read_link(path),
            fs.has_other_names(path),
            fs.missing_or_not_a_link(path)
        )
    }

    #[test]
    fn a_decision_answers_as_the_file_system_does() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let real = dir.path().join("real");
        let work = real.join("work");
        std::fs::create_dir_all(work.join("notes/deep"))?;
        std::fs::write(work.join("notes/a.md"), "a")?;
        std::fs::hard_link(work.join("notes/a.md"), work.join("twin.md"))?;
        std::fs::write(dir.path().join("outside.txt"), "o")?;
        symlink(dir.path(), work.join("escape"))?;
        symlink(dir.path().join("outside.txt"), work.join("notes/link.txt"))?;
        symlink(dir.path().join("nowhere"), work.join("dangling"))?;
        // The cwd as given through a link, as a user's shell may have it.
        let given = dir.path().join("via");
        symlink(&work, &given)?;
        let known: Vec<KnownDir> = KnownDir::of(&given).into_iter().collect();
        assert_eq!(known.len(), 1);
        for rel in [
            "",
            "notes",
            "notes/a.md",
            "notes/missing.md",
            "notes/deep",
            "notes/deep/../a.md",
            "twin.md",
            "escape",
            "escape/outside.txt",
            "notes/link.txt",
            "dangling",
            "missing/x.md",
            "notes/a.md/x",
            "./notes/a.md",
            "notes//a.md",
            "notes/a.md/",
            "escape/",
            "../outside.txt",
            "notes/../../outside.txt",
            " notes",
        ] {
            // Below the directory as given and in its canonical form (looked at from the
            // directory's descriptor), and beside it (looked at from `/`).
            for path in [given.join(rel), work.join(rel), real.join(rel)] {
                let fs = DecisionFs::new(&known);
                // Asked twice, from a fresh resolver and a used one.
                for _ in 0..2 {
                    assert_eq!(answers(&fs, &path), answers(&StdResolver, &path), "{rel}");
                }
            }
        }
        Ok(())
    }

    #[test]
    fn a_known_directory_swapped_for_a_link_is_resolved_by_the_os() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(work.join("notes"))?;
        std::fs::create_dir_all(elsewhere.join("notes"))?;
        let known: Vec<KnownDir> = KnownDir::of(&work).into_iter().collect();
        assert!(!DecisionFs::new(&known).directory_replaced(&work));
        // After the gate was made, the folder moves away and a link takes its place.
        std::fs::rename(&work, dir.path().join("moved"))?;
        symlink(&elsewhere, &work)?;
        let path = work.join("notes/new.md");
        let fs = DecisionFs::new(&known);
        let canonical = fs.canonicalize(&work.join("notes"));
        assert_eq!(canonical, StdResolver.canonicalize(&work.join("notes")));
        assert!(
            canonical
                .as_ref()
                .is_ok_and(|c| c.starts_with(std::fs::canonicalize(&elsewhere).unwrap_or_default())),
            "{canonical:?}"
        );
        assert_eq!(answers(&fs, &path), answers(&StdResolver, &path));
        // A call that takes no path would act in `elsewhere`: the gate is told.
        assert!(fs.directory_replaced(&work));
        std::fs::remove_file(&work)?;
        assert!(DecisionFs::new(&known).directory_replaced(&work), "deleted");
        Ok(())
    }

    /// One decision asks about a path spelled several ways (`dl/`, `dl/.`, `./dl`, `dl`): each
    /// is remembered under its own spelling, since a trailing `/` follows a link that the bare
    /// name does not (a dangling `dl` is missing as `dl/`, and a link as `dl`).
    #[test]
    fn each_spelling_of_a_path_is_answered_as_written() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let work = std::fs::canonicalize(dir.path())?.join("work");
        std::fs::create_dir_all(work.join("d"))?;
        symlink(dir.path().join("nowhere/job"), work.join("dl"))?;
        symlink(work.join("d"), work.join("linked"))?;
        let known: Vec<KnownDir> = KnownDir::of(&work).into_iter().collect();
        let fs = DecisionFs::new(&known);
        for rel in [
            "dl/", "dl/.", "./dl", "dl", "dl/", "linked/", "linked/.", "linked", "d/", "d",
        ] {
            let path = work.join(rel);
            assert_eq!(answers(&fs, &path), answers(&StdResolver, &path), "{rel}");
        }
        Ok(())
    }

    /// The directory a child test process works in, set by its parent.
    const CHILD_DIR: &str = "KEEL_FS_ANSWERS_CWD_CHILD";

    /// The process's working directory is process-wide, so the test that works in the known
    /// directory runs alone in a child process started in it (this test binary again).
    #[test]
    fn a_known_directory_the_process_works_in() -> std::io::Result<()> {
        if let Some(dir) = std::env::var_os(CHILD_DIR) {
            return in_the_working_directory(Path::new(&dir));
        }
        let dir = tempfile::tempdir()?;
        let dir_path = std::fs::canonicalize(dir.path())?;
        let work = dir_path.join("work");
        std::fs::create_dir_all(work.join("notes/deep"))?;
        std::fs::create_dir_all(dir_path.join("elsewhere/notes"))?;
        std::fs::write(work.join("notes/a.md"), "a")?;
        std::fs::write(dir_path.join("outside.txt"), "o")?;
        symlink(&dir_path, work.join("escape"))?;
        symlink(dir_path.join("outside.txt"), work.join("notes/link.txt"))?;
        run_child(
            std::process::Command::new(std::env::current_exe()?),
            &dir_path,
        )
    }

    /// Runs [`a_known_directory_the_process_works_in`] in a child working in `dir/work`, by
    /// `launch` (this test binary, or a program that starts it), and asserts it passed.
    fn run_child(mut launch: std::process::Command, dir: &Path) -> std::io::Result<()> {
        let out = launch
            .args([
                "--exact",
                "fs_answers::tests::a_known_directory_the_process_works_in",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir)
            .current_dir(dir.join("work"))
            .output()?;
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The child ran the test rather than filtering it out.
        assert!(said.contains("1 passed"), "{said}");
        Ok(())
    }

    /// In a process working in `dir/work`: answers are the file system's, looked at from the
    /// working directory, until the directory is moved away and something takes its place.
    fn in_the_working_directory(dir: &Path) -> std::io::Result<()> {
        let work = dir.join("work");
        let known: Vec<KnownDir> = KnownDir::of(&work).into_iter().collect();
        assert!(known.iter().all(KnownDir::still_worked_in), "{known:?}");
        // The same directory given through a link or with a `.` is not the working
        // directory's path (`getcwd` answers canonically): it opens no watch, and is looked up
        // as any other known directory.
        let alias = dir.join("alias-of-work");
        symlink(&work, &alias)?;
        for other in [alias.clone(), work.join(".")] {
            let other = KnownDir::of(&other).expect("the same directory");
            assert_eq!(other.id(), known[0].id());
            assert!(other.in_process_cwd.is_none(), "{other:?}");
        }
        std::fs::remove_file(&alias)?;
        if std::env::var_os(CHILD_MOUNTS).is_some() {
            return a_mount_over_it(dir, &known);
        }
        let paths = [
            "notes",
            "notes/a.md",
            "notes/missing.md",
            "notes/deep/../a.md",
            "escape/outside.txt",
            "notes/link.txt",
            "notes/a.md/",
            "missing/x.md",
        ];
        for rel in paths {
            let fs = DecisionFs::new(&known);
            let path = work.join(rel);
            assert_eq!(answers(&fs, &path), answers(&StdResolver, &path), "{rel}");
        }
        // Moved away, with a link to another folder in its place: the working directory went
        // with it, so the path is looked at by `stat`, which says it names another directory.
        std::fs::rename(&work, dir.join("moved"))?;
        symlink(dir.join("elsewhere"), &work)?;
        let fs = DecisionFs::new(&known);
        assert!(fs.directory_replaced(&work));
        for rel in paths {
            let path = work.join(rel);
            assert_eq!(
                answers(&fs, &path),
                answers(&StdResolver, &path),
                "{rel} replaced"
            );
        }
        // A link back to the directory itself names it again, looked at from the descriptor.
        std::fs::remove_file(&work)?;
        symlink(dir.join("moved"), &work)?;
        let fs = DecisionFs::new(&known);
        assert!(!known[0].still_worked_in());
        assert!(!fs.directory_replaced(&work));
        Ok(())
    }

    /// Set for a child that may mount (in a mount namespace of its own).
    const CHILD_MOUNTS: &str = "KEEL_FS_ANSWERS_CWD_MOUNTS";

    /// A file system mounted over the working directory after the gate was made: the
    /// working directory's path is the same, but the path names the mounted one, which the
    /// mount table's watch sends to `stat`.
    fn a_mount_over_it(dir: &Path, known: &[KnownDir]) -> std::io::Result<()> {
        let work = dir.join("work");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "tmpfs"])
            .arg(&work)
            .status()?;
        assert!(mounted.success(), "mount");
        assert_eq!(
            std::env::current_dir()?,
            work,
            "the working directory's path is unchanged under the mount"
        );
        assert!(!known[0].still_worked_in());
        assert!(DecisionFs::new(known).directory_replaced(&work));
        Ok(())
    }

    /// Where the machine lets a test mount in a namespace of its own (`unshare -m` as root,
    /// `unshare -rm` otherwise), the child above is run again there and mounts over the
    /// directory. A machine that lets no test mount says so and checks nothing more.
    #[test]
    fn a_mount_over_the_working_directory_is_seen() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let dir_path = std::fs::canonicalize(dir.path())?;
        let work = dir_path.join("work");
        std::fs::create_dir_all(work.join("notes"))?;
        let ours = ["-m"];
        let user = ["-rm"];
        for flags in [&ours[..], &user[..]] {
            let probe = std::process::Command::new("unshare")
                .args(flags)
                .arg("true")
                .status();
            if !probe.is_ok_and(|s| s.success()) {
                continue;
            }
            let mut launch = std::process::Command::new("unshare");
            launch
                .args(flags)
                .arg(std::env::current_exe()?)
                .env(CHILD_MOUNTS, "1");
            return run_child(launch, &dir_path);
        }
        eprintln!("this machine lets no test mount (unshare -m, unshare -rm): not checked here");
        Ok(())
    }
}
