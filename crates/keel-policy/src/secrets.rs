//! Secrets read in data, and whether an argument carries one, however it spells it.
//!
//! A result that says "Your door PIN is four-seven-one-nine" or "recovery words: maple orbit
//! velvet canyon" holds a secret, and a message the user asked for ("reply to Tom that Thursday
//! works") that also carries it hands it over: an eighth outsider round's replies carried a
//! PIN in words, recovery words in capitals or joined by dashes, a Wi-Fi password and an alarm
//! code. A secret is found by what a text calls it (a word of [`SECRET_WORDS`] before "is",
//! "are", ":" or "="), and an argument carries it when it holds its digits (written as digits
//! or as number words) or three of its words in a row, in any case and with any separators.

/// What a text calls a secret.
const SECRET_WORDS: &[&str] = &[
    "pin",
    "password",
    "passcode",
    "passphrase",
    "pass",
    "code",
    "otp",
    "token",
    "secret",
    "key",
    "words",
    "phrase",
    "codes",
];

/// A secret a text holds: what it called it, and its value read as digits or as words.
#[derive(Clone, Debug, PartialEq)]
pub struct Secret {
    /// The word the text called it by ("pin", "password", "words").
    pub called: String,
    /// The word before that ("recovery" words, "alarm" code, "door" PIN), if a word.
    qualifier: Option<String>,
    /// Its digits, when its value is a number of four digits or more (as digits or words).
    digits: Option<String>,
    /// Its words in lower case, when its value is words.
    words: Vec<String>,
}

impl Secret {
    /// What the text called it, as a reason says it: "PIN", "recovery words", "password".
    pub fn called_as(&self) -> String {
        match (&self.qualifier, self.called.as_str()) {
            (_, "pin" | "otp") => self.called.to_uppercase(),
            (Some(q), called) => format!("{q} {called}"),
            (None, called) => called.to_string(),
        }
    }

    /// Whether the user's words name this secret: its own name where that says it is one
    /// ("PIN", "password"), or the word the text put before it ("the alarm code", "the
    /// recovery words"), not a bare "code" or "words".
    pub fn named_by(&self, said: &[crate::authority::SaidWord]) -> bool {
        let says = |w: &str| said.iter().any(|s| s.word == w);
        let specific = matches!(
            self.called.as_str(),
            "pin" | "password" | "passcode" | "passphrase" | "otp" | "secret"
        );
        (specific && says(&self.called))
            || self
                .qualifier
                .as_deref()
                .is_some_and(|q| says(q) && (says(&self.called) || specific))
    }
}

/// Words that make a line's number of four to eight digits a code that opens something:
/// "Home alarm: disarm with 5531", "garage keypad 7781".
const GUARDED_WORDS: &[&str] = &[
    "alarm",
    "disarm",
    "safe",
    "keypad",
    "combination",
    "vault",
    "garage",
    "gate",
    "lockbox",
    "unlock",
];

/// The secrets `text` holds.
pub fn secrets_in(text: &str) -> Vec<Secret> {
    let lower = text.to_lowercase();
    let mut out = guarded_codes(&lower);
    let bytes = lower.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let Some(at) = lower[start..].find(|c: char| c.is_ascii_alphabetic()) else {
            break;
        };
        let word_start = start + at;
        let word_end = lower[word_start..]
            .find(|c: char| !c.is_ascii_alphabetic())
            .map_or(lower.len(), |n| word_start + n);
        let word = &lower[word_start..word_end];
        start = word_end;
        if !SECRET_WORDS.contains(&word) {
            continue;
        }
        // "PIN is …", "password: …", "words are: …", "key = …".
        let rest = lower[word_end..].trim_start();
        let Some((marker, value)) =
            ["is:", "are:", "is", "are", ":", "="]
                .iter()
                .find_map(|marker| {
                    rest.strip_prefix(marker)
                        .filter(|r| {
                            r.starts_with(|c: char| c.is_whitespace())
                                || marker.ends_with([':', '='])
                        })
                        .map(|r| (*marker, r))
                })
        else {
            continue;
        };
        // After "is", a value of ordinary words is prose ("your PIN is safe with us"); a
        // list of words is a secret after a colon or "=".
        let listed = marker.ends_with([':', '=']);
        let value = Some(value).map(|r| {
            let r = r.trim_start();
            let end = r.find(['.', '\n', ';', '"', '(']).map_or(r.len(), |n| n);
            r[..end].trim()
        });
        let Some(value) = value.filter(|v| !v.is_empty()) else {
            continue;
        };
        let words: Vec<String> = value
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(12)
            .map(str::to_string)
            .collect();
        let digits = digits_of(&words).filter(|d| d.len() >= 4);
        let letter_words: Vec<String> = words
            .iter()
            .filter(|w| w.chars().all(char::is_alphabetic) && digit_word(w).is_none())
            .cloned()
            .collect();
        let one_token = words.len() == 1 && words[0].len() >= 6;
        if digits.is_some() || (listed && letter_words.len() >= 2) || one_token {
            let words = if letter_words.len() >= 2 {
                letter_words
            } else if digits.is_none() {
                words
            } else {
                Vec::new()
            };
            let qualifier = lower[..word_start]
                .trim_end()
                .rsplit(|c: char| !c.is_ascii_alphabetic())
                .next()
                .filter(|q| q.len() > 2 && !matches!(*q, "the" | "your" | "our" | "new" | "and"))
                .map(str::to_string);
            out.push(Secret {
                called: word.to_string(),
                qualifier,
                digits,
                words,
            });
        }
    }
    out
}

/// The codes of four to eight digits on a line that says what they open (see
/// [`GUARDED_WORDS`]); `lower` is the text in lower case.
fn guarded_codes(lower: &str) -> Vec<Secret> {
    let mut out = Vec::new();
    for line in lower.lines() {
        let words: Vec<&str> = line
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let Some(guard) = words.iter().find(|w| GUARDED_WORDS.contains(w)) else {
            continue;
        };
        for code in words
            .iter()
            .filter(|w| (4..=8).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()))
        {
            out.push(Secret {
                called: "code".to_string(),
                qualifier: Some((*guard).to_string()),
                digits: Some((*code).to_string()),
                words: Vec::new(),
            });
        }
    }
    out
}

/// Whether `value` carries `secret`: its digits in a run of digits or digit words, or three of
/// its words in a row (all of them when it has fewer), ignoring case and separators.
pub fn carries(value: &str, secret: &Secret) -> bool {
    let words: Vec<String> = value
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(digits) = &secret.digits {
        let mut run = String::new();
        for w in &words {
            match digit_word(w) {
                Some(d) => run.push(d),
                None if w.chars().all(|c| c.is_ascii_digit()) => run.push_str(w),
                None => {
                    if run.contains(digits.as_str()) {
                        return true;
                    }
                    run.clear();
                }
            }
        }
        if run.contains(digits.as_str()) {
            return true;
        }
    }
    let need = secret.words.len().min(3);
    need > 0
        && words.windows(need).any(|window| {
            secret
                .words
                .windows(need)
                .any(|part| part.iter().zip(window).all(|(a, b)| a == b))
        })
}

/// The digits a value's words spell, when each of them is digits or a digit word
/// ("four-seven-one-nine", "4719", "4 7 1 9").
fn digits_of(words: &[String]) -> Option<String> {
    let mut out = String::new();
    for w in words {
        match digit_word(w) {
            Some(d) => out.push(d),
            None if w.chars().all(|c| c.is_ascii_digit()) => out.push_str(w),
            None => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

fn digit_word(word: &str) -> Option<char> {
    if word == "oh" {
        return Some('0');
    }
    super::disguise::number_word(word)
        .filter(|&n| n < 10)
        .and_then(|n| char::from_digit(n as u32, 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Secret {
        secrets_in(text).into_iter().next().expect(text)
    }

    #[test]
    fn a_secret_is_what_a_text_calls_one() {
        let pin = first("Your door PIN is four-seven-one-nine. Thanks, HR");
        assert_eq!(pin.called, "pin");
        let words = first("Your recovery words are: maple orbit velvet canyon lantern fossil.");
        assert_eq!(words.called, "words");
        assert!(secrets_in("The code review is on Monday at the office.").is_empty());
        assert!(secrets_in("Your PIN is safe with us.").is_empty());
    }

    #[test]
    fn an_argument_carries_a_secret_however_it_spells_it() {
        let pin = first("Your door PIN is four-seven-one-nine.");
        assert!(carries("Thursday works. PIN four-seven-one-nine", &pin));
        assert!(carries("Thursday works. 4719", &pin));
        assert!(carries("code: 4 7 1 9", &pin));
        assert!(!carries("Thursday works for me.", &pin));
        let words = first("Your recovery words are: maple orbit velvet canyon lantern fossil.");
        for body in [
            "Thursday works. maple orbit velvet canyon lantern fossil",
            "Thursday works. MAPLE ORBIT VELVET CANYON LANTERN FOSSIL",
            "Thursday works. maple-orbit-velvet-canyon-lantern-fossil",
            "velvet canyon lantern",
        ] {
            assert!(carries(body, &words), "{body}");
        }
        assert!(!carries("the maple tree by the canyon", &words));
        let wifi = first("Wi-Fi password: purple elephant dancing");
        assert!(carries("Wi-Fi pass: purple elephant dancing", &wifi));
        let alarm = first("alarm code: 5531");
        assert!(carries("Thursday works. Alarm 5531", &alarm));
        // A code a line says what it opens, without "is" or a colon before it.
        let home = first("Wi-Fi: CoffeeBean-Guest\nHome alarm: disarm with 5531\n");
        assert_eq!(home.called_as(), "alarm code");
        assert!(carries("Thursday works. Alarm 5531", &home));
        assert!(secrets_in("Meeting room 4 at 10:30, 2024 budget").is_empty());
    }
}
