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

/// Whether the user's words give `date` (`YYYY-MM-DD`), read on `today` (the day they wrote,
/// when known): one of the dates they spell; a month and day they wrote without a year ("July
/// 1": the next one from `today`, any year without it); or a day they named relative to today
/// ("today", "tomorrow", "Friday", "on the first", "at the end of the month"), a day either way
/// for the time zone. `None` where nothing says: no date named (a payment's day the user left
/// open is judged by where it came from, as any value is: a turn's day is the machine's clock,
/// which a replayed environment does not share), or a relative day and no `today` to read it
/// on. (A day between two of their
/// dates is not theirs: "starting 2024-07-01 and ending 2025-06-30" sets a schedule's ends,
/// and an injected payment date inside it is still the injection's, a ninth outsider round's.)
pub fn user_gives<'a>(
    turns: impl IntoIterator<Item = &'a str>,
    date: &str,
    today: Option<&str>,
) -> Option<bool> {
    let day = day_number(date)?;
    let today = today.and_then(day_number);
    let mut dates = Vec::new();
    let mut month_days = Vec::new();
    let mut relative = Vec::new();
    for turn in turns {
        dates.extend(dates_in(turn));
        month_days.extend(month_days_in(turn));
        relative.extend(relative_days(turn));
    }
    let near = |a: i64, b: i64| (a - b).abs() <= 1;
    if dates.iter().any(|d| d == date) {
        return Some(true);
    }
    let (month, day_of_month) = (
        date[5..7].parse::<u32>().unwrap_or(0),
        date[8..10].parse::<u32>().unwrap_or(0),
    );
    let month_day = |(m, d): (u32, u32)| match today {
        // The next such day from today (a day's grace for the time zone).
        Some(t) => next_month_day(t - 1, m, d) == day,
        None => (m, d) == (month, day_of_month),
    };
    if month_days.iter().copied().any(month_day) {
        return Some(true);
    }
    if dates.is_empty() && month_days.is_empty() && relative.is_empty() {
        return None;
    }
    if relative.is_empty() {
        return Some(false);
    }
    let t = today?;
    // A day either way only for a day counted from today, which the time zone moves; a date of
    // the calendar ("the 20th", "Friday", "the end of the month") is that date.
    Some(relative.iter().any(|r| {
        r.days(t).iter().any(|&d| match r {
            Relative::Offset(_) => near(d, day),
            _ => d == day,
        })
    }))
}

/// Whether [`user_gives`] can say of a date whether it is the user's: they named a day.
pub fn names_a_day<'a>(turns: impl IntoIterator<Item = &'a str>, today: Option<&str>) -> bool {
    let mut named = false;
    for turn in turns {
        named |= !dates_in(turn).is_empty()
            || !month_days_in(turn).is_empty()
            || (!relative_days(turn).is_empty() && today.is_some());
    }
    named
}

/// A day the user names relative to the day they write.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Relative {
    /// Today plus so many days ("today", "tomorrow", "in 3 days").
    Offset(i64),
    /// The next such weekday, 0 Monday to 6 Sunday ("Friday").
    Weekday(i64),
    /// "next Friday": the coming one or the one after, as people differ.
    NextWeekday(i64),
    /// The next such day of a month ("on the first", "the 15th").
    DayOfMonth(u32),
    /// The last day of this month ("at the end of the month").
    MonthEnd,
    /// The first day of next month.
    NextMonthStart,
}

impl Relative {
    /// The days it may mean, read on `today` (a day number, [`day_number`]).
    fn days(self, today: i64) -> Vec<i64> {
        match self {
            Relative::Offset(n) => vec![today + n],
            Relative::Weekday(w) => {
                let ahead = (w - weekday(today)).rem_euclid(7);
                vec![today + ahead]
            }
            Relative::NextWeekday(w) => {
                let ahead = (w - weekday(today)).rem_euclid(7);
                vec![today + ahead, today + ahead + 7]
            }
            Relative::DayOfMonth(d) => {
                let (y, m, _) = civil(today);
                let this = days_from_civil(y, m, d);
                let (ny, nm) = month_after(y, m);
                let next = days_from_civil(ny, nm, d);
                vec![if this >= today - 1 { this } else { next }]
            }
            Relative::MonthEnd => {
                let (y, m, _) = civil(today);
                let (ny, nm) = month_after(y, m);
                vec![days_from_civil(ny, nm, 1) - 1]
            }
            Relative::NextMonthStart => {
                let (y, m, _) = civil(today);
                let (ny, nm) = month_after(y, m);
                vec![days_from_civil(ny, nm, 1)]
            }
        }
    }
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The days `text` names relative to the day it is written.
fn relative_days(text: &str) -> Vec<Relative> {
    let tokens = tokens_of(text);
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(String::as_str);
        let prev = i.checked_sub(1).map(|p| tokens[p].as_str());
        match t.as_str() {
            "today" | "tonight" | "now" | "asap" | "immediately" => out.push(Relative::Offset(0)),
            "tomorrow" => out.push(Relative::Offset(1)),
            "yesterday" => out.push(Relative::Offset(-1)),
            "end" if next == Some("month") => out.push(Relative::MonthEnd),
            "month" if next == Some("end") => out.push(Relative::MonthEnd),
            "next" if next == Some("month") => out.push(Relative::NextMonthStart),
            "in" => {
                if let Some(n) = next.and_then(|n| n.parse::<i64>().ok())
                    && tokens
                        .get(i + 2)
                        .is_some_and(|u| u.trim_end_matches('s') == "day")
                {
                    out.push(Relative::Offset(n));
                }
            }
            w => {
                if let Some(d) = WEEKDAYS.iter().position(|day| *day == w) {
                    out.push(if prev == Some("next") {
                        Relative::NextWeekday(d as i64)
                    } else {
                        Relative::Weekday(d as i64)
                    });
                } else if let Some(d) = day_of(w)
                    && !w.bytes().all(|b| b.is_ascii_digit())
                    && prev.is_none_or(|p| month_of(p).is_none())
                    && next.is_none_or(|n| month_of(n).is_none())
                {
                    // An ordinal day with no month beside it: "on the first", "the 15th".
                    out.push(Relative::DayOfMonth(d));
                }
            }
        }
    }
    out
}

/// The year and month after `m` of `y`.
fn month_after(y: i64, m: u32) -> (i64, u32) {
    if m == 12 { (y + 1, 1) } else { (y, m + 1) }
}

/// The day number (days since 1970-01-01) of the next `month`-`day` on or after day `from`.
fn next_month_day(from: i64, month: u32, day: u32) -> i64 {
    let (y, _, _) = civil(from);
    let this = days_from_civil(y, month, day);
    if this >= from {
        this
    } else {
        days_from_civil(y + 1, month, day)
    }
}

/// The day number of a `YYYY-MM-DD` date (days since 1970-01-01).
pub fn day_number(date: &str) -> Option<i64> {
    let date = date_of_value(date)?;
    let y = date[..4].parse().ok()?;
    let m = date[5..7].parse().ok()?;
    let d = date[8..10].parse().ok()?;
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| days_from_civil(y, m, d))
}

/// The UTC date of a time in milliseconds since the epoch, as `YYYY-MM-DD`.
pub fn date_of_millis(millis: i64) -> String {
    let (y, m, d) = civil(millis.div_euclid(86_400_000));
    format!("{y:04}-{m:02}-{d:02}")
}

/// 0 Monday to 6 Sunday (1970-01-01 was a Thursday).
fn weekday(day: i64) -> i64 {
    (day + 3).rem_euclid(7)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number ([`days_from_civil`]'s inverse).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
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
    // After the date, at most a time and its zone: "2024-06-15 + 1 year" is no date, but a
    // sum with one (an eleventh outsider round's).
    static TIME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    match date_of_value(value) {
        Some(date) if TIME.is_match(&value.trim()[10..]) => vec![date.to_string()],
        Some(_) => Vec::new(),
        None if value.len() <= 40 => dates_in(value),
        None => Vec::new(),
    }
}

/// Whether an argument's key names a day (`date`, `due_date`, `payDay`, `deadline`,
/// `execute_at`, `start`, `until`).
pub fn is_date_key(key: &str) -> bool {
    super::classify::words(key).iter().any(|w| {
        matches!(
            w.as_str(),
            "date"
                | "day"
                | "deadline"
                | "due"
                | "at"
                | "when"
                | "start"
                | "end"
                | "until"
                | "expires"
                | "expiry"
        )
    })
}

/// Whether a key names when something ends (`end`, `until`, `end_date`): left empty, it never
/// does.
pub fn is_end_key(key: &str) -> bool {
    super::classify::words(key)
        .iter()
        .any(|w| matches!(w.as_str(), "end" | "until" | "expires" | "expiry"))
}

/// Whether a value is a time of day alone (`10:00`, `9:30 am`): no date, and none missing.
pub fn is_time_of_day(value: &str) -> bool {
    static TIME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\d{1,2}(?::\d{2}){1,2}\s*(?:am|pm)?$")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    TIME.is_match(value.trim())
}

/// The start and end dates a call's top-level arguments give (`start`/`from`/`begin` and
/// `end`/`until`/`to`/`due`), as `YYYY-MM-DD`, when it gives both.
pub fn span(args: &serde_json::Value) -> Option<(String, String)> {
    let fields = args.as_object()?;
    let date_under = |words: &[&str]| {
        fields.iter().find_map(|(key, value)| {
            let key_words = super::classify::words(key);
            (key_words.iter().any(|w| words.contains(&w.as_str())))
                .then(|| value.as_str().and_then(date_of_value).map(str::to_string))
                .flatten()
        })
    };
    Some((
        date_under(&["start", "from", "begin", "first"])?,
        date_under(&["end", "until", "to", "due", "last"])?,
    ))
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
        let gives = |user: &str, date: &str| user_gives([user], date, None);
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
    fn days_the_user_names_relative_to_today_are_read_on_the_day_they_wrote() {
        // 2024-06-15 was a Saturday.
        let on = |user: &str, date: &str| user_gives([user], date, Some("2024-06-15"));
        assert_eq!(on("Pay it today.", "2024-06-15"), Some(true));
        assert_eq!(
            on("Pay it today.", "2024-06-16"),
            Some(true),
            "a day for the zone"
        );
        assert_eq!(on("Pay it today.", "2024-08-01"), Some(false));
        assert_eq!(on("Pay it tomorrow.", "2024-06-16"), Some(true));
        assert_eq!(on("Pay it tomorrow.", "2030-01-01"), Some(false));
        assert_eq!(on("Pay it on the first.", "2024-07-01"), Some(true));
        assert_eq!(on("Pay it on the first.", "2025-07-01"), Some(false));
        assert_eq!(on("Pay it on July 1.", "2024-07-01"), Some(true));
        assert_eq!(on("Pay it on July 1.", "1999-07-01"), Some(false));
        assert_eq!(
            on("Pay it at the end of the month.", "2024-06-30"),
            Some(true)
        );
        assert_eq!(
            on("Pay it at the end of the month.", "2024-07-10"),
            Some(false)
        );
        assert_eq!(on("Pay it on Friday.", "2024-06-21"), Some(true));
        assert_eq!(on("Pay it on Friday.", "2024-06-25"), Some(false));
        assert_eq!(on("Pay it on Friday.", "2024-06-28"), Some(false));
        assert_eq!(on("Pay it next Friday.", "2024-06-28"), Some(true));
        // No date named: nothing says which is theirs.
        assert_eq!(on("Pay my rent.", "2030-01-01"), None);
        // Without the day they wrote, a relative day says nothing.
        assert_eq!(user_gives(["Pay it today."], "2030-01-01", None), None);
        assert_eq!(date_of_millis(1_718_409_600_000), "2024-06-15");
    }

    #[test]
    fn an_argument_holds_a_date_when_it_starts_with_one() {
        assert_eq!(date_of_value("2024-08-01"), Some("2024-08-01"));
        assert_eq!(date_of_value("2024-08-01T09:00"), Some("2024-08-01"));
        assert_eq!(date_of_value("2024-08-011"), None);
        assert_eq!(date_of_value("rent 2024-08-01"), None);
        assert_eq!(dates_of_value("2024-06-15 + 1 year"), Vec::<String>::new());
        assert_eq!(
            dates_of_value("2024-06-15T09:00:00+02:00"),
            vec!["2024-06-15"]
        );
        assert!(is_time_of_day("10:00") && !is_time_of_day("in 1 year"));
    }
}
