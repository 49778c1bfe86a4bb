//! Where keel keeps its data (interfaces.md §5.2): `KEEL_HOME`, by default
//! `$XDG_DATA_HOME/keel` (or `~/.local/share/keel`); the database is `$KEEL_HOME/keel.db`
//! unless `--db PATH` says otherwise.

use std::path::PathBuf;

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
    if let Some(data) = non_empty("XDG_DATA_HOME") {
        return Ok(data.join("keel"));
    }
    if let Some(home) = non_empty("HOME") {
        return Ok(home.join(".local/share/keel"));
    }
    Err(AppError::Setup(
        "cannot tell where keel's data goes: set KEEL_HOME (or XDG_DATA_HOME, or HOME)".into(),
    ))
}

/// The database: `--db PATH`, else `keel.db` in [`data_dir`].
pub fn db_path(flag: Option<&PathBuf>) -> Result<PathBuf, AppError> {
    match flag {
        Some(path) => Ok(path.clone()),
        None => Ok(data_dir()?.join("keel.db")),
    }
}
