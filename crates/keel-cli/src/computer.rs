//! `keel computer stop RUN` / `keel computer resume`, and the Linux desktop backend the
//! binary hands a session (keel-app assembles computer use; only the binary links the
//! desktop stack).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use keel_computer::desktop::Desktop;
use keel_runtime::computer::{LazyDesktop, resume_control, stop_control};
use keel_store::{SqliteStore, StoreOptions};

/// The Linux desktop backend, connected on first use.
pub(crate) fn desktop() -> Box<dyn Desktop> {
    Box::new(LazyDesktop::new(|| {
        keel_desktop::LinuxDesktop::connect(keel_desktop::DesktopConfig::default())
            .map(|d| Box::new(d) as Box<dyn Desktop>)
    }))
}

/// `keel computer stop RUN`.
pub(crate) fn stop(db: &Path, options: &StoreOptions, run: &str) -> Result<ExitCode> {
    let mut store = SqliteStore::open(db, options)?;
    if let Err(e) = stop_control(&mut store, run, keel_app::ids::now()) {
        bail!("{e}");
    }
    crate::out::say(&format!(
        "desktop control stopped for {run}: its session ends at its next operation, and no new \
         session opens until `keel computer resume`"
    ));
    Ok(ExitCode::SUCCESS)
}

/// `keel computer resume`.
pub(crate) fn resume(db: &Path, options: &StoreOptions) -> Result<ExitCode> {
    let mut store = SqliteStore::open(db, options)?;
    match resume_control(&mut store) {
        Ok(true) => crate::out::say("desktop control resumed"),
        Ok(false) => crate::out::say("desktop control was not stopped; nothing to resume"),
        Err(e) => bail!("{e}"),
    }
    Ok(ExitCode::SUCCESS)
}
