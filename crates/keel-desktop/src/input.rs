//! Input through XTEST: an action is first planned in full (every key name, keysym and keycode
//! resolved, every point checked), so a bad action fails before anything reaches the display
//! (N25: `NotStarted`), and then sent as one burst of fake events.
//!
//! Characters the keymap lacks are typed by binding their keysyms to spare keycodes (ones with
//! no symbols), as xdotool does. The bindings stay until the spare keycodes run out or the
//! backend is dropped, because the app reads a binding when it handles the key, which may be
//! well after the X server delivered it; a character bound once is found in the keymap after.

use std::time::Duration;

use keel_computer::desktop::DispatchError;
use keel_computer::observation::Action;
use x11rb::connection::Connection as _;
use x11rb::cookie::VoidCookie;
use x11rb::protocol::xproto::{
    BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, ConnectionExt as _, KEY_PRESS_EVENT,
    KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT, Window,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;
use x11rb::{CURRENT_TIME, NONE};

use crate::keys::{self, Keysym, XK_SHIFT_L};

/// Most wheel steps one scroll may send (`|dx| + |dy|`); a scroll's units are wheel steps.
pub const MAX_SCROLL_STEPS: u32 = 100;

/// One fake event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Motion { x: i16, y: i16 },
    Button { button: u8, press: bool },
    Key { code: u8, press: bool },
    Pause(Duration),
}

/// The core keyboard mapping.
pub(crate) struct Keymap {
    min: u8,
    per: usize,
    syms: Vec<Keysym>,
}

impl Keymap {
    pub(crate) fn load(x: &RustConnection) -> Result<Keymap, String> {
        let setup = x.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = x
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(Keymap {
            min,
            per: usize::from(reply.keysyms_per_keycode),
            syms: reply.keysyms,
        })
    }

    #[cfg(test)]
    pub(crate) fn from_parts(min: u8, per: usize, syms: Vec<Keysym>) -> Keymap {
        Keymap { min, per, syms }
    }

    fn code(&self, index: usize) -> u8 {
        // The index is below the keycode count, which fits in a u8 with `min` added.
        self.min
            .saturating_add(u8::try_from(index).unwrap_or(u8::MAX))
    }

    /// The keycode that gives `ks` in the first group, and whether it needs shift.
    pub(crate) fn find(&self, ks: Keysym) -> Option<(u8, bool)> {
        if self.per == 0 {
            return None;
        }
        for (i, row) in self.syms.chunks(self.per).enumerate() {
            if row.first() == Some(&ks) {
                return Some((self.code(i), false));
            }
            if row.get(1) == Some(&ks) {
                return Some((self.code(i), true));
            }
        }
        // X's rule for a row listing only a lowercase letter: its shifted symbol is the capital.
        if (0x41..=0x5a).contains(&ks) {
            for (i, row) in self.syms.chunks(self.per).enumerate() {
                if row.first() == Some(&(ks + 0x20)) && row.get(1).is_none_or(|s| *s == 0) {
                    return Some((self.code(i), true));
                }
            }
        }
        None
    }

    /// Keycodes bound to nothing, in ascending order; they are taken from the top (the low
    /// ones are real keys on most keyboards).
    fn spare(&self) -> Vec<u8> {
        self.syms
            .chunks(self.per.max(1))
            .enumerate()
            .filter(|(_, row)| row.iter().all(|s| *s == 0))
            .map(|(i, _)| self.code(i))
            .collect()
    }
}

/// An action ready to send.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Spare keycodes to bind for the action, and the keysym each gets.
    pub remaps: Vec<(u8, Keysym)>,
    pub steps: Vec<Step>,
}

/// Chooses keycodes for keysyms, binding spare ones where the keymap has none.
struct Keys<'k> {
    map: &'k Keymap,
    spare: Vec<u8>,
    remaps: Vec<(u8, Keysym)>,
}

impl Keys<'_> {
    fn resolve(&mut self, ks: Keysym, what: &str) -> Result<(u8, bool), String> {
        if let Some(found) = self.map.find(ks) {
            return Ok(found);
        }
        if let Some((code, _)) = self.remaps.iter().find(|(_, s)| *s == ks) {
            return Ok((*code, false));
        }
        let code = self.spare.pop().ok_or_else(|| {
            format!("the keymap has no key for {what} and no spare keycode to bind it to")
        })?;
        self.remaps.push((code, ks));
        Ok((code, false))
    }

    fn shift(&mut self) -> Result<u8, String> {
        Ok(self.resolve(XK_SHIFT_L, "Shift")?.0)
    }
}

fn to_screen(origin: (i32, i32), x: i32, y: i32) -> Result<Step, String> {
    let (sx, sy) = (origin.0.saturating_add(x), origin.1.saturating_add(y));
    match (i16::try_from(sx), i16::try_from(sy)) {
        (Ok(x), Ok(y)) => Ok(Step::Motion { x, y }),
        _ => Err(format!("the point ({x}, {y}) is off the X screen")),
    }
}

fn click(steps: &mut Vec<Step>, button: u8) {
    steps.push(Step::Button {
        button,
        press: true,
    });
    steps.push(Step::Button {
        button,
        press: false,
    });
}

fn tap(steps: &mut Vec<Step>, code: u8, shifted: bool, shift: u8) {
    if shifted {
        steps.push(Step::Key {
            code: shift,
            press: true,
        });
    }
    steps.push(Step::Key { code, press: true });
    steps.push(Step::Key { code, press: false });
    if shifted {
        steps.push(Step::Key {
            code: shift,
            press: false,
        });
    }
}

/// Plans `action` for a window whose top-left corner is at `origin` on the screen, and whose
/// size is `size` (points outside it are refused).
pub(crate) fn plan(
    action: &Action,
    origin: (i32, i32),
    size: (u32, u32),
    map: &Keymap,
) -> Result<Plan, String> {
    let inside = |x: i32, y: i32| {
        let fits = |v: i32, max: u32| v >= 0 && u32::try_from(v).is_ok_and(|v| v < max);
        if fits(x, size.0) && fits(y, size.1) {
            Ok(())
        } else {
            Err(format!(
                "the point ({x}, {y}) is outside the {}x{} window",
                size.0, size.1
            ))
        }
    };
    let mut keys = Keys {
        map,
        spare: map.spare(),
        remaps: Vec::new(),
    };
    let mut steps = Vec::new();
    match action {
        Action::Click { x, y } => {
            inside(*x, *y)?;
            steps.push(to_screen(origin, *x, *y)?);
            click(&mut steps, 1);
        }
        Action::TypeText { text, x, y } => {
            match (x, y) {
                (Some(x), Some(y)) => {
                    inside(*x, *y)?;
                    steps.push(to_screen(origin, *x, *y)?);
                    click(&mut steps, 1);
                }
                (None, None) => {}
                _ => return Err("typeText needs both x and y, or neither".into()),
            }
            let shift = keys.shift()?;
            for c in text.chars() {
                // CR of a CRLF is dropped: LF alone presses Return once.
                if c == '\r' {
                    continue;
                }
                let ks = keys::keysym_for_char(c).ok_or_else(|| {
                    format!("cannot type the control character U+{:04X}", c as u32)
                })?;
                let (code, shifted) = keys.resolve(ks, &format!("`{c}`"))?;
                tap(&mut steps, code, shifted, shift);
            }
        }
        Action::Key { keys: combo } => {
            let syms = keys::parse_combo(combo)?;
            let shift = keys.shift()?;
            let mut pressed: Vec<u8> = Vec::new();
            for ks in syms {
                let (code, shifted) = keys.resolve(ks, &format!("`{combo}`"))?;
                if shifted && !pressed.contains(&shift) {
                    pressed.push(shift);
                }
                if !pressed.contains(&code) {
                    pressed.push(code);
                }
            }
            for code in &pressed {
                steps.push(Step::Key {
                    code: *code,
                    press: true,
                });
            }
            for code in pressed.iter().rev() {
                steps.push(Step::Key {
                    code: *code,
                    press: false,
                });
            }
        }
        Action::Scroll { x, y, dx, dy } => {
            inside(*x, *y)?;
            let total = dx.unsigned_abs().saturating_add(dy.unsigned_abs());
            if total > MAX_SCROLL_STEPS {
                return Err(format!(
                    "a scroll is at most {MAX_SCROLL_STEPS} wheel steps (|dx| + |dy|), not {total}"
                ));
            }
            steps.push(to_screen(origin, *x, *y)?);
            // X's wheel buttons: 4 up, 5 down, 6 left, 7 right; positive dy scrolls down.
            let vertical = if *dy > 0 { 5 } else { 4 };
            let horizontal = if *dx > 0 { 7 } else { 6 };
            for _ in 0..dy.unsigned_abs() {
                click(&mut steps, vertical);
            }
            for _ in 0..dx.unsigned_abs() {
                click(&mut steps, horizontal);
            }
        }
        Action::Wait { ms } => steps.push(Step::Pause(Duration::from_millis(u64::from(*ms)))),
    }
    Ok(Plan {
        remaps: keys.remaps,
        steps,
    })
}

/// Sends the plan. Errors before the first event is sent are `NotStarted`; after it, `Unknown`.
pub(crate) fn send(
    x: &RustConnection,
    root: Window,
    plan: &Plan,
    map: &Keymap,
    remap_grace: Duration,
) -> Result<(), DispatchError> {
    let not_started =
        |e: String| DispatchError::NotStarted(format!("X input failed before sending: {e}"));
    let unknown = |e: String| DispatchError::Unknown(format!("X input failed while sending: {e}"));
    let per = u8::try_from(map.per).unwrap_or(u8::MAX);
    // Binding keycodes is not input: the app has received nothing yet.
    for (code, ks) in &plan.remaps {
        let syms = vec![*ks; map.per];
        x.change_keyboard_mapping(1, *code, per, &syms)
            .map_err(|e| not_started(e.to_string()))?
            .check()
            .map_err(|e| not_started(e.to_string()))?;
    }
    if !plan.remaps.is_empty() {
        // The app learns of the new binding from MappingNotify; give it a moment.
        std::thread::sleep(remap_grace);
    }
    send_steps(x, root, &plan.steps).map_err(unknown)
}

/// Unbinds keycodes an earlier [`send`] bound. Not done right after typing: the app may read
/// the binding only when it handles the key, later than the X server delivered it, and would
/// then see the restored (empty) key.
pub(crate) fn unbind(x: &RustConnection, codes: &[u8], map: &Keymap) {
    let per = u8::try_from(map.per).unwrap_or(u8::MAX);
    let blank = vec![0; map.per];
    for code in codes {
        // A failed restore leaves a spare keycode bound, which harms nothing.
        let _ = x
            .change_keyboard_mapping(1, *code, per, &blank)
            .map(VoidCookie::ignore_error);
    }
    let _ = x.flush();
}

fn send_steps(x: &RustConnection, root: Window, steps: &[Step]) -> Result<(), String> {
    let mut cookies = Vec::with_capacity(steps.len());
    for step in steps {
        let cookie = match *step {
            Step::Motion { x: sx, y: sy } => {
                x.xtest_fake_input(MOTION_NOTIFY_EVENT, 0, CURRENT_TIME, root, sx, sy, 0)
            }
            Step::Button { button, press } => {
                let kind = if press {
                    BUTTON_PRESS_EVENT
                } else {
                    BUTTON_RELEASE_EVENT
                };
                x.xtest_fake_input(kind, button, CURRENT_TIME, NONE, 0, 0, 0)
            }
            Step::Key { code, press } => {
                let kind = if press {
                    KEY_PRESS_EVENT
                } else {
                    KEY_RELEASE_EVENT
                };
                x.xtest_fake_input(kind, code, CURRENT_TIME, NONE, 0, 0, 0)
            }
            Step::Pause(d) => {
                x.flush().map_err(|e| e.to_string())?;
                std::thread::sleep(d);
                continue;
            }
        };
        cookies.push(cookie.map_err(|e| e.to_string())?);
    }
    // One round trip makes the server process everything; then each cookie's error is known.
    x.get_input_focus()
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| e.to_string())?;
    for cookie in cookies {
        cookie.check().map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keycode 10: a/A, 11: Shift_L, 12: Return, 13 and 14: nothing.
    fn keymap() -> Keymap {
        Keymap::from_parts(
            10,
            2,
            vec![0x61, 0x41, XK_SHIFT_L, 0, keys::XK_RETURN, 0, 0, 0, 0, 0],
        )
    }

    #[test]
    fn typing_shifts_and_binds_spare_keycodes() {
        let action = Action::TypeText {
            text: "aA€".into(),
            x: None,
            y: None,
        };
        let p = plan(&action, (0, 0), (10, 10), &keymap()).unwrap();
        assert_eq!(p.remaps, vec![(14, 0x0100_20ac)]);
        let k = |code, press| Step::Key { code, press };
        assert_eq!(
            p.steps,
            vec![
                k(10, true),
                k(10, false),
                k(11, true),
                k(10, true),
                k(10, false),
                k(11, false),
                k(14, true),
                k(14, false)
            ]
        );
    }

    #[test]
    fn click_adds_the_window_origin_and_checks_the_point() {
        let p = plan(
            &Action::Click { x: 5, y: 6 },
            (100, 200),
            (10, 10),
            &keymap(),
        )
        .unwrap();
        assert_eq!(p.steps[0], Step::Motion { x: 105, y: 206 });
        assert_eq!(p.steps.len(), 3);
        assert!(plan(&Action::Click { x: 10, y: 0 }, (0, 0), (10, 10), &keymap()).is_err());
        assert!(plan(&Action::Click { x: -1, y: 0 }, (0, 0), (10, 10), &keymap()).is_err());
    }

    #[test]
    fn key_combos_press_in_order_and_release_in_reverse() {
        let p = plan(
            &Action::Key {
                keys: "shift+Return".into(),
            },
            (0, 0),
            (1, 1),
            &keymap(),
        )
        .unwrap();
        let k = |code, press| Step::Key { code, press };
        assert_eq!(
            p.steps,
            vec![k(11, true), k(12, true), k(12, false), k(11, false)]
        );
        assert!(
            plan(
                &Action::Key {
                    keys: "hyper+x".into()
                },
                (0, 0),
                (1, 1),
                &keymap()
            )
            .is_err()
        );
    }

    #[test]
    fn scroll_uses_wheel_buttons_and_is_bounded() {
        let p = plan(
            &Action::Scroll {
                x: 1,
                y: 1,
                dx: -1,
                dy: 2,
            },
            (0, 0),
            (5, 5),
            &keymap(),
        )
        .unwrap();
        let b = |button, press| Step::Button { button, press };
        assert_eq!(
            &p.steps[1..],
            &[
                b(5, true),
                b(5, false),
                b(5, true),
                b(5, false),
                b(6, true),
                b(6, false)
            ]
        );
        assert!(
            plan(
                &Action::Scroll {
                    x: 1,
                    y: 1,
                    dx: 0,
                    dy: 101
                },
                (0, 0),
                (5, 5),
                &keymap()
            )
            .is_err()
        );
    }
}
