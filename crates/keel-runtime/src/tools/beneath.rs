//! The file tools' reads and writes under the working directory, resolved by the kernel
//! beneath it (`openat2` with `RESOLVE_BENEATH`): the gate resolved the path when it decided,
//! and a symbolic link swapped in since (a folder exchanged for a link to another one, by a
//! process racing the run) cannot take the read or the write out of the directory. A link may
//! still point anywhere beneath it; `..` cannot climb above it; `/proc`'s magic links are not
//! followed. Found by an outsider's attack: 35 of 150 raced writes landed outside.
//!
//! Folders a write needs are made one at a time, each beneath the one before, so none is made
//! through a link either. Where the kernel has no `openat2` (before Linux 5.6) the tools read
//! and write the path as given, as they did before; a path outside the working directory (an
//! allowed workspace) is read and written as given too.

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, open, openat2};
use nix::sys::stat::{Mode, mkdirat};

/// How a read or a write beneath the working directory went.
pub enum Beneath<T> {
    Done(T),
    /// The kernel cannot resolve beneath a directory: do it the plain way.
    Unsupported,
}

fn how(flags: OFlag, mode: Mode) -> OpenHow {
    OpenHow::new()
        .flags(flags | OFlag::O_CLOEXEC)
        .mode(mode)
        .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS)
}

/// [`how`], following no link at all: for a path already resolved.
fn how_resolved(flags: OFlag, mode: Mode) -> OpenHow {
    how(flags, mode).resolve(
        ResolveFlag::RESOLVE_BENEATH
            | ResolveFlag::RESOLVE_NO_MAGICLINKS
            | ResolveFlag::RESOLVE_NO_SYMLINKS,
    )
}

/// The kernel refuses every absolute link beneath a directory (`RESOLVE_BENEATH`), even one
/// that points back inside (`notes -> /work/ws/docs`). Such a path is resolved here instead,
/// and opened as resolved with no link followed at all, so a link swapped in after this
/// resolution still fails the open; what resolves outside is refused. (A write's missing
/// folders are made beneath the deepest folder there is, resolved.)
fn through_absolute_links(
    cwd: &Path,
    expected: Option<(u64, u64)>,
    path: &Path,
    flags: OFlag,
    mode: Mode,
) -> Result<OwnedFd, String> {
    let io = |e: std::io::Error| e.to_string();
    let canonical_cwd = std::fs::canonicalize(cwd).map_err(io)?;
    let dir = root(&canonical_cwd, expected)?;
    // A file there is resolved whole (a link to a file inside is written through); only a new
    // one is resolved from its folder.
    let existing_file = std::fs::canonicalize(path).ok();
    let canonical = if let Some(file) = existing_file {
        file
    } else if flags.contains(OFlag::O_CREAT) {
        // The deepest folder there is, resolved; the missing ones below it are made beneath.
        let name = path.file_name().ok_or_else(|| io(Errno::EISDIR.into()))?;
        let mut existing = path.parent().unwrap_or(cwd).to_path_buf();
        let mut missing = Vec::new();
        while !existing.exists() {
            match (existing.file_name(), existing.parent()) {
                (Some(n), Some(up)) => {
                    missing.push(n.to_os_string());
                    existing = up.to_path_buf();
                }
                _ => break,
            }
        }
        let mut folder = std::fs::canonicalize(&existing).map_err(io)?;
        folder.extend(missing.iter().rev());
        let rel_folder = folder
            .strip_prefix(&canonical_cwd)
            .map_err(|_| said(Errno::EXDEV))?;
        make_folders(&dir, rel_folder).map_err(said)?;
        folder.join(name)
    } else {
        return Err(io(std::io::ErrorKind::NotFound.into()));
    };
    let rel = canonical
        .strip_prefix(&canonical_cwd)
        .map_err(|_| said(Errno::EXDEV))?;
    openat2(&dir, rel, how_resolved(flags, mode)).map_err(said)
}

/// What went wrong, said for the model and the person.
fn said(e: Errno) -> String {
    match e {
        // The callers name the path.
        Errno::EXDEV => "refused: the path leads out of the working directory through a \
                         symbolic link (it changed after keel checked the call)"
            .to_string(),
        Errno::ELOOP => "refused: a symbolic link on the path loops, or changed after keel \
                         checked the call"
            .to_string(),
        e => std::io::Error::from(e).to_string(),
    }
}

/// `path` relative to `cwd`, when it lies under it.
fn relative<'p>(cwd: &Path, path: &'p Path) -> Option<&'p Path> {
    path.strip_prefix(cwd)
        .ok()
        .filter(|r| !r.as_os_str().is_empty())
}

/// The working directory, opened; when `expected` says which directory it must be (device,
/// inode), any other is refused: the name may have been swapped for a link since the gate
/// decided.
fn root(cwd: &Path, expected: Option<(u64, u64)>) -> Result<OwnedFd, String> {
    let dir = open(
        cwd,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| format!("{}: {}", cwd.display(), std::io::Error::from(e)))?;
    if let Some(expected) = expected {
        let st = nix::sys::stat::fstat(&dir)
            .map_err(|e| format!("{}: {}", cwd.display(), std::io::Error::from(e)))?;
        if (st.st_dev, st.st_ino) != expected {
            return Err(format!(
                "refused: the working directory {} is no longer the directory this run started in (moved, deleted or replaced by a link)",
                cwd.display()
            ));
        }
    }
    Ok(dir)
}

/// Whether this kernel has `openat2`: asked once.
fn supported() -> bool {
    static SUPPORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        !matches!(
            openat2(
                nix::fcntl::AT_FDCWD,
                "/",
                how(OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty())
            ),
            Err(Errno::ENOSYS | Errno::EPERM)
        )
    })
}

/// Reads the file at `path` (under `cwd`) resolved beneath `cwd`.
pub fn read(
    cwd: &Path,
    expected: Option<(u64, u64)>,
    path: &Path,
) -> Beneath<Result<Vec<u8>, String>> {
    let Some(rel) = relative(cwd, path).filter(|_| supported()) else {
        return Beneath::Unsupported;
    };
    let read = || -> Result<Vec<u8>, String> {
        let dir = root(cwd, expected)?;
        let fd = match openat2(&dir, rel, how(OFlag::O_RDONLY, Mode::empty())) {
            Ok(fd) => fd,
            Err(Errno::EXDEV) => {
                through_absolute_links(cwd, expected, path, OFlag::O_RDONLY, Mode::empty())?
            }
            Err(e) => return Err(said(e)),
        };
        let mut bytes = Vec::new();
        std::fs::File::from(fd)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        Ok(bytes)
    };
    Beneath::Done(read())
}

/// Writes `text` to `path` (under `cwd`), making its folders, every step resolved beneath
/// `cwd`.
pub fn write(
    cwd: &Path,
    expected: Option<(u64, u64)>,
    path: &Path,
    text: &[u8],
) -> Beneath<Result<(), String>> {
    let Some(rel) = relative(cwd, path).filter(|_| supported()) else {
        return Beneath::Unsupported;
    };
    let write = || -> Result<(), String> {
        let dir = root(cwd, expected)?;
        let (flags, mode) = (
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_TRUNC,
            Mode::from_bits_truncate(0o666),
        );
        // The file first: its folders are made only when one is missing (the open says so),
        // not walked one open at a time before every write (four system calls a write).
        let opened = match (openat2(&dir, rel, how(flags, mode)), rel.parent()) {
            (Err(Errno::ENOENT), Some(parent)) if !parent.as_os_str().is_empty() => {
                make_folders(&dir, parent).and_then(|()| openat2(&dir, rel, how(flags, mode)))
            }
            (opened, _) => opened,
        };
        let fd = match opened {
            Ok(fd) => fd,
            Err(Errno::EXDEV) => through_absolute_links(cwd, expected, path, flags, mode)?,
            Err(e) => return Err(said(e)),
        };
        std::fs::File::from(fd)
            .write_all(text)
            .map_err(|e| e.to_string())
    };
    Beneath::Done(write())
}

/// The folder at `path` (under `cwd`, or `cwd` itself), opened beneath `cwd`, as a path
/// that names the opened folder (`/proc/self/fd/N`, with the descriptor that keeps it open):
/// listed through it, a folder swapped for a link after the gate decided is not the one
/// listed.
pub fn open_folder(
    cwd: &Path,
    expected: Option<(u64, u64)>,
    path: &Path,
) -> Beneath<Result<(OwnedFd, PathBuf), String>> {
    use std::os::fd::AsRawFd;
    if !supported() || !Path::new("/proc/self/fd").is_dir() {
        return Beneath::Unsupported;
    }
    let dir = match (path == cwd, relative(cwd, path)) {
        (true, _) => root(cwd, expected),
        (false, Some(rel)) => root(cwd, expected).and_then(|dir| {
            match openat2(
                &dir,
                rel,
                how(OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty()),
            ) {
                Ok(fd) => Ok(fd),
                Err(Errno::EXDEV) => through_absolute_links(
                    cwd,
                    expected,
                    path,
                    OFlag::O_PATH | OFlag::O_DIRECTORY,
                    Mode::empty(),
                ),
                Err(e) => Err(said(e)),
            }
        }),
        (false, None) => return Beneath::Unsupported,
    };
    Beneath::Done(dir.map(|fd| {
        let named = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
        (fd, named)
    }))
}

/// The working directory as a path that names the directory the run's gate was made for
/// (`/proc/self/fd/N`, with the descriptor that keeps it open), for a child process to start
/// in: a name swapped for a link since is not where it starts. `None` without `/proc`.
pub fn working_directory(
    cwd: &Path,
    expected: Option<(u64, u64)>,
) -> Result<Option<(OwnedFd, PathBuf)>, String> {
    use std::os::fd::AsRawFd;
    if !Path::new("/proc/self/fd").is_dir() {
        return Ok(None);
    }
    let dir = root(cwd, expected)?;
    let named = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
    Ok(Some((dir, named)))
}

/// Makes each missing folder of `rel` (relative to `dir`), one component at a time: each is
/// made in the folder before it, opened beneath `dir`, so a link in the way is never made
/// through.
fn make_folders(dir: &OwnedFd, rel: &Path) -> Result<(), Errno> {
    let folder = |p: &Path| {
        openat2(
            dir,
            p,
            how(OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty()),
        )
    };
    let mut so_far = PathBuf::new();
    for component in rel.components() {
        let name = match component {
            Component::Normal(name) => name,
            Component::CurDir => continue,
            // `..` and the rest: left to the kernel's resolution of the whole path.
            _ => return Ok(()),
        };
        let parent = if so_far.as_os_str().is_empty() {
            folder(Path::new("."))?
        } else {
            folder(&so_far)?
        };
        so_far.push(name);
        match folder(&so_far) {
            Ok(_) => {}
            Err(Errno::ENOENT) => match mkdirat(&parent, name, Mode::from_bits_truncate(0o777)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done<T>(b: Beneath<T>) -> T {
        match b {
            Beneath::Done(t) => t,
            Beneath::Unsupported => panic!("this kernel has openat2 (Linux 5.6+)"),
        }
    }

    #[test]
    fn a_link_out_of_the_directory_is_never_read_or_written_through() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(work.join("d"))?;
        std::fs::create_dir_all(&outside)?;
        std::fs::write(outside.join("secret"), "s")?;
        // Plain files and folders, made as needed.
        done(write(
            &work,
            None,
            &work.join("d/new/deeper/a.txt"),
            b"hello",
        ))
        .map_err(std::io::Error::other)?;
        assert_eq!(
            std::fs::read_to_string(work.join("d/new/deeper/a.txt"))?,
            "hello"
        );
        assert_eq!(
            done(read(&work, None, &work.join("d/new/deeper/a.txt"))),
            Ok(b"hello".to_vec())
        );
        // A link that stays inside is followed, relative or absolute.
        std::os::unix::fs::symlink("d", work.join("inside"))?;
        assert!(done(write(&work, None, &work.join("inside/b.txt"), b"b")).is_ok());
        assert!(work.join("d/b.txt").exists());
        std::fs::write(work.join("d/target.txt"), "t")?;
        std::os::unix::fs::symlink(work.join("d/target.txt"), work.join("file-link"))?;
        assert!(done(write(&work, None, &work.join("file-link"), b"through")).is_ok());
        assert_eq!(
            std::fs::read_to_string(work.join("d/target.txt"))?,
            "through"
        );
        std::os::unix::fs::symlink(work.join("d"), work.join("absolute"))?;
        assert!(done(write(&work, None, &work.join("absolute/c.txt"), b"c")).is_ok());
        assert_eq!(
            done(read(&work, None, &work.join("absolute/c.txt"))),
            Ok(b"c".to_vec())
        );
        // An absolute link out is refused.
        std::os::unix::fs::symlink(&outside, work.join("out"))?;
        let r = done(read(&work, None, &work.join("out/secret")));
        assert!(r.as_ref().is_err_and(|e| e.contains("leads out")), "{r:?}");
        // The folder swapped for a link out: neither read nor write goes through it, and no
        // folder is made out there.
        std::fs::rename(work.join("d"), dir.path().join("moved"))?;
        std::os::unix::fs::symlink(&outside, work.join("d"))?;
        let w = done(write(&work, None, &work.join("d/raced.txt"), b"x"));
        assert!(
            w.as_ref()
                .is_err_and(|e| e.contains("leads out of the working directory")),
            "{w:?}"
        );
        let w = done(write(&work, None, &work.join("d/sub/raced.txt"), b"x"));
        assert!(w.is_err(), "{w:?}");
        let r = done(read(&work, None, &work.join("d/secret")));
        assert!(r.as_ref().is_err_and(|e| e.contains("leads out")), "{r:?}");
        assert!(!outside.join("raced.txt").exists());
        assert!(!outside.join("sub").exists());
        // `..` that climbs out is refused too; a path outside is not this module's.
        assert!(done(read(&work, None, &work.join("../outside/secret"))).is_err());
        assert!(matches!(
            read(&work, None, &outside.join("secret")),
            Beneath::Unsupported
        ));
        Ok(())
    }

    /// Found by an outsider's attack: the working directory itself exchanged for a link
    /// between the gate's decision and the tool's open put 48 of 104 writes outside.
    #[test]
    fn a_working_directory_swapped_for_a_link_is_refused() -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&work)?;
        std::fs::create_dir_all(&outside)?;
        std::fs::write(outside.join("secret"), "s")?;
        let meta = std::fs::metadata(&work)?;
        let id = Some((meta.dev(), meta.ino()));
        assert!(done(write(&work, id, &work.join("a.txt"), b"a")).is_ok());
        std::fs::rename(&work, dir.path().join("moved"))?;
        std::os::unix::fs::symlink(&outside, &work)?;
        let w = done(write(&work, id, &work.join("x.txt"), b"x"));
        assert!(
            w.as_ref()
                .is_err_and(|e| e.contains("no longer the directory")),
            "{w:?}"
        );
        assert!(done(read(&work, id, &work.join("secret"))).is_err());
        assert!(!outside.join("x.txt").exists());
        Ok(())
    }

    #[test]
    fn a_folder_is_listed_as_opened_beneath_the_directory() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let work = dir.path().join("work");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(work.join("d"))?;
        std::fs::create_dir_all(&outside)?;
        std::fs::write(work.join("d/mine"), "")?;
        std::fs::write(outside.join("theirs"), "")?;
        let names = |p: &Path| -> Vec<String> {
            let (_fd, named) = done(open_folder(&work, None, p)).unwrap_or_else(|e| panic!("{e}"));
            let mut n: Vec<String> = std::fs::read_dir(named)
                .unwrap_or_else(|e| panic!("{e}"))
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(&work.join("d")), ["mine"]);
        assert_eq!(names(&work), ["d"]);
        std::fs::rename(work.join("d"), dir.path().join("moved"))?;
        std::os::unix::fs::symlink(&outside, work.join("d"))?;
        let r = done(open_folder(&work, None, &work.join("d")));
        assert!(
            r.as_ref().is_err_and(|e| e.contains("leads out")),
            "{:?}",
            r.as_ref().err()
        );
        Ok(())
    }
}
