//! Where a run works: the directory recorded with it when it was started, so a resume, a
//! chat or a handoff from another directory acts where the run's files are, not wherever the
//! person happens to be (issue 19). A front end's explicit `--cwd` still wins; a run from a
//! keel that did not record its directory works in the current one, as it always did, and
//! every one of these cases that is not the plain one is said in one notice line.

use std::path::{Path, PathBuf};

use crate::AppError;

/// The directory a session on a stored run works in, and the notice to show, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub dir: PathBuf,
    pub notice: Option<String>,
}

/// Decides where a session works. `recorded` is `None` for a new run, `Some(None)` for a
/// stored run without a recorded directory, `Some(Some(dir))` for one with; `explicit` is
/// a front end's `--cwd` (already resolved), `here` the process's directory.
///
/// A recorded directory that no longer exists is [`AppError::RunDirectoryMissing`]: acting
/// anywhere else would write the run's files where the person did not mean them to go.
pub fn resolve(
    run: Option<&str>,
    recorded: Option<Option<&Path>>,
    explicit: Option<&Path>,
    here: &Path,
) -> Result<Resolved, AppError> {
    let (Some(run), Some(recorded)) = (run, recorded) else {
        let dir = explicit.unwrap_or(here).to_path_buf();
        return Ok(Resolved { dir, notice: None });
    };
    let Some(stored) = recorded else {
        let dir = explicit.unwrap_or(here).to_path_buf();
        let notice = format!(
            "run {run} has no recorded working directory (it was started by an older keel); \
             working in {}",
            dir.display()
        );
        return Ok(Resolved {
            dir,
            notice: Some(notice),
        });
    };
    if let Some(asked) = explicit {
        let notice = (!same_dir(asked, stored)).then(|| {
            format!(
                "run {run} works in {}; --cwd {} given, so this session works there",
                stored.display(),
                asked.display()
            )
        });
        return Ok(Resolved {
            dir: asked.to_path_buf(),
            notice,
        });
    }
    check_exists(run, stored)?;
    let notice = (!same_dir(here, stored)).then(|| {
        format!(
            "this run works in {} (you are in {}); continuing there",
            stored.display(),
            here.display()
        )
    });
    Ok(Resolved {
        dir: stored.to_path_buf(),
        notice,
    })
}

/// [`AppError::RunDirectoryMissing`] when `run`'s recorded directory `dir` is gone.
pub fn check_exists(run: &str, dir: &Path) -> Result<(), AppError> {
    if dir.is_dir() {
        Ok(())
    } else {
        Err(AppError::RunDirectoryMissing {
            run: run.to_string(),
            dir: dir.to_path_buf(),
        })
    }
}

/// Whether two paths name one directory (symbolic links and `..` resolved where they can be).
pub fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_directory_wins_over_the_current_one_and_is_said() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let r = resolve(Some("r"), Some(Some(a.path())), None, b.path()).unwrap();
        assert_eq!(r.dir, a.path());
        assert!(r.notice.unwrap().contains("continuing there"));
        let same = resolve(Some("r"), Some(Some(a.path())), None, a.path()).unwrap();
        assert_eq!((same.dir.as_path(), same.notice), (a.path(), None));
    }

    #[test]
    fn a_new_run_works_here_and_an_old_run_says_it_has_no_directory() {
        let a = tempfile::tempdir().unwrap();
        let new = resolve(None, None, None, a.path()).unwrap();
        assert_eq!((new.dir.as_path(), new.notice), (a.path(), None));
        let old = resolve(Some("r"), Some(None), None, a.path()).unwrap();
        assert_eq!(old.dir, a.path());
        assert!(
            old.notice
                .unwrap()
                .contains("no recorded working directory")
        );
    }

    #[test]
    fn a_missing_directory_is_refused_unless_cwd_is_given() {
        let a = tempfile::tempdir().unwrap();
        let gone = a.path().join("gone");
        let err = resolve(Some("r"), Some(Some(&gone)), None, a.path()).unwrap_err();
        assert!(matches!(err, AppError::RunDirectoryMissing { .. }), "{err}");
        let r = resolve(Some("r"), Some(Some(&gone)), Some(a.path()), a.path()).unwrap();
        assert_eq!(r.dir, a.path());
        assert!(r.notice.unwrap().contains("--cwd"));
    }
}
