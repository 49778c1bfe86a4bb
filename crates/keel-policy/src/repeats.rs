//! Whether a payment repeats, and whether the user asked it to.
//!
//! "Pay my rent of 850 EUR today" asks for one payment. A tenth outsider round turned it into a
//! standing order with the user's own payee and amount — daily, weekly, for ten years, or 850
//! times (`"occurrences": 850`) — and every value of it was the user's. What changed is that the
//! payment repeats, which nothing in its values shows. So a call that pays and repeats (its
//! name schedules or subscribes, or an argument sets an interval, a frequency or a count) needs
//! the user's words to ask for repetition; an interval it names ("daily") must be the one they
//! said ("monthly" is not "daily"); and a count of payments must be a number they wrote that is
//! no sum of money ("for 12 months" gives 12; the 850 of "850 EUR" is no count).

use serde_json::Value;

/// Words of a tool's name that make its payment repeat.
const REPEATING_NAME_WORDS: &[&str] = &[
    "schedule",
    "scheduled",
    "recurring",
    "standing",
    "repeat",
    "repeating",
    "subscription",
    "subscribe",
    "installment",
    "installments",
    "periodic",
];

/// Words of an argument's key that set how a payment repeats.
const REPEATING_KEY_WORDS: &[&str] = &[
    "cron",
    "rrule",
    "interval",
    "frequency",
    "recurrence",
    "recurring",
    "occurrences",
    "repeat",
    "repetitions",
    "installments",
    "cadence",
    "period",
    "schedule",
];

/// Words of an argument's key that count payments.
const COUNT_KEY_WORDS: &[&str] = &[
    "occurrences",
    "repetitions",
    "installments",
    "times",
    "count",
    "payments",
];

/// How often, as a tool writes it, and the unit a person says it with ("every month").
const FREQUENCIES: &[(&str, &str)] = &[
    ("hourly", "hour"),
    ("daily", "day"),
    ("weekly", "week"),
    ("biweekly", "fortnight"),
    ("fortnightly", "fortnight"),
    ("monthly", "month"),
    ("quarterly", "quarter"),
    ("yearly", "year"),
    ("annually", "year"),
    ("annual", "year"),
];

/// Words by which a person asks for a repeated payment, beside the frequencies.
const REPEATING_WORDS: &[&str] = &[
    "every",
    "recurring",
    "recurrent",
    "standing",
    "regular",
    "regularly",
    "repeat",
    "repeating",
    "schedule",
    "scheduled",
    "subscription",
    "subscribe",
    "installments",
    "instalments",
];

/// What makes the call's payment repeat ("interval \"daily\"", "its name (schedule)"), if
/// anything does. A call that updates or ends a payment that repeats already
/// (`update_scheduled_transaction`) makes nothing repeat: how often it repeats is judged by
/// [`unsaid_frequency`].
pub fn repeats(tool: &str, args: &Value) -> Option<String> {
    let name = super::classify::words(tool);
    if name.first().is_some_and(|verb| {
        matches!(
            verb.as_str(),
            "update"
                | "edit"
                | "change"
                | "modify"
                | "adjust"
                | "cancel"
                | "delete"
                | "remove"
                | "stop"
                | "end"
                | "pause"
                | "get"
                | "list"
        )
    }) {
        return None;
    }
    if let Some(w) = name
        .iter()
        .find(|w| REPEATING_NAME_WORDS.contains(&w.as_str()))
    {
        return Some(format!("its name ({w})"));
    }
    let mut found = None;
    visit(args, &mut |key, value| {
        if found.is_some() || !key_has(key, REPEATING_KEY_WORDS) {
            return;
        }
        let once = match value {
            Value::Null | Value::Bool(false) => true,
            Value::Number(n) => n.as_f64().is_some_and(|n| n <= 1.0),
            Value::String(s) => matches!(
                s.trim().to_lowercase().as_str(),
                "" | "once" | "none" | "no" | "false" | "0" | "1" | "one-off" | "single"
            ),
            _ => false,
        };
        if !once {
            found = Some(format!("{key} {value}"));
        }
    });
    found
}

/// Whether the user's words ask for a repeated payment: a frequency ("monthly"), a word of
/// [`REPEATING_WORDS`], or a unit after "a", "per" or "each" ("850 a month").
pub fn asks_to_repeat(text: &str) -> bool {
    let words = lower_words(text);
    words
        .iter()
        .any(|w| REPEATING_WORDS.contains(&w.as_str()) || FREQUENCIES.iter().any(|(f, _)| f == w))
        || words.windows(2).any(|pair| {
            matches!(pair[0].as_str(), "a" | "per" | "each")
                && FREQUENCIES
                    .iter()
                    .any(|(_, unit)| pair[1].trim_end_matches('s') == *unit)
        })
}

/// The frequency a value names ("daily", "Monthly"), when the user's words say another or
/// none: "monthly", "every month", "a month" say `monthly`.
pub fn unsaid_frequency<'v>(value: &'v str, text: &str) -> Option<&'v str> {
    let lower = value.trim().to_lowercase();
    let unit: &str = FREQUENCIES
        .iter()
        .find(|(f, _)| *f == lower)
        .map(|(_, unit)| *unit)
        .or_else(|| coded_unit(&lower))?;
    let words = lower_words(text);
    let said = words
        .iter()
        .any(|w| FREQUENCIES.iter().any(|(f, u)| f == w && *u == unit))
        || words.windows(2).any(|pair| {
            matches!(pair[0].as_str(), "a" | "per" | "each" | "every")
                && pair[1].trim_end_matches('s') == unit
        });
    (!said).then_some(value)
}

/// The unit a coded frequency repeats by: an ISO 8601 period (`P1W`, `P1M`, `P7D`) or a cron
/// schedule (`0 9 * * *` daily, `0 9 * * 1` weekly, `0 9 1 * *` monthly), which an eleventh
/// outsider round set where the user asked for monthly.
fn coded_unit(value: &str) -> Option<&'static str> {
    if let Some(period) = value.strip_prefix('p') {
        let unit = period.chars().last()?;
        let count: u32 = period[..period.len() - unit.len_utf8()].parse().ok()?;
        return Some(match (unit, count) {
            ('d', 7) => "week",
            ('d', _) => "day",
            ('w', 2) => "fortnight",
            ('w', _) => "week",
            ('m', 3) => "quarter",
            ('m', _) => "month",
            ('y', _) => "year",
            _ => return None,
        });
    }
    let fields: Vec<&str> = value.split_whitespace().collect();
    if fields.len() != 5 {
        return None;
    }
    Some(match (fields[2], fields[3], fields[4]) {
        ("*", "*", "*") if fields[1] == "*" => "hour",
        ("*", "*", "*") => "day",
        ("*", "*", _) => "week",
        (_, "*", _) => "month",
        _ => "year",
    })
}

/// Whether an argument's key counts payments (`occurrences`, `number_of_payments`).
pub fn is_count_key(key: &str) -> bool {
    key_has(key, COUNT_KEY_WORDS)
}

fn key_has(key: &str, words: &[&str]) -> bool {
    super::classify::words(key)
        .iter()
        .any(|w| words.contains(&w.as_str()))
}

fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Calls `f` with each key and value of `value`'s objects, depth first.
fn visit(value: &Value, f: &mut dyn FnMut(&str, &Value)) {
    match value {
        Value::Object(fields) => {
            for (k, v) in fields {
                f(k, v);
                visit(v, f);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| visit(v, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_payment_repeats_by_its_name_or_its_arguments() {
        assert!(repeats("schedule_transfer", &json!({"amount": 850})).is_some());
        assert!(repeats("send_money", &json!({"amount": 850, "interval": "daily"})).is_some());
        assert!(repeats("send_money", &json!({"amount": 850, "occurrences": 850})).is_some());
        assert!(repeats("send_money", &json!({"amount": 850, "recurring": false})).is_none());
        assert!(repeats("send_money", &json!({"amount": 850, "occurrences": 1})).is_none());
        assert!(repeats("send_money", &json!({"amount": 850, "date": "2024-07-01"})).is_none());
        assert!(
            repeats(
                "update_scheduled_transaction",
                &json!({"id": 7, "amount": 1200})
            )
            .is_none()
        );
    }

    #[test]
    fn the_user_asks_for_a_repeat_and_its_frequency() {
        assert!(asks_to_repeat("set up a monthly transfer of 850"));
        assert!(asks_to_repeat("850 a month for 12 months"));
        assert!(asks_to_repeat("pay it every week"));
        assert!(!asks_to_repeat("pay my rent of 850 EUR today"));
        assert!(!asks_to_repeat("pay it at the end of the month"));
        assert_eq!(
            unsaid_frequency("daily", "a monthly transfer"),
            Some("daily")
        );
        assert_eq!(unsaid_frequency("monthly", "a monthly transfer"), None);
        assert_eq!(unsaid_frequency("Monthly", "850 every month"), None);
        assert_eq!(unsaid_frequency("weekly", "850 a month"), Some("weekly"));
        assert_eq!(unsaid_frequency("Rent July", "a monthly transfer"), None);
        assert_eq!(unsaid_frequency("P1W", "a monthly transfer"), Some("P1W"));
        assert_eq!(unsaid_frequency("P1M", "a monthly transfer"), None);
        assert_eq!(
            unsaid_frequency("0 9 * * *", "a monthly transfer"),
            Some("0 9 * * *")
        );
        assert_eq!(unsaid_frequency("0 9 1 * *", "a monthly transfer"), None);
        assert!(
            repeats(
                "create_payment_rule",
                &json!({"amount": 850, "cron": "0 9 * * *"})
            )
            .is_some()
        );
    }
}
