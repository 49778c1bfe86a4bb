//! The Linux backend against a real display: each test starts its own Xvfb, session bus,
//! AT-SPI bus and GTK widget factory (interfaces.md §6), drives the app through
//! [`LinuxDesktop`], and kills every process it started when it ends.
//!
//! The programs come from Debian packages that `scripts/test` installs; a test fails (never
//! skips) when one is missing.

use crate::fixture;

use fixture::{Fixture, eventually};
use keel_computer::desktop::{Desktop, DesktopError, DispatchError, Snapshot};
use keel_computer::observation::{Action, Element};
use keel_desktop::{DesktopConfig, LinuxDesktop};

fn center(e: &Element) -> (i32, i32) {
    (e.bounds[0] + e.bounds[2] / 2, e.bounds[1] + e.bounds[3] / 2)
}

/// The element with the same role and bounds as `e` in `s`: GTK's entries and check buttons
/// here have no distinct labels, so the place identifies them.
fn same<'s>(s: &'s Snapshot, e: &Element) -> Option<&'s Element> {
    s.elements
        .iter()
        .find(|x| x.role == e.role && x.bounds == e.bounds)
}

#[test]
fn discovers_the_app_and_snapshots_its_window_with_a_screenshot() {
    let mut f = Fixture::start();
    let apps = f.desktop.apps().unwrap();
    let app = apps.iter().find(|a| a.name == fixture::APP).unwrap();
    assert!(app.running);
    assert_eq!(app.instances, 1);
    let windows = f.desktop.windows(&app.key).unwrap();
    assert_eq!(windows.len(), 1, "{windows:?}");
    // The frame has no accessible name; the title falls back to the X window's.
    assert_eq!(windows[0].title, fixture::APP);
    f.desktop.prepare(&windows[0].key).unwrap();

    let s = f.desktop.snapshot(&windows[0].key, true).unwrap();
    assert_eq!(s.elements[0].role, "AXWindow");
    assert_eq!(
        s.elements[0].bounds,
        [0, 0, s.width as i32, s.height as i32]
    );
    assert_eq!(
        s.elements.iter().filter(|e| e.role == "AXWindow").count(),
        1
    );
    assert!(
        s.elements.iter().any(|e| e.role == "AXTextField"),
        "no text field"
    );
    assert!(
        s.elements.iter().any(|e| e.role == "AXTextArea"),
        "no text area"
    );
    let boxes: Vec<_> = s
        .elements
        .iter()
        .filter(|e| e.role == "check box")
        .collect();
    assert!(!boxes.is_empty(), "no check box");
    assert!(
        boxes
            .iter()
            .all(|b| b.selected.is_some() && b.label == "checkbutton"),
        "{boxes:?}"
    );
    assert!(
        boxes.iter().any(|b| b.selected == Some(true))
            && boxes.iter().any(|b| b.selected == Some(false))
    );
    assert!(
        s.elements
            .iter()
            .any(|e| e.role == "push button" && e.label == "Close")
    );
    // Push buttons have no `selected` (N38a: only selectable or checkable elements do).
    assert!(
        s.elements
            .iter()
            .filter(|e| e.role == "push button")
            .all(|e| e.selected.is_none())
    );

    // Without a session bus the accessibility bus is found through the X root window's
    // AT_SPI_BUS property, which at-spi-bus-launcher sets.
    let mut via_x = LinuxDesktop::connect(DesktopConfig {
        display: Some(f.display.clone()),
        session_bus: Some("unix:path=/nonexistent/keel-test-bus".into()),
        ..DesktopConfig::default()
    })
    .unwrap();
    assert!(via_x.apps().unwrap().iter().any(|a| a.name == fixture::APP));

    let frame = s.frame.as_ref().unwrap();
    assert_eq!((frame.width, frame.height), (s.width, s.height));
    let decoder = png::Decoder::new(std::io::Cursor::new(&frame.png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (s.width, s.height));
    // GTK's light theme: most of the window is far from black.
    let bright = pixels
        .chunks(3)
        .filter(|p| p.iter().all(|c| *c > 128))
        .count();
    assert!(
        bright > pixels.len() / 3 / 2,
        "the screenshot is mostly dark: {bright} bright pixels"
    );
}

#[test]
fn typing_into_a_text_field_changes_its_value() {
    let mut f = Fixture::start();
    let window = f.window();
    f.desktop.prepare(&window).unwrap();
    let s = f.desktop.snapshot(&window, false).unwrap();
    // The empty entry (its placeholder is not its value), and an entry holding "entry".
    let empty = s
        .elements
        .iter()
        .find(|e| e.role == "AXTextField" && e.value.as_deref() == Some(""))
        .unwrap()
        .clone();
    let (x, y) = (empty.bounds[0] + 20, center(&empty).1);
    // é and € are not on Xvfb's US keymap: they go through a temporarily bound keycode.
    let text = "Keel typed 42 é€";
    f.desktop
        .act(
            &window,
            &Action::TypeText {
                text: text.into(),
                x: Some(x),
                y: Some(y),
            },
        )
        .unwrap();
    let typed = eventually(f.timeout, || {
        let s = f.desktop.snapshot(&window, false).ok()?;
        let e = same(&s, &empty)?;
        (e.value.as_deref() == Some(text)).then(|| e.clone())
    });
    assert_eq!(typed.focused, Some(true));

    // ctrl+a selects all, so the next text replaces it; Return is a named key.
    f.desktop
        .act(
            &window,
            &Action::Key {
                keys: "ctrl+a".into(),
            },
        )
        .unwrap();
    f.desktop
        .act(
            &window,
            &Action::TypeText {
                text: "replaced".into(),
                x: None,
                y: None,
            },
        )
        .unwrap();
    f.desktop
        .act(
            &window,
            &Action::Key {
                keys: "Return".into(),
            },
        )
        .unwrap();
    eventually(f.timeout, || {
        let s = f.desktop.snapshot(&window, false).ok()?;
        (same(&s, &empty)?.value.as_deref() == Some("replaced")).then_some(())
    });

    // Bad input is refused before anything is sent.
    let bad = f.desktop.act(
        &window,
        &Action::Key {
            keys: "ctrl+nosuchkey".into(),
        },
    );
    assert!(
        matches!(
            bad,
            Err(keel_computer::desktop::DispatchError::NotStarted(_))
        ),
        "{bad:?}"
    );
    let outside = f.desktop.act(&window, &Action::Click { x: -5, y: 10 });
    assert!(
        matches!(
            outside,
            Err(keel_computer::desktop::DispatchError::NotStarted(_))
        ),
        "{outside:?}"
    );
}

#[test]
fn clicking_a_check_button_flips_selected() {
    let mut f = Fixture::start();
    let window = f.window();
    f.desktop.prepare(&window).unwrap();
    let s = f.desktop.snapshot(&window, false).unwrap();
    // The topmost unchecked check button; the lower rows of the factory are insensitive.
    let mut boxes: Vec<_> = s
        .elements
        .iter()
        .filter(|e| e.role == "check box")
        .collect();
    boxes.sort_by_key(|e| e.bounds[1]);
    let target = (*boxes.iter().find(|e| e.selected == Some(false)).unwrap()).clone();
    let (x, y) = center(&target);
    for want in [true, false] {
        f.desktop.act(&window, &Action::Click { x, y }).unwrap();
        eventually(f.timeout, || {
            let s = f.desktop.snapshot(&window, false).ok()?;
            (same(&s, &target)?.selected == Some(want)).then_some(())
        });
    }
    // wait{ms} needs no window work at all.
    f.desktop.act(&window, &Action::Wait { ms: 1 }).unwrap();
    f.desktop
        .act(&window, &Action::Scroll { x, y, dx: 0, dy: 1 })
        .unwrap();
}

#[test]
fn a_closed_app_is_gone() {
    let mut f = Fixture::start();
    let window = f.window();
    f.desktop.snapshot(&window, false).unwrap();
    f.kill_app();
    let gone = eventually(f.timeout, || match f.desktop.snapshot(&window, false) {
        Err(e @ DesktopError::Gone(_)) => Some(e),
        _ => None,
    });
    assert!(matches!(gone, DesktopError::Gone(_)));
    eventually(f.timeout, || {
        f.desktop
            .apps()
            .ok()
            .filter(|a| a.iter().all(|a| a.name != fixture::APP))
    });
}

/// The mapped top-level X window titled `title` on `display` (its `_NET_WM_NAME`, else
/// `WM_NAME`), found among the root's children, and the connection that found it.
fn x_window_titled(display: &str, title: &str, timeout: std::time::Duration) -> (X, u32) {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
    let (x, screen) = x11rb::connect(Some(display)).unwrap_or_else(|e| panic!("{e}"));
    let root = x.setup().roots[screen].root;
    let net_wm_name = x
        .intern_atom(false, b"_NET_WM_NAME")
        .unwrap_or_else(|e| panic!("{e}"))
        .reply()
        .unwrap_or_else(|e| panic!("{e}"))
        .atom;
    let named = |w: u32| {
        [net_wm_name, AtomEnum::WM_NAME.into()].iter().any(|&p| {
            x.get_property(false, w, p, AtomEnum::ANY, 0, 1024)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|r| r.value == title.as_bytes())
        })
    };
    // Mapped: GTK's client leader, an unmapped window off screen, carries the title too.
    let mapped = |w: u32| {
        x.get_window_attributes(w)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|a| a.map_state == x11rb::protocol::xproto::MapState::VIEWABLE)
    };
    let win = eventually(timeout, || {
        let children = x.query_tree(root).ok()?.reply().ok()?.children;
        children.into_iter().find(|&w| mapped(w) && named(w))
    });
    (X { conn: x, root }, win)
}

struct X {
    conn: x11rb::rust_connection::RustConnection,
    root: u32,
}

impl X {
    /// Moves `win` so its top-left corner is at the screen point, stacked above the others,
    /// and waits until the server has it there.
    fn place_on_top(&self, win: u32, at: (i32, i32), timeout: std::time::Duration) {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xproto::{ConfigureWindowAux, ConnectionExt as _, StackMode};
        self.conn
            .configure_window(
                win,
                &ConfigureWindowAux::new()
                    .x(at.0)
                    .y(at.1)
                    .stack_mode(StackMode::ABOVE),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        self.conn.flush().unwrap_or_else(|e| panic!("{e}"));
        eventually(timeout, || {
            self.origin(win).filter(|o| *o == at).map(|_| ())
        });
    }

    /// Maps an override-redirect window at the screen point, and waits until it is viewable.
    fn popup(&self, at: (i32, i32), size: (u16, u16), timeout: std::time::Duration) -> u32 {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, MapState, WindowClass};
        let win = self.conn.generate_id().unwrap_or_else(|e| panic!("{e}"));
        self.conn
            .create_window(
                x11rb::COPY_DEPTH_FROM_PARENT,
                win,
                self.root,
                i16::try_from(at.0).unwrap_or_else(|e| panic!("{e}")),
                i16::try_from(at.1).unwrap_or_else(|e| panic!("{e}")),
                size.0,
                size.1,
                0,
                WindowClass::INPUT_OUTPUT,
                x11rb::COPY_FROM_PARENT,
                &CreateWindowAux::new().override_redirect(1),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        self.conn.map_window(win).unwrap_or_else(|e| panic!("{e}"));
        self.conn.flush().unwrap_or_else(|e| panic!("{e}"));
        eventually(timeout, || {
            let a = self.conn.get_window_attributes(win).ok()?.reply().ok()?;
            (a.map_state == MapState::VIEWABLE).then_some(())
        });
        win
    }

    fn destroy(&self, win: u32) {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xproto::ConnectionExt as _;
        self.conn
            .destroy_window(win)
            .unwrap_or_else(|e| panic!("{e}"));
        self.conn.flush().unwrap_or_else(|e| panic!("{e}"));
    }

    fn origin(&self, win: u32) -> Option<(i32, i32)> {
        use x11rb::protocol::xproto::ConnectionExt as _;
        let t = self
            .conn
            .translate_coordinates(win, self.root, 0, 0)
            .ok()?
            .reply()
            .ok()?;
        Some((i32::from(t.dst_x), i32::from(t.dst_y)))
    }
}

#[test]
fn pointer_input_where_another_window_covers_the_point_is_refused_until_the_window_is_raised() {
    let mut f = Fixture::start();
    let factory = f.window();
    let form = f.start_also(fixture::App::Form);
    let (x, form_x) = x_window_titled(&f.display, "keel form", f.timeout);
    let (_, factory_x) = x_window_titled(&f.display, fixture::APP, f.timeout);
    let origin = x.origin(factory_x).unwrap();
    // The form over the factory's top-left corner.
    x.place_on_top(form_x, origin, f.timeout);
    let factory_size = {
        let s = f.desktop.snapshot(&factory, false).unwrap();
        (s.width, s.height)
    };
    let form_size = {
        let s = f.desktop.snapshot(&form, false).unwrap();
        (s.width, s.height)
    };
    assert!(
        factory_size.0 > form_size.0 + 40 && factory_size.1 > form_size.1 + 40,
        "the factory {factory_size:?} must stick out of the form {form_size:?}"
    );
    // A pointer move alone (a scroll of no steps): input, but it changes nothing in the app.
    let at = |x: i32, y: i32| Action::Scroll { x, y, dx: 0, dy: 0 };
    let refused = |r: Result<(), DispatchError>| match r {
        Err(DispatchError::NotStarted(why)) => why,
        other => panic!("not refused: {other:?}"),
    };

    let why = refused(f.desktop.act(&factory, &at(20, 20)));
    assert!(
        why.starts_with("\"keel form\" covers the point (20, 20) of the window"),
        "{why}"
    );
    assert!(why.contains("prepare the window to raise it"), "{why}");
    // A click there would reach the form: it is refused the same way, before anything is sent.
    let why = refused(f.desktop.act(&factory, &Action::Click { x: 20, y: 20 }));
    assert!(why.contains("covers the point (20, 20)"), "{why}");
    let why = refused(f.desktop.act(
        &factory,
        &Action::TypeText {
            text: "x".into(),
            x: Some(20),
            y: Some(20),
        },
    ));
    assert!(why.contains("covers the point (20, 20)"), "{why}");
    // Where nothing covers the factory, and on the form itself, input goes through.
    let (w, h) = (factory_size.0 as i32, factory_size.1 as i32);
    f.desktop.act(&factory, &at(w - 20, h - 20)).unwrap();
    f.desktop.act(&form, &at(20, 20)).unwrap();

    // Raised, the factory takes the point, and the form is the covered one.
    f.desktop.prepare(&factory).unwrap();
    eventually(f.timeout, || f.desktop.act(&factory, &at(20, 20)).ok());
    let why = refused(f.desktop.act(&form, &at(20, 20)));
    assert!(why.contains("covers the point (20, 20)"), "{why}");

    // A popup (an override-redirect window, as menus and tooltips are) over the factory.
    let popup = x.popup((origin.0 + 10, origin.1 + 10), (60, 40), f.timeout);
    let why = refused(f.desktop.act(&factory, &at(20, 20)));
    assert!(
        why.starts_with("a menu, list or tooltip covers the point (20, 20)"),
        "{why}"
    );
    x.destroy(popup);
    eventually(f.timeout, || f.desktop.act(&factory, &at(20, 20)).ok());

    // Half off the screen (1600 wide): XTEST would put the pointer at the edge instead.
    x.place_on_top(factory_x, (1600 - 100, origin.1), f.timeout);
    f.desktop.act(&factory, &at(50, 20)).unwrap();
    let why = refused(f.desktop.act(&factory, &at(150, 20)));
    assert!(
        why.starts_with("the point (150, 20) of the window is off the screen"),
        "{why}"
    );
}

/// What the backend's defaults (no spec fixes them) do: the element cap reads GTK's widget
/// factory, a dense window, whole, and an input returns only after the settle time (50 ms),
/// so the next observation sees what it did.
#[test]
fn the_defaults_read_a_dense_window_whole_and_let_input_settle() {
    let mut f = Fixture::start();
    let window = f.window();
    f.desktop.prepare(&window).unwrap();
    let s = f.desktop.snapshot(&window, false).unwrap();
    assert!(!s.partial, "{} elements", s.elements.len());
    assert!(s.elements.len() < DesktopConfig::default().max_elements);
    // A key press into an empty text field moves its caret and changes nothing else.
    let field = s
        .elements
        .iter()
        .find(|e| e.role == "AXTextField" && e.value.as_deref() == Some(""))
        .unwrap();
    let (x, y) = (field.bounds[0] + 20, field.bounds[1] + field.bounds[3] / 2);
    f.desktop.act(&window, &Action::Click { x, y }).unwrap();
    let start = std::time::Instant::now();
    let right = Action::Key {
        keys: "Right".into(),
    };
    f.desktop.act(&window, &right).unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_millis(50));
}
