//! N38a: how one AT-SPI object reads as an observation [`Element`]. Pure, so the mapping is
//! tested without a bus.

use atspi_common::{Role, State, StateSet};
use keel_computer::observation::{Element, ROLE_TEXT_AREA, ROLE_TEXT_FIELD, ROLE_WINDOW};

/// What the tree walk learnt about one object.
#[derive(Clone, Debug)]
pub(crate) struct Facts {
    pub role: Role,
    pub states: StateSet,
    pub name: String,
    /// The name of the first object this one is labelled by, read only when `name` is empty.
    pub labelled_by: Option<String>,
    /// The Text interface's contents, read only for text elements.
    pub text: Option<String>,
    /// Screen extents `[x, y, width, height]`, when the object has a Component interface.
    pub extents: Option<[i32; 4]>,
    /// Below a DOCUMENT_WEB object.
    pub in_web_content: bool,
}

impl Facts {
    pub(crate) fn new(role: Role) -> Self {
        Facts {
            role,
            states: StateSet::empty(),
            name: String::new(),
            labelled_by: None,
            text: None,
            extents: None,
            in_web_content: false,
        }
    }
}

/// The roles a top-level window has (N38: all read as `AXWindow`).
pub(crate) fn is_window_role(role: Role) -> bool {
    matches!(
        role,
        Role::Frame | Role::Window | Role::Dialog | Role::Alert | Role::FileChooser
    )
}

/// Roles that only lay other elements out: nothing labels them, so the walk does not ask.
pub(crate) fn is_layout(role: Role) -> bool {
    matches!(
        role,
        Role::Filler
            | Role::Panel
            | Role::Separator
            | Role::ScrollPane
            | Role::ScrollBar
            | Role::Viewport
            | Role::SplitPane
            | Role::LayeredPane
            | Role::RootPane
            | Role::GlassPane
            | Role::PageTabList
            | Role::MenuBar
            | Role::ToolBar
            | Role::StatusBar
            | Role::Section
            | Role::Unknown
            | Role::RedundantObject
    )
}

/// Roles whose checked state GTK 3 reports without also reporting CHECKABLE. ATK only gained
/// CHECKABLE late and GTK 3's toggle buttons never set it, so without this a GTK check box
/// would carry no `selected` and a `selected` expectation could never be checked.
fn checkable_by_role(role: Role) -> bool {
    matches!(
        role,
        Role::CheckBox
            | Role::RadioButton
            | Role::ToggleButton
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

/// Whether the object is a text element: its contents are its value (N38a). Labels implement
/// the Text interface too; they are not text elements, their text is already their name.
pub(crate) fn is_text_element(role: Role, states: StateSet) -> bool {
    matches!(
        role,
        Role::Entry | Role::PasswordText | Role::Text | Role::Terminal
    ) || (states.contains(State::Editable)
        && matches!(
            role,
            Role::SpinButton | Role::Paragraph | Role::DocumentText
        ))
}

/// The element's role in the observation vocabulary: windows are `AXWindow`, single-line text
/// `AXTextField`, multi-line text `AXTextArea`, everything else its AT-SPI role name.
pub(crate) fn element_role(role: Role, states: StateSet) -> String {
    if is_window_role(role) {
        return ROLE_WINDOW.into();
    }
    if is_text_element(role, states) {
        let single = states.contains(State::SingleLine)
            || (!states.contains(State::MultiLine)
                && matches!(role, Role::Entry | Role::PasswordText | Role::SpinButton));
        return if single {
            ROLE_TEXT_FIELD
        } else {
            ROLE_TEXT_AREA
        }
        .into();
    }
    role_name(role).to_string()
}

/// AT-SPI's name for the role. atspi-common's table says "button" for role 43, where AT-SPI
/// and ATK (and so every screen reader and accerciser) say "push button".
pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Button => "push button",
        other => other.name(),
    }
}

/// The element, its bounds made relative to the window's screen origin.
pub(crate) fn element(facts: &Facts, origin: (i32, i32)) -> Element {
    let states = facts.states;
    let selectable = states.contains(State::Selectable)
        || states.contains(State::Checkable)
        || checkable_by_role(facts.role);
    let label = if facts.name.is_empty() {
        facts.labelled_by.clone().unwrap_or_default()
    } else {
        facts.name.clone()
    };
    let bounds = facts
        .extents
        .map(|[x, y, w, h]| [x - origin.0, y - origin.1, w, h])
        .unwrap_or_default();
    Element {
        role: element_role(facts.role, states),
        label,
        value: if is_text_element(facts.role, states) {
            facts.text.clone()
        } else {
            None
        },
        selected: selectable
            .then(|| states.contains(State::Selected) || states.contains(State::Checked)),
        focused: states.contains(State::Focused).then_some(true),
        bounds,
        in_web_content: facts.in_web_content.then_some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(role: Role, states: &[State]) -> Facts {
        let mut set = StateSet::empty();
        for s in states {
            set.insert(*s);
        }
        Facts {
            states: set,
            ..Facts::new(role)
        }
    }

    #[test]
    fn roles_map_per_n38a() {
        for role in [Role::Frame, Role::Window, Role::Dialog] {
            assert_eq!(element(&facts(role, &[]), (0, 0)).role, "AXWindow");
        }
        let entry = facts(Role::Entry, &[State::Editable, State::SingleLine]);
        assert_eq!(element(&entry, (0, 0)).role, "AXTextField");
        assert_eq!(
            element(&facts(Role::Entry, &[]), (0, 0)).role,
            "AXTextField"
        );
        let area = facts(Role::Text, &[State::Editable, State::MultiLine]);
        assert_eq!(element(&area, (0, 0)).role, "AXTextArea");
        let single_text = facts(Role::Text, &[State::Editable, State::SingleLine]);
        assert_eq!(element(&single_text, (0, 0)).role, "AXTextField");
        assert_eq!(
            element(&facts(Role::Button, &[]), (0, 0)).role,
            "push button"
        );
        // A label's text is its name, not a value.
        let mut label = facts(Role::Label, &[]);
        label.text = Some("x".into());
        assert_eq!(element(&label, (0, 0)).value, None);
    }

    #[test]
    fn selected_only_on_selectable_or_checkable() {
        assert_eq!(element(&facts(Role::Button, &[]), (0, 0)).selected, None);
        let item = facts(Role::ListItem, &[State::Selectable, State::Selected]);
        assert_eq!(element(&item, (0, 0)).selected, Some(true));
        let unchecked = facts(Role::MenuItem, &[State::Checkable]);
        assert_eq!(element(&unchecked, (0, 0)).selected, Some(false));
        let checked = facts(Role::CheckBox, &[State::Checked]);
        assert_eq!(element(&checked, (0, 0)).selected, Some(true));
    }

    #[test]
    fn label_value_focus_bounds_web() {
        let mut f = facts(Role::Entry, &[State::Focused]);
        f.labelled_by = Some("To".into());
        f.text = Some("a@b".into());
        f.extents = Some([110, 220, 50, 20]);
        f.in_web_content = true;
        let e = element(&f, (100, 200));
        assert_eq!(e.label, "To");
        assert_eq!(e.value.as_deref(), Some("a@b"));
        assert_eq!(e.focused, Some(true));
        assert_eq!(e.bounds, [10, 20, 50, 20]);
        assert_eq!(e.in_web_content, Some(true));
        f.name = "Recipient".into();
        assert_eq!(element(&f, (0, 0)).label, "Recipient");
    }
}
