//! Whether a number nobody showed could be the user's own arithmetic.
//!
//! A payment's amount that appears in no text of the run was worked out or made up. The user's
//! own arithmetic is theirs ("split the 120 three ways", "four hours at 15 an hour", "the 60
//! plus a 10% tip"); an amount an injected text spelled another way ("pay 8.5e3 instead",
//! "eight thousand five hundred", "MMMMCMXCIX") or asked to be worked out ("ten times the
//! rent") is not. Nothing in the value tells the two apart except what it is made of, so an
//! unshown amount that moves money is the user's only when it is one of their numbers or one
//! step of arithmetic on them, or two steps when their words ask for arithmetic ("3 tickets
//! at 25 each plus a 10% tip"), one of whose numbers may be a figure a tool's structured
//! result records under the argument's own key ("19.5% of the amount we paid"). A number a
//! result writes in prose is no operand: a ninth outsider round showed that a request for arithmetic cannot open every
//! amount, since the injected text that asks for "ten times the invoice" writes its operands
//! too.

/// The numbers in a text, however a person or a program wrote them: digits as written
/// (`1,200`, `12.50`, `8.500,00`, `8 500`), with an exponent (`8.5e3`) or a scale after them
/// (`5k`, `8.5 thousand`, `85 hundred`), `0x2134`, and number words alone or in a phrase
/// ("three", "eight thousand five hundred", "twenty-five"). Each number once as written, and
/// a phrase's value besides its words'.
pub fn numbers_in(text: &str) -> Vec<f64> {
    spellings(text).into_iter().map(|(n, _)| n).collect()
}

/// The numbers a text spells otherwise than as plain digits (`8.5e3`, `8,500`, `8 500`,
/// `5k`, `0x2134`, "eighty-five hundred", "fifty"): those a search for the digits does not
/// find. A number word under ten alone is not one ("one of them", "two days"): such words are
/// in every text.
pub fn spelled_otherwise(text: &str) -> Vec<f64> {
    spellings(text)
        .into_iter()
        .filter(|&(n, plain)| {
            let small_count = n < 10.0 && n.fract() == 0.0;
            !plain && !small_count
        })
        .map(|(n, _)| n)
        .collect()
}

/// Each number of [`numbers_in`], and whether it is written as plain digits (with at most a
/// decimal point).
fn spellings(text: &str) -> Vec<(f64, bool)> {
    let mut out: Vec<(f64, bool)> = Vec::new();
    // The phrase of number words being read: what its finished scales hold, and the part
    // after them ("eight thousand five hundred": 8000, then 500).
    let mut phrase: Option<(f64, f64, usize)> = None;
    let mut last: Option<f64> = None;
    // A phrase of one word is that word's number, already read.
    let end_phrase = |phrase: &mut Option<(f64, f64, usize)>, out: &mut Vec<(f64, bool)>| {
        if let Some((done, part, words)) = phrase.take()
            && words > 1
        {
            out.push((done + part, false));
        }
    };
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            end_phrase(&mut phrase, &mut out);
            let start = i;
            if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
                let digits: String = chars[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect();
                i += 2 + digits.len();
                if let Ok(n) = u64::from_str_radix(&digits, 16) {
                    out.push((n as f64, false));
                }
                last = None;
                continue;
            }
            // Digits with the separators that group them: "1,200.50", "8.500,00", and a
            // space before each further group of three ("8 500").
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], ',' | '.')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit))
                    || (chars[i] == ' '
                        && i - start <= 3
                        && chars[start..i].iter().all(char::is_ascii_digit)
                        && chars
                            .get(i + 1..i + 4)
                            .is_some_and(|g| g.iter().all(char::is_ascii_digit))
                        && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())))
            {
                i += 1;
            }
            // A part of a date, a time, a phone or a range ("2024-07-01", "10:30", "1/8") is
            // no number of its own.
            let joined = |at: Option<&char>, next: Option<&char>| {
                at.is_some_and(|c| matches!(c, '-' | '/' | ':'))
                    && next.is_some_and(char::is_ascii_digit)
            };
            // Nor is the number of a thing: `#4999`, `INV-2207`, `A12` (an order, an invoice,
            // a seat: a tenth outsider round paid 4999 "from" the user's order #4999).
            // So is one after the noun of a thing it numbers: "invoice 4471", "flat 27", "table
            // 17", "order no. 4996" (a twelfth round multiplied by an invoice's number).
            let word_before: String = {
                let mut at = start;
                while at > 0 && matches!(chars[at - 1], ' ' | '.' | ':' | '#') {
                    at -= 1;
                }
                let end = at;
                while at > 0 && chars[at - 1].is_alphabetic() {
                    at -= 1;
                }
                chars[at..end].iter().collect::<String>().to_lowercase()
            };
            let word_before = if matches!(word_before.as_str(), "no" | "nr" | "number") {
                // "order no. 4996": the noun before the "no.".
                let mut at = start;
                while at > 0 && !chars[at - 1].is_alphabetic() {
                    at -= 1;
                }
                while at > 0 && chars[at - 1].is_alphabetic() {
                    at -= 1;
                }
                let mut before = at;
                while before > 0 && matches!(chars[before - 1], ' ' | '.') {
                    before -= 1;
                }
                let end = before;
                while before > 0 && chars[before - 1].is_alphabetic() {
                    before -= 1;
                }
                chars[before..end].iter().collect::<String>().to_lowercase()
            } else {
                word_before
            };
            let named_thing = start >= 1
                && (chars[start - 1] == '#'
                    || chars[start - 1].is_alphabetic()
                    || (chars[start - 1] == '-' && start >= 2 && chars[start - 2].is_alphabetic())
                    || NUMBERED_THINGS.contains(&word_before.as_str()));
            if named_thing
                || joined(chars.get(i), chars.get(i + 1))
                || (start >= 2 && joined(chars.get(start - 1), chars.get(start - 2)))
            {
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '-' | '/' | ':'))
                {
                    i += 1;
                }
                last = None;
                continue;
            }
            let written: String = chars[start..i].iter().filter(|c| **c != ' ').collect();
            let mut plain = !chars[start..i].iter().any(|c| matches!(c, ' ' | ','));
            let Some(mut n) = number_written(&written) else {
                continue;
            };
            // An exponent: "8.5e3", "5E+4".
            if matches!(chars.get(i), Some('e' | 'E')) {
                let sign = usize::from(matches!(chars.get(i + 1), Some('+' | '-')));
                let digits: String = chars[i + 1 + sign..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                if !digits.is_empty() && digits.len() <= 3 {
                    let exponent: i32 = digits.parse().unwrap_or(0);
                    let exponent = if chars[i + 1] == '-' {
                        -exponent
                    } else {
                        exponent
                    };
                    n *= 10f64.powi(exponent);
                    i += 1 + sign + digits.len();
                    plain = false;
                }
            }
            // A scale written right after: "5k", "8.5M".
            if let Some(scale) = chars.get(i).and_then(|c| match c {
                'k' | 'K' => Some(1e3),
                'm' | 'M' => Some(1e6),
                _ => None,
            }) && chars.get(i + 1).is_none_or(|c| !c.is_alphanumeric())
            {
                n *= scale;
                i += 1;
                plain = false;
            }
            out.push((n, plain));
            last = Some(n);
        } else if c.is_alphabetic() {
            let start = i;
            while i < chars.len() && chars[i].is_alphabetic() {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
            let scale = match word.as_str() {
                "hundred" => Some(100.0),
                "thousand" => Some(1e3),
                "million" => Some(1e6),
                _ => None,
            };
            match (scale, phrase.as_mut(), last) {
                // A scale after number words: "five hundred", "eight thousand".
                (Some(scale), Some((done, part, words)), _) => {
                    *words += 1;
                    let part_or_one = if *part == 0.0 { 1.0 } else { *part };
                    if scale >= 1e3 {
                        *done += part_or_one * scale;
                        *part = 0.0;
                    } else {
                        *part = part_or_one * scale;
                    }
                }
                // A scale after digits: "85 hundred", "8.5 thousand".
                (Some(scale), None, Some(n)) => out.push((n * scale, false)),
                _ => match number_word(&word) {
                    Some(n) if n >= 1.0 && n.fract() == 0.0 && n < 100.0 => {
                        out.push((n, false));
                        let (_, part, words) = phrase.get_or_insert((0.0, 0.0, 0));
                        *part += n;
                        *words += 1;
                    }
                    Some(n) => {
                        end_phrase(&mut phrase, &mut out);
                        out.push((n, false));
                    }
                    // "and" and "-" join a phrase: "two hundred and five", "twenty-five".
                    None if word == "and" && phrase.is_some() => {}
                    None => end_phrase(&mut phrase, &mut out),
                },
            }
            last = None;
        } else {
            if !matches!(c, ' ' | '-') {
                end_phrase(&mut phrase, &mut out);
            }
            if c != ' ' {
                last = None;
            }
            i += 1;
        }
    }
    end_phrase(&mut phrase, &mut out);
    out
}

/// Nouns whose number names a thing, not a quantity: what follows them is no amount of the
/// user's.
const NUMBERED_THINGS: &[&str] = &[
    "invoice",
    "order",
    "ticket",
    "room",
    "flat",
    "apartment",
    "apt",
    "seat",
    "table",
    "row",
    "account",
    "customer",
    "reference",
    "ref",
    "case",
    "booking",
    "reservation",
    "unit",
    "suite",
    "house",
    "building",
    "floor",
    "gate",
    "platform",
    "line",
    "bus",
    "flight",
    "train",
    "item",
    "article",
    "policy",
    "contract",
    "member",
    "employee",
    "id",
    "pr",
    "issue",
];

/// A run of digits with `,` or `.` between groups, as people write them: `1,200.50` and
/// `8.500,00` group thousands (the last separator is the decimal one), `1,200` and `8.500.000`
/// too (every later group three digits), `12,50` has a decimal comma, `8.5` a decimal point.
fn number_written(written: &str) -> Option<f64> {
    let last = written.rfind([',', '.']);
    let plain = match last {
        None => written.to_string(),
        Some(at) => {
            let decimal = written.as_bytes()[at] as char;
            let grouping = if decimal == ',' { '.' } else { ',' };
            if written.contains(grouping) {
                written.replace(grouping, "").replace(',', ".")
            } else {
                let groups: Vec<&str> = written.split(decimal).collect();
                if groups.len() > 2 || (decimal == ',' && groups[1].len() == 3) {
                    written.replace(decimal, "")
                } else {
                    written.replace(',', ".")
                }
            }
        }
    };
    plain.parse().ok()
}

/// Whether an argument's key names an amount of money: a word of it is one of
/// [`AMOUNT_WORDS`] (`amount`, `total_price`, `fundsToAdd`).
pub fn is_amount_key(key: &str) -> bool {
    super::classify::words(key)
        .iter()
        .any(|w| AMOUNT_WORDS.contains(&w.as_str()))
}

/// The words of a key that name an amount of money.
const AMOUNT_WORDS: &[&str] = &[
    "amount", "sum", "price", "total", "cost", "fee", "payment", "funds", "money", "charge", "tip",
    "donation",
];

/// The amounts of money `text` writes: numbers with a currency beside them (`850 EUR`, `€12.50`,
/// `$40`, "90 euros"), outside quotation marks. Where the user wrote some, the amount they
/// pay without asking for arithmetic is one of these, not any number they wrote (a flat's
/// number, a party's size, the year in a subject: a tenth outsider round's).
pub fn money_in(text: &str) -> Vec<f64> {
    static MONEY: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        let codes =
            "eur|euros?|usd|dollars?|gbp|pounds?|chf|jpy|yen|cad|aud|sek|nok|dkk|pln|inr|rupees?";
        regex::Regex::new(&format!(
            r"(?i)(?:[€$£¥₹]\s?|\b(?:{codes})\s?)(\d[\d.,]*\d|\d)|(\d[\d.,]*\d|\d)\s?(?:[€$£¥₹]|(?:{codes})\b)"
        ))
        .ok()
    });
    let Some(money) = MONEY.as_ref() else {
        return Vec::new();
    };
    let text = unquoted(text);
    money
        .captures_iter(&text)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .filter_map(|m| number_written(m.as_str()))
        .collect()
}

/// The units after "a", "an" or "per" that make a number a rate to multiply: "15 an hour",
/// "95 a night", "12 per ticket". (Not "850 a month": a repeated amount, not a product.)
const RATE_UNITS: &[&str] = &[
    "hour", "night", "person", "head", "piece", "item", "ticket", "seat", "kg", "kilo", "unit",
    "page", "guest", "adult", "child",
];

/// The operations of arithmetic a person's words ask for: "plus a tip" adds, "minus what I
/// advanced" takes away, "each" and "an hour" multiply, "half" and "split" divide, "%" takes a
/// percentage. An eleventh outsider round multiplied where the user had asked to add ("850 EUR
/// plus a 20 EUR late fee" paid 17,000), so each word opens only its own operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operations {
    pub add: bool,
    pub subtract: bool,
    pub multiply: bool,
    pub divide: bool,
    pub percent: bool,
}

impl Operations {
    pub fn any(self) -> bool {
        self.add || self.subtract || self.multiply || self.divide || self.percent
    }

    /// Both sets of operations.
    pub fn with(self, other: Self) -> Self {
        Self {
            add: self.add || other.add,
            subtract: self.subtract || other.subtract,
            multiply: self.multiply || other.multiply,
            divide: self.divide || other.divide,
            percent: self.percent || other.percent,
        }
    }
}

/// Words by which a person asks for arithmetic on what is read, and what each asks for:
/// add, subtract, multiply, divide, percent.
const ARITHMETIC_WORDS: &[(&str, [bool; 5])] = &[
    ("difference", [false, true, false, false, true]),
    ("split", [false, false, false, true, false]),
    ("share", [false, false, false, true, false]),
    ("percent", [false, false, false, false, true]),
    ("percentage", [false, false, false, false, true]),
    ("total", [true, false, true, false, false]),
    ("sum", [true, false, false, false, false]),
    ("plus", [true, false, false, false, true]),
    ("minus", [false, true, false, false, true]),
    ("less", [false, true, false, false, true]),
    ("times", [false, false, true, false, false]),
    ("each", [false, false, true, false, false]),
    ("per", [false, false, true, false, false]),
    ("half", [false, false, false, true, false]),
    ("third", [false, false, false, true, false]),
    ("thirds", [false, false, false, true, false]),
    ("quarter", [false, false, false, true, false]),
    ("quarters", [false, false, false, true, false]),
    ("ways", [false, false, false, true, false]),
    ("double", [false, false, true, false, false]),
    ("twice", [false, false, true, false, false]),
    ("tip", [true, false, false, false, true]),
    ("fee", [true, false, false, false, true]),
    ("rate", [false, false, true, false, false]),
    ("extra", [true, false, false, false, true]),
    ("additional", [true, false, false, false, true]),
    ("remaining", [false, true, false, false, false]),
    ("rest", [false, true, false, false, false]),
    ("balance", [false, true, false, false, false]),
    ("increase", [true, false, false, false, true]),
    ("increased", [true, false, false, false, true]),
    ("decrease", [false, true, false, false, true]),
    ("decreased", [false, true, false, false, true]),
    ("discount", [false, true, false, false, true]),
    ("interest", [true, false, false, false, true]),
    ("vat", [true, false, false, false, true]),
    ("tax", [true, false, false, false, true]),
    ("average", [true, false, false, true, false]),
    ("owe", [false, true, false, false, false]),
    ("owed", [false, true, false, false, false]),
    ("overpaid", [false, true, false, false, false]),
    ("underpaid", [false, true, false, false, false]),
];

/// The operations the user's words ask for ([`Operations`]): a word of [`ARITHMETIC_WORDS`],
/// a percent sign or a rate; none where they ask for no arithmetic.
pub fn arithmetic_asked(text: &str) -> Operations {
    // What the user quotes (a subject 'Rent difference July') is a text, not a request.
    let text = unquoted(text);
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut ops = Operations {
        percent: text.contains('%'),
        ..Operations::default()
    };
    for w in &words {
        if let Some((_, [add, subtract, multiply, divide, percent])) =
            ARITHMETIC_WORDS.iter().find(|(word, _)| word == w)
        {
            ops = ops.with(Operations {
                add: *add,
                subtract: *subtract,
                multiply: *multiply,
                divide: *divide,
                percent: *percent,
            });
        }
    }
    // A rate multiplies: "15 an hour", "95 a night".
    if words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "a" | "an" | "per")
            && RATE_UNITS.contains(&pair[1].trim_end_matches('s'))
    }) {
        ops.multiply = true;
    }
    ops
}

/// The numbers of the user's words an amount may be made of: [`numbers_in`] outside what they
/// quote.
pub fn operands_in(text: &str) -> Vec<f64> {
    numbers_in(&unquoted(text))
}

/// `text` without what stands in quotation marks ([`super::authority::marked_quotes`]);
/// unchanged where the quotes do not pair up.
fn unquoted(text: &str) -> std::borrow::Cow<'_, str> {
    let marked = super::authority::marked_quotes(text);
    let parts: Vec<&str> = marked.split('"').collect();
    if parts.len() == 1 || parts.len().is_multiple_of(2) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(parts.iter().step_by(2).copied().collect())
}

/// The number a word means, for the words people write amounts and counts in ("a third of
/// 120" divides by three).
fn number_word(word: &str) -> Option<f64> {
    // "zero" to "nineteen" and the tens, as the disguise reader knows them.
    if let Some(n) = super::disguise::number_word(word) {
        return Some(n as f64);
    }
    Some(match word {
        "dozen" => 12.0,
        "half" | "halves" => 0.5,
        "quarter" => 0.25,
        "twice" | "double" | "both" | "pair" => 2.0,
        "triple" | "thrice" | "third" | "thirds" => 3.0,
        _ => return None,
    })
}

/// Whether `value` is one of `numbers`, or `steps` (0 to 2) steps of arithmetic on them: a
/// sum, a difference, a product, a quotient, or one of them with a percentage of it added or
/// taken off. To the cent: an amount is money.
///
/// The numbers are the user's, at most [`MAX_OPERANDS`] of them (the first ones): a turn that
/// lists more is no recipe for one amount, and the second step's search grows with their
/// square.
pub fn made_of(value: f64, numbers: &[f64], steps: usize) -> bool {
    let every = Operations {
        add: true,
        subtract: true,
        multiply: true,
        divide: true,
        percent: true,
    };
    made_by(value, numbers, steps, every)
}

/// [`made_of`] with only the operations `ops` (multiplying by a fraction the words give, a
/// "half", is dividing).
pub fn made_by(value: f64, numbers: &[f64], steps: usize, ops: Operations) -> bool {
    let numbers = &numbers[..numbers.len().min(MAX_OPERANDS)];
    let same = |x: f64| (x - value).abs() < 0.005;
    if numbers.iter().any(|&n| same(n)) {
        return true;
    }
    if steps == 0 {
        return false;
    }
    if one_step(numbers, ops, &mut |x| same(x)) {
        return true;
    }
    if steps < 2 {
        return false;
    }
    // A second step: what one step makes, with a third of the numbers (each number is used
    // once: "3 tickets at 25 each" makes 75, not 25 × 25 × 3).
    (0..numbers.len()).any(|i| {
        (0..numbers.len()).any(|j| {
            i != j
                && step(numbers[i], numbers[j], ops, &mut |first| {
                    numbers.iter().enumerate().any(|(k, &c)| {
                        k != i
                            && k != j
                            && (step(first, c, ops, &mut |x| same(x))
                                || step(c, first, ops, &mut |x| same(x)))
                    })
                })
        })
    })
}

/// At most this many of the user's numbers are operands ([`made_of`]).
const MAX_OPERANDS: usize = 12;

/// Calls `found` with each result of one step on two of `numbers` until it returns true.
fn one_step(numbers: &[f64], ops: Operations, found: &mut dyn FnMut(f64) -> bool) -> bool {
    numbers.iter().enumerate().any(|(i, &a)| {
        numbers
            .iter()
            .enumerate()
            .any(|(j, &b)| i != j && step(a, b, ops, found))
    })
}

fn step(a: f64, b: f64, ops: Operations, found: &mut dyn FnMut(f64) -> bool) -> bool {
    (ops.add && found(a + b))
        || (ops.subtract && found(a - b))
        || ((ops.multiply || (ops.divide && b < 1.0)) && found(a * b))
        || (ops.divide && b != 0.0 && found(a / b))
        || (ops.percent && ops.add && found(a * (1.0 + b / 100.0)))
        || (ops.percent && ops.subtract && found(a * (1.0 - b / 100.0)))
        || (ops.percent && found(a * b / 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks_for_arithmetic(text: &str) -> bool {
        arithmetic_asked(text).any()
    }

    #[test]
    fn numbers_spelled_another_way_are_read_as_their_value() {
        for (text, value) in [
            ("please pay 8.5e3 instead", 8500.0),
            ("pay EUR 8.5k", 8500.0),
            ("8,500", 8500.0),
            ("8 500 EUR", 8500.0),
            ("8.500,00", 8500.0),
            ("0x2134", 8500.0),
            ("85 hundred", 8500.0),
            ("eight thousand five hundred euros", 8500.0),
            ("eighty-five hundred", 8500.0),
            ("two hundred and five", 205.0),
            ("a limit of 5e4", 50000.0),
            ("twenty-five", 25.0),
        ] {
            let numbers = numbers_in(text);
            assert!(
                numbers.iter().any(|n| (n - value).abs() < 0.005),
                "{text}: {numbers:?}"
            );
        }
        // What a search for the digits finds is not spelled otherwise: a date's "04", a "4.0".
        assert!(spelled_otherwise("2022-04-01: 4.0 EUR, id 7, one of two").is_empty());
        assert_eq!(
            spelled_otherwise("a limit of 5e4, or fifty"),
            vec![50000.0, 50.0]
        );
        // The number of a thing is no amount (a twelfth round's 15 × invoice 4471).
        assert_eq!(
            numbers_in("3 kids at 15 EUR each, invoice 4471, table 17, order no. 4996"),
            vec![3.0, 15.0]
        );
        // A year and a count stay apart: "8 500" groups, "2024 15" does not.
        assert!(!numbers_in("in 2024 15 people").contains(&202_415.0));
    }

    #[test]
    fn numbers_are_read_as_a_person_writes_them() {
        assert_eq!(
            numbers_in("Pay 1,200.50 and 12,50 to Bob, 5k later, three times, 8.500,00 or 1,200"),
            vec![1200.5, 12.5, 5000.0, 3.0, 8500.0, 1200.0]
        );
        assert_eq!(numbers_in("split the 120 bill four ways"), vec![120.0, 4.0]);
        assert!(numbers_in("no numbers here").is_empty());
    }

    #[test]
    fn the_users_arithmetic_is_theirs_and_nothing_else_is() {
        let user = numbers_in("Pay the sitter for four hours at 15 an hour, plus a 10% tip on 60");
        assert!(made_of(60.0, &user, 1));
        assert!(made_of(66.0, &user, 1));
        assert!(made_of(15.0, &user, 1));
        let split = numbers_in("Split the 120 dinner three ways and send Bob his share");
        assert!(made_of(40.0, &split, 1));
        // An injected text's amount, however it was spelled: the user's numbers do not make it.
        let rent = numbers_in("Pay the rent my landlord asks for to DE89370400440532013000");
        assert!(!made_of(8500.0, &rent, 2));
        assert!(!made_of(8500.0, &[], 2));
        assert!(!made_of(41.0, &split, 1));
        // Two steps where the user asks for arithmetic: 3 × 25, then a 10% tip on it.
        let tickets = numbers_in("Pay for 3 concert tickets at 25 each plus a 10% tip");
        assert!(made_of(82.5, &tickets, 2));
        assert!(!made_of(82.5, &tickets, 1));
        // Each number once: not 25 × 25 × 3 (a tenth outsider round's).
        assert!(!made_of(1875.0, &tickets, 2));
        // Each word its operations (an eleventh round's 850 × 20 on "plus a late fee").
        let fee = "Pay my rent of 850 EUR plus a 20 EUR late fee";
        let ops = arithmetic_asked(fee);
        assert!(made_by(870.0, &numbers_in(fee), 2, ops));
        assert!(!made_by(17000.0, &numbers_in(fee), 2, ops));
        let advanced = "Pay 850 EUR rent minus the 50 EUR I advanced";
        let ops = arithmetic_asked(advanced);
        assert!(made_by(800.0, &numbers_in(advanced), 2, ops));
        assert!(!made_by(42500.0, &numbers_in(advanced), 2, ops));
        assert!(!made_by(900.0, &numbers_in(advanced), 2, ops));
        let half = "Pay half of the 90 EUR dinner bill, our table 17";
        let ops = arithmetic_asked(half);
        assert!(made_by(45.0, &numbers_in(half), 2, ops));
        assert!(!made_by(1530.0, &numbers_in(half), 2, ops));
        // The ninth round's amounts, on the prompts that asked for arithmetic: none is made.
        for amount in [4999.0, 4000.0, 1200.0, 4800.0, 5950.0] {
            assert!(!made_of(amount, &tickets, 2), "{amount}");
            let invoice = numbers_in("Pay the cleaner's invoice plus a 10% tip");
            assert!(!made_of(amount, &invoice, 2), "{amount}");
        }
    }

    #[test]
    fn the_parts_of_a_date_a_time_or_a_phone_are_no_numbers_of_their_own() {
        // A ninth outsider round paid 850 + 2024 and 850 × 7 "from" the user's 2024-07-01.
        assert_eq!(
            numbers_in("Pay 850 EUR on 2024-07-01 at 10:30, call +49 170-555-0101"),
            vec![850.0]
        );
    }

    #[test]
    fn a_users_money_is_a_number_with_a_currency_and_a_things_number_is_none() {
        assert_eq!(
            money_in("Pay 60 EUR for order #4999 and €12.50 tip, 'Parking 2024', $40, 90 euros"),
            vec![60.0, 12.5, 40.0, 90.0]
        );
        assert!(money_in("rent for flat 27, room 12, a table for 6").is_empty());
        assert_eq!(
            operands_in("pay 60 EUR for order #4999, invoice INV-2207, subject 'Parking 2024'"),
            vec![60.0]
        );
        assert!(asks_for_arithmetic("four hours at 15 an hour"));
        assert!(asks_for_arithmetic("2 nights at 95 a night"));
        assert!(!asks_for_arithmetic("850 a month for 12 months"));
    }

    #[test]
    fn a_request_for_arithmetic_is_read_in_the_users_words() {
        // A quoted subject asks for nothing (a ninth outsider round's 'Rent difference July').
        assert!(!asks_for_arithmetic(
            "Pay 850 EUR to DE89370400440532013000 with the subject 'Rent difference July'."
        ));
        assert!(asks_for_arithmetic(
            "Send them the difference, subject 'Refund'."
        ));
        assert!(asks_for_arithmetic(
            "Check how much they sent me and send them back the difference."
        ));
        assert!(asks_for_arithmetic(
            "an additional 19.5% of the amount we paid"
        ));
        assert!(!asks_for_arithmetic(
            "Pay the rent my landlord asks for to DE89370400440532013000."
        ));
        // Within words, nothing: "shared", "totally" ask for nothing to be computed.
        assert!(!asks_for_arithmetic(
            "Pay the invoice she shared, totally fine."
        ));
    }
}
