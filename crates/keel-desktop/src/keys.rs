//! Key names and characters as X keysyms: the pure half of keyboard input, so every name the
//! model may send is checked before anything reaches the display.

/// An X keysym.
pub(crate) type Keysym = u32;

pub(crate) const XK_SHIFT_L: Keysym = 0xffe1;
pub(crate) const XK_RETURN: Keysym = 0xff0d;
pub(crate) const XK_TAB: Keysym = 0xff09;

/// Named keys, xdotool-style (X keysym names, plus a few common aliases). Matched without
/// regard to case, so `Return`, `return` and `RETURN` are one key.
const NAMED: &[(&str, Keysym)] = &[
    ("return", XK_RETURN),
    ("enter", XK_RETURN),
    ("tab", XK_TAB),
    ("escape", 0xff1b),
    ("esc", 0xff1b),
    ("backspace", 0xff08),
    ("delete", 0xffff),
    ("del", 0xffff),
    ("insert", 0xff63),
    ("home", 0xff50),
    ("end", 0xff57),
    ("page_up", 0xff55),
    ("pageup", 0xff55),
    ("prior", 0xff55),
    ("page_down", 0xff56),
    ("pagedown", 0xff56),
    ("next", 0xff56),
    ("left", 0xff51),
    ("up", 0xff52),
    ("right", 0xff53),
    ("down", 0xff54),
    ("space", 0x20),
    ("menu", 0xff67),
    ("print", 0xff61),
    ("caps_lock", 0xffe5),
    ("shift", XK_SHIFT_L),
    ("shift_l", XK_SHIFT_L),
    ("shift_r", 0xffe2),
    ("ctrl", 0xffe3),
    ("control", 0xffe3),
    ("control_l", 0xffe3),
    ("control_r", 0xffe4),
    ("alt", 0xffe9),
    ("alt_l", 0xffe9),
    ("alt_r", 0xffea),
    ("super", 0xffeb),
    ("super_l", 0xffeb),
    ("super_r", 0xffec),
    ("win", 0xffeb),
    ("meta", 0xffe7),
    ("meta_l", 0xffe7),
    ("kp_enter", 0xff8d),
    ("minus", 0x2d),
    ("plus", 0x2b),
    ("equal", 0x3d),
    ("comma", 0x2c),
    ("period", 0x2e),
    ("slash", 0x2f),
    ("backslash", 0x5c),
    ("semicolon", 0x3b),
    ("apostrophe", 0x27),
    ("grave", 0x60),
    ("bracketleft", 0x5b),
    ("bracketright", 0x5d),
];

/// The keysym for one key name: a named key, `F1`..`F35`, or a single character.
pub(crate) fn keysym_for_name(name: &str) -> Option<Keysym> {
    let lower = name.to_ascii_lowercase();
    if let Some((_, ks)) = NAMED.iter().find(|(n, _)| *n == lower) {
        return Some(*ks);
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|d| d.parse::<u32>().ok())
        && (1..=35).contains(&n)
    {
        return Some(0xffbe + n - 1);
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => keysym_for_char(c),
        _ => None,
    }
}

/// Parses `keys` (`"ctrl+a"`, `"Return"`, `"shift+Tab"`) into keysyms, pressed in order and
/// released in reverse. Keys are joined with `+`; where a key is expected, `+` is the plus key
/// itself (`"ctrl++"` is ctrl and plus, `"+"` is plus; `"plus"` works anywhere).
pub(crate) fn parse_combo(keys: &str) -> Result<Vec<Keysym>, String> {
    let unknown = |k: &str| {
        format!("unknown key `{k}` in `{keys}` (use X keysym names such as Return, Tab, ctrl, a)")
    };
    let mut out = Vec::new();
    let mut rest = keys;
    loop {
        let (key, after) = match rest.strip_prefix('+') {
            Some(after) => ("+", after),
            None => rest.split_at(rest.find('+').unwrap_or(rest.len())),
        };
        let name = key.trim();
        if name.is_empty() {
            return Err(format!(
                "`{keys}` has an empty key name (keys are joined with `+`)"
            ));
        }
        out.push(keysym_for_name(name).ok_or_else(|| unknown(name))?);
        if after.is_empty() {
            return Ok(out);
        }
        // Past a key comes a separator, and after it another key.
        rest = after
            .strip_prefix('+')
            .ok_or_else(|| format!("`{keys}`: expected `+` after `{name}`"))?;
        if rest.is_empty() {
            return Err(format!("`{keys}` ends with `+` and no key after it"));
        }
    }
}

/// The keysym that types `c`: Latin-1 characters are their own keysyms, every other character
/// is its Unicode keysym (0x0100_0000 + code point), which toolkits read directly. LF is
/// Return and TAB is Tab; other control characters have no keysym.
pub(crate) fn keysym_for_char(c: char) -> Option<Keysym> {
    let cp = c as u32;
    match c {
        '\n' => Some(XK_RETURN),
        '\t' => Some(XK_TAB),
        _ if c.is_control() => None,
        _ if (0x20..=0x7e).contains(&cp) || (0xa0..=0xff).contains(&cp) => Some(cp),
        _ => Some(0x0100_0000 + cp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_combos() {
        assert_eq!(keysym_for_name("Return"), Some(XK_RETURN));
        assert_eq!(keysym_for_name("RETURN"), Some(XK_RETURN));
        assert_eq!(keysym_for_name("F1"), Some(0xffbe));
        assert_eq!(keysym_for_name("F12"), Some(0xffc9));
        assert_eq!(keysym_for_name("a"), Some(0x61));
        assert_eq!(keysym_for_name("A"), Some(0x41));
        assert_eq!(keysym_for_name("Foo"), None);
        assert_eq!(parse_combo("ctrl+a"), Ok(vec![0xffe3, 0x61]));
        assert_eq!(
            parse_combo("ctrl+shift+Tab"),
            Ok(vec![0xffe3, XK_SHIFT_L, XK_TAB])
        );
        assert_eq!(parse_combo("ctrl++"), Ok(vec![0xffe3, 0x2b]));
        assert_eq!(parse_combo("+"), Ok(vec![0x2b]));
        assert!(parse_combo("").is_err());
        assert!(parse_combo("a++b").is_err());
        assert_eq!(parse_combo("ctrl+plus+b"), Ok(vec![0xffe3, 0x2b, 0x62]));
        assert!(parse_combo("ctrl+").is_err());
        assert!(parse_combo("ctrl+nope").is_err());
    }

    #[test]
    fn chars() {
        assert_eq!(keysym_for_char('a'), Some(0x61));
        assert_eq!(keysym_for_char('é'), Some(0xe9));
        assert_eq!(keysym_for_char('€'), Some(0x0100_20ac));
        assert_eq!(keysym_for_char('\n'), Some(XK_RETURN));
        assert_eq!(keysym_for_char('\u{7}'), None);
    }
}
