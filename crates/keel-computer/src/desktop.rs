//! The [`Desktop`] trait: what a backend (a real display, or the simulated desktop of the
//! tests) gives the session machine. A backend only reports and acts; it decides nothing:
//! consent, budgets, staleness, idempotency and verification are the session machine's.
//!
//! Calls block and may take as long as the backend needs; the caller bounds them (N26).

use serde::{Deserialize, Serialize};

use super::observation::{Action, Element};

/// A running application the backend can see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppInfo {
    /// The backend's own key for the app; never shown to the model (it gets an opaque appRef).
    pub key: String,
    /// The app's name as it reports it: untrusted metadata (N5).
    pub name: String,
    pub running: bool,
    /// How many processes of the app are running (N30: more than one is unsupported).
    pub instances: u32,
}

/// One top-level window of an app.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowInfo {
    /// The backend's own key for the window.
    pub key: String,
    /// Its title: untrusted metadata.
    pub title: String,
}

/// A screenshot of the window, PNG-encoded. Frames stay in memory, have one consumer and are
/// zeroed after use (N12); they never enter a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

impl Frame {
    /// Overwrites the image bytes (N12: zeroed after use).
    pub fn zero(&mut self) {
        self.png.iter_mut().for_each(|b| *b = 0);
    }
}

/// What the backend sees of one window at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The window's subtree, depth first, its own element (role `AXWindow`) first. Only
    /// elements provably inside the window (N33).
    pub elements: Vec<Element>,
    /// The window's size in pixels: the space coordinates of actions live in.
    pub width: u32,
    pub height: u32,
    /// A screenshot, when the backend takes them and one was asked for.
    pub frame: Option<Frame>,
    /// The backend stopped before it had read the whole subtree (its own element cap): the
    /// summary is then marked truncated, so nothing is verified against a part (N16).
    pub partial: bool,
}

/// Why a backend call failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DesktopError {
    /// The app or window is gone (closed, unmapped): control is revoked (N29a).
    #[error("the window is gone: {0}")]
    Gone(String),
    /// The display or accessibility bus is unreachable.
    #[error("the desktop is unavailable: {0}")]
    Unavailable(String),
    /// Anything else, said plainly.
    #[error("{0}")]
    Other(String),
}

/// How far an input got when the backend failed to deliver it (N25).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DispatchError {
    /// Positively not sent: nothing reached the app.
    #[error("not dispatched: {0}")]
    NotStarted(String),
    /// Sending began and its end is unknown: the app may have received some or all of it.
    #[error("dispatch unknown: {0}")]
    Unknown(String),
}

/// A desktop backend.
pub trait Desktop: Send {
    /// Running applications (N42: only those the accessibility registry lists).
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError>;
    /// The app's top-level windows.
    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError>;
    /// Raises and focuses the window (N42).
    fn prepare(&mut self, window: &str) -> Result<(), DesktopError>;
    /// The window now; `with_frame` asks for a screenshot too.
    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError>;
    /// Delivers one input to the window. `Ok` means delivered completely.
    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError>;
    /// Gives control of the window back (N28). `Ok` confirms the release; a backend that
    /// holds nothing on the desktop confirms at once.
    fn release(&mut self, window: &str) -> Result<(), DesktopError> {
        let _ = window;
        Ok(())
    }
}
