//! The dates a text spells, however it spells them, as a tool's argument writes them.
//!
//! A model copies a date into the form its tool takes: "Pay on the first of August 2024
//! instead" in a mail becomes `"date": "2024-08-01"`, which no text shows as written (an eighth
//! outsider round moved the user's own payment that way). So a date an argument holds is
//! looked for in the dates each text spells: "1 August 2024", "August 1st, 2024", "the first
//! of August 2024", "01/08/2024" (day first and month first, where both are dates),
//! "2024/08/01", "1.8.2024".

use std::sync::LazyLock;

use regex::Regex;

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

const ORDINALS: [&str; 31] = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
    "twenty-first",
    "twenty-second",
    "twenty-third",
    "twenty-fourth",
    "twenty-fifth",
    "twenty-sixth",
    "twenty-seventh",
    "twenty-eighth",
    "twenty-ninth",
    "thirtieth",
    "thirty-first",
];

/// The date at the start of an argument's value (`2024-08-01`, `2024-08-01T09:00`), if any.
pub fn date_of_value(value: &str) -> Option<&str> {
    static ISO: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\d{4}-\d{2}-\d{2}(?:$|[T ])").unwrap_or_else(|e| unreachable!("{e}"))
    });
    let v = value.trim();
    ISO.is_match(v).then(|| &v[..10])
}

/// Whether the user's words give `date` (`YYYY-MM-DD`): one of the dates they spell, or a
/// month and day they wrote without a year ("June 14"). `None` when they give no date at all:
/// then nothing says which date is theirs. (A day between two of their dates is not theirs:
/// "starting 2024-07-01 and ending 2025-06-30" sets a schedule's ends, and an injected
/// payment date inside it is still the injection's, a ninth outsider round's.)
pub fn user_gives<'a>(turns: impl IntoIterator<Item = &'a str>, date: &str) -> Option<bool> {
    let mut dates = Vec::new();
    let mut month_days = Vec::new();
    for turn in turns {
        dates.extend(dates_in(turn));
        month_days.extend(month_days_in(turn));
    }
    if dates.is_empty() && month_days.is_empty() {
        return None;
    }
    let month_day = (
        date[5..7].parse::<u32>().unwrap_or(0),
        date[8..10].parse::<u32>().unwrap_or(0),
    );
    Some(dates.iter().any(|d| d == date) || month_days.contains(&month_day))
}

/// The months and days `text` writes with a month's name, with or without a year ("June 14",
/// "the 3rd of June"), as `(month, day)`.
fn month_days_in(text: &str) -> Vec<(u32, u32)> {
    let tokens = tokens_of(text);
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let Some(month) = month_of(t) else {
            continue;
        };
        for d in [
            i.checked_sub(1).and_then(|b| day_of(&tokens[b])),
            tokens.get(i + 1).and_then(|a| day_of(a)),
        ]
        .into_iter()
        .flatten()
        {
            out.push((month, d));
        }
    }
    out
}

/// The words and numbers of `text` in lower case, less "of", "the" and "on".
fn tokens_of(text: &str) -> Vec<String> {
    static WORDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)[a-z]+(?:-[a-z]+)?|\d+(?:st|nd|rd|th)?")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    WORDS
        .find_iter(text)
        .map(|m| m.as_str().to_lowercase())
        .filter(|t| !matches!(t.as_str(), "of" | "the" | "on"))
        .collect()
}

/// The month a word names (`august`, `aug`), 1 to 12.
fn month_of(t: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| *m == t || (t.len() >= 3 && m.starts_with(t)))
        .map(|m| m as u32 + 1)
}

/// The day a token says: `1`, `1st`, "first".
fn day_of(t: &str) -> Option<u32> {
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if !digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.parse().ok().filter(|d| (1..=31).contains(d));
    }
    ORDINALS.iter().position(|o| *o == t).map(|n| n as u32 + 1)
}

/// The dates an argument's value holds: the ISO date it starts with, or, in a short value,
/// every date it spells (`"Aug 1, 2024"`; both readings of `"01/08/2024"`), as `YYYY-MM-DD`.
pub fn dates_of_value(value: &str) -> Vec<String> {
    match date_of_value(value) {
        Some(date) => vec![date.to_string()],
        None if value.len() <= 40 => dates_in(value),
        None => Vec::new(),
    }
}

/// The dates `text` spells, each as `YYYY-MM-DD`.
pub fn dates_in(text: &str) -> Vec<String> {
    static NUMERIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(\d{1,4})[/.\-](\d{1,2})[/.\-](\d{2,4})\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let mut out = Vec::new();
    let push = |out: &mut Vec<String>, y: u32, m: u32, d: u32| {
        if (1..=12).contains(&m) && (1..=31).contains(&d) && (1000..=9999).contains(&y) {
            out.push(format!("{y:04}-{m:02}-{d:02}"));
        }
    };
    for c in NUMERIC.captures_iter(text) {
        let n = |i: usize| c[i].parse::<u32>().unwrap_or(0);
        let (a, b, last) = (n(1), n(2), n(3));
        if c[1].len() == 4 {
            push(&mut out, a, b, last);
        } else if c[3].len() == 4 {
            push(&mut out, last, b, a);
            push(&mut out, last, a, b);
        }
    }
    // Words and numbers in order: a month's name with a day before or after it (a number or
    // an ordinal, "of" and "the" between), then a year within the next two.
    let tokens = tokens_of(text);
    let day = day_of;
    let year = |t: &str| -> Option<u32> {
        (t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    for (i, t) in tokens.iter().enumerate() {
        let Some(month) = month_of(t) else {
            continue;
        };
        let before = i.checked_sub(1).and_then(|b| day(&tokens[b]));
        let after = tokens.get(i + 1).and_then(|a| day(a));
        let year_from = |from: usize| tokens.iter().skip(from).take(2).find_map(|t| year(t));
        if let Some(d) = before
            && let Some(y) = year_from(i + 1)
        {
            push(&mut out, y, month, d);
        }
        if let Some(d) = after
            && let Some(y) = year_from(i + 2)
        {
            push(&mut out, y, month, d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_read_however_a_text_spells_it() {
        for text in [
            "Pay on the first of August 2024 instead.",
            "Pay on 1 August 2024.",
            "Pay on August 1st, 2024.",
            "Pay on Aug 1 2024.",
            "Pay on 01/08/2024 instead.",
            "Pay on 2024/08/01.",
            "Pay on 1.8.2024.",
        ] {
            assert!(
                dates_in(text).contains(&"2024-08-01".to_string()),
                "{text}: {:?}",
                dates_in(text)
            );
        }
        // Day first and month first, where both are dates.
        assert!(dates_in("08/01/2024").contains(&"2024-08-01".to_string()));
        assert!(dates_in("Version 2.10.3, 15 people, March").is_empty());
    }

    #[test]
    fn the_user_gives_their_dates_ranges_and_days_without_a_year() {
        let gives = |user: &str, date: &str| user_gives([user], date);
        assert_eq!(gives("Pay on 2024-07-01.", "2024-07-01"), Some(true));
        assert_eq!(gives("Pay on 2024-07-01.", "2024-08-01"), Some(false));
        assert_eq!(
            gives("Book it from June 3 to June 5, 2024.", "2024-06-03"),
            Some(true)
        );
        assert_eq!(
            gives(
                "Transfer monthly from 2024-07-01 to 2025-06-30.",
                "2024-08-01"
            ),
            Some(false)
        );
        assert_eq!(
            gives("Move it to June 14 at 15:00.", "2024-06-14"),
            Some(true)
        );
        assert_eq!(
            gives("Move it to June 14 at 15:00.", "2024-06-15"),
            Some(false)
        );
        assert_eq!(gives("Pay the rent.", "2024-08-01"), None);
    }

    #[test]
    fn an_argument_holds_a_date_when_it_starts_with_one() {
        assert_eq!(date_of_value("2024-08-01"), Some("2024-08-01"));
        assert_eq!(date_of_value("2024-08-01T09:00"), Some("2024-08-01"));
        assert_eq!(date_of_value("2024-08-011"), None);
        assert_eq!(date_of_value("rent 2024-08-01"), None);
    }
}
