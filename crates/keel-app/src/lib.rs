//! keel-app: how a keel session is put together, shared by every front end.
//!
//! The configuration (interfaces.md §2: files, tiers, warnings, what a workspace may not set;
//! [`config`]), the policy compiler and keel's built-in default policy ([`policy`]), presets,
//! which model a spec names ([`models`]), where keel keeps its data ([`paths`]), ids and the
//! clock ([`ids`]), computer use's assembly ([`computer`]), background tasks ([`tasks`]), and
//! the [`SessionBuilder`] that turns a configuration and a front end's options into a ready
//! [`Session`]: store, model, tools and the one gate.
//!
//! Not here: argument parsing, printing, or asking a person (the front ends: keel-cli's
//! terminal approver, an editor's permission dialog); the turn loop itself (keel-runtime).
//!
//! A front end in a few lines:
//!
//! ```no_run
//! use keel_app::{SessionBuilder, SessionOptions, config};
//!
//! # fn main() -> Result<(), keel_app::AppError> {
//! let config = config::load(&config::Sources::standard(&[]))?;
//! let db = keel_app::paths::db_path(None)?;
//! let mut session = SessionBuilder::new(config, db)
//!     .options(SessionOptions { approval: Some("deny".into()), ..Default::default() })
//!     .notices(std::sync::Arc::new(|line| eprintln!("keel: {line}")))
//!     .build()?;
//! let run = session.start_run(None, Vec::new())?;
//! let approver = keel_runtime::approval::TerminalApprover::new(std::io::empty(), std::io::sink());
//! let end = session.with_agent(approver, &run, |_event| {}, |agent| {
//!     agent.user_turn(&run, "List the files in this folder")
//! })?;
//! println!("{}", end.final_text);
//! # Ok(())
//! # }
//! ```

pub mod builder;
pub mod computer;
pub mod config;
mod error;
pub mod ids;
pub mod models;
pub mod paths;
pub mod policy;
pub mod session;
pub mod tasks;
pub mod workdir;

pub use builder::SessionBuilder;
pub use config::Config;
pub use error::AppError;
pub use session::{Arrivals, DesktopOpener, Notices, Role, Session, SessionOptions};
