//! Mapping an AT-SPI window onto its X window, and raising and focusing it (N42).
//!
//! AT-SPI says nothing about X windows, so the match is made from what both sides know:
//! - the process: the bus daemon's pid of the app's connection against `_NET_WM_PID`;
//! - the title: the frame's accessible name against `_NET_WM_NAME` (or `WM_NAME`);
//! - the geometry: the frame's screen extents against the X window's position and size.
//!
//! Candidates are the window manager's `_NET_CLIENT_LIST` when one runs, else the root's
//! children. A candidate with another pid is never taken. Among the rest, an equal title comes
//! first, then the nearest geometry. A window that sets no `_NET_WM_PID` can only match by an
//! equal title.
//!
//! It also says which window a point of the screen belongs to ([`covered_by`]), so pointer
//! input is never sent to a point another window covers.

use x11rb::CURRENT_TIME;
use x11rb::errors::{ConnectionError, ReplyError};
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask,
    InputFocus, MapState, StackMode, Window,
};
use x11rb::rust_connection::RustConnection;

/// An X window's place on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// What is known of the AT-SPI window being looked for.
pub(crate) struct Wanted<'a> {
    pub pid: Option<u32>,
    pub title: &'a str,
    pub extents: Option<[i32; 4]>,
}

struct Atoms {
    net_client_list: Atom,
    net_wm_pid: Atom,
    net_wm_name: Atom,
    utf8_string: Atom,
    net_active_window: Atom,
    net_supported: Atom,
    net_supporting_wm_check: Atom,
}

fn atom(x: &RustConnection, name: &[u8]) -> Result<Atom, ReplyError> {
    Ok(x.intern_atom(false, name)?.reply()?.atom)
}

fn atoms(x: &RustConnection) -> Result<Atoms, ReplyError> {
    Ok(Atoms {
        net_client_list: atom(x, b"_NET_CLIENT_LIST")?,
        net_wm_pid: atom(x, b"_NET_WM_PID")?,
        net_wm_name: atom(x, b"_NET_WM_NAME")?,
        utf8_string: atom(x, b"UTF8_STRING")?,
        net_active_window: atom(x, b"_NET_ACTIVE_WINDOW")?,
        net_supported: atom(x, b"_NET_SUPPORTED")?,
        net_supporting_wm_check: atom(x, b"_NET_SUPPORTING_WM_CHECK")?,
    })
}

fn cardinals(
    x: &RustConnection,
    win: Window,
    prop: Atom,
    kind: AtomEnum,
) -> Result<Vec<u32>, ReplyError> {
    let reply = x.get_property(false, win, prop, kind, 0, 4096)?.reply()?;
    Ok(reply
        .value32()
        .map(std::iter::Iterator::collect)
        .unwrap_or_default())
}

fn title(x: &RustConnection, a: &Atoms, win: Window) -> Result<String, ReplyError> {
    let net = x
        .get_property(false, win, a.net_wm_name, a.utf8_string, 0, 1024)?
        .reply()?;
    if !net.value.is_empty() {
        return Ok(String::from_utf8_lossy(&net.value).into_owned());
    }
    let old = x
        .get_property(false, win, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 1024)?
        .reply()?;
    Ok(String::from_utf8_lossy(&old.value).into_owned())
}

/// The window's title (`_NET_WM_NAME`, else `WM_NAME`).
pub(crate) fn title_of(x: &RustConnection, win: Window) -> Result<String, ReplyError> {
    title(x, &atoms(x)?, win)
}

/// The window's position relative to the root and its size; `None` when it no longer exists.
pub(crate) fn geometry(
    x: &RustConnection,
    root: Window,
    win: Window,
) -> Result<Option<Geometry>, ConnectionError> {
    let g = match x.get_geometry(win)?.reply() {
        Ok(g) => g,
        Err(ReplyError::X11Error(_)) => return Ok(None),
        Err(ReplyError::ConnectionError(e)) => return Err(e),
    };
    let t = match x.translate_coordinates(win, root, 0, 0)?.reply() {
        Ok(t) => t,
        Err(ReplyError::X11Error(_)) => return Ok(None),
        Err(ReplyError::ConnectionError(e)) => return Err(e),
    };
    Ok(Some(Geometry {
        x: i32::from(t.dst_x),
        y: i32::from(t.dst_y),
        width: u32::from(g.width),
        height: u32::from(g.height),
    }))
}

/// Whether the window exists and is viewable (mapped, with all its ancestors mapped).
pub(crate) fn viewable(x: &RustConnection, win: Window) -> Result<bool, ConnectionError> {
    match x.get_window_attributes(win)?.reply() {
        Ok(a) => Ok(a.map_state == MapState::VIEWABLE),
        Err(ReplyError::X11Error(_)) => Ok(false),
        Err(ReplyError::ConnectionError(e)) => Err(e),
    }
}

/// Finds the X window of `wanted`. `unmapped` also considers windows that are not viewable
/// (to restore a minimized one).
pub(crate) fn find(
    x: &RustConnection,
    root: Window,
    wanted: &Wanted<'_>,
    unmapped: bool,
) -> Result<Option<Window>, ReplyError> {
    let a = atoms(x)?;
    let mut candidates = cardinals(x, root, a.net_client_list, AtomEnum::WINDOW)?;
    if candidates.is_empty() {
        candidates = x.query_tree(root)?.reply()?.children;
    }
    // (title differs, geometry distance, window): the smallest wins.
    let mut best: Option<(bool, i64, Window)> = None;
    for win in candidates {
        // A window destroyed during the scan is simply not a candidate.
        let Ok(attrs) = x.get_window_attributes(win)?.reply() else {
            continue;
        };
        if attrs.override_redirect || (!unmapped && attrs.map_state != MapState::VIEWABLE) {
            continue;
        }
        let Ok(pids) = cardinals(x, win, a.net_wm_pid, AtomEnum::CARDINAL) else {
            continue;
        };
        let pid = pids.first().copied();
        if let (Some(want), Some(have)) = (wanted.pid, pid)
            && want != have
        {
            continue;
        }
        let Ok(t) = title(x, &a, win) else { continue };
        let title_differs = t != wanted.title;
        if pid.is_none() && title_differs {
            continue;
        }
        let distance = match (wanted.extents, geometry(x, root, win)?) {
            (Some([ex, ey, ew, eh]), Some(g)) => {
                i64::from((g.x - ex).abs())
                    + i64::from((g.y - ey).abs())
                    + (i64::from(g.width) - i64::from(ew)).abs()
                    + (i64::from(g.height) - i64::from(eh)).abs()
            }
            (_, None) => continue,
            (None, Some(_)) => i64::MAX / 2,
        };
        let key = (title_differs, distance, win);
        if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
            best = Some(key);
        }
    }
    Ok(best.map(|b| b.2))
}

/// Raises and focuses `win`: through the window manager's `_NET_ACTIVE_WINDOW` when one runs
/// and supports it (a client raising itself is otherwise overridden or ignored by it), else
/// by mapping, raising and focusing the window directly.
pub(crate) fn activate(x: &RustConnection, root: Window, win: Window) -> Result<(), ReplyError> {
    let a = atoms(x)?;
    let wm_check = cardinals(x, root, a.net_supporting_wm_check, AtomEnum::WINDOW)?;
    let supported = cardinals(x, root, a.net_supported, AtomEnum::ATOM)?;
    if !wm_check.is_empty() && supported.contains(&a.net_active_window) {
        // Source 2: a pager or similar tool acting for the user, which WMs obey.
        let event =
            ClientMessageEvent::new(32, win, a.net_active_window, [2, CURRENT_TIME, 0, 0, 0]);
        x.send_event(
            false,
            root,
            EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
            event,
        )?;
    } else {
        x.map_window(win)?;
        x.configure_window(win, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE))?;
        // Focus needs the window viewable; a just-mapped window may not be yet.
        for _ in 0..50 {
            if viewable(x, win)? {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        x.set_input_focus(InputFocus::PARENT, win, CURRENT_TIME)?
            .check()?;
    }
    x.get_input_focus()?.reply()?;
    Ok(())
}

/// What is at the screen point `(sx, sy)` of `win`, when it is not `win` (or a window inside
/// it): the first window off `win`'s line of ancestors on the way down from the root, which is
/// where X delivers a click. Descending, not only asking the root, sees through a window
/// manager's frames and virtual roots; the root itself means no window is there.
pub(crate) fn covered_by(
    x: &RustConnection,
    root: Window,
    win: Window,
    (sx, sy): (i16, i16),
) -> Result<Option<Window>, ReplyError> {
    let mut ancestors = Vec::new();
    let mut w = win;
    for _ in 0..64 {
        let parent = x.query_tree(w)?.reply()?.parent;
        if parent == 0 || parent == root {
            break;
        }
        ancestors.push(parent);
        w = parent;
    }
    let mut at = root;
    for _ in 0..64 {
        let child = x.translate_coordinates(root, at, sx, sy)?.reply()?.child;
        if child == win {
            return Ok(None);
        }
        if child == 0 || !ancestors.contains(&child) {
            return Ok(Some(if child == 0 { at } else { child }));
        }
        at = child;
    }
    Ok(Some(at))
}

/// Whether `win` is an override-redirect window: a menu, a drop-down list, a tooltip.
pub(crate) fn is_popup(x: &RustConnection, win: Window) -> bool {
    x.get_window_attributes(win)
        .ok()
        .and_then(|c| c.reply().ok())
        .is_some_and(|a| a.override_redirect)
}

/// A window's title for a message: its own, else the first titled window inside it (a window
/// manager's frame has none), else "an untitled window".
pub(crate) fn describe(x: &RustConnection, win: Window) -> String {
    let Ok(a) = atoms(x) else {
        return "an untitled window".into();
    };
    let mut queue = std::collections::VecDeque::from([win]);
    let mut seen = 0;
    while let Some(w) = queue.pop_front() {
        seen += 1;
        if seen > 64 {
            break;
        }
        if let Ok(t) = title(x, &a, w)
            && !t.is_empty()
        {
            return format!("\"{t}\"");
        }
        if let Ok(tree) = x.query_tree(w).map(x11rb::cookie::Cookie::reply) {
            queue.extend(tree.map(|t| t.children).unwrap_or_default());
        }
    }
    "an untitled window".into()
}
