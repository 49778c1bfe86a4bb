//! The one error type of session assembly: what went wrong, worded for the person who has to
//! fix it. Errors of the layers below pass through unchanged, so a front end can still tell a
//! bad configuration or a bad caller message (exit 2) from a failure (exit 1).

use keel_runtime::agent::LoopError;
use keel_store::StoreError;

use crate::config::ConfigError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Model(#[from] keel_model::ModelError),
    #[error(transparent)]
    Loop(#[from] LoopError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Gate(#[from] keel_runtime::gate::StageOrder),
    /// A session that cannot be set up as asked (an unknown preset, mode or model, a missing
    /// directory), with what to do about it.
    #[error("{0}")]
    Setup(String),
    /// The directory a stored run works in is gone; nothing was written.
    #[error(
        "run {run} works in {dir}, which no longer exists. Recreate it (or restore it) and try \
         again, or give --cwd DIR to continue the run in another directory. Nothing was written",
        dir = .dir.display()
    )]
    RunDirectoryMissing {
        run: String,
        dir: std::path::PathBuf,
    },
}

impl AppError {
    /// The store's error inside, if that is what this is.
    pub fn as_store(&self) -> Option<&StoreError> {
        match self {
            AppError::Store(e) => Some(e),
            _ => None,
        }
    }

    /// Whether another writer changed the run under this one ([`StoreError::StaleWrite`]):
    /// nothing of the failed write was stored, and a reload shows what the other wrote.
    pub fn is_stale_write(&self) -> bool {
        matches!(
            self,
            AppError::Store(StoreError::StaleWrite { .. })
                | AppError::Loop(LoopError::Store(StoreError::StaleWrite { .. }))
        )
    }

    /// Whether the model's answer failed (not the store, the configuration or a setup).
    pub fn is_model_failure(&self) -> bool {
        matches!(
            self,
            AppError::Model(keel_model::ModelError::Failed(_))
                | AppError::Loop(LoopError::Model(
                    keel_model::ModelError::Failed(_) | keel_model::ModelError::ContextOverflow(_)
                ))
        )
    }

    /// Whether the turn was stopped on request (Ctrl-C), which is no failure.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, AppError::Loop(LoopError::Cancelled))
    }
}
