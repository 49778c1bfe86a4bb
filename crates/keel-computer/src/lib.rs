//! keel-computer: computer use's pure half (computer-use.md, seed 003).
//!
//! One desktop window, operated one grounded input at a time, never replaying an input whose
//! delivery is unknown. Here are the parts that need no desktop and no clock of their own:
//! the strict input schema ([`input`]), the error codes and their fixed `nextAction` texts
//! ([`codes`]), the observation vocabulary and the summary JSON ([`observation`]), verification
//! from native evidence only ([`verify`]), the no-progress counter ([`progress`]), the model's
//! one proposal ([`proposal`]), the manual the model reads ([`manual`]), the [`desktop::Desktop`]
//! trait a backend implements, and the session machine that ties them together ([`session`]).
//!
//! Also here, behind the `sim` feature, a simulated desktop ([`sim`]) that tests drive.
//!
//! Not here: a real desktop (keel-desktop), or the tool wrapper that asks the model and the
//! user (keel-runtime).
#![forbid(unsafe_code)]

pub mod codes;
pub mod desktop;
pub mod grounding;
pub mod input;
pub mod manual;
pub mod observation;
pub mod progress;
pub mod proposal;
pub mod session;
/// The simulated desktop, for tests (the `sim` feature): a test double, not a backend.
#[cfg(any(test, feature = "sim"))]
pub mod sim;
pub mod summary;
pub mod verify;

pub use codes::ErrorCode;
pub use observation::{Action, Element, Expectation, Verification, VerificationStatus};

/// How the call id of a consent question begins: consent is asked as a call of
/// `computer_use` and recorded with the run like any answer, and the policy gate tells such
/// an answer from a person's "allow for this run" by this prefix (a consent never becomes a
/// standing rule).
pub const CONSENT_CALL_PREFIX: &str = "computer-consent-";
