//! keel's Linux desktop backend for computer use: [`LinuxDesktop`] implements keel-computer's
//! [`Desktop`] trait over a real X display and the AT-SPI accessibility bus. It lists the
//! apps the AT-SPI registry knows, reads one window's accessibility subtree as observation
//! elements (N38a), takes screenshots with `GetImage`, raises windows (N42) and sends input
//! through XTEST.
//!
//! It is not the session machine: it decides nothing about consent, budgets, staleness,
//! idempotency or verification, and keeps no state beyond connections and a cache of which X
//! window an AT-SPI window is. It does not start a display, a bus or apps (the tests' fixture
//! does that), does not speak Wayland, and never reads a window other than the one it is given.
//!
//! Modules follow the seams: [`bus`] (finding and calling the accessibility bus), [`tree`]
//! (reading AT-SPI objects), [`roles`] (N38a's mapping, pure), [`xwin`] (which X window an
//! AT-SPI window is; raising it), [`capture`] (screenshots), [`keys`] and [`input`] (XTEST).

mod bus;
mod capture;
mod input;
mod keys;
mod roles;
mod tree;
mod xwin;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use atspi_common::State;
use keel_computer::desktop::{AppInfo, Desktop, DesktopError, DispatchError, Snapshot, WindowInfo};
use keel_computer::observation::{Action, ROLE_WINDOW};
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use crate::tree::ObjRef;
use crate::xwin::Geometry;

pub use crate::input::MAX_SCROLL_STEPS;

/// How the backend reaches the desktop, and its limits. Every timeout is configurable (N44).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopConfig {
    /// The X display; `None` reads `DISPLAY`.
    pub display: Option<String>,
    /// The session bus, where `org.a11y.Bus` tells the accessibility bus's address; `None`
    /// reads `DBUS_SESSION_BUS_ADDRESS`.
    pub session_bus: Option<String>,
    /// The accessibility bus itself; `None` reads `AT_SPI_BUS_ADDRESS`, and failing that asks
    /// the session bus, then the X root window's `AT_SPI_BUS` property.
    pub a11y_bus: Option<String>,
    /// Each D-Bus call's timeout.
    pub call_timeout: Duration,
    /// A whole snapshot's tree walk.
    pub snapshot_timeout: Duration,
    /// Most objects a snapshot reads (see [`LinuxDesktop::snapshot`]).
    pub max_elements: usize,
    /// Waited after input is delivered, so the app has handled it before the next observation.
    pub input_settle: Duration,
    /// Waited after binding a spare keycode to a character the keymap lacks, before typing it.
    pub remap_grace: Duration,
    /// How long `prepare` waits for the window to become viewable.
    pub prepare_timeout: Duration,
}

impl Default for DesktopConfig {
    fn default() -> Self {
        DesktopConfig {
            display: None,
            session_bus: None,
            a11y_bus: None,
            call_timeout: Duration::from_secs(5),
            snapshot_timeout: Duration::from_secs(20),
            max_elements: 3000,
            input_settle: Duration::from_millis(50),
            remap_grace: Duration::from_millis(50),
            prepare_timeout: Duration::from_secs(2),
        }
    }
}

/// The Linux desktop: one X connection and one accessibility-bus connection.
pub struct LinuxDesktop {
    config: DesktopConfig,
    x: RustConnection,
    screen: usize,
    root: Window,
    bus: zbus::Connection,
    /// Which X window each AT-SPI window key was found to be (checked again on each use).
    xwindows: HashMap<String, Window>,
    /// Spare keycodes bound to characters the keymap lacked, unbound on drop.
    bound: Vec<u8>,
}

impl Drop for LinuxDesktop {
    fn drop(&mut self) {
        if !self.bound.is_empty()
            && let Ok(map) = input::Keymap::load(&self.x)
        {
            input::unbind(&self.x, &self.bound, &map);
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl LinuxDesktop {
    /// Connects to the X display and the accessibility bus. Fails `Unavailable`, saying what to
    /// start, when either is missing.
    pub fn connect(config: DesktopConfig) -> Result<LinuxDesktop, DesktopError> {
        let display = config
            .display
            .clone()
            .or_else(|| env("DISPLAY"))
            .ok_or_else(|| {
                DesktopError::Unavailable(
                    "no X display: DISPLAY is not set. Start an X server (or Xvfb) and set DISPLAY"
                        .into(),
                )
            })?;
        let (x, screen) = RustConnection::connect(Some(&display)).map_err(|e| {
            DesktopError::Unavailable(format!(
                "cannot connect to the X display {display}: {e}. Start an X server (or Xvfb) \
                 there, or set DISPLAY to a running one"
            ))
        })?;
        let root = x.setup().roots.get(screen).map(|s| s.root).ok_or_else(|| {
            DesktopError::Unavailable(format!("the X display has no screen {screen}"))
        })?;
        let configured = config
            .a11y_bus
            .clone()
            .or_else(|| env("AT_SPI_BUS_ADDRESS"));
        let session = config
            .session_bus
            .clone()
            .or_else(|| env("DBUS_SESSION_BUS_ADDRESS"));
        let address = bus::find_address(
            configured.as_deref(),
            session.as_deref(),
            &x,
            root,
            config.call_timeout,
        )?;
        let bus = bus::connect(&address, config.call_timeout)?;
        Ok(LinuxDesktop {
            config,
            x,
            screen,
            root,
            bus,
            xwindows: HashMap::new(),
            bound: Vec::new(),
        })
    }

    fn block<F: std::future::Future>(
        &self,
        timeout: Duration,
        what: &str,
        f: F,
    ) -> Result<F::Output, DesktopError> {
        bus::block_on_timeout(timeout, f).map_err(|t| bus::timed_out(what, t))
    }

    fn x_error(&self, e: impl std::fmt::Display) -> DesktopError {
        DesktopError::Unavailable(format!("the X display failed: {e}"))
    }

    fn screen_size(&self) -> (u32, u32) {
        self.x
            .setup()
            .roots
            .get(self.screen)
            .map(|s| (u32::from(s.width_in_pixels), u32::from(s.height_in_pixels)))
            .unwrap_or_default()
    }

    /// The AT-SPI window, checked to be a live window; with `on_screen`, also SHOWING.
    fn window_head(
        &self,
        key: &str,
        on_screen: bool,
    ) -> Result<(ObjRef, tree::Head), DesktopError> {
        let obj = ObjRef::parse(key)
            .ok_or_else(|| DesktopError::Gone(format!("`{key}` is not a window key")))?;
        let head = self
            .block(
                self.config.call_timeout,
                "reading the window",
                tree::head(&self.bus, &obj),
            )?
            .map_err(|e| bus::desktop_error("the window", &e))?;
        if !roles::is_window_role(head.role) {
            return Err(DesktopError::Other(format!(
                "`{key}` is a {}, not a window",
                roles::role_name(head.role)
            )));
        }
        if head.states.contains(State::Defunct) {
            return Err(DesktopError::Gone("the window was destroyed".into()));
        }
        if on_screen && !head.states.contains(State::Showing) {
            return Err(DesktopError::Gone(
                "the window is not on screen (closed, hidden or minimized)".into(),
            ));
        }
        Ok((obj, head))
    }

    /// The X window of an AT-SPI window: the cached one while it is still viewable, else found
    /// anew (module `xwin` says how).
    fn xwindow(
        &mut self,
        obj: &ObjRef,
        head: &tree::Head,
        unmapped: bool,
    ) -> Result<Window, DesktopError> {
        let key = obj.key();
        if let Some(win) = self.xwindows.get(&key).copied() {
            let ok = xwin::viewable(&self.x, win).map_err(|e| self.x_error(e))?;
            if ok || unmapped {
                return Ok(win);
            }
            self.xwindows.remove(&key);
        }
        let timeout = self.config.call_timeout;
        let pid = self
            .block(
                timeout,
                "asking the bus for the app's pid",
                tree::pid(&self.bus, &obj.bus),
            )?
            .ok();
        let extents = self
            .block(
                timeout,
                "reading the window's extents",
                tree::extents(&self.bus, obj),
            )?
            .ok();
        let wanted = xwin::Wanted {
            pid,
            title: &head.name,
            extents,
        };
        let found =
            xwin::find(&self.x, self.root, &wanted, unmapped).map_err(|e| self.x_error(e))?;
        let win = found.ok_or_else(|| {
            DesktopError::Gone(format!(
                "no X window matches the window `{}` (pid {pid:?})",
                head.name
            ))
        })?;
        self.xwindows.insert(key, win);
        Ok(win)
    }

    /// The X window's title of an AT-SPI window, when its X window can be found.
    fn x_title(&mut self, obj: &ObjRef) -> Option<String> {
        let head = self
            .block(
                self.config.call_timeout,
                "reading the window",
                tree::head(&self.bus, obj),
            )
            .ok()?
            .ok()?;
        let win = self.xwindow(obj, &head, true).ok()?;
        xwin::title_of(&self.x, win).ok()
    }

    /// The live window: its AT-SPI object, X window and X geometry.
    fn live(&mut self, key: &str) -> Result<(ObjRef, Window, Geometry), DesktopError> {
        let (obj, head) = self.window_head(key, true)?;
        let win = self.xwindow(&obj, &head, false)?;
        let g = xwin::geometry(&self.x, self.root, win)
            .map_err(|e| self.x_error(e))?
            .ok_or_else(|| DesktopError::Gone("the X window was destroyed".into()))?;
        Ok((obj, win, g))
    }

    /// Refuses (`NotStarted`) pointer input at the window point `at` when it is off the screen
    /// (XTEST would move the pointer to the edge, over whatever is there) or another window
    /// covers it there (X would deliver it to that window). The check and the input are not
    /// atomic: a window that appears in between still gets it, as it would a person's click.
    fn refuse_covered(
        &self,
        win: Window,
        origin: (i32, i32),
        at: (i32, i32),
    ) -> Result<(), DispatchError> {
        let not_started = DispatchError::NotStarted;
        let (sx, sy) = (origin.0.saturating_add(at.0), origin.1.saturating_add(at.1));
        let (width, height) = self.screen_size();
        let on_screen = |v: i32, max: u32| u32::try_from(v).is_ok_and(|v| v < max);
        let screen = (i16::try_from(sx), i16::try_from(sy));
        let (true, true, (Ok(sx), Ok(sy))) = (on_screen(sx, width), on_screen(sy, height), screen)
        else {
            return Err(not_started(format!(
                "the point ({}, {}) of the window is off the screen; prepare the window to \
                 bring it on screen",
                at.0, at.1
            )));
        };
        match xwin::covered_by(&self.x, self.root, win, (sx, sy)) {
            Ok(None) => Ok(()),
            Ok(Some(other)) if other == self.root => Err(not_started(format!(
                "no window is at the point ({}, {}) of the window",
                at.0, at.1
            ))),
            Ok(Some(other)) if xwin::is_popup(&self.x, other) => Err(not_started(format!(
                "a menu, list or tooltip covers the point ({}, {}) of the window, so the input \
                 would reach it, and it is not part of the window's tree; close it (the Escape \
                 key) and observe again",
                at.0, at.1
            ))),
            Ok(Some(other)) => Err(not_started(format!(
                "{} covers the point ({}, {}) of the window, so the input would reach it; \
                 prepare the window to raise it, or close what covers it",
                xwin::describe(&self.x, other),
                at.0,
                at.1
            ))),
            Err(e) => Err(not_started(format!(
                "cannot tell which window is at the point: {e}"
            ))),
        }
    }

    /// Whether keystrokes sent now reach `win`: the X focus is it or inside it, or the focus
    /// follows the pointer and the pointer is over it.
    fn has_keyboard_focus(&self, win: Window) -> Result<bool, String> {
        let focus = self
            .x
            .get_input_focus()
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?
            .focus;
        // PointerRoot (1): keys go to the window under the pointer.
        let target = if focus == 1 {
            let p = self
                .x
                .query_pointer(self.root)
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| e.to_string())?;
            p.child
        } else {
            focus
        };
        let mut w = target;
        for _ in 0..64 {
            if w == win {
                return Ok(true);
            }
            if w == self.root || w == 0 {
                return Ok(false);
            }
            match self.x.query_tree(w).map_err(|e| e.to_string())?.reply() {
                Ok(t) => w = t.parent,
                Err(_) => return Ok(false),
            }
        }
        Ok(false)
    }
}

impl Desktop for LinuxDesktop {
    /// The registry's applications. `instances` counts the registry's apps of the same name,
    /// as AT-SPI knows no other notion of one app running twice.
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError> {
        let apps = self
            .block(
                self.config.call_timeout,
                "listing apps",
                tree::apps(&self.bus),
            )?
            .map_err(|e| bus::desktop_error("the AT-SPI registry", &e))?;
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for a in &apps {
            *counts.entry(a.name.as_str()).or_default() += 1;
        }
        Ok(apps
            .iter()
            .map(|a| AppInfo {
                key: a.obj.key(),
                name: a.name.clone(),
                running: true,
                instances: counts.get(a.name.as_str()).copied().unwrap_or(1),
            })
            .collect())
    }

    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError> {
        let obj = ObjRef::parse(app)
            .ok_or_else(|| DesktopError::Gone(format!("`{app}` is not an app key")))?;
        let windows = self
            .block(
                self.config.call_timeout,
                "listing windows",
                tree::windows(&self.bus, &obj),
            )?
            .map_err(|e| bus::desktop_error("the app", &e))?;
        let mut out = Vec::with_capacity(windows.len());
        for w in windows {
            let mut title = w.title;
            if title.is_empty() {
                // GTK leaves a frame's accessible name empty when the app sets no title (a
                // header bar shows its own); the X window's title is what a person sees in a
                // task list, so the consent question can still name the window.
                title = self.x_title(&w.obj).unwrap_or_default();
            }
            out.push(WindowInfo {
                key: w.obj.key(),
                title,
            });
        }
        Ok(out)
    }

    fn prepare(&mut self, window: &str) -> Result<(), DesktopError> {
        let (obj, head) = self.window_head(window, false)?;
        let win = self.xwindow(&obj, &head, true)?;
        xwin::activate(&self.x, self.root, win).map_err(|e| self.x_error(e))?;
        let deadline = Instant::now() + self.config.prepare_timeout;
        while !xwin::viewable(&self.x, win).map_err(|e| self.x_error(e))? {
            if Instant::now() >= deadline {
                return Err(DesktopError::Other(
                    "the window did not come up after raising it".into(),
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    /// The window's subtree, depth first, only objects that are SHOWING (and their showing
    /// descendants), at most `max_elements` of them (3000 by default: GTK's widget factory, a
    /// dense window, has a few hundred on screen). The walk reads level by level, so when the
    /// cap bites, the deepest levels are the ones left out and the snapshot says `partial`.
    /// Bounds are in the X window's coordinates, the space of screenshots and actions.
    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError> {
        let (obj, _win, g) = self.live(window)?;
        let (facts, partial) = self
            .block(
                self.config.snapshot_timeout,
                "reading the window's accessibility tree",
                tree::walk(&self.bus, &obj, self.config.max_elements),
            )?
            .map_err(|e| bus::desktop_error("the window", &e))?;
        let origin = (g.x, g.y);
        let mut elements: Vec<_> = facts.iter().map(|f| roles::element(f, origin)).collect();
        if let Some(first) = elements.first_mut() {
            // The window's own element spans the X window, whatever its frame extents say.
            first.role = ROLE_WINDOW.into();
            first.bounds = [
                0,
                0,
                i32::try_from(g.width).unwrap_or(i32::MAX),
                i32::try_from(g.height).unwrap_or(i32::MAX),
            ];
        }
        let frame = if with_frame {
            Some(
                capture::capture(&self.x, self.root, self.screen, self.screen_size(), g)
                    .map_err(|e| DesktopError::Other(format!("screenshot failed: {e}")))?,
            )
        } else {
            None
        };
        Ok(Snapshot {
            elements,
            width: g.width,
            height: g.height,
            frame,
            partial,
        })
    }

    /// Delivers the action. Points are in window coordinates. A `key` or a `typeText` without
    /// a point is refused (`NotStarted`) when the window does not have the keyboard focus, and
    /// pointer input at a point another window covers is refused too, so input never lands in
    /// another window. `scroll`'s `dx`/`dy` are wheel steps.
    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError> {
        if let Action::Wait { ms } = action {
            std::thread::sleep(Duration::from_millis(u64::from(*ms)));
            return Ok(());
        }
        let not_started = DispatchError::NotStarted;
        let (_obj, win, g) = self.live(window).map_err(|e| not_started(e.to_string()))?;
        let needs_focus = matches!(
            action,
            Action::Key { .. } | Action::TypeText { x: None, .. }
        );
        if needs_focus && !self.has_keyboard_focus(win).map_err(not_started)? {
            return Err(not_started(
                "the window does not have the keyboard focus; prepare it or click into it first"
                    .into(),
            ));
        }
        let mut keymap = input::Keymap::load(&self.x).map_err(not_started)?;
        let origin = (g.x, g.y);
        let size = (g.width, g.height);
        let plan = match input::plan(action, origin, size, &keymap) {
            // Out of spare keycodes: free the ones earlier text bound (handled long since).
            Err(e) if e.contains("spare keycode") && !self.bound.is_empty() => {
                input::unbind(&self.x, &self.bound, &keymap);
                self.bound.clear();
                keymap = input::Keymap::load(&self.x).map_err(not_started)?;
                input::plan(action, origin, size, &keymap)
            }
            other => other,
        }
        .map_err(not_started)?;
        if let Some(point) = action.point() {
            self.refuse_covered(win, origin, point)?;
        }
        let sent = input::send(&self.x, self.root, &plan, &keymap, self.config.remap_grace);
        self.bound.extend(plan.remaps.iter().map(|(code, _)| *code));
        sent?;
        std::thread::sleep(self.config.input_settle);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_display_is_unavailable_and_says_what_to_start() {
        let config = DesktopConfig {
            display: Some(":999999".into()),
            ..DesktopConfig::default()
        };
        match LinuxDesktop::connect(config) {
            Err(DesktopError::Unavailable(m)) => assert!(m.contains("Xvfb"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("connected to display :999999"),
        }
    }
}
