//! The provenance gate (issue 4): authority comes only from real user turns.
//!
//! For a side-effecting call each argument value is **grounded** when it occurs in a real user
//! turn, **tainted** when it occurs in untrusted data (tool results, notification envelopes)
//! and is not grounded, and **unattributed** otherwise. Strings shorter than 3 chars never count
//! as tainted; non-string values are compared as compact JSON. Nor does what the tool's own
//! schema fixes to one value (a `const`, an `enum` of one) or a key the schema declares: the
//! schema, not the data, decides it. (An enum of several values or a boolean is still checked:
//! which one is chosen is exactly what an injected instruction steers.) A keel tool may also
//! mark an argument `"x-keel-provenance": "exempt"`: one that directs nothing (a condition to
//! verify), a handle the tool itself issued and checks, or a choice the tool puts to the person
//! itself (computer use's consent). MCP servers cannot: keel strips its keywords from their
//! schemas. The mark is the tool's declaration, in keel's own code, like its
//! read-only annotation, and trusted as much. A tainted argument gives
//! ask_user (or deny, by configuration) with a reason that names the argument and where its
//! value came from. Read-only calls are not checked.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::classify::Effect;
use super::protocol::SafetyCheckResult;
use keel_core::envelope::tool_message_content;
use keel_core::item::{Diagnostic, Item, ItemBody};

mod joined;
mod reformed;
use joined::Joined;

/// The user's words, as action authority reads them.
#[derive(Clone, Debug, Default)]
struct Requested {
    said: Vec<super::authority::SaidWord>,
    kinds: Vec<super::authority::ActionKind>,
    /// Whether the user's words ask for any change at all
    /// ([`super::authority::asks_for_change`]).
    changes: bool,
    /// The content words of the messages the user dictates
    /// ([`super::authority::dictated_words`]).
    dictated: Vec<String>,
    /// The counts the user's words give ([`counts_in`]).
    counts: Vec<Count>,
    /// What the user's words ask to keep ([`super::tool_choice::kept_words`]).
    kept: Vec<String>,
}

/// Shortest value that can count as tainted.
pub const MIN_TAINT_CHARS: usize = 3;

/// Where a piece of untrusted text came from; described in a tainted argument's reason.
#[derive(Clone, Debug)]
enum Source<'a> {
    ToolResult {
        tool: Cow<'a, str>,
        call_id: Cow<'a, str>,
    },
    Notification {
        id: Cow<'a, str>,
    },
    Described(String),
}

impl Source<'_> {
    fn describe(&self) -> String {
        match self {
            Source::ToolResult { tool, call_id } => {
                format!("the result of tool {tool} (call {call_id})")
            }
            Source::Notification { id } => format!("notification {id}"),
            Source::Described(s) => s.clone(),
        }
    }
}

/// Which texts contain each 3-byte sequence, so a value is looked for only in the texts that
/// hold its rarest trigram instead of in the whole history (an argument is attributed in time
/// that does not grow with the run).
/// Hashed with foldhash, seeded per process: SipHash was a third of a run's decision.
#[derive(Clone, Debug, Default)]
struct Trigrams(HashMap<u32, Postings, foldhash::fast::RandomState>);

/// The texts one trigram occurs in, in order. Most trigrams of a run occur in one text (an
/// id, a name, a number), so one position is kept without a list of its own: a list for each
/// was most of what indexing a new text cost.
#[derive(Clone, Debug)]
enum Postings {
    One(u32),
    Many(Vec<u32>),
}

impl Postings {
    fn as_slice(&self) -> &[u32] {
        match self {
            Postings::One(at) => std::slice::from_ref(at),
            Postings::Many(list) => list,
        }
    }
}

fn trigram(w: &[u8]) -> u32 {
    (u32::from(w[0]) << 16) | (u32::from(w[1]) << 8) | u32::from(w[2])
}

impl Trigrams {
    fn add(&mut self, at: usize, text: &str) {
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        // Each trigram once per text: texts are added in order (a text's forms one after
        // another), so a posting list that already ends with this text has it.
        for key in text.as_bytes().windows(3).map(trigram) {
            match self.0.entry(key) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(Postings::One(at));
                }
                std::collections::hash_map::Entry::Occupied(mut slot) => match slot.get_mut() {
                    Postings::One(first) if *first != at => {
                        let first = *first;
                        *slot.get_mut() = Postings::Many(vec![first, at]);
                    }
                    Postings::Many(list) if list.last() != Some(&at) => list.push(at),
                    _ => {}
                },
            }
        }
    }

    /// The positions of the texts that may contain `value`, in order; `None` when `value` is
    /// too short to say (every text may).
    fn candidates(&self, value: &str) -> Option<&[u32]> {
        let bytes = value.as_bytes();
        if bytes.len() < 3 {
            return None;
        }
        let mut best: &[u32] = &[];
        for (n, w) in bytes.windows(3).enumerate() {
            let Some(list) = self.0.get(&trigram(w)).map(Postings::as_slice) else {
                return Some(&[]);
            };
            if n == 0 || list.len() < best.len() {
                best = list;
            }
        }
        Some(best)
    }
}

/// What the provenance checker compares arguments against: the run's real user turns, and its
/// untrusted texts with where each came from. It can own its texts and grow with the run
/// ([`ProvenanceIndex::extend_owned`]), so a gate keeps one per run instead of rebuilding it
/// for every call.
#[derive(Clone, Debug, Default)]
pub struct ProvenanceIndex<'a> {
    user: Vec<Cow<'a, str>>,
    untrusted: Vec<(Source<'a>, Cow<'a, str>)>,
    /// Each untrusted text with its backslash escapes decoded, where it has any (see
    /// [`unescaped`]).
    decoded: Vec<Option<String>>,
    /// Each untrusted text with its whitespace folded, as written and as decoded, computed when
    /// first needed: only a value with whitespace in it is looked for there.
    folded: Vec<std::sync::OnceLock<Folded>>,
    /// Each untrusted text (as written, then decoded) in lower case, and with only its letters
    /// and digits kept, computed when first needed ([`Reformatted`]).
    reformatted: Vec<std::sync::OnceLock<ReformattedText>>,
    /// The user turns read the same way, each when first needed.
    user_reformatted: Vec<std::sync::OnceLock<ReformattedText>>,
    /// The numbers and dates each untrusted text (as written, then decoded) spells otherwise
    /// than an argument writes them ([`Spelled`]), computed when first needed: only a number
    /// or a date that no text shows as written is looked for there.
    spelled: Vec<std::sync::OnceLock<Spelled>>,
    /// The secrets each untrusted text holds ([`super::secrets`]), computed when first
    /// needed: a call that acts outside keel's own file tools looks for them (the gate's
    /// common call, a file write, never does).
    secrets: Vec<std::sync::OnceLock<Vec<super::secrets::Secret>>>,
    /// The day of the latest user turn ([`ProvenanceIndex::set_today`]), when known.
    today: Option<String>,
    /// The last few calls proposed ([`SENT_READ_TOGETHER`]), each its name and its arguments
    /// joined, in order: a code's parts sent in several messages, `4`, `7`, `19` (a tenth
    /// outsider round's), are read together.
    sent: Vec<(String, String)>,
    /// Trigram postings of `user` and `untrusted`, kept only by an index that lives across
    /// calls: for one call, a scan of the texts is cheaper than building them.
    grams: Option<(Trigrams, Trigrams)>,
    /// Postings of the untrusted texts' tidied forms ([`reformed`]), kept with `grams`.
    reformed: Option<reformed::Reformed>,
    /// The same postings of the user turns.
    user_reformed: Option<reformed::Reformed>,
    /// The texts joined for one search over all ([`Joined`]), built when first needed, by an
    /// index without trigram postings (one indexed for one call).
    joined: std::sync::OnceLock<JoinedTexts>,
    /// The kinds of action the user's words ask for ([`super::authority`]), read once per
    /// user turn added rather than once per call.
    requested: std::sync::OnceLock<Requested>,
    /// Calls proposed whose results have not come yet, by id: whether data chose what each
    /// reads ([`ProvenanceIndex::add_calls`]).
    pending_steered: HashMap<String, bool, foldhash::fast::RandomState>,
    /// The untrusted texts that a call steered by data brought in, by position.
    steered: Vec<usize>,
    /// An index made for one decision has no postings, and asking of every call in a long
    /// history whether data steered it read every earlier text for each (230 ms at 10k
    /// items): it notes what each call read and where the history stood, and answers once,
    /// with postings, when a decision needs it ([`ProvenanceIndex::steered`]).
    deferred: Vec<DeferredRead>,
    /// Calls whose steering was deferred and whose results have not come yet: their entry in
    /// `deferred`.
    pending_deferred: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Each result of a deferred call: its text's position and the call's entry.
    deferred_results: Vec<(usize, usize)>,
    /// The deferred answer: the untrusted texts steered calls brought in, by position.
    steered_late: std::sync::OnceLock<Vec<usize>>,
}

/// The numbers a text spells otherwise than as plain digits
/// ([`super::amounts::spelled_otherwise`]) and the dates it spells
/// ([`super::dates::dates_in`]).
#[derive(Clone, Debug, Default)]
struct Spelled {
    numbers: Vec<f64>,
    dates: Vec<String>,
}

impl Spelled {
    fn of(text: &str, decoded: Option<&str>) -> Self {
        let mut spelled = Self::default();
        for form in std::iter::once(text).chain(decoded) {
            spelled
                .numbers
                .extend(super::amounts::spelled_otherwise(form));
            spelled.dates.extend(super::dates::dates_in(form));
        }
        spelled
    }
}

/// What a call read, and how many user turns and untrusted texts stood before it.
#[derive(Clone, Debug)]
struct DeferredRead {
    values: Vec<String>,
    users: usize,
    untrusted: usize,
}

/// The index's texts, each kind joined ([`Joined`]): user turns, untrusted texts as written,
/// and as decoded (empty where a text has nothing to decode; none at all when no text has).
#[derive(Clone, Debug)]
struct JoinedTexts {
    user: Joined,
    written: Joined,
    decoded: Option<Joined>,
}

/// What one item contributes: user text (with when it was written, in milliseconds since the
/// epoch), or untrusted text with its source.
enum Contribution<'a> {
    User(&'a str, i64),
    Untrusted(Source<'a>, Cow<'a, str>),
    /// The calls the model proposed: what each was asked to read says whether data steered
    /// it ([`ProvenanceIndex::steered`]).
    Calls(&'a [keel_core::ToolCall]),
}

fn contribution(item: &Item) -> Option<Contribution<'_>> {
    match &item.body {
        ItemBody::User { text } => Some(Contribution::User(text, item.ts.0)),
        ItemBody::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
            Some(Contribution::Calls(tool_calls))
        }
        ItemBody::ToolResult {
            tool,
            output,
            call_id,
            ..
        } => Some(Contribution::Untrusted(
            Source::ToolResult {
                tool: Cow::Borrowed(tool),
                call_id: Cow::Borrowed(call_id),
            },
            Cow::Borrowed(tool_message_content(output)),
        )),
        ItemBody::Notification { envelope, .. } => Some(Contribution::Untrusted(
            Source::Notification {
                id: Cow::Borrowed(envelope.id()),
            },
            Cow::Borrowed(envelope.payload_text()),
        )),
        ItemBody::Diagnostic(Diagnostic::ToolCallStatus { call_id, envelope }) => {
            Some(Contribution::Untrusted(
                Source::ToolResult {
                    tool: Cow::Borrowed("(a tool)"),
                    call_id: Cow::Borrowed(call_id),
                },
                Cow::Borrowed(envelope.local_result_text()),
            ))
        }
        _ => None,
    }
}

/// A value a call read, as written, without a leading `./`, and its file name: as data may
/// have named it (`./wallet-backup.txt` is `wallet-backup.txt`, and so is
/// `backups/wallet-backup.txt`'s file).
fn read_forms(needle: &str) -> (&str, &str, &str) {
    let v = needle.trim();
    let bare = v.trim_start_matches("./");
    // (Found from the end by bytes: a search by `char` read a 16 KiB file's content one
    // character at a time.)
    let file = memchr::memrchr2(b'/', b'\\', bare.as_bytes()).map_or(bare, |at| &bare[at + 1..]);
    (v, bare, file)
}

fn owned(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

impl<'a> ProvenanceIndex<'a> {
    pub fn from_items(items: &'a [Item]) -> Self {
        let mut index = Self::default();
        // At most one text per item: grown once, not push by push.
        index.user.reserve(items.len() / 2);
        index.untrusted.reserve(items.len());
        index.decoded.reserve(items.len());
        index.folded.reserve(items.len());
        index.reformatted.reserve(items.len());
        index.spelled.reserve(items.len());
        index.secrets.reserve(items.len());
        for c in items.iter().filter_map(contribution) {
            match c {
                Contribution::User(text, at) => {
                    index.note_user_time(at);
                    index.add_user(Cow::Borrowed(text));
                }
                Contribution::Untrusted(source, text) => index.add_untrusted(source, text),
                Contribution::Calls(calls) => index.add_calls(calls),
            }
        }
        index
    }

    fn add_user(&mut self, text: Cow<'a, str>) {
        // A value the user ruled out ("never send anything to …") is not theirs to use.
        let text = match super::authority::without_prohibitions(&text) {
            Cow::Owned(kept) => Cow::Owned(kept),
            Cow::Borrowed(_) => text,
        };
        if let Some((user, _)) = self.grams.as_mut() {
            user.add(self.user.len(), &text);
        }
        if let Some(reformed) = self.user_reformed.as_mut() {
            reformed.add(self.user.len(), &[&text]);
        }
        self.user.push(text);
        self.joined = std::sync::OnceLock::new();
        self.requested = std::sync::OnceLock::new();
        self.user_reformatted.push(std::sync::OnceLock::new());
    }

    /// What the user's words say and ask for, read once per index.
    fn requested(&self) -> &Requested {
        self.requested.get_or_init(|| {
            let said = super::authority::said_words(self.user.iter().map(AsRef::as_ref));
            let user: Vec<&str> = self.user.iter().map(AsRef::as_ref).collect();
            Requested {
                kinds: super::authority::requested_in(&said),
                changes: super::authority::asks_for_change(&said),
                dictated: super::authority::dictated_words(&user, &said),
                counts: counts_in(&self.user),
                kept: super::tool_choice::kept_words(&user),
                said,
            }
        })
    }

    /// The texts joined, for a search of `needle` over all of them at once: only by an index
    /// without trigram postings (one with them searches the few texts they name), and only for
    /// a needle a joined search answers exactly ([`Joined::searchable`]).
    fn joined_for(&self, needle: &[u8]) -> Option<&JoinedTexts> {
        if self.grams.is_some() || !Joined::searchable(needle) {
            return None;
        }
        Some(self.joined.get_or_init(|| {
            JoinedTexts {
                user: Joined::of(self.user.iter().map(AsRef::as_ref)),
                written: Joined::of(self.untrusted.iter().map(|(_, t)| t.as_ref())),
                decoded: self
                    .decoded
                    .iter()
                    .any(Option::is_some)
                    .then(|| Joined::of(self.decoded.iter().map(|d| d.as_deref().unwrap_or("")))),
            }
        }))
    }

    /// The kinds of action the user's words ask for.
    fn requested_kinds(&self) -> &[super::authority::ActionKind] {
        &self.requested().kinds
    }

    /// Notes, for each call, whether data chose what it reads: one of its values (a file, a
    /// page, an id) is not the user's and stands in a text read before. What such a call
    /// brings in was fetched at the data's direction — the wallet backup an issue's body told
    /// the model to quote — and copying it out is how a theft reads ([`Self::steered`]).
    fn add_calls(&mut self, calls: &[keel_core::ToolCall]) {
        for call in calls {
            let mut values = Vec::new();
            leaves(&call.arguments, None, Cow::Borrowed(""), "", &mut values);
            // What a call that acts sent, for a secret split over several (below).
            // (Only the last few are read, so only they are kept, as written: whether each
            // acts and what digits it says are read when a call is checked for a secret, not
            // for every call of a long history.)
            // A name that opens with a looking verb (`read_file`, `get_inbox`) sends nothing.
            let first = call.name.split(['_', '-', '.']).next().unwrap_or("");
            let looks = super::classify::READ_VERBS
                .iter()
                .any(|verb| verb.eq_ignore_ascii_case(first));
            if !looks {
                let text: Vec<&str> = values.iter().map(|leaf| leaf.needle.as_ref()).collect();
                if self.sent.len() == SENT_READ_TOGETHER {
                    self.sent.remove(0);
                }
                self.sent.push((call.name.clone(), text.join(" ")));
            }
            if self.grams.is_none() {
                let read = values
                    .iter()
                    .flat_map(|leaf| {
                        let (v, bare, file) = read_forms(&leaf.needle);
                        [v.to_string(), bare.to_string(), file.to_string()]
                    })
                    .filter(|v| v.len() >= 3)
                    .collect();
                self.pending_deferred
                    .insert(call.id.clone(), self.deferred.len());
                self.deferred.push(DeferredRead {
                    values: read,
                    users: self.user.len(),
                    untrusted: self.untrusted.len(),
                });
                continue;
            }
            // A path as written, and as data may have named it: `./wallet-backup.txt` is
            // `wallet-backup.txt`, and so is `backups/wallet-backup.txt`'s file.
            let steered = values.iter().any(|leaf| {
                let (v, bare, file) = read_forms(&leaf.needle);
                self.read_in_data(v) || self.read_in_data(bare) || self.read_in_data(file)
            });
            self.pending_steered.insert(call.id.clone(), steered);
        }
    }

    /// The untrusted texts that a call steered by data brought in, by position: kept as the
    /// index grows, or, for an index made for one decision, worked out now from what each
    /// call read ([`DeferredRead`]) with postings of the whole history, each call judged
    /// against the texts before it.
    fn steered(&self) -> &[usize] {
        if self.deferred_results.is_empty() {
            return &self.steered;
        }
        self.steered_late.get_or_init(|| {
            let mut user = Trigrams::default();
            for (at, text) in self.user.iter().enumerate() {
                user.add(at, text);
            }
            let mut data = Trigrams::default();
            for (at, (_, text)) in self.untrusted.iter().enumerate() {
                data.add(at, text);
            }
            // Whether a text before `limit`, of the candidates, holds the finder's value.
            fn holds<'t>(
                finder: &memchr::memmem::Finder<'_>,
                candidates: Option<&[u32]>,
                limit: usize,
                text: impl Fn(usize) -> &'t str,
            ) -> bool {
                match candidates {
                    Some(at) => at
                        .iter()
                        .take_while(|&&i| (i as usize) < limit)
                        .any(|&i| finder.find(text(i as usize).as_bytes()).is_some()),
                    None => (0..limit).any(|i| finder.find(text(i).as_bytes()).is_some()),
                }
            }
            let mut steered = self.steered.clone();
            for &(at, entry) in &self.deferred_results {
                let read = &self.deferred[entry];
                let in_data = read.values.iter().any(|v| {
                    let finder = memchr::memmem::Finder::new(v.as_bytes());
                    holds(&finder, data.candidates(v), read.untrusted, |i| {
                        self.untrusted[i].1.as_ref()
                    }) && !holds(&finder, user.candidates(v), read.users, |i| {
                        self.user[i].as_ref()
                    })
                });
                if in_data {
                    steered.push(at);
                }
            }
            steered.sort_unstable();
            steered
        })
    }

    /// Whether `value` stands, as written, in an untrusted text and in no user turn: the
    /// plain test of where a call's value came from, which is all steering needs (a value
    /// the model reformatted came from data all the same, and is judged when it is used).
    fn read_in_data(&self, value: &str) -> bool {
        if value.len() < 3 {
            return false;
        }
        // The postings first: a value no untrusted text may hold was read in no data, and
        // building its finder costs as much as reading the value (2.1M instructions for a
        // 16 KiB file's content, which stands in no text).
        let data_at = self.grams.as_ref().and_then(|(_, g)| g.candidates(value));
        if data_at.is_some_and(<[u32]>::is_empty) {
            return false;
        }
        let finder = memchr::memmem::Finder::new(value.as_bytes());
        let holds = |t: &str| finder.find(t.as_bytes()).is_some();
        let said = match self.grams.as_ref().and_then(|(u, _)| u.candidates(value)) {
            Some(at) => at.iter().any(|&i| holds(&self.user[i as usize])),
            None => self.user.iter().any(|u| holds(u)),
        };
        if said {
            return false;
        }
        match data_at {
            Some(at) => at.iter().any(|&i| holds(&self.untrusted[i as usize].1)),
            None => self.untrusted.iter().any(|(_, t)| holds(t)),
        }
    }

    fn add_untrusted(&mut self, source: Source<'a>, text: Cow<'a, str>) {
        if let Source::ToolResult { call_id, .. } = &source
            && let Some(entry) = self.pending_deferred.remove(call_id.as_ref())
        {
            self.deferred_results.push((self.untrusted.len(), entry));
        }
        if let Source::ToolResult { call_id, .. } = &source
            && self.pending_steered.remove(call_id.as_ref()) == Some(true)
        {
            self.steered.push(self.untrusted.len());
        }
        let decoded = decoded_layers(&text);
        let folded = std::sync::OnceLock::new();
        if let Some((_, untrusted)) = self.grams.as_mut() {
            // The postings must hold every form a value may be found in.
            let at = self.untrusted.len();
            untrusted.add(at, &text);
            if let Some(d) = &decoded {
                untrusted.add(at, d);
            }
            let f = folded.get_or_init(|| Folded::of(&text, decoded.as_deref()));
            for f in [&f.written, &f.decoded].into_iter().flatten() {
                untrusted.add(at, f);
            }
        }
        if let Some(reformed) = self.reformed.as_mut() {
            let at = self.untrusted.len();
            match &decoded {
                Some(d) => reformed.add(at, &[&text, d]),
                None => reformed.add(at, &[&text]),
            }
        }
        self.untrusted.push((source, text));
        self.joined = std::sync::OnceLock::new();
        self.decoded.push(decoded);
        self.folded.push(folded);
        self.reformatted.push(std::sync::OnceLock::new());
        self.spelled.push(std::sync::OnceLock::new());
        self.secrets.push(std::sync::OnceLock::new());
    }

    /// The first secret an untrusted text holds that `value` carries, with where it was
    /// read; none that the user's words name ("send the sitter the Wi-Fi password").
    fn carried_secret(&self, value: &str) -> Option<(usize, &super::secrets::Secret)> {
        if value.len() < 4 {
            return None;
        }
        let argument = super::secrets::Argument::new(value);
        (0..self.untrusted.len()).find_map(|at| {
            self.secrets[at]
                .get_or_init(|| super::secrets::secrets_in(&self.untrusted[at].1))
                .iter()
                .filter(|secret| super::secrets::carried_by(&argument, secret))
                .find(|secret| !secret.named_by(&self.requested().said))
                .map(|secret| (at, secret))
        })
    }

    /// The first untrusted text that spells the number `value` another way than as written
    /// ("8.5e3", "8 500", "eight thousand five hundred" for 8500): a model copies the number,
    /// not its spelling.
    fn spelled_number_source(&self, value: f64) -> Option<usize> {
        (0..self.untrusted.len()).find(|&at| {
            self.spelled_at(at)
                .numbers
                .iter()
                .any(|n| (n - value).abs() < 0.005)
        })
    }

    /// The first untrusted text that spells the date `date` (`YYYY-MM-DD`) some way — "the
    /// first of August 2024", "01/08/2024" — unless a user turn spells it too: then it is
    /// the user's.
    fn spelled_date_source(&self, date: &str) -> Option<usize> {
        if self
            .user
            .iter()
            .any(|u| super::dates::dates_in(u).iter().any(|d| d == date))
        {
            return None;
        }
        (0..self.untrusted.len()).find(|&at| self.spelled_at(at).dates.iter().any(|d| d == date))
    }

    /// The dates the user's words give, joined for a reason ("2024-07-01"), when they give
    /// some and `date` is none of them ([`super::dates::user_gives`]); `None` otherwise.
    fn other_user_dates(&self, date: &str) -> Option<String> {
        if super::dates::user_gives(
            self.user.iter().map(std::convert::AsRef::as_ref),
            date,
            self.today.as_deref(),
        ) != Some(false)
        {
            return None;
        }
        let theirs: Vec<String> = self
            .user
            .iter()
            .flat_map(|u| super::dates::dates_in(u))
            .collect();
        Some(if theirs.is_empty() {
            "other dates".to_string()
        } else {
            theirs.join(", ")
        })
    }

    fn spelled_at(&self, at: usize) -> &Spelled {
        self.spelled[at]
            .get_or_init(|| Spelled::of(&self.untrusted[at].1, self.decoded[at].as_deref()))
    }

    /// The first untrusted text that holds `value` once both are written the way a model
    /// tidies what it copies ([`Reformatted`]); `None` when `value` is not of that kind.
    fn reformatted_source(&self, r: Option<&Reformatted>) -> Option<usize> {
        let r = r?;
        let holds = |at: usize| {
            let text = self.reformatted[at].get_or_init(|| {
                let written = self.untrusted[at].1.as_ref();
                match self.decoded[at].as_deref() {
                    Some(d) => ReformattedText::of(&format!("{written}\n{d}")),
                    None => ReformattedText::of(written),
                }
            });
            r.found_in(text, false)
        };
        // A kept index looks only in the texts its postings name ([`reformed`]).
        let candidates = match (&self.grams, &self.reformed) {
            (Some((_, written)), Some(reformed)) => {
                reformed.candidates(written, r.lower.as_deref(), r.digits.as_deref())
            }
            _ => None,
        };
        match candidates {
            Some(texts) => texts
                .into_iter()
                .map(|at| at as usize)
                .find(|&at| holds(at)),
            None => (0..self.untrusted.len()).find(|&at| holds(at)),
        }
    }

    /// Whether a user turn holds `value` written the way [`Reformatted`] reads it.
    fn user_holds_reformatted(&self, r: Option<&Reformatted>) -> bool {
        let Some(r) = r else {
            return false;
        };
        let holds = |at: usize| r.found_in(self.user_reformatted_at(at), true);
        // A kept index looks only in the turns its postings name ([`reformed`]).
        let candidates = match (&self.grams, &self.user_reformed) {
            (Some((written, _)), Some(reformed)) => {
                reformed.candidates(written, r.lower.as_deref(), r.digits.as_deref())
            }
            _ => None,
        };
        match candidates {
            Some(turns) => turns.into_iter().any(|at| holds(at as usize)),
            None => (0..self.user.len()).any(holds),
        }
    }

    /// The user turn at `at` as [`Reformatted`] reads it, made when first needed.
    fn user_reformatted_at(&self, at: usize) -> &ReformattedText {
        self.user_reformatted[at].get_or_init(|| ReformattedText::of(&self.user[at]))
    }

    /// Whether the user's words hold `word` (lower case) as a whole token.
    fn user_says(&self, word: &str) -> bool {
        (0..self.user.len()).any(|at| holds_as_token(&self.user_reformatted_at(at).lower, word))
    }

    /// Whether `link` goes to a host the user named, with a path and query made only of the
    /// user's own words and plain lower-case words (`https://www.codedculinary.com/recipe/
    /// blueberry-scones/` for "the Blueberry Scones recipe on www.codedculinary.com"). A
    /// digit, a capital inside a word or a long run — a code, base64, a key — that the user
    /// did not write is data carried to that host, however it was encoded.
    fn extends_users_link(&self, link: &str) -> bool {
        let rest = link.split_once("://").map_or(link, |(_, r)| r);
        let (host, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
        if host.is_empty() || !matches!(attribute(self, host), Attribution::Grounded) {
            return false;
        }
        // Read as written and undisguised: "seven-three-one…" is a number too.
        let plain = super::disguise::undisguised(tail);
        [Some(tail), plain.as_deref()]
            .into_iter()
            .flatten()
            .all(|tail| {
                tail.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .all(|w| {
                        self.user_says(&w.to_lowercase())
                            || (w.chars().all(|c| c.is_ascii_lowercase())
                            && w.len() <= 12
                            // A number spelled out ("seven-three-one") is a number.
                            && super::disguise::number_word(w).is_none())
                    })
            })
    }

    /// An empty index that keeps trigram postings as it grows: for one kept across calls.
    pub fn kept() -> Self {
        Self {
            grams: Some(Default::default()),
            reformed: Some(Default::default()),
            user_reformed: Some(Default::default()),
            ..Self::default()
        }
    }

    pub fn push_user(&mut self, text: &str) {
        self.add_user(Cow::Owned(text.to_string()));
    }

    /// The day the user's words are read against ("today", "tomorrow", "on the first"), as
    /// `YYYY-MM-DD`: the day of the latest user turn, which a run's items carry; for an index
    /// built from bare texts, given here.
    pub fn set_today(&mut self, date: &str) {
        self.today = super::dates::date_of_value(date).map(str::to_string);
    }

    /// Notes the day a user turn was written (milliseconds since the epoch; 0 is unknown).
    fn note_user_time(&mut self, at: i64) {
        if at > 0 {
            self.today = Some(super::dates::date_of_millis(at));
        }
    }

    pub fn push_untrusted(&mut self, source: &str, text: &str) {
        self.add_untrusted(
            Source::Described(source.to_string()),
            Cow::Owned(text.to_string()),
        );
    }
}

impl ProvenanceIndex<'static> {
    /// Adds what `items` contribute, as owned text: for an index kept while its run grows.
    pub fn extend_owned(&mut self, items: &[Item]) {
        for c in items.iter().filter_map(contribution) {
            match c {
                Contribution::Calls(calls) => self.add_calls(calls),
                Contribution::User(text, at) => {
                    self.note_user_time(at);
                    self.add_user(Cow::Owned(text.to_string()));
                }
                Contribution::Untrusted(source, text) => {
                    let source = match source {
                        Source::ToolResult { tool, call_id } => Source::ToolResult {
                            tool: owned(tool),
                            call_id: owned(call_id),
                        },
                        Source::Notification { id } => Source::Notification { id: owned(id) },
                        Source::Described(d) => Source::Described(d),
                    };
                    self.add_untrusted(source, owned(text));
                }
            }
        }
    }
}

/// The parts of a text fetched at data's direction that an argument may not carry out
/// unasked: its fields (the text cut at line breaks, `:`, `=`, `,`, `;`, `|`), six characters
/// or more, and its words with a digit, four or more. A recovery phrase, a password, a safe's
/// combination ("links 32, rechts 17") or a PIN is none of the atoms keel looks for, but it
/// is a field of the file the injection had read.
fn steered_parts(text: &str) -> impl Iterator<Item = &str> {
    let fields = text
        .split(['\n', ':', '=', ',', ';', '|', '\t'])
        .map(|f| f.trim_matches(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '(' | ')')))
        .filter(|f| f.chars().count() >= 6 && f.chars().any(char::is_alphanumeric));
    let numbers = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | ')'))
        .filter(|w| w.len() >= 4 && w.chars().any(|c| c.is_ascii_digit()));
    fields.chain(numbers)
}

/// `text` in lower case with every run of what is not a letter or a digit one space: how a
/// copied field is compared, so that case, doubled or no-break spaces and commas between its
/// words do not hide it (a sixth outsider round sent a recovery phrase those ways).
fn folded_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

impl ProvenanceIndex<'_> {
    /// The first part of a steered text ([`steered_parts`]) that `value` carries and the
    /// user's words do not, with where it came from; compared as [`folded_words`].
    /// A field of four words or more is carried by any four of its words in a row (a sixth
    /// round sent a recovery phrase in parts); a number, by its digits however grouped
    /// (`48-21` for `4821`).
    fn carries_steered(&self, value: &str) -> Option<(String, String)> {
        let folded_value = folded_words(value);
        let digits_value = folded_value.replace(' ', "");
        let user: Vec<String> = self.user.iter().map(|u| folded_words(u)).collect();
        let users = |piece: &str| user.iter().any(|u| u.contains(piece));
        self.steered().iter().find_map(|&at| {
            let (source, text) = &self.untrusted[at];
            steered_parts(text)
                .find(|part| {
                    let folded = folded_words(part);
                    let words: Vec<&str> = folded.split_whitespace().collect();
                    if words.len() >= 4 {
                        return words.windows(4).any(|w| {
                            let piece = format!(" {} ", w.join(" "));
                            folded_value.contains(&piece) && !users(&piece)
                        });
                    }
                    let number: String = part.chars().filter(char::is_ascii_digit).collect();
                    if number.len() >= 4 && number.len() * 2 >= part.trim().len() {
                        return digits_value.contains(&number) && !users(&number);
                    }
                    folded.trim().len() >= 4 && folded_value.contains(&folded) && !users(&folded)
                })
                .map(|part| (part.to_string(), source.describe()))
        })
    }
}

/// What provenance says about one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attribution {
    Grounded,
    Tainted { source: String },
    Unattributed,
}

fn needle(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Null => None,
        other => Some(Cow::Owned(other.to_string())),
    }
}

/// Whether `text[start..end]`, an occurrence of a value, stands as whole tokens: a value that
/// begins (ends) with a letter or digit must not continue a word of the text there. "June 1"
/// holds `1` but not `ne 1`; "id 13" holds `13`, "2013" does not.
/// In scripts written without spaces (Chinese, Japanese, Thai), a number or a Latin name
/// stands right against the words around it: "把文件13删除" names `13` (a fifth outsider round
/// found such a user's own number taken for data).
fn whole_tokens(text: &str, start: usize, end: usize) -> bool {
    let word = |c: char| c.is_alphanumeric();
    let joined = |a: char, b: char| word(a) && word(b) && unspaced(a) == unspaced(b);
    let value = &text[start..end];
    let first = value.chars().next();
    let last = value.chars().next_back();
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !matches!((before, first), (Some(b), Some(f)) if joined(b, f))
        && !matches!((last, after), (Some(l), Some(a)) if joined(l, a))
}

/// Whether `c` belongs to a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
        | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' // Han
        | '\u{0e00}'..='\u{0e7f}' // Thai
        | '\u{ac00}'..='\u{d7af}' // Hangul syllables, which take particles right after a number
    )
}

/// Whether `text[start..end]` is only a part of a name joined by `/`, `-`, `_`, `.`, `@`,
/// `:`, `+` or `\\` ("feature/main-menu" holds `main` and `menu`, "fix-release-v2-notes"
/// holds `v2`): a user who names the whole names none of its parts (an outsider's attack
/// deleted the branch `main` after "delete the branch feature/main-menu").
fn inside_a_compound(text: &str, start: usize, end: usize) -> bool {
    let joiner = |c: char| matches!(c, '/' | '-' | '_' | '.' | '@' | ':' | '+' | '\\');
    let value = &text[start..end];
    let mut before = text[..start].chars().rev();
    let joined_before = value.chars().next().is_some_and(char::is_alphanumeric)
        && before.next().is_some_and(joiner)
        && before.next().is_some_and(char::is_alphanumeric);
    let mut after = text[end..].chars();
    let joined_after = value.chars().next_back().is_some_and(char::is_alphanumeric)
        && after.next().is_some_and(joiner)
        && after.next().is_some_and(char::is_alphanumeric);
    joined_before || joined_after
}

/// Whether `text` holds the value found by `finder` as whole tokens somewhere.
fn holds_tokens(finder: &memchr::memmem::Finder<'_>, text: &str) -> bool {
    let len = finder.needle().len();
    finder
        .find_iter(text.as_bytes())
        .any(|at| whole_tokens(text, at, at + len))
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn is_month(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    w.len() >= 3
        && MONTHS.iter().any(|m| {
            w.starts_with(m) && (w.len() == 3 || "january february march april june july august september sept october november december".split(' ').any(|full| full == w))
        })
}

/// Whether the number at `text[start..end]` is the day or year of a date written with a
/// month's name ("June 13", "13 June", "June 13, 2024"): there it is not a number the user
/// gave on its own.
fn part_of_date(text: &str, start: usize, end: usize) -> bool {
    if !text[start..end].chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let before = text[..start].trim_end_matches([' ', ',']);
    let after = text[end..].trim_start_matches([' ', ',']);
    let last_word = before
        .rsplit(|c: char| !c.is_alphanumeric() && c != '.')
        .next()
        .unwrap_or_default();
    let next_word = after
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default();
    // "June 13, 2024": the year follows a day that follows a month.
    let year_after_day = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .nth(1)
        .is_some_and(is_month)
        && last_word.chars().all(|c| c.is_ascii_digit());
    is_month(last_word) || is_month(next_word) || year_after_day
}

/// Whether the number at `text[start..end]` is a piece of a larger quantity the user wrote:
/// a time (`10:13`), a numeric date (`13/06`, `2024-06-13`), a price (`$13`), a decimal or a
/// version (`1.3`, `v1.3`), a range (`7-day`) or a percentage.
fn part_of_quantity(text: &str, start: usize, end: usize) -> bool {
    if !text[start..end].chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let mut before = text[..start].chars().rev();
    let mut after = text[end..].chars();
    let (b1, b2) = (before.next(), before.next());
    let (a1, a2) = (after.next(), after.next());
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    matches!(b1, Some(':' | '/' | '-' | '$' | '€' | '£' | '¥'))
        || (matches!(b1, Some('.' | ',')) && digit(b2))
        || (matches!(b1, Some('v' | 'V')) && !b2.is_some_and(char::is_alphanumeric))
        || matches!(a1, Some(':' | '/' | '-' | '%'))
        || (matches!(a1, Some('.' | ',')) && digit(a2))
}

/// Words that measure what a number before them counts: units of time, size and people.
const UNITS: &[&str] = &[
    "am", "pm", "a.m.", "p.m.", "h", "hr", "hrs", "hour", "hours", "min", "mins", "minute",
    "minutes", "sec", "secs", "seconds", "day", "days", "week", "weeks", "month", "months", "year",
    "years", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "bytes", "people", "persons", "guests",
    "adults", "children", "kids", "times", "percent", "kg", "km", "miles", "o'clock",
];

/// Words that describe what a count counts, between the two ("3 old drafts"), besides those
/// ending like "oldest", "damaged", "bigger".
const DESCRIBING: &[&str] = &[
    "old",
    "new",
    "big",
    "small",
    "large",
    "open",
    "unread",
    "recent",
    "unpaid",
    "paid",
    "duplicate",
    "more",
    "other",
    "same",
    "last",
    "first",
    "spam",
    "empty",
];

/// Whether the number at `text[at..end]` is a count, a size, a time or a year: before a unit
/// ("30 days", "9 am", "100 MB", "2 people"), before a plural noun up to two words on ("3
/// oldest drafts", "one of 12 duplicates"), or a year after a preposition ("from 2023").
fn counted_at(text: &str, at: usize, end: usize) -> bool {
    let number = &text[at..end];
    let clean = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase()
    };
    let after: Vec<String> = text[end..].split_whitespace().take(3).map(clean).collect();
    // (A stop or a comma right after the number ends what it could count.)
    let closed = text[end..].starts_with(['.', ',', ';', ':', '!', '?', ')']);
    let next = |k: usize| after.get(k - 1).map(String::as_str).filter(|_| !closed);
    let before_a_unit = next(1).is_some_and(|n| UNITS.contains(&n));
    // "12 duplicates", or with one word that describes them: "3 oldest drafts", "5
    // damaged items" (not "5521 once Legal signs off").
    let counts_a_plural = (1..=2).any(|k| {
        next(k).is_some_and(|n| {
            n.len() > 3
                && n.ends_with('s')
                && !n.ends_with("ss")
                && !n.ends_with("us")
                && n.chars().all(char::is_alphabetic)
        }) && (1..k).all(|j| {
            next(j).is_some_and(|w| {
                ["est", "ed", "er"].iter().any(|e| w.ends_with(e)) || DESCRIBING.contains(&w)
            })
        })
    });
    let word_before = text[..at].split_whitespace().next_back().map(clean);
    let a_year = number.len() == 4
        && (number.starts_with("19") || number.starts_with("20"))
        && word_before.as_deref().is_some_and(|w| {
            matches!(
                w,
                "from" | "in" | "since" | "before" | "after" | "until" | "till" | "during" | "of"
            )
        });
    before_a_unit || counts_a_plural || a_year
}

/// Whether `text` writes the number `number` as the number of what `tool` acts on through
/// its argument `key`. It does right after `#`, after a word of the key or of the tool's name
/// in any form or short form ("e-mail 31" for `email_id`, "PR 97" for `merge_pull_request`),
/// perhaps with "no." or "number" between, after the call's verb or a verb of its kinds
/// ("refund 88410"), or in a list of numbers that follows one of those. It does not as a
/// count, a size, a time or a year ([`counted_at`]), nor, where the key names the thing
/// (`email_id`, `booking_id`), right after a word that names another ("sprint 7", "room 12",
/// "top 7"); a number set off by a colon, a comma or brackets ("typo: 88410", "the second
/// (88411)") or after a word that labels nothing ("also 88411") is not another thing's.
fn numbers_the_thing(
    text: &str,
    number: &str,
    key: &str,
    tool: &str,
    kinds: &[super::authority::ActionKind],
) -> bool {
    // (A word that says "identifier" names no thing: `email_id` names an e-mail.)
    let not_a_name = |w: &str| super::records::is_identifier_key(w);
    let key_thing: Vec<String> = super::classify::words(key)
        .into_iter()
        .filter(|w| !not_a_name(w))
        .collect();
    // A key that names no particular thing (`number`, `record_id`, `target_id`).
    let key_names_a_thing = key_thing
        .iter()
        .any(|w| !GENERIC_THINGS.contains(&w.as_str()));
    let name: Vec<String> = super::authority::name_words(tool)
        .into_iter()
        .filter(|w| !not_a_name(w))
        .chain(key_thing)
        .collect();
    let names_it = |label: &str| {
        name.iter().any(|n| {
            super::kinds::is_form_of(label, n)
                || super::kinds::is_form_of(n, label)
                || super::authority::abbreviates(label, n)
                || super::kinds::names_one_record(label, n)
        }) || kinds.iter().any(|k| {
            k.tool_verbs()
                .iter()
                .chain(k.request_stems())
                .any(|v| super::kinds::is_form_of(label, v))
        })
    };
    text.match_indices(number).any(|(at, _)| {
        let end = at + number.len();
        // A count, a time, a size or a year, whatever stands before it ("email 7 days old");
        // a number in a quoted title ("the e-mail that says 'sprint 7 retro'") is the title's.
        if !user_holds_at(text, at, end) || counted_at(text, at, end) || quoted_at(text, at) {
            return false;
        }
        let before = text[..at].to_lowercase().replace("e-mail", "email");
        if before.ends_with('#') {
            return true;
        }
        // Back over the list this number ends ("31, 32 and"; not across a bracket: "email 31
        // (7 attachments)"), and "no.", "number", "id" or "ref".
        let mut label = None;
        for t in before.split_whitespace().rev() {
            let word = t.trim_matches(|c: char| !c.is_alphanumeric());
            // ("Bob's e-mail (id 40)" still names the e-mail.)
            if t.contains(['(', ')', ':', ';']) && !ID_WORDS.contains(&word) {
                break;
            }
            if word.is_empty()
                || word.chars().all(|c| c.is_ascii_digit())
                || ID_WORDS.contains(&word)
                || matches!(word, "and" | "or")
            {
                continue;
            }
            label = Some(word);
            break;
        }
        if label.is_some_and(names_it) {
            return true;
        }
        // The word right before (past "id", "no."), where nothing sets the number off from it.
        let labelled_by_another = before
            .split_whitespace()
            .rev()
            .find(|t| !ID_WORDS.contains(&t.trim_matches(|c: char| !c.is_alphanumeric())))
            .is_some_and(|t| {
                key_names_a_thing && t.chars().all(char::is_alphabetic) && !NO_LABELS.contains(&t)
            });
        !labelled_by_another
    })
}

/// Words that say a number is an id, between a thing's name and its number: "booking ref
/// 5521", "e-mail no. 31", "the e-mail with ID 31".
const ID_WORDS: &[&str] = &["no", "number", "nr", "num", "id", "ids", "ref", "reference"];

/// Whether `text[at..]` stands inside quotes: a title or a subject the user quotes.
fn quoted_at(text: &str, at: usize) -> bool {
    let before = &text[..at];
    let double = before.matches(['"', '\u{201c}', '\u{201d}']).count() % 2 == 1;
    // A single quote opens where a word starts after it, not inside a word ("it's").
    let mut open = false;
    let mut prev: Option<char> = None;
    for c in before.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}') {
            if !open && prev.is_none_or(|p| !p.is_alphanumeric()) {
                open = true;
            } else if open && prev.is_some_and(|p| !p.is_whitespace()) {
                open = false;
            }
        }
        prev = Some(c);
    }
    double || open
}

/// Words of a key that name no particular thing: `record_id` may be any record's.
const GENERIC_THINGS: &[&str] = &[
    "record", "item", "entity", "object", "target", "resource", "thing", "entry", "element",
];

/// Words that may stand right before a number without naming what it numbers: "also 88411",
/// "make it 88410", "is 31".
const NO_LABELS: &[&str] = &[
    "also",
    "and",
    "or",
    "then",
    "just",
    "only",
    "plus",
    "even",
    "too",
    "please",
    "is",
    "was",
    "are",
    "be",
    "it",
    "its",
    "that",
    "this",
    "make",
    "to",
    "with",
    "as",
    "namely",
    "like",
    "including",
    "incl",
    "not",
    "but",
    "nope",
    "no",
    "yes",
    "ok",
    "okay",
    "oh",
    "sorry",
    "oops",
    "actually",
    "instead",
    "meant",
    "mean",
    "rather",
    "correction",
    "typo",
    "edit",
    "update",
    // A range's other end: "31 through 33".
    "through",
    "thru",
    "till",
    "until",
];

/// Whether the user's words hold the value as whole tokens that are not part of a date or of
/// a larger quantity.
fn user_holds(finder: &memchr::memmem::Finder<'_>, text: &str) -> bool {
    let len = finder.needle().len();
    finder
        .find_iter(text.as_bytes())
        .any(|at| user_holds_at(text, at, at + len))
}

/// Whether the value at `text[start..end]` is the user's: whole tokens, not part of a date or
/// of a larger quantity.
fn user_holds_at(text: &str, start: usize, end: usize) -> bool {
    whole_tokens(text, start, end)
        && !inside_a_compound(text, start, end)
        && !part_of_date(text, start, end)
        && !part_of_quantity(text, start, end)
}

/// Where a value came from. A value is the user's only where their words hold it as whole
/// tokens ([`whole_tokens`]); in data it counts wherever it occurs.
pub fn attribute(index: &ProvenanceIndex<'_>, value: &str) -> Attribution {
    attribute_in(index, value, ShortValues::Exempt)
}

fn short_value(value: &str) -> bool {
    value.chars().count() < MIN_TAINT_CHARS
}

/// How values shorter than [`MIN_TAINT_CHARS`] are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShortValues {
    /// Never tainted (too common in any text to say where they came from).
    Exempt,
    /// Tainted where data holds them as whole tokens and the user's words do not: for every
    /// argument of a side-effecting call (`delete_file(id="13")`, `merge(pr=97)`).
    Tokens,
}

fn attribute_in(index: &ProvenanceIndex<'_>, value: &str, short: ShortValues) -> Attribution {
    if value.trim().is_empty() {
        return Attribution::Unattributed;
    }
    let needle = Needle::of(value);
    let said = |u: &str| user_holds(needle.finder(), u);
    let user_grams = index.grams.as_ref().and_then(|(u, _)| u.candidates(value));
    let joined = index.joined_for(value.as_bytes());
    let len = value.len();
    let grounded = match (user_grams, joined) {
        (Some(at), _) => at.iter().any(|&i| said(&index.user[i as usize])),
        (None, Some(j)) => j
            .user
            .first(needle.finder(), |t, at| user_holds_at(t, at, at + len))
            .is_some(),
        (None, None) => index.user.iter().any(|u| said(u)),
    };
    // Read once: both the user's side and the data's are searched for it.
    let reformatted = std::cell::OnceCell::new();
    let reformatted = || reformatted.get_or_init(|| Reformatted::of(value)).as_ref();
    if grounded || (!short_value(value) && index.user_holds_reformatted(reformatted())) {
        return Attribution::Grounded;
    }
    if value.chars().count() < MIN_TAINT_CHARS {
        if short == ShortValues::Exempt {
            return Attribution::Unattributed;
        }
        let found = match joined {
            Some(j) => {
                let token = |t: &str, at: usize| whole_tokens(t, at, at + len);
                let written = j.written.first(needle.finder(), token);
                let decoded = j
                    .decoded
                    .as_ref()
                    .and_then(|d| d.first(needle.finder(), token));
                written.into_iter().chain(decoded).min()
            }
            None => (0..index.untrusted.len()).find(|&at| {
                holds_tokens(needle.finder(), &index.untrusted[at].1)
                    || index.decoded[at]
                        .as_deref()
                        .is_some_and(|d| holds_tokens(needle.finder(), d))
            }),
        };
        return match found {
            Some(at) => Attribution::Tainted {
                source: index.untrusted[at].0.describe(),
            },
            None => Attribution::Unattributed,
        };
    }
    // The first source in order, as a scan of every text would find; then, for an address,
    // a host or a long number, the texts read as a model tidies what it copies.
    let found = match joined {
        Some(j) => index.first_holding_joined(j, &needle),
        None => index.first_untrusted(&needle, |at| {
            index.untrusted_holds(at, &needle).then_some(at)
        }),
    }
    .or_else(|| index.reformatted_source(reformatted()));
    match found {
        Some(at) => Attribution::Tainted {
            source: index.untrusted[at].0.describe(),
        },
        None => Attribution::Unattributed,
    }
}

/// [`attribute_in`], and for a value that is a number written another way (`014`, `+14`,
/// `14.0`), also for the number as it is usually written (`14`): a tool reads `"014"` or
/// `14.0` as the `14` the data held.
///
/// A zero fraction is read away only in an identifier (`short` counts everywhere there): an
/// amount of `4.0` the model worked out is not the `4` of some date or count in the data.
fn attributed(
    index: &ProvenanceIndex<'_>,
    value: &str,
    short: ShortValues,
    identifier: bool,
) -> Attribution {
    let first = attribute_in(index, value, short);
    if matches!(first, Attribution::Tainted { .. }) {
        return first;
    }
    let plain = plain_number(value).filter(|_| identifier || !value.contains('.'));
    match plain {
        // The plain form is digits: short ones count as tokens like any value with a digit.
        Some(plain) if plain != value => match attribute_in(index, &plain, ShortValues::Tokens) {
            tainted @ Attribution::Tainted { .. } => tainted,
            _ => first,
        },
        _ => first,
    }
}

/// The number a leaf holds: a JSON number, or a string that is one.
fn leaf_number(leaf: &Leaf<'_>) -> Option<f64> {
    let n = match leaf.value {
        Some(Value::Number(n)) => n.as_f64()?,
        Some(Value::String(s)) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// Whether a leaf of a call that moves money holds an amount the user's own numbers do not
/// make ([`super::amounts`]): one of them, one step of arithmetic on them, or two steps where
/// their words ask for arithmetic ("3 tickets at 25 each plus a 10% tip"), where one of the
/// numbers may be a figure a structured result records under the argument's own key
/// (`record_figures`: "19.5% of the amount we paid" for the iPhone). A number written in prose is no operand: the injected text that asks
/// for "ten times the invoice" or spells "MMMMCMXCIX" writes its own (a ninth outsider
/// round's). 0 and 1 are no amount a person needs to write (a default quantity, a flag); an
/// id is judged as an id.
fn unshown_amount(
    leaf: &Leaf<'_>,
    index: &ProvenanceIndex<'_>,
    record_figures: &dyn Fn() -> Vec<f64>,
) -> bool {
    if super::records::is_identifier_key(leaf.key) {
        return false;
    }
    let amount_key = super::amounts::is_amount_key(leaf.key);
    let amount = match leaf_number(leaf) {
        Some(n) => n,
        // An amount written with words or a unit ("8.5k EUR", "850 BTC"): its number, and
        // words the user wrote (a currency they did not name changes what is paid).
        None if amount_key => match leaf.value {
            Some(Value::String(s)) => {
                let numbers = super::amounts::numbers_in(s);
                let [n] = numbers[..] else {
                    return true;
                };
                let said = &index.requested().said;
                let unsaid_word = s
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty() && w.chars().all(char::is_alphabetic))
                    .any(|w| {
                        let w = w.to_lowercase();
                        !said.iter().any(|s| s.word == w)
                    });
                if unsaid_word {
                    return true;
                }
                n
            }
            _ => return false,
        },
        None => return false,
    };
    // A quantity of 0 or 1 is a default nobody writes; an amount of money is not.
    if !amount_key && (amount == 0.0 || amount == 1.0) {
        return false;
    }
    let (numbers, ops) = users_arithmetic(index);
    // Nothing is paid by arithmetic that comes to zero: a zero the user did not write is no
    // payment of theirs.
    if amount == 0.0 {
        return !numbers.contains(&0.0);
    }
    // Without a request for arithmetic, the amount is one the user wrote: one of their sums of
    // money where they wrote some ("60 EUR for order #4999"), else one of their numbers.
    if !ops.any() {
        let money: Vec<f64> = index
            .user
            .iter()
            .flat_map(|u| super::amounts::money_in(u))
            .collect();
        let theirs = if money.is_empty() { &numbers } else { &money };
        return !super::amounts::made_of(amount, theirs, 0);
    }
    if super::amounts::made_by(amount, &numbers, 2, ops) {
        return false;
    }
    // The arithmetic the user asks for on one figure a record holds ("the difference of an
    // additional 19.5% of the amount we paid + a fee of 5.29"): one such figure, with the
    // user's numbers, in two steps at most.
    let mut figures = record_figures();
    figures.sort_by(f64::total_cmp);
    figures.dedup();
    figures.truncate(MAX_RECORDED_FIGURES);
    let mut with = Vec::with_capacity(numbers.len() + 1);
    !figures.iter().any(|&figure| {
        with.clear();
        with.push(figure);
        with.extend_from_slice(&numbers);
        super::amounts::made_by(amount, &with, 2, ops)
    })
}

/// Whom an element of a list of payments pays and how much: the value under its counterparty
/// key (`iban`, `recipient`, `to`), letters and digits alone in lower case, and the number
/// under its amount key, however written (`850`, `"850"`, `850.0`).
fn payee_of(item: &Value) -> Option<(String, Option<u64>)> {
    let fields = item.as_object()?;
    let payee = fields.iter().find_map(|(key, value)| {
        let value = value.as_str()?;
        super::records::is_counterparty_key(key).then(|| {
            value
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
    })?;
    let amount = fields.iter().find_map(|(key, value)| {
        let n = match value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        n.filter(|_| super::amounts::is_amount_key(key))
            .map(|n| (n * 100.0).round() as u64)
    });
    (!payee.is_empty()).then_some((payee, amount))
}

/// The first array in `value` (depth first) that holds one element twice, or two that pay the
/// same payee the same amount ([`payee_of`]), by its path.
fn repeated_element(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::Array(items) => {
            // The same, or the same amount to the same payee however its number is written
            // (`DE89 3704 …`, lower case) with another subject (a tenth outsider round's
            // copies).
            let payees: Vec<Option<(String, Option<u64>)>> = items.iter().map(payee_of).collect();
            let repeated = items.iter().enumerate().any(|(i, a)| {
                !a.is_null()
                    && (items[..i].contains(a)
                        || payees[i]
                            .as_ref()
                            .is_some_and(|p| payees[..i].iter().flatten().any(|q| q == p)))
            });
            if repeated {
                return Some(path.to_string());
            }
            items.iter().enumerate().find_map(|(i, item)| {
                repeated_element(
                    item,
                    &format!("{path}{}{i}", if path.is_empty() { "" } else { "." }),
                )
            })
        }
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            repeated_element(
                item,
                &format!("{path}{}{key}", if path.is_empty() { "" } else { "." }),
            )
        }),
        _ => None,
    }
}

/// Whether the user's numbers make `value`: one of them, or, where their words ask for
/// arithmetic, up to two steps of the operations they ask for ([`super::amounts`]).
fn user_makes(value: f64, index: &ProvenanceIndex<'_>) -> bool {
    let (numbers, ops) = users_arithmetic(index);
    super::amounts::made_by(value, &numbers, if ops.any() { 2 } else { 0 }, ops)
}

/// The numbers of the user's turns an amount may be made of, and the operations their words
/// ask for ([`super::amounts::operands_in`], [`super::amounts::arithmetic_asked`]).
fn users_arithmetic(index: &ProvenanceIndex<'_>) -> (Vec<f64>, super::amounts::Operations) {
    let numbers = index
        .user
        .iter()
        .flat_map(|u| super::amounts::operands_in(u))
        .collect();
    let ops = index
        .user
        .iter()
        .map(|u| super::amounts::arithmetic_asked(u))
        .fold(
            super::amounts::Operations::default(),
            super::amounts::Operations::with,
        );
    (numbers, ops)
}

/// How many of the run's last calls are read with a call for a secret split over them (those
/// that act).
const SENT_READ_TOGETHER: usize = 4;

/// The figures of records an amount the user asked to be worked out may be made from
/// ([`unshown_amount`]): the first ones the run's results show, distinct.
const MAX_RECORDED_FIGURES: usize = 256;

/// An integer written another way — a sign, leading zeros, a zero or empty fraction, `_`
/// between digits, a leading `#`, another script's digits (`٩٧`, `９７`), a `0x`/`0o`/`0b`
/// prefix, an exponent (`9.7e1`) — as it is usually written (`97`); `None` for anything else.
/// Tools parse numbers leniently (Python's `int`, JavaScript's `Number`, `gh`'s `#N`).
fn plain_number(value: &str) -> Option<String> {
    let ascii: String = value
        .trim()
        .chars()
        .filter(|&c| c != '_')
        .map(|c| match c as u32 {
            0x0660..=0x0669 => char::from(b'0' + (c as u32 - 0x0660) as u8),
            0x06F0..=0x06F9 => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            0x0966..=0x096F => char::from(b'0' + (c as u32 - 0x0966) as u8),
            0xFF10..=0xFF19 => char::from(b'0' + (c as u32 - 0xFF10) as u8),
            _ => c,
        })
        .collect();
    let t = ascii.strip_prefix('#').unwrap_or(&ascii);
    let t = t.strip_prefix('+').unwrap_or(t);
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let radix = |prefix: &str, radix: u32| {
        body.get(..prefix.len())
            .filter(|given| given.eq_ignore_ascii_case(prefix))
            .and_then(|_| u128::from_str_radix(&body[prefix.len()..], radix).ok())
    };
    if let Some(n) = radix("0x", 16)
        .or_else(|| radix("0o", 8))
        .or_else(|| radix("0b", 2))
    {
        return Some(signed(negative, n.to_string()));
    }
    if body.contains(['e', 'E']) {
        let f: f64 = body.parse().ok()?;
        return (f.fract() == 0.0 && f.abs() < 1e15).then(|| signed(negative, format!("{f:.0}")));
    }
    let whole = match body.split_once('.') {
        Some((whole, fraction)) if fraction.bytes().all(|b| b == b'0') => whole,
        Some(_) => return None,
        None => body,
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || whole.len() > 30 {
        return None;
    }
    let trimmed = whole.trim_start_matches('0');
    Some(signed(
        negative,
        if trimmed.is_empty() { "0" } else { trimmed }.to_string(),
    ))
}

fn signed(negative: bool, digits: String) -> String {
    if negative && digits != "0" {
        format!("-{digits}")
    } else {
        digits
    }
}

/// A value a model may copy in another form than the data's: an e-mail address or a host
/// in another case (`Accountant@Evil-Tax.io` → `accountant@evil-tax.io`), and a long number
/// — an IBAN, a phone, card or account number — with its spaces, dashes, dots or brackets
/// changed (`DE89 3704-0044 …`, `+44 7911 123456` → `+447911123456`). The value is looked
/// for in lower case as a whole token, and, when it holds at least [`REFORMATTED_DIGITS`]
/// digits, by its digits among the texts' runs of digits ([`digit_runs`]).
struct Reformatted {
    lower: Option<String>,
    digits: Option<String>,
}

/// Fewest digits a value needs before its separators stop mattering: a phone number's, and
/// a six-digit code's (`731 904` copied as `731904`).
const REFORMATTED_DIGITS: usize = 6;

/// A text as [`Reformatted`] reads it: in lower case, and its runs of digits.
#[derive(Clone, Debug)]
struct ReformattedText {
    lower: String,
    runs: Vec<String>,
}

impl ReformattedText {
    fn of(text: &str) -> Self {
        Self {
            lower: text.to_lowercase(),
            runs: digit_runs(text),
        }
    }
}

/// The digits of each run of digits in `text` that at most two separators (space, `-`, `.`,
/// `/`, `(`, `)`, `+`) apart join into one number, when it has at least
/// [`REFORMATTED_DIGITS`]: `+44 (7911) 123-456` is `447911123456`.
fn digit_runs(text: &str) -> Vec<String> {
    // By bytes: digits and separators are ASCII, and every byte of any other character ends
    // a run as the character would. `each` is told every digit and every end of a run.
    fn walk(text: &str, mut each: impl FnMut(Option<u8>)) {
        let mut gap = 0usize;
        for b in text.bytes() {
            if b.is_ascii_digit() {
                each(Some(b));
                gap = 0;
            } else if matches!(b, b' ' | b'-' | b'.' | b'/' | b'(' | b')' | b'+') && gap < 2 {
                gap += 1;
            } else {
                each(None);
                gap = 0;
            }
        }
        each(None);
    }
    // Most texts have no run long enough: their runs are counted first, without building
    // any (every result a run reads is asked).
    let (mut longest, mut length) = (0usize, 0usize);
    walk(text, |digit| match digit {
        Some(_) => length += 1,
        None => {
            longest = longest.max(length);
            length = 0;
        }
    });
    if longest < REFORMATTED_DIGITS {
        return Vec::new();
    }
    let (mut runs, mut run) = (Vec::new(), String::new());
    walk(text, |digit| match digit {
        Some(d) => run.push(char::from(d)),
        None if run.len() >= REFORMATTED_DIGITS => runs.push(std::mem::take(&mut run)),
        None => run.clear(),
    });
    runs
}

/// Whether `needle` occurs in `text` as a whole token: no letter or digit right before it, and
/// none right after it (nor a `.` or `-` that goes on with one: `labs.co` is not in
/// `labs.com`).
fn holds_as_token(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + needle.len()..].chars();
        let next = after.next();
        let goes_on = match next {
            Some(c) if c.is_alphanumeric() => true,
            Some('.' | '-' | '_') => after.next().is_some_and(char::is_alphanumeric),
            _ => false,
        };
        !before.is_some_and(char::is_alphanumeric) && !goes_on
    })
}

impl Reformatted {
    fn of(value: &str) -> Option<Self> {
        let value = value.trim();
        // An address or a link as the atoms read them (a file name such as `notes/a.md` is
        // neither), and only when cheap tests say it may be one.
        let hostish = super::atoms::may_reach(value)
            && super::atoms::atoms(value).iter().any(|(kind, atom)| {
                matches!(
                    kind,
                    super::atoms::AtomKind::Link | super::atoms::AtomKind::Email
                ) && atom.len() * 2 >= value.len()
            });
        // A phrase is a phrase in any case: "Friday is fine." copied from "say friday is
        // fine" in an e-mail (a sixteenth outsider round's).
        let phrase = value.split_whitespace().count() >= 3
            && value.chars().count() >= 12
            && value.chars().any(char::is_alphabetic);
        let lower = (hostish && value.chars().count() >= MIN_TAINT_CHARS)
            .then(|| value.to_lowercase())
            .filter(|l| !l.contains(char::is_whitespace))
            .or_else(|| phrase.then(|| value.to_lowercase()));
        let digits: String = value.chars().filter(char::is_ascii_digit).collect();
        let digits = (digits.len() >= REFORMATTED_DIGITS).then_some(digits);
        (lower.is_some() || digits.is_some()).then_some(Self { lower, digits })
    }

    /// Whether `text` holds the value: its digits inside one of the text's runs (`whole`:
    /// as the whole run), or its lower case as a whole token.
    fn found_in(&self, text: &ReformattedText, whole: bool) -> bool {
        self.lower
            .as_deref()
            .is_some_and(|l| holds_as_token(&text.lower, l))
            || self.digits.as_deref().is_some_and(|d| {
                text.runs
                    .iter()
                    .any(|r| if whole { r == d } else { r.contains(d) })
            })
    }
}

/// A value as it is looked for in untrusted text: as given, in the text as written or with its
/// escapes decoded; and, when it has whitespace, folded (see [`folded`]) in the text as it reads.
/// Each search is prepared once, when first run, and run over every text: most values are
/// found in no text the postings offer, and then none is prepared.
struct Needle<'v> {
    exact: &'v str,
    find_exact: std::cell::OnceCell<memchr::memmem::Finder<'v>>,
    spaced: std::cell::OnceCell<Option<Spaced>>,
}

/// The folded search of a value with whitespace in it.
struct Spaced {
    text: String,
    folded: memchr::memmem::Finder<'static>,
    /// Its longest run without whitespace, which a text must hold as written or decoded
    /// before it is worth folding: folding changes nothing between the spaces.
    longest_word: memchr::memmem::Finder<'static>,
}

impl<'v> Needle<'v> {
    fn of(exact: &'v str) -> Self {
        Needle {
            exact,
            find_exact: std::cell::OnceCell::new(),
            spaced: std::cell::OnceCell::new(),
        }
    }

    /// The search for the value as given.
    fn finder(&self) -> &memchr::memmem::Finder<'v> {
        self.find_exact
            .get_or_init(|| memchr::memmem::Finder::new(self.exact.as_bytes()))
    }

    /// The folded search, for a value with whitespace.
    fn spaced(&self) -> Option<&Spaced> {
        self.spaced
            .get_or_init(|| {
                let owned = |s: &str| memchr::memmem::Finder::new(s.as_bytes()).into_owned();
                let exact = self.exact;
                // Folded shorter than a value can be to count, it is not looked for folded.
                exact
                    .contains(char::is_whitespace)
                    .then(|| folded(exact).unwrap_or_else(|| exact.to_string()))
                    .filter(|f| f.chars().count() >= MIN_TAINT_CHARS)
                    .map(|folded| {
                        let word = folded
                            .split(' ')
                            .max_by_key(|w| w.len())
                            .unwrap_or_default();
                        Spaced {
                            folded: owned(&folded),
                            longest_word: owned(word),
                            text: folded,
                        }
                    })
            })
            .as_ref()
    }
}

/// An untrusted text with its whitespace folded (see [`folded`]), where that changes it: as
/// written, and with its escapes decoded. Both, since a backslash need not be an escape (a
/// Windows path) and a wrapped value may hold one.
#[derive(Clone, Debug, Default)]
struct Folded {
    written: Option<String>,
    decoded: Option<String>,
}

impl Folded {
    fn of(written: &str, decoded: Option<&str>) -> Self {
        Folded {
            written: folded(written),
            decoded: decoded.and_then(folded),
        }
    }
}

/// `text` with every run of whitespace (line breaks, tabs, no-break spaces included) as one
/// space, when it has a run that is not already one space; `None` otherwise. Serializers wrap
/// long values (PyYAML folds a plain scalar across lines and indents the rest), mail and
/// markdown are soft-wrapped, HTML collapses whitespace as it renders: what the model reads
/// and copies is the value with its spacing changed, so it is looked for folded in a text
/// folded alike.
fn folded(text: &str) -> Option<String> {
    if !needs_folding(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    Some(out)
}

/// Whether `text` has whitespace other than single spaces. Read by byte, since it runs over
/// every untrusted text: only the lead bytes of Unicode's non-ASCII whitespace (U+0085, U+00A0,
/// U+1680, U+2000..U+205F, U+3000) need the character decoded.
fn needs_folding(text: &str) -> bool {
    // Printable ASCII (most texts) folds only where two spaces meet: a pass the compiler
    // vectorizes (no early exit) and a search for spaces, instead of the walk below.
    let bytes = text.as_bytes();
    if !bytes
        .iter()
        .fold(false, |odd, &b| odd | !(0x20..0x80).contains(&b))
    {
        return memchr::memchr_iter(b' ', bytes).any(|at| bytes.get(at + 1) == Some(&b' '));
    }
    let mut after_space = false;
    for (at, &b) in text.as_bytes().iter().enumerate() {
        let space = match b {
            b' ' if after_space => return true,
            b' ' => true,
            b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => return true,
            0xC2 | 0xE1 | 0xE2 | 0xE3 => {
                if text[at..].chars().next().is_some_and(char::is_whitespace) {
                    return true;
                }
                false
            }
            _ => false,
        };
        after_space = space;
    }
    false
}

/// `text` with the escapes its serializer wrote decoded, when it has any; `None` otherwise. A
/// value escaped in a result is what the model reads unescaped, so it is looked for decoded
/// too. Decoding runs over the whole text, not only inside strings: it is for finding values,
/// and a stray backslash only adds a text to look in.
///
/// - JSON's backslash escapes, and those the serializers that write more of them use: `\/`,
///   `\u0026`, `\u00E9`, surrogate pairs.
/// - YAML 1.2's double-quoted escapes (§5.7): `\0 \a \v \e \N \_ \L \P`, an escaped space or
///   tab, `\xXX`, `\UXXXXXXXX`; and its escaped line break (§7.3.1): a `\` that ends a line
///   joins it to the next with nothing between, the next line's leading whitespace dropped
///   (an empty line in between stays a line feed). PyYAML breaks a long double-quoted value
///   so, at a space it then writes as `\ `: `"GB29 NWBK\⏎    \ 6016"` is `GB29 NWBK 6016`.
///   Only a backslash and a line break as written join; an escaped pair (`\\` then `\n`, a
///   shell continuation inside a JSON string) decodes to the backslash and the break.
/// - YAML's single-quoted escape, `''` for `'`, between letters or digits (`'O''Brien'`) and
///   outside double quotes, so an empty string in code (`x = ''`) and a JSON or double-quoted
///   YAML string (where `''` is two quotes) stay as written.
///
/// YAML's folding of unescaped line breaks (in double-quoted, single-quoted and plain scalars
/// a break and the next line's indent read as one space) is not undone here: [`folded`] looks
/// for a value with whitespace in the text with every run of whitespace as one space.
///
/// One pass, each character read once; the only lookahead is the few hex digits of an escape.
/// The most layers of escaping read off one text.
const ESCAPE_LAYERS: usize = 3;

/// `text` with its escapes decoded ([`unescaped`]), layer after layer, as serializers nest
/// (a YAML document's escaped line breaks inside a JSON string, which keel makes of a tool's
/// text that should have been data): every decoded form, one per line, so a value is found in
/// whichever layer holds it whole. `None` when there is nothing to decode.
fn decoded_layers(text: &str) -> Option<String> {
    // A text that is one JSON string is read as JSON reads it, its quotes gone, so that what
    // it holds is read as written (its own quotes pair up as they did).
    let trimmed = text.trim();
    let whole_string = (trimmed.len() >= 2 && trimmed.starts_with('"') && trimmed.ends_with('"'))
        .then(|| serde_json::from_str::<String>(trimmed).ok())
        .flatten();
    let mut layers: Vec<String> = whole_string
        .or_else(|| unescaped(text))
        .into_iter()
        .collect();
    while !layers.is_empty() && layers.len() < ESCAPE_LAYERS {
        match layers
            .last()
            .and_then(|last| unescaped(last).filter(|next| next != last))
        {
            Some(next) => layers.push(next),
            None => break,
        }
    }
    // And past the tricks that hide an address from a search (`super::disguise`).
    let last = layers.last().map_or(text, String::as_str);
    if let Some(plain) = super::disguise::undisguised(last) {
        layers.push(plain);
    }
    (!layers.is_empty()).then(|| layers.join("\n"))
}

fn unescaped(text: &str) -> Option<String> {
    // One scan for either: a backslash, or `''` between what may be word characters (any
    // non-ASCII byte may be part of one; the decoding below reads the characters).
    let bytes = text.as_bytes();
    let word = |at: Option<usize>| {
        at.and_then(|i| bytes.get(i))
            .is_some_and(|b| b.is_ascii_alphanumeric() || !b.is_ascii())
    };
    let escapes = memchr::memchr2_iter(b'\\', b'\'', bytes).any(|at| {
        bytes[at] == b'\\'
            || (bytes.get(at + 1) == Some(&b'\'') && word(at.checked_sub(1)) && word(Some(at + 2)))
    });
    if !escapes {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // `n` hex digits, or the digits it took (fewer than `n`) to give back.
    let hex =
        |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| -> Result<u32, String> {
            let digits: String = (0..n)
                .map_while(|_| chars.next_if(char::is_ascii_hexdigit))
                .collect();
            match u32::from_str_radix(&digits, 16) {
                Ok(code) if digits.len() == n => Ok(code),
                _ => Err(digits),
            }
        };
    // Inside a double-quoted string as written, where `''` is two quotes.
    let mut in_double = false;
    while let Some(c) = chars.next() {
        if c == '"' {
            in_double = !in_double;
        }
        if c == '\'' && !in_double {
            // `''` between word characters: the second quote is the escape's.
            let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            if word(out.chars().next_back()) && chars.peek() == Some(&'\'') {
                let mut after = chars.clone();
                after.next();
                if word(after.peek().copied()) {
                    chars = after;
                }
            }
            out.push(c);
            continue;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t' | '\t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('0') => out.push('\0'),
            Some('a') => out.push('\u{7}'),
            Some('v') => out.push('\u{b}'),
            Some('e') => out.push('\u{1b}'),
            Some('N') => out.push('\u{85}'),
            Some('_') => out.push('\u{a0}'),
            Some('L') => out.push('\u{2028}'),
            Some('P') => out.push('\u{2029}'),
            Some(c @ ('/' | '"' | '\\' | '\'' | ' ')) => out.push(c),
            Some(brk @ ('\n' | '\r')) => {
                // An escaped line break: the break and the next line's indent are no content.
                if brk == '\r' {
                    chars.next_if_eq(&'\n');
                }
                loop {
                    while chars.next_if(|c| matches!(c, ' ' | '\t')).is_some() {}
                    match chars.next_if(|c| matches!(c, '\n' | '\r')) {
                        Some(empty) => {
                            if empty == '\r' {
                                chars.next_if_eq(&'\n');
                            }
                            out.push('\n');
                        }
                        None => break,
                    }
                }
            }
            Some(kind @ ('x' | 'u' | 'U')) => {
                let n = match kind {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                match hex(&mut chars, n) {
                    Ok(high @ 0xD800..=0xDBFF) if kind == 'u' => {
                        let mut pair = chars.clone();
                        let low = (pair.next() == Some('\\') && pair.next() == Some('u'))
                            .then(|| hex(&mut pair, 4).ok())
                            .flatten()
                            .filter(|low| (0xDC00..=0xDFFF).contains(low));
                        match low {
                            Some(low) => {
                                chars = pair;
                                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                out.extend(char::from_u32(code));
                            }
                            None => out.push('\u{fffd}'),
                        }
                    }
                    Ok(code) => out.push(char::from_u32(code).unwrap_or('\u{fffd}')),
                    Err(taken) => {
                        out.push('\\');
                        out.push(kind);
                        out.push_str(&taken);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// The schema keyword by which a tool exempts an argument from provenance (see the module
/// documentation).
pub const EXEMPT_KEYWORD: &str = "x-keel-provenance";

/// `schema[key]`, found in a small object by comparing keys rather than hashing: a schema
/// node has a handful of keywords, and every argument of every call is read against them
/// (serde_json's map hashes each key with SipHash).
fn schema_field<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    let map = schema.as_object()?;
    if map.len() <= 8 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// Whether the schema fixes `value`: a `const` equal to it, or an `enum` of that one value.
fn fixed_by_schema(schema: Option<&Value>, value: &Value) -> bool {
    let Some(schema) = schema else {
        return false;
    };
    let single_enum = schema_field(schema, "enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.len() == 1 && e[0] == *value);
    single_enum || schema_field(schema, "const") == Some(value)
}

/// One value to attribute: where it sits in the arguments, the key it is given for (an array's
/// elements, their array's), the text looked for, and the value itself (`None` for an object
/// key, which is never a record's field).
struct Leaf<'a> {
    /// Where the value stands (`path`, `paths.0`, `options.target`): a top-level key's is
    /// the key itself, borrowed.
    path: Cow<'a, str>,
    key: &'a str,
    needle: Cow<'a, str>,
    value: Option<&'a Value>,
    /// The schema offers this value as one of several choices (an `enum`).
    choice: bool,
}

/// The leaf values of the arguments, with dot-paths. Containers are compared leaf by leaf, so a
/// tainted value cannot hide inside an object. `schema` is the schema of `v`, when known.
fn leaves<'a>(
    v: &'a Value,
    schema: Option<&Value>,
    dot: Cow<'a, str>,
    key: &'a str,
    out: &mut Vec<Leaf<'a>>,
) {
    if schema
        .and_then(|s| schema_field(s, EXEMPT_KEYWORD))
        .and_then(Value::as_str)
        == Some("exempt")
    {
        return;
    }
    match v {
        Value::Object(map) => {
            let properties = schema.and_then(|s| schema_field(s, "properties"));
            for (k, child) in map {
                let path: Cow<'a, str> = if dot.is_empty() {
                    Cow::Borrowed(k)
                } else {
                    Cow::Owned(format!("{dot}.{k}"))
                };
                let declared = properties.and_then(|p| schema_field(p, k));
                // A nested key can carry a value too (`{"grants": {"<attacker id>": "admin"}}`);
                // top-level keys and keys the schema declares are the tool's own names.
                if !dot.is_empty() && declared.is_none() {
                    out.push(Leaf {
                        path: format!("{path} (key)").into(),
                        key: k,
                        needle: Cow::Borrowed(k),
                        value: None,
                        choice: false,
                    });
                }
                leaves(child, declared, path, k, out);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| schema_field(s, "items"));
            for (i, child) in items.iter().enumerate() {
                leaves(child, item_schema, format!("{dot}.{i}").into(), key, out);
            }
        }
        other => {
            if fixed_by_schema(schema, other) {
                return;
            }
            if let Some(n) = needle(other) {
                let choice = schema
                    .and_then(|s| schema_field(s, "enum"))
                    .and_then(Value::as_array)
                    .is_some_and(|choices| choices.contains(other));
                out.push(Leaf {
                    path: dot,
                    key,
                    needle: n,
                    value: Some(other),
                    choice,
                });
            }
        }
    }
}

/// What a tainted side-effecting call gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnTainted {
    #[default]
    AskUser,
    Deny,
}

/// How the provenance checker is set: its `config` (`on_tainted`, `named_records`).
#[derive(Clone, Copy)]
pub struct ProvenanceSettings<'a> {
    pub on_tainted: OnTainted,
    /// Which tools declare structured output, whose results may hold records the user names
    /// ([`super::records`]); `None` when named records are off.
    pub structured_tools: Option<&'a dyn Fn(&str) -> bool>,
    /// The kinds of action the tool takes ([`super::authority::tool_kinds`]): the user's words
    /// must ask for one of them. Empty: no such check.
    pub action_kinds: &'a [super::authority::ActionKind],
    /// Whether a side effect no action kind names needs the user to have asked for some
    /// change ([`super::authority::asks_for_change`]): off for keel's own tools, whose whole
    /// effect is in values the other checks judge (a path, a file's content, a command).
    pub change_request: bool,
    /// What the tool's description says it does: what a kind's action acts on, and what access
    /// it grants, where its name does not say ([`super::authority::unnamed_object`]).
    pub description: &'a str,
    /// Every tool on offer: which of them the user's words ask for
    /// ([`super::tool_choice`]). Empty when unknown (`keel check` is told of no tools).
    pub offered: &'a [super::tool_choice::OfferedTool],
}

impl ProvenanceSettings<'_> {
    /// Every value from data asks (or denies): the rule without named records.
    pub fn strict(on_tainted: OnTainted) -> Self {
        Self {
            on_tainted,
            structured_tools: None,
            action_kinds: &[],
            change_request: true,
            description: "",
            offered: &[],
        }
    }
}

impl std::fmt::Debug for ProvenanceSettings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProvenanceSettings")
            .field("on_tainted", &self.on_tainted)
            .field("named_records", &self.structured_tools.is_some())
            .field("action_kinds", &self.action_kinds)
            .finish()
    }
}

/// What one decision reads for named records, at most once each: the user's words, and each
/// structured result it parses.
#[derive(Default)]
struct RecordReads {
    terms: std::cell::OnceCell<super::records::UserTerms>,
    documents: std::cell::RefCell<HashMap<usize, std::rc::Rc<super::records::Document>>>,
}

impl ProvenanceIndex<'_> {
    /// Whether untrusted text `at` holds the needle: as written or decoded, or, for a value
    /// with whitespace, folded in the text as it reads. (A value without whitespace is in the
    /// folded text exactly when it is in the text folding started from.)
    fn untrusted_holds(&self, at: usize, needle: &Needle<'_>) -> bool {
        let written = self.untrusted[at].1.as_ref();
        let decoded = self.decoded[at].as_deref();
        let found = |f: &memchr::memmem::Finder<'_>, text: &str| f.find(text.as_bytes()).is_some();
        if found(needle.finder(), written) || decoded.is_some_and(|d| found(needle.finder(), d)) {
            return true;
        }
        let Some(spaced) = needle.spaced() else {
            return false;
        };
        let has_word = |t: &str| found(&spaced.longest_word, t);
        (has_word(written) || decoded.is_some_and(has_word)) && self.folded_holds(at, spaced)
    }

    /// The first untrusted text that holds the needle ([`Self::untrusted_holds`]), found by
    /// searches over the joined texts: the first holding it exactly, unless an earlier one
    /// holds it folded (only a text holding the needle's longest word may).
    fn first_holding_joined(&self, j: &JoinedTexts, needle: &Needle<'_>) -> Option<usize> {
        let any = |_: &str, _: usize| true;
        let exact = [
            j.written.first(needle.finder(), any),
            j.decoded
                .as_ref()
                .and_then(|d| d.first(needle.finder(), any)),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(spaced) = needle.spaced() else {
            return exact;
        };
        if !Joined::searchable(spaced.longest_word.needle()) {
            let before = exact.unwrap_or(self.untrusted.len());
            return (0..before)
                .find(|&at| self.untrusted_holds(at, needle))
                .or(exact);
        }
        let before = exact.unwrap_or(self.untrusted.len());
        let mut worth_folding = j.written.holding(&spaced.longest_word, before);
        if let Some(d) = &j.decoded {
            worth_folding.extend(d.holding(&spaced.longest_word, before));
        }
        worth_folding.sort_unstable();
        worth_folding.dedup();
        worth_folding
            .into_iter()
            .find(|&at| self.folded_holds(at, spaced))
            .or(exact)
    }

    /// Whether untrusted text `at`, folded, holds the spaced needle.
    fn folded_holds(&self, at: usize, spaced: &Spaced) -> bool {
        let written = self.untrusted[at].1.as_ref();
        let decoded = self.decoded[at].as_deref();
        let found = |f: &memchr::memmem::Finder<'_>, text: &str| f.find(text.as_bytes()).is_some();
        let folded = self.folded[at].get_or_init(|| Folded::of(written, decoded));
        found(&spaced.folded, folded.written.as_deref().unwrap_or(written))
            || decoded
                .is_some_and(|d| found(&spaced.folded, folded.decoded.as_deref().unwrap_or(d)))
    }

    /// The first answer of `f` over the untrusted texts that may hold the needle, in order.
    fn first_untrusted<T>(
        &self,
        needle: &Needle<'_>,
        mut f: impl FnMut(usize) -> Option<T>,
    ) -> Option<T> {
        let grams = self.grams.as_ref().map(|(_, t)| t);
        let exact = grams.and_then(|t| t.candidates(needle.exact));
        let folded = match needle.spaced() {
            Some(spaced) => grams.and_then(|t| t.candidates(&spaced.text)),
            None => exact,
        };
        let (Some(exact), Some(folded)) = (exact, folded) else {
            return (0..self.untrusted.len()).find_map(f);
        };
        if std::ptr::eq(exact, folded) {
            return exact.iter().find_map(|&i| f(i as usize));
        }
        let mut both: Vec<u32> = exact.iter().chain(folded).copied().collect();
        both.sort_unstable();
        both.dedup();
        both.into_iter().find_map(|i| f(i as usize))
    }

    /// The figures records hold under `key` in the results of tools that declare structured
    /// output ([`super::records::Document::figures`]): a line an injection splices into a
    /// result is no record's field (the document then has a key twice, or is not one).
    fn record_figures(
        &self,
        key: &str,
        structured: Option<&dyn Fn(&str) -> bool>,
        reads: &RecordReads,
    ) -> Vec<f64> {
        let Some(structured) = structured else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (at, (source, text)) in self.untrusted.iter().enumerate() {
            let Source::ToolResult { tool, .. } = source else {
                continue;
            };
            if !structured(tool) {
                continue;
            }
            let document = reads
                .documents
                .borrow_mut()
                .entry(at)
                .or_insert_with(|| std::rc::Rc::new(super::records::Document::parse(text)))
                .clone();
            out.extend(document.figures(key));
        }
        out
    }

    /// Where `value`, given for the argument `key`, is that field of a record the user named
    /// in the result of a tool that declares structured output.
    fn named_field(
        &self,
        leaf: (&str, &str, &Value),
        structured: &dyn Fn(&str) -> bool,
        reads: &RecordReads,
        by_description: bool,
    ) -> Option<String> {
        let (exact, key, value) = leaf;
        let needle = Needle::of(exact);
        let holds = |at: usize| {
            let (source, text) = &self.untrusted[at];
            let Source::ToolResult { tool, .. } = source else {
                return None;
            };
            if !structured(tool) || !self.untrusted_holds(at, &needle) {
                return None;
            }
            let document = reads
                .documents
                .borrow_mut()
                .entry(at)
                .or_insert_with(|| std::rc::Rc::new(super::records::Document::parse(text)))
                .clone();
            let terms = reads
                .terms
                .get_or_init(|| super::records::UserTerms::of(&self.user));
            let super::records::Named {
                how,
                name,
                identifier,
                described,
            } = document.named_field(key, value, terms, by_description)?;
            // The records another result holds, where it is a structured tool's and reads as
            // records at all; `None` for any other text (a message, a page, a listing keel
            // cannot read as records — CSV, JSON lines, a map by id).
            let records_of = |other: usize| {
                let (source, text) = &self.untrusted[other];
                let structured_result =
                    matches!(source, Source::ToolResult { tool, .. } if structured(tool));
                structured_result
                    .then(|| {
                        reads
                            .documents
                            .borrow_mut()
                            .entry(other)
                            .or_insert_with(|| {
                                std::rc::Rc::new(super::records::Document::parse(text))
                            })
                            .clone()
                    })
                    .filter(|document| document.has_records())
            };
            // Words that describe the record also describe a record of another result (an id
            // under any key), or are in another text that does not hold the value: they point
            // at both (a decoy found by another lookup, the meant record in a listing keel
            // cannot read as records: an outsider's rounds 28 to 30).
            if described {
                let elsewhere =
                    (0..self.untrusted.len())
                        .filter(|&other| other != at)
                        .any(|other| match records_of(other) {
                            Some(document) => document.describes_another(value, terms),
                            None => {
                                !self.untrusted_holds(other, &needle)
                                    && super::records::holds_users_words(
                                        &self.untrusted[other].1,
                                        terms,
                                    )
                            }
                        });
                if elsewhere {
                    return None;
                }
            }
            // An identifier the user typed that another result holds where the value is not
            // (the real invoice from the address the user typed, found by another lookup):
            // it points at both (an outsider's round 30).
            if let Some(identifier) = identifier {
                let typed = Needle::of(&identifier);
                let conflicting = |other: usize| {
                    (other != at
                        && self.untrusted_holds(other, &typed)
                        && match records_of(other) {
                            Some(document) => document.holds_elsewhere(&identifier, value),
                            None => !self.untrusted_holds(other, &needle),
                        })
                    .then_some(())
                };
                if self.first_untrusted(&typed, conflicting).is_some() {
                    return None;
                }
            }
            // A name that another result gives to someone with another value names nobody for
            // sure: the real contact found by one search, a stranger's money request or invite
            // under the same name found by another (a fourteenth outsider round's); so does
            // a text with no records that holds the name and not the value (round 30).
            if let Some(name) = name {
                let name_needle = Needle::of(&name);
                let conflicting = |other: usize| {
                    if other == at || !self.untrusted_holds(other, &name_needle) {
                        return None;
                    }
                    match records_of(other) {
                        Some(document) => document.names_another_value(&name, value),
                        None => !self.untrusted_holds(other, &needle),
                    }
                    .then_some(())
                };
                if self.first_untrusted(&name_needle, conflicting).is_some() {
                    return None;
                }
            }
            Some(format!("{how}, in {}", source.describe()))
        };
        self.first_untrusted(&needle, holds)
    }
}

/// A call that writes a file that will run: each line of its multi-line values that came from
/// data and not from the user ([`super::scripts`]). Named records do not apply: a record's
/// field is a value to use, never a line of a program.
fn tainted_lines(tool: &str, values: &[Leaf], index: &ProvenanceIndex<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for leaf in values {
        for (n, line) in super::scripts::lines_to_attribute(&leaf.needle) {
            if let Attribution::Tainted { source } = attribute(index, &line) {
                out.push(format!(
                    "line {n} of argument \"{}\" of {tool}, a file that will run as code, comes from {source}, not from the user",
                    leaf.path
                ));
                break;
            }
        }
    }
    out
}

/// The atoms of free-text values ([`super::atoms`]) that came from data and not from the
/// user: a message the model composed is found nowhere whole, but the link or account number
/// an injection put in it is. A leaf already judged whole (tainted, or a named record's field)
/// is not looked into.
fn tainted_atoms(
    tool: &str,
    values: &[Leaf],
    whole: &HashSet<&str>,
    index: &ProvenanceIndex<'_>,
    keels_own: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for leaf in values {
        if whole.contains(leaf.path.as_ref()) || !matches!(leaf.value, Some(Value::String(_))) {
            continue;
        }
        // The text as written, and read past the tricks that hide an address from a search
        // (`evil[.]net`, `mallory at evil dot net`, fullwidth digits): a person reading the
        // message follows either.
        let plain = super::disguise::undisguised(&leaf.needle);
        let written = super::atoms::atoms(&leaf.needle);
        let undisguised = plain
            .as_deref()
            .map(super::atoms::atoms)
            .unwrap_or_default();
        for (kind, atom) in written.into_iter().chain(undisguised) {
            // Written differently from the data: e-mail addresses and hosts ignore case, an
            // IBAN is printed in groups of four, and a link may end in a `/`.
            let variants = [
                Some(atom.clone()),
                Some(atom.to_lowercase()).filter(|l| *l != atom),
                (kind == super::atoms::AtomKind::Iban)
                    .then(|| super::atoms::grouped(&atom))
                    .filter(|g| *g != atom),
                (kind == super::atoms::AtomKind::Link)
                    .then(|| atom.trim_end_matches('/').to_string())
                    .filter(|t| *t != atom && !t.is_empty()),
            ];
            let attributions: Vec<Attribution> = variants
                .iter()
                .flatten()
                .map(|v| attribute(index, v))
                .collect();
            let found = attributions.iter().find_map(|a| match a {
                Attribution::Tainted { source } => Some(source),
                _ => None,
            });
            if let Some(source) = found {
                out.push(format!(
                    "argument \"{}\" of {tool} carries {} \"{atom}\", which you never wrote; it came from {source}",
                    leaf.path,
                    kind.describe()
                ));
                break;
            }
            // Shown nowhere: not in your words, not in any result as written. The model
            // decoded, assembled or made it up — a base64 link, an address spelled out in
            // words, a number given as a sum — and an address nobody showed is the one an
            // injection wants used (a third outsider round: 93 of 93 such calls ran).
            if attributions
                .iter()
                .all(|a| matches!(a, Attribution::Unattributed))
                && !(kind == super::atoms::AtomKind::Link
                    && (index.extends_users_link(&atom) || super::atoms::names_a_file(&atom)))
                // A path the model chose is judged by the path checks.
                && !super::paths::path_like(leaf.key)
                // keel's own tools name files in their commands (`echo $$ > shell.pid`):
                // there only a link with its scheme or an address reaches anyone.
                && (!keels_own
                    || kind == super::atoms::AtomKind::Email
                    || atom.contains("://"))
            {
                out.push(format!(
                    "argument \"{}\" of {tool} carries {} \"{atom}\", which neither you nor any result has shown as written: it was decoded, assembled or made up",
                    leaf.path,
                    kind.describe()
                ));
                break;
            }
        }
    }
    out
}

/// Whether a value is, whole, an address that reaches someone or somewhere: an e-mail
/// address, a link or host, an account number or a handle — under whatever key it is given.
fn reaches_someone(value: &str) -> bool {
    let value = value.trim();
    !value.contains(char::is_whitespace)
        && super::atoms::atoms(value).iter().any(|(kind, atom)| {
            *kind != super::atoms::AtomKind::Identifier && atom.len() * 4 >= value.len() * 3
        })
}

/// Where the user's words count what an argument's key names ("scale api to 4 replicas",
/// "book 3 nights") and never `value`: the count they asked for, as they wrote it. A call
/// that sets `"replicas": 0` after "4 replicas" stops the service the user asked to scale (a
/// thirteenth outsider round's); 0 and 1 pass the other number checks as defaults.
fn counted_otherwise(value: f64, key: &str, counts: &[Count]) -> Option<String> {
    let key_words: Vec<String> = super::classify::words(key)
        .into_iter()
        .filter(|w| w.len() > 2)
        .collect();
    if key_words.is_empty() {
        return None;
    }
    let asked: Vec<&Count> = counts
        .iter()
        .filter(|c| {
            key_words.iter().any(|k| {
                super::kinds::is_form_of(&c.noun, k) || super::kinds::is_form_of(k, &c.noun)
            })
        })
        .collect();
    if asked.is_empty() || asked.iter().any(|c| c.number == value) {
        return None;
    }
    Some(
        asked
            .into_iter()
            .map(|c| format!("\"{}\"", c.said))
            .collect::<Vec<_>>()
            .join(" or "),
    )
}

/// A number the user wrote before a noun: "4 replicas", "3 nights".
#[derive(Clone, Debug)]
struct Count {
    number: f64,
    /// The noun, in lower case.
    noun: String,
    /// The two words as written.
    said: String,
}

/// The counts the user's words give ([`Count`]), read once per index.
fn counts_in(users: &[Cow<'_, str>]) -> Vec<Count> {
    let mut out = Vec::new();
    for text in users {
        // Words as written between spaces: the figures of `INV-2207` count nothing.
        let words: Vec<&str> = text
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| c.is_ascii_punctuation() && c != '.'))
            .map(|w| w.trim_end_matches('.'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            if let Ok(number) = pair[0].parse::<f64>() {
                out.push(Count {
                    number,
                    noun: pair[1].to_lowercase(),
                    said: format!("{} {}", pair[0], pair[1]),
                });
            }
        }
    }
    out
}

/// Whether the user's words give `value` only as where something happens: "remove carl from
/// the design channel" names the channel `design` as a place, not as what to act on.
fn said_as_a_place(value: &str, users: &[Cow<'_, str>]) -> bool {
    let value = value.to_lowercase();
    let mut found = false;
    for text in users {
        let lower = text.to_lowercase();
        for (at, _) in lower.match_indices(value.as_str()) {
            found = true;
            let before = super::classify::words(&lower[..at]);
            // (As the user's words place a thing, and "the history of #billing".)
            let placed = before
                .iter()
                .rev()
                .take(3)
                .any(|w| super::authority::LOCATING.contains(&w.as_str()) || w == "of");
            if !placed {
                return false;
            }
        }
    }
    found
}

/// Words of a tool's name for a person in a group.
/// (A user or a contact is an account, which removing someone from a group leaves: a
/// fifteenth outsider round deleted the account after "remove Priya from the group".)
const PERSON_NOUNS: &[&str] = &[
    "member",
    "members",
    "collaborator",
    "collaborators",
    "follower",
    "followers",
    "guest",
    "guests",
    "participant",
    "participants",
    "attendee",
    "attendees",
    "reviewer",
    "reviewers",
    "subscriber",
    "subscribers",
];

/// The keys under which a tool that sends takes the message's text.
const MESSAGE_KEYS: &[&str] = &[
    "body", "text", "message", "content", "note", "comment", "reply", "msg",
];

/// The keys under which keel's own file tools take the text they write or replace.
const FILE_TEXT_KEYS: &[&str] = &[
    "content",
    "text",
    "old",
    "new",
    "old_string",
    "new_string",
    "old_text",
    "new_text",
];

/// Whether `tool` makes a new thing (`create_deploy_key`, `add_member`, `share_file`): a
/// permission it withholds narrows what it makes. A call that changes a thing's settings
/// (`update_folder_settings {"public": false}`) takes away what others had, which a
/// fourteenth outsider round did to a shared folder.
fn makes_a_thing(tool: &str) -> bool {
    super::authority::name_words(tool)
        .first()
        .is_some_and(|verb| {
            matches!(
                verb.as_str(),
                "create"
                    | "add"
                    | "new"
                    | "generate"
                    | "invite"
                    | "share"
                    | "issue"
                    | "upload"
                    | "make"
                    | "register"
                    | "provision"
            )
        })
}

/// Whether a flag named `key`, turned off, only withholds from others a permission to the
/// thing: `allow_write`, `can_edit`, `allow_download`, `public`. Off, it grants nobody
/// anything, so nobody's words need to choose it ("add the read-only deploy key" sends
/// `"allow_write": false`). Only those permissions: a flag that allows a safeguard
/// (`allow_2sv`, `allow_password_reset`, `allow_remote_wipe`) turned off removes it, which a
/// fourteenth outsider round did beside the user's own access changes.
fn withholds_permission(key: &str) -> bool {
    /// What others may do to a thing, or who may: what a flag of that name lets in.
    const PERMISSIONS: &[&str] = &[
        "write",
        "writes",
        "writing",
        "edit",
        "edits",
        "editing",
        "download",
        "downloads",
        "downloading",
        "comment",
        "comments",
        "commenting",
        "share",
        "sharing",
        "reshare",
        "resharing",
        "invite",
        "invites",
        "fork",
        "forks",
        "forking",
        "copy",
        "copying",
        "print",
        "printing",
        "guest",
        "guests",
        "anonymous",
        "external",
        "public",
    ];
    let words: Vec<String> = super::classify::words(key);
    match words.as_slice() {
        [one] => matches!(
            one.as_str(),
            "public" | "writable" | "editable" | "downloadable" | "shareable"
        ),
        [first, rest @ ..] => {
            matches!(first.as_str(), "allow" | "allows" | "can" | "permit")
                && rest.iter().all(|w| PERMISSIONS.contains(&w.as_str()))
        }
        [] => false,
    }
}

/// The provenance checker.
pub fn check_provenance(
    effect: Effect,
    tool: &str,
    args: &Value,
    schema: Option<&Value>,
    index: &ProvenanceIndex<'_>,
    settings: ProvenanceSettings<'_>,
) -> SafetyCheckResult {
    if effect == Effect::ReadOnly {
        return SafetyCheckResult::allow();
    }
    // What the arguments name outright adds to the tool's kinds: a `DELETE` deletes, and a
    // call that turns a safeguard off changes access.
    let with_arguments;
    // (keel's own tools name their operations — `computer_use {"op": "close"}` — and are
    // judged by their own gates.)
    let named = if settings.change_request {
        super::arguments::argument_kinds(tool, args)
    } else {
        Vec::new()
    };
    // What the arguments add is another action of the call's, each needing the user's word:
    // `update_mail_settings {"save_sent_copies": false}` deletes what would be kept, whatever
    // a reply the user asked for makes of the name's own kind (a third outsider round hid its
    // forwarding that way).
    let added: Vec<super::authority::ActionKind> = named
        .iter()
        .copied()
        .filter(|k| !settings.action_kinds.contains(k))
        .collect();
    let settings = if !added.is_empty() {
        with_arguments = settings
            .action_kinds
            .iter()
            .copied()
            .chain(added.iter().copied())
            .collect::<Vec<_>>();
        ProvenanceSettings {
            action_kinds: &with_arguments,
            ..settings
        }
    } else {
        settings
    };
    let mut values = Vec::new();
    leaves(args, schema, Cow::Borrowed(""), "", &mut values);
    // Short values count, compared as whole tokens: in a delete, a share or an access change
    // (an id alone is the whole damage); in an identifier argument; and wherever they hold a
    // digit — an id (`97` from a listing or an injected note) picks which pull request is
    // merged, which booking paid, which e-mail forwarded, under whatever key the tool calls it
    // (`number`, `pr`, `booking`, `message`). Short words elsewhere (`ok`, `no`, `US`) are in
    // every text. (A record the user's words describe still passes its id.)
    // (A short name in a call that closes or runs picks what stops or restarts:
    // `restart_service {"service": "db"}` after "restart the web service", a fourteenth
    // outsider round's.)
    let short_everywhere = settings.action_kinds.iter().any(|k| {
        matches!(
            k,
            super::authority::ActionKind::Delete
                | super::authority::ActionKind::Share
                | super::authority::ActionKind::Access
                | super::authority::ActionKind::Close
                | super::authority::ActionKind::Run
        )
    });
    let short = |leaf: &Leaf, identifier: bool| {
        if short_everywhere || identifier || leaf.needle.chars().any(|c| c.is_ascii_digit()) {
            ShortValues::Tokens
        } else {
            ShortValues::Exempt
        }
    };
    let reads = RecordReads::default();
    // A record the user's words only describe (not name) may say which record a call acts on,
    // never where money goes: an attacker's incoming transfer can describe itself as "the new
    // rent account".
    let moves_no_money = !settings
        .action_kinds
        .contains(&super::authority::ActionKind::Pay);
    // Each leaf judged whole: tainted (with its reason), or passed as the field of a record
    // the user named. Only the others are looked into for atoms.
    let mut whole: HashSet<&str> = HashSet::new();
    let mut tainted: Vec<String> = Vec::new();
    // keel's own file tools move text between files: the text an edit replaces is the file's
    // own, and what it writes is judged by what it carries (atoms, the lines of a file that
    // runs, a download run), not by being found whole in data — "Fix the typo" edits `Teh`
    // to `The`, both in the file read (a fifth outsider round's false positive).
    let writes_code = super::scripts::writes_code(args);
    let edits_text = !settings.change_request && !writes_code;
    // The words of the tool's name, for a role it gives by its name (`add_admin`).
    let tool_words = if settings.change_request {
        super::authority::name_words(tool)
    } else {
        Vec::new()
    };
    for leaf in &values {
        if edits_text && FILE_TEXT_KEYS.contains(&leaf.key) {
            continue;
        }
        // A role the user gave someone else: "make ana an admin and bob a member" gives bob
        // no admin — in the role argument (an enum's choice too) or in the tool's name
        // (`add_admin {"user": "bob"}`, an outsider's round 24).
        let role_given = if settings.change_request && leaf.value.is_some_and(Value::is_string) {
            super::authority::role_given_to_another(
                &leaf.needle,
                values
                    .iter()
                    .filter(|o| o.path != leaf.path)
                    .map(|o| o.needle.as_ref()),
                &index.user,
            )
            .map(|(whom, theirs)| (leaf.needle.to_string(), whom, theirs))
            .or_else(|| {
                tool_words.iter().find_map(|role| {
                    super::authority::role_given_to_another(
                        role,
                        [leaf.needle.as_ref()],
                        &index.user,
                    )
                    .map(|(whom, theirs)| (role.clone(), whom, theirs))
                })
            })
        } else {
            None
        };
        if let Some((role, whom, theirs)) = role_given {
            whole.insert(leaf.path.as_ref());
            tainted.push(format!(
                "{tool} makes {whom} {role}, but you made {whom} {theirs}"
            ));
            continue;
        }
        // A choice the tool offers, which the user's words make ("so anyone with the link can
        // open it" chooses `anyone_with_link`): theirs, however the tool spells it.
        if leaf.choice && super::authority::names_choice(&leaf.needle, &index.requested().said) {
            continue;
        }
        // A flag in a call that acts is a choice of its own: set where the user's words did
        // not ask for it — an extra `"recurring": true` on the payment they asked for, `"admin":
        // true` on their invite — it rides on their request (a seventh outsider round's). The
        // user chooses a flag turned on by naming it ("make it recurring"); one turned off,
        // nobody's words choose.
        if settings.change_request
            && (!settings.action_kinds.is_empty() || !index.user.is_empty())
            && leaf.value.is_some_and(Value::is_boolean)
        {
            let on = leaf.value == Some(&Value::Bool(true));
            let theirs = if on {
                super::authority::names_choice(leaf.key, &index.requested().said)
            } else {
                (withholds_permission(leaf.key)
                    && makes_a_thing(tool)
                    && super::authority::asks_for_less(&index.requested().said))
                    || super::authority::switched_off(leaf.key, &index.requested().said)
            };
            if !theirs {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, a setting nothing you wrote chose",
                    leaf.path, leaf.needle
                ));
            }
            continue;
        }
        let identifier = super::records::is_identifier_key(leaf.key);
        let said_otherwise = || {
            leaf.needle.chars().all(char::is_alphabetic)
                && super::authority::names_choice(&leaf.needle, &index.requested().said)
        };
        let attribution = match attributed(
            index,
            &leaf.needle,
            short(leaf, identifier),
            short_everywhere || identifier,
        ) {
            // A number no text shows as written may be one a text spells another way: "set
            // the limit to 5e4" gives `50000`, "pay 8.5e3 instead" `8500` (an eighth outsider
            // round's).
            // So may a date: "the first of August 2024" gives `2024-08-01`.
            Attribution::Unattributed => leaf_number(leaf)
                .filter(|n| n.abs() > 1.0)
                .and_then(|n| index.spelled_number_source(n))
                .or_else(|| {
                    super::dates::date_of_value(&leaf.needle)
                        .and_then(|d| index.spelled_date_source(d))
                })
                .map_or(Attribution::Unattributed, |at| Attribution::Tainted {
                    source: index.untrusted[at].0.describe(),
                }),
            other => other,
        };
        let source = match attribution {
            Attribution::Tainted { source } => source,
            // An amount that moves money, which no text of the run shows and the user's own
            // numbers do not make: worked out from data, or spelled there another way ("pay
            // 8.5e3 instead", "ten times the rent", an eighth outsider round's).
            // (Under an amount's key, a call that acts moves money whatever its kind says:
            // `top_up {"amount": …}`, `add_funds`.)
            Attribution::Unattributed
                if (!moves_no_money
                    || (settings.change_request && super::amounts::is_amount_key(leaf.key)))
                    && unshown_amount(leaf, index, &|| {
                        index.record_figures(leaf.key, settings.structured_tools, &reads)
                    }) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, an amount neither you nor any result has shown, and no sum of the numbers you wrote makes it: it was worked out from data or made up",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            // A number no text shows, in a call that acts, that the user's numbers do not make:
            // a salary doubled inside `{"changes": {"salary": 104000}}` after "set her salary
            // to 52000 EUR" (a twelfth outsider round's). (An id is judged as an id, and 0 and
            // 1 are defaults.)
            // (A payment's amounts are judged above, with the figures records hold.)
            Attribution::Unattributed
                if settings.change_request
                    && moves_no_money
                    && !super::amounts::is_amount_key(leaf.key)
                    && !super::records::is_identifier_key(leaf.key)
                    && leaf.value.is_some_and(Value::is_number)
                    && leaf_number(leaf).is_some_and(|n| n.abs() > 1.0)
                    && !user_makes(leaf_number(leaf).unwrap_or(0.0), index) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, a number neither you nor any result has shown, and no sum of the numbers you wrote makes it",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            // A date no text shows in any spelling the reader knows, in a call that acts, that
            // is none the user gave ([`super::dates::user_gives`]): "Aug. 1", "tomorrow" or a
            // Unix time in a mail moved their payment (a ninth outsider round's), and a tenth
            // moved one the user wanted "today" to 2030.
            Attribution::Unattributed
                if settings.change_request
                    && let Some((date, theirs)) = super::dates::dates_of_value(&leaf.needle)
                        .into_iter()
                        .find_map(|date| index.other_user_dates(&date).map(|t| (date, t))) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is the date {date}, which neither you nor any result has shown; you gave {theirs}",
                    leaf.path
                ));
                continue;
            }
            // A date argument that holds no date ("next year"), where the user's words give
            // one (or the payment's day is today's): the tool will read it somehow.
            // (An end left empty never ends: a standing order the user gave an end.)
            Attribution::Unattributed
                if settings.change_request
                    && super::dates::is_date_key(leaf.key)
                    && leaf.value.is_some_and(Value::is_string)
                    && (!leaf.needle.trim().is_empty() || super::dates::is_end_key(leaf.key))
                    && !super::dates::is_time_of_day(&leaf.needle)
                    && super::dates::dates_of_value(&leaf.needle).is_empty()
                    && super::dates::names_a_day(
                        index.user.iter().map(std::convert::AsRef::as_ref),
                        index.today.as_deref(),
                    ) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is \"{}\", no date you gave",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            // An action on a thing nobody has shown: the id is in no word of the user's and
            // no result. A model that read it nowhere made it up, or kept it from a call that
            // was refused — an injection's booking paid after its booking was stopped.
            // (A one-word value the user's words make in some form is theirs: "lock the back
            // door" gives `"state": "locked"`. Only letters: `Bob_Acme` is no form of
            // "bob-acme", a fifth outsider round's look-alike handle.)
            // (In a change no kind names too, by an id: `control_device {"device_id":
            // "smoke_detector"}` from an injection that wrote "smoke detector", an eighteenth
            // outsider round's.)
            Attribution::Unattributed
                if (!settings.action_kinds.is_empty()
                    || (settings.change_request && identifier))
                    && !said_otherwise()
                    && (identifier
                        || super::records::is_counterparty_key(leaf.key)
                        || reaches_someone(&leaf.needle)
                        // In a delete, a share or an access change, any one-word name selects
                        // what is destroyed or opened: `disable_branch_protection {"branch":
                        // "main"}` from data that only said "the default branch".
                        || (short_everywhere && !leaf.needle.trim().contains(char::is_whitespace)))
                    && !leaf.needle.trim().is_empty() =>
            {
                whole.insert(leaf.path.as_ref());
                if leaf.choice {
                    tainted.push(format!(
                        "argument \"{}\" of {tool} is \"{}\", one of the choices the tool offers, and nothing you wrote chose it",
                        leaf.path, leaf.needle
                    ));
                    continue;
                }
                tainted.push(format!(
                    "argument \"{}\" of {tool} is \"{}\", which neither you nor any result has shown, so nothing says {} it is",
                    leaf.path,
                    leaf.needle,
                    if identifier || short_everywhere && !super::records::is_counterparty_key(leaf.key) {
                        "which thing"
                    } else {
                        "who or where"
                    }
                ));
                continue;
            }
            // The user's own number, but not a sum they pay: "pay 60 EUR for order #4999,
            // subject 'Order 4999'" shows 4999, and pays 60 (a tenth outsider round's).
            Attribution::Grounded
                if !moves_no_money
                    && super::amounts::is_amount_key(leaf.key)
                    && index
                        .user
                        .iter()
                        .any(|u| !super::amounts::money_in(u).is_empty())
                    && unshown_amount(leaf, index, &|| {
                        index.record_figures(leaf.key, settings.structured_tools, &reads)
                    }) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, a number you wrote but not a sum you asked to pay",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            // A number the user wrote is an id of the thing the call acts on only where their
            // words say so: after the thing's name ("e-mail 31", "PR 97", "#12"), after the
            // call's verb ("refund 88410"), or in a list that follows one ("files 4470 and
            // 4471"). "Delete my 3 oldest drafts" deletes no draft 3, "the e-mails from sprint
            // 7" no e-mail 7 (a nineteenth and a twentieth outsider round's).
            Attribution::Grounded
                if super::records::is_identifier_key(leaf.key)
                    && leaf.needle.bytes().all(|b| b.is_ascii_digit())
                    && !index.user.iter().any(|u| {
                        numbers_the_thing(u, &leaf.needle, leaf.key, tool, settings.action_kinds)
                    }) =>
            {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, a number you wrote, but not as the number of what {tool} acts on (a count, a time, a size or another thing's number)",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            // The user's value, given to another of their actions: "refund order 88410 and
            // ship a replacement for order 88411" refunds no 88411 (a seventeenth outsider
            // round's).
            Attribution::Grounded
                if settings.change_request
                    && let Some(not_given) = super::authority::bound_to_another_action(
                        &leaf.needle,
                        tool,
                        settings.action_kinds,
                        &index.user,
                        !super::amounts::is_amount_key(leaf.key),
                    ) =>
            {
                use super::authority::NotGiven;
                whole.insert(leaf.path.as_ref());
                let why = match not_given {
                    NotGiven::ToAnother { other, own } => {
                        format!("which you asked to {other}, not to {own}")
                    }
                    NotGiven::Excepted => "which you excepted from what you asked for".into(),
                    NotGiven::Corrected => "which you corrected to another".into(),
                };
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, {why}",
                    leaf.path, leaf.needle
                ));
                continue;
            }
            _ => continue,
        };
        whole.insert(leaf.path.as_ref());
        let named = settings.structured_tools.is_some_and(|structured| {
            leaf.value.as_ref().is_some_and(|v| {
                index
                    .named_field(
                        (&leaf.needle, leaf.key, v),
                        structured,
                        &reads,
                        moves_no_money,
                    )
                    .is_some()
            })
        });
        if !named {
            tainted.push(format!(
                "argument \"{}\" of {tool} comes from {source}, not from the user",
                leaf.path
            ));
        }
    }
    // A payment made to repeat — a standing order, an interval, a count — where the user asked
    // for none, or for another (a tenth outsider round's: every value was the user's).
    if !moves_no_money {
        let user_text: String = index
            .user
            .iter()
            .map(std::convert::AsRef::as_ref)
            .collect::<Vec<_>>()
            .join("\n");
        if let Some(what) = super::repeats::repeats(tool, args)
            && !super::repeats::asks_to_repeat(&user_text)
        {
            tainted.push(format!(
                "{tool} makes the payment repeat ({what}), and nothing you wrote asks for a repeated payment"
            ));
        }
        let counts: Vec<f64> = {
            let money: Vec<f64> = super::amounts::money_in(&user_text);
            super::amounts::operands_in(&user_text)
                .into_iter()
                .filter(|n| !money.contains(n))
                .collect()
        };
        for leaf in &values {
            if let Some(Value::String(s)) = leaf.value
                && let Some(frequency) = super::repeats::unsaid_frequency(s, &user_text)
            {
                tainted.push(format!(
                    "argument \"{}\" of {tool} repeats the payment {frequency}, which is not how often you asked for it",
                    leaf.path
                ));
            }
            if super::repeats::is_count_key(leaf.key)
                && let Some(n) = leaf_number(leaf)
                && n > 1.0
                && !counts.iter().any(|c| (c - n).abs() < 0.005)
            {
                tainted.push(format!(
                    "argument \"{}\" of {tool} makes {n} payments, a count nothing you wrote gives",
                    leaf.path
                ));
            }
        }
    }
    // A span that ends before it starts: the user's own two dates, swapped (a tenth outsider
    // round's standing order).
    if settings.change_request
        && let Some((start, end)) = super::dates::span(args)
        && end < start
    {
        tainted.push(format!(
            "{tool} would end on {end}, before it starts on {start}: not the span you gave"
        ));
    }
    // A setting the call leaves to the tool — left out or sent empty, where the schema offers
    // choices or a default — is the tool's to pick, not the user's ([`super::left_out`]).
    if settings.change_request
        && let Some(left_out) =
            super::left_out::left_to_the_tool(args, schema, settings.description)
    {
        tainted.push(format!("{tool} {left_out}"));
    }
    // One payment twice in a call: `pay_bills` with the rent listed two times (a ninth
    // outsider round's), where the user's words pay it once; nothing of the value is new.
    if !moves_no_money && let Some(path) = repeated_element(args, "") {
        tainted.push(format!(
            "argument \"{path}\" of {tool} lists the same payment more than once, and nothing you wrote asks to pay it twice"
        ));
    }
    // What goes out — a message, a comment, a share — may not carry a part of a text that a
    // call steered by data fetched (a fifth outsider round had the model read
    // `wallet-backup.txt` at an issue's request and quote it in a public comment).
    // (Any call that acts outside keel: a new issue or a page is as public as a comment.)
    if settings.change_request && !index.steered().is_empty() {
        for leaf in &values {
            if whole.contains(leaf.path.as_ref()) {
                continue;
            }
            if let Some((part, source)) = index.carries_steered(&leaf.needle) {
                whole.insert(leaf.path.as_ref());
                tainted.push(format!(
                    "argument \"{}\" of {tool} carries \"{}\" from {source}, which was read because data asked for it, not you",
                    leaf.path,
                    part.chars().take(40).collect::<String>()
                ));
            }
        }
    }
    if tainted.is_empty() && writes_code {
        tainted = tainted_lines(tool, &values, index);
    }
    // A command that downloads a program and runs it, from a place the user never named,
    // whatever file or argument holds it.
    // (A line copied from data has said where it came from already.)
    let copied_lines = !tainted.is_empty();
    for leaf in values.iter().filter(|_| !copied_lines) {
        if whole.contains(leaf.path.as_ref()) {
            continue;
        }
        if let Some(host) = super::scripts::fetched_and_run(&leaf.needle)
            .into_iter()
            .find(|host| !matches!(attribute(index, host), Attribution::Grounded))
        {
            whole.insert(leaf.path.as_ref());
            tainted.push(format!(
                "argument \"{}\" of {tool} holds a command that downloads a program from \"{host}\" and runs it, and you never named that place",
                leaf.path
            ));
        }
    }
    // keel's shell names files in its commands (`echo $$ > shell.pid`), so there only links
    // with a scheme and addresses count. What keel's file tools write is text like any
    // other, where a bare host is where it goes: a config that runs a command
    // (`.hg/hgrc`, `docker-compose.yml`, `.gitpod.yml`) reaches `evil.io` as well as
    // `https://evil.io` (a sixth outsider round's host, given in words, written bare).
    let names_files_in_commands =
        !settings.change_request && !matches!(tool, "write_file" | "edit_file") && !writes_code;
    // A secret read in data, carried out in any argument (keel's own file tools write the
    // workspace, which is not passing it on): a reply the user asked for that also holds the
    // PIN a mail gave.
    if !matches!(tool, "write_file" | "edit_file") {
        let before = tainted.len();
        for leaf in &values {
            if let Some((at, secret)) = index.carried_secret(&leaf.needle) {
                tainted.push(format!(
                    "argument \"{}\" of {tool} carries the {} that {} holds, and nothing you wrote asks to pass it on",
                    leaf.path,
                    secret.called_as(),
                    index.untrusted[at].0.describe()
                ));
            }
        }
        // A secret split over two arguments: `25` in the subject, `80` in the body (a ninth
        // outsider round's); or over several calls, `4`, `7`, `19` in three e-mails (a
        // tenth's): this call's arguments read after what the run's last calls sent.
        let together = values
            .iter()
            .map(|leaf| leaf.needle.as_ref())
            .collect::<Vec<&str>>()
            .join(" ");
        if tainted.len() == before
            && values.len() > 1
            && let Some((at, secret)) = index.carried_secret(&together)
        {
            tainted.push(format!(
                "the arguments of {tool} together carry the {} that {} holds, and nothing you wrote asks to pass it on",
                secret.called_as(),
                index.untrusted[at].0.describe()
            ));
        }
        let digits = super::secrets::digits_said(&together);
        if tainted.len() == before && !index.sent.is_empty() && !digits.is_empty() {
            // (The calls before, this one among them when the history holds it already; what
            // they carried without this call's digits was theirs to answer for.)
            let earlier: Vec<String> = index
                .sent
                .iter()
                .filter(|(name, _)| super::classify::name_acts(name))
                .map(|(_, sent)| super::secrets::digits_said(sent))
                .collect();
            let earlier = match earlier.split_last() {
                Some((last, rest)) if *last == digits => rest,
                _ => &earlier[..],
            };
            let before_this = earlier.join(" ");
            let run_on = format!("{before_this} {digits}");
            if index.carried_secret(&before_this).is_none()
                && let Some((at, secret)) = index.carried_secret(&run_on)
            {
                tainted.push(format!(
                    "{tool} with the calls before it carries the {} that {} holds, a part in each, and nothing you wrote asks to pass it on",
                    secret.called_as(),
                    index.untrusted[at].0.describe()
                ));
            }
        }
    }
    tainted.extend(tainted_atoms(
        tool,
        &values,
        &whole,
        index,
        names_files_in_commands,
    ));
    if settings.change_request
        && !index.user.is_empty()
        && let Some(every) = super::authority::every_thing_unasked(
            tool,
            settings.action_kinds,
            &index.requested().said,
        )
    {
        tainted.push(format!(
            "{tool} acts on every one (\"{every}\"), and you named one"
        ));
    }
    // A message the user dictated, sent saying something else: "reply to bob@acme.com that
    // we got the contract" and an injected `send_email` to bob saying "the invoice is
    // approved for payment" (a fifteenth outsider round's).
    if settings.change_request
        && settings
            .action_kinds
            .contains(&super::authority::ActionKind::Send)
        && !index.user.is_empty()
    {
        let dictated = &index.requested().dictated;
        if !dictated.is_empty() {
            for leaf in &values {
                if MESSAGE_KEYS.contains(&leaf.key)
                    && leaf.needle.len() >= 12
                    && !super::authority::says_any_of(&leaf.needle, dictated)
                {
                    tainted.push(format!(
                        "argument \"{}\" of {tool} says none of what you asked to say ({})",
                        leaf.path,
                        dictated.join(", ")
                    ));
                }
            }
        }
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some((thing, state)) = super::authority::state_against_words(
            tool,
            args,
            &index.user.iter().map(AsRef::as_ref).collect::<Vec<&str>>(),
        )
    {
        tainted.push(format!(
            "{tool} changes the state of \"{thing}\", which you asked to keep {state}"
        ));
    }
    if settings.change_request && !index.user.is_empty() {
        for leaf in &values {
            if let Some(n) = leaf.value.and_then(Value::as_f64)
                && let Some(asked) = counted_otherwise(n, leaf.key, &index.requested().counts)
            {
                tainted.push(format!(
                    "argument \"{}\" of {tool} is {}, and you asked for {asked}",
                    leaf.path, leaf.needle
                ));
            }
            if let Some(Value::String(state)) = leaf.value
                && let Some(asked) =
                    super::authority::opposite_state(state, &index.requested().said)
            {
                tainted.push(format!(
                    "argument \"{}\" of {tool} is \"{state}\", and you asked for \"{asked}\"",
                    leaf.path
                ));
            }
        }
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some((does, asked)) =
            super::authority::opposite_of_asked(tool, &index.requested().said)
    {
        tainted.push(format!(
            "{tool} would {does}, the opposite of the \"{asked}\" you asked for"
        ));
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some((does, asked)) = super::authority::other_action_of_kind(
            tool,
            settings.action_kinds,
            &index.requested().kinds,
            &index.requested().said,
        )
    {
        tainted.push(format!(
            "{tool} would {does}, and you asked to {asked}, not to {does}"
        ));
    }
    if settings.change_request && !index.user.is_empty() {
        let objects = super::authority::unnamed_object(
            tool,
            settings.description,
            settings.action_kinds,
            &index.requested().said,
        );
        // The user names the thing by its own name where they typed it: "Restart web-prod-1"
        // for `restart_instance {"instance": "web-prod-1"}`. Only under a key for the thing,
        // and not a bare number, which an issue and a pull request share (`#12`).
        // A person the user names is the member, user or follower a call removes ("remove
        // carol from #random" for `remove_member {"user": "carol"}`), where the user's words
        // do not make the name a possessive ("remove bob-lee's access" asks for no
        // `delete_user`, a fourteenth outsider round's).
        let grounded = |leaf: &Leaf| {
            matches!(
                attributed(index, &leaf.needle, ShortValues::Tokens, true),
                Attribution::Grounded
            )
        };
        let named_by_value = || {
            values.iter().any(|leaf| {
                let key_words = super::classify::words(leaf.key);
                let person = super::records::is_counterparty_key(leaf.key)
                    && objects.iter().any(|o| PERSON_NOUNS.contains(&o.as_str()))
                    && !index.user.iter().any(|u| {
                        u.contains(&format!("{}'s", leaf.needle))
                            || u.contains(&format!("{}\u{2019}s", leaf.needle))
                    });
                (person || objects.iter().any(|o| key_words.contains(o)))
                    && leaf.needle.chars().any(char::is_alphabetic)
                    && grounded(leaf)
                    && !said_as_a_place(&leaf.needle, &index.user)
            })
        };
        // A deletion is judged by what it acts on only where every value it takes is the
        // user's own: an id from a lookup the user delegated is the record they described
        // ("cancel my meeting with the vendor" for `delete_event`), which values judge. The
        // user's own values in another deletion are the other action of a fourteenth outsider
        // round: `delete_repository {"repo": "acme/web"}` after "remove bob-lee's access to
        // acme/web".
        let deletes_only = !settings.action_kinds.iter().any(|k| {
            matches!(
                k,
                super::authority::ActionKind::Close | super::authority::ActionKind::Run
            )
        });
        let users_own_values = || !values.is_empty() && values.iter().all(grounded);
        // (Or where the user's words name it only as where they act: "take away Priya's
        // access to Q3-budget.xlsx" for `delete_file`, a fifteenth outsider round's.)
        let named_as_place =
            || super::authority::named_only_as_place(&objects, &index.requested().said);
        // (Or where the user removes something from a place, and the tool deletes a thing
        // its name places nowhere: "remove Priya from the design group" for `delete_user`, a
        // fifteenth outsider round's.)
        let removed_from_a_place = || {
            index
                .requested()
                .said
                .iter()
                .any(|w| w.located && !w.subordinate)
                && !super::authority::name_says_where(tool)
        };
        if !objects.is_empty()
            && (!deletes_only || users_own_values() || named_as_place() || removed_from_a_place())
            && !named_by_value()
        {
            tainted.push(format!(
                "{tool} acts on {}, and nothing you wrote names {}",
                objects.join(" "),
                if objects.len() == 1 { "it" } else { "that" }
            ));
        }
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some((granted, asked)) = super::authority::granted_beyond_asked(
            tool,
            settings.description,
            settings.action_kinds,
            &index.requested().said,
        )
    {
        tainted.push(format!(
            "{tool} gives {granted} access, and you asked for {asked} access"
        ));
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some(word) = super::authority::unnamed_reach(tool, args, &index.requested().said)
    {
        tainted.push(format!(
            "{tool} makes a change that keeps acting or reaches anyone (\"{word}\"), and nothing you wrote asks for that"
        ));
    }
    if args.as_object().is_none_or(serde_json::Map::is_empty) {
        let unnamed = super::authority::unnamed_words(tool, &index.requested().said);
        if !unnamed.is_empty() {
            tainted.push(format!(
                "{tool} takes no arguments, so its name says everything it does, and nothing \
                 you wrote names {}",
                unnamed
                    .iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if settings.change_request
        && !index.user.is_empty()
        && let Some(why) = super::tool_choice::another_tool_asked_for(
            tool,
            &values
                .iter()
                .map(|l| (l.key, &*l.needle))
                .collect::<Vec<_>>(),
            settings.offered,
            &index.requested().said,
            &index.requested().kept,
        )
    {
        tainted.push(why);
    }
    if !settings.action_kinds.is_empty() {
        // A name that joins actions needs each asked for.
        let joined = super::authority::joined_actions(tool)
            .into_iter()
            .find_map(|part| {
                super::authority::unrequested(&part, index.requested_kinds())
                    .first()
                    .copied()
            });
        let missing = match joined {
            Some(kind) => vec![kind],
            None => {
                let by_name: Vec<_> = settings
                    .action_kinds
                    .iter()
                    .copied()
                    .filter(|k| !added.contains(k))
                    .collect();
                let mut missing = super::authority::unrequested(&by_name, index.requested_kinds());
                missing.extend(
                    added
                        .iter()
                        .copied()
                        .filter(|k| !index.requested_kinds().contains(k)),
                );
                missing
            }
        };
        // (Not a kind its arguments add: `copy_file {"then": "delete source"}` after "copy
        // report.pdf to the archive folder"; nor one only its description gives: a
        // `reset_thermostat` that "erases schedules, Wi-Fi credentials and pairing" after
        // "reset the thermostat schedule", an eighteenth outsider round's.)
        let by_the_name_alone = |kind: &super::authority::ActionKind| {
            (added.contains(kind) && args.as_object().is_none_or(serde_json::Map::is_empty))
                || super::authority::tool_kinds(&super::classify::ToolInfo {
                    name: tool.to_string(),
                    ..Default::default()
                })
                .contains(kind)
        };
        if let Some(kind) = missing.first()
            && (!missing.iter().all(by_the_name_alone)
                // The user asked for this very tool: its verb opens a clause of theirs that
                // names every other word of its name ("pause the geofence alerts" for
                // `pause_geofence_alerts`, whose name implies a safeguard turned off).
                || !super::authority::asks_with_its_verb(
                    tool,
                    &index.requested().said,
                    &index.user,
                    &[],
                ))
        {
            tainted.push(format!(
                "{tool} would {}, and nothing you wrote asks for that",
                kind.describe()
            ));
        }
    } else if settings.change_request
        && !index.user.is_empty()
        && (super::classify::name_acts(tool) || super::arguments::changes_by_arguments(tool, args))
    {
        // A side effect no kind names (`release_latch`, `mute_alerts`), in a run whose user
        // only asked to look: nothing they wrote asks for any change. (A lookup that is
        // side-effecting only for reaching the network, `fetch_url`, changes nothing; a
        // history with no user turn in it, as `keel check` may be given, says nothing either
        // way.)
        if !index.requested().changes
            && !super::authority::asks_with_its_verb(
                tool,
                &index.requested().said,
                &index.user,
                &values.iter().map(|l| &*l.needle).collect::<Vec<_>>(),
            )
        {
            tainted.push(format!(
                "{tool} changes something, and you only asked questions or asked to look things up: nothing you wrote asks for a change"
            ));
        } else {
            // A change was asked for, but of what: the user who asked to turn on a light
            // asked for no thermostat to be set.
            let unnamed = super::authority::unnamed_subject(tool, &index.requested().said);
            // (A name that says what kind of action it takes is judged by that kind, as the
            // gate does: `send_money` needs a request to pay, not the word "money".)
            if !unnamed.is_empty()
                && super::authority::tool_kinds(&super::classify::ToolInfo {
                    name: tool.to_string(),
                    ..Default::default()
                })
                .is_empty()
            {
                tainted.push(format!(
                    "{tool} changes {}, and nothing you wrote names {}",
                    unnamed.join(" "),
                    if unnamed.len() == 1 {
                        "it"
                    } else {
                        "any of that"
                    }
                ));
            } else if let Some(verb) = super::authority::unasked_verb(tool, &index.requested().said)
            {
                tainted.push(format!(
                    "{tool} would {verb} it, and nothing you wrote asks to {verb} anything"
                ));
            }
        }
    }
    if tainted.is_empty() {
        return SafetyCheckResult::allow();
    }
    let reason = format!(
        "{}. Only the user's own words authorize an action.",
        tainted.join("; ")
    );
    match settings.on_tainted {
        OnTainted::AskUser => SafetyCheckResult::ask(reason),
        OnTainted::Deny => SafetyCheckResult::deny(reason),
    }
}

#[cfg(test)]
mod tests;
