//! Test support: a string constant read straight out of a seed file in `shared/seeds/`, so
//! the tests that pin keel's copy of a seed's text (notifications.md T1, computer-use.md N1)
//! compare against the seed itself, never against a retyped expectation.
//!
//! The seeds are TypeScript declarations; a constant is the double-quoted literal after
//! `NAME = "`, decoded as a JavaScript string literal. `scripts/seed-literal` writes keel's
//! `.txt` copies the same way.

use sha2::{Digest, Sha256};

/// The path of a seed file, from the crate's manifest directory (shared/ lies beside the repo).
pub fn seed_path(file: &str) -> String {
    format!(
        "{}/../../../shared/seeds/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Decodes a JavaScript double-quoted string literal (the text between the quotes).
pub fn decode_js_literal(body: &str) -> String {
    let mut out = String::new();
    let mut units: Vec<u16> = Vec::new();
    let mut chars = body.chars();
    // `\uXXXX` escapes are UTF-16 code units: a surrogate pair is decoded together.
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        out.push_str(&String::from_utf16(units).unwrap_or_else(|e| panic!("bad \\u escapes: {e}")));
        units.clear();
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            flush(&mut units, &mut out);
            out.push(c);
            continue;
        }
        let e = chars.next().unwrap_or_else(|| panic!("dangling backslash"));
        if e == 'u' {
            let hex: String = chars.by_ref().take(4).collect();
            units.push(u16::from_str_radix(&hex, 16).unwrap_or_else(|e| panic!("{hex}: {e}")));
            continue;
        }
        flush(&mut units, &mut out);
        out.push(match e {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '0' => '\0',
            other => other, // \" \\ \' \/
        });
    }
    flush(&mut units, &mut out);
    out
}

/// The constant `name` of the seed at `path`, decoded. Panics, naming what is wrong, when the
/// seed or the constant cannot be found.
pub fn seed_literal(path: &str, name: &str) -> String {
    let seed = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("seed must be at {path} (shared/ beside the repo): {e}"));
    let marker = format!("{name} = \"");
    let start = seed
        .find(&marker)
        .unwrap_or_else(|| panic!("{name} is not in {path}"))
        + marker.len();
    let rest = &seed[start..];
    // The literal ends at the first unescaped quote.
    let mut end = None;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    decode_js_literal(&rest[..end.unwrap_or_else(|| panic!("{name}: unterminated literal"))])
}

/// Lowercase hex SHA-256 of `text`'s UTF-8 bytes, as the specs' fingerprints give it.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn decodes_escapes_and_surrogate_pairs() {
    assert_eq!(
        decode_js_literal(r#"a\nb\"c\u98DE\uD83D\uDE00\\"#),
        "a\nb\"c飞😀\\"
    );
}
