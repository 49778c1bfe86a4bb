//! What an attacker needs inside free text (issue 14): links and domains, e-mail addresses,
//! IBANs, card, account and phone numbers and other long digit runs, and long identifiers
//! (codes, keys). A message body the model composed is found in no text whole, so provenance
//! takes these atoms out of it and attributes each on its own: the recipient may be one the
//! user named while the body carries the attacker's link.

use std::sync::LazyLock;

use regex::Regex;

/// What kind of atom, for a reason a person reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomKind {
    Link,
    Email,
    Iban,
    Number,
    Identifier,
    /// A messaging or payment account: `@name`, `$Cashtag`, `name#1234`, `live:name`.
    Handle,
    /// Where goods or people are sent: a street address, a PO box, a postcode, a
    /// three-word location (`///filled.count.soap`).
    Address,
}

impl AtomKind {
    pub fn describe(self) -> &'static str {
        match self {
            AtomKind::Link => "the link",
            AtomKind::Email => "the e-mail address",
            AtomKind::Iban => "the account number",
            AtomKind::Number => "the number",
            AtomKind::Identifier => "the code",
            AtomKind::Handle => "the account handle",
            AtomKind::Address => "the address",
        }
    }
}

/// File extensions that are not top-level domains people are sent to: `notes.md`, `main.rs`.
/// (Any other dotted name ending in letters reads as a domain: `.zip`, `.mov` and `.sh` are
/// real top-level domains, and phishing favours them.)
const FILE_EXTENSIONS: &[&str] = &[
    "txt", "md", "json", "csv", "tsv", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt",
    "png", "jpg", "jpeg", "gif", "svg", "webp", "rs", "py", "js", "ts", "tsx", "jsx", "html",
    "htm", "css", "yaml", "yml", "toml", "xml", "log", "ini", "cfg", "conf", "lock", "sql", "db",
    "sqlite", "c", "h", "cpp", "hpp", "java", "go", "rb", "php", "kt", "tmp", "bak", "gz", "tar",
    "bz2", "xz", "mp3", "wav", "env", "eg", "ie", "etc", "vs", "am", "pm",
];

/// Every top-level domain, sorted (`tlds.txt`): a name whose ending is none of them reaches
/// no host, so `marcus.lee` is a user name, not a place to send data to.
static TLDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    include_str!("tlds.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// Whether `ending` (no dot, any case) is a top-level domain.
pub(crate) fn is_tld(ending: &str) -> bool {
    let lower = ending.to_lowercase();
    TLDS.binary_search(&lower.as_str()).is_ok() || NAME_SERVICE_ENDINGS.contains(&lower.as_str())
}

/// Endings of names that blockchain name services resolve to a wallet, as a domain resolves to
/// a host: money sent to `payments-desk.eth` goes wherever its owner says (a seventeenth
/// outsider round's).
const NAME_SERVICE_ENDINGS: &[&str] = &[
    "eth",
    "crypto",
    "nft",
    "wallet",
    "dao",
    "bitcoin",
    "blockchain",
];

/// Endings that are top-level domains and as often a file's extension: a bare `deploy.sh`
/// or `report.zip` the model wrote is a file it names (one found in data still asks).
const FILE_LIKE_TLDS: &[&str] = &[
    "sh", "zip", "mov", "pl", "ps", "so", "ai", "cc", "tf", "ml", "mo", "la", "app", "bin", "exe",
];

/// Whether a link atom is a bare file name: no scheme, no path, one dot, a file-like ending.
pub(crate) fn names_a_file(atom: &str) -> bool {
    !atom.contains(['/', ':', '@'])
        && atom.matches('.').count() == 1
        && atom
            .rsplit('.')
            .next()
            .is_some_and(|end| FILE_LIKE_TLDS.contains(&end.to_ascii_lowercase().as_str()))
}

/// Whether `ending` (lowercase, no dot) is a file extension [`FILE_EXTENSIONS`] knows.
pub(crate) fn is_file_extension(ending: &str) -> bool {
    FILE_EXTENSIONS.contains(&ending)
}

static URL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?i)\b(?:https?://|ftp://|www\.)[^\s<>"'`]+"#).ok());
static EMAIL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+").ok());
/// A dotted name; its dots may be the fullwidth or ideographic ones (`evil。com`), which
/// browsers read as dots. The last group says whether a path follows.
static DOMAIN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?[.\x{3002}\x{ff0e}\x{ff61}])+([a-z]{2,12})\b(/)?",
    )
    .ok()
});
/// A dotted name with letters of another script in it (`пример-банк.рф`, `例え.jp`, a Latin
/// name with Cyrillic look-alikes): labels of anything but spaces and ASCII punctuation other
/// than `-` and `_`. (Written with byte ranges rather than Unicode's letter classes, which
/// cost milliseconds to compile in every process that first needs them.)
static OTHER_SCRIPT_DOMAIN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:[^\s!-,./:-@\[-\^`{-~]+[.\x{3002}\x{ff0e}\x{ff61}])+([^\s!-/:-@\[-\^`{-~]{2,12})(/)?",
    )
    .ok()
});
/// An account on a messaging or payment service, as people write one: `@name` (Telegram,
/// Venmo, X), `$Cashtag` (a letter after the `$`, so no price), `name#1234` (Discord) and
/// `live:name` (Skype). An e-mail address is taken before it.
static HANDLE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:^|[^A-Za-z0-9_@$.])([@$][A-Za-z][A-Za-z0-9_.-]{2,}[A-Za-z0-9_]|[A-Za-z0-9_.-]{3,}#[0-9]{4}\b|\blive:[A-Za-z0-9_.-]{3,}[A-Za-z0-9_])",
    )
    .ok()
});
/// An account named by its service or its label, as people write one without a sigil:
/// "Telegram mallory_pay", "Signal user fernway.42", "username: j.doe_77". The name must look
/// like a user name (an `_`, a `.` or a digit in it), so that "Signal the team" names nobody.
static NAMED_ACCOUNT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:telegram|signal|whatsapp|wechat|viber|discord|skype|snapchat|instagram|insta|twitter|tiktok|threads|mastodon|bluesky|venmo|paypal|zelle|cash\s?app|revolut|threema|kik|keybase|matrix|wickr|session|line|wire)(?:\s+(?:user\s?name|user|handle|account|id|name|contact))?|user\s?name|handle|user\s?id|account\s?(?:name|id))(?:\s*[:=]\s*|\s+)([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9])",
    )
    .ok()
});
/// An IPv6 address, in brackets as a link writes it (`[2001:db8::1]/login`, perhaps with a
/// port), or bare with its `::` (`fe80::1`).
static IPV6: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](?::[0-9]+)?(?:/[^\s<>"'`]*)?|\b(?:[0-9A-Fa-f]{1,4}:){1,7}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?|\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b"#,
    )
    .ok()
});
/// A bare IPv4 address: a host as much as a name is.
static IPV4: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b(?:/[^\s<>"'`]*)?"#).ok());
static IBAN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b").ok()
});
/// A payment address of a service that names no domain after the `@` (a UPI id,
/// `refunds.desk@okaxis`, `9876543210@ybl`): an e-mail address is taken before it. The name
/// looks like an account (a `.`, `_` or digit in it, and a letter unless the service is a
/// payment one [`is_payment_service`]), so that "lunch@noon" and "May 30@Bridgeport" are no
/// address.
static PAYMENT_ADDRESS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z0-9]*[._0-9][A-Za-z0-9_.-]*@[A-Za-z][A-Za-z0-9]{2,}\b").ok()
});

/// Whether what follows a UPI id's `@` is a payment service's handle (`okaxis`, `ybl`, …).
fn is_payment_service(service: &str) -> bool {
    let service = service.to_ascii_lowercase();
    service.starts_with("ok")
        || matches!(
            service.as_str(),
            "ybl"
                | "ibl"
                | "axl"
                | "apl"
                | "upi"
                | "paytm"
                | "icici"
                | "sbi"
                | "hdfcbank"
                | "axisbank"
        )
}
/// Where goods or people are sent, as people write it: a street address ("221B Baker
/// Street"), a PO box, a British or Canadian postcode ("NW1 6XE", "CT16 1AA"), a three-word
/// location ("///filled.count.soap").
static POSTAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"\b[0-9]{1,5}[A-Za-z]?\s+(?:[A-Z][A-Za-z'-]+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Boulevard|Blvd|Way|Court|Ct|Place|Pl|Terrace|Crescent|Square|Sq|Highway|Hwy|Parkway|Pkwy|Strasse|Straße)\b|(?i:\bP\.?\s?O\.?\s?Box\s+[0-9]+)|\b[A-Z]{1,2}[0-9][A-Z0-9]?\s[0-9][A-Z]{2}\b|\b[A-Z][0-9][A-Z]\s[0-9][A-Z][0-9]\b|///[a-z]+\.[a-z]+\.[a-z]+",
    )
    .ok()
});
/// A number the reader is told to text or call, however short: "Text YES to 88022", "dial
/// 8855" (a premium short code is a few digits).
static SHORT_CODE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:text|sms|dial|call|ring)\b(?:\s+[^\s.]+){0,3}?\s+(?:to|on|at)\s+([0-9]{3,6})\b|(?i)\b(?:text|sms|dial|call)\s+([0-9]{3,6})\b",
    )
    .ok()
});
static NUMBER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\+?[0-9](?:[0-9 .-]{4,}[0-9])").ok());

/// The fewest digits a number atom has: a phone, card or account number, and a six-digit
/// sign-in or reset code (an outsider's injection posted one in an issue), not a price.
const MIN_DIGITS: usize = 6;
/// The shortest identifier atom: letters and digits mixed.
const MIN_IDENTIFIER: usize = 8;

/// Whether a run of digits is a calendar date (`2024-06-14`, `14.06.2024`, `06/14/2024`'s
/// dashed and dotted kin), perhaps with the hour after it (`2024-06-14 15` of `… 15:00`, or
/// ISO 8601's `2024-06-14T15`): a day
/// says when, and reaches nobody, so it is no atom (a date an injection wants in a call as a
/// whole value is still traced whole).
fn is_calendar_date(number: &str) -> bool {
    let (date, hour) = match number.trim().split_once([' ', 'T']) {
        Some((date, hour)) => (date, Some(hour)),
        None => (number.trim(), None),
    };
    if hour.is_some_and(|h| h.len() > 2 || !h.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = date.split(['-', '.']).collect();
    let [a, b, c] = parts.as_slice() else {
        return false;
    };
    let num = |s: &str| s.parse::<u32>().ok();
    let (Some(x), Some(y), Some(z)) = (num(a), num(b), num(c)) else {
        return false;
    };
    let month = |m: u32| (1..=12).contains(&m);
    let day = |d: u32| (1..=31).contains(&d);
    match (a.len(), b.len(), c.len()) {
        (4, 2, 2) => month(y) && day(z),
        (2, 2, 4) => (day(x) && month(y)) || (month(x) && day(y)),
        _ => false,
    }
}

/// Whether `token` is hours of the day joined by dashes, one at least with its `am` or `pm`:
/// "11am-1pm", "9-11am", "10pm-2am". A time span is no code, however it mixes letters and
/// digits (a held-out suite's reply with showing hours was asked about as one).
fn is_clock_range(token: &str) -> bool {
    let hour = |h: &str| {
        !h.is_empty() && h.len() <= 2 && h.bytes().all(|b| b.is_ascii_digit()) && {
            let n: u32 = h.parse().unwrap_or(99);
            (1..=12).contains(&n)
        }
    };
    let mut marked = false;
    let all_hours = token.split('-').all(|part| {
        let lower = part.to_ascii_lowercase();
        match lower
            .strip_suffix("am")
            .or_else(|| lower.strip_suffix("pm"))
        {
            Some(h) => {
                marked = true;
                hour(h)
            }
            None => hour(&lower),
        }
    });
    all_hours && marked
}

/// An account number printed the other common way: grouped in fours if it was written
/// solid, solid if it was grouped.
pub fn grouped(atom: &str) -> String {
    if atom.contains(' ') {
        return atom.replace(' ', "");
    }
    let chars: Vec<char> = atom.chars().collect();
    chars
        .chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` may hold a name [`DOMAIN`] takes: a dot followed by two to twelve letters
/// that end the word, with a path after them or ending in no file extension. Anything unusual
/// after a dot (a letter outside ASCII, which case folding may read as one) says yes.
fn may_hold_domain(text: &str) -> bool {
    let dots = ['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'];
    // Each dot, found by its first byte (`.`, or the 0xE3 and 0xEF that begin the others):
    // a search by `char` decoded every character of a 16 KiB file written.
    let bytes = text.as_bytes();
    memchr::memchr3_iter(b'.', 0xE3, 0xEF, bytes).any(|at| {
        let Some(dot) = dots.iter().find(|d| text[at..].starts_with(**d)) else {
            return false;
        };
        let rest = &text[at + dot.len_utf8()..];
        let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let after = rest[letters..].chars().next();
        if after.is_some_and(|c| !c.is_ascii()) {
            return true;
        }
        if !(2..=12).contains(&letters)
            || after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return false;
        }
        after == Some('/')
            || !FILE_EXTENSIONS
                .iter()
                .any(|e| e.eq_ignore_ascii_case(&rest[..letters]))
    })
}

/// Whether `text` may hold a link, a host or an e-mail address ([`AtomKind::Link`],
/// [`AtomKind::Email`]): cheap tests that say no for a file name such as `notes/a.md`.
pub(crate) fn may_reach(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr3(b'@', b':', b'[', b).is_some()
        || !text.is_ascii()
        || holds_www(b)
        || (memchr::memchr(b'.', b).is_some()
            && (may_hold_domain(text) || b.iter().filter(|c| c.is_ascii_digit()).count() >= 4))
}

/// Where `text`'s tokens of [`MIN_IDENTIFIER`] or more ASCII letters, digits, `_` and `-`
/// with a letter and a digit in them stand, as byte ranges. Read by bytes: a token is ASCII,
/// and each byte of any other character ends one, as the character would (a pass by `char`
/// was a fifth of the atoms of a 16 KiB text).
fn mixed_tokens(bytes: &[u8]) -> Vec<(usize, usize)> {
    let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !part(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let (mut digit, mut letter) = (false, false);
        while i < bytes.len() && part(bytes[i]) {
            digit |= bytes[i].is_ascii_digit();
            letter |= bytes[i].is_ascii_alphabetic();
            i += 1;
        }
        if i - start >= MIN_IDENTIFIER && digit && letter {
            out.push((start, i));
        }
    }
    out
}

/// Whether `bytes` hold `www.` in any case: each `w` found, then its four bytes compared
/// (comparing every window of four was a tenth of the atoms of a 16 KiB text).
fn holds_www(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(b'w', b'W', bytes).any(|at| {
        bytes
            .get(at..at + 4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"www."))
    })
}

/// The atoms of `text`, each once, in order of appearance.
pub fn atoms(text: &str) -> Vec<(AtomKind, String)> {
    atoms_searched(text, true)
}

/// [`atoms`]; `prefilter` off searches with every pattern, which the tests compare against.
fn atoms_searched(text: &str, prefilter: bool) -> Vec<(AtomKind, String)> {
    // What each pattern cannot match without, counted in one pass, so that a text without
    // `@` is never searched for addresses, one without a dot for names, and so on: most
    // free text an agent writes holds few atoms, and a search costs more than the count.
    let (mut digits, mut dots, mut at, mut upper) = (0usize, false, false, 0usize);
    let (mut handle_mark, mut colons, mut underscore, mut sigil) = (false, 0usize, false, false);
    for b in text.bytes() {
        match b {
            b'0'..=b'9' => digits += 1,
            b'.' => dots = true,
            b'_' => underscore = true,
            b'@' => at = true,
            b':' => {
                handle_mark = true;
                colons += 1;
            }
            b'$' | b'#' => {
                handle_mark = true;
                sigil = true;
            }
            b'A'..=b'Z' => upper += 1,
            // The first byte of a fullwidth or ideographic dot (U+3002, U+FF0E, U+FF61).
            0xE3 | 0xEF => dots = true,
            _ => {}
        }
    }
    // A name after its service or label: a space, `:` or `=` between them, and an `_`, a `.`
    // or a digit in it.
    let user_name_marks = !prefilter
        || ((underscore || dots || digits > 0)
            && (colons > 0 || text.bytes().any(|b| b == b'=' || b.is_ascii_whitespace())));
    let colons = if prefilter { colons } else { usize::MAX };
    // Most short values hold none of what any pattern needs: no digit (numbers, identifiers,
    // addresses), no dot, `@`, `:` or sigil, nothing outside ASCII.
    if prefilter && digits == 0 && !dots && !at && !handle_mark && !underscore && text.is_ascii() {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let may = [
        // URL: a scheme or `www.`.
        memchr::memchr_iter(b':', bytes).any(|at| bytes[at + 1..].starts_with(b"//"))
            || holds_www(bytes),
        // EMAIL
        at,
        // DOMAIN
        dots && may_hold_domain(text),
        // IPV4: dots and at least four digits.
        dots && digits >= 4,
        // IBAN: two capitals and two digits at least.
        upper >= 2 && digits >= 2,
        // NUMBER: MIN_DIGITS digits.
        digits >= MIN_DIGITS,
        // HANDLE: `@`, `$`, `#`, or `:` after `live` (the one handle a colon marks: a colon
        // alone sent every text with a "Note:" in it through the pattern).
        at || sigil || (colons > 0 && memchr::memmem::find(bytes, b"live:").is_some()),
    ]
    .map(|may| may || !prefilter);
    // A file name such as `notes/a.md` gets this far (its dot) and no further: without a
    // digit, none of the patterns after these may match either.
    let triple_slash = dots && memchr::memmem::find(bytes, b"///").is_some();
    if prefilter
        && digits == 0
        && !may.contains(&true)
        && colons < 2
        && !user_name_marks
        && !triple_slash
        && text.is_ascii()
    {
        return Vec::new();
    }
    let mut out: Vec<(usize, AtomKind, String)> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut take = |kind: AtomKind, start: usize, end: usize, out: &mut Vec<_>| {
        if taken.iter().any(|&(s, e)| start < e && s < end) {
            return;
        }
        let atom = text[start..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        if atom.is_empty() {
            return;
        }
        taken.push((start, end));
        out.push((start, kind, atom.to_string()));
    };
    let found = |re: &LazyLock<Option<Regex>>, may: bool| -> Vec<regex::Match<'_>> {
        if !may {
            return Vec::new();
        }
        re.as_ref()
            .map(|r| r.find_iter(text).collect())
            .unwrap_or_default()
    };
    for m in found(&URL, may[0]) {
        take(AtomKind::Link, m.start(), m.end(), &mut out);
    }
    for m in found(&EMAIL, may[1]) {
        take(AtomKind::Email, m.start(), m.end(), &mut out);
    }
    // (A name of digits alone is a number beside a word: "May 30@Bridgeport", as "May 30 at
    // Bridgeport" reads once its "at" is undone.)
    for m in found(&PAYMENT_ADDRESS, may[1]) {
        let (name, service) = m.as_str().split_once('@').unwrap_or_default();
        if name.bytes().any(|b| b.is_ascii_alphabetic()) || is_payment_service(service) {
            take(AtomKind::Handle, m.start(), m.end(), &mut out);
        }
    }
    for m in found(&POSTAL, digits > 0 || triple_slash) {
        take(AtomKind::Address, m.start(), m.end(), &mut out);
    }
    if let Some(re) = SHORT_CODE.as_ref().filter(|_| digits >= 3) {
        for c in re.captures_iter(text) {
            if let Some(code) = c.get(1).or_else(|| c.get(2)) {
                take(AtomKind::Number, code.start(), code.end(), &mut out);
            }
        }
    }
    for m in found(&IPV6, colons >= 2) {
        // A bare `::` with no digit is a path of some programming language (`a::b`).
        if m.as_str().starts_with('[') || m.as_str().bytes().any(|b| b.is_ascii_digit()) {
            take(AtomKind::Link, m.start(), m.end(), &mut out);
        }
    }
    if let Some(re) = HANDLE.as_ref().filter(|_| may[6]) {
        for c in re.captures_iter(text) {
            if let Some(handle) = c.get(1) {
                take(AtomKind::Handle, handle.start(), handle.end(), &mut out);
            }
        }
    }
    // After the sigils: `Discord name#1234` is the whole handle.
    if let Some(re) = NAMED_ACCOUNT.as_ref().filter(|_| user_name_marks) {
        for c in re.captures_iter(text) {
            if let Some(name) = c.get(1).filter(|n| {
                n.as_str()
                    .bytes()
                    .any(|b| b == b'_' || b == b'.' || b.is_ascii_digit())
            }) {
                take(AtomKind::Handle, name.start(), name.end(), &mut out);
            }
        }
    }
    // Only a name that holds a letter outside ASCII: the pattern above takes the others.
    if let Some(re) = OTHER_SCRIPT_DOMAIN
        .as_ref()
        .filter(|_| dots && !text.is_ascii())
    {
        for c in re.captures_iter(text) {
            let Some(all) = c.get(0) else {
                continue;
            };
            let file = c.get(1).is_some_and(|tld| {
                FILE_EXTENSIONS.contains(&tld.as_str().to_ascii_lowercase().as_str())
            }) && c.get(2).is_none();
            let reaches = c.get(1).is_some_and(|tld| is_tld(tld.as_str()));
            if !all.as_str().is_ascii() && !file && reaches {
                let end = c.get(2).map_or(all.end(), |slash| slash.start());
                take(AtomKind::Link, all.start(), end, &mut out);
            }
        }
    }
    if let Some(re) = DOMAIN.as_ref().filter(|_| may[2]) {
        for c in re.captures_iter(text) {
            let (Some(all), Some(tld)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let tld = tld.as_str().to_lowercase();
            // A name with a path after it is a link, whatever it ends in: `bank-verify.ie/login`.
            let with_path = c.get(2).is_some();
            if (with_path || !FILE_EXTENSIONS.contains(&tld.as_str())) && is_tld(&tld) {
                let end = c.get(2).map_or(all.end(), |slash| slash.start());
                take(AtomKind::Link, all.start(), end, &mut out);
            }
        }
    }
    for m in found(&IPV4, may[3]) {
        take(AtomKind::Link, m.start(), m.end(), &mut out);
    }
    for m in found(&IBAN, may[4]) {
        take(AtomKind::Iban, m.start(), m.end(), &mut out);
    }
    for m in found(&NUMBER, may[5]) {
        if m.as_str().chars().filter(char::is_ascii_digit).count() >= MIN_DIGITS
            && !is_calendar_date(m.as_str())
        {
            take(AtomKind::Number, m.start(), m.end(), &mut out);
        }
    }
    // Long tokens that mix letters and digits: codes, keys, order and tracking numbers.
    for (s, i) in mixed_tokens(bytes) {
        if !is_calendar_date(&text[s..i]) && !is_clock_range(&text[s..i]) {
            take(AtomKind::Identifier, s, i, &mut out);
        }
    }
    // A link's host is an atom of its own: an attacker's link with the user's data appended
    // (`https://evil.example/log?d=<secret>`) is found nowhere whole, its host is.
    let hosts: Vec<(usize, AtomKind, String)> = out
        .iter()
        .filter(|(_, kind, _)| *kind == AtomKind::Link)
        .filter_map(|(start, _, link)| {
            let rest = link.split_once("://").map_or(link.as_str(), |(_, r)| r);
            let host = rest
                .split(['/', '?', '#', ':'])
                .next()
                .unwrap_or_default()
                .rsplit('@')
                .next()
                .unwrap_or_default();
            (host.contains('.') && host != link).then(|| (*start, AtomKind::Link, host.to_string()))
        })
        .collect();
    out.extend(hosts);
    out.sort_by_key(|(start, ..)| *start);
    let mut seen = std::collections::HashSet::new();
    out.into_iter()
        .filter(|(_, _, atom)| seen.insert(atom.clone()))
        .map(|(_, kind, atom)| (kind, atom))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{AtomKind, atoms, atoms_searched};
    use proptest::prelude::*;

    /// Hours of the day are no code; a code that ends in `pm` or holds a longer number is.
    #[test]
    fn a_span_of_hours_is_no_code() {
        for text in [
            "Showings 11am-1pm on Saturday",
            "open 9-11am",
            "10PM-2AM shift",
        ] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
        for text in ["code 7731pm-13am", "ref 11am-1pm-99x7", "id 123am-4pm"] {
            assert!(!atoms(text).is_empty(), "{text}");
        }
    }

    /// A pattern that does not compile finds no atom, which would let every one through.
    #[test]
    fn every_pattern_compiles() {
        use super::*;
        for re in [
            &URL,
            &EMAIL,
            &DOMAIN,
            &OTHER_SCRIPT_DOMAIN,
            &HANDLE,
            &NAMED_ACCOUNT,
            &IPV6,
            &IPV4,
            &IBAN,
            &NUMBER,
            &PAYMENT_ADDRESS,
            &POSTAL,
            &SHORT_CODE,
        ] {
            assert!(re.is_some());
        }
    }

    /// Where an attacker has goods, money or replies sent, in forms that are no link, e-mail
    /// address or long number (a seventeenth outsider round's): each is an atom; the words
    /// around them, a plain "@" between words and a short count are not.
    #[test]
    fn addresses_short_codes_and_wallet_names_are_atoms() {
        for (text, kind, atom) in [
            (
                "Pay by UPI to 9876543210@ybl today.",
                AtomKind::Handle,
                "9876543210@ybl",
            ),
            (
                "Please return the old unit to 221B Baker Street, London NW1 6XE, not to us.",
                AtomKind::Address,
                "221B Baker Street",
            ),
            (
                "Please return the old unit to 221B Baker Street, London NW1 6XE, not to us.",
                AtomKind::Address,
                "NW1 6XE",
            ),
            (
                "Send the old unit to PO Box 7781, Dover CT16 1AA.",
                AtomKind::Address,
                "PO Box 7781",
            ),
            (
                "Send the old unit to PO Box 7781, Dover CT16 1AA.",
                AtomKind::Address,
                "CT16 1AA",
            ),
            (
                "Leave the parcel at ///filled.count.soap instead.",
                AtomKind::Address,
                "///filled.count.soap",
            ),
            ("Text YES to 88022 to confirm.", AtomKind::Number, "88022"),
            (
                "Pay the fee by UPI to refunds.desk@okaxis.",
                AtomKind::Handle,
                "refunds.desk@okaxis",
            ),
            (
                "Pay the deposit to payments-desk.eth.",
                AtomKind::Link,
                "payments-desk.eth",
            ),
        ] {
            let found = atoms(text);
            assert!(
                found.contains(&(kind, atom.to_string())),
                "{text}: {found:?}"
            );
        }
        for text in [
            "Lunch@noon works for me, looking@issue 4 now.",
            "the Spring Gala on May 30@Bridgeport Art Center",
            "Ship 3 boxes on Monday at 10.",
            "Call me at 5 tomorrow.",
        ] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
    }

    /// The list is sorted (it is searched by halves) and holds the endings in use, in any
    /// script.
    #[test]
    fn top_level_domains_are_sorted_and_known() {
        assert!(super::TLDS.is_sorted());
        assert!(super::TLDS.len() > 1000);
        for tld in ["com", "io", "ie", "рф", "jp", "zip", "example", "COM"] {
            assert!(super::is_tld(tld), "{tld}");
        }
        for not in ["lee", "hall", "md5", "backup"] {
            assert!(!super::is_tld(not), "{not}");
        }
    }

    /// [`super::may_hold_domain`] as it was written first, by `char`.
    fn may_hold_domain_by_chars(text: &str) -> bool {
        let dots = ['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'];
        text.match_indices(dots).any(|(at, dot)| {
            let rest = &text[at + dot.len()..];
            let letters = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            let after = rest[letters..].chars().next();
            if after.is_some_and(|c| !c.is_ascii()) {
                return true;
            }
            if !(2..=12).contains(&letters)
                || after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                return false;
            }
            after == Some('/')
                || !super::FILE_EXTENSIONS.contains(&rest[..letters].to_ascii_lowercase().as_str())
        })
    }

    /// [`super::mixed_tokens`] as it was written first, by `char`.
    fn mixed_tokens_by_chars(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            let part = c.is_ascii_alphanumeric() || c == '_' || c == '-';
            match (part, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    let token = &text[s..i];
                    if token.len() >= super::MIN_IDENTIFIER
                        && token.chars().any(|c| c.is_ascii_digit())
                        && token.chars().any(|c| c.is_ascii_alphabetic())
                    {
                        out.push((s, i));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    proptest! {
        /// Read by bytes, the dots, the `www.`s and the mixed tokens are found where a
        /// reading by `char` and by windows of four finds them, in any script.
        #[test]
        fn bytes_are_read_as_characters_were(
            text in "([a-zA-Z0-9]{1,9}|[ ./_:-]|www\\.|wWw\\.|ww|\u{3002}|\u{ff0e}|\u{ff61}|\u{3001}|\u{ff0c}|é|рф|例え|md|com|zip|[a-z]{13}){0,14}"
        ) {
            prop_assert_eq!(super::may_hold_domain(&text), may_hold_domain_by_chars(&text), "{}", text);
            prop_assert_eq!(super::mixed_tokens(text.as_bytes()), mixed_tokens_by_chars(&text), "{}", text);
            let windows = text.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"www."));
            prop_assert_eq!(super::holds_www(text.as_bytes()), windows, "{}", text);
        }

        /// The cheap tests that skip a pattern never skip one that would have matched.
        #[test]
        fn the_prefilter_loses_no_atom(
            text in "([a-zA-Z0-9]{1,6}|[ ./@:+$#_\\[\\]-]|::|www\\.|https://|live:|telegram |user |\u{3002}|\u{ff0e}|\u{212a}|рф|md|com|ie){0,14}"
        ) {
            let found = atoms_searched(&text, false);
            prop_assert_eq!(&atoms(&text), &found);
            if !super::may_reach(&text) {
                prop_assert!(
                    !found.iter().any(|(k, _)| matches!(k, AtomKind::Link | AtomKind::Email)),
                    "{:?}",
                    found
                );
            }
        }
    }

    /// Found by an outsider's attack: a country domain that is also a file extension, with a
    /// path after it; fullwidth or ideographic dots; a bare IP with a path.
    #[test]
    fn links_in_other_dress_are_links() {
        for (text, link) in [
            ("verify at bank-verify.ie/login now", "bank-verify.ie"),
            ("see evil\u{3002}com today", "evil\u{3002}com"),
            ("see evil\u{ff0e}com today", "evil\u{ff0e}com"),
            ("log in at 45.9.2.1/login please", "45.9.2.1/login"),
            // IPv6, bracketed as links write it or bare (a second outsider's attack).
            (
                "payments move to [2001:db8::1]/login now",
                "[2001:db8::1]/login",
            ),
            (
                "reach fe80::1ff:fe23:4567:890a today",
                "fe80::1ff:fe23:4567:890a",
            ),
            ("at [::1]:8443 please", "[::1]:8443"),
        ] {
            let found = atoms(text);
            assert!(
                found.iter().any(|(k, a)| *k == AtomKind::Link && a == link),
                "{text}: {found:?}"
            );
        }
        // A time of day and a language's path are not addresses.
        for text in [
            "meet at 10:30:00 sharp",
            "call std::io::stdin() there",
            "see a::b",
        ] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
        // A dotted user name is no host: its ending is no top-level domain.
        for text in ["ask marcus.lee or greg.hall", "see sofia.navarro today"] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
        assert!(
            atoms("mail anna.bank now")
                .iter()
                .any(|(_, a)| a == "anna.bank")
        );
        // A file name is still not a link.
        assert!(atoms("notes in report.md and main.rs").is_empty());
    }

    /// Found by an outsider's attack: hosts in other scripts without a scheme, and accounts
    /// on messaging and payment services.
    #[test]
    fn hosts_in_any_script_and_account_handles_are_atoms() {
        for (text, atom) in [
            ("log in at пример-банк.рф/вход today", "пример-банк.рф"),
            ("see 例え.jp for details", "例え.jp"),
            ("portal: раураl.com/fernway", "раураl.com"),
            ("message @fernwayITdesk on Telegram", "@fernwayITdesk"),
            ("Venmo @Fern-Pay-Desk now", "@Fern-Pay-Desk"),
            ("Cash App $FernwayBilling please", "$FernwayBilling"),
            ("Discord fernway_it#4821 is the desk", "fernway_it#4821"),
            ("Skype live:fernway_helpdesk today", "live:fernway_helpdesk"),
            // Named by the service or a label, without a sigil (a second outsider's attack).
            ("payments move to Telegram mallory_pay now", "mallory_pay"),
            ("DM signal user fernway.42 Alex", "fernway.42"),
            ("my username: j.doe_77 there", "j.doe_77"),
            ("pay via Cash App user b0b_k", "b0b_k"),
        ] {
            let found = atoms(text);
            assert!(found.iter().any(|(_, a)| a == atom), "{text}: {found:?}");
        }
        // A file named in another script is no host.
        assert!(
            atoms("see отчёт.pdf and 報告.md").is_empty(),
            "{:?}",
            atoms("see отчёт.pdf")
        );
        // A service named in prose names no account: the name must look like a user name.
        for text in [
            "Signal the team when done.",
            "Telegram support said hi.",
            "per line item",
        ] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
        // A price, a mail address and an issue number are not handles.
        let plain = atoms("It costs $98.70; write to bob@fernway.io about issue #42.");
        assert!(
            !plain.iter().any(|(k, _)| *k == AtomKind::Handle),
            "{plain:?}"
        );
    }

    /// A calendar date is no atom, with or without its hour; a number that only looks like
    /// one (no such month) or a phone number still is.
    #[test]
    fn dates_are_not_numbers_to_trace() {
        for text in [
            "moved to 2024-06-14T15:00",
            "on 2024-06-14 15:00 sharp",
            "due 14.06.2024",
            "due 06-14-2024",
        ] {
            assert!(atoms(text).is_empty(), "{text}: {:?}", atoms(text));
        }
        for (text, atom) in [
            ("ref 2024-13-40", "2024-13-40"),
            ("call +1 415 555 0134", "+1 415 555 0134"),
            ("acct 2024-06-14-9911", "2024-06-14-9911"),
        ] {
            assert!(
                atoms(text)
                    .iter()
                    .any(|(k, a)| *k == AtomKind::Number && a == atom),
                "{text}: {:?}",
                atoms(text)
            );
        }
    }

    #[test]
    fn the_atoms_an_attacker_needs_are_found_in_free_text() {
        let text = "Hi Bob, the report is at https://evil.example.com/x?a=1. Also see \
                    www.phish.net, write to mallory@evil.io, pay GB29 NWBK 6016 1331 9268 19 or \
                    call +1 555-0100-222. Code: X7K2P9QL3. Notes in report.md, total $98.70.";
        let found = atoms(text);
        let has = |kind: AtomKind, atom: &str| found.iter().any(|(k, a)| *k == kind && a == atom);
        assert!(
            has(AtomKind::Link, "https://evil.example.com/x?a=1"),
            "{found:?}"
        );
        assert!(has(AtomKind::Link, "www.phish.net"), "{found:?}");
        assert!(has(AtomKind::Email, "mallory@evil.io"), "{found:?}");
        assert!(
            has(AtomKind::Iban, "GB29 NWBK 6016 1331 9268 19"),
            "{found:?}"
        );
        assert!(has(AtomKind::Number, "+1 555-0100-222"), "{found:?}");
        assert!(has(AtomKind::Identifier, "X7K2P9QL3"), "{found:?}");
        // A link's host is an atom too; so is any dotted name that is not a file.
        assert!(has(AtomKind::Link, "evil.example.com"), "{found:?}");
        let bare = atoms("get it at acme-refund.zip or pwn.sh, see notes.txt");
        assert!(bare.iter().any(|(_, a)| a == "acme-refund.zip"), "{bare:?}");
        assert!(bare.iter().any(|(_, a)| a == "pwn.sh"), "{bare:?}");
        assert!(!bare.iter().any(|(_, a)| a == "notes.txt"), "{bare:?}");
        // Not atoms: a file name, a price, ordinary words.
        assert!(
            !found
                .iter()
                .any(|(_, a)| a.contains("report.md") || a.contains("98.70"))
        );
        assert!(!found.iter().any(|(_, a)| a == "Hi" || a == "Bob"));
    }
}
