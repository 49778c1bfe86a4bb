//! The conversation language: which language keel's user-facing text should use
//! (notifications.md N17–N24).
//!
//! A [`ConversationLanguage`] observes real user utterances only: [`observe`] takes `&str`,
//! and tool output, evidence and notification payloads are [`crate::Untrusted`], which cannot
//! be passed as `&str`. An explicit, standalone request ("请用中文回答", "please reply in
//! English") sets a sticky preference; without one, script heuristics on the utterance's prose
//! decide. The state is small and serializable so it is persisted with the run.
//!
//! [`observe`]: ConversationLanguage::observe

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::notify::Lang;
use crate::text::js_trim;

/// The JavaScript whitespace set (N37) as a regex class body.
const WS: &str = r"\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}";

fn build(pattern: &str) -> Regex {
    // The patterns are constants checked by the unit tests; a failure here is a bug in this
    // file, caught by every test that touches the tracker.
    Regex::new(&pattern.replace("{WS}", WS))
        .unwrap_or_else(|e| panic!("language pattern does not compile: {e}"))
}

static CHINESE_REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    build(
        "^(?:请|麻烦)?(?:以后|接下来|今后)?请?(?:一直|都)?\
         (?:用|使用|改用|切换|切换成|切换为|切换到|改成|改为)\
         (?:(?P<zh>中文|简体中文|汉语)|(?P<en>英文|英语))\
         (?:和我(?:交流|说话|聊天)|来?(?:回答|回复|交流|说话|聊天))?\
         (?:就好|好吗|可以吗)?[。！？.!?]*$",
    )
});

static ENGLISH_REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    build(
        "(?i)^(?:please[{WS}]+)?\
         (?:(?:respond|reply|answer|speak|talk)(?:[{WS}]+to[{WS}]+me)?[{WS}]+(?:in|using)\
         |(?:switch|change)(?:[{WS}]+back)?[{WS}]+to\
         |use)[{WS}]+\
         (?:(?P<zh>simplified[{WS}]+chinese|chinese|mandarin)|(?P<en>english))\
         (?:[{WS}]+from[{WS}]+now[{WS}]+on\
         |[{WS}]+for[{WS}]+(?:your[{WS}]+)?(?:replies|responses|answers))?[.!?]*$",
    )
});

static CODE_FENCE: LazyLock<Regex> = LazyLock::new(|| build("(?s)```.*?```"));
static INLINE_CODE: LazyLock<Regex> = LazyLock::new(|| build("`[^`]*`"));
static URL: LazyLock<Regex> =
    LazyLock::new(|| build("(?i)(?:https?://[^{WS}]*|(?-u:\\b)www\\.[^{WS}]*)"));
static PATH: LazyLock<Regex> =
    LazyLock::new(|| build("(?:^|[{WS}])(?:/|~/|[A-Za-z]:\\\\)[^{WS}]*"));
static ACKNOWLEDGEMENT: LazyLock<Regex> = LazyLock::new(|| {
    build(
        "(?i)^(?:ok|okay|yes|no|yep|nope|sure|thank|thanks|thank you|go ahead\
         |好|好的|可以|行|嗯|是|是的|不是|谢谢)[{WS}。！？.!?]*$",
    )
});
static SHELL_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    build(
        "(?i)^(?:git|npm|npx|pnpm|yarn|node|python[0-9]*|cd|ls|pwd|cat|rg|curl|wget|ssh|sudo)[{WS}]",
    )
});
static HAN: LazyLock<Regex> = LazyLock::new(|| build(r"\p{sc=Han}"));
static NON_LATIN_SCRIPT: LazyLock<Regex> = LazyLock::new(|| {
    build(r"[\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Cyrillic}\p{sc=Arabic}]")
});
static KANA_OR_HANGUL: LazyLock<Regex> =
    LazyLock::new(|| build(r"[\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]"));
static LATIN_WORD: LazyLock<Regex> =
    LazyLock::new(|| build(r"(?-u:\b)[A-Za-z]+(?:'[A-Za-z]+)?(?-u:\b)"));

/// The language an explicit, standalone request asks for (N19), if the whole trimmed
/// utterance is one.
pub fn explicit_request(trimmed: &str) -> Option<Lang> {
    // Which alternative matched decides, not the matched text: under case folding `engliſh`
    // (long s) is `english`.
    [&*CHINESE_REQUEST, &*ENGLISH_REQUEST]
        .into_iter()
        .find_map(|re| re.captures(trimmed))
        .map(|c| {
            if c.name("en").is_some() {
                Lang::En
            } else {
                Lang::ZhCn
            }
        })
}

/// The prose of an utterance (N21): code, URLs and paths each become one space, then trim.
pub fn prose(trimmed: &str) -> String {
    let text = CODE_FENCE.replace_all(trimmed, " ");
    let text = INLINE_CODE.replace_all(&text, " ");
    let text = URL.replace_all(&text, " ");
    let text = PATH.replace_all(&text, " ");
    js_trim(&text).to_string()
}

/// What the script heuristics of N21 make of an utterance without a preference.
pub fn detect(trimmed: &str) -> Option<Lang> {
    let prose = prose(trimmed);
    if ACKNOWLEDGEMENT.is_match(&prose) || SHELL_COMMAND.is_match(&prose) {
        return None;
    }
    // N42: kana or Hangul anywhere means Japanese or Korean, which kanji and hanja do not
    // make Chinese.
    if HAN.find_iter(&prose).nth(1).is_some() && !KANA_OR_HANGUL.is_match(&prose) {
        return Some(Lang::ZhCn);
    }
    if !NON_LATIN_SCRIPT.is_match(&prose) && LATIN_WORD.find_iter(&prose).nth(2).is_some() {
        return Some(Lang::En);
    }
    None
}

/// The tracker (N17–N23). Persisted with the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationLanguage {
    /// The current language, once established.
    pub current: Option<Lang>,
    /// A sticky preference was set by an explicit request.
    pub explicit: bool,
}

/// What one observation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// Blank after trimming (N18): not a sample, nothing changes.
    Ignored,
    /// An explicit request set the sticky preference.
    Requested(Lang),
    /// The heuristics established this language.
    Detected(Lang),
    /// Counted as a sample; the language did not change.
    Unchanged,
}

impl ConversationLanguage {
    pub fn new() -> Self {
        Self::default()
    }

    /// Observes one real user utterance.
    pub fn observe(&mut self, utterance: &str) -> Observed {
        let trimmed = js_trim(utterance);
        if trimmed.is_empty() {
            return Observed::Ignored;
        }
        if let Some(lang) = explicit_request(trimmed) {
            self.current = Some(lang);
            self.explicit = true;
            return Observed::Requested(lang);
        }
        if self.explicit {
            return Observed::Unchanged;
        }
        match detect(trimmed) {
            Some(lang) => {
                self.current = Some(lang);
                Observed::Detected(lang)
            }
            None => Observed::Unchanged,
        }
    }

    /// The current language, or `fallback` (the UI language) when none is established (N22).
    pub fn resolve(&self, fallback: Lang) -> Lang {
        self.current.unwrap_or(fallback)
    }
}

/// Whether N18 keeps an utterance as a language sample: it is not blank.
pub fn is_sample(utterance: &str) -> bool {
    !js_trim(utterance).is_empty()
}

#[cfg(test)]
mod tests;
