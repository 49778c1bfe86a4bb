//! The simulated desktop: a [`Desktop`] held entirely in memory, for deterministic tests of
//! the session machine, the tool and the gate. Apps, windows and accessibility trees are
//! scripted; inputs have effects (a click toggles a check box or focuses a field, typing edits
//! the focused field, a click on a button can set another element's text); and faults can be
//! injected: a dispatch that fails before it starts or ends unknown, a window that keeps
//! changing, a release that is never confirmed, a window that disappears.
//!
//! It is pure (no IO, no clock), so it lives beside the machine it tests.

use std::collections::BTreeMap;

use super::desktop::{AppInfo, Desktop, DesktopError, DispatchError, Frame, Snapshot, WindowInfo};
use super::observation::{Action, Element, ROLE_TEXT_AREA, ROLE_TEXT_FIELD, ROLE_WINDOW};

/// One scripted window.
#[derive(Clone, Debug)]
pub struct SimWindow {
    pub key: String,
    pub title: String,
    pub width: u32,
    pub height: u32,
    /// The subtree after the window element, depth first.
    pub elements: Vec<Element>,
    /// A click on the element labelled with the key sets the text of the element labelled
    /// with the value's first part to the value's second part.
    pub on_click: BTreeMap<String, (String, String)>,
}

impl SimWindow {
    pub fn new(key: &str, title: &str) -> Self {
        Self {
            key: key.into(),
            title: title.into(),
            width: 800,
            height: 600,
            elements: Vec::new(),
            on_click: BTreeMap::new(),
        }
    }

    /// Adds an element; returns the window for chaining.
    pub fn with(mut self, element: Element) -> Self {
        self.elements.push(element);
        self
    }
}

/// An element helper for scripts: `role`, `label`, bounds.
pub fn element(role: &str, label: &str, bounds: [i32; 4]) -> Element {
    Element {
        role: role.into(),
        label: label.into(),
        bounds,
        ..Element::default()
    }
}

/// A text field with a value.
pub fn text_field(label: &str, value: &str, bounds: [i32; 4]) -> Element {
    Element {
        value: Some(value.into()),
        ..element(ROLE_TEXT_FIELD, label, bounds)
    }
}

/// A check box.
pub fn check_box(label: &str, checked: bool, bounds: [i32; 4]) -> Element {
    Element {
        selected: Some(checked),
        ..element("check box", label, bounds)
    }
}

/// One scripted app.
#[derive(Clone, Debug)]
pub struct SimApp {
    pub key: String,
    pub name: String,
    pub instances: u32,
    pub windows: Vec<SimWindow>,
}

/// The simulated desktop.
#[derive(Clone, Debug, Default)]
pub struct SimDesktop {
    pub apps: Vec<SimApp>,
    /// Every input delivered, in order, with its window: what the tests check nothing was
    /// replayed against.
    pub delivered: Vec<(String, Action)>,
    /// Windows brought forward.
    pub prepared: Vec<String>,
    /// Releases confirmed.
    pub released: Vec<String>,
    /// The next inputs fail so, one fault per input.
    pub dispatch_faults: Vec<DispatchError>,
    /// This many snapshots to come each see the window changed (a ticking element).
    pub churn: u32,
    ticks: u32,
    /// Releases are not confirmed while set.
    pub release_fails: bool,
    /// Snapshots come with a frame of the window's size.
    pub frames: bool,
    /// The frame's PNG size in bytes (default: a few).
    pub frame_bytes: usize,
    /// Snapshots taken.
    pub snapshots: u32,
    /// Snapshots say they could read only part of the tree.
    pub partial: bool,
}

impl SimDesktop {
    pub fn new(apps: Vec<SimApp>) -> Self {
        Self {
            apps,
            ..Self::default()
        }
    }

    /// One app with one window.
    pub fn single(app: &str, window: SimWindow) -> Self {
        Self::new(vec![SimApp {
            key: format!("key:{app}"),
            name: app.into(),
            instances: 1,
            windows: vec![window],
        }])
    }

    fn window_mut(&mut self, key: &str) -> Option<&mut SimWindow> {
        self.apps
            .iter_mut()
            .flat_map(|a| a.windows.iter_mut())
            .find(|w| w.key == key)
    }

    /// The window disappears (closed by the user): later calls on it fail as gone.
    pub fn close_window(&mut self, key: &str) {
        for app in &mut self.apps {
            app.windows.retain(|w| w.key != key);
        }
    }

    /// The element labelled `label` in window `key`.
    pub fn element(&self, key: &str, label: &str) -> Option<&Element> {
        self.apps
            .iter()
            .flat_map(|a| a.windows.iter())
            .find(|w| w.key == key)
            .and_then(|w| w.elements.iter().find(|e| e.label == label))
    }
}

fn hit(elements: &[Element], x: i32, y: i32) -> Option<usize> {
    elements
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            let [ex, ey, w, h] = e.bounds;
            x >= ex && y >= ey && x < ex + w && y < ey + h
        })
        .min_by_key(|(_, e)| i64::from(e.bounds[2]) * i64::from(e.bounds[3]))
        .map(|(i, _)| i)
}

fn focus(elements: &mut [Element], at: usize) {
    for (i, e) in elements.iter_mut().enumerate() {
        if e.focused.is_some() || i == at {
            e.focused = Some(i == at);
        }
    }
}

fn is_editable(e: &Element) -> bool {
    e.role == ROLE_TEXT_FIELD || e.role == ROLE_TEXT_AREA
}

impl Desktop for SimDesktop {
    fn apps(&mut self) -> Result<Vec<AppInfo>, DesktopError> {
        Ok(self
            .apps
            .iter()
            .map(|a| AppInfo {
                key: a.key.clone(),
                name: a.name.clone(),
                running: true,
                instances: a.instances,
            })
            .collect())
    }

    fn windows(&mut self, app: &str) -> Result<Vec<WindowInfo>, DesktopError> {
        let app = self
            .apps
            .iter()
            .find(|a| a.key == app)
            .ok_or_else(|| DesktopError::Gone(format!("app {app} is not running")))?;
        Ok(app
            .windows
            .iter()
            .map(|w| WindowInfo {
                key: w.key.clone(),
                title: w.title.clone(),
            })
            .collect())
    }

    fn prepare(&mut self, window: &str) -> Result<(), DesktopError> {
        self.window_mut(window)
            .ok_or_else(|| DesktopError::Gone(window.into()))?;
        self.prepared.push(window.into());
        Ok(())
    }

    fn snapshot(&mut self, window: &str, with_frame: bool) -> Result<Snapshot, DesktopError> {
        self.snapshots += 1;
        if self.churn > 0 {
            self.churn -= 1;
            self.ticks += 1;
        }
        let ticks = self.ticks;
        let frames = self.frames;
        let frame_bytes = self.frame_bytes;
        let partial = self.partial;
        let w = self
            .window_mut(window)
            .ok_or_else(|| DesktopError::Gone(window.into()))?;
        let mut elements = vec![element(
            ROLE_WINDOW,
            &w.title,
            [0, 0, w.width as i32, w.height as i32],
        )];
        elements.extend(w.elements.iter().cloned());
        if ticks > 0 {
            elements.push(element("label", &format!("tick {ticks}"), [0, 0, 1, 1]));
        }
        Ok(Snapshot {
            elements,
            width: w.width,
            height: w.height,
            frame: (with_frame && frames).then(|| Frame {
                png: vec![0x89; frame_bytes.max(4)],
                width: w.width,
                height: w.height,
            }),
            partial,
        })
    }

    fn act(&mut self, window: &str, action: &Action) -> Result<(), DispatchError> {
        if self.window_mut(window).is_none() {
            return Err(DispatchError::NotStarted(format!(
                "window {window} is gone"
            )));
        }
        if !self.dispatch_faults.is_empty() {
            let fault = self.dispatch_faults.remove(0);
            if matches!(fault, DispatchError::Unknown(_)) {
                // It may well have arrived: that is what unknown means.
                self.delivered.push((window.into(), action.clone()));
            }
            return Err(fault);
        }
        self.delivered.push((window.into(), action.clone()));
        let Some(w) = self.window_mut(window) else {
            return Ok(());
        };
        match action {
            Action::Click { x, y } => {
                if let Some(i) = hit(&w.elements, *x, *y) {
                    if let Some(s) = w.elements[i].selected {
                        w.elements[i].selected = Some(!s);
                    }
                    if is_editable(&w.elements[i]) {
                        focus(&mut w.elements, i);
                    }
                    let label = w.elements[i].label.clone();
                    if let Some((target, text)) = w.on_click.get(&label).cloned()
                        && let Some(t) = w.elements.iter_mut().find(|e| e.label == target)
                    {
                        t.value = Some(text);
                    }
                }
            }
            Action::TypeText { text, x, y } => {
                if let (Some(x), Some(y)) = (x, y)
                    && let Some(i) = hit(&w.elements, *x, *y)
                {
                    focus(&mut w.elements, i);
                }
                if let Some(e) = w
                    .elements
                    .iter_mut()
                    .find(|e| e.focused == Some(true) && is_editable(e))
                {
                    e.value.get_or_insert_with(String::new).push_str(text);
                }
            }
            Action::Key { .. } | Action::Scroll { .. } | Action::Wait { .. } => {}
        }
        Ok(())
    }

    fn release(&mut self, window: &str) -> Result<(), DesktopError> {
        if self.release_fails {
            return Err(DesktopError::Unavailable("release not confirmed".into()));
        }
        self.released.push(window.into());
        Ok(())
    }
}
