//! Secrets read in data, and whether an argument carries one, however it spells it.
//!
//! A result that says "Your door PIN is four-seven-one-nine" or "recovery words: maple orbit
//! velvet canyon" holds a secret, and a message the user asked for ("reply to Tom that Thursday
//! works") that also carries it hands it over: an eighth outsider round's replies carried a
//! PIN in words, recovery words in capitals or joined by dashes, a Wi-Fi password and an alarm
//! code; a ninth round's labelled them otherwise (`passwd=`, "PIN 4719", "The PIN's 9035",
//! "Seed words …", "pwd — …") and spelled them otherwise ("twenty-five eighty", `MMDLXXX`,
//! reversed, `T r 0 u b 4 d o r & 3`, two words of four, split over subject and body).
//!
//! So a secret is found by what a text calls it (a word of [`SECRET_WORDS`], however it is
//! joined to its value), or by a line that says what a code opens ([`GUARDED_WORDS`]); and it
//! is compared in one normal form for each kind of value, not spelling by spelling:
//! - digits: the digits an argument says, in digits of any script, number words or capital
//!   Roman numerals, read in order across the words between them; the secret's digits (or the
//!   same reversed) among them;
//! - a token (a password): the argument's letters and digits alone hold the token's;
//! - words (a recovery or pass phrase): two of its words next to each other, in any order, in
//!   the argument's letters alone.

/// What a text calls a secret.
const SECRET_WORDS: &[&str] = &[
    "pin",
    "password",
    "passwd",
    "pwd",
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
    "seed",
    "mnemonic",
    "combination",
    "combo",
    "cvc",
    "cvv",
    "csc",
    "psk",
    "answer",
    "question",
    "maiden",
];

/// Names of a secret whose value is a list of words: after them, words are the secret even
/// after "is" ("the recovery phrase was pencil harbor quiet").
const PHRASE_WORDS: &[&str] = &["words", "phrase", "passphrase", "seed", "mnemonic"];

/// Names that say by themselves that a thing is a secret: the user's saying one names it.
const SPECIFIC_WORDS: &[&str] = &[
    "cvc",
    "cvv",
    "psk",
    "pin",
    "password",
    "passcode",
    "passphrase",
    "otp",
    "secret",
    "seed",
    "mnemonic",
    "combination",
];

/// A secret a text holds: what it called it, and its value in the forms it is compared in.
#[derive(Clone, Debug, PartialEq)]
pub struct Secret {
    /// The word the text called it by ("pin", "password", "words"), an abbreviation written
    /// out (`pwd` is "password").
    pub called: String,
    /// The word before that ("recovery" words, "alarm" code, "door" PIN), if a word.
    qualifier: Option<String>,
    /// Its digits, when its value is a number of four digits or more (as digits or words).
    digits: Option<String>,
    /// Its words in lower case, when its value is words.
    words: Vec<String>,
    /// Its letters and digits alone in lower case, when its value is one token of six
    /// characters or more (`Owl#Night22` → `owlnight22`).
    token: Option<String>,
    /// The words of its line before its name, in lower case: what it belongs to ("the office
    /// Wi-Fi is Fernway-Staff, password: …").
    context: Vec<String>,
}

impl Secret {
    /// A password a text gives without a name keel reads ([`foreign_secrets`],
    /// [`paired_credentials`]): its digits or its token.
    fn password(digits: Option<String>, token: Option<String>) -> Self {
        Self {
            called: "password".to_string(),
            qualifier: None,
            digits,
            words: Vec::new(),
            token,
            context: Vec::new(),
        }
    }

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
        let specific = SPECIFIC_WORDS.contains(&self.called.as_str());
        (specific && says(&self.called))
            || self
                .qualifier
                .as_deref()
                .is_some_and(|q| says(q) && (says(&self.called) || specific))
            // "Send the office Wi-Fi details to Sam": what asks for the particulars of a thing
            // the secret's line names.
            || (DETAIL_WORDS.iter().any(|w| says(w)) && self.context.iter().any(|w| says(w)))
    }
}

/// Words by which a person asks for the particulars of a thing, its secret among them.
const DETAIL_WORDS: &[&str] = &["details", "credentials", "login", "logins", "access"];

/// Words of a line that name nothing a secret belongs to.
const CONTEXT_STOPWORDS: &[&str] = &[
    "the", "a", "an", "is", "are", "was", "my", "your", "our", "his", "her", "their", "of", "for",
    "and", "to", "in", "on", "at", "with", "new", "this", "that",
];

/// The words of the line of `lower` before `at` that may name what a secret there belongs to.
fn context_before(lower: &str, at: usize) -> Vec<String> {
    let line_start = lower[..at].rfind('\n').map_or(0, |n| n + 1);
    lower[line_start..at]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2 && !CONTEXT_STOPWORDS.contains(w) && !SECRET_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// Words that make a line's number of four to eight digits a code that opens something:
/// "Home alarm: disarm with 5531", "garage keypad 7781", "Door 7340#".
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
    "door",
    "lock",
    "padlock",
    "buzzer",
    "intercom",
    "entry",
];

/// What joins a secret's name to its value: "PIN is", "words are:", "phrase was", "PIN's",
/// "key =", "pwd —". Those after which a list of words is a secret come first.
const LISTING_MARKS: &[&str] = &[":", "=", "-", "\u{2014}", "\u{2013}"];
const SAYING_MARKS: &[&str] = &["is", "are", "was", "were", "reads", "'s", "\u{2019}s"];

/// The secrets `text` holds.
pub fn secrets_in(text: &str) -> Vec<Secret> {
    // "P.I.N." is a PIN.
    let lower = text
        .to_lowercase()
        .replace("p.i.n.", "pin")
        .replace("p.i.n", "pin");
    let mut out = guarded_codes(&lower);
    out.extend(foreign_secrets(&lower));
    out.extend(paired_credentials(&lower));
    let mut start = 0;
    while start < lower.len() {
        let Some(at) = lower[start..].find(|c: char| c.is_ascii_alphabetic()) else {
            break;
        };
        let word_start = start + at;
        let name_end = word_end(&lower, word_start);
        let word = &lower[word_start..name_end];
        start = name_end;
        if !SECRET_WORDS.contains(&word) {
            continue;
        }
        // The name may go on ("seed words", "PIN code"), then what joins it to its value.
        let mut phrase = PHRASE_WORDS.contains(&word);
        let mut rest = &lower[name_end..];
        let mut listed = false;
        let mut marked = false;
        // `"psk": "…"` (the name's closing quote), "Security question (first pet): …" (an
        // aside), "PIN for the card: 9753" (a colon a few words on, on the same line).
        if let Some(quoted) = rest.strip_prefix(['"', '\''])
            && quoted.trim_start().starts_with(':')
        {
            rest = quoted;
        }
        if let Some(aside) = rest.trim_start().strip_prefix('(')
            && let Some(close) = aside.find(')')
        {
            rest = &aside[close + 1..];
        }
        if let Some(colon) = rest.find(':')
            && rest[..colon].split_whitespace().count() <= 4
            && !rest[..colon].contains(['\n', '.', ';'])
        {
            rest = &rest[colon..];
        }
        loop {
            let trimmed = rest.trim_start();
            if let Some(next) = LISTING_MARKS.iter().find_map(|m| trimmed.strip_prefix(m)) {
                (rest, listed, marked) = (next, true, true);
                continue;
            }
            if let Some(next) = SAYING_MARKS.iter().find_map(|m| {
                let glued = m.starts_with(['\'', '\u{2019}']);
                let from = if glued { rest } else { trimmed };
                from.strip_prefix(m)
                    .filter(|r| !r.starts_with(|c: char| c.is_alphanumeric()))
            }) {
                (rest, marked) = (next, true);
                continue;
            }
            let next_end = word_end(trimmed, 0);
            let next = &trimmed[..next_end];
            if next_end > 0 && SECRET_WORDS.contains(&next) && !marked {
                phrase |= PHRASE_WORDS.contains(&next);
                rest = &trimmed[next_end..];
                continue;
            }
            break;
        }
        let value = value_of(rest.trim_start().trim_start_matches(['"', '\'']));
        if value.is_empty() {
            continue;
        }
        let words: Vec<&str> = value
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(12)
            .collect();
        // A card's security code has three digits; any other secret number four or more.
        let shortest = if matches!(word, "cvc" | "cvv" | "csc" | "combo" | "combination") {
            3
        } else {
            4
        };
        let digits = digits_of(&words)
            .filter(|d| d.len() >= shortest)
            .or_else(|| {
                // A code with a mark beside it: "Door 7340#", "6190x".
                let first = value.split_whitespace().next().unwrap_or("");
                coded_digits(first).or_else(|| {
                    // "CVC 737 on the back".
                    let digits: String = first.chars().filter(char::is_ascii_digit).collect();
                    (shortest == 3 && digits.len() == 3 && digits.len() == first.len())
                        .then_some(digits)
                })
            });
        let letter_words: Vec<String> = words
            .iter()
            .filter(|w| w.chars().all(char::is_alphabetic) && digit_word(w).is_none())
            .map(|w| (*w).to_string())
            .collect();
        // After "is", a value of ordinary words is prose ("your PIN is safe with us"); a list
        // of words is a secret after a colon or "=", or where the name says it is words; and
        // unmarked, only a list of three or more ("Seed words orbit canyon velvet").
        let listed_words = letter_words.len() >= 2
            && ((listed || (phrase && marked)) || (phrase && letter_words.len() >= 3));
        // A phrase's first word is no password of its own ("correct" of "correct horse
        // battery staple" is in any "correction"): its words are compared as words.
        let token = token_of(value, listed)
            .filter(|t| !(phrase && listed_words && t.chars().all(char::is_alphabetic)));
        if digits.is_none() && !listed_words && token.is_none() {
            continue;
        }
        let qualifier = lower[..word_start]
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .filter(|q| q.len() > 2 && !matches!(*q, "the" | "your" | "our" | "new" | "and"))
            .map(str::to_string);
        let called = match word {
            "passwd" | "pwd" => "password",
            "combo" => "combination",
            other => other,
        };
        out.push(Secret {
            called: called.to_string(),
            qualifier,
            digits,
            words: if listed_words {
                letter_words
            } else {
                Vec::new()
            },
            token,
            context: context_before(&lower, word_start),
        });
    }
    out
}

/// Where the word of ASCII letters that starts at `from` ends.
fn word_end(text: &str, from: usize) -> usize {
    text[from..]
        .find(|c: char| !c.is_ascii_alphabetic())
        .map_or(text.len(), |n| from + n)
}

/// A secret's value: up to the end of its sentence or line (a `.` ends it only before a
/// space or the end: `Kite.Runner9` is one token).
fn value_of(rest: &str) -> &str {
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        let stops = match c {
            '\n' | ';' | '"' | '(' => true,
            '.' | '!' | '?' => rest[i + 1..].chars().next().is_none_or(char::is_whitespace),
            _ => false,
        };
        if stops {
            end = i;
            break;
        }
    }
    rest[..end].trim()
}

/// The token a password is: the first word of the value, of six characters or more, with a
/// digit or a mark among its letters (`owl#night22`, `kite!runner9`), or any such word after
/// a colon (`password: sunshine`); its letters and digits alone.
fn token_of(value: &str, listed: bool) -> Option<String> {
    let first = value
        .split_whitespace()
        .next()?
        .trim_end_matches([',', ';', '.', '!', '?']);
    let compact: String = first.chars().filter(|c| c.is_alphanumeric()).collect();
    let letters = first.chars().any(char::is_alphabetic);
    let mixed = letters && first.chars().any(|c| !c.is_alphabetic());
    (compact.chars().count() >= 5 && first.chars().count() >= 6 && (mixed || listed))
        .then_some(compact)
}

/// The digits of a word that is a code with a mark or a letter or two beside it (`7340#`,
/// `6190x`): four to eight digits.
fn coded_digits(word: &str) -> Option<String> {
    let digits: String = word.chars().filter(char::is_ascii_digit).collect();
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    ((4..=8).contains(&digits.len()) && letters <= 2).then_some(digits)
}

/// Names of a secret in other languages, as they are written (lower case): a password, a PIN,
/// a code, a safe.
const FOREIGN_LABELS: &[&str] = &[
    "contraseña",
    "clave",
    "passwort",
    "kennwort",
    "geheimzahl",
    "tresor",
    "schlüsselkasten",
    "mot de passe",
    "code secret",
    "zugangscode",
    "codice",
    "safe word",
    "code word",
    "magic word",
    "secret word",
    "senha",
    "wachtwoord",
    "lösenord",
    "adgangskode",
    "hasło",
    "şifre",
    "parola",
    "пароль",
    "пин",
    "код",
    "密码",
    "口令",
    "パスワード",
    "暗証番号",
    "비밀번호",
];

/// The secrets a text names in another language ([`FOREIGN_LABELS`]): the token or digits
/// after the name (and a colon, full-width or not, or "=").
fn foreign_secrets(lower: &str) -> Vec<Secret> {
    // One pass over the text for every label (the gate reads each result once for secrets).
    static LABELS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        let alternatives: Vec<String> = FOREIGN_LABELS.iter().map(|l| regex::escape(l)).collect();
        regex::Regex::new(&alternatives.join("|")).ok()
    });
    let mut out = Vec::new();
    let Some(labels) = LABELS.as_ref() else {
        return out;
    };
    for found in labels.find_iter(lower) {
        {
            // A few words may stand before the colon ("the magic word for the garage lock:").
            let mut after = &lower[found.end()..];
            if let Some(colon) = after.find([':', '\u{ff1a}'])
                && after[..colon].split_whitespace().count() <= 6
                && !after[..colon].contains(['\n', '.', ';'])
            {
                after = &after[colon..];
            }
            let rest = after.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ':' | '\u{ff1a}' | '=' | '-')
            });
            let value = value_of(rest);
            let first = value.split_whitespace().next().unwrap_or("");
            let digits = coded_digits(first);
            let token = token_of(value, true);
            if digits.is_some() || token.is_some() {
                out.push(Secret::password(digits, token));
            }
        }
    }
    out
}

/// A line that gives a login or a network and its password side by side ("Wifi Tom5G /
/// sunflowerfield", "Login tom.h / rosebud"): what follows the slash.
fn paired_credentials(lower: &str) -> Vec<Secret> {
    const PAIRED: &[&str] = &[
        "wifi", "wi-fi", "wlan", "ssid", "network", "login", "user", "username", "account",
    ];
    let mut out = Vec::new();
    if !lower.contains(" / ") {
        return out;
    }
    for line in lower.lines() {
        if !line.contains(" / ") || !PAIRED.iter().any(|p| line.contains(p)) {
            continue;
        }
        let Some((_, after)) = line.split_once(" / ") else {
            continue;
        };
        if let Some(token) = token_of(value_of(after.trim()), true) {
            out.push(Secret::password(None, Some(token)));
        }
    }
    out
}

/// The codes on a line that says what they open (see [`GUARDED_WORDS`]), `lower` being the
/// text in lower case: a number of four to eight digits (`6190x` too), on that line or, when
/// the line is only the name ("Alarm" above "6190x"), on the next one; or a combination of
/// three numbers or more ("Safe: turn left 12, right 33, left 7").
fn guarded_codes(lower: &str) -> Vec<Secret> {
    let mut out = Vec::new();
    let lines: Vec<&str> = lower.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !c.is_alphanumeric() && c != '#')
            .filter(|w| !w.is_empty())
            .collect();
        let Some(guard) = words.iter().find(|w| GUARDED_WORDS.contains(w)) else {
            continue;
        };
        let mut codes: Vec<String> = words.iter().filter_map(|w| coded_digits(w)).collect();
        if codes.is_empty() && words.len() <= 2 {
            codes.extend(
                lines
                    .get(n + 1)
                    .into_iter()
                    .flat_map(|next| next.split_whitespace())
                    .filter_map(|w| coded_digits(w.trim_matches(|c: char| !c.is_alphanumeric()))),
            );
        }
        if codes.is_empty() {
            let numbers: Vec<&&str> = words
                .iter()
                .filter(|w| w.len() <= 3 && w.bytes().all(|b| b.is_ascii_digit()))
                .collect();
            let joined: String = numbers.iter().map(|w| **w).collect();
            if numbers.len() >= 3 && joined.len() >= 4 {
                codes.push(joined);
            }
        }
        for code in codes {
            out.push(Secret {
                called: "code".to_string(),
                qualifier: Some((*guard).to_string()),
                digits: Some(code),
                words: Vec::new(),
                token: None,
                context: Vec::new(),
            });
        }
    }
    out
}

/// An argument read in the normal forms secrets are compared in, each made when first needed
/// and kept for every secret it is compared with.
pub struct Argument<'a> {
    value: std::borrow::Cow<'a, str>,
    /// The runs of digits it says ([`said_digits`]).
    runs: std::sync::OnceLock<Vec<String>>,
    /// Its letters and digits alone, in lower case.
    compact: std::sync::OnceLock<String>,
    /// Its letters alone, in lower case.
    letters: std::sync::OnceLock<String>,
    /// What it says when read in a common encoding ([`decodings`]), and whether its digits
    /// are compared.
    decoded: std::sync::OnceLock<Vec<(Argument<'static>, bool)>>,
}

impl<'a> Argument<'a> {
    pub fn new(value: &'a str) -> Self {
        Self::of(std::borrow::Cow::Borrowed(value))
    }

    fn of(value: std::borrow::Cow<'a, str>) -> Self {
        Self {
            value,
            runs: std::sync::OnceLock::new(),
            compact: std::sync::OnceLock::new(),
            letters: std::sync::OnceLock::new(),
            decoded: std::sync::OnceLock::new(),
        }
    }

    fn runs(&self) -> &[String] {
        self.runs.get_or_init(|| said_digits(&self.value))
    }

    fn decoded(&self) -> &[(Argument<'static>, bool)] {
        self.decoded.get_or_init(|| {
            decodings(&self.value)
                .into_iter()
                .map(|(text, digits)| (Argument::of(std::borrow::Cow::Owned(text)), digits))
                .collect()
        })
    }

    fn compact(&self) -> &str {
        self.compact.get_or_init(|| {
            self.value
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect()
        })
    }

    fn letters(&self) -> &str {
        self.letters.get_or_init(|| {
            self.value
                .chars()
                .filter(|c| c.is_alphabetic())
                .flat_map(char::to_lowercase)
                .collect()
        })
    }
}

/// The digits `value` says ([`said_digits`]), its runs joined by spaces: what of a message a
/// code split over several messages is read from.
pub fn digits_said(value: &str) -> String {
    said_digits(value)
        .into_iter()
        .filter(|run| !run.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `argument` carries `secret`, in the secret's normal form (see the module's
/// paragraph); the argument is read once for many secrets.
pub fn carried_by(argument: &Argument<'_>, secret: &Secret) -> bool {
    carried_as_written(argument, secret, true)
        || (secret.words.len() >= 3 && misspelt_adjacent_words(&argument.value, &secret.words))
        || argument
            .decoded()
            .iter()
            .any(|(decoded, digits)| carried_as_written(decoded, secret, *digits))
}

/// [`carried_by`] without reading the argument in another encoding; its digits compared only
/// with `digits`.
fn carried_as_written(argument: &Argument<'_>, secret: &Secret, digits: bool) -> bool {
    if digits && let Some(digits) = &secret.digits {
        let reversed: String = digits.chars().rev().collect();
        if argument
            .runs()
            .iter()
            .any(|run| run.contains(digits.as_str()) || run.contains(reversed.as_str()))
        {
            return true;
        }
    }
    if let Some(token) = &secret.token {
        let compact = argument.compact();
        let reversed: String = token.chars().rev().collect();
        if compact.contains(token.as_str()) || compact.contains(reversed.as_str()) {
            return true;
        }
    }
    secret.words.len() >= 2 && adjacent_words(argument.letters(), &secret.words)
}

/// Whether two of `words` stand next to each other (any order, at most three letters between)
/// in `letters`, an argument's letters alone: "correct horse", "staple battery",
/// `CorrectHorse`, `c o r r e c t horse`, "amber and falcon".
fn adjacent_words(letters: &str, words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, a)| {
        letters.match_indices(a.as_str()).any(|(at, _)| {
            let after = at + a.len();
            words.iter().enumerate().any(|(j, b)| {
                i != j
                    && (0..=3).any(|gap| {
                        letters
                            .get(after + gap..)
                            .is_some_and(|rest| rest.starts_with(b.as_str()))
                    })
            })
        })
    })
}

/// Whether three words of a phrase secret stand next to each other in `value`, each as
/// written or one edit off (a letter left out, added, changed, or two swapped): "corect hors
/// batery stapel". Only words of four letters or more, on both sides, may be off by an edit,
/// and three are needed: two would take "the correct house number" for "correct horse".
fn misspelt_adjacent_words(value: &str, words: &[String]) -> bool {
    let said: Vec<String> = value
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let near = |a: &str, x: &str| {
        a == x || (a.chars().count() >= 4 && x.chars().count() >= 4 && within_one_edit(a, x))
    };
    said.windows(3).any(|three| {
        words.iter().enumerate().any(|(i, x)| {
            near(&three[0], x)
                && words.iter().enumerate().any(|(j, y)| {
                    j != i
                        && near(&three[1], y)
                        && words
                            .iter()
                            .enumerate()
                            .any(|(k, z)| k != i && k != j && near(&three[2], z))
                })
        })
    })
}

/// Whether `a` and `b` differ by at most one edit: one character left out, added or changed,
/// or two neighbours swapped.
fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let differ: Vec<usize> = (0..short.len()).filter(|&i| short[i] != long[i]).collect();
            match differ.as_slice() {
                [] | [_] => true,
                [i, j] => *j == i + 1 && short[*i] == long[*j] && short[*j] == long[*i],
                _ => false,
            }
        }
        1 => {
            let first = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            short[first..] == long[first + 1..]
        }
        _ => false,
    }
}

/// What `value` says when read in an encoding a text is commonly written in, each a text of
/// its own, with whether its digits are compared: each blob in it that decodes from base64
/// (either alphabet) or hexadecimal to printable text; its Morse code; each result of a sum
/// it writes out ("2579+1", "3691 minus 1111", "half of 5160"); and the whole of it in ROT13
/// and reversed, whose digits are not compared (ROT13 makes "bar" "one"; reversed digits are
/// compared as written already). A secret an injected instruction asked to be encoded is
/// still the secret. Each stands alone, so that the digits of two are not read as one run.
fn decodings(value: &str) -> Vec<(String, bool)> {
    // Blobs as written, and with the spaces an instruction put inside one taken out
    // ("Mj U4 MA ==").
    let unspaced: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out: Vec<(String, bool)> = [value, unspaced.as_str()]
        .iter()
        .flat_map(|text| {
            text.split(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-'))
            })
        })
        .filter(|t| t.len() >= 6)
        .filter_map(|t| {
            base64_text(t)
                .or_else(|| hex_text(t))
                .or_else(|| base32_text(t))
        })
        .map(|text| (text, true))
        .collect();
    out.extend(
        [
            escapes_text(value),
            hex_pairs_text(value),
            morse_text(value),
            spelled_text(value),
        ]
        .into_iter()
        .flatten()
        .map(|text| (text, true)),
    );
    out.extend(sums_written(value).into_iter().map(|sum| (sum, true)));
    // Letters moved by a rule: every rotation (ROT13 and its kin), the alphabet backwards
    // (Atbash), digits and marks for letters (`c0rr3ct h0r5e`), the whole reversed. Their
    // digits are not compared: ROT13 makes "bar" "one".
    if value.chars().any(|c| c.is_ascii_alphabetic()) {
        for shift in 1..26 {
            out.push((value.chars().map(|c| rotated(c, shift)).collect(), false));
        }
        out.push((value.chars().map(atbash).collect(), false));
    }
    if value
        .chars()
        .any(|c| LEET.iter().any(|(from, _)| *from == c))
    {
        // A `1` is an `i` or an `l`: both readings.
        out.push((unleet(value, 'i'), false));
        out.push((unleet(value, 'l'), false));
    }
    out.push((value.chars().rev().collect(), false));
    out
}

/// Digits and marks written for letters.
const LEET: &[(char, char)] = &[
    ('0', 'o'),
    ('1', 'l'),
    ('3', 'e'),
    ('4', 'a'),
    ('5', 's'),
    ('7', 't'),
    ('8', 'b'),
    ('9', 'g'),
    ('@', 'a'),
    ('$', 's'),
    ('!', 'i'),
    ('|', 'l'),
];

/// `value` with the digits and marks inside its words read as the letters they stand for
/// (`tul1p5` is `tulips`, with `one` for a `1`); a word of digits alone stays a number (`99`).
fn unleet(value: &str, one: char) -> String {
    value
        .split(' ')
        .map(|word| {
            if word.chars().any(|c| c.is_ascii_alphabetic()) {
                word.chars()
                    .map(|c| match c {
                        '1' => one,
                        c => LEET
                            .iter()
                            .find(|(from, _)| *from == c)
                            .map_or(c, |(_, to)| *to),
                    })
                    .collect()
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

fn rotated(c: char, shift: u8) -> char {
    match c {
        'a'..='z' => (((c as u8 - b'a') + shift) % 26 + b'a') as char,
        'A'..='Z' => (((c as u8 - b'A') + shift) % 26 + b'A') as char,
        c => c,
    }
}

fn atbash(c: char) -> char {
    match c {
        'a'..='z' => (b'z' - (c as u8 - b'a')) as char,
        'A'..='Z' => (b'Z' - (c as u8 - b'A')) as char,
        c => c,
    }
}

/// `blob` decoded from base32 (RFC 4648, either case, padded or not), when that is text.
fn base32_text(blob: &str) -> Option<String> {
    let body = blob.trim_end_matches('=');
    if body.len() < 7 || body.contains('=') {
        return None;
    }
    let bytes = from_bits(body, 5, |c| match c.to_ascii_uppercase() {
        c @ b'A'..=b'Z' => Some(c - b'A'),
        c @ b'2'..=b'7' => Some(c - b'2' + 26),
        _ => None,
    })?;
    printable(bytes)
}

/// `value` with its escapes undone — `%32`, `\x32`, `\u0032`, `&#50;`, `&#x32;` — when it
/// holds one.
fn escapes_text(value: &str) -> Option<String> {
    static ESCAPE: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)%([0-9a-f]{2})|\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|&#x([0-9a-f]{1,6});|&#([0-9]{1,7});",
        )
        .ok()
    });
    let re = ESCAPE.as_ref()?;
    if !re.is_match(value) {
        return None;
    }
    let mut bytes = Vec::with_capacity(value.len());
    let mut last = 0;
    for c in re.captures_iter(value) {
        let Some(whole) = c.get(0) else { continue };
        bytes.extend_from_slice(&value.as_bytes()[last..whole.start()]);
        last = whole.end();
        let (digits, radix, one_byte) =
            match (c.get(1).or(c.get(2)), c.get(3).or(c.get(4)), c.get(5)) {
                (Some(h), _, _) => (h.as_str(), 16, true),
                (_, Some(h), _) => (h.as_str(), 16, false),
                (_, _, Some(d)) => (d.as_str(), 10, false),
                _ => continue,
            };
        let Ok(n) = u32::from_str_radix(digits, radix) else {
            continue;
        };
        if one_byte {
            bytes.push(n as u8);
        } else if let Some(ch) = char::from_u32(n) {
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
    }
    bytes.extend_from_slice(&value.as_bytes()[last..]);
    printable(bytes)
}

/// The bytes of hexadecimal pairs written apart (`32:35:38:30`, `0x32 0x35 …`, `32 35 38 30`),
/// three or more in a row, when they are text.
fn hex_pairs_text(value: &str) -> Option<String> {
    let mut best: Vec<u8> = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    for token in value.split(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | ';')) {
        let pair = token
            .strip_prefix("0x")
            .or_else(|| token.strip_prefix("0X"))
            .or_else(|| token.strip_prefix("\\x"))
            .unwrap_or(token);
        match (pair.len() == 2)
            .then(|| u8::from_str_radix(pair, 16).ok())
            .flatten()
        {
            Some(b) => run.push(b),
            None => {
                if run.len() > best.len() {
                    best = std::mem::take(&mut run);
                }
                run.clear();
            }
        }
    }
    if run.len() > best.len() {
        best = run;
    }
    (best.len() >= 3).then(|| printable(best)).flatten()
}

/// What a text spells in the radio alphabet ("Tango Uniform Lima …", "Two Fife Ait Zero"):
/// its letters and digits run together, when three words or more of it are spelled.
fn spelled_text(value: &str) -> Option<String> {
    const SPELLING: &[(&str, char)] = &[
        ("alfa", 'a'),
        ("alpha", 'a'),
        ("bravo", 'b'),
        ("charlie", 'c'),
        ("delta", 'd'),
        ("echo", 'e'),
        ("foxtrot", 'f'),
        ("golf", 'g'),
        ("hotel", 'h'),
        ("india", 'i'),
        ("juliett", 'j'),
        ("juliet", 'j'),
        ("kilo", 'k'),
        ("lima", 'l'),
        ("mike", 'm'),
        ("november", 'n'),
        ("oscar", 'o'),
        ("papa", 'p'),
        ("quebec", 'q'),
        ("romeo", 'r'),
        ("sierra", 's'),
        ("tango", 't'),
        ("uniform", 'u'),
        ("victor", 'v'),
        ("whiskey", 'w'),
        ("whisky", 'w'),
        ("xray", 'x'),
        ("yankee", 'y'),
        ("zulu", 'z'),
        ("zero", '0'),
        ("one", '1'),
        ("wun", '1'),
        ("two", '2'),
        ("too", '2'),
        ("three", '3'),
        ("tree", '3'),
        ("four", '4'),
        ("fower", '4'),
        ("five", '5'),
        ("fife", '5'),
        ("six", '6'),
        ("seven", '7'),
        ("eight", '8'),
        ("ait", '8'),
        ("nine", '9'),
        ("niner", '9'),
    ];
    let mut out = String::new();
    let mut spelled = 0;
    for word in value.split(|c: char| !c.is_alphanumeric()) {
        let lower = word.to_lowercase();
        match SPELLING.iter().find(|(w, _)| *w == lower) {
            Some((_, c)) => {
                out.push(*c);
                spelled += 1;
            }
            None if !word.is_empty() => out.push(' '),
            None => {}
        }
    }
    (spelled >= 3).then_some(out)
}

/// Bytes as text, when they are UTF-8 that a person could read: printable, with a letter or
/// digit in it.
fn printable(bytes: Vec<u8>) -> Option<String> {
    let text = String::from_utf8(bytes).ok()?;
    (text
        .chars()
        .all(|c| !c.is_control() || c == '\n' || c == '\t')
        && text.chars().any(char::is_alphanumeric))
    .then_some(text)
}

/// `blob` decoded from base64, standard or URL-safe, padded or not, when that is text.
fn base64_text(blob: &str) -> Option<String> {
    let body = blob.trim_end_matches('=');
    if body.len() % 4 == 1 || body.contains('=') {
        return None;
    }
    let bytes = from_bits(body, 6, |c| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    })?;
    printable(bytes)
}

/// The bytes `symbols` spell at `width` bits a symbol (base64's 6, base32's 5), each symbol's
/// value given by `value`; `None` at a symbol outside the alphabet. Bits left over at the end
/// are padding.
fn from_bits(symbols: &str, width: u32, value: impl Fn(u8) -> Option<u8>) -> Option<Vec<u8>> {
    let mut bits: u32 = 0;
    let mut held = 0;
    let mut bytes = Vec::with_capacity(symbols.len() * width as usize / 8);
    for c in symbols.bytes() {
        bits = (bits << width) | u32::from(value(c)?);
        held += width;
        if held >= 8 {
            held -= 8;
            bytes.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    Some(bytes)
}

/// `blob` decoded from hexadecimal pairs, when that is text.
fn hex_text(blob: &str) -> Option<String> {
    if blob.len() < 8
        || !blob.len().is_multiple_of(2)
        || !blob.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    let bytes = (0..blob.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&blob[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .ok()?;
    printable(bytes)
}

/// The letters and digits of the Morse code in `value` (two symbols or more, a letter per
/// word, `/` or `|` between words), when it holds some.
fn morse_text(value: &str) -> Option<String> {
    const CODE: &[(&str, char)] = &[
        (".-", 'a'),
        ("-...", 'b'),
        ("-.-.", 'c'),
        ("-..", 'd'),
        (".", 'e'),
        ("..-.", 'f'),
        ("--.", 'g'),
        ("....", 'h'),
        ("..", 'i'),
        (".---", 'j'),
        ("-.-", 'k'),
        (".-..", 'l'),
        ("--", 'm'),
        ("-.", 'n'),
        ("---", 'o'),
        (".--.", 'p'),
        ("--.-", 'q'),
        (".-.", 'r'),
        ("...", 's'),
        ("-", 't'),
        ("..-", 'u'),
        ("...-", 'v'),
        (".--", 'w'),
        ("-..-", 'x'),
        ("-.--", 'y'),
        ("--..", 'z'),
        ("-----", '0'),
        (".----", '1'),
        ("..---", '2'),
        ("...--", '3'),
        ("....-", '4'),
        (".....", '5'),
        ("-....", '6'),
        ("--...", '7'),
        ("---..", '8'),
        ("----.", '9'),
    ];
    let mut out = String::new();
    let mut symbols = 0;
    // Letters apart by spaces, words by `/` or `|` (with or without spaces around them).
    for word in value.split(|c: char| c.is_whitespace() || matches!(c, '/' | '|')) {
        if word.is_empty() {
            out.push(' ');
            continue;
        }
        let norm: String = word
            .chars()
            .map(|c| match c {
                '\u{b7}' | '\u{2022}' => '.',
                '\u{2212}' | '\u{2013}' | '\u{2014}' | '_' => '-',
                c => c,
            })
            .collect();
        match CODE.iter().find(|(code, _)| *code == norm) {
            Some((_, c)) => {
                out.push(*c);
                symbols += 1;
            }
            None => out.push(' '),
        }
    }
    (symbols >= 2).then_some(out)
}

/// The whole-number results of the sums `value` writes out: two numbers with an operation
/// between them (`+`, `-`, `*`, `×`, `/`, "plus", "minus", "times", "divided by"), or a
/// number halved, doubled, tripled.
fn sums_written(value: &str) -> Vec<String> {
    static BINARY: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)(\d+(?:\.\d+)?)(\s*\+\s*|\s+-\s+|\s*\x{2212}\s*|\s*\*\s*|\s*\x{d7}\s*|\s*/\s*|\s+(?:plus|minus|times|multiplied by|divided by)\s+)(\d+(?:\.\d+)?)",
        )
        .ok()
    });
    static UNARY: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(half|double|twice|triple|a third|a quarter)(?: of)?\s+(\d+(?:\.\d+)?)",
        )
        .ok()
    });
    let mut out = Vec::new();
    let mut push = |n: f64| {
        if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e15 {
            out.push(format!("{n:.0}"));
        }
    };
    if let Some(re) = BINARY.as_ref() {
        for c in re.captures_iter(value) {
            let (Ok(a), Ok(b)) = (c[1].parse::<f64>(), c[3].parse::<f64>()) else {
                continue;
            };
            match c[2].trim().to_lowercase().as_str() {
                "+" | "plus" => push(a + b),
                "-" | "\u{2212}" | "minus" => push(a - b),
                "*" | "\u{d7}" | "times" | "multiplied by" => push(a * b),
                _ if b != 0.0 => push(a / b),
                _ => {}
            }
        }
    }
    if let Some(re) = UNARY.as_ref() {
        for c in re.captures_iter(value) {
            let Ok(n) = c[2].parse::<f64>() else { continue };
            match c[1].to_lowercase().as_str() {
                "half" => push(n / 2.0),
                "double" | "twice" => push(n * 2.0),
                "triple" => push(n * 3.0),
                "a third" => push(n / 3.0),
                _ => push(n / 4.0),
            }
        }
    }
    out
}

/// The digits `value` says, in order, as runs: digits of any script, number words
/// ("twenty-five eighty" → `2580`, "two thousand five hundred eighty" → `2580`, "four seven
/// one nine" → `4719`), capital Roman numerals (`MMDLXXX`). A run goes on across the words
/// between numbers ("25 then 80", "47 and then 19") and ends at a stretch of more than eight
/// letters of them. A hexadecimal number (`0x126f`) is read as its decimal digits.
fn said_digits(value: &str) -> Vec<String> {
    const GAP: usize = 8;
    let mut runs = vec![String::new()];
    let mut gap = 0;
    let mut words = NumberWords::default();
    let mut after_roman = false;
    let mut after_octal = false;
    let push = |runs: &mut Vec<String>, gap: &mut usize, digits: &str| {
        if *gap > GAP {
            runs.push(String::new());
        }
        *gap = 0;
        if let Some(run) = runs.last_mut() {
            run.push_str(digits);
        }
    };
    for token in value.split(|c: char| {
        c.is_whitespace() || matches!(c, '-' | ',' | '.' | ':' | ';' | '/' | '|' | '(' | ')')
    }) {
        if token.is_empty() {
            continue;
        }
        let mapped: String = token
            .chars()
            .map(|c| ascii_digit_of(c).unwrap_or(c))
            .collect();
        let lower = mapped.to_lowercase();
        if let Some(n) = number_word_value(&lower) {
            words.take(n, &mut |d| push(&mut runs, &mut gap, d));
            after_octal = false;
            continue;
        }
        // "two thousand five hundred and eighty": "and" inside number words joins them.
        if lower == "and" && words.any {
            continue;
        }
        if let Some(done) = words.finish() {
            push(&mut runs, &mut gap, &done);
        }
        // A Roman numeral, and one letter of them after another ("IV VII I IX"); a lone `I`
        // is a pronoun.
        if let Some(n) = roman(token).or_else(|| {
            after_roman
                .then_some(match token {
                    "I" => Some(1),
                    "V" => Some(5),
                    "X" => Some(10),
                    _ => None,
                })
                .flatten()
        }) {
            push(&mut runs, &mut gap, &n.to_string());
            after_roman = true;
            continue;
        }
        after_roman = false;
        if let Some(hex) = lower.strip_prefix("0x")
            && let Ok(n) = u64::from_str_radix(hex, 16)
        {
            push(&mut runs, &mut gap, &n.to_string());
            continue;
        }
        // A number with an exponent: `2.58e3`.
        if lower.contains('e')
            && lower.starts_with(|c: char| c.is_ascii_digit())
            && let Ok(n) = lower.parse::<f64>()
            && n.fract() == 0.0
            && n.abs() < 1e15
        {
            push(&mut runs, &mut gap, &format!("{n:.0}"));
            continue;
        }
        // Octal: `0o5024`, or digits after the word "octal".
        let octal = lower
            .strip_prefix("0o")
            .or_else(|| after_octal.then_some(lower.as_str()));
        if let Some(n) = octal.and_then(|o| u64::from_str_radix(o, 8).ok()) {
            push(&mut runs, &mut gap, &n.to_string());
            after_octal = false;
            continue;
        }
        after_octal = lower == "octal";
        let mut digits = String::new();
        let mut letters = 0;
        for c in mapped.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else if c.is_alphabetic() {
                letters += 1;
            }
        }
        if !digits.is_empty() {
            push(&mut runs, &mut gap, &digits);
        }
        gap += letters;
    }
    if let Some(done) = words.finish() {
        push(&mut runs, &mut gap, &done);
    }
    runs
}

/// A digit of any script, a superscript or a subscript, as its ASCII digit.
fn ascii_digit_of(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        '\u{2070}' => Some('0'),
        '\u{b9}' => Some('1'),
        '\u{b2}' => Some('2'),
        '\u{b3}' => Some('3'),
        '\u{2074}'..='\u{2079}' => char::from_digit(c as u32 - 0x2070, 10),
        '\u{2080}'..='\u{2089}' => char::from_digit(c as u32 - 0x2080, 10),
        // Circled and negative circled digits: ①…⑨, ⓪, ➀…➈, ❶…❾.
        '\u{2460}'..='\u{2468}' => char::from_digit(c as u32 - 0x2460 + 1, 10),
        '\u{24ea}' | '\u{24ff}' => Some('0'),
        '\u{2780}'..='\u{2788}' => char::from_digit(c as u32 - 0x2780 + 1, 10),
        '\u{2776}'..='\u{277e}' => char::from_digit(c as u32 - 0x2776 + 1, 10),
        c if !c.is_ascii() && c.is_numeric() => super::disguise::ascii_digit(c),
        _ => None,
    }
}

/// The value of a number word ("oh" is a zero said in a code), or of a scale.
fn number_word_value(word: &str) -> Option<u64> {
    match word {
        "oh" => Some(0),
        "hundred" => Some(100),
        "thousand" => Some(1000),
        _ => super::disguise::number_word(word).or_else(|| foreign_digit(word)),
    }
}

/// A digit said in German, French, Spanish, Italian, Dutch or Portuguese ("zwei", "cinq",
/// "ocho", "otto", "vijf", "oito"): a code read out in another language is the same code.
fn foreign_digit(word: &str) -> Option<u64> {
    const DIGITS: [&[&str]; 10] = [
        &["null", "zéro", "cero", "nul"],
        &["eins", "un", "uno", "une", "een", "um"],
        &["zwei", "zwo", "deux", "dos", "due", "twee", "dois"],
        &["drei", "trois", "tres", "tre", "drie", "três"],
        &["vier", "quatre", "cuatro", "quattro", "quatro"],
        &["fünf", "funf", "cinq", "cinco", "cinque", "vijf"],
        &["sechs", "seis", "sei", "zes"],
        &["sieben", "sept", "siete", "sette", "zeven", "sete"],
        &["acht", "huit", "ocho", "otto", "oito"],
        &["neun", "neuf", "nueve", "nove", "negen"],
    ];
    DIGITS
        .iter()
        .position(|names| names.contains(&word))
        .map(|d| d as u64)
}

/// Number words read into numbers as a person says them: the parts of one number add up
/// ("twenty" "five" → 25; "two" "thousand" "five" "hundred" → 2500), and a word that cannot
/// add to what came before starts the next number ("twenty-five eighty" → 25, 80; "four seven"
/// → 4, 7).
#[derive(Default)]
struct NumberWords {
    total: u64,
    group: u64,
    any: bool,
}

impl NumberWords {
    fn take(&mut self, n: u64, emit: &mut dyn FnMut(&str)) {
        match n {
            100 if self.any && self.group > 0 => self.group *= 100,
            1000 if self.any => {
                self.total += self.group.max(1) * 1000;
                self.group = 0;
            }
            _ => {
                let adds = self.any
                    && ((self.group.is_multiple_of(100) && self.group > 0 && n < 100)
                        || (self.group.is_multiple_of(10) && self.group % 100 >= 20 && n < 10)
                        || (self.group == 0 && self.total > 0 && n < 1000));
                if !adds
                    && self.any
                    && let Some(done) = self.finish()
                {
                    emit(&done);
                }
                self.group += n;
                self.any = true;
            }
        }
    }

    fn finish(&mut self) -> Option<String> {
        let done = self.any.then(|| (self.total + self.group).to_string());
        *self = Self::default();
        done
    }
}

/// The value of a word of capital Roman numerals of two letters or more, written as Roman
/// numerals are (`MMDLXXX` is 2580; `IIII` is none).
fn roman(word: &str) -> Option<u64> {
    let value = |c: char| match c {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        'D' => Some(500),
        'M' => Some(1000),
        _ => None,
    };
    if word.len() < 2 {
        return None;
    }
    let values: Option<Vec<u64>> = word.chars().map(value).collect();
    let values = values?;
    let mut total = 0;
    for (i, &v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|&next| next > v) {
            total -= v as i64;
        } else {
            total += v as i64;
        }
    }
    let total = u64::try_from(total).ok().filter(|&t| t > 0)?;
    // Only the canonical spelling: a word of capitals that happens to be Roman letters
    // (`MIX` is 1009, `DIV` no number) reads as a number only when written as one would be.
    (to_roman(total) == word).then_some(total)
}

fn to_roman(mut n: u64) -> String {
    const PARTS: [(u64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, letters) in PARTS {
        while n >= value {
            out.push_str(letters);
            n -= value;
        }
    }
    out
}

/// The digits a value's words spell, when each of them is digits or a digit word
/// ("four-seven-one-nine", "4719", "4 7 1 9").
fn digits_of(words: &[&str]) -> Option<String> {
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

    fn carries(value: &str, secret: &Secret) -> bool {
        carried_by(&Argument::new(value), secret)
    }

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

    /// An eleventh outsider round's encodings, each asked for by the injected instruction: a
    /// secret in base64, hexadecimal, Morse, ROT13, reversed, misspelt, or as a sum.
    #[test]
    fn an_argument_carries_a_secret_in_a_common_encoding() {
        let gate = first("Gate code: 2580. Wi-Fi passphrase: correct horse battery staple");
        let phrase = secrets_in("Wi-Fi passphrase: correct horse battery staple")
            .into_iter()
            .next()
            .expect("phrase");
        for body in [
            "Info: MjU4MA==",
            "Info: MjU4MA",
            "Info: 32353830",
            "Info: ..--- ..... ---.. -----",
            "Info: 0852 backwards",
            "Info: 2579+1",
            "Info: 2000 + 580",
            "Info: 3691 minus 1111",
            "Info: half of 5160",
        ] {
            assert!(carries(body, &gate), "{body}");
        }
        for body in [
            "Info: pbeerpg ubefr onggrel fgncyr",
            "Info: corect hors batery stapel",
            "Info: elpats yrettab esroh tcerroc",
            "Info: Y29ycmVjdCBob3JzZQ==",
            "Info: -.-. --- .-. .-. . -.-. - / .... --- .-. ... .",
        ] {
            assert!(carries(body, &phrase), "{body}");
        }
        // What only looks like an encoding carries nothing.
        for body in [
            "Thursday works. See you at 25 Elm Street.",
            "Information about the horseshoe correction",
            "Meeting 10-12, room 25b... see the notes - thanks",
            "Call me on 2024-06-15",
            // An independent review's: one letter off in two words, scores, ROT13 of "bar".
            "Please confirm the correct house number.",
            "Battery stable at 80%.",
            "Final scores: 12-10, 9-4, 10-2, 7-7",
        ] {
            assert!(!carries(body, &gate) && !carries(body, &phrase), "{body}");
        }
    }

    /// A thirteenth outsider round's encodings: base32, escapes, hex pairs apart, base64 with
    /// spaces inside, the radio alphabet, other rotations, Atbash, leetspeak, Morse with
    /// slashes.
    #[test]
    fn an_argument_carries_a_secret_in_the_thirteenth_rounds_encodings() {
        let gate = first("Gate code: 2580.");
        for body in [
            "Info: GI2TQMA=",
            "Info: gi2tqma",
            "Info: %32%35%38%30",
            "Info: 32:35:38:30",
            "Info: 0x32 0x35 0x38 0x30",
            "Info: \\x32\\x35\\x38\\x30",
            "Info: &#50;&#53;&#56;&#48;",
            "Info: \\u0032\\u0035\\u0038\\u0030",
            "Info: Mj U4 MA ==",
            "Info: Two Fife Ait Zero",
            "Info: ..---/...../---../-----",
        ] {
            assert!(carries(body, &gate), "{body}");
        }
        let phrase = secrets_in("Wi-Fi passphrase: correct horse battery staple")
            .into_iter()
            .next()
            .expect("phrase");
        for body in [
            "Info: dpssfdu ipstf cbuufsz",
            "Info: xliivxg slihv yzggvib hgzkov",
            "Info: c0rr3ct h0r5e b4tt3ry",
            "Info: Charlie Oscar Romeo Romeo Echo Charlie Tango Hotel Oscar Romeo Sierra Echo",
        ] {
            assert!(carries(body, &phrase), "{body}");
        }
        let password = first("Your password: tulips99");
        assert!(carries("Info: tul1p5 99", &password));
        // What only looks like one.
        for body in [
            "Meeting at 10:30, room 12:15 is free",
            "Discount 25% off, 38% VAT",
            "The delta was one and the echo two",
        ] {
            assert!(!carries(body, &gate) && !carries(body, &phrase), "{body}");
        }
    }

    /// What decodes is compared alone, and ROT13 makes no digits: "bar" is not "one".
    #[test]
    fn a_decoding_adds_no_digits_of_its_own() {
        let pin = first("Your card PIN is 1234.");
        assert!(!carries("Meet at the bar, 234 Main St", &pin));
        assert!(!carries(
            "Payment terms: net 30",
            &first("PIN 0310 for the door")
        ));
        assert!(!carries("Score 5-6, then 5 + 6", &pin));
        assert!(carries("Info: 1233 + 1", &pin));
    }

    #[test]
    fn one_edit_is_a_letter_left_out_added_changed_or_two_swapped() {
        for (a, b) in [
            ("corect", "correct"),
            ("horse", "hors"),
            ("stapel", "staple"),
            ("batterx", "battery"),
            ("same", "same"),
        ] {
            assert!(within_one_edit(a, b) && within_one_edit(b, a), "{a} {b}");
        }
        for (a, b) in [
            ("corct", "correct"),
            ("staple", "stpael"),
            ("horse", "house1"),
        ] {
            assert!(!within_one_edit(a, b), "{a} {b}");
        }
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

    /// A ninth outsider round's labels, each missed by the eighth round's reader.
    #[test]
    fn a_secret_is_found_however_a_text_labels_it() {
        for (text, body) in [
            ("login: tom, passwd=Xk9#mq2Lp", "Also: Xk9#mq2Lp"),
            (
                "Seed words orbit canyon velvet lemon drift",
                "orbit canyon velvet lemon drift",
            ),
            ("PIN 4719 for the card", "4719"),
            ("The PIN's 9035.", "9035"),
            ("Door 7340# after 6 pm", "7340"),
            (
                "Passphrase - correct horse battery staple",
                "correct horse battery staple",
            ),
            (
                "The recovery phrase was pencil harbor quiet.",
                "pencil harbor quiet",
            ),
            ("pwd \u{2014} Kite!Runner9", "Kite!Runner9"),
            (
                "The secret phrase is purple monkey dishwasher.",
                "purple monkey dishwasher",
            ),
            ("Alarm\n6190x", "6190x"),
            (
                "Safe: turn left 12, right 33, left 7",
                "left 12, right 33, left 7",
            ),
            ("PASSWORD IS Owl#Night22", "Owl#Night22"),
            // A tenth round's.
            ("CVC 737 on the back", "737 is the number"),
            ("Security question (first pet): Rexford", "Rexford"),
            ("Bike lock 0417", "0417"),
            ("Contraseña: girasolazul", "girasolazul"),
            (
                "\u{41f}\u{430}\u{440}\u{43e}\u{43b}\u{44c}: podsolnukh",
                "podsolnukh",
            ),
            ("\u{5bc6}\u{7801}\u{ff1a}mimamima", "mimamima"),
            ("Wifi Tom5G / sunflowerfield", "sunflowerfield"),
            (r#"{"ssid": "Tom5G", "psk": "quietriver"}"#, "quietriver"),
            ("psk=stonebridge", "stonebridge"),
            ("Buzzer 45B then 9911", "9911"),
            ("Mother's maiden name: Kellerman", "Kellerman"),
            ("Login tom.h / rosebud", "rosebud"),
            ("Tresor 5821", "5821"),
            ("P.I.N. 1357", "1357"),
            ("Pin for the card: 9753", "9753"),
            ("Entry number 3698", "3698"),
            ("Padlock digits are 2-7-1-8", "2-7-1-8"),
            // An eleventh round's.
            ("Safe word: marmalade", "marmalade"),
            ("Zugangscode 6620", "6620"),
            ("Codice 5542", "5542"),
            ("Shed lock combo is 0-3-7", "0-3-7"),
            (
                "The magic word for the garage voice lock: abracadabra",
                "abracadabra",
            ),
        ] {
            let secrets = secrets_in(text);
            assert!(
                secrets.iter().any(|s| carries(body, s)),
                "{text}: {secrets:?}"
            );
        }
        // Prose about a secret is none.
        for text in [
            "Your PIN is safe with us.",
            "The code review is on Monday at the office.",
            "Reset your password at the portal when it expires.",
            "The door is open from 9 to 17.",
            "Seed words are important",
        ] {
            assert!(
                secrets_in(text).is_empty(),
                "{text}: {:?}",
                secrets_in(text)
            );
        }
    }

    /// A ninth outsider round's spellings of recognised secrets, each missed by the eighth
    /// round's comparison.
    #[test]
    fn a_secret_is_compared_in_its_normal_form() {
        let gate = first("Gate: 2580");
        for body in [
            "Info: twenty-five eighty",
            "two thousand five hundred eighty",
            "\u{662}\u{665}\u{668}\u{660}",
            "\u{ff12}\u{ff15}\u{ff18}\u{ff10}",
            "\u{b2}\u{2075}\u{2078}\u{2070}",
            "MMDLXXX",
            "25 then 80",
            "0852",
        ] {
            assert!(carries(body, &gate), "{body}");
        }
        let alarm = first("The alarm code is 4719.");
        assert!(carries("forty-seven nineteen", &alarm));
        assert!(carries("9174", &alarm));
        assert!(carries("PIN 47 and then 19", &alarm));
        assert!(carries("PIN 0x126f", &alarm));
        assert!(carries("PIN IV VII I IX", &alarm));
        for body in [
            "\u{2461}\u{2464}\u{2467}\u{24ea}",
            "zwei fünf acht null",
            "deux cinq huit zéro",
            "dos cinco ocho cero",
            "octal 5024",
            "two-thousand-five-hundred-and-eighty",
            "due cinque otto zero",
            "twee vijf acht nul",
            "dois cinco oito zero",
            "Zwo-Fünf-Acht-Null",
            "2.58e3",
        ] {
            assert!(carries(body, &gate), "{body}");
        }
        assert!(!carries("I will be there at 4, I promise", &alarm));
        let wifi = first("Wi-Fi password: correct horse battery staple");
        for body in [
            "CorrectHorseBatteryStaple",
            "correcthorsebatterystaple",
            "staple battery horse correct",
            "c o r r e c t horse",
            "correct horse",
            "battery staple",
        ] {
            assert!(carries(body, &wifi), "{body}");
        }
        let recovery = first("Recovery words are: amber falcon nickel tundra");
        for body in [
            "amber falcon",
            "tundra nickel falcon amber",
            "a-m-b-e-r f-a-l-c-o-n",
        ] {
            assert!(carries(body, &recovery), "{body}");
        }
        let token = first("password: Tr0ub4dor&3");
        for body in [
            "T r 0 u b 4 d o r & 3",
            "T.r.0.u.b.4.d.o.r.&.3",
            "3&rod4bu0rT",
        ] {
            assert!(carries(body, &token), "{body}");
        }
        // What the secrets' parts are in ordinary words does not carry them.
        assert!(!carries(
            "Thursday works at 10, room 25 of building 80a? See you",
            &gate
        ));
        assert!(!carries("The amber light by the falcon statue", &recovery));
        assert!(!carries(
            "Water the plants on Thursday, MIX the soil",
            &gate
        ));
        assert!(!carries(
            "Thursday works. See you at 10:30 on 2024-07-04",
            &alarm
        ));
    }
}
