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
#[cfg(feature = "desktop")]
pub(crate) fn desktop() -> Box<dyn Desktop> {
    Box::new(LazyDesktop::new(|| {
        keel_desktop::LinuxDesktop::connect(keel_desktop::DesktopConfig::default())
            .map(|d| Box::new(d) as Box<dyn Desktop>)
    }))
}

/// A build without the desktop backend: computer use fails closed at its first call, saying
/// how to build it in.
#[cfg(not(feature = "desktop"))]
pub(crate) fn desktop() -> Box<dyn Desktop> {
    left_out_desktop()
}

/// Why computer use cannot run in a build that left the desktop backend out.
pub(crate) const DESKTOP_LEFT_OUT: &str = "this keel was built without its desktop backend \
     (the `desktop` feature, which `scripts/keel` builds in only once your config has a \
     [computer_use] table): run `./scripts/keel` again, or `cargo build --release -p keel-cli \
     --features desktop`";

/// The desktop of a build without the backend: every operation fails with
/// [`DESKTOP_LEFT_OUT`].
#[cfg_attr(feature = "desktop", allow(dead_code))]
pub(crate) fn left_out_desktop() -> Box<dyn Desktop> {
    Box::new(LazyDesktop::new(|| {
        Err(keel_computer::desktop::DesktopError::Unavailable(
            DESKTOP_LEFT_OUT.into(),
        ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_the_desktop_backend_says_how_to_build_it_in() {
        let mut desktop = left_out_desktop();
        let error = desktop.apps().expect_err("no backend, no apps").to_string();
        assert!(
            error.contains("built without its desktop backend"),
            "{error}"
        );
        assert!(error.contains("--features desktop"), "{error}");
    }
}
