//! Texts laid end to end, so that one search runs over all of them: a decision on a history
//! indexed afresh looks for each value in every user turn and every result, and one pass of a
//! SIMD search over the whole is several times cheaper than a search started per text (each
//! start pays the searcher's setup and a call; most texts are short).
//!
//! A hit is mapped back to its text and to where it is inside it, and every judgement about a
//! hit (whole tokens, part of a date) reads that text alone: the answers are those of a search
//! text by text. The texts are joined with NUL, which a needle must not hold
//! ([`Joined::searchable`]); a needle that holds one is searched text by text instead.

use memchr::memmem::Finder;

/// Between two texts: no hit may span it, since a needle never holds it.
const SEPARATOR: char = '\0';

#[derive(Clone, Debug, Default)]
pub(super) struct Joined {
    text: String,
    /// Where each text starts in `text`.
    starts: Vec<usize>,
}

impl Joined {
    pub(super) fn of<'t>(texts: impl ExactSizeIterator<Item = &'t str> + Clone) -> Self {
        let len: usize = texts.clone().map(|t| t.len() + 1).sum();
        let mut joined = Joined {
            text: String::with_capacity(len),
            starts: Vec::with_capacity(texts.len()),
        };
        for t in texts {
            joined.starts.push(joined.text.len());
            joined.text.push_str(t);
            joined.text.push(SEPARATOR);
        }
        joined
    }

    /// Whether a search for `needle` over the joined texts finds exactly what a search of each
    /// text does.
    pub(super) fn searchable(needle: &[u8]) -> bool {
        !needle.is_empty() && !needle.contains(&(SEPARATOR as u8))
    }

    /// Text `at`.
    fn text(&self, at: usize) -> &str {
        // Every text is followed by a separator.
        let end = self.starts.get(at + 1).copied().unwrap_or(self.text.len()) - 1;
        &self.text[self.starts[at]..end]
    }

    /// The first text, in order, with a hit of `finder` that `accept` takes, given the text
    /// and where the hit starts in it. `finder`'s needle must be [`Joined::searchable`].
    pub(super) fn first(
        &self,
        finder: &Finder<'_>,
        mut accept: impl FnMut(&str, usize) -> bool,
    ) -> Option<usize> {
        debug_assert!(Self::searchable(finder.needle()));
        finder.find_iter(self.text.as_bytes()).find_map(|hit| {
            // The last text that starts at or before the hit holds it.
            let at = self.starts.partition_point(|&s| s <= hit) - 1;
            accept(self.text(at), hit - self.starts[at]).then_some(at)
        })
    }

    /// Every text, in order and once each, with a hit of `finder`; only those before `limit`.
    pub(super) fn holding(&self, finder: &Finder<'_>, limit: usize) -> Vec<usize> {
        debug_assert!(Self::searchable(finder.needle()));
        let mut out: Vec<usize> = Vec::new();
        for hit in finder.find_iter(self.text.as_bytes()) {
            let at = self.starts.partition_point(|&s| s <= hit) - 1;
            if at >= limit {
                break;
            }
            if out.last() != Some(&at) {
                out.push(at);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn finder(n: &str) -> Finder<'static> {
        Finder::new(n.as_bytes()).into_owned()
    }

    #[test]
    fn a_hit_maps_to_its_text_and_offset_and_never_spans_two() {
        let texts = ["abc", "", "xabcab", "cab"];
        let j = Joined::of(texts.iter().copied());
        let mut seen = Vec::new();
        let first = j.first(&finder("ab"), |t, at| {
            seen.push((t.to_string(), at));
            false
        });
        assert_eq!(first, None);
        assert_eq!(
            seen,
            [("abc", 0), ("xabcab", 1), ("xabcab", 4), ("cab", 1)].map(|(t, a)| (t.to_string(), a))
        );
        // "ca" + "b" across the separator of "abc" and "" is no hit.
        assert_eq!(j.first(&finder("cx"), |_, _| true), None);
        assert_eq!(j.first(&finder("cab"), |_, _| true), Some(2));
        assert_eq!(
            j.first(&finder("cab"), |t, at| t == "cab" && at == 0),
            Some(3)
        );
        assert_eq!(j.holding(&finder("ab"), 4), vec![0, 2, 3]);
        assert_eq!(j.holding(&finder("ab"), 3), vec![0, 2]);
        assert!(!Joined::searchable(b""));
        assert!(!Joined::searchable(b"a\0b"));
    }

    proptest! {
        /// The joined search answers as a search of each text in turn.
        #[test]
        fn joined_search_is_a_search_text_by_text(
            texts in proptest::collection::vec("[ab \u{e9}]{0,12}", 0..8),
            needle in "[ab \u{e9}]{1,3}",
        ) {
            let j = Joined::of(texts.iter().map(String::as_str));
            let f = finder(&needle);
            // Accept a hit only where it ends a text: an answer that depends on the text's end.
            let at_end = |t: &str, at: usize| at + needle.len() == t.len();
            let want = texts.iter().position(|t| {
                t.match_indices(needle.as_str()).any(|(at, _)| at_end(t, at))
            });
            prop_assert_eq!(j.first(&f, at_end), want);
            let holding: Vec<usize> = (0..texts.len())
                .filter(|&i| texts[i].contains(needle.as_str()))
                .collect();
            prop_assert_eq!(j.holding(&f, texts.len()), holding);
        }
    }
}
