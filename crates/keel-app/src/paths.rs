//! Where keel keeps its data (interfaces.md §5.2): `KEEL_HOME`, by default
//! `$XDG_DATA_HOME/keel` (or `~/.local/share/keel`); the database is `$KEEL_HOME/keel.db`
//! unless `--db PATH` says otherwise.

use std::path::{Path, PathBuf};

use crate::AppError;

fn non_empty(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// keel's data directory: `KEEL_HOME`, else `$XDG_DATA_HOME/keel`, else `~/.local/share/keel`.
pub fn data_dir() -> Result<PathBuf, AppError> {
    if let Some(home) = non_empty("KEEL_HOME") {
        return Ok(home);
    }
    if let Some(data) = crate::config::base_dir("XDG_DATA_HOME") {
        return Ok(data.join("keel"));
    }
    if let Some(home) = crate::config::base_dir("HOME") {
        return Ok(home.join(".local/share/keel"));
    }
    Err(AppError::Setup(
        "cannot tell where keel's data goes: set KEEL_HOME (or XDG_DATA_HOME, or HOME, to an absolute path)".into(),
    ))
}

/// The database: `--db PATH`, else `keel.db` in [`data_dir`].
pub fn db_path(flag: Option<&PathBuf>) -> Result<PathBuf, AppError> {
    match flag {
        Some(path) => Ok(path.clone()),
        None => Ok(data_dir()?.join("keel.db")),
    }
}

/// keel's own configuration and data, which the guarded-paths checker asks about before any
/// tool touches them (keel-policy's `check_guarded_paths`): the `keel.toml` of the session
/// directory, of the process's directory (where keel reads it) and of each workspace; every
/// configuration file this run read (`--policy` files among them); the user's config folder;
/// keel's data folder (the database with every run's conversation) and `db` where `--db` put
/// it elsewhere; and the admin folder `/etc/keel`.
pub fn guarded_paths(
    cwd: &Path,
    workspaces: &[PathBuf],
    config_files: &[PathBuf],
    db: Option<&Path>,
) -> Vec<PathBuf> {
    let mut out = vec![cwd.join("keel.toml")];
    if let Ok(here) = std::env::current_dir() {
        out.push(here.join("keel.toml"));
    }
    out.extend(workspaces.iter().map(|w| w.join("keel.toml")));
    out.extend(config_files.iter().cloned());
    let user = crate::config::Sources::standard(&[]).user;
    out.extend(
        user.as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf),
    );
    out.extend(data_dir().ok());
    // SQLite's files beside the database are the database too.
    if let Some(db) = db {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            out.push(PathBuf::from(name));
        }
    }
    out.push(PathBuf::from("/etc/keel"));
    out
}
