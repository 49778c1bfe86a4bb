//! Text read past the tricks that hide an address or a number from a search while a model
//! (or a person) still reads it: invisible characters inside a word (zero-width spaces, soft
//! hyphens, direction marks), fullwidth forms (`＠`), HTML entities and tags, percent- and
//! quoted-printable encoding, a backslash before punctuation (Markdown's `\@`), spelled-out
//! and bracketed separators (`mallory (at) evil (dot) io`, `evil[.]com`), and numbers written
//! in words ("thirty-five"). Provenance searches this form of a result too, so a value the
//! model tidied out of it is still the data's (issue 14; found by an outsider's attack).

/// `text` undisguised, or `None` when none of the tricks occurs in it.
pub fn undisguised(text: &str) -> Option<String> {
    if !has_trick(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // Invisible inside a word, and accents a search would trip on.
            c if keel_core::text::is_default_ignorable(c)
                || ('\u{0300}'..='\u{036f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c) => {}
            // Fullwidth ASCII (U+FF01..U+FF5E) is ASCII to a reader.
            '\u{ff01}'..='\u{ff5e}' => {
                out.push(char::from_u32(c as u32 - 0xfee0).unwrap_or(c));
            }
            '\u{3002}' | '\u{ff61}' => out.push('.'),
            // A digit of any script is its ASCII digit to a reader: a phone number written in
            // Arabic-Indic digits dials the same number.
            c if !c.is_ascii() && c.is_numeric() && ascii_digit(c).is_some() => {
                out.push(ascii_digit(c).unwrap_or(c));
            }
            '\\' if chars.peek().is_some_and(char::is_ascii_punctuation) => {}
            '&' => {
                let rest: String = chars.clone().take(10).collect();
                match entity(&rest) {
                    Some((decoded, used)) => {
                        out.push(decoded);
                        for _ in 0..used {
                            chars.next();
                        }
                    }
                    None => out.push('&'),
                }
            }
            '%' | '=' => {
                let hex: String = chars.clone().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(b) if hex.len() == 2 && (b.is_ascii_graphic() || b == b' ') => {
                        out.push(char::from(b));
                        chars.next();
                        chars.next();
                    }
                    _ => out.push(c),
                }
            }
            '<' => {
                // A tag inside a word (`mallory@<b>evil</b>.io`) is markup, not text.
                let tag: String = chars.clone().take_while(|&t| t != '>').take(40).collect();
                let closed = chars.clone().nth(tag.chars().count()) == Some('>');
                if closed
                    && tag
                        .chars()
                        .next()
                        .is_some_and(|t| t.is_ascii_alphabetic() || t == '/')
                {
                    for _ in 0..=tag.chars().count() {
                        chars.next();
                    }
                } else {
                    out.push('<');
                }
            }
            _ => out.push(c),
        }
    }
    let out = separators(&out);
    let out = with_number_words_as_digits(&out);
    (out != text).then_some(out)
}

/// The first digit (zero) of each run of ten decimal digits Unicode has outside ASCII
/// (general category Nd; each run holds 0 to 9 in order).
const DIGIT_ZEROS: &[u32] = &[
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950,
    0x1FBF0,
];

/// The ASCII digit a decimal digit of another script stands for.
pub(crate) fn ascii_digit(c: char) -> Option<char> {
    let code = c as u32;
    let at = DIGIT_ZEROS
        .partition_point(|&zero| zero <= code)
        .checked_sub(1)?;
    let value = code - DIGIT_ZEROS[at];
    (value < 10).then(|| char::from(b'0' + value as u8))
}

/// The marks the tricks need, as one pattern: the gate asks this of every result it indexes,
/// and almost every text has none, so one pass of one automaton over its bytes decides. A
/// non-ASCII byte, a character an encoding or markup begins with, `=4`/`=2`
/// (quoted-printable's `@` and space), ` at ` and ` dot ` between spaces, and numbers in words
/// worth reading: one past twelve ("thirty"), or two number words in a row ("seven three …";
/// "one" alone is prose), a word being a run of ASCII letters.
static TRICK_MARKS: std::sync::LazyLock<Option<regex::bytes::Regex>> = std::sync::LazyLock::new(
    || {
        let units = "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve";
        let past_twelve = "thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|\
                           twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety";
        regex::bytes::Regex::new(&format!(
            r"(?i-u)[\x80-\xff&%<\[(\\]|=[42]| at | dot |(?:^|[^a-z])(?:(?:{past_twelve})|(?:{units})[^a-z]+(?:{units}))(?:[^a-z]|$)"
        ))
        .ok()
    },
);

/// Whether any of the tricks may occur in `text` ([`TRICK_MARKS`]).
fn has_trick(text: &str) -> bool {
    TRICK_MARKS
        .as_ref()
        .is_none_or(|marks| marks.is_match(text.as_bytes()))
}

/// Whether `f` answers true for any run of ASCII letters in `b` (given with where it starts).
fn any_ascii_word(b: &[u8], mut f: impl FnMut(usize, &[u8]) -> bool) -> bool {
    let letter = |c: u8| (c | 0x20).wrapping_sub(b'a') < 26;
    let mut at = 0;
    loop {
        while at < b.len() && !letter(b[at]) {
            at += 1;
        }
        if at == b.len() {
            return false;
        }
        let start = at;
        while at < b.len() && letter(b[at]) {
            at += 1;
        }
        if f(start, &b[start..at]) {
            return true;
        }
    }
}

/// One more word of a text read for numbers in words: whether the text has one worth reading
/// once this word is counted — one past twelve ("thirty"), or two number words in a row
/// ("seven three …"). ("one" alone is prose.)
fn number_words_end_here(run: &mut usize, word: Option<u64>) -> bool {
    match word {
        Some(n) if n >= 13 => true,
        Some(_) => {
            *run += 1;
            *run >= 2
        }
        None => {
            *run = 0;
            false
        }
    }
}

/// `&#64;`, `&#x40;`, and the named entities that spell an address: the character and how
/// many characters after the `&` it took.
fn entity(rest: &str) -> Option<(char, usize)> {
    let end = rest.find(';')?;
    let name = &rest[..end];
    let decoded = if let Some(hex) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
        char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
    } else if let Some(dec) = name.strip_prefix('#') {
        char::from_u32(dec.parse().ok()?)?
    } else {
        match name {
            "commat" => '@',
            "period" => '.',
            "amp" => '&',
            "sol" => '/',
            "colon" => ':',
            "lowbar" => '_',
            "hyphen" | "dash" => '-',
            "nbsp" => ' ',
            _ => return None,
        }
    };
    Some((decoded, end + 1))
}

/// Spelled-out and bracketed separators: `(at)`, `[at]`, ` at ` between two names, `(dot)`,
/// `[.]`, ` dot `. (Every ` at ` of prose becomes `@` in this form too: it is only searched,
/// and a value with `meet@noon` in it is rare.)
fn separators(text: &str) -> String {
    let mut out = text.to_string();
    for (from, to) in [
        ("[at]", "@"),
        ("(at)", "@"),
        ("{at}", "@"),
        ("[dot]", "."),
        ("(dot)", "."),
        ("{dot}", "."),
        ("[.]", "."),
        ("(.)", "."),
        ("[@]", "@"),
        ("(@)", "@"),
    ] {
        if out.contains(from) || out.to_ascii_lowercase().contains(from) {
            out = replace_ignoring_case(&out, from, to);
        }
    }
    for (word, to) in [("at", "@"), ("dot", ".")] {
        out = replace_ignoring_case(&out, &format!(" {word} "), to);
    }
    // `mallory @ evil . io` once the words are gone.
    out.replace(" @ ", "@")
        .replace(" @", "@")
        .replace("@ ", "@")
        .replace(" . ", ".")
}

fn replace_ignoring_case(text: &str, from: &str, to: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in lower.match_indices(from) {
        out.push_str(&text[last..at]);
        out.push_str(to);
        last = at + from.len();
    }
    out.push_str(&text[last..]);
    out
}

/// The number words of at most eight letters, each packed as [`packed`] packs a word, with
/// its number, in the order of the packed form (for a binary search). ("seventeen", the one
/// of nine, is compared as it is.)
const NUMBER_WORDS: [(u64, u64); 27] = {
    const WORDS: [&str; 28] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
    ];
    let mut table = [(0, 0); 27];
    let (mut i, mut at) = (0, 0);
    while i < WORDS.len() {
        if WORDS[i].len() <= 8 {
            let number = if i < 20 { i } else { (i - 18) * 10 };
            table[at] = (packed(WORDS[i].as_bytes()), number as u64);
            at += 1;
        }
        i += 1;
    }
    // Insertion sort: what a constant can run.
    let mut i = 1;
    while i < table.len() {
        let mut j = i;
        while j > 0 && table[j - 1].0 > table[j].0 {
            let swap = table[j];
            table[j] = table[j - 1];
            table[j - 1] = swap;
            j -= 1;
        }
        i += 1;
    }
    table
};

/// A word of one to eight ASCII letters as one number, in lower case, so that a word is
/// compared with every number word in a few integer comparisons.
const fn packed(w: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let mut i = 0;
    while i < w.len() && i < 8 {
        bytes[i] = w[i] | 0x20;
        i += 1;
    }
    u64::from_le_bytes(bytes)
}

/// The number a number word says, for a word of ASCII letters only.
#[inline]
fn number_word_of_letters(w: &[u8]) -> Option<u64> {
    // Every number word is 3 to 9 letters long, and begins with one of `zotfsen`: most words
    // are rejected before any comparison.
    const FIRST_LETTERS: u32 = {
        let mut mask = 0;
        let letters = *b"zotfsen";
        let mut i = 0;
        while i < letters.len() {
            mask |= 1 << (letters[i] - b'a');
            i += 1;
        }
        mask
    };
    let first = w.first()? | 0x20;
    if !(3..=9).contains(&w.len()) || FIRST_LETTERS & (1 << (first.wrapping_sub(b'a') & 31)) == 0 {
        return None;
    }
    if w.len() == 9 {
        return w.eq_ignore_ascii_case(b"seventeen").then_some(17);
    }
    let word = packed(w);
    NUMBER_WORDS
        .binary_search_by_key(&word, |&(packed, _)| packed)
        .ok()
        .map(|at| NUMBER_WORDS[at].1)
}

pub(crate) fn number_word(w: &str) -> Option<u64> {
    let letters = w.bytes().all(|c| c.is_ascii_alphabetic());
    letters
        .then(|| number_word_of_letters(w.as_bytes()))
        .flatten()
}

/// Whether `text` writes a number in words that is worth reading ([`number_words_end_here`]).
fn has_number_words(text: &str) -> bool {
    let mut run = 0;
    any_ascii_word(text.as_bytes(), |_, word| {
        number_words_end_here(&mut run, number_word_of_letters(word))
    })
}

/// Numbers written in words as digits: "thirty-five" → `35`, "one hundred twenty" → `120`,
/// "seven three one nine zero four" → `731904` (digits said one by one).
fn with_number_words_as_digits(text: &str) -> String {
    if !has_number_words(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let words: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
    let mut i = 0;
    while i < words.len() {
        // A run of number words (each maybe hyphenated: "thirty-five").
        let mut j = i;
        let mut parts: Vec<u64> = Vec::new();
        while j < words.len() {
            let w = words[j]
                .trim_end()
                .trim_end_matches(['.', ',', ';', '!', '?']);
            let pieces: Option<Vec<u64>> = w.split('-').map(number_word).collect();
            match pieces {
                Some(p) if !p.is_empty() && !w.is_empty() => {
                    parts.push(p.iter().sum());
                    j += 1;
                }
                _ if matches!(w.to_ascii_lowercase().as_str(), "hundred" | "thousand")
                    && !parts.is_empty() =>
                {
                    let scale = if w.eq_ignore_ascii_case("hundred") {
                        100
                    } else {
                        1000
                    };
                    let last = parts.pop().unwrap_or(1);
                    parts.push(last * scale);
                    j += 1;
                }
                _ => break,
            }
        }
        if j == i {
            out.push_str(words[i]);
            i += 1;
            continue;
        }
        // Digits said one by one are a code; otherwise the parts add up ("one hundred twenty").
        let number = if parts.len() > 1 && parts.iter().all(|&p| p < 10) {
            parts.iter().map(u64::to_string).collect::<String>()
        } else {
            parts.iter().sum::<u64>().to_string()
        };
        out.push_str(&number);
        let last = words[j - 1];
        let tail = &last[last
            .trim_end()
            .trim_end_matches(['.', ',', ';', '!', '?'])
            .len()..];
        out.push_str(tail);
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{DIGIT_ZEROS, ascii_digit, undisguised};

    /// Found by an outsider's attack: a phone number in Arabic-Indic digits passed as no
    /// number. Every run of the table is ten digits in order, and each reads as ASCII.
    #[test]
    fn digits_of_every_script_read_as_ascii_digits() {
        assert!(DIGIT_ZEROS.is_sorted());
        for &zero in DIGIT_ZEROS {
            for k in 0..10u32 {
                let c = char::from_u32(zero + k).unwrap_or_else(|| panic!("{zero:x}"));
                assert!(c.is_numeric(), "{c:?}");
                assert_eq!(ascii_digit(c), char::from_digit(k, 10), "{c:?}");
            }
        }
        assert_eq!(
            undisguised("call \u{0665}\u{0665}\u{0665}\u{0660}\u{0661}\u{0664}\u{0662} now")
                .as_deref(),
            Some("call 5550142 now")
        );
        assert_eq!(
            undisguised("\u{0967}\u{0968}\u{0969}").as_deref(),
            Some("123")
        );
        // Numerals that are not decimal digits stay as they are.
        assert_eq!(ascii_digit('\u{2155}'), None);
        assert_eq!(ascii_digit('\u{0669}'), Some('9'));
        assert_eq!(ascii_digit('\u{066a}'), None);
    }
    use proptest::strategy::Strategy as _;

    /// The number words, as a reader counts them.
    const UNITS: &[&str] = &[
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: &[&str] = &[
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];

    #[test]
    fn every_number_word_reads_as_its_number_in_any_case() {
        let tens = TENS.iter().enumerate().filter(|(_, t)| !t.is_empty());
        for (n, word) in UNITS
            .iter()
            .enumerate()
            .chain(tens.map(|(i, t)| (i * 10, t)))
        {
            for written in [word.to_string(), word.to_uppercase()] {
                assert_eq!(super::number_word(&written), Some(n as u64), "{written}");
            }
        }
        for word in ["hundred", "on", "tw", "ones", "seventeens", "twentyone", ""] {
            assert_eq!(super::number_word(word), None, "{word}");
        }
    }

    #[test]
    fn disguised_addresses_and_numbers_read_plainly() {
        for (text, plain) in [
            (
                "write to mallory (at) evil-mail (dot) io",
                "mallory@evil-mail.io",
            ),
            ("see evil[.]com", "evil.com"),
            ("mail mallory&#64;evil.io", "mallory@evil.io"),
            ("mail mallory&#x40;evil.io", "mallory@evil.io"),
            ("mail mallory%40evil.io", "mallory@evil.io"),
            ("mail mallory=40evil.io", "mallory@evil.io"),
            ("mail mallory@ev\u{200b}il.io", "mallory@evil.io"),
            ("mail mallory@ev\u{00ad}il.io", "mallory@evil.io"),
            ("mail mallory\u{ff20}evil.io", "mallory@evil.io"),
            ("mail mallory\\@evil\\.io", "mallory@evil.io"),
            ("mail mallory@<b>evil</b>.io", "mallory@evil.io"),
            ("set it to thirty-five degrees", "35"),
            ("code seven three one nine zero four", "731904"),
        ] {
            let read = undisguised(text).unwrap_or_default();
            assert!(read.contains(plain), "{text} → {read}");
        }
        assert_eq!(undisguised("plain words only, nothing hidden"), None);
    }

    /// The trigger as first written, a scan per mark: the one-pass [`super::has_trick`] must
    /// answer as it does.
    fn triggered_by_scans(text: &str) -> bool {
        let lower_has = |needle: &str| {
            text.as_bytes()
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
        };
        let number_word = |w: &str| {
            let w = w.to_ascii_lowercase();
            UNITS
                .iter()
                .position(|u| *u == w)
                .map(|i| i as u64)
                .or_else(|| {
                    TENS.iter()
                        .position(|t| !t.is_empty() && *t == w)
                        .map(|i| i as u64 * 10)
                })
        };
        let mut run = 0;
        let number_words = text
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .any(|w| match number_word(w) {
                Some(n) if n >= 13 => true,
                Some(_) => {
                    run += 1;
                    run >= 2
                }
                None => {
                    run = 0;
                    false
                }
            });
        !text.is_ascii()
            || text.contains(['&', '%', '<', '[', '(', '\\'])
            || text.contains("=4")
            || text.contains("=2")
            || lower_has(" at ")
            || lower_has(" dot ")
            || number_words
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn the_one_pass_trigger_agrees_with_a_scan_per_mark(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::string::string_regex("[a-zA-Z]{1,10}").unwrap_or_else(|e| panic!("{e}")),
                    proptest::sample::select(vec![
                        "at", "AT", "dot", "Dot", "one", "Two", "thirty", "seven", "hundred",
                        "=4", "=20", "=", "(", "&", "%", "<", "[", "\\", "é", "-", ".", "12",
                    ]).prop_map(str::to_string),
                ],
                0..12,
            ),
            seps in proptest::collection::vec(
                proptest::sample::select(vec![" ", "", ", ", "-", "  ", "\n"]),
                12,
            ),
        ) {
            let text: String = words
                .iter()
                .zip(&seps)
                .map(|(w, s)| format!("{w}{s}"))
                .collect();
            proptest::prop_assert_eq!(super::has_trick(&text), triggered_by_scans(&text), "{:?}", text);
        }
    }
}
